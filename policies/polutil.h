/*
 * polutil.h - helpers shared by the shipped policies (policies/<name>.c).
 *
 * Header-only, static functions: each module is one self-contained shared
 * object and exports nothing but zkelect_policy_entry. Nothing here keeps a
 * pointer into the input after the call that received it.
 */
#ifndef ZKELECT_POLUTIL_H
#define ZKELECT_POLUTIL_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "zkelect/policy.h"

#define POLUTIL_UNUSED __attribute__((unused))

static void polutil_reason(struct zkelect_policy_output *out, const char *fmt, ...)
    __attribute__((format(printf, 2, 3))) POLUTIL_UNUSED;
static void polutil_err(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4))) POLUTIL_UNUSED;

/* Write out->reason (always NUL-terminated, truncated to fit). */
static void
polutil_reason(struct zkelect_policy_output *out, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(out->reason, sizeof(out->reason), fmt, ap);
    va_end(ap);
}

/* Write an init() error message (err may be NULL or errlen 0). */
static void
polutil_err(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;

    if (err == NULL || errlen == 0)
        return;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

/* ------------------------------------------------------------------------
 * Options
 */

/*
 * Check option i: key and value present, key not given twice. Returns 0, or
 * -1 with a message naming the option in err.
 */
static POLUTIL_UNUSED int
polutil_opt_check(const char *policy, const struct zkelect_option *opts, size_t i,
                  char *err, size_t errlen)
{
    size_t j;

    if (opts[i].key == NULL || opts[i].key[0] == '\0') {
        polutil_err(err, errlen, "%s: option %zu has no key", policy, i + 1);
        return -1;
    }
    if (opts[i].value == NULL) {
        polutil_err(err, errlen, "%s: option '%s' has no value", policy, opts[i].key);
        return -1;
    }
    for (j = 0; j < i; j++) {
        if (opts[j].key != NULL && strcmp(opts[j].key, opts[i].key) == 0) {
            polutil_err(err, errlen, "%s: option '%s' given twice", policy, opts[i].key);
            return -1;
        }
    }
    return 0;
}

/* Parse "on"/"off" into *val. Returns 0, or -1 with a message naming key and value. */
static POLUTIL_UNUSED int
polutil_opt_onoff(const char *policy, const struct zkelect_option *o, int *val,
                  char *err, size_t errlen)
{
    if (strcmp(o->value, "on") == 0)
        *val = 1;
    else if (strcmp(o->value, "off") == 0)
        *val = 0;
    else {
        polutil_err(err, errlen, "%s: bad value '%s' for option '%s' (want on or off)",
                    policy, o->value, o->key);
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------------
 * Members
 */

/*
 * The node order: zkelect_id_compare() on ids, then the election sequence
 * (only reached for duplicate ids, which a sane host never passes), so the
 * result never depends on the order of the members array.
 */
static POLUTIL_UNUSED int
polutil_idcmp(const struct zkelect_member *a, const struct zkelect_member *b)
{
    int c = zkelect_id_compare(a->id, b->id);

    if (c != 0)
        return c;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* Index of the member called id, or -1 (id may be NULL). Lowest in node order on duplicates. */
static POLUTIL_UNUSED int
polutil_find(const struct zkelect_policy_input *in, const char *id)
{
    int found = -1;
    size_t i;

    if (id == NULL)
        return -1;
    for (i = 0; i < in->nmembers; i++)
        if (strcmp(in->members[i].id, id) == 0 &&
            (found < 0 || polutil_idcmp(&in->members[i], &in->members[found]) < 0))
            found = (int)i;
    return found;
}

/*
 * Index of the current leader when it is a live member (current_present set
 * and found among the members), whether or not it can still lead; else -1.
 */
static POLUTIL_UNUSED int
polutil_current(const struct zkelect_policy_input *in)
{
    if (in->current_leader == NULL || !in->current_present)
        return -1;
    return polutil_find(in, in->current_leader);
}

/* Why m cannot lead (m must be one that cannot), as a short phrase. */
static POLUTIL_UNUSED const char *
polutil_why_not(const struct zkelect_policy_input *in, const struct zkelect_member *m)
{
    size_t i;

    if (!m->eligible)
        return "not eligible";
    if (!m->healthy)
        return "unhealthy";
    for (i = 0; i < in->nexcluded; i++)
        if (in->excluded[i].id != NULL && strcmp(in->excluded[i].id, m->id) == 0 &&
            in->excluded[i].reason != NULL && in->excluded[i].reason[0] != '\0')
            return in->excluded[i].reason;
    return "excluded";
}

/* Number of members that can lead. */
static POLUTIL_UNUSED size_t
polutil_count_can_lead(const struct zkelect_policy_input *in)
{
    size_t i, n = 0;

    for (i = 0; i < in->nmembers; i++)
        n += zkelect_member_can_lead(&in->members[i]) != 0;
    return n;
}

/*
 * REASON_SWITCHOVER with a target: the target's index when it is a member
 * that can lead; otherwise -1 with the refusal in out->reason. The caller
 * applies its own further conditions and writes the reason on success.
 */
static POLUTIL_UNUSED int
polutil_switchover_target(const struct zkelect_policy_input *in,
                          struct zkelect_policy_output *out)
{
    int t = polutil_find(in, in->switchover_target);

    if (t < 0) {
        polutil_reason(out, "switchover refused: %s is not a live member",
                       in->switchover_target);
        return -1;
    }
    if (!zkelect_member_can_lead(&in->members[t])) {
        polutil_reason(out, "switchover refused: %s cannot lead (%s)",
                       in->switchover_target, polutil_why_not(in, &in->members[t]));
        return -1;
    }
    return t;
}

/* ------------------------------------------------------------------------
 * Sets (choose_set, ABI 1.1)
 *
 * Every shipped choose_set() is built the same way: the policy's own
 * choose() gives the first element (so slot 0 keeps its meaning); a policy
 * that does not preempt adds the current slot holders that can still lead;
 * the rest comes in the policy's order. The node a switchover moves away
 * from (current_leader) is left out unless it is the first element, so the
 * host's sticky slots cannot keep it.
 */

/* N from the input: in->leaders when the host filled it (1..16), else 1. */
static POLUTIL_UNUSED unsigned
polutil_leaders(const struct zkelect_policy_input *in)
{
    if (!ZKELECT_POLICY_INPUT_HAS(in, nslots) || in->leaders < 1)
        return 1;
    return in->leaders > ZKELECT_POLICY_SLOTS_MAX ? ZKELECT_POLICY_SLOTS_MAX : in->leaders;
}

/* Non-zero when member index i is in the set already. */
static POLUTIL_UNUSED int
polutil_set_has(const struct zkelect_policy_output *out, int i)
{
    int k;

    for (k = 0; k < out->nchosen; k++)
        if (out->chosen_set[k] == i)
            return 1;
    return 0;
}

/* Append member index i unless it is there already or the set is full. */
static POLUTIL_UNUSED void
polutil_set_add(const struct zkelect_policy_input *in, struct zkelect_policy_output *out,
                int i)
{
    if (i < 0 || polutil_set_has(out, i) || (unsigned)out->nchosen >= polutil_leaders(in))
        return;
    out->chosen_set[out->nchosen++] = i;
}

/*
 * Add the current slot holders (in slot order) that are live members for
 * which can(in, member) is non-zero, except index avoid.
 */
static POLUTIL_UNUSED void
polutil_set_keep_holders(const struct zkelect_policy_input *in,
                         struct zkelect_policy_output *out, int avoid,
                         int (*can)(const struct zkelect_policy_input *,
                                    const struct zkelect_member *))
{
    size_t k;
    int i;

    if (!ZKELECT_POLICY_INPUT_HAS(in, nslots) || in->slot_holders == NULL)
        return;
    for (k = 0; k < in->nslots && k < ZKELECT_POLICY_SLOTS_MAX; k++) {
        i = polutil_find(in, in->slot_holders[k]);
        if (i >= 0 && i != avoid && can(in, &in->members[i]))
            polutil_set_add(in, out, i);
    }
}

/*
 * Fill the set up to N, best first: the member for which can() holds, not
 * in the set, not avoid, that better(in, out, a, b) < 0 puts first; better
 * sees the set so far (for orders that depend on it, like a spread).
 */
static POLUTIL_UNUSED void
polutil_set_fill(const struct zkelect_policy_input *in, struct zkelect_policy_output *out,
                 int avoid,
                 int (*can)(const struct zkelect_policy_input *, const struct zkelect_member *),
                 int (*better)(const struct zkelect_policy_input *,
                               const struct zkelect_policy_output *, int, int))
{
    int best;
    size_t i;

    while ((unsigned)out->nchosen < polutil_leaders(in)) {
        best = -1;
        for (i = 0; i < in->nmembers; i++) {
            if ((int)i == avoid || polutil_set_has(out, (int)i) ||
                !can(in, &in->members[i]))
                continue;
            if (best < 0 || better(in, out, (int)i, best) < 0)
                best = (int)i;
        }
        if (best < 0)
            break;
        polutil_set_add(in, out, best);
    }
}

/*
 * The member index a set leaves out: under the given reasons (a switchover,
 * for roundrobin also the watchdog) the current leader, unless it is the
 * first element (a switchover to the leader itself); else -1.
 */
static POLUTIL_UNUSED int
polutil_set_avoid(const struct zkelect_policy_input *in, unsigned reasons, int first)
{
    int cur;

    if (!(in->reasons & reasons))
        return -1;
    cur = polutil_find(in, in->current_leader);
    return cur == first ? -1 : cur;
}

/*
 * Append the set to the reason choose() wrote: "; 2 of 3 leaders: n1 n4"
 * (truncated to fit). A set of 0 keeps choose()'s reason as it is.
 */
static POLUTIL_UNUSED void
polutil_set_reason(const struct zkelect_policy_input *in, struct zkelect_policy_output *out)
{
    size_t used = strnlen(out->reason, sizeof(out->reason) - 1);
    int k, w;

    out->reason[used] = '\0';
    if (out->nchosen == 0)
        return;
    w = snprintf(out->reason + used, sizeof(out->reason) - used, "; %d of %u leaders:",
                 out->nchosen, polutil_leaders(in));
    for (k = 0; w > 0 && (used += (size_t)w) < sizeof(out->reason) - 1 && k < out->nchosen;
         k++)
        w = snprintf(out->reason + used, sizeof(out->reason) - used, " %s",
                     in->members[out->chosen_set[k]].id);
}

/*
 * choose_set() around a policy's choose(): run choose (its reason stays
 * first), start the set with its choice, and return that index (-1: none,
 * the set stays empty; -2: choose() failed, return non-zero).
 */
static POLUTIL_UNUSED int
polutil_set_first(void *state, const struct zkelect_policy_input *in,
                  struct zkelect_policy_output *out,
                  int (*choose)(void *, const struct zkelect_policy_input *,
                                struct zkelect_policy_output *))
{
    int first;

    out->nchosen = 0;
    if (choose(state, in, out) != 0)
        return -2;
    first = out->chosen;
    out->chosen = -1;
    if (first >= 0)
        polutil_set_add(in, out, first);
    return first;
}

/* can() for policies whose only rule is zkelect_member_can_lead(). */
static POLUTIL_UNUSED int
polutil_can_lead(const struct zkelect_policy_input *in, const struct zkelect_member *m)
{
    (void)in;
    return zkelect_member_can_lead(m);
}

#endif /* ZKELECT_POLUTIL_H */
