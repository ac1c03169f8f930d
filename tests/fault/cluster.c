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
 * Lay the nodes out (the first half, rounded up, in dc1, the rest in dc2,
 * priorities 10 * (k - j) inside a site so that every node has its own),
 * write the hooks and every node's configuration.
 */
int
cluster_write_files(struct fault *f)
{
    char path[PATH_MAX], text[4096];
    int i, ndc1 = (f->nnodes + 1) / 2, j;

    if (strchr(f->dir, '\'') != NULL || strchr(f->regtool, '\'') != NULL) {
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
        "# takeover hook of the fault harness: fails while the flag file\n"
        "# fail-takeover.NODE exists (an injected failure); else it takes the\n"
        "# fenced register at this epoch, and a refusal (a newer epoch wrote it\n"
        "# already: this takeover is stale) fails the takeover.\n"
        "if [ -e '%s/fail-takeover.'\"$ZKELECT_NODE_ID\" ]; then\n"
        "    echo \"injected takeover failure on $ZKELECT_NODE_ID epoch $ZKELECT_EPOCH\" >&2\n"
        "    exit 1\n"
        "fi\n"
        "exec '%s' '%s' \"$ZKELECT_NODE_ID\" \"$ZKELECT_EPOCH\" takeover\n",
        f->dir, f->regtool, f->dir);
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
        "    exec '%s' '%s' \"$ZKELECT_NODE_ID\" \"$ZKELECT_EPOCH\" notify ;;\n"
        "esac\n"
        "exit 0\n", f->regtool, f->dir);
    snprintf(path, sizeof path, "%s/hooks/notify", f->dir);
    if (cluster_write(path, text, 0755) == -1)
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
        snprintf(text, sizeof text,
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
            "state_dir = %s\n"
            "[election]\n"
            "policy = site\n"
            "watchdog_ms = %d\n"
            "exclude_ms = %d\n"
            "[hooks]\n"
            "takeover = %s/hooks/takeover\n"
            "notify = %s/hooks/notify\n"
            "timeout_ms = %d\n"
            "[http]\n"
            "listen = 127.0.0.1:%d\n"
            "[log]\n"
            "level = info\n"
            "events = %s\n",
            n->id, f->seed, f->hosts, f->session_ms, n->id, n->site, n->priority, f->dir,
            f->watchdog_ms, f->exclude_ms, f->dir, f->dir, f->hook_timeout_ms,
            n->http_port, n->events);
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
    pthread_mutex_unlock(&f->mu);
    fault_journal(f, "node-stop", i, -1, fault, "pid %ld%s", (long)n->pid,
        n->stop_epoch ? " (READY leader)" : "");
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
    rc = reg_write(f->dir, n->id, n->stop_epoch, "stale-probe", err, sizeof err);
    fault_journal(f, "stale-probe", i, -1, fault, "epoch %" PRIu64 ": %s", n->stop_epoch,
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
cluster_flag(struct fault *f, int i, int on, int fault)
{
    char path[PATH_MAX];
    int fd;

    snprintf(path, sizeof path, "%s/fail-takeover.%s", f->dir, f->nodes[i].id);
    if (on) {
        if ((fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644)) == -1)
            return -1;
        close(fd);
    } else if (unlink(path) == -1 && errno != ENOENT) {
        return -1;
    }
    f->nodes[i].flagged = on;
    fault_journal(f, on ? "hook-fail-on" : "hook-fail-off", i, -1, fault, "%s", path);
    return 0;
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
    int code, leader;

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
        if (code == 200 && (o = cJSON_Parse(body)) != NULL) {
            leader = cJSON_IsTrue(cJSON_GetObjectItem(o, "leader"));
            x = cJSON_GetObjectItem(o, "epoch");
            epoch = cJSON_IsNumber(x) ? (uint64_t)x->valuedouble : 0;
            cJSON_Delete(o);
        }
        pthread_mutex_lock(&f->mu);
        if (gen == n->gen && code > 0) {
            n->leader200 = leader && epoch > 0;
            n->leader_epoch = epoch;
            if (n->leader200)
                n->leader_at_ms = fault_now_ms();
        }
        pthread_mutex_unlock(&f->mu);
        if (leader && epoch > 0
            && reg_write(f->dir, n->id, epoch, "poll", err, sizeof err) == -1)
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
