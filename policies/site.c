/*
 * site.c - the "site" policy: the highest-priority site that has a node that
 * can lead; inside it the highest node priority, then the lowest node id.
 *
 * Site priorities come from in->sites (the cluster config). A site that is
 * not listed, and a member whose site is "", has priority 0. A site with
 * priority <= 0 never leads ("maintenance"), even when it is the only one.
 *
 * The order (site_cmp): site priority, higher first; node priority, higher
 * first; node id in zkelect_id_compare() order, lower first.
 *
 * Options:
 *   preempt = on|off (default off)
 *       off  a current leader that is a live member, can lead and is on a
 *            site with priority > 0 stays, even when a better node exists;
 *            except on REASON_CONFIG_CHANGED: a config change is an explicit
 *            operator action (zkelect set-site-priority), so that election
 *            is run as with preempt=on;
 *       on   the best node in site_cmp order always leads.
 *   failover = same-site|other-site (default same-site: plain site_cmp order)
 *       other-site  when the current leader has to be replaced because it
 *            is gone or can no longer lead (absent, ineligible, unhealthy,
 *            excluded: REASON_LEADER_LOST, the watchdog, ...), the best node
 *            on a site other than the failed leader's site
 *            (current_leader_site, or its member's site when that is
 *            unknown) is preferred; when no other site has an eligible node,
 *            the best node of the same site is taken.
 *   spread = sites|none (default none): the order of choose_set (N leaders)
 *       none   best site first, filled before the next site (site_cmp);
 *       sites  one node per site in site order, round after round: the
 *              next node is the best one on the sites that have the fewest
 *              nodes in the set so far, so N actives span as many sites as
 *              have eligible nodes, best sites first.
 * A current leader whose site priority dropped to <= 0 loses leadership
 * whatever the options. REASON_SWITCHOVER follows the common rules, except
 * that a target on a site with priority <= 0 is refused.
 *
 * choose_set (N leaders): choose()'s node first; with preempt=off (and not
 * on REASON_CONFIG_CHANGED, as for choose) the current slot holders that
 * can still lead on a site with priority > 0; then the spread order. On a
 * switchover the current leader is left out (unless it is the target).
 */
#include <stdlib.h>

#include "zkelect/policy.h"
#include "polutil.h"

struct site_state {
    int preempt;                  /* non-zero: the best node always takes over */
    int other_site;               /* non-zero: failover=other-site */
    int spread;                   /* non-zero: spread=sites */
};

static int
site_init(void **state, const struct zkelect_option *opts, size_t nopts,
          char *err, size_t errlen)
{
    struct site_state *st;
    int preempt = 0, other_site = 0, spread = 0;
    size_t i;

    for (i = 0; i < nopts; i++) {
        if (polutil_opt_check("site", opts, i, err, errlen) != 0)
            return -1;
        if (strcmp(opts[i].key, "preempt") == 0) {
            if (polutil_opt_onoff("site", &opts[i], &preempt, err, errlen) != 0)
                return -1;
        } else if (strcmp(opts[i].key, "failover") == 0) {
            if (strcmp(opts[i].value, "same-site") == 0)
                other_site = 0;
            else if (strcmp(opts[i].value, "other-site") == 0)
                other_site = 1;
            else {
                polutil_err(err, errlen, "site: bad value '%s' for option 'failover' "
                            "(want same-site or other-site)", opts[i].value);
                return -1;
            }
        } else if (strcmp(opts[i].key, "spread") == 0) {
            if (strcmp(opts[i].value, "none") == 0)
                spread = 0;
            else if (strcmp(opts[i].value, "sites") == 0)
                spread = 1;
            else {
                polutil_err(err, errlen, "site: bad value '%s' for option 'spread' "
                            "(want sites or none)", opts[i].value);
                return -1;
            }
        } else {
            polutil_err(err, errlen, "site: unknown option '%s' (known: preempt, "
                        "failover, spread)", opts[i].key);
            return -1;
        }
    }
    if ((st = calloc(1, sizeof(*st))) == NULL) {
        polutil_err(err, errlen, "site: out of memory");
        return -1;
    }
    st->preempt = preempt;
    st->other_site = other_site;
    st->spread = spread;
    *state = st;
    return 0;
}

static void
site_fini(void *state)
{
    free(state);
}

/* A site name for messages. */
static const char *
site_label(const char *site)
{
    return site != NULL && site[0] != '\0' ? site : "(no site)";
}

/*
 * The priority of a site: its first entry in in->sites; 0 when it is not
 * listed or is "" (*listed says which, may be NULL).
 */
static int
site_priority(const struct zkelect_policy_input *in, const char *site, int *listed)
{
    size_t i;

    if (listed != NULL)
        *listed = 0;
    if (site == NULL || site[0] == '\0')
        return 0;
    for (i = 0; i < in->nsites; i++) {
        if (in->sites[i].site != NULL && strcmp(in->sites[i].site, site) == 0) {
            if (listed != NULL)
                *listed = 1;
            return in->sites[i].priority;
        }
    }
    return 0;
}

/* Non-zero when m may lead under this policy: it can lead and its site priority > 0. */
static int
site_eligible(const struct zkelect_policy_input *in, const struct zkelect_member *m)
{
    return zkelect_member_can_lead(m) && site_priority(in, m->site, NULL) > 0;
}

/*
 * The one order of this policy, <0 when a is preferred: site priority
 * (higher first), node priority (higher first), node id (polutil_idcmp).
 */
static int
site_cmp(const struct zkelect_policy_input *in, const struct zkelect_member *a,
         const struct zkelect_member *b)
{
    int sa = site_priority(in, a->site, NULL), sb = site_priority(in, b->site, NULL);

    if (sa != sb)
        return sa > sb ? -1 : 1;
    if (a->priority != b->priority)
        return a->priority > b->priority ? -1 : 1;
    return polutil_idcmp(a, b);
}

/*
 * The best eligible member, not index skip, not on site avoid (NULL: any
 * site); -1 if none.
 */
static int
site_best(const struct zkelect_policy_input *in, int skip, const char *avoid)
{
    int best = -1;
    size_t i;

    for (i = 0; i < in->nmembers; i++) {
        const struct zkelect_member *m = &in->members[i];

        if ((int)i == skip || !site_eligible(in, m))
            continue;
        if (avoid != NULL && strcmp(m->site ? m->site : "", avoid) == 0)
            continue;
        if (best < 0 || site_cmp(in, m, &in->members[best]) < 0)
            best = (int)i;
    }
    return best;
}

/*
 * The reason when no member is eligible: either none can lead, or every
 * site that has one is in maintenance; those sites are listed in name order
 * so the text does not depend on the member order.
 */
static void
site_no_eligible(const struct zkelect_policy_input *in, struct zkelect_policy_output *out)
{
    const char *last = NULL, *next;
    size_t i, used, nlisted = 0;
    int prio, listed;

    if (polutil_count_can_lead(in) == 0) {
        polutil_reason(out, "no eligible node: none of the %zu members can lead",
                       in->nmembers);
        return;
    }
    used = (size_t)snprintf(out->reason, sizeof(out->reason), "no eligible node:");
    for (;;) {
        next = NULL;
        for (i = 0; i < in->nmembers; i++) {
            const struct zkelect_member *m = &in->members[i];
            const char *s = m->site ? m->site : "";

            if (!zkelect_member_can_lead(m))
                continue;
            if ((last == NULL || strcmp(s, last) > 0) &&
                (next == NULL || strcmp(s, next) < 0))
                next = s;
        }
        if (next == NULL || used + 1 >= sizeof(out->reason))
            break;
        prio = site_priority(in, next, &listed);
        if (next[0] == '\0')
            used += (size_t)snprintf(out->reason + used, sizeof(out->reason) - used,
                                     "%s nodes without a site never lead",
                                     nlisted ? "," : "");
        else if (!listed)
            used += (size_t)snprintf(out->reason + used, sizeof(out->reason) - used,
                                     "%s site %s is not configured (priority 0)",
                                     nlisted ? "," : "", next);
        else
            used += (size_t)snprintf(out->reason + used, sizeof(out->reason) - used,
                                     "%s site %s is in maintenance (priority %d)",
                                     nlisted ? "," : "", next, prio);
        nlisted++;
        last = next;
    }
}

/* out->chosen = i with the standard description, after the prefix. */
static void
site_pick(const struct zkelect_policy_input *in, struct zkelect_policy_output *out,
          int i, const char *prefix)
{
    const struct zkelect_member *m = &in->members[i];

    out->chosen = i;
    polutil_reason(out, "%s%s: site %s (%d), node priority %d", prefix, m->id,
                   site_label(m->site), site_priority(in, m->site, NULL), m->priority);
}

static int
site_switchover(const struct zkelect_policy_input *in, struct zkelect_policy_output *out)
{
    int t, prio;

    if (in->switchover_target != NULL) {
        if ((t = polutil_switchover_target(in, out)) < 0)
            return 0;
        prio = site_priority(in, in->members[t].site, NULL);
        if (prio <= 0) {
            polutil_reason(out, "switchover refused: %s is on site %s, which never "
                           "leads (priority %d)", in->members[t].id,
                           site_label(in->members[t].site), prio);
            return 0;
        }
        site_pick(in, out, t, "switchover to ");
        return 0;
    }
    t = site_best(in, polutil_find(in, in->current_leader), NULL);
    if (t < 0) {
        polutil_reason(out, "switchover: no node other than %s can lead",
                       in->current_leader ? in->current_leader : "the leader");
        return 0;
    }
    site_pick(in, out, t, "switchover: best other node ");
    return 0;
}

static int
site_choose(void *state, const struct zkelect_policy_input *in,
            struct zkelect_policy_output *out)
{
    const struct site_state *st = state;
    const char *failed;
    char prefix[96];
    int best, cur, alt, any;

    if (in->reasons & ZKELECT_REASON_SWITCHOVER)
        return site_switchover(in, out);

    if ((best = site_best(in, -1, NULL)) < 0) {
        site_no_eligible(in, out);
        return 0;
    }

    cur = polutil_current(in);
    if (cur >= 0 && site_eligible(in, &in->members[cur])) {
        if (cur == best) {
            site_pick(in, out, cur, "current leader is the best node ");
            return 0;
        }
        if (!st->preempt && !(in->reasons & ZKELECT_REASON_CONFIG_CHANGED)) {
            site_pick(in, out, cur, "current leader kept (preempt=off) ");
            return 0;
        }
        snprintf(prefix, sizeof(prefix), "%s, replaces %.40s: ",
                 st->preempt ? "preempt=on" : "config changed", in->members[cur].id);
        site_pick(in, out, best, prefix);
        return 0;
    }

    /* The current leader (if any) is gone or can no longer lead. */
    if (st->other_site && in->current_leader != NULL) {
        failed = in->current_leader_site;
        if ((failed == NULL || failed[0] == '\0') &&
            (any = polutil_find(in, in->current_leader)) >= 0)
            failed = in->members[any].site;
        if (failed != NULL && failed[0] != '\0') {
            if ((alt = site_best(in, -1, failed)) >= 0) {
                snprintf(prefix, sizeof(prefix), "failover from site %.40s: ", failed);
                site_pick(in, out, alt, prefix);
            } else {
                snprintf(prefix, sizeof(prefix), "failover: no other site than %.40s "
                         "has an eligible node: ", failed);
                site_pick(in, out, best, prefix);
            }
            return 0;
        }
    }
    site_pick(in, out, best, "best node ");
    return 0;
}

/* The set order of spread=none: site_cmp. */
static int
site_better(const struct zkelect_policy_input *in, const struct zkelect_policy_output *out,
            int a, int b)
{
    (void)out;
    return site_cmp(in, &in->members[a], &in->members[b]);
}

/* The number of members of the set on site. */
static int
site_in_set(const struct zkelect_policy_input *in, const struct zkelect_policy_output *out,
            const char *site)
{
    const char *s;
    int k, n = 0;

    for (k = 0; k < out->nchosen; k++) {
        s = in->members[out->chosen_set[k]].site;
        n += strcmp(s ? s : "", site ? site : "") == 0;
    }
    return n;
}

/* The set order of spread=sites: fewest on its site in the set so far, then site_cmp. */
static int
site_better_spread(const struct zkelect_policy_input *in,
                   const struct zkelect_policy_output *out, int a, int b)
{
    int na = site_in_set(in, out, in->members[a].site);
    int nb = site_in_set(in, out, in->members[b].site);

    if (na != nb)
        return na < nb ? -1 : 1;
    return site_cmp(in, &in->members[a], &in->members[b]);
}

static int
site_choose_set(void *state, const struct zkelect_policy_input *in,
                struct zkelect_policy_output *out)
{
    const struct site_state *st = state;
    int first, avoid;

    if ((first = polutil_set_first(state, in, out, site_choose)) == -2)
        return 1;
    if (first < 0)
        return 0;
    avoid = polutil_set_avoid(in, ZKELECT_REASON_SWITCHOVER, first);
    if (!st->preempt && !(in->reasons & ZKELECT_REASON_CONFIG_CHANGED))
        polutil_set_keep_holders(in, out, avoid, site_eligible);
    polutil_set_fill(in, out, avoid, site_eligible,
                     st->spread ? site_better_spread : site_better);
    polutil_set_reason(in, out);
    return 0;
}

static const struct zkelect_policy site_policy = {
    .abi_major = ZKELECT_POLICY_ABI_MAJOR,
    .abi_minor = ZKELECT_POLICY_ABI_MINOR,
    .size = sizeof(struct zkelect_policy),
    .name = "site",
    .init = site_init,
    .fini = site_fini,
    .choose = site_choose,
    .choose_set = site_choose_set,
};

const struct zkelect_policy *zkelect_policy_entry(void);

ZKELECT_POLICY_EXPORT const struct zkelect_policy *
zkelect_policy_entry(void)
{
    return &site_policy;
}
