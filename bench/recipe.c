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
 * Three more floors are measured, with no protocol behind them (nothing
 * checks that the successor may lead; they are what the wire costs), the
 * first two in the same samples:
 * - the two-phase floor: at its notification the successor also creates an
 *   ephemeral znode (BASE-w/w-NNNNNNNNNN; the getChildren is sent first, so
 *   the recipe's figure does not wait for it): delete call -> that create's
 *   reply is one write, a notification, one write, the floor issue 18 names
 *   for a handover whose new leader must write;
 * - the three-phase floor (recipe_request_once(), beside the switchover): an
 *   operator's client sets BASE-req, which the holder watches; at that
 *   notification the holder deletes its znode, and the rest is as above:
 *   request write -> successor's create is three writes and two
 *   notifications, the least a request that moves an ephemeral leader znode
 *   from one session to another can cost;
 * - the crowded two-phase floor (recipe_crowd_once(), a sample of its own):
 *   the two-phase floor again, with the holder and the third client also
 *   watching the holder's znode, each reading it once with exists (no
 *   watch: the sequential name never comes back) at the notification, as a
 *   member that follows the leader reads at its deletion. Our release wakes
 *   the leaver, the elector and the successor at once (each with several
 *   notifications and reads); the recipe wakes one client. On a host whose
 *   CPUs the clients share with the servers, the wakeups may delay the
 *   successor: this floor shows how much, for two of them.
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
    uint64_t write_us;              /* our floor create was acknowledged, 0: not yet */
    char wpath[256];                /* that znode, "" when none */
    int errors;                     /* failed calls (counted, then reported) */
};

struct recipe {
    pthread_mutex_t mu;             /* guards the clients' state */
    pthread_cond_t cv;              /* broadcast on every change */
    char base[128];                 /* BASE: the lock's parent znode */
    char wbase[160];                /* BASE-w: parent of the floor's creates */
    char req[160];                  /* BASE-req: the operator's request znode */
    zhandle_t *op;                  /* the operator's client */
    uint64_t del_call_us;           /* request variant: the holder's delete call */
    uint64_t del_ack_us;            /* ... and its reply */
    unsigned crowd_gen;             /* recipe_crowd_once()'s sample (stale callbacks: ignored) */
    int crowd_pending;              /* its watches armed or reads in flight */
    int crowd_errors;               /* ... that failed */
    struct rclient c[RECIPE_CLIENTS];
};

static void check(struct rclient *c);
static void floor_write(struct rclient *c);

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
    floor_write(c);
}

static void
floor_done(int rc, const char *value, const void *data)
{
    struct rclient *c = (struct rclient *)(uintptr_t)data;
    uint64_t t = now_us();

    pthread_mutex_lock(&c->r->mu);
    if (rc == ZOK && value != NULL) {
        c->write_us = t;
        snprintf(c->wpath, sizeof(c->wpath), "%s", value);
    } else {
        c->errors++;
    }
    changed(c->r);
    pthread_mutex_unlock(&c->r->mu);
}

/* The two-phase floor's write, sent at the notification after the listing. */
static void
floor_write(struct rclient *c)
{
    char path[200];

    snprintf(path, sizeof(path), "%s/w-", c->r->wbase);
    if (zoo_acreate(c->zh, path, "", 0, &ZOO_OPEN_ACL_UNSAFE, ZOO_EPHEMERAL | ZOO_SEQUENCE,
            floor_done, c) != ZOK) {
        pthread_mutex_lock(&c->r->mu);
        c->errors++;
        changed(c->r);
        pthread_mutex_unlock(&c->r->mu);
    }
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
    struct timespec ts = mono_at(now_us() + (uint64_t)timeout_ms * 1000u);
    int ok, errors = 0, i;

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
    int i, holder, rc;

    if (r == NULL)
        return NULL;
    pthread_mutex_init(&r->mu, NULL);
    cond_init_mono(&r->cv);
    snprintf(r->base, sizeof(r->base), "%s", base);
    snprintf(r->wbase, sizeof(r->wbase), "%s-w", base);
    snprintf(r->req, sizeof(r->req), "%s-req", base);
    for (i = 0; i < RECIPE_CLIENTS; i++) {
        r->c[i].r = r;
        r->c[i].idx = i;
        if ((r->c[i].zh = zk_connect(hosts, BENCH_WAIT_MS)) == NULL)
            goto err;
    }
    if ((r->op = zk_connect(hosts, BENCH_WAIT_MS)) == NULL)
        goto err;
    if ((rc = zk_mkpath(r->c[0].zh, base)) != ZOK ||
        (rc = zk_mkpath(r->c[0].zh, r->wbase)) != ZOK ||
        (rc = zk_mkpath(r->c[0].zh, r->req)) != ZOK) {
        warnx_("recipe: create %s and its siblings: %s", base, zerror(rc));
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
    zk_close(r->op);
    pthread_cond_destroy(&r->cv);
    pthread_mutex_destroy(&r->mu);
    free(r);
}

/* The holder and the client that watches it (r->mu held); s NULL: warned. */
static int
pick(struct recipe *r, int holder, struct rclient **hp, struct rclient **sp)
{
    struct rclient *h = &r->c[holder], *s = NULL;
    int i;

    for (i = 0; i < RECIPE_CLIENTS; i++)
        if (strcmp(r->c[i].pred, h->name) == 0) {
            s = &r->c[i];
            s->notify_us = s->lead_us = s->write_us = 0;
            s->wpath[0] = '\0';
        }
    if (s == NULL)
        warnx_("recipe: nobody watches the holder's %s/%s", r->base, h->name);
    *hp = h;
    *sp = s;
    return s ? 0 : -1;
}

/* Wait (r->mu held) until the successor leads and its floor write is back. */
static int
wait_lead(struct recipe *r, struct rclient *s, uint64_t t0)
{
    struct timespec ts = mono_at(t0 + (uint64_t)BENCH_WAIT_MS * 1000u);

    while (!(s->leads && s->write_us) && s->errors == 0)
        if (pthread_cond_timedwait(&r->cv, &r->mu, &ts) == ETIMEDOUT)
            break;
    return s->leads && s->write_us ? 0 : -1;
}

/* After a sample: the floor's znode goes, the old holder queues at the tail. */
static int
settle(struct recipe *r, struct rclient *h, struct rclient *s)
{
    int holder, rc;

    if (s->wpath[0] != '\0' && (rc = zoo_delete(s->zh, s->wpath, -1)) != ZOK) {
        warnx_("recipe: delete %s: %s", s->wpath, zerror(rc));
        return -1;
    }
    s->wpath[0] = '\0';
    if (enqueue(h) != 0 || wait_steady(r, &holder, BENCH_WAIT_MS) != 0)
        return -1;
    return 0;
}

static int64_t
after(uint64_t t, uint64_t t0)
{
    return t ? (int64_t)t - (int64_t)t0 : -1;
}

/* ---- the crowded two-phase floor ------------------------------------------ */

/* One crowd watch: its sample's generation (freed with its read's reply). */
struct crowd {
    struct recipe *r;
    unsigned gen;
};

/* A crowd watch or its read ended (r->mu held): count it for its sample. */
static void
crowd_end(struct crowd *x, bool error)
{
    struct recipe *r = x->r;

    if (x->gen == r->crowd_gen) {
        if (error)
            r->crowd_errors++;
        r->crowd_pending--;
        changed(r);
    }
    free(x);
}

static void
crowd_done(int rc, const struct Stat *st, const void *data)
{
    struct crowd *x = (struct crowd *)(uintptr_t)data;
    struct recipe *r = x->r;

    (void)st;
    pthread_mutex_lock(&r->mu);
    crowd_end(x, rc != ZOK && rc != ZNONODE);
    pthread_mutex_unlock(&r->mu);
}

/* A crowd client's watch fired: read the znode once with exists (no watch:
   its sequential name never comes back), as a member that follows the
   leader znode reads it at its deletion. */
static void
crowd_watcher(zhandle_t *zh, int type, int state, const char *path, void *ctx)
{
    struct crowd *x = ctx;
    struct recipe *r = x->r;

    (void)state;
    if (type != ZOO_DELETED_EVENT)
        return;                     /* session events: the bench's sessions stay up */
    if (zoo_aexists(zh, path, 0, crowd_done, x) != ZOK) {
        pthread_mutex_lock(&r->mu);
        crowd_end(x, true);
        pthread_mutex_unlock(&r->mu);
    }
}

/* Wait (r->mu held) until no crowd watch or read of this sample is left. */
static int
crowd_wait(struct recipe *r)
{
    struct timespec ts = mono_at(now_us() + (uint64_t)BENCH_WAIT_MS * 1000u);

    while (r->crowd_pending > 0 && r->crowd_errors == 0)
        if (pthread_cond_timedwait(&r->cv, &r->mu, &ts) == ETIMEDOUT)
            break;
    return r->crowd_pending == 0 && r->crowd_errors == 0 ? 0 : -1;
}

/* Client C watches PATH for the crowd (*XP: its context); 0, or a
   ZooKeeper error. */
static int
crowd_arm(struct recipe *r, struct rclient *c, const char *path, struct crowd **xp)
{
    struct crowd *x = malloc(sizeof(*x));
    struct Stat st;
    int rc;

    if (x == NULL)
        return ZSYSTEMERROR;
    x->r = r;
    pthread_mutex_lock(&r->mu);
    x->gen = r->crowd_gen;
    r->crowd_pending++;
    pthread_mutex_unlock(&r->mu);
    if ((rc = zoo_wexists(c->zh, path, crowd_watcher, x, &st)) != ZOK) {
        pthread_mutex_lock(&r->mu);
        crowd_end(x, false);
        pthread_mutex_unlock(&r->mu);
        x = NULL;
    }
    *xp = x;
    return rc;
}

/*
 * One handover of the lock recipe (recipe_once), with a crowd or not
 * (recipe_crowd_once: the holder and the third client also watch the
 * holder's znode and read it once at the notification).
 */
static int
handover(struct recipe *r, struct recipe_sample *out, bool crowd)
{
    struct rclient *h, *s, *third = NULL;
    struct crowd *xh, *xt;
    char path[256];
    uint64_t t0, t1;
    int holder, rc, crc = 0, i;

    memset(out, 0, sizeof(*out));
    out->delete_us = out->notify_us = out->lead_us = out->write_us = -1;
    out->req_ack_us = out->req_lead_us = out->req_write_us = -1;
    if (wait_steady(r, &holder, BENCH_WAIT_MS) != 0)
        return -1;
    pthread_mutex_lock(&r->mu);
    rc = pick(r, holder, &h, &s);
    for (i = 0; rc == 0 && i < RECIPE_CLIENTS; i++)
        if (&r->c[i] != h && &r->c[i] != s)
            third = &r->c[i];
    snprintf(path, sizeof(path), "%s/%s", r->base, h->name);
    r->crowd_gen++;                 /* a late callback of an earlier crowd counts for nothing */
    r->crowd_pending = 0;
    r->crowd_errors = 0;
    pthread_mutex_unlock(&r->mu);
    if (rc != 0 || (crowd && third == NULL))
        return -1;
    if (crowd) {
        /* synchronous: armed before the delete, which fires every watch */
        if ((rc = crowd_arm(r, h, path, &xh)) != ZOK) {
            warnx_("recipe: crowd: exists %s: %s", path, zerror(rc));
            return -1;
        }
        if ((rc = crowd_arm(r, third, path, &xt)) != ZOK) {
            warnx_("recipe: crowd: exists %s: %s", path, zerror(rc));
            /* the holder's watch must not fire in a later sample (its
               context is left allocated: a removal may still call the
               watcher) */
            if ((rc = zoo_remove_watches(h->zh, path, ZWATCHTYPE_DATA, crowd_watcher, xh, 0)) !=
                ZOK)
                warnx_("recipe: crowd: remove the watch on %s: %s", path, zerror(rc));
            return -1;
        }
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
    rc = wait_lead(r, s, t0);
    out->holder = h->idx;
    out->successor = s->idx;
    out->delete_us = (int64_t)(t1 - t0);
    out->notify_us = after(s->notify_us, t0);
    out->lead_us = after(s->leads ? s->lead_us : 0, t0);
    out->write_us = after(s->write_us, t0);
    if (crowd && rc == 0)
        crc = crowd_wait(r);
    pthread_mutex_unlock(&r->mu);
    if (rc != 0) {
        warnx_("recipe: the successor did not lead and write within %d ms of the delete",
            BENCH_WAIT_MS);
        return -1;
    }
    if (crc != 0)
        warnx_("recipe: crowd: a watch or its read did not complete within %d ms",
            BENCH_WAIT_MS);
    /* settle before the next (ours) sample; the handover went through, so
       the holder queues again whatever the crowd did */
    rc = settle(r, h, s);
    return rc != 0 || crc != 0 ? -1 : 0;
}

int
recipe_once(struct recipe *r, struct recipe_sample *out)
{
    return handover(r, out, false);
}

int
recipe_crowd_once(struct recipe *r, struct recipe_sample *out)
{
    return handover(r, out, true);
}

static void
del_done(int rc, const void *data)
{
    struct rclient *c = (struct rclient *)(uintptr_t)data;
    uint64_t t = now_us();

    pthread_mutex_lock(&c->r->mu);
    if (rc == ZOK)
        c->r->del_ack_us = t;
    else
        c->errors++;
    changed(c->r);
    pthread_mutex_unlock(&c->r->mu);
}

/* The holder's watch on the request znode: it deletes its znode at once. */
static void
req_watcher(zhandle_t *zh, int type, int state, const char *path, void *ctx)
{
    struct rclient *c = ctx;
    struct recipe *r = c->r;
    char lock[256];
    int rc;

    (void)state;
    (void)path;
    if (type != ZOO_CHANGED_EVENT)
        return;
    pthread_mutex_lock(&r->mu);
    snprintf(lock, sizeof(lock), "%s/%s", r->base, c->name);
    c->leads = false;
    c->name[0] = '\0';
    r->del_call_us = now_us();
    pthread_mutex_unlock(&r->mu);
    if ((rc = zoo_adelete(zh, lock, -1, del_done, c)) != ZOK) {
        pthread_mutex_lock(&r->mu);
        c->errors++;
        changed(r);
        pthread_mutex_unlock(&r->mu);
    }
}

int
recipe_request_once(struct recipe *r, struct recipe_sample *out)
{
    struct rclient *h, *s;
    struct Stat st;
    uint64_t t0, t1;
    int holder, rc;

    memset(out, 0, sizeof(*out));
    if (wait_steady(r, &holder, BENCH_WAIT_MS) != 0)
        return -1;
    pthread_mutex_lock(&r->mu);
    rc = pick(r, holder, &h, &s);
    r->del_call_us = r->del_ack_us = 0;
    pthread_mutex_unlock(&r->mu);
    if (rc != 0)
        return -1;
    /* the holder watches the request (off the clock, as a leader would all along) */
    if ((rc = zoo_wexists(h->zh, r->req, req_watcher, h, &st)) != ZOK) {
        warnx_("recipe: exists %s: %s", r->req, zerror(rc));
        return -1;
    }

    t0 = now_us();
    rc = zoo_set(r->op, r->req, "go", 2, -1);
    t1 = now_us();
    if (rc != ZOK) {
        warnx_("recipe: set %s: %s", r->req, zerror(rc));
        return -1;
    }
    pthread_mutex_lock(&r->mu);
    rc = wait_lead(r, s, t0);
    out->holder = h->idx;
    out->successor = s->idx;
    out->req_ack_us = (int64_t)(t1 - t0);
    out->req_lead_us = after(s->leads ? s->lead_us : 0, t0);
    out->req_write_us = after(s->write_us, t0);
    /* the one- and two-phase figures of the same sample, from the holder's delete */
    out->delete_us = r->del_ack_us && r->del_call_us ? after(r->del_ack_us, r->del_call_us) : -1;
    out->notify_us = r->del_call_us ? after(s->notify_us, r->del_call_us) : -1;
    out->lead_us = r->del_call_us && s->leads ? after(s->lead_us, r->del_call_us) : -1;
    out->write_us = r->del_call_us ? after(s->write_us, r->del_call_us) : -1;
    pthread_mutex_unlock(&r->mu);
    if (rc != 0) {
        warnx_("recipe: the request moved nothing within %d ms", BENCH_WAIT_MS);
        return -1;
    }
    return settle(r, h, s);
}
