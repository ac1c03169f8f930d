/*
 * cmd-switchover.c - `zkelect switchover [--to NODE] [--wait[=SECONDS]]`:
 * ask the elector for a planned move of leadership through the normal
 * two-phase handover, by writing <path>/switchover {v, id, to, at_ms, by}
 * with compare-and-set. The request id is one above both the last request
 * and the last one the elector acted on (elected.switchover_id).
 */
#include "config.h"

#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cJSON.h>

#include "cli.h"

enum { OPT_WAIT = 1, OPT_TO };

struct so_wait {
    uint64_t id;                      /* the request written */
    char from[ZKE_ID_MAX + 1];        /* elected leader when it was written */
    const char *to;                   /* requested node or NULL */
};

/* "user@host" for the "by" field: printable ASCII only, at most ZKE_NAME_MAX bytes. */
static void
requester(char *out, size_t outlen)
{
    char host[256] = "", user[64] = "";
    struct passwd *pw = getpwuid(geteuid());
    char *p;

    if (pw && pw->pw_name)
        snprintf(user, sizeof(user), "%s", pw->pw_name);
    else
        snprintf(user, sizeof(user), "uid%u", (unsigned)geteuid());
    if (gethostname(host, sizeof(host) - 1) != 0)
        host[0] = '\0';
    host[sizeof(host) - 1] = '\0';
    snprintf(out, outlen, "%s@%s", user, *host ? host : "?");
    for (p = out; *p; p++)
        if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
            *p = '?';
}

/* Refuse what the elector would refuse: 0 to go on, else an exit code. */
static int
so_check(struct cli *c, const struct cli_view *v, const char *to, const char *cur)
{
    const struct cli_member *m;
    const struct zke_exclusion *x;
    int i;

    if (to) {
        m = view_member(v, to);
        if (m == NULL || (!m->have_rec && !m->bad_rec)) {
            cli_err("refused: %s is not a member of group %s", to, c->path);
            return CLI_EREFUSED;
        }
        if (m->bad_rec) {
            cli_err("refused: the member record of %s is malformed", to);
            return CLI_EREFUSED;
        }
        if (m->seq < 0) {
            cli_err("refused: %s has no election znode (not registered)", to);
            return CLI_EREFUSED;
        }
        if (!m->rec.eligible) {
            cli_err("refused: %s is not eligible to lead (its own configuration)", to);
            return CLI_EREFUSED;
        }
        if (!m->rec.healthy) {
            cli_err("refused: %s is not healthy (its health check fails)", to);
            return CLI_EREFUSED;
        }
        if ((x = view_excluded(v, to)) != NULL) {
            cli_err("refused: %s is excluded by the elector (%s, %llu ms left)", to, x->reason,
                    (unsigned long long)x->remaining_ms);
            return CLI_EREFUSED;
        }
        if (*cur && strcmp(cur, to) == 0) {
            cli_err("refused: %s is already the leader", to);
            return CLI_EREFUSED;
        }
        return CLI_OK;
    }
    if (*cur == '\0') {
        cli_err("there is no leader to move away from (the elector elects one as soon as a "
                "node can lead; use --to NODE to ask for a node)");
        return CLI_ENOLEADER;
    }
    for (i = 0; i < v->nmembers; i++)
        if (strcmp(v->members[i].id, cur) != 0 && view_can_lead(v, &v->members[i]))
            return CLI_OK;
    cli_err("refused: no node other than %s can lead (eligible, healthy, not excluded)", cur);
    return CLI_EREFUSED;
}

static int
so_done(struct cli *c, const struct cli_view *v, void *arg)
{
    struct so_wait *w = arg;

    (void)c;
    if (!v->have_elected || v->elected.switchover_id < w->id)
        return 0;
    if (strcmp(v->elected.leader, w->from) == 0) {
        cli_err("the elector refused switchover %llu: %s", (unsigned long long)w->id,
                v->elected.reason);
        return CLI_EREFUSED;
    }
    if (w->to && *v->elected.leader && strcmp(v->elected.leader, w->to) != 0)
        cli_err("note: the elector chose %s, not %s: %s", v->elected.leader, w->to,
                v->elected.reason);
    return 1;
}

int
cmd_switchover(struct cli *c, int argc, char **argv)
{
    static const struct cli_optdef defs[] = {
        { "wait", 0, 2, OPT_WAIT },
        { "to", 0, 1, OPT_TO },
        { NULL, 0, 0, 0 }
    };
    struct cli_args a;
    struct cli_view v;
    struct zke_switchover so;
    struct so_wait sw;
    struct ACL_vector keep, aclv;
    struct ACL acl[16];
    struct Stat st;
    const char *arg, *to = NULL, *cur;
    char fp[CLI_PATH_MAX], what[160], *out;
    size_t outlen;
    cJSON *res = NULL;
    int id, rc, wait_s = 0, try, n;
    int32_t so_version;

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
            if (cli_parse_wait(arg, &wait_s) != 0)
                return cli_usage_err(c, "--wait=%s: expected a number of seconds from 1 to 86400",
                                     arg);
            break;
        case OPT_TO:
            if (!zke_id_valid(arg)) {
                char esc[128];
                cli_escape(arg, esc, sizeof(esc));
                return cli_usage_err(c, "--to: \"%s\" is not a valid node id (1 to %d of "
                                     "[A-Za-z0-9._-], not starting with . or -)", esc, ZKE_ID_MAX);
            }
            to = arg;
            break;
        }
    }
    if (a.npos > 0) {
        char esc[128];
        cli_escape(a.pos[0], esc, sizeof(esc));
        return cli_usage_err(c, "unexpected argument \"%s\" (use --to NODE)", esc);
    }
    if ((rc = cli_connect(c)) != CLI_OK || (rc = cli_check_group(c)) != CLI_OK)
        return rc;

    memset(&sw, 0, sizeof(sw));
    for (try = 0; try < CLI_CAS_TRIES; try++) {
        rc = view_load(c, &v, VIEW_MEMBERS | VIEW_ELECTED | VIEW_LEADER | VIEW_SWITCHOVER, false,
                       fp, sizeof(fp));
        if (rc != ZOK) {
            view_free(&v);
            return cli_zk_fail(c, "read", fp, rc);
        }
        if (v.elected_version >= 0 && !v.have_elected) {
            view_print_errors(&v);
            cli_err("cannot number the request while %s is malformed", c->p_elected);
            view_free(&v);
            return CLI_EFAIL;
        }
        if (v.bad_switchover)
            cli_err("warning: replacing the malformed request in %s", c->p_switchover);
        cur = v.have_leader ? v.leader.id : v.have_elected ? v.elected.leader : "";
        if ((rc = so_check(c, &v, to, cur)) != CLI_OK) {
            view_free(&v);
            return rc;
        }
        memset(&so, 0, sizeof(so));
        so.id = v.have_switchover ? v.switchover.id : 0;
        if (v.have_elected && v.elected.switchover_id > so.id)
            so.id = v.elected.switchover_id;
        so.id++;
        if (to)
            snprintf(so.to, sizeof(so.to), "%s", to);
        so.at_ms = cli_wall_ms();
        requester(so.by, sizeof(so.by));
        sw.id = so.id;
        snprintf(sw.from, sizeof(sw.from), "%s", v.have_elected ? v.elected.leader : cur);
        sw.to = to;
        so_version = v.switchover_version;
        view_free(&v);
        if ((rc = zke_switchover_encode(&so, &out, &outlen)) != 0) {
            cli_err("cannot encode the switchover request (%d)", rc);
            return CLI_EFAIL;
        }
        if (so_version >= 0) {
            rc = zoo_set2(c->zh, c->p_switchover, out, (int)outlen, so_version, &st);
            free(out);
            if (rc == ZBADVERSION || rc == ZNONODE)
                continue;
            if (rc != ZOK)
                return cli_zk_fail(c, "write", c->p_switchover, rc);
        } else {
            n = cli_child_acl(c, &keep, acl, (int)(sizeof(acl) / sizeof(acl[0])));
            if (n <= 0) {
                free(out);
                if (n == 0) {
                    deallocate_ACL_vector(&keep);
                    cli_err("cannot create %s: the ACL of %s grants nothing to pass on (use -a)",
                            c->p_switchover, c->path);
                    return CLI_EFAIL;
                }
                return cli_zk_fail(c, "read the ACL of", c->path, n);
            }
            aclv.count = n;
            aclv.data = acl;
            rc = zoo_create(c->zh, c->p_switchover, out, (int)outlen, &aclv, ZOO_PERSISTENT,
                            NULL, 0);
            deallocate_ACL_vector(&keep);
            free(out);
            if (rc == ZNODEEXISTS)
                continue;
            if (rc != ZOK)
                return cli_zk_fail(c, "create", c->p_switchover, rc);
        }
        break;
    }
    if (try == CLI_CAS_TRIES) {
        cli_err("%s changed concurrently %d times in a row; giving up (try again)",
                c->p_switchover, CLI_CAS_TRIES);
        return CLI_EFAIL;
    }
    if (c->json) {
        if ((res = cJSON_CreateObject()) == NULL)
            return out_json(NULL);
        cJSON_AddNumberToObject(res, "id", (double)so.id);
        if (*sw.from)
            cJSON_AddStringToObject(res, "from", sw.from);
        else
            cJSON_AddNullToObject(res, "from");
        if (to)
            cJSON_AddStringToObject(res, "to", to);
        else
            cJSON_AddNullToObject(res, "to");
        cJSON_AddStringToObject(res, "by", so.by);
    } else {
        printf("switchover %llu requested: %s -> %s\n", (unsigned long long)so.id,
               *sw.from ? sw.from : "(none)", to ? to : "the best other node");
        fflush(stdout);
    }
    rc = CLI_OK;
    if (wait_s > 0) {
        snprintf(what, sizeof(what), "the elector to act on switchover %llu (is a member "
                 "running?)", (unsigned long long)so.id);
        rc = out_wait_decision(c, cli_mono_ms() + (uint64_t)wait_s * 1000, what, so_done, &sw,
                               res);
    }
    if (res && out_json(res) != CLI_OK && rc == CLI_OK)
        rc = CLI_EFAIL;
    return rc;
}
