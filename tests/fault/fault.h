/*
 * fault.h - the fault-injection harness (test_fault): real zkelectd daemons
 * on a 3-server ZooKeeper ensemble, faults chosen by a seeded RNG, a fenced
 * test register, and a safety checker over the daemons' event logs.
 *
 * Files of one run (the work directory, see README):
 *   harness.jsonl      the harness's journal: every fault and process event
 *   nI.events          node nI's event log ([log] events of zkelectd)
 *   nI.log, nI.ini     its stderr and configuration
 *   register.jsonl     the fenced register's journal (every write attempt)
 *   register.state     its state (highest epoch, counts)
 *   cli.log            output of every zkelect command the harness ran
 *   hooks/             the takeover, stepdown and notify hooks (and command)
 *   service.log        the hooks' own stamps: "NODE start|end MONO EPOCH SLOT"
 *
 * Every time is CLOCK_MONOTONIC in milliseconds, the clock of the event logs.
 */
#ifndef FAULT_H
#define FAULT_H

#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define FAULT_NODES_MAX     9           /* nodes n1..n9 */
#define FAULT_ZK_SERVERS    3           /* the ensemble */
#define FAULT_GROUP         "/fault"    /* the election group's base path */
#define FAULT_ID_LEN        16          /* "n1" */
#define FAULT_SID_LEN       24          /* "0x1000abcd..." */
#define FAULT_SLOTS_MAX     4           /* --leaders: N active slots, 1..4 */

/* The kinds of faults, in the order the report lists them. */
enum fault_kind {
    FK_KILL_NODE = 0,       /* kill -9 of a node (often the leader), restart later */
    FK_PAUSE_LEADER,        /* SIGSTOP of the leader for longer than the session timeout */
    FK_ZK_KILL,             /* kill -9 of a ZooKeeper member, restart later */
    FK_ZK_KILL_LEADER_CONN, /* the same for the member the leader is connected to */
    FK_QUORUM_LOSS,         /* 2 of 3 members down for a while */
    FK_PARTITION,           /* a node's link down (network namespace), up later */
    FK_SWITCHOVER,          /* zkelect switchover [--to NODE] */
    FK_SITE_PRIORITY,       /* zkelect set-site-priority SITE N */
    FK_HOOK_FAIL,           /* a node's takeover hook fails for a while (flag file) */
    FK_KILL_RESTART,        /* kill -9 of a node (often the leader), restarted at once */
    FK_ZK_FREEZE_LEADER_CONN, /* SIGSTOP of the member the leader is connected to, 3 x session */
    FK_TAKEOVER_HANG,       /* a node's takeover hook hangs past its timeout (flag file) */
    FK_STEPDOWN_SLOW,       /* the leader's stepdown hook takes 80% of its timeout (flag file) */
    FK_COMMAND_EXIT,        /* the leader's supervised command ([leader] command) exits */
    FK_RESIGN,              /* SIGTERM of the leader's zkelectd (it resigns: the direct
                               handover), started again once it has exited */
    FK__COUNT
};

/* Pending actions that end a fault. */
enum fault_act {
    ACT_NODE_START = 1,     /* start a killed node again */
    ACT_NODE_CONT,          /* SIGCONT a stopped node */
    ACT_HEAL,               /* link up again */
    ACT_UNFLAG,             /* remove the failing-takeover flag */
    ACT_ZK_RESTART,         /* start a killed ZooKeeper member again */
    ACT_ZK_RESUME           /* SIGCONT a stopped ZooKeeper member */
};

/* The flag files that make a node's hooks (or command) misbehave. */
enum fault_flag {
    FLAG_NONE = 0,
    FLAG_FAIL,                          /* fail-takeover.NODE: the takeover hook exits 1 */
    FLAG_HANG,                          /* hang-takeover.NODE: ... sleeps past its timeout */
    FLAG_SLOW,                          /* slow-stepdown.NODE: the stepdown hook is slow */
    FLAG_EXIT                           /* command-exit.NODE: the supervised command exits */
};

#define FAULT_PENDING_MAX   64

struct fault_pending {
    int used;                           /* slot in use */
    uint64_t due_ms;                    /* when */
    enum fault_act act;                 /* what */
    int idx;                            /* node or server index */
    int fault;                          /* the fault it ends (its number) */
};

/* One node: its daemon and what its poller last saw (under fault.mu). */
struct fnode {
    int idx;                            /* 0..nnodes-1 */
    char id[FAULT_ID_LEN];              /* "n1" */
    char site[FAULT_ID_LEN];            /* "dc1" or "dc2" */
    int priority;                       /* node priority */
    int http_port;                      /* [http] listen (127.0.0.1 in its namespace) */
    char ini[PATH_MAX];                 /* its configuration file */
    char events[PATH_MAX];              /* its event log */
    char log[PATH_MAX];                 /* its stderr */
    /* network namespace (netns mode) */
    char ns[40];                        /* namespace name, "" in loopback mode */
    char host_if[16];                   /* host side of the veth pair */
    char host_addr[16];                 /* host side address */
    char ns_addr[16];                   /* namespace side address */
    /* process state: main thread only */
    pid_t pid;                          /* running daemon, -1 none */
    int expect_exit;                    /* we killed or terminated it */
    int frozen;                         /* SIGSTOPped by us */
    int partitioned;                    /* link down */
    enum fault_flag flagged;            /* its flag file, FLAG_NONE none */
    uint64_t stop_epoch;                /* the epoch it led at when stopped, 0 none */
    int stop_slot;                      /* ... in this slot */
    /* poller view: under fault.mu */
    unsigned gen;                       /* bumped at every start/kill: stale replies are dropped */
    int leader200;                      /* last /leader answered 200 */
    uint64_t leader_epoch;              /* its epoch then (its slot's: slot_epoch) */
    int leader_slot;                    /* the slot it is READY in */
    uint64_t leader_at_ms;              /* when */
    int status_ok;                      /* last /status answered */
    int registered, connected;          /* from /status */
    char session[FAULT_SID_LEN];        /* session id "0x..." from /status */
    char view_leader[FAULT_ID_LEN];     /* the leader it sees ("" none) */
    char view_status[12];               /* NONE, PROGRESS, READY */
    uint64_t view_epoch;                /* the leader's epoch it sees */
    int view_nslots;                    /* /status "slots": how many (0: none listed) */
    char view_slot_leader[FAULT_SLOTS_MAX][FAULT_ID_LEN]; /* each slot's leader, "" none */
    char view_slot_status[FAULT_SLOTS_MAX][12]; /* ... its status */
    uint64_t view_slot_epoch[FAULT_SLOTS_MAX]; /* ... its epoch */
    uint64_t status_at_ms;              /* when /status last answered */
    pthread_t poller;                   /* its poller thread */
    int poller_started;
};

/* Check results: counted into the summary line. */
struct results {
    int passed, failed;
    int n;                              /* checks recorded */
    uint32_t failed_mask;               /* bit k: the k-th check recorded failed */
    int quiet;                          /* do not print "ok"/"FAIL" lines */
};

/* Options and state of one run. */
struct fault {
    /* options */
    uint64_t seed;
    int duration_s;                     /* whole run: faults, then quiet */
    int quiet_s;                        /* no faults in the last quiet_s seconds */
    int nnodes;
    int leaders;                        /* the group's config leaders: N active slots */
    int session_ms;                     /* [zookeeper] session_timeout_ms */
    int watchdog_ms;                    /* [election] watchdog_ms */
    int exclude_ms;                     /* [election] exclude_ms */
    int hook_timeout_ms;                /* [hooks] timeout_ms */
    int slack_ms;                       /* added to every timing bound (loaded box, sanitizers) */
    int pause_bound_ms;                 /* SIGCONT -> -suspended of a paused leader */
    int use_netns;                      /* try network namespaces */
    int keep;                           /* keep the work directory */
    int verbose;
    const char *name;                   /* summary line's name */
    /* paths */
    char builddir[PATH_MAX];
    char zkelectd[PATH_MAX], zkelect[PATH_MAX], regtool[PATH_MAX];
    char mono[PATH_MAX];                /* tests/harness/zke-mono, for the hooks */
    char dir[PATH_MAX];                 /* work directory */
    int dir_made;                       /* we created it */
    /* run state */
    uint64_t t0_ms;                     /* run start */
    struct zkh *zk;                     /* the ensemble */
    char hosts[512];                    /* its connection string */
    int zk_down[FAULT_ZK_SERVERS];      /* killed, not yet restarted */
    int zk_wait_serving[FAULT_ZK_SERVERS]; /* restarted, not yet serving */
    int zk_frozen[FAULT_ZK_SERVERS];    /* SIGSTOPped (also counted in zk_down) */
    /* what the daemon accepts (zkelectd -n on a probe configuration) */
    int has_command;                    /* [leader] command */
    int stepdown_timeout_ms;            /* [hooks] stepdown_timeout_ms set, 0: not known */
    int has_state_dir;                  /* [node] state_dir */
    int quorum_lost;                    /* 2 of 3 killed and not back */
    int netns;                          /* namespaces are in use */
    int netns_used;                     /* ... were, in this run */
    uint64_t fresh_ms;                  /* convergence: poller views must be newer */
    char netns_why[256];                /* why not, when they are not */
    int subnet;                         /* 10.77.<subnet>.0/24 */
    struct fnode nodes[FAULT_NODES_MAX];
    struct fault_pending pending[FAULT_PENDING_MAX];
    pid_t cli_pids[64];                 /* running zkelect commands */
    int nfaults;                        /* faults injected */
    int by_kind[FK__COUNT];             /* ... by kind */
    int skipped[FK__COUNT];             /* not possible when drawn */
    int kind_disabled[FK__COUNT];       /* never possible in this run (partition without netns) */
    uint64_t rng;                       /* xorshift64* state */
    int deck[FK__COUNT], ndeck;         /* shuffled fault kinds not yet dealt */
    int unexpected_exits;               /* daemons that exited on their own */
    int crashes;                        /* ... by a signal or a sanitizer report */
    int journal_fd;                     /* harness.jsonl */
    pthread_mutex_t mu;                 /* poller views */
    volatile int stop_pollers;
    struct results res;
};

/* Signal received (SIGINT/SIGTERM/SIGHUP): stop and clean up. */
extern volatile int fault_interrupted;

/* fault.c: time, output, journal, checks */
uint64_t fault_now_ms(void);
void fault_log(struct fault *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void fault_journal(struct fault *f, const char *kind, int node, int server, int fault,
    const char *fmt, ...) __attribute__((format(printf, 6, 7)));
void fault_check(struct results *r, int ok, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
uint64_t fault_rand(struct fault *f);
int fault_rand_range(struct fault *f, int lo, int hi);
const char *fault_kind_name(enum fault_kind k);

/* cluster.c: daemons, hooks, HTTP, CLI */
int cluster_write_files(struct fault *f);
int cluster_start_node(struct fault *f, int i);
void cluster_kill_node(struct fault *f, int i, int fault);
int cluster_stop_node(struct fault *f, int i, int fault);
void cluster_cont_node(struct fault *f, int i, int fault);
void cluster_reap(struct fault *f);
void cluster_terminate_all(struct fault *f, int timeout_ms);
int cluster_cli(struct fault *f, int wait, int timeout_ms, char *out, size_t outlen,
    const char *const *args);
int cluster_start_pollers(struct fault *f);
void cluster_stop_pollers(struct fault *f);
int cluster_http_get(int port, const char *path, int timeout_ms, char *body, size_t len);
int cluster_leader(struct fault *f);
int cluster_flag(struct fault *f, int i, enum fault_flag which, int on, int fault);
void cluster_service_end(struct fault *f, int i);

/* netns.c: one network namespace per node, partitions */
int netns_setup(struct fault *f);
void netns_teardown(struct fault *f);
int netns_link(struct fault *f, int i, int up);
int netns_enter(const struct fnode *n);
void netns_clean_stale(void);

/* inject.c: the fault schedule */
void inject_run(struct fault *f, uint64_t faults_end_ms);
void inject_end_all(struct fault *f);
void inject_tick(struct fault *f);

/* final.c: convergence and the final state */
int final_wait_converged(struct fault *f, uint64_t deadline_ms, int *leader);
void final_quiet(struct fault *f, uint64_t until_ms);
void final_converge(struct fault *f, uint64_t stop_ms);
void final_check_members(struct fault *f);
void final_check_znodes(struct fault *f);
int final_sanitizer_reports(const char *path);

/* reg.c: the fenced register (also used by fault-register) */
#define REG_ACCEPTED 0
#define REG_REFUSED  1
#define REG_SLOTS_MAX 16                /* one register per slot: ZKE_LEADERS_MAX */
int reg_write(const char *dir, const char *node, int slot, uint64_t epoch, const char *source,
    char *err, size_t errlen);

/* check.c: the checker over a run directory */
struct check_figures {
    int ready_count;                    /* +ready events */
    uint64_t longest_leaderless_ms;     /* raw */
    uint64_t longest_leaderless_eff_ms; /* counted against the bound */
    uint64_t longest_overlap_ms;        /* two nodes acting as READY leader */
    uint64_t longest_overlap_bad_ms;    /* ... outside the paused-process allowance */
    uint64_t max_pause_detect_ms;       /* SIGCONT -> -suspended, paused READY leaders */
    int pauses_measured;
    uint64_t quorum_lost_ms;            /* total time without a quorum */
    int writes_accepted, writes_refused, stale_refused;
    int service_intervals;              /* service.log: [takeover start, stepdown end] */
    uint64_t service_overlap_ms;        /* longest overlap of two nodes' services */
    uint64_t service_overlap_bad_ms;    /* ... outside a frozen window + the pause bound */
    int leaders;                        /* N, from the journal's run-start (absent: 1) */
    uint64_t slot_leaderless_ms[FAULT_SLOTS_MAX];     /* per slot, raw */
    uint64_t slot_leaderless_eff_ms[FAULT_SLOTS_MAX]; /* ... counted against the bound */
    int max_acting;                     /* most nodes acting as READY at once (N > 1) */
    int max_services;                   /* most services active at once (N > 1) */
    uint64_t node_two_slots_ms;         /* longest time one node's services in two slots */
    int violations;
};
int check_run(const char *dir, struct results *r, struct check_figures *fig, int verbose);
int check_timeline(const char *dir, int all);

/* The checker's checks, in the order check_run() records them. */
enum check_id {
    CHK_WELLFORMED = 0, CHK_PAUSE, CHK_OVERLAP, CHK_NACTIVE, CHK_EPOCHS, CHK_STALE, CHK_FOREIGN,
    CHK_UNFENCED, CHK_LEADERLESS, CHK_SERVICE, CHK_SVC_SLOTS, CHK_SVC_NACTIVE, CHK__COUNT
};

/* selftest.c: synthetic runs that each check must pass or fail */
void selftest_run(struct results *res);

#endif /* FAULT_H */
