/*
 * statefile.h - zkelectd's state file, <[node] state_dir>/<node id>.state:
 * what a restarted zkelectd must know about the process that ran before it
 * (killed, say, by kill -9): was its service active, at which epoch, and
 * which ZooKeeper session held its znodes.
 *
 * Format (version 1): text, one "key=value" per line, '#' comments, every
 * key exactly once (slot at most once), the last line ending in '\n':
 *
 *     version=1            this format
 *     node=<id>            [node] id of the writer
 *     group=<path>         [cluster] path of the writer
 *     session=<hex>        ZooKeeper session id, 0 when none
 *     passwd=<hex>         its password (32 hex digits), empty when none
 *     timeout_ms=<n>       the session timeout asked for
 *     active=0|1           1 from the start of a takeover to the end of the
 *                          step-down that undid it
 *     epoch=<n>            the epoch of that takeover (0 none)
 *     slot=<k>             optional: the slot of that takeover in a group
 *                          with N active leaders, 1..15; absent = slot 0
 *                          (written only when not 0, so a file of a group
 *                          with one leader is what earlier releases wrote)
 *
 * The file is mode 0600 (it holds the session password), owned by the
 * daemon's user, written atomically (a temporary file in the same
 * directory, fsync, rename, fsync of the directory): a reader sees the old
 * file or the new one, never a mix.
 *
 * Nothing here logs: messages come back in the caller's buffer, naming the
 * file and the problem.
 */
#ifndef ZKD_STATEFILE_H
#define ZKD_STATEFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ZKD_STATE_VERSION   1
#define ZKD_STATE_MAX       4096        /* bytes: a longer file is refused */
#define ZKD_STATE_GROUP_MAX 1024        /* bytes of group */
#define ZKD_STATE_SLOT_MAX  15          /* highest slot (ZKE_LEADERS_MAX - 1) */

struct zkd_state {
    int version;                        /* ZKD_STATE_VERSION */
    char node[65];                      /* node id */
    char group[ZKD_STATE_GROUP_MAX];    /* group base path */
    int64_t session;                    /* session id, 0 none */
    unsigned char passwd[16];           /* its password */
    int passwd_len;                     /* bytes in passwd (16, or 0 when none) */
    int timeout_ms;                     /* session timeout */
    int active;                         /* 1 active, 0 not; -1: a refused file
                                           that does not say */
    uint64_t epoch;                     /* epoch of the active takeover */
    int slot;                           /* its slot, 0..ZKD_STATE_SLOT_MAX (0 when the
                                           file has no slot line) */
};

/* What statefile_read() found. */
enum zkd_state_found {
    ZKD_STATE_NONE = 0,                 /* no file: a first start */
    ZKD_STATE_OK,                       /* a good file: every field may be used */
    ZKD_STATE_BAD                       /* refused (why in err): st->active and
                                           st->epoch say what the file said, if
                                           anything (st->slot too); nothing else
                                           may be used */
};

/* "<dir>/<node>.state" into buf. 0, or -1 when it does not fit. */
int statefile_path(const char *dir, const char *node, char *buf, size_t len);

/*
 * Parse len bytes of text (the file's contents) for node and group into *st.
 * 0 when good; -1 with a message ("line 3: ...") in err otherwise. Even then
 * st->active is 1 or 0 when a well-formed active line was seen (-1 when not)
 * and st->epoch and st->slot the epoch and slot lines' values (0 when none
 * or not well-formed).
 */
int statefile_parse(const char *text, size_t len, const char *node, const char *group,
    struct zkd_state *st, char *err, size_t errlen);

/*
 * Read dir's file for node and check it: a regular file (a symbolic link is
 * refused, not followed), owned by the effective user, mode 0600 or
 * stricter, parsed by statefile_parse(). err = "PATH: problem".
 */
enum zkd_state_found statefile_read(const char *dir, const char *node, const char *group,
    struct zkd_state *st, char *err, size_t errlen);

/* Write st atomically as dir's file for st->node. 0, or -1 with
 * "PATH: problem" in err. */
int statefile_write(const char *dir, const struct zkd_state *st, char *err, size_t errlen);

/*
 * Is dir fit for the state file? A directory owned by the effective user,
 * not writable by group or others. A missing one is created (mode 0700)
 * when create is set; otherwise its parent must let us create it. 0, or -1
 * with "DIR: problem" in err.
 */
int statefile_check_dir(const char *dir, bool create, char *err, size_t errlen);

/* ---- the daemon's use of it (state.c) ----------------------------------
 * A failed write is logged as an error and counted (state_write_failures),
 * and never holds up the election. */
struct zkd;

/* On start, before the session is opened: read the file; if it says the
 * service was active (or a refused file cannot say it was not), run the
 * stepdown hook for that epoch and slot (ZKELECT_EVENT=-restart,
 * ZKELECT_REASON=restart) and record active=0; if it holds a session we can
 * trust, close that session (zkelect_end_session). Logs every outcome. */
void state_boot(struct zkd *d);
/* The service turns active at epoch in slot (before the takeover hook
 * starts). */
void state_active(struct zkd *d, uint64_t epoch, int slot);
/* The service is stopped (after the stepdown hook ended). */
void state_inactive(struct zkd *d);
/* +connected: record the session if it changed (any thread; d->h may be
 * NULL while zkelect_open() runs: then the caller calls it again after). */
void state_session(struct zkd *d);
/* Writes that failed, for /metrics. */
uint64_t state_write_failures(void);

#endif /* ZKD_STATEFILE_H */
