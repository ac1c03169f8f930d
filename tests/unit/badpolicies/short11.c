/*
 * short11.c - test module: claims ABI 1.1 but its size is the 1.0
 * descriptor's, so it does not cover choose_set; the host must refuse it.
 */
#include <stddef.h>

#include "zkelect/policy.h"

static int
short11_init(void **state, const struct zkelect_option *o, size_t n, char *err, size_t len)
{
    (void)o; (void)n; (void)err; (void)len;
    *state = NULL;
    return 0;
}

static void
short11_fini(void *state)
{
    (void)state;
}

static int
short11_choose(void *state, const struct zkelect_policy_input *in,
               struct zkelect_policy_output *out)
{
    (void)state;
    out->chosen = in->nmembers > 0 ? 0 : -1;
    return 0;
}

static const struct zkelect_policy short11_policy = {
    ZKELECT_POLICY_ABI_MAJOR, 1,
    offsetof(struct zkelect_policy, choose_set), /* the 1.0 size */
    "short11", short11_init, short11_fini, short11_choose, NULL
};

const struct zkelect_policy *zkelect_policy_entry(void);

ZKELECT_POLICY_EXPORT const struct zkelect_policy *
zkelect_policy_entry(void)
{
    return &short11_policy;
}
