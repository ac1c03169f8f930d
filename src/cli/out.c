/*
 * out.c - output and waiting shared by several commands: the leader as
 * `zkelect leader` prints it, and the watch-driven wait for a decision and
 * the READY leader it names (set-site-priority, switchover, pause/resume
 * --wait).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "cli.h"

static const char *
leader_site(const struct cli_view *v)
{
    const struct cli_member *m = view_member(v, v->leader.id);

    if (m && m->have_rec)
        return m->rec.site;
    if (v->have_elected && strcmp(v->elected.leader, v->leader.id) == 0)
        return v->elected.leader_site;
    return "";
}

/* The decision differs from the leader znode: another node (or epoch) is elected. */
static bool
in_transition(const struct cli_view *v)
{
    if (!v->have_elected)
        return false;
    if (!v->have_leader)
        return *v->elected.leader != '\0';
    return strcmp(v->elected.leader, v->leader.id) != 0 || v->elected.epoch != v->leader.epoch;
}

int
out_leader_code(const struct cli_view *v)
{
    int k, ready;

    if (v->leaders > 1) {
        ready = view_slots_ready(v);
        if (ready == v->leaders)
            return CLI_OK;
        if (ready > 0)
            return CLI_EPARTIAL;
        for (k = 0; k < v->leaders; k++)
            if (v->slot[k].have)
                return CLI_EPROGRESS;
        return CLI_ENOLEADER;
    }
    if (!v->have_leader)
        return CLI_ENOLEADER;
    return v->leader.status == ZKELECT_STATUS_READY ? CLI_OK : CLI_EPROGRESS;
}

/* The site of slot k's leader: its member record, else the decision's. */
static const char *
slot_site(const struct cli_view *v, int k)
{
    const struct zke_leader *l = &v->slot[k].leader;
    const struct cli_member *m = view_member(v, l->id);

    if (k == 0)
        return leader_site(v);
    if (m && m->have_rec)
        return m->rec.site;
    if (v->have_elected && k - 1 < v->elected.nslots &&
        strcmp(v->elected.slots[k - 1].leader, l->id) == 0)
        return v->elected.slots[k - 1].leader_site;
    return "";
}

/* Slot k's leader znode differs from the decision's slot k. */
static bool
slot_transition(const struct cli_view *v, int k)
{
    const char *id;
    uint64_t epoch;

    if (!v->have_elected)
        return false;
    view_slot_decision(v, k, &id, &epoch);
    if (!v->slot[k].have)
        return *id != '\0';
    return strcmp(id, v->slot[k].leader.id) != 0 || epoch != v->slot[k].leader.epoch;
}

struct cJSON *
out_slot_obj(const struct cli_view *v, int k)
{
    const struct cli_slot *sl = &v->slot[k];
    cJSON *o = cJSON_CreateObject(), *e;
    const char *id;
    uint64_t epoch;
    char when[64];

    if (o == NULL)
        return NULL;
    cJSON_AddNumberToObject(o, "slot", k);
    if (sl->have) {
        cJSON_AddStringToObject(o, "id", sl->leader.id);
        cJSON_AddStringToObject(o, "status", zkelect_status_name(sl->leader.status));
        cJSON_AddNumberToObject(o, "epoch", (double)sl->leader.epoch);
        if (*slot_site(v, k))
            cJSON_AddStringToObject(o, "site", slot_site(v, k));
        else
            cJSON_AddNullToObject(o, "site");
        cJSON_AddNumberToObject(o, "since_ms", (double)sl->leader.since_ms);
        cli_time_str(sl->leader.since_ms, when, sizeof(when));
        cJSON_AddStringToObject(o, "since", when);
    } else {
        cJSON_AddNullToObject(o, "id");
        cJSON_AddStringToObject(o, "status", "NONE");
        cJSON_AddNumberToObject(o, "epoch", 0);
        cJSON_AddNullToObject(o, "site");
    }
    if (v->have_elected) {
        if ((e = cJSON_AddObjectToObject(o, "elected")) == NULL) {
            cJSON_Delete(o);
            return NULL;
        }
        view_slot_decision(v, k, &id, &epoch);
        if (*id)
            cJSON_AddStringToObject(e, "id", id);
        else
            cJSON_AddNullToObject(e, "id");
        cJSON_AddNumberToObject(e, "epoch", (double)epoch);
    } else {
        cJSON_AddNullToObject(o, "elected");
    }
    cJSON_AddBoolToObject(o, "transition", slot_transition(v, k));
    return o;
}

struct cJSON *
out_slots_arr(const struct cli_view *v)
{
    cJSON *arr = cJSON_CreateArray(), *o;
    int k;

    if (arr == NULL)
        return NULL;
    for (k = 0; k < v->leaders; k++) {
        if ((o = out_slot_obj(v, k)) == NULL) {
            cJSON_Delete(arr);
            return NULL;
        }
        cJSON_AddItemToArray(arr, o);
    }
    return arr;
}

void
out_slot_text(const struct cli_view *v, int k, char *out, size_t outlen)
{
    const struct cli_slot *sl = &v->slot[k];
    const char *id;
    uint64_t epoch;
    char when[64];
    int n;

    view_slot_decision(v, k, &id, &epoch);
    if (sl->have) {
        cli_time_str(sl->leader.since_ms, when, sizeof(when));
        n = snprintf(out, outlen, "%s %s epoch %llu site %s since %s", sl->leader.id,
                     zkelect_status_name(sl->leader.status),
                     (unsigned long long)sl->leader.epoch,
                     *slot_site(v, k) ? slot_site(v, k) : "-", when);
    } else if (*id) {
        n = snprintf(out, outlen, "none (%s elected at epoch %llu is taking over)", id,
                     (unsigned long long)epoch);
    } else {
        n = snprintf(out, outlen, "none (%s)", sl->version >= 0 ? "leader znode malformed" :
                     "no node elected");
    }
    if (n < 0 || (size_t)n >= outlen || !sl->have || !slot_transition(v, k))
        return;
    if (*id)
        snprintf(out + n, outlen - (size_t)n, " - transition in progress: %s elected at "
                 "epoch %llu", id, (unsigned long long)epoch);
    else
        snprintf(out + n, outlen - (size_t)n, " - transition in progress: the slot is to "
                 "be released");
}

struct cJSON *
out_leader_obj(const struct cli_view *v)
{
    cJSON *o = cJSON_CreateObject(), *e;
    char when[64];

    if (o == NULL)
        return NULL;
    if (v->have_leader) {
        cJSON_AddStringToObject(o, "id", v->leader.id);
        cJSON_AddStringToObject(o, "status", zkelect_status_name(v->leader.status));
        cJSON_AddNumberToObject(o, "epoch", (double)v->leader.epoch);
        if (*leader_site(v))
            cJSON_AddStringToObject(o, "site", leader_site(v));
        else
            cJSON_AddNullToObject(o, "site");
        cJSON_AddNumberToObject(o, "since_ms", (double)v->leader.since_ms);
        cli_time_str(v->leader.since_ms, when, sizeof(when));
        cJSON_AddStringToObject(o, "since", when);
    } else {
        cJSON_AddNullToObject(o, "id");
        cJSON_AddStringToObject(o, "status", "NONE");
        cJSON_AddNumberToObject(o, "epoch", 0);
        cJSON_AddNullToObject(o, "site");
    }
    if (v->have_elected) {
        if ((e = cJSON_AddObjectToObject(o, "elected")) == NULL) {
            cJSON_Delete(o);
            return NULL;
        }
        if (*v->elected.leader)
            cJSON_AddStringToObject(e, "id", v->elected.leader);
        else
            cJSON_AddNullToObject(e, "id");
        cJSON_AddNumberToObject(e, "epoch", (double)v->elected.epoch);
        cJSON_AddStringToObject(e, "reason", v->elected.reason);
    } else {
        cJSON_AddNullToObject(o, "elected");
    }
    cJSON_AddBoolToObject(o, "transition", in_transition(v));
    return o;
}

struct cJSON *
out_member_obj(const struct cli_view *v, const struct cli_member *m)
{
    const struct zke_exclusion *x = view_excluded(v, m->id);
    cJSON *o = cJSON_CreateObject(), *tags;
    int i;

    if (o == NULL)
        return NULL;
    cJSON_AddStringToObject(o, "id", m->id);
    if (m->have_rec) {
        cJSON_AddStringToObject(o, "site", m->rec.site);
        cJSON_AddNumberToObject(o, "priority", m->rec.priority);
    } else {
        cJSON_AddNullToObject(o, "site");
        cJSON_AddNullToObject(o, "priority");
    }
    cJSON_AddStringToObject(o, "role", view_role(v, m));
    cJSON_AddBoolToObject(o, "elector", *v->elector && strcmp(v->elector, m->id) == 0);
    cJSON_AddBoolToObject(o, "eligible", m->have_rec && m->rec.eligible);
    cJSON_AddBoolToObject(o, "healthy", m->have_rec && m->rec.healthy);
    cJSON_AddBoolToObject(o, "excluded", x != NULL);
    if (x) {
        cJSON_AddStringToObject(o, "excluded_reason", x->reason);
        cJSON_AddNumberToObject(o, "excluded_remaining_ms", (double)x->remaining_ms);
    }
    {
        bool active;
        const struct zke_drain *d = view_drain(v, m->id, cli_wall_ms(), &active);
        cJSON_AddBoolToObject(o, "drained", active);
        if (active)
            cJSON_AddNumberToObject(o, "drained_until_ms", (double)d->until_ms);
    }
    cJSON_AddBoolToObject(o, "can_lead", view_can_lead(v, m));
    if (v->leaders > 1) {   /* the slot the decision gives it (N = 1: no field) */
        int k = view_slot_of(v, m->id);
        if (k >= 0)
            cJSON_AddNumberToObject(o, "slot", k);
        else
            cJSON_AddNullToObject(o, "slot");
    }
    if (m->seq >= 0) {
        cJSON_AddNumberToObject(o, "seq", (double)m->seq);
        cJSON_AddStringToObject(o, "znode", m->znode);
    } else {
        cJSON_AddNullToObject(o, "seq");
        cJSON_AddNullToObject(o, "znode");
    }
    cJSON_AddBoolToObject(o, "valid", m->have_rec);
    if (m->have_rec) {
        cJSON_AddStringToObject(o, "host", m->rec.host);
        cJSON_AddNumberToObject(o, "pid", (double)m->rec.pid);
        cJSON_AddStringToObject(o, "version", m->rec.version);
        if ((tags = cJSON_AddArrayToObject(o, "tags")) != NULL)
            for (i = 0; i < m->rec.ntags; i++)
                cJSON_AddItemToArray(tags, cJSON_CreateString(m->rec.tags[i]));
    }
    return o;
}

/* Registered members (with an election znode): who counts for "expect". */
int
out_live_members(const struct cli_view *v)
{
    int i, n = 0;

    for (i = 0; i < v->nmembers; i++)
        if (v->members[i].seq >= 0)
            n++;
    return n;
}

/* What the elector waits for (elected.hold), as a line; "" when nothing. */
void
out_hold_text(const struct cli_view *v, int64_t now, char *out, size_t outlen)
{
    const struct zke_hold *h = &v->elected.hold;
    const struct cli_member *m;
    char left[32];
    int live = out_live_members(v), expect = v->have_config ? (int)v->config.expect : 0;

    *out = '\0';
    if (!v->have_elected || *h->kind == '\0')
        return;
    cli_fmt_duration(h->until_ms - now, left, sizeof(left));
    if (strcmp(h->kind, "settle") == 0) {
        if (expect > live)
            snprintf(out, outlen, "settle: waiting for %d more member%s (%d of %d), %s left",
                     expect - live, expect - live > 1 ? "s" : "", live, expect, left);
        else
            snprintf(out, outlen, "settle: %s left (%d member%s present)", left, live,
                     live == 1 ? "" : "s");
    } else if (strcmp(h->kind, "failback") == 0) {
        m = *h->node ? view_member(v, h->node) : NULL;
        snprintf(out, outlen, "failback: %s (%s) may lead in %s", *h->node ? h->node : "?",
                 m && m->have_rec && *m->rec.site ? m->rec.site : "-", left);
    } else if (strcmp(h->kind, "anti-flap") == 0) {
        snprintf(out, outlen, "anti-flap: automatic moves blocked for %s%s%s%s", left,
                 *h->node ? " (then " : "", h->node, *h->node ? " may lead)" : "");
    } else {
        snprintf(out, outlen, "%s: %s%s%s left", h->kind, h->node, *h->node ? ", " : "", left);
    }
}

int
out_json(struct cJSON *o)
{
    char *s;

    if (o == NULL || (s = cJSON_Print(o)) == NULL) {
        cJSON_Delete(o);
        cli_err("out of memory");
        return CLI_EFAIL;
    }
    printf("%s\n", s);
    free(s);
    cJSON_Delete(o);
    return CLI_OK;
}

int
out_leader(struct cli *c, const struct cli_view *v)
{
    char when[64];
    int code = out_leader_code(v);

    if (c->json) {
        cJSON *o = out_leader_obj(v), *arr;
        if (o && v->leaders > 1) {
            /* N > 1: the slots after the fields of slot 0 (N = 1: as before slots) */
            cJSON_AddNumberToObject(o, "leaders", v->leaders);
            cJSON_AddNumberToObject(o, "ready", view_slots_ready(v));
            if ((arr = out_slots_arr(v)) == NULL) {
                cJSON_Delete(o);
                o = NULL;
            } else {
                cJSON_AddItemToObject(o, "slots", arr);
            }
        }
        return out_json(o) == CLI_OK ? code : CLI_EFAIL;
    }
    if (v->have_leader) {
        cli_time_str(v->leader.since_ms, when, sizeof(when));
        printf("%s %s epoch %llu site %s since %s\n", v->leader.id,
               zkelect_status_name(v->leader.status), (unsigned long long)v->leader.epoch,
               *leader_site(v) ? leader_site(v) : "-", when);
    } else if (v->have_elected && *v->elected.leader) {
        printf("no leader (%s elected at epoch %llu is taking over)\n", v->elected.leader,
               (unsigned long long)v->elected.epoch);
    } else if (v->have_elected) {
        printf("no leader: no node is eligible (%s)\n", v->elected.reason);
    } else {
        printf("no leader\n");
    }
    if (v->have_leader && in_transition(v)) {
        if (*v->elected.leader)
            printf("transition in progress: %s elected at epoch %llu (%s)\n", v->elected.leader,
                   (unsigned long long)v->elected.epoch, v->elected.reason);
        else
            printf("transition in progress: no node elected at epoch %llu (%s)\n",
                   (unsigned long long)v->elected.epoch, v->elected.reason);
    }
    if (v->leaders > 1) {
        char line[512];
        int k;
        for (k = 1; k < v->leaders; k++) {
            out_slot_text(v, k, line, sizeof(line));
            printf("slot %d: %s\n", k, line);
        }
        printf("%d of %d slots READY\n", view_slots_ready(v), v->leaders);
    }
    return code;
}

/* The end of a wait: JSON mode fills res, else nothing more is printed. */
static int
wait_end(struct cli *c, cJSON *res, const char *how, const struct cli_view *v, int code)
{
    if (c->json && res) {
        cJSON_AddStringToObject(res, "wait", how);
        if (v && v->have_leader)
            cJSON_AddItemToObject(res, "leader", out_leader_obj(v));
        else
            cJSON_AddNullToObject(res, "leader");
    }
    return code;
}

int
out_wait_decision(struct cli *c, uint64_t deadline_ms, const char *what_waiting,
                  int (*done)(struct cli *, const struct cli_view *, void *), void *arg,
                  struct cJSON *res)
{
    return out_wait_decision_slot(c, deadline_ms, what_waiting, done, arg, res, 0);
}

/* Slot K's decided node is READY at the slot's epoch. */
static bool
slot_ready(const struct cli_view *v, int k)
{
    const char *id;
    uint64_t epoch;

    view_slot_decision(v, k, &id, &epoch);
    return *id && k < v->leaders && v->slot[k].have && strcmp(v->slot[k].leader.id, id) == 0 &&
           v->slot[k].leader.epoch == epoch && v->slot[k].leader.status == ZKELECT_STATUS_READY;
}

/* Every slot the decision fills is READY (a wait on a group with N > 1
   ends when all its actives are, as `zkelect leader` exits 0 then). */
static bool
all_slots_ready(const struct cli_view *v)
{
    const char *id;
    uint64_t epoch;
    int k;

    for (k = 1; k < v->leaders; k++) {
        view_slot_decision(v, k, &id, &epoch);
        if (*id && !slot_ready(v, k))
            return false;
    }
    return true;
}

int
out_wait_decision_slot(struct cli *c, uint64_t deadline_ms, const char *what_waiting,
                       int (*done)(struct cli *, const struct cli_view *, void *), void *arg,
                       struct cJSON *res, int k)
{
    struct cli_view v;
    char fp[CLI_PATH_MAX], elected[ZKE_ID_MAX + 1] = "";
    const char *id;
    uint64_t elected_epoch = 0, epoch;
    bool decided = false;
    int rc, w;

    for (;;) {
        if (atomic_load(&c->expired)) {
            cli_err("the ZooKeeper session expired; reconnecting");
            rc = cli_reconnect(c, deadline_ms);
            if (rc != CLI_OK)
                return wait_end(c, res, "error", NULL, rc < 0 ? CLI_EFAIL : rc);
        }
        /* the config says how many leader znodes there are (N > 1: every
           slot is waited for) */
        rc = view_load(c, &v, VIEW_MEMBERS | VIEW_ELECTED | VIEW_LEADER | VIEW_CONFIG,
                       true, fp, sizeof(fp));
        if (rc != ZOK) {
            view_free(&v);
            if (!cli_transient(rc))
                return wait_end(c, res, "error", NULL, cli_zk_fail(c, "read", fp, rc));
        } else {
            if (v.elected_version >= 0 && !v.have_elected) {
                /* a malformed decision cannot be waited on */
                view_print_errors(&v);
                view_free(&v);
                return wait_end(c, res, "error", NULL, CLI_EFAIL);
            }
            if (!decided) {
                w = done(c, &v, arg);
                if (w > 1) {
                    rc = wait_end(c, res, "refused", &v, w);
                    view_free(&v);
                    return rc;
                }
                decided = w == 1;
            }
            if (decided) {
                view_slot_decision(&v, k, &id, &epoch);
                snprintf(elected, sizeof(elected), "%s", id);
                elected_epoch = epoch;
                if (!*id) {
                    if (k == 0)
                        cli_err("no node is eligible to lead: %s", v.elected.reason);
                    else
                        cli_err("no node is eligible to lead slot %d: %s", k,
                                v.elected.reason);
                    rc = wait_end(c, res, "no-eligible", &v, CLI_EREFUSED);
                    view_free(&v);
                    return rc;
                }
                if (slot_ready(&v, k) && (k > 0 || all_slots_ready(&v))) {
                    if (c->json && res)
                        rc = wait_end(c, res, "ok", &v, CLI_OK);
                    else
                        rc = out_leader(c, &v);
                    view_free(&v);
                    return rc;
                }
            }
            view_free(&v);
        }
        w = cli_wait_event(c, deadline_ms);
        if (w == 0) {
            if (!decided)
                cli_err("timed out waiting for %s", what_waiting);
            else
                cli_err("timed out waiting for %s (elected at epoch %llu) to become the READY "
                        "leader", elected, (unsigned long long)elected_epoch);
            return wait_end(c, res, "timeout", NULL, CLI_ETIMEOUT);
        }
        if (w < 0)
            return wait_end(c, res, "error", NULL, CLI_EFAIL);
    }
}

int
out_json_rc(struct cJSON *res, int rc)
{
    if (res && out_json(res) != CLI_OK && rc == CLI_OK)
        rc = CLI_EFAIL;
    return rc;
}

/* --wait: the elector has evaluated the config version we wrote. */
static int
config_acked(struct cli *c, const struct cli_view *v, void *arg)
{
    (void)c;
    return v->have_elected && v->elected.config_version >= *(int32_t *)arg;
}

int
out_wait_config(struct cli *c, int wait_s, int32_t version, struct cJSON *res)
{
    char what[160];
    int rc = CLI_OK;

    if (wait_s > 0) {
        snprintf(what, sizeof(what), "the elector to evaluate config version %d (is a member "
                 "running?)", (int)version);
        rc = out_wait_decision(c, cli_mono_ms() + (uint64_t)wait_s * 1000, what, config_acked,
                               &version, res);
    }
    return out_json_rc(res, rc);
}
