/*
 * fault.c - test_fault, the fault-injection harness: N zkelectd daemons
 * across two sites (site policy) on a 3-server ZooKeeper ensemble; faults
 * chosen by a seeded RNG for the first part of the run (inject.c); then the
 * cluster must converge; then the checker (check.c) reads every event log.
 *
 *   test_fault [-s SEED] [-d DURATION_S] [options]     a run (see -h)
 *   test_fault --check DIR                             re-check a kept run
 *
 * Without options it is the default-tier test of `make check`: seed 1, 90 s
 * (faults during the first 45 s); test_fault_n2.sh the same with -l 2, N
 * active leaders (slots), every check per slot. tests/fault/full.sh is the
 * full tier. The last line is "NAME: N passed, N failed"; the exit status is
 * 0 only when every check passed. See tests/fault/README.
 */
#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <getopt.h>
#include <inttypes.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cJSON.h>

#include "fault.h"
#include "zkharness.h"

volatile int fault_interrupted;

static struct fault *fault_global;      /* for the exit handler */

static const char *const fault_kind_names[FK__COUNT] = {
    "kill-node", "pause-leader", "zk-kill", "zk-kill-leader-conn", "quorum-loss",
    "partition", "switchover", "set-site-priority", "hook-fail", "kill-restart",
    "zk-freeze-leader-conn", "takeover-hang", "stepdown-slow", "command-exit", "resign",
};

const char *
fault_kind_name(enum fault_kind k)
{
    return k < FK__COUNT ? fault_kind_names[k] : "?";
}

/* ------------------------------------------------------------------------
 * Time, output, journal, checks, RNG
 * ------------------------------------------------------------------------ */

uint64_t
fault_now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

void
fault_log(struct fault *f, const char *fmt, ...)
{
    va_list ap;

    printf("[%8.3f] ", f->t0_ms ? (double)(fault_now_ms() - f->t0_ms) / 1000.0 : 0.0);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
}

/*
 * Append one line to harness.jsonl:
 *   {"mono_ms":..,"kind":"node-kill","node":"n1","server":-1,"fault":3,"detail":".."}
 * and show it (faults and quorum changes always, the rest with -v).
 */
void
fault_journal(struct fault *f, const char *kind, int node, int server, int fault,
    const char *fmt, ...)
{
    char detail[512], *line;
    uint64_t now = fault_now_ms();
    va_list ap;
    cJSON *o;
    size_t len;

    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    if ((o = cJSON_CreateObject()) == NULL)
        return;
    cJSON_AddNumberToObject(o, "mono_ms", (double)now);
    cJSON_AddStringToObject(o, "kind", kind);
    if (node >= 0)
        cJSON_AddStringToObject(o, "node", f->nodes[node].id);
    else
        cJSON_AddNullToObject(o, "node");
    cJSON_AddNumberToObject(o, "server", server);
    cJSON_AddNumberToObject(o, "fault", fault);
    cJSON_AddStringToObject(o, "detail", detail);
    if ((line = cJSON_PrintUnformatted(o)) != NULL) {
        len = strlen(line);
        line[len] = '\n';
        if (f->journal_fd != -1 && write(f->journal_fd, line, len + 1) != (ssize_t)(len + 1))
            fprintf(stderr, "test_fault: cannot append to the journal: %s\n", strerror(errno));
        free(line);
    }
    cJSON_Delete(o);
    if (strcmp(kind, "fault") == 0)
        fault_log(f, "fault %d: %s", fault, detail);
    else if (f->verbose || strncmp(kind, "quorum", 6) == 0 || strcmp(kind, "stale-probe") == 0
        || (strcmp(kind, "node-exit") == 0 && strstr(detail, "unexpected") != NULL))
        fault_log(f, "  %s%s%s: %s", kind, node >= 0 ? " " : "",
            node >= 0 ? f->nodes[node].id : "", detail);
}

void
fault_check(struct results *r, int ok, const char *fmt, ...)
{
    va_list ap;

    if (!r->quiet) {
        printf("%s - ", ok ? "ok" : "FAIL");
        va_start(ap, fmt);
        vprintf(fmt, ap);
        va_end(ap);
        putchar('\n');
    }
    if (!ok && r->n < 32)
        r->failed_mask |= 1u << r->n;
    r->n++;
    if (ok)
        r->passed++;
    else
        r->failed++;
}

/* xorshift64*: the run's only source of randomness, seeded by --seed. */
uint64_t
fault_rand(struct fault *f)
{
    f->rng ^= f->rng >> 12;
    f->rng ^= f->rng << 25;
    f->rng ^= f->rng >> 27;
    return f->rng * 0x2545F4914F6CDD1DULL;
}

/* Uniform in [lo, hi]. */
int
fault_rand_range(struct fault *f, int lo, int hi)
{
    if (hi <= lo)
        return lo;
    return lo + (int)(fault_rand(f) % (uint64_t)(hi - lo + 1));
}

/* ------------------------------------------------------------------------
 * Setup and cleanup
 * ------------------------------------------------------------------------ */

static void
fault_on_signal(int sig)
{
    (void)sig;
    fault_interrupted = 1;
}

static int
rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

/* The exit handler: whatever is still running or set up goes (an early exit). */
static void
fault_atexit(void)
{
    struct fault *f = fault_global;
    int i;

    if (f == NULL)
        return;
    fault_global = NULL;
    f->stop_pollers = 1;
    for (i = 0; i < f->nnodes; i++)
        if (f->nodes[i].pid > 0) {
            kill(f->nodes[i].pid, SIGKILL);
            f->nodes[i].pid = -1;
        }
    /* the servers: the harness's own exit handler stops them */
    netns_teardown(f);
}

/* BUILDDIR: $ZKELECT_TOP_BUILDDIR, else two levels above this program. */
static int
fault_paths(struct fault *f)
{
    char self[PATH_MAX], tmp[PATH_MAX];
    const char *env = getenv("ZKELECT_TOP_BUILDDIR");
    ssize_t n;

    if ((n = readlink("/proc/self/exe", self, sizeof self - 1)) == -1) {
        fprintf(stderr, "test_fault: /proc/self/exe: %s\n", strerror(errno));
        return -1;
    }
    self[n] = '\0';
    snprintf(tmp, sizeof tmp, "%s", self);
    snprintf(f->regtool, sizeof f->regtool, "%s/fault-register", dirname(tmp));
    if (env != NULL && env[0] != '\0') {
        snprintf(f->builddir, sizeof f->builddir, "%s", env);
    } else {
        snprintf(tmp, sizeof tmp, "%s", self);
        snprintf(f->builddir, sizeof f->builddir, "%s/../..", dirname(tmp));
    }
    snprintf(f->zkelectd, sizeof f->zkelectd, "%s/src/daemon/zkelectd", f->builddir);
    snprintf(f->zkelect, sizeof f->zkelect, "%s/src/cli/zkelect", f->builddir);
    snprintf(f->mono, sizeof f->mono, "%s/tests/harness/zke-mono", f->builddir);
    if (access(f->zkelectd, X_OK) == -1 || access(f->zkelect, X_OK) == -1
        || access(f->regtool, X_OK) == -1 || access(f->mono, X_OK) == -1) {
        fprintf(stderr, "test_fault: %s, %s, %s and %s must be built (make && make check)\n",
            f->zkelectd, f->zkelect, f->regtool, f->mono);
        return -1;
    }
    if (getenv("ZKELECT_POLICY_PATH") == NULL) {
        snprintf(tmp, sizeof tmp, "%s/policies/.libs", f->builddir);
        setenv("ZKELECT_POLICY_PATH", tmp, 1);
    }
    /* as `make check` does: the known ZooKeeper client leak is suppressed */
    if (getenv("LSAN_OPTIONS") == NULL) {
        env = getenv("ZKELECT_TOP_SRCDIR");
        snprintf(tmp, sizeof tmp, "suppressions=%s/tests/lsan.supp:print_suppressions=0",
            env != NULL && env[0] != '\0' ? env : FAULT_TOP_SRCDIR);
        setenv("LSAN_OPTIONS", tmp, 1);
    }
    return 0;
}

static int
fault_open_journal(struct fault *f)
{
    char path[PATH_MAX], *line;
    cJSON *o, *p, *a;
    size_t len;
    int i;

    snprintf(path, sizeof path, "%s/harness.jsonl", f->dir);
    if ((f->journal_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC,
            0644)) == -1) {
        fprintf(stderr, "test_fault: cannot create %s: %s\n", path, strerror(errno));
        return -1;
    }
    /* the run-start line: what the checker needs to read the run alone */
    o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "mono_ms", (double)f->t0_ms);
    cJSON_AddStringToObject(o, "kind", "run-start");
    p = cJSON_AddObjectToObject(o, "params");
    cJSON_AddNumberToObject(p, "seed", (double)f->seed);
    cJSON_AddNumberToObject(p, "duration_s", f->duration_s);
    cJSON_AddNumberToObject(p, "quiet_s", f->quiet_s);
    cJSON_AddNumberToObject(p, "session_ms", f->session_ms);
    cJSON_AddNumberToObject(p, "watchdog_ms", f->watchdog_ms);
    cJSON_AddNumberToObject(p, "exclude_ms", f->exclude_ms);
    cJSON_AddNumberToObject(p, "slack_ms", f->slack_ms);
    cJSON_AddNumberToObject(p, "pause_bound_ms", f->pause_bound_ms);
    cJSON_AddNumberToObject(p, "leaders", f->leaders);
    cJSON_AddBoolToObject(p, "netns", f->netns);
    a = cJSON_AddArrayToObject(o, "nodes");
    for (i = 0; i < f->nnodes; i++)
        cJSON_AddItemToArray(a, cJSON_CreateString(f->nodes[i].id));
    line = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    if (line == NULL)
        return -1;
    len = strlen(line);
    line[len] = '\n';
    if (write(f->journal_fd, line, len + 1) != (ssize_t)(len + 1)) {
        free(line);
        return -1;
    }
    free(line);
    return 0;
}

/* ------------------------------------------------------------------------
 * main
 * ------------------------------------------------------------------------ */

static const char fault_usage[] =
"usage: test_fault [-kv] [-s SEED] [-d DURATION_S] [-q QUIET_S] [-n NODES] [-l LEADERS]\n"
"                  [-o DIR]\n"
"                  [--session-ms MS] [--watchdog-ms MS] [--exclude-ms MS]\n"
"                  [--slack-ms MS] [--pause-bound-ms MS] [--no-netns] [--name NAME]\n"
"       test_fault --check DIR | --timeline DIR | --self-test\n"
"\n"
"A fault-injection run: NODES zkelectd (default 5, two sites) on a 3-server\n"
"ZooKeeper ensemble; faults chosen by the seeded RNG every 2-4.5 s until QUIET_S\n"
"seconds before the end of DURATION_S; then convergence and the safety checks.\n"
"Defaults: seed 1, 90 s, quiet 15 s, session 4000, watchdog 3000, exclude 8000,\n"
"slack 6000, pause bound 1000 ms. The last line is \"NAME: N passed, N failed\".\n"
"  -l, --leaders N   the group's N active leaders (slots; zkelect init --leaders,\n"
"                    1..4, below NODES; default 1): every check then holds per slot\n"
"  -k, --keep        keep the work directory (also FAULT_KEEP=1; kept on failure)\n"
"  -o, --dir DIR     the work directory (default: a new $TMPDIR/zkfault.XXXXXX)\n"
"      --no-netns    no network namespaces (and no partition faults)\n"
"      --check DIR   only run the checker over a kept run directory\n"
"      --self-test   only run the checker over its synthetic runs (every run\n"
"                    starts with them)\n"
"      --timeline DIR  print a kept run's journal and events merged by time\n"
"                    (leadership events; every event with -v)\n"
"  -v, --verbose     show every journal entry\n";

static int
fault_opt_int(const char *s, const char *what, int min, int max, int *out)
{
    char *end;
    long v;

    errno = 0;
    v = strtol(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || v < min || v > max) {
        fprintf(stderr, "test_fault: bad %s '%s' (%d..%d)\n", what, s, min, max);
        return -1;
    }
    *out = (int)v;
    return 0;
}

static int
fault_only_check(const char *dir, const char *name)
{
    struct results r = { .passed = 0 };
    struct check_figures fig;

    if (check_run(dir, &r, &fig, 0) == -1)
        r.failed++;
    printf("%s: %d passed, %d failed\n", name, r.passed, r.failed);
    return r.failed == 0 ? 0 : 1;
}

static void
fault_figures(struct fault *f, const struct check_figures *fig)
{
    char kinds[512];
    size_t off = 0;
    int k;

    kinds[0] = '\0';
    for (k = 0; k < FK__COUNT; k++) {
        if (f->kind_disabled[k])
            continue;
        off += (size_t)snprintf(kinds + off, sizeof kinds - off, "%s%s %d", off ? ", " : "",
            fault_kind_name((enum fault_kind)k), f->by_kind[k]);
        if (off >= sizeof kinds)
            break;
    }
    printf("%s: figures (seed %" PRIu64 ", %d s, %d nodes, %d leader%s, network namespaces "
        "%s):\n", f->name, f->seed, f->duration_s, f->nnodes, f->leaders,
        f->leaders > 1 ? "s" : "", f->netns_used ? "yes" : "no");
    printf("  faults injected: %d (%s)\n", f->nfaults, kinds);
    printf("  transitions (+ready): %d\n", fig->ready_count);
    printf("  longest leaderless period: %" PRIu64 " ms (%" PRIu64 " ms counted against the "
        "bound of %d ms)\n", fig->longest_leaderless_ms, fig->longest_leaderless_eff_ms,
        f->session_ms + f->watchdog_ms + f->slack_ms);
    for (k = 0; f->leaders > 1 && k < f->leaders && k < FAULT_SLOTS_MAX; k++)
        printf("  slot %d: longest leaderless period %" PRIu64 " ms (%" PRIu64 " ms counted)\n",
            k, fig->slot_leaderless_ms[k], fig->slot_leaderless_eff_ms[k]);
    printf("  longest overlap of two READY leaders%s: %" PRIu64 " ms (%" PRIu64 " ms outside "
        "the paused-process allowance)\n", f->leaders > 1 ? " in one slot" : "",
        fig->longest_overlap_ms, fig->longest_overlap_bad_ms);
    if (f->leaders > 1)
        printf("  most READY leaders at once: %d, most services active at once: %d (N = %d); "
            "longest time one node's services in two slots: %" PRIu64 " ms\n", fig->max_acting,
            fig->max_services, f->leaders, fig->node_two_slots_ms);
    printf("  service (hooks' stamps): %d intervals, longest overlap of two nodes' services%s %"
        PRIu64 " ms (%" PRIu64 " ms outside frozen nodes + %d ms)\n", fig->service_intervals,
        f->leaders > 1 ? " in one slot" : "",
        fig->service_overlap_ms, fig->service_overlap_bad_ms, f->pause_bound_ms);
    printf("  paused leaders: %d, longest SIGCONT -> -suspended: %" PRIu64 " ms (bound %d ms)\n",
        fig->pauses_measured, fig->max_pause_detect_ms, f->pause_bound_ms);
    printf("  time without a ZooKeeper quorum: %" PRIu64 " ms\n", fig->quorum_lost_ms);
    printf("  register: %d writes accepted, %d stale writes refused\n", fig->writes_accepted,
        fig->stale_refused);
    printf("  daemons that exited by themselves: %d (crashes: %d)\n", f->unexpected_exits,
        f->crashes);
    printf("  violations: %d\n", fig->violations);
}

int
main(int argc, char **argv)
{
    enum { O_SESSION = 256, O_WATCHDOG, O_EXCLUDE, O_SLACK, O_PAUSE, O_NONETNS, O_NAME,
        O_CHECK, O_SELFTEST, O_TIMELINE };
    static const struct option longopts[] = {
        { "seed", required_argument, NULL, 's' },
        { "duration", required_argument, NULL, 'd' },
        { "quiet", required_argument, NULL, 'q' },
        { "nodes", required_argument, NULL, 'n' },
        { "leaders", required_argument, NULL, 'l' },
        { "dir", required_argument, NULL, 'o' },
        { "keep", no_argument, NULL, 'k' },
        { "verbose", no_argument, NULL, 'v' },
        { "help", no_argument, NULL, 'h' },
        { "session-ms", required_argument, NULL, O_SESSION },
        { "watchdog-ms", required_argument, NULL, O_WATCHDOG },
        { "exclude-ms", required_argument, NULL, O_EXCLUDE },
        { "slack-ms", required_argument, NULL, O_SLACK },
        { "pause-bound-ms", required_argument, NULL, O_PAUSE },
        { "no-netns", no_argument, NULL, O_NONETNS },
        { "name", required_argument, NULL, O_NAME },
        { "check", required_argument, NULL, O_CHECK },
        { "self-test", no_argument, NULL, O_SELFTEST },
        { "timeline", required_argument, NULL, O_TIMELINE },
        { NULL, 0, NULL, 0 }
    };
    static struct fault F;
    struct fault *f = &F;
    struct check_figures fig;
    struct sigaction sa;
    struct zkh_opts zo;
    const char *check_dir = NULL, *dir_opt = NULL, *timeline_dir = NULL;
    const char *init_args[] = { "init", "--policy", "site", "--site", "dc1=100", "--site",
        "dc2=50", NULL, NULL, NULL };
    char leaders_arg[16];
    char out[8192], *end;
    uint64_t faults_end, stop_ms;
    int c, i, v, leader = -1, rc, sanitizer = 0, selftest_only = 0;

    setvbuf(stdout, NULL, _IOLBF, 0);
    f->seed = 1;
    f->duration_s = 90;           /* 75 s of faults: every one of 14 kinds, most runs twice */
    f->quiet_s = 15;
    f->nnodes = 5;
    f->leaders = 1;
    f->session_ms = 4000;
    f->watchdog_ms = 3000;
    f->exclude_ms = 8000;
    f->hook_timeout_ms = 3000;
    f->slack_ms = 6000;
    f->pause_bound_ms = 1000;
    f->use_netns = 1;
    f->name = "test_fault";
    f->journal_fd = -1;
    pthread_mutex_init(&f->mu, NULL);
    f->keep = getenv("FAULT_KEEP") != NULL && strcmp(getenv("FAULT_KEEP"), "1") == 0;

    while ((c = getopt_long(argc, argv, "s:d:q:n:l:o:kvh", longopts, NULL)) != -1) {
        switch (c) {
        case 's':
            errno = 0;
            f->seed = strtoull(optarg, &end, 10);
            if (errno != 0 || end == optarg || *end != '\0' || optarg[0] == '-') {
                fprintf(stderr, "test_fault: bad seed '%s'\n", optarg);
                return 2;
            }
            break;
        case 'd':
            if (fault_opt_int(optarg, "duration", 10, 86400, &f->duration_s) == -1)
                return 2;
            break;
        case 'q':
            if (fault_opt_int(optarg, "quiet time", 0, 86400, &f->quiet_s) == -1)
                return 2;
            break;
        case 'n':
            if (fault_opt_int(optarg, "node count", 4, FAULT_NODES_MAX, &f->nnodes) == -1)
                return 2;
            break;
        case 'l':
            if (fault_opt_int(optarg, "leaders", 1, FAULT_SLOTS_MAX, &f->leaders) == -1)
                return 2;
            break;
        case 'o':
            dir_opt = optarg;
            break;
        case 'k':
            f->keep = 1;
            break;
        case 'v':
            f->verbose = 1;
            break;
        case 'h':
            fputs(fault_usage, stdout);
            return 0;
        case O_SESSION:
            if (fault_opt_int(optarg, "session timeout", 1000, 20000, &f->session_ms) == -1)
                return 2;
            break;
        case O_WATCHDOG:
            if (fault_opt_int(optarg, "watchdog", 100, 600000, &f->watchdog_ms) == -1)
                return 2;
            break;
        case O_EXCLUDE:
            if (fault_opt_int(optarg, "exclusion", 0, 600000, &f->exclude_ms) == -1)
                return 2;
            break;
        case O_SLACK:
            if (fault_opt_int(optarg, "slack", 0, 600000, &f->slack_ms) == -1)
                return 2;
            break;
        case O_PAUSE:
            if (fault_opt_int(optarg, "pause bound", 1, 600000, &f->pause_bound_ms) == -1)
                return 2;
            break;
        case O_NONETNS:
            f->use_netns = 0;
            break;
        case O_NAME:
            f->name = optarg;
            break;
        case O_CHECK:
            check_dir = optarg;
            break;
        case O_SELFTEST:
            selftest_only = 1;
            break;
        case O_TIMELINE:
            timeline_dir = optarg;
            break;
        default:
            fputs(fault_usage, stderr);
            return 2;
        }
    }
    if (optind != argc) {
        fprintf(stderr, "test_fault: unexpected argument '%s'\n", argv[optind]);
        fputs(fault_usage, stderr);
        return 2;
    }
    if (check_dir != NULL)
        return fault_only_check(check_dir, f->name);
    if (timeline_dir != NULL)
        return check_timeline(timeline_dir, f->verbose) == 0 ? 0 : 1;
    /* the checker must be able to fail: synthetic runs first */
    selftest_run(&f->res);
    if (selftest_only) {
        printf("%s: %d passed, %d failed\n", f->name, f->res.passed, f->res.failed);
        return f->res.failed == 0 ? 0 : 1;
    }
    if (f->leaders >= f->nnodes) {
        /* a spare is what a failover moves a slot to */
        fprintf(stderr, "test_fault: --leaders %d needs more than %d nodes (-n)\n", f->leaders,
            f->leaders);
        return 2;
    }
    if (f->quiet_s >= f->duration_s) {
        fprintf(stderr, "test_fault: the quiet time (%d s) must be shorter than the run (%d s)\n",
            f->quiet_s, f->duration_s);
        return 2;
    }
    f->rng = f->seed * 0x9E3779B97F4A7C15ULL + 0x2545F4914F6CDD1DULL;
    if (f->rng == 0)
        f->rng = 1;

    /* our handlers first: the ZooKeeper harness then leaves the signals to us */
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = fault_on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    fault_global = f;
    atexit(fault_atexit);

    if (fault_paths(f) == -1) {
        fault_check(&f->res, 0, "setup: the programs are built");
        printf("%s: %d passed, %d failed\n", f->name, f->res.passed, f->res.failed);
        return 1;
    }
    if (dir_opt != NULL) {
        snprintf(f->dir, sizeof f->dir, "%s", dir_opt);
        if (mkdir(f->dir, 0755) == -1 && errno != EEXIST) {
            fprintf(stderr, "test_fault: cannot create %s: %s\n", f->dir, strerror(errno));
            return 1;
        }
    } else {
        snprintf(f->dir, sizeof f->dir, "%s/zkfault.XXXXXX",
            getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
        if (mkdtemp(f->dir) == NULL) {
            fprintf(stderr, "test_fault: mkdtemp %s: %s\n", f->dir, strerror(errno));
            return 1;
        }
        f->dir_made = 1;
    }
    zkh_deadline(f->duration_s + 400); /* a backstop: everything is bounded below */
    f->t0_ms = fault_now_ms();
    for (i = 0; i < f->nnodes; i++) {
        f->nodes[i].idx = i;
        f->nodes[i].pid = -1;
        snprintf(f->nodes[i].id, sizeof f->nodes[i].id, "n%d", i + 1);
    }
    printf("%s: seed %" PRIu64 ", %d s (faults until %d s), %d nodes, %d leader%s, work "
        "directory %s\n", f->name, f->seed, f->duration_s, f->duration_s - f->quiet_s,
        f->nnodes, f->leaders, f->leaders > 1 ? "s (slots)" : "", f->dir);

    /* network namespaces, or loopback without partitions */
    netns_clean_stale();
    if (!f->use_netns) {
        snprintf(f->netns_why, sizeof f->netns_why, "--no-netns");
    } else if ((rc = netns_setup(f)) == 0) {
        f->netns_used = 1;
        fault_log(f, "network namespaces zkfault-%ld-n1..n%d, ensemble on %s",
            (long)getpid(), f->nnodes, f->nodes[0].host_addr);
    } else if (rc == -2) {
        /* root could partition, only the tool is missing: fail, never skip */
        fault_check(&f->res, 0, "setup: network partitions need %s", f->netns_why);
        goto report;
    }
    if (!f->netns) {
        f->kind_disabled[FK_PARTITION] = 1;
        fault_log(f, "network partitions skipped: %s", f->netns_why);
    }
    if (fault_open_journal(f) == -1) {
        fault_check(&f->res, 0, "setup: the journal %s/harness.jsonl", f->dir);
        goto report;
    }

    /* the ensemble */
    zkh_opts_init(&zo);
    zo.nservers = FAULT_ZK_SERVERS;
    zo.addr = f->netns ? f->nodes[0].host_addr : "127.0.0.1";
    zo.start_timeout_ms = 90000;
    if (zkh_start(&zo, &f->zk) == -1) {
        fault_check(&f->res, 0, "setup: a 3-server ZooKeeper ensemble starts");
        goto report;
    }
    snprintf(f->hosts, sizeof f->hosts, "%s", zkh_hosts(f->zk));
    fault_log(f, "ZooKeeper ensemble serving at %s", f->hosts);
    if (f->leaders > 1) {
        /* N = 1 is init's default: the command line of one leader unchanged */
        snprintf(leaders_arg, sizeof leaders_arg, "%d", f->leaders);
        init_args[7] = "--leaders";
        init_args[8] = leaders_arg;
    }
    rc = cluster_cli(f, 1, 30000, out, sizeof out, init_args);
    if (rc != 0 || cluster_write_files(f) == -1) {
        fault_check(&f->res, 0, "setup: zkelect init (exit %d) and the nodes' files", rc);
        goto teardown;
    }
    if (!f->has_command) {
        /* [leader] command is another part of issue 14: not in this zkelectd yet */
        f->kind_disabled[FK_COMMAND_EXIT] = 1;
        fault_log(f, "command-exit skipped: zkelectd -n refuses [leader] command");
    }
    for (i = 0; i < f->nnodes; i++)
        if (cluster_start_node(f, i) == -1) {
            fault_check(&f->res, 0, "setup: start %s", f->nodes[i].id);
            goto teardown;
        }
    if (cluster_start_pollers(f) == -1) {
        fault_check(&f->res, 0, "setup: poller threads");
        goto teardown;
    }
    v = final_wait_converged(f, fault_now_ms() + 60000, &leader);
    fault_check(&f->res, v, "setup: %d daemons registered, %d READY leader%s (slot 0: %s) "
        "within 60 s", f->nnodes, f->leaders, f->leaders > 1 ? "s" : "",
        leader >= 0 ? f->nodes[leader].id : "none");
    if (!v)
        goto teardown;

    /* the faults */
    faults_end = f->t0_ms + (uint64_t)(f->duration_s - f->quiet_s) * 1000;
    fault_log(f, "faults until +%d s", f->duration_s - f->quiet_s);
    inject_run(f, faults_end);
    inject_end_all(f);
    stop_ms = fault_now_ms();
    fault_journal(f, "faults-stopped", -1, -1, -1, "%d faults", f->nfaults);
    fault_log(f, "faults stopped after %d faults", f->nfaults);
    if (fault_interrupted)
        goto teardown;
    for (i = 0, v = 1; i < FK__COUNT; i++)
        if (!f->kind_disabled[i] && f->by_kind[i] == 0)
            v = 0;
    fault_check(&f->res, v, "every kind of fault was injected at least once (%d faults)",
        f->nfaults);

    /* convergence, then quiet until the end of the run, then the final state */
    final_converge(f, stop_ms);
    final_quiet(f, f->t0_ms + (uint64_t)f->duration_s * 1000);
    if (fault_interrupted)
        goto teardown;
    final_check_members(f);
    final_check_znodes(f);

teardown:
    fault_journal(f, "teardown", -1, -1, -1, "stopping");
    cluster_terminate_all(f, f->hook_timeout_ms + f->session_ms + 10000);
    cluster_stop_pollers(f);
    if (f->zk != NULL) {
        zkh_stop(f->zk);
        f->zk = NULL;
    }
    netns_teardown(f);
    if (f->journal_fd != -1) {
        close(f->journal_fd);
        f->journal_fd = -1;
    }
    if (fault_interrupted)
        fault_check(&f->res, 0, "the run was not interrupted");

    /* the checker over the logs */
    if (f->res.failed == 0 || f->nfaults > 0) {
        if (check_run(f->dir, &f->res, &fig, f->verbose) == -1)
            fault_check(&f->res, 0, "the run's logs can be read");
        for (i = 0; i < f->nnodes; i++)
            sanitizer += final_sanitizer_reports(f->nodes[i].log);
        snprintf(out, sizeof out, "%s/cli.log", f->dir);
        sanitizer += final_sanitizer_reports(out);
        fault_check(&f->res, f->crashes == 0 && sanitizer == 0, "no daemon or command crashed "
            "or reported a sanitizer error (%d crashes, %d reports; %d daemons exited by "
            "themselves)", f->crashes, sanitizer, f->unexpected_exits);
        fault_figures(f, &fig);
    }

report:
    fault_global = NULL;
    if (f->zk != NULL)
        zkh_stop(f->zk);
    netns_teardown(f);
    if (f->keep || f->res.failed > 0) {
        printf("%s: kept %s\n", f->name, f->dir);
    } else if (f->dir_made) {
        nftw(f->dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
    }
    printf("%s: %d passed, %d failed\n", f->name, f->res.passed, f->res.failed);
    return f->res.failed == 0 ? 0 : 1;
}
