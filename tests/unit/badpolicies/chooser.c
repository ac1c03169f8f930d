/*
 * chooser.c - test module: a policy that does what its options say, so the
 * loader's checks can be driven from the tests.
 *
 * Options (all optional):
 *   mode=echo          chosen -1, reason "k=v,k=v,..." (the options init got)
 *   mode=index         chosen = the index option, reason "index N" (or none
 *                      with noreason=on)
 *   mode=cannot-lead   the first member that cannot lead
 *   mode=fail          choose() returns 1 with a reason
 *   mode=unterminated  chosen 0, reason filled with 'x' and no NUL
 *   mode=control       chosen -1, reason with control characters
 *   index=N            for mode=index
 *   noreason=on        for mode=index: leave the reason empty
 *   failinit=TEXT      init fails with TEXT as its message
 *   finifile=PATH      fini() appends "fini\n" to PATH
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zkelect/policy.h"

enum chooser_mode {
    CHOOSER_ECHO,                 /* report the options */
    CHOOSER_INDEX,                /* return a fixed index */
    CHOOSER_CANNOT_LEAD,          /* return a member that cannot lead */
    CHOOSER_FAIL,                 /* fail */
    CHOOSER_UNTERMINATED,         /* leave the reason unterminated */
    CHOOSER_CONTROL               /* control characters in the reason */
};

struct chooser_state {
    enum chooser_mode mode;       /* what choose() does */
    int index;                    /* for CHOOSER_INDEX */
    int noreason;                 /* for CHOOSER_INDEX: no reason */
    char echo[160];               /* "k=v,..." of the options */
    char finifile[256];           /* fini() marks this file; "" for none */
};

static int
chooser_init(void **state, const struct zkelect_option *opts, size_t nopts,
             char *err, size_t errlen)
{
    struct chooser_state *st;
    size_t i, used = 0;

    if ((st = calloc(1, sizeof(*st))) == NULL)
        return -1;
    for (i = 0; i < nopts; i++) {
        const char *k = opts[i].key, *v = opts[i].value;

        if (used < sizeof(st->echo))
            used += (size_t)snprintf(st->echo + used, sizeof(st->echo) - used, "%s%s=%s",
                                     i ? "," : "", k, v);
        if (strcmp(k, "failinit") == 0) {
            snprintf(err, errlen, "%s", v);
            free(st);
            return -1;
        } else if (strcmp(k, "finifile") == 0) {
            snprintf(st->finifile, sizeof(st->finifile), "%s", v);
        } else if (strcmp(k, "index") == 0) {
            st->index = atoi(v);
        } else if (strcmp(k, "noreason") == 0) {
            st->noreason = strcmp(v, "on") == 0;
        } else if (strcmp(k, "mode") == 0) {
            if (strcmp(v, "echo") == 0)
                st->mode = CHOOSER_ECHO;
            else if (strcmp(v, "index") == 0)
                st->mode = CHOOSER_INDEX;
            else if (strcmp(v, "cannot-lead") == 0)
                st->mode = CHOOSER_CANNOT_LEAD;
            else if (strcmp(v, "fail") == 0)
                st->mode = CHOOSER_FAIL;
            else if (strcmp(v, "unterminated") == 0)
                st->mode = CHOOSER_UNTERMINATED;
            else if (strcmp(v, "control") == 0)
                st->mode = CHOOSER_CONTROL;
            else {
                snprintf(err, errlen, "chooser: bad mode '%s'", v);
                free(st);
                return -1;
            }
        }
    }
    *state = st;
    return 0;
}

static void
chooser_fini(void *state)
{
    struct chooser_state *st = state;
    FILE *f;

    if (st->finifile[0] != '\0' && (f = fopen(st->finifile, "a")) != NULL) {
        fputs("fini\n", f);
        fclose(f);
    }
    free(st);
}

static int
chooser_choose(void *state, const struct zkelect_policy_input *in,
               struct zkelect_policy_output *out)
{
    const struct chooser_state *st = state;
    size_t i;

    switch (st->mode) {
    case CHOOSER_ECHO:
        snprintf(out->reason, sizeof(out->reason), "%s", st->echo);
        return 0;
    case CHOOSER_INDEX:
        out->chosen = st->index;
        if (!st->noreason)
            snprintf(out->reason, sizeof(out->reason), "index %d", st->index);
        return 0;
    case CHOOSER_CANNOT_LEAD:
        for (i = 0; i < in->nmembers; i++) {
            if (!zkelect_member_can_lead(&in->members[i])) {
                out->chosen = (int)i;
                snprintf(out->reason, sizeof(out->reason), "picked %s", in->members[i].id);
                return 0;
            }
        }
        snprintf(out->reason, sizeof(out->reason), "every member can lead");
        return 0;
    case CHOOSER_FAIL:
        snprintf(out->reason, sizeof(out->reason), "chooser was told to fail");
        return 1;
    case CHOOSER_UNTERMINATED:
        out->chosen = 0;
        memset(out->reason, 'x', sizeof(out->reason));
        return 0;
    case CHOOSER_CONTROL:
        snprintf(out->reason, sizeof(out->reason), "bad%cline%c%cend", '\n', '\033', 0x7f);
        return 0;
    }
    return 1;
}

static const struct zkelect_policy chooser_policy = {
    .abi_major = ZKELECT_POLICY_ABI_MAJOR,
    .abi_minor = ZKELECT_POLICY_ABI_MINOR,
    .size = sizeof(struct zkelect_policy),
    .name = "chooser",
    .init = chooser_init,
    .fini = chooser_fini,
    .choose = chooser_choose,
};

const struct zkelect_policy *zkelect_policy_entry(void);

ZKELECT_POLICY_EXPORT const struct zkelect_policy *
zkelect_policy_entry(void)
{
    return &chooser_policy;
}
