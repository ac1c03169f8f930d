/*
 * swarm.c - zkbench-swarm: many election nodes in one process, each with its
 * own libzkelect handle (own ZooKeeper session, own library thread) and its
 * own group on the same base path: the members of section 5 (bench/scale.c).
 *
 * usage: zkbench-swarm -h HOSTS -p PATH -n COUNT [-b FIRST] [-t SESSION_MS]
 *                      [-P POLICY] [-o KEY=VALUE] [-D POLICY_DIR] [-l N]
 *                      [-f FROM]
 *
 * Members have the global indexes FIRST .. FIRST+COUNT-1 and the ids
 * m<index> with five digits (m00000, m00001, ...): ids sort as indexes do.
 * Members are zkelectd-like: the group's on_event is opened with
 * ZKELECT_GROUP_NO_LEADER_EVENTS, so a member follows the leader (watches
 * `elected` and the leader znode) only while the library needs it to (the
 * elector, a candidate in play), as zkelectd without a notify hook or an
 * event log. -f FROM: members with an index >= FROM also subscribe to
 * +leader-changed (zkelect_subscribe with ZKELECT_MASK_LEADER, as zkelectd
 * does for a notify hook or an event log): they follow, and print their
 * views; the others print no +leader-changed at all.
 * At start every handle and group is opened (not nominated); then a line
 *     UP <mono_us> <count>
 * (or "ERR <text>" and exit 1). Commands, one per line on stdin:
 *     join            nominate every member that is not nominated, all at
 *                     once (zkelect_nominate_async): a synchronized storm
 *     join I          nominate member I (global index), asynchronously
 *     leave           unnominate every nominated member (in parallel)
 *     leave I         unnominate member I (blocking, bounded)
 *     eligible I 0|1  zkelect_set_eligible on member I
 *     stats           per-member counters (below), changed ones only
 *     quit            (or EOF) close everything and exit 0
 * Every command is answered, when done, by
 *     OK <command> <t0_us> <t1_us> <rc>
 * t0/t1 bracket the library calls (t0 just before the first), rc is 0 or the
 * first error code. Events, as they happen (library threads):
 *     E <mono_us> <index> <event name> <node|-> <epoch> <status>
 * every group event except +leader-changed with status PROGRESS and NONE
 * (only READY views matter to the bench, and a view of "no leader" is
 * reported as  E ... +leader-changed - 0 0  once); +leader-changed comes
 * from the members that subscribe (-f) only; and
 *     D <mono_us> <index> <err>        an asynchronous nominate completed
 * `stats` prints, for each member whose counters changed since the last
 * `stats`, then an end line:
 *     S <index> <requests> <notifications> <stalled>
 *     SE <mono_us>
 * -l N: the library's debug log of the members with index < N, as
 *     LOG <mono_us> <index> <level> <message>
 * Times are CLOCK_MONOTONIC microseconds, as zkbench's. Errors go to stderr
 * too. Bad arguments: exit 2.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "zkelect.h"
#include "util.h"

#define SWARM_MAX 1000              /* members per process (3 threads, ~3 fds each) */
#define WORKERS 8                   /* threads for the parallel open/leave/close */
#define CALL_MS 30000               /* bound of a blocking library call */

struct member {
    int idx;                        /* global index */
    char id[16];
    zkelect_t *h;
    zkelect_group_t *g;
    struct zkelect_node self;
    int nominated;                  /* nominated and not unnominated (main thread) */
    int rc;                         /* result of the last parallel operation */
    uint64_t p_req, p_notif, p_stalled; /* as last printed */
    int printed;
    int lc_none;                    /* last view printed was "no leader" */
};

static const char *prog = "zkbench-swarm";
static pthread_mutex_t out_mu = PTHREAD_MUTEX_INITIALIZER;
static struct member *mem;
static int count, first;
static int log_below = -1;
static int follow_from = INT_MAX;   /* -f: members from this index subscribe */

static void
out(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void
out(const char *fmt, ...)
{
    va_list ap;

    pthread_mutex_lock(&out_mu);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    fflush(stdout);
    pthread_mutex_unlock(&out_mu);
}

static void
on_event(void *data, const struct zkelect_event *ev)
{
    struct member *m = data;
    unsigned long long us = now_us();

    if (ev->type == ZKELECT_EV_LEADER_CHANGED) {
        /* PROGRESS views: not needed; "no leader": once in a row */
        if (ev->status == ZKELECT_STATUS_PROGRESS)
            return;
        if (ev->status != ZKELECT_STATUS_READY) {
            if (m->lc_none)
                return;
            m->lc_none = 1;
        } else {
            m->lc_none = 0;
        }
    }
    out("E %llu %d %s %s %llu %d\n", us, m->idx, ev->name, ev->node && *ev->node ? ev->node : "-",
        (unsigned long long)ev->epoch, (int)ev->status);
}

static void
on_log(void *data, int level, const char *msg)
{
    struct member *m = data;

    out("LOG %" PRIu64 " %d %d %s\n", now_us(), m->idx, level, msg);
}

static void
on_nominated(void *data, zkelect_group_t *g, int err)
{
    struct member *m = data;

    (void)g;
    out("D %" PRIu64 " %d %d\n", now_us(), m->idx, err);
}

/* ---- parallel work over the members ------------------------------------- */

struct opts {
    const char *hosts, *path, *policy, *popt, *pdir;
    int session_ms;
};

enum job { JOB_OPEN, JOB_LEAVE, JOB_CLOSE };

struct worker {
    pthread_t t;
    int from, to;                   /* member slice [from, to) */
    enum job job;
    const struct opts *o;
};

static int
member_open(struct member *m, const struct opts *op)
{
    struct zkelect_options o;
    struct zkelect_group_options go;
    int rc;

    memset(&o, 0, sizeof(o));
    o.size = sizeof(o);
    o.hosts = op->hosts;
    o.session_timeout_ms = op->session_ms;
    o.connect_timeout_ms = CALL_MS;
    if (m->idx < log_below) {
        o.log = on_log;
        o.log_data = m;
        o.log_level = ZKELECT_LOG_DEBUG;
    }
    if ((rc = zkelect_open(&o, &m->h)) != 0) {
        fprintf(stderr, "%s: %s: cannot connect to %s: %s\n", prog, m->id, op->hosts,
            zkelect_strerror(rc));
        m->h = NULL;
        return rc;
    }
    memset(&go, 0, sizeof(go));
    go.size = sizeof(go);
    go.path = op->path;
    go.policy = op->policy;
    go.policy_path = op->pdir;
    if (op->popt) {
        go.policy_options = &op->popt;
        go.npolicy_options = 1;
    }
    go.on_event = on_event;
    go.event_data = m;
    /* zkelectd-like: the events without making the group follow the leader */
    go.flags = ZKELECT_GROUP_NO_LEADER_EVENTS;
    if ((rc = zkelect_group_open(m->h, &go, &m->g)) != 0) {
        fprintf(stderr, "%s: %s: group %s: %s\n", prog, m->id, op->path, zkelect_strerror(rc));
        goto fail;
    }
    if (m->idx >= follow_from &&
        (rc = zkelect_subscribe(m->g, ZKELECT_MASK_LEADER, on_event, m)) < 0) {
        fprintf(stderr, "%s: %s: zkelect_subscribe(+leader-changed): %s\n", prog, m->id,
            zkelect_strerror(rc));
        goto fail;
    }
    return 0;
fail:
    zkelect_close(m->h);
    m->h = NULL;
    m->g = NULL;
    return rc;
}

static void *
worker_main(void *arg)
{
    struct worker *w = arg;
    int i;

    for (i = w->from; i < w->to; i++) {
        struct member *m = &mem[i];
        switch (w->job) {
        case JOB_OPEN:
            m->rc = member_open(m, w->o);
            break;
        case JOB_LEAVE:
            m->rc = 0;
            if (m->nominated && m->g) {
                m->rc = zkelect_unnominate(m->g, CALL_MS);
                if (m->rc != 0)
                    fprintf(stderr, "%s: %s: unnominate: %s\n", prog, m->id,
                        zkelect_strerror(m->rc));
            }
            break;
        case JOB_CLOSE:
            zkelect_close(m->h); /* resigns and closes the group too */
            m->h = NULL;
            m->g = NULL;
            break;
        }
    }
    return NULL;
}

/* Run a job over every member on WORKERS threads; the first error or 0. */
static int
run_job(enum job job, const struct opts *o)
{
    struct worker w[WORKERS];
    int i, n = count < WORKERS ? count : WORKERS, rc = 0, started[WORKERS];

    for (i = 0; i < n; i++) {
        w[i].from = count * i / n;
        w[i].to = count * (i + 1) / n;
        w[i].job = job;
        w[i].o = o;
        started[i] = pthread_create(&w[i].t, NULL, worker_main, &w[i]) == 0;
        if (!started[i])
            worker_main(&w[i]); /* no thread: do it here */
    }
    for (i = 0; i < n; i++)
        if (started[i])
            pthread_join(w[i].t, NULL);
    if (job == JOB_CLOSE)
        return 0;
    for (i = 0; i < count; i++) {
        if (job == JOB_LEAVE && mem[i].nominated && mem[i].rc == 0)
            mem[i].nominated = 0;
        if (rc == 0 && mem[i].rc != 0)
            rc = mem[i].rc;
    }
    return rc;
}

/* ---- commands ------------------------------------------------------------ */

static struct member *
member_at(int idx)
{
    if (idx < first || idx >= first + count)
        return NULL;
    return &mem[idx - first];
}

static int
nominate(struct member *m)
{
    int rc;

    if (m->nominated)
        return 0;
    rc = zkelect_nominate_async(m->g, &m->self, on_nominated, m);
    if (rc == 0)
        m->nominated = 1;
    else
        fprintf(stderr, "%s: %s: nominate_async: %s\n", prog, m->id, zkelect_strerror(rc));
    return rc;
}

static void
stats(void)
{
    struct zkelect_stats st;
    int i;

    for (i = 0; i < count; i++) {
        struct member *m = &mem[i];
        if (m->g == NULL || zkelect_get_stats(m->g, &st) != 0)
            continue;
        if (m->printed && st.requests == m->p_req && st.notifications == m->p_notif &&
            st.stalled_requests == m->p_stalled)
            continue;
        m->printed = 1;
        m->p_req = st.requests;
        m->p_notif = st.notifications;
        m->p_stalled = st.stalled_requests;
        out("S %d %llu %llu %llu\n", m->idx, (unsigned long long)st.requests,
            (unsigned long long)st.notifications, (unsigned long long)st.stalled_requests);
    }
    out("SE %" PRIu64 "\n", now_us());
}

static void
command(char *line, const struct opts *o)
{
    char cmd[16];
    int idx = -1, val = -1, n, rc = 0, i;
    unsigned long long t0, t1;
    struct member *m = NULL;

    n = sscanf(line, "%15s %d %d", cmd, &idx, &val);
    if (n < 1)
        return;
    if (n >= 2 && (m = member_at(idx)) == NULL) {
        out("OK %s %" PRIu64 " %" PRIu64 " %d\n", cmd, now_us(), now_us(), ZKELECT_EINVAL);
        return;
    }
    t0 = now_us();
    if (strcmp(cmd, "join") == 0) {
        if (m)
            rc = nominate(m);
        else
            for (i = 0; i < count; i++)
                if ((n = nominate(&mem[i])) != 0 && rc == 0)
                    rc = n;
    } else if (strcmp(cmd, "leave") == 0) {
        if (m) {
            if (m->nominated) {
                rc = zkelect_unnominate(m->g, CALL_MS);
                if (rc == 0)
                    m->nominated = 0;
                else
                    fprintf(stderr, "%s: %s: unnominate: %s\n", prog, m->id,
                        zkelect_strerror(rc));
            }
        } else {
            rc = run_job(JOB_LEAVE, o);
        }
    } else if (strcmp(cmd, "eligible") == 0 && m && (val == 0 || val == 1)) {
        rc = zkelect_set_eligible(m->g, val);
        if (rc == 0)
            m->self.eligible = val;
    } else if (strcmp(cmd, "stats") == 0) {
        stats();
    } else {
        rc = ZKELECT_EINVAL;
        fprintf(stderr, "%s: unknown command: %s", prog, line);
    }
    t1 = now_us();
    if (m)
        out("OK %s %d %llu %llu %d\n", cmd, idx, t0, t1, rc);
    else
        out("OK %s %llu %llu %d\n", cmd, t0, t1, rc);
}

/* ---- main ---------------------------------------------------------------- */

static void
usage(void)
{
    fprintf(stderr, "usage: %s -h HOSTS -p PATH -n COUNT [-b FIRST] [-t SESSION_MS] "
        "[-P POLICY] [-o KEY=VALUE] [-D POLICY_DIR] [-l N] [-f FROM]\n", prog);
    exit(2);
}

int
main(int argc, char **argv)
{
    struct opts o;
    struct rlimit rl;
    char line[128];
    int c, i, rc;

    memset(&o, 0, sizeof(o));
    o.policy = "nodeid";
    o.session_ms = 10000;
    while ((c = getopt(argc, argv, "h:p:n:b:t:P:o:D:l:f:")) != -1) {
        switch (c) {
        case 'h': o.hosts = optarg; break;
        case 'p': o.path = optarg; break;
        case 'n': count = opt_num(prog, c, optarg, 1, SWARM_MAX); break;
        case 'b': first = opt_num(prog, c, optarg, 0, 99999); break;
        case 't': o.session_ms = opt_num(prog, c, optarg, 100, INT_MAX); break;
        case 'P': o.policy = optarg; break;
        case 'o':
            if (strchr(optarg, '=') == NULL) {
                fprintf(stderr, "%s: -o: expected KEY=VALUE, got '%s'\n", prog, optarg);
                return 2;
            }
            o.popt = optarg;
            break;
        case 'D': o.pdir = optarg; break;
        case 'l': log_below = opt_num(prog, c, optarg, 0, INT_MAX); break;
        case 'f': follow_from = opt_num(prog, c, optarg, 0, 99999); break;
        default: usage();
        }
    }
    if (optind != argc || o.hosts == NULL || o.path == NULL || count == 0)
        usage();
    if (first + count > 100000) {
        fprintf(stderr, "%s: -b/-n: member indexes above 99999\n", prog);
        return 2;
    }
    /* a handle holds ~3 fds (socket, wakeup pipe/eventfd); be sure they fit */
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
        rl.rlim_cur < (rlim_t)count * 4 + 32) {
        rlim_t want = (rlim_t)count * 4 + 32;
        if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < want) {
            printf("ERR ulimit -n is %llu (hard %llu): %d members need about %llu\n",
                (unsigned long long)rl.rlim_cur, (unsigned long long)rl.rlim_max, count,
                (unsigned long long)want);
            fflush(stdout);
            return 1;
        }
        rl.rlim_cur = want;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    if ((mem = calloc((size_t)count, sizeof(*mem))) == NULL) {
        printf("ERR out of memory\n");
        return 1;
    }
    for (i = 0; i < count; i++) {
        struct member *m = &mem[i];
        m->idx = first + i;
        snprintf(m->id, sizeof(m->id), "m%05d", first + i);
        m->self.id = m->id;
        m->self.site = "";
        m->self.eligible = 1;
        m->self.host = "zkbench-swarm";
    }
    rc = run_job(JOB_OPEN, &o);
    if (rc != 0) {
        out("ERR cannot open every member: %s (see stderr)\n", zkelect_strerror(rc));
        run_job(JOB_CLOSE, &o);
        free(mem);
        return 1;
    }
    out("UP %" PRIu64 " %d\n", now_us(), count);

    while (fgets(line, sizeof(line), stdin) != NULL) {
        if (strncmp(line, "quit", 4) == 0)
            break;
        command(line, &o);
    }
    run_job(JOB_CLOSE, &o);
    out("BYE %" PRIu64 "\n", now_us());
    free(mem);
    return 0;
}
