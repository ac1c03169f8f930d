/*
 * zkelect/policy.h - the ABI of a zkelect election policy (the one header a
 * policy module needs).
 *
 * A policy is a shared object that exports one function, ZKELECT_POLICY_ENTRY
 * ("zkelect_policy_entry"), returning a pointer to a static, read-only
 * struct zkelect_policy. The host (libzkelect, on the elector) dlopen()s the
 * module with RTLD_NOW|RTLD_LOCAL, checks the descriptor, calls init() once
 * with the policy options, then choose() on every election, then fini().
 *
 * A group may have N active leaders ("slots" 0..N-1, ABI 1.1): for N > 1
 * the host calls choose_set() instead of choose(), and a module that has no
 * choose_set() can serve N = 1 only (the host refuses it for N > 1).
 *
 * A policy is a pure function of its input: the same input gives the same
 * output, it does no I/O, it keeps no pointer into the input after choose()
 * (or choose_set()) returns, and it never blocks. It runs on the elector's
 * state-machine thread.
 *
 * Versioning: the host refuses a module whose abi_major differs from its own,
 * or whose descriptor is smaller than the ABI-1.0 struct. A later minor
 * version only appends fields; the host reads them only when the module's
 * abi_minor says they exist. Input structs carry their own size so a module
 * can tell which fields the host filled.
 *
 * ABI 1.1 appends (and 1.0 modules keep loading and working unchanged):
 *  - struct zkelect_policy_input: leaders, slot_holders, nslots. A module
 *    reads them only when in->size covers them (ZKELECT_POLICY_INPUT_HAS);
 *    a 1.1 host always fills them, also for N = 1.
 *  - struct zkelect_policy_output: chosen_set[], nchosen. The host zero-fills
 *    the whole struct it passes (also to a 1.0 module's choose(), which
 *    simply never sees the new fields).
 *  - struct zkelect_policy: choose_set. The host reads it only when
 *    abi_minor >= 1; a descriptor with abi_minor >= 1 whose size does not
 *    cover choose_set is refused at load. A 1.0 module (abi_minor 0, size of
 *    the 1.0 struct) has no choose_set: it serves groups with N = 1.
 *
 * Ownership and lifetime, for every pointer below:
 *  - struct zkelect_policy (returned by the entry): owned by the module,
 *    static storage, must stay valid until the module is unloaded.
 *  - every pointer inside struct zkelect_policy_input (strings, arrays,
 *    slot_holders and its strings): owned by the host, valid only for the
 *    duration of one choose() or choose_set() call.
 *  - options passed to init(): owned by the host, valid only during init();
 *    copy what you keep into your state.
 *  - the state pointer set by init(): owned by the module, passed back to
 *    choose() and choose_set() and freed by fini(). It may be NULL for a
 *    stateless policy.
 *  - err / out->reason buffers: owned by the host; the module writes a
 *    NUL-terminated string of at most errlen/sizeof(reason) bytes.
 */
#ifndef ZKELECT_POLICY_H
#define ZKELECT_POLICY_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ZKELECT_POLICY_ABI_MAJOR 1                  /* incompatible changes */
#define ZKELECT_POLICY_ABI_MINOR 1                  /* appended fields */
#define ZKELECT_POLICY_ENTRY "zkelect_policy_entry" /* the exported symbol */
#define ZKELECT_POLICY_SLOTS_MAX 16                 /* most active leaders (slots) of a group */

/* Why an election runs: bits in zkelect_policy_input.reasons (several may be set). */
#define ZKELECT_REASON_INITIAL        0x0001u /* first decision, or a new elector starts */
#define ZKELECT_REASON_MEMBER_JOINED  0x0002u /* a member registered */
#define ZKELECT_REASON_MEMBER_LEFT    0x0004u /* a member's registration vanished */
#define ZKELECT_REASON_MEMBER_CHANGED 0x0008u /* a member's priority/eligibility/health changed */
#define ZKELECT_REASON_LEADER_LOST    0x0010u /* the leader's registration or znode vanished */
#define ZKELECT_REASON_CONFIG_CHANGED 0x0020u /* the cluster config changed */
#define ZKELECT_REASON_WATCHDOG       0x0040u /* the elected node was not READY in time */
#define ZKELECT_REASON_SWITCHOVER     0x0080u /* an operator asked to move leadership */
#define ZKELECT_REASON_EXCLUSION_END  0x0100u /* an exclusion expired */
#define ZKELECT_REASON_LEADER_RESIGNED 0x0200u /* the leader resigned gracefully */
#define ZKELECT_REASON_DRAIN_END      0x0400u /* an operator's drain of a node expired */
#define ZKELECT_REASON_HOLD_END       0x0800u /* a hold (settle, failback, anti-flap) ended */

/* Status of the current leader's znode. The same values as enum
 * zkelect_status of zkelect.h (the library asserts it at compile time): a
 * copy, so that a policy module needs this header only. */
enum zkelect_leader_status {
    ZKELECT_LEADER_NONE = 0,     /* no leader znode */
    ZKELECT_LEADER_PROGRESS = 1, /* taking over */
    ZKELECT_LEADER_READY = 2     /* serving */
};

/* One live member of the group, as registered under nodes/ and election/. */
struct zkelect_member {
    const char *id;               /* node id, never NULL */
    const char *site;             /* site name, "" when the node has none */
    int priority;                 /* node priority: higher is preferred */
    int64_t seq;                  /* sequence of its election znode (lower = older) */
    const char *const *tags;      /* ntags tag strings */
    size_t ntags;                 /* number of tags */
    int eligible;                 /* non-zero: the node may lead (its own config) */
    int healthy;                  /* non-zero: its health check passes */
    int excluded;                 /* non-zero: listed in the exclusions below */
};

/* A node excluded from leading for a while (by the watchdog, a failed takeover, ...). */
struct zkelect_exclusion {
    const char *id;               /* node id */
    const char *reason;           /* why, e.g. "watchdog", "takeover-failed" */
    uint64_t remaining_ms;        /* how much longer the exclusion lasts */
};

/* A site's priority from the cluster config: higher wins; <= 0 never leads. */
struct zkelect_site_priority {
    const char *site;             /* site name */
    int priority;                 /* site priority */
};

/* A key=value option (policy options, from the cluster config). */
struct zkelect_option {
    const char *key;              /* lower-case key */
    const char *value;            /* value as written */
};

/* Everything a policy may look at. */
struct zkelect_policy_input {
    size_t size;                                  /* sizeof(struct) as built by the host */
    const struct zkelect_member *members;         /* live members, ordered by seq */
    size_t nmembers;                              /* number of members */
    const char *current_leader;                   /* node `elected` names now, or NULL */
    const char *current_leader_site;              /* its site when elected ("" unknown), or NULL */
    int current_present;                          /* non-zero: current_leader is a live member */
    enum zkelect_leader_status current_status;    /* status of the leader znode */
    const char *previous_leader;                  /* leader before current_leader, or NULL */
    const struct zkelect_exclusion *excluded;     /* excluded nodes with reasons */
    size_t nexcluded;                             /* number of exclusions */
    const struct zkelect_site_priority *sites;    /* site priorities from the config */
    size_t nsites;                                /* number of sites */
    const struct zkelect_option *options;         /* policy options from the config */
    size_t noptions;                              /* number of options */
    unsigned reasons;                             /* ZKELECT_REASON_* bits */
    const char *switchover_target;                /* with REASON_SWITCHOVER: the node asked
                                                     for, or NULL for "any other node" */
    /* ABI 1.1 (check in->size first: ZKELECT_POLICY_INPUT_HAS(in, nslots)) */
    unsigned leaders;                             /* N, the number of slots, 1..16 */
    const char *const *slot_holders;              /* nslots entries: the node slot k names
                                                     now, NULL for an empty slot; slot 0's
                                                     is current_leader */
    size_t nslots;                                /* number of slot_holders (= leaders) */
};

/* Non-zero when the host filled input field f (the input's size covers it). */
#define ZKELECT_POLICY_INPUT_HAS(in, f)                                       \
    ((in)->size >= offsetof(struct zkelect_policy_input, f) +                 \
                   sizeof(((struct zkelect_policy_input *)0)->f))

/*
 * What choose() and choose_set() return. The host zero-fills the whole struct
 * and sets chosen = -1 and nchosen = 0 first. choose() sets chosen;
 * choose_set() sets chosen_set[0..nchosen-1] (chosen is ignored).
 */
struct zkelect_policy_output {
    int chosen;                   /* index into input->members, or -1 for none */
    char reason[160];             /* why (required when chosen == -1 or nchosen <
                                     leaders), NUL-terminated */
    /* ABI 1.1 */
    int chosen_set[ZKELECT_POLICY_SLOTS_MAX]; /* choose_set(): indexes into
                                     input->members, distinct, best first */
    int nchosen;                  /* entries of chosen_set, 0..input->leaders */
};

/* The descriptor a module's entry function returns. */
struct zkelect_policy {
    uint16_t abi_major;           /* ZKELECT_POLICY_ABI_MAJOR the module was built with */
    uint16_t abi_minor;           /* ZKELECT_POLICY_ABI_MINOR the module was built with */
    uint32_t size;                /* sizeof(struct zkelect_policy) */
    const char *name;             /* policy name, e.g. "site"; static storage */

    /*
     * Parse options and set *state. Return 0, or non-zero with a message in
     * err (an unknown key or bad value must fail here, naming it).
     */
    int (*init)(void **state, const struct zkelect_option *options, size_t noptions,
                char *err, size_t errlen);

    /* Free what init() allocated. Called exactly once per successful init(). */
    void (*fini)(void *state);

    /*
     * Choose the leader. Return 0 with out->chosen set (or -1 and a reason);
     * non-zero means the policy failed (out->reason says why). The host
     * refuses a chosen member that is not eligible, healthy and unexcluded.
     */
    int (*choose)(void *state, const struct zkelect_policy_input *in,
                  struct zkelect_policy_output *out);

    /*
     * ABI 1.1, may be NULL (the module then serves N = 1 only). Choose the
     * leaders of a group with in->leaders slots: an ORDERED set of up to
     * in->leaders DISTINCT member indexes in out->chosen_set[0..nchosen-1],
     * best first, each of which can lead; fewer (even 0) when not enough
     * members can lead, with out->reason saying why. Return 0; non-zero
     * means the policy failed (out->reason says why), as for choose().
     *
     * Rules: the first element is what choose() returns for the same input
     * (so slot 0 keeps its meaning; none when choose() returns -1). The host
     * keeps the slots sticky (a chosen node keeps its slot), so a policy
     * only orders; but a policy that does not preempt (preempt = off) keeps
     * the current holders (in->slot_holders) that can still lead in the set.
     * The host refuses the whole set when an index is out of range, given
     * twice, or names a member that cannot lead, or when nchosen is outside
     * 0..in->leaders. The host calls choose(), not choose_set(), when N = 1.
     */
    int (*choose_set)(void *state, const struct zkelect_policy_input *in,
                      struct zkelect_policy_output *out);
};

/* The type of the exported entry function. */
typedef const struct zkelect_policy *(*zkelect_policy_entry_fn)(void);

/* Non-zero when a member may be chosen: eligible, healthy and not excluded. */
static inline int
zkelect_member_can_lead(const struct zkelect_member *m)
{
    return m->eligible && m->healthy && !m->excluded;
}

/*
 * The node-id order every shipped policy uses ("numeric-aware"): ids are
 * compared in runs; a run of digits compares as a number (leading zeros
 * ignored, then fewer leading zeros first), anything else byte by byte. So
 * "n2" < "n10" < "n10a" < "o1". Returns <0, 0, >0 like strcmp; 0 only for
 * identical strings.
 */
static inline int
zkelect_id_compare(const char *a, const char *b)
{
    while (*a && *b) {
        if (*a >= '0' && *a <= '9' && *b >= '0' && *b <= '9') {
            const char *sa = a, *sb = b, *ea, *eb;
            size_t la, lb;
            while (*sa == '0') sa++;
            while (*sb == '0') sb++;
            for (ea = sa; *ea >= '0' && *ea <= '9'; ea++) ;
            for (eb = sb; *eb >= '0' && *eb <= '9'; eb++) ;
            la = (size_t)(ea - sa);
            lb = (size_t)(eb - sb);
            if (la != lb)
                return la < lb ? -1 : 1;
            for (; sa < ea; sa++, sb++)
                if (*sa != *sb)
                    return *sa < *sb ? -1 : 1;
            /* same number: fewer leading zeros (shorter run) first */
            if ((ea - a) != (eb - b))
                return (ea - a) < (eb - b) ? -1 : 1;
            a = ea;
            b = eb;
        } else {
            if (*a != *b)
                return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
            a++;
            b++;
        }
    }
    return (unsigned char)*a < (unsigned char)*b ? -1 : ((unsigned char)*a > (unsigned char)*b);
}

/* The entry every module defines, e.g.
 *   ZKELECT_POLICY_EXPORT const struct zkelect_policy *zkelect_policy_entry(void)
 *   { return &my_policy; }
 */
#if defined(__GNUC__)
#define ZKELECT_POLICY_EXPORT __attribute__((visibility("default")))
#else
#define ZKELECT_POLICY_EXPORT
#endif

#ifdef __cplusplus
}
#endif
#endif /* ZKELECT_POLICY_H */
