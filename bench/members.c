/*
 * members.c - section 5b: what a leader change costs each kind of member.
 *
 * Eight in-process nodes in one group (own handle, session and library
 * thread each; policy nodeid preempt=off, session 20 s), registered in this
 * order:
 *     p-e   not eligible, every event (on_event): the elector throughout
 *     p-a   eligible, every event  } leadership alternates between these two
 *     p-b   eligible, every event  }
 *     p-es  eligible, subscribed to +leader-changed only (zkelect_subscribe)
 *     p-eu  eligible, unsubscribed (no on_event, no subscription)
 *     p-ns  not eligible, subscribed to +leader-changed only
 *     p-nu  not eligible, unsubscribed
 *     p-c   eligible, every event, registered last
 * nodeid gives the lead to the lowest id that can lead, so p-es and p-eu
 * (eligible, higher ids) are never chosen while p-a or p-b is there, nor
 * named the standing successor (doc/PROTOCOL.md §4) while p-c is there:
 * with the leaver away, p-c is the one named. They are candidates that are
 * not in play. The four p-?s/p-?u members are the uninvolved ones: neither
 * elector, nor old or new leader, nor named successor. p-c registers last
 * so that none of them is the member right after it in the election order,
 * which re-arms its watch on p-c's election znode at each naming (one
 * request: the naming's one neighbour, as the wake's).
 *
 * Leader changes of two kinds, -K/2 each (10 by default): a graceful leave (the READY
 * leader unnominates; it nominates again after the window, which is not
 * counted) and a switchover (written as the CLI does, to the other of p-a
 * and p-b). Each window runs from quiescence to quiescence (no node's
 * request or notification counter, zkelect_get_stats, moved for QUIET_MS)
 * around the change, which ends at the new leader's +ready. Per member and
 * kind of change: the mean and the largest number of requests and of watch
 * notifications in a window. Issue 18's targets: an unsubscribed one of the
 * four sends no request, a subscribed one at most 2; a window in which one
 * sends more is told apart (bench/trace.c's tally: which request, on which
 * znode, and which notifications) and printed below the table.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

#define NMEM 8
#define MAX_OVER 12                 /* windows over a target told apart, at most */
#define QUIET_MS 150                /* no counter moved for this long: quiescent */
#define SESSION_MS 20000

static const struct {
    const char *id;
    int eligible;
    enum node_events events;
    const char *what;
} kinds[NMEM] = {
    {"p-e", 0, NODE_EVENTS_ALL, "elector (not eligible)"},
    {"p-a", 1, NODE_EVENTS_ALL, "p-a (leader, or new leader)"},
    {"p-b", 1, NODE_EVENTS_ALL, "p-b (leader, or new leader)"},
    {"p-es", 1, NODE_EVENTS_LEADER, "eligible, subscribed"},
    {"p-eu", 1, NODE_EVENTS_NONE, "eligible, unsubscribed"},
    {"p-ns", 0, NODE_EVENTS_LEADER, "not eligible, subscribed"},
    {"p-nu", 0, NODE_EVENTS_NONE, "not eligible, unsubscribed"},
    {"p-c", 1, NODE_EVENTS_ALL, "p-c (named successor, leaver away)"},
};

#define M_ES 3
#define M_EU 4
#define M_NS 5
#define M_NU 6

struct mcount {
    uint64_t req[NMEM], notif[NMEM];
};

/* What a member over its target sent in one window (trace_tally_list). */
static struct {
    char line[600];
} over[MAX_OVER];
static int nover, nover_all;

/* After window K of KIND: every uninvolved member over its target (an
   unsubscribed one: any request; a subscriber: more than 2), told apart. */
static void
over_check(const struct mcount *a, const struct mcount *b, const char *kind, int k)
{
    char what[480];
    int i;

    for (i = M_ES; i <= M_NU; i++) {
        uint64_t dr = b->req[i] - a->req[i];
        bool sub = kinds[i].events == NODE_EVENTS_LEADER;
        if (sub ? dr <= 2 : dr == 0)
            continue;
        nover_all++;
        if (nover == MAX_OVER)
            continue;
        trace_tally_list(kinds[i].id, what, sizeof(what));
        snprintf(over[nover++].line, sizeof(over[0].line), "%s %d: %s sent %llu request(s), "
            "got %llu notification(s): %s", kind, k, kinds[i].id, (unsigned long long)dr,
            (unsigned long long)(b->notif[i] - a->notif[i]), *what ? what : "(none seen)");
    }
}

static void
snap(struct bnode **n, struct mcount *c)
{
    struct zkelect_stats st;
    int i;

    for (i = 0; i < NMEM; i++) {
        memset(&st, 0, sizeof(st));
        zkelect_get_stats(n[i]->g, &st);
        c->req[i] = st.requests;
        c->notif[i] = st.notifications;
    }
}

static uint64_t
csum(const struct mcount *c)
{
    uint64_t t = 0;
    int i;

    for (i = 0; i < NMEM; i++)
        t += c->req[i] + c->notif[i];
    return t;
}

/* Poll the counters until none moved over QUIET_MS; 0, or -1 after 15 s. */
static int
quiesce(struct bnode **n, struct mcount *c)
{
    uint64_t until = now_us() + (uint64_t)BENCH_WAIT_MS * 1000u, prev = UINT64_MAX;

    for (;;) {
        snap(n, c);
        if (csum(c) == prev)
            return 0;
        prev = csum(c);
        if (now_us() >= until) {
            warnx_("members: the counters still move after %d ms", BENCH_WAIT_MS);
            return -1;
        }
        pace_ms(QUIET_MS); /* the quiet interval of the quiescence test */
    }
}

/* Per member: requests and notifications of each window (x1000, as counts). */
struct mseries {
    struct samples req[NMEM], notif[NMEM];
};

static void
series_add(struct mseries *s, const struct mcount *a, const struct mcount *b, FILE *csv,
    const char *kind, int k)
{
    int i;

    for (i = 0; i < NMEM; i++) {
        samples_add(&s->req[i], (int64_t)(b->req[i] - a->req[i]) * 1000);
        samples_add(&s->notif[i], (int64_t)(b->notif[i] - a->notif[i]) * 1000);
        if (csv)
            fprintf(csv, "%s,%d,%s,%llu,%llu\n", kind, k, kinds[i].id,
                (unsigned long long)(b->req[i] - a->req[i]),
                (unsigned long long)(b->notif[i] - a->notif[i]));
    }
}

static void
series_free(struct mseries *s)
{
    int i;

    for (i = 0; i < NMEM; i++) {
        samples_free(&s->req[i]);
        samples_free(&s->notif[i]);
    }
}

static void
series_print(const char *title, const struct mseries *s)
{
    struct summary r, nt;
    char m[160];
    int i;

    printf("  %-36s %5s %9s %9s %9s %9s\n", title, "n", "req mean", "req max", "ntf mean",
        "ntf max");
    for (i = 0; i < NMEM; i++) {
        samples_summary(&s->req[i], &r);
        samples_summary(&s->notif[i], &nt);
        printf("  %-36s %5zu %9.2f %9.0f %9.2f %9.0f\n", kinds[i].what, r.n, r.mean / 1000.0,
            r.max / 1000.0, nt.mean / 1000.0, nt.max / 1000.0);
        snprintf(m, sizeof(m), "members: %s: %s: requests per change", title, kinds[i].id);
        summary_csv_value("ensemble", m, r.mean / 1000.0, "count");
        snprintf(m, sizeof(m), "members: %s: %s: notifications per change", title,
            kinds[i].id);
        summary_csv_value("ensemble", m, nt.mean / 1000.0, "count");
    }
    fflush(stdout);
}

/* The largest and the mean count of member i over both kinds of change. */
static void
both(const struct mseries *a, const struct mseries *b, int i, bool notif, double *max,
    double *mean)
{
    struct summary x, y;

    samples_summary(notif ? &a->notif[i] : &a->req[i], &x);
    samples_summary(notif ? &b->notif[i] : &b->req[i], &y);
    *max = (x.max > y.max ? x.max : y.max) / 1000.0;
    *mean = x.n + y.n ? (x.mean * (double)x.n + y.mean * (double)y.n) /
        (double)(x.n + y.n) / 1000.0 : 0;
}

static void
targets(const struct mseries *lv, const struct mseries *so)
{
    double eu_max, eu_mean, nu_max, nu_mean, es_max, es_mean, ns_max, ns_mean;
    double en_max, en_mean, nn_max, nn_mean;
    char meas[96];
    int n = (int)(lv->req[0].n + so->req[0].n);

    if (n == 0) {
        target_add("uninvolved unsubscribed: 0 requests", "no change completed", -1);
        target_add("subscriber: <= 2 requests", "no change completed", -1);
        return;
    }
    both(lv, so, M_EU, false, &eu_max, &eu_mean);
    both(lv, so, M_NU, false, &nu_max, &nu_mean);
    both(lv, so, M_ES, false, &es_max, &es_mean);
    both(lv, so, M_NS, false, &ns_max, &ns_mean);
    table_note("uninvolved members per leader change (%d changes: leaves and switchovers), "
        "requests mean (max): unsubscribed %.2f (%.0f) eligible, %.2f (%.0f) not eligible; "
        "subscribed %.2f (%.0f) eligible, %.2f (%.0f) not eligible", n, eu_mean, eu_max,
        nu_mean, nu_max, es_mean, es_max, ns_mean, ns_max);
    both(lv, so, M_EU, true, &en_max, &en_mean);
    both(lv, so, M_NU, true, &nn_max, &nn_mean);
    snprintf(meas, sizeof(meas), "max %.0f/%.0f (mean %.2f/%.2f) elig./not; ntf %.2f/%.2f",
        eu_max, nu_max, eu_mean, nu_mean, en_mean, nn_mean);
    target_add("uninvolved unsubscribed: 0 requests", meas, eu_max == 0 && nu_max == 0);
    both(lv, so, M_ES, true, &en_max, &en_mean);
    both(lv, so, M_NS, true, &nn_max, &nn_mean);
    snprintf(meas, sizeof(meas), "max %.0f/%.0f (mean %.2f/%.2f) elig./not; ntf %.2f/%.2f",
        es_max, ns_max, es_mean, ns_mean, en_mean, nn_mean);
    target_add("subscriber: <= 2 requests", meas, es_max <= 2 && ns_max <= 2);
}

int
section_members(struct zkh *z)
{
    struct bgroup bg;
    struct bnode *n[NMEM] = {NULL};
    struct mseries lv, so;
    struct mcount c0, c1;
    struct bnode *L, *T;
    struct bev ready;
    zhandle_t *ctl = NULL;
    FILE *csv = NULL;
    uint64_t epoch;
    size_t mark;
    int i, k, rc = -1, failures = 0, changes = bopt.scale_changes / 2;

    memset(&lv, 0, sizeof(lv));
    memset(&so, 0, sizeof(so));
    memset(&bg, 0, sizeof(bg));
    bg.hosts = zkh_hosts(z);
    snprintf(bg.path, sizeof(bg.path), "/zkbench/members-%d", (int)getpid());
    bg.policy = "nodeid";
    bg.policy_opt = "preempt=off";
    bg.session_ms = SESSION_MS;
    if (changes < 1)
        changes = 1;
    nover = nover_all = 0;
    vlog("members: %d nodes under %s, %d leaves and %d switchovers", NMEM, bg.path, changes,
        changes);
    trace_tally_start(bg.path);     /* before the handles open: they are told apart */
    for (i = 0; i < NMEM; i++)
        if ((n[i] = node_open_ex(&bg, kinds[i].id, kinds[i].eligible, kinds[i].events)) ==
                NULL || node_nominate(n[i]) != 0)
            goto out;
    if (node_wait_leader(BENCH_WAIT_MS) == NULL) {
        warnx_("members: no READY leader within %d ms", BENCH_WAIT_MS);
        goto out;
    }
    if ((ctl = zk_connect(bg.hosts, BENCH_WAIT_MS)) == NULL)
        goto out;
    csv = csv_open("members.csv", "change,run,member,requests,notifications");

    for (k = 0; k < 2 * changes; k++) {
        bool leave = k < changes;
        if ((L = node_wait_leader(BENCH_WAIT_MS)) == NULL || (L != n[1] && L != n[2])) {
            warnx_("members: change %d: the READY leader is not p-a or p-b", k);
            goto fail;
        }
        T = L == n[1] ? n[2] : n[1];
        node_state(L, NULL, NULL, &epoch);
        pace_ms(bopt.gap_ms);
        if (quiesce(n, &c0) != 0)
            goto fail;
        trace_tally_reset();
        mark = evlog_mark();
        if (leave ? node_unnominate(L) != 0 :
                switchover_write(ctl, bg.path, T->id, "zkbench", NULL, NULL) != 0)
            goto fail;
        if (evlog_wait(mark, ZKELECT_EV_READY, T->idx, -1, epoch + 1, BENCH_WAIT_MS, &ready,
                NULL) != 0) {
            warnx_("members: change %d: %s not READY within %d ms", k, T->id, BENCH_WAIT_MS);
            goto fail;
        }
        if (quiesce(n, &c1) != 0)
            goto fail;
        series_add(leave ? &lv : &so, &c0, &c1, csv, leave ? "leave" : "switchover",
            leave ? k : k - changes);
        over_check(&c0, &c1, leave ? "leave" : "switchover", leave ? k : k - changes);
        if (leave && node_nominate(L) != 0)
            goto out;
        continue;
fail:
        if (leave)
            node_nominate(L);
        if (++failures > 3) {
            warnx_("members: too many failures; stopping");
            break;
        }
    }
    csv_close(csv, "members.csv");
    csv = NULL;

    printf("\n5b. Requests and notifications per leader change, by kind of member "
        "(%d in-process nodes, policy nodeid preempt=off)\n", NMEM);
    series_print("graceful leave of the leader", &lv);
    series_print("switchover to the other candidate", &so);
    table_note("a window runs from quiescence to quiescence (no member's counters moved for "
        "%d ms) around one change; the leaver's rejoin is not counted; counts are "
        "zkelect_get_stats requests and notifications of each member's group", QUIET_MS);
    if (failures)
        table_note("%d change(s) failed (see the warnings on stderr)", failures);
    if (nover_all) {
        table_note("%d time(s) an uninvolved member went over its target (unsubscribed: any "
            "request; subscribed: more than 2); what it sent and got (paths relative to "
            "the group)%s:", nover_all, nover_all > nover ? ", the first ones" : "");
        for (i = 0; i < nover; i++)
            printf("    %s\n", over[i].line);
    }
    targets(&lv, &so);
    rc = 0;
out:
    trace_tally_stop();
    csv_close(csv, "members.csv");
    zk_close(ctl);
    for (i = NMEM - 1; i >= 0; i--)
        node_close(n[i]);
    series_free(&lv);
    series_free(&so);
    return rc;
}
