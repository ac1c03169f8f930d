/*
 * failover.c - sections 3 and 4: a crashed leader, a crashed elector.
 *
 * The node that crashes runs in a child process (zkbench-node) and is
 * killed with SIGKILL: its session ends only when ZooKeeper expires it,
 * after the session timeout. An observer (a raw handle of the bench) keeps
 * an exists-watch on the dead node's nodes/<id> znode: the DELETED
 * notification marks the moment ZooKeeper removed the dead session's
 * ephemerals. What follows that moment is the library's part.
 *
 * Leader crash (3): nodes n9 (in-process, registered first: the elector),
 * n2 (in-process) and the victim n1 (child), policy nodeid with preempt=on:
 * n1, the lowest id, takes over each time it is started; when it dies n2
 * leads. Elector, old leader and new leader are three different nodes.
 *
 * Session closed at once (3c): the same, but right after the SIGKILL the
 * bench attaches a clone to the victim's session (zookeeper_init with its
 * session id and password, which zkbench-node prints) and closes it: the
 * session ends at a known moment, the closeSession call, instead of up to a
 * tick after the timeout. ZooKeeper's expiry is the same transaction (the
 * quorum leader's session tracker submits a closeSession), so "close call ->
 * new leader +ready" is "expiry -> READY" with the expiry's moment known.
 *
 * Elector crash (4): the elector e1 (child, not eligible, registered first)
 * and n1, n2 (in-process; n1 leads). When e1 dies, n1 (the next registration)
 * becomes the elector: the figure ends at its +elector event. n1 and n2
 * leave and join again after each run so that the next e1 is the oldest
 * registration once more.
 */
#include "config.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

#define CHILD_START_MS 30000        /* a JVM-free child starts in well under a second */

/* Poll n's view until it shows `id` READY at `epoch` (deadline timeout_ms). */
static int
wait_view(struct bnode *n, const char *id, uint64_t epoch, int timeout_ms)
{
    uint64_t until = now_us() + (uint64_t)timeout_ms * 1000u;
    struct zkelect_leader l;

    for (;;) {
        if (zkelect_get_leader(n->g, &l) == 0 && strcmp(l.id, id) == 0 &&
            l.status == ZKELECT_STATUS_READY && l.epoch == epoch)
            return 0;
        if (now_us() >= until)
            return -1;
        pace_ms(1); /* polling a view with a deadline */
    }
}

/*
 * End a dead client's session now: attach to it (its id and password) and
 * close it. t0: just before zookeeper_close() (the closeSession call), t1:
 * when it returned (the server answered, the ephemerals are deleted). 0, or
 * -1 with a warning.
 */
static int
session_close(const char *hosts, int timeout_ms, const clientid_t *cid, uint64_t *t0,
    uint64_t *t1)
{
    zhandle_t *zh = zookeeper_init(hosts, NULL, timeout_ms, cid, NULL, ZOO_NO_LOG_CLIENTENV);
    uint64_t until = now_us() + (uint64_t)BENCH_WAIT_MS * 1000u;
    const clientid_t *now;
    int rc;

    if (zh == NULL) {
        warnx_("crash: zookeeper_init (clone of session %llx) failed",
            (unsigned long long)cid->client_id);
        return -1;
    }
    while (zoo_state(zh) != ZOO_CONNECTED_STATE) {
        if (zoo_state(zh) == ZOO_EXPIRED_SESSION_STATE || now_us() >= until) {
            warnx_("crash: cannot attach to session %llx (%s)",
                (unsigned long long)cid->client_id,
                zoo_state(zh) == ZOO_EXPIRED_SESSION_STATE ? "expired already" : "timeout");
            zookeeper_close(zh);
            return -1;
        }
        pace_ms(1); /* polling the clone's state, with a deadline */
    }
    if ((now = zoo_client_id(zh)) == NULL || now->client_id != cid->client_id) {
        warnx_("crash: the clone got another session than %llx",
            (unsigned long long)cid->client_id);
        zookeeper_close(zh);
        return -1;
    }
    *t0 = now_us();
    rc = zookeeper_close(zh);
    *t1 = now_us();
    if (rc != ZOK) {
        warnx_("crash: closing session %llx: %s", (unsigned long long)cid->client_id,
            zerror(rc));
        return -1;
    }
    return 0;
}

static void
row(const char *label, const char *section, const char *name, struct samples *s,
    struct summary *sm)
{
    char metric[160];

    samples_summary(s, sm);
    table_row(name, sm);
    snprintf(metric, sizeof(metric), "%s: %s", section, name);
    summary_csv(label, metric, sm);
}

/* ---- 3. leader crash ----------------------------------------------------- */

int
section_crash(struct zkh *z, int timeout_ms, bool close_session)
{
    struct bgroup bg;
    struct bnode *n9 = NULL, *n2 = NULL, *v = NULL;
    struct samples kill_ready = {0}, kill_del = {0}, del_ready = {0}, del_decision = {0};
    struct samples decision_ready = {0}, kill_ready_ms = {0};
    struct samples kill_close = {0}, close_ack = {0}, close_del = {0}, close_ready = {0};
    clientid_t cid;
    uint64_t t_c0 = 0, t_c1 = 0;
    struct summary sm;
    struct delwatch dw;
    struct bev vready, ready, b;
    zhandle_t *ctl = NULL;
    FILE *csv = NULL;
    char path[256], csvname[64], title[200], sec[64], tname[96], meas[96];
    uint64_t t_kill, t_del;
    size_t mark, end;
    int r, rc = -1, failures = 0, wait_ms = timeout_ms * 3 + 30000;
    int64_t de;
    bool closed;

    memset(&bg, 0, sizeof(bg));
    bg.hosts = zkh_hosts(z);
    snprintf(bg.path, sizeof(bg.path), "/zkbench/crash%s-%d-%d", close_session ? "-closed" : "",
        timeout_ms, (int)getpid());
    bg.policy = "nodeid";
    bg.policy_opt = "preempt=on";
    bg.session_ms = timeout_ms;
    delwatch_init(&dw);
    snprintf(path, sizeof(path), "%s/nodes/n1", bg.path);

    if ((n9 = node_open(&bg, "n9", 1)) == NULL || node_nominate(n9) != 0)
        goto out;
    if ((n2 = node_open(&bg, "n2", 1)) == NULL || node_nominate(n2) != 0)
        goto out;
    if ((ctl = zk_connect(bg.hosts, BENCH_WAIT_MS)) == NULL)
        goto out;
    if (node_wait_leader(BENCH_WAIT_MS) == NULL) {
        fprintf(stderr, "zkbench: crash T=%d: no READY leader\n", timeout_ms);
        goto out;
    }
    if (close_session)
        snprintf(csvname, sizeof(csvname), "closed.csv");
    else
        snprintf(csvname, sizeof(csvname), "crash-%d.csv", timeout_ms);
    csv = csv_open(csvname, close_session ?
        "session_timeout_ms,run,victim_epoch,new_epoch,kill_to_ready_us,"
        "kill_to_deleted_us,deleted_to_ready_us,deleted_to_decision_us,decision_to_ready_us,"
        "kill_to_close_us,close_ack_us,close_to_deleted_us,close_to_ready_us" :
        "session_timeout_ms,run,victim_epoch,new_epoch,kill_to_ready_us,"
        "kill_to_deleted_us,deleted_to_ready_us,deleted_to_decision_us,decision_to_ready_us");
    vlog("crash T=%d ms%s: %d runs", timeout_ms, close_session ? ", session closed at once" :
        "", bopt.crash_runs);
    for (r = 0; r < bopt.crash_runs; r++) {
        mark = evlog_mark();
        if ((v = node_spawn(&bg, "n1", 1)) == NULL)
            goto out;
        if (evlog_wait(mark, ZKELECT_EV_READY, v->idx, -1, 0, CHILD_START_MS, &vready, NULL)) {
            warnx_("crash T=%d run %d: the victim n1 was not READY within %d ms", timeout_ms, r,
                CHILD_START_MS);
            goto fail;
        }
        if (wait_view(n2, "n1", vready.epoch, BENCH_WAIT_MS) != 0 ||
            wait_view(n9, "n1", vready.epoch, BENCH_WAIT_MS) != 0) {
            warnx_("crash T=%d run %d: the other nodes do not see n1 READY", timeout_ms, r);
            goto fail;
        }
        if (delwatch_arm(ctl, &dw, path) != 0)
            goto fail;
        if (close_session && node_clientid(v, &cid) != 0) {
            warnx_("crash: the node program printed no SESSION line (an old zkbench-node?)");
            goto fail;
        }
        pace_ms(bopt.gap_ms);
        mark = evlog_mark();
        t_kill = node_kill(v);
        closed = close_session && session_close(bg.hosts, timeout_ms, &cid, &t_c0, &t_c1) == 0;
        if (evlog_wait(mark, ZKELECT_EV_READY, n2->idx, -1, vready.epoch + 1, wait_ms, &ready,
                NULL) != 0) {
            warnx_("crash T=%d run %d: n2 not READY within %d ms of the kill", timeout_ms, r,
                wait_ms);
            goto fail;
        }
        if (close_session && !closed) {
            delwatch_wait(&dw, BENCH_WAIT_MS);  /* the expiry came: a failed run */
            goto fail;
        }
        end = evlog_mark();
        t_del = delwatch_wait(&dw, BENCH_WAIT_MS);
        samples_add(&kill_ready, (int64_t)(ready.us - t_kill));
        samples_add(&kill_ready_ms, ((int64_t)ready.ms - (int64_t)(t_kill / 1000)) * 1000);
        de = -1;
        if (evlog_find(mark, end, ZKELECT_EV_DECISION, n9->idx, true, &b) == 0)
            samples_add(&decision_ready, (int64_t)ready.us - (int64_t)b.us);
        if (t_del) {
            samples_add(&kill_del, (int64_t)(t_del - t_kill));
            samples_add(&del_ready, (int64_t)ready.us - (int64_t)t_del);
            if (evlog_find(mark, end, ZKELECT_EV_DECISION, n9->idx, true, &b) == 0)
                samples_add(&del_decision, de = (int64_t)b.us - (int64_t)t_del);
        } else {
            warnx_("crash T=%d run %d: no DELETED notification for %s", timeout_ms, r, path);
        }
        if (closed) {
            samples_add(&kill_close, (int64_t)(t_c0 - t_kill));
            samples_add(&close_ack, (int64_t)(t_c1 - t_c0));
            samples_add(&close_ready, (int64_t)ready.us - (int64_t)t_c0);
            if (t_del)
                samples_add(&close_del, (int64_t)t_del - (int64_t)t_c0);
        }
        if (csv)
            fprintf(csv, "%d,%d,%llu,%llu,%lld,%lld,%lld,%lld,%lld", timeout_ms, r,
                (unsigned long long)vready.epoch, (unsigned long long)ready.epoch,
                (long long)(ready.us - t_kill), t_del ? (long long)(t_del - t_kill) : -1LL,
                t_del ? (long long)ready.us - (long long)t_del : -1LL, (long long)de,
                evlog_find(mark, end, ZKELECT_EV_DECISION, n9->idx, true, &b) == 0 ?
                    (long long)ready.us - (long long)b.us : -1LL);
        if (csv && closed)
            fprintf(csv, ",%lld,%lld,%lld,%lld", (long long)(t_c0 - t_kill),
                (long long)(t_c1 - t_c0), t_del ? (long long)t_del - (long long)t_c0 : -1LL,
                (long long)ready.us - (long long)t_c0);
        if (csv)
            fprintf(csv, "\n");
        node_close(v);
        v = NULL;
        if (bopt.verbose)
            vlog("  run %d: kill -> ready %.1f ms, deleted -> ready %.3f ms", r,
                (double)(ready.us - t_kill) / 1000.0,
                t_del ? ((double)ready.us - (double)t_del) / 1000.0 : -1.0);
        continue;
fail:
        node_close(v);
        v = NULL;
        if (++failures > 3) {
            warnx_("crash T=%d: too many failures; stopping this series", timeout_ms);
            break;
        }
    }
    csv_close(csv, csvname);
    csv = NULL;

    if (close_session)
        snprintf(title, sizeof(title), "3c. Leader crash (SIGKILL), its session then closed "
            "at once through a clone (session timeout %d ms, %d runs)", timeout_ms,
            bopt.crash_runs);
    else
        snprintf(title, sizeof(title), "3. Leader crash (SIGKILL), session timeout %d ms "
            "(%d runs; elector, victim and heir are 3 nodes)", timeout_ms, bopt.crash_runs);
    table_header(title);
    if (close_session)
        snprintf(sec, sizeof(sec), "crash-closed-%d", timeout_ms);
    else
        snprintf(sec, sizeof(sec), "crash-%d", timeout_ms);
    row("ensemble", sec, "kill -> new leader +ready", &kill_ready, &sm);
    row("ensemble", sec, "  same, from the events' mono_ms (1 ms res.)", &kill_ready_ms, &sm);
    row("ensemble", sec, close_session ? "kill -> ephemerals deleted (closed)" :
        "kill -> ephemerals deleted (expiry)", &kill_del, &sm);
    row("ensemble", sec, "ephemerals deleted -> elector +decision", &del_decision, &sm);
    row("ensemble", sec, "+decision -> new leader +ready", &decision_ready, &sm);
    if (close_session) {
        struct summary sc;
        row("ensemble", sec, "kill -> closeSession call (clone attached)", &kill_close, &sc);
        row("ensemble", sec, "closeSession call -> its reply", &close_ack, &sc);
        row("ensemble", sec, "closeSession call -> ephemerals deleted", &close_del, &sc);
        row("ensemble", sec, "closeSession call -> new leader +ready", &close_ready, &sc);
        if (sc.n) {
            table_note("expiry -> READY, from the session's end (the closeSession call): p99 "
                "%.3f ms (target <= 20 ms: %s)", sc.p99 / 1000.0,
                sc.p99 <= 20000.0 ? "met" : "NOT met");
            snprintf(meas, sizeof(meas), "p99 %.3f ms, p50 %.3f ms (n %zu)", sc.p99 / 1000.0,
                sc.p50 / 1000.0, sc.n);
            target_add("expiry -> READY p99 <= 20 ms: session closed", meas,
                sc.p99 <= 20000.0);
        }
    }
    row("ensemble", sec, "ephemerals deleted -> new leader +ready", &del_ready, &sm);
    if (sm.n) {
        table_note("expiry -> READY, from the deletion's notification to an observer: p99 "
            "%.3f ms (target <= 20 ms: %s)", sm.p99 / 1000.0,
            sm.p99 <= 20000.0 ? "met" : "NOT met");
        /* 3c judges from the close call (above) */
        snprintf(tname, sizeof(tname), "expiry -> READY p99 <= 20 ms: T=%d ms", timeout_ms);
        snprintf(meas, sizeof(meas), "p99 %.3f ms, p50 %.3f ms (n %zu; from deletion seen)",
            sm.p99 / 1000.0, sm.p50 / 1000.0, sm.n);
        if (!close_session)
            target_add(tname, meas, sm.p99 <= 20000.0);
    }
    if (sm.n && ensemble_floor.floor > 0) {
        /* after the expiry: the elector's watch fires, it reads nodes/<id>;
           decision; the heir's watch on elected, read; create; READY */
        const struct floor_parts *fp = &ensemble_floor;
        double m = fp->watch_get + fp->multi_set_set + fp->watch_get + fp->multi_check_create +
            fp->multi_check_set;
        table_note("library's path after the expiry at the bare p50s (3 writes, 2 reads after "
            "a watch): %.3f ms; measured p50 is %.2f x that", m / 1000.0, sm.p50 / m);
    }
    if (failures)
        table_note("%d run(s) failed (see the warnings on stderr)", failures);
    rc = 0;
out:
    csv_close(csv, "crash CSV");
    node_close(v);
    node_close(n2);
    node_close(n9);
    zk_close(ctl);
    samples_free(&kill_ready);
    samples_free(&kill_ready_ms);
    samples_free(&kill_del);
    samples_free(&del_ready);
    samples_free(&del_decision);
    samples_free(&decision_ready);
    samples_free(&kill_close);
    samples_free(&close_ack);
    samples_free(&close_del);
    samples_free(&close_ready);
    return rc;
}

/* ---- 4. elector crash ---------------------------------------------------- */

int
section_elector(struct zkh *z, int timeout_ms)
{
    struct bgroup bg;
    struct bnode *n1 = NULL, *n2 = NULL, *e = NULL;
    struct samples kill_el = {0}, kill_del = {0}, del_el = {0};
    struct summary sm;
    struct delwatch dw;
    struct bev el;
    zhandle_t *ctl = NULL;
    FILE *csv = NULL;
    char path[256], title[200], sec[64];
    uint64_t t_kill, t_del;
    size_t mark, end;
    int r, rc = -1, failures = 0, disturbed = 0, wait_ms = timeout_ms * 3 + 30000, lost;

    memset(&bg, 0, sizeof(bg));
    bg.hosts = zkh_hosts(z);
    snprintf(bg.path, sizeof(bg.path), "/zkbench/elector-%d-%d", timeout_ms, (int)getpid());
    bg.policy = "nodeid";
    bg.policy_opt = "preempt=off";
    bg.session_ms = timeout_ms;
    delwatch_init(&dw);
    snprintf(path, sizeof(path), "%s/nodes/e1", bg.path);

    if ((n1 = node_open(&bg, "n1", 1)) == NULL || (n2 = node_open(&bg, "n2", 1)) == NULL)
        goto out;
    if ((ctl = zk_connect(bg.hosts, BENCH_WAIT_MS)) == NULL)
        goto out;
    csv = csv_open("elector.csv", "session_timeout_ms,run,kill_to_elector_us,kill_to_deleted_us,"
        "deleted_to_elector_us,leader_disturbed");
    vlog("elector crash T=%d ms: %d runs", timeout_ms, bopt.elector_runs);
    for (r = 0; r < bopt.elector_runs; r++) {
        mark = evlog_mark();
        if ((e = node_spawn(&bg, "e1", 0)) == NULL)
            goto out;
        if (evlog_wait(mark, ZKELECT_EV_ELECTOR, e->idx, -1, 0, CHILD_START_MS, NULL, NULL)) {
            warnx_("elector run %d: e1 did not become the elector within %d ms", r,
                CHILD_START_MS);
            goto fail;
        }
        if (node_nominate(n1) != 0 || node_nominate(n2) != 0)
            goto fail;
        if (node_wait_leader(BENCH_WAIT_MS) == NULL) {
            warnx_("elector run %d: no READY leader", r);
            goto fail;
        }
        if (delwatch_arm(ctl, &dw, path) != 0)
            goto fail;
        pace_ms(bopt.gap_ms);
        mark = evlog_mark();
        t_kill = node_kill(e);
        if (evlog_wait(mark, ZKELECT_EV_ELECTOR, -1, e->idx, 0, wait_ms, &el, NULL) != 0) {
            warnx_("elector run %d: no new elector within %d ms of the kill", r, wait_ms);
            goto fail;
        }
        t_del = delwatch_wait(&dw, BENCH_WAIT_MS);
        end = evlog_mark();
        lost = evlog_count(mark, end, ZKELECT_EV_STEPDOWN) +
            evlog_count(mark, end, ZKELECT_EV_LOST);
        disturbed += lost > 0;
        samples_add(&kill_el, (int64_t)(el.us - t_kill));
        if (t_del) {
            samples_add(&kill_del, (int64_t)(t_del - t_kill));
            samples_add(&del_el, (int64_t)el.us - (int64_t)t_del);
        } else {
            warnx_("elector run %d: no DELETED notification for %s", r, path);
        }
        if (csv)
            fprintf(csv, "%d,%d,%lld,%lld,%lld,%d\n", timeout_ms, r, (long long)(el.us - t_kill),
                t_del ? (long long)(t_del - t_kill) : -1LL,
                t_del ? (long long)el.us - (long long)t_del : -1LL, lost > 0);
        node_close(e);
        e = NULL;
        if (node_unnominate(n2) != 0 || node_unnominate(n1) != 0)
            goto out;
        continue;
fail:
        node_close(e);
        e = NULL;
        node_unnominate(n2);
        node_unnominate(n1);
        if (++failures > 3) {
            warnx_("elector crash: too many failures; stopping this series");
            break;
        }
    }
    csv_close(csv, "elector.csv");
    csv = NULL;

    snprintf(title, sizeof(title), "4. Elector crash (SIGKILL), session timeout %d ms (%d runs)",
        timeout_ms, bopt.elector_runs);
    table_header(title);
    snprintf(sec, sizeof(sec), "elector-%d", timeout_ms);
    row("ensemble", sec, "kill -> next elector +elector", &kill_el, &sm);
    row("ensemble", sec, "kill -> ephemerals deleted (expiry)", &kill_del, &sm);
    row("ensemble", sec, "ephemerals deleted -> next +elector", &del_el, &sm);
    table_note("the READY leader was disturbed (-stepdown/-leadership-lost) in %d of %d runs",
        disturbed, (int)kill_el.n);
    if (failures)
        table_note("%d run(s) failed (see the warnings on stderr)", failures);
    rc = 0;
out:
    csv_close(csv, "elector.csv");
    node_close(e);
    node_close(n2);
    node_close(n1);
    zk_close(ctl);
    samples_free(&kill_el);
    samples_free(&kill_del);
    samples_free(&del_el);
    return rc;
}
