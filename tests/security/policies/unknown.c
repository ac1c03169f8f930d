/*
 * unknown.c - test policy for tests/security: choose() returns an index past
 * the last member (a node that does not exist), whatever the input.
 */
#include <stdio.h>

#include "zkelect/policy.h"

static int
unknown_init(void **state, const struct zkelect_option *opts, size_t nopts, char *err,
             size_t errlen)
{
    (void)opts;
    (void)nopts;
    (void)err;
    (void)errlen;
    *state = NULL;
    return 0;
}

static void
unknown_fini(void *state)
{
    (void)state;
}

static int
unknown_choose(void *state, const struct zkelect_policy_input *in,
               struct zkelect_policy_output *out)
{
    (void)state;
    out->chosen = (int)in->nmembers + 7;
    snprintf(out->reason, sizeof(out->reason), "unknown: a node that does not exist");
    return 0;
}

static const struct zkelect_policy unknown_policy = {
    .abi_major = ZKELECT_POLICY_ABI_MAJOR,
    .abi_minor = ZKELECT_POLICY_ABI_MINOR,
    .size = sizeof(struct zkelect_policy),
    .name = "unknown",
    .init = unknown_init,
    .fini = unknown_fini,
    .choose = unknown_choose,
};

const struct zkelect_policy *zkelect_policy_entry(void);

ZKELECT_POLICY_EXPORT const struct zkelect_policy *
zkelect_policy_entry(void)
{
    return &unknown_policy;
}
