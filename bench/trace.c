/*
 * trace.c - diagnosis (-L): a microsecond timeline of every ZooKeeper request
 * and watch notification of the in-process nodes, written to the -L log
 * next to the library's own debug lines.
 *
 * zkbench is linked with -Wl,--wrap for the ZooKeeper client functions that
 * libzkelect calls (see bench/Makefile.inc): the calls from libzkelect's
 * objects come here first. With tracing off (no -L) every wrapper is one
 * branch and a tail call. With tracing on, a request's completion is
 * replaced by one that logs the reply and its latency, then calls the
 * library's; the session watcher of each handle is wrapped the same way.
 * Lines, at level 8 in the log:
 *     SEND <op> <path> [port]        library thread, just before the call
 *     REPLY <op> <path> rc=N <ms>    completion thread, before the library sees it
 *     WATCH <type> <path>            completion thread, before the library sees it
 * Nothing in libzkelect changes; only its calls are observed.
 *
 * The tally (trace_tally_*, section 5b): with or without -L, each request
 * and notification of the nodes opened while it is on is counted by node
 * and by what it was ("get+w /elected", "WATCH CHANGED /leader", paths
 * relative to the group), so that a count can be told apart afterwards.
 *
 * -R (diagnosis): every handle libzkelect opens gets
 * zoo_set_servers_resolution_delay(zh, -1). By default the 3.8.0 client
 * resolves its whole host list again (getaddrinfo with AI_ADDRCONFIG, a
 * netlink dump per host) on every turn of its I/O loop; -R measures what
 * that costs (bench/README).
 */
#include "config.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "bench.h"

#define TRACE_LEVEL 8
#define TRACE_HANDLES 64

/* the real functions (GNU ld --wrap) */
zhandle_t *__real_zookeeper_init2(const char *host, watcher_fn fn, int recv_timeout,
    const clientid_t *clientid, void *context, int flags, log_callback_fn log_callback);
int __real_zoo_amulti(zhandle_t *zh, int count, const zoo_op_t *ops, zoo_op_result_t *results,
    void_completion_t completion, const void *data);
int __real_zoo_aget(zhandle_t *zh, const char *path, int watch, data_completion_t completion,
    const void *data);
int __real_zoo_aexists(zhandle_t *zh, const char *path, int watch, stat_completion_t completion,
    const void *data);
int __real_zoo_aget_children2(zhandle_t *zh, const char *path, int watch,
    strings_stat_completion_t completion, const void *data);
int __real_zoo_adelete(zhandle_t *zh, const char *path, int version,
    void_completion_t completion, const void *data);
int __real_zoo_acreate(zhandle_t *zh, const char *path, const char *value, int valuelen,
    const struct ACL_vector *acl, int mode, string_completion_t completion, const void *data);
int __real_zoo_aset(zhandle_t *zh, const char *path, const char *buffer, int buflen,
    int version, stat_completion_t completion, const void *data);

/* the wrappers (declared for -Wmissing-prototypes) */
zhandle_t *__wrap_zookeeper_init2(const char *host, watcher_fn fn, int recv_timeout,
    const clientid_t *clientid, void *context, int flags, log_callback_fn log_callback);
int __wrap_zoo_amulti(zhandle_t *zh, int count, const zoo_op_t *ops, zoo_op_result_t *results,
    void_completion_t completion, const void *data);
int __wrap_zoo_aget(zhandle_t *zh, const char *path, int watch, data_completion_t completion,
    const void *data);
int __wrap_zoo_aexists(zhandle_t *zh, const char *path, int watch, stat_completion_t completion,
    const void *data);
int __wrap_zoo_aget_children2(zhandle_t *zh, const char *path, int watch,
    strings_stat_completion_t completion, const void *data);
int __wrap_zoo_adelete(zhandle_t *zh, const char *path, int version,
    void_completion_t completion, const void *data);
int __wrap_zoo_acreate(zhandle_t *zh, const char *path, const char *value, int valuelen,
    const struct ACL_vector *acl, int mode, string_completion_t completion, const void *data);
int __wrap_zoo_aset(zhandle_t *zh, const char *path, const char *buffer, int buflen,
    int version, stat_completion_t completion, const void *data);

static atomic_int trace_on;
static atomic_int tally_on;                 /* trace_tally_start() */
static atomic_int no_resolve;               /* -R: zoo_set_servers_resolution_delay(-1) */
static pthread_mutex_t map_mu = PTHREAD_MUTEX_INITIALIZER;
static char opening_id[BENCH_IDLEN];        /* node whose handle is being opened */

/* One wrapped session watcher: what to call, and the node it belongs to. */
struct wctx {
    struct wctx *next;
    watcher_fn fn;
    void *ctx;
    zhandle_t *zh;
    char id[BENCH_IDLEN];
};
static struct wctx *wctxs;                  /* all of them (freed at exit) */

/* One traced request. */
struct tctx {
    union {
        void_completion_t v;
        data_completion_t d;
        stat_completion_t s;
        strings_stat_completion_t ss;
        string_completion_t str;
    } cb;
    const void *data;
    uint64_t t0;
    char id[BENCH_IDLEN];
    char what[200];
};

void
trace_enable(void)
{
    atomic_store(&trace_on, 1);
}

void
trace_no_resolve(void)
{
    atomic_store(&no_resolve, 1);
}

bool
trace_no_resolve_on(void)
{
    return atomic_load(&no_resolve) != 0;
}

void
trace_opening(const char *id)
{
    pthread_mutex_lock(&map_mu);
    snprintf(opening_id, sizeof(opening_id), "%s", id ? id : "");
    pthread_mutex_unlock(&map_mu);
}

void
trace_free(void)
{
    struct wctx *w;

    pthread_mutex_lock(&map_mu);
    while ((w = wctxs) != NULL) {
        wctxs = w->next;
        free(w);
    }
    pthread_mutex_unlock(&map_mu);
}

/* The node id of a handle, or NULL when it is not a traced node's. */
static bool
node_of(zhandle_t *zh, char *id)
{
    struct wctx *w;
    bool found = false;

    if (!atomic_load(&trace_on) && !atomic_load(&tally_on))
        return false;
    pthread_mutex_lock(&map_mu);
    for (w = wctxs; w; w = w->next)
        if (w->zh == zh) {
            memcpy(id, w->id, BENCH_IDLEN);
            found = true;
            break;
        }
    pthread_mutex_unlock(&map_mu);
    return found;
}

static void
tline(const char *id, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
tline(const char *id, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    uint64_t t = now_us();

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    bench_log(t, id, TRACE_LEVEL, msg);
}

static int
peer_port(zhandle_t *zh)
{
    struct sockaddr_storage ss;
    socklen_t len = sizeof(ss);

    if (zookeeper_get_connected_host(zh, (struct sockaddr *)&ss, &len) == NULL)
        return 0;
    if (ss.ss_family == AF_INET)
        return ntohs(((struct sockaddr_in *)&ss)->sin_port);
    return 0;
}

static struct tctx *
tctx_new(zhandle_t *zh, const void *data, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static struct tctx *
tctx_new(zhandle_t *zh, const void *data, const char *fmt, ...)
{
    struct tctx *t;
    char id[BENCH_IDLEN];
    va_list ap;

    if (!atomic_load(&trace_on) || !node_of(zh, id) || (t = calloc(1, sizeof(*t))) == NULL)
        return NULL;
    memcpy(t->id, id, sizeof(t->id));
    t->data = data;
    va_start(ap, fmt);
    vsnprintf(t->what, sizeof(t->what), fmt, ap);
    va_end(ap);
    tline(t->id, "SEND %s [%d]", t->what, peer_port(zh));
    t->t0 = now_us();
    return t;
}

static void
reply(struct tctx *t, int rc)
{
    tline(t->id, "REPLY %s rc=%d %.3f ms", t->what, rc, (double)(now_us() - t->t0) / 1000.0);
}

/* ---- the tally ----------------------------------------------------------- */

#define TALLY_MAX 256

static pthread_mutex_t tally_mu = PTHREAD_MUTEX_INITIALIZER;
static struct tally {
    char id[BENCH_IDLEN];
    char what[160];
    unsigned n;
} tallies[TALLY_MAX];
static int ntallies, tally_lost;
static char tally_base[256];

void
trace_tally_start(const char *base)
{
    pthread_mutex_lock(&tally_mu);
    snprintf(tally_base, sizeof(tally_base), "%s", base);
    ntallies = tally_lost = 0;
    pthread_mutex_unlock(&tally_mu);
    atomic_store(&tally_on, 1);
}

void
trace_tally_stop(void)
{
    atomic_store(&tally_on, 0);
}

void
trace_tally_reset(void)
{
    pthread_mutex_lock(&tally_mu);
    ntallies = tally_lost = 0;
    pthread_mutex_unlock(&tally_mu);
}

/* PATH without the group's base path. */
static const char *
tally_rel(const char *path)
{
    size_t n = strlen(tally_base);

    if (path && n && strncmp(path, tally_base, n) == 0 && (path[n] == '/' || !path[n]))
        return path[n] ? path + n : "/";
    return path ? path : "";
}

/* Count one request or notification WHAT of the node of zh (none: not ours). */
static void
tally(zhandle_t *zh, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
tally(zhandle_t *zh, const char *fmt, ...)
{
    char id[BENCH_IDLEN], what[160];
    va_list ap;
    int i;

    if (!atomic_load(&tally_on) || !node_of(zh, id))
        return;
    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    pthread_mutex_lock(&tally_mu);
    for (i = 0; i < ntallies; i++)
        if (strcmp(tallies[i].id, id) == 0 && strcmp(tallies[i].what, what) == 0)
            break;
    if (i == ntallies && ntallies < TALLY_MAX) {
        memcpy(tallies[i].id, id, sizeof(tallies[i].id));
        memcpy(tallies[i].what, what, sizeof(tallies[i].what));
        tallies[i].n = 0;
        ntallies++;
    }
    if (i < ntallies)
        tallies[i].n++;
    else
        tally_lost++;
    pthread_mutex_unlock(&tally_mu);
}

/* Node ID's tally since the last reset, "N what, ..." in buf; "" if none. */
void
trace_tally_list(const char *id, char *buf, size_t len)
{
    size_t off = 0;
    int i;

    if (len == 0)
        return;
    buf[0] = '\0';
    pthread_mutex_lock(&tally_mu);
    for (i = 0; i < ntallies && off < len; i++)
        if (strcmp(tallies[i].id, id) == 0)
            off += (size_t)snprintf(buf + off, len - off, "%s%u %s", off ? ", " : "",
                tallies[i].n, tallies[i].what);
    if (tally_lost && off < len)
        snprintf(buf + off, len - off, "%s(%d not told apart: table full)", off ? ", " : "",
            tally_lost);
    pthread_mutex_unlock(&tally_mu);
}

/* ---- session watcher ----------------------------------------------------- */

static const char *
type_name(int type)
{
    if (type == ZOO_CREATED_EVENT)
        return "CREATED";
    if (type == ZOO_DELETED_EVENT)
        return "DELETED";
    if (type == ZOO_CHANGED_EVENT)
        return "CHANGED";
    if (type == ZOO_CHILD_EVENT)
        return "CHILD";
    if (type == ZOO_SESSION_EVENT)
        return "SESSION";
    return "?";
}

static void
trace_watcher(zhandle_t *zh, int type, int state, const char *path, void *ctx)
{
    struct wctx *w = ctx;

    if (atomic_load(&trace_on))
        tline(w->id, "WATCH %s %s state=%d", type_name(type), path ? path : "", state);
    if (type != ZOO_SESSION_EVENT)
        tally(zh, "WATCH %s %s", type_name(type), tally_rel(path));
    w->fn(zh, type, state, path, w->ctx);
}

zhandle_t *
__wrap_zookeeper_init2(const char *host, watcher_fn fn, int recv_timeout,
    const clientid_t *clientid, void *context, int flags, log_callback_fn log_callback)
{
    struct wctx *w;
    zhandle_t *zh;

    if ((!atomic_load(&trace_on) && !atomic_load(&tally_on)) ||
        (w = calloc(1, sizeof(*w))) == NULL) {
        zh = __real_zookeeper_init2(host, fn, recv_timeout, clientid, context, flags,
            log_callback);
        if (zh && atomic_load(&no_resolve))
            zoo_set_servers_resolution_delay(zh, -1);
        return zh;
    }
    w->fn = fn;
    w->ctx = context;
    pthread_mutex_lock(&map_mu);
    snprintf(w->id, sizeof(w->id), "%s", opening_id[0] ? opening_id : "?");
    pthread_mutex_unlock(&map_mu);
    zh = __real_zookeeper_init2(host, trace_watcher, recv_timeout, clientid, w, flags,
        log_callback);
    if (zh == NULL) {
        free(w);
        return NULL;
    }
    if (atomic_load(&no_resolve))
        zoo_set_servers_resolution_delay(zh, -1);
    pthread_mutex_lock(&map_mu);
    w->zh = zh;
    w->next = wctxs;
    wctxs = w;
    pthread_mutex_unlock(&map_mu);
    return zh;
}

/* ---- requests ------------------------------------------------------------ */

static void
t_void(int rc, const void *data)
{
    struct tctx *t = (struct tctx *)(uintptr_t)data;

    reply(t, rc);
    t->cb.v(rc, t->data);
    free(t);
}

static void
t_data(int rc, const char *value, int len, const struct Stat *st, const void *data)
{
    struct tctx *t = (struct tctx *)(uintptr_t)data;

    reply(t, rc);
    t->cb.d(rc, value, len, st, t->data);
    free(t);
}

static void
t_stat(int rc, const struct Stat *st, const void *data)
{
    struct tctx *t = (struct tctx *)(uintptr_t)data;

    reply(t, rc);
    t->cb.s(rc, st, t->data);
    free(t);
}

static void
t_strings(int rc, const struct String_vector *sv, const struct Stat *st, const void *data)
{
    struct tctx *t = (struct tctx *)(uintptr_t)data;

    reply(t, rc);
    t->cb.ss(rc, sv, st, t->data);
    free(t);
}

static void
t_string(int rc, const char *value, const void *data)
{
    struct tctx *t = (struct tctx *)(uintptr_t)data;

    reply(t, rc);
    t->cb.str(rc, value, t->data);
    free(t);
}

static const char *
op_name(int type)
{
    if (type == ZOO_CREATE_OP)
        return "create";
    if (type == ZOO_DELETE_OP)
        return "delete";
    if (type == ZOO_SETDATA_OP)
        return "set";
    if (type == ZOO_CHECK_OP)
        return "check";
    return "?";
}

static const char *
op_full_path(const zoo_op_t *op)
{
    return op->type == ZOO_CREATE_OP ? op->create_op.path :
        op->type == ZOO_DELETE_OP ? op->delete_op.path :
        op->type == ZOO_SETDATA_OP ? op->set_op.path :
        op->type == ZOO_CHECK_OP ? op->check_op.path : NULL;
}

static const char *
op_path(const zoo_op_t *op)
{
    const char *p = op_full_path(op);
    const char *s;

    /* the last two components are enough to tell the group's znodes apart */
    if (p == NULL)
        return "?";
    s = strrchr(p, '/');
    while (s && s > p && s[-1] != '/')
        s--;
    return s && s > p ? s - 1 : p;
}

int
__wrap_zoo_amulti(zhandle_t *zh, int count, const zoo_op_t *ops, zoo_op_result_t *results,
    void_completion_t completion, const void *data)
{
    struct tctx *t;
    char what[180];
    size_t off = 0;
    int i, rc;

    if (atomic_load(&tally_on)) {
        what[0] = '\0';
        for (i = 0; i < count && off < sizeof(what); i++)
            off += (size_t)snprintf(what + off, sizeof(what) - off, "%s%s:%s", i ? "," : "",
                op_name(ops[i].type), tally_rel(op_full_path(&ops[i])));
        tally(zh, "multi(%s)", what);
        off = 0;
    }
    if (!atomic_load(&trace_on))
        return __real_zoo_amulti(zh, count, ops, results, completion, data);
    what[0] = '\0';
    for (i = 0; i < count && off < sizeof(what); i++)
        off += (size_t)snprintf(what + off, sizeof(what) - off, "%s%s:%s", i ? "," : "",
            op_name(ops[i].type), op_path(&ops[i]));
    if ((t = tctx_new(zh, data, "multi(%s)", what)) == NULL)
        return __real_zoo_amulti(zh, count, ops, results, completion, data);
    t->cb.v = completion;
    rc = __real_zoo_amulti(zh, count, ops, results, t_void, t);
    if (rc != ZOK)
        free(t);
    return rc;
}

int
__wrap_zoo_aget(zhandle_t *zh, const char *path, int watch, data_completion_t completion,
    const void *data)
{
    struct tctx *t;
    int rc;

    tally(zh, "get%s %s", watch ? "+w" : "", tally_rel(path));
    if (!atomic_load(&trace_on) || (t = tctx_new(zh, data, "get%s %s", watch ? "+w" : "",
        path)) == NULL)
        return __real_zoo_aget(zh, path, watch, completion, data);
    t->cb.d = completion;
    rc = __real_zoo_aget(zh, path, watch, t_data, t);
    if (rc != ZOK)
        free(t);
    return rc;
}

int
__wrap_zoo_aexists(zhandle_t *zh, const char *path, int watch, stat_completion_t completion,
    const void *data)
{
    struct tctx *t;
    int rc;

    tally(zh, "exists%s %s", watch ? "+w" : "", tally_rel(path));
    if (!atomic_load(&trace_on) || (t = tctx_new(zh, data, "exists%s %s", watch ? "+w" : "",
        path)) == NULL)
        return __real_zoo_aexists(zh, path, watch, completion, data);
    t->cb.s = completion;
    rc = __real_zoo_aexists(zh, path, watch, t_stat, t);
    if (rc != ZOK)
        free(t);
    return rc;
}

int
__wrap_zoo_aget_children2(zhandle_t *zh, const char *path, int watch,
    strings_stat_completion_t completion, const void *data)
{
    struct tctx *t;
    int rc;

    tally(zh, "children%s %s", watch ? "+w" : "", tally_rel(path));
    if (!atomic_load(&trace_on) || (t = tctx_new(zh, data, "children%s %s",
        watch ? "+w" : "", path)) == NULL)
        return __real_zoo_aget_children2(zh, path, watch, completion, data);
    t->cb.ss = completion;
    rc = __real_zoo_aget_children2(zh, path, watch, t_strings, t);
    if (rc != ZOK)
        free(t);
    return rc;
}

int
__wrap_zoo_adelete(zhandle_t *zh, const char *path, int version, void_completion_t completion,
    const void *data)
{
    struct tctx *t;
    int rc;

    tally(zh, "delete %s", tally_rel(path));
    if (!atomic_load(&trace_on) || (t = tctx_new(zh, data, "delete %s", path)) == NULL)
        return __real_zoo_adelete(zh, path, version, completion, data);
    t->cb.v = completion;
    rc = __real_zoo_adelete(zh, path, version, t_void, t);
    if (rc != ZOK)
        free(t);
    return rc;
}

int
__wrap_zoo_acreate(zhandle_t *zh, const char *path, const char *value, int valuelen,
    const struct ACL_vector *acl, int mode, string_completion_t completion, const void *data)
{
    struct tctx *t;
    int rc;

    tally(zh, "create %s", tally_rel(path));
    if (!atomic_load(&trace_on) || (t = tctx_new(zh, data, "create %s", path)) == NULL)
        return __real_zoo_acreate(zh, path, value, valuelen, acl, mode, completion, data);
    t->cb.str = completion;
    rc = __real_zoo_acreate(zh, path, value, valuelen, acl, mode, t_string, t);
    if (rc != ZOK)
        free(t);
    return rc;
}

int
__wrap_zoo_aset(zhandle_t *zh, const char *path, const char *buffer, int buflen, int version,
    stat_completion_t completion, const void *data)
{
    struct tctx *t;
    int rc;

    tally(zh, "set %s", tally_rel(path));
    if (!atomic_load(&trace_on) || (t = tctx_new(zh, data, "set %s", path)) == NULL)
        return __real_zoo_aset(zh, path, buffer, buflen, version, completion, data);
    t->cb.s = completion;
    rc = __real_zoo_aset(zh, path, buffer, buflen, version, t_stat, t);
    if (rc != ZOK)
        free(t);
    return rc;
}
