/* noentry.c - test module: a valid descriptor behind a misspelt entry symbol. */
#include "zkelect/policy.h"

static int
noentry_init(void **state, const struct zkelect_option *o, size_t n, char *err, size_t len)
{
    *state = NULL;
    return 0;
}

static void
noentry_fini(void *state)
{
}

static int
noentry_choose(void *state, const struct zkelect_policy_input *in,
               struct zkelect_policy_output *out)
{
    return 0;
}

static const struct zkelect_policy noentry_policy = {
    ZKELECT_POLICY_ABI_MAJOR, ZKELECT_POLICY_ABI_MINOR, sizeof(struct zkelect_policy),
    "noentry", noentry_init, noentry_fini, noentry_choose, NULL
};

const struct zkelect_policy *zkelect_policy_entri(void);

ZKELECT_POLICY_EXPORT const struct zkelect_policy *
zkelect_policy_entri(void)
{
    return &noentry_policy;
}
