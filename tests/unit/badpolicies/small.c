/* small.c - test module: a descriptor whose size is smaller than ABI 1.0's. */
#include <stddef.h>

#include "zkelect/policy.h"

static int
small_init(void **state, const struct zkelect_option *o, size_t n, char *err, size_t len)
{
    *state = NULL;
    return 0;
}

static void
small_fini(void *state)
{
}

static const struct zkelect_policy small_policy = {
    ZKELECT_POLICY_ABI_MAJOR, ZKELECT_POLICY_ABI_MINOR,
    offsetof(struct zkelect_policy, choose), /* as if built without choose */
    "small", small_init, small_fini, NULL, NULL
};

const struct zkelect_policy *zkelect_policy_entry(void);

ZKELECT_POLICY_EXPORT const struct zkelect_policy *
zkelect_policy_entry(void)
{
    return &small_policy;
}
