/*
 * health.c - the health check: `/bin/sh -c COMMAND` every interval_ms (each
 * run bounded by interval_ms), on its own thread.
 *
 * After `failures` consecutive failures the node tells the group it is
 * unhealthy (zkelect_set_healthy(g, 0)): the elector then moves leadership
 * away and the library steps this node down. The first check that passes
 * makes it healthy again. Removing the command (SIGHUP) makes it healthy.
 * Checks start after the node has joined the group.
 */
#include <sys/eventfd.h>

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "log.h"
#include "proc.h"
#include "zkelectd.h"

struct zkd_health {
    pthread_t thread;                   /* the checker */
    bool started;                       /* thread runs */
    int stop_fd;                        /* eventfd: stop (cancels a running check) */
    int wake_fd;                        /* eventfd: configuration changed */
};

/* Tell the group; log the change. */
static void
health_set(struct zkd *d, bool healthy, const char *why)
{
    zkelect_group_t *g;
    bool changed;
    int rc;

    pthread_mutex_lock(&d->mu);
    changed = d->healthy != healthy;
    d->healthy = healthy;
    if (healthy)
        d->health_forced_ms = 0;
    g = d->g;
    pthread_mutex_unlock(&d->mu);
    if (!changed)
        return;
    if (healthy)
        log_notice("health: node healthy again (%s)", why);
    else
        log_warnx("health: node unhealthy (%s): leadership moves away", why);
    if (g != NULL && (rc = zkelect_set_healthy(g, healthy)) != 0)
        log_warnx("health: zkelect_set_healthy: %s", zkelect_strerror(rc));
}

/* One check. Returns -1 when canceled (stop). */
static int
health_check(struct zkd *d, struct zkd_health *hc, const char *command,
    int timeout_ms, int failures)
{
    const char *argv[] = { "/bin/sh", "-c", command, NULL };
    char env[4][600], why[200], desc[160];
    const char *envp[5];
    struct proc_result r;
    int rc, n;

    snprintf(env[0], sizeof(env[0]), "ZKELECT_NODE_ID=%s", d->boot.node_id);
    snprintf(env[1], sizeof(env[1]), "ZKELECT_SITE=%s", d->boot.site);
    snprintf(env[2], sizeof(env[2]), "ZKELECT_GROUP=%s", d->boot.path);
    snprintf(env[3], sizeof(env[3]), "ZKELECT_HOOK=health");
    envp[0] = env[0];
    envp[1] = env[1];
    envp[2] = env[2];
    envp[3] = env[3];
    envp[4] = NULL;

    rc = proc_run(argv, envp, timeout_ms, &hc->stop_fd, 1, &r);
    if (r.canceled)
        return -1;
    proc_describe(&r, desc, sizeof(desc));
    pthread_mutex_lock(&d->mu);
    d->health_checks++;
    if (rc == 0) {
        d->health_consecutive = 0;
    } else {
        d->health_failed++;
        d->health_consecutive++;
    }
    n = d->health_consecutive;
    pthread_mutex_unlock(&d->mu);

    if (rc == 0) {
        log_debug("health: check passed (%s)", desc);
        health_set(d, true, "the check passes");
        return 0;
    }
    log_info("health: check failed (%d of %d): %s", n, failures, desc);
    proc_log_tail(&r, LOG_INFO, "health");
    if (n >= failures) {
        snprintf(why, sizeof(why), "%d consecutive failed checks", n);
        health_set(d, false, why);
    }
    return 0;
}

/*
 * Without a health command, what is left of exclude_ms since health_fail()
 * (> 0); 0 when it has passed; -1 when the node was not made unhealthy.
 */
static int
health_forced_left(struct zkd *d)
{
    uint64_t since, now = proc_now_ms(), until;

    pthread_mutex_lock(&d->mu);
    since = d->health_forced_ms;
    until = since + (uint64_t)d->live->exclude_ms;
    pthread_mutex_unlock(&d->mu);
    if (since == 0)
        return -1;
    return now >= until ? 0 : (int)(until - now);
}

void
health_fail(struct zkd *d, const char *why)
{
    uint64_t one = 1;

    health_set(d, false, why);
    /* after health_set(false): a check passing in between must not undo the
       exclusion it starts */
    pthread_mutex_lock(&d->mu);
    d->health_forced_ms = proc_now_ms();
    /* under d->mu: the leader command's monitor may call this while the
       main thread stops the checker (health_stop) */
    if (d->health != NULL && d->health->wake_fd >= 0 &&
        write(d->health->wake_fd, &one, sizeof(one)) == -1)
        log_warn("health: cannot wake the checker");
    pthread_mutex_unlock(&d->mu);
}

static void
health_drain(int fd)
{
    uint64_t v;

    while (read(fd, &v, sizeof(v)) > 0)
        ;
}

static void *
health_main(void *arg)
{
    struct zkd *d = arg;
    struct zkd_health *hc = d->health;
    struct pollfd p[2];
    uint64_t start, now;
    char *command;
    int interval_ms, failures, wait_ms;

    for (;;) {
        pthread_mutex_lock(&d->mu);
        command = d->live->health_command != NULL ? strdup(d->live->health_command) : NULL;
        interval_ms = d->live->health_interval_ms;
        failures = d->live->health_failures;
        if (d->live->health_command == NULL)
            d->health_consecutive = 0;
        pthread_mutex_unlock(&d->mu);

        start = proc_now_ms();
        if (command != NULL) {
            if (health_check(d, hc, command, interval_ms, failures) == -1) {
                free(command);
                break;
            }
            free(command);
        } else if ((interval_ms = health_forced_left(d)) > 0) {
            ;                           /* unhealthy by health_fail() for a while yet */
        } else {
            health_set(d, true, interval_ms == 0 ? "[election] exclude_ms passed "
                "since it was made unhealthy" : "no health check configured");
            interval_ms = 3600 * 1000;  /* until a reload or health_fail() wakes us */
        }

        /* next check interval_ms after this one started */
        now = proc_now_ms();
        wait_ms = now - start >= (uint64_t)interval_ms ? 0 : (int)(start + (uint64_t)interval_ms - now);
        p[0].fd = hc->stop_fd;
        p[0].events = POLLIN;
        p[1].fd = hc->wake_fd;
        p[1].events = POLLIN;
        p[0].revents = p[1].revents = 0;
        while (poll(p, 2, wait_ms) == -1 && errno == EINTR)
            ;
        if (p[0].revents != 0)
            break;
        if (p[1].revents != 0)
            health_drain(hc->wake_fd);
    }
    return NULL;
}

int
health_start(struct zkd *d)
{
    struct zkd_health *hc;
    int rc;

    if ((hc = calloc(1, sizeof(*hc))) == NULL) {
        log_warnx("health: out of memory");
        return -1;
    }
    hc->stop_fd = hc->wake_fd = -1;
    pthread_mutex_lock(&d->mu);
    d->health = hc;
    pthread_mutex_unlock(&d->mu);
    if ((hc->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) == -1 ||
        (hc->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) == -1) {
        log_warn("health: eventfd");
        return -1;
    }
    if ((rc = pthread_create(&hc->thread, NULL, health_main, d)) != 0) {
        log_warnx("health: cannot start a thread: %s", strerror(rc));
        return -1;
    }
    hc->started = true;
    return 0;
}

void
health_wake(struct zkd *d)
{
    uint64_t one = 1;

    if (d->health != NULL && d->health->wake_fd >= 0 &&
        write(d->health->wake_fd, &one, sizeof(one)) == -1)
        log_warn("health: cannot wake the checker");
}

void
health_stop(struct zkd *d)
{
    struct zkd_health *hc = d->health;
    uint64_t one = 1;

    if (hc == NULL)
        return;
    if (hc->started) {
        if (write(hc->stop_fd, &one, sizeof(one)) == -1)
            log_warn("health: cannot stop the checker");
        pthread_join(hc->thread, NULL);
    }
    pthread_mutex_lock(&d->mu);
    d->health = NULL;                   /* see health_fail() */
    pthread_mutex_unlock(&d->mu);
    if (hc->stop_fd >= 0)
        close(hc->stop_fd);
    if (hc->wake_fd >= 0)
        close(hc->wake_fd);
    free(hc);
}
