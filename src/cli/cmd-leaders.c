/*
 * cmd-leaders.c - `zkelect set-leaders N [--wait[=SECONDS]]`: set N, the
 * number of active leaders (slots) of a group, in the config znode with
 * compare-and-set (issue 17).
 *
 * N above 1 needs every member to serve it: a member's record says the
 * largest N it can (max_leaders); a record without it comes from a release
 * before slots, which serves one leader. Such a member would go on acting
 * on slot 0 alone, so the CLI refuses and names the members that are in
 * the way. The members are read again on every compare-and-set attempt;
 * one that joins after the write is the elector's to deal with. There is
 * no --force: upgrade or stop the members first.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include <cJSON.h>

#include "cli.h"

enum { OPT_WAIT = 1 };

struct leaders_edit {
    uint32_t leaders;                 /* N asked for */
    uint32_t previous;                /* N before the edit */
};

/*
 * Refuse N when a live member (a record in nodes/) cannot serve it; returns
 * 0, or an exit code after saying why. A malformed record cannot tell:
 * refused too.
 */
static int
leaders_check_members(struct cli *c, uint32_t n)
{
    struct cli_view v;
    const struct cli_member *m;
    char fp[CLI_PATH_MAX], list[1024], item[ZKE_ID_MAX + 48];
    size_t off = 0;
    int rc, i, bad = 0;

    rc = view_load(c, &v, VIEW_MEMBERS, false, fp, sizeof(fp));
    if (rc != ZOK) {
        view_free(&v);
        return cli_zk_fail(c, "read", fp, rc);
    }
    list[0] = '\0';
    for (i = 0; i < v.nmembers; i++) {
        m = &v.members[i];
        if (m->have_rec && m->rec.max_leaders >= n)
            continue;
        if (m->have_rec)
            snprintf(item, sizeof(item), "%s (at most %u%s)", m->id,
                     (unsigned)m->rec.max_leaders,
                     m->rec.max_leaders == 1 ? ": a release without slots, or a policy "
                     "without choose_set" : "");
        else if (m->bad_rec)
            snprintf(item, sizeof(item), "%s (member record malformed)", m->id);
        else
            continue;   /* in election without a record yet: not a member yet */
        if (off < sizeof(list))
            off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%s", bad ? ", " : "",
                                    item);
        bad++;
    }
    if (bad > 0)
        view_print_errors(&v);
    view_free(&v);
    if (bad == 0)
        return CLI_OK;
    cli_err("refused: %d member%s of %s cannot serve %u leaders: %s; upgrade %s or stop %s "
            "first", bad, bad > 1 ? "s" : "", c->path, (unsigned)n, list,
            bad > 1 ? "them" : "it", bad > 1 ? "them" : "it");
    return CLI_EREFUSED;
}

static int
leaders_edit(struct cli *c, struct zke_config *cfg, void *arg)
{
    struct leaders_edit *e = arg;
    int rc;

    e->previous = cfg->leaders ? cfg->leaders : 1;
    if (cfg->leaders == e->leaders)
        return CONFIG_UNCHANGED;
    if (e->leaders > 1 && (rc = leaders_check_members(c, e->leaders)) != CLI_OK)
        return rc;
    cfg->leaders = e->leaders;
    return 0;
}

int
cmd_set_leaders(struct cli *c, int argc, char **argv)
{
    static const struct cli_optdef defs[] = {
        { "wait", 0, 2, OPT_WAIT },
        { NULL, 0, 0, 0 }
    };
    struct cli_args a;
    struct leaders_edit e;
    const char *arg;
    char esc[128];
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
    if (a.npos != 1)
        return cli_usage_err(c, a.npos < 1 ? "expected N" : "too many arguments");
    if (cli_parse_int(a.pos[0], 1, ZKE_LEADERS_MAX, &n) != 0) {
        cli_escape(a.pos[0], esc, sizeof(esc));
        return cli_usage_err(c, "N \"%s\" is not a number of leaders from 1 to %d", esc,
                             ZKE_LEADERS_MAX);
    }
    memset(&e, 0, sizeof(e));
    e.leaders = (uint32_t)n;

    if ((rc = cli_connect(c)) != CLI_OK)
        return rc;
    rc = config_update(c, leaders_edit, &e, &version, &written);
    if (rc != CLI_OK)
        return rc;
    if (c->json) {
        if ((res = cJSON_CreateObject()) == NULL)
            return out_json(NULL);
        cJSON_AddNumberToObject(res, "leaders", e.leaders);
        cJSON_AddNumberToObject(res, "previous", e.previous);
        cJSON_AddBoolToObject(res, "changed", written);
        cJSON_AddNumberToObject(res, "config_version", version);
    } else {
        if (written)
            printf("leaders: %u (was %u); config version %d\n", (unsigned)e.leaders,
                   (unsigned)e.previous, (int)version);
        else
            printf("leaders: %u (unchanged); config version %d\n", (unsigned)e.leaders,
                   (int)version);
        fflush(stdout);
    }
    return out_wait_config(c, wait_s, version, res);
}
