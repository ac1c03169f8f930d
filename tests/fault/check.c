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
 *     "the paused-process bound");
 *  3. a leader that was stopped while READY stops acting within
 *     pause_bound_ms of its SIGCONT (the measured SIGCONT -> -suspended);
 *  4. epochs strictly increase over +ready, in time order, over all nodes
 *     (but a leader fenced at its epoch may be READY again at that epoch);
 *  5. the register never accepted a stale write (an epoch below the highest
 *     it had accepted) and refused only stale ones;
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
 *  9. at the service (service.log, the hooks' own CLOCK_MONOTONIC stamps:
 *     takeover hook start, stepdown hook end; a kill-node stamps the end of
 *     the killed machine's service itself): no two nodes' [start, end]
 *     intervals overlap, except inside a SIGSTOP window of one of the two
 *     extended by pause_bound_ms (svcint.c).
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
    char name[24];
    uint64_t epoch;
    char detail[112];                   /* for the timeline */
};

/* One attempt on the register. */
struct rent {
    uint64_t t;
    int node;
    uint64_t epoch;
    char source[16];
    int accepted;
};

/* An interval [a, b) of one node, with the epoch it led at. */
struct ival {
    uint64_t a, b;
    int node;
    uint64_t epoch;
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
    size_t k;

    name = o != NULL ? str(o, "event") : NULL;
    who = o != NULL ? str(o, "node") : NULL;
    for (k = 0; name != NULL && k < sizeof check_event_names / sizeof check_event_names[0]; k++)
        if (strcmp(name, check_event_names[k]) == 0)
            break;
    if (name == NULL || who == NULL || strcmp(who, r->ids[node]) != 0
        || k == sizeof check_event_names / sizeof check_event_names[0] || num(o, "mono_ms") == 0) {
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
        int ready = 0, frozen = 0, stopped_ready = 0, waiting_detect = 0;
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
                } else if (is_end(en->name) && ready) {
                    ready = 0;
                    if (!frozen && en->t > ready_at) {
                        iv = vec_push(&r->act);
                        *iv = (struct ival){ ready_at, en->t, node, ready_epoch };
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
                    *iv = (struct ival){ ready_at, jn->t, node, ready_epoch };
                }
            } else if (strcmp(jn->kind, "node-cont") == 0 && frozen) {
                frozen = 0;
                iv = vec_push(&r->frozen);
                *iv = (struct ival){ stop_at, jn->t, node, 0 };
                iv = vec_push(&r->conts);
                *iv = (struct ival){ jn->t, jn->t + (uint64_t)r->pause_bound_ms, node, 0 };
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
                    *iv = (struct ival){ ready_at, jn->t, node, ready_epoch };
                }
                if (frozen) {
                    iv = vec_push(&r->frozen);
                    *iv = (struct ival){ stop_at, jn->t, node, 0 };
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

            *iv = (struct ival){ ready_at, r->t_end, node, ready_epoch };
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

            if (iv[a].node == iv[b].node)
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
                        "as READY leader for %" PRIu64 " ms from +%.3f s (%" PRIu64 " ms outside "
                        "the paused-process allowance)\n", r->ids[iv[a].node], iv[a].epoch,
                        r->ids[iv[b].node], iv[b].epoch, len, rel(r, lo), out);
            }
        }
    }
    fig->violations += bad;
    fault_check(res, bad == 0, "at most one node acts as READY leader at any instant "
        "(longest overlap %" PRIu64 " ms, %" PRIu64 " ms of it outside the %d ms after a "
        "SIGCONT)", fig->longest_overlap_ms, fig->longest_overlap_bad_ms, r->pause_bound_ms);
}

/* Check 4: epochs strictly increase over +ready. */
static void
check_epochs(struct run *r, struct results *res, struct check_figures *fig)
{
    const struct ev *e = r->ev.v;
    uint64_t last = 0;
    int last_node = -1, bad = 0, shown = 0, refenced = 0;
    size_t k;

    for (k = 0; k < r->ev.n; k++) {
        /* a leader fenced (nothing heard for fence_ms) and still elected at
           its epoch when heard again takes over again at that epoch */
        if (strcmp(e[k].name, "-fenced") == 0 && e[k].node == last_node && e[k].epoch == last)
            refenced = 1;
        if (strcmp(e[k].name, "+ready") != 0)
            continue;
        fig->ready_count++;
        if (refenced && e[k].node == last_node && e[k].epoch == last) {
            refenced = 0;
            continue;
        }
        if (e[k].epoch <= last) {
            bad++;
            if (shown++ < CHECK_SHOW_MAX)
                printf("  - +ready of %s at epoch %" PRIu64 " (+%.3f s) after +ready of %s at "
                    "epoch %" PRIu64 "\n", r->ids[e[k].node], e[k].epoch, rel(r, e[k].t),
                    r->ids[last_node], last);
        }
        if (e[k].epoch > last) {
            last = e[k].epoch;
            last_node = e[k].node;
            refenced = 0;
        }
    }
    fig->violations += bad;
    fault_check(res, bad == 0 && fig->ready_count > 0, "epochs strictly increase over +ready "
        "(%d transitions, last epoch %" PRIu64 ")", fig->ready_count, last);
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
    uint64_t highest = 0;
    int stale = 0, wrong = 0, foreign = 0, unfenced = 0, shown = 0;
    size_t k, m;

    for (k = 0; k < r->reg.n; k++) {
        if (w[k].accepted) {
            fig->writes_accepted++;
            if (w[k].epoch < highest) {
                stale++;
                if (shown++ < CHECK_SHOW_MAX)
                    printf("  - register accepted %s epoch %" PRIu64 " (%s) at +%.3f s after "
                        "epoch %" PRIu64 "\n", w[k].node >= 0 ? r->ids[w[k].node] : "?",
                        w[k].epoch, w[k].source, rel(r, w[k].t), highest);
            } else {
                highest = w[k].epoch;
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
                    printf("  - register refused epoch %" PRIu64 " at +%.3f s while the "
                        "highest was %" PRIu64 "\n", w[k].epoch, rel(r, w[k].t), highest);
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
                && strcmp(w[m].source, "takeover") == 0 && w[m].t <= e[k].t;
        if (!found) {
            unfenced++;
            if (shown++ < CHECK_SHOW_MAX)
                printf("  - +ready of %s at epoch %" PRIu64 " (+%.3f s) without an accepted "
                    "takeover write at that epoch before it\n", r->ids[e[k].node], e[k].epoch,
                    rel(r, e[k].t));
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

/* Could some node lead at time t (per the journal): running, not stopped, linked, no failing hook? */
static int
someone_can_lead(const struct run *r, uint64_t t)
{
    const struct jent *j = r->j.v;
    int alive[FAULT_NODES_MAX] = { 0 }, out[FAULT_NODES_MAX] = { 0 };
    int i, n;
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
            return 1;
    return 0;
}

/* Check 8: no leaderless period longer than the bound. */
static void
check_leaderless(struct run *r, struct results *res, struct check_figures *fig)
{
    const struct jent *j = r->j.v;
    const struct ival *iv = r->act.v;
    struct vec quorum = { .size = sizeof(struct ival) };
    uint64_t bound = (uint64_t)r->session_ms + (uint64_t)r->watchdog_ms + (uint64_t)r->slack_ms;
    uint64_t start = UINT64_MAX, cur, lost_at = 0, a, b, c, eff;
    size_t k;
    int bad = 0, shown = 0, lost = 0;

    for (k = 0; k < r->j.n; k++) {
        if (strcmp(j[k].kind, "quorum-lost") == 0 && !lost) {
            lost = 1;
            lost_at = j[k].t;
        } else if (strcmp(j[k].kind, "quorum-restored") == 0 && lost) {
            struct ival *q = vec_push(&quorum);

            lost = 0;
            *q = (struct ival){ lost_at, j[k].t, -1, 0 };
            fig->quorum_lost_ms += j[k].t - lost_at;
        }
    }
    if (lost) {
        struct ival *q = vec_push(&quorum);

        *q = (struct ival){ lost_at, r->t_end, -1, 0 };
        fig->quorum_lost_ms += r->t_end - lost_at;
    }
    for (k = 0; k < r->act.n; k++)
        if (iv[k].a < start)
            start = iv[k].a;
    if (start == UINT64_MAX || r->t_end == 0) {
        fault_check(res, 0, "a READY leader existed at some point of the run");
        free(quorum.v);
        return;
    }
    /* walk the gaps of the union of acting intervals over [start, t_end) */
    cur = start;
    while (cur < r->t_end) {
        uint64_t reach = cur, next = r->t_end;
        int progress = 1;

        while (progress) {
            progress = 0;
            for (k = 0; k < r->act.n; k++)
                if (iv[k].a <= reach && iv[k].b > reach) {
                    reach = iv[k].b;
                    progress = 1;
                }
        }
        if (reach >= r->t_end)
            break;
        for (k = 0; k < r->act.n; k++)
            if (iv[k].a > reach && iv[k].a < next)
                next = iv[k].a;
        a = reach;
        b = next;
        if (b - a > fig->longest_leaderless_ms)
            fig->longest_leaderless_ms = b - a;
        /*
         * Split the gap at every fault action in it: after each one the
         * cluster must have recovered within the bound, unless the next one
         * came first (a later action does not excuse an earlier stall).
         */
        c = a;
        for (k = 0; k <= r->j.n; k++) {
            uint64_t d;

            if (k < r->j.n && !(j[k].t > c && j[k].t < b && is_disturbance(j[k].kind)))
                continue;
            d = k < r->j.n ? j[k].t : b;
            eff = uncovered(&quorum, -1, -1, c, d); /* without quorum loss */
            if (someone_can_lead(r, c)) {
                if (eff > fig->longest_leaderless_eff_ms)
                    fig->longest_leaderless_eff_ms = eff;
                if (eff > bound) {
                    bad++;
                    if (shown++ < CHECK_SHOW_MAX)
                        printf("  - no READY leader from +%.3f s to +%.3f s: %" PRIu64 " ms "
                            "from +%.3f s to the next fault action or leader at +%.3f s "
                            "(bound %" PRIu64 " ms)\n", rel(r, a), rel(r, b), eff, rel(r, c),
                            rel(r, d), bound);
                }
            }
            c = d;
        }
        cur = b;
    }
    fig->violations += bad;
    fault_check(res, bad == 0, "no stretch without a READY leader longer than session + "
        "watchdog + slack = %" PRIu64 " ms between fault actions, quorum loss excepted "
        "(longest %" PRIu64 " ms counted, longest leaderless period %" PRIu64 " ms in all)",
        bound, fig->longest_leaderless_eff_ms, fig->longest_leaderless_ms);
    free(quorum.v);
}

/*
 * Check 9: at the service. The hooks' stamps in service.log; the frozen
 * windows (SIGSTOP .. SIGCONT or death) of build_intervals() excuse an
 * overlap for their length plus the pause bound. An interval still open
 * lasts to the end of the journal (the daemons were terminated by then).
 */
static void
check_service(struct run *r, struct results *res, struct check_figures *fig)
{
    const struct ival *fr = r->frozen.v;
    const struct jent *j = r->j.v;
    struct svc s = { 0 };
    struct svc_figures sf;
    char path[PATH_MAX], err[PATH_MAX + 128], line[1024];
    FILE *mem;
    char *buf = NULL;
    size_t len = 0, k;
    int n, bad = 0, shown = 0, rc;

    snprintf(path, sizeof path, "%s/service.log", r->dir);
    if (svc_load(&s, path, 0, err, sizeof err) < 0) {
        printf("  - %s\n", err);
        fault_check(res, 0, "at the service: %s", err);
        fig->violations++;
        svc_free(&s);
        return;
    }
    s.origin_us = (int64_t)r->t0 * 1000;    /* times as the other checks print them */
    for (k = 0; k < r->frozen.n; k++)
        svc_frozen(&s, r->ids[fr[k].node], (int64_t)fr[k].a * 1000, (int64_t)fr[k].b * 1000);
    if ((mem = open_memstream(&buf, &len)) == NULL) {
        fault_check(res, 0, "at the service: open_memstream: %s", strerror(errno));
        svc_free(&s);
        return;
    }
    rc = svc_check(&s, (int64_t)j[r->j.n - 1].t * 1000, (int64_t)r->pause_bound_ms * 1000, mem,
        &sf);
    fclose(mem);
    /* the violations, as the other checks print theirs */
    for (mem = fmemopen(buf, len, "r"); mem != NULL && fgets(line, sizeof line, mem) != NULL;)
        if (strncmp(line, "VIOLATION: ", 11) == 0 && shown++ < CHECK_SHOW_MAX)
            printf("  - %s", line + 11);
    if (mem != NULL)
        fclose(mem);
    free(buf);
    n = rc < 0 ? 1 : rc;
    bad += n;
    fig->violations += bad;
    fig->service_intervals = sf.intervals;
    fig->service_overlap_ms = (uint64_t)(sf.longest_us + 999) / 1000;
    fig->service_overlap_bad_ms = (uint64_t)(sf.longest_outside_us + 999) / 1000;
    fault_check(res, bad == 0, "at the service: no two nodes' services active at once, "
        "except a frozen node for its SIGSTOP + %d ms (%d intervals from the hooks' stamps, "
        "longest overlap %.3f ms, %.3f ms of it outside)", r->pause_bound_ms, sf.intervals,
        sf.longest_us / 1000.0, sf.longest_outside_us / 1000.0);
    svc_free(&s);
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
        if (all || k < sizeof shown / sizeof shown[0])
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
    build_intervals(&r, res, fig);
    check_overlap(&r, res, fig);
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
