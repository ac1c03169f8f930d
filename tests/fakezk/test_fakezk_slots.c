/*
 * test_fakezk_slots.c - N active leaders per group (issue 17): slots, each
 * with its own leader znode (`leader`, `leader-1`, ...), its own two-phase
 * takeover, watchdog and epoch, one node per slot, sticky slots. The rules
 * are set through the config znode, as `zkelect init --leaders` and
 * `zkelect set-leaders` write it; the policy is nodeid (the lowest ids).
 *
 * Each test fails on the library before issue 17: it read no `leaders` and
 * elected one leader.
 *
 * Run one test: tests/fakezk/test_fakezk_slots slots:two_slots
 * FAKEZK_VERBOSE=1 prints the library's log and events.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cutest.h"
#include "harness.h"
#include "codec.h"

#define SETTLE_MS 20000

static struct fz_node N[5];

/* Write znode PATH (created if absent) with the JSON text. */
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

/* Slot K's leader znode in the tree: "id:STATUS:epoch", "" when absent. */
static const char *
tree_slot(int k, char *buf, size_t len)
{
    char path[64], data[4096], err[128];
    struct zke_leader l;
    int dl;

    if (k == 0)
        snprintf(path, sizeof(path), "/g/leader");
    else
        snprintf(path, sizeof(path), "/g/leader-%d", k);
    buf[0] = '\0';
    dl = fakezk_get(path, data, sizeof(data));
    if (dl < 0 || zke_leader_decode(data, dl, &l, err, sizeof(err)) != 0 || l.slot != k)
        return buf;
    snprintf(buf, len, "%s:%s:%llu", l.id, l.status == ZKELECT_STATUS_READY ? "READY" : "PROGRESS",
             (unsigned long long)l.epoch);
    return buf;
}

/* Slot K's epoch in the tree (0: no leader znode). */
static unsigned long long
tree_epoch(int k)
{
    char buf[128];
    const char *c = strrchr(tree_slot(k, buf, sizeof(buf)), ':');

    return c ? strtoull(c + 1, NULL, 10) : 0;
}

/* Node K is READY in slot S, by its own library's view. */
static bool
ready_in(int k, int s)
{
    struct zkelect_slot sl[ZKE_LEADERS_MAX];
    int n = zkelect_get_leaders(N[k].grp[0].g, sl, ZKE_LEADERS_MAX);

    return n > s && sl[s].is_self && sl[s].status == ZKELECT_STATUS_READY &&
           zkelect_group_slot(N[k].grp[0].g) == s;
}

/* The number of READY leader znodes in the tree. */
static int
ready_count(void)
{
    char buf[128];
    int k, c = 0;

    for (k = 0; k < ZKE_LEADERS_MAX; k++)
        if (strstr(tree_slot(k, buf, sizeof(buf)), ":READY:"))
            c++;
    return c;
}

static void
open_nodes(int count)
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

static bool n1_0_n2_1(void *a) { (void)a; return ready_in(0, 0) && ready_in(1, 1); }
static bool n1_0_n3_1(void *a) { (void)a; return ready_in(0, 0) && ready_in(2, 1); }
static bool three_ready(void *a)
{
    (void)a;
    return ready_in(0, 0) && ready_in(1, 1) && ready_in(2, 2);
}

/* leaders = 2 before anyone registers: n1 in slot 0, n2 in slot 1, each
 * READY with its own leader znode and epoch; n3 stays a member. */
static void
test_two_slots(void)
{
    char a[128], b[128];

    fz_begin();
    CU_ASSERT(fakezk_mkdirs("/g") == 0);
    put("/g/config", "{\"v\":1,\"settle_ms\":0,\"leaders\":2}");
    open_nodes(3);
    CU_ASSERT(fz_eventually(n1_0_n2_1, NULL));
    CU_ASSERT(strncmp(tree_slot(0, a, sizeof(a)), "n1:READY:", 9) == 0);
    CU_ASSERT(strncmp(tree_slot(1, b, sizeof(b)), "n2:READY:", 9) == 0);
    CU_ASSERT(tree_epoch(0) != tree_epoch(1));
    CU_ASSERT_EQUAL(zkelect_group_slot(N[2].grp[0].g), -1);
    CU_ASSERT_EQUAL(fz_count(&N[2], 0, ZKELECT_EV_TAKEOVER), 0);
    CU_ASSERT_EQUAL(ready_count(), 2);
    fz_end();
}

/* The active of slot 1 loses its session: slot 1 goes to n3 at a new
 * epoch; slot 0 is undisturbed (same epoch, no step-down). */
static void
test_crash_one_active(void)
{
    unsigned long long e0, e1;

    fz_begin();
    CU_ASSERT(fakezk_mkdirs("/g") == 0);
    put("/g/config", "{\"v\":1,\"settle_ms\":0,\"leaders\":2}");
    open_nodes(3);
    CU_ASSERT_FATAL(fz_eventually(n1_0_n2_1, NULL));
    e0 = tree_epoch(0);
    e1 = tree_epoch(1);
    CU_ASSERT(fakezk_expire(fz_sid(&N[1])) == 0);
    CU_ASSERT(fz_eventually(n1_0_n3_1, NULL));
    CU_ASSERT_EQUAL(tree_epoch(0), e0);
    CU_ASSERT(tree_epoch(1) > e1);
    CU_ASSERT_EQUAL(fz_count(&N[0], 0, ZKELECT_EV_STEPDOWN), 0);
    CU_ASSERT_EQUAL(fz_count(&N[0], 0, ZKELECT_EV_TAKEOVER), 1);
    fz_end();
}

/* The elector (n1, also slot 0's active) loses its session: n2 becomes the
 * elector and stays in slot 1 with its epoch, without a step-down; slot 0
 * is decided again at a new epoch (n1, registered again on its new
 * session, is still the lowest id). */
static void
test_elector_crash(void)
{
    unsigned long long e0, e1;

    fz_begin();
    CU_ASSERT(fakezk_mkdirs("/g") == 0);
    put("/g/config", "{\"v\":1,\"settle_ms\":0,\"leaders\":2}");
    open_nodes(3);
    CU_ASSERT_FATAL(fz_eventually(n1_0_n2_1, NULL));
    e0 = tree_epoch(0);
    e1 = tree_epoch(1);
    CU_ASSERT(fakezk_expire(fz_sid(&N[0])) == 0);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT(fz_eventually(n1_0_n2_1, NULL));
    CU_ASSERT(tree_epoch(0) > e0);
    CU_ASSERT_EQUAL(tree_epoch(1), e1);
    CU_ASSERT(fz_is_elector(&N[1], 0));
    CU_ASSERT_EQUAL(fz_count(&N[1], 0, ZKELECT_EV_STEPDOWN), 0);
    CU_ASSERT_EQUAL(fz_count(&N[1], 0, ZKELECT_EV_TAKEOVER), 1);
    CU_ASSERT_EQUAL(fz_count(&N[2], 0, ZKELECT_EV_TAKEOVER), 0);
    fz_end();
}

/* `switchover --from n2`: slot 1 moves to n3 through the two phases (n2's
 * step-down, then n3's takeover); slot 0 keeps its epoch. */
static void
test_switchover_from(void)
{
    unsigned long long e0;

    fz_begin();
    CU_ASSERT(fakezk_mkdirs("/g") == 0);
    put("/g/config", "{\"v\":1,\"settle_ms\":0,\"leaders\":2}");
    open_nodes(3);
    CU_ASSERT_FATAL(fz_eventually(n1_0_n2_1, NULL));
    e0 = tree_epoch(0);
    put("/g/switchover", "{\"v\":1,\"id\":1,\"to\":null,\"from\":\"n2\"}");
    CU_ASSERT(fz_eventually(n1_0_n3_1, NULL));
    CU_ASSERT_EQUAL(tree_epoch(0), e0);
    CU_ASSERT_EQUAL(fz_count(&N[1], 0, ZKELECT_EV_STEPDOWN), 1);
    CU_ASSERT_EQUAL(fz_count(&N[0], 0, ZKELECT_EV_STEPDOWN), 0);
    /* a node that holds no slot: refused, nothing moves */
    put("/g/switchover", "{\"v\":1,\"id\":2,\"to\":null,\"from\":\"n2\"}");
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT(ready_in(0, 0) && ready_in(2, 1));
    CU_ASSERT_EQUAL(tree_epoch(0), e0);
    fz_end();
}

/* Slot 1's elected node never finishes its takeover: slot 1's watchdog
 * excludes it and n3 takes slot 1, while slot 0 stays READY throughout. */
static void
test_watchdog_one_slot(void)
{
    unsigned long long e0;

    fz_begin();
    fz_watchdog_ms = 300;
    CU_ASSERT(fakezk_mkdirs("/g") == 0);
    put("/g/config", "{\"v\":1,\"settle_ms\":0,\"leaders\":2}");
    CU_ASSERT_FATAL(fz_node_open(&N[0], "n1", "/g", 1) == 0);
    fz_nominate(&N[0], 0, 10);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT_FATAL(ready_in(0, 0));
    e0 = tree_epoch(0);
    CU_ASSERT_FATAL(fz_node_open(&N[1], "n2", "/g", 1) == 0);
    N[1].grp[0].takeover_mode = ZKELECT_EBUSY;       /* never finishes */
    fz_nominate(&N[1], 0, 10);
    CU_ASSERT_FATAL(fz_node_open(&N[2], "n3", "/g", 1) == 0);
    fz_nominate(&N[2], 0, 10);
    CU_ASSERT(fz_eventually(n1_0_n3_1, NULL));
    CU_ASSERT(fz_count(&N[0], 0, ZKELECT_EV_WATCHDOG) >= 1);
    CU_ASSERT_EQUAL(tree_epoch(0), e0);
    CU_ASSERT_EQUAL(fz_count(&N[0], 0, ZKELECT_EV_STEPDOWN), 0);
    fz_end();
}

/* leaders raised 1 -> 3 and lowered 3 -> 1 while running: new slots are
 * filled, slot 0 keeps its epoch; lowering releases the highest slots
 * (their actives step down), slot 0 is undisturbed. */
static void
test_raise_and_lower(void)
{
    unsigned long long e0;
    char buf[128];

    fz_begin();
    CU_ASSERT(fakezk_mkdirs("/g") == 0);
    put("/g/config", "{\"v\":1,\"settle_ms\":0}");
    open_nodes(4);
    CU_ASSERT_FATAL(ready_in(0, 0));
    e0 = tree_epoch(0);
    CU_ASSERT_EQUAL(ready_count(), 1);
    put("/g/config", "{\"v\":1,\"settle_ms\":0,\"leaders\":3}");
    CU_ASSERT(fz_eventually(three_ready, NULL));
    CU_ASSERT_EQUAL(tree_epoch(0), e0);
    CU_ASSERT_EQUAL(ready_count(), 3);
    CU_ASSERT_EQUAL(zkelect_group_slot(N[3].grp[0].g), -1);
    put("/g/config", "{\"v\":1,\"settle_ms\":0,\"leaders\":1}");
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT(ready_in(0, 0));
    CU_ASSERT_EQUAL(tree_epoch(0), e0);
    CU_ASSERT_EQUAL(ready_count(), 1);
    CU_ASSERT_STRING_EQUAL(tree_slot(1, buf, sizeof(buf)), "");
    CU_ASSERT_STRING_EQUAL(tree_slot(2, buf, sizeof(buf)), "");
    CU_ASSERT_EQUAL(fz_count(&N[1], 0, ZKELECT_EV_STEPDOWN), 1);
    CU_ASSERT_EQUAL(fz_count(&N[2], 0, ZKELECT_EV_STEPDOWN), 1);
    CU_ASSERT_EQUAL(fz_count(&N[0], 0, ZKELECT_EV_STEPDOWN), 0);
    CU_ASSERT_EQUAL(zkelect_group_slot(N[1].grp[0].g), -1);
    fz_end();
}

/* A node released from slot 1 that is chosen for slot 0 (its holder lost)
 * releases leader-1 before it creates `leader`: never in two slots. */
static void
test_move_between_slots(void)
{
    char buf[128];

    fz_begin();
    CU_ASSERT(fakezk_mkdirs("/g") == 0);
    put("/g/config", "{\"v\":1,\"settle_ms\":0,\"leaders\":2}");
    open_nodes(2);
    CU_ASSERT_FATAL(fz_eventually(n1_0_n2_1, NULL));
    /* N drops to 1 and n1 leaves in the same breath: n2 (the elector now)
       is released from slot 1 and chosen for slot 0 */
    put("/g/config", "{\"v\":1,\"settle_ms\":0,\"leaders\":1}");
    fz_node_close(&N[0]);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT(fz_count(&N[1], 0, ZKELECT_EV_STEPDOWN) >= 1);
    CU_ASSERT(ready_in(1, 0));
    CU_ASSERT(strncmp(tree_slot(0, buf, sizeof(buf)), "n2:READY:", 9) == 0);
    CU_ASSERT_STRING_EQUAL(tree_slot(1, buf, sizeof(buf)), "");
    fz_end();
}

/* Each member's record says the largest N it can serve: 16 with a policy
 * that chooses sets; 1 with an ABI 1.0 policy, which as the elector could
 * decide one slot only (zkelect set-leaders refuses more while it is a
 * member). As the elector of a group with leaders = 2 it decides nothing and
 * says why. */
static void
test_max_leaders(void)
{
    char rec[2048];
    int n;

    fz_begin();
    CU_ASSERT(fakezk_mkdirs("/g") == 0);
    fz_policy = FZ_BADPOLICY_DIR "/abi10.so";
    CU_ASSERT_FATAL(fz_node_open(&N[0], "n1", "/g", 1) == 0);
    fz_policy = "nodeid";
    CU_ASSERT_FATAL(fz_node_open(&N[1], "n2", "/g", 1) == 0);
    fz_nominate(&N[0], 0, 10);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    fz_nominate(&N[1], 0, 10);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    n = fakezk_get("/g/nodes/n1", rec, sizeof(rec) - 1);
    CU_ASSERT_FATAL(n > 0);
    rec[n] = '\0';
    CU_ASSERT(strstr(rec, "\"max_leaders\":1") != NULL);
    n = fakezk_get("/g/nodes/n2", rec, sizeof(rec) - 1);
    CU_ASSERT_FATAL(n > 0);
    rec[n] = '\0';
    CU_ASSERT(strstr(rec, "\"max_leaders\":16") != NULL);
    CU_ASSERT(ready_in(0, 0));
    put("/g/config", "{\"v\":1,\"settle_ms\":0,\"leaders\":2}");
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT(fz_count(&N[0], 0, ZKELECT_EV_ERROR) >= 1);
    CU_ASSERT(strstr(N[0].grp[0].log, "-error") != NULL);
    CU_ASSERT_EQUAL(zkelect_group_slot(N[1].grp[0].g), -1);
    CU_ASSERT(ready_in(0, 0));
    fz_end();
}



/*
 * Issue 18: each slot's handover takes the direct path. n2 (slot 1)
 * resigns: its leave gives slot 1 to n3 at a new epoch (the elector writes
 * no decision), slot 0 keeps its epoch. Then n1 (slot 0, and the elector)
 * resigns: slot 0 goes to n4 the same way, slot 1 stays n3's. (Before:
 * the elector decided each time, two more +decision.)
 */
static bool n1_0_n3_1_ready(void *a) { (void)a; return ready_in(0, 0) && ready_in(2, 1); }
static bool n4_0_n3_1_ready(void *a) { (void)a; return ready_in(3, 0) && ready_in(2, 1); }

static void
test_slot_handover(void)
{
    unsigned long long e0, e1;
    unsigned decisions;

    fz_begin();
    CU_ASSERT(fakezk_mkdirs("/g") == 0);
    put("/g/config", "{\"v\":1,\"settle_ms\":0,\"leaders\":2}");
    open_nodes(4);
    CU_ASSERT_FATAL(fz_eventually(n1_0_n2_1, NULL));
    CU_ASSERT(fz_znode_has("/g/successor", "\"successor\":\"n3\""));
    decisions = fz_count(&N[0], 0, ZKELECT_EV_DECISION);
    e0 = tree_epoch(0);
    e1 = tree_epoch(1);
    zkelect_unnominate(N[1].grp[0].g, 0);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT_FATAL(fz_eventually(n1_0_n3_1_ready, NULL));
    CU_ASSERT(fz_znode_has("/g/elected", "handover: n2 resigned from slot 1"));
    CU_ASSERT_EQUAL(tree_epoch(0), e0);
    CU_ASSERT(tree_epoch(1) > e1);
    CU_ASSERT_EQUAL(fz_count(&N[0], 0, ZKELECT_EV_DECISION), decisions);
    CU_ASSERT_EQUAL(fz_count(&N[0], 0, ZKELECT_EV_STEPDOWN), 0);
    CU_ASSERT(fz_znode_has("/g/history", "handover: n2 resigned from slot 1"));
    e1 = tree_epoch(1);
    zkelect_unnominate(N[0].grp[0].g, 0);
    CU_ASSERT(fz_settle(SETTLE_MS) == 0);
    CU_ASSERT(fz_eventually(n4_0_n3_1_ready, NULL));
    CU_ASSERT(fz_znode_has("/g/elected", "handover: n1 resigned; n4 is its successor"));
    CU_ASSERT_EQUAL(tree_epoch(1), e1);
    CU_ASSERT_EQUAL(fz_count(&N[2], 0, ZKELECT_EV_STEPDOWN), 0);
    CU_ASSERT_EQUAL(ready_count(), 2);
    fz_end();
}

static CU_TestInfo slot_tests[] = {
    {"two_slots", test_two_slots},
    {"crash_one_active", test_crash_one_active},
    {"elector_crash", test_elector_crash},
    {"switchover_from", test_switchover_from},
    {"watchdog_one_slot", test_watchdog_one_slot},
    {"raise_and_lower", test_raise_and_lower},
    {"move_between_slots", test_move_between_slots},
    {"max_leaders", test_max_leaders},
    {"slot_handover", test_slot_handover},
    CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
    {"slots", NULL, NULL, NULL, NULL, slot_tests},
    CU_SUITE_INFO_NULL,
};

int
main(int argc, char **argv)
{
    return cutest_main(argc, argv, suites);
}
