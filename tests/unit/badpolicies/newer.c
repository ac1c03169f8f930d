/*
 * newer.c - test module: built against a future ABI 1.7 whose descriptor has
 * grown; the host must load it and read only the fields it knows (1.1: this
 * module's choose_set is NULL, so it serves N = 1 only).
 */
#include "zkelect/policy.h"

struct newer_descriptor {
    struct zkelect_policy base;   /* the fields of the host's ABI (1.1) */
    int (*describe)(void *, char *, size_t); /* a field a later minor appended */
    unsigned long flags;          /* another appended field */
};

static int
newer_init(void **state, const struct zkelect_option *o, size_t n, char *err, size_t len)
{
    *state = NULL;
    return 0;
}

static void
newer_fini(void *state)
{
}

static int
newer_choose(void *state, const struct zkelect_policy_input *in,
             struct zkelect_policy_output *out)
{
    out->chosen = in->nmembers > 0 ? 0 : -1;
    return 0;
}

static const struct newer_descriptor newer_policy = {
    { ZKELECT_POLICY_ABI_MAJOR, 7, sizeof(struct newer_descriptor), "newer",
      newer_init, newer_fini, newer_choose, NULL },
    NULL, 0xfful
};

const struct zkelect_policy *zkelect_policy_entry(void);

ZKELECT_POLICY_EXPORT const struct zkelect_policy *
zkelect_policy_entry(void)
{
    return &newer_policy.base;
}
