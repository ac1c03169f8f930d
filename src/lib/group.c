/*
 * group.c - one election group's state machine: the shared parts (runs on
 * the library thread).
 *
 * Owns: the view every group keeps of `elected` and the leader znode, the
 * role and registration transitions (group_role_set, group_reg_set: the only
 * writers of g->role and g->reg), session events, the dispatch of replies and
 * watches to register.c, elector.c and candidate.c, the check for stuck
 * groups, and the group's lifetime.
 *
 * Safety rules the state machine keeps (see doc/PROTOCOL.md):
 *  - the leader znode is only ever created in a multi that checks the
 *    version of `elected` this node read naming itself, only set READY in a
 *    multi that checks both, and only deleted with its own version;
 *  - a node stops acting as leader the moment its connection is lost
 *    (SUSPENDED) and resumes only after re-reading both znodes on the same
 *    session;
 *  - every reply or watch of an older session generation is dropped (loop.c).
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "group.h"
#include "zkerr.h"

/* ---- helpers ------------------------------------------------------------- */

int64_t
zke_wall_ms(void)
{
    struct timespec ts;
    /* informational timestamps only (shown to operators), never for timing */
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

struct ACL_vector *
group_acl(struct zkelect_group *g)
{
    static struct ACL creator_read[2];
    static struct ACL_vector v = {2, creator_read};
    static char world[] = "world", anyone[] = "anyone", auth[] = "auth", empty[] = "";

    if (g->h->auth == NULL)
        return &ZOO_OPEN_ACL_UNSAFE;
    /* the creator's identity may do everything, the world may read */
    creator_read[0].perms = ZOO_PERM_ALL;
    creator_read[0].id.scheme = auth;
    creator_read[0].id.id = empty;
    creator_read[1].perms = ZOO_PERM_READ;
    creator_read[1].id.scheme = world;
    creator_read[1].id.id = anyone;
    return &v;
}

/* Publish -malformed for the data of PATH; OUTCOME says what we do about it. */
void
group_malformed_do(struct zkelect_group *g, const char *path, const char *data, int len,
             const char *err, const char *outcome)
{
    char esc[200];

    zke_escape(data ? data : "", data && len > 0 ? (size_t)len : 0, esc, sizeof(esc));
    zke_event(g->h, g, ZKELECT_EV_MALFORMED, NULL, 0, ZKELECT_EBADVALUE,
              "%s: %s (data: \"%s\"); %s", path, err, esc, outcome);
}

void
group_malformed(struct zkelect_group *g, const char *path, const char *data, int len, const char *err)
{
    group_malformed_do(g, path, data, len, err, "treated as absent");
}

/* Send an aget with a watch for one of the group's znodes. */
void
group_send_get(struct zkelect_group *g, enum req_kind kind, const char *path, const char *arg)
{
    struct req *r;

    if (!group_connected(g))
        return;
    r = req_new(g->h, g, kind);
    if (r == NULL)
        return;
    if (arg)
        snprintf(r->arg, sizeof(r->arg), "%s", arg);
    req_sent(r, zoo_aget(g->h->zh, path, 1, data_completion, r));
}

void
group_send_exists(struct zkelect_group *g, enum req_kind kind, const char *path, const char *arg)
{
    struct req *r;

    if (!group_connected(g))
        return;
    r = req_new(g->h, g, kind);
    if (r == NULL)
        return;
    if (arg)
        snprintf(r->arg, sizeof(r->arg), "%s", arg);
    snprintf(r->pathbuf[0], sizeof(r->pathbuf[0]), "%s", path);
    req_sent(r, zoo_aexists(g->h->zh, path, 1, stat_completion, r));
}

/*
 * Read our election znode with a watch (the wake's), as KIND with ARG: its
 * stat (creation zxid, version) and its data, which says whether we are the
 * standing successor (reg_take_mine). One request, as the exists it replaced.
 */
void
group_send_mine(struct zkelect_group *g, enum req_kind kind, const char *arg)
{
    struct req *r;

    if (!group_connected(g) || !*g->my_znode)
        return;
    if ((r = req_new(g->h, g, kind)) == NULL)
        return;
    if (arg)
        snprintf(r->arg, sizeof(r->arg), "%s", arg);
    snprintf(r->pathbuf[0], sizeof(r->pathbuf[0]), "%s/%s", g->p_election, g->my_znode);
    req_sent(r, zoo_aget(g->h->zh, r->pathbuf[0], 1, data_completion, r));
}

/* ---- the wake ---------------------------------------------------------------- */

/* Slot K of decision E: its node and election znode ("" none), its epoch. */
static bool
decision_slot(const struct zke_elected *e, int k, const char **id, const char **znode,
              uint64_t *epoch)
{
    if (e == NULL || k < 0 || k > e->nslots)
        return false;
    *id = k == 0 ? e->leader : e->slots[k - 1].leader;
    *znode = k == 0 ? e->leader_znode : e->slots[k - 1].leader_znode;
    *epoch = k == 0 ? e->epoch : e->slots[k - 1].epoch;
    return true;
}

/*
 * Append to multi R, after its N ops, the wake of each node that decision E
 * names in a slot at another epoch than BEFORE has there (NULL: nothing
 * before), this node excepted: a setData of the node's election znode with
 * the data it holds (its id). Only that node watches its election znode (a
 * member that follows nothing learns of its election this way), and the op
 * fails the whole multi if the registration named is gone. WRITES such
 * setData ops for each: an elector's wake is two (the znode's version moves
 * by 2), a resigning leader's handover one, so that a successor knows a
 * handover's wake from any other by its version alone (doc/PROTOCOL.md §4,
 * "The fast handover"). Returns the new op count.
 */
int
group_wake_ops(struct zkelect_group *g, struct req *r, int n, const struct zke_elected *e,
               const struct zke_elected *before, int writes)
{
    const char *id, *znode, *bid, *bznode;
    uint64_t epoch, bepoch;
    struct req_wake *w;
    int k, i;

    for (k = 0; decision_slot(e, k, &id, &znode, &epoch); k++) {
        if (!*id || !*znode || strcmp(id, g->self.id) == 0 || n + writes > ZKE_MULTI_MAX)
            continue;
        if (decision_slot(before, k, &bid, &bznode, &bepoch) && bepoch == epoch &&
            strcmp(bznode, znode) == 0)
            continue; /* named before: it knows */
        if (r->wake == NULL && (r->wake = calloc(1, sizeof(*r->wake))) == NULL)
            return n; /* no wake: the node learns at its next read (a resync) */
        w = r->wake;
        if (w->n >= ZKE_LEADERS_MAX)
            break;
        snprintf(w->path[w->n], sizeof(w->path[w->n]), "%s/%s", g->p_election, znode);
        snprintf(w->id[w->n], sizeof(w->id[w->n]), "%s", id);
        if (strcmp(w->path[w->n], g->succ_woken) == 0) {
            /* its data is its id again: named no more (§4, "The standing
               successor"; if this multi fails, the next succession names
               it again, a wake for nothing) */
            g->succ_woken[0] = '\0';
            g->succ_woken_id[0] = '\0';
        }
        for (i = 0; i < writes; i++)
            zoo_set_op_init(&r->ops[n++], w->path[w->n], w->id[w->n], (int)strlen(w->id[w->n]),
                            -1, NULL);
        w->n++;
    }
    return n;
}

/* ---- following: who keeps `elected` and the leader znodes watched ----------- */

/* A candidate in play: registering, past MEMBER, named by the decision it
   read, or holding a leader znode in view. */
static bool
group_in_play(struct zkelect_group *g)
{
    int k;

    if (g->reg == REG_PENDING || g->reg == REG_UNKNOWN || (g->reg == REG_DONE && g->my_czxid == 0))
        return true; /* until its election znode is watched (the wake's) */
    if (g->role != ROLE_MEMBER && g->role != ROLE_NONE)
        return true;
    for (k = 0; k < g->nlv; k++) {
        const struct lview *v = LV(g, k);
        if (v->version >= 0 && v->owner != 0 && v->owner == g->h->session_id)
            return true;
        if (cand_named_slot(g, k))
            return true;
    }
    /* the standing successor (§4): the handover's create goes out with the
       release's notifications only from a view that follows */
    return g->succ_named && g->nlv == 1 && g->reg == REG_DONE;
}

/* The decision in view says every member hears the wake. Before any
   decision, or under one of a release before the wake, nobody might wake
   this member: it follows (PROTOCOL §2, "A release before the wake"). */
static bool
group_wake_trusted(struct zkelect_group *g)
{
    return g->have_elected && g->elected.wake;
}

/* Somebody here needs `elected` and the leader znodes themselves: the
   elector, a wait for the leader, an on_event that takes leader events. */
static bool
group_needs_view(struct zkelect_group *g)
{
    return g->is_elector || g->leader_waiters > 0 ||
           (g->on_event != NULL && !g->no_leader_events);
}

/*
 * The group keeps `elected` and the leader znodes watched (doc/PROTOCOL.md
 * §2, "Who follows"): the elector, a candidate in play, and a group somebody
 * asked about the leader (a leader subscription, a wait, an on-request read).
 * Any other member watches nothing that changes with the leader: the elector
 * wakes it through its own election znode when it elects it.
 */
bool
group_follows(struct zkelect_group *g)
{
    const struct sub *s;

    if (!group_wake_trusted(g) || group_needs_view(g))
        return true;
    for (s = g->subs; s; s = s->next)
        if (!s->dead && (s->mask & ZKELECT_MASK_LEADER))
            return true;
    return group_in_play(g);
}

/*
 * And `elected` too: all but a group of one slot that follows only for a
 * zkelect_subscribe() of +leader-changed. The leader znode says all that
 * such a subscriber is told: who leads, READY or not, the epoch, the
 * previous leader and the leader's record (doc/PROTOCOL.md §2, "Who
 * follows"). It pays a re-arm on the znode's deletion and a read on its
 * creation per change; READY comes with the creation when the takeover has
 * no work.
 */
bool
group_follows_elected(struct zkelect_group *g)
{
    if (!group_wake_trusted(g) || group_needs_view(g))
        return true;
    return group_follows(g) &&
           (g->nlv > 1 || g->reg == REG_LEAVING || group_in_play(g));
}

/*
 * Read again what the group let go while it did not follow (it follows
 * now). WAKE: our election znode was touched, a decision elects us: read
 * `elected` whatever the view says. A leader znode let go is read with an
 * exists first (it sets the watch whether or not the znode is there), and a
 * znode found is read next.
 */
void
view_follow(struct zkelect_group *g, bool wake)
{
    int k;

    if (!group_connected(g) || g->closed)
        return; /* the resync after the reconnect reads everything */
    if (wake || (g->elected_unwatched && group_follows_elected(g))) {
        g->elected_read = false;
        view_read_elected(g);
    }
    for (k = 0; k < g->nlv; k++) {
        struct lview *v = LV(g, k);
        if (!v->unwatched)
            continue;
        v->unwatched = false;
        v->read = false;
        group_send_exists(g, REQ_EXISTS_LEADER, v->path, v->path);
    }
}

/* ---- the shared view: elected and leader --------------------------------- */

void
view_read_elected(struct zkelect_group *g)
{
    g->elected_unwatched = false;
    g->elected_defer = false;
    group_send_get(g, REQ_GET_ELECTED, g->p_elected, NULL);
}

/* Read (and watch) slot K's leader znode; the reply finds the slot by its
   path (r->arg). */
void
view_read_leader_slot(struct zkelect_group *g, int k)
{
    LV(g, k)->unwatched = false;
    LV(g, k)->defer = false;
    group_send_get(g, REQ_GET_LEADER, LV(g, k)->path, LV(g, k)->path);
}

/* The candidate's slot's leader znode (slot 0 in a group with one slot). */
void
view_read_leader(struct zkelect_group *g)
{
    view_read_leader_slot(g, g->cslot);
}

/* Every watched slot's leader znode, afresh (a resync, a stale view). */
void
view_read_leaders(struct zkelect_group *g)
{
    int k;

    for (k = 0; k < g->nlv; k++) {
        LV(g, k)->read = false;
        view_read_leader_slot(g, k);
    }
}

/* The slot whose leader znode is PATH, or -1. */
int
group_slot_of_path(struct zkelect_group *g, const char *path)
{
    int k;

    for (k = 0; k < g->nlv; k++)
        if (strcmp(path, LV(g, k)->path) == 0)
            return k;
    return -1;
}

/* Slot K of the decision in view: its node ("" none), election znode and
   epoch. False when the decision has no slot K. */
bool
view_elected_slot(const struct zkelect_group *g, int k, const char **id, const char **znode,
                  uint64_t *epoch)
{
    const struct zke_slot *s;

    if (!g->have_elected || k < 0 || k > g->elected.nslots)
        return false;
    if (k == 0) {
        *id = g->elected.leader;
        *znode = g->elected.leader_znode;
        *epoch = g->elected.epoch;
        return true;
    }
    s = &g->elected.slots[k - 1];
    *id = s->leader;
    *znode = s->leader_znode;
    *epoch = s->epoch;
    return true;
}

/* The decision read names 1 + nslots slots: watch as many leader znodes
   (and the candidate's own slot, until it has left it). */
void
view_slots_update(struct zkelect_group *g)
{
    int want = g->have_elected ? 1 + g->elected.nslots : g->nlv, k;

    if (want < g->cslot + 1)
        want = g->cslot + 1;
    if (want > 1 && g->lvx == NULL) {
        g->lvx = calloc(ZKE_LEADERS_MAX - 1, sizeof(*g->lvx));
        if (g->lvx == NULL) {
            zke_log(g->h, ZKELECT_LOG_ERR, "%s: out of memory for %d slots; watching one",
                    g->path, want);
            return;
        }
    }
    if (want < g->nlv) {
        g->nlv = want; /* the slots above were released (their watches fire unheeded) */
        return;
    }
    for (k = g->nlv; k < want; k++) {
        struct lview *v = LV(g, k);
        memset(v, 0, sizeof(*v));
        snprintf(v->path, sizeof(v->path), "%s-%d", LV0(g)->path, k);
        v->version = -1;
    }
    k = g->nlv;
    g->nlv = want;
    for (; k < want; k++)
        view_read_leader_slot(g, k);
}

static void
on_elected_reply(struct zkelect_group *g, struct zev *ev)
{
    char err[256];
    int rc;

    if (ev->req->kind == REQ_EXISTS_ELECTED) {
        if (ev->rc == ZOK)
            view_read_elected(g); /* created meanwhile */
        else if (ev->rc == ZNONODE) {
            if (!g->viewed)
                g->h->groups_new = true;
            g->viewed = true;
            g->elected_read = true;
            view_changed(g);
        }
        return;
    }
    if (ev->rc == ZOK || ev->rc == ZNONODE) {
        if (!g->viewed)
            g->h->groups_new = ev->rc == ZNONODE; /* the next group's first read */
        g->viewed = true;
    }
    if (ev->rc == ZNONODE) {
        g->have_elected = false;
        g->elected_version = -1;
        memset(&g->elected, 0, sizeof(g->elected));
        if (view_absent_wait(g)) {
            g->elected_defer = true;
            g->elected_read = true;
            view_changed(g);
            return;
        }
        /* a get on a missing znode sets no watch: an exists does */
        group_send_exists(g, REQ_EXISTS_ELECTED, g->p_elected, NULL);
        return;
    }
    if (ev->rc != ZOK)
        return; /* connection trouble: the resync after reconnect re-reads */
    g->elected_version = ev->stat.version;
    g->elected_mzxid = ev->stat.mzxid;
    rc = zke_elected_decode(ev->data, ev->datalen, &g->elected, err, sizeof(err));
    if (rc != 0) {
        g->have_elected = false;
        memset(&g->elected, 0, sizeof(g->elected));
        group_malformed(g, g->p_elected, ev->data, ev->datalen, err);
    } else {
        g->have_elected = true;
        view_slots_update(g);
    }
    g->elected_read = true;
    view_changed(g);
}

static void
on_leader_reply(struct zkelect_group *g, struct zev *ev)
{
    int k = group_slot_of_path(g, ev->req->arg);
    struct lview *v;
    char err[256];
    int rc;

    if (k < 0)
        return; /* a slot no longer watched */
    v = LV(g, k);
    if (ev->req->kind == REQ_EXISTS_LEADER) {
        if (ev->rc == ZOK) {
            /* there is one again: the view is stale until it is read */
            v->read = false;
            view_read_leader_slot(g, k);
        } else if (ev->rc == ZNONODE) {
            v->read = true;
            view_changed(g);
        }
        return;
    }
    if (ev->rc == ZNONODE) {
        v->have = false;
        v->version = -1;
        v->owner = 0;
        memset(&v->l, 0, sizeof(struct zke_leader));
        /* a get on a missing znode sets no watch: an exists does. Act on
           the absence now rather than after that second round trip. */
        if (view_absent_wait(g))
            v->defer = true;
        else
            group_send_exists(g, REQ_EXISTS_LEADER, v->path, v->path);
        v->read = true;
        view_changed(g);
        return;
    }
    if (ev->rc != ZOK)
        return;
    v->version = ev->stat.version;
    v->owner = ev->stat.ephemeralOwner;
    rc = zke_leader_decode(ev->data, ev->datalen, &v->l, err, sizeof(err));
    if (rc == 0 && v->l.slot != k) {
        snprintf(err, sizeof(err), "slot %d in the leader znode of slot %d", v->l.slot, k);
        rc = ZKELECT_EBADVALUE;
    }
    if (rc != 0) {
        v->have = false;
        memset(&v->l, 0, sizeof(struct zke_leader));
        group_malformed(g, v->path, ev->data, ev->datalen, err);
    } else {
        v->have = true;
        g->saw_leader = true;
    }
    v->read = true;
    view_changed(g);
}

/* A leader keeps the standing succession of its slot in view (it hands
   over with it when it resigns): read and watched from its takeover on. An
   elector that leads knows it without: it writes it (elector_on_succession_reply
   hands each write to view_take_successor), and nobody else does. */
void
view_watch_successor(struct zkelect_group *g)
{
    if (g->succ_watch || g->is_elector)
        return;
    g->succ_watch = true;
    g->succ_have = false;
    /* an exists first: most groups of one member never have a succession */
    group_send_exists(g, REQ_EXISTS_SUCCESSOR, g->p_successor, NULL);
}

/* The successor znode holds DATA (LEN bytes) at VERSION: our slot's entry,
   if we lead it, is what a handover goes with. */
void
view_take_successor(struct zkelect_group *g, const char *data, int len, int32_t version)
{
    struct zke_successor *s;
    const struct zke_succ *e;
    char err[256];

    g->succ_have = false;
    if ((s = calloc(1, sizeof(*s))) == NULL)
        return;
    if (zke_successor_decode(data, len, s, err, sizeof(err)) != 0) {
        group_malformed(g, g->p_successor, data, len, err);
    } else if ((e = zke_successor_slot(s, g->cslot)) != NULL && strcmp(e->leader, g->self.id) == 0 &&
               strcmp(e->leader_znode, g->my_znode) == 0 && strcmp(e->successor, g->self.id) != 0) {
        g->succ = *e;
        g->succ_have = true;
        g->succ_zversion = version;
        g->succ_elected_version = s->elected_version;
        g->succ_history_version = s->history_version;
        g->succ_config_version = s->config_version;
        g->succ_next_epoch = s->next_epoch;
        snprintf(g->succ_elector, sizeof(g->succ_elector), "%s", s->elector);
        snprintf(g->succ_policy, sizeof(g->succ_policy), "%s", s->policy);
    }
    free(s);
}

void
view_on_successor_reply(struct zkelect_group *g, struct zev *ev)
{
    if (ev->req->kind == REQ_EXISTS_SUCCESSOR) {
        if (ev->rc == ZOK)
            group_send_get(g, REQ_GET_SUCCESSOR, g->p_successor, NULL); /* created meanwhile */
        else if (ev->rc != ZNONODE)
            g->succ_watch = false;
        return;
    }
    g->succ_have = false;
    if (ev->rc == ZNONODE) {
        group_send_exists(g, REQ_EXISTS_SUCCESSOR, g->p_successor, NULL);
        return;
    }
    if (ev->rc != ZOK) {
        g->succ_watch = false; /* read again at the next takeover */
        return;
    }
    view_take_successor(g, ev->data, ev->datalen, ev->stat.version);
}

/* Publish a leader change (id, status, epoch) to subscribers. */
/* Publish a change of slot K's leader (id, status, epoch) to subscribers. */
static void
view_publish_slot(struct zkelect_group *g, int k)
{
    struct lview *v = LV(g, k);
    const char *id = v->have ? v->l.id : "";
    int status = v->have ? (int)v->l.status : ZKELECT_STATUS_NONE;
    uint64_t epoch = v->have ? v->l.epoch : 0;
    int was;

    if (!v->read)
        return;
    if (strcmp(id, v->pub_id) == 0 && status == v->pub_status && epoch == v->pub_epoch)
        return;
    if (k == 0 && strcmp(id, v->pub_id) != 0) {
        /* the leader before, for its successor's hooks (a fencing target) */
        if (g->have_leader_info && *v->pub_id && strcmp(g->leader_info.id, v->pub_id) == 0) {
            snprintf(g->prev_info_id, sizeof(g->prev_info_id), "%s", g->leader_info.id);
            snprintf(g->prev_info_host, sizeof(g->prev_info_host), "%s", g->leader_info.host);
        }
        g->have_leader_info = false;
        if (*id && group_registered(g) && strcmp(id, g->self.id) == 0) {
            g->leader_info = g->self;   /* this node leads: its record is here */
            g->have_leader_info = true;
        } else if (*id && v->l.has_member) {
            /* the leader znode says it (no read of the record) */
            memset(&g->leader_info, 0, sizeof(g->leader_info));
            snprintf(g->leader_info.id, sizeof(g->leader_info.id), "%s", id);
            snprintf(g->leader_info.site, sizeof(g->leader_info.site), "%s", v->l.site);
            snprintf(g->leader_info.host, sizeof(g->leader_info.host), "%s", v->l.host);
            g->leader_info.priority = v->l.priority;
            g->have_leader_info = true;
        } else if (*id) {
            char path[ZKE_PATH_MAX];
            struct req *r;
            snprintf(path, sizeof(path), "%s/%s", g->p_nodes, id);
            if (group_connected(g) && (r = req_new(g->h, g, REQ_GET_LEADER_INFO)) != NULL) {
                snprintf(r->arg, sizeof(r->arg), "%s", id);
                req_sent(r, zoo_aget(g->h->zh, path, 0, data_completion, r));
            }
        }
    }
    snprintf(v->pub_id, sizeof(v->pub_id), "%s", id);
    v->pub_status = status;
    v->pub_epoch = epoch;
    was = g->ev_slot;
    g->ev_slot = k;
    if (g->nlv > 1)
        zke_event(g->h, g, ZKELECT_EV_LEADER_CHANGED, id, epoch, 0, "slot %d leader %s%s%s", k,
                  *id ? id : "none", *id ? " " : "", *id ? zkelect_status_name(status) : "");
    else
        zke_event(g->h, g, ZKELECT_EV_LEADER_CHANGED, id, epoch, 0, "leader %s%s%s",
                  *id ? id : "none", *id ? " " : "", *id ? zkelect_status_name(status) : "");
    g->ev_slot = was;
}

void
view_publish_leader(struct zkelect_group *g)
{
    int k;

    for (k = 0; k < g->nlv; k++)
        view_publish_slot(g, k);
}

/* Every watched slot's leader znode was read. */
bool
view_leaders_read(const struct zkelect_group *g)
{
    int k;

    for (k = 0; k < g->nlv; k++)
        if (!LV(g, k)->read)
            return false;
    return true;
}

static void
on_leader_info(struct zkelect_group *g, struct zev *ev)
{
    char err[256];

    if (ev->rc != ZOK || strcmp(ev->req->arg, LV0(g)->pub_id) != 0)
        return;
    if (zke_member_decode(ev->data, ev->datalen, &g->leader_info, err, sizeof(err)) == 0)
        g->have_leader_info = true;
}

/* ---- transitions ------------------------------------------------------------ */

static const char *const role_names[] = {
    [ROLE_NONE] = "none",
    [ROLE_MEMBER] = "member",
    [ROLE_WAITING] = "waiting",
    [ROLE_CREATING] = "creating",
    [ROLE_PROGRESS] = "progress",
    [ROLE_READYING] = "readying",
    [ROLE_READY] = "ready",
    [ROLE_STEPPING_DOWN] = "stepping-down",
    [ROLE_DELETING] = "deleting",
    [ROLE_SUSPENDED] = "suspended",
    [ROLE_FENCED] = "fenced",
};

static const char *const reg_names[] = {
    [REG_NONE] = "none",
    [REG_PENDING] = "pending",
    [REG_UNKNOWN] = "unknown",
    [REG_DONE] = "registered",
    [REG_LEAVING] = "leaving",
};

const char *
group_role_name(enum role r)
{
    return (unsigned)r < sizeof(role_names) / sizeof(role_names[0]) ? role_names[r] : "?";
}

const char *
group_reg_name(enum reg_state r)
{
    return (unsigned)r < sizeof(reg_names) / sizeof(reg_names[0]) ? reg_names[r] : "?";
}

#define R(x) (1u << (x))
/*
 * The legal moves of the role. Every role may fall back to MEMBER or NONE
 * (leadership or registration lost, session expired, a failed request); the
 * rest follow the two-phase takeover (doc/PROTOCOL.md, "Candidate").
 */
static const unsigned role_next[] = {
    [ROLE_NONE] = 0,
    [ROLE_MEMBER] = R(ROLE_WAITING) | R(ROLE_CREATING) | R(ROLE_STEPPING_DOWN) |
                    R(ROLE_DELETING),
    /* DELETING: the leader znode it waits for is a leftover of its own
       (its create found it there) and is released first */
    [ROLE_WAITING] = R(ROLE_CREATING) | R(ROLE_DELETING),
    [ROLE_CREATING] = R(ROLE_PROGRESS) | R(ROLE_WAITING) | R(ROLE_SUSPENDED) |
                      R(ROLE_STEPPING_DOWN) | R(ROLE_FENCED),
    [ROLE_PROGRESS] = R(ROLE_READYING) | R(ROLE_STEPPING_DOWN) | R(ROLE_SUSPENDED),
    [ROLE_READYING] = R(ROLE_READY) | R(ROLE_PROGRESS) | R(ROLE_SUSPENDED) |
                      R(ROLE_STEPPING_DOWN),
    [ROLE_READY] = R(ROLE_READYING) | R(ROLE_STEPPING_DOWN) | R(ROLE_SUSPENDED),
    /* a step-down is never undone: it ends in the release, or FENCED when
       it ended unheard; the release is never suspended either */
    [ROLE_STEPPING_DOWN] = R(ROLE_DELETING) | R(ROLE_FENCED),
    [ROLE_DELETING] = 0,
    /* FENCED: a PROGRESS znode verified, but heard too long ago to take
       over (start_takeover) */
    [ROLE_SUSPENDED] = R(ROLE_READY) | R(ROLE_PROGRESS) | R(ROLE_STEPPING_DOWN) |
                       R(ROLE_CREATING) | R(ROLE_FENCED),
    /* taken over again (CREATING: the leader znode back to PROGRESS) or
       released */
    [ROLE_FENCED] = R(ROLE_CREATING) | R(ROLE_DELETING),
};

/* The legal moves of the registration. */
static const unsigned reg_next[] = {
    [REG_NONE] = R(REG_PENDING),
    [REG_PENDING] = R(REG_DONE) | R(REG_UNKNOWN) | R(REG_NONE),
    [REG_UNKNOWN] = R(REG_PENDING) | R(REG_NONE),
    [REG_DONE] = R(REG_LEAVING) | R(REG_PENDING) | R(REG_NONE),
    [REG_LEAVING] = R(REG_NONE) | R(REG_DONE) | R(REG_PENDING),
};
#undef R

static void
illegal(struct zkelect_group *g, const char *what, const char *from, const char *to)
{
    g->n_illegal++;
    zke_log(g->h, ZKELECT_LOG_ERR, "%s: illegal %s transition %s -> %s (a bug; made anyway)",
            g->path, what, from, to);
}

void
group_role_set(struct zkelect_group *g, enum role to, enum zkelect_event_type ev, uint64_t epoch,
               int err, const char *fmt, ...)
{
    enum role from = g->role;
    char detail[512];
    va_list ap;

    detail[0] = '\0';
    if (fmt) {
        va_start(ap, fmt);
        vsnprintf(detail, sizeof(detail), fmt, ap);
        va_end(ap);
    }
    if (from != to && to != ROLE_MEMBER && to != ROLE_NONE && !(role_next[from] & (1u << to)))
        illegal(g, "role", group_role_name(from), group_role_name(to));
    if (to != ROLE_DELETING)
        g->release_retry = false;
    if (from != to) {
        g->role = to;
        g->role_since_ms = zke_now_ms();
        /* back to a member: the application was told (the step-down ended,
           or -leadership-lost says it) */
        if (to == ROLE_MEMBER || to == ROLE_NONE) {
            g->active = false;
            g->fence_stepdown = false;
        }
        fence_update(g);
        zke_log(g->h, ZKELECT_LOG_DEBUG, "%s: role %s -> %s%s%s", g->path, group_role_name(from),
                group_role_name(to), *detail ? ": " : "", detail);
    }
    if (ev)
        zke_event(g->h, g, ev, g->self.id, epoch, err, "%s", detail);
}

void
group_reg_set(struct zkelect_group *g, enum reg_state to, const char *why)
{
    enum reg_state from = g->reg;

    if (from == to)
        return;
    if (!(reg_next[from] & (1u << to)))
        illegal(g, "registration", group_reg_name(from), group_reg_name(to));
    g->reg = to;
    g->reg_since_ms = zke_now_ms();
    if (to != REG_PENDING)
        view_absent_settle(g, false); /* it ended without its reply */
    zke_log(g->h, ZKELECT_LOG_DEBUG, "%s: registration %s -> %s%s%s", g->path,
            group_reg_name(from), group_reg_name(to), why ? ": " : "", why ? why : "");
}

/* ---- stuck groups ------------------------------------------------------------ */

/*
 * Every state has a way out: a reply outstanding, a watch that will fire, or
 * a timer. A group that is connected, has nothing outstanding, has seen no
 * reply or watch for STUCK_QUIET_MS and still sits in a state that waits for
 * one of those is stuck: a bug. It is reported (-stuck, with the state),
 * counted, and re-driven as a reconnect would: everything re-read, the
 * registration resolved or sent again, the elector deciding again.
 */
#define STUCK_QUIET_MS 2000

/* Why the group's state cannot move on by itself, or false. */
static bool
group_stuck(struct zkelect_group *g, char *why, size_t len)
{
    if (g->reg == REG_PENDING || g->reg == REG_UNKNOWN || g->reg == REG_LEAVING) {
        snprintf(why, len, "registration %s with no request outstanding", group_reg_name(g->reg));
        return true;
    }
    if (((!g->elected_read && group_follows_elected(g)) || !view_leaders_read(g)) &&
        group_follows(g)) {
        /* (one that does not follow lets its view go, by design) */
        snprintf(why, len, "view incomplete (elected %s, leader %s) with no read outstanding",
                 g->elected_read ? "read" : "unread", view_leaders_read(g) ? "read" : "unread");
        return true;
    }
    if (g->reg == REG_DONE && g->my_czxid == 0) {
        snprintf(why, len, "registered as %s, its creation zxid never read", g->my_znode);
        return true;
    }
    if (g->reg == REG_DONE && !g->is_elector && !g->pred_watched) {
        snprintf(why, len, "neither the elector nor watching a predecessor");
        return true;
    }
    return cand_stuck(g, why, len) || elector_stuck(g, why, len);
}

static void
group_redrive(struct zkelect_group *g)
{
    switch (g->role) {
    case ROLE_CREATING:
    case ROLE_READYING:
        /* a leader write that got no reply: as for an unknown outcome, verify */
        group_role_set(g, ROLE_SUSPENDED, 0, g->role_epoch, 0, "re-driven: no reply");
        break;
    case ROLE_DELETING:
        /* a release that got no reply: the step-down is over, so release
           again after the re-read (never back to a leading role) */
        g->release_retry = true;
        break;
    case ROLE_FENCED:
        g->fence_viewed = false; /* read the view again, then decide */
        break;
    default:
        break;
    }
    if (g->reg == REG_LEAVING)
        group_reg_set(g, REG_DONE, "re-driven: the leave is sent again");
    if (g->reg == REG_DONE && g->is_elector)
        g->reasons |= ZKELECT_REASON_INITIAL;
    group_resync(g);
}

void
group_check_stuck(struct zkelect_group *g, uint64_t now)
{
    char why[256];
    uint64_t wait;

    if (g->closed || !group_connected(g) || g->refs > 1 || g->kqueued ||
        now < g->h->connected_ms + STUCK_QUIET_MS || now < g->activity_ms + STUCK_QUIET_MS)
        return;
    if (!group_stuck(g, why, sizeof(why))) {
        g->stuck_backoff = 0;
        return;
    }
    /* re-drive at once, then back off (2, 4 ... 64 s) while it stays stuck */
    wait = (uint64_t)STUCK_QUIET_MS << (g->stuck_backoff < 5 ? g->stuck_backoff : 5);
    if (g->stuck_redrive_ms && now < g->stuck_redrive_ms + wait)
        return;
    g->stuck_redrive_ms = now;
    g->stuck_backoff++;
    g->n_stuck++;
    zke_event(g->h, g, ZKELECT_EV_STUCK, *g->self.id ? g->self.id : NULL, g->role_epoch, 0,
              "stuck for %llu ms: %s (role %s for %llu ms, registration %s%s); re-driving",
              (unsigned long long)(now - g->activity_ms), why, group_role_name(g->role),
              (unsigned long long)(now - g->role_since_ms), group_reg_name(g->reg),
              g->is_elector ? ", elector" : "");
    group_redrive(g);
}

/* The library thread fell behind (loop.c): an elector with a timer armed
   reads again what the timer acts on before it may act. */
void
group_view_stale(struct zkelect_group *g)
{
    int k;

    if (g->closed || !g->is_elector || !group_connected(g))
        return;
    for (k = 0; k < g->nlv && LV(g, k)->wd_deadline == 0; k++)
        ;
    if (k == g->nlv && g->exclusions == NULL)
        return;
    elector_watchdog_restart(g);
    g->elected_read = false;
    view_read_elected(g);
    view_read_leaders(g);
}

/* ---- view changes -------------------------------------------------------- */

void
view_changed(struct zkelect_group *g)
{
    if (group_follows(g))
        view_follow(g, false); /* named now, say: read what was let go */
    view_publish_leader(g);
    cand_step(g);
    if (g->is_elector) {
        elector_import(g);
        elector_view_changed(g);
    }
}

/* ---- session events ------------------------------------------------------- */

/* ---- the pipeline queue (internal.h) --------------------------------------- */

void
group_kick_run(struct zkelect_group *g, unsigned what)
{
    if (what & KICK_RESYNC)
        group_resync(g);
    else if ((what & KICK_REGISTER) && g->reg == REG_PENDING && group_connected(g))
        reg_register(g);
}

/* Start WHAT for g now if the pipeline allows, else when it has drained. */
void
group_kick(struct zkelect_group *g, unsigned what)
{
    struct zkelect *h = g->h;

    if (!g->kqueued && zke_pipe_len(h) < ZKE_PIPE_MAX) {
        group_kick_run(g, what);
        return;
    }
    g->kick |= what;
    if (g->kqueued)
        return;
    g->kqueued = true;
    g->refs++;
    if (g->active || h->khead == NULL) {
        /* a leader verifies (and keeps its fence fed) before the crowd */
        g->knext = h->khead;
        h->khead = g;
        if (h->ktail == NULL)
            h->ktail = g;
    } else {
        g->knext = NULL;
        h->ktail->knext = g;
        h->ktail = g;
    }
}

/* Read `elected` and the leader znodes, and watch them. */
void
view_first(struct zkelect_group *g)
{
    int k;

    g->view_deferred = false;
    if (!g->viewed && g->h->groups_new) {
        /* the group's first view, on a handle whose last group opened had
           nothing yet (a burst of new groups): an exists finds the absence
           and watches in one request, where a get needs a second (one found
           is read next) */
        g->elected_unwatched = g->elected_defer = false;
        group_send_exists(g, REQ_EXISTS_ELECTED, g->p_elected, NULL);
        for (k = 0; k < g->nlv; k++) {
            LV(g, k)->read = false;
            LV(g, k)->unwatched = LV(g, k)->defer = false;
            group_send_exists(g, REQ_EXISTS_LEADER, LV(g, k)->path, LV(g, k)->path);
        }
    } else {
        view_read_elected(g);
        view_read_leaders(g);
    }
}

/*
 * Our registration's multi created the group's base (doc/PROTOCOL.md §2,
 * "A new group"): nothing was under it, so `elected` and the leader znodes
 * are absent without a read. Until we write them nobody else can: we hold
 * the lowest election znode (the elector), only a node we elect creates a
 * leader znode, and no tool writes either. So they are watched only once
 * our own write's reply is in (view_arm_deferred and its callers), where a
 * watch set now would fire on that write and need a re-read anyway.
 */
void
view_absent(struct zkelect_group *g)
{
    int k;

    g->view_deferred = false;
    g->viewed = true;
    g->h->groups_new = true;
    g->have_elected = false;
    g->elected_version = -1;
    memset(&g->elected, 0, sizeof(g->elected));
    g->elected_read = true;
    g->elected_unwatched = false;
    g->elected_defer = true;
    for (k = 0; k < g->nlv; k++) {
        struct lview *v = LV(g, k);
        v->have = false;
        v->version = -1;
        v->owner = 0;
        memset(&v->l, 0, sizeof(struct zke_leader));
        v->read = true;
        v->unwatched = false;
        v->defer = true;
    }
    view_changed(g);
}

/*
 * The group's first read found `elected` or a leader znode absent while our
 * registration, whose multi creates the base, is pending (a group opened
 * and nominated before its first view came back). If that multi does
 * create the base, the znode was absent by construction, as view_absent
 * says: the exists that would watch it now waits for the registration's
 * reply (view_absent_settle), and is not sent if the base was ours.
 */
bool
view_absent_wait(struct zkelect_group *g)
{
    if (g->reg != REG_PENDING || g->paths_ok || g->paths_skip != 0)
        return false;
    g->absent_wait = true;
    return true;
}

/* The registration's reply is in (CREATED: its multi created the base), or
   the registration ended without one: watch what waited, unless the base
   was ours (then our own writes arm it, view_absent). */
void
view_absent_settle(struct zkelect_group *g, bool created)
{
    if (!g->absent_wait)
        return;
    g->absent_wait = false;
    if (created) {
        g->viewed = true;
        g->h->groups_new = true;
    } else {
        view_arm_deferred(g, -1);
    }
}

/* Watch what view_absent left unwatched, except slot SKIP (-1: none), a
   slot whose leader znode our own create is about to write. */
void
view_arm_deferred(struct zkelect_group *g, int skip)
{
    int k;

    if (g->elected_defer) {
        g->elected_defer = false;
        group_send_exists(g, REQ_EXISTS_ELECTED, g->p_elected, NULL);
    }
    for (k = 0; k < g->nlv; k++)
        if (LV(g, k)->defer && k != skip) {
            LV(g, k)->defer = false;
            group_send_exists(g, REQ_EXISTS_LEADER, LV(g, k)->path, LV(g, k)->path);
        }
}

/* Does G hold or claim a leader znode (any role but a plain member's)? */
static bool
group_holds_leader(const struct zkelect_group *g)
{
    return g->role != ROLE_NONE && g->role != ROLE_MEMBER && g->role != ROLE_WAITING;
}

void
group_resync(struct zkelect_group *g)
{
    int k;

    g->fresh = false; /* started here, not at the burst's end (loop.c) */
    if (!group_connected(g) || g->closed)
        return;
    g->kick = 0; /* whatever waited in the pipeline queue is done here */
    g->elected_read = false;
    g->elected_defer = false;
    g->absent_wait = false;
    for (k = 0; k < g->nlv; k++)
        LV(g, k)->defer = false;
    if (g->sync_first || group_holds_leader(g)) {
        /* The server we reconnected to may lag behind the ZooKeeper
           leader: the reconnect waits only for the zxids this session has
           seen. Two things it may not have applied yet:
           - a write of ours that got no answer before the connection went
             (sync_first): a leader would read its own READY as PROGRESS
             and run its takeover again;
           - what others did meanwhile, for a node that holds or claims a
             leader znode: its znodes' deletion (its session closed from
             outside while this handle lived on) and the next leader's
             takeover. Read there, a suspended leader would resume beside
             the next one, and a release would delete the next leader's
             znode by its version.
           The sync makes this server catch up first: the session's later
           reads wait for it (pipelined, no round trip of its own) */
        struct req *r = req_new(g->h, g, REQ_SYNC);
        g->sync_first = false;
        if (r)
            req_sent(r, zoo_async(g->h->zh, g->path, string_completion, r));
    }
    if (g->czxid_assumed && g->reg == REG_DONE) {
        /* an elector that took its creation zxid as known watches its
           election znode only through its listing, which a resync reads
           after the view: a suspended leader would resume on the view
           before it learned that its registration was deleted meanwhile.
           Look first (the answer comes before the view's) */
        group_send_mine(g, REQ_WATCH_MINE, "our election znode was deleted");
    }
    if (!g->viewed && g->reg == REG_PENDING && !g->paths_ok && g->paths_skip == 0)
        g->view_deferred = true; /* nominated before anything was read: the
                                    registration below creates the base (a new
                                    group: view_absent) or finds it (view_first
                                    then, one round trip later; no request more) */
    else
        view_first(g);
    if (g->reg == REG_PENDING || g->reg == REG_NONE) {
        if (g->reg == REG_PENDING)
            reg_register(g);
    } else if (g->reg == REG_UNKNOWN) {
        reg_find_mine(g);
    } else if (g->reg == REG_DONE) {
        if (g->is_elector)
            elector_reread(g); /* same session: exclusions and timers are kept */
        else
            reg_list_election(g, false);
        if (g->my_czxid == 0) {
            /* the read of our election znode's creation zxid was cut off,
               and with it the wake's watch it sets: both again (a cut-off
               read of our record re-arms it too, recheck_mine below; this
               one does not count on that) */
            char path[ZKE_PATH_MAX];
            snprintf(path, sizeof(path), "%s/%s", g->p_election, g->my_znode);
            group_send_mine(g, REQ_STAT_MINE, path);
        }
        if (g->recheck_mine) {
            g->recheck_mine = false;
            group_send_mine(g, REQ_WATCH_MINE, "our election znode was deleted");
            reg_read_self(g);
        }
        if (g->member_dirty) {
            g->member_dirty = false;
            zkelect_set_priority(g, g->self.priority); /* rewrites the record */
        }
    } else if (g->reg == REG_LEAVING) {
        reg_unregister(g);
    }
}

void
group_on_session(struct zkelect_group *g, enum sess_state prev, enum sess_state now)
{
    int k;

    (void)prev;
    if (g->closed)
        return;
    g->fast_hint = false;
    group_unhold(g, false); /* the resync reads everything */
    if (now == SESS_CONNECTING || now == SESS_AUTH_FAILED) {
        /* a leader suspends (the self-fence steps it down if it stays
           unheard); a step-down goes on, a release is sent again once heard */
        if (g->role == ROLE_CREATING || g->role == ROLE_PROGRESS || g->role == ROLE_READYING ||
            g->role == ROLE_READY)
            group_role_set(g, ROLE_SUSPENDED, ZKELECT_EV_SUSPENDED, g->role_epoch, 0,
                           "connection lost: leadership suspended until verified");
        else if (g->role == ROLE_DELETING)
            g->release_retry = true;
        return;
    }
    if (now == SESS_EXPIRED) {
        if (g->is_elector)
            elector_stop(g, "session expired");
        if (cand_role_leading(g->role) || g->role == ROLE_SUSPENDED || g->role == ROLE_FENCED)
            group_role_set(g, g->reg != REG_NONE ? ROLE_MEMBER : ROLE_NONE, ZKELECT_EV_LOST,
                           g->role_epoch, ZKELECT_EEXPIRED, "session expired: leadership lost");
        else
            group_role_set(g, g->reg != REG_NONE ? ROLE_MEMBER : ROLE_NONE, 0, 0, 0,
                           "session expired");
        if (g->reg == REG_LEAVING || (g->leaving && g->reg != REG_NONE))
            group_reg_set(g, REG_NONE, "session expired: our znodes are gone");
        else if (g->reg != REG_NONE)
            group_reg_set(g, REG_PENDING, "session expired: registering on the new session");
        g->my_znode[0] = '\0';
        g->rereg_pending = false; /* the new session registers anyway */
        g->recheck_mine = false;
        g->elected_version = -1;
        g->have_elected = g->elected_read = false;
        g->succ_watch = g->succ_have = g->succ_named = false;
        for (k = 0; k < g->nlv; k++) {
            LV(g, k)->version = -1;
            LV(g, k)->have = LV(g, k)->read = false;
        }
        reg_new_guid(g->guid);
        if (g->leaving && g->reg == REG_NONE)
            reg_unregistered(g);
        return;
    }
    if (now == SESS_CONNECTED)
        group_kick(g, KICK_RESYNC);
}

/* ---- dispatch --------------------------------------------------------------- */

void
group_on_watch(struct zkelect_group *g, int type, const char *path)
{
    size_t nn = strlen(g->p_nodes);
    int k;

    if (reg_on_watch(g, type, path))
        return;
    if (strcmp(path, g->p_elected) == 0 || group_slot_of_path(g, path) >= 0) {
        if (!group_follows(g) || (strcmp(path, g->p_elected) == 0 && !group_follows_elected(g))) {
            /* nobody here needs it: let it go (no request), stale until
               read again (view_follow) */
            if (strcmp(path, g->p_elected) == 0) {
                g->elected_unwatched = true;
                g->elected_read = false;
            } else {
                struct lview *v = LV(g, group_slot_of_path(g, path));
                v->unwatched = true;
                v->have = false; /* unknown (never ours: a holder follows) */
                v->version = -1;
                v->owner = 0;
                v->read = false;
            }
            return;
        }
    }
    if (strcmp(path, g->p_elected) == 0) {
        /* the elector decides on `elected` as it is now (a resigning leader
           may have written a handover decision), never on the one before */
        if (g->is_elector)
            g->elected_read = false;
        if (g->fast_hint && cand_fast_possible(g)) {
            g->elected_read = false; /* read once the batch is handled */
            g->held_elected = true;
            group_hold(g);
        } else {
            view_read_elected(g);
        }
    } else if (strcmp(path, g->p_successor) == 0) {
        if (cand_role_leading(g->role))
            group_send_get(g, REQ_GET_SUCCESSOR, g->p_successor, NULL);
        else
            g->succ_watch = g->succ_have = false;
    } else if ((k = group_slot_of_path(g, path)) >= 0) {
        struct lview *v = LV(g, k);
        if (type == ZOO_DELETED_EVENT) {
            /* gone: no need to read it; re-arm with an exists-watch and act
               at once (a candidate waiting for it creates its own now) */
            if (k == 0)
                g->fast_hint = true; /* until the next reply (cand_fast_create) */
            v->have = false;
            v->version = -1;
            v->owner = 0;
            memset(&v->l, 0, sizeof(struct zke_leader));
            v->read = true;
            if (k == 0 && group_follows_elected(g) && !g->elected_unwatched &&
                cand_fast_possible(g)) {
                /* perhaps a release naming us: its wake may follow in
                   this batch, and a fast create goes out first */
                g->held_leader = true;
                group_hold(g);
            } else {
                group_send_exists(g, REQ_EXISTS_LEADER, v->path, v->path);
            }
            view_changed(g);
        } else {
            /* created or changed: stale until read again (as above) */
            v->read = false;
            view_read_leader_slot(g, k);
        }
    } else if (strcmp(path, g->p_election) == 0) {
        if (type == ZOO_CHILD_EVENT && g->is_elector)
            reg_list_election(g, true);
    } else if (strncmp(path, g->p_nodes, nn) == 0 && path[nn] == '/') {
        if (elector_tracks(g, path + nn + 1)) {
            if (type == ZOO_DELETED_EVENT)
                elector_member_deleted(g, path + nn + 1);
            else
                elector_read_member(g, path + nn + 1);
        }
    } else if (strcmp(path, g->p_config) == 0) {
        /* created where the elector knew none: an operator's first config,
           or a handover's check that there is still none (its create and
           delete, doc/PROTOCOL.md §4). An exists tells them apart and
           re-arms the watch in the second case (one request, not a read
           answered "no node" and then the exists) */
        if (g->is_elector && type == ZOO_CREATED_EVENT && g->config_read &&
            g->config_version == -1)
            group_send_exists(g, REQ_EXISTS_CONFIG, g->p_config, NULL);
        else if (g->is_elector)
            group_send_get(g, REQ_GET_CONFIG, g->p_config, NULL);
    } else if (strcmp(path, g->p_switchover) == 0) {
        if (g->is_elector)
            group_send_get(g, REQ_GET_SWITCHOVER, g->p_switchover, NULL);
    }
}

/* A request that writes (its outcome may be unknown). */
static bool
req_writes(enum req_kind kind)
{
    switch (kind) {
    case REQ_REGISTER: case REQ_DECIDE: case REQ_LEADER_CREATE: case REQ_LEADER_READY:
    case REQ_LEADER_DELETE: case REQ_LEADER_FENCE: case REQ_UPDATE_MEMBER: case REQ_UNREGISTER:
    case REQ_CREATE_ELECTION: case REQ_LEADER_RETAKE: case REQ_SUCCESSOR_WRITE:
    case REQ_ENSURE_PATH:
        return true;
    default:
        return false;
    }
}

/*
 * Hold back G's reads of slot 0's leader znode and of `elected` (g->held_*)
 * while the notifications queued with the leader znode's deletion are
 * handled: when they hold a handover's wake, the fast create goes out
 * before them (ZooKeeper answers a session's requests in order, and reads
 * sent first would make the create's reply wait for them). They go out at
 * the wake, at the group's next reply or session event, or when the
 * library's queue is empty (loop.c), whichever comes first. One group at a
 * time: another one's hold sends the first one's reads.
 */
void
group_hold(struct zkelect_group *g)
{
    struct zkelect *h = g->h;

    if (h->held != NULL && h->held != g)
        group_unhold(h->held, true);
    h->held = g;
}

/* Send what G held back (SEND), or forget it (a resync reads everything). */
void
group_unhold(struct zkelect_group *g, bool send)
{
    if (g->h->held == g)
        g->h->held = NULL;
    if (g->held_leader) {
        g->held_leader = false;
        if (send)
            group_send_exists(g, REQ_EXISTS_LEADER, LV(g, 0)->path, LV(g, 0)->path);
    }
    if (g->held_elected) {
        g->held_elected = false;
        if (send)
            view_read_elected(g);
    }
}

/*
 * Step aside for a handover (doc/PROTOCOL.md §4). A resigning leader's
 * multi deletes slot 0's leader znode and then writes `elected`: a member
 * that follows (the elector among them) and hears both in that order, with
 * no reply between them, while it decides nothing, is most likely seeing a
 * handover, whose successor creates its leader znode next. Its reactions
 * (the reads of `elected` and of the listing, a re-arm, the elector's write
 * of the history and the next succession) would be served by the same
 * servers as that create, just then; none of them is needed for it. So the
 * group handles this notification and every event of it after it later,
 * in the order they came (loop.c): when the leader znode appears (its
 * exists-watch, armed at the deletion, fires, or a read finds it), when
 * its own election znode is written (a wake: it is the successor), at a
 * session event, when the group is closed, or after ZKE_PAUSE_MS. A delay
 * of a node's events that keeps their order is a schedule ZooKeeper and
 * the model allow anyway.
 */
bool
group_pause_starts(struct zkelect_group *g, int type, const char *path)
{
    return type == ZOO_CHANGED_EVENT && strcmp(path, g->p_elected) == 0 &&
           g->fast_hint && !g->deciding && g->nlv == 1 &&
           /* every member wakes the successor (a leaver of a release
              before the wake would not: its successor would sit out the
              whole pause, not knowing it is the one) */
           g->have_elected && g->elected.wake &&
           /* an elector that is the successor may hear no wake (a new
              group's watches no election znode of its own, §2) */
           (!g->is_elector || (g->succ_zstate == 1 && !g->succ_self)) &&
           g->role == ROLE_MEMBER && g->reg == REG_DONE && !g->leaving &&
           group_connected(g);
}

/* Whether EV, an event of the paused group G, ends the pause (above). */
bool
group_pause_ends(struct zkelect_group *g, const struct zev *ev)
{
    char mine[ZKE_PATH_MAX];

    if (ev->kind == ZEV_REPLY)
        return (ev->req->kind == REQ_EXISTS_LEADER || ev->req->kind == REQ_GET_LEADER) &&
               ev->rc == ZOK && strcmp(ev->req->arg, LV(g, 0)->path) == 0;
    if (ev->kind != ZEV_WATCH)
        return true;
    if (group_slot_of_path(g, ev->path) == 0)
        return true;
    snprintf(mine, sizeof(mine), "%s/%s", g->p_election, g->my_znode);
    return strcmp(ev->path, mine) == 0;
}

void
group_on_reply(struct zkelect_group *g, struct zev *ev)
{
    g->fast_hint = false; /* a wake from here on is not the release's batch */
    if (g->held_leader || g->held_elected)
        group_unhold(g, true);
    if (zkerr_outcome_unknown(ev->rc) && req_writes(ev->req->kind))
        g->sync_first = true;
    switch (ev->req->kind) {
    case REQ_SYNC:
        if (ev->rc != ZOK && !zkerr_outcome_unknown(ev->rc) && ev->rc != ZCLOSING)
            zke_log(g->h, ZKELECT_LOG_WARNING, "%s: sync: %s", g->path, zerror(ev->rc));
        break;
    case REQ_GET_ELECTED:
    case REQ_EXISTS_ELECTED:    on_elected_reply(g, ev); break;
    case REQ_GET_LEADER:
    case REQ_EXISTS_LEADER:     on_leader_reply(g, ev); break;
    case REQ_ENSURE_PATH:
        if (ev->rc != ZOK && ev->rc != ZNODEEXISTS && !zkerr_outcome_unknown(ev->rc))
            zke_log(g->h, ZKELECT_LOG_WARNING, "%s: cannot create a parent znode: %s", g->path,
                    zerror(ev->rc));
        break;
    case REQ_REGISTER:          reg_on_register_reply(g, ev); break;
    case REQ_CHECK_ID:          reg_on_check_id_reply(g, ev); break;
    case REQ_FIND_MINE:         reg_on_find_mine_reply(g, ev); break;
    case REQ_LIST_ELECTION:     reg_on_list_reply(g, ev); break;
    case REQ_WATCH_PRED:        reg_on_pred_reply(g, ev); break;
    case REQ_GET_MEMBER:        elector_on_member_reply(g, ev); break;
    case REQ_GET_CONFIG:
    case REQ_EXISTS_CONFIG:     elector_on_config_reply(g, ev); break;
    case REQ_GET_SWITCHOVER:
    case REQ_EXISTS_SWITCHOVER: elector_on_switchover_reply(g, ev); break;
    case REQ_GET_HISTORY:       elector_on_history_reply(g, ev); break;
    case REQ_DECIDE:            elector_on_decide_reply(g, ev); break;
    case REQ_SUCCESSOR_WRITE:   elector_on_succession_reply(g, ev); break;
    case REQ_GET_SUCCESSOR:
    case REQ_EXISTS_SUCCESSOR:  view_on_successor_reply(g, ev); break;
    case REQ_LEADER_CREATE:     cand_on_leader_create_reply(g, ev); break;
    case REQ_LEADER_READY:      cand_on_leader_ready_reply(g, ev); break;
    case REQ_LEADER_DELETE:     cand_on_leader_delete_reply(g, ev); break;
    case REQ_LEADER_RETAKE:     cand_on_leader_retake_reply(g, ev); break;
    case REQ_LEADER_FENCE:      elector_on_fence_reply(g, ev); break;
    case REQ_UPDATE_MEMBER:
        if (ev->rc != ZOK)
            g->member_dirty = true;
        break;
    case REQ_UNREGISTER:        reg_on_unregister_reply(g, ev); break;
    case REQ_GET_LEADER_INFO:   on_leader_info(g, ev); break;
    case REQ_STAT_MINE:         reg_on_stat_mine_reply(g, ev); break;
    case REQ_CREATE_ELECTION:   reg_on_create_election_reply(g, ev); break;
    case REQ_READ_SELF:         reg_on_read_self_reply(g, ev); break;
    case REQ_WATCH_MINE:        reg_on_watch_mine_reply(g, ev); break;
    case REQ_NUDGE:             break;
    case REQ_PROBE:             break;
    }
}

/* ---- lifetime ------------------------------------------------------------------ */

void
group_free(struct zkelect_group *g)
{
    struct sub *s, *sn;
    size_t i;

    elector_free(g);
    free(g->self_data);
    for (s = g->subs; s; s = sn) {
        sn = s->next;
        free(s);
    }
    for (i = 0; i < g->nopt_kv; i++)
        free(g->opt_kv[i]);
    free(g->opt_kv);
    free(g->policy_name);
    free(g->policy_path);
    free(g->lvx);
    free(g);
}

void
group_release(struct zkelect_group *g)
{
    if (--g->refs == 0 && g->closed)
        group_free(g);
}

