/* nullchoose.c - test module: a descriptor without a choose() callback. */
#include "zkelect/policy.h"

static int
nullchoose_init(void **state, const struct zkelect_option *o, size_t n, char *err,
                size_t len)
{
    *state = NULL;
    return 0;
}

static void
nullchoose_fini(void *state)
{
}

static const struct zkelect_policy nullchoose_policy = {
    ZKELECT_POLICY_ABI_MAJOR, ZKELECT_POLICY_ABI_MINOR, sizeof(struct zkelect_policy),
    "nullchoose", nullchoose_init, nullchoose_fini, NULL, NULL
};

const struct zkelect_policy *zkelect_policy_entry(void);

ZKELECT_POLICY_EXPORT const struct zkelect_policy *
zkelect_policy_entry(void)
{
    return &nullchoose_policy;
}
