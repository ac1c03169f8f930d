/*
 * cmd-history.c - `zkelect history [-n N]`: the last decisions the electors
 * recorded in <path>/history (at most 64), newest last. When an entry names
 * a slot other than 0 (a group with N > 1 leaders), every entry shows its
 * slot (a SLOT column, "slot" in --json); otherwise the output is what it
 * was before slots existed.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "cli.h"

enum { OPT_N = 1 };

/* Some entry names a slot other than 0. */
static bool
history_has_slots(const struct zke_history *h)
{
    int i;

    for (i = 0; i < h->n; i++)
        if (h->entries[i].slot != 0)
            return true;
    return false;
}

static int
history_json(const struct zke_history *h, int first)
{
    bool slots = history_has_slots(h);
    cJSON *arr = cJSON_CreateArray(), *o;
    char when[64];
    int i;

    if (arr == NULL)
        return out_json(NULL);
    for (i = first; i < h->n; i++) {
        const struct zke_history_entry *e = &h->entries[i];
        if ((o = cJSON_CreateObject()) == NULL)
            break;
        if (slots)
            cJSON_AddNumberToObject(o, "slot", e->slot);
        cJSON_AddNumberToObject(o, "epoch", (double)e->epoch);
        if (*e->leader)
            cJSON_AddStringToObject(o, "leader", e->leader);
        else
            cJSON_AddNullToObject(o, "leader");
        cJSON_AddStringToObject(o, "elector", e->elector);
        cJSON_AddStringToObject(o, "policy", e->policy);
        cJSON_AddStringToObject(o, "reason", e->reason);
        cJSON_AddNumberToObject(o, "at_ms", (double)e->at_ms);
        cli_time_str(e->at_ms, when, sizeof(when));
        cJSON_AddStringToObject(o, "time", when);
        cJSON_AddItemToArray(arr, o);
    }
    return out_json(arr);
}

int
cmd_history(struct cli *c, int argc, char **argv)
{
    static const struct cli_optdef defs[] = {
        { "count", 'n', 1, OPT_N },
        { NULL, 0, 0, 0 }
    };
    struct cli_args a;
    struct zke_history *h;
    struct Stat st;
    const char *arg;
    char *buf, err[256], when[64], ep[32], sl[16];
    bool slots;
    long long n = ZKE_HISTORY_MAX;
    int id, rc, len, i, first;
    size_t wl = 6, we = 5, we2 = 7, wp = 6;   /* column widths: at least the headings */

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
        case OPT_N:
            if (cli_parse_int(arg, 1, ZKE_HISTORY_MAX, &n) != 0) {
                char esc[128];
                cli_escape(arg, esc, sizeof(esc));
                return cli_usage_err(c, "-n: \"%s\" is not a count from 1 to %d", esc,
                                     ZKE_HISTORY_MAX);
            }
            break;
        }
    }
    if (a.npos > 0) {
        char esc[128];
        cli_escape(a.pos[0], esc, sizeof(esc));
        return cli_usage_err(c, "unexpected argument \"%s\"", esc);
    }
    if ((rc = cli_connect(c)) != CLI_OK || (rc = cli_check_group(c)) != CLI_OK)
        return rc;
    rc = cli_get(c, c->p_history, false, &buf, &len, &st);
    if (rc == ZNONODE) {
        if (c->json)
            return out_json(cJSON_CreateArray());
        printf("no decisions yet\n");
        return CLI_OK;
    }
    if (rc != ZOK)
        return cli_zk_fail(c, "read", c->p_history, rc);
    if ((h = malloc(sizeof(*h))) == NULL) {
        free(buf);
        cli_err("out of memory");
        return CLI_EFAIL;
    }
    rc = zke_history_decode(buf, len, h, err, sizeof(err));
    free(buf);
    if (rc != 0) {
        cli_err("malformed data: znode %s: %s", c->p_history, err);
        free(h);
        return CLI_EFAIL;
    }
    first = h->n > n ? h->n - (int)n : 0;
    if (c->json) {
        rc = history_json(h, first);
        free(h);
        return rc;
    }
    if (h->n == 0) {
        printf("no decisions yet\n");
        free(h);
        return CLI_OK;
    }
    for (i = first; i < h->n; i++) {
        const struct zke_history_entry *e = &h->entries[i];
        snprintf(ep, sizeof(ep), "%llu", (unsigned long long)e->epoch);
        if (strlen(ep) > we)
            we = strlen(ep);
        if (strlen(e->leader) > wl)
            wl = strlen(e->leader);
        if (strlen(e->elector) > we2)
            we2 = strlen(e->elector);
        if (strlen(e->policy) > wp)
            wp = strlen(e->policy);
    }
    slots = history_has_slots(h);
    printf("%-19s  %s%-*s  %-*s  %-*s  %-*s  %s\n", "TIME", slots ? "SLOT  " : "", (int)we,
           "EPOCH", (int)wl, "LEADER", (int)we2, "ELECTOR", (int)wp, "POLICY", "REASON");
    for (i = first; i < h->n; i++) {
        const struct zke_history_entry *e = &h->entries[i];
        cli_time_str(e->at_ms, when, sizeof(when));
        snprintf(ep, sizeof(ep), "%llu", (unsigned long long)e->epoch);
        if (slots)
            snprintf(sl, sizeof(sl), "%-4d  ", e->slot);
        printf("%-19s  %s%-*s  %-*s  %-*s  %-*s  %s\n", when, slots ? sl : "", (int)we, ep,
               (int)wl, *e->leader ? e->leader : "-", (int)we2, e->elector, (int)wp, e->policy,
               e->reason);
    }
    free(h);
    return CLI_OK;
}
