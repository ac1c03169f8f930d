/*
 * candidate.c - the elected node's side (runs on the library thread).
 *
 * Owns: the role g->role from "named by `elected`" to READY and back (changed
 * only through group_role_set): the leader znode's PROGRESS create (checked
 * against the version of `elected` that names us), the takeover callback,
 * READY (checked against both), suspension on a lost connection and its
 * verification, the self-fence (fence.c decides when), step-down and the
 * release of the leader znode.
 *
 * g->active is the application's side: true from the takeover callback's
 * call to the end of its step-down. The leader znode is released only once
 * it is false (release after step-down, in every path), and a node that
 * stepped down without being heard (FENCED) takes over again through
 * PROGRESS, the takeover callback and READY, never by resuming.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "group.h"
#include "zkerr.h"

/* ---- the candidate: two-phase takeover and step-down -------------------- */

static void stepdown(struct zkelect_group *g, enum zkelect_event_type ev, const char *why);

/* The roles in which this node holds, or is about to hold, the leader znode. */
bool
cand_role_leading(enum role r)
{
    return r == ROLE_CREATING || r == ROLE_PROGRESS || r == ROLE_READYING || r == ROLE_READY ||
           r == ROLE_STEPPING_DOWN || r == ROLE_DELETING;
}

/* The application starts or stops acting (never set g->active elsewhere). */
void
cand_set_active(struct zkelect_group *g, bool active)
{
    g->active = active;
    fence_update(g);
}

bool
cand_leader_is_mine(struct zkelect_group *g)
{
    return CL(g)->version >= 0 && CL(g)->owner != 0 && CL(g)->owner == g->h->session_id;
}

static uint64_t cand_epoch(struct zkelect_group *g);

/* A request carrying our leader znode's data (STATUS at EPOCH, PREVIOUS the
   decision's previous leader, NULL: as the decision in view says), or NULL
   (out of memory; an encoding failure is answered as a failed request). */
static struct req *
leader_request(struct zkelect_group *g, enum req_kind kind, int status, uint64_t epoch,
               const char *previous, size_t *len)
{
    struct zke_leader l;
    struct req *r;

    memset(&l, 0, sizeof(l));
    snprintf(l.id, sizeof(l.id), "%s", g->self.id);
    l.status = status;
    l.epoch = epoch;
    l.since_ms = zke_wall_ms();
    l.slot = g->cslot;
    /* our record's site, host and priority: who watches the leader needs
       no read of nodes/<id> (and has them after we are gone) */
    l.has_member = true;
    snprintf(l.site, sizeof(l.site), "%s", g->self.site);
    snprintf(l.host, sizeof(l.host), "%s", g->self.host);
    l.priority = (int)g->self.priority;
    if (previous != NULL)
        snprintf(l.previous, sizeof(l.previous), "%s", previous);
    else if (g->cslot == 0 && g->have_elected)
        snprintf(l.previous, sizeof(l.previous), "%s", g->elected.previous);
    if ((r = req_new(g->h, g, kind)) == NULL)
        return NULL;
    r->token = epoch;
    if (zke_leader_encode(&l, &r->payload[0], len) != 0) {
        req_sent(r, ZMARSHALLINGERROR);
        return NULL;
    }
    return r;
}

/* The READY multi of role_epoch, checked against the version of `elected`
   that named us and the leader znode's VERSION. False: not sent. */
static bool
leader_send_ready(struct zkelect_group *g, int version)
{
    struct req *r;
    size_t len;

    if ((r = leader_request(g, REQ_LEADER_READY, ZKELECT_STATUS_READY, g->role_epoch, NULL, &len)) == NULL)
        return false;
    g->ready_direct = false; /* a READY write of its own: the version moves */
    zoo_check_op_init(&r->ops[0], g->p_elected, g->role_elected_version);
    zoo_set_op_init(&r->ops[1], CL(g)->path, r->payload[0], (int)len, version, NULL);
    memset(r->results, 0, sizeof(r->results));
    req_sent(r, zoo_amulti(g->h->zh, 2, r->ops, r->results, multi_completion, r));
    return true;
}

static void ready_result(struct zkelect_group *g, int rc);

/*
 * Create our leader znode while `elected` is still the version that names
 * us. A takeover with no work (no takeover callback, or
 * ZKELECT_GROUP_TAKEOVER_NOOP) creates it READY: one write, the two phases
 * in one. The create is the exclusive step either way: it fails if any
 * leader znode is there (NODEEXISTS) or if `elected` moved (BADVERSION), and
 * nothing the takeover does is waited for (doc/PROTOCOL.md §4; the Spin
 * model's PIPE, doc/model/README.md).
 */
static void
leader_create(struct zkelect_group *g)
{
    uint64_t epoch = cand_epoch(g);
    bool direct = g->takeover_noop;
    struct req *r;
    size_t len;

    if ((r = leader_request(g, REQ_LEADER_CREATE,
                            direct ? ZKELECT_STATUS_READY : ZKELECT_STATUS_PROGRESS, epoch,
                            NULL, &len)) == NULL)
        return;
    g->role_epoch = epoch;
    g->ready_direct = direct;
    g->ready_early = false;
    group_role_set(g, ROLE_CREATING, 0, epoch, 0, "elected at epoch %llu%s",
                   (unsigned long long)epoch, direct ? ": creating the leader znode READY" : "");
    g->role_elected_version = g->elected_version;
    zoo_check_op_init(&r->ops[0], g->p_elected, g->elected_version);
    zoo_create_op_init(&r->ops[1], CL(g)->path, r->payload[0], (int)len, group_acl(g),
                       ZOO_EPHEMERAL, NULL, 0);
    memset(r->results, 0, sizeof(r->results));
    req_sent(r, zoo_amulti(g->h->zh, 2, r->ops, r->results, multi_completion, r));
}

/*
 * The fast handover (doc/PROTOCOL.md §4): woken while slot 0's leader znode
 * has just gone, with no reply since (the release's batch), a member that
 * follows takes the handover without reading the decision first. The reads
 * the wake sends went out before this create. It is one multi: our election
 * znode at one above the version we last read (a resigning leader's wake
 * is one write, an elector's two, so exactly one handover's wake came and
 * nothing else), `elected` at one above the version we last read (the wake
 * came with the write after the one we read: ZooKeeper sends a watch's
 * event before any reply that shows the change), and the leader znode,
 * at the epoch one above that decision's, the leaver its previous. That
 * decision over the one we read is, by those checks, the handover's: the
 * decision we read with slot 0 given to us at that epoch (register.c,
 * reg_handover). If the multi is refused, nothing was created and the
 * reads in flight take the ordinary path.
 */
/* The conditions of cand_fast_create but the hint: whether a wake now could
   be taken as a handover's. */
bool
cand_fast_possible(struct zkelect_group *g)
{
    const struct zke_elected *e = &g->elected;

    if (g->reg != REG_DONE || g->leaving || g->rereg_pending || !group_connected(g) ||
        g->is_elector || g->role != ROLE_MEMBER || g->nlv != 1 || g->cslot != 0 ||
        cand_leader_is_mine(g))
        return false;
    /* the decision last read: written while every member was of this
       release (fast_handover), naming another node in slot 0 alone */
    return g->have_elected && g->elected_version >= 0 && g->elected_version < INT32_MAX &&
           e->fast_handover && e->nslots == 0 && *e->leader &&
           strcmp(e->leader, g->self.id) != 0 && e->epoch != 0 && e->epoch < ZKE_EPOCH_MAX &&
           g->my_czxid != 0 && g->mine_version >= 0 && g->mine_version < INT32_MAX &&
           g->failed_epoch != e->epoch + 1;
}

void
cand_fast_create(struct zkelect_group *g)
{
    const struct zke_elected *e = &g->elected;
    bool direct = g->takeover_noop;
    uint64_t epoch;
    struct req *r;
    size_t len;

    if (!g->fast_hint)
        return;
    g->fast_hint = false;
    if (!cand_fast_possible(g))
        return;
    epoch = e->epoch + 1;
    if ((r = leader_request(g, REQ_LEADER_CREATE,
                            direct ? ZKELECT_STATUS_READY : ZKELECT_STATUS_PROGRESS, epoch,
                            e->leader, &len)) == NULL)
        return;
    snprintf(r->arg, sizeof(r->arg), "fast"); /* its refusal is no abort */
    g->role_epoch = epoch;
    g->ready_direct = direct;
    g->ready_early = false;
    group_role_set(g, ROLE_CREATING, 0, epoch, 0,
                   "woken as %s's successor: creating the leader znode%s at epoch %llu",
                   e->leader, direct ? " READY" : "", (unsigned long long)epoch);
    g->role_elected_version = g->elected_version + 1;
    snprintf(r->pathbuf[0], sizeof(r->pathbuf[0]), "%s/%s", g->p_election, g->my_znode);
    zoo_check_op_init(&r->ops[0], r->pathbuf[0], g->mine_version + 1);
    zoo_check_op_init(&r->ops[1], g->p_elected, g->role_elected_version);
    zoo_create_op_init(&r->ops[2], CL(g)->path, r->payload[0], (int)len, group_acl(g),
                       ZOO_EPHEMERAL, NULL, 0);
    memset(r->results, 0, sizeof(r->results));
    req_sent(r, zoo_amulti(g->h->zh, 3, r->ops, r->results, multi_completion, r));
}

static void
leader_set_ready(struct zkelect_group *g)
{
    if (g->ready_early && !g->repairing) {
        /* created READY (leader_create): nothing to write */
        g->ready_early = false;
        group_role_set(g, ROLE_READYING, 0, g->role_epoch, 0, "takeover done; created READY");
        ready_result(g, ZOK);
        return;
    }
    if (leader_send_ready(g, CL(g)->version))
        group_role_set(g, ROLE_READYING, 0, g->role_epoch, 0, g->repairing ? "repairing" : "takeover done");
}

/* FENCED, heard again, still elected at the epoch of our leader znode: set
   it back to PROGRESS (observers see the takeover), then take over again. */
static void
leader_retake(struct zkelect_group *g)
{
    uint64_t epoch = cand_epoch(g);
    struct req *r;
    size_t len;

    if ((r = leader_request(g, REQ_LEADER_RETAKE, ZKELECT_STATUS_PROGRESS, epoch, NULL, &len)) == NULL)
        return;
    g->role_epoch = epoch;
    g->role_elected_version = g->elected_version;
    g->ready_direct = g->ready_early = false; /* PROGRESS again: READY is written */
    group_role_set(g, ROLE_CREATING, 0, epoch, 0, "still elected at epoch %llu: taking over again",
                   (unsigned long long)epoch);
    zoo_check_op_init(&r->ops[0], g->p_elected, g->elected_version);
    zoo_set_op_init(&r->ops[1], CL(g)->path, r->payload[0], (int)len, CL(g)->version, NULL);
    memset(r->results, 0, sizeof(r->results));
    req_sent(r, zoo_amulti(g->h->zh, 2, r->ops, r->results, multi_completion, r));
}

/* The leader znode is no longer ours: leave, register again, or look at
   the view (whichever was waiting for the release). */
static void
released(struct zkelect_group *g)
{
    if (g->leaving)
        reg_unregister(g);
    else if (g->rereg_pending)
        reg_reregister(g);
    else
        cand_step(g);
}

static void
leader_delete(struct zkelect_group *g)
{
    struct req *r;

    if (!cand_leader_is_mine(g)) {
        group_role_set(g, g->reg == REG_DONE ? ROLE_MEMBER : ROLE_NONE, 0, g->role_epoch, 0,
                       "no leader znode of ours to release");
        released(g);
        return;
    }
    r = req_new(g->h, g, REQ_LEADER_DELETE);
    if (r == NULL)
        return;
    group_role_set(g, ROLE_DELETING, 0, g->role_epoch, 0, "releasing the leader znode");
    if (g->elected_version < 0) {
        /* no `elected` to check (missing or unreadable): no other node can
           be elected before it is written again */
        req_sent(r, zoo_adelete(g->h->zh, CL(g)->path, CL(g)->version, void_completion, r));
        return;
    }
    /* The version alone cannot tell our znode from the next leader's, which
       ZooKeeper creates at version 0 again after ours is gone (a fence, our
       session's end): an ABA. A next leader needs a new decision or a fence,
       and both rewrite `elected`: check it is as our view read it. */
    r->token = 1; /* a multi: its results say which op refused */
    zoo_check_op_init(&r->ops[0], g->p_elected, g->elected_version);
    zoo_delete_op_init(&r->ops[1], CL(g)->path, CL(g)->version);
    memset(r->results, 0, sizeof(r->results));
    req_sent(r, zoo_amulti(g->h->zh, 2, r->ops, r->results, multi_completion, r));
}

/* The takeover finished (callback result or zkelect_takeover_done). */
void
cand_takeover_result(struct zkelect_group *g, uint64_t epoch, int err)
{
    if (g->role != ROLE_PROGRESS || g->role_epoch != epoch)
        return; /* stale */
    if (err == ZKELECT_EBUSY)
        return; /* finished later */
    if (err != 0) {
        g->failed_epoch = epoch;
        g->takeover_ok = false;
        zke_event(g->h, g, ZKELECT_EV_TAKEOVER_FAILED, g->self.id, epoch, err,
                  "takeover failed (%s); giving up this candidacy after the step-down, the "
                  "watchdog moves on", zkelect_strerror(err));
        /* undo what the takeover did before the leader znode goes: the next
           node's takeover must not start while this one is undone */
        stepdown(g, 0, "takeover failed");
        return;
    }
    g->takeover_ok = true;
    leader_set_ready(g);
}

static void
start_takeover(struct zkelect_group *g)
{
    uint64_t unheard;
    int rc = 0;

    if (!fence_lease_ok(g->h, zke_now_ms(), &unheard)) {
        /* the reply that elected us was handled after the self-fence's
           deadline: the session may have expired on the server and another
           node taken over, and a takeover started now could outlast it.
           Acting since before a disconnect: the fence's step-down. Else
           nothing acts: fenced, as after that step-down; heard again and
           still elected, it takes over then. */
        if (g->active) {
            cand_fence(g, unheard);
            return;
        }
        g->h->n_fenced++;
        g->fence_stepdown = true;
        g->fence_viewed = false;
        group_role_set(g, ROLE_FENCED, ZKELECT_EV_FENCED, g->role_epoch, 0,
                       "elected at epoch %llu, but nothing heard from ZooKeeper for %llu ms "
                       "(fence_ms %d): not taking over before it is heard again",
                       (unsigned long long)g->role_epoch, (unsigned long long)unheard,
                       g->h->fence_ms);
        cand_step(g);
        return;
    }
    g->takeover_ok = false;
    g->fence_stepdown = false;
    view_watch_successor(g);
    cand_set_active(g, true);
    group_role_set(g, ROLE_PROGRESS, ZKELECT_EV_TAKEOVER, g->role_epoch, 0,
                   "elected at epoch %llu: leader znode %s, taking over",
                   (unsigned long long)g->role_epoch,
                   g->ready_early ? "created READY (no takeover work)" : "PROGRESS");
    if (g->on_takeover)
        rc = g->on_takeover(g->cb_data, g, g->role_epoch);
    cand_takeover_result(g, g->role_epoch, rc);
}

void
cand_stepdown_result(struct zkelect_group *g, uint64_t epoch)
{
    if (g->role != ROLE_STEPPING_DOWN || g->role_epoch != epoch)
        return;
    cand_set_active(g, false);
    if (g->fence_stepdown || !group_connected(g)) {
        /* nothing is acting any more; whether the leader znode is released
           or taken over again is decided on a view read once heard again */
        g->fence_viewed = false;
        group_role_set(g, ROLE_FENCED, 0, epoch, 0, "step-down ended %s; the leader znode waits",
                       g->fence_stepdown ? "unheard" : "disconnected");
        cand_step(g);
        return;
    }
    if (g->leaving && g->reg == REG_DONE && cand_leader_is_mine(g)) {
        /* resigning: the leader znode and the registration go in one multi
           (do_unregister checks the leader znode's version), one round trip
           less before the next leader can take over */
        group_role_set(g, ROLE_DELETING, 0, epoch, 0, "resigning: leader znode and registration");
        reg_unregister(g);
        return;
    }
    leader_delete(g);
}

/* Step down with event EV (0: none, the caller published one): the step-down
   callback runs if the application may be acting, then the release. */
static void
stepdown(struct zkelect_group *g, enum zkelect_event_type ev, const char *why)
{
    int rc = 0;
    uint64_t epoch = g->role_epoch;

    group_role_set(g, ROLE_STEPPING_DOWN, ev, epoch, 0, "%s", why);
    if (g->on_stepdown && g->active)
        rc = g->on_stepdown(g->cb_data, g, epoch);
    if (rc != ZKELECT_EBUSY)
        cand_stepdown_result(g, epoch);
}

void
cand_start_stepdown(struct zkelect_group *g, const char *why)
{
    char detail[256];
    enum role was = g->role;

    if (was == ROLE_PROGRESS || was == ROLE_CREATING) {
        snprintf(detail, sizeof(detail), "takeover aborted: %s", why);
        stepdown(g, ZKELECT_EV_TAKEOVER_ABORT, detail);
    } else {
        snprintf(detail, sizeof(detail), "stepping down: %s", why);
        stepdown(g, ZKELECT_EV_STEPDOWN, detail);
    }
}

/* Leadership cannot be resumed (SUSPENDED): say so, step the application
   down if it may be acting, release a leader znode still ours. */
void
cand_lost(struct zkelect_group *g, const char *why)
{
    zke_event(g->h, g, ZKELECT_EV_LOST, g->self.id, g->role_epoch, 0, "%s", why);
    if (g->active) {
        stepdown(g, 0, why);
        return;
    }
    group_role_set(g, g->reg == REG_DONE ? ROLE_MEMBER : ROLE_NONE, 0, g->role_epoch, 0, "%s", why);
    leader_delete(g);
}

/* The self-fence (fence.c): nothing heard from ZooKeeper for UNHEARD_MS. */
void
cand_fence(struct zkelect_group *g, uint64_t unheard_ms)
{
    char detail[256];

    if (!g->active || g->role == ROLE_STEPPING_DOWN)
        return;
    g->h->n_fenced++;
    g->fence_stepdown = true;
    snprintf(detail, sizeof(detail), "nothing heard from ZooKeeper for %llu ms (fence_ms %d): "
             "stepping down before the session can expire", (unsigned long long)unheard_ms,
             g->h->fence_ms);
    stepdown(g, ZKELECT_EV_FENCED, detail);
}

void
cand_on_leader_create_reply(struct zkelect_group *g, struct zev *ev)
{
    bool fast = strcmp(ev->req->arg, "fast") == 0; /* cand_fast_create's */

    if (CL(g)->defer && !zkerr_outcome_unknown(ev->rc) && ev->rc != ZCLOSING) {
        /* a new group's leader znode (view_absent): watched from our own
           create on, as the watch it did not set would have made us read
           it again now */
        if (ev->rc == ZOK)
            CL(g)->read = false;
        view_read_leader(g);
    }
    if (g->role != ROLE_CREATING || g->role_epoch != ev->req->token)
        return;
    if (ev->rc == ZOK) {
        if (fast)
            g->n_fast++;
        /* our own write: the view need not wait for the watch */
        CL(g)->version = 0;
        CL(g)->owner = g->h->session_id;
        memset(&CL(g)->l, 0, sizeof(struct zke_leader));
        snprintf(CL(g)->l.id, sizeof(CL(g)->l.id), "%s", g->self.id);
        CL(g)->l.status = g->ready_direct ? ZKELECT_STATUS_READY : ZKELECT_STATUS_PROGRESS;
        CL(g)->l.epoch = g->role_epoch;
        if (fast) /* as its payload says: the decision in view names the leaver */
            snprintf(CL(g)->l.previous, sizeof(CL(g)->l.previous), "%s", g->elected.leader);
        CL(g)->have = true;
        /* created READY: published with +ready, after +takeover */
        g->ready_early = g->ready_direct;
        if (!g->ready_direct)
            view_publish_leader(g);
        start_takeover(g);
        return;
    }
    if (zkerr_outcome_unknown(ev->rc)) {
        /* verified after the reconnect */
        group_role_set(g, ROLE_SUSPENDED, 0, g->role_epoch, 0, "creating the leader znode: %s",
                       zerror(ev->rc));
        return;
    }
    if (fast) {
        /* not a handover's wake, or not the decision we predicted: nothing
           was created; the reads sent before it decide (no abort: we never
           knew we were elected) */
        g->n_fast_refused++;
        group_role_set(g, ROLE_MEMBER, 0, ev->req->token, 0,
                       "not taken as a handover (%s): acting on the decision read",
                       zerror(ev->rc));
        cand_step(g);
        return;
    }
    if (ev->rc == ZBADVERSION) {
        group_role_set(g, ROLE_MEMBER, ZKELECT_EV_TAKEOVER_ABORT, ev->req->token, 0,
                       "elected changed before the leader znode was created");
        view_read_elected(g);
        return;
    }
    if (ev->rc == ZNODEEXISTS) {
        /* the old leader still holds it: wait for its deletion */
        group_role_set(g, ROLE_WAITING, 0, g->role_epoch, 0, "the old leader znode is still there");
        view_read_leader(g);
        return;
    }
    group_role_set(g, ROLE_MEMBER, ZKELECT_EV_ERROR, ev->req->token, zkerr_from_zk(ev->rc),
                   "cannot create %s: %s", CL(g)->path, zerror(ev->rc));
}

void
cand_on_leader_retake_reply(struct zkelect_group *g, struct zev *ev)
{
    if (g->role != ROLE_CREATING || g->role_epoch != ev->req->token)
        return;
    if (ev->rc == ZOK) {
        CL(g)->version++;
        CL(g)->l.status = ZKELECT_STATUS_PROGRESS;
        g->fence_stepdown = false;
        view_publish_leader(g);
        start_takeover(g);
        return;
    }
    /* refused (elected or our znode changed) or no answer: nothing acts;
       decide again on a fresh view */
    g->fence_viewed = false;
    group_role_set(g, ROLE_FENCED, 0, g->role_epoch, 0, "taking over again: %s", zerror(ev->rc));
    cand_step(g);
}

void
cand_on_leader_ready_reply(struct zkelect_group *g, struct zev *ev)
{
    if (g->role != ROLE_READYING || g->role_epoch != ev->req->token)
        return;
    ready_result(g, ev->rc);
}

/* The READY write of role_epoch answered RC (role READYING). */
static void
ready_result(struct zkelect_group *g, int rc)
{
    if (rc == ZOK) {
        bool repair = g->repairing;
        g->repairing = false;
        if (g->ready_direct)
            g->ready_direct = false; /* created READY: version 0 */
        else
            CL(g)->version++;
        if (CL(g)->have && strcmp(CL(g)->l.id, g->self.id) == 0)
            CL(g)->l.status = ZKELECT_STATUS_READY;
        if (repair) {
            /* a repaired leader znode: still the same leadership */
            group_role_set(g, ROLE_READY, 0, g->role_epoch, 0, "leader znode repaired");
            return;
        }
        g->n_transitions++;
        group_role_set(g, ROLE_READY, ZKELECT_EV_READY, g->role_epoch, 0,
                       "READY leader at epoch %llu", (unsigned long long)g->role_epoch);
        view_publish_leader(g);
        return;
    }
    if (g->repairing) {
        g->repairing = false;
        if (zkerr_outcome_unknown(rc)) {
            group_role_set(g, ROLE_SUSPENDED, 0, g->role_epoch, 0, "repair: %s", zerror(rc));
            return;
        }
        group_role_set(g, ROLE_READY, 0, g->role_epoch, 0, "repair refused: %s", zerror(rc));
        view_read_elected(g);
        view_read_leader(g);
        return;
    }
    if (zkerr_outcome_unknown(rc)) {
        group_role_set(g, ROLE_SUSPENDED, 0, g->role_epoch, 0, "setting READY: %s", zerror(rc));
        return;
    }
    /* `elected` or our leader znode changed: re-read both; cand_step retries
       READY if the decision still names us at this epoch, else steps down */
    group_role_set(g, ROLE_PROGRESS, 0, g->role_epoch, 0, "setting READY failed (%s); re-reading",
                   zerror(rc));
    view_read_elected(g);
    view_read_leader(g);
}

void
cand_on_leader_delete_reply(struct zkelect_group *g, struct zev *ev)
{
    int rc = ev->rc;

    if (g->role != ROLE_DELETING)
        return;
    if (ev->req->token == 1 && rc != ZOK && !zkerr_outcome_unknown(rc) && rc != ZCLOSING) {
        if (ev->req->results[0].err != ZOK) {
            /* `elected` changed since our view: a decision or a fence. The
               znode may be the next leader's now: read both again */
            zke_log(g->h, ZKELECT_LOG_DEBUG, "%s: release refused: elected changed (%s); "
                    "reading the view again", g->path, zerror(ev->req->results[0].err));
            g->elected_read = false;
            view_read_elected(g);
            cand_release_retry(g);
            return;
        }
        rc = ev->req->results[1].err;
    }
    if (rc == ZOK || rc == ZNONODE) {
        group_role_set(g, g->reg == REG_DONE || g->reg == REG_LEAVING ? ROLE_MEMBER : ROLE_NONE,
                       0, g->role_epoch, 0, "leader znode released");
        CL(g)->version = -1;
        CL(g)->owner = 0;
        released(g);
        return;
    }
    if (rc == ZBADVERSION) {
        /* changed under us: the step-down is over, the release goes on with
           the version a fresh read gives (cand_step) */
        cand_release_retry(g);
        return;
    }
    /* connection trouble: the step-down is over, so release again once the
       leader znode is read again after the reconnect (never back to a leading
       role); the session's end settles it too */
    zke_log(g->h, ZKELECT_LOG_INFO, "%s: releasing the leader znode: %s; again once heard",
            g->path, zerror(ev->rc));
    cand_release_retry(g);
}

/* Release the leader znode again once it has been read again: the step-down
   is over (the role stays DELETING, it never goes back to a leading one). */
void
cand_release_retry(struct zkelect_group *g)
{
    g->release_retry = true;
    CL(g)->read = false;
    view_read_leader(g);
}

/* The epoch of the candidate's slot in the decision in view (0: none). */
static uint64_t
cand_epoch(struct zkelect_group *g)
{
    const char *id, *znode;
    uint64_t epoch;

    return view_elected_slot(g, g->cslot, &id, &znode, &epoch) ? epoch : 0;
}

/* Slot K of `elected` names this registration of ours (not a former
   session's). */
static bool
cand_named_in(struct zkelect_group *g, int k)
{
    const char *id, *znode;
    uint64_t epoch;

    /* a decision written before our election znode existed named a former
       session of ours: never act on it (the elector decides again) */
    return view_elected_slot(g, k, &id, &znode, &epoch) && strcmp(id, g->self.id) == 0 &&
           (*znode ? strcmp(znode, g->my_znode) == 0 : g->elected_mzxid > g->my_czxid);
}

/* Slot K of the decision in view names our registration (group.c). */
bool
cand_named_slot(struct zkelect_group *g, int k)
{
    return g->reg == REG_DONE && g->elected_read && g->have_elected && cand_named_in(g, k);
}

/* The candidate's slot names us. */
static bool
cand_named(struct zkelect_group *g)
{
    return cand_named_in(g, g->cslot);
}

/*
 * A node holds at most one slot. Elected in another slot than the one its
 * role is about, it moves there only when it holds nothing: no leading role,
 * no leader znode of its own left in its old slot (the step-down and the
 * release of that one come first, as for any leader no longer named).
 * Returns false while the new slot's leader znode is still unread.
 */
static bool
cand_follow_slot(struct zkelect_group *g)
{
    int k;

    if (g->nlv <= 1 || cand_named(g))
        return true;
    if ((g->role != ROLE_MEMBER && g->role != ROLE_WAITING) || cand_leader_is_mine(g))
        return true;
    for (k = 0; k < g->nlv; k++)
        if (k != g->cslot && cand_named_in(g, k))
            break;
    if (k == g->nlv) {
        if (g->cslot != 0 && g->role == ROLE_MEMBER)
            g->cslot = 0; /* named nowhere: back to the first slot's view */
        return true;
    }
    if (g->role == ROLE_WAITING)
        group_role_set(g, ROLE_MEMBER, 0, g->role_epoch, 0, "elected in slot %d now", k);
    zke_log(g->h, ZKELECT_LOG_DEBUG, "%s: candidate moves from slot %d to slot %d", g->path,
            g->cslot, k);
    g->cslot = k;
    return LV(g, k)->read;
}

void
cand_step(struct zkelect_group *g)
{
    bool named, mine;

    if (g->reg != REG_DONE || !group_connected(g) || !g->elected_read || !CL(g)->read ||
        g->my_czxid == 0)
        return;
    if (!cand_follow_slot(g))
        return; /* the new slot's leader znode is read first */
    named = cand_named(g);
    mine = cand_leader_is_mine(g);

    if (g->role == ROLE_DELETING) {
        /* a release that was refused or got no reply, the leader znode read
           again: delete it with its version now, or find it gone (also when
           leaving: leader_delete goes on to the leave) */
        if (g->release_retry) {
            g->release_retry = false;
            leader_delete(g);
        }
        return;
    }
    if (g->leaving) {
        if (g->role == ROLE_FENCED)
            leader_delete(g); /* nothing acts: release, then leave */
        else if (g->role == ROLE_READY || g->role == ROLE_PROGRESS || g->role == ROLE_SUSPENDED ||
            (g->role == ROLE_MEMBER && mine && g->active))
            cand_start_stepdown(g, "resigning");
        else if (g->role == ROLE_MEMBER && mine)
            /* a leave refused after the step-down (reg_on_unregister_reply):
               nothing acts, and -stepdown was said; release and leave again */
            stepdown(g, 0, "resigning: leaving again");
        else if (g->role == ROLE_MEMBER || g->role == ROLE_WAITING || g->role == ROLE_NONE)
            reg_unregister(g);
        return;
    }

    switch (g->role) {
    case ROLE_FENCED:
        /* the step-down has ended: decide on a view read since, from
           requests sent after it (so heard again) */
        if (!g->fence_viewed) {
            g->fence_viewed = true;
            g->elected_read = CL(g)->read = false;
            view_read_elected(g);
            view_read_leader(g);
            return;
        }
        if (named && mine && CL(g)->have && CL(g)->l.epoch == cand_epoch(g) &&
            strcmp(CL(g)->l.id, g->self.id) == 0 && g->failed_epoch != cand_epoch(g) &&
            !g->rereg_pending) {
            leader_retake(g);
            return;
        }
        if (g->fence_stepdown)
            zke_event(g->h, g, ZKELECT_EV_LOST, g->self.id, g->role_epoch, 0,
                      "leadership not confirmed after the self-fence: %s",
                      !named ? "elected names another node" : "the leader znode is not ours");
        g->fence_stepdown = false;
        leader_delete(g); /* ours: release it; else nothing to release */
        return;
    case ROLE_SUSPENDED:
        if (named && mine && CL(g)->have && CL(g)->l.epoch == cand_epoch(g) &&
            strcmp(CL(g)->l.id, g->self.id) == 0) {
            g->role_epoch = cand_epoch(g);
            g->role_elected_version = g->elected_version;
            if (CL(g)->l.status == ZKELECT_STATUS_READY && g->active)
                group_role_set(g, ROLE_READY, ZKELECT_EV_RESUMED, g->role_epoch, 0,
                               "leadership verified after reconnect: leader znode and elected are ours");
            else if (CL(g)->l.status == ZKELECT_STATUS_READY)
                leader_retake(g); /* READY, but nothing acts (a retake unanswered) */
            else {
                g->ready_direct = g->ready_early = false; /* PROGRESS: READY is written */
                start_takeover(g);
            }
            return;
        }
        cand_lost(g, !named ? "leadership not confirmed after reconnect: elected names another node"
                            : "leadership not confirmed after reconnect: the leader znode is not ours");
        return;
    case ROLE_READY:
    case ROLE_PROGRESS:
        if (!mine) {
            group_role_set(g, ROLE_MEMBER, ZKELECT_EV_LOST, g->role_epoch, 0,
                           "our leader znode is gone (fenced or deleted)");
            /* act again only on a fresh view: the deletion may be our
               session's end arriving before the expiry itself */
            g->elected_read = false;
            view_read_elected(g);
            return;
        }
        if (!g->have_elected) {
            /* `elected` is missing or unreadable: no other node can take our
               leader znode meanwhile, so hold on until the elector restores
               or replaces the decision */
            return;
        }
        if (!named || cand_epoch(g) != g->role_epoch) {
            cand_start_stepdown(g, named ? "re-elected at a new epoch" : "elected names another node");
            return;
        }
        /* the same decision, perhaps re-written (a switchover acknowledged) */
        g->role_elected_version = g->elected_version;
        if (g->role == ROLE_PROGRESS && g->takeover_ok)
            leader_set_ready(g);
        else if (g->role == ROLE_READY && !CL(g)->have) {
            /* someone overwrote our leader znode with garbage: repair it */
            zke_log(g->h, ZKELECT_LOG_WARNING, "%s: rewriting our malformed leader znode", g->path);
            g->repairing = true;
            leader_set_ready(g);
        }
        return;
    case ROLE_DELETING:
    case ROLE_CREATING:
    case ROLE_READYING:
    case ROLE_STEPPING_DOWN:
        return; /* a reply or callback settles these */
    default:
        break;
    }

    /* ROLE_MEMBER / ROLE_WAITING */
    if (!named) {
        if (g->role == ROLE_WAITING)
            group_role_set(g, ROLE_MEMBER, 0, g->role_epoch, 0, "no longer elected");
        if (mine) {
            g->role_epoch = CL(g)->l.epoch;
            leader_delete(g); /* a leftover of ours */
        }
        return;
    }
    if (g->failed_epoch == cand_epoch(g))
        return; /* we failed this epoch's takeover: wait for the next decision */
    if (mine) {
        g->role_epoch = CL(g)->l.epoch;
        leader_delete(g); /* ours from an older epoch: remove, then take over */
        return;
    }
    if (CL(g)->version >= 0) {
        if (g->role != ROLE_WAITING)
            group_role_set(g, ROLE_WAITING, 0, cand_epoch(g), 0,
                           "elected at epoch %llu; waiting for %s to release the leader znode",
                           (unsigned long long)cand_epoch(g),
                           CL(g)->have ? CL(g)->l.id : "?");
        return;
    }
    leader_create(g);
}

/*
 * The candidate cannot move on by itself (group.c calls this for a connected
 * group with nothing outstanding and a complete view): a reply that never
 * came, a suspension not verified, or a decision naming us with the leader
 * znode free and no takeover. A takeover or step-down callback still running
 * is the application's, not stuck.
 */
bool
cand_stuck(struct zkelect_group *g, char *why, size_t len)
{
    switch (g->role) {
    case ROLE_CREATING:
    case ROLE_READYING:
    case ROLE_DELETING:
        snprintf(why, len, "role %s with no reply outstanding", group_role_name(g->role));
        return true;
    case ROLE_SUSPENDED:
        snprintf(why, len, "suspended at epoch %llu, connected with the view read",
                 (unsigned long long)g->role_epoch);
        return true;
    case ROLE_FENCED:
        snprintf(why, len, "fenced at epoch %llu, connected with the view read",
                 (unsigned long long)g->role_epoch);
        return true;
    case ROLE_PROGRESS:
        if (g->takeover_ok) {
            snprintf(why, len, "takeover done at epoch %llu, READY never written",
                     (unsigned long long)g->role_epoch);
            return true;
        }
        return false;
    case ROLE_MEMBER:
    case ROLE_WAITING:
        if (g->reg == REG_DONE && !g->leaving && cand_named(g) && CL(g)->version < 0 &&
            g->failed_epoch != cand_epoch(g)) {
            snprintf(why, len, "elected at epoch %llu, the leader znode free, no takeover",
                     (unsigned long long)cand_epoch(g));
            return true;
        }
        return false;
    default:
        return false;
    }
}
