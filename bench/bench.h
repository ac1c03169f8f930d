/*
 * bench.h - zkbench: handover and failover figures of libzkelect on a real
 * ZooKeeper ensemble (see bench/README).
 *
 * The program is a figures printer, never a timed test. Files, one concern
 * each:
 *   bench.c     options, the machine, the ZooKeeper servers, CPU accounting,
 *               the run of every section
 *   stats.c     samples, percentiles, the table printer and the CSV writer
 *   nodes.c     the bench's nodes: in-process libzkelect handles and child
 *               processes (bench/node.c), and the one event log they share
 *   rtt.c       section 1: bare ZooKeeper round trips and the floor
 *   handover.c  section 2: planned handover (graceful leave, switchover)
 *   recipe.c    section 2's baseline: ZooKeeper's lock recipe, plain C client
 *   failover.c  sections 3 and 4: leader crash (3c: its session closed at
 *               once) and elector crash
 *   scale.c     section 5: one group of 10 to 1,000 members (join storm,
 *               requests and notifications per change)
 *   members.c   section 5b: requests per leader change by kind of member
 *               (subscribed or not, eligible or not)
 *   groups.c    section 6: many groups on one handle
 *   footprint.c section 7: zkelectd's memory and CPU
 *   restart.c   section 8: kill -9 of the leader's zkelectd and a restart
 *               100 ms later (systemd's RestartSec): kill -> new READY, and
 *               the gap between the old and the new service
 *   trace.c     -L/-R diagnosis: wrappers (ld --wrap) around the ZooKeeper
 *               calls libzkelect makes
 *   node.c      zkbench-node, a separate program: one node in its own process
 *   swarm.c     zkbench-swarm, a separate program: many nodes (one session
 *               each) in one process, for section 5
 *   util.h      what the three programs share: now_us(), cond_init_mono(), mono_at(), opt_num()
 *
 * Times: CLOCK_MONOTONIC in microseconds everywhere (now_us()); every node
 * runs on this machine, so the clocks of child processes are the same clock.
 * Threads: the main thread drives everything; libzkelect's library threads
 * and the child readers only append to the event log (nodes.c).
 */
#ifndef ZKBENCH_H
#define ZKBENCH_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <time.h>

#include <zookeeper/zookeeper.h>

#include "zkelect.h"
#include "zkharness.h"
#include "util.h"

#define BENCH_MAXNODES 8            /* nodes a section may use */
#define BENCH_IDLEN 32              /* node id buffer */
#define BENCH_WAIT_MS 15000         /* deadline for anything that should be quick */

/* ---- time (now_us: util.h) ----------------------------------------------- */

/* Sleep for ms milliseconds: pacing between samples only, never to wait
 * for a condition (those poll with a deadline). */
void pace_ms(int ms);

/* ---- options (bench.c) --------------------------------------------------- */

struct bench_opts {
    const char *outdir;             /* -o: CSV directory */
    int rtt_samples;                /* -n: samples per bare operation */
    int handovers;                  /* -H: planned handovers per policy */
    int switchovers;                /* -w: switchovers */
    int crash_runs;                 /* -c: crash runs per session timeout */
    int timeouts_ms[8];             /* -t: session timeouts of the crash runs */
    int ntimeouts;
    int elector_runs;               /* -E: elector crash runs */
    int elector_timeout_ms;         /* -e: session timeout of the elector crash runs */
    int handover_session_ms;        /* -T: session timeout of the handover nodes */
    int gap_ms;                     /* -g: pause between samples */
    bool standalone;                /* -S: also measure on a standalone server */
    bool quiet;                     /* -Q: handover nodes follow nothing (zkelectd's) */
    bool no_direct;                 /* -A: switchovers through the elector only */
    bool force_sync;                /* -F: forceSync=yes (rewrite zoo.cfg, restart) */
    unsigned sections;              /* -x: SEC_* bits */
    const char *policy_dir;         /* -P: policy modules directory */
    const char *node_prog;          /* -N: path of zkbench-node */
    const char *logfile;            /* -L: library debug log */
    int verbose;                    /* -v: progress on stderr */
    bool no_resolve;                /* -R: zoo_set_servers_resolution_delay(-1) */
    bool jit_c2;                    /* -J: servers without -XX:TieredStopAtLevel=1 */
    int scale_sizes[8];             /* -M: members of the scale runs (10,100,1000) */
    int nscale;
    int scale_changes;              /* -K: leader changes per scale size (20; 5b: half
                                       of each kind) */
    int group_counts[8];            /* -G: groups on one handle (1,100,1000,10000) */
    int ngroup_counts;
    int idle_s;                     /* -I: idle seconds of the footprint section (60) */
    const char *daemon_prog;        /* -Z: zkelectd (default: the build tree's) */
    const char *mono_prog;          /* zke-mono for the hooks' stamps (the build tree's) */
    int restart_runs;               /* -r: kill -9 + restart runs (20) */
    const char *swarm_prog;         /* zkbench-swarm, next to zkbench */
};

#define SEC_RTT        0x01u
#define SEC_HANDOVER   0x02u
#define SEC_SWITCHOVER 0x04u
#define SEC_CRASH      0x08u
#define SEC_ELECTOR    0x10u
#define SEC_SCALE      0x20u
#define SEC_GROUPS     0x40u
#define SEC_FOOTPRINT  0x80u
#define SEC_RESTART    0x100u
#define SEC_ALL        0x1ffu

extern struct bench_opts bopt;

/* Progress message on stderr when -v (always for warnings: warnx). */
void vlog(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void warnx_(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---- samples and statistics (stats.c) ------------------------------------ */

struct samples {
    int64_t *v;                     /* values, microseconds (may be negative) */
    size_t n, cap;
};

struct summary {
    size_t n;                       /* samples */
    double p50, p90, p99, min, max, mean;   /* microseconds */
};

void samples_add(struct samples *s, int64_t us);
void samples_free(struct samples *s);
/* Nearest-rank percentiles of a copy of s. n = 0: all zero. */
void samples_summary(const struct samples *s, struct summary *out);

/* The table: a header line, then one row per metric, in milliseconds. */
void table_header(const char *title);
void table_row(const char *name, const struct summary *sm);
void table_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* CSV files in bopt.outdir: open (with a header line) and close. */
FILE *csv_open(const char *name, const char *header);
void csv_close(FILE *f, const char *name);
/* summary.csv: one line per metric, across sections. */
void summary_csv(const char *section, const char *metric, const struct summary *sm);
void summary_csv_value(const char *section, const char *metric, double value,
    const char *unit);
int summary_csv_open(void);
void summary_csv_close(void);

/* ---- nodes and the event log (nodes.c) ----------------------------------- */

struct bev {
    uint64_t us;                    /* CLOCK_MONOTONIC µs when the callback ran */
    uint64_t ms;                    /* the event's own mono_ms */
    int type;                       /* enum zkelect_event_type */
    int who;                        /* index of the bench node that saw it */
    uint64_t epoch;                 /* ev->epoch */
    int status;                     /* ev->status (LEADER_CHANGED) */
    char subject[BENCH_IDLEN];      /* ev->node, or "" */
};

/* A node of a section: an in-process handle + group, or a child process. */
struct bnode {
    int idx;                        /* index in the node table (bev.who) */
    char id[BENCH_IDLEN];           /* node id */
    bool used;                      /* slot in use */
    bool child;                     /* runs in a child process */
    /* in-process */
    zkelect_t *h;                   /* handle (own session) */
    zkelect_group_t *g;             /* group */
    struct zkelect_node self;       /* candidate record */
    /* child process */
    pid_t pid;                      /* -1 when none */
    int in_fd, out_fd;              /* its stdin (ours to write) / stdout (ours to read) */
    pthread_t reader;               /* reads its event lines */
    bool reader_on;
    clientid_t cid;                 /* child: its session (its SESSION line) */
    bool has_cid;
    /* state, from events (evlog lock) */
    bool ready, elector, registered;
    uint64_t ready_epoch;
};

/* The group settings every node of a section shares. */
struct bgroup {
    const char *hosts;              /* connect string */
    char path[128];                 /* group base path */
    const char *policy;             /* policy name */
    const char *policy_opt;         /* one "key=value" or NULL */
    int session_ms;                 /* session timeout */
    unsigned flags;                 /* zkelect_group_options.flags (ZKELECT_GROUP_*) */
};

void nodes_init(void);
/* An in-process node: opens its handle and group; eligible (0/1). Does not
 * nominate. Returns the node or NULL (message printed). */
struct bnode *node_open(const struct bgroup *bg, const char *id, int eligible);
/* What an in-process node hears: every event of its group (on_event, as
 * node_open), only leader changes (zkelect_subscribe(ZKELECT_MASK_LEADER), no
 * on_event), or nothing (no on_event, no subscription: its state is only
 * known from zkelect_get_stats / zkelect_get_leader). */
enum node_events {
    NODE_EVENTS_ALL,                /* on_event: every event */
    NODE_EVENTS_LEADER,             /* a subscription to +leader-changed only */
    NODE_EVENTS_NONE                /* unsubscribed */
};
struct bnode *node_open_ex(const struct bgroup *bg, const char *id, int eligible,
    enum node_events events);
int node_nominate(struct bnode *n);                 /* blocking, 0 or -1 */
int node_unnominate(struct bnode *n);               /* blocking, 0 or -1 */
void node_close(struct bnode *n);                   /* NULL-safe */
/* A child process node (zkbench-node) that nominates at once. */
struct bnode *node_spawn(const struct bgroup *bg, const char *id, int eligible);
/* A child's session id and password (from its SESSION line): 0, or -1 when
 * it has not printed it. */
int node_clientid(struct bnode *n, clientid_t *out);
/* SIGKILL a child and reap it; returns the µs time of the kill. */
uint64_t node_kill(struct bnode *n);
/* Stop a child gracefully (stdin EOF), SIGKILL after timeout_ms. */
void node_stop(struct bnode *n, int timeout_ms);
void nodes_close_all(void);
struct bnode *node_at(int idx);

/* The event log. */
size_t evlog_mark(void);
/*
 * Wait for the first event at index >= from with this type, seen by node
 * `who` (-1: any node) and not by node `not_who` (-1: no exclusion), with
 * epoch >= min_epoch. Returns 0 and fills *out (and *idx if not NULL), or
 * -1 after timeout_ms.
 */
int evlog_wait(size_t from, int type, int who, int not_who, uint64_t min_epoch,
    int timeout_ms, struct bev *out, size_t *idx);
/* The first (last when last) such event in [from, to), without waiting. */
int evlog_find(size_t from, size_t to, int type, int who, bool last, struct bev *out);
/* Number of events of this type in [from, to), any node. */
int evlog_count(size_t from, size_t to, int type);
/* Copy of a node's event-derived state. */
void node_state(struct bnode *n, bool *ready, bool *elector, uint64_t *ready_epoch);
/* The in-process or child node that is READY, or NULL. */
struct bnode *node_ready_leader(void);
/* Wait until some node is the READY leader; NULL after timeout_ms. */
struct bnode *node_wait_leader(int timeout_ms);

/* One line of the -L log (nodes.c); no-op without -L. */
void bench_log(uint64_t us, const char *id, int level, const char *msg);

/* ---- request tracing for -L (trace.c) ------------------------------------ */

void trace_enable(void);
/* -R: no re-resolution of the host list on every I/O loop turn (all handles). */
void trace_no_resolve(void);
bool trace_no_resolve_on(void);
/* The node whose handle zkelect_open() is creating now (NULL: none). */
void trace_opening(const char *id);
/* The tally (section 5b): every request and notification of the nodes opened
 * after trace_tally_start(), by node and by what (paths relative to BASE). */
void trace_tally_start(const char *base);
void trace_tally_reset(void);
void trace_tally_stop(void);
void trace_tally_list(const char *id, char *buf, size_t len);
void trace_free(void);

/* ---- raw ZooKeeper helpers (rtt.c) --------------------------------------- */

/* Open a raw handle to hosts and wait until connected (or NULL). */
zhandle_t *zk_connect(const char *hosts, int timeout_ms);
void zk_close(zhandle_t *zh);                       /* NULL-safe */
/* Create path and its ancestors (persistent, empty); 0 or a ZooKeeper rc. */
int zk_mkpath(zhandle_t *zh, const char *path);

/* An exists-watch that records when its node is deleted. */
struct delwatch {
    pthread_mutex_t mu;
    uint64_t deleted_us;            /* 0 until the DELETED notification */
    int armed;
};
void delwatch_init(struct delwatch *w);
/* Arm on path: 0, or -1 when the node does not exist or the call failed. */
int delwatch_arm(zhandle_t *zh, struct delwatch *w, const char *path);
/* Wait up to timeout_ms for the notification: its time, or 0. */
uint64_t delwatch_wait(struct delwatch *w, int timeout_ms);

/* CPU time (user + system, ms) used so far by this process and by the
 * servers' JVMs (-1 when unknown). */
struct cputime {
    double self_ms;
    double servers_ms;
};
void cpu_sample(struct zkh *z, struct cputime *out);

/* Sum over the servers of one numeric `mntr` value (only the quorum
 * leader's when leader_only, for counts every server holds a copy of);
 * -1 when no server answered with it (groups.c). */
long long mntr_sum(struct zkh *z, const char *key, bool leader_only);
/* One numeric value of an `mntr` answer that starts with a newline; -1 when
 * it is not there (scale.c). */
long long mntr_field(const char *buf, const char *name);

/* Write a switchover request to `to` on the group at `path`, as the CLI
 * does: id one above both the last request and the one `elected`
 * acknowledged; `by` names the writer. When the elector's standing
 * succession covers it, the decision itself (as the CLI). t0/t1 (may be NULL): µs times just
 * before and after the write. 0, or -1 with a warning (handover.c). */
int switchover_write(zhandle_t *zh, const char *path, const char *to, const char *by,
    uint64_t *t0, uint64_t *t1);
/* How many of them switchover_write() wrote as the decision itself (the
 * operator's direct switchover, doc/PROTOCOL.md §4). */
extern unsigned long long bench_direct_switchovers;

/* ---- the lock recipe baseline (recipe.c) --------------------------------- */

/* Three plain ZooKeeper clients running the lock recipe under one base path. */
struct recipe;
struct recipe_sample {
    int holder, successor;          /* client indexes (0-2) */
    int64_t delete_us;              /* delete call -> its reply */
    int64_t notify_us;              /* delete call -> successor's DELETED notification */
    int64_t lead_us;                /* delete call -> successor knows it leads */
    int64_t write_us;               /* delete call -> successor's create acknowledged */
    /* recipe_request_once() only (-1 otherwise): from the request's write call */
    int64_t req_ack_us;             /* -> its reply */
    int64_t req_lead_us;            /* -> successor knows it leads */
    int64_t req_write_us;           /* -> successor's create acknowledged */
};
/* Connect three clients, queue them under base; NULL (warning printed). */
struct recipe *recipe_open(const char *hosts, const char *base);
void recipe_close(struct recipe *r);                /* NULL-safe */
/* One handover: the holder deletes its znode, the successor leads, the holder
 * queues again at the tail and every watch is set again. 0, or -1 (warning). */
int recipe_once(struct recipe *r, struct recipe_sample *out);
/* The same handover started by an operator: another client sets BASE-req,
 * which the holder watches; at that notification the holder deletes its
 * znode. The one- and two-phase figures are taken from that delete call. */
int recipe_request_once(struct recipe *r, struct recipe_sample *out);
/* The handover of recipe_once() with a crowd: the holder and the third client
 * also watch the holder's znode and read it once (an exists each, no watch)
 * at the notification. holder, successor, delete_us, notify_us, lead_us and
 * write_us are set (the request figures are -1). */
int recipe_crowd_once(struct recipe *r, struct recipe_sample *out);

/* ---- the targets of issue 18 (bench.c) ----------------------------------- */

/* One line of the TARGETS table printed at the end of the run: the target,
 * the measured figure (text), met (1), NOT met (0) or not judged (-1). */
void target_add(const char *target, const char *measured, int met);

/* ---- sections ------------------------------------------------------------ */

/* The floor's components (section 1), p50 in microseconds; 0 = not measured. */
struct floor_parts {
    double multi_check_set;         /* decision write; set READY */
    double watch_get;               /* candidate reads elected after a write's ack */
    double delete_;                 /* old leader deletes its znode */
    double watch_exists;            /* candidate sees the leader znode deleted */
    double multi_check_create;      /* create leader PROGRESS */
    double floor;                   /* the sum */
    /* other operations the library's paths use (for the path models) */
    double multi_del_del;           /* unregister: delete nodes/<id> + election znode */
    double multi_set_set;           /* the decision as written: elected + history */
    double watch_children;          /* elector re-lists election after a change */
    double get;                     /* a plain getData */
    double exists;                  /* a plain exists */
    double set;                     /* setData */
};

/* Section 1's figures on the ensemble, for the later sections (floor 0: not run). */
extern struct floor_parts ensemble_floor;

int section_rtt(struct zkh *z, const char *label, struct floor_parts *fp);
int section_handover(struct zkh *z, const char *label, const char *policy,
    const struct floor_parts *fp, bool switchover);
/* Section 3; close_session: after the SIGKILL, end the victim's session at
 * once with a closeSession through a clone of it (3c). */
int section_crash(struct zkh *z, int timeout_ms, bool close_session);
int section_elector(struct zkh *z, int timeout_ms);
/* Section 5 (scale.c): one group of `members` members, from a few
 * zkbench-swarm processes. */
int section_scale(struct zkh *z, int members);
/* Section 5b (members.c): requests per leader change of each kind of member
 * (subscribed or not, eligible or not), from in-process nodes. */
int section_members(struct zkh *z);
/* Section 6 (groups.c): `ngroups` groups on one handle. */
int section_groups(struct zkh *z, int ngroups);
/* Section 7 (footprint.c): zkelectd RSS and CPU, idle and during elections. */
int section_footprint(struct zkh *z);
/* Section 8 (restart.c): kill -9 of the leader's zkelectd, restarted 100 ms
 * later, bopt.restart_runs times. */
int section_restart(struct zkh *z);

#endif /* ZKBENCH_H */
