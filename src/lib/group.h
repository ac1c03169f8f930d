/*
 * group.h - the group state machine's internal interface, shared by the four
 * files that implement it (all on the library thread, under h->mu):
 *
 *   group.c      the shared view (elected, leader), the role and registration
 *                transitions, session events, dispatch of replies and
 *                watches, the stuck-group check, lifetime
 *   register.c   candidate registration, its repair and removal, and the
 *                elector determination (lowest election znode, predecessor)
 *   elector.c    the elector: member cache, config, switchover, history,
 *                policy, decisions, watchdog, exclusions
 *   candidate.c  the elected node: two-phase takeover, READY, step-down,
 *                release of the leader znode
 *
 * Only the transition functions group_role_set() and group_reg_set() write
 * g->role and g->reg.
 */
#ifndef ZKELECT_GROUP_H
#define ZKELECT_GROUP_H

#include "internal.h"

/* ---- group.c: helpers ---------------------------------------------------- */

static inline bool
group_connected(const struct zkelect_group *g)
{
    return g->h->sess == SESS_CONNECTED && g->h->zh != NULL;
}

int64_t zke_wall_ms(void);               /* informational timestamps only */
struct ACL_vector *group_acl(struct zkelect_group *g);
void group_malformed_do(struct zkelect_group *g, const char *path, const char *data, int len,
                        const char *err, const char *outcome);
void group_malformed(struct zkelect_group *g, const char *path, const char *data, int len,
                     const char *err);
void group_send_get(struct zkelect_group *g, enum req_kind kind, const char *path,
                    const char *arg);
void group_send_mine(struct zkelect_group *g, enum req_kind kind, const char *arg);
void group_send_exists(struct zkelect_group *g, enum req_kind kind, const char *path,
                       const char *arg);

/* ---- group.c: the wake and the shared view ------------------------------- */

bool group_follows(struct zkelect_group *g);
bool group_follows_elected(struct zkelect_group *g);
void view_follow(struct zkelect_group *g, bool wake);
int group_wake_ops(struct zkelect_group *g, struct req *r, int n, const struct zke_elected *e,
                   const struct zke_elected *before, int writes);

void view_read_elected(struct zkelect_group *g);
void view_read_leader(struct zkelect_group *g);
void view_read_leader_slot(struct zkelect_group *g, int k);
void view_read_leaders(struct zkelect_group *g);
int group_slot_of_path(struct zkelect_group *g, const char *path);
bool view_elected_slot(const struct zkelect_group *g, int k, const char **id, const char **znode,
                       uint64_t *epoch);
bool view_leaders_read(const struct zkelect_group *g);
void view_slots_update(struct zkelect_group *g);
void view_publish_leader(struct zkelect_group *g);
/* Something in the view changed: publish, step the candidate, let the
   elector look. */
void view_changed(struct zkelect_group *g);

/* ---- group.c: transitions ------------------------------------------------- */

const char *group_role_name(enum role r);
const char *group_reg_name(enum reg_state r);
/*
 * Move the candidate to role TO (the only writer of g->role): checks that the
 * move is legal (an illegal one is logged as a bug and counted, then made),
 * stamps the time, logs a debug line and, when EV is not 0, publishes that
 * event for EPOCH with the formatted detail.
 */
void group_role_set(struct zkelect_group *g, enum role to, enum zkelect_event_type ev,
                    uint64_t epoch, int err, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
/* The same for the registration state (g->reg). */
void group_reg_set(struct zkelect_group *g, enum reg_state to, const char *why);

/* ---- register.c ------------------------------------------------------------ */

void reg_new_guid(char out[ZKE_GUID_LEN + 1]);
void reg_self_payload(struct zkelect_group *g, char **out, size_t *len);
void reg_nominate_finish(struct zkelect_group *g, int err);
void reg_register(struct zkelect_group *g);
void reg_unregister(struct zkelect_group *g);
void reg_unregistered(struct zkelect_group *g);
void reg_lost(struct zkelect_group *g, const char *why);
void reg_reregister(struct zkelect_group *g);
void reg_write_self(struct zkelect_group *g);
void reg_read_self(struct zkelect_group *g);
void reg_find_mine(struct zkelect_group *g);
void reg_list_election(struct zkelect_group *g, bool watch);
void reg_on_register_reply(struct zkelect_group *g, struct zev *ev);
void reg_on_stat_mine_reply(struct zkelect_group *g, struct zev *ev);
void reg_on_check_id_reply(struct zkelect_group *g, struct zev *ev);
void reg_on_find_mine_reply(struct zkelect_group *g, struct zev *ev);
void reg_on_create_election_reply(struct zkelect_group *g, struct zev *ev);
void reg_on_read_self_reply(struct zkelect_group *g, struct zev *ev);
void reg_on_watch_mine_reply(struct zkelect_group *g, struct zev *ev);
void reg_on_unregister_reply(struct zkelect_group *g, struct zev *ev);
void reg_on_list_reply(struct zkelect_group *g, struct zev *ev);
void reg_on_pred_reply(struct zkelect_group *g, struct zev *ev);
/* A watch on one of our own znodes or the predecessor fired: true when
   handled here. */
bool reg_on_watch(struct zkelect_group *g, int type, const char *path);

/* ---- elector.c ------------------------------------------------------------- */

void elector_start(struct zkelect_group *g, struct zev *listing);
void elector_import(struct zkelect_group *g);
void elector_stop(struct zkelect_group *g, const char *why);
void elector_reread(struct zkelect_group *g);
void elector_watchdog_restart(struct zkelect_group *g);
void elector_members(struct zkelect_group *g, struct zev *ev);
void elector_eval(struct zkelect_group *g);
void elector_view_changed(struct zkelect_group *g);
void elector_read_member(struct zkelect_group *g, const char *id);
void elector_self_read(struct zkelect_group *g);
bool elector_tracks(struct zkelect_group *g, const char *id);
void elector_member_deleted(struct zkelect_group *g, const char *id);
bool elector_stuck(struct zkelect_group *g, char *why, size_t len);
void elector_on_member_reply(struct zkelect_group *g, struct zev *ev);
void elector_on_config_reply(struct zkelect_group *g, struct zev *ev);
void elector_on_switchover_reply(struct zkelect_group *g, struct zev *ev);
void elector_on_history_reply(struct zkelect_group *g, struct zev *ev);
void elector_on_decide_reply(struct zkelect_group *g, struct zev *ev);
void elector_on_fence_reply(struct zkelect_group *g, struct zev *ev);
void elector_on_succession_reply(struct zkelect_group *g, struct zev *ev);
void view_watch_successor(struct zkelect_group *g);
void view_on_successor_reply(struct zkelect_group *g, struct zev *ev);
void view_first(struct zkelect_group *g);
void view_absent(struct zkelect_group *g);
void view_arm_deferred(struct zkelect_group *g, int skip);
bool view_absent_wait(struct zkelect_group *g);
void view_absent_settle(struct zkelect_group *g, bool created);
void view_take_successor(struct zkelect_group *g, const char *data, int len, int32_t version);
void elector_free(struct zkelect_group *g);

/* ---- candidate.c ----------------------------------------------------------- */

bool cand_leader_is_mine(struct zkelect_group *g);
bool cand_role_leading(enum role r);
bool cand_named_slot(struct zkelect_group *g, int k);
void cand_step(struct zkelect_group *g);
void cand_fast_create(struct zkelect_group *g);
bool cand_fast_possible(struct zkelect_group *g);
void group_hold(struct zkelect_group *g);
void cand_start_stepdown(struct zkelect_group *g, const char *why);
void cand_takeover_result(struct zkelect_group *g, uint64_t epoch, int err);
void cand_stepdown_result(struct zkelect_group *g, uint64_t epoch);
void cand_release_retry(struct zkelect_group *g);
bool cand_stuck(struct zkelect_group *g, char *why, size_t len);
void cand_set_active(struct zkelect_group *g, bool active);
void cand_fence(struct zkelect_group *g, uint64_t unheard_ms);
void cand_lost(struct zkelect_group *g, const char *why);
void cand_on_leader_retake_reply(struct zkelect_group *g, struct zev *ev);

/* ---- fence.c ------------------------------------------------------------- */

void fence_update(struct zkelect_group *g);
void cand_on_leader_create_reply(struct zkelect_group *g, struct zev *ev);
void cand_on_leader_ready_reply(struct zkelect_group *g, struct zev *ev);
void cand_on_leader_delete_reply(struct zkelect_group *g, struct zev *ev);

#endif
