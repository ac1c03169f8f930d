/*
 * zke-service.c - a stand-in service for the supervised-command tests.
 *
 *   zke-service FILE NODE
 *       Appends "NODE start MONO EPOCH" to FILE (EPOCH from $ZKELECT_EPOCH,
 *       0 without), writes its pid to FILE.NODE.pid, then waits. On SIGTERM
 *       it appends "NODE end MONO EPOCH" and exits 0. SIGKILL leaves no end
 *       line: the test measures that death from outside (--wait-dead).
 *       With ZKE_SERVICE_IGNORE_TERM=1 in its environment it ignores SIGTERM
 *       (a service that will not stop: SIGKILL is needed). With
 *       ZKE_SERVICE_STOP_MS=N it takes N ms after SIGTERM before the end
 *       stamp and its exit (a clean shutdown that takes a while).
 *   zke-service --wait-dead PID TIMEOUT_MS
 *       Polls every 1 ms until PID is gone or a zombie; prints the
 *       CLOCK_MONOTONIC milliseconds (3 decimals) when it saw that, exit 0;
 *       exit 1 when TIMEOUT_MS passed first. The stamp is taken after the
 *       death, so it can only make an end later (never hide an overlap).
 *   zke-service --kill PID TIMEOUT_MS
 *       Sends PID SIGKILL, then does what --wait-dead does, polling every
 *       0.1 ms from the same process: the stamp follows the death by well
 *       under a millisecond. A test that kills a service itself uses it: a
 *       kill(1) and a --wait-dead started after it stamp the death as late
 *       as the shell is slow to start the second process (7.5 ms too late
 *       once under a loaded chroot, after the next leader's service had
 *       started: a false overlap).
 *
 * MONO is CLOCK_MONOTONIC in milliseconds with 3 decimals, as zke-mono
 * prints it; each line is one write(2) to an O_APPEND descriptor, so nodes
 * may share FILE. The lines are what zke-service-check reads.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t term;

static void
on_term(int sig)
{
    (void)sig;
    term = 1;
}

static double
mono_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1000.0 + (double)ts.tv_nsec / 1e6;
}

static int
append(const char *file, const char *node, const char *what, const char *epoch)
{
    char line[512];
    int fd, n;

    n = snprintf(line, sizeof(line), "%s %s %.3f %s\n", node, what, mono_ms(), epoch);
    if (n < 0 || (size_t)n >= sizeof(line))
        return -1;
    if ((fd = open(file, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644)) == -1)
        return -1;
    if (write(fd, line, (size_t)n) != n) {
        close(fd);
        return -1;
    }
    return close(fd);
}

/* Gone, or a zombie nobody reaped yet. */
static int
dead(long pid)
{
    char path[64], buf[512], *rp;
    FILE *f;
    size_t n;

    if (kill((pid_t)pid, 0) == -1 && errno == ESRCH)
        return 1;
    snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
    if ((f = fopen(path, "r")) == NULL)
        return 1;
    n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    rp = strrchr(buf, ')');
    return rp != NULL && rp[1] == ' ' && rp[2] == 'Z';
}

static int
wait_dead(const char *spid, const char *stimeout, int send_kill)
{
    struct timespec poll = { 0, send_kill ? 100000L : 1000000L };
    const char *opt = send_kill ? "--kill" : "--wait-dead";
    char *end;
    long pid = strtol(spid, &end, 10), timeout;
    double deadline;

    if (*end != '\0' || pid <= 0) {
        fprintf(stderr, "zke-service: %s: bad pid '%s'\n", opt, spid);
        return 2;
    }
    timeout = strtol(stimeout, &end, 10);
    if (*end != '\0' || timeout < 0) {
        fprintf(stderr, "zke-service: %s: bad timeout '%s'\n", opt, stimeout);
        return 2;
    }
    if (send_kill && kill((pid_t)pid, SIGKILL) == -1) {
        fprintf(stderr, "zke-service: --kill: %ld: %s\n", pid, strerror(errno));
        return 1;
    }
    deadline = mono_ms() + (double)timeout;
    while (!dead(pid)) {
        if (mono_ms() >= deadline)
            return 1;
        nanosleep(&poll, NULL);
    }
    printf("%.3f\n", mono_ms());
    return 0;
}

int
main(int argc, char **argv)
{
    const char *epoch = getenv("ZKELECT_EPOCH");
    struct sigaction sa;
    sigset_t block, old;
    char pidfile[4096], buf[32], *end;
    const char *e;
    long stop_ms = 0;
    int fd, n;

    if (argc == 4 && strcmp(argv[1], "--wait-dead") == 0)
        return wait_dead(argv[2], argv[3], 0);
    if (argc == 4 && strcmp(argv[1], "--kill") == 0)
        return wait_dead(argv[2], argv[3], 1);
    if (argc != 3) {
        fputs("usage: zke-service FILE NODE | zke-service --wait-dead PID TIMEOUT_MS |\n"
            "       zke-service --kill PID TIMEOUT_MS\n", stderr);
        return 2;
    }
    if (epoch == NULL || *epoch == '\0')
        epoch = "0";
    if ((e = getenv("ZKE_SERVICE_STOP_MS")) != NULL && *e != '\0') {
        stop_ms = strtol(e, &end, 10);
        if (*end != '\0' || stop_ms < 0 || stop_ms > 60000) {
            fprintf(stderr, "zke-service: ZKE_SERVICE_STOP_MS=%s: not 0..60000\n", e);
            return 2;
        }
    }
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = getenv("ZKE_SERVICE_IGNORE_TERM") != NULL &&
        strcmp(getenv("ZKE_SERVICE_IGNORE_TERM"), "1") == 0 ? SIG_IGN : on_term;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
    sigemptyset(&block);
    sigaddset(&block, SIGTERM);
    sigprocmask(SIG_BLOCK, &block, &old);

    /* the start stamp first: a late one could hide an overlap */
    if (append(argv[1], argv[2], "start", epoch) != 0) {
        perror(argv[1]);
        return 1;
    }
    snprintf(pidfile, sizeof(pidfile), "%s.%s.pid", argv[1], argv[2]);
    n = snprintf(buf, sizeof(buf), "%ld\n", (long)getpid());
    if ((fd = open(pidfile, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) == -1 ||
        write(fd, buf, (size_t)n) != n || close(fd) != 0) {
        perror(pidfile);
        return 1;
    }
    while (!term)
        sigsuspend(&old);
    if (stop_ms > 0) {
        /* a clean shutdown that takes a while: still serving until the end */
        struct timespec ts = { stop_ms / 1000, (stop_ms % 1000) * 1000000L }, rem;

        while (nanosleep(&ts, &rem) == -1 && errno == EINTR)
            ts = rem;
    }
    if (append(argv[1], argv[2], "end", epoch) != 0) {
        perror(argv[1]);
        return 1;
    }
    return 0;
}
