/*
 * child.c - child-process helpers shared by zkelectd (proc.c) and
 * `zkelect run`: a child's environment, process-group signals, $PATH
 * lookup, and child_start_leashed(): the program runs under a leash, a small
 * process of ours that leads its process group and kills the whole group when
 * we die (PR_SET_PDEATHSIG alone reaches only the program, not what it
 * forks); the program's pid, or what failed, comes back through a
 * close-on-exec pipe.
 */
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "child.h"

extern char **environ;

char **
child_envp(const char *const env[])
{
    size_t n = 0, m = 0, i, j, o = 0;
    char **envp;
    const char *eq;

    while (environ != NULL && environ[n] != NULL)
        n++;
    while (env != NULL && env[m] != NULL)
        m++;
    if ((envp = calloc(n + m + 1, sizeof(*envp))) == NULL)
        return NULL;
    for (i = 0; i < n; i++) {
        if (strncmp(environ[i], "ZKELECT_AUTH=", 13) == 0 ||
            strncmp(environ[i], "NOTIFY_SOCKET=", 14) == 0)
            continue;
        for (j = 0; j < m; j++) {
            eq = strchr(env[j], '=');
            if (eq != NULL && strncmp(environ[i], env[j], (size_t)(eq - env[j]) + 1) == 0)
                break;
        }
        if (j == m)
            envp[o++] = environ[i];
    }
    for (j = 0; j < m; j++)
        envp[o++] = (char *)env[j];
    envp[o] = NULL;
    return envp;
}

void
child_signal_group(pid_t pid, int sig)
{
    if (kill(-pid, sig) == -1 && errno == ESRCH)
        (void)kill(pid, sig);
}

/* A regular file we may execute: 0, or EACCES / ENOENT. */
static int
child_exec_ok(const char *path)
{
    struct stat st;

    if (stat(path, &st) == -1)
        return errno == EACCES ? EACCES : ENOENT;
    if (!S_ISREG(st.st_mode) || access(path, X_OK) == -1)
        return EACCES;
    return 0;
}

int
child_which(const char *name, char *out, size_t outlen)
{
    const char *path, *p, *colon;
    size_t dlen, nlen = strlen(name);
    int rc, seen_eacces = 0;

    if (nlen == 0)
        return ENOENT;
    if (strchr(name, '/') != NULL) {
        if (nlen >= outlen)
            return ENAMETOOLONG;
        memcpy(out, name, nlen + 1);
        return child_exec_ok(out);
    }
    path = getenv("PATH");
    if (path == NULL || *path == '\0')
        path = "/bin:/usr/bin";
    for (p = path;; p = colon + 1) {
        colon = strchr(p, ':');
        dlen = colon != NULL ? (size_t)(colon - p) : strlen(p);
        if (dlen == 0) {                /* an empty entry is the current directory */
            p = ".";
            dlen = 1;
        }
        if (dlen + 1 + nlen < outlen) {
            memcpy(out, p, dlen);
            out[dlen] = '/';
            memcpy(out + dlen + 1, name, nlen + 1);
            if ((rc = child_exec_ok(out)) == 0)
                return 0;
            if (rc == EACCES)
                seen_eacces = 1;
        }
        if (colon == NULL)
            break;
    }
    return seen_eacces ? EACCES : ENOENT;
}

/* What the leash and the program report to the parent through the pipe. */
struct leash_msg {
    int kind;                           /* LEASH_PID or LEASH_ERRNO */
    int value;
};
#define LEASH_KILL_SIG SIGRTMAX        /* the leash's PR_SET_PDEATHSIG; also sent by
                                           child_kill_leashed() */
#define LEASH_PID   1                   /* the program's pid, before its exec */
#define LEASH_ERRNO 2                   /* what failed: the exec, or the leash's setup */

static void
leash_report(int fd, int kind, int value)
{
    struct leash_msg m = { kind, value };
    ssize_t n = write(fd, &m, sizeof(m));   /* under PIPE_BUF: one piece */

    (void)n;
}

/* Close every descriptor from lo to hi: close_range(), or one by one where
   it fails (Linux < 5.9, a seccomp profile that refuses it), up to 4095. */
static void
leash_close_range(unsigned lo, unsigned hi)
{
    unsigned fd;

    if (lo > hi || close_range(lo, hi, 0) == 0)
        return;
    for (fd = lo; fd <= hi && fd < 4096; fd++)
        (void)close((int)fd);
}

/* The program, in the leash's child: dies with the leash, signals and mask
   reset, descriptors set, exec. Async-signal-safe calls only. */
static void __attribute__((noreturn))
leash_exec_program(const char *path, char *const argv[], char *const envp[], int in_fd,
    int out_fd, int rfd, pid_t leash)
{
    struct sigaction dfl;
    sigset_t none;
    int s, err;

    if (prctl(PR_SET_PDEATHSIG, SIGKILL) == -1) {
        err = errno;
        goto fail;
    }
    if (getppid() != leash)             /* the leash died before the prctl */
        _exit(127);
    memset(&dfl, 0, sizeof(dfl));
    dfl.sa_handler = SIG_DFL;
    for (s = 1; s < NSIG; s++)
        if (s != SIGKILL && s != SIGSTOP)
            (void)sigaction(s, &dfl, NULL);
    leash_report(rfd, LEASH_PID, (int)getpid());
    if ((in_fd >= 0 && in_fd != 0 && dup2(in_fd, 0) == -1) ||
        (out_fd >= 0 && out_fd != 1 && dup2(out_fd, 1) == -1)) {
        err = errno;
        goto fail;
    }
    if (rfd > 3)
        leash_close_range(3, (unsigned)rfd - 1);
    leash_close_range((unsigned)rfd + 1, ~0U);
    sigemptyset(&none);
    (void)sigprocmask(SIG_SETMASK, &none, NULL);
    execve(path, argv, envp);
    err = errno;
fail:
    leash_report(rfd, LEASH_ERRNO, err);
    _exit(127);
}

/* The leash's own way out: the program's wait status, as its own. */
static void __attribute__((noreturn))
leash_exit_as(int status)
{
    struct sigaction dfl;
    sigset_t one;
    int s;

    if (WIFSIGNALED(status)) {
        s = WTERMSIG(status);
        memset(&dfl, 0, sizeof(dfl));
        dfl.sa_handler = SIG_DFL;
        {
            /* the program's core, not ours (a copy of the parent's memory) */
            struct rlimit none = { 0, 0 };

            (void)setrlimit(RLIMIT_CORE, &none);
            (void)prctl(PR_SET_DUMPABLE, 0);
        }
        (void)sigaction(s, &dfl, NULL);
        sigemptyset(&one);
        sigaddset(&one, s);
        (void)sigprocmask(SIG_UNBLOCK, &one, NULL);
        (void)kill(getpid(), s);
        _exit(128 + s);                 /* a signal that does not terminate */
    }
    _exit(WIFEXITED(status) ? WEXITSTATUS(status) : 127);
}

/* The pids a SIGTERM was passed on to (the leash's unreaped children, so
   none can be reused while listed). */
struct leash_sent {
    pid_t pid[64];
    int n;
};

static int
leash_sent_has(const struct leash_sent *sent, pid_t pid)
{
    int i;

    for (i = 0; sent != NULL && i < sent->n; i++)
        if (sent->pid[i] == pid)
            return 1;
    return 0;
}

/* Send sig to the leash's child pid unless it is to be left out: one in
   the leash's group (self) when not all, or one already in sent (which it
   joins). 1 when signalled. */
static int
leash_signal_child(pid_t self, pid_t pid, int sig, int all, struct leash_sent *sent)
{
    if (pid <= 0 || (!all && getpgid(pid) == self) || leash_sent_has(sent, pid) ||
        kill(pid, sig) != 0)
        return 0;
    if (sent != NULL && sent->n < (int)(sizeof(sent->pid) / sizeof(sent->pid[0])))
        sent->pid[sent->n++] = pid;
    return 1;
}

/* Send sig to each child of the leash self (a single-threaded process, so
   its task is itself): every child (all), or the strays only, the children
   outside its process group (processes that left it, setsid, and were
   reparented to the leash, their subreaper); with sent, only those not in
   it, which are added. Reads /proc/self/task/SELF/children with open/read
   (async-signal-safe). The number signalled; 0 when there is none, or no
   such file (a kernel without CONFIG_PROC_CHILDREN: strays are then not
   reached). */
static int
leash_signal_children(pid_t self, int sig, int all, struct leash_sent *sent)
{
    char path[64] = "/proc/self/task/", digits[16], buf[4096];
    size_t k = strlen(path);
    int fd, nd = 0, count = 0, in_num = 0;
    long v = (long)self, pid = 0;
    ssize_t n, i;

    do
        digits[nd++] = (char)('0' + v % 10);
    while ((v /= 10) > 0);
    while (nd > 0)
        path[k++] = digits[--nd];
    memcpy(path + k, "/children", sizeof("/children"));
    if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
        return 0;
    /* "PID PID ... ": a number may go on in the next read */
    while ((n = read(fd, buf, sizeof(buf))) > 0 || (n == -1 && errno == EINTR)) {
        for (i = 0; i < n; i++) {
            if (buf[i] >= '0' && buf[i] <= '9') {
                pid = pid * 10 + (buf[i] - '0');
                in_num = 1;
            } else if (in_num) {
                count += leash_signal_child(self, (pid_t)pid, sig, all, sent);
                pid = 0;
                in_num = 0;
            }
        }
    }
    if (in_num)
        count += leash_signal_child(self, (pid_t)pid, sig, all, sent);
    close(fd);
    return count;
}

/* SIGKILL to every child of the leash, again as they die and what they
   leave behind becomes the leash's (a child killed is reaped here; until
   then kill() still finds it): at most 200 rounds of 1 ms. Then only the
   group's members that are nobody's orphans yet are left. */
static void
leash_kill_children(pid_t self)
{
    struct timespec ms = { 0, 1000000L };
    int round, st;

    for (round = 0; round < 200; round++) {
        if (leash_signal_children(self, SIGKILL, 1, NULL) == 0)
            break;
        (void)nanosleep(&ms, NULL);
        while (waitpid(-1, &st, WNOHANG) > 0)
            ;
    }
}

/* Everything: the leash's children (the program, the strays, what they
   leave behind), then the group, ourselves included. */
static void __attribute__((noreturn))
leash_kill_all(pid_t self)
{
    leash_kill_children(self);
    (void)kill(0, SIGKILL);
    _exit(128 + SIGKILL);
}

/* The leash: leader of the program's process group, between the parent and
   the program, and a child subreaper. All signals blocked; it waits for
   three:
   - SIGTERM (the group's, the stop: the program has it too): passed on to
     the strays, and to each one that becomes a stray later, as its parent
     dies of it;
   - SIGCHLD: once the program has ended, and every process it left behind
     (reparented to the leash) too, exit with the program's status. The
     leftovers are waited for after a SIGTERM, and when the program exited
     0 (a service that daemonized, or forked and left). A program that
     failed by itself (a status other than 0, or a signal) has ended: the
     leash kills its leftovers at once and exits, so that the parent learns
     of the failure now;
   - death_sig, its PR_SET_PDEATHSIG (the parent, or the thread that forked
     it, is gone) or the parent's child_kill_leashed(): SIGKILL to its
     children, as they die to theirs, then to the whole group, itself
     included.
   Async-signal-safe calls only. */
static void __attribute__((noreturn))
leash_run(const char *path, char *const argv[], char *const envp[], int in_fd, int out_fd,
    int rfd, pid_t parent, int death_sig)
{
    struct sigaction dfl;
    sigset_t all, wanted;
    siginfo_t si;
    struct timespec zero = { 0, 0 };
    struct leash_sent sent = { .n = 0 };
    sigset_t term;
    pid_t self, prog, w;
    int err, st, prog_st = 0, prog_done = 0, term_seen = 0, gone;

    sigfillset(&all);
    (void)sigprocmask(SIG_SETMASK, &all, NULL);
    memset(&dfl, 0, sizeof(dfl));
    dfl.sa_handler = SIG_DFL;
    (void)sigaction(SIGCHLD, &dfl, NULL);   /* not SIG_IGN: the program must be waited for */
    if (prctl(PR_SET_PDEATHSIG, death_sig) == -1) {
        err = errno;
        goto fail;
    }
    if (getppid() != parent)            /* the parent died before the prctl */
        _exit(127);
    if (setpgid(0, 0) == -1 || prctl(PR_SET_CHILD_SUBREAPER, 1) == -1) {
        err = errno;
        goto fail;
    }
    self = getpid();
    prog = fork();
    if (prog == -1) {
        err = errno;
        goto fail;
    }
    if (prog == 0)
        leash_exec_program(path, argv, envp, in_fd, out_fd, rfd, self);
    /* nothing of the parent's stays open here: the pipe's end-of-file tells
       the parent the program was executed */
    (void)close(rfd);
    leash_close_range(0, ~0U);
    sigemptyset(&wanted);
    sigaddset(&wanted, SIGCHLD);
    sigaddset(&wanted, SIGTERM);
    sigaddset(&wanted, death_sig);
    sigemptyset(&term);
    sigaddset(&term, SIGTERM);
    for (;;) {
        if (sigwaitinfo(&wanted, &si) == -1)
            continue;                   /* EINTR */
        if (si.si_signo == death_sig)
            leash_kill_all(self);
        if (si.si_signo == SIGTERM)
            term_seen = 1;
        /* the program, and what it started and left behind (reparented to
           us, a subreaper) */
        for (;;) {
            w = waitpid(-1, &st, WNOHANG);
            if (w > 0) {
                if (w == prog) {
                    prog_st = st;
                    prog_done = 1;
                }
                continue;
            }
            if (w == -1 && errno == EINTR)
                continue;
            break;
        }
        gone = w == -1 && errno == ECHILD;
        if (prog_done && gone)
            leash_exit_as(prog_st);
        /* a stop's SIGTERM may be pending behind the SIGCHLD of the
           program it ended */
        if (!term_seen && prog_done && sigtimedwait(&term, &si, &zero) == SIGTERM)
            term_seen = 1;
        if (term_seen) {
            (void)leash_signal_children(self, SIGTERM, 0, &sent);
            continue;
        }
        if (prog_done && !(WIFEXITED(prog_st) && WEXITSTATUS(prog_st) == 0)) {
            leash_kill_children(self);
            leash_exit_as(prog_st);
        }
    }
fail:
    leash_report(rfd, LEASH_ERRNO, err);
    _exit(127);
}

void
child_kill_leashed(pid_t pid)
{
    (void)kill(pid, LEASH_KILL_SIG);
}

int
child_start_leashed(const char *path, char *const argv[], char *const envp[], int in_fd,
    int out_fd, pid_t *pid, pid_t *prog)
{
    struct leash_msg m;
    pid_t parent = getpid(), child, w, program = 0;
    int pfd[2], err = 0, wfd, death_sig = LEASH_KILL_SIG;
    ssize_t n;

    /* the program's pid, or what failed, comes back through a close-on-exec
       pipe; its write end above 2, so that dup2 onto 0/1 cannot hit it */
    if (pipe2(pfd, O_CLOEXEC) == -1)
        return errno;
    if (pfd[1] <= 2) {
        wfd = fcntl(pfd[1], F_DUPFD_CLOEXEC, 3);
        close(pfd[1]);
        if (wfd == -1) {
            err = errno;
            close(pfd[0]);
            return err;
        }
        pfd[1] = wfd;
    }

    child = fork();
    if (child == -1) {
        err = errno;
        close(pfd[0]);
        close(pfd[1]);
        return err;
    }
    if (child == 0) {
        close(pfd[0]);
        leash_run(path, argv, envp, in_fd, out_fd, pfd[1], parent, death_sig);
    }
    close(pfd[1]);
    for (;;) {
        n = read(pfd[0], &m, sizeof(m));
        if (n == -1 && errno == EINTR)
            continue;
        if (n != (ssize_t)sizeof(m))
            break;                      /* end of file: executed, or the leash died */
        if (m.kind == LEASH_PID)
            program = (pid_t)m.value;
        else if (m.kind == LEASH_ERRNO)
            err = m.value != 0 ? m.value : EIO;
    }
    close(pfd[0]);
    if (err != 0 || program == 0) {
        do
            w = waitpid(child, NULL, 0);
        while (w == -1 && errno == EINTR);
        return err != 0 ? err : EIO;
    }
    *pid = child;
    if (prog != NULL)
        *prog = program;
    return 0;
}
