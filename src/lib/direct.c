/*
 * direct.c - decisions written from the elector's standing succession by
 * someone other than the elector (doc/PROTOCOL.md §4, "Direct handover" and
 * "The operator's direct switchover"). See direct.h.
 */
#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "zkecommon.h"
#include "direct.h"

/* A multi's reply, waited for by the caller's thread (the client's own
   thread answers): zoo_amulti, the one call the fake ZooKeeper of the
   tests wraps for multis (tests/fakezk/check-wraps.sh). */
struct direct_wait {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool done;
    int rc;
};

static void
direct_done(int rc, const void *data)
{
    struct direct_wait *w = (struct direct_wait *)data;

    pthread_mutex_lock(&w->mu);
    w->rc = rc;
    w->done = true;
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->mu);
}

static int
direct_multi(zhandle_t *zh, int n, const zoo_op_t *ops, zoo_op_result_t *res)
{
    struct direct_wait w = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, false, 0};
    int rc;

    rc = zoo_amulti(zh, n, ops, res, direct_done, &w);
    if (rc != ZOK)
        return rc;
    pthread_mutex_lock(&w.mu);
    while (!w.done)
        pthread_cond_wait(&w.cv, &w.mu);
    pthread_mutex_unlock(&w.mu);
    return w.rc;
}

/* informational timestamps only (at_ms) */
static int64_t
direct_wall_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void
zke_hand_slot0(struct zke_elected *e, const struct zke_succ *x, uint64_t epoch,
               const char *from_id, const char *from_host, const char *elector,
               const char *policy)
{
    snprintf(e->leader, sizeof(e->leader), "%s", x->successor);
    snprintf(e->leader_site, sizeof(e->leader_site), "%s", x->successor_site);
    snprintf(e->leader_znode, sizeof(e->leader_znode), "%s", x->successor_znode);
    snprintf(e->leader_host, sizeof(e->leader_host), "%s", x->successor_host);
    snprintf(e->previous, sizeof(e->previous), "%s", from_id);
    snprintf(e->previous_host, sizeof(e->previous_host), "%s", from_host);
    e->epoch = epoch;
    snprintf(e->elector, sizeof(e->elector), "%s", elector);
    snprintf(e->policy, sizeof(e->policy), "%s", policy);
    e->at_ms = direct_wall_ms();
    memset(&e->hold, 0, sizeof(e->hold));
}

const char *
zke_direct_switchover_kind(const struct zke_elected *e, const struct zke_switchover *so,
                           int leaders)
{
    if (leaders != 1 || (e && e->nslots > 0))
        return "the group has more than one leader";
    if (so->cancel || so->due_ms > 0 || *so->site)
        return "the request is scheduled, for a site, or a cancel";
    if (*so->from && e && strcmp(so->from, e->leader) != 0)
        return "the request moves another node's slot";
    return NULL;
}

const char *
zke_direct_switchover_refusal(const struct zke_elected *e, int32_t ev,
                              const struct zke_successor *s, const struct zke_switchover *so,
                              int leaders)
{
    const struct zke_succ *x;
    const char *why;

    if (e == NULL || ev < 0)
        return "there is no decision to move";
    if ((why = zke_direct_switchover_kind(e, so, leaders)) != NULL)
        return why;
    if (!*e->leader || !*e->leader_znode)
        return "the decision names no registration";
    if (s == NULL || (x = zke_successor_slot(s, 0)) == NULL)
        return "the elector has recorded no successor";
    if (s->elected_version != ev || strcmp(x->leader, e->leader) != 0 ||
        strcmp(x->leader_znode, e->leader_znode) != 0)
        return "the succession is for another decision";
    if (s->history_version < 0 || x->successor_version < 0)
        return "the succession is of a release without direct handovers";
    if (!x->switchover)
        return "the policy would send a switchover elsewhere than the successor";
    if (*so->to && strcmp(so->to, x->successor) != 0)
        return "the requested node is not the recorded successor";
    if (s->next_epoch <= e->epoch || (e->fast_handover && s->next_epoch != e->epoch + 1))
        return "the succession's epoch is not the next";
    return NULL;
}

int
zke_direct_switchover(zhandle_t *zh, const char *base, const struct zke_elected *e,
                      int32_t ev, const struct zke_successor *s, int32_t sv,
                      const struct zke_switchover *so, int32_t so_version,
                      const struct ACL_vector *acl)
{
    char p_succ[ZKE_PATH_MAX], p_hist[ZKE_PATH_MAX], p_cfg[ZKE_PATH_MAX], p_rec[ZKE_PATH_MAX],
         p_el[ZKE_PATH_MAX], p_so[ZKE_PATH_MAX], p_wake[ZKE_PATH_MAX];
    const struct zke_succ *x = zke_successor_slot(s, 0);
    struct zke_elected *d;
    zoo_op_t ops[8];
    zoo_op_result_t res[8];
    char *el = NULL, *req = NULL;
    size_t ellen, reqlen;
    int n = 0, rc;

    if (acl == NULL)
        acl = &ZOO_OPEN_ACL_UNSAFE;
    if (x == NULL)
        return ZBADARGUMENTS;
    if ((d = malloc(sizeof(*d))) == NULL)
        return ZMARSHALLINGERROR;
    if (zke_layout_path(p_succ, sizeof(p_succ), base, ZKE_ZN_SUCCESSOR, NULL) != 0 ||
        zke_layout_path(p_hist, sizeof(p_hist), base, ZKE_ZN_HISTORY, NULL) != 0 ||
        zke_layout_path(p_cfg, sizeof(p_cfg), base, ZKE_ZN_CONFIG, NULL) != 0 ||
        zke_layout_path(p_rec, sizeof(p_rec), base, ZKE_ZN_NODES, x->successor) != 0 ||
        zke_layout_path(p_el, sizeof(p_el), base, ZKE_ZN_ELECTED, NULL) != 0 ||
        zke_layout_path(p_so, sizeof(p_so), base, ZKE_ZN_SWITCHOVER, NULL) != 0 ||
        zke_layout_path(p_wake, sizeof(p_wake), base, ZKE_ZN_ELECTION, x->successor_znode) != 0) {
        free(d);
        return ZBADARGUMENTS;
    }
    *d = *e;
    zke_hand_slot0(d, x, s->next_epoch, e->leader, e->leader_host, s->elector, s->policy);
    d->switchover_id = so->id;
    snprintf(d->reason, sizeof(d->reason), "switchover %llu%s%s: %s is the policy's choice "
             "(the elector's succession; written by the operator)", (unsigned long long)so->id,
             *so->by ? " by " : "", so->by, x->successor);
    rc = zke_elected_encode(d, &el, &ellen) == 0 && zke_switchover_encode(so, &req, &reqlen) == 0
             ? ZOK : ZMARSHALLINGERROR;
    free(d);
    if (rc != ZOK)
        goto out;
    /* the succession, and what it was made on: the history (every decision
       writes it), the rules, the successor's own record */
    zoo_check_op_init(&ops[n++], p_succ, sv);
    zoo_check_op_init(&ops[n++], p_hist, s->history_version);
    if (s->config_version >= 0) {
        zoo_check_op_init(&ops[n++], p_cfg, s->config_version);
    } else {
        /* made when there was none: still none */
        zoo_create_op_init(&ops[n++], p_cfg, "", 0, acl, ZOO_PERSISTENT, NULL, 0);
        zoo_delete_op_init(&ops[n++], p_cfg, 0);
    }
    zoo_check_op_init(&ops[n++], p_rec, x->successor_version);
    /* the decision before the request: the elector, which watches both,
       hears of the decision first */
    zoo_set_op_init(&ops[n++], p_el, el, (int)ellen, ev, NULL);
    if (so_version >= 0)
        zoo_set_op_init(&ops[n++], p_so, req, (int)reqlen, so_version, NULL);
    else
        zoo_create_op_init(&ops[n++], p_so, req, (int)reqlen, acl, ZOO_PERSISTENT, NULL, 0);
    /* the wake: one write, as a handover's; its registration must be there */
    zoo_set_op_init(&ops[n++], p_wake, x->successor, (int)strlen(x->successor), -1, NULL);
    memset(res, 0, sizeof(res));
    rc = direct_multi(zh, n, ops, res);
out:
    free(el);
    free(req);
    return rc;
}

enum zke_direct_outcome
zke_direct_outcome(int rc)
{
    switch (rc) {
    case ZOK:
        return ZKE_DIRECT_WRITTEN;
    case ZCONNECTIONLOSS:
    case ZOPERATIONTIMEOUT:
    case ZSESSIONMOVED:
    case ZRUNTIMEINCONSISTENCY: /* the client's answer to every request in
                                   flight after an out-of-order reply */
        return ZKE_DIRECT_UNKNOWN;
    case ZSESSIONEXPIRED:
    case ZCLOSING:
    case ZAUTHFAILED:
        return ZKE_DIRECT_UNKNOWN_ENDED;
    default:
        return ZKE_DIRECT_NOT_WRITTEN;
    }
}
