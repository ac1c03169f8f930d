/*
 * cluster.c - the nodes of a fault run: their configuration and hooks, the
 * zkelectd processes (started, killed, stopped, continued, reaped), one
 * poller thread per node that reads its HTTP endpoints and writes the
 * fenced register with the node's epoch while the node says it is the READY
 * leader, and the zkelect commands the harness runs.
 *
 * Processes are started from the main thread only (PR_SET_PDEATHSIG fires
 * when the forking thread exits) and reaped by pid: the ZooKeeper harness
 * reaps its own servers, so nothing here waits for any child.
 */
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cJSON.h>

#include "fault.h"

#define POLL_INTERVAL_MS    150         /* each poller's period */
#define POLL_TIMEOUT_MS     1000        /* one HTTP request */
#define STATUS_EVERY        3           /* /status every this many /leader polls */

/* ------------------------------------------------------------------------
 * Files: hooks and configurations
 * ------------------------------------------------------------------------ */

static int
cluster_write(const char *path, const char *text, mode_t mode)
{
    FILE *fp = fopen(path, "w");

    if (fp == NULL) {
        fprintf(stderr, "test_fault: cannot write %s: %s\n", path, strerror(errno));
        return -1;
    }
    fputs(text, fp);
    if (fclose(fp) != 0 || chmod(path, mode) == -1) {
        fprintf(stderr, "test_fault: cannot write %s: %s\n", path, strerror(errno));
        return -1;
    }
    return 0;
}

/* A free TCP port on 127.0.0.1 (closed again: the daemon binds it). */
static int
cluster_pick_port(void)
{
    struct sockaddr_in sin;
    socklen_t len = sizeof sin;
    int fd, port = -1;

    if ((fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
        return -1;
    memset(&sin, 0, sizeof sin);
    sin.sin_family = AF_INET;
    sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(fd, (struct sockaddr *)&sin, sizeof sin) == 0
        && getsockname(fd, (struct sockaddr *)&sin, &len) == 0)
        port = ntohs(sin.sin_port);
    close(fd);
    return port;
}

/*
 * Does this zkelectd accept the configuration TEXT? zkelectd -n on it
 * (probe.ini in the work directory): 1 yes, 0 no. Keys that other parts of
 * issue 14 add ([leader] command, [hooks] stepdown_timeout_ms, [node]
 * state_dir) are used only when the daemon knows them.
 */
static int
cluster_accepts(struct fault *f, const char *text)
{
    char path[PATH_MAX];
    pid_t pid;
    int st, fd;

    snprintf(path, sizeof path, "%s/probe.ini", f->dir);
    if (cluster_write(path, text, 0644) == -1)
        return 0;
    if ((pid = fork()) == -1)
        return 0;
    if (pid == 0) {
        if ((fd = open("/dev/null", O_RDWR | O_CLOEXEC)) != -1) {
            dup2(fd, 0);
            dup2(fd, 1);
            dup2(fd, 2);
        }
        execl(f->zkelectd, "zkelectd", "-n", "-c", path, (char *)NULL);
        _exit(127);
    }
    while (waitpid(pid, &st, 0) == -1 && errno == EINTR)
        ;
    unlink(path);
    return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

/* Node i's configuration with the optional lines (each "" or whole lines). */
static void
cluster_ini(struct fault *f, int i, const char *opt_node, const char *opt_hooks,
    const char *opt_leader, char *text, size_t len)
{
    struct fnode *n = &f->nodes[i];

    snprintf(text, len,
        "# %s of the fault run (seed %" PRIu64 ")\n"
        "[zookeeper]\n"
        "hosts = %s\n"
        "session_timeout_ms = %d\n"
        "connect_timeout_ms = 15000\n"
        "[cluster]\n"
        "path = " FAULT_GROUP "\n"
        "[node]\n"
        "id = %s\n"
        "site = %s\n"
        "priority = %d\n"
        "%s"
        "[election]\n"
        "policy = site\n"
        "watchdog_ms = %d\n"
        "exclude_ms = %d\n"
        "[hooks]\n"
        "takeover = %s/hooks/takeover\n"
        "stepdown = %s/hooks/stepdown\n"
        "notify = %s/hooks/notify\n"
        "timeout_ms = %d\n"
        "%s"
        "[http]\n"
        "listen = 127.0.0.1:%d\n"
        "[log]\n"
        "level = info\n"
        "events = %s\n"
        "%s",
        n->id, f->seed, f->hosts, f->session_ms, n->id, n->site, n->priority, opt_node,
        f->watchdog_ms, f->exclude_ms, f->dir, f->dir, f->dir, f->hook_timeout_ms, opt_hooks,
        n->http_port, n->events, opt_leader);
}

/* The stepdown hook: slow (slow_ms) while slow-stepdown.NODE exists. 0 or -1. */
static int
cluster_write_stepdown(struct fault *f, int slow_ms)
{
    char path[PATH_MAX], text[2048];

    snprintf(text, sizeof text,
        "#!/bin/sh\n"
        "# stepdown hook of the fault harness: takes %d ms (60%% of its timeout)\n"
        "# while the flag file slow-stepdown.NODE exists (an injected fault), then\n"
        "# stamps the end of the service.\n"
        "if [ -e '%s/slow-stepdown.'\"$ZKELECT_NODE_ID\" ]; then\n"
        "    sleep %d.%03d\n"
        "fi\n"
        "echo \"$ZKELECT_NODE_ID end $('%s') ${ZKELECT_EPOCH:--} ${ZKELECT_SLOT:--}\" "
        ">> '%s/service.log'\n",
        slow_ms, f->dir, slow_ms / 1000, slow_ms % 1000, f->mono, f->dir);
    snprintf(path, sizeof path, "%s/hooks/stepdown", f->dir);
    return cluster_write(path, text, 0755);
}

/*
 * Lay the nodes out (the first half, rounded up, in dc1, the rest in dc2,
 * priorities 10 * (k - j) inside a site so that every node has its own),
 * write the hooks and every node's configuration.
 *
 * The service: the takeover hook stamps its start and the stepdown hook its
 * end into service.log ("NODE start|end MONO EPOCH SLOT", CLOCK_MONOTONIC ms
 * from zke-mono; one short O_APPEND write each), the checker's "service"
 * checks (per slot: $ZKELECT_SLOT, "-" from a zkelectd without slots). The
 * register is written for the hook's slot, each slot having its own.
 */
int
cluster_write_files(struct fault *f)
{
    char path[PATH_MAX], text[4096], opt_node[PATH_MAX + 32], opt_hooks[64];
    char opt_leader[PATH_MAX + 64], probe[64];
    int i, ndc1 = (f->nnodes + 1) / 2, j, slow_ms;

    if (strchr(f->dir, '\'') != NULL || strchr(f->regtool, '\'') != NULL
        || strchr(f->mono, '\'') != NULL) {
        fprintf(stderr, "test_fault: a path with a single quote cannot go into a hook\n");
        return -1;
    }
    snprintf(path, sizeof path, "%s/hooks", f->dir);
    if (mkdir(path, 0755) == -1 && errno != EEXIST) {
        fprintf(stderr, "test_fault: cannot create %s: %s\n", path, strerror(errno));
        return -1;
    }
    snprintf(text, sizeof text,
        "#!/bin/sh\n"
        "# takeover hook of the fault harness: stamps the start of the service\n"
        "# first; fails while the flag file fail-takeover.NODE exists, hangs past\n"
        "# [hooks] timeout_ms while hang-takeover.NODE exists (injected faults);\n"
        "# else it takes the fenced register at this epoch, and a refusal (a newer\n"
        "# epoch wrote it already: this takeover is stale) fails the takeover.\n"
        "echo \"$ZKELECT_NODE_ID start $('%s') ${ZKELECT_EPOCH:--} ${ZKELECT_SLOT:--}\" "
        ">> '%s/service.log'\n"
        "if [ -e '%s/fail-takeover.'\"$ZKELECT_NODE_ID\" ]; then\n"
        "    echo \"injected takeover failure on $ZKELECT_NODE_ID epoch $ZKELECT_EPOCH\" >&2\n"
        "    exit 1\n"
        "fi\n"
        "if [ -e '%s/hang-takeover.'\"$ZKELECT_NODE_ID\" ]; then\n"
        "    echo \"injected takeover hang on $ZKELECT_NODE_ID epoch $ZKELECT_EPOCH\" >&2\n"
        "    exec sleep %d\n"
        "fi\n"
        "exec '%s' '%s' \"$ZKELECT_NODE_ID\" \"$ZKELECT_EPOCH\" takeover \"${ZKELECT_SLOT:-0}\"\n",
        f->mono, f->dir, f->dir, f->dir, 2 * f->hook_timeout_ms / 1000 + 1, f->regtool, f->dir);
    snprintf(path, sizeof path, "%s/hooks/takeover", f->dir);
    if (cluster_write(path, text, 0755) == -1)
        return -1;
    snprintf(text, sizeof text,
        "#!/bin/sh\n"
        "# notify hook of the fault harness: a leader writes the fenced register\n"
        "# when it becomes READY or resumes (notify hooks may run late: a refusal\n"
        "# is what fencing is for).\n"
        "case \"$ZKELECT_EVENT\" in\n"
        "+ready|+resumed)\n"
        "    exec '%s' '%s' \"$ZKELECT_NODE_ID\" \"$ZKELECT_EPOCH\" notify \"${ZKELECT_SLOT:-0}\" ;;\n"
        "esac\n"
        "exit 0\n", f->regtool, f->dir);
    snprintf(path, sizeof path, "%s/hooks/notify", f->dir);
    if (cluster_write(path, text, 0755) == -1)
        return -1;

    /* the stepdown hook (written again below once its timeout is known) and command */
    if (cluster_write_stepdown(f, f->hook_timeout_ms * 4 / 5) == -1)
        return -1;
    snprintf(text, sizeof text,
        "#!/bin/sh\n"
        "# [leader] command of the fault harness (argument: the node id): the\n"
        "# service's own process; it exits by itself (status 3) once the flag file\n"
        "# command-exit.NODE exists (an injected fault), checked every 200 ms.\n"
        "while [ ! -e '%s/command-exit.'\"$1\" ]; do\n"
        "    sleep 0.2\n"
        "done\n"
        "echo \"injected exit of the command of $1\" >&2\n"
        "exit 3\n", f->dir);
    snprintf(path, sizeof path, "%s/hooks/command", f->dir);
    if (cluster_write(path, text, 0755) == -1)
        return -1;

    /* what this zkelectd knows: node 1's configuration with each new key */
    f->nodes[0].http_port = 1;
    snprintf(f->nodes[0].id, sizeof f->nodes[0].id, "n1");
    snprintf(f->nodes[0].site, sizeof f->nodes[0].site, "dc1");
    f->nodes[0].priority = 10;
    snprintf(f->nodes[0].events, sizeof f->nodes[0].events, "%s/probe.events", f->dir);
    cluster_ini(f, 0, "", "", "", text, sizeof text);
    if (!cluster_accepts(f, text)) {
        /* else every probe below would say "not known" for another reason */
        snprintf(path, sizeof path, "%s/probe.ini", f->dir);
        cluster_write(path, text, 0644);
        fprintf(stderr, "test_fault: zkelectd -n refuses the harness's own configuration "
            "(zkelectd -n -c %s says why)\n", path);
        return -1;
    }
    /* the state directory first: -n may check that it exists */
    snprintf(path, sizeof path, "%s/state", f->dir);
    snprintf(opt_node, sizeof opt_node, "state_dir = %s\n", path);
    cluster_ini(f, 0, opt_node, "", "", text, sizeof text);
    f->has_state_dir = (mkdir(path, 0700) == 0 || errno == EEXIST) && cluster_accepts(f, text);
    if (!f->has_state_dir) {
        rmdir(path);
        opt_node[0] = '\0';
    }
    snprintf(probe, sizeof probe, "stepdown_timeout_ms = %d\n", f->session_ms / 4);
    cluster_ini(f, 0, "", probe, "", text, sizeof text);
    f->stepdown_timeout_ms = cluster_accepts(f, text) ? f->session_ms / 4 : 0;
    snprintf(opt_hooks, sizeof opt_hooks, "%s", f->stepdown_timeout_ms ? probe : "");
    cluster_ini(f, 0, "", "", "[leader]\ncommand = true\n", text, sizeof text);
    f->has_command = cluster_accepts(f, text);
    fault_log(f, "zkelectd knows [node] state_dir: %s, [hooks] stepdown_timeout_ms: %s, "
        "[leader] command: %s", f->has_state_dir ? "yes" : "no",
        f->stepdown_timeout_ms ? "yes" : "no", f->has_command ? "yes" : "no");

    /* the stepdown hook: slow for 60% of the step-down budget D while
       slow-stepdown.NODE exists. D counts from the library's request, and
       stopping the supervised command comes out of it first: 80% of D was
       measured to leave the hook killed (with its service) at D */
    slow_ms = (f->stepdown_timeout_ms ? f->stepdown_timeout_ms : f->hook_timeout_ms) * 3 / 5;
    if (cluster_write_stepdown(f, slow_ms) == -1)
        return -1;

    for (i = 0; i < f->nnodes; i++) {
        struct fnode *n = &f->nodes[i];

        n->idx = i;
        n->pid = -1;
        snprintf(n->id, sizeof n->id, "n%d", i + 1);
        j = i < ndc1 ? i : i - ndc1;
        snprintf(n->site, sizeof n->site, "%s", i < ndc1 ? "dc1" : "dc2");
        n->priority = 10 * ((i < ndc1 ? ndc1 : f->nnodes - ndc1) - j);
        if ((n->http_port = cluster_pick_port()) < 0) {
            fprintf(stderr, "test_fault: cannot pick a free port: %s\n", strerror(errno));
            return -1;
        }
        snprintf(n->ini, sizeof n->ini, "%s/%s.ini", f->dir, n->id);
        snprintf(n->events, sizeof n->events, "%s/%s.events", f->dir, n->id);
        snprintf(n->log, sizeof n->log, "%s/%s.log", f->dir, n->id);
        opt_leader[0] = '\0';
        if (f->has_command)
            /* exec, as the documentation shows: the script is the command
               itself (without it, the leash reaches it as sh's child) */
            snprintf(opt_leader, sizeof opt_leader,
                "[leader]\ncommand = exec %s/hooks/command %s\n", f->dir, n->id);
        cluster_ini(f, i, opt_node, opt_hooks, opt_leader, text, sizeof text);
        if (cluster_write(n->ini, text, 0644) == -1)
            return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------------
 * Processes
 * ------------------------------------------------------------------------ */

/* Forget what the poller saw of node i (a new process, or none). */
static void
cluster_forget(struct fault *f, struct fnode *n)
{
    pthread_mutex_lock(&f->mu);
    n->gen++;
    n->leader200 = 0;
    n->leader_epoch = 0;
    n->leader_slot = 0;
    n->view_nslots = 0;
    n->status_ok = 0;
    n->registered = n->connected = 0;
    n->session[0] = n->view_leader[0] = n->view_status[0] = '\0';
    n->view_epoch = 0;
    pthread_mutex_unlock(&f->mu);
}

/* Start node i's daemon (in its namespace). 0 or -1. */
int
cluster_start_node(struct fault *f, int i)
{
    struct fnode *n = &f->nodes[i];
    pid_t parent = getpid(), pid;
    int fd;

    if (n->pid > 0)
        return 0;
    cluster_forget(f, n);
    pid = fork();
    if (pid == -1) {
        fault_log(f, "cannot fork for %s: %s", n->id, strerror(errno));
        return -1;
    }
    if (pid == 0) {
        /* only system calls from here to exec: other threads exist */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(127);
        setpgid(0, 0);
        if (netns_enter(n) == -1)
            _exit(126);
        if ((fd = open(n->log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644)) != -1) {
            dup2(fd, 1);
            dup2(fd, 2);
        }
        if ((fd = open("/dev/null", O_RDONLY | O_CLOEXEC)) != -1)
            dup2(fd, 0);
        execl(f->zkelectd, "zkelectd", "-f", "-c", n->ini, (char *)NULL);
        _exit(127);
    }
    n->pid = pid;
    n->expect_exit = 0;
    n->frozen = 0;
    fault_journal(f, "node-start", i, -1, -1, "pid %ld", (long)pid);
    return 0;
}

static void
cluster_exited(struct fault *f, int i, int st)
{
    struct fnode *n = &f->nodes[i];
    char how[64];
    int crash;

    if (WIFSIGNALED(st))
        snprintf(how, sizeof how, "signal %d", WTERMSIG(st));
    else
        snprintf(how, sizeof how, "exit %d", WEXITSTATUS(st));
    fault_journal(f, "node-exit", i, -1, -1, "pid %ld %s%s", (long)n->pid, how,
        n->expect_exit ? "" : " (unexpected)");
    if (!n->expect_exit) {
        crash = WIFSIGNALED(st) || WEXITSTATUS(st) != 1;
        f->unexpected_exits++;
        if (crash)
            f->crashes++;
        fault_log(f, "%s (pid %ld) exited by itself: %s; see %s", n->id, (long)n->pid, how,
            n->log);
    }
    n->pid = -1;
    n->frozen = 0;
    cluster_forget(f, n);
}

/* kill -9 node i and reap it. */
void
cluster_kill_node(struct fault *f, int i, int fault)
{
    struct fnode *n = &f->nodes[i];
    int st;

    if (n->pid <= 0)
        return;
    n->expect_exit = 1;
    fault_journal(f, "node-kill", i, -1, fault, "pid %ld%s", (long)n->pid,
        n->frozen ? " (stopped)" : "");
    kill(n->pid, SIGKILL);
    while (waitpid(n->pid, &st, 0) == -1 && errno == EINTR)
        ;
    cluster_exited(f, i, st);
}

/* The state letter of /proc/PID/stat ('T' stopped), '?' when unknown. */
static char
cluster_proc_state(pid_t pid)
{
    char path[64], buf[512], *p;
    ssize_t len;
    int fd;

    snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
    if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
        return '?';
    len = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (len <= 0)
        return '?';
    buf[len] = '\0';
    if ((p = strrchr(buf, ')')) == NULL || p[1] == '\0' || p[2] == '\0')
        return '?';
    return p[2];
}

/*
 * SIGSTOP node i and wait until every thread is stopped; the journal's time
 * is taken after that (the process may act until then). 0 or -1.
 */
int
cluster_stop_node(struct fault *f, int i, int fault)
{
    struct fnode *n = &f->nodes[i];
    uint64_t end = fault_now_ms() + 3000;

    if (n->pid <= 0 || n->frozen)
        return -1;
    kill(n->pid, SIGSTOP);
    while (cluster_proc_state(n->pid) != 'T') {
        if (fault_now_ms() > end) {
            fault_log(f, "%s did not stop within 3 s", n->id);
            break;
        }
        usleep(2000); /* polling interval of a deadline wait */
    }
    n->frozen = 1;
    pthread_mutex_lock(&f->mu);
    n->stop_epoch = n->leader200 && n->leader_at_ms + 1000 >= fault_now_ms() ? n->leader_epoch : 0;
    n->stop_slot = n->leader_slot;
    pthread_mutex_unlock(&f->mu);
    fault_journal(f, "node-stop", i, -1, fault, "pid %ld%s", (long)n->pid,
        n->stop_epoch ? (f->leaders > 1 ? (n->stop_slot == 0 ? " (READY leader, slot 0)"
        : n->stop_slot == 1 ? " (READY leader, slot 1)" : " (READY leader, slot 2+)")
        : " (READY leader)") : "");
    return 0;
}

/*
 * SIGCONT node i; the journal's time is taken before (it may act from then
 * on). When it was stopped as the READY leader, the harness then writes the
 * register with that epoch, as the resumed process could in the moment
 * before it notices the pause (the stale-write probe): when another node
 * took over meanwhile, fencing must refuse it.
 */
void
cluster_cont_node(struct fault *f, int i, int fault)
{
    struct fnode *n = &f->nodes[i];
    char err[512];
    int rc;

    if (n->pid <= 0 || !n->frozen)
        return;
    fault_journal(f, "node-cont", i, -1, fault, "pid %ld", (long)n->pid);
    kill(n->pid, SIGCONT);
    n->frozen = 0;
    if (n->stop_epoch == 0)
        return;
    rc = reg_write(f->dir, n->id, n->stop_slot, n->stop_epoch, "stale-probe", err, sizeof err);
    fault_journal(f, "stale-probe", i, -1, fault, "slot %d epoch %" PRIu64 ": %s", n->stop_slot,
        n->stop_epoch,
        rc == REG_ACCEPTED ? "accepted (nobody took over)" : rc == REG_REFUSED
        ? "refused (fenced)" : err);
    n->stop_epoch = 0;
}

/* Reap daemons and commands that ended. */
void
cluster_reap(struct fault *f)
{
    size_t k;
    int i, st;
    pid_t r;

    for (i = 0; i < f->nnodes; i++) {
        if (f->nodes[i].pid <= 0)
            continue;
        r = waitpid(f->nodes[i].pid, &st, WNOHANG);
        if (r == f->nodes[i].pid)
            cluster_exited(f, i, st);
    }
    for (k = 0; k < sizeof f->cli_pids / sizeof f->cli_pids[0]; k++) {
        if (f->cli_pids[k] <= 0)
            continue;
        r = waitpid(f->cli_pids[k], &st, WNOHANG);
        if (r != f->cli_pids[k])
            continue;
        fault_journal(f, "cli-exit", -1, -1, -1, "pid %ld %s %d", (long)r,
            WIFSIGNALED(st) ? "signal" : "exit",
            WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
        if (WIFSIGNALED(st)) {
            f->crashes++;
            fault_log(f, "zkelect (pid %ld) died by signal %d", (long)r, WTERMSIG(st));
        }
        f->cli_pids[k] = 0;
    }
}

/*
 * SIGTERM every daemon (they resign: stepdown, then the leader znode goes)
 * and wait for them, up to timeout_ms; SIGKILL what is left. Also waits for
 * running zkelect commands.
 */
void
cluster_terminate_all(struct fault *f, int timeout_ms)
{
    uint64_t end;
    size_t k;
    int i, left;

    for (i = 0; i < f->nnodes; i++) {
        struct fnode *n = &f->nodes[i];

        if (n->pid <= 0)
            continue;
        if (n->frozen)
            cluster_cont_node(f, i, -1);
        n->expect_exit = 1;
        fault_journal(f, "node-term", i, -1, -1, "pid %ld", (long)n->pid);
        kill(n->pid, SIGTERM);
    }
    end = fault_now_ms() + (uint64_t)timeout_ms;
    for (;;) {
        cluster_reap(f);
        left = 0;
        for (i = 0; i < f->nnodes; i++)
            left += f->nodes[i].pid > 0;
        for (k = 0; k < sizeof f->cli_pids / sizeof f->cli_pids[0]; k++)
            left += f->cli_pids[k] > 0;
        if (left == 0 || fault_now_ms() > end)
            break;
        usleep(20000); /* polling interval of a deadline wait */
    }
    for (i = 0; i < f->nnodes; i++)
        if (f->nodes[i].pid > 0) {
            fault_log(f, "%s did not exit within %d ms of SIGTERM: killed", f->nodes[i].id,
                timeout_ms);
            f->nodes[i].expect_exit = 0; /* counted: a daemon that does not resign */
            cluster_kill_node(f, i, -1);
        }
    for (k = 0; k < sizeof f->cli_pids / sizeof f->cli_pids[0]; k++)
        if (f->cli_pids[k] > 0) {
            kill(f->cli_pids[k], SIGKILL);
            waitpid(f->cli_pids[k], NULL, 0);
            f->cli_pids[k] = 0;
        }
}

/*
 * Run zkelect -z HOSTS -p GROUP -t 5000 ARGS... (args NULL-terminated).
 * wait = 0: in the background, output appended to cli.log; reaped by
 * cluster_reap(); returns 0 or -1. wait = 1: standard output into out
 * (NUL-terminated), standard error to cli.log, at most timeout_ms; returns
 * the exit status, or -1 (could not run, killed on timeout).
 */
int
cluster_cli(struct fault *f, int wait, int timeout_ms, char *out, size_t outlen,
    const char *const *args)
{
    const char *argv[32];
    char logpath[PATH_MAX], line[1024];
    size_t off = 0, k;
    uint64_t end;
    int argc = 0, p[2] = { -1, -1 }, logfd, st, r;
    ssize_t n;
    pid_t pid;

    argv[argc++] = "zkelect";
    argv[argc++] = "-z";
    argv[argc++] = f->hosts;
    argv[argc++] = "-p";
    argv[argc++] = FAULT_GROUP;
    argv[argc++] = "-t";
    argv[argc++] = "5000";
    for (k = 0; args[k] != NULL && argc < 31; k++)
        argv[argc++] = args[k];
    argv[argc] = NULL;

    line[0] = '\0';
    for (k = 7; argv[k] != NULL; k++) {
        size_t l = strlen(line);
        snprintf(line + l, sizeof line - l, "%s%s", k > 7 ? " " : "", argv[k]);
    }
    snprintf(logpath, sizeof logpath, "%s/cli.log", f->dir);
    if ((logfd = open(logpath, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644)) == -1)
        return -1;
    dprintf(logfd, "== +%.3f s: zkelect %s\n", (double)(fault_now_ms() - f->t0_ms) / 1000.0,
        line);
    if (wait && pipe2(p, O_CLOEXEC) == -1) {
        close(logfd);
        return -1;
    }
    if ((pid = fork()) == -1) {
        close(logfd);
        if (wait) {
            close(p[0]);
            close(p[1]);
        }
        return -1;
    }
    if (pid == 0) {
        int nfd;

        prctl(PR_SET_PDEATHSIG, SIGKILL);
        setpgid(0, 0);
        dup2(wait ? p[1] : logfd, 1);
        dup2(logfd, 2);
        if ((nfd = open("/dev/null", O_RDONLY | O_CLOEXEC)) != -1)
            dup2(nfd, 0);
        execv(f->zkelect, (char *const *)argv);
        _exit(127);
    }
    close(logfd);
    if (!wait) {
        for (k = 0; k < sizeof f->cli_pids / sizeof f->cli_pids[0]; k++)
            if (f->cli_pids[k] <= 0) {
                f->cli_pids[k] = pid;
                break;
            }
        if (k == sizeof f->cli_pids / sizeof f->cli_pids[0])
            waitpid(pid, NULL, 0); /* table full: cannot happen with our rate */
        fault_journal(f, "cli", -1, -1, -1, "pid %ld zkelect %s", (long)pid, line);
        return 0;
    }
    close(p[1]);
    end = fault_now_ms() + (uint64_t)timeout_ms;
    for (;;) {
        struct pollfd pfd = { .fd = p[0], .events = POLLIN };
        uint64_t now = fault_now_ms();

        if (now >= end)
            break;
        r = poll(&pfd, 1, (int)(end - now));
        if (r == -1 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        n = read(p[0], out + off, outlen - 1 - off);
        if (n == -1 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        off += (size_t)n;
        if (off == outlen - 1)
            break;
    }
    out[off] = '\0';
    close(p[0]);
    if (waitpid(pid, &st, WNOHANG) == 0) {
        uint64_t e2 = fault_now_ms() + 2000;

        while ((r = (int)waitpid(pid, &st, WNOHANG)) == 0 && fault_now_ms() < e2)
            usleep(10000); /* polling interval of a deadline wait */
        if (r == 0) {
            kill(pid, SIGKILL);
            waitpid(pid, &st, 0);
            fault_log(f, "zkelect %s: no answer within %d ms: killed", line, timeout_ms);
            return -1;
        }
    }
    if (WIFSIGNALED(st)) {
        f->crashes++;
        fault_log(f, "zkelect %s died by signal %d", line, WTERMSIG(st));
        return -1;
    }
    return WEXITSTATUS(st);
}

/* Set (on) or clear node i's failing-takeover flag file. 0 or -1. */
int
cluster_flag(struct fault *f, int i, enum fault_flag which, int on, int fault)
{
    static const struct {
        const char *file, *on, *off;    /* flag file prefix, journal kinds */
    } fl[] = {
        [FLAG_FAIL] = { "fail-takeover", "hook-fail-on", "hook-fail-off" },
        [FLAG_HANG] = { "hang-takeover", "hook-hang-on", "hook-hang-off" },
        [FLAG_SLOW] = { "slow-stepdown", "stepdown-slow-on", "stepdown-slow-off" },
        [FLAG_EXIT] = { "command-exit", "command-exit-on", "command-exit-off" },
    };
    char path[PATH_MAX];
    int fd;

    if (which <= FLAG_NONE || which > FLAG_EXIT)
        return -1;
    snprintf(path, sizeof path, "%s/%s.%s", f->dir, fl[which].file, f->nodes[i].id);
    if (on) {
        if ((fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644)) == -1)
            return -1;
        close(fd);
    } else if (unlink(path) == -1 && errno != ENOENT) {
        return -1;
    }
    f->nodes[i].flagged = on ? which : FLAG_NONE;
    fault_journal(f, on ? fl[which].on : fl[which].off, i, -1, fault, "%s", path);
    return 0;
}

/*
 * Stamp the end of node i's service into service.log now, as its stepdown
 * hook would: for a kill -9 that stands for the death of the whole machine
 * (kill-node), whose service dies with it. One O_APPEND write, like the
 * hooks' own lines.
 */
void
cluster_service_end(struct fault *f, int i)
{
    char path[PATH_MAX], line[96];
    struct timespec ts;
    int fd, len;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    /* no slot ("-"): the checker ends whatever service the node has */
    len = snprintf(line, sizeof line, "%s end %lld.%03ld - -\n", f->nodes[i].id,
        (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000, ts.tv_nsec / 1000 % 1000);
    snprintf(path, sizeof path, "%s/service.log", f->dir);
    if ((fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644)) == -1
        || write(fd, line, (size_t)len) != len)
        fault_log(f, "cannot append to %s: %s", path, strerror(errno));
    if (fd != -1)
        close(fd);
}

/* ------------------------------------------------------------------------
 * HTTP and the pollers
 * ------------------------------------------------------------------------ */

/*
 * GET path from 127.0.0.1:port (in the calling thread's namespace) within
 * timeout_ms. Returns the HTTP status, the body in body (NUL-terminated,
 * truncated), or -1 (nothing answered in time).
 */
int
cluster_http_get(int port, const char *path, int timeout_ms, char *body, size_t len)
{
    struct sockaddr_in sin;
    char buf[16384], req[256], *p;
    uint64_t end = fault_now_ms() + (uint64_t)timeout_ms;
    size_t off = 0;
    ssize_t n;
    int fd, r, code = -1, err;
    socklen_t elen = sizeof err;

    body[0] = '\0';
    if ((fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0)) == -1)
        return -1;
    memset(&sin, 0, sizeof sin);
    sin.sin_family = AF_INET;
    sin.sin_port = htons((uint16_t)port);
    sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&sin, sizeof sin) == -1) {
        struct pollfd pfd = { .fd = fd, .events = POLLOUT };

        if (errno != EINPROGRESS)
            goto out;
        r = poll(&pfd, 1, timeout_ms);
        if (r <= 0 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &elen) == -1 || err != 0)
            goto out;
    }
    r = snprintf(req, sizeof req, "GET %s HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n", path);
    if (send(fd, req, (size_t)r, MSG_NOSIGNAL) != r)
        goto out;
    for (;;) {
        struct pollfd pfd = { .fd = fd, .events = POLLIN };
        uint64_t now = fault_now_ms();

        if (now >= end || off == sizeof buf - 1)
            break;
        r = poll(&pfd, 1, (int)(end - now));
        if (r == -1 && errno == EINTR)
            continue;
        if (r <= 0)
            goto out;
        n = recv(fd, buf + off, sizeof buf - 1 - off, 0);
        if (n == -1 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (n <= 0)
            break;
        off += (size_t)n;
    }
    buf[off] = '\0';
    if (sscanf(buf, "HTTP/%*d.%*d %d", &code) != 1) {
        code = -1;
        goto out;
    }
    if ((p = strstr(buf, "\r\n\r\n")) != NULL)
        snprintf(body, len, "%s", p + 4);
out:
    close(fd);
    return code;
}

struct poller_arg {
    struct fault *f;
    int i;
};

static void
poller_status(struct fault *f, struct fnode *n, unsigned gen)
{
    char body[8192];
    cJSON *o, *s, *l, *x;
    int code;

    code = cluster_http_get(n->http_port, "/status", POLL_TIMEOUT_MS, body, sizeof body);
    o = code == 200 ? cJSON_Parse(body) : NULL;
    pthread_mutex_lock(&f->mu);
    if (gen == n->gen) {
        n->status_ok = o != NULL;
        if (o != NULL) {
            n->status_at_ms = fault_now_ms();
            n->registered = cJSON_IsTrue(cJSON_GetObjectItem(o, "registered"));
            s = cJSON_GetObjectItem(o, "session");
            n->connected = cJSON_IsTrue(cJSON_GetObjectItem(s, "connected"));
            x = cJSON_GetObjectItem(s, "id");
            snprintf(n->session, sizeof n->session, "%s",
                cJSON_IsString(x) ? x->valuestring : "");
            l = cJSON_GetObjectItem(o, "leader");
            x = cJSON_GetObjectItem(l, "id");
            snprintf(n->view_leader, sizeof n->view_leader, "%s",
                cJSON_IsString(x) ? x->valuestring : "");
            x = cJSON_GetObjectItem(l, "status");
            snprintf(n->view_status, sizeof n->view_status, "%s",
                cJSON_IsString(x) ? x->valuestring : "NONE");
            x = cJSON_GetObjectItem(l, "epoch");
            n->view_epoch = cJSON_IsNumber(x) ? (uint64_t)x->valuedouble : 0;
            /* each slot as this node sees it (zkelectd(8): /status "slots") */
            n->view_nslots = 0;
            cJSON_ArrayForEach(l, cJSON_GetObjectItem(o, "slots")) {
                int k = n->view_nslots;

                if (k == FAULT_SLOTS_MAX)
                    break;
                x = cJSON_GetObjectItem(l, "leader");
                snprintf(n->view_slot_leader[k], sizeof n->view_slot_leader[k], "%s",
                    cJSON_IsString(x) ? x->valuestring : "");
                x = cJSON_GetObjectItem(l, "status");
                snprintf(n->view_slot_status[k], sizeof n->view_slot_status[k], "%s",
                    cJSON_IsString(x) ? x->valuestring : "NONE");
                x = cJSON_GetObjectItem(l, "epoch");
                n->view_slot_epoch[k] = cJSON_IsNumber(x) ? (uint64_t)x->valuedouble : 0;
                n->view_nslots++;
            }
        }
    }
    pthread_mutex_unlock(&f->mu);
    cJSON_Delete(o);
}

/*
 * A node's poller: in the node's namespace, GET /leader every
 * POLL_INTERVAL_MS; while it answers 200 (this node is the READY leader),
 * write the fenced register with its epoch (the periodic writer); every
 * STATUS_EVERY rounds also read /status.
 */
static void *
poller_main(void *arg)
{
    struct poller_arg *pa = arg;
    struct fault *f = pa->f;
    struct fnode *n = &f->nodes[pa->i];
    char body[2048], err[512];
    uint64_t epoch;
    unsigned gen, round = 0;
    cJSON *o, *x;
    int code, leader, slot;

    free(pa);
    if (netns_enter(n) == -1) {
        fprintf(stderr, "test_fault: poller of %s cannot enter namespace %s: %s\n", n->id,
            n->ns, strerror(errno));
        return NULL;
    }
    while (!f->stop_pollers) {
        pthread_mutex_lock(&f->mu);
        gen = n->gen;
        pthread_mutex_unlock(&f->mu);
        code = cluster_http_get(n->http_port, "/leader", POLL_TIMEOUT_MS, body, sizeof body);
        leader = 0;
        epoch = 0;
        slot = 0;
        if (code == 200 && (o = cJSON_Parse(body)) != NULL) {
            leader = cJSON_IsTrue(cJSON_GetObjectItem(o, "leader"));
            /* "epoch" is slot 0's; with slots, "slot_epoch" is this node's
               slot's, its fencing token (absent: a zkelectd without slots) */
            x = cJSON_GetObjectItem(o, "slot_epoch");
            if (!cJSON_IsNumber(x))
                x = cJSON_GetObjectItem(o, "epoch");
            epoch = cJSON_IsNumber(x) ? (uint64_t)x->valuedouble : 0;
            x = cJSON_GetObjectItem(o, "slot");
            slot = cJSON_IsNumber(x) && x->valueint >= 0 && x->valueint < REG_SLOTS_MAX
                ? x->valueint : 0;
            cJSON_Delete(o);
        }
        pthread_mutex_lock(&f->mu);
        if (gen == n->gen && code > 0) {
            n->leader200 = leader && epoch > 0;
            n->leader_epoch = epoch;
            n->leader_slot = slot;
            if (n->leader200)
                n->leader_at_ms = fault_now_ms();
        }
        pthread_mutex_unlock(&f->mu);
        if (leader && epoch > 0
            && reg_write(f->dir, n->id, slot, epoch, "poll", err, sizeof err) == -1)
            fprintf(stderr, "test_fault: register: %s\n", err);
        if (++round % STATUS_EVERY == 0)
            poller_status(f, n, gen);
        usleep(POLL_INTERVAL_MS * 1000); /* the poller's period */
    }
    return NULL;
}

int
cluster_start_pollers(struct fault *f)
{
    struct poller_arg *pa;
    int i, rc;

    for (i = 0; i < f->nnodes; i++) {
        if ((pa = malloc(sizeof *pa)) == NULL)
            return -1;
        pa->f = f;
        pa->i = i;
        if ((rc = pthread_create(&f->nodes[i].poller, NULL, poller_main, pa)) != 0) {
            free(pa);
            fprintf(stderr, "test_fault: pthread_create: %s\n", strerror(rc));
            return -1;
        }
        f->nodes[i].poller_started = 1;
    }
    return 0;
}

void
cluster_stop_pollers(struct fault *f)
{
    int i;

    f->stop_pollers = 1;
    for (i = 0; i < f->nnodes; i++)
        if (f->nodes[i].poller_started) {
            pthread_join(f->nodes[i].poller, NULL);
            f->nodes[i].poller_started = 0;
        }
}

/*
 * The node the pollers last saw as the READY leader (answered 200 within
 * the last second, running, not stopped); the highest epoch if several.
 * -1 when none.
 */
int
cluster_leader(struct fault *f)
{
    uint64_t now = fault_now_ms(), best_epoch = 0;
    int i, best = -1;

    pthread_mutex_lock(&f->mu);
    for (i = 0; i < f->nnodes; i++) {
        struct fnode *n = &f->nodes[i];

        if (n->pid > 0 && !n->frozen && n->leader200 && n->leader_at_ms + 1000 >= now
            && (best < 0 || n->leader_epoch > best_epoch)) {
            best = i;
            best_epoch = n->leader_epoch;
        }
    }
    pthread_mutex_unlock(&f->mu);
    return best;
}
