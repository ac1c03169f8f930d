/*
 * slots.c - slot assignment: which slot each node of the policy's ordered
 * set holds (see slots.h for the rules).
 *
 * Sticky on purpose: a slot's holder only changes when that holder is no
 * longer chosen (lost, excluded, moved by a switchover) or its slot is
 * released, because every change of holder is a takeover with a new epoch
 * for that slot; reshuffling healthy actives to follow the policy's order
 * would cost failovers and fence tokens for nothing.
 */
#include "config.h"

#include <string.h>

#include "zkelect/policy.h"
#include "slots.h"

_Static_assert(ZKE_LEADERS_MAX == ZKELECT_POLICY_SLOTS_MAX,
               "a group's slots and the policy ABI's set have one maximum");
_Static_assert(ZKE_LEADERS_MAX <= sizeof(unsigned) * 8,
               "the changed-slot mask has one bit per slot");

/* Non-zero when id is a usable slot holder: not NULL, not "", fits ZKE_ID_MAX. */
static int
slots_id_ok(const char *id)
{
    return id != NULL && id[0] != '\0' && strnlen(id, ZKE_ID_MAX + 1) <= ZKE_ID_MAX;
}

/* Non-zero when id is one of out[0..n-1]. */
static int
slots_placed(char out[][ZKE_ID_MAX + 1], int n, const char *id)
{
    int k;

    for (k = 0; k < n; k++)
        if (strcmp(out[k], id) == 0)
            return 1;
    return 0;
}

/* Non-zero when id is one of chosen[0..nchosen-1]. */
static int
slots_chosen(const char *const *chosen, int nchosen, const char *id)
{
    int i;

    for (i = 0; i < nchosen; i++)
        if (chosen[i] != NULL && strcmp(chosen[i], id) == 0)
            return 1;
    return 0;
}

unsigned
zke_slots_assign(const char cur[][ZKE_ID_MAX + 1], int ncur,
                 const char *const *chosen, int nchosen, int N,
                 char out[][ZKE_ID_MAX + 1])
{
    unsigned changed = 0;
    int i, k, next;

    if (ncur < 0 || cur == NULL)
        ncur = 0;
    if (ncur > ZKE_LEADERS_MAX)
        ncur = ZKE_LEADERS_MAX;
    if (nchosen < 0 || chosen == NULL)
        nchosen = 0;
    if (N < 0)
        N = 0;
    if (N > ZKE_LEADERS_MAX)
        N = ZKE_LEADERS_MAX;

    /* (2) sticky: a holder that is still chosen keeps its slot. */
    for (k = 0; k < N; k++) {
        out[k][0] = '\0';
        if (k < ncur && slots_id_ok(cur[k]) && slots_chosen(chosen, nchosen, cur[k]) &&
            !slots_placed(out, k, cur[k]))
            memcpy(out[k], cur[k], strlen(cur[k]) + 1);
    }

    /* (3) the others fill the free slots, lowest first, in the policy's order. */
    next = 0;
    for (i = 0; i < nchosen; i++) {
        if (!slots_id_ok(chosen[i]) || slots_placed(out, N, chosen[i]))
            continue;
        while (next < N && out[next][0] != '\0')
            next++;
        if (next == N)
            break;
        memcpy(out[next], chosen[i], strlen(chosen[i]) + 1);
    }
    /* (4) anything still "" is an empty slot. */

    /* Changes: slots < N that differ, slots >= N that had a holder (1). */
    for (k = 0; k < N; k++) {
        const char *was = k < ncur ? cur[k] : "";
        if (strncmp(was, out[k], ZKE_ID_MAX + 1) != 0)
            changed |= 1u << k;
    }
    for (k = N; k < ncur; k++)
        if (cur[k][0] != '\0')
            changed |= 1u << k;
    return changed;
}
