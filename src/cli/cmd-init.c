/*
 * cmd-init.c - `zkelect init`: create a group's persistent znodes (the base
 * path and its missing ancestors, nodes, election, config) and, with
 * --operator-auth and --member-auth, digest ACLs on them. Idempotent:
 * existing znodes are left alone and reported.
 *
 * The ACL model (digest ids are user:base64(sha1(user:password))):
 *
 *   znode                        operator   member                world (--world-read)
 *   base, nodes, election        ALL        READ|CREATE|DELETE    READ
 *   config (switchover later)    ALL        READ                  READ
 *   missing ancestors of base    ALL        READ|CREATE           READ
 *
 * Members create their own znodes (nodes/<id>, election/..., and under the
 * base path elected, history and leader) with the library's ACL: their own
 * identity ALL, world READ. DELETE is checked on the parent, so members may
 * delete under base, nodes and election only.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "cli.h"

enum {
    OPT_POLICY = 1, OPT_SITE, OPT_OPERATOR_AUTH, OPT_MEMBER_AUTH, OPT_WORLD_READ,
    OPT_NO_WORLD_READ, OPT_EXPECT, OPT_SETTLE, OPT_FAILBACK, OPT_MIN_MOVE, OPT_LEADERS
};

/* The config options of init, for the note when config exists already. */
struct init_given {
    char list[160];                   /* "--policy, --expect", or "" */
};

static void
init_given_add(struct init_given *g, const char *opt)
{
    size_t n = strlen(g->list);

    if (strstr(g->list, opt) != NULL)
        return;
    snprintf(g->list + n, sizeof(g->list) - n, "%s%s", n ? ", " : "", opt);
}

/* A millisecond option of init: 0 or a usage error printed (CLI_EUSAGE). */
static int
init_ms(struct cli *c, const char *opt, const char *arg, long long min, long long max,
        uint32_t *out)
{
    char esc[128];
    long long v;

    if (cli_parse_int(arg, min, max, &v) != 0) {
        cli_escape(arg, esc, sizeof(esc));
        return cli_usage_err(c, "%s: \"%s\" is not %s from %lld to %lld", opt, esc,
                             strcmp(opt, "--expect") == 0 ? "a number of members" :
                             "a number of milliseconds", min, max);
    }
    *out = (uint32_t)v;
    return 0;
}

#define PERM_MEMBER_DIR (ZOO_PERM_READ | ZOO_PERM_CREATE | ZOO_PERM_DELETE)

struct init_acls {
    bool secure;                      /* digest ACLs requested */
    char op_id[300], mem_id[300];     /* digest ids */
    char op_user[128], mem_user[128]; /* user names, for the report */
    struct ACL dir[3], config[3], ancestor[3], guard[2];
    struct ACL_vector v_dir, v_config, v_ancestor, v_guard;
};

static void
acl_set(struct ACL *a, int perms, const char *scheme, const char *id)
{
    a->perms = perms;
    a->id.scheme = (char *)scheme;    /* the ZooKeeper API is not const-correct */
    a->id.id = (char *)id;
}

static void
init_build_acls(struct init_acls *x, bool world)
{
    int n = 0;

    acl_set(&x->dir[n], ZOO_PERM_ALL, "digest", x->op_id);
    acl_set(&x->config[n], ZOO_PERM_ALL, "digest", x->op_id);
    acl_set(&x->ancestor[n], ZOO_PERM_ALL, "digest", x->op_id);
    n++;
    acl_set(&x->dir[n], PERM_MEMBER_DIR, "digest", x->mem_id);
    acl_set(&x->config[n], ZOO_PERM_READ, "digest", x->mem_id);
    acl_set(&x->ancestor[n], ZOO_PERM_READ | ZOO_PERM_CREATE, "digest", x->mem_id);
    n++;
    if (world) {
        acl_set(&x->dir[n], ZOO_PERM_READ, "world", "anyone");
        acl_set(&x->config[n], ZOO_PERM_READ, "world", "anyone");
        acl_set(&x->ancestor[n], ZOO_PERM_READ, "world", "anyone");
        n++;
    }
    x->v_dir.count = x->v_config.count = x->v_ancestor.count = n;
    /* guards: the operator only (and the world may look) */
    acl_set(&x->guard[0], ZOO_PERM_ALL, "digest", x->op_id);
    x->v_guard.count = 1;
    if (world) {
        acl_set(&x->guard[1], ZOO_PERM_READ, "world", "anyone");
        x->v_guard.count = 2;
    }
    x->v_guard.data = x->guard;
    x->v_dir.data = x->dir;
    x->v_config.data = x->config;
    x->v_ancestor.data = x->ancestor;
}

/* The same entries in any order. */
static bool
acl_equal(const struct ACL_vector *a, const struct ACL_vector *b)
{
    int i, j;

    if (a->count != b->count)
        return false;
    for (i = 0; i < a->count; i++) {
        for (j = 0; j < b->count; j++)
            if (a->data[i].perms == b->data[j].perms &&
                strcmp(a->data[i].id.scheme, b->data[j].id.scheme) == 0 &&
                strcmp(a->data[i].id.id, b->data[j].id.id) == 0)
                break;
        if (j == b->count)
            return false;
    }
    return true;
}

/* Create one znode or report that it exists. 0, or an exit code. */
static int
init_create(struct cli *c, const char *path, const char *data, int len, struct ACL_vector *acl,
            cJSON *list, const char *what, int *created)
{
    struct ACL_vector have;
    struct Stat st;
    cJSON *o;
    bool same = true, known = false;
    uint64_t deadline = cli_mono_ms() + (uint64_t)c->timeout_ms;
    int rc, tries;

    for (tries = 0;; tries++) {
        /* exists first: ZooKeeper checks CREATE on the parent before it
         * looks for the znode, so re-running init without rights must not
         * fail */
        rc = zoo_exists(c->zh, path, 0, &st);
        if (rc == ZNONODE)
            rc = zoo_create(c->zh, path, data, len, acl, ZOO_PERSISTENT, NULL, 0);
        else if (rc == ZOK)
            rc = ZNODEEXISTS;
        /* no answer (ZooKeeper stalled for 2/3 of the session timeout, a
         * server went): the session lives on, and the exists-then-create is
         * safe to run again; a create that was applied is found existing.
         * At most 3 times, within -t */
        if ((rc != ZCONNECTIONLOSS && rc != ZOPERATIONTIMEOUT) || tries >= 2 ||
            !cli_await_connection(c, deadline))
            break;
        cli_err("warning: %s: no answer from ZooKeeper (%s); trying again", path, zerror(rc));
    }
    if (rc != ZOK && rc != ZNODEEXISTS)
        return cli_zk_fail(c, "create", path, rc);
    if (rc == ZOK)
        (*created)++;
    if (rc == ZNODEEXISTS) {
        memset(&have, 0, sizeof(have));
        if (zoo_get_acl(c->zh, path, &have, &st) == ZOK) {
            known = true;
            same = acl_equal(&have, acl);
            deallocate_ACL_vector(&have);
        }
    }
    if (list) {
        if ((o = cJSON_CreateObject()) == NULL)
            return CLI_EFAIL;
        cJSON_AddStringToObject(o, "path", path);
        cJSON_AddStringToObject(o, "what", what);
        cJSON_AddBoolToObject(o, "created", rc == ZOK);
        if (rc == ZOK || known)
            cJSON_AddBoolToObject(o, "acl_as_requested", rc == ZOK || same);
        else
            cJSON_AddNullToObject(o, "acl_as_requested");
        cJSON_AddItemToArray(list, o);
    } else if (rc == ZOK) {
        printf("created %s (%s)\n", path, what);
    } else {
        printf("exists  %s (%s): left alone%s\n", path, what,
               !known ? "" : same ? "" : "; its ACL differs from the requested one");
    }
    return CLI_OK;
}

static int
init_read_identity(const char *file, const char *what, char *id, size_t idlen, char *user,
                   size_t userlen, char **secret)
{
    const char *colon;

    if (cli_read_secret(file, what, secret) != 0)
        return CLI_EFAIL;
    if (cli_digest_id(*secret, id, idlen) != 0) {
        cli_err("auth file %s (%s): cannot compute its digest id", file, what);
        return CLI_EFAIL;
    }
    colon = strchr(*secret, ':');
    snprintf(user, userlen, "%.*s", (int)(colon - *secret), *secret);
    return CLI_OK;
}

int
cmd_init(struct cli *c, int argc, char **argv)
{
    static const struct cli_optdef defs[] = {
        { "policy", 0, 1, OPT_POLICY },
        { "site", 0, 1, OPT_SITE },
        { "operator-auth", 0, 1, OPT_OPERATOR_AUTH },
        { "member-auth", 0, 1, OPT_MEMBER_AUTH },
        { "world-read", 0, 0, OPT_WORLD_READ },
        { "no-world-read", 0, 0, OPT_NO_WORLD_READ },
        { "expect", 0, 1, OPT_EXPECT },
        { "settle-ms", 0, 1, OPT_SETTLE },
        { "failback-delay-ms", 0, 1, OPT_FAILBACK },
        { "min-move-interval-ms", 0, 1, OPT_MIN_MOVE },
        { "leaders", 0, 1, OPT_LEADERS },
        { NULL, 0, 0, 0 }
    };
    struct cli_args a;
    struct zke_config cfg;
    struct init_acls *x = NULL;
    struct init_given given;
    const char *arg, *op_file = NULL, *mem_file = NULL, *eq;
    char *mem_secret = NULL, *out = NULL, anc[CLI_PATH_MAX], esc[128], *p;
    char site[ZKE_SITE_MAX + 1];
    size_t outlen;
    cJSON *res = NULL, *list = NULL;
    long long prio;
    int id, rc, i, world = -1, created = 0, n_before;
    bool config_kept = false;

    memset(&cfg, 0, sizeof(cfg));
    memset(&given, 0, sizeof(given));
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
        case OPT_POLICY:
            if (!zke_name_valid(arg)) {
                cli_escape(arg, esc, sizeof(esc));
                return cli_usage_err(c, "--policy: \"%s\" is not a valid policy name (1 to %d "
                                     "of [A-Za-z0-9._-], not starting with . or -)", esc,
                                     ZKE_NAME_MAX);
            }
            snprintf(cfg.policy, sizeof(cfg.policy), "%s", arg);
            init_given_add(&given, "--policy");
            break;
        case OPT_SITE:
            cli_escape(arg, esc, sizeof(esc));
            if ((eq = strchr(arg, '=')) == NULL)
                return cli_usage_err(c, "--site: \"%s\" is not SITE=PRIO", esc);
            if (cfg.nsites >= ZKE_SITES_MAX)
                return cli_usage_err(c, "--site: at most %d sites", ZKE_SITES_MAX);
            if (eq == arg || (size_t)(eq - arg) > ZKE_SITE_MAX)
                return cli_usage_err(c, "--site: \"%s\": bad site name", esc);
            snprintf(site, sizeof(site), "%.*s", (int)(eq - arg), arg);
            if (!zke_site_valid(site))
                return cli_usage_err(c, "--site: \"%s\": bad site name (1 to %d of "
                                     "[A-Za-z0-9._-], not starting with . or -)", esc,
                                     ZKE_SITE_MAX);
            if (cli_parse_int(eq + 1, ZKE_PRIORITY_MIN, ZKE_PRIORITY_MAX, &prio) != 0)
                return cli_usage_err(c, "--site: \"%s\": PRIO is not an integer from %d to %d",
                                     esc, ZKE_PRIORITY_MIN, ZKE_PRIORITY_MAX);
            for (i = 0; i < cfg.nsites; i++)
                if (strcmp(cfg.sites[i].site, site) == 0)
                    return cli_usage_err(c, "--site: site \"%s\" given twice", site);
            snprintf(cfg.sites[cfg.nsites].site, sizeof(cfg.sites[0].site), "%s", site);
            cfg.sites[cfg.nsites++].priority = (int32_t)prio;
            init_given_add(&given, "--site");
            break;
        case OPT_EXPECT:
            if (init_ms(c, "--expect", arg, 1, ZKE_EXPECT_MAX, &cfg.expect) != 0)
                return CLI_EUSAGE;
            init_given_add(&given, "--expect");
            break;
        case OPT_SETTLE:
            if (init_ms(c, "--settle-ms", arg, 0, ZKE_SETTLE_MAX, &cfg.settle_ms) != 0)
                return CLI_EUSAGE;
            cfg.settle_set = true;
            init_given_add(&given, "--settle-ms");
            break;
        case OPT_FAILBACK:
            if (init_ms(c, "--failback-delay-ms", arg, 0, ZKE_DELAY_MAX,
                        &cfg.failback_delay_ms) != 0)
                return CLI_EUSAGE;
            cfg.failback_set = true;
            init_given_add(&given, "--failback-delay-ms");
            break;
        case OPT_MIN_MOVE:
            if (init_ms(c, "--min-move-interval-ms", arg, 0, ZKE_DELAY_MAX,
                        &cfg.min_move_interval_ms) != 0)
                return CLI_EUSAGE;
            cfg.min_move_set = true;
            init_given_add(&given, "--min-move-interval-ms");
            break;
        case OPT_LEADERS:
            /* a new group has no members yet: nobody to check max_leaders of */
            if (cli_parse_int(arg, 1, ZKE_LEADERS_MAX, &prio) != 0) {
                cli_escape(arg, esc, sizeof(esc));
                return cli_usage_err(c, "--leaders: \"%s\" is not a number of leaders from 1 "
                                     "to %d", esc, ZKE_LEADERS_MAX);
            }
            cfg.leaders = (uint32_t)prio;
            init_given_add(&given, "--leaders");
            break;
        case OPT_OPERATOR_AUTH:
            op_file = arg;
            break;
        case OPT_MEMBER_AUTH:
            mem_file = arg;
            break;
        case OPT_WORLD_READ:
        case OPT_NO_WORLD_READ:
            if (world >= 0 && world != (id == OPT_WORLD_READ))
                return cli_usage_err(c, "--world-read and --no-world-read exclude each other");
            world = id == OPT_WORLD_READ;
            break;
        }
    }
    if (a.npos > 0) {
        cli_escape(a.pos[0], esc, sizeof(esc));
        return cli_usage_err(c, "unexpected argument \"%s\"", esc);
    }
    if ((op_file == NULL) != (mem_file == NULL))
        return cli_usage_err(c, "--operator-auth and --member-auth go together (ACLs need both "
                             "identities)");
    if (op_file == NULL && world == 0)
        return cli_usage_err(c, "--no-world-read needs --operator-auth and --member-auth");

    if ((x = calloc(1, sizeof(*x))) == NULL) {
        cli_err("out of memory");
        return CLI_EFAIL;
    }
    if (op_file) {
        x->secure = true;
        rc = init_read_identity(op_file, "--operator-auth", x->op_id, sizeof(x->op_id),
                                x->op_user, sizeof(x->op_user), &c->extra_auth);
        if (rc == CLI_OK)
            rc = init_read_identity(mem_file, "--member-auth", x->mem_id, sizeof(x->mem_id),
                                    x->mem_user, sizeof(x->mem_user), &mem_secret);
        cli_secret_free(mem_secret);
        if (rc != CLI_OK)
            goto out;
        if (strcmp(x->op_user, x->mem_user) == 0) {
            cli_err("the operator and member identities must be different users (both are "
                    "\"%s\")", x->op_user);
            rc = CLI_EFAIL;
            goto out;
        }
        init_build_acls(x, world != 0);
    }
    if ((rc = cli_connect(c)) != CLI_OK)
        goto out;
    if (c->json) {
        if ((res = cJSON_CreateObject()) == NULL || (list = cJSON_CreateArray()) == NULL) {
            cJSON_Delete(res);
            cJSON_Delete(list);
            res = NULL;
            rc = out_json(NULL);
            goto out;
        }
    }

    /* the ancestors of the base path, then the group's own znodes */
    snprintf(anc, sizeof(anc), "%s", c->path);
    for (p = strchr(anc + 1, '/'); p; p = strchr(p + 1, '/')) {
        *p = '\0';
        rc = init_create(c, anc, NULL, -1, x->secure ? &x->v_ancestor : &ZOO_OPEN_ACL_UNSAFE,
                         list, "ancestor", &created);
        *p = '/';
        if (rc != CLI_OK)
            goto out;
    }
    if ((rc = init_create(c, c->path, NULL, -1, x->secure ? &x->v_dir : &ZOO_OPEN_ACL_UNSAFE,
                          list, "base path", &created)) != CLI_OK ||
        (rc = init_create(c, c->p_nodes, NULL, -1, x->secure ? &x->v_dir : &ZOO_OPEN_ACL_UNSAFE,
                          list, "member records", &created)) != CLI_OK ||
        (rc = init_create(c, c->p_election, NULL, -1, x->secure ? &x->v_dir :
                          &ZOO_OPEN_ACL_UNSAFE, list, "election", &created)) != CLI_OK)
        goto out;
    if (zke_config_encode(&cfg, &out, &outlen) != 0) {
        cli_err("cannot encode the config");
        rc = CLI_EFAIL;
        goto out;
    }
    n_before = created;
    if ((rc = init_create(c, c->p_config, out, (int)outlen, x->secure ? &x->v_config :
                          &ZOO_OPEN_ACL_UNSAFE, list, "config", &created)) != CLI_OK)
        goto out;
    /* init never changes an existing znode: say which options were not applied */
    config_kept = created == n_before && *given.list != '\0';
    if (config_kept)
        cli_err("note: %s exists: %s not applied (init never changes existing znodes; "
                "set-site-priority changes a site, set-delays the delays, set-leaders the "
                "number of leaders)", c->p_config, given.list);
    /* the switchover znode exists from the start, holding "no request", so
       that only the operator can ever write requests into it */
    {
        struct zke_switchover sw;
        char *swout = NULL;
        size_t swlen = 0;

        memset(&sw, 0, sizeof(sw));
        if (zke_switchover_encode(&sw, &swout, &swlen) != 0) {
            cli_err("cannot encode the switchover znode");
            rc = CLI_EFAIL;
            goto out;
        }
        rc = init_create(c, c->p_switchover, swout, (int)swlen, x->secure ? &x->v_config :
                         &ZOO_OPEN_ACL_UNSAFE, list, "switchover (no request)", &created);
        free(swout);
        if (rc != CLI_OK)
            goto out;
    }
    /*
     * Members need CREATE and DELETE on the base path (for leader, elected,
     * history), and ZooKeeper checks DELETE on the parent: a member could
     * delete config or switchover and create its own. A child owned by the
     * operator makes each undeletable (ZooKeeper never deletes a znode with
     * children, and deleting the guard needs DELETE on config itself).
     */
    if (x->secure) {
        char guard[CLI_PATH_MAX + 8];
        snprintf(guard, sizeof(guard), "%s/guard", c->p_config);
        if ((rc = init_create(c, guard, NULL, -1, &x->v_guard, list, "guard of config",
                              &created)) != CLI_OK)
            goto out;
        snprintf(guard, sizeof(guard), "%s/guard", c->p_switchover);
        if ((rc = init_create(c, guard, NULL, -1, &x->v_guard, list, "guard of switchover",
                              &created)) != CLI_OK)
            goto out;
    }

    if (c->json) {
        cJSON_AddStringToObject(res, "path", c->path);
        cJSON_AddStringToObject(res, "acl", x->secure ? "digest" : "open");
        cJSON_AddNumberToObject(res, "created", created);
        if (config_kept)
            cJSON_AddStringToObject(res, "config_not_applied", given.list);
        else
            cJSON_AddNullToObject(res, "config_not_applied");
        if (x->secure) {
            cJSON_AddStringToObject(res, "operator", x->op_user);
            cJSON_AddStringToObject(res, "member", x->mem_user);
            cJSON_AddBoolToObject(res, "world_read", world != 0);
        }
        cJSON_AddItemToObject(res, "znodes", list);
        list = NULL;
        rc = out_json(res);
        res = NULL;
    } else if (created == 0) {
        printf("nothing created: group %s exists (init never changes existing znodes)\n",
               c->path);
    } else if (x->secure) {
        printf("ACLs of the created znodes: operator \"%s\" ALL; member \"%s\" "
               "READ|CREATE|DELETE on the base path, "
               "nodes and election, READ on config and switchover (both guarded against "
               "deletion); world %s\n", x->op_user, x->mem_user,
               world != 0 ? "READ" : "nothing");
    } else {
        printf("ACLs of the created znodes: open (world ALL); use --operator-auth and "
               "--member-auth for digest ACLs\n");
    }
out:
    free(out);
    cJSON_Delete(list);
    cJSON_Delete(res);
    free(x);
    return rc;
}
