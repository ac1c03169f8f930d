/*
 * abi10.c - test module: a policy built against ABI 1.0, before choose_set
 * existed. Its descriptor is the 1.0 struct (abi_minor 0, the 1.0 size); a
 * 1.1 host must load it, use its choose() and never read past the 1.0 size.
 * The word right after the descriptor looks like a choose_set pointer (a
 * function that fails): a host that read it would call it or report it.
 */
#include <stdio.h>

#include "zkelect/policy.h"

/* struct zkelect_policy as ABI 1.0 defined it. */
struct zkelect_policy_1_0 {
    uint16_t abi_major;
    uint16_t abi_minor;
    uint32_t size;
    const char *name;
    int (*init)(void **, const struct zkelect_option *, size_t, char *, size_t);
    void (*fini)(void *);
    int (*choose)(void *, const struct zkelect_policy_input *,
                  struct zkelect_policy_output *);
};

/* The 1.0 output: what a 1.0 module may write. */
struct zkelect_policy_output_1_0 {
    int chosen;
    char reason[160];
};

static int
abi10_init(void **state, const struct zkelect_option *o, size_t n, char *err, size_t len)
{
    (void)o; (void)n; (void)err; (void)len;
    *state = NULL;
    return 0;
}

static void
abi10_fini(void *state)
{
    (void)state;
}

/* The last member that can lead (not what the shipped policies pick). */
static int
abi10_choose(void *state, const struct zkelect_policy_input *in,
             struct zkelect_policy_output *o)
{
    struct zkelect_policy_output_1_0 *out = (struct zkelect_policy_output_1_0 *)o;
    size_t i;

    (void)state;
    for (i = in->nmembers; i-- > 0; ) {
        if (zkelect_member_can_lead(&in->members[i])) {
            out->chosen = (int)i;
            snprintf(out->reason, sizeof(out->reason), "abi10: last that can lead");
            return 0;
        }
    }
    snprintf(out->reason, sizeof(out->reason), "abi10: nobody can lead");
    return 0;
}

/* Reached only through a host that reads past a 1.0 descriptor. */
static int
abi10_trap(void *state, const struct zkelect_policy_input *in,
           struct zkelect_policy_output *out)
{
    (void)state; (void)in;
    snprintf(out->reason, sizeof(out->reason), "abi10: the host read past the 1.0 "
             "descriptor");
    return 1;
}

static const struct {
    struct zkelect_policy_1_0 base;
    int (*after)(void *, const struct zkelect_policy_input *,
                 struct zkelect_policy_output *);
} abi10_policy = {
    { ZKELECT_POLICY_ABI_MAJOR, 0, sizeof(struct zkelect_policy_1_0), "abi10",
      abi10_init, abi10_fini, abi10_choose },
    abi10_trap
};

const struct zkelect_policy *zkelect_policy_entry(void);

ZKELECT_POLICY_EXPORT const struct zkelect_policy *
zkelect_policy_entry(void)
{
    return (const struct zkelect_policy *)&abi10_policy.base;
}
