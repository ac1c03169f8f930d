/*
 * config.h - zkelectd's INI configuration (etc/zkelect.ini documents every key).
 *
 * zkd_config_load() reads the file with iniparser 4.1 and validates every key
 * strictly: unknown sections and keys, malformed numbers, out-of-range values
 * and missing required keys are errors that name the file, the section and the
 * key. Section and key names are case-insensitive (iniparser lower-cases them);
 * values are case-sensitive except booleans and the [log] words.
 *
 * Ownership: every string and array in a loaded struct zkd_config is owned by
 * the struct and released by zkd_config_free(). String fields left at their
 * default ("/cluster", "", "site") point at static storage: treat all fields
 * as read-only, and copy what must outlive the struct.
 *
 * Nothing here prints or exits; errors come back as a ZKELECT_E* code and a
 * message in the caller's buffer.
 */
#ifndef ZKD_CONFIG_H
#define ZKD_CONFIG_H

#include <stddef.h>
#include <sys/socket.h>

/* Where zkelectd logs ([log] target). */
enum zkd_log_target {
    ZKD_LOG_STDERR = 0,                 /* standard error (default) */
    ZKD_LOG_SYSLOG = 1                  /* syslog(3), facility LOG_DAEMON */
};

/* One [policy] entry, passed to the policy's init() as key=value. */
struct zkd_option {
    char *key;                          /* owned; lower-case, [a-z0-9._-]+ */
    char *value;                        /* owned; may be "" */
};

/* Limits of the checks below. */
#define ZKD_CONFIG_NAME_MAX     64      /* node id, site, tag: characters */
#define ZKD_CONFIG_TAGS_MAX     16      /* [node] tags: entries */
#define ZKD_CONFIG_OPTIONS_MAX  64      /* [policy]: entries */
#define ZKD_CONFIG_SECRET_MAX   1024    /* credential file: bytes */

struct zkd_config {
    /* [zookeeper] */
    char *zk_hosts;                     /* hosts: required; "host:port[,host:port...][/chroot]"
                                           (IPv6 literals without brackets, as
                                           the ZooKeeper C client expects) */
    int session_timeout_ms;             /* session_timeout_ms: 10000, 1000..600000 */
    int connect_timeout_ms;             /* connect_timeout_ms: 15000, 100..600000 */
    char *auth_file;                    /* auth_file: NULL or a file holding the digest
                                           credential "user:password"; read with
                                           zkd_config_load_secret() */
    /* [cluster] */
    char *path;                         /* path: "/cluster"; absolute ZooKeeper path, no
                                           trailing '/', no empty, "." or ".." component */
    /* [node] */
    char *node_id;                      /* id: required; 1..64 of [A-Za-z0-9._-], not
                                           starting with '.' or '-' */
    char *site;                         /* site: ""; 0..64 of the same set */
    int priority;                       /* priority: 0, -1000000..1000000 */
    char **tags;                        /* tags: "a, b, c"; each a name as for id, at most
                                           16, no duplicates; NULL when none */
    int ntags;                          /* number of entries in tags */
    int eligible;                       /* eligible: 1 (yes) or 0 */
    char *state_dir;                    /* state_dir: "/var/lib/zkelect"; an absolute
                                           directory for <id>.state (statefile.c) */
    /* [election] */
    char *policy;                       /* policy: "site"; a module name ([a-z0-9_-],
                                           1..64) or a path containing '/' */
    char *policy_path;                  /* policy_path: NULL or colon-separated absolute
                                           directories searched before the built-in one */
    int watchdog_ms;                    /* watchdog_ms: 10000, 100..3600000 */
    int exclude_ms;                     /* exclude_ms: 60000, 0..86400000 */
    int settle_ms;                      /* settle_ms: 2000, 0..3600000 (0 = none) */
    int expect;                         /* expect: 0 (none), 0..10000 */
    int failback_delay_ms;              /* failback_delay_ms: 0, 0..86400000 */
    int min_move_interval_ms;           /* min_move_interval_ms: 0, 0..86400000 */
    struct zkd_option *policy_options;  /* every key of [policy], in file order;
                                           NULL when none */
    int npolicy_options;                /* number of entries in policy_options */
    /* [hooks] */
    char *hook_takeover;                /* takeover: NULL or an absolute path */
    char *hook_stepdown;                /* stepdown: NULL or an absolute path */
    char *hook_notify;                  /* notify: NULL or an absolute path; the loader
                                           does not check that hooks exist: the
                                           daemon checks executability at start */
    int hook_timeout_ms;                /* timeout_ms: 30000, 100..3600000 */
    int stepdown_timeout_ms;            /* stepdown_timeout_ms: the step-down budget D
                                           (stopping the command, then the stepdown
                                           hook), 10..3600000; default
                                           min(session_timeout_ms / 4, watchdog_ms / 2) */
    /* [leader] */
    char *leader_command;               /* command: NULL or a command for /bin/sh -c,
                                           the supervised service (supervise.c) */
    char *leader_ready_command;         /* ready_command: NULL or a readiness check for
                                           /bin/sh -c, polled until it exits 0 */
    int leader_stop_timeout_ms;         /* stop_timeout_ms: SIGTERM .. SIGKILL,
                                           0..3600000; default stepdown_timeout_ms / 2;
                                           must be below stepdown_timeout_ms */
    int leader_fence_ms;                /* fence_ms: the self-fence delay F,
                                           100..300000; default session_timeout_ms / 2
                                           - stepdown_timeout_ms; fence_ms +
                                           stepdown_timeout_ms <= session_timeout_ms / 2 */
    /* [health] */
    char *health_command;               /* command: NULL or a command for /bin/sh -c */
    int health_interval_ms;             /* interval_ms: 5000, 100..3600000 */
    int health_failures;                /* failures: 3, 1..1000 */
    /* [http] */
    char *http_listen;                  /* listen: NULL = off; "PORT" (127.0.0.1:PORT),
                                           "IPV4:PORT" or "[IPV6]:PORT", as written;
                                           see zkd_config_listen_addr() */
    /* [log] */
    int log_level;                      /* level: LOG_INFO; LOG_DEBUG, LOG_INFO,
                                           LOG_NOTICE, LOG_WARNING or LOG_ERR from
                                           debug|info|notice|warning|error */
    int log_target;                     /* target: ZKD_LOG_STDERR; or ZKD_LOG_SYSLOG
                                           from stderr|syslog */
    char *log_events;                   /* events: NULL or an absolute file name: the
                                           event log, one JSON line per event */
};

/*
 * Set every field to its default. Allocates nothing: a struct that was only
 * initialised need not be freed (freeing it is harmless).
 */
void zkd_config_init(struct zkd_config *c);

/*
 * Load and validate the INI file at path into *c. *c is overwritten without
 * being read (it need not be initialised; a previously loaded struct must be
 * freed first, or load into a new struct and swap on success).
 *
 * Returns 0, ZKELECT_EIO when the file cannot be opened or read or is not a
 * regular file (err = "PATH: reason"), ZKELECT_ECONFIG for anything wrong in
 * it (err = "PATH: [section] key: message", or "PATH:LINE: message" for a
 * syntax error), ZKELECT_ENOMEM, or ZKELECT_EINVAL (path NULL). err (errlen
 * bytes, may be NULL/0) is always NUL-terminated; values quoted in it are
 * escaped. On failure *c is left initialised (defaults, nothing allocated):
 * freeing it again is safe.
 *
 * A key given twice keeps its last value (iniparser merges them). Thread-safe
 * (iniparser's error callback writes to thread-local storage).
 */
int zkd_config_load(const char *path, struct zkd_config *c, char *err, size_t errlen);

/* Release everything *c owns and re-initialise it. NULL is ignored. */
void zkd_config_free(struct zkd_config *c);

/*
 * Read a ZooKeeper digest credential "user:password" from path into *out,
 * with the reader the library and the CLI use (zke_secret_read() of
 * src/common/zkecommon.h): a regular file, not a symbolic link, owned by the
 * effective user, not readable or writable by group or others, holding
 * exactly one line (one trailing '\n' allowed) of at most
 * ZKD_CONFIG_SECRET_MAX bytes, with a ':' separating a non-empty user from a
 * non-empty password and no whitespace or control character. Returns 0,
 * ZKELECT_EIO (cannot open/read, out of memory) or ZKELECT_ECONFIG (refused:
 * file type, owner, permissions or contents). The credential is never copied
 * into err. *out (NULL on failure) is owned by the caller: release it with
 * zkd_config_secret_free().
 */
int zkd_config_load_secret(const char *path, char **out, char *err, size_t errlen);

/* Wipe and free a credential from zkd_config_load_secret(). NULL is ignored. */
void zkd_config_secret_free(char *secret);

/*
 * Parse a [http] listen value ("PORT", "IPV4:PORT" or "[IPV6]:PORT", port
 * 1..65535) into *ss / *sslen (AF_INET or AF_INET6, numeric only, no DNS).
 * Returns 0 or ZKELECT_EINVAL. ss and sslen may be NULL to only validate.
 */
int zkd_config_listen_addr(const char *listen, struct sockaddr_storage *ss,
    socklen_t *sslen);

#endif /* ZKD_CONFIG_H */
