/*
 * test_harness.c - the real-ZooKeeper test harness against real servers:
 * standalone and a 3-server ensemble driven through libzookeeper_mt, faults
 * (kill, terminate, pause, quorum loss, restart), and cleanup on every way a
 * test process can end (zkh_stop, exit, signals, deadline, _exit, SIGKILL).
 */
#include "config.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <zookeeper/zookeeper.h>

#include "cutest.h"
#include "zkharness.h"

/* base64(sha1("super:pw")): the super user of the standalone suite */
#define TH_SUPER_DIGEST "super:0bX78nEegDzJM3ju0iLBEJdWzjg="
#define TH_SESSION_MS   10000 /* client session timeout */

/* ------------------------------------------------------------------------
 * Helpers: time, processes, ports
 * ------------------------------------------------------------------------ */

static int64_t
th_now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void
th_nap(int ms)
{
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

    while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
        ;
}

/*
 * 1 if pid is a ZooKeeper JVM with a live thread. Every task counts: after
 * SIGKILL the leader can be a zombie while other threads still hold the
 * process's sockets.
 */
static int
th_jvm_alive(pid_t pid)
{
    char path[PATH_MAX], buf[4096], *p;
    struct dirent *de;
    int live = 0;
    size_t n, i;
    DIR *d;
    FILE *f;

    if (pid <= 0)
        return 0;
    snprintf(path, sizeof path, "/proc/%ld/task", (long)pid);
    if ((d = opendir(path)) == NULL)
        return 0;
    while (!live && (de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "/proc/%ld/task/%s/stat", (long)pid, de->d_name);
        if ((f = fopen(path, "r")) == NULL)
            continue;
        n = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[n] = '\0';
        p = strrchr(buf, ')');
        live = p != NULL && p[1] == ' ' && p[2] != '\0' && p[2] != 'Z' && p[2] != 'X';
    }
    closedir(d);
    if (!live)
        return 0;
    snprintf(path, sizeof path, "/proc/%ld/cmdline", (long)pid);
    if ((f = fopen(path, "r")) == NULL)
        return 0;
    n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    for (i = 0; i < n; i++)
        if (buf[i] == '\0')
            buf[i] = ' ';
    buf[n] = '\0';
    return n == 0 || strstr(buf, "QuorumPeerMain") != NULL; /* n == 0: a zombie leader */
}

/* 1 if process pid has an open file descriptor on inode ino (e.g. a pipe). */
static int
th_has_inode(pid_t pid, ino_t ino)
{
    char path[PATH_MAX];
    struct dirent *de;
    struct stat st;
    int found = 0;
    DIR *d;

    snprintf(path, sizeof path, "/proc/%ld/fd", (long)pid);
    if ((d = opendir(path)) == NULL)
        return 0;
    while (!found && (de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "/proc/%ld/fd/%s", (long)pid, de->d_name);
        found = stat(path, &st) == 0 && st.st_ino == ino;
    }
    closedir(d);
    return found;
}

/* Poll until the JVM is gone. 1 if it went within timeout_ms. */
static int
th_wait_jvm_gone(pid_t pid, int timeout_ms)
{
    int64_t until = th_now_ms() + timeout_ms;

    while (th_jvm_alive(pid)) {
        if (th_now_ms() >= until)
            return 0;
        th_nap(20);
    }
    return 1;
}

/* 1 if something accepts TCP connections on 127.0.0.1:port. */
static int
th_port_accepts(int port)
{
    struct sockaddr_in sin;
    int fd, rc;

    memset(&sin, 0, sizeof sin);
    sin.sin_family = AF_INET;
    sin.sin_port = htons((uint16_t)port);
    sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd == -1)
        return 0;
    rc = connect(fd, (struct sockaddr *)&sin, sizeof sin);
    close(fd);
    return rc == 0;
}

static int
th_exists(const char *path)
{
    struct stat st;

    return lstat(path, &st) == 0;
}

/* The "Mode: xxx" word of server i, "" if it does not answer. */
static void
th_mode(struct zkh *z, int i, char *mode, size_t len)
{
    char buf[2048], *p, *e;

    mode[0] = '\0';
    if (zkh_4lw(z, i, "srvr", buf, sizeof buf) <= 0 || (p = strstr(buf, "\nMode: ")) == NULL)
        return;
    p += 7;
    e = strchr(p, '\n');
    snprintf(mode, len, "%.*s", e != NULL ? (int)(e - p) : (int)strlen(p), p);
}

/* The integer value of key in server i's mntr output, -1 if absent. */
static long
th_mntr(struct zkh *z, int i, const char *key)
{
    char buf[65536], pat[80], *p;

    snprintf(pat, sizeof pat, "\n%s\t", key);
    if (zkh_4lw(z, i, "mntr", buf + 1, sizeof buf - 1) <= 0)
        return -1;
    buf[0] = '\n';
    p = strstr(buf, pat);
    return p != NULL ? strtol(p + strlen(pat), NULL, 10) : -1;
}

/* Poll until server i's mntr value of key is want. 0, or -1 at the deadline. */
static int
th_wait_mntr(struct zkh *z, int i, const char *key, long want, int timeout_ms)
{
    int64_t until = th_now_ms() + timeout_ms;

    while (th_mntr(z, i, key) != want) {
        if (th_now_ms() >= until)
            return -1;
        th_nap(50);
    }
    return 0;
}

/* ------------------------------------------------------------------------
 * A ZooKeeper client whose session state is waited on with a condvar
 * ------------------------------------------------------------------------ */

struct th_conn {
    zhandle_t *zh;           /* NULL when closed */
    pthread_mutex_t mu;      /* protects the fields below */
    pthread_cond_t cv;       /* CLOCK_MONOTONIC; signalled on every session event */
    int state;               /* last session state */
    int connected_events;    /* CONNECTED events so far */
    int64_t session_id;      /* copied while CONNECTED */
};

static void
th_watcher(zhandle_t *zh, int type, int state, const char *path, void *ctx)
{
    struct th_conn *c = ctx;

    (void)path;
    if (type != ZOO_SESSION_EVENT)
        return;
    pthread_mutex_lock(&c->mu);
    c->state = state;
    if (state == ZOO_CONNECTED_STATE) {
        c->connected_events++;
        c->session_id = zoo_client_id(zh)->client_id;
    }
    pthread_cond_broadcast(&c->cv);
    pthread_mutex_unlock(&c->mu);
}

/* Wait until the session is CONNECTED with at least min_events CONNECTED events. */
static int
th_conn_wait(struct th_conn *c, int min_events, int timeout_ms)
{
    struct timespec at;
    int ok;

    clock_gettime(CLOCK_MONOTONIC, &at);
    at.tv_sec += timeout_ms / 1000;
    at.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
    if (at.tv_nsec >= 1000000000L) {
        at.tv_sec++;
        at.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&c->mu);
    while (!(c->state == ZOO_CONNECTED_STATE && c->connected_events >= min_events))
        if (pthread_cond_timedwait(&c->cv, &c->mu, &at) == ETIMEDOUT)
            break;
    ok = c->state == ZOO_CONNECTED_STATE && c->connected_events >= min_events;
    pthread_mutex_unlock(&c->mu);
    return ok ? 0 : -1;
}

/* Wait until the session state is anything but CONNECTED. */
static int
th_conn_wait_lost(struct th_conn *c, int timeout_ms)
{
    struct timespec at;
    int ok;

    clock_gettime(CLOCK_MONOTONIC, &at);
    at.tv_sec += timeout_ms / 1000 + 1;
    pthread_mutex_lock(&c->mu);
    while (c->state == ZOO_CONNECTED_STATE)
        if (pthread_cond_timedwait(&c->cv, &c->mu, &at) == ETIMEDOUT)
            break;
    ok = c->state != ZOO_CONNECTED_STATE;
    pthread_mutex_unlock(&c->mu);
    return ok ? 0 : -1;
}

static int
th_conn_events(struct th_conn *c)
{
    int n;

    pthread_mutex_lock(&c->mu);
    n = c->connected_events;
    pthread_mutex_unlock(&c->mu);
    return n;
}

static int64_t
th_conn_session(struct th_conn *c)
{
    int64_t id;

    pthread_mutex_lock(&c->mu);
    id = c->session_id;
    pthread_mutex_unlock(&c->mu);
    return id;
}

/* Open a session on hosts and wait (10 s) until it is CONNECTED. */
static int
th_conn_open(struct th_conn *c, const char *hosts)
{
    pthread_condattr_t ca;

    memset(c, 0, sizeof *c);
    pthread_mutex_init(&c->mu, NULL);
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&c->cv, &ca);
    pthread_condattr_destroy(&ca);
    c->state = ZOO_NOTCONNECTED_STATE;
    c->zh = zookeeper_init(hosts, th_watcher, TH_SESSION_MS, NULL, c, ZOO_NO_LOG_CLIENTENV);
    if (c->zh == NULL)
        return -1;
    return th_conn_wait(c, 1, 10000);
}

static void
th_conn_close(struct th_conn *c)
{
    if (c->zh == NULL)
        return;
    zookeeper_close(c->zh);
    c->zh = NULL;
    pthread_cond_destroy(&c->cv);
    pthread_mutex_destroy(&c->mu);
}

/* Client port of the server the session is connected to, -1 if none. */
static int
th_conn_port(struct th_conn *c)
{
    struct sockaddr_storage ss;
    socklen_t len = sizeof ss;

    if (zookeeper_get_connected_host(c->zh, (struct sockaddr *)&ss, &len) == NULL
        || ss.ss_family != AF_INET)
        return -1;
    return ntohs(((struct sockaddr_in *)&ss)->sin_port);
}

static int
th_index_of_port(struct zkh *z, int port)
{
    int i;

    for (i = 0; i < zkh_nservers(z); i++)
        if (zkh_port(z, i) == port)
            return i;
    return -1;
}

/* Retry an operation that failed because the connection moved, for up to 20 s. */
static int
th_retryable(int rc)
{
    return rc == ZCONNECTIONLOSS || rc == ZOPERATIONTIMEOUT;
}

static int
th_create(struct th_conn *c, const char *path, const char *value, int mode)
{
    int64_t until = th_now_ms() + 20000;
    int rc, tries = 0;

    for (;;) {
        rc = zoo_create(c->zh, path, value, (int)strlen(value), &ZOO_OPEN_ACL_UNSAFE, mode,
            NULL, 0);
        if (rc == ZNODEEXISTS && tries > 0)
            return ZOK; /* an earlier try went through despite the error */
        if (!th_retryable(rc) || th_now_ms() >= until)
            return rc;
        tries++;
        th_conn_wait(c, 1, 2000);
    }
}

/* Read path into buf (NUL-terminated), retrying connection errors. */
static int
th_get(struct th_conn *c, const char *path, char *buf, int len, struct Stat *st)
{
    int64_t until = th_now_ms() + 20000;
    int rc, n;

    for (;;) {
        n = len - 1;
        rc = zoo_get(c->zh, path, 0, buf, &n, st);
        if (rc == ZOK)
            buf[n >= 0 ? n : 0] = '\0';
        if (!th_retryable(rc) || th_now_ms() >= until)
            return rc;
        th_conn_wait(c, 1, 2000);
    }
}

/* ------------------------------------------------------------------------
 * Suite "options": no server needed
 * ------------------------------------------------------------------------ */

static void
test_opts_defaults(void)
{
    struct zkh_opts o;

    memset(&o, 0x55, sizeof o);
    zkh_opts_init(&o);
    CU_ASSERT_EQUAL(o.nservers, 1);
    CU_ASSERT_EQUAL(o.tick_ms, 200);
    CU_ASSERT_EQUAL(o.max_session_ms, 20000);
    CU_ASSERT_EQUAL(o.start_timeout_ms, 60000);
    CU_ASSERT_PTR_NULL(o.basedir);
    CU_ASSERT_PTR_NULL(o.super_digest);
    CU_ASSERT_STRING_EQUAL(o.addr, "127.0.0.1");
    CU_ASSERT_EQUAL(o.verbose, 0);
}

static void
test_opts_rejected(void)
{
    struct zkh_opts o;
    struct zkh *z = (struct zkh *)&o;

    zkh_opts_init(&o);
    o.nservers = 2;
    errno = 0;
    CU_ASSERT_EQUAL(zkh_start(&o, &z), -1);
    CU_ASSERT_EQUAL(errno, EINVAL);
    CU_ASSERT_PTR_NULL(z);

    zkh_opts_init(&o);
    o.nservers = 0;
    CU_ASSERT_EQUAL(zkh_start(&o, &z), -1);
    zkh_opts_init(&o);
    o.addr = "localhost:2181";
    errno = 0;
    CU_ASSERT_EQUAL(zkh_start(&o, &z), -1);
    CU_ASSERT_EQUAL(errno, EINVAL);
    zkh_opts_init(&o);
    o.super_digest = "admin:x\nmaxClientCnxns=1";
    CU_ASSERT_EQUAL(zkh_start(&o, &z), -1);
    zkh_opts_init(&o);
    o.max_session_ms = 100; /* < 2 ticks */
    CU_ASSERT_EQUAL(zkh_start(&o, &z), -1);
    zkh_opts_init(&o);
    CU_ASSERT_EQUAL(o.heap_mb, 128);
    CU_ASSERT_EQUAL(o.force_sync, 0);
    o.heap_mb = 16; /* below the 32 MiB floor */
    errno = 0;
    CU_ASSERT_EQUAL(zkh_start(&o, &z), -1);
    CU_ASSERT_EQUAL(errno, EINVAL);
    CU_ASSERT_EQUAL(zkh_start(NULL, &z), -1);
}

/* A server that exits during start fails zkh_start() at once and leaves nothing. */
static void
test_start_fails_fast(void)
{
    char parent[PATH_MAX], base[PATH_MAX + 8];
    const char *tmp = getenv("TMPDIR");
    struct zkh_opts o;
    struct zkh *z = NULL;
    int64_t t0;
    int rc, err;

    snprintf(parent, sizeof parent, "%s/th-fail.XXXXXX", tmp != NULL && tmp[0] == '/' ? tmp : "/tmp");
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(parent));
    snprintf(base, sizeof base, "%s/base", parent);
    zkh_opts_init(&o);
    o.basedir = base;
    setenv("JAVA", "/bin/false", 1); /* "java" that exits with status 1 */
    t0 = th_now_ms();
    rc = zkh_start(&o, &z);
    err = errno;
    unsetenv("JAVA");
    CU_ASSERT_EQUAL(rc, -1);
    CU_ASSERT_EQUAL(err, ECHILD);
    CU_ASSERT_PTR_NULL(z);
    CU_ASSERT(th_now_ms() - t0 < 10000); /* not the 60 s start timeout */
    CU_ASSERT_FALSE(th_exists(base));    /* made by the harness, removed again */
    rmdir(parent);

    setenv("JAVA", "/nonexistent/java", 1);
    errno = 0;
    rc = zkh_start(&o, &z);
    err = errno;
    unsetenv("JAVA");
    CU_ASSERT_EQUAL(rc, -1);
    CU_ASSERT_EQUAL(err, ENOENT);
}

/* ------------------------------------------------------------------------
 * Suite "standalone"
 * ------------------------------------------------------------------------ */

static struct zkh *sa;

static int
sa_init(void)
{
    struct zkh_opts o;

    zkh_opts_init(&o);
    o.super_digest = TH_SUPER_DIGEST;
    o.force_sync = 1;   /* the suite checks both options reach the server */
    o.heap_mb = 96;
    return zkh_start(&o, &sa) == 0 ? 0 : -1;
}

static int
sa_cleanup(void)
{
    zkh_stop(sa);
    sa = NULL;
    return 0;
}

static void
test_sa_serving(void)
{
    char buf[4096], path[PATH_MAX];
    FILE *f;
    size_t n;

    CU_ASSERT_PTR_NOT_NULL_FATAL(sa);
    CU_ASSERT_EQUAL(zkh_nservers(sa), 1);
    CU_ASSERT_STRING_EQUAL(zkh_hosts(sa), zkh_host(sa, 0));
    CU_ASSERT_PTR_NULL(zkh_host(sa, 1));
    CU_ASSERT_EQUAL(zkh_pid(sa, 1), -1);
    CU_ASSERT(th_jvm_alive(zkh_pid(sa, 0)));
    CU_ASSERT_EQUAL(zkh_is_serving(sa, 0), 1);
    CU_ASSERT(th_port_accepts(zkh_port(sa, 0)));
    CU_ASSERT(zkh_4lw(sa, 0, "srvr", buf, sizeof buf) > 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "Mode: standalone"));
    CU_ASSERT(zkh_4lw(sa, 0, "mntr", buf, sizeof buf) > 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "zk_server_state\tstandalone"));
    /* a tiny buffer is filled and terminated, not overrun */
    CU_ASSERT_EQUAL(zkh_4lw(sa, 0, "mntr", buf, 8), 7);
    CU_ASSERT_EQUAL(strlen(buf), 7);

    snprintf(path, sizeof path, "%s/s0/zoo.cfg", zkh_basedir(sa));
    f = fopen(path, "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\nmaxClientCnxns=0\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\n4lw.commands.whitelist=*\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\nmaxSessionTimeout=20000\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\nforceSync=yes\n"));
    CU_ASSERT_PTR_NULL(strstr(buf, "server.1="));

    /* heap_mb reached the JVM's command line */
    snprintf(path, sizeof path, "/proc/%d/cmdline", (int)zkh_pid(sa, 0));
    f = fopen(path, "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    CU_ASSERT(memmem(buf, n, "-Xmx96m", 8) != NULL);
    CU_ASSERT(memmem(buf, n, "-Xmx128m", 9) == NULL);
}

static void
test_sa_ephemeral(void)
{
    struct th_conn c, c2;
    struct Stat st;
    char buf[64];

    CU_ASSERT_PTR_NOT_NULL_FATAL(sa);
    CU_ASSERT_EQUAL_FATAL(th_conn_open(&c, zkh_hosts(sa)), 0);
    CU_ASSERT_EQUAL(th_create(&c, "/th-eph", "hello", ZOO_EPHEMERAL), ZOK);
    CU_ASSERT_EQUAL(th_get(&c, "/th-eph", buf, sizeof buf, &st), ZOK);
    CU_ASSERT_STRING_EQUAL(buf, "hello");
    CU_ASSERT_EQUAL(st.ephemeralOwner, th_conn_session(&c));
    th_conn_close(&c);

    /* a real server: the ephemeral went with the closed session */
    CU_ASSERT_EQUAL_FATAL(th_conn_open(&c2, zkh_hosts(sa)), 0);
    CU_ASSERT_EQUAL(zoo_exists(c2.zh, "/th-eph", 0, NULL), ZNONODE);
    th_conn_close(&c2);
}

static void
test_sa_super_digest(void)
{
    struct th_conn owner, super, anon;
    char buf[64];

    CU_ASSERT_PTR_NOT_NULL_FATAL(sa);
    CU_ASSERT_EQUAL_FATAL(th_conn_open(&owner, zkh_hosts(sa)), 0);
    CU_ASSERT_EQUAL(zoo_add_auth(owner.zh, "digest", "u:p", 3, NULL, NULL), ZOK);
    CU_ASSERT_EQUAL(zoo_create(owner.zh, "/th-acl", "x", 1, &ZOO_CREATOR_ALL_ACL,
        ZOO_EPHEMERAL, NULL, 0), ZOK);

    CU_ASSERT_EQUAL_FATAL(th_conn_open(&anon, zkh_hosts(sa)), 0);
    CU_ASSERT_EQUAL(th_get(&anon, "/th-acl", buf, sizeof buf, NULL), ZNOAUTH);
    th_conn_close(&anon);

    CU_ASSERT_EQUAL_FATAL(th_conn_open(&super, zkh_hosts(sa)), 0);
    CU_ASSERT_EQUAL(zoo_add_auth(super.zh, "digest", "super:pw", 8, NULL, NULL), ZOK);
    CU_ASSERT_EQUAL(th_get(&super, "/th-acl", buf, sizeof buf, NULL), ZOK);
    CU_ASSERT_STRING_EQUAL(buf, "x");
    th_conn_close(&super);
    th_conn_close(&owner);
}

static void
test_sa_kill_restart(void)
{
    struct th_conn c;
    char buf[64];
    pid_t pid;
    int port, events;
    int64_t sid;

    CU_ASSERT_PTR_NOT_NULL_FATAL(sa);
    CU_ASSERT_EQUAL_FATAL(th_conn_open(&c, zkh_hosts(sa)), 0);
    CU_ASSERT_EQUAL(th_create(&c, "/th-survivor", "kept", ZOO_EPHEMERAL), ZOK);
    sid = th_conn_session(&c);
    events = th_conn_events(&c);
    pid = zkh_pid(sa, 0);
    port = zkh_port(sa, 0);

    CU_ASSERT_EQUAL(zkh_kill(sa, 0), 0);
    CU_ASSERT_EQUAL(zkh_pid(sa, 0), -1);
    CU_ASSERT_FALSE(th_jvm_alive(pid));
    CU_ASSERT_FALSE(th_port_accepts(port));
    CU_ASSERT_EQUAL(zkh_is_serving(sa, 0), 0);
    CU_ASSERT_EQUAL(zkh_wait_not_serving(sa, 0, 1000), 0);
    errno = 0;
    CU_ASSERT_EQUAL(zkh_kill(sa, 0), -1);
    CU_ASSERT_EQUAL(errno, ESRCH);
    CU_ASSERT_EQUAL(zkh_4lw(sa, 0, "srvr", buf, sizeof buf), -1);
    CU_ASSERT_EQUAL(th_conn_wait_lost(&c, 5000), 0);

    CU_ASSERT_EQUAL_FATAL(zkh_restart(sa, 0, 1), 0);
    CU_ASSERT(zkh_pid(sa, 0) > 0);
    CU_ASSERT(zkh_pid(sa, 0) != pid);
    CU_ASSERT_EQUAL(zkh_port(sa, 0), port);
    CU_ASSERT_EQUAL(zkh_is_serving(sa, 0), 1);
    /* same port and dataDir: the client comes back to its session and node */
    CU_ASSERT_EQUAL(th_conn_wait(&c, events + 1, 20000), 0);
    CU_ASSERT_EQUAL(th_conn_session(&c), sid);
    CU_ASSERT_EQUAL(th_get(&c, "/th-survivor", buf, sizeof buf, NULL), ZOK);
    CU_ASSERT_STRING_EQUAL(buf, "kept");
    th_conn_close(&c);
}

static void
test_sa_terminate_restart(void)
{
    struct stat st;
    pid_t pid;
    int p[2];

    CU_ASSERT_PTR_NOT_NULL_FATAL(sa);
    pid = zkh_pid(sa, 0);
    CU_ASSERT_EQUAL(zkh_terminate(sa, 0), 0);
    CU_ASSERT_EQUAL(zkh_pid(sa, 0), -1);
    CU_ASSERT_FALSE(th_jvm_alive(pid));
    /* a descriptor without FD_CLOEXEC must not leak into the server */
    CU_ASSERT_EQUAL_FATAL(pipe(p), 0);
    CU_ASSERT_EQUAL(zkh_restart(sa, 0, 0), 0); /* no wait: poll ourselves */
    CU_ASSERT_EQUAL(zkh_wait_serving(sa, 0, 30000), 0);
    CU_ASSERT_EQUAL(zkh_is_serving(sa, 0), 1);
    CU_ASSERT_EQUAL(fstat(p[1], &st), 0);
    CU_ASSERT(th_has_inode(getpid(), st.st_ino)); /* the check can see it */
    CU_ASSERT_FALSE(th_has_inode(zkh_pid(sa, 0), st.st_ino));
    close(p[0]);
    close(p[1]);
    /* restart of a running server: terminated first, then started */
    pid = zkh_pid(sa, 0);
    CU_ASSERT_EQUAL(zkh_restart(sa, 0, 1), 0);
    CU_ASSERT(zkh_pid(sa, 0) != pid);
    CU_ASSERT_FALSE(th_jvm_alive(pid));
    CU_ASSERT_EQUAL(zkh_is_serving(sa, 0), 1);
}

static void
test_sa_stop(void)
{
    char base[PATH_MAX];
    pid_t pid;
    int port;

    CU_ASSERT_PTR_NOT_NULL_FATAL(sa);
    pid = zkh_pid(sa, 0);
    port = zkh_port(sa, 0);
    snprintf(base, sizeof base, "%s", zkh_basedir(sa));
    CU_ASSERT(th_exists(base));
    zkh_stop(sa);
    sa = NULL;
    CU_ASSERT_FALSE(th_jvm_alive(pid));
    CU_ASSERT_EQUAL(kill(pid, 0), -1); /* reaped: no zombie left either */
    CU_ASSERT_FALSE(th_port_accepts(port));
    CU_ASSERT_FALSE(th_exists(base));
    zkh_stop(NULL); /* NULL-safe */
}

/* ------------------------------------------------------------------------
 * Suite "ensemble": 3 servers
 * ------------------------------------------------------------------------ */

static struct zkh *ens;
static struct th_conn ens_conn;

static int
ens_init(void)
{
    struct zkh_opts o;

    zkh_opts_init(&o);
    o.nservers = 3;
    return zkh_start(&o, &ens) == 0 ? 0 : -1;
}

static int
ens_cleanup(void)
{
    th_conn_close(&ens_conn);
    zkh_stop(ens);
    ens = NULL;
    return 0;
}

static void
test_ens_serving(void)
{
    char mode[32], host[64];
    int i, leaders = 0, followers = 0, commas = 0;
    const char *p;

    CU_ASSERT_PTR_NOT_NULL_FATAL(ens);
    CU_ASSERT_EQUAL(zkh_nservers(ens), 3);
    for (p = zkh_hosts(ens); *p != '\0'; p++)
        commas += *p == ',';
    CU_ASSERT_EQUAL(commas, 2);
    for (i = 0; i < 3; i++) {
        CU_ASSERT(th_jvm_alive(zkh_pid(ens, i)));
        CU_ASSERT_EQUAL(zkh_is_serving(ens, i), 1);
        snprintf(host, sizeof host, "127.0.0.1:%d", zkh_port(ens, i));
        CU_ASSERT_STRING_EQUAL(zkh_host(ens, i), host);
        CU_ASSERT_PTR_NOT_NULL(strstr(zkh_hosts(ens), host));
        th_mode(ens, i, mode, sizeof mode);
        leaders += strcmp(mode, "leader") == 0;
        followers += strcmp(mode, "follower") == 0;
    }
    CU_ASSERT_EQUAL(leaders, 1);
    CU_ASSERT_EQUAL(followers, 2);
}

/* Kill the member the client uses: it moves to another one, same session. */
static void
test_ens_kill_connected(void)
{
    char buf[64];
    int port, k, events;
    int64_t sid;
    pid_t pid;

    CU_ASSERT_PTR_NOT_NULL_FATAL(ens);
    CU_ASSERT_EQUAL_FATAL(th_conn_open(&ens_conn, zkh_hosts(ens)), 0);
    CU_ASSERT_EQUAL(th_create(&ens_conn, "/th-ens", "ens", ZOO_EPHEMERAL), ZOK);
    port = th_conn_port(&ens_conn);
    k = th_index_of_port(ens, port);
    CU_ASSERT_FATAL(k >= 0);
    sid = th_conn_session(&ens_conn);
    events = th_conn_events(&ens_conn);
    pid = zkh_pid(ens, k);

    CU_ASSERT_EQUAL(zkh_kill(ens, k), 0);
    CU_ASSERT_FALSE(th_jvm_alive(pid));
    CU_ASSERT_EQUAL(th_conn_wait(&ens_conn, events + 1, 20000), 0);
    CU_ASSERT(th_conn_port(&ens_conn) != port);
    CU_ASSERT(th_index_of_port(ens, th_conn_port(&ens_conn)) >= 0);
    CU_ASSERT_EQUAL(th_conn_session(&ens_conn), sid);
    CU_ASSERT_EQUAL(th_get(&ens_conn, "/th-ens", buf, sizeof buf, NULL), ZOK);
    CU_ASSERT_STRING_EQUAL(buf, "ens");
    CU_ASSERT_EQUAL(th_create(&ens_conn, "/th-ens-after-kill", "w", 0), ZOK);

    CU_ASSERT_EQUAL(zkh_restart(ens, k, 1), 0);
    CU_ASSERT_EQUAL(zkh_is_serving(ens, k), 1);
    CU_ASSERT_EQUAL(zkh_port(ens, k), port);
}

/*
 * A paused member stops answering; the others still serve and the leader
 * drops it; resumed, it syncs with the leader again and serves.
 */
static void
test_ens_pause_resume(void)
{
    char buf[2048], mode[32];
    int i, p = -1, leader = -1, cur;
    int64_t t0;

    CU_ASSERT_PTR_NOT_NULL_FATAL(ens);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ens_conn.zh);
    CU_ASSERT_EQUAL(th_conn_wait(&ens_conn, 1, 20000), 0);
    cur = th_index_of_port(ens, th_conn_port(&ens_conn));
    for (i = 0; i < 3; i++) {
        th_mode(ens, i, mode, sizeof mode);
        if (strcmp(mode, "leader") == 0)
            leader = i;
        else if (p == -1 && i != cur && strcmp(mode, "follower") == 0)
            p = i; /* a follower the client does not use */
    }
    CU_ASSERT_FATAL(p >= 0 && leader >= 0);
    CU_ASSERT_EQUAL(th_mntr(ens, leader, "zk_synced_followers"), 2);

    CU_ASSERT_EQUAL_FATAL(zkh_pause(ens, p), 0);
    CU_ASSERT(th_jvm_alive(zkh_pid(ens, p))); /* stopped, not dead */
    t0 = th_now_ms();
    errno = 0;
    CU_ASSERT_EQUAL(zkh_4lw_timeout(ens, p, "srvr", buf, sizeof buf, 300), -1);
    CU_ASSERT_EQUAL(errno, ETIMEDOUT);
    CU_ASSERT(th_now_ms() - t0 < 2000);
    CU_ASSERT_EQUAL(zkh_is_serving(ens, p), 0);
    CU_ASSERT_EQUAL(zkh_pause(ens, p), 0); /* already paused: no-op */
    /* the other two still form a quorum, and the leader gives up on it */
    CU_ASSERT_EQUAL(th_create(&ens_conn, "/th-ens-while-paused", "w", 0), ZOK);
    CU_ASSERT_EQUAL(th_wait_mntr(ens, leader, "zk_synced_followers", 1, 15000), 0);

    CU_ASSERT_EQUAL(zkh_resume(ens, p), 0);
    CU_ASSERT_EQUAL(th_wait_mntr(ens, leader, "zk_synced_followers", 2, 30000), 0);
    CU_ASSERT_EQUAL(zkh_wait_serving(ens, p, 30000), 0);
    th_mode(ens, p, mode, sizeof mode);
    CU_ASSERT_STRING_EQUAL(mode, "follower");
}

/* Killing 2 of 3 stops the survivor serving; one back restores the quorum. */
static void
test_ens_quorum_loss(void)
{
    char buf[64];
    int s, a, b, events;
    int64_t sid;

    CU_ASSERT_PTR_NOT_NULL_FATAL(ens);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ens_conn.zh);
    CU_ASSERT_EQUAL(th_conn_wait(&ens_conn, 1, 20000), 0);
    s = th_index_of_port(ens, th_conn_port(&ens_conn)); /* the survivor: the client's */
    CU_ASSERT_FATAL(s >= 0);
    a = (s + 1) % 3;
    b = (s + 2) % 3;
    sid = th_conn_session(&ens_conn);
    CU_ASSERT_EQUAL(zkh_is_serving(ens, s), 1);
    CU_ASSERT_EQUAL(zkh_kill(ens, a), 0);
    CU_ASSERT_EQUAL(zkh_kill(ens, b), 0);
    CU_ASSERT_EQUAL(zkh_wait_not_serving(ens, s, 15000), 0);
    CU_ASSERT(th_jvm_alive(zkh_pid(ens, s))); /* running, just not serving */
    CU_ASSERT_EQUAL(zkh_is_serving(ens, s), 0);
    CU_ASSERT_EQUAL(th_conn_wait_lost(&ens_conn, 15000), 0);
    events = th_conn_events(&ens_conn);

    CU_ASSERT_EQUAL(zkh_restart(ens, a, 1), 0);
    CU_ASSERT_EQUAL(zkh_wait_serving(ens, s, 30000), 0);
    CU_ASSERT_EQUAL(th_conn_wait(&ens_conn, events + 1, 30000), 0);
    CU_ASSERT_EQUAL(th_conn_session(&ens_conn), sid); /* quorum loss does not expire it */
    CU_ASSERT_EQUAL(th_get(&ens_conn, "/th-ens", buf, sizeof buf, NULL), ZOK);
    CU_ASSERT_EQUAL(zkh_restart(ens, b, 1), 0);
    CU_ASSERT_EQUAL(zkh_is_serving(ens, b), 1);
}

static void
test_ens_stop(void)
{
    char base[PATH_MAX];
    pid_t pids[3];
    int ports[3], i;

    CU_ASSERT_PTR_NOT_NULL_FATAL(ens);
    th_conn_close(&ens_conn);
    snprintf(base, sizeof base, "%s", zkh_basedir(ens));
    for (i = 0; i < 3; i++) {
        pids[i] = zkh_pid(ens, i);
        ports[i] = zkh_port(ens, i);
        CU_ASSERT(th_jvm_alive(pids[i]));
    }
    CU_ASSERT(th_exists(base));
    zkh_stop(ens);
    ens = NULL;
    for (i = 0; i < 3; i++) {
        CU_ASSERT_FALSE(th_jvm_alive(pids[i]));
        CU_ASSERT_FALSE(th_port_accepts(ports[i]));
    }
    CU_ASSERT_FALSE(th_exists(base));
}

/* ------------------------------------------------------------------------
 * Suite "cleanup": a child test process ends in some way; nothing survives
 * ------------------------------------------------------------------------ */

enum {
    TH_END_RAW_EXIT,  /* _exit(0): no cleanup code runs; PDEATHSIG kills the JVM */
    TH_END_SIGKILL,   /* SIGKILL itself: same */
    TH_END_SIGTERM,   /* the harness's handler stops everything and re-raises */
    TH_END_EXIT,      /* exit(0) without zkh_stop(): the atexit handler */
    TH_END_DEADLINE   /* zkh_deadline(1) passes while the child blocks */
};

struct th_child_info {
    pid_t jvm;              /* the child's server */
    int port;               /* its client port */
    char basedir[PATH_MAX]; /* its base directory */
};

static void __attribute__((noreturn))
th_child(int how, int wfd)
{
    struct th_child_info info;
    struct zkh_opts o;
    struct zkh *z;
    int block[2];
    char c;

    zkh_opts_init(&o);
    if (zkh_start(&o, &z) == -1)
        _exit(3);
    memset(&info, 0, sizeof info);
    info.jvm = zkh_pid(z, 0);
    info.port = zkh_port(z, 0);
    snprintf(info.basedir, sizeof info.basedir, "%s", zkh_basedir(z));
    if (write(wfd, &info, sizeof info) != (ssize_t)sizeof info)
        _exit(4);
    switch (how) {
    case TH_END_RAW_EXIT:
        _exit(0);
    case TH_END_SIGKILL:
        raise(SIGKILL);
        break;
    case TH_END_SIGTERM:
        raise(SIGTERM);
        break;
    case TH_END_EXIT:
        exit(0);
    case TH_END_DEADLINE:
        zkh_deadline(1);
        if (pipe(block) == 0)
            (void)!read(block[0], &c, 1); /* never returns: nobody writes */
        break;
    }
    _exit(5);
}

/* Read exactly len bytes from fd within timeout_ms. */
static int
th_read_full(int fd, void *buf, size_t len, int timeout_ms)
{
    int64_t until = th_now_ms() + timeout_ms;
    struct pollfd pfd = { fd, POLLIN, 0 };
    size_t got = 0;
    ssize_t n;
    int64_t left;

    while (got < len) {
        left = until - th_now_ms();
        if (left <= 0 || poll(&pfd, 1, (int)left) <= 0)
            return -1;
        n = read(fd, (char *)buf + got, len - got);
        if (n <= 0)
            return -1;
        got += (size_t)n;
    }
    return 0;
}

static int
th_wait_child(pid_t pid, int *status, int timeout_ms)
{
    int64_t until = th_now_ms() + timeout_ms;
    pid_t r;

    while ((r = waitpid(pid, status, WNOHANG)) == 0) {
        if (th_now_ms() >= until) {
            kill(pid, SIGKILL);
            waitpid(pid, status, 0);
            return -1;
        }
        th_nap(10);
    }
    return r == pid ? 0 : -1;
}

static char th_child_tmp[PATH_MAX]; /* private TMPDIR of the child cases */
static char *th_saved_tmp;          /* TMPDIR to restore, NULL if unset */

/* Point TMPDIR at th_child_tmp (made on first use), or back. */
static int
th_private_tmpdir(int on)
{
    const char *t;

    if (on) {
        if (th_child_tmp[0] == '\0') {
            t = getenv("TMPDIR");
            snprintf(th_child_tmp, sizeof th_child_tmp, "%s/th-child.XXXXXX",
                t != NULL && t[0] == '/' ? t : "/tmp");
            if (mkdtemp(th_child_tmp) == NULL) {
                th_child_tmp[0] = '\0';
                return -1;
            }
        }
        t = getenv("TMPDIR");
        free(th_saved_tmp);
        th_saved_tmp = t != NULL ? strdup(t) : NULL;
        return setenv("TMPDIR", th_child_tmp, 1);
    }
    if (th_saved_tmp != NULL)
        setenv("TMPDIR", th_saved_tmp, 1);
    else
        unsetenv("TMPDIR");
    free(th_saved_tmp);
    th_saved_tmp = NULL;
    return 0;
}

/* zkh_clean_stale() on the children's private TMPDIR (no other process uses it). */
static int
th_clean_child_tmp(void)
{
    int n;

    if (th_private_tmpdir(1) == -1)
        return -1;
    n = zkh_clean_stale();
    th_private_tmpdir(0);
    return n;
}

/*
 * Run a child that ends as how (in its own TMPDIR); check its JVM is gone
 * and return its status. TH_END_EXIT runs in a fresh exec of this program,
 * so that LeakSanitizer at exit() sees no threads inherited from us.
 */
static int
th_child_case(int how, struct th_child_info *info, int *status)
{
    static char *const child_argv[] = { "test_harness-child", NULL };
    char env[64], self[PATH_MAX], c;
    struct pollfd pfd;
    int p[2], ok = 1;
    ssize_t n;
    pid_t pid;

    memset(info, 0, sizeof *info);
    /* this program's path (under valgrind /proc/self/exe is valgrind itself) */
    n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return -1;
    self[n] = '\0';
    if (pipe2(p, O_CLOEXEC) == -1 || th_private_tmpdir(1) == -1)
        return -1;
    snprintf(env, sizeof env, "%d:%d", how, p[1]);
    setenv("TH_CHILD", env, 1);
    fflush(stdout);
    fflush(stderr);
    pid = fork();
    if (pid == 0) {
        close(p[0]);
        if (how == TH_END_EXIT) {
            fcntl(p[1], F_SETFD, 0);
            execv(self, child_argv);
            _exit(6);
        }
        th_child(how, p[1]);
    }
    unsetenv("TH_CHILD");
    th_private_tmpdir(0);
    close(p[1]);
    if (pid == -1) {
        close(p[0]);
        return -1;
    }
    if (th_read_full(p[0], info, sizeof *info, 90000) == -1) {
        fprintf(stderr, "th: child %d did not report its server\n", how);
        ok = 0;
    }
    if (th_wait_child(pid, status, 30000) == -1) {
        fprintf(stderr, "th: child %d did not end\n", how);
        ok = 0;
    }
    /* the JVM must not hold the pipe: EOF once the child is gone */
    pfd.fd = p[0];
    pfd.events = POLLIN;
    if (ok && (poll(&pfd, 1, 5000) != 1 || read(p[0], &c, 1) != 0)) {
        fprintf(stderr, "th: child %d: pipe still open after its death\n", how);
        ok = 0;
    }
    close(p[0]);
    if (ok && !th_wait_jvm_gone(info->jvm, 15000)) {
        fprintf(stderr, "th: child %d: JVM %ld survived\n", how, (long)info->jvm);
        kill(info->jvm, SIGKILL);
        ok = 0;
    }
    return ok ? 0 : -1;
}

static void
test_child_raw_exit(void)
{
    struct th_child_info info;
    int status = 0;

    CU_ASSERT_EQUAL_FATAL(th_child_case(TH_END_RAW_EXIT, &info, &status), 0);
    CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CU_ASSERT_FALSE(th_port_accepts(info.port));
    /* nothing cleaned the directory: the next start (or this call) does */
    CU_ASSERT(th_exists(info.basedir));
    CU_ASSERT_EQUAL(th_clean_child_tmp(), 1);
    CU_ASSERT_FALSE(th_exists(info.basedir));
}

static void
test_child_sigkill(void)
{
    struct th_child_info info;
    int status = 0;

    CU_ASSERT_EQUAL_FATAL(th_child_case(TH_END_SIGKILL, &info, &status), 0);
    CU_ASSERT(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    CU_ASSERT_FALSE(th_port_accepts(info.port));
    CU_ASSERT(th_exists(info.basedir));
    CU_ASSERT_EQUAL(th_clean_child_tmp(), 1);
    CU_ASSERT_FALSE(th_exists(info.basedir));
}

static void
test_child_sigterm(void)
{
    struct th_child_info info;
    int status = 0;

    CU_ASSERT_EQUAL_FATAL(th_child_case(TH_END_SIGTERM, &info, &status), 0);
    CU_ASSERT(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM); /* re-raised */
    CU_ASSERT_FALSE(th_port_accepts(info.port));
    CU_ASSERT_FALSE(th_exists(info.basedir)); /* removed by the handler */
}

static void
test_child_exit(void)
{
    struct th_child_info info;
    int status = 0;

    CU_ASSERT_EQUAL_FATAL(th_child_case(TH_END_EXIT, &info, &status), 0);
    CU_ASSERT(WIFEXITED(status));
    CU_ASSERT_FALSE(th_port_accepts(info.port));
    CU_ASSERT_FALSE(th_exists(info.basedir)); /* removed by the atexit handler */
}

static void
test_child_deadline(void)
{
    struct th_child_info info;
    int status = 0;

    CU_ASSERT_EQUAL_FATAL(th_child_case(TH_END_DEADLINE, &info, &status), 0);
    CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 1);
    CU_ASSERT_FALSE(th_port_accepts(info.port));
    CU_ASSERT_FALSE(th_exists(info.basedir));
    CU_ASSERT_EQUAL(th_clean_child_tmp(), 0); /* nothing stale left by the others */
    CU_ASSERT_EQUAL(rmdir(th_child_tmp), 0);  /* empty: every case cleaned up */
    th_child_tmp[0] = '\0';
}

/* ------------------------------------------------------------------------
 * Suite "zk-local": the command, driven through pipes
 * ------------------------------------------------------------------------ */

struct th_zl {
    pid_t pid;              /* zk-local, -1 when reaped */
    int in;                 /* its stdin (write end), -1 when closed */
    int out;                /* its stdout (read end), -1 when closed */
    int err;                /* its stderr (read end), -1 when closed */
    char errtext[4096];     /* what it wrote on stderr, once it exited */
    char hosts[256];        /* from "zk-local: serving at HOSTS" */
};

static char th_zl_dir[PATH_MAX];       /* private directory of the suite */
static char th_zl_base[PATH_MAX + 8];  /* th_zl_dir/base: every run's --dir */
static char th_zl_hosts[PATH_MAX + 8]; /* th_zl_dir/hosts: a --hosts-file */

static int
zl_init(void)
{
    const char *t = getenv("TMPDIR");

    snprintf(th_zl_dir, sizeof th_zl_dir, "%s/th-zl.XXXXXX",
        t != NULL && t[0] == '/' ? t : "/tmp");
    if (mkdtemp(th_zl_dir) == NULL)
        return -1;
    snprintf(th_zl_base, sizeof th_zl_base, "%s/base", th_zl_dir);
    snprintf(th_zl_hosts, sizeof th_zl_hosts, "%s/hosts", th_zl_dir);
    return 0;
}

static int
zl_cleanup(void)
{
    unlink(th_zl_hosts);
    rmdir(th_zl_base);
    return rmdir(th_zl_dir) == 0 ? 0 : -1; /* -1: something was left behind */
}

/* tests/harness/zk-local, found from this program's path. */
static int
th_zl_path(char *out, size_t len)
{
    char self[PATH_MAX], *slash;
    ssize_t n;

    out[0] = '\0';
    n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return -1;
    self[n] = '\0';
    if ((slash = strrchr(self, '/')) == NULL)
        return -1;
    *slash = '\0'; /* .../tests/integration */
    if ((slash = strrchr(self, '/')) == NULL)
        return -1;
    *slash = '\0'; /* .../tests */
    snprintf(out, len, "%s/harness/zk-local", self);
    return access(out, X_OK);
}

/* Read one line (without its newline) within timeout_ms. -1 on EOF or timeout. */
static int
th_read_line(int fd, char *buf, size_t len, int timeout_ms)
{
    int64_t until = th_now_ms() + timeout_ms, left;
    struct pollfd pfd = { fd, POLLIN, 0 };
    size_t got = 0;
    char c;

    for (;;) {
        left = until - th_now_ms();
        if (left <= 0 || poll(&pfd, 1, (int)left) <= 0 || read(fd, &c, 1) != 1) {
            buf[got] = '\0';
            return -1;
        }
        if (c == '\n')
            break;
        if (got + 1 < len)
            buf[got++] = c;
    }
    buf[got] = '\0';
    return 0;
}

/*
 * Start "zk-local --dir th_zl_base [extra]" with stdin a pipe (or /dev/null)
 * and stdout a pipe; wait for its "serving at" line.
 */
static int
th_zl_start(struct th_zl *zl, int devnull, const char *extra1, const char *extra2)
{
    char path[PATH_MAX], line[512];
    const char *argv[8];
    int in[2], out[2], err[2], a = 0;

    memset(zl, 0, sizeof *zl);
    zl->pid = -1;
    zl->in = zl->out = zl->err = -1;
    if (th_zl_path(path, sizeof path) == -1) {
        fprintf(stderr, "th: no zk-local at '%s'\n", path);
        return -1;
    }
    argv[a++] = "zk-local";
    argv[a++] = "--dir";
    argv[a++] = th_zl_base;
    if (extra1 != NULL)
        argv[a++] = extra1;
    if (extra2 != NULL)
        argv[a++] = extra2;
    argv[a] = NULL;
    if (pipe2(in, O_CLOEXEC) == -1)
        return -1;
    if (pipe2(out, O_CLOEXEC) == -1 || pipe2(err, O_CLOEXEC) == -1) {
        close(in[0]);
        close(in[1]);
        return -1;
    }
    fflush(stdout);
    fflush(stderr);
    zl->pid = fork();
    if (zl->pid == 0) {
        if (devnull)
            in[0] = open("/dev/null", O_RDONLY);
        dup2(in[0], STDIN_FILENO);
        dup2(out[1], STDOUT_FILENO);
        dup2(err[1], STDERR_FILENO);
        execv(path, (char *const *)argv);
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    close(err[1]);
    zl->in = in[1];
    zl->out = out[0];
    zl->err = err[0];
    if (zl->pid == -1 || th_read_line(zl->out, line, sizeof line, 90000) == -1
        || strncmp(line, "zk-local: serving at ", 21) != 0) {
        fprintf(stderr, "th: zk-local did not start: '%s'\n", line);
        return -1;
    }
    snprintf(zl->hosts, sizeof zl->hosts, "%s", line + 21);
    return 0;
}

/* Send one command line and read its one answer line into buf. */
static int
th_zl_cmd(struct th_zl *zl, const char *cmd, char *buf, size_t len)
{
    char line[256];
    size_t n;

    n = (size_t)snprintf(line, sizeof line, "%s\n", cmd);
    if (write(zl->in, line, n) != (ssize_t)n)
        return -1;
    return th_read_line(zl->out, buf, len, 90000);
}

/* Collect what zk-local wrote on stderr until EOF (5 s), and show it in our log. */
static void
th_zl_drain_err(struct th_zl *zl)
{
    size_t got = strlen(zl->errtext);

    if (zl->err == -1)
        return;
    while (th_read_line(zl->err, zl->errtext + got, sizeof zl->errtext - got, 5000) == 0) {
        fprintf(stderr, "  zk-local| %s\n", zl->errtext + got);
        got += strlen(zl->errtext + got);
        if (got + 1 < sizeof zl->errtext)
            zl->errtext[got++] = '\n';
        zl->errtext[got] = '\0';
    }
    close(zl->err);
    zl->err = -1;
}

/* Wait (30 s) for zk-local to exit; its wait status, or -1. */
static int
th_zl_wait(struct th_zl *zl)
{
    int status;

    if (zl->pid <= 0 || th_wait_child(zl->pid, &status, 30000) == -1)
        return -1;
    zl->pid = -1;
    th_zl_drain_err(zl);
    return status;
}

/* Make sure it is gone (SIGKILL if needed) and close the pipes. */
static void
th_zl_end(struct th_zl *zl)
{
    if (zl->pid > 0) {
        kill(zl->pid, SIGKILL);
        waitpid(zl->pid, NULL, 0);
        zl->pid = -1;
    }
    if (zl->in != -1)
        close(zl->in);
    if (zl->out != -1)
        close(zl->out);
    zl->in = zl->out = -1;
    th_zl_drain_err(zl);
}

/* The pid of the live JVM whose command line holds dir (its zoo.cfg path), -1 if none. */
static pid_t
th_find_jvm(const char *dir)
{
    char path[64], buf[8192];
    struct dirent *de;
    pid_t found = -1;
    size_t n, i;
    FILE *f;
    DIR *d;

    if ((d = opendir("/proc")) == NULL)
        return -1;
    while (found == -1 && (de = readdir(d)) != NULL) {
        if (de->d_name[0] < '1' || de->d_name[0] > '9')
            continue;
        snprintf(path, sizeof path, "/proc/%s/cmdline", de->d_name);
        if ((f = fopen(path, "r")) == NULL)
            continue;
        n = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        for (i = 0; i < n; i++)
            if (buf[i] == '\0')
                buf[i] = ' ';
        buf[n] = '\0';
        if (strstr(buf, "QuorumPeerMain") != NULL && strstr(buf, dir) != NULL
            && th_jvm_alive((pid_t)atoi(de->d_name)))
            found = (pid_t)atoi(de->d_name);
    }
    closedir(d);
    return found;
}

static int
th_port_of_hosts(const char *hosts)
{
    const char *colon = strrchr(hosts, ':');

    return colon != NULL ? atoi(colon + 1) : -1;
}

static void
test_zl_commands(void)
{
    char buf[65536], want[300];
    struct th_zl zl;
    long jvm = -1;
    int status, port;
    FILE *f;

    CU_ASSERT_EQUAL_FATAL(th_zl_start(&zl, 0, "--hosts-file", th_zl_hosts), 0);
    port = th_port_of_hosts(zl.hosts);
    CU_ASSERT(th_exists(th_zl_base));
    CU_ASSERT(th_port_accepts(port));

    /* the hosts file holds the same connection string */
    f = fopen(th_zl_hosts, "r");
    CU_ASSERT_PTR_NOT_NULL(f);
    if (f != NULL) {
        CU_ASSERT_PTR_NOT_NULL(fgets(buf, sizeof buf, f));
        fclose(f);
        snprintf(want, sizeof want, "%s\n", zl.hosts);
        CU_ASSERT_STRING_EQUAL(buf, want);
    }

    CU_ASSERT_EQUAL(th_zl_cmd(&zl, "hosts", buf, sizeof buf), 0);
    snprintf(want, sizeof want, "ok %s", zl.hosts);
    CU_ASSERT_STRING_EQUAL(buf, want);
    CU_ASSERT_EQUAL(th_zl_cmd(&zl, "status", buf, sizeof buf), 0);
    CU_ASSERT_EQUAL(strncmp(buf, "ok 0=serving:", 13), 0);
    CU_ASSERT_EQUAL(th_zl_cmd(&zl, "mntr 0", buf, sizeof buf), 0);
    CU_ASSERT_EQUAL(strncmp(buf, "ok ", 3), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, " zk_server_state=standalone "));
    CU_ASSERT_EQUAL(th_zl_cmd(&zl, "bogus", buf, sizeof buf), 0);
    CU_ASSERT_EQUAL(strncmp(buf, "error: unknown command 'bogus'", 30), 0);
    CU_ASSERT_EQUAL(th_zl_cmd(&zl, "kill 1", buf, sizeof buf), 0);
    CU_ASSERT_STRING_EQUAL(buf, "error: bad server index '1' (0..0)");
    CU_ASSERT_EQUAL(th_zl_cmd(&zl, "pause", buf, sizeof buf), 0);
    CU_ASSERT_EQUAL(strncmp(buf, "error: ", 7), 0);
    /* blank and comment lines get no answer: the next answer is for "hosts" */
    CU_ASSERT_EQUAL(th_zl_cmd(&zl, "\n# a comment\nhosts", buf, sizeof buf), 0);
    CU_ASSERT_STRING_EQUAL(buf, want);

    CU_ASSERT_EQUAL(th_zl_cmd(&zl, "kill 0", buf, sizeof buf), 0);
    CU_ASSERT_STRING_EQUAL(buf, "ok killed 0");
    CU_ASSERT_FALSE(th_port_accepts(port));
    CU_ASSERT_EQUAL(th_zl_cmd(&zl, "status", buf, sizeof buf), 0);
    CU_ASSERT_STRING_EQUAL(buf, "ok 0=down");
    CU_ASSERT_EQUAL(th_zl_cmd(&zl, "kill 0", buf, sizeof buf), 0);
    CU_ASSERT_STRING_EQUAL(buf, "error: kill 0: not running");
    CU_ASSERT_EQUAL(th_zl_cmd(&zl, "restart 0", buf, sizeof buf), 0);
    CU_ASSERT_EQUAL(sscanf(buf, "ok restarted 0 pid %ld serving", &jvm), 1);
    CU_ASSERT(th_jvm_alive((pid_t)jvm));
    CU_ASSERT(th_port_accepts(port));
    CU_ASSERT_EQUAL(th_zl_cmd(&zl, "pause 0", buf, sizeof buf), 0);
    CU_ASSERT_STRING_EQUAL(buf, "ok paused 0");
    CU_ASSERT_EQUAL(th_zl_cmd(&zl, "status", buf, sizeof buf), 0);
    CU_ASSERT_EQUAL(strncmp(buf, "ok 0=no-answer:", 15), 0);
    CU_ASSERT_EQUAL(th_zl_cmd(&zl, "resume 0", buf, sizeof buf), 0);
    CU_ASSERT_STRING_EQUAL(buf, "ok resumed 0");
    CU_ASSERT_EQUAL(th_zl_cmd(&zl, "wait 0", buf, sizeof buf), 0);
    CU_ASSERT_STRING_EQUAL(buf, "ok serving 0");

    /* EOF on stdin: stop everything, exit 0, remove the hosts file and base */
    close(zl.in);
    zl.in = -1;
    status = th_zl_wait(&zl);
    CU_ASSERT(status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CU_ASSERT(th_wait_jvm_gone((pid_t)jvm, 5000));
    CU_ASSERT_FALSE(th_port_accepts(port));
    CU_ASSERT_FALSE(th_exists(th_zl_hosts));
    CU_ASSERT_FALSE(th_exists(th_zl_base)); /* zk-local made it, so it goes */
    th_zl_end(&zl);
}

/* --no-stdin: EOF is no reason to stop; SIGTERM is, with exit status 0. */
static void
test_zl_no_stdin_sigterm(void)
{
    struct th_zl zl;
    pid_t jvm;
    int status;

    CU_ASSERT_EQUAL_FATAL(th_zl_start(&zl, 0, "--no-stdin", NULL), 0);
    close(zl.in); /* would stop it if it read stdin */
    zl.in = -1;
    jvm = th_find_jvm(th_zl_base);
    CU_ASSERT(th_jvm_alive(jvm));
    CU_ASSERT_EQUAL(kill(zl.pid, SIGTERM), 0);
    status = th_zl_wait(&zl);
    CU_ASSERT(status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0);
    /* stopped by the signal, not by the EOF long before it */
    CU_ASSERT_PTR_NOT_NULL(strstr(zl.errtext, "zk-local: Terminated: stopping\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(zl.errtext, "not reading commands"));
    CU_ASSERT(th_wait_jvm_gone(jvm, 5000));
    CU_ASSERT_FALSE(th_port_accepts(th_port_of_hosts(zl.hosts)));
    CU_ASSERT_FALSE(th_exists(th_zl_base));
    th_zl_end(&zl);
}

/*
 * SIGKILL of zk-local (stdin /dev/null): its server dies too. A new run on
 * the same --dir replaces the dead run's files and, not having made the
 * directory, leaves it empty at the end.
 */
static void
test_zl_sigkill(void)
{
    char s0[PATH_MAX + 16], buf[64];
    struct th_zl zl;
    pid_t jvm;
    int status;

    CU_ASSERT_EQUAL_FATAL(th_zl_start(&zl, 1, NULL, NULL), 0);
    snprintf(s0, sizeof s0, "%s/s0", th_zl_base);
    jvm = th_find_jvm(th_zl_base);
    CU_ASSERT(th_jvm_alive(jvm));
    CU_ASSERT_EQUAL(kill(zl.pid, SIGKILL), 0);
    status = th_zl_wait(&zl);
    CU_ASSERT(status != -1 && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    CU_ASSERT_PTR_NOT_NULL(strstr(zl.errtext, "not reading commands"));
    CU_ASSERT_PTR_NULL(strstr(zl.errtext, "zk-local: stopped")); /* /dev/null EOF ignored */
    CU_ASSERT(th_wait_jvm_gone(jvm, 10000));
    CU_ASSERT(th_exists(s0)); /* nobody cleaned up */
    th_zl_end(&zl);

    CU_ASSERT_EQUAL_FATAL(th_zl_start(&zl, 0, NULL, NULL), 0);
    CU_ASSERT(th_find_jvm(th_zl_base) != jvm);
    CU_ASSERT_EQUAL(th_zl_cmd(&zl, "stop", buf, sizeof buf), 0);
    CU_ASSERT_STRING_EQUAL(buf, "ok stopping");
    status = th_zl_wait(&zl);
    CU_ASSERT(status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CU_ASSERT_FALSE(th_exists(s0));
    CU_ASSERT(th_exists(th_zl_base));
    CU_ASSERT_EQUAL(rmdir(th_zl_base), 0); /* empty */
    th_zl_end(&zl);
}

/* ------------------------------------------------------------------------ */

static CU_TestInfo options_tests[] = {
    { "defaults", test_opts_defaults },
    { "bad options are refused", test_opts_rejected },
    { "a server that exits fails the start at once", test_start_fails_fast },
    CU_TEST_INFO_NULL
};

static CU_TestInfo standalone_tests[] = {
    { "serving, config, 4lw", test_sa_serving },
    { "ephemeral create and read", test_sa_ephemeral },
    { "super digest", test_sa_super_digest },
    { "kill and restart keep port and data", test_sa_kill_restart },
    { "terminate and restart", test_sa_terminate_restart },
    { "stop leaves nothing", test_sa_stop },
    CU_TEST_INFO_NULL
};

static CU_TestInfo ensemble_tests[] = {
    { "three members, one leader", test_ens_serving },
    { "kill the connected member", test_ens_kill_connected },
    { "pause and resume a member", test_ens_pause_resume },
    { "2 of 3 killed: no quorum, then back", test_ens_quorum_loss },
    { "stop leaves nothing", test_ens_stop },
    CU_TEST_INFO_NULL
};

static CU_TestInfo cleanup_tests[] = {
    { "child _exit: PDEATHSIG, stale dir cleaned", test_child_raw_exit },
    { "child SIGKILL: PDEATHSIG, stale dir cleaned", test_child_sigkill },
    { "child SIGTERM: handler cleans, re-raises", test_child_sigterm },
    { "child exit(): atexit cleans", test_child_exit },
    { "child deadline passes", test_child_deadline },
    CU_TEST_INFO_NULL
};

static CU_TestInfo zklocal_tests[] = {
    { "commands on stdin, EOF stops", test_zl_commands },
    { "--no-stdin, SIGTERM stops", test_zl_no_stdin_sigterm },
    { "SIGKILL takes the server along", test_zl_sigkill },
    CU_TEST_INFO_NULL
};

static CU_SuiteInfo suites[] = {
    { "options", NULL, NULL, NULL, NULL, options_tests },
    { "standalone", sa_init, sa_cleanup, NULL, NULL, standalone_tests },
    { "ensemble", ens_init, ens_cleanup, NULL, NULL, ensemble_tests },
    { "cleanup", NULL, NULL, NULL, NULL, cleanup_tests },
    { "zk-local", zl_init, zl_cleanup, NULL, NULL, zklocal_tests },
    CU_SUITE_INFO_NULL
};

int
main(int argc, char **argv)
{
    const char *child = getenv("TH_CHILD");
    int how, fd;

    if (child != NULL && sscanf(child, "%d:%d", &how, &fd) == 2) {
        unsetenv("TH_CHILD");
        zkh_deadline(60);
        th_child(how, fd); /* a child case of the suite "cleanup" */
    }
    zkh_deadline(240);
    zoo_set_debug_level(ZOO_LOG_LEVEL_ERROR);
    return cutest_main(argc, argv, suites);
}
