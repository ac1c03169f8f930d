/*
 * test_proc.c - unit tests of zkelectd's program runner (src/daemon/proc.c):
 * exit status, the environment, stderr tail, timeout (SIGTERM to the whole
 * process group, SIGKILL after the grace period), cancel, spawn errors, the
 * child's signal mask and descriptors.
 *
 * Also child_start_leashed() (src/daemon/child.c), the leash of the leader
 * command and of `zkelect run`: the program's status as the leash's, its
 * pid, exec errors, the wait for what the program left behind, and the kill
 * of the whole group when the parent dies.
 *
 * Real processes (/bin/sh), no ZooKeeper. Every wait is bounded by the
 * runner's own timeout; grandchildren are looked for with kill(pid, 0) in a
 * polled loop with a deadline.
 */
#include <sys/eventfd.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "child.h"
#include "cutest.h"
#include "proc.h"

static char tmpdir[PATH_MAX];

static int
suite_init(void)
{
    const char *t = getenv("TMPDIR");

    snprintf(tmpdir, sizeof(tmpdir), "%s/zkd-proc-XXXXXX", t != NULL && *t ? t : "/tmp");
    return mkdtemp(tmpdir) == NULL ? -1 : 0;
}

static int
suite_clean(void)
{
    char cmd[PATH_MAX + 16];

    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

/* Run /bin/sh -c script. */
static int
sh(const char *script, const char *const env[], int timeout_ms, const int *cancel,
    int ncancel, struct proc_result *r)
{
    const char *argv[] = { "/bin/sh", "-c", script, NULL };

    return proc_run(argv, env, timeout_ms, cancel, ncancel, r);
}

/* Read a small file into buf; "" when missing. */
static const char *
slurp(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "r");
    size_t n = 0;

    if (f != NULL) {
        n = fread(buf, 1, len - 1, f);
        fclose(f);
    }
    buf[n] = '\0';
    return buf;
}

/* Wait up to ms for pid to be gone (or a zombie). */
static int
gone_within(pid_t pid, int ms)
{
    char path[64], buf[256], *p;
    uint64_t end = proc_now_ms() + (uint64_t)ms;
    struct timespec ts = { 0, 20 * 1000000L };

    for (;;) {
        if (kill(pid, 0) == -1 && errno == ESRCH)
            return 1;
        snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
        slurp(path, buf, sizeof(buf));
        if ((p = strrchr(buf, ')')) != NULL && p[1] == ' ' && p[2] == 'Z')
            return 1;
        if (proc_now_ms() >= end)
            return 0;
        nanosleep(&ts, NULL);
    }
}

static void
test_exit_status(void)
{
    struct proc_result r;

    CU_ASSERT_EQUAL(sh("exit 0", NULL, 5000, NULL, 0, &r), 0);
    CU_ASSERT(r.started);
    CU_ASSERT(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0);
    CU_ASSERT_EQUAL(sh("exit 7", NULL, 5000, NULL, 0, &r), -1);
    CU_ASSERT(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 7);
    CU_ASSERT(!r.timed_out && !r.canceled);
    CU_ASSERT_EQUAL(sh("kill -9 $$", NULL, 5000, NULL, 0, &r), -1);
    CU_ASSERT(WIFSIGNALED(r.status) && WTERMSIG(r.status) == SIGKILL);
}

static void
test_describe(void)
{
    struct proc_result r;
    char buf[160];

    sh("exit 3", NULL, 5000, NULL, 0, &r);
    CU_ASSERT_PTR_NOT_NULL(strstr(proc_describe(&r, buf, sizeof(buf)), "exit status 3"));
    sh("kill -TERM $$", NULL, 5000, NULL, 0, &r);
    CU_ASSERT_PTR_NOT_NULL(strstr(proc_describe(&r, buf, sizeof(buf)), "SIGTERM"));
    sh("sleep 5", NULL, 100, NULL, 0, &r);
    CU_ASSERT_PTR_NOT_NULL(strstr(proc_describe(&r, buf, sizeof(buf)), "timed out"));
}

static void
test_environment(void)
{
    const char *env[] = { "ZKD_TEST_A=alpha", "HOME=/replaced", NULL };
    char script[PATH_MAX * 2], path[PATH_MAX], buf[256];
    struct proc_result r;

    setenv("ZKD_TEST_INHERITED", "kept", 1);
    setenv("ZKELECT_AUTH", "user:secret", 1);       /* never passed on */
    snprintf(path, sizeof(path), "%s/env", tmpdir);
    snprintf(script, sizeof(script),
        "echo \"$ZKD_TEST_A $HOME $ZKD_TEST_INHERITED ${ZKELECT_AUTH-unset}\" > '%s'",
        path);
    CU_ASSERT_EQUAL(sh(script, env, 5000, NULL, 0, &r), 0);
    CU_ASSERT_STRING_EQUAL(slurp(path, buf, sizeof(buf)), "alpha /replaced kept unset\n");
    unsetenv("ZKD_TEST_INHERITED");
    unsetenv("ZKELECT_AUTH");
}

static void
test_stderr_tail(void)
{
    struct proc_result r;

    CU_ASSERT_EQUAL(sh("echo out; echo err1 >&2; echo err2 >&2; exit 1", NULL, 5000,
        NULL, 0, &r), -1);
    CU_ASSERT_STRING_EQUAL(r.tail, "err1\nerr2\n");   /* stdout is not kept */
    /* more than PROC_TAIL_MAX bytes: only the end is kept */
    CU_ASSERT_EQUAL(sh("i=0; while [ $i -lt 400 ]; do echo line-$i >&2; i=$((i+1)); done",
        NULL, 10000, NULL, 0, &r), 0);
    CU_ASSERT_EQUAL(r.taillen, PROC_TAIL_MAX);
    CU_ASSERT_EQUAL(strlen(r.tail), PROC_TAIL_MAX);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.tail, "line-399\n"));
    CU_ASSERT_PTR_NULL(strstr(r.tail, "line-1\n"));
}

static void
test_timeout_kills_group(void)
{
    char script[PATH_MAX * 2], path[PATH_MAX], buf[64];
    struct proc_result r;
    uint64_t t0;
    pid_t grandchild;

    /* the hook starts a background grandchild, then hangs */
    snprintf(path, sizeof(path), "%s/grandchild", tmpdir);
    snprintf(script, sizeof(script), "sleep 60 & echo $! > '%s'; sleep 60", path);
    t0 = proc_now_ms();
    CU_ASSERT_EQUAL(sh(script, NULL, 300, NULL, 0, &r), -1);
    CU_ASSERT(r.timed_out);
    CU_ASSERT(proc_now_ms() - t0 < 300 + PROC_GRACE_MS);  /* sh dies on SIGTERM */
    CU_ASSERT(WIFSIGNALED(r.status));
    grandchild = (pid_t)atol(slurp(path, buf, sizeof(buf)));
    CU_ASSERT(grandchild > 0);
    if (grandchild > 0)
        CU_ASSERT(gone_within(grandchild, 3000));
}

static void
test_timeout_sigkill_after_grace(void)
{
    struct proc_result r;
    uint64_t t0;

    /* ignores SIGTERM: SIGKILL after the grace period */
    t0 = proc_now_ms();
    CU_ASSERT_EQUAL(sh("trap '' TERM; while :; do sleep 0.05; done", NULL, 200, NULL, 0,
        &r), -1);
    CU_ASSERT(r.timed_out);
    CU_ASSERT(WIFSIGNALED(r.status) && WTERMSIG(r.status) == SIGKILL);
    CU_ASSERT(proc_now_ms() - t0 >= 200 + PROC_GRACE_MS - 50);
    CU_ASSERT(proc_now_ms() - t0 < 200 + PROC_GRACE_MS + 3000);
}

static void
test_cancel(void)
{
    struct proc_result r;
    uint64_t one = 1, t0;
    int fds[2] = { -1, -1 };

    fds[1] = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    CU_ASSERT_FATAL(fds[1] >= 0);
    /* already readable: the program never starts */
    CU_ASSERT_EQUAL(write(fds[1], &one, sizeof(one)), (ssize_t)sizeof(one));
    CU_ASSERT_EQUAL(sh("exit 0", NULL, 5000, fds, 2, &r), -1);
    CU_ASSERT(r.canceled && !r.started);
    close(fds[1]);

    /* becomes readable while it runs: a child writes it (after fork, the
       eventfd is shared) */
    fds[1] = eventfd(0, EFD_NONBLOCK);
    CU_ASSERT_FATAL(fds[1] >= 0);
    pid_t pid = fork();
    if (pid == 0) {
        struct timespec ts = { 0, 200 * 1000000L };
        nanosleep(&ts, NULL);
        _exit(write(fds[1], &one, sizeof(one)) == sizeof(one) ? 0 : 1);
    }
    t0 = proc_now_ms();
    CU_ASSERT_EQUAL(sh("sleep 30", NULL, 20000, fds, 2, &r), -1);
    CU_ASSERT(r.canceled && r.started && !r.timed_out);
    CU_ASSERT(proc_now_ms() - t0 < 5000);
    waitpid(pid, NULL, 0);
    close(fds[1]);
}

static void
test_spawn_error(void)
{
    const char *argv[] = { "/nonexistent/hook", NULL };
    char path[PATH_MAX];
    struct proc_result r;
    int fd;

    CU_ASSERT_EQUAL(proc_run(argv, NULL, 1000, NULL, 0, &r), -1);
    CU_ASSERT_EQUAL(r.spawn_err, ENOENT);
    CU_ASSERT(!r.started);
    /* not executable */
    snprintf(path, sizeof(path), "%s/noexec", tmpdir);
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    CU_ASSERT_FATAL(fd >= 0);
    close(fd);
    argv[0] = path;
    CU_ASSERT_EQUAL(proc_run(argv, NULL, 1000, NULL, 0, &r), -1);
    CU_ASSERT_EQUAL(r.spawn_err, EACCES);
}

static void
test_child_state(void)
{
    char script[PATH_MAX * 2], path[PATH_MAX], buf[512];
    struct proc_result r;
    sigset_t set, old;
    int fd;

    /* a blocked signal and an inheritable descriptor in the parent */
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &set, &old);
    fd = open("/dev/null", O_RDONLY);               /* no O_CLOEXEC */
    CU_ASSERT_FATAL(fd >= 3);
    snprintf(path, sizeof(path), "%s/state", tmpdir);
    snprintf(script, sizeof(script),
        "{ grep '^SigBlk' /proc/self/status; ls /proc/self/fd | sort -n | tr '\\n' ' '; "
        "echo; cut -d' ' -f5 /proc/$$/stat; echo $$; } > '%s'", path);
    CU_ASSERT_EQUAL(sh(script, NULL, 5000, NULL, 0, &r), 0);
    slurp(path, buf, sizeof(buf));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "SigBlk:\t0000000000000000"));
    /* 0, 1, 2 and the one ls opens for itself: nothing inherited */
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\n0 1 2 3 \n"));
    {
        /* its own process group: pgid == its pid */
        char *nl = strstr(buf, " \n");
        long pgid = 0, spid = -1;
        if (nl != NULL)
            sscanf(nl + 2, "%ld %ld", &pgid, &spid);
        CU_ASSERT(pgid > 0 && pgid == spid);
    }
    close(fd);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* A step-down's stepdown hook gets a shorter grace (proc_run_grace). */
static void
test_timeout_short_grace(void)
{
    const char *argv[] = { "/bin/sh", "-c", "trap '' TERM; while :; do sleep 0.05; done",
        NULL };
    struct proc_result r;
    uint64_t t0, took;

    t0 = proc_now_ms();
    CU_ASSERT_EQUAL(proc_run_grace(argv, NULL, 200, 100, NULL, 0, &r), -1);
    took = proc_now_ms() - t0;
    CU_ASSERT(r.timed_out);
    CU_ASSERT(WIFSIGNALED(r.status) && WTERMSIG(r.status) == SIGKILL);
    CU_ASSERT(took >= 300 - 20);
    CU_ASSERT(took < 300 + 1000);       /* not PROC_GRACE_MS: 2200 */
}

static CU_TestInfo proc_tests[] = {
    { "exit status", test_exit_status },
    { "describe", test_describe },
    { "environment", test_environment },
    { "stderr tail", test_stderr_tail },
    { "timeout kills the process group", test_timeout_kills_group },
    { "SIGKILL after the grace period", test_timeout_sigkill_after_grace },
    { "SIGKILL after a shorter grace", test_timeout_short_grace },
    { "cancel", test_cancel },
    { "spawn errors", test_spawn_error },
    { "child: no mask, no fds, own group", test_child_state },
    CU_TEST_INFO_NULL,
};

/* ------------------------------------------------------------------------ */
/* The leash (child_start_leashed)                                          */
/* ------------------------------------------------------------------------ */

/* pid is gone, or a zombie: it runs no more */
static int
proc_gone(long pid)
{
    char path[64], buf[512], *p;
    int fd;
    ssize_t n;

    if (kill((pid_t)pid, 0) == -1 && errno == ESRCH)
        return 1;
    snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
    if ((fd = open(path, O_RDONLY)) == -1)
        return 1;
    n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n <= 0)
        return 1;
    buf[n] = '\0';
    p = strrchr(buf, ')');
    return p != NULL && (p[2] == 'Z' || p[2] == 'X');
}

/* poll proc_gone(pid) every 5 ms for up to ms */
static int
proc_gone_within(long pid, int ms)
{
    struct timespec ts = { 0, 5000000L };
    uint64_t end = proc_now_ms() + (uint64_t)ms;

    while (!proc_gone(pid)) {
        if (proc_now_ms() >= end)
            return 0;
        nanosleep(&ts, NULL);
    }
    return 1;
}

/* a number written to path by a script; -1 until it is there */
static long
read_pid(const char *path, int ms)
{
    struct timespec ts = { 0, 5000000L };
    uint64_t end = proc_now_ms() + (uint64_t)ms;
    char buf[64];
    long v;

    for (;;) {
        slurp(path, buf, sizeof(buf));
        if (strchr(buf, '\n') != NULL && sscanf(buf, "%ld", &v) == 1)
            return v;
        if (proc_now_ms() >= end)
            return -1;
        nanosleep(&ts, NULL);
    }
}

static int
leash_sh(const char *script, pid_t *pid, pid_t *prog)
{
    char *argv[] = { (char *)"sh", (char *)"-c", (char *)script, NULL };
    char *envp[] = { (char *)"PATH=/usr/bin:/bin", NULL };

    return child_start_leashed("/bin/sh", argv, envp, -1, -1, pid, prog);
}

static int
wait_status(pid_t pid)
{
    int st = -1;

    while (waitpid(pid, &st, 0) == -1 && errno == EINTR)
        ;
    return st;
}

/* waitpid with a deadline; -1 when pid did not end within ms */
static int
wait_status_within(pid_t pid, int ms)
{
    struct timespec ts = { 0, 5000000L };
    uint64_t end = proc_now_ms() + (uint64_t)ms;
    pid_t w;
    int st = -1;

    for (;;) {
        w = waitpid(pid, &st, WNOHANG);
        if (w == pid)
            return st;
        if ((w == -1 && errno != EINTR) || proc_now_ms() >= end)
            return -1;
        nanosleep(&ts, NULL);
    }
}

/* The leash leads the group, reports the program's pid, and exits with the
   program's status: an exit code, or the same signal. */
static void
test_leash_status(void)
{
    char script[PATH_MAX + 64], path[PATH_MAX];
    pid_t pid = 0, prog = 0;
    int st;

    snprintf(path, sizeof(path), "%s/leash-pid", tmpdir);
    snprintf(script, sizeof(script), "echo $$ > '%s'; exit 3", path);
    CU_ASSERT_EQUAL_FATAL(leash_sh(script, &pid, &prog), 0);
    st = wait_status(pid);
    CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 3);
    CU_ASSERT(prog != pid && prog > 0);
    CU_ASSERT_EQUAL(read_pid(path, 0), (long)prog);

    CU_ASSERT_EQUAL_FATAL(leash_sh("kill -TERM $$", &pid, NULL), 0);
    st = wait_status(pid);
    CU_ASSERT(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM);

    /* a SIGTERM to the group: the program dies of it, the leash reports it */
    CU_ASSERT_EQUAL_FATAL(leash_sh("exec sleep 30", &pid, NULL), 0);
    CU_ASSERT_EQUAL(kill(-pid, SIGTERM), 0);
    st = wait_status(pid);
    CU_ASSERT(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM);
}

/* An exec that fails comes back as its errno; the leash is reaped. */
static void
test_leash_exec_error(void)
{
    char *argv[] = { (char *)"x", NULL };
    char *envp[] = { NULL };
    char path[PATH_MAX];
    pid_t pid = 0;
    int fd;

    CU_ASSERT_EQUAL(child_start_leashed("/nonexistent/program", argv, envp, -1, -1, &pid,
        NULL), ENOENT);
    snprintf(path, sizeof(path), "%s/not-executable", tmpdir);
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    CU_ASSERT_FATAL(fd >= 0);
    close(fd);
    CU_ASSERT_EQUAL(child_start_leashed(path, argv, envp, -1, -1, &pid, NULL), EACCES);
    CU_ASSERT(waitpid(-1, NULL, WNOHANG) == -1 && errno == ECHILD);
}

/* The leash ends only once what the program left behind has ended too. */
static void
test_leash_waits_for_leftovers(void)
{
    char script[PATH_MAX + 128], path[PATH_MAX];
    pid_t pid = 0;
    long bg;
    int st;

    snprintf(path, sizeof(path), "%s/leash-bg", tmpdir);
    snprintf(script, sizeof(script), "sleep 0.3 & echo $! > '%s'; exit 0", path);
    CU_ASSERT_EQUAL_FATAL(leash_sh(script, &pid, NULL), 0);
    st = wait_status(pid);
    bg = read_pid(path, 0);
    CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    CU_ASSERT_FATAL(bg > 0);
    CU_ASSERT(proc_gone(bg));           /* ended before the leash did */
    if (!proc_gone(bg))
        kill((pid_t)bg, SIGKILL);
}

/* When the process that started it dies (even of SIGKILL), the leash kills
   the whole group: a program the shell forked, and what it started. */
static void
test_leash_parent_death(void)
{
    char script[PATH_MAX * 4 + 384], fg[PATH_MAX], bg[PATH_MAX], st_path[PATH_MAX],
        st2_path[PATH_MAX];
    pid_t parent, pid;
    long fgpid, bgpid, stpid, st2pid;
    int p[2], st;

    snprintf(fg, sizeof(fg), "%s/leash-fg", tmpdir);
    snprintf(bg, sizeof(bg), "%s/leash-bg2", tmpdir);
    unlink(fg);
    unlink(bg);
    /* no exec: sleep 30 is sh's child; another sleep in the background */
    snprintf(st_path, sizeof(st_path), "%s/leash-stray", tmpdir);
    unlink(st_path);
    snprintf(st2_path, sizeof(st2_path), "%s/leash-stray2", tmpdir);
    unlink(st2_path);
    /* a daemon (setsid -f: its parent gone), one out of the group whose
       parent (sh) lives, sleep 30 in the background, and one in front */
    snprintf(script, sizeof(script),
        "setsid -f sh -c 'echo $$ > \"%s\"; exec sleep 30' < /dev/null > /dev/null 2>&1; "
        "setsid sh -c 'echo $$ > \"%s\"; exec sleep 30' < /dev/null > /dev/null 2>&1 & "
        "sleep 30 & echo $! > '%s'; sh -c 'echo $$ > \"%s\"; sleep 30'; exit $?",
        st_path, st2_path, bg, fg);
    CU_ASSERT_FATAL(pipe(p) == 0);
    parent = fork();
    CU_ASSERT_FATAL(parent != -1);
    if (parent == 0) {
        char c = 1;

        close(p[0]);
        if (leash_sh(script, &pid, NULL) != 0)
            _exit(1);
        if (write(p[1], &c, 1) != 1)
            _exit(1);
        for (;;)
            pause();
    }
    close(p[1]);
    {
        char c;
        CU_ASSERT_FATAL(read(p[0], &c, 1) == 1);
    }
    close(p[0]);
    fgpid = read_pid(fg, 5000);
    bgpid = read_pid(bg, 5000);
    stpid = read_pid(st_path, 5000);
    st2pid = read_pid(st2_path, 5000);
    CU_ASSERT_FATAL(fgpid > 0 && bgpid > 0 && stpid > 0 && st2pid > 0);
    CU_ASSERT(!proc_gone(fgpid) && !proc_gone(bgpid) && !proc_gone(stpid) &&
              !proc_gone(st2pid));
    kill(parent, SIGKILL);
    st = wait_status(parent);
    CU_ASSERT(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
    CU_ASSERT(proc_gone_within(fgpid, 5000));
    CU_ASSERT(proc_gone_within(bgpid, 5000));
    CU_ASSERT(proc_gone_within(stpid, 5000));       /* the stray, out of the group */
    CU_ASSERT(proc_gone_within(st2pid, 5000));      /* out of it, its parent alive */
    if (!proc_gone(stpid))
        kill((pid_t)stpid, SIGKILL);
    if (!proc_gone(st2pid))
        kill((pid_t)st2pid, SIGKILL);
    if (!proc_gone(fgpid))
        kill((pid_t)fgpid, SIGKILL);
    if (!proc_gone(bgpid))
        kill((pid_t)bgpid, SIGKILL);
}

/* SIGTERM to the leash's group: the stray (out of it) gets it from the
   leash and writes "term" to term; the leash ends with exit code code. */
static void
stray_gets_term(pid_t pid, long stray, const char *term, int code)
{
    char buf[16];
    int st;

    CU_ASSERT(kill(-pid, SIGTERM) == 0);
    st = wait_status_within(pid, 5000);
    CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == code);
    CU_ASSERT_STRING_EQUAL(slurp(term, buf, sizeof(buf)), "term\n");
    CU_ASSERT(proc_gone(stray));
    if (st == -1) {
        child_kill_leashed(pid);
        wait_status_within(pid, 5000);
    }
    if (!proc_gone(stray))
        kill((pid_t)stray, SIGKILL);
}

/* A stray (a daemon: setsid, its parent gone) gets the group's SIGTERM
   from the leash, which waits for it; child_kill_leashed() kills a stray. */
static void
test_leash_strays(void)
{
    char script[PATH_MAX * 2 + 256], sp[PATH_MAX], term[PATH_MAX];
    pid_t pid = 0;
    long stray;
    int st;

    snprintf(sp, sizeof(sp), "%s/stray-pid", tmpdir);
    snprintf(term, sizeof(term), "%s/stray-term", tmpdir);
    unlink(sp);
    unlink(term);
    snprintf(script, sizeof(script),
        "setsid -f sh -c 'trap \"echo term > \\\"%s\\\"; exit 0\" TERM; echo $$ > \"%s\"; "
        "while :; do sleep 0.05; done' < /dev/null > /dev/null 2>&1; exit 0", term, sp);
    CU_ASSERT_EQUAL_FATAL(leash_sh(script, &pid, NULL), 0);
    stray = read_pid(sp, 5000);
    CU_ASSERT_FATAL(stray > 0);
    CU_ASSERT(getpgid((pid_t)stray) != pid);        /* it left the group */
    /* sh exited 0 and left a daemon: the leash waits for it */
    CU_ASSERT(wait_status_within(pid, 200) == -1);
    stray_gets_term(pid, stray, term, 0);       /* the program's status */

    /* one that leaves the group while its parent lives: it becomes a stray
       when sh ends, 300 ms after the group's SIGTERM, and gets the SIGTERM
       then */
    unlink(sp);
    unlink(term);
    snprintf(script, sizeof(script),
        "trap 'sleep 0.3; exit 7' TERM; "
        "setsid sh -c 'trap \"echo term > \\\"%s\\\"; exit 0\" TERM; echo $$ > \"%s\"; "
        "while :; do sleep 0.05; done' < /dev/null > /dev/null 2>&1 & wait", term, sp);
    CU_ASSERT_EQUAL_FATAL(leash_sh(script, &pid, NULL), 0);
    stray = read_pid(sp, 5000);
    CU_ASSERT_FATAL(stray > 0);
    CU_ASSERT(getpgid((pid_t)stray) != pid);
    stray_gets_term(pid, stray, term, 7);       /* sh's */

    /* a program that fails by itself has ended: what it left goes at once */
    unlink(sp);
    snprintf(script, sizeof(script),
        "setsid -f sh -c 'echo $$ > \"%s\"; exec sleep 30' < /dev/null > /dev/null 2>&1; "
        "i=0; while [ ! -s '%s' ] && [ $i -lt 500 ]; do sleep 0.01; i=$((i+1)); done; exit 4",
        sp, sp);
    CU_ASSERT_EQUAL_FATAL(leash_sh(script, &pid, NULL), 0);
    st = wait_status_within(pid, 5000);
    CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 4);
    stray = read_pid(sp, 0);
    CU_ASSERT_FATAL(stray > 0);
    CU_ASSERT(proc_gone_within(stray, 1000));
    if (!proc_gone(stray))
        kill((pid_t)stray, SIGKILL);

    /* one that ignores SIGTERM: child_kill_leashed() */
    unlink(sp);
    snprintf(script, sizeof(script),
        "setsid -f sh -c 'trap \"\" TERM; echo $$ > \"%s\"; while :; do sleep 0.05; done' "
        "< /dev/null > /dev/null 2>&1; exit 0", sp);
    CU_ASSERT_EQUAL_FATAL(leash_sh(script, &pid, NULL), 0);
    stray = read_pid(sp, 5000);
    CU_ASSERT_FATAL(stray > 0);
    child_kill_leashed(pid);
    st = wait_status_within(pid, 5000);
    CU_ASSERT(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
    CU_ASSERT(proc_gone_within(stray, 5000));
    if (!proc_gone(stray))
        kill((pid_t)stray, SIGKILL);
    if (st == -1) {
        kill(-pid, SIGKILL);
        wait_status_within(pid, 5000);
    }
}

static CU_TestInfo leash_tests[] = {
    { "status, pid and group", test_leash_status },
    { "exec errors", test_leash_exec_error },
    { "waits for what the program left behind", test_leash_waits_for_leftovers },
    { "the parent's death kills the group", test_leash_parent_death },
    { "strays: SIGTERM passed on, a failure, child_kill_leashed", test_leash_strays },
    CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
    { "proc", suite_init, suite_clean, NULL, NULL, proc_tests },
    { "leash", suite_init, suite_clean, NULL, NULL, leash_tests },
    CU_SUITE_INFO_NULL,
};

int
main(int argc, char **argv)
{
    return cutest_main(argc, argv, suites);
}
