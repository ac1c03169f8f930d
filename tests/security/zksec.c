/*
 * zksec.c - a foreign ZooKeeper client for the security and bad-input tests:
 * one synchronous libzookeeper_mt operation per run, optionally
 * authenticated with a digest credential read from a file (never argv).
 *
 *   zksec [-a AUTHFILE] [-t TIMEOUT_MS] HOSTS COMMAND [ARGS]
 *
 * Commands:
 *   get PATH               the data, as is, on stdout
 *   set PATH DATA          setData (any version)
 *   set-file PATH FILE     setData with FILE's content
 *   set-size PATH N        setData with N bytes (a JSON-looking prefix, then 'x')
 *   create PATH DATA [persistent|ephemeral|sequential]
 *                          create with the ACL "world:anyone ALL"; with -a, the
 *                          ACL "auth ALL, world READ" (what the library uses)
 *   delete PATH            delete (any version)
 *   exists PATH            exists
 *   acl PATH               the ACL, one "scheme:id PERMS" per line, sorted by
 *                          scheme:id (PERMS as R W C D A letters, e.g. "RCD")
 *   ls PATH                the children, one per line, sorted
 *   digest                 the digest id of AUTHFILE's credential
 *                          ("user:" base64(SHA-1("user:password")))
 *
 * Every command but get, acl, ls and digest prints ZooKeeper's result by name
 * on stdout ("ZOK", "ZNOAUTH", "ZNONODE", ...); get, acl and ls print it on
 * stderr when it is not ZOK. Exit status: 0 ZOK, 1 any other result, 2 usage,
 * 3 no session within the timeout (or a bad auth file).
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <zookeeper/zookeeper.h>

/* src/cli/digest.c, compiled in */
int cli_digest_id(const char *cred, char *out, size_t outlen);

#define ZKSEC_DATA_MAX (4 * 1024 * 1024) /* largest znode payload we read or write */

struct session {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int state;                    /* last session state seen */
    int auth_done;                /* the add_auth completion ran */
    int auth_rc;                  /* its result */
};

static struct session sess = { .mu = PTHREAD_MUTEX_INITIALIZER };

/* The condition variable waits on CLOCK_MONOTONIC deadlines. */
static void
session_init(void)
{
    pthread_condattr_t ca;

    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&sess.cv, &ca);
    pthread_condattr_destroy(&ca);
}

static void
usage(void)
{
    fprintf(stderr, "usage: zksec [-a AUTHFILE] [-t TIMEOUT_MS] HOSTS COMMAND [ARGS]\n"
            "commands: get PATH | set PATH DATA | set-file PATH FILE | set-size PATH N |\n"
            "          create PATH DATA [persistent|ephemeral|sequential] | delete PATH |\n"
            "          exists PATH | acl PATH | ls PATH | digest\n");
    exit(2);
}

static const char *
rc_name(int rc)
{
    static const struct { int rc; const char *name; } names[] = {
        { ZOK, "ZOK" }, { ZSYSTEMERROR, "ZSYSTEMERROR" },
        { ZRUNTIMEINCONSISTENCY, "ZRUNTIMEINCONSISTENCY" },
        { ZDATAINCONSISTENCY, "ZDATAINCONSISTENCY" }, { ZCONNECTIONLOSS, "ZCONNECTIONLOSS" },
        { ZMARSHALLINGERROR, "ZMARSHALLINGERROR" }, { ZUNIMPLEMENTED, "ZUNIMPLEMENTED" },
        { ZOPERATIONTIMEOUT, "ZOPERATIONTIMEOUT" }, { ZBADARGUMENTS, "ZBADARGUMENTS" },
        { ZINVALIDSTATE, "ZINVALIDSTATE" }, { ZAPIERROR, "ZAPIERROR" },
        { ZNONODE, "ZNONODE" }, { ZNOAUTH, "ZNOAUTH" }, { ZBADVERSION, "ZBADVERSION" },
        { ZNOCHILDRENFOREPHEMERALS, "ZNOCHILDRENFOREPHEMERALS" },
        { ZNODEEXISTS, "ZNODEEXISTS" }, { ZNOTEMPTY, "ZNOTEMPTY" },
        { ZSESSIONEXPIRED, "ZSESSIONEXPIRED" }, { ZINVALIDCALLBACK, "ZINVALIDCALLBACK" },
        { ZINVALIDACL, "ZINVALIDACL" }, { ZAUTHFAILED, "ZAUTHFAILED" },
        { ZCLOSING, "ZCLOSING" }, { ZNOTHING, "ZNOTHING" },
    };
    static char other[32];
    size_t i;

    for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (names[i].rc == rc)
            return names[i].name;
    snprintf(other, sizeof(other), "ZERROR(%d)", rc);
    return other;
}

static void
watcher(zhandle_t *zh, int type, int state, const char *path, void *ctx)
{
    (void)zh;
    (void)path;
    (void)ctx;
    if (type != ZOO_SESSION_EVENT)
        return;
    pthread_mutex_lock(&sess.mu);
    sess.state = state;
    pthread_cond_broadcast(&sess.cv);
    pthread_mutex_unlock(&sess.mu);
}

/* Runs on ZooKeeper's IO thread: record and wake, nothing else. */
static void
auth_completion(int rc, const void *data)
{
    (void)data;
    pthread_mutex_lock(&sess.mu);
    sess.auth_done = 1;
    sess.auth_rc = rc;
    pthread_cond_broadcast(&sess.cv);
    pthread_mutex_unlock(&sess.mu);
}

/* Wait until cond() holds or timeout_ms passes (CLOCK_MONOTONIC). 0 or -1. */
static int
wait_for(int (*cond)(void), int timeout_ms)
{
    struct timespec ts;
    int ok;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    ts.tv_sec += timeout_ms / 1000;
    ts.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&sess.mu);
    while (!(ok = cond()))
        if (pthread_cond_timedwait(&sess.cv, &sess.mu, &ts) == ETIMEDOUT) {
            ok = cond();
            break;
        }
    pthread_mutex_unlock(&sess.mu);
    return ok ? 0 : -1;
}

static int
is_connected(void)
{
    return sess.state == ZOO_CONNECTED_STATE;
}

static int
is_auth_done(void)
{
    return sess.auth_done || sess.state == ZOO_AUTH_FAILED_STATE;
}

/* Read a file of at most max bytes into *out (NUL-terminated); its length or -1. */
static long
read_file(const char *path, size_t max, char **out)
{
    FILE *f = fopen(path, "rb");
    char *buf;
    size_t n;

    if (f == NULL) {
        fprintf(stderr, "zksec: %s: %s\n", path, strerror(errno));
        return -1;
    }
    if ((buf = malloc(max + 1)) == NULL) {
        fclose(f);
        return -1;
    }
    n = fread(buf, 1, max + 1, f);
    fclose(f);
    if (n > max) {
        fprintf(stderr, "zksec: %s: larger than %zu bytes\n", path, max);
        free(buf);
        return -1;
    }
    buf[n] = '\0';
    *out = buf;
    return (long)n;
}

/* The credential of AUTHFILE: one line "user:password", newline stripped. */
static char *
read_credential(const char *path)
{
    struct stat st;
    char *s;
    long n;

    if (stat(path, &st) == -1) {
        fprintf(stderr, "zksec: %s: %s\n", path, strerror(errno));
        return NULL;
    }
    if ((n = read_file(path, 1024, &s)) < 0)
        return NULL;
    s[strcspn(s, "\r\n")] = '\0';
    if (strchr(s, ':') == NULL || s[0] == ':') {
        fprintf(stderr, "zksec: %s: expected one line \"user:password\"\n", path);
        free(s);
        return NULL;
    }
    return s;
}

static int
cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void
perms_text(int p, char out[6])
{
    int n = 0;

    if (p & ZOO_PERM_READ) out[n++] = 'R';
    if (p & ZOO_PERM_WRITE) out[n++] = 'W';
    if (p & ZOO_PERM_CREATE) out[n++] = 'C';
    if (p & ZOO_PERM_DELETE) out[n++] = 'D';
    if (p & ZOO_PERM_ADMIN) out[n++] = 'A';
    out[n] = '\0';
}

static int
cmd_acl(zhandle_t *zh, const char *path)
{
    struct ACL_vector v;
    struct Stat st;
    char **lines, perms[6];
    int rc, i;

    memset(&v, 0, sizeof(v));
    if ((rc = zoo_get_acl(zh, path, &v, &st)) != ZOK) {
        fprintf(stderr, "%s\n", rc_name(rc));
        return rc;
    }
    if ((lines = calloc((size_t)v.count + 1, sizeof(*lines))) == NULL)
        return ZSYSTEMERROR;
    for (i = 0; i < v.count; i++) {
        perms_text(v.data[i].perms, perms);
        if (asprintf(&lines[i], "%s:%s %s", v.data[i].id.scheme, v.data[i].id.id, perms) < 0)
            lines[i] = NULL;
    }
    qsort(lines, (size_t)v.count, sizeof(*lines), cmp_str);
    for (i = 0; i < v.count; i++) {
        printf("%s\n", lines[i] ? lines[i] : "?");
        free(lines[i]);
    }
    free(lines);
    deallocate_ACL_vector(&v);
    return ZOK;
}

static int
cmd_ls(zhandle_t *zh, const char *path)
{
    struct String_vector v;
    int rc, i;

    memset(&v, 0, sizeof(v));
    if ((rc = zoo_get_children(zh, path, 0, &v)) != ZOK) {
        fprintf(stderr, "%s\n", rc_name(rc));
        return rc;
    }
    qsort(v.data, (size_t)v.count, sizeof(*v.data), cmp_str);
    for (i = 0; i < v.count; i++)
        printf("%s\n", v.data[i]);
    deallocate_String_vector(&v);
    return ZOK;
}

static int
cmd_get(zhandle_t *zh, const char *path)
{
    struct Stat st;
    int len = ZKSEC_DATA_MAX, rc;
    char *buf = malloc(ZKSEC_DATA_MAX);

    if (buf == NULL)
        return ZSYSTEMERROR;
    if ((rc = zoo_get(zh, path, 0, buf, &len, &st)) != ZOK) {
        fprintf(stderr, "%s\n", rc_name(rc));
        free(buf);
        return rc;
    }
    if (len > 0)
        fwrite(buf, 1, (size_t)len, stdout);
    free(buf);
    return ZOK;
}

/* N bytes that start like a member record and never end. */
static char *
oversize(long n)
{
    static const char head[] = "{\"v\":1,\"id\":\"";
    char *p;

    if (n < (long)sizeof(head) || n > ZKSEC_DATA_MAX || (p = malloc((size_t)n + 1)) == NULL)
        return NULL;
    memset(p, 'x', (size_t)n);
    memcpy(p, head, sizeof(head) - 1);
    p[n] = '\0';
    return p;
}

int
main(int argc, char **argv)
{
    const char *authfile = NULL, *hosts, *cmd, *path = NULL;
    char *cred = NULL, *data = NULL, digest[512], *end;
    struct ACL creator[2];
    struct ACL_vector creator_acl = { 2, creator };
    struct Stat st;
    long n = 0;
    int ch, timeout_ms = 10000, rc, quiet = 0, flags = 0;
    zhandle_t *zh;

    while ((ch = getopt(argc, argv, "a:t:")) != -1) {
        switch (ch) {
        case 'a':
            authfile = optarg;
            break;
        case 't':
            timeout_ms = (int)strtol(optarg, &end, 10);
            if (*end != '\0' || timeout_ms < 100)
                usage();
            break;
        default:
            usage();
        }
    }
    argc -= optind;
    argv += optind;
    if (argc == 1 && strcmp(argv[0], "digest") == 0) {
        /* no ZooKeeper needed */
        if (authfile == NULL || (cred = read_credential(authfile)) == NULL)
            return 3;
        rc = cli_digest_id(cred, digest, sizeof(digest));
        explicit_bzero(cred, strlen(cred));
        free(cred);
        if (rc != 0)
            return 3;
        printf("%s\n", digest);
        return 0;
    }
    if (argc < 3)
        usage();
    hosts = argv[0];
    cmd = argv[1];
    path = argv[2];
    if (authfile != NULL && (cred = read_credential(authfile)) == NULL)
        return 3;

    if (strcmp(cmd, "set") == 0 || strcmp(cmd, "create") == 0) {
        if (argc < 4 || argc > (strcmp(cmd, "create") == 0 ? 5 : 4))
            usage();
        data = strdup(argv[3]);
        n = (long)strlen(argv[3]);
        if (strcmp(cmd, "create") == 0 && argc == 5) {
            if (strcmp(argv[4], "ephemeral") == 0)
                flags = ZOO_EPHEMERAL;
            else if (strcmp(argv[4], "sequential") == 0)
                flags = ZOO_EPHEMERAL_SEQUENTIAL;
            else if (strcmp(argv[4], "persistent") != 0)
                usage();
        }
    } else if (strcmp(cmd, "set-file") == 0) {
        if (argc != 4 || (n = read_file(argv[3], ZKSEC_DATA_MAX, &data)) < 0)
            return argc != 4 ? 2 : 3;
    } else if (strcmp(cmd, "set-size") == 0) {
        if (argc != 4)
            usage();
        n = strtol(argv[3], &end, 10);
        if (*end != '\0' || (data = oversize(n)) == NULL)
            usage();
    } else if (argc != 3) {
        usage();
    }

    session_init();
    zoo_set_debug_level(ZOO_LOG_LEVEL_ERROR);
    zh = zookeeper_init(hosts, watcher, 10000, NULL, NULL, ZOO_NO_LOG_CLIENTENV);
    if (zh == NULL) {
        fprintf(stderr, "zksec: zookeeper_init %s: %s\n", hosts, strerror(errno));
        return 3;
    }
    if (wait_for(is_connected, timeout_ms) != 0) {
        fprintf(stderr, "zksec: no session with %s within %d ms\n", hosts, timeout_ms);
        zookeeper_close(zh);
        return 3;
    }
    if (cred != NULL) {
        rc = zoo_add_auth(zh, "digest", cred, (int)strlen(cred), auth_completion, NULL);
        if (rc != ZOK || wait_for(is_auth_done, timeout_ms) != 0 || sess.auth_rc != ZOK) {
            fprintf(stderr, "zksec: add_auth: %s\n", rc_name(rc != ZOK ? rc : sess.auth_rc));
            zookeeper_close(zh);
            return 3;
        }
    }

    if (strcmp(cmd, "get") == 0) {
        rc = cmd_get(zh, path);
        quiet = 1;
    } else if (strcmp(cmd, "acl") == 0) {
        rc = cmd_acl(zh, path);
        quiet = 1;
    } else if (strcmp(cmd, "ls") == 0) {
        rc = cmd_ls(zh, path);
        quiet = 1;
    } else if (strcmp(cmd, "exists") == 0) {
        rc = zoo_exists(zh, path, 0, &st);
    } else if (strcmp(cmd, "delete") == 0) {
        rc = zoo_delete(zh, path, -1);
    } else if (strcmp(cmd, "create") == 0) {
        static char auth[] = "auth", empty[] = "", world[] = "world", anyone[] = "anyone";
        creator[0].perms = ZOO_PERM_ALL;
        creator[0].id.scheme = auth;
        creator[0].id.id = empty;
        creator[1].perms = ZOO_PERM_READ;
        creator[1].id.scheme = world;
        creator[1].id.id = anyone;
        rc = zoo_create(zh, path, data, (int)n, cred ? &creator_acl : &ZOO_OPEN_ACL_UNSAFE,
                        flags, NULL, 0);
    } else if (strcmp(cmd, "set") == 0 || strcmp(cmd, "set-file") == 0 ||
               strcmp(cmd, "set-size") == 0) {
        rc = zoo_set(zh, path, data, (int)n, -1);
    } else {
        zookeeper_close(zh);
        usage();
    }
    if (!quiet)
        printf("%s\n", rc_name(rc));
    fflush(stdout);
    zookeeper_close(zh);
    free(data);
    if (cred != NULL) {
        explicit_bzero(cred, strlen(cred));
        free(cred);
    }
    return rc == ZOK ? 0 : 1;
}
