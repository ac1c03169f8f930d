/*
 * statefile.c - reading, checking and writing zkelectd's state file
 * (statefile.h has the format). Pure file handling: the daemon's use of it
 * (when it is written, what a restart does with it) is in state.c.
 *
 * A reader must be able to trust what it reuses (the session) and must not
 * miss what matters for safety (active=1): so a file that fails any check is
 * refused as a whole, and yet its active line is still reported.
 */
#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "statefile.h"

int
statefile_path(const char *dir, const char *node, char *buf, size_t len)
{
    size_t n = strlen(dir);
    int w;

    while (n > 1 && dir[n - 1] == '/')
        n--;
    w = snprintf(buf, len, "%.*s/%s.state", (int)n, dir, node);
    return w < 0 || (size_t)w >= len ? -1 : 0;
}

/* ---- parsing --------------------------------------------------------------- */

enum { K_VERSION, K_NODE, K_GROUP, K_SESSION, K_PASSWD, K_TIMEOUT, K_ACTIVE, K_EPOCH,
    K_SLOT, K__COUNT };
static const char *const statefile_keys[K__COUNT] = {
    "version", "node", "group", "session", "passwd", "timeout_ms", "active", "epoch",
    "slot",
};
#define K__REQUIRED K_SLOT              /* the keys before it must be there; slot
                                           may not (a file of a release without
                                           slots, or of slot 0) */

static int
hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* A decimal number of at most max. 0, or -1. */
static int
parse_u64(const char *v, uint64_t max, uint64_t *out)
{
    uint64_t x = 0;

    if (*v == '\0')
        return -1;
    for (; *v != '\0'; v++) {
        if (*v < '0' || *v > '9' || x > (max - (uint64_t)(*v - '0')) / 10)
            return -1;
        x = x * 10 + (uint64_t)(*v - '0');
    }
    *out = x;
    return 0;
}

/* One line's value for key k into st. 0, or -1 with a message. */
static int
parse_value(int k, const char *v, struct zkd_state *st, char *msg, size_t msglen)
{
    uint64_t x;
    size_t n = strlen(v), i;
    int hi, lo;

    switch (k) {
    case K_VERSION:
        if (parse_u64(v, INT_MAX, &x) != 0 || x != ZKD_STATE_VERSION) {
            snprintf(msg, msglen, "version: expected %d, got '%.32s'", ZKD_STATE_VERSION, v);
            return -1;
        }
        st->version = (int)x;
        return 0;
    case K_NODE:
        if (n == 0 || n >= sizeof(st->node)) {
            snprintf(msg, msglen, "node: not a node id");
            return -1;
        }
        memcpy(st->node, v, n + 1);
        return 0;
    case K_GROUP:
        if (n == 0 || n >= sizeof(st->group) || v[0] != '/') {
            snprintf(msg, msglen, "group: not a ZooKeeper path");
            return -1;
        }
        memcpy(st->group, v, n + 1);
        return 0;
    case K_SESSION:
        if (n == 0 || n > 16) {
            snprintf(msg, msglen, "session: expected 1 to 16 hex digits");
            return -1;
        }
        for (x = 0, i = 0; i < n; i++) {
            if ((hi = hexval((unsigned char)v[i])) < 0) {
                snprintf(msg, msglen, "session: expected 1 to 16 hex digits");
                return -1;
            }
            x = x << 4 | (uint64_t)hi;
        }
        st->session = (int64_t)x;
        return 0;
    case K_PASSWD:
        if (n != 0 && n != 2 * sizeof(st->passwd)) {
            snprintf(msg, msglen, "passwd: expected %zu hex digits or nothing",
                2 * sizeof(st->passwd));
            return -1;
        }
        for (i = 0; i < n; i += 2) {
            if ((hi = hexval((unsigned char)v[i])) < 0 ||
                (lo = hexval((unsigned char)v[i + 1])) < 0) {
                snprintf(msg, msglen, "passwd: not hex");
                return -1;
            }
            st->passwd[i / 2] = (unsigned char)(hi << 4 | lo);
        }
        st->passwd_len = (int)(n / 2);
        return 0;
    case K_TIMEOUT:
        if (parse_u64(v, INT_MAX, &x) != 0) {
            snprintf(msg, msglen, "timeout_ms: not a number");
            return -1;
        }
        st->timeout_ms = (int)x;
        return 0;
    case K_ACTIVE:
        if (strcmp(v, "0") != 0 && strcmp(v, "1") != 0) {
            snprintf(msg, msglen, "active: expected 0 or 1, got '%.32s'", v);
            return -1;
        }
        st->active = v[0] - '0';
        return 0;
    case K_EPOCH:
        if (parse_u64(v, UINT64_MAX, &x) != 0) {
            snprintf(msg, msglen, "epoch: not a number");
            return -1;
        }
        st->epoch = x;
        return 0;
    case K_SLOT:
        /* 0 is accepted although never written: a hand-written file */
        if (parse_u64(v, ZKD_STATE_SLOT_MAX, &x) != 0) {
            snprintf(msg, msglen, "slot: expected 0 to %d, got '%.32s'",
                ZKD_STATE_SLOT_MAX, v);
            return -1;
        }
        st->slot = (int)x;
        return 0;
    }
    return -1;
}

int
statefile_parse(const char *text, size_t len, const char *node, const char *group,
    struct zkd_state *st, char *err, size_t errlen)
{
    char line[ZKD_STATE_GROUP_MAX + 64], msg[200];
    bool seen[K__COUNT] = { false };
    size_t off = 0, n;
    const char *nl, *eq;
    int lineno = 0, k, bad = 0;

    memset(st, 0, sizeof(*st));
    st->active = -1;
    err[0] = '\0';
#define BAD(...) do {                                                   \
        if (!bad)                                                       \
            snprintf(err, errlen, __VA_ARGS__);                         \
        bad = 1;                                                        \
    } while (0)
    if (len == 0)
        BAD("empty file");
    if (memchr(text, '\0', len) != NULL)
        BAD("not a text file (a NUL byte)");
    while (off < len) {
        lineno++;
        nl = memchr(text + off, '\n', len - off);
        n = (nl != NULL ? (size_t)(nl - text) : len) - off;
        if (nl == NULL)
            BAD("line %d: no newline at the end: the file is truncated", lineno);
        if (n >= sizeof(line)) {
            BAD("line %d: too long", lineno);
            off += n + 1;
            continue;
        }
        memcpy(line, text + off, n);
        line[n] = '\0';
        off += n + 1;
        if (line[0] == '#' || line[0] == '\0')
            continue;
        if ((eq = strchr(line, '=')) == NULL) {
            BAD("line %d: not key=value", lineno);
            continue;
        }
        for (k = 0; k < K__COUNT; k++)
            if ((size_t)(eq - line) == strlen(statefile_keys[k]) &&
                strncmp(line, statefile_keys[k], (size_t)(eq - line)) == 0)
                break;
        if (k == K__COUNT) {
            BAD("line %d: unknown key '%.*s'", lineno, (int)(eq - line > 32 ? 32 :
                eq - line), line);
            continue;
        }
        if (seen[k]) {
            BAD("line %d: %s given twice", lineno, statefile_keys[k]);
            continue;
        }
        seen[k] = true;
        if (parse_value(k, eq + 1, st, msg, sizeof(msg)) != 0)
            BAD("line %d: %s", lineno, msg);
    }
    for (k = 0; k < K__REQUIRED; k++)
        if (!seen[k])
            BAD("no '%s' line: the file is truncated or not a state file",
                statefile_keys[k]);
    if (!bad && node != NULL && strcmp(st->node, node) != 0)
        BAD("written for node '%s', but this node is '%s'", st->node, node);
    if (!bad && group != NULL && strcmp(st->group, group) != 0)
        BAD("written for group '%s', but this node's group is '%s'", st->group, group);
    if (!bad && st->session != 0 && st->passwd_len == 0)
        BAD("session %" PRIx64 " without its passwd", (uint64_t)st->session);
#undef BAD
    return bad ? -1 : 0;
}

/* ---- reading ------------------------------------------------------------- */

enum zkd_state_found
statefile_read(const char *dir, const char *node, const char *group,
    struct zkd_state *st, char *err, size_t errlen)
{
    char path[4096], buf[ZKD_STATE_MAX + 1], why[300], perr[400];
    struct stat lst, fst;
    ssize_t r;
    size_t len = 0;
    int fd, rc;

    memset(st, 0, sizeof(*st));
    st->active = -1;
    why[0] = '\0';
    if (statefile_path(dir, node, path, sizeof(path)) != 0) {
        snprintf(err, errlen, "%s: state directory name too long", dir);
        return ZKD_STATE_BAD;
    }
    if (lstat(path, &lst) == -1) {
        if (errno == ENOENT)
            return ZKD_STATE_NONE;
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return ZKD_STATE_BAD;
    }
    if (S_ISLNK(lst.st_mode)) {
        snprintf(err, errlen, "%s: is a symbolic link: refused (not followed)", path);
        return ZKD_STATE_BAD;
    }
    if (!S_ISREG(lst.st_mode)) {
        snprintf(err, errlen, "%s: not a regular file", path);
        return ZKD_STATE_BAD;
    }
    if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)) == -1) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return ZKD_STATE_BAD;
    }
    if (fstat(fd, &fst) == -1 || fst.st_ino != lst.st_ino || fst.st_dev != lst.st_dev) {
        close(fd);
        snprintf(err, errlen, "%s: changed while it was opened", path);
        return ZKD_STATE_BAD;
    }
    /* the owner and the mode are checked, and yet the contents are read: an
       active line is reported whatever else is wrong */
    if (fst.st_uid != geteuid())
        snprintf(why, sizeof(why), "owned by uid %lu, not by this daemon's uid %lu",
            (unsigned long)fst.st_uid, (unsigned long)geteuid());
    else if ((fst.st_mode & 077) != 0)
        snprintf(why, sizeof(why), "mode %04o: must be 0600 (no access for group "
            "or others: it holds the session password)", (unsigned)(fst.st_mode & 07777));
    while (len < sizeof(buf)) {
        r = read(fd, buf + len, sizeof(buf) - len);
        if (r == -1 && errno == EINTR)
            continue;
        if (r == -1) {
            snprintf(err, errlen, "%s: read: %s", path, strerror(errno));
            close(fd);
            return ZKD_STATE_BAD;
        }
        if (r == 0)
            break;
        len += (size_t)r;
    }
    close(fd);
    if (len > ZKD_STATE_MAX) {
        snprintf(err, errlen, "%s: larger than %d bytes: not a state file", path,
            ZKD_STATE_MAX);
        return ZKD_STATE_BAD;
    }
    rc = statefile_parse(buf, len, node, group, st, perr, sizeof(perr));
    if (why[0] != '\0') {
        snprintf(err, errlen, "%s: %s", path, why);
        return ZKD_STATE_BAD;
    }
    if (rc != 0) {
        snprintf(err, errlen, "%s: %s", path, perr);
        return ZKD_STATE_BAD;
    }
    return ZKD_STATE_OK;
}

/* ---- writing ------------------------------------------------------------- */

int
statefile_write(const char *dir, const struct zkd_state *st, char *err, size_t errlen)
{
    char path[4096], tmp[4200], text[ZKD_STATE_MAX], hex[2 * sizeof(st->passwd) + 1];
    size_t off = 0;
    ssize_t w;
    int fd, dfd, n, i;

    if (statefile_path(dir, st->node, path, sizeof(path)) != 0) {
        snprintf(err, errlen, "%s: state directory name too long", dir);
        return -1;
    }
    /* a dot file: nobody reads "<id>.state.tmp" for the state file */
    snprintf(tmp, sizeof(tmp), "%.*s.%s.state.tmp", (int)(strrchr(path, '/') - path + 1),
        path, st->node);
    for (i = 0; i < st->passwd_len && i < (int)sizeof(st->passwd); i++)
        snprintf(hex + 2 * i, 3, "%02x", st->passwd[i]);
    hex[2 * i] = '\0';
    n = snprintf(text, sizeof(text), "# zkelectd state file: rewritten as a whole, "
        "do not edit\nversion=%d\nnode=%s\ngroup=%s\nsession=%" PRIx64 "\npasswd=%s\n"
        "timeout_ms=%d\nactive=%d\nepoch=%" PRIu64 "\n", ZKD_STATE_VERSION, st->node,
        st->group, (uint64_t)st->session, hex, st->timeout_ms, st->active == 1,
        st->epoch);
    if (n >= 0 && (size_t)n < sizeof(text) && st->slot != 0)
        n += snprintf(text + n, sizeof(text) - (size_t)n, "slot=%d\n", st->slot);
    if (n < 0 || (size_t)n >= sizeof(text)) {
        snprintf(err, errlen, "%s: contents too long", path);
        return -1;
    }
    (void)unlink(tmp);                  /* a leftover of a crash mid-write */
    if ((fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600)) == -1) {
        snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
        return -1;
    }
    while (off < (size_t)n) {
        w = write(fd, text + off, (size_t)n - off);
        if (w == -1 && errno == EINTR)
            continue;
        if (w <= 0) {
            snprintf(err, errlen, "%s: write: %s", tmp, w == 0 ? "no progress" :
                strerror(errno));
            goto fail;
        }
        off += (size_t)w;
    }
    if (fchmod(fd, 0600) == -1 || fsync(fd) == -1) {
        snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
        goto fail;
    }
    if (close(fd) == -1) {
        fd = -1;
        snprintf(err, errlen, "%s: close: %s", tmp, strerror(errno));
        goto fail;
    }
    fd = -1;
    if (rename(tmp, path) == -1) {
        snprintf(err, errlen, "%s: rename to %s: %s", tmp, path, strerror(errno));
        goto fail;
    }
    /* the rename itself must reach the disk */
    if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1 || fsync(dfd) == -1) {
        snprintf(err, errlen, "%s: fsync of the directory: %s", dir, strerror(errno));
        if (dfd >= 0)
            close(dfd);
        return -1;
    }
    close(dfd);
    return 0;
fail:
    if (fd >= 0)
        close(fd);
    (void)unlink(tmp);
    return -1;
}

/* ---- the directory ------------------------------------------------------- */

int
statefile_check_dir(const char *dir, bool create, char *err, size_t errlen)
{
    char parent[4096], *slash;
    struct stat st;

    if (dir[0] != '/') {
        snprintf(err, errlen, "%s: not an absolute path", dir);
        return -1;
    }
    if (stat(dir, &st) == -1) {
        if (errno != ENOENT) {
            snprintf(err, errlen, "%s: %s", dir, strerror(errno));
            return -1;
        }
        if (create) {
            if (mkdir(dir, 0700) == -1) {
                snprintf(err, errlen, "%s: cannot create it: %s", dir, strerror(errno));
                return -1;
            }
            return 0;
        }
        snprintf(parent, sizeof(parent), "%s", dir);
        while ((slash = strrchr(parent, '/')) != NULL && slash[1] == '\0' && slash != parent)
            *slash = '\0';
        slash = strrchr(parent, '/');
        if (slash == parent)
            slash[1] = '\0';
        else if (slash != NULL)
            *slash = '\0';
        if (access(parent, W_OK | X_OK) == -1) {
            snprintf(err, errlen, "%s: does not exist, and cannot be created in %s: %s",
                dir, parent, strerror(errno));
            return -1;
        }
        return 0;
    }
    if (!S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "%s: not a directory", dir);
        return -1;
    }
    if (st.st_uid != geteuid()) {
        snprintf(err, errlen, "%s: owned by uid %lu, not by this daemon's uid %lu", dir,
            (unsigned long)st.st_uid, (unsigned long)geteuid());
        return -1;
    }
    if ((st.st_mode & 022) != 0) {
        snprintf(err, errlen, "%s: mode %04o: writable by group or others (0700 "
            "expected)", dir, (unsigned)(st.st_mode & 07777));
        return -1;
    }
    return 0;
}
