/*
 * harness.c - nodes on the fake ZooKeeper, the event recorder and
 * fz_settle() (see harness.h).
 *
 * This is the one file of the fake-ZooKeeper tests that includes the
 * library's internal.h, and only for zke_call_wait(), the library thread's
 * own "run this, then wait for a predicate" primitive (loop.c): the flush
 * that makes quiescence observable without a sleep, and the wait for a
 * group opened with ZKELECT_GROUP_NOWAIT to start (its `fresh` flag, and
 * the handle's window for it, fz_fresh_ms).
 * Everything else goes through the public API.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"   /* zke_call_wait (loop.c) */
#include "codec.h"      /* zke_leader_decode, for fz_tree_leader */
#include "harness.h"

#include <CUnit/Basic.h>

#ifndef FZ_POLICY_DIR
#define FZ_POLICY_DIR NULL
#endif

#define FZ_MAX_NODES 32

static pthread_mutex_t reg_mu = PTHREAD_MUTEX_INITIALIZER;
static struct fz_node *nodes[FZ_MAX_NODES];   /* open nodes */
static bool verbose;
/* woken by every event and by a helper thread's end: fz_settle_until looks
   again at once rather than at its next 5 ms turn */
static pthread_mutex_t wake_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake_cv = PTHREAD_COND_INITIALIZER;
static unsigned wake_gen;
int fz_watchdog_ms = 60000, fz_exclude_ms = 60000;
const char *fz_policy = "nodeid";
int fz_session_ms = 10000, fz_fence_ms = 0, fz_stepdown_ms = 0;
bool fz_takeover_noop;
bool fz_open_fresh;
int fz_fresh_ms;
int fz_quiet;

uint64_t
fz_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static void
log_cb(void *data, int level, const char *msg)
{
    struct fz_node *n = data;
    if (verbose)
        fprintf(stderr, "  [%s] %d %s\n", n->id, level, msg);
}

static void
wake(void)
{
    pthread_mutex_lock(&wake_mu);
    wake_gen++;
    pthread_cond_broadcast(&wake_cv);
    pthread_mutex_unlock(&wake_mu);
}

static void
event_cb(void *data, const struct zkelect_event *ev)
{
    struct fz_grp *gr = data;
    size_t o = strlen(gr->log);

    /* library thread, under the handle's lock; read by the test thread
       only after a flush (which takes the same lock) */
    if ((int)ev->type > 0 && ev->type < ZKELECT_EV__COUNT)
        gr->counts[ev->type]++;
    if (o + strlen(ev->name) + 2 < sizeof(gr->log))
        snprintf(gr->log + o, sizeof(gr->log) - o, "%s%s", o ? " " : "", ev->name);
    if ((ev->type == ZKELECT_EV_ERROR || ev->type == ZKELECT_EV_MALFORMED) && ev->detail)
        snprintf(gr->last_error, sizeof(gr->last_error), "%s", ev->detail);
    if (verbose)
        fprintf(stderr, "  [%s] EVENT %s %s node=%s epoch=%llu: %s\n", gr->n->id, ev->name,
                ev->group ? ev->group : "-", ev->node ? ev->node : "-",
                (unsigned long long)ev->epoch, ev->detail);
    wake();
}

/* The handle's events: recorded for its groups opened without an on_event
   (FZ_QUIET_NOCB), as their own on_event would have. */
static void
handle_event_cb(void *data, const struct zkelect_event *ev)
{
    struct fz_node *n = data;
    int i;

    for (i = 0; i < FZ_GROUPS; i++) {
        struct fz_grp *gr = &n->grp[i];
        if (gr->quiet == FZ_QUIET_NOCB && gr->g != NULL &&
            (ev->group == NULL || strcmp(ev->group, gr->path) == 0))
            event_cb(gr, ev);
    }
}

static int
takeover_cb(void *data, zkelect_group_t *g, uint64_t epoch)
{
    struct fz_grp *gr = data;
    struct zkelect_leader l;

    gr->takeover_epoch = epoch;
    if (zkelect_get_leader(g, &l) == 0 || *l.previous || *l.reason) {
        snprintf(gr->takeover_previous, sizeof(gr->takeover_previous), "%s", l.previous);
        snprintf(gr->takeover_reason, sizeof(gr->takeover_reason), "%s", l.reason);
    }
    if (gr->takeover_host_of != NULL) /* on the library thread: from the view */
        gr->takeover_host_rc = zkelect_get_node_host(g, gr->takeover_host_of,
                                                     gr->takeover_host,
                                                     sizeof(gr->takeover_host));
    return gr->takeover_mode;
}

static int
stepdown_cb(void *data, zkelect_group_t *g, uint64_t epoch)
{
    struct fz_grp *gr = data;
    (void)g;
    gr->stepdown_epoch = epoch;
    gr->stepdown_calls++;
    return gr->stepdown_mode;
}

static void
nominate_cb(void *data, zkelect_group_t *g, int err)
{
    struct fz_grp *gr = data;
    (void)g;
    gr->nominate_done = true;
    gr->nominate_err = err;
    gr->nominate_calls++;
}

void
fz_begin(void)
{
    const char *v = getenv("FAKEZK_VERBOSE");
    verbose = v && *v && strcmp(v, "0") != 0;
    fz_end();   /* whatever a failed test left open */
    fz_watchdog_ms = fz_exclude_ms = 60000;
    fz_policy = "nodeid";
    fz_session_ms = 10000;
    fz_fence_ms = fz_stepdown_ms = 0;
    fz_takeover_noop = false;
    fz_open_fresh = false;
    fz_fresh_ms = 0;
    fz_quiet = FZ_FOLLOW;
    if (verbose)
        fprintf(stderr, "\n");
}

void
fz_end(void)
{
    struct zkelect_group_state st;
    int i, j;

    /* no test may drive the state machine outside its table of legal moves */
    for (i = 0; i < FZ_MAX_NODES; i++) {
        if (nodes[i] == NULL || !nodes[i]->open)
            continue;
        for (j = 0; j < nodes[i]->ngroups; j++) {
            memset(&st, 0, sizeof(st));
            st.size = sizeof(st);
            if (nodes[i]->grp[j].g == NULL || zkelect_get_state(nodes[i]->grp[j].g, &st) != 0)
                continue;
            if (st.illegal_transitions != 0)
                fprintf(stderr, "  %s %s: %llu illegal transitions (see its log)\n",
                        nodes[i]->id, nodes[i]->grp[j].path,
                        (unsigned long long)st.illegal_transitions);
            CU_ASSERT_EQUAL(st.illegal_transitions, 0);
        }
    }
    for (i = 0; i < FZ_MAX_NODES; i++)
        if (nodes[i])
            fz_node_close(nodes[i]);
    fakezk_reset();
}

static void flush_one(zkelect_t *h);

/* the group's first view went out (or it was nominated): loop_fresh_flush */
static bool
started_pred(void *arg)
{
    return !((struct zkelect_group *)arg)->fresh;
}

int
fz_node_open(struct fz_node *n, const char *id, const char *base, int ngroups)
{
    struct zkelect_options o;
    struct zkelect_group_options go;
    int rc, i;
    static const char *const popts[] = {"preempt=off"};

    memset(n, 0, sizeof(*n));
    snprintf(n->id, sizeof(n->id), "%s", id);
    memset(&o, 0, sizeof(o));
    o.size = sizeof(o);
    o.hosts = "fakezk:2181";
    o.session_timeout_ms = fz_session_ms;
    o.stepdown_ms = fz_stepdown_ms;
    o.fence_ms = fz_fence_ms;
    o.connect_timeout_ms = 5000;
    o.log = log_cb;
    o.log_data = n;
    o.log_level = ZKELECT_LOG_DEBUG;
    o.nudge_ms = -1;              /* no stalled-request nudges: nothing stalls here */
    o.on_event = handle_event_cb; /* for the groups without one (FZ_QUIET_NOCB) */
    o.event_data = n;
    rc = zkelect_open(&o, &n->h);
    if (rc != 0)
        return rc;
    if (fz_fresh_ms > 0) {
        pthread_mutex_lock(&n->h->mu);
        n->h->fresh_ms = n->h->fresh_max_ms = fz_fresh_ms;
        pthread_mutex_unlock(&n->h->mu);
    }
    if (ngroups > FZ_GROUPS)
        ngroups = FZ_GROUPS;
    for (i = 0; i < ngroups; i++) {
        struct fz_grp *gr = &n->grp[i];
        gr->n = n;
        if (i == 0)
            snprintf(gr->path, sizeof(gr->path), "%s", base);
        else
            snprintf(gr->path, sizeof(gr->path), "%s-%d", base, i);
        memset(&go, 0, sizeof(go));
        go.size = sizeof(go);
        go.path = gr->path;
        go.policy = fz_policy;
        go.policy_path = FZ_POLICY_DIR;
        go.policy_options = popts;
        go.npolicy_options = 1;
        go.watchdog_ms = fz_watchdog_ms;
        go.exclude_ms = fz_exclude_ms;
        gr->quiet = fz_quiet;
        go.on_event = fz_quiet == FZ_QUIET_NOCB ? NULL : event_cb;
        go.event_data = gr;
        go.on_takeover = takeover_cb;
        go.on_stepdown = stepdown_cb;
        go.cb_data = gr;
        go.flags = ZKELECT_GROUP_NOWAIT | (fz_takeover_noop ? ZKELECT_GROUP_TAKEOVER_NOOP : 0) |
                   (fz_quiet == FZ_QUIET_NOEVENTS ? ZKELECT_GROUP_NO_LEADER_EVENTS : 0);
        rc = zkelect_group_open(n->h, &go, &gr->g);
        if (rc != 0)
            return rc;
        n->ngroups++;
    }
    if (!fz_open_fresh)
        flush_one(n->h); /* the opens are in: each group is fresh or started */
    for (i = 0; i < n->ngroups && !fz_open_fresh; i++)
        if (zke_call_wait(n->h, NULL, NULL, started_pred, n->grp[i].g, 20000) != 0) {
            fprintf(stderr, "fakezk harness: %s's group %d did not start within 20 s\n", id, i);
            abort();
        }
    n->open = true;
    pthread_mutex_lock(&reg_mu);
    for (i = 0; i < FZ_MAX_NODES; i++) {
        if (nodes[i] == NULL) {
            nodes[i] = n;
            break;
        }
    }
    pthread_mutex_unlock(&reg_mu);
    return 0;
}

int
fz_nominate(struct fz_node *n, int i, int priority)
{
    struct zkelect_node self;

    memset(&self, 0, sizeof(self));
    self.id = n->id;
    self.priority = priority;
    self.eligible = !n->grp[i].ineligible;
    self.site = n->grp[i].site;
    self.host = n->grp[i].host ? n->grp[i].host : "fakehost";
    n->grp[i].nominate_done = false;
    return zkelect_nominate_async(n->grp[i].g, &self, nominate_cb, &n->grp[i]);
}

int64_t
fz_sid(struct fz_node *n)
{
    return zkelect_session_id(n->h);
}

/* ---- quiescence -------------------------------------------------------------- */

static void
flush_fn(struct zkelect *h, void *arg)
{
    (void)h;
    *(bool *)arg = true;
}

static bool
flush_pred(void *arg)
{
    return *(bool *)arg;
}

static void
flush_one(zkelect_t *h)
{
    bool *done = calloc(1, sizeof(*done));

    if (done == NULL)
        abort();
    if (zke_call_wait(h, flush_fn, done, flush_pred, done, 20000) != 0) {
        fprintf(stderr, "fakezk harness: a library thread did not answer within 20 s\n");
        abort();   /* a wedged library thread: no later test result means anything */
    }
    free(done);
}

void
fz_flush(void)
{
    struct fz_node *list[FZ_MAX_NODES];
    int i, k = 0;

    pthread_mutex_lock(&reg_mu);
    for (i = 0; i < FZ_MAX_NODES; i++)
        if (nodes[i] && nodes[i]->h)
            list[k++] = nodes[i];
    pthread_mutex_unlock(&reg_mu);
    for (i = 0; i < k; i++)
        flush_one(list[i]->h);
}

int
fz_settle(int timeout_ms)
{
    uint64_t deadline = fz_now_ms() + (uint64_t)timeout_ms;
    int n;

    /* one item at a time, and every library thread quiet before the next:
       what the handles send, and so the order in which the server applies
       it, depends only on the order of delivery (the first session with
       something queued first), never on how the threads are scheduled */
    for (;;) {
        n = fakezk_deliver_one(0);
        fz_flush();
        if (n == 0 && fakezk_pending(0) == 0)
            return 0;
        if (fz_now_ms() > deadline)
            return -1;
    }
}

int
fz_settle_until(bool (*cond)(void *), void *arg, int timeout_ms)
{
    uint64_t deadline = fz_now_ms() + (uint64_t)timeout_ms;
    struct timespec ts;
    unsigned gen;

    for (;;) {
        pthread_mutex_lock(&wake_mu);
        gen = wake_gen;
        pthread_mutex_unlock(&wake_mu);
        fz_settle(timeout_ms > 20000 ? timeout_ms : 20000);
        if (cond(arg))
            return 0;
        if (fz_now_ms() > deadline)
            return -1;
        /* quiet, and the condition waits for something this thread does not
           drive (a library timer: watchdog, exclusion end, safety-net scan;
           a helper thread): wait for an event, at most 5 ms, then look again */
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 5 * 1000000L;
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        pthread_mutex_lock(&wake_mu);
        if (gen == wake_gen && fakezk_pending(0) == 0)
            pthread_cond_timedwait(&wake_cv, &wake_mu, &ts);
        pthread_mutex_unlock(&wake_mu);
    }
}

/* ---- blocking calls on a helper thread ------------------------------------------ */

struct bg {
    int (*fn)(void *);
    void *arg;
    int rc;
    bool done;
    pthread_mutex_t mu;
};

static void *
bg_main(void *p)
{
    struct bg *b = p;
    int rc = b->fn(b->arg);
    pthread_mutex_lock(&b->mu);
    b->rc = rc;
    b->done = true;
    pthread_mutex_unlock(&b->mu);
    wake();
    return NULL;
}

static bool
bg_done(void *p)
{
    struct bg *b = p;
    bool d;
    pthread_mutex_lock(&b->mu);
    d = b->done;
    pthread_mutex_unlock(&b->mu);
    return d;
}

int
fz_run_settling(int (*fn)(void *), void *arg, int timeout_ms)
{
    struct bg b = {fn, arg, 0, false, PTHREAD_MUTEX_INITIALIZER};
    pthread_t t;

    if (pthread_create(&t, NULL, bg_main, &b) != 0)
        abort();
    if (fz_settle_until(bg_done, &b, timeout_ms) != 0)
        fprintf(stderr, "fakezk harness: a blocking call is still running after %d ms\n",
                timeout_ms);
    pthread_join(t, NULL);
    return b.rc;
}

static int
close_fn(void *arg)
{
    struct fz_node *n = arg;
    zkelect_close(n->h);
    return 0;
}

void
fz_node_close(struct fz_node *n)
{
    int i;

    if (!n->open)
        return;
    /* unregister first: zkelect_close would hold the handle while it waits */
    pthread_mutex_lock(&reg_mu);
    for (i = 0; i < FZ_MAX_NODES; i++)
        if (nodes[i] == n)
            nodes[i] = NULL;
    pthread_mutex_unlock(&reg_mu);
    fz_run_settling(close_fn, n, 30000);
    n->h = NULL;
    n->open = false;
}

/* ---- views ------------------------------------------------------------------------ */

unsigned
fz_count(struct fz_node *n, int i, enum zkelect_event_type t)
{
    return n->grp[i].counts[t];
}

bool
fz_is_ready(struct fz_node *n, int i)
{
    struct zkelect_leader l;

    if (zkelect_get_leader(n->grp[i].g, &l) != 0)
        return false;
    return l.is_self && l.status == ZKELECT_STATUS_READY;
}

const char *
fz_tree_leader(const char *base, char *buf, size_t len)
{
    char path[256], data[4096], err[128];
    struct zke_leader l;
    int dl;

    snprintf(path, sizeof(path), "%s/leader", base);
    buf[0] = '\0';
    dl = fakezk_get(path, data, sizeof(data));
    if (dl < 0 || zke_leader_decode(data, dl, &l, err, sizeof(err)) != 0)
        return buf;
    snprintf(buf, len, "%s:%s:%llu", l.id, l.status == ZKELECT_STATUS_READY ? "READY" : "PROGRESS",
             (unsigned long long)l.epoch);
    return buf;
}

bool
fz_znode_has(const char *path, const char *text)
{
    char buf[16384];
    int n = fakezk_get(path, buf, sizeof(buf) - 1);

    if (n < 0)
        return false;
    buf[n] = '\0';
    return strstr(buf, text) != NULL;
}

/* ---- assertions' helpers -------------------------------------------------------------- */

bool
fz_registered(struct fz_node *n, int i)
{
    struct zkelect_stats st;
    return zkelect_get_stats(n->grp[i].g, &st) == 0 && st.registered;
}

bool
fz_is_elector(struct fz_node *n, int i)
{
    struct zkelect_stats st;
    return zkelect_get_stats(n->grp[i].g, &st) == 0 && st.is_elector;
}

int
fz_election_children(const char *base, const char *id)
{
    char prefix[256];
    snprintf(prefix, sizeof(prefix), "%s/election/%s_", base, id);
    return fakezk_count(prefix);
}

bool
fz_member_znode(const char *base, const char *id)
{
    char p[256];
    snprintf(p, sizeof(p), "%s/nodes/%s", base, id);
    return fakezk_exists(p);
}

const char *
fz_ready_leader(struct fz_node *ns, int count, int i)
{
    const char *who = NULL;
    int k, nready = 0;

    for (k = 0; k < count; k++) {
        if (ns[k].open && fz_is_ready(&ns[k], i)) {
            who = ns[k].id;
            nready++;
        }
    }
    return nready == 1 ? who : NULL;
}

void
fz_print_state(const char *what, struct fz_node *ns, int count)
{
    int k, i;

    fprintf(stderr, "\n--- %s\n%s", what, fakezk_dump());
    for (k = 0; k < count; k++)
        for (i = 0; ns[k].open && i < ns[k].ngroups; i++)
            fprintf(stderr, "%s %s: %s\n", ns[k].id, ns[k].grp[i].path, ns[k].grp[i].log);
}

static int liveness_spent;

void
fz_liveness_reset(void)
{
    liveness_spent = 0;
}

bool
fz_eventually(bool (*cond)(void *), void *arg)
{
    const char *e = getenv("FAKEZK_LIVENESS_MS");
    int ms = e && *e ? atoi(e) : 1500;

    if (fz_settle_until(cond, arg, liveness_spent ? 0 : ms) == 0)
        return true;
    liveness_spent = 1;
    return false;
}

/* Deliver session sid's items one at a time (flushing after each) until
 * the head of its FIFO starts with prefix. Returns false if it never does. */
bool
fz_deliver_until(int64_t sid, const char *prefix)
{
    char buf[300];
    int steps;

    for (steps = 0; steps < 1000; steps++) {
        if (strncmp(fakezk_peek(sid, buf, sizeof(buf)), prefix, strlen(prefix)) == 0)
            return true;
        if (!fakezk_deliver_one(sid))
            return false;
        fz_flush();
    }
    return false;
}
