/* abi2.c - test module: a descriptor that claims policy ABI 2.0. */
#include "zkelect/policy.h"

static int
abi2_init(void **state, const struct zkelect_option *o, size_t n, char *err, size_t len)
{
    *state = NULL;
    return 0;
}

static void
abi2_fini(void *state)
{
}

static int
abi2_choose(void *state, const struct zkelect_policy_input *in,
            struct zkelect_policy_output *out)
{
    return 0;
}

static const struct zkelect_policy abi2_policy = {
    2, 0, sizeof(struct zkelect_policy), "abi2", abi2_init, abi2_fini, abi2_choose, NULL
};

const struct zkelect_policy *zkelect_policy_entry(void);

ZKELECT_POLICY_EXPORT const struct zkelect_policy *
zkelect_policy_entry(void)
{
    return &abi2_policy;
}
