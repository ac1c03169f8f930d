/*
 * fuzz_successor.c - fuzz target: zke_successor_decode(), the payload of
 * successor; on success, the record's own rules (below) and the
 * encode/decode round trip (roundtrip.c, fuzz.h).
 */
#include <string.h>

#include "zkelect.h"
#include "codec.h"
#include "fuzz.h"

/*
 * What a resigning leader relies on in a record that decoded: the numbers in
 * range, each slot at most once (zke_successor_slot() finds that very
 * entry, and nothing for a slot without one), valid ids, a successor that
 * is not the slot's leader, both election znode names present.
 */
static void
fuzz_successor_check(const void *decoded, const uint8_t *data, size_t size)
{
    const struct zke_successor *s = decoded;
    const struct zke_succ *x;
    int i, k, seen[ZKE_LEADERS_MAX + 2];

    if (s->elected_version < 0 || s->next_epoch < 1 ||
        s->next_epoch > ZKE_EPOCH_MAX || s->at_ms < 0 ||
        (uint64_t)s->at_ms > ZKE_EPOCH_MAX)
        fuzz_fail(data, size, "accepted a number out of range");
    if (s->nslots < 0 || s->nslots > ZKE_LEADERS_MAX)
        fuzz_fail(data, size, "accepted %d entries", s->nslots);
    memset(seen, 0, sizeof(seen));
    for (i = 0; i < s->nslots; i++) {
        x = &s->slots[i];
        if (x->slot < 0 || x->slot >= ZKE_LEADERS_MAX)
            fuzz_fail(data, size, "slots[%d]: accepted slot %d", i, x->slot);
        seen[x->slot + 1] = 1;
        if (zke_successor_slot(s, x->slot) != x)
            fuzz_fail(data, size, "slots[%d]: slot %d is not found as this "
                "entry (given twice?)", i, x->slot);
        if (!zke_id_valid(x->leader) || !zke_id_valid(x->successor))
            fuzz_fail(data, size, "slots[%d]: accepted an invalid node id", i);
        if (strcmp(x->leader, x->successor) == 0)
            fuzz_fail(data, size, "slots[%d]: accepted leader \"%s\" as its "
                "own successor", i, x->leader);
        if (x->leader_znode[0] == '\0' || x->successor_znode[0] == '\0')
            fuzz_fail(data, size, "slots[%d]: accepted an empty znode name", i);
    }
    for (k = -1; k <= ZKE_LEADERS_MAX; k++)
        if (!seen[k + 1] && zke_successor_slot(s, k) != NULL)
            fuzz_fail(data, size, "zke_successor_slot(%d) found an entry the "
                "record does not have", k);
}

FUZZ_CODEC_TARGET_CHECK(successor, fuzz_successor_check)
