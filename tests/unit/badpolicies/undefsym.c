/*
 * undefsym.c - test module: refers to a function nothing defines, so
 * dlopen(RTLD_NOW) must fail although the file is a valid shared object.
 */
#include "zkelect/policy.h"

void zke_test_undefined_function(void);

static int
undefsym_init(void **state, const struct zkelect_option *o, size_t n, char *err,
              size_t len)
{
    zke_test_undefined_function();
    *state = NULL;
    return 0;
}

static void
undefsym_fini(void *state)
{
}

static int
undefsym_choose(void *state, const struct zkelect_policy_input *in,
                struct zkelect_policy_output *out)
{
    return 0;
}

static const struct zkelect_policy undefsym_policy = {
    ZKELECT_POLICY_ABI_MAJOR, ZKELECT_POLICY_ABI_MINOR, sizeof(struct zkelect_policy),
    "undefsym", undefsym_init, undefsym_fini, undefsym_choose, NULL
};

const struct zkelect_policy *zkelect_policy_entry(void);

ZKELECT_POLICY_EXPORT const struct zkelect_policy *
zkelect_policy_entry(void)
{
    return &undefsym_policy;
}
