/*
 * failinit.c - test policy for tests/security: init() always fails with a
 * message, so a daemon configured with it can never decide.
 */
#include <stdio.h>

#include "zkelect/policy.h"

static int
failinit_init(void **state, const struct zkelect_option *opts, size_t nopts, char *err,
              size_t errlen)
{
    (void)opts;
    (void)nopts;
    *state = NULL;
    snprintf(err, errlen, "failinit: refusing to start (test policy)");
    return -1;
}

static void
failinit_fini(void *state)
{
    (void)state;
}

static int
failinit_choose(void *state, const struct zkelect_policy_input *in,
                struct zkelect_policy_output *out)
{
    (void)state;
    (void)in;
    snprintf(out->reason, sizeof(out->reason), "failinit: choose() must never run");
    return 1;
}

static const struct zkelect_policy failinit_policy = {
    .abi_major = ZKELECT_POLICY_ABI_MAJOR,
    .abi_minor = ZKELECT_POLICY_ABI_MINOR,
    .size = sizeof(struct zkelect_policy),
    .name = "failinit",
    .init = failinit_init,
    .fini = failinit_fini,
    .choose = failinit_choose,
};

const struct zkelect_policy *zkelect_policy_entry(void);

ZKELECT_POLICY_EXPORT const struct zkelect_policy *
zkelect_policy_entry(void)
{
    return &failinit_policy;
}
