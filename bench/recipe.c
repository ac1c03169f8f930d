/*
 * recipe.c - the one-phase baseline of section 2: ZooKeeper's lock recipe,
 * written with the plain ZooKeeper C client (no libzkelect).
 *
 * Three clients, each its own handle (own session, own I/O and completion
 * threads), each hold an ephemeral sequential znode BASE/lock-NNNNNNNNNN.
 * The lowest leads; every other one keeps an exists-watch on its
 * predecessor, the znode just below its own. A handover: the holder deletes
 * its znode; its successor's watch fires, it lists the children (getChildren)
 * and, seeing itself lowest, knows that it leads. The figure runs from the
 * holder's delete call to that moment. The holder then creates a znode again,
 * at the tail, and watches its new predecessor, so that there are always
 * three. This is the floor of a one-phase handover: one write, one
 * notification, one read.
 *
 * Everything after the delete runs on the clients' completion threads, as an
 * application would write it: the watcher issues an asynchronous
 * getChildren, whose completion either records "leads" or arms an exists-watch
 * on the new predecessor (asynchronously again; a NONODE answer means the
 * predecessor is gone already: list again). The main thread only deletes,
 * creates and waits for the state (r->mu, r->cv) with a deadline.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define RECIPE_CLIENTS 3
#define RECIPE_NAMELEN 64

struct rclient {
    struct recipe *r;
    int idx;
    zhandle_t *zh;
    char name[RECIPE_NAMELEN];      /* our znode (lock-...), "" while we hold none */
    char pred[RECIPE_NAMELEN];      /* the predecessor we watch, "" when none */
    bool leads;                     /* our getChildren found us lowest */
    bool armed;                     /* the exists-watch on pred is set */
    uint64_t notify_us;             /* the predecessor's DELETED notification, 0: none */
    uint64_t lead_us;               /* when we knew we lead, 0: not yet */
    int errors;                     /* failed calls (counted, then reported) */
};

struct recipe {
    pthread_mutex_t mu;             /* guards the clients' state */
    pthread_cond_t cv;              /* broadcast on every change */
    char base[128];                 /* BASE: the lock's parent znode */
    struct rclient c[RECIPE_CLIENTS];
};

static void check(struct rclient *c);

static void
changed(struct recipe *r)
{
    pthread_cond_broadcast(&r->cv);
}

static void
pred_watcher(zhandle_t *zh, int type, int state, const char *path, void *ctx)
{
    struct rclient *c = ctx;
    uint64_t t = now_us();

    (void)zh;
    (void)state;
    (void)path;
    if (type != ZOO_DELETED_EVENT)
        return;                     /* session events: the bench's sessions stay up */
    pthread_mutex_lock(&c->r->mu);
    if (c->notify_us == 0)
        c->notify_us = t;
    c->armed = false;
    pthread_mutex_unlock(&c->r->mu);
    check(c);
}

static void
exists_done(int rc, const struct Stat *st, const void *data)
{
    struct rclient *c = (struct rclient *)(uintptr_t)data;

    (void)st;
    if (rc == ZNONODE) {            /* the predecessor went before the watch was set */
        check(c);
        return;
    }
    pthread_mutex_lock(&c->r->mu);
    if (rc == ZOK)
        c->armed = true;
    else
        c->errors++;
    changed(c->r);
    pthread_mutex_unlock(&c->r->mu);
}

static int
cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void
children_done(int rc, const struct String_vector *sv, const void *data)
{
    struct rclient *c = (struct rclient *)(uintptr_t)data;
    struct recipe *r = c->r;
    char path[256], *names[16];
    const char *pred = NULL;
    uint64_t t = now_us();
    int i, n;

    pthread_mutex_lock(&r->mu);
    if (rc != ZOK || c->name[0] == '\0' || sv->count > (int)(sizeof(names) / sizeof(names[0]))) {
        c->errors++;
        changed(r);
        pthread_mutex_unlock(&r->mu);
        return;
    }
    /* the sequence suffixes have a fixed width: strcmp orders them */
    for (n = 0; n < sv->count; n++)
        names[n] = sv->data[n];
    qsort(names, (size_t)n, sizeof(names[0]), cmp_str);
    for (i = 0; i < n && strcmp(names[i], c->name) != 0; i++)
        pred = names[i];
    if (i == n) {                   /* our own znode is not listed */
        c->errors++;
        changed(r);
        pthread_mutex_unlock(&r->mu);
        return;
    }
    if (pred == NULL) {
        c->leads = true;
        c->lead_us = t;
        c->pred[0] = '\0';
        changed(r);
        pthread_mutex_unlock(&r->mu);
        return;
    }
    snprintf(c->pred, sizeof(c->pred), "%s", pred);
    snprintf(path, sizeof(path), "%s/%s", r->base, pred);
    pthread_mutex_unlock(&r->mu);
    if (zoo_awexists(c->zh, path, pred_watcher, c, exists_done, c) != ZOK) {
        pthread_mutex_lock(&r->mu);
        c->errors++;
        changed(r);
        pthread_mutex_unlock(&r->mu);
    }
}

/* List the children: lead, or watch the predecessor (asynchronous). */
static void
check(struct rclient *c)
{
    if (zoo_aget_children(c->zh, c->r->base, 0, children_done, c) != ZOK) {
        pthread_mutex_lock(&c->r->mu);
        c->errors++;
        changed(c->r);
        pthread_mutex_unlock(&c->r->mu);
    }
}

/* Create our znode at the tail (synchronous, main thread), then check(). */
static int
enqueue(struct rclient *c)
{
    char path[256], created[256];
    const char *slash;
    int rc;

    snprintf(path, sizeof(path), "%s/lock-", c->r->base);
    rc = zoo_create(c->zh, path, "", 0, &ZOO_OPEN_ACL_UNSAFE, ZOO_EPHEMERAL | ZOO_SEQUENCE,
        created, (int)sizeof(created));
    if (rc != ZOK) {
        warnx_("recipe: create %s: %s", path, zerror(rc));
        return -1;
    }
    slash = strrchr(created, '/');
    pthread_mutex_lock(&c->r->mu);
    snprintf(c->name, sizeof(c->name), "%s", slash ? slash + 1 : created);
    c->leads = c->armed = false;
    c->pred[0] = '\0';
    c->notify_us = c->lead_us = 0;
    pthread_mutex_unlock(&c->r->mu);
    check(c);
    return 0;
}

/* Steady (r->mu held): one client leads, the others watch their predecessor. */
static bool
steady(struct recipe *r, int *holder)
{
    int i, h = -1;

    for (i = 0; i < RECIPE_CLIENTS; i++) {
        if (r->c[i].leads) {
            if (h >= 0)
                return false;
            h = i;
        } else if (!r->c[i].armed) {
            return false;
        }
    }
    *holder = h;
    return h >= 0;
}

static int
wait_steady(struct recipe *r, int *holder, int timeout_ms)
{
    struct timespec ts;
    uint64_t until = now_us() + (uint64_t)timeout_ms * 1000u;
    int ok, errors = 0, i;

    ts.tv_sec = (time_t)(until / 1000000u);
    ts.tv_nsec = (long)(until % 1000000u) * 1000L;
    pthread_mutex_lock(&r->mu);
    while (!(ok = steady(r, holder))) {
        for (errors = 0, i = 0; i < RECIPE_CLIENTS; i++)
            errors += r->c[i].errors;
        if (errors || pthread_cond_timedwait(&r->cv, &r->mu, &ts) == ETIMEDOUT)
            break;
    }
    if (!ok)
        ok = steady(r, holder);
    pthread_mutex_unlock(&r->mu);
    if (!ok)
        warnx_("recipe: not steady (one holder, two armed watches) within %d ms%s", timeout_ms,
            errors ? " (a ZooKeeper call failed)" : "");
    return ok ? 0 : -1;
}

struct recipe *
recipe_open(const char *hosts, const char *base)
{
    struct recipe *r = calloc(1, sizeof(*r));
    pthread_condattr_t ca;
    int i, holder, rc;

    if (r == NULL)
        return NULL;
    pthread_mutex_init(&r->mu, NULL);
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&r->cv, &ca);
    pthread_condattr_destroy(&ca);
    snprintf(r->base, sizeof(r->base), "%s", base);
    for (i = 0; i < RECIPE_CLIENTS; i++) {
        r->c[i].r = r;
        r->c[i].idx = i;
        if ((r->c[i].zh = zk_connect(hosts, BENCH_WAIT_MS)) == NULL)
            goto err;
    }
    if ((rc = zk_mkpath(r->c[0].zh, base)) != ZOK) {
        warnx_("recipe: create %s: %s", base, zerror(rc));
        goto err;
    }
    for (i = 0; i < RECIPE_CLIENTS; i++)
        if (enqueue(&r->c[i]) != 0)
            goto err;
    if (wait_steady(r, &holder, BENCH_WAIT_MS) != 0)
        goto err;
    return r;
err:
    recipe_close(r);
    return NULL;
}

void
recipe_close(struct recipe *r)
{
    int i;

    if (r == NULL)
        return;
    for (i = 0; i < RECIPE_CLIENTS; i++)
        zk_close(r->c[i].zh);       /* the sessions end: the ephemerals go */
    pthread_cond_destroy(&r->cv);
    pthread_mutex_destroy(&r->mu);
    free(r);
}

int
recipe_once(struct recipe *r, struct recipe_sample *out)
{
    struct timespec ts;
    struct rclient *h, *s = NULL;
    char path[256];
    uint64_t t0, t1, until;
    int i, holder, rc;

    memset(out, 0, sizeof(*out));
    if (wait_steady(r, &holder, BENCH_WAIT_MS) != 0)
        return -1;
    h = &r->c[holder];
    pthread_mutex_lock(&r->mu);
    for (i = 0; i < RECIPE_CLIENTS; i++)
        if (strcmp(r->c[i].pred, h->name) == 0) {
            s = &r->c[i];
            s->notify_us = s->lead_us = 0;
        }
    snprintf(path, sizeof(path), "%s/%s", r->base, h->name);
    pthread_mutex_unlock(&r->mu);
    if (s == NULL) {
        warnx_("recipe: nobody watches the holder's %s", path);
        return -1;
    }

    t0 = now_us();
    rc = zoo_delete(h->zh, path, -1);
    t1 = now_us();
    if (rc != ZOK) {
        warnx_("recipe: delete %s: %s", path, zerror(rc));
        return -1;
    }
    pthread_mutex_lock(&r->mu);
    h->leads = false;
    h->name[0] = '\0';
    until = t0 + (uint64_t)BENCH_WAIT_MS * 1000u;
    ts.tv_sec = (time_t)(until / 1000000u);
    ts.tv_nsec = (long)(until % 1000000u) * 1000L;
    while (!s->leads && s->errors == 0)
        if (pthread_cond_timedwait(&r->cv, &r->mu, &ts) == ETIMEDOUT)
            break;
    rc = s->leads ? 0 : -1;
    out->holder = h->idx;
    out->successor = s->idx;
    out->delete_us = (int64_t)(t1 - t0);
    out->notify_us = s->notify_us ? (int64_t)s->notify_us - (int64_t)t0 : -1;
    out->lead_us = s->leads ? (int64_t)s->lead_us - (int64_t)t0 : -1;
    pthread_mutex_unlock(&r->mu);
    if (rc != 0) {
        warnx_("recipe: the successor did not lead within %d ms of the delete", BENCH_WAIT_MS);
        return -1;
    }
    /* the leaver queues again at the tail; settle before the next (ours) sample */
    if (enqueue(h) != 0 || wait_steady(r, &holder, BENCH_WAIT_MS) != 0)
        return -1;
    return 0;
}
