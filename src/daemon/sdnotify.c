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
 * Called from the main thread and from the library thread (sdnotify_event).
 * sd_notify() is one sendmsg(2) and keeps no state; the last line about the
 * group, which READY=1 repeats, is guarded by sdnotify_mu.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#ifdef HAVE_LIBSYSTEMD
#include <systemd/sd-daemon.h>
#endif

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

#endif
