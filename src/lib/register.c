/*
 * register.c - a candidate's registration (runs on the library thread).
 *
 * Owns: nodes/<id> and election/<id>_<guid>_<seq> of this node (create in one
 * multi, resolve an unknown outcome by the guid, repair after a foreign
 * change, remove on unnominate), the registration state g->reg (changed only
 * through group_reg_set), and the elector determination: the lowest live
 * election znode is the elector, every other member watches its predecessor
 * (for its deletion alone: reg_watch_pred) and, when it goes, the next one
 * below that its last listing showed (reg_next_pred).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "direct.h"
#include "group.h"
#include "zkerr.h"

/* ---- names ------------------------------------------------------------------ */

void
reg_new_guid(char out[ZKE_GUID_LEN + 1])
{
    unsigned char b[ZKE_GUID_LEN / 2];
    static const char hex[] = "0123456789abcdef";
    size_t i;

    if (getrandom(b, sizeof(b), 0) != (ssize_t)sizeof(b)) {
        /* fall back on time and address entropy: uniqueness, not secrecy */
        uint64_t x = zke_now_ms() ^ (uint64_t)(uintptr_t)out ^ ((uint64_t)zke_wall_ms() << 20);
        for (i = 0; i < sizeof(b); i++) {
            x = x * 6364136223846793005ULL + 1442695040888963407ULL;
            b[i] = (unsigned char)(x >> 56);
        }
    }
    for (i = 0; i < sizeof(b); i++) {
        out[2 * i] = hex[b[i] >> 4];
        out[2 * i + 1] = hex[b[i] & 15];
    }
    out[ZKE_GUID_LEN] = '\0';
}

static void reg_watch_pred(struct zkelect_group *g);
static void reg_next_pred(struct zkelect_group *g);

/*
 * What a znode's ephemeralOwner says it is, for a message, or NULL for a
 * session's ephemeral (a member's). 0 is a persistent znode; only the high
 * bit set is a container (ZooKeeper's EphemeralType: never a session id),
 * which ZooKeeper does not delete while it has had no child (unless
 * znode.container.maxNeverUsedIntervalMs is set). (A TTL znode,
 * high byte 0xff with extended types on, is not told apart: without
 * them a server with myid 255 gives sessions that high byte. It goes when
 * its TTL ends.)
 */
static const char *
owner_not_ephemeral(int64_t owner)
{
    if (owner == 0)
        return "not ephemeral";
    if (owner == INT64_MIN)
        return "a container znode, not ephemeral";
    return NULL;
}

static bool
child_ignored(struct zkelect_group *g, const char *name)
{
    int i;

    for (i = 0; i < g->nignored; i++)
        if (strcmp(g->ignored[i], name) == 0)
            return true;
    return false;
}

static void
child_ignore(struct zkelect_group *g, const char *name)
{
    if (child_ignored(g, name))
        return;
    if (g->nignored == (int)(sizeof(g->ignored) / sizeof(g->ignored[0])))
        g->nignored--; /* forget the oldest */
    memmove(&g->ignored[1], &g->ignored[0], sizeof(g->ignored[0]) * (size_t)g->nignored);
    snprintf(g->ignored[0], sizeof(g->ignored[0]), "%s", name);
    g->nignored++;
}

/* ---- registration -------------------------------------------------------- */

void
reg_self_payload(struct zkelect_group *g, char **out, size_t *len)
{
    if (zke_member_encode(&g->self, out, len) != 0) {
        *out = NULL;
        *len = 0;
    }
}

void
reg_nominate_finish(struct zkelect_group *g, int err)
{
    zkelect_done_fn fn = g->nominate_done;

    g->nominate_done = NULL;
    if (fn)
        fn(g->nominate_data, g, err);
}

/* Create the persistent ancestors of the group's base path (missing ones
 * only). Requests on one session are processed in order, so the
 * registration sent right after them sees them; the base, nodes/ and
 * election/ go in the registration's multi (reg_register). */
static void
ensure_paths(struct zkelect_group *g)
{
    char buf[ZKE_PATH_MAX];
    char *p;
    struct req *r;

    /* every ancestor of the base path, then the base and its two parents;
       the ancestors only once per parent path and handle (a burst of
       groups under one parent would create them again for each) */
    snprintf(buf, sizeof(buf), "%s", g->path);
    g->ancestors_skipped = false;
    if ((p = strrchr(buf, '/')) != NULL && p != buf) {
        *p = '\0';
        g->ancestors_skipped = strcmp(buf, g->h->parent_ok) == 0;
        *p = '/';
    }
    for (p = strchr(buf + 1, '/'); p && !g->ancestors_skipped; p = strchr(p + 1, '/')) {
        *p = '\0';
        if ((r = req_new(g->h, g, REQ_ENSURE_PATH)) != NULL)
            req_sent(r, zoo_acreate(g->h->zh, buf, "", 0, group_acl(g), ZOO_PERSISTENT,
                                    string_completion, r));
        *p = '/';
    }
    if (!g->ancestors_skipped && (p = strrchr(buf, '/')) != NULL && p != buf) {
        /* sent: the session applies them before any later request, so the
           next groups under this parent skip them at once, not only after
           a registration's reply (one that finds an ancestor missing after
           all, ZNONODE, creates them again: reg_on_register_reply) */
        *p = '\0';
        snprintf(g->h->parent_ok, sizeof(g->h->parent_ok), "%s", buf);
    }
}

/*
 * zkelect_unnominate() came while the registration was in flight (g->leaving
 * with reg PENDING or UNKNOWN): the caller's nominate was answered
 * ZKELECT_ECANCELED then, and each step of the registration checks here
 * before it sends anything more. True when the registration ended here (it
 * created nothing that is still ours).
 */
static bool
reg_cancelled(struct zkelect_group *g)
{
    if (!g->leaving || g->reg == REG_DONE || g->reg == REG_LEAVING)
        return false;
    group_reg_set(g, REG_NONE, "registration cancelled");
    g->leaving = false;
    group_role_set(g, ROLE_NONE, ZKELECT_EV_UNREGISTERED, 0, 0,
                   "left the group (unnominated while registering)");
    return true;
}

void
reg_register(struct zkelect_group *g)
{
    struct req *r;
    size_t len;
    int n = 0;

    g->kick &= ~KICK_REGISTER; /* started: nothing left to wait for */
    if (reg_cancelled(g) || !group_connected(g))
        return;
    /* the group's znodes are created once: until a registration succeeded,
       the multi creates the base, nodes/ and election/ first (a new group
       registers in one request); when they exist (ZNODEEXISTS on one of
       them) it goes again without them, and a registration that finds them
       gone (ZNONODE) creates them again (reg_on_register_reply) */
    if (!g->paths_ok && g->paths_skip == 0)
        ensure_paths(g);
    r = req_new(g->h, g, REQ_REGISTER);
    if (r == NULL)
        return;
    r->attempt = ++g->reg_attempt;
    group_reg_set(g, REG_PENDING, "registering");
    reg_self_payload(g, &r->payload[0], &len);
    if (r->payload[0] == NULL) {
        req_sent(r, ZMARSHALLINGERROR);
        return;
    }
    snprintf(r->pathbuf[0], sizeof(r->pathbuf[0]), "%s/%s", g->p_nodes, g->self.id);
    snprintf(r->arg, sizeof(r->arg), "%s/%s_%s_", g->p_election, g->self.id, g->guid);
    if (!g->paths_ok) {
        const char *parents[3] = {g->path, g->p_nodes, g->p_election};
        int i;
        for (i = 0; i < 3; i++)
            if (!(g->paths_skip & (1u << i)))
                zoo_create_op_init(&r->ops[n++], parents[i], "", 0, group_acl(g),
                                   ZOO_PERSISTENT, NULL, 0);
    }
    r->token = (uint64_t)n; /* the parents' ops, before ours */
    zoo_create_op_init(&r->ops[n++], r->pathbuf[0], r->payload[0], (int)len, group_acl(g),
                       ZOO_EPHEMERAL, NULL, 0);
    zoo_create_op_init(&r->ops[n++], r->arg, g->self.id, (int)strlen(g->self.id), group_acl(g),
                       ZOO_EPHEMERAL_SEQUENTIAL, r->pathbuf[1], sizeof(r->pathbuf[1]));
    memset(r->results, 0, sizeof(r->results));
    req_sent(r, zoo_amulti(g->h->zh, n, r->ops, r->results, multi_completion, r));
}

static void
registered(struct zkelect_group *g, const char *child)
{
    char id[ZKE_ID_MAX + 1];
    const char *base = strrchr(child, '/');

    base = base ? base + 1 : child;
    snprintf(g->my_znode, sizeof(g->my_znode), "%s", base);
    if (zke_child_parse(g->my_znode, id, sizeof(id), NULL, &g->my_seq) != 0)
        g->my_seq = -1;
    group_reg_set(g, REG_DONE, g->my_znode);
    group_role_set(g, ROLE_MEMBER, 0, 0, 0, "registered");
    g->my_czxid = 0;
    g->czxid_assumed = false;
    g->mine_version = -1; /* until its stat is read */
    g->succ_named = false;
    g->saw_leader = CL(g)->have; /* cold start or not: from this registration on */
    g->recheck_mine = false;
    g->pred_watched = false;
    g->nlower = 0;
    g->lower_all = false;
    if (g->leaving) {
        /* unnominated while the registration was in flight: undo it */
        reg_unregister(g);
        return;
    }
    {
        char path[ZKE_PATH_MAX];
        snprintf(path, sizeof(path), "%s/%s", g->p_election, g->my_znode);
        /* our election znode's czxid, and a watch on it: a foreign client
           deleting or overwriting our znodes must not leave us registered
           in name only (one request for both). In a group our registration
           created (view_absent) neither is needed while we are the elector,
           as we are from the first election znode on: every decision there
           is newer than our registration (czxid 1 stands for it), nobody
           wakes the elector, and its listing's watch sees our znode go
           (reg_on_list_reply); elector_stop reads it */
        if (g->elected_defer && g->my_seq == 0) {
            g->my_czxid = 1;
            g->czxid_assumed = true;
        } else {
            group_send_mine(g, REQ_STAT_MINE, path);
        }
        /* our member record, read and watched: an elector takes its own
           record from this read (elector_read_member) */
        reg_read_self(g);
    }
    zke_event(g->h, g, ZKELECT_EV_REGISTERED, g->self.id, 0, 0, "registered as %s (site \"%s\", priority %d)",
              g->my_znode, g->self.site, (int)g->self.priority);
    reg_nominate_finish(g, 0);
    /* in a group with no decision yet this node is likely the first, the
       elector: the listing sets the children's watch the elector needs
       (one request less; any other member gets at most one notification
       from it, let go) */
    reg_list_election(g, !g->have_elected);
    cand_step(g);
}

void
reg_on_register_reply(struct zkelect_group *g, struct zev *ev)
{
    struct req *r = ev->req;
    char path[ZKE_PATH_MAX];

    if (g->view_deferred) {
        /* our multi created the base (all three parents were in it): a new
           group, nothing to read (view_absent); else read what is there */
        if (ev->rc == ZOK && r->token == 3)
            view_absent(g);
        else
            view_first(g);
    }
    view_absent_settle(g, ev->rc == ZOK && r->token == 3);
    if (ev->req->attempt != g->reg_attempt || g->reg != REG_PENDING)
        return;
    if (ev->rc == ZOK) {
        char *slash;
        g->paths_ok = true;
        snprintf(g->h->parent_ok, sizeof(g->h->parent_ok), "%s", g->path);
        if ((slash = strrchr(g->h->parent_ok, '/')) != NULL)
            *slash = '\0';
        registered(g, r->pathbuf[1]);
        return;
    }
    if (zkerr_outcome_unknown(ev->rc) || ev->rc == ZCLOSING) {
        /* find it by guid after the reconnect */
        group_reg_set(g, REG_UNKNOWN, zerror(ev->rc));
        return;
    }
    if (ev->rc == ZNODEEXISTS && r->token > 0) {
        int i, k = -1, op = 0;
        for (i = 0; i < (int)r->token && r->results[i].err != ZNODEEXISTS; i++)
            ;
        if (i < (int)r->token) {
            /* that parent is there: again without it (at most three rounds).
               Only it: a foreign client may have made election/ without
               nodes/, and leaving out those before it too would register
               under a nodes/ that is not there, again and again */
            for (k = 0; k < 3; k++)
                if (!(g->paths_skip & (1u << k)) && op++ == i)
                    break;
            g->paths_skip |= 1u << k;
            reg_register(g);
            return;
        }
    }
    if (ev->rc == ZNONODE && (g->paths_ok || g->paths_skip != 0 || g->ancestors_skipped)) {
        /* someone removed the group's znodes (or an ancestor this handle
           created for another group): create them again */
        g->paths_ok = false;
        g->paths_skip = 0;
        g->ancestors_skipped = false;
        g->h->parent_ok[0] = '\0';
        reg_register(g);
        return;
    }
    if (ev->rc == ZNODEEXISTS) {
        /* nodes/<id> exists: ours (an earlier attempt) or another session's? */
        snprintf(path, sizeof(path), "%s/%s", g->p_nodes, g->self.id);
        r = req_new(g->h, g, REQ_CHECK_ID);
        if (r) {
            r->attempt = g->reg_attempt;
            req_sent(r, zoo_aexists(g->h->zh, path, 0, stat_completion, r));
        }
        return;
    }
    group_reg_set(g, REG_NONE, zerror(ev->rc));
    if (reg_cancelled(g))
        return;
    zke_event(g->h, g, ZKELECT_EV_ERROR, g->self.id, 0, zkerr_from_zk(ev->rc),
              "cannot register under %s: %s", g->path, zerror(ev->rc));
    reg_nominate_finish(g, zkerr_from_zk(ev->rc));
}

/*
 * Our election znode's data, as a read of it (EV) gives: our id, or our id
 * and ZKE_NAMED_SUFFIX when the elector names us the standing successor
 * (doc/PROTOCOL.md §4, "The standing successor"). Named, the group follows
 * (group_in_play) and reads what it let go; no longer named, it lets go at
 * the next notification. Any other data names nobody.
 */
static void
reg_take_mine(struct zkelect_group *g, const struct zev *ev)
{
    size_t len = strlen(g->self.id), ns = strlen(ZKE_NAMED_SUFFIX);
    bool named = ev->data && ev->datalen == (int)(len + ns) &&
                 memcmp(ev->data, g->self.id, len) == 0 &&
                 memcmp(ev->data + len, ZKE_NAMED_SUFFIX, ns) == 0;

    if (named == g->succ_named)
        return;
    g->succ_named = named;
    zke_log(g->h, ZKELECT_LOG_DEBUG, "%s: %s", g->path,
            named ? "named the standing successor: follows" : "no longer the standing successor");
    if (named)
        view_follow(g, false);
}

void
reg_on_stat_mine_reply(struct zkelect_group *g, struct zev *ev)
{
    char path[ZKE_PATH_MAX];

    snprintf(path, sizeof(path), "%s/%s", g->p_election, g->my_znode);
    if (g->reg != REG_DONE || strcmp(path, ev->req->arg) != 0)
        return;
    if (ev->rc == ZOK) {
        g->my_czxid = ev->stat.czxid;
        g->mine_version = ev->stat.version;
        reg_take_mine(g, ev);
        cand_step(g);
    } else if (ev->rc == ZNONODE) {
        reg_list_election(g, false); /* gone: the listing re-registers */
    }
}

/* The registration failed for good (RC, not a lost connection): say so, end
   the nominate with the error. */
static void
reg_failed(struct zkelect_group *g, int rc, const char *what, const char *path)
{
    group_reg_set(g, REG_NONE, zerror(rc));
    if (reg_cancelled(g))
        return;
    zke_event(g->h, g, ZKELECT_EV_ERROR, g->self.id, 0, zkerr_from_zk(rc),
              "cannot register under %s: %s %s: %s", g->path, what, path, zerror(rc));
    reg_nominate_finish(g, zkerr_from_zk(rc));
}

/* Look for our election znode by the registration's guid (after an unknown
   outcome): found, we are registered; else register (again). */
void
reg_find_mine(struct zkelect_group *g)
{
    struct req *r;

    if (!group_connected(g))
        return;
    if ((r = req_new(g->h, g, REQ_FIND_MINE)) == NULL)
        return;
    r->attempt = ++g->reg_attempt;
    group_reg_set(g, REG_PENDING, "looking for our registration by its guid");
    req_sent(r, zoo_aget_children2(g->h->zh, g->p_election, 0, strings_completion, r));
}

void
reg_on_check_id_reply(struct zkelect_group *g, struct zev *ev)
{
    const char *what;

    if (ev->req->attempt != g->reg_attempt || g->reg != REG_PENDING)
        return;
    if (ev->rc == ZNONODE) {
        reg_register(g); /* the holder went away meanwhile */
        return;
    }
    if (zkerr_outcome_unknown(ev->rc) || ev->rc == ZCLOSING) {
        group_reg_set(g, REG_UNKNOWN, zerror(ev->rc));
        return;
    }
    if (ev->rc != ZOK) {
        char path[ZKE_PATH_MAX];
        snprintf(path, sizeof(path), "%s/%s", g->p_nodes, g->self.id);
        reg_failed(g, ev->rc, "cannot check the owner of", path);
        return;
    }
    if (ev->stat.ephemeralOwner == g->h->session_id) {
        /* ours: an earlier attempt whose reply was lost. Find its election znode. */
        struct req *r = req_new(g->h, g, REQ_FIND_MINE);
        if (r) {
            r->attempt = g->reg_attempt;
            r->token = 1; /* nodes/<id> is known to be ours */
            req_sent(r, zoo_aget_children2(g->h->zh, g->p_election, 0, strings_completion, r));
        }
        return;
    }
    group_reg_set(g, REG_NONE, "node id in use");
    if (reg_cancelled(g))
        return;
    if ((what = owner_not_ephemeral(ev->stat.ephemeralOwner)) != NULL)
        zke_event(g->h, g, ZKELECT_EV_ERROR, g->self.id, 0, ZKELECT_EFOREIGN,
                  "node id %s: %s/%s is %s, no member's record (another client wrote it); "
                  "refusing to join (remove it)", g->self.id, g->p_nodes, g->self.id, what);
    else
        zke_event(g->h, g, ZKELECT_EV_ERROR, g->self.id, 0, ZKELECT_EIDINUSE,
                  "node id %s is held by another live session (0x%llx); refusing to join",
                  g->self.id, (unsigned long long)ev->stat.ephemeralOwner);
    reg_nominate_finish(g, what != NULL ? ZKELECT_EFOREIGN : ZKELECT_EIDINUSE);
}

void
reg_on_find_mine_reply(struct zkelect_group *g, struct zev *ev)
{
    char id[ZKE_ID_MAX + 1], guid[ZKE_GUID_LEN + 1];
    int64_t seq;
    int i;

    if (ev->req->attempt != g->reg_attempt || (g->reg != REG_UNKNOWN && g->reg != REG_PENDING))
        return;
    if (ev->rc == ZNONODE) {
        /* no election znode at all (its parents' creates were lost with our
           registration): nothing of ours is there; create them, register */
        g->paths_ok = false;
        g->paths_skip = 0;
        reg_register(g);
        return;
    }
    if (zkerr_outcome_unknown(ev->rc) || ev->rc == ZCLOSING) {
        group_reg_set(g, REG_UNKNOWN, zerror(ev->rc));
        return;
    }
    if (ev->rc != ZOK) {
        reg_failed(g, ev->rc, "cannot list", g->p_election);
        return;
    }
    for (i = 0; i < ev->nstrings; i++) {
        if (zke_child_parse(ev->strings[i], id, sizeof(id), guid, &seq) == 0 &&
            strcmp(guid, g->guid) == 0 && strcmp(id, g->self.id) == 0) {
            registered(g, ev->strings[i]);
            return;
        }
    }
    if (ev->req->token) {
        /* nodes/<id> is ours but our election znode is gone (deleted by a
           foreign client): create only that one, and rewrite our record */
        struct req *r;

        if (g->leaving) {
            reg_unregister(g); /* unnominated meanwhile: remove the record */
            return;
        }
        r = req_new(g->h, g, REQ_CREATE_ELECTION);
        if (r == NULL)
            return;
        r->attempt = g->reg_attempt;
        snprintf(r->arg, sizeof(r->arg), "%s/%s_%s_", g->p_election, g->self.id, g->guid);
        req_sent(r, zoo_acreate(g->h->zh, r->arg, g->self.id, (int)strlen(g->self.id),
                                group_acl(g), ZOO_EPHEMERAL_SEQUENTIAL, string_completion, r));
        g->member_dirty = true;
        return;
    }
    reg_register(g);
}

void
reg_on_create_election_reply(struct zkelect_group *g, struct zev *ev)
{
    if (ev->req->attempt != g->reg_attempt || g->reg != REG_PENDING)
        return;
    if (ev->rc == ZOK && ev->data) {
        registered(g, ev->data);
        if (g->member_dirty) {
            g->member_dirty = false;
            reg_write_self(g);
        }
        return;
    }
    if (zkerr_outcome_unknown(ev->rc) || ev->rc == ZCLOSING) {
        group_reg_set(g, REG_UNKNOWN, zerror(ev->rc));
        return;
    }
    zke_event(g->h, g, ZKELECT_EV_ERROR, g->self.id, 0, zkerr_from_zk(ev->rc),
              "cannot create our election znode under %s: %s", g->p_election, zerror(ev->rc));
    group_reg_set(g, REG_NONE, zerror(ev->rc));
    reg_nominate_finish(g, zkerr_from_zk(ev->rc));
}

/* Someone else changed our member record (EV: what we read back). Data that
   does not decode is reported as -malformed here, by the one member sure to
   see it: our rewrite may land before the elector reads the garbage. An
   elector that tracks us reads it too (its read was queued before ours
   returned, so it sees the same data) and reports it itself. */
static void
read_self_changed(struct zkelect_group *g, const struct zev *ev)
{
    char err[256], path[ZKE_PATH_MAX];
    struct zke_member rec;

    snprintf(path, sizeof(path), "%s/%s", g->p_nodes, g->self.id);
    if (elector_tracks(g, g->self.id)) {
        zke_log(g->h, ZKELECT_LOG_WARNING, "%s: changed by someone else; rewriting it", path);
    } else if (zke_member_decode(ev->data, ev->datalen, &rec, err, sizeof(err)) != 0) {
        group_malformed_do(g, path, ev->data, ev->datalen, err, "rewriting our record");
    } else if (strcmp(rec.id, g->self.id) != 0) {
        group_malformed_do(g, path, ev->data, ev->datalen, "record id does not match the znode name",
                     "rewriting our record");
    } else {
        zke_log(g->h, ZKELECT_LOG_WARNING, "%s: changed by someone else; rewriting it", path);
    }
}

/* Read (and watch) our member record: after the registration, and after
   its watch fired. */
void
reg_read_self(struct zkelect_group *g)
{
    char path[ZKE_PATH_MAX];

    g->self_have = false;
    snprintf(path, sizeof(path), "%s/%s", g->p_nodes, g->self.id);
    group_send_get(g, REQ_READ_SELF, path, NULL);
}

/* Our member record as read back (reg_read_self). */
void
reg_on_read_self_reply(struct zkelect_group *g, struct zev *ev)
{
    if (g->reg != REG_DONE || g->leaving)
        return;
    if (ev->rc == ZOK || ev->rc == ZNONODE) {
        char *copy = NULL;
        if (ev->rc == ZOK && ev->datalen > 0 && (copy = malloc((size_t)ev->datalen)) == NULL)
            return; /* the elector reads it itself */
        if (copy)
            memcpy(copy, ev->data, (size_t)ev->datalen);
        free(g->self_data);
        g->self_data = copy;
        g->self_len = ev->rc == ZOK ? (ev->datalen > 0 ? ev->datalen : 0) : -1;
        g->self_zversion = ev->stat.version;
        g->self_have = true;
        elector_self_read(g);
    }
    if (ev->rc == ZOK) {
        char *mine = NULL;
        size_t len = 0;
        reg_self_payload(g, &mine, &len);
        if (mine && (ev->datalen != (int)len || memcmp(ev->data, mine, len) != 0)) {
            if (g->member_dirty)
                g->member_dirty = false; /* changed by us meanwhile (zkelect_set_priority
                                            while registering): written now */
            else
                read_self_changed(g, ev);
            reg_write_self(g);
        }
        free(mine);
    } else if (ev->rc == ZNONODE) {
        reg_lost(g, "our member record was deleted");
    } else if (zkerr_outcome_unknown(ev->rc)) {
        g->recheck_mine = true; /* read (and watch) it again after the reconnect */
    }
}

/* An exists-watch on one of our own znodes: gone means our registration is. */
void
reg_on_watch_mine_reply(struct zkelect_group *g, struct zev *ev)
{
    char mine[ZKE_PATH_MAX];

    snprintf(mine, sizeof(mine), "%s/%s", g->p_election, g->my_znode);
    if (ev->rc == ZOK && ev->has_stat && g->reg == REG_DONE &&
        strcmp(ev->req->pathbuf[0], mine) == 0) {
        g->mine_version = ev->stat.version; /* the wake's count (cand_fast_create) */
        reg_take_mine(g, ev);
    }
    if (ev->rc == ZNONODE && g->reg == REG_DONE && !g->leaving)
        reg_lost(g, *ev->req->arg ? ev->req->arg : "one of our znodes is missing");
    else if (zkerr_outcome_unknown(ev->rc) && g->reg == REG_DONE)
        g->recheck_mine = true; /* the same session may come back: check (and watch:
                                   the wake's, below) again then */
}

/* Rewrite our member record (after it was overwritten, or to repair it). */
void
reg_write_self(struct zkelect_group *g)
{
    char path[ZKE_PATH_MAX];
    struct req *r;
    size_t len;

    if (!group_connected(g) || g->reg != REG_DONE)
        return;
    r = req_new(g->h, g, REQ_UPDATE_MEMBER);
    if (r == NULL)
        return;
    reg_self_payload(g, &r->payload[0], &len);
    if (r->payload[0] == NULL) {
        req_sent(r, ZMARSHALLINGERROR);
        return;
    }
    snprintf(path, sizeof(path), "%s/%s", g->p_nodes, g->self.id);
    req_sent(r, zoo_aset(g->h->zh, path, r->payload[0], (int)len, -1, stat_completion, r));
}

/*
 * Our registration is gone while our session lives (a foreign client deleted
 * one of our znodes). A leader steps down first (elected names the lost
 * registration, so it cannot stay); then the node registers again.
 */
void
reg_lost(struct zkelect_group *g, const char *why)
{
    if (g->reg != REG_DONE)
        return;
    zke_event(g->h, g, ZKELECT_EV_ERROR, g->self.id, 0, ZKELECT_ENONODE,
              "registration lost: %s; registering again", why);
    if (g->is_elector)
        elector_stop(g, why);
    if (g->role == ROLE_SUSPENDED) {
        /* a leader not verified yet since its connection came back: the
           decision names the registration that is gone, so the leadership
           cannot be resumed; say so (the application was told -suspended),
           release a leader znode still ours, then register again */
        char detail[256];

        snprintf(detail, sizeof(detail), "leadership lost while suspended: %s", why);
        g->rereg_pending = true; /* after the step-down and the release */
        cand_lost(g, detail);
        return;
    }
    if (g->role == ROLE_READY || g->role == ROLE_PROGRESS) {
        g->rereg_pending = true;
        cand_start_stepdown(g, why);
        return;
    }
    if (g->role == ROLE_CREATING || g->role == ROLE_READYING || g->role == ROLE_STEPPING_DOWN ||
        g->role == ROLE_DELETING) {
        g->rereg_pending = true; /* after the step in flight */
        return;
    }
    if (g->role == ROLE_FENCED) {
        g->rereg_pending = true; /* after the release (never taken over again) */
        cand_step(g);
        return;
    }
    reg_reregister(g);
}

void
reg_reregister(struct zkelect_group *g)
{
    g->rereg_pending = false;
    group_reg_set(g, REG_PENDING, "registering again");
    group_role_set(g, ROLE_MEMBER, 0, 0, 0, "registering again");
    g->my_znode[0] = '\0';
    g->my_czxid = 0;
    g->saw_leader = CL(g)->have;
    reg_new_guid(g->guid);
    snprintf(g->self.guid, sizeof(g->self.guid), "%s", g->guid);
    reg_register(g);
}

/*
 * The handover decision a resigning leader writes itself (doc/PROTOCOL.md §4,
 * "Direct handover"): `elected` as it names us, with our slot given to the
 * successor the elector recorded for this very version of `elected`, at the
 * epoch it reserved. Into E; false when there is no such succession.
 */
static bool
reg_handover(struct zkelect_group *g, struct zke_elected *e)
{
    const char *id, *znode;
    uint64_t epoch, top;
    struct zke_slot *sl = NULL;
    int k;

    if (!g->succ_have || g->handover_off || g->active || !g->have_elected ||
        g->elected_version < 0 || g->succ_elected_version != g->elected_version ||
        g->succ_history_version < 0 ||
        g->succ.slot != g->cslot || !*g->my_znode)
        return false;
    if (!view_elected_slot(g, g->cslot, &id, &znode, &epoch) || strcmp(id, g->self.id) != 0 ||
        strcmp(znode, g->my_znode) != 0 || epoch != g->role_epoch)
        return false;
    *e = g->elected;
    top = e->epoch;
    for (k = 0; k < e->nslots; k++) {
        if (e->slots[k].epoch > top)
            top = e->slots[k].epoch;
        if (e->slots[k].slot == g->cslot)
            sl = &e->slots[k];
    }
    if (g->succ_next_epoch <= top || (g->cslot > 0 && sl == NULL))
        return false;
    /* over a decision that says fast_handover the successor may create at
       its wake, at the epoch one above the decision's it last read (§4, "The
       fast handover"): a succession that reserved another (a newer epoch
       seen in the history or a leader znode) is left to the elector */
    if (g->elected.fast_handover && g->succ_next_epoch != top + 1)
        return false;
    for (k = 0; k < e->nslots; k++)
        if (strcmp(e->slots[k].leader, g->succ.successor) == 0)
            return false; /* it holds another slot: the elector decides */
    if (g->cslot > 0 && strcmp(e->leader, g->succ.successor) == 0)
        return false;
    if (g->cslot == 0) {
        zke_hand_slot0(e, &g->succ, g->succ_next_epoch, g->self.id, g->self.host,
                       g->succ_elector, g->succ_policy);
    } else {
        snprintf(sl->leader, sizeof(sl->leader), "%s", g->succ.successor);
        snprintf(sl->leader_site, sizeof(sl->leader_site), "%s", g->succ.successor_site);
        snprintf(sl->leader_znode, sizeof(sl->leader_znode), "%s", g->succ.successor_znode);
        sl->epoch = g->succ_next_epoch;
        sl->since_ms = zke_wall_ms();
        snprintf(e->elector, sizeof(e->elector), "%s", g->succ_elector);
        snprintf(e->policy, sizeof(e->policy), "%s", g->succ_policy);
        e->at_ms = zke_wall_ms();
        memset(&e->hold, 0, sizeof(e->hold));
    }
    snprintf(e->reason, sizeof(e->reason), "handover: %s resigned%s%.0d; %s is its successor",
             g->self.id, g->cslot ? " from slot " : "", g->cslot, g->succ.successor);
    return true;
}

void
reg_unregister(struct zkelect_group *g)
{
    struct zke_elected *e = NULL;
    struct req *r;
    size_t len;
    int n = 0;

    if (!group_connected(g)) {
        /* nothing to delete we could reach: the session end will */
        return;
    }
    view_arm_deferred(g, -1); /* an open group keeps a true view after it leaves */
    r = req_new(g->h, g, REQ_UNREGISTER);
    if (r == NULL)
        return;
    group_reg_set(g, REG_LEAVING, "leaving");
    if (cand_leader_is_mine(g) && (e = malloc(sizeof(*e))) != NULL && reg_handover(g, e) &&
        zke_elected_encode(e, &r->payload[0], &len) == 0) {
        /* a direct handover: the successor's decision goes with our leave,
           checked against the succession's version and the versions of
           `elected` and the history it was recorded for (every decision
           writes the history, even over an `elected` written anew, whose
           version starts over); the elector appends the history entry */
        zoo_check_op_init(&r->ops[n++], g->p_successor, g->succ_zversion);
        zoo_check_op_init(&r->ops[n++], g->p_history, g->succ_history_version);
        /* the rules and the successor's own record as they were when it was
           chosen: a drain, a health or eligibility change since refuses it */
        if (g->succ_config_version >= 0) {
            zoo_check_op_init(&r->ops[n++], g->p_config, g->succ_config_version);
        } else {
            /* made when there was no config: still none (a create and a
               delete in one multi: the config's absence, checked) */
            zoo_create_op_init(&r->ops[n++], g->p_config, "", 0, group_acl(g), ZOO_PERSISTENT,
                               NULL, 0);
            zoo_delete_op_init(&r->ops[n++], g->p_config, 0);
        }
        if (g->succ.successor_version >= 0) {
            snprintf(r->arg, sizeof(r->arg), "%s/%s", g->p_nodes, g->succ.successor);
            zoo_check_op_init(&r->ops[n++], r->arg, g->succ.successor_version);
        }
        /* the release before the decision: ZooKeeper notifies in the order
           of the ops, so the successor hears of the deletion first, re-arms
           its watch, and its takeover can go in one round trip (candidate.c,
           leader_create; the model's HO_DELETE_FIRST) */
        zoo_delete_op_init(&r->ops[n++], CL(g)->path, CL(g)->version);
        zoo_set_op_init(&r->ops[n++], g->p_elected, r->payload[0], (int)len, g->elected_version,
                        NULL);
        /* and wakes the successor (it may follow nothing): its registration
           must still be there, or nothing of this multi is */
        n = group_wake_ops(g, r, n, e, &g->elected, 1);
        r->token = g->succ_next_epoch;
        zke_log(g->h, ZKELECT_LOG_INFO, "%s: handing over to %s at epoch %llu", g->path,
                g->succ.successor, (unsigned long long)g->succ_next_epoch);
    }
    free(e);
    if (r->token == 0 && cand_leader_is_mine(g)) {
        /* `elected` as our view read it: else the znode may be the next
           leader's, at the same version (leader_delete, candidate.c) */
        if (g->elected_version >= 0)
            zoo_check_op_init(&r->ops[n++], g->p_elected, g->elected_version);
        zoo_delete_op_init(&r->ops[n++], CL(g)->path, CL(g)->version);
    }
    snprintf(r->pathbuf[0], sizeof(r->pathbuf[0]), "%s/%s", g->p_nodes, g->self.id);
    zoo_delete_op_init(&r->ops[n++], r->pathbuf[0], -1);
    if (*g->my_znode) {
        snprintf(r->pathbuf[1], sizeof(r->pathbuf[1]), "%s/%s", g->p_election, g->my_znode);
        zoo_delete_op_init(&r->ops[n++], r->pathbuf[1], -1);
    }
    memset(r->results, 0, sizeof(r->results));
    req_sent(r, zoo_amulti(g->h->zh, n, r->ops, r->results, multi_completion, r));
}

void
reg_unregistered(struct zkelect_group *g)
{
    g->handover_off = false;
    if (g->is_elector)
        elector_stop(g, "left the group");
    group_reg_set(g, REG_NONE, "left");
    g->my_znode[0] = '\0';
    g->leaving = false;
    group_role_set(g, ROLE_NONE, ZKELECT_EV_UNREGISTERED, 0, 0, "left the group");
}

/* A leave's multi refused with ZNONODE: by the check of `elected` or the
   delete of the leader znode (the view moved: nothing was applied, read
   again and leave again), not by the delete of the registration itself
   (that is gone already)? */
static bool
leave_refused_by_view(const struct req *r)
{
    int i;

    for (i = 0; i < ZKE_MULTI_MAX; i++) {
        const zoo_op_t *op = &r->ops[i];
        int err = r->results[i].err;

        if (err == ZOK || err == ZRUNTIMEINCONSISTENCY)
            continue;
        return !(op->type == ZOO_DELETE_OP &&
                 (op->delete_op.path == r->pathbuf[0] || op->delete_op.path == r->pathbuf[1]));
    }
    return false;
}

/* A leave refused: registered again (REG_DONE) until it is sent again. A
   predecessor's deletion heard while the leave's multi was in flight was
   let go (reg_on_watch), and so was the reply of a watch's request: look
   again, as after any deletion (the next in line may be the elector now) */
static void
leave_refused_rewalk(struct zkelect_group *g)
{
    if (!g->is_elector && !g->pred_watched && group_connected(g))
        reg_list_election(g, false);
}

void
reg_on_unregister_reply(struct zkelect_group *g, struct zev *ev)
{
    if (ev->req->token && ev->rc != ZOK && !zkerr_outcome_unknown(ev->rc)) {
        /* the handover was refused (the succession or `elected` moved, or
           anything else): leave as without one, the elector decides */
        zke_log(g->h, ZKELECT_LOG_INFO, "%s: handover refused (%s): leaving without it",
                g->path, zerror(ev->rc));
        g->handover_off = true;
        reg_unregister(g);
        return;
    }
    if (ev->rc == ZOK || (ev->rc == ZNONODE && !leave_refused_by_view(ev->req))) {
        CL(g)->version = -1;
        CL(g)->owner = 0;
        reg_unregistered(g);
        return;
    }
    if (ev->rc == ZBADVERSION || ev->rc == ZNONODE) {
        /* the leader znode or `elected` moved under us (changed, or gone):
           re-read both; cand_step retries */
        group_reg_set(g, REG_DONE, "the leader znode changed under the leave");
        leave_refused_rewalk(g);
        group_role_set(g, ROLE_MEMBER, 0, g->role_epoch, 0, "the leader znode changed under the leave");
        g->elected_read = false;
        view_read_elected(g);
        view_read_leader(g);
        return;
    }
    /* retried on the next step or reconnect */
    group_reg_set(g, REG_DONE, zerror(ev->rc));
    leave_refused_rewalk(g);
    if (g->role == ROLE_DELETING) {
        /* resigning: the step-down is over; the release (and the leave after
           it) goes on once the leader znode is read again */
        if (zkerr_outcome_unknown(ev->rc))
            cand_release_retry(g);
        else
            group_role_set(g, ROLE_MEMBER, 0, g->role_epoch, 0, "leaving: %s", zerror(ev->rc));
    }
}

/* ---- elector determination ---------------------------------------------- */

void
reg_list_election(struct zkelect_group *g, bool watch)
{
    struct req *r;

    if (!group_connected(g) || g->reg != REG_DONE)
        return;
    r = req_new(g->h, g, REQ_LIST_ELECTION);
    if (r == NULL)
        return;
    r->token = watch;
    req_sent(r, zoo_aget_children2(g->h->zh, g->p_election, watch, strings_completion, r));
}

void
reg_on_list_reply(struct zkelect_group *g, struct zev *ev)
{
    char id[ZKE_ID_MAX + 1];
    int64_t seq, top_seq[ZKE_LOWER_MAX + 1];
    const char *top[ZKE_LOWER_MAX + 1];
    bool mine = false, lowest = true;
    int i, j, ntop = 0, nbelow = 0;

    if (ev->rc != ZOK || g->reg != REG_DONE)
        return;
    for (i = 0; i < ev->nstrings; i++) {
        if (zke_child_parse(ev->strings[i], id, sizeof(id), NULL, &seq) != 0 ||
            child_ignored(g, ev->strings[i]))
            continue;
        if (strcmp(ev->strings[i], g->my_znode) == 0) {
            mine = true;
            continue;
        }
        if (seq >= g->my_seq)
            continue;
        lowest = false;
        nbelow++;
        /* keep the highest ZKE_LOWER_MAX + 1 below ours, highest first */
        for (j = ntop; j > 0 && top_seq[j - 1] < seq; j--) {
            if (j <= ZKE_LOWER_MAX) {
                top_seq[j] = top_seq[j - 1];
                top[j] = top[j - 1];
            }
        }
        if (j <= ZKE_LOWER_MAX) {
            top_seq[j] = seq;
            top[j] = ev->strings[i];
            if (ntop <= ZKE_LOWER_MAX)
                ntop++;
        }
    }
    if (!mine) {
        reg_lost(g, "our election znode vanished");
        return;
    }
    if (lowest) {
        if (!g->is_elector)
            elector_start(g, ev->req->token ? ev : NULL);
        else if (ev->req->token)
            elector_members(g, ev);
        return;
    }
    if (g->is_elector)
        elector_stop(g, "a lower election znode exists");
    snprintf(g->pred, sizeof(g->pred), "%s/%s", g->p_election, top[0]);
    for (g->nlower = 0; g->nlower < ntop - 1; g->nlower++)
        snprintf(g->lower[g->nlower], sizeof(g->lower[0]), "%s", top[g->nlower + 1]);
    g->lower_all = nbelow == ntop;
    g->pred_watched = false;
    reg_watch_pred(g);
}

/*
 * The predecessor went (or was gone when we came to watch it): watch the
 * next election znode below it that our last listing showed, without a new
 * listing. That is exact: sequence numbers only grow, so no znode below ours
 * appeared since, and the first of those remembered that is still there is
 * the highest below ours. One request for the member after a leaver, not
 * two. Once they are all gone: if that listing showed no other below ours,
 * we are the lowest, the elector, at once (the elector's own listing, which
 * it sends first, checks it); else (or with nothing remembered: a new
 * registration) a listing says whether we are the lowest or which is next.
 */
static void
reg_next_pred(struct zkelect_group *g)
{
    if (g->nlower == 0) {
        if (g->lower_all && !g->is_elector && !g->leaving && group_connected(g)) {
            g->lower_all = false;
            elector_start(g, NULL);
        } else {
            reg_list_election(g, false);
        }
        return;
    }
    snprintf(g->pred, sizeof(g->pred), "%s/%s", g->p_election, g->lower[0]);
    memmove(g->lower[0], g->lower[1], (size_t)(g->nlower - 1) * sizeof(g->lower[0]));
    g->nlower--;
    g->pred_watched = false;
    reg_watch_pred(g);
}

/*
 * Watch the predecessor's election znode for its deletion alone: a child
 * watch (getChildren), not an exists. An ephemeral znode has no children, so
 * the watch fires when it is deleted and never when its data is written: the
 * wake and the naming of the predecessor (§2, §4) cost its neighbour nothing.
 * The reply's stat says whether it is ephemeral, as the exists' did.
 */
static void
reg_watch_pred(struct zkelect_group *g)
{
    struct req *r;

    if (!group_connected(g) || (r = req_new(g->h, g, REQ_WATCH_PRED)) == NULL)
        return;
    snprintf(r->arg, sizeof(r->arg), "%s", g->pred);
    snprintf(r->pathbuf[0], sizeof(r->pathbuf[0]), "%s", g->pred);
    req_sent(r, zoo_aget_children2(g->h->zh, r->pathbuf[0], 1, strings_completion, r));
}

void
reg_on_pred_reply(struct zkelect_group *g, struct zev *ev)
{
    if (strcmp(ev->req->arg, g->pred) != 0 || g->reg != REG_DONE || g->is_elector)
        return; /* about an earlier predecessor */
    if (ev->rc == ZOK && owner_not_ephemeral(ev->stat.ephemeralOwner) == NULL) {
        g->pred_watched = true;
    } else if (ev->rc == ZNONODE) {
        reg_next_pred(g); /* gone before the watch was set */
    } else if (ev->rc == ZNOAUTH) {
        /* its ACL denies READ, which a getChildren needs: no member's
           (members' znodes are world-readable, group_acl), but it is below
           ours. An exists, which ZooKeeper 3.8 answers whatever the ACL,
           watches it and says whether it is ephemeral, as before the child
           watch; its data writes then fire that watch (register it again) */
        group_send_exists(g, REQ_WATCH_PRED, g->pred, g->pred);
    } else if (ev->rc == ZOK) {
        /* a persistent or container znode is no member's registration:
           written by a foreign client, it must not pose as the elector for
           ever */
        const char *name = strrchr(g->pred, '/') ? strrchr(g->pred, '/') + 1 : g->pred;
        zke_event(g->h, g, ZKELECT_EV_MALFORMED, NULL, 0, ZKELECT_EBADVALUE,
                  "%s is %s (no member's registration); ignored", g->pred,
                  owner_not_ephemeral(ev->stat.ephemeralOwner));
        child_ignore(g, name);
        reg_next_pred(g);
    }
}

/* ---- watches on our own znodes and the predecessor ------------------------ */

/* A leader told that one of its own znodes was deleted checks first that it
   is gone on a live session. The server deletes every ephemeral of a session
   that expires, and a leader that was paused (SIGSTOP, VM freeze) receives
   those notifications, queued before the server closed the connection, just
   before it learns that the connection is lost and the session expired: acting
   on one at once would report a voluntary step-down (-stepdown) for what is a
   lost leadership (-leadership-lost). The check's reply on a dead connection
   never says ZNONODE, so the session's end is reported as such; a foreign
   deletion on a live session costs one round trip more. */
static bool
mine_check_first(struct zkelect_group *g)
{
    return (g->role == ROLE_READY || g->role == ROLE_PROGRESS) && group_connected(g);
}

bool
reg_on_watch(struct zkelect_group *g, int type, const char *path)
{
    size_t ne = strlen(g->p_election);

    if (g->reg == REG_DONE && !g->leaving) {
        char mine[ZKE_PATH_MAX], rec[ZKE_PATH_MAX];
        snprintf(mine, sizeof(mine), "%s/%s", g->p_election, g->my_znode);
        snprintf(rec, sizeof(rec), "%s/%s", g->p_nodes, g->self.id);
        if (strcmp(path, mine) == 0) {
            if (type == ZOO_DELETED_EVENT && !mine_check_first(g))
                reg_lost(g, "our election znode was deleted");
            else if (type == ZOO_DELETED_EVENT)
                group_send_mine(g, REQ_WATCH_MINE, "our election znode was deleted");
            else {
                /* the wake (a decision elects us, group_wake_ops): the watch
                   again first, then the reads, so a later wake is heard and
                   an earlier decision is read. A group that follows
                   `elected` has read the decision before the one that woke
                   it (a newer one came with a notification before this
                   wake): only it can predict a handover's (§4) */
                bool fast = type == ZOO_CHANGED_EVENT && group_follows_elected(g) &&
                            !g->elected_unwatched;

                if (fast)
                    cand_fast_create(g); /* first: its reply waits for nothing */
                g->fast_hint = false;
                group_send_mine(g, REQ_WATCH_MINE, NULL);
                if (type == ZOO_CHANGED_EVENT)
                    view_follow(g, !group_follows_elected(g));
                group_unhold(g, true);
            }
            return true;
        }
        if (strcmp(path, rec) == 0) {
            if (type == ZOO_DELETED_EVENT && !mine_check_first(g)) {
                reg_lost(g, "our member record was deleted");
            } else if (type == ZOO_DELETED_EVENT) {
                group_send_exists(g, REQ_WATCH_MINE, rec, "our member record was deleted");
            } else {
                /* changed, by us or by someone else: read it (re-arming
                   the watch; an elector that tracks us takes the read) and
                   repair it if it is not what we wrote */
                reg_read_self(g);
            }
            return true;
        }
    }
    if (strncmp(path, g->p_election, ne) == 0 && path[ne] == '/' && strcmp(path, g->pred) == 0) {
        /* the one-shot watch is used up: look again (a deletion may make us
           the elector). Not registered any more (left, or the leave's
           multi in flight): let it go. One that is leaving but still
           registered (a leader's step-down runs, or its leave was refused
           and is read again) keeps its place in the order: it may be the
           lowest now, and until it leaves nobody else can be the elector */
        g->pred_watched = false;
        if (g->reg != REG_DONE)
            return true;
        if (type == ZOO_DELETED_EVENT)
            reg_next_pred(g);
        else
            reg_watch_pred(g); /* a foreign persistent znode's children */
        return true;
    }
    return false;
}
