/*
 * event.c - the one choke point for everything that happens: every
 * transition is logged (through the caller's log callback) and handed to the
 * group's and the handle's subscribers, with a stable vocabulary.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* Stable names, indexed by enum zkelect_event_type. Never rename. */
static const char *const event_names[ZKELECT_EV__COUNT] = {
    [ZKELECT_EV_CONNECTED] = "+connected",
    [ZKELECT_EV_DISCONNECTED] = "-disconnected",
    [ZKELECT_EV_EXPIRED] = "-session-expired",
    [ZKELECT_EV_AUTH_FAILED] = "-auth-failed",
    [ZKELECT_EV_REGISTERED] = "+registered",
    [ZKELECT_EV_UNREGISTERED] = "-registered",
    [ZKELECT_EV_ELECTOR] = "+elector",
    [ZKELECT_EV_ELECTOR_LOST] = "-elector",
    [ZKELECT_EV_DECISION] = "+decision",
    [ZKELECT_EV_NO_ELIGIBLE] = "-no-eligible",
    [ZKELECT_EV_WATCHDOG] = "+watchdog",
    [ZKELECT_EV_LEADER_FENCED] = "+leader-fenced",
    [ZKELECT_EV_TAKEOVER] = "+takeover",
    [ZKELECT_EV_READY] = "+ready",
    [ZKELECT_EV_TAKEOVER_ABORT] = "-takeover-abort",
    [ZKELECT_EV_TAKEOVER_FAILED] = "-takeover-failed",
    [ZKELECT_EV_STEPDOWN] = "-stepdown",
    [ZKELECT_EV_SUSPENDED] = "-suspended",
    [ZKELECT_EV_RESUMED] = "+resumed",
    [ZKELECT_EV_LOST] = "-leadership-lost",
    [ZKELECT_EV_LEADER_CHANGED] = "+leader-changed",
    [ZKELECT_EV_MALFORMED] = "-malformed",
    [ZKELECT_EV_ERROR] = "-error",
    [ZKELECT_EV_STALLED] = "-request-stalled",
    [ZKELECT_EV_STUCK] = "-stuck",
    [ZKELECT_EV_FENCED] = "-fenced",
    [ZKELECT_EV_HOLD] = "+hold",
};

ZKELECT_API const char *
zkelect_event_name(enum zkelect_event_type type)
{
    if ((int)type <= 0 || type >= ZKELECT_EV__COUNT || event_names[type] == NULL)
        return "?";
    return event_names[type];
}

/* The plugin ABI (include/zkelect/policy.h) keeps its own copy of the leader
   status, so that a policy module needs no other header: the same values. */
_Static_assert((int)ZKELECT_LEADER_NONE == (int)ZKELECT_STATUS_NONE &&
               (int)ZKELECT_LEADER_PROGRESS == (int)ZKELECT_STATUS_PROGRESS &&
               (int)ZKELECT_LEADER_READY == (int)ZKELECT_STATUS_READY,
               "enum zkelect_leader_status must equal enum zkelect_status");

ZKELECT_API const char *
zkelect_status_name(int status)
{
    return zke_status_text(status);
}

/* Level of each event in the log. */
static int
event_level(enum zkelect_event_type type)
{
    switch (type) {
    case ZKELECT_EV_MALFORMED:
    case ZKELECT_EV_ERROR:
    case ZKELECT_EV_AUTH_FAILED:
    case ZKELECT_EV_TAKEOVER_FAILED:
    case ZKELECT_EV_STUCK:
        return ZKELECT_LOG_ERR;
    case ZKELECT_EV_DISCONNECTED:
    case ZKELECT_EV_EXPIRED:
    case ZKELECT_EV_SUSPENDED:
    case ZKELECT_EV_FENCED:
    case ZKELECT_EV_LOST:
    case ZKELECT_EV_NO_ELIGIBLE:
    case ZKELECT_EV_WATCHDOG:
    case ZKELECT_EV_LEADER_FENCED:
    case ZKELECT_EV_TAKEOVER_ABORT:
    case ZKELECT_EV_STALLED:
        return ZKELECT_LOG_WARNING;
    case ZKELECT_EV_LEADER_CHANGED:
        return ZKELECT_LOG_INFO;
    default:
        return ZKELECT_LOG_NOTICE;
    }
}

void
zke_log(struct zkelect *h, int level, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;

    if (h == NULL || h->log == NULL || level > h->log_level)
        return;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    h->log(h->log_data, level, msg);
}

/*
 * Call g's subscribers that want ev. A callback may unsubscribe itself or any
 * other subscription (zkelect_unsubscribe on this thread): that only marks
 * the subscription dead while sub_calls > 0, and the outermost call frees it
 * here once no loop can still be standing on it.
 */
static void
subs_call(struct zkelect_group *g, const struct zkelect_event *ev)
{
    struct sub *s, **pp;

    g->sub_calls++;
    for (s = g->subs; s; s = s->next)
        if (!s->dead && (s->mask & ZKELECT_MASK(ev->type)))
            s->fn(s->data, ev);
    if (--g->sub_calls > 0)
        return;
    for (pp = &g->subs; (s = *pp) != NULL;) {
        if (s->dead) {
            *pp = s->next;
            free(s);
        } else {
            pp = &s->next;
        }
    }
}

void
zke_event(struct zkelect *h, struct zkelect_group *g, enum zkelect_event_type type,
          const char *node, uint64_t epoch, int error, const char *fmt, ...)
{
    struct zkelect_event ev;
    char detail[768];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(detail, sizeof(detail), fmt, ap);
    va_end(ap);

    memset(&ev, 0, sizeof(ev));
    ev.type = type;
    ev.name = zkelect_event_name(type);
    ev.group = g ? g->path : NULL;
    ev.node = node && *node ? node : NULL;
    ev.epoch = epoch;
    ev.error = error;
    ev.detail = detail;
    ev.mono_ms = zke_now_ms();
    /* the candidate's events are about its slot; the elector's say theirs
       (ev_slot), else slot 0 */
    if (g && g->ev_slot >= 0)
        ev.slot = g->ev_slot;
    else if (g && type >= ZKELECT_EV_TAKEOVER && type <= ZKELECT_EV_LOST)
        ev.slot = g->cslot;
    else if (g && type == ZKELECT_EV_FENCED)
        ev.slot = g->cslot;
    if (g && type == ZKELECT_EV_LEADER_CHANGED)
        ev.status = (enum zkelect_status)LV(g, ev.slot)->pub_status;

    if (g && g->nlv > 1 && (g->ev_slot >= 0 || (type >= ZKELECT_EV_DECISION && type <= ZKELECT_EV_LEADER_CHANGED) ||
                            type == ZKELECT_EV_FENCED))
        zke_log(h, event_level(type), "%s %s%s%s slot=%d epoch=%llu: %s", g->path, ev.name,
                ev.node ? " node=" : "", ev.node ? ev.node : "", ev.slot,
                (unsigned long long)epoch, detail);
    else
        zke_log(h, event_level(type), "%s%s%s%s%s epoch=%llu: %s", g ? g->path : "session",
                g ? " " : " ", ev.name, ev.node ? " node=" : "", ev.node ? ev.node : "",
                (unsigned long long)epoch, detail);

    /* the caller holds h->mu (recursive): callbacks may call non-blocking API */
    if (g) {
        if (g->on_event && !(g->no_leader_events && type == ZKELECT_EV_LEADER_CHANGED))
            g->on_event(g->event_data, &ev);
        subs_call(g, &ev);
    } else {
        struct zkelect_group *x;
        /* session events reach every group's subscribers too */
        for (x = h->groups; x; x = x->next) {
            if (x->closed)
                continue;
            ev.group = x->path;
            if (x->on_event)
                x->on_event(x->event_data, &ev);
            subs_call(x, &ev);
        }
        ev.group = NULL;
    }
    if (h->on_event)
        h->on_event(h->event_data, &ev);
}
