/*
 * supervise.h - the supervised leader command ([leader] command): started by
 * zkelectd as its own child when this node takes over, stopped when it steps
 * down, and dead with zkelectd when zkelectd dies (PR_SET_PDEATHSIG).
 *
 * Threads: supervise_start() and supervise_stop() run on the leadership
 * worker only (hooks.c), one at a time. The child is forked from that
 * thread, and PR_SET_PDEATHSIG fires when the *thread* that forked exits, not
 * the process: the worker lives until zkelectd stops, and stops the command
 * itself before it exits. While the command runs, a monitor thread watches
 * it (a pidfd, without reaping it) to notice an exit of its own. The state is
 * per process: one daemon per process.
 */
#ifndef ZKD_SUPERVISE_H
#define ZKD_SUPERVISE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct zkd;

/* Is a [leader] command configured (live configuration)? */
bool supervise_configured(struct zkd *d);

/* Does a command run (started and not reaped yet)? */
bool supervise_running(struct zkd *d);

/*
 * Start the command for epoch (of slot) with env (NULL-terminated "NAME=value", the
 * ZKELECT_* variables of the hooks) in its own process group, then poll
 * [leader] ready_command (if set) every 100 ms until it exits 0, all within
 * [hooks] timeout_ms. cancel_fd becoming readable (a step-down, the stop)
 * ends the wait. Returns 0 (started, ready), 1 (canceled: the command may
 * run; the step-down that canceled it stops it) or -1 with the reason in why
 * (it did not start, exited, or never became ready: it is stopped again).
 * Nothing to do (0) when no command is configured.
 */
int supervise_start(struct zkd *d, uint64_t epoch, int slot, char *const env[], int cancel_fd,
    char *why, size_t whylen);

/*
 * Stop the command, if one runs: SIGTERM to its process group, SIGKILL to it
 * after [leader] stop_timeout_ms (at the latest at kill_by_ms, CLOCK_MONOTONIC,
 * when not 0: the end of the step-down budget), reaped. Immediate when none
 * runs or it has exited already. what prefixes the log lines.
 */
void supervise_stop(struct zkd *d, const char *what, uint64_t kill_by_ms);

#endif /* ZKD_SUPERVISE_H */
