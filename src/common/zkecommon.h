/*
 * zkecommon.h - what the library, the CLI and the daemon share: the znode
 * layout of a group (paths, election child names), escaping untrusted text
 * for logs, reading the digest credential, leader status names, and a quick
 * "is anybody listening" probe of a ZooKeeper connection string.
 *
 * Built once as a convenience library (src/common/libzkecommon.la) with
 * -fvisibility=hidden: libzkelect links it in without exporting it, and the
 * CLI and the daemon link it themselves (the daemon uses only the public
 * API of libzkelect, whose copy of these functions is hidden).
 *
 * Nothing here prints, exits or keeps state; every function is reentrant.
 * layout.c uses the codec's node-id rule (zke_id_valid, src/lib/codec.h):
 * a program that parses child names links the codec too (the library and
 * the CLI do); status.c, escape.c, secret.c and probe.c need nothing else.
 */
#ifndef ZKELECT_COMMON_H
#define ZKELECT_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

/* ---- the znode layout (layout.c) ----------------------------------------- */

#define ZKE_PATH_MAX   512     /* buffer for any znode path of a group, NUL included */
#define ZKE_SEQ_DIGITS 10      /* ZooKeeper's sequence suffix: %010d */
#define ZKE_CHILD_MAX  (64 + 1 + 32 + 1 + ZKE_SEQ_DIGITS) /* longest "<id>_<guid>_<seq>" */
/* Longest base path: its longest derived path, base/election/<longest child>,
   still fits in ZKE_PATH_MAX. */
#define ZKE_BASE_MAX   (ZKE_PATH_MAX - 1 - (int)sizeof("/election/") + 1 - ZKE_CHILD_MAX)

/* The znodes under a group's base path. */
enum zke_znode {
    ZKE_ZN_NODES = 0,          /* "nodes": nodes/<id>, one member record each */
    ZKE_ZN_ELECTION,           /* "election": <id>_<guid>_<seq>, ephemeral sequential */
    ZKE_ZN_ELECTED,            /* "elected": the elector's decision */
    ZKE_ZN_LEADER,             /* "leader": the elected node's PROGRESS/READY znode */
    ZKE_ZN_CONFIG,             /* "config": the operator's settings */
    ZKE_ZN_SWITCHOVER,         /* "switchover": an operator's handover request */
    ZKE_ZN_HISTORY,            /* "history": the last decisions */
    ZKE_ZN_SUCCESSOR,          /* "successor": who takes over if a leader resigns */
    ZKE_ZN__COUNT
};

/* The znode's name under the base path ("nodes", ...); "?" when out of range.
 * Static storage. */
const char *zke_layout_name(enum zke_znode z);

/*
 * 1 when base is a valid base path: absolute, 2..max bytes (max at most
 * ZKE_BASE_MAX), no trailing or double '/', no "." or ".." component, no
 * control character. NULL is not valid.
 */
int zke_layout_base_valid(const char *base, size_t max);

/*
 * Build base/<z> (child NULL) or base/<z>/<child> into out (outlen bytes).
 * Returns 0, or -1 when it does not fit (out is then "") or an argument is
 * NULL or out of range. base and child are borrowed for the call.
 */
int zke_layout_path(char *out, size_t outlen, const char *base, enum zke_znode z,
                    const char *child);

/*
 * Parse an election child's name "<id>_<guid>_<seq>": id a valid node id,
 * guid exactly 32 lower-case hex digits, seq exactly 10 decimal digits.
 * On success: 0, id (idlen bytes, ZKE_ID_MAX + 1 is enough), guid (33 bytes;
 * NULL to skip) and seq are set. -1 for anything else (nothing is set).
 */
int zke_child_parse(const char *name, char *id, size_t idlen, char *guid, int64_t *seq);

/* What zkelectd and zkelect run say when a nominate answers ZKELECT_EFOREIGN
 * (a persistent or container nodes/<id>): a format for the group's path, the
 * node id, the group's path and the node id again. */
#define ZKE_FOREIGN_RECORD_FMT                                                      \
    "cannot join the group %s as %s: %s/nodes/%s is a persistent or container "    \
    "znode, no member's record (another client wrote it); it stays until it is "   \
    "removed"

/* ---- leader status names (status.c) ---------------------------------------- */

/* "NONE", "PROGRESS", "READY" for 0, 1, 2 (enum zkelect_status); "?" else.
 * The library exports it as zkelect_status_name(). Static storage. */
const char *zke_status_text(int status);

/* ---- escaping (escape.c) ----------------------------------------------------- */

/*
 * Copy inlen bytes of untrusted text into out (outlen bytes) for one log or
 * terminal line: printable ASCII as is except '\\', every other byte as
 * \xNN. What does not fit is cut and "..." appended when there is room. out
 * is always NUL-terminated (outlen > 0).
 */
void zke_escape(const char *in, size_t inlen, char *out, size_t outlen);

/* ---- the digest credential (secret.c) ---------------------------------------- */

#define ZKE_SECRET_MAX 1024    /* longest credential file, bytes */

/*
 * What is wrong with the status of a credential file for a process whose
 * effective uid is euid, or NULL: it must be a regular file owned by euid and
 * neither readable nor writable by group or others (0600 or stricter). why
 * (whylen bytes) gets the reason with the fix, without the file's name.
 */
const char *zke_secret_check_stat(const struct stat *st, uid_t euid, char *why,
                                  size_t whylen);

/*
 * 1 when s (n bytes, one trailing '\n' allowed) is one line "user:password":
 * a non-empty user, a ':', a non-empty password, no whitespace or control
 * character. Else 0 and the reason in why.
 */
int zke_secret_text_ok(const char *s, size_t n, char *why, size_t whylen);

/*
 * Read the credential "user:password" from path. Symbolic links are refused
 * (name the file itself). Then the file must pass zke_secret_check_stat()
 * for geteuid() and hold one valid line of at most ZKE_SECRET_MAX bytes.
 * Returns 0 and *out (malloc'd; release with zke_secret_free()); or, with
 * *out NULL and "PATH: reason" in err (errlen bytes): -1 when the file cannot
 * be opened or read (missing, no permission, out of memory), -2 when it is
 * refused (a symbolic link, not a regular file, wrong owner or mode, bad
 * contents). The secret is never copied into err.
 */
int zke_secret_read(const char *path, char **out, char *err, size_t errlen);

/*
 * The credential from the environment, as the library looks it up when no
 * file is given: $ZKELECT_AUTH_FILE (read with zke_secret_read), then
 * $ZKELECT_AUTH ("user:password" itself). Returns 1 and *out when one is
 * set and valid, 0 when neither is set (*out NULL), -1 with the reason in err.
 */
int zke_secret_from_env(char **out, char *err, size_t errlen);

/* Wipe and free a credential. NULL-safe. */
void zke_secret_free(char *secret);

/* ---- probing the servers (probe.c) -------------------------------------------- */

/* What zke_hosts_probe() found. */
enum zke_probe {
    ZKE_PROBE_UNKNOWN = 0,     /* a server answered, or did not say no in time */
    ZKE_PROBE_REFUSED = 1,     /* every address of every host refused the connection */
    ZKE_PROBE_BADHOSTS = 2     /* hosts NULL, or out of memory (a host that does not
                                  parse or resolve is left to the client: UNKNOWN) */
};

/*
 * Try a non-blocking TCP connect to every address of every host:port of a
 * ZooKeeper connection string ("host:port[,host:port...][/chroot]"), for at
 * most timeout_ms. ZKE_PROBE_REFUSED only when each one was refused
 * (ECONNREFUSED): nobody listens. A host that does not answer, is
 * unreachable or accepts counts as "maybe": ZKE_PROBE_UNKNOWN. A summary
 * ("127.0.0.1:2181: Connection refused; ...") goes into detail.
 */
enum zke_probe zke_hosts_probe(const char *hosts, int timeout_ms, char *detail,
                               size_t detaillen);

#endif /* ZKELECT_COMMON_H */
