/*
 * slots.h - internal: slot assignment (src/lib/slots.c), the host's half of
 * a group with N active leaders (doc/DESIGN-17 "Slot assignment").
 *
 * The policy orders the nodes that should lead (choose_set); this decides
 * which slot each of them holds. It is a pure function: no I/O, no state,
 * no allocation, reentrant.
 */
#ifndef ZKELECT_LIB_SLOTS_H
#define ZKELECT_LIB_SLOTS_H

#include "codec.h"                  /* ZKE_ID_MAX */

#ifndef ZKE_LEADERS_MAX
#define ZKE_LEADERS_MAX 16          /* most slots of a group (= ZKELECT_POLICY_SLOTS_MAX) */
#endif

/*
 * Assign the policy's ordered set to slots, keeping the slots sticky.
 *
 * cur[k], k < ncur: the node slot k names now ("" = empty); ncur is the old
 *   N (0..ZKE_LEADERS_MAX). Borrowed for the call.
 * chosen[0..nchosen-1]: the policy's ordered set (node ids, best first);
 *   NULL or "" entries, duplicates and ids longer than ZKE_ID_MAX are
 *   skipped. Borrowed for the call.
 * N: the new N (clamped to 0..ZKE_LEADERS_MAX).
 * out[k], k < N: set to the node for slot k ("" = empty). The caller's
 *   array of at least N entries; it must not overlap cur.
 *
 * Rules, in order:
 *  1. slots >= N are released;
 *  2. a slot k < N whose holder is in chosen keeps it (sticky: a node never
 *     moves between slots while it stays chosen and its slot stays);
 *  3. the chosen ids not kept fill the remaining slots < N lowest slot
 *     first, in the policy's order (chosen beyond the free slots are left
 *     out);
 *  4. a slot left without anyone is empty.
 * A node never appears in two slots of out, even when cur names it twice
 * (the lowest slot keeps it).
 *
 * Returns a bit mask of the slots whose holder changed (bit k): a slot
 * k < N whose out[k] differs from cur[k] (a slot k >= ncur counts as having
 * been empty), and every slot k >= N that had a holder (released).
 */
unsigned zke_slots_assign(const char cur[][ZKE_ID_MAX + 1], int ncur,
                          const char *const *chosen, int nchosen, int N,
                          char out[][ZKE_ID_MAX + 1]);

#endif /* ZKELECT_LIB_SLOTS_H */
