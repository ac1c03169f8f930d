/*
 * test_slots.c - N active leaders per group (issue 17) end to end on a real
 * ZooKeeper (a standalone server and a 3-server ensemble started by the
 * harness), for N = 2 and N = 3: a crash of one active, an elector crash, a
 * switchover of one slot, a watchdog firing in one slot, N raised and
 * lowered live. N comes from the config znode (`leaders`), written here as
 * `zkelect init` / `zkelect set-leaders` write it; the policy is nodeid
 * (the lowest ids) with preempt off, so slots are sticky.
 *
 * A crash is the end of the node's session from outside (what a killed
 * process's session comes to, without waiting out its timeout): the handle
 * sees its session expire and joins again on a new one, like a restarted
 * process.
 *
 * Every handle's events go through one checker, per slot, for the whole run
 * of each test (teardown included): never two nodes READY in one slot, never
 * one node READY in two slots, never a READY in a slot at or above N, never
 * more READY than N (except, once N is lowered, the actives of the released
 * slots until they step down), each slot's READY epochs strictly increasing,
 * one epoch never READY in two slots, and the slot the takeover and
 * step-down callbacks see (zkelect_group_slot) is the slot of their event.
 *
 * The "figures" tests print (and do not assert) the failover time of one
 * slot and the ZooKeeper requests a slot change costs (zkelect_get_stats'
 * request counters summed over every handle). SLOTS_RUNS=N sets their runs
 * (default 5). TEST_VERBOSE=1 prints every event and the library's log.
 *
 * Run one test: tests/integration/test_slots standalone:crash
 */
#include "config.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <zookeeper/zookeeper.h>

#include "cutest.h"
#include "codec.h"
#include "zkelect.h"
#include "zkharness.h"

#define MAXNODES 8
#define MAXSLOTS ZKE_LEADERS_MAX
#define T_SESSION 4000   /* nodes' session timeout, ms: nothing here waits it out */
#define WAIT_MS 15000    /* generous deadline for anything to happen */

static struct zkh *zk1;  /* standalone */
static struct zkh *zk3;  /* ensemble */
static const char *hosts;
static zhandle_t *raw;   /* the test's own handle: config, switchover, the tree */
static char group_path[64];
static int test_no;
static uint64_t test_t0;  /* when the test began (ms) */
static uint64_t sw_id;   /* the last switchover id written in this group */
static int watchdog_opt; /* the group option watchdog_ms of the nodes started next */

/* ---- the checker ---------------------------------------------------------- */

struct node {
    char id[32];
    zkelect_t *h;
    zkelect_group_t *g;
    int takeover_mode;          /* 0: complete at once, 1: later (zkelect_takeover_done)
                                   or never */
    uint64_t pending_epoch;     /* the epoch of its last takeover callback */
    int ready_slot;             /* the slot it is READY in by its events, -1 none */
    int released;               /* READY in a slot released by lowering N */
    int takeover_slot;          /* slot of its last +takeover */
    int down_slot;              /* slot of its last -stepdown, -takeover-abort,
                                   -leadership-lost, -suspended or -fenced */
    int fenced_slot;            /* -fenced: it may take over again at the same epoch */
    uint64_t fenced_epoch;
    uint64_t ready_us;          /* when it last went READY (CLOCK_MONOTONIC, us) */
    uint64_t ready_epoch;       /* at which epoch */
    int crashed;                /* its session closed by crash(): its process is
                                   dead in the emulation, until its handle learns
                                   (-leadership-lost) or registers anew */
    int nready, nresumed, nstepdown, nlost, nsuspended, nabort, nfenced;
    int ntakeover, nelector, nwatchdog, nregistered;
};

static pthread_mutex_t rec_mu = PTHREAD_MUTEX_INITIALIZER;
static struct node nodes[MAXNODES];
static int violations;
static int n_limit = 1;                    /* N as the test set it */
static uint64_t slot_max_epoch[MAXSLOTS];  /* the newest READY epoch of each slot */
static int slot_breaks[MAXSLOTS];          /* times slot k's READY active stopped */
static int slot_watchdogs[MAXSLOTS];       /* +watchdog events about slot k */
#define MAXEPOCHS 4096
static struct { uint64_t epoch; int slot; } ready_epochs[MAXEPOCHS];
static int nready_epochs;

static uint64_t
now_us(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

static uint64_t
now_ms(void)
{
    return now_us() / 1000;
}

/* The polling interval of a deadline wait. */
static void
tick(void)
{
    struct timespec ts = {0, 5 * 1000000};

    nanosleep(&ts, NULL);
}

static void
violation(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    fprintf(stderr, "VIOLATION: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    violations++;
}

/* A READY (or RESUMED) of node N in slot S at epoch E; rec_mu held. */
static void
check_ready(struct node *n, const struct zkelect_event *ev)
{
    int s = ev->slot, i, count = 0;
    uint64_t e = ev->epoch;

    if (s < 0 || s >= MAXSLOTS) {
        violation("%s %s in slot %d", n->id, ev->name, s);
        return;
    }
    if (s >= n_limit)
        violation("%s %s in slot %d at epoch %llu, N is %d", n->id, ev->name, s,
                  (unsigned long long)e, n_limit);
    if (n->ready_slot >= 0 && n->ready_slot != s)
        violation("%s %s in slot %d while READY in slot %d", n->id, ev->name, s, n->ready_slot);
    for (i = 0; i < MAXNODES; i++) {
        struct node *m = &nodes[i];

        /* a crashed node's live handle may still say READY until it learns
           its session is gone (a few ms, or until it fences after winning
           its session back); its process is dead in the emulation */
        if (m == n || m->ready_slot < 0 || m->crashed)
            continue;
        if (m->ready_slot == s)
            violation("%s %s in slot %d at epoch %llu while %s is READY there at %llu", n->id,
                      ev->name, s, (unsigned long long)e, m->id,
                      (unsigned long long)m->ready_epoch);
        if (!m->released)
            count++;
    }
    if (count + 1 > n_limit)
        violation("%s %s in slot %d: %d READY, N is %d", n->id, ev->name, s, count + 1, n_limit);
    if (ev->type == ZKELECT_EV_READY) {
        /* a leader that fenced itself and is still elected takes over again
           at the same epoch */
        if (e <= slot_max_epoch[s] && !(n->fenced_slot == s && n->fenced_epoch == e))
            violation("%s READY in slot %d at epoch %llu, not above %llu", n->id, s,
                      (unsigned long long)e, (unsigned long long)slot_max_epoch[s]);
        if (n->takeover_slot != s)
            violation("%s READY in slot %d after its +takeover in slot %d", n->id, s,
                      n->takeover_slot);
        for (i = 0; i < nready_epochs; i++)
            if (ready_epochs[i].epoch == e && ready_epochs[i].slot != s)
                violation("epoch %llu READY in slot %d and in slot %d", (unsigned long long)e,
                          ready_epochs[i].slot, s);
        if (nready_epochs < MAXEPOCHS) {
            ready_epochs[nready_epochs].epoch = e;
            ready_epochs[nready_epochs++].slot = s;
        }
    } else if (e < slot_max_epoch[s]) {
        violation("%s resumed in slot %d at epoch %llu, slot is at %llu", n->id, s,
                  (unsigned long long)e, (unsigned long long)slot_max_epoch[s]);
    }
    if (e > slot_max_epoch[s])
        slot_max_epoch[s] = e;
    n->ready_slot = s;
    n->ready_epoch = e;
    n->ready_us = now_us();
    n->fenced_slot = -1;
}

/* Node N stops being READY (any reason); rec_mu held. */
static void
check_down(struct node *n, const struct zkelect_event *ev)
{
    /* the step-down callback that may follow is about this slot */
    n->down_slot = ev->slot;
    if (n->ready_slot < 0)
        return;
    if (ev->slot != n->ready_slot)
        violation("%s %s says slot %d, it was READY in slot %d", n->id, ev->name, ev->slot,
                  n->ready_slot);
    slot_breaks[n->ready_slot]++;
    n->ready_slot = -1;
    n->released = 0;
}

static void
on_event(void *data, const struct zkelect_event *ev)
{
    struct node *n = data;

    pthread_mutex_lock(&rec_mu);
    if (getenv("TEST_VERBOSE"))
        fprintf(stderr, "[%llu] %s %s slot=%d node=%s epoch=%llu %s\n",
                (unsigned long long)ev->mono_ms, n->id, ev->name, ev->slot,
                ev->node ? ev->node : "-", (unsigned long long)ev->epoch, ev->detail);
    switch (ev->type) {
    case ZKELECT_EV_TAKEOVER:
        n->takeover_slot = ev->slot;
        n->ntakeover++;
        break;
    case ZKELECT_EV_READY:
    case ZKELECT_EV_RESUMED:
        if (n->crashed) {
            /* its process is dead in the emulation: its handle may still
               win its session back and verify its leader znode before the
               close lands (crash()), but no service runs there */
            fprintf(stderr, "%s %s in slot %d at epoch %llu left aside: crashed\n", n->id,
                    ev->name, ev->slot, (unsigned long long)ev->epoch);
            break;
        }
        check_ready(n, ev);
        if (ev->type == ZKELECT_EV_READY)
            n->nready++;
        else
            n->nresumed++;
        break;
    case ZKELECT_EV_FENCED:
        n->fenced_slot = n->ready_slot >= 0 ? n->ready_slot : ev->slot;
        n->fenced_epoch = ev->epoch;
        check_down(n, ev);
        n->nfenced++;
        break;
    case ZKELECT_EV_STEPDOWN:
        check_down(n, ev);
        n->nstepdown++;
        break;
    case ZKELECT_EV_TAKEOVER_ABORT:
        check_down(n, ev);
        n->nabort++;
        break;
    case ZKELECT_EV_SUSPENDED:
        check_down(n, ev);
        n->nsuspended++;
        break;
    case ZKELECT_EV_LOST:
        check_down(n, ev);
        n->crashed = 0;
        n->nlost++;
        break;
    case ZKELECT_EV_ELECTOR:
        n->nelector++;
        break;
    case ZKELECT_EV_WATCHDOG:
        n->nwatchdog++;
        if (ev->slot >= 0 && ev->slot < MAXSLOTS)
            slot_watchdogs[ev->slot]++;
        break;
    case ZKELECT_EV_REGISTERED:
        n->crashed = 0;
        n->nregistered++;
        break;
    default:
        break;
    }
    pthread_mutex_unlock(&rec_mu);
}

/* The takeover callback learns its slot from zkelect_group_slot(). */
static int
on_takeover(void *data, zkelect_group_t *g, uint64_t epoch)
{
    struct node *n = data;
    int k = zkelect_group_slot(g);

    pthread_mutex_lock(&rec_mu);
    if (k != n->takeover_slot)
        violation("%s: takeover callback in slot %d, its +takeover said slot %d", n->id, k,
                  n->takeover_slot);
    n->pending_epoch = epoch;
    pthread_mutex_unlock(&rec_mu);
    return n->takeover_mode == 1 ? ZKELECT_EBUSY : ZKELECT_OK;
}

static int
on_stepdown(void *data, zkelect_group_t *g, uint64_t epoch)
{
    struct node *n = data;
    int k = zkelect_group_slot(g);

    (void)epoch;
    pthread_mutex_lock(&rec_mu);
    if (k != n->down_slot)
        violation("%s: step-down callback in slot %d, its event said slot %d", n->id, k,
                  n->down_slot);
    pthread_mutex_unlock(&rec_mu);
    return ZKELECT_OK;
}

static void
log_cb(void *data, int level, const char *msg)
{
    (void)data;
    if (getenv("TEST_VERBOSE") || level <= ZKELECT_LOG_ERR)
        fprintf(stderr, "log[%d] %s\n", level, msg);
}

/* ---- the tree, through the test's own handle ------------------------------ */

static zhandle_t *
raw_open(const char *hs)
{
    zhandle_t *zh = zookeeper_init(hs, NULL, 10000, NULL, NULL, ZOO_NO_LOG_CLIENTENV);
    uint64_t end = now_ms() + WAIT_MS;

    while (zh && zoo_state(zh) != ZOO_CONNECTED_STATE && now_ms() < end)
        tick();
    return zh;
}

/* Write znode PATH (created if absent) with the JSON text; the ZooKeeper rc. */
static int
put(const char *path, const char *json)
{
    int rc = zoo_set(raw, path, json, (int)strlen(json), -1);

    if (rc == ZNONODE)
        rc = zoo_create(raw, path, json, (int)strlen(json), &ZOO_OPEN_ACL_UNSAFE, 0, NULL, 0);
    if (rc != ZOK)
        fprintf(stderr, "put %s: %s\n", path, zerror(rc));
    return rc;
}

/* Set `leaders` in the group's config, as `zkelect set-leaders` does; the
   checker's N first when it grows, so that no new READY is early. Lowering
   N marks the actives of the released slots: they are READY until they
   step down, after the decision. */
static void
set_leaders(int n, const char *extra)
{
    char p[128], json[256];
    int i;

    pthread_mutex_lock(&rec_mu);
    for (i = 0; i < MAXNODES; i++)
        if (nodes[i].ready_slot >= n)
            nodes[i].released = 1;
    n_limit = n;
    pthread_mutex_unlock(&rec_mu);
    snprintf(p, sizeof(p), "%s/config", group_path);
    snprintf(json, sizeof(json), "{\"v\":1,\"leaders\":%d,\"settle_ms\":0%s%s}", n,
             extra ? "," : "", extra ? extra : "");
    CU_ASSERT_EQUAL_FATAL(put(p, json), ZOK);
}

/* A switchover request, as `zkelect switchover --from FROM [--to TO]` writes it. */
static void
switchover(const char *from, const char *to)
{
    char p[128], json[256];

    snprintf(p, sizeof(p), "%s/switchover", group_path);
    snprintf(json, sizeof(json), "{\"v\":1,\"id\":%llu,\"to\":%s%s%s,\"from\":\"%s\"}",
             (unsigned long long)++sw_id, to ? "\"" : "", to ? to : "null", to ? "\"" : "", from);
    CU_ASSERT_EQUAL(put(p, json), ZOK);
}

/* Slot K's leader znode: 0 and *l, or -1 when it is absent (or unreadable). */
static int
tree_leader(int k, struct zke_leader *l)
{
    char p[128], buf[4096], err[160];
    int len = sizeof(buf), rc;

    if (k == 0)
        snprintf(p, sizeof(p), "%s/leader", group_path);
    else
        snprintf(p, sizeof(p), "%s/leader-%d", group_path, k);
    rc = zoo_get(raw, p, 0, buf, &len, NULL);
    if (rc != ZOK || len <= 0)
        return -1;
    if (zke_leader_decode(buf, len, l, err, sizeof(err)) != 0) {
        fprintf(stderr, "%s: %s\n", p, err);
        return -1;
    }
    if (l->slot != k)
        violation("%s names slot %d", p, l->slot);
    return 0;
}

/* Slot K's epoch in the tree (0: no leader znode). */
static uint64_t
tree_epoch(int k)
{
    struct zke_leader l;

    return tree_leader(k, &l) == 0 ? l.epoch : 0;
}

/* The decision in the tree: 0 and *e, or -1. */
static int
tree_elected(struct zke_elected *e)
{
    char p[128], err[160];
    static char buf[65536];
    int len = sizeof(buf);

    snprintf(p, sizeof(p), "%s/elected", group_path);
    if (zoo_get(raw, p, 0, buf, &len, NULL) != ZOK || len <= 0)
        return -1;
    return zke_elected_decode(buf, len, e, err, sizeof(err)) == 0 ? 0 : -1;
}

/* History has an entry for EPOCH in slot SLOT naming ID. */
static bool
tree_history_has(uint64_t epoch, int slot, const char *id)
{
    char p[128], err[160];
    static char buf[1 << 20];
    static struct zke_history hi;
    int len = sizeof(buf), i;

    snprintf(p, sizeof(p), "%s/history", group_path);
    if (zoo_get(raw, p, 0, buf, &len, NULL) != ZOK || len <= 0 ||
        zke_history_decode(buf, len, &hi, err, sizeof(err)) != 0)
        return false;
    for (i = 0; i < hi.n; i++)
        if (hi.entries[i].epoch == epoch)
            return hi.entries[i].slot == slot && strcmp(hi.entries[i].leader, id) == 0;
    return false;
}

/* ---- nodes ----------------------------------------------------------------- */

static struct node *
node_by_id(const char *id)
{
    int i;

    for (i = 0; i < MAXNODES; i++)
        if (nodes[i].h && strcmp(nodes[i].id, id) == 0)
            return &nodes[i];
    return NULL;
}

/* Start node I as ID, a candidate (eligible) of the group. */
static struct node *
start_node(int i, const char *id, int takeover_mode)
{
    struct node *n = &nodes[i];
    struct zkelect_options o;
    struct zkelect_group_options go;
    struct zkelect_node self;
    static const char *popts[] = {"preempt=off"};

    pthread_mutex_lock(&rec_mu);
    memset(n, 0, sizeof(*n));
    snprintf(n->id, sizeof(n->id), "%s", id);
    n->takeover_mode = takeover_mode;
    n->ready_slot = n->takeover_slot = n->down_slot = n->fenced_slot = -1;
    pthread_mutex_unlock(&rec_mu);

    memset(&o, 0, sizeof(o));
    o.size = sizeof(o);
    o.hosts = hosts;
    o.session_timeout_ms = T_SESSION;
    o.connect_timeout_ms = 10000;
    o.log = log_cb;
    o.log_level = getenv("TEST_VERBOSE") ? ZKELECT_LOG_DEBUG : ZKELECT_LOG_INFO;
    CU_ASSERT_EQUAL_FATAL(zkelect_open(&o, &n->h), 0);

    memset(&go, 0, sizeof(go));
    go.size = sizeof(go);
    go.path = group_path;
    go.policy = "nodeid";
    go.policy_options = popts;
    go.npolicy_options = 1;
    go.watchdog_ms = watchdog_opt;
    go.exclude_ms = 60000;
    go.on_event = on_event;
    go.event_data = n;
    go.on_takeover = on_takeover;
    go.on_stepdown = on_stepdown;
    go.cb_data = n;
    CU_ASSERT_EQUAL_FATAL(zkelect_group_open(n->h, &go, &n->g), 0);

    memset(&self, 0, sizeof(self));
    self.id = id;
    self.site = "dc1";
    self.eligible = 1;
    CU_ASSERT_EQUAL_FATAL(zkelect_nominate(n->g, &self, WAIT_MS), 0);
    return n;
}

static void
stop_node(struct node *n)
{
    zkelect_t *h;

    pthread_mutex_lock(&rec_mu);
    h = n->h;
    pthread_mutex_unlock(&rec_mu);
    if (h == NULL)
        return;
    zkelect_close(h);
    pthread_mutex_lock(&rec_mu);
    n->h = NULL;
    n->g = NULL;
    n->ready_slot = -1;
    pthread_mutex_unlock(&rec_mu);
}

/* Stop every node: each resigns, the others take over; the checker watches
   the teardown too. */
static void
stop_all(void)
{
    int i;

    for (i = MAXNODES - 1; i >= 0; i--)
        stop_node(&nodes[i]);
}

/* A new group for the next test, its base znode created. */
static void
reset(void)
{
    char p[128];
    int i;

    stop_all();
    memset(nodes, 0, sizeof(nodes));
    for (i = 0; i < MAXNODES; i++)
        nodes[i].ready_slot = nodes[i].takeover_slot = nodes[i].down_slot =
            nodes[i].fenced_slot = -1;
    violations = 0;
    n_limit = 1;
    memset(slot_max_epoch, 0, sizeof(slot_max_epoch));
    memset(slot_breaks, 0, sizeof(slot_breaks));
    memset(slot_watchdogs, 0, sizeof(slot_watchdogs));
    nready_epochs = 0;
    sw_id = 0;
    watchdog_opt = 10000;
    test_t0 = now_ms();
    snprintf(group_path, sizeof(group_path), "/slots%d_%d", (int)getpid(), ++test_no);
    snprintf(p, sizeof(p), "%s", group_path);
    CU_ASSERT_EQUAL_FATAL(zoo_create(raw, p, "", 0, &ZOO_OPEN_ACL_UNSAFE, 0, NULL, 0), ZOK);
}

/* The end of a test: no violation, then none in the teardown either. */
static void
finish(void)
{
    CU_ASSERT_EQUAL(violations, 0);
    stop_all();
    CU_ASSERT_EQUAL(violations, 0);
    fprintf(stderr, "(%llu ms) ", (unsigned long long)(now_ms() - test_t0));
}

/*
 * End node N's session from outside, as if its process had been killed and
 * its session had then expired: its leader znode and registration go at
 * once; its handle sees the session expire and joins again on a new one.
 * The live handle may win its session back from the closing client before
 * the close is sent (zkelect_end_session is meant for a dead process's
 * session): then its session id stays, and we try again. Or the close lands
 * after the handle won the session back: ZooKeeper 3.8.0 then deletes the
 * session's znodes but leaves the handle's connection open, its requests
 * unanswered, until the client gives up at 2/3 of the session timeout and
 * learns of the expiry on reconnecting (the library says "registration
 * lost" meanwhile). Returns the time the session was closed (us).
 * From the first try on the node counts as crashed: the checker leaves its
 * READY aside (a dead process runs no service) until its handle says
 * -leadership-lost or registers on a new session, and so its handle's own
 * +ready and +resumed: having won its session back, the handle may verify
 * its leader znode just before the close lands and report +resumed after
 * the next active's READY (seen once in CI, 2026-11-28). Under the sanitizer CI's
 * load its handle had not yet seen the close when the next active was READY,
 * 4 ms after it.
 */
static uint64_t
crash(struct node *n)
{
    struct zkelect_options o;
    unsigned char pw[16];
    int64_t id = 0, now = 0;
    int len = 0, rc, attempt;
    uint64_t t = 0, end;

    CU_ASSERT_EQUAL_FATAL(zkelect_get_session(n->h, &id, pw, &len), 0);
    memset(&o, 0, sizeof(o));
    o.size = sizeof(o);
    o.hosts = hosts;
    o.session_timeout_ms = T_SESSION;
    o.connect_timeout_ms = 10000;
    o.log = log_cb;
    /* dead from here in the emulation, whatever its handle still says */
    pthread_mutex_lock(&rec_mu);
    n->crashed = 1;
    pthread_mutex_unlock(&rec_mu);
    for (attempt = 0; attempt < 8; attempt++) {
        rc = zkelect_end_session(&o, id, pw, len);
        if (rc == ZKELECT_EEXPIRED && attempt > 0)
            rc = 0; /* the attempt before closed it after all (at t) */
        else
            t = now_us();
        CU_ASSERT_EQUAL(rc, 0);
        /* the handle learns it when it reconnects: a new session, within
           milliseconds when the session was closed */
        end = now_ms() + 1000;
        while (((now = zkelect_session_id(n->h)) == 0 || now == id) && now_ms() < end)
            tick();
        if (now != 0 && now != id)
            break;
        fprintf(stderr, "crash of %s: its session 0x%llx survived, again\n", n->id,
                (unsigned long long)id);
    }
    CU_ASSERT(now != 0 && now != id);
    return t;
}

/* ---- views ------------------------------------------------------------------ */

/*
 * The group is steady with N slots held by WANT[0..N-1] (NULL: any node):
 * each holder is READY in its slot by its events and in the tree, no other
 * node is READY, there is no leader znode above N, and every handle's
 * zkelect_get_leaders() shows the same N slots, READY, at the tree's epochs.
 * HOLDER (may be NULL) gets who holds each slot.
 */
static bool
steady(int n, const char *const *want, struct node **holder)
{
    struct zke_leader l;
    struct zkelect_slot sl[MAXSLOTS];
    struct zkelect_leader one;
    uint64_t ep[MAXSLOTS];
    char ids[MAXSLOTS][ZKE_ID_MAX + 1];
    int k, i, c, ready = 0;

    for (k = 0; k < MAXSLOTS; k++) {
        if (k >= n) {
            if (tree_leader(k, &l) == 0)
                return false;
            continue;
        }
        if (tree_leader(k, &l) != 0 || l.status != ZKELECT_STATUS_READY)
            return false;
        if (want && want[k] && strcmp(l.id, want[k]) != 0)
            return false;
        snprintf(ids[k], sizeof(ids[k]), "%s", l.id);
        ep[k] = l.epoch;
    }
    pthread_mutex_lock(&rec_mu);
    for (i = 0; i < MAXNODES; i++)
        if (nodes[i].h && nodes[i].ready_slot >= 0)
            ready++;
    for (k = 0; k < n; k++) {
        struct node *h = node_by_id(ids[k]);

        if (h == NULL || h->ready_slot != k || h->ready_epoch != ep[k]) {
            pthread_mutex_unlock(&rec_mu);
            return false;
        }
        if (holder)
            holder[k] = h;
    }
    pthread_mutex_unlock(&rec_mu);
    if (ready != n)
        return false;
    for (i = 0; i < MAXNODES; i++) {
        if (nodes[i].h == NULL)
            continue;
        c = zkelect_get_leaders(nodes[i].g, sl, MAXSLOTS);
        if (c != n)
            return false;
        for (k = 0; k < n; k++)
            if (strcmp(sl[k].id, ids[k]) != 0 || sl[k].status != ZKELECT_STATUS_READY ||
                sl[k].epoch != ep[k] || strcmp(sl[k].elected, ids[k]) != 0 ||
                sl[k].elected_epoch != ep[k] || sl[k].slot != k ||
                !sl[k].is_self != !!strcmp(ids[k], nodes[i].id))
                return false;
        /* today's API shows slot 0 */
        if (zkelect_get_leader(nodes[i].g, &one) != 0 || strcmp(one.id, ids[0]) != 0 ||
            one.epoch != ep[0] || one.status != ZKELECT_STATUS_READY)
            return false;
        for (k = 0; k < n && strcmp(ids[k], nodes[i].id) != 0; k++)
            ;
        if (zkelect_group_slot(nodes[i].g) != (k < n ? k : -1))
            return false;
    }
    return true;
}

static void
dump(const char *why)
{
    struct zke_leader l;
    struct zkelect_group_state st;
    int i, k;

    fprintf(stderr, "--- %s (group %s, N %d)\n", why, group_path, n_limit);
    for (k = 0; k < MAXSLOTS; k++)
        if (tree_leader(k, &l) == 0)
            fprintf(stderr, "  tree slot %d: %s %s epoch %llu\n", k, l.id,
                    zkelect_status_name(l.status), (unsigned long long)l.epoch);
    for (i = 0; i < MAXNODES; i++) {
        if (nodes[i].h == NULL)
            continue;
        memset(&st, 0, sizeof(st));
        st.size = sizeof(st);
        zkelect_get_state(nodes[i].g, &st);
        fprintf(stderr, "  %s: role %s, slot %d, READY in slot %d at %llu%s, leaders %d\n",
                nodes[i].id, st.role, zkelect_group_slot(nodes[i].g), nodes[i].ready_slot,
                (unsigned long long)nodes[i].ready_epoch, nodes[i].released ? " (released)" : "",
                zkelect_get_leaders(nodes[i].g, NULL, 0));
    }
}

/* Wait (WAIT_MS) until steady(); false, with the state on stderr, if not. */
static bool
wait_steady(int n, const char *const *want, struct node **holder)
{
    uint64_t end = now_ms() + WAIT_MS;

    do {
        if (steady(n, want, holder))
            return true;
        tick();
    } while (now_ms() < end);
    dump("not steady in time");
    return false;
}

static int
get_count(const int *p)
{
    int v;

    pthread_mutex_lock(&rec_mu);
    v = *p;
    pthread_mutex_unlock(&rec_mu);
    return v;
}

/* Wait until *P >= V; 1, or 0 after WAIT_MS. */
static int
wait_count(const int *p, int v)
{
    uint64_t end = now_ms() + WAIT_MS;

    while (get_count(p) < v) {
        if (now_ms() >= end)
            return 0;
        tick();
    }
    return 1;
}

/* What a slot's undisturbed active must keep: its epoch, its one READY. */
struct keep {
    int slot;
    struct node *n;
    uint64_t epoch;
    int breaks, nready, nstepdown, ntakeover;
};

static void
keep_take(struct keep *kp, int slot, struct node *n)
{
    pthread_mutex_lock(&rec_mu);
    kp->slot = slot;
    kp->n = n;
    kp->epoch = n->ready_epoch;
    kp->breaks = slot_breaks[slot];
    kp->nready = n->nready;
    kp->nstepdown = n->nstepdown;
    kp->ntakeover = n->ntakeover;
    pthread_mutex_unlock(&rec_mu);
}

/* Slot kp->slot was not disturbed: same node READY at the same epoch (in
   the tree too), no step-down, no new takeover, never stopped. */
static void
keep_check(const struct keep *kp)
{
    pthread_mutex_lock(&rec_mu);
    CU_ASSERT_EQUAL(kp->n->ready_slot, kp->slot);
    CU_ASSERT_EQUAL(kp->n->ready_epoch, kp->epoch);
    CU_ASSERT_EQUAL(slot_breaks[kp->slot], kp->breaks);
    CU_ASSERT_EQUAL(kp->n->nready, kp->nready);
    CU_ASSERT_EQUAL(kp->n->nstepdown, kp->nstepdown);
    CU_ASSERT_EQUAL(kp->n->ntakeover, kp->ntakeover);
    if (kp->n->ready_epoch != kp->epoch || slot_breaks[kp->slot] != kp->breaks)
        fprintf(stderr, "slot %d disturbed: %s READY in %d at %llu (was %llu), breaks %d -> %d\n",
                kp->slot, kp->n->id, kp->n->ready_slot, (unsigned long long)kp->n->ready_epoch,
                (unsigned long long)kp->epoch, kp->breaks, slot_breaks[kp->slot]);
    pthread_mutex_unlock(&rec_mu);
    CU_ASSERT_EQUAL(tree_epoch(kp->slot), kp->epoch);
}

static const char *const ids[] = {"n1", "n2", "n3", "n4", "n5", "n6", "n7", "n8"};

/* Config leaders = N, then nodes n1..nCOUNT one after the other; wait until
   n1..nN hold slots 0..N-1. */
static void
start_group(int n, int count, struct node **holder)
{
    int i;

    set_leaders(n, NULL);
    for (i = 0; i < count; i++)
        start_node(i, ids[i], 0);
    CU_ASSERT_FATAL(wait_steady(n, ids, holder));
}

/* ---- the scenarios ---------------------------------------------------------- */

/*
 * The active of slot 1 crashes (its session ends): slot 1 is refilled at a
 * new epoch by the spare (or by the crashed node itself, back on its new
 * session, if it registered again before the elector decided: the policy
 * picks the lowest id); the other slots are undisturbed. n1 (slot 0) is the
 * elector.
 */
static void
crash_one_active(int n)
{
    struct node *h[MAXSLOTS], *h2[MAXSLOTS], *victim;
    struct keep kp[MAXSLOTS];
    uint64_t e1;
    int k;

    reset();
    start_group(n, n + 1, h);
    victim = h[1];
    e1 = tree_epoch(1);
    for (k = 0; k < n; k++)
        if (k != 1)
            keep_take(&kp[k], k, h[k]);
    crash(victim);
    CU_ASSERT_FATAL(wait_steady(n, NULL, h2));
    CU_ASSERT(tree_epoch(1) > e1);
    CU_ASSERT(h2[1] == victim || h2[1] == &nodes[n]);
    CU_ASSERT(tree_history_has(tree_epoch(1), 1, h2[1]->id));
    CU_ASSERT(wait_count(&victim->nlost, 1));
    CU_ASSERT(wait_count(&victim->nregistered, 2));
    for (k = 0; k < n; k++)
        if (k != 1)
            keep_check(&kp[k]);
    finish();
}

static void test_crash_n2(void) { crash_one_active(2); }
static void test_crash_n3(void) { crash_one_active(3); }

/*
 * The elector crashes. It is a spare (n9, first registered, the cold start
 * waits for every member: settle + expect), so no slot may move: every
 * epoch stays, nobody steps down or takes over. The next elector (n1) then
 * handles a crash of the highest slot's active: the lowest spare takes it.
 */
static void
elector_crash(int n)
{
    struct node *h[MAXSLOTS], *h2[MAXSLOTS], *el;
    struct keep kp[MAXSLOTS];
    char extra[64];
    uint64_t e;
    int k, i;

    reset();
    snprintf(extra, sizeof(extra), "\"settle_ms\":%d,\"expect\":%d", WAIT_MS, n + 2);
    pthread_mutex_lock(&rec_mu);
    n_limit = n;
    pthread_mutex_unlock(&rec_mu);
    {
        /* settle_ms 0 in set_leaders: write this one by hand */
        char p[128], json[256];
        snprintf(p, sizeof(p), "%s/config", group_path);
        snprintf(json, sizeof(json), "{\"v\":1,\"leaders\":%d,%s}", n, extra);
        CU_ASSERT_EQUAL_FATAL(put(p, json), ZOK);
    }
    el = start_node(MAXNODES - 1, "n9", 0);
    for (i = 0; i < n + 1; i++)
        start_node(i, ids[i], 0);
    CU_ASSERT_FATAL(wait_steady(n, ids, h));
    CU_ASSERT_EQUAL(el->nelector, 1);
    for (k = 0; k < n; k++)
        keep_take(&kp[k], k, h[k]);
    crash(el);
    CU_ASSERT(wait_count(&nodes[0].nelector, 1));
    CU_ASSERT(wait_count(&el->nregistered, 2));
    CU_ASSERT(wait_steady(n, ids, NULL));
    for (k = 0; k < n; k++)
        keep_check(&kp[k]);
    for (i = 1; i < n + 1; i++)
        CU_ASSERT_EQUAL(nodes[i].nelector, 0);
    CU_ASSERT_EQUAL(el->ntakeover, 0);
    CU_ASSERT_EQUAL(nodes[n].ntakeover, 0);

    /* the new elector at work: the highest slot's active crashes */
    e = tree_epoch(n - 1);
    for (k = 0; k < n - 1; k++)
        keep_take(&kp[k], k, h[k]);
    crash(h[n - 1]);
    CU_ASSERT_FATAL(wait_steady(n, NULL, h2));
    CU_ASSERT(tree_epoch(n - 1) > e);
    /* the spare n(N+1), or the crashed node back on its new session; never n9 */
    CU_ASSERT(h2[n - 1] == &nodes[n] || h2[n - 1] == h[n - 1]);
    for (k = 0; k < n - 1; k++)
        keep_check(&kp[k]);
    finish();
}

static void test_elector_n2(void) { elector_crash(2); }
static void test_elector_n3(void) { elector_crash(3); }

/*
 * The elector (n9, a spare) crashes while slot 1's takeover is still
 * running (n2's takeover callback takes its time), N = 2. The next elector
 * (n1, slot 0's active) guards that takeover with the config's watchdog
 * period (6 s), not its own group option (1 s, which a new elector knows
 * before it has read the config): no +watchdog within 3 s of the new
 * elector; then n2 completes its takeover and is READY in slot 1 at the
 * epoch it was elected at; slot 0 stays READY throughout.
 */
static void
test_elector_crash_mid_takeover(void)
{
    struct node *el, *slow;
    struct keep kp;
    const char *want[2] = {"n1", "n2"};
    char p[128];
    uint64_t end, t, e;

    reset();
    pthread_mutex_lock(&rec_mu);
    n_limit = 2;
    pthread_mutex_unlock(&rec_mu);
    snprintf(p, sizeof(p), "%s/config", group_path);
    CU_ASSERT_EQUAL_FATAL(put(p, "{\"v\":1,\"leaders\":2,\"settle_ms\":15000,\"expect\":4,"
                                 "\"watchdog_ms\":6000}"), ZOK);
    watchdog_opt = 1000;
    el = start_node(MAXNODES - 1, "n9", 0);
    start_node(0, "n1", 0);
    slow = start_node(1, "n2", 1);
    start_node(2, "n3", 0);
    /* n2 PROGRESS in slot 1, n1 READY in slot 0 */
    end = now_ms() + WAIT_MS;
    while (!(get_count(&slow->ntakeover) >= 1 && get_count(&nodes[0].nready) >= 1) &&
           now_ms() < end)
        tick();
    CU_ASSERT_FATAL(get_count(&slow->ntakeover) >= 1);
    CU_ASSERT_EQUAL(get_count(&slow->takeover_slot), 1);
    CU_ASSERT_FATAL(get_count(&nodes[0].nready) >= 1);
    pthread_mutex_lock(&rec_mu);
    e = slow->pending_epoch;
    pthread_mutex_unlock(&rec_mu);
    keep_take(&kp, 0, &nodes[0]);
    crash(el);
    CU_ASSERT_FATAL(wait_count(&nodes[0].nelector, 1));
    /* half the config's period: no watchdog yet (an observation window,
       not a wait for anything to happen) */
    t = now_ms() + 3000;
    while (get_count(&slot_watchdogs[1]) == 0 && now_ms() < t)
        tick();
    CU_ASSERT_EQUAL(get_count(&slot_watchdogs[1]), 0);
    if (get_count(&slot_watchdogs[1]) != 0)
        fprintf(stderr, "the new elector's watchdog for slot 1 fired within 3 s; the config "
                "says 6000 ms\n");
    CU_ASSERT_EQUAL(zkelect_takeover_done(slow->g, e, ZKELECT_OK), 0);
    if (get_count(&slot_watchdogs[1]) == 0) {
        CU_ASSERT_FATAL(wait_steady(2, want, NULL));
        CU_ASSERT_EQUAL(tree_epoch(1), e);
        CU_ASSERT_EQUAL(get_count(&slow->nready), 1);
    }
    CU_ASSERT_EQUAL(get_count(&slot_watchdogs[0]), 0);
    keep_check(&kp);
    finish();
}

/*
 * `zkelect switchover --from n2`: slot 1 moves through the two phases (n2's
 * step-down, then the new active's takeover) at a new epoch, to the lowest
 * spare, or with N = 3 to the node named by "to"; the other slots keep
 * their epochs. A switchover from a node that holds no slot moves nothing.
 */
static void
switchover_one_slot(int n)
{
    struct node *h[MAXSLOTS];
    struct keep kp[MAXSLOTS];
    const char *want[MAXSLOTS];
    uint64_t e1;
    int k, count = n == 2 ? 3 : 5;

    reset();
    start_group(n, count, h);
    e1 = tree_epoch(1);
    for (k = 0; k < n; k++) {
        want[k] = ids[k];
        if (k != 1)
            keep_take(&kp[k], k, h[k]);
    }
    /* N = 2: no "to", the lowest spare (n3); N = 3: to the highest (n5) */
    want[1] = n == 2 ? "n3" : "n5";
    switchover("n2", n == 2 ? NULL : "n5");
    CU_ASSERT_FATAL(wait_steady(n, want, NULL));
    CU_ASSERT(tree_epoch(1) > e1);
    CU_ASSERT_EQUAL(get_count(&h[1]->nstepdown), 1);
    for (k = 0; k < n; k++)
        if (k != 1)
            keep_check(&kp[k]);

    /* n2 holds nothing now: refused, nothing moves */
    e1 = tree_epoch(1);
    for (k = 0; k < n; k++)
        keep_take(&kp[k], k, node_by_id(want[k]));
    switchover("n2", NULL);
    {
        /* the elector acknowledges it (elected.switchover_id) */
        struct zke_elected el;
        uint64_t end = now_ms() + WAIT_MS;
        while (!(tree_elected(&el) == 0 && el.switchover_id == sw_id) && now_ms() < end)
            tick();
        CU_ASSERT_EQUAL(el.switchover_id, sw_id);
    }
    CU_ASSERT(steady(n, want, NULL));
    for (k = 0; k < n; k++)
        keep_check(&kp[k]);

    /* without "from", today's meaning: slot 0 moves (to n2, the lowest
       node not active), the other slots keep their epochs */
    e1 = tree_epoch(0);
    for (k = 1; k < n; k++)
        keep_take(&kp[k], k, node_by_id(want[k]));
    {
        char p[128], json[128];
        snprintf(p, sizeof(p), "%s/switchover", group_path);
        snprintf(json, sizeof(json), "{\"v\":1,\"id\":%llu,\"to\":null}",
                 (unsigned long long)++sw_id);
        CU_ASSERT_EQUAL(put(p, json), ZOK);
    }
    want[0] = "n2";
    CU_ASSERT_FATAL(wait_steady(n, want, NULL));
    CU_ASSERT(tree_epoch(0) > e1);
    for (k = 1; k < n; k++)
        keep_check(&kp[k]);
    finish();
}

static void test_switchover_n2(void) { switchover_one_slot(2); }
static void test_switchover_n3(void) { switchover_one_slot(3); }

/*
 * The node elected for the highest slot never completes its takeover: that
 * slot's watchdog (1 s) fires, excludes it ("watchdog-slot-K") and the
 * spare takes the slot; the other slots stay READY throughout.
 */
static void
watchdog_one_slot(int n)
{
    struct node *h[MAXSLOTS], *stuck;
    struct keep kp[MAXSLOTS];
    const char *want[MAXSLOTS];
    struct zke_elected el;
    char reason[32];
    int k, i, found = 0;

    reset();
    set_leaders(n, "\"watchdog_ms\":1000");
    for (i = 0; i < n - 1; i++)
        start_node(i, ids[i], 0);
    /* the first N-1 slots READY before the stuck node comes */
    {
        uint64_t end = now_ms() + WAIT_MS;
        int ok = 0;
        while (!ok && now_ms() < end) {
            pthread_mutex_lock(&rec_mu);
            for (ok = 1, k = 0; k < n - 1; k++)
                ok = ok && nodes[k].ready_slot == k;
            pthread_mutex_unlock(&rec_mu);
            if (!ok)
                tick();
        }
        CU_ASSERT_FATAL(ok);
    }
    for (k = 0; k < n - 1; k++)
        keep_take(&kp[k], k, &nodes[k]);
    stuck = start_node(n - 1, ids[n - 1], 1);
    start_node(n, ids[n], 0);
    for (k = 0; k < n; k++)
        want[k] = ids[k];
    want[n - 1] = ids[n];
    CU_ASSERT_FATAL(wait_steady(n, want, h));
    CU_ASSERT(get_count(&slot_watchdogs[n - 1]) >= 1);
    for (k = 0; k < n - 1; k++)
        CU_ASSERT_EQUAL(get_count(&slot_watchdogs[k]), 0);
    CU_ASSERT(wait_count(&stuck->nabort, 1));
    CU_ASSERT_EQUAL(stuck->nready, 0);
    CU_ASSERT(stuck->ntakeover >= 1);
    for (k = 0; k < n - 1; k++)
        keep_check(&kp[k]);
    /* the exclusion names the slot */
    snprintf(reason, sizeof(reason), "watchdog-slot-%d", n - 1);
    CU_ASSERT_EQUAL_FATAL(tree_elected(&el), 0);
    for (i = 0; i < el.nexcluded; i++)
        if (strcmp(el.excluded[i].id, stuck->id) == 0) {
            found = 1;
            CU_ASSERT_STRING_EQUAL(el.excluded[i].reason, reason);
        }
    CU_ASSERT(found);
    finish();
}

static void test_watchdog_n2(void) { watchdog_one_slot(2); }
static void test_watchdog_n3(void) { watchdog_one_slot(3); }

/* The slots at or above NEW are released: their actives step down (once
   each), every slot below keeps its epoch. */
static void
lower(int from, int to, struct node **h)
{
    struct keep kp[MAXSLOTS];
    int down[MAXSLOTS], k;

    for (k = 0; k < from; k++) {
        keep_take(&kp[k], k, h[k]);
        down[k] = get_count(&h[k]->nstepdown);
    }
    set_leaders(to, NULL);
    CU_ASSERT_FATAL(wait_steady(to, ids, h));
    for (k = 0; k < to; k++)
        keep_check(&kp[k]);
    for (k = to; k < from; k++) {
        CU_ASSERT_EQUAL(get_count(&kp[k].n->nstepdown), down[k] + 1);
        CU_ASSERT_EQUAL(zkelect_group_slot(kp[k].n->g), -1);
    }
}

/* New slots FROM..TO-1 are filled by the lowest spares at new epochs; the
   slots below keep theirs. */
static void
raise_(int from, int to, struct node **h)
{
    struct keep kp[MAXSLOTS];
    uint64_t top = 0;
    int k;

    pthread_mutex_lock(&rec_mu);
    for (k = 0; k < MAXSLOTS; k++)
        if (slot_max_epoch[k] > top)
            top = slot_max_epoch[k];
    pthread_mutex_unlock(&rec_mu);
    for (k = 0; k < from; k++)
        keep_take(&kp[k], k, h[k]);
    set_leaders(to, NULL);
    CU_ASSERT_FATAL(wait_steady(to, ids, h));
    for (k = 0; k < from; k++)
        keep_check(&kp[k]);
    for (k = from; k < to; k++)
        CU_ASSERT(tree_epoch(k) > top);
}

/*
 * N raised and lowered while running. N = 2: 1 -> 2 -> 1 -> 2.
 * N = 3: 1 -> 3 -> 2 -> 1 -> 3 (lowering 3 -> 2 leaves slot 1 alone).
 */
static void
raise_and_lower(int n)
{
    struct node *h[MAXSLOTS];

    reset();
    start_group(1, n + 1, h);
    raise_(1, n, h);
    if (n == 3)
        lower(3, 2, h);
    lower(n == 3 ? 2 : n, 1, h);
    raise_(1, n, h);
    finish();
}

static void test_raise_lower_n2(void) { raise_and_lower(2); }
static void test_raise_lower_n3(void) { raise_and_lower(3); }

/*
 * Planned moves of one slot, N = 3, nodes n1..n5: slot 1's active becomes
 * ineligible (its slot goes to n4, the lowest spare), then slot 2's active
 * resigns (zkelect_unnominate: its slot goes to the lowest node left, n2
 * or n5); each time the other slots keep their epochs.
 */
static void
test_planned_moves(void)
{
    struct node *h[MAXSLOTS];
    struct keep kp[MAXSLOTS];
    const char *want[MAXSLOTS] = {"n1", "n4", "n3"};
    uint64_t e;

    reset();
    start_group(3, 5, h);
    e = tree_epoch(1);
    keep_take(&kp[0], 0, h[0]);
    keep_take(&kp[2], 2, h[2]);
    CU_ASSERT_EQUAL(zkelect_set_eligible(h[1]->g, 0), 0);
    CU_ASSERT_FATAL(wait_steady(3, want, NULL));
    CU_ASSERT(tree_epoch(1) > e);
    CU_ASSERT_EQUAL(get_count(&h[1]->nstepdown), 1);
    keep_check(&kp[0]);
    keep_check(&kp[2]);

    e = tree_epoch(2);
    keep_take(&kp[0], 0, h[0]);
    keep_take(&kp[1], 1, &nodes[3]);
    CU_ASSERT_EQUAL(zkelect_unnominate(h[2]->g, WAIT_MS), 0);
    want[2] = "n5"; /* n2 is ineligible */
    CU_ASSERT_FATAL(wait_steady(3, want, NULL));
    CU_ASSERT(tree_epoch(2) > e);
    keep_check(&kp[0]);
    keep_check(&kp[1]);
    finish();
}

/*
 * N lowered while the highest slot's takeover is still running (N = 2 -> 1,
 * n2's takeover callback has not returned): n2 aborts its takeover, slot
 * 1's watchdog (config 1500 ms) is disarmed with the slot (no +watchdog,
 * n2 not excluded) and slot 0 stays READY.
 */
static void
test_lower_during_takeover(void)
{
    struct node *slow;
    struct keep kp;
    struct zke_elected el;
    uint64_t end;
    int i;

    reset();
    set_leaders(2, "\"watchdog_ms\":1500");
    start_node(0, "n1", 0);
    slow = start_node(1, "n2", 1);
    start_node(2, "n3", 0);
    end = now_ms() + WAIT_MS;
    while (!(get_count(&slow->ntakeover) >= 1 && get_count(&nodes[0].nready) >= 1) &&
           now_ms() < end)
        tick();
    CU_ASSERT_FATAL(get_count(&slow->ntakeover) >= 1);
    keep_take(&kp, 0, &nodes[0]);
    set_leaders(1, "\"watchdog_ms\":1500");
    CU_ASSERT(wait_count(&slow->nabort, 1));
    CU_ASSERT_FATAL(wait_steady(1, ids, NULL));
    /* past the watchdog period: nothing fired for the released slot */
    end = now_ms() + 2500;
    while (get_count(&slot_watchdogs[1]) == 0 && now_ms() < end)
        tick();
    CU_ASSERT_EQUAL(get_count(&slot_watchdogs[1]), 0);
    CU_ASSERT_EQUAL_FATAL(tree_elected(&el), 0);
    for (i = 0; i < el.nexcluded; i++)
        CU_ASSERT_STRING_NOT_EQUAL(el.excluded[i].id, "n2");
    keep_check(&kp);
    finish();
}

/*
 * A node released from its slot that is chosen for a lower one releases its
 * leader znode before it takes the other: never READY in two slots. N = 2:
 * N lowered to 1 and n1 (slot 0, the elector) resigns at once: n2 leaves
 * slot 1 for slot 0. N = 3: N lowered to 2 and n1 resigns: n3 leaves slot
 * 2 for slot 0, n2 keeps slot 1 and its epoch.
 */
static void
move_between_slots(int n)
{
    struct node *h[MAXSLOTS];
    struct keep kp;
    const char *want[2];
    int down;

    reset();
    start_group(n, n, h);
    keep_take(&kp, 1, h[1]);
    down = get_count(&h[n - 1]->nstepdown);
    set_leaders(n - 1, NULL);
    stop_node(h[0]);
    want[0] = ids[n - 1];
    want[1] = ids[1];
    CU_ASSERT_FATAL(wait_steady(n - 1, want, NULL));
    CU_ASSERT(get_count(&nodes[n - 1].nstepdown) >= down + 1);
    CU_ASSERT(tree_epoch(0) > kp.epoch);
    if (n == 3)
        keep_check(&kp);
    finish();
}

static void test_move_n2(void) { move_between_slots(2); }
static void test_move_n3(void) { move_between_slots(3); }

/*
 * On the ensemble, N = 3: slot 0's active, also the elector, crashes: a new
 * elector refills slot 0 (the spare, or the crashed node back on its new
 * session) at a new epoch; slots 1 and 2 are undisturbed.
 */
static void
test_ensemble_elector_active_crash(void)
{
    struct node *h[MAXSLOTS], *h2[MAXSLOTS];
    struct keep kp[MAXSLOTS];
    uint64_t e0;
    int k;

    reset();
    start_group(3, 4, h);
    CU_ASSERT_EQUAL(nodes[0].nelector, 1);
    e0 = tree_epoch(0);
    for (k = 1; k < 3; k++)
        keep_take(&kp[k], k, h[k]);
    crash(h[0]);
    CU_ASSERT(wait_count(&nodes[1].nelector, 1));
    CU_ASSERT_FATAL(wait_steady(3, NULL, h2));
    CU_ASSERT(tree_epoch(0) > e0);
    CU_ASSERT(h2[0] == &nodes[0] || h2[0] == &nodes[3]);
    for (k = 1; k < 3; k++)
        keep_check(&kp[k]);
    finish();
}

/*
 * Each ensemble member killed in turn and restarted, N = 2: leaders may be
 * suspended and resume (or fence themselves and take over again at the same
 * epoch, on a loaded machine), but no slot moves: same holders at the same
 * epochs, no +ready but such a retake, no step-down.
 */
static void
test_ensemble_member_killed(void)
{
    struct node *h[MAXSLOTS];
    uint64_t ep[2];
    int i, k, nready[2], nfenced[2];

    reset();
    start_group(2, 3, h);
    for (k = 0; k < 2; k++) {
        ep[k] = tree_epoch(k);
        nready[k] = get_count(&h[k]->nready);
        nfenced[k] = get_count(&h[k]->nfenced);
    }
    for (i = 0; i < 3; i++) {
        CU_ASSERT_EQUAL(zkh_kill(zk3, i), 0);
        CU_ASSERT_EQUAL(zkh_restart(zk3, i, 1), 0);
    }
    CU_ASSERT_FATAL(wait_steady(2, ids, NULL));
    for (k = 0; k < 2; k++) {
        CU_ASSERT_EQUAL(tree_epoch(k), ep[k]);
        /* a +ready again only as the retake after a self-fence (a loaded
           machine can leave a leader unheard for F while the servers
           restart), at the same epoch: never a new leadership */
        CU_ASSERT(get_count(&h[k]->nready) - nready[k] <= get_count(&h[k]->nfenced) - nfenced[k]);
        CU_ASSERT_EQUAL(get_count(&h[k]->nstepdown), 0);
    }
    CU_ASSERT_EQUAL(get_count(&nodes[2].ntakeover), 0);
    finish();
}

/* ---- figures ---------------------------------------------------------------- */

/* Requests sent by every handle (zkelect_get_stats), and by one. */
static uint64_t
requests(const struct node *only)
{
    struct zkelect_stats st;
    uint64_t sum = 0;
    int i;

    for (i = 0; i < MAXNODES; i++)
        if (nodes[i].h && (only == NULL || only == &nodes[i]) &&
            zkelect_get_stats(nodes[i].g, &st) == 0)
            sum += st.requests;
    return sum;
}

/* Wait until no handle has sent a request for 300 ms (at most 5 s): the
   change and everything it set off are done. The request total. */
static uint64_t
quiesce(void)
{
    uint64_t r = requests(NULL), since = now_ms(), end = since + 5000, v;

    while (now_ms() < end) {
        tick();
        v = requests(NULL);
        if (v != r) {
            r = v;
            since = now_ms();
        } else if (now_ms() - since >= 300) {
            break;
        }
    }
    return r;
}

static int
cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

    return x < y ? -1 : x > y;
}

static void
print_stat(const char *what, uint64_t *v, int n, const char *unit)
{
    uint64_t sum = 0;
    int i;

    if (n == 0)
        return;
    qsort(v, (size_t)n, sizeof(v[0]), cmp_u64);
    for (i = 0; i < n; i++)
        sum += v[i];
    printf("FIGURE %s: n=%d min=%llu median=%llu max=%llu mean=%.1f %s\n", what, n,
           (unsigned long long)v[0], (unsigned long long)v[n / 2],
           (unsigned long long)v[n - 1], (double)sum / n, unit);
}

static int
runs(void)
{
    const char *s = getenv("SLOTS_RUNS");
    int r = s ? atoi(s) : 5;

    return r < 1 ? 1 : r > 200 ? 200 : r;
}

/*
 * N slots, N + 1 nodes. RUNS times: the highest slot's active crashes;
 * failover = its session closed -> the new active's +ready (the callback's
 * clock); the other slots must keep their epochs. Then RUNS switchovers of
 * the highest slot (the request written -> +ready), then raising N by one
 * and lowering it back. Requests: every handle's, from quiet to quiet.
 */
static void
figures(const char *where, int n)
{
    struct node *h[MAXSLOTS], *h2[MAXSLOTS];
    struct keep kp[MAXSLOTS];
    uint64_t fo[200], rq[200], rqv[200], sw[200], rqs[200], r0, r1, rv, t0, e;
    int r, nr = runs(), k;
    char label[128];

    reset();
    start_group(n, n + 1, h);
    for (r = 0; r < nr; r++) {
        struct node *victim;
        int reg;

        CU_ASSERT_FATAL(wait_steady(n, NULL, h));
        victim = h[n - 1];
        reg = get_count(&victim->nregistered);
        e = tree_epoch(n - 1);
        for (k = 0; k < n - 1; k++)
            keep_take(&kp[k], k, h[k]);
        r0 = quiesce();
        rv = requests(victim);
        t0 = crash(victim);
        CU_ASSERT_FATAL(wait_steady(n, NULL, h2));
        CU_ASSERT(tree_epoch(n - 1) > e);
        CU_ASSERT(wait_count(&victim->nregistered, reg + 1));
        pthread_mutex_lock(&rec_mu);
        fo[r] = h2[n - 1]->ready_us > t0 ? (h2[n - 1]->ready_us - t0) / 1000 : 0;
        pthread_mutex_unlock(&rec_mu);
        r1 = quiesce();
        rq[r] = r1 - r0;
        rqv[r] = requests(victim) - rv;
        for (k = 0; k < n - 1; k++)
            keep_check(&kp[k]);
        printf("slots %s N=%d crash %d: slot %d %s -> %s epoch %llu -> %llu in %llu ms "
               "(slot 0 %s epoch %llu unchanged); requests %llu (the crashed node's rejoin "
               "%llu)\n", where, n, r + 1, n - 1, victim->id, h2[n - 1]->id,
               (unsigned long long)e, (unsigned long long)tree_epoch(n - 1),
               (unsigned long long)fo[r], kp[0].n->id, (unsigned long long)kp[0].epoch,
               (unsigned long long)rq[r], (unsigned long long)rqv[r]);
    }
    for (r = 0; r < nr; r++) {
        struct node *from;
        uint64_t t;

        const char *want[MAXSLOTS];
        int i;

        CU_ASSERT_FATAL(wait_steady(n, NULL, h));
        from = h[n - 1];
        for (k = 0; k < n; k++)
            want[k] = h[k]->id;
        for (i = 0; i < n + 1; i++) /* to the one spare */
            if (nodes[i].ready_slot < 0)
                want[n - 1] = nodes[i].id;
        for (k = 0; k < n - 1; k++)
            keep_take(&kp[k], k, h[k]);
        e = tree_epoch(n - 1);
        r0 = quiesce();
        t = now_us();
        switchover(from->id, NULL);
        CU_ASSERT_FATAL(wait_steady(n, want, h2));
        CU_ASSERT(h2[n - 1] != from);
        CU_ASSERT(tree_epoch(n - 1) > e);
        pthread_mutex_lock(&rec_mu);
        sw[r] = h2[n - 1]->ready_us > t ? (h2[n - 1]->ready_us - t) / 1000 : 0;
        pthread_mutex_unlock(&rec_mu);
        rqs[r] = quiesce() - r0;
        for (k = 0; k < n - 1; k++)
            keep_check(&kp[k]);
    }
    snprintf(label, sizeof(label), "%s N=%d failover of one slot (session closed -> +ready)",
             where, n);
    print_stat(label, fo, nr, "ms");
    snprintf(label, sizeof(label), "%s N=%d requests per slot change, crash (all handles)",
             where, n);
    print_stat(label, rq, nr, "requests");
    snprintf(label, sizeof(label), "%s N=%d   of which the crashed node's rejoin", where, n);
    print_stat(label, rqv, nr, "requests");
    snprintf(label, sizeof(label), "%s N=%d switchover of one slot (written -> +ready)", where, n);
    print_stat(label, sw, nr, "ms");
    snprintf(label, sizeof(label), "%s N=%d requests per slot change, switchover", where, n);
    print_stat(label, rqs, nr, "requests");

    /* one slot more, one slot less (a spare is there: N + 1 nodes) */
    CU_ASSERT_FATAL(wait_steady(n, NULL, h));
    r0 = quiesce();
    set_leaders(n + 1, NULL);
    CU_ASSERT_FATAL(wait_steady(n + 1, NULL, h));
    r1 = quiesce();
    set_leaders(n, NULL);
    CU_ASSERT_FATAL(wait_steady(n, NULL, h));
    printf("FIGURE %s N=%d requests per slot change, N raised by one: %llu, lowered by one: "
           "%llu requests\n", where, n, (unsigned long long)(r1 - r0),
           (unsigned long long)(quiesce() - r1));
    fflush(stdout);
    finish();
}

static void test_figures_standalone(void) { figures("standalone", 2); }
static void test_figures_standalone3(void) { figures("standalone", 3); }
static void test_figures_ensemble(void) { figures("ensemble", 2); }

/* ---- suites ----------------------------------------------------------------- */

static int
suite_init(void)
{
    struct zkh_opts o;

    zkh_deadline(600);
    zkh_opts_init(&o);
    o.nservers = 1;
    if (zkh_start(&o, &zk1) != 0)
        return -1;
    hosts = zkh_hosts(zk1);
    raw = raw_open(hosts);
    return raw && zoo_state(raw) == ZOO_CONNECTED_STATE ? 0 : -1;
}

static int
suite_init3(void)
{
    struct zkh_opts o;

    zkh_opts_init(&o);
    o.nservers = 3;
    if (zkh_start(&o, &zk3) != 0)
        return -1;
    hosts = zkh_hosts(zk3);
    raw = raw_open(hosts);
    return raw && zoo_state(raw) == ZOO_CONNECTED_STATE ? 0 : -1;
}

static int
suite_clean(void)
{
    stop_all();
    if (raw)
        zookeeper_close(raw);
    raw = NULL;
    zkh_stop(zk1);
    zk1 = NULL;
    return 0;
}

static int
suite_clean3(void)
{
    stop_all();
    if (raw)
        zookeeper_close(raw);
    raw = NULL;
    zkh_stop(zk3);
    zk3 = NULL;
    return 0;
}

static CU_TestInfo standalone_tests[] = {
    {"crash of one active, N=2: slot 1 refilled, slot 0 undisturbed", test_crash_n2},
    {"crash of one active, N=3: slot 1 refilled, slots 0 and 2 undisturbed", test_crash_n3},
    {"elector crash, N=2: no slot moves; the next elector refills a slot", test_elector_n2},
    {"elector crash, N=3: no slot moves; the next elector refills a slot", test_elector_n3},
    {"elector crash during slot 1's takeover, N=2: the config's watchdog period holds",
     test_elector_crash_mid_takeover},
    {"switchover --from, N=2: slot 1 to the spare, slot 0 undisturbed", test_switchover_n2},
    {"switchover --from --to, N=3: slot 1 to the named node", test_switchover_n3},
    {"watchdog in slot 1, N=2: slot 0 stays READY", test_watchdog_n2},
    {"watchdog in slot 2, N=3: slots 0 and 1 stay READY", test_watchdog_n3},
    {"raise and lower N live: 1-2-1-2", test_raise_lower_n2},
    {"raise and lower N live: 1-3-2-1-3", test_raise_lower_n3},
    {"planned moves of one slot, N=3: an active made ineligible, an active resigning",
     test_planned_moves},
    {"N lowered during the released slot's takeover: aborted, no watchdog",
     test_lower_during_takeover},
    {"a node released from one slot and chosen for another, N=2", test_move_n2},
    {"a node released from one slot and chosen for another, N=3", test_move_n3},
    {"figures: failover of one slot, requests per slot change, N=2", test_figures_standalone},
    {"figures: failover of one slot, requests per slot change, N=3", test_figures_standalone3},
    CU_TEST_INFO_NULL,
};

static CU_TestInfo ensemble_tests[] = {
    {"crash of one active, N=3, on the ensemble", test_crash_n3},
    {"the elector and slot 0's active crash, N=3, on the ensemble",
     test_ensemble_elector_active_crash},
    {"switchover --from, N=2, on the ensemble", test_switchover_n2},
    {"each ensemble member killed in turn, N=2: no slot moves", test_ensemble_member_killed},
    {"raise and lower N live 1-3-2-1-3 on the ensemble", test_raise_lower_n3},
    {"figures on the ensemble", test_figures_ensemble},
    CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
    {"standalone", suite_init, suite_clean, NULL, NULL, standalone_tests},
    {"ensemble", suite_init3, suite_clean3, NULL, NULL, ensemble_tests},
    CU_SUITE_INFO_NULL,
};

int
main(int argc, char **argv)
{
    return cutest_main(argc, argv, suites);
}
