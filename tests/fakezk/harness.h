/*
 * harness.h - nodes (a zkelect handle with its groups) on the fake
 * ZooKeeper, an event recorder, and fz_settle(): deliver everything until
 * no request is pending and every library thread has gone quiet.
 *
 * Determinism: fz_settle delivers one item at a time (the first session
 * with something queued first) and flushes every handle before the next,
 * so a run depends on the order of delivery only, not on scheduling.
 *
 * Quiescence: after each delivery every open handle is flushed:
 * a no-op call posted to its library thread through the loop's own
 * zke_call_wait() (the same queue as ZooKeeper's replies, so when it has
 * run, everything queued before it has been processed). No sleeps.
 */
#ifndef ZKELECT_FAKEZK_HARNESS_H
#define ZKELECT_FAKEZK_HARNESS_H

#include <stdbool.h>
#include <stdint.h>

#include "zkelect.h"
#include "fakezk.h"

#define FZ_GROUPS 200

struct fz_node;

/* One group of a node, and what it saw. */
struct fz_grp {
    struct fz_node *n;
    zkelect_group_t *g;
    char path[128];
    unsigned counts[ZKELECT_EV__COUNT];   /* events seen, by type */
    char log[4096];                       /* "+registered +elector ..." (cut) */
    char last_error[256];                 /* the detail of the last -error or
                                             -malformed (cut) */
    bool nominate_done;                   /* the nominate completion ran */
    int nominate_err;                     /* its error */
    int nominate_calls;                   /* how many times it ran */
    int takeover_mode;                    /* 0: takeovers succeed at once; else its
                                             return value (ZKELECT_EBUSY: deferred) */
    uint64_t takeover_epoch;              /* last takeover callback's epoch */
    int stepdown_mode;                    /* 0 or ZKELECT_EBUSY */
    bool ineligible;                      /* fz_nominate: eligible = 0 */
    const char *site;                     /* fz_nominate: the node's site, or NULL */
    const char *host;                     /* fz_nominate: the node's host, or NULL
                                             ("fakehost") */
    int quiet;                            /* fz_quiet when the group was opened */
    const char *takeover_host_of;         /* a node id: the takeover callback asks
                                             zkelect_get_node_host for it ... */
    char takeover_host[256];              /* ... and keeps the answer here */
    int takeover_host_rc;                 /* ... and its return code */
    char takeover_previous[64];           /* zkelect_get_leader() in the takeover
                                             callback: the previous leader ... */
    char takeover_reason[256];            /* ... and the decision's reason */
    uint64_t stepdown_epoch;
    int stepdown_calls;                   /* step-down callbacks so far */
};

struct fz_node {
    char id[65];
    zkelect_t *h;
    int ngroups;
    struct fz_grp grp[FZ_GROUPS];
    bool open;
};

/* Group options of the next fz_node_open (fz_begin resets them): the
 * watchdog and exclusion periods (default 60000 ms: no timer fires during a
 * test unless it asks for one). */
extern int fz_watchdog_ms, fz_exclude_ms;
/* The policy of the next fz_node_open: a name in policies/ or a path (fz_begin
 * resets it to "nodeid"). */
extern const char *fz_policy;
/* The session timeout and the self-fence options of the next fz_node_open
 * (fz_begin resets them: 10000, 0 and 0, i.e. the library's defaults). */
extern int fz_session_ms, fz_fence_ms, fz_stepdown_ms;
/* Open the next nodes' groups with ZKELECT_GROUP_TAKEOVER_NOOP (fz_begin
 * resets it to false): READY is sent right behind the PROGRESS create. */
extern bool fz_takeover_noop;
/* The groups are opened with ZKELECT_GROUP_NOWAIT, whose first view waits
 * for the end of the burst of opens (ZKE_FRESH_MS) or for the nomination.
 * fz_node_open waits until each group has started (its first view sent), so
 * that a test sees the view read before it nominates, unless fz_open_fresh
 * is set (fz_begin resets it to false): then the groups start on their own. */
extern bool fz_open_fresh;
/* With fz_open_fresh: the burst's window of the next nodes' handles (the
 * library's ZKE_FRESH_MS and ZKE_FRESH_MAX_MS, 10 ms and 1 s), so that a
 * test does not depend on the machine's speed; 0 (fz_begin) the library's. */
extern int fz_fresh_ms;
/* How the next nodes' groups take the leader's changes (fz_begin resets it to
 * FZ_FOLLOW):
 *   FZ_FOLLOW         the group's on_event records every event: the group
 *                     follows the leader (doc/PROTOCOL.md §2, "Who follows");
 *   FZ_QUIET_NOCB     no on_event: the group is quiet (it follows only while
 *                     in play); its events are recorded from the handle's
 *                     on_event, which makes no group follow;
 *   FZ_QUIET_NOEVENTS on_event with ZKELECT_GROUP_NO_LEADER_EVENTS (quiet too).
 * A quiet group's zkelect_get_leader() from the test thread blocks on reads
 * nobody delivers: call it through fz_run_settling (fz_is_ready is safe on a
 * group that leads or takes over: that one follows). */
#define FZ_FOLLOW         0
#define FZ_QUIET_NOCB     1
#define FZ_QUIET_NOEVENTS 2
extern int fz_quiet;

/* Reset the fake (between tests). */
void fz_begin(void);
/* Close every node still open (settling while they leave), check nothing is
 * left outstanding. */
void fz_end(void);

/* Open a handle for node id (session connected at once), and ngroups groups
 * "<base>", "<base>-1", ... (observers, not yet nominated). */
int fz_node_open(struct fz_node *n, const char *id, const char *base, int ngroups);
/* Nominate group i asynchronously (priority, eligible). */
int fz_nominate(struct fz_node *n, int i, int priority);
/* Close the handle (zkelect_close, while the test thread settles). */
void fz_node_close(struct fz_node *n);

/* CLOCK_MONOTONIC in ms (the harness's deadlines). */
uint64_t fz_now_ms(void);

/* The node's current ZooKeeper session id. */
int64_t fz_sid(struct fz_node *n);

/* Deliver until quiet. Returns 0, or -1 if still busy after timeout_ms. */
int fz_settle(int timeout_ms);
/* Flush every open handle's library thread (no delivery). */
void fz_flush(void);
/* Settle, then wait (settling) until cond(arg) or timeout_ms. Returns 0 / -1. */
/* Deliver session sid's items one at a time, flushing after each, until the
   head of its queue starts with prefix (false if it never does). */
bool fz_deliver_until(int64_t sid, const char *prefix);
int fz_settle_until(bool (*cond)(void *), void *arg, int timeout_ms);

/* Count of an event type a group saw. */
unsigned fz_count(struct fz_node *n, int i, enum zkelect_event_type t);
/* Non-zero when group i of n is the READY leader in its own view. */
bool fz_is_ready(struct fz_node *n, int i);
/* The leader id every open node's group i agrees on in the tree ("" none). */
const char *fz_tree_leader(const char *base, char *buf, size_t len);
/* Znode PATH exists and its data contains TEXT. */
bool fz_znode_has(const char *path, const char *text);

/* Run fn(arg) on a helper thread while the test thread settles until it
 * returns (for blocking API calls). Returns fn's result. */
int fz_run_settling(int (*fn)(void *), void *arg, int timeout_ms);

/* ---- assertions' helpers ---- */

/* Group i of n is registered / is the elector (zkelect_get_stats). */
bool fz_registered(struct fz_node *n, int i);
bool fz_is_elector(struct fz_node *n, int i);
/* Election znodes of id under base; whether base/nodes/<id> exists. */
int fz_election_children(const char *base, const char *id);
bool fz_member_znode(const char *base, const char *id);
/* The id of the one READY leader among ns[0..count) for group i, NULL when
 * none or more than one. */
const char *fz_ready_leader(struct fz_node *ns, int count, int i);
/* The tree and every group's events, on stderr. */
void fz_print_state(const char *what, struct fz_node *ns, int count);

/*
 * Liveness: after a fault is over (the session is back) a state is awaited,
 * not checked once quiet, since the library may repair a group from a timer
 * (its 1 s safety-net scan): fz_eventually() delivers and re-checks until
 * FAKEZK_LIVENESS_MS (default 1500 ms). Once a wait has failed, later waits
 * (until fz_liveness_reset) only settle: the test has failed already, and a
 * fault loop stays fast on a library with the bug.
 */
bool fz_eventually(bool (*cond)(void *), void *arg);
void fz_liveness_reset(void);

/* Set FAKEZK_VERBOSE=1 to print the library's log lines. */
#endif
