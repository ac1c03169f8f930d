/*
 * inject.c - the fault schedule: every 2 to 4.5 seconds (uniform, from the
 * seeded RNG) one fault, its kind dealt from a shuffled deck of every kind
 * (so a short run sees each kind once), its target and duration from the
 * same RNG. A fault that is not possible at its turn (too many nodes out
 * already, a ZooKeeper member still down, no READY leader to pause) stays
 * on top of the deck and the next kind is tried. Each fault schedules the
 * action that ends it (restart, SIGCONT, link up, flag removed); at the end
 * of the fault phase every pending action runs at once.
 *
 * Limits that keep the cluster able to recover: at most nnodes - 3 nodes
 * out (killed, stopped or partitioned) at a time, one ZooKeeper fault at a
 * time, one flag file (failing, hanging or slow hook, exiting command) at a
 * time.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "fault.h"
#include "zkharness.h"

#define GAP_MIN_MS      2000            /* between two faults */
#define GAP_MAX_MS      4500
#define TICK_MS         50              /* the schedule's resolution */

/* ------------------------------------------------------------------------
 * Pending actions
 * ------------------------------------------------------------------------ */

static void
inject_later(struct fault *f, int delay_ms, enum fault_act act, int idx, int fault)
{
    int k;

    for (k = 0; k < FAULT_PENDING_MAX; k++) {
        if (!f->pending[k].used) {
            f->pending[k].used = 1;
            f->pending[k].due_ms = fault_now_ms() + (uint64_t)delay_ms;
            f->pending[k].act = act;
            f->pending[k].idx = idx;
            f->pending[k].fault = fault;
            return;
        }
    }
    fault_log(f, "pending action table full: action %d on %d runs now", act, idx);
    f->pending[0].due_ms = 0;
}

static int
inject_has_pending(struct fault *f, enum fault_act act, int idx)
{
    int k;

    for (k = 0; k < FAULT_PENDING_MAX; k++)
        if (f->pending[k].used && f->pending[k].act == act && f->pending[k].idx == idx)
            return 1;
    return 0;
}

static void
inject_zk_restart(struct fault *f, int s, int fault)
{
    if (zkh_restart(f->zk, s, 0) == -1) {
        fault_log(f, "cannot restart ZooKeeper server %d: %s; again in 1 s", s,
            strerror(errno));
        inject_later(f, 1000, ACT_ZK_RESTART, s, fault);
        return;
    }
    f->zk_down[s] = 0;
    f->zk_wait_serving[s] = 1;
    fault_journal(f, "zk-restart", -1, s, fault, "pid %ld", (long)zkh_pid(f->zk, s));
}

static void
inject_zk_resume(struct fault *f, int s, int fault)
{
    if (!f->zk_frozen[s])
        return;
    if (zkh_resume(f->zk, s) == -1) {
        fault_log(f, "cannot resume ZooKeeper server %d: %s; again in 1 s", s, strerror(errno));
        inject_later(f, 1000, ACT_ZK_RESUME, s, fault);
        return;
    }
    f->zk_frozen[s] = 0;
    f->zk_down[s] = 0;
    f->zk_wait_serving[s] = 1;
    fault_journal(f, "zk-resume", -1, s, fault, "server %d", s);
}

static void
inject_do(struct fault *f, struct fault_pending *p)
{
    switch (p->act) {
    case ACT_NODE_START:
        if (cluster_start_node(f, p->idx) == -1)
            inject_later(f, 1000, ACT_NODE_START, p->idx, p->fault);
        break;
    case ACT_NODE_CONT:
        cluster_cont_node(f, p->idx, p->fault);
        break;
    case ACT_HEAL:
        if (f->nodes[p->idx].partitioned && netns_link(f, p->idx, 1) == 0) {
            f->nodes[p->idx].partitioned = 0;
            fault_journal(f, "heal", p->idx, -1, p->fault, "%s up", f->nodes[p->idx].host_if);
        }
        break;
    case ACT_UNFLAG:
        if (f->nodes[p->idx].flagged != FLAG_NONE)
            cluster_flag(f, p->idx, f->nodes[p->idx].flagged, 0, p->fault);
        break;
    case ACT_ZK_RESTART:
        inject_zk_restart(f, p->idx, p->fault);
        break;
    case ACT_ZK_RESUME:
        inject_zk_resume(f, p->idx, p->fault);
        break;
    }
}

/* Servers running and serving (not killed, not waiting to serve). */
static int
inject_zk_serving(struct fault *f)
{
    int s, n = 0;

    for (s = 0; s < FAULT_ZK_SERVERS; s++)
        n += !f->zk_down[s] && !f->zk_wait_serving[s];
    return n;
}

/*
 * One step of the main loop: reap, restart daemons that died by
 * themselves, run due actions, follow restarted ZooKeeper members until
 * they serve (and record when the quorum is back).
 */
void
inject_tick(struct fault *f)
{
    static uint64_t last_probe;
    struct fault_pending due[FAULT_PENDING_MAX];
    uint64_t now;
    int k, i, s, n;

    cluster_reap(f);
    for (i = 0; i < f->nnodes; i++)
        if (f->nodes[i].pid <= 0 && !inject_has_pending(f, ACT_NODE_START, i)) {
            fault_log(f, "%s is not running: start it again in 1 s", f->nodes[i].id);
            inject_later(f, 1000, ACT_NODE_START, i, -1);
        }
    now = fault_now_ms();
    for (k = 0, n = 0; k < FAULT_PENDING_MAX; k++) {
        if (f->pending[k].used && f->pending[k].due_ms <= now) {
            due[n++] = f->pending[k];
            f->pending[k].used = 0;
        }
    }
    for (k = 0; k < n; k++)
        inject_do(f, &due[k]);
    if (now < last_probe + 500)
        return;
    last_probe = now;
    for (s = 0; s < FAULT_ZK_SERVERS; s++) {
        if (!f->zk_wait_serving[s] || !zkh_is_serving(f->zk, s))
            continue;
        f->zk_wait_serving[s] = 0;
        fault_journal(f, "zk-serving", -1, s, -1, "server %d serves", s);
        if (f->quorum_lost && inject_zk_serving(f) * 2 > FAULT_ZK_SERVERS) {
            f->quorum_lost = 0;
            fault_journal(f, "quorum-restored", -1, s, -1, "%d of %d serving",
                inject_zk_serving(f), FAULT_ZK_SERVERS);
        }
    }
}

/* ------------------------------------------------------------------------
 * Targets
 * ------------------------------------------------------------------------ */

static int
inject_out(const struct fnode *n)
{
    return n->pid <= 0 || n->frozen || n->partitioned;
}

static int
inject_nout(struct fault *f)
{
    int i, c = 0;

    for (i = 0; i < f->nnodes; i++)
        c += inject_out(&f->nodes[i]);
    return c;
}

/* A random node that is not out (and not `not`), -1 if none. */
static int
inject_random_node(struct fault *f, int not)
{
    int cand[FAULT_NODES_MAX], n = 0, i;

    for (i = 0; i < f->nnodes; i++)
        if (!inject_out(&f->nodes[i]) && i != not)
            cand[n++] = i;
    return n == 0 ? -1 : cand[fault_rand_range(f, 0, n - 1)];
}

/* Half of the time the READY leader (when there is one), else any node in. */
static int
inject_target(struct fault *f)
{
    int l = cluster_leader(f);

    if (l >= 0 && !inject_out(&f->nodes[l]) && fault_rand_range(f, 0, 1) == 0)
        return l;
    return inject_random_node(f, -1);
}

static int
inject_zk_all_up(struct fault *f)
{
    return inject_zk_serving(f) == FAULT_ZK_SERVERS && !f->quorum_lost;
}

/*
 * The ZooKeeper member node i's session is connected to, from the servers'
 * side: the "cons" four-letter word lists every connection with its sid.
 * -1 when not found.
 */
static int
inject_server_of(struct fault *f, int i)
{
    char sid[FAULT_SID_LEN + 8], *buf, *p;
    size_t len;
    int s, found = -1;

    pthread_mutex_lock(&f->mu);
    snprintf(sid, sizeof sid, "sid=%s", f->nodes[i].session);
    pthread_mutex_unlock(&f->mu);
    len = strlen(sid);
    if (len <= 6 || (buf = malloc(65536)) == NULL)
        return -1;
    for (s = 0; s < FAULT_ZK_SERVERS && found < 0; s++) {
        if (f->zk_down[s] || zkh_4lw(f->zk, s, "cons", buf, 65536) <= 0)
            continue;
        for (p = strstr(buf, sid); p != NULL; p = strstr(p + 1, sid)) {
            char c = p[len];

            if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
                found = s;
                break;
            }
        }
    }
    free(buf);
    return found;
}

/* ------------------------------------------------------------------------
 * The faults: each returns 0 when injected, -1 when not possible now
 * ------------------------------------------------------------------------ */

static int
fault_kill_node(struct fault *f, int id)
{
    int i;

    if (inject_nout(f) >= f->nnodes - 3 || (i = inject_target(f)) < 0)
        return -1;
    fault_journal(f, "fault", i, -1, id, "%s: kill -9 %s%s", fault_kind_name(FK_KILL_NODE),
        f->nodes[i].id, i == cluster_leader(f) ? " (the leader)" : "");
    cluster_kill_node(f, i, id);
    /* this kill stands for the death of the machine: its service dies too */
    cluster_service_end(f, i);
    inject_later(f, fault_rand_range(f, 500, 3000), ACT_NODE_START, i, id);
    return 0;
}

/*
 * kill -9 of zkelectd alone, restarted at once (as systemd's Restart=always
 * would): the service its hooks started runs on until the new zkelectd
 * stops it; nobody else may start one before.
 */
static int
fault_kill_restart(struct fault *f, int id)
{
    int i;

    if (inject_nout(f) >= f->nnodes - 3 || (i = inject_target(f)) < 0)
        return -1;
    fault_journal(f, "fault", i, -1, id, "%s: kill -9 %s%s, restarted at once",
        fault_kind_name(FK_KILL_RESTART), f->nodes[i].id,
        i == cluster_leader(f) ? " (the leader)" : "");
    cluster_kill_node(f, i, id);
    if (cluster_start_node(f, i) == -1)
        inject_later(f, 1000, ACT_NODE_START, i, id);
    return 0;
}

static int
fault_pause_leader(struct fault *f, int id)
{
    int i = cluster_leader(f), ms;

    if (i < 0 || inject_nout(f) >= f->nnodes - 3)
        return -1;
    ms = f->session_ms * 3 / 2 + fault_rand_range(f, 0, 1000);
    fault_journal(f, "fault", i, -1, id, "%s: SIGSTOP %s (the leader) for %d ms",
        fault_kind_name(FK_PAUSE_LEADER), f->nodes[i].id, ms);
    if (cluster_stop_node(f, i, id) == -1)
        return -1;
    inject_later(f, ms, ACT_NODE_CONT, i, id);
    return 0;
}

static void
inject_zk_kill(struct fault *f, int s, int id)
{
    zkh_kill(f->zk, s);
    f->zk_down[s] = 1;
    fault_journal(f, "zk-kill", -1, s, id, "server %d", s);
}

static int
fault_zk_kill(struct fault *f, int id, int of_leader)
{
    int s, l = -1;

    if (!inject_zk_all_up(f))
        return -1;
    if (of_leader) {
        if ((l = cluster_leader(f)) < 0 || (s = inject_server_of(f, l)) < 0)
            return -1;
    } else {
        s = fault_rand_range(f, 0, FAULT_ZK_SERVERS - 1);
    }
    fault_journal(f, "fault", l, s, id, "%s: kill -9 ZooKeeper server %d%s%s",
        fault_kind_name(of_leader ? FK_ZK_KILL_LEADER_CONN : FK_ZK_KILL), s,
        of_leader ? ", the one leader " : "", of_leader ? f->nodes[l].id : "");
    inject_zk_kill(f, s, id);
    inject_later(f, fault_rand_range(f, 1000, 3000), ACT_ZK_RESTART, s, id);
    return 0;
}

/*
 * SIGSTOP of the member the leader's session is connected to for 3 x the
 * session timeout: the leader hears nothing (no error, no EOF) until its
 * client gives up on that server and moves to another one.
 */
static int
fault_zk_freeze_leader_conn(struct fault *f, int id)
{
    int s, l, ms = 3 * f->session_ms;

    if (!inject_zk_all_up(f) || (l = cluster_leader(f)) < 0 || (s = inject_server_of(f, l)) < 0)
        return -1;
    fault_journal(f, "fault", l, s, id, "%s: SIGSTOP ZooKeeper server %d, the one leader %s "
        "is connected to, for %d ms", fault_kind_name(FK_ZK_FREEZE_LEADER_CONN), s,
        f->nodes[l].id, ms);
    if (zkh_pause(f->zk, s) == -1) {
        fault_log(f, "cannot stop ZooKeeper server %d: %s", s, strerror(errno));
        return -1;
    }
    f->zk_frozen[s] = 1;
    f->zk_down[s] = 1;
    fault_journal(f, "zk-freeze", -1, s, id, "server %d", s);
    inject_later(f, ms, ACT_ZK_RESUME, s, id);
    return 0;
}

static int
fault_quorum_loss(struct fault *f, int id)
{
    int a, b, l, ms;

    if (!inject_zk_all_up(f))
        return -1;
    l = cluster_leader(f);
    a = l >= 0 ? inject_server_of(f, l) : -1;
    if (a < 0)
        a = fault_rand_range(f, 0, FAULT_ZK_SERVERS - 1);
    b = (a + fault_rand_range(f, 1, FAULT_ZK_SERVERS - 1)) % FAULT_ZK_SERVERS;
    ms = fault_rand_range(f, 2500, 5000);
    fault_journal(f, "fault", -1, a, id, "%s: kill -9 ZooKeeper servers %d and %d for %d ms",
        fault_kind_name(FK_QUORUM_LOSS), a, b, ms);
    inject_zk_kill(f, a, id);
    inject_zk_kill(f, b, id);
    f->quorum_lost = 1;
    fault_journal(f, "quorum-lost", -1, b, id, "servers %d and %d down", a, b);
    inject_later(f, ms, ACT_ZK_RESTART, a, id);
    inject_later(f, ms, ACT_ZK_RESTART, b, id);
    return 0;
}

static int
fault_partition(struct fault *f, int id)
{
    int i, ms;

    if (!f->netns || inject_nout(f) >= f->nnodes - 3 || (i = inject_target(f)) < 0)
        return -1;
    ms = fault_rand_range(f, f->session_ms / 2, f->session_ms * 2);
    fault_journal(f, "fault", i, -1, id, "%s: %s's link down for %d ms%s",
        fault_kind_name(FK_PARTITION), f->nodes[i].id, ms,
        i == cluster_leader(f) ? " (the leader)" : "");
    if (netns_link(f, i, 0) == -1)
        return -1;
    f->nodes[i].partitioned = 1;
    fault_journal(f, "partition", i, -1, id, "%s down", f->nodes[i].host_if);
    inject_later(f, ms, ACT_HEAL, i, id);
    return 0;
}

static int
fault_switchover(struct fault *f, int id)
{
    const char *args[6] = { "switchover", NULL, NULL, NULL, NULL, NULL };
    int t = -1, l;

    /* N > 1: half of the time one slot moves (--from a READY leader, to
       anyone or --to a random node), else slot 0 as with one leader */
    if (f->leaders > 1 && fault_rand_range(f, 0, 1) == 0 && (l = cluster_leader(f)) >= 0) {
        args[1] = "--from";
        args[2] = f->nodes[l].id;
        if (fault_rand_range(f, 0, 1) == 0) {
            t = fault_rand_range(f, 0, f->nnodes - 1);
            pthread_mutex_lock(&f->mu);
            if (f->nodes[t].leader200 && f->nodes[t].leader_at_ms + 1000 >= fault_now_ms())
                t = -1;     /* it holds a slot: zkelect would refuse it as a target */
            pthread_mutex_unlock(&f->mu);
            if (t >= 0) {
                args[3] = "--to";
                args[4] = f->nodes[t].id;
            }
        }
        fault_journal(f, "fault", l, -1, id, "%s --from %s%s%s", fault_kind_name(FK_SWITCHOVER),
            f->nodes[l].id, t >= 0 ? " --to " : "", t >= 0 ? f->nodes[t].id : "");
        return cluster_cli(f, 0, 0, NULL, 0, args);
    }
    if (fault_rand_range(f, 0, 1) == 0) {
        t = fault_rand_range(f, 0, f->nnodes - 1);
        args[1] = "--to";
        args[2] = f->nodes[t].id;
    }
    fault_journal(f, "fault", t, -1, id, "%s%s%s", fault_kind_name(FK_SWITCHOVER),
        t >= 0 ? " --to " : "", t >= 0 ? f->nodes[t].id : "");
    return cluster_cli(f, 0, 0, NULL, 0, args);
}

static int
fault_site_priority(struct fault *f, int id)
{
    char prio[16];
    const char *args[4] = { "set-site-priority", NULL, prio, NULL };

    args[1] = fault_rand_range(f, 0, 1) == 0 ? "dc1" : "dc2";
    snprintf(prio, sizeof prio, "%d", fault_rand_range(f, 1, 200));
    fault_journal(f, "fault", -1, -1, id, "%s %s %s", fault_kind_name(FK_SITE_PRIORITY),
        args[1], prio);
    return cluster_cli(f, 0, 0, NULL, 0, args);
}

static int
inject_any_flag(struct fault *f)
{
    int k;

    for (k = 0; k < f->nnodes; k++)
        if (f->nodes[k].flagged != FLAG_NONE)
            return 1;
    return 0;
}

/*
 * A node's takeover hook fails (FLAG_FAIL) or hangs past its timeout
 * (FLAG_HANG) for a while; a switchover to it makes sure a takeover is
 * attempted (and fails: the watchdog excludes it).
 */
static int
fault_hook_fail(struct fault *f, int id, enum fault_kind kind, enum fault_flag which)
{
    const char *args[4] = { "switchover", "--to", NULL, NULL };
    int i, ms;

    if (f->quorum_lost || inject_any_flag(f))
        return -1;                      /* (no quorum: the switchover could not be written) */
    if ((i = inject_random_node(f, cluster_leader(f))) < 0)
        return -1;
    ms = fault_rand_range(f, 4000, 9000);
    fault_journal(f, "fault", i, -1, id, "%s: %s's takeover hook %s for %d ms, "
        "switchover to it", fault_kind_name(kind), f->nodes[i].id,
        which == FLAG_HANG ? "hangs past its timeout" : "fails", ms);
    if (cluster_flag(f, i, which, 1, id) == -1)
        return -1;
    inject_later(f, ms, ACT_UNFLAG, i, id);
    args[2] = f->nodes[i].id;
    cluster_cli(f, 0, 0, NULL, 0, args);
    return 0;
}

/*
 * The READY leader's stepdown hook takes 60% of the step-down budget for a while,
 * and a switchover makes it step down: the next takeover must wait for it.
 */
static int
fault_stepdown_slow(struct fault *f, int id)
{
    const char *args[4] = { "switchover", NULL, NULL, NULL };
    int l, ms;

    if (f->quorum_lost || inject_any_flag(f) || (l = cluster_leader(f)) < 0)
        return -1;
    if (f->leaders > 1) {
        /* the leader may hold any slot: move that one */
        args[1] = "--from";
        args[2] = f->nodes[l].id;
    }
    ms = fault_rand_range(f, 4000, 9000);
    fault_journal(f, "fault", l, -1, id, "%s: %s's stepdown hook is slow for %d ms, "
        "switchover away from it", fault_kind_name(FK_STEPDOWN_SLOW), f->nodes[l].id, ms);
    if (cluster_flag(f, l, FLAG_SLOW, 1, id) == -1)
        return -1;
    inject_later(f, ms, ACT_UNFLAG, l, id);
    cluster_cli(f, 0, 0, NULL, 0, args);
    return 0;
}

/*
 * The READY leader's supervised command ([leader] command) exits by itself:
 * the node must step down (unhealthy) and leadership move. The flag stays
 * 2-4 s (a command started meanwhile on that node exits at once too).
 */
static int
fault_command_exit(struct fault *f, int id)
{
    int l, ms;

    if (!f->has_command || inject_any_flag(f) || (l = cluster_leader(f)) < 0)
        return -1;
    ms = fault_rand_range(f, 2000, 4000);
    fault_journal(f, "fault", l, -1, id, "%s: %s's supervised command exits (flag for %d ms)",
        fault_kind_name(FK_COMMAND_EXIT), f->nodes[l].id, ms);
    if (cluster_flag(f, l, FLAG_EXIT, 1, id) == -1)
        return -1;
    inject_later(f, ms, ACT_UNFLAG, l, id);
    return 0;
}

/*
 * SIGTERM of the leader's zkelectd, as an operator's restart or a package
 * upgrade does: it resigns (its stepdown hook, then its leave, which hands
 * over directly when the succession allows: issue 18) and exits; it is
 * started again once it has exited (the tick restarts a node that is not
 * running).
 */
static int
fault_resign(struct fault *f, int id)
{
    int i = cluster_leader(f);

    if (i < 0 || f->nodes[i].pid <= 0 || f->nodes[i].frozen || f->nodes[i].partitioned ||
        inject_nout(f) >= f->nnodes - 3)
        return -1;
    fault_journal(f, "fault", i, -1, id, "%s: SIGTERM %s (the leader), started again once it "
        "has exited", fault_kind_name(FK_RESIGN), f->nodes[i].id);
    f->nodes[i].expect_exit = 1;
    kill(f->nodes[i].pid, SIGTERM);
    inject_later(f, 500, ACT_NODE_START, i, id);
    return 0;
}

static int
inject_one_kind(struct fault *f, enum fault_kind k, int id)
{
    switch (k) {
    case FK_KILL_NODE:
        return fault_kill_node(f, id);
    case FK_PAUSE_LEADER:
        return fault_pause_leader(f, id);
    case FK_ZK_KILL:
        return fault_zk_kill(f, id, 0);
    case FK_ZK_KILL_LEADER_CONN:
        return fault_zk_kill(f, id, 1);
    case FK_QUORUM_LOSS:
        return fault_quorum_loss(f, id);
    case FK_PARTITION:
        return fault_partition(f, id);
    case FK_SWITCHOVER:
        return fault_switchover(f, id);
    case FK_SITE_PRIORITY:
        return fault_site_priority(f, id);
    case FK_HOOK_FAIL:
        return fault_hook_fail(f, id, FK_HOOK_FAIL, FLAG_FAIL);
    case FK_KILL_RESTART:
        return fault_kill_restart(f, id);
    case FK_ZK_FREEZE_LEADER_CONN:
        return fault_zk_freeze_leader_conn(f, id);
    case FK_TAKEOVER_HANG:
        return fault_hook_fail(f, id, FK_TAKEOVER_HANG, FLAG_HANG);
    case FK_STEPDOWN_SLOW:
        return fault_stepdown_slow(f, id);
    case FK_COMMAND_EXIT:
        return fault_command_exit(f, id);
    case FK_RESIGN:
        return fault_resign(f, id);
    default:
        return -1;
    }
}

/* Refill the deck with every enabled kind, shuffled (Fisher-Yates). */
static void
inject_shuffle(struct fault *f)
{
    int k, j, t;

    f->ndeck = 0;
    for (k = 0; k < FK__COUNT; k++)
        if (!f->kind_disabled[k])
            f->deck[f->ndeck++] = k;
    for (k = f->ndeck - 1; k > 0; k--) {
        j = fault_rand_range(f, 0, k);
        t = f->deck[k];
        f->deck[k] = f->deck[j];
        f->deck[j] = t;
    }
}

/* Deal one fault: the first kind of the deck (from the top) that is possible now. */
static void
inject_one(struct fault *f)
{
    int d, k, id = f->nfaults + 1;

    if (f->ndeck == 0)
        inject_shuffle(f);
    for (d = f->ndeck - 1; d >= 0; d--) {
        k = f->deck[d];
        if (inject_one_kind(f, (enum fault_kind)k, id) == 0) {
            memmove(&f->deck[d], &f->deck[d + 1], (size_t)(f->ndeck - 1 - d) * sizeof(int));
            f->ndeck--;
            f->nfaults++;
            f->by_kind[k]++;
            return;
        }
        f->skipped[k]++;
    }
    fault_log(f, "no fault possible now: waiting for the next turn");
}

/* Inject faults until faults_end_ms (or an interrupt). */
void
inject_run(struct fault *f, uint64_t faults_end_ms)
{
    uint64_t next = fault_now_ms() + (uint64_t)fault_rand_range(f, 1000, 2500);

    while (!fault_interrupted && fault_now_ms() < faults_end_ms) {
        inject_tick(f);
        if (fault_now_ms() >= next) {
            inject_one(f);
            next = fault_now_ms() + (uint64_t)fault_rand_range(f, GAP_MIN_MS, GAP_MAX_MS);
        }
        usleep(TICK_MS * 1000); /* the schedule's resolution: timing, not synchronization */
    }
}

/*
 * End every fault now: ZooKeeper members first (the quorum), then stopped
 * nodes, links, flags, and killed nodes.
 */
void
inject_end_all(struct fault *f)
{
    static const enum fault_act order[] = {
        ACT_ZK_RESUME, ACT_ZK_RESTART, ACT_NODE_CONT, ACT_HEAL, ACT_UNFLAG, ACT_NODE_START
    };
    struct fault_pending due[FAULT_PENDING_MAX];
    size_t o;
    int k, n;

    for (o = 0; o < sizeof order / sizeof order[0]; o++) {
        /* taken out first: an action that fails schedules itself again */
        for (k = 0, n = 0; k < FAULT_PENDING_MAX; k++) {
            if (f->pending[k].used && f->pending[k].act == order[o]) {
                due[n++] = f->pending[k];
                f->pending[k].used = 0;
            }
        }
        for (k = 0; k < n; k++)
            inject_do(f, &due[k]);
    }
}
