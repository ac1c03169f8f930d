/*
 * loop.c - the handle: its ZooKeeper session, the library thread, the event
 * queue, outstanding requests and the stalled-request nudge.
 *
 * Locks: h->qmu guards the queue and the outstanding-request list; it is the
 * only lock ZooKeeper's threads take (to queue a reply or a watch). h->mu
 * (recursive) guards every group's state; the library thread holds it while
 * it processes one event, user threads hold it to read a view or to wait.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "zkerr.h"

uint64_t
zke_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static void
abs_deadline(struct timespec *ts, int timeout_ms)
{
    clock_gettime(CLOCK_MONOTONIC, ts);
    ts->tv_sec += timeout_ms / 1000;
    ts->tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
    if (ts->tv_nsec >= 1000000000L) {
        ts->tv_sec++;
        ts->tv_nsec -= 1000000000L;
    }
}

/* ---- the queue (any thread) ---------------------------------------------- */

static void
queue_push(struct zkelect *h, struct zev *ev)
{
    ev->queued_ms = zke_now_ms();
    pthread_mutex_lock(&h->qmu);
    ev->next = NULL;
    if (h->qtail)
        h->qtail->next = ev;
    else
        h->qhead = ev;
    h->qtail = ev;
    pthread_cond_signal(&h->qcv);
    pthread_mutex_unlock(&h->qmu);
}

static void
zev_free(struct zev *ev)
{
    int i;

    if (ev == NULL)
        return;
    free(ev->path);
    free(ev->data);
    for (i = 0; i < ev->nstrings; i++)
        free(ev->strings[i]);
    free(ev->strings);
    free(ev);
}

/* Free a list of events (the library thread has ended); a reply's request
   holds a group reference. */
static void
zev_drop_all(struct zev **head, struct zev **tail)
{
    struct zev *ev;

    while ((ev = *head) != NULL) {
        *head = ev->next;
        if (ev->kind == ZEV_REPLY)
            req_free(ev->req);
        zev_free(ev);
    }
    *tail = NULL;
}

/* ---- requests ------------------------------------------------------------ */

struct req *
req_new(struct zkelect *h, struct zkelect_group *g, enum req_kind kind)
{
    struct req *r = calloc(1, sizeof(*r));

    if (r == NULL)
        return NULL;
    r->h = h;
    r->g = g;
    r->gen = h->gen;
    r->kind = kind;
    r->sent_ms = zke_now_ms();
    if (g)
        g->refs++;
    pthread_mutex_lock(&h->qmu);
    r->next = h->outstanding.next;
    r->prev = &h->outstanding;
    h->outstanding.next->prev = r;
    h->outstanding.next = r;
    h->n_out++;
    pthread_mutex_unlock(&h->qmu);
    return r;
}

/* Unlink from the outstanding list; h->qmu held. Idempotent. */
static void
req_unlink_locked(struct req *r)
{
    if (r->next) {
        r->next->prev = r->prev;
        r->prev->next = r->next;
        r->next = r->prev = NULL;
        r->h->n_out--;
    }
}

void
req_free(struct req *r)
{
    int i;

    if (r == NULL)
        return;
    for (i = 0; i < 2; i++)
        free(r->payload[i]);
    free(r->wake);
    if (r->g)
        group_release(r->g);
    free(r);
}

/* Requests that only the ZooKeeper leader answers (through the server we
   are connected to): writes and syncs. Their answer says the quorum had the
   session when it handled them; a read's does not (fence.c). */
static bool
req_via_quorum(enum req_kind kind)
{
    switch (kind) {
    case REQ_ENSURE_PATH:
    case REQ_REGISTER:
    case REQ_DECIDE:
    case REQ_LEADER_CREATE:
    case REQ_LEADER_READY:
    case REQ_LEADER_DELETE:
    case REQ_LEADER_FENCE:
    case REQ_UPDATE_MEMBER:
    case REQ_UNREGISTER:
    case REQ_CREATE_ELECTION:
    case REQ_LEADER_RETAKE:
    case REQ_SUCCESSOR_WRITE:
    case REQ_SYNC:
    case REQ_PROBE:
        return true;
    default:
        return false;
    }
}

/* Queue the reply of a request (completion thread, or req_sent on failure). */
static void
reply_push(struct req *r, struct zev *ev, int rc)
{
    struct zkelect *h = r->h;

    ev->kind = ZEV_REPLY;
    ev->req = r;
    ev->rc = rc;
    ev->queued_ms = zke_now_ms();
    pthread_mutex_lock(&h->qmu);
    req_unlink_locked(r);
    if (rc != ZCONNECTIONLOSS && rc != ZOPERATIONTIMEOUT && rc != ZCLOSING &&
        rc != ZINVALIDSTATE && rc != ZSESSIONEXPIRED && rc != ZSESSIONMOVED &&
        rc != ZMARSHALLINGERROR) {
        h->last_contact_ms = zke_now_ms();
        /* answered by way of the ZooKeeper leader, which heard this request
           sent at sent_ms on a live session (fence.c); a read is answered by
           the server alone, which may be cut off from the quorum */
        if (req_via_quorum(r->kind) && r->sent_ms > h->heard_ms)
            h->heard_ms = r->sent_ms;
    }
    ev->next = NULL;
    if (h->qtail)
        h->qtail->next = ev;
    else
        h->qhead = ev;
    h->qtail = ev;
    pthread_cond_signal(&h->qcv);
    pthread_mutex_unlock(&h->qmu);
}

void
req_sent(struct req *r, int rc)
{
    struct zev *ev;

    if (r->g)
        r->g->n_requests++;      /* library thread, under h->mu */
    if (rc == ZOK)
        return;
    /* the completion will never run: answer it ourselves */
    ev = calloc(1, sizeof(*ev));
    if (ev == NULL) {
        pthread_mutex_lock(&r->h->qmu);
        req_unlink_locked(r);
        pthread_mutex_unlock(&r->h->qmu);
        req_free(r);
        return;
    }
    ev->datalen = -1;
    reply_push(r, ev, rc);
}

/* ---- ZooKeeper completions (completion thread: copy and queue only) ------ */

static struct zev *
zev_alloc(void)
{
    struct zev *ev = calloc(1, sizeof(*ev));

    if (ev)
        ev->datalen = -1;
    return ev;
}

void
data_completion(int rc, const char *value, int len, const struct Stat *stat, const void *data)
{
    struct req *r = (struct req *)data;
    struct zev *ev = zev_alloc();

    if (ev == NULL)
        abort(); /* cannot even report: the state machine would wedge */
    if (rc == ZOK && value != NULL && len >= 0) {
        ev->data = malloc((size_t)len + 1);
        if (ev->data == NULL)
            abort();
        memcpy(ev->data, value, (size_t)len);
        ev->data[len] = '\0';
        ev->datalen = len;
    }
    if (rc == ZOK && stat) {
        ev->stat = *stat;
        ev->has_stat = true;
    }
    reply_push(r, ev, rc);
}

void
stat_completion(int rc, const struct Stat *stat, const void *data)
{
    struct req *r = (struct req *)data;
    struct zev *ev = zev_alloc();

    if (ev == NULL)
        abort();
    if (rc == ZOK && stat) {
        ev->stat = *stat;
        ev->has_stat = true;
    }
    reply_push(r, ev, rc);
}

void
strings_completion(int rc, const struct String_vector *sv, const struct Stat *stat,
                   const void *data)
{
    struct req *r = (struct req *)data;
    struct zev *ev = zev_alloc();
    int i;

    if (ev == NULL)
        abort();
    if (rc == ZOK && sv && sv->count > 0) {
        ev->strings = calloc((size_t)sv->count, sizeof(char *));
        if (ev->strings == NULL)
            abort();
        for (i = 0; i < sv->count; i++) {
            ev->strings[i] = strdup(sv->data[i]);
            if (ev->strings[i] == NULL)
                abort();
        }
        ev->nstrings = sv->count;
    }
    if (rc == ZOK && stat) {
        ev->stat = *stat;
        ev->has_stat = true;
    }
    reply_push(r, ev, rc);
}

void
void_completion(int rc, const void *data)
{
    struct zev *ev = zev_alloc();

    if (ev == NULL)
        abort();
    reply_push((struct req *)data, ev, rc);
}

void
string_completion(int rc, const char *value, const void *data)
{
    struct zev *ev = zev_alloc();

    if (ev == NULL)
        abort();
    if (rc == ZOK && value) {
        ev->data = strdup(value);
        if (ev->data == NULL)
            abort();
        ev->datalen = (int)strlen(value);
    }
    reply_push((struct req *)data, ev, rc);
}

void
multi_completion(int rc, const void *data)
{
    void_completion(rc, data);
}

/* The session watcher: every watch is set with watch=1, so node events come
 * here too, with their path. Runs on the completion thread. */
static void
session_watcher(zhandle_t *zh, int type, int state, const char *path, void *ctx)
{
    struct zctx *zc = ctx;
    struct zev *ev = zev_alloc();

    (void)zh;
    if (ev == NULL)
        abort();
    ev->gen = zc->gen;
    if (type == ZOO_SESSION_EVENT) {
        ev->kind = ZEV_SESSION;
        ev->state = state;
    } else {
        ev->kind = ZEV_WATCH;
        ev->type = type;
        ev->path = strdup(path ? path : "");
        if (ev->path == NULL)
            abort();
    }
    queue_push(zc->h, ev);
}

/* ---- ZooKeeper's own log lines ------------------------------------------- */

/*
 * The client's log callback has no user pointer. Its lines go to the log of
 * the most recently opened handle at debug level (warnings and errors at
 * notice), which is where a user debugging a connection looks.
 */
static pthread_mutex_t zklog_mu = PTHREAD_MUTEX_INITIALIZER;
static struct zkelect *zklog_handle;

static void
zk_log_cb(const char *msg)
{
    char line[512];
    size_t n;
    int level = ZKELECT_LOG_DEBUG;

    if (strstr(msg, "ZOO_ERROR@") || strstr(msg, "ZOO_WARN@"))
        level = ZKELECT_LOG_NOTICE;
    n = strlen(msg);
    while (n > 0 && (msg[n - 1] == '\n' || msg[n - 1] == '\r'))
        n--;
    if (n >= sizeof(line))
        n = sizeof(line) - 1;
    memcpy(line, msg, n);
    line[n] = '\0';
    pthread_mutex_lock(&zklog_mu);
    if (zklog_handle)
        zke_log(zklog_handle, level, "zookeeper: %s", line);
    pthread_mutex_unlock(&zklog_mu);
}

/* ---- session (library thread) -------------------------------------------- */

/*
 * Hand the digest credential to the client. Between two connection attempts
 * (state 0) zoo_add_auth refuses with ZINVALIDSTATE and does not keep it
 * (ZOOKEEPER-800): then it is sent when the session connects, before any
 * request of ours. Once accepted, the client re-sends it on every reconnect.
 */
static void
session_send_auth(struct zkelect *h)
{
    int rc;

    if (!h->auth_pending || h->zh == NULL)
        return;
    rc = zoo_add_auth(h->zh, "digest", h->auth, (int)strlen(h->auth), NULL, NULL);
    if (rc == ZOK)
        h->auth_pending = false;
    else if (rc != ZINVALIDSTATE)
        zke_log(h, ZKELECT_LOG_ERR, "zoo_add_auth failed: %s", zerror(rc));
}

static int
session_start(struct zkelect *h)
{
    struct zctx *zc = calloc(1, sizeof(*zc));

    if (zc == NULL)
        return ZKELECT_ENOMEM;
    h->gen++;
    zc->h = h;
    zc->gen = h->gen;
    h->zctx = zc;
    h->sess = SESS_CONNECTING;
    h->zh = zookeeper_init2(h->hosts, session_watcher, h->session_timeout_ms, NULL, zc,
                            ZOO_NO_LOG_CLIENTENV, zk_log_cb);
    if (h->zh == NULL) {
        int e = errno;
        zke_log(h, ZKELECT_LOG_ERR, "zookeeper_init(%s) failed: %s", h->hosts, strerror(e));
        h->zctx = NULL;
        free(zc);
        return e == ENOMEM ? ZKELECT_ENOMEM : ZKELECT_EINVAL;
    }
    /* the 3.8.0 client re-resolves every host of the connect string on each
       turn of its IO loop (a netlink dump per host): measured at half of a
       node's CPU during handovers. Resolve again only after a connection
       loss. */
    zoo_set_servers_resolution_delay(h->zh, -1);
    h->auth_pending = h->auth != NULL;
    session_send_auth(h);
    return 0;
}

/* Close the current zhandle. Called with h->mu held (recursive): the
 * completion thread only needs h->qmu, so joining it cannot deadlock. */
static void
session_stop(struct zkelect *h)
{
    struct req *r, *next, *orphans = NULL;

    if (h->zh) {
        zookeeper_close(h->zh);
        h->zh = NULL;
    }
    free(h->zctx);
    h->zctx = NULL;
    /* zookeeper_close has joined ZooKeeper's threads. After an expiry the
       3.8.0 client drops some completions without calling them; their
       requests would stay on our list for ever: free them now. */
    pthread_mutex_lock(&h->qmu);
    for (r = h->outstanding.next; r != &h->outstanding; r = next) {
        next = r->next;
        if (r->gen == h->gen) {
            req_unlink_locked(r);
            r->next = orphans;
            orphans = r;
        }
    }
    pthread_mutex_unlock(&h->qmu);
    while ((r = orphans) != NULL) {
        orphans = r->next;
        r->next = NULL;
        req_free(r);
    }
}

static void
publish_session(struct zkelect *h)
{
    h->sess_public = h->sess;
    h->session_id_public = h->sess == SESS_CONNECTED ? h->session_id : 0;
}

static void
on_session(struct zkelect *h, struct zev *ev)
{
    enum sess_state prev = h->sess, now;
    struct zkelect_group *g, *next;

    if (ev->gen != h->gen || h->zh == NULL)
        return; /* a late event of an old zhandle */
    if (ev->state == ZOO_CONNECTED_STATE || ev->state == ZOO_READONLY_STATE)
        now = SESS_CONNECTED;
    else if (ev->state == ZOO_EXPIRED_SESSION_STATE)
        now = SESS_EXPIRED;
    else if (ev->state == ZOO_AUTH_FAILED_STATE)
        now = SESS_AUTH_FAILED;
    else
        now = SESS_CONNECTING;
    if (now == prev && now != SESS_EXPIRED)
        return;

    if (now == SESS_CONNECTED) {
        const clientid_t *cid = zoo_client_id(h->zh);
        session_send_auth(h); /* before the groups send anything */
        int64_t old = h->session_id;
        h->session_id = cid ? cid->client_id : 0;
        if (cid)                /* zkelect_get_session (session.c) */
            memcpy(h->session_passwd, cid->passwd, sizeof(h->session_passwd));
        h->negotiated_timeout_ms = zoo_recv_timeout(h->zh);
        fence_negotiated(h, h->negotiated_timeout_ms);
        h->disconnected_ms = 0;
        h->connected_ms = zke_now_ms();
        h->sess = SESS_CONNECTED;
        h->connected_once = true;
        publish_session(h);
        zke_event(h, NULL, ZKELECT_EV_CONNECTED, NULL, 0, 0,
                  "session 0x%llx%s, timeout %d ms", (unsigned long long)h->session_id,
                  old == h->session_id ? " (same session)" : "", h->negotiated_timeout_ms);
    } else if (now == SESS_CONNECTING) {
        h->sess = SESS_CONNECTING;
        h->disconnected_ms = zke_now_ms();
        publish_session(h);
        zke_event(h, NULL, ZKELECT_EV_DISCONNECTED, NULL, 0, 0,
                  "connection to ZooKeeper lost; session 0x%llx may still live",
                  (unsigned long long)h->session_id);
    } else if (now == SESS_EXPIRED) {
        h->sess = SESS_EXPIRED;
        publish_session(h);
        zke_event(h, NULL, ZKELECT_EV_EXPIRED, NULL, 0, ZKELECT_EEXPIRED,
                  "session 0x%llx expired; rebuilding on a new session",
                  (unsigned long long)h->session_id);
    } else {
        h->sess = SESS_AUTH_FAILED;
        publish_session(h);
        zke_event(h, NULL, ZKELECT_EV_AUTH_FAILED, NULL, 0, ZKELECT_EAUTHFAILED,
                  "ZooKeeper refused the credentials; nothing will be written");
    }

    for (g = h->groups; g; g = next) {
        next = g->next;
        group_on_session(g, prev, now);
    }

    if (now == SESS_EXPIRED) {
        session_stop(h);
        h->session_id = 0;
        h->probe_out = false;
        pthread_mutex_lock(&h->qmu);
        h->heard_ms = 0; /* nothing was heard on the new session yet */
        pthread_mutex_unlock(&h->qmu);
        if (session_start(h) != 0)
            zke_event(h, NULL, ZKELECT_EV_ERROR, NULL, 0, ZKELECT_ECONNECT,
                      "cannot create a new ZooKeeper session");
    }
}

/*
 * A reply of the current session says ZSESSIONEXPIRED: the server has ended
 * the session. The client tells us so with an EXPIRED event when it learns
 * of it on a connect; but a 3.8.0 server that ended the session on another
 * connection (a clone of the session, closed) may keep this one open and
 * answer every request with the error, the client CONNECTED for ever (seen
 * on an ensemble: tests/integration/test_election). Whichever comes first
 * is the expiry; the other one then belongs to an older session.
 */
static void
session_ended_by_reply(struct zkelect *h)
{
    struct zev ev;

    memset(&ev, 0, sizeof(ev));
    ev.kind = ZEV_SESSION;
    ev.state = ZOO_EXPIRED_SESSION_STATE;
    ev.gen = h->gen;
    zke_log(h, ZKELECT_LOG_WARNING, "ZooKeeper answered a request of session 0x%llx with "
            "\"session expired\" while the client %s: the session is over",
            (unsigned long long)h->session_id,
            h->sess == SESS_CONNECTED ? "reports it connected" : "reconnects");
    on_session(h, &ev);
}

/* ---- the group index: watch paths to groups ------------------------------ */

static size_t
gindex_hash(const char *p, size_t n)
{
    uint64_t x = 1469598103934665603ULL; /* FNV-1a */
    size_t i;

    for (i = 0; i < n; i++)
        x = (x ^ (unsigned char)p[i]) * 1099511628211ULL;
    return (size_t)(x % ZKE_GINDEX);
}

void
gindex_add(struct zkelect *h, struct zkelect_group *g)
{
    size_t b = gindex_hash(g->path, strlen(g->path));

    g->hnext = h->gindex[b];
    h->gindex[b] = g;
}

void
gindex_del(struct zkelect *h, struct zkelect_group *g)
{
    struct zkelect_group **pp = &h->gindex[gindex_hash(g->path, strlen(g->path))];

    for (; *pp; pp = &(*pp)->hnext) {
        if (*pp == g) {
            *pp = g->hnext;
            return;
        }
    }
}

static struct zkelect_group *
gindex_find(struct zkelect *h, const char *path, size_t n)
{
    struct zkelect_group *g;

    for (g = h->gindex[gindex_hash(path, n)]; g; g = g->hnext)
        if (!g->closed && strlen(g->path) == n && memcmp(g->path, path, n) == 0)
            return g;
    return NULL;
}

/* A group's znodes are <base>/x or <base>/x/y: try both prefixes. */
static struct zkelect_group *
group_by_path(struct zkelect *h, const char *path)
{
    const char *end = path + strlen(path);
    struct zkelect_group *g;
    int up;

    for (up = 0; up < 2; up++) {
        while (end > path && *--end != '/')
            ;
        if (end <= path)
            return NULL;
        if ((g = gindex_find(h, path, (size_t)(end - path))) != NULL)
            return g;
    }
    return NULL;
}

/* ---- stepping aside for a handover (group_pause_starts) -------------------- */

static bool process(struct zkelect *h, struct zev *ev);

static void
pause_stash(struct zkelect *h, struct zev *ev)
{
    ev->next = NULL;
    if (h->ptail)
        h->ptail->next = ev;
    else
        h->phead = ev;
    h->ptail = ev;
}

/* Handle the paused group's events, in the order they came. */
static void
pause_end(struct zkelect *h, const char *why)
{
    struct zkelect_group *g = h->paused;
    struct zev *ev, *next;

    if (g == NULL)
        return;
    ev = h->phead;
    h->paused = NULL;
    h->phead = h->ptail = NULL;
    if (!g->closed)
        zke_log(h, ZKELECT_LOG_DEBUG, "%s: goes on (%s)", g->path, why);
    h->replaying = true;
    for (; ev; ev = next) {
        next = ev->next;
        (void)process(h, ev);
        zev_free(ev);
    }
    h->replaying = false;
    if (!g->closed)
        group_timer_changed(g); /* the timer scan left it out meanwhile */
    group_release(g);
}

void
zke_set_pause_ms(struct zkelect *h, int ms)
{
    pthread_mutex_lock(&h->mu);
    h->pause_ms = ms;
    pthread_mutex_unlock(&h->mu);
}

/* Whether EV is an event of group G. */
static bool
zev_of(struct zkelect *h, const struct zev *ev, const struct zkelect_group *g)
{
    if (ev->kind == ZEV_WATCH)
        return ev->gen == h->gen && group_by_path(h, ev->path) == g;
    return ev->kind == ZEV_REPLY && ev->req->g == g;
}

/* Handle EV; false when it was kept for later (the pause's), and is no longer
   the caller's to free. */
static bool
process(struct zkelect *h, struct zev *ev)
{
    struct zkelect_group *g;

    if (h->paused != NULL && !h->replaying) {
        if (ev->kind == ZEV_SESSION ||
            (ev->kind == ZEV_REPLY && ev->rc == ZSESSIONEXPIRED)) {
            pause_end(h, "a session event");
        } else if (zev_of(h, ev, h->paused)) {
            bool end = group_pause_ends(h->paused, ev);

            pause_stash(h, ev);
            if (end)
                pause_end(h, ev->kind == ZEV_REPLY ? "the leader znode is there" :
                          "a notification of the leader znode or of its own");
            return false;
        }
    }
    switch (ev->kind) {
    case ZEV_SESSION:
        on_session(h, ev);
        break;
    case ZEV_WATCH:
        if (ev->gen != h->gen)
            break;
        g = group_by_path(h, ev->path);
        if (g && !h->replaying && h->paused == NULL &&
            group_pause_starts(g, ev->type, ev->path)) {
            h->paused = g;
            g->refs++;
            h->pause_until = zke_now_ms() + (uint64_t)h->pause_ms;
            zke_log(h, ZKELECT_LOG_DEBUG, "%s: a handover, most likely: steps aside until "
                    "the new leader znode is there (%d ms at most)", g->path, h->pause_ms);
            pause_stash(h, ev);
            return false;
        }
        if (g) {
            g->n_notifications++;
            g->activity_ms = zke_now_ms();
            group_on_watch(g, ev->type, ev->path);
        }
        break;
    case ZEV_REPLY:
        if (ev->rc == ZSESSIONEXPIRED && ev->req->gen == h->gen && h->zh != NULL)
            session_ended_by_reply(h);
        /* replies of an older session, of a closed group, and nudges are dropped */
        if (ev->req->kind == REQ_PROBE)
            fence_probe_reply(h);
        if (ev->req->gen == h->gen && ev->req->g && !ev->req->g->closed) {
            ev->req->g->activity_ms = zke_now_ms();
            group_on_reply(ev->req->g, ev);
        }
        req_free(ev->req);
        ev->req = NULL;
        break;
    case ZEV_CALL:
        ev->fn(h, ev->arg);
        break;
    }
    return true;
}

/*
 * A request outstanding longer than nudge_ms: send another request on the
 * same session. A ZooKeeper 3.8.0 ensemble now and then leaves one request
 * without a reply until the client gives up at 2/3 of the session timeout
 * (about once per 50,000-100,000 operations, measured; the symptoms match
 * ZOOKEEPER-4537, fixed after 3.8.0); any other request on the same session
 * released it within 25 ms in every case seen. Only
 * when nothing at all came back on the session for nudge_ms (replies that
 * flow show the session is not stalled), and with a backoff per request:
 * its nudges go out nudge_ms, 4 * nudge_ms, 16 * nudge_ms... after it was
 * sent. A loaded server that is merely slow (a join storm of a thousand
 * members) is then not sent a second request per member every nudge_ms.
 */
static struct req *
oldest_request(struct zkelect *h)
{
    struct req *r;

    /* requests are prepended as they are sent: the oldest is at the tail */
    for (r = h->outstanding.prev; r != &h->outstanding; r = r->prev)
        if (r->kind != REQ_NUDGE && r->gen == h->gen)
            return r;
    return NULL;
}

uint64_t
zke_oldest_request_ms(struct zkelect *h, uint64_t now)
{
    struct req *r;
    uint64_t age;

    pthread_mutex_lock(&h->qmu);
    r = oldest_request(h);
    age = r && now > r->sent_ms ? now - r->sent_ms : 0;
    pthread_mutex_unlock(&h->qmu);
    return age;
}

/* When the oldest request may be nudged next (0: nothing to nudge); h->qmu held. */
static uint64_t
nudge_due_locked(struct zkelect *h, struct req **out)
{
    struct req *r = oldest_request(h);
    uint64_t wait = (uint64_t)h->nudge_ms, due;
    int k;

    *out = r;
    if (r == NULL)
        return 0;
    if (r == h->nudged_req && r->sent_ms == h->nudged_sent_ms)
        for (k = 0; k < h->nudged_count && k < 8; k++)
            wait *= 4;
    due = r->sent_ms + wait;
    if (h->last_contact_ms + (uint64_t)h->nudge_ms > due)
        due = h->last_contact_ms + (uint64_t)h->nudge_ms;
    return due;
}

static void
check_stalled(struct zkelect *h, uint64_t now)
{
    struct req *oldest, *nudge;
    uint64_t age, due;
    int rc;

    if (h->nudge_ms <= 0 || h->sess != SESS_CONNECTED || h->zh == NULL)
        return;
    pthread_mutex_lock(&h->qmu);
    due = nudge_due_locked(h, &oldest);
    age = oldest && now > oldest->sent_ms ? now - oldest->sent_ms : 0;
    pthread_mutex_unlock(&h->qmu);
    if (oldest == NULL || now < due)
        return;
    if (oldest == h->nudged_req && oldest->sent_ms == h->nudged_sent_ms) {
        h->nudged_count++;
    } else {
        h->nudged_req = oldest;
        h->nudged_sent_ms = oldest->sent_ms;
        h->nudged_count = 1;
    }
    pthread_mutex_lock(&h->qmu);
    h->stalled++;
    pthread_mutex_unlock(&h->qmu);
    zke_event(h, NULL, ZKELECT_EV_STALLED, NULL, 0, ZKELECT_ETIMEDOUT,
              "a request has been outstanding for %llu ms; nudging the session",
              (unsigned long long)age);
    nudge = req_new(h, NULL, REQ_NUDGE);
    if (nudge == NULL)
        return;
    rc = zoo_aexists(h->zh, "/", 0, stat_completion, nudge);
    req_sent(nudge, rc);
}

/*
 * Timers. A group's next deadline (its watchdog, its exclusions' ends) is
 * looked at by a scan of every group, which a handle with thousands of
 * groups cannot afford after every event: h->timer_scan_at says when the
 * next scan is due. A scan fires what is due and sets it to the earliest
 * deadline left, at most one second ahead (a safety net); code that sets a
 * nearer deadline lowers it at once (group_timer_changed).
 */
void
zke_timer_hint(struct zkelect *h, uint64_t deadline_ms)
{
    if (deadline_ms && deadline_ms < h->timer_scan_at)
        h->timer_scan_at = deadline_ms;
}

static uint64_t
next_deadline(struct zkelect *h, uint64_t now)
{
    uint64_t d = h->timer_scan_at, x;
    struct req *r;

    if (h->fence_scan_at && h->fence_scan_at < d)
        d = h->fence_scan_at;
    if (h->paused != NULL && h->pause_until < d)
        d = h->pause_until;
    if (h->fhead) {
        x = h->fresh_due_ms < h->fresh_cap_ms ? h->fresh_due_ms : h->fresh_cap_ms;
        if (x < d)
            d = x;
    }
    /* the stalled-request check, only while a request is outstanding (an
       idle handle sleeps until its next timer or the 1 s safety net) */
    if (h->nudge_ms > 0 && h->sess == SESS_CONNECTED) {
        pthread_mutex_lock(&h->qmu);
        x = nudge_due_locked(h, &r);
        pthread_mutex_unlock(&h->qmu);
        if (x && x < now + 10)
            x = now + 10;
        if (x && x < d)
            d = x;
    }
    return d;
}

static void
run_timers(struct zkelect *h, uint64_t now)
{
    struct zkelect_group *g, *next;
    uint64_t due = now + 1000, d;

    if (now >= h->timer_scan_at) {
        h->timer_scan_at = UINT64_MAX;      /* hints during the scan lower it */
        for (g = h->groups; g; g = next) {
            next = g->next;
            if (g == h->paused)
                continue; /* its view waits for the pause's events (above) */
            d = group_next_deadline(g);
            if (d && d <= now) {
                group_on_timer(g, now);
                d = group_next_deadline(g);
                /* still due: the elector could not act on it yet (its view
                   incomplete, a decision in flight); look again in 100 ms,
                   not in a busy loop */
                if (d && d <= now)
                    d = now + 100;
            }
            group_check_stuck(g, now);
            if (d && d < due)
                due = d;
        }
        if (due < h->timer_scan_at)
            h->timer_scan_at = due;
    }
    check_stalled(h, now);
}

/*
 * The library thread fell behind (see loop_main). Timers wait until it has
 * caught up, and what they act on (each group's elected and leader znodes)
 * is read again first: a process that was stopped may have lost its session
 * without knowing yet. Once per episode, however long it lasts.
 */
static void
loop_gap(struct zkelect *h, uint64_t late_ms)
{
    struct zkelect_group *g, *next;

    h->behind = true;
    h->behind_since_ms = zke_now_ms();
    h->n_stale++;
    zke_log(h, ZKELECT_LOG_WARNING, "the library thread was %llu ms behind; timers wait for a "
            "fresh view", (unsigned long long)late_ms);
    for (g = h->groups; g; g = next) {
        next = g->next;
        group_view_stale(g);
    }
}

static void *
loop_main(void *arg)
{
    struct zkelect *h = arg;
    struct zev *ev;
    sigset_t all;
    uint64_t now, deadline, late, done;
    struct timespec ts;
    bool caught_up;

    /* signals belong to the application's threads; ZooKeeper's threads,
       created from this one, inherit the mask */
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL);

    pthread_mutex_lock(&h->mu);
    if (session_start(h) != 0)
        h->sess = SESS_AUTH_FAILED; /* unusable: zkelect_open reports it */
    publish_session(h);
    pthread_mutex_unlock(&h->mu);
    pthread_cond_broadcast(&h->cv);

    for (;;) {
        pthread_mutex_lock(&h->mu);
        now = zke_now_ms();
        deadline = next_deadline(h, now);
        pthread_mutex_unlock(&h->mu);

        pthread_mutex_lock(&h->qmu);
        while (h->qhead == NULL && !h->stop) {
            now = zke_now_ms();
            if (now >= deadline)
                break;
            clock_gettime(CLOCK_MONOTONIC, &ts);
            ts.tv_sec += (time_t)((deadline - now) / 1000);
            ts.tv_nsec += (long)((deadline - now) % 1000) * 1000000L;
            if (ts.tv_nsec >= 1000000000L) {
                ts.tv_sec++;
                ts.tv_nsec -= 1000000000L;
            }
            pthread_cond_timedwait(&h->qcv, &h->qmu, &ts);
        }
        now = zke_now_ms();
        ev = h->qhead;
        if (ev) {
            h->qhead = ev->next;
            if (h->qhead == NULL)
                h->qtail = NULL;
        }
        if (h->stop && ev == NULL) {
            pthread_mutex_unlock(&h->qmu);
            break;
        }
        /* a gap: this thread did not run for ZKE_GAP_MS (a stopped process,
           a long callback, a backlog of events) */
        late = 0;
        if (ev && now > ev->queued_ms + ZKE_GAP_MS)
            late = now - ev->queued_ms;
        else if (ev == NULL && h->turn_end_ms && deadline > h->turn_end_ms &&
                 now > deadline + ZKE_GAP_MS)
            late = now - deadline;
        pthread_mutex_unlock(&h->qmu);

        pthread_mutex_lock(&h->mu);
        if (late && !h->behind)
            loop_gap(h, late);
        if (ev && !process(h, ev))
            ev = NULL; /* kept by the pause */
        if (h->paused != NULL && (h->paused->closed || zke_now_ms() >= h->pause_until))
            pause_end(h, h->paused->closed ? "the group is closed" : "its time is over");
        if (h->held != NULL) {
            /* the batch of notifications is handled: its reads go out */
            bool empty;
            pthread_mutex_lock(&h->qmu);
            empty = h->qhead == NULL;
            pthread_mutex_unlock(&h->qmu);
            if (empty)
                group_unhold(h->held, true);
        }
        loop_fresh_flush(h, zke_now_ms(), false);
        loop_pump(h);
        /* the self-fence, also while behind: early is safe, late is not */
        (void)fence_tick(h, zke_now_ms());
        /* a turn that itself took over ZKE_GAP_MS (a callback that blocked):
           what was queued meanwhile is newer than the view */
        done = zke_now_ms();
        if (done > now + ZKE_GAP_MS && !h->behind)
            loop_gap(h, done - now);
        /* caught up: nothing queued behind, or only what just arrived */
        pthread_mutex_lock(&h->qmu);
        caught_up = h->qhead == NULL || done < h->qhead->queued_ms + ZKE_GAP_MS / 10;
        pthread_mutex_unlock(&h->qmu);
        /* timers act only on a view that has taken in every notification
           that arrived before them: not while events wait in the queue, but
           for ZKE_GAP_MAX_MS at most (a load that never drains must not stop
           the watchdogs; a later episode reads the view again) */
        if (caught_up || zke_now_ms() > h->behind_since_ms + ZKE_GAP_MAX_MS)
            h->behind = false;
        if (!h->behind)
            run_timers(h, zke_now_ms());
        h->turn_end_ms = zke_now_ms();
        pthread_mutex_unlock(&h->mu);
        pthread_cond_broadcast(&h->cv);
        zev_free(ev);
    }
    return NULL;
}

/* ---- the pipeline (see internal.h) --------------------------------------- */

int
zke_pipe_len(struct zkelect *h)
{
    int n;

    pthread_mutex_lock(&h->qmu);
    n = h->n_out;
    pthread_mutex_unlock(&h->qmu);
    return n;
}

/* After every turn: start waiting groups while the pipeline is short. */
void
loop_pump(struct zkelect *h)
{
    struct zkelect_group *g;
    unsigned what;

    while ((g = h->khead) != NULL && h->sess == SESS_CONNECTED &&
           zke_pipe_len(h) < ZKE_PIPE_MAX * 3 / 4) {
        h->khead = g->knext;
        if (h->khead == NULL)
            h->ktail = NULL;
        g->knext = NULL;
        g->kqueued = false;
        what = g->kick;
        g->kick = 0;
        if (!g->closed)
            group_kick_run(g, what);
        group_release(g);
    }
}

/* A group opened with ZKELECT_GROUP_NOWAIT: its first view waits for the
   end of the burst of such opens (internal.h, ZKE_FRESH_MS), so that a
   group nominated meanwhile registers before it reads anything. */
void
loop_fresh_add(struct zkelect *h, struct zkelect_group *g)
{
    uint64_t now = zke_now_ms();

    g->fresh = true;
    g->refs++;
    g->fnext = NULL;
    if (h->ftail)
        h->ftail->fnext = g;
    else {
        h->fhead = g;
        h->fresh_cap_ms = now + (uint64_t)h->fresh_max_ms;
    }
    h->ftail = g;
    h->fresh_due_ms = now + (uint64_t)h->fresh_ms;
}

/* Start the groups of a burst that ended (or every waiting one: ALL, the
   handle's end). A group nominated, closed or resynchronised meanwhile is
   no longer fresh and is only let go. */
void
loop_fresh_flush(struct zkelect *h, uint64_t now, bool all)
{
    struct zkelect_group *g;

    if (h->fhead == NULL || (!all && now < h->fresh_due_ms && now < h->fresh_cap_ms))
        return;
    while ((g = h->fhead) != NULL) {
        h->fhead = g->fnext;
        g->fnext = NULL;
        if (g->fresh && !g->closed && !all) {
            g->fresh = false;
            group_kick(g, KICK_RESYNC);
        }
        group_release(g);
    }
    h->ftail = NULL;
}

/* ---- calls from user threads --------------------------------------------- */

void
zke_call(struct zkelect *h, void (*fn)(struct zkelect *, void *), void *arg)
{
    struct zev *ev = zev_alloc();

    if (ev == NULL)
        abort();
    ev->kind = ZEV_CALL;
    ev->fn = fn;
    ev->arg = arg;
    queue_push(h, ev);
}

/*
 * Post fn to the library thread, then wait until pred(pred_arg) holds
 * (evaluated under h->mu after every processed event) or timeout_ms passes.
 * Returns 0 or ZKELECT_ETIMEDOUT. Refused (ZKELECT_ESTATE) on the library
 * thread itself, where waiting would deadlock.
 */
int
zke_call_wait(struct zkelect *h, void (*fn)(struct zkelect *, void *), void *arg,
              bool (*pred)(void *), void *pred_arg, int timeout_ms)
{
    struct timespec ts;
    int rc = 0;

    if (pthread_equal(pthread_self(), h->thread))
        return ZKELECT_ESTATE;
    if (fn)
        zke_call(h, fn, arg);
    abs_deadline(&ts, timeout_ms);
    pthread_mutex_lock(&h->mu);
    while (!pred(pred_arg)) {
        if (pthread_cond_timedwait(&h->cv, &h->mu, &ts) == ETIMEDOUT) {
            rc = pred(pred_arg) ? 0 : ZKELECT_ETIMEDOUT;
            break;
        }
    }
    pthread_mutex_unlock(&h->mu);
    return rc;
}

/* ---- credentials --------------------------------------------------------- */

/* The digest credential: opts->auth_file, else $ZKELECT_AUTH_FILE, else
   $ZKELECT_AUTH (src/common/secret.c checks the file and the text). */
int
zke_load_auth(struct zkelect *h, const char *auth_file)
{
    char err[600];
    int rc;

    if (auth_file != NULL && *auth_file != '\0') {
        rc = zke_secret_read(auth_file, &h->auth, err, sizeof(err));
        if (rc == 0)
            return 0;
        zke_log(h, ZKELECT_LOG_ERR, "auth file %s", err);
        return rc == -1 ? ZKELECT_EIO : ZKELECT_EINVAL;
    }
    rc = zke_secret_from_env(&h->auth, err, sizeof(err));
    if (rc >= 0)
        return 0;
    zke_log(h, ZKELECT_LOG_ERR, "credential from the environment: %s", err);
    return ZKELECT_EINVAL;
}

/* ---- open / close -------------------------------------------------------- */

static bool
pred_open_done(void *arg)
{
    struct zkelect *h = arg;
    return h->connected_once || h->sess == SESS_AUTH_FAILED;
}

static void
handle_free(struct zkelect *h)
{
    free(h->hosts);
    free(h->gindex);
    if (h->auth) {
        explicit_bzero(h->auth, strlen(h->auth));
        free(h->auth);
    }
    pthread_mutex_destroy(&h->mu);
    pthread_mutex_destroy(&h->qmu);
    pthread_cond_destroy(&h->cv);
    pthread_cond_destroy(&h->qcv);
    free(h);
}

static void
loop_stop(struct zkelect *h)
{
    struct zkelect_group *g, *next;

    pthread_mutex_lock(&h->mu);
    h->sess = SESS_CLOSING;
    session_stop(h); /* completes every outstanding request (ZCLOSING) */
    pthread_mutex_unlock(&h->mu);

    pthread_mutex_lock(&h->qmu);
    h->stop = true;
    pthread_cond_signal(&h->qcv);
    pthread_mutex_unlock(&h->qmu);
    pthread_join(h->thread, NULL);

    /* replies still queued, and kept by a pause, hold group references;
       so does the pause */
    zev_drop_all(&h->qhead, &h->qtail);
    zev_drop_all(&h->phead, &h->ptail);
    if (h->paused != NULL) {
        g = h->paused;
        h->paused = NULL;
        group_release(g);
    }
    /* groups waiting for the pipeline hold a reference too */
    while ((g = h->khead) != NULL) {
        h->khead = g->knext;
        g->kqueued = false;
        group_release(g);
    }
    h->ktail = NULL;
    loop_fresh_flush(h, 0, true);
    h->held = NULL;
    for (g = h->groups; g; g = next) {
        next = g->next;
        group_free(g);
    }
    h->groups = NULL;
    pthread_mutex_lock(&zklog_mu);
    if (zklog_handle == h)
        zklog_handle = NULL;
    pthread_mutex_unlock(&zklog_mu);
}

ZKELECT_API int
zkelect_open(const struct zkelect_options *o, zkelect_t **out)
{
    struct zkelect *h;
    pthread_mutexattr_t ma;
    pthread_condattr_t ca;
    char detail[512];
    int rc;

    if (out == NULL)
        return ZKELECT_EINVAL;
    *out = NULL;
    if (o == NULL || o->size < offsetof(struct zkelect_options, stepdown_ms) ||
        o->hosts == NULL || *o->hosts == '\0')
        return ZKELECT_EINVAL;
    if (o->session_timeout_ms < 0 || o->connect_timeout_ms < 0)
        return ZKELECT_EINVAL;
    h = calloc(1, sizeof(*h));
    if (h == NULL)
        return ZKELECT_ENOMEM;
    h->log = o->log;
    h->log_data = o->log_data;
    h->log_level = o->log_level ? o->log_level : ZKELECT_LOG_INFO;
    h->on_event = o->on_event;
    h->event_data = o->event_data;
    h->session_timeout_ms = o->session_timeout_ms ? o->session_timeout_ms : 10000;
    h->connect_timeout_ms = o->connect_timeout_ms ? o->connect_timeout_ms : 15000;
    h->nudge_ms = o->nudge_ms == 0 ? 250 : o->nudge_ms;
    h->pause_ms = ZKE_PAUSE_MS;
    h->fresh_ms = ZKE_FRESH_MS;
    h->fresh_max_ms = ZKE_FRESH_MAX_MS;
    rc = fence_configure(h, o->size >= offsetof(struct zkelect_options, fence_ms) + sizeof(int) ?
                         o->stepdown_ms : 0,
                         o->size >= offsetof(struct zkelect_options, fence_ms) + sizeof(int) ?
                         o->fence_ms : 0, detail, sizeof(detail));
    if (rc != 0) {
        if (h->log)
            h->log(h->log_data, ZKELECT_LOG_ERR, detail);
        free(h);
        return rc;
    }
    h->hosts = strdup(o->hosts);
    h->gindex = calloc(ZKE_GINDEX, sizeof(*h->gindex));
    h->outstanding.next = h->outstanding.prev = &h->outstanding;

    pthread_mutexattr_init(&ma);
    pthread_mutexattr_settype(&ma, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&h->mu, &ma);
    pthread_mutexattr_destroy(&ma);
    pthread_mutex_init(&h->qmu, NULL);
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&h->cv, &ca);
    pthread_cond_init(&h->qcv, &ca);
    pthread_condattr_destroy(&ca);

    if (h->hosts == NULL || h->gindex == NULL) {
        handle_free(h);
        return ZKELECT_ENOMEM;
    }
    rc = zke_load_auth(h, o->auth_file);
    if (rc != 0) {
        handle_free(h);
        return rc;
    }
    pthread_mutex_lock(&zklog_mu);
    zklog_handle = h;
    pthread_mutex_unlock(&zklog_mu);
    zoo_set_debug_level(ZOO_LOG_LEVEL_WARN);

    if (pthread_create(&h->thread, NULL, loop_main, h) != 0) {
        pthread_mutex_lock(&zklog_mu);
        zklog_handle = NULL;
        pthread_mutex_unlock(&zklog_mu);
        handle_free(h);
        return ZKELECT_ENOMEM;
    }
    rc = zke_call_wait(h, NULL, NULL, pred_open_done, h, h->connect_timeout_ms);
    if (rc == 0 && h->sess == SESS_AUTH_FAILED && !h->connected_once)
        rc = h->zh ? ZKELECT_EAUTHFAILED : ZKELECT_EINVAL;
    else if (rc == ZKELECT_ETIMEDOUT)
        rc = ZKELECT_ECONNECT;
    if (rc == ZKELECT_ECONNECT &&
        zke_hosts_probe(h->hosts, 500, detail, sizeof(detail)) == ZKE_PROBE_REFUSED) {
        /* say why: nothing listens (the code stays ECONNECT, after the same
           wait: a daemon may be started before its ZooKeeper) */
        zke_log(h, ZKELECT_LOG_ERR, "cannot connect to ZooKeeper at %s within %d ms: "
                "connection refused by every server (%s)", h->hosts,
                h->connect_timeout_ms, detail);
        loop_stop(h);
        handle_free(h);
        return rc;
    }
    if (rc != 0) {
        zke_log(h, ZKELECT_LOG_ERR, "cannot connect to ZooKeeper at %s: %s", h->hosts,
                zkelect_strerror(rc));
        loop_stop(h);
        handle_free(h);
        return rc;
    }
    *out = h;
    return 0;
}

struct close_all {
    struct zkelect_group **list;
    int n;
};

static bool
pred_all_left(void *arg)
{
    struct close_all *ca = arg;
    int i;

    if (ca->list[0] && ca->list[0]->h->sess != SESS_CONNECTED)
        return true;            /* nothing more will leave; each close bounds itself */
    for (i = 0; i < ca->n; i++)
        if (group_registered(ca->list[i]) || ca->list[i]->reg != 0 /* REG_NONE */)
            return false;
    return true;
}

ZKELECT_API void
zkelect_close(zkelect_t *h)
{
    struct zkelect_group *g;
    int n = 0, i;
    struct zkelect_group **list;

    if (h == NULL)
        return;
    /* resign every open group first, gracefully */
    pthread_mutex_lock(&h->mu);
    for (g = h->groups; g; g = g->next)
        if (!g->closed)
            n++;
    list = calloc((size_t)n + 1, sizeof(*list));
    i = 0;
    for (g = h->groups; g && list; g = g->next)
        if (!g->closed)
            list[i++] = g;
    pthread_mutex_unlock(&h->mu);
    /* all groups leave at once (a handle may hold thousands), then each is
       closed: its own unnominate then finds it already gone */
    if (list) {
        struct close_all ca = {list, n};

        for (i = 0; i < n; i++)
            group_unnominate(list[i]);
        zke_call_wait(h, NULL, NULL, pred_all_left, &ca, h->session_timeout_ms);
    }
    for (i = 0; list && i < n; i++)
        group_close_wait(list[i], 0);
    free(list);
    loop_stop(h);
    handle_free(h);
}

ZKELECT_API int64_t
zkelect_session_id(zkelect_t *h)
{
    int64_t id;

    if (h == NULL)
        return 0;
    pthread_mutex_lock(&h->mu);
    id = h->session_id_public;
    pthread_mutex_unlock(&h->mu);
    return id;
}

ZKELECT_API int
zkelect_connected(zkelect_t *h)
{
    int c;

    if (h == NULL)
        return 0;
    pthread_mutex_lock(&h->mu);
    c = h->sess_public == SESS_CONNECTED;
    pthread_mutex_unlock(&h->mu);
    return c;
}
