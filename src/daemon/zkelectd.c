/*
 * zkelectd.c - the zkelect node daemon: options, start (daemonize before any
 * thread exists), joining the group, the signal loop, reload and stop.
 *
 * Exit status: 0 after SIGTERM/SIGINT (resigned), -h, -V, or -n with a good
 * configuration; 1 for a bad configuration or any failure to start or to
 * keep running; 2 for a usage error.
 *
 * Sections: options and checks; daemon plumbing (pid file, daemonize);
 * start; the group; reload; stop; main.
 */
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <malloc.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "proc.h"
#include "statefile.h"
#include "zkecommon.h"
#include "zkelectd.h"

#ifndef ZKELECTD_CONFIG
#define ZKELECTD_CONFIG "/etc/zkelect/zkelect.ini"
#endif

#define EXIT_USAGE 2

static const char usage_text[] =
"usage: zkelectd [-fhnV] [-c FILE] [-p PIDFILE]\n"
"\n"
"The zkelect node daemon: joins the election group of its configuration,\n"
"runs the hooks when this node takes over or steps down, and answers HTTP\n"
"status requests.\n"
"\n"
"  -c, --config FILE     configuration file (default " ZKELECTD_CONFIG ")\n"
"  -f, --foreground      stay in the foreground (default: become a daemon)\n"
"  -n, --check           check the configuration, print \"configuration OK\"\n"
"                        or the error, and exit\n"
"  -p, --pidfile FILE    write the process id to FILE (locked while running)\n"
"  -h, --help            this text\n"
"  -V, --version         print the version\n"
"\n"
"Signals: SIGTERM/SIGINT resign and exit; SIGHUP reloads the configuration.\n"
"Exit status: 0 success, 1 error, 2 usage error. See zkelectd(8).\n";

/* Options. */
struct opts {
    const char *config;                 /* -c */
    const char *pidfile;                /* -p */
    bool foreground;                    /* -f */
    bool check;                         /* -n */
};

static int ready_fd = -1;               /* daemon mode: tells the parent how start went */
static bool reload_pending;             /* SIGHUP while joining: reload once joined */
static char *pidfile_path;              /* owned: absolute, removed at exit */
static int pidfile_fd = -1;             /* locked while we run */

/* ------------------------------------------------------------------------ */
/* Options and checks                                                       */
/* ------------------------------------------------------------------------ */

static void __attribute__((noreturn))
usage_exit(void)
{
    fprintf(stderr, "%.*s", (int)strcspn(usage_text, "\n") + 1, usage_text);
    fputs("Try 'zkelectd -h' for more information.\n", stderr);
    exit(EXIT_USAGE);
}

static void
parse_opts(int argc, char **argv, struct opts *o)
{
    static const struct option longopts[] = {
        { "config", required_argument, NULL, 'c' },
        { "foreground", no_argument, NULL, 'f' },
        { "check", no_argument, NULL, 'n' },
        { "pidfile", required_argument, NULL, 'p' },
        { "help", no_argument, NULL, 'h' },
        { "version", no_argument, NULL, 'V' },
        { NULL, 0, NULL, 0 },
    };
    int ch;

    memset(o, 0, sizeof(*o));
    o->config = ZKELECTD_CONFIG;
    opterr = 0;                         /* our messages, with our name */
    while ((ch = getopt_long(argc, argv, "c:fnp:hV", longopts, NULL)) != -1) {
        switch (ch) {
        case 'c':
            if (*optarg == '\0') {
                fprintf(stderr, "zkelectd: -c: empty file name\n");
                usage_exit();
            }
            o->config = optarg;
            break;
        case 'f':
            o->foreground = true;
            break;
        case 'n':
            o->check = true;
            break;
        case 'p':
            if (*optarg == '\0') {
                fprintf(stderr, "zkelectd: -p: empty file name\n");
                usage_exit();
            }
            o->pidfile = optarg;
            break;
        case 'h':
            fputs(usage_text, stdout);
            exit(0);
        case 'V':
            printf("zkelectd %s\n", zkelect_version());
            exit(0);
        default:
            if (optopt == 'c' || optopt == 'p')
                fprintf(stderr, "zkelectd: option -%c needs an argument\n", optopt);
            else if (optopt != 0)
                fprintf(stderr, "zkelectd: unknown option -%c\n", optopt);
            else
                fprintf(stderr, "zkelectd: unknown option %s\n", argv[optind - 1]);
            usage_exit();
        }
    }
    if (optind < argc) {
        fprintf(stderr, "zkelectd: unexpected argument '%s'\n", argv[optind]);
        usage_exit();
    }
}

/* p made absolute against the current directory; NULL when out of memory. */
static char *
abs_path(const char *p)
{
    char cwd[PATH_MAX], *s;

    if (p[0] == '/')
        return strdup(p);
    if (getcwd(cwd, sizeof(cwd)) == NULL)
        return NULL;
    if (asprintf(&s, "%s/%s", cwd, p) < 0)
        return NULL;
    return s;
}

/*
 * What the loader cannot check: hooks are executable files, the credential
 * file is usable, the event log can be opened for appending (the very
 * function the start and SIGHUP open it with). 0, or -1 with
 * "FILE: [section] key: message" in err.
 */
static int
check_runtime(const char *path, const struct zkd_config *c, bool auth, char *err,
    size_t errlen)
{
    static const char *const keys[] = { "takeover", "stepdown", "notify" };
    const char *hooks[] = { c->hook_takeover, c->hook_stepdown, c->hook_notify };
    char why[600], *secret = NULL;
    size_t i;
    int rc;

    for (i = 0; i < 3; i++) {
        if (hooks[i] != NULL && hooks_check_program(hooks[i], why, sizeof(why)) != 0) {
            snprintf(err, errlen, "%s: [hooks] %s: %s", path, keys[i], why);
            return -1;
        }
    }
    if (auth && c->auth_file != NULL) {
        rc = zkd_config_load_secret(c->auth_file, &secret, why, sizeof(why));
        zkd_config_secret_free(secret);
        if (rc != 0) {
            snprintf(err, errlen, "%s: [zookeeper] auth_file: %s", path, why);
            return -1;
        }
    }
    if (c->log_events != NULL &&
        events_file_open(c->log_events, true, why, sizeof(why)) != 0) {
        snprintf(err, errlen, "%s: [log] events: %s", path, why);
        return -1;
    }
    if (statefile_check_dir(c->state_dir, false, why, sizeof(why)) != 0) {
        snprintf(err, errlen, "%s: [node] state_dir: %s", path, why);
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Daemon plumbing                                                          */
/* ------------------------------------------------------------------------ */

/* Make sure descriptors 0, 1 and 2 are open (hooks inherit a sane set). */
static void
std_fds(void)
{
    int fd;

    while ((fd = open("/dev/null", O_RDWR)) >= 0 && fd <= 2)
        ;
    if (fd > 2)
        close(fd);
}

/* Tell the waiting parent (daemon mode) how the start went. */
static void
ready(int code)
{
    unsigned char b = (unsigned char)code;

    if (ready_fd < 0)
        return;
    if (write(ready_fd, &b, 1) != 1)
        log_warn("cannot report the start to the parent process");
    close(ready_fd);
    ready_fd = -1;
}

/*
 * fork: the parent waits until the child reports its start (or exits) and
 * exits with that status; the child becomes a session leader. Called before
 * any thread exists.
 */
static void
daemonize(int keep_stderr)
{
    unsigned char b;
    ssize_t n;
    pid_t pid;
    int p[2], st, fd;

    if (pipe2(p, O_CLOEXEC) == -1)
        fatal("pipe");
    if ((pid = fork()) == -1)
        fatal("fork");
    if (pid > 0) {
        close(p[1]);
        do
            n = read(p[0], &b, 1);
        while (n == -1 && errno == EINTR);
        if (n == 1)
            _exit(b);
        while (waitpid(pid, &st, 0) == -1 && errno == EINTR)
            ;
        _exit(WIFEXITED(st) ? WEXITSTATUS(st) : 1);
    }
    close(p[0]);
    ready_fd = p[1];
    if (setsid() == -1)
        fatal("setsid");
    if ((fd = open("/dev/null", O_RDWR)) == -1)
        fatal("/dev/null");
    (void)dup2(fd, 0);
    (void)dup2(fd, 1);
    if (!keep_stderr)
        (void)dup2(fd, 2);
    if (fd > 2)
        close(fd);
}

/*
 * Load the configured policy with its [policy] options, as the elector will:
 * a missing module or an option it refuses is a configuration error now,
 * not a surprise the day this node becomes the elector.
 */
static int
check_policy(const char *path, const struct zkd_config *c, char *err, size_t errlen)
{
    char msg[768];
    char **kv;
    int i, rc, n = c->npolicy_options;

    kv = calloc((size_t)n + 1, sizeof(*kv));
    if (kv == NULL) {
        snprintf(err, errlen, "%s: out of memory", path);
        return -1;
    }
    for (i = 0; i < n; i++)
        if (asprintf(&kv[i], "%s=%s", c->policy_options[i].key, c->policy_options[i].value) < 0)
            kv[i] = NULL;
    rc = zkelect_policy_check(c->policy, c->policy_path, (const char *const *)kv, (size_t)n,
                              msg, sizeof(msg));
    for (i = 0; i < n; i++)
        free(kv[i]);
    free(kv);
    if (rc == 0)
        return 0;
    if (rc == ZKELECT_EPOLINIT) {
        /* name the key when the policy's message quotes one of ours */
        const char *key = NULL;
        char q[ZKD_CONFIG_NAME_MAX + 3];
        for (i = 0; i < n && key == NULL; i++) {
            snprintf(q, sizeof(q), "'%s'", c->policy_options[i].key);
            if (strstr(msg, q) != NULL)
                key = c->policy_options[i].key;
        }
        if (key != NULL)
            snprintf(err, errlen, "%s: [policy] %s: %s", path, key, msg);
        else
            snprintf(err, errlen, "%s: [policy]: %s", path, msg);
    } else
        snprintf(err, errlen, "%s: [election] policy: %s", path, msg);
    return -1;
}

/* Create, lock and fill the pid file. */
static int
pidfile_create(const char *path)
{
    char buf[32], old[32];
    struct flock fl;
    ssize_t n;
    int fd, len;

    if ((pidfile_path = abs_path(path)) == NULL) {
        log_warnx("pid file %s: out of memory", path);
        return -1;
    }
    if ((fd = open(pidfile_path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644)) == -1) {
        log_warn("pid file %s", pidfile_path);
        return -1;
    }
    memset(&fl, 0, sizeof(fl));
    fl.l_type = F_WRLCK;
    fl.l_whence = SEEK_SET;
    if (fcntl(fd, F_SETLK, &fl) == -1) {
        n = pread(fd, old, sizeof(old) - 1, 0);
        old[n > 0 ? n : 0] = '\0';
        old[strcspn(old, "\n")] = '\0';
        log_warnx("pid file %s is locked: zkelectd already runs (pid %s)",
            pidfile_path, old[0] != '\0' ? old : "?");
        close(fd);
        free(pidfile_path);
        pidfile_path = NULL;
        return -1;
    }
    len = snprintf(buf, sizeof(buf), "%ld\n", (long)getpid());
    if (ftruncate(fd, 0) == -1 || pwrite(fd, buf, (size_t)len, 0) != len) {
        log_warn("pid file %s: write", pidfile_path);
        close(fd);
        return -1;
    }
    pidfile_fd = fd;
    return 0;
}

static void
pidfile_remove(void)
{
    if (pidfile_path != NULL && pidfile_fd >= 0 && unlink(pidfile_path) == -1)
        log_warn("pid file %s: unlink", pidfile_path);
    if (pidfile_fd >= 0)
        close(pidfile_fd);
    pidfile_fd = -1;
    free(pidfile_path);
    pidfile_path = NULL;
}

/* ------------------------------------------------------------------------ */
/* Start                                                                    */
/* ------------------------------------------------------------------------ */

static void
zkd_init(struct zkd *d)
{
    memset(d, 0, sizeof(*d));
    zkd_config_init(&d->boot);
    d->live = &d->boot;
    d->healthy = true;
    d->exit_code = -1;
    d->events_fd = -1;
    pthread_mutex_init(&d->mu, NULL);
    pthread_mutex_init(&d->evmu, NULL);
}

/* The signals the main thread handles; blocked in every thread. */
static void
zkd_sigset(sigset_t *set)
{
    sigemptyset(set);
    sigaddset(set, SIGTERM);
    sigaddset(set, SIGINT);
    sigaddset(set, SIGHUP);
    sigaddset(set, SIGCHLD);
    sigaddset(set, SIGUSR1);            /* zkd_request_exit() */
}

/* Open the handle (waits for the session). 0 or -1 (logged). */
static int
zkd_open(struct zkd *d)
{
    struct zkelect_options o;
    zkelect_t *h = NULL;
    int rc;

    memset(&o, 0, sizeof(o));
    o.size = sizeof(o);
    o.hosts = d->boot.zk_hosts;
    o.session_timeout_ms = d->boot.session_timeout_ms;
    o.stepdown_ms = d->boot.stepdown_timeout_ms;     /* checked by the loader: */
    o.fence_ms = d->boot.leader_fence_ms;            /* F + D <= T/2 */
    o.connect_timeout_ms = d->boot.connect_timeout_ms;
    o.auth_file = d->auth_file;
    o.log = log_library;
    o.log_level = ZKELECT_LOG_DEBUG;    /* log.c filters by the live level */
    o.on_event = events_on_event;
    o.event_data = d;
    if ((rc = zkelect_open(&o, &h)) != 0) {
        log_emit(LOG_ERR, "cannot open a ZooKeeper session on %s: %s",
            d->boot.zk_hosts, zkelect_strerror(rc));
        return -1;
    }
    pthread_mutex_lock(&d->mu);
    d->h = h;
    pthread_mutex_unlock(&d->mu);
    return 0;
}

/* Open the group as configured. 0 or -1 (logged). */
static int
zkd_group_open(struct zkd *d)
{
    struct zkelect_group_options o;
    zkelect_group_t *g = NULL;
    char **kv;
    int i, rc, n = d->boot.npolicy_options;

    if ((kv = calloc((size_t)n + 1, sizeof(*kv))) == NULL) {
        log_warnx("out of memory");
        return -1;
    }
    for (i = 0; i < n; i++) {
        if (asprintf(&kv[i], "%s=%s", d->boot.policy_options[i].key,
            d->boot.policy_options[i].value) < 0) {
            kv[i] = NULL;
            rc = ZKELECT_ENOMEM;
            goto out;
        }
    }
    memset(&o, 0, sizeof(o));
    o.size = sizeof(o);
    o.path = d->boot.path;
    o.policy = d->policy;
    o.policy_path = d->boot.policy_path;
    o.policy_options = (const char *const *)kv;
    o.npolicy_options = (size_t)n;
    o.watchdog_ms = d->boot.watchdog_ms;
    /* the library reads 0 as "its default": the shortest exclusion instead */
    o.exclude_ms = d->boot.exclude_ms > 0 ? d->boot.exclude_ms : 1;
    o.settle_ms = d->boot.settle_ms;
    o.expect = d->boot.expect;
    o.failback_delay_ms = d->boot.failback_delay_ms;
    o.min_move_interval_ms = d->boot.min_move_interval_ms;
    o.on_takeover = hooks_on_takeover;
    o.on_stepdown = hooks_on_stepdown;
    if (hooks_takeover_noop(d))
        o.flags |= ZKELECT_GROUP_TAKEOVER_NOOP;
    o.cb_data = d;
    rc = zkelect_group_open(d->h, &o, &g);     /* d->h: only main writes it */
out:
    for (i = 0; i < n; i++)
        free(kv[i]);
    free(kv);
    if (rc != 0) {
        log_emit(LOG_ERR, "cannot open the group %s: %s", d->boot.path,
            zkelect_strerror(rc));
        return -1;
    }
    pthread_mutex_lock(&d->mu);
    d->g = g;
    pthread_mutex_unlock(&d->mu);
    events_follow(d);
    return 0;
}

/*
 * Wait up to ms (< 0: without a time limit) for one of the signals in set.
 * Returns the signal, or 0 on timeout. SIGCHLD is swallowed (every hook's
 * child is reaped by its runner).
 */
static int
zkd_sigwait(const sigset_t *set, int ms)
{
    struct timespec ts;
    uint64_t end = proc_now_ms() + (uint64_t)(ms > 0 ? ms : 0), now;
    int sig;

    for (;;) {
        if (ms < 0) {                   /* no timeout */
            if ((sig = sigwaitinfo(set, NULL)) == -1)
                continue;               /* EINTR */
            if (sig != SIGCHLD)
                return sig;
            continue;
        }
        now = proc_now_ms();
        if (now >= end)
            return 0;
        ts.tv_sec = (time_t)((end - now) / 1000);
        ts.tv_nsec = (long)((end - now) % 1000) * 1000000L;
        sig = sigtimedwait(set, NULL, &ts);
        if (sig == -1) {
            if (errno == EINTR)
                continue;
            return 0;                   /* EAGAIN: the time is up */
        }
        if (sig != SIGCHLD)
            return sig;
    }
}

/*
 * Join the group. While another live session holds our id (a zkelectd that
 * crashed a moment ago: its session lives until it expires), retry until
 * session_timeout_ms x 2 have passed. Returns 0 joined (or joining), 1 give
 * up (logged), or the terminating signal.
 */
static int
zkd_join(struct zkd *d, const sigset_t *set)
{
    struct zkelect_node n;
    uint64_t start = proc_now_ms(), bound;
    int rc, sig, retry_ms, tries = 0;
    char host[256];

    memset(&n, 0, sizeof(n));
    /* the member record names this machine: operators see it in zkelect
       status, a successor's takeover hook gets it as ZKELECT_PREVIOUS_HOST */
    if (gethostname(host, sizeof(host)) == 0) {
        host[sizeof(host) - 1] = '\0';
        n.host = host;
    } else {
        log_warn("gethostname: the member record names no host");
    }
    n.id = d->boot.node_id;
    n.site = d->boot.site;
    n.priority = d->boot.priority;
    n.tags = (const char *const *)d->boot.tags;
    n.ntags = (size_t)d->boot.ntags;
    n.eligible = d->boot.eligible;
    bound = 2 * (uint64_t)d->boot.session_timeout_ms;
    retry_ms = d->boot.session_timeout_ms / 10;
    if (retry_ms < 100)
        retry_ms = 100;
    if (retry_ms > 1000)
        retry_ms = 1000;
    for (;;) {
        rc = zkelect_nominate(d->g, &n, d->boot.connect_timeout_ms);
        if (rc == 0) {
            if (tries > 0)
                log_notice("node id %s is free again: joined after %llu ms",
                    n.id, (unsigned long long)(proc_now_ms() - start));
            return 0;
        }
        if (rc == ZKELECT_ETIMEDOUT) {
            log_warnx("joining %s not confirmed within %d ms; it goes on in the "
                "background", d->boot.path, d->boot.connect_timeout_ms);
            return 0;
        }
        if (rc == ZKELECT_EFOREIGN) {
            /* no session holds it: waiting would not help */
            log_emit(LOG_ERR, ZKE_FOREIGN_RECORD_FMT, d->boot.path, n.id, d->boot.path, n.id);
            return 1;
        }
        if (rc != ZKELECT_EIDINUSE) {
            log_emit(LOG_ERR, "cannot join the group %s as %s: %s", d->boot.path,
                n.id, zkelect_strerror(rc));
            return 1;
        }
        if (tries++ == 0) {
            log_warnx("node id %s is held by another live ZooKeeper session "
                "(a zkelectd that just died, or another node configured with "
                "the same id); retrying until that session expires, for at "
                "most %llu ms", n.id, (unsigned long long)bound);
            /* longer than a unit's start timeout may allow */
            sdnotify_send(NULL, "waiting until node id %s is released by "
                "another ZooKeeper session (at most %llu ms)", n.id,
                (unsigned long long)bound);
            sdnotify_extend_ms(bound + (uint64_t)retry_ms +
                (uint64_t)d->boot.connect_timeout_ms + 5000);
        }
        if (proc_now_ms() - start >= bound) {
            log_emit(LOG_ERR, "node id %s is still held by another live session "
                "after %llu ms: is another node configured with the same id? "
                "giving up", n.id, (unsigned long long)bound);
            return 1;
        }
        if ((sig = zkd_sigwait(set, retry_ms)) == SIGTERM || sig == SIGINT)
            return sig;
        if (sig == SIGHUP) {
            log_notice("SIGHUP while joining the group: reloading once joined");
            reload_pending = true;
        }
    }
}

/* ------------------------------------------------------------------------ */
/* Reload (SIGHUP)                                                          */
/* ------------------------------------------------------------------------ */

static bool
str_eq(const char *a, const char *b)
{
    if (a == NULL || b == NULL)
        return a == b;
    return strcmp(a, b) == 0;
}

static bool
tags_eq(const struct zkd_config *a, const struct zkd_config *b)
{
    int i;

    if (a->ntags != b->ntags)
        return false;
    for (i = 0; i < a->ntags; i++)
        if (strcmp(a->tags[i], b->tags[i]) != 0)
            return false;
    return true;
}

static bool
options_eq(const struct zkd_config *a, const struct zkd_config *b)
{
    int i;

    if (a->npolicy_options != b->npolicy_options)
        return false;
    for (i = 0; i < a->npolicy_options; i++)
        if (strcmp(a->policy_options[i].key, b->policy_options[i].key) != 0 ||
            strcmp(a->policy_options[i].value, b->policy_options[i].value) != 0)
            return false;
    return true;
}

/* Log every key that changed but is only read at start. */
static void
reload_restart_keys(const struct zkd_config *boot, const struct zkd_config *n)
{
    static const char fmt[] = "reload: [%s] %s changed: it takes effect only "
        "after a restart";
    const struct {
        bool same;
        const char *section, *key;
    } k[] = {
        { str_eq(boot->zk_hosts, n->zk_hosts), "zookeeper", "hosts" },
        { boot->session_timeout_ms == n->session_timeout_ms, "zookeeper",
          "session_timeout_ms" },
        { boot->connect_timeout_ms == n->connect_timeout_ms, "zookeeper",
          "connect_timeout_ms" },
        { str_eq(boot->auth_file, n->auth_file), "zookeeper", "auth_file" },
        { str_eq(boot->path, n->path), "cluster", "path" },
        { str_eq(boot->node_id, n->node_id), "node", "id" },
        { str_eq(boot->site, n->site), "node", "site" },
        { str_eq(boot->state_dir, n->state_dir), "node", "state_dir" },
        { str_eq(boot->policy, n->policy), "election", "policy" },
        { str_eq(boot->policy_path, n->policy_path), "election", "policy_path" },
        { boot->watchdog_ms == n->watchdog_ms, "election", "watchdog_ms" },
        { boot->exclude_ms == n->exclude_ms, "election", "exclude_ms" },
        { boot->settle_ms == n->settle_ms, "election", "settle_ms" },
        { boot->expect == n->expect, "election", "expect" },
        { boot->failback_delay_ms == n->failback_delay_ms, "election", "failback_delay_ms" },
        { boot->min_move_interval_ms == n->min_move_interval_ms, "election",
          "min_move_interval_ms" },
        { options_eq(boot, n), "policy", "(options)" },
        { str_eq(boot->http_listen, n->http_listen), "http", "listen" },
        /* the library's self-fence was set up with these at start */
        { boot->stepdown_timeout_ms == n->stepdown_timeout_ms, "hooks",
          "stepdown_timeout_ms" },
        { boot->leader_fence_ms == n->leader_fence_ms, "leader", "fence_ms" },
    };
    size_t i;

    for (i = 0; i < sizeof(k) / sizeof(k[0]); i++)
        if (!k[i].same)
            log_warnx(fmt, k[i].section, k[i].key);
}

static void
reload_changed(const char *section, const char *key, const char *from, const char *to)
{
    log_notice("reload: [%s] %s: '%s' -> '%s'", section, key,
        from != NULL ? from : "", to != NULL ? to : "");
}

static void
reload_apply(struct zkd *d)
{
    struct zkd_config *n, *old;
    char err[1024], why[600], a[32], b[32];
    zkelect_group_t *g;
    int rc, events_fd = -1;

    log_notice("SIGHUP: reloading %s", d->config_path);
    if ((n = calloc(1, sizeof(*n))) == NULL) {
        log_warnx("reload: out of memory; keeping the running configuration");
        return;
    }
    if (zkd_config_load(d->config_path, n, err, sizeof(err)) != 0 ||
        check_runtime(d->config_path, n, false, err, sizeof(err)) != 0) {
        log_emit(LOG_ERR, "reload failed: %s; keeping the running configuration", err);
        zkd_config_free(n);
        free(n);
        return;
    }
    /* the event log is reopened (also under the same name: log rotation)
       before anything changes, so that a file that cannot be opened keeps
       the whole running configuration, the old event log included */
    if (n->log_events != NULL &&
        (events_fd = events_file_open(n->log_events, false, why, sizeof(why))) == -1) {
        log_emit(LOG_ERR, "reload failed: %s: [log] events: %s; keeping the running "
            "configuration", d->config_path, why);
        zkd_config_free(n);
        free(n);
        return;
    }
    /* the loader checked the new file against itself; the step-down budget
       in force is still the one of the start */
    if (n->leader_stop_timeout_ms >= d->boot.stepdown_timeout_ms) {
        log_emit(LOG_ERR, "reload failed: %s: [leader] stop_timeout_ms: %d ms must be "
            "less than the running [hooks] stepdown_timeout_ms (%d ms; it changes only "
            "with a restart); keeping the running configuration", d->config_path,
            n->leader_stop_timeout_ms, d->boot.stepdown_timeout_ms);
        if (events_fd >= 0)
            close(events_fd);
        zkd_config_free(n);
        free(n);
        return;
    }
    reload_restart_keys(&d->boot, n);

    /* only the main thread changes d->live: reading it without the lock is fine */
    old = d->live;
    pthread_mutex_lock(&d->mu);
    g = d->g;
    pthread_mutex_unlock(&d->mu);
    if (old->priority != n->priority) {
        snprintf(a, sizeof(a), "%d", old->priority);
        snprintf(b, sizeof(b), "%d", n->priority);
        reload_changed("node", "priority", a, b);
        if (g != NULL && (rc = zkelect_set_priority(g, n->priority)) != 0)
            log_warnx("reload: zkelect_set_priority: %s", zkelect_strerror(rc));
    }
    if (!tags_eq(old, n)) {
        reload_changed("node", "tags", old->ntags ? old->tags[0] : "", n->ntags ? n->tags[0] : "");
        if (g != NULL && (rc = zkelect_set_tags(g, (const char *const *)n->tags,
                                                (size_t)n->ntags)) != 0)
            log_warnx("reload: zkelect_set_tags: %s", zkelect_strerror(rc));
    }
    if (old->eligible != n->eligible) {
        reload_changed("node", "eligible", old->eligible ? "yes" : "no",
            n->eligible ? "yes" : "no");
        if (g != NULL && (rc = zkelect_set_eligible(g, n->eligible)) != 0)
            log_warnx("reload: zkelect_set_eligible: %s", zkelect_strerror(rc));
    }
    if (!str_eq(old->hook_takeover, n->hook_takeover))
        reload_changed("hooks", "takeover", old->hook_takeover, n->hook_takeover);
    if (!str_eq(old->hook_stepdown, n->hook_stepdown))
        reload_changed("hooks", "stepdown", old->hook_stepdown, n->hook_stepdown);
    if (!str_eq(old->hook_notify, n->hook_notify))
        reload_changed("hooks", "notify", old->hook_notify, n->hook_notify);
    if (old->hook_timeout_ms != n->hook_timeout_ms) {
        snprintf(a, sizeof(a), "%d", old->hook_timeout_ms);
        snprintf(b, sizeof(b), "%d", n->hook_timeout_ms);
        reload_changed("hooks", "timeout_ms", a, b);
    }
    if (!str_eq(old->leader_command, n->leader_command))
        reload_changed("leader", "command (from the next takeover on)",
            old->leader_command, n->leader_command);
    if (!str_eq(old->leader_ready_command, n->leader_ready_command))
        reload_changed("leader", "ready_command", old->leader_ready_command,
            n->leader_ready_command);
    if (old->leader_stop_timeout_ms != n->leader_stop_timeout_ms) {
        snprintf(a, sizeof(a), "%d", old->leader_stop_timeout_ms);
        snprintf(b, sizeof(b), "%d", n->leader_stop_timeout_ms);
        reload_changed("leader", "stop_timeout_ms", a, b);
    }
    if (!str_eq(old->health_command, n->health_command))
        reload_changed("health", "command", old->health_command, n->health_command);
    if (old->health_interval_ms != n->health_interval_ms) {
        snprintf(a, sizeof(a), "%d", old->health_interval_ms);
        snprintf(b, sizeof(b), "%d", n->health_interval_ms);
        reload_changed("health", "interval_ms", a, b);
    }
    if (old->health_failures != n->health_failures) {
        snprintf(a, sizeof(a), "%d", old->health_failures);
        snprintf(b, sizeof(b), "%d", n->health_failures);
        reload_changed("health", "failures", a, b);
    }
    if (old->log_level != n->log_level)
        reload_changed("log", "level", log_levelname(old->log_level),
            log_levelname(n->log_level));
    if (old->log_target != n->log_target)
        reload_changed("log", "target", old->log_target == ZKD_LOG_SYSLOG ?
            "syslog" : "stderr", n->log_target == ZKD_LOG_SYSLOG ? "syslog" : "stderr");
    if (!str_eq(old->log_events, n->log_events))
        reload_changed("log", "events", old->log_events, n->log_events);

    pthread_mutex_lock(&d->mu);
    d->live = n;
    pthread_mutex_unlock(&d->mu);
    /* a takeover hook or command added or removed: READY with PROGRESS or not */
    if (g != NULL && (!str_eq(old->hook_takeover, n->hook_takeover) ||
        !str_eq(old->leader_command, n->leader_command)) &&
        (rc = zkelect_set_takeover_noop(g, hooks_takeover_noop(d))) != 0)
        log_warnx("reload: zkelect_set_takeover_noop: %s", zkelect_strerror(rc));
    if (old != &d->boot) {
        zkd_config_free(old);
        free(old);
    }
    log_settarget(n->log_target);
    log_setlevel(n->log_level);
    events_swap(d, events_fd);
    events_follow(d);                   /* a notify hook or an event log came or went */
    health_wake(d);
    log_notice("configuration reloaded from %s", d->config_path);
}

/* SIGHUP: reload, between RELOADING=1 and READY=1 for the service manager. */
static void
reload(struct zkd *d)
{
    sdnotify_send("RELOADING=1", "reloading %s", d->config_path);
    reload_apply(d);
    sdnotify_ready(d);
}

/* ------------------------------------------------------------------------ */
/* Stop                                                                     */
/* ------------------------------------------------------------------------ */

/* Resign, close and free everything that was started; return code. */
static int
zkd_stop(struct zkd *d, int code)
{
    zkelect_group_t *g;
    zkelect_t *h;
    int rc, timeout_ms;

    health_stop(d);
    sdnotify_watchdog_stop();           /* it pings d->h: before the close */
    pthread_mutex_lock(&d->mu);
    g = d->g;
    timeout_ms = d->live->hook_timeout_ms + PROC_GRACE_MS +
        d->boot.session_timeout_ms + 1000;
    pthread_mutex_unlock(&d->mu);
    sdnotify_send("STOPPING=1", "%s", g != NULL ? "resigning and stopping" : "stopping");
    /* the resignation, then up to 5 s for the notify hooks */
    sdnotify_extend_ms((uint64_t)timeout_ms + 5000 + 5000);
    if (g != NULL) {
        log_info("resigning from %s (stepdown hook first if leading)", d->boot.path);
        if ((rc = zkelect_unnominate(g, timeout_ms)) != 0)
            log_warnx("resigning from %s: %s", d->boot.path, zkelect_strerror(rc));
    }
    hooks_stop_leadership(d);
    http_stop(d);
    pthread_mutex_lock(&d->mu);
    d->g = NULL;
    h = d->h;
    d->h = NULL;
    pthread_mutex_unlock(&d->mu);
    /*
     * zkelect_close() closes the group itself. Not zkelect_group_close()
     * first: it removes the group asynchronously, and a zkelect_close()
     * right after it can find the group still open and close it twice.
     */
    zkelect_close(h);                   /* NULL-safe */
    hooks_stop_notify(d, 5000);
    hooks_free(d);
    events_close(d);
    if (code == 0)
        log_notice("stopped");
    else
        log_emit(LOG_ERR, "stopped with exit status %d", code);
    pidfile_remove();
    ready(code);
    if (d->live != &d->boot) {
        zkd_config_free(d->live);
        free(d->live);
    }
    zkd_config_free(&d->boot);
    free(d->config_path);
    free(d->auth_file);
    free(d->policy);
    pthread_mutex_destroy(&d->mu);
    pthread_mutex_destroy(&d->evmu);
    return code;
}

/* ------------------------------------------------------------------------ */
/* Main                                                                     */
/* ------------------------------------------------------------------------ */

static int
zkd_run(struct zkd *d, const sigset_t *set)
{
    int sig, code;

    for (;;) {
        sig = zkd_sigwait(set, -1);  /* zkd_request_exit() sends SIGUSR1 */
        pthread_mutex_lock(&d->mu);
        code = d->exit_code;
        pthread_mutex_unlock(&d->mu);
        if (code >= 0)
            return code;
        switch (sig) {
        case SIGTERM:
        case SIGINT:
            log_notice("SIG%s: resigning and exiting", sigabbrev_np(sig));
            return 0;
        case SIGHUP:
            reload(d);
            break;
        default:
            break;
        }
    }
}

int
main(int argc, char **argv)
{
    struct zkd d;
    struct opts o;
    struct sigaction sa;
    sigset_t set;
    char err[1024];
    int rc;

    std_fds();
    /* a daemon of a dozen mostly idle threads: glibc would give each thread
       that allocates its own malloc arena (~170 KiB resident for nothing) */
    mallopt(M_ARENA_MAX, 2);
    parse_opts(argc, argv, &o);
    zkd_init(&d);
    if ((d.config_path = abs_path(o.config)) == NULL) {
        fprintf(stderr, "zkelectd: %s: %s\n", o.config, strerror(errno));
        return 1;
    }
    if (zkd_config_load(d.config_path, &d.boot, err, sizeof(err)) != 0 ||
        check_runtime(d.config_path, &d.boot, true, err, sizeof(err)) != 0 ||
        check_policy(d.config_path, &d.boot, err, sizeof(err)) != 0) {
        fprintf(stderr, "zkelectd: %s\n", err);
        zkd_config_free(&d.boot);
        free(d.config_path);
        return 1;
    }
    if (o.check) {
        printf("configuration OK\n");
        zkd_config_free(&d.boot);
        free(d.config_path);
        return 0;
    }
    if ((d.boot.auth_file != NULL && (d.auth_file = abs_path(d.boot.auth_file)) == NULL) ||
        (d.policy = strchr(d.boot.policy, '/') != NULL ? abs_path(d.boot.policy) :
            strdup(d.boot.policy)) == NULL) {
        fprintf(stderr, "zkelectd: out of memory\n");
        return 1;
    }

    /* Signals: blocked here, before any thread exists (they all inherit the
       mask), and taken by the main thread with sigtimedwait(). */
    zkd_sigset(&set);
    if (pthread_sigmask(SIG_BLOCK, &set, NULL) != 0) {
        fprintf(stderr, "zkelectd: cannot block signals\n");
        return 1;
    }
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &sa, NULL);

    log_init("zkelectd", d.boot.log_target, d.boot.log_level);
    if (!o.foreground)
        daemonize(d.boot.log_target == ZKD_LOG_STDERR);
    if (chdir("/") == -1)
        log_warn("chdir /");
    d.start_ms = proc_now_ms();
    if (o.pidfile != NULL && pidfile_create(o.pidfile) != 0)
        return zkd_stop(&d, 1);
    if (d.boot.log_events != NULL) {
        if ((rc = events_file_open(d.boot.log_events, false, err, sizeof(err))) == -1) {
            log_emit(LOG_ERR, "%s: [log] events: %s", d.config_path, err);
            return zkd_stop(&d, 1);
        }
        events_swap(&d, rc);
    }
    log_notice("zkelectd %s starting: node %s, group %s, ZooKeeper %s",
        zkelect_version(), d.boot.node_id, d.boot.path, d.boot.zk_hosts);

    sdnotify_send(NULL, "connecting to ZooKeeper %s", d.boot.zk_hosts);
    /* a session, then the registration: connect_timeout_ms each, at most */
    sdnotify_extend_ms(2 * (uint64_t)d.boot.connect_timeout_ms + 5000);
    if (sdnotify_watchdog_start(&d) != 0)
        return zkd_stop(&d, 1);
    state_boot(&d);                     /* what a killed predecessor left behind */
    if (hooks_start(&d) != 0 || http_start(&d) != 0 || zkd_open(&d) != 0 ||
        zkd_group_open(&d) != 0)
        return zkd_stop(&d, 1);
    state_session(&d);                  /* the first +connected came before d.h */
    if ((rc = zkd_join(&d, &set)) != 0)
        return zkd_stop(&d, rc == 1 ? 1 : 0);
    if (health_start(&d) != 0)
        return zkd_stop(&d, 1);
    log_notice("joined %s as %s (site '%s', priority %d, %seligible)", d.boot.path,
        d.boot.node_id, d.boot.site, d.boot.priority, d.boot.eligible ? "" : "not ");
    ready(0);
    sdnotify_ready(&d);                 /* Type=notify: the unit is started */
    if (reload_pending)
        reload(&d);
    return zkd_stop(&d, zkd_run(&d, &set));
}
