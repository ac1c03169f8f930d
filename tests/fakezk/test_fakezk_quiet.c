/*
 * test_fakezk_quiet.c - issue 18's O(1) for uninvolved members on the
 * scripted fake (doc/PROTOCOL.md §2, "Who follows" and "The wake"): a
 * member nobody asked about the leader sends nothing per leader change; a
 * subscriber still sees every change; the multi that elects a quiet member
 * wakes it through its own election znode, and fails if that znode is gone;
 * the leader is read on request; ZKELECT_GROUP_NO_LEADER_EVENTS; the
 * decision's previous_host.
 *
 * Run one test: tests/fakezk/test_fakezk_quiet quiet:uninvolved_leave
 * FAKEZK_VERBOSE=1 prints the library's log and events.
 */
#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "cutest.h"
#include "harness.h"

#define SETTLE_MS 20000

static struct fz_node N[7];

/* Open node ID as N[k], its one group "/g" opened as QUIET says (fz_quiet),
   nominate it and settle: the nodes register one after the other, in the
   order of the calls (the first is the elector). */
static const char *join_host;   /* the host of the next join (NULL: "fakehost") */

static void
join(int k, const char *id, int quiet, bool eligible)
{
    fz_quiet = quiet;
    CU_ASSERT_FATAL(fz_node_open(&N[k], id, "/g", 1) == 0);
    fz_quiet = FZ_FOLLOW;
    N[k].grp[0].host = join_host;
    join_host = NULL;
    N[k].grp[0].ineligible = !eligible;
    fz_nominate(&N[k], 0, 10);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT_FATAL(fz_registered(&N[k], 0));
}

/*
 * The usual cast: n9 the elector (not eligible), n1 the leader (nodeid
 * chooses the lowest id), n2, n4 and n5 the next ones in that order, n7
 * (not eligible, follows), and n8, a quiet member nobody will elect, nor
 * name the standing successor (doc/PROTOCOL.md §4), while n1..n5 are there.
 * QUIET2 is how n2 is opened. Election order: n9 n1 n2 n4 n5 n7 n8: n8's
 * predecessor (whose election znode it watches, for the elector's
 * succession) is n7, never elected, named nor leaving, so no change of
 * leader involves n8.
 */
static void
cast(int quiet2)
{
    join(0, "n9", FZ_FOLLOW, false);
    join(1, "n1", FZ_FOLLOW, true);
    join(2, "n2", quiet2, true);
    join(3, "n4", FZ_FOLLOW, true);
    join(6, "n5", FZ_FOLLOW, true);
    join(5, "n7", FZ_FOLLOW, false);
    join(4, "n8", FZ_QUIET_NOCB, true);
    CU_ASSERT_FATAL(fz_is_ready(&N[1], 0));
    CU_ASSERT_FATAL(fz_is_elector(&N[0], 0));
}

static struct zkelect_stats
stats(struct fz_node *n)
{
    struct zkelect_stats st;

    memset(&st, 0, sizeof(st));
    CU_ASSERT(zkelect_get_stats(n->grp[0].g, &st) == 0);
    return st;
}

/* Node K crashes: its session expires while its library hears nothing (the
   process is gone). crash_end lets it hear of it (it registers again). */
static int64_t
crash(int k)
{
    int64_t sid = fz_sid(&N[k]);

    fakezk_hold(sid, true);
    CU_ASSERT(fakezk_expire(sid) == 0);
    return sid;
}

static void
crash_end(int64_t sid)
{
    fakezk_hold(sid, false);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
}

/* The version of the election znode of ID under /g (-1: none). */
static int
election_version(const char *id)
{
    char prefix[64], path[256];

    snprintf(prefix, sizeof(prefix), "/g/election/%s_", id);
    if (!fakezk_find(prefix, path, sizeof(path)))
        return -1;
    return fakezk_version(path);
}

/* ---- zkelect_get_leader on a quiet group, from a helper thread ------------------ */

struct getl {
    struct fz_node *n;
    struct zkelect_leader l;
    struct zkelect_slot s[2];
    int rc, nslots;
};

static int
getl_fn(void *arg)
{
    struct getl *a = arg;

    a->nslots = zkelect_get_leaders(a->n->grp[0].g, a->s, 2);
    a->rc = zkelect_get_leader(a->n->grp[0].g, &a->l);
    return a->rc;
}

/* N's view of the leader, asked as an application would (it may block on a
   read: the test thread delivers meanwhile). "id:READY:epoch" or "". */
static const char *
leader_of(struct fz_node *n, char *buf, size_t len)
{
    struct getl a;

    memset(&a, 0, sizeof(a));
    a.n = n;
    buf[0] = '\0';
    if (fz_run_settling(getl_fn, &a, SETTLE_MS) == 0)
        snprintf(buf, len, "%s:%s:%llu", a.l.id,
                 a.l.status == ZKELECT_STATUS_READY ? "READY" : "PROGRESS",
                 (unsigned long long)a.l.epoch);
    /* slot 0 of get_leaders says the same */
    CU_ASSERT(a.nslots >= 1);
    if (a.nslots >= 1 && a.rc == 0)
        CU_ASSERT_STRING_EQUAL(a.s[0].id, a.l.id);
    return buf;
}

/* ---- a: an uninvolved quiet member sends nothing per change ---------------------- */

/*
 * Two graceful leaves in a row (n1 hands over to n2, n2 to n4): the quiet
 * n8 sends no request at all, and hears at most the two watches it armed
 * before it went quiet (on `elected` and on `leader`, once), nothing in the
 * second change. (Before issue 18: 5 requests and 4 notifications per
 * change.)
 */
static void
test_uninvolved_leave(void)
{
    struct zkelect_stats s0, s1, s2;

    fz_begin();
    cast(FZ_FOLLOW);
    s0 = stats(&N[4]);
    zkelect_unnominate(N[1].grp[0].g, 0);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT_FATAL(fz_is_ready(&N[2], 0));
    s1 = stats(&N[4]);
    zkelect_unnominate(N[2].grp[0].g, 0);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT_FATAL(fz_is_ready(&N[3], 0));
    s2 = stats(&N[4]);
    CU_ASSERT_EQUAL(s1.requests, s0.requests);
    CU_ASSERT_EQUAL(s2.requests, s1.requests);
    CU_ASSERT(s1.notifications - s0.notifications <= 2);
    CU_ASSERT_EQUAL(s2.notifications, s1.notifications);
    if (s2.requests != s0.requests || s2.notifications - s0.notifications > 2)
        fprintf(stderr, "  n8: %llu requests, %llu notifications over two changes\n",
                (unsigned long long)(s2.requests - s0.requests),
                (unsigned long long)(s2.notifications - s0.notifications));
    fz_end();
}

/*
 * The leader crashes (its session expires): the elector decides n2 and n2
 * takes over; the quiet n8 sends nothing. Then n2 crashes too: n4, and n8
 * still sends nothing.
 */
static void
test_uninvolved_crash(void)
{
    struct zkelect_stats s0, s1, s2;
    int64_t c1, c2;

    fz_begin();
    cast(FZ_FOLLOW);
    s0 = stats(&N[4]);
    c1 = crash(1);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT_FATAL(fz_is_ready(&N[2], 0));
    s1 = stats(&N[4]);
    c2 = crash(2);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT_FATAL(fz_is_ready(&N[3], 0));
    s2 = stats(&N[4]);
    CU_ASSERT_EQUAL(s1.requests, s0.requests);
    CU_ASSERT_EQUAL(s2.requests, s1.requests);
    CU_ASSERT(s1.notifications - s0.notifications <= 2);
    CU_ASSERT_EQUAL(s2.notifications, s1.notifications);
    if (s2.requests != s0.requests || s2.notifications - s0.notifications > 2)
        fprintf(stderr, "  n8: %llu requests, %llu notifications over two crashes\n",
                (unsigned long long)(s2.requests - s0.requests),
                (unsigned long long)(s2.notifications - s0.notifications));
    crash_end(c1);
    crash_end(c2);
    fz_end();
}

/* The order n9 (elector) n1 (READY) n2 n8 (quiet) n5; n8's counters now. */
static struct zkelect_stats
n8_after_n2(void)
{
    fz_begin();
    join(0, "n9", FZ_FOLLOW, false);
    join(1, "n1", FZ_FOLLOW, true);
    join(2, "n2", FZ_FOLLOW, true);
    join(4, "n8", FZ_QUIET_NOCB, true);
    join(6, "n5", FZ_FOLLOW, true);
    CU_ASSERT_FATAL(fz_is_ready(&N[1], 0));
    return stats(&N[4]);
}

/*
 * The wake is heard by the woken node alone. The member right after it in
 * the election order watches its election znode too, for the elector's
 * succession (register.c), but with a child watch: an ephemeral znode has
 * no children, so that watch fires at its deletion and never at a write of
 * its data (doc/PROTOCOL.md §2, "The wake's one neighbour"). Here the quiet
 * n8 registers right after n2; the elector names n2 the standing successor
 * (n2's znode goes to version 2), n1 resigns and its handover wakes n2
 * (version 3). n8, no elector, no old or new leader, no subscriber, sends
 * nothing for the change and hears nothing from n2's znode. (Before, with
 * an exists watch, the wake fired it and n8 armed it again: 1 request and
 * 1 notification more.) n5, registered after n8, is the standing successor
 * once n2 leads: n8 is never named.
 */
static void
test_wake_not_heard_by_next_in_line(void)
{
    struct zkelect_stats s0, s1;

    s0 = n8_after_n2();
    zkelect_unnominate(N[1].grp[0].g, 0);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT_FATAL(fz_is_ready(&N[2], 0));
    CU_ASSERT_EQUAL(election_version("n2"), 3);
    s1 = stats(&N[4]);
    CU_ASSERT_EQUAL(s1.requests - s0.requests, 0);
    /* the one-shot watches left from its first view of `leader` and
       `elected`, let go at this first change; nothing from n2's znode */
    CU_ASSERT_EQUAL(s1.notifications - s0.notifications, 2);
    fz_end();
}

/*
 * ... and the neighbour still hears its predecessor go, at one request. The
 * order is n9 n1 n2 n8 n5; n8's listing at its registration showed n9, n1
 * and n2 below it. n2, n8's predecessor, leaves: n8 watches n1, the next
 * below n2 that its listing showed, without listing again (sequence numbers
 * only grow: nothing below n8 can have appeared since): 1 request, the
 * child watch on n1's znode (before: the listing and an exists, 2). Then
 * n1, the leader, and n9, the elector, crash: n8 hears n1 go, finds n9 gone
 * too and, its listing having shown nothing more below (f8555fa), is the
 * lowest: it becomes the elector without listing again; n5 (nodeid: the
 * lowest id of n5 and n8) leads.
 */
static void
test_next_in_line_hears_the_deletion(void)
{
    struct zkelect_stats s0, s1;
    int64_t c1, c9;

    s0 = n8_after_n2();
    zkelect_unnominate(N[2].grp[0].g, 0);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    s1 = stats(&N[4]);
    CU_ASSERT_EQUAL(s1.requests - s0.requests, 1);
    CU_ASSERT(!fz_is_elector(&N[4], 0));
    c1 = crash(1);
    c9 = crash(0);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT(fz_is_elector(&N[4], 0));
    CU_ASSERT(fz_is_ready(&N[6], 0));
    crash_end(c1);
    crash_end(c9);
    fz_end();
}

/*
 * The member after the elector, when the elector goes, becomes the elector
 * at the deletion's notification: its listing at registration showed
 * nothing below the elector, so it is now the lowest, and the elector's own
 * listing (with the children's watch) is the only listing it sends. Here
 * the elector n9 leaves; n1, the leader, right after it, becomes the
 * elector and sends 9 requests over the change: the listing, the reads of
 * config, switchover, history and n2's member record, the exists that
 * watch the absent config and switchover, its succession's write and the
 * read of `successor`. (Before: 10, the listing that found it the lowest
 * first.)
 */
static void
test_elector_next_lists_once(void)
{
    int64_t sid1;
    int before;

    fz_begin();
    join(0, "n9", FZ_FOLLOW, false);
    join(1, "n1", FZ_FOLLOW, true);
    join(2, "n2", FZ_FOLLOW, true);
    CU_ASSERT_FATAL(fz_is_ready(&N[1], 0));
    sid1 = fz_sid(&N[1]);
    before = fakezk_requests(sid1);
    zkelect_unnominate(N[0].grp[0].g, 0);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT(fz_is_elector(&N[1], 0));
    CU_ASSERT(fz_is_ready(&N[1], 0));
    CU_ASSERT_EQUAL(fakezk_requests(sid1) - before, 9);
    fz_end();
}

/* A foreign znode in /g/election named like a member's, below every
   member's (suffix 0), with OWNER as its ephemeralOwner (0: persistent;
   INT64_MIN: ZooKeeper's mark of a container); the group's layout made
   first. Returns its path. */
static const char *
foreign_below_all(int64_t owner)
{
    static const char foreign[] = "/g/election/x_0123456789abcdef0123456789abcdef_0000000000";

    CU_ASSERT_FATAL(fakezk_mkdirs("/g/election") == 0 && fakezk_mkdirs("/g/nodes") == 0);
    CU_ASSERT_FATAL(fakezk_create(foreign, "x", 1, owner) == 0);
    return foreign;
}

/*
 * A foreign persistent znode in election/, below every member, whose ACL
 * denies READ: the getChildren of the predecessor's watch answers ZNOAUTH
 * (ZooKeeper 3.8 checks READ for it, not for an exists). n1, the first
 * member, watches it with an exists instead, sees it is not ephemeral,
 * ignores it (-malformed) and, the lowest member, becomes the elector and
 * leads. (Without the exists, n1 had no watch and no request after the
 * ZNOAUTH: no elector, nobody leads.)
 */
static void
test_unreadable_foreign_predecessor(void)
{
    fz_begin();
    fakezk_noread(foreign_below_all(0));
    join(1, "n1", FZ_FOLLOW, true);
    CU_ASSERT(fz_is_elector(&N[1], 0));
    CU_ASSERT(fz_is_ready(&N[1], 0));
    CU_ASSERT(fz_count(&N[1], 0, ZKELECT_EV_MALFORMED) >= 1);
    fz_end();
}

/*
 * A group's znodes made in part by a foreign client: election/ is there,
 * nodes/ is not. The first member's registration multi (base, nodes/,
 * election/, its own two) fails on the base, then (nodes/, election/, its
 * own) on election/, then (nodes/, its own) succeeds: 3 multis, and the
 * member leads. (Before, a ZNODEEXISTS left out that parent and those
 * before it, nodes/ too: the registration failed with ZNONODE, began
 * again with every parent, and looped, 3 requests a round, for ever.)
 */
static void
test_partial_layout(void)
{
    int64_t sid;
    int before;

    fz_begin();
    CU_ASSERT_FATAL(fakezk_mkdirs("/g/election") == 0);
    fz_quiet = FZ_FOLLOW;
    CU_ASSERT_FATAL(fz_node_open(&N[1], "n1", "/g", 1) == 0);
    sid = fz_sid(&N[1]);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    before = fakezk_requests(sid);
    fz_nominate(&N[1], 0, 10);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT(fz_registered(&N[1], 0));
    CU_ASSERT(fz_is_ready(&N[1], 0));
    CU_ASSERT(fakezk_exists("/g/nodes/n1"));
    CU_ASSERT(fakezk_requests(sid) - before < 20);
    fz_end();
}

/* ---- b: a subscriber sees every change -------------------------------------------- */

struct seen {
    char log[2048];
    int n;
};

static void
sub_cb(void *data, const struct zkelect_event *ev)
{
    struct seen *s = data;
    size_t o = strlen(s->log);

    /* library thread; read by the test thread after a settle (its flush) */
    if (ev->type != ZKELECT_EV_LEADER_CHANGED)
        return;
    s->n++;
    if (o + 80 < sizeof(s->log))
        snprintf(s->log + o, sizeof(s->log) - o, "%s%s:%s:%llu", o ? " " : "",
                 ev->node ? ev->node : "-",
                 ev->status == ZKELECT_STATUS_READY ? "READY" : "PROGRESS",
                 (unsigned long long)ev->epoch);
}

/*
 * n8 is quiet through the first change (n1 hands over to n2), then
 * subscribes to +leader-changed: it reads what it let go (n2, READY) and
 * from then on sees every change: n2 crashes, n4 takes over. Its view
 * (zkelect_get_leader, without a read: it follows) is n4, READY, epoch 3.
 */
static void
test_subscriber(void)
{
    struct seen s;
    char buf[128];
    int64_t c2;
    int id;

    memset(&s, 0, sizeof(s));
    fz_begin();
    cast(FZ_FOLLOW);
    zkelect_unnominate(N[1].grp[0].g, 0);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT_FATAL(fz_is_ready(&N[2], 0));
    id = zkelect_subscribe(N[4].grp[0].g, ZKELECT_MASK_LEADER, sub_cb, &s);
    CU_ASSERT_FATAL(id > 0);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT(strstr(s.log, "n2:READY:2") != NULL);
    c2 = crash(2);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT_FATAL(fz_is_ready(&N[3], 0));
    CU_ASSERT(strstr(s.log, "n4:READY:3") != NULL);
    /* the last thing it heard is the leader now */
    CU_ASSERT(s.n >= 2);
    CU_ASSERT(strlen(s.log) >= strlen("n4:READY:3") &&
              strcmp(s.log + strlen(s.log) - strlen("n4:READY:3"), "n4:READY:3") == 0);
    CU_ASSERT_STRING_EQUAL(leader_of(&N[4], buf, sizeof(buf)), "n4:READY:3");
    if (strstr(s.log, "n4:READY:3") == NULL)
        fprintf(stderr, "  the subscriber saw: %s\n", s.log);
    CU_ASSERT(zkelect_unsubscribe(N[4].grp[0].g, id) == 0);
    crash_end(c2);
    fz_end();
}

/*
 * A subscriber that follows the leader znode alone is elected: n1 hands
 * over to n2, n2 to n4, n4 to n5, n5 to n8 (n7 may not lead). The last handover's
 * multi wakes n8, which reads `elected`, is in play from then on, takes
 * over and is READY; it heard every leader. (A wake that read `elected`
 * only for a group that followed nothing left n8 unaware: no leader.)
 */
static void
test_subscriber_elected(void)
{
    struct seen s;
    int id;

    memset(&s, 0, sizeof(s));
    fz_begin();
    fz_takeover_noop = true;
    cast(FZ_FOLLOW);
    id = zkelect_subscribe(N[4].grp[0].g, ZKELECT_MASK_LEADER, sub_cb, &s);
    CU_ASSERT_FATAL(id > 0);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    zkelect_unnominate(N[1].grp[0].g, 0);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT_FATAL(fz_is_ready(&N[2], 0));
    zkelect_unnominate(N[2].grp[0].g, 0);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT_FATAL(fz_is_ready(&N[3], 0));
    zkelect_unnominate(N[3].grp[0].g, 0);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT_FATAL(fz_is_ready(&N[6], 0));
    zkelect_unnominate(N[6].grp[0].g, 0);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT(fz_is_ready(&N[4], 0));
    CU_ASSERT(strstr(s.log, "n2:READY:2") != NULL);
    CU_ASSERT(strstr(s.log, "n4:READY:3") != NULL);
    CU_ASSERT(strstr(s.log, "n5:READY:4") != NULL);
    CU_ASSERT(strstr(s.log, "n8:READY:5") != NULL);
    if (strstr(s.log, "n8:READY:5") == NULL)
        fprintf(stderr, "  the subscriber saw: %s\n", s.log);
    CU_ASSERT(zkelect_unsubscribe(N[4].grp[0].g, id) == 0);
    fz_end();
}

/* The decision as N answers it from an application thread (it may read
   `elected` first: the test thread delivers meanwhile). */
static void
elected_of(struct fz_node *n, struct getl *a)
{
    memset(a, 0, sizeof(*a));
    a->n = n;
    CU_ASSERT(fz_run_settling(getl_fn, a, SETTLE_MS) == 0);
}

/* On each READY leader: "leader/elected/previous" as zkelect_get_leader()
   answers from the callback (the library thread: no read, the view). */
static zkelect_group_t *view_g;

static void
sub_cb_view(void *data, const struct zkelect_event *ev)
{
    struct seen *s = data;
    struct zkelect_leader l;
    size_t o = strlen(s->log);

    if (ev->type != ZKELECT_EV_LEADER_CHANGED || ev->status != ZKELECT_STATUS_READY)
        return;
    if (zkelect_get_leader(view_g, &l) != 0)
        return;
    if (o + 80 < sizeof(s->log))
        snprintf(s->log + o, sizeof(s->log) - o, "%s%s/%s/%s:%llu", o ? " " : "", l.id,
                 l.elected, l.previous, (unsigned long long)l.elected_epoch);
}

/*
 * A subscriber that follows for nothing else (n8: no on_event, one slot)
 * watches the leader znode alone, not `elected`: with takeovers without
 * work it pays 2 requests per change, the exists that re-arms the watch on
 * the deletion and the read on the creation (READY already). Both a
 * graceful leave (n1 hands over to n2) and a crash (n2; n4 takes over). It
 * hears every leader, READY. From an application thread its
 * zkelect_get_leader() still names the decision: it reads `elected` first
 * (reason and all). (Before: 3 requests per change, `elected` re-read.)
 */
static void
test_subscriber_two_requests(void)
{
    struct zkelect_stats s0, s1, s2;
    struct getl a;
    struct seen s, v;
    int64_t c2;
    int id, idv;

    memset(&s, 0, sizeof(s));
    memset(&v, 0, sizeof(v));
    fz_begin();
    fz_takeover_noop = true;
    cast(FZ_FOLLOW);
    id = zkelect_subscribe(N[4].grp[0].g, ZKELECT_MASK_LEADER, sub_cb, &s);
    CU_ASSERT_FATAL(id > 0);
    view_g = N[4].grp[0].g;
    idv = zkelect_subscribe(N[4].grp[0].g, ZKELECT_MASK_LEADER, sub_cb_view, &v);
    CU_ASSERT_FATAL(idv > 0);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    s0 = stats(&N[4]);
    zkelect_unnominate(N[1].grp[0].g, 0);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT_FATAL(fz_is_ready(&N[2], 0));
    s1 = stats(&N[4]);
    c2 = crash(2);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT_FATAL(fz_is_ready(&N[3], 0));
    s2 = stats(&N[4]);
    CU_ASSERT(s1.requests - s0.requests <= 2);
    CU_ASSERT(s2.requests - s1.requests <= 2);
    if (s1.requests - s0.requests > 2 || s2.requests - s1.requests > 2)
        fprintf(stderr, "  the subscriber: %llu requests for the leave, %llu for the crash\n",
                (unsigned long long)(s1.requests - s0.requests),
                (unsigned long long)(s2.requests - s1.requests));
    CU_ASSERT(strstr(s.log, "n2:READY:2") != NULL);
    CU_ASSERT(strstr(s.log, "n4:READY:3") != NULL);
    elected_of(&N[4], &a);
    CU_ASSERT_EQUAL(a.rc, 0);
    CU_ASSERT_STRING_EQUAL(a.l.id, "n4");
    CU_ASSERT_STRING_EQUAL(a.l.elected, "n4");
    CU_ASSERT_EQUAL(a.l.elected_epoch, 3);
    CU_ASSERT_STRING_EQUAL(a.l.previous, "n2");
    CU_ASSERT(a.l.reason[0] != '\0');
    /* from the callback: the decision as the leader znode tells it */
    CU_ASSERT(strstr(v.log, "n2/n2/n1:2") != NULL);
    CU_ASSERT(strstr(v.log, "n4/n4/n2:3") != NULL);
    if (strstr(v.log, "n4/n4/n2:3") == NULL)
        fprintf(stderr, "  from the callback: %s\n", v.log);
    CU_ASSERT(zkelect_unsubscribe(N[4].grp[0].g, idv) == 0);
    CU_ASSERT(zkelect_unsubscribe(N[4].grp[0].g, id) == 0);
    crash_end(c2);
    fz_end();
}

/* ---- c: the wake --------------------------------------------------------------------- */

/*
 * n2 is quiet and the policy elects it (the leader crashed: the elector
 * decides): the decision's multi touches n2's election znode, the one thing
 * n2 watches, and n2 takes over and is READY. The uninvolved n8 sends
 * nothing. n2's znode is at version 2 before: the elector named n2 the
 * standing successor (two writes), and 4 after (an elector wakes with two
 * writes). (Before issue 18 nothing touched the election znode: its version
 * stayed 0.)
 */
static void
test_wake_by_decision(void)
{
    struct zkelect_stats s0;
    int64_t c1;

    fz_begin();
    cast(FZ_QUIET_NOCB);
    CU_ASSERT_EQUAL(election_version("n2"), 2);
    s0 = stats(&N[4]);
    c1 = crash(1);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT(fz_is_ready(&N[2], 0));
    CU_ASSERT_EQUAL(fz_count(&N[2], 0, ZKELECT_EV_TAKEOVER), 1);
    CU_ASSERT_EQUAL(fz_count(&N[2], 0, ZKELECT_EV_READY), 1);
    CU_ASSERT(fz_znode_has("/g/elected", "\"leader\":\"n2\""));
    CU_ASSERT(!fz_znode_has("/g/elected", "handover:"));
    CU_ASSERT_EQUAL(election_version("n2"), 4); /* an elector wakes with two writes */
    CU_ASSERT_EQUAL(stats(&N[4]).requests, s0.requests);
    crash_end(c1);
    fz_end();
}

/* The leader n1 crashes: the elector elects n2 and touches its election
   znode, and n2 takes over at once (the watchdog, far, never fires): n2
   watches its znode for the wake. */
static void
n2_woken_after_crash(void)
{
    int64_t c1 = crash(1);

    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT(fz_znode_has("/g/elected", "\"leader\":\"n2\""));
    CU_ASSERT(fz_is_ready(&N[2], 0));
    CU_ASSERT_EQUAL(fz_count(&N[0], 0, ZKELECT_EV_WATCHDOG), 0);
    crash_end(c1);
}

/*
 * The wake's watch survives a re-arm cut off by a disconnect: a foreign
 * client touches quiet n2's election znode (as a wake would), and the read
 * that arms its watch again is lost with the connection, not applied. After
 * the reconnect n2 must watch its znode again: n1 crashes, the elector
 * elects n2 and touches its znode, and n2 takes over at once (the watchdog
 * is far: without the watch n2 would never hear it was elected).
 */
static void
test_wake_rearm_lost(void)
{
    char path[256];
    int64_t sid;

    fz_begin();
    fz_watchdog_ms = 60000;
    cast(FZ_QUIET_NOCB);
    sid = fz_sid(&N[2]);
    CU_ASSERT_FATAL(fakezk_find("/g/election/n2_", path, sizeof(path)));
    fakezk_fail_match(sid, "get", "/g/election/n2_", 1, false, FZ_BACK);
    CU_ASSERT(fakezk_set(path, "n2", 2) == 0);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT_FATAL(fakezk_fault_fired());
    fakezk_reconnect(sid, FZ_BACK);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    n2_woken_after_crash();
    fz_end();
}

/*
 * The wake's watch is set by the registration's read of the election
 * znode's creation zxid. That read is cut off by a disconnect (not
 * applied): the read sent again after the reconnect must set the watch too.
 * Then n1 crashes, the elector elects quiet n2 and touches its znode, and
 * n2 takes over at once (the watchdog is far). Found by the model helper:
 * the resync sent that read without a watch, and n2 never heard it.
 */
static void
test_wake_stat_lost(void)
{
    int64_t sid;

    fz_begin();
    fz_watchdog_ms = 60000;
    join(0, "n9", FZ_FOLLOW, false);
    join(1, "n1", FZ_FOLLOW, true);
    fz_quiet = FZ_QUIET_NOCB;
    CU_ASSERT_FATAL(fz_node_open(&N[2], "n2", "/g", 1) == 0);
    fz_quiet = FZ_FOLLOW;
    sid = fz_sid(&N[2]);
    fakezk_fail_match(sid, "get", "/g/election/n2_", 1, false, FZ_BACK);
    fz_nominate(&N[2], 0, 10);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT_FATAL(fakezk_fault_fired());
    fakezk_reconnect(sid, FZ_BACK);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT_FATAL(fz_registered(&N[2], 0));
    CU_ASSERT_FATAL(fz_is_ready(&N[1], 0));
    n2_woken_after_crash();
    fz_end();
}

/*
 * n2 is quiet (on_event with ZKELECT_GROUP_NO_LEADER_EVENTS) and the leader
 * resigns: its own multi hands over to n2, the standing successor, and
 * touches n2's election znode; n2 takes over, and the elector writes no
 * decision of its own. n2's znode: version 2 once n2 is named the standing
 * successor, 3 after the handover's wake (one write).
 */
static void
test_wake_by_handover(void)
{
    fz_begin();
    cast(FZ_QUIET_NOEVENTS);
    CU_ASSERT(fz_znode_has("/g/successor", "\"successor\":\"n2\""));
    CU_ASSERT_EQUAL(election_version("n2"), 2);
    zkelect_unnominate(N[1].grp[0].g, 0);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT(fz_is_ready(&N[2], 0));
    CU_ASSERT_EQUAL(fz_count(&N[2], 0, ZKELECT_EV_TAKEOVER), 1);
    CU_ASSERT_EQUAL(fz_count(&N[2], 0, ZKELECT_EV_READY), 1);
    CU_ASSERT(fz_znode_has("/g/elected", "handover: n1 resigned"));
    CU_ASSERT_EQUAL(fz_count(&N[0], 0, ZKELECT_EV_DECISION), 1);
    CU_ASSERT_EQUAL(election_version("n2"), 3);
    fz_end();
}

/*
 * The successor subscribes to leader changes alone (n4: quiet, one slot):
 * it watches the leader znode, not `elected`, so its view of the decision
 * is as old as its last read. n1 hands over to n2 (n4 lets that decision
 * go), then n2 to n4: woken right after the leader znode's deletion, n4
 * reads the decision before it creates, and tries no fast handover's
 * create, which would check `elected` one above the decision it read two
 * changes ago: refused, a write for nothing. n4 takes over once, with at
 * most 9 requests: the leader znode's exists, the re-arm, `elected`, the
 * listing after its predecessor went, the create, the new predecessor's
 * exists, the read of its own leader znode, and `successor` (an exists,
 * then a read, as a leader does). (With the fast create tried from a view
 * it does not keep: 10.)
 */
static void
test_wake_subscriber_no_fast(void)
{
    struct zkelect_stats s0, s1;
    struct seen s;
    int id;

    memset(&s, 0, sizeof(s));
    fz_begin();
    fz_takeover_noop = true;
    join(0, "n9", FZ_FOLLOW, false);
    join(1, "n1", FZ_FOLLOW, true);
    join(2, "n2", FZ_FOLLOW, true);
    join(3, "n4", FZ_QUIET_NOCB, true);
    CU_ASSERT_FATAL(fz_is_ready(&N[1], 0));
    id = zkelect_subscribe(N[3].grp[0].g, ZKELECT_MASK_LEADER, sub_cb, &s);
    CU_ASSERT_FATAL(id > 0);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    zkelect_unnominate(N[1].grp[0].g, 0);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT_FATAL(fz_is_ready(&N[2], 0));
    CU_ASSERT(fz_znode_has("/g/successor", "\"successor\":\"n4\""));
    s0 = stats(&N[3]);
    zkelect_unnominate(N[2].grp[0].g, 0);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT(fz_is_ready(&N[3], 0));
    CU_ASSERT_EQUAL(fz_count(&N[3], 0, ZKELECT_EV_TAKEOVER), 1);
    CU_ASSERT(fz_znode_has("/g/elected", "handover: n2 resigned"));
    s1 = stats(&N[3]);
    CU_ASSERT(s1.requests - s0.requests <= 9);
    if (s1.requests - s0.requests > 9)
        fprintf(stderr, "  n4: %llu requests\n", (unsigned long long)(s1.requests - s0.requests));
    fz_end();
}

/*
 * The last eligible members leave one after the other until the quiet n8
 * is the only one: it is named the standing successor once n5 leads (two
 * writes of its znode), woken by n5's handover (one more), and leads (its
 * predecessor went too).
 */
static void
test_wake_last_one(void)
{
    fz_begin();
    cast(FZ_FOLLOW);
    zkelect_unnominate(N[1].grp[0].g, 0);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    zkelect_unnominate(N[2].grp[0].g, 0);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT_FATAL(fz_is_ready(&N[3], 0));
    CU_ASSERT_EQUAL(fz_count(&N[4], 0, ZKELECT_EV_TAKEOVER), 0);
    zkelect_unnominate(N[3].grp[0].g, 0);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT_FATAL(fz_is_ready(&N[6], 0));
    CU_ASSERT_EQUAL(election_version("n8"), 2);
    zkelect_unnominate(N[6].grp[0].g, 0);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT(fz_is_ready(&N[4], 0));
    CU_ASSERT_EQUAL(fz_count(&N[4], 0, ZKELECT_EV_READY), 1);
    CU_ASSERT_EQUAL(election_version("n8"), 3);
    fz_end();
}

/* ---- d: no decision for a registration that is gone ----------------------------- */

/*
 * The leader crashes; the elector's decision for n2 is on its way when n2
 * crashes too (its session expires before the server applies the multi).
 * The multi's wake of n2 finds no election znode and the whole multi fails:
 * `elected` never names n2. The elector lists again and decides n4, at
 * epoch 2, in its second decision. (Before issue 18 the multi elected n2,
 * gone, at epoch 2, and a third decision n4 at epoch 3.)
 */
static void
test_decision_for_gone_fails(void)
{
    char buf[300];
    int64_t e, c1, c2;

    fz_begin();
    cast(FZ_QUIET_NOCB);
    e = fz_sid(&N[0]);
    CU_ASSERT_EQUAL(fz_count(&N[0], 0, ZKELECT_EV_DECISION), 1);
    fakezk_defer_apply(e, true);       /* applied when its reply is delivered */
    c1 = crash(1);
    CU_ASSERT_FATAL(fz_deliver_until(e, "reply multi /g/elected"));
    c2 = crash(2);                     /* before the server applies the decision */
    CU_ASSERT(!fz_znode_has("/g/elected", "\"leader\":\"n2\""));
    fakezk_defer_apply(e, false);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT(fz_is_ready(&N[3], 0));
    CU_ASSERT(fz_znode_has("/g/elected", "\"leader\":\"n4\""));
    CU_ASSERT(fz_znode_has("/g/elected", "\"epoch\":2,"));
    CU_ASSERT(!fz_znode_has("/g/history", "\"n2\""));
    CU_ASSERT_EQUAL(fz_count(&N[0], 0, ZKELECT_EV_DECISION), 2);
    if (!fz_znode_has("/g/elected", "\"epoch\":2,"))
        fz_print_state("decision for a gone node", N, 6);
    (void)buf;
    crash_end(c1);
    crash_end(c2);
    fz_end();
}

/* ---- e: the leader on request ----------------------------------------------------- */

/*
 * The quiet n8 let two changes go; zkelect_get_leader and
 * zkelect_get_leaders, called by the application, read the leader now: n4,
 * READY, epoch 3. A read on request leaves it quiet: n2 registers again
 * (after n8) and n4 crashes; the elector elects n2, and n8 sends nothing
 * for it, and reads n2, READY, epoch 4, when asked.
 */
static void
test_leader_on_request(void)
{
    char buf[128];
    struct zkelect_stats s0;
    int64_t c4;

    fz_begin();
    cast(FZ_FOLLOW);
    zkelect_unnominate(N[1].grp[0].g, 0);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    zkelect_unnominate(N[2].grp[0].g, 0);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT_FATAL(fz_is_ready(&N[3], 0));
    CU_ASSERT_STRING_EQUAL(leader_of(&N[4], buf, sizeof(buf)), "n4:READY:3");
    /* n2 comes back (registers after n8: n8 uninvolved still) */
    fz_nominate(&N[2], 0, 10);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    s0 = stats(&N[4]);
    c4 = crash(3);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT_FATAL(fz_is_ready(&N[2], 0));
    CU_ASSERT_EQUAL(stats(&N[4]).requests, s0.requests);
    CU_ASSERT_STRING_EQUAL(leader_of(&N[4], buf, sizeof(buf)), "n2:READY:4");
    crash_end(c4);
    fz_end();
}

struct waitl {
    zkelect_group_t *g;
    int rc;
    bool done;
    pthread_mutex_t mu;
};

static void *
wait_main(void *arg)
{
    struct waitl *w = arg;
    int rc = zkelect_wait_leader(w->g, ZKELECT_STATUS_READY, 0, 15000);

    pthread_mutex_lock(&w->mu);
    w->rc = rc;
    w->done = true;
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

static bool
wait_done(void *arg)
{
    struct waitl *w = arg;
    bool d;

    pthread_mutex_lock(&w->mu);
    d = w->done;
    pthread_mutex_unlock(&w->mu);
    return d;
}

struct sent {
    int64_t sid;
    int before;
};

static bool
sent_more(void *arg)
{
    struct sent *s = arg;
    return fakezk_requests(s->sid) > s->before;
}

/*
 * A quiet member (n8, not eligible) waits for a READY leader while there is
 * none (the elector is not eligible either; n7 led and left, so a decision
 * naming nobody is in force: before any decision every member follows): the
 * wait reads the leader once, then follows; n1 joins later and leads; the
 * wait returns 0, before its timeout. (The wait is seen to have begun by the
 * read it sends.)
 */
static void
test_wait_leader_quiet(void)
{
    struct waitl w = {NULL, -1, false, PTHREAD_MUTEX_INITIALIZER};
    struct sent s;
    char buf[128];
    pthread_t t;

    fz_begin();
    join(0, "n9", FZ_FOLLOW, false);
    join(4, "n8", FZ_QUIET_NOCB, false);
    join(5, "n7", FZ_FOLLOW, true);
    CU_ASSERT_FATAL(fz_is_ready(&N[5], 0));
    zkelect_unnominate(N[5].grp[0].g, 0);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT(!fakezk_exists("/g/leader"));
    CU_ASSERT(fz_znode_has("/g/elected", "\"wake\":true"));
    w.g = N[4].grp[0].g;
    s.sid = fz_sid(&N[4]);
    s.before = fakezk_requests(s.sid);
    CU_ASSERT_FATAL(pthread_create(&t, NULL, wait_main, &w) == 0);
    CU_ASSERT(fz_settle_until(sent_more, &s, 2000) == 0);
    CU_ASSERT(!wait_done(&w));
    join(1, "n1", FZ_FOLLOW, true);
    CU_ASSERT(fz_settle_until(wait_done, &w, SETTLE_MS) == 0);
    pthread_join(t, NULL);
    CU_ASSERT_EQUAL(w.rc, 0);
    CU_ASSERT(fz_is_ready(&N[1], 0));
    CU_ASSERT_STRING_EQUAL(leader_of(&N[4], buf, sizeof(buf)), "n1:READY:3");
    fz_end();
}

/*
 * A member of a release before the wake (its record has no "wake": n0,
 * written here by hand, not eligible) is in the group: the elector's
 * decisions say no "wake", so nobody may follow nothing (that member could
 * become the elector and would wake nobody): the otherwise quiet n8 follows
 * and pays for n1's leave. Once n0 is gone, the next decision the elector
 * writes (n2 crashes) says "wake" again. (Before the gate n8 stayed quiet:
 * 0 requests, and no decision said "wake".)
 */
static void
test_release_before_wake(void)
{
    struct zkelect_stats s0, s1;
    const char rec[] = "{\"v\":1,\"id\":\"n0\",\"site\":\"\",\"priority\":0,"
                       "\"eligible\":false,\"healthy\":true}";
    const char *enode = "/g/election/n0_0123456789abcdef0123456789abcdef_0000000090";
    int64_t c2;

    fz_begin();
    join(0, "n9", FZ_FOLLOW, false);
    CU_ASSERT_FATAL(fakezk_create("/g/nodes/n0", rec, (int)strlen(rec), 0) == 0);
    CU_ASSERT_FATAL(fakezk_create(enode, "n0", 2, 0) == 0);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    join(1, "n1", FZ_FOLLOW, true);
    join(2, "n2", FZ_FOLLOW, true);
    join(3, "n4", FZ_FOLLOW, true);
    join(4, "n8", FZ_QUIET_NOCB, false);
    CU_ASSERT_FATAL(fz_is_ready(&N[1], 0));
    CU_ASSERT(!fz_znode_has("/g/elected", "\"wake\""));
    s0 = stats(&N[4]);
    zkelect_unnominate(N[1].grp[0].g, 0);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT_FATAL(fz_is_ready(&N[2], 0));
    s1 = stats(&N[4]);
    CU_ASSERT(s1.requests > s0.requests);       /* it follows */
    CU_ASSERT(fakezk_delete(enode) == 0);
    CU_ASSERT(fakezk_delete("/g/nodes/n0") == 0);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    c2 = crash(2);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT_FATAL(fz_is_ready(&N[3], 0));
    CU_ASSERT(fz_znode_has("/g/elected", "\"wake\":true"));
    crash_end(c2);
    fz_end();
}

/* ---- f: ZKELECT_GROUP_NO_LEADER_EVENTS -------------------------------------------- */

/*
 * Every node's on_event has the flag: the elector (it follows), the leaders
 * (in play) and the uninvolved n8 see every event but +leader-changed
 * (+registered, +decision, +takeover, +ready, +elector...), across a
 * handover and a crash.
 */
static void
test_no_leader_events(void)
{
    const char *ids[] = {"n9", "n1", "n2", "n4", "n8"};
    int64_t c2;
    int k;

    fz_begin();
    for (k = 0; k < 5; k++)
        join(k, ids[k], FZ_QUIET_NOEVENTS, k != 0);
    CU_ASSERT_FATAL(fz_is_ready(&N[1], 0));
    zkelect_unnominate(N[1].grp[0].g, 0);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT_FATAL(fz_is_ready(&N[2], 0));
    c2 = crash(2);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT_FATAL(fz_is_ready(&N[3], 0));
    for (k = 0; k < 5; k++) {
        CU_ASSERT(fz_count(&N[k], 0, ZKELECT_EV_REGISTERED) >= 1);
        if (fz_count(&N[k], 0, ZKELECT_EV_LEADER_CHANGED) != 0)
            fprintf(stderr, "  %s: %s\n", N[k].id, N[k].grp[0].log);
        CU_ASSERT_EQUAL(fz_count(&N[k], 0, ZKELECT_EV_LEADER_CHANGED), 0);
    }
    CU_ASSERT(fz_count(&N[0], 0, ZKELECT_EV_ELECTOR) == 1);
    CU_ASSERT(fz_count(&N[0], 0, ZKELECT_EV_DECISION) >= 2);
    CU_ASSERT_EQUAL(fz_count(&N[1], 0, ZKELECT_EV_READY), 1);
    CU_ASSERT_EQUAL(fz_count(&N[2], 0, ZKELECT_EV_READY), 1);
    CU_ASSERT_EQUAL(fz_count(&N[3], 0, ZKELECT_EV_TAKEOVER), 1);
    CU_ASSERT_EQUAL(fz_count(&N[3], 0, ZKELECT_EV_READY), 1);
    crash_end(c2);
    fz_end();
}

/* ---- g: the fencing target of a quiet member ------------------------------------ */

/*
 * n2 is quiet while n1 leads (it never read n1's record): n1 crashes, the
 * elector elects n2, and n2's takeover callback asks for the host of the
 * leader before it (zkelect_get_node_host, from the view): "host-n1", from
 * the decision's previous_host. The decision says so in `elected`.
 */
static void
test_previous_host(void)
{
    int64_t c1;

    fz_begin();
    join(0, "n9", FZ_FOLLOW, false);
    CU_ASSERT_FATAL(fz_node_open(&N[1], "n1", "/g", 1) == 0);
    N[1].grp[0].host = "host-n1";
    fz_nominate(&N[1], 0, 10);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT_FATAL(fz_is_ready(&N[1], 0));
    fz_quiet = FZ_QUIET_NOCB;
    CU_ASSERT_FATAL(fz_node_open(&N[2], "n2", "/g", 1) == 0);
    fz_quiet = FZ_FOLLOW;
    N[2].grp[0].host = "host-n2";
    N[2].grp[0].takeover_host_of = "n1";
    N[2].grp[0].takeover_host_rc = 1;
    fz_nominate(&N[2], 0, 10);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    c1 = crash(1);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT_FATAL(fz_is_ready(&N[2], 0));
    CU_ASSERT(fz_znode_has("/g/elected", "\"previous_host\":\"host-n1\""));
    CU_ASSERT(fz_znode_has("/g/elected", "\"leader_host\":\"host-n2\""));
    CU_ASSERT_EQUAL(N[2].grp[0].takeover_host_rc, 0);
    CU_ASSERT_STRING_EQUAL(N[2].grp[0].takeover_host, "host-n1");
    crash_end(c1);
    fz_end();
}

/*
 * The same when n1 came to lead by a direct handover (its decision, written
 * by the leaver n0, has no leader_host): n1 crashes, and the quiet n2 still
 * gets n1's host in its takeover.
 */
static void
test_previous_host_after_handover(void)
{
    int64_t c1;

    fz_begin();
    join(0, "n9", FZ_FOLLOW, false);
    join(6, "n0", FZ_FOLLOW, true);
    fz_quiet = FZ_FOLLOW;
    CU_ASSERT_FATAL(fz_node_open(&N[1], "n1", "/g", 1) == 0);
    N[1].grp[0].host = "host-n1";
    fz_nominate(&N[1], 0, 10);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    fz_quiet = FZ_QUIET_NOCB;
    CU_ASSERT_FATAL(fz_node_open(&N[2], "n2", "/g", 1) == 0);
    fz_quiet = FZ_FOLLOW;
    N[2].grp[0].takeover_host_of = "n1";
    N[2].grp[0].takeover_host_rc = 1;
    fz_nominate(&N[2], 0, 10);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT_FATAL(fz_is_ready(&N[6], 0));
    zkelect_unnominate(N[6].grp[0].g, 0);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT_FATAL(fz_is_ready(&N[1], 0));
    CU_ASSERT(fz_znode_has("/g/elected", "handover: n0 resigned"));
    c1 = crash(1);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT_FATAL(fz_is_ready(&N[2], 0));
    CU_ASSERT(fz_znode_has("/g/elected", "\"previous_host\":\"host-n1\""));
    CU_ASSERT_EQUAL(N[2].grp[0].takeover_host_rc, 0);
    CU_ASSERT_STRING_EQUAL(N[2].grp[0].takeover_host, "host-n1");
    crash_end(c1);
    fz_end();
}

/*
 * The fencing target after a handover and a crash: n0 leads and is the
 * elector, n1 is next in line for both, n2 is quiet. n0 hands over to n1:
 * the handover's decision takes n1's host from the succession record
 * (successor_host), and n1 becomes the elector too. n1 crashes: n2 is the
 * elector now and elects itself; n1's record went with its session, so the
 * host comes from the decision in force (leader_host -> previous_host):
 * n2's takeover names "host-n1". (Found by this test: the handover's
 * decision had no leader_host at first.)
 */
static void
test_previous_host_after_handover_crash(void)
{
    int64_t c1;

    fz_begin();
    CU_ASSERT_FATAL(fz_node_open(&N[0], "n0", "/g", 1) == 0);
    N[0].grp[0].host = "host-n0";
    fz_nominate(&N[0], 0, 10);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT_FATAL(fz_node_open(&N[1], "n1", "/g", 1) == 0);
    N[1].grp[0].host = "host-n1";
    fz_nominate(&N[1], 0, 10);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    fz_quiet = FZ_QUIET_NOCB;
    CU_ASSERT_FATAL(fz_node_open(&N[2], "n2", "/g", 1) == 0);
    fz_quiet = FZ_FOLLOW;
    N[2].grp[0].host = "host-n2";
    N[2].grp[0].takeover_host_of = "n1";
    N[2].grp[0].takeover_host_rc = 1;
    fz_nominate(&N[2], 0, 10);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT_FATAL(fz_is_ready(&N[0], 0));
    CU_ASSERT_FATAL(fz_is_elector(&N[0], 0));
    zkelect_unnominate(N[0].grp[0].g, 0);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT_FATAL(fz_is_ready(&N[1], 0));
    CU_ASSERT_FATAL(fz_is_elector(&N[1], 0));
    c1 = crash(1);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT_FATAL(fz_is_ready(&N[2], 0));
    CU_ASSERT(fz_znode_has("/g/elected", "\"previous\":\"n1\""));
    if (!fz_znode_has("/g/elected", "\"previous_host\":\"host-n1\""))
        fz_print_state("previous_host after the crash of a leader and elector", N, 3);
    CU_ASSERT(fz_znode_has("/g/elected", "\"previous_host\":\"host-n1\""));
    CU_ASSERT_EQUAL(N[2].grp[0].takeover_host_rc, 0);
    CU_ASSERT_STRING_EQUAL(N[2].grp[0].takeover_host, "host-n1");
    crash_end(c1);
    fz_end();
}

/* ---- more: an elector that was quiet, unsubscribing, slots ----------------------- */

/*
 * n8, quiet, is next in line for the elector (it registered right after
 * n9). n1 hands over to n2 while n8 lets the change go; then n9, the
 * elector, leaves: n8 is the elector and takes the decision in force from
 * `elected` as it is now (not its stale view). n2 then crashes: n8 decides
 * n4 at epoch 3 (the next after the handover's 2).
 */
static void
test_quiet_becomes_elector(void)
{
    int64_t c2;

    fz_begin();
    join(0, "n9", FZ_FOLLOW, false);
    join(4, "n8", FZ_QUIET_NOCB, false);
    join(1, "n1", FZ_FOLLOW, true);
    join(2, "n2", FZ_FOLLOW, true);
    join(3, "n4", FZ_FOLLOW, true);
    CU_ASSERT_FATAL(fz_is_ready(&N[1], 0));
    zkelect_unnominate(N[1].grp[0].g, 0);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT_FATAL(fz_is_ready(&N[2], 0));
    zkelect_unnominate(N[0].grp[0].g, 0);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT_FATAL(fz_is_elector(&N[4], 0));
    CU_ASSERT(fz_is_ready(&N[2], 0));
    CU_ASSERT_EQUAL(fz_count(&N[2], 0, ZKELECT_EV_TAKEOVER), 1);
    c2 = crash(2);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT(fz_is_ready(&N[3], 0));
    CU_ASSERT(fz_znode_has("/g/elected", "\"leader\":\"n4\""));
    CU_ASSERT(fz_znode_has("/g/elected", "\"epoch\":3,"));
    CU_ASSERT(fz_znode_has("/g/elected", "\"previous\":\"n2\""));
    CU_ASSERT_EQUAL(fz_count(&N[4], 0, ZKELECT_EV_DECISION), 1);
    crash_end(c2);
    fz_end();
}

/*
 * A subscriber that unsubscribes: n8 follows while subscribed (it hears
 * the change to n2), then unsubscribes and is quiet again: the next change
 * (n2 hands over to n4) costs it no request.
 */
static void
test_unsubscribe_quiet_again(void)
{
    struct seen s;
    struct zkelect_stats s0;
    int id;

    memset(&s, 0, sizeof(s));
    fz_begin();
    cast(FZ_FOLLOW);
    id = zkelect_subscribe(N[4].grp[0].g, ZKELECT_MASK_LEADER, sub_cb, &s);
    CU_ASSERT_FATAL(id > 0);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    zkelect_unnominate(N[1].grp[0].g, 0);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT_FATAL(fz_is_ready(&N[2], 0));
    CU_ASSERT(strstr(s.log, "n2:READY:2") != NULL);
    CU_ASSERT(zkelect_unsubscribe(N[4].grp[0].g, id) == 0);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    s0 = stats(&N[4]);
    zkelect_unnominate(N[2].grp[0].g, 0);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT_FATAL(fz_is_ready(&N[3], 0));
    CU_ASSERT_EQUAL(stats(&N[4]).requests, s0.requests);
    CU_ASSERT(strstr(s.log, "n4") == NULL);
    fz_end();
}

struct twait {
    zkelect_group_t *g;
};

static int
twait_fn(void *arg)
{
    struct twait *w = arg;

    return zkelect_wait_leader(w->g, ZKELECT_STATUS_READY, 1, 200);
}

/*
 * A wait that times out (n8 waits to lead itself, and does not) leaves the
 * group quiet again: the next change costs it no request.
 */
static void
test_wait_timeout_quiet_again(void)
{
    struct twait w;
    struct zkelect_stats s0;

    fz_begin();
    cast(FZ_FOLLOW);
    w.g = N[4].grp[0].g;
    CU_ASSERT_EQUAL(fz_run_settling(twait_fn, &w, SETTLE_MS), ZKELECT_ETIMEDOUT);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    s0 = stats(&N[4]);
    zkelect_unnominate(N[1].grp[0].g, 0);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT_FATAL(fz_is_ready(&N[2], 0));
    CU_ASSERT_EQUAL(stats(&N[4]).requests, s0.requests);
    fz_end();
}

static void
put(const char *path, const char *json)
{
    int rc;

    if (fakezk_exists(path))
        rc = fakezk_set(path, json, (int)strlen(json));
    else
        rc = fakezk_create(path, json, (int)strlen(json), 0);
    CU_ASSERT(rc == 0);
}

/* The slots of quiet N's view, asked by the application: "id:epoch id:epoch". */
struct slots_arg {
    struct fz_node *n;
    struct zkelect_slot s[4];
    int count;
};

static int
slots_fn(void *arg)
{
    struct slots_arg *a = arg;

    a->count = zkelect_get_leaders(a->n->grp[0].g, a->s, 4);
    return 0;
}

/*
 * Two slots (config leaders = 2): n1 in slot 0, n2 in slot 1; n4 quiet.
 * n2 crashes: the elector's decision names n4 for slot 1 and wakes it; n4
 * becomes READY in slot 1. The quiet, uninvolved n8 sends nothing, and
 * zkelect_get_leaders on it answers both slots.
 */
static void
test_slot_wake(void)
{
    struct zkelect_stats s0;
    struct slots_arg a;
    int64_t c2;

    fz_begin();
    CU_ASSERT(fakezk_mkdirs("/g") == 0);
    put("/g/config", "{\"v\":1,\"settle_ms\":0,\"leaders\":2}");
    join(0, "n9", FZ_FOLLOW, false);
    join(1, "n1", FZ_FOLLOW, true);
    join(2, "n2", FZ_FOLLOW, true);
    join(3, "n4", FZ_QUIET_NOCB, true);
    join(5, "n7", FZ_FOLLOW, false);
    join(4, "n8", FZ_QUIET_NOCB, true);
    CU_ASSERT_FATAL(fz_is_ready(&N[1], 0));
    CU_ASSERT_FATAL(zkelect_group_slot(N[2].grp[0].g) == 1);
    s0 = stats(&N[4]);
    c2 = crash(2);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT_EQUAL(zkelect_group_slot(N[3].grp[0].g), 1);
    CU_ASSERT_EQUAL(fz_count(&N[3], 0, ZKELECT_EV_READY), 1);
    CU_ASSERT_EQUAL(election_version("n4"), 2); /* an elector wakes with two writes */
    CU_ASSERT_EQUAL(stats(&N[4]).requests, s0.requests);
    memset(&a, 0, sizeof(a));
    a.n = &N[4];
    fz_run_settling(slots_fn, &a, SETTLE_MS);
    CU_ASSERT_EQUAL(a.count, 2);
    if (a.count == 2) {
        CU_ASSERT_STRING_EQUAL(a.s[0].id, "n1");
        CU_ASSERT_STRING_EQUAL(a.s[1].id, "n4");
        CU_ASSERT(a.s[1].status == ZKELECT_STATUS_READY);
    }
    crash_end(c2);
    fz_end();
}

struct moved {
    struct fz_node *n;
    uint64_t requests;
};

static bool
moved(void *arg)
{
    struct moved *m = arg;
    struct zkelect_group_state st;

    memset(&st, 0, sizeof(st));
    st.size = sizeof(st);
    (void)zkelect_get_state(m->n->grp[0].g, &st);
    return stats(m->n).requests != m->requests || st.stuck != 0;
}

/*
 * The view a quiet member let go is incomplete by design: the safety-net
 * scan (once a second; a group with nothing heard for 2 s and an incomplete
 * view is "stuck") must not count it nor re-drive it. After a change, n8
 * sends nothing and is never found stuck for 3.5 s (the library's timers
 * run meanwhile).
 */
static void
test_quiet_not_stuck(void)
{
    struct moved m;

    fz_begin();
    cast(FZ_FOLLOW);
    zkelect_unnominate(N[1].grp[0].g, 0);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT_FATAL(fz_is_ready(&N[2], 0));
    m.n = &N[4];
    m.requests = stats(&N[4]).requests;
    CU_ASSERT(fz_settle_until(moved, &m, 3500) != 0);
    if (moved(&m))
        fz_print_state("a quiet member re-driven", N, 7);
    fz_end();
}

/*
 * The wake reaches a quiet member that is disconnected when the decision is
 * written: the notification comes after the reconnect (the client's watch
 * on its election znode is set again), and n2 takes over.
 */
static void
test_wake_while_disconnected(void)
{
    int64_t c1, s2;

    fz_begin();
    cast(FZ_QUIET_NOCB);
    s2 = fz_sid(&N[2]);
    CU_ASSERT(fakezk_disconnect(s2, FZ_BACK) == 0);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    c1 = crash(1);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT(fz_znode_has("/g/elected", "\"leader\":\"n2\""));
    /* named the standing successor (2), then elected (an elector wakes with two writes) */
    CU_ASSERT_EQUAL(election_version("n2"), 4);
    CU_ASSERT(fakezk_reconnect(s2, FZ_BACK) == 0);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT(fz_is_ready(&N[2], 0));
    CU_ASSERT_EQUAL(fz_count(&N[2], 0, ZKELECT_EV_TAKEOVER), 1);
    crash_end(c1);
    fz_end();
}

struct hostq {
    struct fz_node *n;
    const char *id;
    char host[256];
    int rc;
};

static int
hostq_fn(void *arg)
{
    struct hostq *q = arg;

    q->rc = zkelect_get_node_host(q->n->grp[0].g, q->id, q->host, sizeof(q->host));
    return q->rc;
}

/* N's answer for ID's host, asked by the application ("" and the code when
   unknown). */
static const char *
host_of(struct fz_node *n, const char *id, struct hostq *q)
{
    memset(q, 0, sizeof(*q));
    q->n = n;
    q->id = id;
    (void)fz_run_settling(hostq_fn, q, SETTLE_MS);
    return q->host;
}

/*
 * zkelect_get_node_host on a quiet member reads on request too: n1 (on
 * "h1") crashes, the elector elects n2 (on "h2"); n8, which followed
 * neither, answers n2's host and n1's, from the decision.
 */
static void
test_node_host_on_request(void)
{
    struct hostq q;
    int64_t c1;

    fz_begin();
    join(0, "n9", FZ_FOLLOW, false);
    join_host = "h1";
    join(1, "n1", FZ_FOLLOW, true);
    join_host = "h2";
    join(2, "n2", FZ_FOLLOW, true);
    join(3, "n4", FZ_FOLLOW, true);
    join(5, "n7", FZ_FOLLOW, false);
    join(4, "n8", FZ_QUIET_NOCB, true);
    CU_ASSERT_FATAL(fz_is_ready(&N[1], 0));
    c1 = crash(1);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT_FATAL(fz_is_ready(&N[2], 0));
    CU_ASSERT_STRING_EQUAL(host_of(&N[4], "n2", &q), "h2");
    CU_ASSERT_EQUAL(q.rc, 0);
    CU_ASSERT_STRING_EQUAL(host_of(&N[4], "n1", &q), "h1");
    CU_ASSERT_EQUAL(q.rc, 0);
    crash_end(c1);
    fz_end();
}

/* n9 (the elector, not eligible), n1 (the READY leader) and n2 join; n1
   resigns, and its step-down finishes only at zkelect_stepdown_done. */
static void
n1_resigning(void)
{
    join(0, "n9", FZ_FOLLOW, false);
    join(1, "n1", FZ_FOLLOW, true);
    join(2, "n2", FZ_FOLLOW, true);
    CU_ASSERT_FATAL(fz_is_ready(&N[1], 0));
    N[1].grp[0].stepdown_mode = ZKELECT_EBUSY;
    zkelect_unnominate(N[1].grp[0].g, 0);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT_FATAL(fz_count(&N[1], 0, ZKELECT_EV_STEPDOWN) == 1);
}

/*
 * The elector's deletion heard while the leave's multi is in flight is let
 * go; when that leave is refused, the leaver is registered again until it
 * leaves again, and looks again. n1 resigns (its step-down finishes
 * later); meanwhile, unheard by n1, n9 (the elector) crashes and `elected`
 * is rewritten. n1's handover and then its ordinary leave are refused
 * (`elected` moved); n1 lists and is the elector (the lowest) until its
 * next leave is answered. (Before: it never was; with any other refusal
 * than a moved view, nobody was the elector until the safety net, 2 s.)
 * n1 stepped down once and is told so once: leaving again after the
 * refusal said -stepdown a second time, with no callback.
 */
static void
test_refused_leave_rewalks(void)
{
    char data[1024];
    int64_t s1, c0;
    int len;

    fz_begin();
    n1_resigning();
    s1 = fz_sid(&N[1]);
    fakezk_hold(s1, true);
    c0 = crash(0);
    len = fakezk_get("/g/elected", data, sizeof(data));
    CU_ASSERT_FATAL(len > 0);
    CU_ASSERT_FATAL(fakezk_set("/g/elected", data, len) == 0);
    CU_ASSERT(zkelect_stepdown_done(N[1].grp[0].g, N[1].grp[0].stepdown_epoch) == 0);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    fakezk_hold(s1, false);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT(!fz_registered(&N[1], 0));
    CU_ASSERT_EQUAL(fz_count(&N[1], 0, ZKELECT_EV_ELECTOR), 1);
    /* the step-down ran once, and was said once (before: a second
       -stepdown, without a callback, when it left again) */
    CU_ASSERT_EQUAL(N[1].grp[0].stepdown_calls, 1);
    CU_ASSERT_EQUAL(fz_count(&N[1], 0, ZKELECT_EV_STEPDOWN), 1);
    CU_ASSERT(fz_is_elector(&N[2], 0));
    CU_ASSERT(fz_is_ready(&N[2], 0));
    crash_end(c0);
    fz_end();
}

/*
 * A foreign container znode in election/, below every member: ZooKeeper
 * does not delete a container that never had a child (by default), and its ephemeralOwner
 * (only the high bit set) is not 0, so it passed for a member's
 * registration: n1 watched it for ever, nobody was the elector, nobody
 * led. It is ignored now (-malformed, naming it a container), as a
 * persistent one is.
 */
static void
test_container_predecessor(void)
{
    fz_begin();
    (void)foreign_below_all(INT64_MIN);
    join(1, "n1", FZ_FOLLOW, true);
    CU_ASSERT(fz_is_elector(&N[1], 0));
    CU_ASSERT(fz_is_ready(&N[1], 0));
    CU_ASSERT(fz_count(&N[1], 0, ZKELECT_EV_MALFORMED) >= 1);
    CU_ASSERT(strstr(N[1].grp[0].last_error, "a container znode") != NULL);
    fz_end();
}

/*
 * A persistent or container nodes/<id>, written by another client: the
 * node refuses to join with ZKELECT_EFOREIGN (no session holds it: waiting
 * for an expiry, as after ZKELECT_EIDINUSE, would not help) and says what
 * the znode is, not "held by another live session (0x0)".
 */
static void
test_foreign_record(void)
{
    static const struct { int64_t owner; const char *says; } cases[] = {
        {0, "/g/nodes/n1 is not ephemeral"},
        {INT64_MIN, "/g/nodes/n1 is a container znode"},
    };
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        fz_begin();
        CU_ASSERT_FATAL(fakezk_mkdirs("/g/election") == 0 && fakezk_mkdirs("/g/nodes") == 0);
        CU_ASSERT_FATAL(fakezk_create("/g/nodes/n1", "x", 1, cases[i].owner) == 0);
        CU_ASSERT_FATAL(fz_node_open(&N[1], "n1", "/g", 1) == 0);
        fz_nominate(&N[1], 0, 10);
        CU_ASSERT(fz_settle(SETTLE_MS) == 0);
        CU_ASSERT(N[1].grp[0].nominate_done);
        CU_ASSERT(N[1].grp[0].nominate_err == ZKELECT_EFOREIGN);
        CU_ASSERT(!fz_registered(&N[1], 0));
        CU_ASSERT(strstr(N[1].grp[0].last_error, cases[i].says) != NULL);
        fz_end();
    }
}

/*
 * A leader that leaves while its step-down runs (the callback finishes
 * later) is still registered: it keeps its place in the election order.
 * Here its predecessor, the elector n9, crashes during the step-down: n1
 * walks on at the deletion and, now the lowest, is the elector until it
 * leaves; then n2 is. (Before: a leaving member let the deletion go, so
 * nobody was the elector, and 2 s later the safety net found n1 "stuck"
 * (-stuck, which means a bug) and re-drove it.)
 */
static bool
stuck_seen(void *arg)
{
    struct fz_node *n = arg;
    struct zkelect_group_state st;

    memset(&st, 0, sizeof(st));
    st.size = sizeof(st);
    (void)zkelect_get_state(n->grp[0].g, &st);
    return st.stuck != 0;
}

static void
test_leaving_pred_goes(void)
{
    int64_t c0;

    fz_begin();
    n1_resigning();
    c0 = crash(0);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT(fz_settle_until(stuck_seen, &N[1], 3500) != 0);
    if (stuck_seen(&N[1]))
        fz_print_state("a leaving leader found stuck", N, 3);
    CU_ASSERT(fz_is_elector(&N[1], 0));
    CU_ASSERT(!fz_is_elector(&N[2], 0));
    CU_ASSERT(zkelect_stepdown_done(N[1].grp[0].g, N[1].grp[0].stepdown_epoch) == 0);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT(fz_is_ready(&N[2], 0));
    CU_ASSERT(fz_is_elector(&N[2], 0));
    CU_ASSERT(fz_znode_has("/g/elected", "handover: n1 resigned"));
    crash_end(c0);
    fz_end();
}

static bool
n2_ready(void *arg)
{
    (void)arg;
    return fz_is_ready(&N[1], 0);
}

/*
 * The member after the elector becomes the elector by the shortcut (at its
 * predecessor's deletion, without listing first) while its read of a new
 * `elected` is still in flight: its view is a decision behind. The leader
 * znode's deletion, heard next, armed the watchdog for that old epoch, and
 * the new decision, read right after, found a watchdog armed and got none.
 * When the old epoch's watchdog fired it did nothing (its epoch was over),
 * and nothing guarded the new one: nobody led until the 2 s safety net
 * (-stuck). Here n1 (elector, leader) names n3 by a switchover and
 * crashes; n3's takeover fails; n2, held meanwhile, hears the decision, n1's
 * deletion and the leader znode's, in that order. Now the new epoch gets
 * its watchdog: it excludes n3, n2 leads. (The Spin model's deep check of
 * the wake gate found it: doc/model/README.md, "A watchdog per epoch".)
 */
static void
test_shortcut_elector_stale_view(void)
{
    static const char sw[] = "{\"v\":1,\"id\":1,\"to\":\"n3\",\"at_ms\":0,\"by\":\"t\"}";
    int64_t s1, s2, c1;

    fz_begin();
    fz_watchdog_ms = 300;
    join(0, "n1", FZ_FOLLOW, true);
    join(1, "n2", FZ_FOLLOW, true);
    join(2, "n3", FZ_FOLLOW, true);
    CU_ASSERT_FATAL(fz_is_ready(&N[0], 0));
    N[2].grp[0].takeover_mode = ZKELECT_EIO;
    s1 = fz_sid(&N[0]);
    s2 = fz_sid(&N[1]);
    fakezk_hold(s1, true);
    fakezk_hold(s2, true);
    CU_ASSERT(fakezk_create("/g/switchover", sw, (int)strlen(sw), 0) == 0);
    CU_ASSERT_FATAL(fz_deliver_until(s1, "reply multi /g/elected"));
    CU_ASSERT_FATAL(fz_znode_has("/g/elected", "\"leader\":\"n3\""));
    c1 = crash(0);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT(fz_count(&N[2], 0, ZKELECT_EV_TAKEOVER) >= 1);
    CU_ASSERT(!fz_is_ready(&N[2], 0));
    fakezk_hold(s2, false);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT(fz_is_elector(&N[1], 0));
    CU_ASSERT(fz_settle_until(n2_ready, NULL, 1500) == 0);
    CU_ASSERT_EQUAL(fz_count(&N[1], 0, ZKELECT_EV_STUCK), 0);
    CU_ASSERT_EQUAL(fz_count(&N[1], 0, ZKELECT_EV_WATCHDOG), 1);
    if (!fz_is_ready(&N[1], 0))
        fz_print_state("the new elector's decision not guarded", N + 1, 2);
    crash_end(c1);
    fz_end();
}

static CU_TestInfo quiet_tests[] = {
    {"uninvolved_leave", test_uninvolved_leave},
    {"uninvolved_crash", test_uninvolved_crash},
    {"wake_not_heard_by_next_in_line", test_wake_not_heard_by_next_in_line},
    {"next_in_line_hears_the_deletion", test_next_in_line_hears_the_deletion},
    {"elector_next_lists_once", test_elector_next_lists_once},
    {"unreadable_foreign_predecessor", test_unreadable_foreign_predecessor},
    {"partial_layout", test_partial_layout},
    {"subscriber", test_subscriber},
    {"subscriber_two_requests", test_subscriber_two_requests},
    {"release_before_wake", test_release_before_wake},
    {"subscriber_elected", test_subscriber_elected},
    {"wake_by_decision", test_wake_by_decision},
    {"wake_by_handover", test_wake_by_handover},
    {"wake_rearm_lost", test_wake_rearm_lost},
    {"wake_stat_lost", test_wake_stat_lost},
    {"wake_last_one", test_wake_last_one},
    {"wake_subscriber_no_fast", test_wake_subscriber_no_fast},
    {"decision_for_gone_fails", test_decision_for_gone_fails},
    {"leader_on_request", test_leader_on_request},
    {"wait_leader_quiet", test_wait_leader_quiet},
    {"no_leader_events", test_no_leader_events},
    {"previous_host", test_previous_host},
    {"previous_host_after_handover", test_previous_host_after_handover},
    {"previous_host_after_handover_crash", test_previous_host_after_handover_crash},
    {"quiet_becomes_elector", test_quiet_becomes_elector},
    {"unsubscribe_quiet_again", test_unsubscribe_quiet_again},
    {"wait_timeout_quiet_again", test_wait_timeout_quiet_again},
    {"slot_wake", test_slot_wake},
    {"quiet_not_stuck", test_quiet_not_stuck},
    {"node_host_on_request", test_node_host_on_request},
    {"wake_while_disconnected", test_wake_while_disconnected},
    {"leaving_pred_goes", test_leaving_pred_goes},
    {"shortcut_elector_stale_view", test_shortcut_elector_stale_view},
    {"refused_leave_rewalks", test_refused_leave_rewalks},
    {"container_predecessor", test_container_predecessor},
    {"foreign_record", test_foreign_record},
    CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
    {"quiet", NULL, NULL, NULL, NULL, quiet_tests},
    CU_SUITE_INFO_NULL,
};

int
main(int argc, char **argv)
{
    return cutest_main(argc, argv, suites);
}
