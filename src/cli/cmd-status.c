/*
 * cmd-status.c - `zkelect status`: the whole group at a glance. Everything
 * readable is shown; malformed znodes are reported on stderr and make the
 * exit status 1.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "cli.h"

#define STATUS_COLS 10   /* the last, SLOT, only with N > 1 leaders */

static const char *
yesno(bool b)
{
    return b ? "yes" : "no";
}

/* The policy the group runs: the config's, else the one of the last decision. */
static const char *
status_policy(const struct cli_view *v, const char **source)
{
    if (v->have_config && *v->config.policy) {
        *source = "config";
        return v->config.policy;
    }
    if (v->have_elected) {
        *source = "elector";
        return v->elected.policy;
    }
    *source = NULL;
    return NULL;
}

/* The switchover request's state: "acted on", "scheduled" or "pending". */
static const char *
status_so_state(const struct cli_view *v)
{
    if (v->have_elected && v->elected.switchover_id >= v->switchover.id)
        return "acted on";
    if (v->switchover.due_ms != 0 && !v->switchover.cancel)
        return "scheduled";
    return "pending";
}

/* Slot K's entry of the standing succession, when it is for the decision in
   force (the version of `elected` read) and its leader still holds the
   slot; NULL otherwise (a stale record is what a resigning leader would
   not use either). */
static const struct zke_succ *
status_succ(const struct cli_view *v, int k)
{
    const struct zke_succ *e;
    const char *holder;

    if (!v->have_successor || !v->have_elected ||
        v->successor.elected_version != v->elected_version ||
        (e = zke_successor_slot(&v->successor, k)) == NULL)
        return NULL;
    if (k == 0)
        holder = v->elected.leader;
    else if (k - 1 < v->elected.nslots)
        holder = v->elected.slots[k - 1].leader;
    else
        return NULL;
    return strcmp(holder, e->leader) == 0 ? e : NULL;
}

static int
status_json(struct cli *c, const struct cli_view *v)
{
    cJSON *o = cJSON_CreateObject(), *l, *e, *arr, *x, *sites;
    const char *policy, *source;
    char text[256], when[64];
    int64_t now = cli_wall_ms();
    int i;

    if (o == NULL)
        return out_json(NULL);
    cJSON_AddStringToObject(o, "path", c->path);
    if (v->have_leader && (l = out_leader_obj(v)) != NULL) {
        cJSON_DeleteItemFromObject(l, "elected");
        cJSON_DeleteItemFromObject(l, "transition");
        cJSON_AddItemToObject(o, "leader", l);
    } else {
        cJSON_AddNullToObject(o, "leader");
    }
    if (v->have_elected && (e = cJSON_AddObjectToObject(o, "elected")) != NULL) {
        if (*v->elected.leader)
            cJSON_AddStringToObject(e, "leader", v->elected.leader);
        else
            cJSON_AddNullToObject(e, "leader");
        cJSON_AddNumberToObject(e, "epoch", (double)v->elected.epoch);
        cJSON_AddStringToObject(e, "leader_site", v->elected.leader_site);
        if (*v->elected.previous)
            cJSON_AddStringToObject(e, "previous", v->elected.previous);
        else
            cJSON_AddNullToObject(e, "previous");
        cJSON_AddStringToObject(e, "elector", v->elected.elector);
        cJSON_AddStringToObject(e, "policy", v->elected.policy);
        cJSON_AddStringToObject(e, "reason", v->elected.reason);
        cJSON_AddNumberToObject(e, "at_ms", (double)v->elected.at_ms);
        cJSON_AddNumberToObject(e, "switchover_id", (double)v->elected.switchover_id);
        cJSON_AddNumberToObject(e, "config_version", v->elected.config_version);
        if ((arr = cJSON_AddArrayToObject(e, "excluded")) != NULL)
            for (i = 0; i < v->elected.nexcluded; i++) {
                if ((x = cJSON_CreateObject()) == NULL)
                    break;
                cJSON_AddStringToObject(x, "id", v->elected.excluded[i].id);
                cJSON_AddStringToObject(x, "reason", v->elected.excluded[i].reason);
                cJSON_AddNumberToObject(x, "remaining_ms",
                                        (double)v->elected.excluded[i].remaining_ms);
                cJSON_AddItemToArray(arr, x);
            }
    } else {
        cJSON_AddNullToObject(o, "elected");
    }
    if (v->leaders > 1) {   /* N = 1: the fields of releases before slots, no more */
        cJSON_AddNumberToObject(o, "leaders", v->leaders);
        cJSON_AddNumberToObject(o, "ready", view_slots_ready(v));
        if ((arr = out_slots_arr(v)) != NULL)
            cJSON_AddItemToObject(o, "slots", arr);
    }
    cJSON_AddBoolToObject(o, "transition", v->have_elected &&
                          (v->have_leader ? strcmp(v->elected.leader, v->leader.id) != 0 ||
                                            v->elected.epoch != v->leader.epoch
                                          : *v->elected.leader != '\0'));
    if (*v->elector)
        cJSON_AddStringToObject(o, "elector", v->elector);
    else
        cJSON_AddNullToObject(o, "elector");
    policy = status_policy(v, &source);
    if (policy) {
        cJSON_AddStringToObject(o, "policy", policy);
        cJSON_AddStringToObject(o, "policy_source", source);
    } else {
        cJSON_AddNullToObject(o, "policy");
        cJSON_AddNullToObject(o, "policy_source");
    }
    if ((sites = cJSON_AddObjectToObject(o, "sites")) != NULL && v->have_config)
        for (i = 0; i < v->config.nsites; i++)
            cJSON_AddNumberToObject(sites, v->config.sites[i].site, v->config.sites[i].priority);
    cJSON_AddBoolToObject(o, "paused", v->have_config && v->config.paused);
    cJSON_AddNumberToObject(o, "config_version", v->config_version);
    if (v->have_config) {
        cJSON_AddNumberToObject(o, "watchdog_ms", v->config.watchdog_ms);
        cJSON_AddNumberToObject(o, "exclude_ms", v->config.exclude_ms);
        if ((x = cJSON_AddObjectToObject(o, "options")) != NULL)
            for (i = 0; i < v->config.noptions; i++)
                cJSON_AddStringToObject(x, v->config.options[i].key, v->config.options[i].value);
    }
    /* the delays: null when the config leaves them to each node's default */
#define STATUS_OPT_MS(name, set, val) \
    do { if (v->have_config && (set)) cJSON_AddNumberToObject(o, name, (double)(val)); \
         else cJSON_AddNullToObject(o, name); } while (0)
    STATUS_OPT_MS("settle_ms", v->config.settle_set, v->config.settle_ms);
    STATUS_OPT_MS("expect", v->config.expect != 0, v->config.expect);
    STATUS_OPT_MS("failback_delay_ms", v->config.failback_set, v->config.failback_delay_ms);
    STATUS_OPT_MS("min_move_interval_ms", v->config.min_move_set,
                  v->config.min_move_interval_ms);
#undef STATUS_OPT_MS
    if ((arr = cJSON_AddArrayToObject(o, "drains")) != NULL && v->have_config)
        for (i = 0; i < v->config.ndrains; i++) {
            const struct zke_drain *d = &v->config.drains[i];
            if ((x = cJSON_CreateObject()) == NULL)
                break;
            cJSON_AddStringToObject(x, "id", d->id);
            cJSON_AddNumberToObject(x, "until_ms", (double)d->until_ms);
            cli_time_str(d->until_ms, when, sizeof(when));
            cJSON_AddStringToObject(x, "until", when);
            cJSON_AddNumberToObject(x, "remaining_ms",
                                    (double)(d->until_ms > now ? d->until_ms - now : 0));
            cJSON_AddBoolToObject(x, "active", d->until_ms > now);
            cJSON_AddStringToObject(x, "reason", d->reason);
            cJSON_AddStringToObject(x, "by", d->by);
            cJSON_AddItemToArray(arr, x);
        }
    if (v->have_elected && *v->elected.hold.kind &&
        (x = cJSON_AddObjectToObject(o, "hold")) != NULL) {
        const struct cli_member *m = view_member(v, v->elected.hold.node);
        cJSON_AddStringToObject(x, "kind", v->elected.hold.kind);
        if (*v->elected.hold.node)
            cJSON_AddStringToObject(x, "node", v->elected.hold.node);
        else
            cJSON_AddNullToObject(x, "node");
        if (m && m->have_rec)
            cJSON_AddStringToObject(x, "site", m->rec.site);
        else
            cJSON_AddNullToObject(x, "site");
        cJSON_AddNumberToObject(x, "until_ms", (double)v->elected.hold.until_ms);
        cJSON_AddNumberToObject(x, "remaining_ms", (double)(v->elected.hold.until_ms > now ?
                                v->elected.hold.until_ms - now : 0));
        cJSON_AddNumberToObject(x, "members", out_live_members(v));
        out_hold_text(v, now, text, sizeof(text));
        cJSON_AddStringToObject(x, "text", text);
    } else {
        cJSON_AddNullToObject(o, "hold");
    }
    /* the standing succession, for the decision in force only */
    if ((arr = cJSON_AddArrayToObject(o, "successors")) != NULL)
        for (i = 0; i < v->leaders; i++) {
            const struct zke_succ *se = status_succ(v, i);
            if (se == NULL || (x = cJSON_CreateObject()) == NULL)
                continue;
            cJSON_AddNumberToObject(x, "slot", i);
            cJSON_AddStringToObject(x, "leader", se->leader);
            cJSON_AddStringToObject(x, "successor", se->successor);
            cJSON_AddStringToObject(x, "site", se->successor_site);
            if (i == 0)
                cJSON_AddBoolToObject(x, "switchover", se->switchover);
            cJSON_AddItemToArray(arr, x);
        }
    if (v->have_switchover && (x = cJSON_AddObjectToObject(o, "switchover")) != NULL) {
        cJSON_AddNumberToObject(x, "id", (double)v->switchover.id);
        if (*v->switchover.to)
            cJSON_AddStringToObject(x, "to", v->switchover.to);
        else
            cJSON_AddNullToObject(x, "to");
        if (*v->switchover.site)
            cJSON_AddStringToObject(x, "site", v->switchover.site);
        else
            cJSON_AddNullToObject(x, "site");
        cJSON_AddNumberToObject(x, "at_ms", (double)v->switchover.at_ms);
        cJSON_AddStringToObject(x, "by", v->switchover.by);
        cJSON_AddBoolToObject(x, "acted_on", v->have_elected &&
                              v->elected.switchover_id >= v->switchover.id);
        cJSON_AddNumberToObject(x, "due_ms", (double)v->switchover.due_ms);
        if (v->switchover.due_ms) {
            cli_time_str(v->switchover.due_ms, when, sizeof(when));
            cJSON_AddStringToObject(x, "due", when);
            cJSON_AddNumberToObject(x, "remaining_ms", (double)(v->switchover.due_ms > now ?
                                    v->switchover.due_ms - now : 0));
        }
        cJSON_AddBoolToObject(x, "cancel", v->switchover.cancel);
        if (*v->switchover.from)    /* --from (slots); absent otherwise, as before slots */
            cJSON_AddStringToObject(x, "from", v->switchover.from);
        cJSON_AddStringToObject(x, "state", status_so_state(v));
    } else {
        cJSON_AddNullToObject(o, "switchover");
    }
    if ((arr = cJSON_AddArrayToObject(o, "members")) != NULL)
        for (i = 0; i < v->nmembers; i++)
            cJSON_AddItemToArray(arr, out_member_obj(v, &v->members[i]));
    if ((arr = cJSON_AddArrayToObject(o, "errors")) != NULL)
        for (i = 0; i < v->nerrs; i++)
            cJSON_AddItemToArray(arr, cJSON_CreateString(v->errs[i]));
    return out_json(o);
}

/* One row of the members table; cells are copied. */
struct row {
    char cell[STATUS_COLS][128];
};

static void
status_table(const struct cli_view *v)
{
    static const char *head[STATUS_COLS] = {
        "ID", "SITE", "PRIO", "ROLE", "ELIGIBLE", "HEALTHY", "EXCLUDED", "SEQ", "HOST", "SLOT"
    };
    /* column order: SLOT after ROLE when there are slots */
    static const int order1[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8 };
    static const int orderN[] = { 0, 1, 2, 3, 9, 4, 5, 6, 7, 8 };
    const int *order = v->leaders > 1 ? orderN : order1;
    int ncols = v->leaders > 1 ? STATUS_COLS : STATUS_COLS - 1;
    struct row *rows;
    size_t w[STATUS_COLS];
    int i, j, k, n = v->nmembers + 1;

    if ((rows = calloc((size_t)n, sizeof(*rows))) == NULL) {
        cli_err("out of memory");
        return;
    }
    for (j = 0; j < STATUS_COLS; j++)
        snprintf(rows[0].cell[j], sizeof(rows[0].cell[j]), "%s", head[j]);
    for (i = 0; i < v->nmembers; i++) {
        const struct cli_member *m = &v->members[i];
        const struct zke_exclusion *x = view_excluded(v, m->id);
        struct row *r = &rows[i + 1];
        snprintf(r->cell[0], sizeof(r->cell[0]), "%s", m->id);
        if (m->have_rec) {
            snprintf(r->cell[1], sizeof(r->cell[1]), "%s", *m->rec.site ? m->rec.site : "-");
            snprintf(r->cell[2], sizeof(r->cell[2]), "%d", (int)m->rec.priority);
            snprintf(r->cell[4], sizeof(r->cell[4]), "%s", yesno(m->rec.eligible));
            snprintf(r->cell[5], sizeof(r->cell[5]), "%s", yesno(m->rec.healthy));
            snprintf(r->cell[8], sizeof(r->cell[8]), "%s", *m->rec.host ? m->rec.host : "-");
        } else {
            const char *why = m->bad_rec ? "malformed" : "no-record";
            snprintf(r->cell[1], sizeof(r->cell[1]), "%s", why);
            for (j = 2; j < STATUS_COLS; j++)
                snprintf(r->cell[j], sizeof(r->cell[j]), "?");
        }
        snprintf(r->cell[3], sizeof(r->cell[3]), "%s", view_role(v, m));
        if (x)
            snprintf(r->cell[6], sizeof(r->cell[6]), "%s(%llus)", x->reason,
                     (unsigned long long)(x->remaining_ms + 999) / 1000);
        else
            snprintf(r->cell[6], sizeof(r->cell[6]), "no");
        if (m->seq >= 0)
            snprintf(r->cell[7], sizeof(r->cell[7]), "%010lld", (long long)m->seq);
        else
            snprintf(r->cell[7], sizeof(r->cell[7]), "-");
        /* the slot the decision gives it */
        if ((k = view_slot_of(v, m->id)) >= 0)
            snprintf(r->cell[9], sizeof(r->cell[9]), "%d", k);
        else
            snprintf(r->cell[9], sizeof(r->cell[9]), "-");
    }
    for (j = 0; j < STATUS_COLS; j++) {
        w[j] = 0;
        for (i = 0; i < n; i++)
            if (strlen(rows[i].cell[j]) > w[j])
                w[j] = strlen(rows[i].cell[j]);
    }
    for (i = 0; i < n; i++) {
        for (j = 0; j < ncols - 1; j++)
            printf("%-*s  ", (int)w[order[j]], rows[i].cell[order[j]]);
        printf("%s\n", rows[i].cell[order[ncols - 1]]);
    }
    free(rows);
}

static void
status_text(struct cli *c, const struct cli_view *v)
{
    const char *policy, *source;
    char when[64], left[32], text[256];
    int64_t now = cli_wall_ms();
    int i, n;

    printf("group:      %s\n", c->path);
    printf("leader:     ");
    if (v->have_leader) {
        const struct cli_member *m = view_member(v, v->leader.id);
        cli_time_str(v->leader.since_ms, when, sizeof(when));
        printf("%s %s epoch %llu site %s since %s\n", v->leader.id,
               zkelect_status_name(v->leader.status), (unsigned long long)v->leader.epoch,
               m && m->have_rec && *m->rec.site ? m->rec.site : "-", when);
    } else {
        printf("none\n");
    }
    printf("elected:    ");
    if (v->have_elected) {
        cli_time_str(v->elected.at_ms, when, sizeof(when));
        printf("%s epoch %llu by %s at %s: %s\n", *v->elected.leader ? v->elected.leader : "nobody",
               (unsigned long long)v->elected.epoch, v->elected.elector, when, v->elected.reason);
        if (v->have_leader ? strcmp(v->elected.leader, v->leader.id) != 0 ||
                             v->elected.epoch != v->leader.epoch
                           : *v->elected.leader != '\0')
            printf("            transition in progress (the leader znode does not match the "
                   "decision yet)\n");
        for (i = 0; i < v->elected.nexcluded; i++)
            printf("excluded:   %s (%s, %llu ms left)\n", v->elected.excluded[i].id,
                   v->elected.excluded[i].reason,
                   (unsigned long long)v->elected.excluded[i].remaining_ms);
    } else {
        printf("%s\n", v->elected_version >= 0 ? "(malformed)" : "no decision yet");
    }
    if (v->leaders > 1) {   /* slot 0 is the leader and elected lines above */
        char label[16], line[512];
        printf("leaders:    %d (%d of %d slots READY)\n", v->leaders, view_slots_ready(v),
               v->leaders);
        for (i = 1; i < v->leaders; i++) {
            snprintf(label, sizeof(label), "slot %d:", i);
            out_slot_text(v, i, line, sizeof(line));
            printf("%-12s%s\n", label, line);
        }
    }
    if (*v->elector)
        printf("elector:    %s (seq %010lld)\n", v->elector, (long long)v->elector_seq);
    else
        printf("elector:    none (no members)\n");
    policy = status_policy(v, &source);
    if (policy)
        printf("policy:     %s (%s)\n", policy,
               strcmp(source, "config") == 0 ? "config" : "each node's default, last used");
    else
        printf("policy:     each node's default (not set in the config)\n");
    printf("sites:      ");
    if (v->have_config && v->config.nsites > 0) {
        for (i = 0; i < v->config.nsites; i++)
            printf("%s%s=%d", i ? " " : "", v->config.sites[i].site,
                   (int)v->config.sites[i].priority);
        printf("\n");
    } else {
        printf("%s\n", v->bad_config ? "(config malformed)" :
               v->config_version < 0 ? "none (no config)" : "none");
    }
    printf("paused:     %s\n", v->bad_config ? "? (config malformed)" :
           yesno(v->have_config && v->config.paused));
    if (v->have_config) {
        n = 0;
        printf("delays:     ");
        if (v->config.settle_set)
            printf("%ssettle %u ms", n++ ? ", " : "", (unsigned)v->config.settle_ms);
        if (v->config.expect)
            printf("%sexpect %u members", n++ ? ", " : "", (unsigned)v->config.expect);
        if (v->config.failback_set)
            printf("%sfailback delay %u ms", n++ ? ", " : "",
                   (unsigned)v->config.failback_delay_ms);
        if (v->config.min_move_set)
            printf("%smin move interval %u ms", n++ ? ", " : "",
                   (unsigned)v->config.min_move_interval_ms);
        printf("%s\n", n ? "" : "each node's default (none set in the config)");
        for (i = 0; i < v->config.ndrains; i++) {
            const struct zke_drain *d = &v->config.drains[i];
            cli_time_str(d->until_ms, when, sizeof(when));
            cli_fmt_duration(d->until_ms - now, left, sizeof(left));
            printf("drained:    %s until %s (%s%s) by %s%s%s\n", d->id, when,
                   d->until_ms > now ? left : "expired", d->until_ms > now ? " left" : "",
                   *d->by ? d->by : "-", *d->reason ? ": " : "", d->reason);
        }
    }
    out_hold_text(v, now, text, sizeof(text));
    if (*text)
        printf("hold:       %s\n", text);
    for (i = 0; i < v->leaders; i++) {
        const struct zke_succ *e = status_succ(v, i);
        if (e && i == 0)
            printf("successor:  %s (if %s resigns%s)\n", e->successor, e->leader,
                   e->switchover ? "; a switchover goes there directly" : "");
        else if (e)
            printf("successor:  slot %d: %s (if %s resigns)\n", i, e->successor, e->leader);
    }
    if (v->have_switchover && v->switchover.id != 0) {   /* 0: init's "no request" */
        const char *state = status_so_state(v);
        char target[ZKE_SITE_MAX + 16];
        cli_time_str(v->switchover.at_ms, when, sizeof(when));
        if (*v->switchover.site)
            snprintf(target, sizeof(target), "site %s", v->switchover.site);
        else
            snprintf(target, sizeof(target), "%s", *v->switchover.to ? v->switchover.to : "any");
        if (v->switchover.cancel)
            printf("switchover: #%llu cancels the scheduled one, at %s by %s (%s)\n",
                   (unsigned long long)v->switchover.id, when,
                   *v->switchover.by ? v->switchover.by : "-", state);
        else
            printf("switchover: #%llu %s%s%sto %s at %s by %s (%s",
                   (unsigned long long)v->switchover.id, *v->switchover.from ? "from " : "",
                   v->switchover.from, *v->switchover.from ? " " : "", target, when,
                   *v->switchover.by ? v->switchover.by : "-", state);
        if (!v->switchover.cancel && strcmp(state, "scheduled") == 0) {
            cli_time_str(v->switchover.due_ms, when, sizeof(when));
            cli_fmt_duration(v->switchover.due_ms - now, left, sizeof(left));
            printf(" for %s, %s%s)\n", when, v->switchover.due_ms > now ? left : "due now",
                   v->switchover.due_ms > now ? " left" : "");
        } else if (!v->switchover.cancel) {
            printf(")\n");
        }
    }
    printf("\n");
    if (v->nmembers == 0)
        printf("no members\n");
    else
        status_table(v);
}

int
cmd_status(struct cli *c, int argc, char **argv)
{
    struct cli_args a;
    struct cli_view v;
    char fp[CLI_PATH_MAX];
    int rc;

    if ((rc = cli_parse_simple(c, argc, argv, 0, 0, &a)) >= 0)
        return rc;
    if ((rc = cli_connect(c)) != CLI_OK || (rc = cli_check_group(c)) != CLI_OK)
        return rc;
    rc = view_load(c, &v, VIEW_ALL | VIEW_SUCCESSOR, false, fp, sizeof(fp));
    if (rc != ZOK) {
        view_free(&v);
        return cli_zk_fail(c, "read", fp, rc);
    }
    if (c->json)
        rc = status_json(c, &v);
    else
        status_text(c, &v);
    if (view_print_errors(&v) > 0)
        rc = CLI_EFAIL;
    view_free(&v);
    return rc;
}
