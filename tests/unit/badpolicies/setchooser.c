/*
 * setchooser.c - test module (ABI 1.1): a choose_set() that returns what its
 * options say, so the loader's checks of a set can be driven from the tests.
 *
 * Options (all optional):
 *   set=I,J,...   chosen_set = these member indexes (any ints), nchosen =
 *                 their number; no set: nchosen 0
 *   count=N       nchosen = N whatever set says (N may be wrong)
 *   fail=on       choose_set() returns 1 with a reason
 *   noreason=on   leave the reason empty
 * choose() returns the first index of set (or -1), reason "choose".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zkelect/policy.h"

struct setchooser_state {
    int set[ZKELECT_POLICY_SLOTS_MAX]; /* the indexes to return */
    int nset;                     /* entries of set */
    int count;                    /* nchosen to return; -1000: nset */
    int fail;                     /* non-zero: choose_set() fails */
    int noreason;                 /* non-zero: no reason */
};

static int
setchooser_init(void **state, const struct zkelect_option *opts, size_t nopts,
                char *err, size_t errlen)
{
    struct setchooser_state *st;
    const char *p;
    char *end;
    size_t i;

    if ((st = calloc(1, sizeof(*st))) == NULL)
        return -1;
    st->count = -1000;
    for (i = 0; i < nopts; i++) {
        const char *k = opts[i].key, *v = opts[i].value;

        if (strcmp(k, "set") == 0) {
            for (p = v; *p != '\0' && st->nset < ZKELECT_POLICY_SLOTS_MAX; p = end) {
                st->set[st->nset++] = (int)strtol(p, &end, 10);
                if (*end == ',')
                    end++;
                else if (*end != '\0')
                    break;
            }
        } else if (strcmp(k, "count") == 0) {
            st->count = atoi(v);
        } else if (strcmp(k, "fail") == 0) {
            st->fail = strcmp(v, "on") == 0;
        } else if (strcmp(k, "noreason") == 0) {
            st->noreason = strcmp(v, "on") == 0;
        } else {
            snprintf(err, errlen, "setchooser: unknown option '%s'", k);
            free(st);
            return -1;
        }
    }
    *state = st;
    return 0;
}

static void
setchooser_fini(void *state)
{
    free(state);
}

static int
setchooser_choose(void *state, const struct zkelect_policy_input *in,
                  struct zkelect_policy_output *out)
{
    const struct setchooser_state *st = state;

    (void)in;
    out->chosen = st->nset > 0 ? st->set[0] : -1;
    snprintf(out->reason, sizeof(out->reason), "choose");
    return 0;
}

static int
setchooser_choose_set(void *state, const struct zkelect_policy_input *in,
                      struct zkelect_policy_output *out)
{
    const struct setchooser_state *st = state;
    int k;

    (void)in;
    if (st->fail) {
        snprintf(out->reason, sizeof(out->reason), "setchooser was told to fail");
        return 1;
    }
    for (k = 0; k < st->nset; k++)
        out->chosen_set[k] = st->set[k];
    out->nchosen = st->count != -1000 ? st->count : st->nset;
    if (!st->noreason)
        snprintf(out->reason, sizeof(out->reason), "set of %d", out->nchosen);
    return 0;
}

static const struct zkelect_policy setchooser_policy = {
    .abi_major = ZKELECT_POLICY_ABI_MAJOR,
    .abi_minor = 1,
    .size = sizeof(struct zkelect_policy),
    .name = "setchooser",
    .init = setchooser_init,
    .fini = setchooser_fini,
    .choose = setchooser_choose,
    .choose_set = setchooser_choose_set,
};

const struct zkelect_policy *zkelect_policy_entry(void);

ZKELECT_POLICY_EXPORT const struct zkelect_policy *
zkelect_policy_entry(void)
{
    return &setchooser_policy;
}
