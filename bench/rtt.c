/*
 * rtt.c - section 1: the bare ZooKeeper operations a planned handover is
 * made of, measured on the same servers in the same run, and the floor.
 *
 * One raw handle per server (pinned by its connect string). Sample k of a
 * single operation uses server k mod N; sample k of a watch measurement uses
 * writer server k mod N and watcher server (k / N) mod N, so every (writer,
 * watcher) pair - the same server included - is used equally often, as for
 * election nodes that connect to a random server each.
 *
 * A watch measurement is what a node of the election does: the watcher has
 * a watch armed; the writer writes (t0 .. t1 = its reply); the notification
 * reaches the watcher (tn) whose callback at once issues the follow-up read
 * asynchronously (getData, exists or getChildren, as the library does), whose
 * reply comes at t2. "watch+X" = t2 - t1: the time from the write being
 * acknowledged to its writer until the watcher has read the new state. It
 * can be negative in principle (the watcher's server may notify before the
 * writer's server replies).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

#define RTT_SESSION_MS 10000
#define PAYLOAD_LEN 256             /* about the size of an `elected` payload */

/* ---- raw handles --------------------------------------------------------- */

struct zkconn {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int state;                      /* last session state */
};

static void
conn_watcher(zhandle_t *zh, int type, int state, const char *path, void *ctx)
{
    struct zkconn *c = ctx;

    (void)zh;
    (void)path;
    if (type != ZOO_SESSION_EVENT)
        return;
    pthread_mutex_lock(&c->mu);
    c->state = state;
    pthread_cond_broadcast(&c->cv);
    pthread_mutex_unlock(&c->mu);
}

zhandle_t *
zk_connect(const char *hosts, int timeout_ms)
{
    struct zkconn *c = calloc(1, sizeof(*c));
    struct timespec ts;
    zhandle_t *zh;
    int connected;

    if (c == NULL)
        return NULL;
    pthread_mutex_init(&c->mu, NULL);
    cond_init_mono(&c->cv);
    zh = zookeeper_init(hosts, conn_watcher, RTT_SESSION_MS, NULL, c, ZOO_NO_LOG_CLIENTENV);
    if (zh == NULL) {
        fprintf(stderr, "zkbench: zookeeper_init(%s): %s\n", hosts, strerror(errno));
        free(c);
        return NULL;
    }
    if (trace_no_resolve_on())
        zoo_set_servers_resolution_delay(zh, -1);
    ts = mono_at(now_us() + (uint64_t)timeout_ms * 1000u);
    pthread_mutex_lock(&c->mu);
    while (c->state != ZOO_CONNECTED_STATE)
        if (pthread_cond_timedwait(&c->cv, &c->mu, &ts) == ETIMEDOUT)
            break;
    connected = c->state == ZOO_CONNECTED_STATE;
    pthread_mutex_unlock(&c->mu);
    if (!connected) {
        fprintf(stderr, "zkbench: no ZooKeeper session with %s within %d ms\n", hosts, timeout_ms);
        zookeeper_close(zh);
        free(c);
        return NULL;
    }
    return zh;
}

void
zk_close(zhandle_t *zh)
{
    void *c;

    if (zh == NULL)
        return;
    c = (void *)(uintptr_t)zoo_get_context(zh);
    zookeeper_close(zh);
    free(c);
}

int
zk_mkpath(zhandle_t *zh, const char *path)
{
    char buf[512];
    char *p;
    int rc;

    snprintf(buf, sizeof(buf), "%s", path);
    for (p = strchr(buf + 1, '/');; p = strchr(p + 1, '/')) {
        if (p)
            *p = '\0';
        rc = zoo_create(zh, buf, "", 0, &ZOO_OPEN_ACL_UNSAFE, ZOO_PERSISTENT, NULL, 0);
        if (rc != ZOK && rc != ZNODEEXISTS)
            return rc;
        if (p == NULL)
            return ZOK;
        *p = '/';
    }
}

/* ---- deletion watch (sections 3 and 4) ----------------------------------- */

static void
delwatch_fire(zhandle_t *zh, int type, int state, const char *path, void *ctx)
{
    struct delwatch *w = ctx;
    uint64_t t = now_us();

    (void)zh;
    (void)state;
    (void)path;
    if (type != ZOO_DELETED_EVENT)
        return;
    pthread_mutex_lock(&w->mu);
    if (w->armed && w->deleted_us == 0)
        w->deleted_us = t;
    pthread_mutex_unlock(&w->mu);
}

void
delwatch_init(struct delwatch *w)
{
    memset(w, 0, sizeof(*w));
    pthread_mutex_init(&w->mu, NULL);
}

int
delwatch_arm(zhandle_t *zh, struct delwatch *w, const char *path)
{
    struct Stat st;
    int rc;

    pthread_mutex_lock(&w->mu);
    w->deleted_us = 0;
    w->armed = 1;
    pthread_mutex_unlock(&w->mu);
    rc = zoo_wexists(zh, path, delwatch_fire, w, &st);
    if (rc != ZOK) {
        fprintf(stderr, "zkbench: exists-watch on %s: %s\n", path, zerror(rc));
        return -1;
    }
    return 0;
}

uint64_t
delwatch_wait(struct delwatch *w, int timeout_ms)
{
    uint64_t until = now_us() + (uint64_t)timeout_ms * 1000u, t;

    for (;;) {
        pthread_mutex_lock(&w->mu);
        t = w->deleted_us;
        pthread_mutex_unlock(&w->mu);
        if (t || now_us() >= until)
            return t;
        pace_ms(1); /* polling a flag with a deadline */
    }
}

/* ---- watch measurements -------------------------------------------------- */

enum follow { FOLLOW_GET, FOLLOW_EXISTS, FOLLOW_CHILDREN };

struct wstate {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    enum follow follow;             /* the read issued on the notification */
    uint64_t tn, t2;                /* notification, follow-up reply */
    int rc;                         /* follow-up rc */
    bool done;
};

static void
ws_done(struct wstate *ws, int rc)
{
    uint64_t t = now_us();

    pthread_mutex_lock(&ws->mu);
    ws->t2 = t;
    ws->rc = rc;
    ws->done = true;
    pthread_cond_broadcast(&ws->cv);
    pthread_mutex_unlock(&ws->mu);
}

static void
ws_data_cb(int rc, const char *v, int len, const struct Stat *st, const void *data)
{
    (void)v;
    (void)len;
    (void)st;
    ws_done((struct wstate *)data, rc);
}

static void
ws_stat_cb(int rc, const struct Stat *st, const void *data)
{
    (void)st;
    ws_done((struct wstate *)data, rc);
}

static void
ws_strings_cb(int rc, const struct String_vector *sv, const void *data)
{
    (void)sv;
    ws_done((struct wstate *)data, rc);
}

/* The watcher: completion thread. Record, then issue the follow-up read. */
static void
ws_fire(zhandle_t *zh, int type, int state, const char *path, void *ctx)
{
    struct wstate *ws = ctx;
    uint64_t t = now_us();
    int rc;

    (void)state;
    if (type == ZOO_SESSION_EVENT)
        return;
    pthread_mutex_lock(&ws->mu);
    ws->tn = t;
    pthread_mutex_unlock(&ws->mu);
    if (ws->follow == FOLLOW_GET)
        rc = zoo_aget(zh, path, 0, ws_data_cb, ws);
    else if (ws->follow == FOLLOW_EXISTS)
        rc = zoo_aexists(zh, path, 0, ws_stat_cb, ws);
    else
        rc = zoo_aget_children(zh, path, 0, ws_strings_cb, ws);
    if (rc != ZOK)
        ws_done(ws, rc);
}

static void
ws_reset(struct wstate *ws, enum follow f)
{
    pthread_mutex_lock(&ws->mu);
    ws->follow = f;
    ws->tn = ws->t2 = 0;
    ws->rc = 0;
    ws->done = false;
    pthread_mutex_unlock(&ws->mu);
}

static int
ws_wait(struct wstate *ws, int timeout_ms)
{
    struct timespec ts;
    int rc = 0;

    ts = mono_at(now_us() + (uint64_t)timeout_ms * 1000u);
    pthread_mutex_lock(&ws->mu);
    while (!ws->done)
        if (pthread_cond_timedwait(&ws->cv, &ws->mu, &ts) == ETIMEDOUT)
            break;
    /* an exists after a deletion answers ZNONODE: that is the state read */
    if (!ws->done || (ws->rc != ZOK && !(ws->follow == FOLLOW_EXISTS && ws->rc == ZNONODE)))
        rc = -1;
    pthread_mutex_unlock(&ws->mu);
    return rc;
}

/* ---- the section --------------------------------------------------------- */

enum op {
    OP_CREATE_EPH, OP_SET, OP_DELETE, OP_GET, OP_EXISTS,
    OP_MULTI_CHECK_CREATE, OP_MULTI_CHECK_SET, OP_MULTI_SET_SET, OP_MULTI_DEL_DEL,
    OP_MULTI_RELEASE, OP_MULTI_RELEASE_WATCHED,
    OP_GET_ARM, OP_EXISTS_ARM, OP_CHILDREN_ARM,
    OP_NOTIFY_SET, OP_NOTIFY_DELETE, OP_NOTIFY_CREATE,
    OP_WATCH_GET, OP_WATCH_EXISTS, OP_WATCH_CHILDREN,
    OP__COUNT
};

static const char *const op_names[OP__COUNT] = {
    [OP_CREATE_EPH] = "create ephemeral",
    [OP_SET] = "setData",
    [OP_DELETE] = "delete",
    [OP_GET] = "getData",
    [OP_EXISTS] = "exists",
    [OP_MULTI_CHECK_CREATE] = "multi(check+create)",
    [OP_MULTI_CHECK_SET] = "multi(check+setData)",
    [OP_MULTI_SET_SET] = "multi(setData+setData)",
    [OP_MULTI_DEL_DEL] = "multi(delete+delete)",
    [OP_MULTI_RELEASE] = "multi(a release: 9 ops)",
    [OP_MULTI_RELEASE_WATCHED] = "multi(a release) 3 watches per handle",
    [OP_GET_ARM] = "getData with watch",
    [OP_EXISTS_ARM] = "exists with watch",
    [OP_CHILDREN_ARM] = "getChildren with watch",
    [OP_NOTIFY_SET] = "notification after setData ack",
    [OP_NOTIFY_DELETE] = "notification after delete ack",
    [OP_NOTIFY_CREATE] = "child notification after create ack",
    [OP_WATCH_GET] = "watch+getData after setData ack",
    [OP_WATCH_EXISTS] = "watch+exists after delete ack",
    [OP_WATCH_CHILDREN] = "watch+getChildren after create ack",
};

/* Which server(s) a sample used, for the CSV. */
struct rtt_ctx {
    struct samples s[OP__COUNT];
    FILE *csv;
    const char *label;
    int errors;
};

static void
record(struct rtt_ctx *c, enum op op, int k, int w, int r, int64_t us)
{
    samples_add(&c->s[op], us);
    if (c->csv)
        fprintf(c->csv, "%s,%s,%d,%d,%d,%lld\n", c->label, op_names[op], k, w, r, (long long)us);
}

static int
fail(struct rtt_ctx *c, const char *what, int rc)
{
    c->errors++;
    if (c->errors <= 10)
        warnx_("rtt %s: %s: %s", c->label, what, rc ? zerror(rc) : "timed out");
    return -1;
}

/* The watches one sample of release_multi() arms, and how many of them
   fired. One per sample: a watch that fires late, after its sample gave
   up, counts in its own sample's, never in the next one's. */
struct fired {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int n;
};

static void
count_watcher(zhandle_t *zh, int type, int state, const char *path, void *ctx)
{
    struct fired *f = ctx;

    (void)zh;
    (void)state;
    (void)path;
    if (type != ZOO_DELETED_EVENT && type != ZOO_CHANGED_EVENT)
        return;                     /* session events: the bench's sessions stay up */
    pthread_mutex_lock(&f->mu);
    f->n++;
    pthread_cond_broadcast(&f->cv);
    pthread_mutex_unlock(&f->mu);
}

/* Wait until N of F's watches fired; 0, or -1 after BENCH_WAIT_MS. */
static int
fired_wait(struct fired *f, int n)
{
    struct timespec ts = mono_at(now_us() + (uint64_t)BENCH_WAIT_MS * 1000u);
    int rc;

    pthread_mutex_lock(&f->mu);
    while (f->n < n)
        if (pthread_cond_timedwait(&f->cv, &f->mu, &ts) == ETIMEDOUT)
            break;
    rc = f->n >= n ? 0 : -1;
    pthread_mutex_unlock(&f->mu);
    return rc;
}

static struct fired *
fired_new(void)
{
    struct fired *f = malloc(sizeof(*f));

    if (f == NULL)
        return NULL;
    pthread_mutex_init(&f->mu, NULL);
    cond_init_mono(&f->cv);         /* the deadline of fired_wait() is on CLOCK_MONOTONIC */
    f->n = 0;
    return f;
}

/* Free F once all ARMED of its watches fired; else leave it to the ones
   still armed (a few bytes, after a failure already counted). */
static void
fired_done(struct fired *f, int armed)
{
    if (armed && fired_wait(f, armed) != 0)
        return;
    pthread_cond_destroy(&f->cv);
    pthread_mutex_destroy(&f->mu);
    free(f);
}

struct synced {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int rc;                         /* 1: in flight */
};

static void
sync_done(int rc, const char *value, const void *data)
{
    struct synced *y = (struct synced *)(uintptr_t)data;

    (void)value;
    pthread_mutex_lock(&y->mu);
    y->rc = rc;
    pthread_cond_broadcast(&y->cv);
    pthread_mutex_unlock(&y->mu);
}

/* A sync of PATH on ZH, waited for: ZH's server has applied every write
   acknowledged before it. A ZooKeeper error code. */
static int
sync_wait(zhandle_t *zh, const char *path)
{
    struct synced *y = malloc(sizeof(*y));
    struct timespec ts = mono_at(now_us() + (uint64_t)BENCH_WAIT_MS * 1000u);
    int rc;

    if (y == NULL)
        return ZSYSTEMERROR;
    pthread_mutex_init(&y->mu, NULL);
    cond_init_mono(&y->cv);
    y->rc = 1;
    pthread_mutex_lock(&y->mu);
    rc = zoo_async(zh, path, sync_done, y);
    if (rc == ZOK)
        while (y->rc == 1)
            if (pthread_cond_timedwait(&y->cv, &y->mu, &ts) == ETIMEDOUT)
                break;
    if (rc == ZOK)
        rc = y->rc == 1 ? ZOPERATIONTIMEOUT : y->rc;
    pthread_mutex_unlock(&y->mu);
    if (rc == ZOPERATIONTIMEOUT)
        return rc;                  /* its completion may still come: y is left to it */
    pthread_cond_destroy(&y->cv);
    pthread_mutex_destroy(&y->mu);
    free(y);
    return rc;
}

/*
 * A multi of a graceful leave's shape (register.c, reg_unregister, for a
 * group with a config: four checks, the leader znode's delete, `elected`
 * and the wake set, the two deletes of the registration: 9 ops) on server
 * s, WATCHED or not. Watched: every handle watches three of the znodes it
 * changes (the writer its leader znode, `elected` and its registration;
 * each other handle the leader znode, `elected` and the woken znode), as the
 * leaver, the elector and the successor do; each watch fires once, and the
 * next operation waits for all of them (off the clock). 0, or -1 (counted
 * in c).
 */
static int
release_multi(struct rtt_ctx *c, zhandle_t **H, int ns, int s, const char *base,
    const char *payload, bool watched, int64_t *us)
{
    struct fired *f = NULL;
    char pc[256], pd[256], pd2[256], pw[256], prx[256], prm[256], pr3[256], buf[PAYLOAD_LEN + 16];
    zoo_op_t ops[9];
    zoo_op_result_t res[9];
    struct Stat st;
    uint64_t t0, t1;
    int rc = ZOK, j, len, n = 0, armed = 0;
    const char *what = "create for multi(release)";

    snprintf(pc, sizeof(pc), "%s/c", base);
    snprintf(pd, sizeof(pd), "%s/d", base);
    snprintf(pd2, sizeof(pd2), "%s/d2", base);
    snprintf(pw, sizeof(pw), "%s/w", base);
    snprintf(prx, sizeof(prx), "%s/rx", base);
    snprintf(prm, sizeof(prm), "%s/rm", base);
    snprintf(pr3, sizeof(pr3), "%s/r3", base);
    if ((rc = zoo_create(H[s], prx, payload, 80, &ZOO_OPEN_ACL_UNSAFE, ZOO_EPHEMERAL, NULL, 0)) !=
            ZOK ||
        (rc = zoo_create(H[s], prm, payload, 80, &ZOO_OPEN_ACL_UNSAFE, ZOO_EPHEMERAL, NULL, 0)) !=
            ZOK ||
        (rc = zoo_create(H[s], pr3, payload, 40, &ZOO_OPEN_ACL_UNSAFE, ZOO_EPHEMERAL, NULL, 0)) !=
            ZOK)
        goto fail;
    if ((f = fired_new()) == NULL) {
        rc = ZSYSTEMERROR;
        what = "watch counter for multi(release)";
        goto fail;
    }
    for (j = 0; watched && j < ns; j++) {
        const char *third = j == s ? prm : pd2;
        /* another server may not have applied the creates yet */
        what = "sync for multi(release)";
        if (j != s && (rc = sync_wait(H[j], prx)) != ZOK)
            goto fail;
        what = "watches for multi(release)";
        if ((rc = zoo_wexists(H[j], prx, count_watcher, f, &st)) != ZOK)
            goto fail;
        armed++;
        len = (int)sizeof(buf);
        if ((rc = zoo_wget(H[j], pd, count_watcher, f, buf, &len, &st)) != ZOK)
            goto fail;
        armed++;
        len = (int)sizeof(buf);
        rc = j == s ? zoo_wexists(H[j], third, count_watcher, f, &st)
                    : zoo_wget(H[j], third, count_watcher, f, buf, &len, &st);
        if (rc != ZOK)
            goto fail;
        armed++;
    }
    zoo_check_op_init(&ops[n++], pc, -1);
    zoo_check_op_init(&ops[n++], pw, -1);
    zoo_check_op_init(&ops[n++], pd2, -1);
    zoo_check_op_init(&ops[n++], pc, -1);
    zoo_delete_op_init(&ops[n++], prx, -1);
    zoo_set_op_init(&ops[n++], pd, payload, PAYLOAD_LEN, -1, NULL);
    zoo_set_op_init(&ops[n++], pd2, "n2", 2, -1, NULL);
    zoo_delete_op_init(&ops[n++], prm, -1);
    zoo_delete_op_init(&ops[n++], pr3, -1);
    t0 = now_us();
    rc = zoo_multi(H[s], n, ops, res);
    t1 = now_us();
    what = watched ? "multi(release), watched" : "multi(release)";
    if (rc != ZOK)
        goto fail;
    *us = (int64_t)(t1 - t0);
    if (armed && fired_wait(f, armed) != 0)
        return fail(c, "multi(release)'s watches", 0); /* not all fired in time: f stays theirs */
    fired_done(f, 0);
    return 0;
fail:
    /* nothing left behind: the ephemerals go, a watch still armed fires now */
    zoo_delete(H[s], prx, -1);
    zoo_delete(H[s], prm, -1);
    zoo_delete(H[s], pr3, -1);
    if (armed) {
        zoo_set(H[s], pd, payload, PAYLOAD_LEN, -1);
        zoo_set(H[s], pd2, "n2", 2, -1);
    }
    if (f)
        fired_done(f, armed);
    return fail(c, what, rc);
}

/* One sample of every operation. */
static void
rtt_iteration(struct rtt_ctx *c, zhandle_t **H, int ns, const char *base, int k,
    struct wstate *ws, const char *payload)
{
    char pe[256], pd[256], pd2[256], pc[256], pm[256], pw[256], px[256], pch[256], pchk[256];
    char pu1[256], pu2[256], buf[PAYLOAD_LEN + 16];
    zoo_op_t ops[2];
    zoo_op_result_t res[2];
    struct Stat st;
    int s = k % ns, w = k % ns, r = (k / ns) % ns, rc, len;
    zhandle_t *zh = H[s];
    uint64_t t0, t1;

    snprintf(pe, sizeof(pe), "%s/e", base);
    snprintf(pd, sizeof(pd), "%s/d", base);
    snprintf(pd2, sizeof(pd2), "%s/d2", base);
    snprintf(pc, sizeof(pc), "%s/c", base);
    snprintf(pm, sizeof(pm), "%s/m", base);
    snprintf(pw, sizeof(pw), "%s/w", base);
    snprintf(px, sizeof(px), "%s/x", base);
    snprintf(pch, sizeof(pch), "%s/ch", base);
    snprintf(pchk, sizeof(pchk), "%s/ch/k%d", base, k);
    snprintf(pu1, sizeof(pu1), "%s/u1", base);
    snprintf(pu2, sizeof(pu2), "%s/u2", base);

    /* single operations on server s */
    t0 = now_us();
    rc = zoo_create(zh, pe, payload, PAYLOAD_LEN, &ZOO_OPEN_ACL_UNSAFE, ZOO_EPHEMERAL, NULL, 0);
    t1 = now_us();
    if (rc == ZOK)
        record(c, OP_CREATE_EPH, k, s, -1, (int64_t)(t1 - t0));
    else
        fail(c, "create", rc);

    t0 = now_us();
    rc = zoo_delete(zh, pe, -1);
    t1 = now_us();
    if (rc == ZOK)
        record(c, OP_DELETE, k, s, -1, (int64_t)(t1 - t0));
    else
        fail(c, "delete", rc);

    t0 = now_us();
    rc = zoo_set(zh, pd, payload, PAYLOAD_LEN, -1);
    t1 = now_us();
    if (rc == ZOK)
        record(c, OP_SET, k, s, -1, (int64_t)(t1 - t0));
    else
        fail(c, "setData", rc);

    len = (int)sizeof(buf);
    t0 = now_us();
    rc = zoo_get(zh, pd, 0, buf, &len, &st);
    t1 = now_us();
    if (rc == ZOK)
        record(c, OP_GET, k, s, -1, (int64_t)(t1 - t0));
    else
        fail(c, "getData", rc);

    t0 = now_us();
    rc = zoo_exists(zh, pd, 0, &st);
    t1 = now_us();
    if (rc == ZOK)
        record(c, OP_EXISTS, k, s, -1, (int64_t)(t1 - t0));
    else
        fail(c, "exists", rc);

    zoo_check_op_init(&ops[0], pc, 0);
    zoo_create_op_init(&ops[1], pm, payload, 80, &ZOO_OPEN_ACL_UNSAFE, ZOO_EPHEMERAL, NULL, 0);
    t0 = now_us();
    rc = zoo_multi(zh, 2, ops, res);
    t1 = now_us();
    if (rc == ZOK)
        record(c, OP_MULTI_CHECK_CREATE, k, s, -1, (int64_t)(t1 - t0));
    else
        fail(c, "multi(check+create)", rc);
    zoo_delete(zh, pm, -1);

    zoo_check_op_init(&ops[0], pc, 0);
    zoo_set_op_init(&ops[1], pd, payload, 80, -1, NULL);
    t0 = now_us();
    rc = zoo_multi(zh, 2, ops, res);
    t1 = now_us();
    if (rc == ZOK)
        record(c, OP_MULTI_CHECK_SET, k, s, -1, (int64_t)(t1 - t0));
    else
        fail(c, "multi(check+setData)", rc);

    zoo_set_op_init(&ops[0], pd, payload, PAYLOAD_LEN, -1, NULL);
    zoo_set_op_init(&ops[1], pd2, payload, PAYLOAD_LEN, -1, NULL);
    t0 = now_us();
    rc = zoo_multi(zh, 2, ops, res);
    t1 = now_us();
    if (rc == ZOK)
        record(c, OP_MULTI_SET_SET, k, s, -1, (int64_t)(t1 - t0));
    else
        fail(c, "multi(setData+setData)", rc);

    if (zoo_create(zh, pu1, payload, 100, &ZOO_OPEN_ACL_UNSAFE, ZOO_EPHEMERAL, NULL, 0) == ZOK &&
        zoo_create(zh, pu2, payload, 20, &ZOO_OPEN_ACL_UNSAFE, ZOO_EPHEMERAL, NULL, 0) == ZOK) {
        zoo_delete_op_init(&ops[0], pu1, -1);
        zoo_delete_op_init(&ops[1], pu2, -1);
        t0 = now_us();
        rc = zoo_multi(zh, 2, ops, res);
        t1 = now_us();
        if (rc == ZOK)
            record(c, OP_MULTI_DEL_DEL, k, s, -1, (int64_t)(t1 - t0));
        else
            fail(c, "multi(delete+delete)", rc);
    } else {
        fail(c, "create for multi(delete+delete)", ZSYSTEMERROR);
        zoo_delete(zh, pu1, -1);
    }

    {
        int64_t us;
        if (release_multi(c, H, ns, s, base, payload, false, &us) == 0)
            record(c, OP_MULTI_RELEASE, k, s, -1, us);
        if (release_multi(c, H, ns, s, base, payload, true, &us) == 0)
            record(c, OP_MULTI_RELEASE_WATCHED, k, s, -1, us);
    }

    /* watch: getData on the watcher, setData by the writer */
    ws_reset(ws, FOLLOW_GET);
    len = (int)sizeof(buf);
    t0 = now_us();
    rc = zoo_wget(H[r], pw, ws_fire, ws, buf, &len, &st);
    t1 = now_us();
    if (rc == ZOK) {
        record(c, OP_GET_ARM, k, r, -1, (int64_t)(t1 - t0));
        t0 = now_us();
        rc = zoo_set(H[w], pw, payload, PAYLOAD_LEN, -1);
        t1 = now_us();
        if (rc != ZOK)
            fail(c, "setData (watched)", rc);
        else if (ws_wait(ws, BENCH_WAIT_MS) != 0)
            fail(c, "getData watch", 0);
        else {
            record(c, OP_NOTIFY_SET, k, w, r, (int64_t)ws->tn - (int64_t)t1);
            record(c, OP_WATCH_GET, k, w, r, (int64_t)ws->t2 - (int64_t)t1);
        }
    } else {
        fail(c, "getData with watch", rc);
    }

    /* watch: exists on the watcher, delete by the writer */
    ws_reset(ws, FOLLOW_EXISTS);
    t0 = now_us();
    rc = zoo_wexists(H[r], px, ws_fire, ws, &st);
    t1 = now_us();
    if (rc == ZOK) {
        record(c, OP_EXISTS_ARM, k, r, -1, (int64_t)(t1 - t0));
        t0 = now_us();
        rc = zoo_delete(H[w], px, -1);
        t1 = now_us();
        if (rc != ZOK)
            fail(c, "delete (watched)", rc);
        else if (ws_wait(ws, BENCH_WAIT_MS) != 0)
            fail(c, "exists watch", 0);
        else {
            record(c, OP_NOTIFY_DELETE, k, w, r, (int64_t)ws->tn - (int64_t)t1);
            record(c, OP_WATCH_EXISTS, k, w, r, (int64_t)ws->t2 - (int64_t)t1);
        }
    } else {
        fail(c, "exists with watch", rc);
    }
    rc = zoo_create(H[w], px, payload, 80, &ZOO_OPEN_ACL_UNSAFE, ZOO_PERSISTENT, NULL, 0);
    if (rc != ZOK && rc != ZNODEEXISTS)
        fail(c, "re-create the exists target", rc);

    /* watch: getChildren on the watcher, create a child by the writer */
    ws_reset(ws, FOLLOW_CHILDREN);
    {
        struct String_vector sv;
        memset(&sv, 0, sizeof(sv));
        t0 = now_us();
        rc = zoo_wget_children(H[r], pch, ws_fire, ws, &sv);
        t1 = now_us();
        deallocate_String_vector(&sv);
    }
    if (rc == ZOK) {
        record(c, OP_CHILDREN_ARM, k, r, -1, (int64_t)(t1 - t0));
        t0 = now_us();
        rc = zoo_create(H[w], pchk, payload, 40, &ZOO_OPEN_ACL_UNSAFE, ZOO_EPHEMERAL, NULL, 0);
        t1 = now_us();
        if (rc != ZOK)
            fail(c, "create a child (watched)", rc);
        else if (ws_wait(ws, BENCH_WAIT_MS) != 0)
            fail(c, "children watch", 0);
        else {
            record(c, OP_NOTIFY_CREATE, k, w, r, (int64_t)ws->tn - (int64_t)t1);
            record(c, OP_WATCH_CHILDREN, k, w, r, (int64_t)ws->t2 - (int64_t)t1);
        }
        zoo_delete(H[w], pchk, -1);
    } else {
        fail(c, "getChildren with watch", rc);
    }
}

static void
server_modes(struct zkh *z, char *out, size_t len)
{
    char buf[2048], *m;
    size_t off = 0;
    int i;

    out[0] = '\0';
    for (i = 0; i < zkh_nservers(z) && off < len; i++) {
        const char *mode = "?";
        if (zkh_4lw(z, i, "srvr", buf, sizeof(buf)) > 0 && (m = strstr(buf, "Mode: ")) != NULL) {
            m += 6;
            m[strcspn(m, "\r\n")] = '\0';
            mode = m;
        }
        off += (size_t)snprintf(out + off, len - off, "%s%d=%s", i ? " " : "", i, mode);
    }
}

int
section_rtt(struct zkh *z, const char *label, struct floor_parts *fp)
{
    struct rtt_ctx c;
    struct wstate ws;
    struct summary sm[OP__COUNT];
    zhandle_t *H[ZKH_MAX_SERVERS];
    struct cputime c0, c1;
    uint64_t w0, w1;
    char base[128], path[256], payload[PAYLOAD_LEN + 1], title[160], modes[256], csvname[64];
    int ns = zkh_nservers(z), i, k, rc = -1;

    memset(&c, 0, sizeof(c));
    memset(H, 0, sizeof(H));
    memset(fp, 0, sizeof(*fp));
    c.label = label;
    memset(payload, 'x', PAYLOAD_LEN);
    payload[PAYLOAD_LEN] = '\0';
    memset(&ws, 0, sizeof(ws));
    pthread_mutex_init(&ws.mu, NULL);
    cond_init_mono(&ws.cv);

    for (i = 0; i < ns; i++)
        if ((H[i] = zk_connect(zkh_host(z, i), BENCH_WAIT_MS)) == NULL)
            goto out;
    snprintf(base, sizeof(base), "/zkbench/rtt-%s-%d", label, (int)getpid());
    if ((i = zk_mkpath(H[0], base)) != ZOK) {
        fprintf(stderr, "zkbench: cannot create %s: %s\n", base, zerror(i));
        goto out;
    }
    {
        static const char *const kids[] = {"c", "d", "d2", "w", "x", "ch"};
        for (i = 0; i < 6; i++) {
            snprintf(path, sizeof(path), "%s/%s", base, kids[i]);
            k = zoo_create(H[0], path, payload, 80, &ZOO_OPEN_ACL_UNSAFE, ZOO_PERSISTENT, NULL, 0);
            if (k != ZOK) {
                fprintf(stderr, "zkbench: cannot create %s: %s\n", path, zerror(k));
                goto out;
            }
        }
    }
    /* every handle has read once: warm connections, JIT of the servers */
    for (k = 0; k < 30; k++)
        rtt_iteration(&c, H, ns, base, k, &ws, payload);
    for (i = 0; i < OP__COUNT; i++)
        samples_free(&c.s[i]);
    c.errors = 0;

    snprintf(csvname, sizeof(csvname), "rtt-%s.csv", label);
    c.csv = csv_open(csvname, "servers,op,sample,server,watcher_server,us");
    vlog("rtt %s: %d samples of %d operations", label, bopt.rtt_samples, OP__COUNT);
    cpu_sample(z, &c0);
    w0 = now_us();
    for (k = 0; k < bopt.rtt_samples; k++)
        rtt_iteration(&c, H, ns, base, k, &ws, payload);
    w1 = now_us();
    cpu_sample(z, &c1);
    csv_close(c.csv, csvname);

    server_modes(z, modes, sizeof(modes));
    snprintf(title, sizeof(title), "1. Bare ZooKeeper operations (%s: %d server%s, servers %s)",
        label, ns, ns > 1 ? "s" : "", modes);
    table_header(title);
    for (i = 0; i < OP__COUNT; i++) {
        char metric[96];
        samples_summary(&c.s[i], &sm[i]);
        table_row(op_names[i], &sm[i]);
        snprintf(metric, sizeof(metric), "%s", op_names[i]);
        summary_csv(label, metric, &sm[i]);
    }
    if (c.errors)
        table_note("%d operation(s) failed and are not in the figures", c.errors);
    if (c0.servers_ms >= 0 && c1.servers_ms >= 0 && bopt.rtt_samples > 0)
        table_note("CPU per iteration (%d requests, 23 of them writes): "
            "ZooKeeper servers %.2f ms, bench %.2f ms; wall %.2f ms", 30 + 4 * ns,
            (c1.servers_ms - c0.servers_ms) / bopt.rtt_samples,
            (c1.self_ms - c0.self_ms) / bopt.rtt_samples,
            (double)(w1 - w0) / 1000.0 / bopt.rtt_samples);

    fp->multi_check_set = sm[OP_MULTI_CHECK_SET].p50;
    fp->watch_get = sm[OP_WATCH_GET].p50;
    fp->delete_ = sm[OP_DELETE].p50;
    fp->watch_exists = sm[OP_WATCH_EXISTS].p50;
    fp->multi_check_create = sm[OP_MULTI_CHECK_CREATE].p50;
    fp->multi_del_del = sm[OP_MULTI_DEL_DEL].p50;
    fp->multi_set_set = sm[OP_MULTI_SET_SET].p50;
    fp->watch_children = sm[OP_WATCH_CHILDREN].p50;
    fp->get = sm[OP_GET].p50;
    fp->exists = sm[OP_EXISTS].p50;
    fp->set = sm[OP_SET].p50;
    fp->floor = fp->multi_check_set + fp->watch_get + fp->delete_ + fp->watch_exists +
        fp->multi_check_create + fp->multi_check_set;

    printf("\n");
    table_note("The round trips of a planned handover, in order (p50 of each, ms):");
    table_note("  elector writes the decision         multi(check+setData)      %7.3f",
        fp->multi_check_set / 1000.0);
    table_note("  candidate reads `elected`            watch+getData after ack   %7.3f",
        fp->watch_get / 1000.0);
    table_note("  old leader deletes its leader znode  delete                    %7.3f",
        fp->delete_ / 1000.0);
    table_note("  candidate sees it deleted            watch+exists after ack    %7.3f",
        fp->watch_exists / 1000.0);
    table_note("  candidate creates leader PROGRESS    multi(check+create)       %7.3f",
        fp->multi_check_create / 1000.0);
    table_note("  candidate sets READY                 multi(check+setData)      %7.3f",
        fp->multi_check_set / 1000.0);
    table_note("  FLOOR (sum)                                                    %7.3f",
        fp->floor / 1000.0);
    summary_csv_value(label, "floor", fp->floor / 1000.0, "ms");
    rc = 0;
out:
    for (i = 0; i < OP__COUNT; i++)
        samples_free(&c.s[i]);
    if (H[0] && rc == 0) {
        /* leave nothing behind: the children are ours */
        static const char *const kids[] = {"c", "d", "d2", "w", "x", "ch"};
        for (i = 0; i < 6; i++) {
            snprintf(path, sizeof(path), "%s/%s", base, kids[i]);
            zoo_delete(H[0], path, -1);
        }
        zoo_delete(H[0], base, -1);
    }
    for (i = 0; i < ns; i++)
        zk_close(H[i]);
    pthread_mutex_destroy(&ws.mu);
    pthread_cond_destroy(&ws.cv);
    return rc;
}
