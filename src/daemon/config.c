/*
 * config.c - zkelectd's INI configuration: load, validate, free; and the
 * digest credential file reader.
 *
 * iniparser 4.1 does the lexing (it lower-cases section and key names, strips
 * quotes and trailing "; comments"); everything else is checked here, key by
 * key, in the order the file gives them, so the first error reported is the
 * first one in the file. The key table below is the one list of what exists;
 * etc/zkelect.ini documents the same keys.
 *
 * Sections, in this order: key table and defaults; messages and escaping;
 * value checks; the loader; the credential reader; the listen parser.
 */
#include "config.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include <iniparser/iniparser.h>

#include "zkelect.h"
#include "zkecommon.h"

/* ------------------------------------------------------------------------ */
/* Key table and defaults                                                   */
/* ------------------------------------------------------------------------ */

/* Static defaults of string fields: zkd_config_free() never frees these. */
static const char zkd_config_def_path[] = "/cluster";
static const char zkd_config_def_site[] = "";
static const char zkd_config_def_policy[] = "site";
static const char zkd_config_def_state_dir[] = "/var/lib/zkelect";

/* How a key's value is parsed. */
enum zkd_config_kind {
    ZKD_CONFIG_STR,                     /* string, checked by check() */
    ZKD_CONFIG_INT,                     /* integer in min..max */
    ZKD_CONFIG_BOOL,                    /* yes/no/true/false/on/off/1/0 */
    ZKD_CONFIG_TAGS,                    /* comma-separated names */
    ZKD_CONFIG_LEVEL,                   /* debug|info|notice|warning|error */
    ZKD_CONFIG_TARGET                   /* stderr|syslog */
};

/* Flags of a key. */
#define ZKD_CONFIG_REQUIRED     0x1     /* must be present and non-empty */
#define ZKD_CONFIG_EMPTY_UNSET  0x2     /* an empty value leaves the field NULL */

/* A value check: 0, or -1 with a message (no "PATH: [s] k: " prefix) in msg. */
typedef int (*zkd_config_check_fn)(const char *v, char *msg, size_t msglen);

struct zkd_config_key {
    const char *section;                /* lower-case section name */
    const char *name;                   /* lower-case key name */
    enum zkd_config_kind kind;          /* how the value is parsed */
    size_t off;                         /* offset of the field in struct zkd_config */
    long min;                           /* ZKD_CONFIG_INT: smallest value */
    long max;                           /* ZKD_CONFIG_INT: largest value */
    int flags;                          /* ZKD_CONFIG_REQUIRED, ZKD_CONFIG_EMPTY_UNSET */
    zkd_config_check_fn check;          /* ZKD_CONFIG_STR: value check */
};

static int zkd_config_check_hosts(const char *, char *, size_t);
static int zkd_config_check_zkpath(const char *, char *, size_t);
static int zkd_config_check_id(const char *, char *, size_t);
static int zkd_config_check_site(const char *, char *, size_t);
static int zkd_config_check_policy(const char *, char *, size_t);
static int zkd_config_check_searchpath(const char *, char *, size_t);
static int zkd_config_check_file(const char *, char *, size_t);
static int zkd_config_check_abspath(const char *, char *, size_t);
static int zkd_config_check_dir(const char *, char *, size_t);
static int zkd_config_check_command(const char *, char *, size_t);
static int zkd_config_check_listen(const char *, char *, size_t);
static int zkd_config_check_datafile(const char *, char *, size_t);

#define OFF(field) offsetof(struct zkd_config, field)

static const struct zkd_config_key zkd_config_keys[] = {
    { "zookeeper", "hosts", ZKD_CONFIG_STR, OFF(zk_hosts), 0, 0,
      ZKD_CONFIG_REQUIRED, zkd_config_check_hosts },
    { "zookeeper", "session_timeout_ms", ZKD_CONFIG_INT, OFF(session_timeout_ms),
      1000, 600000, 0, NULL },
    { "zookeeper", "connect_timeout_ms", ZKD_CONFIG_INT, OFF(connect_timeout_ms),
      100, 600000, 0, NULL },
    { "zookeeper", "auth_file", ZKD_CONFIG_STR, OFF(auth_file), 0, 0,
      ZKD_CONFIG_EMPTY_UNSET, zkd_config_check_file },
    { "cluster", "path", ZKD_CONFIG_STR, OFF(path), 0, 0, 0,
      zkd_config_check_zkpath },
    { "node", "id", ZKD_CONFIG_STR, OFF(node_id), 0, 0, ZKD_CONFIG_REQUIRED,
      zkd_config_check_id },
    { "node", "site", ZKD_CONFIG_STR, OFF(site), 0, 0, 0, zkd_config_check_site },
    { "node", "priority", ZKD_CONFIG_INT, OFF(priority), -1000000, 1000000, 0,
      NULL },
    { "node", "tags", ZKD_CONFIG_TAGS, OFF(tags), 0, 0, 0, NULL },
    { "node", "eligible", ZKD_CONFIG_BOOL, OFF(eligible), 0, 1, 0, NULL },
    { "node", "state_dir", ZKD_CONFIG_STR, OFF(state_dir), 0, 0, 0,
      zkd_config_check_dir },
    { "election", "policy", ZKD_CONFIG_STR, OFF(policy), 0, 0, 0,
      zkd_config_check_policy },
    { "election", "policy_path", ZKD_CONFIG_STR, OFF(policy_path), 0, 0,
      ZKD_CONFIG_EMPTY_UNSET, zkd_config_check_searchpath },
    { "election", "watchdog_ms", ZKD_CONFIG_INT, OFF(watchdog_ms), 100, 3600000,
      0, NULL },
    { "election", "exclude_ms", ZKD_CONFIG_INT, OFF(exclude_ms), 0, 86400000, 0,
      NULL },
    { "election", "settle_ms", ZKD_CONFIG_INT, OFF(settle_ms), 0, 3600000, 0,
      NULL },
    { "election", "expect", ZKD_CONFIG_INT, OFF(expect), 0, 10000, 0, NULL },
    { "election", "failback_delay_ms", ZKD_CONFIG_INT, OFF(failback_delay_ms), 0,
      86400000, 0, NULL },
    { "election", "min_move_interval_ms", ZKD_CONFIG_INT, OFF(min_move_interval_ms),
      0, 86400000, 0, NULL },
    { "hooks", "takeover", ZKD_CONFIG_STR, OFF(hook_takeover), 0, 0,
      ZKD_CONFIG_EMPTY_UNSET, zkd_config_check_abspath },
    { "hooks", "stepdown", ZKD_CONFIG_STR, OFF(hook_stepdown), 0, 0,
      ZKD_CONFIG_EMPTY_UNSET, zkd_config_check_abspath },
    { "hooks", "notify", ZKD_CONFIG_STR, OFF(hook_notify), 0, 0,
      ZKD_CONFIG_EMPTY_UNSET, zkd_config_check_abspath },
    { "hooks", "timeout_ms", ZKD_CONFIG_INT, OFF(hook_timeout_ms), 100, 3600000,
      0, NULL },
    { "hooks", "stepdown_timeout_ms", ZKD_CONFIG_INT, OFF(stepdown_timeout_ms), 10,
      3600000, 0, NULL },
    { "leader", "command", ZKD_CONFIG_STR, OFF(leader_command), 0, 0,
      ZKD_CONFIG_EMPTY_UNSET, zkd_config_check_command },
    { "leader", "ready_command", ZKD_CONFIG_STR, OFF(leader_ready_command), 0, 0,
      ZKD_CONFIG_EMPTY_UNSET, zkd_config_check_command },
    { "leader", "stop_timeout_ms", ZKD_CONFIG_INT, OFF(leader_stop_timeout_ms), 0,
      3600000, 0, NULL },
    { "leader", "fence_ms", ZKD_CONFIG_INT, OFF(leader_fence_ms), 100, 300000, 0,
      NULL },
    { "health", "command", ZKD_CONFIG_STR, OFF(health_command), 0, 0,
      ZKD_CONFIG_EMPTY_UNSET, zkd_config_check_command },
    { "health", "interval_ms", ZKD_CONFIG_INT, OFF(health_interval_ms), 100,
      3600000, 0, NULL },
    { "health", "failures", ZKD_CONFIG_INT, OFF(health_failures), 1, 1000, 0,
      NULL },
    { "http", "listen", ZKD_CONFIG_STR, OFF(http_listen), 0, 0,
      ZKD_CONFIG_EMPTY_UNSET, zkd_config_check_listen },
    { "log", "level", ZKD_CONFIG_LEVEL, OFF(log_level), 0, 0, 0, NULL },
    { "log", "target", ZKD_CONFIG_TARGET, OFF(log_target), 0, 0, 0, NULL },
    { "log", "events", ZKD_CONFIG_STR, OFF(log_events), 0, 0,
      ZKD_CONFIG_EMPTY_UNSET, zkd_config_check_datafile },
};

#undef OFF

#define ZKD_CONFIG_NKEYS (sizeof(zkd_config_keys) / sizeof(zkd_config_keys[0]))

/* Every section; [policy] has free-form keys (the policy's options). */
static const char *const zkd_config_sections[] = {
    "zookeeper", "cluster", "node", "election", "policy", "hooks", "leader",
    "health", "http", "log",
};

#define ZKD_CONFIG_NSECTIONS \
    (sizeof(zkd_config_sections) / sizeof(zkd_config_sections[0]))

static const struct {
    const char *name;                   /* [log] level word */
    int level;                          /* syslog level */
} zkd_config_levels[] = {
    { "debug", LOG_DEBUG },
    { "info", LOG_INFO },
    { "notice", LOG_NOTICE },
    { "warning", LOG_WARNING },
    { "error", LOG_ERR },
};

/*
 * The timing keys left unset (-1) get their derived defaults:
 *   stepdown_timeout_ms (D) = min(session_timeout_ms / 4, watchdog_ms / 2)
 *   fence_ms (F)            = session_timeout_ms / 2 - D
 *   stop_timeout_ms         = D / 2
 * These meet zkd_config_timing()'s rules for every value the ranges allow:
 * T >= 1000 gives D <= T/4 and F >= T/4 >= 250 with F + D = T/2; watchdog_ms
 * >= 100 gives D >= 50 (or T/4 >= 250) < watchdog_ms; D/2 < D.
 */
static void
zkd_config_derive(struct zkd_config *c)
{
    int t = c->session_timeout_ms;

    if (c->stepdown_timeout_ms < 0)
        c->stepdown_timeout_ms = t / 4 < c->watchdog_ms / 2 ? t / 4 : c->watchdog_ms / 2;
    if (c->leader_fence_ms < 0)
        c->leader_fence_ms = t / 2 - c->stepdown_timeout_ms;
    if (c->leader_stop_timeout_ms < 0)
        c->leader_stop_timeout_ms = c->stepdown_timeout_ms / 2;
}

void
zkd_config_init(struct zkd_config *c)
{
    memset(c, 0, sizeof(*c));
    c->session_timeout_ms = 10000;
    c->connect_timeout_ms = 15000;
    c->path = (char *)zkd_config_def_path;
    c->site = (char *)zkd_config_def_site;
    c->priority = 0;
    c->eligible = 1;
    c->policy = (char *)zkd_config_def_policy;
    c->state_dir = (char *)zkd_config_def_state_dir;
    c->watchdog_ms = 10000;
    c->exclude_ms = 60000;
    c->settle_ms = 2000;
    c->hook_timeout_ms = 30000;
    c->stepdown_timeout_ms = -1;        /* derived: zkd_config_derive() */
    c->leader_stop_timeout_ms = -1;
    c->leader_fence_ms = -1;
    zkd_config_derive(c);
    c->health_interval_ms = 5000;
    c->health_failures = 3;
    c->log_level = LOG_INFO;
    c->log_target = ZKD_LOG_STDERR;
}

static void
zkd_config_str_free(char *s)
{
    if (s == zkd_config_def_path || s == zkd_config_def_site ||
        s == zkd_config_def_policy || s == zkd_config_def_state_dir)
        return;
    free(s);
}

void
zkd_config_free(struct zkd_config *c)
{
    size_t i;
    int j;

    if (c == NULL)
        return;
    for (i = 0; i < ZKD_CONFIG_NKEYS; i++) {
        if (zkd_config_keys[i].kind == ZKD_CONFIG_STR)
            zkd_config_str_free(*(char **)((char *)c + zkd_config_keys[i].off));
    }
    for (j = 0; j < c->ntags; j++)
        free(c->tags[j]);
    free(c->tags);
    for (j = 0; j < c->npolicy_options; j++) {
        free(c->policy_options[j].key);
        free(c->policy_options[j].value);
    }
    free(c->policy_options);
    zkd_config_init(c);
}

/* ------------------------------------------------------------------------ */
/* Messages and escaping                                                    */
/* ------------------------------------------------------------------------ */

/* Escape buffers: a value (about 64 characters shown) and a path (about 128). */
#define ZKD_CONFIG_ESC_MAX      260
#define ZKD_CONFIG_EPATH_MAX    516

/*
 * Escape n bytes of untrusted s into dst for a message: printable ASCII is
 * kept except '\\' and '\'', everything else becomes \n, \t or \xNN. What
 * does not fit in dstlen (at most a quarter of it is guaranteed) is cut and
 * "..." appended. dst is always NUL-terminated (dstlen >= 4).
 */
static void
zkd_config_escape(char *dst, size_t dstlen, const char *s, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    char seq[4];
    size_t i, o = 0, sn;

    for (i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];

        sn = 0;
        if (ch == '\\' || ch == '\'') {
            seq[sn++] = '\\';
            seq[sn++] = (char)ch;
        } else if (ch >= 0x20 && ch < 0x7f) {
            seq[sn++] = (char)ch;
        } else if (ch == '\n' || ch == '\t') {
            seq[sn++] = '\\';
            seq[sn++] = ch == '\n' ? 'n' : 't';
        } else {
            seq[sn++] = '\\';
            seq[sn++] = 'x';
            seq[sn++] = hex[ch >> 4];
            seq[sn++] = hex[ch & 0xf];
        }
        if (o + sn + 4 > dstlen) {
            memcpy(dst + o, "...", 3);
            o += 3;
            break;
        }
        memcpy(dst + o, seq, sn);
        o += sn;
    }
    dst[o] = '\0';
}

/* Where a load reports its error. */
struct zkd_config_ctx {
    const char *path;                   /* borrowed: the file being loaded */
    char *err;                          /* borrowed: caller's buffer, or NULL */
    size_t errlen;                      /* size of err */
};

/*
 * Write "PATH: [sec] key: MESSAGE" (key may be NULL: "PATH: [sec]: MESSAGE";
 * sec may also be NULL: "PATH: MESSAGE"). sec and key are escaped; seclen and
 * keylen are their lengths (they need not be NUL-terminated there).
 */
__attribute__((format(printf, 6, 7)))
static void
zkd_config_fail(const struct zkd_config_ctx *x, const char *sec, size_t seclen,
    const char *key, size_t keylen, const char *fmt, ...)
{
    char epath[ZKD_CONFIG_EPATH_MAX], esec[ZKD_CONFIG_ESC_MAX];
    char ekey[ZKD_CONFIG_ESC_MAX];
    va_list ap;
    int n;

    if (x->err == NULL || x->errlen == 0)
        return;
    zkd_config_escape(epath, sizeof(epath), x->path, strlen(x->path));
    if (sec == NULL)
        n = snprintf(x->err, x->errlen, "%s: ", epath);
    else {
        zkd_config_escape(esec, sizeof(esec), sec, seclen);
        if (key == NULL)
            n = snprintf(x->err, x->errlen, "%s: [%s]: ", epath, esec);
        else {
            zkd_config_escape(ekey, sizeof(ekey), key, keylen);
            n = snprintf(x->err, x->errlen, "%s: [%s] %s: ", epath, esec, ekey);
        }
    }
    if (n < 0 || (size_t)n >= x->errlen)
        return;
    va_start(ap, fmt);
    vsnprintf(x->err + n, x->errlen - (size_t)n, fmt, ap);
    va_end(ap);
}

/* A plain error message for the caller's buffer (NULL/0 tolerated). */
__attribute__((format(printf, 3, 4)))
static void
zkd_config_msg(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;

    if (err == NULL || errlen == 0)
        return;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

/* Levenshtein distance of two short strings, capped at 99. */
static int
zkd_config_distance(const char *a, size_t la, const char *b, size_t lb)
{
    int row[65], i, j, prev, tmp, cost;

    if (la > 64 || lb > 64)
        return 99;
    for (j = 0; j <= (int)lb; j++)
        row[j] = j;
    for (i = 1; i <= (int)la; i++) {
        prev = row[0];
        row[0] = i;
        for (j = 1; j <= (int)lb; j++) {
            tmp = row[j];
            cost = a[i - 1] == b[j - 1] ? 0 : 1;
            row[j] = prev + cost;
            if (row[j - 1] + 1 < row[j])
                row[j] = row[j - 1] + 1;
            if (tmp + 1 < row[j])
                row[j] = tmp + 1;
            prev = tmp;
        }
    }
    return row[lb];
}

/* Is b a plausible intended spelling of the mistyped a? */
static int
zkd_config_near(const char *a, size_t la, const char *b)
{
    size_t lb = strlen(b), shorter = la < lb ? la : lb;

    if (zkd_config_distance(a, la, b, lb) <= 2)
        return 1;
    /* "session_timeout" for "session_timeout_ms", "host" for "hosts". */
    return shorter >= 4 && strncmp(a, b, shorter) == 0;
}

/* ------------------------------------------------------------------------ */
/* Value checks                                                             */
/* ------------------------------------------------------------------------ */

/* Escape a whole NUL-terminated value into a local buffer named e. */
#define ZKD_ESC(e, v) \
    char e[ZKD_CONFIG_ESC_MAX]; \
    zkd_config_escape(e, sizeof(e), (v), strlen(v))

static int
zkd_config_has_control(const char *v, int allow_tab)
{
    const unsigned char *p;

    for (p = (const unsigned char *)v; *p != '\0'; p++) {
        if (*p == '\t' && allow_tab)
            continue;
        if (*p < 0x20 || *p == 0x7f)
            return 1;
    }
    return 0;
}

/* A node id, site or tag character. */
static int
zkd_config_name_char(int ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
        (ch >= '0' && ch <= '9') || ch == '.' || ch == '_' || ch == '-';
}

/* A name as for [node] id: what is wrong with n bytes of v, or NULL. */
static const char *
zkd_config_name_problem(const char *v, size_t n)
{
    size_t i;

    if (n == 0)
        return "is empty";
    if (n > ZKD_CONFIG_NAME_MAX)
        return "is longer than 64 characters";
    if (v[0] == '.' || v[0] == '-')
        return "must not start with '.' or '-'";
    for (i = 0; i < n; i++)
        if (!zkd_config_name_char((unsigned char)v[i]))
            return "may only contain A-Z, a-z, 0-9, '.', '_' and '-'";
    return NULL;
}

static int
zkd_config_check_id(const char *v, char *msg, size_t msglen)
{
    const char *why = zkd_config_name_problem(v, strlen(v));
    ZKD_ESC(e, v);

    if (why == NULL)
        return 0;
    snprintf(msg, msglen, "invalid node id '%s': %s", e, why);
    return -1;
}

static int
zkd_config_check_site(const char *v, char *msg, size_t msglen)
{
    const char *why;
    ZKD_ESC(e, v);

    if (*v == '\0')
        return 0;
    if ((why = zkd_config_name_problem(v, strlen(v))) == NULL)
        return 0;
    snprintf(msg, msglen, "invalid site '%s': %s", e, why);
    return -1;
}

/* A ZooKeeper path: what is wrong with it, or NULL. */
static const char *
zkd_config_zkpath_problem(const char *v)
{
    const char *p, *seg;
    size_t n;

    if (v[0] != '/')
        return "must be an absolute path (start with '/')";
    if (v[1] == '\0')
        return "must not be the root '/'";
    if (zkd_config_has_control(v, 0))
        return "must not contain control characters";
    for (p = v + 1;; p = seg + n + 1) {
        seg = p;
        n = strcspn(seg, "/");
        if (n == 0)
            return seg[0] == '\0' ? "must not end with '/'" :
                "must not contain an empty component ('//')";
        if ((n == 1 && seg[0] == '.') || (n == 2 && seg[0] == '.' && seg[1] == '.'))
            return "must not contain '.' or '..' components";
        if (seg == v + 1 && n == 9 && strncmp(seg, "zookeeper", 9) == 0)
            return "must not be under /zookeeper (reserved by ZooKeeper)";
        if (seg[n] == '\0')
            return NULL;
    }
}

static int
zkd_config_check_zkpath(const char *v, char *msg, size_t msglen)
{
    const char *why = zkd_config_zkpath_problem(v);
    ZKD_ESC(e, v);

    if (why == NULL)
        return 0;
    snprintf(msg, msglen, "invalid ZooKeeper path '%s': %s", e, why);
    return -1;
}

/* A decimal port 1..65535 in n bytes of s; -1 if it is not one. */
static int
zkd_config_port(const char *s, size_t n)
{
    size_t i;
    int port = 0;

    if (n == 0 || n > 5)
        return -1;
    for (i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        port = port * 10 + (s[i] - '0');
    }
    return port >= 1 && port <= 65535 ? port : -1;
}

/* One "host:port" of a connect string (n bytes of s): problem or NULL. */
static const char *
zkd_config_hostport_problem(const char *s, size_t n)
{
    const char *colon = NULL;
    char host[INET6_ADDRSTRLEN + 1];
    struct in6_addr a6;
    size_t i, hn;

    if (n == 0)
        return "has an empty host entry";
    for (i = 0; i < n; i++)
        if (s[i] == ':')
            colon = s + i;
    if (colon == NULL)
        return "has a host without a port (expected host:port)";
    if (zkd_config_port(colon + 1, (size_t)(s + n - colon - 1)) < 0)
        return "has an invalid port (expected 1..65535)";
    hn = (size_t)(colon - s);
    if (hn == 0)
        return "has an empty host name";
    if (s[0] == '[')
        return "has an IPv6 address in brackets (the ZooKeeper client wants it "
            "without: ::1:2181)";
    if (memchr(s, ':', hn) != NULL) {
        if (hn >= sizeof(host))
            return "has an invalid IPv6 address";
        memcpy(host, s, hn);
        host[hn] = '\0';
        if (inet_pton(AF_INET6, host, &a6) != 1)
            return "has an invalid IPv6 address";
        return NULL;
    }
    if (hn > 253)
        return "has a host name longer than 253 characters";
    for (i = 0; i < hn; i++)
        if (!zkd_config_name_char((unsigned char)s[i]))
            return "has an invalid host name (A-Z, a-z, 0-9, '.', '_', '-')";
    return NULL;
}

static int
zkd_config_check_hosts(const char *v, char *msg, size_t msglen)
{
    const char *chroot = strchr(v, '/'), *end, *p, *why;
    size_t n;
    ZKD_ESC(e, v);

    for (p = v; *p != '\0'; p++) {
        if (isspace((unsigned char)*p) || (unsigned char)*p < 0x20) {
            snprintf(msg, msglen, "'%s' must not contain whitespace or control "
                "characters (write host:port,host:port/chroot)", e);
            return -1;
        }
    }
    end = chroot != NULL ? chroot : v + strlen(v);
    if (end == v) {
        snprintf(msg, msglen, "'%s' has no host:port before the chroot", e);
        return -1;
    }
    for (p = v; p <= end; p += n + 1) {
        n = strcspn(p, ",/");
        if (p + n > end)
            n = (size_t)(end - p);
        if ((why = zkd_config_hostport_problem(p, n)) != NULL) {
            snprintf(msg, msglen, "'%s' %s", e, why);
            return -1;
        }
        if (p + n == end)
            break;
    }
    if (chroot != NULL && (why = zkd_config_zkpath_problem(chroot)) != NULL) {
        snprintf(msg, msglen, "'%s': the chroot %s", e, why);
        return -1;
    }
    return 0;
}

static int
zkd_config_check_policy(const char *v, char *msg, size_t msglen)
{
    const char *p;
    ZKD_ESC(e, v);

    if (*v == '\0') {
        snprintf(msg, msglen, "must not be empty (a policy name such as 'site', "
            "or a path to a module)");
        return -1;
    }
    if (strchr(v, '/') != NULL) {
        if (!zkd_config_has_control(v, 0))
            return 0;
        snprintf(msg, msglen, "policy path '%s' contains control characters", e);
        return -1;
    }
    for (p = v; *p != '\0'; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
            *p == '_' || *p == '-'))
            break;
    if (*p == '\0' && p - v <= ZKD_CONFIG_NAME_MAX)
        return 0;
    snprintf(msg, msglen, "invalid policy '%s': expected a name of 1..64 "
        "characters a-z, 0-9, '_', '-', or a path containing '/'", e);
    return -1;
}

static int
zkd_config_check_searchpath(const char *v, char *msg, size_t msglen)
{
    const char *p;
    size_t n;
    ZKD_ESC(e, v);

    if (zkd_config_has_control(v, 0)) {
        snprintf(msg, msglen, "'%s' contains control characters", e);
        return -1;
    }
    for (p = v;; p += n + 1) {
        n = strcspn(p, ":");
        if (n == 0 || p[0] != '/') {
            snprintf(msg, msglen, "'%s': every directory must be an absolute "
                "path (no empty entry between ':')", e);
            return -1;
        }
        if (p[n] == '\0')
            return 0;
    }
}

static int
zkd_config_check_file(const char *v, char *msg, size_t msglen)
{
    ZKD_ESC(e, v);

    if (!zkd_config_has_control(v, 0))
        return 0;
    snprintf(msg, msglen, "file name '%s' contains control characters", e);
    return -1;
}

/* A directory the daemon keeps files in: absolute (it runs in '/'), short
 * enough for "<dir>/<id>.state.tmp", no control characters. */
static int
zkd_config_check_dir(const char *v, char *msg, size_t msglen)
{
    ZKD_ESC(e, v);

    if (v[0] != '/') {
        snprintf(msg, msglen, "'%s' must be an absolute path", e);
        return -1;
    }
    if (strlen(v) > 3000) {
        snprintf(msg, msglen, "directory name too long (over 3000 bytes)");
        return -1;
    }
    if (zkd_config_has_control(v, 0)) {
        snprintf(msg, msglen, "directory name '%s' contains control characters", e);
        return -1;
    }
    return 0;
}

static int
zkd_config_check_abspath(const char *v, char *msg, size_t msglen)
{
    size_t n = strlen(v);
    ZKD_ESC(e, v);

    if (v[0] != '/') {
        snprintf(msg, msglen, "'%s' must be an absolute path", e);
        return -1;
    }
    if (v[n - 1] == '/') {
        snprintf(msg, msglen, "'%s' names a directory, not a program", e);
        return -1;
    }
    if (zkd_config_has_control(v, 0)) {
        snprintf(msg, msglen, "'%s' contains control characters", e);
        return -1;
    }
    return 0;
}

/* A file the daemon writes: absolute (it runs in '/'), not a directory. */
static int
zkd_config_check_datafile(const char *v, char *msg, size_t msglen)
{
    size_t n = strlen(v);
    ZKD_ESC(e, v);

    if (v[0] != '/') {
        snprintf(msg, msglen, "'%s' must be an absolute path", e);
        return -1;
    }
    if (v[n - 1] == '/') {
        snprintf(msg, msglen, "'%s' names a directory, not a file", e);
        return -1;
    }
    if (zkd_config_has_control(v, 0)) {
        snprintf(msg, msglen, "'%s' contains control characters", e);
        return -1;
    }
    return 0;
}

static int
zkd_config_check_command(const char *v, char *msg, size_t msglen)
{
    ZKD_ESC(e, v);

    if (!zkd_config_has_control(v, 1))
        return 0;
    snprintf(msg, msglen, "command '%s' contains control characters", e);
    return -1;
}

static int
zkd_config_check_listen(const char *v, char *msg, size_t msglen)
{
    ZKD_ESC(e, v);

    if (zkd_config_listen_addr(v, NULL, NULL) == 0)
        return 0;
    snprintf(msg, msglen, "expected PORT, IPV4:PORT or [IPV6]:PORT with a numeric "
        "address and a port in 1..65535, got '%s'", e);
    return -1;
}

/* ------------------------------------------------------------------------ */
/* The loader                                                               */
/* ------------------------------------------------------------------------ */

/* What iniparser reported during the last load on this thread. */
enum zkd_config_inikind {
    ZKD_CONFIG_INI_NONE,                /* nothing reported */
    ZKD_CONFIG_INI_SYNTAX,              /* syntax error at line */
    ZKD_CONFIG_INI_TOOLONG,             /* line longer than iniparser's buffer */
    ZKD_CONFIG_INI_OPEN,                /* cannot open the file */
    ZKD_CONFIG_INI_OTHER                /* anything else: text */
};

static _Thread_local struct {
    enum zkd_config_inikind kind;       /* first report of this load */
    int line;                           /* SYNTAX, TOOLONG: 1-based line */
    char text[256];                     /* SYNTAX: the line; OTHER: the message */
} zkd_config_inierr;

/*
 * iniparser's error callback (it has no user pointer): keep the first report
 * of the load in thread-local storage. The formats matched are iniparser
 * 4.1's; anything else is kept as text.
 */
__attribute__((format(printf, 1, 2)))
static int
zkd_config_inicb(const char *fmt, ...)
{
    static const char syntax[] = "iniparser: syntax error in %s (%d)";
    static const char toolong[] = "iniparser: input line too long in %s (%d)";
    static const char cantopen[] = "iniparser: cannot open %s";
    const char *line;
    va_list ap;

    if (zkd_config_inierr.kind != ZKD_CONFIG_INI_NONE)
        return 0;
    va_start(ap, fmt);
    if (strncmp(fmt, syntax, sizeof(syntax) - 1) == 0) {
        zkd_config_inierr.kind = ZKD_CONFIG_INI_SYNTAX;
        (void)va_arg(ap, const char *);
        zkd_config_inierr.line = va_arg(ap, int);
        zkd_config_inierr.text[0] = '\0';
        if (strstr(fmt, "-> %s") != NULL) {
            line = va_arg(ap, const char *);
            snprintf(zkd_config_inierr.text, sizeof(zkd_config_inierr.text),
                "%s", line != NULL ? line : "");
        }
    } else if (strncmp(fmt, toolong, sizeof(toolong) - 1) == 0) {
        zkd_config_inierr.kind = ZKD_CONFIG_INI_TOOLONG;
        (void)va_arg(ap, const char *);
        zkd_config_inierr.line = va_arg(ap, int);
    } else if (strncmp(fmt, cantopen, sizeof(cantopen) - 1) == 0) {
        zkd_config_inierr.kind = ZKD_CONFIG_INI_OPEN;
    } else {
        zkd_config_inierr.kind = ZKD_CONFIG_INI_OTHER;
        vsnprintf(zkd_config_inierr.text, sizeof(zkd_config_inierr.text), fmt, ap);
    }
    va_end(ap);
    return 0;
}

/* Turn iniparser's report of a failed iniparser_load() into our error. */
static int
zkd_config_inifail(const struct zkd_config_ctx *x)
{
    char epath[ZKD_CONFIG_EPATH_MAX], etext[ZKD_CONFIG_ESC_MAX];
    size_t n;

    zkd_config_escape(epath, sizeof(epath), x->path, strlen(x->path));
    switch (zkd_config_inierr.kind) {
    case ZKD_CONFIG_INI_SYNTAX:
        zkd_config_escape(etext, sizeof(etext), zkd_config_inierr.text,
            strlen(zkd_config_inierr.text));
        zkd_config_msg(x->err, x->errlen, "%s:%d: syntax error: '%s' (expected "
            "[section], key = value, or a comment starting with '#' or ';')",
            epath, zkd_config_inierr.line, etext);
        return ZKELECT_ECONFIG;
    case ZKD_CONFIG_INI_TOOLONG:
        zkd_config_msg(x->err, x->errlen, "%s:%d: line too long (more than "
            "1023 characters)", epath, zkd_config_inierr.line);
        return ZKELECT_ECONFIG;
    case ZKD_CONFIG_INI_OPEN:
        zkd_config_msg(x->err, x->errlen, "%s: cannot open", epath);
        return ZKELECT_EIO;
    case ZKD_CONFIG_INI_OTHER:
        if (strstr(zkd_config_inierr.text, "memory") != NULL) {
            zkd_config_msg(x->err, x->errlen, "%s: out of memory", epath);
            return ZKELECT_ENOMEM;
        }
        n = strlen(zkd_config_inierr.text);
        while (n > 0 && zkd_config_inierr.text[n - 1] == '\n')
            n--;
        zkd_config_escape(etext, sizeof(etext), zkd_config_inierr.text, n);
        zkd_config_msg(x->err, x->errlen, "%s: %s", epath, etext);
        return ZKELECT_ECONFIG;
    case ZKD_CONFIG_INI_NONE:
        break;
    }
    zkd_config_msg(x->err, x->errlen, "%s: cannot parse", epath);
    return ZKELECT_ECONFIG;
}

/* Can path be opened for reading, and is it a regular file? */
#define ZKD_CONFIG_FILE_MAX (1024 * 1024) /* a config file larger than this is refused */

static int
zkd_config_check_open(const struct zkd_config_ctx *x)
{
    char epath[ZKD_CONFIG_EPATH_MAX];
    struct stat st;
    int fd, saved;

    zkd_config_escape(epath, sizeof(epath), x->path, strlen(x->path));
    fd = open(x->path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd == -1) {
        saved = errno;
        zkd_config_msg(x->err, x->errlen, "%s: cannot open: %s", epath,
            strerror(saved));
        return ZKELECT_EIO;
    }
    if (fstat(fd, &st) == -1) {
        saved = errno;
        close(fd);
        zkd_config_msg(x->err, x->errlen, "%s: cannot stat: %s", epath,
            strerror(saved));
        return ZKELECT_EIO;
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        zkd_config_msg(x->err, x->errlen, "%s: not a regular file", epath);
        return ZKELECT_EIO;
    }
    if (st.st_size > ZKD_CONFIG_FILE_MAX) {
        close(fd);
        zkd_config_msg(x->err, x->errlen, "%s: too large (%lld bytes; at most %d)", epath,
            (long long)st.st_size, ZKD_CONFIG_FILE_MAX);
        return ZKELECT_ECONFIG;
    }
    /* iniparser reads lines with fgets: a NUL byte would cut a line short
       and be reported as something else. Name the line here. */
    {
        char buf[4096];
        ssize_t n, k;
        long line = 1;

        while ((n = read(fd, buf, sizeof(buf))) > 0) {
            for (k = 0; k < n; k++) {
                if (buf[k] == '\0') {
                    close(fd);
                    zkd_config_msg(x->err, x->errlen, "%s:%ld: NUL byte in the file", epath, line);
                    return ZKELECT_ECONFIG;
                }
                if (buf[k] == '\n')
                    line++;
            }
        }
    }
    close(fd);
    return 0;
}

static int
zkd_config_parse_bool(const char *v, int *out)
{
    static const char *const yes[] = { "yes", "true", "on", "1" };
    static const char *const no[] = { "no", "false", "off", "0" };
    size_t i;

    for (i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
        if (strcasecmp(v, yes[i]) == 0) {
            *out = 1;
            return 0;
        }
        if (strcasecmp(v, no[i]) == 0) {
            *out = 0;
            return 0;
        }
    }
    return -1;
}

/* 0 and *out, -1 when v is not a whole decimal integer, 1 when it overflows. */
static int
zkd_config_parse_long(const char *v, long *out)
{
    const char *p = v;
    char *end;
    long l;

    if (*p == '-' || *p == '+')
        p++;
    if (*p < '0' || *p > '9')
        return -1;
    errno = 0;
    l = strtol(v, &end, 10);
    if (*end != '\0')
        return -1;
    if (errno == ERANGE)
        return 1;
    *out = l;
    return 0;
}

/* Parse [node] tags into c->tags / c->ntags. */
static int
zkd_config_parse_tags(const struct zkd_config_ctx *x, const struct zkd_config_key *k,
    const char *v, struct zkd_config *c)
{
    const char *p, *s, *why;
    size_t n, tn;
    char et[ZKD_CONFIG_ESC_MAX];
    int i;
    ZKD_ESC(e, v);

    for (p = v; *p == ' ' || *p == '\t'; p++)
        ;
    if (*p == '\0')
        return 0;
    c->tags = calloc(ZKD_CONFIG_TAGS_MAX, sizeof(*c->tags));
    if (c->tags == NULL)
        return ZKELECT_ENOMEM;
    for (p = v;; p += n + 1) {
        n = strcspn(p, ",");
        for (s = p, tn = n; tn > 0 && (*s == ' ' || *s == '\t'); s++, tn--)
            ;
        while (tn > 0 && (s[tn - 1] == ' ' || s[tn - 1] == '\t'))
            tn--;
        if (c->ntags == ZKD_CONFIG_TAGS_MAX) {
            zkd_config_fail(x, k->section, strlen(k->section), k->name,
                strlen(k->name), "too many tags in '%s' (at most %d)", e,
                ZKD_CONFIG_TAGS_MAX);
            return ZKELECT_ECONFIG;
        }
        if ((why = zkd_config_name_problem(s, tn)) != NULL) {
            zkd_config_escape(et, sizeof(et), s, tn);
            zkd_config_fail(x, k->section, strlen(k->section), k->name,
                strlen(k->name), "invalid tag '%s' in '%s': %s", et, e, why);
            return ZKELECT_ECONFIG;
        }
        for (i = 0; i < c->ntags; i++) {
            if (strlen(c->tags[i]) == tn && memcmp(c->tags[i], s, tn) == 0) {
                zkd_config_escape(et, sizeof(et), s, tn);
                zkd_config_fail(x, k->section, strlen(k->section), k->name,
                    strlen(k->name), "tag '%s' appears twice in '%s'", et, e);
                return ZKELECT_ECONFIG;
            }
        }
        if ((c->tags[c->ntags] = strndup(s, tn)) == NULL)
            return ZKELECT_ENOMEM;
        c->ntags++;
        if (p[n] == '\0')
            return 0;
    }
}

/* Parse one known key's value into c. */
static int
zkd_config_parse_key(const struct zkd_config_ctx *x, const struct zkd_config_key *k,
    const char *v, struct zkd_config *c)
{
    char msg[ZKD_CONFIG_ESC_MAX * 2], **sp;
    size_t sl = strlen(k->section), kl = strlen(k->name), i;
    void *field = (char *)c + k->off;
    long l;
    int rc, b;
    ZKD_ESC(e, v);

    if (*v == '\0' && (k->flags & ZKD_CONFIG_REQUIRED)) {
        zkd_config_fail(x, k->section, sl, k->name, kl, "must not be empty");
        return ZKELECT_ECONFIG;
    }
    switch (k->kind) {
    case ZKD_CONFIG_STR:
        sp = field;
        if (*v == '\0' && (k->flags & ZKD_CONFIG_EMPTY_UNSET)) {
            zkd_config_str_free(*sp);
            *sp = NULL;
            return 0;
        }
        if (k->check(v, msg, sizeof(msg)) != 0) {
            zkd_config_fail(x, k->section, sl, k->name, kl, "%s", msg);
            return ZKELECT_ECONFIG;
        }
        zkd_config_str_free(*sp);
        if ((*sp = strdup(v)) == NULL)
            return ZKELECT_ENOMEM;
        return 0;
    case ZKD_CONFIG_INT:
        rc = zkd_config_parse_long(v, &l);
        if (rc < 0) {
            zkd_config_fail(x, k->section, sl, k->name, kl, "not an integer: "
                "expected a decimal integer in %ld..%ld, got '%s'", k->min,
                k->max, e);
            return ZKELECT_ECONFIG;
        }
        if (rc > 0 || l < k->min || l > k->max) {
            zkd_config_fail(x, k->section, sl, k->name, kl, "out of range: "
                "expected %ld..%ld, got '%s'", k->min, k->max, e);
            return ZKELECT_ECONFIG;
        }
        *(int *)field = (int)l;
        return 0;
    case ZKD_CONFIG_BOOL:
        if (zkd_config_parse_bool(v, &b) != 0) {
            zkd_config_fail(x, k->section, sl, k->name, kl, "expected yes/no, "
                "true/false, on/off or 1/0, got '%s'", e);
            return ZKELECT_ECONFIG;
        }
        *(int *)field = b;
        return 0;
    case ZKD_CONFIG_TAGS:
        return zkd_config_parse_tags(x, k, v, c);
    case ZKD_CONFIG_LEVEL:
        for (i = 0; i < sizeof(zkd_config_levels) / sizeof(zkd_config_levels[0]); i++) {
            if (strcasecmp(v, zkd_config_levels[i].name) == 0) {
                *(int *)field = zkd_config_levels[i].level;
                return 0;
            }
        }
        zkd_config_fail(x, k->section, sl, k->name, kl, "expected debug, info, "
            "notice, warning or error, got '%s'", e);
        return ZKELECT_ECONFIG;
    case ZKD_CONFIG_TARGET:
        if (strcasecmp(v, "stderr") == 0)
            *(int *)field = ZKD_LOG_STDERR;
        else if (strcasecmp(v, "syslog") == 0)
            *(int *)field = ZKD_LOG_SYSLOG;
        else {
            zkd_config_fail(x, k->section, sl, k->name, kl, "expected stderr or "
                "syslog, got '%s'", e);
            return ZKELECT_ECONFIG;
        }
        return 0;
    }
    return ZKELECT_EINVAL;
}

/* Append one [policy] option (name: keylen bytes of key). */
static int
zkd_config_add_option(const struct zkd_config_ctx *x, const char *key, size_t keylen,
    const char *v, struct zkd_config *c)
{
    struct zkd_option *o;
    char *k, *val;
    size_t i;
    ZKD_ESC(e, v);

    for (i = 0; i < keylen; i++) {
        if (!((key[i] >= 'a' && key[i] <= 'z') || (key[i] >= '0' && key[i] <= '9') ||
            key[i] == '_' || key[i] == '-' || key[i] == '.')) {
            zkd_config_fail(x, "policy", 6, key, keylen, "invalid option name: "
                "expected letters, digits, '_', '-' or '.'");
            return ZKELECT_ECONFIG;
        }
    }
    if (keylen > ZKD_CONFIG_NAME_MAX) {
        zkd_config_fail(x, "policy", 6, key, keylen, "option name longer than "
            "64 characters");
        return ZKELECT_ECONFIG;
    }
    if (zkd_config_has_control(v, 1)) {
        zkd_config_fail(x, "policy", 6, key, keylen, "value '%s' contains "
            "control characters", e);
        return ZKELECT_ECONFIG;
    }
    if (c->npolicy_options == ZKD_CONFIG_OPTIONS_MAX) {
        zkd_config_fail(x, "policy", 6, key, keylen, "too many options (at "
            "most %d)", ZKD_CONFIG_OPTIONS_MAX);
        return ZKELECT_ECONFIG;
    }
    k = strndup(key, keylen);
    val = strdup(v);
    o = k == NULL || val == NULL ? NULL : realloc(c->policy_options,
        (size_t)(c->npolicy_options + 1) * sizeof(*o));
    if (o == NULL) {
        free(k);
        free(val);
        return ZKELECT_ENOMEM;
    }
    c->policy_options = o;
    o[c->npolicy_options].key = k;
    o[c->npolicy_options].value = val;
    c->npolicy_options++;
    return 0;
}

static int
zkd_config_known_section(const char *s, size_t n)
{
    size_t i;

    for (i = 0; i < ZKD_CONFIG_NSECTIONS; i++)
        if (strlen(zkd_config_sections[i]) == n &&
            memcmp(zkd_config_sections[i], s, n) == 0)
            return 1;
    return 0;
}

static int
zkd_config_unknown_section(const struct zkd_config_ctx *x, const char *s, size_t n)
{
    size_t i;

    for (i = 0; i < ZKD_CONFIG_NSECTIONS; i++) {
        if (zkd_config_near(s, n, zkd_config_sections[i])) {
            zkd_config_fail(x, s, n, NULL, 0, "unknown section (did you mean "
                "[%s]?)", zkd_config_sections[i]);
            return ZKELECT_ECONFIG;
        }
    }
    zkd_config_fail(x, s, n, NULL, 0, "unknown section (known: zookeeper, "
        "cluster, node, election, policy, hooks, leader, health, http, log)");
    return ZKELECT_ECONFIG;
}

static int
zkd_config_unknown_key(const struct zkd_config_ctx *x, const char *sec, size_t sl,
    const char *key, size_t kl)
{
    const struct zkd_config_key *k;
    char known[256];
    size_t i, o = 0;
    int n;

    known[0] = '\0';

    /* A near miss in the same section first, then the same key elsewhere. */
    for (i = 0; i < ZKD_CONFIG_NKEYS; i++) {
        k = &zkd_config_keys[i];
        if (strlen(k->section) == sl && memcmp(k->section, sec, sl) == 0 &&
            zkd_config_near(key, kl, k->name)) {
            zkd_config_fail(x, sec, sl, key, kl, "unknown key (did you mean "
                "'%s'?)", k->name);
            return ZKELECT_ECONFIG;
        }
    }
    for (i = 0; i < ZKD_CONFIG_NKEYS; i++) {
        k = &zkd_config_keys[i];
        if (strlen(k->name) == kl && memcmp(k->name, key, kl) == 0) {
            zkd_config_fail(x, sec, sl, key, kl, "unknown key (it belongs in "
                "[%s])", k->section);
            return ZKELECT_ECONFIG;
        }
    }
    for (i = 0; i < ZKD_CONFIG_NKEYS; i++) {
        k = &zkd_config_keys[i];
        if (zkd_config_near(key, kl, k->name)) {
            zkd_config_fail(x, sec, sl, key, kl, "unknown key (did you mean "
                "[%s] %s?)", k->section, k->name);
            return ZKELECT_ECONFIG;
        }
    }
    /* No idea: list the section's keys. */
    for (i = 0; i < ZKD_CONFIG_NKEYS; i++) {
        k = &zkd_config_keys[i];
        if (strlen(k->section) != sl || memcmp(k->section, sec, sl) != 0)
            continue;
        n = snprintf(known + o, sizeof(known) - o, "%s%s", o == 0 ? "" : ", ",
            k->name);
        if (n > 0 && (size_t)n < sizeof(known) - o)
            o += (size_t)n;
    }
    zkd_config_fail(x, sec, sl, key, kl, "unknown key (known: %s)", known);
    return ZKELECT_ECONFIG;
}

/* Check and store one "section:key" = value entry of the dictionary. */
static int
zkd_config_entry(const struct zkd_config_ctx *x, const char *full, const char *v,
    struct zkd_config *c)
{
    const char *colon = strchr(full, ':'), *key;
    size_t sl, kl, i;

    if (colon == NULL)                  /* not produced by iniparser_load */
        return zkd_config_unknown_section(x, full, strlen(full));
    sl = (size_t)(colon - full);
    key = colon + 1;
    kl = strlen(key);
    if (sl == 0) {
        zkd_config_fail(x, "", 0, key, kl, "key outside of any section (put it "
            "under a [section] header)");
        return ZKELECT_ECONFIG;
    }
    if (!zkd_config_known_section(full, sl))
        return zkd_config_unknown_section(x, full, sl);
    if (sl == 6 && memcmp(full, "policy", 6) == 0)
        return zkd_config_add_option(x, key, kl, v, c);
    for (i = 0; i < ZKD_CONFIG_NKEYS; i++) {
        if (strlen(zkd_config_keys[i].section) == sl &&
            memcmp(zkd_config_keys[i].section, full, sl) == 0 &&
            strcmp(zkd_config_keys[i].name, key) == 0)
            return zkd_config_parse_key(x, &zkd_config_keys[i], v, c);
    }
    return zkd_config_unknown_key(x, full, sl, key, kl);
}

/* Every required key present? Name all that are missing. */
static int
zkd_config_required(const struct zkd_config_ctx *x, const struct zkd_config *c)
{
    const struct zkd_config_key *k, *first = NULL;
    char also[256];
    size_t i, o = 0;
    int n;

    also[0] = '\0';
    for (i = 0; i < ZKD_CONFIG_NKEYS; i++) {
        k = &zkd_config_keys[i];
        if (!(k->flags & ZKD_CONFIG_REQUIRED) ||
            *(char **)((const char *)c + k->off) != NULL)
            continue;
        if (first == NULL) {
            first = k;
            continue;
        }
        n = snprintf(also + o, sizeof(also) - o, "%s[%s] %s",
            o == 0 ? " (also missing: " : ", ", k->section, k->name);
        if (n > 0 && (size_t)n < sizeof(also) - o)
            o += (size_t)n;
    }
    if (first == NULL)
        return 0;
    zkd_config_fail(x, first->section, strlen(first->section), first->name,
        strlen(first->name), "required key missing%s%s", also, o > 0 ? ")" : "");
    return ZKELECT_ECONFIG;
}

/*
 * The self-fence arithmetic (zkelectd(8), TIMING): derive what is unset,
 * then check, naming the keys, and saying which values were derived:
 *   fence_ms + stepdown_timeout_ms <= session_timeout_ms / 2 (the other
 *     half of T is the clock-rate allowance);
 *   fence_ms >= 100 (a derived one can only miss it when D was set);
 *   stop_timeout_ms < stepdown_timeout_ms (the stepdown hook keeps a share);
 *   watchdog_ms > stepdown_timeout_ms (a failed takeover steps down, within
 *     D, before the elector's watchdog gives up on it).
 * The ranges of the key table were checked before.
 */
static int
zkd_config_timing(const struct zkd_config_ctx *x, struct zkd_config *c)
{
    bool dset = c->stepdown_timeout_ms >= 0, fset = c->leader_fence_ms >= 0;
    bool sset = c->leader_stop_timeout_ms >= 0;
    const char *dwhat = dset ? "" : " (derived)", *fwhat = fset ? "" : " (derived)";
    int t = c->session_timeout_ms, d, f;

    zkd_config_derive(c);
    d = c->stepdown_timeout_ms;
    f = c->leader_fence_ms;
    if (c->watchdog_ms <= d) {
        zkd_config_fail(x, "hooks", 5, "stepdown_timeout_ms", 19, "%d ms must be "
            "less than [election] watchdog_ms (%d ms): a failed takeover steps down "
            "before the elector's watchdog moves on", d, c->watchdog_ms);
        return ZKELECT_ECONFIG;
    }
    if (f < 100) {
        zkd_config_fail(x, "leader", 6, "fence_ms", 8, "%d ms%s is below 100 ms: "
            "[zookeeper] session_timeout_ms / 2 (%d ms) - [hooks] "
            "stepdown_timeout_ms (%d ms%s) leaves too little; lower "
            "stepdown_timeout_ms or raise session_timeout_ms", f, fwhat, t / 2, d,
            dwhat);
        return ZKELECT_ECONFIG;
    }
    if ((long)f + d > t / 2) {
        zkd_config_fail(x, "leader", 6, "fence_ms", 8, "fence_ms + [hooks] "
            "stepdown_timeout_ms = %d ms%s + %d ms%s = %ld ms exceeds half of "
            "[zookeeper] session_timeout_ms (%d ms): the step-down would not end "
            "before the session can expire", f, fwhat, d, dwhat, (long)f + d, t / 2);
        return ZKELECT_ECONFIG;
    }
    if (c->leader_stop_timeout_ms >= d) {
        zkd_config_fail(x, "leader", 6, "stop_timeout_ms", 15, "%d ms%s must be "
            "less than [hooks] stepdown_timeout_ms (%d ms%s): the stepdown hook "
            "runs within what is left of it", c->leader_stop_timeout_ms,
            sset ? "" : " (derived)", d, dwhat);
        return ZKELECT_ECONFIG;
    }
    return 0;
}

int
zkd_config_load(const char *path, struct zkd_config *c, char *err, size_t errlen)
{
    struct zkd_config_ctx x = { path, err, errlen };
    dictionary *d = NULL;
    ssize_t i;
    int rc;

    zkd_config_init(c);
    if (err != NULL && errlen > 0)
        err[0] = '\0';
    if (path == NULL) {
        zkd_config_msg(err, errlen, "no configuration file given");
        return ZKELECT_EINVAL;
    }
    if ((rc = zkd_config_check_open(&x)) != 0)
        return rc;

    iniparser_set_error_callback(zkd_config_inicb);
    zkd_config_inierr.kind = ZKD_CONFIG_INI_NONE;
    if ((d = iniparser_load(path)) == NULL)
        return zkd_config_inifail(&x);
    /* unset until the file says otherwise: zkd_config_timing() derives them */
    c->stepdown_timeout_ms = c->leader_stop_timeout_ms = c->leader_fence_ms = -1;

    /* Entries in file order: sections (value NULL) and "section:key". */
    for (i = 0; i < d->size; i++) {
        if (d->key[i] == NULL)
            continue;
        if (d->val[i] == NULL) {
            if (zkd_config_known_section(d->key[i], strlen(d->key[i])))
                continue;
            rc = zkd_config_unknown_section(&x, d->key[i], strlen(d->key[i]));
        } else {
            rc = zkd_config_entry(&x, d->key[i], d->val[i], c);
        }
        if (rc != 0)
            goto err;
    }
    if ((rc = zkd_config_required(&x, c)) != 0 || (rc = zkd_config_timing(&x, c)) != 0)
        goto err;
    iniparser_freedict(d);
    return 0;

err:
    if (rc == ZKELECT_ENOMEM)
        zkd_config_msg(err, errlen, "%s: out of memory", path);
    iniparser_freedict(d);
    zkd_config_free(c);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* The credential reader                                                    */
/* ------------------------------------------------------------------------ */

void
zkd_config_secret_free(char *secret)
{
    zke_secret_free(secret);
}

int
zkd_config_load_secret(const char *path, char **out, char *err, size_t errlen)
{
    char msg[ZKD_CONFIG_EPATH_MAX + 256];
    int rc;

    *out = NULL;
    if (err != NULL && errlen > 0)
        err[0] = '\0';
    if (path == NULL) {
        zkd_config_msg(err, errlen, "no credential file given");
        return ZKELECT_EINVAL;
    }
    rc = zke_secret_read(path, out, msg, sizeof(msg));
    if (rc == 0)
        return 0;
    zkd_config_msg(err, errlen, "%s", msg);
    return rc == -1 ? ZKELECT_EIO : ZKELECT_ECONFIG;
}

/* ------------------------------------------------------------------------ */
/* The listen parser                                                        */
/* ------------------------------------------------------------------------ */

int
zkd_config_listen_addr(const char *listen, struct sockaddr_storage *ss,
    socklen_t *sslen)
{
    char host[INET6_ADDRSTRLEN + 1];
    const char *colon, *portstr;
    struct sockaddr_in sin;
    struct sockaddr_in6 sin6;
    size_t hn;
    int port, family;

    if (listen == NULL || *listen == '\0')
        return ZKELECT_EINVAL;
    if (listen[0] == '[') {
        colon = strstr(listen, "]:");
        if (colon == NULL)
            return ZKELECT_EINVAL;
        hn = (size_t)(colon - listen - 1);
        memcpy(host, listen + 1, hn < sizeof(host) ? hn : 0);
        portstr = colon + 2;
        family = AF_INET6;
    } else if ((colon = strrchr(listen, ':')) != NULL) {
        hn = (size_t)(colon - listen);
        memcpy(host, listen, hn < sizeof(host) ? hn : 0);
        portstr = colon + 1;
        family = AF_INET;
    } else {
        hn = strlen("127.0.0.1");
        memcpy(host, "127.0.0.1", hn);
        portstr = listen;
        family = AF_INET;
    }
    if (hn == 0 || hn >= sizeof(host))
        return ZKELECT_EINVAL;
    host[hn] = '\0';
    if ((port = zkd_config_port(portstr, strlen(portstr))) < 0)
        return ZKELECT_EINVAL;
    if (family == AF_INET) {
        memset(&sin, 0, sizeof(sin));
        sin.sin_family = AF_INET;
        sin.sin_port = htons((uint16_t)port);
        if (inet_pton(AF_INET, host, &sin.sin_addr) != 1)
            return ZKELECT_EINVAL;
        if (ss != NULL) {
            memset(ss, 0, sizeof(*ss));
            memcpy(ss, &sin, sizeof(sin));
        }
        if (sslen != NULL)
            *sslen = sizeof(sin);
    } else {
        memset(&sin6, 0, sizeof(sin6));
        sin6.sin6_family = AF_INET6;
        sin6.sin6_port = htons((uint16_t)port);
        if (inet_pton(AF_INET6, host, &sin6.sin6_addr) != 1)
            return ZKELECT_EINVAL;
        if (ss != NULL) {
            memset(ss, 0, sizeof(*ss));
            memcpy(ss, &sin6, sizeof(sin6));
        }
        if (sslen != NULL)
            *sslen = sizeof(sin6);
    }
    return 0;
}
