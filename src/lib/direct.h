/*
 * direct.h - internal: decisions that someone other than the elector writes
 * from the elector's standing succession (doc/PROTOCOL.md §4): the handover
 * decision of slot 0, which a resigning leader writes (register.c) and an
 * operator's direct switchover writes too (`zkelect switchover`, zkbench).
 * The CLI and the bench link it through src/lib/libzkelect_core.la.
 */
#ifndef ZKELECT_DIRECT_H
#define ZKELECT_DIRECT_H

#include <stdint.h>
#include <zookeeper/zookeeper.h>

#include "codec.h"

/*
 * E, a decision as read, with slot 0 given to X's successor (its id, site,
 * registration and host) at EPOCH: previous FROM_ID (whose host is
 * FROM_HOST, "" unknown), the elector and policy the succession was made by,
 * now as at_ms, no hold. The caller writes the reason.
 */
void zke_hand_slot0(struct zke_elected *e, const struct zke_succ *x, uint64_t epoch,
                    const char *from_id, const char *from_host, const char *elector,
                    const char *policy);

/*
 * Why request SO over decision E (NULL: none yet) in a group of LEADERS
 * leaders is not of the kind a direct switchover may write, or NULL when it
 * is: for slot 0 (no --from, or --from E's leader) of one leader, for now,
 * with no site and no cancel. The first of the refusal's conditions
 * (zke_direct_switchover_refusal); static text.
 */
const char *zke_direct_switchover_kind(const struct zke_elected *e,
                                       const struct zke_switchover *so, int leaders);

/*
 * Why the succession S does not cover the switchover request SO over E, the
 * decision read at version EV, in a group of LEADERS leaders (the config's
 * N), or NULL when it does: a request for slot 0 (no --from, or --from the
 * leader), with no site, no time and no cancel, to nobody in particular or
 * to S's successor of slot 0; S made for this very version of `elected`,
 * for the registration it names, with "switchover" set (the policy sends a
 * switchover to that successor), and an epoch reserved above E's (exactly
 * one above under a decision that says fast_handover). Static text.
 */
const char *zke_direct_switchover_refusal(const struct zke_elected *e, int32_t ev,
                                          const struct zke_successor *s,
                                          const struct zke_switchover *so, int leaders);

/*
 * The operator's direct switchover (doc/PROTOCOL.md §4): one multi on the
 * group at BASE that checks `successor` at SV, the history and the config
 * at the versions S was made for, the successor's member record at the
 * version S recorded, sets `elected` (version EV) to E with slot 0 given to
 * the successor at S's reserved epoch and request SO acknowledged, writes
 * SO (`switchover` at SO_VERSION, or created when SO_VERSION < 0), and wakes
 * the successor (one write of its election znode, as a handover's wake).
 * ACL: for the znodes it may create (NULL: open). The caller has checked
 * zke_direct_switchover_refusal(). Returns ZOK (written), ZMARSHALLINGERROR
 * when a payload cannot be encoded, or the multi's ZooKeeper error: nothing
 * was written when it is a refusal (ZBADVERSION, ZNONODE, ZNODEEXISTS,
 * ZNOAUTH...), and the outcome is unknown after a connection loss
 * (zke_direct_outcome() tells which).
 */
int zke_direct_switchover(zhandle_t *zh, const char *base, const struct zke_elected *e,
                          int32_t ev, const struct zke_successor *s, int32_t sv,
                          const struct zke_switchover *so, int32_t so_version,
                          const struct ACL_vector *acl);

/* What a direct write's ZooKeeper result says about its outcome. */
enum zke_direct_outcome {
    ZKE_DIRECT_WRITTEN,     /* ZOK */
    ZKE_DIRECT_NOT_WRITTEN, /* refused by the server, or never sent */
    ZKE_DIRECT_UNKNOWN,     /* perhaps in flight when the connection was
                               lost, timed out, moved or broke (an
                               out-of-order reply): read it back */
    ZKE_DIRECT_UNKNOWN_ENDED /* perhaps in flight when the session ended
                               (expired, closing, auth failed; taken as
                               unknown to be safe): nothing to read on */
};

enum zke_direct_outcome zke_direct_outcome(int rc);

#endif /* ZKELECT_DIRECT_H */
