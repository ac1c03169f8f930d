/*
 * cmd-delays.c - `zkelect set-delays [--expect N] [--settle-ms MS]
 * [--failback-delay-ms MS] [--min-move-interval-ms MS] [--wait[=SECONDS]]`:
 * change the delays of the config znode on an existing group, with
 * compare-and-set (init sets them only when it creates the config). The
 * value "default" removes a field, so that each node's own default applies
 * again.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include <cJSON.h>

#include "cli.h"

enum { OPT_WAIT = 1, OPT_EXPECT, OPT_SETTLE, OPT_FAILBACK, OPT_MIN_MOVE };

/* One delay: the option, its config field and what to do with it. */
struct delay {
    const char *opt;                  /* "--settle-ms" */
    const char *key;                  /* "settle_ms", for --json */
    long long min, max;               /* the range of a value */
    bool given;                       /* the option was given */
    bool unset;                       /* "default": remove the field */
    uint32_t value;                   /* the new value, when !unset */
    bool was_set;                     /* the field was in the config */
    uint32_t was;                     /* its value then */
};

struct delays {
    struct delay d[4];                /* expect, settle, failback, min move */
    bool changed;                     /* something differs from the config */
};

/* The field of d[i] in cfg: *set (NULL for expect, whose 0 means unset) and *val. */
static void
delay_field(struct zke_config *cfg, int i, bool **set, uint32_t **val)
{
    switch (i) {
    case 0: *set = NULL; *val = &cfg->expect; break;
    case 1: *set = &cfg->settle_set; *val = &cfg->settle_ms; break;
    case 2: *set = &cfg->failback_set; *val = &cfg->failback_delay_ms; break;
    default: *set = &cfg->min_move_set; *val = &cfg->min_move_interval_ms; break;
    }
}

static int
delays_edit(struct cli *c, struct zke_config *cfg, void *arg)
{
    struct delays *e = arg;
    struct delay *d;
    bool *set, now_set;
    uint32_t *val;
    int i;

    (void)c;
    e->changed = false;
    for (i = 0; i < 4; i++) {
        d = &e->d[i];
        delay_field(cfg, i, &set, &val);
        d->was_set = set ? *set : *val != 0;
        d->was = d->was_set ? *val : 0;
        if (!d->given)
            continue;
        now_set = !d->unset;
        if (now_set != d->was_set || (now_set && d->value != d->was))
            e->changed = true;
        if (set)
            *set = now_set;
        *val = now_set ? d->value : 0;
    }
    return e->changed ? 0 : CONFIG_UNCHANGED;
}

/* "3000 ms", "5 members" or "each node's default" */
static void
delay_str(const struct delay *d, bool set, uint32_t v, char *out, size_t outlen)
{
    if (!set)
        snprintf(out, outlen, "each node's default");
    else
        snprintf(out, outlen, "%u%s", (unsigned)v, d->max == ZKE_EXPECT_MAX ? " members" : " ms");
}

int
cmd_set_delays(struct cli *c, int argc, char **argv)
{
    static const struct cli_optdef defs[] = {
        { "wait", 0, 2, OPT_WAIT },
        { "expect", 0, 1, OPT_EXPECT },
        { "settle-ms", 0, 1, OPT_SETTLE },
        { "failback-delay-ms", 0, 1, OPT_FAILBACK },
        { "min-move-interval-ms", 0, 1, OPT_MIN_MOVE },
        { NULL, 0, 0, 0 }
    };
    struct cli_args a;
    struct delays e;
    struct delay *d;
    const char *arg;
    char esc[128], was[64], now[64];
    cJSON *res = NULL, *x;
    long long v;
    int id, rc, i, wait_s = 0, ngiven = 0;
    int32_t version;
    bool written;

    memset(&e, 0, sizeof(e));
    e.d[0] = (struct delay){ "--expect", "expect", 1, ZKE_EXPECT_MAX, false, false, 0, false, 0 };
    e.d[1] = (struct delay){ "--settle-ms", "settle_ms", 0, ZKE_SETTLE_MAX, false, false, 0,
                             false, 0 };
    e.d[2] = (struct delay){ "--failback-delay-ms", "failback_delay_ms", 0, ZKE_DELAY_MAX, false,
                             false, 0, false, 0 };
    e.d[3] = (struct delay){ "--min-move-interval-ms", "min_move_interval_ms", 0, ZKE_DELAY_MAX,
                             false, false, 0, false, 0 };
    memset(&a, 0, sizeof(a));
    a.argc = argc;
    a.argv = argv;
    while ((id = cli_next_opt(c, &a, defs, &arg)) != 0) {
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
        default:
            d = &e.d[id - OPT_EXPECT];
            if (d->given)
                return cli_usage_err(c, "%s given twice", d->opt);
            d->given = true;
            ngiven++;
            if (strcmp(arg, "default") == 0) {
                d->unset = true;
                break;
            }
            if (cli_parse_int(arg, d->min, d->max, &v) != 0) {
                cli_escape(arg, esc, sizeof(esc));
                return cli_usage_err(c, "%s: \"%s\" is not %s from %lld to %lld, or \"default\"",
                                     d->opt, esc, id == OPT_EXPECT ? "a number of members" :
                                     "a number of milliseconds", d->min, d->max);
            }
            d->value = (uint32_t)v;
            break;
        }
    }
    if (a.npos > 0) {
        cli_escape(a.pos[0], esc, sizeof(esc));
        return cli_usage_err(c, "unexpected argument \"%s\"", esc);
    }
    if (ngiven == 0)
        return cli_usage_err(c, "nothing to set (give --expect, --settle-ms, "
                             "--failback-delay-ms or --min-move-interval-ms)");

    if ((rc = cli_connect(c)) != CLI_OK)
        return rc;
    rc = config_update(c, delays_edit, &e, &version, &written);
    if (rc != CLI_OK)
        return rc;
    if (c->json) {
        if ((res = cJSON_CreateObject()) == NULL)
            return out_json(NULL);
        for (i = 0; i < 4; i++) {
            d = &e.d[i];
            if (!d->given)
                continue;
            if ((x = cJSON_AddObjectToObject(res, d->key)) == NULL)
                continue;
            if (d->unset)
                cJSON_AddNullToObject(x, "value");
            else
                cJSON_AddNumberToObject(x, "value", d->value);
            if (d->was_set)
                cJSON_AddNumberToObject(x, "previous", d->was);
            else
                cJSON_AddNullToObject(x, "previous");
        }
        cJSON_AddBoolToObject(res, "changed", written);
        cJSON_AddNumberToObject(res, "config_version", version);
    } else {
        for (i = 0; i < 4; i++) {
            d = &e.d[i];
            if (!d->given)
                continue;
            delay_str(d, d->was_set, d->was, was, sizeof(was));
            delay_str(d, !d->unset, d->value, now, sizeof(now));
            printf("%s: %s (was %s)\n", d->key, now, was);
        }
        printf("%s; config version %d\n", written ? "config changed" : "nothing to change",
               (int)version);
        fflush(stdout);
    }
    return out_wait_config(c, wait_s, version, res);
}
