/*
 * fuzz_ini.c - fuzz target: zkd_config_load(), zkelectd's INI loader
 * (src/daemon/config.h).
 *
 * The loader reads a file: each input is written to one temporary file per
 * process (in $ZKELECT_FUZZ_TMPDIR, /dev/shm, $TMPDIR or /tmp; removed at
 * exit), loaded and freed. Properties, each from config.h:
 *  - no crash, no overread, no leak, no hang;
 *  - the result is 0 or ZKELECT_ECONFIG (ZKELECT_ENOMEM allowed): the file
 *    exists and is a regular file, so never ZKELECT_EIO;
 *  - the message is NUL-terminated, printable ASCII (values are escaped),
 *    "" on success and "PATH:..." on failure (it names the file); a short
 *    buffer gets the same result and a prefix of the same message;
 *  - a failed load leaves the struct initialised (zkd_config_init), and
 *    zkd_config_free() re-initialises a loaded one;
 *  - a loaded config obeys every documented rule of struct zkd_config.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "zkelect.h"
#include "daemon/config.h"
#include "fuzz.h"

FUZZ_TARGET("ini");

#define FUZZ_INI_ERR_LEN    1024    /* the message buffer of the main load */
#define FUZZ_INI_SHORT_MAX  64      /* the short buffer: 1..64 bytes */

static char fuzz_ini_path[PATH_MAX];    /* the temporary file */
static int fuzz_ini_fd = -1;            /* open on it, for writing */

static void
fuzz_ini_cleanup(void)
{
    if (fuzz_ini_fd == -1)
        return;
    unlink(fuzz_ini_path);
    close(fuzz_ini_fd);
    fuzz_ini_fd = -1;
}

/* Create this process's temporary file. */
static void
fuzz_ini_open(void)
{
    const char *dirs[] = {
        getenv("ZKELECT_FUZZ_TMPDIR"), "/dev/shm", getenv("TMPDIR"), "/tmp"
    };
    size_t i;
    int n;

    for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
        if (dirs[i] == NULL || dirs[i][0] == '\0')
            continue;
        n = snprintf(fuzz_ini_path, sizeof(fuzz_ini_path),
            "%s/zkelect-fuzz-XXXXXX.ini", dirs[i]);
        if (n < 0 || (size_t)n >= sizeof(fuzz_ini_path))
            continue;
        if ((fuzz_ini_fd = mkstemps(fuzz_ini_path, 4)) != -1)
            break;
    }
    if (fuzz_ini_fd == -1) {
        fprintf(stderr, "fuzz_ini: cannot create a temporary file: %s\n",
            strerror(errno));
        abort();
    }
    atexit(fuzz_ini_cleanup);
}

/* Replace the temporary file's contents with the input. */
static void
fuzz_ini_write(const uint8_t *data, size_t size)
{
    size_t off = 0;
    ssize_t n;

    if (ftruncate(fuzz_ini_fd, 0) != 0)
        fuzz_fail(data, size, "ftruncate %s: %s", fuzz_ini_path,
            strerror(errno));
    while (off < size) {
        n = pwrite(fuzz_ini_fd, data + off, size - off, (off_t)off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            fuzz_fail(data, size, "write %s: %s", fuzz_ini_path,
                n < 0 ? strerror(errno) : "short write");
        off += (size_t)n;
    }
}

/* 1 for a name as for [node] id: 1..64 of [A-Za-z0-9._-], not .x or -x. */
static int
fuzz_ini_name(const char *s)
{
    size_t i, n;

    if (s == NULL || (n = strlen(s)) == 0 || n > ZKD_CONFIG_NAME_MAX ||
        s[0] == '.' || s[0] == '-')
        return 0;
    for (i = 0; i < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
            (s[i] >= '0' && s[i] <= '9') || s[i] == '.' || s[i] == '_' ||
            s[i] == '-'))
            return 0;
    return 1;
}

/* 1 if s has no control character (tab allowed when tab is set). */
static int
fuzz_ini_clean(const char *s, int tab)
{
    for (; *s != '\0'; s++)
        if (((unsigned char)*s < 0x20 && !(tab && *s == '\t')) || *s == 0x7f)
            return 0;
    return 1;
}

/* NULL, or an absolute path that does not end in '/' (a program, a file). */
static int
fuzz_ini_abspath(const char *s)
{
    return s == NULL || (s[0] == '/' && s[strlen(s) - 1] != '/' &&
        fuzz_ini_clean(s, 0));
}

#define FUZZ_INI_RANGE(v, lo, hi) ((v) >= (lo) && (v) <= (hi))

/* What is wrong with a loaded config, or NULL. */
static const char *
fuzz_ini_invalid(const struct zkd_config *c)
{
    int i, j;

    if (c->zk_hosts == NULL || c->zk_hosts[0] == '\0' ||
        !fuzz_ini_clean(c->zk_hosts, 0) || strchr(c->zk_hosts, ' ') != NULL)
        return "[zookeeper] hosts";
    if (!FUZZ_INI_RANGE(c->session_timeout_ms, 1000, 600000))
        return "[zookeeper] session_timeout_ms";
    if (!FUZZ_INI_RANGE(c->connect_timeout_ms, 100, 600000))
        return "[zookeeper] connect_timeout_ms";
    if (c->auth_file != NULL && (c->auth_file[0] == '\0' ||
        !fuzz_ini_clean(c->auth_file, 0)))
        return "[zookeeper] auth_file";
    if (c->path == NULL || c->path[0] != '/' || c->path[1] == '\0' ||
        c->path[strlen(c->path) - 1] == '/' || strstr(c->path, "//") != NULL ||
        !fuzz_ini_clean(c->path, 0))
        return "[cluster] path";
    if (!fuzz_ini_name(c->node_id))
        return "[node] id";
    if (c->site == NULL || (c->site[0] != '\0' && !fuzz_ini_name(c->site)))
        return "[node] site";
    if (!FUZZ_INI_RANGE(c->priority, -1000000, 1000000))
        return "[node] priority";
    if (!FUZZ_INI_RANGE(c->ntags, 0, ZKD_CONFIG_TAGS_MAX) ||
        (c->ntags == 0) != (c->tags == NULL))
        return "[node] tags: count";
    for (i = 0; i < c->ntags; i++) {
        if (!fuzz_ini_name(c->tags[i]))
            return "[node] tags: a tag";
        for (j = 0; j < i; j++)
            if (strcmp(c->tags[i], c->tags[j]) == 0)
                return "[node] tags: a duplicate";
    }
    if (c->eligible != 0 && c->eligible != 1)
        return "[node] eligible";
    if (c->policy == NULL || c->policy[0] == '\0' ||
        !fuzz_ini_clean(c->policy, 0) || (strchr(c->policy, '/') == NULL &&
        (strlen(c->policy) > ZKD_CONFIG_NAME_MAX ||
        strspn(c->policy, "abcdefghijklmnopqrstuvwxyz0123456789_-") !=
        strlen(c->policy))))
        return "[election] policy";
    if (c->policy_path != NULL && (c->policy_path[0] != '/' ||
        !fuzz_ini_clean(c->policy_path, 0)))
        return "[election] policy_path";
    if (!FUZZ_INI_RANGE(c->watchdog_ms, 100, 3600000))
        return "[election] watchdog_ms";
    if (!FUZZ_INI_RANGE(c->exclude_ms, 0, 86400000))
        return "[election] exclude_ms";
    if (!FUZZ_INI_RANGE(c->npolicy_options, 0, ZKD_CONFIG_OPTIONS_MAX) ||
        (c->npolicy_options == 0) != (c->policy_options == NULL))
        return "[policy]: count";
    for (i = 0; i < c->npolicy_options; i++) {
        const char *k = c->policy_options[i].key;

        if (k == NULL || k[0] == '\0' || strlen(k) > ZKD_CONFIG_NAME_MAX ||
            strspn(k, "abcdefghijklmnopqrstuvwxyz0123456789._-") != strlen(k))
            return "[policy]: an option name";
        if (c->policy_options[i].value == NULL ||
            !fuzz_ini_clean(c->policy_options[i].value, 1))
            return "[policy]: an option value";
        for (j = 0; j < i; j++)
            if (strcmp(k, c->policy_options[j].key) == 0)
                return "[policy]: a duplicate option";
    }
    if (!fuzz_ini_abspath(c->hook_takeover) ||
        !fuzz_ini_abspath(c->hook_stepdown) ||
        !fuzz_ini_abspath(c->hook_notify))
        return "[hooks] takeover, stepdown or notify";
    if (!FUZZ_INI_RANGE(c->hook_timeout_ms, 100, 3600000))
        return "[hooks] timeout_ms";
    if (c->health_command != NULL && (c->health_command[0] == '\0' ||
        !fuzz_ini_clean(c->health_command, 1)))
        return "[health] command";
    if (!FUZZ_INI_RANGE(c->health_interval_ms, 100, 3600000))
        return "[health] interval_ms";
    if (!FUZZ_INI_RANGE(c->health_failures, 1, 1000))
        return "[health] failures";
    if (c->http_listen != NULL &&
        zkd_config_listen_addr(c->http_listen, NULL, NULL) != 0)
        return "[http] listen";
    if (c->log_level != LOG_DEBUG && c->log_level != LOG_INFO &&
        c->log_level != LOG_NOTICE && c->log_level != LOG_WARNING &&
        c->log_level != LOG_ERR)
        return "[log] level";
    if (c->log_target != ZKD_LOG_STDERR && c->log_target != ZKD_LOG_SYSLOG)
        return "[log] target";
    if (!fuzz_ini_abspath(c->log_events))
        return "[log] events";
    return NULL;
}

/* Check a load's message (err, errlen bytes) against its result. */
static void
fuzz_ini_message(const uint8_t *data, size_t size, int rc, const char *err,
    size_t errlen)
{
    size_t n, plen = strlen(fuzz_ini_path);

    if (memchr(err, '\0', errlen) == NULL)
        fuzz_fail(data, size, "%s: message not NUL-terminated within %zu bytes",
            zkelect_errname(rc), errlen);
    n = strlen(err);
    if (!fuzz_printable(err, n))
        fuzz_fail(data, size, "%s: message has unescaped bytes (%zu long)",
            zkelect_errname(rc), n);
    if (rc == 0) {
        if (n != 0)
            fuzz_fail(data, size, "success with a message: %s", err);
        return;
    }
    if (errlen < plen + 3)      /* too short to hold "PATH: x" */
        return;
    if (strncmp(err, fuzz_ini_path, plen) != 0 || err[plen] != ':' ||
        err[plen + 1] == '\0')
        fuzz_fail(data, size, "%s: the message does not start with the file "
            "name %s: %s", zkelect_errname(rc), fuzz_ini_path, err);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct zkd_config c, init;
    char err[FUZZ_INI_ERR_LEN], *shorterr;
    size_t shortlen = 1 + size % FUZZ_INI_SHORT_MAX;
    const char *why;
    int rc, rc2;

    if (fuzz_ini_fd == -1)
        fuzz_ini_open();
    fuzz_ini_write(data, size);
    zkd_config_init(&init);

    /* The load under test. */
    memset(err, 'x', sizeof(err));
    memset(&c, 0xa5, sizeof(c));        /* load must not read *c */
    rc = zkd_config_load(fuzz_ini_path, &c, err, sizeof(err));
    fuzz_result = rc;
    if (rc != 0 && rc != ZKELECT_ECONFIG && rc != ZKELECT_ENOMEM)
        fuzz_fail(data, size, "unexpected result %d (%s): %s", rc,
            zkelect_errname(rc), err);
    fuzz_ini_message(data, size, rc, err, sizeof(err));
    if (rc == 0 && (why = fuzz_ini_invalid(&c)) != NULL)
        fuzz_fail(data, size, "loaded, but %s breaks its rule", why);
    if (rc != 0 && memcmp(&c, &init, sizeof(c)) != 0)
        fuzz_fail(data, size, "%s: the failed load did not leave the struct "
            "initialised", zkelect_errname(rc));
    zkd_config_free(&c);
    if (memcmp(&c, &init, sizeof(c)) != 0)
        fuzz_fail(data, size, "zkd_config_free() did not re-initialise it");
    zkd_config_free(&c);                /* harmless again */

    /* The same with a short message buffer: same result, a prefix of it. */
    if ((shorterr = malloc(shortlen)) == NULL)
        fuzz_fail(data, size, "out of memory in the harness");
    memset(shorterr, 'x', shortlen);
    rc2 = zkd_config_load(fuzz_ini_path, &c, shorterr, shortlen);
    if (rc2 != rc)
        fuzz_fail(data, size, "errlen %zu changes the result: %s, then %s",
            shortlen, zkelect_errname(rc), zkelect_errname(rc2));
    fuzz_ini_message(data, size, rc, shorterr, shortlen);
    if (strlen(shorterr) != (strlen(err) < shortlen - 1 ? strlen(err) :
        shortlen - 1) || strncmp(shorterr, err, strlen(shorterr)) != 0)
        fuzz_fail(data, size, "errlen %zu: message \"%s\" is not a prefix of "
            "\"%s\"", shortlen, shorterr, err);
    zkd_config_free(&c);
    free(shorterr);
    return 0;
}
