/*
 * supervise.c - the supervised leader command: start (with the readiness
 * check), the monitor of an exit of its own, stop.
 *
 * Why a child of zkelectd and not something the takeover hook starts: a
 * service started by a hook outlives a kill -9 of zkelectd, and another node
 * takes over after the session timeout while it still runs. The command is
 * started with child_start_leashed() (child.c): under a leash that leads its
 * process group and sends SIGKILL to the whole group when zkelectd dies
 * (PR_SET_PDEATHSIG), signals reset, descriptors closed. So the command and
 * everything it started in its group die with zkelectd, before the session
 * can expire and anyone else can be elected, with or without "exec" in the
 * command line, and so does a service that daemonized (setsid): the leash
 * is its subreaper, passes SIGTERM on to it, and kills it first
 * (child_kill_leashed() when the stop's grace is over). The monitor sees the
 * command end when the leash does: at once when the command failed (its
 * leftovers killed), after them when it exited 0 (a daemon).
 * sup.pid is the leash: the group that is signalled and the process that is
 * waited for (it exits with the command's status); sup.prog, the command's
 * own pid, is what messages and /status show.
 *
 * Waiting: the command's pidfd is polled, never SIGCHLD (blocked in every
 * thread); without pidfds (Linux < 5.3) waitid(WNOWAIT) every 5 ms.
 *
 * Sections: state; waiting; the monitor; start; stop.
 */
#include <sys/pidfd.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "child.h"
#include "log.h"
#include "proc.h"
#include "supervise.h"
#include "zkelectd.h"

#define SUPER_POLL_MS       100         /* readiness checks, this far apart */
#define SUPER_NOPIDFD_MS    5           /* without a pidfd: waitid() this often */
#define SUPER_KILL_WAIT_MS  2000        /* after SIGKILL: log if it is not gone */

/* ------------------------------------------------------------------------ */
/* State                                                                    */
/* ------------------------------------------------------------------------ */

/* Written by the leadership worker only; the monitor reads pid/pidfd/epoch,
   which do not change while it runs (it is joined before they do). */
static struct {
    pid_t pid;                          /* the command's leash (its pgid), 0 none */
    pid_t prog;                         /* the command's own pid (sh -c), for messages */
    int pidfd;                          /* its pidfd, -1 none */
    uint64_t epoch;                     /* the epoch it serves */
    char slot_tag[16];                  /* "slot K, " in a group with N > 1
                                           leaders (the log lines say it), else "" */
    pthread_t monitor;                  /* watches for an exit of its own */
    bool monitoring;                    /* monitor runs */
    int stop_fd;                        /* eventfd: the monitor stops */
} sup = { .pidfd = -1, .stop_fd = -1 };

/* The state /status shows (d->mu). */
static void
super_state(struct zkd *d, pid_t pid, const char *state)
{
    pthread_mutex_lock(&d->mu);
    d->command_pid = pid;
    d->command_state = state;
    pthread_mutex_unlock(&d->mu);
}

bool
supervise_configured(struct zkd *d)
{
    bool set;

    pthread_mutex_lock(&d->mu);
    set = d->live->leader_command != NULL;
    pthread_mutex_unlock(&d->mu);
    return set;
}

bool
supervise_running(struct zkd *d)
{
    bool running;

    pthread_mutex_lock(&d->mu);
    running = d->command_pid != 0;
    pthread_mutex_unlock(&d->mu);
    return running;
}

/* "exit status 3", "killed by signal 9 (SIGKILL)" from a siginfo or status. */
static const char *
super_describe(bool signaled, int code, char *buf, size_t len)
{
    const char *abbr;

    if (!signaled)
        snprintf(buf, len, "exit status %d", code);
    else {
        abbr = sigabbrev_np(code);
        snprintf(buf, len, "killed by signal %d (SIG%s)", code, abbr != NULL ? abbr : "?");
    }
    return buf;
}

/* ------------------------------------------------------------------------ */
/* Waiting                                                                  */
/* ------------------------------------------------------------------------ */

/* Has the command exited (not reaped)? Fills buf with how, when it has. */
static bool
super_exited(char *buf, size_t len)
{
    siginfo_t si;

    memset(&si, 0, sizeof(si));
    if (waitid(P_PID, (id_t)sup.pid, &si, WEXITED | WNOHANG | WNOWAIT) == -1)
        return errno == ECHILD;         /* not ours any more (cannot happen): gone */
    if (si.si_pid == 0)
        return false;
    if (buf != NULL)
        super_describe(si.si_code != CLD_EXITED, si.si_status, buf, len);
    return true;
}

/* Wait until the command exits, fd (if >= 0) is readable, or deadline_ms
   (CLOCK_MONOTONIC) passes. Returns 1 exited, 2 fd readable, 0 deadline. */
static int
super_wait(uint64_t deadline_ms, int fd)
{
    struct pollfd p[2];
    struct timespec ts = { 0, SUPER_NOPIDFD_MS * 1000000L };
    uint64_t now;
    int n, k, wait_ms;

    for (;;) {
        if (sup.pidfd < 0 && super_exited(NULL, 0))
            return 1;
        now = proc_now_ms();
        wait_ms = now >= deadline_ms ? 0 : deadline_ms - now > 60000 ? 60000 :
            (int)(deadline_ms - now);
        if (sup.pidfd < 0 && wait_ms > SUPER_NOPIDFD_MS)
            wait_ms = SUPER_NOPIDFD_MS;
        k = 0;
        if (sup.pidfd >= 0) {
            p[k].fd = sup.pidfd;
            p[k].events = POLLIN;
            p[k++].revents = 0;
        }
        if (fd >= 0) {
            p[k].fd = fd;
            p[k].events = POLLIN;
            p[k++].revents = 0;
        }
        if (k == 0) {
            nanosleep(&ts, NULL);
            n = 0;
        } else if ((n = poll(p, (nfds_t)k, wait_ms)) == -1 && errno != EINTR) {
            log_warn("leader command: poll");
            nanosleep(&ts, NULL);       /* should not happen: do not spin */
        }
        if (n > 0 && sup.pidfd >= 0 && p[0].revents != 0)
            return 1;
        if (n > 0 && fd >= 0 && p[k - 1].revents != 0)
            return 2;
        if (sup.pidfd < 0 && super_exited(NULL, 0))
            return 1;
        if (proc_now_ms() >= deadline_ms)
            return 0;
    }
}

/* ------------------------------------------------------------------------ */
/* The monitor                                                              */
/* ------------------------------------------------------------------------ */

/*
 * The command exited by itself while this node leads: log it, count it, and
 * turn the node unhealthy, so that leadership moves through the normal
 * step-down (which reaps it). health.c makes the node healthy again at the
 * next passing health check, or after [election] exclude_ms without one.
 */
static void *
super_monitor(void *arg)
{
    struct zkd *d = arg;
    char how[64], why[160];

    if (super_wait(UINT64_MAX, sup.stop_fd) != 1)
        return NULL;                    /* stopped: the step-down stops it */
    if (!super_exited(how, sizeof(how)))
        snprintf(how, sizeof(how), "exited");
    pthread_mutex_lock(&d->mu);
    d->command_exits++;
    d->command_state = "exited";
    pthread_mutex_unlock(&d->mu);
    log_warnx("leader command (pid %ld, %sepoch %llu) ended by itself while "
        "leading: %s; the node turns unhealthy and leadership moves away", (long)sup.prog,
        sup.slot_tag, (unsigned long long)sup.epoch, how);
    snprintf(why, sizeof(why), "the leader command ended by itself: %s", how);
    health_fail(d, why);
    return NULL;
}

static void
super_monitor_start(struct zkd *d)
{
    int rc;
    uint64_t v;

    if (sup.stop_fd < 0 && (sup.stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) == -1) {
        log_warn("leader command: eventfd; an exit of its own will not be noticed");
        return;
    }
    while (read(sup.stop_fd, &v, sizeof(v)) > 0)
        ;
    if ((rc = pthread_create(&sup.monitor, NULL, super_monitor, d)) != 0) {
        log_warnx("leader command: cannot start its monitor: %s; an exit of its own "
            "will not be noticed", strerror(rc));
        return;
    }
    sup.monitoring = true;
}

static void
super_monitor_stop(void)
{
    uint64_t one = 1;

    if (!sup.monitoring)
        return;
    if (write(sup.stop_fd, &one, sizeof(one)) == -1)
        log_warn("leader command: cannot stop its monitor");
    pthread_join(sup.monitor, NULL);
    sup.monitoring = false;
}

/* ------------------------------------------------------------------------ */
/* Start                                                                    */
/* ------------------------------------------------------------------------ */

/*
 * Poll the readiness check until it passes, the command exits, cancel_fd is
 * readable or deadline_ms passes. 0, 1 (canceled) or -1 (why).
 */
static int
super_ready(struct zkd *d, const char *check, char *const env[], int cancel_fd,
    uint64_t deadline_ms, int timeout_ms, char *why, size_t whylen)
{
    const char *argv[] = { "/bin/sh", "-c", check, NULL };
    struct proc_result r;
    char how[64], desc[160] = "not run";
    uint64_t now;
    int rc, runs = 0;

    for (;;) {
        if (super_exited(how, sizeof(how))) {
            snprintf(why, whylen, "the leader command ended before it was ready: %s",
                how);
            return -1;
        }
        now = proc_now_ms();
        if (now >= deadline_ms)
            break;
        /* each run bounded by what is left of [hooks] timeout_ms */
        rc = proc_run(argv, (const char *const *)env, (int)(deadline_ms - now),
            &cancel_fd, 1, &r);
        runs++;
        if (r.canceled)
            return 1;
        if (rc == 0) {
            log_info("leader command (pid %ld): ready_command passed after %d run%s",
                (long)sup.prog, runs, runs == 1 ? "" : "s");
            return 0;
        }
        proc_describe(&r, desc, sizeof(desc));
        log_debug("leader command: ready_command: %s", desc);
        now = proc_now_ms();
        if (now >= deadline_ms)
            break;
        rc = super_wait(now + SUPER_POLL_MS < deadline_ms ? now + SUPER_POLL_MS :
            deadline_ms, cancel_fd);
        if (rc == 2)
            return 1;
    }
    (void)d;
    snprintf(why, whylen, "ready_command did not pass within [hooks] timeout_ms "
        "(%d ms, %d run%s; last: %s)", timeout_ms, runs, runs == 1 ? "" : "s", desc);
    return -1;
}

int
supervise_start(struct zkd *d, uint64_t epoch, int slot, char *const env[], int cancel_fd,
    char *why, size_t whylen)
{
    char *command = NULL, *check = NULL, **envp = NULL;
    char *argv[4];
    uint64_t deadline;
    int timeout_ms, rc, devnull = -1;
    pid_t pid, prog = 0;

    pthread_mutex_lock(&d->mu);
    if (d->live->leader_command != NULL)
        command = strdup(d->live->leader_command);
    if (d->live->leader_ready_command != NULL)
        check = strdup(d->live->leader_ready_command);
    timeout_ms = d->live->hook_timeout_ms;
    pthread_mutex_unlock(&d->mu);
    if (command == NULL) {
        free(check);
        return 0;                       /* none configured (or out of memory: below) */
    }
    if (sup.pid != 0) {
        /* a takeover again (after a fence or reconnect) while ours still runs */
        log_info("leader command (pid %ld) still runs: not started again", (long)sup.prog);
        rc = 0;
        goto out;
    }
    deadline = proc_now_ms() + (uint64_t)timeout_ms;
    rc = -1;
    if ((envp = child_envp((const char *const *)env)) == NULL) {
        snprintf(why, whylen, "leader command: out of memory");
        goto out;
    }
    if ((devnull = open("/dev/null", O_RDONLY | O_CLOEXEC)) == -1) {
        snprintf(why, whylen, "leader command: /dev/null: %s", strerror(errno));
        goto out;
    }
    argv[0] = (char *)"sh";
    argv[1] = (char *)"-c";
    argv[2] = command;
    argv[3] = NULL;
    /* forked from the leadership worker, which lives until zkelectd stops:
       PR_SET_PDEATHSIG fires when the forking thread exits */
    if ((rc = child_start_leashed("/bin/sh", argv, envp, devnull, -1, &pid, &prog)) != 0) {
        snprintf(why, whylen, "leader command: cannot start /bin/sh: %s", strerror(rc));
        rc = -1;
        goto out;
    }
    sup.pid = pid;
    sup.prog = prog;
    sup.epoch = epoch;
    if (slot > 0 || zkd_leaders(d) > 1)
        snprintf(sup.slot_tag, sizeof(sup.slot_tag), "slot %d, ", slot);
    else
        sup.slot_tag[0] = '\0';
    sup.pidfd = pidfd_open(pid, 0);     /* -1 before Linux 5.3: waitid() polling */
    pthread_mutex_lock(&d->mu);
    d->command_starts++;
    pthread_mutex_unlock(&d->mu);
    super_state(d, prog, check != NULL ? "starting" : "running");
    log_notice("leader command started (pid %ld, %sepoch %llu): %s", (long)prog,
        sup.slot_tag, (unsigned long long)epoch, command);
    rc = 0;
    if (check != NULL) {
        rc = super_ready(d, check, envp, cancel_fd, deadline, timeout_ms, why, whylen);
        if (rc == -1) {
            /* stopped before the failure is reported: the next leader's
               takeover may start as soon as the library hears of it */
            supervise_stop(d, "failed takeover", 0);
            goto out;
        }
        if (rc == 1)
            goto out;                   /* the step-down that canceled it stops it */
        super_state(d, prog, "running");
    }
    super_monitor_start(d);
out:
    if (devnull >= 0)
        close(devnull);
    free(envp);
    free(command);
    free(check);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* Stop                                                                     */
/* ------------------------------------------------------------------------ */

void
supervise_stop(struct zkd *d, const char *what, uint64_t kill_by_ms)
{
    char how[64] = "exited";
    uint64_t start = proc_now_ms();
    int stop_ms, st;
    bool signaled = false;
    pid_t w;

    if (sup.pid == 0)
        return;
    super_monitor_stop();
    pthread_mutex_lock(&d->mu);
    stop_ms = d->live->leader_stop_timeout_ms;
    pthread_mutex_unlock(&d->mu);
    if (kill_by_ms != 0 && start + (uint64_t)stop_ms > kill_by_ms)
        stop_ms = kill_by_ms > start ? (int)(kill_by_ms - start) : 0;
    super_state(d, sup.prog, "stopping");
    if (!super_exited(NULL, 0)) {
        log_info("%s: stopping the leader command (pid %ld): SIGTERM to its process "
            "group, SIGKILL after %d ms", what, (long)sup.prog, stop_ms);
        signaled = true;
        child_signal_group(sup.pid, SIGTERM);
        if (super_wait(start + (uint64_t)stop_ms, -1) != 1) {
            log_warnx("%s: the leader command (pid %ld) did not exit within %d ms "
                "([leader] stop_timeout_ms, or what was left of [hooks] "
                "stepdown_timeout_ms): SIGKILL", what, (long)sup.prog, stop_ms);
            /* the leash kills its strays, then the group with itself; the
               group's SIGKILL would not reach the strays */
            child_kill_leashed(sup.pid);
            if (super_wait(proc_now_ms() + SUPER_KILL_WAIT_MS, -1) != 1) {
                child_signal_group(sup.pid, SIGKILL);
                log_warnx("%s: the leader command (pid %ld) is still there %d ms "
                    "after SIGKILL; waiting for it", what, (long)sup.prog,
                    SUPER_KILL_WAIT_MS);
            }
        }
    }
    /* what it started in its group goes too; before reaping, so that the
       group id cannot have been reused */
    child_signal_group(sup.pid, SIGKILL);
    do
        w = waitpid(sup.pid, &st, 0);
    while (w == -1 && errno == EINTR);
    if (w == sup.pid)
        super_describe(WIFSIGNALED(st), WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st),
            how, sizeof(how));
    log_notice("%s: leader command (pid %ld) %s: %s after %llu ms", what, (long)sup.prog,
        signaled ? "stopped" : "had ended", how,
        (unsigned long long)(proc_now_ms() - start));
    if (sup.pidfd >= 0)
        close(sup.pidfd);
    sup.pidfd = -1;
    sup.pid = 0;
    sup.prog = 0;
    super_state(d, 0, "stopped");
}
