/*
 * test_slots.c - slot assignment (src/lib/slots.c, zke_slots_assign): the
 * sticky rules of doc/DESIGN-17 "Slot assignment", case by case, then the
 * same rules checked as properties over many generated inputs.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cutest.h"
#include "slots.h"

typedef char slot_id[ZKE_ID_MAX + 1];

/*
 * Run one assignment from space-separated specs ("-" is an empty slot) and
 * compare out with want (same notation) and the mask with mask.
 */
static void
check(const char *cur_spec, const char *chosen_spec, int N, const char *want,
      unsigned mask)
{
    slot_id cur[ZKE_LEADERS_MAX], out[ZKE_LEADERS_MAX];
    char cbuf[512], chbuf[512], got[512], *p, *save;
    const char *chosen[ZKE_LEADERS_MAX * 2];
    int ncur = 0, nchosen = 0, k;
    unsigned m;
    size_t used = 0;

    memset(cur, 'Q', sizeof(cur));              /* garbage past ncur is never read */
    memset(out, 'Q', sizeof(out));
    snprintf(cbuf, sizeof(cbuf), "%s", cur_spec);
    for (p = strtok_r(cbuf, " ", &save); p; p = strtok_r(NULL, " ", &save))
        snprintf(cur[ncur++], sizeof(slot_id), "%s", strcmp(p, "-") == 0 ? "" : p);
    snprintf(chbuf, sizeof(chbuf), "%s", chosen_spec);
    for (p = strtok_r(chbuf, " ", &save); p; p = strtok_r(NULL, " ", &save))
        chosen[nchosen++] = p;

    m = zke_slots_assign((const char (*)[ZKE_ID_MAX + 1])cur, ncur, chosen, nchosen, N, out);
    got[0] = '\0';
    for (k = 0; k < N && k < ZKE_LEADERS_MAX; k++)
        used += (size_t)snprintf(got + used, sizeof(got) - used, "%s%s", k ? " " : "",
                                 out[k][0] ? out[k] : "-");
    if (strcmp(got, want) != 0 || m != mask) {
        char msg[1024];
        snprintf(msg, sizeof(msg), "cur [%s] chosen [%s] N=%d: got [%s] mask 0x%x, "
                 "want [%s] mask 0x%x", cur_spec, chosen_spec, N, got, m, want, mask);
        fprintf(stderr, "FAIL %s\n", msg);
        CU_assertImplementation(CU_FALSE, __LINE__, msg, __FILE__, "", CU_FALSE);
    } else {
        CU_PASS("assignment");
    }
}

/* A healthy active stays in its slot whatever order the policy gives. */
static void
test_sticky(void)
{
    check("a b c", "c a b", 3, "a b c", 0);
    check("a b c", "b c a", 3, "a b c", 0);
    check("n10 n2", "n2 n10", 2, "n10 n2", 0);
    /* a chosen node that holds no slot never displaces a holder */
    check("a b", "x a b", 2, "a b", 0);
}

/* Lowering N releases the highest slots; the rest stay. */
static void
test_lower_n(void)
{
    check("a b c", "a b", 2, "a b", 1u << 2);
    check("a b c d", "a b c d", 1, "a", 0xeu);
    check("a b c", "a b c", 2, "a b", 1u << 2);      /* c no longer fits */
    /* slot 1 lost while lowering: the released slot's node fills it */
    check("a b c", "c a", 2, "a c", (1u << 1) | (1u << 2));
    /* an empty released slot is no change */
    check("a b -", "a b", 2, "a b", 0);
    check("a b", "a b", 0, "", 0x3u);
}

/* Raising N fills the new slots, lowest first, in the policy's order. */
static void
test_raise_n(void)
{
    check("a", "a b c", 3, "a b c", 0x6u);
    check("a", "c b a", 3, "a c b", 0x6u);
    check("a b", "a b", 4, "a b - -", 0);            /* nobody else can lead */
    check("", "d e", 2, "d e", 0x3u);                /* first decision */
}

/* A lost holder is refilled in place; the others keep their slots. */
static void
test_refill_in_place(void)
{
    check("a b c", "a c d", 3, "a d c", 1u << 1);
    check("a b c", "b c d", 3, "d b c", 1u << 0);    /* slot 0 too */
    check("a b c", "d e c", 3, "d e c", 0x3u);       /* two lost, policy order */
    check("a - c -", "a c e d", 4, "a e c d", (1u << 1) | (1u << 3));
    check("a b", "b", 2, "- b", 1u << 0);            /* nobody to refill */
    check("a b c", "", 3, "- - -", 0x7u);            /* nobody can lead */
}

/* A node never appears twice, whatever the inputs say. */
static void
test_never_twice(void)
{
    check("a b", "a a b", 2, "a b", 0);
    check("a a", "a b", 2, "a b", 1u << 1);          /* a corrupt cur: lowest keeps */
    check("-", "c c c", 3, "c - -", 0x1u);
    check("a b c", "c b a c b a", 3, "a b c", 0);
}

/* NULL, empty and over-long ids are skipped; N is clamped. */
static void
test_odd_inputs(void)
{
    slot_id cur[2] = { "a", "b" }, out[ZKE_LEADERS_MAX];
    char longid[ZKE_ID_MAX + 2];
    const char *chosen[4];
    unsigned m;
    int k;

    memset(longid, 'x', sizeof(longid) - 1);
    longid[sizeof(longid) - 1] = '\0';
    chosen[0] = NULL;
    chosen[1] = "";
    chosen[2] = longid;
    chosen[3] = "b";
    m = zke_slots_assign((const char (*)[ZKE_ID_MAX + 1])cur, 2, chosen, 4, 2, out);
    CU_ASSERT_STRING_EQUAL(out[0], "");
    CU_ASSERT_STRING_EQUAL(out[1], "b");
    CU_ASSERT_EQUAL(m, 1u);
    m = zke_slots_assign(NULL, 5, chosen + 3, 1, 99, out);   /* N clamped to 16 */
    CU_ASSERT_STRING_EQUAL(out[0], "b");
    for (k = 1; k < ZKE_LEADERS_MAX; k++)
        CU_ASSERT_STRING_EQUAL(out[k], "");
    CU_ASSERT_EQUAL(m, 1u);
    m = zke_slots_assign((const char (*)[ZKE_ID_MAX + 1])cur, 2, NULL, 3, 1, out);
    CU_ASSERT_STRING_EQUAL(out[0], "");
    CU_ASSERT_EQUAL(m, 0x3u);
    check("a b", "a b", -1, "", 0x3u);
}

/*
 * Properties over generated inputs: every out entry is chosen or empty, no
 * node twice, every kept holder (chosen, slot < N) in the same slot, the
 * filled slots are min(N, distinct chosen), the free slots are filled in
 * the policy's order lowest first, and the mask says exactly what changed.
 */
static void
test_properties(void)
{
    static const char *pool[] = { "n1", "n2", "n3", "n4", "n5", "n6", "n7", "n8",
                                  "n9", "n10", "n11", "n12", "n13", "n14", "n15",
                                  "n16", "n17", "n18", "n19", "n20" };
    slot_id cur[ZKE_LEADERS_MAX], out[ZKE_LEADERS_MAX];
    const char *chosen[ZKE_LEADERS_MAX + 4];
    unsigned long x = 88172645463325252ul;
    int iter, ncur, nchosen, N, i, j, k, filled, distinct, bad = 0;
    unsigned m, want;

#define RND(n) (x ^= x << 13, x ^= x >> 7, x ^= x << 17, (int)(x % (unsigned long)(n)))
    for (iter = 0; iter < 20000 && !bad; iter++) {
        ncur = RND(ZKE_LEADERS_MAX + 1);
        N = RND(ZKE_LEADERS_MAX + 1);
        nchosen = RND(ZKE_LEADERS_MAX + 5);
        for (k = 0; k < ncur; k++) {
            /* distinct holders or empty, as the elected znode guarantees */
            do {
                snprintf(cur[k], sizeof(slot_id), "%s", RND(4) == 0 ? "" : pool[RND(20)]);
                for (j = 0; j < k && (cur[k][0] == '\0' || strcmp(cur[j], cur[k]) != 0); j++)
                    ;
            } while (j < k);
        }
        for (i = 0; i < nchosen; i++)
            chosen[i] = pool[RND(20)];
        m = zke_slots_assign((const char (*)[ZKE_ID_MAX + 1])cur, ncur, chosen, nchosen, N,
                             out);

        distinct = 0;
        for (i = 0; i < nchosen; i++) {
            for (j = 0; j < i && strcmp(chosen[j], chosen[i]) != 0; j++)
                ;
            distinct += j == i;
        }
        filled = 0;
        want = 0;
        for (k = 0; k < N; k++) {
            if (out[k][0] != '\0') {
                filled++;
                for (i = 0; i < nchosen && strcmp(chosen[i], out[k]) != 0; i++)
                    ;
                bad |= i == nchosen;                        /* not chosen */
                for (j = 0; j < k; j++)
                    bad |= strcmp(out[j], out[k]) == 0;     /* twice */
            }
            if (k < ncur && cur[k][0] != '\0') {
                for (i = 0; i < nchosen && strcmp(chosen[i], cur[k]) != 0; i++)
                    ;
                if (i < nchosen)
                    bad |= strcmp(out[k], cur[k]) != 0;     /* a kept holder moved */
            }
            if (strcmp(k < ncur ? cur[k] : "", out[k]) != 0)
                want |= 1u << k;
        }
        for (k = N; k < ncur; k++)
            if (cur[k][0] != '\0')
                want |= 1u << k;
        bad |= filled != (distinct < N ? distinct : N);
        bad |= m != want;
        /* new nodes: in the policy's order, lowest slot first */
        for (i = -1, k = 0; k < N; k++) {
            if (out[k][0] == '\0' || (k < ncur && strcmp(cur[k], out[k]) == 0))
                continue;
            for (j = 0; j < nchosen && strcmp(chosen[j], out[k]) != 0; j++)
                ;
            bad |= j <= i;
            i = j;
        }
        if (bad)
            fprintf(stderr, "FAIL property at iteration %d (ncur %d, nchosen %d, N %d)\n",
                    iter, ncur, nchosen, N);
    }
#undef RND
    CU_ASSERT_FALSE(bad);
}

static CU_TestInfo slot_tests[] = {
    { "sticky: holders keep their slots", test_sticky },
    { "lowering N releases the highest slots", test_lower_n },
    { "raising N fills the new slots", test_raise_n },
    { "a lost holder is refilled in place", test_refill_in_place },
    { "a node never appears twice", test_never_twice },
    { "NULL, empty, long ids; N clamped", test_odd_inputs },
    { "properties over generated inputs", test_properties },
    CU_TEST_INFO_NULL
};

static CU_SuiteInfo suites[] = {
    { "slots", NULL, NULL, NULL, NULL, slot_tests },
    CU_SUITE_INFO_NULL
};

int
main(int argc, char **argv)
{
    return cutest_main(argc, argv, suites);
}
