/*
 * proc.c - run an external program with a timeout and a cancel descriptor;
 * keep the tail of its stderr.
 *
 * The wait polls a pidfd (the child's exit), the stderr pipe and the cancel
 * descriptors, so nothing here depends on SIGCHLD, which stays blocked in
 * every thread of the daemon.
 */
#include <sys/pidfd.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "proc.h"
#include "child.h"
#include "zkecommon.h"

#define PROC_DRAIN_MAX  65536           /* stderr read after the exit, at most */

uint64_t
proc_now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* Keep the last PROC_TAIL_MAX bytes of everything appended. */
static void
proc_tail_add(struct proc_result *r, const char *buf, size_t n)
{
    size_t drop;

    if (n >= PROC_TAIL_MAX) {
        memcpy(r->tail, buf + n - PROC_TAIL_MAX, PROC_TAIL_MAX);
        r->taillen = PROC_TAIL_MAX;
    } else {
        if (r->taillen + n > PROC_TAIL_MAX) {
            drop = r->taillen + n - PROC_TAIL_MAX;
            memmove(r->tail, r->tail + drop, r->taillen - drop);
            r->taillen -= drop;
        }
        memcpy(r->tail + r->taillen, buf, n);
        r->taillen += n;
    }
    r->tail[r->taillen] = '\0';
}

/* Read what the pipe has now. 0 at EOF (or error), 1 if it may have more. */
static int
proc_read_pipe(struct proc_result *r, int fd, size_t *budget)
{
    char buf[4096];
    ssize_t n;

    for (;;) {
        n = read(fd, buf, sizeof(buf));
        if (n > 0) {
            proc_tail_add(r, buf, (size_t)n);
            if (budget != NULL) {
                if (*budget <= (size_t)n)
                    return 0;
                *budget -= (size_t)n;
            }
            continue;
        }
        if (n == -1 && errno == EINTR)
            continue;
        if (n == -1 && errno == EAGAIN)
            return 1;
        return 0;
    }
}

/* Is any of the cancel descriptors readable right now? */
static int
proc_canceled(const int *fds, int n)
{
    struct pollfd p[4];
    int i, k = 0;

    for (i = 0; i < n && k < 4; i++) {
        if (fds[i] < 0)
            continue;
        p[k].fd = fds[i];
        p[k].events = POLLIN;
        p[k].revents = 0;
        k++;
    }
    return k > 0 && poll(p, (nfds_t)k, 0) > 0;
}

static int
proc_spawn(const char *const argv[], const char *const env[], int errfd, pid_t *pid)
{
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    sigset_t none, all;
    char **envp;
    int rc;

    if ((envp = child_envp(env)) == NULL)
        return ENOMEM;
    if ((rc = posix_spawn_file_actions_init(&fa)) != 0) {
        free(envp);
        return rc;
    }
    if ((rc = posix_spawnattr_init(&at)) != 0) {
        posix_spawn_file_actions_destroy(&fa);
        free(envp);
        return rc;
    }
    sigemptyset(&none);
    sigfillset(&all);
    if ((rc = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0)) != 0 ||
        (rc = posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0)) != 0 ||
        (rc = posix_spawn_file_actions_adddup2(&fa, errfd, 2)) != 0 ||
        (rc = posix_spawn_file_actions_addclosefrom_np(&fa, 3)) != 0 ||
        (rc = posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP |
            POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF)) != 0 ||
        (rc = posix_spawnattr_setpgroup(&at, 0)) != 0 ||
        (rc = posix_spawnattr_setsigmask(&at, &none)) != 0 ||
        (rc = posix_spawnattr_setsigdefault(&at, &all)) != 0)
        goto out;
    rc = posix_spawn(pid, argv[0], &fa, &at, (char *const *)argv, envp);
out:
    posix_spawnattr_destroy(&at);
    posix_spawn_file_actions_destroy(&fa);
    free(envp);
    return rc;
}

int
proc_run(const char *const argv[], const char *const env[], int timeout_ms,
    const int *cancel_fds, int ncancel, struct proc_result *r)
{
    return proc_run_grace(argv, env, timeout_ms, PROC_GRACE_MS, cancel_fds, ncancel, r);
}

int
proc_run_grace(const char *const argv[], const char *const env[], int timeout_ms,
    int grace_ms, const int *cancel_fds, int ncancel, struct proc_result *r)
{
    struct pollfd p[6];
    uint64_t start, now, deadline, kill_at = 0;
    size_t budget = PROC_DRAIN_MAX;
    int pfd[2], pidfd, n, i, k, rc, wait_ms, ipipe, ipid;
    int terminating = 0, killed = 0, exited = 0;
    pid_t pid, w;

    memset(r, 0, sizeof(*r));
    if (proc_canceled(cancel_fds, ncancel)) {
        r->canceled = true;
        return -1;
    }
    if (pipe2(pfd, O_CLOEXEC) == -1) {
        r->spawn_err = errno;
        return -1;
    }
    rc = proc_spawn(argv, env, pfd[1], &pid);
    close(pfd[1]);
    if (rc != 0) {
        close(pfd[0]);
        r->spawn_err = rc;
        return -1;
    }
    r->started = true;
    (void)fcntl(pfd[0], F_SETFL, fcntl(pfd[0], F_GETFL) | O_NONBLOCK);
    start = proc_now_ms();
    deadline = start + (uint64_t)(timeout_ms > 0 ? timeout_ms : 0);
    pidfd = pidfd_open(pid, 0);         /* -1 on kernels before 5.3: poll waitpid */

    while (!exited) {
        now = proc_now_ms();
        if (!terminating && now >= deadline) {
            r->timed_out = true;
            terminating = 1;
            kill_at = now + (uint64_t)grace_ms;
            child_signal_group(pid, SIGTERM);
        }
        if (terminating && !killed && now >= kill_at) {
            killed = 1;
            child_signal_group(pid, SIGKILL);
        }
        if (!terminating)
            wait_ms = (int)(deadline - now);
        else if (!killed)
            wait_ms = (int)(kill_at - now);
        else
            wait_ms = 100;
        if (pidfd < 0 && wait_ms > 20)
            wait_ms = 20;
        k = 0;
        ipid = ipipe = -1;
        if (pidfd >= 0) {
            p[k].fd = pidfd;
            p[k].events = POLLIN;
            ipid = k++;
        }
        if (pfd[0] >= 0) {
            p[k].fd = pfd[0];
            p[k].events = POLLIN;
            ipipe = k++;
        }
        for (i = 0; !terminating && i < ncancel && k < 6; i++) {
            if (cancel_fds[i] < 0)
                continue;
            p[k].fd = cancel_fds[i];
            p[k].events = POLLIN;
            k++;
        }
        for (i = 0; i < k; i++)
            p[i].revents = 0;
        n = poll(p, (nfds_t)k, wait_ms);
        if (n == -1 && errno != EINTR) {
            log_warn("poll on a child process");
            wait_ms = 10;               /* should not happen: do not spin */
        }
        if (ipipe >= 0 && p[ipipe].revents != 0 && proc_read_pipe(r, pfd[0], NULL) == 0) {
            close(pfd[0]);
            pfd[0] = -1;
        }
        for (i = (ipipe >= 0 ? ipipe : ipid) + 1; n > 0 && i < k; i++) {
            if (p[i].revents != 0 && !terminating) {
                r->canceled = true;
                terminating = 1;
                kill_at = proc_now_ms() + (uint64_t)grace_ms;
                child_signal_group(pid, SIGTERM);
            }
        }
        if ((ipid >= 0 && p[ipid].revents != 0) || pidfd < 0) {
            if (pidfd >= 0 && terminating)
                child_signal_group(pid, SIGKILL);    /* the rest of the hook tree, before reaping */
            do
                w = waitpid(pid, &r->status, pidfd >= 0 ? 0 : WNOHANG);
            while (w == -1 && errno == EINTR);
            if (w == pid || (w == -1 && errno == ECHILD))
                exited = 1;
        }
    }
    r->elapsed_ms = proc_now_ms() - start;
    if (pfd[0] >= 0) {
        (void)proc_read_pipe(r, pfd[0], &budget);
        close(pfd[0]);
    }
    if (pidfd >= 0)
        close(pidfd);
    if (r->timed_out || r->canceled)
        return -1;
    return WIFEXITED(r->status) && WEXITSTATUS(r->status) == 0 ? 0 : -1;
}

const char *
proc_describe(const struct proc_result *r, char *buf, size_t len)
{
    const char *sig;

    if (r->spawn_err != 0)
        snprintf(buf, len, "cannot start: %s", strerror(r->spawn_err));
    else if (r->timed_out)
        snprintf(buf, len, "timed out after %llu ms (process group killed)",
            (unsigned long long)r->elapsed_ms);
    else if (!r->started)
        snprintf(buf, len, "canceled before it started");
    else if (r->canceled)
        snprintf(buf, len, "canceled after %llu ms (process group killed)",
            (unsigned long long)r->elapsed_ms);
    else if (WIFEXITED(r->status))
        snprintf(buf, len, "exit status %d after %llu ms", WEXITSTATUS(r->status),
            (unsigned long long)r->elapsed_ms);
    else if (WIFSIGNALED(r->status)) {
        sig = sigabbrev_np(WTERMSIG(r->status));
        snprintf(buf, len, "killed by signal %d (SIG%s) after %llu ms",
            WTERMSIG(r->status), sig != NULL ? sig : "?",
            (unsigned long long)r->elapsed_ms);
    } else
        snprintf(buf, len, "ended with wait status 0x%x", (unsigned)r->status);
    return buf;
}

void
proc_log_tail(const struct proc_result *r, int level, const char *prefix)
{
    char esc[600];
    const char *start, *end, *nl;
    size_t len = r->taillen;
    int lines = 0;

    while (len > 0 && (r->tail[len - 1] == '\n' || r->tail[len - 1] == '\r'))
        len--;
    if (len == 0)
        return;
    /* back up over at most PROC_TAIL_LINES lines */
    start = r->tail + len;
    while (start > r->tail) {
        if (start[-1] == '\n' && ++lines == PROC_TAIL_LINES)
            break;
        start--;
    }
    end = r->tail + len;
    while (start < end) {
        nl = memchr(start, '\n', (size_t)(end - start));
        if (nl == NULL)
            nl = end;
        zke_escape(start, (size_t)(nl - start), esc, sizeof(esc));
        log_emit(level, "%s: stderr: %s", prefix, esc);
        start = nl + 1;
    }
}
