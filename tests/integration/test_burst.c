/*
 * test_burst.c - liveness under a burst: many groups on one handle, with the
 * connection lost while their registrations, decisions and takeovers are in
 * flight. Every group must reach READY within a stated bound.
 *
 * One handle (one session, T = 4 s) opens NGROUPS groups with
 * ZKELECT_GROUP_NOWAIT and nominates itself in each: it is the only member
 * of each, so it is elector and candidate at once. While the burst is in
 * flight the test, from the servers' side ("cons" lists each connection's
 * session id):
 *   1. freezes the server that holds the session (SIGSTOP) for 1.5 T: the
 *      client's requests time out (ZOPERATIONTIMEOUT, outcome unknown), it
 *      moves to another server on the same session;
 *   2. once a tenth of the groups are READY, kills the server that now holds
 *      the session (SIGKILL) and restarts it: every request in flight ends
 *      in ZCONNECTIONLOSS;
 *   3. freezes the new holder again for 1.5 T.
 * Then every group must be READY (its events and its view agree) within
 * BOUND_MS of the last fault, no group may have been reported -stuck (the
 * library's own detector of a group with nothing outstanding and no way
 * out), and no state transition may have been illegal.
 *
 * NGROUPS is 2,000 (default tier); ZKELECT_BURST_GROUPS overrides it (the
 * full tier runs 10,000).
 */
#include "config.h"

#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cutest.h"
#include "zkelect.h"
#include "zkharness.h"

#define T_SESSION 4000     /* session timeout, ms */
#define BOUND_MS 120000    /* all READY within this of the last fault */

static struct zkh *zk3;
static int ngroups = 2000;

static uint64_t
mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

struct gst {
    atomic_int ready;      /* READY as its events say */
    atomic_int nready;     /* +ready events */
    atomic_int nstuck;     /* -stuck events */
};

static struct gst *st;
static FILE *logfile;                  /* ZKELECT_BURST_LOG: the library's debug log */

static atomic_int bug_lines;

static void
on_log(void *data, int level, const char *msg)
{
    (void)data;
    /* a bug the library reports (an illegal transition): say which in the
       test's own output, the first few, with or without ZKELECT_BURST_LOG */
    if (level <= ZKELECT_LOG_ERR && strstr(msg, "(a bug") != NULL &&
        atomic_fetch_add(&bug_lines, 1) < 10)
        printf("library: %s\n", msg);
    if (logfile != NULL)
        fprintf(logfile, "%llu %s\n", (unsigned long long)mono_ms(), msg);
}
static atomic_int ready_now, ever_ready, stuck_events, error_events, fenced_events;


static void
on_event(void *data, const struct zkelect_event *ev)
{
    struct gst *s = data;

    switch (ev->type) {
    case ZKELECT_EV_READY:
    case ZKELECT_EV_RESUMED:
        if (atomic_exchange(&s->ready, 1) == 0)
            atomic_fetch_add(&ready_now, 1);
        if (ev->type == ZKELECT_EV_READY && atomic_fetch_add(&s->nready, 1) == 0)
            atomic_fetch_add(&ever_ready, 1);
        break;
    case ZKELECT_EV_FENCED:
        atomic_fetch_add(&fenced_events, 1);
        /* fall through */
    case ZKELECT_EV_SUSPENDED:
    case ZKELECT_EV_STEPDOWN:
    case ZKELECT_EV_LOST:
    case ZKELECT_EV_TAKEOVER_ABORT:
    case ZKELECT_EV_TAKEOVER_FAILED:
        if (atomic_exchange(&s->ready, 0) == 1)
            atomic_fetch_sub(&ready_now, 1);
        break;
    case ZKELECT_EV_STUCK:
        atomic_fetch_add(&s->nstuck, 1);
        if (atomic_fetch_add(&stuck_events, 1) < 10)
            fprintf(stderr, "burst: %s %s\n", ev->name, ev->detail);
        break;
    case ZKELECT_EV_ERROR:
    case ZKELECT_EV_MALFORMED:
        if (atomic_fetch_add(&error_events, 1) < 10)
            fprintf(stderr, "burst: %s %s\n", ev->name, ev->detail);
        break;
    default:
        break;
    }
}

/* The server whose connection carries session SID, or -1. */
static int
server_of(int64_t sid)
{
    static char buf[1 << 20];
    char needle[64];
    int i;

    snprintf(needle, sizeof(needle), "sid=0x%" PRIx64, (uint64_t)sid);
    for (i = 0; i < zkh_nservers(zk3); i++) {
        if (zkh_4lw_timeout(zk3, i, "cons", buf, sizeof(buf), 2000) > 0 && strstr(buf, needle))
            return i;
    }
    return -1;
}

/* Wait until the handle is connected on the same session to a server other
   than `not` (or any, when not < 0); returns that server or -1. */
static int
wait_moved(zkelect_t *h, int64_t sid, int not, int timeout_ms)
{
    uint64_t until = mono_ms() + (uint64_t)timeout_ms;
    int s;

    while (mono_ms() < until) {
        if (zkelect_connected(h) && zkelect_session_id(h) == sid &&
            (s = server_of(sid)) >= 0 && s != not)
            return s;
        usleep(50 * 1000); /* polling a condition, with a deadline */
    }
    return -1;
}

/* Wait until at least n groups are READY at once; 0 or -1 at the deadline. */
static int
wait_ready(int n, uint64_t until)
{
    while (atomic_load(&ready_now) < n) {
        if (mono_ms() >= until)
            return -1;
        usleep(20 * 1000);
    }
    return 0;
}

static void
freeze(int s, int ms)
{
    uint64_t until;

    CU_ASSERT_EQUAL(zkh_pause(zk3, s), 0);
    until = mono_ms() + (uint64_t)ms;
    while (mono_ms() < until)
        usleep(50 * 1000); /* the fault's duration itself, not a synchronization */
    CU_ASSERT_EQUAL(zkh_resume(zk3, s), 0);
}

static void
test_burst(void)
{
    struct zkelect_options o;
    struct zkelect_group_options go;
    struct zkelect_node self;
    zkelect_group_t **g;
    zkelect_t *h = NULL;
    char path[96];
    int64_t sid;
    int i, s, notready = 0, viewbad = 0, rc;
    uint64_t t0, t_last, t_all = 0;
    unsigned long long reqs = 0, illegal = 0, gaps = 0;

    st = calloc((size_t)ngroups, sizeof(*st));
    g = calloc((size_t)ngroups, sizeof(*g));
    CU_ASSERT_FATAL(st != NULL && g != NULL);

    memset(&o, 0, sizeof(o));
    o.size = sizeof(o);
    o.hosts = zkh_hosts(zk3);
    o.session_timeout_ms = T_SESSION;
    o.log = on_log;
    o.log_level = ZKELECT_LOG_ERR;
    if (getenv("ZKELECT_BURST_LOG") && (logfile = fopen(getenv("ZKELECT_BURST_LOG"), "w")) != NULL)
        o.log_level = ZKELECT_LOG_DEBUG;
    CU_ASSERT_FATAL(zkelect_open(&o, &h) == 0);
    sid = zkelect_session_id(h);

    t0 = mono_ms();
    for (i = 0; i < ngroups; i++) {
        memset(&go, 0, sizeof(go));
        go.size = sizeof(go);
        snprintf(path, sizeof(path), "/burst/g%05d", i);
        go.path = path;
        go.policy = "nodeid";
        go.watchdog_ms = 3000;
        go.on_event = on_event;
        go.event_data = &st[i];
        go.flags = ZKELECT_GROUP_NOWAIT;
        rc = zkelect_group_open(h, &go, &g[i]);
        CU_ASSERT_EQUAL_FATAL(rc, 0);
    }
    memset(&self, 0, sizeof(self));
    self.id = "n1";
    self.site = "dc1";
    self.priority = 100;
    self.eligible = 1;
    for (i = 0; i < ngroups; i++)
        CU_ASSERT_EQUAL(zkelect_nominate_async(g[i], &self, NULL, NULL), 0);

    /* 1. freeze the session's server while the registrations are in flight */
    s = server_of(sid);
    CU_ASSERT_FATAL(s >= 0);
    fprintf(stderr, "burst: %d groups nominated in %" PRIu64 " ms; %d READY; freezing server %d\n",
            ngroups, mono_ms() - t0, atomic_load(&ready_now), s);
    freeze(s, T_SESSION * 3 / 2);
    s = wait_moved(h, sid, s, 30000);
    CU_ASSERT_FATAL(s >= 0);

    /* 2. kill the new holder once a tenth are READY, restart it */
    if (wait_ready(ngroups / 10, mono_ms() + BOUND_MS) != 0)
        CU_FAIL("a tenth of the groups never became READY after the first fault");
    s = server_of(sid);
    fprintf(stderr, "burst: %d READY after %" PRIu64 " ms; killing server %d\n",
            atomic_load(&ready_now), mono_ms() - t0, s);
    if (s >= 0) {
        CU_ASSERT_EQUAL(zkh_kill(zk3, s), 0);
        CU_ASSERT_EQUAL(zkh_restart(zk3, s, 1), 0);
    }
    s = wait_moved(h, sid, -1, 30000);
    CU_ASSERT_FATAL(s >= 0);

    /* 3. freeze the holder once more */
    fprintf(stderr, "burst: %d READY after %" PRIu64 " ms; freezing server %d\n",
            atomic_load(&ready_now), mono_ms() - t0, s);
    freeze(s, T_SESSION * 3 / 2);
    t_last = mono_ms();

    /* every group READY within the bound */
    if (wait_ready(ngroups, t_last + BOUND_MS) == 0)
        t_all = mono_ms();
    fprintf(stderr, "burst: %d of %d groups READY %" PRIu64 " ms after the last fault "
            "(%" PRIu64 " ms after the first open); %d -stuck, %d errors, %d -fenced "
            "(the freezes are 1.5 T: a leader on the frozen server fences)\n",
            atomic_load(&ready_now), ngroups, (t_all ? t_all : mono_ms()) - t_last,
            (t_all ? t_all : mono_ms()) - t0, atomic_load(&stuck_events),
            atomic_load(&error_events), atomic_load(&fenced_events));
    CU_ASSERT(t_all != 0);
    CU_ASSERT_EQUAL(atomic_load(&stuck_events), 0);

    /* the views agree with the events */
    for (i = 0; i < ngroups; i++) {
        struct zkelect_leader l;
        struct zkelect_stats sts;
        struct zkelect_group_state gs;

        if (!atomic_load(&st[i].ready))
            notready++;
        if (zkelect_get_leader(g[i], &l) != 0 || l.status != ZKELECT_STATUS_READY ||
            strcmp(l.id, "n1") != 0)
            viewbad++;
        if (zkelect_get_stats(g[i], &sts) == 0)
            reqs += sts.requests;
        memset(&gs, 0, sizeof(gs));
        gs.size = sizeof(gs);
        if (zkelect_get_state(g[i], &gs) == 0) {
            illegal += gs.illegal_transitions;
            gaps = gs.gaps;
        }
    }
    fprintf(stderr, "burst: %d groups not READY by their events, %d by their view; "
            "%.1f requests per group; %llu illegal transitions; %llu thread gaps\n", notready,
            viewbad, (double)reqs / ngroups, illegal, gaps);
    CU_ASSERT_EQUAL(illegal, 0);
    CU_ASSERT_EQUAL(notready, 0);
    CU_ASSERT_EQUAL(viewbad, 0);

    zkelect_close(h);
    if (logfile)
        fclose(logfile);
    logfile = NULL;
    free(g);
    free(st);
    st = NULL;
}

/*
 * Healthy leaders under load never fence themselves: LEADERS groups READY on
 * one handle (T = 4 s: fence after 1.6 s unheard), then the same handle opens
 * and nominates ngroups more at once, so the leaders' probes queue behind
 * thousands of requests of their own session. Not one -fenced, every leader
 * still READY.
 */
#define LEADERS 200

static void
test_no_fence_under_load(void)
{
    struct zkelect_options o;
    struct zkelect_group_options go;
    struct zkelect_node self;
    zkelect_group_t **g;
    zkelect_t *h = NULL;
    char path[96];
    int i, rc, total = LEADERS + ngroups, lost = 0;
    uint64_t t0;

    atomic_store(&ready_now, 0);
    atomic_store(&fenced_events, 0);
    atomic_store(&stuck_events, 0);
    st = calloc((size_t)total, sizeof(*st));
    g = calloc((size_t)total, sizeof(*g));
    CU_ASSERT_FATAL(st != NULL && g != NULL);
    memset(&o, 0, sizeof(o));
    o.size = sizeof(o);
    o.hosts = zkh_hosts(zk3);
    o.session_timeout_ms = T_SESSION;
    CU_ASSERT_FATAL(zkelect_open(&o, &h) == 0);
    memset(&self, 0, sizeof(self));
    self.id = "n1";
    self.eligible = 1;
    for (i = 0; i < total; i++) {
        memset(&go, 0, sizeof(go));
        go.size = sizeof(go);
        snprintf(path, sizeof(path), "/load/g%05d", i);
        go.path = path;
        go.policy = "nodeid";
        go.on_event = on_event;
        go.event_data = &st[i];
        go.flags = ZKELECT_GROUP_NOWAIT;
        rc = zkelect_group_open(h, &go, &g[i]);
        CU_ASSERT_EQUAL_FATAL(rc, 0);
        if (i < LEADERS)
            CU_ASSERT_EQUAL(zkelect_nominate_async(g[i], &self, NULL, NULL), 0);
    }
    CU_ASSERT_FATAL(wait_ready(LEADERS, mono_ms() + BOUND_MS) == 0);
    t0 = mono_ms();
    for (i = LEADERS; i < total; i++)
        CU_ASSERT_EQUAL(zkelect_nominate_async(g[i], &self, NULL, NULL), 0);
    CU_ASSERT(wait_ready(total, mono_ms() + BOUND_MS) == 0);
    for (i = 0; i < LEADERS; i++)
        if (!atomic_load(&st[i].ready) || atomic_load(&st[i].nready) != 1)
            lost++;
    fprintf(stderr, "load: %d leaders READY, then %d more groups on their handle: all READY "
            "in %" PRIu64 " ms; %d -fenced, %d leaders not READY once and still\n", LEADERS,
            ngroups, mono_ms() - t0, atomic_load(&fenced_events), lost);
    CU_ASSERT_EQUAL(atomic_load(&fenced_events), 0);
    CU_ASSERT_EQUAL(lost, 0);
    CU_ASSERT_EQUAL(atomic_load(&stuck_events), 0);
    zkelect_close(h);
    free(g);
    free(st);
    st = NULL;
}

static int
suite_init(void)
{
    struct zkh_opts o;
    const char *e = getenv("ZKELECT_BURST_GROUPS");

    if (e && atoi(e) > 0)
        ngroups = atoi(e);
    zkh_deadline(ngroups > 5000 ? 1500 : 600);
    zkh_opts_init(&o);
    o.nservers = 3;
    o.heap_mb = ngroups > 5000 ? 512 : 256;
    return zkh_start(&o, &zk3) == 0 ? 0 : -1;
}

static int
suite_clean(void)
{
    zkh_stop(zk3);
    zk3 = NULL;
    return 0;
}

static CU_TestInfo burst_tests[] = {
    {"a burst of groups with connection losses mid-burst: all READY", test_burst},
    {"healthy leaders under a burst on their own handle never fence", test_no_fence_under_load},
    CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
    {"burst", suite_init, suite_clean, NULL, NULL, burst_tests},
    CU_SUITE_INFO_NULL,
};

int
main(int argc, char **argv)
{
    return cutest_main(argc, argv, suites);
}
