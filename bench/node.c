/*
 * node.c - zkbench-node: one election node in its own process, for the crash
 * figures of zkbench (a leader or an elector that is killed with SIGKILL).
 *
 * usage: zkbench-node -h HOSTS -p PATH -i ID [-t SESSION_MS] [-P POLICY]
 *                     [-o KEY=VALUE] [-D POLICY_DIR] [-I] [-l]
 *
 * It opens a handle and a group, nominates itself and prints every event of
 * the group on stdout, one line each, flushed at once:
 *     EV <mono_us> <mono_ms> <name> <node|-> <epoch> <status>
 * mono_us is CLOCK_MONOTONIC in microseconds when the callback ran, mono_ms
 * the event's own time. With -l the library's log comes too, at debug level:
 *     LOG <mono_us> <level> <message>
 * Before it nominates it prints its session, so that zkbench can end the
 * session itself once the process is killed (section 3c):
 *     SESSION <session id, hex> <password, 32 hex digits>
 * It runs until its stdin reaches EOF (or a line "quit"), then resigns,
 * closes and exits 0. Errors go to stderr; the exit status is then 1 (bad
 * arguments: 2).
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <zookeeper/zookeeper.h>

#include "zkelect.h"
#include "util.h"

static pthread_mutex_t out_mu = PTHREAD_MUTEX_INITIALIZER;
static const char *prog = "zkbench-node";

/*
 * The library's ZooKeeper handle, for its clientid (session id and
 * password), which the API does not give: zkbench-node is linked with
 * -Wl,--wrap=zookeeper_init2, so libzkelect's call comes here first.
 */
zhandle_t *__real_zookeeper_init2(const char *host, watcher_fn fn, int recv_timeout,
    const clientid_t *clientid, void *context, int flags, log_callback_fn log_callback);
zhandle_t *__wrap_zookeeper_init2(const char *host, watcher_fn fn, int recv_timeout,
    const clientid_t *clientid, void *context, int flags, log_callback_fn log_callback);
static zhandle_t *lib_zh;           /* the last handle the library created (out_mu) */

zhandle_t *
__wrap_zookeeper_init2(const char *host, watcher_fn fn, int recv_timeout,
    const clientid_t *clientid, void *context, int flags, log_callback_fn log_callback)
{
    zhandle_t *zh = __real_zookeeper_init2(host, fn, recv_timeout, clientid, context, flags,
        log_callback);

    pthread_mutex_lock(&out_mu);
    if (zh)
        lib_zh = zh;
    pthread_mutex_unlock(&out_mu);
    return zh;
}

/* "SESSION <id> <password>" once the session is established. */
static void
print_session(zkelect_t *h)
{
    const clientid_t *cid;
    int64_t id = zkelect_session_id(h);
    int k;

    pthread_mutex_lock(&out_mu);
    if (lib_zh && id != 0 && (cid = zoo_client_id(lib_zh)) != NULL && cid->client_id == id) {
        printf("SESSION %llx ", (unsigned long long)cid->client_id);
        for (k = 0; k < 16; k++)
            printf("%02x", (unsigned char)cid->passwd[k]);
        printf("\n");
        fflush(stdout);
    }
    pthread_mutex_unlock(&out_mu);
}

static void
on_event(void *data, const struct zkelect_event *ev)
{
    unsigned long long us = now_us();

    (void)data;
    pthread_mutex_lock(&out_mu);
    printf("EV %llu %llu %s %s %llu %d\n", us, (unsigned long long)ev->mono_ms, ev->name,
        ev->node ? ev->node : "-", (unsigned long long)ev->epoch, (int)ev->status);
    fflush(stdout);
    pthread_mutex_unlock(&out_mu);
}

static void
on_log(void *data, int level, const char *msg)
{
    unsigned long long us = now_us();

    (void)data;
    pthread_mutex_lock(&out_mu);
    printf("LOG %llu %d %s\n", us, level, msg);
    fflush(stdout);
    pthread_mutex_unlock(&out_mu);
}

static void
usage(void)
{
    fprintf(stderr, "usage: %s -h HOSTS -p PATH -i ID [-t SESSION_MS] [-P POLICY] "
        "[-o KEY=VALUE] [-D POLICY_DIR] [-I] [-l]\n", prog);
    exit(2);
}

int
main(int argc, char **argv)
{
    struct zkelect_options o;
    struct zkelect_group_options go;
    struct zkelect_node self;
    const char *hosts = NULL, *path = NULL, *id = NULL, *policy = "nodeid";
    const char *popt = NULL, *pdir = NULL;
    zkelect_t *h = NULL;
    zkelect_group_t *g = NULL;
    char line[64], *end;
    long t = 10000;
    int c, rc, eligible = 1, logs = 0;

    while ((c = getopt(argc, argv, "h:p:i:t:P:o:D:Il")) != -1) {
        switch (c) {
        case 'h': hosts = optarg; break;
        case 'p': path = optarg; break;
        case 'i': id = optarg; break;
        case 't':
            errno = 0;
            t = strtol(optarg, &end, 10);
            if (errno || *end || end == optarg || t < 100 || t > INT_MAX) {
                fprintf(stderr, "%s: -t: expected a session timeout in ms (>= 100), got '%s'\n",
                    prog, optarg);
                return 2;
            }
            break;
        case 'P': policy = optarg; break;
        case 'o':
            if (strchr(optarg, '=') == NULL) {
                fprintf(stderr, "%s: -o: expected KEY=VALUE, got '%s'\n", prog, optarg);
                return 2;
            }
            popt = optarg;
            break;
        case 'D': pdir = optarg; break;
        case 'I': eligible = 0; break;
        case 'l': logs = 1; break;
        default: usage();
        }
    }
    if (optind != argc || hosts == NULL || path == NULL || id == NULL)
        usage();

    memset(&o, 0, sizeof(o));
    o.size = sizeof(o);
    o.hosts = hosts;
    o.session_timeout_ms = (int)t;
    if (logs) {
        o.log = on_log;
        o.log_level = ZKELECT_LOG_DEBUG;
    }
    if ((rc = zkelect_open(&o, &h)) != 0) {
        fprintf(stderr, "%s %s: cannot connect to %s: %s\n", prog, id, hosts, zkelect_strerror(rc));
        return 1;
    }
    memset(&go, 0, sizeof(go));
    go.size = sizeof(go);
    go.path = path;
    go.policy = policy;
    go.policy_path = pdir;
    if (popt) {
        go.policy_options = &popt;
        go.npolicy_options = 1;
    }
    go.on_event = on_event;
    if ((rc = zkelect_group_open(h, &go, &g)) != 0) {
        fprintf(stderr, "%s %s: group %s: %s\n", prog, id, path, zkelect_strerror(rc));
        zkelect_close(h);
        return 1;
    }
    print_session(h);
    memset(&self, 0, sizeof(self));
    self.id = id;
    self.site = "";
    self.eligible = eligible;
    self.host = "zkbench-node";
    if ((rc = zkelect_nominate(g, &self, 15000)) != 0) {
        fprintf(stderr, "%s %s: nominate under %s: %s\n", prog, id, path, zkelect_strerror(rc));
        zkelect_group_close(g);
        zkelect_close(h);
        return 1;
    }
    while (fgets(line, sizeof(line), stdin) != NULL)
        if (strncmp(line, "quit", 4) == 0)
            break;
    zkelect_group_close(g);
    zkelect_close(h);
    return 0;
}
