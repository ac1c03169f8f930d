/*
 * candidate.c - the elected node's side (runs on the library thread).
 *
 * Owns: the role g->role from "named by `elected`" to READY and back (changed
 * only through group_role_set): the leader znode's PROGRESS create (checked
 * against the version of `elected` that names us), the takeover callback,
 * READY (checked against both), suspension on a lost connection and its
 * verification, step-down and the release of the leader znode.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "group.h"
#include "zkerr.h"

/* ---- the candidate: two-phase takeover and step-down -------------------- */

/* The roles in which this node holds, or is about to hold, the leader znode. */
bool
cand_role_leading(enum role r)
{
    return r == ROLE_CREATING || r == ROLE_PROGRESS || r == ROLE_READYING || r == ROLE_READY ||
           r == ROLE_STEPPING_DOWN || r == ROLE_DELETING;
}


bool
cand_leader_is_mine(struct zkelect_group *g)
{
    return g->leader_version >= 0 && g->leader_owner != 0 && g->leader_owner == g->h->session_id;
}

static void
leader_create(struct zkelect_group *g)
{
    struct zke_leader l;
    struct req *r;
    size_t len;

    memset(&l, 0, sizeof(l));
    snprintf(l.id, sizeof(l.id), "%s", g->self.id);
    l.status = ZKE_STATUS_PROGRESS;
    l.epoch = g->elected.epoch;
    l.since_ms = zke_wall_ms();
    r = req_new(g->h, g, REQ_LEADER_CREATE);
    if (r == NULL)
        return;
    r->token = l.epoch;
    if (zke_leader_encode(&l, &r->payload[0], &len) != 0) {
        req_sent(r, ZMARSHALLINGERROR);
        return;
    }
    g->role = ROLE_CREATING;
    g->role_epoch = l.epoch;
    g->role_elected_version = g->elected_version;
    /* create only while `elected` is still the version that names us */
    zoo_check_op_init(&r->ops[0], g->p_elected, g->elected_version);
    zoo_create_op_init(&r->ops[1], g->p_leader, r->payload[0], (int)len, group_acl(g),
                       ZOO_EPHEMERAL, NULL, 0);
    memset(r->results, 0, sizeof(r->results));
    req_sent(r, zoo_amulti(g->h->zh, 2, r->ops, r->results, multi_completion, r));
}

static void
leader_set_ready(struct zkelect_group *g)
{
    struct zke_leader l;
    struct req *r;
    size_t len;

    memset(&l, 0, sizeof(l));
    snprintf(l.id, sizeof(l.id), "%s", g->self.id);
    l.status = ZKE_STATUS_READY;
    l.epoch = g->role_epoch;
    l.since_ms = zke_wall_ms();
    r = req_new(g->h, g, REQ_LEADER_READY);
    if (r == NULL)
        return;
    r->token = l.epoch;
    if (zke_leader_encode(&l, &r->payload[0], &len) != 0) {
        req_sent(r, ZMARSHALLINGERROR);
        return;
    }
    g->role = ROLE_READYING;
    zoo_check_op_init(&r->ops[0], g->p_elected, g->role_elected_version);
    zoo_set_op_init(&r->ops[1], g->p_leader, r->payload[0], (int)len, g->leader_version, NULL);
    memset(r->results, 0, sizeof(r->results));
    req_sent(r, zoo_amulti(g->h->zh, 2, r->ops, r->results, multi_completion, r));
}

static void
leader_delete(struct zkelect_group *g)
{
    struct req *r;

    if (!cand_leader_is_mine(g)) {
        g->role = g->reg == REG_DONE ? ROLE_MEMBER : ROLE_NONE;
        if (g->leaving)
            reg_unregister(g);
        return;
    }
    r = req_new(g->h, g, REQ_LEADER_DELETE);
    if (r == NULL)
        return;
    g->role = ROLE_DELETING;
    req_sent(r, zoo_adelete(g->h->zh, g->p_leader, g->leader_version, void_completion, r));
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
                  "takeover failed (%s); giving up this candidacy, the watchdog moves on",
                  zkelect_strerror(err));
        leader_delete(g);
        return;
    }
    g->takeover_ok = true;
    leader_set_ready(g);
}

static void
start_takeover(struct zkelect_group *g)
{
    int rc = 0;

    g->role = ROLE_PROGRESS;
    g->takeover_ok = false;
    zke_event(g->h, g, ZKELECT_EV_TAKEOVER, g->self.id, g->role_epoch, 0,
              "elected at epoch %llu: leader znode PROGRESS, taking over",
              (unsigned long long)g->role_epoch);
    if (g->on_takeover)
        rc = g->on_takeover(g->cb_data, g, g->role_epoch);
    cand_takeover_result(g, g->role_epoch, rc);
}

void
cand_stepdown_result(struct zkelect_group *g, uint64_t epoch)
{
    if (g->role != ROLE_STEPPING_DOWN || g->role_epoch != epoch)
        return;
    if (g->leaving && g->reg == REG_DONE && cand_leader_is_mine(g)) {
        /* resigning: the leader znode and the registration go in one multi
           (do_unregister checks the leader znode's version), one round trip
           less before the next leader can take over */
        g->role = ROLE_DELETING;
        reg_unregister(g);
        return;
    }
    leader_delete(g);
}

void
cand_start_stepdown(struct zkelect_group *g, const char *why)
{
    int rc = 0;
    uint64_t epoch = g->role_epoch;
    enum role was = g->role;

    g->role = ROLE_STEPPING_DOWN;
    if (was == ROLE_PROGRESS || was == ROLE_CREATING)
        zke_event(g->h, g, ZKELECT_EV_TAKEOVER_ABORT, g->self.id, epoch, 0, "takeover aborted: %s", why);
    else
        zke_event(g->h, g, ZKELECT_EV_STEPDOWN, g->self.id, epoch, 0, "stepping down: %s", why);
    if (g->on_stepdown && was != ROLE_CREATING)
        rc = g->on_stepdown(g->cb_data, g, epoch);
    if (rc != ZKELECT_EBUSY)
        cand_stepdown_result(g, epoch);
}

void
cand_on_leader_create_reply(struct zkelect_group *g, struct zev *ev)
{
    if (g->role != ROLE_CREATING || g->role_epoch != ev->req->token)
        return;
    if (ev->rc == ZOK) {
        /* our own write: the view need not wait for the watch */
        g->leader_version = 0;
        g->leader_owner = g->h->session_id;
        memset(&g->leader, 0, sizeof(g->leader));
        snprintf(g->leader.id, sizeof(g->leader.id), "%s", g->self.id);
        g->leader.status = ZKE_STATUS_PROGRESS;
        g->leader.epoch = g->role_epoch;
        g->have_leader = true;
        view_publish_leader(g);
        start_takeover(g);
        return;
    }
    if (zkerr_outcome_unknown(ev->rc)) {
        g->role = ROLE_SUSPENDED; /* verified after the reconnect */
        return;
    }
    if (ev->rc == ZBADVERSION) {
        g->role = ROLE_MEMBER;
        zke_event(g->h, g, ZKELECT_EV_TAKEOVER_ABORT, g->self.id, ev->req->token, 0,
                  "elected changed before the leader znode was created");
        view_read_elected(g);
        return;
    }
    if (ev->rc == ZNODEEXISTS) {
        g->role = ROLE_WAITING; /* the old leader still holds it: wait for its deletion */
        view_read_leader(g);
        return;
    }
    g->role = ROLE_MEMBER;
    zke_event(g->h, g, ZKELECT_EV_ERROR, g->self.id, ev->req->token, zkerr_from_zk(ev->rc),
              "cannot create %s: %s", g->p_leader, zerror(ev->rc));
}

void
cand_on_leader_ready_reply(struct zkelect_group *g, struct zev *ev)
{
    if (g->role != ROLE_READYING || g->role_epoch != ev->req->token)
        return;
    if (ev->rc == ZOK) {
        bool repair = g->repairing;
        g->repairing = false;
        g->role = ROLE_READY;
        g->leader_version++;
        if (g->have_leader && strcmp(g->leader.id, g->self.id) == 0)
            g->leader.status = ZKE_STATUS_READY;
        if (repair)
            return; /* a repaired leader znode: still the same leadership */
        g->n_transitions++;
        zke_event(g->h, g, ZKELECT_EV_READY, g->self.id, g->role_epoch, 0,
                  "READY leader at epoch %llu", (unsigned long long)g->role_epoch);
        view_publish_leader(g);
        return;
    }
    if (g->repairing) {
        g->repairing = false;
        if (zkerr_outcome_unknown(ev->rc)) {
            g->role = ROLE_SUSPENDED;
            return;
        }
        g->role = ROLE_READY;
        view_read_elected(g);
        view_read_leader(g);
        return;
    }
    if (zkerr_outcome_unknown(ev->rc)) {
        g->role = ROLE_SUSPENDED;
        return;
    }
    /* `elected` or our leader znode changed: re-read both; cand_step retries
       READY if the decision still names us at this epoch, else steps down */
    g->role = ROLE_PROGRESS;
    zke_log(g->h, ZKELECT_LOG_INFO, "%s: setting READY failed (%s); re-reading", g->path, zerror(ev->rc));
    view_read_elected(g);
    view_read_leader(g);
}

void
cand_on_leader_delete_reply(struct zkelect_group *g, struct zev *ev)
{
    if (g->role != ROLE_DELETING)
        return;
    if (ev->rc == ZOK || ev->rc == ZNONODE) {
        g->role = g->reg == REG_DONE || g->reg == REG_LEAVING ? ROLE_MEMBER : ROLE_NONE;
        g->leader_version = -1;
        g->leader_owner = 0;
        if (g->leaving)
            reg_unregister(g);
        else if (g->rereg_pending)
            reg_reregister(g);
        else
            cand_step(g);
        return;
    }
    if (ev->rc == ZBADVERSION) {
        view_read_leader(g); /* changed under us: re-read, then delete again */
        g->role = ROLE_STEPPING_DOWN;
        return;
    }
    /* connection trouble: the session's end or the reconnect settles it */
    g->role = ROLE_SUSPENDED;
}

void
cand_step(struct zkelect_group *g)
{
    bool named, mine;

    if (g->reg != REG_DONE || !group_connected(g) || !g->elected_read || !g->leader_read ||
        g->my_czxid == 0)
        return;
    /* a decision written before our election znode existed named a former
       session of ours: never act on it (the elector decides again) */
    named = g->have_elected && strcmp(g->elected.leader, g->self.id) == 0 &&
            (*g->elected.leader_znode ? strcmp(g->elected.leader_znode, g->my_znode) == 0
                                      : g->elected_mzxid > g->my_czxid);
    mine = cand_leader_is_mine(g);

    if (g->leaving) {
        if (g->role == ROLE_READY || g->role == ROLE_PROGRESS || g->role == ROLE_SUSPENDED ||
            (g->role == ROLE_MEMBER && mine))
            cand_start_stepdown(g, "resigning");
        else if (g->role == ROLE_MEMBER || g->role == ROLE_WAITING || g->role == ROLE_NONE)
            reg_unregister(g);
        return;
    }

    switch (g->role) {
    case ROLE_SUSPENDED:
        if (named && mine && g->have_leader && g->leader.epoch == g->elected.epoch &&
            strcmp(g->leader.id, g->self.id) == 0) {
            g->role_epoch = g->elected.epoch;
            g->role_elected_version = g->elected_version;
            if (g->leader.status == ZKE_STATUS_READY) {
                g->role = ROLE_READY;
                zke_event(g->h, g, ZKELECT_EV_RESUMED, g->self.id, g->role_epoch, 0,
                          "leadership verified after reconnect: leader znode and elected are ours");
            } else {
                start_takeover(g);
            }
            return;
        }
        zke_event(g->h, g, ZKELECT_EV_LOST, g->self.id, g->role_epoch, 0,
                  "leadership not confirmed after reconnect: %s",
                  !named ? "elected names another node" : "the leader znode is not ours");
        g->role = ROLE_MEMBER;
        if (mine)
            cand_start_stepdown(g, "leadership lost while disconnected");
        return;
    case ROLE_READY:
    case ROLE_PROGRESS:
        if (!mine) {
            zke_event(g->h, g, ZKELECT_EV_LOST, g->self.id, g->role_epoch, 0,
                      "our leader znode is gone (fenced or deleted)");
            g->role = ROLE_MEMBER;
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
        if (!named || g->elected.epoch != g->role_epoch) {
            cand_start_stepdown(g, named ? "re-elected at a new epoch" : "elected names another node");
            return;
        }
        /* the same decision, perhaps re-written (a switchover acknowledged) */
        g->role_elected_version = g->elected_version;
        if (g->role == ROLE_PROGRESS && g->takeover_ok)
            leader_set_ready(g);
        else if (g->role == ROLE_READY && !g->have_leader) {
            /* someone overwrote our leader znode with garbage: repair it */
            zke_log(g->h, ZKELECT_LOG_WARNING, "%s: rewriting our malformed leader znode", g->path);
            leader_set_ready(g);
            g->repairing = true;
        }
        return;
    case ROLE_CREATING:
    case ROLE_READYING:
    case ROLE_STEPPING_DOWN:
    case ROLE_DELETING:
        return; /* a reply or callback settles these */
    default:
        break;
    }

    /* ROLE_MEMBER / ROLE_WAITING */
    if (!named) {
        if (g->role == ROLE_WAITING)
            g->role = ROLE_MEMBER;
        if (mine) {
            g->role_epoch = g->leader.epoch;
            leader_delete(g); /* a leftover of ours */
        }
        return;
    }
    if (g->failed_epoch == g->elected.epoch)
        return; /* we failed this epoch's takeover: wait for the next decision */
    if (mine) {
        g->role_epoch = g->leader.epoch;
        leader_delete(g); /* ours from an older epoch: remove, then take over */
        return;
    }
    if (g->leader_version >= 0) {
        if (g->role != ROLE_WAITING)
            zke_log(g->h, ZKELECT_LOG_INFO, "%s: elected at epoch %llu; waiting for %s to release the leader znode",
                    g->path, (unsigned long long)g->elected.epoch, g->have_leader ? g->leader.id : "?");
        g->role = ROLE_WAITING;
        return;
    }
    leader_create(g);
}

