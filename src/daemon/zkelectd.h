/*
 * zkelectd.h - the daemon's shared state and the interfaces between its
 * files: zkelectd.c (options, start, signals, reload, stop), events.c (the
 * library's events: event log, state, hook dispatch), hooks.c (takeover,
 * stepdown and notify hooks), health.c (the health check), http.c (status
 * endpoints and metrics), proc.c (running a program), log.c (logging),
 * sdnotify.c (the service manager: sd_notify).
 *
 * Threads: the main thread (signals, reload, start and stop), the library
 * thread (callbacks and events), one leadership-hook worker, NOTIFY_WORKERS
 * notify workers, the health-check thread and the HTTP thread.
 *
 * Locks: d->mu guards the fields marked (mu). The library calls our
 * callbacks with its own lock held, so the order is library lock, then
 * d->mu; nobody calls a zkelect_*() function while holding d->mu.
 */
#ifndef ZKELECTD_H
#define ZKELECTD_H

#include <sys/types.h>

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "zkelect.h"
#include "config.h"

/* The three hooks (index of counters). */
enum zkd_hook {
    ZKD_HOOK_TAKEOVER = 0,              /* [hooks] takeover */
    ZKD_HOOK_STEPDOWN,                  /* [hooks] stepdown */
    ZKD_HOOK_NOTIFY,                    /* [hooks] notify */
    ZKD_HOOK__COUNT
};

#define ZKD_SLOTS_MAX 16                /* active slots of a group, at most
                                           (ZKE_LEADERS_MAX) */

struct zkd_hooks;                       /* hooks.c */
struct zkd_health;                      /* health.c */
struct zkd_http;                        /* http.c */

struct zkd {
    /* Fixed before the first thread starts. */
    char *config_path;                  /* owned: absolute path of the configuration */
    struct zkd_config boot;             /* the configuration the daemon started with:
                                           what needs a restart is read from here */
    char *auth_file;                    /* owned: boot.auth_file made absolute, or NULL */
    char *policy;                       /* owned: boot.policy, absolute if it is a path */
    uint64_t start_ms;                  /* CLOCK_MONOTONIC at start */

    pthread_mutex_t mu;                 /* guards the fields marked (mu) */
    /* The library objects: set by the main thread, valid until the stop
       (the HTTP server starts before them: hence the lock). */
    zkelect_t *h;                       /* (mu) the handle, NULL until open */
    zkelect_group_t *g;                 /* (mu) the group, NULL until open */
    int follow_sub;                     /* main thread: the "+leader-changed"
                                           subscription (events_follow), 0 none */
    struct zkd_config *live;            /* (mu) the latest configuration: &boot, or
                                           owned after a reload; hooks, health and
                                           log settings are read from here */
    bool no_eligible;                   /* (mu) the last decision found nobody */
    bool healthy;                       /* (mu) the health check's verdict */
    int health_consecutive;             /* (mu) consecutive failed checks */
    uint64_t health_checks;             /* (mu) checks run */
    uint64_t health_failed;             /* (mu) checks failed */
    uint64_t hook_runs[ZKD_HOOK__COUNT];     /* (mu) hook runs */
    uint64_t hook_failures[ZKD_HOOK__COUNT]; /* (mu) failed or timed out */
    uint64_t notify_dropped;            /* (mu) notify runs dropped: queue full */
    uint64_t health_forced_ms;          /* (mu) health_fail() made the node unhealthy
                                           then (CLOCK_MONOTONIC), 0 none */
    pid_t command_pid;                  /* (mu) the [leader] command, 0 none */
    const char *command_state;          /* (mu) static: "starting", "running",
                                           "stopping", "exited", "stopped"; NULL never
                                           started */
    uint64_t command_starts;            /* (mu) leader commands started */
    uint64_t command_exits;             /* (mu) ... that ended by themselves while
                                           leading */
    uint64_t contact_ms;                /* (mu) last evidence of a live session */
    char stepdown_why[256];             /* (mu) detail of the last -stepdown or
                                           -takeover-abort event */
    const char *stepdown_event;         /* (mu) its name (static), or NULL */
    char slot_last[ZKD_SLOTS_MAX][65];  /* (mu) per slot: the node last seen in it */
    char slot_prev[ZKD_SLOTS_MAX][65];  /* (mu) ... and the one before */
    int exit_code;                      /* (mu) >= 0: the main loop exits with it */

    pthread_mutex_t evmu;               /* guards events_fd */
    int events_fd;                      /* (evmu) [log] events file, -1 none */

    struct zkd_hooks *hooks;            /* owned: hook workers */
    struct zkd_health *health;          /* owned: health-check thread; set and
                                           cleared under mu (health_fail() reads
                                           it from the leader command's monitor) */
    struct zkd_http *http;              /* owned: HTTP server */
};

/* ---- events.c ------------------------------------------------------------ */

/* The handle's event callback (zkelect_event_fn); data is the struct zkd. */
void events_on_event(void *data, const struct zkelect_event *ev);

/*
 * Open the event log file ([log] events) for appending, creating it with mode
 * 0640 when missing: what the start and SIGHUP do, and, with probe, what
 * `zkelectd -n` and a reload check first (the file is closed again, and
 * removed when the probe created it). Only a regular file is accepted.
 * Returns the descriptor (0 with probe), or -1 with "PATH: reason" in why.
 */
int events_file_open(const char *path, bool probe, char *why, size_t whylen);
/* Make fd (from events_file_open, or -1 for none) the event log, closing the
 * previous one. */
void events_swap(struct zkd *d, int fd);
void events_close(struct zkd *d);

/*
 * The node this daemon saw hold slot k (1..15) before the latest holder,
 * or the latest when that is another node: ZKELECT_PREVIOUS of a takeover
 * of slot k (the decision names slot 0's previous leader only). "" none.
 */
void events_slot_previous(struct zkd *d, int k, char *buf, size_t len);

/*
 * Follow the group's leader (a subscription to "+leader-changed") exactly
 * while something here needs every change: a notify hook or an event log.
 * Otherwise the library watches nothing for this node per leader change;
 * its own role comes without, and /status reads the leader on request.
 * Main thread (start, SIGHUP).
 */
void events_follow(struct zkd *d);

/* N, the group's active slots, as this node's view says (1 before the group
 * is open or any decision was read). Any thread; not with d->mu held. */
int zkd_leaders(struct zkd *d);

/* Ask the main thread to exit with code (from any thread). */
void zkd_request_exit(struct zkd *d, int code);

/* ---- hooks.c ------------------------------------------------------------- */

#define NOTIFY_WORKERS    4             /* notify hooks run at once, at most */
#define NOTIFY_QUEUE_MAX  64            /* notify runs waiting, at most */

int hooks_start(struct zkd *d);
/* Finish the queued takeover/stepdown jobs, cancel a running takeover hook,
 * stop the worker. */
void hooks_stop_leadership(struct zkd *d);
/* Let the notify hooks queued finish for up to grace_ms, then cancel the
 * rest and stop the workers. */
void hooks_stop_notify(struct zkd *d, int grace_ms);
void hooks_free(struct zkd *d);

/* The library's callbacks (cb_data is the struct zkd). */
int hooks_on_takeover(void *data, zkelect_group_t *g, uint64_t epoch);
bool hooks_takeover_noop(struct zkd *d);
int hooks_on_stepdown(void *data, zkelect_group_t *g, uint64_t epoch);

/* Leadership of epoch (in slot) was lost without a step-down (events.c). */
void hooks_leadership_lost(struct zkd *d, uint64_t epoch, int slot, const char *detail);

/* Queue the notify hook for ev, if one is configured (events.c). */
void hooks_notify(struct zkd *d, const struct zkelect_event *ev);

/* Is path an executable regular file? 0, or -1 with why (errlen bytes). */
int hooks_check_program(const char *path, char *why, size_t whylen);

/* ---- health.c ------------------------------------------------------------ */

int health_start(struct zkd *d);
void health_stop(struct zkd *d);
/* The configuration changed: re-read it now. */
void health_wake(struct zkd *d);
/*
 * Make the node unhealthy now (the leader command ended by itself): healthy
 * again at the next passing health check, or, without a health command,
 * [election] exclude_ms later.
 */
void health_fail(struct zkd *d, const char *why);

/* ---- sdnotify.c ---------------------------------------------------------- */

/* Tell the service manager state ("READY=1", "RELOADING=1", "STOPPING=1" or
 * NULL) and, when fmt is not NULL, STATUS= with the text. No-ops without
 * libsystemd or outside a service manager. */
void sdnotify_send(const char *state, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* READY=1 (joined, or a reload done) with the last status of the group. */
void sdnotify_ready(const struct zkd *d);
/* The start or stop may take ms more than the unit's timeout allows. */
void sdnotify_extend_ms(uint64_t ms);
/* The STATUS= line that follows the group's events (events.c). */
void sdnotify_event(struct zkd *d, const struct zkelect_event *ev);
/* WatchdogSec= (WATCHDOG_USEC): a thread sends WATCHDOG=1 every half
 * interval once zkelect_ping(d->h) succeeded; stop it before d->h is closed. */
int sdnotify_watchdog_start(struct zkd *d);
void sdnotify_watchdog_stop(void);

/* ---- http.c -------------------------------------------------------------- */

/* Listen on the boot configuration's [http] listen (nothing when unset). */
int http_start(struct zkd *d);
void http_stop(struct zkd *d);

#endif /* ZKELECTD_H */
