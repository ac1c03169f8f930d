/*
 * elector.c - the elector (runs on the library thread, on the node whose
 * election znode is the lowest).
 *
 * Owns: the member cache, the config, switchover and history znodes as read,
 * the policy, decisions (`elected` and the history in one checked multi), the
 * watchdog over a decision whose leader is not READY, fencing of a stale
 * leader znode, and exclusions.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "group.h"
#include "slots.h"
#include "zkerr.h"

/* ---- the elector's member cache ------------------------------------------ */

static struct member_cache *
member_find(struct zkelect_group *g, const char *id)
{
    struct member_cache *m;

    for (m = g->members; m; m = m->next)
        if (strcmp(m->rec.id, id) == 0)
            return m;
    return NULL;
}

static void
members_clear(struct zkelect_group *g)
{
    struct member_cache *m, *n;

    for (m = g->members; m; m = n) {
        n = m->next;
        free(m);
    }
    g->members = NULL;
}

static bool
member_present(struct zkelect_group *g, const char *id)
{
    struct member_cache *m = *id ? member_find(g, id) : NULL;
    return m && m->loaded && m->valid;
}

/* The leader `elected` names is still a live member, with the very
   registration it was elected with (not a later session of the same id). */
static bool
elected_present(struct zkelect_group *g)
{
    struct member_cache *m;

    if (!g->have_elected || !*g->elected.leader || !member_present(g, g->elected.leader))
        return false;
    m = member_find(g, g->elected.leader);
    return !*g->elected.leader_znode || strcmp(m->znode, g->elected.leader_znode) == 0;
}

static int effective_watchdog_ms(struct zkelect_group *g);

/* Slots the decision in view has: 1 + its extra slots (doc/PROTOCOL.md,
   "N active leaders"). */
static int
eslots(struct zkelect_group *g)
{
    return g->have_elected ? 1 + g->elected.nslots : 1;
}

/* Slot K of the decision in view: its node ("" none), and its epoch. */
static const char *
eslot(struct zkelect_group *g, int k, uint64_t *epoch)
{
    const char *id = "", *znode;
    uint64_t e = 0;

    if (!view_elected_slot(g, k, &id, &znode, &e))
        id = "";
    if (epoch)
        *epoch = e;
    return id;
}

/* Slot K's node is still a live member with the registration it was
   elected with (elected_present for any slot). */
static bool
eslot_present(struct zkelect_group *g, int k)
{
    const char *id = "", *znode = "";
    struct member_cache *m;
    uint64_t e;

    if (!view_elected_slot(g, k, &id, &znode, &e) || !*id || !member_present(g, id))
        return false;
    m = member_find(g, id);
    return !*znode || strcmp(m->znode, znode) == 0;
}

/* Every slot of the decision names a live member (or nobody). */
static bool
all_present(struct zkelect_group *g)
{
    int k;

    for (k = 0; k < eslots(g); k++)
        if (*eslot(g, k, NULL) && !eslot_present(g, k))
            return false;
    return true;
}

/* Slot K's leader znode shows the node its decision names, at its epoch
   (READY too when READY is set). */
static bool
eslot_znode(struct zkelect_group *g, int k, bool ready)
{
    struct lview *v = LV(g, k);
    uint64_t e;
    const char *id = eslot(g, k, &e);

    return *id && k < g->nlv && v->have && strcmp(v->l.id, id) == 0 && v->l.epoch == e &&
           (!ready || v->l.status == ZKELECT_STATUS_READY);
}

/* Arm slot K's watchdog for epoch E. */
static void
watchdog_arm(struct zkelect_group *g, int k, uint64_t e)
{
    struct lview *v = LV(g, k);

    v->wd_deadline = zke_now_ms() + (uint64_t)effective_watchdog_ms(g);
    group_timer_changed(g);
    v->wd_epoch = e;
    v->wd_fenced = false;
    v->wd_start_ms = zke_now_ms();
    v->wd_postponed_ms = 0;
}

static struct exclusion *
exclusion_find(struct zkelect_group *g, const char *id)
{
    struct exclusion *x;

    for (x = g->exclusions; x; x = x->next)
        if (strcmp(x->id, id) == 0)
            return x;
    return NULL;
}

static void
exclusion_add(struct zkelect_group *g, const char *id, const char *reason, uint64_t until)
{
    struct exclusion *x = exclusion_find(g, id);

    if (x == NULL) {
        x = calloc(1, sizeof(*x));
        if (x == NULL)
            return;
        snprintf(x->id, sizeof(x->id), "%s", id);
        x->next = g->exclusions;
        g->exclusions = x;
    }
    snprintf(x->reason, sizeof(x->reason), "%s", reason);
    x->until_ms = until;
    group_timer_changed(g);
}

static void
exclusions_clear(struct zkelect_group *g)
{
    struct exclusion *x, *n;

    for (x = g->exclusions; x; x = n) {
        n = x->next;
        free(x);
    }
    g->exclusions = NULL;
}

/* The config znode as the elector last read it; held only by electors (it is
   12 KiB decoded): none reads as all defaults. */
static const struct zke_config config_none;
#define CFG(g) ((const struct zke_config *)((g)->config ? (g)->config : &config_none))

static void
config_clear(struct zkelect_group *g)
{
    free(g->config);
    g->config = NULL;
    free(g->drain_mono);
    g->drain_mono = NULL;
}

static int
effective_watchdog_ms(struct zkelect_group *g)
{
    return CFG(g)->watchdog_ms ? (int)CFG(g)->watchdog_ms : g->watchdog_ms;
}

static int
effective_exclude_ms(struct zkelect_group *g)
{
    return CFG(g)->exclude_ms ? (int)CFG(g)->exclude_ms : g->exclude_ms;
}

/* Issue 16's timings: the config znode's value when it has one, else this
   node's default (zkelect_group_options, zkelectd's [election]). */
static int
effective_settle_ms(struct zkelect_group *g)
{
    return CFG(g)->settle_set ? (int)CFG(g)->settle_ms : g->settle_ms;
}

static int
effective_expect(struct zkelect_group *g)
{
    return CFG(g)->expect ? (int)CFG(g)->expect : g->expect;
}

static int
effective_failback_ms(struct zkelect_group *g)
{
    return CFG(g)->failback_set ? (int)CFG(g)->failback_delay_ms : g->failback_delay_ms;
}

static int
effective_min_move_ms(struct zkelect_group *g)
{
    return CFG(g)->min_move_set ? (int)CFG(g)->min_move_interval_ms : g->min_move_interval_ms;
}

/* A wall-clock time written by an operator (a drain's end, a scheduled
   switchover), as a CLOCK_MONOTONIC deadline: the wall clock is read once,
   when the znode is read; from then on only the monotonic clock counts. */
static uint64_t
wall_to_mono(int64_t wall_ms, uint64_t now)
{
    int64_t left = wall_ms - zke_wall_ms();

    return left > 0 ? now + (uint64_t)left : now;
}

/* ID is drained by an operator (config "drains") with time left. */
static bool
drained(struct zkelect_group *g, const char *id, uint64_t now)
{
    int i;

    if (g->config == NULL || g->drain_mono == NULL)
        return false;
    for (i = 0; i < g->config->ndrains; i++)
        if (strcmp(g->config->drains[i].id, id) == 0)
            return g->drain_mono[i] > now;
    return false;
}

/* M could lead: loaded, valid, eligible, healthy, not excluded and not
   drained (what every policy is given as eligible, and what shipped ones
   require). */
static bool
member_can_lead(struct zkelect_group *g, const struct member_cache *m, uint64_t now)
{
    return m->loaded && m->valid && m->rec.eligible && m->rec.healthy &&
           exclusion_find(g, m->rec.id) == NULL && !drained(g, m->rec.id, now);
}

/* The configs differ in nothing but their drains, or their number of slots
   (`leaders`): neither is a change of the rules that an operator wants
   acted on at once (a drain moves only the drained node; a new N fills or
   releases slots and leaves every slot that stays alone, also under
   preempt = on). */
static bool
config_same_but_drains(const struct zke_config *a, const struct zke_config *b)
{
    int i;

    if (strcmp(a->policy, b->policy) != 0 || a->nsites != b->nsites ||
        a->watchdog_ms != b->watchdog_ms || a->exclude_ms != b->exclude_ms ||
        a->noptions != b->noptions || a->paused != b->paused ||
        a->settle_set != b->settle_set || a->settle_ms != b->settle_ms ||
        a->expect != b->expect || a->failback_set != b->failback_set ||
        a->failback_delay_ms != b->failback_delay_ms || a->min_move_set != b->min_move_set ||
        a->min_move_interval_ms != b->min_move_interval_ms)
        return false;
    for (i = 0; i < a->nsites; i++)
        if (strcmp(a->sites[i].site, b->sites[i].site) != 0 ||
            a->sites[i].priority != b->sites[i].priority)
            return false;
    for (i = 0; i < a->noptions; i++)
        if (strcmp(a->options[i].key, b->options[i].key) != 0 ||
            strcmp(a->options[i].value, b->options[i].value) != 0)
            return false;
    return true;
}

/* A member the elector has seen valid, eligible and healthy: since when. */
static void
member_ok_update(struct member_cache *m)
{
    bool ok = m->loaded && m->valid && m->rec.eligible && m->rec.healthy;

    if (!ok)
        m->ok_since = 0;
    else if (m->ok_since == 0)
        m->ok_since = zke_now_ms();
}

/* ---- the elector ----------------------------------------------------------- */

static int history_store(struct zkelect_group *g, const char *buf, size_t len,
                         uint64_t last_epoch);

/* LISTING: the reply of a listing of election/ that set the children's
   watch (the elector's own; NULL: list now). */
void
elector_start(struct zkelect_group *g, struct zev *listing)
{
    g->is_elector = true;
    group_timer_changed(g);
    g->election_read = g->config_read = g->switchover_read = g->history_read = false;
    g->reasons |= ZKELECT_REASON_INITIAL;
    config_clear(g);
    g->config_good = false;
    memset(&g->switchover, 0, sizeof(g->switchover));
    g->config_version = g->history_version = -1;
    g->config_rules_version = -1;
    free(g->succ_key);
    g->succ_key = NULL;             /* written at its first settled evaluation */
    g->succ_zstate = -1;
    g->succ_woken[0] = '\0';       /* a new elector names its first successor */
    g->succ_woken_id[0] = '\0';
    g->switchover_due = 0;
    g->settle_start = 0;
    g->settle_done = false;
    memset(&g->hold, 0, sizeof(g->hold));
    g->last_move_ms = 0;
    zke_event(g->h, g, ZKELECT_EV_ELECTOR, g->self.id, 0, 0, "this node is now the elector");
    if (listing == NULL)
        reg_list_election(g, true);
    if (g->have_elected) {
        group_send_get(g, REQ_GET_CONFIG, g->p_config, NULL);
        group_send_get(g, REQ_GET_SWITCHOVER, g->p_switchover, NULL);
    } else {
        /* a group with no decision yet is most likely new, without a
           config or a switchover: an exists finds that and watches in one
           request (a get would need a second; one found is read next) */
        group_send_exists(g, REQ_EXISTS_CONFIG, g->p_config, NULL);
        group_send_exists(g, REQ_EXISTS_SWITCHOVER, g->p_switchover, NULL);
    }
    if (!g->have_elected && g->elected_read && !g->elected_unwatched) {
        /* no decision was ever written (or it was removed): no history is
           taken to exist. The first decision's multi creates it; if one is
           there, that create fails the multi, and the history is read then
           (elector_on_decide_reply) before anything is decided */
        history_store(g, NULL, 0, 0);
        g->history_version = -1;
        g->history_read = true;
        /* nor a succession: an empty one is then not written at all, and
           a first one is created (a leftover there fails that create and
           is overwritten next time, elector_on_succession_reply; it cannot
           serve a handover: it names registrations of an older decision) */
        g->succ_zstate = 0;
    } else if (group_connected(g)) {
        struct req *r = req_new(g->h, g, REQ_GET_HISTORY);
        if (r)
            req_sent(r, zoo_aget(g->h->zh, g->p_history, 0, data_completion, r));
    }
    /* a member that followed nothing knows an old decision: what it takes
       over from the decision waits for the decision as it is now */
    g->elector_import = true;
    view_follow(g, false);
    elector_import(g);
    if (listing != NULL)
        elector_members(g, listing);
}

/*
 * What a new elector takes over from the decision in force, once it has
 * `elected` and the leader znodes in view: the time of the last change of
 * leader, the exclusions, a watchdog for a transition in flight.
 */
void
elector_import(struct zkelect_group *g)
{
    int k;

    if (!g->is_elector || !g->elector_import || !g->elected_read || !view_leaders_read(g))
        return;
    g->elector_import = false;
    /* the last change of leader, for anti-flap: as old as elected's last
       write (the wall clock read once; an acknowledgement rewrites it too,
       so a new elector may block a little longer, never shorter) */
    g->last_move_ms = 0;
    if (g->have_elected && g->elected.at_ms > 0) {
        int64_t age = zke_wall_ms() - g->elected.at_ms;
        uint64_t now = zke_now_ms();
        if (age < 0)
            age = 0;
        if ((uint64_t)age < now)
            g->last_move_ms = now - (uint64_t)age;
    }
    /* exclusions the previous elector recorded still hold, for the time that
       remained at its decision (counted from now: at most that long again) */
    if (g->have_elected) {
        int i;
        for (i = 0; i < g->elected.nexcluded; i++)
            if (g->elected.excluded[i].remaining_ms > 0)
                exclusion_add(g, g->elected.excluded[i].id, g->elected.excluded[i].reason,
                              zke_now_ms() + g->elected.excluded[i].remaining_ms);
    }
    /* a transition in flight when the old elector died gets a watchdog
       period, in every slot */
    for (k = 0; k < eslots(g) && k < g->nlv; k++) {
        uint64_t e;
        if (*eslot(g, k, &e) && !eslot_znode(g, k, true))
            watchdog_arm(g, k, e);
    }
}

void
elector_stop(struct zkelect_group *g, const char *why)
{
    int k;

    if (!g->is_elector)
        return;
    g->succ_wait_until = 0;
    view_arm_deferred(g, -1); /* others write them now */
    if (g->czxid_assumed && g->reg == REG_DONE) {
        /* a member now: the wake's watch on our election znode, and its
           real creation zxid (registered) */
        char path[ZKE_PATH_MAX];
        g->czxid_assumed = false;
        g->my_czxid = 0;
        snprintf(path, sizeof(path), "%s/%s", g->p_election, g->my_znode);
        group_send_mine(g, REQ_STAT_MINE, path);
    }
    g->is_elector = false;
    members_clear(g);
    exclusions_clear(g);
    for (k = 0; k < g->nlv; k++) {
        LV(g, k)->wd_deadline = 0;
        LV(g, k)->takeover_check_epoch = 0;
        LV(g, k)->force_epoch = 0;
    }
    g->deciding = false;
    g->eval_pending = false;
    g->reasons = 0;
    zke_event(g->h, g, ZKELECT_EV_ELECTOR_LOST, g->self.id, 0, 0, "no longer the elector: %s", why);
}

static void watchdog_exclude(struct zkelect_group *g, int k, uint64_t now, const char *reason,
                             const char *why);

/* The elector's list of election children: update the member cache. */
void
elector_members(struct zkelect_group *g, struct zev *ev)
{
    char id[ZKE_ID_MAX + 1];
    int64_t seq;
    struct member_cache *m, **pp;
    int i, k;

    for (m = g->members; m; m = m->next)
        m->seen = false;
    for (i = 0; i < ev->nstrings; i++) {
        if (zke_child_parse(ev->strings[i], id, sizeof(id), NULL, &seq) != 0) {
            char esc[128];
            zke_escape(ev->strings[i], strlen(ev->strings[i]), esc, sizeof(esc));
            zke_log(g->h, ZKELECT_LOG_WARNING, "%s: ignoring foreign election child \"%s\"",
                    g->path, esc);
            continue;
        }
        m = member_find(g, id);
        if (m == NULL) {
            m = calloc(1, sizeof(*m));
            if (m == NULL)
                continue;
            snprintf(m->rec.id, sizeof(m->rec.id), "%s", id);
            m->next = g->members;
            g->members = m;
            g->reasons |= ZKELECT_REASON_MEMBER_JOINED;
            elector_read_member(g, id);
        } else if (m->seen && seq >= m->seq) {
            continue; /* a later duplicate of the same id: the lowest counts */
        }
        if (m->znode[0] && strcmp(m->znode, ev->strings[i]) != 0 && !m->seen) {
            /* the same id registered again (a new session): a new member */
            g->reasons |= ZKELECT_REASON_MEMBER_JOINED;
            m->ok_since = 0;
            elector_read_member(g, id);
        }
        m->seq = seq;
        snprintf(m->znode, sizeof(m->znode), "%s", ev->strings[i]);
        m->seen = true;
    }
    for (pp = &g->members; (m = *pp) != NULL;) {
        if (!m->seen) {
            *pp = m->next;
            g->reasons |= ZKELECT_REASON_MEMBER_LEFT;
            if (g->have_elected && strcmp(m->rec.id, g->elected.leader) == 0)
                g->reasons |= ZKELECT_REASON_LEADER_LOST;
            free(m);
        } else {
            pp = &m->next;
        }
    }
    g->election_read = true;
    /* a vanished PROGRESS znode (elector_view_changed), its node still
       registered in this fresh listing: a failed takeover */
    for (k = 0; k < g->nlv; k++) {
        uint64_t epoch = LV(g, k)->takeover_check_epoch, e;
        if (epoch == 0)
            continue;
        LV(g, k)->takeover_check_epoch = 0;
        if (*eslot(g, k, &e) && e == epoch && LV(g, k)->wd_deadline &&
            LV(g, k)->version < 0 && eslot_present(g, k)) {
            watchdog_exclude(g, k, zke_now_ms(), "takeover-failed",
                             "gave up its takeover (its PROGRESS leader znode vanished)");
            return;
        }
    }
    elector_eval(g);
}

/* What a read of ID's member record answered (RC, DATA, LEN, VERSION),
   into M; the caller evaluates. */
static void
member_apply(struct zkelect_group *g, struct member_cache *m, int rc, const char *data, int len,
             int32_t version)
{
    char err[256], path[ZKE_PATH_MAX];
    struct zke_member rec;
    bool was_valid;

    if (rc == ZNONODE) {
        /* registration without its node record (or it is leaving): not a member */
        m->loaded = true;
        m->valid = false;
        member_ok_update(m);
        return;
    }
    was_valid = m->valid;
    m->loaded = true;
    if (zke_member_decode(data, len, &rec, err, sizeof(err)) != 0) {
        snprintf(path, sizeof(path), "%s/%s", g->p_nodes, m->rec.id);
        group_malformed(g, path, data, len, err);
        m->valid = false;
    } else if (strcmp(rec.id, m->rec.id) != 0) {
        snprintf(path, sizeof(path), "%s/%s", g->p_nodes, m->rec.id);
        group_malformed(g, path, data, len, "record id does not match the znode name");
        m->valid = false;
    } else {
        if (was_valid && (rec.priority != m->rec.priority || rec.eligible != m->rec.eligible ||
                          rec.healthy != m->rec.healthy || strcmp(rec.site, m->rec.site) != 0))
            g->reasons |= ZKELECT_REASON_MEMBER_CHANGED;
        m->rec = rec;
        m->valid = true;
        m->version = version;
    }
    if (was_valid != m->valid)
        g->reasons |= ZKELECT_REASON_MEMBER_CHANGED;
    member_ok_update(m);
}

/* Read ID's member record (and watch it). Our own is watched and read by
   the registration (REQ_READ_SELF): taken from that read when it is
   current, one request less; its next read brings a change
   (elector_self_read). The caller evaluates. */
void
elector_read_member(struct zkelect_group *g, const char *id)
{
    char path[ZKE_PATH_MAX];
    struct member_cache *m;

    if (strcmp(id, g->self.id) == 0 && g->self_have && (m = member_find(g, id)) != NULL) {
        member_apply(g, m, g->self_len < 0 ? ZNONODE : ZOK, g->self_data,
                     g->self_len < 0 ? 0 : g->self_len, g->self_zversion);
        return;
    }
    snprintf(path, sizeof(path), "%s/%s", g->p_nodes, id);
    group_send_get(g, REQ_GET_MEMBER, path, id);
}

/* Our member record was read again (reg_on_read_self_reply): an elector
   that tracks us takes it. */
void
elector_self_read(struct zkelect_group *g)
{
    struct member_cache *m;

    if (!g->is_elector || !g->self_have || (m = member_find(g, g->self.id)) == NULL)
        return;
    member_apply(g, m, g->self_len < 0 ? ZNONODE : ZOK, g->self_data,
                 g->self_len < 0 ? 0 : g->self_len, g->self_zversion);
    elector_eval(g);
}

void
elector_on_member_reply(struct zkelect_group *g, struct zev *ev)
{
    struct member_cache *m;

    if (!g->is_elector || (m = member_find(g, ev->req->arg)) == NULL)
        return;
    if (ev->rc != ZOK && ev->rc != ZNONODE)
        return;
    member_apply(g, m, ev->rc, ev->data, ev->datalen, ev->stat.version);
    elector_eval(g);
}

void
elector_on_config_reply(struct zkelect_group *g, struct zev *ev)
{
    char err[256];
    int32_t prev_version;

    if (!g->is_elector)
        return;
    if (ev->req->kind == REQ_EXISTS_CONFIG) {
        if (ev->rc == ZOK)
            group_send_get(g, REQ_GET_CONFIG, g->p_config, NULL);
        if (ev->rc != ZNONODE || g->config_read)
            return;
        /* a new elector's first read of a new group's config (exists
           first, elector_start): absent, and watched */
    }
    if (ev->rc == ZNONODE) {
        g->config_version = -1;
        g->config_read = true;
        if (ev->req->kind != REQ_EXISTS_CONFIG)
            group_send_exists(g, REQ_EXISTS_CONFIG, g->p_config, NULL);
        if (g->config_good) {
            /* deleted under a running group: keep deciding with the last
               good config rather than drop the leader (site priorities gone) */
            zke_event(g->h, g, ZKELECT_EV_ERROR, NULL, 0, ZKELECT_ENONODE,
                      "%s was deleted; keeping the last good config (zkelect init recreates it)",
                      g->p_config);
        } else {
            config_clear(g);
            g->reasons |= ZKELECT_REASON_CONFIG_CHANGED;
        }
        elector_eval(g);
        return;
    }
    if (ev->rc != ZOK)
        return;
    prev_version = g->config_version;
    g->config_version = ev->stat.version;
    {
        struct zke_config c;
        if (zke_config_decode(ev->data, ev->datalen, &c, err, sizeof(err)) != 0) {
            /* keep the last good config (an elector that never read one uses
               the defaults, as for a missing config); say so loudly */
            group_malformed(g, g->p_config, ev->data, ev->datalen, err);
            if (!g->config_good)
                config_clear(g);
        } else {
            uint64_t *dm = NULL, now = zke_now_ms();
            bool drains_only = g->config != NULL && config_same_but_drains(g->config, &c);
            int i;

            if (c.ndrains > 0 && (dm = calloc((size_t)c.ndrains, sizeof(*dm))) == NULL)
                return;   /* out of memory: config_read stays false, no decision */
            if (g->config == NULL && (g->config = malloc(sizeof(*g->config))) == NULL) {
                free(dm);
                return;
            }
            *g->config = c;
            free(g->drain_mono);
            g->drain_mono = dm;
            for (i = 0; i < c.ndrains; i++) {
                dm[i] = wall_to_mono(c.drains[i].until_ms, now);
                if (dm[i] == now)
                    dm[i] = 0; /* ended already */
                else
                    zke_log(g->h, ZKELECT_LOG_INFO, "%s: %s is drained for %llu s more%s%s%s%s",
                            g->path, c.drains[i].id, (unsigned long long)((dm[i] - now) / 1000),
                            *c.drains[i].by ? " by " : "", c.drains[i].by,
                            *c.drains[i].reason ? ": " : "", c.drains[i].reason);
            }
            g->config_good = true;
            /* a drain or undrain alone changes who may lead (as a member's
               eligible would), not the rules: the leader is not re-evaluated
               as after set-site-priority (a preempt=off policy keeps it) */
            /* A new elector's first read of the config version `elected`
               acknowledges already is no change either: a preempt=off
               leader stays when the elector changes (before, every new
               elector re-evaluated as after set-site-priority and moved a
               kept leader to the best node) */
            if (prev_version < 0 && g->have_elected && g->elected.config_version == ev->stat.version)
                drains_only = true;
            g->reasons |= drains_only ? ZKELECT_REASON_MEMBER_CHANGED
                                      : ZKELECT_REASON_CONFIG_CHANGED;
            /* the version that changed the rules (more than drains): an
               operator's; a new elector's first read counts as one */
            if (!drains_only || prev_version < 0)
                g->config_rules_version = ev->stat.version;
            /* watchdogs armed before the config was read (a new elector's
               for a takeover in flight) run for the config's period, from
               when they were armed */
            for (i = 0; i < g->nlv; i++) {
                struct lview *v = LV(g, i);
                if (v->wd_deadline && !v->wd_fenced && v->wd_postponed_ms == 0)
                    v->wd_deadline = v->wd_start_ms + (uint64_t)effective_watchdog_ms(g);
            }
            group_timer_changed(g);
        }
    }
    g->config_read = true;
    elector_eval(g);
}

void
elector_on_switchover_reply(struct zkelect_group *g, struct zev *ev)
{
    char err[256];

    if (!g->is_elector)
        return;
    if (ev->req->kind == REQ_EXISTS_SWITCHOVER) {
        if (ev->rc == ZOK)
            group_send_get(g, REQ_GET_SWITCHOVER, g->p_switchover, NULL);
        if (ev->rc != ZNONODE || g->switchover_read)
            return;
        /* exists first (elector_start): absent, and watched */
    }
    if (ev->rc == ZNONODE) {
        memset(&g->switchover, 0, sizeof(g->switchover));
        g->switchover_read = true;
        if (ev->req->kind != REQ_EXISTS_SWITCHOVER)
            group_send_exists(g, REQ_EXISTS_SWITCHOVER, g->p_switchover, NULL);
        elector_eval(g);
        return;
    }
    if (ev->rc != ZOK)
        return;
    if (zke_switchover_decode(ev->data, ev->datalen, &g->switchover, err, sizeof(err)) != 0) {
        memset(&g->switchover, 0, sizeof(g->switchover));
        group_malformed(g, g->p_switchover, ev->data, ev->datalen, err);
    }
    /* a scheduled switchover: due on this elector's monotonic clock, counted
       from now (when it read the request) */
    g->switchover_due = g->switchover.due_ms > 0 ? wall_to_mono(g->switchover.due_ms, zke_now_ms()) : 0;
    group_timer_changed(g);
    g->switchover_read = true;
    elector_eval(g);
}

/* Keep the encoded history (a copy of buf, or none) and the epoch of its
   newest entry. 0, or -1 out of memory (nothing changed). */
static int
history_store(struct zkelect_group *g, const char *buf, size_t len, uint64_t last_epoch)
{
    char *copy = NULL;

    if (buf && len > 0) {
        if ((copy = malloc(len)) == NULL)
            return -1;
        memcpy(copy, buf, len);
    }
    free(g->history_buf);
    g->history_buf = copy;
    g->history_len = copy ? len : 0;
    g->history_last_epoch = copy ? last_epoch : 0;
    return 0;
}

void
elector_on_history_reply(struct zkelect_group *g, struct zev *ev)
{
    struct zke_history *h;
    char err[256];

    if (!g->is_elector)
        return;
    if (ev->rc == ZNONODE) {
        history_store(g, NULL, 0, 0);
        g->history_version = -1;
    } else if (ev->rc == ZOK) {
        if ((h = calloc(1, sizeof(*h))) == NULL)
            return;
        g->history_version = ev->stat.version;
        if (zke_history_decode(ev->data, ev->datalen, h, err, sizeof(err)) != 0) {
            history_store(g, NULL, 0, 0);
            group_malformed(g, g->p_history, ev->data, ev->datalen, err);
        } else if (history_store(g, ev->data, (size_t)ev->datalen,
                                 h->n > 0 ? h->entries[h->n - 1].epoch : 0) != 0) {
            free(h);
            return;
        }
        free(h);
    } else {
        return;
    }
    g->history_read = true;
    elector_eval(g);
}

/* Unload/reload the policy when its name or options changed. */
static int
elector_policy(struct zkelect_group *g)
{
    struct zkelect_option opts[ZKE_OPTIONS_MAX * 2];
    char keybuf[ZKE_OPTIONS_MAX * 2][ZKE_NAME_MAX + 1];
    char key[sizeof(g->policy_loaded_key)];
    const char *name = *CFG(g)->policy ? CFG(g)->policy : g->policy_name;
    char err[512];
    size_t n = 0, i, j;
    int rc, off;

    /* node options first, the cluster config's override them */
    for (i = 0; i < g->nopt_kv && n < ZKE_OPTIONS_MAX; i++) {
        const char *eq = strchr(g->opt_kv[i], '=');
        size_t kl = eq ? (size_t)(eq - g->opt_kv[i]) : strlen(g->opt_kv[i]);
        if (kl > ZKE_NAME_MAX)
            kl = ZKE_NAME_MAX;
        memcpy(keybuf[n], g->opt_kv[i], kl);
        keybuf[n][kl] = '\0';
        opts[n].key = keybuf[n];
        opts[n].value = eq ? eq + 1 : "";
        n++;
    }
    for (i = 0; i < (size_t)CFG(g)->noptions; i++) {
        for (j = 0; j < n; j++)
            if (strcmp(opts[j].key, CFG(g)->options[i].key) == 0)
                break;
        opts[j].key = CFG(g)->options[i].key;
        opts[j].value = CFG(g)->options[i].value;
        if (j == n)
            n++;
    }
    off = snprintf(key, sizeof(key), "%s", name);
    for (i = 0; i < n && off > 0 && (size_t)off < sizeof(key); i++)
        off += snprintf(key + off, sizeof(key) - (size_t)off, "\n%s=%s", opts[i].key, opts[i].value);
    if (g->policy && strcmp(key, g->policy_loaded_key) == 0)
        return 0;
    if (strcmp(key, g->policy_loaded_key) == 0 && g->policy == NULL)
        return ZKELECT_EPOLINIT; /* the same failing load: reported already */
    zke_policy_unload(g->policy);
    g->policy = NULL;
    snprintf(g->policy_loaded_key, sizeof(g->policy_loaded_key), "%s", key);
    rc = zke_policy_load(name, g->policy_path, opts, n, &g->policy, err, sizeof(err));
    if (rc != 0) {
        zke_event(g->h, g, ZKELECT_EV_ERROR, g->self.id, 0, rc,
                  "cannot load policy %s: %s; no decision is made until it loads", name, err);
        return rc;
    }
    zke_log(g->h, ZKELECT_LOG_INFO, "%s: policy %s loaded from %s", g->path,
            zke_policy_name(g->policy), zke_policy_path(g->policy));
    return 0;
}

static bool
elector_ready(struct zkelect_group *g)
{
    struct member_cache *m;

    if (!g->is_elector || g->elector_import || !group_connected(g) || !g->election_read || !g->config_read ||
        !g->switchover_read || !g->history_read || !g->elected_read || !view_leaders_read(g))
        return false;
    for (m = g->members; m; m = m->next)
        if (!m->loaded)
            return false;
    return true;
}

static void
reasons_text(unsigned r, char *out, size_t len)
{
    static const struct { unsigned bit; const char *name; } names[] = {
        {ZKELECT_REASON_INITIAL, "initial"},
        {ZKELECT_REASON_MEMBER_JOINED, "member-joined"},
        {ZKELECT_REASON_MEMBER_LEFT, "member-left"},
        {ZKELECT_REASON_MEMBER_CHANGED, "member-changed"},
        {ZKELECT_REASON_LEADER_LOST, "leader-lost"},
        {ZKELECT_REASON_CONFIG_CHANGED, "config-changed"},
        {ZKELECT_REASON_WATCHDOG, "watchdog"},
        {ZKELECT_REASON_SWITCHOVER, "switchover"},
        {ZKELECT_REASON_EXCLUSION_END, "exclusion-ended"},
        {ZKELECT_REASON_LEADER_RESIGNED, "leader-resigned"},
        {ZKELECT_REASON_DRAIN_END, "drain-ended"},
        {ZKELECT_REASON_HOLD_END, "hold-ended"},
    };
    size_t i, off = 0;

    out[0] = '\0';
    for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if ((r & names[i].bit) && off < len)
            off += (size_t)snprintf(out + off, len - off, "%s%s", off ? "," : "", names[i].name);
    if (off == 0)
        snprintf(out, len, "re-evaluation");
}

enum decide_mode {
    DECIDE_NEW,       /* a new decision: epoch above every epoch seen */
    DECIDE_ACK,       /* re-write the current decision to acknowledge a request */
    DECIDE_RESTORE    /* `elected` was lost or unreadable: write back what the
                         live leader znode shows, at its epoch */
};

/* The highest epoch in `elected` (any slot), and its slot. */
static uint64_t
elected_top_epoch(const struct zkelect_group *g, int *slot)
{
    uint64_t top = g->elected.epoch;
    int k;

    *slot = 0;
    for (k = 0; k < g->elected.nslots; k++)
        if (g->elected.slots[k].epoch > top) {
            top = g->elected.slots[k].epoch;
            *slot = g->elected.slots[k].slot;
        }
    return top;
}

/* Append to HIST the entry of the decision in force in slot SLOT at EPOCH
   (one the history lacks: a handover, written by the resigning leader). */
static void
history_push_elected(const struct zkelect_group *g, struct zke_history *hist, uint64_t epoch,
                     int slot)
{
    struct zke_history_entry he;

    memset(&he, 0, sizeof(he));
    he.epoch = epoch;
    he.slot = slot;
    snprintf(he.leader, sizeof(he.leader), "%s", slot == 0 ? g->elected.leader :
             g->elected.slots[slot - 1].leader);
    snprintf(he.elector, sizeof(he.elector), "%s", g->elected.elector);
    snprintf(he.policy, sizeof(he.policy), "%s", g->elected.policy);
    snprintf(he.reason, sizeof(he.reason), "%s", g->elected.reason);
    he.at_ms = g->elected.at_ms;
    zke_history_push(hist, &he);
}

/*
 * Slot 0 of decision E: its leader's host (LEADER's record, if any), and its
 * previous leader and where that one ran: its record while the elector still
 * has it, else the decision that elected it (the record goes with its
 * session). A member that followed nothing learns its fencing target here.
 */
static void
decision_hosts(struct zkelect_group *g, struct zke_elected *e, const struct member_cache *leader)
{
    const struct member_cache *pm;

    if (leader != NULL)
        snprintf(e->leader_host, sizeof(e->leader_host), "%s", leader->rec.host);
    if (!g->have_elected)
        return;
    if (strcmp(g->elected.leader, e->leader) != 0) {
        pm = *g->elected.leader ? member_find(g, g->elected.leader) : NULL;
        snprintf(e->previous, sizeof(e->previous), "%s", g->elected.leader);
        snprintf(e->previous_host, sizeof(e->previous_host), "%s",
                 pm && *pm->rec.host ? pm->rec.host : g->elected.leader_host);
    } else {
        snprintf(e->previous, sizeof(e->previous), "%s", g->elected.previous);
        snprintf(e->previous_host, sizeof(e->previous_host), "%s", g->elected.previous_host);
    }
}

/*
 * The decision says "wake" (members may follow nothing: this elector wakes
 * the node it elects) only while every member's record says it is woken
 * so. A member of a release before the wake makes it false: it could become
 * the elector and would wake nobody, so every member follows (doc/PROTOCOL.md
 * §2, "A release before the wake"). So does "fast_handover" (this elector
 * wakes with two writes, and a handover over this decision has the epoch one
 * above it): a member of a release before it could become the elector and
 * wake with one, which a successor would take for a handover's (§4, "The fast
 * handover").
 */
static void
decision_wake(struct zkelect_group *g, struct zke_elected *e)
{
    const struct member_cache *m;

    e->wake = e->fast_handover = true;
    for (m = g->members; m; m = m->next) {
        if (!m->seen || (m->loaded && !m->valid))
            continue; /* gone, or its record gone or unreadable: not a member */
        if (!m->loaded || !m->rec.wake)
            e->wake = false; /* unread yet, or a release before the wake */
        if (!m->loaded || !m->rec.fast_handover)
            e->fast_handover = false;
    }
}

/*
 * Write decision E (heap; freed here) to `elected`, with the history entries
 * HE[0..NHE-1] appended, in one multi checked against the versions read.
 * EPOCH is the newest epoch the decision gives (the reply's token).
 */
static void
decide_commit(struct zkelect_group *g, struct zke_elected *e, const struct zke_history_entry *he,
              int nhe, uint64_t epoch)
{
    struct zke_history *hist;
    struct req *r;
    size_t len0, len1;
    int n = 0, i;

    /* the history as read (validated then), with this decision appended */
    if ((hist = calloc(1, sizeof(*hist))) == NULL) {
        free(e);
        return;
    }
    if (g->history_buf && zke_history_decode(g->history_buf, (int)g->history_len, hist, NULL, 0) != 0)
        memset(hist, 0, sizeof(*hist));
    if (g->have_elected) {
        /* a decision in force that the history lacks (a handover, written
           by the resigning leader): its entry first */
        int ho_slot;
        uint64_t ho_epoch = elected_top_epoch(g, &ho_slot);
        if (ho_epoch > g->history_last_epoch && ho_epoch < epoch) {
            history_push_elected(g, hist, ho_epoch, ho_slot);
        }
    }
    for (i = 0; i < nhe; i++)
        zke_history_push(hist, &he[i]);

    r = req_new(g->h, g, REQ_DECIDE);
    if (r == NULL) {
        free(hist);
        free(e);
        return;
    }
    r->token = epoch;
    if (zke_elected_encode(e, &r->payload[0], &len0) != 0 ||
        zke_history_encode(hist, &r->payload[1], &len1) != 0) {
        zke_event(g->h, g, ZKELECT_EV_ERROR, NULL, epoch, ZKELECT_EINVAL,
                  "cannot encode the decision (a bug): nothing written");
        req_sent(r, ZMARSHALLINGERROR);
        free(hist);
        free(e);
        return;
    }
    free(hist);
    /* as the history was kept decoded and appended to before: the next
       decision builds on this one (a refused write re-reads it) */
    history_store(g, r->payload[1], len1, epoch);
    if (g->elected_version >= 0)
        zoo_set_op_init(&r->ops[n++], g->p_elected, r->payload[0], (int)len0, g->elected_version, NULL);
    else
        zoo_create_op_init(&r->ops[n++], g->p_elected, r->payload[0], (int)len0, group_acl(g),
                           ZOO_PERSISTENT, NULL, 0);
    if (g->history_version >= 0)
        zoo_set_op_init(&r->ops[n++], g->p_history, r->payload[1], (int)len1, g->history_version, NULL);
    else
        zoo_create_op_init(&r->ops[n++], g->p_history, r->payload[1], (int)len1, group_acl(g),
                           ZOO_PERSISTENT, NULL, 0);
    /* the nodes it elects (a member that follows nothing watches only its
       own election znode) */
    n = group_wake_ops(g, r, n, e, g->have_elected ? &g->elected : NULL, 2);
    memset(r->results, 0, sizeof(r->results));
    g->deciding = true;
    if (e->nslots > 0)
        zke_log(g->h, ZKELECT_LOG_INFO, "%s: deciding epoch %llu: %d slots, slot 0 %s (%s)",
                g->path, (unsigned long long)epoch, 1 + e->nslots,
                *e->leader ? e->leader : "none", e->reason);
    else
        zke_log(g->h, ZKELECT_LOG_INFO, "%s: deciding epoch %llu: leader %s (%s)", g->path,
                (unsigned long long)epoch, *e->leader ? e->leader : "none", e->reason);
    req_sent(r, zoo_amulti(g->h->zh, n, r->ops, r->results, multi_completion, r));
    free(e);
}

/*
 * Write a decision: `elected` and the history in one multi, both checked
 * against the versions read.
 */
static void
decide_write(struct zkelect_group *g, const struct member_cache *chosen, const char *why,
             uint64_t switchover_id, enum decide_mode mode)
{
    bool keep_epoch = mode == DECIDE_ACK;
    struct zke_elected *e;
    struct zke_history_entry he;
    struct exclusion *x;
    uint64_t epoch, now = zke_now_ms();

    e = calloc(1, sizeof(*e));
    if (e == NULL)
        return;
    epoch = g->have_elected ? g->elected.epoch : 0;
    if (LV0(g)->have && LV0(g)->l.epoch > epoch)
        epoch = LV0(g)->l.epoch;
    if (g->history_last_epoch > epoch)
        epoch = g->history_last_epoch;
    if (keep_epoch) {
        *e = g->elected;
        e->switchover_id = switchover_id;
        e->config_version = g->config_version;
        /* the exclusions as they stand now (ended ones leave the record) */
        e->nexcluded = 0;
        for (x = g->exclusions; x && e->nexcluded < ZKE_EXCLUDED_MAX; x = x->next) {
            struct zke_exclusion *ze = &e->excluded[e->nexcluded++];
            snprintf(ze->id, sizeof(ze->id), "%s", x->id);
            snprintf(ze->reason, sizeof(ze->reason), "%s", x->reason);
            ze->remaining_ms = x->until_ms > now ? x->until_ms - now : 0;
        }
        snprintf(e->reason, sizeof(e->reason), "%s", why);
        e->at_ms = zke_wall_ms();
        epoch = e->epoch;
        goto encode;
    }
    if (mode == DECIDE_RESTORE)
        epoch = LV0(g)->l.epoch;
    else
        epoch++;
    e->epoch = epoch;
    if (chosen) {
        snprintf(e->leader, sizeof(e->leader), "%s", chosen->rec.id);
        snprintf(e->leader_site, sizeof(e->leader_site), "%s", chosen->rec.site);
        snprintf(e->leader_znode, sizeof(e->leader_znode), "%s", chosen->znode);
    }
    decision_hosts(g, e, chosen);
    decision_wake(g, e);
    snprintf(e->elector, sizeof(e->elector), "%s", g->self.id);
    snprintf(e->policy, sizeof(e->policy), "%s", g->policy ? zke_policy_name(g->policy) : "none");
    snprintf(e->reason, sizeof(e->reason), "%s", why);
    e->at_ms = zke_wall_ms();
    e->switchover_id = switchover_id;
    e->config_version = g->config_version;
    for (x = g->exclusions; x && e->nexcluded < ZKE_EXCLUDED_MAX; x = x->next) {
        struct zke_exclusion *ze = &e->excluded[e->nexcluded++];
        snprintf(ze->id, sizeof(ze->id), "%s", x->id);
        snprintf(ze->reason, sizeof(ze->reason), "%s", x->reason);
        ze->remaining_ms = x->until_ms > now ? x->until_ms - now : 0;
    }
encode:
    /* what the elector waits for now (none with a new decision) */
    memset(&e->hold, 0, sizeof(e->hold));
    if (g->hold.kind[0] && (mode == DECIDE_ACK || chosen == NULL)) {
        snprintf(e->hold.kind, sizeof(e->hold.kind), "%s", g->hold.kind);
        snprintf(e->hold.node, sizeof(e->hold.node), "%s", g->hold.node);
        e->hold.until_ms = zke_wall_ms() + (int64_t)(g->hold.until > now ? g->hold.until - now : 0);
    }
    memset(&he, 0, sizeof(he));
    he.epoch = epoch;
    snprintf(he.leader, sizeof(he.leader), "%s", e->leader);
    snprintf(he.elector, sizeof(he.elector), "%s", e->elector);
    snprintf(he.policy, sizeof(he.policy), "%s", e->policy);
    snprintf(he.reason, sizeof(he.reason), "%s", e->reason);
    he.at_ms = e->at_ms;
    decide_commit(g, e, &he, 1, epoch);
}

void
elector_on_decide_reply(struct zkelect_group *g, struct zev *ev)
{
    struct req *r = ev->req;
    char err[256];

    g->deciding = false;
    if (ev->rc == ZOK) {
        struct zke_elected e;
        g->n_decisions++;
        if (zke_elected_decode(r->payload[0], (int)strlen(r->payload[0]), &e, err, sizeof(err)) == 0) {
            uint64_t before[ZKE_LEADERS_MAX] = {0};
            int k, was;

            if (g->elected_defer) {
                /* a new group's first decision (view_absent): watched from
                   now on, as the watch it did not set would have made us
                   read it again now */
                if (g->is_elector)
                    g->elected_read = false;
                view_read_elected(g);
            }
            if (!g->have_elected || strcmp(g->elected.leader, e.leader) != 0)
                g->last_move_ms = zke_now_ms(); /* anti-flap counts from here */
            for (k = 1; k < eslots(g); k++)
                eslot(g, k, &before[k]);
            g->elected = e;
            g->have_elected = true;
            g->elected_mzxid = INT64_MAX; /* written by us, now: newer than anything */
            g->elected_version = g->elected_version >= 0 ? g->elected_version + 1 : 0;
            g->history_version = g->history_version >= 0 ? g->history_version + 1 : 0;
            view_slots_update(g);
            for (k = 0; k < g->nlv; k++) {
                /* a slot it gives to another node: that node creates the
                   leader znode (ours is watched after our own create) */
                const char *id, *znode;
                uint64_t ep;
                if (LV(g, k)->defer &&
                    !(view_elected_slot(g, k, &id, &znode, &ep) && strcmp(id, g->self.id) == 0 &&
                      strcmp(znode, g->my_znode) == 0)) {
                    LV(g, k)->defer = false;
                    group_send_exists(g, REQ_EXISTS_LEADER, LV(g, k)->path, LV(g, k)->path);
                }
            }
            /* a watchdog guards one epoch: armed for a new one, not again
               for a rewrite at the same (an acknowledgement, a hold, an
               exclusion's end), which would restart the fence's wait for
               the decision to be a session timeout old (watchdog_fire) */
            if (*e.leader && (LV0(g)->wd_epoch != e.epoch || !LV0(g)->wd_deadline))
                watchdog_arm(g, 0, e.epoch);
            else if (!*e.leader)
                LV0(g)->wd_deadline = 0;
            zke_event(g->h, g, ZKELECT_EV_DECISION, e.leader, e.epoch, 0, "elected %s: %s",
                      *e.leader ? e.leader : "nobody", e.reason);
            /* the other slots: a watchdog for each new epoch (a slot left
               as it was keeps its own, and its READY leader none) */
            for (k = 1; k < eslots(g) && k < g->nlv; k++) {
                uint64_t ep;
                const char *id = eslot(g, k, &ep);
                if (!*id) {
                    LV(g, k)->wd_deadline = 0;
                } else if (ep != before[k]) {
                    watchdog_arm(g, k, ep);
                    was = g->ev_slot;
                    g->ev_slot = k;
                    zke_event(g->h, g, ZKELECT_EV_DECISION, id, ep, 0, "slot %d: elected %s: %s",
                              k, id, e.reason);
                    g->ev_slot = was;
                }
            }
        }
        if (!g->hold_writing)
            g->reasons = 0;
        g->hold_writing = false;
        view_changed(g);
    } else if (ev->rc == ZBADVERSION || ev->rc == ZNODEEXISTS || ev->rc == ZNONODE) {
        /* someone else wrote meanwhile, or a node it elects left (its wake
           found no election znode): re-read and decide again */
        if (ev->rc == ZNONODE)
            reg_list_election(g, true);
        g->history_read = false;
        g->elected_read = false;
        view_read_elected(g);
        view_arm_deferred(g, -1);
        if (group_connected(g)) {
            struct req *hr = req_new(g->h, g, REQ_GET_HISTORY);
            if (hr)
                req_sent(hr, zoo_aget(g->h->zh, g->p_history, 0, data_completion, hr));
        }
        return;
    } else if (ev->rc == ZNOAUTH) {
        view_arm_deferred(g, -1);
        zke_event(g->h, g, ZKELECT_EV_ERROR, NULL, r->token, ZKELECT_ENOAUTH,
                  "the elector may not write %s: not authorized", g->p_elected);
        return;
    } else {
        /* outcome unknown: the reconnect re-reads everything */
        g->history_read = false;
        return;
    }
    if (g->eval_pending) {
        g->eval_pending = false;
        elector_eval(g);
    }
}

/*
 * The hold in force becomes KIND (NULL: none) for NODE until UNTIL
 * (CLOCK_MONOTONIC), with TEXT for the event. Publishes "+hold" when it
 * starts or changes, or when it ends; returns true when `elected` should be
 * rewritten to show it (operators read it there: zkelect status).
 */
static bool
hold_set(struct zkelect_group *g, const char *kind, const char *node, uint64_t until,
         const char *text)
{
    uint64_t d;

    if (kind == NULL) {
        if (!g->hold.kind[0])
            return false;
        zke_event(g->h, g, ZKELECT_EV_HOLD, g->hold.node[0] ? g->hold.node : NULL, 0, 0,
                  "%s hold ended: %s", g->hold.kind, text);
        memset(&g->hold, 0, sizeof(g->hold));
        return g->have_elected && g->elected.hold.kind[0];
    }
    d = until > g->hold.until ? until - g->hold.until : g->hold.until - until;
    if (strcmp(g->hold.kind, kind) == 0 && strcmp(g->hold.node, node) == 0 && d < 1000)
        return false;
    snprintf(g->hold.kind, sizeof(g->hold.kind), "%s", kind);
    snprintf(g->hold.node, sizeof(g->hold.node), "%s", node);
    g->hold.until = until;
    group_timer_changed(g);
    zke_event(g->h, g, ZKELECT_EV_HOLD, *node ? node : NULL, 0, 0, "%s", text);
    return true;
}

/* Rewrite `elected` (the same decision, or a first one naming nobody) to
   show the hold in force; the pending switchover is not acknowledged. */
static void
hold_write(struct zkelect_group *g, const char *why)
{
    g->hold_writing = true; /* its reply keeps the reasons for the decision to come */
    if (g->have_elected)
        decide_write(g, NULL, why, g->elected.switchover_id, DECIDE_ACK);
    else if (g->elected_version < 0)
        decide_write(g, NULL, why, g->switchover.id, DECIDE_NEW);
}

/* The first refusal in a multi's results (n ops), or ZOK. */
static int
multi_first_error(const struct req *r, int n)
{
    int i;

    for (i = 0; i < n; i++)
        if (r->results[i].err != ZOK && r->results[i].err != ZRUNTIMEINCONSISTENCY)
            return r->results[i].err;
    return ZOK;
}


/*
 * Append to succession multi R, after its N ops, the standing successor's
 * naming (doc/PROTOCOL.md §4, "The standing successor"): when S names for
 * slot 0 another election znode than this elector last named, that znode's
 * data becomes its node's id with ZKE_NAMED_SUFFIX, in two setData ops (an
 * elector's wake of an elected node is two too, a handover's one), and the
 * znode named before, if its node is still a member, gets its id back, in
 * two more. Each op is a wake: the node re-arms its watch with a read of the
 * data and follows while named, so the handover finds it ready to create at
 * the release's notification. Only under a decision that says fast_handover
 * (every member of this release), never this node. An op on a registration
 * that is gone fails the whole multi. Returns the op count.
 */
static int
succession_wake_ops(struct zkelect_group *g, struct req *r, int n, const struct zke_successor *s)
{
    const struct zke_succ *e = zke_successor_slot(s, 0);
    const struct member_cache *m;
    struct req_wake *w;
    char path[ZKE_PATH_MAX];
    bool unname;
    int i, k;

    if (g->nlv != 1 || n + 4 > ZKE_MULTI_MAX)
        return n;
    path[0] = '\0';
    if (e && *e->successor && *e->successor_znode && g->have_elected &&
        g->elected.fast_handover && strcmp(e->successor_znode, g->my_znode) != 0)
        snprintf(path, sizeof(path), "%s/%s", g->p_election, e->successor_znode);
    if (strcmp(path, g->succ_woken) == 0)
        return n; /* named already (or nobody, and nobody was) */
    /* the one named before, still registered, is named no more (unless it
       leads: the wake that elected it wrote its id back) */
    unname = *g->succ_woken && (m = member_find(g, g->succ_woken_id)) != NULL && m->valid &&
             strcmp(strrchr(g->succ_woken, '/') + 1, m->znode) == 0 &&
             strcmp(g->elected.leader_znode, m->znode) != 0;
    if (!*path && !unname) {
        g->succ_woken[0] = '\0'; /* nobody now, nor anybody to name no more */
        g->succ_woken_id[0] = '\0';
        return n;
    }
    if ((w = calloc(1, sizeof(*w))) == NULL)
        return n; /* not named: it follows nothing, and reads the decision at the handover */
    if (*path) {
        snprintf(w->path[w->n], sizeof(w->path[w->n]), "%s", path);
        snprintf(w->id[w->n], sizeof(w->id[w->n]), "%s%s", e->successor, ZKE_NAMED_SUFFIX);
        w->n++;
    }
    if (unname) {
        snprintf(w->path[w->n], sizeof(w->path[w->n]), "%s", g->succ_woken);
        snprintf(w->id[w->n], sizeof(w->id[w->n]), "%s", g->succ_woken_id);
        w->n++;
    }
    free(r->wake);
    r->wake = w;
    for (k = 0; k < w->n; k++)
        for (i = 0; i < 2; i++)
            zoo_set_op_init(&r->ops[n++], w->path[k], w->id[k], (int)strlen(w->id[k]), -1, NULL);
    return n;
}

/*
 * Write succession S (heap; freed here) to `successor` when it differs from
 * what this elector wrote last, checked against the version of `elected` it
 * is for; with it, the history entry of a decision that `elected` shows and
 * the history lacks (a handover, written by the resigning leader).
 */
static void
succession_write(struct zkelect_group *g, struct zke_successor *s)
{
    struct zke_history *hist = NULL;
    char key[24], text[ZKE_LEADERS_MAX * 2 * (ZKE_ZNODE_MAX + 8) + 64];
    uint64_t hash = 14695981039346656037ULL;
    size_t len0 = 0, len1 = 0, off;
    uint64_t top_el;
    int top_slot, k, n = 0;
    struct req *r;

    top_el = elected_top_epoch(g, &top_slot);
    /* what makes two successions the same, as an FNV-1a hash (16 slots of
       registrations do not fit in a request's arg) */
    off = (size_t)snprintf(text, sizeof(text), "%d %d %llu", (int)s->elected_version,
                           (int)s->config_version, (unsigned long long)s->next_epoch);
    for (k = 0; k < s->nslots && off < sizeof(text); k++)
        off += (size_t)snprintf(text + off, sizeof(text) - off, " %d:%s:%s:%d:%d", s->slots[k].slot,
                                s->slots[k].leader_znode, s->slots[k].successor_znode,
                                (int)s->slots[k].successor_version, (int)s->slots[k].switchover);
    for (k = 0; text[k]; k++) {
        hash ^= (unsigned char)text[k];
        hash *= 1099511628211ULL;
    }
    snprintf(key, sizeof(key), "%016llx", (unsigned long long)hash);
    if (top_el <= g->history_last_epoch && g->succ_key && strcmp(key, g->succ_key) == 0)
        goto out; /* written already, and nothing missing from the history */
    if (top_el <= g->history_last_epoch && s->nslots == 0 && g->succ_zstate == 0 &&
        !*g->succ_woken)
        goto out; /* no succession, none to replace, nobody to name no more */
    /* valid for the history as this write leaves it: every decision, the
       restore of a deleted `elected` too, changes it */
    s->history_version = top_el > g->history_last_epoch ?
        (g->history_version >= 0 ? g->history_version + 1 : 0) : g->history_version;

    if ((r = req_new(g->h, g, REQ_SUCCESSOR_WRITE)) == NULL)
        goto out;
    if (zke_successor_encode(s, &r->payload[0], &len0) != 0) {
        req_sent(r, ZMARSHALLINGERROR);
        goto out;
    }
    snprintf(r->arg, sizeof(r->arg), "%s", key);
    /* whether it names this node to take slot 0 over: then it steps aside
       for no handover (group_pause_starts) */
    g->succ_self_next = false;
    for (k = 0; k < s->nslots; k++)
        if (s->slots[k].slot == 0 && strcmp(s->slots[k].successor_znode, g->my_znode) == 0)
            g->succ_self_next = true;
    if (top_el <= g->history_last_epoch && s->nslots == 0 && !*g->succ_woken) {
        /* nothing anyone could hand over with: a plain overwrite of a
           succession that may be there (none there: nothing to do). With
           a node named, the multi below names it no more */
        r->attempt = 0;
        g->deciding = true;
        req_sent(r, zoo_aset(g->h->zh, g->p_successor, r->payload[0], (int)len0, -1,
                             stat_completion, r));
        goto out;
    }
    zoo_check_op_init(&r->ops[n++], g->p_elected, g->elected_version);
    if (top_el > g->history_last_epoch) {
        /* a decision the history lacks: appended, as the elector that wrote
           it would have */
        if ((hist = calloc(1, sizeof(*hist))) == NULL) {
            req_sent(r, ZSYSTEMERROR);
            goto out;
        }
        if (g->history_buf &&
            zke_history_decode(g->history_buf, (int)g->history_len, hist, NULL, 0) != 0)
            memset(hist, 0, sizeof(*hist));
        history_push_elected(g, hist, top_el, top_slot);
        if (zke_history_encode(hist, &r->payload[1], &len1) != 0) {
            req_sent(r, ZMARSHALLINGERROR);
            goto out;
        }
        r->token = top_el;
        if (g->history_version >= 0)
            zoo_set_op_init(&r->ops[n++], g->p_history, r->payload[1], (int)len1,
                            g->history_version, NULL);
        else
            zoo_create_op_init(&r->ops[n++], g->p_history, r->payload[1], (int)len1,
                               group_acl(g), ZOO_PERSISTENT, NULL, 0);
    }
    r->mstat.version = 0; /* created: version 0 (a set fills it in) */
    if (g->succ_zstate == 0)
        zoo_create_op_init(&r->ops[n++], g->p_successor, r->payload[0], (int)len0, group_acl(g),
                           ZOO_PERSISTENT, NULL, 0);
    else
        zoo_set_op_init(&r->ops[n++], g->p_successor, r->payload[0], (int)len0, -1, &r->mstat);
    n = succession_wake_ops(g, r, n, s);
    r->attempt = (uint64_t)n;
    memset(r->results, 0, sizeof(r->results));
    g->deciding = true; /* one write at a time: a decision waits for it */
    zke_log(g->h, ZKELECT_LOG_DEBUG, "%s: succession for elected version %d: %d slot%s, "
            "slot 0 %s%s", g->path, (int)s->elected_version, s->nslots, s->nslots == 1 ? "" : "s",
            zke_successor_slot(s, 0) ? zke_successor_slot(s, 0)->successor : "none",
            r->token ? "; history entry appended" : "");
    req_sent(r, zoo_amulti(g->h->zh, n, r->ops, r->results, multi_completion, r));
out:
    free(hist);
    free(s);
}

/* A new succession record for the current `elected` (heap), or NULL. */
static struct zke_successor *
succession_new(struct zkelect_group *g)
{
    struct zke_successor *s;
    uint64_t top;
    int slot, k;

    if (g->elected_version < 0)
        return NULL;
    top = elected_top_epoch(g, &slot);
    for (k = 0; k < g->nlv; k++)
        if (LV(g, k)->have && LV(g, k)->l.epoch > top)
            top = LV(g, k)->l.epoch;
    if (g->history_last_epoch > top)
        top = g->history_last_epoch;
    if (top >= ZKE_EPOCH_MAX || (s = calloc(1, sizeof(*s))) == NULL)
        return NULL;
    s->elected_version = g->elected_version;
    s->config_version = g->config_version;
    s->next_epoch = top + 1;
    snprintf(s->elector, sizeof(s->elector), "%s", g->self.id);
    snprintf(s->policy, sizeof(s->policy), "%s", zke_policy_name(g->policy));
    s->at_ms = zke_wall_ms();
    return s;
}

/* Add slot K's entry to S: LEADER (registration LZNODE) is succeeded by M. */
static void
succession_add(struct zke_successor *s, int k, const char *leader, const char *lznode,
               const struct member_cache *m)
{
    struct zke_succ *e;

    if (s->nslots >= ZKE_LEADERS_MAX || strcmp(m->rec.id, leader) == 0)
        return;
    e = &s->slots[s->nslots++];
    e->slot = k;
    snprintf(e->leader, sizeof(e->leader), "%s", leader);
    snprintf(e->leader_znode, sizeof(e->leader_znode), "%s", lznode);
    snprintf(e->successor, sizeof(e->successor), "%s", m->rec.id);
    snprintf(e->successor_site, sizeof(e->successor_site), "%s", m->rec.site);
    snprintf(e->successor_host, sizeof(e->successor_host), "%s", m->rec.host);
    snprintf(e->successor_znode, sizeof(e->successor_znode), "%s", m->znode);
    e->successor_version = m->version;
}

/* IN without member LEAD, as the policy would see it had that member left
   (into M2, MC2: the caller's arrays of in->nmembers). */
static void
input_without(const struct zkelect_policy_input *in, struct member_cache **mc_of, size_t lead,
              struct zkelect_policy_input *in2, struct zkelect_member *m2,
              struct member_cache **mc2)
{
    size_t i, j = 0;

    *in2 = *in;
    for (i = 0; i < in->nmembers; i++)
        if (i != lead) {
            m2[j] = in->members[i];
            mc2[j++] = mc_of[i];
        }
    in2->members = m2;
    in2->nmembers = j;
    in2->reasons = ZKELECT_REASON_LEADER_LOST | ZKELECT_REASON_MEMBER_LEFT |
                   ZKELECT_REASON_LEADER_RESIGNED;
    in2->switchover_target = NULL;
}

/*
 * Whether the succession (and the history entry it appends) waits: the
 * decision of slot 0 is in its transition until its leader znode is there,
 * and the write would only meet the old leader's release and the new
 * leader's create on the servers (doc/PROTOCOL.md §4, "The operator's
 * direct switchover"). That holds for a decision this elector did not
 * write (an operator's direct switchover, a handover: the write carries
 * its history entry) and for one it wrote (the write is the succession
 * alone). It waits ZKE_PAUSE_MS at most from when the watchdog began to
 * guard the decision's epoch; group_next_deadline brings it back then.
 */
static bool
succession_waits(struct zkelect_group *g, uint64_t now)
{
    struct lview *v = LV0(g);
    uint64_t until;

    if (eslot_znode(g, 0, false) || v->wd_epoch != g->elected.epoch || v->wd_start_ms == 0 ||
        now >= (until = v->wd_start_ms + ZKE_PAUSE_MS)) {
        g->succ_wait_until = 0;
        return false;
    }
    if (g->succ_wait_until != until) {
        g->succ_wait_until = until;
        group_timer_changed(g);
    }
    return true;
}

/*
 * Whether an operator's switchover, with no target or to M, would go to M:
 * the policy asked both ways with the leader present, as the elector asks it
 * for a switchover (doc/PROTOCOL.md §4, "The operator's direct switchover").
 * Then the succession says so, and `zkelect switchover` may write the
 * decision itself.
 */
static bool
switchover_goes_to(struct zkelect_group *g, const struct zkelect_policy_input *in,
                   const struct member_cache *m)
{
    struct zkelect_policy_input in3 = *in;
    char reason[512];
    int ch = -1;

    in3.reasons = ZKELECT_REASON_SWITCHOVER;
    in3.switchover_target = NULL;
    reason[0] = '\0';
    if (zke_policy_choose(g->policy, &in3, &ch, reason, sizeof(reason)) != 0 || ch < 0 ||
        strcmp(in->members[ch].id, m->rec.id) != 0)
        return false;
    in3.switchover_target = m->rec.id;
    ch = -1;
    reason[0] = '\0';
    return zke_policy_choose(g->policy, &in3, &ch, reason, sizeof(reason)) == 0 && ch >= 0 &&
           strcmp(in->members[ch].id, m->rec.id) == 0;
}

/*
 * The standing succession of a group with one leader (doc/PROTOCOL.md §4,
 * "Direct handover"): whom the policy would choose if the leader left now,
 * i.e. the same input with the leader gone (reasons leader-lost,
 * member-left, leader-resigned). `elected` itself is never written for it:
 * the new leader's READY checks its version.
 */
static void
elector_succession(struct zkelect_group *g, const struct zkelect_policy_input *in,
                   struct member_cache **mc_of)
{
    struct zkelect_policy_input in2;
    struct zkelect_member *m2 = NULL;
    struct member_cache **mc2 = NULL;
    struct zke_successor *s = NULL;
    char reason[512];
    size_t i, lead = in->nmembers;
    int ch = -1;

    if (!*g->elected.leader_znode)
        return; /* a decision without the registration: no handover names one */
    for (i = 0; i < in->nmembers; i++)
        if (strcmp(in->members[i].id, g->elected.leader) == 0 &&
            strcmp(mc_of[i]->znode, g->elected.leader_znode) == 0)
            lead = i;
    if (lead == in->nmembers || (s = succession_new(g)) == NULL)
        return;
    if ((m2 = calloc(in->nmembers, sizeof(*m2))) == NULL ||
        (mc2 = calloc(in->nmembers, sizeof(*mc2))) == NULL) {
        free(s);
        goto out;
    }
    input_without(in, mc_of, lead, &in2, m2, mc2);
    in2.current_present = false;
    in2.current_status = ZKELECT_LEADER_NONE;
    reason[0] = '\0';
    if (in2.nmembers > 0 && zke_policy_choose(g->policy, &in2, &ch, reason, sizeof(reason)) == 0 &&
        ch >= 0) {
        succession_add(s, 0, g->elected.leader, g->elected.leader_znode, mc2[ch]);
        if (s->nslots == 1)
            s->slots[0].switchover = switchover_goes_to(g, in, mc2[ch]);
    }
    succession_write(g, s);
out:
    free(m2);
    free(mc2);
}

/*
 * The same for N slots: for each slot's leader, the set the policy would
 * choose without it, assigned as a decision would (sticky). A slot has a
 * successor only when that leaves every other slot as it is: the one new
 * member takes the slot; otherwise the elector decides when it leaves.
 */
static void
elector_succession_slots(struct zkelect_group *g, const struct zkelect_policy_input *in,
                         struct member_cache **mc_of, int N,
                         const char (*cur)[ZKE_ID_MAX + 1])
{
    char cur2[ZKE_LEADERS_MAX][ZKE_ID_MAX + 1], out2[ZKE_LEADERS_MAX][ZKE_ID_MAX + 1];
    const char *holders[ZKE_LEADERS_MAX], *ids[ZKE_LEADERS_MAX];
    struct zkelect_policy_input in2;
    struct zkelect_member *m2 = NULL;
    struct member_cache **mc2 = NULL;
    struct zke_successor *s;
    char reason[512];
    int chosen[ZKELECT_POLICY_SLOTS_MAX], nch, k, j, i;
    size_t lead;

    if ((s = succession_new(g)) == NULL)
        return;
    if ((m2 = calloc(in->nmembers, sizeof(*m2))) == NULL ||
        (mc2 = calloc(in->nmembers, sizeof(*mc2))) == NULL) {
        free(s);
        goto out;
    }
    for (k = 0; k < N; k++) {
        const char *id, *znode;
        uint64_t ep;

        if (!*cur[k] || !view_elected_slot(g, k, &id, &znode, &ep) || !*znode)
            continue;
        for (lead = 0; lead < in->nmembers; lead++)
            if (strcmp(in->members[lead].id, cur[k]) == 0 &&
                strcmp(mc_of[lead]->znode, znode) == 0)
                break;
        if (lead == in->nmembers)
            continue;
        input_without(in, mc_of, lead, &in2, m2, mc2);
        for (j = 0; j < N; j++) {
            snprintf(cur2[j], sizeof(cur2[j]), "%s", j == k ? "" : cur[j]);
            holders[j] = *cur2[j] ? cur2[j] : NULL;
        }
        in2.slot_holders = holders;
        in2.current_leader = holders[0];
        in2.current_present = holders[0] != NULL;
        in2.current_status = ZKELECT_LEADER_NONE;
        reason[0] = '\0';
        nch = 0;
        if (in2.nmembers == 0 ||
            zke_policy_choose_set(g->policy, &in2, chosen, &nch, reason, sizeof(reason)) != 0)
            continue;
        for (i = 0; i < nch; i++)
            ids[i] = m2[chosen[i]].id;
        zke_slots_assign((const char (*)[ZKE_ID_MAX + 1])cur2, N, ids, nch, N, out2);
        for (j = 0; j < N; j++)
            if (j != k && strcmp(out2[j], cur[j]) != 0)
                break;
        if (j < N || !*out2[k])
            continue;
        for (i = 0; i < (int)in2.nmembers; i++)
            if (strcmp(m2[i].id, out2[k]) == 0) {
                succession_add(s, k, cur[k], znode, mc2[i]);
                break;
            }
    }
    succession_write(g, s);
out:
    free(m2);
    free(mc2);
}

/*
 * A decision for a group with N > 1 slots (doc/PROTOCOL.md, "N active
 * leaders"), or one that goes back to one slot. The policy orders the nodes
 * that should be active (choose_set); zke_slots_assign keeps every slot
 * whose holder stays chosen and refills the others, lowest slot first. A
 * slot that changes gets a new epoch from the one counter of the group (the
 * highest epoch seen, any slot, plus one); a slot that does not keeps its
 * epoch. A switchover moves one slot: the one `from` holds (slot 0 without
 * it), to `to`, to the best node of `site`, or to the best node not active.
 * Holds (settle aside) apply to one slot only: not here.
 */
static void
elector_eval_slots(struct zkelect_group *g, struct zkelect_policy_input *in,
                   struct member_cache **mc_of, int N, bool switchover, bool config_ack,
                   const char *rtext_in)
{
    char cur[ZKE_LEADERS_MAX][ZKE_ID_MAX + 1], out[ZKE_LEADERS_MAX][ZKE_ID_MAX + 1];
    const char *holders[ZKE_LEADERS_MAX], *ids[ZKE_LEADERS_MAX];
    char reason[512], why[ZKE_REASON_MAX + 1];
    struct zke_history_entry he[ZKE_LEADERS_MAX];
    struct zkelect_member *mem = (struct zkelect_member *)in->members;
    struct zke_elected *e;
    struct exclusion *x;
    int chosen[ZKELECT_POLICY_SLOTS_MAX], nchosen = 0, ncur, k, i, rc, nhe = 0;
    unsigned mask = 0;
    uint64_t base = 0, ep, now = zke_now_ms(), switchover_id;

    ncur = g->have_elected ? eslots(g) : 0;
    for (k = 0; k < ZKE_LEADERS_MAX; k++) {
        cur[k][0] = out[k][0] = '\0';
        holders[k] = NULL;
    }
    /* a slot whose node is gone (or a later registration of it) is empty */
    for (k = 0; k < ncur; k++)
        if (eslot_present(g, k))
            snprintf(cur[k], sizeof(cur[k]), "%s", eslot(g, k, NULL));
    /* a member that cannot serve N slots (an earlier release, max_leaders
       absent; or a policy without choose_set) is given none: an earlier
       release would never take a slot above 0 */
    {
        char bad[256];
        size_t off = 0;

        bad[0] = '\0';
        for (i = 0; i < (int)in->nmembers; i++) {
            if (mc_of[i]->rec.max_leaders >= (uint32_t)N)
                continue;
            mem[i].eligible = 0;
            for (k = 0; k < ncur; k++)
                if (strcmp(cur[k], mem[i].id) == 0)
                    cur[k][0] = '\0'; /* its slot is refilled */
            if (off < sizeof(bad))
                off += (size_t)snprintf(bad + off, sizeof(bad) - off, "%s%s (at most %u)",
                                        off ? ", " : "", mem[i].id, mc_of[i]->rec.max_leaders);
        }
        if (strcmp(bad, g->slots_refused) != 0) {
            snprintf(g->slots_refused, sizeof(g->slots_refused), "%s", bad);
            if (*bad)
                zke_event(g->h, g, ZKELECT_EV_ERROR, NULL, 0, ZKELECT_ECONFIG,
                          "leaders = %d: given no slot, as they cannot serve that many: %s",
                          N, bad);
        }
    }
    for (k = 0; k < N && k < ncur; k++)
        holders[k] = *cur[k] ? cur[k] : NULL;
    in->leaders = (unsigned)N;
    in->slot_holders = holders;
    in->nslots = (size_t)N;
    in->current_leader = holders[0];
    in->current_present = holders[0] != NULL;
    switchover_id = g->have_elected ? g->elected.switchover_id : g->switchover.id;
    reason[0] = '\0';

    if (switchover) {
        /* one slot moves: the one `from` holds, slot 0 without it */
        const struct zke_switchover *sw = &g->switchover;
        int s = 0, pick = -1, n1 = 0;
        char whyref[ZKE_REASON_MAX + 1];

        switchover_id = sw->id;
        if (*sw->from) {
            for (s = 0; s < ncur && strcmp(cur[s], sw->from) != 0; s++)
                ;
            if (s == ncur || s >= N) {
                snprintf(whyref, sizeof(whyref), "switchover %llu refused: %s holds no slot",
                         (unsigned long long)sw->id, sw->from);
                zke_event(g->h, g, ZKELECT_EV_ERROR, NULL, 0, ZKELECT_ESTATE, "%s", whyref);
                decide_write(g, NULL, whyref, switchover_id, DECIDE_ACK);
                return;
            }
        }
        /* who may take it: present, able to lead, holding no slot, not the
           one leaving, of the site or the node asked for */
        for (i = 0; i < (int)in->nmembers; i++) {
            bool active = false;
            for (k = 0; k < N; k++)
                if (strcmp(cur[k], mem[i].id) == 0)
                    active = true;
            if (active || (*sw->site && strcmp(mem[i].site, sw->site) != 0) ||
                (*sw->to && strcmp(mem[i].id, sw->to) != 0))
                mem[i].eligible = 0;
        }
        holders[0] = *cur[s] ? cur[s] : NULL;
        for (k = 1; k < ZKE_LEADERS_MAX; k++)
            holders[k] = NULL;
        in->leaders = 1;
        in->nslots = 1;
        in->slot_holders = holders;
        in->current_leader = *cur[s] ? cur[s] : NULL;
        in->current_present = *cur[s] != 0;
        in->switchover_target = *sw->to ? sw->to : NULL;
        rc = zke_policy_choose_set(g->policy, in, &pick, &n1, reason, sizeof(reason));
        if (rc != 0 || n1 == 0) {
            snprintf(whyref, sizeof(whyref), "switchover %llu of slot %d refused: %s",
                     (unsigned long long)sw->id, s, *reason ? reason : "no node can take it");
            zke_event(g->h, g, rc ? ZKELECT_EV_ERROR : ZKELECT_EV_NO_ELIGIBLE, NULL, 0,
                      rc ? rc : ZKELECT_ENOELIGIBLE, "%s", whyref);
            decide_write(g, NULL, whyref, switchover_id, DECIDE_ACK);
            return;
        }
        for (k = 0; k < N; k++)
            snprintf(out[k], sizeof(out[k]), "%s", k < ncur ? cur[k] : "");
        snprintf(out[s], sizeof(out[s]), "%s", mem[pick].id);
        mask = 1u << s;
        for (k = N; k < ncur; k++)
            if (*cur[k])
                mask |= 1u << k;
        snprintf(why, sizeof(why), "switchover %llu: slot %d to %s: %s", (unsigned long long)sw->id,
                 s, mem[pick].id, reason);
    } else {
        rc = zke_policy_choose_set(g->policy, in, chosen, &nchosen, reason, sizeof(reason));
        if (rc != 0) {
            zke_event(g->h, g, ZKELECT_EV_ERROR, NULL, 0, rc, "policy %s failed (%s): %s; no "
                      "decision", zke_policy_name(g->policy), rtext_in, reason);
            return;
        }
        for (i = 0; i < nchosen; i++)
            ids[i] = mem[chosen[i]].id;
        mask = zke_slots_assign((const char (*)[ZKE_ID_MAX + 1])cur, ncur, ids, nchosen, N, out);
        /* the watchdog gave the only candidate of a slot a new epoch */
        for (k = 0; k < N && k < ncur && k < g->nlv; k++)
            if (*out[k] && eslot(g, k, &ep)[0] && LV(g, k)->force_epoch == ep) {
                LV(g, k)->force_epoch = 0;
                mask |= 1u << k;
            }
        /* fewer than N can lead: said once, not at every re-evaluation */
        if (nchosen < N) {
            char shortof[sizeof(g->slots_short)];
            snprintf(shortof, sizeof(shortof), "%d of %d: %s", nchosen, N, reason);
            if (strcmp(shortof, g->slots_short) != 0)
                zke_event(g->h, g, ZKELECT_EV_NO_ELIGIBLE, NULL, 0, ZKELECT_ENOELIGIBLE,
                          "policy %s chose %d of %d (%s): %s", zke_policy_name(g->policy),
                          nchosen, N, rtext_in, reason);
            snprintf(g->slots_short, sizeof(g->slots_short), "%s", shortof);
        } else {
            g->slots_short[0] = '\0';
        }
        snprintf(why, sizeof(why), "%s: %s", rtext_in, reason);
    }
    /* a decision that still names what was decided, with slots lost that
       nobody can take: nothing to write */
    for (k = 0; k < N && k < ncur; k++)
        if (!(mask & (1u << k)) && strcmp(out[k], eslot(g, k, NULL)) != 0)
            mask |= 1u << k; /* a lost holder left empty: record it */
    if (mask == 0 && N == ncur) {
        if ((switchover || config_ack) && g->have_elected) {
            decide_write(g, NULL, why, switchover_id, DECIDE_ACK);
        } else {
            g->reasons = 0;
            /* nothing written: the slots stay, their succession is kept current */
            elector_succession_slots(g, in, mc_of, N, (const char (*)[ZKE_ID_MAX + 1])cur);
        }
        return;
    }

    if ((e = calloc(1, sizeof(*e))) == NULL)
        return;
    /* one counter feeds every slot: above any epoch seen */
    base = g->history_last_epoch;
    for (k = 0; k < ncur; k++)
        if (eslot(g, k, &ep) && ep > base)
            base = ep;
    if (g->have_elected && g->elected.epoch > base)
        base = g->elected.epoch;
    for (k = 0; k < g->nlv; k++)
        if (LV(g, k)->have && LV(g, k)->l.epoch > base)
            base = LV(g, k)->l.epoch;
    snprintf(e->elector, sizeof(e->elector), "%s", g->self.id);
    snprintf(e->policy, sizeof(e->policy), "%s", g->policy ? zke_policy_name(g->policy) : "none");
    snprintf(e->reason, sizeof(e->reason), "%s", why);
    e->at_ms = zke_wall_ms();
    e->switchover_id = switchover_id;
    e->config_version = g->config_version;
    for (x = g->exclusions; x && e->nexcluded < ZKE_EXCLUDED_MAX; x = x->next) {
        struct zke_exclusion *ze = &e->excluded[e->nexcluded++];
        snprintf(ze->id, sizeof(ze->id), "%s", x->id);
        snprintf(ze->reason, sizeof(ze->reason), "%s", x->reason);
        ze->remaining_ms = x->until_ms > now ? x->until_ms - now : 0;
    }
    e->nslots = N - 1;
    for (k = 0; k < N; k++) {
        const struct member_cache *m = NULL;
        char *lid, *lsite, *lznode;
        size_t lidn, lsiten, lznoden;
        uint64_t *lep;
        int64_t *lsince = NULL;

        if (k == 0) {
            lid = e->leader, lidn = sizeof(e->leader);
            lsite = e->leader_site, lsiten = sizeof(e->leader_site);
            lznode = e->leader_znode, lznoden = sizeof(e->leader_znode);
            lep = &e->epoch;
        } else {
            struct zke_slot *zs = &e->slots[k - 1];
            zs->slot = k;
            lid = zs->leader, lidn = sizeof(zs->leader);
            lsite = zs->leader_site, lsiten = sizeof(zs->leader_site);
            lznode = zs->leader_znode, lznoden = sizeof(zs->leader_znode);
            lep = &zs->epoch;
            lsince = &zs->since_ms;
        }
        if (!(mask & (1u << k)) && k < ncur) {
            /* kept as it was */
            if (k == 0) {
                snprintf(lid, lidn, "%s", g->elected.leader);
                snprintf(lsite, lsiten, "%s", g->elected.leader_site);
                snprintf(lznode, lznoden, "%s", g->elected.leader_znode);
                *lep = g->elected.epoch;
            } else {
                e->slots[k - 1] = g->elected.slots[k - 1];
            }
            continue;
        }
        for (i = 0; *out[k] && i < (int)in->nmembers; i++)
            if (strcmp(mem[i].id, out[k]) == 0)
                m = mc_of[i];
        if (m == NULL && k > 0) {
            /* an empty slot: no epoch (it is nobody's fencing token) and no
               history entry (history names leaders; the reason says why
               the slot is empty) */
            *lep = 0;
            continue;
        }
        *lep = ++base;
        if (lsince)
            *lsince = e->at_ms;
        if (m) {
            snprintf(lid, lidn, "%s", m->rec.id);
            snprintf(lsite, lsiten, "%s", m->rec.site);
            snprintf(lznode, lznoden, "%s", m->znode);
        }
        memset(&he[nhe], 0, sizeof(he[nhe]));
        he[nhe].epoch = *lep;
        he[nhe].slot = k;
        snprintf(he[nhe].leader, sizeof(he[nhe].leader), "%s", lid);
        snprintf(he[nhe].elector, sizeof(he[nhe].elector), "%s", e->elector);
        snprintf(he[nhe].policy, sizeof(he[nhe].policy), "%s", e->policy);
        snprintf(he[nhe].reason, sizeof(he[nhe].reason), "%s", why);
        he[nhe].at_ms = e->at_ms;
        nhe++;
    }
    decision_hosts(g, e, member_find(g, e->leader));
    decision_wake(g, e);
    if (e->epoch == 0)
        e->epoch = ++base; /* slot 0 never decided yet and empty: still a valid epoch */
    for (k = N; k < ncur; k++)
        zke_log(g->h, ZKELECT_LOG_INFO, "%s: slot %d released (leaders = %d)", g->path, k, N);
    hold_set(g, NULL, "", 0, "deciding");
    decide_commit(g, e, he, nhe, base);
}

/* The naming ops of W were applied: remember who is named now. */
static void
succession_named(struct zkelect_group *g, const struct req_wake *w)
{
    size_t ns = strlen(ZKE_NAMED_SUFFIX), len;
    int k;

    g->succ_woken[0] = '\0';
    g->succ_woken_id[0] = '\0';
    for (k = 0; k < w->n; k++) {
        len = strlen(w->id[k]);
        if (len > ns && strcmp(w->id[k] + len - ns, ZKE_NAMED_SUFFIX) == 0) {
            snprintf(g->succ_woken, sizeof(g->succ_woken), "%s", w->path[k]);
            snprintf(g->succ_woken_id, sizeof(g->succ_woken_id), "%.*s", (int)(len - ns), w->id[k]);
        }
    }
}

void
elector_on_succession_reply(struct zkelect_group *g, struct zev *ev)
{
    struct req *r = ev->req;
    int rc = ev->rc == ZOK || r->attempt == 0 ? ev->rc : multi_first_error(r, (int)r->attempt);
    int nwake, succ_op;

    g->deciding = false;
    if (!g->is_elector)
        return;
    if (r->attempt == 0 && ev->rc == ZNONODE) {
        /* an empty succession, and none there: nothing to replace */
        free(g->succ_key);
        g->succ_key = strdup(r->arg);
        g->succ_zstate = 0;
        g->succ_self = false;
        goto out;
    }
    /* the multi's ops: [check elected] [history] successor, then two per
       znode named or named no more (succession_wake_ops) */
    nwake = r->attempt > 0 && r->wake ? 2 * r->wake->n : 0;
    succ_op = (int)r->attempt - 1 - nwake;
    if (ev->rc == ZOK) {
        /* a leader that is the elector hands over with what it wrote
           (view_watch_successor): the version is the set's, or 0 created */
        int32_t version = r->attempt == 0 ? ev->stat.version : r->mstat.version;
        view_take_successor(g, r->payload[0], (int)strlen(r->payload[0]), version);
        free(g->succ_key);
        g->succ_key = strdup(r->arg);
        g->succ_zstate = 1;
        g->succ_self = g->succ_self_next;
        if (nwake)
            succession_named(g, r->wake);
        if (r->token) {
            history_store(g, r->payload[1], strlen(r->payload[1]), r->token);
            g->history_version = g->history_version >= 0 ? g->history_version + 1 : 0;
        }
    } else {
        /* refused on a naming op: that registration is gone (the listing
           that shows it is on its way); nothing else failed. Nothing of the
           multi was applied: who was named still is, unless it is the one
           gone (its naming back failed). An unknown outcome keeps it too:
           the next write names and names back again, at worst a wake for
           nothing */
        bool gone = false;
        int k;

        for (k = succ_op + 1; k < (int)r->attempt; k++) {
            if (r->results[k].err == ZNONODE) {
                gone = true;
                if (strcmp(r->wake->path[(k - succ_op - 1) / 2], g->succ_woken) == 0) {
                    g->succ_woken[0] = '\0';
                    g->succ_woken_id[0] = '\0';
                }
            }
        }
        free(g->succ_key);
        g->succ_key = NULL;
        if (rc == ZNONODE && r->attempt > 0 && r->results[succ_op].err == ZNONODE)
            g->succ_zstate = 0;         /* created next time */
        else if (rc == ZNODEEXISTS)
            g->succ_zstate = 1;
        else if (zkerr_outcome_unknown(ev->rc))
            g->succ_zstate = -1;
        if (zkerr_outcome_unknown(ev->rc))
            g->succ_self = true; /* perhaps: step aside for nothing until known */
        if (r->token && !gone && (rc == ZBADVERSION || rc == ZNODEEXISTS || rc == ZNONODE)) {
            /* the history moved: read it again before anything builds on it */
            struct req *hr;
            g->history_read = false;
            if ((hr = req_new(g->h, g, REQ_GET_HISTORY)) != NULL)
                req_sent(hr, zoo_aget(g->h->zh, g->p_history, 0, data_completion, hr));
        }
        if (rc == ZNONODE || rc == ZNODEEXISTS)
            g->eval_pending = true;
    }
out:
    if (g->eval_pending) {
        g->eval_pending = false;
        elector_eval(g);
    }
}

void
elector_eval(struct zkelect_group *g)
{
    struct zkelect_member *in_members = NULL;
    struct member_cache **mc_of = NULL;
    const char *(*tagp)[ZKE_TAGS_MAX] = NULL;
    struct zkelect_exclusion in_excl[ZKE_EXCLUDED_MAX];
    struct zkelect_site_priority in_sites[ZKE_SITES_MAX];
    struct zkelect_option in_opts[ZKE_OPTIONS_MAX];
    struct zkelect_policy_input in;
    size_t cap = 0;
    struct member_cache *m;
    struct exclusion *x, **xp;
    char reason[512], why[ZKE_REASON_MAX + 1], rtext[128]; /* reason: whole in events, cut in payloads */
    size_t n = 0, i;
    int chosen = -1, rc, t;
    uint64_t now = zke_now_ms(), switchover_id;
    bool current_present, switchover, config_ack, restore, cur_can_lead, operator_cfg, multi;
    int nlead;
    char htext[160];
    const char *cur;
    struct member_cache *curm;
    int d;
    bool succ_ok = false;

    if (!elector_ready(g))
        return;
    if (g->deciding) {
        g->eval_pending = true;
        return;
    }
    /* drop exclusions that ended */
    for (xp = &g->exclusions; (x = *xp) != NULL;) {
        if (x->until_ms <= now) {
            *xp = x->next;
            zke_log(g->h, ZKELECT_LOG_INFO, "%s: exclusion of %s (%s) ended", g->path, x->id, x->reason);
            free(x);
            g->reasons |= ZKELECT_REASON_EXCLUSION_END;
        } else {
            xp = &x->next;
        }
    }
    /* drains that ended */
    if (g->config && g->drain_mono)
        for (d = 0; d < g->config->ndrains; d++)
            if (g->drain_mono[d] && g->drain_mono[d] <= now) {
                g->drain_mono[d] = 0;
                zke_log(g->h, ZKELECT_LOG_INFO, "%s: drain of %s ended", g->path,
                        g->config->drains[d].id);
                g->reasons |= ZKELECT_REASON_DRAIN_END;
            }
    if (g->hold.kind[0] && g->hold.until <= now)
        g->reasons |= ZKELECT_REASON_HOLD_END;
    cur = g->have_elected ? g->elected.leader : "";
    current_present = elected_present(g);
    /* `elected` is gone or unreadable while a valid leader znode is live:
       that leader is current, and keeping it restores the decision */
    restore = !g->have_elected && LV0(g)->have && member_present(g, LV0(g)->l.id) &&
              !(CFG(g)->leaders > 1);
    if (restore) {
        cur = LV0(g)->l.id;
        current_present = true;
    }
    if (*cur && !current_present)
        g->reasons |= ZKELECT_REASON_LEADER_LOST;
    /* without a readable `elected` we cannot tell a new request from one
       acted on long ago: never act on it then (the next decision records it) */
    switchover = g->have_elected && g->switchover.id != 0 && g->switchover.id > g->elected.switchover_id;
    if (switchover && g->switchover.cancel) {
        /* a cancellation: acknowledged (its id supersedes the request it
           cancels), nothing moves */
        snprintf(why, sizeof(why), "switchover %llu: cancelled%s%s",
                 (unsigned long long)g->switchover.id, *g->switchover.by ? " by " : "",
                 g->switchover.by);
        zke_log(g->h, ZKELECT_LOG_INFO, "%s: %s", g->path, why);
        decide_write(g, NULL, why, g->switchover.id, DECIDE_ACK);
        return;
    }
    if (switchover && g->switchover_due > now) {
        /* scheduled: not yet (the timer brings the elector back at its time) */
        zke_log(g->h, ZKELECT_LOG_DEBUG, "%s: switchover %llu due in %llu ms", g->path,
                (unsigned long long)g->switchover.id,
                (unsigned long long)(g->switchover_due - now));
        switchover = false;
    }
    if (switchover && g->switchover.due_ms > 0 && CFG(g)->paused) {
        snprintf(why, sizeof(why), "scheduled switchover %llu refused: the group is paused",
                 (unsigned long long)g->switchover.id);
        zke_event(g->h, g, ZKELECT_EV_ERROR, NULL, 0, ZKELECT_ESTATE, "%s", why);
        decide_write(g, NULL, why, g->switchover.id, DECIDE_ACK);
        return;
    }
    if (switchover)
        g->reasons |= ZKELECT_REASON_SWITCHOVER;
    curm = *cur && current_present ? member_find(g, cur) : NULL;
    cur_can_lead = curm && member_can_lead(g, curm, now);
    /* N active slots, or going back to one: the slots' own decision below */
    nlead = CFG(g)->leaders > 1 ? (int)CFG(g)->leaders : 1;
    multi = nlead > 1 || (g->have_elected && g->elected.nslots > 0);

    /* a config version not yet acknowledged in `elected` (operators wait on
       it), or an exclusion recorded there that has ended: both are written
       even when the leader stays */
    config_ack = g->have_elected && g->elected.config_version != g->config_version;
    if (g->have_elected) {
        int k;
        for (k = 0; k < g->elected.nexcluded; k++)
            if (exclusion_find(g, g->elected.excluded[k].id) == NULL)
                config_ack = true;
    }
    /* an operator changed the rules (set-site-priority, a policy option...):
       a config version not evaluated yet, read as more than a drain. (Every
       config read sets config-changed, the first one of a new elector too,
       and reasons outlive a hold's write: the version tells.) Operators are
       never held. */
    operator_cfg = config_ack && g->elected.config_version != g->config_version &&
                   g->config_rules_version == g->config_version;
    if (CFG(g)->paused && !switchover && (multi ? g->have_elected && all_present(g) : current_present)) {
        zke_log(g->h, ZKELECT_LOG_DEBUG, "%s: paused: no decision while the leader is present", g->path);
        if (config_ack)
            decide_write(g, NULL, "config-changed: paused, leader kept", g->have_elected ?
                         g->elected.switchover_id : 0, DECIDE_ACK);
        return;
    }
    /* no policy, no decision: not even the hold of a settle is written */
    if (elector_policy(g) != 0)
        return;
    for (m = g->members; m; m = m->next)
        cap++;
    if (cap > 0) {
        in_members = calloc(cap, sizeof(*in_members));
        mc_of = calloc(cap, sizeof(*mc_of));
        tagp = calloc(cap, sizeof(*tagp));
        if (in_members == NULL || mc_of == NULL || tagp == NULL) {
            zke_log(g->h, ZKELECT_LOG_ERR, "%s: out of memory building the policy input", g->path);
            goto out;
        }
    }
    memset(&in, 0, sizeof(in));
    for (m = g->members; m; m = m->next) {
        if (!m->loaded || !m->valid)
            continue;
        for (t = 0; t < m->rec.ntags; t++)
            tagp[n][t] = m->rec.tags[t];
        in_members[n].id = m->rec.id;
        in_members[n].site = m->rec.site;
        in_members[n].priority = m->rec.priority;
        in_members[n].seq = m->seq;
        in_members[n].tags = tagp[n];
        in_members[n].ntags = (size_t)m->rec.ntags;
        /* a drained node may not lead, as if its own config said so (every
           policy honours it); a switchover to a site considers that site only */
        in_members[n].eligible = m->rec.eligible && !drained(g, m->rec.id, now) &&
            !(switchover && *g->switchover.site && strcmp(m->rec.site, g->switchover.site) != 0);
        in_members[n].healthy = m->rec.healthy;
        in_members[n].excluded = exclusion_find(g, m->rec.id) != NULL;
        mc_of[n] = m;
        n++;
    }
    in.size = sizeof(in);
    in.members = in_members;
    in.nmembers = n;
    in.current_leader = *cur ? cur : NULL;
    in.current_leader_site = g->have_elected && *cur ? g->elected.leader_site : NULL;
    in.current_present = current_present;
    in.current_status = ZKELECT_LEADER_NONE;
    if (LV0(g)->have && *cur && strcmp(LV0(g)->l.id, cur) == 0)
        in.current_status = (enum zkelect_leader_status)LV0(g)->l.status;
    in.previous_leader = g->have_elected && *g->elected.previous ? g->elected.previous : NULL;
    i = 0;
    for (x = g->exclusions; x && i < ZKE_EXCLUDED_MAX; x = x->next, i++) {
        in_excl[i].id = x->id;
        in_excl[i].reason = x->reason;
        in_excl[i].remaining_ms = x->until_ms - now;
    }
    in.excluded = in_excl;
    in.nexcluded = i;
    for (i = 0; i < (size_t)CFG(g)->nsites; i++) {
        in_sites[i].site = CFG(g)->sites[i].site;
        in_sites[i].priority = CFG(g)->sites[i].priority;
    }
    in.sites = in_sites;
    in.nsites = (size_t)CFG(g)->nsites;
    for (i = 0; i < (size_t)CFG(g)->noptions; i++) {
        in_opts[i].key = CFG(g)->options[i].key;
        in_opts[i].value = CFG(g)->options[i].value;
    }
    in.options = in_opts;
    in.noptions = (size_t)CFG(g)->noptions;
    in.reasons = g->reasons;
    in.switchover_target = switchover && *g->switchover.to ? g->switchover.to : NULL;
    if (!multi && switchover && *g->switchover.site && curm && cur_can_lead &&
        strcmp(curm->rec.site, g->switchover.site) == 0) {
        /* the leader is on that site already: nothing to move */
        snprintf(why, sizeof(why), "switchover %llu to site %s: %s already leads there",
                 (unsigned long long)g->switchover.id, g->switchover.site, cur);
        decide_write(g, NULL, why, g->switchover.id, DECIDE_ACK);
        goto out;
    }

    reason[0] = '\0';
    rc = zke_policy_choose(g->policy, &in, &chosen, reason, sizeof(reason));
    reasons_text(g->reasons, rtext, sizeof(rtext));
    if (rc != 0) {
        zke_event(g->h, g, ZKELECT_EV_ERROR, NULL, 0, rc, "policy %s failed (%s): %s; no decision",
                  zke_policy_name(g->policy), rtext, reason);
        /* no decision to hold back: the hold's timer would bring the
           failing policy back every 100 ms */
        hold_set(g, NULL, "", 0, "the policy failed");
        goto out;
    }
    /* A cold start (doc/PROTOCOL.md §3; after the policy ran: one that
       fails writes nothing, not even the hold): no leader, and since this
       elector registered nobody has led and nothing was decided. Wait for
       the expected members, or settle_ms, before the first decision, so that
       the boot order does not choose the leader. A group that lost its
       leader is never held: this elector saw that leader. */
    if (!g->settle_done) {
        bool cold = !LV0(g)->have && !current_present && !g->saw_leader &&
                    !(g->have_elected && g->my_czxid != 0 && g->elected_mzxid > g->my_czxid);
        int settle = effective_settle_ms(g), expect = effective_expect(g), live = 0;

        for (m = g->members; m; m = m->next)
            if (m->loaded && m->valid)
                live++;
        if (g->settle_start == 0 && cold && settle > 0)
            g->settle_start = now;
        /* once settling, our own writes (the hold shown in elected) do not
           end it; a leader appearing, an operator, the count or time do */
        if (g->settle_start == 0 || LV0(g)->have || g->saw_leader || switchover ||
            operator_cfg || settle <= 0 ||
            (expect > 0 && live >= expect) || now >= g->settle_start + (uint64_t)settle) {
            if (g->settle_start)
                zke_log(g->h, ZKELECT_LOG_INFO, "%s: cold start settled after %llu ms with %d "
                        "members%s", g->path, (unsigned long long)(now - g->settle_start), live,
                        expect > 0 && live >= expect ? " (all expected)" : "");
            g->settle_done = true;
            if (g->hold.kind[0] && strcmp(g->hold.kind, "settle") == 0)
                hold_set(g, NULL, "", 0, "deciding");
        } else {
            uint64_t until = g->settle_start + (uint64_t)settle;
            if (expect > 0)
                snprintf(htext, sizeof(htext), "settle: waiting for %d more member%s (%d of %d), "
                         "%.1f s left", expect - live, expect - live == 1 ? "" : "s", live,
                         expect, (double)(until - now) / 1000.0);
            else
                snprintf(htext, sizeof(htext), "settle: %d member%s present, %.1f s left",
                         live, live == 1 ? "" : "s", (double)(until - now) / 1000.0);
            if (hold_set(g, "settle", "", until, htext) || config_ack)
                hold_write(g, htext);
            goto out;
        }
    }

    if (multi) {
        elector_eval_slots(g, &in, mc_of, nlead, switchover, config_ack, rtext);
        goto out;
    }
    succ_ok = true;
    switchover_id = g->have_elected ? g->elected.switchover_id : g->switchover.id;
    if (switchover)
        switchover_id = g->switchover.id;
    if (chosen < 0) {
        zke_event(g->h, g, ZKELECT_EV_NO_ELIGIBLE, NULL, 0, ZKELECT_ENOELIGIBLE,
                  "policy %s chose no node (%s): %s", zke_policy_name(g->policy), rtext, reason);
        snprintf(why, sizeof(why), "%s: %s", rtext, reason);
        if (switchover && current_present && !config_ack) {
            /* a refused switchover keeps the leader: acknowledge it only */
            decide_write(g, NULL, why, switchover_id, DECIDE_ACK);
            goto out;
        }
        if (!*cur) {
            /* nobody leads already: only acknowledge what operators wait on */
            if ((switchover || config_ack) && g->have_elected)
                decide_write(g, NULL, why, switchover_id, DECIDE_ACK);
            else if (g->have_elected && g->elected.hold.kind[0] && !g->hold.kind[0])
                decide_write(g, NULL, why, switchover_id, DECIDE_ACK); /* a hold that ended */
            else
                g->reasons = 0;
            goto out;
        }
        decide_write(g, NULL, why, switchover_id, DECIDE_NEW);
        goto out;
    }
    snprintf(why, sizeof(why), "%s: %s", rtext, reason);
    if (restore && strcmp(in_members[chosen].id, LV0(g)->l.id) == 0) {
        hold_set(g, NULL, "", 0, "restoring");
        snprintf(why, sizeof(why), "restored: %s was unreadable or missing; %s leads at epoch %llu",
                 g->p_elected, LV0(g)->l.id, (unsigned long long)LV0(g)->l.epoch);
        decide_write(g, mc_of[chosen], why, switchover_id, DECIDE_RESTORE);
        goto out;
    }
    /* the same id as `elected` names, with the registration it was elected
       with: no change. The same id on a later registration (the node left or
       lost its session and came back, e.g. after the whole group stopped) is
       a new leader: a new decision names that registration, else it would
       wait for a decision naming it until the watchdog */
    if (strcmp(in_members[chosen].id, cur) == 0 && current_present) {
        if (g->have_elected && LV0(g)->force_epoch == g->elected.epoch) {
            /* the watchdog gave the only candidate a new epoch */
            LV0(g)->force_epoch = 0;
            decide_write(g, mc_of[chosen], why, switchover_id, DECIDE_NEW);
        } else if ((switchover || config_ack) && g->have_elected) {
            hold_set(g, NULL, "", 0, "the leader stays");
            decide_write(g, NULL, why, switchover_id, DECIDE_ACK); /* acknowledge only */
        } else if (hold_set(g, NULL, "", 0, "the leader stays")) {
            hold_write(g, "the leader stays");   /* clear the hold shown in elected */
        } else {
            g->reasons = 0; /* no change: no write */
        }
        goto out;
    }
    /* A voluntary automatic move: the leader could go on (present, eligible,
       healthy, not excluded, not drained), and no operator asked (a
       switchover, a config change such as set-site-priority). It waits for
       the failback delay (the new node seen healthy that long) and the
       anti-flap interval (since the last change of leader). A lost or
       failing leader, and operators, are never held. */
    if (cur_can_lead && !switchover && !operator_cfg) {
        struct member_cache *to = mc_of[chosen];
        int fb = effective_failback_ms(g), mm = effective_min_move_ms(g);
        uint64_t fb_until = fb > 0 && to->ok_since ? to->ok_since + (uint64_t)fb : 0;
        uint64_t mm_until = mm > 0 && g->last_move_ms ? g->last_move_ms + (uint64_t)mm : 0;

        if (fb > 0 && to->ok_since == 0)
            fb_until = now + (uint64_t)fb;
        if (fb_until > now || mm_until > now) {
            const char *kind = fb_until >= mm_until ? "failback" : "anti-flap";
            uint64_t until = fb_until >= mm_until ? fb_until : mm_until;

            if (strcmp(kind, "failback") == 0)
                snprintf(htext, sizeof(htext), "failback: %s (%s) may lead in %.1f s (healthy "
                         "for %.1f of %d s)", to->rec.id, to->rec.site, (double)(until - now) / 1000.0,
                         to->ok_since ? (double)(now - to->ok_since) / 1000.0 : 0.0, fb / 1000);
            else
                snprintf(htext, sizeof(htext), "anti-flap: %s may lead in %.1f s (the leader "
                         "changed %.1f s ago; min_move_interval_ms %d)", to->rec.id,
                         (double)(until - now) / 1000.0,
                         (double)(now - g->last_move_ms) / 1000.0, mm);
            /* shown in elected; a config version (a drain) is acknowledged
               meanwhile, so that `zkelect drain --wait` does not wait for it */
            if (hold_set(g, kind, to->rec.id, until, htext) || config_ack)
                hold_write(g, htext);
            goto out;
        }
    }
    hold_set(g, NULL, "", 0, "deciding");
    if (curm && drained(g, cur, now)) {
        /* say so in elected and the history: the policy only saw it ineligible */
        char tmp[sizeof(why)];
        snprintf(tmp, sizeof(tmp), "%s", why);
        snprintf(why, sizeof(why), "%s is drained; %s", cur, tmp);
    }
    decide_write(g, mc_of[chosen], why, switchover_id, DECIDE_NEW);
out:
    /* nothing written: the leader stays, and its succession is kept current */
    if (succ_ok && !g->deciding && g->have_elected && current_present && !restore && *cur &&
        strcmp(cur, g->elected.leader) == 0 && !succession_waits(g, now))
        elector_succession(g, &in, mc_of);
    free(in_members);
    free(mc_of);
    free(tagp);
}

/*
 * Slot K's watchdog after a change of the view. Returns true when a fresh
 * listing of the members was asked for (a PROGRESS znode vanished): that
 * listing decides (elector_members).
 */
static bool
watchdog_view(struct zkelect_group *g, int k)
{
    struct lview *v = LV(g, k);
    uint64_t e;
    const char *id = eslot(g, k, &e);
    bool elected_znode = eslot_znode(g, k, false);
    bool retake;

    if (v->wd_deadline && elected_znode && v->l.status == ZKELECT_STATUS_READY)
        v->wd_deadline = 0;
    /* the elected leader READY at this epoch, then PROGRESS again: it fenced
       itself and takes over again; that takeover gets a watchdog too (if it
       fails, its PROGRESS znode vanishing must be noticed below) */
    if (elected_znode && v->l.status == ZKELECT_STATUS_READY)
        v->ready_seen_epoch = e;
    retake = elected_znode && v->l.status == ZKELECT_STATUS_PROGRESS && v->ready_seen_epoch == e;
    /* a decision naming a leader that is not READY always has a watchdog,
       also one whose write outcome was unknown, or read after a reconnect,
       and again when the elected node's leader znode is gone at an epoch it
       was READY at (a take-over-again that failed before this elector saw
       its PROGRESS: the model's FIX_REARM). A watchdog guards one epoch:
       one still armed for another is armed again for this one. (A new
       elector whose read of `elected` was in flight, as after the
       shortcut of reg_next_pred, armed it at the leader znode's deletion
       for the decision before; fired, it would do nothing, and nothing
       would guard this one: the model's A watchdog per epoch.) */
    if (*id && (v->wd_epoch != e || (!v->wd_deadline && (retake || v->version < 0))) &&
        g->elected_read && v->read && !(elected_znode && v->l.status == ZKELECT_STATUS_READY)) {
        v->ready_seen_epoch = 0;
        watchdog_arm(g, k, e);
    }
    /* the last status seen of the elected node's leader znode at this
       epoch: a READY leader whose znode goes later resigned or was lost; it
       never failed its takeover */
    if (elected_znode && v->l.status == ZKELECT_STATUS_PROGRESS)
        v->progress_seen_epoch = e;
    else if (elected_znode)
        v->progress_seen_epoch = 0;
    /* the elected node's PROGRESS znode vanished: its takeover failed (it
       gave the epoch up) if it is still a member. A node that resigns
       removes its registration in the same multi, but the notification of
       that may come after this one: list the members afresh and decide on
       that listing (elector_members), without waiting for the watchdog. */
    if (v->wd_deadline && v->read && v->version < 0 && *id && v->progress_seen_epoch == e &&
        eslot_present(g, k)) {
        v->progress_seen_epoch = 0;
        v->takeover_check_epoch = e;
        reg_list_election(g, true);
        return true;
    }
    return false;
}

/* The view changed (the caller checked that this node is the elector). */
void
elector_view_changed(struct zkelect_group *g)
{
    int k;

    for (k = 0; k < eslots(g) && k < g->nlv; k++)
        if (watchdog_view(g, k))
            return;
    elector_eval(g);
}

/* Some member other than those the decision names could lead
   (member_can_lead): a candidate for slot K instead of its node. */
static bool
other_candidate(struct zkelect_group *g, int k)
{
    struct member_cache *m;
    uint64_t now = zke_now_ms();
    int j;

    (void)k;
    for (m = g->members; m; m = m->next) {
        if (!member_can_lead(g, m, now))
            continue;
        for (j = 0; j < eslots(g); j++)
            if (strcmp(m->rec.id, eslot(g, j, NULL)) == 0)
                break;
        if (j == eslots(g))
            return true;
    }
    return false;
}

/*
 * Exclude slot K's elected node and elect again (watchdog, or a takeover
 * seen to fail). Not when no other member could lead: excluding the only
 * candidate leaves the slot without a leader for exclude_ms and gains
 * nothing. Then the node keeps its chance: a takeover still running (its
 * leader znode is there) gets another period; one given up (no leader znode
 * of that epoch) is decided again at a new epoch when the watchdog fires, so
 * a node that failed its takeover retries at most once a watchdog period.
 */
static void
watchdog_exclude(struct zkelect_group *g, int k, uint64_t now, const char *reason, const char *why)
{
    struct lview *v = LV(g, k);
    uint64_t e;
    char id[ZKE_ID_MAX + 1], rsn[ZKE_NAME_MAX + 1];
    bool znode = eslot_znode(g, k, false);
    bool timer = strcmp(reason, "watchdog") == 0;
    int was = g->ev_slot;

    snprintf(id, sizeof(id), "%s", eslot(g, k, &e));
    if (k > 0)
        snprintf(rsn, sizeof(rsn), "%s-slot-%d", reason, k);
    else
        snprintf(rsn, sizeof(rsn), "%s", reason);
    g->ev_slot = k;
    if (!other_candidate(g, k)) {
        if (!timer)
            goto out; /* the watchdog, still armed, decides again when it fires */
        g->n_watchdog++;
        v->wd_deadline = now + (uint64_t)effective_watchdog_ms(g);
        v->wd_postponed_ms = 0;
        group_timer_changed(g);
        if (znode) {
            zke_event(g->h, g, ZKELECT_EV_WATCHDOG, id, e, 0,
                      "%s %s; no other member can lead: not excluded, another %d ms",
                      id, why, effective_watchdog_ms(g));
            goto out;
        }
        zke_event(g->h, g, ZKELECT_EV_WATCHDOG, id, e, 0,
                  "%s %s; no other member can lead: not excluded, deciding again at a new epoch",
                  id, why);
        v->force_epoch = e;
        g->reasons |= ZKELECT_REASON_WATCHDOG;
        g->ev_slot = was;
        elector_eval(g);
        return;
    }
    v->wd_deadline = 0;
    g->n_watchdog++;
    exclusion_add(g, id, rsn, now + (uint64_t)effective_exclude_ms(g));
    zke_event(g->h, g, ZKELECT_EV_WATCHDOG, id, e, 0,
              "%s %s; excluded for %d ms, electing again", id, why, effective_exclude_ms(g));
    g->reasons |= ZKELECT_REASON_WATCHDOG;
    g->ev_slot = was;
    elector_eval(g);
    return;
out:
    g->ev_slot = was;
}

uint64_t
group_next_deadline(struct zkelect_group *g)
{
    uint64_t d = 0;
    int k;
    struct exclusion *x;

    /* no timer acts while the view is being read again (a reconnect, a
       gap): the read's reply brings the scan back within a second */
    if (!g->is_elector || g->closed || !g->elected_read || !view_leaders_read(g))
        return 0;
    for (k = 0; k < g->nlv; k++)
        if (LV(g, k)->wd_deadline && (d == 0 || LV(g, k)->wd_deadline < d))
            d = LV(g, k)->wd_deadline;
    for (x = g->exclusions; x; x = x->next)
        if (d == 0 || x->until_ms < d)
            d = x->until_ms;
    if (g->hold.kind[0] && (d == 0 || g->hold.until < d))
        d = g->hold.until;
    if (g->succ_wait_until && (d == 0 || g->succ_wait_until < d))
        d = g->succ_wait_until;
    if (g->switchover_due && g->have_elected && g->switchover.id > g->elected.switchover_id &&
        (d == 0 || g->switchover_due < d))
        d = g->switchover_due;
    if (g->config && g->drain_mono) {
        int i;
        for (i = 0; i < g->config->ndrains; i++)
            if (g->drain_mono[i] && (d == 0 || g->drain_mono[i] < d))
                d = g->drain_mono[i];
    }
    return d;
}

/* Slot K's watchdog fired. Returns true when it acted (elected again, or
   fenced an old leader znode). */
static bool
watchdog_fire(struct zkelect_group *g, int k, uint64_t now)
{
    struct lview *v = LV(g, k);
    uint64_t e;
    const char *id = eslot(g, k, &e);
    int was;

    v->wd_deadline = 0;
    if (!g->have_elected || e != v->wd_epoch || !*id)
        return false;
    if (eslot_znode(g, k, true))
        return false;
    if (v->version >= 0 && (!v->have || v->l.epoch < e) && !v->wd_fenced) {
        /* the old leader has not released its znode: fence it, give the
           elected node one more period. Not before the decision is a
           session timeout old: an old leader cut off from ZooKeeper
           has stepped down by then (its self-fence ends within T/2,
           fence.c), one that is heard steps down when it sees the
           decision and releases by itself. */
        uint64_t t = (uint64_t)(g->h->negotiated_timeout_ms > g->h->session_timeout_ms
                                    ? g->h->negotiated_timeout_ms
                                    : g->h->session_timeout_ms);
        struct req *r;

        if (now < v->wd_start_ms + t) {
            v->wd_deadline = v->wd_start_ms + t;
            group_timer_changed(g);
            zke_log(g->h, ZKELECT_LOG_INFO, "%s: the old leader znode %s stays until epoch %llu's "
                    "decision is a session timeout (%llu ms) old", g->path, v->path,
                    (unsigned long long)e, (unsigned long long)t);
            return true;
        }
        r = req_new(g->h, g, REQ_LEADER_FENCE);
        if (r)
            r->token = (uint64_t)k; /* the slot: elector_on_fence_reply */
        v->wd_fenced = true;
        v->wd_deadline = now + (uint64_t)effective_watchdog_ms(g);
        group_timer_changed(g);
        was = g->ev_slot;
        g->ev_slot = k;
        zke_event(g->h, g, ZKELECT_EV_LEADER_FENCED, v->have ? v->l.id : NULL,
                  v->have ? v->l.epoch : 0, 0,
                  "old leader znode not released within %d ms; deleting it (epoch %llu now leads)",
                  effective_watchdog_ms(g), (unsigned long long)e);
        g->ev_slot = was;
        if (r) {
            /* with `elected` rewritten as it is (its version moves): a
               release based on a view from before this fence then fails
               its check of `elected` (leader_delete, candidate.c), and
               cannot delete the next leader's znode, which ZooKeeper
               creates at version 0 again (an ABA of the version) */
            size_t len = 0;

            if (zke_elected_encode(&g->elected, &r->payload[0], &len) != 0) {
                req_sent(r, ZMARSHALLINGERROR);
                return true;
            }
            zoo_set_op_init(&r->ops[0], g->p_elected, r->payload[0], (int)len,
                            g->elected_version, NULL);
            zoo_delete_op_init(&r->ops[1], v->path, v->version);
            memset(r->results, 0, sizeof(r->results));
            req_sent(r, zoo_amulti(g->h->zh, 2, r->ops, r->results, multi_completion, r));
        }
        return true;
    }
    /* ZooKeeper itself is slow to answer this elector (a request of the
       handle outstanding over a second): the elected node's writes wait
       in the same queue, it is not to blame. Wait, a second at a time,
       at most one more watchdog period. */
    if (zke_oldest_request_ms(g->h, now) > ZKE_GAP_MS &&
        v->wd_postponed_ms < (uint64_t)effective_watchdog_ms(g)) {
        v->wd_postponed_ms += ZKE_GAP_MS;
        v->wd_deadline = now + ZKE_GAP_MS;
        group_timer_changed(g);
        zke_log(g->h, ZKELECT_LOG_INFO, "%s: watchdog of epoch %llu (slot %d) waits: ZooKeeper "
                "is slow to answer (%llu ms so far)", g->path, (unsigned long long)e, k,
                (unsigned long long)v->wd_postponed_ms);
        return true;
    }
    watchdog_exclude(g, k, now, "watchdog", "not READY within the watchdog period");
    return true;
}

/* The fence's multi (watchdog_fire) answered. Refused because `elected`
   moved since our view (a decision, a switchover's acknowledgement): not the
   elected node's fault, so no exclusion; fence again, on the view re-read,
   at the next scan. */
void
elector_on_fence_reply(struct zkelect_group *g, struct zev *ev)
{
    int k = (int)ev->req->token;
    struct lview *v;

    if (ev->rc == ZOK || ev->rc == ZNONODE)
        return;
    if (ev->rc != ZBADVERSION || ev->req->results[0].err != ZBADVERSION) {
        zke_log(g->h, ZKELECT_LOG_WARNING, "%s: fencing the old leader znode failed: %s",
                g->path, zerror(ev->rc));
        return;
    }
    zke_log(g->h, ZKELECT_LOG_INFO, "%s: fencing the old leader znode: elected changed "
            "meanwhile; again on a fresh view", g->path);
    g->elected_read = false;
    view_read_elected(g);
    if (!g->is_elector || k < 0 || k >= g->nlv)
        return;
    v = LV(g, k);
    v->wd_fenced = false;
    v->wd_deadline = zke_now_ms() + ZKE_GAP_MS;
    group_timer_changed(g);
}

void
group_on_timer(struct zkelect_group *g, uint64_t now)
{
    int k;

    if (!g->is_elector || !group_connected(g) || !g->elected_read || !view_leaders_read(g))
        return;
    for (k = 0; k < g->nlv; k++)
        if (LV(g, k)->wd_deadline && now >= LV(g, k)->wd_deadline) {
            view_arm_deferred(g, -1); /* our own takeover did not come */
            if (watchdog_fire(g, k, now))
                return;
        }
    if (g->succ_wait_until && now >= g->succ_wait_until)
        g->succ_wait_until = 0; /* its wait is over: the evaluation writes it */
    elector_eval(g); /* exclusions that ended */
}

/* ---- what the rest of the group asks of the elector ---------------------- */

/* This node is the elector and has ID in its member cache. */
bool
elector_tracks(struct zkelect_group *g, const char *id)
{
    return g->is_elector && member_find(g, id) != NULL;
}

/* The member record of ID was deleted: as a re-read would answer (ZNONODE,
   no watch left), it is not a member. */
void
elector_member_deleted(struct zkelect_group *g, const char *id)
{
    struct member_cache *m = g->is_elector ? member_find(g, id) : NULL;

    if (m == NULL)
        return;
    m->loaded = true;
    m->valid = false;
    member_ok_update(m);
    elector_eval(g);
}

/* Free what only the elector holds. */
void
elector_free(struct zkelect_group *g)
{
    members_clear(g);
    exclusions_clear(g);
    zke_policy_unload(g->policy);
    g->policy = NULL;
    free(g->history_buf);
    g->history_buf = NULL;
    free(g->config);
    g->config = NULL;
    free(g->drain_mono);
    g->drain_mono = NULL;
    free(g->succ_key);
    g->succ_key = NULL;
}

/* The elector was blind for a while (disconnected, or its thread stalled):
   it cannot tell what progress the elected node made meanwhile, and that
   node may have lost its writes in the same outage. An armed watchdog gives
   it a full period from now, as a new elector does (elector_start). */
void
elector_watchdog_restart(struct zkelect_group *g)
{
    uint64_t d;
    int k;

    if (!g->is_elector)
        return;
    d = zke_now_ms() + (uint64_t)effective_watchdog_ms(g);
    for (k = 0; k < g->nlv; k++)
        if (LV(g, k)->wd_deadline && d > LV(g, k)->wd_deadline)
            LV(g, k)->wd_deadline = d;
}

/* Read everything the elector decides on again (a reconnect on the same
   session, a stuck group): exclusions are kept, the watchdog restarts. */
void
elector_reread(struct zkelect_group *g)
{
    struct member_cache *m;
    struct req *r;

    if (!g->is_elector || !group_connected(g))
        return;
    elector_watchdog_restart(g);
    g->election_read = g->config_read = g->switchover_read = g->history_read = false;
    reg_list_election(g, true);
    /* member records whose read was cut off: the listing reads only new ones */
    for (m = g->members; m; m = m->next)
        if (!m->loaded)
            elector_read_member(g, m->rec.id);
    group_send_get(g, REQ_GET_CONFIG, g->p_config, NULL);
    group_send_get(g, REQ_GET_SWITCHOVER, g->p_switchover, NULL);
    if ((r = req_new(g->h, g, REQ_GET_HISTORY)) != NULL)
        req_sent(r, zoo_aget(g->h->zh, g->p_history, 0, data_completion, r));
}

/*
 * The elector cannot move on by itself (group.c calls this for a connected
 * group with nothing outstanding and a complete view): its own view is
 * incomplete, or a decision names a leader that is not READY with no
 * watchdog over it.
 */
bool
elector_stuck(struct zkelect_group *g, char *why, size_t len)
{
    struct member_cache *m;
    int k;

    if (!g->is_elector)
        return false;
    if (g->deciding) {
        snprintf(why, len, "elector: a decision write with no reply outstanding");
        return true;
    }
    if (!g->election_read || !g->config_read || !g->switchover_read || !g->history_read) {
        snprintf(why, len, "elector: view incomplete (members %s, config %s, switchover %s, "
                 "history %s)", g->election_read ? "read" : "unread",
                 g->config_read ? "read" : "unread", g->switchover_read ? "read" : "unread",
                 g->history_read ? "read" : "unread");
        return true;
    }
    for (m = g->members; m; m = m->next) {
        if (!m->loaded) {
            snprintf(why, len, "elector: member %s never read", m->rec.id);
            return true;
        }
    }
    for (k = 0; k < eslots(g) && k < g->nlv; k++) {
        uint64_t e;
        const char *id = eslot(g, k, &e);
        if (*id && LV(g, k)->wd_deadline == 0 && !eslot_znode(g, k, true) &&
            LV(g, k)->wd_epoch != e) {
            snprintf(why, len, "elector: %s elected at epoch %llu (slot %d) is not READY and no "
                     "watchdog guards it", id, (unsigned long long)e, k);
            return true;
        }
    }
    return false;
}
