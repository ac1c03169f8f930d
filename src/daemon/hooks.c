/*
 * hooks.c - the takeover, stepdown and notify hooks.
 *
 * Takeover and stepdown hooks run one at a time, in order, on one worker
 * thread (the "leadership worker"): the library's callbacks only queue a job
 * and return ZKELECT_EBUSY, and the worker calls zkelect_takeover_done() or
 * zkelect_stepdown_done() when the hook has finished. So the election state
 * machine never waits for a hook.
 *
 *   takeover(E)   hook exit 0: the [leader] command starts (and becomes
 *                 ready), then done(E, 0), the node goes READY.
 *                 exit != 0, timeout, or a command that does not start or
 *                 become ready (it is stopped again): done(E, error) - the
 *                 library calls the step-down (the stepdown hook undoes what
 *                 the takeover did), gives up epoch E, and the elector's
 *                 watchdog moves on.
 *   stepdown(E)   a running takeover hook of epoch E is canceled (its process
 *                 group is killed) and a queued one never starts; then the
 *                 [leader] command is stopped, the stepdown hook runs within
 *                 what is left of the step-down budget ([hooks]
 *                 stepdown_timeout_ms), and done(E) lets the library delete
 *                 the leader znode.
 *   lost(E)       leadership ended without a step-down (session expired,
 *                 leader znode deleted by the elector): as stepdown, but
 *                 nobody waits for it.
 *
 * The stepdown hook runs only when a takeover was started since the last
 * step-down ("active"), so each takeover is undone once.
 *
 * A group with N active leaders (config `leaders`): this node holds at most
 * one slot at a time, and the one epoch counter feeds every slot, so an
 * epoch names one takeover of one slot and the state above stays keyed by
 * epoch; each job carries its slot (zkelect_group_slot() in the callbacks,
 * the event's slot for a loss) for ZKELECT_SLOT and the log lines.
 *
 * Notify hooks run on NOTIFY_WORKERS threads from a bounded queue; they are
 * fire-and-forget: a failure is logged and changes nothing.
 *
 * Sections: environment; leadership worker; library callbacks; notify
 * workers; start and stop.
 */
#include <sys/eventfd.h>
#include <sys/stat.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "proc.h"
#include "supervise.h"
#include "statefile.h"
#include "zkelectd.h"

#define HOOK_ENV_MAX 16                 /* ZKELECT_* variables passed, at most */

/* One takeover or stepdown job. */
enum job_kind {
    JOB_TAKEOVER,                       /* run the takeover hook, then done */
    JOB_STEPDOWN                        /* run the stepdown hook (if active) */
};

struct job {
    struct job *next;                   /* queue link */
    enum job_kind kind;                 /* what to run */
    uint64_t epoch;                     /* the epoch it is about */
    int slot;                           /* and its slot (ZKELECT_SLOT) */
    bool call_done;                     /* JOB_STEPDOWN: call zkelect_stepdown_done */
    const char *event;                  /* static: ZKELECT_EVENT for the hook */
    char *reason;                       /* owned: ZKELECT_REASON */
    char *previous;                     /* owned: ZKELECT_PREVIOUS */
    char previous_host[256];            /* ZKELECT_PREVIOUS_HOST: its member record's host */
    uint64_t queued_ms;                 /* CLOCK_MONOTONIC when it was queued: a
                                           step-down's budget counts from then */
};

/* One notify run: its environment. */
struct njob {
    struct njob *next;                  /* queue link */
    char *env[HOOK_ENV_MAX + 1];        /* owned "NAME=value" strings, NULL-terminated */
    char event[32];                     /* the event name, for the log */
};

struct zkd_hooks {
    struct zkd *d;                      /* the daemon */
    pthread_mutex_t mu;                 /* guards everything below */
    pthread_cond_t cv;                  /* queue changed, or a job finished */

    /* leadership worker */
    pthread_t lthread;                  /* the worker */
    bool lstarted;                      /* lthread runs */
    bool lstop;                         /* finish the queue, then exit */
    struct job *head, *tail;            /* queued jobs */
    bool busy;                          /* a job is running */
    uint64_t running_takeover;          /* epoch of the takeover hook running, 0 none */
    uint64_t canceled_epoch;            /* a takeover of this epoch must not run */
    uint64_t active_epoch;              /* a takeover of this epoch started and was
                                           not undone yet; 0 none */
    int active_slot;                    /* the slot of active_epoch */
    uint64_t ok_epoch;                  /* the takeover of this epoch succeeded */
    int cancel_fd;                      /* eventfd: cancels the running takeover hook */
    uint64_t job_since_ms;              /* worker only: the running job's queued_ms */

    /* notify workers */
    pthread_t nthreads[NOTIFY_WORKERS]; /* the workers */
    int nstarted;                       /* how many run */
    bool nstop;                         /* finish the queue, then exit */
    int nrunning;                       /* workers that have not exited */
    struct njob *nhead, *ntail;         /* queued runs */
    int nqueued;                        /* their number */
    int nstop_fd;                       /* eventfd: cancels running notify hooks */
};

static const char *const hook_names[ZKD_HOOK__COUNT] = {
    "takeover", "stepdown", "notify",
};

/* ------------------------------------------------------------------------ */
/* Environment                                                              */
/* ------------------------------------------------------------------------ */

struct envb {
    char *v[HOOK_ENV_MAX + 1];          /* owned strings, NULL-terminated */
    int n;                              /* entries */
    bool failed;                        /* out of memory */
};

__attribute__((format(printf, 3, 4)))
static void
envb_add(struct envb *e, const char *name, const char *fmt, ...)
{
    char *value = NULL, *s = NULL;
    va_list ap;
    int rc;

    if (e->n >= HOOK_ENV_MAX) {
        e->failed = true;
        return;
    }
    va_start(ap, fmt);
    rc = vasprintf(&value, fmt, ap);
    va_end(ap);
    if (rc < 0 || asprintf(&s, "%s=%s", name, value) < 0) {
        free(value);
        e->failed = true;
        return;
    }
    free(value);
    e->v[e->n++] = s;
    e->v[e->n] = NULL;
}

static void
envb_free(struct envb *e)
{
    int i;

    for (i = 0; i < e->n; i++)
        free(e->v[i]);
    e->n = 0;
    e->v[0] = NULL;
}

/* The variables every hook gets. */
static void
envb_common(struct envb *e, const struct zkd *d, const char *hook, const char *event)
{
    envb_add(e, "ZKELECT_HOOK", "%s", hook);
    envb_add(e, "ZKELECT_EVENT", "%s", event);
    envb_add(e, "ZKELECT_NODE_ID", "%s", d->boot.node_id);
    envb_add(e, "ZKELECT_SITE", "%s", d->boot.site);
    envb_add(e, "ZKELECT_GROUP", "%s", d->boot.path);
}

/*
 * "NAME (epoch E)", or "NAME (slot K, epoch E)" in a group with N > 1
 * leaders (or for a slot above 0): what the log lines about a job start
 * with.
 */
static void
job_what(char *buf, size_t len, struct zkd *d, const char *name, int slot, uint64_t epoch)
{
    if (slot > 0 || zkd_leaders(d) > 1)
        snprintf(buf, len, "%s (slot %d, epoch %llu)", name, slot,
            (unsigned long long)epoch);
    else
        snprintf(buf, len, "%s (epoch %llu)", name, (unsigned long long)epoch);
}

/* A copy of the hook's path and the timeout, from the live configuration. */
static char *
hook_path(struct zkd *d, enum zkd_hook which, int *timeout_ms)
{
    const char *p;
    char *copy = NULL;

    pthread_mutex_lock(&d->mu);
    p = which == ZKD_HOOK_TAKEOVER ? d->live->hook_takeover :
        which == ZKD_HOOK_STEPDOWN ? d->live->hook_stepdown : d->live->hook_notify;
    if (p != NULL)
        copy = strdup(p);
    if (timeout_ms != NULL)
        *timeout_ms = d->live->hook_timeout_ms;
    pthread_mutex_unlock(&d->mu);
    if (p != NULL && copy == NULL)
        log_warnx("%s hook: out of memory", hook_names[which]);
    return copy;
}

static bool
hook_configured(struct zkd *d, enum zkd_hook which)
{
    bool set;

    pthread_mutex_lock(&d->mu);
    set = (which == ZKD_HOOK_TAKEOVER ? d->live->hook_takeover :
        which == ZKD_HOOK_STEPDOWN ? d->live->hook_stepdown :
        d->live->hook_notify) != NULL;
    pthread_mutex_unlock(&d->mu);
    return set;
}

/* Run one hook (SIGTERM..SIGKILL grace grace_ms); count and log the outcome.
   0 when it exited 0. */
static int
hook_run_grace(struct zkd *d, enum zkd_hook which, const char *path, int timeout_ms,
    int grace_ms, char *const env[], const int *cancel, int ncancel, const char *what,
    struct proc_result *r)
{
    const char *argv[2] = { path, NULL };
    char desc[160];
    int rc;

    log_debug("%s: running %s", what, path);
    rc = proc_run_grace(argv, (const char *const *)env, timeout_ms, grace_ms, cancel,
        ncancel, r);
    pthread_mutex_lock(&d->mu);
    if (r->started || r->spawn_err != 0)
        d->hook_runs[which]++;
    if (rc != 0 && !r->canceled)
        d->hook_failures[which]++;
    pthread_mutex_unlock(&d->mu);
    proc_describe(r, desc, sizeof(desc));
    if (rc == 0) {
        log_info("%s: %s succeeded (%s)", what, path, desc);
        proc_log_tail(r, LOG_DEBUG, what);
    } else if (r->canceled) {
        log_notice("%s: %s %s", what, path, desc);
    } else {
        log_warnx("%s: %s failed: %s", what, path, desc);
        proc_log_tail(r, LOG_WARNING, what);
    }
    return rc;
}

/* hook_run_grace() with the usual grace, PROC_GRACE_MS. */
static int
hook_run(struct zkd *d, enum zkd_hook which, const char *path, int timeout_ms,
    char *const env[], const int *cancel, int ncancel, const char *what,
    struct proc_result *r)
{
    return hook_run_grace(d, which, path, timeout_ms, PROC_GRACE_MS, env, cancel,
        ncancel, what, r);
}

/* ------------------------------------------------------------------------ */
/* Leadership worker                                                        */
/* ------------------------------------------------------------------------ */

static void
job_free(struct job *j)
{
    if (j == NULL)
        return;
    free(j->reason);
    free(j->previous);
    free(j);
}

/* Queue a job (hk->mu held). */
static void
job_push(struct zkd_hooks *hk, struct job *j)
{
    j->next = NULL;
    if (hk->tail != NULL)
        hk->tail->next = j;
    else
        hk->head = j;
    hk->tail = j;
    pthread_cond_broadcast(&hk->cv);
}

static struct job *
job_new(enum job_kind kind, uint64_t epoch, int slot, const char *event, const char *reason,
    const char *previous)
{
    struct job *j = calloc(1, sizeof(*j));

    if (j == NULL)
        return NULL;
    j->kind = kind;
    j->epoch = epoch;
    j->slot = slot;
    j->queued_ms = proc_now_ms();
    j->event = event;
    j->reason = strdup(reason != NULL ? reason : "");
    j->previous = strdup(previous != NULL ? previous : "");
    if (j->reason == NULL || j->previous == NULL) {
        job_free(j);
        return NULL;
    }
    return j;
}

/* Is a takeover job of epoch queued (hk->mu held)? */
static bool
job_queued_takeover(const struct zkd_hooks *hk, uint64_t epoch)
{
    const struct job *j;

    for (j = hk->head; j != NULL; j = j->next)
        if (j->kind == JOB_TAKEOVER && j->epoch == epoch)
            return true;
    return false;
}

/* No takeover of epoch may run any more (hk->mu held). */
static void
cancel_takeover_locked(struct zkd_hooks *hk, uint64_t epoch)
{
    uint64_t one = 1;

    hk->canceled_epoch = epoch;
    if (hk->ok_epoch == epoch)
        hk->ok_epoch = 0;
    if (hk->running_takeover == epoch && write(hk->cancel_fd, &one, sizeof(one)) == -1)
        log_warn("takeover hook: cannot signal the cancel");
}

static void
drain_fd(int fd)
{
    uint64_t v;

    while (read(fd, &v, sizeof(v)) > 0)
        ;
}

static zkelect_group_t *
hooks_group(struct zkd *d)
{
    zkelect_group_t *g;

    pthread_mutex_lock(&d->mu);
    g = d->g;
    pthread_mutex_unlock(&d->mu);
    return g;
}

/*
 * The supervised command's part of a step-down (supervise.c): stop it first,
 * SIGKILL at the latest when the budget ends. Returns the end of the
 * step-down budget D ([hooks] stepdown_timeout_ms, as the library was given
 * it) counted from when the library asked for the step-down (the job was
 * queued), or from now.
 */
static uint64_t
stepdown_stop_command(struct zkd_hooks *hk, uint64_t epoch, int slot)
{
    uint64_t since = hk->job_since_ms != 0 ? hk->job_since_ms : proc_now_ms();
    uint64_t end = since + (uint64_t)hk->d->boot.stepdown_timeout_ms;
    char what[64];

    job_what(what, sizeof(what), hk->d, "step-down", slot, epoch);
    supervise_stop(hk->d, what, end);
    return end;
}

/*
 * The stepdown hook's timeout and SIGTERM..SIGKILL grace within what is left
 * of the budget (at least 1 ms: it still runs, and is killed at once): the
 * grace is a quarter of it, at most PROC_GRACE_MS.
 */
static int
stepdown_hook_budget(uint64_t budget_end, int *grace_ms)
{
    uint64_t now = proc_now_ms();
    int left = budget_end > now ? (int)(budget_end - now) : 1;

    *grace_ms = left / 4 < PROC_GRACE_MS ? left / 4 : PROC_GRACE_MS;
    return left - *grace_ms > 0 ? left - *grace_ms : 1;
}

/* Run the stepdown hook if a takeover is active; then done if asked. */
static void
run_stepdown(struct zkd_hooks *hk, uint64_t epoch, int slot, const char *event,
    const char *reason, const char *previous, bool call_done)
{
    struct zkd *d = hk->d;
    struct proc_result r;
    struct envb e = { .n = 0 };
    char what[96], *path;
    uint64_t active, budget_end;
    int timeout_ms, grace_ms, rc;

    pthread_mutex_lock(&hk->mu);
    active = hk->active_epoch;
    /* the slot of the takeover being undone is the one its hook was given
       (the library's may be unknown by now: -1) */
    if (active != 0 && (slot < 0 || active == epoch))
        slot = hk->active_slot;
    hk->active_epoch = 0;
    hk->ok_epoch = 0;
    pthread_mutex_unlock(&hk->mu);
    if (slot < 0)
        slot = 0;

    job_what(what, sizeof(what), d, "stepdown hook", slot, epoch);
    budget_end = stepdown_stop_command(hk, epoch, slot);
    if (active == 0) {
        log_debug("%s: nothing to undo (no takeover since the last step-down)", what);
    } else if ((path = hook_path(d, ZKD_HOOK_STEPDOWN, &timeout_ms)) != NULL) {
        envb_common(&e, d, "stepdown", event);
        envb_add(&e, "ZKELECT_EPOCH", "%llu", (unsigned long long)epoch);
        envb_add(&e, "ZKELECT_SLOT", "%d", slot);
        envb_add(&e, "ZKELECT_PREVIOUS", "%s", previous);
        envb_add(&e, "ZKELECT_REASON", "%s", reason);
        envb_add(&e, "ZKELECT_LEADER", "%s", d->boot.node_id);
        if (e.failed) {
            log_warnx("%s: out of memory; not run", what);
        } else {
            timeout_ms = stepdown_hook_budget(budget_end, &grace_ms);
            rc = hook_run_grace(d, ZKD_HOOK_STEPDOWN, path, timeout_ms, grace_ms, e.v,
                NULL, 0, what, &r);
            if (rc != 0 && !r.canceled)
                log_warnx("%s failed: stepping down anyway", what);
        }
        envb_free(&e);
        free(path);
    }
    if (active != 0)
        state_inactive(d);              /* the service is stopped: say so */
    if (call_done) {
        rc = zkelect_stepdown_done(hooks_group(d), epoch);
        if (rc != 0)
            log_warnx("%s: zkelect_stepdown_done: %s", what, zkelect_strerror(rc));
    }
}

/*
 * The supervised command's part of a takeover, once the takeover hook has
 * succeeded (or there is none): start [leader] command with the hooks'
 * environment and wait until it is ready (supervise.c). 0 (started, or none
 * configured), 1 (canceled) or -1 (failed: why; the command is stopped).
 */
static int
takeover_start_command(struct zkd_hooks *hk, const struct job *j, char *why,
    size_t whylen)
{
    struct zkd *d = hk->d;
    struct envb e = { .n = 0 };
    int rc;

    if (!supervise_configured(d))
        return 0;
    envb_common(&e, d, "command", j->event);
    envb_add(&e, "ZKELECT_EPOCH", "%llu", (unsigned long long)j->epoch);
    envb_add(&e, "ZKELECT_SLOT", "%d", j->slot);
    envb_add(&e, "ZKELECT_PREVIOUS", "%s", j->previous);
    envb_add(&e, "ZKELECT_REASON", "%s", j->reason);
    envb_add(&e, "ZKELECT_LEADER", "%s", d->boot.node_id);
    if (e.failed) {
        snprintf(why, whylen, "leader command: out of memory; not started");
        rc = -1;
    } else
        rc = supervise_start(d, j->epoch, j->slot, e.v, hk->cancel_fd, why, whylen);
    envb_free(&e);
    return rc;
}

static void
run_takeover(struct zkd_hooks *hk, const struct job *j)
{
    struct zkd *d = hk->d;
    struct proc_result r;
    struct envb e = { .n = 0 };
    char what[96], desc[160], reason[256], *path;
    int timeout_ms, rc, err;

    job_what(what, sizeof(what), d, "takeover hook", j->slot, j->epoch);
    reason[0] = '\0';
    pthread_mutex_lock(&hk->mu);
    if (hk->canceled_epoch == j->epoch || hk->lstop) {
        pthread_mutex_unlock(&hk->mu);
        log_notice("%s: not run: leadership of this epoch ended before it started",
            what);
        return;
    }
    hk->active_epoch = j->epoch;
    hk->active_slot = j->slot;
    hk->running_takeover = j->epoch;
    drain_fd(hk->cancel_fd);
    pthread_mutex_unlock(&hk->mu);
    state_active(d, j->epoch, j->slot); /* on disk before anything starts */

    rc = 0;
    memset(&r, 0, sizeof(r));
    if ((path = hook_path(d, ZKD_HOOK_TAKEOVER, &timeout_ms)) != NULL) {
        envb_common(&e, d, "takeover", j->event);
        envb_add(&e, "ZKELECT_EPOCH", "%llu", (unsigned long long)j->epoch);
        envb_add(&e, "ZKELECT_SLOT", "%d", j->slot);
        envb_add(&e, "ZKELECT_PREVIOUS", "%s", j->previous);
        envb_add(&e, "ZKELECT_PREVIOUS_HOST", "%s", j->previous_host);
        envb_add(&e, "ZKELECT_REASON", "%s", j->reason);
        envb_add(&e, "ZKELECT_LEADER", "%s", d->boot.node_id);
        if (e.failed) {
            log_warnx("%s: out of memory; not run", what);
            rc = -1;
            r.spawn_err = ENOMEM;
        } else {
            /* a step-down cancels it: its SIGTERM..SIGKILL grace comes out of
               the step-down's budget D, so it gets a quarter of D at most */
            int grace_ms = d->boot.stepdown_timeout_ms / 4;

            if (grace_ms > PROC_GRACE_MS)
                grace_ms = PROC_GRACE_MS;
            if (grace_ms < 10)
                grace_ms = 10;
            rc = hook_run_grace(d, ZKD_HOOK_TAKEOVER, path, timeout_ms, grace_ms, e.v,
                &hk->cancel_fd, 1, what, &r);
        }
        envb_free(&e);
        free(path);
    }

    if (rc == 0 && (rc = takeover_start_command(hk, j, reason, sizeof(reason))) == 1)
        r.canceled = true;              /* a step-down canceled the readiness wait */

    pthread_mutex_lock(&hk->mu);
    hk->running_takeover = 0;
    if (rc == 0)
        hk->ok_epoch = j->epoch;
    pthread_mutex_unlock(&hk->mu);

    if (rc == 0) {
        if ((err = zkelect_takeover_done(hooks_group(d), j->epoch, 0)) != 0)
            log_warnx("%s: zkelect_takeover_done: %s", what, zkelect_strerror(err));
        return;
    }
    if (r.canceled)
        return;                         /* the step-down that canceled it follows */
    err = r.timed_out ? ZKELECT_ETIMEDOUT : ZKELECT_EIO;
    log_warnx("%s: takeover failed (%s): giving up epoch %llu (the library steps "
        "down, then the elector's watchdog elects another node)", what,
        reason[0] != '\0' ? reason : proc_describe(&r, desc, sizeof(desc)),
        (unsigned long long)j->epoch);
    /* the library now calls on_stepdown itself: the stepdown hook undoes what
       the takeover did, before the leader znode goes */
    if ((rc = zkelect_takeover_done(hooks_group(d), j->epoch, err)) != 0)
        log_warnx("%s: zkelect_takeover_done: %s", what, zkelect_strerror(rc));
}

static void *
leadership_main(void *arg)
{
    struct zkd_hooks *hk = arg;
    struct job *j;

    for (;;) {
        pthread_mutex_lock(&hk->mu);
        while (hk->head == NULL && !hk->lstop)
            pthread_cond_wait(&hk->cv, &hk->mu);
        if ((j = hk->head) == NULL) {
            pthread_mutex_unlock(&hk->mu);
            break;
        }
        hk->head = j->next;
        if (hk->head == NULL)
            hk->tail = NULL;
        hk->busy = true;
        pthread_mutex_unlock(&hk->mu);

        hk->job_since_ms = j->queued_ms;
        if (j->kind == JOB_TAKEOVER)
            run_takeover(hk, j);
        else
            run_stepdown(hk, j->epoch, j->slot, j->event, j->reason, j->previous,
                j->call_done);
        hk->job_since_ms = 0;
        job_free(j);

        pthread_mutex_lock(&hk->mu);
        hk->busy = false;
        pthread_cond_broadcast(&hk->cv);
        pthread_mutex_unlock(&hk->mu);
    }
    /* no command outlives its worker (PR_SET_PDEATHSIG would kill it when
       this thread exits: stopped properly here, and reaped) */
    supervise_stop(hk->d, "zkelectd stopping", 0);
    return NULL;
}

/* ------------------------------------------------------------------------ */
/* Library callbacks (library thread, library lock held: never block)      */
/* ------------------------------------------------------------------------ */

/* No takeover hook and no command: a takeover has nothing to wait for, and
   the library may send READY together with PROGRESS. */
bool
hooks_takeover_noop(struct zkd *d)
{
    return !hook_configured(d, ZKD_HOOK_TAKEOVER) && !supervise_configured(d);
}

int
hooks_on_takeover(void *data, zkelect_group_t *g, uint64_t epoch)
{
    struct zkd *d = data;
    struct zkd_hooks *hk = d->hooks;
    struct zkelect_leader l;
    char previous[sizeof(l.previous)], what[96];
    struct job *j;
    int slot;

    /* the decision that elected us: who led before, and why (the decision
       names slot 0's previous leader; a slot above 0's is the one this
       daemon last saw in it) */
    memset(&l, 0, sizeof(l));
    (void)zkelect_get_leader(g, &l);
    if ((slot = zkelect_group_slot(g)) < 0)
        slot = 0;
    if (slot == 0)
        snprintf(previous, sizeof(previous), "%s", l.previous);
    else
        events_slot_previous(d, slot, previous, sizeof(previous));
    job_what(what, sizeof(what), d, "takeover", slot, epoch);

    pthread_mutex_lock(&hk->mu);
    if (hk->lstop || !hk->lstarted) {
        pthread_mutex_unlock(&hk->mu);
        log_warnx("%s refused: zkelectd is stopping", what);
        return ZKELECT_ECANCELED;
    }
    if (hk->canceled_epoch == epoch)
        hk->canceled_epoch = 0;         /* re-verified after a reconnect */
    if (hk->ok_epoch == epoch) {
        /* again after a reconnect: the hook already succeeded for it */
        pthread_mutex_unlock(&hk->mu);
        log_info("%s: the takeover hook already succeeded", what);
        return ZKELECT_OK;
    }
    if (hk->running_takeover == epoch || job_queued_takeover(hk, epoch)) {
        pthread_mutex_unlock(&hk->mu);
        return ZKELECT_EBUSY;           /* that run calls zkelect_takeover_done */
    }
    if (!hook_configured(d, ZKD_HOOK_TAKEOVER) && !supervise_configured(d) && !hk->busy &&
        hk->head == NULL) {
        hk->active_epoch = epoch;
        hk->active_slot = slot;
        hk->ok_epoch = epoch;
        pthread_mutex_unlock(&hk->mu);
        state_active(d, epoch, slot);
        log_debug("%s: no takeover hook, done at once", what);
        return ZKELECT_OK;
    }
    if ((j = job_new(JOB_TAKEOVER, epoch, slot, "+takeover", l.reason, previous)) == NULL) {
        pthread_mutex_unlock(&hk->mu);
        log_warnx("%s: out of memory", what);
        return ZKELECT_ENOMEM;
    }
    /* the leader before: where to fence it, if its record said */
    if (*previous != '\0')
        (void)zkelect_get_node_host(g, previous, j->previous_host,
            sizeof(j->previous_host));
    job_push(hk, j);
    pthread_mutex_unlock(&hk->mu);
    return ZKELECT_EBUSY;
}

int
hooks_on_stepdown(void *data, zkelect_group_t *g, uint64_t epoch)
{
    struct zkd *d = data;
    struct zkd_hooks *hk = d->hooks;
    struct zkelect_leader l;
    const char *event;
    char why[256], what[96];
    struct job *j;
    int slot;

    memset(&l, 0, sizeof(l));
    (void)zkelect_get_leader(g, &l);
    slot = zkelect_group_slot(g);       /* -1: the slot of the takeover (worker) */
    job_what(what, sizeof(what), d, "step-down", slot < 0 ? 0 : slot, epoch);
    if (slot > 0)                       /* the decision's previous is slot 0's */
        events_slot_previous(d, slot, l.previous, sizeof(l.previous));
    /* the -stepdown or -takeover-abort event that came just before */
    pthread_mutex_lock(&d->mu);
    snprintf(why, sizeof(why), "%s", d->stepdown_why);
    event = d->stepdown_event != NULL ? d->stepdown_event : "-stepdown";
    pthread_mutex_unlock(&d->mu);

    pthread_mutex_lock(&hk->mu);
    cancel_takeover_locked(hk, epoch);
    if (!hk->lstarted || (!hook_configured(d, ZKD_HOOK_STEPDOWN) &&
        !supervise_running(d) && !hk->busy && hk->head == NULL)) {
        bool undone = hk->lstarted || !hook_configured(d, ZKD_HOOK_STEPDOWN);

        hk->active_epoch = 0;
        pthread_mutex_unlock(&hk->mu);
        if (undone)                     /* hooks stopped: the next start runs it */
            state_inactive(d);
        log_debug("%s: no stepdown hook, done at once", what);
        return ZKELECT_OK;
    }
    if ((j = job_new(JOB_STEPDOWN, epoch, slot, event, why, l.previous)) == NULL) {
        hk->active_epoch = 0;
        pthread_mutex_unlock(&hk->mu);
        log_warnx("%s: out of memory; stepdown hook not run", what);
        return ZKELECT_OK;
    }
    j->call_done = true;
    job_push(hk, j);
    pthread_mutex_unlock(&hk->mu);
    return ZKELECT_EBUSY;
}

void
hooks_leadership_lost(struct zkd *d, uint64_t epoch, int slot, const char *detail)
{
    struct zkd_hooks *hk = d->hooks;
    char why[256];
    struct job *j;

    snprintf(why, sizeof(why), "leadership lost: %s", detail);
    pthread_mutex_lock(&hk->mu);
    cancel_takeover_locked(hk, epoch);
    if (!hk->lstarted || hk->lstop || (hk->active_epoch == 0 && !hk->busy &&
        hk->head == NULL)) {
        hk->active_epoch = 0;
        pthread_mutex_unlock(&hk->mu);
        return;
    }
    if ((j = job_new(JOB_STEPDOWN, epoch, slot, "-leadership-lost", why, "")) == NULL) {
        pthread_mutex_unlock(&hk->mu);
        log_warnx("leadership of epoch %llu lost: out of memory; stepdown hook "
            "not run", (unsigned long long)epoch);
        return;
    }
    job_push(hk, j);
    pthread_mutex_unlock(&hk->mu);
}

/* ------------------------------------------------------------------------ */
/* Notify workers                                                           */
/* ------------------------------------------------------------------------ */

static void
njob_free(struct njob *n)
{
    int i;

    if (n == NULL)
        return;
    for (i = 0; n->env[i] != NULL; i++)
        free(n->env[i]);
    free(n);
}

void
hooks_notify(struct zkd *d, const struct zkelect_event *ev)
{
    struct zkd_hooks *hk = d->hooks;
    struct zkelect_leader l;
    struct zkelect_slot sl[ZKD_SLOTS_MAX];
    struct envb e = { .n = 0 };
    struct njob *n;
    zkelect_group_t *g;
    bool dropped = false;
    int i;

    if (hk == NULL || !hook_configured(d, ZKD_HOOK_NOTIFY))
        return;
    memset(&l, 0, sizeof(l));
    if ((g = hooks_group(d)) != NULL)
        (void)zkelect_get_leader(g, &l);
    /* an event about a slot above 0: that slot's leader, status and previous */
    if (g != NULL && ev->slot > 0 && ev->slot < ZKD_SLOTS_MAX &&
        zkelect_get_leaders(g, sl, ZKD_SLOTS_MAX) > ev->slot) {
        snprintf(l.id, sizeof(l.id), "%s", sl[ev->slot].id);
        l.status = sl[ev->slot].status;
        events_slot_previous(d, ev->slot, l.previous, sizeof(l.previous));
    }
    envb_common(&e, d, "notify", ev->name);
    envb_add(&e, "ZKELECT_SUBJECT", "%s", ev->node != NULL ? ev->node : "");
    envb_add(&e, "ZKELECT_EPOCH", "%llu", (unsigned long long)ev->epoch);
    envb_add(&e, "ZKELECT_SLOT", "%d", ev->slot);
    envb_add(&e, "ZKELECT_LEADER", "%s", l.id);
    envb_add(&e, "ZKELECT_STATUS", "%s", zkelect_status_name(ev->type ==
        ZKELECT_EV_LEADER_CHANGED ? ev->status : l.status));
    envb_add(&e, "ZKELECT_PREVIOUS", "%s", l.previous);
    envb_add(&e, "ZKELECT_REASON", "%s", ev->detail != NULL ? ev->detail : "");
    if (e.failed || (n = calloc(1, sizeof(*n))) == NULL) {
        envb_free(&e);
        log_warnx("notify hook for %s: out of memory; not run", ev->name);
        return;
    }
    for (i = 0; i < e.n; i++)
        n->env[i] = e.v[i];
    n->env[i] = NULL;
    snprintf(n->event, sizeof(n->event), "%s", ev->name);

    pthread_mutex_lock(&hk->mu);
    if (hk->nstop || hk->nstarted == 0 || hk->nqueued >= NOTIFY_QUEUE_MAX) {
        dropped = true;
    } else {
        if (hk->ntail != NULL)
            hk->ntail->next = n;
        else
            hk->nhead = n;
        hk->ntail = n;
        hk->nqueued++;
        pthread_cond_broadcast(&hk->cv);
    }
    pthread_mutex_unlock(&hk->mu);
    if (dropped) {
        pthread_mutex_lock(&d->mu);
        d->notify_dropped++;
        pthread_mutex_unlock(&d->mu);
        log_warnx("notify hook for %s not run: %d runs already queued or stopping",
            n->event, NOTIFY_QUEUE_MAX);
        njob_free(n);
    }
}

static void *
notify_main(void *arg)
{
    struct zkd_hooks *hk = arg;
    struct zkd *d = hk->d;
    struct proc_result r;
    struct njob *n;
    char what[96], *path;
    int timeout_ms;

    for (;;) {
        pthread_mutex_lock(&hk->mu);
        while (hk->nhead == NULL && !hk->nstop)
            pthread_cond_wait(&hk->cv, &hk->mu);
        if ((n = hk->nhead) == NULL) {
            hk->nrunning--;
            pthread_cond_broadcast(&hk->cv);
            pthread_mutex_unlock(&hk->mu);
            break;
        }
        hk->nhead = n->next;
        if (hk->nhead == NULL)
            hk->ntail = NULL;
        hk->nqueued--;
        pthread_mutex_unlock(&hk->mu);

        if ((path = hook_path(d, ZKD_HOOK_NOTIFY, &timeout_ms)) != NULL) {
            snprintf(what, sizeof(what), "notify hook (%s)", n->event);
            (void)hook_run(d, ZKD_HOOK_NOTIFY, path, timeout_ms, n->env, &hk->nstop_fd,
                1, what, &r);
            free(path);
        }
        njob_free(n);
    }
    return NULL;
}

/* ------------------------------------------------------------------------ */
/* Start and stop                                                           */
/* ------------------------------------------------------------------------ */

int
hooks_check_program(const char *path, char *why, size_t whylen)
{
    struct stat st;

    if (stat(path, &st) == -1) {
        snprintf(why, whylen, "%s: %s", path, strerror(errno));
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(why, whylen, "%s: not a regular file", path);
        return -1;
    }
    if (access(path, X_OK) == -1) {
        snprintf(why, whylen, "%s: not executable: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

int
hooks_start(struct zkd *d)
{
    struct zkd_hooks *hk;
    pthread_condattr_t ca;
    int i, rc;

    if ((hk = calloc(1, sizeof(*hk))) == NULL) {
        log_warnx("hooks: out of memory");
        return -1;
    }
    hk->d = d;
    hk->cancel_fd = hk->nstop_fd = -1;
    pthread_mutex_init(&hk->mu, NULL);
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&hk->cv, &ca);
    pthread_condattr_destroy(&ca);
    d->hooks = hk;
    if ((hk->cancel_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) == -1 ||
        (hk->nstop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) == -1) {
        log_warn("hooks: eventfd");
        return -1;
    }
    if ((rc = pthread_create(&hk->lthread, NULL, leadership_main, hk)) != 0) {
        log_warnx("hooks: cannot start a thread: %s", strerror(rc));
        return -1;
    }
    hk->lstarted = true;
    for (i = 0; i < NOTIFY_WORKERS; i++) {
        if ((rc = pthread_create(&hk->nthreads[i], NULL, notify_main, hk)) != 0) {
            log_warnx("hooks: cannot start a thread: %s", strerror(rc));
            return -1;
        }
        pthread_mutex_lock(&hk->mu);
        hk->nstarted++;
        hk->nrunning++;
        pthread_mutex_unlock(&hk->mu);
    }
    return 0;
}

void
hooks_stop_leadership(struct zkd *d)
{
    struct zkd_hooks *hk = d->hooks;
    uint64_t one = 1;

    if (hk == NULL || !hk->lstarted)
        return;
    pthread_mutex_lock(&hk->mu);
    hk->lstop = true;
    pthread_cond_broadcast(&hk->cv);
    pthread_mutex_unlock(&hk->mu);
    /* a takeover still running is pointless now: cancel it */
    if (write(hk->cancel_fd, &one, sizeof(one)) == -1)
        log_warn("hooks: cannot cancel the takeover hook");
    pthread_join(hk->lthread, NULL);
    hk->lstarted = false;
}

void
hooks_stop_notify(struct zkd *d, int grace_ms)
{
    struct zkd_hooks *hk = d->hooks;
    struct timespec ts;
    struct njob *n;
    uint64_t one = 1;
    int i;

    if (hk == NULL || hk->nstarted == 0)
        return;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    ts.tv_sec += grace_ms / 1000;
    ts.tv_nsec += (long)(grace_ms % 1000) * 1000000L;
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&hk->mu);
    hk->nstop = true;
    pthread_cond_broadcast(&hk->cv);
    while (hk->nrunning > 0)
        if (pthread_cond_timedwait(&hk->cv, &hk->mu, &ts) != 0)
            break;
    if (hk->nrunning > 0) {
        /* out of patience: drop what is queued, kill what runs */
        while ((n = hk->nhead) != NULL) {
            hk->nhead = n->next;
            njob_free(n);
        }
        hk->ntail = NULL;
        hk->nqueued = 0;
        if (write(hk->nstop_fd, &one, sizeof(one)) == -1)
            log_warn("hooks: cannot cancel the notify hooks");
    }
    pthread_mutex_unlock(&hk->mu);
    for (i = 0; i < hk->nstarted; i++)
        pthread_join(hk->nthreads[i], NULL);
    hk->nstarted = 0;
}

void
hooks_free(struct zkd *d)
{
    struct zkd_hooks *hk = d->hooks;
    struct job *j;

    if (hk == NULL)
        return;
    hooks_stop_leadership(d);
    hooks_stop_notify(d, 0);
    while ((j = hk->head) != NULL) {
        hk->head = j->next;
        job_free(j);
    }
    if (hk->cancel_fd >= 0)
        close(hk->cancel_fd);
    if (hk->nstop_fd >= 0)
        close(hk->nstop_fd);
    pthread_mutex_destroy(&hk->mu);
    pthread_cond_destroy(&hk->cv);
    free(hk);
    d->hooks = NULL;
}
