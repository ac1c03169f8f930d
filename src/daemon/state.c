/*
 * state.c - what zkelectd records in its state file (statefile.h) and what a
 * restart does with it.
 *
 * A zkelectd killed with SIGKILL cannot run its stepdown hook, and a service
 * that the takeover hook started outside zkelectd keeps running. Its session
 * keeps its znodes until ZooKeeper expires it. So the file says, at every
 * moment, whether the service may be active (set BEFORE the takeover hook
 * starts, cleared only AFTER the stepdown hook ended) and which session
 * holds the znodes. The next start undoes the first (stepdown hook) and ends
 * the second (zkelect_end_session) before it joins again.
 *
 * Writes are serialized by state_mu (held across the write, so the file
 * always holds the latest state), from the library thread and the
 * leadership worker. state_mu is taken after the hooks' lock, never before;
 * nothing here calls into the library with it held.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "log.h"
#include "proc.h"
#include "statefile.h"
#include "zkelectd.h"

static pthread_mutex_t state_mu = PTHREAD_MUTEX_INITIALIZER;
static struct zkd_state state_cur;      /* (state_mu) what the file should say */
static const char *state_dir;           /* (state_mu) d->boot.state_dir; NULL: not yet */
static uint64_t state_failures;         /* (state_mu) writes that failed */

/* Write state_cur (state_mu held). */
static void
state_write_locked(const char *why)
{
    char err[600];

    if (state_dir == NULL)
        return;
    if (statefile_write(state_dir, &state_cur, err, sizeof(err)) != 0) {
        state_failures++;
        log_emit(LOG_ERR, "state file NOT written (%s): %s; a restart after a crash "
            "will not know the service state", why, err);
        return;
    }
    log_debug("state file written (%s): active=%d epoch %" PRIu64 " slot %d, session 0x%"
        PRIx64, why, state_cur.active, state_cur.epoch, state_cur.slot,
        (uint64_t)state_cur.session);
}

static void
state_init_locked(const struct zkd *d)
{
    if (state_dir != NULL)
        return;
    memset(&state_cur, 0, sizeof(state_cur));
    state_cur.version = ZKD_STATE_VERSION;
    snprintf(state_cur.node, sizeof(state_cur.node), "%s", d->boot.node_id);
    snprintf(state_cur.group, sizeof(state_cur.group), "%s", d->boot.path);
    state_cur.timeout_ms = d->boot.session_timeout_ms;
    state_dir = d->boot.state_dir;
}

void
state_active(struct zkd *d, uint64_t epoch, int slot)
{
    pthread_mutex_lock(&state_mu);
    state_init_locked(d);
    if (state_cur.active != 1 || state_cur.epoch != epoch || state_cur.slot != slot) {
        state_cur.active = 1;
        state_cur.epoch = epoch;
        state_cur.slot = slot;
        state_write_locked("takeover starts");
    }
    pthread_mutex_unlock(&state_mu);
}

void
state_inactive(struct zkd *d)
{
    pthread_mutex_lock(&state_mu);
    state_init_locked(d);
    if (state_cur.active != 0) {
        state_cur.active = 0;
        state_write_locked("step-down ended");
    }
    pthread_mutex_unlock(&state_mu);
}

void
state_session(struct zkd *d)
{
    unsigned char pw[16];
    zkelect_t *h;
    int64_t id;
    int len;

    pthread_mutex_lock(&d->mu);
    h = d->h;
    pthread_mutex_unlock(&d->mu);
    if (h == NULL || zkelect_get_session(h, &id, pw, &len) != 0)
        return;
    pthread_mutex_lock(&state_mu);
    state_init_locked(d);
    if (state_cur.session != id || state_cur.passwd_len != len ||
        memcmp(state_cur.passwd, pw, (size_t)len) != 0) {
        state_cur.session = id;
        memcpy(state_cur.passwd, pw, (size_t)len);
        state_cur.passwd_len = len;
        state_write_locked("new session");
    }
    pthread_mutex_unlock(&state_mu);
    explicit_bzero(pw, sizeof(pw));
}

uint64_t
state_write_failures(void)
{
    uint64_t n;

    pthread_mutex_lock(&state_mu);
    n = state_failures;
    pthread_mutex_unlock(&state_mu);
    return n;
}

/* The stepdown hook for what the previous process left active (in slot). */
static void
state_restart_stepdown(struct zkd *d, uint64_t epoch, int slot)
{
    char *env[11], what[112], desc[160];
    const char *argv[2] = { d->boot.hook_stepdown, NULL };
    struct proc_result r;
    int i, n = 0, rc;

    if (slot != 0)
        snprintf(what, sizeof(what), "stepdown hook after a restart (slot %d, epoch %"
            PRIu64 ")", slot, epoch);
    else
        snprintf(what, sizeof(what), "stepdown hook after a restart (epoch %" PRIu64 ")",
            epoch);
    if (d->boot.hook_stepdown == NULL) {
        log_notice("%s: no stepdown hook configured: nothing to run", what);
        return;
    }
    if (asprintf(&env[n++], "ZKELECT_HOOK=stepdown") < 0 ||
        asprintf(&env[n++], "ZKELECT_EVENT=-restart") < 0 ||
        asprintf(&env[n++], "ZKELECT_NODE_ID=%s", d->boot.node_id) < 0 ||
        asprintf(&env[n++], "ZKELECT_SITE=%s", d->boot.site) < 0 ||
        asprintf(&env[n++], "ZKELECT_GROUP=%s", d->boot.path) < 0 ||
        asprintf(&env[n++], "ZKELECT_EPOCH=%" PRIu64, epoch) < 0 ||
        asprintf(&env[n++], "ZKELECT_SLOT=%d", slot) < 0 ||
        asprintf(&env[n++], "ZKELECT_PREVIOUS=") < 0 ||
        asprintf(&env[n++], "ZKELECT_REASON=restart") < 0 ||
        asprintf(&env[n++], "ZKELECT_LEADER=%s", d->boot.node_id) < 0) {
        env[n - 1] = NULL;
        for (i = 0; i < n - 1; i++)
            free(env[i]);
        log_emit(LOG_ERR, "%s: out of memory; not run", what);
        return;
    }
    env[n] = NULL;
    log_notice("%s: the previous zkelectd left the service active: running %s",
        what, d->boot.hook_stepdown);
    /* bounded by the step-down budget: the old session may live on until
       it is closed below, or expire meanwhile and let another node start */
    rc = proc_run(argv, (const char *const *)env, d->boot.stepdown_timeout_ms, NULL, 0, &r);
    pthread_mutex_lock(&d->mu);
    if (r.started || r.spawn_err != 0)
        d->hook_runs[ZKD_HOOK_STEPDOWN]++;
    if (rc != 0)
        d->hook_failures[ZKD_HOOK_STEPDOWN]++;
    pthread_mutex_unlock(&d->mu);
    proc_describe(&r, desc, sizeof(desc));
    if (rc == 0) {
        log_notice("%s: %s succeeded (%s)", what, d->boot.hook_stepdown, desc);
    } else {
        log_emit(LOG_ERR, "%s: %s failed: %s", what, d->boot.hook_stepdown, desc);
        proc_log_tail(&r, LOG_WARNING, what);
    }
    for (i = 0; i < n; i++)
        free(env[i]);
}

void
state_boot(struct zkd *d)
{
    struct zkelect_options o;
    struct zkd_state st;
    enum zkd_state_found found;
    char err[1200];
    int rc;

    pthread_mutex_lock(&state_mu);
    state_init_locked(d);
    pthread_mutex_unlock(&state_mu);
    /* a stepdown hook, then a connection to close the old session: longer
       than the unit's start timeout may allow */
    sdnotify_extend_ms((uint64_t)d->boot.stepdown_timeout_ms + PROC_GRACE_MS +
        (uint64_t)d->boot.connect_timeout_ms + 5000);
    if (statefile_check_dir(d->boot.state_dir, true, err, sizeof(err)) != 0) {
        log_emit(LOG_ERR, "[node] state_dir: %s: the state file cannot be kept", err);
        return;
    }
    found = statefile_read(d->boot.state_dir, d->boot.node_id, d->boot.path, &st, err,
        sizeof(err));
    if (found == ZKD_STATE_NONE) {
        log_info("no state file in %s: a first start", d->boot.state_dir);
    } else if (found == ZKD_STATE_BAD) {
        log_emit(LOG_ERR, "state file refused: %s; %s", err,
            st.active == 0 ? "it says the service was stopped; its session is not "
            "reused" : st.active == 1 ? "it says the service was active: running the "
            "stepdown hook; its session is not reused" : "it does not say whether the "
            "service was stopped: running the stepdown hook to be safe; its session "
            "is not reused");
    } else {
        log_info("state file: active=%d, epoch %" PRIu64 ", slot %d, session 0x%" PRIx64,
            st.active, st.epoch, st.slot, (uint64_t)st.session);
    }
    if (found != ZKD_STATE_NONE && st.active != 0) {
        state_restart_stepdown(d, st.epoch, st.slot);
        pthread_mutex_lock(&state_mu);
        state_cur.active = 1;           /* forces the write */
        pthread_mutex_unlock(&state_mu);
        state_inactive(d);
    }
    if (found != ZKD_STATE_OK || st.session == 0)
        goto out;
    memset(&o, 0, sizeof(o));
    o.size = sizeof(o);
    o.hosts = d->boot.zk_hosts;
    o.session_timeout_ms = d->boot.session_timeout_ms;
    o.connect_timeout_ms = d->boot.connect_timeout_ms;
    o.auth_file = d->auth_file;
    o.log = log_library;
    o.log_level = ZKELECT_LOG_DEBUG;
    rc = zkelect_end_session(&o, st.session, st.passwd, st.passwd_len);
    if (rc == 0)
        log_notice("previous session 0x%" PRIx64 " closed: its znodes are gone",
            (uint64_t)st.session);
    else if (rc == ZKELECT_EEXPIRED)
        log_notice("previous session 0x%" PRIx64 " already expired (or its password "
            "was refused)", (uint64_t)st.session);
    else
        log_warnx("previous session 0x%" PRIx64 " could not be closed: %s; its znodes "
            "stay until ZooKeeper expires it", (uint64_t)st.session, zkelect_strerror(rc));
out:
    explicit_bzero(&st, sizeof(st));
}
