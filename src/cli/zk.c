/*
 * zk.c - the CLI's ZooKeeper session: connect with a deadline, credentials,
 * the one watcher, waiting for events, reads with watches, error messages.
 *
 * This is the only file of the CLI that deals with the session itself;
 * ZooKeeper's own log is switched off here (our messages only). A port where
 * nothing listens fails in about a second (zke_hosts_probe), not after -t.
 *
 * Threads: the watcher runs on the client's completion thread and only
 * records the session state and bumps an eventfd; everything else runs on the
 * main thread with synchronous calls.
 */
#include "config.h"

#include <sys/eventfd.h>
#include <sys/signalfd.h>

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static void
cli_watcher(zhandle_t *zh, int type, int state, const char *path, void *ctx)
{
    struct cli *c = ctx;
    uint64_t one = 1;
    ssize_t n;

    (void)zh;
    (void)path;
    if (type == ZOO_SESSION_EVENT) {
        atomic_store(&c->state, state);
        if (state == ZOO_EXPIRED_SESSION_STATE)
            atomic_store(&c->expired, true);
    }
    /* a full counter (EAGAIN) still wakes the reader: nothing to do */
    n = write(c->efd, &one, sizeof(one));
    (void)n;
}

bool
cli_connected(struct cli *c)
{
    return c->zh != NULL && atomic_load(&c->state) == ZOO_CONNECTED_STATE;
}

bool
cli_transient(int rc)
{
    return rc == ZCONNECTIONLOSS || rc == ZOPERATIONTIMEOUT || rc == ZSESSIONEXPIRED ||
           rc == ZINVALIDSTATE || rc == ZCLOSING || rc == ZSESSIONMOVED;
}

/* A request was answered ZCONNECTIONLOSS or ZOPERATIONTIMEOUT: the client
   reconnects the same session by itself. Wait for that until DEADLINE_MS;
   true once connected. */
bool
cli_await_connection(struct cli *c, uint64_t deadline_ms)
{
    while (!cli_connected(c))
        if (cli_mono_ms() >= deadline_ms || cli_wait_event(c, deadline_ms) <= 0)
            return cli_connected(c);
    return true;
}

int
cli_wait_event(struct cli *c, uint64_t deadline_ms)
{
    struct pollfd pfd[2];
    uint64_t now, cnt;
    int n, timeout;
    ssize_t r;

    for (;;) {
        timeout = -1;
        if (deadline_ms) {
            now = cli_mono_ms();
            if (now >= deadline_ms)
                return 0;
            timeout = deadline_ms - now > 60000 ? 60000 : (int)(deadline_ms - now);
        }
        pfd[0].fd = c->efd;
        pfd[0].events = POLLIN;
        pfd[1].fd = c->sigfd;
        pfd[1].events = POLLIN;
        n = poll(pfd, c->sigfd >= 0 ? 2 : 1, timeout);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            cli_err("poll: %s", strerror(errno));
            return -1;
        }
        if (n == 0)
            continue;   /* the deadline is checked at the top */
        if (c->sigfd >= 0 && (pfd[1].revents & POLLIN)) {
            struct signalfd_siginfo si;
            r = read(c->sigfd, &si, sizeof(si));
            (void)r;
            return -1;
        }
        if (pfd[0].revents & POLLIN) {
            r = read(c->efd, &cnt, sizeof(cnt));
            (void)r;
            return 1;
        }
    }
}

/* 0 when the client took the credential (or there is none), 1 when it must
   be sent again once connected, -1 on a real error (reported). */
static int
cli_send_auth(struct cli *c, const char *cred, const char *what)
{
    int rc;

    if (cred == NULL)
        return 0;
    rc = zoo_add_auth(c->zh, "digest", cred, (int)strlen(cred), NULL, NULL);
    if (rc == ZOK)
        return 0;
    if (rc == ZINVALIDSTATE && atomic_load(&c->state) != ZOO_CONNECTED_STATE)
        return 1;
    cli_err("cannot send the credentials of %s: %s", what, zerror(rc));
    return -1;
}

/* zookeeper_init and wait for CONNECTED until deadline_ms (0: forever). */
static int
session_open(struct cli *c, uint64_t deadline_ms, bool first)
{
    int state, w, auth_pending, extra_pending;
    uint64_t probe_at;

    atomic_store(&c->state, ZOO_NOTCONNECTED_STATE);
    atomic_store(&c->expired, false);
    errno = 0;
    c->zh = zookeeper_init(c->hosts, cli_watcher, CLI_SESSION_MS, NULL, c, ZOO_NO_LOG_CLIENTENV);
    if (c->zh == NULL) {
        char esc[256];
        cli_escape(c->hosts, esc, sizeof(esc));
        if (errno == EINVAL)
            return first ? cli_usage_err(c, "-z: \"%s\" is not a ZooKeeper connection string "
                                         "(host:port[,host:port...][/chroot])", esc) : CLI_EFAIL;
        if (errno == ENOENT) {
            cli_err("cannot resolve the ZooKeeper host names in \"%s\"", esc);
            return CLI_EFAIL;
        }
        cli_err("cannot start a ZooKeeper session for \"%s\": %s", esc,
                errno ? strerror(errno) : "unknown error");
        return CLI_EFAIL;
    }
    /* requests are processed in order: the credentials come before any read.
       Between two connection attempts the client refuses them with
       ZINVALIDSTATE without keeping them (ZOOKEEPER-800): send them again
       once connected, still before any request. */
    auth_pending = cli_send_auth(c, c->auth, c->auth_file);
    extra_pending = cli_send_auth(c, c->extra_auth, "the operator's credentials");
    if (auth_pending < 0 || extra_pending < 0)
        return CLI_EFAIL;
    /* The client retries a refused connection until the deadline: when no
       session came within CLI_PROBE_AFTER_MS, ask every server once whether
       anything listens at all, and give up at once if none does. */
    probe_at = first ? cli_mono_ms() + CLI_PROBE_AFTER_MS : 0;
    for (;;) {
        state = atomic_load(&c->state);
        if (state == ZOO_CONNECTED_STATE) {
            if ((auth_pending && cli_send_auth(c, c->auth, c->auth_file) != 0) ||
                (extra_pending && cli_send_auth(c, c->extra_auth, "the operator's credentials") != 0))
                return CLI_EFAIL;
            return CLI_OK;
        }
        if (state == ZOO_AUTH_FAILED_STATE) {
            cli_err("ZooKeeper at %s refused the credentials of %s", c->hosts,
                    c->auth_file ? c->auth_file : "the auth file");
            return CLI_EFAIL;
        }
        w = cli_wait_event(c, probe_at && (deadline_ms == 0 || probe_at < deadline_ms) ?
                           probe_at : deadline_ms);
        if (w < 0)
            return -1;
        if (w == 0 && probe_at) {
            uint64_t now = cli_mono_ms();
            int ms = CLI_PROBE_MS;
            char detail[512], esc[256];

            probe_at = 0;
            if (deadline_ms && deadline_ms <= now)
                ms = 0;
            else if (deadline_ms && deadline_ms - now < (uint64_t)ms)
                ms = (int)(deadline_ms - now);
            if (ms > 0 && zke_hosts_probe(c->hosts, ms, detail, sizeof(detail)) ==
                ZKE_PROBE_REFUSED) {
                cli_escape(c->hosts, esc, sizeof(esc));
                cli_err("cannot connect to ZooKeeper at %s: connection refused by every "
                        "server (%s); is it running? check -z or ZKELECT_HOSTS", esc, detail);
                return CLI_EFAIL;
            }
            continue;
        }
        if (w == 0) {
            char esc[256];
            cli_escape(c->hosts, esc, sizeof(esc));
            cli_err("cannot connect to ZooKeeper at %s within %d ms (is it running? check -z "
                    "or ZKELECT_HOSTS, or raise -t)", esc, c->timeout_ms);
            return CLI_EFAIL;
        }
    }
}

int
cli_connect(struct cli *c)
{
    const char *p;
    int rc;

    if (c->zh)
        return CLI_OK;
    if (c->auth_file && c->auth == NULL && cli_read_secret(c->auth_file, "-a", &c->auth) != 0)
        return CLI_EFAIL;
    if (c->hosts == NULL || *c->hosts == '\0')
        return cli_usage_err(c, "no ZooKeeper hosts: give -z HOSTS or set ZKELECT_HOSTS");
    for (p = c->hosts; *p; p++)
        if ((unsigned char)*p <= 0x20 || *p == 0x7f)
            return cli_usage_err(c, "-z: the connection string contains a space or a control "
                                 "character");
    if (c->efd < 0) {
        c->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        if (c->efd < 0) {
            cli_err("eventfd: %s", strerror(errno));
            return CLI_EFAIL;
        }
    }
    /* ZooKeeper's log is process-global and noisy: our messages only */
    zoo_set_debug_level((ZooLogLevel)0);
    rc = session_open(c, cli_mono_ms() + (uint64_t)c->timeout_ms, true);
    return rc < 0 ? CLI_EFAIL : rc;
}

void
cli_close(struct cli *c)
{
    if (c->zh) {
        zookeeper_close(c->zh);
        c->zh = NULL;
    }
    if (c->efd >= 0) {
        close(c->efd);
        c->efd = -1;
    }
    if (c->sigfd >= 0) {
        close(c->sigfd);
        c->sigfd = -1;
    }
}

int
cli_reconnect(struct cli *c, uint64_t deadline_ms)
{
    if (c->zh) {
        zookeeper_close(c->zh);
        c->zh = NULL;
    }
    return session_open(c, deadline_ms, false);
}

int
cli_get(struct cli *c, const char *path, bool watch, char **buf, int *len, struct Stat *st)
{
    char *b;
    int rc, l, tries;

    *buf = NULL;
    *len = -1;
    memset(st, 0, sizeof(*st));
    if (c->zh == NULL)
        return ZINVALIDSTATE;
    if ((b = malloc(ZKE_PAYLOAD_MAX + 1)) == NULL)
        return ZSYSTEMERROR;
    for (tries = 0; tries < 10; tries++) {
        /* one byte more than the codec's maximum: a larger payload decodes
         * as "too big" instead of being silently truncated */
        l = ZKE_PAYLOAD_MAX + 1;
        if (watch)
            rc = zoo_wget(c->zh, path, cli_watcher, c, b, &l, st);
        else
            rc = zoo_get(c->zh, path, 0, b, &l, st);
        if (rc == ZNONODE && watch) {
            /* no data watch on a missing znode: watch for its creation */
            rc = zoo_wexists(c->zh, path, cli_watcher, c, st);
            if (rc == ZOK)
                continue;   /* created meanwhile: read it */
        }
        break;
    }
    if (rc != ZOK) {
        free(b);
        return rc;
    }
    *buf = b;
    *len = l;
    return ZOK;
}

int
cli_children(struct cli *c, const char *path, bool watch, struct String_vector *sv)
{
    struct Stat st;
    int rc, tries;

    memset(sv, 0, sizeof(*sv));
    if (c->zh == NULL)
        return ZINVALIDSTATE;
    for (tries = 0; tries < 10; tries++) {
        if (watch)
            rc = zoo_wget_children(c->zh, path, cli_watcher, c, sv);
        else
            rc = zoo_get_children(c->zh, path, 0, sv);
        if (rc == ZNONODE && watch) {
            rc = zoo_wexists(c->zh, path, cli_watcher, c, &st);
            if (rc == ZOK)
                continue;
            if (rc == ZNONODE)
                break;
        }
        break;
    }
    return rc;
}

int
cli_zk_fail(struct cli *c, const char *op, const char *path, int rc)
{
    if (rc == ZNOAUTH && c->auth)
        cli_err("cannot %s %s: not authorized by its ACL (user \"%.*s\" of %s lacks the "
                "permission)", op, path, (int)strcspn(c->auth, ":"), c->auth, c->auth_file);
    else if (rc == ZNOAUTH && c->extra_auth)
        cli_err("cannot %s %s: not authorized by its ACL (user \"%.*s\" lacks the permission)",
                op, path, (int)strcspn(c->extra_auth, ":"), c->extra_auth);
    else if (rc == ZNOAUTH)
        cli_err("cannot %s %s: not authorized by its ACL (no credentials given: use -a FILE or "
                "ZKELECT_AUTH_FILE)", op, path);
    else if (rc == ZNONODE)
        cli_err("cannot %s %s: no such znode", op, path);
    else if (rc == ZCONNECTIONLOSS || rc == ZOPERATIONTIMEOUT)
        cli_err("cannot %s %s: connection to ZooKeeper lost (%s); a write may or may not "
                "have been applied", op, path, zerror(rc));
    else if (rc == ZSESSIONEXPIRED || rc == ZINVALIDSTATE)
        cli_err("cannot %s %s: the ZooKeeper session expired", op, path);
    else if (rc == ZSYSTEMERROR)
        cli_err("cannot %s %s: out of memory", op, path);
    else
        cli_err("cannot %s %s: %s (ZooKeeper error %d)", op, path, zerror(rc), rc);
    return CLI_EFAIL;
}

int
cli_check_group(struct cli *c)
{
    struct Stat st;
    int rc;

    rc = zoo_exists(c->zh, c->path, 0, &st);
    if (rc == ZOK)
        return CLI_OK;
    if (rc == ZNONODE) {
        cli_err("group %s does not exist (no znode %s on %s): run zkelect init, or check -p",
                c->path, c->path, c->hosts);
        return CLI_EFAIL;
    }
    return cli_zk_fail(c, "read", c->path, rc);
}

int
cli_child_acl(struct cli *c, struct ACL_vector *keep, struct ACL *acl, int n)
{
    static char digest_scheme[] = "digest";
    static char self_id[300];
    struct Stat st;
    int rc, i, k = 0;
    bool writable = false;

    memset(keep, 0, sizeof(*keep));
    rc = zoo_get_acl(c->zh, c->path, keep, &st);
    if (rc != ZOK)
        return rc;
    for (i = 0; i < keep->count && k < n; i++) {
        int perms = keep->data[i].perms == ZOO_PERM_ALL ? ZOO_PERM_ALL :
                    (keep->data[i].perms & ZOO_PERM_READ);
        if (perms == 0)
            continue;
        acl[k].perms = perms;
        acl[k].id = keep->data[i].id;
        if (perms & ZOO_PERM_WRITE)
            writable = true;
        k++;
    }
    /* nobody could change it afterwards: keep write access for ourselves */
    if (!writable && c->auth && k < n && cli_digest_id(c->auth, self_id, sizeof(self_id)) == 0) {
        acl[k].perms = ZOO_PERM_ALL;
        acl[k].id.scheme = digest_scheme;
        acl[k].id.id = self_id;
        k++;
    }
    return k;
}
