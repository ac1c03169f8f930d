/*
 * internal.h - libzkelect's internal structures: the handle (session, library
 * thread, event queue, outstanding requests) and the group state machine.
 *
 * Concurrency: ZooKeeper's completion thread only calls req_complete_* and
 * session_watcher, which copy what happened into a struct zev and queue it.
 * The library thread (loop.c) pops events one at a time and is the only code
 * that reads or changes group state. API calls from user threads post
 * commands into the same queue and, when blocking, wait on a condition
 * variable for a predicate that the library thread updates under h->mu.
 */
#ifndef ZKELECT_INTERNAL_H
#define ZKELECT_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <zookeeper/zookeeper.h>

#include "zkelect.h"
#include "zkelect/policy.h"
#include "codec.h"
#include "policy.h"
#include "zkecommon.h"              /* ZKE_PATH_MAX, paths, zke_escape... */

struct zkelect_group;
struct zkelect;

/* ---- requests and events ------------------------------------------------ */

/* What an outstanding request was for (dispatched by the group code). */
enum req_kind {
    REQ_GET_ELECTED = 1,  /* aget elected (watch) */
    REQ_GET_LEADER,       /* aget leader (watch) */
    REQ_EXISTS_LEADER,    /* aexists leader (watch), after NONODE */
    REQ_EXISTS_ELECTED,   /* aexists elected (watch), after NONODE */
    REQ_ENSURE_PATH,      /* acreate of a persistent parent */
    REQ_REGISTER,         /* amulti: create nodes/<id> + election/<id>_<guid>_ */
    REQ_FIND_MINE,        /* aget_children election: find my znode by guid */
    REQ_CHECK_ID,         /* aexists nodes/<id>: who owns it */
    REQ_LIST_ELECTION,    /* aget_children election (watch when elector) */
    REQ_WATCH_PRED,       /* aget_children2 predecessor (watch: its deletion; an
                             aexists when its ACL denies READ) */
    REQ_GET_MEMBER,       /* aget nodes/<id> (watch, elector) */
    REQ_GET_CONFIG,       /* aget config (watch, elector) */
    REQ_EXISTS_CONFIG,    /* aexists config (watch) */
    REQ_GET_SWITCHOVER,   /* aget switchover (watch, elector) */
    REQ_EXISTS_SWITCHOVER,/* aexists switchover (watch) */
    REQ_GET_HISTORY,      /* aget history (elector) */
    REQ_DECIDE,           /* amulti: write elected + history */
    REQ_LEADER_CREATE,    /* amulti: check elected, create leader PROGRESS */
    REQ_LEADER_READY,     /* amulti: check elected, set leader READY */
    REQ_LEADER_DELETE,    /* adelete leader (version) */
    REQ_LEADER_FENCE,     /* adelete a stale leader znode (elector) */
    REQ_UPDATE_MEMBER,    /* aset nodes/<id> */
    REQ_UNREGISTER,       /* amulti: delete nodes/<id> + election znode */
    REQ_GET_LEADER_INFO,  /* aget nodes/<leader> (observer info) */
    REQ_NUDGE,            /* aexists "/" to unstick a stalled session */
    REQ_STAT_MINE,        /* aexists my election znode: its czxid */
    REQ_CREATE_ELECTION,  /* acreate my election znode alone (record is ours) */
    REQ_WATCH_MINE,       /* aexists (watch) on one of my own znodes */
    REQ_READ_SELF,        /* aget (watch) my member record after a change */
    REQ_PROBE,            /* async (sync) "/": a leader keeps heard_ms fresh (fence.c) */
    REQ_LEADER_RETAKE,    /* amulti: check elected, set our leader znode PROGRESS */
    REQ_GET_SUCCESSOR,    /* aget successor (watch, a leader) */
    REQ_EXISTS_SUCCESSOR, /* aexists successor (watch), after NONODE */
    REQ_SUCCESSOR_WRITE,  /* amulti: check elected, [history], successor (elector) */
    REQ_SYNC              /* async (sync): the server catches up before our reads */
};

/* One outstanding asynchronous request. Freed by the library thread. */
/* The most ops in one multi: a handover's ten, or a decision's two and an
   elector's wake (two writes) for each of its slots (group_wake_ops). */
#define ZKE_MULTI_MAX (2 + 2 * ZKE_LEADERS_MAX + 2)

/* An election znode's data (its node's id) with this after it names the
   node the standing successor (doc/PROTOCOL.md §4). */
#define ZKE_NAMED_SUFFIX " successor"

/* What a multi's wakes point at until its completion has run. */
struct req_wake {
    int n;
    char path[ZKE_LEADERS_MAX][ZKE_PATH_MAX];
    char id[ZKE_LEADERS_MAX][ZKE_ID_MAX + sizeof(ZKE_NAMED_SUFFIX)]; /* the data */
};

struct req {
    struct req *next, *prev;          /* h->outstanding list (h->mu) */
    struct zkelect *h;                /* owning handle */
    struct zkelect_group *g;          /* group (holds a reference), or NULL */
    uint64_t gen;                     /* session generation it was sent on */
    enum req_kind kind;               /* what for */
    uint64_t sent_ms;                 /* CLOCK_MONOTONIC when sent */
    uint64_t token;                   /* kind-specific (epoch, version...) */
    uint64_t attempt;                 /* registration requests: g->reg_attempt when sent */
    char arg[ZKE_PATH_MAX];           /* kind-specific (member id, child name) */
    /* multi storage: must live until the completion runs */
    zoo_op_t ops[ZKE_MULTI_MAX];      /* multi ops */
    zoo_op_result_t results[ZKE_MULTI_MAX]; /* multi results */
    char pathbuf[2][ZKE_PATH_MAX];    /* created paths */
    char *payload[2];                 /* encoded data (freed with the req) */
    struct req_wake *wake;            /* the wakes' paths and data (group_wake_op) */
    struct Stat mstat;                /* a multi's set op's stat, where asked */
};

/* Kinds of queued events. */
enum zev_kind {
    ZEV_SESSION = 1,  /* session state change (state) */
    ZEV_WATCH,        /* a watch fired (type, path) */
    ZEV_REPLY,        /* a request completed (req, rc, data...) */
    ZEV_CALL          /* an API call from a user thread (fn, arg) */
};

/* One queued event: owns its copies of data. */
struct zev {
    struct zev *next;                 /* queue link */
    enum zev_kind kind;               /* what */
    uint64_t queued_ms;               /* CLOCK_MONOTONIC when queued */
    uint64_t gen;                     /* session generation (SESSION, WATCH) */
    int state;                        /* ZEV_SESSION: ZooKeeper state */
    int type;                         /* ZEV_WATCH: event type */
    char *path;                       /* ZEV_WATCH: path (owned) */
    struct req *req;                  /* ZEV_REPLY: the request */
    int rc;                           /* ZEV_REPLY: ZooKeeper rc */
    char *data;                       /* ZEV_REPLY: data copy (owned), or NULL */
    int datalen;                      /* -1 when the znode had NULL data */
    struct Stat stat;                 /* ZEV_REPLY: stat, when has_stat */
    bool has_stat;                    /* stat is valid */
    char **strings;                   /* ZEV_REPLY: children (owned) */
    int nstrings;                     /* their number */
    void (*fn)(struct zkelect *, void *); /* ZEV_CALL: run on the library thread */
    void *arg;                        /* ZEV_CALL: its argument */
};

/* ---- the handle ---------------------------------------------------------- */

/* Per-zhandle context for the session watcher: which generation it is. */
struct zctx {
    struct zkelect *h;                /* handle */
    uint64_t gen;                     /* generation of that zhandle */
};

enum sess_state {
    SESS_CONNECTING = 0,              /* no session yet / reconnecting */
    SESS_CONNECTED,                   /* live and connected */
    SESS_EXPIRED,                     /* expired: rebuilding on a new session */
    SESS_AUTH_FAILED,                 /* refused: nothing works */
    SESS_CLOSING                      /* zkelect_close in progress */
};

struct sub {
    struct sub *next;                 /* list link */
    bool dead;                        /* unsubscribed while the group's subscribers
                                         were being called: freed after the call */
    int id;                           /* subscription id */
    uint32_t mask;                    /* event mask */
    zkelect_event_fn fn;              /* callback */
    void *data;                       /* its data */
};

struct zkelect {
    struct zkelect_group *held;       /* the group whose reads wait for the rest of a
                                         batch of notifications (group_hold), or NULL */
    struct zkelect_group *paused;     /* the group that steps aside for a handover
                                         (loop.c, doc/PROTOCOL.md §4), or NULL */
    struct zev *phead, *ptail;        /* its events since, in the order they came */
    uint64_t pause_until;             /* CLOCK_MONOTONIC end of the pause at the latest */
    int pause_ms;                     /* its longest (ZKE_PAUSE_MS; tests set more) */
    bool replaying;                   /* the pause's events are being handled */
    bool groups_new;                  /* the last group whose first view was read found
                                         no decision: the next reads exists-first */
    char parent_ok[ZKE_PATH_MAX];     /* a base path's parent whose ancestors exist: a
                                         registration under it succeeded (library
                                         thread; "" none) */
    char maxl_key[1024];              /* the policy (name, path, options) whose */
    uint32_t maxl_val;                /* max_leaders was found last (api.c, h->mu) */
    /* configuration (immutable after open) */
    char *hosts;                      /* connect string */
    int session_timeout_ms;           /* requested session timeout */
    int connect_timeout_ms;           /* zkelect_open deadline */
    char *auth;                       /* digest credential "user:password", or NULL */
    zkelect_log_fn log;               /* log callback */
    void *log_data;                   /* its data */
    int log_level;                    /* max level passed */
    zkelect_event_fn on_event;        /* handle-wide events */
    void *event_data;                 /* their data */
    int nudge_ms;                     /* stalled-request threshold, <= 0 off */

    /* owned by the library thread */
    zhandle_t *zh;                    /* current ZooKeeper handle */
    struct zctx *zctx;                /* its watcher context (freed after close) */
    uint64_t gen;                     /* generation of zh (increments per session) */
    enum sess_state sess;             /* session state */
    int64_t session_id;               /* current session id (copied when connected) */
    int negotiated_timeout_ms;        /* session timeout the server granted */
    uint64_t disconnected_ms;         /* when the connection was lost, 0 if connected */
    uint64_t connected_ms;            /* when the session last became connected */
    uint64_t turn_end_ms;             /* when the library thread last finished a turn */
    uint64_t n_stale;                 /* times the view was found stale (a gap) */
    bool behind;                      /* in a gap: timers wait until caught up */
    uint64_t behind_since_ms;         /* when that gap was found */
    bool auth_pending;                /* the credential still has to reach the client */
    struct zkelect_group *groups;     /* all groups (list) */
    struct zkelect_group **gindex;    /* groups by base path (ZKE_GINDEX buckets) */

    /* state lock: held by the library thread while it processes an event */
    pthread_mutex_t mu;               /* recursive; guards all group state */
    pthread_cond_t cv;                /* broadcast after every processed event */
    bool connected_once;              /* a session was established (mu) */
    uint64_t timer_scan_at;           /* when the groups' timers are looked at next (mu) */
    struct req *nudged_req;           /* the request nudged last (identity only, never
                                         dereferenced: with nudged_sent_ms) (mu) */
    uint64_t nudged_sent_ms;
    int nudged_count;                 /* nudges sent for it */
    int sess_public;                  /* copy of sess for API readers (mu) */
    int64_t session_id_public;        /* copy of session_id for API readers (mu) */
    unsigned char session_passwd[16]; /* its password, copied when connected (mu) */

    /* queue lock: the only lock ZooKeeper's threads take */
    pthread_mutex_t qmu;              /* guards the fields below */
    pthread_cond_t qcv;               /* wakes the library thread */
    struct zev *qhead, *qtail;        /* event queue */
    struct req outstanding;           /* sentinel of the outstanding request list */
    bool stop;                        /* the library thread must exit */
    uint64_t stalled;                 /* requests nudged */
    uint64_t last_contact_ms;         /* last reply from ZooKeeper */
    int n_out;                        /* requests outstanding (the pipeline) */
    uint64_t heard_ms;                /* the send time of the newest request answered on
                                         this session: the server heard us no earlier, so
                                         its session deadline is at least heard_ms + T
                                         (fence.c) */
    pthread_t thread;                 /* the library thread */

    /* the self-fence (fence.c; library thread, mu) */
    int stepdown_ms;                  /* the application's step-down budget D */
    int fence_ms_opt;                 /* fence_ms as given (0 derived, <0 off) */
    int fence_ms;                     /* F in force (from the negotiated timeout), 0 off */
    int probe_ms;                     /* a leader probes when heard is this old */
    int n_watch;                      /* groups active or fenced: probes run */
    bool probe_out;                   /* a probe is outstanding */
    uint64_t fence_scan_at;           /* next fence scan (0: none due) */
    uint64_t n_fenced;                /* self-fences */

    /* groups whose start (view, registration) waits for the pipeline to
       drain (loop.c, group_kick; library thread, mu) */
    struct zkelect_group *khead, *ktail;
    /* groups opened with ZKELECT_GROUP_NOWAIT whose first view waits for
       the end of the burst of opens, or for their nomination (api.c,
       loop_fresh_flush; library thread, mu) */
    struct zkelect_group *fhead, *ftail;
    uint64_t fresh_due_ms;            /* the burst's end: its last open + ZKE_FRESH_MS */
    uint64_t fresh_cap_ms;            /* its first open + ZKE_FRESH_MAX_MS */
    int fresh_ms, fresh_max_ms;       /* ZKE_FRESH_MS and ZKE_FRESH_MAX_MS (the fake
                                         ZooKeeper's tests set longer ones, h->mu) */
};

/* ---- the group ----------------------------------------------------------- */

/* This node's role in the group as a candidate. */
enum role {
    ROLE_NONE = 0,       /* observer, or not yet registered */
    ROLE_MEMBER,         /* registered, not elected */
    ROLE_WAITING,        /* elected; waiting for the old leader znode to go */
    ROLE_CREATING,       /* elected; creating the leader znode */
    ROLE_PROGRESS,       /* leader znode PROGRESS, takeover running */
    ROLE_READYING,       /* takeover done; setting READY */
    ROLE_READY,          /* READY leader */
    ROLE_STEPPING_DOWN,  /* step-down callback running */
    ROLE_DELETING,       /* deleting the leader znode */
    ROLE_SUSPENDED,      /* was leading, connection lost: verify on reconnect */
    ROLE_FENCED          /* stepped down unheard (self-fence) or cut off: the
                            step-down has ended, the leader znode may still be
                            ours; take over again or release once heard */
};

enum reg_state {
    REG_NONE = 0,        /* not a candidate */
    REG_PENDING,         /* registration request outstanding */
    REG_UNKNOWN,         /* outcome unknown: find by guid on reconnect */
    REG_DONE,            /* registered */
    REG_LEAVING          /* unregister outstanding */
};

struct member_cache {                 /* elector's view of one member */
    struct member_cache *next;        /* list link */
    struct zke_member rec;            /* decoded record */
    bool valid;                       /* rec decoded OK */
    bool loaded;                      /* a read completed */
    int64_t seq;                      /* election znode sequence (lowest for the id) */
    char znode[ZKE_ZNODE_MAX + 1];    /* that election znode's name */
    int32_t version;                  /* nodes/<id>'s version as read */
    bool seen;                        /* still in the election children (mark/sweep) */
    uint64_t ok_since;                /* CLOCK_MONOTONIC ms since when this elector has seen
                                         it valid, eligible and healthy; 0 = it is not */
};

struct exclusion {                    /* elector: node excluded until deadline */
    struct exclusion *next;           /* list link */
    char id[ZKE_ID_MAX + 1];          /* node id */
    char reason[ZKE_NAME_MAX + 1];    /* why */
    uint64_t until_ms;                /* CLOCK_MONOTONIC deadline */
};

/*
 * One slot's leader znode as last read (doc/PROTOCOL.md, "N active
 * leaders"): slot 0 is `leader`, slot k `leader-<k>`. A group with one slot
 * has lv[0] only. The candidate's slot is lv[cslot] (CL); the elector and
 * the observers look at every slot.
 */
struct lview {
    char path[ZKE_PATH_MAX];
    bool have;                        /* present and valid */
    struct zke_leader l;              /* last decoded */
    int32_t version;                  /* its version, -1 = absent */
    int64_t owner;                    /* its ephemeralOwner */
    bool read;                        /* a read completed (present or not) */
    bool unwatched;                   /* a notification was let go (the group did not
                                         follow): no watch, no read; stale until read */
    bool defer;                       /* absent by construction, not watched yet: our
                                         registration created the group (view_absent) */
    char pub_id[ZKE_ID_MAX + 1];      /* last published leader (for LEADER_CHANGED) */
    int pub_status;
    uint64_t pub_epoch;
    /* the elector's watch over this slot's decision */
    uint64_t wd_deadline;             /* 0 = not armed */
    uint64_t wd_epoch;                /* epoch the watchdog guards */
    bool wd_fenced;                   /* already fenced a stale leader for this epoch */
    uint64_t wd_start_ms;             /* when that epoch's watchdog was armed */
    uint64_t wd_postponed_ms;         /* waited on a slow ZooKeeper (at most one period) */
    uint64_t force_epoch;             /* decide anew although the choice is the same
                                         (the watchdog, with no other candidate) */
    uint64_t ready_seen_epoch;        /* elector: elected epoch whose leader znode was seen
                                         READY (a later PROGRESS is a take-over-again) */
    uint64_t progress_seen_epoch;     /* elected epoch whose leader znode we saw last as
                                         PROGRESS (0 once seen READY) */
    uint64_t takeover_check_epoch;    /* its PROGRESS znode vanished: a fresh listing
                                         decides whether the takeover failed */
};

#define LV(g, k) ((k) == 0 ? &(g)->lv0 : &(g)->lvx[(k) - 1])
#define LV0(g)   LV(g, 0)
#define CL(g)    LV(g, (g)->cslot)

#define ZKE_GINDEX 16384               /* buckets of the group index */

/* How many election znodes below its predecessor a member remembers: a
   predecessor that goes is replaced by the next of them without a listing
   (register.c, reg_next_pred). */
#define ZKE_LOWER_MAX 4

struct zkelect_group {
    struct zkelect_group *next;       /* h->groups link */
    struct zkelect_group *hnext;      /* h->gindex bucket link */
    struct zkelect *h;                /* handle */
    int refs;                         /* outstanding requests + 1 while open */
    struct zkelect_group *knext;      /* h->khead queue link */
    unsigned kick;                    /* KICK_* work waiting in that queue, 0 none */
    bool kqueued;                     /* in that queue */
    struct zkelect_group *fnext;      /* h->fhead list link */
    bool fresh;                       /* opened NOWAIT, first view not started yet */
    bool nowait;                      /* opened with ZKELECT_GROUP_NOWAIT */
    bool closed;                      /* zkelect_group_close called */
    char path[ZKE_PATH_MAX];          /* base path */
    char p_nodes[ZKE_PATH_MAX], p_election[ZKE_PATH_MAX], p_elected[ZKE_PATH_MAX];
    char p_config[ZKE_PATH_MAX], p_switchover[ZKE_PATH_MAX];
    char p_history[ZKE_PATH_MAX];     /* derived paths */
    char p_successor[ZKE_PATH_MAX];

    /* options */
    char *policy_name;                /* default policy */
    char *policy_path;                /* module search path */
    char **opt_kv;                    /* "key=value" policy options */
    size_t nopt_kv;                   /* their number */
    int watchdog_ms, exclude_ms;      /* defaults */
    int settle_ms, expect;            /* defaults: cold-start settle (0 = none) */
    int failback_delay_ms;            /* defaults: voluntary moves (0 = none) */
    int min_move_interval_ms;
    zkelect_event_fn on_event;        /* group events */
    void *event_data;
    zkelect_takeover_fn on_takeover;  /* takeover callback */
    zkelect_stepdown_fn on_stepdown;  /* step-down callback */
    void *cb_data;
    struct sub *subs;                 /* subscriptions (h->mu) */
    int next_sub;                     /* next subscription id */
    int sub_calls;                    /* zke_event() is calling subs (nesting depth):
                                         zkelect_unsubscribe() only marks them dead */

    /* shared view (all groups): library thread writes, API reads under h->mu */
    bool have_elected;                /* elected read and valid */
    struct zke_elected elected;       /* last decoded elected */
    int32_t elected_version;          /* its znode version, -1 = absent */
    int64_t elected_mzxid;            /* zxid of its last write (INT64_MAX: our own write) */
    bool elected_read;                /* a read of elected completed (present or not) */
    bool elected_unwatched;           /* its notification was let go (as lview.unwatched) */
    bool elected_defer;               /* absent by construction, not watched yet (as
                                         lview.defer): armed after our first decision */
    bool view_deferred;               /* the first view waits for the registration's
                                         reply (view_absent or view_first) */
    bool absent_wait;                 /* the first view found elected or a leader znode
                                         absent while our registration that creates the
                                         base was pending: its exists waits (deferred)
                                         for that reply (view_absent_settle) */
    bool viewed;                      /* a first read of `elected` completed */
    bool no_leader_events;            /* ZKELECT_GROUP_NO_LEADER_EVENTS: on_event is no
                                         leader subscriber */
    int leader_waiters;               /* zkelect_wait_leader() and on-request reads in
                                         progress: the group follows meanwhile */
    uint64_t refresh_posted;          /* on-request reads posted (api.c) ... */
    uint64_t refresh_ran;             /* ... and run on the library thread */
    struct lview lv0;                 /* slot 0's leader znode, `leader` */
    struct lview *lvx;                /* slots 1..ZKE_LEADERS_MAX-1 (heap, allocated when
                                         a group first has more than one slot) */
    int nlv;                          /* slots watched: 1 + elected's extra slots */
    int cslot;                        /* the slot the candidate's role is about (CL) */
    struct zke_member leader_info;    /* nodes/<leader> record, when loaded */
    bool have_leader_info;
    char prev_info_id[ZKE_ID_MAX + 1];  /* the leader before: its id and host, from */
    char prev_info_host[ZKE_HOST_MAX + 1]; /* its record (zkelect_get_node_host) */
    int ev_slot;                      /* the slot zke_event() reports (-1: the candidate's) */

    /* candidate */
    enum reg_state reg;               /* registration state (group_reg_set only) */
    struct zke_member self;           /* this node's record */
    char guid[ZKE_GUID_LEN + 1];      /* per-session registration guid */
    uint64_t reg_attempt;             /* registration attempt: a reply of an earlier one
                                         (sent before a reconnect) is stale */
    bool ancestors_skipped;           /* ensure_paths left out the base's ancestors */
    bool paths_ok;                    /* base, nodes and election exist (a registration
                                         succeeded): do_register skips creating them */
    unsigned paths_skip;              /* ... until then the registration's multi creates
                                         them but those found there (ZNODEEXISTS;
                                         bit 0 base, 1 nodes, 2 election) */
    char my_znode[ZKE_PATH_MAX];      /* election/<id>_<guid>_<seq> name (child only) */
    int64_t my_seq;                   /* its sequence */
    int64_t my_czxid;                 /* zxid that created it; 0 until known. A decision
                                         older than this predates our registration and
                                         is never acted on (it named a former session) */
    int32_t mine_version;             /* our election znode's version as last read (its
                                         stat), -1 unknown: a fast handover's wake moves
                                         it by exactly 1 (doc/PROTOCOL.md §4) */
    bool fast_hint;                   /* slot 0's leader znode went (a notification) and
                                         no reply came since: a wake now is most likely
                                         that release's handover (fast_create) */
    uint64_t n_fast, n_fast_refused;  /* fast handovers taken, fast creates refused */
    bool held_leader, held_elected;   /* reads of slot 0's leader znode and of `elected`
                                         held back while the release's batch is handled:
                                         a fast handover's create goes out first */
    bool czxid_assumed;               /* my_czxid is 1, not read: our registration created
                                         the group (view_absent), so every decision there
                                         is newer; read when we stop being the elector */
    zkelect_done_fn nominate_done;    /* async nominate completion */
    void *nominate_data;
    enum role role;                   /* role as candidate (group_role_set only) */
    uint64_t role_since_ms;           /* when it was entered (CLOCK_MONOTONIC) */
    uint64_t reg_since_ms;            /* when g->reg was entered */
    uint64_t role_epoch;              /* epoch the role is about */
    int32_t role_elected_version;     /* elected version the takeover is based on */
    uint64_t failed_epoch;            /* epoch whose takeover failed (never retried) */
    bool takeover_ok;                 /* the takeover of role_epoch completed */
    bool takeover_noop;               /* no takeover work: the leader znode created READY */
    bool ready_direct;                /* the leader znode is created READY (no work) */
    bool ready_early;                 /* ... and was: READY once the takeover returns */
    bool active;                      /* the application may act: its takeover callback
                                         was called and its step-down has not ended */
    bool watched;                     /* counted in h->n_watch (fence_update) */
    bool fence_stepdown;              /* the step-down running is a self-fence */
    bool fence_viewed;                /* FENCED: the view is being read afresh */
    bool repairing;                   /* the READY write in flight repairs our znode */
    bool release_retry;               /* DELETING: release again once leader is re-read */
    bool rereg_pending;               /* register again once the step-down is done */
    bool sync_first;                  /* a write of ours got no answer: the resync's
                                         reads go after a sync (group_resync) */
    bool recheck_mine;                /* a check that our znodes exist was cut off by
                                         a disconnect: check again after the reconnect */
    char ignored[16][ZKE_ZNODE_MAX + 1]; /* foreign (persistent) election children */
    int nignored;                     /* their number */
    bool leaving;                     /* unnominate requested */
    bool member_dirty;                /* self record changed; write it */
    char *self_data;                  /* our member record as last read (REQ_READ_SELF,
                                         which also watches it): the elector takes its
                                         own record from here rather than read it again */
    int self_len;                     /* its length; -1: read ZNONODE */
    int32_t self_zversion;             /* its version */
    bool self_have;                   /* self_data is the last read's (no change
                                         notified since, connected since) */

    /* elector */
    bool is_elector;                  /* this node is the elector */
    bool elector_import;              /* ... and waits for `elected` and the leader
                                         znodes in view to take over (elector_import) */
    char pred[ZKE_PATH_MAX];          /* predecessor path being watched */
    char lower[ZKE_LOWER_MAX][ZKE_CHILD_MAX + 1]; /* the election znodes below pred,
                                         highest first, from our last listing:
                                         the next predecessors (reg_next_pred) */
    int nlower;                       /* entries in lower[] */
    bool lower_all;                   /* pred and lower[] were every znode below
                                         ours in that listing */
    struct member_cache *members;     /* members (elector only) */
    bool config_read, switchover_read, history_read, election_read;
    struct zke_config *config;        /* cluster config (heap, elector only; NULL = absent) */
    bool config_good;                 /* config holds a decoded config znode */
    int32_t config_version;
    int32_t config_rules_version;     /* the last version read that changed more than
                                         drains (or a new elector's first read) */
    struct zke_switchover switchover; /* last switchover request (id 0 = none) */
    char *history_buf;                /* history as last read or written, encoded
                                         (heap, NULL = none): decoded it is 24 KiB,
                                         too much to keep per group */
    size_t history_len;
    uint64_t history_last_epoch;      /* its newest entry's epoch, 0 = none */
    int32_t history_version;          /* -1 absent */
    char *succ_key;                   /* the succession last written (heap, without
                                         its time), NULL = unknown: write it */
    int succ_zstate;                  /* the successor znode: -1 unknown, 0 absent, 1 there */
    bool succ_self;                   /* the succession last written names this node to
                                         take slot 0 over (no stepping aside then) */
    bool succ_self_next;              /* ... the one being written does */
    uint64_t succ_wait_until;         /* the succession waits for the decided leader's
                                         znode until then (monotonic ms; 0 none) */
    char succ_woken[ZKE_PATH_MAX];    /* the election znode this elector last named
                                         standing successor in its data ("": none
                                         or unknown: name at the next write) */
    char succ_woken_id[ZKE_ID_MAX + 1]; /* ... its node's id */

    /* The standing succession, as a leader reads it (issue 18; only while it
       leads): its own slot's entry, valid for one version of `elected`. */
    bool succ_watch;                  /* a read or watch of it is armed */
    bool succ_have;                   /* succ below is our slot's entry, ours */
    bool succ_named;                  /* our election znode's data names us the
                                         standing successor (it follows,
                                         group_in_play; doc/PROTOCOL.md §4) */
    int32_t succ_zversion;            /* the successor znode's version read */
    int32_t succ_elected_version;     /* the version of `elected` it is valid for */
    int32_t succ_history_version;     /* ... and of the history (-1: none, no handover) */
    int32_t succ_config_version;      /* ... and of the config (-1: there was none) */
    uint64_t succ_next_epoch;         /* the epoch a handover decision gets */
    char succ_elector[ZKE_ID_MAX + 1];
    char succ_policy[ZKE_NAME_MAX + 1];
    struct zke_succ succ;
    bool handover_off;                /* this leave goes without a handover (refused) */
    unsigned reasons;                 /* ZKELECT_REASON_* accumulated for the next run */
    bool deciding;                    /* a decision write is outstanding */
    bool eval_pending;                /* re-evaluate once the write completes */
    struct exclusion *exclusions;     /* active exclusions */
    struct zke_policy *policy;        /* loaded policy, or NULL */
    uint64_t *drain_mono;             /* config->drains[i]'s end on CLOCK_MONOTONIC (heap,
                                         converted once when the config was read) */
    uint64_t switchover_due;          /* the switchover's due_ms on CLOCK_MONOTONIC (converted
                                         once when read); 0 = at once */
    uint64_t last_move_ms;            /* CLOCK_MONOTONIC of the last change of leader */
    uint64_t settle_start;            /* cold start: when the settle began; 0 = not settling */
    bool settle_done;                 /* this elector is past its cold-start settle */
    bool hold_writing;                /* the decision write outstanding shows a hold */
    struct {                          /* the hold in force (elector) */
        char kind[ZKE_NAME_MAX + 1];  /* "" none, "settle", "failback", "anti-flap" */
        char node[ZKE_ID_MAX + 1];    /* who may lead when it ends */
        uint64_t until;               /* CLOCK_MONOTONIC end */
    } hold;
    bool saw_leader;                  /* a leader znode was seen since (just before) this
                                         registration: the group is not at a cold start */
    char policy_loaded_key[1024];     /* name + options it was loaded with */
    char slots_refused[256];          /* members last reported unable to serve N slots */
    char slots_short[256];            /* "chose K of N: why" last published (-no-eligible) */

    /* liveness */
    bool pred_watched;                /* a watch is set on g->pred (its deletion) */
    uint64_t activity_ms;             /* last reply or watch handled for the group */
    uint64_t stuck_redrive_ms;        /* stuck: re-driven last then (0 = never) */
    int stuck_backoff;                /* consecutive re-drives without progress */

    /* counters (h->mu for readers) */
    uint64_t n_decisions, n_transitions, n_watchdog;
    uint64_t n_stuck;                 /* times found stuck and re-driven */
    uint64_t n_illegal;               /* illegal transitions (bugs) */
    uint64_t n_requests;              /* ZooKeeper requests sent for this group */
    uint64_t n_notifications;         /* watch notifications received for it */
};

/* ---- functions shared between files ------------------------------------ */

/* time.c-ish helpers (loop.c) */
uint64_t zke_now_ms(void);

/* logging and events (event.c) */
void zke_log(struct zkelect *h, int level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void zke_event(struct zkelect *h, struct zkelect_group *g, enum zkelect_event_type type,
               const char *node, uint64_t epoch, int error, const char *fmt, ...)
    __attribute__((format(printf, 7, 8)));

/* loop.c */
void gindex_add(struct zkelect *h, struct zkelect_group *g);
void gindex_del(struct zkelect *h, struct zkelect_group *g);
struct req *req_new(struct zkelect *h, struct zkelect_group *g, enum req_kind kind);
void req_sent(struct req *r, int rc);   /* rc of the a* call: on error queue a reply */
void req_free(struct req *r);
/* How long the oldest request of the current session has been outstanding. */
uint64_t zke_oldest_request_ms(struct zkelect *h, uint64_t now);
void zke_call(struct zkelect *h, void (*fn)(struct zkelect *, void *), void *arg);
/* The digest credential of zkelect_options.auth_file (or the environment) into
 * h->auth; logs through h->log. 0, ZKELECT_EIO or ZKELECT_EINVAL. */
int zke_load_auth(struct zkelect *h, const char *auth_file);
int zke_call_wait(struct zkelect *h, void (*fn)(struct zkelect *, void *), void *arg,
                  bool (*pred)(void *), void *pred_arg, int timeout_ms);
void data_completion(int rc, const char *value, int len, const struct Stat *stat, const void *data);
void stat_completion(int rc, const struct Stat *stat, const void *data);
void strings_completion(int rc, const struct String_vector *sv, const struct Stat *stat,
                        const void *data);
void void_completion(int rc, const void *data);
void string_completion(int rc, const char *value, const void *data);
void multi_completion(int rc, const void *data);

/* group.c */
void group_on_session(struct zkelect_group *g, enum sess_state prev, enum sess_state now);
void group_on_watch(struct zkelect_group *g, int type, const char *path);
void group_unhold(struct zkelect_group *g, bool send);
/* Tests: the longest pause of handle H (h->mu taken). */
void zke_set_pause_ms(struct zkelect *h, int ms);
bool group_pause_starts(struct zkelect_group *g, int type, const char *path);
bool group_pause_ends(struct zkelect_group *g, const struct zev *ev);
void group_on_reply(struct zkelect_group *g, struct zev *ev);
void group_on_timer(struct zkelect_group *g, uint64_t now);
uint64_t group_next_deadline(struct zkelect_group *g);
/* A group's deadline may have moved nearer: the library thread looks at the
 * timers by then (loop.c). */
void zke_timer_hint(struct zkelect *h, uint64_t deadline_ms);
#define group_timer_changed(g) zke_timer_hint((g)->h, group_next_deadline(g))
void group_resync(struct zkelect_group *g);
/* The stuck-group check (group.c), from the library thread's timer scan. */
void group_check_stuck(struct zkelect_group *g, uint64_t now);
/* The library thread fell behind by more than ZKE_GAP_MS (a long callback, a
   stopped process, a backlog): what the timers act on is re-read first. */
#define ZKE_GAP_MS 1000
#define ZKE_GAP_MAX_MS 5000            /* timers wait for the thread to catch up at most this */
/* A group that sees a handover steps aside until the new leader's znode
   appears, this long at most (loop.c, doc/PROTOCOL.md §4) */
#define ZKE_PAUSE_MS 50
void group_view_stale(struct zkelect_group *g);
void group_release(struct zkelect_group *g);
void group_free(struct zkelect_group *g);
int group_nominate(struct zkelect_group *g, const struct zkelect_node *n, zkelect_done_fn done,
                   void *data);
int group_unnominate(struct zkelect_group *g);
/* zkelect_group_close() with its own bound on the leave (api.c). */
void group_close_wait(struct zkelect_group *g, int leave_timeout_ms);
int group_set_member(struct zkelect_group *g, int what, int value);
int group_set_tags(struct zkelect_group *g, const char *const *tags, size_t ntags);
int group_done(struct zkelect_group *g, uint64_t epoch, int err, bool stepdown);
bool group_is_leading(const struct zkelect_group *g);
bool group_registered(const struct zkelect_group *g);

/* fence.c: the self-fence (handle-wide parts) */
int fence_configure(struct zkelect *h, int stepdown_ms, int fence_ms, char *why, size_t len);
void fence_negotiated(struct zkelect *h, int timeout_ms);
void fence_probe_reply(struct zkelect *h);
uint64_t fence_tick(struct zkelect *h, uint64_t now);
bool fence_lease_ok(struct zkelect *h, uint64_t now, uint64_t *unheard);

/* loop.c: the pipeline. A burst of groups starting at once (opened,
   nominated, resynchronised after a reconnect) would put tens of thousands of
   requests in flight on one session; a leader's probe would then wait behind
   them for seconds and the self-fence fire on a healthy session. So a group
   starts only while fewer than ZKE_PIPE_MAX requests are outstanding; the
   others wait in order (leaders first) and start as replies come back. */
#define ZKE_PIPE_MAX 256

/* A group opened with ZKELECT_GROUP_NOWAIT starts (reads its first view)
   once no other such open came for ZKE_FRESH_MS, at most ZKE_FRESH_MAX_MS
   after the burst's first, or at once when it is nominated: a group
   nominated before its first view registers first, and a registration
   that creates the group needs no view (doc/PROTOCOL.md §2, "A new
   group"). */
#define ZKE_FRESH_MS 10
#define ZKE_FRESH_MAX_MS 1000
#define KICK_RESYNC   1u              /* group_resync */
#define KICK_REGISTER 2u              /* reg_register, still REG_PENDING */
void group_kick(struct zkelect_group *g, unsigned what);
void group_kick_run(struct zkelect_group *g, unsigned what);
int zke_pipe_len(struct zkelect *h);
void loop_pump(struct zkelect *h);
void loop_fresh_add(struct zkelect *h, struct zkelect_group *g);
void loop_fresh_flush(struct zkelect *h, uint64_t now, bool all);

#endif
