/*
 * roundrobin.c - the "roundrobin" policy: leadership rotates in node-id order.
 *
 * A current leader that is a live member and can lead is kept. Leadership
 * moves when the current leader is absent or can no longer lead, on
 * REASON_WATCHDOG and on REASON_SWITCHOVER; it goes to the next node that
 * can lead after the current leader in zkelect_id_compare() order, wrapping
 * around to the lowest id. With no current leader at all, the rotation
 * starts after previous_leader, or at the lowest id when there is none.
 * On REASON_WATCHDOG the stalled leader itself is chosen again only when it
 * is the only node that can lead (the host normally excludes it anyway).
 * No options: any option fails init.
 *
 * choose_set (N leaders): choose()'s node first, then the current slot
 * holders that can still lead (kept, as the leader is), then the ring in
 * node-id order after the first node (wrapping around). On a watchdog or a
 * switchover the current leader is left out (unless choose() picked it).
 */
#include <stdlib.h>

#include "zkelect/policy.h"
#include "polutil.h"

static int
roundrobin_init(void **state, const struct zkelect_option *opts, size_t nopts,
                char *err, size_t errlen)
{
    if (nopts > 0) {
        polutil_err(err, errlen, "roundrobin: unknown option '%s' (roundrobin takes "
                    "no options)", opts[0].key ? opts[0].key : "(null)");
        return -1;
    }
    *state = NULL;
    return 0;
}

static void
roundrobin_fini(void *state)
{
    (void)state;
}

/*
 * The member that can lead (not index skip) that comes next after the id
 * anchor in node order: the lowest id greater than anchor, else the lowest
 * id of all (wrap-around). anchor NULL: the lowest id. -1 if none can lead.
 * *wrapped is set when the choice wrapped around.
 */
static int
roundrobin_next(const struct zkelect_policy_input *in, const char *anchor, int skip,
                int *wrapped)
{
    int after = -1, lowest = -1;
    size_t i;

    for (i = 0; i < in->nmembers; i++) {
        const struct zkelect_member *m = &in->members[i];

        if ((int)i == skip || !zkelect_member_can_lead(m))
            continue;
        if (lowest < 0 || polutil_idcmp(m, &in->members[lowest]) < 0)
            lowest = (int)i;
        if (anchor != NULL && zkelect_id_compare(m->id, anchor) > 0 &&
            (after < 0 || polutil_idcmp(m, &in->members[after]) < 0))
            after = (int)i;
    }
    *wrapped = anchor != NULL && after < 0 && lowest >= 0;
    return after >= 0 ? after : lowest;
}

static int
roundrobin_choose(void *state, const struct zkelect_policy_input *in,
                  struct zkelect_policy_output *out)
{
    const char *anchor, *what;
    int cur, next, wrapped, skip = -1;

    (void)state;
    if (in->reasons & ZKELECT_REASON_SWITCHOVER) {
        if (in->switchover_target != NULL) {
            out->chosen = polutil_switchover_target(in, out);
            if (out->chosen >= 0)
                polutil_reason(out, "switchover to %s", in->switchover_target);
            return 0;
        }
        /* No target: the next node after the current leader, never itself. */
        skip = polutil_find(in, in->current_leader);
    }

    if (polutil_count_can_lead(in) == 0) {
        polutil_reason(out, "no eligible node: none of the %zu members can lead",
                       in->nmembers);
        return 0;
    }
    cur = polutil_current(in);
    if (cur >= 0 && zkelect_member_can_lead(&in->members[cur]) &&
        !(in->reasons & (ZKELECT_REASON_WATCHDOG | ZKELECT_REASON_SWITCHOVER))) {
        out->chosen = cur;
        polutil_reason(out, "current leader %s kept", in->members[cur].id);
        return 0;
    }

    if (in->current_leader != NULL) {
        anchor = in->current_leader;
        what = "leader";
    } else if (in->previous_leader != NULL) {
        anchor = in->previous_leader;
        what = "previous leader";
    } else {
        anchor = NULL;
        what = NULL;
    }
    next = roundrobin_next(in, anchor, skip, &wrapped);
    if (next < 0) {
        polutil_reason(out, "switchover: no node other than %s can lead",
                       in->current_leader ? in->current_leader : "the leader");
        return 0;
    }
    out->chosen = next;
    if (anchor == NULL)
        polutil_reason(out, "no previous leader: lowest node id %s", in->members[next].id);
    else
        polutil_reason(out, "%snext after %s %s%s: %s",
                       (in->reasons & ZKELECT_REASON_SWITCHOVER) ? "switchover: " :
                       (in->reasons & ZKELECT_REASON_WATCHDOG) ? "watchdog: " : "",
                       what, anchor, wrapped ? " (wrapped around)" : "",
                       in->members[next].id);
    return 0;
}

/*
 * The set order: the ring after the set's first node, i.e. the ids above it
 * in node order, then (wrapped around) the ids below it.
 */
static int
roundrobin_better(const struct zkelect_policy_input *in,
                  const struct zkelect_policy_output *out, int a, int b)
{
    const struct zkelect_member *f = &in->members[out->chosen_set[0]];
    int wa = polutil_idcmp(&in->members[a], f) < 0;
    int wb = polutil_idcmp(&in->members[b], f) < 0;

    if (wa != wb)
        return wa ? 1 : -1;
    return polutil_idcmp(&in->members[a], &in->members[b]);
}

static int
roundrobin_choose_set(void *state, const struct zkelect_policy_input *in,
                      struct zkelect_policy_output *out)
{
    int first, avoid;

    if ((first = polutil_set_first(state, in, out, roundrobin_choose)) == -2)
        return 1;
    if (first < 0)
        return 0;
    avoid = polutil_set_avoid(in, ZKELECT_REASON_SWITCHOVER | ZKELECT_REASON_WATCHDOG,
                              first);
    polutil_set_keep_holders(in, out, avoid, polutil_can_lead);
    polutil_set_fill(in, out, avoid, polutil_can_lead, roundrobin_better);
    polutil_set_reason(in, out);
    return 0;
}

static const struct zkelect_policy roundrobin_policy = {
    .abi_major = ZKELECT_POLICY_ABI_MAJOR,
    .abi_minor = ZKELECT_POLICY_ABI_MINOR,
    .size = sizeof(struct zkelect_policy),
    .name = "roundrobin",
    .init = roundrobin_init,
    .fini = roundrobin_fini,
    .choose = roundrobin_choose,
    .choose_set = roundrobin_choose_set,
};

const struct zkelect_policy *zkelect_policy_entry(void);

ZKELECT_POLICY_EXPORT const struct zkelect_policy *
zkelect_policy_entry(void)
{
    return &roundrobin_policy;
}
