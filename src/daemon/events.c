/*
 * events.c - what the daemon does with each library event: append it to the
 * event log ([log] events: one JSON object per line), keep the state the
 * metrics need, tell the service manager (sdnotify.c), and hand leadership
 * events to the hooks.
 *
 * The library has already logged the event (with its stable name) through
 * the log callback: nothing here logs it again.
 *
 * Runs on the library thread, with the library's lock held: only short work
 * (a write(2) of one line, a queue insertion) happens here.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include <cJSON.h>

#include "log.h"
#include "proc.h"
#include "statefile.h"
#include "zkelectd.h"

/* Events that run the notify hook. */
static int
events_notifies(enum zkelect_event_type t)
{
    switch (t) {
    case ZKELECT_EV_LEADER_CHANGED:
    case ZKELECT_EV_TAKEOVER:
    case ZKELECT_EV_READY:
    case ZKELECT_EV_TAKEOVER_ABORT:
    case ZKELECT_EV_TAKEOVER_FAILED:
    case ZKELECT_EV_STEPDOWN:
    case ZKELECT_EV_SUSPENDED:
    case ZKELECT_EV_RESUMED:
    case ZKELECT_EV_LOST:
    case ZKELECT_EV_NO_ELIGIBLE:
        return 1;
    default:
        return 0;
    }
}

void
zkd_request_exit(struct zkd *d, int code)
{
    pthread_mutex_lock(&d->mu);
    if (d->exit_code < 0)
        d->exit_code = code;
    pthread_mutex_unlock(&d->mu);
    /* process-directed: the main thread is the one waiting for it */
    kill(getpid(), SIGUSR1);
}

int
zkd_leaders(struct zkd *d)
{
    zkelect_group_t *g;
    int n;

    pthread_mutex_lock(&d->mu);
    g = d->g;
    pthread_mutex_unlock(&d->mu);
    if (g == NULL || (n = zkelect_get_leaders(g, NULL, 0)) < 1)
        return 1;
    return n;
}

/* The subscription only makes the group follow: its events reach the
   handle's callback (events_on_event) like every other. */
static void
events_follow_cb(void *data, const struct zkelect_event *ev)
{
    (void)data;
    (void)ev;
}

void
events_follow(struct zkd *d)
{
    zkelect_group_t *g;
    bool want;
    int id;

    pthread_mutex_lock(&d->mu);
    g = d->g;
    want = d->live->hook_notify != NULL || d->live->log_events != NULL;
    pthread_mutex_unlock(&d->mu);
    if (g == NULL || want == (d->follow_sub > 0))
        return;
    if (!want) {
        (void)zkelect_unsubscribe(g, d->follow_sub);
        d->follow_sub = 0;
        log_info("not following the leader: no notify hook and no event log "
            "need its changes");
        return;
    }
    if ((id = zkelect_subscribe(g, ZKELECT_MASK_LEADER, events_follow_cb, d)) < 0) {
        log_warnx("cannot follow the leader: zkelect_subscribe: %s",
            zkelect_strerror(id));
        return;
    }
    d->follow_sub = id;
    log_debug("following the leader (a notify hook or an event log needs its changes)");
}

void
events_slot_previous(struct zkd *d, int k, char *buf, size_t len)
{
    const char *p = "";

    pthread_mutex_lock(&d->mu);
    if (k >= 0 && k < ZKD_SLOTS_MAX) {
        p = d->slot_last[k];
        if (strcmp(p, d->boot.node_id) == 0)
            p = d->slot_prev[k];
        if (strcmp(p, d->boot.node_id) == 0)
            p = "";
    }
    snprintf(buf, len, "%s", p);
    pthread_mutex_unlock(&d->mu);
}

/* One JSON line for ev (with its slot when many); NULL when out of memory. */
static char *
events_line(const struct zkd *d, const struct zkelect_event *ev, bool many)
{
    cJSON *o = cJSON_CreateObject();
    char *s = NULL, *line = NULL;
    size_t n;

    if (o == NULL)
        return NULL;
    if (cJSON_AddNumberToObject(o, "mono_ms", (double)ev->mono_ms) == NULL ||
        cJSON_AddStringToObject(o, "node", d->boot.node_id) == NULL ||
        cJSON_AddStringToObject(o, "event", ev->name) == NULL ||
        (ev->group != NULL ? cJSON_AddStringToObject(o, "group", ev->group) :
            cJSON_AddNullToObject(o, "group")) == NULL ||
        (ev->node != NULL ? cJSON_AddStringToObject(o, "subject", ev->node) :
            cJSON_AddNullToObject(o, "subject")) == NULL ||
        cJSON_AddNumberToObject(o, "epoch", (double)ev->epoch) == NULL ||
        (ev->type == ZKELECT_EV_LEADER_CHANGED ?
            cJSON_AddStringToObject(o, "status", zkelect_status_name(ev->status)) :
            cJSON_AddNullToObject(o, "status")) == NULL ||
        cJSON_AddNumberToObject(o, "error", ev->error) == NULL ||
        (ev->error != 0 ? cJSON_AddStringToObject(o, "error_name",
            zkelect_errname(ev->error)) : cJSON_AddNullToObject(o, "error_name")) == NULL ||
        cJSON_AddStringToObject(o, "detail", ev->detail != NULL ? ev->detail : "") == NULL)
        goto out;
    /* N = 1: the lines of earlier releases, field for field */
    if (many && cJSON_AddNumberToObject(o, "slot", ev->slot) == NULL)
        goto out;
    if ((s = cJSON_PrintUnformatted(o)) == NULL)
        goto out;
    n = strlen(s);
    if ((line = malloc(n + 2)) != NULL) {
        memcpy(line, s, n);
        line[n] = '\n';
        line[n + 1] = '\0';
    }
out:
    cJSON_free(s);
    cJSON_Delete(o);
    return line;
}

static void
events_write(struct zkd *d, const struct zkelect_event *ev, bool many)
{
    char *line;
    size_t n, off = 0;
    ssize_t w;

    pthread_mutex_lock(&d->evmu);
    if (d->events_fd < 0) {
        pthread_mutex_unlock(&d->evmu);
        return;
    }
    if ((line = events_line(d, ev, many)) == NULL) {
        pthread_mutex_unlock(&d->evmu);
        log_warnx("event log: out of memory; %s not recorded", ev->name);
        return;
    }
    /* O_APPEND: one write(2) per line, so concurrent readers see whole lines */
    n = strlen(line);
    while (off < n) {
        w = write(d->events_fd, line + off, n - off);
        if (w == -1 && errno == EINTR)
            continue;
        if (w <= 0) {
            log_warn("event log: write");
            break;
        }
        off += (size_t)w;
    }
    pthread_mutex_unlock(&d->evmu);
    free(line);
}

void
events_on_event(void *data, const struct zkelect_event *ev)
{
    struct zkd *d = data;
    const char *why;
    bool many;

    if (ev->group != NULL && strcmp(ev->group, d->boot.path) != 0)
        return;                         /* not our group (there is only one) */
    many = ev->slot > 0 || (ev->group != NULL && zkd_leaders(d) > 1);
    events_write(d, ev, many);
    sdnotify_event(d, ev);              /* systemctl status: who leads */

    pthread_mutex_lock(&d->mu);
    switch (ev->type) {
    case ZKELECT_EV_CONNECTED:
        d->contact_ms = proc_now_ms();
        break;
    case ZKELECT_EV_NO_ELIGIBLE:
        d->no_eligible = true;
        break;
    case ZKELECT_EV_LEADER_CHANGED:
        /* who held each slot before: a slot's next holder fences it */
        if (ev->node != NULL && ev->slot >= 0 && ev->slot < ZKD_SLOTS_MAX &&
            strcmp(d->slot_last[ev->slot], ev->node) != 0) {
            memcpy(d->slot_prev[ev->slot], d->slot_last[ev->slot],
                sizeof(d->slot_prev[ev->slot]));
            snprintf(d->slot_last[ev->slot], sizeof(d->slot_last[ev->slot]), "%s",
                ev->node);
        }
        break;
    case ZKELECT_EV_DECISION:
        if (ev->node != NULL)
            d->no_eligible = false;
        break;
    case ZKELECT_EV_ELECTOR_LOST:
        d->no_eligible = false;         /* the decisions are no longer ours */
        break;
    case ZKELECT_EV_STEPDOWN:
    case ZKELECT_EV_TAKEOVER_ABORT:
    case ZKELECT_EV_TAKEOVER_FAILED:
    case ZKELECT_EV_FENCED:
        /* the step-down callback follows at once: its hook gets the reason */
        why = ev->detail != NULL ? ev->detail : "";
        if (strncmp(why, "stepping down: ", 15) == 0)
            why += 15;
        else if (strncmp(why, "takeover aborted: ", 18) == 0)
            why += 18;
        snprintf(d->stepdown_why, sizeof(d->stepdown_why), "%s%s",
            ev->type == ZKELECT_EV_FENCED ? "fenced: " : "", why);
        d->stepdown_event = ev->type == ZKELECT_EV_STEPDOWN ? "-stepdown" :
            ev->type == ZKELECT_EV_TAKEOVER_ABORT ? "-takeover-abort" :
            ev->type == ZKELECT_EV_TAKEOVER_FAILED ? "-takeover-failed" : "-fenced";
        break;
    default:
        break;
    }
    pthread_mutex_unlock(&d->mu);

    if (ev->type == ZKELECT_EV_CONNECTED)
        state_session(d);               /* a new session goes into the state file */
    if (ev->type == ZKELECT_EV_AUTH_FAILED) {
        log_emit(LOG_ERR, "ZooKeeper refused the credentials: nothing can be "
            "done on this session; exiting");
        zkd_request_exit(d, 1);
    }
    if (ev->type == ZKELECT_EV_LOST && ev->group != NULL)
        hooks_leadership_lost(d, ev->epoch, ev->slot, ev->detail != NULL ? ev->detail : "");
    if (events_notifies(ev->type) && ev->group != NULL)
        hooks_notify(d, ev);
}

int
events_file_open(const char *path, bool probe, char *why, size_t whylen)
{
    struct stat st;
    bool created = false;
    int fd, saved;

    /* O_NONBLOCK: a FIFO without a reader fails (ENXIO) instead of hanging */
    fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd == -1 && errno == ENOENT) {
        fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_EXCL | O_CLOEXEC | O_NOCTTY,
            0640);
        created = fd != -1;
        if (fd == -1 && errno == EEXIST)    /* created meanwhile: use it */
            fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    }
    if (fd == -1) {
        saved = errno;
        snprintf(why, whylen, "%s: cannot open for appending: %s", path,
            strerror(saved));
        return -1;
    }
    if (fstat(fd, &st) == -1) {
        saved = errno;
        snprintf(why, whylen, "%s: cannot stat: %s", path, strerror(saved));
        close(fd);
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(why, whylen, "%s: not a regular file", path);
        close(fd);
        return -1;
    }
    if (probe) {
        close(fd);
        if (created)
            (void)unlink(path);         /* -n leaves no trace */
        return 0;
    }
    return fd;
}

void
events_swap(struct zkd *d, int fd)
{
    int old;

    pthread_mutex_lock(&d->evmu);
    old = d->events_fd;
    d->events_fd = fd;
    pthread_mutex_unlock(&d->evmu);
    if (old >= 0)
        close(old);
}

void
events_close(struct zkd *d)
{
    int old;

    pthread_mutex_lock(&d->evmu);
    old = d->events_fd;
    d->events_fd = -1;
    pthread_mutex_unlock(&d->evmu);
    if (old >= 0)
        close(old);
}
