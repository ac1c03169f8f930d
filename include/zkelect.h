/*
 * zkelect.h - the public client API of libzkelect.
 *
 * Every function returns 0 or a negative ZKELECT_E* code; zkelect_strerror()
 * gives its text. The library never prints and never exits.
 */
#ifndef ZKELECT_H
#define ZKELECT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(ZKELECT_BUILDING) && defined(__GNUC__)
#define ZKELECT_API __attribute__((visibility("default")))
#else
#define ZKELECT_API
#endif

/*
 * Error codes: one table, X-macro style (name, value, text). Values are
 * stable: never renumber, only append.
 */
#define ZKELECT_ERRNO_MAP(XX)                                                   \
    XX(OK,          0,   "success")                                             \
    XX(EINVAL,      -1,  "invalid argument")                                    \
    XX(ENOMEM,      -2,  "out of memory")                                       \
    XX(EIO,         -3,  "input/output error")                                  \
    XX(ERANGE,      -4,  "value out of range")                                  \
    XX(ESYNTAX,     -10, "malformed JSON")                                      \
    XX(EVERSION,    -11, "unsupported payload format version")                  \
    XX(ETYPE,       -12, "field has the wrong type")                            \
    XX(EMISSING,    -13, "required field missing")                              \
    XX(ETOOBIG,     -14, "payload or value too large")                          \
    XX(EUTF8,       -15, "invalid UTF-8")                                       \
    XX(ETRAILING,   -16, "trailing data after the JSON value")                  \
    XX(EBADVALUE,   -17, "field has an invalid value")                          \
    XX(ECONFIG,     -20, "configuration error")                                 \
    XX(ECONNLOSS,   -30, "ZooKeeper connection lost (outcome unknown)")         \
    XX(ETIMEDOUT,   -31, "operation timed out")                                 \
    XX(EEXPIRED,    -32, "ZooKeeper session expired")                           \
    XX(ENOAUTH,     -33, "not authorized by the ZooKeeper ACL")                 \
    XX(EAUTHFAILED, -34, "ZooKeeper authentication failed")                     \
    XX(ENONODE,     -35, "znode does not exist")                                \
    XX(ENODEEXISTS, -36, "znode already exists")                                \
    XX(EBADVERSION, -37, "znode changed concurrently (version mismatch)")       \
    XX(ENOTEMPTY,   -38, "znode has children")                                  \
    XX(EZOOKEEPER,  -39, "ZooKeeper error")                                     \
    XX(ECLOSED,     -40, "handle is closed")                                    \
    XX(ECONNECT,    -41, "cannot connect to ZooKeeper")                         \
    XX(ENOTFOUND,   -50, "policy module not found")                             \
    XX(ENOTSO,      -51, "not a loadable shared object")                        \
    XX(ENOSYM,      -52, "policy entry symbol missing")                         \
    XX(EABI,        -53, "policy ABI major version mismatch")                   \
    XX(ESTRUCT,     -54, "policy descriptor has the wrong size")                \
    XX(ENULLCB,     -55, "policy descriptor has a NULL callback")               \
    XX(EPOLINIT,    -56, "policy init failed")                                  \
    XX(EBADCHOICE,  -57, "policy chose a node that is not an eligible member")  \
    XX(ENOELIGIBLE, -58, "no eligible node")                                    \
    XX(EIDINUSE,    -60, "node id already held by a live session")              \
    XX(ENOTMEMBER,  -61, "not a member of the group")                           \
    XX(EBUSY,       -62, "operation already in progress")                       \
    XX(ESTATE,      -63, "operation not allowed in the current state")          \
    XX(ECANCELED,   -64, "operation canceled")                                  \
    XX(ENOLEADER,   -65, "no leader")                                           \
    XX(EFOREIGN,    -66, "node id's member record is a foreign persistent or container znode")

enum zkelect_errno {
#define ZKELECT_ERRNO_ENUM(name, value, text) ZKELECT_##name = (value),
    ZKELECT_ERRNO_MAP(ZKELECT_ERRNO_ENUM)
#undef ZKELECT_ERRNO_ENUM
};

/* The text of a ZKELECT_E* code; "unknown error" for anything else. Static storage. */
ZKELECT_API const char *zkelect_strerror(int err);

/* The symbolic name ("EINVAL", ...) of a code; "UNKNOWN" for anything else. Static storage. */
ZKELECT_API const char *zkelect_errname(int err);

/* The library's version string, e.g. "0.1.0". Static storage. */
ZKELECT_API const char *zkelect_version(void);


/* ------------------------------------------------------------------------
 * Handles, groups and events
 *
 * Threading: a handle owns one ZooKeeper session and one library thread.
 * ZooKeeper's own threads only queue what happened; the library thread runs
 * every group's state machine, one event at a time, and calls every callback
 * below. Callbacks must not block for long (they delay every group of the
 * handle); long work (a takeover, a step-down) is finished later with
 * zkelect_takeover_done() / zkelect_stepdown_done(), which any thread may call.
 * Every other function is thread-safe. A library thread (rather than an fd the
 * caller polls) keeps timers - watchdog, exclusions, request nudges - running
 * even while the caller is busy, which is what an election needs.
 * ------------------------------------------------------------------------ */

typedef struct zkelect zkelect_t;             /* a handle: one ZooKeeper session */
typedef struct zkelect_group zkelect_group_t; /* one election group (a base path) */

/* Log levels (the same numbers as syslog's). */
#define ZKELECT_LOG_ERR     3
#define ZKELECT_LOG_WARNING 4
#define ZKELECT_LOG_NOTICE  5
#define ZKELECT_LOG_INFO    6
#define ZKELECT_LOG_DEBUG   7

/* Log callback: msg is one line without a newline, valid during the call. */
typedef void (*zkelect_log_fn)(void *data, int level, const char *msg);

/* Event types: a stable vocabulary (see zkelect_event_name()). */
enum zkelect_event_type {
    ZKELECT_EV_CONNECTED = 1,     /* "+connected": session (re)established */
    ZKELECT_EV_DISCONNECTED,      /* "-disconnected": connection lost, session may live */
    ZKELECT_EV_EXPIRED,           /* "-session-expired": everything is rebuilt on a new session */
    ZKELECT_EV_AUTH_FAILED,       /* "-auth-failed": credentials refused */
    ZKELECT_EV_REGISTERED,        /* "+registered": this node is a candidate */
    ZKELECT_EV_UNREGISTERED,      /* "-registered": this node left the group */
    ZKELECT_EV_ELECTOR,           /* "+elector": this node became the elector */
    ZKELECT_EV_ELECTOR_LOST,      /* "-elector": it no longer is */
    ZKELECT_EV_DECISION,          /* "+decision": this elector wrote a decision */
    ZKELECT_EV_NO_ELIGIBLE,       /* "-no-eligible": the policy found no node to lead */
    ZKELECT_EV_WATCHDOG,          /* "+watchdog": the elected node was not READY in time */
    ZKELECT_EV_LEADER_FENCED,     /* "+leader-fenced": a stale leader znode was removed */
    ZKELECT_EV_TAKEOVER,          /* "+takeover": this node is elected, now PROGRESS */
    ZKELECT_EV_READY,             /* "+ready": this node is the READY leader */
    ZKELECT_EV_TAKEOVER_ABORT,    /* "-takeover-abort": takeover aborted (elected moved) */
    ZKELECT_EV_TAKEOVER_FAILED,   /* "-takeover-failed": the application's takeover failed */
    ZKELECT_EV_STEPDOWN,          /* "-stepdown": this node stops leading (elected moved) */
    ZKELECT_EV_SUSPENDED,         /* "-suspended": leader suspended (disconnected) */
    ZKELECT_EV_RESUMED,           /* "+resumed": leadership verified after a reconnect */
    ZKELECT_EV_LOST,              /* "-leadership-lost": leadership lost (expiry, znode gone) */
    ZKELECT_EV_LEADER_CHANGED,    /* "+leader-changed": the group's leader/status/epoch changed */
    ZKELECT_EV_MALFORMED,         /* "-malformed": a znode holds data we cannot decode */
    ZKELECT_EV_ERROR,             /* "-error": any other error (error field says which) */
    ZKELECT_EV_STALLED,           /* "-request-stalled": a request was slow; session nudged */
    ZKELECT_EV_STUCK,             /* "-stuck": a group could not move on by itself (a bug);
                                     the detail names its state; it is re-driven */
    ZKELECT_EV_FENCED,            /* "-fenced": this leader heard nothing from ZooKeeper for
                                     fence_ms and stepped down, or, elected, did not start
                                     its takeover for that reason (no callback); it takes
                                     over (+takeover) if still elected when heard again */
    ZKELECT_EV_HOLD,              /* "+hold": the elector holds a decision back (settle at a
                                     cold start, failback delay, anti-flap) or the hold
                                     ended; the detail says which, for whom, how long */
    ZKELECT_EV__COUNT
};

/* Subscription masks. */
#define ZKELECT_MASK(ev) (1u << (ev))
#define ZKELECT_MASK_ALL 0xffffffffu
#define ZKELECT_MASK_LEADER (ZKELECT_MASK(ZKELECT_EV_LEADER_CHANGED))
#define ZKELECT_MASK_ERRORS (ZKELECT_MASK(ZKELECT_EV_DISCONNECTED) | ZKELECT_MASK(ZKELECT_EV_EXPIRED) | \
    ZKELECT_MASK(ZKELECT_EV_AUTH_FAILED) | ZKELECT_MASK(ZKELECT_EV_SUSPENDED) |                    \
    ZKELECT_MASK(ZKELECT_EV_LOST) | ZKELECT_MASK(ZKELECT_EV_MALFORMED) |                           \
    ZKELECT_MASK(ZKELECT_EV_ERROR) | ZKELECT_MASK(ZKELECT_EV_NO_ELIGIBLE) |                        \
    ZKELECT_MASK(ZKELECT_EV_STALLED) | ZKELECT_MASK(ZKELECT_EV_TAKEOVER_FAILED) |                 \
    ZKELECT_MASK(ZKELECT_EV_STUCK) | ZKELECT_MASK(ZKELECT_EV_FENCED))

/* Leader status, as in the leader znode. */
enum zkelect_status {
    ZKELECT_STATUS_NONE = 0,      /* no leader */
    ZKELECT_STATUS_PROGRESS = 1,  /* taking over */
    ZKELECT_STATUS_READY = 2      /* serving */
};

/* The name of a leader status: "NONE", "PROGRESS" or "READY" (the words of
 * the leader znode and of zkelectd's event log); "?" for any other value.
 * Static storage. */
ZKELECT_API const char *zkelect_status_name(int status);

/* One event. Every pointer is valid only during the callback. */
struct zkelect_event {
    enum zkelect_event_type type;  /* what happened */
    const char *name;              /* its stable name, e.g. "+ready" */
    const char *group;             /* group base path, or NULL for session events */
    const char *node;              /* node concerned (leader, elected...), or NULL */
    uint64_t epoch;                /* epoch concerned, or 0 */
    enum zkelect_status status;    /* leader status, for LEADER_CHANGED */
    int error;                     /* ZKELECT_E* code for error events, else 0 */
    const char *detail;            /* human-readable detail, never NULL */
    uint64_t mono_ms;              /* CLOCK_MONOTONIC time of the event, ms */
    int slot;                      /* the slot concerned (0 in a group with one leader;
                                      see zkelect_get_leaders) */
};

typedef void (*zkelect_event_fn)(void *data, const struct zkelect_event *ev);

/* Handle options: zero-fill, then set what you need (size = sizeof). */
struct zkelect_options {
    size_t size;                   /* sizeof(struct zkelect_options) */
    const char *hosts;             /* "host:port,...[/chroot]"; required */
    int session_timeout_ms;        /* default 10000 */
    int connect_timeout_ms;        /* zkelect_open fails after this; default 15000 */
    const char *auth_file;         /* file holding "user:password" (digest), or NULL:
                                      then $ZKELECT_AUTH_FILE, then $ZKELECT_AUTH; a
                                      regular file, not a symbolic link, owned by the
                                      process's user, mode 0600 or stricter */
    zkelect_log_fn log;            /* log callback, or NULL for none */
    void *log_data;                /* passed to log */
    int log_level;                 /* most verbose level passed; default ZKELECT_LOG_INFO */
    zkelect_event_fn on_event;     /* handle-wide events (session), or NULL */
    void *event_data;              /* passed to on_event */
    int nudge_ms;                  /* a request outstanding this long nudges the session
                                      (ZooKeeper 3.8.0 stall); default 250, <0 disables */
    /* The fields below came after the first header (0.1.0): a caller built
       against that one passes a smaller size and gets their defaults. */
    int stepdown_ms;               /* the longest the application's step-down (callback
                                      and whatever it stops) takes; default a tenth of
                                      the session timeout */
    int fence_ms;                  /* self-fence: a leader that has heard nothing from
                                      ZooKeeper for this long steps down (-fenced) so that
                                      its step-down has ended before its session can
                                      expire; default session timeout / 2 - stepdown_ms;
                                      fence_ms + stepdown_ms must not exceed half the
                                      session timeout (ZKELECT_EINVAL); <0 disables */
};

/* Open a handle and wait until the session is connected (or connect_timeout_ms:
 * ZKELECT_ECONNECT, and the log says so when every server refused the
 * connection). *out must be closed with zkelect_close(). */
ZKELECT_API int zkelect_open(const struct zkelect_options *opts, zkelect_t **out);

/* Resign every group gracefully (bounded by the session timeout), close the
 * session and free the handle. NULL-safe. Must not be called from a callback. */
ZKELECT_API void zkelect_close(zkelect_t *h);

/* The current ZooKeeper session id (0 when none). */
ZKELECT_API int64_t zkelect_session_id(zkelect_t *h);

/* Non-zero while the session is connected. */
ZKELECT_API int zkelect_connected(zkelect_t *h);

/* The current session's id and password (16 bytes into passwd, their number
 * in *passwd_len): what zkelect_end_session() needs to close the session from
 * another process, e.g. after this one was killed. ZKELECT_ECONNLOSS (and
 * *id 0) while no session is connected. Keep the password secret: whoever
 * holds it can act as this session. */
ZKELECT_API int zkelect_get_session(zkelect_t *h, int64_t *id, unsigned char passwd[16],
                                    int *passwd_len);

/* Reattach to session id (with its password, from zkelect_get_session() of
 * an earlier process) and close it, so that ZooKeeper deletes its ephemeral
 * znodes at once instead of after the session timeout. opts as for
 * zkelect_open() (hosts, session and connect timeouts, auth_file, log; the
 * event fields are not used). Blocks up to connect_timeout_ms. Returns 0
 * (closed), ZKELECT_EEXPIRED (ZooKeeper says the session is gone already, or
 * refuses the password), ZKELECT_ECONNECT (no server answered in time),
 * ZKELECT_EAUTHFAILED, ZKELECT_EINVAL. Never use it on a live handle's own
 * session: that handle would see its session expire. */
ZKELECT_API int zkelect_end_session(const struct zkelect_options *opts, int64_t id,
                                    const unsigned char *passwd, int passwd_len);

/* A no-op posted to the handle's library thread: 0 once it ran, within
 * timeout_ms; ZKELECT_ETIMEDOUT when the thread did not get to it (it is
 * stuck or far behind: what a service manager's watchdog wants to know). */
ZKELECT_API int zkelect_ping(zkelect_t *h, int timeout_ms);

/* Takeover callback: this node was elected at `epoch`; the leader znode is in
 * PROGRESS. Return ZKELECT_OK when the takeover is complete (the node goes
 * READY), a negative code when it failed, or ZKELECT_EBUSY to finish later
 * with zkelect_takeover_done(). */
typedef int (*zkelect_takeover_fn)(void *data, zkelect_group_t *g, uint64_t epoch);

/* Step-down callback: this node must stop leading (epoch = the epoch it led).
 * Return ZKELECT_OK when done (the leader znode is then deleted), or
 * ZKELECT_EBUSY to finish later with zkelect_stepdown_done(). */
typedef int (*zkelect_stepdown_fn)(void *data, zkelect_group_t *g, uint64_t epoch);

/* Group options: zero-fill, then set what you need (size = sizeof). */
struct zkelect_group_options {
    size_t size;                   /* sizeof(struct zkelect_group_options) */
    const char *path;              /* base path, default "/cluster" */
    const char *policy;            /* policy name or path used when this node is the
                                      elector and the config znode names none; default "site" */
    const char *policy_path;       /* extra colon-separated module search path, or NULL */
    const char *const *policy_options; /* "key=value" strings (overridden by the
                                      config znode's options), or NULL */
    size_t npolicy_options;        /* their number */
    int watchdog_ms;               /* takeover deadline when config has none; default 10000 */
    int exclude_ms;                /* exclusion period when config has none; default 60000 */
    zkelect_event_fn on_event;     /* this group's events, or NULL */
    void *event_data;              /* passed to on_event */
    zkelect_takeover_fn on_takeover; /* NULL: a takeover completes at once */
    zkelect_stepdown_fn on_stepdown; /* NULL: a step-down completes at once */
    void *cb_data;                 /* passed to on_takeover / on_stepdown */
    unsigned flags;                /* ZKELECT_GROUP_* bits, 0 by default */
    /* The fields below came after the first header (0.1.0): a caller built
       against that one passes a smaller size and gets their defaults. Each is
       the elector's default; the config znode's value (zkelect init) wins. */
    int settle_ms;                 /* cold start: wait this long for the members before
                                      the first decision (doc/PROTOCOL.md §3); default 0
                                      (none; zkelectd's default is 2000) */
    int expect;                    /* cold start: stop waiting once this many members are
                                      present; default 0 (wait settle_ms) */
    int failback_delay_ms;         /* a voluntary automatic move (preempt, a better site
                                      back) goes to a node only once the elector has seen
                                      it healthy this long; default 0 */
    int min_move_interval_ms;      /* a voluntary automatic move waits this long after
                                      the last change of leader; default 0 */
};

/* zkelect_group_open() returns at once instead of waiting (up to the session
 * timeout) for the group's first view of `elected` and `leader`: for opening
 * many groups quickly. The first view is read once no other group was opened
 * this way on the handle for 10 ms (at most 1 s after the first of such a
 * burst), or after the registration when the group is nominated before: a
 * new group's registration creates it and needs no view. Until the first
 * view arrives zkelect_get_leader() answers ZKELECT_ENOLEADER; the view comes
 * with a "+leader-changed" event (ZKELECT_EV_LEADER_CHANGED) if there is a
 * leader. */
#define ZKELECT_GROUP_NOWAIT 0x1u

/* The takeover callback does no work that READY must wait for (or there is
 * none): the library creates the leader znode READY, one write instead of
 * two (doc/PROTOCOL.md §4). The create stays conditional on the decision;
 * the callback is still called, when the create is confirmed, and a failure
 * it returns steps the node down. A group without a takeover callback
 * always works this way. */
#define ZKELECT_GROUP_TAKEOVER_NOOP 0x2u

/* The group's on_event gets no "+leader-changed" events (every other event
 * still). A group follows the leader (keeps `elected` and the leader znode
 * watched, and reads them on each change) only while somebody needs it: the
 * elector, a candidate in play (elected, taking over, leading), a
 * zkelect_subscribe() with ZKELECT_MASK_LEADER, an on_event without this
 * flag, a zkelect_wait_leader() in progress. Any other member watches
 * nothing that changes with the leader (the elector wakes it when it elects
 * it), and zkelect_get_leader(), zkelect_get_leaders() and
 * zkelect_get_node_host() read the leader from ZooKeeper when called (from
 * a callback they answer from the view) (doc/PROTOCOL.md §2, "Who
 * follows"). The handle's on_event never makes a
 * group follow: it sees "+leader-changed" from groups that follow. */
#define ZKELECT_GROUP_NO_LEADER_EVENTS 0x4u

/* Open a group as an observer (it sees the leader; it is no candidate). */
ZKELECT_API int zkelect_group_open(zkelect_t *h, const struct zkelect_group_options *opts,
                                   zkelect_group_t **out);

/* Leave (unnominate if needed, bounded by the session timeout) and free the
 * group. NULL-safe. Must not be called from a callback. */
ZKELECT_API void zkelect_group_close(zkelect_group_t *g);

/* This node, as a candidate. Strings are copied by zkelect_nominate*(). */
struct zkelect_node {
    const char *id;                /* node id: 1-64 of [A-Za-z0-9._-] */
    const char *site;              /* site, or NULL/"" */
    int priority;                  /* higher is preferred */
    const char *const *tags;       /* tags, or NULL */
    size_t ntags;                  /* their number */
    int eligible;                  /* non-zero: may lead */
    const char *host;              /* host name shown to operators, or NULL */
};

/* Completion of an asynchronous nominate: err is 0 or a ZKELECT_E* code. */
typedef void (*zkelect_done_fn)(void *data, zkelect_group_t *g, int err);

/* Join the group as a candidate and wait until registered (or timeout_ms;
 * ZKELECT_ETIMEDOUT). ZKELECT_EIDINUSE when a live session holds the id;
 * ZKELECT_EFOREIGN when nodes/<id> is a persistent or container znode (no
 * session's: it stays until removed by hand; the -error event names it).
 * A nominate that times out leaves nothing behind: the registration still
 * in flight is withdrawn as by zkelect_unnominate(). An unnominate while a
 * nominate is in flight answers it ZKELECT_ECANCELED and removes whatever
 * the registration created. */
ZKELECT_API int zkelect_nominate(zkelect_group_t *g, const struct zkelect_node *self, int timeout_ms);

/* The same without waiting: done (may be NULL) is called from the library thread. */
ZKELECT_API int zkelect_nominate_async(zkelect_group_t *g, const struct zkelect_node *self,
                                       zkelect_done_fn done, void *data);

/* Resign: step down if leading (step-down callback, then the leader znode is
 * deleted), then remove this node's registration. Waits up to timeout_ms. */
ZKELECT_API int zkelect_unnominate(zkelect_group_t *g, int timeout_ms);

/* Change this candidate's priority / eligibility / health (health checks). */
ZKELECT_API int zkelect_set_priority(zkelect_group_t *g, int priority);
ZKELECT_API int zkelect_set_eligible(zkelect_group_t *g, int eligible);
ZKELECT_API int zkelect_set_healthy(zkelect_group_t *g, int healthy);

/* Replace this candidate's tags (copied; at most 16 names of [A-Za-z0-9._-]). */
ZKELECT_API int zkelect_set_tags(zkelect_group_t *g, const char *const *tags, size_t ntags);

/* Set or clear ZKELECT_GROUP_TAKEOVER_NOOP from the next takeover on (a
 * group without a takeover callback stays a no-op takeover). */
ZKELECT_API int zkelect_set_takeover_noop(zkelect_group_t *g, int noop);

/* Finish a takeover / step-down that the callback returned ZKELECT_EBUSY for.
 * err: ZKELECT_OK or a negative code (takeover failed). Stale epochs are ignored. */
ZKELECT_API int zkelect_takeover_done(zkelect_group_t *g, uint64_t epoch, int err);
ZKELECT_API int zkelect_stepdown_done(zkelect_group_t *g, uint64_t epoch);

/* The group's leader as this handle sees it. */
struct zkelect_leader {
    char id[65];                   /* leader node id, "" when none */
    enum zkelect_status status;    /* NONE, PROGRESS or READY */
    uint64_t epoch;                /* the leader's epoch: use it as a fencing token */
    char site[65];                 /* the leader's site ("" unknown) */
    int priority;                  /* the leader's node priority */
    int is_self;                   /* non-zero when this handle's node is that leader
                                      and is not suspended */
    char elected[65];              /* the node the current decision names ("" none) */
    uint64_t elected_epoch;        /* that decision's epoch */
    char previous[65];             /* the leader before it ("" none) */
    char reason[160];              /* why it was decided */
};

/*
 * One slot of a group with N active leaders (config `leaders`, set by
 * `zkelect init --leaders` or `zkelect set-leaders`). Slot 0 is what
 * zkelect_get_leader() shows; a group with one leader has slot 0 only.
 */
struct zkelect_slot {
    int slot;                      /* 0..N-1 */
    char id[65];                   /* the node whose leader znode this slot has, "" none */
    enum zkelect_status status;    /* NONE, PROGRESS or READY */
    uint64_t epoch;                /* that znode's epoch: the slot's fencing token */
    int is_self;                   /* non-zero when this handle's node is READY in it */
    char elected[65];              /* the node the decision names for the slot ("" none) */
    uint64_t elected_epoch;        /* the slot's epoch in that decision */
};

/*
 * Copy up to MAX slots of the current view into out[0..]. Returns N, the
 * number of slots the decision in view has (1 before any decision), which
 * may exceed MAX; or ZKELECT_EINVAL.
 */
ZKELECT_API int zkelect_get_leaders(zkelect_group_t *g, struct zkelect_slot *out, int max);

/*
 * The slot this node holds or is taking over or stepping down from (its
 * takeover and step-down callbacks are about it), or -1 when it holds none.
 * Call it from those callbacks to learn their slot.
 */
ZKELECT_API int zkelect_group_slot(zkelect_group_t *g);

/* Copy the current view into *out. ZKELECT_ENOLEADER (and out->id "") when none.
 * In the takeover callback of a fast handover (doc/PROTOCOL.md §4), called
 * before this node has read the handover's decision, `elected`,
 * `elected_epoch`, `previous` and `reason` are the handover's all the same
 * (the create succeeded only over it). */
ZKELECT_API int zkelect_get_leader(zkelect_group_t *g, struct zkelect_leader *out);

/* The host (struct zkelect_node host) of node ID as last read from its member
 * record: every member keeps the leader's and the previous leader's, so a new
 * leader can name the old one to fence it. ZKELECT_ENOLEADER when unknown;
 * buf gets "" then. */
ZKELECT_API int zkelect_get_node_host(zkelect_group_t *g, const char *id, char *buf, size_t len);

/* Wait until a leader with status >= `status` exists (or this node leads when
 * self is non-zero), up to timeout_ms. Returns 0 or ZKELECT_ETIMEDOUT. */
ZKELECT_API int zkelect_wait_leader(zkelect_group_t *g, enum zkelect_status status, int self,
                                    int timeout_ms);

/* Subscribe to events of this group (mask of ZKELECT_MASK(ev) bits). Returns a
 * positive subscription id or a negative code. A group of one slot that
 * follows only for such subscriptions (not the elector, not in play, no
 * group on_event taking leader events, no wait) watches the leader znode
 * alone, not `elected`: about 2 requests per leader change. From a callback
 * its zkelect_get_leader() then takes `elected`, `elected_epoch` and
 * `previous` from the leader znode, and `reason` is ""; from an application
 * thread it reads `elected` first (doc/PROTOCOL.md §2, "Who follows"). */
ZKELECT_API int zkelect_subscribe(zkelect_group_t *g, uint32_t mask, zkelect_event_fn fn, void *data);
ZKELECT_API int zkelect_unsubscribe(zkelect_group_t *g, int id);

/* The stable name of an event type ("+ready"), "?" if unknown. */
ZKELECT_API const char *zkelect_event_name(enum zkelect_event_type type);

/* The group's base path (valid while the group is open). */
ZKELECT_API const char *zkelect_group_path(const zkelect_group_t *g);

/* Load a policy module and initialise it with options ("key=value"), then
 * unload it: what an elector would do, checked up front (e.g. at start or by
 * `zkelectd -n`). name_or_path and search_path as in zkelect_group_options.
 * Returns 0 or the loader's code (ZKELECT_ENOTFOUND, ENOTSO, ENOSYM, EABI,
 * ESTRUCT, ENULLCB, EPOLINIT, EINVAL) with a message naming the file and
 * the cause in err. */
ZKELECT_API int zkelect_policy_check(const char *name_or_path, const char *search_path,
                                     const char *const *options, size_t noptions,
                                     char *err, size_t errlen);

/* Counters of a group, for metrics. */
struct zkelect_stats {
    uint64_t decisions;            /* decisions written as elector */
    uint64_t transitions;          /* times this node became READY */
    uint64_t watchdog_firings;     /* watchdog firings as elector */
    uint64_t stalled_requests;     /* requests nudged (handle-wide) */
    uint64_t last_contact_mono_ms; /* last reply from ZooKeeper (handle-wide) */
    int is_elector;                /* non-zero while this node is the elector */
    int registered;                /* non-zero while registered as a candidate */
    uint64_t requests;             /* ZooKeeper requests sent for this group */
    uint64_t notifications;        /* watch notifications received for this group */
};
ZKELECT_API int zkelect_get_stats(zkelect_group_t *g, struct zkelect_stats *out);

/* A group's state machine, for diagnosis and metrics. Set out->size to
 * sizeof(*out) first: the library fills the fields that size covers. */
struct zkelect_group_state {
    size_t size;                   /* sizeof(struct zkelect_group_state) */
    const char *role;              /* "none", "member", "waiting", "creating", "progress",
                                      "readying", "ready", "stepping-down", "deleting",
                                      "suspended", "fenced" (static strings) */
    const char *registration;      /* "none", "pending", "unknown", "registered", "leaving" */
    uint64_t role_ms;              /* time in that role so far */
    uint64_t registration_ms;      /* time in that registration state so far */
    uint64_t stuck;                /* times found stuck (-stuck) and re-driven: a bug */
    uint64_t illegal_transitions;  /* transitions outside the state machine: a bug */
    uint64_t gaps;                 /* handle-wide: times the library thread fell behind
                                      by over a second (timers then wait for a fresh view) */
    /* The fields below came after the first header (0.1.0). */
    uint64_t fences;               /* handle-wide: self-fences (-fenced) so far */
    int fence_ms;                  /* handle-wide: the fence delay in force, 0 when off */
    uint64_t unheard_ms;           /* handle-wide: time since the send time of the newest
                                      answered write or sync ("heard") */
    /* The fields below came with direct handovers (issue 18). */
    char successor[65];            /* a leader: the node its resignation would hand over
                                      to directly (the elector's standing succession for
                                      the decision it holds), "" when none */
    /* The fields below came with the fast handover (issue 18). */
    uint64_t fast_handovers;       /* takeovers this group began at a handover's wake,
                                      before reading the decision (doc/PROTOCOL.md §4) */
    uint64_t fast_refused;         /* such creates sent and refused (the wake was not the
                                      handover predicted; the decision read decides) */
};
ZKELECT_API int zkelect_get_state(zkelect_group_t *g, struct zkelect_group_state *out);

#ifdef __cplusplus
}
#endif
#endif /* ZKELECT_H */
