/*
 * nodeid.c - the "nodeid" policy: the lowest node id wins.
 *
 * Order: zkelect_id_compare() (numeric-aware: "n2" < "n10"). Option
 * preempt=on|off (default off):
 *   off  a current leader that is a live member and can lead stays;
 *   on   the lowest id that can lead takes over.
 * Common rules (every shipped policy): never a member that cannot lead;
 * REASON_SWITCHOVER with a target picks the target when it can lead and
 * refuses (-1) otherwise; without a target, the lowest id among the others.
 *
 * choose_set (N leaders): choose()'s node first; with preempt=off the
 * current slot holders that can still lead; then the lowest ids. On a
 * switchover the current leader is left out (unless it is the target).
 */
#include <stdlib.h>

#include "zkelect/policy.h"
#include "polutil.h"

struct nodeid_state {
    int preempt;                  /* non-zero: the lowest id takes over */
};

static int
nodeid_init(void **state, const struct zkelect_option *opts, size_t nopts,
            char *err, size_t errlen)
{
    struct nodeid_state *st;
    int preempt = 0;
    size_t i;

    for (i = 0; i < nopts; i++) {
        if (polutil_opt_check("nodeid", opts, i, err, errlen) != 0)
            return -1;
        if (strcmp(opts[i].key, "preempt") == 0) {
            if (polutil_opt_onoff("nodeid", &opts[i], &preempt, err, errlen) != 0)
                return -1;
        } else {
            polutil_err(err, errlen, "nodeid: unknown option '%s' (known: preempt)",
                        opts[i].key);
            return -1;
        }
    }
    if ((st = calloc(1, sizeof(*st))) == NULL) {
        polutil_err(err, errlen, "nodeid: out of memory");
        return -1;
    }
    st->preempt = preempt;
    *state = st;
    return 0;
}

static void
nodeid_fini(void *state)
{
    free(state);
}

/* The member with the lowest id that can lead, not index skip; -1 if none. */
static int
nodeid_best(const struct zkelect_policy_input *in, int skip)
{
    int best = -1;
    size_t i;

    for (i = 0; i < in->nmembers; i++) {
        if ((int)i == skip || !zkelect_member_can_lead(&in->members[i]))
            continue;
        if (best < 0 || polutil_idcmp(&in->members[i], &in->members[best]) < 0)
            best = (int)i;
    }
    return best;
}

static int
nodeid_choose(void *state, const struct zkelect_policy_input *in,
              struct zkelect_policy_output *out)
{
    const struct nodeid_state *st = state;
    int best, cur;

    if (in->reasons & ZKELECT_REASON_SWITCHOVER) {
        if (in->switchover_target != NULL) {
            out->chosen = polutil_switchover_target(in, out);
            if (out->chosen >= 0)
                polutil_reason(out, "switchover to %s", in->switchover_target);
            return 0;
        }
        best = nodeid_best(in, polutil_find(in, in->current_leader));
        if (best < 0) {
            polutil_reason(out, "switchover: no node other than %s can lead",
                           in->current_leader ? in->current_leader : "the leader");
            return 0;
        }
        out->chosen = best;
        polutil_reason(out, "switchover: lowest other node id %s", in->members[best].id);
        return 0;
    }

    best = nodeid_best(in, -1);
    if (best < 0) {
        polutil_reason(out, "no eligible node: none of the %zu members can lead",
                       in->nmembers);
        return 0;
    }
    cur = polutil_current(in);
    if (cur >= 0 && zkelect_member_can_lead(&in->members[cur])) {
        if (cur == best) {
            out->chosen = cur;
            polutil_reason(out, "lowest node id %s (current leader)", in->members[cur].id);
            return 0;
        }
        if (!st->preempt) {
            out->chosen = cur;
            polutil_reason(out, "current leader %s kept (preempt=off; lowest id is %s)",
                           in->members[cur].id, in->members[best].id);
            return 0;
        }
        out->chosen = best;
        polutil_reason(out, "lowest node id %s takes over from %s (preempt=on)",
                       in->members[best].id, in->members[cur].id);
        return 0;
    }
    out->chosen = best;
    polutil_reason(out, "lowest node id %s", in->members[best].id);
    return 0;
}

/* The set order: node id (polutil_idcmp). */
static int
nodeid_better(const struct zkelect_policy_input *in, const struct zkelect_policy_output *out,
              int a, int b)
{
    (void)out;
    return polutil_idcmp(&in->members[a], &in->members[b]);
}

static int
nodeid_choose_set(void *state, const struct zkelect_policy_input *in,
                  struct zkelect_policy_output *out)
{
    const struct nodeid_state *st = state;
    int first, avoid;

    if ((first = polutil_set_first(state, in, out, nodeid_choose)) == -2)
        return 1;
    if (first < 0)
        return 0;
    avoid = polutil_set_avoid(in, ZKELECT_REASON_SWITCHOVER, first);
    if (!st->preempt)
        polutil_set_keep_holders(in, out, avoid, polutil_can_lead);
    polutil_set_fill(in, out, avoid, polutil_can_lead, nodeid_better);
    polutil_set_reason(in, out);
    return 0;
}

static const struct zkelect_policy nodeid_policy = {
    .abi_major = ZKELECT_POLICY_ABI_MAJOR,
    .abi_minor = ZKELECT_POLICY_ABI_MINOR,
    .size = sizeof(struct zkelect_policy),
    .name = "nodeid",
    .init = nodeid_init,
    .fini = nodeid_fini,
    .choose = nodeid_choose,
    .choose_set = nodeid_choose_set,
};

const struct zkelect_policy *zkelect_policy_entry(void);

ZKELECT_POLICY_EXPORT const struct zkelect_policy *
zkelect_policy_entry(void)
{
    return &nodeid_policy;
}
