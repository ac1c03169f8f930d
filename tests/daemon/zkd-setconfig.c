/*
 * zkd-setconfig.c - test helper: write a group's config znode.
 *
 *   zkd-setconfig [-l LEADERS] HOSTS PATH [SITE=PRIORITY ...]
 *
 * Creates PATH (and its parents) if needed and writes PATH/config with the
 * given site priorities and LEADERS active slots (1..16, default 1), encoded by the library's codec (the one format the
 * elector reads). The daemon tests use it to give their site a priority
 * without depending on the zkelect CLI. Exit status 0, or 1 with a message.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <zookeeper/zookeeper.h>

#include "codec.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int connected;

static void
watcher(zhandle_t *zh, int type, int state, const char *path, void *ctx)
{
    (void)zh;
    (void)path;
    (void)ctx;
    if (type != ZOO_SESSION_EVENT)
        return;
    pthread_mutex_lock(&mu);
    connected = state == ZOO_CONNECTED_STATE;
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
}

static int
wait_connected(int timeout_ms)
{
    struct timespec ts;
    int ok;

    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += timeout_ms / 1000;
    pthread_mutex_lock(&mu);
    while (!connected)
        if (pthread_cond_timedwait(&cv, &mu, &ts) != 0)
            break;
    ok = connected;
    pthread_mutex_unlock(&mu);
    return ok;
}

/* Create path and its parents (persistent, open ACL); existing ones are fine. */
static int
ensure_path(zhandle_t *zh, const char *path)
{
    char buf[512];
    char *p;
    int rc;

    if (strlen(path) >= sizeof(buf))
        return ZBADARGUMENTS;
    strcpy(buf, path);
    for (p = buf + 1;; p++) {
        if (*p != '/' && *p != '\0')
            continue;
        char c = *p;
        *p = '\0';
        rc = zoo_create(zh, buf, "", 0, &ZOO_OPEN_ACL_UNSAFE, 0, NULL, 0);
        if (rc != ZOK && rc != ZNODEEXISTS)
            return rc;
        *p = c;
        if (c == '\0')
            return ZOK;
    }
}

int
main(int argc, char **argv)
{
    struct zke_config cfg;
    char cpath[600], *payload = NULL, *eq, *end;
    size_t len;
    long prio;
    zhandle_t *zh;
    long leaders = 1;
    int i, rc;

    if (argc >= 3 && strcmp(argv[1], "-l") == 0) {
        errno = 0;
        leaders = strtol(argv[2], &end, 10);
        if (errno != 0 || *end != '\0' || leaders < 1 || leaders > ZKE_LEADERS_MAX) {
            fprintf(stderr, "zkd-setconfig: -l: expected 1 to %d, got '%s'\n",
                ZKE_LEADERS_MAX, argv[2]);
            return 1;
        }
        argv += 2;
        argc -= 2;
    }
    if (argc < 3) {
        fprintf(stderr, "usage: zkd-setconfig [-l LEADERS] HOSTS PATH [SITE=PRIORITY ...]\n");
        return 1;
    }
    memset(&cfg, 0, sizeof(cfg));
    cfg.leaders = (uint32_t)leaders;
    for (i = 3; i < argc; i++) {
        eq = strchr(argv[i], '=');
        if (eq == NULL || eq == argv[i] || (size_t)(eq - argv[i]) > ZKE_SITE_MAX ||
            cfg.nsites == ZKE_SITES_MAX) {
            fprintf(stderr, "zkd-setconfig: bad SITE=PRIORITY '%s'\n", argv[i]);
            return 1;
        }
        errno = 0;
        prio = strtol(eq + 1, &end, 10);
        if (errno != 0 || *end != '\0' || end == eq + 1) {
            fprintf(stderr, "zkd-setconfig: bad priority in '%s'\n", argv[i]);
            return 1;
        }
        memcpy(cfg.sites[cfg.nsites].site, argv[i], (size_t)(eq - argv[i]));
        cfg.sites[cfg.nsites].priority = (int32_t)prio;
        cfg.nsites++;
    }
    if ((rc = zke_config_encode(&cfg, &payload, &len)) != 0) {
        fprintf(stderr, "zkd-setconfig: cannot encode the config: %d\n", rc);
        return 1;
    }
    snprintf(cpath, sizeof(cpath), "%s/config", argv[2]);

    zoo_set_debug_level(ZOO_LOG_LEVEL_ERROR);
    if ((zh = zookeeper_init(argv[1], watcher, 10000, NULL, NULL, 0)) == NULL) {
        fprintf(stderr, "zkd-setconfig: zookeeper_init(%s): %s\n", argv[1],
            strerror(errno));
        free(payload);
        return 1;
    }
    rc = ZCONNECTIONLOSS;
    if (wait_connected(15000) && (rc = ensure_path(zh, argv[2])) == ZOK) {
        rc = zoo_create(zh, cpath, payload, (int)len, &ZOO_OPEN_ACL_UNSAFE, 0, NULL, 0);
        if (rc == ZNODEEXISTS)
            rc = zoo_set(zh, cpath, payload, (int)len, -1);
    }
    zookeeper_close(zh);
    free(payload);
    if (rc != ZOK) {
        fprintf(stderr, "zkd-setconfig: writing %s: %s\n", cpath, zerror(rc));
        return 1;
    }
    printf("zkd-setconfig: wrote %s\n", cpath);
    return 0;
}
