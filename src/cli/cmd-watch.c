/*
 * cmd-watch.c - `zkelect watch`: print the current state, then every change
 * of the leader, the decision (elected), the elector, the members and the
 * config as it happens, until SIGINT/SIGTERM (exit 0).
 *
 * ZooKeeper watches are one-shot: every read of a snapshot re-arms them all
 * (view_load with watch), and each notification leads to a new snapshot that
 * is compared with the previous one. Changes that happen between two reads
 * are seen as one (ZooKeeper does not keep intermediate versions). The
 * client library re-registers watches after a reconnect on the same session;
 * after an expiry a new session is opened and everything is read again.
 *
 * With N > 1 leaders (config "leaders") each slot's leader znode is
 * watched too: a change of slot k is a "leader" event with "slot": k.
 *
 * SIGINT/SIGTERM are blocked before the session starts (its threads inherit
 * the mask) and read from a signalfd polled with the watch eventfd.
 */
#include "config.h"

#include <sys/signalfd.h>

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cJSON.h>

#include "cli.h"

/* "YYYY-MM-DD HH:MM:SS.mmm", local time. */
static void
watch_now(char *out, size_t outlen, int64_t *ms)
{
    char sec[48];

    *ms = cli_wall_ms();
    cli_time_str(*ms, sec, sizeof(sec));
    snprintf(out, outlen, "%s.%03d", sec, (int)(*ms % 1000));
}

/* One event: text "TIME WHAT TEXT" or a JSON line {"time","at_ms","event",...}.
 * obj (may be NULL) is consumed. */
static void
watch_emit(struct cli *c, const char *event, cJSON *obj, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void
watch_emit(struct cli *c, const char *event, cJSON *obj, const char *fmt, ...)
{
    char when[64], text[1024], *s;
    int64_t ms;
    va_list ap;

    watch_now(when, sizeof(when), &ms);
    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    if (!c->json) {
        printf("%s %s\n", when, text);
        cJSON_Delete(obj);
        return;
    }
    if (obj == NULL)
        obj = cJSON_CreateObject();
    if (obj == NULL)
        return;
    /* time first: build a new object and move the fields over */
    {
        cJSON *line = cJSON_CreateObject(), *it;
        if (line == NULL) {
            cJSON_Delete(obj);
            return;
        }
        cJSON_AddStringToObject(line, "time", when);
        cJSON_AddNumberToObject(line, "at_ms", (double)ms);
        cJSON_AddStringToObject(line, "event", event);
        while ((it = obj->child) != NULL) {
            cJSON_DetachItemViaPointer(obj, it);
            cJSON_AddItemToObject(line, it->string, it);
        }
        cJSON_Delete(obj);
        if ((s = cJSON_PrintUnformatted(line)) != NULL) {
            printf("%s\n", s);
            free(s);
        }
        cJSON_Delete(line);
    }
}

static void
emit_leader(struct cli *c, const struct cli_view *v)
{
    cJSON *o = cJSON_CreateObject(), *l;
    const struct cli_member *m;

    if (v->have_leader) {
        m = view_member(v, v->leader.id);
        if (o && (l = out_leader_obj(v)) != NULL) {
            cJSON_DeleteItemFromObject(l, "elected");
            cJSON_DeleteItemFromObject(l, "transition");
            cJSON_AddItemToObject(o, "leader", l);
        }
        watch_emit(c, "leader", o, "leader %s %s epoch %llu site %s", v->leader.id,
                   zkelect_status_name(v->leader.status), (unsigned long long)v->leader.epoch,
                   m && m->have_rec && *m->rec.site ? m->rec.site : "-");
    } else {
        if (o)
            cJSON_AddNullToObject(o, "leader");
        watch_emit(c, "leader", o, "leader none%s",
                   v->leader_version >= 0 ? " (leader znode malformed)" : "");
    }
}

/* Slot k >= 1 of a group with N > 1 leaders (k >= N: the slot was removed). */
static void
emit_slot(struct cli *c, const struct cli_view *v, int k)
{
    cJSON *o = cJSON_CreateObject(), *l;
    char line[512];

    if (k >= v->leaders) {
        if (o) {
            cJSON_AddNumberToObject(o, "slot", k);
            cJSON_AddNullToObject(o, "leader");
        }
        watch_emit(c, "leader", o, "leader slot %d none (the group has %d leader%s now)", k,
                   v->leaders, v->leaders > 1 ? "s" : "");
        return;
    }
    if (o) {
        cJSON_AddNumberToObject(o, "slot", k);
        if (v->slot[k].have && (l = out_slot_obj(v, k)) != NULL)
            cJSON_AddItemToObject(o, "leader", l);
        else
            cJSON_AddNullToObject(o, "leader");
    }
    out_slot_text(v, k, line, sizeof(line));
    watch_emit(c, "leader", o, "leader slot %d %s", k, line);
}

/* " slots: 1=n2@8 2=-" (the decision's slots 1..N-1), or "" without slots. */
static void
slots_text(const struct cli_view *v, char *out, size_t outlen)
{
    const struct zke_slot *x;
    size_t off;
    int i;

    *out = '\0';
    if (v->elected.nslots == 0)
        return;
    off = (size_t)snprintf(out, outlen, " slots:");
    for (i = 0; i < v->elected.nslots && off < outlen; i++) {
        x = &v->elected.slots[i];
        if (*x->leader)
            off += (size_t)snprintf(out + off, outlen - off, " %d=%s@%llu", x->slot, x->leader,
                                    (unsigned long long)x->epoch);
        else
            off += (size_t)snprintf(out + off, outlen - off, " %d=-", x->slot);
    }
}

static void
emit_elected(struct cli *c, const struct cli_view *v, const struct cli_view *prev)
{
    cJSON *o = cJSON_CreateObject();
    const char *what = "elected";
    char hold[256], slots[ZKE_LEADERS_MAX * (ZKE_ID_MAX + 32)];
    cJSON *h, *arr, *x;
    int i;

    if (!v->have_elected) {
        if (o)
            cJSON_AddNullToObject(o, "leader");
        watch_emit(c, "elected", o, "elected: %s",
                   v->elected_version >= 0 ? "decision malformed" : "no decision");
        return;
    }
    out_hold_text(v, cli_wall_ms(), hold, sizeof(hold));
    slots_text(v, slots, sizeof(slots));
    if (prev && prev->have_elected && prev->elected.epoch == v->elected.epoch &&
        strcmp(prev->elected.leader, v->elected.leader) == 0 &&
        prev->elected.nslots == v->elected.nslots &&
        memcmp(prev->elected.slots, v->elected.slots,
               (size_t)v->elected.nslots * sizeof(v->elected.slots[0])) == 0)
        what = "decision re-written (acknowledged)";
    if (o) {
        if (*v->elected.leader)
            cJSON_AddStringToObject(o, "leader", v->elected.leader);
        else
            cJSON_AddNullToObject(o, "leader");
        cJSON_AddNumberToObject(o, "epoch", (double)v->elected.epoch);
        cJSON_AddStringToObject(o, "elector", v->elected.elector);
        cJSON_AddStringToObject(o, "policy", v->elected.policy);
        cJSON_AddStringToObject(o, "reason", v->elected.reason);
        cJSON_AddNumberToObject(o, "switchover_id", (double)v->elected.switchover_id);
        cJSON_AddNumberToObject(o, "config_version", v->elected.config_version);
        cJSON_AddNumberToObject(o, "excluded", v->elected.nexcluded);
        if (*hold) {
            if ((h = cJSON_AddObjectToObject(o, "hold")) != NULL) {
                cJSON_AddStringToObject(h, "kind", v->elected.hold.kind);
                cJSON_AddStringToObject(h, "node", v->elected.hold.node);
                cJSON_AddNumberToObject(h, "until_ms", (double)v->elected.hold.until_ms);
                cJSON_AddStringToObject(h, "text", hold);
            }
        } else {
            cJSON_AddNullToObject(o, "hold");
        }
        /* slots 1..N-1 of the decision (N = 1: no field, as before slots) */
        if (v->elected.nslots > 0 && (arr = cJSON_AddArrayToObject(o, "slots")) != NULL)
            for (i = 0; i < v->elected.nslots; i++) {
                if ((x = cJSON_CreateObject()) == NULL)
                    break;
                cJSON_AddNumberToObject(x, "slot", v->elected.slots[i].slot);
                if (*v->elected.slots[i].leader)
                    cJSON_AddStringToObject(x, "leader", v->elected.slots[i].leader);
                else
                    cJSON_AddNullToObject(x, "leader");
                cJSON_AddNumberToObject(x, "epoch", (double)v->elected.slots[i].epoch);
                cJSON_AddItemToArray(arr, x);
            }
    }
    watch_emit(c, "elected", o, "%s %s epoch %llu by %s (switchover %llu, config version %d): "
               "%s%s%s%s%s", what, *v->elected.leader ? v->elected.leader : "nobody",
               (unsigned long long)v->elected.epoch, v->elected.elector,
               (unsigned long long)v->elected.switchover_id, (int)v->elected.config_version,
               v->elected.reason, *hold ? " [hold: " : "", hold, *hold ? "]" : "", slots);
}

static void
emit_member(struct cli *c, const struct cli_view *v, const struct cli_member *m, const char *event,
            const char *verb)
{
    cJSON *o = cJSON_CreateObject();
    char seq[24];

    if (m->seq >= 0)
        snprintf(seq, sizeof(seq), "%010lld", (long long)m->seq);
    else
        snprintf(seq, sizeof(seq), "none");
    if (o)
        cJSON_AddItemToObject(o, "member", out_member_obj(v, m));
    if (m->have_rec)
        watch_emit(c, event, o, "member %s %s: site %s priority %d%s%s%s seq %s host %s", m->id,
                   verb, *m->rec.site ? m->rec.site : "-", (int)m->rec.priority,
                   m->rec.eligible ? " eligible" : " ineligible",
                   m->rec.healthy ? " healthy" : " unhealthy",
                   view_excluded(v, m->id) ? " excluded" : "", seq,
                   *m->rec.host ? m->rec.host : "-");
    else
        watch_emit(c, event, o, "member %s %s: %s", m->id, verb,
                   m->bad_rec ? "record malformed" : "no record yet");
}

static void
emit_member_left(struct cli *c, const struct cli_member *m)
{
    cJSON *o = cJSON_CreateObject();

    if (o)
        cJSON_AddStringToObject(o, "id", m->id);
    watch_emit(c, "member-left", o, "member %s left", m->id);
}

static void
emit_elector(struct cli *c, const struct cli_view *v)
{
    cJSON *o = cJSON_CreateObject();

    if (o) {
        if (*v->elector)
            cJSON_AddStringToObject(o, "id", v->elector);
        else
            cJSON_AddNullToObject(o, "id");
    }
    if (*v->elector)
        watch_emit(c, "elector", o, "elector %s (seq %010lld)", v->elector,
                   (long long)v->elector_seq);
    else
        watch_emit(c, "elector", o, "elector none (no members)");
}

static void
emit_config(struct cli *c, const struct cli_view *v)
{
    cJSON *o = cJSON_CreateObject(), *sites, *arr, *x;
    char buf[600], dl[1024], left[32];
    size_t off = 0, doff = 0;
    int64_t now = cli_wall_ms();
    int i;

    if (!v->have_config) {
        if (o)
            cJSON_AddNumberToObject(o, "version", v->config_version);
        watch_emit(c, "config", o, "config %s", v->bad_config ? "malformed" : "absent");
        return;
    }
    buf[0] = '\0';
    for (i = 0; i < v->config.nsites && off < sizeof(buf); i++)
        off += (size_t)snprintf(buf + off, sizeof(buf) - off, " %s=%d", v->config.sites[i].site,
                                (int)v->config.sites[i].priority);
    if (o) {
        cJSON_AddNumberToObject(o, "version", v->config_version);
        cJSON_AddStringToObject(o, "policy", v->config.policy);
        cJSON_AddBoolToObject(o, "paused", v->config.paused);
        if ((sites = cJSON_AddObjectToObject(o, "sites")) != NULL)
            for (i = 0; i < v->config.nsites; i++)
                cJSON_AddNumberToObject(sites, v->config.sites[i].site,
                                        v->config.sites[i].priority);
        if (v->config.leaders > 1)
            cJSON_AddNumberToObject(o, "leaders", v->config.leaders);
    }
    /* N > 1 leaders, the delays set, then the drains with their time left */
    dl[0] = '\0';
    if (v->config.leaders > 1)
        doff += (size_t)snprintf(dl + doff, sizeof(dl) - doff, ", leaders %u",
                                 (unsigned)v->config.leaders);
    if (v->config.settle_set)
        doff += (size_t)snprintf(dl + doff, sizeof(dl) - doff, ", settle %u ms",
                                 (unsigned)v->config.settle_ms);
    if (v->config.expect && doff < sizeof(dl))
        doff += (size_t)snprintf(dl + doff, sizeof(dl) - doff, ", expect %u",
                                 (unsigned)v->config.expect);
    if (v->config.failback_set && doff < sizeof(dl))
        doff += (size_t)snprintf(dl + doff, sizeof(dl) - doff, ", failback delay %u ms",
                                 (unsigned)v->config.failback_delay_ms);
    if (v->config.min_move_set && doff < sizeof(dl))
        doff += (size_t)snprintf(dl + doff, sizeof(dl) - doff, ", min move interval %u ms",
                                 (unsigned)v->config.min_move_interval_ms);
    for (i = 0; i < v->config.ndrains && doff < sizeof(dl); i++) {
        const struct zke_drain *d = &v->config.drains[i];
        cli_fmt_duration(d->until_ms - now, left, sizeof(left));
        doff += (size_t)snprintf(dl + doff, sizeof(dl) - doff, "%s %s (%s%s)",
                                 i ? "," : ", drained", d->id,
                                 d->until_ms > now ? left : "expired",
                                 d->until_ms > now ? " left" : "");
    }
    if (o) {
        if ((arr = cJSON_AddArrayToObject(o, "drains")) != NULL)
            for (i = 0; i < v->config.ndrains; i++) {
                const struct zke_drain *d = &v->config.drains[i];
                if ((x = cJSON_CreateObject()) == NULL)
                    break;
                cJSON_AddStringToObject(x, "id", d->id);
                cJSON_AddNumberToObject(x, "until_ms", (double)d->until_ms);
                cJSON_AddNumberToObject(x, "remaining_ms",
                                        (double)(d->until_ms > now ? d->until_ms - now : 0));
                cJSON_AddStringToObject(x, "reason", d->reason);
                cJSON_AddStringToObject(x, "by", d->by);
                cJSON_AddItemToArray(arr, x);
            }
    }
    watch_emit(c, "config", o, "config version %d: policy %s, paused %s, sites%s%s",
               (int)v->config_version, *v->config.policy ? v->config.policy : "(node default)",
               v->config.paused ? "yes" : "no", off ? buf : " none", dl);
}

static void
emit_problems(struct cli *c, const struct cli_view *v, const struct cli_view *prev)
{
    cJSON *o;
    int i, j;

    for (i = 0; i < v->nerrs; i++) {
        for (j = 0; prev && j < prev->nerrs; j++)
            if (strcmp(prev->errs[j], v->errs[i]) == 0)
                break;
        if (prev && j < prev->nerrs)
            continue;   /* already reported */
        if ((o = cJSON_CreateObject()) != NULL)
            cJSON_AddStringToObject(o, "error", v->errs[i]);
        watch_emit(c, "malformed", o, "malformed data: %s", v->errs[i]);
    }
}

static bool
same_leader(const struct cli_view *a, const struct cli_view *b)
{
    if (a->have_leader != b->have_leader || a->leader_version != b->leader_version)
        return false;
    return !a->have_leader || (strcmp(a->leader.id, b->leader.id) == 0 &&
                               a->leader.status == b->leader.status &&
                               a->leader.epoch == b->leader.epoch);
}

/* Slot k (>= 1) differs between the two views. */
static bool
same_slot(const struct cli_view *a, const struct cli_view *b, int k)
{
    const struct cli_slot *x = &a->slot[k], *y = &b->slot[k];

    if ((k < a->leaders) != (k < b->leaders))
        return false;
    if (k >= a->leaders)
        return true;
    if (x->have != y->have || x->version != y->version)
        return false;
    return !x->have || (strcmp(x->leader.id, y->leader.id) == 0 &&
                        x->leader.status == y->leader.status &&
                        x->leader.epoch == y->leader.epoch);
}

static void
watch_diff(struct cli *c, const struct cli_view *prev, const struct cli_view *v)
{
    const struct cli_member *m, *p;
    int i;

    if (prev == NULL) {
        emit_leader(c, v);
        for (i = 1; i < v->leaders; i++)
            emit_slot(c, v, i);
        emit_elected(c, v, NULL);
        emit_elector(c, v);
        emit_config(c, v);
        for (i = 0; i < v->nmembers; i++)
            emit_member(c, v, &v->members[i], "member", "present");
        emit_problems(c, v, NULL);
        return;
    }
    for (i = 0; i < prev->nmembers; i++)
        if (view_member(v, prev->members[i].id) == NULL)
            emit_member_left(c, &prev->members[i]);
    for (i = 0; i < v->nmembers; i++) {
        m = &v->members[i];
        p = view_member(prev, m->id);
        if (p == NULL)
            emit_member(c, v, m, "member-joined", "joined");
        else if (p->rec_version != m->rec_version || p->seq != m->seq ||
                 p->have_rec != m->have_rec ||
                 (view_excluded(prev, m->id) == NULL) != (view_excluded(v, m->id) == NULL))
            emit_member(c, v, m, "member-changed", "changed");
    }
    if (strcmp(prev->elector, v->elector) != 0)
        emit_elector(c, v);
    if (prev->elected_version != v->elected_version)
        emit_elected(c, v, prev);
    if (!same_leader(prev, v))
        emit_leader(c, v);
    for (i = 1; i < ZKE_LEADERS_MAX; i++)
        if (!same_slot(prev, v, i) && (i < v->leaders || prev->slot[i].have))
            emit_slot(c, v, i);
    if (prev->config_version != v->config_version || prev->have_config != v->have_config)
        emit_config(c, v);
    emit_problems(c, v, prev);
}

int
cmd_watch(struct cli *c, int argc, char **argv)
{
    struct cli_args a;
    struct cli_view views[2], *prev = NULL, *cur;
    char fp[CLI_PATH_MAX];
    sigset_t set;
    bool was_connected = true, failing = false;
    int rc, w, k = 0;

    if ((rc = cli_parse_simple(c, argc, argv, 0, 0, &a)) >= 0)
        return rc;
    /* before the session's threads exist, so that they inherit the mask */
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    if (sigprocmask(SIG_BLOCK, &set, NULL) != 0 ||
        (c->sigfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK)) < 0) {
        cli_err("signalfd: %s", strerror(errno));
        return CLI_EFAIL;
    }
    if ((rc = cli_connect(c)) != CLI_OK || (rc = cli_check_group(c)) != CLI_OK)
        return rc;
    memset(views, 0, sizeof(views));
    for (;;) {
        if (atomic_load(&c->expired)) {
            watch_emit(c, "connection", NULL, "session expired: opening a new session");
            fflush(stdout);
            rc = cli_reconnect(c, 0);
            if (rc < 0)
                break;          /* interrupted */
            if (rc != CLI_OK) {
                if (prev)
                    view_free(prev);
                return rc;
            }
            watch_emit(c, "connection", NULL, "connected (new session)");
            was_connected = true;
        }
        if (cli_connected(c) != was_connected) {
            was_connected = !was_connected;
            watch_emit(c, "connection", NULL, was_connected ? "reconnected to ZooKeeper" :
                       "disconnected from ZooKeeper (reconnecting)");
        }
        if (cli_connected(c)) {
            cur = &views[k];
            rc = view_load(c, cur, VIEW_MEMBERS | VIEW_ELECTED | VIEW_LEADER | VIEW_CONFIG, true,
                           fp, sizeof(fp));
            if (rc == ZOK) {
                watch_diff(c, prev, cur);
                if (prev)
                    view_free(prev);
                prev = cur;
                k ^= 1;
                failing = false;
            } else {
                view_free(cur);
                if (!cli_transient(rc) && prev == NULL) {
                    cli_zk_fail(c, "read", fp, rc);
                    return CLI_EFAIL;
                }
                if (!cli_transient(rc)) {
                    /* e.g. not authorized: say it once, keep watching */
                    if (!failing)
                        cli_zk_fail(c, "read", fp, rc);
                    failing = true;
                }
            }
        }
        fflush(stdout);
        w = cli_wait_event(c, 0);
        if (w < 0)
            break;
    }
    fflush(stdout);
    if (prev)
        view_free(prev);
    return CLI_OK;
}
