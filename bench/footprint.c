/*
 * footprint.c - section 7: zkelectd's memory and CPU, idle and during
 * elections (see bench/README, "Section 7: footprint").
 *
 * Three real daemons (bopt.daemon_prog, -Z; the build tree's is a libtool
 * wrapper script that execs the binary, so each pid is checked to run
 * zkelectd itself, not a shell) join one group on the ensemble: policy
 * nodeid (preempt=off), session timeout 10 s, no hooks, no health check, the
 * HTTP endpoint on a free loopback port (a real deployment has it: its
 * thread and libraries count), log level info to a file in the -o directory.
 *
 * Idle: once a READY leader and the three members are there (and a short
 * settle), the daemons are left alone for bopt.idle_s (-I) seconds. From
 * /proc at the start and the end: VmRSS with RssAnon/RssFile/RssShmem
 * (status), Pss with Pss_Anon/Pss_File (smaps_rollup: shared library pages
 * divided among the processes that map them), threads, CPU% = delta(utime +
 * stime) / elapsed (stat, in CLK_TCK ticks), the finer on-CPU time of every
 * thread (task/T/schedstat, ns) and the context switches of every thread
 * per second (its wake-ups).
 *
 * Elections: switchovers to the next daemon in turn (d1 -> d2 -> d3 -> d1),
 * one every 250 ms, each waited for (the target READY in the leader znode,
 * with a watch), for about 20 s: CPU% of each daemon, its RSS at the end and
 * its peak RSS (VmHWM, since its start), and the leader changes done.
 */
#include "config.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"
#include "codec.h"

#define FP_N 3                      /* daemons */
#define FP_SESSION_MS 10000         /* their session timeout */
#define FP_START_MS 45000           /* deadline: all three members and a READY leader */
#define FP_SETTLE_MS 2000           /* after that, before the idle window */
#define FP_ELECT_MS 20000           /* the elections phase */
#define FP_GAP_MS 250               /* between switchovers */
#define FP_STOP_MS 20000            /* SIGTERM -> SIGKILL (resign: hooks 0 + session) */
#define FP_RSS_TARGET_KB 5120.0     /* idle RSS target: 5 MB (MiB, as /proc counts kB) */
#define FP_CPU_TARGET_PCT 0.1       /* idle CPU target */

/* One daemon. */
struct fpd {
    char id[8];
    char ini[PATH_MAX];
    char log[PATH_MAX];
    int port;
    pid_t pid;                      /* -1 when not running */
    pid_t started;                  /* the last pid started (for the table) */
    int status;                     /* wait status once reaped */
};

/* What /proc says about one process at one time. */
struct psnap {
    bool ok;
    uint64_t us;                    /* when (now_us) */
    double cpu_ms;                  /* utime + stime (stat), ms */
    double sched_ms;                /* sum of task/T/schedstat run time, ms */
    unsigned long long ctxsw;       /* sum of every thread's context switches */
    long vmrss, rss_anon, rss_file, rss_shmem, vmhwm, vmsize, vmdata;   /* kB */
    long pss, pss_anon, pss_file;   /* kB */
    int threads;
};

/* ---- /proc --------------------------------------------------------------- */

/* "Key:   123 kB" lines of a /proc file: the values of keys[i] in out[i] (-1 if absent). */
static int
proc_keys(const char *file, const char *const *keys, long *out, int n)
{
    char line[256];
    FILE *f;
    int i;

    for (i = 0; i < n; i++)
        out[i] = -1;
    if ((f = fopen(file, "r")) == NULL)
        return -1;
    while (fgets(line, sizeof(line), f)) {
        for (i = 0; i < n; i++) {
            size_t k = strlen(keys[i]);
            if (strncmp(line, keys[i], k) == 0 && line[k] == ':') {
                out[i] = strtol(line + k + 1, NULL, 10);
                break;
            }
        }
    }
    fclose(f);
    return 0;
}

static double
stat_cpu_ms(pid_t pid)
{
    char path[64], buf[1024], *p;
    unsigned long long ut, st;
    FILE *f;
    size_t n;

    snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
    if ((f = fopen(path, "r")) == NULL)
        return -1;
    n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    if ((p = strrchr(buf, ')')) == NULL ||
        sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) != 2)
        return -1;
    return (double)(ut + st) * 1000.0 / (double)sysconf(_SC_CLK_TCK);
}

/* Every live thread: run time (schedstat, ns) and context switches. */
static void
tasks(pid_t pid, double *sched_ms, unsigned long long *ctxsw)
{
    static const char *const keys[] = {"voluntary_ctxt_switches", "nonvoluntary_ctxt_switches"};
    char path[300];
    struct dirent *de;
    unsigned long long ns, sum_ns = 0, cs = 0;
    long v[2];
    DIR *d;
    FILE *f;

    snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
    *sched_ms = -1;
    *ctxsw = 0;
    if ((d = opendir(path)) == NULL)
        return;
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.')
            continue;
        snprintf(path, sizeof(path), "/proc/%d/task/%s/schedstat", (int)pid, de->d_name);
        if ((f = fopen(path, "r")) != NULL) {
            if (fscanf(f, "%llu", &ns) == 1)
                sum_ns += ns;
            fclose(f);
        }
        snprintf(path, sizeof(path), "/proc/%d/task/%s/status", (int)pid, de->d_name);
        if (proc_keys(path, keys, v, 2) == 0 && v[0] >= 0 && v[1] >= 0)
            cs += (unsigned long long)(v[0] + v[1]);
    }
    closedir(d);
    *sched_ms = (double)sum_ns / 1e6;
    *ctxsw = cs;
}

static void
snap(pid_t pid, struct psnap *s)
{
    static const char *const skeys[] = {"VmRSS", "RssAnon", "RssFile", "RssShmem", "VmHWM",
        "VmSize", "VmData", "Threads"};
    static const char *const rkeys[] = {"Pss", "Pss_Anon", "Pss_File"};
    char path[64];
    long v[8];

    memset(s, 0, sizeof(*s));
    s->us = now_us();
    if (pid <= 0)
        return;
    s->cpu_ms = stat_cpu_ms(pid);
    snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
    if (s->cpu_ms < 0 || proc_keys(path, skeys, v, 8) != 0 || v[0] < 0)
        return;
    s->vmrss = v[0];
    s->rss_anon = v[1];
    s->rss_file = v[2];
    s->rss_shmem = v[3];
    s->vmhwm = v[4];
    s->vmsize = v[5];
    s->vmdata = v[6];
    s->threads = (int)v[7];
    snprintf(path, sizeof(path), "/proc/%d/smaps_rollup", (int)pid);
    if (proc_keys(path, rkeys, v, 3) != 0)
        v[0] = v[1] = v[2] = -1;
    s->pss = v[0];
    s->pss_anon = v[1];
    s->pss_file = v[2];
    tasks(pid, &s->sched_ms, &s->ctxsw);
    s->ok = true;
}

/* The executable a process runs now (basename), or "?". */
static void
proc_exe(pid_t pid, char *out, size_t len)
{
    char path[64], buf[PATH_MAX];
    const char *b;
    ssize_t n;

    snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
    if ((n = readlink(path, buf, sizeof(buf) - 1)) <= 0) {
        snprintf(out, len, "?");
        return;
    }
    buf[n] = '\0';
    b = strrchr(buf, '/');
    snprintf(out, len, "%s", b ? b + 1 : buf);
}

/* ---- the daemons --------------------------------------------------------- */

/* A loopback port nobody listens on now (the daemon may still lose it: retried). */
static int
free_port(void)
{
    struct sockaddr_in a;
    socklen_t len = sizeof(a);
    int fd, port = -1;

    if ((fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
        return -1;
    memset(&a, 0, sizeof(a));
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0 &&
        getsockname(fd, (struct sockaddr *)&a, &len) == 0)
        port = ntohs(a.sin_port);
    close(fd);
    return port;
}

static int
write_config(struct fpd *d, const char *hosts, const char *group, const char *policy_dir)
{
    FILE *f = fopen(d->ini, "w");

    if (f == NULL) {
        fprintf(stderr, "zkbench: footprint: cannot write %s: %s\n", d->ini, strerror(errno));
        return -1;
    }
    fprintf(f, "# written by zkbench -x footprint\n"
        "[zookeeper]\nhosts = %s\nsession_timeout_ms = %d\nconnect_timeout_ms = 15000\n"
        "[cluster]\npath = %s\n"
        "[node]\nid = %s\n"
        "[election]\npolicy = nodeid\n", hosts, FP_SESSION_MS, group, d->id);
    if (policy_dir)
        fprintf(f, "policy_path = %s\n", policy_dir);
    fprintf(f, "[policy]\npreempt = off\n"
        "[http]\nlisten = 127.0.0.1:%d\n"
        "[log]\nlevel = info\ntarget = stderr\n", d->port);
    if (ferror(f) | fclose(f)) {
        fprintf(stderr, "zkbench: footprint: error writing %s\n", d->ini);
        return -1;
    }
    return 0;
}

static int
spawn(struct fpd *d)
{
    const char *argv[] = {bopt.daemon_prog, "-f", "-c", d->ini, NULL};
    pid_t parent = getpid(), pid;
    int lfd, nfd;

    if ((lfd = open(d->log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644)) == -1) {
        fprintf(stderr, "zkbench: footprint: %s: %s\n", d->log, strerror(errno));
        return -1;
    }
    if ((nfd = open("/dev/null", O_RDONLY | O_CLOEXEC)) == -1) {
        close(lfd);
        return -1;
    }
    pid = fork();
    if (pid == -1) {
        fprintf(stderr, "zkbench: footprint: fork: %s\n", strerror(errno));
        close(lfd);
        close(nfd);
        return -1;
    }
    if (pid == 0) {
        /* only async-signal-safe calls until exec: the parent has threads */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(127);
        if (dup2(nfd, 0) == -1 || dup2(lfd, 1) == -1 || dup2(lfd, 2) == -1)
            _exit(127);
        close_range(3, ~0U, 0);
        execv(argv[0], (char *const *)argv);
        {
            static const char msg[] = "zkbench: cannot execute zkelectd (-Z)\n";
            ssize_t w = write(2, msg, sizeof(msg) - 1);
            (void)w;
        }
        _exit(127);
    }
    close(lfd);
    close(nfd);
    d->pid = d->started = pid;
    d->status = 0;
    return 0;
}

/* Reap d if it has exited: true when it is (or was already) gone. */
static bool
gone(struct fpd *d)
{
    pid_t r;

    if (d->pid <= 0)
        return true;
    while ((r = waitpid(d->pid, &d->status, WNOHANG)) == -1 && errno == EINTR)
        ;
    if (r == d->pid || (r == -1 && errno == ECHILD)) {
        d->pid = -1;
        return true;
    }
    return false;
}

static void
describe_exit(const struct fpd *d, char *out, size_t len)
{
    if (WIFEXITED(d->status))
        snprintf(out, len, "exit status %d", WEXITSTATUS(d->status));
    else if (WIFSIGNALED(d->status))
        snprintf(out, len, "signal %d", WTERMSIG(d->status));
    else
        snprintf(out, len, "wait status %#x", d->status);
}

/* The last lines of a daemon's log, on stderr. */
static void
log_tail(const struct fpd *d, int lines)
{
    char buf[8192], *p;
    long size;
    size_t n;
    int k = 0;
    FILE *f = fopen(d->log, "r");

    if (f == NULL)
        return;
    fseek(f, 0, SEEK_END);
    size = ftell(f);
    fseek(f, size > (long)sizeof(buf) - 1 ? size - (long)sizeof(buf) + 1 : 0, SEEK_SET);
    n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    for (p = buf + n; p > buf; p--)
        if (p[-1] == '\n' && p != buf + n && ++k > lines)
            break;
    fprintf(stderr, "---- %s (last lines)\n%s", d->log, p);
    if (n && buf[n - 1] != '\n')
        fprintf(stderr, "\n");
}

static bool
log_has(const struct fpd *d, const char *s)
{
    char line[1024];
    bool found = false;
    FILE *f = fopen(d->log, "r");

    if (f == NULL)
        return false;
    while (!found && fgets(line, sizeof(line), f))
        found = strstr(line, s) != NULL;
    fclose(f);
    return found;
}

/* SIGTERM every daemon, SIGKILL those left after FP_STOP_MS; always reaps. */
static void
stop_all(struct fpd *d, int n)
{
    uint64_t until = now_us() + (uint64_t)FP_STOP_MS * 1000u;
    char why[64];
    bool left;
    int i;

    for (i = 0; i < n; i++)
        if (d[i].pid > 0)
            kill(d[i].pid, SIGTERM);
    for (;;) {
        left = false;
        for (i = 0; i < n; i++)
            if (d[i].pid > 0) {
                pid_t pid = d[i].pid;
                if (gone(&d[i])) {
                    describe_exit(&d[i], why, sizeof(why));
                    vlog("footprint: %s (pid %d) stopped: %s", d[i].id, (int)pid, why);
                    if (!WIFEXITED(d[i].status) || WEXITSTATUS(d[i].status) != 0)
                        warnx_("footprint: %s (pid %d) ended with %s after SIGTERM (log: %s)",
                            d[i].id, (int)pid, why, d[i].log);
                } else
                    left = true;
            }
        if (!left || now_us() >= until)
            break;
        pace_ms(20); /* polling the children's exit, with a deadline */
    }
    for (i = 0; i < n; i++)
        if (d[i].pid > 0) {
            warnx_("footprint: %s (pid %d) did not exit within %d ms of SIGTERM; killing it",
                d[i].id, (int)d[i].pid, FP_STOP_MS);
            kill(d[i].pid, SIGKILL);
            while (waitpid(d[i].pid, &d[i].status, 0) == -1 && errno == EINTR)
                ;
            d[i].pid = -1;
        }
}

/* ---- the leader znode, with a watch -------------------------------------- */

struct lwatch {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    unsigned fired;
};

static void
lw_fire(zhandle_t *zh, int type, int state, const char *path, void *ctx)
{
    struct lwatch *w = ctx;

    (void)zh;
    (void)type;
    (void)state;
    (void)path;
    pthread_mutex_lock(&w->mu);
    w->fired++;
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
}

/* Read the leader znode and leave a watch on it (or on its creation). l->id
 * is "" when there is none. 0, or -1 on an error (printed). */
static int
leader_read(zhandle_t *zh, const char *p_leader, struct lwatch *w, struct zke_leader *l)
{
    char buf[2048], err[256];
    struct Stat st;
    int len, rc, tries;

    memset(l, 0, sizeof(*l));
    for (tries = 0; tries < 5; tries++) {
        len = (int)sizeof(buf);
        rc = zoo_wget(zh, p_leader, lw_fire, w, buf, &len, &st);
        if (rc == ZOK) {
            if (zke_leader_decode(buf, len, l, err, sizeof(err)) != 0) {
                warnx_("footprint: %s: %s", p_leader, err);
                return -1;
            }
            return 0;
        }
        if (rc != ZNONODE)
            break;
        rc = zoo_wexists(zh, p_leader, lw_fire, w, &st);
        if (rc == ZNONODE)
            return 0;
        if (rc != ZOK)
            break;
        /* created meanwhile: read it */
    }
    warnx_("footprint: read %s: %s", p_leader, zerror(rc));
    return -1;
}

/* Index of the daemon with this id, or -1. */
static int
daemon_index(const struct fpd *d, int n, const char *id)
{
    int i;

    for (i = 0; i < n; i++)
        if (strcmp(d[i].id, id) == 0)
            return i;
    return -1;
}

/*
 * Wait until the leader znode names a READY leader with epoch >= min_epoch:
 * daemon `want` (-1: any of ours). Returns the leader's index, -1 on timeout
 * or error, -2 when a daemon exited (reaped; message printed).
 */
static int
wait_leader(zhandle_t *zh, const char *p_leader, struct lwatch *w, struct fpd *d, int n,
    int want, uint64_t min_epoch, int timeout_ms, uint64_t *epoch)
{
    uint64_t until = now_us() + (uint64_t)timeout_ms * 1000u;
    struct zke_leader l;
    struct timespec ts;
    unsigned seen;
    char why[64];
    int i, k;

    for (;;) {
        pthread_mutex_lock(&w->mu);
        seen = w->fired;
        pthread_mutex_unlock(&w->mu);
        for (i = 0; i < n; i++)
            if (gone(&d[i])) {
                describe_exit(&d[i], why, sizeof(why));
                fprintf(stderr, "zkbench: footprint: zkelectd %s exited (%s)\n", d[i].id, why);
                log_tail(&d[i], 15);
                return -2;
            }
        if (leader_read(zh, p_leader, w, &l) != 0)
            return -1;
        k = l.id[0] ? daemon_index(d, n, l.id) : -1;
        if (k >= 0 && l.status == ZKELECT_STATUS_READY && l.epoch >= min_epoch &&
            (want < 0 || k == want)) {
            if (epoch)
                *epoch = l.epoch;
            return k;
        }
        if (now_us() >= until)
            return -1;
        /* wake on the watch, or every 500 ms to look at the daemons */
        ts = mono_at(now_us() + 500000u);
        pthread_mutex_lock(&w->mu);
        while (w->fired == seen)
            if (pthread_cond_timedwait(&w->cv, &w->mu, &ts) == ETIMEDOUT)
                break;
        pthread_mutex_unlock(&w->mu);
    }
}

/* Members registered under path/nodes (-1 on an error other than ZNONODE). */
static int
members(zhandle_t *zh, const char *group)
{
    char p[256];
    struct String_vector v;
    int rc, cnt;

    snprintf(p, sizeof(p), "%s/nodes", group);
    rc = zoo_get_children(zh, p, 0, &v);
    if (rc == ZNONODE)
        return 0;
    if (rc != ZOK)
        return -1;
    cnt = v.count;
    deallocate_String_vector(&v);
    return cnt;
}

/* ---- start --------------------------------------------------------------- */

/* Start the daemons; retries one whose HTTP port was taken meanwhile. */
static int
start_all(struct fpd *d, int n, const char *hosts, const char *group, const char *policy_dir)
{
    uint64_t until;
    char exe[256], why[64];
    int i, tries;

    for (i = 0; i < n; i++) {
        for (tries = 0;; tries++) {
            if ((d[i].port = free_port()) <= 0) {
                fprintf(stderr, "zkbench: footprint: no free loopback port: %s\n",
                    strerror(errno));
                return -1;
            }
            if (write_config(&d[i], hosts, group, policy_dir) != 0 || spawn(&d[i]) != 0)
                return -1;
            /* the libtool wrapper execs the binary: wait until this pid runs zkelectd */
            until = now_us() + (uint64_t)BENCH_WAIT_MS * 1000u;
            for (;;) {
                proc_exe(d[i].pid, exe, sizeof(exe));
                if (strstr(exe, "zkelectd") != NULL || gone(&d[i]) || now_us() >= until)
                    break;
                pace_ms(10); /* polling the exec, with a deadline */
            }
            if (d[i].pid > 0 && strstr(exe, "zkelectd") == NULL) {
                fprintf(stderr, "zkbench: footprint: pid %d runs %s, not zkelectd, %d ms after "
                    "starting %s (-Z: give the binary itself, e.g. src/daemon/.libs/zkelectd "
                    "with LD_LIBRARY_PATH)\n", (int)d[i].pid, exe, BENCH_WAIT_MS,
                    bopt.daemon_prog);
                return -1;
            }
            /* a port lost between free_port() and the daemon's bind: start it again */
            until = now_us() + 2000u * 1000u;
            while (d[i].pid > 0 && !log_has(&d[i], "cannot listen") && now_us() < until &&
                !log_has(&d[i], "http: listening"))
                pace_ms(20); /* polling the log for the HTTP start, with a deadline */
            if (log_has(&d[i], "cannot listen") && tries < 4) {
                until = now_us() + (uint64_t)BENCH_WAIT_MS * 1000u;
                while (!gone(&d[i]) && now_us() < until)
                    pace_ms(20); /* it exits by itself: polling, with a deadline */
                if (d[i].pid > 0) {
                    kill(d[i].pid, SIGKILL);
                    while (waitpid(d[i].pid, &d[i].status, 0) == -1 && errno == EINTR)
                        ;
                    d[i].pid = -1;
                }
                vlog("footprint: %s: port %d was taken; another", d[i].id, d[i].port);
                continue;
            }
            if (d[i].pid <= 0) {
                describe_exit(&d[i], why, sizeof(why));
                fprintf(stderr, "zkbench: footprint: zkelectd %s exited at start (%s)\n",
                    d[i].id, why);
                log_tail(&d[i], 15);
                return -1;
            }
            break;
        }
        vlog("footprint: %s: pid %d (%s), HTTP 127.0.0.1:%d, log %s", d[i].id, (int)d[i].pid,
            exe, d[i].port, d[i].log);
    }
    return 0;
}

/* ---- what the RSS is made of (smaps) -------------------------------------- */

struct mapsum {
    char name[64];                  /* library basename, [heap], [stack], ... */
    long rss, pss, priv;            /* kB */
};

static int
cmp_rss(const void *a, const void *b)
{
    const struct mapsum *x = a, *y = b;

    return (y->rss > x->rss) - (y->rss < x->rss);
}

/* One daemon's smaps, summed by mapping (read while idle, printed later). */
struct smaps_sum {
    struct mapsum m[96];
    int n;
    long rss, pss;                  /* totals, kB */
    char id[8];
};

/*
 * Sum /proc/PID/smaps by what is mapped: a file by its basename, [heap],
 * [stack] (the main thread's), "(thread stacks)" (anonymous mappings of the
 * pthread stack size), "(other anonymous)" (malloc arenas, other mmaps).
 */
static void
smaps_read(const struct fpd *d, struct smaps_sum *out)
{
    struct mapsum *m = out->m;
    char path[64], line[512], name[64], file[PATH_MAX];
    unsigned long lo, hi;
    long v;
    int cur = -1;
    pthread_attr_t pa;
    size_t stack = 8u << 20;
    FILE *f;

    memset(out, 0, sizeof(*out));
    snprintf(out->id, sizeof(out->id), "%s", d->id);
    if (pthread_attr_init(&pa) == 0) {
        pthread_attr_getstacksize(&pa, &stack);
        pthread_attr_destroy(&pa);
    }
    snprintf(path, sizeof(path), "/proc/%d/smaps", (int)d->pid);
    if ((f = fopen(path, "r")) == NULL)
        return;
    while (fgets(line, sizeof(line), f)) {
        file[0] = '\0';
        if (strchr(line, '-') != NULL && strchr(line, '-') < strchr(line, ' ') &&
            sscanf(line, "%lx-%lx %*s %*s %*s %*s %4095s", &lo, &hi, file) >= 2) {
            const char *b = strrchr(file, '/');
            if (file[0] == '\0') {
                /* the stack size, give or take its guard page and rounding */
                long kb = (long)((hi - lo) >> 10), want = (long)(stack >> 10);
                snprintf(name, sizeof(name), "%s", kb >= want - 64 && kb <= want + 64 ?
                    "(thread stacks)" : "(other anonymous)");
            } else
                snprintf(name, sizeof(name), "%s", b ? b + 1 : file);
            for (cur = 0; cur < out->n; cur++)
                if (strcmp(m[cur].name, name) == 0)
                    break;
            if (cur == out->n) {
                if (out->n == (int)(sizeof(out->m) / sizeof(out->m[0]))) {
                    cur = -1;
                    continue;
                }
                snprintf(m[out->n++].name, sizeof(m[0].name), "%s", name);
            }
            continue;
        }
        if (cur < 0)
            continue;
        if (sscanf(line, "Rss: %ld", &v) == 1) {
            m[cur].rss += v;
            out->rss += v;
        } else if (sscanf(line, "Pss: %ld", &v) == 1) {
            m[cur].pss += v;
            out->pss += v;
        } else if (sscanf(line, "Private_Clean: %ld", &v) == 1 ||
            sscanf(line, "Private_Dirty: %ld", &v) == 1)
            m[cur].priv += v;
    }
    fclose(f);
    qsort(m, (size_t)out->n, sizeof(m[0]), cmp_rss);
}

/* The largest on stdout, every one to footprint-smaps.csv. */
static void
smaps_print(const struct smaps_sum *s)
{
    FILE *csv;
    int i, shown;

    if (s->n == 0)
        return;
    printf("  what %s's RSS is made of (smaps at the end of the idle time; private = pages "
        "no other process maps):\n", s->id);
    printf("    %-28s %7s %7s %8s\n", "mapping", "RSS kB", "PSS kB", "private");
    for (i = shown = 0; i < s->n && shown < 14; i++) {
        if (s->m[i].rss == 0)
            continue;
        printf("    %-28s %7ld %7ld %8ld\n", s->m[i].name, s->m[i].rss, s->m[i].pss,
            s->m[i].priv);
        shown++;
    }
    printf("    %-28s %7ld %7ld\n", "total", s->rss, s->pss);
    if ((csv = csv_open("footprint-smaps.csv", "node,mapping,rss_kb,pss_kb,private_kb")) != NULL) {
        for (i = 0; i < s->n; i++)
            fprintf(csv, "%s,%s,%ld,%ld,%ld\n", s->id, s->m[i].name, s->m[i].rss, s->m[i].pss,
                s->m[i].priv);
        csv_close(csv, "footprint-smaps.csv");
    }
}

/* ---- the section --------------------------------------------------------- */

static double
pct(double ms, uint64_t us)
{
    return us ? ms * 100.0 / ((double)us / 1000.0) : 0;
}

static void
csv_row(FILE *f, const char *phase, const struct fpd *d, const struct psnap *a,
    const struct psnap *b)
{
    double s = (double)(b->us - a->us) / 1e6;

    if (f == NULL)
        return;
    fprintf(f, "%s,%s,%.1f,%.0f,%.3f,%.3f,%.3f,%ld,%ld,%ld,%ld,%ld,%ld,%ld,%ld,%ld,%d,%.2f\n",
        phase, d->id, s, b->cpu_ms - a->cpu_ms, pct(b->cpu_ms - a->cpu_ms, b->us - a->us),
        b->sched_ms - a->sched_ms, pct(b->sched_ms - a->sched_ms, b->us - a->us),
        b->vmrss, b->rss_anon, b->rss_file, b->rss_shmem, b->pss, b->pss_anon, b->pss_file,
        b->vmhwm, b->vmsize, b->threads, s > 0 ? (double)(b->ctxsw - a->ctxsw) / s : 0);
}

int
section_footprint(struct zkh *z)
{
    static struct fpd d[FP_N];
    static struct smaps_sum sm0;
    struct psnap i0[FP_N], i1[FP_N], e0[FP_N], e1[FP_N];
    struct lwatch w;
    struct samples lat = {0};
    struct summary sm;
    zhandle_t *ctl = NULL;
    FILE *csv = NULL;
    char group[128], p_leader[160], policy_dir[PATH_MAX], why[64];
    const char *pdir = NULL;
    uint64_t t, until, epoch = 0, t_idle0, t_el0 = 0, t_el1 = 0;
    double max_rss = 0, max_pss = 0, max_cpu = 0, max_sched = 0, max_ecpu = 0, max_hwm = 0;
    double s_idle, s_el, tick;
    int i, k, cur, next, nm, changes = 0, failures = 0, rc = 1;
    bool idle_ok = false, el_ok = false;

    memset(i0, 0, sizeof(i0));
    memset(i1, 0, sizeof(i1));
    memset(e0, 0, sizeof(e0));
    memset(e1, 0, sizeof(e1));
    pthread_mutex_init(&w.mu, NULL);
    cond_init_mono(&w.cv);
    w.fired = 0;

    printf("\n7. Footprint: zkelectd, %d daemons (policy nodeid, session %d s, HTTP on, no "
        "hooks), idle %d s and during elections\n", FP_N, FP_SESSION_MS / 1000, bopt.idle_s);
    fflush(stdout);
    snprintf(group, sizeof(group), "/zkbench/footprint-%d", (int)getpid());
    snprintf(p_leader, sizeof(p_leader), "%s/leader", group);
    if (bopt.policy_dir) {
        if (realpath(bopt.policy_dir, policy_dir) == NULL) {
            fprintf(stderr, "zkbench: footprint: -P %s: %s\n", bopt.policy_dir, strerror(errno));
            goto out;
        }
        pdir = policy_dir;
    }
    for (i = 0; i < FP_N; i++) {
        snprintf(d[i].id, sizeof(d[i].id), "d%d", i + 1);
        snprintf(d[i].ini, sizeof(d[i].ini), "%s/footprint-%s.ini", bopt.outdir, d[i].id);
        snprintf(d[i].log, sizeof(d[i].log), "%s/footprint-%s.log", bopt.outdir, d[i].id);
        d[i].pid = -1;
        /* an absolute config path: the daemon's working directory is / */
        if (bopt.outdir[0] != '/') {
            char cwd[PATH_MAX], tmp[PATH_MAX];
            if (getcwd(cwd, sizeof(cwd)) == NULL) {
                fprintf(stderr, "zkbench: footprint: getcwd: %s\n", strerror(errno));
                goto out;
            }
            snprintf(tmp, sizeof(tmp), "%s/%s", cwd, d[i].ini);
            snprintf(d[i].ini, sizeof(d[i].ini), "%s", tmp);
        }
        unlink(d[i].log);
    }
    if ((ctl = zk_connect(zkh_hosts(z), BENCH_WAIT_MS)) == NULL)
        goto out;
    vlog("footprint: starting %d x %s, group %s", FP_N, bopt.daemon_prog, group);
    if (start_all(d, FP_N, zkh_hosts(z), group, pdir) != 0)
        goto out;

    /* every member registered and a READY leader */
    t = now_us();
    until = t + (uint64_t)FP_START_MS * 1000u;
    if ((k = wait_leader(ctl, p_leader, &w, d, FP_N, -1, 1, FP_START_MS, &epoch)) < 0) {
        if (k == -1)
            fprintf(stderr, "zkbench: footprint: no READY leader among the daemons within "
                "%d ms (logs: %s/footprint-d*.log)\n", FP_START_MS, bopt.outdir);
        goto out;
    }
    while ((nm = members(ctl, group)) != FP_N && now_us() < until)
        pace_ms(50); /* polling the member list, with a deadline */
    if (nm != FP_N) {
        fprintf(stderr, "zkbench: footprint: %d of %d daemons registered within %d ms (logs: "
            "%s/footprint-d*.log)\n", nm, FP_N, FP_START_MS, bopt.outdir);
        goto out;
    }
    vlog("footprint: %s READY (epoch %llu), %d members, %.1f s after the start", d[k].id,
        (unsigned long long)epoch, nm, (double)(now_us() - t) / 1e6);
    pace_ms(FP_SETTLE_MS);

    /* ---- idle ---- */
    vlog("footprint: idle for %d s", bopt.idle_s);
    for (i = 0; i < FP_N; i++)
        snap(d[i].pid, &i0[i]);
    t_idle0 = now_us();
    until = t_idle0 + (uint64_t)bopt.idle_s * 1000000u;
    while ((t = now_us()) < until) {
        for (i = 0; i < FP_N; i++)
            if (gone(&d[i])) {
                describe_exit(&d[i], why, sizeof(why));
                fprintf(stderr, "zkbench: footprint: zkelectd %s exited while idle (%s)\n",
                    d[i].id, why);
                log_tail(&d[i], 15);
                goto out;
            }
        pace_ms((int)((until - t) / 1000u > 1000 ? 1000 : (until - t + 999) / 1000u));
    }
    for (i = 0; i < FP_N; i++) {
        snap(d[i].pid, &i1[i]);
        if (!i0[i].ok || !i1[i].ok) {
            fprintf(stderr, "zkbench: footprint: cannot read /proc/%d of %s\n", (int)d[i].pid,
                d[i].id);
            goto out;
        }
    }
    smaps_read(&d[0], &sm0);
    idle_ok = true;

    /* ---- elections ---- */
    vlog("footprint: switchovers every %d ms for %d s", FP_GAP_MS, FP_ELECT_MS / 1000);
    if ((cur = wait_leader(ctl, p_leader, &w, d, FP_N, -1, 1, BENCH_WAIT_MS, &epoch)) < 0)
        goto out;
    for (i = 0; i < FP_N; i++)
        snap(d[i].pid, &e0[i]);
    t_el0 = now_us();
    until = t_el0 + (uint64_t)FP_ELECT_MS * 1000u;
    while (now_us() < until) {
        next = (cur + 1) % FP_N;
        t = now_us();
        if (switchover_write(ctl, group, d[next].id, "zkbench-footprint", NULL, NULL) != 0) {
            if (++failures > 5)
                break;
            pace_ms(FP_GAP_MS);
            continue;
        }
        k = wait_leader(ctl, p_leader, &w, d, FP_N, next, epoch + 1, BENCH_WAIT_MS, &epoch);
        if (k == -2)
            goto out;
        if (k < 0) {
            warnx_("footprint: switchover to %s: not READY within %d ms", d[next].id,
                BENCH_WAIT_MS);
            if (++failures > 5)
                break;
            if ((cur = wait_leader(ctl, p_leader, &w, d, FP_N, -1, 1, BENCH_WAIT_MS,
                &epoch)) < 0)
                goto out;
            continue;
        }
        samples_add(&lat, (int64_t)(now_us() - t));
        changes++;
        cur = k;
        pace_ms(FP_GAP_MS);
    }
    for (i = 0; i < FP_N; i++) {
        snap(d[i].pid, &e1[i]);
        if (!e0[i].ok || !e1[i].ok) {
            fprintf(stderr, "zkbench: footprint: cannot read /proc/%d of %s\n", (int)d[i].pid,
                d[i].id);
            goto out;
        }
    }
    t_el1 = now_us();
    el_ok = true;
    rc = failures > 5 ? 1 : 0;

out:
    stop_all(d, FP_N);
    zk_close(ctl);

    if (idle_ok) {
        s_idle = (double)(i1[0].us - i0[0].us) / 1e6;
        printf("  idle %.1f s (from %.0f s after a READY leader):\n", s_idle,
            FP_SETTLE_MS / 1000.0);
        printf("  %-4s %7s %8s %8s %8s %8s %8s %8s %7s %8s %8s %9s\n", "node", "pid", "RSS kB",
            "anon", "file", "PSS kB", "PSSanon", "PSSfile", "threads", "CPU %", "sched %",
            "wakeups/s");
        csv = csv_open("footprint.csv", "phase,node,seconds,cpu_ms,cpu_pct,sched_ms,sched_pct,"
            "vmrss_kb,rss_anon_kb,rss_file_kb,rss_shmem_kb,pss_kb,pss_anon_kb,pss_file_kb,"
            "vmhwm_kb,vmsize_kb,threads,ctxsw_per_s");
        for (i = 0; i < FP_N; i++) {
            const struct psnap *a = &i0[i], *b = &i1[i];
            double c = pct(b->cpu_ms - a->cpu_ms, b->us - a->us);
            double sc = pct(b->sched_ms - a->sched_ms, b->us - a->us);
            double ws = s_idle > 0 ? (double)(b->ctxsw - a->ctxsw) / s_idle : 0;
            printf("  %-4s %7d %8ld %8ld %8ld %8ld %8ld %8ld %7d %8.3f %8.3f %9.1f\n", d[i].id,
                (int)d[i].started, b->vmrss, b->rss_anon, b->rss_file, b->pss, b->pss_anon, b->pss_file,
                b->threads, c, sc, ws);
            csv_row(csv, "idle", &d[i], a, b);
            if (b->vmrss > max_rss)
                max_rss = (double)b->vmrss;
            if (b->pss > max_pss)
                max_pss = (double)b->pss;
            if (c > max_cpu)
                max_cpu = c;
            if (sc > max_sched)
                max_sched = sc;
        }
        table_note("RSS = VmRSS (anon + file + shmem); PSS counts a shared page 1/n in each of "
            "the n processes mapping it; CPU %% = (utime + stime) ticks / wall time; sched %% "
            "= run time of every thread (schedstat, ns)");
        smaps_print(&sm0);
        summary_csv_value("footprint", "idle RSS max", max_rss, "kB");
        summary_csv_value("footprint", "idle PSS max", max_pss, "kB");
        summary_csv_value("footprint", "idle CPU max", max_cpu, "%");
        summary_csv_value("footprint", "idle CPU (schedstat) max", max_sched, "%");
    }
    if (el_ok) {
        s_el = (double)(t_el1 - t_el0) / 1e6;
        samples_summary(&lat, &sm);
        printf("  elections %.1f s: %d leader changes (switchover to the next daemon, %d ms "
            "apart), request -> READY p50 %.1f ms, max %.1f ms%s\n", s_el, changes, FP_GAP_MS,
            sm.p50 / 1000.0, sm.max / 1000.0, failures ? " (with failures: see stderr)" : "");
        printf("  %-4s %8s %8s %16s %7s %9s\n", "node", "CPU %", "RSS kB", "peak RSS kB",
            "threads", "wakeups/s");
        for (i = 0; i < FP_N; i++) {
            const struct psnap *a = &e0[i], *b = &e1[i];
            double c = pct(b->cpu_ms - a->cpu_ms, b->us - a->us);
            printf("  %-4s %8.3f %8ld %16ld %7d %9.1f\n", d[i].id, c, b->vmrss, b->vmhwm,
                b->threads, s_el > 0 ? (double)(b->ctxsw - a->ctxsw) / s_el : 0);
            csv_row(csv, "elections", &d[i], a, b);
            if (c > max_ecpu)
                max_ecpu = c;
            if (b->vmhwm > max_hwm)
                max_hwm = (double)b->vmhwm;
        }
        table_note("peak RSS = VmHWM, since the daemon's start");
        summary_csv_value("footprint", "elections leader changes", changes, "count");
        summary_csv_value("footprint", "elections CPU max", max_ecpu, "%");
        summary_csv_value("footprint", "elections peak RSS max", max_hwm, "kB");
        if (sm.n)
            summary_csv("footprint", "elections switchover request -> READY", &sm);
    }
    csv_close(csv, "footprint.csv");
    if (idle_ok) {
        printf("  target idle RSS < 5 MB (5120 kB): %s (largest %.0f kB RSS, %.0f kB PSS)\n",
            max_rss < FP_RSS_TARGET_KB ? "met" : "MISSED", max_rss, max_pss);
        tick = 100.0 * 1000.0 / (double)sysconf(_SC_CLK_TCK) / ((double)bopt.idle_s * 1000.0);
        printf("  target idle CPU < %.1f %%: %s (largest %.3f %%, one tick = %.3f %% over %d s; "
            "schedstat %.3f %%)\n", FP_CPU_TARGET_PCT,
            max_cpu < FP_CPU_TARGET_PCT - 1e-9 ? "met" : "MISSED", max_cpu, tick, bopt.idle_s,
            max_sched);
        if (tick >= FP_CPU_TARGET_PCT / 2)
            printf("  (an idle time of %d s is too short for the tick figure to judge the CPU "
                "target: use -I 60)\n", bopt.idle_s);
    }
    if (!idle_ok || !el_ok)
        printf("  footprint: could not complete (see the messages on stderr)\n");
    fflush(stdout);
    samples_free(&lat);
    pthread_cond_destroy(&w.cv);
    pthread_mutex_destroy(&w.mu);
    return idle_ok && el_ok ? rc : 1;
}
