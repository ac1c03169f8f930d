/*
 * restart.c - section 8: kill -9 of the leader's zkelectd, restarted 100 ms
 * later as systemd does (Restart=always, RestartSec=100ms), at T = 10 s
 * (see bench/README, "Section 8: restart").
 *
 * Three real daemons (bopt.daemon_prog, -Z) on the ensemble, group
 * /zkbench/restart-PID, policy nodeid (preempt=off), session timeout 10 s,
 * each with its own [node] state_dir in a temporary directory. Their hooks
 * are those of tests/daemon/test_restart.sh: the takeover hook stamps
 * "NODE start MONO EPOCH" and starts a detached service (setsid: zkelectd
 * does not own it, so a SIGKILL of zkelectd leaves it running); the
 * stepdown hook stops it, waits until it is gone and stamps "NODE end MONO
 * EPOCH EVENT", into one service log, MONO from tests/harness/zke-mono.
 *
 * Each run: the READY leader's zkelectd gets SIGKILL, is reaped, and 100 ms
 * after the kill the same configuration starts again. Measured:
 *   - kill -> the first +ready (any node, epoch above the killed leader's),
 *     from the nodes' event logs (mono_ms: CLOCK_MONOTONIC, whole ms);
 *   - the service gap: the killed node's end stamp (its restarted zkelectd
 *     runs the stepdown hook from its state file) must come before the new
 *     leader's start stamp; the margin is start - end, a violation when it
 *     is not positive or the end never comes.
 * Before the next run everything is settled, with a deadline: a READY
 * leader in the leader znode at the new epoch, three registered members
 * whose sessions are live (the killed node's nodes/ znode belongs to a new
 * session), every daemon running.
 *
 * The daemon handling is footprint.c's (spawn with PR_SET_PDEATHSIG, reap,
 * stop with SIGTERM then SIGKILL), kept here in the few lines this section
 * needs.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cJSON.h>

#include "bench.h"
#include "codec.h"

#define RS_N 3                      /* daemons */
#define RS_SESSION_MS 10000         /* T */
#define RS_RESTART_MS 100           /* systemd's RestartSec=100ms: kill -> restart */
#define RS_START_MS 45000           /* deadline: three members and a READY leader */
#define RS_RUN_MS 30000             /* deadline: a new READY leader and both stamps */
#define RS_SETTLE_MS 30000          /* deadline: settled again after a run */
#define RS_STOP_MS 20000            /* SIGTERM -> SIGKILL at the end */
#define RS_TARGET_MS 1000           /* new leader READY within 1 s of the kill */

/* One daemon. */
struct rsd {
    char id[8];
    char ini[PATH_MAX];
    char log[PATH_MAX];
    char events[PATH_MAX];
    char state[PATH_MAX];           /* its [node] state_dir */
    int port;
    pid_t pid;                      /* -1 when not running */
    int status;                     /* wait status once reaped */
    long ev_off;                    /* event log: bytes read so far */
    uint64_t arm_epoch;             /* look for a +ready above this epoch */
    uint64_t arm_ms;                /* ... at or after this mono_ms */
    uint64_t ready_ms;              /* the first such +ready: mono_ms (0: none yet) */
    uint64_t ready_epoch;
    bool elector;                   /* by its +elector and -elector events */
};

/* The section's files. */
static char tmpdir[PATH_MAX];       /* state dirs, hooks, service pid files */
static char svclog[PATH_MAX];       /* the hooks' stamps (in the -o directory) */

/* ---- daemons ------------------------------------------------------------- */

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
write_file(const char *path, int mode, const char *text)
{
    FILE *f = fopen(path, "w");

    if (f == NULL || fputs(text, f) == EOF || fclose(f) != 0 || chmod(path, (mode_t)mode) != 0) {
        fprintf(stderr, "zkbench: restart: cannot write %s: %s\n", path, strerror(errno));
        return -1;
    }
    return 0;
}

/* The hooks of tests/daemon/test_restart.sh, with absolute paths. */
static int
write_hooks(const char *mono)
{
    char path[PATH_MAX], text[8192];

    snprintf(path, sizeof(path), "%s/service.sh", tmpdir);
    if (write_file(path, 0755, "#!/bin/sh\n"
        "# the service: runs until killed (SIGTERM ends it at once)\n"
        "exec sleep 1000000\n") != 0)
        return -1;
    snprintf(path, sizeof(path), "%s/takeover.sh", tmpdir);
    snprintf(text, sizeof(text), "#!/bin/sh\n"
        "# stamp, then start the service in its own session (zkelectd does not own it)\n"
        "echo \"$ZKELECT_NODE_ID start $('%s') $ZKELECT_EPOCH\" >> '%s'\n"
        "setsid '%s/service.sh' < /dev/null > /dev/null 2>&1 &\n"
        "echo $! > '%s/svc.'\"$ZKELECT_NODE_ID\".pid\n"
        "echo $! >> '%s/svc.all'\n", mono, svclog, tmpdir, tmpdir, tmpdir);
    if (write_file(path, 0755, text) != 0)
        return -1;
    snprintf(path, sizeof(path), "%s/stepdown.sh", tmpdir);
    snprintf(text, sizeof(text), "#!/bin/sh\n"
        "# stop the service, wait until it is gone, then stamp\n"
        "f='%s/svc.'\"$ZKELECT_NODE_ID\".pid\n"
        "[ -f \"$f\" ] || exit 0\n"
        "p=$(cat \"$f\")\n"
        "kill -TERM \"$p\" 2>/dev/null\n"
        "i=0\n"
        "while kill -0 \"$p\" 2>/dev/null &&\n"
        "    [ \"$(sed -n 's/^[0-9]* ([^)]*) \\(.\\).*/\\1/p' \"/proc/$p/stat\" 2>/dev/null)\" != Z ]; do\n"
        "    i=$((i + 1))\n"
        "    [ $i -gt 100 ] && kill -KILL \"$p\" 2>/dev/null\n"
        "    sleep 0.02\n"
        "done\n"
        "rm -f \"$f\"\n"
        "echo \"$ZKELECT_NODE_ID end $('%s') $ZKELECT_EPOCH $ZKELECT_EVENT\" >> '%s'\n",
        tmpdir, mono, svclog);
    return write_file(path, 0755, text);
}

static int
write_config(struct rsd *d, const char *hosts, const char *group, const char *policy_dir)
{
    char text[4096];
    int n;

    n = snprintf(text, sizeof(text), "# written by zkbench -x restart\n"
        "[zookeeper]\nhosts = %s\nsession_timeout_ms = %d\nconnect_timeout_ms = 15000\n"
        "[cluster]\npath = %s\n"
        "[node]\nid = %s\nstate_dir = %s\n"
        "[election]\npolicy = nodeid\n%s%s%s"
        "[policy]\npreempt = off\n"
        "[hooks]\ntakeover = %s/takeover.sh\nstepdown = %s/stepdown.sh\ntimeout_ms = 5000\n"
        "[http]\nlisten = 127.0.0.1:%d\n"
        "[log]\nlevel = info\ntarget = stderr\nevents = %s\n", hosts, RS_SESSION_MS, group,
        d->id, d->state, policy_dir ? "policy_path = " : "", policy_dir ? policy_dir : "",
        policy_dir ? "\n" : "", tmpdir, tmpdir, d->port, d->events);
    if (n < 0 || (size_t)n >= sizeof(text)) {
        fprintf(stderr, "zkbench: restart: %s's configuration is too long\n", d->id);
        return -1;
    }
    return write_file(d->ini, 0644, text);
}

static int
spawn(struct rsd *d)
{
    const char *argv[] = {bopt.daemon_prog, "-f", "-c", d->ini, NULL};
    pid_t parent = getpid(), pid;
    int lfd, nfd;

    if ((lfd = open(d->log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644)) == -1) {
        fprintf(stderr, "zkbench: restart: %s: %s\n", d->log, strerror(errno));
        return -1;
    }
    if ((nfd = open("/dev/null", O_RDONLY | O_CLOEXEC)) == -1) {
        close(lfd);
        return -1;
    }
    if ((pid = fork()) == -1) {
        fprintf(stderr, "zkbench: restart: fork: %s\n", strerror(errno));
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
        _exit(127);
    }
    close(lfd);
    close(nfd);
    d->pid = pid;
    d->status = 0;
    return 0;
}

/* Reap d if it has exited: true when it is (or was already) gone. */
static bool
gone(struct rsd *d)
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

/* A daemon that exited on its own: say so, with the end of its log. */
static bool
any_gone(struct rsd *d)
{
    char buf[4096];
    size_t n;
    long size;
    FILE *f;
    int i;

    for (i = 0; i < RS_N; i++) {
        if (!gone(&d[i]))
            continue;
        fprintf(stderr, "zkbench: restart: zkelectd %s exited (%s %d); the end of %s:\n",
            d[i].id, WIFSIGNALED(d[i].status) ? "signal" : "exit status",
            WIFSIGNALED(d[i].status) ? WTERMSIG(d[i].status) : WEXITSTATUS(d[i].status),
            d[i].log);
        if ((f = fopen(d[i].log, "r")) != NULL) {
            fseek(f, 0, SEEK_END);
            size = ftell(f);
            fseek(f, size > (long)sizeof(buf) - 1 ? size - (long)sizeof(buf) + 1 : 0, SEEK_SET);
            n = fread(buf, 1, sizeof(buf) - 1, f);
            buf[n] = '\0';
            fclose(f);
            fputs(buf, stderr);
        }
        return true;
    }
    return false;
}

/* SIGTERM every daemon (they resign: the leader's stepdown hook stops its
 * service), SIGKILL those left after RS_STOP_MS; always reaps. Then any
 * service left running (its stepdown hook did not run) is killed. */
static void
stop_all(struct rsd *d)
{
    uint64_t until = now_us() + (uint64_t)RS_STOP_MS * 1000u;
    char path[PATH_MAX], buf[32];
    bool left;
    FILE *f;
    int i;

    for (i = 0; i < RS_N; i++)
        if (d[i].pid > 0)
            kill(d[i].pid, SIGTERM);
    for (;;) {
        left = false;
        for (i = 0; i < RS_N; i++)
            if (!gone(&d[i]))
                left = true;
        if (!left || now_us() >= until)
            break;
        pace_ms(20); /* polling the children's exit, with a deadline */
    }
    for (i = 0; i < RS_N; i++)
        if (d[i].pid > 0) {
            warnx_("restart: %s (pid %d) did not exit within %d ms of SIGTERM; killing it",
                d[i].id, (int)d[i].pid, RS_STOP_MS);
            kill(d[i].pid, SIGKILL);
            while (waitpid(d[i].pid, &d[i].status, 0) == -1 && errno == EINTR)
                ;
            d[i].pid = -1;
        }
    for (i = 0; i < RS_N; i++) {
        snprintf(path, sizeof(path), "%s/svc.%s.pid", tmpdir, d[i].id);
        unlink(path);
    }
    /* every service ever started (the takeover hook lists them): one still
       running is one whose stepdown never ran (a violation, or a run cut
       short); it is still our "sleep" when it leads its own session */
    snprintf(path, sizeof(path), "%s/svc.all", tmpdir);
    if ((f = fopen(path, "r")) == NULL)
        return;
    while (fgets(buf, sizeof(buf), f) != NULL) {
        char stat[PATH_MAX], comm[64], state;
        int pid = atoi(buf), sid;
        FILE *sf;

        snprintf(stat, sizeof(stat), "/proc/%d/stat", pid);
        if (pid <= 1 || (sf = fopen(stat, "r")) == NULL)
            continue;
        /* a zombie is stopped already (its new parent has not reaped it) */
        if (fscanf(sf, "%*d (%63[^)]) %c %*d %*d %d", comm, &state, &sid) == 3 &&
            strcmp(comm, "sleep") == 0 && sid == pid && state != 'Z') {
            warnx_("restart: a service (pid %d) still ran after every zkelectd stopped; "
                "killing it", pid);
            kill(pid, SIGKILL);
        }
        fclose(sf);
    }
    fclose(f);
    unlink(path);
}

/* ---- event logs and stamps ----------------------------------------------- */

/* Read d's event log on from where the last call stopped (whole lines only):
 * whether it is the elector, and the first +ready above arm_epoch at or
 * after arm_ms. */
static void
events_tail(struct rsd *d)
{
    char line[4096];
    const cJSON *ev, *ms, *ep;
    cJSON *o;
    FILE *f;
    size_t n;

    if ((f = fopen(d->events, "r")) == NULL)
        return;
    if (fseek(f, d->ev_off, SEEK_SET) != 0) {
        fclose(f);
        return;
    }
    while (fgets(line, sizeof(line), f) != NULL) {
        n = strlen(line);
        if (n == 0 || line[n - 1] != '\n')
            break;              /* being written: read it next time */
        d->ev_off += (long)n;
        if (strstr(line, "\"+elector\"") != NULL)
            d->elector = true;
        else if (strstr(line, "\"-elector\"") != NULL)
            d->elector = false;
        if (strstr(line, "\"+ready\"") == NULL || (o = cJSON_Parse(line)) == NULL)
            continue;
        ev = cJSON_GetObjectItemCaseSensitive(o, "event");
        ms = cJSON_GetObjectItemCaseSensitive(o, "mono_ms");
        ep = cJSON_GetObjectItemCaseSensitive(o, "epoch");
        if (cJSON_IsString(ev) && strcmp(ev->valuestring, "+ready") == 0 &&
            cJSON_IsNumber(ms) && cJSON_IsNumber(ep) && d->ready_ms == 0 &&
            (uint64_t)ep->valuedouble > d->arm_epoch && (uint64_t)ms->valuedouble >= d->arm_ms) {
            d->ready_ms = (uint64_t)ms->valuedouble;
            d->ready_epoch = (uint64_t)ep->valuedouble;
        }
        cJSON_Delete(o);
    }
    fclose(f);
}

/*
 * The first service stamp "NODE WHAT MONO EPOCH ..." of this node, kind and
 * epoch, with MONO >= after_ms: 0 and *mono_ms, or -1 when there is none
 * (yet).
 */
static int
stamp_find(const char *node, const char *what, uint64_t epoch, double after_ms, double *mono_ms)
{
    char line[512], n[64], w[16];
    unsigned long long e;
    double t;
    FILE *f;
    int rc = -1;

    if ((f = fopen(svclog, "r")) == NULL)
        return -1;
    while (rc != 0 && fgets(line, sizeof(line), f) != NULL)
        if (sscanf(line, "%63s %15s %lf %llu", n, w, &t, &e) == 4 && strcmp(n, node) == 0 &&
            strcmp(w, what) == 0 && e == epoch && t >= after_ms) {
            *mono_ms = t;
            rc = 0;
        }
    fclose(f);
    return rc;
}

/* ---- ZooKeeper ----------------------------------------------------------- */

/* The leader znode: 0 and *l (l->id "" when there is none), -1 on an error. */
static int
leader_get(zhandle_t *zh, const char *group, struct zke_leader *l)
{
    char p[256], buf[2048], err[256];
    struct Stat st;
    int len = (int)sizeof(buf), rc;

    memset(l, 0, sizeof(*l));
    snprintf(p, sizeof(p), "%s/leader", group);
    rc = zoo_get(zh, p, 0, buf, &len, &st);
    if (rc == ZNONODE)
        return 0;
    if (rc != ZOK) {
        warnx_("restart: read %s: %s", p, zerror(rc));
        return -1;
    }
    if (zke_leader_decode(buf, len, l, err, sizeof(err)) != 0) {
        warnx_("restart: %s: %s", p, err);
        return -1;
    }
    return 0;
}

/* The session owning nodes/<id>: 0 when it is not there, -1 on an error. */
static int64_t
member_owner(zhandle_t *zh, const char *group, const char *id)
{
    char p[256];
    struct Stat st;
    int rc;

    snprintf(p, sizeof(p), "%s/nodes/%s", group, id);
    rc = zoo_exists(zh, p, 0, &st);
    if (rc == ZNONODE)
        return 0;
    return rc == ZOK ? st.ephemeralOwner : -1;
}

static int
index_of(const struct rsd *d, const char *id)
{
    int i;

    for (i = 0; i < RS_N; i++)
        if (strcmp(d[i].id, id) == 0)
            return i;
    return -1;
}

/*
 * Settled: every daemon running, a READY leader of ours in the leader znode
 * at epoch >= min_epoch, its takeover start stamp there, and every member
 * registered, the node `fresh` (-1: none) by a session other than
 * old_owner. The leader's index and *epoch, -1 after timeout_ms, -2 when a
 * daemon exited.
 */
static int
settle(zhandle_t *zh, const char *group, struct rsd *d, uint64_t min_epoch, int fresh,
    int64_t old_owner, int timeout_ms, uint64_t *epoch, int64_t owners[RS_N])
{
    uint64_t until = now_us() + (uint64_t)timeout_ms * 1000u;
    struct zke_leader l;
    double t;
    int i, k = -1;
    bool ok;

    for (;;) {
        if (any_gone(d))
            return -2;
        ok = leader_get(zh, group, &l) == 0 && l.id[0] != '\0' &&
            l.status == ZKELECT_STATUS_READY && l.epoch >= min_epoch &&
            (k = index_of(d, l.id)) >= 0 && stamp_find(l.id, "start", l.epoch, 0, &t) == 0;
        for (i = 0; ok && i < RS_N; i++) {
            owners[i] = member_owner(zh, group, d[i].id);
            if (owners[i] <= 0 || (i == fresh && owners[i] == old_owner))
                ok = false;
        }
        if (ok) {
            *epoch = l.epoch;
            return k;
        }
        if (now_us() >= until)
            return -1;
        pace_ms(20); /* polling ZooKeeper and the stamps, with a deadline */
    }
}

/* ---- the section --------------------------------------------------------- */

static void
loadavg(char *out, size_t len)
{
    FILE *f = fopen("/proc/loadavg", "r");

    snprintf(out, len, "?");
    if (f != NULL) {
        if (fgets(out, (int)len, f) != NULL)
            out[strcspn(out, "\n")] = '\0';
        fclose(f);
    }
}

static void
rm_tmpdir(const struct rsd *d)
{
    char p[PATH_MAX];
    int i;

    if (tmpdir[0] == '\0')
        return;
    for (i = 0; i < RS_N; i++) {
        snprintf(p, sizeof(p), "%s/%s.state", d[i].state, d[i].id);
        unlink(p);
        snprintf(p, sizeof(p), "%s/.%s.state.tmp", d[i].state, d[i].id);
        unlink(p);
        rmdir(d[i].state);
    }
    snprintf(p, sizeof(p), "%s/service.sh", tmpdir);
    unlink(p);
    snprintf(p, sizeof(p), "%s/takeover.sh", tmpdir);
    unlink(p);
    snprintf(p, sizeof(p), "%s/stepdown.sh", tmpdir);
    unlink(p);
    if (rmdir(tmpdir) != 0)
        warnx_("restart: %s left behind: %s", tmpdir, strerror(errno));
}

int
section_restart(struct zkh *z)
{
    static struct rsd d[RS_N];
    struct samples ready = {0}, end = {0}, start = {0}, margin = {0};
    struct summary sm;
    zhandle_t *ctl = NULL;
    FILE *csv = NULL;
    char group[128], outdir[PATH_MAX], policy_dir[PATH_MAX], load0[128], load1[128];
    char mtext[32];
    const char *pdir = NULL, *tmp;
    uint64_t epoch = 0, t_kill, t_restart, kill_ms, until;
    int64_t owners[RS_N], old_owner;
    double t_end, t_start, min_margin = 0;
    int i, k, nk, runs = 0, within = 0, violations = 0, no_end = 0, elector_runs = 0, rc = 1;

    loadavg(load0, sizeof(load0));
    printf("\n8. Restart: kill -9 of the leader's zkelectd, restarted %d ms later "
        "(RestartSec=100ms), T = %d s, %d daemons (policy nodeid, preempt off, hooks with a "
        "detached service), %d runs\n", RS_RESTART_MS, RS_SESSION_MS / 1000, RS_N,
        bopt.restart_runs);
    fflush(stdout);
    snprintf(group, sizeof(group), "/zkbench/restart-%d", (int)getpid());
    if (realpath(bopt.outdir, outdir) == NULL) {
        fprintf(stderr, "zkbench: restart: -o %s: %s\n", bopt.outdir, strerror(errno));
        return 1;
    }
    if (bopt.policy_dir) {
        if (realpath(bopt.policy_dir, policy_dir) == NULL) {
            fprintf(stderr, "zkbench: restart: -P %s: %s\n", bopt.policy_dir, strerror(errno));
            return 1;
        }
        pdir = policy_dir;
    }
    tmp = getenv("TMPDIR");
    snprintf(tmpdir, sizeof(tmpdir), "%s/zkbench-restart.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (mkdtemp(tmpdir) == NULL) {
        fprintf(stderr, "zkbench: restart: mkdtemp %s: %s\n", tmpdir, strerror(errno));
        tmpdir[0] = '\0';
        return 1;
    }
    snprintf(svclog, sizeof(svclog), "%s/restart-service.log", outdir);
    unlink(svclog);
    for (i = 0; i < RS_N; i++) {
        snprintf(d[i].id, sizeof(d[i].id), "d%d", i + 1);
        snprintf(d[i].ini, sizeof(d[i].ini), "%s/restart-%s.ini", outdir, d[i].id);
        snprintf(d[i].log, sizeof(d[i].log), "%s/restart-%s.log", outdir, d[i].id);
        snprintf(d[i].events, sizeof(d[i].events), "%s/restart-%s.events", outdir, d[i].id);
        snprintf(d[i].state, sizeof(d[i].state), "%s/state-%s", tmpdir, d[i].id);
        d[i].pid = -1;
        d[i].ev_off = 0;
        unlink(d[i].log);
        unlink(d[i].events);
        if (mkdir(d[i].state, 0700) != 0) {
            fprintf(stderr, "zkbench: restart: mkdir %s: %s\n", d[i].state, strerror(errno));
            goto out;
        }
    }
    if (write_hooks(bopt.mono_prog) != 0)
        goto out;
    if ((ctl = zk_connect(zkh_hosts(z), BENCH_WAIT_MS)) == NULL)
        goto out;
    vlog("restart: starting %d x %s, group %s, files %s", RS_N, bopt.daemon_prog, group, tmpdir);
    for (i = 0; i < RS_N; i++) {
        if ((d[i].port = free_port()) <= 0) {
            fprintf(stderr, "zkbench: restart: no free loopback port: %s\n", strerror(errno));
            goto out;
        }
        if (write_config(&d[i], zkh_hosts(z), group, pdir) != 0 || spawn(&d[i]) != 0)
            goto out;
    }
    if ((k = settle(ctl, group, d, 1, -1, 0, RS_START_MS, &epoch, owners)) < 0) {
        if (k == -1)
            fprintf(stderr, "zkbench: restart: no READY leader with three members within %d ms "
                "(logs: %s/restart-d*.log)\n", RS_START_MS, outdir);
        goto out;
    }
    csv = csv_open("restart.csv", "run,killed,killed_epoch,killed_elector,new_leader,new_epoch,"
        "kill_to_restart_ms,kill_to_ready_ms,kill_to_old_end_ms,kill_to_new_start_ms,margin_ms,settle_ms");

    for (runs = 0; runs < bopt.restart_runs; runs++) {
        struct rsd *v = &d[k];
        uint64_t old_epoch = epoch;
        uint64_t t_settled;
        bool was_elector;

        old_owner = owners[k];
        for (i = 0; i < RS_N; i++) {
            events_tail(&d[i]);     /* what is there now does not count */
            d[i].ready_ms = 0;
        }
        was_elector = v->elector;
        vlog("restart: run %d: kill -9 %s (pid %d, READY at epoch %llu%s)", runs + 1, v->id,
            (int)v->pid, (unsigned long long)old_epoch, v->elector ? ", the elector too" : "");
        t_kill = now_us();
        kill_ms = t_kill / 1000u;
        for (i = 0; i < RS_N; i++) {
            d[i].arm_epoch = old_epoch;
            d[i].arm_ms = kill_ms;
        }
        kill(v->pid, SIGKILL);
        while (waitpid(v->pid, &v->status, 0) == -1 && errno == EINTR)
            ;
        v->pid = -1;
        v->elector = false;         /* the restarted process starts without */
        /* the scenario's delay (RestartSec), not a wait for a condition */
        while ((t_restart = now_us()) < t_kill + RS_RESTART_MS * 1000u)
            pace_ms((int)((t_kill + RS_RESTART_MS * 1000u - t_restart + 999) / 1000u));
        if (spawn(v) != 0)
            goto out;

        /* the first +ready above the old epoch, and both stamps */
        until = now_us() + (uint64_t)RS_RUN_MS * 1000u;
        nk = -1;
        t_end = t_start = -1;
        for (;;) {
            if (any_gone(d))
                goto out;
            for (i = 0; i < RS_N; i++) {
                events_tail(&d[i]);
                if (d[i].ready_ms && (nk < 0 || d[i].ready_ms < d[nk].ready_ms))
                    nk = i;
            }
            if (t_end < 0 && stamp_find(v->id, "end", old_epoch, (double)t_kill / 1000.0,
                &t_end) != 0)
                t_end = -1;
            if (nk >= 0 && t_start < 0 && stamp_find(d[nk].id, "start", d[nk].ready_epoch, 0,
                &t_start) != 0)
                t_start = -1;
            if ((nk >= 0 && t_end >= 0 && t_start >= 0) || now_us() >= until)
                break;
            pace_ms(5); /* polling the event logs and the stamps, with a deadline */
        }
        if (nk < 0) {
            fprintf(stderr, "zkbench: restart: run %d: no new READY leader within %d ms of the "
                "kill (logs: %s/restart-d*.log)\n", runs + 1, RS_RUN_MS, outdir);
            goto out;
        }
        if (t_start < 0) {
            fprintf(stderr, "zkbench: restart: run %d: %s READY at epoch %llu without its "
                "takeover stamp in %s\n", runs + 1, d[nk].id,
                (unsigned long long)d[nk].ready_epoch, svclog);
            goto out;
        }
        samples_add(&ready, (int64_t)(d[nk].ready_ms * 1000u) - (int64_t)t_kill);
        if (was_elector)
            elector_runs++;
        if ((int64_t)(d[nk].ready_ms * 1000u) - (int64_t)t_kill <= RS_TARGET_MS * 1000)
            within++;
        samples_add(&start, (int64_t)(t_start * 1000.0) - (int64_t)t_kill);
        if (t_end < 0) {
            violations++;
            no_end++;
            warnx_("restart: run %d: %s's service never ended (no end stamp at epoch %llu "
                "within %d ms)", runs + 1, v->id, (unsigned long long)old_epoch, RS_RUN_MS);
        } else {
            double m = t_start - t_end;
            samples_add(&end, (int64_t)(t_end * 1000.0) - (int64_t)t_kill);
            samples_add(&margin, (int64_t)(m * 1000.0));
            if (margin.n == 1 || m < min_margin)
                min_margin = m;
            if (m <= 0) {
                violations++;
                warnx_("restart: run %d: %s's takeover started %.3f ms before %s's service "
                    "ended", runs + 1, d[nk].id, -m, v->id);
            }
        }

        /* settled again: the new leader READY, the restarted node registered anew */
        if ((k = settle(ctl, group, d, d[nk].ready_epoch, (int)(v - d), old_owner,
            RS_SETTLE_MS, &epoch, owners)) < 0) {
            if (k == -1)
                fprintf(stderr, "zkbench: restart: run %d: not settled within %d ms (a READY "
                    "leader, three members, %s by a new session; logs: %s/restart-d*.log)\n",
                    runs + 1, RS_SETTLE_MS, v->id, outdir);
            goto out;
        }
        t_settled = now_us();
        if (t_end >= 0)
            snprintf(mtext, sizeof(mtext), "%.3f ms", t_start - t_end);
        else
            snprintf(mtext, sizeof(mtext), "none (no end)");
        vlog("restart: run %d: %s READY %.1f ms after the kill, margin %s; settled (%s READY, "
            "epoch %llu) after %.1f s", runs + 1, d[nk].id,
            (double)((int64_t)(d[nk].ready_ms * 1000u) - (int64_t)t_kill) / 1000.0, mtext,
            d[k].id, (unsigned long long)epoch, (double)(t_settled - t_kill) / 1e6);
        if (csv) {
            char e[32] = "", m[32] = "";    /* empty: the old service never ended */
            if (t_end >= 0) {
                snprintf(e, sizeof(e), "%.3f", t_end - (double)t_kill / 1000.0);
                snprintf(m, sizeof(m), "%.3f", t_start - t_end);
            }
            fprintf(csv, "%d,%s,%llu,%d,%s,%llu,%.3f,%.3f,%s,%.3f,%s,%.3f\n", runs + 1,
                v->id, (unsigned long long)old_epoch, was_elector, d[nk].id,
                (unsigned long long)d[nk].ready_epoch, (double)(t_restart - t_kill) / 1000.0,
                (double)((int64_t)(d[nk].ready_ms * 1000u) - (int64_t)t_kill) / 1000.0, e,
                t_start - (double)t_kill / 1000.0, m, (double)(t_settled - t_kill) / 1000.0);
        }
    }
    rc = 0;

out:
    stop_all(d);
    zk_close(ctl);
    csv_close(csv, "restart.csv");
    loadavg(load1, sizeof(load1));
    if (ready.n) {
        table_header("  kill -9 + restart after 100 ms, T = 10 s");
        samples_summary(&ready, &sm);
        table_row("kill -> new leader +ready (event log)", &sm);
        summary_csv("restart", "kill -> +ready", &sm);
        samples_summary(&end, &sm);
        table_row("kill -> old service end (restart stepdown)", &sm);
        summary_csv("restart", "kill -> old service end", &sm);
        samples_summary(&start, &sm);
        table_row("kill -> new takeover start", &sm);
        summary_csv("restart", "kill -> new takeover start", &sm);
        samples_summary(&margin, &sm);
        table_row("service margin: new start - old end", &sm);
        summary_csv("restart", "service margin", &sm);
        if (margin.n)
            snprintf(mtext, sizeof(mtext), "%.3f ms", min_margin);
        else
            snprintf(mtext, sizeof(mtext), "none");
        printf("  within %d ms: %d of %zu (%.0f %%); min service margin %s; violations "
            "(old end not before new start) %d", RS_TARGET_MS, within, ready.n,
            100.0 * within / (double)ready.n, mtext, violations);
        if (no_end)
            printf(" (in %d the old service never ended)", no_end);
        printf("\n");
        printf("  target (new leader READY within 1 s at T = 10 s, old service stopped first): "
            "%s\n", within == (int)ready.n && violations == 0 ? "met" : "MISSED");
        summary_csv_value("restart", "within 1 s", 100.0 * within / (double)ready.n, "%");
        if (margin.n)
            summary_csv_value("restart", "min service margin", min_margin, "ms");
        summary_csv_value("restart", "violations", violations, "count");
        printf("  the killed leader was the elector too in %d of %zu runs (restart.csv: "
            "killed_elector)\n", elector_runs, ready.n);
    }
    printf("  load average: %s at the start, %s at the end\n", load0, load1);
    if (rc != 0)
        printf("  restart: could not complete (%d of %d runs; see the messages on stderr)\n",
            runs, bopt.restart_runs);
    fflush(stdout);
    samples_free(&ready);
    samples_free(&end);
    samples_free(&start);
    samples_free(&margin);
    rm_tmpdir(d);
    return rc;
}
