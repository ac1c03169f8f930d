/*
 * cli-helper.c - a helper for tests/cli/test_cli_zk.sh.
 *
 *   cli-helper nodes -z HOSTS -p PATH [-a AUTHFILE] [-s SESSION_MS] [-w WATCHDOG_MS] SPEC...
 *       Open one zkelect handle per SPEC "ID:SITE:PRIO[:FLAGS]" (FLAGS: i =
 *       not eligible, u = unhealthy, h = the takeover never completes),
 *       nominate it in group PATH with the "site" policy, print "ready" and
 *       keep everything until stdin ends (or "quit"). Lines on stdin:
 *       "healthy ID", "unhealthy ID", "eligible ID", "ineligible ID"; each
 *       is answered with "ok" or "error: ...".
 *
 *   cli-helper set -z HOSTS [-a AUTHFILE] PATH DATA
 *       A foreign client: write DATA as is into PATH (created, open ACL, when
 *       absent); used to plant malformed data.
 *
 *   cli-helper get -z HOSTS [-a AUTHFILE] PATH
 *       Print PATH's data as is, then a newline (what the CLI wrote).
 *
 *   cli-helper delete -z HOSTS [-a AUTHFILE] PATH
 *       Delete PATH (any version); a missing PATH is not an error.
 *
 * Exit status 0, or 1 with a message on stderr.
 */
#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zookeeper/zookeeper.h>

#include "zkelect.h"

#define MAXNODES 16

struct node {
    char spec[256];
    char *id, *site;
    int prio, eligible, healthy, hang;
    zkelect_t *h;
    zkelect_group_t *g;
};

static int
hang_takeover(void *data, zkelect_group_t *g, uint64_t epoch)
{
    (void)data;
    (void)g;
    (void)epoch;
    return ZKELECT_EBUSY;   /* never finished: the leader stays PROGRESS */
}

static void
log_cb(void *data, int level, const char *msg)
{
    (void)data;
    if (level <= ZKELECT_LOG_WARNING || getenv("CLI_HELPER_VERBOSE"))
        fprintf(stderr, "cli-helper: %s\n", msg);
}

static int
parse_spec(struct node *n, const char *spec)
{
    char *p, *prio, *flags = NULL;

    snprintf(n->spec, sizeof(n->spec), "%s", spec);
    n->id = n->spec;
    if ((p = strchr(n->id, ':')) == NULL)
        return -1;
    *p = '\0';
    n->site = p + 1;
    if ((p = strchr(n->site, ':')) == NULL)
        return -1;
    *p = '\0';
    prio = p + 1;
    if ((p = strchr(prio, ':')) != NULL) {
        *p = '\0';
        flags = p + 1;
    }
    n->prio = atoi(prio);
    n->eligible = !(flags && strchr(flags, 'i'));
    n->healthy = !(flags && strchr(flags, 'u'));
    n->hang = flags && strchr(flags, 'h');
    return 0;
}

static int
run_nodes(const char *hosts, const char *path, const char *auth, int session_ms, int watchdog_ms,
          int argc, char **argv)
{
    struct node nodes[MAXNODES];
    struct zkelect_options o;
    struct zkelect_group_options go;
    struct zkelect_node self;
    char line[256], what[32], id[128];
    int i, n = 0, rc;

    memset(nodes, 0, sizeof(nodes));
    for (i = 0; i < argc && n < MAXNODES; i++, n++)
        if (parse_spec(&nodes[n], argv[i]) != 0) {
            fprintf(stderr, "cli-helper: bad node spec \"%s\" (ID:SITE:PRIO[:FLAGS])\n", argv[i]);
            return 1;
        }
    for (i = 0; i < n; i++) {
        memset(&o, 0, sizeof(o));
        o.size = sizeof(o);
        o.hosts = hosts;
        o.session_timeout_ms = session_ms;
        o.connect_timeout_ms = 15000;
        o.auth_file = auth;
        o.log = log_cb;
        o.log_level = ZKELECT_LOG_INFO;
        if ((rc = zkelect_open(&o, &nodes[i].h)) != 0) {
            fprintf(stderr, "cli-helper: zkelect_open: %s\n", zkelect_strerror(rc));
            goto fail;
        }
        memset(&go, 0, sizeof(go));
        go.size = sizeof(go);
        go.path = path;
        go.policy = "site";
        go.watchdog_ms = watchdog_ms;
        go.exclude_ms = 2000;
        if (nodes[i].hang)
            go.on_takeover = hang_takeover;
        if ((rc = zkelect_group_open(nodes[i].h, &go, &nodes[i].g)) != 0) {
            fprintf(stderr, "cli-helper: zkelect_group_open: %s\n", zkelect_strerror(rc));
            goto fail;
        }
        memset(&self, 0, sizeof(self));
        self.id = nodes[i].id;
        self.site = nodes[i].site;
        self.priority = nodes[i].prio;
        self.eligible = nodes[i].eligible;
        self.host = "test-host";
        if ((rc = zkelect_nominate(nodes[i].g, &self, 15000)) != 0) {
            fprintf(stderr, "cli-helper: nominate %s: %s\n", nodes[i].id, zkelect_strerror(rc));
            goto fail;
        }
        if (!nodes[i].healthy && (rc = zkelect_set_healthy(nodes[i].g, 0)) != 0) {
            fprintf(stderr, "cli-helper: set_healthy %s: %s\n", nodes[i].id, zkelect_strerror(rc));
            goto fail;
        }
    }
    printf("ready\n");
    fflush(stdout);
    while (fgets(line, sizeof(line), stdin)) {
        if (strncmp(line, "quit", 4) == 0)
            break;
        if (sscanf(line, "%31s %127s", what, id) != 2) {
            printf("error: expected \"healthy|unhealthy|eligible|ineligible ID\"\n");
            fflush(stdout);
            continue;
        }
        for (i = 0; i < n && strcmp(nodes[i].id, id) != 0; i++)
            ;
        if (i == n)
            rc = ZKELECT_EINVAL;
        else if (strcmp(what, "healthy") == 0 || strcmp(what, "unhealthy") == 0)
            rc = zkelect_set_healthy(nodes[i].g, what[0] == 'h');
        else if (strcmp(what, "eligible") == 0 || strcmp(what, "ineligible") == 0)
            rc = zkelect_set_eligible(nodes[i].g, what[0] == 'e');
        else
            rc = ZKELECT_EINVAL;
        if (rc == 0)
            printf("ok\n");
        else
            printf("error: %s\n", zkelect_strerror(rc));
        fflush(stdout);
    }
    rc = 0;
    goto out;
fail:
    rc = 1;
out:
    /* zkelect_close() resigns and frees the handle's groups (as the library's
     * own tests do; zkelect_group_close() first hit a use-after-free in
     * call_unnominate when this was written) */
    for (i = n - 1; i >= 0; i--)
        zkelect_close(nodes[i].h);
    return rc;
}

static void
watcher(zhandle_t *zh, int type, int state, const char *path, void *ctx)
{
    (void)zh;
    (void)type;
    (void)path;
    (void)ctx;
    (void)state;
}

static char *
read_auth(const char *file)
{
    char buf[1024];
    FILE *f = fopen(file, "r");
    size_t n;

    if (f == NULL)
        return NULL;
    n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
        buf[--n] = '\0';
    return strdup(buf);
}

static int
run_set(const char *hosts, const char *auth, const char *op, const char *path,
        const char *data)
{
    zhandle_t *zh;
    char *cred = NULL, *buf;
    int rc, i, len;

    zoo_set_debug_level((ZooLogLevel)0);
    zh = zookeeper_init(hosts, watcher, 10000, NULL, NULL, ZOO_NO_LOG_CLIENTENV);
    if (zh == NULL) {
        fprintf(stderr, "cli-helper: zookeeper_init failed\n");
        return 1;
    }
    if (auth) {
        if ((cred = read_auth(auth)) == NULL) {
            fprintf(stderr, "cli-helper: cannot read %s\n", auth);
            zookeeper_close(zh);
            return 1;
        }
        zoo_add_auth(zh, "digest", cred, (int)strlen(cred), NULL, NULL);
        free(cred);
    }
    /* synchronous calls wait for the connection themselves; retry a loss */
    if ((buf = malloc(65537)) == NULL) {
        zookeeper_close(zh);
        return 1;
    }
    for (i = 0; i < 50; i++) {
        if (strcmp(op, "get") == 0) {
            len = 65536;
            rc = zoo_get(zh, path, 0, buf, &len, NULL);
            if (rc == ZOK)
                printf("%.*s\n", len < 0 ? 0 : len, buf);
        } else if (strcmp(op, "delete") == 0) {
            rc = zoo_delete(zh, path, -1);
            if (rc == ZNONODE)
                rc = ZOK;
        } else {
            rc = zoo_set(zh, path, data, (int)strlen(data), -1);
            if (rc == ZNONODE)
                rc = zoo_create(zh, path, data, (int)strlen(data), &ZOO_OPEN_ACL_UNSAFE, 0,
                                NULL, 0);
        }
        if (rc != ZCONNECTIONLOSS && rc != ZOPERATIONTIMEOUT)
            break;
    }
    free(buf);
    zookeeper_close(zh);
    if (rc != ZOK) {
        fprintf(stderr, "cli-helper: %s %s: %s\n", op, path, zerror(rc));
        return 1;
    }
    return 0;
}

int
main(int argc, char **argv)
{
    const char *hosts = NULL, *path = "/cluster", *auth = NULL, *mode;
    int ch, session_ms = 2000, watchdog_ms = 3000;

    if (argc < 2) {
        fprintf(stderr, "usage: cli-helper nodes|set|get|delete ...\n");
        return 1;
    }
    mode = argv[1];
    optind = 2;
    while ((ch = getopt(argc, argv, "z:p:a:s:w:")) != -1) {
        switch (ch) {
        case 'z': hosts = optarg; break;
        case 'p': path = optarg; break;
        case 'a': auth = optarg; break;
        case 's': session_ms = atoi(optarg); break;
        case 'w': watchdog_ms = atoi(optarg); break;
        default: return 1;
        }
    }
    if (hosts == NULL) {
        fprintf(stderr, "cli-helper: -z HOSTS is required\n");
        return 1;
    }
    if (strcmp(mode, "nodes") == 0)
        return run_nodes(hosts, path, auth, session_ms, watchdog_ms, argc - optind,
                         argv + optind);
    if (strcmp(mode, "set") == 0 && argc - optind == 2)
        return run_set(hosts, auth, mode, argv[optind], argv[optind + 1]);
    if ((strcmp(mode, "get") == 0 || strcmp(mode, "delete") == 0) && argc - optind == 1)
        return run_set(hosts, auth, mode, argv[optind], NULL);
    fprintf(stderr, "usage: cli-helper nodes|set|get|delete ...\n");
    return 1;
}
