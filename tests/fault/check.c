/*
 * check.c - the safety checker over a fault run's directory: the harness's
 * journal (harness.jsonl: what was done to which process, and when), every
 * node's event log (nI.events) and the fenced register's journal
 * (register.jsonl). All times are CLOCK_MONOTONIC milliseconds.
 *
 * A node *acts as the READY leader* from +ready or +resumed until
 * -stepdown, -suspended, -leadership-lost, -fenced or its process's death (the
 * harness's kill -9, or the exit it reaped), except while it is stopped
 * (SIGSTOP .. SIGCONT: a frozen process does nothing). The checks:
 *
 *  1. the event logs are well-formed (JSON, this node, known event names);
 *  2. at most one node acts as READY leader at any instant, except within
 *     pause_bound_ms after a SIGCONT of one of the two (doc/PROTOCOL.md,
 *     "the paused-process bound"); with N active leaders (slots): in one
 *     slot, and (2b) never more than N at once, with the same allowance;
 *  3. a leader that was stopped while READY stops acting within
 *     pause_bound_ms of its SIGCONT (the measured SIGCONT -> -suspended);
 *  4. epochs strictly increase over +ready, in time order, over all nodes
 *     of a slot (but a leader fenced at its epoch may be READY again at that
 *     epoch);
 *  5. the register never accepted a stale write (an epoch below the highest
 *     it had accepted for that slot) and refused only stale ones;
 *  6. every write the register accepted carries an epoch its writer was
 *     elected for (+takeover/+ready at that epoch in its own log);
 *  7. every +ready comes after its takeover hook wrote the register at that
 *     epoch (the hook is the fenced acquisition);
 *  8. inside a period without a READY leader, no stretch between two
 *     fault actions (or the period's start or end) is longer than
 *     session_ms + watchdog_ms + slack_ms, without the time the ensemble
 *     had no quorum, and only while a node that can lead exists (running,
 *     not stopped, not partitioned, no failing hook): after every fault
 *     action the cluster recovers within the bound or is disturbed again;
 *     per slot: slot K counts as able to lead while more than K nodes can;
 *  9. at the service (service.log, the hooks' own CLOCK_MONOTONIC stamps:
 *     takeover hook start, stepdown hook end; a kill-node stamps the end of
 *     the killed machine's service itself): no two nodes' [start, end]
 *     intervals overlap in one slot, except inside a SIGSTOP window of one of
 *     the two extended by pause_bound_ms (svcint.c); with slots, (9b) no node's
 *     services in two slots overlap, and (9c) never more than N services are
 *     active at once, with the same allowance.
 *
 * N (run-start's "leaders", absent = 1) and each event's and stamp's slot
 * (absent = 0) come from the run: a run of one leader is checked as before,
 * and 2b and 9c, which N = 1 makes the same as 2 and 9, pass by themselves.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "fault.h"
#include "svcint.h"

#define CHECK_SHOW_MAX  12              /* violations printed per check */
#define CHECK_SLOTS     REG_SLOTS_MAX   /* slots an event or stamp may name */

/* One line of harness.jsonl. */
struct jent {
    uint64_t t;
    char kind[24];
    int node;                           /* index, -1 none */
    int server;                         /* ZooKeeper server, -1 none */
    char detail[112];                   /* for the timeline */
};

/* One event of a node's log. */
struct ev {
    uint64_t t;
    size_t seq;                         /* read order: keeps a node's order at equal times */
    int node;
    int slot;                           /* "slot" (0 when absent: N = 1) */
    char name[24];
    uint64_t epoch;
    char detail[112];                   /* for the timeline */
};

/* One attempt on the register. */
struct rent {
    uint64_t t;
    int node;
    int slot;                           /* the register's slot (0 when absent) */
    uint64_t epoch;
    char source[16];
    int accepted;
};

/* An interval [a, b) of one node, with the epoch (and slot) it led at. */
struct ival {
    uint64_t a, b;
    int node;
    uint64_t epoch;
    int slot;
};

/* A growable array. */
struct vec {
    void *v;
    size_t n, cap, size;
};

static void *
vec_push(struct vec *x)
{
    void *nv;

    if (x->n == x->cap) {
        x->cap = x->cap ? x->cap * 2 : 64;
        if ((nv = realloc(x->v, x->cap * x->size)) == NULL) {
            fprintf(stderr, "test_fault: out of memory\n");
            exit(1);
        }
        x->v = nv;
    }
    return memset((char *)x->v + x->n++ * x->size, 0, x->size);
}

struct run {
    const char *dir;
    uint64_t t0, t_end;                 /* run start; teardown start (end of checks) */
    int nnodes;
    int leaders;                        /* N active slots (run-start; 1 when absent) */
    char ids[FAULT_NODES_MAX][FAULT_ID_LEN];
    int session_ms, watchdog_ms, slack_ms, pause_bound_ms;
    struct vec j;                       /* struct jent */
    struct vec ev;                      /* struct ev, every node, by time */
    struct vec reg;                     /* struct rent, register order */
    struct vec act;                     /* struct ival: acting as READY leader */
    struct vec frozen;                  /* struct ival: stopped */
    struct vec conts;                   /* struct ival: [SIGCONT, SIGCONT + pause bound) */
    int bad_lines;
};

static const char *const check_event_names[] = {
    "+connected", "-disconnected", "-session-expired", "-auth-failed", "+registered",
    "-registered", "+elector", "-elector", "+decision", "-no-eligible", "+watchdog",
    "+leader-fenced", "+takeover", "+ready", "-takeover-abort", "-takeover-failed",
    "-stepdown", "-suspended", "+resumed", "-leadership-lost", "+leader-changed",
    "-malformed", "-error", "-request-stalled", "-stuck", "-fenced", "+hold",
};

static double
rel(const struct run *r, uint64_t t)
{
    return ((double)t - (double)r->t0) / 1000.0;
}

static int
node_index(const struct run *r, const char *id)
{
    int i;

    for (i = 0; id != NULL && i < r->nnodes; i++)
        if (strcmp(r->ids[i], id) == 0)
            return i;
    return -1;
}

static uint64_t
num(const cJSON *o, const char *name)
{
    const cJSON *x = cJSON_GetObjectItem(o, name);

    return cJSON_IsNumber(x) && x->valuedouble > 0 ? (uint64_t)x->valuedouble : 0;
}

static const char *
str(const cJSON *o, const char *name)
{
    const cJSON *x = cJSON_GetObjectItem(o, name);

    return cJSON_IsString(x) ? x->valuestring : NULL;
}

/* Call fn for every line of path; returns the number of lines, -1 if unreadable. */
static int
each_line(const char *path, void (*fn)(struct run *, const char *, int, void *),
    struct run *r, void *arg)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    FILE *fp;
    int n = 0;

    if ((fp = fopen(path, "r")) == NULL)
        return -1;
    while ((len = getline(&line, &cap, fp)) != -1) {
        n++;
        if (len > 0 && line[len - 1] == '\n')
            line[len - 1] = '\0';
        fn(r, line, n, arg);
    }
    free(line);
    fclose(fp);
    return n;
}

/* ------------------------------------------------------------------------
 * Reading the run
 * ------------------------------------------------------------------------ */

static void
read_journal_line(struct run *r, const char *line, int lineno, void *arg)
{
    cJSON *o = cJSON_Parse(line), *p, *x;
    struct jent *e;
    const char *kind;

    (void)arg;
    if (o == NULL || (kind = str(o, "kind")) == NULL) {
        fprintf(stderr, "test_fault: harness.jsonl:%d: malformed line\n", lineno);
        r->bad_lines++;
        cJSON_Delete(o);
        return;
    }
    if (strcmp(kind, "run-start") == 0) {
        r->t0 = num(o, "mono_ms");
        p = cJSON_GetObjectItem(o, "params");
        r->session_ms = (int)num(p, "session_ms");
        r->watchdog_ms = (int)num(p, "watchdog_ms");
        r->slack_ms = (int)num(p, "slack_ms");
        r->pause_bound_ms = (int)num(p, "pause_bound_ms");
        r->leaders = (int)num(p, "leaders");
        if (r->leaders < 1 || r->leaders > CHECK_SLOTS)
            r->leaders = 1;     /* a run of a harness without --leaders */
        r->nnodes = 0;
        cJSON_ArrayForEach(x, cJSON_GetObjectItem(o, "nodes")) {
            if (cJSON_IsString(x) && r->nnodes < FAULT_NODES_MAX)
                snprintf(r->ids[r->nnodes++], FAULT_ID_LEN, "%s", x->valuestring);
        }
    }
    e = vec_push(&r->j);
    e->t = num(o, "mono_ms");
    snprintf(e->kind, sizeof e->kind, "%s", kind);
    e->node = node_index(r, str(o, "node"));
    x = cJSON_GetObjectItem(o, "server");
    e->server = cJSON_IsNumber(x) ? x->valueint : -1;
    snprintf(e->detail, sizeof e->detail, "%s", str(o, "detail") ? str(o, "detail") : "");
    if (strcmp(kind, "teardown") == 0 && r->t_end == 0)
        r->t_end = e->t;
    cJSON_Delete(o);
}

static void
read_event_line(struct run *r, const char *line, int lineno, void *arg)
{
    int node = *(int *)arg;
    cJSON *o = cJSON_Parse(line);
    const char *name, *who;
    struct ev *e;
    uint64_t slot = o != NULL ? num(o, "slot") : 0;
    size_t k;

    name = o != NULL ? str(o, "event") : NULL;
    who = o != NULL ? str(o, "node") : NULL;
    for (k = 0; name != NULL && k < sizeof check_event_names / sizeof check_event_names[0]; k++)
        if (strcmp(name, check_event_names[k]) == 0)
            break;
    if (name == NULL || who == NULL || strcmp(who, r->ids[node]) != 0
        || k == sizeof check_event_names / sizeof check_event_names[0] || num(o, "mono_ms") == 0
        || slot >= (uint64_t)r->leaders) {
        if (r->bad_lines++ < CHECK_SHOW_MAX)
            printf("  - %s.events:%d: not an event of %s: %.120s\n", r->ids[node], lineno,
                r->ids[node], line);
        cJSON_Delete(o);
        return;
    }
    e = vec_push(&r->ev);
    e->t = num(o, "mono_ms");
    e->seq = r->ev.n;
    e->node = node;
    e->slot = (int)slot;
    snprintf(e->name, sizeof e->name, "%s", name);
    e->epoch = num(o, "epoch");
    snprintf(e->detail, sizeof e->detail, "%s", str(o, "detail") ? str(o, "detail") : "");
    cJSON_Delete(o);
}

static void
read_register_line(struct run *r, const char *line, int lineno, void *arg)
{
    cJSON *o = cJSON_Parse(line);
    struct rent *e;
    const char *src;

    (void)arg;
    if (o == NULL || (src = str(o, "source")) == NULL) {
        if (r->bad_lines++ < CHECK_SHOW_MAX)
            printf("  - register.jsonl:%d: malformed: %.120s\n", lineno, line);
        cJSON_Delete(o);
        return;
    }
    e = vec_push(&r->reg);
    e->t = num(o, "mono_ms");
    e->node = node_index(r, str(o, "node"));
    e->slot = num(o, "slot") < CHECK_SLOTS ? (int)num(o, "slot") : CHECK_SLOTS - 1;
    e->epoch = num(o, "epoch");
    snprintf(e->source, sizeof e->source, "%s", src);
    e->accepted = cJSON_IsTrue(cJSON_GetObjectItem(o, "accepted"));
    cJSON_Delete(o);
}

static int
ev_cmp(const void *a, const void *b)
{
    const struct ev *x = a, *y = b;

    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* ------------------------------------------------------------------------
 * Intervals
 * ------------------------------------------------------------------------ */

static int
is_start(const char *name)
{
    return strcmp(name, "+ready") == 0 || strcmp(name, "+resumed") == 0;
}

static int
is_end(const char *name)
{
    return strcmp(name, "-stepdown") == 0 || strcmp(name, "-suspended") == 0
        || strcmp(name, "-leadership-lost") == 0 || strcmp(name, "-fenced") == 0;
}

/* Length of [a, b) not covered by the intervals of node n (or -1: any) in v. */
static uint64_t
uncovered(const struct vec *v, int n, int n2, uint64_t a, uint64_t b)
{
    const struct ival *iv = v->v;
    uint64_t cur = a, best;
    size_t k;
    int progress = 1;

    /* walk forward: repeatedly extend cur through any interval covering it */
    while (cur < b && progress) {
        progress = 0;
        best = cur;
        for (k = 0; k < v->n; k++) {
            if (n >= 0 && iv[k].node != n && iv[k].node != n2)
                continue;
            if (iv[k].a <= cur && iv[k].b > best)
                best = iv[k].b;
        }
        if (best > cur) {
            cur = best;
            progress = 1;
        }
    }
    if (cur >= b)
        return 0;
    /* the rest: subtract whatever covers [cur, b) further on */
    {
        uint64_t next = b;

        for (k = 0; k < v->n; k++) {
            if (n >= 0 && iv[k].node != n && iv[k].node != n2)
                continue;
            if (iv[k].a > cur && iv[k].a < next)
                next = iv[k].a;
        }
        return (next - cur) + (next < b ? uncovered(v, n, n2, next, b) : 0);
    }
}

/*
 * Per node, from its events and the journal's process events: the intervals
 * acting as READY leader (READY minus stopped), the stopped intervals and
 * the SIGCONT allowances. Also measures the paused-leader detection.
 */
static void
build_intervals(struct run *r, struct results *res, struct check_figures *fig)
{
    const struct jent *j = r->j.v;
    const struct ev *e = r->ev.v;
    int node, shown = 0, bad = 0;

    for (node = 0; node < r->nnodes; node++) {
        uint64_t ready_at = 0, ready_epoch = 0, stop_at = 0, cont_at = 0;
        int ready = 0, frozen = 0, stopped_ready = 0, waiting_detect = 0, ready_slot = 0;
        size_t ji = 0, ei = 0;

        for (;;) {
            const struct jent *jn = NULL;
            const struct ev *en = NULL;
            struct ival *iv;

            while (ji < r->j.n && j[ji].node != node)
                ji++;
            while (ei < r->ev.n && e[ei].node != node)
                ei++;
            if (ji < r->j.n)
                jn = &j[ji];
            if (ei < r->ev.n)
                en = &e[ei];
            if (jn == NULL && en == NULL)
                break;
            /* at the same millisecond: SIGCONT first, then events, then stop/death */
            if (en != NULL && (jn == NULL || en->t < jn->t
                || (en->t == jn->t && strcmp(jn->kind, "node-cont") != 0))) {
                ei++;
                if (is_start(en->name) && !ready) {
                    ready = 1;
                    ready_at = en->t;
                    ready_epoch = en->epoch;
                    ready_slot = en->slot;
                } else if (is_end(en->name) && ready) {
                    ready = 0;
                    if (!frozen && en->t > ready_at) {
                        iv = vec_push(&r->act);
                        *iv = (struct ival){ ready_at, en->t, node, ready_epoch, ready_slot };
                    }
                }
                if (waiting_detect && is_end(en->name)) {
                    uint64_t d = en->t - cont_at;

                    waiting_detect = 0;
                    fig->pauses_measured++;
                    if (d > fig->max_pause_detect_ms)
                        fig->max_pause_detect_ms = d;
                    if (d > (uint64_t)r->pause_bound_ms) {
                        bad++;
                        if (shown++ < CHECK_SHOW_MAX)
                            printf("  - %s stopped while READY: %s %" PRIu64 " ms after its "
                                "SIGCONT at +%.3f s (bound %d ms)\n", r->ids[node], en->name, d,
                                rel(r, cont_at), r->pause_bound_ms);
                    }
                }
                continue;
            }
            ji++;
            if (strcmp(jn->kind, "node-stop") == 0 && !frozen) {
                frozen = 1;
                stop_at = jn->t;
                stopped_ready = ready;
                if (ready && jn->t > ready_at) {
                    iv = vec_push(&r->act);
                    *iv = (struct ival){ ready_at, jn->t, node, ready_epoch, ready_slot };
                }
            } else if (strcmp(jn->kind, "node-cont") == 0 && frozen) {
                frozen = 0;
                iv = vec_push(&r->frozen);
                *iv = (struct ival){ stop_at, jn->t, node, 0, 0 };
                iv = vec_push(&r->conts);
                *iv = (struct ival){ jn->t, jn->t + (uint64_t)r->pause_bound_ms, node, 0, 0 };
                if (ready)
                    ready_at = jn->t;       /* acting again from now on */
                /* only a stop longer than the session timeout must be noticed:
                   a shorter one may leave the session (and the leadership) intact */
                if (stopped_ready && ready && jn->t - stop_at >= (uint64_t)r->session_ms) {
                    waiting_detect = 1;
                    cont_at = jn->t;
                }
            } else if (strcmp(jn->kind, "node-kill") == 0 || strcmp(jn->kind, "node-exit") == 0) {
                if (ready && !frozen && jn->t > ready_at) {
                    iv = vec_push(&r->act);
                    *iv = (struct ival){ ready_at, jn->t, node, ready_epoch, ready_slot };
                }
                if (frozen) {
                    iv = vec_push(&r->frozen);
                    *iv = (struct ival){ stop_at, jn->t, node, 0, 0 };
                }
                if (waiting_detect && ready) {
                    bad++;
                    if (shown++ < CHECK_SHOW_MAX)
                        printf("  - %s stopped while READY: still READY when it died at "
                            "+%.3f s, SIGCONT at +%.3f s\n", r->ids[node], rel(r, jn->t),
                            rel(r, cont_at));
                }
                ready = frozen = waiting_detect = 0;
            }
        }
        if (ready && !frozen && r->t_end > ready_at) {
            struct ival *iv = vec_push(&r->act);

            *iv = (struct ival){ ready_at, r->t_end, node, ready_epoch, ready_slot };
        }
        if (waiting_detect) {
            bad++;
            if (shown++ < CHECK_SHOW_MAX)
                printf("  - %s stopped while READY: never stopped acting after its SIGCONT "
                    "at +%.3f s\n", r->ids[node], rel(r, cont_at));
        }
    }
    fig->violations += bad;
    fault_check(res, bad == 0, "a leader stopped while READY for longer than the session "
        "timeout stops acting within %d ms of its SIGCONT (%d such pauses, longest %" PRIu64
        " ms)", r->pause_bound_ms, fig->pauses_measured, fig->max_pause_detect_ms);
}

/* Check 2: at most one node acting as READY leader at any instant. */
static void
check_overlap(struct run *r, struct results *res, struct check_figures *fig)
{
    const struct ival *iv = r->act.v;
    size_t a, b;
    int bad = 0, shown = 0;

    for (a = 0; a < r->act.n; a++) {
        for (b = a + 1; b < r->act.n; b++) {
            uint64_t lo, hi, len, out;

            if (iv[a].node == iv[b].node || iv[a].slot != iv[b].slot)
                continue;
            lo = iv[a].a > iv[b].a ? iv[a].a : iv[b].a;
            hi = iv[a].b < iv[b].b ? iv[a].b : iv[b].b;
            if (lo >= hi)
                continue;
            len = hi - lo;
            out = uncovered(&r->conts, iv[a].node, iv[b].node, lo, hi);
            if (len > fig->longest_overlap_ms)
                fig->longest_overlap_ms = len;
            if (out > fig->longest_overlap_bad_ms)
                fig->longest_overlap_bad_ms = out;
            if (out > 0) {
                bad++;
                if (shown++ < CHECK_SHOW_MAX)
                    printf("  - %s (epoch %" PRIu64 ") and %s (epoch %" PRIu64 ") both acting "
                        "as READY leader of slot %d for %" PRIu64 " ms from +%.3f s (%" PRIu64
                        " ms outside the paused-process allowance)\n", r->ids[iv[a].node],
                        iv[a].epoch, r->ids[iv[b].node], iv[b].epoch, iv[a].slot, len,
                        rel(r, lo), out);
            }
        }
    }
    fig->violations += bad;
    fault_check(res, bad == 0, "at most one node acts as READY leader%s at any instant "
        "(longest overlap %" PRIu64 " ms, %" PRIu64 " ms of it outside the %d ms after a "
        "SIGCONT)", r->leaders > 1 ? " of a slot" : "", fig->longest_overlap_ms,
        fig->longest_overlap_bad_ms, r->pause_bound_ms);
}

/* A stretch of time where too many intervals are active at once. */
struct crowd {
    uint64_t a, b;                      /* [a, b) */
    int most;                           /* most intervals active in it */
    char who[96];                       /* "n1/0 n2/1 n3/0": node/slot, at its start */
};

static int
u64_cmp(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

    return a < b ? -1 : a > b;
}

/*
 * The stretches where more than max of the intervals iv[0..n) are active at
 * once, an interval not counting while ex (windows of its own node: the
 * paused-process allowance) covers it. Calls fn for each (maximal) stretch;
 * returns the most intervals active at once (without the allowance).
 */
static int
crowd_walk(const struct run *r, const struct ival *iv, size_t n, const struct ival *ex,
    size_t nex, int max, void (*fn)(const struct run *, const struct crowd *, void *), void *arg)
{
    uint64_t *pt;
    size_t npt = 0, k, m, i;
    struct crowd cur = { 0 };
    int most = 0, in = 0;

    if (n == 0)
        return 0;
    if ((pt = calloc(2 * (n + nex), sizeof *pt)) == NULL) {
        fprintf(stderr, "test_fault: out of memory\n");
        exit(1);
    }
    for (k = 0; k < n; k++) {
        pt[npt++] = iv[k].a;
        pt[npt++] = iv[k].b;
    }
    for (k = 0; k < nex; k++) {
        pt[npt++] = ex[k].a;
        pt[npt++] = ex[k].b;
    }
    qsort(pt, npt, sizeof *pt, u64_cmp);
    /* between two consecutive points every interval and window covers all or nothing */
    for (k = 0; k + 1 < npt; k++) {
        uint64_t a = pt[k], b = pt[k + 1];
        int all = 0, counted = 0;
        size_t off = 0;
        char who[96];

        if (b <= a)
            continue;
        who[0] = '\0';
        for (i = 0; i < n; i++) {
            int excused = 0;

            if (!(iv[i].a <= a && iv[i].b >= b))
                continue;
            all++;
            for (m = 0; m < nex && !excused; m++)
                excused = ex[m].node == iv[i].node && ex[m].a <= a && ex[m].b >= b;
            if (excused)
                continue;
            counted++;
            if (off < sizeof who)
                off += (size_t)snprintf(who + off, sizeof who - off, "%s%s/%d", off ? " " : "",
                    r->ids[iv[i].node], iv[i].slot);
        }
        if (all > most)
            most = all;
        if (counted > max) {
            if (!in || cur.b != a) {
                if (in)
                    fn(r, &cur, arg);
                cur = (struct crowd){ a, b, counted, "" };
                snprintf(cur.who, sizeof cur.who, "%s", who);
                in = 1;
            } else {
                cur.b = b;
                if (counted > cur.most)
                    cur.most = counted;
            }
            continue;
        }
        if (in) {
            fn(r, &cur, arg);
            in = 0;
        }
    }
    if (in)
        fn(r, &cur, arg);
    free(pt);
    return most;
}

struct crowd_count {
    int bad, shown;
    const char *what;
    uint64_t unit;                      /* the intervals' unit per ms: 1, or 1000 (us) */
};

static void
crowd_report(const struct run *r, const struct crowd *c, void *arg)
{
    struct crowd_count *cc = arg;

    cc->bad++;
    if (r->leaders > 1 && cc->shown++ < CHECK_SHOW_MAX)   /* N = 1: the overlap checks say it */
        printf("  - %d %s at once (N = %d) for %.3f ms from +%.3f s: %s\n", c->most,
            cc->what, r->leaders, (double)(c->b - c->a) / (double)cc->unit,
            rel(r, c->a / cc->unit), c->who);
}

/* Check 2b: never more than N nodes acting as READY leader at once. */
static void
check_nactive(struct run *r, struct results *res, struct check_figures *fig)
{
    struct crowd_count cc = { 0, 0, "nodes acting as READY leader", 1 };

    fig->max_acting = crowd_walk(r, r->act.v, r->act.n, r->conts.v, r->conts.n, r->leaders,
        crowd_report, &cc);
    if (r->leaders == 1) {
        /* one leader: check 2 is this check, with its own figures */
        fault_check(res, 1, "never more than N = 1 READY leaders at once (the check above)");
        return;
    }
    fig->violations += cc.bad;
    fault_check(res, cc.bad == 0, "never more than N = %d nodes act as READY leader at once, "
        "except within %d ms after a SIGCONT (most at once: %d)", r->leaders,
        r->pause_bound_ms, fig->max_acting);
}

/* Check 4: epochs strictly increase over +ready. */
static void
check_epochs(struct run *r, struct results *res, struct check_figures *fig)
{
    const struct ev *e = r->ev.v;
    uint64_t last[CHECK_SLOTS] = { 0 }, top = 0;
    int last_node[CHECK_SLOTS], refenced[CHECK_SLOTS] = { 0 }, bad = 0, shown = 0, sl;
    size_t k;

    for (sl = 0; sl < CHECK_SLOTS; sl++)
        last_node[sl] = -1;
    /* per slot: each slot's epoch is its own fencing token (one counter feeds
       them all, so they need not grow across slots in time order) */
    for (k = 0; k < r->ev.n; k++) {
        sl = e[k].slot;
        /* a leader fenced (nothing heard for fence_ms) and still elected at
           its epoch when heard again takes over again at that epoch */
        if (strcmp(e[k].name, "-fenced") == 0 && e[k].node == last_node[sl]
            && e[k].epoch == last[sl])
            refenced[sl] = 1;
        if (strcmp(e[k].name, "+ready") != 0)
            continue;
        fig->ready_count++;
        if (refenced[sl] && e[k].node == last_node[sl] && e[k].epoch == last[sl]) {
            refenced[sl] = 0;
            continue;
        }
        if (e[k].epoch <= last[sl]) {
            bad++;
            if (shown++ < CHECK_SHOW_MAX)
                printf("  - +ready of %s at epoch %" PRIu64 " (+%.3f s) after +ready of %s at "
                    "epoch %" PRIu64 " (slot %d)\n", r->ids[e[k].node], e[k].epoch,
                    rel(r, e[k].t), r->ids[last_node[sl]], last[sl], sl);
        }
        if (e[k].epoch > last[sl]) {
            last[sl] = e[k].epoch;
            last_node[sl] = e[k].node;
            refenced[sl] = 0;
        }
        if (e[k].epoch > top)
            top = e[k].epoch;
    }
    fig->violations += bad;
    fault_check(res, bad == 0 && fig->ready_count > 0, "epochs strictly increase over +ready%s "
        "(%d transitions, last epoch %" PRIu64 ")", r->leaders > 1 ? " in each slot" : "",
        fig->ready_count, top);
}

/* Did node n log +takeover, +ready or +resumed at epoch? (before t when t > 0) */
static int
node_had_epoch(const struct run *r, int n, uint64_t epoch, uint64_t before, const char *name)
{
    const struct ev *e = r->ev.v;
    size_t k;

    for (k = 0; k < r->ev.n; k++) {
        if (e[k].node != n || e[k].epoch != epoch || (before > 0 && e[k].t > before))
            continue;
        if (name != NULL ? strcmp(e[k].name, name) == 0
            : strcmp(e[k].name, "+takeover") == 0 || strcmp(e[k].name, "+ready") == 0
            || strcmp(e[k].name, "+resumed") == 0)
            return 1;
    }
    return 0;
}

/* Checks 5, 6, 7: the fenced register. */
static void
check_register(struct run *r, struct results *res, struct check_figures *fig)
{
    const struct rent *w = r->reg.v;
    const struct ev *e = r->ev.v;
    uint64_t high[CHECK_SLOTS] = { 0 }, highest;
    int stale = 0, wrong = 0, foreign = 0, unfenced = 0, shown = 0;
    size_t k, m;

    for (k = 0; k < r->reg.n; k++) {
        highest = high[w[k].slot];          /* each slot has its own register */
        if (w[k].accepted) {
            fig->writes_accepted++;
            if (w[k].epoch < highest) {
                stale++;
                if (shown++ < CHECK_SHOW_MAX)
                    printf("  - register of slot %d accepted %s epoch %" PRIu64 " (%s) at "
                        "+%.3f s after epoch %" PRIu64 "\n", w[k].slot,
                        w[k].node >= 0 ? r->ids[w[k].node] : "?", w[k].epoch, w[k].source,
                        rel(r, w[k].t), highest);
            } else {
                high[w[k].slot] = w[k].epoch;
            }
            if (w[k].node < 0 || !node_had_epoch(r, w[k].node, w[k].epoch, 0, NULL)) {
                foreign++;
                if (shown++ < CHECK_SHOW_MAX)
                    printf("  - register accepted epoch %" PRIu64 " from %s (%s) at +%.3f s: "
                        "not an epoch that node was elected for\n", w[k].epoch,
                        w[k].node >= 0 ? r->ids[w[k].node] : "an unknown node", w[k].source,
                        rel(r, w[k].t));
            }
        } else {
            fig->writes_refused++;
            if (w[k].epoch >= highest) {
                wrong++;
                if (shown++ < CHECK_SHOW_MAX)
                    printf("  - register of slot %d refused epoch %" PRIu64 " at +%.3f s while "
                        "the highest was %" PRIu64 "\n", w[k].slot, w[k].epoch, rel(r, w[k].t),
                        highest);
            }
        }
    }
    fig->stale_refused = fig->writes_refused - wrong;
    fig->violations += stale + wrong;
    fault_check(res, stale == 0 && wrong == 0 && fig->writes_accepted > 0, "the fenced "
        "register never accepted a stale write (%d accepted, %d stale writes refused)",
        fig->writes_accepted, fig->stale_refused);
    fig->violations += foreign;
    fault_check(res, foreign == 0, "every accepted write carries an epoch its writer was "
        "elected for");

    for (k = 0; k < r->ev.n; k++) {
        int found = 0;

        if (strcmp(e[k].name, "+ready") != 0)
            continue;
        for (m = 0; m < r->reg.n && !found; m++)
            found = w[m].accepted && w[m].node == e[k].node && w[m].epoch == e[k].epoch
                && w[m].slot == e[k].slot && strcmp(w[m].source, "takeover") == 0
                && w[m].t <= e[k].t;
        if (!found) {
            unfenced++;
            if (shown++ < CHECK_SHOW_MAX)
                printf("  - +ready of %s at epoch %" PRIu64 " in slot %d (+%.3f s) without an "
                    "accepted takeover write at that epoch to that slot's register before it\n",
                    r->ids[e[k].node], e[k].epoch, e[k].slot, rel(r, e[k].t));
        }
    }
    fig->violations += unfenced;
    fault_check(res, unfenced == 0, "every +ready follows its takeover hook's accepted write "
        "at that epoch");
}

/* The journal entries that count as a fault action (they restart the leaderless clock). */
static int
is_disturbance(const char *kind)
{
    static const char *const kinds[] = {
        "node-start", "node-kill", "node-exit", "node-stop", "node-cont", "partition", "heal",
        "hook-fail-on", "hook-fail-off", "zk-kill", "zk-restart", "zk-serving", "quorum-lost",
        "quorum-restored", "cli", "final-config", "hook-hang-on", "hook-hang-off",
        "stepdown-slow-on", "stepdown-slow-off", "command-exit-on", "command-exit-off",
        "zk-freeze", "zk-resume",
    };
    size_t k;

    for (k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
        if (strcmp(kind, kinds[k]) == 0)
            return 1;
    return 0;
}

/* How many nodes could lead at time t (per the journal): running, not stopped, linked, no failing hook? */
static int
can_lead_count(const struct run *r, uint64_t t)
{
    const struct jent *j = r->j.v;
    int alive[FAULT_NODES_MAX] = { 0 }, out[FAULT_NODES_MAX] = { 0 };
    int i, n, count = 0;
    size_t k;

    for (k = 0; k < r->j.n && j[k].t <= t; k++) {
        if ((n = j[k].node) < 0)
            continue;
        if (strcmp(j[k].kind, "node-start") == 0) {
            alive[n] = 1;
            out[n] &= ~1;
        } else if (strcmp(j[k].kind, "node-kill") == 0 || strcmp(j[k].kind, "node-exit") == 0
            || strcmp(j[k].kind, "node-term") == 0) {
            alive[n] = 0;
        } else if (strcmp(j[k].kind, "node-stop") == 0) {
            out[n] |= 1;
        } else if (strcmp(j[k].kind, "node-cont") == 0) {
            out[n] &= ~1;
        } else if (strcmp(j[k].kind, "partition") == 0) {
            out[n] |= 2;
        } else if (strcmp(j[k].kind, "heal") == 0) {
            out[n] &= ~2;
        } else if (strcmp(j[k].kind, "hook-fail-on") == 0
            || strcmp(j[k].kind, "hook-hang-on") == 0) {
            out[n] |= 4;
        } else if (strcmp(j[k].kind, "hook-fail-off") == 0
            || strcmp(j[k].kind, "hook-hang-off") == 0) {
            out[n] &= ~4;
        }
    }
    for (i = 0; i < r->nnodes; i++)
        if (alive[i] && out[i] == 0)
            count++;
    return count;
}

/*
 * Check 8 for one slot: the gaps of its acting intervals iv[0..n) over
 * [its first READY, t_end), split at every fault action. Adds to *bad and
 * the figures raw and eff.
 */
static void
leaderless_slot(struct run *r, int slot, const struct ival *iv, size_t n,
    const struct vec *quorum, uint64_t bound, int *bad, int *shown, uint64_t *raw, uint64_t *effmax)
{
    const struct jent *j = r->j.v;
    uint64_t start = UINT64_MAX, cur, a, b, c, eff;
    char in[24] = "";
    size_t k;

    if (r->leaders > 1)
        snprintf(in, sizeof in, " in slot %d", slot);
    for (k = 0; k < n; k++)
        if (iv[k].a < start)
            start = iv[k].a;
    if (start == UINT64_MAX)
        return;
    /* walk the gaps of the union of acting intervals over [start, t_end) */
    cur = start;
    while (cur < r->t_end) {
        uint64_t reach = cur, next = r->t_end;
        int progress = 1;

        while (progress) {
            progress = 0;
            for (k = 0; k < n; k++)
                if (iv[k].a <= reach && iv[k].b > reach) {
                    reach = iv[k].b;
                    progress = 1;
                }
        }
        if (reach >= r->t_end)
            break;
        for (k = 0; k < n; k++)
            if (iv[k].a > reach && iv[k].a < next)
                next = iv[k].a;
        a = reach;
        b = next;
        if (b - a > *raw)
            *raw = b - a;
        /*
         * Split the gap at every fault action in it: after each one the
         * cluster must have recovered within the bound, unless the next one
         * came first (a later action does not excuse an earlier stall).
         * Slot K can be filled while more than K nodes can lead (the policy
         * fills the slots in order; a node holds one).
         */
        c = a;
        for (k = 0; k <= r->j.n; k++) {
            uint64_t d;

            if (k < r->j.n && !(j[k].t > c && j[k].t < b && is_disturbance(j[k].kind)))
                continue;
            d = k < r->j.n ? j[k].t : b;
            eff = uncovered(quorum, -1, -1, c, d); /* without quorum loss */
            if (can_lead_count(r, c) > slot) {
                if (eff > *effmax)
                    *effmax = eff;
                if (eff > bound) {
                    (*bad)++;
                    if ((*shown)++ < CHECK_SHOW_MAX)
                        printf("  - no READY leader%s from +%.3f s to +%.3f s: %" PRIu64 " ms "
                            "from +%.3f s to the next fault action or leader at +%.3f s "
                            "(bound %" PRIu64 " ms)\n", in, rel(r, a), rel(r, b), eff,
                            rel(r, c), rel(r, d), bound);
                }
            }
            c = d;
        }
        cur = b;
    }
}

/* Check 8: no leaderless period longer than the bound (each slot's). */
static void
check_leaderless(struct run *r, struct results *res, struct check_figures *fig)
{
    const struct jent *j = r->j.v;
    const struct ival *iv = r->act.v;
    struct vec quorum = { .size = sizeof(struct ival) };
    struct vec one = { .size = sizeof(struct ival) };
    uint64_t bound = (uint64_t)r->session_ms + (uint64_t)r->watchdog_ms + (uint64_t)r->slack_ms;
    uint64_t lost_at = 0, raw, eff;
    size_t k;
    int bad = 0, shown = 0, lost = 0, slot, missing = 0;

    for (k = 0; k < r->j.n; k++) {
        if (strcmp(j[k].kind, "quorum-lost") == 0 && !lost) {
            lost = 1;
            lost_at = j[k].t;
        } else if (strcmp(j[k].kind, "quorum-restored") == 0 && lost) {
            struct ival *q = vec_push(&quorum);

            lost = 0;
            *q = (struct ival){ lost_at, j[k].t, -1, 0, 0 };
            fig->quorum_lost_ms += j[k].t - lost_at;
        }
    }
    if (lost) {
        struct ival *q = vec_push(&quorum);

        *q = (struct ival){ lost_at, r->t_end, -1, 0, 0 };
        fig->quorum_lost_ms += r->t_end - lost_at;
    }
    for (slot = 0; slot < r->leaders; slot++) {
        one.n = 0;
        for (k = 0; k < r->act.n; k++)
            if (iv[k].slot == slot)
                *(struct ival *)vec_push(&one) = iv[k];
        if (one.n == 0 || r->t_end == 0) {
            missing++;
            continue;
        }
        raw = eff = 0;
        leaderless_slot(r, slot, one.v, one.n, &quorum, bound, &bad, &shown, &raw, &eff);
        if (raw > fig->longest_leaderless_ms)
            fig->longest_leaderless_ms = raw;
        if (eff > fig->longest_leaderless_eff_ms)
            fig->longest_leaderless_eff_ms = eff;
        if (slot < FAULT_SLOTS_MAX) {
            fig->slot_leaderless_ms[slot] = raw;
            fig->slot_leaderless_eff_ms[slot] = eff;
        }
    }
    free(one.v);
    free(quorum.v);
    if (missing > 0) {
        fault_check(res, 0, "a READY leader existed at some point of the run%s (%d of %d "
            "slots never had one)", r->leaders > 1 ? " in every slot" : "", missing, r->leaders);
        return;
    }
    fig->violations += bad;
    fault_check(res, bad == 0, "no stretch without a READY leader%s longer than session + "
        "watchdog + slack = %" PRIu64 " ms between fault actions, quorum loss excepted "
        "(longest %" PRIu64 " ms counted, longest leaderless period %" PRIu64 " ms in all)",
        r->leaders > 1 ? " in a slot" : "", bound, fig->longest_leaderless_eff_ms,
        fig->longest_leaderless_ms);
}

/* One service stamp with its slot (-1: an end of whatever the node has). */
struct sstamp {
    int node, slot, end;
    uint64_t at_us;
    size_t line;
};

static int
sstamp_cmp(const void *x, const void *y)
{
    const struct sstamp *p = x, *q = y;

    if (p->node != q->node)
        return p->node < q->node ? -1 : 1;
    if (p->at_us != q->at_us)
        return p->at_us < q->at_us ? -1 : 1;
    return p->line < q->line ? -1 : p->line > q->line;
}

/*
 * Read service.log: each line "NODE start|end MONO EPOCH [SLOT]" goes, its
 * slot taken off, to its slot's svc (an end without a slot, "-": to every
 * slot, it ends whatever the node has: a kill-node's stamp), and to st.
 * 0, or -1 with err set ("PATH:N: why").
 */
static int
service_read(struct run *r, struct svc *sv, struct vec *st, char *err, size_t errlen)
{
    char path[PATH_MAX], line[512], buf[512], four[512], why[300], *f[6], *p, *save;
    size_t lineno = 0;
    FILE *fp;
    int nf, slot, k, node;

    snprintf(path, sizeof path, "%s/service.log", r->dir);
    if ((fp = fopen(path, "r")) == NULL) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    while (fgets(line, sizeof line, fp) != NULL) {
        lineno++;
        snprintf(buf, sizeof buf, "%s", line);
        buf[strcspn(buf, "\r\n")] = '\0';
        for (nf = 0, save = NULL, p = strtok_r(buf, " \t", &save); p != NULL && nf < 6;
            p = strtok_r(NULL, " \t", &save))
            f[nf++] = p;
        if (nf == 0 || f[0][0] == '#')
            continue;
        slot = 0;
        if (nf == 5) {
            char *end;
            long v;

            nf = 4;
            if (strcmp(f[4], "-") == 0) {
                slot = -1;
            } else {
                errno = 0;
                v = strtol(f[4], &end, 10);
                if (errno != 0 || *end != '\0' || end == f[4] || v < 0 || v >= r->leaders) {
                    snprintf(err, errlen, "%s:%zu: \"%s\" is not a slot of this run (0..%d "
                        "or -)", path, lineno, f[4], r->leaders - 1);
                    fclose(fp);
                    return -1;
                }
                slot = (int)v;
            }
        } else if (nf == 4 && strcmp(f[1], "end") == 0) {
            slot = -1;          /* a line of one leader: an end ends what is open */
        }
        /* the four fields of svcint.c's line (it checks them, nf 6 included) */
        snprintf(four, sizeof four, "%s %s %s %s%s%s", f[0], nf > 1 ? f[1] : "",
            nf > 2 ? f[2] : "", nf > 3 ? f[3] : "", nf > 5 ? " " : "", nf > 5 ? f[5] : "");
        for (k = 0; k < r->leaders; k++) {
            if (slot >= 0 && k != slot)
                continue;
            if (svc_add_line(&sv[k], nf == 4 ? four : line, lineno, why, sizeof why) < 0) {
                snprintf(err, errlen, "%s:%s", path, why + 5); /* "line N: .." -> "PATH:N: .." */
                fclose(fp);
                return -1;
            }
        }
        if ((node = node_index(r, f[0])) < 0) {
            snprintf(err, errlen, "%s:%zu: \"%s\" is not a node of this run", path, lineno, f[0]);
            fclose(fp);
            return -1;
        }
        {
            struct sstamp *x = vec_push(st);
            const struct svc_stamp *last = &sv[slot < 0 ? 0 : slot].st[sv[slot < 0 ? 0 : slot].nst - 1];

            *x = (struct sstamp){ node, slot, strcmp(f[1], "end") == 0, (uint64_t)last->at_us,
                lineno };
        }
    }
    fclose(fp);
    return 0;
}

/*
 * Check 9: at the service. The hooks' stamps in service.log; the frozen
 * windows (SIGSTOP .. SIGCONT or death) of build_intervals() excuse an
 * overlap for their length plus the pause bound. An interval still open
 * lasts to the end of the journal (the daemons were terminated by then).
 * Per slot (9, svcint.c over each slot's stamps), then across slots: one
 * node's services in two slots at once (9b: never, a node holds one slot),
 * more than N services at once (9c: the allowance of 9).
 */
static void
check_service(struct run *r, struct results *res, struct check_figures *fig)
{
    const struct ival *fr = r->frozen.v;
    const struct jent *j = r->j.v;
    struct svc sv[CHECK_SLOTS];
    struct svc_figures sf, one;
    struct vec st = { .size = sizeof(struct sstamp) };
    struct vec iv = { .size = sizeof(struct ival) };
    struct vec ex = { .size = sizeof(struct ival) };
    struct crowd_count cc = { 0, 0, "services active", 1000 };
    char err[PATH_MAX + 128], line[1024];
    const struct sstamp *sp;
    struct ival *v, *w;
    int64_t end_us = (int64_t)j[r->j.n - 1].t * 1000;
    int64_t bound_us = (int64_t)r->pause_bound_ms * 1000;
    FILE *mem;
    char *buf = NULL;
    size_t len = 0, k, m, open[CHECK_SLOTS];
    int n, bad = 0, shown = 0, rc, slot, two = 0;

    memset(sv, 0, sizeof sv);
    memset(&sf, 0, sizeof sf);
    if (service_read(r, sv, &st, err, sizeof err) < 0) {
        printf("  - %s\n", err);
        fault_check(res, 0, "at the service: %s", err);
        /* recorded once, above; these two have nothing to check */
        fault_check(res, 1, "at the service: one node's services in one slot at a time "
            "(not checked: service.log unreadable)");
        fault_check(res, 1, "at the service: never more than N = %d services at once "
            "(not checked: service.log unreadable)", r->leaders);
        fig->violations++;
        goto out;
    }
    for (slot = 0; slot < r->leaders; slot++) {
        sv[slot].origin_us = (int64_t)r->t0 * 1000; /* times as the other checks print them */
        for (k = 0; k < r->frozen.n; k++)
            svc_frozen(&sv[slot], r->ids[fr[k].node], (int64_t)fr[k].a * 1000,
                (int64_t)fr[k].b * 1000);
        if ((mem = open_memstream(&buf, &len)) == NULL) {
            fault_check(res, 0, "at the service: open_memstream: %s", strerror(errno));
            goto out;
        }
        rc = svc_check(&sv[slot], end_us, bound_us, mem, &one);
        fclose(mem);
        /* the violations, as the other checks print theirs */
        for (mem = fmemopen(buf, len, "r"); mem != NULL && fgets(line, sizeof line, mem) != NULL;)
            if (strncmp(line, "VIOLATION: ", 11) == 0 && shown++ < CHECK_SHOW_MAX) {
                if (r->leaders > 1)
                    printf("  - slot %d: %s", slot, line + 11);
                else
                    printf("  - %s", line + 11);
            }
        if (mem != NULL)
            fclose(mem);
        free(buf);
        buf = NULL;
        n = rc < 0 ? 1 : rc;
        bad += n;
        sf.intervals += one.intervals;
        if (one.longest_us > sf.longest_us)
            sf.longest_us = one.longest_us;
        if (one.longest_outside_us > sf.longest_outside_us)
            sf.longest_outside_us = one.longest_outside_us;
    }
    fig->violations += bad;
    fig->service_intervals = sf.intervals;
    fig->service_overlap_ms = (uint64_t)(sf.longest_us + 999) / 1000;
    fig->service_overlap_bad_ms = (uint64_t)(sf.longest_outside_us + 999) / 1000;
    fault_check(res, bad == 0, "at the service: no two nodes' services active at once%s, "
        "except a frozen node for its SIGSTOP + %d ms (%d intervals from the hooks' stamps, "
        "longest overlap %.3f ms, %.3f ms of it outside)", r->leaders > 1 ? " in one slot" : "",
        r->pause_bound_ms, sf.intervals, sf.longest_us / 1000.0, sf.longest_outside_us / 1000.0);

    /* each node's intervals per slot, as svcint.c builds them (us) */
    if (st.n > 0)
        qsort(st.v, st.n, st.size, sstamp_cmp);
    sp = st.v;
    for (k = 0; k < st.n; k++) {
        if (k == 0 || sp[k].node != sp[k - 1].node)
            for (slot = 0; slot < CHECK_SLOTS; slot++)
                open[slot] = SIZE_MAX;
        if (!sp[k].end) {
            if (open[sp[k].slot] != SIZE_MAX)
                continue;           /* started again: the service never stopped */
            open[sp[k].slot] = iv.n;
            v = vec_push(&iv);
            *v = (struct ival){ sp[k].at_us, (uint64_t)end_us, sp[k].node, 0, sp[k].slot };
            continue;
        }
        for (slot = 0; slot < CHECK_SLOTS; slot++) {
            if (open[slot] == SIZE_MAX || (sp[k].slot >= 0 && sp[k].slot != slot))
                continue;
            ((struct ival *)iv.v)[open[slot]].b = sp[k].at_us;
            open[slot] = SIZE_MAX;
        }
    }
    /* 9b: a node holds one slot: its services in two slots never overlap */
    bad = 0;
    shown = 0;
    for (k = 0; k < iv.n; k++) {
        for (m = k + 1; m < iv.n; m++) {
            uint64_t lo, hi;

            v = &((struct ival *)iv.v)[k];
            w = &((struct ival *)iv.v)[m];
            if (v->node != w->node || v->slot == w->slot)
                continue;
            lo = v->a > w->a ? v->a : w->a;
            hi = v->b < w->b ? v->b : w->b;
            if (lo >= hi)
                continue;
            two++;
            if ((hi - lo + 999) / 1000 > fig->node_two_slots_ms)
                fig->node_two_slots_ms = (hi - lo + 999) / 1000;
            if (shown++ < CHECK_SHOW_MAX)
                printf("  - %s's services in slots %d and %d both active for %.3f ms from "
                    "+%.3f s\n", r->ids[v->node], v->slot, w->slot, (double)(hi - lo) / 1000.0,
                    rel(r, lo / 1000));
        }
    }
    fig->violations += two;
    fault_check(res, two == 0, "at the service: no node's services active in two slots at "
        "once (longest %" PRIu64 " ms)", fig->node_two_slots_ms);

    /* 9c: never more than N, a frozen node's service excused for its SIGSTOP + the bound */
    for (k = 0; k < r->frozen.n; k++) {
        v = vec_push(&ex);
        *v = (struct ival){ fr[k].a * 1000, fr[k].b * 1000 + (uint64_t)bound_us, fr[k].node,
            0, 0 };
    }
    fig->max_services = crowd_walk(r, iv.v, iv.n, ex.v, ex.n, r->leaders, crowd_report, &cc);
    if (r->leaders == 1) {
        fault_check(res, 1, "at the service: never more than N = 1 services at once (the "
            "check above)");
    } else {
        fig->violations += cc.bad;
        fault_check(res, cc.bad == 0, "at the service: never more than N = %d services active "
            "at once, except a frozen node for its SIGSTOP + %d ms (most at once: %d)",
            r->leaders, r->pause_bound_ms, fig->max_services);
    }
out:
    for (slot = 0; slot < CHECK_SLOTS; slot++)
        svc_free(&sv[slot]);
    free(st.v);
    free(iv.v);
    free(ex.v);
}

/* Read the journal, the event logs and the register of the run in dir. 0 or -1. */
static int
read_run(struct run *r, const char *dir)
{
    char path[PATH_MAX];
    int i;

    memset(r, 0, sizeof *r);
    r->dir = dir;
    r->j.size = sizeof(struct jent);
    r->ev.size = sizeof(struct ev);
    r->reg.size = sizeof(struct rent);
    r->act.size = r->frozen.size = r->conts.size = sizeof(struct ival);
    snprintf(path, sizeof path, "%s/harness.jsonl", dir);
    errno = 0;
    if (each_line(path, read_journal_line, r, NULL) < 0 || r->nnodes == 0 || r->t0 == 0) {
        fprintf(stderr, "test_fault: %s: cannot read the run's journal: %s\n", path,
            errno ? strerror(errno) : "no run-start line");
        free(r->j.v);
        return -1;
    }
    if (r->t_end == 0) {
        const struct jent *j = r->j.v;

        r->t_end = j[r->j.n - 1].t;
    }
    for (i = 0; i < r->nnodes; i++) {
        snprintf(path, sizeof path, "%s/%s.events", dir, r->ids[i]);
        if (each_line(path, read_event_line, r, &i) < 0) {
            printf("  - %s: %s\n", path, strerror(errno));
            r->bad_lines++;
        }
    }
    if (r->ev.n > 0)
        qsort(r->ev.v, r->ev.n, r->ev.size, ev_cmp); /* (NULL, 0) is undefined */
    snprintf(path, sizeof path, "%s/register.jsonl", dir);
    each_line(path, read_register_line, r, NULL);
    return 0;
}

/*
 * Print the run's timeline: the journal and the nodes' events merged by
 * time, relative to the run's start (all events with all = 1, else those
 * about leadership, membership and sessions). 0, or -1 (unreadable run).
 */
int
check_timeline(const char *dir, int all)
{
    static const char *const shown[] = {
        "+ready", "-suspended", "+resumed", "-stepdown", "-leadership-lost", "+takeover",
        "-takeover-failed", "-takeover-abort", "+watchdog", "+leader-fenced", "+decision",
        "+elector", "-elector", "-session-expired", "+registered", "-registered",
        "-no-eligible", "-error", "-malformed", "-fenced",
    };
    const struct jent *j;
    const struct ev *e;
    struct run r;
    size_t ji = 0, ei = 0, k;

    if (read_run(&r, dir) == -1)
        return -1;
    j = r.j.v;
    e = r.ev.v;
    while (ji < r.j.n || ei < r.ev.n) {
        if (ei >= r.ev.n || (ji < r.j.n && j[ji].t <= e[ei].t)) {
            if (strcmp(j[ji].kind, "cli-exit") != 0 && strcmp(j[ji].kind, "run-start") != 0)
                printf("%9.3f  harness  %-16s %-3s %s\n", rel(&r, j[ji].t), j[ji].kind,
                    j[ji].node >= 0 ? r.ids[j[ji].node] : "", j[ji].detail);
            ji++;
            continue;
        }
        for (k = 0; !all && k < sizeof shown / sizeof shown[0]; k++)
            if (strcmp(e[ei].name, shown[k]) == 0)
                break;
        if ((all || k < sizeof shown / sizeof shown[0]) && r.leaders > 1)
            printf("%9.3f  %-7s  %-16s %-3" PRIu64 " slot %d %s\n", rel(&r, e[ei].t),
                r.ids[e[ei].node], e[ei].name, e[ei].epoch, e[ei].slot, e[ei].detail);
        else if (all || k < sizeof shown / sizeof shown[0])
            printf("%9.3f  %-7s  %-16s %-3" PRIu64 " %s\n", rel(&r, e[ei].t), r.ids[e[ei].node],
                e[ei].name, e[ei].epoch, e[ei].detail);
        ei++;
    }
    free(r.j.v);
    free(r.ev.v);
    free(r.reg.v);
    return 0;
}

/*
 * Read the run in dir and run every check, adding to res and fig. Returns 0,
 * or -1 when the run cannot be read (message printed).
 */
int
check_run(const char *dir, struct results *res, struct check_figures *fig, int verbose)
{
    struct run r;

    (void)verbose;
    memset(fig, 0, sizeof *fig);

    if (read_run(&r, dir) == -1)
        return -1;

    fault_check(res, r.bad_lines == 0, "every event log and journal line is well-formed "
        "(%zu events, %zu register writes)", r.ev.n, r.reg.n);
    fig->leaders = r.leaders;
    build_intervals(&r, res, fig);
    check_overlap(&r, res, fig);
    check_nactive(&r, res, fig);
    check_epochs(&r, res, fig);
    check_register(&r, res, fig);
    check_leaderless(&r, res, fig);
    check_service(&r, res, fig);

    free(r.j.v);
    free(r.ev.v);
    free(r.reg.v);
    free(r.act.v);
    free(r.frozen.v);
    free(r.conts.v);
    return 0;
}
