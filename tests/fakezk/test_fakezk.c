/*
 * test_fakezk.c - the fake ZooKeeper's own semantics (through the ZooKeeper
 * client API), and libzkelect's roles against it: registration, the
 * elector's decision, the takeover PROGRESS -> READY (at once or later),
 * WAITING for the old leader's step-down, takeover failed, the watchdog,
 * foreign deletions and garbage, disconnect and reconnect on the same
 * session, expiry. Public API only, plus the fake's control API.
 *
 * Run one test: tests/fakezk/test_fakezk roles:expiry
 * Environment, for debugging:
 *   FAKEZK_VERBOSE=1      the library's log and events, and the tree on failures
 *   FAKEZK_TRACE=1        every request the fake receives and every delivery
 *   FAKEZK_LIVENESS_MS=n  how long a repaired state is awaited (default 1500)
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zookeeper/zookeeper.h>

#include "cutest.h"
#include "harness.h"
#include "internal.h"   /* zke_call: a library thread stuck in a callback */

#define SETTLE_MS 20000

static struct fz_node N[6];

/* ---- the fake itself, through the ZooKeeper client API ------------------------------- */

struct rec {
    char log[2048];
    char path[256];
    int rc;
};

static void
w_rec(zhandle_t *zh, int type, int state, const char *path, void *ctx)
{
    struct rec *r = ctx;
    size_t o = strlen(r->log);

    (void)zh;
    if (type == ZOO_SESSION_EVENT)
        snprintf(r->log + o, sizeof(r->log) - o, "S%d ", state);
    else
        snprintf(r->log + o, sizeof(r->log) - o, "W%s:%d ", path, type);
}

static void
c_str(int rc, const char *value, const void *data)
{
    struct rec *r = (struct rec *)data;
    r->rc = rc;
    snprintf(r->path, sizeof(r->path), "%s", value ? value : "");
}

static void
c_void(int rc, const void *data)
{
    ((struct rec *)data)->rc = rc;
}

static void
c_stat(int rc, const struct Stat *st, const void *data)
{
    struct rec *r = (struct rec *)data;
    r->rc = rc;
    snprintf(r->path, sizeof(r->path), "v%d", st ? st->version : -1);
}

static void
test_fake_semantics(void)
{
    struct rec w1 = {{0}, {0}, 0}, w2 = {{0}, {0}, 0}, r = {{0}, {0}, 0};
    zhandle_t *z1, *z2;
    zoo_op_t ops[2];
    zoo_op_result_t res[2];
    char buf[64];
    int64_t s1;

    fz_begin();
    z1 = zookeeper_init("fake:1", w_rec, 4000, NULL, &w1, 0);
    z2 = zookeeper_init("fake:1", w_rec, 4000, NULL, &w2, 0);
    CU_ASSERT_FATAL(z1 != NULL && z2 != NULL);
    CU_ASSERT_STRING_EQUAL(w1.log, "S3 ");          /* CONNECTED at once */
    s1 = zoo_client_id(z1)->client_id;

    /* create, sequential names from the parent's cversion */
    CU_ASSERT(zoo_acreate(z1, "/a", "x", 1, &ZOO_OPEN_ACL_UNSAFE, 0, c_str, &r) == ZOK);
    CU_ASSERT(fakezk_deliver_all() == 1);
    CU_ASSERT(r.rc == ZOK);
    CU_ASSERT_STRING_EQUAL(r.path, "/a");
    zoo_acreate(z1, "/a/s_", "", 0, &ZOO_OPEN_ACL_UNSAFE, ZOO_EPHEMERAL_SEQUENTIAL, c_str, &r);
    fakezk_deliver_all();
    CU_ASSERT_STRING_EQUAL(r.path, "/a/s_0000000000");
    zoo_acreate(z1, "/a/s_", "", 0, &ZOO_OPEN_ACL_UNSAFE, ZOO_EPHEMERAL_SEQUENTIAL, c_str, &r);
    fakezk_deliver_all();
    CU_ASSERT_STRING_EQUAL(r.path, "/a/s_0000000001");
    CU_ASSERT(fakezk_owner("/a/s_0000000001") == s1);
    zoo_acreate(z1, "/a/s_0000000001/c", "", 0, &ZOO_OPEN_ACL_UNSAFE, 0, c_str, &r);
    fakezk_deliver_all();
    CU_ASSERT(r.rc == ZNOCHILDRENFOREPHEMERALS);
    zoo_acreate(z1, "/nope/x", "", 0, &ZOO_OPEN_ACL_UNSAFE, 0, c_str, &r);
    fakezk_deliver_all();
    CU_ASSERT(r.rc == ZNONODE);

    /* multi: all or nothing */
    zoo_create_op_init(&ops[0], "/a/m", "", 0, &ZOO_OPEN_ACL_UNSAFE, 0, buf, sizeof(buf));
    zoo_check_op_init(&ops[1], "/a", 5);
    zoo_amulti(z1, 2, ops, res, c_void, &r);
    fakezk_deliver_all();
    CU_ASSERT(r.rc == ZBADVERSION);
    CU_ASSERT(res[0].err == ZOK && res[1].err == ZBADVERSION);
    CU_ASSERT(!fakezk_exists("/a/m"));
    zoo_check_op_init(&ops[1], "/a", 0);
    zoo_amulti(z1, 2, ops, res, c_void, &r);
    fakezk_deliver_all();
    CU_ASSERT(r.rc == ZOK && fakezk_exists("/a/m"));
    CU_ASSERT_STRING_EQUAL(buf, "/a/m");

    /* watches: exists on a missing node fires CREATED; data watches fire
       once; a child watch fires on a child's creation */
    zoo_aexists(z2, "/a/w", 1, c_stat, &r);
    fakezk_deliver_all();
    CU_ASSERT(r.rc == ZNONODE);
    zoo_acreate(z1, "/a/w", "", 0, &ZOO_OPEN_ACL_UNSAFE, 0, c_str, &r);
    zoo_aset(z1, "/a/w", "y", 1, -1, c_stat, &r);
    fakezk_deliver_all();
    CU_ASSERT_STRING_EQUAL(w2.log, "S3 W/a/w:1 ");  /* CREATED only: one-shot */
    CU_ASSERT_STRING_EQUAL(r.path, "v1");
    zoo_aset(z1, "/a/w", "z", 1, 0, c_stat, &r);  /* stale version */
    fakezk_deliver_all();
    CU_ASSERT(r.rc == ZBADVERSION);

    /* connection loss, applied: the znode exists, the reply says
       ZCONNECTIONLOSS, CONNECTING follows; a request sent meanwhile fails */
    fakezk_fail_nth(s1, 1, true, FZ_BACK);
    zoo_acreate(z1, "/a/lost", "", 0, &ZOO_OPEN_ACL_UNSAFE, 0, c_str, &r);
    CU_ASSERT(fakezk_fault_fired());
    CU_ASSERT(fakezk_exists("/a/lost"));
    CU_ASSERT_STRING_EQUAL(fakezk_peek(s1, buf, sizeof(buf)), "reply create /a/lost rc=-4");
    zoo_adelete(z1, "/a/lost", -1, c_void, &r);
    memset(w1.log, 0, sizeof(w1.log));
    CU_ASSERT(fakezk_deliver_one(s1) == 1);
    CU_ASSERT(r.rc == ZCONNECTIONLOSS);
    fakezk_deliver_all();
    CU_ASSERT_STRING_EQUAL(w1.log, "S1 ");
    CU_ASSERT(r.rc == ZCONNECTIONLOSS && fakezk_exists("/a/lost"));
    CU_ASSERT(fakezk_reconnect(s1, FZ_BACK) == 0);
    fakezk_deliver_all();
    CU_ASSERT_STRING_EQUAL(w1.log, "S1 S3 ");

    /* a change missed while disconnected fires after the reconnect */
    zoo_aexists(z1, "/a/later", 1, c_stat, &r);
    fakezk_deliver_all();
    fakezk_disconnect(s1, FZ_BACK);
    fakezk_create("/a/later", "", 0, 0);
    fakezk_deliver_all();
    CU_ASSERT_STRING_EQUAL(w1.log, "S1 S3 S1 ");
    fakezk_reconnect(s1, FZ_BACK);
    fakezk_deliver_all();
    CU_ASSERT_STRING_EQUAL(w1.log, "S1 S3 S1 S3 W/a/later:1 ");

    /* a watch set by a read whose reply was lost is not re-armed: the client
       never learnt of it */
    fakezk_fail_nth(s1, 1, true, FZ_BACK);
    zoo_aexists(z1, "/a/unknown", 1, c_stat, &r);
    fakezk_deliver_all();
    CU_ASSERT(r.rc == ZCONNECTIONLOSS);
    fakezk_reconnect(s1, FZ_BACK);
    fakezk_create("/a/unknown", "", 0, 0);
    fakezk_deliver_all();
    CU_ASSERT_STRING_EQUAL(w1.log, "S1 S3 S1 S3 W/a/later:1 S1 S3 ");

    /* expiry: ephemerals go (others' watches fire), the handle is dead */
    zoo_aexists(z2, "/a/s_0000000000", 1, c_stat, &r);
    fakezk_deliver_all();
    memset(w2.log, 0, sizeof(w2.log));
    CU_ASSERT(fakezk_expire(s1) == 0);
    CU_ASSERT(!fakezk_exists("/a/s_0000000000") && !fakezk_exists("/a/s_0000000001"));
    fakezk_deliver_all();
    CU_ASSERT_STRING_EQUAL(w2.log, "W/a/s_0000000000:2 ");
    CU_ASSERT(strstr(w1.log, "S-112 ") != NULL);
    CU_ASSERT(zoo_aexists(z1, "/a", 0, c_stat, &r) == ZINVALIDSTATE);
    zookeeper_close(z1);
    zookeeper_close(z2);
    fz_end();
}

/* ---- roles -------------------------------------------------------------------- */

/* One node: registration, elector, decision, takeover PROGRESS -> READY. */
static void
test_single_node_ready(void)
{
    char buf[128];

    fz_begin();
    CU_ASSERT_FATAL(fz_node_open(&N[0], "n1", "/g", 1) == 0);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT(!fz_registered(&N[0], 0));
    CU_ASSERT(fz_nominate(&N[0], 0, 10) == 0);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT(N[0].grp[0].nominate_done && N[0].grp[0].nominate_err == 0);
    CU_ASSERT(fz_registered(&N[0], 0));
    CU_ASSERT(fz_is_elector(&N[0], 0));
    CU_ASSERT(fz_count(&N[0], 0, ZKELECT_EV_REGISTERED) == 1);
    CU_ASSERT(fz_count(&N[0], 0, ZKELECT_EV_ELECTOR) == 1);
    CU_ASSERT(fz_count(&N[0], 0, ZKELECT_EV_DECISION) == 1);
    CU_ASSERT(fz_count(&N[0], 0, ZKELECT_EV_TAKEOVER) == 1);
    CU_ASSERT(fz_count(&N[0], 0, ZKELECT_EV_READY) == 1);
    CU_ASSERT(fz_is_ready(&N[0], 0));
    CU_ASSERT(fz_member_znode("/g", "n1"));
    CU_ASSERT(fz_election_children("/g", "n1") == 1);
    CU_ASSERT(fakezk_owner("/g/nodes/n1") == fz_sid(&N[0]));
    CU_ASSERT(fakezk_owner("/g/leader") == fz_sid(&N[0]));
    CU_ASSERT_STRING_EQUAL(fz_tree_leader("/g", buf, sizeof(buf)), "n1:READY:1");
    fz_end();
}

/* The takeover completes later (EBUSY, then zkelect_takeover_done): the
 * leader znode stays PROGRESS until then. */
static void
test_deferred_takeover(void)
{
    char buf[128];

    fz_begin();
    CU_ASSERT_FATAL(fz_node_open(&N[0], "n1", "/g", 1) == 0);
    N[0].grp[0].takeover_mode = ZKELECT_EBUSY;
    fz_nominate(&N[0], 0, 10);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT(fz_count(&N[0], 0, ZKELECT_EV_TAKEOVER) == 1);
    CU_ASSERT(fz_count(&N[0], 0, ZKELECT_EV_READY) == 0);
    CU_ASSERT_STRING_EQUAL(fz_tree_leader("/g", buf, sizeof(buf)), "n1:PROGRESS:1");
    CU_ASSERT(zkelect_takeover_done(N[0].grp[0].g, N[0].grp[0].takeover_epoch, 0) == 0);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT(fz_count(&N[0], 0, ZKELECT_EV_READY) == 1);
    CU_ASSERT_STRING_EQUAL(fz_tree_leader("/g", buf, sizeof(buf)), "n1:READY:1");
    fz_end();
}

/* Three nodes: one READY leader; it resigns, another takes over; the
 * resigned node's znodes are gone. */
static void
test_three_nodes_handover(void)
{
    const char *l;
    int k;

    fz_begin();
    for (k = 0; k < 3; k++) {
        char id[8];
        snprintf(id, sizeof(id), "n%d", k + 1);
        CU_ASSERT_FATAL(fz_node_open(&N[k], id, "/g", 1) == 0);
        fz_nominate(&N[k], 0, 10);
        CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    }
    l = fz_ready_leader(N, 3, 0);
    CU_ASSERT_FATAL(l != NULL);
    CU_ASSERT_STRING_EQUAL(l, "n1");
    CU_ASSERT(zkelect_unnominate(N[0].grp[0].g, 0) == ZKELECT_ETIMEDOUT);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT(fz_count(&N[0], 0, ZKELECT_EV_STEPDOWN) == 1);
    CU_ASSERT(fz_count(&N[0], 0, ZKELECT_EV_UNREGISTERED) == 1);
    CU_ASSERT(!fz_member_znode("/g", "n1"));
    CU_ASSERT(fz_election_children("/g", "n1") == 0);
    l = fz_ready_leader(N, 3, 0);
    CU_ASSERT(l != NULL && strcmp(l, "n1") != 0);
    if (l == NULL)
        fz_print_state("handover", N, 3);
    fz_end();
}

/* A READY leader disconnected and reconnected on the same session:
 * -suspended, then +resumed; still the READY leader. */
static void
test_reconnect_same_session(void)
{
    int64_t sid;

    fz_begin();
    CU_ASSERT_FATAL(fz_node_open(&N[0], "n1", "/g", 1) == 0);
    CU_ASSERT_FATAL(fz_node_open(&N[1], "n2", "/g", 1) == 0);
    fz_nominate(&N[0], 0, 10);
    fz_settle(SETTLE_MS);
    fz_nominate(&N[1], 0, 10);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT_FATAL(fz_is_ready(&N[0], 0));
    sid = fz_sid(&N[0]);
    CU_ASSERT(fakezk_disconnect(sid, FZ_BACK) == 0);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT(fz_count(&N[0], 0, ZKELECT_EV_DISCONNECTED) == 1);
    CU_ASSERT(fz_count(&N[0], 0, ZKELECT_EV_SUSPENDED) == 1);
    CU_ASSERT(!fz_is_ready(&N[0], 0));
    CU_ASSERT(fakezk_reconnect(sid, FZ_BACK) == 0);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT(fz_count(&N[0], 0, ZKELECT_EV_RESUMED) == 1);
    CU_ASSERT(fz_sid(&N[0]) == sid);
    CU_ASSERT(fz_is_ready(&N[0], 0));
    CU_ASSERT(!fz_is_ready(&N[1], 0));
    fz_end();
}

/* The leader's session expires: -session-expired, -leadership-lost; the
 * expired node registers again on a new session; one READY leader. */
static void
test_expiry(void)
{
    int64_t sid;

    fz_begin();
    CU_ASSERT_FATAL(fz_node_open(&N[0], "n1", "/g", 1) == 0);
    CU_ASSERT_FATAL(fz_node_open(&N[1], "n2", "/g", 1) == 0);
    fz_nominate(&N[0], 0, 10);
    fz_settle(SETTLE_MS);
    fz_nominate(&N[1], 0, 10);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT_FATAL(fz_is_ready(&N[0], 0));
    sid = fz_sid(&N[0]);
    CU_ASSERT(fakezk_expire(sid) == 0);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT(fz_count(&N[0], 0, ZKELECT_EV_EXPIRED) == 1);
    CU_ASSERT(fz_count(&N[0], 0, ZKELECT_EV_LOST) == 1);
    CU_ASSERT(fz_sid(&N[0]) != sid && fz_sid(&N[0]) != 0);
    CU_ASSERT(fz_count(&N[0], 0, ZKELECT_EV_REGISTERED) == 2);
    CU_ASSERT(fz_registered(&N[0], 0));
    /* nodeid: n1 (the lowest id) leads again, on its new session */
    CU_ASSERT(fz_ready_leader(N, 2, 0) != NULL);
    CU_ASSERT(fakezk_owner("/g/leader") == fz_sid(&N[0]) || fakezk_owner("/g/leader") == fz_sid(&N[1]));
    CU_ASSERT(fakezk_owner("/g/nodes/n1") == fz_sid(&N[0]));
    CU_ASSERT(fz_election_children("/g", "n1") == 1);
    fz_end();
}


/* Open n nodes n1..nN on /g and nominate them one after the other: n1 is
 * the elector and (nodeid: the lowest id) the READY leader. */
static void
open_group(int count)
{
    int k;

    for (k = 0; k < count; k++) {
        char id[8];
        snprintf(id, sizeof(id), "n%d", k + 1);
        CU_ASSERT_FATAL(fz_node_open(&N[k], id, "/g", 1) == 0);
        fz_nominate(&N[k], 0, 10);
        CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    }
}

/* An observer (a group that is not nominated) sees the leader. */
static void
test_observer_sees_leader(void)
{
    struct zkelect_leader l;

    fz_begin();
    open_group(1);
    CU_ASSERT_FATAL(fz_node_open(&N[1], "obs", "/g", 1) == 0);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT(zkelect_get_leader(N[1].grp[0].g, &l) == 0);
    CU_ASSERT_STRING_EQUAL(l.id, "n1");
    CU_ASSERT(l.status == ZKELECT_STATUS_READY);
    CU_ASSERT(!l.is_self);
    CU_ASSERT(fz_count(&N[1], 0, ZKELECT_EV_LEADER_CHANGED) >= 1);
    CU_ASSERT(!fz_registered(&N[1], 0));
    fz_end();
}

/* Handover while the old leader's step-down is still running: the new
 * elected node waits (role WAITING) for the leader znode to go, and takes
 * over only after zkelect_stepdown_done(). */
static void
test_handover_waits_for_old_leader(void)
{
    char buf[128];

    fz_begin();
    open_group(2);
    CU_ASSERT_FATAL(fz_is_ready(&N[0], 0));
    N[0].grp[0].stepdown_mode = ZKELECT_EBUSY;
    CU_ASSERT(zkelect_set_eligible(N[0].grp[0].g, 0) == 0);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT(fz_count(&N[0], 0, ZKELECT_EV_STEPDOWN) == 1);
    CU_ASSERT(N[0].grp[0].stepdown_epoch == 1);
    CU_ASSERT(!fz_is_ready(&N[1], 0));
    CU_ASSERT(fz_count(&N[1], 0, ZKELECT_EV_TAKEOVER) == 0);
    CU_ASSERT_STRING_EQUAL(fz_tree_leader("/g", buf, sizeof(buf)), "n1:READY:1");
    CU_ASSERT(zkelect_stepdown_done(N[0].grp[0].g, 1) == 0);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT(fz_is_ready(&N[1], 0));
    CU_ASSERT(!fz_is_ready(&N[0], 0));
    CU_ASSERT_STRING_EQUAL(fz_tree_leader("/g", buf, sizeof(buf)), "n2:READY:2");
    CU_ASSERT(fz_registered(&N[0], 0));   /* ineligible, still a member */
    fz_end();
}

/* A takeover that fails (zkelect_takeover_done with an error once the
 * elector has seen the PROGRESS znode): -takeover-failed, the PROGRESS znode
 * goes, and the elector excludes the node at once (+watchdog), without
 * waiting for the watchdog period. */
static bool
node_ready(void *arg)
{
    return fz_is_ready(arg, 0);
}

static bool
second_takeover(void *arg)
{
    return fz_count(arg, 0, ZKELECT_EV_TAKEOVER) >= 2;
}

static void
test_takeover_failed(void)
{
    fz_begin();
    CU_ASSERT_FATAL(fz_node_open(&N[0], "n1", "/g", 1) == 0);
    CU_ASSERT_FATAL(fz_node_open(&N[1], "n2", "/g", 1) == 0);
    CU_ASSERT_FATAL(fz_node_open(&N[2], "n3", "/g", 1) == 0);
    N[0].grp[0].takeover_mode = ZKELECT_EBUSY;
    fz_nominate(&N[1], 0, 10);     /* n2 first: the elector */
    fz_settle(SETTLE_MS);
    CU_ASSERT_FATAL(fz_is_ready(&N[1], 0));
    /* n1 joins, then n3 (another candidate, so n1 can be excluded); with
       preempt off n2 stays: make n2 step aside */
    fz_nominate(&N[0], 0, 10);
    fz_settle(SETTLE_MS);
    fz_nominate(&N[2], 0, 10);
    fz_settle(SETTLE_MS);
    CU_ASSERT(zkelect_set_eligible(N[1].grp[0].g, 0) == 0);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT(fz_count(&N[0], 0, ZKELECT_EV_TAKEOVER) == 1);
    CU_ASSERT(zkelect_takeover_done(N[0].grp[0].g, N[0].grp[0].takeover_epoch, ZKELECT_EIO) == 0);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT(fz_count(&N[0], 0, ZKELECT_EV_TAKEOVER_FAILED) == 1);
    CU_ASSERT(fz_count(&N[1], 0, ZKELECT_EV_WATCHDOG) == 1);
    CU_ASSERT(!fz_is_ready(&N[0], 0));
    CU_ASSERT(!fakezk_exists("/g/leader") || fakezk_owner("/g/leader") != fz_sid(&N[0]));
    CU_ASSERT(fz_eventually(node_ready, &N[2]));   /* n3 leads instead */
    fz_end();
}

/* The only node that can lead fails its takeover: excluding it would leave
 * the group without a leader for exclude_ms and gain nothing. It is not
 * excluded; when the watchdog fires it is elected again at a new epoch (a
 * retry at most once a watchdog period), and this time it takes over. */
static void
test_takeover_failed_lone_candidate(void)
{
    uint64_t e1;

    fz_begin();
    fz_watchdog_ms = 300;
    CU_ASSERT_FATAL(fz_node_open(&N[0], "n1", "/g", 1) == 0);
    CU_ASSERT_FATAL(fz_node_open(&N[1], "n2", "/g", 1) == 0);
    N[0].grp[0].takeover_mode = ZKELECT_EBUSY;
    fz_nominate(&N[1], 0, 10);     /* n2 first: the elector */
    fz_settle(SETTLE_MS);
    CU_ASSERT_FATAL(fz_is_ready(&N[1], 0));
    fz_nominate(&N[0], 0, 10);
    fz_settle(SETTLE_MS);
    CU_ASSERT(zkelect_set_eligible(N[1].grp[0].g, 0) == 0);   /* n1 is the only candidate */
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT_FATAL(fz_count(&N[0], 0, ZKELECT_EV_TAKEOVER) == 1);
    e1 = N[0].grp[0].takeover_epoch;
    CU_ASSERT(zkelect_takeover_done(N[0].grp[0].g, e1, ZKELECT_EIO) == 0);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT(fz_count(&N[0], 0, ZKELECT_EV_TAKEOVER_FAILED) == 1);
    /* not excluded; the watchdog gives it a new epoch */
    CU_ASSERT(fz_eventually(second_takeover, &N[0]));
    CU_ASSERT(N[0].grp[0].takeover_epoch > e1);
    CU_ASSERT(fz_count(&N[1], 0, ZKELECT_EV_WATCHDOG) >= 1);
    CU_ASSERT(zkelect_takeover_done(N[0].grp[0].g, N[0].grp[0].takeover_epoch, 0) == 0);
    CU_ASSERT(fz_eventually(node_ready, &N[0]));
    fz_end();
}

static bool
n2_ready(void *arg)
{
    (void)arg;
    return fz_is_ready(&N[1], 0);
}

/* The watchdog: n1's takeover never completes; after watchdog_ms the
 * elector excludes it and n2 takes over; n1's takeover is aborted. */
static void
test_watchdog_fires(void)
{
    fz_begin();
    fz_watchdog_ms = 300;
    CU_ASSERT_FATAL(fz_node_open(&N[0], "n1", "/g", 1) == 0);
    CU_ASSERT_FATAL(fz_node_open(&N[1], "n2", "/g", 1) == 0);
    N[0].grp[0].takeover_mode = ZKELECT_EBUSY;   /* never done */
    fz_nominate(&N[0], 0, 10);
    fz_settle(SETTLE_MS);
    fz_nominate(&N[1], 0, 10);
    fz_settle(SETTLE_MS);
    CU_ASSERT(fz_count(&N[0], 0, ZKELECT_EV_TAKEOVER) == 1);
    CU_ASSERT(fz_settle_until(n2_ready, NULL, 10000) == 0);
    CU_ASSERT(fz_count(&N[0], 0, ZKELECT_EV_WATCHDOG) == 1);
    CU_ASSERT(fz_count(&N[0], 0, ZKELECT_EV_TAKEOVER_ABORT) == 1);
    CU_ASSERT(!fz_is_ready(&N[0], 0));
    fz_end();
}

/* Another client deletes the READY leader's znode: -leadership-lost, and the
 * node, still elected, takes over again. */
static void
test_foreign_delete_leader(void)
{
    char buf[128];

    fz_begin();
    open_group(2);
    CU_ASSERT_FATAL(fz_is_ready(&N[0], 0));
    CU_ASSERT(fakezk_delete("/g/leader") == 0);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT(fz_count(&N[0], 0, ZKELECT_EV_LOST) == 1);
    CU_ASSERT(fz_ready_leader(N, 2, 0) != NULL);
    CU_ASSERT(strstr(fz_tree_leader("/g", buf, sizeof(buf)), ":READY:") != NULL);
    fz_end();
}

/* Another client writes garbage into the leader znode: -malformed, and the
 * READY leader repairs it. */
static void
test_garbage_leader_repaired(void)
{
    char buf[128];

    fz_begin();
    open_group(2);
    CU_ASSERT_FATAL(fz_is_ready(&N[0], 0));
    CU_ASSERT(fakezk_set("/g/leader", "garbage", 7) == 0);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT(fz_count(&N[0], 0, ZKELECT_EV_MALFORMED) >= 1);
    CU_ASSERT(fz_is_ready(&N[0], 0));
    CU_ASSERT_STRING_EQUAL(fz_tree_leader("/g", buf, sizeof(buf)), "n1:READY:1");
    fz_end();
}

/* Another client deletes a member's election znode: the member reports the
 * lost registration and registers again. */
static void
test_foreign_delete_election_znode(void)
{
    char path[256];

    fz_begin();
    open_group(2);
    CU_ASSERT_FATAL(fakezk_find("/g/election/n2_", path, sizeof(path)));
    CU_ASSERT(fakezk_delete(path) == 0);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT(fz_count(&N[1], 0, ZKELECT_EV_ERROR) >= 1);
    CU_ASSERT(fz_count(&N[1], 0, ZKELECT_EV_REGISTERED) == 2);
    CU_ASSERT(fz_election_children("/g", "n2") == 1);
    CU_ASSERT(fz_registered(&N[1], 0));
    CU_ASSERT(fz_is_ready(&N[0], 0));
    fz_end();
}

/* A READY leader is disconnected (-suspended) and, meanwhile, another client
 * deletes its election znode. After the reconnect the deletion arrives before
 * the leader could verify its leadership: it must say the leadership is lost
 * (-leadership-lost), not re-register silently (the application, told
 * -suspended, would never hear the end of that epoch), release its leader
 * znode, and the group gets a READY leader at a new epoch. */
static bool
one_ready(void *arg)
{
    (void)arg;
    return fz_ready_leader(N, 2, 0) != NULL;
}

static void
test_suspended_leader_loses_registration(void)
{
    char path[256];
    int64_t sid;

    fz_begin();
    open_group(2);
    CU_ASSERT_FATAL(fz_is_ready(&N[0], 0));
    sid = fz_sid(&N[0]);
    fakezk_disconnect(sid, FZ_BACK);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT(fz_count(&N[0], 0, ZKELECT_EV_SUSPENDED) == 1);
    CU_ASSERT_FATAL(fakezk_find("/g/election/n1_", path, sizeof(path)));
    CU_ASSERT(fakezk_delete(path) == 0);
    fakezk_reconnect(sid, FZ_BACK);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT(fz_count(&N[0], 0, ZKELECT_EV_LOST) == 1);
    CU_ASSERT(fz_count(&N[0], 0, ZKELECT_EV_RESUMED) == 0);
    CU_ASSERT(fz_registered(&N[0], 0));    /* n1 registered again */
    /* a leader again, at a new epoch (nodeid: n1, the lowest id, again) */
    CU_ASSERT(fz_eventually(one_ready, NULL));
    CU_ASSERT(strcmp(fz_tree_leader("/g", path, sizeof(path)), "n1:READY:1") != 0);
    fz_end();
}

/* A READY leader steps down and its release is refused (ZBADVERSION: another
 * client rewrote the leader znode between the delete being sent and
 * applied). The step-down is over, so the release goes on with the version
 * a fresh read gives: the node ends a member, its znode gone, and the node
 * elected meanwhile leads. (It used to go back to stepping-down with nothing
 * to move it on: the elected node waited for the watchdog's fencing.) */
static void
test_release_refused_retried(void)
{
    char data[512], path[256];
    struct zkelect_group_state st;
    int len;
    int64_t sid;

    fz_begin();
    open_group(2);                     /* n1 READY leader and elector, n2 member */
    CU_ASSERT_FATAL(fz_is_ready(&N[0], 0));
    N[0].grp[0].stepdown_mode = ZKELECT_EBUSY;
    CU_ASSERT(zkelect_set_eligible(N[0].grp[0].g, 0) == 0);   /* n2 is elected */
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT_FATAL(fz_count(&N[0], 0, ZKELECT_EV_STEPDOWN) == 1);
    sid = fz_sid(&N[0]);
    fakezk_defer_apply(sid, true);
    CU_ASSERT(zkelect_stepdown_done(N[0].grp[0].g, N[0].grp[0].stepdown_epoch) == 0);
    fz_flush();                        /* n1 sent its delete, not applied yet */
    len = fakezk_get("/g/leader", data, sizeof(data));
    CU_ASSERT_FATAL(len > 0);
    CU_ASSERT(fakezk_set("/g/leader", data, len) == 0);   /* another client: version + 1 */
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    fakezk_defer_apply(sid, false);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    memset(&st, 0, sizeof(st));
    st.size = sizeof(st);
    CU_ASSERT(zkelect_get_state(N[0].grp[0].g, &st) == 0);
    CU_ASSERT_STRING_EQUAL(st.role, "member");
    CU_ASSERT(fz_eventually(node_ready, &N[1]));
    CU_ASSERT(strncmp(fz_tree_leader("/g", path, sizeof(path)), "n2:READY:", 9) == 0);
    fz_end();
}

/* Disconnected during the takeover (PROGRESS): -suspended; after the
 * reconnect the node, still elected with its PROGRESS znode, takes over
 * again (+takeover), and goes READY when the application says so. */
static void
test_disconnect_during_takeover(void)
{
    int64_t sid;

    fz_begin();
    CU_ASSERT_FATAL(fz_node_open(&N[0], "n1", "/g", 1) == 0);
    N[0].grp[0].takeover_mode = ZKELECT_EBUSY;
    fz_nominate(&N[0], 0, 10);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT(fz_count(&N[0], 0, ZKELECT_EV_TAKEOVER) == 1);
    sid = fz_sid(&N[0]);
    fakezk_disconnect(sid, FZ_BACK);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT(fz_count(&N[0], 0, ZKELECT_EV_SUSPENDED) == 1);
    /* a takeover_done for the suspended epoch is not acted on now */
    fakezk_reconnect(sid, FZ_BACK);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT(fz_count(&N[0], 0, ZKELECT_EV_TAKEOVER) == 2);
    CU_ASSERT(zkelect_takeover_done(N[0].grp[0].g, N[0].grp[0].takeover_epoch, 0) == 0);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT(fz_is_ready(&N[0], 0));
    fz_end();
}

/* unnominate during the takeover: -takeover-abort, the node leaves, the
 * other one leads. */
static void
test_unnominate_during_takeover(void)
{
    fz_begin();
    CU_ASSERT_FATAL(fz_node_open(&N[0], "n1", "/g", 1) == 0);
    CU_ASSERT_FATAL(fz_node_open(&N[1], "n2", "/g", 1) == 0);
    N[0].grp[0].takeover_mode = ZKELECT_EBUSY;
    fz_nominate(&N[0], 0, 10);
    fz_settle(SETTLE_MS);
    fz_nominate(&N[1], 0, 10);
    fz_settle(SETTLE_MS);
    CU_ASSERT(fz_count(&N[0], 0, ZKELECT_EV_TAKEOVER) == 1);
    zkelect_unnominate(N[0].grp[0].g, 0);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT(fz_count(&N[0], 0, ZKELECT_EV_TAKEOVER_ABORT) == 1);
    CU_ASSERT(fz_count(&N[0], 0, ZKELECT_EV_UNREGISTERED) == 1);
    CU_ASSERT(!fz_member_znode("/g", "n1"));
    CU_ASSERT(fz_election_children("/g", "n1") == 0);
    CU_ASSERT(fz_is_ready(&N[1], 0));
    fz_end();
}

/* Expired while disconnected (the client learns it on the reconnect):
 * -suspended, then -session-expired and -leadership-lost; the node
 * registers again on a new session and the group has one READY leader. */
static void
test_expiry_while_disconnected(void)
{
    int64_t sid;

    fz_begin();
    open_group(2);
    sid = fz_sid(&N[0]);
    fakezk_disconnect(sid, FZ_BACK);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT(fz_count(&N[0], 0, ZKELECT_EV_SUSPENDED) == 1);
    CU_ASSERT(fakezk_expire(sid) == 0);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT(fz_count(&N[0], 0, ZKELECT_EV_EXPIRED) == 1);
    CU_ASSERT(fz_count(&N[0], 0, ZKELECT_EV_LOST) == 1);
    CU_ASSERT(fz_sid(&N[0]) != sid);
    CU_ASSERT(fz_registered(&N[0], 0));
    CU_ASSERT(fz_ready_leader(N, 2, 0) != NULL);
    CU_ASSERT(fakezk_owner("/g/nodes/n1") == fz_sid(&N[0]));
    fz_end();
}


/* `elected` changes between the decision and the creation of the leader
 * znode (CREATING): the create multi's check fails (ZBADVERSION),
 * -takeover-abort, the node re-reads `elected`, which still names it, and
 * takes over at the next attempt. */
static void
test_elected_changed_before_create(void)
{
    char data[4096];
    int64_t sid;
    int len;

    fz_begin();
    CU_ASSERT_FATAL(fz_node_open(&N[0], "n1", "/g", 1) == 0);
    fz_settle(SETTLE_MS);
    sid = fz_sid(&N[0]);
    fz_nominate(&N[0], 0, 10);
    fz_flush();
    /* up to the decision's reply: `elected` is written, the node has not
       heard of it yet */
    CU_ASSERT_FATAL(fz_deliver_until(sid, "reply multi /g/elected rc=0"));
    len = fakezk_get("/g/elected", data, sizeof(data));
    CU_ASSERT_FATAL(len > 0);
    CU_ASSERT(fakezk_set("/g/elected", data, len) == 0);   /* same decision, new version */
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT(fz_count(&N[0], 0, ZKELECT_EV_TAKEOVER_ABORT) == 1);
    CU_ASSERT(fz_count(&N[0], 0, ZKELECT_EV_TAKEOVER) == 1);
    CU_ASSERT(fz_is_ready(&N[0], 0));
    fz_end();
}

/* `elected` is rewritten while the READY write is on its way (READYING):
 * the multi's check fails, the node re-reads and sets READY again. */
static void
test_elected_changed_before_ready(void)
{
    char data[4096];
    int64_t sid;
    int len;

    fz_begin();
    CU_ASSERT_FATAL(fz_node_open(&N[0], "n1", "/g", 1) == 0);
    N[0].grp[0].takeover_mode = ZKELECT_EBUSY;
    fz_nominate(&N[0], 0, 10);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT_FATAL(fz_count(&N[0], 0, ZKELECT_EV_TAKEOVER) == 1);
    sid = fz_sid(&N[0]);
    fakezk_defer_apply(sid, true);
    CU_ASSERT(zkelect_takeover_done(N[0].grp[0].g, N[0].grp[0].takeover_epoch, 0) == 0);
    fz_flush();                                /* the READY multi is sent */
    len = fakezk_get("/g/elected", data, sizeof(data));
    CU_ASSERT_FATAL(len > 0);
    CU_ASSERT(fakezk_set("/g/elected", data, len) == 0);
    fakezk_defer_apply(sid, false);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT(fz_is_ready(&N[0], 0));
    CU_ASSERT(fz_count(&N[0], 0, ZKELECT_EV_READY) == 1);
    CU_ASSERT(fz_count(&N[0], 0, ZKELECT_EV_STEPDOWN) == 0);
    CU_ASSERT(fakezk_requests(sid) > 0);
    fz_end();
}

/* Two handles nominate the same id: the second finds nodes/<id> held by
 * another live session: ZKELECT_EIDINUSE, and it is not registered. */
static void
test_id_in_use(void)
{
    fz_begin();
    open_group(1);
    CU_ASSERT_FATAL(fz_node_open(&N[1], "n1", "/g", 1) == 0);
    fz_nominate(&N[1], 0, 10);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT(N[1].grp[0].nominate_done);
    CU_ASSERT(N[1].grp[0].nominate_err == ZKELECT_EIDINUSE);
    CU_ASSERT(fz_count(&N[1], 0, ZKELECT_EV_ERROR) == 1);
    CU_ASSERT(!fz_registered(&N[1], 0));
    CU_ASSERT(fz_election_children("/g", "n1") == 1);
    CU_ASSERT(fakezk_owner("/g/nodes/n1") == fz_sid(&N[0]));
    CU_ASSERT(fz_is_ready(&N[0], 0));
    fz_end();
}

/* A session that expired is dead: its old handle's calls fail with
 * ZINVALIDSTATE, and its ephemerals are gone (the fake's own contract). */
static void
test_fake_expiry_contract(void)
{
    int64_t sid;

    fz_begin();
    open_group(1);
    sid = fz_sid(&N[0]);
    CU_ASSERT(fakezk_owner("/g/nodes/n1") == sid);
    fakezk_connect_on_init(false);     /* the new session connects when delivered */
    CU_ASSERT(fakezk_expire(sid) == 0);
    CU_ASSERT(!fakezk_exists("/g/nodes/n1"));
    CU_ASSERT(!fakezk_exists("/g/leader"));
    CU_ASSERT(fakezk_expire(sid) != 0);
    CU_ASSERT(fakezk_reconnect(sid, FZ_BACK) != 0);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT(fz_sid(&N[0]) != sid && fakezk_session_connected(fz_sid(&N[0])));
    CU_ASSERT(fz_is_ready(&N[0], 0));
    fz_end();
}

/* zkelect_get_session, zkelect_ping, zkelect_end_session (session.c): a
 * leader whose process is gone (its session cut off, its znodes still
 * there) is ended from outside with its saved id and password: its
 * ephemerals go at once and the other node leads. */
struct endsess_arg {
    int64_t id;
    unsigned char pw[16];
    int len;
};

static int
endsess_run(void *arg)
{
    struct endsess_arg *a = arg;
    struct zkelect_options o;

    memset(&o, 0, sizeof(o));
    o.size = sizeof(o);
    o.hosts = "fake:2181";
    o.connect_timeout_ms = 2000;
    return zkelect_end_session(&o, a->id, a->pw, a->len);
}

static void
test_session_api(void)
{
    struct endsess_arg a;
    struct zkelect_options o;

    fz_begin();
    open_group(2);
    CU_ASSERT_FATAL(fz_is_ready(&N[0], 0));
    CU_ASSERT(zkelect_ping(N[0].h, 1000) == 0);
    CU_ASSERT(zkelect_get_session(N[0].h, &a.id, a.pw, &a.len) == 0);
    CU_ASSERT(a.id == fz_sid(&N[0]) && a.id != 0);
    CU_ASSERT(a.len == 16);
    memset(&o, 0, sizeof(o));
    o.size = sizeof(o);
    o.hosts = "fake:2181";
    CU_ASSERT(zkelect_end_session(&o, 0, a.pw, 16) == ZKELECT_EINVAL);
    CU_ASSERT(zkelect_end_session(&o, a.id, a.pw, 17) == ZKELECT_EINVAL);
    /* n1's process "dies": its connection is gone, its session and znodes
       stay (as until ZooKeeper's session timeout) */
    CU_ASSERT(fakezk_disconnect(a.id, FZ_BACK) == 0);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT(fakezk_owner("/g/leader") == a.id);
    CU_ASSERT(fz_run_settling(endsess_run, &a, 5000) == 0);
    CU_ASSERT(!fakezk_exists("/g/nodes/n1"));
    CU_ASSERT(fz_election_children("/g", "n1") == 0);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT(fz_is_ready(&N[1], 0));
    CU_ASSERT(fakezk_owner("/g/leader") == fz_sid(&N[1]));
    fz_end();
}

/* zkelect_ping answers only while the library thread runs: one stuck in a
 * callback (here a posted call that waits for the test) makes it time out,
 * and it answers again once the thread moves on. */
static pthread_mutex_t stuck_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t stuck_cv = PTHREAD_COND_INITIALIZER;
static int stuck_state;                 /* 1 stuck, 2 released */

static void
stuck_fn(struct zkelect *h, void *arg)
{
    (void)h;
    (void)arg;
    pthread_mutex_lock(&stuck_mu);
    stuck_state = 1;
    pthread_cond_broadcast(&stuck_cv);
    while (stuck_state != 2)
        pthread_cond_wait(&stuck_cv, &stuck_mu);
    pthread_mutex_unlock(&stuck_mu);
}

static void
test_ping_stuck_thread(void)
{
    fz_begin();
    open_group(1);
    CU_ASSERT(zkelect_ping(N[0].h, 1000) == 0);
    stuck_state = 0;
    zke_call(N[0].h, stuck_fn, NULL);
    pthread_mutex_lock(&stuck_mu);
    while (stuck_state != 1)
        pthread_cond_wait(&stuck_cv, &stuck_mu);
    pthread_mutex_unlock(&stuck_mu);
    CU_ASSERT(zkelect_ping(N[0].h, 200) == ZKELECT_ETIMEDOUT);
    CU_ASSERT(zkelect_ping(N[0].h, 0) == ZKELECT_ETIMEDOUT);
    pthread_mutex_lock(&stuck_mu);
    stuck_state = 2;
    pthread_cond_broadcast(&stuck_cv);
    pthread_mutex_unlock(&stuck_mu);
    CU_ASSERT(zkelect_ping(N[0].h, 2000) == 0);
    fz_end();
}

static CU_TestInfo fake_tests[] = {
    {"semantics", test_fake_semantics},
    CU_TEST_INFO_NULL,
};

static CU_TestInfo role_tests[] = {
    {"single_node_ready", test_single_node_ready},
    {"deferred_takeover", test_deferred_takeover},
    {"three_nodes_handover", test_three_nodes_handover},
    {"reconnect_same_session", test_reconnect_same_session},
    {"expiry", test_expiry},
    {"observer_sees_leader", test_observer_sees_leader},
    {"handover_waits_for_old_leader", test_handover_waits_for_old_leader},
    {"takeover_failed", test_takeover_failed},
    {"takeover_failed_lone_candidate", test_takeover_failed_lone_candidate},
    {"watchdog_fires", test_watchdog_fires},
    {"foreign_delete_leader", test_foreign_delete_leader},
    {"garbage_leader_repaired", test_garbage_leader_repaired},
    {"foreign_delete_election_znode", test_foreign_delete_election_znode},
    {"suspended_leader_loses_registration", test_suspended_leader_loses_registration},
    {"release_refused_retried", test_release_refused_retried},
    {"disconnect_during_takeover", test_disconnect_during_takeover},
    {"unnominate_during_takeover", test_unnominate_during_takeover},
    {"expiry_while_disconnected", test_expiry_while_disconnected},
    {"elected_changed_before_create", test_elected_changed_before_create},
    {"elected_changed_before_ready", test_elected_changed_before_ready},
    {"id_in_use", test_id_in_use},
    {"fake_expiry_contract", test_fake_expiry_contract},
    {"session_api", test_session_api},
    {"ping_stuck_thread", test_ping_stuck_thread},
    CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
    {"fake", NULL, NULL, NULL, NULL, fake_tests},
    {"roles", NULL, NULL, NULL, NULL, role_tests},
    CU_SUITE_INFO_NULL,
};

int
main(int argc, char **argv)
{
    return cutest_main(argc, argv, suites);
}
