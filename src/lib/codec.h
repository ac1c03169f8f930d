/*
 * codec.h - internal: the JSON payloads of a group's znodes (src/lib/codec.c).
 *
 * One pair of functions per znode kind (member = nodes/<id>, elected, leader,
 * config, switchover, history, successor), plus the validators they share.
 * These are internal functions of libzkelect (hidden, not exported).
 *
 * Wire format: every payload is a compact JSON object (UTF-8, RFC 8259) that
 * carries the format version "v": 1. Within version 1, a decoder ignores
 * fields it does not know (forward compatibility: a later release may add
 * optional fields without bumping "v"); a field it knows must be present when
 * required, have the right JSON type and a valid value. A payload with any
 * other "v" is refused with ZKELECT_EVERSION.
 *
 * Encoding (zke_*_encode):
 *  - returns 0 and stores a malloc'd, NUL-terminated, compact JSON string in
 *    *out and its length (without the NUL) in *outlen. The caller owns *out
 *    and frees it with free(). On failure *out is NULL and *outlen 0.
 *  - ZKELECT_EINVAL when an argument is NULL or the struct is invalid by the
 *    same rules as decoding (an encoder never writes what its decoder would
 *    refuse; a string field that is not NUL-terminated within its array is
 *    invalid too); ZKELECT_ENOMEM when out of memory.
 *  - Every field is written, optional ones included; "" for a nullable id
 *    is written as JSON null. Integers are written as exact JSON integers.
 *    Exceptions, so that a group with one leader writes the payloads of
 *    releases without slots byte for byte: config "leaders" is omitted when
 *    0 or 1, elected "slots" when nslots is 0, leader, history entry and
 *    successor entry "slot" when 0, switchover "from" when "", member
 *    "max_leaders" when 0 (the library always sets it; 0 is a struct nobody
 *    filled in).
 *  - encode then decode gives back an identical struct (if the struct was
 *    zeroed before it was filled in, even memcmp() agrees), except that
 *    config.leaders and member.max_leaders decode as 1 when absent: a
 *    struct with 0 there comes back with 1.
 *
 * Decoding (zke_*_decode):
 *  - buf/len are ZooKeeper data: buf is NOT NUL-terminated; len is its
 *    length; len == -1 means the znode has NULL data (ZKELECT_EMISSING).
 *    buf is only read during the call.
 *  - the output struct is zeroed first and is only meaningful on success.
 *  - err (may be NULL) receives a one-line NUL-terminated message of at most
 *    errlen bytes (truncated if needed; "" on success) that starts with the
 *    payload kind and names the field, e.g.
 *      elected: field "epoch": expected an integer from 1 to 9007199254740991
 *    Untrusted strings in messages are escaped (\xNN for anything but
 *    printable ASCII) and truncated.
 *  - checks, in this order, each with its own code:
 *      len > ZKE_PAYLOAD_MAX                                  ZKELECT_ETOOBIG
 *      invalid UTF-8 anywhere in the bytes (overlong, surrogate, above
 *      U+10FFFF, truncated), or a \u escape that is a lone surrogate
 *      or U+0000                                              ZKELECT_EUTF8
 *      not strict RFC 8259 JSON (empty data included; control characters
 *      in strings; objects/arrays nested deeper than 64)      ZKELECT_ESYNTAX
 *      non-whitespace after the JSON value                    ZKELECT_ETRAILING
 *      a number literal longer than 63 characters             ZKELECT_ERANGE
 *      top level not an object, a field of the wrong type     ZKELECT_ETYPE
 *      "v" missing / not an integer / not 1      EMISSING / ETYPE / EVERSION
 *      a required field missing                               ZKELECT_EMISSING
 *      a string longer than its maximum, too many items       ZKELECT_ETOOBIG
 *      a number not integral or out of the field's range      ZKELECT_ERANGE
 *      a bad string value (node id, site, name, status, guid), a known key
 *      given twice, a duplicate site/tag/option/exclusion/successor slot,
 *      a successor that is its slot's leader, "switchover" true in an
 *      entry of a slot other than 0                           ZKELECT_EBADVALUE
 *    ZKELECT_EINVAL for bad arguments (buf NULL with len > 0, len < -1, the
 *    output struct NULL); ZKELECT_ENOMEM when out of memory.
 *
 * Value rules shared by both directions:
 *  - node id: 1..ZKE_ID_MAX bytes of [A-Za-z0-9._-], not starting with '.'
 *    or '-'. A name (policy, tag, option key, exclusion reason): the same
 *    rule with ZKE_NAME_MAX. A site: the same, except that "" (no site) is
 *    valid; a key of config "sites" must not be "".
 *  - text (host, version, reasons, option values, switchover "by"): valid
 *    UTF-8 without control characters (U+0000..U+001F, U+007F), so that it
 *    stays one line in logs and tables; its maximum is in bytes.
 *  - guid: "" or exactly ZKE_GUID_LEN lower-case hex digits.
 *  - integers: JSON numbers with an integral value inside the field's range
 *    (1.0 is accepted as 1; 1.5 and 1e400 are not).
 *  - all encoded payloads stay below ZKE_PAYLOAD_MAX: text without control
 *    characters at most doubles when escaped.
 *
 * Thread safety: every function is reentrant; cJSON's parser writes a global
 * error pointer, so codec.c serializes its calls to it with a mutex.
 */
#ifndef ZKELECT_CODEC_H
#define ZKELECT_CODEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "zkelect.h"

#define ZKE_FORMAT_VERSION 1                  /* the "v" of every payload */
#define ZKE_PAYLOAD_MAX   65536               /* larger data -> ZKELECT_ETOOBIG before parsing */
#define ZKE_ID_MAX        64                  /* node id length */
#define ZKE_SITE_MAX      64                  /* site name length */
#define ZKE_NAME_MAX      64                  /* policy name, tag, option key, exclusion reason */
#define ZKE_VALUE_MAX     255                 /* option value */
#define ZKE_HOST_MAX      255                 /* host name */
#define ZKE_VERSION_MAX   32                  /* software version string */
#define ZKE_REASON_MAX    159                 /* decision reason text */
#define ZKE_TAGS_MAX      16                  /* tags of a member */
#define ZKE_EXCLUDED_MAX  64                  /* exclusions in elected */
#define ZKE_SITES_MAX     32                  /* site priorities in config */
#define ZKE_OPTIONS_MAX   32                  /* policy options in config */
#define ZKE_HISTORY_MAX   64                  /* entries kept in history */
#define ZKE_ZNODE_MAX     120    /* election znode name: <id>_<guid>_<seq> */
#define ZKE_GUID_LEN      32                  /* lower-case hex */
#define ZKE_EPOCH_MAX     9007199254740991ULL /* 2^53-1: exact in a JSON number */
#define ZKE_PRIORITY_MIN  (-1000000)          /* lowest node/site priority */
#define ZKE_PRIORITY_MAX  1000000             /* highest node/site priority */

/* Limits of the integer fields that are not listed above. */
#define ZKE_REMAINING_MAX (86400000ULL * 7)   /* zke_exclusion.remaining_ms: 7 days */
#define ZKE_WATCHDOG_MIN  100                 /* zke_config.watchdog_ms, when not 0 */
#define ZKE_WATCHDOG_MAX  3600000             /* zke_config.watchdog_ms: 1 hour */
#define ZKE_EXCLUDE_MAX   86400000            /* zke_config.exclude_ms: 1 day */
#define ZKE_SETTLE_MAX    3600000             /* zke_config.settle_ms: 1 hour */
#define ZKE_DELAY_MAX     86400000            /* failback_delay_ms, min_move_interval_ms: 1 day */
#define ZKE_EXPECT_MAX    10000               /* zke_config.expect */
#define ZKE_DRAINS_MAX    32                  /* drains in config */
#define ZKE_LEADERS_MAX   16                  /* config.leaders: active slots of a group */

/* Status of the leader znode: enum zkelect_status of zkelect.h ("PROGRESS",
 * "READY"; NONE is never encoded). */

/* nodes/<id>: a member's registration. */
struct zke_member {
    char id[ZKE_ID_MAX + 1];                  /* required node id */
    char site[ZKE_SITE_MAX + 1];              /* required site, may be "" */
    int32_t priority;                         /* required, ZKE_PRIORITY_MIN..MAX */
    char host[ZKE_HOST_MAX + 1];              /* optional text, "" */
    int64_t pid;                              /* optional, 0..ZKE_EPOCH_MAX, 0 = unknown */
    char version[ZKE_VERSION_MAX + 1];        /* optional text: software version */
    char tags[ZKE_TAGS_MAX][ZKE_NAME_MAX + 1]; /* optional array of distinct names */
    int ntags;                                /* number of tags, 0..ZKE_TAGS_MAX */
    bool eligible;                            /* required: may lead (own config) */
    bool healthy;                             /* required: its health check passes */
    char guid[ZKE_GUID_LEN + 1];              /* optional, "" or 32 lower-case hex */
    uint32_t max_leaders;                     /* optional: the largest N this member can
                                                 serve, 1..ZKE_LEADERS_MAX; the decoder
                                                 stores 1 when absent (every release
                                                 before slots); the encoder omits 0 */
    bool wake;                                /* optional (omitted when false): this
                                                 member is woken through its election
                                                 znode when elected (it may follow
                                                 nothing); false in every release
                                                 before the wake */
    bool fast_handover;                       /* optional (omitted when false): as the
                                                 elector this member wakes with two
                                                 writes, and as a successor it may take
                                                 a handover at its wake (doc/PROTOCOL.md
                                                 §4, "The fast handover"); false in every
                                                 release before it */
};

/* One entry of elected "excluded": a node kept from leading for a while. */
struct zke_exclusion {
    char id[ZKE_ID_MAX + 1];                  /* required node id */
    char reason[ZKE_NAME_MAX + 1];            /* required name, e.g. "watchdog" */
    uint64_t remaining_ms;                    /* required, 0..ZKE_REMAINING_MAX */
};

/* What the elector waits for before it decides (elected "hold"). */
struct zke_hold {
    char kind[ZKE_NAME_MAX + 1];              /* "" = none, "settle", "failback", "anti-flap" */
    char node[ZKE_ID_MAX + 1];                /* the node that may lead when it ends, or "" */
    int64_t until_ms;                         /* wall-clock ms since 1970 (display only),
                                                 0..ZKE_EPOCH_MAX */
};

/* One entry of elected "slots": slot k >= 1 of a group with N > 1 leaders
   (slot 0 is the top level of elected). */
struct zke_slot {
    int slot;                                 /* required, 1..ZKE_LEADERS_MAX-1; entry i
                                                 is slot i+1 */
    char leader[ZKE_ID_MAX + 1];              /* required node id; JSON null <-> "" (empty slot) */
    char leader_site[ZKE_SITE_MAX + 1];       /* optional site */
    char leader_znode[ZKE_ZNODE_MAX + 1];     /* optional election znode name, "" unknown */
    uint64_t epoch;                           /* required, 0..ZKE_EPOCH_MAX; 1.. when the
                                                 slot has a leader (its fencing token) */
    int64_t since_ms;                         /* optional wall-clock ms, 0..ZKE_EPOCH_MAX */
};

/* elected: the elector's decision. */
struct zke_elected {
    uint64_t epoch;                           /* required, 1..ZKE_EPOCH_MAX */
    char leader[ZKE_ID_MAX + 1];              /* required node id; JSON null <-> "" (no leader) */
    char leader_site[ZKE_SITE_MAX + 1];       /* optional site */
    char leader_znode[ZKE_ZNODE_MAX + 1];     /* optional: the leader's election znode
                                                 name when decided ("" unknown); a
                                                 later registration of the same id
                                                 is not this leader */
    char previous[ZKE_ID_MAX + 1];            /* optional node id; null/"" <-> "" (none) */
    char leader_host[ZKE_HOST_MAX + 1];       /* optional (omitted when ""): the leader's
                                                 host as its record said when decided */
    char previous_host[ZKE_HOST_MAX + 1];     /* optional (omitted when ""): the previous
                                                 leader's, a fencing target that members
                                                 not following the leader never saw */
    bool wake;                                /* optional (omitted when false): written by
                                                 an elector that wakes the node it elects,
                                                 while every member's record says "wake":
                                                 members may then follow nothing */
    bool fast_handover;                       /* optional (omitted when false): written by
                                                 an elector that wakes with two writes,
                                                 while every member's record says
                                                 "fast_handover"; a handover over it has
                                                 the epoch one above its own */
    char elector[ZKE_ID_MAX + 1];             /* required node id */
    char policy[ZKE_NAME_MAX + 1];            /* required name */
    char reason[ZKE_REASON_MAX + 1];          /* required text, may be "" */
    int64_t at_ms;                            /* optional wall-clock ms since 1970, 0..ZKE_EPOCH_MAX */
    uint64_t switchover_id;                   /* optional, last switchover acted on, 0 = none */
    int32_t config_version;                   /* optional: version of the config znode the
                                                 elector last evaluated (acknowledged);
                                                 -1 = config absent; 0 when not written */
    struct zke_exclusion excluded[ZKE_EXCLUDED_MAX]; /* required array of distinct ids (may be empty) */
    int nexcluded;                            /* number of exclusions, 0..ZKE_EXCLUDED_MAX */
    struct zke_hold hold;                     /* optional: what the elector waits for */
    struct zke_slot slots[ZKE_LEADERS_MAX - 1]; /* optional array "slots" (N > 1 only):
                                                 slots 1..nslots in order; a node id
                                                 appears in at most one slot, the
                                                 top-level leader (slot 0) included */
    int nslots;                               /* 0..ZKE_LEADERS_MAX-1 (N-1); 0 = not written */
};

/* leader: the elected node's own znode. */
struct zke_leader {
    char id[ZKE_ID_MAX + 1];                  /* required node id */
    enum zkelect_status status;               /* required: "PROGRESS" | "READY" */
    uint64_t epoch;                           /* required, 1..ZKE_EPOCH_MAX */
    int64_t since_ms;                         /* optional wall-clock ms, 0..ZKE_EPOCH_MAX */
    int slot;                                 /* optional, 0..ZKE_LEADERS_MAX-1: the slot
                                                 whose leader znode this is ("leader" is
                                                 slot 0, "leader-<k>" slot k); omitted
                                                 when 0 */
    char previous[ZKE_ID_MAX + 1];            /* optional (omitted when ""): the
                                                 decision's previous leader (slot 0) */
    bool has_member;                          /* "member" present: the leader's own
                                                 record as it was when written, so
                                                 that a watcher needs no read of it */
    char site[ZKE_SITE_MAX + 1];              /* member.site, optional */
    char host[ZKE_HOST_MAX + 1];              /* member.host, optional */
    int priority;                             /* member.priority, optional (0) */
};

/* One entry of config "sites" ({"dc1": 100}). */
struct zke_site_prio {
    char site[ZKE_SITE_MAX + 1];              /* site, not "" */
    int32_t priority;                         /* ZKE_PRIORITY_MIN..MAX */
};

/* One entry of config "options" ({"sticky": "yes"}). */
struct zke_option {
    char key[ZKE_NAME_MAX + 1];               /* name */
    char value[ZKE_VALUE_MAX + 1];            /* text, may be "" */
};

/* One entry of config "drains" ({"n1": {"until_ms": W, "reason": "...", "by": "..."}}):
   an operator keeps the node from leading until a wall-clock time. */
struct zke_drain {
    char id[ZKE_ID_MAX + 1];                  /* node id */
    int64_t until_ms;                         /* required wall-clock ms, 1..ZKE_EPOCH_MAX */
    char reason[ZKE_REASON_MAX + 1];          /* optional text */
    char by[ZKE_NAME_MAX + 1];                /* optional text: who drained it */
};

/* config: the operator's settings; every field is optional except "v". */
struct zke_config {
    char policy[ZKE_NAME_MAX + 1];            /* "" = the node's own configured policy */
    struct zke_site_prio sites[ZKE_SITES_MAX]; /* distinct sites, in payload order */
    int nsites;                               /* number of sites, 0..ZKE_SITES_MAX */
    uint32_t watchdog_ms;                     /* 0 = node default, else 100..3600000 */
    uint32_t exclude_ms;                      /* 0 = node default, else 1..86400000 */
    struct zke_option options[ZKE_OPTIONS_MAX]; /* distinct keys, in payload order */
    int noptions;                             /* number of options, 0..ZKE_OPTIONS_MAX */
    bool paused;                              /* elections paused; default false */
    bool settle_set;                          /* "settle_ms" present (else the node default) */
    uint32_t settle_ms;                       /* cold-start wait, 0..ZKE_SETTLE_MAX; 0 = none */
    uint32_t expect;                          /* members expected at a cold start,
                                                 0 = not set, else 1..ZKE_EXPECT_MAX */
    bool failback_set;                        /* "failback_delay_ms" present */
    uint32_t failback_delay_ms;               /* 0..ZKE_DELAY_MAX */
    bool min_move_set;                        /* "min_move_interval_ms" present */
    uint32_t min_move_interval_ms;            /* 0..ZKE_DELAY_MAX */
    struct zke_drain drains[ZKE_DRAINS_MAX];  /* distinct ids, in payload order */
    int ndrains;                              /* 0..ZKE_DRAINS_MAX */
    uint32_t leaders;                         /* N, the active slots, 1..ZKE_LEADERS_MAX;
                                                 the decoder stores 1 when absent, the
                                                 encoder omits 0 and 1 */
};

/* switchover: an operator's request to move leadership. */
struct zke_switchover {
    uint64_t id;                              /* required, 0..ZKE_EPOCH_MAX; 0 = no request
                                                 (what zkelect init writes) */
    char to[ZKE_ID_MAX + 1];                  /* required node id; null <-> "" = any other node */
    int64_t at_ms;                            /* optional wall-clock ms, 0..ZKE_EPOCH_MAX */
    char by[ZKE_NAME_MAX + 1];                /* optional text: who asked */
    char site[ZKE_SITE_MAX + 1];              /* optional: move to the best node of this
                                                 site ("" = none); not with a "to" */
    int64_t due_ms;                           /* optional wall-clock ms at which to act,
                                                 0 = at once */
    bool cancel;                              /* optional: cancels the pending request */
    char from[ZKE_ID_MAX + 1];                /* optional node id: move the slot this node
                                                 holds; "" (omitted) = slot 0; never
                                                 equal to "to" */
};

/* One past decision in history. */
struct zke_history_entry {
    uint64_t epoch;                           /* required, 1..ZKE_EPOCH_MAX */
    char leader[ZKE_ID_MAX + 1];              /* required node id; null <-> "" (no leader) */
    char elector[ZKE_ID_MAX + 1];             /* required node id */
    char policy[ZKE_NAME_MAX + 1];            /* required name */
    char reason[ZKE_REASON_MAX + 1];          /* required text, may be "" */
    int64_t at_ms;                            /* optional wall-clock ms, 0..ZKE_EPOCH_MAX */
    int slot;                                 /* optional, 0..ZKE_LEADERS_MAX-1: the slot
                                                 decided; omitted when 0 */
};

/* history: {"v":1,"entries":[...]}, oldest first. Epoch order is not checked. */
struct zke_history {
    struct zke_history_entry entries[ZKE_HISTORY_MAX]; /* required array, oldest first */
    int n;                                    /* number of entries, 0..ZKE_HISTORY_MAX */
};

/* One entry of successor "slots": who takes slot `slot` if its leader leaves. */
struct zke_succ {
    int slot;                                 /* optional, 0..ZKE_LEADERS_MAX-1; omitted
                                                 when 0; distinct among the entries */
    char leader[ZKE_ID_MAX + 1];              /* required node id: the slot's leader
                                                 when the record was written */
    char leader_znode[ZKE_ZNODE_MAX + 1];     /* required election znode name of that
                                                 leader, not "" */
    char successor[ZKE_ID_MAX + 1];           /* required node id, not the leader */
    char successor_site[ZKE_SITE_MAX + 1];    /* optional site, "" */
    char successor_host[ZKE_HOST_MAX + 1];    /* optional (omitted when ""): its host, for
                                                 the handover decision's leader_host */
    char successor_znode[ZKE_ZNODE_MAX + 1];  /* required election znode name of the
                                                 successor, not "" */
    int32_t successor_version;                /* optional, 0..INT32_MAX: the version of
                                                 the successor's member record the
                                                 choice was made on; the decoder stores
                                                 -1 when absent, the encoder omits a
                                                 negative one */
    bool switchover;                          /* optional (omitted when false): slot 0
                                                 only; the policy, asked with the leader
                                                 present for a switchover with no target
                                                 and for one to this successor, chooses
                                                 it both times: an operator's switchover
                                                 may write the decision itself
                                                 (doc/PROTOCOL.md §4, "The operator's
                                                 direct switchover") */
};

/*
 * successor: written only by the elector, whenever the policy's answer
 * changes: for each slot with a leader, what the policy would choose if that
 * leader left. A resigning leader uses its entry to write the handover
 * decision itself, and an operator's switchover the entry's switchover flag
 * to write its decision (doc/PROTOCOL.md §4).
 */
struct zke_successor {
    int32_t elected_version;                  /* required, 0..INT32_MAX: the version
                                                 of elected the record is valid for */
    int32_t history_version;                  /* optional, 0..INT32_MAX: the version of
                                                 history it is valid for (every decision
                                                 writes history, also after elected was
                                                 re-created); the decoder stores -1 when
                                                 absent (no handover), the encoder
                                                 omits a negative one */
    int32_t config_version;                   /* optional, 0..INT32_MAX: the config's
                                                 version it was made with; -1 (absent)
                                                 when there was no config */
    uint64_t next_epoch;                      /* required, 1..ZKE_EPOCH_MAX: the epoch
                                                 a handover decision gets */
    char elector[ZKE_ID_MAX + 1];             /* required node id */
    char policy[ZKE_NAME_MAX + 1];            /* required name */
    int64_t at_ms;                            /* optional wall-clock ms since 1970,
                                                 0..ZKE_EPOCH_MAX */
    struct zke_succ slots[ZKE_LEADERS_MAX];   /* required array (may be empty), in
                                                 payload order; no entry for a slot
                                                 the policy fills with nobody */
    int nslots;                               /* number of entries, 0..ZKE_LEADERS_MAX */
};

/*
 * Encoders: the struct is borrowed for the call; *out is owned by the caller
 * (free()). Decoders: buf is borrowed for the call, the struct and err are
 * the caller's. See the top of this file for the codes.
 */
int zke_member_encode(const struct zke_member *m, char **out, size_t *outlen);
int zke_member_decode(const char *buf, int len, struct zke_member *m,
    char *err, size_t errlen);
int zke_elected_encode(const struct zke_elected *e, char **out, size_t *outlen);
int zke_elected_decode(const char *buf, int len, struct zke_elected *e,
    char *err, size_t errlen);
int zke_leader_encode(const struct zke_leader *l, char **out, size_t *outlen);
int zke_leader_decode(const char *buf, int len, struct zke_leader *l,
    char *err, size_t errlen);
int zke_config_encode(const struct zke_config *c, char **out, size_t *outlen);
int zke_config_decode(const char *buf, int len, struct zke_config *c,
    char *err, size_t errlen);
int zke_switchover_encode(const struct zke_switchover *s, char **out,
    size_t *outlen);
int zke_switchover_decode(const char *buf, int len, struct zke_switchover *s,
    char *err, size_t errlen);
int zke_history_encode(const struct zke_history *h, char **out, size_t *outlen);
int zke_history_decode(const char *buf, int len, struct zke_history *h,
    char *err, size_t errlen);
int zke_successor_encode(const struct zke_successor *s, char **out,
    size_t *outlen);
int zke_successor_decode(const char *buf, int len, struct zke_successor *s,
    char *err, size_t errlen);

/*
 * The entry of slot in s (borrowed from s, lives as long as s), or NULL when
 * s has none (s NULL included).
 */
const struct zke_succ *zke_successor_slot(const struct zke_successor *s,
    int slot);

/* 1 if id is a valid node id, else 0 (NULL included). */
int zke_id_valid(const char *id);

/* 1 if site is a valid site ("" is valid), else 0 (NULL included). */
int zke_site_valid(const char *site);

/* 1 if name is a valid policy name, tag, option key or exclusion reason. */
int zke_name_valid(const char *name);

/* Append a copy of *e to h, dropping the oldest entry when h is full. */
void zke_history_push(struct zke_history *h, const struct zke_history_entry *e);

#endif /* ZKELECT_CODEC_H */
