/*
 * outoftree_run.c - load the out-of-tree example policy (built by
 * test_outoftree from example.c against the installed headers) by path
 * through the loader, and check its decisions.
 *
 * The module path comes from $ZKELECT_OUTOFTREE_SO; without it the suite
 * setup fails, which counts as a failure.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cutest.h"
#include "zkelect.h"
#include "policy.h"

static const char *so_path;       /* $ZKELECT_OUTOFTREE_SO */
static struct zke_policy *pol;    /* loaded by the suite init */
static struct zkelect_member members[4];
static struct zkelect_policy_input input;

static int
suite_init(void)
{
    char err[512];

    so_path = getenv("ZKELECT_OUTOFTREE_SO");
    if (so_path == NULL || strchr(so_path, '/') == NULL) {
        fprintf(stderr, "outoftree_run: set ZKELECT_OUTOFTREE_SO to the module path\n");
        return -1;
    }
    if (zke_policy_load(so_path, NULL, NULL, 0, &pol, err, sizeof(err)) != 0) {
        fprintf(stderr, "outoftree_run: %s\n", err);
        return -1;
    }
    return 0;
}

static int
suite_clean(void)
{
    zke_policy_unload(pol);
    pol = NULL;
    return 0;
}

/* n1 (seq 30), n2 (seq 10, not eligible), n3 (seq 20), n4 (seq 40). */
static void
input_reset(void)
{
    static const char *ids[] = { "n1", "n2", "n3", "n4" };
    static const int64_t seqs[] = { 30, 10, 20, 40 };
    size_t i;

    memset(members, 0, sizeof(members));
    for (i = 0; i < 4; i++) {
        members[i].id = ids[i];
        members[i].site = "";
        members[i].seq = seqs[i];
        members[i].eligible = members[i].healthy = 1;
    }
    members[1].eligible = 0;
    memset(&input, 0, sizeof(input));
    input.size = sizeof(input);
    input.members = members;
    input.nmembers = 4;
    input.reasons = ZKELECT_REASON_INITIAL;
}

static const char *
choose_id(char *reason, size_t len)
{
    int chosen = 99;

    CU_ASSERT_EQUAL_FATAL(zke_policy_choose(pol, &input, &chosen, reason, len), 0);
    return chosen >= 0 ? members[chosen].id : NULL;
}

static void
test_identity(void)
{
    CU_ASSERT_STRING_EQUAL(zke_policy_name(pol), "oldest");
    CU_ASSERT_STRING_EQUAL(zke_policy_path(pol), so_path);
}

static void
test_oldest_that_can_lead(void)
{
    char reason[200];

    input_reset();
    CU_ASSERT_STRING_EQUAL(choose_id(reason, sizeof(reason)), "n3");
    CU_ASSERT_STRING_EQUAL(reason, "oldest member n3");
    members[2].healthy = 0;
    CU_ASSERT_STRING_EQUAL(choose_id(reason, sizeof(reason)), "n1");
}

static void
test_current_leader_kept(void)
{
    char reason[200];

    input_reset();
    input.current_leader = "n4";
    input.current_present = 1;
    CU_ASSERT_STRING_EQUAL(choose_id(reason, sizeof(reason)), "n4");
    members[3].excluded = 1;
    CU_ASSERT_STRING_EQUAL(choose_id(reason, sizeof(reason)), "n3");
}

static void
test_none(void)
{
    char reason[200];
    size_t i;

    input_reset();
    for (i = 0; i < 4; i++)
        members[i].eligible = 0;
    CU_ASSERT_PTR_NULL(choose_id(reason, sizeof(reason)));
    CU_ASSERT_STRING_EQUAL(reason, "no member can lead");
}

static void
test_switchover(void)
{
    char reason[200];

    input_reset();
    input.current_leader = "n3";
    input.current_present = 1;
    input.reasons = ZKELECT_REASON_SWITCHOVER;
    CU_ASSERT_STRING_EQUAL(choose_id(reason, sizeof(reason)), "n1"); /* any other */
    input.switchover_target = "n4";
    CU_ASSERT_STRING_EQUAL(choose_id(reason, sizeof(reason)), "n4");
    input.switchover_target = "n2";                                  /* ineligible */
    CU_ASSERT_PTR_NULL(choose_id(reason, sizeof(reason)));
    CU_ASSERT_STRING_EQUAL(reason, "switchover to n2 refused");
}

/* The same choice whatever the member order. */
static void
test_order_independent(void)
{
    struct zkelect_member rev[4];
    char reason[200];
    int chosen;
    size_t i;

    input_reset();
    for (i = 0; i < 4; i++)
        rev[i] = members[3 - i];
    input.members = rev;
    CU_ASSERT_EQUAL(zke_policy_choose(pol, &input, &chosen, reason, sizeof(reason)), 0);
    CU_ASSERT_EQUAL_FATAL(chosen, 1);
    CU_ASSERT_STRING_EQUAL(rev[chosen].id, "n3");
}

static void
test_option_refused(void)
{
    struct zkelect_option o[1] = { { "colour", "blue" } };
    struct zke_policy *p = NULL;
    char err[512];

    CU_ASSERT_EQUAL(zke_policy_load(so_path, NULL, o, 1, &p, err, sizeof(err)),
                    ZKELECT_EPOLINIT);
    CU_ASSERT_PTR_NULL(p);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "oldest: unknown option 'colour'"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, so_path));
}

static CU_TestInfo tests[] = {
    { "name and path", test_identity },
    { "oldest member that can lead", test_oldest_that_can_lead },
    { "current leader kept", test_current_leader_kept },
    { "none can lead", test_none },
    { "switchover", test_switchover },
    { "member order does not matter", test_order_independent },
    { "unknown option fails init", test_option_refused },
    CU_TEST_INFO_NULL
};

static CU_SuiteInfo suites[] = {
    { "outoftree", suite_init, suite_clean, NULL, NULL, tests },
    CU_SUITE_INFO_NULL
};

int
main(int argc, char **argv)
{
    return cutest_main(argc, argv, suites);
}
