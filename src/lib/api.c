/*
 * api.c - the group half of the public API: thin wrappers that validate
 * arguments, post work to the library thread and, for the blocking calls,
 * wait for the state machine with a deadline.
 */
#include "config.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "group.h"

static void
call_group_add(struct zkelect *h, void *arg)
{
    struct zkelect_group *g = arg;

    g->next = h->groups;
    h->groups = g;
    gindex_add(h, g);
    if (g->nowait)
        loop_fresh_add(h, g); /* started at the burst's end, or nominated */
    else
        group_kick(g, KICK_RESYNC);
}

struct wait_view {
    struct zkelect_group *g;
};

static bool
pred_view_read(void *arg)
{
    struct zkelect_group *g = arg;
    return (g->elected_read && LV0(g)->read) || g->h->sess != SESS_CONNECTED;
}

ZKELECT_API int
zkelect_group_open(zkelect_t *h, const struct zkelect_group_options *o, zkelect_group_t **out)
{
    struct zkelect_group_options ext;
    struct zkelect_group *g;
    const char *path;
    size_t i;

    if (out == NULL)
        return ZKELECT_EINVAL;
    *out = NULL;
    if (h == NULL || o == NULL || o->size < offsetof(struct zkelect_group_options, settle_ms))
        return ZKELECT_EINVAL;
    /* the fields after flags, as far as the caller's struct has them */
    memset(&ext, 0, sizeof(ext));
    memcpy(&ext, o, o->size < sizeof(ext) ? o->size : sizeof(ext));
    if (ext.settle_ms < 0 || ext.settle_ms > ZKE_SETTLE_MAX || ext.expect < 0 ||
        ext.expect > ZKE_EXPECT_MAX || ext.failback_delay_ms < 0 ||
        ext.failback_delay_ms > ZKE_DELAY_MAX || ext.min_move_interval_ms < 0 ||
        ext.min_move_interval_ms > ZKE_DELAY_MAX)
        return ZKELECT_EINVAL;
    path = o->path ? o->path : "/cluster";
    if (!zke_layout_base_valid(path, ZKE_BASE_MAX) || o->watchdog_ms < 0 || o->exclude_ms < 0 ||
        (o->npolicy_options && o->policy_options == NULL) ||
        (o->flags & ~(ZKELECT_GROUP_NOWAIT | ZKELECT_GROUP_TAKEOVER_NOOP |
                      ZKELECT_GROUP_NO_LEADER_EVENTS)) != 0)
        return ZKELECT_EINVAL;
    for (i = 0; i < o->npolicy_options; i++)
        if (o->policy_options[i] == NULL || strchr(o->policy_options[i], '=') == NULL)
            return ZKELECT_EINVAL;
    g = calloc(1, sizeof(*g));
    if (g == NULL)
        return ZKELECT_ENOMEM;
    g->h = h;
    g->refs = 1;
    g->role_since_ms = g->reg_since_ms = g->activity_ms = zke_now_ms();
    snprintf(g->path, sizeof(g->path), "%s", path);
    /* a valid base path is at most ZKE_BASE_MAX bytes: these cannot fail */
    zke_layout_path(g->p_nodes, sizeof(g->p_nodes), path, ZKE_ZN_NODES, NULL);
    zke_layout_path(g->p_election, sizeof(g->p_election), path, ZKE_ZN_ELECTION, NULL);
    zke_layout_path(g->p_elected, sizeof(g->p_elected), path, ZKE_ZN_ELECTED, NULL);
    zke_layout_path(LV0(g)->path, sizeof(LV0(g)->path), path, ZKE_ZN_LEADER, NULL);
    zke_layout_path(g->p_config, sizeof(g->p_config), path, ZKE_ZN_CONFIG, NULL);
    zke_layout_path(g->p_switchover, sizeof(g->p_switchover), path, ZKE_ZN_SWITCHOVER, NULL);
    zke_layout_path(g->p_history, sizeof(g->p_history), path, ZKE_ZN_HISTORY, NULL);
    zke_layout_path(g->p_successor, sizeof(g->p_successor), path, ZKE_ZN_SUCCESSOR, NULL);
    g->policy_name = strdup(o->policy ? o->policy : "site");
    g->policy_path = o->policy_path ? strdup(o->policy_path) : NULL;
    g->watchdog_ms = o->watchdog_ms ? o->watchdog_ms : 10000;
    g->exclude_ms = o->exclude_ms ? o->exclude_ms : 60000;
    g->settle_ms = ext.settle_ms;
    g->expect = ext.expect;
    g->failback_delay_ms = ext.failback_delay_ms;
    g->min_move_interval_ms = ext.min_move_interval_ms;
    g->on_event = o->on_event;
    g->event_data = o->event_data;
    g->no_leader_events = (o->flags & ZKELECT_GROUP_NO_LEADER_EVENTS) != 0;
    g->nowait = (o->flags & ZKELECT_GROUP_NOWAIT) != 0;
    g->on_takeover = o->on_takeover;
    g->takeover_noop = o->on_takeover == NULL || (o->flags & ZKELECT_GROUP_TAKEOVER_NOOP) != 0;
    g->on_stepdown = o->on_stepdown;
    g->cb_data = o->cb_data;
    g->elected_version = LV0(g)->version = -1;
    g->nlv = 1;
    g->ev_slot = -1;
    g->config_version = g->history_version = -1;
    g->next_sub = 1;
    if (o->npolicy_options) {
        g->opt_kv = calloc(o->npolicy_options, sizeof(char *));
        if (g->opt_kv == NULL)
            goto err;
        for (i = 0; i < o->npolicy_options; i++) {
            if ((g->opt_kv[i] = strdup(o->policy_options[i])) == NULL)
                goto err;
            g->nopt_kv++;
        }
    }
    if (g->policy_name == NULL || (o->policy_path && g->policy_path == NULL))
        goto err;
    zke_call(h, call_group_add, g);
    /* wait (bounded) for the first view so zkelect_get_leader answers at once */
    if (!(o->flags & ZKELECT_GROUP_NOWAIT))
        zke_call_wait(h, NULL, NULL, pred_view_read, g, h->session_timeout_ms);
    *out = g;
    return 0;
err:
    group_free(g);
    return ZKELECT_ENOMEM;
}

static bool
pred_left(void *arg)
{
    struct zkelect_group *g = arg;
    return !group_registered(g) && g->reg == 0 /* REG_NONE */;
}

struct group_remove {
    struct zkelect_group *g;          /* the group (freed once its requests finish) */
    bool done;                        /* set on the library thread */
};

static void
call_group_remove(struct zkelect *h, void *arg)
{
    struct group_remove *rm = arg;
    struct zkelect_group *g = rm->g, **pp;

    for (pp = &h->groups; *pp; pp = &(*pp)->next) {
        if (*pp == g) {
            *pp = g->next;
            break;
        }
    }
    gindex_del(h, g);
    group_unhold(g, false);
    g->closed = true;
    fence_update(g);
    group_release(g);
    rm->done = true;
}

static bool
pred_removed(void *arg)
{
    return ((struct group_remove *)arg)->done;
}

ZKELECT_API void
zkelect_group_close(zkelect_group_t *g)
{
    if (g != NULL)
        group_close_wait(g, g->h->session_timeout_ms);
}

void
group_close_wait(struct zkelect_group *g, int leave_timeout_ms)
{
    struct zkelect *h;
    struct group_remove rm = {g, false};

    h = g->h;
    zkelect_unnominate(g, leave_timeout_ms);
    /* wait until the library thread has taken the group out of the handle:
       after that, nothing (zkelect_close included) can reach it again. It is
       freed there once its outstanding requests are answered. */
    zke_call_wait(h, call_group_remove, &rm, pred_removed, &rm, INT32_MAX / 2);
}

struct nominate_wait {
    struct zkelect_group *g;
    int err;
    bool done;
};

static void
nominate_done_cb(void *data, zkelect_group_t *g, int err)
{
    struct nominate_wait *w = data;

    (void)g;
    w->err = err;
    w->done = true;
}

static void
call_forget_wait(struct zkelect *h, void *arg)
{
    struct nominate_wait *w = arg;

    (void)h;
    if (w->g->nominate_data == w) {
        w->g->nominate_done = NULL;
        w->g->nominate_data = NULL;
    }
    free(w);
}

static bool
pred_nominated(void *arg)
{
    return ((struct nominate_wait *)arg)->done;
}

ZKELECT_API int
zkelect_nominate(zkelect_group_t *g, const struct zkelect_node *self, int timeout_ms)
{
    struct nominate_wait *w;
    int rc;

    if (g == NULL || timeout_ms < 0)
        return ZKELECT_EINVAL;
    w = calloc(1, sizeof(*w));
    if (w == NULL)
        return ZKELECT_ENOMEM;
    w->g = g;
    rc = group_nominate(g, self, nominate_done_cb, w);
    if (rc != 0) {
        free(w);
        return rc;
    }
    rc = zke_call_wait(g->h, NULL, NULL, pred_nominated, w, timeout_ms);
    if (rc == 0) {
        rc = w->err;
        free(w);
        return rc;
    }
    /* timed out (or on the library thread): detach w there, after the
       nominate call it follows in the queue */
    zke_call(g->h, call_forget_wait, w);
    /* a nominate that failed leaves nothing behind: withdraw the
       registration still in flight (or just completed) */
    if (rc == ZKELECT_ETIMEDOUT)
        group_unnominate(g);
    return rc;
}

ZKELECT_API int
zkelect_nominate_async(zkelect_group_t *g, const struct zkelect_node *self, zkelect_done_fn done,
                       void *data)
{
    if (g == NULL)
        return ZKELECT_EINVAL;
    return group_nominate(g, self, done, data);
}

ZKELECT_API int
zkelect_unnominate(zkelect_group_t *g, int timeout_ms)
{
    if (g == NULL || timeout_ms < 0)
        return ZKELECT_EINVAL;
    group_unnominate(g);
    return zke_call_wait(g->h, NULL, NULL, pred_left, g, timeout_ms);
}

ZKELECT_API int
zkelect_set_priority(zkelect_group_t *g, int priority)
{
    if (g == NULL)
        return ZKELECT_EINVAL;
    if (priority < ZKE_PRIORITY_MIN || priority > ZKE_PRIORITY_MAX)
        return ZKELECT_ERANGE;
    return group_set_member(g, 0, priority);
}

ZKELECT_API int
zkelect_set_eligible(zkelect_group_t *g, int eligible)
{
    if (g == NULL)
        return ZKELECT_EINVAL;
    return group_set_member(g, 1, eligible != 0);
}

ZKELECT_API int
zkelect_set_healthy(zkelect_group_t *g, int healthy)
{
    if (g == NULL)
        return ZKELECT_EINVAL;
    return group_set_member(g, 2, healthy != 0);
}

ZKELECT_API int
zkelect_set_takeover_noop(zkelect_group_t *g, int noop)
{
    if (g == NULL)
        return ZKELECT_EINVAL;
    return group_set_member(g, 4, noop != 0);
}

ZKELECT_API int
zkelect_set_tags(zkelect_group_t *g, const char *const *tags, size_t ntags)
{
    if (g == NULL)
        return ZKELECT_EINVAL;
    return group_set_tags(g, tags, ntags);
}

ZKELECT_API int
zkelect_takeover_done(zkelect_group_t *g, uint64_t epoch, int err)
{
    if (g == NULL || epoch == 0 || err > 0)
        return ZKELECT_EINVAL;
    return group_done(g, epoch, err, false);
}

ZKELECT_API int
zkelect_stepdown_done(zkelect_group_t *g, uint64_t epoch)
{
    if (g == NULL || epoch == 0)
        return ZKELECT_EINVAL;
    return group_done(g, epoch, 0, true);
}

static void
fill_leader(struct zkelect_group *g, struct zkelect_leader *out)
{
    memset(out, 0, sizeof(*out));
    if (g->elected_unwatched && LV0(g)->have) {
        /* `elected` let go (a leader subscriber alone, answered from a
           callback): the leader znode says who was elected, when and after
           whom */
        snprintf(out->elected, sizeof(out->elected), "%s", LV0(g)->l.id);
        out->elected_epoch = LV0(g)->l.epoch;
        snprintf(out->previous, sizeof(out->previous), "%s", LV0(g)->l.previous);
    } else if (g->have_elected && LV0(g)->have && LV0(g)->owner != 0 &&
               LV0(g)->owner == g->h->session_id &&
               LV0(g)->l.epoch > g->elected.epoch && *LV0(g)->l.previous) {
        /* our fast handover's leader znode, created before the decision
           was read (doc/PROTOCOL.md §4, "The fast handover"): the create
           succeeded only over the leaver's handover, whose decision says
           this (register.c, reg_handover) */
        snprintf(out->elected, sizeof(out->elected), "%s", LV0(g)->l.id);
        out->elected_epoch = LV0(g)->l.epoch;
        snprintf(out->previous, sizeof(out->previous), "%s", LV0(g)->l.previous);
        snprintf(out->reason, sizeof(out->reason), "handover: %s resigned; %s is its successor",
                 LV0(g)->l.previous, LV0(g)->l.id);
    } else if (g->have_elected) {
        snprintf(out->elected, sizeof(out->elected), "%s", g->elected.leader);
        out->elected_epoch = g->elected.epoch;
        snprintf(out->previous, sizeof(out->previous), "%s", g->elected.previous);
        snprintf(out->reason, sizeof(out->reason), "%s", g->elected.reason);
    }
    if (!LV0(g)->have)
        return;
    snprintf(out->id, sizeof(out->id), "%s", LV0(g)->l.id);
    out->status = (enum zkelect_status)LV0(g)->l.status;
    out->epoch = LV0(g)->l.epoch;
    if (g->have_leader_info && strcmp(g->leader_info.id, LV0(g)->l.id) == 0) {
        snprintf(out->site, sizeof(out->site), "%s", g->leader_info.site);
        out->priority = g->leader_info.priority;
    }
    out->is_self = group_is_leading(g) && strcmp(LV0(g)->l.id, g->self.id) == 0;
}

/* ---- the leader on request (a group that does not follow) ------------------ */

/* A waiter's refresh: the group, and the number of its call (the calls run
   in order on the library thread; the waiter's frame may be gone by the
   time its call runs, after a timeout, so the call touches only the
   group). */
struct refresh {
    struct zkelect_group *g;
    uint64_t n;
};

static void
call_refresh(struct zkelect *h, void *arg)
{
    struct zkelect_group *g = arg;

    (void)h;
    if (!g->closed && group_connected(g)) {
        g->elected_read = false;
        view_read_elected(g);
        view_read_leaders(g);
    }
    g->refresh_ran++;
    group_release(g);
}

/* Post a refresh; h->mu held. */
static void
refresh_post(struct zkelect_group *g, struct refresh *rf)
{
    rf->g = g;
    rf->n = ++g->refresh_posted;
    g->refs++;
    zke_call(g->h, call_refresh, g);
}

static bool
pred_refreshed(void *arg)
{
    struct refresh *rf = arg;
    struct zkelect_group *g = rf->g;

    return g->closed || g->h->sess != SESS_CONNECTED ||
           (g->refresh_ran >= rf->n && g->elected_read && view_leaders_read(g) &&
            !g->elected_unwatched);
}

/*
 * Before an answer about the leader: a group that does not follow reads
 * `elected` and the leader znodes now (it follows until they are read),
 * bounded by the session timeout. On the library thread (a callback) the
 * view answers as it is. Called and returns with h->mu held.
 */
static void
leader_refresh(struct zkelect_group *g)
{
    struct zkelect *h = g->h;
    struct refresh rf;

    if (pthread_equal(pthread_self(), h->thread) || (group_follows(g) && !g->elected_unwatched) ||
        h->sess != SESS_CONNECTED || g->closed)
        return;
    g->leader_waiters++;
    refresh_post(g, &rf);
    pthread_mutex_unlock(&h->mu);
    (void)zke_call_wait(h, NULL, NULL, pred_refreshed, &rf, h->session_timeout_ms);
    pthread_mutex_lock(&h->mu);
    g->leader_waiters--;
}

ZKELECT_API int
zkelect_get_leader(zkelect_group_t *g, struct zkelect_leader *out)
{
    if (g == NULL || out == NULL)
        return ZKELECT_EINVAL;
    pthread_mutex_lock(&g->h->mu);
    leader_refresh(g);
    fill_leader(g, out);
    pthread_mutex_unlock(&g->h->mu);
    return out->id[0] ? 0 : ZKELECT_ENOLEADER;
}

ZKELECT_API int
zkelect_get_leaders(zkelect_group_t *g, struct zkelect_slot *out, int max)
{
    int n, k;

    if (g == NULL || max < 0 || (out == NULL && max > 0))
        return ZKELECT_EINVAL;
    pthread_mutex_lock(&g->h->mu);
    leader_refresh(g);
    n = g->have_elected ? 1 + g->elected.nslots : 1;
    for (k = 0; k < n && k < max; k++) {
        struct zkelect_slot *o = &out[k];
        const char *id, *znode;
        uint64_t epoch;

        memset(o, 0, sizeof(*o));
        o->slot = k;
        if (view_elected_slot(g, k, &id, &znode, &epoch)) {
            snprintf(o->elected, sizeof(o->elected), "%s", id);
            o->elected_epoch = epoch;
        }
        if (k < g->nlv && LV(g, k)->have) {
            snprintf(o->id, sizeof(o->id), "%s", LV(g, k)->l.id);
            o->status = (enum zkelect_status)LV(g, k)->l.status;
            o->epoch = LV(g, k)->l.epoch;
            o->is_self = group_is_leading(g) && g->cslot == k &&
                         strcmp(LV(g, k)->l.id, g->self.id) == 0;
        }
    }
    pthread_mutex_unlock(&g->h->mu);
    return n;
}

ZKELECT_API int
zkelect_group_slot(zkelect_group_t *g)
{
    int k = -1;

    if (g == NULL)
        return -1;
    pthread_mutex_lock(&g->h->mu);
    switch (g->role) {
    case ROLE_CREATING:
    case ROLE_PROGRESS:
    case ROLE_READYING:
    case ROLE_READY:
    case ROLE_SUSPENDED:
    case ROLE_STEPPING_DOWN:
    case ROLE_FENCED:
        k = g->cslot;
        break;
    default:
        break;
    }
    pthread_mutex_unlock(&g->h->mu);
    return k;
}

struct leader_wait {
    struct zkelect_group *g;
    enum zkelect_status status;
    int self;
};

static bool
pred_leader(void *arg)
{
    struct leader_wait *w = arg;
    struct zkelect_leader l;

    fill_leader(w->g, &l);
    if (w->self)
        return l.is_self && l.status >= w->status;
    return l.id[0] && l.status >= w->status;
}

ZKELECT_API int
zkelect_get_node_host(zkelect_group_t *g, const char *id, char *buf, size_t len)
{
    int rc = ZKELECT_ENOLEADER;

    if (g == NULL || id == NULL || buf == NULL || len == 0)
        return ZKELECT_EINVAL;
    buf[0] = '\0';
    pthread_mutex_lock(&g->h->mu);
    leader_refresh(g);
    if (g->have_elected && *g->elected.leader_host && strcmp(g->elected.leader, id) == 0) {
        /* the decision's word (the record as it was when decided) */
        snprintf(buf, len, "%s", g->elected.leader_host);
        rc = 0;
    } else if (g->have_elected && *g->elected.previous_host &&
               strcmp(g->elected.previous, id) == 0) {
        snprintf(buf, len, "%s", g->elected.previous_host);
        rc = 0;
    } else if (g->have_leader_info && strcmp(g->leader_info.id, id) == 0) {
        snprintf(buf, len, "%s", g->leader_info.host);
        rc = 0;
    } else if (*g->prev_info_id && strcmp(g->prev_info_id, id) == 0) {
        snprintf(buf, len, "%s", g->prev_info_host);
        rc = 0;
    }
    pthread_mutex_unlock(&g->h->mu);
    return rc;
}

ZKELECT_API int
zkelect_wait_leader(zkelect_group_t *g, enum zkelect_status status, int self, int timeout_ms)
{
    struct leader_wait w = {g, status, self};
    struct refresh rf;
    uint64_t start = zke_now_ms(), spent;
    bool quiet;
    int rc;

    if (g == NULL || timeout_ms < 0)
        return ZKELECT_EINVAL;
    if (pthread_equal(pthread_self(), g->h->thread))
        return ZKELECT_ESTATE;
    /* the group follows while somebody waits (a quiet one reads first) */
    pthread_mutex_lock(&g->h->mu);
    quiet = !group_follows(g) && g->h->sess == SESS_CONNECTED && !g->closed;
    g->leader_waiters++;
    if (quiet)
        refresh_post(g, &rf);
    pthread_mutex_unlock(&g->h->mu);
    if (quiet)
        (void)zke_call_wait(g->h, NULL, NULL, pred_refreshed, &rf, timeout_ms);
    spent = zke_now_ms() - start;
    rc = zke_call_wait(g->h, NULL, NULL, pred_leader, &w,
                       spent < (uint64_t)timeout_ms ? timeout_ms - (int)spent : 0);
    pthread_mutex_lock(&g->h->mu);
    g->leader_waiters--;
    pthread_mutex_unlock(&g->h->mu);
    return rc;
}

/* A leader subscriber came: the group follows from now on, and reads what it
   let go (group.c, view_follow). */
static void
call_follow(struct zkelect *h, void *arg)
{
    struct zkelect_group *g = arg;

    (void)h;
    if (!g->closed)
        view_follow(g, false);
    group_release(g);
}

ZKELECT_API int
zkelect_subscribe(zkelect_group_t *g, uint32_t mask, zkelect_event_fn fn, void *data)
{
    struct sub *s;
    int id;

    if (g == NULL || fn == NULL || mask == 0)
        return ZKELECT_EINVAL;
    s = calloc(1, sizeof(*s));
    if (s == NULL)
        return ZKELECT_ENOMEM;
    s->mask = mask;
    s->fn = fn;
    s->data = data;
    pthread_mutex_lock(&g->h->mu);
    id = s->id = g->next_sub++;
    s->next = g->subs;
    g->subs = s;
    if (mask & ZKELECT_MASK_LEADER) {
        g->refs++;
        zke_call(g->h, call_follow, g);
    }
    pthread_mutex_unlock(&g->h->mu);
    return id;
}

ZKELECT_API int
zkelect_unsubscribe(zkelect_group_t *g, int id)
{
    struct sub **pp, *s;
    int rc = ZKELECT_EINVAL;

    if (g == NULL)
        return ZKELECT_EINVAL;
    pthread_mutex_lock(&g->h->mu);
    for (pp = &g->subs; (s = *pp) != NULL; pp = &s->next) {
        if (s->id == id && !s->dead) {
            if (g->sub_calls > 0) {
                s->dead = true;     /* from a callback: event.c frees it after */
            } else {
                *pp = s->next;
                free(s);
            }
            rc = 0;
            break;
        }
    }
    pthread_mutex_unlock(&g->h->mu);
    return rc;
}

ZKELECT_API const char *
zkelect_group_path(const zkelect_group_t *g)
{
    return g ? g->path : NULL;
}

ZKELECT_API int
zkelect_get_stats(zkelect_group_t *g, struct zkelect_stats *out)
{
    if (g == NULL || out == NULL)
        return ZKELECT_EINVAL;
    memset(out, 0, sizeof(*out));
    pthread_mutex_lock(&g->h->mu);
    out->decisions = g->n_decisions;
    out->transitions = g->n_transitions;
    out->watchdog_firings = g->n_watchdog;
    out->requests = g->n_requests;
    out->notifications = g->n_notifications;
    out->is_elector = g->is_elector;
    out->registered = group_registered(g);
    pthread_mutex_unlock(&g->h->mu);
    pthread_mutex_lock(&g->h->qmu);
    out->stalled_requests = g->h->stalled;
    out->last_contact_mono_ms = g->h->last_contact_ms;
    pthread_mutex_unlock(&g->h->qmu);
    return 0;
}

ZKELECT_API int
zkelect_get_state(zkelect_group_t *g, struct zkelect_group_state *out)
{
    struct zkelect_group_state st;
    uint64_t now = zke_now_ms();
    size_t n;

    if (g == NULL || out == NULL || out->size < offsetof(struct zkelect_group_state, role_ms))
        return ZKELECT_EINVAL;
    n = out->size < sizeof(st) ? out->size : sizeof(st);
    memset(&st, 0, sizeof(st));
    st.size = n;
    pthread_mutex_lock(&g->h->mu);
    st.role = group_role_name(g->role);
    st.registration = group_reg_name(g->reg);
    st.role_ms = g->role_since_ms ? now - g->role_since_ms : 0;
    st.registration_ms = g->reg_since_ms ? now - g->reg_since_ms : 0;
    st.stuck = g->n_stuck;
    st.illegal_transitions = g->n_illegal;
    st.gaps = g->h->n_stale;
    st.fences = g->h->n_fenced;
    st.fence_ms = g->h->fence_ms;
    if (g->succ_have && g->have_elected && g->succ_elected_version == g->elected_version &&
        cand_role_leading(g->role))
        snprintf(st.successor, sizeof(st.successor), "%s", g->succ.successor);
    st.fast_handovers = g->n_fast;
    st.fast_refused = g->n_fast_refused;
    pthread_mutex_lock(&g->h->qmu);
    st.unheard_ms = g->h->heard_ms && now > g->h->heard_ms ? now - g->h->heard_ms : 0;
    pthread_mutex_unlock(&g->h->qmu);
    pthread_mutex_unlock(&g->h->mu);
    memcpy(out, &st, n);
    return 0;
}

ZKELECT_API int
zkelect_policy_check(const char *name_or_path, const char *search_path,
                     const char *const *options, size_t noptions, char *err, size_t errlen)
{
    struct zkelect_option *opts = NULL;
    char **keys = NULL;
    struct zke_policy *p = NULL;
    size_t i;
    int rc;

    if (err && errlen)
        err[0] = '\0';
    if (name_or_path == NULL || (noptions && options == NULL))
        return ZKELECT_EINVAL;
    if (noptions) {
        opts = calloc(noptions, sizeof(*opts));
        keys = calloc(noptions, sizeof(*keys));
        if (opts == NULL || keys == NULL) {
            rc = ZKELECT_ENOMEM;
            goto out;
        }
    }
    for (i = 0; i < noptions; i++) {
        const char *eq = options[i] ? strchr(options[i], '=') : NULL;
        if (eq == NULL) {
            if (err && errlen)
                snprintf(err, errlen, "option \"%s\" is not key=value", options[i] ? options[i] : "(null)");
            rc = ZKELECT_EINVAL;
            goto out;
        }
        keys[i] = strndup(options[i], (size_t)(eq - options[i]));
        if (keys[i] == NULL) {
            rc = ZKELECT_ENOMEM;
            goto out;
        }
        opts[i].key = keys[i];
        opts[i].value = eq + 1;
    }
    rc = zke_policy_load(name_or_path, search_path, opts, noptions, &p, err, errlen);
    zke_policy_unload(p);
out:
    for (i = 0; keys && i < noptions; i++)
        free(keys[i]);
    free(keys);
    free(opts);
    return rc;
}
/*
 * The largest N this member can serve, for its record (zkelect set-leaders
 * refuses more): this library serves every slot as a candidate, but as the
 * elector it runs its own policy, and a module without choose_set (ABI 1.0)
 * decides for one slot only. Found by loading the policy once per handle
 * and policy (the same check as zkelect_policy_check), on the caller's
 * thread. A policy that does not load says nothing here: the elector
 * reports it as before.
 */
static uint32_t
nominate_max_leaders(struct zkelect_group *g)
{
    struct zkelect *h = g->h;
    struct zkelect_option opts[64];
    char keys[64][ZKE_NAME_MAX + 1], key[sizeof(h->maxl_key)], err[256];
    struct zke_policy *p = NULL;
    uint32_t v = ZKE_LEADERS_MAX, hit = 0;
    size_t i, n = 0;
    int off;

    off = snprintf(key, sizeof(key), "%s\n%s", g->policy_name, g->policy_path ? g->policy_path : "");
    for (i = 0; i < g->nopt_kv && off > 0 && (size_t)off < sizeof(key); i++)
        off += snprintf(key + off, sizeof(key) - (size_t)off, "\n%s", g->opt_kv[i]);
    pthread_mutex_lock(&h->mu);
    if (h->maxl_val && strcmp(h->maxl_key, key) == 0)
        hit = h->maxl_val;
    pthread_mutex_unlock(&h->mu);
    if (hit)
        return hit;
    for (i = 0; i < g->nopt_kv && n < 64; i++) {
        const char *eq = strchr(g->opt_kv[i], '=');
        size_t kl = eq ? (size_t)(eq - g->opt_kv[i]) : strlen(g->opt_kv[i]);
        if (kl > ZKE_NAME_MAX)
            kl = ZKE_NAME_MAX;
        memcpy(keys[n], g->opt_kv[i], kl);
        keys[n][kl] = '\0';
        opts[n].key = keys[n];
        opts[n].value = eq ? eq + 1 : "";
        n++;
    }
    if (zke_policy_load(g->policy_name, g->policy_path, opts, n, &p, err, sizeof(err)) == 0) {
        if (!zke_policy_can_choose_set(p))
            v = 1;
        zke_policy_unload(p);
    }
    pthread_mutex_lock(&h->mu);
    snprintf(h->maxl_key, sizeof(h->maxl_key), "%s", key);
    h->maxl_val = v;
    pthread_mutex_unlock(&h->mu);
    return v;
}

/* ---- API entry points that run on the library thread -------------------------- */

struct call_nominate {
    struct zkelect_group *g;
    struct zke_member self;
    zkelect_done_fn done;
    void *data;
};

static void
call_nominate(struct zkelect *h, void *arg)
{
    struct call_nominate *c = arg;
    struct zkelect_group *g = c->g;

    (void)h;
    if (g->reg != REG_NONE) {
        if (c->done)
            c->done(c->data, g, ZKELECT_EBUSY);
        free(c);
        return;
    }
    g->self = c->self;
    g->nominate_done = c->done;
    g->nominate_data = c->data;
    g->failed_epoch = 0;
    g->leaving = false;
    reg_new_guid(g->guid);
    snprintf(g->self.guid, sizeof(g->self.guid), "%s", g->guid);
    group_reg_set(g, REG_PENDING, "nominated");
    if (g->fresh) {
        /* opened NOWAIT and nothing read yet: the start registers first
           (group_resync), and reads the view only if the group was there */
        g->fresh = false;
        if (group_connected(g))
            group_kick(g, KICK_RESYNC);
    } else if (group_connected(g))
        group_kick(g, KICK_REGISTER);
    free(c);
}

int
group_nominate(struct zkelect_group *g, const struct zkelect_node *n, zkelect_done_fn done, void *data)
{
    struct call_nominate *c;
    size_t i;
    char host[ZKE_HOST_MAX + 1];

    if (g == NULL || n == NULL || n->id == NULL || !zke_id_valid(n->id))
        return ZKELECT_EINVAL;
    if (n->site && *n->site && !zke_site_valid(n->site))
        return ZKELECT_EINVAL;
    if (n->priority < ZKE_PRIORITY_MIN || n->priority > ZKE_PRIORITY_MAX || n->ntags > ZKE_TAGS_MAX)
        return ZKELECT_ERANGE;
    if (n->ntags > 0 && n->tags == NULL)
        return ZKELECT_EINVAL;
    c = calloc(1, sizeof(*c));
    if (c == NULL)
        return ZKELECT_ENOMEM;
    c->g = g;
    c->done = done;
    c->data = data;
    snprintf(c->self.id, sizeof(c->self.id), "%s", n->id);
    snprintf(c->self.site, sizeof(c->self.site), "%s", n->site ? n->site : "");
    c->self.priority = n->priority;
    if (n->host)
        snprintf(c->self.host, sizeof(c->self.host), "%s", n->host);
    else if (gethostname(host, sizeof(host)) == 0) {
        host[sizeof(host) - 1] = '\0';
        snprintf(c->self.host, sizeof(c->self.host), "%s", host);
    }
    c->self.pid = (int64_t)getpid();
    snprintf(c->self.version, sizeof(c->self.version), "%s", PACKAGE_VERSION);
    for (i = 0; i < n->ntags; i++) {
        if (n->tags[i] == NULL || !zke_name_valid(n->tags[i])) {
            free(c);
            return ZKELECT_EINVAL;
        }
        snprintf(c->self.tags[i], sizeof(c->self.tags[i]), "%s", n->tags[i]);
    }
    c->self.ntags = (int)n->ntags;
    c->self.eligible = n->eligible != 0;
    c->self.healthy = true;
    c->self.max_leaders = nominate_max_leaders(g);
    c->self.wake = true; /* woken when elected (doc/PROTOCOL.md §2, "The wake") */
    c->self.fast_handover = true; /* doc/PROTOCOL.md §4, "The fast handover" */
    zke_call(g->h, call_nominate, c);
    return 0;
}

static void
call_unnominate(struct zkelect *h, void *arg)
{
    struct zkelect_group *g = arg;

    (void)h;
    if (g->reg == REG_NONE)
        return;
    g->leaving = true;
    if (!group_connected(g)) {
        /* finished on reconnect, or by the session's end */
        if (g->reg == REG_PENDING || g->reg == REG_UNKNOWN)
            reg_nominate_finish(g, ZKELECT_ECANCELED);
        return;
    }
    if (g->reg == REG_DONE) {
        if (g->role == ROLE_READY || g->role == ROLE_PROGRESS || g->role == ROLE_SUSPENDED) {
            cand_start_stepdown(g, "resigning");
        } else if (g->role == ROLE_FENCED) {
            cand_step(g); /* released, then the leave */
        } else if (g->role == ROLE_MEMBER || g->role == ROLE_WAITING || g->role == ROLE_NONE) {
            reg_unregister(g);
        }
        /* other roles: their reply continues with g->leaving set */
    } else if (g->reg == REG_PENDING || g->reg == REG_UNKNOWN) {
        /* not registered yet: the nominate ends now; the registration in
           flight sees g->leaving and undoes whatever it created (register.c,
           reg_cancelled) */
        reg_nominate_finish(g, ZKELECT_ECANCELED);
    }
}

int
group_unnominate(struct zkelect_group *g)
{
    zke_call(g->h, call_unnominate, g);
    return 0;
}

struct call_member {
    struct zkelect_group *g;
    int what;   /* 0 priority, 1 eligible, 2 healthy, 3 tags, 4 takeover no-op */
    int value;
    char tags[ZKE_TAGS_MAX][ZKE_NAME_MAX + 1]; /* what == 3 */
};

static void
call_member(struct zkelect *h, void *arg)
{
    struct call_member *c = arg;
    struct zkelect_group *g = c->g;

    (void)h;
    if (c->what == 0)
        g->self.priority = c->value;
    else if (c->what == 1)
        g->self.eligible = c->value != 0;
    else if (c->what == 2)
        g->self.healthy = c->value != 0;
    else if (c->what == 3) {
        memcpy(g->self.tags, c->tags, sizeof(g->self.tags));
        g->self.ntags = c->value;
    } else if (c->what == 4) {
        /* from the next takeover on: nothing is written */
        g->takeover_noop = c->value != 0 || g->on_takeover == NULL;
        free(c);
        return;
    }
    free(c);
    if (g->reg != REG_DONE || !group_connected(g)) {
        g->member_dirty = g->reg != REG_NONE;
        return;
    }
    reg_write_self(g);
}

int
group_set_tags(struct zkelect_group *g, const char *const *tags, size_t ntags)
{
    struct call_member *c;
    size_t i;

    if (ntags > ZKE_TAGS_MAX || (ntags && tags == NULL))
        return ZKELECT_EINVAL;
    for (i = 0; i < ntags; i++)
        if (tags[i] == NULL || !zke_name_valid(tags[i]))
            return ZKELECT_EINVAL;
    if ((c = calloc(1, sizeof(*c))) == NULL)
        return ZKELECT_ENOMEM;
    c->g = g;
    c->what = 3;
    c->value = (int)ntags;
    for (i = 0; i < ntags; i++)
        snprintf(c->tags[i], sizeof(c->tags[i]), "%s", tags[i]);
    zke_call(g->h, call_member, c);
    return 0;
}

int
group_set_member(struct zkelect_group *g, int what, int value)
{
    struct call_member *c = calloc(1, sizeof(*c));

    if (c == NULL)
        return ZKELECT_ENOMEM;
    c->g = g;
    c->what = what;
    c->value = value;
    zke_call(g->h, call_member, c);
    return 0;
}

struct call_done {
    struct zkelect_group *g;
    uint64_t epoch;
    int err;
    bool stepdown;
};

static void
call_done(struct zkelect *h, void *arg)
{
    struct call_done *c = arg;

    (void)h;
    if (c->stepdown)
        cand_stepdown_result(c->g, c->epoch);
    else
        cand_takeover_result(c->g, c->epoch, c->err == ZKELECT_EBUSY ? ZKELECT_EINVAL : c->err);
    free(c);
}

int
group_done(struct zkelect_group *g, uint64_t epoch, int err, bool stepdown)
{
    struct call_done *c = calloc(1, sizeof(*c));

    if (c == NULL)
        return ZKELECT_ENOMEM;
    c->g = g;
    c->epoch = epoch;
    c->err = err;
    c->stepdown = stepdown;
    zke_call(g->h, call_done, c);
    return 0;
}

/* Role as seen by the API (h->mu held). */
bool
group_is_leading(const struct zkelect_group *g)
{
    return g->role == ROLE_READY;
}

bool
group_registered(const struct zkelect_group *g)
{
    return g->reg == REG_DONE;
}
