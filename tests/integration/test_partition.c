/*
 * test_partition.c - a leader whose ZooKeeper server is cut off from the
 * quorum, on a real 3-server ensemble (PROTOCOL.md §6: the lease counts only
 * what the quorum answered).
 *
 * A network namespace joined to ours by a veth pair holds server 1 (myid 1,
 * a follower: the lowest id never leads a fresh ensemble) at the namespace
 * side address; servers 2 and 3 listen on the host side address. Node n1 is
 * this process's library on a handle opened while the main thread was in the
 * namespace (its threads stay there), connected to server 1 only; n2 is
 * connected to servers 2 and 3. nodeid elects n1. The cut takes the host side
 * of the pair down: server 1 no longer reaches its peers, n1 still reaches
 * server 1. A follower that lost its leader goes on serving its clients until
 * syncLimit x tickTime (here 40 x 200 ms = 8 s): it answers reads and pings,
 * not writes or syncs, which go to the leader. Meanwhile the quorum hears
 * nothing of n1's session and expires it after its timeout (4 s), and n2 is
 * elected.
 *
 * Checked, on the services (a service starts at the takeover callback and
 * stops at the step-down callback or at -leadership-lost, as zkelectd's
 * hooks; stamped with CLOCK_MONOTONIC):
 *   - the premise, with a plain client in the namespace on server 1: after
 *     the cut an exists is answered, a sync is not (for 3 s);
 *   - n1 fences itself (-fenced) and its service ends before n2's begins;
 *   - n2 is READY (the quorum went on);
 *   - once the link is back, n1 learns its session is gone and registers
 *     again, and n2 stays the one leader.
 * A library whose lease any reply feeds (a read answered by the cut-off
 * server) keeps n1 READY until server 1 gives up: the services overlap.
 *
 * Needs root (namespaces) and ip(8) (Debian package iproute2): skipped (77)
 * when not root or when no namespace can be made, failed when ip(8) is
 * missing (as tests/fault). The namespace and the pair are removed at the
 * end, and those of runs that died are removed by the next run.
 */
#include "config.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <zookeeper/zookeeper.h>

#include "cutest.h"
#include "zkelect.h"
#include "zkharness.h"

#define T_SESSION 4000   /* the nodes' session timeout, ms */
#define TICK_MS 200      /* tickTime */
#define SYNC_LIMIT 40    /* a cut-off follower serves for 40 ticks: 8 s */
#define WAIT_MS 15000    /* generous deadline for anything to happen */

static const char *ip_paths[] = {"/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"};
static const char *ip_bin;
static char ns_name[64], ns_file[128], host_if[16], peer_if[16];
static char host_addr[INET_ADDRSTRLEN], ns_addr[INET_ADDRSTRLEN];
static int ns_made;
static struct zkh *zk;
static char hosts1[64], hosts2[128];

/* ---- clock and waits -------------------------------------------------------- */

static uint64_t
now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void
tick(void)
{
    struct timespec ts = {0, 5 * 1000000};

    nanosleep(&ts, NULL); /* the polling interval of a deadline wait */
}

/* ---- the namespace ---------------------------------------------------------- */

/* Run ip with the arguments (NULL-terminated); its exit status, -1 if it did
   not run. Its output goes to our stderr. */
static int
ip(const char *a0, ...)
{
    const char *argv[24];
    va_list ap;
    pid_t pid;
    int n = 0, st;

    argv[n++] = ip_bin;
    argv[n++] = a0;
    va_start(ap, a0);
    while (n < 23 && (argv[n] = va_arg(ap, const char *)) != NULL)
        n++;
    va_end(ap);
    argv[n] = NULL;
    if ((pid = fork()) == -1)
        return -1;
    if (pid == 0) {
        execv(ip_bin, (char *const *)argv);
        _exit(127);
    }
    while (waitpid(pid, &st, 0) == -1)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Namespaces (and their host links) of earlier runs whose process is gone. */
static void
clean_stale(void)
{
    DIR *d = opendir("/run/netns");
    struct dirent *e;

    if (d == NULL)
        return;
    while ((e = readdir(d)) != NULL) {
        long pid;
        char link[16];

        if (sscanf(e->d_name, "zkpart-%ld", &pid) != 1 || pid <= 0 ||
            (kill((pid_t)pid, 0) == 0 || errno != ESRCH))
            continue;
        snprintf(link, sizeof(link), "zkp%ldh", pid);
        (void)ip("link", "del", link, NULL);
        (void)ip("netns", "del", e->d_name, NULL);
    }
    closedir(d);
}

/* A /30 in 10.78.K.0/24 that no address of ours is in: K, or -1. */
static int
pick_subnet(void)
{
    struct ifaddrs *ifa, *p;
    int k, used[256] = {0};

    if (getifaddrs(&ifa) == -1)
        return -1;
    for (p = ifa; p; p = p->ifa_next)
        if (p->ifa_addr && p->ifa_addr->sa_family == AF_INET) {
            uint32_t a = ntohl(((struct sockaddr_in *)p->ifa_addr)->sin_addr.s_addr);

            if ((a >> 16) == ((10u << 8) | 78u))
                used[(a >> 8) & 0xff] = 1;
        }
    freeifaddrs(ifa);
    for (k = (int)(getpid() % 250) + 1; k < 256; k++)
        if (!used[k])
            return k;
    for (k = 1; k < 256; k++)
        if (!used[k])
            return k;
    return -1;
}

static void
ns_teardown(void)
{
    if (!ns_made)
        return;
    (void)ip("link", "del", host_if, NULL);
    (void)ip("netns", "del", ns_name, NULL);
    ns_made = 0;
}

/* The namespace and the pair; 0, or -1 (said why). */
static int
ns_setup(void)
{
    char h[32], c[32];
    long pid = (long)getpid();
    int k = pick_subnet();

    if (k < 0) {
        fprintf(stderr, "test_partition: no free subnet in 10.78.0.0/16\n");
        return -1;
    }
    snprintf(ns_name, sizeof(ns_name), "zkpart-%ld", pid);
    snprintf(ns_file, sizeof(ns_file), "/run/netns/%s", ns_name);
    snprintf(host_if, sizeof(host_if), "zkp%ldh", pid);
    snprintf(peer_if, sizeof(peer_if), "zkp%ldc", pid);
    snprintf(host_addr, sizeof(host_addr), "10.78.%d.1", k);
    snprintf(ns_addr, sizeof(ns_addr), "10.78.%d.2", k);
    snprintf(h, sizeof(h), "%s/30", host_addr);
    snprintf(c, sizeof(c), "%s/30", ns_addr);
    if (ip("netns", "add", ns_name, NULL) != 0)
        return -1;
    ns_made = 1;
    if (ip("link", "add", host_if, "type", "veth", "peer", "name", peer_if, "netns", ns_name,
           NULL) != 0 ||
        ip("addr", "add", h, "dev", host_if, NULL) != 0 ||
        ip("link", "set", host_if, "up", NULL) != 0 ||
        ip("-n", ns_name, "link", "set", "lo", "up", NULL) != 0 ||
        ip("-n", ns_name, "addr", "add", c, "dev", peer_if, NULL) != 0 ||
        ip("-n", ns_name, "link", "set", peer_if, "up", NULL) != 0 ||
        ip("-n", ns_name, "route", "add", "default", "via", host_addr, NULL) != 0) {
        fprintf(stderr, "test_partition: cannot set up the namespace %s\n", ns_name);
        ns_teardown();
        return -1;
    }
    return 0;
}

/* Run the calling thread in the namespace (in = 1) or in ours again. */
static int
ns_enter(int in)
{
    static int home = -1;
    int fd, rc;

    if (home == -1 && (home = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC)) == -1)
        return -1;
    if (!in)
        return setns(home, CLONE_NEWNET);
    if ((fd = open(ns_file, O_RDONLY | O_CLOEXEC)) == -1)
        return -1;
    rc = setns(fd, CLONE_NEWNET);
    close(fd);
    return rc;
}

/* ---- the nodes and their services --------------------------------------------- */

struct node {
    const char *id;
    zkelect_t *h;
    zkelect_group_t *g;
    /* under mu */
    int active;              /* its service runs (takeover done, no step-down since) */
    uint64_t svc_start;      /* the last takeover callback (ms) */
    uint64_t svc_end;        /* its last stop: step-down callback or -leadership-lost (ms) */
    uint64_t ready_ms;       /* the last +ready */
    int nready, nfenced, nlost, nregistered;
    uint64_t fenced_ms;
};

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static struct node n1 = {.id = "n1"}, n2 = {.id = "n2"};
static int overlaps;                  /* a service began while the other's ran */
static uint64_t overlap_ms;           /* how long the longest ran beside the other */

static struct node *
other(struct node *n)
{
    return n == &n1 ? &n2 : &n1;
}

static int
on_takeover(void *data, zkelect_group_t *g, uint64_t epoch)
{
    struct node *n = data;

    (void)g;
    pthread_mutex_lock(&mu);
    n->active = 1;
    n->svc_start = now_ms();
    if (other(n)->active) {
        overlaps++;
        fprintf(stderr, "test_partition: %s's service starts (epoch %llu) while %s's runs\n",
                n->id, (unsigned long long)epoch, other(n)->id);
    }
    pthread_mutex_unlock(&mu);
    return ZKELECT_OK;
}

/* N's service stops (mu held): how long it ran beside the other's. */
static void
svc_stop(struct node *n)
{
    struct node *o = other(n);

    if (!n->active)
        return;
    n->svc_end = now_ms();
    if (o->active) {
        uint64_t from = o->svc_start > n->svc_start ? o->svc_start : n->svc_start;

        if (n->svc_end - from > overlap_ms)
            overlap_ms = n->svc_end - from;
    }
    n->active = 0;
}

static int
on_stepdown(void *data, zkelect_group_t *g, uint64_t epoch)
{
    (void)g;
    (void)epoch;
    pthread_mutex_lock(&mu);
    svc_stop(data);
    pthread_mutex_unlock(&mu);
    return ZKELECT_OK;
}

static void
on_event(void *data, const struct zkelect_event *ev)
{
    struct node *n = data;

    pthread_mutex_lock(&mu);
    if (getenv("TEST_VERBOSE"))
        fprintf(stderr, "[%llu] %s %s epoch=%llu %s\n", (unsigned long long)now_ms(), n->id,
                ev->name, (unsigned long long)ev->epoch, ev->detail);
    switch (ev->type) {
    case ZKELECT_EV_READY:
        n->nready++;
        n->ready_ms = now_ms();
        break;
    case ZKELECT_EV_FENCED:
        n->nfenced++;
        n->fenced_ms = now_ms();
        break;
    case ZKELECT_EV_LOST:
        /* the application stops here, as zkelectd runs its stepdown hook
           (the step-down callback does not run: PROTOCOL.md, "Expiry") */
        svc_stop(n);
        n->nlost++;
        break;
    case ZKELECT_EV_REGISTERED:
        n->nregistered++;
        break;
    default:
        break;
    }
    pthread_mutex_unlock(&mu);
}

static void
log_cb(void *data, int level, const char *msg)
{
    (void)data;
    if (getenv("TEST_VERBOSE") || level <= ZKELECT_LOG_ERR)
        fprintf(stderr, "log[%d] %s\n", level, msg);
}

static int
start_node(struct node *n, const char *hs)
{
    struct zkelect_options o;
    struct zkelect_group_options go;
    struct zkelect_node self;
    static const char *popts[] = {"preempt=off"};

    memset(&o, 0, sizeof(o));
    o.size = sizeof(o);
    o.hosts = hs;
    o.session_timeout_ms = T_SESSION;
    o.connect_timeout_ms = 10000;
    o.log = log_cb;
    o.log_level = getenv("TEST_VERBOSE") ? ZKELECT_LOG_DEBUG : ZKELECT_LOG_INFO;
    if (zkelect_open(&o, &n->h) != 0)
        return -1;
    memset(&go, 0, sizeof(go));
    go.size = sizeof(go);
    go.path = "/partition";
    go.policy = "nodeid";
    go.policy_options = popts;
    go.npolicy_options = 1;
    go.on_event = on_event;
    go.event_data = n;
    go.on_takeover = on_takeover;
    go.on_stepdown = on_stepdown;
    go.cb_data = n;
    if (zkelect_group_open(n->h, &go, &n->g) != 0)
        return -1;
    memset(&self, 0, sizeof(self));
    self.id = n->id;
    self.site = "dc1";
    self.eligible = 1;
    return zkelect_nominate(n->g, &self, WAIT_MS);
}

/* Wait until *P (read under mu) is non-zero, or WAIT. 1 when it is. */
static int
wait_int(const int *p, uint64_t wait)
{
    uint64_t end = now_ms() + wait;
    int v;

    for (;;) {
        pthread_mutex_lock(&mu);
        v = *p;
        pthread_mutex_unlock(&mu);
        if (v || now_ms() >= end)
            return v != 0;
        tick();
    }
}

/* Wait until neither node's group has sent a request for 500 ms (at most
   10 s): the join of n2 and what it set off (the elector's reads and writes)
   are done. A request in flight at the cut would hold back every later reply
   of its session (the server answers them in order), and then any library
   fences: the cut must find the leader quiet, as a leader mostly is. */
static int
quiesce(void)
{
    struct zkelect_stats a, b;
    uint64_t r = UINT64_MAX, since = now_ms(), end = since + 10000, v;

    while (now_ms() < end) {
        if (zkelect_get_stats(n1.g, &a) != 0 || zkelect_get_stats(n2.g, &b) != 0)
            return 0;
        v = a.requests + b.requests;
        if (v != r) {
            r = v;
            since = now_ms();
        } else if (now_ms() - since >= 500) {
            return 1;
        }
        tick();
    }
    return 0;
}

/* ---- the premise: a plain client of the cut-off server ------------------------ */

static pthread_mutex_t cmu = PTHREAD_MUTEX_INITIALIZER;
static uint64_t exists_ms, sync_ms;  /* when each was answered, 0 until then */
static int exists_rc, sync_rc;

static void
exists_done(int rc, const struct Stat *st, const void *data)
{
    (void)st;
    (void)data;
    pthread_mutex_lock(&cmu);
    exists_rc = rc;
    exists_ms = now_ms();
    pthread_mutex_unlock(&cmu);
}

static void
sync_done(int rc, const char *value, const void *data)
{
    (void)value;
    (void)data;
    pthread_mutex_lock(&cmu);
    sync_rc = rc;
    sync_ms = now_ms();
    pthread_mutex_unlock(&cmu);
}

static uint64_t
answered(const uint64_t *p)
{
    uint64_t v;

    pthread_mutex_lock(&cmu);
    v = *p;
    pthread_mutex_unlock(&cmu);
    return v;
}

/* ---- the test -------------------------------------------------------------------- */

static void
test_cut_off_follower(void)
{
    zhandle_t *plain = NULL;
    uint64_t t_cut, end;
    char mode[512];
    int opened;

    /* n1, its threads and the plain client in the namespace, on server 1 */
    CU_ASSERT_FATAL(ns_enter(1) == 0);
    opened = start_node(&n1, hosts1) == 0;
    if (opened)
        plain = zookeeper_init(hosts1, NULL, 10000, NULL, NULL, 0);
    CU_ASSERT_FATAL(ns_enter(0) == 0);
    CU_ASSERT_FATAL(opened);
    CU_ASSERT_FATAL(plain != NULL);
    CU_ASSERT_FATAL(wait_int(&n1.nready, WAIT_MS));
    CU_ASSERT_FATAL(start_node(&n2, hosts2) == 0);
    end = now_ms() + WAIT_MS;
    while (zoo_state(plain) != ZOO_CONNECTED_STATE && now_ms() < end)
        tick();
    CU_ASSERT_FATAL(zoo_state(plain) == ZOO_CONNECTED_STATE);
    /* server 1 follows (the premise needs a follower) */
    CU_ASSERT_FATAL(zkh_4lw_timeout(zk, 0, "srvr", mode, sizeof(mode), 5000) >= 0);
    CU_ASSERT_FATAL(strstr(mode, "Mode: follower") != NULL);
    CU_ASSERT_FATAL(quiesce());
    pthread_mutex_lock(&mu);
    CU_ASSERT(n1.active && !n2.active);
    pthread_mutex_unlock(&mu);

    /* the cut */
    CU_ASSERT_FATAL(ip("link", "set", host_if, "down", NULL) == 0);
    t_cut = now_ms();
    fprintf(stderr, "test_partition: server 1 and n1 cut off from servers 2 and 3\n");
    /* the premise: the cut-off follower answers a read, not a sync (the
       read first: the server answers a session's requests in order, so a
       read sent after the sync would wait for it) */
    CU_ASSERT_FATAL(zoo_aexists(plain, "/partition", 0, exists_done, NULL) == ZOK);
    end = t_cut + 3000;
    while (answered(&exists_ms) == 0 && now_ms() < end)
        tick();
    CU_ASSERT_FATAL(zoo_async(plain, "/", sync_done, NULL) == ZOK);
    while (answered(&sync_ms) == 0 && now_ms() < end)
        tick();
    CU_ASSERT(answered(&exists_ms) != 0 && exists_rc == ZOK);
    CU_ASSERT(answered(&sync_ms) == 0);
    fprintf(stderr, "test_partition: after the cut, server 1 answered an exists in %lld ms "
            "(rc %d); a sync %s\n", answered(&exists_ms) ? (long long)(exists_ms - t_cut) : -1LL,
            exists_rc, answered(&sync_ms) ? "was answered" : "was not answered in 3 s");

    /* n1 fences, n2 takes over, and their services never overlap */
    CU_ASSERT(wait_int(&n2.nready, T_SESSION + WAIT_MS));
    pthread_mutex_lock(&mu);
    fprintf(stderr, "test_partition: n1 fenced %lld ms after the cut, its service ended at "
            "+%lld ms; n2's began at +%lld ms, READY at +%lld ms\n",
            n1.nfenced ? (long long)(n1.fenced_ms - t_cut) : -1LL,
            n1.active ? -1LL : (long long)(n1.svc_end - t_cut),
            n2.svc_start ? (long long)(n2.svc_start - t_cut) : -1LL,
            n2.nready ? (long long)(n2.ready_ms - t_cut) : -1LL);
    CU_ASSERT(n1.nfenced >= 1);
    CU_ASSERT(!n1.active);
    CU_ASSERT(n2.active);
    CU_ASSERT(n2.svc_start >= n1.svc_end);
    CU_ASSERT_EQUAL(overlaps, 0);
    pthread_mutex_unlock(&mu);

    /* the link back: n1 learns its session is gone and registers again */
    CU_ASSERT_FATAL(ip("link", "set", host_if, "up", NULL) == 0);
    CU_ASSERT(wait_int(&n1.nlost, WAIT_MS));
    end = now_ms() + WAIT_MS;
    for (;;) {
        int r;

        pthread_mutex_lock(&mu);
        r = n1.nregistered;
        pthread_mutex_unlock(&mu);
        if (r >= 2 || now_ms() >= end)
            break;
        tick();
    }
    pthread_mutex_lock(&mu);
    CU_ASSERT(n1.nregistered >= 2);
    CU_ASSERT(n2.active && !n1.active);
    CU_ASSERT_EQUAL(overlaps, 0);
    pthread_mutex_unlock(&mu);

    zookeeper_close(plain);
    zkelect_close(n2.h);
    n2.h = NULL;
    zkelect_close(n1.h);
    n1.h = NULL;
    pthread_mutex_lock(&mu);
    CU_ASSERT_EQUAL(overlaps, 0);
    CU_ASSERT_EQUAL(overlap_ms, 0);
    fprintf(stderr, "test_partition: longest overlap of the two services: %llu ms\n",
            (unsigned long long)overlap_ms);
    pthread_mutex_unlock(&mu);
}

/* ---- suite ---------------------------------------------------------------------- */

static int
suite_init(void)
{
    struct zkh_opts o;
    int i;

    zkh_deadline(300);
    zkh_opts_init(&o);
    o.nservers = 3;
    o.tick_ms = TICK_MS;
    o.sync_limit = SYNC_LIMIT;
    o.addr = host_addr;
    o.srv_addr[0] = ns_addr;
    o.srv_netns[0] = ns_file;
    if (zkh_start(&o, &zk) != 0)
        return -1;
    snprintf(hosts1, sizeof(hosts1), "%s", zkh_host(zk, 0));
    snprintf(hosts2, sizeof(hosts2), "%s,%s", zkh_host(zk, 1), zkh_host(zk, 2));
    for (i = 0; i < 3; i++)
        fprintf(stderr, "test_partition: server %d on %s%s\n", i + 1, zkh_host(zk, i),
                i == 0 ? " (in the namespace)" : "");
    return 0;
}

static int
suite_clean(void)
{
    if (n2.h)
        zkelect_close(n2.h);
    if (n1.h)
        zkelect_close(n1.h);
    n1.h = n2.h = NULL;
    zkh_stop(zk);
    zk = NULL;
    return 0;
}

static CU_TestInfo tests[] = {
    {"a leader on a follower cut off from the quorum fences before the next one starts",
     test_cut_off_follower},
    CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
    {"partition", suite_init, suite_clean, NULL, NULL, tests},
    CU_SUITE_INFO_NULL,
};

int
main(int argc, char **argv)
{
    size_t i;
    int rc;

    if (geteuid() != 0) {
        fprintf(stderr, "test_partition: skipped: not root (network namespaces need "
                "CAP_SYS_ADMIN and CAP_NET_ADMIN)\n");
        return 77;
    }
    for (i = 0; i < sizeof(ip_paths) / sizeof(ip_paths[0]) && ip_bin == NULL; i++)
        if (access(ip_paths[i], X_OK) == 0)
            ip_bin = ip_paths[i];
    if (ip_bin == NULL) {
        /* as root, a missing tool is a failure, not a skip */
        fprintf(stderr, "test_partition: ip(8) not found (Debian package iproute2)\n");
        return 1;
    }
    clean_stale();
    if (ns_setup() != 0) {
        /* root, with ip(8), and still no namespace (a container without
           CAP_NET_ADMIN): skipped, as the fault test skips its partitions */
        fprintf(stderr, "test_partition: skipped: no network namespace could be made\n");
        return 77;
    }
    atexit(ns_teardown);
    rc = cutest_main(argc, argv, suites);
    ns_teardown();
    return rc;
}
