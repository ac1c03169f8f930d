/*
 * policy.h - internal: the policy plugin loader (src/lib/policy.c).
 *
 * Loads a policy module (include/zkelect/policy.h is its ABI), checks its
 * descriptor, runs init() with the options, and validates every choice the
 * module makes: a policy is never trusted to pick a member that may lead.
 *
 * Error messages: every function that takes an err/reason buffer writes one
 * NUL-terminated line into it (truncated to its length) on failure, naming
 * the module file and the cause. A NULL buffer or a zero length is allowed.
 * None of these functions print.
 *
 * Not thread-safe per handle: one struct zke_policy is used by one thread at
 * a time (the elector's state machine). Distinct handles are independent.
 */
#ifndef ZKELECT_LIB_POLICY_H
#define ZKELECT_LIB_POLICY_H

#include <stddef.h>

#include "zkelect/policy.h"

/* A loaded and initialised policy. Opaque; freed by zke_policy_unload(). */
struct zke_policy;

/*
 * Load a policy module, check it and call its init() with opts.
 *
 * name_or_path: a name ([a-z0-9_-]+, at most 64 bytes) is the file NAME.so,
 *   looked up in order in each directory of search_path (colon-separated,
 *   may be NULL; empty entries are skipped), then of $ZKELECT_POLICY_PATH
 *   (read with secure_getenv), then in ZKELECT_POLICYDIR (the installed
 *   policy directory). The first existing file is the one loaded. A string
 *   containing '/' is a path, used as is. Borrowed for the call only.
 * opts, nopts: the policy options; borrowed for the call only (the module
 *   copies what it keeps). opts may be NULL when nopts is 0.
 * out: set to a new handle on success, NULL on failure; free it with
 *   zke_policy_unload().
 * err, errlen: the message on failure (caller's buffer).
 *
 * Returns 0 or:
 *   ZKELECT_EINVAL     bad name (or NULL arguments)
 *   ZKELECT_ENOTFOUND  no such file (the message lists the files tried)
 *   ZKELECT_ENOTSO     the file exists but dlopen() fails (dlerror() text)
 *   ZKELECT_ENOSYM     no zkelect_policy_entry symbol
 *   ZKELECT_ESTRUCT    the entry returned NULL, or the descriptor is smaller
 *                      than the ABI 1.0 struct, or than the ABI 1.1 struct
 *                      when its abi_minor is 1 or more
 *   ZKELECT_EABI       abi_major differs from ZKELECT_POLICY_ABI_MAJOR
 *                      (the message has both numbers)
 *   ZKELECT_ENULLCB    NULL name, init, choose or fini
 *   ZKELECT_EPOLINIT   init() failed (the message has the module's own text)
 *   ZKELECT_ENOMEM     out of memory
 */
int zke_policy_load(const char *name_or_path, const char *search_path,
                    const struct zkelect_option *opts, size_t nopts,
                    struct zke_policy **out, char *err, size_t errlen);

/*
 * Run the policy on one input and validate its answer.
 *
 * in: borrowed for the call; the host fills it (members[].excluded must
 *   agree with the exclusion list).
 * chosen: set to an index into in->members, or -1 for "no leader" (both are
 *   successes); set to -1 on every failure.
 * reason, reasonlen: on success the policy's reason (always NUL-terminated,
 *   even when the module did not terminate it; a default text when the
 *   module gave none); on failure the error message, naming the policy.
 *
 * Returns 0 or:
 *   ZKELECT_EINVAL      NULL p, in or chosen; or the policy itself failed
 *                       (choose() returned non-zero: its reason is in the
 *                       message). The elector keeps the current leader.
 *   ZKELECT_EBADCHOICE  the policy returned an index outside [0, nmembers),
 *                       or a member that zkelect_member_can_lead() refuses
 *                       or whose id is in in->excluded. Never trusted.
 */
int zke_policy_choose(struct zke_policy *p, const struct zkelect_policy_input *in,
                      int *chosen, char *reason, size_t reasonlen);

/*
 * Non-zero when the policy can choose a set (ABI 1.1 module with a non-NULL
 * choose_set), i.e. can serve a group with leaders > 1. 0 for a 1.0 module,
 * a 1.1 module without choose_set, and NULL.
 */
int zke_policy_can_choose_set(const struct zke_policy *p);

/*
 * Run the policy's choose_set() on one input and validate its answer.
 *
 * in: as for zke_policy_choose(), with the ABI 1.1 fields filled:
 *   in->size >= sizeof(struct zkelect_policy_input), in->leaders 1..16,
 *   slot_holders (nslots <= 16 entries, NULL entries for empty slots).
 *   With in->leaders == 1 the policy's choose() is called instead
 *   (zke_policy_choose()), so N = 1 behaves exactly as before slots, for
 *   every module; the answer is then a set of 0 or 1.
 * chosen: the caller's array of at least in->leaders (or
 *   ZKELECT_POLICY_SLOTS_MAX) ints; on success chosen[0..*n-1] are distinct
 *   indexes into in->members of members that can lead, best first.
 * n: set to the number of entries, 0..in->leaders (0 is a success: nobody
 *   can lead; the reason says why); 0 on every failure.
 * reason, reasonlen: as for zke_policy_choose().
 *
 * Returns 0 or:
 *   ZKELECT_EINVAL      NULL p, in, chosen or n; an input without the ABI
 *                       1.1 fields or with leaders outside 1..16; or the
 *                       policy failed (choose_set() returned non-zero).
 *   ZKELECT_ECONFIG     leaders > 1 and the policy has no choose_set (a 1.0
 *                       module): the message names the policy.
 *   ZKELECT_EBADCHOICE  the set is refused as a whole: nchosen outside
 *                       0..leaders, an index outside [0, nmembers), an index
 *                       given twice, or a member that cannot lead or is in
 *                       in->excluded; the message names the policy, the
 *                       index and its position in the set.
 */
int zke_policy_choose_set(struct zke_policy *p, const struct zkelect_policy_input *in,
                          int *chosen, int *n, char *reason, size_t reasonlen);

/* The policy's own name (descriptor name); valid until unload. NULL-safe ("") */
const char *zke_policy_name(const struct zke_policy *p);

/* The file the module was loaded from; valid until unload. NULL-safe ("") */
const char *zke_policy_path(const struct zke_policy *p);

/* Call fini(), dlclose() the module and free p. NULL-safe. */
void zke_policy_unload(struct zke_policy *p);

#endif /* ZKELECT_LIB_POLICY_H */
