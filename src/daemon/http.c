/*
 * http.c - zkelectd's HTTP endpoints (a small HTTP/1.1 responder, one thread):
 *
 *   GET /leader    200 while this node is a READY leader (in any slot of a
 *                  group with N active leaders), else 503
 *   GET /health    200 while the session is connected and the node joined
 *   GET /status    this node's view, JSON
 *   GET /metrics   Prometheus text format 0.0.4
 *
 * Other paths: 404; other methods than GET and HEAD: 405. Bodies are built
 * from a snapshot of the library's view (zkelect_get_leader, get_leaders,
 * get_stats) and
 * the daemon's counters; nothing here changes state, except remembering
 * that the session was seen connected (contact time).
 */
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cJSON.h>

#include "log.h"
#include "proc.h"
#include "statefile.h"
#include "zkelectd.h"

#define HTTP_CONN_MAX     64            /* concurrent connections */
#define HTTP_TIMEOUT_S    10            /* a request head must arrive within this */
#define HTTP_HEAD_MAX     8192          /* bytes of request head */
#define HTTP_SEND_TIMEOUT_MS 2000       /* to write a response */

struct hconn;

/* A snapshot of everything an endpoint reports. */
struct view {
    bool have_group;                    /* the group is open */
    bool connected;                     /* the session is connected */
    int64_t session_id;                 /* its id, 0 none */
    struct zkelect_leader l;            /* the leader as this node sees it */
    bool have_leader;                   /* l.id is set */
    struct zkelect_stats st;            /* the group's counters */
    struct zkelect_group_state gs;      /* its state machine (size set) */
    struct zkelect_slot slots[ZKD_SLOTS_MAX]; /* every slot (N = config leaders) */
    int nslots;                         /* N: entries in slots (1 at least) */
    int ready_slot;                     /* the slot this node is READY in, -1 none */
    bool is_leader;                     /* this node is a READY leader (ready_slot) */
    const char *role;                   /* static: see view_role() */
    double since_contact_s;             /* seconds since ZooKeeper was last heard */
    double uptime_s;                    /* seconds since start */
    /* the daemon's own state */
    bool no_eligible, healthy, health_configured;
    int health_consecutive, priority, eligible;
    char tags[ZKD_CONFIG_TAGS_MAX][ZKD_CONFIG_NAME_MAX + 1]; /* the live tags */
    int ntags;
    uint64_t health_checks, health_failed, notify_dropped;
    bool command_configured;            /* [leader] command set */
    long command_pid;                   /* 0 none */
    const char *command_state;          /* static, or NULL */
    uint64_t command_starts, command_exits;
    uint64_t hook_runs[ZKD_HOOK__COUNT], hook_failures[ZKD_HOOK__COUNT];
};

static const char *const http_hook_names[ZKD_HOOK__COUNT] = {
    "takeover", "stepdown", "notify",
};

/*
 * This node's role: "leader" (the READY leader), "takeover" (its leader
 * znode is PROGRESS: the takeover hook runs), "leaving" (its leader znode is
 * still there but it stopped serving: suspended or stepping down),
 * "candidate" (joined, not leading), "none" (not joined).
 */
static const char *
view_role(const struct zkd *d, const struct view *v)
{
    const struct zkelect_slot *s;
    bool mine = false;
    int k;

    if (v->is_leader)
        return "leader";
    /* in any slot: a node holds one at most */
    for (k = 0; k < v->nslots; k++) {
        s = &v->slots[k];
        if (strcmp(s->id, d->boot.node_id) != 0)
            continue;
        if (v->connected && s->status == ZKELECT_STATUS_PROGRESS &&
            strcmp(s->elected, d->boot.node_id) == 0)
            return "takeover";
        mine = true;
    }
    if (mine)
        return "leaving";
    return v->st.registered ? "candidate" : "none";
}

/*
 * The leader as the library says it. A node that does not follow the leader
 * (events_follow) has the library read it from ZooKeeper: at most once a
 * second here, so that a load balancer probing every node costs a bounded
 * load (an answer is then at most that old). A node that leads, takes over
 * or steps down follows: its answer is always fresh.
 */
#define HTTP_LEADER_CACHE_MS 1000
static pthread_mutex_t leader_mu = PTHREAD_MUTEX_INITIALIZER;
static struct {
    uint64_t at_ms;                     /* CLOCK_MONOTONIC of the read, 0 none */
    bool have_leader;
    struct zkelect_leader l;
    struct zkelect_slot slots[ZKD_SLOTS_MAX];
    int nslots;
} leader_cache;

static void
view_leader(zkelect_group_t *g, struct view *v, uint64_t now)
{
    bool cached = false;

    if (zkelect_group_slot(g) < 0) {
        pthread_mutex_lock(&leader_mu);
        if (leader_cache.at_ms != 0 && now - leader_cache.at_ms < HTTP_LEADER_CACHE_MS) {
            v->have_leader = leader_cache.have_leader;
            v->l = leader_cache.l;
            memcpy(v->slots, leader_cache.slots, sizeof(v->slots));
            v->nslots = leader_cache.nslots;
            cached = true;
        }
        if (cached) {
            /* not leading now (zkelect_group_slot): never "this node",
               whatever the read a moment ago said */
            int i;
            v->l.is_self = 0;
            for (i = 0; i < ZKD_SLOTS_MAX; i++)
                v->slots[i].is_self = 0;
        }
        pthread_mutex_unlock(&leader_mu);
        if (cached)
            return;
    }
    v->have_leader = zkelect_get_leader(g, &v->l) == 0;
    v->nslots = zkelect_get_leaders(g, v->slots, ZKD_SLOTS_MAX);
    pthread_mutex_lock(&leader_mu);
    leader_cache.at_ms = now;
    leader_cache.have_leader = v->have_leader;
    leader_cache.l = v->l;
    memcpy(leader_cache.slots, v->slots, sizeof(v->slots));
    leader_cache.nslots = v->nslots;
    pthread_mutex_unlock(&leader_mu);
}

/* LEADER: the leader too (view_leader; /health needs none of it). */
static void
view_get(struct zkd *d, struct view *v, bool leader)
{
    zkelect_group_t *g;
    zkelect_t *h;
    uint64_t now = proc_now_ms(), contact;
    int i;

    memset(v, 0, sizeof(*v));
    pthread_mutex_lock(&d->mu);
    h = d->h;
    g = d->g;
    pthread_mutex_unlock(&d->mu);

    /* library calls without d->mu (lock order: library, then d->mu); h and
       g stay valid: the server is stopped before they are closed */
    if (h != NULL) {
        v->connected = zkelect_connected(h) != 0;
        v->session_id = zkelect_session_id(h);
    }
    if (g != NULL) {
        v->have_group = true;
        if (leader)
            view_leader(g, v, now);
        (void)zkelect_get_stats(g, &v->st);
        v->gs.size = sizeof(v->gs);
        (void)zkelect_get_state(g, &v->gs);
    }
    if (v->nslots < 1 || v->nslots > ZKD_SLOTS_MAX) {
        /* no group yet (or a library error): slot 0 from get_leader */
        memset(v->slots, 0, sizeof(v->slots));
        v->nslots = 1;
        snprintf(v->slots[0].id, sizeof(v->slots[0].id), "%s", v->l.id);
        v->slots[0].status = v->l.status;
        v->slots[0].epoch = v->l.epoch;
        v->slots[0].is_self = v->l.is_self;
    }
    v->ready_slot = -1;
    for (i = 0; i < v->nslots; i++)
        if (v->slots[i].is_self && v->slots[i].status == ZKELECT_STATUS_READY)
            v->ready_slot = i;
    /* slot 0 as zkelect_get_leader() says it, as before slots */
    if (v->have_leader && v->l.is_self && v->l.status == ZKELECT_STATUS_READY)
        v->ready_slot = 0;
    v->is_leader = v->ready_slot >= 0;

    pthread_mutex_lock(&d->mu);
    if (v->connected)
        d->contact_ms = now;
    contact = d->contact_ms > v->st.last_contact_mono_ms ? d->contact_ms :
        v->st.last_contact_mono_ms;
    if (contact == 0)
        contact = d->start_ms;
    v->no_eligible = d->no_eligible;
    v->healthy = d->healthy;
    v->health_configured = d->live->health_command != NULL;
    v->health_consecutive = d->health_consecutive;
    v->health_checks = d->health_checks;
    v->health_failed = d->health_failed;
    v->notify_dropped = d->notify_dropped;
    v->command_configured = d->live->leader_command != NULL;
    v->command_pid = (long)d->command_pid;
    v->command_state = d->command_state;
    v->command_starts = d->command_starts;
    v->command_exits = d->command_exits;
    v->priority = d->live->priority;
    v->eligible = d->live->eligible;
    v->ntags = d->live->ntags < ZKD_CONFIG_TAGS_MAX ? d->live->ntags : ZKD_CONFIG_TAGS_MAX;
    for (i = 0; i < v->ntags; i++)
        snprintf(v->tags[i], sizeof(v->tags[i]), "%s", d->live->tags[i]);
    for (i = 0; i < ZKD_HOOK__COUNT; i++) {
        v->hook_runs[i] = d->hook_runs[i];
        v->hook_failures[i] = d->hook_failures[i];
    }
    pthread_mutex_unlock(&d->mu);
    v->since_contact_s = now > contact ? (double)(now - contact) / 1000.0 : 0.0;
    v->uptime_s = (double)(now - d->start_ms) / 1000.0;
    v->role = view_role(d, v);
}

/* ------------------------------------------------------------------------ */
/* Bodies                                                                   */
/* ------------------------------------------------------------------------ */

/* cJSON text plus a newline, malloc'ed; NULL when out of memory. */
static char *
json_body(cJSON *o)
{
    char *s, *b = NULL;
    size_t n;

    if (o == NULL)
        return NULL;
    if ((s = cJSON_PrintUnformatted(o)) != NULL) {
        n = strlen(s);
        if ((b = malloc(n + 2)) != NULL) {
            memcpy(b, s, n);
            memcpy(b + n, "\n", 2);
        }
        cJSON_free(s);
    }
    cJSON_Delete(o);
    return b;
}

/* Add a string or JSON null when s is "" or NULL. */
static void
json_str(cJSON *o, const char *name, const char *s)
{
    if (s != NULL && *s != '\0')
        cJSON_AddStringToObject(o, name, s);
    else
        cJSON_AddNullToObject(o, name);
}

static char *
body_leader(struct zkd *d, const struct view *v)
{
    cJSON *o = cJSON_CreateObject();

    if (o == NULL)
        return NULL;
    cJSON_AddStringToObject(o, "node", d->boot.node_id);
    cJSON_AddBoolToObject(o, "leader", v->is_leader);
    json_str(o, "id", v->l.id);
    cJSON_AddStringToObject(o, "status", zkelect_status_name(v->l.status));
    cJSON_AddNumberToObject(o, "epoch", (double)v->l.epoch);
    json_str(o, "site", v->l.site);
    /* the fields above are slot 0's (its leader): these say which slot, if
       any, makes this node a leader */
    cJSON_AddNumberToObject(o, "leaders", v->nslots);
    if (v->ready_slot >= 0) {
        cJSON_AddNumberToObject(o, "slot", v->ready_slot);
        cJSON_AddNumberToObject(o, "slot_epoch", (double)v->slots[v->ready_slot].epoch);
    } else {
        cJSON_AddNullToObject(o, "slot");
        cJSON_AddNullToObject(o, "slot_epoch");
    }
    return json_body(o);
}

static char *
body_health(struct zkd *d, const struct view *v)
{
    cJSON *o = cJSON_CreateObject();

    if (o == NULL)
        return NULL;
    cJSON_AddStringToObject(o, "node", d->boot.node_id);
    cJSON_AddBoolToObject(o, "connected", v->connected);
    cJSON_AddBoolToObject(o, "registered", v->st.registered != 0);
    cJSON_AddBoolToObject(o, "healthy", v->healthy);
    return json_body(o);
}

static char *
body_status(struct zkd *d, const struct view *v)
{
    cJSON *o = cJSON_CreateObject(), *n, *s, *ld, *el, *hc, *cmd, *c, *hk, *x, *tags, *sl;
    char sid[32];
    int i;

    if (o == NULL)
        return NULL;
    /* "leader" first: scripts grep for "leader":{"id":"X","status":"READY" */
    ld = cJSON_AddObjectToObject(o, "leader");
    if (ld != NULL) {
        json_str(ld, "id", v->l.id);
        cJSON_AddStringToObject(ld, "status", zkelect_status_name(v->l.status));
        cJSON_AddNumberToObject(ld, "epoch", (double)v->l.epoch);
        json_str(ld, "site", v->l.site);
        cJSON_AddNumberToObject(ld, "priority", v->l.priority);
    }
    n = cJSON_AddObjectToObject(o, "node");
    if (n != NULL) {
        cJSON_AddStringToObject(n, "id", d->boot.node_id);
        cJSON_AddStringToObject(n, "site", d->boot.site);
        cJSON_AddNumberToObject(n, "priority", v->priority);
        cJSON_AddBoolToObject(n, "eligible", v->eligible != 0);
        if ((tags = cJSON_AddArrayToObject(n, "tags")) != NULL)
            for (i = 0; i < v->ntags; i++)
                cJSON_AddItemToArray(tags, cJSON_CreateString(v->tags[i]));
        cJSON_AddNumberToObject(n, "pid", (double)getpid());
        cJSON_AddStringToObject(n, "version", zkelect_version());
    }
    cJSON_AddStringToObject(o, "group", d->boot.path);
    cJSON_AddStringToObject(o, "role", v->role);
    cJSON_AddBoolToObject(o, "registered", v->st.registered != 0);
    cJSON_AddBoolToObject(o, "elector", v->st.is_elector != 0);
    cJSON_AddBoolToObject(o, "is_leader", v->is_leader);
    el = cJSON_AddObjectToObject(o, "elected");
    if (el != NULL) {
        json_str(el, "id", v->l.elected);
        cJSON_AddNumberToObject(el, "epoch", (double)v->l.elected_epoch);
        json_str(el, "previous", v->l.previous);
        json_str(el, "reason", v->l.reason);
    }
    cJSON_AddBoolToObject(o, "no_eligible", v->no_eligible);
    /* N active leaders: "leader" and "elected" above are slot 0 */
    cJSON_AddNumberToObject(o, "leaders", v->nslots);
    if ((sl = cJSON_AddArrayToObject(o, "slots")) != NULL) {
        for (i = 0; i < v->nslots; i++) {
            if ((x = cJSON_CreateObject()) == NULL)
                break;
            cJSON_AddItemToArray(sl, x);
            cJSON_AddNumberToObject(x, "slot", i);
            json_str(x, "leader", v->slots[i].id);
            cJSON_AddStringToObject(x, "status", zkelect_status_name(v->slots[i].status));
            cJSON_AddNumberToObject(x, "epoch", (double)v->slots[i].epoch);
            cJSON_AddBoolToObject(x, "self", strcmp(v->slots[i].id, d->boot.node_id) == 0);
            json_str(x, "elected", v->slots[i].elected);
            cJSON_AddNumberToObject(x, "elected_epoch", (double)v->slots[i].elected_epoch);
        }
    }
    s = cJSON_AddObjectToObject(o, "session");
    if (s != NULL) {
        cJSON_AddBoolToObject(s, "connected", v->connected);
        snprintf(sid, sizeof(sid), "0x%" PRIx64, (uint64_t)v->session_id);
        cJSON_AddStringToObject(s, "id", sid);
        cJSON_AddNumberToObject(s, "seconds_since_contact", v->since_contact_s);
    }
    hc = cJSON_AddObjectToObject(o, "health");
    if (hc != NULL) {
        cJSON_AddBoolToObject(hc, "configured", v->health_configured);
        cJSON_AddBoolToObject(hc, "healthy", v->healthy);
        cJSON_AddNumberToObject(hc, "consecutive_failures", v->health_consecutive);
        cJSON_AddNumberToObject(hc, "checks", (double)v->health_checks);
        cJSON_AddNumberToObject(hc, "failed", (double)v->health_failed);
    }
    cmd = cJSON_AddObjectToObject(o, "command");
    if (cmd != NULL) {
        cJSON_AddBoolToObject(cmd, "configured", v->command_configured);
        if (v->command_pid != 0)
            cJSON_AddNumberToObject(cmd, "pid", (double)v->command_pid);
        else
            cJSON_AddNullToObject(cmd, "pid");
        cJSON_AddStringToObject(cmd, "state", v->command_state != NULL ?
            v->command_state : "none");
        cJSON_AddNumberToObject(cmd, "starts", (double)v->command_starts);
        cJSON_AddNumberToObject(cmd, "exits", (double)v->command_exits);
    }
    c = cJSON_AddObjectToObject(o, "counters");
    if (c != NULL) {
        cJSON_AddNumberToObject(c, "elections", (double)v->st.decisions);
        cJSON_AddNumberToObject(c, "transitions", (double)v->st.transitions);
        cJSON_AddNumberToObject(c, "watchdog_firings", (double)v->st.watchdog_firings);
        cJSON_AddNumberToObject(c, "stalled_requests", (double)v->st.stalled_requests);
        cJSON_AddNumberToObject(c, "notify_dropped", (double)v->notify_dropped);
        cJSON_AddNumberToObject(c, "state_write_failures",
            (double)state_write_failures());
        hk = cJSON_AddObjectToObject(c, "hooks");
        for (i = 0; hk != NULL && i < ZKD_HOOK__COUNT; i++) {
            if ((x = cJSON_AddObjectToObject(hk, http_hook_names[i])) == NULL)
                continue;
            cJSON_AddNumberToObject(x, "runs", (double)v->hook_runs[i]);
            cJSON_AddNumberToObject(x, "failures", (double)v->hook_failures[i]);
        }
    }
    cJSON_AddNumberToObject(o, "uptime_seconds", v->uptime_s);
    return json_body(o);
}

__attribute__((format(printf, 5, 6)))
static void
metric(FILE *f, const char *name, const char *type, const char *help,
    const char *fmt, ...)
{
    va_list ap;

    fprintf(f, "# HELP %s %s\n# TYPE %s %s\n%s ", name, help, name, type, name);
    va_start(ap, fmt);
    vfprintf(f, fmt, ap);
    va_end(ap);
    fputc('\n', f);
}

static char *
body_metrics(struct zkd *d, const struct view *v)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f;
    int i;

    (void)d;
    if ((f = open_memstream(&buf, &len)) == NULL)
        return NULL;
    metric(f, "zkelect_is_leader", "gauge",
        "1 while this node is a READY leader of its group (in any slot), else 0.",
        "%d", v->is_leader ? 1 : 0);
    metric(f, "zkelect_epoch", "gauge",
        "Epoch of the group's current leader as this node sees it (0: no leader).",
        "%llu", (unsigned long long)v->l.epoch);
    metric(f, "zkelect_leaders", "gauge",
        "N, the group's active slots (config leaders) in the decision this node sees.",
        "%d", v->nslots);
    fputs("# HELP zkelect_slot_ready 1 while the slot's leader znode is READY (whoever "
        "holds it), else 0.\n# TYPE zkelect_slot_ready gauge\n", f);
    for (i = 0; i < v->nslots; i++)
        fprintf(f, "zkelect_slot_ready{slot=\"%d\"} %d\n", i,
            v->slots[i].id[0] != '\0' && v->slots[i].status == ZKELECT_STATUS_READY);
    fputs("# HELP zkelect_slot_epoch Epoch of the slot's leader znode, its fencing "
        "token (0: none).\n# TYPE zkelect_slot_epoch gauge\n", f);
    for (i = 0; i < v->nslots; i++)
        fprintf(f, "zkelect_slot_epoch{slot=\"%d\"} %llu\n", i,
            (unsigned long long)v->slots[i].epoch);
    fputs("# HELP zkelect_slot_is_leader 1 while this node is the slot's READY leader, "
        "else 0.\n# TYPE zkelect_slot_is_leader gauge\n", f);
    for (i = 0; i < v->nslots; i++)
        fprintf(f, "zkelect_slot_is_leader{slot=\"%d\"} %d\n", i, v->ready_slot == i);
    metric(f, "zkelect_elections_total", "counter",
        "Decisions this node wrote as the elector.",
        "%llu", (unsigned long long)v->st.decisions);
    metric(f, "zkelect_transitions_total", "counter",
        "Times this node became the READY leader.",
        "%llu", (unsigned long long)v->st.transitions);
    metric(f, "zkelect_watchdog_firings_total", "counter",
        "Transition watchdog firings on this node as the elector.",
        "%llu", (unsigned long long)v->st.watchdog_firings);
    metric(f, "zkelect_session_connected", "gauge",
        "1 while the ZooKeeper session is connected, else 0.",
        "%d", v->connected ? 1 : 0);
    metric(f, "zkelect_seconds_since_zookeeper_contact", "gauge",
        "Seconds since this node last heard from ZooKeeper (0 while connected).",
        "%.3f", v->since_contact_s);
    metric(f, "zkelect_stalled_requests_total", "counter",
        "ZooKeeper requests that stalled and were nudged.",
        "%llu", (unsigned long long)v->st.stalled_requests);
    metric(f, "zkelect_stuck_total", "counter",
        "Times the group was found stuck (nothing outstanding, no way out: a bug) and re-driven.",
        "%llu", (unsigned long long)v->gs.stuck);
    metric(f, "zkelect_illegal_transitions_total", "counter",
        "State transitions outside the state machine's table (a bug).",
        "%llu", (unsigned long long)v->gs.illegal_transitions);
    metric(f, "zkelect_library_gaps_total", "counter",
        "Times the library thread fell over a second behind (timers then waited for a fresh view).",
        "%llu", (unsigned long long)v->gs.gaps);
    metric(f, "zkelect_fences_total", "counter",
        "Self-fences: steps down after fence_ms with nothing heard from ZooKeeper.",
        "%llu", (unsigned long long)v->gs.fences);
    metric(f, "zkelect_fence_ms", "gauge",
        "The self-fence delay in force (0: off).",
        "%d", v->gs.fence_ms);
    metric(f, "zkelect_unheard_ms", "gauge",
        "Time since the send time of the newest request ZooKeeper answered.",
        "%llu", (unsigned long long)v->gs.unheard_ms);
    metric(f, "zkelect_no_eligible", "gauge",
        "1 while the last decision of this node as elector found no eligible node.",
        "%d", v->no_eligible ? 1 : 0);
    metric(f, "zkelect_registered", "gauge",
        "1 while this node is a registered candidate, else 0.",
        "%d", v->st.registered ? 1 : 0);
    metric(f, "zkelect_is_elector", "gauge",
        "1 while this node is the group's elector, else 0.",
        "%d", v->st.is_elector ? 1 : 0);
    metric(f, "zkelect_healthy", "gauge",
        "1 while the health check passes (or none is configured), else 0.",
        "%d", v->healthy ? 1 : 0);
    metric(f, "zkelect_health_checks_failed_total", "counter",
        "Health checks that failed.",
        "%llu", (unsigned long long)v->health_failed);
    fputs("# HELP zkelect_hook_runs_total Hook runs, by hook.\n"
        "# TYPE zkelect_hook_runs_total counter\n", f);
    for (i = 0; i < ZKD_HOOK__COUNT; i++)
        fprintf(f, "zkelect_hook_runs_total{hook=\"%s\"} %llu\n", http_hook_names[i],
            (unsigned long long)v->hook_runs[i]);
    fputs("# HELP zkelect_hook_failures_total Hook runs that failed or timed out, "
        "by hook.\n# TYPE zkelect_hook_failures_total counter\n", f);
    for (i = 0; i < ZKD_HOOK__COUNT; i++)
        fprintf(f, "zkelect_hook_failures_total{hook=\"%s\"} %llu\n", http_hook_names[i],
            (unsigned long long)v->hook_failures[i]);
    metric(f, "zkelect_command_running", "gauge",
        "1 while the [leader] command runs (started, not reaped), else 0.",
        "%d", v->command_pid != 0 ? 1 : 0);
    metric(f, "zkelect_command_exits_total", "counter",
        "Times the [leader] command ended by itself while this node led.",
        "%llu", (unsigned long long)v->command_exits);
    metric(f, "zkelect_notify_dropped_total", "counter",
        "Notify hook runs dropped because the queue was full.",
        "%llu", (unsigned long long)v->notify_dropped);
    metric(f, "zkelect_state_write_failures_total", "counter",
        "State file writes that failed ([node] state_dir).",
        "%llu", (unsigned long long)state_write_failures());
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* ------------------------------------------------------------------------ */
/* The server                                                               */
/* ------------------------------------------------------------------------ */

/*
 * A small HTTP/1.1 responder of its own: one thread polls the listening
 * socket and up to HTTP_CONN_MAX connections, reads a request head (at most
 * HTTP_HEAD_MAX bytes, within HTTP_TIMEOUT_S), answers it and closes the
 * connection. It replaced libmicrohttpd, whose Debian build loads GnuTLS and
 * eight more libraries that a daemon without TLS never uses (half of an idle
 * zkelectd's resident memory: bench/README, section 7).
 */
struct hconn {
    int fd;                             /* -1: free slot */
    size_t len;                         /* bytes of head read */
    uint64_t deadline_ms;               /* the request must be complete by then */
    char head[HTTP_HEAD_MAX + 1];
};

struct zkd_http {
    int lfd;                            /* listening socket */
    int wake[2];                        /* http_stop() writes to wake[1] */
    pthread_t thread;
    struct hconn conns[HTTP_CONN_MAX];
};

static const char *
http_reason(int status)
{
    switch (status) {
    case 200: return "OK";
    case 400: return "Bad Request";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 503: return "Service Unavailable";
    default: return "Unknown";
    }
}

/* Write all of buf, giving up after HTTP_SEND_TIMEOUT_MS in total. */
static void
http_send_all(int fd, const char *buf, size_t len)
{
    uint64_t until = proc_now_ms() + HTTP_SEND_TIMEOUT_MS, now;
    struct pollfd pfd = {fd, POLLOUT, 0};
    ssize_t n;

    while (len > 0) {
        n = send(fd, buf, len, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n > 0) {
            buf += n;
            len -= (size_t)n;
            continue;
        }
        if (n == -1 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
            return;
        now = proc_now_ms();
        if (now >= until || poll(&pfd, 1, (int)(until - now)) == -1)
            return;
    }
}

/* Send the response (body owned, freed here; NULL = out of memory). */
static void
http_reply(int fd, bool head_only, int status, const char *ctype, char *body, bool allow)
{
    static const char oom[] = "out of memory\n";
    const char *b = body;
    char hdr[512];
    int n;

    if (body == NULL) {
        status = 500;
        ctype = "text/plain; charset=utf-8";
        b = oom;
    }
    n = snprintf(hdr, sizeof(hdr), "HTTP/1.1 %d %s\r\nContent-Type: %s\r\n"
        "Content-Length: %zu\r\nCache-Control: no-store\r\n%sConnection: close\r\n\r\n",
        status, http_reason(status), ctype, strlen(b), allow ? "Allow: GET, HEAD\r\n" : "");
    if (n > 0 && (size_t)n < sizeof(hdr)) {
        http_send_all(fd, hdr, (size_t)n);
        if (!head_only)
            http_send_all(fd, b, strlen(b));
    }
    free(body);
}

static char *
text(const char *s)
{
    return strdup(s);
}

/* Answer one complete request head (NUL-terminated). */
static void
http_handle(struct zkd *d, int fd, char *head)
{
    static const char json[] = "application/json";
    static const char plain[] = "text/plain; charset=utf-8";
    char *method, *target, *version, *save = NULL, *eol;
    struct view v;
    bool head_only;

    if ((eol = strpbrk(head, "\r\n")) != NULL)
        *eol = '\0';
    method = strtok_r(head, " ", &save);
    target = strtok_r(NULL, " ", &save);
    version = strtok_r(NULL, " ", &save);
    if (method == NULL || target == NULL || version == NULL ||
        strtok_r(NULL, " ", &save) != NULL || strncmp(version, "HTTP/1.", 7) != 0) {
        http_reply(fd, false, 400, plain, text("bad request\n"), false);
        return;
    }
    head_only = strcmp(method, "HEAD") == 0;
    if (strcmp(method, "GET") != 0 && !head_only) {
        http_reply(fd, false, 405, plain, text("method not allowed: use GET\n"), true);
        return;
    }
    target[strcspn(target, "?#")] = '\0';   /* a query string changes nothing */
    if (strcmp(target, "/leader") == 0) {
        view_get(d, &v, true);
        http_reply(fd, head_only, v.is_leader ? 200 : 503, json, body_leader(d, &v), false);
    } else if (strcmp(target, "/health") == 0) {
        view_get(d, &v, false);
        http_reply(fd, head_only, v.connected && v.st.registered ? 200 : 503, json,
            body_health(d, &v), false);
    } else if (strcmp(target, "/status") == 0) {
        view_get(d, &v, true);
        http_reply(fd, head_only, 200, json, body_status(d, &v), false);
    } else if (strcmp(target, "/metrics") == 0) {
        view_get(d, &v, true);
        http_reply(fd, head_only, 200, "text/plain; version=0.0.4; charset=utf-8",
            body_metrics(d, &v), false);
    } else {
        http_reply(fd, head_only, 404, plain,
            text("not found: try /leader, /health, /status or /metrics\n"), false);
    }
}

static void
hconn_close(struct hconn *c)
{
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
    c->len = 0;
}

/* Read what a connection has; answer and close it once its head is complete. */
static void
hconn_read(struct zkd *d, struct hconn *c)
{
    ssize_t n = recv(c->fd, c->head + c->len, HTTP_HEAD_MAX - c->len, MSG_DONTWAIT);

    if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
        return;
    if (n <= 0) {
        hconn_close(c);
        return;
    }
    c->len += (size_t)n;
    c->head[c->len] = '\0';
    if (strstr(c->head, "\r\n\r\n") != NULL || strstr(c->head, "\n\n") != NULL) {
        http_handle(d, c->fd, c->head);
        hconn_close(c);
    } else if (c->len == HTTP_HEAD_MAX) {
        http_reply(c->fd, false, 431, "text/plain; charset=utf-8",
            text("request head too large\n"), false);
        hconn_close(c);
    }
}

static void *
http_main(void *arg)
{
    struct zkd *d = arg;
    struct zkd_http *ht = d->http;
    struct pollfd pfd[HTTP_CONN_MAX + 2];
    int idx[HTTP_CONN_MAX + 2];
    int i, n, nfree, timeout, fd;
    uint64_t now, next;

    for (;;) {
        n = 0;
        nfree = 0;
        now = proc_now_ms();
        next = 0;
        pfd[n].fd = ht->wake[0];
        pfd[n].events = POLLIN;
        idx[n++] = -1;
        for (i = 0; i < HTTP_CONN_MAX; i++) {
            struct hconn *c = &ht->conns[i];
            if (c->fd < 0) {
                nfree++;
                continue;
            }
            if (now >= c->deadline_ms) {    /* too slow: drop it */
                hconn_close(c);
                nfree++;
                continue;
            }
            if (next == 0 || c->deadline_ms < next)
                next = c->deadline_ms;
            pfd[n].fd = c->fd;
            pfd[n].events = POLLIN;
            idx[n++] = i;
        }
        if (nfree > 0) {                    /* full: new ones wait in the backlog */
            pfd[n].fd = ht->lfd;
            pfd[n].events = POLLIN;
            idx[n++] = -2;
        }
        timeout = next ? (int)(next - now) : -1;
        if (poll(pfd, (nfds_t)n, timeout) == -1) {
            if (errno == EINTR)
                continue;
            log_warn("http: poll");
            return NULL;
        }
        if (pfd[0].revents)
            return NULL;                    /* http_stop() */
        for (i = 1; i < n; i++) {
            if (!pfd[i].revents)
                continue;
            if (idx[i] >= 0) {
                hconn_read(d, &ht->conns[idx[i]]);
                continue;
            }
            while ((fd = accept4(ht->lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK)) >= 0) {
                int k;
                for (k = 0; k < HTTP_CONN_MAX && ht->conns[k].fd >= 0; k++)
                    ;
                if (k == HTTP_CONN_MAX) {   /* cannot happen: we polled with a free slot */
                    close(fd);
                    break;
                }
                ht->conns[k].fd = fd;
                ht->conns[k].len = 0;
                ht->conns[k].deadline_ms = proc_now_ms() + HTTP_TIMEOUT_S * 1000u;
                if (--nfree == 0)
                    break;
            }
        }
    }
}

/* A listening socket on the configured address; -1 with a message logged. */
static int
http_listen_socket(const char *listen_str)
{
    struct sockaddr_storage ss;
    socklen_t sslen;
    int fd, one = 1;

    if (zkd_config_listen_addr(listen_str, &ss, &sslen) != 0) {
        log_warnx("http: invalid listen address '%s'", listen_str);
        return -1;
    }
    if ((fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1) {
        log_warn("http: socket for %s", listen_str);
        return -1;
    }
    (void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (ss.ss_family == AF_INET6)
        (void)setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
    if (bind(fd, (struct sockaddr *)&ss, sslen) == -1) {
        log_warn("http: cannot listen on %s", listen_str);
        close(fd);
        return -1;
    }
    if (listen(fd, 64) == -1) {
        log_warn("http: listen on %s", listen_str);
        close(fd);
        return -1;
    }
    return fd;
}

int
http_start(struct zkd *d)
{
    struct zkd_http *ht;
    sigset_t all, old;
    int i, rc;

    if (d->boot.http_listen == NULL)
        return 0;
    if ((ht = calloc(1, sizeof(*ht))) == NULL) {
        log_warnx("http: out of memory");
        return -1;
    }
    for (i = 0; i < HTTP_CONN_MAX; i++)
        ht->conns[i].fd = -1;
    if ((ht->lfd = http_listen_socket(d->boot.http_listen)) == -1) {
        free(ht);
        return -1;
    }
    /* accept4() in a loop until EAGAIN: it must never block the thread */
    if (fcntl(ht->lfd, F_SETFL, fcntl(ht->lfd, F_GETFL) | O_NONBLOCK) == -1) {
        log_warn("http: fcntl");
        close(ht->lfd);
        free(ht);
        return -1;
    }
    if (pipe2(ht->wake, O_CLOEXEC) == -1) {
        log_warn("http: pipe");
        close(ht->lfd);
        free(ht);
        return -1;
    }
    d->http = ht;
    /* signals belong to the main thread */
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    rc = pthread_create(&ht->thread, NULL, http_main, d);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        log_warnx("http: cannot start the HTTP thread: %s", strerror(rc));
        d->http = NULL;
        close(ht->wake[0]);
        close(ht->wake[1]);
        close(ht->lfd);
        free(ht);
        return -1;
    }
    log_info("http: listening on %s", d->boot.http_listen);
    return 0;
}

void
http_stop(struct zkd *d)
{
    struct zkd_http *ht = d->http;
    int i;

    if (ht == NULL)
        return;
    while (write(ht->wake[1], "x", 1) == -1 && errno == EINTR)
        ;
    pthread_join(ht->thread, NULL);
    for (i = 0; i < HTTP_CONN_MAX; i++)
        hconn_close(&ht->conns[i]);
    close(ht->wake[0]);
    close(ht->wake[1]);
    close(ht->lfd);
    free(ht);
    d->http = NULL;
}
