/*
 * bench.c - zkbench: planned handover latency against the ZooKeeper round
 * trip floor, and crash failover times, on a real 3-server ensemble.
 *
 * usage: zkbench [-SFJRv] [-o DIR] [-n N] [-H N] [-w N] [-c N] [-t MS,...]
 *                [-E N] [-e MS] [-T MS] [-g MS] [-x SECTIONS] [-p POLICIES]
 *                [-P DIR] [-N PATH] [-L FILE] [-M N,...] [-K N] [-G N,...]
 *                [-I SECONDS] [-Z PATH] [-r N] [-D SECONDS]
 *
 * It starts its own servers through the test harness, prints a table per
 * section on stdout and writes CSV files (every sample, and summary.csv)
 * into the -o directory. See bench/README for what each figure means.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "bench.h"

struct bench_opts bopt;
struct floor_parts ensemble_floor;

static const char *prog = "zkbench";
static char node_prog_buf[PATH_MAX];
static char swarm_prog_buf[PATH_MAX];
static char policies_buf[256];
static const char *policies[4];
static int npolicies;

/* ---- small helpers ------------------------------------------------------- */

void
pace_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};

    while (ms > 0 && nanosleep(&ts, &ts) == -1 && errno == EINTR)
        ;
}

void
vlog(const char *fmt, ...)
{
    va_list ap;

    if (!bopt.verbose)
        return;
    fprintf(stderr, "%s: ", prog);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n");
}

void
warnx_(const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, "%s: warning: ", prog);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n");
}

/* ---- the TARGETS table (issue 18) ---------------------------------------- */

#define MAX_TARGETS 32

static struct {
    char target[96];
    char measured[96];
    int met;                        /* 1 met, 0 NOT met, -1 not judged */
} targets[MAX_TARGETS];
static int ntargets;

void
target_add(const char *target, const char *measured, int met)
{
    if (ntargets == MAX_TARGETS)
        return;
    snprintf(targets[ntargets].target, sizeof(targets[0].target), "%s", target);
    snprintf(targets[ntargets].measured, sizeof(targets[0].measured), "%s", measured);
    targets[ntargets].met = met;
    ntargets++;
    summary_csv_value("targets", target, met, met < 0 ? "not judged" : "1 = met");
}

/* Every target a section that ran has judged, in the order they came. */
static void
targets_print(void)
{
    int i, met = 0, judged = 0;

    if (ntargets == 0)
        return;
    printf("\nTARGETS (issue 18; 3-server ensemble, forceSync=yes, same run)\n");
    if (!bopt.force_sync)
        printf("  (this run has forceSync=no (-F): the targets are set for forceSync=yes)\n");
    printf("  %-56s %-60s %s\n", "target", "measured", "");
    for (i = 0; i < ntargets; i++) {
        printf("  %-56s %-60s %s\n", targets[i].target, targets[i].measured,
            targets[i].met > 0 ? "met" : targets[i].met == 0 ? "NOT met" : "-");
        judged += targets[i].met >= 0;
        met += targets[i].met > 0;
    }
    printf("  %d of %d judged target(s) met\n", met, judged);
    fflush(stdout);
}

static void
usage(int status)
{
    FILE *f = status ? stderr : stdout;

    fprintf(f,
        "usage: %s [-SFJRvA] [-o DIR] [-n N] [-H N] [-w N] [-c N] [-t MS,...] [-E N] [-e MS]\n"
        "               [-T MS] [-g MS] [-x SECTIONS] [-p POLICIES] [-P DIR] [-N PATH]\n"
        "               [-L FILE] [-M N,...] [-K N] [-G N,...] [-I SECONDS] [-Z PATH]\n"
        "               [-r N] [-D SECONDS]\n"
        "  -o DIR      CSV output directory (default bench-results)\n"
        "  -n N        samples per bare ZooKeeper operation (default 300)\n"
        "  -H N        graceful-leave handovers per policy (default 300)\n"
        "  -w N        switchovers (default 200)\n"
        "  -c N        leader crash runs per session timeout (default 20)\n"
        "  -t MS,...   session timeouts of the crash runs (default 2000,4000,10000)\n"
        "  -E N        elector crash runs (default 20)\n"
        "  -e MS       session timeout of the elector crash runs (default 2000)\n"
        "  -T MS       session timeout of the handover nodes (default 10000)\n"
        "  -g MS       pause between samples (default 50)\n"
        "  -x LIST     sections: rtt,handover,switchover,crash,elector,scale,groups,\n"
        "              footprint,restart or all (default all)\n"
        "  -p LIST     handover policies: nodeid,roundrobin (default both)\n"
        "  -S          also measure rtt, handover and switchover on a standalone server\n"
        "  -A          switchovers go through the elector (a request only: no direct\n"
        "              decision from the elector's succession, as before it existed)\n"
        "  -Q          handover and switchover nodes follow nothing, as zkelectd's members\n"
        "              without a notify hook or event log (ZKELECT_GROUP_NO_LEADER_EVENTS)\n"
        "  -F          forceSync=no on the servers (default: yes, ZooKeeper's default)\n"
        "  -J          servers with the JVM's default JIT (the harness limits it to C1)\n"
        "  -P DIR      policy modules directory (default: the build tree's)\n"
        "  -N PATH     the node program (default: zkbench-node next to zkbench)\n"
        "  -L FILE     write the library's debug log and a trace of its ZooKeeper\n"
        "              requests (in-process nodes, µs times) to FILE\n"
        "  -R          diagnosis: no host re-resolution on every I/O loop turn of the\n"
        "              ZooKeeper client (zoo_set_servers_resolution_delay(-1)), all handles\n"
        "  -M N,...    members of the scale runs (default 10,100,1000)\n"
        "  -K N        leader changes per scale run (default 20); 5b: N/2 of each kind\n"
        "  -G N,...    groups on one handle (default 1,100,1000,10000)\n"
        "  -I SECONDS  idle time of the footprint section (default 60)\n"
        "  -Z PATH     zkelectd for the footprint and restart sections (default: the\n"
        "              build tree's)\n"
        "  -r N        kill -9 + restart runs of the restart section (default 20)\n"
        "  -D SECONDS  stop everything after this long (default 3600)\n"
        "  -v          progress on stderr\n", prog);
    exit(status);
}

static unsigned
parse_sections(const char *s)
{
    static const struct { const char *name; unsigned bit; } names[] = {
        {"rtt", SEC_RTT}, {"handover", SEC_HANDOVER}, {"switchover", SEC_SWITCHOVER},
        {"crash", SEC_CRASH}, {"elector", SEC_ELECTOR}, {"scale", SEC_SCALE},
        {"groups", SEC_GROUPS}, {"footprint", SEC_FOOTPRINT},
        {"restart", SEC_RESTART}, {"all", SEC_ALL},
    };
    char buf[256], *tok, *save = NULL;
    unsigned bits = 0;
    size_t i;

    snprintf(buf, sizeof(buf), "%s", s);
    for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
            if (strcmp(tok, names[i].name) == 0)
                break;
        if (i == sizeof(names) / sizeof(names[0])) {
            fprintf(stderr, "%s: -x: unknown section '%s' (known: rtt, handover, switchover, "
                "crash, elector, scale, groups, footprint, restart, all)\n", prog, tok);
            exit(2);
        }
        bits |= names[i].bit;
    }
    if (bits == 0) {
        fprintf(stderr, "%s: -x: no section named\n", prog);
        exit(2);
    }
    return bits;
}

static void
parse_timeouts(const char *s)
{
    char buf[256], *tok, *save = NULL;

    snprintf(buf, sizeof(buf), "%s", s);
    bopt.ntimeouts = 0;
    for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (bopt.ntimeouts == (int)(sizeof(bopt.timeouts_ms) / sizeof(bopt.timeouts_ms[0]))) {
            fprintf(stderr, "%s: -t: at most 8 session timeouts\n", prog);
            exit(2);
        }
        bopt.timeouts_ms[bopt.ntimeouts++] = opt_num(prog, 't', tok, 400, 60000);
    }
    if (bopt.ntimeouts == 0) {
        fprintf(stderr, "%s: -t: no session timeout given\n", prog);
        exit(2);
    }
}

/* A comma-separated list of at most 8 integers from min to max. */
static int
parse_list(int opt, const char *s, int *out, long min, long max)
{
    char buf[256], *tok, *save = NULL;
    int n = 0;

    snprintf(buf, sizeof(buf), "%s", s);
    for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (n == 8) {
            fprintf(stderr, "%s: -%c: at most 8 values\n", prog, opt);
            exit(2);
        }
        out[n++] = opt_num(prog, opt, tok, min, max);
    }
    if (n == 0) {
        fprintf(stderr, "%s: -%c: no value given\n", prog, opt);
        exit(2);
    }
    return n;
}

static void
parse_policies(const char *s)
{
    char *tok, *save = NULL;

    snprintf(policies_buf, sizeof(policies_buf), "%s", s);
    npolicies = 0;
    for (tok = strtok_r(policies_buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (strcmp(tok, "nodeid") != 0 && strcmp(tok, "roundrobin") != 0) {
            fprintf(stderr, "%s: -p: policy '%s' does not rotate the leader; use nodeid "
                "and/or roundrobin\n", prog, tok);
            exit(2);
        }
        if (npolicies == 4) {
            fprintf(stderr, "%s: -p: at most 4 policies\n", prog);
            exit(2);
        }
        policies[npolicies++] = tok;
    }
    if (npolicies == 0) {
        fprintf(stderr, "%s: -p: no policy given\n", prog);
        exit(2);
    }
}

static int
mkdirs(const char *path)
{
    char buf[PATH_MAX], *p;

    snprintf(buf, sizeof(buf), "%s", path);
    for (p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(buf, 0777) == -1 && errno != EEXIST)
            return -1;
        *p = '/';
    }
    if (mkdir(buf, 0777) == -1 && errno != EEXIST)
        return -1;
    return 0;
}

/* ---- the machine --------------------------------------------------------- */

static void
read_first(const char *file, const char *key, char *out, size_t len)
{
    char line[512];
    FILE *f = fopen(file, "r");
    char *v;

    snprintf(out, len, "?");
    if (f == NULL)
        return;
    while (fgets(line, sizeof(line), f)) {
        if (key && strncmp(line, key, strlen(key)) != 0)
            continue;
        v = key ? strchr(line, ':') : line;
        if (v == NULL)
            continue;
        v += key ? 1 : 0;
        while (*v == ' ' || *v == '\t')
            v++;
        v[strcspn(v, "\n")] = '\0';
        snprintf(out, len, "%s", v);
        break;
    }
    fclose(f);
}

static char start_load[128];

static void
machine(FILE *f, const char *when)
{
    char cpu[256], memt[64], mema[64], load[128];
    struct utsname u;

    read_first("/proc/loadavg", NULL, load, sizeof(load));
    if (when) {
        fprintf(f, "load average (%s): %s\n", when, load);
        return;
    }
    if (start_load[0] == '\0')
        snprintf(start_load, sizeof(start_load), "%s", load);
    read_first("/proc/cpuinfo", "model name", cpu, sizeof(cpu));
    read_first("/proc/meminfo", "MemTotal", memt, sizeof(memt));
    read_first("/proc/meminfo", "MemAvailable", mema, sizeof(mema));
    uname(&u);
    fprintf(f, "machine: %ld CPUs (nproc), %s, memory %.1f GiB total / %.1f GiB available, "
        "Linux %s\n", sysconf(_SC_NPROCESSORS_ONLN), cpu, atof(memt) / 1048576.0,
        atof(mema) / 1048576.0, u.release);
    fprintf(f, "load average (start): %s\n", start_load);
#if defined(__SANITIZE_ADDRESS__)
    fprintf(f, "build: AddressSanitizer (figures are slower than a plain build)\n");
#else
    fprintf(f, "build: no sanitizers\n");
#endif
}

/* ---- CPU time ------------------------------------------------------------ */

/* utime + stime of a process from /proc/PID/stat, in ms; -1 when unknown. */
static double
proc_cpu_ms(pid_t pid)
{
    char path[64], buf[1024], *p;
    unsigned long long ut, st;
    FILE *f;
    size_t n;

    if (pid > 0)
        snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
    else
        snprintf(path, sizeof(path), "/proc/self/stat");
    if ((f = fopen(path, "r")) == NULL)
        return -1;
    n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    /* after "(comm)": state ppid pgrp session tty tpgid flags minflt cminflt
       majflt cmajflt utime stime */
    if ((p = strrchr(buf, ')')) == NULL ||
        sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) != 2)
        return -1;
    return (double)(ut + st) * 1000.0 / (double)sysconf(_SC_CLK_TCK);
}

void
cpu_sample(struct zkh *z, struct cputime *out)
{
    double t;
    int i;

    out->self_ms = proc_cpu_ms(0);
    out->servers_ms = 0;
    for (i = 0; z && i < zkh_nservers(z); i++) {
        if ((t = proc_cpu_ms(zkh_pid(z, i))) < 0) {
            out->servers_ms = -1;
            break;
        }
        out->servers_ms += t;
    }
}

/* ---- servers ------------------------------------------------------------- */

/*
 * -J: the harness starts its JVMs with -XX:TieredStopAtLevel=1 (C1 only:
 * quick to start, slower code). Give it, as $JAVA, a wrapper that drops
 * that flag, so that the servers run with the JVM's default JIT.
 */
static int
java_c2(void)
{
    static char script[PATH_MAX];
    const char *java = getenv("JAVA");
    char cwd[PATH_MAX];
    FILE *f;

    if (bopt.outdir[0] == '/')
        snprintf(script, sizeof(script), "%s/java-c2", bopt.outdir);
    else if (getcwd(cwd, sizeof(cwd)) != NULL)
        snprintf(script, sizeof(script), "%s/%s/java-c2", cwd, bopt.outdir);
    else {
        fprintf(stderr, "%s: -J: getcwd: %s\n", prog, strerror(errno));
        return -1;
    }
    if ((f = fopen(script, "w")) == NULL) {
        fprintf(stderr, "%s: -J: %s: %s\n", prog, script, strerror(errno));
        return -1;
    }
    fprintf(f, "#!/bin/sh\n"
        "# written by zkbench -J: the harness's JVM flags without -XX:TieredStopAtLevel=1\n"
        "for a; do shift; [ \"$a\" = -XX:TieredStopAtLevel=1 ] || set -- \"$@\" \"$a\"; done\n"
        "exec '%s' \"$@\"\n", java && *java ? java : "java");
    if (fclose(f) != 0 || chmod(script, 0755) != 0) {
        fprintf(stderr, "%s: -J: %s: %s\n", prog, script, strerror(errno));
        return -1;
    }
    setenv("JAVA", script, 1);
    return 0;
}

static struct zkh *
servers(int n)
{
    struct zkh_opts o;
    struct zkh *z;
    int max = 20000, i;

    for (i = 0; i < bopt.ntimeouts; i++)
        if (bopt.timeouts_ms[i] * 2 > max)
            max = bopt.timeouts_ms[i] * 2;
    if (bopt.elector_timeout_ms * 2 > max)
        max = bopt.elector_timeout_ms * 2;
    if (bopt.handover_session_ms * 2 > max)
        max = bopt.handover_session_ms * 2;
    zkh_opts_init(&o);
    o.nservers = n;
    o.max_session_ms = max;
    o.force_sync = bopt.force_sync;
    /* 10,000 groups are some 100,000 znodes and their watches (section 6) */
    o.heap_mb = 512;
    vlog("starting %d ZooKeeper server(s), forceSync=%s, -Xmx%dm", n,
        o.force_sync ? "yes" : "no", o.heap_mb);
    if (zkh_start(&o, &z) == -1)
        return NULL;
    return z;
}

static void
server_version(struct zkh *z, FILE *f)
{
    char buf[2048], *v;

    if (zkh_4lw(z, 0, "srvr", buf, sizeof(buf)) > 0 && (v = strstr(buf, "version: ")) != NULL) {
        v += 9;
        v[strcspn(v, "\r\n")] = '\0';
        fprintf(f, "ZooKeeper server %s; tickTime 200 ms; forceSync=%s\n", v,
            bopt.force_sync ? "yes" : "no");
        fprintf(f, "JVM JIT: %s\n", bopt.jit_c2 ? "default (C1 + C2), -J" :
            "C1 only (the harness's -XX:TieredStopAtLevel=1)");
        if (bopt.no_resolve)
            fprintf(f, "-R: every client handle: zoo_set_servers_resolution_delay(-1)\n");
    }
}

/* ---- main ---------------------------------------------------------------- */

static bool
policy_present(const char *name)
{
    char path[PATH_MAX];

    if (bopt.policy_dir == NULL)
        return true; /* the library searches ZKELECT_POLICY_PATH and its own directory */
    snprintf(path, sizeof(path), "%s/%s.so", bopt.policy_dir, name);
    return access(path, R_OK) == 0;
}

int
main(int argc, char **argv)
{
    struct floor_parts fp, fps;
    struct zkh *z = NULL, *zs = NULL;
    FILE *mf;
    char path[PATH_MAX], *slash;
    const char *env;
    int c, i, deadline_s = 3600, rc = 0;
    ssize_t len;

    bopt.outdir = "bench-results";
    bopt.rtt_samples = 300;
    bopt.handovers = 300;
    bopt.switchovers = 200;
    bopt.crash_runs = 20;
    bopt.timeouts_ms[0] = 2000;
    bopt.timeouts_ms[1] = 4000;
    bopt.timeouts_ms[2] = 10000;
    bopt.ntimeouts = 3;
    bopt.elector_runs = 20;
    bopt.elector_timeout_ms = 2000;
    bopt.handover_session_ms = 10000;
    bopt.gap_ms = 50;
    bopt.sections = SEC_ALL;
    bopt.force_sync = true;
    parse_policies("nodeid,roundrobin");
    bopt.nscale = parse_list('M', "10,100,1000", bopt.scale_sizes, 2, 100000);
    bopt.ngroup_counts = parse_list('G', "1,100,1000,10000", bopt.group_counts, 1, 1000000);
    bopt.idle_s = 60;
    bopt.restart_runs = 20;
    bopt.scale_changes = 20;

    while ((c = getopt(argc, argv, "o:n:H:w:c:t:E:e:T:g:x:p:SQAFJRP:N:L:D:M:K:G:I:Z:r:vh")) != -1) {
        switch (c) {
        case 'o': bopt.outdir = optarg; break;
        case 'n': bopt.rtt_samples = opt_num(prog, c, optarg, 1, 1000000); break;
        case 'H': bopt.handovers = opt_num(prog, c, optarg, 1, 1000000); break;
        case 'w': bopt.switchovers = opt_num(prog, c, optarg, 1, 1000000); break;
        case 'c': bopt.crash_runs = opt_num(prog, c, optarg, 1, 10000); break;
        case 't': parse_timeouts(optarg); break;
        case 'E': bopt.elector_runs = opt_num(prog, c, optarg, 1, 10000); break;
        case 'e': bopt.elector_timeout_ms = opt_num(prog, c, optarg, 400, 60000); break;
        case 'T': bopt.handover_session_ms = opt_num(prog, c, optarg, 400, 60000); break;
        case 'g': bopt.gap_ms = opt_num(prog, c, optarg, 0, 60000); break;
        case 'x': bopt.sections = parse_sections(optarg); break;
        case 'p': parse_policies(optarg); break;
        case 'S': bopt.standalone = true; break;
        case 'Q': bopt.quiet = true; break;
        case 'A': bopt.no_direct = true; break;
        case 'F': bopt.force_sync = false; break;
        case 'R': bopt.no_resolve = true; break;
        case 'J': bopt.jit_c2 = true; break;
        case 'P': bopt.policy_dir = optarg; break;
        case 'N': bopt.node_prog = optarg; break;
        case 'L': bopt.logfile = optarg; break;
        case 'D': deadline_s = opt_num(prog, c, optarg, 10, 86400); break;
        case 'M': bopt.nscale = parse_list(c, optarg, bopt.scale_sizes, 2, 100000); break;
        case 'K': bopt.scale_changes = opt_num(prog, c, optarg, 1, 1000); break;
        case 'G': bopt.ngroup_counts = parse_list(c, optarg, bopt.group_counts, 1, 1000000); break;
        case 'I': bopt.idle_s = opt_num(prog, c, optarg, 1, 3600); break;
        case 'Z': bopt.daemon_prog = optarg; break;
        case 'r': bopt.restart_runs = opt_num(prog, c, optarg, 1, 10000); break;
        case 'v': bopt.verbose = 1; break;
        case 'h': usage(0); break;
        default: usage(2);
        }
    }
    if (optind != argc) {
        fprintf(stderr, "%s: unexpected argument '%s'\n", prog, argv[optind]);
        usage(2);
    }
    if (bopt.rtt_samples < 200 || bopt.handovers < 200 || bopt.switchovers < 200 ||
        bopt.crash_runs < 20 || bopt.elector_runs < 20 || bopt.restart_runs < 20 ||
        bopt.scale_changes < 20)
        warnx_("fewer samples than the figures call for (200 per operation/handover, 20 "
            "crash runs): the tails are less meaningful");

#ifdef BENCH_POLICY_DIR
    /* the build tree's modules, unless the environment names a search path */
    if (bopt.policy_dir == NULL && ((env = getenv("ZKELECT_POLICY_PATH")) == NULL || *env == '\0'))
        bopt.policy_dir = BENCH_POLICY_DIR;
#else
    (void)env;
#endif
    for (i = 0; i < npolicies; i++)
        if (!policy_present(policies[i])) {
            fprintf(stderr, "%s: policy module %s.so not found in %s (build it with make, or "
                "give -P)\n", prog, policies[i], bopt.policy_dir);
            return 2;
        }
    if (!policy_present("nodeid")) {
        fprintf(stderr, "%s: policy module nodeid.so not found in %s\n", prog, bopt.policy_dir);
        return 2;
    }
    if (bopt.node_prog == NULL) {
        len = readlink("/proc/self/exe", path, sizeof(path) - 1);
        if (len <= 0) {
            fprintf(stderr, "%s: cannot find my own path (/proc/self/exe); give -N\n", prog);
            return 2;
        }
        path[len] = '\0';
        if ((slash = strrchr(path, '/')) != NULL)
            *slash = '\0';
        snprintf(node_prog_buf, sizeof(node_prog_buf), "%s/zkbench-node", path);
        bopt.node_prog = node_prog_buf;
    }
    snprintf(swarm_prog_buf, sizeof(swarm_prog_buf), "%s", bopt.node_prog);
    if ((slash = strrchr(swarm_prog_buf, '/')) != NULL)
        snprintf(slash + 1, sizeof(swarm_prog_buf) - (size_t)(slash + 1 - swarm_prog_buf),
            "zkbench-swarm");
    else
        snprintf(swarm_prog_buf, sizeof(swarm_prog_buf), "zkbench-swarm");
    bopt.swarm_prog = swarm_prog_buf;
    if ((bopt.sections & SEC_SCALE) && access(bopt.swarm_prog, X_OK) != 0) {
        fprintf(stderr, "%s: the swarm program %s: %s (build it with make bench)\n",
            prog, bopt.swarm_prog, strerror(errno));
        return 2;
    }
#ifdef BENCH_DAEMON
    if (bopt.daemon_prog == NULL)
        bopt.daemon_prog = BENCH_DAEMON;
#endif
    if ((bopt.sections & (SEC_FOOTPRINT | SEC_RESTART)) &&
        (bopt.daemon_prog == NULL || access(bopt.daemon_prog, X_OK) != 0)) {
        fprintf(stderr, "%s: zkelectd %s: %s (build it with make, or give -Z)\n", prog,
            bopt.daemon_prog ? bopt.daemon_prog : "(none)",
            bopt.daemon_prog ? strerror(errno) : "no path");
        return 2;
    }
#ifdef BENCH_MONO
    bopt.mono_prog = BENCH_MONO;
#endif
    if ((bopt.sections & SEC_RESTART) &&
        (bopt.mono_prog == NULL || access(bopt.mono_prog, X_OK) != 0)) {
        fprintf(stderr, "%s: zke-mono %s: %s (the restart section's hooks stamp with it; build "
            "it with make bench)\n", prog, bopt.mono_prog ? bopt.mono_prog : "(none)",
            bopt.mono_prog ? strerror(errno) : "no path");
        return 2;
    }
    if ((bopt.sections & (SEC_CRASH | SEC_ELECTOR)) && access(bopt.node_prog, X_OK) != 0) {
        fprintf(stderr, "%s: the node program %s: %s (build it with make bench, or give -N)\n",
            prog, bopt.node_prog, strerror(errno));
        return 2;
    }
    if (mkdirs(bopt.outdir) == -1) {
        fprintf(stderr, "%s: -o %s: %s\n", prog, bopt.outdir, strerror(errno));
        return 2;
    }
    if (summary_csv_open() != 0)
        return 2;
    if (bopt.jit_c2 && java_c2() != 0)
        return 2;

    zoo_set_debug_level(ZOO_LOG_LEVEL_WARN);
    if (bopt.no_resolve)
        trace_no_resolve();
    nodes_init();
    zkh_deadline(deadline_s);

    printf("zkbench: libzkelect %s handover and failover figures\n", zkelect_version());
    printf("command:");
    for (i = 0; i < argc; i++)
        printf(" %s", argv[i]);
    printf("\n");
    machine(stdout, NULL);
    fflush(stdout);

    if ((z = servers(3)) == NULL) {
        rc = 1;
        goto out;
    }
    server_version(z, stdout);
    printf("ensemble: %s (loopback)\n", zkh_hosts(z));
    fflush(stdout);

    memset(&fp, 0, sizeof(fp));
    if ((bopt.sections & SEC_RTT) && section_rtt(z, "ensemble", &fp) != 0)
        rc = 1;
    ensemble_floor = fp;
    if (bopt.sections & (SEC_HANDOVER | SEC_SWITCHOVER)) {
        for (i = 0; i < npolicies; i++) {
            bool so = i == 0;       /* switchovers on the first policy's group only */
            if (!(bopt.sections & SEC_HANDOVER) && !so)
                continue;
            if (section_handover(z, "ensemble", policies[i], fp.floor > 0 ? &fp : NULL, so) != 0)
                rc = 1;
        }
    }
    if (bopt.sections & SEC_CRASH)
        for (i = 0; i < bopt.ntimeouts; i++)
            if (section_crash(z, bopt.timeouts_ms[i], false) != 0)
                rc = 1;
    /* 3c: the session ended at a known moment; the longest timeout, so that
       no expiry by the timeout can come first */
    if ((bopt.sections & SEC_CRASH) &&
        section_crash(z, bopt.timeouts_ms[bopt.ntimeouts - 1], true) != 0)
        rc = 1;
    if ((bopt.sections & SEC_ELECTOR) && section_elector(z, bopt.elector_timeout_ms) != 0)
        rc = 1;
    if (bopt.sections & SEC_SCALE)
        for (i = 0; i < bopt.nscale; i++)
            if (section_scale(z, bopt.scale_sizes[i]) != 0)
                rc = 1;
    if ((bopt.sections & SEC_SCALE) && section_members(z) != 0)
        rc = 1;
    if (bopt.sections & SEC_GROUPS)
        for (i = 0; i < bopt.ngroup_counts; i++)
            if (section_groups(z, bopt.group_counts[i]) != 0)
                rc = 1;
    if ((bopt.sections & SEC_FOOTPRINT) && section_footprint(z) != 0)
        rc = 1;
    if ((bopt.sections & SEC_RESTART) && section_restart(z) != 0)
        rc = 1;

    if (bopt.standalone && (bopt.sections & (SEC_RTT | SEC_HANDOVER | SEC_SWITCHOVER))) {
        zkh_stop(z);
        z = NULL;
        if ((zs = servers(1)) == NULL) {
            rc = 1;
            goto out;
        }
        printf("\nstandalone: %s\n", zkh_hosts(zs));
        memset(&fps, 0, sizeof(fps));
        if ((bopt.sections & SEC_RTT) && section_rtt(zs, "standalone", &fps) != 0)
            rc = 1;
        if ((bopt.sections & (SEC_HANDOVER | SEC_SWITCHOVER)) &&
            section_handover(zs, "standalone", policies[0], fps.floor > 0 ? &fps : NULL,
                true) != 0)
            rc = 1;
    }

out:
    nodes_close_all();
    zkh_stop(z);
    zkh_stop(zs);
    targets_print();
    printf("\n");
    machine(stdout, "end");
    printf("CSV files: %s/\n", bopt.outdir);
    snprintf(path, sizeof(path), "%s/machine.txt", bopt.outdir);
    if ((mf = fopen(path, "w")) != NULL) {
        machine(mf, NULL);
        machine(mf, "end");
        fprintf(mf, "forceSync=%s\n", bopt.force_sync ? "yes" : "no");
        fclose(mf);
    }
    summary_csv_close();
    return rc;
}
