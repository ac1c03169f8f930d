/*
 * test_policies.c - decision tables for the shipped policies (nodeid,
 * roundrobin, site), each module loaded from the build tree through the
 * loader (TEST_POLICY_DIR, set by policies/Makefile.inc).
 *
 * Every table row is one CUnit test. It is run with the members in several
 * orders (as written, reversed, every rotation, two fixed shuffles): the
 * chosen node and the reason text must be the same in every order.
 *
 * Member spec, space-separated: ID[@SITE][:PRIO][!FLAGS], FLAGS from
 *   i  not eligible     u  unhealthy     x  excluded (also listed in
 *                                           input.excluded, reason "watchdog")
 * A member without @SITE has site "". Sites: "NAME=PRIO ...". Options:
 * "KEY=VALUE ...". expect: the chosen id, or NULL for none (-1).
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cutest.h"
#include "zkelect.h"
#include "policy.h"

#define MAX_MEMBERS 16
#define MAX_CASES   40

#define R_INITIAL   ZKELECT_REASON_INITIAL
#define R_JOINED    ZKELECT_REASON_MEMBER_JOINED
#define R_LEFT      ZKELECT_REASON_MEMBER_LEFT
#define R_CHANGED   ZKELECT_REASON_MEMBER_CHANGED
#define R_LOST      ZKELECT_REASON_LEADER_LOST
#define R_CONFIG    ZKELECT_REASON_CONFIG_CHANGED
#define R_WATCHDOG  ZKELECT_REASON_WATCHDOG
#define R_SWITCH    ZKELECT_REASON_SWITCHOVER

struct pcase {
    const char *desc;             /* test name: what the row checks */
    const char *opts;             /* policy options, "" for none */
    const char *members;          /* member spec (see above) */
    const char *sites;            /* site priorities, "" for none */
    const char *current;          /* current leader, or NULL */
    int present;                  /* current_present */
    const char *cursite;          /* current_leader_site, or NULL */
    const char *previous;         /* previous leader, or NULL */
    unsigned reasons;             /* ZKELECT_REASON_* */
    const char *target;           /* switchover target, or NULL */
    const char *expect;           /* expected leader id, NULL for none */
    const char *why;              /* substring of the reason, or NULL */
};

/* ------------------------------------------------------------------------
 * nodeid
 */
static const struct pcase nodeid_cases[] = {
    { "lowest id wins", "", "n3 n1 n2", "", NULL, 0, NULL, NULL, R_INITIAL, NULL,
      "n1", "lowest node id n1" },
    { "numeric-aware: n2 before n10", "", "n10 n11 n2", "", NULL, 0, NULL, NULL,
      R_INITIAL, NULL, "n2", NULL },
    { "numeric-aware: n9 before n10a", "", "n10a n10b n9", "", NULL, 0, NULL, NULL,
      R_INITIAL, NULL, "n9", NULL },
    { "same number: fewer leading zeros first", "", "n02 n3 n2", "", NULL, 0, NULL,
      NULL, R_INITIAL, NULL, "n2", NULL },
    { "ineligible lowest skipped", "", "n1!i n2 n3", "", NULL, 0, NULL, NULL,
      R_INITIAL, NULL, "n2", NULL },
    { "unhealthy lowest skipped", "", "n1!u n2 n3", "", NULL, 0, NULL, NULL,
      R_CHANGED, NULL, "n2", NULL },
    { "excluded lowest skipped", "", "n1!x n2 n3", "", NULL, 0, NULL, NULL,
      R_WATCHDOG, NULL, "n2", NULL },
    { "none can lead", "", "n1!i n2!u n3!x", "", NULL, 0, NULL, NULL, R_INITIAL, NULL,
      NULL, "no eligible node" },
    { "empty group", "", "", "", NULL, 0, NULL, NULL, R_INITIAL, NULL, NULL,
      "no eligible node" },
    { "preempt=off keeps the present leader", "", "n1 n2 n3", "", "n3", 1, NULL, NULL,
      R_JOINED, NULL, "n3", "preempt=off" },
    { "preempt=on lowest id takes over", "preempt=on", "n1 n2 n3", "", "n3", 1, NULL,
      NULL, R_JOINED, NULL, "n1", "takes over from n3" },
    { "preempt=off explicit", "preempt=off", "n1 n2 n3", "", "n2", 1, NULL, NULL,
      R_JOINED, NULL, "n2", NULL },
    { "current leader still lowest: no change", "preempt=on", "n1 n2", "", "n1", 1,
      NULL, NULL, R_LEFT, NULL, "n1", "current leader" },
    { "absent leader replaced", "", "n2 n3", "", "n1", 0, NULL, NULL, R_LOST, NULL,
      "n2", NULL },
    { "present flag without member: replaced", "", "n2 n3", "", "n1", 1, NULL, NULL,
      R_LOST, NULL, "n2", NULL },
    { "unhealthy leader replaced with preempt=off", "", "n1 n2!u n3", "", "n2", 1,
      NULL, NULL, R_CHANGED, NULL, "n1", NULL },
    { "excluded leader replaced", "", "n1!x n2 n3", "", "n1", 1, NULL, NULL,
      R_WATCHDOG, NULL, "n2", NULL },
    { "switchover to a valid target", "", "n1 n2 n3", "", "n1", 1, NULL, NULL,
      R_SWITCH, "n3", "n3", "switchover to n3" },
    { "switchover target ineligible: refused", "", "n1 n2!i n3", "", "n1", 1, NULL,
      NULL, R_SWITCH, "n2", NULL, "n2 cannot lead (not eligible)" },
    { "switchover target excluded: refused", "", "n1 n2!x n3", "", "n1", 1, NULL,
      NULL, R_SWITCH, "n2", NULL, "n2 cannot lead (watchdog)" },
    { "switchover target unknown: refused", "", "n1 n2", "", "n1", 1, NULL, NULL,
      R_SWITCH, "n7", NULL, "not a live member" },
    { "switchover without target: lowest other", "", "n3 n1 n2", "", "n1", 1, NULL,
      NULL, R_SWITCH, NULL, "n2", "lowest other node id n2" },
    { "switchover without target: no other node", "", "n1 n2!i", "", "n1", 1, NULL,
      NULL, R_SWITCH, NULL, NULL, "no node other than n1" },
    { "switchover target is the leader: no change", "", "n1 n2", "", "n2", 1, NULL,
      NULL, R_SWITCH, "n2", "n2", NULL },
    { NULL, NULL, NULL, NULL, NULL, 0, NULL, NULL, 0, NULL, NULL, NULL }
};

/* ------------------------------------------------------------------------
 * roundrobin
 */
static const struct pcase roundrobin_cases[] = {
    { "no leader ever: lowest id", "", "n3 n1 n2", "", NULL, 0, NULL, NULL, R_INITIAL,
      NULL, "n1", "lowest node id n1" },
    { "present leader kept", "", "n1 n2 n3", "", "n2", 1, NULL, NULL, R_JOINED, NULL,
      "n2", "kept" },
    { "member changes do not move the leader", "", "n1 n2 n3 n4", "", "n3", 1, NULL,
      NULL, R_CHANGED | R_LEFT, NULL, "n3", NULL },
    { "absent leader: next after it", "", "n1 n3 n4", "", "n2", 0, NULL, NULL, R_LOST,
      NULL, "n3", "next after leader n2" },
    { "absent highest leader: wraps to lowest", "", "n1 n2 n3", "", "n4", 0, NULL, NULL,
      R_LOST, NULL, "n1", "wrapped around" },
    { "unhealthy leader: next", "", "n1 n2!u n3", "", "n2", 1, NULL, NULL, R_CHANGED,
      NULL, "n3", NULL },
    { "ineligible leader: next skips ineligible", "", "n1 n2!i n3!i n4", "", "n2", 1,
      NULL, NULL, R_CHANGED, NULL, "n4", NULL },
    { "watchdog moves on from a leader that can lead", "", "n1 n2 n3", "", "n2", 1,
      NULL, NULL, R_WATCHDOG, NULL, "n3", "watchdog" },
    { "watchdog on the highest wraps", "", "n1 n2 n3", "", "n3", 1, NULL, NULL,
      R_WATCHDOG, NULL, "n1", "wrapped around" },
    { "watchdog with the leader excluded", "", "n1 n2!x n3", "", "n2", 1, NULL, NULL,
      R_WATCHDOG, NULL, "n3", NULL },
    { "watchdog, only the stalled leader can lead", "", "n1!i n2", "", "n2", 1, NULL,
      NULL, R_WATCHDOG, NULL, "n2", NULL },
    { "numeric-aware rotation: n2 then n10", "", "n1 n2 n10", "", "n2", 1, NULL, NULL,
      R_WATCHDOG, NULL, "n10", NULL },
    { "no current leader: after previous", "", "n1 n2 n3", "", NULL, 0, NULL, "n2",
      R_INITIAL, NULL, "n3", "previous leader n2" },
    { "no current leader: previous highest wraps", "", "n1 n2 n3", "", NULL, 0, NULL,
      "n3", R_INITIAL, NULL, "n1", "wrapped around" },
    { "no current leader: previous gone", "", "n1 n3 n5", "", NULL, 0, NULL, "n4",
      R_INITIAL, NULL, "n5", NULL },
    { "current leader anchors, not previous", "", "n1 n2 n3 n4", "", "n3", 0, NULL, "n1",
      R_LOST, NULL, "n4", NULL },
    { "none can lead", "", "n1!i n2!u n3!x", "", "n2", 1, NULL, NULL, R_CHANGED, NULL,
      NULL, "no eligible node" },
    { "empty group", "", "", "", "n1", 0, NULL, NULL, R_LEFT, NULL, NULL, NULL },
    { "switchover to a valid target", "", "n1 n2 n3 n4", "", "n1", 1, NULL, NULL,
      R_SWITCH, "n4", "n4", "switchover to n4" },
    { "switchover target unhealthy: refused", "", "n1 n2!u", "", "n1", 1, NULL, NULL,
      R_SWITCH, "n2", NULL, "unhealthy" },
    { "switchover target unknown: refused", "", "n1 n2", "", "n1", 1, NULL, NULL,
      R_SWITCH, "nx", NULL, "not a live member" },
    { "switchover without target: next", "", "n1 n2 n3", "", "n2", 1, NULL, NULL,
      R_SWITCH, NULL, "n3", "switchover: next after leader n2" },
    { "switchover without target wraps", "", "n1 n2 n3", "", "n3", 1, NULL, NULL,
      R_SWITCH, NULL, "n1", NULL },
    { "switchover without target: no other node", "", "n1 n2!u", "", "n1", 1, NULL,
      NULL, R_SWITCH, NULL, NULL, "no node other than n1" },
    { NULL, NULL, NULL, NULL, NULL, 0, NULL, NULL, 0, NULL, NULL, NULL }
};

/* ------------------------------------------------------------------------
 * site
 */
#define SITES "dc1=100 dc2=50"
static const struct pcase site_cases[] = {
    { "highest site wins over node priority", "", "a1@dc2:10 b1@dc1:1", SITES, NULL, 0,
      NULL, NULL, R_INITIAL, NULL, "b1", "site dc1 (100), node priority 1" },
    { "node priority inside the site", "", "n1@dc1:5 n2@dc1:10 n3@dc2:99", SITES, NULL,
      0, NULL, NULL, R_INITIAL, NULL, "n2", NULL },
    { "tie on priorities: lowest id (numeric)", "", "n10@dc1:5 n2@dc1:5 n3@dc1:5",
      SITES, NULL, 0, NULL, NULL, R_INITIAL, NULL, "n2", NULL },
    { "unlisted site never leads", "", "n1@dc9:100 n2@dc2:1", SITES, NULL, 0, NULL,
      NULL, R_INITIAL, NULL, "n2", NULL },
    { "empty site never leads", "", "n1:100 n2@dc2:1", SITES, NULL, 0, NULL, NULL,
      R_INITIAL, NULL, "n2", NULL },
    { "only unlisted and empty sites: none", "", "n1@dc9 n2", SITES, NULL, 0, NULL,
      NULL, R_INITIAL, NULL, NULL,
      "no eligible node: nodes without a site never lead, site dc9 is not configured" },
    { "no site config at all: none", "", "n1@dc1 n2@dc2", "", NULL, 0, NULL, NULL,
      R_INITIAL, NULL, NULL, "not configured" },
    { "maintenance site alone: none", "", "n1@dc1 n2@dc1", "dc1=0", "n1", 1, "dc1",
      NULL, R_CONFIG, NULL, NULL,
      "no eligible node: site dc1 is in maintenance (priority 0)" },
    { "negative site priority never leads", "", "n1@dc1:100 n2@dc2", "dc1=-1 dc2=50",
      NULL, 0, NULL, NULL, R_INITIAL, NULL, "n2", NULL },
    { "leader on a maintenance site loses (preempt=off)", "", "n1@dc1:9 n2@dc2",
      "dc1=0 dc2=50", "n1", 1, "dc1", NULL, R_CONFIG, NULL, "n2", NULL },
    { "ineligible and unhealthy best skipped", "", "n1@dc1!i n2@dc1!u n3@dc2 n4@dc1!x",
      SITES, NULL, 0, NULL, NULL, R_INITIAL, NULL, "n3", NULL },
    { "current leader is best: no change", "preempt=on", "n1@dc1 n2@dc2", SITES, "n1",
      1, "dc1", NULL, R_JOINED, NULL, "n1", "current leader is the best node" },
    { "returning site, preempt=off: leader stays", "", "n1@dc1 n3@dc2", SITES, "n3", 1,
      "dc2", NULL, R_JOINED, NULL, "n3", "kept (preempt=off)" },
    { "returning site, preempt=on: moves back", "preempt=on", "n1@dc1 n3@dc2", SITES,
      "n3", 1, "dc2", NULL, R_JOINED, NULL, "n1", "preempt=on, replaces n3" },
    { "node priority raised, preempt=off: stays", "", "n1@dc1:1 n2@dc1:10", SITES,
      "n1", 1, "dc1", NULL, R_CHANGED, NULL, "n1", NULL },
    { "config change honoured as preempt=on", "", "n1@dc1 n3@dc2", "dc1=10 dc2=50",
      "n1", 1, "dc1", NULL, R_CONFIG, NULL, "n3", "config changed, replaces n1" },
    { "config change with the leader still best", "", "n1@dc1 n3@dc2", SITES, "n1", 1,
      "dc1", NULL, R_CONFIG, NULL, "n1", NULL },
    { "leader lost, same-site: best overall", "", "n2@dc1:5 n3@dc2:10", SITES, "n1",
      0, "dc1", NULL, R_LOST, NULL, "n2", NULL },
    { "leader lost, other-site: other site", "failover=other-site",
      "n2@dc1:5 n3@dc2:10", SITES, "n1", 0, "dc1", NULL, R_LOST, NULL, "n3",
      "failover from site dc1" },
    { "other-site: best of the other sites", "failover=other-site",
      "n2@dc1 n3@dc2:1 n4@dc3:9 n5@dc2:2", "dc1=100 dc2=50 dc3=10", "n1", 0, "dc1",
      NULL, R_LOST, NULL, "n5", NULL },
    { "other-site: no other site eligible, same site", "failover=other-site",
      "n2@dc1 n3@dc2!u n4@dc9", SITES, "n1", 0, "dc1", NULL, R_LOST, NULL, "n2",
      "no other site than dc1" },
    { "other-site: maintenance site is not a target", "failover=other-site",
      "n2@dc1 n3@dc2 n4@dc3", "dc1=100 dc2=0 dc3=10", "n1", 0, "dc1", NULL, R_LOST,
      NULL, "n4", NULL },
    { "other-site: unhealthy leader's own site known", "failover=other-site",
      "n1@dc1!u n2@dc1 n3@dc2", SITES, "n1", 1, NULL, NULL, R_CHANGED, NULL, "n3",
      NULL },
    { "other-site: present healthy leader stays", "failover=other-site",
      "n1@dc1 n2@dc1 n3@dc2", SITES, "n1", 1, "dc1", NULL, R_JOINED, NULL, "n1", NULL },
    { "other-site: unknown failed site, plain order", "failover=other-site",
      "n2@dc1 n3@dc2", SITES, "n1", 0, "", NULL, R_LOST, NULL, "n2", NULL },
    { "switchover to a lower site's node", "", "n1@dc1 n2@dc1 n3@dc2", SITES, "n1", 1,
      "dc1", NULL, R_SWITCH, "n3", "n3", "switchover to n3" },
    { "switchover target on maintenance site: refused", "", "n1@dc1 n3@dc2",
      "dc1=100 dc2=0", "n1", 1, "dc1", NULL, R_SWITCH, "n3", NULL,
      "site dc2, which never leads" },
    { "switchover target unhealthy: refused", "", "n1@dc1 n3@dc2!u", SITES, "n1", 1,
      "dc1", NULL, R_SWITCH, "n3", NULL, "unhealthy" },
    { "switchover without target: best other", "", "n1@dc1 n2@dc1:1 n3@dc2:10", SITES,
      "n1", 1, "dc1", NULL, R_SWITCH, NULL, "n2", "best other node n2" },
    { "switchover without target: no other node", "", "n1@dc1 n2@dc9 n3@dc2!i", SITES,
      "n1", 1, "dc1", NULL, R_SWITCH, NULL, NULL, "no node other than n1" },
    { "duplicate site entry: the first counts", "", "n1@dc1 n2@dc2", "dc1=0 dc1=100 dc2=5",
      NULL, 0, NULL, NULL, R_INITIAL, NULL, "n2", NULL },
    { NULL, NULL, NULL, NULL, NULL, 0, NULL, NULL, 0, NULL, NULL, NULL }
};

/* ------------------------------------------------------------------------
 * The runner
 */

struct built {
    struct zkelect_member m[MAX_MEMBERS];       /* members, as written */
    size_t n;                                   /* number of members */
    struct zkelect_exclusion ex[MAX_MEMBERS];   /* from the 'x' flags */
    size_t nex;                                 /* number of exclusions */
    struct zkelect_site_priority s[MAX_MEMBERS]; /* sites */
    size_t ns;                                  /* number of sites */
    struct zkelect_option o[8];                 /* options */
    size_t no;                                  /* number of options */
    char buf[1024];                             /* the strings above point here */
};

static const char *suite_policy;               /* set by the suite init */
static const struct pcase *suite_cases;        /* set by the suite init */

/* Split spec into words copied into b->buf; returns the count. */
static size_t
split(struct built *b, size_t *used, const char *spec, char **words, size_t max)
{
    size_t n = 0, len;
    const char *p = spec, *e;

    while (*p != '\0') {
        while (*p == ' ')
            p++;
        if (*p == '\0')
            break;
        for (e = p; *e != '\0' && *e != ' '; e++)
            ;
        len = (size_t)(e - p);
        if (n == max || *used + len + 1 > sizeof(b->buf))
            abort();    /* a table bug */
        memcpy(b->buf + *used, p, len);
        b->buf[*used + len] = '\0';
        words[n++] = b->buf + *used;
        *used += len + 1;
        p = e;
    }
    return n;
}

static void
build(struct built *b, const struct pcase *c)
{
    char *w[MAX_MEMBERS], *p;
    size_t used = 0, i, n;

    memset(b, 0, sizeof(*b));
    n = split(b, &used, c->members, w, MAX_MEMBERS);
    for (i = 0; i < n; i++) {
        struct zkelect_member *m = &b->m[i];

        m->eligible = m->healthy = 1;
        m->seq = (int64_t)(i + 1) * 10;
        m->site = "";
        if ((p = strchr(w[i], '!')) != NULL) {
            *p++ = '\0';
            m->eligible = strchr(p, 'i') == NULL;
            m->healthy = strchr(p, 'u') == NULL;
            m->excluded = strchr(p, 'x') != NULL;
        }
        if ((p = strchr(w[i], ':')) != NULL) {
            *p++ = '\0';
            m->priority = atoi(p);
        }
        if ((p = strchr(w[i], '@')) != NULL) {
            *p++ = '\0';
            m->site = p;
        }
        m->id = w[i];
        if (m->excluded) {
            b->ex[b->nex].id = m->id;
            b->ex[b->nex].reason = "watchdog";
            b->ex[b->nex].remaining_ms = 30000;
            b->nex++;
        }
    }
    b->n = n;
    n = split(b, &used, c->sites, w, MAX_MEMBERS);
    for (i = 0; i < n; i++) {
        p = strchr(w[i], '=');
        *p++ = '\0';
        b->s[i].site = w[i];
        b->s[i].priority = atoi(p);
    }
    b->ns = n;
    n = split(b, &used, c->opts, w, 8);
    for (i = 0; i < n; i++) {
        p = strchr(w[i], '=');
        *p++ = '\0';
        b->o[i].key = w[i];
        b->o[i].value = p;
    }
    b->no = n;
}

/* The member order of permutation k of n (0: as written, 1: reversed,
 * 2..n: rotations, then two fixed shuffles). Returns 0 when k is past the end. */
static int
permute(size_t k, size_t n, size_t *order)
{
    size_t i, j, t;
    unsigned long x;

    if (k >= n + 4 || (n <= 1 && k > 0))
        return 0;
    for (i = 0; i < n; i++)
        order[i] = i;
    if (k == 1) {
        for (i = 0; i < n; i++)
            order[i] = n - 1 - i;
    } else if (k >= 2 && k < n + 2) {
        for (i = 0; i < n; i++)
            order[i] = (i + k - 1) % n;
    } else if (k >= n + 2) {
        x = 2654435761ul * (k + 1);
        for (i = n - 1; i > 0; i--) {
            x = x * 6364136223846793005ul + 1442695040888963407ul;
            j = (size_t)((x >> 33) % (i + 1));
            t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
    }
    return 1;
}

static void fail_case(const struct pcase *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Record a failed assertion naming the policy and the row. */
static void
fail_case(const struct pcase *c, const char *fmt, ...)
{
    char msg[600], detail[400];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(detail, sizeof(detail), fmt, ap);
    va_end(ap);
    snprintf(msg, sizeof(msg), "%s/%s: %s", suite_policy, c->desc, detail);
    CU_assertImplementation(CU_FALSE, __LINE__, msg, __FILE__, "", CU_FALSE);
    fprintf(stderr, "FAIL %s\n", msg);
}

static void
run_case(size_t idx)
{
    const struct pcase *c = &suite_cases[idx];
    struct zkelect_member perm[MAX_MEMBERS];
    struct zkelect_policy_input in;
    struct zke_policy *p = NULL;
    struct built b;
    size_t order[MAX_MEMBERS], k, i;
    char err[256], reason[256], first[256];
    const char *got;
    int rc, chosen;

    build(&b, c);
    rc = zke_policy_load(suite_policy, TEST_POLICY_DIR, b.o, b.no, &p, err, sizeof(err));
    if (rc != 0) {
        fail_case(c, "load failed: %s", err);
        return;
    }
    CU_PASS("loaded");
    for (k = 0; permute(k, b.n, order); k++) {
        for (i = 0; i < b.n; i++)
            perm[i] = b.m[order[i]];
        memset(&in, 0, sizeof(in));
        in.size = sizeof(in);
        in.members = perm;
        in.nmembers = b.n;
        in.current_leader = c->current;
        in.current_leader_site = c->cursite;
        in.current_present = c->present;
        in.current_status = c->current ? ZKELECT_LEADER_READY : ZKELECT_LEADER_NONE;
        in.previous_leader = c->previous;
        in.excluded = b.ex;
        in.nexcluded = b.nex;
        in.sites = b.s;
        in.nsites = b.ns;
        in.options = b.o;
        in.noptions = b.no;
        in.reasons = c->reasons;
        in.switchover_target = c->target;

        rc = zke_policy_choose(p, &in, &chosen, reason, sizeof(reason));
        if (rc != 0) {
            fail_case(c, "choose failed: %s", reason);
            break;
        }
        got = chosen >= 0 ? perm[chosen].id : NULL;
        if ((got == NULL) != (c->expect == NULL) ||
            (got != NULL && strcmp(got, c->expect) != 0)) {
            fail_case(c, "order %zu: chose %s, want %s", k, got ? got : "none",
                      c->expect ? c->expect : "none");
            break;
        }
        if (reason[0] == '\0') {
            fail_case(c, "empty reason");
            break;
        }
        if (c->why != NULL && strstr(reason, c->why) == NULL) {
            fail_case(c, "reason '%s' lacks '%s'", reason, c->why);
            break;
        }
        if (k == 0) {
            snprintf(first, sizeof(first), "%s", reason);
        } else if (strcmp(first, reason) != 0) {
            fail_case(c, "reason depends on member order: '%s' vs '%s'", first, reason);
            break;
        }
    }
    zke_policy_unload(p);
}

/* One CUnit test function per table row: case_fn[i] runs row i of the suite. */
#define CASE_FN(n) static void case_##n(void) { run_case(n); }
#define CASE_FNS_10(d) CASE_FN(d##0) CASE_FN(d##1) CASE_FN(d##2) CASE_FN(d##3) \
    CASE_FN(d##4) CASE_FN(d##5) CASE_FN(d##6) CASE_FN(d##7) CASE_FN(d##8) CASE_FN(d##9)
CASE_FN(0) CASE_FN(1) CASE_FN(2) CASE_FN(3) CASE_FN(4)
CASE_FN(5) CASE_FN(6) CASE_FN(7) CASE_FN(8) CASE_FN(9)
CASE_FNS_10(1) CASE_FNS_10(2) CASE_FNS_10(3)

static CU_TestFunc case_fn[MAX_CASES] = {
    case_0, case_1, case_2, case_3, case_4, case_5, case_6, case_7, case_8, case_9,
    case_10, case_11, case_12, case_13, case_14, case_15, case_16, case_17, case_18,
    case_19, case_20, case_21, case_22, case_23, case_24, case_25, case_26, case_27,
    case_28, case_29, case_30, case_31, case_32, case_33, case_34, case_35, case_36,
    case_37, case_38, case_39
};

static int
nodeid_suite(void)
{
    suite_policy = "nodeid";
    suite_cases = nodeid_cases;
    return 0;
}

static int
roundrobin_suite(void)
{
    suite_policy = "roundrobin";
    suite_cases = roundrobin_cases;
    return 0;
}

static int
site_suite(void)
{
    suite_policy = "site";
    suite_cases = site_cases;
    return 0;
}

/* ------------------------------------------------------------------------
 * choose_set (ABI 1.1): one table for the three policies
 *
 * holders: the slot holders, one word per slot ("-" empty); their number
 * is N (leaders). current_leader is slot 0's holder, present when it is a
 * member. expect: the ordered set, space-separated ("" for none).
 */
struct scase {
    const char *desc;             /* test name */
    const char *policy;           /* nodeid, roundrobin or site */
    const char *opts;             /* policy options */
    const char *members;          /* member spec (as for struct pcase) */
    const char *sites;            /* site priorities */
    const char *holders;          /* slot holders; their number is N */
    unsigned reasons;             /* ZKELECT_REASON_* */
    const char *target;           /* switchover target, or NULL */
    const char *expect;           /* the ordered set */
    const char *why;              /* substring of the reason, or NULL */
};

#define S3 "dc1=100 dc2=50 dc3=10"
#define M3 "a1@dc1 a2@dc1 b1@dc2 b2@dc2 c1@dc3"
static const struct scase set_cases[] = {
    /* nodeid */
    { "nodeid: the N lowest ids", "nodeid", "", "n3 n1 n4 n2", "", "- - -", R_INITIAL,
      NULL, "n1 n2 n3", "3 of 3 leaders: n1 n2 n3" },
    { "nodeid: fewer members than N", "nodeid", "", "n2 n1", "", "- - -", R_INITIAL,
      NULL, "n1 n2", "2 of 3 leaders" },
    { "nodeid: exclusions, ineligible, unhealthy skipped", "nodeid", "",
      "n1!x n2!i n3 n4!u n5", "", "- -", R_WATCHDOG, NULL, "n3 n5", NULL },
    { "nodeid: preempt=off keeps the holders", "nodeid", "", "n1 n2 n3 n4", "", "n3 n4",
      R_JOINED, NULL, "n3 n4", "current leader n3 kept" },
    { "nodeid: preempt=on takes the lowest ids", "nodeid", "preempt=on", "n1 n2 n3 n4",
      "", "n3 n4", R_JOINED, NULL, "n1 n2", NULL },
    { "nodeid: a lost holder replaced, the other kept", "nodeid", "", "n1 n2 n4", "",
      "n3 n4", R_LOST, NULL, "n1 n4", NULL },
    { "nodeid: switchover leaves the leader out", "nodeid", "", "n1 n2 n3", "", "n1 n2",
      R_SWITCH, NULL, "n2 n3", "lowest other node id n2" },
    { "nodeid: switchover to a target", "nodeid", "", "n1 n2 n3", "", "n1 n2", R_SWITCH,
      "n3", "n3 n2", "switchover to n3" },
    { "nodeid: switchover refused: none", "nodeid", "", "n1 n2 n3!u", "", "n1 n2",
      R_SWITCH, "n3", "", "unhealthy" },
    { "nodeid: none can lead", "nodeid", "", "n1!i n2!u", "", "n1 n2", R_CHANGED, NULL,
      "", "no eligible node" },
    /* roundrobin */
    { "roundrobin: no holders, the ring from the lowest", "roundrobin", "",
      "n3 n1 n2 n4", "", "- - -", R_INITIAL, NULL, "n1 n2 n3", NULL },
    { "roundrobin: holders kept", "roundrobin", "", "n1 n2 n3 n4", "", "n3 n4", R_JOINED,
      NULL, "n3 n4", NULL },
    { "roundrobin: a lost holder, the next after the first", "roundrobin", "",
      "n1 n2 n4 n5", "", "n2 n3", R_LOST, NULL, "n2 n4", NULL },
    { "roundrobin: slot 0 lost, the ring after it", "roundrobin", "", "n1 n3 n4 n5", "",
      "n2 n3", R_LOST, NULL, "n3 n4", NULL },
    { "roundrobin: the ring wraps around", "roundrobin", "", "n1 n2 n3 n4", "", "n4 -",
      R_JOINED, NULL, "n4 n1", NULL },
    { "roundrobin: watchdog leaves the stalled leader out", "roundrobin", "",
      "n1 n2 n3 n4", "", "n2 n3", R_WATCHDOG, NULL, "n3 n4", NULL },
    { "roundrobin: fewer than N can lead", "roundrobin", "", "n1 n2!u n3!x", "",
      "- - -", R_INITIAL, NULL, "n1", "1 of 3 leaders" },
    /* site */
    { "site: spread=none fills the best site first", "site", "", M3, S3, "- - -",
      R_INITIAL, NULL, "a1 a2 b1", NULL },
    { "site: spread=sites, one per site", "site", "spread=sites", M3, S3, "- - -",
      R_INITIAL, NULL, "a1 b1 c1", NULL },
    { "site: spread=sites, round after round", "site", "spread=sites", M3, S3,
      "- - - - -", R_INITIAL, NULL, "a1 b1 c1 a2 b2", NULL },
    { "site: spread=none explicit", "site", "spread=none", M3, S3, "- - - -", R_INITIAL,
      NULL, "a1 a2 b1 b2", NULL },
    { "site: spread=sites, site dc1 lost", "site", "spread=sites",
      "b1@dc2 b2@dc2 c1@dc3", S3, "a1 b1 c1", R_LOST, NULL, "b1 c1 b2", NULL },
    { "site: spread=sites, two sites, dc2 lost", "site", "spread=sites",
      "a1@dc1 a2@dc1", "dc1=100 dc2=50", "a1 b1", R_LOST, NULL, "a1 a2", NULL },
    { "site: spread=sites, node priority inside a site", "site", "spread=sites",
      "a1@dc1:1 a2@dc1:9 b1@dc2", S3, "- -", R_INITIAL, NULL, "a2 b1", NULL },
    { "site: preempt=off keeps holders on one site", "site", "",
      "a1@dc1 b1@dc2 b2@dc2", S3, "b1 b2", R_JOINED, NULL, "b1 b2", "kept (preempt=off)" },
    { "site: spread=sites, preempt=off keeps them too", "site", "spread=sites",
      "a1@dc1 b1@dc2 b2@dc2", S3, "b1 b2", R_JOINED, NULL, "b1 b2", NULL },
    { "site: preempt=on moves to the best site", "site", "preempt=on",
      "a1@dc1 b1@dc2 b2@dc2", S3, "b1 b2", R_JOINED, NULL, "a1 b1", NULL },
    { "site: config change is not preempt=off", "site", "",
      "a1@dc1 b1@dc2 b2@dc2", S3, "b1 b2", R_CONFIG, NULL, "a1 b1", NULL },
    { "site: maintenance site never in the set", "site", "spread=sites",
      "a1@dc1 b1@dc2 b2@dc2", "dc1=0 dc2=50", "a1 -", R_CONFIG, NULL, "b1 b2", NULL },
    { "site: holder on a maintenance site dropped", "site", "", "a1@dc1 b1@dc2 b2@dc2",
      "dc1=100 dc2=0", "a1 b1", R_CONFIG, NULL, "a1", "1 of 2 leaders" },
    { "site: exclusions and unhealthy skipped", "site", "spread=sites",
      "a1@dc1!x a2@dc1 b1@dc2!u b2@dc2", S3, "- -", R_WATCHDOG, NULL, "a2 b2", NULL },
    { "site: switchover to a target keeps the others", "site", "", "a1@dc1 a2@dc1 b1@dc2",
      S3, "a1 a2", R_SWITCH, "b1", "b1 a2", "switchover to b1" },
    { "site: fewer members than N", "site", "spread=sites", "a1@dc1 b1@dc2", S3,
      "- - - -", R_INITIAL, NULL, "a1 b1", "2 of 4 leaders" },
    { NULL, NULL, NULL, NULL, NULL, NULL, 0, NULL, NULL, NULL }
};

static void
fail_scase(const struct scase *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
fail_scase(const struct scase *c, const char *fmt, ...)
{
    char msg[600], detail[400];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(detail, sizeof(detail), fmt, ap);
    va_end(ap);
    snprintf(msg, sizeof(msg), "set/%s: %s", c->desc, detail);
    CU_assertImplementation(CU_FALSE, __LINE__, msg, __FILE__, "", CU_FALSE);
    fprintf(stderr, "FAIL %s\n", msg);
}

static void
run_scase(size_t idx)
{
    const struct scase *c = &set_cases[idx];
    struct pcase pc;
    struct zkelect_member perm[MAX_MEMBERS];
    struct zkelect_policy_input in;
    struct zke_policy *p = NULL;
    struct built b;
    const char *holders[ZKELECT_POLICY_SLOTS_MAX];
    char hbuf[256], *w, *save, err[256], reason[256], first[256], got[256];
    size_t order[MAX_MEMBERS], k, i, nh = 0, used;
    int rc, set[ZKELECT_POLICY_SLOTS_MAX], n, present = 0;

    memset(&pc, 0, sizeof(pc));
    pc.opts = c->opts;
    pc.members = c->members;
    pc.sites = c->sites;
    build(&b, &pc);
    snprintf(hbuf, sizeof(hbuf), "%s", c->holders);
    for (w = strtok_r(hbuf, " ", &save); w && nh < ZKELECT_POLICY_SLOTS_MAX;
         w = strtok_r(NULL, " ", &save))
        holders[nh++] = strcmp(w, "-") == 0 ? NULL : w;
    for (i = 0; i < b.n; i++)
        present |= holders[0] != NULL && strcmp(b.m[i].id, holders[0]) == 0;
    rc = zke_policy_load(c->policy, TEST_POLICY_DIR, b.o, b.no, &p, err, sizeof(err));
    if (rc != 0) {
        fail_scase(c, "load failed: %s", err);
        return;
    }
    for (k = 0; permute(k, b.n, order); k++) {
        for (i = 0; i < b.n; i++)
            perm[i] = b.m[order[i]];
        memset(&in, 0, sizeof(in));
        in.size = sizeof(in);
        in.members = perm;
        in.nmembers = b.n;
        in.current_leader = holders[0];
        in.current_present = present;
        in.current_status = holders[0] ? ZKELECT_LEADER_READY : ZKELECT_LEADER_NONE;
        in.excluded = b.ex;
        in.nexcluded = b.nex;
        in.sites = b.s;
        in.nsites = b.ns;
        in.options = b.o;
        in.noptions = b.no;
        in.reasons = c->reasons;
        in.switchover_target = c->target;
        in.leaders = (unsigned)nh;
        in.slot_holders = holders;
        in.nslots = nh;

        rc = zke_policy_choose_set(p, &in, set, &n, reason, sizeof(reason));
        if (rc != 0) {
            fail_scase(c, "choose_set failed: %s", reason);
            break;
        }
        got[0] = '\0';
        for (i = 0, used = 0; i < (size_t)n; i++)
            used += (size_t)snprintf(got + used, sizeof(got) - used, "%s%s", i ? " " : "",
                                     perm[set[i]].id);
        if (strcmp(got, c->expect) != 0) {
            fail_scase(c, "order %zu: chose [%s], want [%s] (%s)", k, got, c->expect,
                       reason);
            break;
        }
        if (reason[0] == '\0' || (c->why != NULL && strstr(reason, c->why) == NULL)) {
            fail_scase(c, "reason '%s' lacks '%s'", reason, c->why ? c->why : "text");
            break;
        }
        if (k == 0) {
            snprintf(first, sizeof(first), "%s", reason);
        } else if (strcmp(first, reason) != 0) {
            fail_scase(c, "reason depends on member order: '%s' vs '%s'", first, reason);
            break;
        }
    }
    zke_policy_unload(p);
}

#define SCASE_FN(n) static void scase_##n(void) { run_scase(n); }
#define SCASE_FNS_10(d) SCASE_FN(d##0) SCASE_FN(d##1) SCASE_FN(d##2) SCASE_FN(d##3) \
    SCASE_FN(d##4) SCASE_FN(d##5) SCASE_FN(d##6) SCASE_FN(d##7) SCASE_FN(d##8) SCASE_FN(d##9)
SCASE_FN(0) SCASE_FN(1) SCASE_FN(2) SCASE_FN(3) SCASE_FN(4)
SCASE_FN(5) SCASE_FN(6) SCASE_FN(7) SCASE_FN(8) SCASE_FN(9)
SCASE_FNS_10(1) SCASE_FNS_10(2) SCASE_FNS_10(3)

static CU_TestFunc scase_fn[MAX_CASES] = {
    scase_0, scase_1, scase_2, scase_3, scase_4, scase_5, scase_6, scase_7, scase_8,
    scase_9, scase_10, scase_11, scase_12, scase_13, scase_14, scase_15, scase_16,
    scase_17, scase_18, scase_19, scase_20, scase_21, scase_22, scase_23, scase_24,
    scase_25, scase_26, scase_27, scase_28, scase_29, scase_30, scase_31, scase_32,
    scase_33, scase_34, scase_35, scase_36, scase_37, scase_38, scase_39
};

/*
 * The first element of choose_set is what choose() returns, on generated
 * inputs for every policy and option set; the set is valid (the host's
 * checks pass), and a policy that keeps holders keeps every one that can
 * still lead (preempt=off, roundrobin; not on a switchover, a config change
 * or roundrobin's watchdog), and the set has min(N, can lead) members when
 * nothing is left out.
 */
static void
test_set_first_is_choose(void)
{
    static const struct { const char *policy, *k1, *v1, *k2, *v2, *k3, *v3; } cfg[] = {
        { "nodeid", NULL, NULL, NULL, NULL, NULL, NULL },
        { "nodeid", "preempt", "on", NULL, NULL, NULL, NULL },
        { "roundrobin", NULL, NULL, NULL, NULL, NULL, NULL },
        { "site", NULL, NULL, NULL, NULL, NULL, NULL },
        { "site", "preempt", "on", NULL, NULL, NULL, NULL },
        { "site", "spread", "sites", NULL, NULL, NULL, NULL },
        { "site", "spread", "sites", "preempt", "on", NULL, NULL },
        { "site", "failover", "other-site", "spread", "sites", NULL, NULL },
        { "site", "failover", "other-site", "spread", "none", "preempt", "on" },
    };
    static const char *ids[] = { "n1", "n2", "n3", "n4", "n5", "n6", "n7", "n8", "n9",
                                 "n10" };
    static const char *sitenames[] = { "", "dc1", "dc2", "dc3", "dc9" };
    static const unsigned reasons[] = { R_INITIAL, R_JOINED, R_LEFT, R_CHANGED, R_LOST,
                                        R_CONFIG, R_WATCHDOG, R_SWITCH };
    struct zkelect_member m[10];
    struct zkelect_exclusion ex[10];
    struct zkelect_site_priority sp[3];
    struct zkelect_option o[3];
    struct zkelect_policy_input in;
    struct zke_policy *p;
    const char *holders[ZKELECT_POLICY_SLOTS_MAX];
    char err[512], r1[256], r2[256];
    unsigned long x = 0x9e3779b97f4a7c15ul;
    size_t c, i, nex, no;
    int iter, j, k, nm, one, set[ZKELECT_POLICY_SLOTS_MAX], n, bad, canlead, keeps;
    int compared = 0;

#define RND(n) (x ^= x << 13, x ^= x >> 7, x ^= x << 17, (int)(x % (unsigned long)(n)))
    for (c = 0; c < sizeof(cfg) / sizeof(cfg[0]); c++) {
        no = 0;
        if (cfg[c].k1) { o[no].key = cfg[c].k1; o[no++].value = cfg[c].v1; }
        if (cfg[c].k2) { o[no].key = cfg[c].k2; o[no++].value = cfg[c].v2; }
        if (cfg[c].k3) { o[no].key = cfg[c].k3; o[no++].value = cfg[c].v3; }
        p = NULL;
        if (zke_policy_load(cfg[c].policy, TEST_POLICY_DIR, o, no, &p, err,
                            sizeof(err)) != 0) {
            fprintf(stderr, "load %s: %s\n", cfg[c].policy, err);
            CU_FAIL("load");
            continue;
        }
        bad = 0;
        for (iter = 0; iter < 3000 && !bad; iter++) {
            nm = RND(11);
            nex = 0;
            for (j = 0; j < nm; j++) {
                /* distinct ids: a random subset of ids[], in a random order */
                do {
                    m[j].id = ids[RND(10)];
                    for (k = 0; k < j && strcmp(m[k].id, m[j].id) != 0; k++)
                        ;
                } while (k < j);
                m[j].site = sitenames[RND(5)];
                m[j].priority = RND(3);
                m[j].seq = RND(1000);
                m[j].tags = NULL;
                m[j].ntags = 0;
                m[j].eligible = RND(6) != 0;
                m[j].healthy = RND(6) != 0;
                m[j].excluded = RND(6) == 0;
                if (m[j].excluded) {
                    ex[nex].id = m[j].id;
                    ex[nex].reason = "watchdog slot 1";
                    ex[nex++].remaining_ms = 1000;
                }
            }
            sp[0].site = "dc1";
            sp[0].priority = RND(3) * 50;
            sp[1].site = "dc2";
            sp[1].priority = RND(3) * 50;
            sp[2].site = "dc3";
            sp[2].priority = RND(3) * 50 - 10;
            memset(&in, 0, sizeof(in));
            in.size = sizeof(in);
            in.members = m;
            in.nmembers = (size_t)nm;
            in.leaders = 2 + (unsigned)RND(4);
            for (k = 0; k < (int)in.leaders; k++) {
                /* distinct holders, some empty, some not members */
                do {
                    holders[k] = RND(3) == 0 ? NULL : ids[RND(10)];
                    for (j = 0; j < k && (holders[k] == NULL || holders[j] == NULL ||
                                          strcmp(holders[j], holders[k]) != 0); j++)
                        ;
                } while (j < k);
            }
            in.slot_holders = holders;
            in.nslots = in.leaders;
            in.current_leader = holders[0];
            for (j = 0; j < nm; j++)
                in.current_present |= holders[0] && strcmp(m[j].id, holders[0]) == 0;
            in.current_leader_site = RND(2) ? NULL : sitenames[RND(5)];
            in.previous_leader = RND(2) ? NULL : ids[RND(10)];
            in.excluded = ex;
            in.nexcluded = nex;
            in.sites = sp;
            in.nsites = 3;
            in.options = o;
            in.noptions = no;
            in.reasons = reasons[RND(8)];
            if (in.reasons == R_SWITCH && RND(2))
                in.switchover_target = ids[RND(10)];

            if (zke_policy_choose(p, &in, &one, r1, sizeof(r1)) != 0 ||
                zke_policy_choose_set(p, &in, set, &n, r2, sizeof(r2)) != 0) {
                fprintf(stderr, "%s: iteration %d: %s | %s\n", cfg[c].policy, iter, r1, r2);
                bad = 1;
                break;
            }
            compared++;
            if ((one < 0) != (n == 0) || (one >= 0 && set[0] != one)) {
                fprintf(stderr, "%s (%s=%s): iteration %d: choose %s, choose_set first %s\n",
                        cfg[c].policy, cfg[c].k1 ? cfg[c].k1 : "-", cfg[c].v1 ? cfg[c].v1 : "-",
                        iter, one >= 0 ? m[one].id : "none", n > 0 ? m[set[0]].id : "none");
                bad = 1;
            }
            /* the holders a non-preempting policy must keep */
            keeps = strcmp(cfg[c].policy, "roundrobin") == 0 ? !(in.reasons & (R_SWITCH | R_WATCHDOG))
                    : cfg[c].k1 == NULL || strcmp(cfg[c].v1, "sites") == 0 ||
                      strcmp(cfg[c].v1, "other-site") == 0;
            keeps = keeps && !(in.reasons & (R_SWITCH | R_CONFIG)) &&
                    !(cfg[c].k2 && strcmp(cfg[c].k2, "preempt") == 0) &&
                    !(cfg[c].k3 && strcmp(cfg[c].k3, "preempt") == 0);
            canlead = 0;
            for (j = 0; j < nm; j++) {
                int ok = zkelect_member_can_lead(&m[j]), in_set = 0;
                if (ok && strcmp(cfg[c].policy, "site") == 0) {
                    int prio = 0;
                    for (i = 0; i < 3; i++)
                        if (strcmp(sp[i].site, m[j].site) == 0)
                            prio = sp[i].priority;
                    ok = prio > 0;
                }
                canlead += ok;
                for (k = 0; k < n; k++)
                    in_set |= set[k] == j;
                if (in_set && !ok)
                    bad = 1;          /* the host would have refused it anyway */
                for (k = 0; keeps && ok && k < (int)in.leaders; k++)
                    if (holders[k] && strcmp(holders[k], m[j].id) == 0 && !in_set) {
                        fprintf(stderr, "%s: iteration %d: holder %s of slot %d dropped\n",
                                cfg[c].policy, iter, m[j].id, k);
                        bad = 1;
                    }
            }
            if (!(in.reasons & R_SWITCH) && strcmp(cfg[c].policy, "roundrobin") != 0 &&
                n != (canlead < (int)in.leaders ? canlead : (int)in.leaders)) {
                fprintf(stderr, "%s: iteration %d: %d in the set, %d can lead, N %u\n",
                        cfg[c].policy, iter, n, canlead, in.leaders);
                bad = 1;
            }
        }
        CU_ASSERT_FALSE(bad);
        zke_policy_unload(p);
    }
#undef RND
    CU_ASSERT(compared > 20000);
}

static int
set_suite(void)
{
    suite_policy = "(sets)";
    return 0;
}

/* ------------------------------------------------------------------------
 * Options and descriptors
 */

static void
expect_init_error(const char *policy, const char *k1, const char *v1, const char *k2,
                  const char *v2, const char *what)
{
    struct zkelect_option o[2] = { { k1, v1 }, { k2, v2 } };
    struct zke_policy *p = NULL;
    char err[512];
    int rc;

    rc = zke_policy_load(policy, TEST_POLICY_DIR, o, k2 ? 2 : 1, &p, err, sizeof(err));
    CU_ASSERT_EQUAL(rc, ZKELECT_EPOLINIT);
    CU_ASSERT_PTR_NULL(p);
    if (rc == 0)
        zke_policy_unload(p);
    if (strstr(err, what) == NULL || strstr(err, TEST_POLICY_DIR) == NULL) {
        fprintf(stderr, "%s: message '%s' lacks '%s'\n", policy, err, what);
        CU_FAIL("init message does not name the option");
    }
}

static void
test_options(void)
{
    expect_init_error("nodeid", "prempt", "on", NULL, NULL, "unknown option 'prempt'");
    expect_init_error("nodeid", "preempt", "yes", NULL, NULL,
                      "bad value 'yes' for option 'preempt'");
    expect_init_error("nodeid", "preempt", "on", "preempt", "off", "'preempt' given twice");
    expect_init_error("roundrobin", "preempt", "on", NULL, NULL,
                      "unknown option 'preempt'");
    expect_init_error("site", "failover", "elsewhere", NULL, NULL,
                      "bad value 'elsewhere' for option 'failover'");
    expect_init_error("site", "preempt", "on", "sticky", "on", "unknown option 'sticky'");
    expect_init_error("site", "preempt", "", NULL, NULL, "bad value '' for option 'preempt'");
    expect_init_error("site", "", "x", NULL, NULL, "has no key");
    expect_init_error("site", "spread", "nodes", NULL, NULL,
                      "bad value 'nodes' for option 'spread' (want sites or none)");
    expect_init_error("site", "spread", "sites", "spread", "none", "'spread' given twice");
    expect_init_error("nodeid", "spread", "sites", NULL, NULL, "unknown option 'spread'");
}

static void
test_names(void)
{
    static const char *names[] = { "nodeid", "roundrobin", "site" };
    struct zke_policy *p;
    char err[512], path[512];
    size_t i;

    for (i = 0; i < 3; i++) {
        p = NULL;
        CU_ASSERT_EQUAL_FATAL(zke_policy_load(names[i], TEST_POLICY_DIR, NULL, 0, &p,
                                              err, sizeof(err)), 0);
        CU_ASSERT_STRING_EQUAL(zke_policy_name(p), names[i]);
        snprintf(path, sizeof(path), "%s/%s.so", TEST_POLICY_DIR, names[i]);
        CU_ASSERT_STRING_EQUAL(zke_policy_path(p), path);
        zke_policy_unload(p);
    }
}

/* Every policy refuses to pick anyone from members that all cannot lead. */
static void
test_never_cannot_lead(void)
{
    static const char *names[] = { "nodeid", "roundrobin", "site" };
    static const struct zkelect_site_priority sites[1] = { { "dc1", 10 } };
    struct zkelect_member m[3];
    struct zkelect_policy_input in;
    struct zke_policy *p;
    char err[512];
    unsigned r;
    size_t i, j;
    int chosen;

    memset(m, 0, sizeof(m));
    for (j = 0; j < 3; j++) {
        m[j].site = "dc1";
        m[j].eligible = m[j].healthy = 1;
    }
    m[0].id = "a";
    m[0].eligible = 0;
    m[1].id = "b";
    m[1].healthy = 0;
    m[2].id = "c";
    m[2].excluded = 1;
    for (i = 0; i < 3; i++) {
        p = NULL;
        CU_ASSERT_EQUAL_FATAL(zke_policy_load(names[i], TEST_POLICY_DIR, NULL, 0, &p,
                                              err, sizeof(err)), 0);
        for (r = 1; r <= ZKELECT_REASON_LEADER_RESIGNED; r <<= 1) {
            for (j = 0; j < 4; j++) {
                memset(&in, 0, sizeof(in));
                in.size = sizeof(in);
                in.members = m;
                in.nmembers = 3;
                in.sites = sites;
                in.nsites = 1;
                in.reasons = r;
                in.current_leader = j < 3 ? m[j].id : NULL;
                in.current_present = j < 3;
                chosen = 99;
                CU_ASSERT_EQUAL(zke_policy_choose(p, &in, &chosen, err, sizeof(err)), 0);
                CU_ASSERT_EQUAL(chosen, -1);
                CU_ASSERT(err[0] != '\0');
            }
        }
        zke_policy_unload(p);
    }
}

static int
extra_suite(void)
{
    suite_policy = "(options)";
    return 0;
}

static CU_TestInfo nodeid_tests[MAX_CASES + 1];
static CU_TestInfo roundrobin_tests[MAX_CASES + 1];
static CU_TestInfo site_tests[MAX_CASES + 1];
static CU_TestInfo set_tests[MAX_CASES + 2];
static CU_TestInfo extra_tests[] = {
    { "options: unknown keys and bad values fail init", test_options },
    { "descriptor names and paths", test_names },
    { "never a member that cannot lead, any reason", test_never_cannot_lead },
    CU_TEST_INFO_NULL
};

static CU_SuiteInfo suites[] = {
    { "nodeid", nodeid_suite, NULL, NULL, NULL, nodeid_tests },
    { "roundrobin", roundrobin_suite, NULL, NULL, NULL, roundrobin_tests },
    { "site", site_suite, NULL, NULL, NULL, site_tests },
    { "sets", set_suite, NULL, NULL, NULL, set_tests },
    { "common", extra_suite, NULL, NULL, NULL, extra_tests },
    CU_SUITE_INFO_NULL
};

/* Fill a suite's test list from its table. */
static int
fill(CU_TestInfo *tests, const struct pcase *cases)
{
    size_t i;

    for (i = 0; cases[i].desc != NULL; i++) {
        if (i == MAX_CASES)
            return -1;
        tests[i].pName = cases[i].desc;
        tests[i].pTestFunc = case_fn[i];
    }
    tests[i].pName = NULL;
    tests[i].pTestFunc = NULL;
    return 0;
}

/* The set suite: one test per set_cases row, then the generated inputs. */
static int
fill_sets(void)
{
    size_t i;

    for (i = 0; set_cases[i].desc != NULL; i++) {
        if (i == MAX_CASES)
            return -1;
        set_tests[i].pName = set_cases[i].desc;
        set_tests[i].pTestFunc = scase_fn[i];
    }
    set_tests[i].pName = "first of choose_set is choose(), on generated inputs";
    set_tests[i].pTestFunc = test_set_first_is_choose;
    set_tests[i + 1].pName = NULL;
    set_tests[i + 1].pTestFunc = NULL;
    return 0;
}

int
main(int argc, char **argv)
{
    if (fill(nodeid_tests, nodeid_cases) != 0 ||
        fill(roundrobin_tests, roundrobin_cases) != 0 ||
        fill(site_tests, site_cases) != 0 || fill_sets() != 0) {
        fprintf(stderr, "test_policies: more than %d cases in a table\n", MAX_CASES);
        return 99;
    }
    return cutest_main(argc, argv, suites);
}
