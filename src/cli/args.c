/*
 * args.c - strict parsing of arguments, the base path, secret files, and
 * small text/time helpers (the layout, the secret reader and the escaping
 * are src/common's).
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

int
cli_parse_int(const char *s, long long min, long long max, long long *out)
{
    const char *p = s;
    long long v;
    char *end;

    if (s == NULL || *s == '\0')
        return -1;
    if (*p == '-')
        p++;
    if (*p == '\0')
        return -1;
    for (; *p; p++)
        if (*p < '0' || *p > '9')
            return -1;
    errno = 0;
    v = strtoll(s, &end, 10);
    if (errno != 0 || *end != '\0' || v < min || v > max)
        return -1;
    *out = v;
    return 0;
}

int
cli_parse_wait(const char *arg, int *seconds)
{
    long long v;

    if (arg == NULL) {
        *seconds = CLI_WAIT_S;
        return 0;
    }
    if (cli_parse_int(arg, 1, 86400, &v) != 0)
        return -1;
    *seconds = (int)v;
    return 0;
}

int
cli_opt_wait(struct cli *c, const char *arg, int *seconds)
{
    if (cli_parse_wait(arg, seconds) != 0)
        return cli_usage_err(c, "--wait=%s: expected a number of seconds from 1 to 86400", arg);
    return CLI_OK;
}

int
cli_set_path(struct cli *c, const char *p)
{
    if (!zke_layout_base_valid(p, CLI_BASE_MAX))
        return -1;
    if (strcmp(p, "/zookeeper") == 0 || strncmp(p, "/zookeeper/", 11) == 0)
        return -1;   /* ZooKeeper's own subtree */
    snprintf(c->path, sizeof(c->path), "%s", p);
    /* a valid base path is at most ZKE_BASE_MAX bytes: these cannot fail */
    zke_layout_path(c->p_nodes, sizeof(c->p_nodes), p, ZKE_ZN_NODES, NULL);
    zke_layout_path(c->p_election, sizeof(c->p_election), p, ZKE_ZN_ELECTION, NULL);
    zke_layout_path(c->p_elected, sizeof(c->p_elected), p, ZKE_ZN_ELECTED, NULL);
    zke_layout_path(c->p_leader, sizeof(c->p_leader), p, ZKE_ZN_LEADER, NULL);
    zke_layout_path(c->p_config, sizeof(c->p_config), p, ZKE_ZN_CONFIG, NULL);
    zke_layout_path(c->p_switchover, sizeof(c->p_switchover), p, ZKE_ZN_SWITCHOVER, NULL);
    zke_layout_path(c->p_history, sizeof(c->p_history), p, ZKE_ZN_HISTORY, NULL);
    zke_layout_path(c->p_successor, sizeof(c->p_successor), p, ZKE_ZN_SUCCESSOR, NULL);
    return 0;
}

int
cli_read_secret(const char *file, const char *what, char **out)
{
    char err[600];

    if (zke_secret_read(file, out, err, sizeof(err)) == 0)
        return 0;
    cli_err("%s: auth file %s", what, err);
    return -1;
}

void
cli_secret_free(char *s)
{
    zke_secret_free(s);
}

void
cli_escape(const char *in, char *out, size_t outlen)
{
    zke_escape(in, strlen(in), out, outlen);
}

void
cli_time_str(int64_t ms, char *out, size_t outlen)
{
    struct tm tm;
    time_t t;

    if (ms <= 0) {
        snprintf(out, outlen, "-");
        return;
    }
    t = (time_t)(ms / 1000);
    if (localtime_r(&t, &tm) == NULL || strftime(out, outlen, "%Y-%m-%d %H:%M:%S", &tm) == 0)
        snprintf(out, outlen, "%lld", (long long)ms);
}

uint64_t
cli_mono_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

int64_t
cli_wall_ms(void)
{
    struct timespec ts;

    /* for display and the informational at_ms fields only, never for timing */
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void
cli_requester(char *out, size_t outlen)
{
    char host[256] = "", user[64] = "";
    struct passwd *pw = getpwuid(geteuid());
    char *p;

    if (pw && pw->pw_name)
        snprintf(user, sizeof(user), "%s", pw->pw_name);
    else
        snprintf(user, sizeof(user), "uid%u", (unsigned)geteuid());
    if (gethostname(host, sizeof(host) - 1) != 0)
        host[0] = '\0';
    host[sizeof(host) - 1] = '\0';
    snprintf(out, outlen, "%s@%s", user, *host ? host : "?");
    for (p = out; *p; p++)
        if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
            *p = '?';
}

/*
 * Command arguments: a small parser instead of getopt, so that a negative
 * number ("set-site-priority dc1 -5") is an argument and not an option.
 * Options may come before or after the arguments; "--" ends them.
 */
int
cli_next_opt(struct cli *c, struct cli_args *a, const struct cli_optdef *defs, const char **arg)
{
    const struct cli_optdef *d;
    const char *s, *eq;
    size_t n;

    *arg = NULL;
    for (;;) {
        if (++a->i >= a->argc) {
            if (a->rest_at == 0)        /* argv[0] is the command's name */
                a->rest_at = a->argc;
            return 0;
        }
        s = a->argv[a->i];
        if (a->rest && (strcmp(s, "--") == 0 || s[0] != '-' || s[1] == '\0')) {
            /* the options end here: a command line follows */
            a->rest_at = a->i + (strcmp(s, "--") == 0);
            a->i = a->argc;
            return 0;
        }
        if (a->done || s[0] != '-' || s[1] == '\0' || (s[1] >= '0' && s[1] <= '9')) {
            if (a->npos >= CLI_MAXPOS)
                return cli_usage_err(c, "too many arguments (from \"%s\")", s), CLI_OPT_ERR;
            a->pos[a->npos++] = s;
            continue;
        }
        if (strcmp(s, "--") == 0) {
            a->done = true;
            continue;
        }
        break;
    }
    if (strcmp(s, "-h") == 0 || strcmp(s, "--help") == 0)
        return 'h';
    if (strcmp(s, "--json") == 0)
        return CLI_OPT_JSON;
    for (d = defs; d && d->id; d++) {
        if (s[1] == '-') {
            eq = strchr(s, '=');
            n = eq ? (size_t)(eq - s - 2) : strlen(s + 2);
            if (strlen(d->lname) != n || strncmp(s + 2, d->lname, n) != 0)
                continue;
            if (d->arg == 0 && eq)
                return cli_usage_err(c, "option --%s takes no value", d->lname), CLI_OPT_ERR;
            if (eq) {
                *arg = eq + 1;
            } else if (d->arg == 1) {
                if (a->i + 1 >= a->argc)
                    return cli_usage_err(c, "option --%s needs a value", d->lname), CLI_OPT_ERR;
                *arg = a->argv[++a->i];
            }
            return d->id;
        }
        if (d->sname && s[1] == d->sname) {
            if (d->arg == 0) {
                if (s[2] != '\0')
                    return cli_usage_err(c, "unknown option %s", s), CLI_OPT_ERR;
                return d->id;
            }
            if (s[2] != '\0') {
                *arg = s + 2;
            } else {
                if (a->i + 1 >= a->argc)
                    return cli_usage_err(c, "option -%c needs a value", d->sname), CLI_OPT_ERR;
                *arg = a->argv[++a->i];
            }
            return d->id;
        }
    }
    {
        char esc[128];
        cli_escape(s, esc, sizeof(esc));
        return cli_usage_err(c, "unknown option %s", esc), CLI_OPT_ERR;
    }
}

int
cli_parse_simple(struct cli *c, int argc, char **argv, int minpos, int maxpos,
                 struct cli_args *a)
{
    const char *arg;
    int id;

    memset(a, 0, sizeof(*a));
    a->argc = argc;
    a->argv = argv;
    while ((id = cli_next_opt(c, a, NULL, &arg)) != 0) {
        if (id == CLI_OPT_ERR)
            return CLI_EUSAGE;
        if (id == CLI_OPT_HELP)
            return cli_cmd_help(c);
        if (id == CLI_OPT_JSON)
            c->json = true;
    }
    if (a->npos < minpos)
        return cli_usage_err(c, "missing argument");
    if (a->npos > maxpos) {
        char esc[128];
        cli_escape(a->pos[maxpos], esc, sizeof(esc));
        return cli_usage_err(c, "unexpected argument \"%s\"", esc);
    }
    return -1;
}
