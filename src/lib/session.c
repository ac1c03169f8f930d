/*
 * session.c - the session as a thing the caller can keep: its id and
 * password (zkelect_get_session), closing a session a previous process left
 * behind (zkelect_end_session), and a round trip through the library thread
 * (zkelect_ping).
 *
 * A daemon that is killed leaves its session, and its ephemeral znodes, alive
 * until ZooKeeper expires it (the session timeout T). If the daemon saved the
 * id and password, its next start can reattach to that session and close it:
 * the znodes go at once, and the elector need not wait T.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"

/* ---- the current session -------------------------------------------------- */

ZKELECT_API int
zkelect_get_session(zkelect_t *h, int64_t *id, unsigned char passwd[16], int *passwd_len)
{
    int rc = 0;

    if (h == NULL || id == NULL || passwd == NULL || passwd_len == NULL)
        return ZKELECT_EINVAL;
    pthread_mutex_lock(&h->mu);
    if (h->sess_public != SESS_CONNECTED || h->session_id_public == 0) {
        rc = ZKELECT_ECONNLOSS;
    } else {
        *id = h->session_id_public;
        memcpy(passwd, h->session_passwd, sizeof(h->session_passwd));
        *passwd_len = (int)sizeof(h->session_passwd);
    }
    pthread_mutex_unlock(&h->mu);
    if (rc != 0) {
        *id = 0;
        *passwd_len = 0;
    }
    return rc;
}

/* ---- ending an old session ---------------------------------------------- */

/* What the watcher of the reattaching handle saw. */
struct endsess {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int state;                          /* 0, or the last ZOO_*_STATE seen (mu) */
};

static void
endsess_watcher(zhandle_t *zh, int type, int state, const char *path, void *ctx)
{
    struct endsess *es = ctx;

    (void)zh;
    (void)path;
    if (type != ZOO_SESSION_EVENT)
        return;
    pthread_mutex_lock(&es->mu);
    if (state == ZOO_CONNECTED_STATE || state == ZOO_EXPIRED_SESSION_STATE ||
        state == ZOO_AUTH_FAILED_STATE)
        es->state = state;
    pthread_cond_broadcast(&es->cv);
    pthread_mutex_unlock(&es->mu);
}

/* The client's own log lines (no user pointer: the one end_session running). */
static pthread_mutex_t endsess_log_mu = PTHREAD_MUTEX_INITIALIZER;
static struct zkelect *endsess_log_h;

static void
endsess_zk_log(const char *msg)
{
    size_t n = strlen(msg);

    while (n > 0 && (msg[n - 1] == '\n' || msg[n - 1] == '\r'))
        n--;
    pthread_mutex_lock(&endsess_log_mu);
    if (endsess_log_h != NULL)
        zke_log(endsess_log_h, strstr(msg, "ZOO_ERROR@") ? ZKELECT_LOG_NOTICE :
                ZKELECT_LOG_DEBUG, "zookeeper: %.*s", (int)(n > 400 ? 400 : n), msg);
    pthread_mutex_unlock(&endsess_log_mu);
}

ZKELECT_API int
zkelect_end_session(const struct zkelect_options *o, int64_t id,
                    const unsigned char *passwd, int passwd_len)
{
    struct zkelect *lh;                 /* only for zke_load_auth and the log */
    struct endsess es;
    pthread_condattr_t ca;
    struct timespec ts;
    clientid_t cid;
    zhandle_t *zh;
    int rc, timeout_ms, t_ms;

    if (o == NULL || o->size < offsetof(struct zkelect_options, stepdown_ms) ||
        o->hosts == NULL || *o->hosts == '\0' || id == 0 || passwd == NULL ||
        passwd_len <= 0 || passwd_len > (int)sizeof(cid.passwd) ||
        o->session_timeout_ms < 0 || o->connect_timeout_ms < 0)
        return ZKELECT_EINVAL;
    if ((lh = calloc(1, sizeof(*lh))) == NULL)
        return ZKELECT_ENOMEM;
    lh->log = o->log;
    lh->log_data = o->log_data;
    lh->log_level = o->log_level ? o->log_level : ZKELECT_LOG_INFO;
    /* the same credential as zkelect_open: closing needs none today, but a
       server that insists on one gets it, and a bad file is refused alike */
    if ((rc = zke_load_auth(lh, o->auth_file)) != 0) {
        free(lh);
        return rc;
    }
    timeout_ms = o->connect_timeout_ms ? o->connect_timeout_ms : 15000;
    t_ms = o->session_timeout_ms ? o->session_timeout_ms : 10000;
    memset(&cid, 0, sizeof(cid));
    cid.client_id = id;
    memcpy(cid.passwd, passwd, (size_t)passwd_len);

    memset(&es, 0, sizeof(es));
    pthread_mutex_init(&es.mu, NULL);
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&es.cv, &ca);
    pthread_condattr_destroy(&ca);
    pthread_mutex_lock(&endsess_log_mu);
    endsess_log_h = lh;
    pthread_mutex_unlock(&endsess_log_mu);

    zh = zookeeper_init2(o->hosts, endsess_watcher, t_ms, &cid, &es,
                         ZOO_NO_LOG_CLIENTENV, endsess_zk_log);
    if (zh == NULL) {
        int e = errno;

        zke_log(lh, ZKELECT_LOG_ERR, "zookeeper_init(%s) failed: %s", o->hosts,
                strerror(e));
        rc = e == ENOMEM ? ZKELECT_ENOMEM : ZKELECT_EINVAL;
        goto out;
    }
    if (lh->auth != NULL)
        (void)zoo_add_auth(zh, "digest", lh->auth, (int)strlen(lh->auth), NULL, NULL);
    clock_gettime(CLOCK_MONOTONIC, &ts);
    ts.tv_sec += timeout_ms / 1000;
    ts.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&es.mu);
    while (es.state == 0)
        if (pthread_cond_timedwait(&es.cv, &es.mu, &ts) == ETIMEDOUT)
            break;
    if (es.state == ZOO_CONNECTED_STATE)
        rc = 0;                         /* reattached: the close below ends it */
    else if (es.state == ZOO_EXPIRED_SESSION_STATE)
        rc = ZKELECT_EEXPIRED;          /* gone already, or the password is wrong */
    else if (es.state == ZOO_AUTH_FAILED_STATE)
        rc = ZKELECT_EAUTHFAILED;
    else
        rc = ZKELECT_ECONNECT;
    pthread_mutex_unlock(&es.mu);
    /* connected: the client sends closeSession and the server deletes the
       session's ephemerals at once; otherwise it only frees the handle */
    if (zookeeper_close(zh) != ZOK && rc == 0)
        rc = ZKELECT_ECONNLOSS;
    zke_log(lh, rc == 0 ? ZKELECT_LOG_INFO : ZKELECT_LOG_NOTICE,
            "old session 0x%llx: %s", (unsigned long long)id,
            rc == 0 ? "reattached and closed" : zkelect_strerror(rc));
out:
    pthread_mutex_lock(&endsess_log_mu);
    if (endsess_log_h == lh)
        endsess_log_h = NULL;
    pthread_mutex_unlock(&endsess_log_mu);
    pthread_cond_destroy(&es.cv);
    pthread_mutex_destroy(&es.mu);
    if (lh->auth != NULL) {
        explicit_bzero(lh->auth, strlen(lh->auth));
        free(lh->auth);
    }
    free(lh);
    return rc;
}

/* ---- ping: a round trip through the library thread --------------------- */

/*
 * Shared by the caller and the library thread, under its own lock (not h->mu:
 * a library thread stuck in a callback holds h->mu, and the caller must still
 * get its answer in time); freed by whichever lets go last.
 */
struct ping {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int refs;                           /* (mu) 2 while both hold it */
    bool ran;                           /* (mu) the library thread ran it */
};

static void
ping_unref(struct ping *p)
{
    int left;

    pthread_mutex_lock(&p->mu);
    left = --p->refs;
    pthread_mutex_unlock(&p->mu);
    if (left == 0) {
        pthread_cond_destroy(&p->cv);
        pthread_mutex_destroy(&p->mu);
        free(p);
    }
}

static void
ping_run(struct zkelect *h, void *arg)
{
    struct ping *p = arg;

    (void)h;
    pthread_mutex_lock(&p->mu);
    p->ran = true;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
    ping_unref(p);
}

ZKELECT_API int
zkelect_ping(zkelect_t *h, int timeout_ms)
{
    pthread_condattr_t ca;
    struct timespec ts;
    struct ping *p;
    int rc = 0;

    if (h == NULL || timeout_ms < 0)
        return ZKELECT_EINVAL;
    if (pthread_equal(pthread_self(), h->thread))
        return 0;                       /* the library thread itself: it runs */
    if ((p = calloc(1, sizeof(*p))) == NULL)
        return ZKELECT_ENOMEM;
    pthread_mutex_init(&p->mu, NULL);
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&p->cv, &ca);
    pthread_condattr_destroy(&ca);
    p->refs = 2;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    ts.tv_sec += timeout_ms / 1000;
    ts.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    zke_call(h, ping_run, p);
    pthread_mutex_lock(&p->mu);
    while (!p->ran)
        if (pthread_cond_timedwait(&p->cv, &p->mu, &ts) == ETIMEDOUT)
            break;
    if (!p->ran)
        rc = ZKELECT_ETIMEDOUT;
    pthread_mutex_unlock(&p->mu);
    ping_unref(p);
    return rc;
}
