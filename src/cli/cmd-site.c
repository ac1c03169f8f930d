/*
 * cmd-site.c - `zkelect set-site-priority SITE N [--wait[=SECONDS]]` and
 * `zkelect get-site-priority [SITE]`: the site priorities of the config
 * znode, changed with compare-and-set.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "cli.h"

enum { OPT_WAIT = 1 };

struct site_edit {
    const char *site;             /* the site to change */
    int32_t priority;             /* its new priority */
    int32_t previous;             /* its priority before (0 when not listed) */
    bool listed;                  /* it was listed before */
};

static int
site_edit(struct cli *c, struct zke_config *cfg, void *arg)
{
    struct site_edit *e = arg;
    int i;

    (void)c;
    e->listed = false;
    e->previous = 0;
    for (i = 0; i < cfg->nsites; i++)
        if (strcmp(cfg->sites[i].site, e->site) == 0) {
            e->listed = true;
            e->previous = cfg->sites[i].priority;
            cfg->sites[i].priority = e->priority;
            return 0;
        }
    if (cfg->nsites >= ZKE_SITES_MAX) {
        cli_err("the config already lists %d sites, the most it can hold", ZKE_SITES_MAX);
        return CLI_EFAIL;
    }
    snprintf(cfg->sites[cfg->nsites].site, sizeof(cfg->sites[0].site), "%s", e->site);
    cfg->sites[cfg->nsites].priority = e->priority;
    cfg->nsites++;
    return 0;
}

int
cmd_set_site_priority(struct cli *c, int argc, char **argv)
{
    static const struct cli_optdef defs[] = {
        { "wait", 0, 2, OPT_WAIT },
        { NULL, 0, 0, 0 }
    };
    struct cli_args a;
    struct site_edit e;
    const char *arg;
    cJSON *res = NULL;
    long long n;
    int id, rc, wait_s = 0;
    int32_t version;
    bool written;

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
        }
    }
    if (a.npos != 2)
        return cli_usage_err(c, a.npos < 2 ? "expected SITE and N" : "too many arguments");
    if (*a.pos[0] == '\0' || !zke_site_valid(a.pos[0])) {
        char esc[128];
        cli_escape(a.pos[0], esc, sizeof(esc));
        return cli_usage_err(c, "SITE \"%s\" is not a valid site name (1 to %d of [A-Za-z0-9._-], "
                             "not starting with . or -)", esc, ZKE_SITE_MAX);
    }
    if (cli_parse_int(a.pos[1], ZKE_PRIORITY_MIN, ZKE_PRIORITY_MAX, &n) != 0) {
        char esc[128];
        cli_escape(a.pos[1], esc, sizeof(esc));
        return cli_usage_err(c, "N \"%s\" is not an integer from %d to %d", esc,
                             ZKE_PRIORITY_MIN, ZKE_PRIORITY_MAX);
    }
    memset(&e, 0, sizeof(e));
    e.site = a.pos[0];
    e.priority = (int32_t)n;

    if ((rc = cli_connect(c)) != CLI_OK)
        return rc;
    rc = config_update(c, site_edit, &e, &version, &written);
    if (rc != CLI_OK)
        return rc;
    if (c->json) {
        if ((res = cJSON_CreateObject()) == NULL)
            return out_json(NULL);
        cJSON_AddStringToObject(res, "site", e.site);
        cJSON_AddNumberToObject(res, "priority", e.priority);
        if (e.listed)
            cJSON_AddNumberToObject(res, "previous", e.previous);
        else
            cJSON_AddNullToObject(res, "previous");
        cJSON_AddNumberToObject(res, "config_version", version);
    } else {
        if (e.listed)
            printf("site %s: priority %d (was %d); config version %d\n", e.site, (int)e.priority,
                   (int)e.previous, (int)version);
        else
            printf("site %s: priority %d (was not listed: 0); config version %d\n", e.site,
                   (int)e.priority, (int)version);
        fflush(stdout);
    }
    return out_wait_config(c, wait_s, version, res);
}

int
cmd_get_site_priority(struct cli *c, int argc, char **argv)
{
    struct cli_args a;
    struct cli_view v;
    char fp[CLI_PATH_MAX];
    cJSON *o, *sites;
    int32_t prio;
    bool listed;
    int rc, i;

    if ((rc = cli_parse_simple(c, argc, argv, 0, 1, &a)) >= 0)
        return rc;
    if (a.npos == 1 && (*a.pos[0] == '\0' || !zke_site_valid(a.pos[0]))) {
        char esc[128];
        cli_escape(a.pos[0], esc, sizeof(esc));
        return cli_usage_err(c, "SITE \"%s\" is not a valid site name", esc);
    }
    if ((rc = cli_connect(c)) != CLI_OK || (rc = cli_check_group(c)) != CLI_OK)
        return rc;
    rc = view_load(c, &v, VIEW_CONFIG, false, fp, sizeof(fp));
    if (rc != ZOK)
        return cli_zk_fail(c, "read", fp, rc);
    if (v.bad_config) {
        view_print_errors(&v);
        return CLI_EFAIL;
    }
    if (a.npos == 1) {
        prio = view_site_priority(&v, a.pos[0], &listed);
        if (c->json) {
            if ((o = cJSON_CreateObject()) == NULL)
                return out_json(NULL);
            cJSON_AddStringToObject(o, "site", a.pos[0]);
            cJSON_AddNumberToObject(o, "priority", prio);
            cJSON_AddBoolToObject(o, "listed", listed);
            cJSON_AddNumberToObject(o, "config_version", v.config_version);
            return out_json(o);
        }
        printf("%s %d%s\n", a.pos[0], (int)prio, listed ? "" : " (not listed: the default)");
        return CLI_OK;
    }
    if (c->json) {
        if ((o = cJSON_CreateObject()) == NULL)
            return out_json(NULL);
        if ((sites = cJSON_AddObjectToObject(o, "sites")) != NULL)
            for (i = 0; v.have_config && i < v.config.nsites; i++)
                cJSON_AddNumberToObject(sites, v.config.sites[i].site, v.config.sites[i].priority);
        cJSON_AddNumberToObject(o, "config_version", v.config_version);
        return out_json(o);
    }
    if (!v.have_config || v.config.nsites == 0) {
        printf("no site priorities%s: every site has priority 0\n",
               v.have_config ? "" : " (no config)");
        return CLI_OK;
    }
    for (i = 0; i < v.config.nsites; i++)
        printf("%s %d\n", v.config.sites[i].site, (int)v.config.sites[i].priority);
    return CLI_OK;
}
