/*
 * fence.c - the self-fence (runs on the library thread, h->mu held).
 *
 * Owns: the handle's "heard" time, the leader's probes that keep it fresh,
 * and the deadline at which a leader that has heard nothing steps down.
 *
 * The ZooKeeper leader expires a session T after it last heard of the
 * client. The library cannot see the client's pings, only replies: heard_ms
 * is the send time of the newest write or sync that got a reply on this
 * session (loop.c, reply_push, req_via_quorum). Only the ZooKeeper leader
 * answers those, through the server we are connected to, and it had the
 * session then: the session cannot expire before heard_ms + T on the
 * leader's clock. A read does not count: the server answers it alone, and a
 * follower cut off from the quorum goes on answering reads and pings
 * (ZooKeeper's syncLimit: tickTime x syncLimit, 10 s with the defaults)
 * while the quorum expires the session and another node takes over. A group whose
 * application may be acting (g->active) steps down once now >= heard_ms + F;
 * its step-down then takes at most D (the application's promise), and
 * F + D <= T/2 leaves the other half of T for the clocks: this is safe as
 * long as this machine's monotonic clock runs at least half as fast as the
 * ZooKeeper leader's. A new leader can only start after the expiry (or
 * after the elector's +leader-fenced, which also waits T: elector.c).
 *
 * The client pings only every T/3 when idle, and those pings are invisible
 * here (a cut-off follower answers them too): while a group is active (or
 * fenced, waiting to be heard again) the handle sends its own probe, a sync
 * of "/", whenever heard_ms is older than F/5, one at a time. A probe stuck
 * behind a silent server, or on a follower cut off from the quorum, leaves
 * heard_ms alone, and the fence fires.
 */
#include "config.h"

#include <stdio.h>

#include "group.h"
#include "zkerr.h"

#define FENCE_MIN_MS 50 /* below this the fence would fire on a healthy session */

/* F and D from the options, against the session timeout T (zkelect_open). */
int
fence_configure(struct zkelect *h, int stepdown_ms, int fence_ms, char *why, size_t len)
{
    int t = h->session_timeout_ms;

    h->stepdown_ms = stepdown_ms > 0 ? stepdown_ms : t / 10;
    h->fence_ms_opt = fence_ms;
    if (stepdown_ms < 0) {
        snprintf(why, len, "stepdown_ms %d is negative", stepdown_ms);
        return ZKELECT_EINVAL;
    }
    if (fence_ms < 0) {
        h->fence_ms = 0;
        return 0;
    }
    h->fence_ms = fence_ms > 0 ? fence_ms : t / 2 - h->stepdown_ms;
    if (h->fence_ms < FENCE_MIN_MS || h->fence_ms + h->stepdown_ms > t / 2) {
        snprintf(why, len, "fence_ms %d + stepdown_ms %d must be at most half the session "
                 "timeout (%d ms), with fence_ms at least %d", h->fence_ms, h->stepdown_ms, t,
                 FENCE_MIN_MS);
        return ZKELECT_EINVAL;
    }
    h->probe_ms = h->fence_ms / 5;
    return 0;
}

/* The server granted timeout T (on every connect): F again if T is shorter
   than asked for. */
void
fence_negotiated(struct zkelect *h, int t)
{
    int f;

    if (h->fence_ms_opt < 0 || t <= 0)
        return;
    f = h->fence_ms_opt > 0 ? h->fence_ms_opt : t / 2 - h->stepdown_ms;
    if (f + h->stepdown_ms > t / 2)
        f = t / 2 - h->stepdown_ms;
    if (f < FENCE_MIN_MS)
        f = FENCE_MIN_MS;
    if (f != h->fence_ms)
        zke_log(h, f + h->stepdown_ms > t / 2 ? ZKELECT_LOG_WARNING : ZKELECT_LOG_INFO,
                "session timeout %d ms granted: a leader now fences after %d ms unheard "
                "(step-down budget %d ms%s)", t, f, h->stepdown_ms,
                f + h->stepdown_ms > t / 2 ? "; NOT within half the timeout: the step-down "
                "may outlast the session" : "");
    h->fence_ms = f;
    h->probe_ms = f / 5;
}

/* Keep h->n_watch, the groups that are active or FENCED (the probes run
   while there are any), in step with g: after every change of g->active,
   g->role or g->closed. */
void
fence_update(struct zkelect_group *g)
{
    struct zkelect *h = g->h;
    bool now = (g->active || g->role == ROLE_FENCED) && !g->closed;

    if (now == g->watched)
        return;
    g->watched = now;
    h->n_watch += now ? 1 : -1;
    if (now && h->fence_ms > 0 && h->fence_scan_at == 0)
        h->fence_scan_at = zke_now_ms();
}

static void
send_probe(struct zkelect *h)
{
    struct req *r;

    if (h->probe_out || h->sess != SESS_CONNECTED || h->zh == NULL)
        return;
    if ((r = req_new(h, NULL, REQ_PROBE)) == NULL)
        return;
    h->probe_out = true;
    req_sent(r, zoo_async(h->zh, "/", string_completion, r));
}

/* A probe's reply (process, loop.c): heard_ms was advanced when it came. */
void
fence_probe_reply(struct zkelect *h)
{
    h->probe_out = false;
}

static uint64_t
heard(struct zkelect *h)
{
    uint64_t t;

    pthread_mutex_lock(&h->qmu);
    t = h->heard_ms;
    pthread_mutex_unlock(&h->qmu);
    return t;
}

/* May a takeover start NOW (start_takeover, candidate.c)? Only while heard is
   less than F old: the fence then stops it by heard + F + D, before the
   session can expire. A reply that makes a node the leader may be handled
   late (a slow server, a library thread behind): the session may have
   expired on the server meanwhile and another node taken over. *UNHEARD gets
   how long nothing was heard. */
bool
fence_lease_ok(struct zkelect *h, uint64_t now, uint64_t *unheard)
{
    uint64_t last;

    *unheard = 0;
    if (h->fence_ms <= 0)
        return true;
    last = heard(h);
    *unheard = now > last ? now - last : 0;
    return now < last + (uint64_t)h->fence_ms;
}

/* Every turn of the library thread, also while it is behind: fencing early is
   always safe, late never. Returns the next time it wants to run (0: none). */
uint64_t
fence_tick(struct zkelect *h, uint64_t now)
{
    struct zkelect_group *g, *next;
    uint64_t last, due;

    if (h->fence_ms <= 0 || h->n_watch <= 0) {
        h->fence_scan_at = 0;
        return 0;
    }
    if (h->fence_scan_at && now < h->fence_scan_at)
        return h->fence_scan_at;
    last = heard(h);
    if (now >= last + (uint64_t)h->probe_ms)
        send_probe(h);
    if (now >= last + (uint64_t)h->fence_ms) {
        for (g = h->groups; g; g = next) {
            next = g->next;
            if (g->active && !g->closed)
                cand_fence(g, now - last);
        }
    }
    /* next: the probe (if none is out) or the fence deadline, at most a
       probe period away */
    due = last + (uint64_t)h->fence_ms;
    if (!h->probe_out && last + (uint64_t)h->probe_ms < due)
        due = last + (uint64_t)h->probe_ms;
    if (due <= now)
        due = now + (uint64_t)(h->probe_ms > 10 ? h->probe_ms : 10);
    h->fence_scan_at = due;
    return due;
}
