/*
 * zkharness.c - real ZooKeeper servers for tests (see zkharness.h).
 *
 * Sections, in order: types and state; async-signal-safe cleanup (registry,
 * rmtree, emergency stop, signal and atexit handlers, deadline thread);
 * small helpers; java and the AppCDS archive; base directory and stale
 * cleanup; ports, config and spawn; four-letter words; waiting for servers;
 * the public API.
 */
#include "config.h"

#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <stdarg.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "zkharness.h"

#define ZKH_MAX_HARNESS 16   /* live harnesses per process */
#define ZKH_POLL_MS     50   /* readiness poll interval */
#define ZKH_PROBE_MS    1000 /* one "srvr" probe: connect plus answer */
#define ZKH_4LW_MS      2000 /* default zkh_4lw() timeout */
#define ZKH_STOP_MS     5000 /* zkh_stop(): SIGTERM grace before SIGKILL */
#define ZKH_TERM_MS     10000 /* zkh_terminate(): SIGTERM grace before SIGKILL */
#define ZKH_KILL_MS     10000 /* wait for a SIGKILLed JVM to be reaped */
#define ZKH_START_TRIES 3    /* start attempts with fresh ports */
#define ZKH_HOST_LEN    64   /* "addr:port" */
#define ZKH_TAIL_LINES  30   /* log lines shown when a start fails */

#define ZKH_ZK_JAR     "/usr/share/java/zookeeper.jar"
#define ZKH_SLF4J_JAR  "/usr/share/java/slf4j-simple.jar"
#define ZKH_MAIN_CLASS "org.apache.zookeeper.server.quorum.QuorumPeerMain"

/* ------------------------------------------------------------------------
 * Types and state
 * ------------------------------------------------------------------------ */

struct zkh_srv {
    pid_t pid;               /* JVM pid, -1 when not running */
    int paused;              /* stopped by zkh_pause() */
    int client_port;         /* clientPort */
    int quorum_port;         /* first port of the server.N line (ensembles) */
    int election_port;       /* second port of the server.N line (ensembles) */
    int cds_dump;            /* this run writes the AppCDS archive when it exits */
    off_t log_seen;          /* bytes of server.log already searched for BindException */
    char host[ZKH_HOST_LEN]; /* "addr:port" */
    char addr[INET_ADDRSTRLEN]; /* its listen address (the harness's unless set) */
    char netns[PATH_MAX];    /* network namespace file its JVM runs in, "" for ours */
    char dir[PATH_MAX];      /* basedir/sI */
};

struct zkh {
    int n;                        /* number of servers */
    int tick_ms;                  /* tickTime */
    int max_session_ms;           /* maxSessionTimeout */
    int start_timeout_ms;         /* per start and restart */
    int verbose;                  /* server log level INFO instead of WARN */
    int force_sync;               /* forceSync=yes */
    int heap_mb;                  /* -Xmx */
    int sync_limit;               /* syncLimit */
    char xmx[32];                 /* "-Xmx<heap_mb>m" */
    int keep;                     /* ZKH_KEEP=1: leave basedir at stop */
    int made_basedir;             /* zkh_start() created basedir */
    int owns_basedir;             /* our owner file is in it: zkh_stop() cleans it */
    int slot;                     /* index in zkh_reg, -1 before registration */
    char addr[INET_ADDRSTRLEN];   /* listen address */
    char *super_digest;           /* owned, NULL when not set */
    char *hosts;                  /* owned: "addr:p1,addr:p2,..." */
    char java[PATH_MAX];          /* java binary, absolute */
    char cds_use[PATH_MAX];       /* AppCDS archive to load, "" for none */
    char cds_final[PATH_MAX];     /* archive to create when cds_tmp is complete */
    char cds_tmp[PATH_MAX];       /* where the dumping JVM writes, "" for none */
    char basedir[PATH_MAX];       /* absolute */
    struct zkh_srv srv[ZKH_MAX_SERVERS]; /* n used */
};

/*
 * What the async-signal-safe paths (signal handlers, the deadline thread)
 * need, in static storage that is never freed. A slot is in use while z is
 * not NULL; z is published last and cleared first.
 */
struct zkh_slot {
    struct zkh *z;                        /* live harness, NULL when free */
    pid_t owner;                          /* process that started it */
    int keep;                             /* ZKH_KEEP=1 */
    int made_basedir;                     /* remove basedir itself too */
    int n;                                /* servers */
    char basedir[PATH_MAX];               /* copy of z->basedir */
    volatile pid_t pids[ZKH_MAX_SERVERS]; /* running JVMs, 0 = none */
};

static struct zkh_slot zkh_reg[ZKH_MAX_HARNESS];
static int zkh_cds_broken; /* a start with the archive failed: no CDS in this process */

/* ------------------------------------------------------------------------
 * Async-signal-safe cleanup
 * ------------------------------------------------------------------------ */

static int64_t
zkh_now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Wait ms milliseconds: the pause between two polls of a condition. */
static void
zkh_nap(int ms)
{
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

    while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
        ;
}

/* Remove name (a file, or a directory tree) under dirfd; never follows symlinks. */
static void
zkh_rmtree_at(int dirfd, const char *name, int depth)
{
    char buf[2048] __attribute__((aligned(8)));
    struct dirent64 *d;
    ssize_t n, off;
    int fd, pass;

    if (unlinkat(dirfd, name, 0) == 0 || errno == ENOENT)
        return;
    if ((errno != EISDIR && errno != EPERM) || depth > 16)
        return;
    fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd == -1)
        return;
    for (pass = 0; pass < 3; pass++) {
        lseek(fd, 0, SEEK_SET);
        while ((n = getdents64(fd, buf, sizeof buf)) > 0) {
            for (off = 0; off < n; off += d->d_reclen) {
                d = (struct dirent64 *)(void *)(buf + off);
                if (strcmp(d->d_name, ".") == 0 || strcmp(d->d_name, "..") == 0)
                    continue;
                zkh_rmtree_at(fd, d->d_name, depth + 1);
            }
        }
        if (unlinkat(dirfd, name, AT_REMOVEDIR) == 0 || errno != ENOTEMPTY)
            break;
    }
    close(fd);
}

enum {
    ZKH_RM_SERVERS, /* sI/ for I < n */
    ZKH_RM_ALL,     /* sI/, the owner file, and basedir itself if made */
    ZKH_RM_OWNER    /* only the owner file: kept files are never stale */
};

/* Remove what a harness made in basedir (what: ZKH_RM_*). */
static void
zkh_base_remove(const char *basedir, int n, int what, int made)
{
    char name[8];
    int fd, i;

    fd = open(basedir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd == -1)
        return;
    for (i = 0; i < n && what != ZKH_RM_OWNER; i++) {
        /* "s" + decimal i, without snprintf (not async-signal-safe) */
        name[0] = 's';
        if (i < 10) {
            name[1] = (char)('0' + i);
            name[2] = '\0';
        } else {
            name[1] = (char)('0' + i / 10);
            name[2] = (char)('0' + i % 10);
            name[3] = '\0';
        }
        zkh_rmtree_at(fd, name, 0);
    }
    if (what != ZKH_RM_SERVERS)
        unlinkat(fd, "owner", 0);
    close(fd);
    if (what == ZKH_RM_ALL && made)
        rmdir(basedir);
}

/*
 * Kill every server this process started, reap them, remove the base
 * directories. Async-signal-safe: runs in signal handlers and the deadline
 * thread.
 */
static void
zkh_emergency(void)
{
    struct zkh_slot *s;
    pid_t self = getpid(), p;
    int64_t until;
    int k, i;

    for (k = 0; k < ZKH_MAX_HARNESS; k++) {
        s = &zkh_reg[k];
        if (__atomic_load_n(&s->z, __ATOMIC_ACQUIRE) == NULL || s->owner != self)
            continue;
        for (i = 0; i < s->n; i++)
            if ((p = s->pids[i]) > 0)
                kill(p, SIGKILL);
    }
    until = zkh_now_ms() + 3000;
    for (k = 0; k < ZKH_MAX_HARNESS; k++) {
        s = &zkh_reg[k];
        if (__atomic_load_n(&s->z, __ATOMIC_ACQUIRE) == NULL || s->owner != self)
            continue;
        for (i = 0; i < s->n; i++) {
            if ((p = s->pids[i]) <= 0)
                continue;
            while (waitpid(p, NULL, WNOHANG) == 0 && zkh_now_ms() < until)
                zkh_nap(5);
            s->pids[i] = 0;
        }
        zkh_base_remove(s->basedir, s->n, s->keep ? ZKH_RM_OWNER : ZKH_RM_ALL,
            s->made_basedir);
    }
}

static void
zkh_on_signal(int sig)
{
    int saved = errno;

    zkh_emergency();
    signal(sig, SIG_DFL);
    raise(sig); /* blocked until the handler returns, then fatal */
    errno = saved;
}

static void
zkh_atexit(void)
{
    struct zkh *z;
    int k;

    for (k = 0; k < ZKH_MAX_HARNESS; k++) {
        z = __atomic_load_n(&zkh_reg[k].z, __ATOMIC_ACQUIRE);
        if (z != NULL && zkh_reg[k].owner == getpid())
            zkh_stop(z);
    }
}

/* Once per process (and inherited by forked children): atexit and signal handlers. */
static void
zkh_install_handlers(void)
{
    static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
    static int done;
    struct sigaction sa, old;
    size_t k;

    if (done)
        return;
    done = 1;
    atexit(zkh_atexit);
    for (k = 0; k < sizeof sigs / sizeof sigs[0]; k++) {
        if (sigaction(sigs[k], NULL, &old) == -1)
            continue;
        if ((old.sa_flags & SA_SIGINFO) || old.sa_handler != SIG_DFL)
            continue; /* the program handles or ignores it: leave it alone */
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = zkh_on_signal;
        sigfillset(&sa.sa_mask);
        sigaction(sigs[k], &sa, NULL);
    }
}

static int
zkh_reg_add(struct zkh *z)
{
    struct zkh_slot *s;
    int k, i;

    for (k = 0; k < ZKH_MAX_HARNESS; k++) {
        s = &zkh_reg[k];
        if (__atomic_load_n(&s->z, __ATOMIC_ACQUIRE) != NULL) {
            if (s->owner == getpid())
                continue;
            /* a slot inherited from the parent across fork(): not ours */
            __atomic_store_n(&s->z, NULL, __ATOMIC_RELEASE);
        }
        s->owner = getpid();
        s->keep = z->keep;
        s->made_basedir = z->made_basedir;
        s->n = z->n;
        memcpy(s->basedir, z->basedir, sizeof s->basedir);
        for (i = 0; i < ZKH_MAX_SERVERS; i++)
            s->pids[i] = 0;
        z->slot = k;
        __atomic_store_n(&s->z, z, __ATOMIC_RELEASE);
        return 0;
    }
    errno = ENOSPC;
    return -1;
}

static void
zkh_reg_set_pid(struct zkh *z, int i, pid_t pid)
{
    if (z->slot >= 0)
        zkh_reg[z->slot].pids[i] = pid > 0 ? pid : 0;
}

static void
zkh_reg_del(struct zkh *z)
{
    if (z->slot >= 0)
        __atomic_store_n(&zkh_reg[z->slot].z, NULL, __ATOMIC_RELEASE);
    z->slot = -1;
}

/* ------------------------------------------------------------------------
 * Deadline thread
 * ------------------------------------------------------------------------ */

static pthread_mutex_t zkh_dl_mu;  /* protects the zkh_dl_* below */
static pthread_cond_t zkh_dl_cv;   /* CLOCK_MONOTONIC; signalled on change */
static pthread_t zkh_dl_tid;       /* the timer thread (joinable) */
static pid_t zkh_dl_pid;           /* process whose timer thread runs, 0 = none */
static int zkh_dl_quit;            /* the process exits: the thread returns */
static int zkh_dl_armed;           /* a deadline is set */
static int zkh_dl_seconds;         /* as given, for the message */
static struct timespec zkh_dl_at;  /* CLOCK_MONOTONIC */

static void *
zkh_dl_main(void *arg)
{
    struct timespec now;
    char msg[200];
    int len, secs;

    (void)arg;
    pthread_mutex_lock(&zkh_dl_mu);
    for (;;) {
        if (zkh_dl_quit) {
            pthread_mutex_unlock(&zkh_dl_mu);
            return NULL;
        }
        if (!zkh_dl_armed) {
            pthread_cond_wait(&zkh_dl_cv, &zkh_dl_mu);
            continue;
        }
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (now.tv_sec > zkh_dl_at.tv_sec
            || (now.tv_sec == zkh_dl_at.tv_sec && now.tv_nsec >= zkh_dl_at.tv_nsec))
            break;
        pthread_cond_timedwait(&zkh_dl_cv, &zkh_dl_mu, &zkh_dl_at);
    }
    secs = zkh_dl_seconds;
    pthread_mutex_unlock(&zkh_dl_mu);
    len = snprintf(msg, sizeof msg,
        "\nzkh: deadline of %d s passed: killing every ZooKeeper server of "
        "process %ld and exiting with status 1\n", secs, (long)getpid());
    if (len > 0)
        (void)!write(STDERR_FILENO, msg, (size_t)len < sizeof msg ? (size_t)len : sizeof msg - 1);
    zkh_emergency();
    _exit(1);
    return NULL;
}

/* At exit: stop this process's timer thread (so nothing is left running). */
static void
zkh_dl_atexit(void)
{
    if (zkh_dl_pid != getpid())
        return; /* the thread belongs to the parent we were forked from */
    pthread_mutex_lock(&zkh_dl_mu);
    zkh_dl_quit = 1;
    pthread_cond_signal(&zkh_dl_cv);
    pthread_mutex_unlock(&zkh_dl_mu);
    pthread_join(zkh_dl_tid, NULL);
    zkh_dl_pid = 0;
}

void
zkh_deadline(int seconds)
{
    static int registered; /* zkh_dl_atexit, inherited across fork() */
    pthread_condattr_t ca;
    sigset_t all, old;
    int rc;

    if (zkh_dl_pid != getpid()) {
        /* first call, or a forked child: the parent's thread is not here */
        pthread_mutex_init(&zkh_dl_mu, NULL);
        pthread_condattr_init(&ca);
        pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
        pthread_cond_init(&zkh_dl_cv, &ca);
        pthread_condattr_destroy(&ca);
        zkh_dl_armed = 0;
        zkh_dl_quit = 0;
        sigfillset(&all);
        pthread_sigmask(SIG_SETMASK, &all, &old); /* signals go to other threads */
        rc = pthread_create(&zkh_dl_tid, NULL, zkh_dl_main, NULL);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        if (rc != 0) {
            fprintf(stderr, "zkh: cannot start the deadline thread: %s\n", strerror(rc));
            return;
        }
        zkh_dl_pid = getpid();
        if (!registered) {
            registered = 1;
            atexit(zkh_dl_atexit);
        }
    }
    pthread_mutex_lock(&zkh_dl_mu);
    if (seconds <= 0) {
        zkh_dl_armed = 0;
    } else {
        clock_gettime(CLOCK_MONOTONIC, &zkh_dl_at);
        zkh_dl_at.tv_sec += seconds;
        zkh_dl_seconds = seconds;
        zkh_dl_armed = 1;
    }
    pthread_cond_signal(&zkh_dl_cv);
    pthread_mutex_unlock(&zkh_dl_mu);
}

/* ------------------------------------------------------------------------
 * Small helpers
 * ------------------------------------------------------------------------ */

/* snprintf that fails with ENAMETOOLONG instead of truncating. */
static int __attribute__((format(printf, 3, 4)))
zkh_fmt(char *buf, size_t len, const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(buf, len, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= len) {
        errno = ENAMETOOLONG;
        return -1;
    }
    return 0;
}

/* Write a whole file (created or truncated). */
static int
zkh_write_file(const char *path, const char *data)
{
    size_t len = strlen(data), off = 0;
    ssize_t w;
    int fd, saved;

    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd == -1)
        return -1;
    while (off < len) {
        w = write(fd, data + off, len - off);
        if (w == -1) {
            if (errno == EINTR)
                continue;
            saved = errno;
            close(fd);
            errno = saved;
            return -1;
        }
        off += (size_t)w;
    }
    return close(fd);
}

/* Read up to len - 1 bytes of a small file, NUL-terminated. -1 on error. */
static ssize_t
zkh_read_file_at(int dirfd, const char *path, char *buf, size_t len)
{
    ssize_t n, total = 0;
    int fd;

    fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC);
    if (fd == -1)
        return -1;
    while ((size_t)total < len - 1) {
        n = read(fd, buf + total, len - 1 - (size_t)total);
        if (n == -1 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        total += n;
    }
    close(fd);
    buf[total] = '\0';
    return total;
}

/*
 * Start time of a process (field 22 of /proc/PID/stat, clock ticks since
 * boot): with the pid it names a process across pid reuse. 0 when the
 * process does not exist or is a zombie.
 */
static unsigned long long
zkh_proc_start(pid_t pid)
{
    char path[64], buf[1024], *p;
    unsigned long long start = 0;
    int field;

    snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
    if (zkh_read_file_at(AT_FDCWD, path, buf, sizeof buf) <= 0)
        return 0;
    p = strrchr(buf, ')'); /* the command name may hold spaces and parentheses */
    if (p == NULL || p[1] != ' ' || p[2] == 'Z' || p[2] == 'X')
        return 0;
    p += 2; /* at field 3, the state */
    for (field = 3; field < 22 && p != NULL; field++) {
        p = strchr(p, ' ');
        if (p != NULL)
            p++;
    }
    if (p != NULL)
        start = strtoull(p, NULL, 10);
    return start;
}

static const char *
zkh_tmpdir(void)
{
    const char *t = getenv("TMPDIR");

    return t != NULL && t[0] == '/' ? t : "/tmp";
}

/* mkdir -p for the few levels of a cache directory. */
static int
zkh_mkdirs(const char *path)
{
    char buf[PATH_MAX], *p;

    if (zkh_fmt(buf, sizeof buf, "%s", path) == -1)
        return -1;
    for (p = buf + 1; *p != '\0'; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(buf, 0700) == -1 && errno != EEXIST)
            return -1;
        *p = '/';
    }
    if (mkdir(buf, 0700) == -1 && errno != EEXIST)
        return -1;
    return 0;
}

/* ------------------------------------------------------------------------
 * Java and the AppCDS archive
 * ------------------------------------------------------------------------ */

/* $JAVA (a path, or a name looked up in PATH), else java from PATH. */
static int
zkh_find_java(struct zkh *z)
{
    const char *name = getenv("JAVA"), *path, *p, *end;
    char cand[PATH_MAX];
    size_t dlen;

    if (name == NULL || name[0] == '\0')
        name = "java";
    if (strchr(name, '/') != NULL) {
        if (access(name, X_OK) == 0 && realpath(name, z->java) != NULL)
            return 0;
        fprintf(stderr, "zkh: JAVA=%s is not an executable file\n", name);
        errno = ENOENT;
        return -1;
    }
    path = getenv("PATH");
    if (path == NULL || path[0] == '\0')
        path = "/usr/local/bin:/usr/bin:/bin";
    for (p = path; ; p = end + 1) {
        end = strchr(p, ':');
        dlen = end != NULL ? (size_t)(end - p) : strlen(p);
        if (dlen > 0 && zkh_fmt(cand, sizeof cand, "%.*s/%s", (int)dlen, p, name) == 0
            && access(cand, X_OK) == 0 && realpath(cand, z->java) != NULL)
            return 0;
        if (end == NULL)
            break;
    }
    fprintf(stderr, "zkh: %s not found in PATH: install a JRE (default-jre-headless) "
        "or set JAVA\n", name);
    errno = ENOENT;
    return -1;
}

/* JAVA_RUNTIME_VERSION (else JAVA_VERSION) from JAVA_HOME/release, filename-safe. */
static int
zkh_java_version(const char *java, char *out, size_t len)
{
    static const char *const keys[] = { "JAVA_RUNTIME_VERSION=\"", "JAVA_VERSION=\"" };
    char home[PATH_MAX], rel[PATH_MAX], buf[4096], *p, *slash;
    size_t k, o;

    if (zkh_fmt(home, sizeof home, "%s", java) == -1)
        return -1;
    for (k = 0; k < 2; k++) { /* JAVA_HOME/bin/java -> JAVA_HOME */
        slash = strrchr(home, '/');
        if (slash == NULL || slash == home)
            return -1;
        *slash = '\0';
    }
    if (zkh_fmt(rel, sizeof rel, "%s/release", home) == -1
        || zkh_read_file_at(AT_FDCWD, rel, buf, sizeof buf) <= 0)
        return -1;
    for (k = 0; k < 2; k++) {
        p = strstr(buf, keys[k]);
        if (p == NULL || (p != buf && p[-1] != '\n'))
            continue;
        p += strlen(keys[k]);
        for (o = 0; *p != '"' && *p != '\0' && *p != '\n' && o + 1 < len; p++)
            out[o++] = (char)(strchr("+-._", *p) != NULL
                || (*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'z')
                || (*p >= 'A' && *p <= 'Z') ? *p : '_');
        out[o] = '\0';
        return o > 0 ? 0 : -1;
    }
    return -1;
}

/* 1 if path starts like a dynamic CDS archive (magic 0xf00baba8, host order). */
static int
zkh_cds_valid(const char *path)
{
    uint32_t magic = 0;
    int fd;
    ssize_t n;

    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd == -1)
        return 0;
    n = read(fd, &magic, sizeof magic);
    close(fd);
    return n == (ssize_t)sizeof magic && magic == 0xf00baba8U;
}

/* Remove archive temp files (NAME.tmp.PID) of processes that are gone. */
static void
zkh_cds_clean(const char *dir)
{
    struct dirent *de;
    const char *t;
    DIR *d;
    long pid;

    d = opendir(dir);
    if (d == NULL)
        return;
    while ((de = readdir(d)) != NULL) {
        if (strncmp(de->d_name, "zk-", 3) != 0 || (t = strstr(de->d_name, ".jsa.tmp.")) == NULL)
            continue;
        pid = strtol(t + 9, NULL, 10);
        if (pid > 0 && zkh_proc_start((pid_t)pid) == 0)
            unlinkat(dirfd(d), de->d_name, 0);
    }
    closedir(d);
}

/*
 * Decide how this harness uses the AppCDS archive: load it when it exists,
 * else let server 0 write it at exit (to a temp name, renamed once the JVM
 * exited). The name holds the Java runtime version and the ZooKeeper jar's
 * mtime and size, which the JVM checks; anything odd means no archive.
 */
static void
zkh_cds_prepare(struct zkh *z)
{
    char ver[128], dir[PATH_MAX], jar[PATH_MAX];
    const char *env, *cache;
    struct stat st;
    static unsigned serial;

    z->cds_use[0] = z->cds_final[0] = z->cds_tmp[0] = '\0';
    env = getenv("ZKH_NO_CDS");
    if (zkh_cds_broken || (env != NULL && env[0] != '\0' && strcmp(env, "0") != 0))
        return;
    if (zkh_java_version(z->java, ver, sizeof ver) == -1
        || realpath(ZKH_ZK_JAR, jar) == NULL || stat(jar, &st) == -1)
        return;
    cache = getenv("XDG_CACHE_HOME");
    if (cache != NULL && cache[0] == '/') {
        if (zkh_fmt(dir, sizeof dir, "%s/zkelect", cache) == -1)
            return;
    } else {
        cache = getenv("HOME");
        if (cache == NULL || cache[0] != '/'
            || zkh_fmt(dir, sizeof dir, "%s/.cache/zkelect", cache) == -1)
            return;
    }
    if (zkh_mkdirs(dir) == -1 || access(dir, W_OK) == -1)
        return;
    if (zkh_fmt(z->cds_final, sizeof z->cds_final, "%s/zk-%s-%" PRIx64 "-%" PRIx64 ".jsa",
            dir, ver, (uint64_t)st.st_mtime, (uint64_t)st.st_size) == -1) {
        z->cds_final[0] = '\0';
        return;
    }
    if (stat(z->cds_final, &st) == 0) {
        if (S_ISREG(st.st_mode) && zkh_cds_valid(z->cds_final)) {
            memcpy(z->cds_use, z->cds_final, sizeof z->cds_use);
            z->cds_final[0] = '\0';
            return;
        }
        unlink(z->cds_final); /* not an archive: make it again */
    }
    zkh_cds_clean(dir);
    if (zkh_fmt(z->cds_tmp, sizeof z->cds_tmp, "%s.tmp.%ld.%u", z->cds_final,
            (long)getpid(), serial++) == -1)
        z->cds_tmp[0] = z->cds_final[0] = '\0';
}

/* After the dumping JVM exited: keep its archive if it wrote one, atomically. */
static void
zkh_cds_finish(struct zkh *z, struct zkh_srv *s, int status)
{
    struct stat st;

    if (!s->cds_dump)
        return;
    s->cds_dump = 0;
    if (WIFEXITED(status) && stat(z->cds_tmp, &st) == 0 && S_ISREG(st.st_mode)
        && zkh_cds_valid(z->cds_tmp))
        rename(z->cds_tmp, z->cds_final);
    else
        unlink(z->cds_tmp);
}

/* ------------------------------------------------------------------------
 * Base directory and stale cleanup
 * ------------------------------------------------------------------------ */

/* 1 if the "pid start" text names a live process. */
static int
zkh_owner_alive(const char *text)
{
    unsigned long long start = 0, now;
    long pid;
    char *end;

    pid = strtol(text, &end, 10);
    if (pid <= 0 || end == text)
        return 0;
    if (*end == ' ')
        start = strtoull(end + 1, NULL, 10);
    now = zkh_proc_start((pid_t)pid);
    return now != 0 && (start == 0 || start == now);
}

int
zkh_clean_stale(void)
{
    const char *tmp = zkh_tmpdir();
    char owner[128];
    struct dirent *de;
    struct stat st;
    int fd, count = 0;
    DIR *d;

    d = opendir(tmp);
    if (d == NULL)
        return 0;
    while ((de = readdir(d)) != NULL) {
        if (strncmp(de->d_name, "zkh.", 4) != 0 || strlen(de->d_name) != 10)
            continue;
        fd = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd == -1)
            continue;
        if (fstat(fd, &st) == -1 || st.st_uid != getuid()
            || zkh_read_file_at(fd, "owner", owner, sizeof owner) <= 0
            || zkh_owner_alive(owner)) {
            close(fd); /* not ours, being created (no owner yet), or live */
            continue;
        }
        close(fd);
        zkh_rmtree_at(dirfd(d), de->d_name, 0);
        if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) == -1)
            count++;
    }
    closedir(d);
    return count;
}

/* Make (or adopt) the base directory and write its owner file. */
static int
zkh_base_make(struct zkh *z, const char *want)
{
    char path[PATH_MAX], text[128];
    int i;

    if (want != NULL) {
        if (mkdir(want, 0700) == 0)
            z->made_basedir = 1;
        else if (errno != EEXIST) {
            fprintf(stderr, "zkh: mkdir %s: %s\n", want, strerror(errno));
            return -1;
        }
        if (realpath(want, z->basedir) == NULL) {
            fprintf(stderr, "zkh: %s: %s\n", want, strerror(errno));
            return -1;
        }
        if (zkh_fmt(path, sizeof path, "%s/owner", z->basedir) == -1)
            return -1;
        if (zkh_read_file_at(AT_FDCWD, path, text, sizeof text) > 0) {
            if (zkh_owner_alive(text)) {
                fprintf(stderr, "zkh: %s is in use by process %ld\n", z->basedir,
                    strtol(text, NULL, 10));
                errno = EBUSY;
                return -1;
            }
            zkh_base_remove(z->basedir, ZKH_MAX_SERVERS, ZKH_RM_ALL, 0); /* a dead run's leftovers */
        }
    } else {
        if (zkh_fmt(z->basedir, sizeof z->basedir, "%s/zkh.XXXXXX", zkh_tmpdir()) == -1
            || mkdtemp(z->basedir) == NULL) {
            fprintf(stderr, "zkh: cannot make a directory in %s: %s\n", zkh_tmpdir(),
                strerror(errno));
            return -1;
        }
        z->made_basedir = 1;
    }
    snprintf(text, sizeof text, "%ld %llu\n", (long)getpid(), zkh_proc_start(getpid()));
    if (zkh_fmt(path, sizeof path, "%s/owner", z->basedir) == -1
        || zkh_write_file(path, text) == -1) {
        fprintf(stderr, "zkh: cannot write %s/owner: %s\n", z->basedir, strerror(errno));
        if (z->made_basedir)
            rmdir(z->basedir);
        return -1;
    }
    z->owns_basedir = 1;
    for (i = 0; i < z->n; i++)
        if (zkh_fmt(z->srv[i].dir, sizeof z->srv[i].dir, "%s/s%d", z->basedir, i) == -1) {
            fprintf(stderr, "zkh: base directory path too long: %s\n", z->basedir);
            return -1;
        }
    return 0;
}

/* ------------------------------------------------------------------------
 * Ports, config and spawn
 * ------------------------------------------------------------------------ */

/* count distinct free ports on addr: bind port 0 each, read it, close them all. */
static int
zkh_pick_ports(const char *addr, int *ports, int count)
{
    struct sockaddr_in sin;
    socklen_t slen;
    int fds[3 * ZKH_MAX_SERVERS], i, rc = 0;

    for (i = 0; i < count; i++)
        fds[i] = -1;
    for (i = 0; i < count && rc == 0; i++) {
        memset(&sin, 0, sizeof sin);
        sin.sin_family = AF_INET;
        inet_pton(AF_INET, addr, &sin.sin_addr);
        fds[i] = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        slen = sizeof sin;
        if (fds[i] == -1 || bind(fds[i], (struct sockaddr *)&sin, sizeof sin) == -1
            || getsockname(fds[i], (struct sockaddr *)&sin, &slen) == -1)
            rc = -1;
        else
            ports[i] = ntohs(sin.sin_port);
    }
    if (rc == -1)
        fprintf(stderr, "zkh: cannot pick a free port on %s: %s\n", addr, strerror(errno));
    for (i = 0; i < count; i++)
        if (fds[i] != -1)
            close(fds[i]);
    return rc;
}

static int
zkh_set_ports(struct zkh *z)
{
    int ports[3 * ZKH_MAX_SERVERS], per = z->n > 1 ? 3 : 1, i;
    size_t off = 0, cap = (size_t)z->n * ZKH_HOST_LEN;
    char a[INET_ADDRSTRLEN];
    struct zkh_srv *s;

    if (zkh_pick_ports(z->addr, ports, per * z->n) == -1)
        return -1;
    if (z->hosts == NULL && (z->hosts = malloc(cap)) == NULL)
        return -1;
    for (i = 0; i < z->n; i++) {
        s = &z->srv[i];
        s->client_port = ports[per * i];
        s->quorum_port = per == 3 ? ports[per * i + 1] : 0;
        s->election_port = per == 3 ? ports[per * i + 2] : 0;
        memcpy(a, s->addr, sizeof a); /* not from *z into *z: -Werror=restrict */
        snprintf(s->host, sizeof s->host, "%s:%d", a, s->client_port);
        off += (size_t)snprintf(z->hosts + off, cap - off, "%s%s", i > 0 ? "," : "", s->host);
    }
    return 0;
}

/* sI/, sI/data/, sI/data/myid (ensembles) and sI/zoo.cfg for the current ports. */
static int
zkh_write_config(struct zkh *z, int i)
{
    struct zkh_srv *s = &z->srv[i];
    char path[PATH_MAX], line[160], *cfg = NULL;
    size_t cap = 4096 + (size_t)z->n * 160, off;
    int k, rc = -1;

    if ((mkdir(s->dir, 0700) == -1 && errno != EEXIST)
        || zkh_fmt(path, sizeof path, "%s/data", s->dir) == -1
        || (mkdir(path, 0700) == -1 && errno != EEXIST))
        goto out;
    if (z->n > 1) {
        snprintf(line, sizeof line, "%d\n", i + 1);
        if (zkh_fmt(path, sizeof path, "%s/data/myid", s->dir) == -1
            || zkh_write_file(path, line) == -1)
            goto out;
    }
    if ((cfg = malloc(cap)) == NULL)
        goto out;
    off = (size_t)snprintf(cfg, cap,
        "# written by the zkelect test harness\n"
        "tickTime=%d\n"
        "initLimit=10\n"
        "syncLimit=%d\n"
        "dataDir=%s/data\n"
        "clientPort=%d\n"
        "clientPortAddress=%s\n"
        "maxClientCnxns=0\n"
        "admin.enableServer=false\n"
        "4lw.commands.whitelist=*\n"
        "forceSync=%s\n"
        "maxSessionTimeout=%d\n",
        z->tick_ms, z->sync_limit, s->dir, s->client_port, s->addr,
        z->force_sync ? "yes" : "no",
        z->max_session_ms);
    if (z->super_digest != NULL)
        off += (size_t)snprintf(cfg + off, cap - off,
            "DigestAuthenticationProvider.superDigest=%s\n", z->super_digest);
    for (k = 0; z->n > 1 && k < z->n; k++)
        off += (size_t)snprintf(cfg + off, cap - off, "server.%d=%s:%d:%d\n", k + 1,
            z->srv[k].addr, z->srv[k].quorum_port, z->srv[k].election_port);
    if (off >= cap)
        errno = ENAMETOOLONG;
    else if (zkh_fmt(path, sizeof path, "%s/zoo.cfg", s->dir) == 0)
        rc = zkh_write_file(path, cfg);
out:
    if (rc == -1)
        fprintf(stderr, "zkh: cannot write the config of server %d in %s: %s\n", i, s->dir,
            strerror(errno));
    free(cfg);
    return rc;
}

/*
 * Fork and exec server i's JVM. Everything is prepared before fork(); the
 * child only makes async-signal-safe calls (the parent may have threads).
 */
static int
zkh_spawn(struct zkh *z, int i, int cds_dump)
{
    static const int dflsigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGCHLD };
    struct zkh_srv *s = &z->srv[i];
    char cfg[PATH_MAX], logp[PATH_MAX], cds[PATH_MAX + 40], level[80];
    char *argv[24];
    sigset_t all, old;
    struct stat st;
    pid_t parent, pid;
    int logfd, nullfd, nsfd = -1, a = 0, saved;
    size_t k;

    if (zkh_fmt(cfg, sizeof cfg, "%s/zoo.cfg", s->dir) == -1
        || zkh_fmt(logp, sizeof logp, "%s/server.log", s->dir) == -1)
        return -1;
    snprintf(level, sizeof level, "-Dorg.slf4j.simpleLogger.defaultLogLevel=%s",
        z->verbose ? "info" : "warn");
    argv[a++] = z->java;
    argv[a++] = "-Xms16m";
    argv[a++] = z->xmx;
    argv[a++] = "-XX:+UseSerialGC";
    argv[a++] = "-XX:TieredStopAtLevel=1";
    argv[a++] = "-XX:-UsePerfData";
    argv[a++] = "-Xss512k";
    if (cds_dump && z->cds_tmp[0] != '\0') {
        snprintf(cds, sizeof cds, "-XX:ArchiveClassesAtExit=%s", z->cds_tmp);
        argv[a++] = cds;
    } else if (z->cds_use[0] != '\0') {
        snprintf(cds, sizeof cds, "-XX:SharedArchiveFile=%s", z->cds_use);
        argv[a++] = cds;
        argv[a++] = "-Xlog:cds=off";
        argv[a++] = "-Xlog:cds+dynamic=off";
        cds_dump = 0;
    } else {
        cds_dump = 0;
    }
    argv[a++] = level;
    argv[a++] = "-Dorg.slf4j.simpleLogger.showDateTime=true";
    argv[a++] = "-Dorg.slf4j.simpleLogger.dateTimeFormat=HH:mm:ss.SSS";
    argv[a++] = "-cp";
    argv[a++] = ZKH_ZK_JAR ":" ZKH_SLF4J_JAR;
    argv[a++] = ZKH_MAIN_CLASS;
    argv[a++] = cfg;
    argv[a] = NULL;

    logfd = open(logp, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (logfd == -1) {
        fprintf(stderr, "zkh: %s: %s\n", logp, strerror(errno));
        return -1;
    }
    s->log_seen = fstat(logfd, &st) == 0 ? st.st_size : 0; /* restarts append */
    nullfd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (nullfd == -1) {
        saved = errno;
        close(logfd);
        errno = saved;
        return -1;
    }
    if (s->netns[0] != '\0' && (nsfd = open(s->netns, O_RDONLY | O_CLOEXEC)) == -1) {
        saved = errno;
        fprintf(stderr, "zkh: server %d's network namespace %s: %s\n", i, s->netns,
            strerror(saved));
        close(logfd);
        close(nullfd);
        errno = saved;
        return -1;
    }
    parent = getpid();
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old); /* no handler runs in the child */
    pid = fork();
    if (pid == 0) {
        for (k = 0; k < sizeof dflsigs / sizeof dflsigs[0]; k++)
            signal(dflsigs[k], SIG_DFL);
        /* die with the forking thread; if the parent is already gone, now */
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) == -1 || getppid() != parent)
            _exit(127);
        setpgid(0, 0); /* a terminal's ^C goes to the harness, which stops us cleanly */
        if (nsfd != -1 && setns(nsfd, CLONE_NEWNET) == -1)
            _exit(127);
        if (dup2(nullfd, STDIN_FILENO) == -1 || dup2(logfd, STDOUT_FILENO) == -1
            || dup2(logfd, STDERR_FILENO) == -1)
            _exit(127);
        close_range(3, ~0U, 0);
        if (chdir(s->dir) == -1)
            _exit(127);
        sigemptyset(&all);
        sigprocmask(SIG_SETMASK, &all, NULL);
        execve(argv[0], argv, environ);
        (void)!write(STDERR_FILENO, "zkh: cannot execute java\n", 25);
        _exit(127);
    }
    saved = errno;
    if (pid > 0) {
        s->pid = pid;
        s->paused = 0;
        s->cds_dump = cds_dump;
        zkh_reg_set_pid(z, i, pid);
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    close(logfd);
    close(nullfd);
    if (nsfd != -1)
        close(nsfd);
    if (pid == -1) {
        fprintf(stderr, "zkh: fork: %s\n", strerror(saved));
        errno = saved;
        return -1;
    }
    return 0;
}

/*
 * If server i's JVM has exited, reap it (after taking it out of the registry,
 * so no emergency path can signal a reused pid) and return 1; 0 if it runs.
 */
static int
zkh_reap(struct zkh *z, int i, int *statusp)
{
    struct zkh_srv *s = &z->srv[i];
    siginfo_t si;
    int status = 0;

    if (s->pid <= 0)
        return 1;
    memset(&si, 0, sizeof si);
    if (waitid(P_PID, (id_t)s->pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == 0)
        return 0;
    zkh_reg_set_pid(z, i, 0);
    while (waitpid(s->pid, &status, 0) == -1 && errno == EINTR)
        ;
    zkh_cds_finish(z, s, status);
    s->pid = -1;
    s->paused = 0;
    if (statusp != NULL)
        *statusp = status;
    return 1;
}

/* Poll until server i has exited and is reaped. 0, or -1/ETIMEDOUT. */
static int
zkh_wait_exit(struct zkh *z, int i, int timeout_ms)
{
    int64_t until = zkh_now_ms() + timeout_ms;

    while (!zkh_reap(z, i, NULL)) {
        if (zkh_now_ms() >= until) {
            errno = ETIMEDOUT;
            return -1;
        }
        zkh_nap(5);
    }
    return 0;
}

/* SIGKILL every running server and reap it. */
static void
zkh_kill_all(struct zkh *z)
{
    int i;

    for (i = 0; i < z->n; i++)
        if (z->srv[i].pid > 0)
            kill(z->srv[i].pid, SIGKILL);
    for (i = 0; i < z->n; i++)
        zkh_wait_exit(z, i, ZKH_KILL_MS);
}

/* ------------------------------------------------------------------------
 * Four-letter words
 * ------------------------------------------------------------------------ */

static int
zkh_4lw_port(const char *addr, int port, const char *cmd, char *buf, size_t len,
    int timeout_ms)
{
    struct sockaddr_in sin;
    struct pollfd pfd;
    int64_t until = zkh_now_ms() + timeout_ms, left;
    size_t got = 0, clen = strlen(cmd);
    socklen_t elen;
    ssize_t n;
    int fd, err = 0, saved, connected = 0, sent = 0;

    if (len == 0 || clen == 0) {
        errno = EINVAL;
        return -1;
    }
    memset(&sin, 0, sizeof sin);
    sin.sin_family = AF_INET;
    sin.sin_port = htons((uint16_t)port);
    if (inet_pton(AF_INET, addr, &sin.sin_addr) != 1) {
        errno = EINVAL;
        return -1;
    }
    fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd == -1)
        return -1;
    if (connect(fd, (struct sockaddr *)&sin, sizeof sin) == 0)
        connected = 1;
    else if (errno != EINPROGRESS)
        goto fail;
    for (;;) {
        left = until - zkh_now_ms();
        if (left <= 0) {
            errno = ETIMEDOUT;
            goto fail;
        }
        pfd.fd = fd;
        pfd.events = !connected || !sent ? POLLOUT : POLLIN;
        pfd.revents = 0;
        n = poll(&pfd, 1, (int)left);
        if (n == -1 && errno == EINTR)
            continue;
        if (n == -1)
            goto fail;
        if (n == 0)
            continue;
        if (!connected) {
            elen = sizeof err;
            if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &elen) == -1)
                goto fail;
            if (err != 0) {
                errno = err;
                goto fail;
            }
            connected = 1;
        }
        if (!sent) {
            n = send(fd, cmd, clen, MSG_NOSIGNAL);
            if (n == -1 && (errno == EAGAIN || errno == EINTR))
                continue;
            if (n != (ssize_t)clen)
                goto fail;
            sent = 1;
            continue;
        }
        n = recv(fd, buf + got, len - 1 - got, 0);
        if (n == -1 && (errno == EAGAIN || errno == EINTR))
            continue;
        if (n == -1) {
            if (errno == ECONNRESET && got > 0)
                break;
            goto fail;
        }
        if (n == 0)
            break; /* the server closes after the answer */
        got += (size_t)n;
        if (got == len - 1)
            break; /* buffer full: the rest is dropped */
    }
    close(fd);
    buf[got] = '\0';
    return (int)got;
fail:
    saved = errno;
    close(fd);
    buf[0] = '\0';
    errno = saved;
    return -1;
}

/* 1 if "srvr" on port prints a Mode: line within timeout_ms. */
static int
zkh_probe(const char *addr, int port, int timeout_ms)
{
    char buf[2048];

    return zkh_4lw_port(addr, port, "srvr", buf, sizeof buf, timeout_ms) > 0
        && strstr(buf, "\nMode: ") != NULL;
}

/* ------------------------------------------------------------------------
 * Waiting for servers
 * ------------------------------------------------------------------------ */

/* 1 if server i's log shows a port clash since its start. */
static int
zkh_log_bind_error(struct zkh_srv *s)
{
    char path[PATH_MAX], buf[8192 + 1];
    off_t off;
    ssize_t n;
    int fd, found = 0;

    if (zkh_fmt(path, sizeof path, "%s/server.log", s->dir) == -1
        || (fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
        return 0;
    off = s->log_seen > 32 ? s->log_seen - 32 : 0; /* overlap: a match across reads */
    while ((n = pread(fd, buf, sizeof buf - 1, off)) > 0) {
        buf[n] = '\0';
        found = memmem(buf, (size_t)n, "BindException", 13) != NULL
            || memmem(buf, (size_t)n, "Address already in use", 22) != NULL;
        if (found || n < (ssize_t)sizeof buf - 1) {
            off += n;
            break;
        }
        off += n - 32;
    }
    if (!found)
        s->log_seen = off;
    close(fd);
    return found;
}

/* Print the last lines of server i's log on stderr, Java stack frames left out. */
static void
zkh_log_tail(const struct zkh *z, int i)
{
    char path[PATH_MAX], buf[16384], *lines[ZKH_TAIL_LINES], *p, *nl;
    ssize_t n;
    off_t size;
    int fd, count = 0, k, first;

    if (zkh_fmt(path, sizeof path, "%s/server.log", z->srv[i].dir) == -1
        || (fd = open(path, O_RDONLY | O_CLOEXEC)) == -1) {
        fprintf(stderr, "zkh: (no log for server %d)\n", i);
        return;
    }
    size = lseek(fd, 0, SEEK_END);
    n = pread(fd, buf, sizeof buf - 1, size > (off_t)sizeof buf - 1 ? size - (off_t)sizeof buf + 1 : 0);
    close(fd);
    if (n <= 0) {
        fprintf(stderr, "zkh: (server %d's log %s is empty)\n", i, path);
        return;
    }
    buf[n] = '\0';
    p = buf;
    if (size > n && (nl = strchr(p, '\n')) != NULL)
        p = nl + 1; /* skip a partial first line */
    for (; *p != '\0'; p = nl + 1) {
        nl = strchr(p, '\n');
        if (nl != NULL)
            *nl = '\0';
        if (strncmp(p, "\tat ", 4) != 0 && strncmp(p, "\t... ", 5) != 0 && *p != '\0') {
            lines[count % ZKH_TAIL_LINES] = p;
            count++;
        }
        if (nl == NULL)
            break;
    }
    fprintf(stderr, "zkh: last lines of %s:\n", path);
    first = count > ZKH_TAIL_LINES ? count - ZKH_TAIL_LINES : 0;
    for (k = first; k < count; k++)
        fprintf(stderr, "  | %s\n", lines[k % ZKH_TAIL_LINES]);
}

enum {
    ZKH_UP_OK,      /* every server serves */
    ZKH_UP_EXITED,  /* a server exited */
    ZKH_UP_BIND,    /* a server could not bind a port */
    ZKH_UP_TIMEOUT  /* not all serving in time */
};

/* Wait until the servers marked in want[] serve; *bad names the one that did not. */
static int
zkh_wait_up(struct zkh *z, const int *want, int timeout_ms, int *bad, int *status)
{
    int64_t until = zkh_now_ms() + timeout_ms;
    int ready[ZKH_MAX_SERVERS] = { 0 }, i, left, round;

    for (round = 0; ; round++) {
        left = 0;
        for (i = 0; i < z->n; i++) {
            if (!want[i] || ready[i])
                continue;
            *bad = i;
            if (zkh_reap(z, i, status))
                return zkh_log_bind_error(&z->srv[i])
                    || (WIFEXITED(*status) && WEXITSTATUS(*status) == 14)
                    ? ZKH_UP_BIND : ZKH_UP_EXITED;
            if (round % 10 == 9 && zkh_log_bind_error(&z->srv[i]))
                return ZKH_UP_BIND; /* e.g. a quorum port: it would retry forever */
            if (zkh_probe(z->srv[i].addr, z->srv[i].client_port, ZKH_PROBE_MS))
                ready[i] = 1;
            else
                left++;
        }
        if (left == 0)
            return ZKH_UP_OK;
        if (zkh_now_ms() >= until) {
            for (i = 0; i < z->n; i++)
                if (want[i] && !ready[i]) {
                    *bad = i;
                    break;
                }
            return ZKH_UP_TIMEOUT;
        }
        zkh_nap(ZKH_POLL_MS);
    }
}

static void
zkh_explain(const struct zkh *z, int rc, int bad, int status, const char *what)
{
    if (rc == ZKH_UP_TIMEOUT)
        fprintf(stderr, "zkh: %s: server %d (%s) not serving after %d ms\n", what, bad,
            z->srv[bad].host, z->start_timeout_ms);
    else if (WIFSIGNALED(status))
        fprintf(stderr, "zkh: %s: server %d (%s) was killed by signal %d during start%s\n",
            what, bad, z->srv[bad].host, WTERMSIG(status),
            rc == ZKH_UP_BIND ? " (port in use)" : "");
    else
        fprintf(stderr, "zkh: %s: server %d (%s) %s during start (status %d)%s\n", what, bad,
            z->srv[bad].host, rc == ZKH_UP_BIND && z->srv[bad].pid > 0
            ? "cannot bind a port" : "exited", WEXITSTATUS(status),
            rc == ZKH_UP_BIND ? " (port in use)" : "");
    zkh_log_tail(z, bad);
}

/* ------------------------------------------------------------------------
 * Public API
 * ------------------------------------------------------------------------ */

void
zkh_opts_init(struct zkh_opts *o)
{
    memset(o, 0, sizeof *o);
    o->nservers = 1;
    o->tick_ms = 200;
    o->max_session_ms = 20000;
    o->basedir = NULL;
    o->addr = "127.0.0.1";
    o->super_digest = NULL;
    o->start_timeout_ms = 60000;
    o->verbose = 0;
    o->force_sync = 0;
    o->heap_mb = 128;
    o->sync_limit = 5;
}

static int
zkh_check_opts(const struct zkh_opts *o)
{
    struct in_addr ia;
    const char *why = NULL;
    int i;

    if (o->nservers < 1 || o->nservers > ZKH_MAX_SERVERS || o->nservers % 2 == 0)
        why = "nservers must be odd, from 1 to 15";
    else if (o->tick_ms <= 0)
        why = "tick_ms must be > 0";
    else if (o->max_session_ms < 2 * o->tick_ms)
        why = "max_session_ms must be at least 2 * tick_ms";
    else if (o->start_timeout_ms <= 0)
        why = "start_timeout_ms must be > 0";
    else if (o->heap_mb < 32 || o->heap_mb > 65536)
        why = "heap_mb must be from 32 to 65536";
    else if (o->addr != NULL && inet_pton(AF_INET, o->addr, &ia) != 1)
        why = "addr must be an IPv4 address";
    else if (o->sync_limit < 1 || o->sync_limit > 10000)
        why = "sync_limit must be from 1 to 10000";
    for (i = 0; why == NULL && i < o->nservers; i++)
        if (o->srv_addr[i] != NULL && inet_pton(AF_INET, o->srv_addr[i], &ia) != 1)
            why = "srv_addr[i] must be an IPv4 address";
        else if (o->srv_netns[i] != NULL && (*o->srv_netns[i] == '\0'
            || strlen(o->srv_netns[i]) >= PATH_MAX))
            why = "srv_netns[i] must be a path";
    else if (o->super_digest != NULL && (strchr(o->super_digest, '\n') != NULL
        || strncmp(o->super_digest, "super:", 6) != 0))
        why = "super_digest must look like super:<base64 sha1>";
    if (why == NULL)
        return 0;
    fprintf(stderr, "zkh: bad options: %s\n", why);
    errno = EINVAL;
    return -1;
}

int
zkh_start(const struct zkh_opts *o, struct zkh **out)
{
    int want[ZKH_MAX_SERVERS], tries, rc, bad = 0, status = 0, i, saved, cds_retry = 0;
    char failed_cds[PATH_MAX] = "";
    const char *keep;
    struct zkh *z;

    if (out != NULL)
        *out = NULL;
    if (o == NULL || out == NULL) {
        errno = EINVAL;
        return -1;
    }
    if (zkh_check_opts(o) == -1)
        return -1;
    if (gettid() != getpid()) {
        fprintf(stderr, "zkh: zkh_start() must be called from the main thread\n");
        errno = EINVAL;
        return -1;
    }
    zkh_install_handlers();
    zkh_clean_stale();

    z = calloc(1, sizeof *z);
    if (z == NULL)
        return -1;
    z->slot = -1;
    z->n = o->nservers;
    z->tick_ms = o->tick_ms;
    z->max_session_ms = o->max_session_ms;
    z->start_timeout_ms = o->start_timeout_ms;
    z->verbose = o->verbose;
    z->force_sync = o->force_sync != 0;
    z->heap_mb = o->heap_mb;
    snprintf(z->xmx, sizeof z->xmx, "-Xmx%dm", o->heap_mb);
    z->sync_limit = o->sync_limit;
    keep = getenv("ZKH_KEEP");
    z->keep = keep != NULL && strcmp(keep, "1") == 0;
    snprintf(z->addr, sizeof z->addr, "%s", o->addr != NULL ? o->addr : "127.0.0.1");
    for (i = 0; i < ZKH_MAX_SERVERS; i++) {
        z->srv[i].pid = -1;
        snprintf(z->srv[i].addr, sizeof z->srv[i].addr, "%s",
            i < o->nservers && o->srv_addr[i] != NULL ? o->srv_addr[i]
            : o->addr != NULL ? o->addr : "127.0.0.1");
        snprintf(z->srv[i].netns, sizeof z->srv[i].netns, "%s",
            i < o->nservers && o->srv_netns[i] != NULL ? o->srv_netns[i] : "");
    }
    if (o->super_digest != NULL && (z->super_digest = strdup(o->super_digest)) == NULL)
        goto err;
    if (zkh_find_java(z) == -1)
        goto err;
    if (zkh_base_make(z, o->basedir) == -1)
        goto err;
    if (zkh_reg_add(z) == -1) {
        fprintf(stderr, "zkh: more than %d harnesses at once\n", ZKH_MAX_HARNESS);
        goto err;
    }
    zkh_cds_prepare(z);

    for (i = 0; i < z->n; i++)
        want[i] = 1;
    for (tries = 1; ; tries++) {
        if (zkh_set_ports(z) == -1)
            goto err;
        for (i = 0; i < z->n; i++)
            if (zkh_write_config(z, i) == -1)
                goto err;
        for (i = 0; i < z->n; i++)
            if (zkh_spawn(z, i, i == 0) == -1)
                goto err;
        rc = zkh_wait_up(z, want, z->start_timeout_ms, &bad, &status);
        if (rc == ZKH_UP_OK)
            break;
        if (rc == ZKH_UP_BIND && tries < ZKH_START_TRIES) {
            if (z->verbose)
                fprintf(stderr, "zkh: server %d: port in use, retrying with new ports\n", bad);
        } else if (rc == ZKH_UP_EXITED && z->cds_use[0] != '\0' && !cds_retry) {
            /* perhaps the archive: once more without it, silently */
            cds_retry = 1;
            zkh_cds_broken = 1;
            memcpy(failed_cds, z->cds_use, sizeof failed_cds);
            z->cds_use[0] = '\0';
            tries--;
        } else {
            zkh_explain(z, rc, bad, status, "start");
            errno = rc == ZKH_UP_TIMEOUT ? ETIMEDOUT : rc == ZKH_UP_BIND ? EADDRINUSE : ECHILD;
            goto err;
        }
        zkh_kill_all(z);
        zkh_base_remove(z->basedir, z->n, ZKH_RM_SERVERS, 0); /* fresh sI/ for the next try */
    }
    if (failed_cds[0] != '\0')
        unlink(failed_cds); /* it worked without the archive: it was the archive */
    *out = z;
    return 0;
err:
    saved = errno;
    zkh_stop(z);
    errno = saved;
    return -1;
}

const char *
zkh_hosts(const struct zkh *z)
{
    return z->hosts;
}

const char *
zkh_host(const struct zkh *z, int i)
{
    return i >= 0 && i < z->n ? z->srv[i].host : NULL;
}

int
zkh_port(const struct zkh *z, int i)
{
    return i >= 0 && i < z->n ? z->srv[i].client_port : -1;
}

const char *
zkh_basedir(const struct zkh *z)
{
    return z->basedir;
}

int
zkh_nservers(const struct zkh *z)
{
    return z->n;
}

pid_t
zkh_pid(const struct zkh *z, int i)
{
    return i >= 0 && i < z->n && z->srv[i].pid > 0 ? z->srv[i].pid : -1;
}

/* 0 if i names a running server; else -1 with errno EINVAL or ESRCH. */
static int
zkh_running(struct zkh *z, int i)
{
    if (z == NULL || i < 0 || i >= z->n) {
        errno = EINVAL;
        return -1;
    }
    if (zkh_reap(z, i, NULL)) {
        errno = ESRCH;
        return -1;
    }
    return 0;
}

int
zkh_kill(struct zkh *z, int i)
{
    if (zkh_running(z, i) == -1)
        return -1;
    kill(z->srv[i].pid, SIGKILL);
    return zkh_wait_exit(z, i, ZKH_KILL_MS);
}

int
zkh_terminate(struct zkh *z, int i)
{
    if (zkh_running(z, i) == -1)
        return -1;
    kill(z->srv[i].pid, SIGTERM);
    if (z->srv[i].paused)
        kill(z->srv[i].pid, SIGCONT);
    if (zkh_wait_exit(z, i, ZKH_TERM_MS) == 0)
        return 0;
    kill(z->srv[i].pid, SIGKILL);
    return zkh_wait_exit(z, i, ZKH_KILL_MS);
}

/* Wait for the stop (WSTOPPED) or continue (WCONTINUED) notice of server i. */
static int
zkh_wait_job(struct zkh *z, int i, int which)
{
    int64_t until = zkh_now_ms() + 5000;
    siginfo_t si;

    for (;;) {
        memset(&si, 0, sizeof si);
        if (waitid(P_PID, (id_t)z->srv[i].pid, &si, which | WNOHANG) == 0 && si.si_pid != 0)
            return 0;
        if (zkh_reap(z, i, NULL)) {
            errno = ECHILD;
            return -1;
        }
        if (zkh_now_ms() >= until) {
            errno = ETIMEDOUT;
            return -1;
        }
        zkh_nap(2);
    }
}

int
zkh_pause(struct zkh *z, int i)
{
    if (zkh_running(z, i) == -1)
        return -1;
    if (z->srv[i].paused)
        return 0;
    if (kill(z->srv[i].pid, SIGSTOP) == -1 || zkh_wait_job(z, i, WSTOPPED) == -1)
        return -1;
    z->srv[i].paused = 1;
    return 0;
}

int
zkh_resume(struct zkh *z, int i)
{
    if (zkh_running(z, i) == -1)
        return -1;
    if (!z->srv[i].paused)
        return kill(z->srv[i].pid, SIGCONT);
    if (kill(z->srv[i].pid, SIGCONT) == -1 || zkh_wait_job(z, i, WCONTINUED) == -1)
        return -1;
    z->srv[i].paused = 0;
    return 0;
}

int
zkh_restart(struct zkh *z, int i, int wait_serving)
{
    int want[ZKH_MAX_SERVERS] = { 0 }, rc, bad = i, status = 0;

    if (z == NULL || i < 0 || i >= z->n) {
        errno = EINVAL;
        return -1;
    }
    if (gettid() != getpid()) {
        fprintf(stderr, "zkh: zkh_restart() must be called from the main thread\n");
        errno = EINVAL;
        return -1;
    }
    if (!zkh_reap(z, i, NULL) && zkh_terminate(z, i) == -1)
        return -1;
    if (zkh_spawn(z, i, 0) == -1)
        return -1;
    if (!wait_serving)
        return 0;
    want[i] = 1;
    rc = zkh_wait_up(z, want, z->start_timeout_ms, &bad, &status);
    if (rc == ZKH_UP_OK)
        return 0;
    zkh_explain(z, rc, bad, status, "restart");
    errno = rc == ZKH_UP_TIMEOUT ? ETIMEDOUT : rc == ZKH_UP_BIND ? EADDRINUSE : ECHILD;
    return -1;
}

int
zkh_is_serving(struct zkh *z, int i)
{
    if (zkh_running(z, i) == -1)
        return 0;
    return zkh_probe(z->srv[i].addr, z->srv[i].client_port, ZKH_PROBE_MS);
}

int
zkh_wait_serving(struct zkh *z, int i, int timeout_ms)
{
    int64_t until = zkh_now_ms() + timeout_ms;

    for (;;) {
        if (zkh_running(z, i) == -1) {
            if (errno == ESRCH)
                errno = ECHILD;
            return -1;
        }
        if (zkh_probe(z->srv[i].addr, z->srv[i].client_port, ZKH_PROBE_MS))
            return 0;
        if (zkh_now_ms() >= until) {
            errno = ETIMEDOUT;
            return -1;
        }
        zkh_nap(ZKH_POLL_MS);
    }
}

int
zkh_wait_not_serving(struct zkh *z, int i, int timeout_ms)
{
    int64_t until = zkh_now_ms() + timeout_ms;

    if (z == NULL || i < 0 || i >= z->n) {
        errno = EINVAL;
        return -1;
    }
    for (;;) {
        if (!zkh_is_serving(z, i))
            return 0;
        if (zkh_now_ms() >= until) {
            errno = ETIMEDOUT;
            return -1;
        }
        zkh_nap(ZKH_POLL_MS);
    }
}

int
zkh_4lw_timeout(struct zkh *z, int i, const char *cmd, char *buf, size_t len, int timeout_ms)
{
    if (buf != NULL && len > 0)
        buf[0] = '\0';
    if (cmd == NULL || buf == NULL || len == 0 || timeout_ms <= 0) {
        errno = EINVAL;
        return -1;
    }
    if (zkh_running(z, i) == -1)
        return -1;
    return zkh_4lw_port(z->srv[i].addr, z->srv[i].client_port, cmd, buf, len, timeout_ms);
}

int
zkh_4lw(struct zkh *z, int i, const char *cmd, char *buf, size_t len)
{
    return zkh_4lw_timeout(z, i, cmd, buf, len, ZKH_4LW_MS);
}

void
zkh_stop(struct zkh *z)
{
    int64_t until;
    int i, left;

    if (z == NULL)
        return;
    for (i = 0; i < z->n; i++) {
        if (z->srv[i].pid <= 0)
            continue;
        kill(z->srv[i].pid, SIGTERM);
        if (z->srv[i].paused)
            kill(z->srv[i].pid, SIGCONT);
    }
    until = zkh_now_ms() + ZKH_STOP_MS;
    do {
        left = 0;
        for (i = 0; i < z->n; i++)
            left += !zkh_reap(z, i, NULL);
        if (left > 0)
            zkh_nap(5);
    } while (left > 0 && zkh_now_ms() < until);
    if (left > 0)
        zkh_kill_all(z);
    if (z->owns_basedir) {
        zkh_base_remove(z->basedir, z->n, z->keep ? ZKH_RM_OWNER : ZKH_RM_ALL,
            z->made_basedir);
        if (z->keep)
            fprintf(stderr, "zkh: ZKH_KEEP=1: servers' files kept in %s\n", z->basedir);
    }
    zkh_reg_del(z);
    free(z->super_digest);
    free(z->hosts);
    free(z);
}
