/* nullentry.c - test module: the entry function returns NULL. */
#include "zkelect/policy.h"

const struct zkelect_policy *zkelect_policy_entry(void);

ZKELECT_POLICY_EXPORT const struct zkelect_policy *
zkelect_policy_entry(void)
{
    return NULL;
}
