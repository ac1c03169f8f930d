/*
 * final.c - the end of a fault run: waiting for the cluster to converge,
 * the exclusions to end and an operator config change to leave the policy's
 * choice leading; the members zkelect status lists; the znodes ZooKeeper
 * holds (every ephemeral belongs to a live daemon's session); the daemons'
 * logs for sanitizer reports. Every wait runs the main loop (inject_tick:
 * reaping, restarts) and polls its condition with a deadline.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cJSON.h>
#include <zookeeper/zookeeper.h>

#include "zkelect/policy.h"
#include "fault.h"

/* ------------------------------------------------------------------------
 * Reading the group: zkelect status --json
 * ------------------------------------------------------------------------ */

/* zkelect status --json, parsed; NULL when it fails (the caller retries). */
static cJSON *
fault_status(struct fault *f)
{
    static const char *const args[] = { "status", "--json", NULL };
    static char out[262144];
    int rc = cluster_cli(f, 1, 15000, out, sizeof out, args);

    return rc == 0 ? cJSON_Parse(out) : NULL;
}

static int
site_prio(cJSON *st, const char *site)
{
    cJSON *x = cJSON_GetObjectItem(cJSON_GetObjectItem(st, "sites"), site);

    return cJSON_IsNumber(x) ? x->valueint : 0;
}

/*
 * The site policy's choice from a status: among the valid, eligible,
 * healthy, unexcluded members on a site of priority > 0, the highest site
 * priority, then node priority, then the lowest id. Into best ("" none).
 * Without the nskip members of skip: called N times, the policy's N
 * choices in order (spread = none: the best site filled first).
 */
static void
fault_policy_choice(cJSON *st, char *best, size_t len, const char (*skip)[FAULT_ID_LEN],
    int nskip)
{
    cJSON *m;
    int bs = 0, bp = 0, sp, np, have = 0, k, skipped;
    const char *id, *site;

    best[0] = '\0';
    cJSON_ArrayForEach(m, cJSON_GetObjectItem(st, "members")) {
        id = cJSON_GetStringValue(cJSON_GetObjectItem(m, "id"));
        for (k = 0, skipped = 0; id != NULL && k < nskip; k++)
            skipped |= strcmp(skip[k], id) == 0;
        if (skipped)
            continue;               /* chosen already: the next of the order */
        if (!cJSON_IsTrue(cJSON_GetObjectItem(m, "valid"))
            || !cJSON_IsTrue(cJSON_GetObjectItem(m, "eligible"))
            || !cJSON_IsTrue(cJSON_GetObjectItem(m, "healthy"))
            || cJSON_IsTrue(cJSON_GetObjectItem(m, "excluded")))
            continue;
        id = cJSON_GetStringValue(cJSON_GetObjectItem(m, "id"));
        site = cJSON_GetStringValue(cJSON_GetObjectItem(m, "site"));
        if (id == NULL || site == NULL || (sp = site_prio(st, site)) <= 0)
            continue;
        if (!cJSON_IsNumber(cJSON_GetObjectItem(m, "priority")))
            continue;
        np = cJSON_GetObjectItem(m, "priority")->valueint;
        if (!have || sp > bs || (sp == bs && (np > bp
            || (np == bp && zkelect_id_compare(id, best) < 0)))) {
            snprintf(best, len, "%s", id);
            bs = sp;
            bp = np;
            have = 1;
        }
    }
}

static const char *
status_leader(cJSON *st, const char **status)
{
    cJSON *l = cJSON_GetObjectItem(st, "leader");

    *status = cJSON_GetStringValue(cJSON_GetObjectItem(l, "status"));
    if (*status == NULL)
        *status = "NONE";
    return cJSON_GetStringValue(cJSON_GetObjectItem(l, "id"));
}

/* ------------------------------------------------------------------------
 * Phases
 * ------------------------------------------------------------------------ */

/*
 * N > 1: every node up, registered, connected; every slot has a READY
 * leader (its /leader answered 200 for that slot since fresh_ms), and every
 * node's /status names that leader READY in that slot at its epoch.
 */
static int
fault_converged_slots(struct fault *f, int *leader)
{
    uint64_t now = fault_now_ms();
    int holder[FAULT_SLOTS_MAX], i, k, ok = 1;

    pthread_mutex_lock(&f->mu);
    for (k = 0; k < f->leaders && ok; k++) {
        holder[k] = -1;
        for (i = 0; i < f->nnodes; i++) {
            struct fnode *n = &f->nodes[i];

            if (n->pid > 0 && !n->frozen && n->leader200 && n->leader_slot == k
                && n->leader_at_ms > f->fresh_ms && n->leader_at_ms + 1000 >= now)
                holder[k] = i;
        }
        ok = holder[k] >= 0;
    }
    for (i = 0; i < f->nnodes && ok; i++) {
        struct fnode *n = &f->nodes[i];

        ok = n->pid > 0 && !n->frozen && n->status_ok && n->status_at_ms + 1500 >= now
            && n->status_at_ms > f->fresh_ms && n->registered && n->connected
            && n->view_nslots == f->leaders;
        for (k = 0; k < f->leaders && ok; k++)
            ok = strcmp(n->view_slot_leader[k], f->nodes[holder[k]].id) == 0
                && strcmp(n->view_slot_status[k], "READY") == 0
                && n->view_slot_epoch[k] == f->nodes[holder[k]].leader_epoch;
    }
    pthread_mutex_unlock(&f->mu);
    *leader = ok ? holder[0] : -1;
    return ok;
}

/* Every node up, registered, connected, and all agree on one READY leader. */
static int
fault_converged(struct fault *f, int *leader)
{
    uint64_t now = fault_now_ms();
    int i, l = cluster_leader(f), ok = l >= 0;

    if (f->leaders > 1)
        return fault_converged_slots(f, leader);

    pthread_mutex_lock(&f->mu);
    for (i = 0; i < f->nnodes && ok; i++) {
        struct fnode *n = &f->nodes[i];

        ok = n->pid > 0 && !n->frozen && n->status_ok && n->status_at_ms + 1500 >= now
            && n->status_at_ms > f->fresh_ms && f->nodes[l].leader_at_ms > f->fresh_ms
            && n->registered && n->connected && strcmp(n->view_leader, f->nodes[l].id) == 0
            && strcmp(n->view_status, "READY") == 0
            && n->view_epoch == f->nodes[l].leader_epoch;
    }
    pthread_mutex_unlock(&f->mu);
    *leader = l;
    return ok;
}

/* Loop the main tick until cond(f) or the deadline; returns cond's last value. */
static int
final_wait(struct fault *f, uint64_t deadline_ms, int (*cond)(struct fault *, void *), void *arg)
{
    for (;;) {
        inject_tick(f);
        if (cond(f, arg))
            return 1;
        if (fault_now_ms() >= deadline_ms || fault_interrupted)
            return 0;
        usleep(50000); /* polling interval of a deadline wait */
    }
}

static int
cond_converged(struct fault *f, void *arg)
{
    return fault_converged(f, arg);
}

static int
cond_never(struct fault *f, void *arg)
{
    (void)f;
    (void)arg;
    return 0;
}

static int
cond_zk_serving(struct fault *f, void *arg)
{
    int s;

    (void)arg;
    for (s = 0; s < FAULT_ZK_SERVERS; s++)
        if (f->zk_down[s] || f->zk_wait_serving[s])
            return 0;
    return 1;
}

static int
cond_no_exclusion(struct fault *f, void *arg)
{
    cJSON *st = fault_status(f), *x;
    int ok;

    (void)arg;
    if (st == NULL)
        return 0;
    x = cJSON_GetObjectItem(cJSON_GetObjectItem(st, "elected"), "excluded");
    ok = cJSON_GetArraySize(x) == 0;
    cJSON_Delete(st);
    return ok;
}

struct want_leader {
    const char *id;
    char set[FAULT_SLOTS_MAX][FAULT_ID_LEN]; /* N > 1: the policy's N choices */
    int nset;
};

static int
cond_leader_is(struct fault *f, void *arg)
{
    struct want_leader *w = arg;
    const char *id, *status;
    cJSON *st = fault_status(f), *x;
    int ok, k, ready = 0, in;

    if (st == NULL)
        return 0;
    if (f->leaders > 1) {
        /* the slots' READY leaders are the policy's N choices, in any slot
           (a chosen holder keeps its slot) */
        cJSON_ArrayForEach(x, cJSON_GetObjectItem(st, "slots")) {
            id = cJSON_GetStringValue(cJSON_GetObjectItem(x, "id"));
            status = cJSON_GetStringValue(cJSON_GetObjectItem(x, "status"));
            for (k = 0, in = 0; id != NULL && k < w->nset; k++)
                in |= strcmp(w->set[k], id) == 0;
            if (in && status != NULL && strcmp(status, "READY") == 0)
                ready++;
        }
        cJSON_Delete(st);
        return ready == w->nset && w->nset == f->leaders;
    }
    id = status_leader(st, &status);
    ok = id != NULL && strcmp(id, w->id) == 0 && strcmp(status, "READY") == 0;
    cJSON_Delete(st);
    return ok;
}

/*
 * After the faults: the ensemble serves, the cluster converges; exclusions
 * end; then an operator config change (the site policy then runs as with
 * preempt=on) must leave the policy's choice as the READY leader.
 */
void
final_converge(struct fault *f, uint64_t stop_ms)
{
    uint64_t bound = 2 * (uint64_t)f->session_ms + 2 * (uint64_t)f->watchdog_ms
        + (uint64_t)f->slack_ms, zk_ms, t;
    const char *args[5] = { "set-site-priority", "dc1", NULL, "--wait=30", NULL };
    char prio[16], best[FAULT_SLOTS_MAX * FAULT_ID_LEN], out[4096];
    struct want_leader w;
    cJSON *st;
    int leader = -1, ok, rc, k;

    final_wait(f, fault_now_ms() + 90000, cond_zk_serving, NULL);
    zk_ms = fault_now_ms();
    f->fresh_ms = zk_ms;                /* what the pollers saw before does not count */
    ok = final_wait(f, zk_ms + bound, cond_converged, &leader);
    t = fault_now_ms();
    fault_journal(f, ok ? "converged" : "not-converged", leader, -1, -1, "%" PRIu64 " ms after "
        "the faults stopped", t - stop_ms);
    fault_check(&f->res, ok, "converged: every node registered and %d READY leader%s (slot 0: "
        "%s) that all see, %" PRIu64 " ms after the faults stopped (%" PRIu64 " ms after the "
        "ensemble served again; bound 2 x session + 2 x watchdog + slack = %" PRIu64 " ms)",
        f->leaders, f->leaders > 1 ? "s, one per slot," : "",
        leader >= 0 ? f->nodes[leader].id : "none", t - stop_ms, t - zk_ms, bound);

    /*
     * Exclusions (a failed or stalled takeover) end after exclude_ms. The
     * latest one starts at most a watchdog period after the faults stopped;
     * a new elector (an elector killed just before) takes it over for the
     * time that remained, up to exclude_ms again, once the old session has
     * expired. After that, `elected` must not list it any more (zkelect
     * refuses a switchover to a node it lists).
     */
    bound = (uint64_t)f->session_ms + 2 * (uint64_t)f->watchdog_ms + (uint64_t)f->exclude_ms
        + (uint64_t)f->slack_ms;
    ok = final_wait(f, stop_ms + bound, cond_no_exclusion, NULL);
    t = fault_now_ms();
    if (!ok && (st = fault_status(f)) != NULL) {
        char *x = cJSON_PrintUnformatted(cJSON_GetObjectItem(st, "elected"));

        printf("  - elected: %s\n", x != NULL ? x : "?");
        free(x);
        cJSON_Delete(st);
    }
    fault_check(&f->res, ok, "no exclusion is still recorded in elected %" PRIu64 " ms after "
        "the faults stopped (session + 2 x watchdog + exclude + slack = %" PRIu64 " ms)",
        t - stop_ms, bound);

    /* the operator's config change: dc1's priority one up (a real change) */
    if ((st = fault_status(f)) == NULL) {
        fault_check(&f->res, 0, "the policy's choice leads after a config change (zkelect "
            "status failed)");
        return;
    }
    snprintf(prio, sizeof prio, "%d", site_prio(st, "dc1") < 1000000 ? site_prio(st, "dc1") + 1
        : site_prio(st, "dc1") - 1);
    cJSON_Delete(st);
    args[2] = prio;
    fault_journal(f, "final-config", -1, -1, -1, "set-site-priority dc1 %s", prio);
    rc = cluster_cli(f, 1, 40000, out, sizeof out, args);
    if ((st = fault_status(f)) == NULL) {
        fault_check(&f->res, 0, "the policy's choice leads after a config change (zkelect "
            "status failed)");
        return;
    }
    memset(&w, 0, sizeof w);
    fault_policy_choice(st, best, sizeof best, NULL, 0);
    for (w.nset = 0; w.nset < f->leaders; w.nset++) {
        fault_policy_choice(st, w.set[w.nset], sizeof w.set[w.nset], w.set, w.nset);
        if (w.set[w.nset][0] == '\0')
            break;
    }
    cJSON_Delete(st);
    if (f->leaders > 1) {
        size_t off = 0;

        for (k = 0; k < w.nset && off < sizeof best; k++)
            off += (size_t)snprintf(best + off, sizeof best - off, "%s%s", k ? "," : "",
                w.set[k]);
    }
    w.id = best;
    ok = best[0] != '\0' && final_wait(f, fault_now_ms() + (uint64_t)(f->watchdog_ms
        + f->slack_ms), cond_leader_is, &w);
    fault_check(&f->res, ok && rc == 0, "after a config change (set-site-priority dc1 %s "
        "--wait: exit %d) the policy's choice %s %s within watchdog + slack = "
        "%d ms", prio, rc, best[0] ? best : "(none)", f->leaders > 1 ? "are the slots' READY "
        "leaders" : "is the READY leader", f->watchdog_ms + f->slack_ms);
}

/* Every live node is a valid member of the group, with its own pid. */
void
final_check_members(struct fault *f)
{
    cJSON *st = fault_status(f), *m, *errs;
    int i, bad = 0, found;

    if (st == NULL) {
        fault_check(&f->res, 0, "every live node is registered (zkelect status --json failed)");
        return;
    }
    for (i = 0; i < f->nnodes; i++) {
        found = 0;
        cJSON_ArrayForEach(m, cJSON_GetObjectItem(st, "members")) {
            const char *id = cJSON_GetStringValue(cJSON_GetObjectItem(m, "id"));
            cJSON *pid = cJSON_GetObjectItem(m, "pid");

            if (id == NULL || strcmp(id, f->nodes[i].id) != 0)
                continue;
            found++;
            if (!cJSON_IsTrue(cJSON_GetObjectItem(m, "valid")) || !cJSON_IsNumber(pid)
                || (pid_t)pid->valuedouble != f->nodes[i].pid) {
                printf("  - member %s: valid %d, pid %.0f, daemon pid %ld\n", id,
                    cJSON_IsTrue(cJSON_GetObjectItem(m, "valid")),
                    cJSON_IsNumber(pid) ? pid->valuedouble : -1.0, (long)f->nodes[i].pid);
                bad++;
            }
        }
        if (found != 1 || f->nodes[i].pid <= 0) {
            printf("  - %s (pid %ld) listed %d times among the members\n", f->nodes[i].id,
                (long)f->nodes[i].pid, found);
            bad++;
        }
    }
    if (cJSON_GetArraySize(cJSON_GetObjectItem(st, "members")) != f->nnodes) {
        printf("  - %d members listed for %d live nodes\n",
            cJSON_GetArraySize(cJSON_GetObjectItem(st, "members")), f->nnodes);
        bad++;
    }
    errs = cJSON_GetObjectItem(st, "errors");
    if (cJSON_GetArraySize(errs) > 0) {
        printf("  - zkelect status reports malformed znodes\n");
        bad++;
    }
    cJSON_Delete(st);
    fault_check(&f->res, bad == 0, "every live node is registered once, with its own pid "
        "(zkelect status --json)");
}

static void
fault_zk_watcher(zhandle_t *zh, int type, int state, const char *path, void *ctx)
{
    (void)zh;
    (void)type;
    (void)state;
    (void)path;
    (void)ctx;
}

/* Node owning session owner (its /status session id), -1 when no live daemon has it. */
static int
fault_owner(struct fault *f, int64_t owner)
{
    char sid[FAULT_SID_LEN];
    int i, found = -1;

    snprintf(sid, sizeof sid, "0x%" PRIx64, (uint64_t)owner);
    pthread_mutex_lock(&f->mu);
    for (i = 0; i < f->nnodes; i++)
        if (f->nodes[i].pid > 0 && strcmp(f->nodes[i].session, sid) == 0)
            found = i;
    pthread_mutex_unlock(&f->mu);
    return found;
}

/* The node the pollers last saw READY in slot k (within the last second), -1 none. */
static int
final_slot_leader(struct fault *f, int k)
{
    uint64_t now = fault_now_ms();
    int i, found = -1;

    pthread_mutex_lock(&f->mu);
    for (i = 0; i < f->nnodes; i++) {
        struct fnode *n = &f->nodes[i];

        if (n->pid > 0 && !n->frozen && n->leader200 && n->leader_slot == k
            && n->leader_at_ms + 1000 >= now)
            found = i;
    }
    pthread_mutex_unlock(&f->mu);
    return found;
}

/*
 * ZooKeeper's final state, from the server: every child of nodes/ and
 * election/ (and leader) is an ephemeral of a live daemon's session, the
 * one named by it, once per node.
 */
void
final_check_znodes(struct fault *f)
{
    static const char *const dirs[] = { "nodes", "election" };
    char path[512], sid[FAULT_SID_LEN];
    struct String_vector sv;
    int count[2][FAULT_NODES_MAX] = { { 0 } };
    uint64_t end = fault_now_ms() + 15000;
    struct Stat stat;
    zhandle_t *zh;
    size_t d;
    int i, k, o, bad = 0, total = 0, rc, l;

    zoo_set_debug_level(ZOO_LOG_LEVEL_ERROR);
    zh = zookeeper_init(f->hosts, fault_zk_watcher, 10000, NULL, NULL, ZOO_NO_LOG_CLIENTENV);
    while (zh != NULL && zoo_state(zh) != ZOO_CONNECTED_STATE && fault_now_ms() < end)
        usleep(20000); /* polling interval of a deadline wait */
    if (zh == NULL || zoo_state(zh) != ZOO_CONNECTED_STATE) {
        fault_check(&f->res, 0, "no znodes of dead sessions remain (cannot connect to %s)",
            f->hosts);
        if (zh != NULL)
            zookeeper_close(zh);
        return;
    }
    for (d = 0; d < 2; d++) {
        snprintf(path, sizeof path, FAULT_GROUP "/%s", dirs[d]);
        if ((rc = zoo_get_children(zh, path, 0, &sv)) != ZOK) {
            printf("  - cannot list %s: %s\n", path, zerror(rc));
            bad++;
            continue;
        }
        for (k = 0; k < sv.count; k++) {
            snprintf(path, sizeof path, FAULT_GROUP "/%s/%s", dirs[d], sv.data[k]);
            total++;
            if ((rc = zoo_exists(zh, path, 0, &stat)) != ZOK) {
                if (rc != ZNONODE) {
                    printf("  - %s: %s\n", path, zerror(rc));
                    bad++;
                }
                continue;
            }
            o = fault_owner(f, stat.ephemeralOwner);
            l = o >= 0 ? (int)strlen(f->nodes[o].id) : 0;
            if (o < 0 || strncmp(sv.data[k], f->nodes[o].id, (size_t)l) != 0
                || sv.data[k][l] != (d == 0 ? '\0' : '_')) {
                printf("  - %s is owned by session 0x%" PRIx64 ", %s%s\n", path,
                    (uint64_t)stat.ephemeralOwner,
                    o < 0 ? "no live daemon's" : "the session of ",
                    o < 0 ? "" : f->nodes[o].id);
                bad++;
            } else {
                count[d][o]++;
            }
        }
        deallocate_String_vector(&sv);
    }
    for (i = 0; i < f->nnodes; i++)
        for (d = 0; d < 2; d++)
            if (count[d][i] != 1) {
                printf("  - %s has %d znodes in %s/\n", f->nodes[i].id, count[d][i], dirs[d]);
                bad++;
            }
    /* each slot's leader znode: leader, leader-1 .. (doc/PROTOCOL.md section 8) */
    for (k = 0; k < f->leaders; k++) {
        if (k == 0)
            snprintf(path, sizeof path, FAULT_GROUP "/leader");
        else
            snprintf(path, sizeof path, FAULT_GROUP "/leader-%d", k);
        rc = zoo_exists(zh, path, 0, &stat);
        l = f->leaders == 1 ? cluster_leader(f) : final_slot_leader(f, k);
        if (rc != ZOK || l < 0 || fault_owner(f, stat.ephemeralOwner) != l) {
            snprintf(sid, sizeof sid, "0x%" PRIx64, rc == ZOK ? (uint64_t)stat.ephemeralOwner
                : 0);
            printf("  - the leader znode %s (%s, owner %s) is not the READY leader %s's\n",
                path, zerror(rc), sid, l >= 0 ? f->nodes[l].id : "(none)");
            bad++;
        }
    }
    zookeeper_close(zh);
    fault_check(&f->res, bad == 0, "no znodes of dead sessions remain: each of the %d children "
        "of nodes/ and election/ and the leader znode%s belong to a live daemon's session%s",
        total, f->leaders > 1 ? "s" : "", f->leaders > 1 ? " (each slot's READY leader's)" : "");
}

/* Count sanitizer reports in a log file. */
int
final_sanitizer_reports(const char *path)
{
    char line[2048];
    FILE *fp = fopen(path, "r");
    int n = 0;

    if (fp == NULL)
        return 0;
    while (fgets(line, sizeof line, fp) != NULL)
        if (strstr(line, "ERROR: AddressSanitizer") != NULL
            || strstr(line, "ERROR: LeakSanitizer") != NULL
            || strstr(line, "runtime error:") != NULL) {
            printf("  - %s: %s", path, line);
            n++;
        }
    fclose(fp);
    return n;
}

/* Wait (running the main loop) until the cluster converged or the deadline. */
int
final_wait_converged(struct fault *f, uint64_t deadline_ms, int *leader)
{
    return final_wait(f, deadline_ms, cond_converged, leader);
}

/* Run the main loop until until_ms: no faults, the cluster is only watched. */
void
final_quiet(struct fault *f, uint64_t until_ms)
{
    final_wait(f, until_ms, cond_never, NULL);
}
