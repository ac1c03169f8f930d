/*
 * zk-local.c - run local ZooKeeper servers (standalone or an ensemble) for
 * manual tests, scripts and the demo, on top of the test harness.
 *
 * It prints "zk-local: serving at HOSTS", then answers commands read one per
 * line on stdin (or only waits for a signal), and stops every server on every
 * way out: EOF, "stop", SIGINT, SIGTERM, SIGHUP, a failure; if it is killed
 * with SIGKILL the servers die with it (PR_SET_PDEATHSIG).
 */
#include "config.h"

#include <sys/signalfd.h>
#include <sys/stat.h>

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "zkharness.h"

#define ZL_LINE_MAX 1024 /* longest command line */

static const char zl_usage[] =
"usage: zk-local [-v] [-n N] [-t TICK_MS] [-m MAX_SESSION_MS] [--hosts-file FILE]\n"
"                [--dir DIR] [--super-digest super:DIGEST] [--timeout MS] [--no-stdin]\n"
"\n"
"Start N local ZooKeeper servers (default 1: standalone; 3, 5, ...: an ensemble)\n"
"on free ports of 127.0.0.1, print \"zk-local: serving at HOSTS\" on stdout, and\n"
"keep them running until stdin ends, the command \"stop\", or SIGINT/SIGTERM/SIGHUP.\n"
"Every server is stopped on every way out (even SIGKILL of zk-local kills them).\n"
"\n"
"  -n, --servers N          number of servers, odd (default 1)\n"
"  -t, --tick MS            tickTime (default 200: sessions of 400..MAX_SESSION_MS)\n"
"  -m, --max-session MS     maxSessionTimeout (default 20000)\n"
"      --hosts-file FILE    also write HOSTS to FILE (atomically; removed at exit)\n"
"      --dir DIR            keep the servers' files in DIR/sI (default: a new\n"
"                           $TMPDIR/zkh.XXXXXX, removed at exit; ZKH_KEEP=1 keeps it)\n"
"      --super-digest D     DigestAuthenticationProvider.superDigest=D\n"
"      --timeout MS         start timeout per server (default 60000)\n"
"      --no-stdin           do not read commands; serve until a signal\n"
"  -v, --verbose            server logs at INFO in DIR/sI/server.log (else WARN)\n"
"  -h, --help               this text\n"
"\n"
"Commands, one per line on stdin; each gets one answer line, \"ok ...\" or\n"
"\"error: ...\". I is a server index from 0 to N-1.\n"
"  hosts          the connection string\n"
"  status         every server: I=serving:PID, I=not-serving:PID, I=no-answer:PID\n"
"                 (paused or hung) or I=down\n"
"  kill I         SIGKILL server I        term I     SIGTERM server I\n"
"  pause I        SIGSTOP server I        resume I   SIGCONT server I\n"
"  restart I      start server I again (same port and data); waits until it serves\n"
"                 when a quorum of servers will be running\n"
"  wait I         wait until server I serves (up to the start timeout)\n"
"  mntr I         server I's mntr output as key=value pairs\n"
"  stop           stop every server and exit\n"
"Empty lines and lines starting with # are ignored. Without a usable stdin\n"
"(--no-stdin, /dev/null, closed, or a background job of a terminal) zk-local\n"
"serves until a signal. To drive it from a script, keep a FIFO open for writing:\n"
"  mkfifo ctl; zk-local --hosts-file hosts <ctl >out & exec 3>ctl\n"
"  echo 'kill 0' >&3; ...; exec 3>&-      (EOF: zk-local stops the servers)\n"
"\n"
"Environment: JAVA (java binary), TMPDIR, ZKH_KEEP=1, ZKH_NO_CDS=1.\n";

struct zl {
    struct zkh *z;           /* the servers; owned */
    struct zkh_opts opts;    /* as parsed */
    const char *hosts_file;  /* argv string or NULL */
    int start_timeout_ms;    /* for "wait" */
    int quit;                /* leave the command loop */
};

static int
zl_number(const char *s, const char *what, int min, int max, int *out)
{
    char *end;
    long v;

    errno = 0;
    v = strtol(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || v < min || v > max) {
        fprintf(stderr, "zk-local: bad %s '%s' (%d..%d)\n", what, s, min, max);
        return -1;
    }
    *out = (int)v;
    return 0;
}

/* Write HOSTS to path atomically: a temp file in the same directory, renamed. */
static int
zl_write_hosts(const char *path, const char *hosts)
{
    char tmp[PATH_MAX];
    FILE *f;
    int n;

    n = snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    if (n < 0 || (size_t)n >= sizeof tmp) {
        errno = ENAMETOOLONG;
        return -1;
    }
    f = fopen(tmp, "w");
    if (f == NULL)
        return -1;
    fprintf(f, "%s\n", hosts);
    if (fclose(f) != 0 || rename(tmp, path) == -1) {
        n = errno;
        unlink(tmp);
        errno = n;
        return -1;
    }
    return 0;
}

/* 0 when stdin cannot carry commands: closed, /dev/null, or a terminal we are in the background of. */
static int
zl_stdin_usable(void)
{
    struct stat st, nst;
    pid_t fg;

    if (fstat(STDIN_FILENO, &st) == -1)
        return 0;
    if (S_ISCHR(st.st_mode) && stat("/dev/null", &nst) == 0 && st.st_rdev == nst.st_rdev)
        return 0;
    if (isatty(STDIN_FILENO)) {
        fg = tcgetpgrp(STDIN_FILENO);
        if (fg != -1 && fg != getpgrp())
            return 0;
    }
    return 1;
}

static void __attribute__((format(printf, 1, 2)))
zl_reply(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
    fflush(stdout); /* a reader gone (EPIPE, SIGPIPE ignored) is not our problem */
}

/* Parse the server index argument; replies and returns -1 when it is bad. */
static int
zl_index(struct zl *zl, const char *cmd, const char *arg, int *i)
{
    char *end;
    long v;

    if (arg == NULL) {
        zl_reply("error: %s needs a server index (0..%d)", cmd, zkh_nservers(zl->z) - 1);
        return -1;
    }
    errno = 0;
    v = strtol(arg, &end, 10);
    if (errno != 0 || end == arg || *end != '\0' || v < 0 || v >= zkh_nservers(zl->z)) {
        zl_reply("error: bad server index '%s' (0..%d)", arg, zkh_nservers(zl->z) - 1);
        return -1;
    }
    *i = (int)v;
    return 0;
}

static void
zl_cmd_mntr(struct zl *zl, int i)
{
    char buf[65536], out[65536], *line, *save = NULL, *tab, *p;
    size_t off = 0;
    int n;

    if (zkh_4lw(zl->z, i, "mntr", buf, sizeof buf) <= 0) {
        zl_reply("error: mntr %d: %s", i, strerror(errno != 0 ? errno : EIO));
        return;
    }
    out[0] = '\0';
    for (line = strtok_r(buf, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save)) {
        tab = strchr(line, '\t');
        if (tab == NULL)
            continue;
        *tab = '=';
        for (p = tab + 1; *p != '\0'; p++)
            if (*p == ' ' || *p == '\t' || *p == '\r')
                *p = '_'; /* one line of space-separated key=value pairs */
        n = snprintf(out + off, sizeof out - off, "%s%s", off > 0 ? " " : "", line);
        if (n < 0 || (size_t)n >= sizeof out - off)
            break;
        off += (size_t)n;
    }
    zl_reply("ok %s", out);
}

static void
zl_cmd_status(struct zl *zl)
{
    char out[1024], buf[2048];
    size_t off = 0;
    pid_t pid;
    int i, n, state;

    out[0] = '\0';
    for (i = 0; i < zkh_nservers(zl->z); i++) {
        pid = zkh_pid(zl->z, i);
        if (pid <= 0) {
            n = snprintf(out + off, sizeof out - off, "%s%d=down", i ? " " : "", i);
        } else {
            state = zkh_4lw_timeout(zl->z, i, "srvr", buf, sizeof buf, 1000);
            n = snprintf(out + off, sizeof out - off, "%s%d=%s:%ld", i ? " " : "", i,
                state > 0 && strstr(buf, "\nMode: ") != NULL ? "serving"
                : state == -1 && errno == ETIMEDOUT ? "no-answer" : "not-serving",
                (long)pid);
        }
        if (n < 0 || (size_t)n >= sizeof out - off)
            break;
        off += (size_t)n;
    }
    zl_reply("ok %s", out);
}

static void
zl_cmd_restart(struct zl *zl, int i)
{
    int n = zkh_nservers(zl->z), alive = 1, k, wait;

    for (k = 0; k < n; k++)
        if (k != i && zkh_pid(zl->z, k) > 0)
            alive++;
    wait = alive > n / 2; /* without a quorum it cannot serve: do not hang */
    if (zkh_restart(zl->z, i, wait) == -1) {
        zl_reply("error: restart %d: %s", i, strerror(errno));
        return;
    }
    zl_reply("ok restarted %d pid %ld%s", i, (long)zkh_pid(zl->z, i),
        wait ? " serving" : " (not waiting: no quorum yet)");
}

static void
zl_command(struct zl *zl, char *line)
{
    char *save = NULL, *cmd, *arg, *extra;
    int i;

    cmd = strtok_r(line, " \t\r", &save);
    if (cmd == NULL || cmd[0] == '#')
        return;
    arg = strtok_r(NULL, " \t\r", &save);
    extra = strtok_r(NULL, " \t\r", &save);
    if (extra != NULL) {
        zl_reply("error: too many arguments to %s", cmd);
        return;
    }
    if (strcmp(cmd, "hosts") == 0 || strcmp(cmd, "status") == 0 || strcmp(cmd, "stop") == 0) {
        if (arg != NULL) {
            zl_reply("error: %s takes no argument", cmd);
            return;
        }
        if (strcmp(cmd, "hosts") == 0) {
            zl_reply("ok %s", zkh_hosts(zl->z));
        } else if (strcmp(cmd, "status") == 0) {
            zl_cmd_status(zl);
        } else {
            zl_reply("ok stopping");
            zl->quit = 1;
        }
        return;
    }
    if (strcmp(cmd, "kill") != 0 && strcmp(cmd, "term") != 0 && strcmp(cmd, "pause") != 0
        && strcmp(cmd, "resume") != 0 && strcmp(cmd, "restart") != 0
        && strcmp(cmd, "wait") != 0 && strcmp(cmd, "mntr") != 0) {
        zl_reply("error: unknown command '%s' (see zk-local --help)", cmd);
        return;
    }
    if (zl_index(zl, cmd, arg, &i) == -1)
        return;
    if (strcmp(cmd, "kill") == 0) {
        if (zkh_kill(zl->z, i) == -1)
            zl_reply("error: kill %d: %s", i, errno == ESRCH ? "not running" : strerror(errno));
        else
            zl_reply("ok killed %d", i);
    } else if (strcmp(cmd, "term") == 0) {
        if (zkh_terminate(zl->z, i) == -1)
            zl_reply("error: term %d: %s", i, errno == ESRCH ? "not running" : strerror(errno));
        else
            zl_reply("ok terminated %d", i);
    } else if (strcmp(cmd, "pause") == 0) {
        if (zkh_pause(zl->z, i) == -1)
            zl_reply("error: pause %d: %s", i, errno == ESRCH ? "not running" : strerror(errno));
        else
            zl_reply("ok paused %d", i);
    } else if (strcmp(cmd, "resume") == 0) {
        if (zkh_resume(zl->z, i) == -1)
            zl_reply("error: resume %d: %s", i, errno == ESRCH ? "not running" : strerror(errno));
        else
            zl_reply("ok resumed %d", i);
    } else if (strcmp(cmd, "restart") == 0) {
        zl_cmd_restart(zl, i);
    } else if (strcmp(cmd, "wait") == 0) {
        if (zkh_wait_serving(zl->z, i, zl->start_timeout_ms) == -1)
            zl_reply("error: server %d not serving: %s", i,
                errno == ETIMEDOUT ? "timed out" : "not running");
        else
            zl_reply("ok serving %d", i);
    } else {
        zl_cmd_mntr(zl, i);
    }
}

/* Read commands from stdin until EOF, "stop" or a signal on sigfd. */
static void
zl_loop(struct zl *zl, int sigfd, int use_stdin)
{
    char buf[ZL_LINE_MAX + 1], *nl, *p;
    struct signalfd_siginfo si;
    struct pollfd pfd[2];
    size_t len = 0;
    ssize_t n;
    int skipping = 0; /* discarding the rest of a too long line */

    while (!zl->quit) {
        pfd[0].fd = sigfd;
        pfd[0].events = POLLIN;
        pfd[1].fd = use_stdin ? STDIN_FILENO : -1;
        pfd[1].events = POLLIN;
        pfd[0].revents = pfd[1].revents = 0;
        if (poll(pfd, 2, -1) == -1) {
            if (errno == EINTR)
                continue;
            fprintf(stderr, "zk-local: poll: %s\n", strerror(errno));
            return;
        }
        if (pfd[0].revents & POLLIN) {
            if (read(sigfd, &si, sizeof si) == (ssize_t)sizeof si)
                fprintf(stderr, "zk-local: %s: stopping\n", strsignal((int)si.ssi_signo));
            return;
        }
        if (!(pfd[1].revents & (POLLIN | POLLHUP | POLLERR)))
            continue;
        n = read(STDIN_FILENO, buf + len, sizeof buf - 1 - len);
        if (n == -1 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (n <= 0) {
            if (len > 0 && !skipping) { /* a last line without newline */
                buf[len] = '\0';
                zl_command(zl, buf);
            }
            return; /* EOF (or an error): stop */
        }
        len += (size_t)n;
        buf[len] = '\0';
        p = buf;
        while (!zl->quit && (nl = memchr(p, '\n', len - (size_t)(p - buf))) != NULL) {
            *nl = '\0';
            if (skipping)
                skipping = 0;
            else
                zl_command(zl, p);
            p = nl + 1;
        }
        len -= (size_t)(p - buf);
        memmove(buf, p, len);
        if (len == sizeof buf - 1) {
            zl_reply("error: line longer than %d bytes", ZL_LINE_MAX);
            skipping = 1;
            len = 0;
        }
    }
}

int
main(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "servers", required_argument, NULL, 'n' },
        { "tick", required_argument, NULL, 't' },
        { "max-session", required_argument, NULL, 'm' },
        { "hosts-file", required_argument, NULL, 'H' },
        { "dir", required_argument, NULL, 'd' },
        { "super-digest", required_argument, NULL, 's' },
        { "timeout", required_argument, NULL, 'T' },
        { "no-stdin", no_argument, NULL, 'N' },
        { "verbose", no_argument, NULL, 'v' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 }
    };
    struct sigaction old;
    struct zl zl;
    sigset_t set;
    int c, sigfd, no_stdin = 0, use_stdin, status = 0;

    memset(&zl, 0, sizeof zl);
    zkh_opts_init(&zl.opts);
    while ((c = getopt_long(argc, argv, "n:t:m:vh", longopts, NULL)) != -1) {
        switch (c) {
        case 'n':
            if (zl_number(optarg, "server count", 1, ZKH_MAX_SERVERS, &zl.opts.nservers) == -1)
                return 2;
            if (zl.opts.nservers % 2 == 0) {
                fprintf(stderr, "zk-local: the server count must be odd\n");
                return 2;
            }
            break;
        case 't':
            if (zl_number(optarg, "tick", 1, 60000, &zl.opts.tick_ms) == -1)
                return 2;
            break;
        case 'm':
            if (zl_number(optarg, "max session", 1, INT_MAX, &zl.opts.max_session_ms) == -1)
                return 2;
            break;
        case 'T':
            if (zl_number(optarg, "timeout", 1, INT_MAX, &zl.opts.start_timeout_ms) == -1)
                return 2;
            break;
        case 'H':
            zl.hosts_file = optarg;
            break;
        case 'd':
            zl.opts.basedir = optarg;
            break;
        case 's':
            zl.opts.super_digest = optarg;
            break;
        case 'N':
            no_stdin = 1;
            break;
        case 'v':
            zl.opts.verbose = 1;
            break;
        case 'h':
            fputs(zl_usage, stdout);
            return 0;
        default:
            fputs(zl_usage, stderr);
            return 2;
        }
    }
    if (optind != argc) {
        fprintf(stderr, "zk-local: unexpected argument '%s'\n", argv[optind]);
        fputs(zl_usage, stderr);
        return 2;
    }
    zl.start_timeout_ms = zl.opts.start_timeout_ms;
    signal(SIGPIPE, SIG_IGN);

    /* the signals that end us; SIGHUP only if nohup did not ignore it */
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    if (sigaction(SIGHUP, NULL, &old) == 0 && old.sa_handler != SIG_IGN)
        sigaddset(&set, SIGHUP);

    /* during the start the harness's own handlers stop the servers on a signal */
    if (zkh_start(&zl.opts, &zl.z) == -1) {
        fprintf(stderr, "zk-local: cannot start ZooKeeper\n");
        return 1;
    }
    if (sigprocmask(SIG_BLOCK, &set, NULL) == -1
        || (sigfd = signalfd(-1, &set, SFD_CLOEXEC)) == -1) {
        fprintf(stderr, "zk-local: signalfd: %s\n", strerror(errno));
        zkh_stop(zl.z);
        return 1;
    }
    if (zl.hosts_file != NULL && zl_write_hosts(zl.hosts_file, zkh_hosts(zl.z)) == -1) {
        fprintf(stderr, "zk-local: cannot write %s: %s\n", zl.hosts_file, strerror(errno));
        zkh_stop(zl.z);
        return 1;
    }
    /* say how to stop it before saying it serves: whoever waits for the
       "serving" line may signal it at once */
    use_stdin = !no_stdin && zl_stdin_usable();
    if (!use_stdin)
        fprintf(stderr, "zk-local: not reading commands; stop with SIGINT or SIGTERM (pid %ld)\n",
            (long)getpid());
    printf("zk-local: serving at %s\n", zkh_hosts(zl.z));
    fflush(stdout);
    zl_loop(&zl, sigfd, use_stdin);

    if (zl.hosts_file != NULL && unlink(zl.hosts_file) == -1 && errno != ENOENT)
        status = 1;
    zkh_stop(zl.z);
    close(sigfd);
    fprintf(stderr, "zk-local: stopped\n");
    return status;
}
