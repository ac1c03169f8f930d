/*
 * sdnotify.c - what zkelectd tells the service manager (sd_notify(3)): READY=1
 * once it has joined the group (Type=notify units), RELOADING=1 and
 * STOPPING=1, EXTEND_TIMEOUT_USEC= while a start or a stop may take longer
 * than the unit's timeout, and one STATUS= line with what the node is doing
 * (who leads, what it waits for) for "systemctl status".
 *
 * Without libsystemd (configure --without-systemd, or not found: then
 * HAVE_LIBSYSTEMD is not defined) every function here does nothing.
 * Outside a service manager (no NOTIFY_SOCKET) sd_notify() does nothing
 * either.
 *
 * The watchdog (WatchdogSec=, sd_watchdog_enabled(3)): one thread sends
 * WATCHDOG=1 every half interval, each time only after zkelect_ping() got
 * through the library thread within a quarter interval. A library thread
 * that is stuck (a deadlock, a callback that never returns) stops the pings,
 * and systemd kills and restarts the daemon; a timer that pinged on its own
 * would keep a stuck election alive for ever. Before the handle exists (the
 * start: state file, session) the pings go out unconditionally: that phase
 * is bounded by its own timeouts.
 *
 * Called from the main thread and from the library thread (sdnotify_event).
 * sd_notify() is one sendmsg(2) and keeps no state; the last line about the
 * group, which READY=1 repeats, is guarded by sdnotify_mu.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>
#include <time.h>

#ifdef HAVE_LIBSYSTEMD
#include <systemd/sd-daemon.h>
#endif

#include "log.h"
#include "zkelectd.h"

#ifdef HAVE_LIBSYSTEMD

/*
 * Send state (e.g. "READY=1", or NULL) and, when fmt is not NULL, STATUS=
 * with the formatted text. The text goes on one line: a newline would start
 * another assignment, so every control character becomes '?'.
 */
void
sdnotify_send(const char *state, const char *fmt, ...)
{
    char status[256], msg[320];
    va_list ap;
    size_t i;

    status[0] = '\0';
    if (fmt != NULL) {
        va_start(ap, fmt);
        vsnprintf(status, sizeof(status), fmt, ap);
        va_end(ap);
        for (i = 0; status[i] != '\0'; i++)
            if ((unsigned char)status[i] < 0x20 || status[i] == 0x7f)
                status[i] = '?';
    }
    snprintf(msg, sizeof(msg), "%s%s%s%s", state != NULL ? state : "",
        state != NULL && fmt != NULL ? "\n" : "", fmt != NULL ? "STATUS=" : "",
        status);
    if (msg[0] != '\0')
        (void)sd_notify(0, msg);
}

void
sdnotify_extend_ms(uint64_t ms)
{
    (void)sd_notifyf(0, "EXTEND_TIMEOUT_USEC=%llu", (unsigned long long)ms * 1000ULL);
}

/* A node id from ZooKeeper (untrusted): what is not an id character is '?'. */
static void
sdnotify_id(char *dst, size_t len, const char *id)
{
    size_t i;

    for (i = 0; i + 1 < len && id[i] != '\0'; i++)
        dst[i] = (id[i] >= 'a' && id[i] <= 'z') || (id[i] >= 'A' && id[i] <= 'Z') ||
            (id[i] >= '0' && id[i] <= '9') || id[i] == '.' || id[i] == '_' ||
            id[i] == '-' ? id[i] : '?';
    dst[i] = '\0';
}

static pthread_mutex_t sdnotify_mu = PTHREAD_MUTEX_INITIALIZER;
static char sdnotify_group[200];        /* (sdnotify_mu) the last word on the
                                           group: leader, epoch; "" until then */
static int sdnotify_slot;               /* (sdnotify_mu) the slot above 0 this node
                                           holds (what the line says), 0 none */

void
sdnotify_ready(const struct zkd *d)
{
    pthread_mutex_lock(&sdnotify_mu);
    if (sdnotify_group[0] != '\0')
        sdnotify_send("READY=1", "%s", sdnotify_group);
    else
        sdnotify_send("READY=1", "member of %s as %s", d->boot.path, d->boot.node_id);
    pthread_mutex_unlock(&sdnotify_mu);
}

/* The STATUS= line for ev, when ev changes it (library thread). */
void
sdnotify_event(struct zkd *d, const struct zkelect_event *ev)
{
    char *group = sdnotify_group;
    const size_t glen = sizeof(sdnotify_group);
    char id[ZKD_CONFIG_NAME_MAX + 1];
    const char *st = ev->status == ZKELECT_STATUS_READY ? "READY" : "PROGRESS";
    unsigned long long epoch = (unsigned long long)ev->epoch;

    pthread_mutex_lock(&sdnotify_mu);
    switch (ev->type) {
    case ZKELECT_EV_LEADER_CHANGED:
        /* N active leaders: the line says this node's slot while it holds
           one above 0, and slot 0's leader otherwise */
        if (ev->slot > 0 && ev->node != NULL && strcmp(ev->node, d->boot.node_id) == 0) {
            sdnotify_slot = ev->slot;
            snprintf(group, glen, "leader of %s, slot %d (%s, epoch %llu)",
                d->boot.path, ev->slot, st, epoch);
            sdnotify_send(NULL, "%s", group);
            break;
        }
        if (ev->slot > 0 && ev->slot != sdnotify_slot)
            break;                      /* another node's slot */
        if (ev->slot > 0) {
            sdnotify_slot = 0;          /* ours no longer */
            snprintf(group, glen, "member of %s as %s; slot %d left", d->boot.path,
                d->boot.node_id, ev->slot);
            sdnotify_send(NULL, "%s", group);
            break;
        }
        if (sdnotify_slot > 0)
            break;                      /* slot 0's leader is not the news */
        if (ev->node == NULL) {
            snprintf(group, glen, "member of %s as %s; no leader",
                d->boot.path, d->boot.node_id);
        } else if (strcmp(ev->node, d->boot.node_id) == 0) {
            snprintf(group, glen, "leader of %s (%s, epoch %llu)",
                d->boot.path, st, epoch);
        } else {
            sdnotify_id(id, sizeof(id), ev->node);
            snprintf(group, glen, "member of %s as %s; leader %s (%s, "
                "epoch %llu)", d->boot.path, d->boot.node_id, id, st, epoch);
        }
        sdnotify_send(NULL, "%s", group);
        break;
    case ZKELECT_EV_STEPDOWN:
    case ZKELECT_EV_LOST:
    case ZKELECT_EV_TAKEOVER_ABORT:
    case ZKELECT_EV_TAKEOVER_FAILED:
        /* no longer leading: said here, as zkelectd may not follow the
           leader (events_follow) and hear of the next one */
        if (ev->slot > 0 && ev->slot != sdnotify_slot)
            break;
        sdnotify_slot = 0;
        snprintf(group, glen, "member of %s as %s", d->boot.path, d->boot.node_id);
        sdnotify_send(NULL, "%s", group);
        break;
    case ZKELECT_EV_NO_ELIGIBLE:
        snprintf(group, glen, "member of %s as %s; no eligible node "
            "to lead", d->boot.path, d->boot.node_id);
        sdnotify_send(NULL, "%s", group);
        break;
    case ZKELECT_EV_CONNECTED:
        if (group[0] != '\0')
            sdnotify_send(NULL, "%s", group);
        break;
    case ZKELECT_EV_DISCONNECTED:
        sdnotify_send(NULL, "disconnected from ZooKeeper %s; reconnecting",
            d->boot.zk_hosts);
        break;
    case ZKELECT_EV_EXPIRED:
        sdnotify_send(NULL, "ZooKeeper session expired; joining %s again",
            d->boot.path);
        break;
    default:
        break;
    }
    pthread_mutex_unlock(&sdnotify_mu);
}

/* ---- the watchdog ---------------------------------------------------- */

static struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    pthread_t thread;
    bool started;                       /* thread runs */
    bool stop;                          /* (mu) the thread must exit */
    uint64_t interval_us;               /* WatchdogSec, in microseconds */
    struct zkd *d;
} wd = { .mu = PTHREAD_MUTEX_INITIALIZER };

static void *
sdnotify_watchdog_main(void *arg)
{
    struct timespec ts;
    uint64_t half_ms = wd.interval_us / 2000, quarter_ms = wd.interval_us / 4000;
    zkelect_t *h;
    bool warned = false;
    int rc;

    (void)arg;
    if (half_ms == 0)
        half_ms = 1;
    for (;;) {
        pthread_mutex_lock(&wd.d->mu);
        h = wd.d->h;
        pthread_mutex_unlock(&wd.d->mu);
        /* the main thread stops this thread before it closes h */
        rc = h != NULL ? zkelect_ping(h, (int)(quarter_ms > 0 ? quarter_ms : 1)) : 0;
        if (rc == 0) {
            (void)sd_notify(0, "WATCHDOG=1");
            warned = false;
        } else if (!warned) {
            log_emit(LOG_ERR, "watchdog: the library thread did not answer within "
                "%llu ms: WATCHDOG=1 withheld", (unsigned long long)quarter_ms);
            warned = true;
        }
        clock_gettime(CLOCK_MONOTONIC, &ts);
        ts.tv_sec += (time_t)(half_ms / 1000);
        ts.tv_nsec += (long)(half_ms % 1000) * 1000000L;
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        pthread_mutex_lock(&wd.mu);
        while (!wd.stop && pthread_cond_timedwait(&wd.cv, &wd.mu, &ts) == 0)
            ;
        if (wd.stop) {
            pthread_mutex_unlock(&wd.mu);
            return NULL;
        }
        pthread_mutex_unlock(&wd.mu);
    }
}

int
sdnotify_watchdog_start(struct zkd *d)
{
    pthread_condattr_t ca;
    uint64_t usec = 0;
    int rc;

    if (sd_watchdog_enabled(0, &usec) <= 0 || usec == 0)
        return 0;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&wd.cv, &ca);
    pthread_condattr_destroy(&ca);
    wd.interval_us = usec;
    wd.d = d;
    wd.stop = false;
    if ((rc = pthread_create(&wd.thread, NULL, sdnotify_watchdog_main, NULL)) != 0) {
        log_warnx("watchdog: cannot start a thread: %s", strerror(rc));
        return -1;
    }
    wd.started = true;
    log_info("watchdog: WATCHDOG=1 every %llu ms while the library thread answers",
        (unsigned long long)(usec / 2000));
    return 0;
}

void
sdnotify_watchdog_stop(void)
{
    if (!wd.started)
        return;
    pthread_mutex_lock(&wd.mu);
    wd.stop = true;
    pthread_cond_broadcast(&wd.cv);
    pthread_mutex_unlock(&wd.mu);
    pthread_join(wd.thread, NULL);
    wd.started = false;
}

#else /* !HAVE_LIBSYSTEMD */

void
sdnotify_send(const char *state, const char *fmt, ...)
{
}

void
sdnotify_extend_ms(uint64_t ms)
{
}

void
sdnotify_ready(const struct zkd *d)
{
}

void
sdnotify_event(struct zkd *d, const struct zkelect_event *ev)
{
}

int
sdnotify_watchdog_start(struct zkd *d)
{
    return 0;
}

void
sdnotify_watchdog_stop(void)
{
}

#endif
