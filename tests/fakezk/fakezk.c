/*
 * fakezk.c - the scripted in-memory ZooKeeper (see fakezk.h for the model),
 * and the __wrap_ functions that route libzkelect's ZooKeeper calls to it.
 *
 * Locks: fz.mu guards all the state below. fz.dmu is "the completion
 * thread": held while a completion or watcher runs (never with fz.mu), so
 * zookeeper_close (which takes it) never frees a request while its
 * completion runs. The library's completions only take its queue lock.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zookeeper/proto.h>
#include <zookeeper/zookeeper.h>

#include "fakezk.h"

/* ---- state ----------------------------------------------------------------- */

struct fznode {
    struct fznode *next;
    char *path;
    char *data;                 /* NULL: NULL data */
    int len;
    struct Stat st;
};

enum fw_kind { FW_DATA = 1, FW_EXIST = 2, FW_CHILD = 4 };

struct fwatch {
    struct fwatch *next;
    struct fsess *s;
    char *path;
    int kind;
    bool known;                 /* the client has the reply that set it: it
                                   re-arms it after a reconnect */
};

enum fi_kind { FI_REPLY = 1, FI_WATCH, FI_SESSION };
enum fr_op { OP_CREATE = 1, OP_DELETE, OP_SET, OP_GET, OP_EXISTS, OP_CHILDREN, OP_CHILDREN2,
             OP_MULTI, OP_SYNC };

#define FZ_STALE_MAX 4          /* paths one lagging server answers from its copy */

/* One request, then its queued reply. */
#define FZ_MULTI_MAX 24         /* ops in one multi (the real server has no small limit;
                                   libzkelect's largest has ZKE_MULTI_MAX, 20) */

struct fitem {
    struct fitem *next;
    enum fi_kind kind;
    /* FI_WATCH / FI_SESSION */
    int type, state;
    char *path;                 /* watch path; request path */
    /* FI_REPLY: the request */
    enum fr_op op;
    void *cb;                   /* completion */
    const void *cbdata;
    char *reqdata;              /* create/set payload copy */
    int reqlen;
    int version, mode, watch;
    int count;                  /* multi */
    const zoo_op_t *ops;        /* multi ops (the caller's; live until the completion) */
    zoo_op_result_t *results;
    /* the reply */
    int rc;
    struct Stat st;
    bool has_stat;
    char *value;                /* created path, or data read */
    int vlen;
    char **strings;
    int nstrings;
    int wkind;                  /* FI_REPLY: the watch the read set (0 none) */
    bool unapplied;             /* FI_REPLY: sent, the server has not applied it yet */
    bool known;                 /* FI_WATCH: fired by a watch the client knew */
    int op_rc[FZ_MULTI_MAX];    /* multi: per op */
    char *op_path[FZ_MULTI_MAX]; /* multi: created paths */
    struct Stat op_stat[FZ_MULTI_MAX];
};

struct fsess {
    struct fsess *next;
    int64_t id;
    int n;                      /* 1-based creation index */
    watcher_fn fn;
    void *ctx;
    int recv_timeout;
    clientid_t cid;
    enum { S_CONNECTED, S_DISCONNECTED, S_EXPIRED, S_CLOSED } st;
    bool hold;
    bool defer;                 /* apply requests when delivered, not when sent */
    bool expiry_unseen;         /* EXPIRED queued, not yet delivered */
    bool unnoticed;             /* fakezk_expire_unnoticed: ended, still "connected" */
    struct fitem *q, *qtail;    /* FIFO of deliverables */
    struct fitem *missed;       /* notifications while disconnected (list, in order) */
    struct fitem *lagged;       /* of those, the ones a lagging server has not
                                   seen yet: delivered when it catches up (sync) */
    struct fitem *parked;       /* requests sent while disconnected */
    bool cut;                   /* fakezk_cut: the server is cut off from the quorum */
    bool cut_expired;           /* the quorum expired the session meanwhile */
    struct fitem *cutq;         /* writes and syncs waiting for the quorum */
    int nreq;
    /* fakezk_stale_reads: this session's server lags behind; a get or an
       exists of one of these paths answers what it held then, until a sync */
    struct fstale {
        char *path;
        char *data;
        int len;                /* -1: absent then */
        struct Stat st;
    } stale[FZ_STALE_MAX];
    int nstale;
};

static struct {
    pthread_mutex_t mu, dmu;
    struct fznode *nodes;
    struct fwatch *watches;
    struct fsess *sessions;
    int nsess;
    int64_t zxid;
    bool connect_sync;
    /* fault */
    int64_t fault_sid;
    int fault_n;
    bool fault_applied, fault_fired;
    int fault_where;
    bool fault_expire;          /* the fault expires the session */
    int nreq;
    bool park;                  /* requests on a disconnected session wait for the reconnect */
    char fault_op[16];          /* only requests of this op count ("" any) */
    char fault_path[512];       /* ... whose path starts with this ("" any) */
    bool trace;                 /* FAKEZK_TRACE: print every delivery and request */
    char noread[512];           /* fakezk_noread: a get or getChildren of it is ZNOAUTH */
} fz = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER, NULL, NULL, NULL, 0, 0, true,
        0, 0, false, false, 0, false, 0, false, "", "", false, ""};

static void *
xmalloc(size_t n)
{
    void *p = calloc(1, n ? n : 1);
    if (p == NULL)
        abort();
    return p;
}

static char *
xstrdup(const char *s)
{
    char *p = strdup(s ? s : "");
    if (p == NULL)
        abort();
    return p;
}

static char *
xmemdup(const char *d, int len)
{
    char *p;
    if (d == NULL || len < 0)
        return NULL;
    p = xmalloc((size_t)len + 1);
    memcpy(p, d, (size_t)len);
    return p;
}

/* ---- tree -------------------------------------------------------------- */

static struct fznode *
node_find(const char *path)
{
    struct fznode *n;
    for (n = fz.nodes; n; n = n->next)
        if (strcmp(n->path, path) == 0)
            return n;
    return NULL;
}

/* The parent path of path ("/" for "/x"); false for "/" or a bad path. */
static bool
parent_of(const char *path, char *out, size_t len)
{
    const char *slash = strrchr(path, '/');
    if (path[0] != '/' || slash == NULL || strcmp(path, "/") == 0 || slash[1] == '\0')
        return false;
    if (slash == path)
        snprintf(out, len, "/");
    else
        snprintf(out, len, "%.*s", (int)(slash - path), path);
    return true;
}

static bool
is_child(const char *parent, const char *path)
{
    size_t n = strlen(parent);
    const char *rest;

    if (strcmp(parent, "/") == 0)
        rest = path + 1;
    else if (strncmp(path, parent, n) == 0 && path[n] == '/')
        rest = path + n + 1;
    else
        return false;
    return path[0] == '/' && *rest && strchr(rest, '/') == NULL && strcmp(path, "/") != 0;
}

static void
node_free(struct fznode *n)
{
    free(n->path);
    free(n->data);
    free(n);
}

static void
ensure_root(void)
{
    if (node_find("/") == NULL) {
        struct fznode *n = xmalloc(sizeof(*n));
        n->path = xstrdup("/");
        n->len = 0;
        n->data = xmemdup("", 0);
        n->next = fz.nodes;
        fz.nodes = n;
    }
}

/* Snapshot of the tree (multi: all or nothing). */
static struct fznode *
tree_clone(void)
{
    struct fznode *head = NULL, **tail = &head, *n, *c;
    for (n = fz.nodes; n; n = n->next) {
        c = xmalloc(sizeof(*c));
        *c = *n;
        c->path = xstrdup(n->path);
        c->data = n->data ? xmemdup(n->data, n->len) : NULL;
        c->next = NULL;
        *tail = c;
        tail = &c->next;
    }
    return head;
}

static void
tree_free(struct fznode *t)
{
    struct fznode *n;
    while ((n = t) != NULL) {
        t = n->next;
        node_free(n);
    }
}

/* ---- queues ------------------------------------------------------------ */

static void
item_free(struct fitem *it)
{
    int i;
    if (it == NULL)
        return;
    free(it->path);
    free(it->reqdata);
    free(it->value);
    for (i = 0; i < it->nstrings; i++)
        free(it->strings[i]);
    free(it->strings);
    for (i = 0; i < FZ_MULTI_MAX; i++)
        free(it->op_path[i]);
    free(it);
}

static void
q_push(struct fsess *s, struct fitem *it)
{
    it->next = NULL;
    if (s->qtail)
        s->qtail->next = it;
    else
        s->q = it;
    s->qtail = it;
}

static void
list_append(struct fitem **head, struct fitem *it)
{
    it->next = NULL;
    while (*head)
        head = &(*head)->next;
    *head = it;
}

static void
q_fix_tail(struct fsess *s)
{
    struct fitem *it;
    s->qtail = NULL;
    for (it = s->q; it; it = it->next)
        s->qtail = it;
}

/* Queue a session event: FZ_BACK at the end, FZ_FRONT after the session
 * events already at the head (session events stay in order). */
static void
q_session(struct fsess *s, int state, int where)
{
    struct fitem *it = xmalloc(sizeof(*it)), **pp;

    it->kind = FI_SESSION;
    it->type = ZOO_SESSION_EVENT;
    it->state = state;
    if (where >= 2) {
        /* after the first where - 2 items */
        int k = where - 2;
        for (pp = &s->q; *pp && k > 0; pp = &(*pp)->next)
            k--;
        it->next = *pp;
        *pp = it;
        q_fix_tail(s);
        return;
    }
    if (where != FZ_FRONT) {
        q_push(s, it);
        return;
    }
    /* after the last session event in the queue, before everything else */
    {
        struct fitem **after = &s->q;
        for (pp = &s->q; *pp; pp = &(*pp)->next)
            if ((*pp)->kind == FI_SESSION)
                after = &(*pp)->next;
        it->next = *after;
        *after = it;
    }
    q_fix_tail(s);
}

/* A notification for session s (one per session per trigger). */
static void
notify(struct fsess *s, int type, const char *path, bool known)
{
    struct fitem *it;

    if (s->st == S_EXPIRED || s->st == S_CLOSED)
        return;
    it = xmalloc(sizeof(*it));
    it->kind = FI_WATCH;
    it->known = known;
    it->type = type;
    it->path = xstrdup(path);
    if (s->st == S_CONNECTED && s->cut)
        list_append(&s->lagged, it); /* its server has not heard of the change */
    else if (s->st == S_CONNECTED)
        q_push(s, it);
    else
        list_append(&s->missed, it);
}

/* Pending notifications of a transaction: fired only when it commits. */
struct trig {
    struct trig *next;
    char *path;
    int type;
    int kinds;
};

static void
trig_add(struct trig **t, const char *path, int type, int kinds)
{
    struct trig *x = xmalloc(sizeof(*x));
    x->path = xstrdup(path);
    x->type = type;
    x->kinds = kinds;
    while (*t)
        t = &(*t)->next;
    *t = x;
}

static void
trig_fire(struct trig *t)
{
    struct trig *x;
    struct fwatch **pp, *w;
    struct fsess *hit[64];
    bool known[64];
    int nhit, i;

    while ((x = t) != NULL) {
        t = x->next;
        nhit = 0;
        for (pp = &fz.watches; (w = *pp) != NULL;) {
            if ((w->kind & x->kinds) && strcmp(w->path, x->path) == 0) {
                for (i = 0; i < nhit && hit[i] != w->s; i++)
                    ;
                if (i < nhit) {
                    known[i] = known[i] || w->known;
                } else if (nhit < 64) {
                    hit[nhit] = w->s;
                    known[nhit++] = w->known;
                }
                *pp = w->next;
                free(w->path);
                free(w);
            } else {
                pp = &w->next;
            }
        }
        for (i = 0; i < nhit; i++)
            notify(hit[i], x->type, x->path, known[i]);
        free(x->path);
        free(x);
    }
}

static void
trig_free(struct trig *t)
{
    struct trig *x;
    while ((x = t) != NULL) {
        t = x->next;
        free(x->path);
        free(x);
    }
}

static void
watch_add(struct fsess *s, const char *path, int kind)
{
    struct fwatch *w;
    for (w = fz.watches; w; w = w->next)
        if (w->s == s && w->kind == kind && strcmp(w->path, path) == 0)
            return;
    w = xmalloc(sizeof(*w));
    w->s = s;
    w->path = xstrdup(path);
    w->kind = kind;
    w->next = fz.watches;
    fz.watches = w;
}

static void
watches_drop(struct fsess *s)
{
    struct fwatch **pp, *w;
    for (pp = &fz.watches; (w = *pp) != NULL;) {
        if (w->s == s) {
            *pp = w->next;
            free(w->path);
            free(w);
        } else {
            pp = &w->next;
        }
    }
}

/* ---- operations on the tree (fz.mu held) --------------------------------- */

static int
t_create(int64_t owner, const char *path, const char *data, int len, int mode, char **created,
         struct Stat *st, struct trig **trig)
{
    char parent[1024], name[1100];
    struct fznode *p, *n;

    if (!parent_of(path, parent, sizeof(parent)) && !(mode & ZOO_SEQUENCE))
        return strcmp(path, "/") == 0 ? ZNODEEXISTS : ZBADARGUMENTS;
    if (mode & ZOO_SEQUENCE) {
        /* "/a/b_" -> parent "/a" */
        const char *slash = strrchr(path, '/');
        if (slash == NULL || path[0] != '/')
            return ZBADARGUMENTS;
        if (slash == path)
            snprintf(parent, sizeof(parent), "/");
        else
            snprintf(parent, sizeof(parent), "%.*s", (int)(slash - path), path);
    }
    p = node_find(parent);
    if (p == NULL)
        return ZNONODE;
    if (p->st.ephemeralOwner != 0)
        return ZNOCHILDRENFOREPHEMERALS;
    if (mode & ZOO_SEQUENCE)
        snprintf(name, sizeof(name), "%s%010d", path, p->st.cversion);
    else
        snprintf(name, sizeof(name), "%s", path);
    if (node_find(name))
        return ZNODEEXISTS;
    n = xmalloc(sizeof(*n));
    n->path = xstrdup(name);
    n->data = xmemdup(data, len);
    n->len = data ? len : -1;
    n->st.czxid = n->st.mzxid = n->st.pzxid = fz.zxid;
    n->st.ctime = n->st.mtime = fz.zxid;
    n->st.ephemeralOwner = (mode & ZOO_EPHEMERAL) ? owner : 0;
    n->st.dataLength = data && len > 0 ? len : 0;
    n->next = fz.nodes;
    fz.nodes = n;
    p->st.cversion++;
    p->st.numChildren++;
    p->st.pzxid = fz.zxid;
    if (created)
        *created = xstrdup(name);
    if (st)
        *st = n->st;
    trig_add(trig, name, ZOO_CREATED_EVENT, FW_EXIST | FW_DATA);
    trig_add(trig, parent, ZOO_CHILD_EVENT, FW_CHILD);
    return ZOK;
}

static int
t_delete(const char *path, int version, struct trig **trig)
{
    struct fznode **pp, *n, *c, *p;
    char parent[1024];

    n = node_find(path);
    if (n == NULL)
        return ZNONODE;
    if (!parent_of(path, parent, sizeof(parent)))
        return ZBADARGUMENTS;
    if (version != -1 && version != n->st.version)
        return ZBADVERSION;
    for (c = fz.nodes; c; c = c->next)
        if (is_child(path, c->path))
            return ZNOTEMPTY;
    for (pp = &fz.nodes; *pp != n; pp = &(*pp)->next)
        ;
    *pp = n->next;
    node_free(n);
    p = node_find(parent);
    if (p) {
        p->st.cversion++;
        p->st.numChildren--;
        p->st.pzxid = fz.zxid;
    }
    trig_add(trig, path, ZOO_DELETED_EVENT, FW_DATA | FW_EXIST | FW_CHILD);
    trig_add(trig, parent, ZOO_CHILD_EVENT, FW_CHILD);
    return ZOK;
}

static int
t_set(const char *path, const char *data, int len, int version, struct Stat *st,
      struct trig **trig)
{
    struct fznode *n = node_find(path);

    if (n == NULL)
        return ZNONODE;
    if (version != -1 && version != n->st.version)
        return ZBADVERSION;
    free(n->data);
    n->data = xmemdup(data, len);
    n->len = data ? len : -1;
    n->st.version++;
    n->st.mzxid = fz.zxid;
    n->st.mtime = fz.zxid;
    n->st.dataLength = data && len > 0 ? len : 0;
    if (st)
        *st = n->st;
    trig_add(trig, path, ZOO_CHANGED_EVENT, FW_DATA | FW_EXIST);
    return ZOK;
}

/* ---- applying a request (fz.mu held) ------------------------------------- */

/* The lagging server's copy of PATH for session S, or NULL. */
static struct fstale *
stale_find(struct fsess *s, const char *path)
{
    int i;

    for (i = 0; i < s->nstale; i++)
        if (strcmp(s->stale[i].path, path) == 0)
            return &s->stale[i];
    return NULL;
}

/* S's server has caught up (a sync) or S is gone. */
static void
stale_clear(struct fsess *s)
{
    int i;

    for (i = 0; i < s->nstale; i++) {
        free(s->stale[i].path);
        free(s->stale[i].data);
    }
    s->nstale = 0;
}

static void
apply(struct fsess *s, struct fitem *it)
{
    struct fstale *sv;
    struct fitem *lg;
    struct trig *trig = NULL;
    struct fznode *n, *c;
    int i;

    if ((it->op == OP_GET || it->op == OP_EXISTS) && (sv = stale_find(s, it->path)) != NULL) {
        /* a lagging server: what it held when the lag was set (no watch
           change: the test looks at what the client acts on) */
        if (sv->len < 0) {
            it->rc = ZNONODE;
        } else {
            it->rc = ZOK;
            it->st = sv->st;
            it->has_stat = true;
            if (it->op == OP_GET) {
                it->value = sv->len > 0 ? xmemdup(sv->data, sv->len) : NULL;
                it->vlen = sv->len > 0 ? sv->len : -1;
            }
        }
        if (it->watch)
            watch_add(s, it->path, it->wkind = it->op == OP_GET ? FW_DATA :
                                                it->rc == ZOK ? FW_DATA : FW_EXIST);
        return;
    }
    switch (it->op) {
    case OP_SYNC:
        /* the server caught up with the leader: the notifications it
           held back come first */
        stale_clear(s);
        while ((lg = s->lagged) != NULL) {
            s->lagged = lg->next;
            q_push(s, lg);
        }
        it->rc = ZOK;
        it->value = xstrdup(it->path);
        break;
    case OP_CREATE:
        fz.zxid++;
        it->rc = t_create(s->id, it->path, it->reqdata, it->reqlen, it->mode, &it->value, NULL,
                          &trig);
        break;
    case OP_DELETE:
        fz.zxid++;
        it->rc = t_delete(it->path, it->version, &trig);
        break;
    case OP_SET:
        fz.zxid++;
        it->rc = t_set(it->path, it->reqdata, it->reqlen, it->version, &it->st, &trig);
        it->has_stat = it->rc == ZOK;
        break;
    case OP_GET:
        n = node_find(it->path);
        if (n == NULL) {
            it->rc = ZNONODE;
            break;
        }
        if (*fz.noread && strcmp(it->path, fz.noread) == 0) {
            it->rc = ZNOAUTH; /* no watch is set */
            break;
        }
        it->rc = ZOK;
        it->value = n->data ? xmemdup(n->data, n->len) : NULL;
        it->vlen = n->data ? n->len : -1;
        it->st = n->st;
        it->has_stat = true;
        if (it->watch)
            watch_add(s, it->path, it->wkind = FW_DATA);
        break;
    case OP_EXISTS:
        n = node_find(it->path);
        it->rc = n ? ZOK : ZNONODE;
        if (n) {
            it->st = n->st;
            it->has_stat = true;
        }
        if (it->watch)
            watch_add(s, it->path, it->wkind = n ? FW_DATA : FW_EXIST);
        break;
    case OP_CHILDREN:
    case OP_CHILDREN2:
        n = node_find(it->path);
        if (n == NULL) {
            it->rc = ZNONODE;
            break;
        }
        if (*fz.noread && strcmp(it->path, fz.noread) == 0) {
            it->rc = ZNOAUTH; /* no watch is set */
            break;
        }
        it->rc = ZOK;
        it->st = n->st;
        it->has_stat = true;
        for (c = fz.nodes; c; c = c->next)
            if (is_child(it->path, c->path))
                it->nstrings++;
        it->strings = xmalloc(sizeof(char *) * (size_t)(it->nstrings + 1));
        i = 0;
        for (c = fz.nodes; c; c = c->next)
            if (is_child(it->path, c->path))
                it->strings[i++] = xstrdup(strrchr(c->path, '/') + 1);
        if (it->watch)
            watch_add(s, it->path, it->wkind = FW_CHILD);
        break;
    case OP_MULTI: {
        struct fznode *snap = tree_clone();
        int64_t snapzxid = fz.zxid;
        int failed = -1;

        fz.zxid++;
        for (i = 0; i < it->count && i < FZ_MULTI_MAX; i++) {
            const zoo_op_t *op = &it->ops[i];
            int rc;
            if (failed >= 0) {
                it->op_rc[i] = ZRUNTIMEINCONSISTENCY;
                continue;
            }
            switch (op->type) {
            case ZOO_CREATE_OP:
                rc = t_create(s->id, op->create_op.path, op->create_op.data,
                              op->create_op.datalen, op->create_op.flags, &it->op_path[i], NULL,
                              &trig);
                break;
            case ZOO_DELETE_OP:
                rc = t_delete(op->delete_op.path, op->delete_op.version, &trig);
                break;
            case ZOO_SETDATA_OP:
                rc = t_set(op->set_op.path, op->set_op.data, op->set_op.datalen,
                           op->set_op.version, &it->op_stat[i], &trig);
                break;
            case ZOO_CHECK_OP:
                n = node_find(op->check_op.path);
                rc = n == NULL ? ZNONODE
                     : (op->check_op.version != -1 && op->check_op.version != n->st.version)
                         ? ZBADVERSION : ZOK;
                break;
            default:
                rc = ZUNIMPLEMENTED;
            }
            it->op_rc[i] = rc;
            if (rc != ZOK)
                failed = i;
        }
        if (failed >= 0) {
            /* all or nothing: restore the tree, fire nothing */
            tree_free(fz.nodes);
            fz.nodes = snap;
            fz.zxid = snapzxid;
            trig_free(trig);
            trig = NULL;
            for (i = 0; i < failed; i++) {
                it->op_rc[i] = ZOK;
                free(it->op_path[i]);
                it->op_path[i] = NULL;
            }
            it->rc = it->op_rc[failed];
        } else {
            tree_free(snap);
            it->rc = ZOK;
        }
        break;
    }
    }
    if (it->rc != ZOK && (it->op == OP_CREATE || it->op == OP_DELETE || it->op == OP_SET))
        fz.zxid--; /* a failed write is no transaction */
    trig_fire(trig);
}

/* Turn the session's queued replies into connection losses, keep its
 * notifications for the reconnect, queue CONNECTING. */
static void
disconnect_locked(struct fsess *s, int where)
{
    struct fitem **pp, *it, *watches = NULL, **wt = &watches;

    if (s->st != S_CONNECTED)
        return;
    s->st = S_DISCONNECTED;
    /* the server forgets the connection's watches; the client re-arms, on
       the reconnect, those it knows of: the ones whose reply it received */
    {
        struct fwatch **wp, *w;
        for (wp = &fz.watches; (w = *wp) != NULL;) {
            if (w->s == s && !w->known) {
                *wp = w->next;
                free(w->path);
                free(w);
            } else {
                wp = &w->next;
            }
        }
    }
    for (pp = &s->q; (it = *pp) != NULL;) {
        if (it->kind == FI_REPLY) {
            it->rc = ZCONNECTIONLOSS;
            it->unapplied = false;   /* never reached the server */
            pp = &it->next;
        } else if (it->kind == FI_WATCH && !it->known) {
            /* fired by a watch the client never learnt of: lost */
            *pp = it->next;
            item_free(it);
        } else if (it->kind == FI_WATCH) {
            *pp = it->next;
            it->next = NULL;
            *wt = it;
            wt = &it->next;
        } else {
            pp = &it->next;
        }
    }
    q_fix_tail(s);
    /* notifications not yet delivered come again after the reconnect, before
       those of changes made while disconnected */
    if (watches) {
        *wt = s->missed;
        s->missed = watches;
    }
    q_session(s, ZOO_CONNECTING_STATE, where);
}

static struct fsess *
sess_find(int64_t sid)
{
    struct fsess *s;
    for (s = fz.sessions; s; s = s->next)
        if (s->id == sid)
            return s;
    return NULL;
}

static const char *op_name(enum fr_op op);
static void expire_locked(struct fsess *s);

static bool
fault_matches(const struct fitem *it)
{
    if (fz.fault_op[0] && strcmp(fz.fault_op, op_name(it->op)) != 0)
        return false;
    return !fz.fault_path[0] ||
           (it->path && strncmp(it->path, fz.fault_path, strlen(fz.fault_path)) == 0);
}

/* A request from the library: count it, apply it (or park it), queue it. */
static int
submit(zhandle_t *zh, struct fitem *it)
{
    struct fsess *s = (struct fsess *)zh;
    bool fault = false;

    pthread_mutex_lock(&fz.mu);
    if (s && s->st == S_EXPIRED && s->expiry_unseen) {
        /* sent before the library saw the expiry: the connection was gone
           already (the client learns of the expiry only when it connects
           again), so the request fails as on a disconnected session */
        it->kind = FI_REPLY;
        it->rc = ZCONNECTIONLOSS;
        s->nreq++;
        fz.nreq++;
        q_push(s, it);
        pthread_mutex_unlock(&fz.mu);
        return ZOK;
    }
    if (s == NULL || s->st == S_EXPIRED || s->st == S_CLOSED) {
        pthread_mutex_unlock(&fz.mu);
        item_free(it);
        return ZINVALIDSTATE;
    }
    if (s->unnoticed) {
        /* the server ended the session on a connection it kept open */
        it->kind = FI_REPLY;
        it->rc = ZSESSIONEXPIRED;
        s->nreq++;
        fz.nreq++;
        q_push(s, it);
        pthread_mutex_unlock(&fz.mu);
        return ZOK;
    }
    it->kind = FI_REPLY;
    s->nreq++;
    fz.nreq++;
    if (fz.fault_n > 0 && (fz.fault_sid == 0 || fz.fault_sid == s->id) && s->st == S_CONNECTED &&
        fault_matches(it) && --fz.fault_n == 0) {
        fault = true;
        fz.fault_fired = true;
    }
    if (s->st == S_DISCONNECTED) {
        /* sent on a connection that is already gone (the library has not
           seen CONNECTING yet): it never reaches the server, and the client
           completes it with a connection loss. With park_disconnected the
           client holds it instead and sends it after the reconnect. */
        if (fz.park) {
            list_append(&s->parked, it);
        } else {
            it->rc = ZCONNECTIONLOSS;
            q_push(s, it);
        }
        pthread_mutex_unlock(&fz.mu);
        return ZOK;
    }
    if (s->cut && it->op != OP_GET && it->op != OP_EXISTS && it->op != OP_CHILDREN &&
        it->op != OP_CHILDREN2) {
        /* a write or a sync goes to the quorum's leader: no answer while the
           server is cut off (fakezk_cut) */
        list_append(&s->cutq, it);
        pthread_mutex_unlock(&fz.mu);
        return ZOK;
    }
    if (fz.trace)
        fprintf(stderr, "  fakezk: 0x%llx -> %s %s%s\n", (unsigned long long)s->id,
                op_name(it->op), it->path ? it->path : "",
                fault ? (fz.fault_applied ? " (lost, applied)" : " (lost, not applied)") : "");
    if (s->defer && !fault)
        it->unapplied = true;   /* applied when delivered */
    else if (!fault || fz.fault_applied)
        apply(s, it);
    q_push(s, it);
    if (fault && fz.fault_expire)
        expire_locked(s);
    else if (fault)
        disconnect_locked(s, fz.fault_where);
    pthread_mutex_unlock(&fz.mu);
    return ZOK;
}

/* ---- delivery --------------------------------------------------------------- */

static void
deliver_item(struct fsess *s, struct fitem *it)
{
    zhandle_t *zh = (zhandle_t *)s;
    struct String_vector sv;
    int i;

    switch (it->kind) {
    case FI_SESSION:
        if (s->fn)
            s->fn(zh, ZOO_SESSION_EVENT, it->state, "", s->ctx);
        return;
    case FI_WATCH:
        if (s->fn)
            s->fn(zh, it->type, ZOO_CONNECTED_STATE, it->path, s->ctx);
        return;
    case FI_REPLY:
        break;
    }
    if (it->cb == NULL)
        return;
    switch (it->op) {
    case OP_CREATE:
    case OP_SYNC:
        ((string_completion_t)it->cb)(it->rc, it->rc == ZOK ? it->value : NULL, it->cbdata);
        break;
    case OP_DELETE:
        ((void_completion_t)it->cb)(it->rc, it->cbdata);
        break;
    case OP_SET:
    case OP_EXISTS:
        ((stat_completion_t)it->cb)(it->rc, it->rc == ZOK ? &it->st : NULL, it->cbdata);
        break;
    case OP_GET:
        ((data_completion_t)it->cb)(it->rc, it->rc == ZOK ? it->value : NULL,
                                    it->rc == ZOK ? it->vlen : -1,
                                    it->rc == ZOK ? &it->st : NULL, it->cbdata);
        break;
    case OP_CHILDREN:
    case OP_CHILDREN2:
        sv.count = it->rc == ZOK ? it->nstrings : 0;
        sv.data = it->strings;
        if (it->op == OP_CHILDREN)
            ((strings_completion_t)it->cb)(it->rc, it->rc == ZOK ? &sv : NULL, it->cbdata);
        else
            ((strings_stat_completion_t)it->cb)(it->rc, it->rc == ZOK ? &sv : NULL,
                                                it->rc == ZOK ? &it->st : NULL, it->cbdata);
        break;
    case OP_MULTI:
        if (it->rc != ZCONNECTIONLOSS && it->rc != ZSESSIONEXPIRED && it->rc != ZCLOSING) {
            for (i = 0; i < it->count && i < FZ_MULTI_MAX; i++) {
                const zoo_op_t *op = &it->ops[i];
                it->results[i].err = it->op_rc[i];
                it->results[i].value = NULL;
                it->results[i].valuelen = 0;
                it->results[i].stat = NULL;
                if (it->rc == ZOK && op->type == ZOO_CREATE_OP && op->create_op.buf &&
                    op->create_op.buflen > 0 && it->op_path[i]) {
                    snprintf(op->create_op.buf, (size_t)op->create_op.buflen, "%s",
                             it->op_path[i]);
                    it->results[i].value = op->create_op.buf;
                    it->results[i].valuelen = (int)strlen(op->create_op.buf);
                }
                if (it->rc == ZOK && op->type == ZOO_SETDATA_OP && op->set_op.stat)
                    *op->set_op.stat = it->op_stat[i];
            }
        }
        ((void_completion_t)it->cb)(it->rc, it->cbdata);
        break;
    }
}

/* Pop the head of s (or of the first session with something, not held when
 * any is set); fz.dmu held by the caller, fz.mu not. */
static int
deliver_one_locked(int64_t sid, bool any_unheld)
{
    struct fsess *s;
    struct fitem *it = NULL;

    pthread_mutex_lock(&fz.mu);
    for (s = fz.sessions; s; s = s->next) {
        if (sid ? s->id != sid : (any_unheld && s->hold))
            continue;
        if (s->st == S_CLOSED || s->q == NULL)
            continue;
        it = s->q;
        s->q = it->next;
        if (s->q == NULL)
            s->qtail = NULL;
        if (it->kind == FI_SESSION && it->state == ZOO_EXPIRED_SESSION_STATE)
            s->expiry_unseen = false;   /* from now on calls fail at once */
        if (it->kind == FI_REPLY && it->unapplied) {
            /* deferred: the server applies it now (its notifications for
               this session come after the replies already queued) */
            it->unapplied = false;
            apply(s, it);
        }
        if (it->kind == FI_REPLY && it->wkind && it->rc != ZCONNECTIONLOSS) {
            /* the client now knows the watch this read set */
            struct fwatch *w;
            for (w = fz.watches; w; w = w->next)
                if (w->s == s && w->kind == it->wkind && strcmp(w->path, it->path) == 0)
                    w->known = true;
        }
        break;
    }
    pthread_mutex_unlock(&fz.mu);
    if (it == NULL)
        return 0;
    if (fz.trace) {
        char buf[300];
        if (it->kind == FI_SESSION)
            snprintf(buf, sizeof(buf), "session %d", it->state);
        else if (it->kind == FI_WATCH)
            snprintf(buf, sizeof(buf), "watch %d %s", it->type, it->path);
        else
            snprintf(buf, sizeof(buf), "reply %s %s rc=%d", op_name(it->op),
                     it->path ? it->path : "", it->rc);
        fprintf(stderr, "  fakezk: 0x%llx <- %s\n", (unsigned long long)s->id, buf);
    }
    deliver_item(s, it);
    item_free(it);
    return 1;
}

int
fakezk_deliver_one(int64_t sid)
{
    int n;

    pthread_mutex_lock(&fz.dmu);
    n = deliver_one_locked(sid, sid == 0);
    pthread_mutex_unlock(&fz.dmu);
    return n;
}

int
fakezk_deliver_all(void)
{
    int n = 0;

    pthread_mutex_lock(&fz.dmu);
    while (deliver_one_locked(0, true))
        n++;
    pthread_mutex_unlock(&fz.dmu);
    return n;
}

int
fakezk_pending(int64_t sid)
{
    struct fsess *s;
    struct fitem *it;
    int n = 0;

    pthread_mutex_lock(&fz.mu);
    for (s = fz.sessions; s; s = s->next) {
        if ((sid && s->id != sid) || s->st == S_CLOSED || (!sid && s->hold))
            continue;
        for (it = s->q; it; it = it->next)
            n++;
    }
    pthread_mutex_unlock(&fz.mu);
    return n;
}

static const char *
op_name(enum fr_op op)
{
    static const char *const names[] = {"?", "create", "delete", "set", "get", "exists",
                                        "children", "children2", "multi", "sync"};
    return (unsigned)op < sizeof(names) / sizeof(names[0]) ? names[op] : "?";
}

const char *
fakezk_peek(int64_t sid, char *buf, size_t len)
{
    struct fsess *s;

    pthread_mutex_lock(&fz.mu);
    s = sess_find(sid);
    buf[0] = '\0';
    if (s && s->q) {
        struct fitem *it = s->q;
        if (it->kind == FI_SESSION)
            snprintf(buf, len, "session %d", it->state);
        else if (it->kind == FI_WATCH)
            snprintf(buf, len, "watch %d %s", it->type, it->path);
        else
            snprintf(buf, len, "reply %s %s rc=%d", op_name(it->op),
                     it->path ? it->path : "", it->rc);
    }
    pthread_mutex_unlock(&fz.mu);
    return buf;
}

void
fakezk_defer_apply(int64_t sid, bool defer)
{
    struct fsess *s;

    pthread_mutex_lock(&fz.mu);
    if ((s = sess_find(sid)) != NULL)
        s->defer = defer;
    pthread_mutex_unlock(&fz.mu);
}

void
fakezk_hold(int64_t sid, bool hold)
{
    struct fsess *s;

    pthread_mutex_lock(&fz.mu);
    if ((s = sess_find(sid)) != NULL)
        s->hold = hold;
    pthread_mutex_unlock(&fz.mu);
}

/* ---- sessions ----------------------------------------------------------------- */

int
fakezk_disconnect(int64_t sid, int where)
{
    struct fsess *s;
    int rc = ZOK;

    pthread_mutex_lock(&fz.mu);
    s = sess_find(sid);
    if (s == NULL || s->st != S_CONNECTED)
        rc = ZINVALIDSTATE;
    else
        disconnect_locked(s, where);
    pthread_mutex_unlock(&fz.mu);
    return rc;
}

int
fakezk_reconnect(int64_t sid, int where)
{
    struct fsess *s;
    struct fitem *it;

    pthread_mutex_lock(&fz.mu);
    s = sess_find(sid);
    if (s == NULL || s->st != S_DISCONNECTED) {
        pthread_mutex_unlock(&fz.mu);
        return ZINVALIDSTATE;
    }
    s->st = S_CONNECTED;
    q_session(s, ZOO_CONNECTED_STATE, where);
    while ((it = s->missed) != NULL) {
        s->missed = it->next;
        it->next = NULL;
        if (it->path && stale_find(s, it->path))
            list_append(&s->lagged, it); /* this server has not applied that change */
        else
            q_push(s, it);
    }
    while ((it = s->parked) != NULL) {
        s->parked = it->next;
        apply(s, it);
        q_push(s, it);
    }
    pthread_mutex_unlock(&fz.mu);
    return ZOK;
}

/* A connection lost and regained before the client sent what it queued:
   CONNECTING and CONNECTED go before the queued replies, which stay as they
   are (their requests went out on the new connection). */
int
fakezk_bounce(int64_t sid)
{
    struct fsess *s;

    pthread_mutex_lock(&fz.mu);
    s = sess_find(sid);
    if (s == NULL || s->st != S_CONNECTED) {
        pthread_mutex_unlock(&fz.mu);
        return ZINVALIDSTATE;
    }
    q_session(s, ZOO_CONNECTING_STATE, FZ_FRONT);
    q_session(s, ZOO_CONNECTED_STATE, FZ_FRONT);
    pthread_mutex_unlock(&fz.mu);
    return ZOK;
}

/* The server's side of an expiry: the session's watches and its
   ephemerals go (in one transaction), the other sessions' watches fire. */
static void
end_session_locked(struct fsess *s)
{
    struct fznode *n;
    struct fitem *it;
    struct trig *trig = NULL;
    bool again = true;

    watches_drop(s);
    while ((it = s->missed) != NULL) {
        s->missed = it->next;
        item_free(it);
    }
    while ((it = s->lagged) != NULL) {
        s->lagged = it->next;
        item_free(it);
    }
    fz.zxid++;
    while (again) {
        again = false;
        for (n = fz.nodes; n; n = n->next) {
            if (n->st.ephemeralOwner == s->id) {
                char *p = xstrdup(n->path);
                t_delete(p, -1, &trig);
                free(p);
                again = true;
                break;
            }
        }
    }
    trig_fire(trig);
}

static void
expire_locked(struct fsess *s)
{
    struct fitem *it;

    if (s->st == S_CONNECTED)
        disconnect_locked(s, FZ_BACK);
    s->st = S_EXPIRED;
    end_session_locked(s);
    q_session(s, ZOO_EXPIRED_SESSION_STATE, FZ_BACK);
    s->expiry_unseen = true;
    while ((it = s->parked) != NULL) {
        s->parked = it->next;
        it->rc = ZSESSIONEXPIRED;
        q_push(s, it);
    }
}

int
fakezk_expire(int64_t sid)
{
    struct fsess *s;
    int rc = ZOK;

    pthread_mutex_lock(&fz.mu);
    s = sess_find(sid);
    if (s == NULL || s->st == S_EXPIRED || s->st == S_CLOSED)
        rc = ZINVALIDSTATE;
    else
        expire_locked(s);
    pthread_mutex_unlock(&fz.mu);
    return rc;
}

int
fakezk_expire_unnoticed(int64_t sid)
{
    struct fsess *s;
    int rc = ZOK;

    pthread_mutex_lock(&fz.mu);
    s = sess_find(sid);
    if (s == NULL || s->st != S_CONNECTED || s->unnoticed)
        rc = ZINVALIDSTATE;
    else {
        s->unnoticed = true;
        end_session_locked(s);
    }
    pthread_mutex_unlock(&fz.mu);
    return rc;
}

int
fakezk_cut(int64_t sid, bool on)
{
    struct fsess *s;
    struct fitem *it;

    pthread_mutex_lock(&fz.mu);
    s = sess_find(sid);
    if (s == NULL || s->st != S_CONNECTED || s->cut == on) {
        pthread_mutex_unlock(&fz.mu);
        return ZINVALIDSTATE;
    }
    s->cut = on;
    if (!on && s->cut_expired) {
        /* the server learns that the quorum closed the session: it drops
           the connection; the client learns of the expiry at its reconnect */
        while ((it = s->cutq) != NULL) {
            s->cutq = it->next;
            it->next = NULL;
            it->rc = ZCONNECTIONLOSS;
            q_push(s, it);
        }
        expire_locked(s);
    } else if (!on) {
        /* caught up: what it had not heard of, then what waited */
        while ((it = s->lagged) != NULL) {
            s->lagged = it->next;
            it->next = NULL;
            q_push(s, it);
        }
        while ((it = s->cutq) != NULL) {
            s->cutq = it->next;
            it->next = NULL;
            apply(s, it);
            q_push(s, it);
        }
    }
    pthread_mutex_unlock(&fz.mu);
    return ZOK;
}

int
fakezk_cut_expire(int64_t sid)
{
    struct fsess *s;

    pthread_mutex_lock(&fz.mu);
    s = sess_find(sid);
    if (s == NULL || !s->cut || s->cut_expired) {
        pthread_mutex_unlock(&fz.mu);
        return ZINVALIDSTATE;
    }
    s->cut_expired = true;
    end_session_locked(s);
    pthread_mutex_unlock(&fz.mu);
    return ZOK;
}

void
fakezk_connect_on_init(bool sync)
{
    pthread_mutex_lock(&fz.mu);
    fz.connect_sync = sync;
    pthread_mutex_unlock(&fz.mu);
}

int
fakezk_nsessions(void)
{
    int n;
    pthread_mutex_lock(&fz.mu);
    n = fz.nsess;
    pthread_mutex_unlock(&fz.mu);
    return n;
}

int64_t
fakezk_session_id(int n)
{
    struct fsess *s;
    int64_t id = 0;

    pthread_mutex_lock(&fz.mu);
    for (s = fz.sessions; s; s = s->next)
        if (s->n == n)
            id = s->id;
    pthread_mutex_unlock(&fz.mu);
    return id;
}

bool
fakezk_session_connected(int64_t sid)
{
    struct fsess *s;
    bool c;

    pthread_mutex_lock(&fz.mu);
    s = sess_find(sid);
    c = s && s->st == S_CONNECTED;
    pthread_mutex_unlock(&fz.mu);
    return c;
}

/* ---- faults ------------------------------------------------------------------ */

void
fakezk_noread(const char *path)
{
    pthread_mutex_lock(&fz.mu);
    snprintf(fz.noread, sizeof(fz.noread), "%s", path ? path : "");
    pthread_mutex_unlock(&fz.mu);
}

int
fakezk_stale_reads(int64_t sid, const char *path)
{
    struct fsess *s;
    struct fstale *sv;
    struct fznode *n;

    pthread_mutex_lock(&fz.mu);
    if ((s = sess_find(sid)) == NULL ||
        ((sv = stale_find(s, path)) == NULL && s->nstale == FZ_STALE_MAX)) {
        pthread_mutex_unlock(&fz.mu);
        return -1;
    }
    if (sv == NULL) {
        sv = &s->stale[s->nstale++];
        sv->path = xstrdup(path);
    } else {
        free(sv->data);
    }
    sv->data = NULL;
    sv->len = -1;
    if ((n = node_find(path)) != NULL) {
        sv->len = n->data ? n->len : 0;
        sv->data = n->data && n->len > 0 ? xmemdup(n->data, n->len) : NULL;
        sv->st = n->st;
    }
    pthread_mutex_unlock(&fz.mu);
    return 0;
}

void
fakezk_fail_nth(int64_t sid, int n, bool applied, int where)
{
    fakezk_fail_match(sid, NULL, NULL, n, applied, where);
}

void
fakezk_fail_match(int64_t sid, const char *op, const char *path_prefix, int n, bool applied,
                  int where)
{
    pthread_mutex_lock(&fz.mu);
    snprintf(fz.fault_op, sizeof(fz.fault_op), "%s", op ? op : "");
    snprintf(fz.fault_path, sizeof(fz.fault_path), "%s", path_prefix ? path_prefix : "");
    fz.fault_sid = sid;
    fz.fault_n = n > 0 ? n : 0;
    fz.fault_applied = applied;
    fz.fault_where = where;
    fz.fault_expire = false;
    fz.fault_fired = false;
    pthread_mutex_unlock(&fz.mu);
}

void
fakezk_expire_nth(int64_t sid, int n, bool applied)
{
    fakezk_fail_nth(sid, n, applied, FZ_BACK);
    pthread_mutex_lock(&fz.mu);
    fz.fault_expire = true;
    pthread_mutex_unlock(&fz.mu);
}

void
fakezk_park_while_disconnected(bool park)
{
    pthread_mutex_lock(&fz.mu);
    fz.park = park;
    pthread_mutex_unlock(&fz.mu);
}

bool
fakezk_fault_fired(void)
{
    bool f;
    pthread_mutex_lock(&fz.mu);
    f = fz.fault_fired;
    pthread_mutex_unlock(&fz.mu);
    return f;
}

int
fakezk_requests(int64_t sid)
{
    struct fsess *s;
    int n;

    pthread_mutex_lock(&fz.mu);
    s = sid ? sess_find(sid) : NULL;
    n = sid ? (s ? s->nreq : 0) : fz.nreq;
    pthread_mutex_unlock(&fz.mu);
    return n;
}

/* ---- the tree, as another client ------------------------------------------------ */

int
fakezk_create(const char *path, const char *data, int len, int64_t owner)
{
    struct trig *trig = NULL;
    int rc;

    pthread_mutex_lock(&fz.mu);
    ensure_root();
    fz.zxid++;
    rc = t_create(owner, path, data, len, owner ? ZOO_EPHEMERAL : 0, NULL, NULL, &trig);
    if (rc != ZOK)
        fz.zxid--;
    trig_fire(trig);
    pthread_mutex_unlock(&fz.mu);
    return rc;
}

int
fakezk_set(const char *path, const char *data, int len)
{
    struct trig *trig = NULL;
    int rc;

    pthread_mutex_lock(&fz.mu);
    fz.zxid++;
    rc = t_set(path, data, len, -1, NULL, &trig);
    if (rc != ZOK)
        fz.zxid--;
    trig_fire(trig);
    pthread_mutex_unlock(&fz.mu);
    return rc;
}

int
fakezk_delete(const char *path)
{
    struct trig *trig = NULL;
    int rc;

    pthread_mutex_lock(&fz.mu);
    fz.zxid++;
    rc = t_delete(path, -1, &trig);
    if (rc != ZOK)
        fz.zxid--;
    trig_fire(trig);
    pthread_mutex_unlock(&fz.mu);
    return rc;
}

int
fakezk_mkdirs(const char *path)
{
    char buf[1024];
    char *p;
    int rc = ZOK;

    snprintf(buf, sizeof(buf), "%s", path);
    for (p = strchr(buf + 1, '/');; p = strchr(p + 1, '/')) {
        if (p)
            *p = '\0';
        rc = fakezk_create(buf, "", 0, 0);
        if (rc != ZOK && rc != ZNODEEXISTS)
            return rc;
        if (p == NULL)
            break;
        *p = '/';
    }
    return ZOK;
}

int
fakezk_get(const char *path, char *buf, size_t len)
{
    struct fznode *n;
    int rc;

    pthread_mutex_lock(&fz.mu);
    n = node_find(path);
    if (n == NULL) {
        rc = ZNONODE;
    } else {
        rc = n->data ? n->len : -1;
        if (buf && len) {
            size_t c = n->data && n->len > 0 ? (size_t)n->len : 0;
            if (c > len - 1)
                c = len - 1;
            if (c)
                memcpy(buf, n->data, c);
            buf[c] = '\0';
        }
    }
    pthread_mutex_unlock(&fz.mu);
    return rc;
}

bool
fakezk_exists(const char *path)
{
    bool e;
    pthread_mutex_lock(&fz.mu);
    e = node_find(path) != NULL;
    pthread_mutex_unlock(&fz.mu);
    return e;
}

int
fakezk_version(const char *path)
{
    struct fznode *n;
    int v;

    pthread_mutex_lock(&fz.mu);
    n = node_find(path);
    v = n ? n->st.version : -1;
    pthread_mutex_unlock(&fz.mu);
    return v;
}

int64_t
fakezk_owner(const char *path)
{
    struct fznode *n;
    int64_t o;

    pthread_mutex_lock(&fz.mu);
    n = node_find(path);
    o = n ? n->st.ephemeralOwner : -1;
    pthread_mutex_unlock(&fz.mu);
    return o;
}

int
fakezk_count(const char *prefix)
{
    struct fznode *n;
    int c = 0;

    pthread_mutex_lock(&fz.mu);
    for (n = fz.nodes; n; n = n->next)
        if (strncmp(n->path, prefix, strlen(prefix)) == 0)
            c++;
    pthread_mutex_unlock(&fz.mu);
    return c;
}

bool
fakezk_find(const char *prefix, char *buf, size_t len)
{
    struct fznode *n;
    const char *best = NULL;

    pthread_mutex_lock(&fz.mu);
    for (n = fz.nodes; n; n = n->next)
        if (strncmp(n->path, prefix, strlen(prefix)) == 0 &&
            (best == NULL || strcmp(n->path, best) < 0))
            best = n->path;
    if (best)
        snprintf(buf, len, "%s", best);
    pthread_mutex_unlock(&fz.mu);
    return best != NULL;
}

static int
path_cmp(const void *a, const void *b)
{
    return strcmp((*(struct fznode *const *)a)->path, (*(struct fznode *const *)b)->path);
}

const char *
fakezk_dump(void)
{
    static char out[16384];
    struct fznode *n, *v[512];
    size_t o = 0;
    int k = 0, i;

    pthread_mutex_lock(&fz.mu);
    for (n = fz.nodes; n && k < 512; n = n->next)
        v[k++] = n;
    qsort(v, (size_t)k, sizeof(v[0]), path_cmp);
    out[0] = '\0';
    for (i = 0; i < k && o < sizeof(out) - 1; i++) {
        n = v[i];
        o += (size_t)snprintf(out + o, sizeof(out) - o, "%s v%d owner=0x%" PRIx64 " %.*s\n",
                              n->path, n->st.version, (uint64_t)n->st.ephemeralOwner,
                              n->data && n->len > 0 ? (n->len > 120 ? 120 : n->len) : 0,
                              n->data ? n->data : "");
        if (o >= sizeof(out))
            o = sizeof(out) - 1;
    }
    pthread_mutex_unlock(&fz.mu);
    return out;
}

void
fakezk_reset(void)
{
    struct fsess *s;
    struct fitem *it;
    struct fwatch *w;

    pthread_mutex_lock(&fz.dmu);
    pthread_mutex_lock(&fz.mu);
    tree_free(fz.nodes);
    fz.nodes = NULL;
    while ((w = fz.watches) != NULL) {
        fz.watches = w->next;
        free(w->path);
        free(w);
    }
    while ((s = fz.sessions) != NULL) {
        fz.sessions = s->next;
        while ((it = s->q) != NULL) {
            s->q = it->next;
            item_free(it);
        }
        while ((it = s->missed) != NULL) {
            s->missed = it->next;
            item_free(it);
        }
        while ((it = s->lagged) != NULL) {
            s->lagged = it->next;
            item_free(it);
        }
        while ((it = s->parked) != NULL) {
            s->parked = it->next;
            item_free(it);
        }
        while ((it = s->cutq) != NULL) {
            s->cutq = it->next;
            item_free(it);
        }
        stale_clear(s);
        free(s);
    }
    fz.nsess = 0;
    fz.zxid = 0;
    fz.connect_sync = true;
    fz.fault_sid = 0;
    fz.fault_n = 0;
    fz.fault_fired = false;
    fz.fault_expire = false;
    fz.nreq = 0;
    fz.park = false;
    fz.noread[0] = '\0';
    fz.trace = getenv("FAKEZK_TRACE") != NULL;
    ensure_root();
    pthread_mutex_unlock(&fz.mu);
    pthread_mutex_unlock(&fz.dmu);
}

/* ---- the wrapped ZooKeeper client ------------------------------------------------- */

zhandle_t *__wrap_zookeeper_init(const char *host, watcher_fn fn, int recv_timeout,
                                 const clientid_t *clientid, void *context, int flags);
zhandle_t *__wrap_zookeeper_init2(const char *host, watcher_fn fn, int recv_timeout,
                                  const clientid_t *clientid, void *context, int flags,
                                  log_callback_fn log_callback);
int __wrap_zookeeper_close(zhandle_t *zh);
int __wrap_zoo_amulti(zhandle_t *zh, int count, const zoo_op_t *ops, zoo_op_result_t *results,
                      void_completion_t completion, const void *data);
int __wrap_zoo_aget(zhandle_t *zh, const char *path, int watch, data_completion_t completion,
                    const void *data);
int __wrap_zoo_aexists(zhandle_t *zh, const char *path, int watch, stat_completion_t completion,
                       const void *data);
int __wrap_zoo_async(zhandle_t *zh, const char *path, string_completion_t completion,
                     const void *data);
int __wrap_zoo_aget_children(zhandle_t *zh, const char *path, int watch,
                             strings_completion_t completion, const void *data);
int __wrap_zoo_aget_children2(zhandle_t *zh, const char *path, int watch,
                              strings_stat_completion_t completion, const void *data);
int __wrap_zoo_adelete(zhandle_t *zh, const char *path, int version,
                       void_completion_t completion, const void *data);
int __wrap_zoo_acreate(zhandle_t *zh, const char *path, const char *value, int valuelen,
                       const struct ACL_vector *acl, int mode, string_completion_t completion,
                       const void *data);
int __wrap_zoo_aset(zhandle_t *zh, const char *path, const char *buffer, int buflen,
                    int version, stat_completion_t completion, const void *data);
int __wrap_zoo_add_auth(zhandle_t *zh, const char *scheme, const char *cert, int certLen,
                        void_completion_t completion, const void *data);
const clientid_t *__wrap_zoo_client_id(zhandle_t *zh);
int __wrap_zoo_recv_timeout(zhandle_t *zh);
int __wrap_zoo_set_servers_resolution_delay(zhandle_t *zh, int delay_ms);
void __wrap_zoo_set_debug_level(ZooLogLevel level);

zhandle_t *
__wrap_zookeeper_init2(const char *host, watcher_fn fn, int recv_timeout,
                       const clientid_t *clientid, void *context, int flags,
                       log_callback_fn log_callback)
{
    struct fsess *s, **pp;
    bool sync;

    (void)flags;
    (void)log_callback;
    if (host == NULL || *host == '\0') {
        errno = EINVAL;
        return NULL;
    }
    s = xmalloc(sizeof(*s));
    s->fn = fn;
    s->ctx = context;
    s->recv_timeout = recv_timeout;
    pthread_mutex_lock(&fz.mu);
    ensure_root();
    s->n = ++fz.nsess;
    s->id = clientid && clientid->client_id ? clientid->client_id
                                             : (int64_t)0x1000000000LL + s->n;
    s->cid.client_id = s->id;
    s->st = S_CONNECTED;
    for (pp = &fz.sessions; *pp; pp = &(*pp)->next)
        ;
    *pp = s;
    sync = fz.connect_sync;
    if (!sync)
        q_session(s, ZOO_CONNECTED_STATE, FZ_BACK);
    pthread_mutex_unlock(&fz.mu);
    if (sync && fn) {
        /* as if the completion thread had delivered it at once */
        pthread_mutex_lock(&fz.dmu);
        fn((zhandle_t *)s, ZOO_SESSION_EVENT, ZOO_CONNECTED_STATE, "", context);
        pthread_mutex_unlock(&fz.dmu);
    }
    return (zhandle_t *)s;
}

zhandle_t *
__wrap_zookeeper_init(const char *host, watcher_fn fn, int recv_timeout,
                      const clientid_t *clientid, void *context, int flags)
{
    return __wrap_zookeeper_init2(host, fn, recv_timeout, clientid, context, flags, NULL);
}

/* Close: the replies still queued complete with ZCLOSING, as the real client
 * completes them; nothing reaches the handle afterwards. */
int
__wrap_zookeeper_close(zhandle_t *zh)
{
    struct fsess *s = (struct fsess *)zh;
    struct fitem *replies = NULL, *it, **tail = &replies;

    if (s == NULL)
        return ZBADARGUMENTS;
    pthread_mutex_lock(&fz.dmu);
    pthread_mutex_lock(&fz.mu);
    if (s->st != S_EXPIRED && s->st != S_CLOSED) {
        /* a closed session ends: its ephemerals go */
        expire_locked(s);
    }
    s->st = S_CLOSED;
    while ((it = s->q) != NULL) {
        s->q = it->next;
        if (it->kind == FI_REPLY) {
            it->rc = ZCLOSING;
            it->next = NULL;
            *tail = it;
            tail = &it->next;
        } else {
            item_free(it);
        }
    }
    s->qtail = NULL;
    while ((it = s->parked) != NULL) {
        s->parked = it->next;
        it->rc = ZCLOSING;
        it->next = NULL;
        *tail = it;
        tail = &it->next;
    }
    pthread_mutex_unlock(&fz.mu);
    while ((it = replies) != NULL) {
        replies = it->next;
        deliver_item(s, it);
        item_free(it);
    }
    pthread_mutex_unlock(&fz.dmu);
    return ZOK;
}

static struct fitem *
req_item(enum fr_op op, const char *path, void *cb, const void *data)
{
    struct fitem *it = xmalloc(sizeof(*it));
    it->op = op;
    it->path = path ? xstrdup(path) : NULL;
    it->cb = cb;
    it->cbdata = data;
    return it;
}

int
__wrap_zoo_amulti(zhandle_t *zh, int count, const zoo_op_t *ops, zoo_op_result_t *results,
                  void_completion_t completion, const void *data)
{
    struct fitem *it;

    if (count < 0 || count > FZ_MULTI_MAX)
        return ZBADARGUMENTS;
    it = req_item(OP_MULTI, count > 0 ? ops[0].create_op.path : "", (void *)completion, data);
    it->count = count;
    it->ops = ops;
    it->results = results;
    return submit(zh, it);
}

int
__wrap_zoo_aget(zhandle_t *zh, const char *path, int watch, data_completion_t completion,
                const void *data)
{
    struct fitem *it = req_item(OP_GET, path, (void *)completion, data);
    it->watch = watch;
    return submit(zh, it);
}

int
__wrap_zoo_async(zhandle_t *zh, const char *path, string_completion_t completion,
                 const void *data)
{
    return submit(zh, req_item(OP_SYNC, path, (void *)completion, data));
}

int
__wrap_zoo_aexists(zhandle_t *zh, const char *path, int watch, stat_completion_t completion,
                   const void *data)
{
    struct fitem *it = req_item(OP_EXISTS, path, (void *)completion, data);
    it->watch = watch;
    return submit(zh, it);
}

int
__wrap_zoo_aget_children(zhandle_t *zh, const char *path, int watch,
                         strings_completion_t completion, const void *data)
{
    struct fitem *it = req_item(OP_CHILDREN, path, (void *)completion, data);
    it->watch = watch;
    return submit(zh, it);
}

int
__wrap_zoo_aget_children2(zhandle_t *zh, const char *path, int watch,
                          strings_stat_completion_t completion, const void *data)
{
    struct fitem *it = req_item(OP_CHILDREN2, path, (void *)completion, data);
    it->watch = watch;
    return submit(zh, it);
}

int
__wrap_zoo_adelete(zhandle_t *zh, const char *path, int version, void_completion_t completion,
                   const void *data)
{
    struct fitem *it = req_item(OP_DELETE, path, (void *)completion, data);
    it->version = version;
    return submit(zh, it);
}

int
__wrap_zoo_acreate(zhandle_t *zh, const char *path, const char *value, int valuelen,
                   const struct ACL_vector *acl, int mode, string_completion_t completion,
                   const void *data)
{
    struct fitem *it = req_item(OP_CREATE, path, (void *)completion, data);

    (void)acl;
    it->reqdata = xmemdup(value, valuelen);
    it->reqlen = value ? valuelen : -1;
    it->mode = mode;
    return submit(zh, it);
}

int
__wrap_zoo_aset(zhandle_t *zh, const char *path, const char *buffer, int buflen, int version,
                stat_completion_t completion, const void *data)
{
    struct fitem *it = req_item(OP_SET, path, (void *)completion, data);
    it->reqdata = xmemdup(buffer, buflen);
    it->reqlen = buffer ? buflen : -1;
    it->version = version;
    return submit(zh, it);
}

int
__wrap_zoo_add_auth(zhandle_t *zh, const char *scheme, const char *cert, int certLen,
                    void_completion_t completion, const void *data)
{
    struct fsess *s = (struct fsess *)zh;
    int rc;

    (void)scheme;
    (void)cert;
    (void)certLen;
    (void)completion;
    (void)data;
    pthread_mutex_lock(&fz.mu);
    rc = s && (s->st == S_CONNECTED || s->st == S_DISCONNECTED) ? ZOK : ZINVALIDSTATE;
    pthread_mutex_unlock(&fz.mu);
    return rc;
}

const clientid_t *
__wrap_zoo_client_id(zhandle_t *zh)
{
    return &((struct fsess *)zh)->cid;
}

int
__wrap_zoo_recv_timeout(zhandle_t *zh)
{
    return ((struct fsess *)zh)->recv_timeout;
}

int
__wrap_zoo_set_servers_resolution_delay(zhandle_t *zh, int delay_ms)
{
    (void)zh;
    (void)delay_ms;
    return ZOK;
}

void
__wrap_zoo_set_debug_level(ZooLogLevel level)
{
    (void)level;
}
