/*
 * groups.c - section 6: many groups on one handle.
 *
 * One handle (one session) opens G groups (/zkbench/groups-G-PID/gNNNNN)
 * with ZKELECT_GROUP_NOWAIT and nominates itself in each with
 * zkelect_nominate_async(): it is the only member, hence the elector, and
 * takes over at once (no on_takeover). The figure is the time from the first
 * zkelect_group_open() to the moment every group has delivered +ready, and
 * what the groups cost: the process's resident memory and heap in use
 * (mallinfo2, every arena) before and after, ZooKeeper requests per group
 * (the servers' mntr counters and the library's own counters) and the
 * servers' znode and watch counts. Then zkelect_close() resigns them all.
 */
#include "config.h"

#include <malloc.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

#define GROUPS_DEADLINE_MS 300000   /* everything elected, however slow */

struct gstate {
    atomic_ullong ready_us;         /* first +ready, 0 until then */
    atomic_int errors;              /* -error / -malformed events */
};

static atomic_int ready_count;

static void
on_event(void *data, const struct zkelect_event *ev)
{
    struct gstate *st = data;
    unsigned long long zero = 0;

    if (ev->type == ZKELECT_EV_READY) {
        if (atomic_compare_exchange_strong(&st->ready_us, &zero, now_us()))
            atomic_fetch_add(&ready_count, 1);
    } else if (ev->type == ZKELECT_EV_ERROR || ev->type == ZKELECT_EV_MALFORMED) {
        atomic_fetch_add(&st->errors, 1);
    }
}

static atomic_int nominate_errors;

static void
on_nominated(void *data, zkelect_group_t *g, int err)
{
    (void)data;
    (void)g;
    if (err != 0)
        atomic_fetch_add(&nominate_errors, 1);
}

/* Resident memory of this process in KiB (VmRSS), -1 when unknown. */
static long
rss_kib(void)
{
    char line[256];
    long v = -1;
    FILE *f = fopen("/proc/self/status", "r");

    if (f == NULL)
        return -1;
    while (fgets(line, sizeof(line), f) != NULL)
        if (sscanf(line, "VmRSS: %ld", &v) == 1)
            break;
    fclose(f);
    return v;
}

long long
mntr_sum(struct zkh *z, const char *key, bool leader_only)
{
    char buf[16384];
    long long sum = 0, v;
    int i, found = 0;

    for (i = 0; i < zkh_nservers(z); i++) {
        if (zkh_4lw(z, i, "mntr", buf + 1, sizeof(buf) - 1) <= 0)
            continue;
        buf[0] = '\n';
        if (leader_only && zkh_nservers(z) > 1 &&
            strstr(buf, "\nzk_server_state\tleader\n") == NULL)
            continue;
        if ((v = mntr_field(buf, key)) >= 0) {
            sum += v;
            found = 1;
        }
    }
    return found ? sum : -1;
}

/* The largest count that reached all READY, for the TARGETS table. */
static int calls, target_n;
static double target_s, target_cpu = -1, target_req, target_floor = -1;

static void
groups_target(void)
{
    char meas[96];

    if (target_n == 0) {
        target_add("10,000 groups on one handle: all READY <= 15 s", "no count completed", -1);
        return;
    }
    if (target_n != 10000)
        snprintf(meas, sizeof(meas), "not run; %d groups: %.1f s", target_n, target_s);
    else
        snprintf(meas, sizeof(meas), "%.1f s", target_s);
    if (target_cpu >= 0) {
        size_t len = strlen(meas);
        snprintf(meas + len, sizeof(meas) - len, "; %.1f req/group, %.3f ms srv CPU/req",
            target_req, target_cpu);
    }
    if (target_floor >= 0) {
        size_t len = strlen(meas);
        snprintf(meas + len, sizeof(meas) - len, "; CPU floor %.1f s", target_floor);
    }
    if (target_n != 10000) {
        target_add("10,000 groups on one handle: all READY <= 15 s", meas, -1);
    } else {
        target_add("10,000 groups on one handle: all READY <= 15 s", meas, target_s <= 15.0);
    }
}

int
section_groups(struct zkh *z, int ngroups)
{
    struct zkelect_options o;
    struct zkelect_group_options go;
    struct zkelect_node self;
    struct zkelect_stats stt;
    struct gstate *st = NULL;
    zkelect_group_t **g = NULL;
    zkelect_t *h = NULL;
    struct samples ready = {0};
    struct summary sm;
    struct mallinfo2 m0, m1;
    struct cputime c0, c1;
    FILE *csv = NULL;
    char base[128], path[160], label[64], title[160], csvname[80];
    long rss0, rss1;
    long long pk0, pk1, zn0, zn1, wc;
    uint64_t t0, t_opened, t_nominated, t_ready = 0, t_close0, t_closed, until;
    unsigned long long reqs = 0, notes = 0;
    double cpu_req = -1, floor_s = -1;
    int i, rc = -1, opened = 0, errors = 0;

    snprintf(label, sizeof(label), "groups-%d", ngroups);
    snprintf(title, sizeof(title), "6. Many groups on one handle: %d group%s (ensemble)",
        ngroups, ngroups == 1 ? "" : "s");
    table_header(title);
    snprintf(base, sizeof(base), "/zkbench/groups-%d-%d", ngroups, (int)getpid());
    st = calloc((size_t)ngroups, sizeof(*st));
    g = calloc((size_t)ngroups, sizeof(*g));
    if (st == NULL || g == NULL) {
        table_note("cannot allocate the state of %d groups", ngroups);
        goto out;
    }
    atomic_store(&ready_count, 0);
    atomic_store(&nominate_errors, 0);

    memset(&o, 0, sizeof(o));
    o.size = sizeof(o);
    o.hosts = zkh_hosts(z);
    o.session_timeout_ms = 10000;
    if (zkelect_open(&o, &h) != 0) {
        table_note("cannot connect to %s", zkh_hosts(z));
        goto out;
    }
    pk0 = mntr_sum(z, "zk_packets_received", false);
    zn0 = mntr_sum(z, "zk_znode_count", true);
    m0 = mallinfo2();
    rss0 = rss_kib();
    cpu_sample(z, &c0);

    memset(&self, 0, sizeof(self));
    self.id = "n1";
    self.eligible = 1;
    self.host = "zkbench";
    memset(&go, 0, sizeof(go));
    go.size = sizeof(go);
    go.policy = "nodeid";
    go.policy_path = bopt.policy_dir;
    go.on_event = on_event;
    go.flags = ZKELECT_GROUP_NOWAIT;

    t0 = now_us();
    for (i = 0; i < ngroups; i++) {
        snprintf(path, sizeof(path), "%s/g%05d", base, i);
        go.path = path;
        go.event_data = &st[i];
        if (zkelect_group_open(h, &go, &g[i]) != 0) {
            table_note("zkelect_group_open(%s) failed", path);
            goto out;
        }
        opened++;
    }
    t_opened = now_us();
    for (i = 0; i < ngroups; i++)
        if (zkelect_nominate_async(g[i], &self, on_nominated, NULL) != 0) {
            table_note("zkelect_nominate_async(group %d) failed", i);
            goto out;
        }
    t_nominated = now_us();
    until = t0 + (uint64_t)GROUPS_DEADLINE_MS * 1000u;
    while (atomic_load(&ready_count) < ngroups && now_us() < until &&
           atomic_load(&nominate_errors) == 0)
        pace_ms(2); /* polling a counter with a deadline */
    if (atomic_load(&ready_count) < ngroups) {
        table_note("only %d of %d groups had a READY leader after %d s (%d nominate errors)",
            atomic_load(&ready_count), ngroups, GROUPS_DEADLINE_MS / 1000,
            atomic_load(&nominate_errors));
        goto out;
    }
    t_ready = now_us();
    cpu_sample(z, &c1);
    rss1 = rss_kib();
    m1 = mallinfo2();
    pk1 = mntr_sum(z, "zk_packets_received", false);
    zn1 = mntr_sum(z, "zk_znode_count", true);
    wc = mntr_sum(z, "zk_watch_count", false);

    snprintf(csvname, sizeof(csvname), "%s.csv", label);
    csv = csv_open(csvname,
        "groups,group,open_to_ready_us,requests,notifications");
    for (i = 0; i < ngroups; i++) {
        uint64_t r = atomic_load(&st[i].ready_us);

        samples_add(&ready, (int64_t)(r - t0));
        errors += atomic_load(&st[i].errors);
        memset(&stt, 0, sizeof(stt));
        zkelect_get_stats(g[i], &stt);
        reqs += stt.requests;
        notes += stt.notifications;
        if (csv)
            fprintf(csv, "%d,%d,%llu,%llu,%llu\n", ngroups, i, (unsigned long long)(r - t0),
                (unsigned long long)stt.requests, (unsigned long long)stt.notifications);
    }
    csv_close(csv, csvname);
    samples_summary(&ready, &sm);
    table_row("first open -> group +ready", &sm);
    summary_csv(label, "first open -> group +ready", &sm);
    table_note("all %d groups READY after %.1f ms (opening took %.1f ms, nominating %.1f ms)",
        ngroups, (double)(t_ready - t0) / 1000.0, (double)(t_opened - t0) / 1000.0,
        (double)(t_nominated - t_opened) / 1000.0);
    summary_csv_value(label, "all groups READY", (double)(t_ready - t0) / 1000.0, "ms");
    table_note("CPU until then: this process %.0f ms, ZooKeeper servers %.0f ms (wall %.0f ms, "
        "2 CPUs = %.0f ms)", c1.self_ms - c0.self_ms,
        c0.servers_ms >= 0 ? c1.servers_ms - c0.servers_ms : -1.0,
        (double)(t_ready - t0) / 1000.0, 2.0 * (double)(t_ready - t0) / 1000.0);
    if (c0.servers_ms >= 0 && reqs > 0) {
        double srv = c1.servers_ms - c0.servers_ms;
        long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
        double cpus = ncpu > 0 ? (double)ncpu : 1.0;
        double all = srv + (c1.self_ms - c0.self_ms);   /* the servers' and this process's */
        cpu_req = srv / (double)reqs;
        table_note("server CPU per request: %.3f ms (%.0f ms of the 3 JVMs / %llu library "
            "requests%s); at that cost the servers alone need %.1f s of %ld CPUs' time for "
            "these %d groups", cpu_req, srv, reqs,
            pk0 >= 0 && pk1 >= 0 ? "" : "; servers' packets unknown",
            srv / 1000.0 / cpus, ncpu, ngroups);
        if (pk0 >= 0 && pk1 > pk0)
            table_note("  per packet the servers received (incl. pings and mntr): %.3f ms",
                srv / (double)(pk1 - pk0));
        /* the servers and this process share the machine's CPUs: with both
           busy all the time, the burst could not end sooner than this */
        floor_s = all / 1000.0 / cpus;
        table_note("  CPU floor: the servers and this process used %.0f ms of CPU, %.1f s of "
            "%ld CPUs' time even if no CPU ever waited (all READY took %.1f s)", all, floor_s,
            ncpu, (double)(t_ready - t0) / 1e6);
        summary_csv_value(label, "CPU floor", floor_s * 1000.0, "ms");
        summary_csv_value(label, "server CPU per request", cpu_req, "ms");
    }
    table_note("target: 10,000 groups READY within 15 s on one handle: %s",
        ngroups != 10000 ? "(judged at 10,000)" :
        (t_ready - t0 <= 15000000u ? "met" : "NOT met"));
    if (ngroups >= target_n) {
        target_n = ngroups;
        target_s = (double)(t_ready - t0) / 1e6;
        target_cpu = cpu_req;
        target_req = (double)reqs / ngroups;
        target_floor = floor_s;
    }
    table_note("memory of this process: RSS %+.1f MiB (%.2f KiB per group), heap in use "
        "%+.1f MiB (%.2f KiB per group)", (double)(rss1 - rss0) / 1024.0,
        (double)(rss1 - rss0) / ngroups, ((double)m1.uordblks - (double)m0.uordblks) / 1048576.0,
        ((double)m1.uordblks - (double)m0.uordblks) / 1024.0 / ngroups);
    summary_csv_value(label, "RSS per group", (double)(rss1 - rss0) / ngroups, "KiB");
    summary_csv_value(label, "heap per group",
        ((double)m1.uordblks - (double)m0.uordblks) / 1024.0 / ngroups, "KiB");
    table_note("requests per group: %.1f (library's counters), %.1f (servers' packets "
        "received, incl. pings and mntr)", (double)reqs / ngroups,
        pk0 >= 0 && pk1 >= 0 ? (double)(pk1 - pk0) / ngroups : -1.0);
    summary_csv_value(label, "requests per group", (double)reqs / ngroups, "requests");
    table_note("notifications per group: %.1f; znodes per group: %.1f; watches on the "
        "servers: %lld; error events: %d", (double)notes / ngroups,
        zn0 >= 0 && zn1 >= 0 ? (double)(zn1 - zn0) / ngroups : -1.0, wc, errors);
    rc = errors ? -1 : 0;

out:
    if (++calls == bopt.ngroup_counts)
        groups_target();
    t_close0 = now_us();
    zkelect_close(h);   /* resigns every group, then closes the session */
    t_closed = now_us();
    if (h)
        table_note("zkelect_close() with %d group%s: %.1f ms", opened, opened == 1 ? "" : "s",
            (double)(t_closed - t_close0) / 1000.0);
    samples_free(&ready);
    free(g);
    free(st);
    fflush(stdout);
    return rc;
}
