/*
 * cmd-drain.c - `zkelect drain NODE [--for DURATION] [--reason TEXT]
 * [--wait[=SECONDS]]` and `zkelect undrain NODE [--wait[=SECONDS]]`: the
 * drains of the config znode ({"drains": {"n1": {"until_ms", "reason",
 * "by"}}}), changed with compare-and-set like the site priorities.
 *
 * A drain keeps its node from leading until a wall-clock time; every
 * elector reads it as "not eligible" and moves a drained leader away
 * through the normal handover. It ends by itself, so its entry stays in
 * the config after it expired: each write by drain or undrain drops the
 * expired entries (by this host's clock), so that they do not pile up to
 * ZKE_DRAINS_MAX.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "cli.h"

enum { OPT_WAIT = 1, OPT_FOR, OPT_REASON };

#define DRAIN_DEFAULT_MS  3600000       /* --for: 1 hour */
#define DRAIN_MIN_MS      1000          /* --for: at least 1 s */

struct drain_edit {
    const char *id;                   /* the node */
    bool undrain;                     /* remove instead of add */
    bool known;                       /* a member (registered or with a record) */
    struct zke_drain want;            /* drain: the entry to write */
    struct zke_drain previous;        /* its entry before, when had_previous */
    bool had_previous;
    bool previous_active;             /* it had not expired */
    int pruned;                       /* expired entries of other nodes dropped */
    int64_t for_ms;                   /* drain: how long from the write */
    int64_t now_ms;                   /* wall clock at the edit */
};

static int
drain_edit(struct cli *c, struct zke_config *cfg, void *arg)
{
    struct drain_edit *e = arg;
    int i, n = 0;

    e->now_ms = cli_wall_ms();
    e->had_previous = e->previous_active = false;
    e->pruned = 0;
    /* keep the live entries of other nodes, note ours, drop the expired */
    for (i = 0; i < cfg->ndrains; i++) {
        if (strcmp(cfg->drains[i].id, e->id) == 0) {
            e->had_previous = true;
            e->previous = cfg->drains[i];
            e->previous_active = cfg->drains[i].until_ms > e->now_ms;
            continue;
        }
        if (cfg->drains[i].until_ms <= e->now_ms) {
            e->pruned++;
            continue;
        }
        if (n != i)
            cfg->drains[n] = cfg->drains[i];
        n++;
    }
    if (e->undrain) {
        if (!e->had_previous) {
            cli_err("%s is not drained (the config of %s lists no drain for it)", e->id,
                    c->path);
            return CLI_EFAIL;
        }
    } else {
        if (!e->known && !e->had_previous)
            return CLI_EUSAGE;  /* the caller says so, with the usage line */
        if (n >= ZKE_DRAINS_MAX) {
            cli_err("the config already lists %d drains, the most it can hold (undrain one "
                    "first)", ZKE_DRAINS_MAX);
            return CLI_EFAIL;
        }
        /* from the clock as late as possible: just before the write */
        e->want.until_ms = e->now_ms + e->for_ms;
        cfg->drains[n++] = e->want;
    }
    for (i = n; i < cfg->ndrains; i++)
        memset(&cfg->drains[i], 0, sizeof(cfg->drains[i]));
    cfg->ndrains = n;
    return 0;
}

static int
drain_common(struct cli *c, int argc, char **argv, bool undrain)
{
    static const struct cli_optdef drain_defs[] = {
        { "wait", 0, 2, OPT_WAIT },
        { "for", 0, 1, OPT_FOR },
        { "reason", 0, 1, OPT_REASON },
        { NULL, 0, 0, 0 }
    };
    static const struct cli_optdef undrain_defs[] = {
        { "wait", 0, 2, OPT_WAIT },
        { NULL, 0, 0, 0 }
    };
    struct cli_args a;
    struct cli_view v;
    struct drain_edit e;
    const struct cli_member *m;
    const char *arg, *reason = NULL;
    char why[200], esc[400], until[64], left[32], fp[CLI_PATH_MAX];
    cJSON *res = NULL, *x;
    int64_t for_ms = DRAIN_DEFAULT_MS;
    int id, rc, wait_s = 0;
    int32_t version;
    bool written;

    memset(&a, 0, sizeof(a));
    a.argc = argc;
    a.argv = argv;
    while ((id = cli_next_opt(c, &a, undrain ? undrain_defs : drain_defs, &arg)) != 0) {
        switch (id) {
        case CLI_OPT_ERR:
            return CLI_EUSAGE;
        case CLI_OPT_HELP:
            return cli_cmd_help(c);
        case CLI_OPT_JSON:
            c->json = true;
            break;
        case OPT_WAIT:
            if (cli_opt_wait(c, arg, &wait_s) != CLI_OK)
                return CLI_EUSAGE;
            break;
        case OPT_FOR:
            if (cli_parse_duration(arg, DRAIN_MIN_MS, CLI_AHEAD_MAX_MS, &for_ms, why,
                                   sizeof(why)) != 0) {
                cli_escape(arg, esc, sizeof(esc));
                return cli_usage_err(c, "--for: \"%s\" %s", esc, why);
            }
            break;
        case OPT_REASON:
            if (cli_text_ok(arg, ZKE_REASON_MAX, why, sizeof(why)) != 0) {
                cli_escape(arg, esc, sizeof(esc));
                return cli_usage_err(c, "--reason: \"%s\" %s", esc, why);
            }
            reason = arg;
            break;
        }
    }
    if (a.npos != 1)
        return cli_usage_err(c, a.npos < 1 ? "expected NODE" : "too many arguments");
    if (!zke_id_valid(a.pos[0])) {
        cli_escape(a.pos[0], esc, sizeof(esc));
        return cli_usage_err(c, "NODE \"%s\" is not a valid node id (1 to %d of [A-Za-z0-9._-], "
                             "not starting with . or -)", esc, ZKE_ID_MAX);
    }
    memset(&e, 0, sizeof(e));
    e.id = a.pos[0];
    e.undrain = undrain;
    snprintf(e.want.id, sizeof(e.want.id), "%s", e.id);
    if (reason)
        snprintf(e.want.reason, sizeof(e.want.reason), "%s", reason);
    cli_requester(e.want.by, sizeof(e.want.by));

    if ((rc = cli_connect(c)) != CLI_OK || (rc = cli_check_group(c)) != CLI_OK)
        return rc;
    if (!undrain) {
        /* a member: registered now, or known by its record */
        rc = view_load(c, &v, VIEW_MEMBERS, false, fp, sizeof(fp));
        if (rc != ZOK) {
            view_free(&v);
            return cli_zk_fail(c, "read", fp, rc);
        }
        m = view_member(&v, e.id);
        e.known = m != NULL && (m->have_rec || m->bad_rec || m->seq >= 0);
        view_free(&v);
    }
    e.for_ms = for_ms;
    rc = config_update(c, drain_edit, &e, &version, &written);
    if (rc == CLI_EUSAGE)
        return cli_usage_err(c, "NODE \"%s\": unknown node: not a member of %s (no nodes/%s "
                             "record, no election znode) and not drained", e.id, c->path, e.id);
    if (rc != CLI_OK)
        return rc;

    if (c->json) {
        if ((res = cJSON_CreateObject()) == NULL)
            return out_json(NULL);
        cJSON_AddStringToObject(res, "node", e.id);
        cJSON_AddBoolToObject(res, "drained", !undrain);
        if (!undrain) {
            cJSON_AddNumberToObject(res, "until_ms", (double)e.want.until_ms);
            cli_time_str(e.want.until_ms, until, sizeof(until));
            cJSON_AddStringToObject(res, "until", until);
            cJSON_AddNumberToObject(res, "for_ms", (double)for_ms);
            cJSON_AddStringToObject(res, "reason", e.want.reason);
            cJSON_AddStringToObject(res, "by", e.want.by);
        }
        if (e.had_previous && (x = cJSON_AddObjectToObject(res, "previous")) != NULL) {
            cJSON_AddNumberToObject(x, "until_ms", (double)e.previous.until_ms);
            cJSON_AddBoolToObject(x, "active", e.previous_active);
            cJSON_AddStringToObject(x, "reason", e.previous.reason);
            cJSON_AddStringToObject(x, "by", e.previous.by);
        } else if (!e.had_previous) {
            cJSON_AddNullToObject(res, "previous");
        }
        cJSON_AddNumberToObject(res, "expired_removed", e.pruned);
        cJSON_AddNumberToObject(res, "config_version", version);
    } else {
        if (undrain) {
            cli_time_str(e.previous.until_ms, until, sizeof(until));
            printf("%s undrained (%s %s); config version %d\n", e.id,
                   e.previous_active ? "it was drained until" : "its drain had expired at",
                   until, (int)version);
        } else {
            cli_time_str(e.want.until_ms, until, sizeof(until));
            cli_fmt_duration(for_ms, left, sizeof(left));
            printf("%s drained until %s (%s)%s%s%s; config version %d\n", e.id, until, left,
                   *e.want.reason ? ": " : "", e.want.reason,
                   e.had_previous && e.previous_active ? " (replaces the drain before)" : "",
                   (int)version);
        }
        if (e.pruned > 0)
            printf("removed %d expired drain%s of other nodes\n", e.pruned,
                   e.pruned > 1 ? "s" : "");
        fflush(stdout);
    }
    return out_wait_config(c, wait_s, version, res);
}

int
cmd_drain(struct cli *c, int argc, char **argv)
{
    return drain_common(c, argc, argv, false);
}

int
cmd_undrain(struct cli *c, int argc, char **argv)
{
    return drain_common(c, argc, argv, true);
}
