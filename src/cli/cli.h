/*
 * cli.h - zkelect, the operator CLI: what main.c, the helpers and the
 * commands (cmd-*.c) share.
 *
 * The CLI talks to ZooKeeper directly with synchronous libzookeeper_mt calls
 * (it has no event loop of its own) and decodes/encodes every payload with
 * the library's codec (src/lib/codec.h). Waiting is watch-driven: the one
 * ZooKeeper watcher (zk.c) only bumps an eventfd that the main thread polls
 * with a deadline. The exception is `run` (cmd-run.c): it is a member of
 * the group, so it uses the library's public API (include/zkelect.h) and
 * has a loop of its own.
 *
 * Every command returns one of the exit codes below; messages go to stderr
 * as "zkelect: ...", results to stdout.
 */
#ifndef ZKELECT_CLI_H
#define ZKELECT_CLI_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <zookeeper/zookeeper.h>

#include "codec.h"
#include "zkecommon.h"

/* Exit codes (documented in zkelect(1) and `zkelect --help`). */
enum cli_exit {
    CLI_OK = 0,          /* success */
    CLI_EFAIL = 1,       /* operational error: ZooKeeper, ACL, malformed data, ... */
    CLI_EUSAGE = 2,      /* usage error: unknown command/option, bad argument */
    CLI_ENOLEADER = 3,   /* no leader */
    CLI_EPROGRESS = 4,   /* the leader is taking over (PROGRESS, not READY) */
    CLI_ETIMEOUT = 5,    /* --wait timed out */
    CLI_EREFUSED = 6,    /* refused: the node cannot lead, no eligible node, ... */
    CLI_EPARTIAL = 7     /* `leader` with N > 1 leaders: some slots READY, not all
                            (3 was taken by "no leader" already) */
};

#define CLI_PATH_MAX      ZKE_PATH_MAX /* any znode path we build */
#define CLI_BASE_MAX      ZKE_BASE_MAX /* longest base path (-p): its longest
                                          derived path fits in CLI_PATH_MAX */
#define CLI_SESSION_MS    10000   /* requested session timeout (the server clamps it) */
#define CLI_TIMEOUT_MS    10000   /* default connect deadline (-t) */
#define CLI_PROBE_AFTER_MS 250    /* no session yet: probe the servers (zk.c) */
#define CLI_PROBE_MS      750     /* how long the probe waits for answers */
#define CLI_WAIT_S        30      /* default --wait */
#define CLI_CAS_TRIES     5       /* compare-and-set attempts on ZBADVERSION */
#define CLI_ERR_MAX       32      /* problems (malformed znodes) kept per view */

/* Global state: the options, the session and the group's znode paths. */
struct cli {
    const char *prog;                 /* "zkelect" */
    const char *hosts;                /* -z or $ZKELECT_HOSTS; borrowed from argv/env */
    const char *auth_file;            /* -a or $ZKELECT_AUTH_FILE; borrowed */
    char *auth;                       /* "user:password" read from auth_file; owned, wiped */
    char *extra_auth;                 /* a second credential (init --operator-auth); owned */
    bool json;                        /* --json */
    int timeout_ms;                   /* -t: connect deadline */
    const struct cli_cmd *cmd;        /* the command being run */

    char path[CLI_BASE_MAX + 1];      /* base path (-p, $ZKELECT_PATH, /cluster) */
    char p_nodes[CLI_PATH_MAX];       /* <path>/nodes */
    char p_election[CLI_PATH_MAX];    /* <path>/election */
    char p_elected[CLI_PATH_MAX];     /* <path>/elected */
    char p_leader[CLI_PATH_MAX];      /* <path>/leader */
    char p_config[CLI_PATH_MAX];      /* <path>/config */
    char p_switchover[CLI_PATH_MAX];  /* <path>/switchover */
    char p_history[CLI_PATH_MAX];     /* <path>/history */
    char p_successor[CLI_PATH_MAX];   /* <path>/successor */

    zhandle_t *zh;                    /* the session, or NULL */
    atomic_int state;                 /* last session state seen by the watcher */
    atomic_bool expired;              /* the session expired: reconnect */
    int efd;                          /* eventfd: the watcher writes 1 per event */
    int sigfd;                        /* signalfd for SIGINT/SIGTERM (watch), or -1 */
};

/* One command of the table in main.c. */
struct cli_cmd {
    const char *name;                 /* "status" */
    const char *args;                 /* usage after the name, "" for none */
    const char *summary;              /* one line for `zkelect --help` */
    const char *help;                 /* the rest of `zkelect CMD --help` */
    int (*run)(struct cli *c, int argc, char **argv); /* argv[0] is the name */
};

/* ---- main.c: messages and usage ---------------------------------------- */

void cli_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Print the command's usage line and "zkelect CMD: problem"; returns CLI_EUSAGE. */
int cli_usage_err(struct cli *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Print `zkelect CMD --help` to stdout; returns CLI_OK. */
int cli_cmd_help(struct cli *c);

/* ---- args.c: strict argument parsing ------------------------------------ */

/* Command options: { "wait", 0, 2, OPT_WAIT }; arg: 0 none, 1 required
 * (--name VALUE, --name=VALUE, -x VALUE, -xVALUE), 2 optional (--name=VALUE
 * only). The table ends with an entry whose id is 0. */
struct cli_optdef {
    const char *lname;                /* long name without "--" */
    char sname;                       /* short letter or 0 */
    int arg;                          /* 0, 1 or 2 as above */
    int id;                           /* returned by cli_next_opt, > 0 */
};

#define CLI_OPT_HELP 'h'              /* -h, --help */
#define CLI_OPT_JSON 0x100            /* --json (also a global option) */
#define CLI_MAXPOS 8                  /* positional arguments kept */
#define CLI_OPT_ERR (-1)              /* cli_next_opt: usage error printed */

/* Parser state: zero it, set argc/argv (argv[0] is the command name). */
struct cli_args {
    int argc;
    char **argv;
    int i;                            /* last argv index looked at */
    bool done;                        /* "--" seen */
    const char *pos[CLI_MAXPOS];      /* positional arguments, in order */
    int npos;
    bool rest;                        /* set by the caller: options end at "--" or at
                                         the first argument (`run -- COMMAND ...`) */
    int rest_at;                      /* with rest: argv index of that first argument
                                         (argc when there is none) */
};

/* The next option: its id (CLI_OPT_HELP for -h/--help, CLI_OPT_JSON for
 * --json), 0 at the end, or CLI_OPT_ERR after printing a usage error (the
 * command then returns CLI_EUSAGE). Positional arguments are collected in
 * a->pos, unless a->rest is set: then the options end at "--" or at the first
 * argument, whose index goes to a->rest_at. */
int cli_next_opt(struct cli *c, struct cli_args *a, const struct cli_optdef *defs,
                 const char **arg);
/* For commands with no options of their own (--json and --help only) and
 * minpos..maxpos arguments: -1 to go on, else the exit code to return
 * (help printed: CLI_OK; usage error: CLI_EUSAGE). */
int cli_parse_simple(struct cli *c, int argc, char **argv, int minpos, int maxpos,
                     struct cli_args *a);
/* Parse a whole decimal integer in [min, max]; 0 or -1 (nothing stored). */
int cli_parse_int(const char *s, long long min, long long max, long long *out);
/* Parse the optional argument of --wait[=SECONDS]: NULL gives CLI_WAIT_S. */
int cli_parse_wait(const char *arg, int *seconds);
/* The same for a command's OPT_WAIT: CLI_OK, or CLI_EUSAGE after saying so. */
int cli_opt_wait(struct cli *c, const char *arg, int *seconds);
/* Set c->path and the derived paths; 0, or -1 when the path is not valid. */
int cli_set_path(struct cli *c, const char *path);
/* Read a secret file "user:password" with zke_secret_read(): ours, mode
 * 0600 or stricter, no symbolic link, one line. *out is malloc'd (wipe and
 * free it: cli_secret_free); on error a message is printed and -1 is
 * returned. what names the option for messages ("-a", "--member-auth"). */
int cli_read_secret(const char *file, const char *what, char **out);
/* Wipe and free a secret. NULL-safe. */
void cli_secret_free(char *s);
/* Escape untrusted text for a terminal: zke_escape() of a C string. */
void cli_escape(const char *in, char *out, size_t outlen);
/* Local wall-clock time of ms since 1970 as "YYYY-MM-DD HH:MM:SS"; "-" for 0. */
void cli_time_str(int64_t ms, char *out, size_t outlen);
/* Milliseconds of CLOCK_MONOTONIC / CLOCK_REALTIME. */
uint64_t cli_mono_ms(void);
int64_t cli_wall_ms(void);
/* "user@host" of whoever runs the CLI, for the "by" fields: printable
 * ASCII only, at most ZKE_NAME_MAX bytes. */
void cli_requester(char *out, size_t outlen);

/* ---- parse.c: durations, times and text given by the operator ------------ */

#define CLI_DAY_MS        INT64_C(86400000)
#define CLI_AHEAD_MAX_MS  (7 * CLI_DAY_MS) /* drain --for, switchover --at: 7 days */

/* A DURATION ("90s", "15m", "2h", "1d", "5000ms", "1h30m"; a bare number
 * is refused) in [min_ms, max_ms]: 0, or -1 with why set to the problem,
 * worded to follow the argument ("--for: \"x\" " + why). */
int cli_parse_duration(const char *s, int64_t min_ms, int64_t max_ms, int64_t *out_ms,
                       char *why, size_t whylen);
/* An RFC 3339 time with Z or an offset, or "+DURATION" after now_ms, as
 * wall-clock ms since 1970: 0, or -1 with why set. Range checks (past, too
 * far ahead) are the caller's. */
int cli_parse_time(const char *s, int64_t now_ms, int64_t *out_ms, char *why, size_t whylen);
/* Text for a znode's text field: valid UTF-8, no control character, at most
 * max bytes. 0, or -1 with why set. */
int cli_text_ok(const char *s, size_t max, char *why, size_t whylen);
/* A duration for people: "1.4 s" under 10 s, "25 s" under 2 minutes,
 * "12m 30s" under an hour, "1h 59m" under 2 days, else "2d 03h"; from 10 s
 * on the seconds are rounded up. Negative counts as 0. */
void cli_fmt_duration(int64_t ms, char *out, size_t outlen);

/* ---- digest.c: SHA-1, base64 and ZooKeeper digest ids -------------------- */

void cli_sha1(const void *data, size_t len, unsigned char out[20]);
/* base64 of in (standard alphabet, padded) into out; needs 4*ceil(n/3)+1 bytes. */
void cli_base64(const unsigned char *in, size_t n, char *out, size_t outlen);
/* "user:password" -> "user:base64(sha1(user:password))"; 0, -1 when malformed. */
int cli_digest_id(const char *cred, char *out, size_t outlen);

/* ---- zk.c: the session --------------------------------------------------- */

/* Check hosts and auth, connect within -t; 0 or an exit code (message printed). */
int cli_connect(struct cli *c);
void cli_close(struct cli *c);
/* After an expiry (watch and --wait loops): a new session, deadline_ms on
 * CLOCK_MONOTONIC (0: until a signal). 0, or an exit code. */
int cli_reconnect(struct cli *c, uint64_t deadline_ms);
/* Wait for a watch or session event until deadline_ms (0: no deadline).
 * 1: an event, 0: deadline passed, -1: SIGINT/SIGTERM (when c->sigfd >= 0). */
int cli_wait_event(struct cli *c, uint64_t deadline_ms);
/* true while the session is connected. */
bool cli_connected(struct cli *c);
bool cli_await_connection(struct cli *c, uint64_t deadline_ms);
/* ZooKeeper errors that mean "try again after a reconnect". */
bool cli_transient(int rc);

/* Read a znode (buf: malloc'd, ZKE_PAYLOAD_MAX + 1 bytes; len -1 for NULL
 * data). With watch, a data watch (or an exists watch when it is absent) is
 * left on it. Returns the ZooKeeper rc; *buf is NULL unless ZOK. */
int cli_get(struct cli *c, const char *path, bool watch, char **buf, int *len,
            struct Stat *st);
/* Children of path (deallocate_String_vector), with a child or exists watch. */
int cli_children(struct cli *c, const char *path, bool watch, struct String_vector *sv);
/* Print "zkelect: cannot OP PATH: reason" with a hint for ZNOAUTH/ZNONODE;
 * returns CLI_EFAIL. */
int cli_zk_fail(struct cli *c, const char *op, const char *path, int rc);
/* 0 when the base path exists; else a message ("run zkelect init") and an exit code. */
int cli_check_group(struct cli *c);
/* The ACL for a znode the CLI creates under the base path: the base path's
 * ACL with every entry that has less than ALL reduced to READ (so: operator
 * ALL, members and world READ). Fills acl (entries up to n); returns the
 * count, or a negative ZooKeeper rc. ids/schemes point into *keep, which the
 * caller frees with deallocate_ACL_vector(). */
int cli_child_acl(struct cli *c, struct ACL_vector *keep, struct ACL *acl, int n);

/* ---- view.c: a snapshot of the group ------------------------------------ */

#define VIEW_MEMBERS    0x01u
#define VIEW_ELECTED    0x02u
#define VIEW_LEADER     0x04u
#define VIEW_CONFIG     0x08u
#define VIEW_SWITCHOVER 0x10u
#define VIEW_ALL        0x1fu
#define VIEW_SUCCESSOR  0x20u   /* the elector's standing succession (not in VIEW_ALL) */

/* The leader znode of one slot: "leader" for slot 0, "leader-<k>" for slot k. */
struct cli_slot {
    bool have;                        /* read and valid (and names this slot) */
    int32_t version;                  /* -1 absent */
    struct zke_leader leader;         /* the znode when have */
};

/* One member: a nodes/<id> record and/or election/<id>_<guid>_<seq>. */
struct cli_member {
    char id[ZKE_ID_MAX + 1];          /* node id */
    bool have_rec;                    /* nodes/<id> read and valid */
    bool bad_rec;                     /* nodes/<id> malformed (see the view's errors) */
    struct zke_member rec;            /* the record when have_rec */
    int64_t rec_version;              /* nodes/<id> data version, -1 absent */
    int64_t seq;                      /* election sequence, -1 when not in election */
    char znode[ZKE_ZNODE_MAX + 1];    /* election znode name, "" none */
    char guid[ZKE_GUID_LEN + 1];      /* its guid, "" none */
};

struct cli_view {
    struct cli_member *members;       /* sorted by node id; owned (view_free) */
    int nmembers;
    char elector[ZKE_ID_MAX + 1];     /* lowest election sequence, "" none */
    int64_t elector_seq;              /* its sequence, -1 none */

    bool have_elected;                /* elected read and valid */
    struct zke_elected elected;
    int32_t elected_version;          /* -1 absent */

    bool have_leader;                 /* leader read and valid */
    struct zke_leader leader;
    int32_t leader_version;           /* -1 absent */

    bool have_config;                 /* config read and valid */
    bool bad_config;                  /* config present but malformed */
    struct zke_config config;
    int32_t config_version;           /* -1 absent */

    bool have_successor;              /* successor read and valid (VIEW_SUCCESSOR) */
    struct zke_successor successor;
    int32_t successor_version;        /* -1 absent */

    bool have_switchover;             /* switchover read and valid */
    bool bad_switchover;              /* present but malformed */
    struct zke_switchover switchover;
    int32_t switchover_version;       /* -1 absent */

    int leaders;                      /* N, the group's slots: config "leaders" when the
                                         config was read and is valid, else the
                                         decision's (elected.nslots + 1); 1 = one leader */
    struct cli_slot slot[ZKE_LEADERS_MAX]; /* with VIEW_LEADER, k < leaders: slot k's
                                         leader znode (slot[0] mirrors have_leader,
                                         leader and leader_version) */

    char errs[CLI_ERR_MAX][384];      /* "znode PATH: codec message" */
    int nerrs;
};

/* Read what `what` asks for (VIEW_*), with watches when watch is set.
 * Returns ZOK, or the ZooKeeper rc of the read that failed (its path in
 * failed_path); malformed data is not a failure: it is recorded in errs. */
int view_load(struct cli *c, struct cli_view *v, unsigned what, bool watch,
              char *failed_path, size_t fplen);
void view_free(struct cli_view *v);
/* Print each recorded problem to stderr; returns the count. */
int view_print_errors(const struct cli_view *v);
/* The member with this id, or NULL. */
const struct cli_member *view_member(const struct cli_view *v, const char *id);
/* "leader", "elector", "member" (leader wins over elector). */
const char *view_role(const struct cli_view *v, const struct cli_member *m);
/* Excluded by the current decision: its entry, or NULL. */
const struct zke_exclusion *view_excluded(const struct cli_view *v, const char *id);
/* The member can lead: record valid, registered, eligible, healthy, not
 * excluded, not drained (by the config, at the CLI's wall clock). */
bool view_can_lead(const struct cli_view *v, const struct cli_member *m);
/* The config's drain of node id, or NULL; *active is set when it has not
 * expired at now_ms (wall clock: display and early refusals only). */
const struct zke_drain *view_drain(const struct cli_view *v, const char *id, int64_t now_ms,
                                   bool *active);
/* Slot k's decision (k < ZKE_LEADERS_MAX): *id ("" = nobody) and *epoch
   (0 when the decision has no such slot). */
void view_slot_decision(const struct cli_view *v, int k, const char **id, uint64_t *epoch);
/* The slot the decision gives node id (0 = the top-level leader), or -1. */
int view_slot_of(const struct cli_view *v, const char *id);
/* Slots whose leader znode is READY, among the v->leaders slots. */
int view_slots_ready(const struct cli_view *v);
/* The site's priority in the config (0 when not listed); *listed set. */
int32_t view_site_priority(const struct cli_view *v, const char *site, bool *listed);

/* ---- out.c: output shared by several commands ---------------------------- */

struct cJSON;

/* The exit code `zkelect leader` gives for this view: CLI_OK (READY),
 * CLI_ENOLEADER, CLI_EPROGRESS; with N > 1 leaders: CLI_OK when every slot
 * is READY, CLI_EPARTIAL when some are, else CLI_EPROGRESS (some slot is
 * taking over) or CLI_ENOLEADER. */
int out_leader_code(const struct cli_view *v);
/* The leader as a JSON object ({"id","status","epoch","site",...}); NULL when
 * out of memory. The caller owns it (cJSON_Delete). */
struct cJSON *out_leader_obj(const struct cli_view *v);
/* Slot k as a JSON object ({"slot","id","status","epoch","site","since_ms",
 * "since","elected":{"id","epoch"},"transition"}); NULL when out of memory. */
struct cJSON *out_slot_obj(const struct cli_view *v, int k);
/* Every slot (0..N-1) as a JSON array; NULL when out of memory. */
struct cJSON *out_slots_arr(const struct cli_view *v);
/* Slot k (>= 1) as one line without the newline: "ID STATUS epoch E site S
 * since T", "none (ID elected at epoch E is taking over)" or "none (no node
 * elected)", with " - transition in progress: ..." when the znode and the
 * decision differ. */
void out_slot_text(const struct cli_view *v, int k, char *out, size_t outlen);
/* One member as a JSON object ({"id","site","priority","role","eligible",
 * "healthy","excluded","seq",...}); NULL when out of memory. */
struct cJSON *out_member_obj(const struct cli_view *v, const struct cli_member *m);
/* Print the leader as `zkelect leader` does (text or --json); returns
 * out_leader_code(v). */
int out_leader(struct cli *c, const struct cli_view *v);
/* Registered members (with an election znode): who counts for "expect". */
int out_live_members(const struct cli_view *v);
/* What the elector waits for (elected.hold) as one line ("settle: waiting
 * for 2 more members (3 of 5), 1.4 s left", "failback: n1 (dc1) may lead in
 * 25 s", "anti-flap: automatic moves blocked for 12 s (then n1 may lead)"),
 * times left from now_ms (wall clock, display only); "" when no hold. */
void out_hold_text(const struct cli_view *v, int64_t now_ms, char *out, size_t outlen);
/* Print a JSON value on stdout and free it; CLI_OK, or CLI_EFAIL (NULL: out
 * of memory). */
int out_json(struct cJSON *o);
/* Wait (watch-driven, until deadline_ms) for a decision that satisfies
 * done(v, arg), then for the READY leader that decision names, and print
 * it like `leader`. done returns 0 (keep waiting), 1 (decision reached) or an
 * exit code > 1 after printing why (e.g. CLI_EREFUSED). what_waiting names
 * what is awaited, for the timeout message. With --json and res != NULL,
 * nothing is printed: res gets "wait" ("ok", "timeout", "refused",
 * "no-eligible", "error") and "leader" (the object, or null); the caller prints it.
 * Returns the exit code. */
int out_wait_decision(struct cli *c, uint64_t deadline_ms, const char *what_waiting,
                      int (*done)(struct cli *, const struct cli_view *, void *), void *arg,
                      struct cJSON *res);
/* The same for slot k of a group with N > 1 leaders: the decision's slot k
 * and the leader-<k> znode (k = 0 is out_wait_decision). */
int out_wait_decision_slot(struct cli *c, uint64_t deadline_ms, const char *what_waiting,
                           int (*done)(struct cli *, const struct cli_view *, void *), void *arg,
                           struct cJSON *res, int k);
/* The end of a command that printed its result (res: the --json object, or
 * NULL): print res with out_json() and return rc, or CLI_EFAIL if rc was
 * CLI_OK and printing failed. */
int out_json_rc(struct cJSON *res, int rc);
/* The end of a command that wrote config version `version`: with --wait
 * (wait_s > 0), out_wait_decision() until the elector has evaluated that
 * version; then out_json_rc(res, ...). Returns the exit code. */
int out_wait_config(struct cli *c, int wait_s, int32_t version, struct cJSON *res);

/* ---- config.c: the config znode, read-modify-write ------------------------ */

#define CONFIG_UNCHANGED (-1)     /* edit(): nothing to change, no write */

/* Read config (creating it when absent), let edit() change it, write it with
 * the version read; retried on ZBADVERSION. edit returns 0 to write,
 * CONFIG_UNCHANGED for "nothing to change" (no write; *version is the
 * current one), or an exit code (CLI_EFAIL, ...) after printing why, which
 * config_update returns. *version receives the version written. */
int config_update(struct cli *c, int (*edit)(struct cli *, struct zke_config *, void *),
                  void *arg, int32_t *version, bool *written);

/* ---- commands (cmd-*.c) ----------------------------------------------------- */

int cmd_status(struct cli *c, int argc, char **argv);
int cmd_leader(struct cli *c, int argc, char **argv);
int cmd_watch(struct cli *c, int argc, char **argv);
int cmd_set_site_priority(struct cli *c, int argc, char **argv);
int cmd_get_site_priority(struct cli *c, int argc, char **argv);
int cmd_switchover(struct cli *c, int argc, char **argv);
int cmd_pause(struct cli *c, int argc, char **argv);
int cmd_resume(struct cli *c, int argc, char **argv);
int cmd_history(struct cli *c, int argc, char **argv);
int cmd_init(struct cli *c, int argc, char **argv);
int cmd_drain(struct cli *c, int argc, char **argv);
int cmd_undrain(struct cli *c, int argc, char **argv);
int cmd_set_delays(struct cli *c, int argc, char **argv);
int cmd_set_leaders(struct cli *c, int argc, char **argv);
int cmd_run(struct cli *c, int argc, char **argv);


#endif /* ZKELECT_CLI_H */
