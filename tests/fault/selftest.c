/*
 * selftest.c - the checker checked: synthetic runs (a journal, event logs, a
 * register journal, written here) that are correct, or break exactly one
 * rule; each must fail exactly the checks it breaks. Runs in milliseconds,
 * before every fault run (and alone with test_fault --self-test), so that
 * a checker that cannot fail is noticed.
 *
 * The synthetic cluster: nodes n1, n2, n3; session 4000, watchdog 3000,
 * slack 6000 (leaderless bound 13000 ms), pause bound 1000 ms. n1 takes
 * over at +0.2 s and leads until the end at +20 s unless a scenario says
 * otherwise. Its service (service.log) is stamped only where a scenario
 * says so (an empty service.log has nothing to overlap).
 *
 * The runs of N = 2 active leaders (slots) declare "leaders":2 and give
 * every event, register write and stamp its slot: n1 holds slot 0 at epoch
 * 1, n2 slot 1 at epoch 2 (its +ready first: epochs need not grow across
 * slots), n3 is the spare.
 */
#include <sys/stat.h>

#include <errno.h>
#include <ftw.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fault.h"

#define T0 1000000                      /* the synthetic run's start, mono ms */

struct synth {
    char dir[PATH_MAX];
    FILE *j, *ev[3], *reg, *svc;
};

static int synth_leaders = 1;           /* N of the run synth_open writes */

static int
synth_open(struct synth *s, const char *base, const char *name)
{
    char path[PATH_MAX + 32];
    int i;

    memset(s, 0, sizeof *s);
    snprintf(s->dir, sizeof s->dir, "%s/%s", base, name);
    if (mkdir(s->dir, 0755) == -1)
        return -1;
    snprintf(path, sizeof path, "%s/harness.jsonl", s->dir);
    if ((s->j = fopen(path, "w")) == NULL)
        return -1;
    for (i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/n%d.events", s->dir, i + 1);
        if ((s->ev[i] = fopen(path, "w")) == NULL)
            return -1;
    }
    snprintf(path, sizeof path, "%s/register.jsonl", s->dir);
    if ((s->reg = fopen(path, "w")) == NULL)
        return -1;
    snprintf(path, sizeof path, "%s/service.log", s->dir);
    if ((s->svc = fopen(path, "w")) == NULL)
        return -1;
    fprintf(s->j, "{\"mono_ms\":%d,\"kind\":\"run-start\",\"params\":{\"session_ms\":4000,"
        "\"watchdog_ms\":3000,\"slack_ms\":6000,\"pause_bound_ms\":1000,\"leaders\":%d},"
        "\"nodes\":[\"n1\",\"n2\",\"n3\"]}\n", T0, synth_leaders);
    for (i = 1; i <= 3; i++)
        fprintf(s->j, "{\"mono_ms\":%d,\"kind\":\"node-start\",\"node\":\"n%d\","
            "\"server\":-1,\"fault\":-1,\"detail\":\"\"}\n", T0 + 100, i);
    return 0;
}

static void
synth_close(struct synth *s)
{
    int i;

    fclose(s->j);
    for (i = 0; i < 3; i++)
        fclose(s->ev[i]);
    fclose(s->reg);
    fclose(s->svc);
}

/* A journal entry at T0 + ms (node 0: none). */
static void
J(struct synth *s, int ms, const char *kind, int node)
{
    if (node > 0)
        fprintf(s->j, "{\"mono_ms\":%d,\"kind\":\"%s\",\"node\":\"n%d\",\"server\":-1,"
            "\"fault\":1,\"detail\":\"\"}\n", T0 + ms, kind, node);
    else
        fprintf(s->j, "{\"mono_ms\":%d,\"kind\":\"%s\",\"node\":null,\"server\":-1,"
            "\"fault\":1,\"detail\":\"\"}\n", T0 + ms, kind);
}

/* An event of node (1..3). */
static void
E(struct synth *s, int ms, int node, const char *event, int epoch)
{
    fprintf(s->ev[node - 1], "{\"mono_ms\":%d,\"node\":\"n%d\",\"event\":\"%s\","
        "\"group\":\"/fault\",\"subject\":null,\"epoch\":%d,\"status\":null,\"error\":0,"
        "\"error_name\":null,\"detail\":\"synthetic\"}\n", T0 + ms, node, event, epoch);
}

/* A register attempt. */
static void
R(struct synth *s, int ms, int node, int epoch, const char *source, int accepted)
{
    fprintf(s->reg, "{\"mono_ms\":%d,\"node\":\"n%d\",\"epoch\":%d,\"source\":\"%s\","
        "\"accepted\":%s,\"highest\":%d}\n", T0 + ms, node, epoch, source,
        accepted ? "true" : "false", epoch);
}

/* A service stamp of node (1..3): its takeover hook's start or stepdown hook's end. */
static void
S(struct synth *s, int ms, int node, const char *what, int epoch)
{
    fprintf(s->svc, "n%d %s %d.500 %d\n", node, what, T0 + ms, epoch);
}

/* n1 leads at epoch 1 from +0.2 s. */
static void
synth_n1_leads(struct synth *s)
{
    E(s, 200, 1, "+takeover", 1);
    R(s, 210, 1, 1, "takeover", 1);
    E(s, 220, 1, "+ready", 1);
    R(s, 400, 1, 1, "poll", 1);
}

/* n2 takes over at epoch 2 at ms (its takeover write first). */
static void
synth_n2_takes_over(struct synth *s, int ms)
{
    E(s, ms, 2, "+takeover", 2);
    R(s, ms + 10, 2, 2, "takeover", 1);
    E(s, ms + 20, 2, "+ready", 2);
}

static void
synth_end(struct synth *s)
{
    J(s, 20000, "teardown", 0);
}

/* The same with a slot (N = 2 runs). */
static void
E2(struct synth *s, int ms, int node, const char *event, int epoch, int slot)
{
    fprintf(s->ev[node - 1], "{\"mono_ms\":%d,\"node\":\"n%d\",\"event\":\"%s\","
        "\"group\":\"/fault\",\"subject\":null,\"epoch\":%d,\"status\":null,\"error\":0,"
        "\"error_name\":null,\"detail\":\"synthetic\",\"slot\":%d}\n", T0 + ms, node, event,
        epoch, slot);
}

static void
R2(struct synth *s, int ms, int node, int epoch, const char *source, int accepted, int slot)
{
    fprintf(s->reg, "{\"mono_ms\":%d,\"node\":\"n%d\",\"slot\":%d,\"epoch\":%d,"
        "\"source\":\"%s\",\"accepted\":%s,\"highest\":%d}\n", T0 + ms, node, slot, epoch,
        source, accepted ? "true" : "false", epoch);
}

static void
S2(struct synth *s, int ms, int node, const char *what, int epoch, int slot)
{
    fprintf(s->svc, "n%d %s %d.500 %d %d\n", node, what, T0 + ms, epoch, slot);
}

/* node takes slot at epoch at ms: service start, fenced write, READY. */
static void
synth_take(struct synth *s, int ms, int node, int epoch, int slot)
{
    S2(s, ms - 1, node, "start", epoch, slot);
    E2(s, ms, node, "+takeover", epoch, slot);
    R2(s, ms + 10, node, epoch, "takeover", 1, slot);
    E2(s, ms + 20, node, "+ready", epoch, slot);
}

/* node gives slot up at ms: -stepdown, its stepdown hook's end. */
static void
synth_give(struct synth *s, int ms, int node, int epoch, int slot)
{
    E2(s, ms, node, "-stepdown", epoch, slot);
    S2(s, ms + 5, node, "end", epoch, slot);
}

/* n2 takes slot 1 at epoch 2, then n1 slot 0 at epoch 1 (the counter gave 1 first). */
static void
synth_two_lead(struct synth *s)
{
    synth_take(s, 150, 2, 2, 1);
    synth_take(s, 200, 1, 1, 0);
}

/* Correct: slot 1 fails over n2 -> n3 (epoch 3); slot 0 keeps epoch 1, and its
   register takes epoch 1 after slot 1's 3 (each slot has its own register). */
static void
sc_slots_good(struct synth *s)
{
    synth_two_lead(s);
    synth_give(s, 5000, 2, 2, 1);
    synth_take(s, 5100, 3, 3, 1);
    R2(s, 6000, 1, 1, "poll", 1, 0);
    R2(s, 6100, 2, 2, "poll", 0, 1);    /* stale in slot 1, refused */
    synth_end(s);
}

/* Two actives in slot 0: n3 takes it over while n1 still holds it (2 s). */
static void
sc_slots_two_in_one(struct synth *s)
{
    synth_two_lead(s);
    synth_give(s, 4500, 2, 2, 1);
    synth_take(s, 5000, 3, 3, 0);
    synth_give(s, 7000, 1, 1, 0);
    synth_take(s, 8000, 1, 4, 1);
    synth_end(s);
}

/* One node in two slots: n1 (slot 0) runs a service in slot 1 too. */
static void
sc_slots_node_two(struct synth *s)
{
    synth_two_lead(s);
    synth_give(s, 5000, 2, 2, 1);
    S2(s, 5005, 1, "start", 3, 1);
    S2(s, 6000, 1, "end", 3, 1);
    synth_take(s, 6100, 3, 4, 1);
    synth_end(s);
}

/* N + 1 actives: n3 takes slot 1 while n1 and n2 hold theirs. */
static void
sc_slots_three(struct synth *s)
{
    synth_two_lead(s);
    synth_take(s, 5000, 3, 3, 1);
    synth_end(s);
}

/* N + 1 services, not READY: n3's takeover hook in slot 1 ran 1 s (its
   takeover never completed), while n1 and n2 served. */
static void
sc_slots_three_services(struct synth *s)
{
    synth_two_lead(s);
    S2(s, 5000, 3, "start", 3, 1);
    E2(s, 5001, 3, "+takeover", 3, 1);
    E2(s, 6000, 3, "-takeover-failed", 3, 1);
    S2(s, 6001, 3, "end", 3, 1);
    synth_end(s);
}

/* Slot 1's epoch goes back: n3 takes it at epoch 1 (slot 0's) after n2's 2. */
static void
sc_slots_epoch_back(struct synth *s)
{
    synth_two_lead(s);
    synth_give(s, 5000, 2, 2, 1);
    synth_take(s, 5100, 3, 1, 1);
    synth_end(s);
}

struct scenario {
    const char *name;
    void (*write)(struct synth *);
    uint32_t expect;                    /* the checks that must fail */
    int leaders;                        /* N of the run (0: 1) */
};

static void
sc_good(struct synth *s)
{
    synth_n1_leads(s);
    E(s, 5000, 1, "-stepdown", 1);
    synth_n2_takes_over(s, 5010);
    R(s, 6000, 1, 1, "poll", 0);        /* stale, refused: fencing at work */
    synth_end(s);
}

static void
sc_overlap(struct synth *s)
{
    synth_n1_leads(s);
    synth_n2_takes_over(s, 5000);       /* n1 never stepped down */
    synth_end(s);
}

/* n1 stopped as leader, n2 takes over, n1 notices 2 ms after SIGCONT: allowed. */
static void
sc_pause_ok(struct synth *s)
{
    synth_n1_leads(s);
    J(s, 3000, "node-stop", 1);
    synth_n2_takes_over(s, 7500);
    J(s, 9000, "node-cont", 1);
    E(s, 9002, 1, "-suspended", 1);
    R(s, 9001, 1, 1, "stale-probe", 0);
    synth_end(s);
}

/* ... but notices only 1500 ms after SIGCONT: past the allowance. */
static void
sc_pause_slow(struct synth *s)
{
    synth_n1_leads(s);
    J(s, 3000, "node-stop", 1);
    synth_n2_takes_over(s, 7500);
    J(s, 9000, "node-cont", 1);
    E(s, 10500, 1, "-suspended", 1);
    synth_end(s);
}

static void
sc_epoch(struct synth *s)
{
    synth_n1_leads(s);
    E(s, 5000, 1, "-stepdown", 1);
    E(s, 5010, 2, "+takeover", 1);      /* the same epoch again */
    R(s, 5020, 2, 1, "takeover", 1);
    E(s, 5030, 2, "+ready", 1);
    synth_end(s);
}

static void
sc_stale(struct synth *s)
{
    synth_n1_leads(s);
    E(s, 5000, 1, "-stepdown", 1);
    synth_n2_takes_over(s, 5010);
    R(s, 6000, 1, 1, "poll", 1);        /* accepted after epoch 2: stale */
    synth_end(s);
}

static void
sc_foreign(struct synth *s)
{
    synth_n1_leads(s);
    R(s, 6000, 3, 1, "poll", 1);        /* n3 was never elected at epoch 1 */
    synth_end(s);
}

static void
sc_unfenced(struct synth *s)
{
    synth_n1_leads(s);
    E(s, 5000, 1, "-stepdown", 1);
    E(s, 5010, 2, "+takeover", 2);
    E(s, 5020, 2, "+ready", 2);         /* no takeover write */
    R(s, 5100, 2, 2, "poll", 1);
    synth_end(s);
}

static void
sc_leaderless(struct synth *s)
{
    synth_n1_leads(s);
    E(s, 2000, 1, "-stepdown", 1);      /* and nobody until the end: 18 s */
    synth_end(s);
}

/* A stall of 15 s that a later fault action must not hide. */
static void
sc_leaderless_stall(struct synth *s)
{
    synth_n1_leads(s);
    E(s, 2000, 1, "-stepdown", 1);
    J(s, 17000, "cli", 0);
    synth_n2_takes_over(s, 17500);
    synth_end(s);
}

/* The same gap, but the ensemble had no quorum for most of it. */
static void
sc_leaderless_quorum(struct synth *s)
{
    synth_n1_leads(s);
    J(s, 1990, "quorum-lost", 0);
    E(s, 2000, 1, "-suspended", 1);
    J(s, 15000, "quorum-restored", 0);
    E(s, 15500, 1, "+resumed", 1);
    synth_end(s);
}

/* The service follows the events: n1 until its stepdown hook ended, then n2. */
static void
sc_service_good(struct synth *s)
{
    S(s, 199, 1, "start", 1);
    synth_n1_leads(s);
    E(s, 5000, 1, "-stepdown", 1);
    S(s, 5005, 1, "end", 1);
    S(s, 5009, 2, "start", 2);
    synth_n2_takes_over(s, 5010);
    synth_end(s);
}

/* A failed takeover's stepdown hook ends after the next node's takeover started. */
static void
sc_service_overlap(struct synth *s)
{
    S(s, 199, 1, "start", 1);
    synth_n1_leads(s);
    E(s, 5000, 1, "-stepdown", 1);
    S(s, 5005, 1, "end", 1);
    S(s, 6000, 3, "start", 2);          /* n3's takeover hook fails ... */
    E(s, 6000, 3, "+takeover", 2);
    E(s, 6100, 3, "-takeover-failed", 2);
    S(s, 6150, 2, "start", 3);          /* ... n2 starts before n3 undid it */
    E(s, 6150, 2, "+takeover", 3);
    R(s, 6160, 2, 3, "takeover", 1);
    E(s, 6170, 2, "+ready", 3);
    S(s, 7100, 3, "end", 2);
    synth_end(s);
}

/* A service with no end (a killed zkelectd whose service ran on) overlaps the next. */
static void
sc_service_open(struct synth *s)
{
    S(s, 199, 1, "start", 1);
    synth_n1_leads(s);
    J(s, 3000, "node-kill", 1);
    S(s, 7509, 2, "start", 2);
    synth_n2_takes_over(s, 7510);
    synth_end(s);
}

/* A frozen leader ends its service 500 ms after SIGCONT: inside the bound. */
static void
sc_service_frozen_ok(struct synth *s)
{
    S(s, 199, 1, "start", 1);
    sc_pause_ok(s);
    S(s, 7499, 2, "start", 2);
    S(s, 9500, 1, "end", 1);
}

/* ... but 1500 ms after: the service ran on past the bound. */
static void
sc_service_frozen_late(struct synth *s)
{
    S(s, 199, 1, "start", 1);
    sc_pause_ok(s);
    S(s, 7499, 2, "start", 2);
    S(s, 10500, 1, "end", 1);
}

/* A leader that hears nothing for fence_ms steps down (-fenced): it acts no more. */
static void
sc_service_fenced(struct synth *s)
{
    S(s, 199, 1, "start", 1);
    synth_n1_leads(s);
    E(s, 3000, 1, "-fenced", 1);
    S(s, 3200, 1, "end", 1);
    S(s, 7499, 2, "start", 2);
    synth_n2_takes_over(s, 7500);
    synth_end(s);
}

/* Fenced, then heard again while still elected: READY again at its epoch. */
static void
sc_fenced_again(struct synth *s)
{
    synth_n1_leads(s);
    E(s, 3000, 1, "-fenced", 1);
    E(s, 3500, 1, "+takeover", 1);
    R(s, 3510, 1, 1, "takeover", 1);
    E(s, 3520, 1, "+ready", 1);
    synth_end(s);
}

/* ... but not without the -fenced in between. */
static void
sc_ready_again(struct synth *s)
{
    synth_n1_leads(s);
    E(s, 3000, 1, "-stepdown", 1);
    E(s, 3500, 1, "+takeover", 1);
    R(s, 3510, 1, 1, "takeover", 1);
    E(s, 3520, 1, "+ready", 1);
    synth_end(s);
}

static void
sc_service_malformed(struct synth *s)
{
    synth_n1_leads(s);
    fprintf(s->svc, "n1 begin %d 1\n", T0 + 200);
    synth_end(s);
}

static void
sc_malformed(struct synth *s)
{
    synth_n1_leads(s);
    fprintf(s->ev[1], "{\"mono_ms\":%d,\"node\":\"n2\",\"event\":\"+bogus\",\"epoch\":0}\n",
        T0 + 300);
    synth_end(s);
}

static int
selftest_rm(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static const char *const check_names[CHK__COUNT] = {
    "well-formed", "pause", "overlap", "n-active", "epochs", "stale", "foreign", "unfenced",
    "leaderless", "service", "service-slots", "service-n-active",
};

static void
mask_text(uint32_t m, char *buf, size_t len)
{
    size_t off = 0;
    int k;

    buf[0] = '\0';
    for (k = 0; k < CHK__COUNT; k++)
        if (m & (1u << k))
            off += (size_t)snprintf(buf + off, len - off, "%s%s", off ? "," : "", check_names[k]);
    if (off == 0)
        snprintf(buf, len, "none");
}

/* Run every scenario; one check each in res. */
void
selftest_run(struct results *res)
{
    static const struct scenario sc[] = {
        { "correct run", sc_good, 0, 1 },
        { "two READY leaders", sc_overlap, 1u << CHK_OVERLAP, 1 },
        { "paused leader notices at once", sc_pause_ok, 0, 1 },
        { "paused leader notices late", sc_pause_slow, (1u << CHK_PAUSE) | (1u << CHK_OVERLAP), 1 },
        { "an epoch reused", sc_epoch, 1u << CHK_EPOCHS, 1 },
        { "a stale write accepted", sc_stale, 1u << CHK_STALE, 1 },
        { "a write at another node's epoch", sc_foreign, 1u << CHK_FOREIGN, 1 },
        { "READY without the fenced takeover", sc_unfenced, 1u << CHK_UNFENCED, 1 },
        { "no leader for 18 s", sc_leaderless, 1u << CHK_LEADERLESS, 1 },
        { "no leader for 15 s, then a fault action", sc_leaderless_stall,
            1u << CHK_LEADERLESS, 1 },
        { "no leader while no quorum", sc_leaderless_quorum, 0, 1 },
        { "an unknown event name", sc_malformed, 1u << CHK_WELLFORMED, 1 },
        { "services one after the other", sc_service_good, 0, 1 },
        { "a failed takeover undone after the next one started", sc_service_overlap,
            1u << CHK_SERVICE, 1 },
        { "a killed zkelectd's service never stopped", sc_service_open, 1u << CHK_SERVICE, 1 },
        { "a frozen leader's service ends within the bound", sc_service_frozen_ok, 0, 1 },
        { "a frozen leader's service ends past the bound", sc_service_frozen_late,
            1u << CHK_SERVICE, 1 },
        { "a leader fenced (-fenced) acts no more", sc_service_fenced, 0, 1 },
        { "a malformed service.log line", sc_service_malformed, 1u << CHK_SERVICE, 1 },
        { "a fenced leader READY again at its epoch", sc_fenced_again, 0, 1 },
        { "READY again at the same epoch without -fenced", sc_ready_again, 1u << CHK_EPOCHS, 1 },
        { "N = 2: one slot fails over, the other keeps its epoch", sc_slots_good, 0, 2 },
        { "N = 2: two actives in one slot", sc_slots_two_in_one,
            (1u << CHK_OVERLAP) | (1u << CHK_SERVICE), 2 },
        { "N = 2: one node's services in two slots", sc_slots_node_two,
            1u << CHK_SVC_SLOTS, 2 },
        { "N = 2: three actives", sc_slots_three, (1u << CHK_OVERLAP) | (1u << CHK_NACTIVE)
            | (1u << CHK_SERVICE) | (1u << CHK_SVC_NACTIVE), 2 },
        { "N = 2: three services, two READY", sc_slots_three_services,
            (1u << CHK_SERVICE) | (1u << CHK_SVC_NACTIVE), 2 },
        { "N = 2: a slot's epoch goes back", sc_slots_epoch_back,
            (1u << CHK_EPOCHS) | (1u << CHK_STALE), 2 },
    };
    char base[PATH_MAX], want[128], got[128];
    struct check_figures fig;
    struct synth s;
    size_t k;

    snprintf(base, sizeof base, "%s/zkfault-selftest.XXXXXX",
        getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (mkdtemp(base) == NULL) {
        fault_check(res, 0, "checker self-test: mkdtemp %s: %s", base, strerror(errno));
        return;
    }
    for (k = 0; k < sizeof sc / sizeof sc[0]; k++) {
        struct results r = { .quiet = 1 };
        char name[16];

        snprintf(name, sizeof name, "s%zu", k);
        synth_leaders = sc[k].leaders > 0 ? sc[k].leaders : 1;
        if (synth_open(&s, base, name) == -1) {
            fault_check(res, 0, "checker self-test: cannot write %s: %s", s.dir, strerror(errno));
            continue;
        }
        sc[k].write(&s);
        synth_close(&s);
        printf("checker self-test: %s\n", sc[k].name);
        if (check_run(s.dir, &r, &fig, 0) == -1)
            r.failed_mask = ~0u;
        mask_text(sc[k].expect, want, sizeof want);
        mask_text(r.failed_mask, got, sizeof got);
        fault_check(res, r.failed_mask == sc[k].expect && r.n == CHK__COUNT,
            "checker self-test: %s fails %s (wanted %s)", sc[k].name, got, want);
    }
    nftw(base, selftest_rm, 16, FTW_DEPTH | FTW_PHYS);
}
