/*
 * cmd-run.c - `zkelect run [OPTIONS] -- COMMAND [ARGS...]`: join the group
 * as a candidate and run COMMAND only while this node leads.
 *
 * Unlike the other commands, `run` is a member of the group, so it uses the
 * library's public API (zkelect_open, zkelect_group_open, zkelect_nominate,
 * the takeover and step-down callbacks) rather than the CLI's own session.
 *
 * Threads. The library thread calls the callbacks below; they only record
 * what the library wants (under run->mu), bump an eventfd and return
 * (ZKELECT_EBUSY for a takeover or a step-down). The main thread does all
 * the work: it starts COMMAND (from the main thread, because
 * PR_SET_PDEATHSIG fires when the forking *thread* exits), stops it, reaps
 * it, runs the ready check, and finishes takeovers and step-downs with
 * zkelect_takeover_done() / zkelect_stepdown_done(). Its loop polls a
 * signalfd (SIGINT, SIGTERM, SIGHUP), the eventfd and pidfds of COMMAND
 * and of the ready check, with deadlines on CLOCK_MONOTONIC.
 *
 * The rules it keeps:
 *  - COMMAND starts only in a takeover (the leader znode is PROGRESS, or
 *    READY again after a verified reconnect) and the takeover completes once
 *    COMMAND was executed, or once --ready-check succeeded;
 *  - on a step-down, a suspension (connection lost), a lost leadership or
 *    SIGINT/SIGTERM/SIGHUP, COMMAND's process group gets SIGTERM, then SIGKILL
 *    after --stop-timeout, and the step-down is reported done (the leader
 *    znode deleted) only after COMMAND has been reaped;
 *  - COMMAND is started on a leash (src/daemon/child.c): a process that
 *    leads COMMAND's process group, kills all of it when the runner dies,
 *    even of SIGKILL (PR_SET_PDEATHSIG), and ends when COMMAND fails, or
 *    once COMMAND and what it started have ended when it exited 0 or was
 *    stopped (r->pid is the leash, r->prog COMMAND, for messages);
 *  - leadership verified again after a reconnect (+resumed, same epoch)
 *    starts COMMAND again: no takeover callback comes for it;
 *  - when COMMAND exits by itself the runner resigns and exits with its
 *    status (128 + the signal when a signal killed it).
 *
 * Sections: library callbacks; COMMAND and the ready check; joining and
 * leaving; the command (options, start, stop).
 */
#include "config.h"

#include <sys/eventfd.h>
#include <sys/pidfd.h>
#include <sys/signalfd.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zkelect.h>

#include "cli.h"
#include "../daemon/child.h"

#define RUN_STOP_MS        10000   /* default --stop-timeout */
#define RUN_READY_MS       10000   /* default --ready-timeout (the default watchdog) */
#define RUN_CHECK_EVERY_MS 250     /* between two runs of the ready check */
#define RUN_KILL_WAIT_MS   2000    /* the leash's kill, then the group's SIGKILL */
#define RUN_ENV_MAX        8       /* ZKELECT_* variables COMMAND gets */

enum { OPT_ID = 1, OPT_SITE, OPT_PRIORITY, OPT_SESSION, OPT_STOP, OPT_READY_CHECK,
       OPT_READY_TIMEOUT };

/* What COMMAND is doing (main thread only). */
enum run_phase {
    PH_IDLE,        /* not running */
    PH_STARTING,    /* running, the ready check has not succeeded yet */
    PH_RUNNING,     /* running, takeover reported (or none to report) */
    PH_STOPPING     /* SIGTERM sent; SIGKILL at kill_at */
};

struct run {
    struct cli *c;                    /* the CLI (hosts, path, auth file) */

    /* options */
    char id[ZKE_ID_MAX + 1];          /* --id, default the host name */
    const char *site;                 /* --site, or "" */
    int priority;                     /* --priority */
    int session_ms;                   /* --session-timeout */
    int stop_ms;                      /* --stop-timeout */
    const char *ready_check;          /* --ready-check, or NULL */
    int ready_ms;                     /* --ready-timeout */
    char **argv;                      /* COMMAND and its arguments; borrowed from main */
    char path[PATH_MAX];              /* COMMAND's resolved path */

    zkelect_t *h;                     /* the session */
    zkelect_group_t *g;               /* the group */
    int wakefd;                       /* eventfd: the callbacks changed something */
    int sigfd;                        /* signalfd: SIGINT, SIGTERM, SIGHUP */

    /* written by the library's callbacks, read by main: under mu */
    pthread_mutex_t mu;
    uint64_t lead_epoch;              /* COMMAND should run for this epoch; 0: must not */
    uint64_t takeover_epoch;          /* takeover to report done (EBUSY returned); 0 none */
    uint64_t stepdown_epoch;          /* step-down to report done once reaped; 0 none */
    unsigned stop_seq;                /* bumped on every step-down, suspension, loss */
    char previous[ZKE_ID_MAX + 1];    /* the leader before us (ZKELECT_PREVIOUS) */
    char why[160];                    /* why COMMAND must stop, for the message */
    int exiting;                      /* main is leaving: callbacks finish at once */

    /* main thread only */
    enum run_phase phase;             /* COMMAND's state */
    pid_t pid;                        /* COMMAND's leash (its process group), when not PH_IDLE */
    pid_t prog;                       /* COMMAND's own pid, for messages */
    int pidfd;                        /* its pidfd, -1 (then waitpid is polled) */
    uint64_t epoch;                   /* the epoch COMMAND runs for */
    unsigned seen_seq;                /* stop_seq when COMMAND was started */
    uint64_t kill_at;                 /* PH_STOPPING: the next kill then (CLOCK_MONOTONIC ms) */
    int killed;                       /* 1: the leash was told to kill; 2: the group's
                                         SIGKILL sent too */
    uint64_t fail_epoch;              /* report this takeover failed once reaped */
    int fail_err;                     /* with this code */
    uint64_t ready_deadline;          /* PH_STARTING: the check must succeed by then */
    uint64_t next_check;              /* PH_STARTING: next run of the check */
    pid_t cpid;                       /* the ready check running, 0 none */
    int cpidfd;                       /* its pidfd, or -1 */
    int devnull;                      /* /dev/null, the check's stdin and stdout */
    uint64_t started_ms;              /* when COMMAND was started */
    int quit_sig;                     /* the signal that asked us to stop, 0 none */
    int exit_code;                    /* set when the runner must leave (-1: not yet) */
};

__attribute__((format(printf, 1, 2)))
static void
run_msg(const char *fmt, ...)
{
    char buf[1024];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    /* one call: the library thread writes messages too */
    fprintf(stderr, "zkelect run: %s\n", buf);
}

static void
run_wake(struct run *r)
{
    uint64_t one = 1;
    ssize_t n = write(r->wakefd, &one, sizeof(one));

    (void)n;   /* a full counter still wakes the reader */
}

/* "exit status 3", "killed by signal 15 (SIGTERM)" */
static const char *
run_status_str(int status, char *buf, size_t len)
{
    const char *abbrev;

    if (WIFEXITED(status)) {
        snprintf(buf, len, "exit status %d", WEXITSTATUS(status));
    } else if (WIFSIGNALED(status)) {
        abbrev = sigabbrev_np(WTERMSIG(status));
        snprintf(buf, len, "killed by signal %d (SIG%s)", WTERMSIG(status),
                 abbrev ? abbrev : "?");
    } else {
        snprintf(buf, len, "wait status 0x%x", (unsigned)status);
    }
    return buf;
}

/* The shell's convention: the exit status, or 128 + the signal. */
static int
run_status_code(int status)
{
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return CLI_EFAIL;
}

/* ------------------------------------------------------------------------ */
/* Library callbacks (library thread: record, wake main, never block)       */
/* ------------------------------------------------------------------------ */

static int
run_on_takeover(void *data, zkelect_group_t *g, uint64_t epoch)
{
    struct run *r = data;
    struct zkelect_leader l;

    memset(&l, 0, sizeof(l));
    (void)zkelect_get_leader(g, &l);
    pthread_mutex_lock(&r->mu);
    if (r->exiting) {
        pthread_mutex_unlock(&r->mu);
        return ZKELECT_ECANCELED;
    }
    r->lead_epoch = epoch;
    r->takeover_epoch = epoch;
    snprintf(r->previous, sizeof(r->previous), "%s", l.previous);
    pthread_mutex_unlock(&r->mu);
    run_wake(r);
    return ZKELECT_EBUSY;
}

static int
run_on_stepdown(void *data, zkelect_group_t *g, uint64_t epoch)
{
    struct run *r = data;

    (void)g;
    pthread_mutex_lock(&r->mu);
    if (r->exiting) {
        /* main has reaped COMMAND and will not start it again */
        pthread_mutex_unlock(&r->mu);
        return ZKELECT_OK;
    }
    r->lead_epoch = 0;
    if (r->takeover_epoch == epoch)
        r->takeover_epoch = 0;
    r->stepdown_epoch = epoch;
    r->stop_seq++;
    snprintf(r->why, sizeof(r->why), "stepping down from epoch %llu",
             (unsigned long long)epoch);
    pthread_mutex_unlock(&r->mu);
    run_wake(r);
    return ZKELECT_EBUSY;
}

static void
run_on_event(void *data, const struct zkelect_event *ev)
{
    struct run *r = data;

    switch (ev->type) {
    case ZKELECT_EV_SUSPENDED:
    case ZKELECT_EV_LOST:
        /* no step-down callback comes for these: stop COMMAND now */
        pthread_mutex_lock(&r->mu);
        r->lead_epoch = 0;
        r->takeover_epoch = 0;
        r->stop_seq++;
        snprintf(r->why, sizeof(r->why), "%s: %s", ev->name, ev->detail);
        pthread_mutex_unlock(&r->mu);
        run_wake(r);
        break;
    case ZKELECT_EV_RESUMED:
        /* leadership verified after a reconnect: the leader znode is READY
           at the same epoch, and no takeover callback follows */
        pthread_mutex_lock(&r->mu);
        if (!r->exiting)
            r->lead_epoch = ev->epoch;
        pthread_mutex_unlock(&r->mu);
        run_wake(r);
        break;
    default:                            /* the log callback shows them */
        break;
    }
}

static void
run_on_log(void *data, int level, const char *msg)
{
    (void)data;
    (void)level;
    run_msg("%s", msg);
}

/* ------------------------------------------------------------------------ */
/* COMMAND and the ready check (main thread)                                */
/* ------------------------------------------------------------------------ */

__attribute__((format(printf, 2, 3)))
static int
run_env_add(char **slot, const char *fmt, ...)
{
    va_list ap;
    int rc;

    va_start(ap, fmt);
    rc = vasprintf(slot, fmt, ap);
    va_end(ap);
    if (rc < 0) {
        *slot = NULL;
        return -1;
    }
    return 0;
}

static void
run_env_free(char *vars[RUN_ENV_MAX + 1])
{
    int i;

    for (i = 0; i < RUN_ENV_MAX; i++) {
        free(vars[i]);
        vars[i] = NULL;
    }
}

/* The environment for COMMAND and the check: 0, or -1 (out of memory). */
static int
run_env(struct run *r, char *vars[RUN_ENV_MAX + 1])
{
    char prev[ZKE_ID_MAX + 1];
    int bad = 0;

    pthread_mutex_lock(&r->mu);
    snprintf(prev, sizeof(prev), "%s", r->previous);
    pthread_mutex_unlock(&r->mu);
    memset(vars, 0, sizeof(char *) * (RUN_ENV_MAX + 1));
    bad |= run_env_add(&vars[0], "ZKELECT_EPOCH=%llu", (unsigned long long)r->epoch);
    bad |= run_env_add(&vars[1], "ZKELECT_NODE_ID=%s", r->id);
    bad |= run_env_add(&vars[2], "ZKELECT_GROUP=%s", r->c->path);
    bad |= run_env_add(&vars[3], "ZKELECT_PREVIOUS=%s", prev);
    bad |= run_env_add(&vars[4], "ZKELECT_SITE=%s", r->site);
    if (bad) {
        run_env_free(vars);
        return -1;
    }
    return 0;
}

/* Start path/argv on a leash with our environment. 0 or an errno value. */
static int
run_spawn(struct run *r, const char *path, char *const argv[], int in_fd, int out_fd,
          pid_t *pid, pid_t *prog, int *pidfd)
{
    char *vars[RUN_ENV_MAX + 1], **envp;
    int err;

    if (run_env(r, vars) != 0)
        return ENOMEM;
    if ((envp = child_envp((const char *const *)vars)) == NULL) {
        run_env_free(vars);
        return ENOMEM;
    }
    err = child_start_leashed(path, argv, envp, in_fd, out_fd, pid, prog);
    free(envp);
    run_env_free(vars);
    if (err == 0)
        *pidfd = pidfd_open(*pid, 0);   /* -1 on old kernels: waitpid is polled */
    return err;
}

/* Reap pid if it has exited: 1 (status set), 0 still running. */
static int
run_reap(pid_t pid, int *status)
{
    pid_t w;

    do
        w = waitpid(pid, status, WNOHANG);
    while (w == -1 && errno == EINTR);
    if (w == -1) {
        *status = 0;
        return 1;       /* ECHILD: nothing left to wait for */
    }
    return w == pid;
}

/* Has pid exited? Looked at without reaping it, so that its zombie still
   holds the process group id. */
static int
run_exited(pid_t pid)
{
    siginfo_t si;

    memset(&si, 0, sizeof(si));
    if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == -1)
        return errno == ECHILD;
    return si.si_pid == pid;
}

/* Kill and reap the ready check, if one runs. */
static void
run_check_kill(struct run *r)
{
    int st;

    if (r->cpid <= 0)
        return;
    child_signal_group(r->cpid, SIGKILL);
    while (waitpid(r->cpid, &st, 0) == -1 && errno == EINTR)
        ;
    if (r->cpidfd >= 0)
        close(r->cpidfd);
    r->cpid = 0;
    r->cpidfd = -1;
}

/* Start COMMAND for the epoch main decided on. 0, or an exit code to leave with. */
static int
run_start(struct run *r, uint64_t epoch)
{
    int err;

    r->epoch = epoch;
    err = run_spawn(r, r->path, r->argv, -1, -1, &r->pid, &r->prog, &r->pidfd);
    if (err != 0) {
        run_msg("cannot start %s: %s", r->argv[0], strerror(err));
        return err == ENOENT ? 127 : err == EACCES || err == ENOEXEC ? 126 : CLI_EFAIL;
    }
    r->started_ms = cli_mono_ms();
    r->killed = 0;
    pthread_mutex_lock(&r->mu);
    r->seen_seq = r->stop_seq;
    pthread_mutex_unlock(&r->mu);
    run_msg("leading at epoch %llu: started %s (pid %ld)", (unsigned long long)epoch,
            r->argv[0], (long)r->prog);
    if (r->ready_check != NULL) {
        r->phase = PH_STARTING;
        r->ready_deadline = r->started_ms + (uint64_t)r->ready_ms;
        r->next_check = r->started_ms;
    } else {
        r->phase = PH_RUNNING;
    }
    return 0;
}

/* Kill COMMAND: the leash kills the strays, then the group with itself
   (the group's SIGKILL would not reach the strays); the group's SIGKILL
   follows RUN_KILL_WAIT_MS later if the leash is still there (stopped with
   its group, it cannot act). */
static void
run_kill(struct run *r)
{
    if (r->killed == 0) {
        child_kill_leashed(r->pid);
        r->killed = 1;
        r->kill_at = cli_mono_ms() + RUN_KILL_WAIT_MS;
    } else if (r->killed == 1) {
        run_msg("%s (pid %ld) still there %d ms after SIGKILL: SIGKILL to its group",
                r->argv[0], (long)r->prog, RUN_KILL_WAIT_MS);
        child_signal_group(r->pid, SIGKILL);
        r->killed = 2;
    }
}

/* Begin stopping COMMAND: SIGTERM to its group, SIGKILL at the deadline. */
static void
run_stop(struct run *r, const char *why)
{
    if (r->phase == PH_IDLE || r->phase == PH_STOPPING)
        return;
    run_check_kill(r);
    run_msg("%s: stopping %s (pid %ld): SIGTERM, SIGKILL after %d ms", why, r->argv[0],
            (long)r->prog, r->stop_ms);
    r->phase = PH_STOPPING;
    r->kill_at = cli_mono_ms() + (uint64_t)r->stop_ms;
    child_signal_group(r->pid, SIGTERM);
    if (r->stop_ms == 0)
        run_kill(r);
}

/* COMMAND has exited (status): clean up its group and report. */
static void
run_reaped(struct run *r, int status)
{
    char desc[96];
    bool stopping = r->phase == PH_STOPPING;

    run_check_kill(r);
    if (r->pidfd >= 0)
        close(r->pidfd);
    r->pidfd = -1;
    r->phase = PH_IDLE;
    run_status_str(status, desc, sizeof(desc));
    if (stopping) {
        run_msg("%s (pid %ld) stopped: %s", r->argv[0], (long)r->prog, desc);
        return;
    }
    run_msg("%s (pid %ld) exited by itself after %llu ms: %s; resigning", r->argv[0],
            (long)r->prog, (unsigned long long)(cli_mono_ms() - r->started_ms), desc);
    r->exit_code = run_status_code(status);
}

/* COMMAND's pidfd was readable (or no pidfd: poll): reap it if it is gone. */
static void
run_check_command(struct run *r)
{
    int status;

    if (r->phase == PH_IDLE)
        return;
    /* whatever it left in its process group goes with it: nothing may outlive
       the leadership (the leader's zombie still holds the group id here) */
    if (run_exited(r->pid)) {
        child_signal_group(r->pid, SIGKILL);
        if (run_reap(r->pid, &status))
            run_reaped(r, status);
    }
}

/* PH_STARTING: run the ready check until it succeeds or the deadline passes. */
static void
run_ready_step(struct run *r)
{
    char *const argv[] = { (char *)"/bin/sh", (char *)"-c", (char *)r->ready_check, NULL };
    uint64_t now = cli_mono_ms();
    int st, err;

    if (r->phase != PH_STARTING)
        return;
    if (r->cpid > 0 && run_exited(r->cpid)) {
        child_signal_group(r->cpid, SIGKILL);
        (void)run_reap(r->cpid, &st);
        if (r->cpidfd >= 0)
            close(r->cpidfd);
        r->cpid = 0;
        r->cpidfd = -1;
        if (WIFEXITED(st) && WEXITSTATUS(st) == 0) {
            r->phase = PH_RUNNING;
            run_msg("ready at epoch %llu: the ready check succeeded after %llu ms",
                    (unsigned long long)r->epoch, (unsigned long long)(now - r->started_ms));
            return;
        }
        r->next_check = now + RUN_CHECK_EVERY_MS;
    }
    if (now >= r->ready_deadline) {
        run_msg("the ready check did not succeed within %d ms: the takeover of epoch %llu "
                "fails", r->ready_ms, (unsigned long long)r->epoch);
        r->fail_epoch = r->epoch;
        r->fail_err = ZKELECT_ETIMEDOUT;
        pthread_mutex_lock(&r->mu);
        if (r->lead_epoch == r->epoch)
            r->lead_epoch = 0;          /* not again for this epoch */
        pthread_mutex_unlock(&r->mu);
        run_stop(r, "takeover failed");
        return;
    }
    if (r->cpid == 0 && now >= r->next_check) {
        err = run_spawn(r, argv[0], argv, r->devnull, r->devnull, &r->cpid, NULL, &r->cpidfd);
        if (err != 0) {
            run_msg("cannot run the ready check: %s", strerror(err));
            r->cpid = 0;
            r->cpidfd = -1;
            r->next_check = now + RUN_CHECK_EVERY_MS;
        }
    }
}

/* Bring COMMAND in line with what the library asked for. */
static void
run_reconcile(struct run *r)
{
    uint64_t lead, take, step;
    unsigned seq;
    char why[sizeof(r->why)];
    int rc;

    pthread_mutex_lock(&r->mu);
    lead = r->lead_epoch;
    take = r->takeover_epoch;
    step = r->stepdown_epoch;
    seq = r->stop_seq;
    snprintf(why, sizeof(why), "%s", r->why);
    pthread_mutex_unlock(&r->mu);

    if (r->phase == PH_STARTING || r->phase == PH_RUNNING) {
        if (r->quit_sig != 0)
            run_stop(r, "asked to stop by a signal");
        else if (seq != r->seen_seq || lead != r->epoch)
            run_stop(r, *why ? why : "no longer leading");
    }
    if (r->phase == PH_IDLE) {
        if (r->fail_epoch != 0) {
            pthread_mutex_lock(&r->mu);
            if (r->takeover_epoch == r->fail_epoch)
                r->takeover_epoch = 0;
            pthread_mutex_unlock(&r->mu);
            if ((rc = zkelect_takeover_done(r->g, r->fail_epoch, r->fail_err)) != 0)
                run_msg("zkelect_takeover_done: %s", zkelect_strerror(rc));
            r->fail_epoch = 0;
            take = 0;
        }
        if (step != 0) {
            /* COMMAND is gone: now the leader znode may go */
            pthread_mutex_lock(&r->mu);
            if (r->stepdown_epoch == step)
                r->stepdown_epoch = 0;
            pthread_mutex_unlock(&r->mu);
            if ((rc = zkelect_stepdown_done(r->g, step)) != 0)
                run_msg("zkelect_stepdown_done: %s", zkelect_strerror(rc));
        }
        if (lead != 0 && r->quit_sig == 0 && r->exit_code < 0) {
            if ((rc = run_start(r, lead)) != 0)
                r->exit_code = rc;      /* resign (the takeover is aborted) and leave */
        }
    }
    if (r->phase == PH_RUNNING && take != 0 && take == r->epoch) {
        pthread_mutex_lock(&r->mu);
        if (r->takeover_epoch == take)
            r->takeover_epoch = 0;
        pthread_mutex_unlock(&r->mu);
        if ((rc = zkelect_takeover_done(r->g, take, 0)) != 0)
            run_msg("zkelect_takeover_done: %s", zkelect_strerror(rc));
    }
}

/* Milliseconds until t (0 when passed), capped at cap. */
static int
run_ms_until(uint64_t t, uint64_t now, int cap)
{
    if (t <= now)
        return 0;
    return t - now > (uint64_t)cap ? cap : (int)(t - now);
}

/* Read the pending SIGINT/SIGTERM/SIGHUP: the first asks to stop, a second
   one while stopping kills COMMAND at once. */
static void
run_read_signals(struct run *r)
{
    struct signalfd_siginfo si;
    const char *name;

    while (read(r->sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
        name = sigabbrev_np((int)si.ssi_signo);
        if (r->quit_sig == 0) {
            r->quit_sig = (int)si.ssi_signo;
            run_msg("SIG%s received: stopping and resigning", name ? name : "?");
        } else if (r->phase == PH_STOPPING && !r->killed) {
            run_msg("SIG%s again: SIGKILL now", name ? name : "?");
            r->kill_at = cli_mono_ms();
        }
    }
}

/* The main loop: until COMMAND has been reaped and we must leave. */
static void
run_loop(struct run *r)
{
    struct pollfd p[4];
    uint64_t now, cnt;
    int n, k, timeout, isig, iwake;
    ssize_t rd;

    for (;;) {
        run_read_signals(r);            /* one that came while joining: start nothing */
        run_ready_step(r);              /* before: a check that succeeded is reported */
        run_reconcile(r);
        if (r->phase == PH_IDLE && (r->exit_code >= 0 || r->quit_sig != 0))
            return;

        now = cli_mono_ms();
        timeout = 60000;
        if (r->phase == PH_STOPPING && r->killed < 2)
            timeout = run_ms_until(r->kill_at, now, timeout);
        if (r->phase == PH_STARTING) {
            timeout = run_ms_until(r->ready_deadline, now, timeout);
            if (r->cpid == 0)
                timeout = run_ms_until(r->next_check, now, timeout);
        }
        if ((r->phase != PH_IDLE && r->pidfd < 0) || (r->cpid > 0 && r->cpidfd < 0))
            timeout = timeout > 50 ? 50 : timeout;     /* no pidfd: poll waitpid */
        if (r->phase == PH_STOPPING && r->killed)
            timeout = timeout > 100 ? 100 : timeout;

        k = 0;
        p[k].fd = r->sigfd;
        p[k].events = POLLIN;
        isig = k++;
        p[k].fd = r->wakefd;
        p[k].events = POLLIN;
        iwake = k++;
        if (r->phase != PH_IDLE && r->pidfd >= 0) {
            p[k].fd = r->pidfd;
            p[k].events = POLLIN;
            k++;
        }
        if (r->cpid > 0 && r->cpidfd >= 0) {
            p[k].fd = r->cpidfd;
            p[k].events = POLLIN;
            k++;
        }
        for (n = 0; n < k; n++)
            p[n].revents = 0;
        n = poll(p, (nfds_t)k, timeout);
        if (n == -1 && errno != EINTR) {
            run_msg("poll: %s", strerror(errno));
            if (r->exit_code < 0)
                r->exit_code = CLI_EFAIL;
            if (r->phase != PH_IDLE)
                run_stop(r, "internal error");
        }
        if (n > 0 && (p[isig].revents & POLLIN))
            run_read_signals(r);
        if (n > 0 && (p[iwake].revents & POLLIN)) {
            rd = read(r->wakefd, &cnt, sizeof(cnt));
            (void)rd;
        }
        if (r->phase == PH_STOPPING && r->killed < 2 && cli_mono_ms() >= r->kill_at) {
            if (r->killed == 0)
                run_msg("%s (pid %ld) still running after SIGTERM: SIGKILL", r->argv[0],
                        (long)r->prog);
            run_kill(r);
        }
        run_check_command(r);
    }
}

/* ------------------------------------------------------------------------ */
/* Joining and leaving                                                      */
/* ------------------------------------------------------------------------ */

/* Wait up to ms for a signal on sigfd: its number, or 0. */
static int
run_sigwait(struct run *r, int ms)
{
    struct signalfd_siginfo si;
    struct pollfd p;
    uint64_t end = cli_mono_ms() + (uint64_t)ms, now;

    for (;;) {
        now = cli_mono_ms();
        if (now >= end)
            return 0;
        p.fd = r->sigfd;
        p.events = POLLIN;
        p.revents = 0;
        if (poll(&p, 1, run_ms_until(end, now, ms)) > 0 &&
            read(r->sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si))
            return (int)si.ssi_signo;
    }
}

/*
 * Join the group. While another live session holds our id (a runner that
 * was killed a moment ago: its session lives until it expires), retry for
 * up to twice the session timeout. 0 joined (or joining in the background),
 * else an exit code.
 */
static int
run_join(struct run *r)
{
    struct zkelect_node n;
    uint64_t start = cli_mono_ms(), bound = 2 * (uint64_t)r->session_ms;
    int rc, sig, tries = 0, retry_ms;

    memset(&n, 0, sizeof(n));
    n.id = r->id;
    n.site = r->site;
    n.priority = r->priority;
    n.eligible = 1;
    retry_ms = r->session_ms / 10 < 100 ? 100 : r->session_ms / 10 > 1000 ? 1000 :
               r->session_ms / 10;
    for (;;) {
        rc = zkelect_nominate(r->g, &n, r->c->timeout_ms);
        if (rc == 0 || rc == ZKELECT_ETIMEDOUT) {
            run_msg("%s %s as %s; COMMAND runs while this node leads", rc == 0 ? "joined" :
                    "joining (not confirmed yet)", r->c->path, r->id);
            return 0;
        }
        if (rc == ZKELECT_EFOREIGN) {
            run_msg(ZKE_FOREIGN_RECORD_FMT, r->c->path, r->id, r->c->path, r->id);
            return CLI_EFAIL;
        }
        if (rc != ZKELECT_EIDINUSE) {
            run_msg("cannot join the group %s as %s: %s", r->c->path, r->id,
                    zkelect_strerror(rc));
            return CLI_EFAIL;
        }
        if (tries++ == 0)
            run_msg("node id %s is held by another live ZooKeeper session (a runner that "
                    "just died, or another node with the same --id); retrying for up to "
                    "%llu ms", r->id, (unsigned long long)bound);
        if (cli_mono_ms() - start >= bound) {
            run_msg("node id %s is still held by another session: is another node "
                    "running with the same --id? giving up", r->id);
            return CLI_EFAIL;
        }
        if ((sig = run_sigwait(r, retry_ms)) != 0)
            return 128 + sig;
    }
}

/* ------------------------------------------------------------------------ */
/* The command                                                              */
/* ------------------------------------------------------------------------ */

/* Parse the options and COMMAND into r: -1 to go on, else an exit code. */
static int
run_parse(struct cli *c, struct run *r, int argc, char **argv)
{
    static const struct cli_optdef defs[] = {
        { "id", 0, 1, OPT_ID },
        { "site", 0, 1, OPT_SITE },
        { "priority", 0, 1, OPT_PRIORITY },
        { "session-timeout", 0, 1, OPT_SESSION },
        { "stop-timeout", 0, 1, OPT_STOP },
        { "ready-check", 0, 1, OPT_READY_CHECK },
        { "ready-timeout", 0, 1, OPT_READY_TIMEOUT },
        { NULL, 0, 0, 0 }
    };
    struct cli_args a;
    const char *arg, *id = NULL;
    char esc[160], host[256];
    long long v;
    int opt, err;

    memset(&a, 0, sizeof(a));
    a.argc = argc;
    a.argv = argv;
    a.rest = true;
    while ((opt = cli_next_opt(c, &a, defs, &arg)) != 0) {
        if (arg != NULL)
            cli_escape(arg, esc, sizeof(esc));
        switch (opt) {
        case CLI_OPT_ERR:
            return CLI_EUSAGE;
        case CLI_OPT_HELP:
            return cli_cmd_help(c);
        case CLI_OPT_JSON:
            return cli_usage_err(c, "--json: run prints no results (its messages go to "
                                 "stderr)");
        case OPT_ID:
            if (!zke_id_valid(arg))
                return cli_usage_err(c, "--id: \"%s\" is not a valid node id (1 to %d "
                                     "characters of A-Z a-z 0-9 . _ -, not starting with .)",
                                     esc, ZKE_ID_MAX);
            id = arg;
            break;
        case OPT_SITE:
            if (!zke_site_valid(arg))
                return cli_usage_err(c, "--site: \"%s\" is not a valid site name", esc);
            r->site = arg;
            break;
        case OPT_PRIORITY:
            if (cli_parse_int(arg, -1000000, 1000000, &v) != 0)
                return cli_usage_err(c, "--priority: \"%s\" is not an integer from -1000000 "
                                     "to 1000000", esc);
            r->priority = (int)v;
            break;
        case OPT_SESSION:
            if (cli_parse_int(arg, 100, 3600000, &v) != 0)
                return cli_usage_err(c, "--session-timeout: \"%s\" is not a time in "
                                     "milliseconds from 100 to 3600000", esc);
            r->session_ms = (int)v;
            break;
        case OPT_STOP:
            if (cli_parse_int(arg, 0, 3600000, &v) != 0)
                return cli_usage_err(c, "--stop-timeout: \"%s\" is not a time in "
                                     "milliseconds from 0 to 3600000", esc);
            r->stop_ms = (int)v;
            break;
        case OPT_READY_CHECK:
            if (*arg == '\0')
                return cli_usage_err(c, "--ready-check: empty command");
            r->ready_check = arg;
            break;
        case OPT_READY_TIMEOUT:
            if (cli_parse_int(arg, 100, 3600000, &v) != 0)
                return cli_usage_err(c, "--ready-timeout: \"%s\" is not a time in "
                                     "milliseconds from 100 to 3600000", esc);
            r->ready_ms = (int)v;
            break;
        }
    }
    if (a.rest_at >= argc)
        return cli_usage_err(c, "no COMMAND given (zkelect run [OPTIONS] -- COMMAND "
                             "[ARGS...])");
    r->argv = argv + a.rest_at;
    if (id == NULL) {
        if (gethostname(host, sizeof(host)) != 0 || (host[sizeof(host) - 1] = '\0',
            !zke_id_valid(host))) {
            cli_escape(host, esc, sizeof(esc));
            return cli_usage_err(c, "the host name \"%s\" is not a valid node id: give "
                                 "--id", esc);
        }
        id = host;
    }
    snprintf(r->id, sizeof(r->id), "%s", id);

    /* COMMAND must exist before we join: a typo never wins an election */
    if ((err = child_which(r->argv[0], r->path, sizeof(r->path))) != 0) {
        cli_escape(r->argv[0], esc, sizeof(esc));
        if (err == ENOENT) {
            cli_err("run: %s: command not found%s", esc,
                    strchr(r->argv[0], '/') ? "" : " (searched $PATH)");
            return 127;
        }
        cli_err("run: %s: %s", esc, err == EACCES ? "not executable (permission denied)" :
                strerror(err));
        return 126;
    }
    return -1;
}

int
cmd_run(struct cli *c, int argc, char **argv)
{
    struct zkelect_options o;
    struct zkelect_group_options go;
    struct run r;
    sigset_t set;
    const char *p;
    char *secret = NULL;
    int rc, s;

    memset(&r, 0, sizeof(r));
    r.c = c;
    r.site = "";
    r.session_ms = CLI_SESSION_MS;
    r.stop_ms = RUN_STOP_MS;
    r.ready_ms = RUN_READY_MS;
    r.wakefd = r.sigfd = r.pidfd = r.cpidfd = r.devnull = -1;
    r.exit_code = -1;
    pthread_mutex_init(&r.mu, NULL);
    if ((rc = run_parse(c, &r, argc, argv)) >= 0)
        goto out;

    /* the checks cli_connect would make, with its messages */
    if (c->hosts == NULL || *c->hosts == '\0') {
        rc = cli_usage_err(c, "no ZooKeeper hosts: give -z HOSTS or set ZKELECT_HOSTS");
        goto out;
    }
    for (p = c->hosts; *p; p++) {
        if ((unsigned char)*p <= 0x20 || *p == 0x7f) {
            rc = cli_usage_err(c, "-z: the connection string contains a space or a control "
                               "character");
            goto out;
        }
    }
    if (c->auth_file != NULL) {
        /* the library reads the file itself; check it here for a clear message */
        if (cli_read_secret(c->auth_file, "-a", &secret) != 0) {
            rc = CLI_EFAIL;
            goto out;
        }
        cli_secret_free(secret);
    }

    /* SIGINT/SIGTERM/SIGHUP are read from a signalfd; blocked before the
       library's threads exist so that they inherit the mask. A signal left
       ignored by our parent (a background job of a script ignores SIGINT)
       would be discarded even while blocked: default dispositions first. */
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    for (s = 1; s < NSIG; s++)
        if (sigismember(&set, s) == 1)
            (void)signal(s, SIG_DFL);
    if (sigprocmask(SIG_BLOCK, &set, NULL) != 0 ||
        (r.sigfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK)) < 0 ||
        (r.wakefd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0 ||
        (r.devnull = open("/dev/null", O_RDWR | O_CLOEXEC)) < 0) {
        cli_err("run: %s", strerror(errno));
        rc = CLI_EFAIL;
        goto out;
    }

    memset(&o, 0, sizeof(o));
    o.size = sizeof(o);
    o.hosts = c->hosts;
    o.session_timeout_ms = r.session_ms;
    o.connect_timeout_ms = c->timeout_ms;
    o.auth_file = c->auth_file;
    o.log = run_on_log;
    o.log_data = &r;
    o.log_level = ZKELECT_LOG_NOTICE;  /* events (+takeover, -suspended...), not chatter */
    if ((rc = zkelect_open(&o, &r.h)) != 0) {
        cli_escape(c->hosts, r.why, sizeof(r.why));
        cli_err("run: cannot open a ZooKeeper session on %s within %d ms: %s", r.why,
                c->timeout_ms, zkelect_strerror(rc));
        rc = CLI_EFAIL;
        goto out;
    }
    memset(&go, 0, sizeof(go));
    go.size = sizeof(go);
    go.path = c->path;
    go.on_event = run_on_event;
    go.event_data = &r;
    go.on_takeover = run_on_takeover;
    go.on_stepdown = run_on_stepdown;
    go.cb_data = &r;
    if ((rc = zkelect_group_open(r.h, &go, &r.g)) != 0) {
        cli_err("run: cannot open the group %s: %s", c->path, zkelect_strerror(rc));
        rc = CLI_EFAIL;
        goto out;
    }
    if ((rc = run_join(&r)) != 0)
        goto out;

    run_loop(&r);

    /* COMMAND has been reaped: resign (the leader znode goes now) and leave */
    pthread_mutex_lock(&r.mu);
    r.exiting = 1;
    pthread_mutex_unlock(&r.mu);
    run_reconcile(&r);                  /* a step-down still to report */
    if ((rc = zkelect_unnominate(r.g, r.session_ms + 5000)) != 0)
        run_msg("resigning from %s: %s", c->path, zkelect_strerror(rc));
    else
        run_msg("resigned from %s", c->path);
    rc = r.exit_code >= 0 ? r.exit_code : 128 + r.quit_sig;
out:
    /* zkelect_close() closes the group too (not zkelect_group_close()
       first: see zkelectd's zkd_stop) */
    zkelect_close(r.h);
    if (r.sigfd >= 0)
        close(r.sigfd);
    if (r.wakefd >= 0)
        close(r.wakefd);
    if (r.devnull >= 0)
        close(r.devnull);
    pthread_mutex_destroy(&r.mu);
    return rc;
}
