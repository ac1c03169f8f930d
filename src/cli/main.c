/*
 * main.c - zkelect, the operator CLI: global options, the command table,
 * usage and help texts, dispatch.
 *
 * Order of checks, so that a usage error never waits for ZooKeeper: global
 * options, the command's own arguments (each command parses them first), then
 * the auth file and the hosts, then the connection (cli_connect).
 */
#include "config.h"

#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define CLI_USAGE_GLOBAL \
    "zkelect [-z HOSTS] [-p PATH] [-a AUTHFILE] [--json] [-t TIMEOUT_MS]"

static const struct cli_cmd cli_cmds[] = {
    { "status", "[--json]",
      "members, roles, leader, decision, policy, site priorities",
      "Show the group: every member (id, site, priority, role leader/elector/member,\n"
      "eligible, healthy, excluded, election sequence, host), the leader with its\n"
      "status and epoch, the elector's decision when it differs from the leader\n"
      "(\"transition in progress\"), the policy, the site priorities, whether\n"
      "elections are paused, the delays set in the config (settle, expect,\n"
      "failback, anti-flap), the drains with their time left, what the elector\n"
      "is waiting for (hold: settle, failback or anti-flap, with the time left)\n"
      "and the last switchover request (a scheduled one with its due time).\n"
      "With N > 1 leaders (set-leaders), also N, each slot's leader (slots\n"
      "1..N-1 after the leader of slot 0) and a SLOT column: the slot the\n"
      "decision gives each member.\n"
      "Times left are computed from this host's clock. Malformed znodes are\n"
      "reported on stderr (exit 1) and everything else is still shown.\n",
      cmd_status },
    { "leader", "[--json]",
      "the leader: id, status, epoch, site",
      "Print the leader: id, status (PROGRESS or READY), epoch and site.\n"
      "Exit 0 when a READY leader exists, 3 when there is none, 4 when it is\n"
      "still taking over (PROGRESS).\n"
      "With N > 1 leaders (set-leaders), slot 0's leader as above, then one line\n"
      "per slot (\"slot K: ...\") and \"R of N slots READY\"; --json adds\n"
      "\"leaders\", \"ready\" and \"slots\". Exit 0 when all N slots are READY,\n"
      "7 when some but not all are, else 4 when some slot is taking over, 3 when\n"
      "no slot has a leader.\n",
      cmd_leader },
    { "watch", "[--json]",
      "print every leader, decision and member change until interrupted",
      "Print the current state, then every change of the leader, the elector's\n"
      "decision (with the elector's hold), the members and the config (with the\n"
      "delays and drains) as it happens, each line with the local time, until\n"
      "SIGINT or SIGTERM (exit 0). With --json, one JSON object per line.\n"
      "With N > 1 leaders, each slot's leader too (\"leader slot K ...\", JSON\n"
      "\"slot\": K) and the decision's slots. Survives reconnects and session\n"
      "expiry.\n",
      cmd_watch },
    { "set-site-priority", "SITE N [--wait[=SECONDS]]",
      "set a site's priority in the config (compare-and-set)",
      "Set the priority of SITE to N (an integer from -1000000 to 1000000) in the\n"
      "config znode (created when absent), with compare-and-set. A site with\n"
      "priority <= 0 never leads under the site policy. With --wait (default 30 s),\n"
      "wait until the elector has evaluated this config version and the leader it\n"
      "names is READY, then print it like `leader`; exit 6 when no node is\n"
      "eligible, 5 on timeout.\n",
      cmd_set_site_priority },
    { "set-delays", "[--expect N] [--settle-ms MS] [--failback-delay-ms MS]\n"
      "        [--min-move-interval-ms MS] [--wait[=SECONDS]]",
      "change the cold-start, failback and anti-flap delays in the config",
      "Change the delays in the config znode of an existing group (compare-and-set;\n"
      "init sets them only when it creates the config): --expect N members\n"
      "expected at a cold start (1..10000), --settle-ms MS the longest wait for\n"
      "them (0..3600000, 0 = none), --failback-delay-ms MS and\n"
      "--min-move-interval-ms MS (0..86400000). The value \"default\" removes the\n"
      "setting: each node's own default applies again. At least one option.\n"
      "--wait as for set-site-priority.\n",
      cmd_set_delays },
    { "set-leaders", "N [--wait[=SECONDS]]",
      "set the number of active leaders (slots) in the config",
      "Set N, the number of active leaders (slots) of the group, 1 to 16, in the\n"
      "config znode (created when absent), with compare-and-set. Slot 0 is the\n"
      "leader of a one-leader group; each slot has its own leader znode\n"
      "(leader, leader-1, ...), takeover and epoch, and a node holds at most one\n"
      "slot. N above 1 is refused (exit 6) when a member cannot serve it: its\n"
      "record says the largest N it can (a record without it comes from a\n"
      "release without slots: 1); the refusal names those members. There is no\n"
      "--force: upgrade or stop them first. --wait as for set-site-priority\n"
      "(the elector has evaluated this config version and slot 0's leader is\n"
      "READY).\n",
      cmd_set_leaders },
    { "get-site-priority", "[SITE]",
      "print the site priorities (or one site's)",
      "Print every site priority of the config, or SITE's (0 when not listed).\n",
      cmd_get_site_priority },
    { "switchover", "[--from NODE] [--to NODE | --site SITE] [--at TIME] [--wait[=SECONDS]]\n"
      "        zkelect switchover --cancel [--wait[=SECONDS]]",
      "move leadership (planned handover), now or at a time",
      "Ask the elector to move leadership through the normal two-phase handover,\n"
      "to NODE, to the best node of SITE, or, without either, to the best other\n"
      "node. Refused (exit 6) when NODE is unknown, is not eligible or healthy,\n"
      "is excluded or drained, or already leads; when SITE has no registered\n"
      "node, no node of SITE can lead, or the leader is on SITE already; or when\n"
      "no other node can lead.\n"
      "--at TIME schedules it: TIME is RFC 3339 with Z or an offset\n"
      "(2026-11-26T03:00:00Z, 2026-11-26T05:00:00+02:00) or +DURATION from now\n"
      "(+90s, +15m, +2h, +1d, +1h30m), in the future and at most 7 days ahead.\n"
      "The elector acts on it within about a second of that time, on its own\n"
      "monotonic clock from when it read the request. Refused (exit 6) while\n"
      "elections are paused: a scheduled switchover would not fire. For a\n"
      "scheduled request only an unknown NODE or SITE is refused at once; the\n"
      "elector checks the rest at the time. A new request replaces a pending one.\n"
      "--cancel cancels the pending scheduled switchover (exit 1 when there is\n"
      "none); the elector acknowledges it and moves nothing.\n"
      "--from NODE (N > 1 leaders) moves the slot NODE holds instead of slot 0:\n"
      "refused (exit 6) when the decision gives NODE no slot; the target (--to,\n"
      "a node of --site, or the best other node) must hold no slot.\n"
      "A request for now, without --site, to the node the elector has recorded\n"
      "as where a switchover goes (zkelect status: \"a switchover goes there\n"
      "directly\"), or to nobody in particular, is written as the decision itself,\n"
      "checked against the elector's view in one write (\"decided\"); if\n"
      "anything changed meanwhile, or the group's ACLs keep the operator from\n"
      "writing the decision, it is a request as before (\"requested\").\n"
      "With --wait (default 30 s; with --at, counted from the due time), wait\n"
      "until the elector has acted on the request: print the new READY leader,\n"
      "or the elector's reason and exit 6 when it refused; 5 on timeout.\n",
      cmd_switchover },
    { "drain", "NODE [--for DURATION] [--reason TEXT] [--wait[=SECONDS]]",
      "keep NODE from leading for a while (a drained leader hands over)",
      "Drain NODE in the config (compare-and-set): every elector treats it as not\n"
      "eligible until the drain ends, and moves it away through the normal\n"
      "handover when it leads. DURATION: 90s, 15m, 2h, 1d, 5000ms or 1h30m\n"
      "(a unit is required), 1 s to 7 d, default 1h; the drain then ends by\n"
      "itself. TEXT: why, at most 159 bytes on one line. NODE must be a member\n"
      "of the group or drained already; draining it again replaces its drain.\n"
      "Expired drains of other nodes are removed from the config on the way.\n"
      "--wait as for set-site-priority.\n",
      cmd_drain },
    { "undrain", "NODE [--wait[=SECONDS]]",
      "end NODE's drain now",
      "Remove NODE's drain from the config (compare-and-set); exit 1 when NODE\n"
      "is not drained. An expired drain still listed is removed too. --wait as\n"
      "for set-site-priority.\n",
      cmd_undrain },
    { "pause", "[--wait[=SECONDS]]",
      "pause elections: no leadership change unless the leader is lost",
      "Set config.paused (compare-and-set). While paused the elector makes no\n"
      "leadership change except when the leader is lost or an operator asks for a\n"
      "switchover; config changes are acknowledged but not acted on. --wait as\n"
      "for set-site-priority.\n",
      cmd_pause },
    { "resume", "[--wait[=SECONDS]]",
      "resume elections",
      "Clear config.paused (compare-and-set); the elector then re-evaluates the\n"
      "group. --wait as for set-site-priority.\n",
      cmd_resume },
    { "history", "[-n N] [--json]",
      "the last decisions, newest last",
      "Print the last decisions (at most 64 are kept): time, epoch, leader,\n"
      "elector, policy, reason, newest last. -n N shows the last N (1..64).\n"
      "When a decision concerns a slot other than 0 (N > 1 leaders), every\n"
      "entry shows its slot (a SLOT column; \"slot\" in --json).\n",
      cmd_history },
    { "init", "[--policy NAME] [--site SITE=PRIO ...] [--leaders N] [--expect N]\n"
      "        [--settle-ms MS] [--failback-delay-ms MS] [--min-move-interval-ms MS]\n"
      "        [--operator-auth FILE] [--member-auth FILE] [--world-read | --no-world-read]",
      "create the group's znodes and config, with digest ACLs",
      "Create the base path, nodes, election and config (policy NAME, the sites\n"
      "given, and the delays given: --expect N members expected at a cold start\n"
      "(1..10000), --settle-ms MS the longest wait for them before the first\n"
      "decision (0..3600000, 0 = none), --failback-delay-ms MS how long a better\n"
      "node must be up before it takes leadership back, --min-move-interval-ms MS\n"
      "the least time between automatic moves (both 0..86400000); without one,\n"
      "each node's own default applies; --leaders N the number of active\n"
      "leaders, 1..16, default 1). Existing znodes are left alone and reported:\n"
      "on an existing group these options are not applied (a note says so on\n"
      "stderr; set-delays changes the delays, set-leaders the number of leaders).\n"
      "With --operator-auth and --member-auth (files holding \"user:password\",\n"
      "mode 0600), set digest\n"
      "ACLs: the operator gets ALL everywhere; members get READ|CREATE|DELETE on\n"
      "the base path, nodes and election and READ on config (and on switchover,\n"
      "which the CLI creates later); the world gets READ (--world-read, the\n"
      "default) or nothing (--no-world-read). The CLI authenticates as the\n"
      "operator for this command; later writes need -a with the operator's file.\n",
      cmd_init },
    { "run", "[--id ID] [--site SITE] [--priority N] [--session-timeout MS]\n"
      "        [--stop-timeout MS] [--ready-check CMD] [--ready-timeout MS] -- COMMAND [ARGS...]",
      "join the group and run COMMAND only while this node leads",
      "Join the group as a candidate (node id ID, default the host name; SITE and\n"
      "priority N as for zkelectd) and run COMMAND only while this node leads.\n"
      "COMMAND starts when this node takes over (leader PROGRESS); the takeover\n"
      "completes (READY) once COMMAND has started or, with --ready-check, once the\n"
      "shell command CMD exits 0 (run every 250 ms; the takeover fails if it does\n"
      "not succeed within --ready-timeout, default 10000 ms). COMMAND gets\n"
      "ZKELECT_EPOCH, ZKELECT_NODE_ID, ZKELECT_GROUP, ZKELECT_PREVIOUS and\n"
      "ZKELECT_SITE in its environment.\n"
      "When leadership ends (step-down, connection lost, session expired) or on\n"
      "SIGINT, SIGTERM or SIGHUP, COMMAND's process group gets SIGTERM, then SIGKILL\n"
      "after --stop-timeout (default 10000 ms); the leader znode is released only\n"
      "once COMMAND and what it started have exited. COMMAND runs in a process group\n"
      "led by a leash that kills all of it if zkelect run dies (even of SIGKILL).\n"
      "When COMMAND exits by itself (failing: at once; with 0: once what it started\n"
      "has ended too), zkelect run resigns and exits with its status (128 + N when\n"
      "killed by signal N);\n"
      "stopped by a signal, it exits 128 + that signal. COMMAND not found: exit\n"
      "127; not executable: 126. --session-timeout MS: the ZooKeeper session\n"
      "timeout (default 10000; the server may clamp it).\n",
      cmd_run },
};
#define CLI_NCMDS (sizeof(cli_cmds) / sizeof(cli_cmds[0]))

static const char cli_exit_text[] =
"Exit status:\n"
"  0  success\n"
"  1  operational error: ZooKeeper unreachable or failing, not authorized,\n"
"     group missing, malformed znode data, auth file refused\n"
"  2  usage error: unknown command or option, bad argument\n"
"  3  no leader\n"
"  4  the leader is taking over (PROGRESS, not READY)\n"
"  5  --wait timed out\n"
"  6  refused: the node cannot lead, no eligible node after the change\n"
"  7  leader with N > 1 leaders: some slots READY, not all\n"
"run exits with COMMAND's status instead (see zkelect run --help).\n";

void
cli_err(const char *fmt, ...)
{
    va_list ap;

    fflush(stdout);
    fputs("zkelect: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

static void
cli_usage_line(FILE *f, const struct cli_cmd *cmd)
{
    if (cmd == NULL)
        fprintf(f, "usage: " CLI_USAGE_GLOBAL " COMMAND [ARGS]\n");
    else
        fprintf(f, "usage: " CLI_USAGE_GLOBAL " %s%s%s\n", cmd->name,
                *cmd->args ? " " : "", cmd->args);
}

int
cli_usage_err(struct cli *c, const char *fmt, ...)
{
    va_list ap;

    fflush(stdout);
    cli_usage_line(stderr, c->cmd);
    fprintf(stderr, "zkelect%s%s: ", c->cmd ? " " : "", c->cmd ? c->cmd->name : "");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return CLI_EUSAGE;
}

int
cli_cmd_help(struct cli *c)
{
    cli_usage_line(stdout, c->cmd);
    printf("\n%s\n", c->cmd->help);
    printf("Every command also takes --json (machine-readable output) and --help.\n"
           "Global options: zkelect --help.\n\n%s", cli_exit_text);
    return CLI_OK;
}

static void
cli_help(void)
{
    size_t i;

    cli_usage_line(stdout, NULL);
    printf("\nOperate a zkelect election group on ZooKeeper.\n\n"
"Global options:\n"
"  -z, --hosts HOSTS     ZooKeeper servers: host:port[,host:port...][/chroot]\n"
"                        (default $ZKELECT_HOSTS; required)\n"
"  -p, --path PATH       the group's base path (default $ZKELECT_PATH, else /cluster)\n"
"  -a, --auth-file FILE  digest credential \"user:password\" in FILE, mode 0600 or\n"
"                        stricter (default $ZKELECT_AUTH_FILE); never on argv\n"
"      --json            machine-readable output\n"
"  -t, --timeout MS      connect deadline in milliseconds (default 10000); a\n"
"                        port every server refuses fails within about 1 s\n"
"  -h, --help            this text; zkelect COMMAND --help for a command's\n"
"  -V, --version         print the version\n"
"\nCommands:\n");
    for (i = 0; i < CLI_NCMDS; i++)
        printf("  %-19s %s\n", cli_cmds[i].name, cli_cmds[i].summary);
    printf("\n%s", cli_exit_text);
}

static const struct cli_cmd *
cli_find(const char *name)
{
    size_t i;

    for (i = 0; i < CLI_NCMDS; i++)
        if (strcmp(cli_cmds[i].name, name) == 0)
            return &cli_cmds[i];
    return NULL;
}

int
main(int argc, char **argv)
{
    static const struct option lopts[] = {
        { "hosts", required_argument, NULL, 'z' },
        { "path", required_argument, NULL, 'p' },
        { "auth-file", required_argument, NULL, 'a' },
        { "timeout", required_argument, NULL, 't' },
        { "json", no_argument, NULL, CLI_OPT_JSON },
        { "help", no_argument, NULL, 'h' },
        { "version", no_argument, NULL, 'V' },
        { NULL, 0, NULL, 0 }
    };
    struct cli c;
    const char *path = NULL, *name;
    long long v;
    int ch, rc, cmdind;

    memset(&c, 0, sizeof(c));
    c.prog = "zkelect";
    c.timeout_ms = CLI_TIMEOUT_MS;
    c.efd = -1;
    c.sigfd = -1;

    opterr = 0;
    while ((ch = getopt_long(argc, argv, "+:z:p:a:t:hV", lopts, NULL)) != -1) {
        switch (ch) {
        case 'z':
            c.hosts = optarg;
            break;
        case 'p':
            path = optarg;
            break;
        case 'a':
            c.auth_file = optarg;
            break;
        case 't':
            if (cli_parse_int(optarg, 100, 3600000, &v) != 0)
                return cli_usage_err(&c, "-t: \"%s\" is not a timeout in milliseconds "
                                     "(an integer from 100 to 3600000)", optarg);
            c.timeout_ms = (int)v;
            break;
        case CLI_OPT_JSON:
            c.json = true;
            break;
        case 'h':
            cli_help();
            return CLI_OK;
        case 'V':
            printf("zkelect %s\n", PACKAGE_VERSION);
            return CLI_OK;
        case ':':
            return cli_usage_err(&c, "option %s needs an argument", argv[optind - 1]);
        default:
            if (optopt)
                return cli_usage_err(&c, "unknown option -%c", optopt);
            return cli_usage_err(&c, "unknown option %s", argv[optind - 1]);
        }
    }
    if (optind >= argc)
        return cli_usage_err(&c, "no command given (see zkelect --help)");
    name = argv[optind];
    if (strcmp(name, "help") == 0) {
        if (optind + 1 < argc) {
            if ((c.cmd = cli_find(argv[optind + 1])) == NULL) {
                c.cmd = NULL;
                return cli_usage_err(&c, "unknown command \"%s\" (see zkelect --help)",
                                     argv[optind + 1]);
            }
            return cli_cmd_help(&c);
        }
        cli_help();
        return CLI_OK;
    }
    if ((c.cmd = cli_find(name)) == NULL) {
        char esc[128];
        cli_escape(name, esc, sizeof(esc));
        return cli_usage_err(&c, "unknown command \"%s\" (see zkelect --help)", esc);
    }

    if (path == NULL)
        path = getenv("ZKELECT_PATH");
    if (path == NULL || *path == '\0')
        path = "/cluster";
    if (cli_set_path(&c, path) != 0) {
        char esc[128];
        cli_escape(path, esc, sizeof(esc));
        return cli_usage_err(&c, "-p: \"%s\" is not a valid base path (absolute, no trailing "
                             "or double slash, no . or .. component, at most %d bytes)",
                             esc, CLI_BASE_MAX);
    }
    if (c.hosts == NULL)
        c.hosts = getenv("ZKELECT_HOSTS");
    if (c.auth_file == NULL) {
        const char *e = getenv("ZKELECT_AUTH_FILE");
        if (e && *e)
            c.auth_file = e;
    }

    /* the command's argv starts at its name, so getopt sees argv[0] = name */
    cmdind = optind;
    optind = 0;
    rc = c.cmd->run(&c, argc - cmdind, argv + cmdind);
    cli_close(&c);
    cli_secret_free(c.auth);
    cli_secret_free(c.extra_auth);
    fflush(stdout);
    if (ferror(stdout)) {
        cli_err("cannot write the output");
        if (rc == CLI_OK)
            rc = CLI_EFAIL;
    }
    return rc;
}
