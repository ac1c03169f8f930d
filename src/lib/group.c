/*
 * group.c - one election group's state machine (runs on the library thread).
 *
 * Sections, in order: helpers; the shared view (elected, leader) every group
 * keeps; candidate registration; elector determination (predecessor watch);
 * the elector (members, config, policy, decision, watchdog, exclusions); the
 * candidate's two-phase takeover and step-down; session events; dispatch.
 *
 * Safety rules this file keeps (see doc/PROTOCOL.md):
 *  - the leader znode is only ever created in a multi that checks the
 *    version of `elected` this node read naming itself, only set READY in a
 *    multi that checks both, and only deleted with its own version;
 *  - a node stops acting as leader the moment its connection is lost
 *    (SUSPENDED) and resumes only after re-reading both znodes on the same
 *    session;
 *  - every reply or watch of an older session generation is dropped (loop.c).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "zkerr.h"

static void view_changed(struct zkelect_group *g);
static void cand_step(struct zkelect_group *g);
static void elector_eval(struct zkelect_group *g);
static void elector_stop(struct zkelect_group *g, const char *why);
static void list_election(struct zkelect_group *g, bool watch);
static void do_register(struct zkelect_group *g);
static void do_unregister(struct zkelect_group *g);
static void leader_delete(struct zkelect_group *g);
static void read_member(struct zkelect_group *g, const char *id);
static bool leader_is_mine(struct zkelect_group *g);
static void registration_lost(struct zkelect_group *g, const char *why);
static void reregister(struct zkelect_group *g);
static void write_self(struct zkelect_group *g);
static void start_stepdown(struct zkelect_group *g, const char *why);
static bool child_ignored(struct zkelect_group *g, const char *name);

/* ---- helpers ------------------------------------------------------------- */

static int64_t
wall_ms(void)
{
    struct timespec ts;
    /* informational timestamps only (shown to operators), never for timing */
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static bool
connected(struct zkelect_group *g)
{
    return g->h->sess == SESS_CONNECTED && g->h->zh != NULL;
}

static struct ACL_vector *
acl_for(struct zkelect_group *g)
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

static void
new_guid(char out[ZKE_GUID_LEN + 1])
{
    unsigned char b[ZKE_GUID_LEN / 2];
    static const char hex[] = "0123456789abcdef";
    size_t i;

    if (getrandom(b, sizeof(b), 0) != (ssize_t)sizeof(b)) {
        /* fall back on time and address entropy: uniqueness, not secrecy */
        uint64_t x = zke_now_ms() ^ (uint64_t)(uintptr_t)out ^ ((uint64_t)wall_ms() << 20);
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

/* Parse an election child "<id>_<guid>_<seq>". Returns 0 and fills id/guid/seq. */
static int
parse_child(const char *name, char *id, size_t idlen, char *guid, int64_t *seq)
{
    const char *u2 = strrchr(name, '_'), *u1;
    char *end;
    size_t n;
    long long s;

    if (u2 == NULL || strlen(u2 + 1) != 10)
        return -1;
    s = strtoll(u2 + 1, &end, 10);
    if (*end != '\0' || s < 0)
        return -1;
    if (u2 - name < ZKE_GUID_LEN + 2)
        return -1;
    u1 = u2 - ZKE_GUID_LEN - 1;
    if (*u1 != '_')
        return -1;
    n = (size_t)(u1 - name);
    if (n == 0 || n >= idlen)
        return -1;
    memcpy(id, name, n);
    id[n] = '\0';
    if (!zke_id_valid(id))
        return -1;
    if (guid) {
        memcpy(guid, u1 + 1, ZKE_GUID_LEN);
        guid[ZKE_GUID_LEN] = '\0';
    }
    *seq = s;
    return 0;
}

/* Publish -malformed for the data of PATH; OUTCOME says what we do about it. */
static void
malformed_do(struct zkelect_group *g, const char *path, const char *data, int len,
             const char *err, const char *outcome)
{
    char esc[200];

    zke_escape(data ? data : "", data && len > 0 ? (size_t)len : 0, esc, sizeof(esc));
    zke_event(g->h, g, ZKELECT_EV_MALFORMED, NULL, 0, ZKELECT_EBADVALUE,
              "%s: %s (data: \"%s\"); %s", path, err, esc, outcome);
}

static void
malformed(struct zkelect_group *g, const char *path, const char *data, int len, const char *err)
{
    malformed_do(g, path, data, len, err, "treated as absent");
}

/* Send an aget with a watch for one of the group's znodes. */
static void
send_get(struct zkelect_group *g, enum req_kind kind, const char *path, const char *arg)
{
    struct req *r;

    if (!connected(g))
        return;
    r = req_new(g->h, g, kind);
    if (r == NULL)
        return;
    if (arg)
        snprintf(r->arg, sizeof(r->arg), "%s", arg);
    req_sent(r, zoo_aget(g->h->zh, path, 1, data_completion, r));
}

static void
send_exists(struct zkelect_group *g, enum req_kind kind, const char *path, const char *arg)
{
    struct req *r;

    if (!connected(g))
        return;
    r = req_new(g->h, g, kind);
    if (r == NULL)
        return;
    if (arg)
        snprintf(r->arg, sizeof(r->arg), "%s", arg);
    req_sent(r, zoo_aexists(g->h->zh, path, 1, stat_completion, r));
}

static void
send_exists_nowatch(struct zkelect_group *g, enum req_kind kind, const char *path)
{
    struct req *r;

    if (!connected(g))
        return;
    r = req_new(g->h, g, kind);
    if (r == NULL)
        return;
    snprintf(r->arg, sizeof(r->arg), "%s", path);
    req_sent(r, zoo_aexists(g->h->zh, path, 0, stat_completion, r));
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

/* ---- the shared view: elected and leader --------------------------------- */

static void
read_elected(struct zkelect_group *g)
{
    send_get(g, REQ_GET_ELECTED, g->p_elected, NULL);
}

static void
read_leader(struct zkelect_group *g)
{
    send_get(g, REQ_GET_LEADER, g->p_leader, NULL);
}

static void
on_elected_reply(struct zkelect_group *g, struct zev *ev)
{
    char err[256];
    int rc;

    if (ev->req->kind == REQ_EXISTS_ELECTED) {
        if (ev->rc == ZOK)
            read_elected(g); /* created meanwhile */
        else if (ev->rc == ZNONODE) {
            g->elected_read = true;
            view_changed(g);
        }
        return;
    }
    if (ev->rc == ZNONODE) {
        g->have_elected = false;
        g->elected_version = -1;
        memset(&g->elected, 0, sizeof(g->elected));
        /* a get on a missing znode sets no watch: an exists does */
        send_exists(g, REQ_EXISTS_ELECTED, g->p_elected, NULL);
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
        malformed(g, g->p_elected, ev->data, ev->datalen, err);
    } else {
        g->have_elected = true;
    }
    g->elected_read = true;
    view_changed(g);
}

static void
on_leader_reply(struct zkelect_group *g, struct zev *ev)
{
    char err[256];
    int rc;

    if (ev->req->kind == REQ_EXISTS_LEADER) {
        if (ev->rc == ZOK)
            read_leader(g);
        else if (ev->rc == ZNONODE) {
            g->leader_read = true;
            view_changed(g);
        }
        return;
    }
    if (ev->rc == ZNONODE) {
        g->have_leader = false;
        g->leader_version = -1;
        g->leader_owner = 0;
        memset(&g->leader, 0, sizeof(g->leader));
        /* a get on a missing znode sets no watch: an exists does. Act on
           the absence now rather than after that second round trip. */
        send_exists(g, REQ_EXISTS_LEADER, g->p_leader, NULL);
        g->leader_read = true;
        view_changed(g);
        return;
    }
    if (ev->rc != ZOK)
        return;
    g->leader_version = ev->stat.version;
    g->leader_owner = ev->stat.ephemeralOwner;
    rc = zke_leader_decode(ev->data, ev->datalen, &g->leader, err, sizeof(err));
    if (rc != 0) {
        g->have_leader = false;
        memset(&g->leader, 0, sizeof(g->leader));
        malformed(g, g->p_leader, ev->data, ev->datalen, err);
    } else {
        g->have_leader = true;
    }
    g->leader_read = true;
    view_changed(g);
}

/* Publish a leader change (id, status, epoch) to subscribers. */
static void
publish_leader(struct zkelect_group *g)
{
    const char *id = g->have_leader ? g->leader.id : "";
    int status = g->have_leader ? (int)g->leader.status : ZKELECT_STATUS_NONE;
    uint64_t epoch = g->have_leader ? g->leader.epoch : 0;

    if (!g->leader_read)
        return;
    if (strcmp(id, g->pub_id) == 0 && status == g->pub_status && epoch == g->pub_epoch)
        return;
    if (strcmp(id, g->pub_id) != 0) {
        g->have_leader_info = false;
        if (*id && group_registered(g) && strcmp(id, g->self.id) == 0) {
            g->leader_info = g->self;   /* this node leads: its record is here */
            g->have_leader_info = true;
        } else if (*id) {
            char path[ZKE_PATH_MAX];
            struct req *r;
            snprintf(path, sizeof(path), "%s/%s", g->p_nodes, id);
            if (connected(g) && (r = req_new(g->h, g, REQ_GET_LEADER_INFO)) != NULL) {
                snprintf(r->arg, sizeof(r->arg), "%s", id);
                req_sent(r, zoo_aget(g->h->zh, path, 0, data_completion, r));
            }
        }
    }
    snprintf(g->pub_id, sizeof(g->pub_id), "%s", id);
    g->pub_status = status;
    g->pub_epoch = epoch;
    zke_event(g->h, g, ZKELECT_EV_LEADER_CHANGED, id, epoch, 0, "leader %s%s%s",
              *id ? id : "none", *id ? " " : "",
              status == ZKELECT_STATUS_READY ? "READY" : status == ZKELECT_STATUS_PROGRESS ? "PROGRESS" : "");
}

static void
on_leader_info(struct zkelect_group *g, struct zev *ev)
{
    char err[256];

    if (ev->rc != ZOK || strcmp(ev->req->arg, g->pub_id) != 0)
        return;
    if (zke_member_decode(ev->data, ev->datalen, &g->leader_info, err, sizeof(err)) == 0)
        g->have_leader_info = true;
}

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

/* ---- registration -------------------------------------------------------- */

static void
self_payload(struct zkelect_group *g, char **out, size_t *len)
{
    if (zke_member_encode(&g->self, out, len) != 0) {
        *out = NULL;
        *len = 0;
    }
}

static void
nominate_finish(struct zkelect_group *g, int err)
{
    zkelect_done_fn fn = g->nominate_done;

    g->reg_err = err;
    g->nominate_done = NULL;
    if (fn)
        fn(g->nominate_data, g, err);
}

/* Create the persistent parents a group needs (missing ones only). Requests on
 * one session are processed in order, so the registration sent right after
 * them sees them. */
static void
ensure_paths(struct zkelect_group *g)
{
    const char *paths[3] = {g->path, g->p_nodes, g->p_election};
    char buf[ZKE_PATH_MAX];
    char *p;
    int i;
    struct req *r;

    /* every ancestor of the base path, then the base and its two parents */
    snprintf(buf, sizeof(buf), "%s", g->path);
    for (p = strchr(buf + 1, '/'); p; p = strchr(p + 1, '/')) {
        *p = '\0';
        if ((r = req_new(g->h, g, REQ_ENSURE_PATH)) != NULL)
            req_sent(r, zoo_acreate(g->h->zh, buf, "", 0, acl_for(g), ZOO_PERSISTENT,
                                    string_completion, r));
        *p = '/';
    }
    for (i = 0; i < 3; i++)
        if ((r = req_new(g->h, g, REQ_ENSURE_PATH)) != NULL)
            req_sent(r, zoo_acreate(g->h->zh, paths[i], "", 0, acl_for(g), ZOO_PERSISTENT,
                                    string_completion, r));
}

static void
do_register(struct zkelect_group *g)
{
    struct req *r;
    size_t len;

    if (!connected(g))
        return;
    /* the group's znodes are created once; a registration that finds them
       gone (ZNONODE) creates them and tries again (on_register_reply) */
    if (!g->paths_ok)
        ensure_paths(g);
    r = req_new(g->h, g, REQ_REGISTER);
    if (r == NULL)
        return;
    g->reg = REG_PENDING;
    self_payload(g, &r->payload[0], &len);
    if (r->payload[0] == NULL) {
        req_sent(r, ZMARSHALLINGERROR);
        return;
    }
    snprintf(r->pathbuf[0], sizeof(r->pathbuf[0]), "%s/%s", g->p_nodes, g->self.id);
    snprintf(r->arg, sizeof(r->arg), "%s/%s_%s_", g->p_election, g->self.id, g->guid);
    zoo_create_op_init(&r->ops[0], r->pathbuf[0], r->payload[0], (int)len, acl_for(g),
                       ZOO_EPHEMERAL, NULL, 0);
    zoo_create_op_init(&r->ops[1], r->arg, g->self.id, (int)strlen(g->self.id), acl_for(g),
                       ZOO_EPHEMERAL_SEQUENTIAL, r->pathbuf[1], sizeof(r->pathbuf[1]));
    memset(r->results, 0, sizeof(r->results));
    req_sent(r, zoo_amulti(g->h->zh, 2, r->ops, r->results, multi_completion, r));
}

static void
registered(struct zkelect_group *g, const char *child)
{
    char id[ZKE_ID_MAX + 1];
    const char *base = strrchr(child, '/');

    base = base ? base + 1 : child;
    snprintf(g->my_znode, sizeof(g->my_znode), "%s", base);
    if (parse_child(g->my_znode, id, sizeof(id), NULL, &g->my_seq) != 0)
        g->my_seq = -1;
    g->reg = REG_DONE;
    g->role = ROLE_MEMBER;
    g->my_czxid = 0;
    g->recheck_mine = false;
    {
        char path[ZKE_PATH_MAX];
        snprintf(path, sizeof(path), "%s/%s", g->p_election, g->my_znode);
        send_exists_nowatch(g, REQ_STAT_MINE, path);
        /* watch our own znodes: a foreign client deleting or overwriting
           them must not leave us registered in name only */
        send_exists(g, REQ_WATCH_MINE, path, NULL);
        snprintf(path, sizeof(path), "%s/%s", g->p_nodes, g->self.id);
        send_exists(g, REQ_WATCH_MINE, path, NULL);
    }
    zke_event(g->h, g, ZKELECT_EV_REGISTERED, g->self.id, 0, 0, "registered as %s (site \"%s\", priority %d)",
              g->my_znode, g->self.site, (int)g->self.priority);
    nominate_finish(g, 0);
    list_election(g, false);
    cand_step(g);
}

static void
on_register_reply(struct zkelect_group *g, struct zev *ev)
{
    struct req *r = ev->req;
    char path[ZKE_PATH_MAX];

    if (g->reg != REG_PENDING)
        return;
    if (ev->rc == ZOK) {
        g->paths_ok = true;
        registered(g, r->pathbuf[1]);
        return;
    }
    if (zkerr_outcome_unknown(ev->rc) || ev->rc == ZCLOSING) {
        g->reg = REG_UNKNOWN; /* find it by guid after the reconnect */
        return;
    }
    if (ev->rc == ZNONODE && g->paths_ok) {
        g->paths_ok = false;  /* someone removed the group's znodes: create them again */
        do_register(g);
        return;
    }
    if (ev->rc == ZNODEEXISTS) {
        /* nodes/<id> exists: ours (an earlier attempt) or another session's? */
        snprintf(path, sizeof(path), "%s/%s", g->p_nodes, g->self.id);
        r = req_new(g->h, g, REQ_CHECK_ID);
        if (r)
            req_sent(r, zoo_aexists(g->h->zh, path, 0, stat_completion, r));
        return;
    }
    g->reg = REG_NONE;
    zke_event(g->h, g, ZKELECT_EV_ERROR, g->self.id, 0, zkerr_from_zk(ev->rc),
              "cannot register under %s: %s", g->path, zerror(ev->rc));
    nominate_finish(g, zkerr_from_zk(ev->rc));
}

static void
on_stat_mine_reply(struct zkelect_group *g, struct zev *ev)
{
    char path[ZKE_PATH_MAX];

    snprintf(path, sizeof(path), "%s/%s", g->p_election, g->my_znode);
    if (g->reg != REG_DONE || strcmp(path, ev->req->arg) != 0)
        return;
    if (ev->rc == ZOK) {
        g->my_czxid = ev->stat.czxid;
        cand_step(g);
    } else if (ev->rc == ZNONODE) {
        list_election(g, false); /* gone: the listing re-registers */
    }
}

static void
on_check_id_reply(struct zkelect_group *g, struct zev *ev)
{
    if (g->reg != REG_PENDING)
        return;
    if (ev->rc == ZNONODE) {
        do_register(g); /* the holder went away meanwhile */
        return;
    }
    if (ev->rc != ZOK) {
        g->reg = REG_UNKNOWN;
        return;
    }
    if (ev->stat.ephemeralOwner == g->h->session_id) {
        /* ours: an earlier attempt whose reply was lost. Find its election znode. */
        struct req *r = req_new(g->h, g, REQ_FIND_MINE);
        if (r) {
            r->token = 1; /* nodes/<id> is known to be ours */
            req_sent(r, zoo_aget_children2(g->h->zh, g->p_election, 0, strings_completion, r));
        }
        return;
    }
    g->reg = REG_NONE;
    zke_event(g->h, g, ZKELECT_EV_ERROR, g->self.id, 0, ZKELECT_EIDINUSE,
              "node id %s is held by another live session (0x%llx); refusing to join",
              g->self.id, (unsigned long long)ev->stat.ephemeralOwner);
    nominate_finish(g, ZKELECT_EIDINUSE);
}

static void
on_find_mine_reply(struct zkelect_group *g, struct zev *ev)
{
    char id[ZKE_ID_MAX + 1], guid[ZKE_GUID_LEN + 1];
    int64_t seq;
    int i;

    if (g->reg != REG_UNKNOWN && g->reg != REG_PENDING)
        return;
    if (ev->rc != ZOK) {
        g->reg = REG_UNKNOWN;
        return;
    }
    for (i = 0; i < ev->nstrings; i++) {
        if (parse_child(ev->strings[i], id, sizeof(id), guid, &seq) == 0 &&
            strcmp(guid, g->guid) == 0 && strcmp(id, g->self.id) == 0) {
            registered(g, ev->strings[i]);
            return;
        }
    }
    if (ev->req->token) {
        /* nodes/<id> is ours but our election znode is gone (deleted by a
           foreign client): create only that one, and rewrite our record */
        struct req *r = req_new(g->h, g, REQ_CREATE_ELECTION);
        if (r == NULL)
            return;
        snprintf(r->arg, sizeof(r->arg), "%s/%s_%s_", g->p_election, g->self.id, g->guid);
        req_sent(r, zoo_acreate(g->h->zh, r->arg, g->self.id, (int)strlen(g->self.id),
                                acl_for(g), ZOO_EPHEMERAL_SEQUENTIAL, string_completion, r));
        g->member_dirty = true;
        return;
    }
    do_register(g);
}

static void
on_create_election_reply(struct zkelect_group *g, struct zev *ev)
{
    if (g->reg != REG_PENDING)
        return;
    if (ev->rc == ZOK && ev->data) {
        registered(g, ev->data);
        if (g->member_dirty) {
            g->member_dirty = false;
            write_self(g);
        }
        return;
    }
    if (zkerr_outcome_unknown(ev->rc) || ev->rc == ZCLOSING) {
        g->reg = REG_UNKNOWN;
        return;
    }
    zke_event(g->h, g, ZKELECT_EV_ERROR, g->self.id, 0, zkerr_from_zk(ev->rc),
              "cannot create our election znode under %s: %s", g->p_election, zerror(ev->rc));
    g->reg = REG_NONE;
    nominate_finish(g, zkerr_from_zk(ev->rc));
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
    if (g->is_elector && member_find(g, g->self.id)) {
        zke_log(g->h, ZKELECT_LOG_WARNING, "%s: changed by someone else; rewriting it", path);
    } else if (zke_member_decode(ev->data, ev->datalen, &rec, err, sizeof(err)) != 0) {
        malformed_do(g, path, ev->data, ev->datalen, err, "rewriting our record");
    } else if (strcmp(rec.id, g->self.id) != 0) {
        malformed_do(g, path, ev->data, ev->datalen, "record id does not match the znode name",
                     "rewriting our record");
    } else {
        zke_log(g->h, ZKELECT_LOG_WARNING, "%s: changed by someone else; rewriting it", path);
    }
}

/* Rewrite our member record (after it was overwritten, or to repair it). */
static void
write_self(struct zkelect_group *g)
{
    char path[ZKE_PATH_MAX];
    struct req *r;
    size_t len;

    if (!connected(g) || g->reg != REG_DONE)
        return;
    r = req_new(g->h, g, REQ_UPDATE_MEMBER);
    if (r == NULL)
        return;
    self_payload(g, &r->payload[0], &len);
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
static void
registration_lost(struct zkelect_group *g, const char *why)
{
    if (g->reg != REG_DONE)
        return;
    zke_event(g->h, g, ZKELECT_EV_ERROR, g->self.id, 0, ZKELECT_ENONODE,
              "registration lost: %s; registering again", why);
    if (g->is_elector)
        elector_stop(g, why);
    if (g->role == ROLE_READY || g->role == ROLE_PROGRESS) {
        g->rereg_pending = true;
        start_stepdown(g, why);
        return;
    }
    if (g->role == ROLE_CREATING || g->role == ROLE_READYING || g->role == ROLE_STEPPING_DOWN ||
        g->role == ROLE_DELETING) {
        g->rereg_pending = true; /* after the step in flight */
        return;
    }
    reregister(g);
}

static void
reregister(struct zkelect_group *g)
{
    g->rereg_pending = false;
    g->reg = REG_PENDING;
    g->role = ROLE_MEMBER;
    g->my_znode[0] = '\0';
    g->my_czxid = 0;
    new_guid(g->guid);
    snprintf(g->self.guid, sizeof(g->self.guid), "%s", g->guid);
    do_register(g);
}

static void
do_unregister(struct zkelect_group *g)
{
    struct req *r;
    int n = 0;

    if (!connected(g)) {
        /* nothing to delete we could reach: the session end will */
        return;
    }
    r = req_new(g->h, g, REQ_UNREGISTER);
    if (r == NULL)
        return;
    g->reg = REG_LEAVING;
    if (leader_is_mine(g))
        zoo_delete_op_init(&r->ops[n++], g->p_leader, g->leader_version);
    snprintf(r->pathbuf[0], sizeof(r->pathbuf[0]), "%s/%s", g->p_nodes, g->self.id);
    zoo_delete_op_init(&r->ops[n++], r->pathbuf[0], -1);
    if (*g->my_znode) {
        snprintf(r->pathbuf[1], sizeof(r->pathbuf[1]), "%s/%s", g->p_election, g->my_znode);
        zoo_delete_op_init(&r->ops[n++], r->pathbuf[1], -1);
    }
    memset(r->results, 0, sizeof(r->results));
    req_sent(r, zoo_amulti(g->h->zh, n, r->ops, r->results, multi_completion, r));
}

static void
unregistered(struct zkelect_group *g)
{
    if (g->is_elector)
        elector_stop(g, "left the group");
    g->reg = REG_NONE;
    g->role = ROLE_NONE;
    g->my_znode[0] = '\0';
    g->leaving = false;
    zke_event(g->h, g, ZKELECT_EV_UNREGISTERED, g->self.id, 0, 0, "left the group");
}

static void
on_unregister_reply(struct zkelect_group *g, struct zev *ev)
{
    if (ev->rc == ZOK || ev->rc == ZNONODE) {
        g->leader_version = -1;
        g->leader_owner = 0;
        unregistered(g);
        return;
    }
    if (ev->rc == ZBADVERSION) {
        /* the leader znode moved under us: re-read it; cand_step retries */
        g->reg = REG_DONE;
        g->role = ROLE_MEMBER;
        read_leader(g);
        return;
    }
    g->reg = REG_DONE; /* retried on the next step or reconnect */
    if (g->role == ROLE_DELETING)
        g->role = zkerr_outcome_unknown(ev->rc) ? ROLE_SUSPENDED : ROLE_MEMBER;
}

/* ---- elector determination ---------------------------------------------- */

static void
list_election(struct zkelect_group *g, bool watch)
{
    struct req *r;

    if (!connected(g) || g->reg != REG_DONE)
        return;
    r = req_new(g->h, g, REQ_LIST_ELECTION);
    if (r == NULL)
        return;
    r->token = watch;
    req_sent(r, zoo_aget_children2(g->h->zh, g->p_election, watch, strings_completion, r));
}

static void elector_start(struct zkelect_group *g);
static void elector_members(struct zkelect_group *g, struct zev *ev);

static void
on_list_reply(struct zkelect_group *g, struct zev *ev)
{
    char id[ZKE_ID_MAX + 1];
    int64_t seq, best_pred = -1;
    const char *pred = NULL;
    bool mine = false, lowest = true;
    int i;

    if (ev->rc != ZOK || g->reg != REG_DONE)
        return;
    for (i = 0; i < ev->nstrings; i++) {
        if (parse_child(ev->strings[i], id, sizeof(id), NULL, &seq) != 0 ||
            child_ignored(g, ev->strings[i]))
            continue;
        if (strcmp(ev->strings[i], g->my_znode) == 0) {
            mine = true;
            continue;
        }
        if (seq < g->my_seq) {
            lowest = false;
            if (seq > best_pred) {
                best_pred = seq;
                pred = ev->strings[i];
            }
        }
    }
    if (!mine) {
        registration_lost(g, "our election znode vanished");
        return;
    }
    if (lowest) {
        if (!g->is_elector)
            elector_start(g);
        else if (ev->req->token)
            elector_members(g, ev);
        return;
    }
    if (g->is_elector)
        elector_stop(g, "a lower election znode exists");
    snprintf(g->pred, sizeof(g->pred), "%s/%s", g->p_election, pred);
    send_exists(g, REQ_EXISTS_PRED, g->pred, NULL);
}

static void
on_pred_reply(struct zkelect_group *g, struct zev *ev)
{
    if (ev->rc == ZNONODE) {
        list_election(g, false); /* gone before the watch was set */
    } else if (ev->rc == ZOK && ev->stat.ephemeralOwner == 0) {
        /* a persistent znode is no member's registration: written by a
           foreign client, it must not pose as the elector for ever */
        const char *name = strrchr(g->pred, '/') ? strrchr(g->pred, '/') + 1 : g->pred;
        zke_event(g->h, g, ZKELECT_EV_MALFORMED, NULL, 0, ZKELECT_EBADVALUE,
                  "%s is not ephemeral (no member's registration); ignored", g->pred);
        child_ignore(g, name);
        list_election(g, false);
    }
}

/* ---- the elector ----------------------------------------------------------- */

static void
elector_start(struct zkelect_group *g)
{
    g->is_elector = true;
    group_timer_changed(g);
    g->election_read = g->config_read = g->switchover_read = g->history_read = false;
    g->reasons |= ZKELECT_REASON_INITIAL;
    config_clear(g);
    g->config_good = false;
    memset(&g->switchover, 0, sizeof(g->switchover));
    g->config_version = g->history_version = -1;
    zke_event(g->h, g, ZKELECT_EV_ELECTOR, g->self.id, 0, 0, "this node is now the elector");
    list_election(g, true);
    send_get(g, REQ_GET_CONFIG, g->p_config, NULL);
    send_get(g, REQ_GET_SWITCHOVER, g->p_switchover, NULL);
    if (connected(g)) {
        struct req *r = req_new(g->h, g, REQ_GET_HISTORY);
        if (r)
            req_sent(r, zoo_aget(g->h->zh, g->p_history, 0, data_completion, r));
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
    /* a transition in flight when the old elector died gets a watchdog period */
    if (g->have_elected && *g->elected.leader &&
        !(g->have_leader && strcmp(g->leader.id, g->elected.leader) == 0 &&
          g->leader.epoch == g->elected.epoch && g->leader.status == ZKE_STATUS_READY)) {
        g->watchdog_ms_deadline = zke_now_ms() + (uint64_t)effective_watchdog_ms(g);
        group_timer_changed(g);
        g->watchdog_epoch = g->elected.epoch;
        g->watchdog_fenced = false;
    }
}

static void
elector_stop(struct zkelect_group *g, const char *why)
{
    if (!g->is_elector)
        return;
    g->is_elector = false;
    members_clear(g);
    exclusions_clear(g);
    g->watchdog_ms_deadline = 0;
    g->deciding = false;
    g->eval_pending = false;
    g->reasons = 0;
    zke_event(g->h, g, ZKELECT_EV_ELECTOR_LOST, g->self.id, 0, 0, "no longer the elector: %s", why);
}

/* The elector's list of election children: update the member cache. */
static void
elector_members(struct zkelect_group *g, struct zev *ev)
{
    char id[ZKE_ID_MAX + 1];
    int64_t seq;
    struct member_cache *m, **pp;
    int i;

    for (m = g->members; m; m = m->next)
        m->seen = false;
    for (i = 0; i < ev->nstrings; i++) {
        if (parse_child(ev->strings[i], id, sizeof(id), NULL, &seq) != 0) {
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
            read_member(g, id);
        } else if (m->seen && seq >= m->seq) {
            continue; /* a later duplicate of the same id: the lowest counts */
        }
        if (m->znode[0] && strcmp(m->znode, ev->strings[i]) != 0 && !m->seen) {
            /* the same id registered again (a new session): a new member */
            g->reasons |= ZKELECT_REASON_MEMBER_JOINED;
            read_member(g, id);
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
    elector_eval(g);
}

static void
read_member(struct zkelect_group *g, const char *id)
{
    char path[ZKE_PATH_MAX];

    snprintf(path, sizeof(path), "%s/%s", g->p_nodes, id);
    send_get(g, REQ_GET_MEMBER, path, id);
}

static void
on_member_reply(struct zkelect_group *g, struct zev *ev)
{
    struct member_cache *m;
    char err[256], path[ZKE_PATH_MAX];
    struct zke_member rec;
    bool was_valid;

    if (!g->is_elector || (m = member_find(g, ev->req->arg)) == NULL)
        return;
    if (ev->rc == ZNONODE) {
        /* registration without its node record (or it is leaving): not a member */
        m->loaded = true;
        m->valid = false;
        elector_eval(g);
        return;
    }
    if (ev->rc != ZOK)
        return;
    was_valid = m->valid;
    m->loaded = true;
    if (zke_member_decode(ev->data, ev->datalen, &rec, err, sizeof(err)) != 0) {
        snprintf(path, sizeof(path), "%s/%s", g->p_nodes, ev->req->arg);
        malformed(g, path, ev->data, ev->datalen, err);
        m->valid = false;
    } else if (strcmp(rec.id, m->rec.id) != 0) {
        snprintf(path, sizeof(path), "%s/%s", g->p_nodes, ev->req->arg);
        malformed(g, path, ev->data, ev->datalen, "record id does not match the znode name");
        m->valid = false;
    } else {
        if (was_valid && (rec.priority != m->rec.priority || rec.eligible != m->rec.eligible ||
                          rec.healthy != m->rec.healthy || strcmp(rec.site, m->rec.site) != 0))
            g->reasons |= ZKELECT_REASON_MEMBER_CHANGED;
        m->rec = rec;
        m->valid = true;
    }
    if (was_valid != m->valid)
        g->reasons |= ZKELECT_REASON_MEMBER_CHANGED;
    elector_eval(g);
}

static void
on_config_reply(struct zkelect_group *g, struct zev *ev)
{
    char err[256];

    if (!g->is_elector)
        return;
    if (ev->req->kind == REQ_EXISTS_CONFIG) {
        if (ev->rc == ZOK)
            send_get(g, REQ_GET_CONFIG, g->p_config, NULL);
        return;
    }
    if (ev->rc == ZNONODE) {
        g->config_version = -1;
        g->config_read = true;
        send_exists(g, REQ_EXISTS_CONFIG, g->p_config, NULL);
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
    g->config_version = ev->stat.version;
    {
        struct zke_config c;
        if (zke_config_decode(ev->data, ev->datalen, &c, err, sizeof(err)) != 0) {
            /* keep the last good config (an elector that never read one uses
               the defaults, as for a missing config); say so loudly */
            malformed(g, g->p_config, ev->data, ev->datalen, err);
            if (!g->config_good)
                config_clear(g);
        } else {
            if (g->config == NULL && (g->config = malloc(sizeof(*g->config))) == NULL)
                return;   /* out of memory: config_read stays false, no decision */
            *g->config = c;
            g->config_good = true;
            g->reasons |= ZKELECT_REASON_CONFIG_CHANGED;
        }
    }
    g->config_read = true;
    elector_eval(g);
}

static void
on_switchover_reply(struct zkelect_group *g, struct zev *ev)
{
    char err[256];

    if (!g->is_elector)
        return;
    if (ev->req->kind == REQ_EXISTS_SWITCHOVER) {
        if (ev->rc == ZOK)
            send_get(g, REQ_GET_SWITCHOVER, g->p_switchover, NULL);
        return;
    }
    if (ev->rc == ZNONODE) {
        memset(&g->switchover, 0, sizeof(g->switchover));
        g->switchover_read = true;
        send_exists(g, REQ_EXISTS_SWITCHOVER, g->p_switchover, NULL);
        elector_eval(g);
        return;
    }
    if (ev->rc != ZOK)
        return;
    if (zke_switchover_decode(ev->data, ev->datalen, &g->switchover, err, sizeof(err)) != 0) {
        memset(&g->switchover, 0, sizeof(g->switchover));
        malformed(g, g->p_switchover, ev->data, ev->datalen, err);
    }
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

static void
on_history_reply(struct zkelect_group *g, struct zev *ev)
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
            malformed(g, g->p_history, ev->data, ev->datalen, err);
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

    if (!g->is_elector || !connected(g) || !g->election_read || !g->config_read ||
        !g->switchover_read || !g->history_read || !g->elected_read || !g->leader_read)
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
    struct zke_history *hist;
    struct exclusion *x;
    struct req *r;
    uint64_t epoch, now = zke_now_ms();
    size_t len0, len1;
    int n = 0;

    e = calloc(1, sizeof(*e));
    if (e == NULL)
        return;
    epoch = g->have_elected ? g->elected.epoch : 0;
    if (g->have_leader && g->leader.epoch > epoch)
        epoch = g->leader.epoch;
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
        e->at_ms = wall_ms();
        epoch = e->epoch;
        goto encode;
    }
    if (mode == DECIDE_RESTORE)
        epoch = g->leader.epoch;
    else
        epoch++;
    e->epoch = epoch;
    if (chosen) {
        snprintf(e->leader, sizeof(e->leader), "%s", chosen->rec.id);
        snprintf(e->leader_site, sizeof(e->leader_site), "%s", chosen->rec.site);
        snprintf(e->leader_znode, sizeof(e->leader_znode), "%s", chosen->znode);
    }
    if (g->have_elected && strcmp(g->elected.leader, e->leader) != 0)
        snprintf(e->previous, sizeof(e->previous), "%s", g->elected.leader);
    else if (g->have_elected)
        snprintf(e->previous, sizeof(e->previous), "%s", g->elected.previous);
    snprintf(e->elector, sizeof(e->elector), "%s", g->self.id);
    snprintf(e->policy, sizeof(e->policy), "%s", g->policy ? zke_policy_name(g->policy) : "none");
    snprintf(e->reason, sizeof(e->reason), "%s", why);
    e->at_ms = wall_ms();
    e->switchover_id = switchover_id;
    e->config_version = g->config_version;
    for (x = g->exclusions; x && e->nexcluded < ZKE_EXCLUDED_MAX; x = x->next) {
        struct zke_exclusion *ze = &e->excluded[e->nexcluded++];
        snprintf(ze->id, sizeof(ze->id), "%s", x->id);
        snprintf(ze->reason, sizeof(ze->reason), "%s", x->reason);
        ze->remaining_ms = x->until_ms > now ? x->until_ms - now : 0;
    }
encode:
    memset(&he, 0, sizeof(he));
    he.epoch = epoch;
    snprintf(he.leader, sizeof(he.leader), "%s", e->leader);
    snprintf(he.elector, sizeof(he.elector), "%s", e->elector);
    snprintf(he.policy, sizeof(he.policy), "%s", e->policy);
    snprintf(he.reason, sizeof(he.reason), "%s", e->reason);
    he.at_ms = e->at_ms;
    /* the history as read (validated then), with this decision appended */
    if ((hist = calloc(1, sizeof(*hist))) == NULL) {
        free(e);
        return;
    }
    if (g->history_buf && zke_history_decode(g->history_buf, (int)g->history_len, hist, NULL, 0) != 0)
        memset(hist, 0, sizeof(*hist));
    zke_history_push(hist, &he);

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
        zoo_create_op_init(&r->ops[n++], g->p_elected, r->payload[0], (int)len0, acl_for(g),
                           ZOO_PERSISTENT, NULL, 0);
    if (g->history_version >= 0)
        zoo_set_op_init(&r->ops[n++], g->p_history, r->payload[1], (int)len1, g->history_version, NULL);
    else
        zoo_create_op_init(&r->ops[n++], g->p_history, r->payload[1], (int)len1, acl_for(g),
                           ZOO_PERSISTENT, NULL, 0);
    memset(r->results, 0, sizeof(r->results));
    g->deciding = true;
    zke_log(g->h, ZKELECT_LOG_INFO, "%s: deciding epoch %llu: leader %s (%s)", g->path,
            (unsigned long long)epoch, *e->leader ? e->leader : "none", why);
    req_sent(r, zoo_amulti(g->h->zh, n, r->ops, r->results, multi_completion, r));
    free(e);
}

static void
on_decide_reply(struct zkelect_group *g, struct zev *ev)
{
    struct req *r = ev->req;
    char err[256];

    g->deciding = false;
    if (ev->rc == ZOK) {
        struct zke_elected e;
        g->n_decisions++;
        if (zke_elected_decode(r->payload[0], (int)strlen(r->payload[0]), &e, err, sizeof(err)) == 0) {
            g->elected = e;
            g->have_elected = true;
            g->elected_mzxid = INT64_MAX; /* written by us, now: newer than anything */
            g->elected_version = g->elected_version >= 0 ? g->elected_version + 1 : 0;
            g->history_version = g->history_version >= 0 ? g->history_version + 1 : 0;
            if (*e.leader) {
                g->watchdog_ms_deadline = zke_now_ms() + (uint64_t)effective_watchdog_ms(g);
                group_timer_changed(g);
                g->watchdog_epoch = e.epoch;
                g->watchdog_fenced = false;
            } else {
                g->watchdog_ms_deadline = 0;
            }
            zke_event(g->h, g, ZKELECT_EV_DECISION, e.leader, e.epoch, 0, "elected %s: %s",
                      *e.leader ? e.leader : "nobody", e.reason);
        }
        g->reasons = 0;
        view_changed(g);
    } else if (ev->rc == ZBADVERSION || ev->rc == ZNODEEXISTS || ev->rc == ZNONODE) {
        /* someone else wrote meanwhile: re-read and decide again */
        g->history_read = false;
        g->elected_read = false;
        read_elected(g);
        if (connected(g)) {
            struct req *hr = req_new(g->h, g, REQ_GET_HISTORY);
            if (hr)
                req_sent(hr, zoo_aget(g->h->zh, g->p_history, 0, data_completion, hr));
        }
        return;
    } else if (ev->rc == ZNOAUTH) {
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

static void
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
    bool current_present, switchover, config_ack, restore;
    const char *cur;

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
    cur = g->have_elected ? g->elected.leader : "";
    current_present = elected_present(g);
    /* `elected` is gone or unreadable while a valid leader znode is live:
       that leader is current, and keeping it restores the decision */
    restore = !g->have_elected && g->have_leader && member_present(g, g->leader.id);
    if (restore) {
        cur = g->leader.id;
        current_present = true;
    }
    if (*cur && !current_present)
        g->reasons |= ZKELECT_REASON_LEADER_LOST;
    /* without a readable `elected` we cannot tell a new request from one
       acted on long ago: never act on it then (the next decision records it) */
    switchover = g->have_elected && g->switchover.id != 0 && g->switchover.id > g->elected.switchover_id;
    if (switchover)
        g->reasons |= ZKELECT_REASON_SWITCHOVER;

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
    if (CFG(g)->paused && current_present && !switchover) {
        zke_log(g->h, ZKELECT_LOG_DEBUG, "%s: paused: no decision while the leader is present", g->path);
        if (config_ack)
            decide_write(g, NULL, "config-changed: paused, leader kept", g->have_elected ?
                         g->elected.switchover_id : 0, DECIDE_ACK);
        return;
    }
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
        in_members[n].eligible = m->rec.eligible;
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
    if (g->have_leader && *cur && strcmp(g->leader.id, cur) == 0)
        in.current_status = (enum zkelect_leader_status)g->leader.status;
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

    reason[0] = '\0';
    rc = zke_policy_choose(g->policy, &in, &chosen, reason, sizeof(reason));
    reasons_text(g->reasons, rtext, sizeof(rtext));
    if (rc != 0) {
        zke_event(g->h, g, ZKELECT_EV_ERROR, NULL, 0, rc, "policy %s failed (%s): %s; no decision",
                  zke_policy_name(g->policy), rtext, reason);
        goto out;
    }
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
            else
                g->reasons = 0;
            goto out;
        }
        decide_write(g, NULL, why, switchover_id, DECIDE_NEW);
        goto out;
    }
    snprintf(why, sizeof(why), "%s: %s", rtext, reason);
    if (restore && strcmp(in_members[chosen].id, g->leader.id) == 0) {
        snprintf(why, sizeof(why), "restored: %s was unreadable or missing; %s leads at epoch %llu",
                 g->p_elected, g->leader.id, (unsigned long long)g->leader.epoch);
        decide_write(g, mc_of[chosen], why, switchover_id, DECIDE_RESTORE);
        goto out;
    }
    /* the same id as `elected` names, with the registration it was elected
       with: no change. The same id on a later registration (the node left or
       lost its session and came back, e.g. after the whole group stopped) is
       a new leader: a new decision names that registration, else it would
       wait for a decision naming it until the watchdog */
    if (strcmp(in_members[chosen].id, cur) == 0 && current_present) {
        if ((switchover || config_ack) && g->have_elected)
            decide_write(g, NULL, why, switchover_id, DECIDE_ACK); /* acknowledge only */
        else
            g->reasons = 0; /* no change: no write */
        goto out;
    }
    decide_write(g, mc_of[chosen], why, switchover_id, DECIDE_NEW);
out:
    free(in_members);
    free(mc_of);
    free(tagp);
}

/* ---- the candidate: two-phase takeover and step-down -------------------- */

static bool
leader_is_mine(struct zkelect_group *g)
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
    l.since_ms = wall_ms();
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
    zoo_create_op_init(&r->ops[1], g->p_leader, r->payload[0], (int)len, acl_for(g),
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
    l.since_ms = wall_ms();
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

    if (!leader_is_mine(g)) {
        g->role = g->reg == REG_DONE ? ROLE_MEMBER : ROLE_NONE;
        if (g->leaving)
            do_unregister(g);
        return;
    }
    r = req_new(g->h, g, REQ_LEADER_DELETE);
    if (r == NULL)
        return;
    g->role = ROLE_DELETING;
    req_sent(r, zoo_adelete(g->h->zh, g->p_leader, g->leader_version, void_completion, r));
}

/* The takeover finished (callback result or zkelect_takeover_done). */
static void
takeover_result(struct zkelect_group *g, uint64_t epoch, int err)
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
    takeover_result(g, g->role_epoch, rc);
}

static void
stepdown_result(struct zkelect_group *g, uint64_t epoch)
{
    if (g->role != ROLE_STEPPING_DOWN || g->role_epoch != epoch)
        return;
    if (g->leaving && g->reg == REG_DONE && leader_is_mine(g)) {
        /* resigning: the leader znode and the registration go in one multi
           (do_unregister checks the leader znode's version), one round trip
           less before the next leader can take over */
        g->role = ROLE_DELETING;
        do_unregister(g);
        return;
    }
    leader_delete(g);
}

static void
start_stepdown(struct zkelect_group *g, const char *why)
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
        stepdown_result(g, epoch);
}

static void
on_leader_create_reply(struct zkelect_group *g, struct zev *ev)
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
        publish_leader(g);
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
        read_elected(g);
        return;
    }
    if (ev->rc == ZNODEEXISTS) {
        g->role = ROLE_WAITING; /* the old leader still holds it: wait for its deletion */
        read_leader(g);
        return;
    }
    g->role = ROLE_MEMBER;
    zke_event(g->h, g, ZKELECT_EV_ERROR, g->self.id, ev->req->token, zkerr_from_zk(ev->rc),
              "cannot create %s: %s", g->p_leader, zerror(ev->rc));
}

static void
on_leader_ready_reply(struct zkelect_group *g, struct zev *ev)
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
        publish_leader(g);
        return;
    }
    if (g->repairing) {
        g->repairing = false;
        if (zkerr_outcome_unknown(ev->rc)) {
            g->role = ROLE_SUSPENDED;
            return;
        }
        g->role = ROLE_READY;
        read_elected(g);
        read_leader(g);
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
    read_elected(g);
    read_leader(g);
}

static void
on_leader_delete_reply(struct zkelect_group *g, struct zev *ev)
{
    if (g->role != ROLE_DELETING)
        return;
    if (ev->rc == ZOK || ev->rc == ZNONODE) {
        g->role = g->reg == REG_DONE || g->reg == REG_LEAVING ? ROLE_MEMBER : ROLE_NONE;
        g->leader_version = -1;
        g->leader_owner = 0;
        if (g->leaving)
            do_unregister(g);
        else if (g->rereg_pending)
            reregister(g);
        else
            cand_step(g);
        return;
    }
    if (ev->rc == ZBADVERSION) {
        read_leader(g); /* changed under us: re-read, then delete again */
        g->role = ROLE_STEPPING_DOWN;
        return;
    }
    /* connection trouble: the session's end or the reconnect settles it */
    g->role = ROLE_SUSPENDED;
}

static void
cand_step(struct zkelect_group *g)
{
    bool named, mine;

    if (g->reg != REG_DONE || !connected(g) || !g->elected_read || !g->leader_read ||
        g->my_czxid == 0)
        return;
    /* a decision written before our election znode existed named a former
       session of ours: never act on it (the elector decides again) */
    named = g->have_elected && strcmp(g->elected.leader, g->self.id) == 0 &&
            (*g->elected.leader_znode ? strcmp(g->elected.leader_znode, g->my_znode) == 0
                                      : g->elected_mzxid > g->my_czxid);
    mine = leader_is_mine(g);

    if (g->leaving) {
        if (g->role == ROLE_READY || g->role == ROLE_PROGRESS || g->role == ROLE_SUSPENDED ||
            (g->role == ROLE_MEMBER && mine))
            start_stepdown(g, "resigning");
        else if (g->role == ROLE_MEMBER || g->role == ROLE_WAITING || g->role == ROLE_NONE)
            do_unregister(g);
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
            start_stepdown(g, "leadership lost while disconnected");
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
            read_elected(g);
            return;
        }
        if (!g->have_elected) {
            /* `elected` is missing or unreadable: no other node can take our
               leader znode meanwhile, so hold on until the elector restores
               or replaces the decision */
            return;
        }
        if (!named || g->elected.epoch != g->role_epoch) {
            start_stepdown(g, named ? "re-elected at a new epoch" : "elected names another node");
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

/* ---- view changes, watchdog ---------------------------------------------- */

static void watchdog_exclude(struct zkelect_group *g, uint64_t now, const char *reason,
                             const char *why);

static void
view_changed(struct zkelect_group *g)
{
    publish_leader(g);
    cand_step(g);
    if (g->is_elector) {
        bool elected_znode = g->have_leader && g->have_elected &&
                             strcmp(g->leader.id, g->elected.leader) == 0 &&
                             g->leader.epoch == g->elected.epoch;
        if (g->watchdog_ms_deadline && elected_znode && g->leader.status == ZKE_STATUS_READY)
            g->watchdog_ms_deadline = 0;
        /* a decision naming a leader that is not READY always has a watchdog,
           also one whose write outcome was unknown, or read after a reconnect */
        if (!g->watchdog_ms_deadline && g->have_elected && *g->elected.leader &&
            g->watchdog_epoch != g->elected.epoch && g->elected_read && g->leader_read &&
            !(elected_znode && g->leader.status == ZKE_STATUS_READY)) {
            g->watchdog_ms_deadline = zke_now_ms() + (uint64_t)effective_watchdog_ms(g);
            group_timer_changed(g);
            g->watchdog_epoch = g->elected.epoch;
            g->watchdog_fenced = false;
        }
        if (elected_znode && g->leader.status == ZKE_STATUS_PROGRESS)
            g->progress_seen_epoch = g->elected.epoch;
        /* the elected node's PROGRESS znode vanished while the node is still
           a member: its takeover failed (it gave the epoch up). Do not wait
           for the watchdog. */
        if (g->watchdog_ms_deadline && g->leader_read && g->leader_version < 0 &&
            g->have_elected && g->progress_seen_epoch == g->elected.epoch &&
            elected_present(g)) {
            g->progress_seen_epoch = 0;
            watchdog_exclude(g, zke_now_ms(), "takeover-failed",
                             "gave up its takeover (its PROGRESS leader znode vanished)");
            return;
        }
        elector_eval(g);
    }
}

/* Exclude the elected node and elect again (watchdog, or a takeover seen to fail). */
static void
watchdog_exclude(struct zkelect_group *g, uint64_t now, const char *reason, const char *why)
{
    g->watchdog_ms_deadline = 0;
    g->n_watchdog++;
    exclusion_add(g, g->elected.leader, reason, now + (uint64_t)effective_exclude_ms(g));
    zke_event(g->h, g, ZKELECT_EV_WATCHDOG, g->elected.leader, g->elected.epoch, 0,
              "%s %s; excluded for %d ms, electing again", g->elected.leader, why,
              effective_exclude_ms(g));
    g->reasons |= ZKELECT_REASON_WATCHDOG;
    elector_eval(g);
}

uint64_t
group_next_deadline(struct zkelect_group *g)
{
    uint64_t d = 0;
    struct exclusion *x;

    if (!g->is_elector || g->closed)
        return 0;
    if (g->watchdog_ms_deadline)
        d = g->watchdog_ms_deadline;
    for (x = g->exclusions; x; x = x->next)
        if (d == 0 || x->until_ms < d)
            d = x->until_ms;
    return d;
}

void
group_on_timer(struct zkelect_group *g, uint64_t now)
{
    if (!g->is_elector || !connected(g))
        return;
    if (g->watchdog_ms_deadline && now >= g->watchdog_ms_deadline) {
        g->watchdog_ms_deadline = 0;
        if (!g->have_elected || g->elected.epoch != g->watchdog_epoch || !*g->elected.leader)
            return;
        if (g->have_leader && g->leader.epoch == g->elected.epoch &&
            strcmp(g->leader.id, g->elected.leader) == 0 && g->leader.status == ZKE_STATUS_READY)
            return;
        if (g->leader_version >= 0 && (!g->have_leader || g->leader.epoch < g->elected.epoch) &&
            !g->watchdog_fenced) {
            /* the old leader has not released its znode: fence it, give the
               elected node one more period */
            struct req *r = req_new(g->h, g, REQ_LEADER_FENCE);
            g->watchdog_fenced = true;
            g->watchdog_ms_deadline = now + (uint64_t)effective_watchdog_ms(g);
            group_timer_changed(g);
            zke_event(g->h, g, ZKELECT_EV_LEADER_FENCED, g->have_leader ? g->leader.id : NULL,
                      g->have_leader ? g->leader.epoch : 0, 0,
                      "old leader znode not released within %d ms; deleting it (epoch %llu now leads)",
                      effective_watchdog_ms(g), (unsigned long long)g->elected.epoch);
            if (r)
                req_sent(r, zoo_adelete(g->h->zh, g->p_leader, g->leader_version, void_completion, r));
            return;
        }
        watchdog_exclude(g, now, "watchdog", "not READY within the watchdog period");
        return;
    }
    elector_eval(g); /* exclusions that ended */
}

/* ---- session events ------------------------------------------------------- */

static bool
role_leading(enum role r)
{
    return r == ROLE_CREATING || r == ROLE_PROGRESS || r == ROLE_READYING || r == ROLE_READY ||
           r == ROLE_STEPPING_DOWN || r == ROLE_DELETING;
}

void
group_resync(struct zkelect_group *g)
{
    if (!connected(g) || g->closed)
        return;
    g->elected_read = g->leader_read = false;
    read_elected(g);
    read_leader(g);
    if (g->reg == REG_PENDING || g->reg == REG_NONE) {
        if (g->reg == REG_PENDING)
            do_register(g);
    } else if (g->reg == REG_UNKNOWN) {
        struct req *r = req_new(g->h, g, REQ_FIND_MINE);
        g->reg = REG_PENDING;
        if (r)
            req_sent(r, zoo_aget_children2(g->h->zh, g->p_election, 0, strings_completion, r));
    } else if (g->reg == REG_DONE) {
        if (g->is_elector) {
            /* same session: keep exclusions and timers, re-read everything */
            g->election_read = g->config_read = g->switchover_read = g->history_read = false;
            list_election(g, true);
            send_get(g, REQ_GET_CONFIG, g->p_config, NULL);
            send_get(g, REQ_GET_SWITCHOVER, g->p_switchover, NULL);
            struct req *r = req_new(g->h, g, REQ_GET_HISTORY);
            if (r)
                req_sent(r, zoo_aget(g->h->zh, g->p_history, 0, data_completion, r));
        } else {
            list_election(g, false);
        }
        if (g->recheck_mine) {
            char path[ZKE_PATH_MAX];
            g->recheck_mine = false;
            snprintf(path, sizeof(path), "%s/%s", g->p_election, g->my_znode);
            send_exists(g, REQ_WATCH_MINE, path, "our election znode was deleted");
            snprintf(path, sizeof(path), "%s/%s", g->p_nodes, g->self.id);
            send_exists(g, REQ_WATCH_MINE, path, "our member record was deleted");
        }
        if (g->member_dirty) {
            g->member_dirty = false;
            zkelect_set_priority(g, g->self.priority); /* rewrites the record */
        }
    } else if (g->reg == REG_LEAVING) {
        do_unregister(g);
    }
}

void
group_on_session(struct zkelect_group *g, enum sess_state prev, enum sess_state now)
{
    (void)prev;
    if (g->closed)
        return;
    if (now == SESS_CONNECTING || now == SESS_AUTH_FAILED) {
        if (role_leading(g->role)) {
            g->role = ROLE_SUSPENDED;
            zke_event(g->h, g, ZKELECT_EV_SUSPENDED, g->self.id, g->role_epoch, 0,
                      "connection lost: leadership suspended until verified");
        }
        return;
    }
    if (now == SESS_EXPIRED) {
        if (role_leading(g->role) || g->role == ROLE_SUSPENDED)
            zke_event(g->h, g, ZKELECT_EV_LOST, g->self.id, g->role_epoch, ZKELECT_EEXPIRED,
                      "session expired: leadership lost");
        if (g->is_elector)
            elector_stop(g, "session expired");
        g->role = g->reg != REG_NONE ? ROLE_MEMBER : ROLE_NONE;
        if (g->reg == REG_LEAVING)
            g->reg = REG_NONE; /* the expiry removed our znodes */
        else if (g->reg != REG_NONE)
            g->reg = REG_PENDING; /* register again on the new session */
        g->my_znode[0] = '\0';
        g->rereg_pending = false; /* the new session registers anyway */
        g->recheck_mine = false;
        g->leader_version = g->elected_version = -1;
        g->have_leader = g->have_elected = false;
        g->leader_read = g->elected_read = false;
        new_guid(g->guid);
        if (g->leaving && g->reg == REG_NONE)
            unregistered(g);
        return;
    }
    if (now == SESS_CONNECTED)
        group_resync(g);
}

/* ---- dispatch --------------------------------------------------------------- */

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
    return (g->role == ROLE_READY || g->role == ROLE_PROGRESS) && connected(g);
}

void
group_on_watch(struct zkelect_group *g, int type, const char *path)
{
    size_t ne = strlen(g->p_election), nn = strlen(g->p_nodes);

    if (g->reg == REG_DONE && !g->leaving) {
        char mine[ZKE_PATH_MAX], rec[ZKE_PATH_MAX];
        snprintf(mine, sizeof(mine), "%s/%s", g->p_election, g->my_znode);
        snprintf(rec, sizeof(rec), "%s/%s", g->p_nodes, g->self.id);
        if (strcmp(path, mine) == 0) {
            if (type == ZOO_DELETED_EVENT && !mine_check_first(g))
                registration_lost(g, "our election znode was deleted");
            else if (type == ZOO_DELETED_EVENT)
                send_exists(g, REQ_WATCH_MINE, mine, "our election znode was deleted");
            else
                send_exists(g, REQ_WATCH_MINE, mine, NULL);
            return;
        }
        if (strcmp(path, rec) == 0) {
            if (type == ZOO_DELETED_EVENT && !mine_check_first(g)) {
                registration_lost(g, "our member record was deleted");
            } else if (type == ZOO_DELETED_EVENT) {
                send_exists(g, REQ_WATCH_MINE, rec, "our member record was deleted");
            } else {
                /* changed, by us or by someone else: read it (re-arming
                   the watch) and repair it if it is not what we wrote */
                send_get(g, REQ_READ_SELF, rec, NULL);
                if (g->is_elector && member_find(g, g->self.id))
                    read_member(g, g->self.id);
            }
            return;
        }
    }

    if (strcmp(path, g->p_elected) == 0) {
        read_elected(g);
    } else if (strcmp(path, g->p_leader) == 0) {
        if (type == ZOO_DELETED_EVENT) {
            /* gone: no need to read it; re-arm with an exists-watch and act
               at once (a candidate waiting for it creates its own now) */
            g->have_leader = false;
            g->leader_version = -1;
            g->leader_owner = 0;
            memset(&g->leader, 0, sizeof(g->leader));
            g->leader_read = true;
            send_exists(g, REQ_EXISTS_LEADER, g->p_leader, NULL);
            view_changed(g);
        } else {
            read_leader(g);
        }
    } else if (strcmp(path, g->p_election) == 0) {
        if (type == ZOO_CHILD_EVENT && g->is_elector)
            list_election(g, true);
    } else if (strncmp(path, g->p_election, ne) == 0 && path[ne] == '/') {
        if (strcmp(path, g->pred) == 0 && type == ZOO_DELETED_EVENT)
            list_election(g, false);
    } else if (strncmp(path, g->p_nodes, nn) == 0 && path[nn] == '/') {
        struct member_cache *m = g->is_elector ? member_find(g, path + nn + 1) : NULL;

        if (m && type == ZOO_DELETED_EVENT) {
            /* as a re-read would answer (ZNONODE, no watch left): not a member */
            m->loaded = true;
            m->valid = false;
            elector_eval(g);
        } else if (m) {
            read_member(g, path + nn + 1);
        }
    } else if (strcmp(path, g->p_config) == 0) {
        if (g->is_elector)
            send_get(g, REQ_GET_CONFIG, g->p_config, NULL);
    } else if (strcmp(path, g->p_switchover) == 0) {
        if (g->is_elector)
            send_get(g, REQ_GET_SWITCHOVER, g->p_switchover, NULL);
    }
}

void
group_on_reply(struct zkelect_group *g, struct zev *ev)
{
    switch (ev->req->kind) {
    case REQ_GET_ELECTED:
    case REQ_EXISTS_ELECTED:    on_elected_reply(g, ev); break;
    case REQ_GET_LEADER:
    case REQ_EXISTS_LEADER:     on_leader_reply(g, ev); break;
    case REQ_ENSURE_PATH:
        if (ev->rc != ZOK && ev->rc != ZNODEEXISTS && !zkerr_outcome_unknown(ev->rc))
            zke_log(g->h, ZKELECT_LOG_WARNING, "%s: cannot create a parent znode: %s", g->path,
                    zerror(ev->rc));
        break;
    case REQ_REGISTER:          on_register_reply(g, ev); break;
    case REQ_CHECK_ID:          on_check_id_reply(g, ev); break;
    case REQ_FIND_MINE:         on_find_mine_reply(g, ev); break;
    case REQ_LIST_ELECTION:     on_list_reply(g, ev); break;
    case REQ_EXISTS_PRED:       on_pred_reply(g, ev); break;
    case REQ_GET_MEMBER:        on_member_reply(g, ev); break;
    case REQ_GET_CONFIG:
    case REQ_EXISTS_CONFIG:     on_config_reply(g, ev); break;
    case REQ_GET_SWITCHOVER:
    case REQ_EXISTS_SWITCHOVER: on_switchover_reply(g, ev); break;
    case REQ_GET_HISTORY:       on_history_reply(g, ev); break;
    case REQ_DECIDE:            on_decide_reply(g, ev); break;
    case REQ_LEADER_CREATE:     on_leader_create_reply(g, ev); break;
    case REQ_LEADER_READY:      on_leader_ready_reply(g, ev); break;
    case REQ_LEADER_DELETE:     on_leader_delete_reply(g, ev); break;
    case REQ_LEADER_FENCE:
        if (ev->rc != ZOK && ev->rc != ZNONODE)
            zke_log(g->h, ZKELECT_LOG_WARNING, "%s: fencing the old leader znode failed: %s",
                    g->path, zerror(ev->rc));
        break;
    case REQ_UPDATE_MEMBER:
        if (ev->rc != ZOK)
            g->member_dirty = true;
        break;
    case REQ_UNREGISTER:        on_unregister_reply(g, ev); break;
    case REQ_GET_LEADER_INFO:   on_leader_info(g, ev); break;
    case REQ_STAT_MINE:         on_stat_mine_reply(g, ev); break;
    case REQ_CREATE_ELECTION:   on_create_election_reply(g, ev); break;
    case REQ_READ_SELF:
        if (ev->rc == ZOK && g->reg == REG_DONE && !g->leaving) {
            char *mine = NULL;
            size_t len = 0;
            self_payload(g, &mine, &len);
            if (mine && (ev->datalen != (int)len || memcmp(ev->data, mine, len) != 0)) {
                read_self_changed(g, ev);
                write_self(g);
            }
            free(mine);
        } else if (ev->rc == ZNONODE && g->reg == REG_DONE && !g->leaving) {
            registration_lost(g, "our member record was deleted");
        }
        break;
    case REQ_WATCH_MINE:
        if (ev->rc == ZNONODE && g->reg == REG_DONE && !g->leaving)
            registration_lost(g, *ev->req->arg ? ev->req->arg : "one of our znodes is missing");
        else if (zkerr_outcome_unknown(ev->rc) && *ev->req->arg && g->reg == REG_DONE)
            g->recheck_mine = true; /* the same session may come back: check again then */
        break;
    case REQ_NUDGE:             break;
    }
}

/* ---- lifetime ------------------------------------------------------------------ */

void
group_free(struct zkelect_group *g)
{
    struct sub *s, *sn;
    size_t i;

    members_clear(g);
    exclusions_clear(g);
    zke_policy_unload(g->policy);
    for (s = g->subs; s; s = sn) {
        sn = s->next;
        free(s);
    }
    for (i = 0; i < g->nopt_kv; i++)
        free(g->opt_kv[i]);
    free(g->opt_kv);
    free(g->policy_name);
    free(g->policy_path);
    free(g->history_buf);
    free(g->config);
    free(g);
}

void
group_release(struct zkelect_group *g)
{
    if (--g->refs == 0 && g->closed)
        group_free(g);
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
    g->reg_err = 1; /* pending */
    g->failed_epoch = 0;
    g->leaving = false;
    new_guid(g->guid);
    snprintf(g->self.guid, sizeof(g->self.guid), "%s", g->guid);
    g->reg = REG_PENDING;
    if (connected(g))
        do_register(g);
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
    if (!connected(g))
        return; /* finished on reconnect, or by the session's end */
    if (g->reg == REG_DONE) {
        if (g->role == ROLE_READY || g->role == ROLE_PROGRESS || g->role == ROLE_SUSPENDED) {
            start_stepdown(g, "resigning");
        } else if (g->role == ROLE_MEMBER || g->role == ROLE_WAITING || g->role == ROLE_NONE) {
            do_unregister(g);
        }
        /* other roles: their reply continues with g->leaving set */
    } else if (g->reg == REG_PENDING || g->reg == REG_UNKNOWN) {
        /* not registered yet: registration replies see leaving and undo it */
        g->reg = REG_NONE;
        g->leaving = false;
        nominate_finish(g, ZKELECT_ECANCELED);
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
    int what;   /* 0 priority, 1 eligible, 2 healthy, 3 tags */
    int value;
    char tags[ZKE_TAGS_MAX][ZKE_NAME_MAX + 1]; /* what == 3 */
};

static void
call_member(struct zkelect *h, void *arg)
{
    struct call_member *c = arg;
    struct zkelect_group *g = c->g;
    struct req *r;
    size_t len;
    char path[ZKE_PATH_MAX];

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
    }
    free(c);
    if (g->reg != REG_DONE || !connected(g)) {
        g->member_dirty = g->reg != REG_NONE;
        return;
    }
    r = req_new(g->h, g, REQ_UPDATE_MEMBER);
    if (r == NULL)
        return;
    self_payload(g, &r->payload[0], &len);
    if (r->payload[0] == NULL) {
        req_sent(r, ZMARSHALLINGERROR);
        return;
    }
    snprintf(path, sizeof(path), "%s/%s", g->p_nodes, g->self.id);
    req_sent(r, zoo_aset(g->h->zh, path, r->payload[0], (int)len, -1, stat_completion, r));
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
        stepdown_result(c->g, c->epoch);
    else
        takeover_result(c->g, c->epoch, c->err == ZKELECT_EBUSY ? ZKELECT_EINVAL : c->err);
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
