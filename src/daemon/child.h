/*
 * child.h - what zkelectd's hook runner (proc.c) and `zkelect run`
 * (src/cli/cmd-run.c) share about child processes: the environment a child
 * gets, signalling its process group, and starting a program "on a leash"
 * (its own process group, killed when the thread that started it dies).
 *
 * No logging and no global state here: both programs use it.
 */
#ifndef ZKD_CHILD_H
#define ZKD_CHILD_H

#include <sys/types.h>

#include <stddef.h>

/*
 * environ, minus the names env sets and minus ZKELECT_AUTH (a ZooKeeper
 * credential the library may read from the environment: it never reaches a
 * child), plus env (NULL-terminated "NAME=value" strings, or NULL). The
 * strings are borrowed; free() the array. NULL when out of memory.
 */
char **child_envp(const char *const env[]);

/* Send sig to pid's process group; to pid alone if it has none. */
void child_signal_group(pid_t pid, int sig);

/*
 * Find the program name as execvp(3) would: a name with a '/' is taken as
 * is, anything else is looked up in $PATH (default "/bin:/usr/bin"). The
 * path goes to out. 0, or an errno value: ENOENT (not found), EACCES (found
 * but not executable), ENAMETOOLONG.
 */
int child_which(const char *name, char *out, size_t outlen);

/*
 * Start path (absolute or relative, not searched) with argv and envp, on a
 * leash. We fork the leash: a small process that leads a new process group
 * (*pid: pgid = its pid) and forks the program into it. The program runs
 * with every signal at its default disposition and none blocked, with
 * PR_SET_PDEATHSIG = SIGKILL tied to the leash, stdin on in_fd and stdout on
 * out_fd (-1: inherited), stderr inherited, and every other descriptor
 * closed.
 *
 * The leash blocks every signal, and is a child subreaper: whatever the
 * program starts and leaves behind becomes the leash's child, in the group
 * or out of it (setsid: the strays). The leash exits with the program's
 * status (an exit code, or the same signal), and when:
 *  - the program failed by itself (a status other than 0, or a signal,
 *    before any SIGTERM): at once, after SIGKILL to what it left behind, so
 *    the caller learns of the failure now;
 *  - the program exited 0 (a service that daemonized), or a SIGTERM came
 *    (the group's, a stop): once every process it left behind has ended
 *    too. A SIGTERM's grace so covers a service that sh -c forked or that
 *    daemonized as much as one it executed; the leash passes the SIGTERM on
 *    to the strays, also to those that become strays later.
 * A SIGKILL to the group ends the leash at once, so a wait is bounded by
 * the caller's own.
 *
 * When we die, the leash's PR_SET_PDEATHSIG reaches it, and it sends SIGKILL
 * to its children, again as they die and theirs become its own (at most 200
 * rounds of 1 ms), then to the whole group, itself included: the program
 * and everything it started, which PR_SET_PDEATHSIG alone would not reach
 * (sh -c without exec, a script's children, a daemon). Strays are found in
 * /proc/self/task/PID/children (CONFIG_PROC_CHILDREN); without it only the
 * group is reached.
 *
 * To stop: child_signal_group(*pid, SIGTERM), then, when the grace is over,
 * child_kill_leashed(*pid) (the same as our death), and the group's SIGKILL
 * as a backstop.
 *
 * PR_SET_PDEATHSIG fires when the *thread* that forked exits: call this from
 * a thread that lives as long as the process (the main thread, or a worker
 * that stops its programs before it ends).
 *
 * Returns 0 once the program has been executed (*pid: the leash, the
 * group; *prog, when not NULL: the program's own pid, for messages), or an
 * errno value: a fork failed, the leash's setup (setpgid, the subreaper)
 * or the exec failed, or EIO (the leash died first); the leash then has
 * been reaped. argv and envp are not touched after fork: build them before.
 */
int child_start_leashed(const char *path, char *const argv[], char *const envp[], int in_fd,
    int out_fd, pid_t *pid, pid_t *prog);

/* Ask the leash pid (child_start_leashed()'s *pid) to kill everything, as at
   our death: the strays, then the group, itself included. Then wait for it
   as usual. */
void child_kill_leashed(pid_t pid);

#endif /* ZKD_CHILD_H */
