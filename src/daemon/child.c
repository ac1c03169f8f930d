/*
 * child.c - child-process helpers shared by zkelectd (proc.c) and
 * `zkelect run`: a child's environment, process-group signals, $PATH
 * lookup, and child_start_leashed() (fork, PR_SET_PDEATHSIG, exec, with the exec's
 * failure reported back through a close-on-exec pipe).
 */
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
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

int
child_start_leashed(const char *path, char *const argv[], char *const envp[], int in_fd,
    int out_fd, pid_t *pid)
{
    struct sigaction dfl;
    sigset_t none;
    pid_t parent = getpid(), child, w;
    int pfd[2], err = 0, s, wfd;
    ssize_t n;

    /* the exec's errno comes back through a close-on-exec pipe; its write
       end above 2, so that dup2 onto 0/1 cannot hit it */
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
    memset(&dfl, 0, sizeof(dfl));
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&none);

    child = fork();
    if (child == -1) {
        err = errno;
        close(pfd[0]);
        close(pfd[1]);
        return err;
    }
    if (child == 0) {
        /* async-signal-safe calls only from here on */
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) == -1) {
            err = errno;
            goto fail;
        }
        if (getppid() != parent)        /* the parent died before the prctl */
            _exit(127);
        if (setpgid(0, 0) == -1) {
            err = errno;
            goto fail;
        }
        for (s = 1; s < NSIG; s++)
            if (s != SIGKILL && s != SIGSTOP)
                (void)sigaction(s, &dfl, NULL);
        (void)sigprocmask(SIG_SETMASK, &none, NULL);
        if ((in_fd >= 0 && in_fd != 0 && dup2(in_fd, 0) == -1) ||
            (out_fd >= 0 && out_fd != 1 && dup2(out_fd, 1) == -1)) {
            err = errno;
            goto fail;
        }
        if (pfd[1] > 3)
            (void)close_range(3, (unsigned)pfd[1] - 1, 0);
        (void)close_range((unsigned)pfd[1] + 1, ~0U, 0);
        execve(path, argv, envp);
        err = errno;
fail:
        n = write(pfd[1], &err, sizeof(err));
        (void)n;
        _exit(127);
    }
    close(pfd[1]);
    do
        n = read(pfd[0], &err, sizeof(err));
    while (n == -1 && errno == EINTR);
    close(pfd[0]);
    if (n == (ssize_t)sizeof(err)) {
        do
            w = waitpid(child, NULL, 0);
        while (w == -1 && errno == EINTR);
        return err != 0 ? err : EIO;
    }
    *pid = child;
    return 0;
}
