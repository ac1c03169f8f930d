/*
 * zkharness.h - start and stop real ZooKeeper servers for tests.
 *
 * A struct zkh is a set of ZooKeeper 3.8 servers (the Debian "zookeeper"
 * package) on the loopback address: one standalone server or an ensemble of
 * an odd number of members. Each server is a JVM forked by the calling
 * process; it lives in basedir/sI (I = server index from 0, myid = I + 1)
 * with its zoo.cfg, data/ and server.log.
 *
 *   struct zkh_opts o;
 *   struct zkh *z;
 *   zkh_deadline(240);                 whole test: stop everything if it hangs
 *   zkh_opts_init(&o);
 *   o.nservers = 3;
 *   if (zkh_start(&o, &z) == -1)
 *       ...                            message already on stderr
 *   zookeeper_init(zkh_hosts(z), ...);
 *   zkh_kill(z, 0); zkh_restart(z, 0, 1);
 *   zkh_stop(z);
 *
 * Cleanup happens on every exit path of the process that started the servers:
 * zkh_stop(), an atexit handler, handlers for SIGINT/SIGTERM/SIGHUP (installed
 * by the first zkh_start() only where the disposition is still SIG_DFL; they
 * kill the servers, remove the base directories and re-raise), the deadline
 * of zkh_deadline(), and PR_SET_PDEATHSIG in every server, which kills it when
 * its parent dies (even by SIGKILL). A forked child never stops its parent's
 * servers. Base directories left by dead processes are removed by the next
 * zkh_start() (zkh_clean_stale()).
 *
 * Not thread-safe: use one harness from one thread, and call zkh_start() and
 * zkh_restart() from the main thread (PR_SET_PDEATHSIG fires when the thread
 * that forked the server exits). The harness reaps its servers with waitpid();
 * do not set SIGCHLD to SIG_IGN.
 *
 * Errors: functions that return int give 0 (or a count) on success and -1
 * with errno set on failure. This is test code: it prints its diagnostics
 * (start failures with the tail of the server log) on stderr.
 *
 * Environment: JAVA (java binary, else java from PATH), TMPDIR (where
 * base directories are made, default /tmp), ZKH_KEEP=1 (keep base directories
 * at stop), ZKH_NO_CDS=1 (do not use the AppCDS archive kept in
 * ${XDG_CACHE_HOME:-$HOME/.cache}/zkelect/ to speed up JVM start).
 */
#ifndef ZKHARNESS_H
#define ZKHARNESS_H

#include <stddef.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ZKH_MAX_SERVERS 15 /* largest ensemble a harness can run */

struct zkh; /* a set of servers: standalone or ensemble (opaque) */

struct zkh_opts {
    int nservers;             /* 1 = standalone, 3 = ensemble (any odd n, 1..ZKH_MAX_SERVERS) */
    int tick_ms;              /* tickTime, default 200 */
    int max_session_ms;       /* maxSessionTimeout, default 20000 */
    const char *basedir;      /* borrowed during zkh_start() only; NULL = mkdtemp("$TMPDIR/zkh.XXXXXX") */
    const char *addr;         /* borrowed during zkh_start() only; IPv4 listen address, default "127.0.0.1" */
    const char *super_digest; /* borrowed during zkh_start() only; NULL or "super:<base64 sha1>"
                                 for DigestAuthenticationProvider.superDigest */
    int start_timeout_ms;     /* per start or restart, default 60000 */
    int verbose;              /* server logs at INFO (instead of WARN) to basedir/sI/server.log */
    int force_sync;           /* non-zero: forceSync=yes (ZooKeeper's default); default 0:
                                 the transaction log is not fsync'ed (tests are faster) */
    int heap_mb;              /* JVM -Xmx in MiB, default 128 */
    int sync_limit;           /* syncLimit (ticks), default 5: how long a follower cut off
                                 from the leader goes on serving its clients */
    const char *srv_addr[ZKH_MAX_SERVERS];  /* borrowed during zkh_start() only; server i's
                                               listen address, NULL = addr */
    const char *srv_netns[ZKH_MAX_SERVERS]; /* borrowed during zkh_start() only; NULL, or the
                                               file of a network namespace (/run/netns/NAME)
                                               server i's JVM runs in (starts and restarts;
                                               the caller needs CAP_SYS_ADMIN) */
};

/* Fill *o with the defaults above. */
void zkh_opts_init(struct zkh_opts *o);

/*
 * Start o->nservers servers and wait until every one serves ("srvr" prints a
 * Mode: line). Ports are picked free on o->addr; a start that fails because a
 * port was taken meanwhile is retried with new ports. On success *out is a new
 * harness, owned by the caller and freed by zkh_stop(). On failure everything
 * started is stopped, the base directory is removed, a message is printed on
 * stderr and -1 is returned with errno set (EINVAL bad options, ETIMEDOUT not
 * serving in time, ECHILD a server exited, EADDRINUSE ports kept clashing,
 * ENOENT no java, EBUSY basedir in use by a live process, ...).
 */
int zkh_start(const struct zkh_opts *o, struct zkh **out);

/* "addr:p1,addr:p2,..." for zookeeper_init(). Owned by z, valid until zkh_stop(). */
const char *zkh_hosts(const struct zkh *z);

/* "addr:pI", server i from 0. Owned by z, valid until zkh_stop(). NULL if i is out of range. */
const char *zkh_host(const struct zkh *z, int i);

/* Client port of server i, -1 if i is out of range. */
int zkh_port(const struct zkh *z, int i);

/* The base directory. Owned by z, valid until zkh_stop(). */
const char *zkh_basedir(const struct zkh *z);

int zkh_nservers(const struct zkh *z);

/* pid of server i's JVM, -1 when it is not running (killed, terminated, or i out of range). */
pid_t zkh_pid(const struct zkh *z, int i);

/* SIGKILL server i and reap it. -1/ESRCH if it is not running. */
int zkh_kill(struct zkh *z, int i);

/* SIGTERM server i (SIGCONT too if paused) and reap it; SIGKILL after 10 s. */
int zkh_terminate(struct zkh *z, int i);

/* SIGSTOP server i and wait until it is stopped. -1/ESRCH if not running. */
int zkh_pause(struct zkh *z, int i);

/* SIGCONT server i and wait until it runs again. */
int zkh_resume(struct zkh *z, int i);

/*
 * Start server i again with the same ports, config and dataDir (terminating
 * it first if it runs). With wait_serving, wait up to start_timeout_ms until
 * it serves (an ensemble member serves only with a quorum). -1 with errno
 * ECHILD if it exited, ETIMEDOUT, EADDRINUSE if its port was taken meanwhile.
 */
int zkh_restart(struct zkh *z, int i, int wait_serving);

/* 1 if server i runs and "srvr" answers within 1 s with a Mode: line, else 0. */
int zkh_is_serving(struct zkh *z, int i);

/* Poll zkh_is_serving() every 50 ms. 0 when it serves, -1/ETIMEDOUT, -1/ECHILD if it exited. */
int zkh_wait_serving(struct zkh *z, int i, int timeout_ms);

/* Poll every 50 ms until server i stops serving (or is not running). 0, or -1/ETIMEDOUT. */
int zkh_wait_not_serving(struct zkh *z, int i, int timeout_ms);

/*
 * Send a four-letter word (mntr, srvr, dump, cons, ...) to server i and read
 * the answer into buf, NUL-terminated (truncated to len - 1 bytes). Returns
 * the number of bytes stored, or -1 with errno (ESRCH not running,
 * ETIMEDOUT no answer within 2 s, ECONNREFUSED, ...).
 */
int zkh_4lw(struct zkh *z, int i, const char *cmd, char *buf, size_t len);

/* zkh_4lw() with its own timeout for the connect plus the whole answer. */
int zkh_4lw_timeout(struct zkh *z, int i, const char *cmd, char *buf, size_t len,
    int timeout_ms);

/*
 * Stop every server (SIGTERM, SIGKILL after 5 s), reap them, remove the base
 * directory (unless ZKH_KEEP=1: then its path is printed on stderr) and free
 * z. A basedir given in the options loses only what the harness made in it
 * (sI/ and the owner file); the directory itself goes only if zkh_start()
 * created it. NULL-safe.
 */
void zkh_stop(struct zkh *z);

/*
 * Test-wide deadline, counted from now on CLOCK_MONOTONIC by a timer thread:
 * when it passes, every server the process started is killed, base
 * directories are removed, a message is printed and the process exits with
 * status 1. A new call replaces the deadline; seconds <= 0 cancels it.
 */
void zkh_deadline(int seconds);

/*
 * Remove $TMPDIR/zkh.* base directories of this user whose owner process is
 * gone. Returns how many were removed. zkh_start() calls it.
 */
int zkh_clean_stale(void);

#ifdef __cplusplus
}
#endif
#endif /* ZKHARNESS_H */
