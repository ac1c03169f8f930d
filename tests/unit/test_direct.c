/*
 * test_direct.c - the decisions written from the elector's standing
 * succession by others than the elector (src/lib/direct.c): when an
 * operator's switchover may write the decision itself
 * (zke_direct_switchover_refusal), and what the slot-0 handover decision
 * holds (zke_hand_slot0). The multi itself runs against a real ZooKeeper
 * (tests/cli/test_cli_ops.sh, "the operator's direct switchover").
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "cutest.h"
#include "direct.h"

static struct zke_elected E;
static struct zke_successor S;
static struct zke_switchover SO;

/* n1 leads at epoch 7 (elected version 12); the succession for that
   version names n2, and a switchover goes there; a plain request. */
static void
setup(void)
{
    struct zke_succ *x = &S.slots[0];

    memset(&E, 0, sizeof(E));
    memset(&S, 0, sizeof(S));
    memset(&SO, 0, sizeof(SO));
    snprintf(E.leader, sizeof(E.leader), "n1");
    snprintf(E.leader_site, sizeof(E.leader_site), "dc1");
    snprintf(E.leader_znode, sizeof(E.leader_znode), "n1_0123456789abcdef0123456789abcdef_0000000001");
    snprintf(E.leader_host, sizeof(E.leader_host), "host1");
    snprintf(E.elector, sizeof(E.elector), "n3");
    snprintf(E.policy, sizeof(E.policy), "site");
    snprintf(E.reason, sizeof(E.reason), "cold start");
    snprintf(E.hold.kind, sizeof(E.hold.kind), "anti-flap");
    E.epoch = 7;
    E.switchover_id = 4;
    E.config_version = 3;
    S.elected_version = 12;
    S.history_version = 9;
    S.config_version = 3;
    S.next_epoch = 8;
    snprintf(S.elector, sizeof(S.elector), "n3");
    snprintf(S.policy, sizeof(S.policy), "site");
    S.nslots = 1;
    snprintf(x->leader, sizeof(x->leader), "n1");
    snprintf(x->leader_znode, sizeof(x->leader_znode), "%s", E.leader_znode);
    snprintf(x->successor, sizeof(x->successor), "n2");
    snprintf(x->successor_site, sizeof(x->successor_site), "dc2");
    snprintf(x->successor_host, sizeof(x->successor_host), "host2");
    snprintf(x->successor_znode, sizeof(x->successor_znode),
             "n2_0123456789abcdef0123456789abcdef_0000000002");
    x->successor_version = 5;
    x->switchover = true;
    SO.id = 5;
}

static const char *
refusal(void)
{
    return zke_direct_switchover_refusal(&E, 12, &S, &SO, 1);
}

static void
test_covered(void)
{
    setup();
    CU_ASSERT_PTR_NULL(refusal());
    snprintf(SO.to, sizeof(SO.to), "n2");
    CU_ASSERT_PTR_NULL(refusal());          /* --to the successor */
    snprintf(SO.from, sizeof(SO.from), "n1");
    CU_ASSERT_PTR_NULL(refusal());          /* --from the leader */
    E.fast_handover = true;                 /* the epoch is e + 1 */
    CU_ASSERT_PTR_NULL(refusal());
}

/* Each condition alone refuses, naming why. */
static void
test_refused(void)
{
    const char *why;

#define REFUSED(change, text)                                                    \
    do {                                                                         \
        setup();                                                                 \
        change;                                                                  \
        why = refusal();                                                         \
        CU_ASSERT_PTR_NOT_NULL(why);                                             \
        if (why != NULL && strstr(why, text) == NULL) {                          \
            fprintf(stderr, "refusal \"%s\" lacks \"%s\"\n", why, text);         \
            CU_FAIL(#change);                                                    \
        }                                                                        \
    } while (0)
    REFUSED(S.slots[0].switchover = false, "elsewhere");
    REFUSED(snprintf(SO.to, sizeof(SO.to), "n4"), "not the recorded successor");
    REFUSED(S.elected_version = 11, "another decision");
    REFUSED(snprintf(S.slots[0].leader_znode, sizeof(S.slots[0].leader_znode), "n1_x"),
            "another decision");
    REFUSED(snprintf(S.slots[0].leader, sizeof(S.slots[0].leader), "n9"), "another decision");
    REFUSED(S.nslots = 0, "no successor");
    REFUSED(S.slots[0].slot = 1, "no successor");
    REFUSED(E.nslots = 1, "more than one leader");
    REFUSED(SO.cancel = true, "scheduled");
    REFUSED(SO.due_ms = 1000, "scheduled");
    REFUSED(snprintf(SO.site, sizeof(SO.site), "dc2"), "site");
    REFUSED(snprintf(SO.from, sizeof(SO.from), "n2"), "another node's slot");
    REFUSED(S.history_version = -1, "release without");
    REFUSED(S.slots[0].successor_version = -1, "release without");
    REFUSED(S.next_epoch = 7, "epoch");
    REFUSED((E.fast_handover = true, S.next_epoch = 9), "epoch");
    REFUSED(E.leader_znode[0] = '\0', "no registration");
#undef REFUSED
    setup();
    CU_ASSERT_PTR_NOT_NULL(zke_direct_switchover_refusal(&E, 12, &S, &SO, 2));
    CU_ASSERT_PTR_NOT_NULL(zke_direct_switchover_refusal(&E, 12, NULL, &SO, 1));
    CU_ASSERT_PTR_NOT_NULL(zke_direct_switchover_refusal(NULL, 12, &S, &SO, 1));
    CU_ASSERT_PTR_NOT_NULL(zke_direct_switchover_refusal(&E, -1, &S, &SO, 1));
}

/* The handover decision of slot 0: the successor in the leader's place,
   the epoch reserved, no hold; the rest as read. */
static void
test_hand_slot0(void)
{
    struct zke_elected d;

    setup();
    d = E;
    zke_hand_slot0(&d, &S.slots[0], S.next_epoch, "n1", "host1", "n3", "site");
    CU_ASSERT_STRING_EQUAL(d.leader, "n2");
    CU_ASSERT_STRING_EQUAL(d.leader_site, "dc2");
    CU_ASSERT_STRING_EQUAL(d.leader_znode, S.slots[0].successor_znode);
    CU_ASSERT_STRING_EQUAL(d.leader_host, "host2");
    CU_ASSERT_STRING_EQUAL(d.previous, "n1");
    CU_ASSERT_STRING_EQUAL(d.previous_host, "host1");
    CU_ASSERT_EQUAL(d.epoch, 8);
    CU_ASSERT_STRING_EQUAL(d.hold.kind, "");
    CU_ASSERT_EQUAL(d.switchover_id, 4);     /* the caller acknowledges, or not */
    CU_ASSERT_EQUAL(d.config_version, 3);
    CU_ASSERT(d.at_ms > 0);
}

/*
 * Which results of the multi leave its outcome unknown: the errors a request
 * already sent may get (a connection lost, a timeout, an out-of-order reply
 * that fails all in flight), and, to be safe, those of a session that ended,
 * after which it cannot be read back. (Before, only a connection loss
 * and a timeout were unknown: an expiry said nothing was written.)
 */
static void
test_outcome(void)
{
    CU_ASSERT_EQUAL(zke_direct_outcome(ZOK), ZKE_DIRECT_WRITTEN);
    CU_ASSERT_EQUAL(zke_direct_outcome(ZBADVERSION), ZKE_DIRECT_NOT_WRITTEN);
    CU_ASSERT_EQUAL(zke_direct_outcome(ZNONODE), ZKE_DIRECT_NOT_WRITTEN);
    CU_ASSERT_EQUAL(zke_direct_outcome(ZNODEEXISTS), ZKE_DIRECT_NOT_WRITTEN);
    CU_ASSERT_EQUAL(zke_direct_outcome(ZNOAUTH), ZKE_DIRECT_NOT_WRITTEN);
    CU_ASSERT_EQUAL(zke_direct_outcome(ZINVALIDSTATE), ZKE_DIRECT_NOT_WRITTEN);
    CU_ASSERT_EQUAL(zke_direct_outcome(ZMARSHALLINGERROR), ZKE_DIRECT_NOT_WRITTEN);
    CU_ASSERT_EQUAL(zke_direct_outcome(ZCONNECTIONLOSS), ZKE_DIRECT_UNKNOWN);
    CU_ASSERT_EQUAL(zke_direct_outcome(ZOPERATIONTIMEOUT), ZKE_DIRECT_UNKNOWN);
    CU_ASSERT_EQUAL(zke_direct_outcome(ZSESSIONMOVED), ZKE_DIRECT_UNKNOWN);
    CU_ASSERT_EQUAL(zke_direct_outcome(ZRUNTIMEINCONSISTENCY), ZKE_DIRECT_UNKNOWN);
    CU_ASSERT_EQUAL(zke_direct_outcome(ZSESSIONEXPIRED), ZKE_DIRECT_UNKNOWN_ENDED);
    CU_ASSERT_EQUAL(zke_direct_outcome(ZCLOSING), ZKE_DIRECT_UNKNOWN_ENDED);
    CU_ASSERT_EQUAL(zke_direct_outcome(ZAUTHFAILED), ZKE_DIRECT_UNKNOWN_ENDED);
}

static CU_TestInfo direct_tests[] = {
    { "a request the succession covers", test_covered },
    { "each condition refuses alone", test_refused },
    { "the slot-0 handover decision", test_hand_slot0 },
    { "what a result says of the outcome", test_outcome },
    CU_TEST_INFO_NULL
};

static CU_SuiteInfo suites[] = {
    { "direct", NULL, NULL, NULL, NULL, direct_tests },
    CU_SUITE_INFO_NULL
};

int
main(int argc, char **argv)
{
    return cutest_main(argc, argv, suites);
}
