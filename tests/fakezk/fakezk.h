/*
 * fakezk.h - a scripted, in-memory ZooKeeper for libzkelect's tests.
 *
 * The test program is linked with -Wl,--wrap=<fn> for every ZooKeeper
 * client function libzkelect calls (tests/fakezk/Makefile.inc); the
 * library's objects are linked statically, so their calls land in
 * fakezk.c instead of the real client. The *_op_init helpers and zerror()
 * stay real.
 *
 * The model:
 *  - one tree of znodes (data, version, cversion, czxid/mzxid/pzxid,
 *    ephemeralOwner, sequential names from the parent's cversion), shared by
 *    every session (handle) of the process;
 *  - a request is applied when it is sent (the server is instantaneous),
 *    its reply is queued on its session's FIFO together with the watch
 *    notifications and session events: a session's FIFO keeps ZooKeeper's
 *    order (a notification comes before the reply of a later read);
 *  - nothing reaches the library until the test delivers it
 *    (fakezk_deliver*, or fz_settle in settle.h): the test thread plays the
 *    client's completion thread (libzkelect's completions only queue);
 *  - one-shot data / exists / child watches per session, re-armed over a
 *    disconnect (changes missed while disconnected fire after CONNECTED),
 *    dropped on expiry;
 *  - faults: the Nth request of a session fails with ZCONNECTIONLOSS, applied
 *    on the server or not; the session is then disconnected (every reply
 *    still queued becomes ZCONNECTIONLOSS, CONNECTING is queued) until
 *    fakezk_reconnect(); fakezk_expire() ends a session (its ephemerals go,
 *    EXPIRED is delivered, later calls return ZINVALIDSTATE).
 *
 * Watches the client never learnt of (the reply that set them was lost) are
 * not re-armed by a reconnect, nor are their notifications delivered.
 *
 * Thread safety: every function may be called from any thread.
 */
#ifndef ZKELECT_FAKEZK_H
#define ZKELECT_FAKEZK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Forget everything (tree, sessions, faults, counters). Between tests, after
 * every handle is closed. The tree starts with "/" only. */
void fakezk_reset(void);

/* ---- delivery ---------------------------------------------------------- */

/* Deliver the head of session SID's FIFO (SID 0: of the first session, in
 * creation order, with something queued and not held). Returns 1 if
 * something was delivered, 0 if nothing. */
int fakezk_deliver_one(int64_t sid);

/* Deliver until every FIFO is empty (including what the deliveries make the
 * library send, as long as it is queued before the FIFOs run dry). Returns
 * the number of items delivered. */
int fakezk_deliver_all(void);

/* Items queued for delivery (SID 0: all sessions). */
int fakezk_pending(int64_t sid);

/* What the head of SID's FIFO is: "reply <op> <path> rc=N", "watch <type>
 * <path>", "session <state>", or "" when empty. Into buf. */
const char *fakezk_peek(int64_t sid, char *buf, size_t len);

/* Hold back session SID's FIFO from fakezk_deliver_all / fz_settle (the test
 * delivers it with fakezk_deliver_one), or release it (hold = false). */
void fakezk_hold(int64_t sid, bool hold);

/* Session SID's requests are applied by the server when their reply is
 * delivered, not when they are sent (defer = true): the test may change the
 * tree in between, as another client racing with the request would. */
void fakezk_defer_apply(int64_t sid, bool defer);

/* ---- sessions ----------------------------------------------------------- */

#define FZ_BACK  0   /* session event after everything already queued */
#define FZ_FRONT 1   /* before the queued replies (after queued session events) */
#define FZ_AFTER(k) (2 + (k)) /* after the first k queued items (between replies) */

/* Connection loss: queued replies become ZCONNECTIONLOSS, notifications are
 * kept for after the reconnect, CONNECTING is queued (where: FZ_BACK or
 * FZ_FRONT). Requests sent meanwhile (the library has not seen CONNECTING
 * yet) fail with ZCONNECTIONLOSS, not applied; see also
 * fakezk_park_while_disconnected(). */
int fakezk_disconnect(int64_t sid, int where);

/* Reconnect on the same session: CONNECTED, then the notifications of the
 * changes missed, then the requests sent while disconnected are applied. */
int fakezk_reconnect(int64_t sid, int where);

/* The connection drops and comes back at once, before the client wrote out
 * the requests it had queued: CONNECTING and CONNECTED are queued before the
 * queued replies, which are kept (those requests were applied on the new
 * connection); the session's watches stay (the client re-armed them). */
int fakezk_bounce(int64_t sid);

/* Expire: disconnect if connected, delete the session's ephemerals (firing the
 * other sessions' watches), drop its watches, queue EXPIRED. Until EXPIRED
 * is delivered, requests fail with ZCONNECTIONLOSS (the client learns of an
 * expiry only when it reconnects); afterwards calls return ZINVALIDSTATE. */
int fakezk_expire(int64_t sid);

/* Expire on the server only: the ephemerals and watches go as with
 * fakezk_expire, but the client stays CONNECTED and gets no EXPIRED event;
 * every request sent afterwards is answered ZSESSIONEXPIRED (a ZooKeeper
 * 3.8.0 server that ended a session on another connection and kept this
 * one open: seen on an ensemble). */
int fakezk_expire_unnoticed(int64_t sid);

/* Session SID's server is cut off from the quorum (on), as a follower
 * partitioned from the ZooKeeper leader that serves its clients until its
 * syncLimit ends: reads are answered (from the current tree) and the
 * connection stays up, but a write or a sync waits for the quorum and gets
 * no answer, and the notifications of changes are held back. on = false:
 * the server is back with the quorum: the held notifications, then the
 * waiting requests, applied in order; or, if fakezk_cut_expire came
 * meanwhile, the connection drops (those requests fail with
 * ZCONNECTIONLOSS) and EXPIRED follows. */
int fakezk_cut(int64_t sid, bool on);

/* The quorum expires session SID while its server is cut off: its ephemerals
 * and watches go, the other sessions are notified; the client hears nothing
 * until the cut ends. */
int fakezk_cut_expire(int64_t sid);

/* A new session's CONNECTED event: delivered synchronously inside
 * zookeeper_init (default true), or queued like any other (false). */
void fakezk_connect_on_init(bool sync);

/* Number of sessions ever created, and the id of the Nth (1-based). */
int fakezk_nsessions(void);
int64_t fakezk_session_id(int n);
/* Non-zero while the session is connected. */
bool fakezk_session_connected(int64_t sid);

/* ---- faults -------------------------------------------------------------- */

/* The Nth request (1-based, counted from now) sent on session SID (0: on any
 * session) fails with ZCONNECTIONLOSS; applied: the server did apply it.
 * The session is then disconnected (CONNECTING queued where WHERE says).
 * One fault at a time; n <= 0 cancels it. */
void fakezk_fail_nth(int64_t sid, int n, bool applied, int where);

/* The same, counting only the requests of operation op ("create", "delete",
 * "set", "get", "exists", "children", "children2", "multi"; NULL any) whose
 * path (a multi's: its first op's) starts with path_prefix (NULL any). */
void fakezk_fail_match(int64_t sid, const char *op, const char *path_prefix, int n,
                       bool applied, int where);

/* A get or a getChildren of PATH answers ZNOAUTH and sets no watch, as
 * ZooKeeper 3.8 does for a znode whose ACL denies READ; an exists still
 * answers (3.8 checks no ACL for it). NULL or "" ends it; one path at a time. */
void fakezk_noread(const char *path);

/* The Nth request of session SID (0: any) is lost, applied or not, and the
 * session expires with it (as fakezk_expire). */
void fakezk_expire_nth(int64_t sid, int n, bool applied);

/* Requests sent on a disconnected session: false (default) they fail with
 * ZCONNECTIONLOSS at once; true the client holds them and the server applies
 * them after the reconnect (the client noticed the loss before they were
 * written: both happen with the real client). */
void fakezk_park_while_disconnected(bool park);

/* Session SID's server lags behind: until the session's next sync (zoo_async)
 * is applied, a get or an exists of PATH on it answers what PATH held now
 * (as a follower that has not applied the later commits would). Up to 4
 * paths at once, one call each; -1 for a fifth or an unknown session. */
int fakezk_stale_reads(int64_t sid, const char *path);

/* Non-zero once the armed fault has fired. */
bool fakezk_fault_fired(void);

/* Requests received so far (SID 0: all sessions). */
int fakezk_requests(int64_t sid);

/* ---- the tree, as another client ----------------------------------------- */

/* Create (parents must exist; ephemeral_owner 0 = persistent), set (version
 * -1 = any), delete (no children). Return ZooKeeper codes (ZOK...). Watches
 * fire as for any client. */
int fakezk_create(const char *path, const char *data, int len, int64_t ephemeral_owner);
int fakezk_set(const char *path, const char *data, int len);
int fakezk_delete(const char *path);
/* Create path and every missing ancestor, persistent, empty. */
int fakezk_mkdirs(const char *path);

/* Read: returns the data length (-1: NULL data) and copies up to len-1 bytes
 * (NUL-terminated) into buf; ZNONODE (< 0, != -1) when absent. */
int fakezk_get(const char *path, char *buf, size_t len);
bool fakezk_exists(const char *path);
int64_t fakezk_owner(const char *path);   /* ephemeralOwner, -1 when absent */
int fakezk_version(const char *path);     /* its data version, -1 when absent */

/* The first znode (in path order) whose path starts with prefix, into buf.
 * Returns true when there is one. */
bool fakezk_find(const char *prefix, char *buf, size_t len);

/* Number of znodes whose path starts with prefix. */
int fakezk_count(const char *prefix);

/* The tree, one znode per line (path, version, owner, data), into a static
 * buffer (for failure messages). */
const char *fakezk_dump(void);

#endif
