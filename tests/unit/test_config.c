/*
 * test_config.c - unit tests of zkelectd's INI loader (src/daemon/config.c).
 *
 * Each test writes INI text to a temporary file (mkstemp in $TMPDIR), loads
 * it and checks the result; every error test checks the code and that the
 * message names the file, the section and the key. The sample
 * etc/zkelect.ini is found through $ZKELECT_TOP_SRCDIR (set by make check).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include "daemon/config.h"      /* not the autoconf config.h */
#include "cutest.h"
#include "zkelect.h"

/* The smallest valid configuration. */
#define MINIMAL "[zookeeper]\nhosts = zk1:2181\n[node]\nid = n1\n"

/* An assertion reported at the caller's line. */
#define CHECK_AT(cond, line) \
    CU_assertImplementation((cond) ? CU_TRUE : CU_FALSE, (unsigned)(line), \
        #cond, __FILE__, "", CU_FALSE)

/* One load: the file, its result and the message. */
struct run {
    char path[PATH_MAX];                /* temporary file (already removed) */
    char err[1024];                     /* the loader's message */
    int rc;                             /* zkd_config_load()'s result */
    struct zkd_config c;                /* what it loaded */
};

static const char *
tmpdir(void)
{
    const char *t = getenv("TMPDIR");

    return t != NULL && *t != '\0' ? t : "/tmp";
}

/* Write n bytes to a new temporary file (mode 0600); its name in path. */
static int
write_tmp(char *path, size_t pathlen, const void *data, size_t n)
{
    ssize_t w;
    int fd;

    snprintf(path, pathlen, "%s/zkelect-config-XXXXXX", tmpdir());
    if ((fd = mkstemp(path)) == -1)
        return -1;
    w = write(fd, data, n);
    if (close(fd) != 0 || w != (ssize_t)n) {
        unlink(path);
        return -1;
    }
    return 0;
}

static void
run_text(struct run *r, const char *text)
{
    memset(r, 0, sizeof(*r));
    if (write_tmp(r->path, sizeof(r->path), text, strlen(text)) != 0) {
        CU_FAIL_FATAL("cannot write a temporary file");
        return;
    }
    r->rc = zkd_config_load(r->path, &r->c, r->err, sizeof(r->err));
    unlink(r->path);
}

/* Minimal configuration plus extra text. Static buffer. */
static const char *
cfg(const char *extra)
{
    static char buf[8192];

    snprintf(buf, sizeof(buf), "%s%s\n", MINIMAL, extra);
    return buf;
}

/* Is *c in its initialised state (what a failed load leaves)? */
static int
is_initialised(const struct zkd_config *c)
{
    return c->zk_hosts == NULL && c->node_id == NULL && c->tags == NULL &&
        c->ntags == 0 && c->policy_options == NULL && c->npolicy_options == 0 &&
        c->hook_takeover == NULL && c->http_listen == NULL &&
        strcmp(c->path, "/cluster") == 0 && strcmp(c->policy, "site") == 0 &&
        c->session_timeout_ms == 10000 && c->eligible == 1;
}

/*
 * Load text and expect ZKELECT_ECONFIG with a message naming the file,
 * "[section] key:" (or "[section]:" when key is NULL) and containing frag.
 */
static void
expect_fail_at(const char *text, const char *section, const char *key,
    const char *frag, int line)
{
    struct run r;
    char want[256];
    int ok;

    run_text(&r, text);
    if (key != NULL)
        snprintf(want, sizeof(want), "[%s] %s: ", section, key);
    else
        snprintf(want, sizeof(want), "[%s]: ", section);
    ok = r.rc == ZKELECT_ECONFIG && strstr(r.err, r.path) == r.err &&
        strstr(r.err, want) != NULL && (frag == NULL || strstr(r.err, frag) != NULL);
    if (!ok)
        fprintf(stderr, "\nline %d: rc %d, want '%s' + '%s', got: %s\n", line, r.rc,
            want, frag != NULL ? frag : "", r.err);
    CHECK_AT(r.rc == ZKELECT_ECONFIG, line);
    CHECK_AT(strstr(r.err, r.path) == r.err, line);
    CHECK_AT(strstr(r.err, want) != NULL, line);
    CHECK_AT(frag == NULL || strstr(r.err, frag) != NULL, line);
    CHECK_AT(is_initialised(&r.c), line);
    zkd_config_free(&r.c);
}

#define EXPECT_FAIL(text, section, key, frag) \
    expect_fail_at((text), (section), (key), (frag), __LINE__)

/* Minimal config with "[section]\nkey = value" appended must fail. */
#define EXPECT_BAD(section, key, value, frag) \
    EXPECT_FAIL(cfg("[" section "]\n" key " = " value), section, key, frag)

static int
load_ok_at(struct run *r, const char *text, int line)
{
    run_text(r, text);
    if (r->rc != 0)
        fprintf(stderr, "\nline %d: rc %d: %s\n", line, r->rc, r->err);
    CHECK_AT(r->rc == 0, line);
    return r->rc == 0;
}

#define LOAD_OK(r, text) load_ok_at((r), (text), __LINE__)

/* ------------------------------------------------------------------------ */
/* Defaults, minimal configuration, the sample                              */
/* ------------------------------------------------------------------------ */

static void
check_defaults_at(const struct zkd_config *c, int line)
{
    CHECK_AT(c->session_timeout_ms == 10000, line);
    CHECK_AT(c->connect_timeout_ms == 15000, line);
    CHECK_AT(c->auth_file == NULL, line);
    CHECK_AT(c->path != NULL && strcmp(c->path, "/cluster") == 0, line);
    CHECK_AT(c->site != NULL && strcmp(c->site, "") == 0, line);
    CHECK_AT(c->priority == 0, line);
    CHECK_AT(c->tags == NULL && c->ntags == 0, line);
    CHECK_AT(c->eligible == 1, line);
    CHECK_AT(c->state_dir != NULL && strcmp(c->state_dir, "/var/lib/zkelect") == 0, line);
    CHECK_AT(c->policy != NULL && strcmp(c->policy, "site") == 0, line);
    CHECK_AT(c->policy_path == NULL, line);
    CHECK_AT(c->watchdog_ms == 10000, line);
    CHECK_AT(c->exclude_ms == 60000, line);
    CHECK_AT(c->policy_options == NULL && c->npolicy_options == 0, line);
    CHECK_AT(c->hook_takeover == NULL && c->hook_stepdown == NULL &&
        c->hook_notify == NULL, line);
    CHECK_AT(c->hook_timeout_ms == 30000, line);
    CHECK_AT(c->health_command == NULL, line);
    CHECK_AT(c->health_interval_ms == 5000, line);
    CHECK_AT(c->health_failures == 3, line);
    CHECK_AT(c->http_listen == NULL, line);
    CHECK_AT(c->log_level == LOG_INFO, line);
    CHECK_AT(c->log_target == ZKD_LOG_STDERR, line);
    CHECK_AT(c->log_events == NULL, line);
    CHECK_AT(c->leader_command == NULL && c->leader_ready_command == NULL, line);
    /* the derived timing of T = 10000, watchdog_ms = 10000 */
    CHECK_AT(c->stepdown_timeout_ms == 2500, line);
    CHECK_AT(c->leader_fence_ms == 2500, line);
    CHECK_AT(c->leader_stop_timeout_ms == 1250, line);
}

static void
test_init_defaults(void)
{
    struct zkd_config c;

    memset(&c, 0xa5, sizeof(c));
    zkd_config_init(&c);
    check_defaults_at(&c, __LINE__);
    CU_ASSERT_PTR_NULL(c.zk_hosts);
    CU_ASSERT_PTR_NULL(c.node_id);
    zkd_config_free(&c);                /* harmless, nothing to free */
    zkd_config_free(&c);
    check_defaults_at(&c, __LINE__);
    zkd_config_free(NULL);
}

static void
test_minimal(void)
{
    struct run r;

    if (!LOAD_OK(&r, MINIMAL))
        return;
    CU_ASSERT_STRING_EQUAL(r.c.zk_hosts, "zk1:2181");
    CU_ASSERT_STRING_EQUAL(r.c.node_id, "n1");
    CU_ASSERT_STRING_EQUAL(r.err, "");
    check_defaults_at(&r.c, __LINE__);
    zkd_config_free(&r.c);
    CU_ASSERT_PTR_NULL(r.c.zk_hosts);   /* free re-initialises */
    zkd_config_free(&r.c);              /* and may be repeated */
}

static void
test_all_keys(void)
{
    struct run r;

    if (!LOAD_OK(&r,
        "[zookeeper]\n"
        "hosts = zk1:2181,10.0.0.2:2182,::1:2183/apps/zk\n"
        "session_timeout_ms = 20000\n"
        "connect_timeout_ms = 5000\n"
        "auth_file = /etc/zkelect/secret\n"
        "[cluster]\npath = /groups/g1\n"
        "[node]\nid = node-7.a_b\nsite = dc2\npriority = -5\n"
        "tags = ssd , rack-a,x\neligible = no\n"
        "[election]\npolicy = nodeid\npolicy_path = /opt/p:/usr/lib/p\n"
        "watchdog_ms = 2000\nexclude_ms = 0\n"
        "[policy]\npreempt = off\nfailover = other-site\n"
        "[hooks]\ntakeover = /bin/true\nstepdown = /usr/bin/stepdown\n"
        "notify = /no/such/notify\ntimeout_ms = 100\n"
        "[health]\ncommand = \"test -e /tmp ; exit 0\"\ninterval_ms = 250\n"
        "failures = 7\n"
        "[http]\nlisten = 0.0.0.0:8181\n"
        "[log]\nlevel = debug\ntarget = syslog\n"
        "events = /var/log/zkelect/events.json\n"))
        return;
    CU_ASSERT_STRING_EQUAL(r.c.zk_hosts, "zk1:2181,10.0.0.2:2182,::1:2183/apps/zk");
    CU_ASSERT_EQUAL(r.c.session_timeout_ms, 20000);
    CU_ASSERT_EQUAL(r.c.connect_timeout_ms, 5000);
    CU_ASSERT_STRING_EQUAL(r.c.auth_file, "/etc/zkelect/secret");
    CU_ASSERT_STRING_EQUAL(r.c.path, "/groups/g1");
    CU_ASSERT_STRING_EQUAL(r.c.node_id, "node-7.a_b");
    CU_ASSERT_STRING_EQUAL(r.c.site, "dc2");
    CU_ASSERT_EQUAL(r.c.priority, -5);
    CU_ASSERT_EQUAL_FATAL(r.c.ntags, 3);
    CU_ASSERT_STRING_EQUAL(r.c.tags[0], "ssd");
    CU_ASSERT_STRING_EQUAL(r.c.tags[1], "rack-a");
    CU_ASSERT_STRING_EQUAL(r.c.tags[2], "x");
    CU_ASSERT_EQUAL(r.c.eligible, 0);
    CU_ASSERT_STRING_EQUAL(r.c.policy, "nodeid");
    CU_ASSERT_STRING_EQUAL(r.c.policy_path, "/opt/p:/usr/lib/p");
    CU_ASSERT_EQUAL(r.c.watchdog_ms, 2000);
    CU_ASSERT_EQUAL(r.c.exclude_ms, 0);
    CU_ASSERT_EQUAL_FATAL(r.c.npolicy_options, 2);
    CU_ASSERT_STRING_EQUAL(r.c.policy_options[0].key, "preempt");
    CU_ASSERT_STRING_EQUAL(r.c.policy_options[0].value, "off");
    CU_ASSERT_STRING_EQUAL(r.c.policy_options[1].key, "failover");
    CU_ASSERT_STRING_EQUAL(r.c.policy_options[1].value, "other-site");
    CU_ASSERT_STRING_EQUAL(r.c.hook_takeover, "/bin/true");
    CU_ASSERT_STRING_EQUAL(r.c.hook_stepdown, "/usr/bin/stepdown");
    CU_ASSERT_STRING_EQUAL(r.c.hook_notify, "/no/such/notify"); /* need not exist */
    CU_ASSERT_EQUAL(r.c.hook_timeout_ms, 100);
    CU_ASSERT_STRING_EQUAL(r.c.health_command, "test -e /tmp ; exit 0");
    CU_ASSERT_EQUAL(r.c.health_interval_ms, 250);
    CU_ASSERT_EQUAL(r.c.health_failures, 7);
    CU_ASSERT_STRING_EQUAL(r.c.http_listen, "0.0.0.0:8181");
    CU_ASSERT_EQUAL(r.c.log_level, LOG_DEBUG);
    CU_ASSERT_EQUAL(r.c.log_target, ZKD_LOG_SYSLOG);
    CU_ASSERT_STRING_EQUAL(r.c.log_events, "/var/log/zkelect/events.json");
    zkd_config_free(&r.c);
    CU_ASSERT(is_initialised(&r.c));
    CU_ASSERT_PTR_NULL(r.c.log_events);
}

static void
test_case_insensitive_names(void)
{
    struct run r;

    if (!LOAD_OK(&r, "[ZooKeeper]\nHOSTS = zk1:2181\n[Node]\nId = N1\n"
        "[LOG]\nLevel = WARNING\nTarget = SysLog\n[node]\neligible = OFF\n"))
        return;
    CU_ASSERT_STRING_EQUAL(r.c.zk_hosts, "zk1:2181");
    CU_ASSERT_STRING_EQUAL(r.c.node_id, "N1");  /* values keep their case */
    CU_ASSERT_EQUAL(r.c.log_level, LOG_WARNING);
    CU_ASSERT_EQUAL(r.c.log_target, ZKD_LOG_SYSLOG);
    CU_ASSERT_EQUAL(r.c.eligible, 0);
    zkd_config_free(&r.c);
}

static void
test_empty_optional_means_unset(void)
{
    struct run r;

    if (!LOAD_OK(&r, cfg("[zookeeper]\nauth_file =\n[hooks]\ntakeover = \"\"\n"
        "[http]\nlisten =\n[health]\ncommand =\n[node]\nsite =\ntags =\n")))
        return;
    CU_ASSERT_PTR_NULL(r.c.auth_file);
    CU_ASSERT_PTR_NULL(r.c.hook_takeover);
    CU_ASSERT_PTR_NULL(r.c.http_listen);
    CU_ASSERT_PTR_NULL(r.c.health_command);
    CU_ASSERT_STRING_EQUAL(r.c.site, "");
    CU_ASSERT_EQUAL(r.c.ntags, 0);
    zkd_config_free(&r.c);
}

/* Read the sample; NULL (and a test failure) if it cannot be found. */
static char *
read_sample(char *path, size_t pathlen)
{
    const char *top = getenv("ZKELECT_TOP_SRCDIR");
    char *buf;
    FILE *f;
    long n;

    if (top == NULL) {
        CU_FAIL("ZKELECT_TOP_SRCDIR is not set (run through make check)");
        return NULL;
    }
    snprintf(path, pathlen, "%s/etc/zkelect.ini", top);
    if ((f = fopen(path, "r")) == NULL) {
        CU_FAIL("cannot open etc/zkelect.ini");
        return NULL;
    }
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    rewind(f);
    buf = calloc(1, (size_t)n + 1);
    if (buf == NULL || fread(buf, 1, (size_t)n, f) != (size_t)n) {
        CU_FAIL("cannot read etc/zkelect.ini");
        free(buf);
        buf = NULL;
    }
    fclose(f);
    return buf;
}

static void
test_sample_loads(void)
{
    struct zkd_config c;
    char path[PATH_MAX], err[1024], *text;
    int rc;

    if ((text = read_sample(path, sizeof(path))) == NULL)
        return;
    free(text);
    rc = zkd_config_load(path, &c, err, sizeof(err));
    if (rc != 0)
        fprintf(stderr, "\n%s\n", err);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    /* Only hosts and id are set in the sample. */
    CU_ASSERT_STRING_EQUAL(c.zk_hosts, "127.0.0.1:2181");
    CU_ASSERT_STRING_EQUAL(c.node_id, "node1");
    check_defaults_at(&c, __LINE__);
    zkd_config_free(&c);
}

/*
 * Remove the ';' of every "; key = value" line of the sample: the documented
 * defaults must load and equal the code's defaults.
 */
static void
test_sample_uncommented(void)
{
    char path[PATH_MAX], *text, *out, *line, *next, *p;
    struct run r;
    size_t o = 0;
    int keys = 0;

    if ((text = read_sample(path, sizeof(path))) == NULL)
        return;
    out = calloc(1, strlen(text) + 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    for (line = text; *line != '\0'; line = next) {
        next = strchr(line, '\n');
        next = next != NULL ? next + 1 : line + strlen(line);
        p = line;
        if (*p == ';') {
            for (p++; *p == ' '; p++)
                ;
            if (*p >= 'a' && *p <= 'z' && memchr(p, '=', (size_t)(next - p)) != NULL)
                keys++;
            else
                p = line;
        }
        memcpy(out + o, p, (size_t)(next - p));
        o += (size_t)(next - p);
    }
    free(text);
    CU_ASSERT(keys >= 25);              /* every key but hosts and id, + 3 options */
    if (LOAD_OK(&r, out)) {
        CU_ASSERT_EQUAL(r.c.session_timeout_ms, 10000);
        CU_ASSERT_EQUAL(r.c.connect_timeout_ms, 15000);
        CU_ASSERT_STRING_EQUAL(r.c.path, "/cluster");
        CU_ASSERT_EQUAL(r.c.priority, 0);
        CU_ASSERT_EQUAL(r.c.eligible, 1);
        CU_ASSERT_STRING_EQUAL(r.c.policy, "site");
        CU_ASSERT_EQUAL(r.c.watchdog_ms, 10000);
        CU_ASSERT_EQUAL(r.c.exclude_ms, 60000);
        CU_ASSERT_EQUAL(r.c.hook_timeout_ms, 30000);
        CU_ASSERT_EQUAL(r.c.health_interval_ms, 5000);
        CU_ASSERT_EQUAL(r.c.health_failures, 3);
        CU_ASSERT_EQUAL(r.c.log_level, LOG_INFO);
        CU_ASSERT_EQUAL(r.c.log_target, ZKD_LOG_STDERR);
        /* The examples of keys without a default are valid too. */
        CU_ASSERT_PTR_NOT_NULL(r.c.auth_file);
        CU_ASSERT_PTR_NOT_NULL(r.c.hook_takeover);
        CU_ASSERT_PTR_NOT_NULL(r.c.health_command);
        CU_ASSERT_PTR_NOT_NULL(r.c.http_listen);
        CU_ASSERT_PTR_NOT_NULL(r.c.log_events);
        CU_ASSERT(r.c.ntags > 0);
        CU_ASSERT_EQUAL_FATAL(r.c.npolicy_options, 3);
        CU_ASSERT_STRING_EQUAL(r.c.policy_options[0].key, "preempt");
        CU_ASSERT_STRING_EQUAL(r.c.policy_options[1].value, "other-site");
        CU_ASSERT_STRING_EQUAL(r.c.policy_options[2].key, "spread");
        CU_ASSERT_STRING_EQUAL(r.c.policy_options[2].value, "sites");
        zkd_config_free(&r.c);
    }
    free(out);
}

/* ------------------------------------------------------------------------ */
/* Integer keys                                                             */
/* ------------------------------------------------------------------------ */

static void
int_not_number(const char *sec, const char *key, long lo, long hi)
{
    static const char *const bad[] = {
        "10s", "1e3", "0x10", "ten", "5 5", "--5", "+", "-", "1.5", "\"\"",
    };
    char text[512], range[64], got[64];
    size_t i;

    snprintf(range, sizeof(range), "%ld..%ld", lo, hi);
    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        snprintf(text, sizeof(text), "%s[%s]\n%s = %s\n", MINIMAL, sec, key, bad[i]);
        snprintf(got, sizeof(got), "got '%s'", strcmp(bad[i], "\"\"") == 0 ? "" :
            bad[i]);
        EXPECT_FAIL(text, sec, key, range);
        EXPECT_FAIL(text, sec, key, got);
        EXPECT_FAIL(text, sec, key, "not an integer");
    }
}

static void
int_out_of_range(const char *sec, const char *key, const char *value, long lo,
    long hi)
{
    char text[512], range[64], got[96];

    snprintf(range, sizeof(range), "%ld..%ld", lo, hi);
    snprintf(got, sizeof(got), "got '%s'", value);
    snprintf(text, sizeof(text), "%s[%s]\n%s = %s\n", MINIMAL, sec, key, value);
    EXPECT_FAIL(text, sec, key, range);
    EXPECT_FAIL(text, sec, key, got);
    EXPECT_FAIL(text, sec, key, "out of range");
}

static void
int_below(const char *sec, const char *key, long lo, long hi)
{
    char v[32];

    snprintf(v, sizeof(v), "%ld", lo - 1);
    int_out_of_range(sec, key, v, lo, hi);
    int_out_of_range(sec, key, "-99999999999999999999999", lo, hi);
}

static void
int_above(const char *sec, const char *key, long lo, long hi)
{
    char v[32];

    snprintf(v, sizeof(v), "%ld", hi + 1);
    int_out_of_range(sec, key, v, lo, hi);
    int_out_of_range(sec, key, "2147483648", lo, hi);
    int_out_of_range(sec, key, "99999999999999999999999", lo, hi);
}

static void
int_bounds(const char *sec, const char *key, size_t off, long lo, long hi)
{
    char text[512];
    struct run r;

    snprintf(text, sizeof(text), "%s[%s]\n%s = %ld\n", MINIMAL, sec, key, lo);
    if (LOAD_OK(&r, text)) {
        CU_ASSERT_EQUAL(*(int *)((char *)&r.c + off), (int)lo);
        zkd_config_free(&r.c);
    }
    snprintf(text, sizeof(text), "%s[%s]\n%s = %ld\n", MINIMAL, sec, key, hi);
    if (LOAD_OK(&r, text)) {
        CU_ASSERT_EQUAL(*(int *)((char *)&r.c + off), (int)hi);
        zkd_config_free(&r.c);
    }
    /* Leading zeros are decimal, not octal. */
    snprintf(text, sizeof(text), "%s[%s]\n%s = 0%ld\n", MINIMAL, sec, key,
        lo > 0 ? lo : 1);
    if (LOAD_OK(&r, text)) {
        CU_ASSERT_EQUAL(*(int *)((char *)&r.c + off), (int)(lo > 0 ? lo : 1));
        zkd_config_free(&r.c);
    }
}

#define INT_KEY_TESTS(tag, sec, key, field, lo, hi) \
    static void test_int_##tag##_nan(void) { int_not_number(sec, key, lo, hi); } \
    static void test_int_##tag##_below(void) { int_below(sec, key, lo, hi); } \
    static void test_int_##tag##_above(void) { int_above(sec, key, lo, hi); } \
    static void test_int_##tag##_bounds(void) \
    { int_bounds(sec, key, offsetof(struct zkd_config, field), lo, hi); }

INT_KEY_TESTS(session, "zookeeper", "session_timeout_ms", session_timeout_ms, 1000, 600000)
INT_KEY_TESTS(connect, "zookeeper", "connect_timeout_ms", connect_timeout_ms, 100, 600000)
INT_KEY_TESTS(priority, "node", "priority", priority, -1000000, 1000000)
INT_KEY_TESTS(watchdog, "election", "watchdog_ms", watchdog_ms, 100, 3600000)
INT_KEY_TESTS(exclude, "election", "exclude_ms", exclude_ms, 0, 86400000)
INT_KEY_TESTS(hooktimeout, "hooks", "timeout_ms", hook_timeout_ms, 100, 3600000)
INT_KEY_TESTS(interval, "health", "interval_ms", health_interval_ms, 100, 3600000)
INT_KEY_TESTS(failures, "health", "failures", health_failures, 1, 1000)

#define INT_TEST_INFO(tag) \
    { #tag " not a number", test_int_##tag##_nan }, \
    { #tag " below minimum", test_int_##tag##_below }, \
    { #tag " above maximum", test_int_##tag##_above }, \
    { #tag " bounds accepted", test_int_##tag##_bounds }

/* ------------------------------------------------------------------------ */
/* Booleans, words                                                          */
/* ------------------------------------------------------------------------ */

static void
test_bool_bad(void)
{
    EXPECT_BAD("node", "eligible", "maybe", "got 'maybe'");
    EXPECT_BAD("node", "state_dir", "var/lib/zkelect", "must be an absolute path");
    EXPECT_BAD("node", "eligible", "yess", "yes/no");
    EXPECT_BAD("node", "eligible", "2", "got '2'");
    EXPECT_BAD("node", "eligible", "y", "got 'y'");
    EXPECT_BAD("node", "eligible", "enabled", "got 'enabled'");
    EXPECT_BAD("node", "eligible", "\"\"", "got ''");
}

static void
test_bool_good(void)
{
    static const struct {
        const char *text;               /* value */
        int want;                       /* result */
    } v[] = {
        { "yes", 1 }, { "no", 0 }, { "true", 1 }, { "false", 0 }, { "on", 1 },
        { "off", 0 }, { "1", 1 }, { "0", 0 }, { "YES", 1 }, { "False", 0 },
    };
    char text[256];
    struct run r;
    size_t i;

    for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
        snprintf(text, sizeof(text), "%s[node]\neligible = %s\n", MINIMAL, v[i].text);
        if (LOAD_OK(&r, text)) {
            CU_ASSERT_EQUAL(r.c.eligible, v[i].want);
            zkd_config_free(&r.c);
        }
    }
}

static void
test_log_level(void)
{
    static const struct {
        const char *text;               /* value */
        int want;                       /* syslog level */
    } v[] = {
        { "debug", LOG_DEBUG }, { "info", LOG_INFO }, { "notice", LOG_NOTICE },
        { "warning", LOG_WARNING }, { "error", LOG_ERR },
    };
    char text[256];
    struct run r;
    size_t i;

    for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
        snprintf(text, sizeof(text), "%s[log]\nlevel = %s\n", MINIMAL, v[i].text);
        if (LOAD_OK(&r, text)) {
            CU_ASSERT_EQUAL(r.c.log_level, v[i].want);
            zkd_config_free(&r.c);
        }
    }
}

static void
test_log_level_bad(void)
{
    EXPECT_BAD("log", "level", "verbose", "got 'verbose'");
    EXPECT_BAD("log", "level", "warn", "got 'warn'");
    EXPECT_BAD("log", "level", "err", "debug, info, notice, warning or error");
    EXPECT_BAD("log", "level", "7", "got '7'");
    EXPECT_BAD("log", "level", "\"\"", "got ''");
}

static void
test_log_target(void)
{
    struct run r;

    EXPECT_BAD("log", "target", "file", "got 'file'");
    EXPECT_BAD("log", "target", "/var/log/zk", "stderr or syslog");
    EXPECT_BAD("log", "target", "\"\"", "got ''");
    if (LOAD_OK(&r, cfg("[log]\ntarget = stderr"))) {
        CU_ASSERT_EQUAL(r.c.log_target, ZKD_LOG_STDERR);
        zkd_config_free(&r.c);
    }
}

/* ------------------------------------------------------------------------ */
/* Required keys, unknown sections and keys                                 */
/* ------------------------------------------------------------------------ */

static void
test_required_hosts_missing(void)
{
    EXPECT_FAIL("[zookeeper]\nsession_timeout_ms = 2000\n[node]\nid = n1\n",
        "zookeeper", "hosts", "required key missing");
    EXPECT_FAIL("[node]\nid = n1\n", "zookeeper", "hosts", "required");
}

static void
test_required_id_missing(void)
{
    EXPECT_FAIL("[zookeeper]\nhosts = zk:2181\n", "node", "id",
        "required key missing");
    EXPECT_FAIL("[zookeeper]\nhosts = zk:2181\n[node]\nsite = a\n", "node", "id",
        "required key missing");
}

static void
test_required_both_missing(void)
{
    /* Both are named; an empty file is just that. */
    EXPECT_FAIL("", "zookeeper", "hosts", "also missing: [node] id");
    EXPECT_FAIL("# nothing\n[log]\nlevel = info\n", "zookeeper", "hosts",
        "[node] id");
}

static void
test_required_hosts_empty(void)
{
    EXPECT_FAIL("[zookeeper]\nhosts =\n[node]\nid = n1\n", "zookeeper", "hosts",
        "must not be empty");
    EXPECT_FAIL("[zookeeper]\nhosts = \"\"\n[node]\nid = n1\n", "zookeeper",
        "hosts", "must not be empty");
}

static void
test_required_id_empty(void)
{
    EXPECT_FAIL("[zookeeper]\nhosts = zk:1\n[node]\nid =\n", "node", "id",
        "must not be empty");
    EXPECT_FAIL("[zookeeper]\nhosts = zk:1\n[node]\nid = ''\n", "node", "id",
        "must not be empty");
}

static void
test_unknown_section(void)
{
    EXPECT_FAIL(cfg("[foo]\nbar = 1"), "foo", NULL, "unknown section");
    EXPECT_FAIL(cfg("[zookeper]\nhosts = a:1"), "zookeper", NULL,
        "did you mean [zookeeper]");
    EXPECT_FAIL(cfg("[empty]"), "empty", NULL, "unknown section");
    /* Before the known ones too, and even without keys. */
    EXPECT_FAIL("[extra]\n" MINIMAL, "extra", NULL, "unknown section");
    EXPECT_FAIL(cfg("[node:x]\nid = 2"), "node:x", NULL, "unknown section");
}

static void
test_unknown_key(void)
{
    EXPECT_FAIL(cfg("[node]\nidd = x"), "node", "idd", "did you mean 'id'");
    EXPECT_FAIL(cfg("[zookeeper]\nsession_timeout = 5000"), "zookeeper",
        "session_timeout", "did you mean 'session_timeout_ms'");
    EXPECT_FAIL(cfg("[node]\ntimeout_ms = 5"), "node", "timeout_ms",
        "belongs in [hooks]");
    EXPECT_FAIL(cfg("[log]\ncolour = blue"), "log", "colour",
        "unknown key (known: level, target, events)");
    EXPECT_FAIL(cfg("[node]\nsesion_timeout_ms = 5000"), "node", "sesion_timeout_ms",
        "did you mean [zookeeper] session_timeout_ms?");
    EXPECT_FAIL(cfg("[hooks]\non_takeover = /bin/x"), "hooks", "on_takeover",
        "unknown key");
}

static void
test_key_outside_section(void)
{
    EXPECT_FAIL("hosts = zk:2181\n" MINIMAL, "", "hosts", "outside of any section");
}

/* ------------------------------------------------------------------------ */
/* Names: node id, site, tags                                               */
/* ------------------------------------------------------------------------ */

#define N64 "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"

static void
test_node_id_bad(void)
{
    EXPECT_FAIL("[zookeeper]\nhosts = zk:1\n[node]\nid = .n1\n", "node", "id",
        "must not start with '.' or '-'");
    EXPECT_FAIL("[zookeeper]\nhosts = zk:1\n[node]\nid = -n1\n", "node", "id",
        "'-n1'");
    EXPECT_FAIL("[zookeeper]\nhosts = zk:1\n[node]\nid = n 1\n", "node", "id",
        "may only contain");
    EXPECT_FAIL("[zookeeper]\nhosts = zk:1\n[node]\nid = n/1\n", "node", "id",
        "invalid node id 'n/1'");
    EXPECT_FAIL("[zookeeper]\nhosts = zk:1\n[node]\nid = n:1\n", "node", "id",
        "may only contain");
    EXPECT_FAIL("[zookeeper]\nhosts = zk:1\n[node]\nid = \xc3\xa9t\xc3\xa9\n", "node",
        "id", "'\\xc3\\xa9t\\xc3\\xa9'");
    EXPECT_FAIL("[zookeeper]\nhosts = zk:1\n[node]\nid = " N64 "b\n", "node", "id",
        "longer than 64");
}

static void
test_node_id_good(void)
{
    struct run r;

    if (LOAD_OK(&r, "[zookeeper]\nhosts = zk:1\n[node]\nid = " N64 "\n")) {
        CU_ASSERT_STRING_EQUAL(r.c.node_id, N64);
        zkd_config_free(&r.c);
    }
    if (LOAD_OK(&r, "[zookeeper]\nhosts = zk:1\n[node]\nid = _A.b-9\n")) {
        CU_ASSERT_STRING_EQUAL(r.c.node_id, "_A.b-9");
        zkd_config_free(&r.c);
    }
}

static void
test_site(void)
{
    struct run r;

    EXPECT_BAD("node", "site", "dc 1", "invalid site 'dc 1'");
    EXPECT_BAD("node", "site", ".dc", "must not start");
    EXPECT_BAD("node", "site", "dc/1", "invalid site 'dc/1'");
    EXPECT_BAD("node", "site", N64 "x", "longer than 64");
    if (LOAD_OK(&r, cfg("[node]\nsite = " N64))) {
        CU_ASSERT_STRING_EQUAL(r.c.site, N64);
        zkd_config_free(&r.c);
    }
}

static void
test_tags_good(void)
{
    struct run r;

    if (LOAD_OK(&r, cfg("[node]\ntags = a,b ,  c-1\t, D.e"))) {
        CU_ASSERT_EQUAL_FATAL(r.c.ntags, 4);
        CU_ASSERT_STRING_EQUAL(r.c.tags[0], "a");
        CU_ASSERT_STRING_EQUAL(r.c.tags[1], "b");
        CU_ASSERT_STRING_EQUAL(r.c.tags[2], "c-1");
        CU_ASSERT_STRING_EQUAL(r.c.tags[3], "D.e");
        zkd_config_free(&r.c);
    }
    if (LOAD_OK(&r, cfg("[node]\ntags = solo"))) {
        CU_ASSERT_EQUAL_FATAL(r.c.ntags, 1);
        CU_ASSERT_STRING_EQUAL(r.c.tags[0], "solo");
        zkd_config_free(&r.c);
    }
}

static void
test_tags_bad(void)
{
    EXPECT_BAD("node", "tags", "a,,b", "invalid tag '' in 'a,,b'");
    EXPECT_BAD("node", "tags", "a,", "is empty");
    EXPECT_BAD("node", "tags", ",a", "is empty");
    EXPECT_BAD("node", "tags", "a b", "invalid tag 'a b'");
    EXPECT_BAD("node", "tags", "ok, -bad", "invalid tag '-bad'");
    EXPECT_BAD("node", "tags", "x/y", "invalid tag 'x/y'");
    EXPECT_BAD("node", "tags", "a, b, a", "tag 'a' appears twice");
    EXPECT_BAD("node", "tags", "a, " N64 "z", "longer than 64");
}

static void
test_tags_too_many(void)
{
    struct run r;

    EXPECT_BAD("node", "tags", "t1,t2,t3,t4,t5,t6,t7,t8,t9,t10,t11,t12,t13,t14,"
        "t15,t16,t17", "too many tags");
    if (LOAD_OK(&r, cfg("[node]\ntags = t1,t2,t3,t4,t5,t6,t7,t8,t9,t10,t11,t12,"
        "t13,t14,t15,t16"))) {
        CU_ASSERT_EQUAL(r.c.ntags, 16);
        CU_ASSERT_STRING_EQUAL(r.c.tags[15], "t16");
        zkd_config_free(&r.c);
    }
}

/* ------------------------------------------------------------------------ */
/* Paths, hosts, listen, policy                                             */
/* ------------------------------------------------------------------------ */

static void
test_cluster_path_bad(void)
{
    EXPECT_BAD("cluster", "path", "cluster", "must be an absolute path");
    EXPECT_BAD("cluster", "path", "/a/", "must not end with '/'");
    EXPECT_BAD("cluster", "path", "/a//b", "empty component");
    EXPECT_BAD("cluster", "path", "/a/../b", "'.' or '..'");
    EXPECT_BAD("cluster", "path", "/a/./b", "'.' or '..'");
    EXPECT_BAD("cluster", "path", "/..", "'.' or '..'");
    EXPECT_BAD("cluster", "path", "/", "root");
    EXPECT_BAD("cluster", "path", "\"\"", "must be an absolute path");
    EXPECT_BAD("cluster", "path", "/zookeeper/x", "reserved");
}

static void
test_cluster_path_good(void)
{
    struct run r;

    if (LOAD_OK(&r, cfg("[cluster]\npath = /a/b-c/..d/zookeeper"))) {
        CU_ASSERT_STRING_EQUAL(r.c.path, "/a/b-c/..d/zookeeper");
        zkd_config_free(&r.c);
    }
}

static void
test_hosts_bad(void)
{
    EXPECT_BAD("zookeeper", "hosts", "zk1", "without a port");
    EXPECT_BAD("zookeeper", "hosts", "zk1:0", "invalid port");
    EXPECT_BAD("zookeeper", "hosts", "zk1:65536", "invalid port");
    EXPECT_BAD("zookeeper", "hosts", "zk1:21x", "invalid port");
    EXPECT_BAD("zookeeper", "hosts", "zk1:2181,", "empty host entry");
    EXPECT_BAD("zookeeper", "hosts", "zk1:2181,,zk2:2181", "empty host entry");
    EXPECT_BAD("zookeeper", "hosts", ":2181", "empty host name");
    EXPECT_BAD("zookeeper", "hosts", "zk1:2181, zk2:2181", "whitespace");
    EXPECT_BAD("zookeeper", "hosts", "[::1]:2181", "brackets");
    EXPECT_BAD("zookeeper", "hosts", "::g:2181", "invalid IPv6");
    EXPECT_BAD("zookeeper", "hosts", "zk!:2181", "invalid host name");
    EXPECT_BAD("zookeeper", "hosts", "/chroot", "no host:port before the chroot");
    EXPECT_BAD("zookeeper", "hosts", "zk1:2181/", "chroot");
    EXPECT_BAD("zookeeper", "hosts", "zk1:2181/a//b", "chroot");
    EXPECT_BAD("zookeeper", "hosts", "zk1:2181/a/", "chroot");
}

static void
test_hosts_good(void)
{
    struct run r;

    if (LOAD_OK(&r, "[zookeeper]\nhosts = a.b-c_d:1,1.2.3.4:65535,fe80::1:2181/x\n"
        "[node]\nid = n\n")) {
        CU_ASSERT_STRING_EQUAL(r.c.zk_hosts, "a.b-c_d:1,1.2.3.4:65535,fe80::1:2181/x");
        zkd_config_free(&r.c);
    }
}

static void
test_listen_bad(void)
{
    EXPECT_BAD("http", "listen", "abc", "got 'abc'");
    EXPECT_BAD("http", "listen", "0", "PORT, IPV4:PORT or [IPV6]:PORT");
    EXPECT_BAD("http", "listen", "65536", "got '65536'");
    EXPECT_BAD("http", "listen", "localhost:80", "numeric");
    EXPECT_BAD("http", "listen", "1.2.3.4:", "got '1.2.3.4:'");
    EXPECT_BAD("http", "listen", "1.2.3.256:80", "got '1.2.3.256:80'");
    EXPECT_BAD("http", "listen", "::1:80", "got '::1:80'");
    EXPECT_BAD("http", "listen", "[::1]80", "got '[::1]80'");
    EXPECT_BAD("http", "listen", "[]:80", "got '[]:80'");
    EXPECT_BAD("http", "listen", "[1.2.3.4]:80", "got");
    EXPECT_BAD("http", "listen", ":80", "got ':80'");
    EXPECT_BAD("http", "listen", "off", "got 'off'");
}

static void
test_listen_good(void)
{
    struct run r;

    if (LOAD_OK(&r, cfg("[http]\nlisten = 8181"))) {
        CU_ASSERT_STRING_EQUAL(r.c.http_listen, "8181");
        zkd_config_free(&r.c);
    }
    if (LOAD_OK(&r, cfg("[http]\nlisten = [::1]:65535"))) {
        CU_ASSERT_STRING_EQUAL(r.c.http_listen, "[::1]:65535");
        zkd_config_free(&r.c);
    }
}

static void
test_listen_addr(void)
{
    struct sockaddr_storage ss;
    struct sockaddr_in *sin = (struct sockaddr_in *)&ss;
    struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&ss;
    socklen_t len = 0;

    CU_ASSERT_EQUAL_FATAL(zkd_config_listen_addr("8080", &ss, &len), 0);
    CU_ASSERT_EQUAL(ss.ss_family, AF_INET);
    CU_ASSERT_EQUAL(len, sizeof(struct sockaddr_in));
    CU_ASSERT_EQUAL(ntohs(sin->sin_port), 8080);
    CU_ASSERT_EQUAL(ntohl(sin->sin_addr.s_addr), 0x7f000001u);

    CU_ASSERT_EQUAL_FATAL(zkd_config_listen_addr("10.1.2.3:1", &ss, &len), 0);
    CU_ASSERT_EQUAL(ss.ss_family, AF_INET);
    CU_ASSERT_EQUAL(ntohs(sin->sin_port), 1);
    CU_ASSERT_EQUAL(ntohl(sin->sin_addr.s_addr), 0x0a010203u);

    CU_ASSERT_EQUAL_FATAL(zkd_config_listen_addr("[::1]:443", &ss, &len), 0);
    CU_ASSERT_EQUAL(ss.ss_family, AF_INET6);
    CU_ASSERT_EQUAL(len, sizeof(struct sockaddr_in6));
    CU_ASSERT_EQUAL(ntohs(sin6->sin6_port), 443);
    CU_ASSERT(IN6_IS_ADDR_LOOPBACK(&sin6->sin6_addr));

    CU_ASSERT_EQUAL(zkd_config_listen_addr("", NULL, NULL), ZKELECT_EINVAL);
    CU_ASSERT_EQUAL(zkd_config_listen_addr(NULL, NULL, NULL), ZKELECT_EINVAL);
    CU_ASSERT_EQUAL(zkd_config_listen_addr("99999", NULL, NULL), ZKELECT_EINVAL);
    CU_ASSERT_EQUAL(zkd_config_listen_addr("1.2.3.4:0", NULL, NULL), ZKELECT_EINVAL);
}

static void
test_policy(void)
{
    struct run r;

    EXPECT_BAD("election", "policy", "Site", "invalid policy 'Site'");
    EXPECT_BAD("election", "policy", "my policy", "invalid policy");
    EXPECT_BAD("election", "policy", "p.so", "or a path containing '/'");
    EXPECT_BAD("election", "policy", "\"\"", "must not be empty");
    EXPECT_BAD("election", "policy", N64 "x", "1..64");
    if (LOAD_OK(&r, cfg("[election]\npolicy = ./policies/custom.so"))) {
        CU_ASSERT_STRING_EQUAL(r.c.policy, "./policies/custom.so");
        zkd_config_free(&r.c);
    }
    if (LOAD_OK(&r, cfg("[election]\npolicy = round_robin-2"))) {
        CU_ASSERT_STRING_EQUAL(r.c.policy, "round_robin-2");
        zkd_config_free(&r.c);
    }
}

static void
test_policy_path(void)
{
    struct run r;

    EXPECT_BAD("election", "policy_path", "lib/policies", "absolute");
    EXPECT_BAD("election", "policy_path", "/a::/b", "no empty entry");
    EXPECT_BAD("election", "policy_path", "/a:", "absolute");
    EXPECT_BAD("election", "policy_path", "/a:rel", "absolute");
    if (LOAD_OK(&r, cfg("[election]\npolicy_path = /a:/b/c"))) {
        CU_ASSERT_STRING_EQUAL(r.c.policy_path, "/a:/b/c");
        zkd_config_free(&r.c);
    }
}

static void
test_policy_options(void)
{
    struct run r;

    EXPECT_FAIL(cfg("[policy]\nbad key = 1"), "policy", "bad key",
        "invalid option name");
    EXPECT_FAIL(cfg("[policy]\nk/1 = 1"), "policy", "k/1", "invalid option name");
    if (LOAD_OK(&r, cfg("[policy]\nPreempt = Off\nfailover = other-site\n"
        "empty =\nsite.dc1-weight = 10"))) {
        CU_ASSERT_EQUAL_FATAL(r.c.npolicy_options, 4);
        CU_ASSERT_STRING_EQUAL(r.c.policy_options[0].key, "preempt");
        CU_ASSERT_STRING_EQUAL(r.c.policy_options[0].value, "Off");
        CU_ASSERT_STRING_EQUAL(r.c.policy_options[1].key, "failover");
        CU_ASSERT_STRING_EQUAL(r.c.policy_options[2].key, "empty");
        CU_ASSERT_STRING_EQUAL(r.c.policy_options[2].value, "");
        CU_ASSERT_STRING_EQUAL(r.c.policy_options[3].key, "site.dc1-weight");
        CU_ASSERT_STRING_EQUAL(r.c.policy_options[3].value, "10");
        zkd_config_free(&r.c);
    }
}

static void
test_hooks(void)
{
    struct run r;

    EXPECT_BAD("hooks", "takeover", "takeover.sh", "must be an absolute path");
    EXPECT_BAD("hooks", "stepdown", "./stepdown", "'./stepdown' must be an absolute");
    EXPECT_BAD("hooks", "notify", "~/notify", "must be an absolute path");
    EXPECT_BAD("hooks", "takeover", "/usr/libexec/", "names a directory");
    /* Existence is the daemon's business, not the loader's. */
    if (LOAD_OK(&r, cfg("[hooks]\ntakeover = /nonexistent/zkelect/takeover"))) {
        CU_ASSERT_STRING_EQUAL(r.c.hook_takeover, "/nonexistent/zkelect/takeover");
        zkd_config_free(&r.c);
    }
}

static void
test_health_command_quoted(void)
{
    struct run r;

    /* Unquoted, ';' starts a comment; quoted, it is kept. */
    if (LOAD_OK(&r, cfg("[health]\ncommand = check-a ; check-b"))) {
        CU_ASSERT_STRING_EQUAL(r.c.health_command, "check-a");
        zkd_config_free(&r.c);
    }
    if (LOAD_OK(&r, cfg("[health]\ncommand = \"check-a ; check-b # x\""))) {
        CU_ASSERT_STRING_EQUAL(r.c.health_command, "check-a ; check-b # x");
        zkd_config_free(&r.c);
    }
}

static void
test_auth_file(void)
{
    struct run r;

    EXPECT_BAD("zookeeper", "auth_file", "/etc/a\x01secret", "control characters");
    if (LOAD_OK(&r, cfg("[zookeeper]\nauth_file = /etc/zkelect/zk.secret"))) {
        CU_ASSERT_STRING_EQUAL(r.c.auth_file, "/etc/zkelect/zk.secret");
        zkd_config_free(&r.c);
    }
}

/* ------------------------------------------------------------------------ */
/* Syntax, files, messages                                                  */
/* ------------------------------------------------------------------------ */

static void
expect_syntax_at(const char *text, int errline, const char *frag, int line)
{
    char want[PATH_MAX + 32];
    struct run r;

    run_text(&r, text);
    snprintf(want, sizeof(want), "%s:%d: ", r.path, errline);
    if (r.rc != ZKELECT_ECONFIG || strstr(r.err, want) != r.err ||
        strstr(r.err, frag) == NULL)
        fprintf(stderr, "\nline %d: rc %d: %s\n", line, r.rc, r.err);
    CHECK_AT(r.rc == ZKELECT_ECONFIG, line);
    CHECK_AT(strstr(r.err, want) == r.err, line);
    CHECK_AT(strstr(r.err, frag) != NULL, line);
    CHECK_AT(is_initialised(&r.c), line);
    zkd_config_free(&r.c);
}

#define EXPECT_SYNTAX(text, errline, frag) \
    expect_syntax_at((text), (errline), (frag), __LINE__)

static void
test_syntax_error_line(void)
{
    EXPECT_SYNTAX("[zookeeper]\nhosts = zk:1\n\n# c\nthis is not ini\n[node]\nid = x\n",
        5, "syntax error: 'this is not ini'");
    EXPECT_SYNTAX("[node\nid = x\n", 1, "syntax error: '[node'");
    /* Only the first error is reported, with its own line. */
    EXPECT_SYNTAX(MINIMAL "oops\nagain\n", 5, "'oops'");
}

static void
test_line_too_long(void)
{
    char text[3000];

    snprintf(text, sizeof(text), "%s[node]\nsite = %02000d\n", MINIMAL, 0);
    EXPECT_SYNTAX(text, 6, "line too long");
}

static void
test_missing_file(void)
{
    struct zkd_config c;
    char path[PATH_MAX], err[512];

    snprintf(path, sizeof(path), "%s/zkelect-no-such-dir-%ld/zkelect.ini", tmpdir(),
        (long)getpid());
    CU_ASSERT_EQUAL(zkd_config_load(path, &c, err, sizeof(err)), ZKELECT_EIO);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, path));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, strerror(ENOENT)));
    CU_ASSERT(is_initialised(&c));
    zkd_config_free(&c);
}

static void
test_not_regular_file(void)
{
    struct zkd_config c;
    char err[512];

    CU_ASSERT_EQUAL(zkd_config_load(tmpdir(), &c, err, sizeof(err)), ZKELECT_EIO);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, tmpdir()));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "not a regular file"));
    CU_ASSERT(is_initialised(&c));
    zkd_config_free(&c);
}

static void
test_unreadable_file(void)
{
    struct zkd_config c;
    char path[PATH_MAX], sub[PATH_MAX + 16], err[512];

    CU_ASSERT_EQUAL_FATAL(write_tmp(path, sizeof(path), MINIMAL, strlen(MINIMAL)), 0);
    /* A regular file used as a directory: fails even for root. */
    snprintf(sub, sizeof(sub), "%s/zkelect.ini", path);
    CU_ASSERT_EQUAL(zkd_config_load(sub, &c, err, sizeof(err)), ZKELECT_EIO);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, sub));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, strerror(ENOTDIR)));
    CU_ASSERT(is_initialised(&c));
    /* No read permission (root reads anything: only checked for others). */
    if (geteuid() != 0) {
        chmod(path, 0);
        CU_ASSERT_EQUAL(zkd_config_load(path, &c, err, sizeof(err)), ZKELECT_EIO);
        CU_ASSERT_PTR_NOT_NULL(strstr(err, path));
        CU_ASSERT_PTR_NOT_NULL(strstr(err, strerror(EACCES)));
    }
    unlink(path);
    zkd_config_free(&c);
}

static void
test_value_escaped(void)
{
    /* Quotes, backslashes and bytes outside printable ASCII are escaped. */
    EXPECT_BAD("node", "priority", "5\xff", "got '5\\xff'");
    EXPECT_BAD("node", "priority", "a'b\\c", "got 'a\\'b\\\\c'");
    EXPECT_BAD("node", "priority", "x\x7f", "got 'x\\x7f'");
}

static void
test_long_value_cut(void)
{
    char text[2048], v[700];
    struct run r;

    memset(v, '9', sizeof(v) - 1);
    v[sizeof(v) - 1] = '\0';
    snprintf(text, sizeof(text), "%s[node]\npriority = x%s\n", MINIMAL, v);
    run_text(&r, text);
    CU_ASSERT_EQUAL(r.rc, ZKELECT_ECONFIG);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "[node] priority: "));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "...'"));
    CU_ASSERT(strlen(r.err) < 400);
    zkd_config_free(&r.c);
}

static void
test_small_error_buffer(void)
{
    char path[PATH_MAX], err[16];
    struct zkd_config c;
    const char *text = "[nope]\n";

    CU_ASSERT_EQUAL_FATAL(write_tmp(path, sizeof(path), text, strlen(text)), 0);
    memset(err, 'x', sizeof(err));
    CU_ASSERT_EQUAL(zkd_config_load(path, &c, err, sizeof(err)), ZKELECT_ECONFIG);
    CU_ASSERT_EQUAL(strlen(err), sizeof(err) - 1);  /* cut, terminated */
    CU_ASSERT_EQUAL(zkd_config_load(path, &c, NULL, 0), ZKELECT_ECONFIG);
    CU_ASSERT_EQUAL(zkd_config_load(path, &c, err, 1), ZKELECT_ECONFIG);
    CU_ASSERT_EQUAL(err[0], '\0');
    unlink(path);
    zkd_config_free(&c);
}

static void
test_failure_frees_partial(void)
{
    /*
     * Tags, options and strings are allocated before the error on the last
     * line: a failed load must release them (LeakSanitizer checks at exit)
     * and leave the struct initialised.
     */
    EXPECT_FAIL(cfg("[node]\ntags = a,b,c\nsite = dc1\n[policy]\nx = 1\n"
        "[hooks]\ntakeover = /bin/t\n[http]\nlisten = 80\n[log]\nlevel = loud"),
        "log", "level", "got 'loud'");
    /* An error in the middle of the tags list. */
    EXPECT_FAIL(cfg("[node]\ntags = a,b,c,-d"), "node", "tags", "'-d'");
}

static void
test_reload_same_struct(void)
{
    struct zkd_config c;
    char path[PATH_MAX], err[256];
    const char *one = MINIMAL "[node]\ntags = a\n[policy]\nk = v\n";

    CU_ASSERT_EQUAL_FATAL(write_tmp(path, sizeof(path), one, strlen(one)), 0);
    CU_ASSERT_EQUAL(zkd_config_load(path, &c, err, sizeof(err)), 0);
    zkd_config_free(&c);
    CU_ASSERT_EQUAL(zkd_config_load(path, &c, err, sizeof(err)), 0);
    CU_ASSERT_EQUAL(c.ntags, 1);
    CU_ASSERT_EQUAL(c.npolicy_options, 1);
    zkd_config_free(&c);
    unlink(path);
}

/* ------------------------------------------------------------------------ */
/* The credential reader                                                    */
/* ------------------------------------------------------------------------ */

/* Write a credential file with the given mode; path in path. */
static int
secret_file(char *path, size_t pathlen, const char *data, size_t n, mode_t mode)
{
    if (write_tmp(path, pathlen, data, n) != 0)
        return -1;
    return chmod(path, mode);
}

static void
secret_ok_at(const char *data, const char *want, int line)
{
    char path[PATH_MAX], err[512], *s = NULL;
    int rc;

    CHECK_AT(secret_file(path, sizeof(path), data, strlen(data), 0600) == 0, line);
    rc = zkd_config_load_secret(path, &s, err, sizeof(err));
    if (rc != 0)
        fprintf(stderr, "\nline %d: %s\n", line, err);
    CHECK_AT(rc == 0, line);
    CHECK_AT(s != NULL && strcmp(s, want) == 0, line);
    zkd_config_secret_free(s);
    unlink(path);
}

#define SECRET_OK(data, want) secret_ok_at((data), (want), __LINE__)

/* The credential under test always contains "s3cr3t", never in messages. */
static void
secret_bad_at(const char *data, size_t n, mode_t mode, int code, const char *frag,
    int line)
{
    char path[PATH_MAX], err[512], *s = (char *)"sentinel";
    int rc;

    CHECK_AT(secret_file(path, sizeof(path), data, n, mode) == 0, line);
    rc = zkd_config_load_secret(path, &s, err, sizeof(err));
    if (rc != code || strstr(err, frag) == NULL)
        fprintf(stderr, "\nline %d: rc %d: %s\n", line, rc, err);
    CHECK_AT(rc == code, line);
    CHECK_AT(s == NULL, line);
    CHECK_AT(strstr(err, path) == err, line);
    CHECK_AT(strstr(err, frag) != NULL, line);
    CHECK_AT(strstr(err, "s3cr3t") == NULL, line);
    CHECK_AT(strstr(err, "alice") == NULL, line);
    unlink(path);
}

#define SECRET_BAD(data, mode, frag) \
    secret_bad_at((data), strlen(data), (mode), ZKELECT_ECONFIG, (frag), __LINE__)

static void
test_secret_good(void)
{
    SECRET_OK("alice:s3cr3t\n", "alice:s3cr3t");
    SECRET_OK("alice:s3cr3t", "alice:s3cr3t");
    SECRET_OK("a:b:c", "a:b:c");        /* the password may contain ':' */
    SECRET_OK("\xc3\xa9:p\xc3\xa9", "\xc3\xa9:p\xc3\xa9");
}

static void
test_secret_perms(void)
{
    SECRET_BAD("alice:s3cr3t\n", 0644, "0644");
    SECRET_BAD("alice:s3cr3t\n", 0640, "too open");
    SECRET_BAD("alice:s3cr3t\n", 0604, "too open");
    SECRET_BAD("alice:s3cr3t\n", 0620, "too open");
    SECRET_BAD("alice:s3cr3t\n", 0602, "too open");
    SECRET_OK("alice:s3cr3t\n", "alice:s3cr3t");       /* 0600 */
}

static void
test_secret_owner_only_modes(void)
{
    char path[PATH_MAX], err[256], *s = NULL;

    CU_ASSERT_EQUAL_FATAL(secret_file(path, sizeof(path), "u:p", 3, 0400), 0);
    CU_ASSERT_EQUAL(zkd_config_load_secret(path, &s, err, sizeof(err)), 0);
    CU_ASSERT_STRING_EQUAL(s, "u:p");
    zkd_config_secret_free(s);
    unlink(path);
}

static void
test_secret_no_colon(void)
{
    SECRET_BAD("alices3cr3t\n", 0600, "no ':'");
}

static void
test_secret_empty_parts(void)
{
    SECRET_BAD(":s3cr3t\n", 0600, "empty user");
    SECRET_BAD("alice:\n", 0600, "empty password");
    SECRET_BAD("alice:", 0600, "empty password");
    SECRET_BAD(":\n", 0600, "empty user");
    SECRET_BAD("", 0600, "is empty");
    SECRET_BAD("\n", 0600, "is empty");
}

static void
test_secret_two_lines(void)
{
    SECRET_BAD("alice:s3cr3t\nbob:x\n", 0600, "more than one line");
    SECRET_BAD("alice:s3cr3t\n\n", 0600, "more than one line");
}

static void
test_secret_whitespace_control(void)
{
    SECRET_BAD("alice:s3cr3t \n", 0600, "whitespace");
    SECRET_BAD(" alice:s3cr3t\n", 0600, "whitespace");
    SECRET_BAD("alice:s3cr3t\r\n", 0600, "whitespace");
    SECRET_BAD("alice:s3\tcr3t\n", 0600, "whitespace");
    SECRET_BAD("alice:s3cr3t\x1b\n", 0600, "control character");
    secret_bad_at("alice:s3cr3t\0x\n", 15, 0600, ZKELECT_ECONFIG, "control",
        __LINE__);
}

static void
test_secret_too_large(void)
{
    char big[ZKD_CONFIG_SECRET_MAX + 10];

    memset(big, 'a', sizeof(big));
    memcpy(big, "alice:s3cr3t", 12);
    secret_bad_at(big, sizeof(big), 0600, ZKELECT_ECONFIG, "larger than", __LINE__);
}

static void
test_secret_missing_or_dir(void)
{
    char path[PATH_MAX], err[512], *s = (char *)"sentinel";

    snprintf(path, sizeof(path), "%s/zkelect-no-such-secret-%ld", tmpdir(),
        (long)getpid());
    CU_ASSERT_EQUAL(zkd_config_load_secret(path, &s, err, sizeof(err)), ZKELECT_EIO);
    CU_ASSERT_PTR_NULL(s);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, path));
    s = (char *)"sentinel";
    CU_ASSERT_EQUAL(zkd_config_load_secret(tmpdir(), &s, err, sizeof(err)),
        ZKELECT_ECONFIG);
    CU_ASSERT_PTR_NULL(s);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "not a regular file"));
    zkd_config_secret_free(NULL);
}

/* [log] events: an absolute file name; empty leaves it unset. */
static void
test_log_events(void)
{
    struct run r;

    if (LOAD_OK(&r, cfg("[log]\nevents = /var/tmp/zkelect events.json")))
        CU_ASSERT_STRING_EQUAL(r.c.log_events, "/var/tmp/zkelect events.json");
    zkd_config_free(&r.c);
    if (LOAD_OK(&r, cfg("[log]\nevents =")))
        CU_ASSERT_PTR_NULL(r.c.log_events);
    zkd_config_free(&r.c);
    EXPECT_BAD("log", "events", "events.json", "must be an absolute path");
    EXPECT_BAD("log", "events", "./events.json", "'./events.json'");
    EXPECT_BAD("log", "events", "/var/log/zkelect/", "names a directory");
    EXPECT_BAD("log", "events", "\"/var/log/a\tb\"", "control characters");
    /* a near miss is reported as such */
    EXPECT_FAIL(cfg("[log]\nevent = /x"), "log", "event", "did you mean 'events'");
}

/* ------------------------------------------------------------------------ */

/* ------------------------------------------------------------------------ */
/* [leader] and the timing rules (F + D <= T/2, ...)                         */
/* ------------------------------------------------------------------------ */

static void
test_leader_keys(void)
{
    struct run r;

    if (!LOAD_OK(&r, cfg("[leader]\ncommand = \"exec /usr/bin/svc -f\"\n"
        "ready_command = curl -sf http://127.0.0.1/\nstop_timeout_ms = 0\n"
        "fence_ms = 1000\n[hooks]\nstepdown_timeout_ms = 4000\n")))
        return;
    CU_ASSERT_STRING_EQUAL(r.c.leader_command, "exec /usr/bin/svc -f");
    CU_ASSERT_STRING_EQUAL(r.c.leader_ready_command, "curl -sf http://127.0.0.1/");
    CU_ASSERT_EQUAL(r.c.leader_stop_timeout_ms, 0);
    CU_ASSERT_EQUAL(r.c.leader_fence_ms, 1000);
    CU_ASSERT_EQUAL(r.c.stepdown_timeout_ms, 4000);
    zkd_config_free(&r.c);
    EXPECT_BAD("leader", "command", "\"a\x01b\"", "control characters");
    EXPECT_BAD("leader", "fence_ms", "99", "out of range: expected 100..300000");
    EXPECT_BAD("leader", "stop_timeout_ms", "-1", "out of range");
    EXPECT_BAD("hooks", "stepdown_timeout_ms", "9", "out of range: expected 10..3600000");
    EXPECT_FAIL(cfg("[leader]\ncomand = x"), "leader", "comand", "did you mean 'command'");
}

/* The derived values, and that the defaults meet the rules for every
   session_timeout_ms and watchdog_ms the ranges allow. */
static void
test_timing_derived(void)
{
    static const int ts[] = { 1000, 1001, 1003, 2000, 9999, 10000, 40000, 599999, 600000 };
    static const int ws[] = { 100, 101, 199, 1000, 10000, 3600000 };
    char text[256];
    struct run r;
    size_t i, j;
    int d;

    for (i = 0; i < sizeof(ts) / sizeof(ts[0]); i++) {
        for (j = 0; j < sizeof(ws) / sizeof(ws[0]); j++) {
            snprintf(text, sizeof(text), "[zookeeper]\nsession_timeout_ms = %d\n"
                "[election]\nwatchdog_ms = %d\n", ts[i], ws[j]);
            if (!LOAD_OK(&r, cfg(text)))
                continue;
            d = ts[i] / 4 < ws[j] / 2 ? ts[i] / 4 : ws[j] / 2;
            CU_ASSERT_EQUAL(r.c.stepdown_timeout_ms, d);
            CU_ASSERT_EQUAL(r.c.leader_fence_ms, ts[i] / 2 - d);
            CU_ASSERT_EQUAL(r.c.leader_stop_timeout_ms, d / 2);
            CU_ASSERT(r.c.leader_fence_ms + r.c.stepdown_timeout_ms <= ts[i] / 2);
            CU_ASSERT(r.c.leader_fence_ms >= 100);
            CU_ASSERT(r.c.leader_stop_timeout_ms < r.c.stepdown_timeout_ms);
            CU_ASSERT(r.c.watchdog_ms > r.c.stepdown_timeout_ms);
            zkd_config_free(&r.c);
        }
    }
    /* a D that is set moves F and stop_timeout_ms with it */
    if (LOAD_OK(&r, cfg("[hooks]\nstepdown_timeout_ms = 1000"))) {
        CU_ASSERT_EQUAL(r.c.leader_fence_ms, 4000);
        CU_ASSERT_EQUAL(r.c.leader_stop_timeout_ms, 500);
        zkd_config_free(&r.c);
    }
    /* exactly T/2 is allowed */
    if (LOAD_OK(&r, cfg("[leader]\nfence_ms = 3000\n[hooks]\nstepdown_timeout_ms = 2000"))) {
        CU_ASSERT_EQUAL(r.c.leader_fence_ms + r.c.stepdown_timeout_ms, 5000);
        zkd_config_free(&r.c);
    }
}

static void
test_timing_refused(void)
{
    EXPECT_FAIL(cfg("[leader]\nfence_ms = 3000\n[hooks]\nstepdown_timeout_ms = 2001"),
        "leader", "fence_ms", "fence_ms + [hooks] stepdown_timeout_ms = 3000 ms + 2001 ms "
        "= 5001 ms exceeds half of [zookeeper] session_timeout_ms (5000 ms)");
    EXPECT_FAIL(cfg("[leader]\nfence_ms = 2600"), "leader", "fence_ms",
        "2600 ms + 2500 ms (derived) = 5100 ms exceeds half");
    EXPECT_FAIL(cfg("[hooks]\nstepdown_timeout_ms = 4950"), "leader", "fence_ms",
        "50 ms (derived) is below 100 ms: [zookeeper] session_timeout_ms / 2 (5000 ms) "
        "- [hooks] stepdown_timeout_ms (4950 ms) leaves too little");
    EXPECT_FAIL(cfg("[leader]\nstop_timeout_ms = 2500"), "leader", "stop_timeout_ms",
        "2500 ms must be less than [hooks] stepdown_timeout_ms (2500 ms (derived))");
    EXPECT_FAIL(cfg("[hooks]\nstepdown_timeout_ms = 1000\n[leader]\nstop_timeout_ms = 1000"),
        "leader", "stop_timeout_ms", "1000 ms must be less than [hooks] stepdown_timeout_ms "
        "(1000 ms)");
    EXPECT_FAIL(cfg("[election]\nwatchdog_ms = 2000\n[hooks]\nstepdown_timeout_ms = 2000"),
        "hooks", "stepdown_timeout_ms", "2000 ms must be less than [election] watchdog_ms "
        "(2000 ms)");
}

static CU_TestInfo load_tests[] = {
    { "init sets defaults", test_init_defaults },
    { "minimal config", test_minimal },
    { "every key", test_all_keys },
    { "names are case-insensitive", test_case_insensitive_names },
    { "empty optional values unset", test_empty_optional_means_unset },
    { "sample loads", test_sample_loads },
    { "sample with every default uncommented", test_sample_uncommented },
    { "reload into the same struct", test_reload_same_struct },
    { "[leader] keys", test_leader_keys },
    { "timing derived", test_timing_derived },
    { "timing refused", test_timing_refused },
    CU_TEST_INFO_NULL,
};

static CU_TestInfo int_tests[] = {
    INT_TEST_INFO(session),
    INT_TEST_INFO(connect),
    INT_TEST_INFO(priority),
    INT_TEST_INFO(watchdog),
    INT_TEST_INFO(exclude),
    INT_TEST_INFO(hooktimeout),
    INT_TEST_INFO(interval),
    INT_TEST_INFO(failures),
    CU_TEST_INFO_NULL,
};

static CU_TestInfo value_tests[] = {
    { "bool bad", test_bool_bad },
    { "bool good", test_bool_good },
    { "log level", test_log_level },
    { "log level bad", test_log_level_bad },
    { "log target", test_log_target },
    { "log events", test_log_events },
    { "node id bad", test_node_id_bad },
    { "node id good", test_node_id_good },
    { "site", test_site },
    { "tags good", test_tags_good },
    { "tags bad", test_tags_bad },
    { "tags too many", test_tags_too_many },
    { "cluster path bad", test_cluster_path_bad },
    { "cluster path good", test_cluster_path_good },
    { "hosts bad", test_hosts_bad },
    { "hosts good", test_hosts_good },
    { "listen bad", test_listen_bad },
    { "listen good", test_listen_good },
    { "listen address parse", test_listen_addr },
    { "policy", test_policy },
    { "policy path", test_policy_path },
    { "policy options", test_policy_options },
    { "hooks", test_hooks },
    { "health command quoting", test_health_command_quoted },
    { "auth file", test_auth_file },
    CU_TEST_INFO_NULL,
};

/* A NUL byte is named with its line, not mistaken for a long line. */
static void
test_nul_byte(void)
{
    static const char text[] = "[zookeeper]\nhosts = 127.0.0.1:2181\n[node]\nid = n1\0x\n";
    struct run r;

    memset(&r, 0, sizeof(r));
    CU_ASSERT_EQUAL_FATAL(write_tmp(r.path, sizeof(r.path), text, sizeof(text) - 1), 0);
    r.rc = zkd_config_load(r.path, &r.c, r.err, sizeof(r.err));
    unlink(r.path);
    CU_ASSERT_EQUAL(r.rc, ZKELECT_ECONFIG);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err, ":4: NUL byte"));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err, r.path));
    CU_ASSERT(is_initialised(&r.c));
    zkd_config_free(&r.c);
}

static CU_TestInfo error_tests[] = {
    { "NUL byte named with its line", test_nul_byte },
    { "required hosts missing", test_required_hosts_missing },
    { "required id missing", test_required_id_missing },
    { "required both missing", test_required_both_missing },
    { "required hosts empty", test_required_hosts_empty },
    { "required id empty", test_required_id_empty },
    { "unknown section", test_unknown_section },
    { "unknown key", test_unknown_key },
    { "key outside a section", test_key_outside_section },
    { "syntax error line", test_syntax_error_line },
    { "line too long", test_line_too_long },
    { "missing file", test_missing_file },
    { "not a regular file", test_not_regular_file },
    { "unreadable file", test_unreadable_file },
    { "values escaped", test_value_escaped },
    { "long value cut", test_long_value_cut },
    { "small error buffer", test_small_error_buffer },
    { "failure frees partial", test_failure_frees_partial },
    CU_TEST_INFO_NULL,
};

static CU_TestInfo secret_tests[] = {
    { "good", test_secret_good },
    { "group/world permissions refused", test_secret_perms },
    { "owner-only modes", test_secret_owner_only_modes },
    { "no colon", test_secret_no_colon },
    { "empty user or password", test_secret_empty_parts },
    { "two lines", test_secret_two_lines },
    { "whitespace and control", test_secret_whitespace_control },
    { "too large", test_secret_too_large },
    { "missing file or directory", test_secret_missing_or_dir },
    CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
    { "load", NULL, NULL, NULL, NULL, load_tests },
    { "integers", NULL, NULL, NULL, NULL, int_tests },
    { "values", NULL, NULL, NULL, NULL, value_tests },
    { "errors", NULL, NULL, NULL, NULL, error_tests },
    { "secret", NULL, NULL, NULL, NULL, secret_tests },
    CU_SUITE_INFO_NULL,
};

int
main(int argc, char **argv)
{
    return cutest_main(argc, argv, suites);
}
