/*
 * zkelect.h - the public client API of libzkelect.
 *
 * Every function returns 0 or a negative ZKELECT_E* code; zkelect_strerror()
 * gives its text. The library never prints and never exits.
 */
#ifndef ZKELECT_H
#define ZKELECT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(ZKELECT_BUILDING) && defined(__GNUC__)
#define ZKELECT_API __attribute__((visibility("default")))
#else
#define ZKELECT_API
#endif

/*
 * Error codes: one table, X-macro style (name, value, text). Values are
 * stable: never renumber, only append.
 */
#define ZKELECT_ERRNO_MAP(XX)                                                   \
    XX(OK,          0,   "success")                                             \
    XX(EINVAL,      -1,  "invalid argument")                                    \
    XX(ENOMEM,      -2,  "out of memory")                                       \
    XX(EIO,         -3,  "input/output error")                                  \
    XX(ERANGE,      -4,  "value out of range")                                  \
    XX(ESYNTAX,     -10, "malformed JSON")                                      \
    XX(EVERSION,    -11, "unsupported payload format version")                  \
    XX(ETYPE,       -12, "field has the wrong type")                            \
    XX(EMISSING,    -13, "required field missing")                              \
    XX(ETOOBIG,     -14, "payload or value too large")                          \
    XX(EUTF8,       -15, "invalid UTF-8")                                       \
    XX(ETRAILING,   -16, "trailing data after the JSON value")                  \
    XX(EBADVALUE,   -17, "field has an invalid value")                          \
    XX(ECONFIG,     -20, "configuration error")                                 \
    XX(ECONNLOSS,   -30, "ZooKeeper connection lost (outcome unknown)")         \
    XX(ETIMEDOUT,   -31, "operation timed out")                                 \
    XX(EEXPIRED,    -32, "ZooKeeper session expired")                           \
    XX(ENOAUTH,     -33, "not authorized by the ZooKeeper ACL")                 \
    XX(EAUTHFAILED, -34, "ZooKeeper authentication failed")                     \
    XX(ENONODE,     -35, "znode does not exist")                                \
    XX(ENODEEXISTS, -36, "znode already exists")                                \
    XX(EBADVERSION, -37, "znode changed concurrently (version mismatch)")       \
    XX(ENOTEMPTY,   -38, "znode has children")                                  \
    XX(EZOOKEEPER,  -39, "ZooKeeper error")                                     \
    XX(ECLOSED,     -40, "handle is closed")                                    \
    XX(ECONNECT,    -41, "cannot connect to ZooKeeper")                         \
    XX(ENOTFOUND,   -50, "policy module not found")                             \
    XX(ENOTSO,      -51, "not a loadable shared object")                        \
    XX(ENOSYM,      -52, "policy entry symbol missing")                         \
    XX(EABI,        -53, "policy ABI major version mismatch")                   \
    XX(ESTRUCT,     -54, "policy descriptor has the wrong size")                \
    XX(ENULLCB,     -55, "policy descriptor has a NULL callback")               \
    XX(EPOLINIT,    -56, "policy init failed")                                  \
    XX(EBADCHOICE,  -57, "policy chose a node that is not an eligible member")  \
    XX(ENOELIGIBLE, -58, "no eligible node")                                    \
    XX(EIDINUSE,    -60, "node id already held by a live session")              \
    XX(ENOTMEMBER,  -61, "not a member of the group")                           \
    XX(EBUSY,       -62, "operation already in progress")                       \
    XX(ESTATE,      -63, "operation not allowed in the current state")          \
    XX(ECANCELED,   -64, "operation canceled")                                  \
    XX(ENOLEADER,   -65, "no leader")

enum zkelect_errno {
#define ZKELECT_ERRNO_ENUM(name, value, text) ZKELECT_##name = (value),
    ZKELECT_ERRNO_MAP(ZKELECT_ERRNO_ENUM)
#undef ZKELECT_ERRNO_ENUM
};

/* The text of a ZKELECT_E* code; "unknown error" for anything else. Static storage. */
ZKELECT_API const char *zkelect_strerror(int err);

/* The symbolic name ("EINVAL", ...) of a code; "UNKNOWN" for anything else. Static storage. */
ZKELECT_API const char *zkelect_errname(int err);

/* The library's version string, e.g. "0.1.0". Static storage. */
ZKELECT_API const char *zkelect_version(void);

#ifdef __cplusplus
}
#endif
#endif /* ZKELECT_H */
