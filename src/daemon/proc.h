/*
 * proc.h - run one external program (a hook or the health check) with a
 * timeout, and keep the tail of its standard error.
 *
 * The child is started with posix_spawn(3) in its own process group, with an
 * empty signal mask and default signal dispositions, stdin and stdout on
 * /dev/null, stderr on a pipe the caller reads, and every other descriptor
 * closed. When the timeout passes or a cancel descriptor becomes readable,
 * the whole process group gets SIGTERM and, PROC_GRACE_MS later, SIGKILL:
 * a hook that started other programs loses them too. A hook that exits on
 * its own keeps whatever it left running in the background.
 *
 * Thread-safe: any number of threads may run programs at once. Each caller
 * reaps only its own child (waitpid on its pid); nothing in zkelectd waits
 * for "any child".
 */
#ifndef ZKD_PROC_H
#define ZKD_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PROC_GRACE_MS   2000            /* SIGTERM .. SIGKILL */
#define PROC_TAIL_MAX   2048            /* bytes of stderr kept */
#define PROC_TAIL_LINES 20              /* lines of stderr logged */

/* How a run ended. */
struct proc_result {
    bool started;                       /* the program was started */
    int spawn_err;                      /* errno of the spawn, 0 if it started */
    int status;                         /* waitpid() status when it started */
    bool timed_out;                     /* killed: the timeout passed */
    bool canceled;                      /* killed (or not started): canceled */
    uint64_t elapsed_ms;                /* from spawn to exit */
    char tail[PROC_TAIL_MAX + 1];       /* last bytes of stderr, NUL-terminated */
    size_t taillen;                     /* bytes in tail */
};

/*
 * Run argv[0] (an absolute path) with argv, the daemon's environment plus
 * env (NULL-terminated "NAME=value" strings that replace variables of the
 * same name; may be NULL), for at most timeout_ms. cancel_fds (ncancel
 * descriptors, -1 entries ignored) are polled: one that is readable cancels
 * the run (it is not read). Fills *r and returns 0 when the program ran and
 * exited 0, -1 otherwise (spawn failure, non-zero exit, signal, timeout,
 * cancel).
 */
int proc_run(const char *const argv[], const char *const env[], int timeout_ms,
    const int *cancel_fds, int ncancel, struct proc_result *r);

/* proc_run() with grace_ms (>= 0) from SIGTERM to SIGKILL instead of
   PROC_GRACE_MS: a step-down has a budget. */
int proc_run_grace(const char *const argv[], const char *const env[], int timeout_ms,
    int grace_ms, const int *cancel_fds, int ncancel, struct proc_result *r);

/* "exit status 3", "killed by signal 9 (timeout after 100 ms)", ... into buf. */
const char *proc_describe(const struct proc_result *r, char *buf, size_t len);

/*
 * Log the last PROC_TAIL_LINES lines of r's stderr, escaped, one log line
 * each as "<prefix>: stderr: <line>", at level. Nothing when it is empty.
 */
void proc_log_tail(const struct proc_result *r, int level, const char *prefix);

/* Milliseconds on CLOCK_MONOTONIC. */
uint64_t proc_now_ms(void);

#endif /* ZKD_PROC_H */
