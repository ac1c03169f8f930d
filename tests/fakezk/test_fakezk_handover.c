/*
 * test_fakezk_handover.c - issue 18's shorter paths on the scripted fake:
 * the no-op takeover (the leader znode created READY, one write) and the
 * direct handover of a resigning leader (it writes the elector's standing
 * successor decision itself).
 *
 * Run one test: tests/fakezk/test_fakezk_handover handover:noop_created_ready
 * FAKEZK_VERBOSE=1 prints the library's log and events.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "cutest.h"
#include "harness.h"
#include "direct.h"
#include "internal.h"   /* zke_set_pause_ms */

#define SETTLE_MS 20000

static struct fz_node N[4];

/*
 * Deliver node 0's items up to the reply of its leader znode's create (the
 * second multi that begins with a check of /g/elected: the first is its own
 * decision). Nothing of it has been delivered yet when this returns.
 */
static void
until_create_reply(int64_t sid)
{
    CU_ASSERT_FATAL(fz_deliver_until(sid, "reply multi /g/elected"));
    CU_ASSERT_FATAL(fakezk_deliver_one(sid));
    fz_flush();
    CU_ASSERT_FATAL(fz_deliver_until(sid, "reply multi /g/elected"));
}

/*
 * A group whose takeover has no work creates its leader znode READY: when
 * the create's reply is due the tree shows it READY at version 0 (one
 * write, no update behind it), and the node has not started its takeover
 * yet. It ends READY once, with one +takeover, and the znode is still at
 * version 0. (Before issue 18 the tree showed PROGRESS here; before the
 * direct create, READY was an update sent right behind: version 1.)
 */
static void
test_noop_created_ready(void)
{
    char buf[256];
    int64_t sid;

    fz_begin();
    fz_takeover_noop = true;
    CU_ASSERT_FATAL(fz_node_open(&N[0], "n1", "/g", 1) == 0);
    fz_settle(SETTLE_MS);
    sid = fz_sid(&N[0]);
    fz_nominate(&N[0], 0, 10);
    fz_flush();
    until_create_reply(sid);
    CU_ASSERT_EQUAL(fz_count(&N[0], 0, ZKELECT_EV_TAKEOVER), 0);
    CU_ASSERT_STRING_EQUAL(fz_tree_leader("/g", buf, sizeof(buf)), "n1:READY:1");
    CU_ASSERT_EQUAL(fakezk_version("/g/leader"), 0);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT(fz_is_ready(&N[0], 0));
    CU_ASSERT_EQUAL(fz_count(&N[0], 0, ZKELECT_EV_TAKEOVER), 1);
    CU_ASSERT_EQUAL(fz_count(&N[0], 0, ZKELECT_EV_READY), 1);
    CU_ASSERT_EQUAL(fakezk_version("/g/leader"), 0);
    fz_end();
}

/* A takeover with work (the default: a callback, no flag) keeps the two
 * steps: PROGRESS alone when the create's reply is due. */
static void
test_callback_not_pipelined(void)
{
    char buf[256];
    int64_t sid;

    fz_begin();
    CU_ASSERT_FATAL(fz_node_open(&N[0], "n1", "/g", 1) == 0);
    fz_settle(SETTLE_MS);
    sid = fz_sid(&N[0]);
    fz_nominate(&N[0], 0, 10);
    fz_flush();
    until_create_reply(sid);
    CU_ASSERT_STRING_EQUAL(fz_tree_leader("/g", buf, sizeof(buf)), "n1:PROGRESS:1");
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT(fz_is_ready(&N[0], 0));
    fz_end();
}

/*
 * `elected` is rewritten (same decision, new version) before the READY
 * create reaches the server: it is refused (it checks the version that
 * named the node), -takeover-abort, and the node takes over on the new
 * version: one +takeover, one +ready, READY at epoch 1.
 */
static void
test_noop_create_refused(void)
{
    char data[4096], buf[256];
    int64_t sid;
    int len;

    fz_begin();
    fz_takeover_noop = true;
    CU_ASSERT_FATAL(fz_node_open(&N[0], "n1", "/g", 1) == 0);
    fz_settle(SETTLE_MS);
    sid = fz_sid(&N[0]);
    fz_nominate(&N[0], 0, 10);
    fz_flush();
    CU_ASSERT_FATAL(fz_deliver_until(sid, "reply multi /g/elected rc=0"));
    fakezk_defer_apply(sid, true);     /* the pair waits for its replies */
    CU_ASSERT_FATAL(fakezk_deliver_one(sid));
    fz_flush();                        /* the READY create sent, not applied */
    len = fakezk_get("/g/elected", data, sizeof(data));
    CU_ASSERT_FATAL(len > 0);
    CU_ASSERT(fakezk_set("/g/elected", data, len) == 0);
    fakezk_defer_apply(sid, false);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT_EQUAL(fz_count(&N[0], 0, ZKELECT_EV_TAKEOVER_ABORT), 1);
    CU_ASSERT_EQUAL(fz_count(&N[0], 0, ZKELECT_EV_TAKEOVER), 1);
    CU_ASSERT_EQUAL(fz_count(&N[0], 0, ZKELECT_EV_READY), 1);
    CU_ASSERT(fz_is_ready(&N[0], 0));
    CU_ASSERT_STRING_EQUAL(fz_tree_leader("/g", buf, sizeof(buf)), "n1:READY:1");
    fz_end();
}

/*
 * The flag with a takeover callback that finishes later
 * (zkelect_takeover_done): the leader znode was created READY before the
 * takeover ran; the node is READY when the callback is done, without
 * writing anything.
 */
static void
test_noop_deferred_callback(void)
{
    int64_t sid;
    int sent;

    fz_begin();
    fz_takeover_noop = true;
    CU_ASSERT_FATAL(fz_node_open(&N[0], "n1", "/g", 1) == 0);
    N[0].grp[0].takeover_mode = ZKELECT_EBUSY;
    fz_nominate(&N[0], 0, 10);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT_FATAL(fz_count(&N[0], 0, ZKELECT_EV_TAKEOVER) == 1);
    CU_ASSERT(!fz_is_ready(&N[0], 0));
    sid = fz_sid(&N[0]);
    sent = fakezk_requests(sid);
    CU_ASSERT(zkelect_takeover_done(N[0].grp[0].g, N[0].grp[0].takeover_epoch, 0) == 0);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT(fz_is_ready(&N[0], 0));
    CU_ASSERT_EQUAL(fz_count(&N[0], 0, ZKELECT_EV_READY), 1);
    CU_ASSERT_EQUAL(fakezk_requests(sid), sent);   /* nothing sent for READY */
    CU_ASSERT_EQUAL(fakezk_version("/g/leader"), 0);
    fz_end();
}

static bool
node_ready(void *arg)
{
    return fz_is_ready(arg, 0);
}

/*
 * The flag with a takeover callback that fails: the leader znode, created
 * READY, is released after the step-down, the node never reports +ready,
 * and the elector's watchdog moves the leadership to the other candidate.
 */
static void
test_noop_callback_fails(void)
{
    fz_begin();
    fz_takeover_noop = true;
    fz_watchdog_ms = 300;
    CU_ASSERT_FATAL(fz_node_open(&N[0], "n1", "/g", 1) == 0);
    CU_ASSERT_FATAL(fz_node_open(&N[1], "n2", "/g", 1) == 0);
    CU_ASSERT_FATAL(fz_node_open(&N[2], "n9", "/g", 1) == 0);
    N[0].grp[0].takeover_mode = ZKELECT_EBUSY;
    N[2].grp[0].ineligible = true;
    fz_nominate(&N[2], 0, 10);     /* n9 first: the elector, never elected */
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    fz_nominate(&N[0], 0, 10);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    fz_nominate(&N[1], 0, 10);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT_FATAL(fz_count(&N[0], 0, ZKELECT_EV_TAKEOVER) == 1);
    CU_ASSERT(zkelect_takeover_done(N[0].grp[0].g, N[0].grp[0].takeover_epoch, ZKELECT_EIO) == 0);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT_EQUAL(fz_count(&N[0], 0, ZKELECT_EV_TAKEOVER_FAILED), 1);
    CU_ASSERT_EQUAL(fz_count(&N[0], 0, ZKELECT_EV_READY), 0);
    CU_ASSERT(!fz_is_ready(&N[0], 0));
    CU_ASSERT(fz_eventually(node_ready, &N[1]));   /* the watchdog moves on */
    CU_ASSERT(fakezk_owner("/g/leader") == fz_sid(&N[1]));
    fz_end();
}

/*
 * The flag can be cleared at run time (zkelectd: a takeover hook added by
 * SIGHUP): the next takeover has its two steps again.
 */
static void
test_noop_cleared(void)
{
    char buf[256];
    int64_t sid;

    fz_begin();
    fz_takeover_noop = true;
    CU_ASSERT_FATAL(fz_node_open(&N[0], "n1", "/g", 1) == 0);
    fz_settle(SETTLE_MS);
    CU_ASSERT(zkelect_set_takeover_noop(N[0].grp[0].g, 0) == 0);
    fz_flush();
    sid = fz_sid(&N[0]);
    fz_nominate(&N[0], 0, 10);
    fz_flush();
    until_create_reply(sid);
    CU_ASSERT_STRING_EQUAL(fz_tree_leader("/g", buf, sizeof(buf)), "n1:PROGRESS:1");
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT(fz_is_ready(&N[0], 0));
    CU_ASSERT(zkelect_set_takeover_noop(NULL, 1) == ZKELECT_EINVAL);
    fz_end();
}

/*
 * A handover between three no-op nodes: the READY leader resigns, another
 * takes over; every leader is READY once per epoch and no takeover is
 * aborted.
 */
static void
test_noop_three_nodes_handover(void)
{
    const char *ids[] = {"n1", "n2", "n3"};
    int k, ready = 0, aborts = 0;

    fz_begin();
    fz_takeover_noop = true;
    for (k = 0; k < 3; k++) {
        CU_ASSERT_FATAL(fz_node_open(&N[k], ids[k], "/g", 1) == 0);
        fz_nominate(&N[k], 0, 10);
    }
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT_FATAL(fz_is_ready(&N[0], 0));
    zkelect_unnominate(N[0].grp[0].g, 0);   /* returns at once: the fake answers later */
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT(fz_is_ready(&N[1], 0));
    for (k = 0; k < 3; k++) {
        ready += (int)fz_count(&N[k], 0, ZKELECT_EV_READY);
        aborts += (int)fz_count(&N[k], 0, ZKELECT_EV_TAKEOVER_ABORT);
    }
    CU_ASSERT_EQUAL(ready, 2);
    CU_ASSERT_EQUAL(aborts, 0);
    fz_end();
}


/* ---- direct handover ------------------------------------------------------ */


/* n9 registers first (the elector throughout, not eligible), then n1 (the
   leader: nodeid chooses the lowest id), n2 and n3: N[0..3]. */
static void
four_nodes(void)
{
    const char *ids[] = {"n9", "n1", "n2", "n3"};
    int k;

    for (k = 0; k < 4; k++) {
        CU_ASSERT_FATAL(fz_node_open(&N[k], ids[k], "/g", 1) == 0);
        N[k].grp[0].ineligible = k == 0;
        fz_nominate(&N[k], 0, 10);
        CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    }
    CU_ASSERT_FATAL(fz_is_ready(&N[1], 0));
    CU_ASSERT_FATAL(fz_is_elector(&N[0], 0));
}

/* four_nodes() with takeovers that have no work, the members opened as
   zkelectd's (ZKELECT_GROUP_NO_LEADER_EVENTS: they follow nothing) */
static void
four_quiet_nodes(void)
{
    fz_begin();
    fz_takeover_noop = true;
    fz_quiet = FZ_QUIET_NOEVENTS;
    four_nodes();
    fz_quiet = FZ_FOLLOW;
}

/* The config drains the nodes of IDS (NULL-ended) until 2100, as zkelect
   drain writes it (the znode created, or set if it is there). */
static void
drain(const char *const *ids)
{
    char data[1024];
    size_t len;
    int i;

    len = (size_t)snprintf(data, sizeof(data), "{\"v\":1,\"drains\":{");
    for (i = 0; ids[i] && len < sizeof(data); i++)
        len += (size_t)snprintf(data + len, sizeof(data) - len,
                                "%s\"%s\":{\"until_ms\":4102444800000,\"reason\":\"test\","
                                "\"by\":\"t\"}", i ? "," : "", ids[i]);
    if (len < sizeof(data))
        len += (size_t)snprintf(data + len, sizeof(data) - len, "}}");
    CU_ASSERT_FATAL(len < sizeof(data));
    if (fakezk_exists("/g/config")) {
        CU_ASSERT(fakezk_set("/g/config", data, (int)len) == 0);
    } else {
        CU_ASSERT(fakezk_create("/g/config", data, (int)len, 0) == 0);
    }
}

/* n5 creates the group (a fresh open) and leads, with takeovers that have
   no work; then n1 joins, opened as QUIET says (fz_quiet). */
static void
n5_leads_n1_joins(int quiet)
{
    fz_begin();
    fz_takeover_noop = true;
    fz_open_fresh = true;
    CU_ASSERT_FATAL(fz_node_open(&N[0], "n5", "/g", 1) == 0);
    fz_nominate(&N[0], 0, 10);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    fz_open_fresh = false;
    CU_ASSERT_FATAL(fz_is_ready(&N[0], 0));
    fz_quiet = quiet;
    CU_ASSERT_FATAL(fz_node_open(&N[1], "n1", "/g", 1) == 0);
    fz_nominate(&N[1], 0, 10);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    fz_quiet = FZ_FOLLOW;
}

/*
 * The elector keeps the standing succession in `successor`: n1 leads, n2 is
 * what nodeid would choose without it. The leader resigns: its leave writes
 * the decision for n2 at the next epoch itself, n2 takes over, and the
 * elector writes no decision of its own (one +decision, its first); it
 * appends the handover to the history and records n2's successor (n3).
 * (n9, the elector, may not lead.)
 * (Before issue 18 the elector decided epoch 2 after the leave: a second
 * +decision, and no `successor` znode.)
 */
static void
test_direct_handover(void)
{
    fz_begin();
    four_nodes();
    CU_ASSERT(fz_znode_has("/g/successor", "\"successor\":\"n2\""));
    CU_ASSERT(fz_znode_has("/g/successor", "\"leader\":\"n1\""));
    CU_ASSERT_EQUAL(fz_count(&N[0], 0, ZKELECT_EV_DECISION), 1);
    CU_ASSERT_EQUAL(fz_count(&N[2], 0, ZKELECT_EV_READY), 0);
    zkelect_unnominate(N[1].grp[0].g, 0);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT(fz_is_ready(&N[2], 0));
    CU_ASSERT_EQUAL(fz_count(&N[2], 0, ZKELECT_EV_READY), 1);
    CU_ASSERT(fz_znode_has("/g/elected", "\"leader\":\"n2\""));
    CU_ASSERT(fz_znode_has("/g/elected", "handover: n1 resigned"));
    CU_ASSERT(fz_znode_has("/g/elected", "\"epoch\":2"));
    CU_ASSERT_EQUAL(fz_count(&N[0], 0, ZKELECT_EV_DECISION), 1);
    CU_ASSERT(fz_znode_has("/g/history", "handover: n1 resigned"));
    CU_ASSERT(fz_znode_has("/g/successor", "\"leader\":\"n2\""));
    CU_ASSERT(fz_znode_has("/g/successor", "\"successor\":\"n3\""));
    CU_ASSERT(!fz_registered(&N[1], 0));
    fz_end();
}

/* Group 0 of node K: its fast handovers taken (FAST) and refused (REFUSED). */
static void
fast_counts(int k, uint64_t *fast, uint64_t *refused)
{
    struct zkelect_group_state st;

    memset(&st, 0, sizeof(st));
    st.size = sizeof(st);
    CU_ASSERT_FATAL(zkelect_get_state(N[k].grp[0].g, &st) == 0);
    *fast = st.fast_handovers;
    *refused = st.fast_refused;
}

/*
 * The fast handover: the successor, woken in the release's batch (its
 * leader znode's deletion, then the wake), creates its leader znode with
 * its notifications alone, before any reply: when n2 has handled them (no
 * reply delivered yet), the tree shows its leader znode READY at epoch 2,
 * version 0. It takes over once, with no abort. (Before, n2 read `elected`
 * first: the tree showed no leader until that reply had come.)
 */
static void
test_direct_handover_pipelined(void)
{
    char buf[256];
    uint64_t fast, refused;
    int64_t sid;

    fz_begin();
    fz_takeover_noop = true;
    four_nodes();
    CU_ASSERT(fz_znode_has("/g/elected", "\"fast_handover\":true"));
    sid = fz_sid(&N[2]);
    fakezk_hold(sid, true);
    zkelect_unnominate(N[1].grp[0].g, 0);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);  /* all but n2 */
    CU_ASSERT(fz_znode_has("/g/elected", "handover: n1 resigned"));
    CU_ASSERT(!fakezk_exists("/g/leader"));
    fakezk_hold(sid, false);
    CU_ASSERT_FATAL(fz_deliver_until(sid, "reply "));
    CU_ASSERT_STRING_EQUAL(fz_tree_leader("/g", buf, sizeof(buf)), "n2:READY:2");
    CU_ASSERT_EQUAL(fakezk_version("/g/leader"), 0);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT(fz_is_ready(&N[2], 0));
    CU_ASSERT_EQUAL(fz_count(&N[2], 0, ZKELECT_EV_READY), 1);
    CU_ASSERT_EQUAL(fz_count(&N[2], 0, ZKELECT_EV_TAKEOVER), 1);
    CU_ASSERT_EQUAL(fz_count(&N[2], 0, ZKELECT_EV_TAKEOVER_ABORT), 0);
    fast_counts(2, &fast, &refused);
    CU_ASSERT_EQUAL(fast, 1);
    CU_ASSERT_EQUAL(refused, 0);
    fz_end();
}

static bool
history_has_handover(void *arg)
{
    (void)arg;
    return fz_znode_has("/g/history", "handover: n1 resigned");
}

/* four_nodes() with takeovers that have no work, the longest pause of the
   elector and of n3 set (0: the default), and n2 silent: its session's
   items are held. Returns that session. */
static int64_t
n2_silent(int elector_pause_ms, int n3_pause_ms)
{
    int64_t sid2;

    fz_begin();
    fz_takeover_noop = true;
    four_nodes();
    if (elector_pause_ms > 0)
        zke_set_pause_ms(N[0].h, elector_pause_ms);
    if (n3_pause_ms > 0)
        zke_set_pause_ms(N[3].h, n3_pause_ms);
    sid2 = fz_sid(&N[2]);
    fakezk_hold(sid2, true);
    return sid2;
}

/* n2 is heard again: it takes over, once. */
static void
n2_takes_over(int64_t sid2)
{
    fakezk_hold(sid2, false);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT(fz_is_ready(&N[2], 0));
    CU_ASSERT_EQUAL(fz_count(&N[2], 0, ZKELECT_EV_READY), 1);
}

/*
 * The elector, and a member that follows, step aside for a handover
 * (doc/PROTOCOL.md §4). The elector hears the
 * release's batch (the config's create and delete, the leader znode's
 * deletion, then `elected`) and, while n2 has not created its leader znode,
 * sends nothing but what the batch's first two notifications ask (an exists
 * on the config, one on the leader znode): no read of `elected` or of
 * the listing, no history, no succession. Once n2's leader znode is there
 * it goes on at once (its pause could last a minute here): the history has
 * the handover and the succession names n2's successor. (Before, the
 * elector read `elected` and the listing at once: 5 requests before n2's
 * create, and the history was appended before n2 led.) The handover costs
 * the elector 6 requests in all: the config's creation, known absent, is
 * answered with an exists (before, a read answered "no node" and then the
 * exists: 7). n3, a member that follows `elected` and watches n2's
 * election znode (its predecessor), sends 1 request (the leader znode's
 * exists) before n2's create, and 4 in all (before the pause: 3, then
 * 1). The wake of n2, its predecessor, fires none of n3's watches: n3
 * watches n2's election znode for its deletion alone, with a child watch
 * (before, an exists watch: the wake fired it and n3 armed it again, 5).
 */
static void
test_elector_steps_aside(void)
{
    int64_t sid2, sid3, sid9;
    int before, before3;

    sid2 = n2_silent(60000, 60000);
    sid9 = fz_sid(&N[0]);
    sid3 = fz_sid(&N[3]);
    before = fakezk_requests(sid9);
    before3 = fakezk_requests(sid3);
    zkelect_unnominate(N[1].grp[0].g, 0);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);  /* all but n2 */
    CU_ASSERT(fakezk_requests(sid3) - before3 <= 1);
    CU_ASSERT(fz_znode_has("/g/elected", "handover: n1 resigned"));
    CU_ASSERT(!fakezk_exists("/g/leader"));
    CU_ASSERT(fakezk_requests(sid9) - before <= 2);
    CU_ASSERT(!history_has_handover(NULL));
    n2_takes_over(sid2);
    CU_ASSERT(history_has_handover(NULL));
    CU_ASSERT(fz_znode_has("/g/successor", "\"leader\":\"n2\""));
    CU_ASSERT(fz_znode_has("/g/successor", "\"successor\":\"n3\""));
    CU_ASSERT_EQUAL(fz_count(&N[0], 0, ZKELECT_EV_DECISION), 1);
    CU_ASSERT(fakezk_requests(sid9) - before <= 6);
    CU_ASSERT_EQUAL(fakezk_requests(sid3) - before3, 4);
    fz_end();
}

/*
 * The pause has an end: while n2 stays silent (its leader znode never
 * comes), the elector goes on after pause_ms (200 here) and appends the
 * handover to the history; n2 then takes over as usual.
 */
static void
test_elector_pause_bounded(void)
{
    int64_t sid2;
    uint64_t t0;

    sid2 = n2_silent(200, 0);
    t0 = fz_now_ms();
    zkelect_unnominate(N[1].grp[0].g, 0);
    CU_ASSERT(fz_settle_until(history_has_handover, NULL, 10000) == 0);
    CU_ASSERT(!fakezk_exists("/g/leader"));
    CU_ASSERT(fz_now_ms() - t0 >= 200);
    n2_takes_over(sid2);
    fz_end();
}

/*
 * A pause ends at a session event: the elector and n3 step aside (for a
 * minute, here) while n2 is silent; the elector's connection drops and
 * comes back: it handles what it kept, reads its view again and appends
 * the handover to the history; n3's pause is closed with its handle
 * (freed, under the sanitizers, with the events it kept). n2 then takes
 * over. (A pause that ignored session events would have kept the history
 * waiting a minute.)
 */
static void
test_pause_session_close(void)
{
    int64_t sid2, sid9;

    sid2 = n2_silent(60000, 60000);
    sid9 = fz_sid(&N[0]);
    zkelect_unnominate(N[1].grp[0].g, 0);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);  /* all but n2 */
    CU_ASSERT(!history_has_handover(NULL));
    CU_ASSERT(fakezk_bounce(sid9) == 0);
    CU_ASSERT(fz_settle_until(history_has_handover, NULL, 10000) == 0);
    fz_node_close(&N[3]);
    n2_takes_over(sid2);
    fz_end();
}

/*
 * The elector of a group its registration created watches no election
 * znode of its own (doc/PROTOCOL.md §2, "A new group"), so it hears no
 * wake: when it is the successor it must not step aside. n5 creates the
 * group and leads; a switchover moves the lead to n1, whose successor is
 * n5; n1 resigns, and n5 is READY at once. (Before the check, n5 waited
 * for its pause to end: a minute here.)
 */
static void
test_elector_successor_no_pause(void)
{
    static const char sw[] = "{\"v\":1,\"id\":1,\"to\":\"n1\",\"at_ms\":0,\"by\":\"t\"}";

    n5_leads_n1_joins(FZ_FOLLOW);
    CU_ASSERT(fakezk_create("/g/switchover", sw, (int)strlen(sw), 0) == 0);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT_FATAL(fz_is_ready(&N[1], 0));
    CU_ASSERT(fz_znode_has("/g/successor", "\"successor\":\"n5\""));
    zke_set_pause_ms(N[0].h, 60000);
    zkelect_unnominate(N[1].grp[0].g, 0);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT(fz_znode_has("/g/elected", "handover: n1 resigned"));
    CU_ASSERT(fz_is_ready(&N[0], 0));
    fz_end();
}

/* Replace the first FROM in S (capacity CAP) with TO. */
static bool
subst(char *s, size_t cap, const char *from, const char *to)
{
    char *p = strstr(s, from), tail[4096];

    if (p == NULL || strlen(s) - strlen(from) + strlen(to) >= cap)
        return false;
    snprintf(tail, sizeof(tail), "%s", p + strlen(from));
    snprintf(p, cap - (size_t)(p - s), "%s%s", to, tail);
    return true;
}

/* The name of ID's election znode (child of /g/election) into BUF. */
static const char *
election_name(const char *id, char *buf, size_t len)
{
    char prefix[64], path[256];

    snprintf(prefix, sizeof(prefix), "/g/election/%s_", id);
    if (!fakezk_find(prefix, path, sizeof(path)))
        return "";
    snprintf(buf, len, "%s", strrchr(path, '/') + 1);
    return buf;
}

/*
 * While n2 hears nothing, a foreign client deletes n1's leader znode,
 * writes `elected` naming n2 at epoch 6 (WAKES more than once: n2's
 * election znode written WAKES times) after EXTRA other writes of
 * `elected`. Then n2 handles its notifications, the leader znode's
 * deletion first, then its wake. Returns n2's session.
 */
static int64_t
foreign_decision(int extra, int wakes)
{
    char data[4096], n1z[128], n2z[128], path[256];
    int64_t sid;
    int len, i;

    fz_takeover_noop = true;
    four_nodes();
    sid = fz_sid(&N[2]);
    fakezk_hold(sid, true);
    len = fakezk_get("/g/elected", data, sizeof(data));
    CU_ASSERT_FATAL(len > 0);
    CU_ASSERT_FATAL(strstr(data, "\"fast_handover\":true") != NULL);
    CU_ASSERT_FATAL(*election_name("n1", n1z, sizeof(n1z)));
    CU_ASSERT_FATAL(*election_name("n2", n2z, sizeof(n2z)));
    for (i = 0; i < extra; i++)
        CU_ASSERT_FATAL(fakezk_set("/g/elected", data, len) == 0);
    CU_ASSERT_FATAL(subst(data, sizeof(data), "\"leader\":\"n1\"", "\"leader\":\"n2\""));
    CU_ASSERT_FATAL(subst(data, sizeof(data), n1z, n2z));
    CU_ASSERT_FATAL(subst(data, sizeof(data), "\"epoch\":1,", "\"epoch\":6,"));
    CU_ASSERT_FATAL(fakezk_delete("/g/leader") == 0);
    CU_ASSERT_FATAL(fakezk_set("/g/elected", data, (int)strlen(data)) == 0);
    snprintf(path, sizeof(path), "/g/election/%s", n2z);
    for (i = 0; i < wakes; i++)
        CU_ASSERT_FATAL(fakezk_set(path, "n2", 2) == 0);
    fakezk_hold(sid, false);
    CU_ASSERT_FATAL(fz_deliver_until(sid, "reply "));
    return sid;
}

/*
 * foreign_decision(EXTRA, WAKES) whose fast create must be refused: nothing
 * is created before n2 has read the decision, n2 counts one refused fast
 * create and none taken, no abort is said, and the group ends with a
 * leader.
 */
static void
fast_refused(int extra, int wakes)
{
    char buf[256];
    uint64_t fast, refused;

    fz_begin();
    foreign_decision(extra, wakes);
    CU_ASSERT(!fakezk_exists("/g/leader"));
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    fast_counts(2, &fast, &refused);
    CU_ASSERT_EQUAL(fast, 0);
    CU_ASSERT_EQUAL(refused, 1);
    CU_ASSERT(*fz_tree_leader("/g", buf, sizeof(buf)) != '\0');
    CU_ASSERT_EQUAL(fz_count(&N[2], 0, ZKELECT_EV_TAKEOVER_ABORT), 0);
    fz_end();
}

/*
 * An elector's wake is two writes: in the same batch as the leader znode's
 * deletion it is not taken for a handover's. n2's create, sent with its
 * notifications, checks its election znode one above what it read: it is
 * refused, and nothing is created until n2 has read the decision (epoch 6).
 * (With that check left out, n2 created the leader znode at epoch 2, the
 * handover it predicted, under a decision that says epoch 6.)
 */
static void
test_fast_handover_elector_wake(void)
{
    fast_refused(0, 2);
}

/*
 * A wake of one write, but `elected` moved twice since n2 read it: the
 * decision that woke it is not the one over what it read. Its create checks
 * `elected` one above that version: refused, nothing created before n2 has
 * read the decision. (With that check left out, n2 created the leader
 * znode at epoch 2 under a decision that says epoch 6.)
 */
static void
test_fast_handover_newer_decision(void)
{
    fast_refused(1, 1);
}

/* The version of ID's election znode (-1: none). */
static int
election_version(const char *id)
{
    char name[128], path[256];

    if (!*election_name(id, name, sizeof(name)))
        return -1;
    snprintf(path, sizeof(path), "/g/election/%s", name);
    return fakezk_version(path);
}

/*
 * The standing successor (doc/PROTOCOL.md §4). In a group whose members
 * follow nothing (zkelectd's: ZKELECT_GROUP_NO_LEADER_EVENTS and no
 * subscription), the elector's succession write wakes the successor it
 * names, with two writes of its election znode, and nobody else: n2's is
 * at version 2, n3's at 0. n2 then follows, so when n1 resigns it creates
 * its leader znode with the release's notifications: the tree shows it
 * READY at epoch 2 before any reply has reached n2, and it counts a fast
 * handover. n3 sends at most the re-arm of its watch on n2's election
 * znode (its predecessor, written by the wake). Once n2 leads, the succession
 * names n3, which is woken in turn (version 2). n2's takeover callback,
 * which runs before n2 has read the handover's decision, is told the
 * previous leader (n1), the reason and n1's host all the same (before,
 * the decision in its view was the one before: no previous, its reason).
 * (Before, no succession
 * woke anybody: n2 heard only the handover's wake, read `elected` before
 * its create, and took no fast handover.)
 */
static void
test_standing_successor_fast(void)
{
    char buf[256];
    uint64_t fast, refused;
    int64_t sid2, sid3;
    int before3;

    four_quiet_nodes();
    CU_ASSERT(fz_znode_has("/g/successor", "\"successor\":\"n2\""));
    CU_ASSERT_EQUAL(election_version("n2"), 2);
    CU_ASSERT_EQUAL(election_version("n3"), 0);
    sid2 = fz_sid(&N[2]);
    sid3 = fz_sid(&N[3]);
    before3 = fakezk_requests(sid3);
    N[2].grp[0].takeover_host_of = "n1";
    fakezk_hold(sid2, true);
    zkelect_unnominate(N[1].grp[0].g, 0);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);  /* all but n2 */
    CU_ASSERT(fz_znode_has("/g/elected", "handover: n1 resigned"));
    CU_ASSERT(!fakezk_exists("/g/leader"));
    CU_ASSERT(fakezk_requests(sid3) - before3 <= 1);
    fakezk_hold(sid2, false);
    CU_ASSERT_FATAL(fz_deliver_until(sid2, "reply "));
    CU_ASSERT_STRING_EQUAL(fz_tree_leader("/g", buf, sizeof(buf)), "n2:READY:2");
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT(fz_is_ready(&N[2], 0));
    CU_ASSERT_EQUAL(fz_count(&N[2], 0, ZKELECT_EV_READY), 1);
    fast_counts(2, &fast, &refused);
    CU_ASSERT_EQUAL(fast, 1);
    CU_ASSERT_EQUAL(refused, 0);
    /* its takeover callback, called before it has read the decision, is
       told who led before and why, and the leaver's host, as after a read */
    CU_ASSERT_STRING_EQUAL(N[2].grp[0].takeover_previous, "n1");
    CU_ASSERT_STRING_EQUAL(N[2].grp[0].takeover_reason, "handover: n1 resigned; n2 is its successor");
    CU_ASSERT_EQUAL(N[2].grp[0].takeover_host_rc, 0);
    CU_ASSERT_STRING_EQUAL(N[2].grp[0].takeover_host, "fakehost");
    CU_ASSERT(fz_znode_has("/g/successor", "\"successor\":\"n3\""));
    CU_ASSERT_EQUAL(election_version("n3"), 2);
    fz_end();
}

/* Whether ID's election znode holds DATA. */
static bool
election_data_is(const char *id, const char *data)
{
    char name[128], path[256], buf[256];
    int len;

    if (!*election_name(id, name, sizeof(name)))
        return false;
    snprintf(path, sizeof(path), "/g/election/%s", name);
    len = fakezk_get(path, buf, sizeof(buf) - 1);
    if (len < 0)
        return false;
    buf[len] = '\0';
    return strcmp(buf, data) == 0;
}

/*
 * The standing successor named no more: n2 is drained, the succession
 * names n3, and the same multi names n3 ("n3 successor") and gives n2 its
 * id back. n2 stops following: when n1 then hands over to n3 (a fast
 * handover: n3 follows), n2 sends only what its predecessor's leave asks
 * (n1 was before it in the election order: a listing and an exists), no
 * read of `elected` or of the leader znode. (Without the naming back, n2
 * went on following: it read both.)
 */
static void
test_standing_successor_renamed(void)
{
    static const char *const n2[] = {"n2", NULL};
    uint64_t fast, refused;
    int64_t sid2;
    int before2;

    four_quiet_nodes();
    CU_ASSERT(election_data_is("n2", "n2 successor"));
    CU_ASSERT(election_data_is("n3", "n3"));
    drain(n2);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT(fz_znode_has("/g/successor", "\"successor\":\"n3\""));
    CU_ASSERT(election_data_is("n2", "n2"));
    CU_ASSERT(election_data_is("n3", "n3 successor"));
    CU_ASSERT_EQUAL(election_version("n2"), 4);
    CU_ASSERT_EQUAL(election_version("n3"), 2);
    sid2 = fz_sid(&N[2]);
    before2 = fakezk_requests(sid2);
    zkelect_unnominate(N[1].grp[0].g, 0);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT(fz_is_ready(&N[3], 0));
    fast_counts(3, &fast, &refused);
    CU_ASSERT_EQUAL(fast, 1);
    CU_ASSERT(fakezk_requests(sid2) - before2 <= 2);
    if (fakezk_requests(sid2) - before2 > 2)
        fprintf(stderr, "  n2: %d requests\n", fakezk_requests(sid2) - before2);
    fz_end();
}

/*
 * Nobody left to name: n2 and n3 are both drained, the succession is
 * empty, and its write gives n2 its id back (the multi, not the plain
 * overwrite of an empty succession). (Before, n2 stayed named and went on
 * following.)
 */
static void
test_standing_successor_none(void)
{
    static const char *const n2n3[] = {"n2", "n3", NULL};

    four_quiet_nodes();
    CU_ASSERT(election_data_is("n2", "n2 successor"));
    drain(n2n3);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT(!fz_znode_has("/g/successor", "\"successor\":\"n"));
    CU_ASSERT(election_data_is("n2", "n2"));
    CU_ASSERT(election_data_is("n3", "n3"));
    CU_ASSERT(fz_is_ready(&N[1], 0));
    fz_end();
}

/*
 * The elector names whom a decision's wake gave its id back: n5 (the
 * elector, READY) names n1, a switchover elects n1 (the decision's wake
 * writes "n1"), a second one n5 again, whose succession names n1 anew
 * ("n1 successor"); n5 resigns and n1 takes the handover fast. (Before,
 * the elector still counted n1 as named: no naming, n1 followed nothing,
 * and read the decision before its create.) Found by a review.
 */
static void
test_standing_successor_elected_then_named(void)
{
    static const char sw1[] = "{\"v\":1,\"id\":1,\"to\":\"n1\",\"at_ms\":0,\"by\":\"t\"}";
    static const char sw2[] = "{\"v\":1,\"id\":2,\"to\":\"n5\",\"at_ms\":0,\"by\":\"t\"}";
    uint64_t fast, refused;

    n5_leads_n1_joins(FZ_QUIET_NOEVENTS);
    CU_ASSERT(election_data_is("n1", "n1 successor"));
    CU_ASSERT(fakezk_create("/g/switchover", sw1, (int)strlen(sw1), 0) == 0);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT_FATAL(fz_is_ready(&N[1], 0));
    CU_ASSERT(election_data_is("n1", "n1"));
    CU_ASSERT(fakezk_set("/g/switchover", sw2, (int)strlen(sw2)) == 0);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT_FATAL(fz_is_ready(&N[0], 0));
    CU_ASSERT(election_data_is("n1", "n1 successor"));
    zkelect_unnominate(N[0].grp[0].g, 0);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT(fz_is_ready(&N[1], 0));
    fast_counts(1, &fast, &refused);
    CU_ASSERT_EQUAL(fast, 1);
    fz_end();
}

/*
 * A named member that unnominates and keeps its group open (an observer
 * now) follows no more: over a leader change (a switchover to n3) it sends
 * nothing. (Before, it went on following `elected` and the leader znode:
 * 4 requests a change.) Found by a review.
 */
static void
test_standing_successor_left(void)
{
    static const char sw[] = "{\"v\":1,\"id\":1,\"to\":\"n3\",\"at_ms\":0,\"by\":\"t\"}";
    int64_t sid2;
    int before2;

    four_quiet_nodes();
    CU_ASSERT(election_data_is("n2", "n2 successor"));
    zkelect_unnominate(N[2].grp[0].g, 0);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT(!fz_registered(&N[2], 0));
    sid2 = fz_sid(&N[2]);
    before2 = fakezk_requests(sid2);
    CU_ASSERT(fakezk_create("/g/switchover", sw, (int)strlen(sw), 0) == 0);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT(fz_is_ready(&N[3], 0));
    CU_ASSERT_EQUAL(fakezk_requests(sid2) - before2, 0);
    if (fakezk_requests(sid2) != before2)
        fprintf(stderr, "  n2: %d requests\n", fakezk_requests(sid2) - before2);
    fz_end();
}

/*
 * A switchover request is pending when the leader resigns: the handover
 * goes to the successor (it does not acknowledge the request), and the
 * elector then acts on the request. Its decision's multi also appends the
 * handover's history entry, which it had not written yet: the history has
 * both. (Before, the history lost the handover's entry.)
 */
static void
test_handover_then_decision_history(void)
{
    static const char sw[] = "{\"v\":1,\"id\":1,\"to\":\"n3\",\"at_ms\":0,\"by\":\"t\"}";

    fz_begin();
    four_nodes();
    fakezk_hold(fz_sid(&N[0]), true);  /* the elector hears of both at once */
    if (fakezk_exists("/g/switchover")) {
        CU_ASSERT(fakezk_set("/g/switchover", sw, (int)strlen(sw)) == 0);
    } else {
        CU_ASSERT(fakezk_create("/g/switchover", sw, (int)strlen(sw), 0) == 0);
    }
    zkelect_unnominate(N[1].grp[0].g, 0);
    fz_flush();
    fakezk_hold(fz_sid(&N[0]), false);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT(fz_is_ready(&N[3], 0));
    CU_ASSERT(fz_znode_has("/g/history", "handover: n1 resigned"));
    CU_ASSERT(fz_znode_has("/g/history", "switchover"));
    fz_end();
}

/* The succession follows the members: n2 (the successor, not the leader)
   leaves, and `successor` names n3 next. */
static void
test_succession_follows_members(void)
{
    fz_begin();
    four_nodes();
    CU_ASSERT(fz_znode_has("/g/successor", "\"successor\":\"n2\""));
    zkelect_unnominate(N[2].grp[0].g, 0);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT(fz_znode_has("/g/successor", "\"successor\":\"n3\""));
    CU_ASSERT(fz_is_ready(&N[1], 0));
    CU_ASSERT_EQUAL(fz_count(&N[0], 0, ZKELECT_EV_DECISION), 1);
    fz_end();
}

/*
 * `elected` changes (an acknowledgement: same leader, new version) while the
 * leader's view has not caught up, and the leader resigns on that view: its
 * handover multi is refused (the version it checks is gone), it leaves
 * without it, and the elector decides as before issue 18. Nothing acts on
 * the refused decision: n2 takes over once, at the elector's epoch.
 */
static void
test_handover_refused(void)
{
    char data[4096];
    int64_t sid;
    int len;

    fz_begin();
    four_nodes();
    sid = fz_sid(&N[1]);
    fakezk_hold(sid, true);              /* n1 hears nothing of what follows */
    len = fakezk_get("/g/elected", data, sizeof(data));
    CU_ASSERT_FATAL(len > 0);
    CU_ASSERT(fakezk_set("/g/elected", data, len) == 0);
    zkelect_unnominate(N[1].grp[0].g, 0);
    fz_flush();
    fakezk_hold(sid, false);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT(fz_is_ready(&N[2], 0));
    CU_ASSERT_EQUAL(fz_count(&N[2], 0, ZKELECT_EV_TAKEOVER), 1);
    CU_ASSERT(!fz_znode_has("/g/elected", "handover:"));
    CU_ASSERT(fz_znode_has("/g/elected", "\"leader\":\"n2\""));
    CU_ASSERT_EQUAL(fz_count(&N[0], 0, ZKELECT_EV_DECISION), 2);
    CU_ASSERT(!fz_registered(&N[1], 0));
    fz_end();
}

/*
 * A garbled `successor` (a foreign client): the leader says so
 * (-malformed names the znode) and resigns without a handover; the elector
 * decides, and rewrites the succession.
 */
static void
test_successor_malformed(void)
{
    static const char junk[] = "{\"v\":1,\"elected_version\":\"x\"}";

    fz_begin();
    four_nodes();
    CU_ASSERT(fakezk_set("/g/successor", junk, (int)strlen(junk)) == 0);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT(fz_count(&N[1], 0, ZKELECT_EV_MALFORMED) >= 1);
    zkelect_unnominate(N[1].grp[0].g, 0);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT(fz_is_ready(&N[2], 0));
    CU_ASSERT(!fz_znode_has("/g/elected", "handover:"));
    CU_ASSERT(fz_znode_has("/g/successor", "\"successor\":\"n3\""));
    fz_end();
}

/*
 * The succession is valid for one version of the history too: a decision
 * always writes the history, also one over an `elected` that was deleted
 * and written again (its version starts over). Here the history moves while
 * the elector hears nothing (so the succession stays as it was): the
 * leader's handover is refused and it leaves the ordinary way.
 */
static void
test_handover_history_moved(void)
{
    char data[16384];
    int len;

    fz_begin();
    four_nodes();
    CU_ASSERT(fz_znode_has("/g/successor", "\"successor\":\"n2\""));
    fakezk_hold(fz_sid(&N[0]), true);  /* the elector hears nothing of it */
    len = fakezk_get("/g/history", data, sizeof(data));
    CU_ASSERT_FATAL(len > 0);
    CU_ASSERT(fakezk_set("/g/history", data, len) == 0);
    zkelect_unnominate(N[1].grp[0].g, 0);
    fz_flush();
    fakezk_hold(fz_sid(&N[0]), false);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT(fz_is_ready(&N[2], 0));
    CU_ASSERT(!fz_znode_has("/g/elected", "handover:"));
    CU_ASSERT_EQUAL(fz_count(&N[0], 0, ZKELECT_EV_DECISION), 2);
    CU_ASSERT(!fz_registered(&N[1], 0));
    fz_end();
}

/*
 * A succession is made on the rules and on the successor's own record as
 * they were: a drain (config) or a change of the successor's record since
 * then refuses the handover, even before the elector has heard of it. The
 * elector, hearing nothing meanwhile, cannot have rewritten the succession:
 * n1 leaves the ordinary way and the elector decides on what is now true.
 */
static void
handover_after_change(int what)
{
    char data[4096];
    int len;

    fz_begin();
    four_nodes();
    CU_ASSERT_FATAL(fz_znode_has("/g/successor", "\"successor\":\"n2\""));
    fakezk_hold(fz_sid(&N[0]), true);  /* the elector hears nothing of it */
    if (what == 0) {
        static const char *const n2[] = {"n2", NULL};
        drain(n2);                     /* n2 drained until 2100 */
    } else {
        /* n2's record rewritten (the same data: any change counts) */
        len = fakezk_get("/g/nodes/n2", data, sizeof(data));
        CU_ASSERT_FATAL(len > 0);
        CU_ASSERT(fakezk_set("/g/nodes/n2", data, len) == 0);
    }
    zkelect_unnominate(N[1].grp[0].g, 0);
    fz_flush();
    fakezk_hold(fz_sid(&N[0]), false);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT(!fz_znode_has("/g/elected", "handover:"));
    CU_ASSERT(!fz_registered(&N[1], 0));
    if (what == 0) {
        CU_ASSERT(fz_is_ready(&N[3], 0));  /* n3: n2 is drained */
        /* the elector's decision is the first after n1's: no epoch went to
           a handover to n2 in between */
        CU_ASSERT(fz_znode_has("/g/elected", "\"epoch\":2,"));
        CU_ASSERT_EQUAL(fz_count(&N[2], 0, ZKELECT_EV_TAKEOVER), 0);
    } else {
        CU_ASSERT(fz_is_ready(&N[2], 0));
    }
    fz_end();
}

static void test_handover_successor_drained(void) { handover_after_change(0); }
static void test_handover_successor_changed(void) { handover_after_change(1); }

/* ---- costs of a group's start --------------------------------------------- */

/* Delete PATH and everything under it (the tree as another client). */
static void
rm_rf(const char *path)
{
    char pre[512], leaf[512], next[512];
    int guard = 0;

    snprintf(pre, sizeof(pre), "%s/", path);
    while (fakezk_find(pre, leaf, sizeof(leaf)) && guard++ < 1000) {
        /* down to a leaf, then delete it */
        for (;;) {
            char sub[520];
            snprintf(sub, sizeof(sub), "%s/", leaf);
            if (!fakezk_find(sub, next, sizeof(next)))
                break;
            snprintf(leaf, sizeof(leaf), "%s", next);
        }
        if (fakezk_delete(leaf) != 0)
            break;
    }
    fakezk_delete(path);
}

/*
 * The ancestors of a base path are created once per parent and handle: the
 * second group under /p/q sends neither "create /p" nor "create /p/q". If
 * someone removed them meanwhile, the registration's ZNONODE brings the
 * full creation back and the group registers.
 */
static void
test_ancestors_once(void)
{
    int64_t sid;
    int before, first, second;

    fz_begin();
    CU_ASSERT_FATAL(fz_node_open(&N[0], "n1", "/p/q/g", 3) == 0);
    fz_settle(SETTLE_MS);
    sid = fz_sid(&N[0]);
    before = fakezk_requests(sid);
    fz_nominate(&N[0], 0, 10);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    first = fakezk_requests(sid) - before;
    CU_ASSERT(fz_is_ready(&N[0], 0));
    before = fakezk_requests(sid);
    fz_nominate(&N[0], 1, 10);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    second = fakezk_requests(sid) - before;
    CU_ASSERT(fz_is_ready(&N[0], 1));
    CU_ASSERT_EQUAL(second, first - 2);
    /* /p/q removed under the handle's feet (its groups with it) */
    zkelect_unnominate(N[0].grp[0].g, 0);
    zkelect_unnominate(N[0].grp[1].g, 0);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    rm_rf("/p");
    CU_ASSERT(!fakezk_exists("/p"));
    fz_nominate(&N[0], 2, 10);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT(fz_registered(&N[0], 2));
    CU_ASSERT(fz_is_ready(&N[0], 2));
    fz_end();
}

/* ---- the operator's direct switchover (doc/PROTOCOL.md §4) ---------------- */

/* An operator's session on the fake, and what its switchover wrote. */
struct dso {
    zhandle_t *zh;
    const char *to;          /* --to, or NULL */
    int rc;                  /* the multi's, or -1000 when refused before it */
};

/* As `zkelect switchover` does: read the view, and, when the succession
   covers the request, write the decision (blocks: run by fz_run_settling). */
static int
dso_fn(void *arg)
{
    struct dso *d = arg;
    struct zke_elected e;
    struct zke_successor s;
    struct zke_switchover so;
    char buf[8192];
    int len;

    d->rc = -1000;
    memset(&so, 0, sizeof(so));
    if ((len = fakezk_get("/g/elected", buf, sizeof(buf))) <= 0 ||
        zke_elected_decode(buf, len, &e, NULL, 0) != 0 ||
        (len = fakezk_get("/g/successor", buf, sizeof(buf))) <= 0 ||
        zke_successor_decode(buf, len, &s, NULL, 0) != 0)
        return d->rc;
    so.id = e.switchover_id + 1;
    snprintf(so.by, sizeof(so.by), "operator");
    if (d->to)
        snprintf(so.to, sizeof(so.to), "%s", d->to);
    if (zke_direct_switchover_refusal(&e, fakezk_version("/g/elected"), &s, &so, 1) == NULL)
        d->rc = zke_direct_switchover(d->zh, "/g", &e, fakezk_version("/g/elected"), &s,
                                      fakezk_version("/g/successor"), &so,
                                      fakezk_version("/g/switchover"), NULL);
    return d->rc;
}

static int
direct_switchover(const char *to)
{
    struct dso d = {NULL, to, -1000};

    d.zh = zookeeper_init("fake", NULL, 10000, NULL, NULL, 0);
    CU_ASSERT_FATAL(d.zh != NULL);
    fz_run_settling(dso_fn, &d, SETTLE_MS);
    zookeeper_close(d.zh);
    return d.rc;
}

static bool
history_has_operator(void *arg)
{
    (void)arg;
    return fz_znode_has("/g/history", "written by the operator");
}

/*
 * n1 leads, n2 is the standing successor, and a switchover (with no target,
 * nodeid: the lowest other id) goes there too: the succession says so. The
 * operator's write is the decision: n1 steps down and releases, n2 takes
 * over at epoch 2, and the elector writes no decision of its own (its one
 * +decision is its first); it appends the history entry and records n2's
 * successor, n1, which stays a member. A second switchover, to n3, is not
 * where the policy sends one: refused before any write. (Before, the
 * succession had no mark, and every switchover went through the elector.)
 */
static void
test_direct_switchover(void)
{
    fz_begin();
    fz_takeover_noop = true;
    four_nodes();
    CU_ASSERT(fz_znode_has("/g/successor", "\"successor\":\"n2\""));
    CU_ASSERT(fz_znode_has("/g/successor", "\"switchover\":true"));
    CU_ASSERT_EQUAL(direct_switchover(NULL), ZOK);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT(fz_is_ready(&N[2], 0));
    CU_ASSERT(!fz_is_ready(&N[1], 0));
    CU_ASSERT(fz_registered(&N[1], 0));
    CU_ASSERT_EQUAL(fz_count(&N[1], 0, ZKELECT_EV_STEPDOWN), 1);
    CU_ASSERT_EQUAL(fz_count(&N[2], 0, ZKELECT_EV_READY), 1);
    CU_ASSERT(fz_znode_has("/g/elected", "\"leader\":\"n2\""));
    CU_ASSERT(fz_znode_has("/g/elected", "\"epoch\":2"));
    CU_ASSERT(fz_znode_has("/g/elected", "\"switchover_id\":1"));
    CU_ASSERT(fz_znode_has("/g/switchover", "\"id\":1"));
    CU_ASSERT_EQUAL(fz_count(&N[0], 0, ZKELECT_EV_DECISION), 1);
    CU_ASSERT(history_has_operator(NULL));
    CU_ASSERT(fz_znode_has("/g/successor", "\"leader\":\"n2\""));
    CU_ASSERT(fz_znode_has("/g/successor", "\"successor\":\"n1\""));
    CU_ASSERT_EQUAL(direct_switchover("n3"), -1000);
    fz_end();
}

/*
 * The elector's history entry and next succession wait for the transition
 * (succession_waits): n2 is silent, so its leader znode does not come; the
 * elector writes them ZKE_PAUSE_MS after it began to guard epoch 2, not at
 * once (where they would meet n1's release and n2's create), and not never.
 * n2 then takes over.
 */
static void
test_direct_switchover_waits(void)
{
    int64_t sid2;
    uint64_t t0;

    sid2 = n2_silent(0, 0);
    t0 = fz_now_ms();
    CU_ASSERT_EQUAL(direct_switchover(NULL), ZOK);
    CU_ASSERT(fz_settle_until(history_has_operator, NULL, 10000) == 0);
    CU_ASSERT(fz_now_ms() - t0 >= ZKE_PAUSE_MS);
    CU_ASSERT(!fakezk_exists("/g/leader"));
    n2_takes_over(sid2);
    fz_end();
}

static CU_TestInfo handover_tests[] = {
    {"noop_created_ready", test_noop_created_ready},
    {"callback_not_pipelined", test_callback_not_pipelined},
    {"noop_create_refused", test_noop_create_refused},
    {"noop_deferred_callback", test_noop_deferred_callback},
    {"noop_callback_fails", test_noop_callback_fails},
    {"noop_cleared", test_noop_cleared},
    {"noop_three_nodes_handover", test_noop_three_nodes_handover},
    {"direct_handover", test_direct_handover},
    {"direct_handover_pipelined", test_direct_handover_pipelined},
    {"elector_steps_aside", test_elector_steps_aside},
    {"elector_pause_bounded", test_elector_pause_bounded},
    {"pause_session_close", test_pause_session_close},
    {"elector_successor_no_pause", test_elector_successor_no_pause},
    {"fast_handover_elector_wake", test_fast_handover_elector_wake},
    {"fast_handover_newer_decision", test_fast_handover_newer_decision},
    {"standing_successor_fast", test_standing_successor_fast},
    {"standing_successor_renamed", test_standing_successor_renamed},
    {"standing_successor_none", test_standing_successor_none},
    {"standing_successor_elected_then_named", test_standing_successor_elected_then_named},
    {"standing_successor_left", test_standing_successor_left},
    {"handover_then_decision_history", test_handover_then_decision_history},
    {"succession_follows_members", test_succession_follows_members},
    {"handover_refused", test_handover_refused},
    {"successor_malformed", test_successor_malformed},
    {"handover_history_moved", test_handover_history_moved},
    {"handover_successor_drained", test_handover_successor_drained},
    {"handover_successor_changed", test_handover_successor_changed},
    {"ancestors_once", test_ancestors_once},
    {"direct_switchover", test_direct_switchover},
    {"direct_switchover_waits", test_direct_switchover_waits},
    CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
    {"handover", NULL, NULL, NULL, NULL, handover_tests},
    CU_SUITE_INFO_NULL,
};

int
main(int argc, char **argv)
{
    return cutest_main(argc, argv, suites);
}
