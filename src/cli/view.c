/*
 * view.c - a snapshot of a group: members (nodes/<id> records merged with
 * election/<id>_<guid>_<seq>), elected, leader, config and switchover, each
 * decoded with the codec. Malformed data is recorded (which znode, the
 * codec's message), never fatal: the caller prints it and decides.
 *
 * With N > 1 leaders (config "leaders", issue 17) the leader znodes of
 * slots 1..N-1 ("leader-<k>", siblings of "leader") are read too; with
 * N = 1 nothing more is read than before slots existed.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zkelect/policy.h"
#include "cli.h"

static void
view_problem(struct cli_view *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
view_problem(struct cli_view *v, const char *fmt, ...)
{
    va_list ap;

    if (v->nerrs >= CLI_ERR_MAX)
        return;
    va_start(ap, fmt);
    vsnprintf(v->errs[v->nerrs++], sizeof(v->errs[0]), fmt, ap);
    va_end(ap);
}

static int
member_cmp(const void *a, const void *b)
{
    return zkelect_id_compare(((const struct cli_member *)a)->id,
                              ((const struct cli_member *)b)->id);
}

static struct cli_member *
member_add(struct cli_view *v, const char *id, int *cap)
{
    struct cli_member *m;
    int i;

    for (i = 0; i < v->nmembers; i++)
        if (strcmp(v->members[i].id, id) == 0)
            return &v->members[i];
    if (v->nmembers == *cap) {
        int ncap = *cap ? *cap * 2 : 16;
        m = realloc(v->members, (size_t)ncap * sizeof(*m));
        if (m == NULL)
            return NULL;
        v->members = m;
        *cap = ncap;
    }
    m = &v->members[v->nmembers++];
    memset(m, 0, sizeof(*m));
    snprintf(m->id, sizeof(m->id), "%s", id);
    m->rec_version = -1;
    m->seq = -1;
    return m;
}

static bool
registration_better(const struct cli_member *m, const char *guid, int64_t seq)
{
    bool rec_guid = m->have_rec && *m->rec.guid;

    if (rec_guid && strcmp(m->rec.guid, m->guid) == 0)
        return false;
    if (rec_guid && strcmp(m->rec.guid, guid) == 0)
        return true;
    return seq < m->seq;
}

static int
load_members(struct cli *c, struct cli_view *v, bool watch, char *fp, size_t fplen)
{
    struct String_vector nodes, elec;
    char path[CLI_PATH_MAX], err[256], esc[128], id[ZKE_ID_MAX + 1], guid[ZKE_GUID_LEN + 1];
    struct cli_member *m;
    struct Stat st;
    char *buf;
    int rc, i, len, cap = 0;
    int64_t seq;

    rc = cli_children(c, c->p_nodes, watch, &nodes);
    if (rc == ZNONODE)
        memset(&nodes, 0, sizeof(nodes));
    else if (rc != ZOK) {
        snprintf(fp, fplen, "%s", c->p_nodes);
        return rc;
    }
    rc = cli_children(c, c->p_election, watch, &elec);
    if (rc == ZNONODE)
        memset(&elec, 0, sizeof(elec));
    else if (rc != ZOK) {
        deallocate_String_vector(&nodes);
        snprintf(fp, fplen, "%s", c->p_election);
        return rc;
    }
    rc = ZOK;
    for (i = 0; i < nodes.count; i++) {
        if (!zke_id_valid(nodes.data[i])) {
            cli_escape(nodes.data[i], esc, sizeof(esc));
            view_problem(v, "znode %s/%s: not a valid node id", c->p_nodes, esc);
            continue;
        }
        if ((m = member_add(v, nodes.data[i], &cap)) == NULL) {
            rc = ZSYSTEMERROR;
            goto out;
        }
        snprintf(path, sizeof(path), "%s/%s", c->p_nodes, nodes.data[i]);
        rc = cli_get(c, path, watch, &buf, &len, &st);
        if (rc == ZNONODE) {
            rc = ZOK;      /* left meanwhile */
            continue;
        }
        if (rc != ZOK) {
            snprintf(fp, fplen, "%s", path);
            goto out;
        }
        m->rec_version = st.version;
        if (zke_member_decode(buf, len, &m->rec, err, sizeof(err)) != 0) {
            m->bad_rec = true;
            view_problem(v, "znode %s: %s", path, err);
        } else if (strcmp(m->rec.id, m->id) != 0) {
            m->bad_rec = true;
            view_problem(v, "znode %s: the member record names node \"%s\"", path, m->rec.id);
        } else {
            m->have_rec = true;
        }
        free(buf);
    }
    v->elector_seq = -1;
    for (i = 0; i < elec.count; i++) {
        if (zke_child_parse(elec.data[i], id, sizeof(id), guid, &seq) != 0) {
            cli_escape(elec.data[i], esc, sizeof(esc));
            view_problem(v, "znode %s/%s: not an <id>_<guid>_<sequence> name", c->p_election, esc);
            continue;
        }
        if ((m = member_add(v, id, &cap)) == NULL) {
            rc = ZSYSTEMERROR;
            goto out;
        }
        /* an id may briefly have two registrations: prefer the one whose
         * guid the record names, else the lowest sequence */
        if (m->seq < 0 || registration_better(m, guid, seq)) {
            m->seq = seq;
            snprintf(m->znode, sizeof(m->znode), "%s", elec.data[i]);
            snprintf(m->guid, sizeof(m->guid), "%s", guid);
        }
        if (v->elector_seq < 0 || seq < v->elector_seq) {
            v->elector_seq = seq;
            snprintf(v->elector, sizeof(v->elector), "%s", id);
        }
    }
    if (v->nmembers > 1)
        qsort(v->members, (size_t)v->nmembers, sizeof(v->members[0]), member_cmp);
out:
    deallocate_String_vector(&nodes);
    deallocate_String_vector(&elec);
    return rc;
}

/* Read one znode and decode it: 0 absent, 1 valid, 2 malformed (recorded);
 * -1 when the read failed (its ZooKeeper rc in *zrc). */
static int
load_one(struct cli *c, struct cli_view *v, const char *path, bool watch,
         int (*decode)(const char *, int, void *, char *, size_t), void *out,
         int32_t *version, int *zrc)
{
    struct Stat st;
    char *buf, err[256];
    int rc, len;

    *version = -1;
    rc = cli_get(c, path, watch, &buf, &len, &st);
    if (rc == ZNONODE)
        return 0;
    if (rc != ZOK) {
        *zrc = rc;
        return -1;
    }
    *version = st.version;
    rc = decode(buf, len, out, err, sizeof(err));
    free(buf);
    if (rc != 0) {
        view_problem(v, "znode %s: %s", path, err);
        return 2;
    }
    return 1;
}

/* Typed wrappers: the codec's decoders take their own struct pointer types. */
static int
dec_elected(const char *b, int l, void *o, char *e, size_t n)
{
    return zke_elected_decode(b, l, o, e, n);
}

static int
dec_successor(const char *b, int l, void *o, char *e, size_t n)
{
    return zke_successor_decode(b, l, o, e, n);
}

static int
dec_leader(const char *b, int l, void *o, char *e, size_t n)
{
    return zke_leader_decode(b, l, o, e, n);
}

static int
dec_config(const char *b, int l, void *o, char *e, size_t n)
{
    return zke_config_decode(b, l, o, e, n);
}

static int
dec_switchover(const char *b, int l, void *o, char *e, size_t n)
{
    return zke_switchover_decode(b, l, o, e, n);
}

/* Read the leader znodes of slots 1..v->leaders-1 (v->leaders known). */
static int
load_slots(struct cli *c, struct cli_view *v, bool watch, char *fp, size_t fplen)
{
    struct cli_slot *sl;
    char path[CLI_PATH_MAX];
    int k, r, rc = ZOK;

    for (k = 1; k < v->leaders; k++) {
        sl = &v->slot[k];
        snprintf(path, sizeof(path), "%s-%d", c->p_leader, k);
        r = load_one(c, v, path, watch, dec_leader, &sl->leader, &sl->version, &rc);
        if (r < 0) {
            snprintf(fp, fplen, "%s", path);
            return rc;
        }
        if (r == 1 && sl->leader.slot != k) {
            /* leader-<k> must say it is slot k: else two znodes could claim one slot */
            view_problem(v, "znode %s: the leader znode of slot %d names slot %d", path, k,
                         sl->leader.slot);
            r = 2;
        }
        sl->have = r == 1;
    }
    return ZOK;
}

int
view_load(struct cli *c, struct cli_view *v, unsigned what, bool watch, char *fp, size_t fplen)
{
    int rc = ZOK, r;

    memset(v, 0, sizeof(*v));
    v->elector_seq = -1;
    v->elected_version = v->leader_version = v->config_version = v->switchover_version = -1;
    v->successor_version = -1;
    fp[0] = '\0';
    if (what & VIEW_MEMBERS) {
        rc = load_members(c, v, watch, fp, fplen);
        if (rc != ZOK)
            return rc;
    }
    if (what & VIEW_ELECTED) {
        r = load_one(c, v, c->p_elected, watch, dec_elected, &v->elected, &v->elected_version, &rc);
        if (r < 0)
            goto fail_elected;
        v->have_elected = r == 1;
    }
    if (what & VIEW_LEADER) {
        r = load_one(c, v, c->p_leader, watch, dec_leader, &v->leader, &v->leader_version, &rc);
        if (r < 0)
            goto fail_leader;
        v->have_leader = r == 1;
    }
    if (what & VIEW_CONFIG) {
        r = load_one(c, v, c->p_config, watch, dec_config, &v->config, &v->config_version, &rc);
        if (r < 0)
            goto fail_config;
        v->have_config = r == 1;
        v->bad_config = r == 2;
    }
    if (what & VIEW_SWITCHOVER) {
        r = load_one(c, v, c->p_switchover, watch, dec_switchover, &v->switchover,
                     &v->switchover_version, &rc);
        if (r < 0)
            goto fail_switchover;
        v->have_switchover = r == 1;
        v->bad_switchover = r == 2;
    }
    if (what & VIEW_SUCCESSOR) {
        r = load_one(c, v, c->p_successor, watch, dec_successor, &v->successor,
                     &v->successor_version, &rc);
        if (r < 0) {
            snprintf(fp, fplen, "%s", c->p_successor);
            return rc;
        }
        v->have_successor = r == 1;
    }
    v->leaders = 1;
    if (v->have_config)
        v->leaders = (int)v->config.leaders;
    else if (v->have_elected)
        v->leaders = v->elected.nslots + 1;
    if (v->leaders < 1 || v->leaders > ZKE_LEADERS_MAX)
        v->leaders = 1;     /* not reached: the codec checks both */
    v->slot[0].have = v->have_leader;
    v->slot[0].version = v->leader_version;
    v->slot[0].leader = v->leader;
    if ((what & VIEW_LEADER) && v->leaders > 1)
        return load_slots(c, v, watch, fp, fplen);
    return ZOK;
fail_elected:
    snprintf(fp, fplen, "%s", c->p_elected);
    return rc;
fail_leader:
    snprintf(fp, fplen, "%s", c->p_leader);
    return rc;
fail_config:
    snprintf(fp, fplen, "%s", c->p_config);
    return rc;
fail_switchover:
    snprintf(fp, fplen, "%s", c->p_switchover);
    return rc;
}

void
view_free(struct cli_view *v)
{
    free(v->members);
    v->members = NULL;
    v->nmembers = 0;
}

int
view_print_errors(const struct cli_view *v)
{
    int i;

    for (i = 0; i < v->nerrs; i++)
        cli_err("malformed data: %s", v->errs[i]);
    return v->nerrs;
}

const struct cli_member *
view_member(const struct cli_view *v, const char *id)
{
    int i;

    for (i = 0; i < v->nmembers; i++)
        if (strcmp(v->members[i].id, id) == 0)
            return &v->members[i];
    return NULL;
}

const char *
view_role(const struct cli_view *v, const struct cli_member *m)
{
    int k;

    if (v->have_leader && strcmp(v->leader.id, m->id) == 0)
        return "leader";
    for (k = 1; k < v->leaders; k++)    /* the leader of another slot */
        if (v->slot[k].have && strcmp(v->slot[k].leader.id, m->id) == 0)
            return "leader";
    if (*v->elector && strcmp(v->elector, m->id) == 0)
        return "elector";
    return "member";
}

const struct zke_exclusion *
view_excluded(const struct cli_view *v, const char *id)
{
    int i;

    if (!v->have_elected)
        return NULL;
    for (i = 0; i < v->elected.nexcluded; i++)
        if (strcmp(v->elected.excluded[i].id, id) == 0)
            return &v->elected.excluded[i];
    return NULL;
}

const struct zke_drain *
view_drain(const struct cli_view *v, const char *id, int64_t now_ms, bool *active)
{
    int i;

    *active = false;
    if (!v->have_config)
        return NULL;
    for (i = 0; i < v->config.ndrains; i++)
        if (strcmp(v->config.drains[i].id, id) == 0) {
            *active = v->config.drains[i].until_ms > now_ms;
            return &v->config.drains[i];
        }
    return NULL;
}

bool
view_can_lead(const struct cli_view *v, const struct cli_member *m)
{
    bool drained;

    view_drain(v, m->id, cli_wall_ms(), &drained);
    return m->have_rec && m->seq >= 0 && m->rec.eligible && m->rec.healthy &&
           view_excluded(v, m->id) == NULL && !drained;
}

int32_t
view_site_priority(const struct cli_view *v, const char *site, bool *listed)
{
    int i;

    *listed = false;
    if (!v->have_config)
        return 0;
    for (i = 0; i < v->config.nsites; i++)
        if (strcmp(v->config.sites[i].site, site) == 0) {
            *listed = true;
            return v->config.sites[i].priority;
        }
    return 0;
}

void
view_slot_decision(const struct cli_view *v, int k, const char **id, uint64_t *epoch)
{
    *id = "";
    *epoch = 0;
    if (!v->have_elected || k < 0)
        return;
    if (k == 0) {
        *id = v->elected.leader;
        *epoch = v->elected.epoch;
    } else if (k - 1 < v->elected.nslots) {
        *id = v->elected.slots[k - 1].leader;
        *epoch = v->elected.slots[k - 1].epoch;
    }
}

int
view_slot_of(const struct cli_view *v, const char *id)
{
    int k;

    if (!v->have_elected || *id == '\0')
        return -1;
    if (strcmp(v->elected.leader, id) == 0)
        return 0;
    for (k = 0; k < v->elected.nslots; k++)
        if (strcmp(v->elected.slots[k].leader, id) == 0)
            return k + 1;
    return -1;
}

int
view_slots_ready(const struct cli_view *v)
{
    int k, n = 0;

    for (k = 0; k < v->leaders; k++)
        if (v->slot[k].have && v->slot[k].leader.status == ZKELECT_STATUS_READY)
            n++;
    return n;
}
