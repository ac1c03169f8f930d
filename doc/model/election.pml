/*
 * election.pml - a Promela model of the zkelect election protocol *as
 * implemented* in src/lib/group.c, register.c, elector.c,
 * candidate.c and loop.c, for Spin.
 *
 * Three nodes, one ZooKeeper ensemble (modelled as one server that applies
 * each session's requests in order, atomically), bounded faults. Every
 * handler of the library thread is one atomic step of a node process and is
 * written to follow its C function line by line; doc/model/README.md maps
 * every step to the C function it stands for and lists the simplifications.
 *
 * Build-time knobs (spin -D...):
 *   MAXFAULTS   total fault budget (default 2)
 *   MAX_DISC, MAX_EXP, MAX_CRASH, MAX_LOSE, MAX_SWITCH, MAX_EARLY, MAX_TFAIL,
 *   MAX_FREEZE  per-kind budgets (disconnects, expiries of running clients,
 *               crashes, `elected` deleted by an operator, policy switches,
 *               watchdog firings before the system is quiet, takeovers that
 *               the application fails, SIGSTOPs longer than the session
 *               timeout)
 *   CRASH_NODE  only this node may crash
 *   EXP_LEADER_FIRST  an expired session's leader znode is deleted before
 *               its election znode (the server's order is its own; by
 *               default the election znode goes first)
 *   DISC_NODE   only this node's connection may drop
 *   LIVE        compile the liveness claim (and let the fault process stop)
 *   FENCE_ANYTIME  drop the timing assumption on fencing (see README):
 *               shows the documented limit of a lease-less design
 *   STABLE_START  0, 1 or 2: start from a stable leader (see init); 3: from
 *               a takeover in flight (node 1 PROGRESS at epoch 1); 4: a cold
 *               start (nodes 0 and 1 registered, nothing decided, node 2
 *               starting)
 *   ONLY_ELIG   only this node is eligible
 *   MUT_NO_REARM_GONE  bug 2 of the README put back: the watchdog is not re-armed
 *               when the elected node has no leader znode at its epoch
 *   MUT_*       deliberate bugs (mutants) that the check must catch:
 *               MUT_READY_NOCHECK, MUT_CREATE_NOCHECK, MUT_NO_SUSPEND,
 *               MUT_DELETE_FIRST, MUT_NEWREG (bug 1 of the README, the fix
 *               reverted), MUT_TFAIL_AT_ONCE (a vanished PROGRESS znode read
 *               as a failed takeover at once, without the fresh listing),
 *               MUT_NO_FENCE (no self-fence: the session of an ACTIVE node
 *               may expire), MUT_RELEASE_FIRST (a failed takeover releases
 *               the leader znode before its step-down), MUT_RESUME_FENCED (a
 *               fenced node resumes READY without taking over again),
 *               MUT_FENCE_EARLY (the elector deletes the old leader znode
 *               while the old leader is still ACTIVE), MUT_NO_LEASE (no
 *               lease check in start_takeover: a reply handled after the
 *               server expired the session makes the node ACTIVE),
 *               MUT_RELEASE_NO_CHECK (the release deletes by version only:
 *               bug 3 of the README back), MUT_FENCE_NO_BUMP (the elector's
 *               fence deletes without rewriting elected);
 *               MUT_NO_REARM (no watchdog re-arm in view_changed) and
 *               MUT_LEAVE_NO_CHECK (the ordinary leave's release without
 *               the check of elected) are not caught within the budgets
 *               tried
 * Issue 16 (DR operations; every one off by default, as the library's
 * defaults are: settle off, failback and anti-flap 0, no drain, no
 * scheduled switchover):
 *   SETTLE      the settle hold at a cold start; EXPECT=k ends it once k
 *               members are listed (else only its timer does)
 *   HOLDS       failback delay and anti-flap on voluntary automatic moves;
 *               MAX_PREF (default 0) times a better node appears (the
 *               policy, preempt on, wants to move to it)
 *   MAX_DRAIN   drains of a node (default 0); a drain ends at any moment
 *   MAX_SCHED   scheduled switchovers (default 0), due at any moment
 *   PAUSED      the group is paused: a due scheduled switchover is refused
 *   mutants:    MUT_SETTLE_FOREVER (the settle timer never ends it),
 *               MUT_SETTLE_ON_LOSS (cold also after a leader was seen: the
 *               settle hold after the leader was lost), MUT_HOLD_ON_LOSS
 *               (the anti-flap hold also on a forced move: leader lost,
 *               drained), MUT_HOLD_FOREVER (the failback and anti-flap
 *               timers never end a hold), MUT_DRAIN_KEEP (a drained
 *               present leader is kept), MUT_DRAIN_NO_HANDOVER (a drained
 *               leader's znode is deleted with the new decision instead of
 *               its stepping down first), MUT_SCHED_EARLY (a scheduled
 *               switchover is acted on before it is due), MUT_SCHED_PAUSED
 *               (a due scheduled switchover moves a paused group)
 *
 * Issue 17 (N active leaders, "slots"):
 *   SLOTS       1 (default): the single-slot model above, unchanged; 2: the
 *               two-slot model at the end of this file (its own knobs there:
 *               START_N, COLD_START, MAX_NCHG, MAX_CRASH, MAX_SWITCH,
 *               MAX_TFAIL, MAXFAULTS, LIVE; mutants MUT_CREATE_FIRST,
 *               MUT_TWO_SLOTS, MUT_NO_WAIT, MUT_LOWER_NO_RELEASE,
 *               MUT_EPOCH_PER_SLOT, MUT_NOT_STICKY, MUT_WD_SLOT0)
 *
 * Issue 18 (DESIGN-18.md; single-slot model only, every knob off by default):
 *   PIPE        A, the direct READY create (the name is the knob's first
 *               meaning, the pipelined create + READY, kept so the checks'
 *               flags stay as they were): a takeover with no work (no
 *               takeover callback, or ZKELECT_GROUP_TAKEOVER_NOOP) sends ONE
 *               multi {check elected (the version that names it), create
 *               the leader znode READY at the epoch} (`leader_create_direct`,
 *               Q_CREATE with its status byte set); no setData follows and
 *               no freshness condition is needed (the create fails,
 *               NODEEXISTS or BADVERSION, as the PROGRESS create does). Its
 *               reply OK: READY at once (ACTIVE, +ready); failed: as the
 *               PROGRESS create's failures. A takeover WITH work is the
 *               two-phase one (create PROGRESS, the work, READY multi).
 *   WORK_NODE   with PIPE: this node's takeovers have work (a takeover
 *               callback, the A_APP step); the others' none. Without PIPE
 *               every takeover has work.
 *   MAX_RESIGN  B (default 0): times the READY leader resigns (unnominate):
 *               it steps down (its elector runs until it has left, and it
 *               walks on at its predecessor's deletion until its leave is
 *               sent: 9d6ed04), then sends the handover
 *               multi {check successor version, set elected (its version) to
 *               the successor at next_epoch, delete leader znode, delete its
 *               registration} when its view of `successor` has an entry for
 *               its registration valid for the elected version it holds,
 *               else (or when the handover fails) the ordinary leave multi
 *               {delete leader znode, delete registration}; it stays gone.
 *               The elector writes `successor` (S_*: elected version,
 *               next_epoch, leader's seq, successor) in every decision's
 *               multi, alone (check elected) when it changes, and with the
 *               history entry of a decision it did not write (Q_APPEND).
 *               Leaders read and watch it (Q_GET_SU, EV_W_SU); not one that
 *               is the elector (SELF_SUCC, below).
 *   HO_DELETE_FIRST  with MAX_RESIGN: the handover's ops ordered delete
 *               leader, then set elected (a proposal, README "Issue 18")
 *   mutants:    MUT_PIPE_NOCHECK (the direct READY create does not check
 *               elected), MUT_PIPE_WORK (a takeover WITH work creates the
 *               leader znode READY: READY visible before the work is
 *               done; with WORK_NODE), MUT_SUCC_NOCHECK (the handover does
 *               not check successor's version), MUT_SUCC_STALE (nor elected's:
 *               a record for any elected version is used; caught with
 *               DIRECT_SO, by S16: the handover lands over the operator's
 *               decision; against the fence not settled, README)
 *   properties: S18 (PIPE) a READY leader znode's owner has finished a
 *               takeover with work at its epoch, or has no work (READY is
 *               visible only once the work is done); S16 a handover's epoch is above every epoch decided; S17 a
 *               handover writes what the current `successor` says, made for
 *               the decision it replaces and for this leader's registration
 *
 * The wake, issue 18 (PROTOCOL.md §2, quiet members and the wake; single-slot model):
 *   WAKE        on unless NO_WAKE is defined (NO_WAKE: the model of before,
 *               every member re-reads on every notification). A node that
 *               does not follow (not the elector, role MEMBER or NONE, its
 *               view's decision not naming its registration, the leader
 *               znode not its own) drops notifications on `elected` and the
 *               leader znode (that part of its view unread). Every node
 *               watches its own election znode (W_mn: armed by STAT_MINE,
 *               re-armed on the wake and at each reconnect); a decision
 *               naming another node at a new epoch, and the handover,
 *               touch the named registration's znode in the same multi
 *               (the multi fails, NONODE, when it is gone): the wake
 *               (EV_W_MINE) re-arms, then reads `elected`, and the leader
 *               znode (an exists) only if it let a notification of it go
 *               since it last sent a read of it (l_uw: register.c
 *               reg_on_watch -> group.c view_follow, lview.unwatched).
 *               After the registration's STAT_MINE a node that does
 *               not follow reads `elected` (and the leader znode if unread).
 *   WAKE_EXISTS_ALWAYS  the wake of before: the exists of the leader znode
 *               at every wake (the design's wording; not the C)
 *   mutants:    MUT_NOWAKE (no touch), MUT_WAKE_LATE (the wake reads
 *               `elected` before it re-arms), MUT_STAT_NOREAD (no read
 *               after the registration's STAT_MINE), MUT_ELECTOR_NOREAD (a
 *               new elector does not read what it left unread);
 *               MUT_RESYNC_NOREARM (no re-arm at a reconnect) is not caught
 *               within the budgets tried (README)
 *   property:   L8 a named node learns it: when everything delivered has
 *               been processed (QUIET), a connected, registered node that
 *               `elected` names (its registration) has a view naming it
 *   OLD_NODE=n  the wake gate (a rolling upgrade; GATE): node n is of a
 *               release before the wake: its decisions and handover touch
 *               nothing and say no wake, it always follows. `elected` says
 *               wake (E_wk) when a new elector's member view has no old
 *               node (a new handover copies it); a new node follows before
 *               any decision and while its last read decision does not say
 *               wake. mutants: MUT_NOGATE (new nodes quiet whatever the
 *               decision says), MUT_WAKE_ALWAYS (a new elector says wake
 *               with an old member)
 *
 * The fast handover, issue 18 (SPEC-fast-handover.md; on with the wake and
 * MAX_RESIGN > 0 unless NO_FAST):
 *   FAST        the woken node's election znode has a version (MV: 0 at its
 *               create; an elector's wake +2, two set ops; a handover's +1)
 *               and the node knows it as last read (mw: its registration,
 *               each STAT_MINE reply). A member, not the elector, whose read
 *               decision V names another node at e_V, sends at its wake,
 *               after the wake's reads, ONE multi (Q_SPEC) [check own znode
 *               at w+1, check elected at V+1, create leader at e_V+1 (READY
 *               for a takeover with no work)]: OK, it leads (the create's
 *               reply); refused, a member again (the reads give the view);
 *               CONNLOSS, suspended. Rule 2: a leaver hands over only at
 *               next_epoch e_V+1 under a decision saying fast_handover.
 *               With OLD_NODE the flag is the wake flag; the old node never
 *               speculates (nor wakes anybody, as above).
 *               NO_FAST: the model of before (same state counts).
 *   mutants:    MUT_SPEC_NOSELF (no check of the own version), MUT_WAKE_ONE
 *               (elector wakes +1), MUT_SPEC_NOELECTED (no check of elected)
 *   property:   S19 a speculative create is applied only over the handover
 *               it predicted (elected at V+1 written by a handover naming
 *               this registration at e_V+1; with DIRECT_SO the operator's
 *               direct switchover counts as one: the same decision, wake)
 *   REACH_FAST  reachability: the assertion R_fast_reached fails when a
 *               speculative create is applied (pan must find it)
 *
 * The standing successor, issue 18 (PROTOCOL.md §4; on with FAST unless
 * NO_STANDING, not with OLD_NODE):
 *   STANDING    the succession's write (Q_SUCC, Q_APPEND; qd + 128) names
 *               its successor when it is another node than the elector and
 *               than the one it named last (su_n): that registration's
 *               election znode gets data "id successor" (MD) in two set ops
 *               (MV + 2; NONODE fails the multi when it is gone) and its
 *               watch fires (the wake); a decision's or handover's wake
 *               writes the id back. The wake's re-arm (Q_STAT_MINE, a get)
 *               returns the data: named (snm), the node follows (NAMED in
 *               FOLLOWS). Not modelled: the C's naming back of the node
 *               named before (it follows until its next wake here).
 *   mutant:     MUT_NAME_ONE (the naming is one set op: a speculation at
 *               that wake takes it for a handover's), caught by S4
 *
 * The operator's direct switchover, issue 18 (PROTOCOL.md §4; single-slot
 * model, with the wake; off unless DIRECT_SO):
 *   DIRECT_SO   `zkelect switchover` writes the decision itself from the
 *               elector's standing succession (direct.c). The succession is
 *               part of the model with it (RESIGN on, also with MAX_RESIGN
 *               0). The operator (proctype faults, up to MAX_DSO times,
 *               default 1, not counted in MAXFAULTS) reads `elected` and
 *               `successor` (one step: the multi checks both versions, so
 *               a read of the two apart adds nothing the checks accept)
 *               and, when the succession covers the decision read (made
 *               for its version and its registration, a successor, an
 *               epoch above it, e+1 under fast_handover), later sends ONE
 *               multi (a second step, applied as the server has it then):
 *               [check successor (version read), check history (the
 *               succession's, S_hv), the config's absence (the model has
 *               no config: always), check the successor's member record
 *               (nodes/<id>: any registration of it, its version restarts
 *               at 0), set elected (version read) to the successor at the
 *               reserved epoch, the request acknowledged, write the
 *               request (notifies the elector), wake the successor (one
 *               set op of its recorded election znode, +1, NONODE when that
 *               registration is gone)]; no leader znode deleted, no
 *               registration removed. Refused: a no-op (the ordinary
 *               request is the switchover fault, MAX_SWITCH).
 *   REACH_DSO   reachability: R_dso_reached fails where a leader znode's
 *               create is applied under a decision a direct switchover
 *               wrote (E_ho, MAX_RESIGN 0); REACH_DSO=2: a speculative one
 *   mutants:    MUT_DSO_STALE (the multi without the check of elected:
 *               a succession for an older `elected` is used; caught by S20
 *               only, README), MUT_DSO_EPOCH (the successor gets the old
 *               leader's epoch, not the reserved one), MUT_DSO_DELETE (the
 *               multi deletes the leader znode too, as a handover does)
 *   property:   S20 a direct switchover is applied only over the decision
 *               its succession was made for (S_ev == E_ver, S_lrg == E_rg
 *               where the multi is applied): the design's intent, as S17
 *               for the handover; no other property needs it (README)
 *
 * The predecessor's deletion, issue 18 (PROTOCOL.md §1; on in every check):
 *               a listing remembers the next znode below the predecessor
 *               (lw); at the predecessor's deletion (EV_W_PRED), or when
 *               the watch's request finds it gone, that one becomes the
 *               predecessor, checked and watched by one Q_EX_PRED, without
 *               a listing (nps, after the dispatch); none left: the lowest
 *               (la: the listing showed no more) starts as the elector at
 *               once, else a listing. The
 *               watch (a child watch in the C) is armed only on a znode
 *               that is there.
 *   mutant:     MUT_LOWER_UNCHECKED (the remembered znode is taken without
 *               a request), caught by L1
 *   L11         (9d6ed04) when all delivered is processed (a step-down may
 *               run), the node whose election znode is the lowest on the
 *               server is the elector (unless its leave is sent)
 *   mutants:    MUT_LEAVING_NOWALK (a leaver still registered lets its
 *               predecessor's deletion go: the C before 9d6ed04) and
 *               MUT_RESIGN_STOPS (a resigning elector stops at once: the
 *               model before it), caught by L11; both need MAX_RESIGN
 *
 * After the C (commits 574a8bb, ddc3ab4 and 4dce8aa), on by default (single-slot model):
 *   SELF_SUCC   on unless NO_SELF_SUCC: a leader that is also the elector
 *               reads and watches no `successor` (no Q_GET_SU at READY);
 *               each of its own successful writes of it (Q_DECIDE, Q_SUCC,
 *               Q_APPEND; the reply carries the version it produced) is its
 *               copy (elector.c elector_on_succession_reply ->
 *               view_take_successor). NO_SELF_SUCC: every leader reads and
 *               watches it, as before.
 *   ABSENT      on unless NO_ABSENT: a new group's registration reads no
 *               first view. The node whose registration created the group
 *               (seq 1, nothing ever written; STABLE_START=4 starts there
 *               for node 0) takes `elected` and the leader znode as absent,
 *               unread and unwatched (e_df, l_df), and arms them later:
 *               `elected` by a read after its first decision's reply, the
 *               leader znode by an exists at a decision's reply that names
 *               another node, by a read after its own create's reply;
 *               everything left when it stops being the elector, leaves, or
 *               its watchdog fires; a reconnect reads everything. Without
 *               STABLE_START every node defers its first view to its
 *               registration's reply (a burst of new groups on each handle).
 *               NO_ABSENT: the first view is read at the connect, as before.
 *   CZX_ASSUME  on with ABSENT unless NO_CZX_ASSUME (4dce8aa): that node
 *               (seq 1 with its view absent) sends no STAT_MINE at its
 *               registration: czx assumed (cza, g->czxid_assumed: my_czxid
 *               1), no watch on its own election znode (W_mn) while it is
 *               the elector; elector_stop, still registered (not leaving),
 *               sends it then (czx 0 until the reply; the wake's watch). A
 *               reconnect re-arms no watch it never had.
 *               NO_CZX_ASSUME: the registration's STAT_MINE as before.
 *   LD_STALE    on unless NO_LD_STALE (the C since f36ba84): a NodeCreated
 *               or NodeDataChanged of the leader znode (EV_W_LD, a = 0),
 *               and an exists of it that finds it (Q_EX_LD OK), make the
 *               leader view unread (l_rd 0) until the get sent with it is
 *               answered (group.c group_on_watch, on_leader_reply).
 *               NO_LD_STALE: the model of before, where the view stayed
 *               read (README "Bugs found", 4: a stale NONODE then let a
 *               suspended candidate act on an empty view).
 *               mutants: MUT_CZX_ANY (the assumption taken by any
 *               registration into a group with no decision in view, not
 *               only the one that created the group), MUT_STOP_NOSTAT
 *               (elector_stop sends no STAT_MINE: not caught, README)
 *   mutants:    MUT_EL_NOARM (elected never armed after the first decision),
 *               MUT_SLOT_NOARM (a slot the decision gives to another node
 *               left unarmed), MUT_SU_NOTAKE (the elector-leader takes its
 *               decisions' successor only, not its later writes of it),
 *               MUT_SU_KEEP (it takes a later write's version but keeps the
 *               content of its copy)
 *   properties: L9 the elector's view is current when all is quiet; L10 a
 *               READY leader the current `successor` names for its
 *               registration holds that record when all is quiet
 *
 * Safety: the monitor process asserts S1, S3, S7, S8 and L1 in every state
 * (issue 16: L3, L4, L5 too; issue 18: S18); S2, S4, S5, S6 (issue 16: S9, S10) are
 * assertions where the step happens (issue 18: S16, S17, S20). Liveness (-DLIVE): the LTL
 * formula `live`, checked with pan -a -f.
 */

#ifndef SLOTS
#define SLOTS 1                 /* issue 17: 2 = the two-slot model (at the end) */
#endif
#if SLOTS == 1
#define N 3                     /* nodes 0, 1, 2 */
#define WEL 0
#define WLD 1
#define WCH 2
#define NONE 3                  /* "no node" */

#ifndef MAXFAULTS
#define MAXFAULTS 2
#endif
#ifndef MAX_DISC
#define MAX_DISC 2
#endif
#ifndef MAX_EXP
#define MAX_EXP 1
#endif
#ifndef MAX_CRASH
#define MAX_CRASH 1
#endif
#ifndef MAX_LOSE
#define MAX_LOSE 0
#endif
#ifndef MAX_SWITCH
#define MAX_SWITCH 1
#endif
#ifndef MAX_EARLY
#define MAX_EARLY 1
#endif
#ifndef MAX_TFAIL
#define MAX_TFAIL 1
#endif
#ifndef MAX_FREEZE
#define MAX_FREEZE 1
#endif
#ifndef MAX_DRAIN
#define MAX_DRAIN 0
#endif
#ifndef MAX_PREF
#define MAX_PREF 0
#endif
#ifndef MAX_SCHED
#define MAX_SCHED 0
#endif
#ifndef EXPECT
#define EXPECT 0
#endif
#ifndef MAX_RESIGN
#define MAX_RESIGN 0            /* issue 18 B: graceful leaves of the READY leader */
#endif
#if MAX_RESIGN > 0 || defined(DIRECT_SO)
#define RESIGN                  /* issue 18 B: the successor record is part of the model */
#endif
#ifdef DIRECT_SO
#ifndef MAX_DSO
#define MAX_DSO 1               /* the operator's direct switchovers (not in MAXFAULTS) */
#endif
#ifdef NO_WAKE
#error "DIRECT_SO wakes the successor (the wake, issue 18): not with NO_WAKE"
#endif
#endif
#if (defined(MUT_DSO_STALE) || defined(MUT_DSO_EPOCH) || defined(MUT_DSO_DELETE) || \
     defined(REACH_DSO)) && !defined(DIRECT_SO)
#error "MUT_DSO_STALE, MUT_DSO_EPOCH, MUT_DSO_DELETE and REACH_DSO are of the direct switchover: with DIRECT_SO"
#endif
#if defined(REACH_DSO) && (MAX_RESIGN > 0 || defined(NO_FAST))
#error "REACH_DSO tells a direct switchover's decision by E_ho: not with MAX_RESIGN > 0 nor NO_FAST"
#endif
#if defined(RESIGN) && (defined(SETTLE) || defined(HOLDS) || MAX_DRAIN > 0 || MAX_SCHED > 0)
#error "MAX_RESIGN > 0 is not modelled with issue 16's knobs"
#endif
#ifndef NO_WAKE
#define WAKE                    /* the wake (issue 18): quiet members and the wake */
#endif
#if !defined(WAKE) && (defined(MUT_NOWAKE) || defined(MUT_WAKE_LATE))
#error "MUT_NOWAKE and MUT_WAKE_LATE are mutants of the wake: not with NO_WAKE"
#endif
#if defined(WAKE) && !defined(WAKE_EXISTS_ALWAYS)
#define WAKE_UW                 /* the wake sends the leader znode's exists only if it let
                                   a notification of it go (lview.unwatched, as the C) */
#endif
#if !defined(WAKE) && defined(WAKE_EXISTS_ALWAYS)
#error "WAKE_EXISTS_ALWAYS is the wake of before: not with NO_WAKE"
#endif
#ifndef NO_SELF_SUCC
#define SELF_SUCC               /* 574a8bb: the elector-leader takes the succession from its writes */
#endif
#ifndef NO_ABSENT
#define ABSENT                  /* ddc3ab4: a new group's registration reads no first view */
#endif
#if (defined(MUT_LEAVING_NOWALK) || defined(MUT_RESIGN_STOPS)) && !defined(RESIGN)
#error "MUT_LEAVING_NOWALK and MUT_RESIGN_STOPS are mutants of a leave: with MAX_RESIGN > 0"
#endif
#if (defined(MUT_SU_KEEP) || defined(MUT_SU_NOTAKE)) && !(defined(SELF_SUCC) && defined(RESIGN))
#error "MUT_SU_KEEP and MUT_SU_NOTAKE are mutants of SELF_SUCC: with MAX_RESIGN > 0"
#endif
#if (defined(MUT_EL_NOARM) || defined(MUT_SLOT_NOARM)) && !defined(ABSENT)
#error "MUT_EL_NOARM and MUT_SLOT_NOARM are mutants of ABSENT: not with NO_ABSENT"
#endif
#ifndef NO_LD_STALE
#define LD_STALE                /* f36ba84: a leader znode's creation or change notified,
                                   or an exists that finds it, leaves the view unread */
#endif
#if defined(ABSENT) && defined(WAKE) && !defined(NO_CZX_ASSUME)
#define CZX_ASSUME              /* 4dce8aa: a new group's elector assumes its czxid, unwatched */
#endif
#if (defined(MUT_CZX_ANY) || defined(MUT_STOP_NOSTAT)) && !defined(CZX_ASSUME)
#error "MUT_CZX_ANY and MUT_STOP_NOSTAT are mutants of CZX_ASSUME: with ABSENT and WAKE"
#endif
#ifdef OLD_NODE
/* the wake gate (a rolling upgrade, PROTOCOL.md §2 "A release before the
   wake"): node OLD_NODE is of a release before the wake */
#define GATE
#ifndef WAKE
#error "OLD_NODE models the wake's gate: not with NO_WAKE"
#endif
#endif
#if (defined(MUT_NOGATE) || defined(MUT_WAKE_ALWAYS)) && !defined(GATE)
#error "MUT_NOGATE and MUT_WAKE_ALWAYS are mutants of the wake gate: with OLD_NODE=n"
#endif
#if defined(WAKE) && defined(RESIGN) && !defined(NO_FAST)
#define FAST                    /* the fast handover (issue 18): the successor creates at its wake */
#endif
#if defined(FAST) && !defined(NO_STANDING) && !defined(OLD_NODE)
/* the standing successor (issue 18): named in its znode's data. Not with
   OLD_NODE: the C names only under a decision saying fast_handover, which
   an old member's presence denies (left out once it is gone: the node's
   d_step outgrows spin's limit of jump labels) */
#define STANDING
#endif
#if defined(MUT_NAME_ONE) && !defined(STANDING)
#error "MUT_NAME_ONE is a mutant of the standing successor: with FAST, not NO_STANDING"
#endif
#ifdef MUT_NAME_ONE
#define NAME_BUMP 1             /* mutant: the naming is one set op (+1), as a handover's wake */
#else
#define NAME_BUMP 2
#endif
#if (defined(MUT_SPEC_NOSELF) || defined(MUT_SPEC_NOELECTED) || defined(MUT_WAKE_ONE) || \
     defined(REACH_FAST)) && !defined(FAST)
#error "MUT_SPEC_NOSELF, MUT_SPEC_NOELECTED, MUT_WAKE_ONE and REACH_FAST need the fast handover: MAX_RESIGN > 0, not NO_WAKE nor NO_FAST"
#endif
#ifdef PIPE
/* issue 18 A: a takeover with no work creates the leader znode READY at
   once; WORK_NODE's takeovers have work (the two phases) */
#ifdef WORK_NODE
#define NOOP(n) ((n) != WORK_NODE)
#else
#define NOOP(n) 1
#endif
#endif
#if defined(MUT_PIPE_WORK) && !(defined(PIPE) && defined(WORK_NODE))
#error "MUT_PIPE_WORK needs PIPE and WORK_NODE (a node whose takeovers have work)"
#endif
#if defined(MUT_PIPE_NOCHECK) && !defined(PIPE)
#error "MUT_PIPE_NOCHECK is a mutant of the direct READY create: needs PIPE"
#endif
#if defined(SETTLE) || defined(HOLDS) || MAX_DRAIN > 0 || MAX_SCHED > 0
#define DR16                    /* issue 16's state is part of the model */
#endif
#ifndef MAXEPOCH
#define MAXEPOCH 12             /* a decision beyond this is a livelock: assert */
#endif
#define MAXSEQ 12               /* election sequence numbers */
#ifndef RQ
#define RQ 10                   /* request queue per session (asserted) */
#endif
#ifndef EVQ
#define EVQ 12                  /* event queue per node (asserted) */
#endif

/* request kinds (struct req.kind) and, for replies, the same numbers */
#define Q_GET_EL    1           /* aget elected (watch) */
#define Q_EX_EL     2           /* aexists elected (watch) */
#define Q_GET_LD    3           /* aget leader (watch) */
#define Q_EX_LD     4           /* aexists leader (watch) */
#define Q_REGISTER  5           /* amulti: nodes/<id> + election/<id>_<guid>_ */
#define Q_FIND_MINE 6           /* aget_children election: mine by guid */
#define Q_STAT_MINE 7           /* aexists my election znode (czxid) */
#define Q_LIST      8           /* aget_children election (watch if elector) */
#define Q_EX_PRED   9           /* aexists predecessor (watch) */
#define Q_GET_HIST  10          /* aget history */
#define Q_DECIDE    11          /* amulti: elected + history, versioned */
#define Q_CREATE    12          /* amulti: check elected, create leader PROGRESS (c: READY,
                                   issue 18 A's direct create) */
#define Q_READY     13          /* amulti: check elected, set leader READY */
#define Q_DELETE    14          /* adelete leader (version) */
#define Q_FENCE     15          /* adelete stale leader (elector, version) */
#define Q_RETAKE    16          /* amulti: check elected, set leader PROGRESS (version) */
/* issue 18 B (RESIGN) */
#define Q_GET_SU    17          /* aget successor (watch; leaders only) */
#define Q_SUCC      18          /* amulti: check elected, set successor (the elector) */
#define Q_APPEND    19          /* amulti: check elected, set history, set successor (the
                                   elector, after a decision it did not write) */
#define Q_LEAVE     29          /* amulti: [check successor, set elected (version): the
                                   handover] + [check elected (version): the ordinary
                                   leave's release] + delete leader (version) + delete
                                   registration */
#define Q_SPEC      32          /* amulti (the fast handover): check own election znode
                                   (version w+1), check elected (V+1), create leader */
/* other events on a node's queue */
#define EV_CONNECTING 20        /* session event: connection lost */
#define EV_CONNECTED  21        /* session event: (re)connected */
#define EV_EXPIRED    22        /* session event: expired */
#define EV_W_EL       23        /* watch: elected changed */
#define EV_W_LD       24        /* watch: leader changed */
#define EV_W_CH       25        /* watch: election children changed */
#define EV_W_PRED     26        /* watch: predecessor deleted (a = its seq) */
#define EV_W_SW       27        /* watch: switchover requested */
#define EV_W_CFG      28        /* watch: config changed (a drain starts or ends) */
#define EV_W_SU       30        /* watch: successor changed (issue 18 B) */
#define EV_W_MINE     31        /* watch: own election znode changed, the wake (issue 18, the wake) */

/* ZooKeeper return codes (the ones the C code tells apart) */
#define OK          0
#define NONODE      1
#define NODEEXISTS  2
#define BADVERSION  3
#define CONNLOSS    4           /* also ZOPERATIONTIMEOUT: outcome unknown */

/* enum role */
#define R_NONE      0
#define R_MEMBER    1
#define R_WAITING   2
#define R_CREATING  3
#define R_PROGRESS  4
#define R_READYING  5
#define R_READY     6
#define R_STEPPING  7
#define R_DELETING  8
#define R_SUSPENDED 9
#define R_FENCED    10          /* stepped down unheard; the leader znode waits */

/* enum reg_state (REG_LEAVING: unnominate is not modelled) */
#define RG_NONE     0
#define RG_PENDING  1
#define RG_UNKNOWN  2
#define RG_DONE     3

/* h->sess as the library thread sees it */
#define CS_CONNECTING 0
#define CS_CONNECTED  1

#define ST_PROGRESS 1
#define ST_READY    2

typedef brow { byte s[N] };             /* a row of per-node bytes */
typedef xrow { bool s[N] };             /* a row of per-node flags */

/* ---------------------------------------------------------------------
 * ZooKeeper: server state. Versions are stored +1 (0 = znode absent).
 * ------------------------------------------------------------------- */
byte E_ver, E_ld = NONE, E_ep, E_rg;    /* elected: version, leader, epoch, leader_znode seq */
byte L_ver, L_own, L_id = NONE, L_st, L_ep; /* leader: version, ephemeralOwner, id, status, epoch */
byte H_ver, H_ep;                       /* history: version, epoch of its last entry */
bool SWP;                               /* switchover: a request not yet acknowledged */
#ifdef GATE
bool E_wk;                              /* elected says "wake": true */
#endif
#ifdef DR16
byte DRN = NONE;                        /* config.drains: the drained node (NONE: none) */
byte BT = NONE;                         /* the node the policy prefers to the leader (preempt) */
byte SCH;                               /* scheduled switchover: 0 none, 1 pending, 2 due */
bool E_hd;                              /* elected carries a hold */
#endif
#ifdef RESIGN
/* issue 18 B: `successor` (written only by the elector): version (+1, 0 =
   absent), the elected version it is valid for (+1, as E_ver), next_epoch,
   the slot's leader it was computed for (its election znode seq), and the
   successor (node + 4 * its seq; node NONE: no entry) */
byte S_ver, S_ev, S_ep, S_lrg, S_sd;
byte mx_ep;                             /* ghost: the highest epoch `elected` ever had */
#ifdef DIRECT_SO
byte S_hv;                              /* the history version the succession was made on (every
                                           write of history writes `successor` too: S_hv == H_ver
                                           in the model; the direct switchover checks it) */
#endif
#endif
byte REG[N];                            /* seq of node's election znode (+ nodes/<id>), 0 none */
byte nextseq = 1;                       /* parent's sequence counter */
bool live[N];                           /* server: the node's current session is live */
bool conn[N];                           /* transport connected */
bool crashed[N];                        /* the node process stopped */
bool fz[N];                             /* the node process is frozen (SIGSTOP) */
bool exp_pend[N];                       /* cut off beyond the session timeout: the server
                                           expires the session once the timing allows */
byte inc[N];                            /* handle generation (loop.c h->gen) */
#ifdef RESIGN
#define WSU 3
brow W[4];                              /* ... and successor (3, issue 18 B) */
#else
brow W[3];                              /* watches on elected (0), leader (1), election children (2):
                                           0 none, 1 armed, 2 fired while disconnected */
#endif
byte W_pr[N], W_pst[N];                 /* predecessor watch: seq, state as above */
#ifdef WAKE
byte W_mn[N];                           /* the wake (issue 18): the watch on the node's own election znode
                                           (its current registration), state as above */
#endif
#ifdef FAST
#ifdef STANDING
bool MD[N];                             /* the standing successor: the data of the node's current
                                           election znode names it (id + " successor") */
#endif
byte MV[N];                             /* the fast handover: the version of the node's current
                                           election znode (0 at its create): +2 per elector's wake,
                                           +1 per handover's */
bool E_ho;                              /* ghost (S19): `elected` was last written by a handover
                                           (or, DIRECT_SO, by the operator's direct switchover: the
                                           decision a handover would write, with its one-op wake) */
#ifdef MUT_WAKE_ONE
#define EL_BUMP 1                       /* mutant: an elector's wake is one set op (+1) */
#else
#define EL_BUMP 2                       /* rule 1: two set ops in the decision's multi */
#endif
#endif

#define SID(n) ((n) + 1 + N * inc[n])   /* session id of node n's current handle */

#ifdef RESIGN
/* issue 18 B: one more byte per request (e), for the handover's multi */
chan rq[N] = [RQ] of { byte, byte, byte, byte, byte, byte }; /* kind, a, b, c, d, e */
#define RQ_GET(ch) ch?qk, qa, qb, qc, qd, qe
#define RQ_DROP(ch) ch?_, _, _, _, _, _
#else
chan rq[N] = [RQ] of { byte, byte, byte, byte, byte };       /* kind, a, b, c, d */
#define RQ_GET(ch) ch?qk, qa, qb, qc, qd
#define RQ_DROP(ch) ch?_, _, _, _, _
#endif
chan ev[N] = [EVQ] of { byte, byte, byte, byte, byte, byte }; /* kind, rc, a, b, c, d */

/* ---------------------------------------------------------------------
 * The nodes' library state (struct zkelect_group), global so that the
 * properties and the timing guards can read it.
 * ------------------------------------------------------------------- */
byte c_sess[N];                 /* h->sess */
byte c_sid[N];                  /* h->session_id */
byte reg[N];                    /* g->reg */
byte my_seq[N];                 /* g->my_znode / g->my_seq */
bool czx[N];                    /* g->my_czxid != 0 */
#ifdef CZX_ASSUME
bool cza[N];                    /* g->czxid_assumed: czx without a STAT_MINE, no own-znode
                                   watch (4dce8aa: our registration created the group) */
#endif
byte role[N];                   /* g->role */
byte r_ep[N];                   /* g->role_epoch */
byte r_ev[N];                   /* g->role_elected_version (+1) */
byte f_ep[N];                   /* g->failed_epoch */
bool t_ok[N];                   /* g->takeover_ok */
bool app[N];                    /* the application's takeover is running */
byte app_ep[N];                 /* ... for this epoch */
bool actv[N];                    /* ACTIVE: the application's service is on, from the
                                   takeover callback's call to its step-down's end */
bool sd[N];                     /* the application's step-down is running */
bool fnc[N];                    /* STEPPING: the step-down is the self-fence
                                   (g->fence_stepdown) */
/* the shared view */
bool he[N];                     /* g->have_elected */
byte e_ld[N], e_ep[N], e_rg[N]; /* g->elected.leader, .epoch, .leader_znode */
byte e_ver[N];                  /* g->elected_version (+1) */
bool e_rd[N];                   /* g->elected_read */
bool hl[N];                     /* g->have_leader */
byte l_id[N], l_st[N], l_ep[N]; /* g->leader.id, .status, .epoch */
byte l_ver[N];                  /* g->leader_version (+1) */
byte l_own[N];                  /* g->leader_owner */
bool l_rd[N];                   /* g->leader_read */
#ifdef WAKE_UW
bool l_uw[N];                   /* lview.unwatched: a notification of the leader znode let
                                   go, no read of it sent since (the wake reads it again) */
#endif
#ifdef GATE
bool e_wk[N];                   /* g->elected.wake (the wake gate) */
#endif
#ifdef FAST
byte mw[N];                     /* the fast handover: the own election znode's version w as
                                   last read (its create: 0; each STAT_MINE's reply) */
#endif
#ifdef ABSENT
/* ddc3ab4: a new group's view absent by construction, not watched yet
   (view_absent): armed after the node's own first writes */
bool e_df[N];                   /* g->elected_defer */
bool l_df[N];                   /* the leader znode's lview.defer */
#ifndef STABLE_START
#define FIRST_DEFER
byte vw[N];                     /* the first view: 0 not yet, 1 deferred to the registration's
                                   reply (g->view_deferred), 2 done (g->viewed) */
#endif
#define DEFER_EL(n) e_df[n]
#else
#define DEFER_EL(n) 0
#endif
byte pred[N];                   /* g->pred (seq) */
byte lw[N];                     /* g->lower[0]: the next znode below pred that the
                                   node's last listing showed (seq; 0 none; with
                                   3 nodes there is at most one) */
bool la[N];                     /* g->lower_all: pred and lw were all that listing
                                   showed below the node (always, with 3 nodes) */
#ifdef RESIGN
#define LEAVES(n) lv[n]         /* it leaves: lists, no shortcut (reg_next_pred) */
#else
#define LEAVES(n) 0
#endif
/* the elector */
bool is_el[N];                  /* g->is_elector */
bool el_rd[N];                  /* g->election_read */
bool hi_rd[N];                  /* g->history_read */
byte hi_ep[N], hi_ver[N];       /* g->history (last epoch), g->history_version (+1) */
brow mseq[N];                   /* g->members: seq of each member's registration, 0 none */
xrow excl[N];                   /* g->exclusions */
bool decid[N];                  /* g->deciding */
bool evpend[N];                 /* g->eval_pending */
bool wd[N];                     /* g->watchdog_ms_deadline != 0 */
byte wd_ep[N];                  /* g->watchdog_epoch */
bool wd_f[N];                   /* g->watchdog_fenced */
byte ps_ep[N];                  /* g->progress_seen_epoch */
byte tc_ep[N];                  /* g->takeover_check_epoch */
bool rrt[N];                    /* g->release_retry: DELETING, release again once re-read */
#ifdef RESIGN
/* issue 18 B: the leaver's state and views */
bool lv[N];                     /* unnominate called (resign): the node leaves for good */
byte s_ver[N], s_ev[N], s_ep[N], s_lrg[N], s_sd[N]; /* a leader's view of `successor` */
#ifdef STANDING
byte su_n[N];                   /* the elector: the successor (node + 4 * seq) it last named
                                   (succ_woken; 255 unknown) */
bool snm[N];                    /* the node: its znode's data, as last read, names it (succ_named) */
#endif
byte su_w[N], su_v[N];          /* the elector: the successor (node + 4 * seq) it last wrote
                                   and the elected version (+1) it wrote it for; 255 unknown */
#endif
#ifdef DR16
/* issue 16: the elector's holds and timers (abstract time: each timer may
   end at any moment once started) */
bool sn[N];                     /* seen, since this registration, a leader znode or a
                                   decision naming a leader (not cold any more) */
byte st[N];                     /* the settle timer: 0 not started, 1 running, 2 passed */
byte hk[N];                     /* the hold the elector waits on now (HK_*) */
byte fb[N];                     /* failback delay for BT: 0 not started, 1 running, 2 passed */
bool af[N];                     /* anti-flap: min_move_interval since the last leader
                                   change not yet passed */
bool e_hd[N];                   /* the view: elected carries a hold */
#endif

/* faults used */
byte nf, n_disc, n_exp, n_crash, n_lose, n_switch, n_early, n_tfail, n_frz;
#ifdef RESIGN
byte n_res;                     /* resigns so far (MAX_RESIGN, not counted in MAXFAULTS) */
#endif
#ifdef DIRECT_SO
bool S20_dso_over_its_decision = 1;     /* a direct switchover is applied only over the decision
                                           its succession was made for */
byte n_dso;                     /* direct switchovers read so far (MAX_DSO, not in MAXFAULTS) */
byte dso_sv, dso_ev;            /* the operator's read: `successor`'s and `elected`'s versions
                                   (+1, as S_ver, E_ver); 0: no multi pending */
#endif
#ifdef DR16
byte n_drain, n_pref, n_sched;
#endif

/* ghosts for the properties */
bool noticed[N];                /* processed CONNECTING, not yet CONNECTED/EXPIRED */
byte last_ep, last_nd = NONE;   /* last READY transition (live session) */
byte srv_ep, srv_nd = NONE;     /* last READY write applied by the server */
bool S1_one_ready_leader = 1;
bool S2_ready_epochs_increase = 1;
bool S3_expired_never_acts = 1;
bool S4_leader_writes_follow_decision = 1;
bool S5_stop_before_delete = 1;
bool S6_ready_never_takeover_failed = 1;
bool S7_one_active_service = 1;
bool S8_ready_is_active = 1;
#ifdef PIPE
bool S18_ready_after_work = 1;          /* issue 18 A: READY visible only once the work is done */
byte fin_ep[N];                         /* ghost (S18): the epoch of the node's last takeover
                                           finished (its work done, ok) */
#endif
#ifdef FAST
bool S19_spec_over_handover = 1;        /* a speculative create is applied only over the handover
                                           of the decision it predicted (V+1, this node, e_V+1) */
#ifdef REACH_FAST
bool R_fast_reached = 1;                /* REACH_FAST: fails when a speculative create succeeds */
#endif
#endif
#ifdef REACH_DSO
bool R_dso_reached = 1;                 /* REACH_DSO: fails when a create under a direct
                                           switchover's decision succeeds */
#endif
#ifdef RESIGN
bool S16_handover_epoch_fresh = 1;      /* a handover's epoch is above every epoch decided */
bool S17_handover_current_record = 1;   /* a handover writes the current record's choice, for
                                           the decision it replaces, by that record's leader */
#endif
#ifdef DR16
bool S9_sched_not_early = 1;            /* a scheduled switchover is acknowledged only once due */
bool S10_paused_refused = 1;            /* ... and, the group paused, moves nothing */
bool L3_hold_ends = 1;                  /* at quiescence no elector waits on a hold */
bool L4_forced_not_held = 1;            /* a forced move is never held (see the monitor) */
bool L5_sched_answered = 1;             /* at quiescence no scheduled switchover is pending */
#endif
bool frz[N];                    /* ghost: ACTIVE when frozen, until its step-down ended */
byte rdy_ep[N];                 /* ghost: the epoch at which each node last became READY */
bool bounds_ok = 1;                     /* the model's bounds (queues, epochs) held */
bool L1_quiescent_stable = 1;
bool L8_named_learns = 1;               /* the wake (issue 18): a named node learns it (see the monitor) */
bool L9_elector_view_current = 1;       /* ddc3ab4: the elector's view is current when quiet */
bool L11_lowest_is_elector = 1;         /* 9d6ed04: the lowest member is the elector when quiet */
#ifdef RESIGN
bool L10_leader_succession_current = 1; /* 574a8bb: a READY leader's succession is current when quiet */
#endif
bool started;                           /* init is done */

/* Scratch of a single d_step (every step writes them before reading them
   and leaves them dead): hidden, i.e. not part of the state. */
hidden byte k, rc, a, b, c, d;          /* the event being handled */
hidden byte qk, qa, qb, qc, qd;         /* the request being applied */
hidden byte zrc, x0, x1, x2, x3;        /* its result */
hidden byte zj, zt, m, q, ep, rg;       /* loop counters, temporaries */
hidden byte named, mine, fall, lowest, vc, cs, ez;
hidden byte hb;                         /* the decision being written carries a hold */
#ifdef RESIGN
hidden byte qe, sx, zs, zu;             /* a request's 6th byte; the one being sent; scratch */
#endif
#ifdef WAKE
hidden byte tch;                        /* the wake (issue 18): the multi being applied touches a znode */
#ifdef GATE
hidden byte wkb;                        /* the wake gate: the decision being written says wake */
#endif
#endif
#if defined(WAKE) || defined(ABSENT)
hidden byte wk;                         /* the wake (issue 18), ABSENT's arming: what the step
                                           sends last (WK_*) */
#define WK_MINE 1                       /* the own-znode exists with watch (the re-arm) */
#define WK_EL   2                       /* read_elected */
#define WK_LD   4                       /* the leader znode: exists with watch (as after a
                                           NodeDeleted) */
#define WK_STAT 8                       /* CZX_ASSUME: elector_stop's STAT_MINE (as the
                                           registration's: czxid, the wake's watch) */
#define WK_SPEC 16                      /* the fast handover: the speculative create, last */
#endif
#ifdef FAST
/* the fast handover: the decision the node last read says fast_handover
   (the gate: copied from the wake flag, rule 3; the old node never) */
#ifdef GATE
#define FASTFLAG(n) ((n) != OLD_NODE && e_wk[n])
#else
#define FASTFLAG(n) 1
#endif
/* rule 4: a registered member, not the elector, connected, nothing of its
   service running, whose view holds a decision (V, the last one it read)
   naming another node. Any such member, quiet or following: wider than
   the spec's "follows `elected`" (a quiet member's V may be old; its
   notification of the handover's `elected` write, if its watch was still
   armed, comes before the wake and is dropped: README, "Issue 18, the fast
   handover") */
#define SPEC_OK(n) (reg[n] == RG_DONE && my_seq[n] != 0 && czx[n] && !is_el[n] && \
                    role[n] == R_MEMBER && !actv[n] && CONNECTED(n) && he[n] && \
                    e_ld[n] != NONE && e_ld[n] != n && FASTFLAG(n))
#endif

/* ---------------------------------------------------------------------
 * Predicates
 * ------------------------------------------------------------------- */
#define CONNECTED(n) (c_sess[n] == CS_CONNECTED)
#define MINE(n) (l_ver[n] != 0 && l_own[n] != 0 && l_own[n] == c_sid[n])
#define ROLE_LEADING(r) ((r) == R_CREATING || (r) == R_PROGRESS || (r) == R_READYING || \
                         (r) == R_READY || (r) == R_STEPPING || (r) == R_DELETING)
#define ACTING(n) (role[n] == R_PROGRESS || role[n] == R_READYING || role[n] == R_READY)
/* the wake (issue 18): the view's decision names this node's registration */
#define KNOWS(n) (he[n] && e_ld[n] == n && my_seq[n] != 0 && e_rg[n] == my_seq[n])
#ifdef WAKE
/* the wake (issue 18): the group follows `elected` and the leader znode (re-arms and
   re-reads on their notifications): the elector, or a node in play (a role
   other than MEMBER/NONE, named by the decision it last read, or the leader
   znode in view its own). The model has no leader-change subscribers. */
#ifdef STANDING
#define NAMED(n) snm[n]          /* the standing successor: in play (reset at registered) */
#else
#define NAMED(n) 0
#endif
#ifndef GATE
#define FOLLOWS(n) (is_el[n] || (role[n] != R_MEMBER && role[n] != R_NONE) || KNOWS(n) || MINE(n) || NAMED(n))
#elif defined(MUT_NOGATE)
/* mutant: a new node is quiet whatever the decision says (the gate ignored) */
#define FOLLOWS(n) ((n) == OLD_NODE || !he[n] || \
                    is_el[n] || (role[n] != R_MEMBER && role[n] != R_NONE) || KNOWS(n) || MINE(n) || NAMED(n))
#else
/* the wake gate (group_follows): the old node always follows; a new node
   follows before any decision and while the decision it last read does not
   say wake (an old elector wakes nobody) */
#define FOLLOWS(n) ((n) == OLD_NODE || !he[n] || !e_wk[n] || \
                    is_el[n] || (role[n] != R_MEMBER && role[n] != R_NONE) || KNOWS(n) || MINE(n) || NAMED(n))
#endif
#endif
#ifdef ONLY_ELIG
#define ELIG(n) ((n) == ONLY_ELIG)      /* one eligible node (the others never lead) */
#else
#define ELIG(n) 1
#endif
#ifdef DR16
/* a drained node is given to the policy as not eligible (DRN: config.drains
   is read with the config watch; its read is not modelled apart) */
#define CAND(e, n) (mseq[e].s[n] != 0 && ELIG(n) && !excl[e].s[n] && DRN != (n))
#ifdef MUT_DRAIN_KEEP
/* mutant: the current leader is kept when drained (the drain only counts
   for a new choice) */
#define CANDC(e, n) (mseq[e].s[n] != 0 && ELIG(n) && !excl[e].s[n])
#else
#define CANDC(e, n) CAND(e, n)
#endif
#else
#define CAND(e, n) (mseq[e].s[n] != 0 && ELIG(n) && !excl[e].s[n])
#define CANDC(e, n) CAND(e, n)
#endif
/* elected_present(): `elected` names a live member with that very registration */
#define EPRESENT(n) (he[n] && e_ld[n] != NONE && mseq[n].s[e_ld[n]] != 0 && \
                     (e_rg[n] == 0 || mseq[n].s[e_ld[n]] == e_rg[n]))
/* a switchover request not yet acknowledged in a readable `elected` */
#ifndef DR16
#define SWPEND(n) (SWP && he[n])
#define SWACK (SWP)
#else
/* a scheduled switchover is a request once due (the elector's timer) */
#ifdef MUT_SCHED_EARLY
#define SCHDUE (SCH != 0)               /* mutant: acted on when read */
#else
#define SCHDUE (SCH == 2)
#endif
#define SWPEND(n) ((SWP || SCHDUE) && he[n])
#define SWACK (SWP || SCHDUE)           /* a decision written now acknowledges it */
#endif
#define ELECTOR_READY(n) (is_el[n] && CONNECTED(n) && el_rd[n] && hi_rd[n] && e_rd[n] && l_rd[n])

/* issue 16: the holds (g->hold.kind) */
#define HK_SETTLE   1
#define HK_FAILBACK 2
#define HK_FLAP     3
/* cold (elector_eval, with cpres computed): no leader znode, `elected`
   names no live member, nothing seen since this registration */
#ifdef MUT_SETTLE_ON_LOSS
#define COLD(n) (!hl[n] && !cpres)      /* mutant: also after a leader was seen */
#else
#define COLD(n) (!hl[n] && !cpres && !sn[n])
#endif
#if EXPECT > 0
#define EXPECT_MET(n) ((mseq[n].s[0] != 0) + (mseq[n].s[1] != 0) + (mseq[n].s[2] != 0) >= EXPECT)
#else
#define EXPECT_MET(n) 0
#endif

/* S1: never two nodes that both believe they are the READY leader while
   both sessions are live (a crashed process believes nothing) */
#define BEL(n) (!crashed[n] && role[n] == R_READY && live[n])
#define S1 (!(BEL(0) && BEL(1)) && !(BEL(0) && BEL(2)) && !(BEL(1) && BEL(2)))
/* S3: a node whose session expired never acts as leader once it has
   noticed the disconnect */
#define S3N(n) (crashed[n] || live[n] || !noticed[n] || !ROLE_LEADING(role[n]) || role[n] == R_STEPPING)
#define S3 (S3N(0) && S3N(1) && S3N(2))
/* S7: never two nodes whose service is ACTIVE at once, except one that was
   frozen (SIGSTOP) while ACTIVE: its overlap lasts the freeze and its own
   step-down after it */
#define ACT(n) (actv[n] && !frz[n])
#define S7 (!(ACT(0) && ACT(1)) && !(ACT(0) && ACT(2)) && !(ACT(1) && ACT(2)))
/* S8: a node that believes it is the READY leader is ACTIVE (it took over:
   a fenced node never resumes READY without taking over again) */
#define S8N(n) (crashed[n] || role[n] != R_READY || actv[n])
#define S8 (S8N(0) && S8N(1) && S8N(2))
#ifdef PIPE
/* S18 (issue 18 A): a READY leader znode's owner (its session live, its
   process running) has finished a takeover with work at that epoch:
   READY is visible only once the work is done (a takeover with no work
   has none: its create writes READY). "Finished once at the epoch", not
   "no takeover running": a READY leader whose READY reply was lost and
   whose view is older (PROGRESS) takes over again with its znode READY
   (cand_step, SUSPENDED), two disconnects, the model of before too */
#define S18N(o) (!(L_ver != 0 && L_st == ST_READY && L_own == SID(o) && live[o] && !crashed[o]) || \
                 NOOP(o) || fin_ep[o] == L_ep)
#define S18 (S18N(0) && S18N(1) && S18N(2))
#endif
/* L8 (issue 18, the wake): a named node learns it. Checked when everything delivered
   has been processed (QUIET, below): a running, connected node whose
   current registration `elected` names has a view that names it. */
#define L8N(n) (crashed[n] || fz[n] || !live[n] || !conn[n] || !CONNECTED(n) || reg[n] != RG_DONE || \
                REG[n] == 0 || my_seq[n] != REG[n] || E_ver == 0 || E_ld != n || E_rg != REG[n] || KNOWS(n))
#define L8 (L8N(0) && L8N(1) && L8N(2))
/* L9 (ddc3ab4, a new group's deferred view): the elector's view is
   current. When everything delivered has been processed (QUIET), a
   running, connected elector that has its view read sees `elected` and the
   leader znode as the server has them (version; the znode's owner): it
   watches every change of them, also those of a new group once its own
   writes are answered. */
#define L9N(n) (crashed[n] || fz[n] || !live[n] || !conn[n] || !ELECTOR_READY(n) || \
                (e_ver[n] == E_ver && l_ver[n] == L_ver && (L_ver == 0 || l_own[n] == L_own)))
#define L9 (L9N(0) && L9N(1) && L9N(2))
#ifdef RESIGN
/* L10 (574a8bb, issue 18 B): a READY leader holds the current succession.
   When everything delivered has been processed (QUIET), a running,
   connected READY leader whose current registration the server's
   `successor` names, valid for the current `elected`, with a successor,
   has that record's version in view: a resign now hands over (the elector
   that leads from its own writes, the others from their watch). */
#define L10N(n) (crashed[n] || fz[n] || !live[n] || !conn[n] || !CONNECTED(n) || role[n] != R_READY || \
                 REG[n] == 0 || my_seq[n] != REG[n] || S_ver == 0 || S_sd % 4 == NONE || \
                 S_lrg != REG[n] || S_ev != E_ver || s_ver[n] == S_ver)
#define L10 (L10N(0) && L10N(1) && L10N(2))
#endif

/* Everything delivered has been processed: the timers (watchdog, tens of
   seconds) are slower than message delivery and processing. */
#define QN(n) (crashed[n] || fz[n] || (len(ev[n]) == 0 && (len(rq[n]) == 0 || !conn[n] || !live[n]) && \
                !app[n] && !sd[n]))
#define QUIET (QN(0) && QN(1) && QN(2))

/* L11 (9d6ed04): the lowest member is the elector. When everything
   delivered has been processed (QUIET but for an application's step-down,
   which may take long: QS), the running, connected node whose election
   znode is the lowest on the server, registered as that znode, is the
   elector, unless its leave's multi is sent (REG_LEAVING in the C). This
   is the C's safety net (group.c group_stuck: "neither the elector nor
   watching a predecessor") seen from the server. */
#define QSN(n) (crashed[n] || fz[n] || (len(ev[n]) == 0 && (len(rq[n]) == 0 || !conn[n] || !live[n]) && \
                 !app[n]))
#define QS (QSN(0) && QSN(1) && QSN(2))
#define LOWEST(m, j, k) (REG[m] != 0 && (REG[j] == 0 || REG[j] > REG[m]) && (REG[k] == 0 || REG[k] > REG[m]))
#ifdef RESIGN
#define LEAVE_SENT(n) (lv[n] && role[n] == R_DELETING)
#else
#define LEAVE_SENT(n) 0
#endif
#define L11N(m, j, k) (!LOWEST(m, j, k) || crashed[m] || fz[m] || !live[m] || !conn[m] || !CONNECTED(m) || \
                       reg[m] != RG_DONE || my_seq[m] != REG[m] || LEAVE_SENT(m) || is_el[m])
#define L11 (L11N(0, 1, 2) && L11N(1, 0, 2) && L11N(2, 0, 1))

#ifdef DR16
/* L3: at quiescence (every timer has ended) no elector waits on a hold */
#define HELD(n) (is_el[n] && !crashed[n] && hk[n] != 0)
/* L4: a forced move is never held. When everything delivered has been
   processed (QUIET: a hold's timer is seconds, a decision milliseconds), an
   elector that has its view, is not cold (it has seen a leader since its
   registration: after a leader loss it has) and is not deciding, never
   lacks a current leader that can lead - present and a candidate, so not
   drained - while some member could lead. */
#define CURLEADS(e) ((EPRESENT(e) && CAND(e, e_ld[e])) || \
                     (!he[e] && hl[e] && l_id[e] != NONE && mseq[e].s[l_id[e]] != 0 && CAND(e, l_id[e])))
#ifdef SETTLE
#define SEEN(e) sn[e]
#else
#define SEEN(e) 1
#endif
#define FORCED(e) (!crashed[e] && !fz[e] && ELECTOR_READY(e) && !decid[e] && SEEN(e) && !CURLEADS(e) && \
                   (CAND(e, 0) || CAND(e, 1) || CAND(e, 2)))
#endif

/* The timing assumption on fencing (README): watchdog_ms >= the session
   timeout, so when the elector fences, the old leader holding the znode has
   either processed the decision (it is quiescent), or noticed its
   disconnect, or crashed, or lost its session. */
#define OWN_OK(o) (!(L_own == SID(o) && live[o]) || crashed[o] || !CONNECTED(o) || E_ld == o || \
                   (len(ev[o]) == 0 && len(rq[o]) == 0))
#define FENCING(n) (he[n] && e_ep[n] == wd_ep[n] && e_ld[n] != NONE && \
                    !(hl[n] && l_ep[n] == e_ep[n] && l_id[n] == e_ld[n] && l_st[n] == ST_READY) && \
                    l_ver[n] != 0 && (!hl[n] || l_ep[n] < e_ep[n]) && !wd_f[n])
/* The elector deletes a stale leader znode only once the decision is T old
   (elector.c): by then the old leader holding it is not ACTIVE (a heard one
   saw the decision and stepped down within D; a cut-off one fenced within
   F + D <= T/2), or its session is gone, or it is frozen. */
#ifdef MUT_FENCE_EARLY
#define FOK(o) 1
#else
#define FOK(o) (!(L_own == SID(o) && live[o]) || !actv[o] || fz[o])
#endif
#ifdef FENCE_ANYTIME
#define TA_OK(n) 1
#else
#define TA_OK(n) (!FENCING(n) || L_ver == 0 || (OWN_OK(0) && OWN_OK(1) && OWN_OK(2) && \
                  FOK(0) && FOK(1) && FOK(2)))
#endif

#define FAULT_OK(cnt, max) (nf < MAXFAULTS && cnt < max)

/* Liveness: exactly one READY believer, and ZooKeeper agrees */
#define RD(n) (!crashed[n] && role[n] == R_READY)
#define ONE_READY ((RD(0) && !RD(1) && !RD(2)) || (!RD(0) && RD(1) && !RD(2)) || (!RD(0) && !RD(1) && RD(2)))
#define AGREE(n) (RD(n) && live[n] && L_ver != 0 && L_own == SID(n) && L_st == ST_READY && E_ld == n && L_ep == E_ep)
#define STABLE (ONE_READY && (AGREE(0) || AGREE(1) || AGREE(2)))

#ifdef LIVE
ltl live { <> [] STABLE }
#endif

/* TRACE: print every step when a trail is replayed (spin -DTRACE -t) */
#ifdef TRACE
#define T(x) x
#else
#define T(x) skip
#endif

/* ---------------------------------------------------------------------
 * Queues
 * ------------------------------------------------------------------- */
inline evsend(n, kk, r0, v0, v1, v2, v3) {
    bounds_ok = (len(ev[n]) < EVQ);
    assert(bounds_ok);
    ev[n]!kk, r0, v0, v1, v2, v3
}


/* ---------------------------------------------------------------------
 * ZooKeeper server
 * ------------------------------------------------------------------- */

/* A watch on elected or leader fires: notify, or keep it for the reconnect
   (the client re-registers its watches and the server fires the changed). */
inline trigger(w, kind, t) {
    zj = 0;
    do
    :: zj < N ->
        if
        :: W[w].s[zj] == 1 && conn[zj] -> evsend(zj, kind, 0, t, 0, 0, 0); W[w].s[zj] = 0
        :: W[w].s[zj] == 1 && !conn[zj] -> W[w].s[zj] = 2
        :: else
        fi;
        zj++
    :: else -> break
    od;
    zj = 0                               /* (a d_step must not end in a loop) */
}

inline trigger_pred(seq) {
    zj = 0;
    do
    :: zj < N ->
        if
        :: W_pst[zj] == 1 && W_pr[zj] == seq && conn[zj] -> evsend(zj, EV_W_PRED, 0, seq, 0, 0, 0); W_pst[zj] = 0; W_pr[zj] = 0
        :: W_pst[zj] == 1 && W_pr[zj] == seq && !conn[zj] -> W_pst[zj] = 2
        :: else
        fi;
        zj++
    :: else -> break
    od;
    zj = 0                               /* (a d_step must not end in a loop) */
}

inline leader_gone() {
    L_ver = 0; L_own = 0; L_id = NONE; L_st = 0; L_ep = 0;
    trigger(WLD, EV_W_LD, 1)           /* NodeDeleted */
}

#ifdef WAKE
/* the wake (issue 18): the touch (setData of node m's election znode with seq s, the
   same data, version -1) in a writer's multi: NONODE when that registration
   is gone (the multi fails as a whole) ... */
inline touch_check(m, s) {
    if :: s == 0 || REG[m] != s -> zrc = NONODE :: else fi
}
/* ... and, applied, NodeDataChanged for m's own-znode watch */
inline touch_fire(m) {
    T(printf("TRACE zk: touch of node %d's znode (watch %d)\n", m, W_mn[m]));
    if
    :: W_mn[m] == 1 && conn[m] -> evsend(m, EV_W_MINE, 0, 0, 0, 0, 0); W_mn[m] = 0
    :: W_mn[m] == 1 && !conn[m] -> W_mn[m] = 2
    :: else
    fi
}
#endif

/* a check op on elected (zoo_check_op_init) */
inline check_elected(v) {
    if
    :: E_ver == 0 -> zrc = NONODE
    :: E_ver != 0 && E_ver != v -> zrc = BADVERSION
    :: else -> zrc = OK
    fi
}

/* Apply request (qk, qa, qb, qc, qd) of node n atomically. nr: the reply is lost
   (the connection dropped after the server applied it): no reply, and no
   watch is registered for n (the client registers watches on replies). */
inline zk_apply(n, nr) {
    zrc = OK; x0 = 0; x1 = 0; x2 = 0; x3 = 0;
    T(printf("TRACE zk: apply %d of node %d (%d %d %d %d), reply lost %d\n", qk, n, qa, qb, qc, qd, nr));
    if
    :: qk == Q_GET_EL ->
        if
        :: E_ver == 0 -> zrc = NONODE      /* a get on a missing znode sets no watch */
        :: else -> x0 = E_ver; x1 = E_ld; x2 = E_ep; x3 = E_rg;
#ifdef DR16
            if :: E_hd -> x3 = x3 + 64 :: else fi;
#endif
#ifdef GATE
            if :: E_wk -> x3 = x3 + 128 :: else fi;
#endif
            if :: !nr -> W[WEL].s[n] = 1 :: else fi
        fi
    :: qk == Q_EX_EL ->
        zrc = (E_ver == 0 -> NONODE : OK);
        if :: !nr -> W[WEL].s[n] = 1 :: else fi
    :: qk == Q_GET_LD ->
        if
        :: L_ver == 0 -> zrc = NONODE
        :: else -> x0 = L_ver; x1 = L_own; x2 = L_id * 4 + L_st; x3 = L_ep;
            if :: !nr -> W[WLD].s[n] = 1 :: else fi
        fi
    :: qk == Q_EX_LD ->
        zrc = (L_ver == 0 -> NONODE : OK);
        if :: !nr -> W[WLD].s[n] = 1 :: else fi
    :: qk == Q_REGISTER ->
        if
        :: REG[n] != 0 -> zrc = NODEEXISTS
        :: else ->
            bounds_ok = (nextseq < MAXSEQ);
            assert(bounds_ok);
            REG[n] = nextseq; nextseq++; x0 = REG[n];
#ifdef FAST
            MV[n] = 0;                  /* a new election znode: version 0 */
#endif
#ifdef STANDING
            MD[n] = 0;                  /* ... its data: the node's id */
#endif
            trigger(WCH, EV_W_CH, 0)
        fi
    :: qk == Q_FIND_MINE -> x0 = REG[n]      /* the guid is per session: REG[n] is ours */
    :: qk == Q_STAT_MINE -> x0 = qa; zrc = ((qa != 0 && REG[n] == qa) -> OK : NONODE)
#ifdef WAKE
        ; x1 = qb;                      /* qb: the re-arm of the wake or of a reconnect */
#ifdef FAST
        x2 = (zrc == OK -> MV[n] : 0);  /* the fast handover: its stat's version */
#endif
#ifdef STANDING
        ; x3 = (zrc == OK -> MD[n] : 0)  /* the standing successor: its data (a get) */
#endif
        if :: zrc == OK && !nr -> W_mn[n] = 1 :: else fi   /* the wake (issue 18): the own-znode watch */
#endif
    :: qk == Q_LIST ->
        x0 = qa; x1 = REG[0]; x2 = REG[1]; x3 = REG[2];
        if :: qa && !nr -> W[WCH].s[n] = 1 :: else fi
    :: qk == Q_EX_PRED ->
        zrc = ((qa != 0 && (REG[0] == qa || REG[1] == qa || REG[2] == qa)) -> OK : NONODE);
        /* a child watch (getChildren): set only on a znode that is there */
        if :: !nr && zrc == OK -> W_pr[n] = qa; W_pst[n] = 1 :: else fi
    :: qk == Q_GET_HIST ->
        if
        :: H_ver == 0 -> zrc = NONODE
        :: else -> x0 = H_ver; x1 = H_ep
        fi
    :: qk == Q_DECIDE ->
#ifdef RESIGN
        /* issue 18 B: qd = epoch + 16 * next_epoch, qe = the successor */
        zs = qd / 16; qd = qd % 16;
#endif
#ifdef GATE
        /* the wake gate: qb + 128 when the decision says wake */
        wkb = qb / 128; qb = qb % 128;
#endif
        /* op 1: elected, set at version qa-1 or created when qa == 0 */
        if
        :: qa == 0 && E_ver != 0 -> zrc = NODEEXISTS
        :: qa != 0 && E_ver == 0 -> zrc = NONODE
        :: qa != 0 && E_ver != 0 && E_ver != qa -> zrc = BADVERSION
        :: else
        fi;
        /* op 2: history, the same with qb */
        if
        :: zrc == OK && qb == 0 && H_ver != 0 -> zrc = NODEEXISTS
        :: zrc == OK && qb != 0 && H_ver == 0 -> zrc = NONODE
        :: zrc == OK && qb != 0 && H_ver != 0 && H_ver != qb -> zrc = BADVERSION
        :: else
        fi;
#ifdef WAKE
        /* op 3 (issue 18, the wake): a decision naming a node other than the writer
           at a new epoch touches that registration's znode (the named node
           qc % 4, its seq (qc % 64) / 4); MUT_NOWAKE: never */
        tch = 0;
#ifndef MUT_NOWAKE
        if
#ifdef GATE
        :: n == OLD_NODE -> skip        /* the wake gate: an old elector wakes nobody */
#endif
        :: zrc == OK && qc % 4 != NONE && qc % 4 != n && (E_ver == 0 || E_ep != qd) ->
            tch = 1; touch_check(qc % 4, (qc % 64) / 4)
        :: else
        fi;
#endif
#endif
        if
        :: zrc == OK ->
#ifndef DR16
            if :: qc >= 128 -> SWP = 0; qc = qc - 128 :: else fi;   /* acknowledged */
#else
            if
            :: qc >= 128 ->                                          /* acknowledged */
                /* S9: a scheduled request only once due; S10: paused, it
                   moves nothing (the decision keeps the leader) */
                S9_sched_not_early = (SCH != 1);
                assert(S9_sched_not_early);
#ifdef PAUSED
                S10_paused_refused = (SCH != 2 || (qc - 128) % 4 == E_ld);
                assert(S10_paused_refused);
#endif
                SWP = 0; SCH = 0; qc = qc - 128
            :: else
            fi;
            E_hd = (qc >= 64); x3 = E_hd; qc = qc % 64;               /* the hold */
#endif
            E_ver = (qa == 0 -> 1 : E_ver + 1); E_ld = qc % 4; E_rg = qc / 4; E_ep = qd;
#ifdef GATE
            E_wk = wkb;
#endif
            H_ver = (qb == 0 -> 1 : H_ver + 1); H_ep = qd;
            trigger(WEL, EV_W_EL, 0)
#ifdef RESIGN
            ;
            /* issue 18 B: successor in the same multi (next_epoch zs, the
               successor qe: node + 4 * seq, node NONE: no entry) */
            if :: E_ep > mx_ep -> mx_ep = E_ep :: else fi;
            S_ver++; S_ev = E_ver; S_ep = zs; S_sd = qe;
            S_lrg = (E_ld == NONE -> 0 : E_rg);
#ifdef DIRECT_SO
            S_hv = H_ver;
#endif
            trigger(WSU, EV_W_SU, 0)
#endif
#ifdef WAKE
            ;
#ifdef FAST
            /* rule 1: the elector's wake is two set ops (+2); S19's ghost */
            E_ho = 0;
            if :: tch -> MV[E_ld] = MV[E_ld] + EL_BUMP; bounds_ok = (MV[E_ld] < 200); assert(bounds_ok) :: else fi;
#endif
#ifdef STANDING
            if :: tch -> MD[E_ld] = 0 :: else fi;   /* the wake's data: the id */
#endif
            if :: tch -> touch_fire(E_ld) :: else fi
#endif
        :: else -> qc = qc % 64
        fi;
#ifdef WAKE
        tch = 0;
#endif
        x0 = qc % 4; x1 = qd; x2 = qc / 4
#ifdef GATE
        ; x1 = qd + 128 * wkb; wkb = 0  /* the wake gate: the reply says what was written */
#endif
#ifdef RESIGN
        ; x3 = qe                       /* the successor written with it */
#ifdef SELF_SUCC
        /* 574a8bb: the reply says what the write made of `successor`: its
           version (x0 / 4; the multi's set op's stat) and next_epoch (x2 / 16) */
        ; x0 = x0 + 4 * (zrc == OK -> S_ver : 0); x2 = x2 + 16 * zs;
        bounds_ok = (S_ver < 64);
        assert(bounds_ok)
#endif
#endif
#ifdef FAST
    :: qk == Q_CREATE || qk == Q_SPEC ->
        if
        :: qk == Q_SPEC ->
            /* the fast handover's multi: [check own election znode (its
               registration qe, version qd = w+1), check elected (qa =
               V+1), create leader (epoch qb = e_V+1, READY when qc)];
               MUT_SPEC_NOSELF: without the first, MUT_SPEC_NOELECTED
               without the second */
#ifndef MUT_SPEC_NOSELF
            if
            :: REG[n] == 0 || REG[n] != qe -> zrc = NONODE
            :: REG[n] != 0 && REG[n] == qe && MV[n] != qd -> zrc = BADVERSION
            :: else
            fi;
#endif
#ifndef MUT_SPEC_NOELECTED
            if :: zrc == OK -> check_elected(qa) :: else fi;
#endif
            skip
        :: else ->
#else
    :: qk == Q_CREATE ->
#endif
#ifdef MUT_CREATE_NOCHECK
        zrc = OK;
#elif defined(MUT_PIPE_NOCHECK)
        /* mutant (issue 18 A): the direct READY create (qc) does not check elected */
        if :: qc -> zrc = OK :: else -> check_elected(qa) fi;
#else
        check_elected(qa);
#endif
#ifdef FAST
            skip
        fi;
#endif
        if
        :: zrc == OK && L_ver != 0 -> zrc = NODEEXISTS
        :: else
        fi;
        if
        :: zrc == OK ->
            S4_leader_writes_follow_decision = (E_ld == n && E_rg == REG[n] && E_ep == qb);
            assert(S4_leader_writes_follow_decision);
#ifdef FAST
            /* S19: the speculative create lands on the handover it predicted
               (elected at V+1 written by a handover naming this registration
               at e_V+1): the design's own claim, PROTOCOL "Why it is safe" */
            if
            :: qk == Q_SPEC ->
                S19_spec_over_handover = (E_ho && E_ver == qa && E_ld == n && E_rg == REG[n] && E_ep == qb);
                assert(S19_spec_over_handover)
#ifdef REACH_FAST
                ; R_fast_reached = 0; assert(R_fast_reached)
#endif
            :: else
            fi;
#endif
#ifdef REACH_DSO
            /* reachability: a create under a decision that a direct
               switchover wrote (E_ho: no handover with REACH_DSO) */
            if
            :: E_ho && (REACH_DSO != 2 || qk == Q_SPEC) -> R_dso_reached = 0; assert(R_dso_reached)
            :: else
            fi;
#endif
            L_ver = 1; L_own = SID(n); L_id = n; L_st = ST_PROGRESS; L_ep = qb;
            if
            :: qc ->                    /* issue 18 A: created READY (a READY write: S2) */
                S2_ready_epochs_increase = (qb > srv_ep || (qb == srv_ep && n == srv_nd));
                assert(S2_ready_epochs_increase);
                srv_ep = qb; srv_nd = n; L_st = ST_READY
            :: else
            fi;
            trigger(WLD, EV_W_LD, 0)
        :: else
        fi;
        x0 = qb
    :: qk == Q_READY ->
#ifdef MUT_READY_NOCHECK
        zrc = OK;
#else
        check_elected(qa);
#endif
        if
        :: zrc == OK && L_ver == 0 -> zrc = NONODE
        :: zrc == OK && L_ver != 0 && L_ver != qb -> zrc = BADVERSION
        :: else
        fi;
        if
        :: zrc == OK ->
            S4_leader_writes_follow_decision = (E_ld == n && E_rg == REG[n] && E_ep == qc && L_own == SID(n));
            assert(S4_leader_writes_follow_decision);
            S2_ready_epochs_increase = (qc > srv_ep || (qc == srv_ep && n == srv_nd));
            assert(S2_ready_epochs_increase);
            srv_ep = qc; srv_nd = n;
            L_ver++; L_id = n; L_st = ST_READY; L_ep = qc;
            trigger(WLD, EV_W_LD, 0)
        :: else
        fi;
        x0 = qc
    :: qk == Q_RETAKE ->
        check_elected(qa);
        if
        :: zrc == OK && L_ver == 0 -> zrc = NONODE
        :: zrc == OK && L_ver != 0 && L_ver != qb -> zrc = BADVERSION
        :: else
        fi;
        if
        :: zrc == OK ->
            S4_leader_writes_follow_decision = (E_ld == n && E_rg == REG[n] && E_ep == qc && L_own == SID(n));
            assert(S4_leader_writes_follow_decision);
            L_ver++; L_id = n; L_st = ST_PROGRESS; L_ep = qc;
            trigger(WLD, EV_W_LD, 0)
        :: else
        fi;
        x0 = qc
#ifdef RESIGN
    :: qk == Q_GET_SU ->
        if
        :: S_ver == 0 -> zrc = NONODE
        :: else -> x0 = S_ver; x1 = S_ev; x2 = S_ep * 16 + S_lrg; x3 = S_sd;
            if :: !nr -> W[WSU].s[n] = 1 :: else fi
        fi
    :: qk == Q_SUCC || qk == Q_APPEND ->
        /* the elector: check elected qa; Q_APPEND: history at version qb
           gets epoch qe % 16; successor := next_epoch qe / 16, leader seq
           qc, successor qd */
        check_elected(qa);
        if
        :: zrc == OK && qk == Q_APPEND && H_ver != qb -> zrc = (H_ver == 0 -> NONODE : BADVERSION)
        :: else
        fi;
#ifdef STANDING
        /* qd >= 128: the standing successor's naming (two set ops of its
           election znode, data id + " successor"): NONODE when that
           registration is gone (succession_wake_ops) */
        if :: zrc == OK && qd >= 128 -> touch_check((qd % 128) % 4, (qd % 128) / 4) :: else fi;
#endif
        if
        :: zrc == OK ->
            if :: qk == Q_APPEND -> H_ver++; H_ep = qe % 16 :: else fi;
            S_ver++; S_ev = E_ver; S_ep = qe / 16; S_lrg = qc; S_sd = qd % 128;
#ifdef DIRECT_SO
            S_hv = H_ver;
#endif
            trigger(WSU, EV_W_SU, 0)
#ifdef STANDING
            ; if
            :: qd >= 128 && REG[(qd % 128) % 4] == (qd % 128) / 4 ->
                MD[(qd % 128) % 4] = 1;
                MV[(qd % 128) % 4] = MV[(qd % 128) % 4] + NAME_BUMP;
                bounds_ok = (MV[(qd % 128) % 4] < 200); assert(bounds_ok);
                touch_fire((qd % 128) % 4)
            :: else
            fi
#endif
        :: else
        fi;
        x0 = qe % 16
#ifdef SELF_SUCC
        /* 574a8bb: the record written and the version it produced */
        ; x1 = (zrc == OK -> S_ver : 0); x2 = qc + 16 * (qe / 16); x3 = qd
#endif
#ifdef STANDING
        ; x3 = qd                       /* (qd >= 128: the naming went with it) */
#endif
    :: qk == Q_LEAVE ->
        /* unnominate of the leader: qb != 0: the handover (check successor
           at version qb, set elected at version qc to node + 4 * seq qd,
           epoch qe); qa != 0: delete the leader znode at version qa; delete
           the registration. x0: the handover was in it; x1: the failed op
           (1 handover, 2 leader, 3 registration) */
        x0 = (qb != 0);
        if
        :: qb != 0 ->
#ifndef MUT_SUCC_NOCHECK
            if :: S_ver != qb -> zrc = BADVERSION; x1 = 1 :: else fi;
#endif
#ifndef MUT_SUCC_STALE
            if :: zrc == OK && E_ver != qc -> zrc = (E_ver == 0 -> NONODE : BADVERSION); x1 = 1 :: else fi;
#else
            if :: zrc == OK && E_ver == 0 -> zrc = NONODE; x1 = 1 :: else fi;   /* set: no version */
#endif
            skip
        :: else
        fi;
        /* the ordinary leave (qb == 0): its release checks elected at
           version qc (0: no check; bug 3's fix); refused: as the leader's
           op (x1 = 2) */
        if
        :: zrc == OK && qb == 0 && qa != 0 && qc != 0 && E_ver != qc ->
            zrc = (E_ver == 0 -> NONODE : BADVERSION); x1 = 2
        :: else
        fi;
        if
        :: zrc == OK && qa != 0 && L_ver == 0 -> zrc = NONODE; x1 = 2
        :: zrc == OK && qa != 0 && L_ver != 0 && L_ver != qa -> zrc = BADVERSION; x1 = 2
        :: else
        fi;
        if :: zrc == OK && REG[n] == 0 -> zrc = NONODE; x1 = 3 :: else fi;
#ifdef WAKE
        /* the wake (issue 18): the handover touches the successor's znode (the last
           op; 4 when it is gone); MUT_NOWAKE: not */
        tch = 0;
#ifndef MUT_NOWAKE
        if
#ifdef GATE
        :: n == OLD_NODE -> skip        /* the wake gate: an old leader's handover wakes nobody */
#endif
        :: zrc == OK && qb != 0 && qd % 4 != n ->
            tch = 1; touch_check(qd % 4, qd / 4);
            if :: zrc != OK -> x1 = 4 :: else fi
        :: else
        fi;
#endif
#endif
        if
        :: zrc == OK ->
            if
            :: qb != 0 ->
                /* S16: the handover's epoch is new; S17: it is the choice of
                   the record now current, made for the decision it replaces
                   and for this leader's registration */
                S16_handover_epoch_fresh = (qe > mx_ep && qe > srv_ep);
                assert(S16_handover_epoch_fresh);
                S17_handover_current_record = (S_ev == E_ver && S_lrg == REG[n] && S_sd == qd && S_ep == qe);
                assert(S17_handover_current_record);
                E_ver++; E_ld = qd % 4; E_rg = qd / 4; E_ep = qe; mx_ep = qe
#ifdef FAST
                ; E_ho = 1
#endif
#ifdef GATE
                /* the wake gate: a new leader's handover copies wake (elected
                   checked at its version: the decision it read); an old
                   one's writes none */
                ; if :: n == OLD_NODE -> E_wk = 0 :: else fi
#endif
#ifndef HO_DELETE_FIRST
                ; trigger(WEL, EV_W_EL, 0)     /* the design's op order: set elected, delete leader */
#endif
            :: else
            fi;
            if
            :: qa != 0 ->
                S5_stop_before_delete = !ACTING(n);
                assert(S5_stop_before_delete);
                leader_gone()
            :: else
            fi;
#ifdef HO_DELETE_FIRST
            /* the ops ordered delete leader, then set elected: a successor
               gets NodeDeleted first, re-arms its exists watch, and reads
               the leader absent before it reads the decision */
            if :: qb != 0 -> trigger(WEL, EV_W_EL, 0) :: else fi;
#endif
            zt = REG[n]; REG[n] = 0;
#ifdef FAST
            MV[n] = 0;
#endif
            trigger(WCH, EV_W_CH, 0);
            trigger_pred(zt); zt = 0
#ifdef WAKE
            ; W_mn[n] = 0;              /* its NodeDeleted: the leaver is gone */
#ifdef FAST
            /* rule 1: the handover's wake is one set op (+1) */
            if :: tch -> MV[qd % 4] = MV[qd % 4] + 1; bounds_ok = (MV[qd % 4] < 200); assert(bounds_ok) :: else fi;
#endif
#ifdef STANDING
            if :: tch -> MD[qd % 4] = 0 :: else fi; /* the wake's data: the id */
#endif
            if :: tch -> touch_fire(qd % 4) :: else fi
#endif
        :: else
        fi
#ifdef WAKE
        ; tch = 0
#endif
#endif
    :: qk == Q_DELETE || qk == Q_FENCE ->
        /* bug 3's fix (README, "Bugs found", 3): the delete of the leader
           znode at version qa in one multi with an op on `elected` at
           version qb (the sender's view; 0: none, the plain delete).
           Q_DELETE (leader_delete): [check elected, delete leader];
           Q_FENCE (watchdog_fire's +leader-fenced): [set elected (the
           same content: its version moves), delete leader]. Either op
           refused: nothing applied; x0 = 1 when it was the op on
           `elected` (the reply's results[0]). The model's set writes the
           server's content, which is the elector's view of that version
           (an `elected` deleted and written again at the same version,
           MAX_LOSE, is the one case where they could differ) */
        if :: qb != 0 -> check_elected(qb); x0 = (zrc != OK) :: else fi;
        if
        :: zrc == OK && L_ver == 0 -> zrc = NONODE
        :: zrc == OK && L_ver != 0 && L_ver != qa -> zrc = BADVERSION
        :: else
        fi;
        if
        :: zrc == OK ->
            if
            :: qk == Q_DELETE ->
                S5_stop_before_delete = !ACTING(n);
                assert(S5_stop_before_delete)
            :: qk == Q_FENCE && qb != 0 ->
                E_ver++;                /* setData elected, the same content */
#ifdef FAST
                E_ho = 0;               /* S19's ghost: not a handover's write */
#endif
                trigger(WEL, EV_W_EL, 0)
            :: else
            fi;
            leader_gone()
        :: else
        fi
    fi;
    if
    :: !nr -> evsend(n, qk, zrc, x0, x1, x2, x3)
    :: else
    fi;
    T(printf("TRACE zk:   -> rc %d (%d %d %d %d)\n", zrc, x0, x1, x2, x3))
}

/* The failure reply of a request (qk, qa..qd) keeps its token. */
inline fail_reply(n, r0) {
    if
    :: qk == Q_CREATE || qk == Q_SPEC -> evsend(n, qk, r0, qb, 0, 0, 0)
    :: qk == Q_READY || qk == Q_RETAKE -> evsend(n, qk, r0, qc, 0, 0, 0)
    :: qk == Q_STAT_MINE || qk == Q_LIST -> evsend(n, qk, r0, qa, 0, 0, 0)
#ifdef RESIGN
    :: qk == Q_LEAVE -> evsend(n, qk, r0, (qb != 0), 0, 0, 0)
#endif
    :: else -> evsend(n, qk, r0, 0, 0, 0, 0)
    fi
}

/* Session expiry on the server: ephemerals go at once, watches die. */
inline zk_expire(n) {
    T(printf("TRACE zk: session of node %d expires\n", n));
    live[n] = 0; exp_pend[n] = 0;
    W[WEL].s[n] = 0; W[WLD].s[n] = 0; W[WCH].s[n] = 0; W_pr[n] = 0; W_pst[n] = 0;
#ifdef WAKE
    W_mn[n] = 0;
#endif
#ifdef RESIGN
    W[WSU].s[n] = 0;
#endif
    /* the server deletes the session's ephemerals one by one, in an order
       of its own (a hash set's): the election znode first here, the leader
       znode first with EXP_LEADER_FIRST */
#ifdef EXP_LEADER_FIRST
    if
    :: L_ver != 0 && L_own == SID(n) -> leader_gone()
    :: else
    fi;
#endif
    if
    :: REG[n] != 0 ->
        zt = REG[n]; REG[n] = 0;
#ifdef FAST
        MV[n] = 0;
#endif
        trigger(WCH, EV_W_CH, 0);
        trigger_pred(zt); zt = 0
    :: else
    fi;
#ifndef EXP_LEADER_FIRST
    if
    :: L_ver != 0 && L_own == SID(n) -> leader_gone()
    :: else
    fi;
#endif
    /* a running client learns of it when it reaches a server again: nothing
       else reaches it meanwhile, so EXPIRED can be queued now (it is still
       processed after everything queued before it) */
    if
    :: !crashed[n] -> evsend(n, EV_EXPIRED, 0, 0, 0, 0, 0)
    :: else
    fi
}

/* The server: takes the next request of any connected live session and
   applies it; each session's requests in order. (One process for the three
   sessions: weak fairness is per process.) */
#define SRV(n) (conn[n] && live[n] && len(rq[n]) > 0)

proctype server() {
    byte n;
end_srv:
    do
    :: atomic {
        SRV(0) || SRV(1) || SRV(2) ->
        if
        :: SRV(0) -> n = 0
        :: SRV(1) -> n = 1
        :: SRV(2) -> n = 2
        fi;
        d_step {
            RQ_GET(rq[n]);
            zk_apply(n, 0);
            qk = 0; qa = 0; qb = 0; qc = 0; qd = 0; zrc = 0; x0 = 0; x1 = 0; x2 = 0; x3 = 0;
            n = 0
        }
       }
    od
}

/* A request of node n, into its FIFO. A read sent when nothing of n's is
   queued ahead of it and the connection is up is marked (eag): the node
   step applies it right after the handler (see README, "reads"). */
#define EAGER(kk) ((kk) <= Q_GET_HIST && (kk) != Q_REGISTER)

inline send(n, kk, v0, v1, v2, v3) {
    /* (an expression, not an if: the node's d_step is at spin's limit of
       jump labels) */
    eag = ((EAGER(kk) && len(rq[n]) == 0 && conn[n] && live[n]) -> 1 : eag);
    bounds_ok = (len(rq[n]) < RQ);
    assert(bounds_ok);
#ifdef RESIGN
    rq[n]!kk, v0, v1, v2, v3, sx        /* sx: 0 unless set just before (and reset after) */
#else
    rq[n]!kk, v0, v1, v2, v3
#endif
}

/* ---------------------------------------------------------------------
 * The library (group.c, register.c, elector.c, candidate.c): helpers
 * ------------------------------------------------------------------- */

inline read_elected(n) {                /* read_elected -> send_get */
    if :: CONNECTED(n) -> send(n, Q_GET_EL, 0, 0, 0, 0) :: else fi
}

inline read_leader(n) {                 /* read_leader -> send_get */
#ifdef WAKE_UW
    l_uw[n] = 0;                        /* view_read_leader_slot: watched again */
#endif
    if :: CONNECTED(n) -> send(n, Q_GET_LD, 0, 0, 0, 0) :: else fi
}

inline list_election(n, w) {            /* list_election */
    if :: CONNECTED(n) && reg[n] == RG_DONE -> send(n, Q_LIST, w, 0, 0, 0) :: else fi
}

inline send_history(n) {                /* the aget of history (no watch) */
    if :: CONNECTED(n) -> send(n, Q_GET_HIST, 0, 0, 0, 0) :: else fi
}

inline do_register(n) {                 /* do_register (ensure_paths: parents exist) */
    if
    :: CONNECTED(n) -> reg[n] = RG_PENDING; send(n, Q_REGISTER, 0, 0, 0, 0)
    :: else
    fi
}

inline registered(n, s) {               /* registered */
    my_seq[n] = s; reg[n] = RG_DONE; role[n] = R_MEMBER; czx[n] = 0; lw[n] = 0; la[n] = 0;
#ifdef STANDING
    snm[n] = 0;                         /* reg_take_mine: until its data is read */
#endif
#ifdef FAST
    mw[n] = 0;                          /* the fast handover: our create made version 0 */
#endif
#ifdef CZX_ASSUME
    /* 4dce8aa: in a group our registration created (view_absent, the
       first election znode) no STAT_MINE while we are the elector, as we
       are from it on: every decision is newer than our registration
       (my_czxid 1), nobody wakes the elector, its listing sees our znode
       go; elector_stop sends it */
    cza[n] = 0;
    if
#ifdef MUT_CZX_ANY
    /* mutant: any registration into a group with no decision in view */
    :: !he[n] -> czx[n] = 1; cza[n] = 1
#else
    :: e_df[n] && s == 1 -> czx[n] = 1; cza[n] = 1
#endif
    :: else -> if :: CONNECTED(n) -> send(n, Q_STAT_MINE, s, 0, 0, 0) :: else fi
    fi;
#else
    if :: CONNECTED(n) -> send(n, Q_STAT_MINE, s, 0, 0, 0) :: else fi;
#endif
    list_election(n, 0);
    cs = 1                              /* cand_step, last */
}

#ifdef ABSENT
/* view_arm_deferred(g, -1): watch what view_absent left unwatched (sent at
   the step's end: WK_EL reads `elected` (a get for the C's exists: found,
   it is read next anyway), WK_LD an exists of the leader znode) */
#define ARM_DEFERRED(n) wk = wk | (e_df[n] -> WK_EL : 0) | (l_df[n] -> WK_LD : 0); e_df[n] = 0; l_df[n] = 0
/* view_absent: our registration created the group (seq 1, nothing was
   under the base): `elected` and the leader znode absent without a read,
   unwatched until our own first writes (doc/PROTOCOL.md §2, "A new group") */
inline view_absent(n) {
    he[n] = 0; e_ver[n] = 0; e_ld[n] = NONE; e_ep[n] = 0; e_rg[n] = 0; e_rd[n] = 1; e_df[n] = 1;
    hl[n] = 0; l_ver[n] = 0; l_own[n] = 0; l_id[n] = NONE; l_st[n] = 0; l_ep[n] = 0; l_rd[n] = 1; l_df[n] = 1;
#ifdef WAKE_UW
    l_uw[n] = 0;
#endif
    vc = 1
}
#endif

inline elector_stop(n) {                /* elector_stop */
#ifdef ABSENT
    ARM_DEFERRED(n);                    /* others write them now */
#endif
#ifdef CZX_ASSUME
    /* 4dce8aa: a member now: its real czxid and the wake's watch (sent at
       the step's end, after the arming; a node that leaves sends none: the
       C stops its elector once the leave is answered, REG_LEAVING) */
#ifdef RESIGN
    if :: cza[n] && reg[n] == RG_DONE && !lv[n] ->
#else
    if :: cza[n] && reg[n] == RG_DONE ->
#endif
        cza[n] = 0
#ifndef MUT_STOP_NOSTAT
        ; czx[n] = 0; wk = wk | WK_STAT
#endif
    :: else
    fi;
#endif
    is_el[n] = 0; tc_ep[n] = 0;
    mseq[n].s[0] = 0; mseq[n].s[1] = 0; mseq[n].s[2] = 0;
    excl[n].s[0] = 0; excl[n].s[1] = 0; excl[n].s[2] = 0;
    wd[n] = 0; decid[n] = 0; evpend[n] = 0;
#ifdef DR16
    st[n] = 0; hk[n] = 0; fb[n] = 0; af[n] = 0;
#endif
    /* not in the C (unread until elector_start re-reads them): dead values */
    el_rd[n] = 0; hi_rd[n] = 0; hi_ep[n] = 0; hi_ver[n] = 0
#ifdef RESIGN
    ; su_w[n] = 0; su_v[n] = 0
#endif
}

inline elector_start(n) {               /* elector_start */
    is_el[n] = 1; el_rd[n] = 0; hi_rd[n] = 0; hi_ver[n] = 0;
#ifdef RESIGN
    su_w[n] = 255; su_v[n] = 255;       /* what `successor` holds is unknown: write it */
#endif
#ifdef STANDING
    su_n[n] = 255;                      /* whom its predecessor named is unknown */
#endif
#ifdef HOLDS
    /* anti-flap from elected.at_ms: the last change may be recent (its
       timer may end at once) */
    af[n] = (he[n] && e_ld[n] != NONE);
#endif
    list_election(n, 1);
    send_history(n);
#ifdef WAKE
    /* the wake (issue 18): it follows from now on: what it left unread as a quiet
       member is read (and watched) again (sent at the handler's end) */
#ifndef MUT_ELECTOR_NOREAD
    wk = (!e_rd[n] -> WK_EL : 0) + (!l_rd[n] -> WK_LD : 0);
#endif
#endif
    if
    :: he[n] && e_ld[n] != NONE &&
       !(hl[n] && l_id[n] == e_ld[n] && l_ep[n] == e_ep[n] && l_st[n] == ST_READY) ->
        wd[n] = 1; wd_ep[n] = e_ep[n]; wd_f[n] = 0
    :: else
    fi
}


/* ---- the candidate --------------------------------------------------- */

#ifdef MUT_PIPE_WORK
#define WORK_CREATE_ST 1                /* mutant: a takeover with work creates READY */
#else
#define WORK_CREATE_ST 0
#endif
inline leader_create(n) {               /* leader_create */
    role[n] = R_CREATING; r_ep[n] = e_ep[n]; r_ev[n] = e_ver[n];
    send(n, Q_CREATE, e_ver[n], e_ep[n], WORK_CREATE_ST, 0)
}

inline leader_set_ready(n) {            /* leader_set_ready */
    role[n] = R_READYING;
    send(n, Q_READY, r_ev[n], l_ver[n], r_ep[n], 0)
}

#ifdef PIPE
/* issue 18 A: a takeover with no work: one multi {check elected (the
   version that names us), create the leader znode READY at the epoch}. No
   freshness condition: the create fails (NODEEXISTS) if any leader znode is
   there, or (BADVERSION) if `elected` moved, and is handled as the PROGRESS
   create's failures are; its success is READY at once (the Q_CREATE
   reply, on_leader_create_reply) */
inline leader_create_direct(n) {
    role[n] = R_CREATING; r_ep[n] = e_ep[n]; r_ev[n] = e_ver[n];
    send(n, Q_CREATE, e_ver[n], e_ep[n], 1, 0)
}
#endif

/* bug 3's fix: the release is one multi [check elected at the view's
   version, delete leader at its version]: a next leader's znode, created at
   version 0 again once ours is gone, needs a new decision or a fence, and
   both move `elected`'s version. No `elected` in view (e_ver 0): the plain
   delete (nobody can be elected before it is written again).
   MUT_RELEASE_NO_CHECK: the plain delete always (bug 3 back) */
#ifdef MUT_RELEASE_NO_CHECK
#define REL_EV(n) 0
#else
#define REL_EV(n) e_ver[n]
#endif
/* ... and the elector's fence (watchdog_fire) [set elected at the version
   in view, the same content; delete leader]. MUT_FENCE_NO_BUMP: the plain
   delete (no rewrite of `elected`) */
#ifdef MUT_FENCE_NO_BUMP
#define FENCE_EV(n) 0
#else
#define FENCE_EV(n) e_ver[n]
#endif
/* ... and the ordinary leave's release (reg_unregister). MUT_LEAVE_NO_CHECK:
   without the check */
#ifdef MUT_LEAVE_NO_CHECK
#define LEAVE_EV(n) 0
#else
#define LEAVE_EV(n) e_ver[n]
#endif
inline leader_delete(n) {               /* leader_delete */
    if
    :: !MINE(n) -> role[n] = (reg[n] == RG_DONE -> R_MEMBER : R_NONE); cs = 1  /* released */
    :: else -> role[n] = R_DELETING; send(n, Q_DELETE, l_ver[n], REL_EV(n), 0, 0)
    fi
}

/* The lease check of start_takeover (fence.c's rule at the way in): a
   group goes active only while now < heard_ms + F. The model has no clock:
   the check fails where the server has already expired the session (it
   expires at >= heard + T, and T/2 >= F covers the clocks); a node whose
   reply or resume is handled after that is not ACTIVE for a moment
   (EXP_OK let the server expire it: it was not ACTIVE yet). A refusal
   while the session lives (a reply slower than F) is not modelled: the
   node ends FENCED as a takeover started, self-fenced and stepped down at
   once does (README, "Issue 18, the fast handover", finding 3) */
#ifdef MUT_NO_LEASE
#define LEASE_OUT(n) 0                  /* mutant: no lease check */
#else
#define LEASE_OUT(n) (!live[n])
#endif

/* start_takeover, the lease run out: not active (no takeover callback),
   FENCED as after the self-fence's step-down (fence_stepdown, fence_viewed
   false: cand_step waits for a view read once heard again, then retakes or
   releases). fenced() without its reads: they would wait for this session
   to be heard again, and it has expired; its EV_EXPIRED, queued, drops
   them and resets the group (and no branch: the node's d_step is at
   spin's limit) */
inline lease_refused(n) {
    role[n] = R_FENCED; e_rd[n] = 0; l_rd[n] = 0
}

inline start_takeover(n) {              /* start_takeover: the callback runs on */
    if
    :: LEASE_OUT(n) -> lease_refused(n)
    :: else ->
        role[n] = R_PROGRESS; t_ok[n] = 0;
        actv[n] = 1;                     /* cand_set_active(g, true) */
#ifdef PIPE
        /* issue 18 A: a takeover with no work is done at once (a retake's:
           cand_step, the tail of the step, sends READY: PROGRESS with t_ok,
           still named) */
        if
        :: NOOP(n) -> t_ok[n] = 1; cs = 1
        :: else -> app[n] = 1; app_ep[n] = r_ep[n]
        fi
#else
        app[n] = 1; app_ep[n] = r_ep[n]
#endif
    fi
}

/* FENCED (or SUSPENDED with nothing acting), heard again, still elected at
   the epoch of our leader znode: set it back to PROGRESS, checked against
   `elected` and the znode's version, then take over again (leader_retake) */
inline leader_retake(n) {
    role[n] = R_CREATING; r_ep[n] = e_ep[n]; r_ev[n] = e_ver[n];
    send(n, Q_RETAKE, e_ver[n], l_ver[n], e_ep[n], 0)
}

/* FENCED: decide on a view read after the step-down ended (fence_viewed) */
inline fenced(n) {
    role[n] = R_FENCED; e_rd[n] = 0; l_rd[n] = 0;
    read_elected(n); read_leader(n)
}

/* stepdown(): the step-down callback runs (A_SD ends it) if the application
   may be acting, else the release follows at once (cand_stepdown_result) */
inline start_stepdown(n) {
#ifdef MUT_DELETE_FIRST
    /* mutant: delete the znode first, stop believing when the reply comes */
    if
    :: MINE(n) -> send(n, Q_DELETE, l_ver[n], REL_EV(n), 0, 0)
    :: else -> role[n] = (reg[n] == RG_DONE -> R_MEMBER : R_NONE)
    fi
#else
    role[n] = R_STEPPING;
    if
    :: actv[n] -> sd[n] = 1
    :: else -> leader_delete(n)
    fi
#endif
}

/* -leadership-lost with nothing to release: the application stops */
inline lost(n) {
    if :: actv[n] && !sd[n] -> sd[n] = 1 :: else fi
}

inline became_ready(n) {                /* +ready / +resumed: S2 on beliefs */
    if
    :: live[n] ->
        S2_ready_epochs_increase = (r_ep[n] > last_ep || (r_ep[n] == last_ep && last_nd == n));
        assert(S2_ready_epochs_increase);
        last_ep = r_ep[n]; last_nd = n;
        rdy_ep[n] = r_ep[n]
    :: else
    fi
#ifdef RESIGN
    ;
    /* issue 18 B: a leader watches `successor`; 574a8bb: not the elector,
       which takes it from its own writes (view_watch_successor) */
#ifdef SELF_SUCC
    if :: CONNECTED(n) && !is_el[n] -> send(n, Q_GET_SU, 0, 0, 0, 0) :: else fi
#else
    if :: CONNECTED(n) -> send(n, Q_GET_SU, 0, 0, 0, 0) :: else fi
#endif
#endif
}

#ifdef RESIGN
/* issue 18 B: the leave of a leader that resigned, after its step-down:
   the handover (ho, and the view has a successor entry for this leader's
   registration, valid for the elected version it holds) or the ordinary
   leave multi */
#ifdef MUT_SUCC_STALE
#define SEV_OK(n) 1                     /* mutant: a record for any elected version */
#else
#define SEV_OK(n) (s_ev[n] == e_ver[n])
#endif
/* a leader keeps its view of `successor` (READY, and a leaver's step-down) */
#define SU_VIEW(n) (role[n] == R_READY || (lv[n] && role[n] == R_STEPPING))
#define HANDOVER_OK(n) (s_ver[n] != 0 && s_sd[n] != NONE && s_lrg[n] == my_seq[n] && he[n] && \
                        e_ld[n] == n && e_rg[n] == my_seq[n] && SEV_OK(n))
#ifdef FAST
/* rule 2: under a decision that says fast_handover the handover's epoch is
   e_V + 1, else the ordinary leave (the elector decides) */
#define HO_EPOCH_OK(n) (!FASTFLAG(n) || s_ep[n] == e_ep[n] + 1)
/* the speculative create's status: READY for a takeover with no work */
#ifdef PIPE
#define SPEC_ST(n) NOOP(n)
#else
#define SPEC_ST(n) 0
#endif
#else
#define HO_EPOCH_OK(n) 1
#endif
inline leave_send(n, ho) {
    role[n] = R_DELETING; rrt[n] = 0;
    zu = (MINE(n) -> l_ver[n] : 0);
    if
    :: ho && HANDOVER_OK(n) && HO_EPOCH_OK(n) ->
        T(printf("TRACE node %d: leaves, hands over to %d at epoch %d\n", n, s_sd[n] % 4, s_ep[n]));
        sx = s_ep[n];
        send(n, Q_LEAVE, zu, s_ver[n], e_ver[n], s_sd[n]); sx = 0
    :: else ->
        T(printf("TRACE node %d: leaves (ordinary)\n", n));
        /* bug 3's fix: its release checks elected at the view's version
           (reg_unregister; none in view, or nothing to release: no check) */
        send(n, Q_LEAVE, zu, 0, (zu != 0) * LEAVE_EV(n), 0)
    fi;
    zu = 0
}

/* the registration is gone: the node left for good */
inline gone(n) {
    role[n] = R_NONE; reg[n] = RG_NONE; my_seq[n] = 0; czx[n] = 0; pred[n] = 0; lw[n] = 0; la[n] = 0;
    l_ver[n] = 0; l_own[n] = 0; rrt[n] = 0;
    if :: is_el[n] -> elector_stop(n) :: else fi
}
#endif

inline takeover_result(n, epoch, ok) {  /* takeover_result */
    if
    :: role[n] == R_PROGRESS && r_ep[n] == epoch ->
        if
        :: ok -> t_ok[n] = 1;
#ifdef PIPE
            fin_ep[n] = epoch;          /* ghost (S18): the work is done */
#endif
            leader_set_ready(n)
        :: else ->
            f_ep[n] = epoch; t_ok[n] = 0;
#ifdef MUT_RELEASE_FIRST
            /* mutant: the release first, the step-down after it (the old
               library, zkelectd running the stepdown hook on its own) */
            leader_delete(n); sd[n] = 1
#else
            /* undo the takeover, then release (cand_takeover_result) */
            start_stepdown(n)
#endif
        fi
    :: else
    fi
}

/* cand_step: the candidate's state machine (candidate.c cand_step) */
inline cand_step(n) {
    if
    :: reg[n] != RG_DONE || !CONNECTED(n) || !e_rd[n] || !l_rd[n] || !czx[n] -> skip
#ifdef RESIGN
    /* issue 18 B: a node that resigned only leaves (after a step-down that
       ended cut off, or a leave to send again after a fresh read) */
    :: !(reg[n] != RG_DONE || !CONNECTED(n) || !e_rd[n] || !l_rd[n] || !czx[n]) && lv[n] ->
        if
        :: role[n] == R_FENCED || (role[n] == R_DELETING && rrt[n]) -> leave_send(n, 0)
        :: else
        fi
#endif
    :: else ->
        /* a decision for an earlier registration is never acted on */
        named = (he[n] && e_ld[n] == n && e_rg[n] == my_seq[n]);
        mine = MINE(n);
        fall = 0;
        if
        :: role[n] == R_SUSPENDED ->
            if
            :: named && mine && hl[n] && l_ep[n] == e_ep[n] && l_id[n] == n ->
                r_ep[n] = e_ep[n]; r_ev[n] = e_ver[n];
                if
                :: l_st[n] == ST_READY && actv[n] -> role[n] = R_READY; became_ready(n)
                :: l_st[n] == ST_READY && !actv[n] -> leader_retake(n)  /* nothing acts */
#ifdef PIPE
                :: else -> start_takeover(n); if :: NOOP(n) && role[n] == R_PROGRESS -> leader_set_ready(n) :: else fi
#else
                :: else -> start_takeover(n)
#endif
                fi
            :: else ->                  /* cand_lost */
                if
                :: actv[n] -> start_stepdown(n)
                :: else -> role[n] = R_MEMBER; leader_delete(n)
                fi
            fi
        :: role[n] == R_FENCED ->
            if
            :: named && mine && hl[n] && l_ep[n] == e_ep[n] && l_id[n] == n && f_ep[n] != e_ep[n] ->
#ifdef MUT_RESUME_FENCED
                /* mutant: resume READY as a suspended leader does */
                if
                :: l_st[n] == ST_READY -> r_ep[n] = e_ep[n]; r_ev[n] = e_ver[n]; role[n] = R_READY; became_ready(n)
                :: else -> leader_retake(n)
                fi
#else
                leader_retake(n)
#endif
            :: else -> leader_delete(n) /* ours: release it; else nothing to release */
            fi
        :: role[n] == R_READY || role[n] == R_PROGRESS ->
            if
            /* -leadership-lost; act again only on a freshly read `elected` */
            :: !mine -> role[n] = R_MEMBER; lost(n); e_rd[n] = 0; read_elected(n)
            :: else ->
                if
                :: !he[n] -> skip       /* elected unreadable: hold on */
                :: else ->
                    if
                    :: !named || e_ep[n] != r_ep[n] -> start_stepdown(n)
                    :: else ->
                        r_ev[n] = e_ver[n];
                        if
                        :: role[n] == R_PROGRESS && t_ok[n] -> leader_set_ready(n)
                        :: else
                        fi
                    fi
                fi
            fi
        :: role[n] == R_DELETING && rrt[n] -> rrt[n] = 0; leader_delete(n)
        :: role[n] == R_CREATING || role[n] == R_READYING || role[n] == R_STEPPING ||
           (role[n] == R_DELETING && !rrt[n]) -> skip
        :: else -> fall = 1
        fi;
        if
        :: fall && actv[n] -> skip       /* the application still stops: nothing new yet */
        :: fall && !actv[n] ->           /* ROLE_MEMBER / ROLE_WAITING */
            if
            :: !named ->
                if :: role[n] == R_WAITING -> role[n] = R_MEMBER :: else fi;
                if :: mine -> r_ep[n] = l_ep[n]; leader_delete(n) :: else fi
            :: named && f_ep[n] == e_ep[n] -> skip
            :: named && f_ep[n] != e_ep[n] && mine -> r_ep[n] = l_ep[n]; leader_delete(n)
            :: named && f_ep[n] != e_ep[n] && !mine && l_ver[n] != 0 -> role[n] = R_WAITING
#ifdef PIPE
            :: named && f_ep[n] != e_ep[n] && !mine && l_ver[n] == 0 && NOOP(n) -> leader_create_direct(n)
            :: named && f_ep[n] != e_ep[n] && !mine && l_ver[n] == 0 && !NOOP(n) -> leader_create(n)
#else
            :: named && f_ep[n] != e_ep[n] && !mine && l_ver[n] == 0 -> leader_create(n)
#endif
            fi
        :: else
        fi;
        named = 0; mine = 0; fall = 0
    fi
}

/* ---- the elector ----------------------------------------------------- */

/* decide_write: mode 0 DECIDE_NEW (epoch above every epoch seen), 1
   DECIDE_RESTORE (the live leader's epoch), 2 DECIDE_ACK (the current
   decision re-written to acknowledge an operator's switchover request).
   A decision written while a switchover request is pending acknowledges it
   (the top bit of the payload byte). */
inline decide_write(n, who, mode) {
    ep = (he[n] -> e_ep[n] : 0);
    if :: hl[n] && l_ep[n] > ep -> ep = l_ep[n] :: else fi;
    if :: hi_ep[n] > ep -> ep = hi_ep[n] :: else fi;
    if
    :: mode == 0 -> ep++
    :: mode == 1 -> ep = l_ep[n]
    :: mode == 2 -> ep = e_ep[n]
    fi;
    bounds_ok = (ep < MAXEPOCH);
    assert(bounds_ok);
    rg = (mode == 2 -> e_rg[n] : (who == NONE -> 0 : mseq[n].s[who]));
    hi_ep[n] = ep;                      /* zke_history_push on the local copy */
    decid[n] = 1;
#ifdef GATE
    /* the wake gate (decision_wake): a new elector says wake while no old
       node is a member in its view; an old elector never */
#ifdef MUT_WAKE_ALWAYS
    wkb = (n != OLD_NODE);              /* mutant: members' records not looked at */
#else
    wkb = (n != OLD_NODE && mseq[n].s[OLD_NODE] == 0);
#endif
#endif
    T(printf("TRACE node %d: decides epoch %d leader %d (reg %d), mode %d\n", n, ep, who, rg, mode));
#ifdef STANDING
    /* the decision's wake writes its id back: named no more (group_wake_ops) */
    su_n[n] = ((su_n[n] != 255 && su_n[n] % 4 == who) -> 255 : su_n[n]);
#endif
#ifdef RESIGN
    /* issue 18 B: `successor` in the same multi: the policy's choice with
       `who` not eligible, next_epoch = the highest epoch seen + 1 */
    succ_of(n, who);
    zs = (he[n] -> e_ep[n] : 0);
    if :: hl[n] && l_ep[n] > zs -> zs = l_ep[n] :: else fi;
    if :: hi_ep[n] > zs -> zs = hi_ep[n] :: else fi;
    zs++;
    sx = zu;
#ifdef GATE
    send(n, Q_DECIDE, e_ver[n], hi_ver[n] + 128 * wkb, who + 4 * rg + (SWACK -> 128 : 0) + (hb -> 64 : 0), ep + 16 * zs);
#else
    send(n, Q_DECIDE, e_ver[n], hi_ver[n], who + 4 * rg + (SWACK -> 128 : 0) + (hb -> 64 : 0), ep + 16 * zs);
#endif
    zs = 0; zu = 0; sx = 0;
#else
#ifdef GATE
    send(n, Q_DECIDE, e_ver[n], hi_ver[n] + 128 * wkb, who + 4 * rg + (SWACK -> 128 : 0) + (hb -> 64 : 0), ep);
#else
    send(n, Q_DECIDE, e_ver[n], hi_ver[n], who + 4 * rg + (SWACK -> 128 : 0) + (hb -> 64 : 0), ep);
#endif
#endif
    rg = 0; ep = 0; hb = 0
#ifdef GATE
    ; wkb = 0
#endif
}

#ifdef RESIGN
/* issue 18 B: the successor of `who` (zu: node + 4 * seq; NONE: no entry):
   the policy run with `who` not eligible. The model's policy for it is the
   lowest candidate (nodeid): the successor record's protocol does not
   depend on which node the policy picks. */
inline succ_of(n, who) {
    zu = NONE;
    if :: who != NONE && who != 2 && CAND(n, 2) -> zu = 2 :: else fi;
    if :: who != NONE && who != 1 && CAND(n, 1) -> zu = 1 :: else fi;
    if :: who != NONE && who != 0 && CAND(n, 0) -> zu = 0 :: else fi;
    if :: zu != NONE -> zu = zu + 4 * mseq[n].s[zu] :: else fi
}

/* the standing successor (succession_wake_ops): the succession's write
   names zu (+128 in its qd) when it is another node than the elector, not
   the one this elector named last, under a decision saying fast_handover.
   (The model does not name a node no more: a node named before follows
   until its next wake writes its id back.) */
#ifdef STANDING
#define SU_NAMING(n) ((zu != NONE && zu % 4 != (n) && zu != su_n[n] && FASTFLAG(n)) -> 128 : 0)
#else
#define SU_NAMING(n) 0
#endif

/* issue 18 B: no decision to write. A decision the elector did not write
   (a handover: history lacks its epoch) gets its history entry and a new
   `successor` (one multi, checked against `elected`); else `successor` is
   written alone when it changed (members, exclusions) */
inline succ_upkeep(n) {
    if
    :: he[n] && e_ld[n] != NONE && cpres ->
        succ_of(n, e_ld[n]);
        zs = e_ep[n];
        if :: hl[n] && l_ep[n] > zs -> zs = l_ep[n] :: else fi;
        if :: hi_ep[n] > zs -> zs = hi_ep[n] :: else fi;
        zs++;
        if
        :: hi_ep[n] < e_ep[n] ->
            T(printf("TRACE node %d: appends history epoch %d, successor %d\n", n, e_ep[n], zu));
            decid[n] = 1; su_w[n] = zu; su_v[n] = e_ver[n];
            sx = e_ep[n] + 16 * zs;
            send(n, Q_APPEND, e_ver[n], hi_ver[n], e_rg[n], zu + SU_NAMING(n)); sx = 0
        :: hi_ep[n] >= e_ep[n] && (su_w[n] != zu || su_v[n] != e_ver[n]) ->
            T(printf("TRACE node %d: writes successor %d\n", n, zu));
            su_w[n] = zu; su_v[n] = e_ver[n];
            sx = 16 * zs;
            send(n, Q_SUCC, e_ver[n], 0, e_rg[n], zu + SU_NAMING(n)); sx = 0
        :: else
        fi;
        zs = 0; zu = 0
    :: else
    fi
}
#endif

/* elector_eval, first half: readiness, the current leader and the policy's
   options. The policy is a nondeterministic choice among the eligible, live,
   not excluded members; like every shipped policy it keeps a present
   current leader that can still lead, and honours an operator's switchover
   request by choosing another node that can lead (or, when there is none,
   keeping the leader and acknowledging the request). The switchover znode
   is read when the request is made (its read is not modelled apart). */
inline eval_prepare(n) {
    go = 0; opts = 0;
    if
    :: !ELECTOR_READY(n) -> skip
    :: else ->
        if
        :: decid[n] -> evpend[n] = 1
        :: else ->
            go = 1;
            cur = (he[n] -> e_ld[n] : NONE);
            cpres = EPRESENT(n);
            /* `elected` gone or unreadable while a live leader znode is
               there: that leader is current, keeping it restores the decision */
            restore = (!he[n] && hl[n] && l_id[n] != NONE && mseq[n].s[l_id[n]] != 0);
            if :: restore -> cur = l_id[n]; cpres = 1 :: else fi;
#ifdef DR16
            hk[n] = 0;
#endif
#ifdef SETTLE
            /* settle (issue 16): cold - no leader znode, `elected` names no
               live member, and since this registration neither a leader
               znode nor a decision naming a live leader was seen - no
               decision until EXPECT members are listed or the settle timer
               passed. A hold starting is written (an acknowledgement of the
               decision there is, else a no-leader decision). */
            if :: hl[n] || cpres -> sn[n] = 1 :: else fi;
            if
            :: COLD(n) && st[n] != 2 && !EXPECT_MET(n) ->
                if :: st[n] == 0 -> st[n] = 1 :: else fi;
                hk[n] = HK_SETTLE; go = 0; hw = !e_hd[n]
            :: else
            fi;
#endif
#ifdef MUT_HOLD_ON_LOSS
            /* mutant: the anti-flap hold also on a forced move */
            if
            :: go && af[n] && !(cur != NONE && cpres && CANDC(n, cur)) && !SWPEND(n) ->
                hk[n] = HK_FLAP; go = 0; hw = !e_hd[n]
            :: else
            fi;
#endif
            if
            :: !go -> skip
            :: go && cur != NONE && cpres && CANDC(n, cur) && SWPEND(n) ->
                /* move away from a healthy leader */
                if :: cur != 0 && CAND(n, 0) -> opts = opts | 1 :: else fi;
                if :: cur != 1 && CAND(n, 1) -> opts = opts | 2 :: else fi;
                if :: cur != 2 && CAND(n, 2) -> opts = opts | 4 :: else fi;
#ifdef PAUSED
#ifndef MUT_SCHED_PAUSED
                /* a due scheduled switchover of a paused group is refused */
                if :: SCH == 2 -> opts = 0 :: else fi;
#endif
#endif
                skip
            :: go && cur != NONE && cpres && CANDC(n, cur) && !SWPEND(n) ->
                opts = (cur == 0 -> 1 : (cur == 1 -> 2 : 4));
#ifdef HOLDS
                /* the policy prefers BT (preempt on, a better site back):
                   a voluntary automatic move, held until BT has been seen
                   able to lead for failback_delay_ms (fb) and
                   min_move_interval_ms passed since the last leader change
                   (af); the hold starting is written (an acknowledgement) */
                if
                :: BT != NONE && BT != cur && CAND(n, BT) ->
                    if :: fb[n] == 0 -> fb[n] = 1 :: else fi;
                    if
                    :: fb[n] == 2 && !af[n] -> opts = (BT == 0 -> 1 : (BT == 1 -> 2 : 4))
                    :: else -> hk[n] = (fb[n] != 2 -> HK_FAILBACK : HK_FLAP); hw = !e_hd[n]
                    fi
                :: else -> fb[n] = 0
                fi;
#endif
                skip
            :: else ->
                /* forced (no current leader, lost, drained, excluded): never held */
                if :: CAND(n, 0) -> opts = opts | 1 :: else fi;
                if :: CAND(n, 1) -> opts = opts | 2 :: else fi;
                if :: CAND(n, 2) -> opts = opts | 4 :: else fi
            fi
        fi
    fi
}

/* the policy's choice (the one nondeterministic step of elector_eval) */
inline eval_choose() {
    if
    :: go && (opts & 1) -> ch = 0
    :: go && (opts & 2) -> ch = 1
    :: go && (opts & 4) -> ch = 2
    :: go && opts == 0 -> ch = NONE
    :: !go -> skip
    fi
}

/* "No change, no write" (elector.c elector_eval). Before the fix the test
   was the node id alone, "strcmp(in_members[chosen].id, cur) == 0": nothing
   was written when the policy picked the current leader's id even when that
   id was back under a new registration (its session expired and it
   registered again) that `elected` does not name - and cand_step never acts
   on a decision for an earlier registration: nobody led, for ever (README,
   "Bugs found by the model", 1). The fix: no change only when the current
   leader is present with the registration `elected` names. MUT_NEWREG
   restores the old test. */
#ifdef MUT_NEWREG
#define SAME(x) ((x) == cur)
#else
#define SAME(x) ((x) == cur && cpres)
#endif

/* elector_eval, second half: what to write */
inline eval_finish(n) {
    if
    :: !go && hw ->                     /* a hold starts: write it */
        hb = 1;
        if
        :: he[n] -> decide_write(n, e_ld[n], 2)
        :: else -> decide_write(n, NONE, 0)
        fi
    :: go && ch == NONE ->
        if
        :: SWPEND(n) && cpres ->
            decide_write(n, cur, 2)     /* a refused switchover keeps the leader: ack only */
        :: !(SWPEND(n) && cpres) && cur == NONE && SWPEND(n) ->
            decide_write(n, NONE, 2)    /* nobody leads already: ack only */
        :: !(SWPEND(n) && cpres) && cur == NONE && !SWPEND(n) -> skip
        :: !(SWPEND(n) && cpres) && cur != NONE -> decide_write(n, NONE, 0)
        fi
    :: go && ch != NONE && restore && ch == l_id[n] -> decide_write(n, ch, 1)
    :: go && ch != NONE && !(restore && ch == l_id[n]) && SAME(ch) ->
        if
        :: SWPEND(n) -> decide_write(n, cur, 2)   /* acknowledge only */
        :: !SWPEND(n) && hw -> hb = 1; decide_write(n, cur, 2)   /* a hold starts */
#ifdef RESIGN
        :: else -> succ_upkeep(n)       /* no change: no decision to write */
#else
        :: else -> skip                 /* no change: no write */
#endif
        fi
    :: go && ch != NONE && !(restore && ch == l_id[n]) && !SAME(ch) ->
        decide_write(n, ch, 0)
#ifdef MUT_DRAIN_NO_HANDOVER
        /* mutant: the drained leader's znode goes with the new decision,
           instead of the leader stepping down and releasing it */
        ;
        if
        /* (the plain delete, no op on `elected`: the decision just sent
           moves its version) */
        :: cur != NONE && cpres && DRN == cur && hl[n] && l_id[n] == cur -> send(n, Q_FENCE, l_ver[n], 0, 0, 0)
        :: else
        fi
#endif
    :: else
    fi;
    go = 0; opts = 0; cur = 0; cpres = 0; restore = 0; ch = 0; hw = 0
}

/* Values the C keeps but never reads again before overwriting them (see
   cand_step, takeover_result, group_on_timer): zeroed after every step so
   that states differing only in them are one state. */
inline normalize(n) {
    if :: role[n] != R_DELETING -> rrt[n] = 0 :: else fi;
    if :: role[n] != R_STEPPING -> fnc[n] = 0 :: else fi;
    if :: actv[n] -> skip :: else -> frz[n] = 0 fi;
    if
    :: role[n] == R_CREATING || role[n] == R_PROGRESS || role[n] == R_READYING || role[n] == R_READY -> skip
    :: else -> r_ep[n] = 0
    fi;
    if
    :: role[n] == R_CREATING || role[n] == R_PROGRESS || role[n] == R_READYING || role[n] == R_READY -> skip
    :: else -> r_ev[n] = 0
    fi;
    if :: role[n] == R_PROGRESS || role[n] == R_READYING -> skip :: else -> t_ok[n] = 0 fi;
    if :: app[n] -> skip :: else -> app_ep[n] = 0 fi;
    if :: wd[n] -> skip :: else -> wd_f[n] = 0 fi;     /* (wd_ep is read: kept) */
    if :: reg[n] == RG_DONE -> skip :: else -> czx[n] = 0 fi;
#ifdef CZX_ASSUME
    if :: reg[n] == RG_DONE -> skip :: else -> cza[n] = 0 fi;
#endif
#ifdef RESIGN
    if
#ifdef SELF_SUCC
    :: SU_VIEW(n) || is_el[n] -> skip   /* the elector's copy from its own writes (succ_have) */
#else
    :: SU_VIEW(n) -> skip
#endif
    :: else -> s_ver[n] = 0; s_ev[n] = 0; s_ep[n] = 0; s_lrg[n] = 0; s_sd[n] = 0
    fi;
#endif
#ifdef DR16
    if :: he[n] -> skip :: else -> e_hd[n] = 0 fi;
#endif
    skip
}

/* ---------------------------------------------------------------------
 * A node: the library thread (loop.c loop_main -> process -> group.c),
 * the application's takeover, and the timers (group_on_timer). Each step
 * is one event (or timer, or API call) handled to completion, as the
 * library thread does.
 * ------------------------------------------------------------------- */
/* the network's pending steps (proctype net), defined here for the timers */
#define CAN_RECONNECT(n) (!conn[n] && live[n] && !crashed[n] && !exp_pend[n] && !fz[n])
/* The server may expire a session cut off beyond the timeout only once its
   node is not ACTIVE, unless frozen: the self-fence starts after F unheard
   and ends within D, F + D <= T/2, and the other half of T allows for this
   machine's clock running down to half the server's (fence.c) */
#ifdef MUT_NO_FENCE
#define EXP_OK(n) 1
#else
#define EXP_OK(n) (!actv[n] || fz[n])
#endif
#define EXP_DUE(n) (exp_pend[n] && live[n] && EXP_OK(n))
#define NET_IDLE (!CAN_RECONNECT(0) && !CAN_RECONNECT(1) && !CAN_RECONNECT(2) && \
                  !(crashed[0] && live[0]) && !(crashed[1] && live[1]) && !(crashed[2] && live[2]) && \
                  !EXP_DUE(0) && !EXP_DUE(1) && !EXP_DUE(2) && \
                  !(fz[0] && !live[0]) && !(fz[1] && !live[1]) && !(fz[2] && !live[2]))

#define A_EVENT 1
#define A_APP   2
#define A_WD    3
#define A_EXCL  4
#define A_SD    5
#define A_FENCE 6
#define A_SETTLE 7
#define A_FB    8
#define A_AF    9
#define A_DUE   10
#define A_RESIGN 11
#ifdef RESIGN
/* issue 18 B: the application unnominates the READY leader (zkelectd: SIGTERM) */
#define RESIGN_EN(n) (n_res < MAX_RESIGN && role[n] == R_READY && !lv[n] && !sd[n])
#else
#define RESIGN_EN(n) 0
#endif

#define WD_EN(n) (is_el[n] && wd[n] && CONNECTED(n) && TA_OK(n) && (QUIET || FAULT_OK(n_early, MAX_EARLY)))
/* The watchdog is re-armed for a decision not yet watched, and also when
   the elected node has no leader znode at all (a retake at the same epoch
   failed after READY: README "Bugs found", 2; elector_view_changed's
   leader_version < 0) */
#ifndef MUT_NO_REARM_GONE
#define WD_NEW(n) (wd_ep[n] != e_ep[n] || l_ver[n] == 0)
#else
#define WD_NEW(n) (wd_ep[n] != e_ep[n])
#endif
#ifndef MUT_WD_STALE
#define WD_FREE(n) (!wd[n] || wd_ep[n] != e_ep[n])
#else
#define WD_FREE(n) (!wd[n])
#endif
#define EXCL_EN(n) (ELECTOR_READY(n) && (excl[n].s[0] || excl[n].s[1] || excl[n].s[2]))
/* issue 16's timers, each at any moment once started (abstract time): the
   settle timer, the failback delay, the anti-flap interval, a scheduled
   switchover's due time (converted once at read to the elector's clock) */
#ifdef DR16
#ifdef MUT_SETTLE_FOREVER
#define SETTLE_EN(n) 0
#else
#define SETTLE_EN(n) (is_el[n] && st[n] == 1)
#endif
#ifdef MUT_HOLD_FOREVER
#define FB_EN(n) 0
#define AF_EN(n) 0
#else
/* The failback delay and the anti-flap interval end, as the watchdog
   fires, only when everything delivered has been processed (QUIET: they
   are seconds), and also only once the network has nothing pending (a
   crashed node's session has expired, a cut-off client has reconnected):
   else the model moves to a preferred node that crashed, the watchdog
   moves back, and again, for ever - a livelock only because the model puts
   no time bound on a session's expiry (README) */
#define FB_EN(n) (is_el[n] && fb[n] == 1 && QUIET && NET_IDLE)
#define AF_EN(n) (is_el[n] && af[n] && QUIET && NET_IDLE)
#endif
#define DUE_EN(n) (is_el[n] && SCH == 1)
#define DRT_EN(n) (SETTLE_EN(n) || FB_EN(n) || AF_EN(n) || DUE_EN(n))
#else
#define DRT_EN(n) 0
#endif
/* the application's step-down ends (zkelect_stepdown_done); a takeover
   still running ends first (zkelectd runs its hooks one at a time) */
#define SD_EN(n) (sd[n] && !app[n])
/* The self-fence (fence.c): a node whose application may be acting and that
   the server does not hear (cut off, or its server silent: the model's
   disconnect, noticed or not yet) steps down once nothing was heard for F.
   Any moment while cut off: a reconnect before F is the short disconnect. */
#ifdef MUT_NO_FENCE
#define FENCE_EN(n) 0
#else
#define FENCE_EN(n) (actv[n] && !sd[n] && !conn[n] && \
                     (role[n] == R_PROGRESS || role[n] == R_READYING || role[n] == R_READY || \
                      role[n] == R_SUSPENDED))
#endif

proctype node(byte i) {
    byte act, ch, cur, ee, opts;
    bool eep, cpres, restore, ok, go, eag, hw;
    byte nps;                           /* after the dispatch: 1 next_pred, 2 elector_start,
                                           3 and 5 the predecessor's watch, 4 a listing */

end_node:
    do
    :: atomic {
        !crashed[i] && !fz[i] && (len(ev[i]) > 0 || app[i] || WD_EN(i) || EXCL_EN(i) || SD_EN(i) ||
                                   FENCE_EN(i) || DRT_EN(i) || RESIGN_EN(i)) ->
        if
        :: len(ev[i]) > 0 -> act = A_EVENT
        :: app[i] -> act = A_APP; ok = 1
        :: app[i] && FAULT_OK(n_tfail, MAX_TFAIL) -> act = A_APP; ok = 0
        :: WD_EN(i) -> act = A_WD
        :: EXCL_EN(i) && excl[i].s[0] -> act = A_EXCL; ch = 0
        :: EXCL_EN(i) && excl[i].s[1] -> act = A_EXCL; ch = 1
        :: EXCL_EN(i) && excl[i].s[2] -> act = A_EXCL; ch = 2
        :: SD_EN(i) -> act = A_SD
        :: FENCE_EN(i) -> act = A_FENCE
#ifdef RESIGN
        :: RESIGN_EN(i) -> act = A_RESIGN
#endif
#ifdef DR16
        :: SETTLE_EN(i) -> act = A_SETTLE
        :: FB_EN(i) -> act = A_FB
        :: AF_EN(i) -> act = A_AF
        :: DUE_EN(i) -> act = A_DUE
#endif
        fi;
        d_step {
        if
        :: act == A_EVENT ->
        ev[i]?k, rc, a, b, c, d;
        T(printf("TRACE node %d: event %d rc %d (%d %d %d %d) role %d\n", i, k, rc, a, b, c, d, role[i]));
        if
        /* loop.c on_session + group_on_session */
        :: k == EV_CONNECTING ->
            if
            :: c_sess[i] == CS_CONNECTING -> skip
            :: else ->
                c_sess[i] = CS_CONNECTING; noticed[i] = 1;
#ifndef MUT_NO_SUSPEND
                /* a leader suspends; a step-down goes on (never undone), a
                   release is sent again once heard */
                if
                :: role[i] == R_CREATING || role[i] == R_PROGRESS || role[i] == R_READYING ||
                   role[i] == R_READY -> role[i] = R_SUSPENDED
                :: role[i] == R_DELETING -> rrt[i] = 1
                :: else
                fi
#endif
            fi
        :: k == EV_CONNECTED ->
            if
            :: c_sess[i] == CS_CONNECTED -> skip
            :: else ->
                c_sess[i] = CS_CONNECTED; c_sid[i] = SID(i); noticed[i] = 0;
                /* group_resync */
                e_rd[i] = 0; l_rd[i] = 0;
#ifdef WAKE
                /* the wake (issue 18): the own-znode watch first (a re-arm cut off by
                   the disconnect is not known to the client: SetWatches
                   does not restore it), then the reads */
#ifndef MUT_RESYNC_NOREARM
#ifdef CZX_ASSUME
                /* (4dce8aa: no watch to re-arm while the czxid is assumed) */
                if :: reg[i] == RG_DONE && my_seq[i] != 0 && !cza[i] -> send(i, Q_STAT_MINE, my_seq[i], 1, 0, 0) :: else fi;
#else
                if :: reg[i] == RG_DONE && my_seq[i] != 0 -> send(i, Q_STAT_MINE, my_seq[i], 1, 0, 0) :: else fi;
#endif
#endif
#endif
#ifdef ABSENT
                e_df[i] = 0; l_df[i] = 0;       /* a reconnect reads everything */
#endif
#ifdef FIRST_DEFER
                /* a group never viewed whose registration is still to come:
                   its first view waits for the registration's reply, which
                   tells whether it created the group (group_resync) */
                if
                :: vw[i] != 2 && reg[i] == RG_PENDING -> vw[i] = 1
                :: else -> read_elected(i); read_leader(i)
                fi;
#else
                read_elected(i); read_leader(i);
#endif
                if
                :: reg[i] == RG_PENDING -> do_register(i)
                :: reg[i] == RG_UNKNOWN -> reg[i] = RG_PENDING; send(i, Q_FIND_MINE, 0, 0, 0, 0)
                :: reg[i] == RG_DONE ->
                    if
                    :: is_el[i] -> el_rd[i] = 0; hi_rd[i] = 0; list_election(i, 1); send_history(i)
                    :: else -> list_election(i, 0)
                    fi
                :: else
                fi
            fi
        :: k == EV_EXPIRED ->
            if :: is_el[i] -> elector_stop(i) :: else fi;
            lost(i);                    /* -leadership-lost: the application stops */
            role[i] = (reg[i] != RG_NONE -> R_MEMBER : R_NONE);
            if :: reg[i] != RG_NONE -> reg[i] = RG_PENDING :: else fi;
#ifdef RESIGN
            if :: lv[i] -> reg[i] = RG_NONE; role[i] = R_NONE; rrt[i] = 0 :: else fi;  /* gone */
#endif
            my_seq[i] = 0; l_ver[i] = 0; e_ver[i] = 0;
            hl[i] = 0; he[i] = 0; l_rd[i] = 0; e_rd[i] = 0;
            l_own[i] = 0; l_id[i] = NONE; l_st[i] = 0; l_ep[i] = 0;     /* unread while !hl */
            e_ld[i] = NONE; e_ep[i] = 0; e_rg[i] = 0;                 /* unread while !he */
#ifdef WAKE_UW
            /* (the C clears it at the new session's resync, view_first: no
               wake is handled before it, the registration is pending) */
            l_uw[i] = 0;
#endif
#ifdef GATE
            e_wk[i] = 0;
#endif
#ifdef ABSENT
            e_df[i] = 0; l_df[i] = 0;   /* (the new handle's resync reads everything) */
#endif
#ifdef DR16
            e_hd[i] = 0; sn[i] = 0;     /* a new registration: not seen anything yet */
#endif
            /* loop.c: session_stop, session_id = 0, session_start: a new
               handle; everything queued for the old one is dropped */
            c_sid[i] = 0; c_sess[i] = CS_CONNECTING; noticed[i] = 0;
            do :: len(ev[i]) > 0 -> ev[i]?_, _, _, _, _, _ :: else -> break od;
            do :: len(rq[i]) > 0 -> RQ_DROP(rq[i]) :: else -> break od;
            inc[i]++;
            bounds_ok = (inc[i] < 4);
            assert(bounds_ok);
            live[i] = 1; conn[i] = 1;
            evsend(i, EV_CONNECTED, 0, 0, 0, 0, 0)
        /* group_on_watch */
#ifdef WAKE
        /* the wake (issue 18): a group that does not follow drops the notification
           (no request) and marks that part of its view unread */
        :: k == EV_W_EL && !FOLLOWS(i) -> e_rd[i] = 0
        :: k == EV_W_EL && FOLLOWS(i) -> read_elected(i)
#ifdef WAKE_UW
        :: k == EV_W_LD && !FOLLOWS(i) -> l_rd[i] = 0; l_uw[i] = 1
#else
        :: k == EV_W_LD && !FOLLOWS(i) -> l_rd[i] = 0
#endif
        :: k == EV_W_LD && FOLLOWS(i) ->
#else
        :: k == EV_W_EL -> read_elected(i)
        :: k == EV_W_LD ->
#endif
            if
            :: a ->                     /* deleted: act at once, re-arm with an exists-watch */
                hl[i] = 0; l_ver[i] = 0; l_own[i] = 0; l_id[i] = NONE; l_st[i] = 0; l_ep[i] = 0;
                l_rd[i] = 1;
                if :: CONNECTED(i) -> send(i, Q_EX_LD, 0, 0, 0, 0) :: else fi;
                vc = 1
#ifdef LD_STALE
            /* group_on_watch: "created or changed: stale until read again" */
            :: else -> l_rd[i] = 0; read_leader(i)
#else
            :: else -> read_leader(i)
#endif
            fi
        :: k == EV_W_CH -> if :: is_el[i] -> list_election(i, 1) :: else fi
#ifdef MUT_LEAVING_NOWALK
        /* mutant (the C before 9d6ed04): one that leaves lets it go */
        :: k == EV_W_PRED -> if :: a == pred[i] && !lv[i] -> nps = 1 :: else fi
#else
        :: k == EV_W_PRED -> if :: a == pred[i] -> nps = 1 :: else fi   /* next_pred */
#endif
        :: k == EV_W_SW -> if :: is_el[i] -> ee = 1 :: else fi     /* on_switchover_reply */
#ifdef WAKE
        /* the wake (issue 18): the wake (own znode touched by a decision naming this
           node): re-arm first, then read `elected`, back to back (a later
           touch notifies again, an earlier decision is in the read);
           MUT_WAKE_LATE reads `elected` first. The leader znode: an exists
           only if a notification of it was let go (l_uw) and the session
           is connected, which makes the view unread until its reply
           (register.c reg_on_watch -> group.c view_follow: a slot marked
           unwatched). WAKE_EXISTS_ALWAYS: the model of before, the exists
           always, the view left as it is */
        :: k == EV_W_MINE ->
            if
            :: reg[i] == RG_DONE && my_seq[i] != 0 ->
#ifdef WAKE_UW
                wk = WK_MINE + WK_EL + ((l_uw[i] && CONNECTED(i)) -> WK_LD : 0);
                l_rd[i] = (l_rd[i] && !(wk & WK_LD))
#else
                wk = WK_MINE + WK_EL + WK_LD
#endif
            :: else
            fi
#ifdef FAST
            /* the fast handover (rule 4): a member whose read decision V names
               another node at e_V speculates that this wake is that node's
               handover: after the reads, [check own w+1, check elected V+1,
               create leader at e_V+1]. Role CREATING until the reply, as a
               create of the normal path */
            ; if
            :: SPEC_OK(i) ->
                wk = wk + WK_SPEC; role[i] = R_CREATING; r_ep[i] = e_ep[i] + 1; r_ev[i] = e_ver[i] + 1
            :: else
            fi
#endif
#endif
        :: k == EV_W_CFG -> if :: is_el[i] -> ee = 1 :: else fi    /* the config / member record re-read */
#ifdef RESIGN
        /* issue 18 B: a leader reads `successor` again */
        :: k == EV_W_SU ->
            if :: SU_VIEW(i) && CONNECTED(i) -> send(i, Q_GET_SU, 0, 0, 0, 0) :: else fi
        :: k == Q_GET_SU ->
            if
            :: SU_VIEW(i) && rc == OK ->
                s_ver[i] = a; s_ev[i] = b; s_ep[i] = c / 16; s_lrg[i] = c % 16; s_sd[i] = d
            :: SU_VIEW(i) && rc == NONODE -> s_ver[i] = 0
            :: else
            fi
        :: k == Q_SUCC || k == Q_APPEND ->
#ifdef SELF_SUCC
            /* 574a8bb: a successful write is the elector's copy (its entry
               names this registration; else none); b: its version, c: the
               leader's seq + 16 * next_epoch, d: the successor. (Its
               elected version is e_ver: the write checked it, and every
               read answered since was applied before it.) MUT_SU_NOTAKE:
               not taken; MUT_SU_KEEP: the version taken, the content of
               the copy before kept */
            if
            :: rc == OK && is_el[i] && c % 16 == my_seq[i] && my_seq[i] != 0 && d % 4 != NONE ->
#if defined(MUT_SU_KEEP)
                if :: s_ver[i] != 0 -> s_ver[i] = b :: else fi
#elif !defined(MUT_SU_NOTAKE)
                s_ver[i] = b; s_ev[i] = e_ver[i]; s_ep[i] = c / 16; s_lrg[i] = c % 16; s_sd[i] = d % 128
#else
                skip
#endif
            :: rc == OK && is_el[i] && !(c % 16 == my_seq[i] && my_seq[i] != 0 && d % 4 != NONE) ->
                s_ver[i] = 0; s_ev[i] = 0; s_ep[i] = 0; s_lrg[i] = 0; s_sd[i] = 0
            :: else
            fi;
#endif
            if
            :: rc == OK && k == Q_APPEND && is_el[i] ->
                decid[i] = 0; hi_ver[i] = (hi_ver[i] != 0 -> hi_ver[i] + 1 : 1); hi_ep[i] = a; eep = 1
            :: rc == OK && k == Q_SUCC -> skip
            :: rc != OK && k == Q_APPEND && is_el[i] ->
                decid[i] = 0; su_w[i] = 255; eep = 1;
                hi_rd[i] = 0;
                if
                :: rc != CONNLOSS -> e_rd[i] = 0; read_elected(i); send_history(i)
                :: else
                fi
            :: rc != OK && k == Q_SUCC && is_el[i] -> su_w[i] = 255
            :: else
            fi
#ifdef STANDING
            /* the standing successor: named (succession_named), or not known
               (an expression: the d_step is at spin's limit of jump labels) */
            ; su_n[i] = (is_el[i] -> (rc == OK -> (d >= 128 -> d % 128 : su_n[i]) : 255) : su_n[i])
#endif
        :: k == Q_LEAVE ->
            if
            :: role[i] != R_DELETING || !lv[i] -> skip
            :: rc == OK || b == 3 -> gone(i); cs = 1     /* left (or the registration was gone) */
            :: rc != OK && b != 3 && rc != CONNLOSS && a ->
                leave_send(i, 0)        /* the handover refused: the ordinary leave */
            :: else ->
                /* refused or unanswered: leave again once the leader znode is
                   re-read; BADVERSION (the leader znode or `elected` moved,
                   bug 3's fix): `elected` too (reg_on_unregister_reply) */
#if defined(WAKE) || defined(ABSENT)
                /* (sent at the step's end, WK_EL: the node's d_step is at
                   spin's limit) */
                wk = wk | (rc == BADVERSION -> WK_EL : 0); e_rd[i] = (e_rd[i] && rc != BADVERSION);
#else
                if :: rc == BADVERSION -> e_rd[i] = 0; read_elected(i) :: else fi;
#endif
                rrt[i] = 1; l_rd[i] = 0; read_leader(i)
            fi
#endif
        /* group_on_reply */
        :: k == Q_GET_EL ->             /* on_elected_reply */
            if
            :: rc == NONODE ->
                he[i] = 0; e_ver[i] = 0; e_ld[i] = NONE; e_ep[i] = 0; e_rg[i] = 0;
#ifdef GATE
                e_wk[i] = 0;
#endif
                if :: CONNECTED(i) -> send(i, Q_EX_EL, 0, 0, 0, 0) :: else fi
            :: rc == OK ->
                e_ver[i] = a; e_ld[i] = b; e_ep[i] = c; e_rg[i] = d; he[i] = 1;
#ifdef GATE
                e_wk[i] = d / 128; d = d % 128; e_rg[i] = d;
#endif
#ifdef DR16
                e_rg[i] = d % 64; e_hd[i] = d / 64;
#endif
                e_rd[i] = 1; vc = 1
            :: else
            fi
        :: k == Q_EX_EL ->
            if
            :: rc == OK -> read_elected(i)
            :: rc == NONODE -> e_rd[i] = 1; vc = 1
            :: else
            fi
        :: k == Q_GET_LD ->             /* on_leader_reply */
            if
            :: rc == NONODE ->
                hl[i] = 0; l_ver[i] = 0; l_own[i] = 0; l_id[i] = NONE; l_st[i] = 0; l_ep[i] = 0;
                if :: CONNECTED(i) -> send(i, Q_EX_LD, 0, 0, 0, 0) :: else fi;
                l_rd[i] = 1; vc = 1
            :: rc == OK ->
                l_ver[i] = a; l_own[i] = b; l_id[i] = c / 4; l_st[i] = c % 4; l_ep[i] = d;
#ifdef SETTLE
                sn[i] = 1;              /* a leader znode seen: never cold again */
#endif
                hl[i] = 1; l_rd[i] = 1; vc = 1
            :: else
            fi
        :: k == Q_EX_LD ->
            if
#ifdef LD_STALE
            /* on_leader_reply: "there is one again: the view is stale
               until it is read" */
            :: rc == OK -> l_rd[i] = 0; read_leader(i)
#else
            :: rc == OK -> read_leader(i)
#endif
            :: rc == NONODE -> l_rd[i] = 1; vc = 1
#ifdef WAKE
                /* the wake (issue 18): the wake's exists may answer for a view still
                   holding the znode (elsewhere the view is clear already) */
                ; hl[i] = 0; l_ver[i] = 0; l_own[i] = 0; l_id[i] = NONE; l_st[i] = 0; l_ep[i] = 0
#endif
            :: else
            fi
        :: k == Q_REGISTER ->           /* on_register_reply */
#ifdef FIRST_DEFER
            /* the first view, deferred: our multi created the group (the
               first registration, seq 1): view_absent; else read it */
            if
            :: vw[i] == 1 ->
                vw[i] = 2;
                if
                :: rc == OK && a == 1 -> view_absent(i)
                :: else -> read_elected(i); read_leader(i)
                fi
            :: else
            fi;
#endif
            if
            :: reg[i] != RG_PENDING -> skip
            :: else ->
                if
                :: rc == OK -> registered(i, a)
                :: rc == CONNLOSS -> reg[i] = RG_UNKNOWN
                :: rc == NODEEXISTS ->
                    /* REQ_CHECK_ID finds our own session (ids are unique
                       and a new session registers only after the old one
                       expired): on_check_id_reply goes on with FIND_MINE */
                    send(i, Q_FIND_MINE, 0, 0, 0, 0)
                :: else -> reg[i] = RG_NONE
                fi
            fi
        :: k == Q_FIND_MINE ->          /* on_find_mine_reply */
            if
            :: reg[i] != RG_UNKNOWN && reg[i] != RG_PENDING -> skip
            :: else ->
                if
                :: rc != OK -> reg[i] = RG_UNKNOWN
                :: rc == OK && a != 0 -> registered(i, a)
                :: rc == OK && a == 0 -> do_register(i)
                fi
            fi
        :: k == Q_STAT_MINE ->          /* on_stat_mine_reply */
            if
            :: reg[i] != RG_DONE || a != my_seq[i] -> skip
            :: else ->
                if
                :: rc == OK -> czx[i] = 1; cs = 1
#ifdef FAST
                    ; mw[i] = c         /* the fast handover: w, its stat's version */
#endif
#ifdef STANDING
                    ; snm[i] = d        /* reg_take_mine: named, it follows */
#endif
#ifdef WAKE
                    ;
                    /* the wake (issue 18): the registration's STAT_MINE (not a re-arm):
                       its watch is armed now; a node that does not follow
                       reads `elected` once (a decision written since the
                       resync's read), and the leader znode if it dropped a
                       notification of it meanwhile */
#ifndef MUT_STAT_NOREAD
                    if :: !b && !FOLLOWS(i) && !DEFER_EL(i) -> wk = WK_EL + (!l_rd[i] -> WK_LD : 0) :: else fi
#endif
#endif
                :: rc == NONODE -> list_election(i, 0)
                :: else
                fi
            fi
        :: k == Q_LIST ->               /* on_list_reply */
            if
            :: rc != OK || reg[i] != RG_DONE -> skip
            :: else ->
                mine = (my_seq[i] != 0 &&
                        ((i == 0 && b == my_seq[i]) || (i == 1 && c == my_seq[i]) ||
                         (i == 2 && d == my_seq[i])));
                /* the predecessor: the highest sequence below ours */
                ep = 0;
                if :: i != 0 && b != 0 && b < my_seq[i] && b > ep -> ep = b :: else fi;
                if :: i != 1 && c != 0 && c < my_seq[i] && c > ep -> ep = c :: else fi;
                if :: i != 2 && d != 0 && d < my_seq[i] && d > ep -> ep = d :: else fi;
                lowest = (ep == 0);
                /* the next below it (reg_on_list_reply: g->lower; all
                   that is below: g->lower_all) */
                la[i] = !lowest;
                lw[i] = ((i != 0 && b != 0 && b < ep) -> b :
                         ((i != 1 && c != 0 && c < ep) -> c :
                          ((i != 2 && d != 0 && d < ep) -> d : 0)));
                if
                :: !mine ->
                    if :: is_el[i] -> elector_stop(i) :: else fi;
                    reg[i] = RG_NONE; my_seq[i] = 0;
                    do_register(i)
                :: mine && lowest ->
                    if
#ifdef RESIGN
                    /* one that leaves is the elector until its leave is
                       answered (9d6ed04: it walks on while registered);
                       not once the leave's multi is sent (REG_LEAVING) */
                    :: !is_el[i] && lv[i] && role[i] == R_DELETING -> skip
                    :: !is_el[i] && !(lv[i] && role[i] == R_DELETING) -> nps = 2
#else
                    :: !is_el[i] -> nps = 2             /* elector_start, after the dispatch */
#endif
                    :: is_el[i] && a ->
                        /* elector_members (member records read with the
                           listing) */
                        mseq[i].s[0] = b; mseq[i].s[1] = c; mseq[i].s[2] = d;
                        el_rd[i] = 1; ee = 1;
                        /* the takeover check (elector_members): still a
                           member in this fresh listing, its PROGRESS znode
                           gone: a failed takeover (watchdog_exclude) */
                        if
                        :: tc_ep[i] != 0 ->
                            if
                            :: he[i] && e_ep[i] == tc_ep[i] && wd[i] && l_ver[i] == 0 && EPRESENT(i) ->
                                S6_ready_never_takeover_failed = (rdy_ep[e_ld[i]] != e_ep[i]);
                                assert(S6_ready_never_takeover_failed);
                                wd[i] = 0; excl[i].s[e_ld[i]] = 1
                            :: else
                            fi;
                            tc_ep[i] = 0
                        :: else
                        fi
                    :: else
                    fi
                :: mine && !lowest ->
                    if :: is_el[i] -> elector_stop(i) :: else fi;
                    pred[i] = ep; nps = 3       /* its watch, after the dispatch */
                fi;
                ep = 0; lowest = 0; mine = 0
            fi
        :: k == Q_EX_PRED ->            /* on_pred_reply */
            if :: rc == NONODE -> nps = 1 :: else fi           /* next_pred */
        :: k == Q_GET_HIST ->           /* on_history_reply */
            if
            :: !is_el[i] -> skip
            :: rc == NONODE -> hi_ep[i] = 0; hi_ver[i] = 0; hi_rd[i] = 1; ee = 1
            :: rc == OK -> hi_ver[i] = a; hi_ep[i] = b; hi_rd[i] = 1; ee = 1
            :: else
            fi
        :: k == Q_DECIDE ->             /* on_decide_reply */
            decid[i] = 0;
#if defined(RESIGN) && defined(SELF_SUCC)
            zs = a / 4; a = a % 4;      /* the version of `successor` the write produced */
            zu = c / 16; c = c % 16;    /* ... and its next_epoch */
#endif
#ifdef GATE
            if :: rc == OK -> e_wk[i] = b / 128 :: else fi;
            b = b % 128;
#endif
            if
            :: rc == OK ->
#ifdef HOLDS
                /* a decision changing the leader: anti-flap starts */
                if :: a != NONE && (!he[i] || e_ld[i] != a) -> af[i] = 1 :: else fi;
#endif
#ifdef SETTLE
                if :: a != NONE -> sn[i] = 1 :: else fi;
#endif
#ifdef DR16
                e_hd[i] = d;
#endif
                he[i] = 1; e_ld[i] = a; e_ep[i] = b; e_rg[i] = c;
                e_ver[i] = (e_ver[i] != 0 -> e_ver[i] + 1 : 1);
                hi_ver[i] = (hi_ver[i] != 0 -> hi_ver[i] + 1 : 1);
#ifdef RESIGN
                su_w[i] = d; su_v[i] = e_ver[i];        /* `successor` went with it */
#ifdef SELF_SUCC
                /* 574a8bb: the record this write made is the copy a leader
                   that is the elector hands over with (view_take_successor:
                   its entry names this registration; else none) */
                if
                :: is_el[i] && a == i && c == my_seq[i] && d % 4 != NONE ->
                    s_ver[i] = zs; s_ev[i] = e_ver[i]; s_ep[i] = zu; s_lrg[i] = c; s_sd[i] = d
                :: is_el[i] && !(a == i && c == my_seq[i] && d % 4 != NONE) ->
                    s_ver[i] = 0; s_ev[i] = 0; s_ep[i] = 0; s_lrg[i] = 0; s_sd[i] = 0
                :: else
                fi;
                zs = 0; zu = 0;
#endif
#endif
#ifdef ABSENT
                /* a new group's first decision (view_absent): `elected` read
                   and watched from now on (the elector waits for that read);
                   the leader znode of a slot given to another node watched
                   now (its own after its create's reply) */
#ifndef MUT_EL_NOARM
                e_rd[i] = ((e_df[i] && is_el[i]) -> 0 : e_rd[i]);
                wk = wk | (e_df[i] -> WK_EL : 0); e_df[i] = 0;
#endif
#ifndef MUT_SLOT_NOARM
                wk = wk | ((l_df[i] && !KNOWS(i)) -> WK_LD : 0); l_df[i] = (l_df[i] && KNOWS(i));
#endif
#endif
                /* a watchdog guards one epoch: armed for a new one, left as
                   it is by a rewrite at the same (an acknowledgement, a hold,
                   an exclusion's end; the C before re-armed it, which only
                   delayed its deadline and let a fenced epoch fence again) */
                if
                :: a != NONE && (!wd[i] || wd_ep[i] != b) -> wd[i] = 1; wd_ep[i] = b; wd_f[i] = 0
                :: a != NONE && wd[i] && wd_ep[i] == b -> skip
                :: else -> wd[i] = 0
                fi;
                vc = 1; eep = 1
            :: rc == BADVERSION || rc == NODEEXISTS || rc == NONODE ->
                hi_rd[i] = 0; e_rd[i] = 0;
                read_elected(i);
#ifdef ABSENT
                e_df[i] = 0; wk = wk | (l_df[i] -> WK_LD : 0); l_df[i] = 0;
#endif
                send_history(i)
            :: else -> hi_rd[i] = 0     /* outcome unknown: resync re-reads */
            fi
#ifdef FAST
        :: k == Q_CREATE || k == Q_SPEC ->      /* on_leader_create_reply */
#else
        :: k == Q_CREATE ->             /* on_leader_create_reply */
#endif
#ifdef ABSENT
            /* a new group's leader znode (view_absent): watched from our own
               create's reply on (an answer: not CONNLOSS) */
            if
            :: l_df[i] && rc != CONNLOSS -> l_df[i] = 0; l_rd[i] = (rc == OK -> 0 : l_rd[i]); read_leader(i)
            :: else
            fi;
#endif
            if
            :: role[i] != R_CREATING || r_ep[i] != a -> skip
            :: else ->
                if
#ifdef PIPE
                :: rc == OK && NOOP(i) ->
                    /* issue 18 A: created READY: the takeover (no work) is
                       done, READY at once (start_takeover: its lease check
                       first; refused, the READY znode waits FENCED) */
                    l_ver[i] = 1; l_own[i] = c_sid[i]; l_id[i] = i; l_st[i] = ST_READY;
                    l_ep[i] = r_ep[i]; hl[i] = 1;
                    if
                    :: LEASE_OUT(i) -> lease_refused(i)
                    :: else ->
                        actv[i] = 1;    /* cand_set_active(g, true) */
                        role[i] = R_READY; became_ready(i)
                    fi
                :: rc == OK && !NOOP(i) ->
#else
                :: rc == OK ->
#endif
                    l_ver[i] = 1; l_own[i] = c_sid[i]; l_id[i] = i; l_st[i] = ST_PROGRESS;
                    l_ep[i] = r_ep[i]; hl[i] = 1;
                    start_takeover(i)
                :: rc == CONNLOSS -> role[i] = R_SUSPENDED
#ifdef FAST
                /* the speculative create refused: a member again, silently;
                   the wake's reads, answered before, gave the fresh view */
                :: rc != OK && rc != CONNLOSS && k == Q_SPEC -> role[i] = R_MEMBER; cs = 1
                :: rc == BADVERSION && k == Q_CREATE -> role[i] = R_MEMBER; read_elected(i)
                :: rc == NODEEXISTS && k == Q_CREATE -> role[i] = R_WAITING; read_leader(i)
#else
                :: rc == BADVERSION -> role[i] = R_MEMBER; read_elected(i)
                :: rc == NODEEXISTS -> role[i] = R_WAITING; read_leader(i)
#endif
                :: else -> role[i] = R_MEMBER
                fi
            fi
        :: k == Q_READY ->              /* on_leader_ready_reply */
            if
            :: role[i] != R_READYING || r_ep[i] != a -> skip
            :: else ->
                if
                :: rc == OK ->
                    role[i] = R_READY; l_ver[i]++;
                    if :: hl[i] && l_id[i] == i -> l_st[i] = ST_READY :: else fi;
                    became_ready(i)
                :: rc == CONNLOSS -> role[i] = R_SUSPENDED
                :: else -> role[i] = R_PROGRESS; read_elected(i); read_leader(i)
                fi
            fi
        :: k == Q_DELETE ->             /* on_leader_delete_reply */
#ifdef MUT_DELETE_FIRST
            if
            :: (role[i] == R_READY || role[i] == R_PROGRESS || role[i] == R_READYING) &&
               (rc == OK || (rc == NONODE && !a)) -> role[i] = R_DELETING
            :: else
            fi;
#endif
            if
            :: role[i] != R_DELETING -> skip
            :: else ->
                if
                :: rc == OK || (rc == NONODE && !a) ->
                    role[i] = (reg[i] == RG_DONE -> R_MEMBER : R_NONE);
                    l_ver[i] = 0; l_own[i] = 0; cs = 1
                :: else ->
                    /* BADVERSION (cand_release_retry): the step-down is over;
                       release again with the version a fresh read gives. No
                       answer: release again once heard (never back to a
                       leading role). a: bug 3's fix, the check of `elected`
                       refused (a decision or a fence since our view): the
                       znode may be the next leader's, read `elected` too,
                       cand_step decides again */
#if defined(WAKE) || defined(ABSENT)
                    /* (`elected`'s read sent at the step's end, WK_EL: the
                       node's d_step is at spin's limit of jump labels) */
                    wk = wk | (a -> WK_EL : 0); e_rd[i] = (e_rd[i] && !a);
#else
                    if :: a -> e_rd[i] = 0; read_elected(i) :: else fi;
#endif
                    rrt[i] = 1; l_rd[i] = 0; read_leader(i)
                fi
            fi
        :: k == Q_RETAKE ->             /* cand_on_leader_retake_reply */
            if
            :: role[i] != R_CREATING || r_ep[i] != a -> skip
            :: else ->
                if
                :: rc == OK ->
                    l_ver[i]++;
                    if :: hl[i] && l_id[i] == i -> l_st[i] = ST_PROGRESS :: else fi;
                    start_takeover(i);
                    rdy_ep[i] = 0               /* S6: a new takeover of the epoch, it may fail */
                :: else -> fenced(i); cs = 1    /* refused or unanswered: decide again */
                fi
            fi
        :: k == Q_FENCE ->              /* elector_on_fence_reply */
            /* refused because `elected` moved (x0): not the elected node's
               fault; fence again (the view is read again at the move's
               notification), not exclude at the next firing */
            if :: rc == BADVERSION && a && is_el[i] -> wd_f[i] = 0 :: else fi
        fi;
        skip
        /* ---- the application finishes its takeover (zkelect_takeover_done) ---- */
        :: act == A_APP ->
            T(printf("TRACE node %d: takeover of epoch %d done, ok %d\n", i, app_ep[i], ok));
            app[i] = 0;
            if :: !ok -> nf++; n_tfail++ :: else fi;
            takeover_result(i, app_ep[i], ok)
        /* ---- the watchdog deadline (group_on_timer) ---- */
        :: act == A_WD ->
            T(printf("TRACE node %d: watchdog fires (epoch %d, quiet %d)\n", i, wd_ep[i], QUIET));
            if :: !QUIET -> nf++; n_early++ :: else fi;
#ifdef ABSENT
            ARM_DEFERRED(i);            /* our own takeover did not come */
#endif
            wd[i] = 0;
            if
            :: !he[i] || e_ep[i] != wd_ep[i] || e_ld[i] == NONE -> skip
            :: else ->
                if
                :: hl[i] && l_ep[i] == e_ep[i] && l_id[i] == e_ld[i] && l_st[i] == ST_READY -> skip
                :: else ->
                    if
                    :: l_ver[i] != 0 && (!hl[i] || l_ep[i] < e_ep[i]) && !wd_f[i] ->
                        /* +leader-fenced: delete the old leader znode, in one
                           multi with a rewrite of `elected` at the version in
                           view (bug 3's fix; MUT_FENCE_NO_BUMP: the plain
                           delete) */
                        wd_f[i] = 1; wd[i] = 1;
                        send(i, Q_FENCE, l_ver[i], FENCE_EV(i), 0, 0)
                    :: else ->
                        /* +watchdog: exclude the elected node, elect again */
                        excl[i].s[e_ld[i]] = 1; ee = 1
                    fi
                fi
            fi
        /* ---- the application's step-down ends (cand_stepdown_result) ---- */
        :: act == A_SD ->
            T(printf("TRACE node %d: step-down done (role %d, fenced %d)\n", i, role[i], fnc[i]));
            sd[i] = 0; actv[i] = 0; frz[i] = 0;
            if
            :: role[i] == R_STEPPING && (fnc[i] || !CONNECTED(i)) -> fenced(i)
#ifdef RESIGN
            :: role[i] == R_STEPPING && !fnc[i] && CONNECTED(i) && lv[i] -> leave_send(i, 1)
            :: role[i] == R_STEPPING && !fnc[i] && CONNECTED(i) && !lv[i] -> leader_delete(i)
#else
            :: role[i] == R_STEPPING && !fnc[i] && CONNECTED(i) -> leader_delete(i)
#endif
            :: else
            fi;
            fnc[i] = 0; cs = 1
        /* ---- the self-fence (fence.c fence_tick -> candidate.c cand_fence) ---- */
        :: act == A_FENCE ->
            T(printf("TRACE node %d: self-fence (role %d)\n", i, role[i]));
            fnc[i] = 1; role[i] = R_STEPPING; sd[i] = 1
#ifdef RESIGN
        /* ---- issue 18 B: unnominate of the READY leader: step down first,
           then leave (A_SD: the handover or the ordinary leave multi); its
           elector runs until the leave is answered (gone), as in the C
           (before 9d6ed04 the model stopped it here: MUT_RESIGN_STOPS) ---- */
        :: act == A_RESIGN ->
            T(printf("TRACE node %d: resigns (epoch %d)\n", i, r_ep[i]));
            n_res++; lv[i] = 1;
#ifdef MUT_RESIGN_STOPS
            if :: is_el[i] -> elector_stop(i) :: else fi;
#endif
            start_stepdown(i)
#endif
#ifdef DR16
        /* ---- issue 16's timers (group_on_timer): evaluate again ---- */
        :: act == A_SETTLE -> T(printf("TRACE node %d: settle timer\n", i)); st[i] = 2; ee = 1
        :: act == A_FB -> T(printf("TRACE node %d: failback delay passed\n", i)); fb[i] = 2; ee = 1
        :: act == A_AF -> T(printf("TRACE node %d: anti-flap interval passed\n", i)); af[i] = 0; ee = 1
        :: act == A_DUE -> T(printf("TRACE node %d: scheduled switchover due\n", i)); SCH = 2; ee = 1
#endif
        /* ---- an exclusion ends (elector_eval drops it) ---- */
        :: act == A_EXCL ->
            T(printf("TRACE node %d: exclusion of %d ends\n", i, ch));
            excl[i].s[ch] = 0; ch = 0; ee = 1
        fi;
        /* After the dispatch, once (a d_step's size): nps 1, reg_next_pred:
           the predecessor went (its deletion heard, or the watch's request
           found it gone): the next znode below it that the last listing
           showed becomes the predecessor, checked and watched by one
           request, without a listing (sequence numbers only grow: none
           below ours appeared since); none left and that listing showed no
           more: the lowest, the elector at once (elector_start lists
           first); else (4) a listing. nps 2: elector_start (the listing
           found the node the lowest, or the shortcut); nps 3 (the
           listing's) and 5 (the walk's): the predecessor's watch */
        nps = ((nps != 1) -> nps :
               ((lw[i] != 0) -> 5 : ((la[i] && !is_el[i] && CONNECTED(i) && !LEAVES(i)) -> 2 : 4)));
        la[i] = ((nps == 2) -> 0 : la[i]);
        pred[i] = ((nps == 5) -> lw[i] : pred[i]);
        lw[i] = ((nps == 5) -> 0 : lw[i]);
#ifdef MUT_LOWER_UNCHECKED
        nps = ((nps == 5) -> 0 : nps);  /* mutant: the walk sends no request */
#endif
        /* one send for the watch (Q_EX_PRED) and the listing (Q_LIST,
           list_election without watch): the d_step is at spin's limit */
        if
        :: nps > 2 && CONNECTED(i) && (nps != 4 || reg[i] == RG_DONE) ->
            send(i, ((nps == 4) -> Q_LIST : Q_EX_PRED), ((nps == 4) -> 0 : pred[i]), 0, 0, 0)
        :: nps == 2 -> elector_start(i)
        :: else
        fi;
        nps = 0;
#if defined(WAKE) || defined(ABSENT)
        /* the wake (issue 18): the wake's requests, in this order (MUT_WAKE_LATE:
           `elected` read before the re-arm), or the reads a quiet node owes
           (after the STAT_MINE of its registration, or as a new elector).
           The leader znode with an exists (PROTOCOL.md §2): its reply NONODE is
           an absent view, OK reads it. ABSENT: the deferred view's arming
           (ARM_DEFERRED, the first decision's reply), any step */
        if
        :: wk && CONNECTED(i) ->
#ifdef MUT_WAKE_LATE
            if :: wk & WK_EL -> send(i, Q_GET_EL, 0, 0, 0, 0) :: else fi;
            if :: wk & WK_MINE -> send(i, Q_STAT_MINE, my_seq[i], 1, 0, 0) :: else fi;
#else
            if :: wk & WK_MINE -> send(i, Q_STAT_MINE, my_seq[i], 1, 0, 0) :: else fi;
            if :: wk & WK_EL -> send(i, Q_GET_EL, 0, 0, 0, 0) :: else fi;
#endif
            if :: wk & WK_LD -> send(i, Q_EX_LD, 0, 0, 0, 0) :: else fi
#ifdef WAKE_UW
            /* view_follow: the exists watches it again (unwatched false) */
            ; l_uw[i] = (l_uw[i] && !(wk & WK_LD))
#endif
#ifdef FAST
            ; if :: wk & WK_SPEC -> sx = my_seq[i]; send(i, Q_SPEC, r_ev[i], r_ep[i], SPEC_ST(i), mw[i] + 1); sx = 0 :: else fi
#endif
#ifdef CZX_ASSUME
            /* (a registration lost meanwhile: the C's request finds nothing) */
            ; if :: (wk & WK_STAT) && reg[i] == RG_DONE && my_seq[i] != 0 -> send(i, Q_STAT_MINE, my_seq[i], 0, 0, 0) :: else fi
#endif
        :: else
        fi;
        wk = 0;
#endif
        /* the tail of the handler: view_changed / cand_step / elector_eval,
           in the order the C calls them */
        if :: cs || vc -> cand_step(i) :: else fi;
        if
        :: vc && is_el[i] ->            /* view_changed, the elector's part */
            ez = (hl[i] && he[i] && l_id[i] == e_ld[i] && l_ep[i] == e_ep[i]);
            if
            :: wd[i] && ez && l_st[i] == ST_READY -> wd[i] = 0
            :: else
            fi;
#ifndef MUT_NO_REARM
            /* a decision naming a leader that is not READY always has a
               watchdog (write outcome unknown, read after a reconnect). A
               watchdog guards one epoch: one armed for another is armed
               again for this one (WD_FREE). MUT_WD_STALE, the C before:
               a new elector by the shortcut, its read of `elected` in
               flight, armed it for the decision before at the leader
               znode's deletion; the new decision got none, and the old
               one's firing did nothing (README "A watchdog per epoch") */
            if
            :: WD_FREE(i) && he[i] && e_ld[i] != NONE && WD_NEW(i) && e_rd[i] && l_rd[i] &&
               !(ez && l_st[i] == ST_READY) -> wd[i] = 1; wd_ep[i] = e_ep[i]; wd_f[i] = 0
            :: else
            fi;
#endif
#ifdef MUT_TFAIL_AT_ONCE
            /* the old rule: PROGRESS seen is never cleared, and the vanished
               znode of a node still in the member cache is a failed takeover
               at once */
            if :: ez && l_st[i] == ST_PROGRESS -> ps_ep[i] = e_ep[i] :: else fi;
            if
            :: wd[i] && l_rd[i] && l_ver[i] == 0 && he[i] && ps_ep[i] == e_ep[i] && EPRESENT(i) ->
                S6_ready_never_takeover_failed = (rdy_ep[e_ld[i]] != e_ep[i]);
                assert(S6_ready_never_takeover_failed);
                ps_ep[i] = 0; wd[i] = 0; excl[i].s[e_ld[i]] = 1
            :: else
            fi;
#else
            /* the last status seen of the elected node's znode at this epoch
               (elector_view_changed): READY clears it */
            if
            :: ez && l_st[i] == ST_PROGRESS -> ps_ep[i] = e_ep[i]
            :: ez && l_st[i] != ST_PROGRESS -> ps_ep[i] = 0
            :: else
            fi;
            /* the elected node's PROGRESS znode vanished: a fresh listing
               decides whether it is still a member (Q_LIST below) */
            if
            :: wd[i] && l_rd[i] && l_ver[i] == 0 && he[i] && ps_ep[i] == e_ep[i] && EPRESENT(i) ->
                ps_ep[i] = 0; tc_ep[i] = e_ep[i]; list_election(i, 1)
            :: else
            fi;
#endif
            ez = 0;
            ee = 1
        :: else
        fi;
        normalize(i);
#ifdef LIVE
        S1_one_ready_leader = S1; assert(S1_one_ready_leader);
        S3_expired_never_acts = S3; assert(S3_expired_never_acts);
        S7_one_active_service = S7; assert(S7_one_active_service);
        S8_ready_is_active = S8; assert(S8_ready_is_active);
#ifdef PIPE
        S18_ready_after_work = S18; assert(S18_ready_after_work);
#endif
#endif
        act = 0; k = 0; rc = 0; a = 0; b = 0; c = 0; d = 0; vc = 0; cs = 0; ok = 0
        }   /* d_step */
        if
        :: eag ->
            d_step {
                if
                :: len(rq[i]) > 0 && conn[i] && live[i] ->
                    RQ_GET(rq[i]);
                    zk_apply(i, 0);
                    qk = 0; qa = 0; qb = 0; qc = 0; qd = 0; zrc = 0; x0 = 0; x1 = 0; x2 = 0; x3 = 0
                :: else
                fi;
                eag = 0
            }
        :: else
        fi;
        do
        :: ee > 0 ->
            ee--;
            d_step { eval_prepare(i) }
            eval_choose();
            d_step { eval_finish(i) }
        :: ee == 0 && eep -> eep = 0; if :: evpend[i] -> evpend[i] = 0; ee = 1 :: else fi
        :: ee == 0 && !eep -> break
        od;
#if defined(LIVE) && defined(DR16)
        /* L4 after the whole step (the evaluation included) */
        L4_forced_not_held = !(QUIET && (FORCED(0) || FORCED(1) || FORCED(2)));
        assert(L4_forced_not_held);
#endif
        skip
    }
    od
}

/* ---------------------------------------------------------------------
 * The network and the server's clock: what follows a fault, eventually.
 * ------------------------------------------------------------------- */

/* Reconnect on the same session (the client finds a server before the
   session timeout): CONNECTED, then the watches that fired meanwhile.
   Requests queued while disconnected are sent now - or (fa) a connection
   attempt that failed first failed them with CONNLOSS. */
inline reconnect(n) {
    if
    :: fa ->
        do
        :: len(rq[n]) > 0 -> RQ_GET(rq[n]); fail_reply(n, CONNLOSS)
        :: else -> break
        od
    :: else
    fi;
    T(printf("TRACE net: node %d reconnects\n", n));
    conn[n] = 1;
    evsend(n, EV_CONNECTED, 0, 0, 0, 0, 0);
    if :: W[WEL].s[n] == 2 -> W[WEL].s[n] = 0; evsend(n, EV_W_EL, 0, 0, 0, 0, 0) :: else fi;
    /* SetWatches: NodeDeleted if the leader znode is gone now, else NodeDataChanged/NodeCreated */
    if :: W[WLD].s[n] == 2 -> W[WLD].s[n] = 0; evsend(n, EV_W_LD, 0, (L_ver == 0), 0, 0, 0) :: else fi;
    if :: W[WCH].s[n] == 2 -> W[WCH].s[n] = 0; evsend(n, EV_W_CH, 0, 0, 0, 0, 0) :: else fi;
#ifdef RESIGN
    if :: W[WSU].s[n] == 2 -> W[WSU].s[n] = 0; evsend(n, EV_W_SU, 0, 0, 0, 0, 0) :: else fi;
#endif
    if :: W_pst[n] == 2 -> evsend(n, EV_W_PRED, 0, W_pr[n], 0, 0, 0); W_pst[n] = 0; W_pr[n] = 0 :: else fi;
#ifdef WAKE
    if :: W_mn[n] == 2 -> W_mn[n] = 0; evsend(n, EV_W_MINE, 0, 0, 0, 0, 0) :: else fi;
#endif
    qk = 0; qa = 0; qb = 0; qc = 0; qd = 0; fa = 0
}


proctype net() {
    byte n;
    bool fa;
end_net:
    do
    :: atomic {
        (CAN_RECONNECT(0) || CAN_RECONNECT(1) || CAN_RECONNECT(2)) ->
        if
        :: CAN_RECONNECT(0) -> n = 0
        :: CAN_RECONNECT(1) -> n = 1
        :: CAN_RECONNECT(2) -> n = 2
        fi;
        if :: fa = 0 :: len(rq[n]) > 0 -> fa = 1 fi;
        d_step { reconnect(n); n = 0 }
       }
    /* a crashed node's session expires on the server */
    :: d_step { crashed[0] && live[0] -> zk_expire(0) }
    :: d_step { crashed[1] && live[1] -> zk_expire(1) }
    :: d_step { crashed[2] && live[2] -> zk_expire(2) }
    /* a cut-off node's session expires, once the fence let it */
    :: d_step { EXP_DUE(0) -> exp_pend[0] = 0; zk_expire(0) }
    :: d_step { EXP_DUE(1) -> exp_pend[1] = 0; zk_expire(1) }
    :: d_step { EXP_DUE(2) -> exp_pend[2] = 0; zk_expire(2) }
    /* a frozen node is thawed (after its session expired: shorter freezes
       are disconnects) */
    :: d_step { fz[0] && !live[0] -> fz[0] = 0 }
    :: d_step { fz[1] && !live[1] -> fz[1] = 0 }
    :: d_step { fz[2] && !live[2] -> fz[2] = 0 }
    od
}

/* ---------------------------------------------------------------------
 * Faults, bounded.
 * ------------------------------------------------------------------- */

/* The connection drops. The client queues CONNECTING, then fails every
   outstanding request with CONNLOSS (zookeeper.c cleanup); a prefix (p) of
   them may have reached the server and been applied, their replies lost. */
inline disconnect(n) {
    T(printf("TRACE net: node %d disconnected (%d of %d requests applied)\n", n, p, len(rq[n])));
    conn[n] = 0;
    m = len(rq[n]);
    evsend(n, EV_CONNECTING, 0, 0, 0, 0, 0);
    q = 0;
    do
    :: q < m ->
        RQ_GET(rq[n]);
        if :: q < p -> zk_apply(n, 1) :: else fi;
        fail_reply(n, CONNLOSS);
        q++
    :: else -> break
    od;
    qk = 0; qa = 0; qb = 0; qc = 0; qd = 0; zrc = 0; x0 = 0; x1 = 0; x2 = 0; x3 = 0;
    m = 0; p = 0; q = 0
}

#ifdef DISC_NODE
#define CAN_DISC(n) (conn[n] && !crashed[n] && (n) == DISC_NODE)
#else
#define CAN_DISC(n) (conn[n] && !crashed[n])
#endif
#ifdef CRASH_NODE
#define CAN_CRASH(n) ((n) == CRASH_NODE)
#else
#define CAN_CRASH(n) 1
#endif
#ifdef DR16
#define SWFREE (SCH == 0)               /* one switchover request at a time */
#else
#define SWFREE 1
#endif

/* the elector's watch on config (or a member record) fires: it evaluates again */
inline cfg_notify() {
    zj = 0;
    do
    :: zj < N ->
        if :: is_el[zj] && conn[zj] && live[zj] && !crashed[zj] -> evsend(zj, EV_W_CFG, 0, 0, 0, 0, 0) :: else fi;
        zj++
    :: else -> break
    od;
    zj = 0
}
#ifdef DIRECT_SO
/* The operator's direct switchover (PROTOCOL.md §4; direct.c, cmd-switchover.c).
   The read: zke_direct_switchover_refusal on `elected` and `successor` as
   read (the server's state: the multi checks both versions, so reading them
   apart adds nothing that the multi accepts). The succession covers the
   decision: made for its version and the registration it names, with a
   successor, an epoch reserved above the decision's, e+1 under a decision
   that says fast_handover (the wake flag with OLD_NODE, as FASTFLAG). Its
   "switchover" mark (the policy sends a switchover to the successor) is
   always true: the model's policy for a switchover is any other node */
#ifdef GATE
#define DSO_FAST E_wk
#else
#define DSO_FAST 1
#endif
#define DSO_READ_OK (n_dso < MAX_DSO && dso_sv == 0 && E_ver != 0 && E_ld != NONE && E_rg != 0 && \
                     S_ver != 0 && S_sd % 4 != NONE && S_ev == E_ver && S_lrg == E_rg && \
                     S_ep > E_ep && (!DSO_FAST || S_ep == E_ep + 1))

/* The multi (zke_direct_switchover), on the server's state now: [check
   successor (dso_sv), check history (the succession's version), the
   config's absence (no config in the model: always), check the
   successor's member record, set elected (dso_ev) to the successor at the
   reserved epoch with the request acknowledged, write the request, set the
   successor's election znode (the wake, one op)]. No leader znode is
   deleted, no registration removed: the old leader steps down and releases
   as after any decision. Refused: nothing (the operator asks the elector,
   the ordinary request: the switchover fault) */
inline direct_so() {
    zrc = OK; zu = S_sd % 4; zs = S_sd / 4;
    if :: S_ver != dso_sv || H_ver != S_hv -> zrc = BADVERSION :: else fi;
    /* nodes/<id> at the version recorded: the model has no writes of a
       member record and folds it into the registration; a new registration's
       record is version 0 again (ZooKeeper's versions restart), so any
       registration of the node passes, as in the C. The wake below tells
       registrations apart (its path has the sequence number) */
    if :: zrc == OK && REG[zu] == 0 -> zrc = NONODE :: else fi;
#ifndef MUT_DSO_STALE
    if :: zrc == OK -> check_elected(dso_ev) :: else fi;
#else
    /* mutant: elected set at any version (a succession for an older one) */
    if :: zrc == OK && E_ver == 0 -> zrc = NONODE :: else fi;
#endif
    if :: zrc == OK -> touch_check(zu, zs) :: else fi;
    if
    :: zrc == OK ->
        /* S20: the succession applied is the one made for the decision it
           replaces (its version and registration), as S17 for a handover */
        S20_dso_over_its_decision = (S_ev == E_ver && S_lrg == E_rg);
        assert(S20_dso_over_its_decision);
        E_ver++; E_ld = zu; E_rg = zs;
#ifndef MUT_DSO_EPOCH
        E_ep = S_ep;                    /* the succession's reserved epoch */
#endif
        T(printf("TRACE op: direct switchover applied: node %d (seq %d) at epoch %d\n", zu, zs, E_ep));
        if :: E_ep > mx_ep -> mx_ep = E_ep :: else fi;
#ifdef FAST
        E_ho = 1;                       /* S19: the decision a handover would write (one-op wake) */
#endif
        SWP = 0;                        /* the request acknowledged (any pending one too) */
        trigger(WEL, EV_W_EL, 0);
#ifdef MUT_DSO_DELETE
        /* mutant: the leader znode deleted with it, as a handover does */
        if :: L_ver != 0 -> leader_gone() :: else fi;
#endif
        /* the request written: the elector's watch on `switchover` */
        zj = 0;
        do
        :: zj < N ->
            if :: is_el[zj] && conn[zj] && live[zj] && !crashed[zj] -> evsend(zj, EV_W_SW, 0, 0, 0, 0, 0) :: else fi;
            zj++
        :: else -> break
        od;
        zj = 0;
        /* the wake: one set op (+1), the data the id */
#ifdef FAST
        MV[zu] = MV[zu] + 1; bounds_ok = (MV[zu] < 200); assert(bounds_ok);
#endif
#ifdef STANDING
        MD[zu] = 0;
#endif
        touch_fire(zu)
    :: else -> T(printf("TRACE op: direct switchover refused (rc %d): nothing written\n", zrc))
    fi;
    dso_sv = 0; dso_ev = 0; zrc = 0; zu = 0; zs = 0
}
#endif
#ifdef EXP_NODE
#define CAN_EXP(n) (live[n] && !crashed[n] && !fz[n] && !exp_pend[n] && n == EXP_NODE)
#else
#define CAN_EXP(n) (live[n] && !crashed[n] && !fz[n] && !exp_pend[n])
#endif

proctype faults() {
    byte p, n;
end_faults:
    do
    /* the connection drops (network, server failover, a pause of the client) */
    :: atomic {
        FAULT_OK(n_disc, MAX_DISC) && (CAN_DISC(0) || CAN_DISC(1) || CAN_DISC(2)) ->
        if
        :: CAN_DISC(0) -> n = 0
        :: CAN_DISC(1) -> n = 1
        :: CAN_DISC(2) -> n = 2
        fi;
        p = 0;
        do
        :: p < len(rq[n]) -> p++
        :: true -> break
        od;
        d_step { nf++; n_disc++; disconnect(n); n = 0 }
       }
    /* the server expires a running client's session (a partition longer
       than the session timeout): the connection drops if it has not yet,
       and the session ends on the server - at once if the node is not
       ACTIVE, else once it has fenced (net); the client may not even have
       processed CONNECTING yet, and learns of the expiry later */
    :: atomic {
        FAULT_OK(n_exp, MAX_EXP) && (CAN_EXP(0) || CAN_EXP(1) || CAN_EXP(2)) ->
        if
        :: CAN_EXP(0) -> n = 0
        :: CAN_EXP(1) -> n = 1
        :: CAN_EXP(2) -> n = 2
        fi;
        p = 0;
        do
        :: conn[n] && p < len(rq[n]) -> p++
        :: true -> break
        od;
        d_step {
            nf++; n_exp++;
            T(printf("TRACE fault: node %d cut off beyond the session timeout\n", n));
            if :: conn[n] -> disconnect(n) :: else fi;
            if
            :: EXP_OK(n) -> zk_expire(n)
            :: else -> exp_pend[n] = 1
            fi;
            n = 0
        }
       }
    /* the node is frozen (SIGSTOP) beyond the session timeout: it cannot
       fence; its connection drops and its session expires (net thaws it
       later) */
    :: atomic {
        FAULT_OK(n_frz, MAX_FREEZE) && (CAN_EXP(0) || CAN_EXP(1) || CAN_EXP(2)) ->
        if
        :: CAN_EXP(0) -> n = 0
        :: CAN_EXP(1) -> n = 1
        :: CAN_EXP(2) -> n = 2
        fi;
        p = 0;
        do
        :: conn[n] && p < len(rq[n]) -> p++
        :: true -> break
        od;
        d_step {
            nf++; n_frz++;
            T(printf("TRACE fault: node %d frozen beyond the session timeout (active %d)\n", n, actv[n]));
            fz[n] = 1; frz[n] = actv[n];
            if :: conn[n] -> disconnect(n) :: else fi;
            zk_expire(n); n = 0
        }
       }
    /* a process crash: it stops; its session expires later (net) */
    :: d_step { FAULT_OK(n_crash, MAX_CRASH) && !crashed[0] && CAN_CRASH(0) -> nf++; n_crash++; crashed[0] = 1; conn[0] = 0;
                actv[0] = 0; sd[0] = 0; frz[0] = 0;   /* the supervised command dies with it */
                T(printf("TRACE fault: node 0 crashes\n")) }
    :: d_step { FAULT_OK(n_crash, MAX_CRASH) && !crashed[1] && CAN_CRASH(1) -> nf++; n_crash++; crashed[1] = 1; conn[1] = 0;
                actv[1] = 0; sd[1] = 0; frz[1] = 0;   /* the supervised command dies with it */
                T(printf("TRACE fault: node 1 crashes\n")) }
    :: d_step { FAULT_OK(n_crash, MAX_CRASH) && !crashed[2] && CAN_CRASH(2) -> nf++; n_crash++; crashed[2] = 1; conn[2] = 0;
                actv[2] = 0; sd[2] = 0; frz[2] = 0;   /* the supervised command dies with it */
                T(printf("TRACE fault: node 2 crashes\n")) }
    /* an operator asks for a switchover (zkelect switchover): the elector,
       watching the switchover znode, evaluates again */
    :: d_step {
        FAULT_OK(n_switch, MAX_SWITCH) && !SWP && SWFREE ->
        nf++; n_switch++; SWP = 1;
        T(printf("TRACE fault: switchover requested\n"));
        zj = 0;
        do
        :: zj < N ->
            if :: is_el[zj] && conn[zj] && live[zj] && !crashed[zj] -> evsend(zj, EV_W_SW, 0, 0, 0, 0, 0) :: else fi;
            zj++
        :: else -> break
        od;
        zj = 0
       }
#ifdef DIRECT_SO
    /* the operator's direct switchover (zkelect switchover): its read, and
       later its multi, checked against the server's state then */
    :: d_step {
        DSO_READ_OK ->
        n_dso++; dso_sv = S_ver; dso_ev = E_ver;
        T(printf("TRACE op: reads elected %d and successor %d: a direct switchover\n", E_ver, S_ver))
       }
    :: d_step { dso_sv != 0 -> direct_so() }
#endif
    /* an operator deletes `elected` (the elector restores it) */
    :: d_step {
        FAULT_OK(n_lose, MAX_LOSE) && E_ver != 0 ->
        nf++; n_lose++;
        T(printf("TRACE fault: elected deleted\n"));
        E_ver = 0; E_ld = NONE; E_ep = 0; E_rg = 0;
#ifdef GATE
        E_wk = 0;
#endif
        trigger(WEL, EV_W_EL, 0)
       }
#if MAX_DRAIN > 0
    /* an operator drains a node (zkelect drain: config.drains, compare-and-set);
       not counted in MAXFAULTS */
    :: atomic {
        n_drain < MAX_DRAIN && DRN == NONE ->
        if :: n = 0 :: n = 1 :: n = 2 fi;
        d_step {
            n_drain++; DRN = n;
            T(printf("TRACE fault: node %d drained\n", n));
            cfg_notify(); n = 0
        }
       }
    /* the drain ends: its time (the elector's timer) or zkelect undrain */
    :: d_step { DRN != NONE -> DRN = NONE; T(printf("TRACE fault: drain ends\n")); cfg_notify() }
#endif
#ifdef HOLDS
    /* a node better than the leader appears (a returning site, preempt on):
       the policy wants to move to it; not counted in MAXFAULTS */
    :: atomic {
        n_pref < MAX_PREF ->
        if :: E_ld != 0 -> n = 0 :: E_ld != 1 -> n = 1 :: E_ld != 2 -> n = 2 fi;
        d_step {
            n_pref++; BT = n;
            T(printf("TRACE fault: node %d preferred\n", n));
            cfg_notify(); n = 0
        }
       }
#endif
#if MAX_SCHED > 0
    /* an operator schedules a switchover (zkelect switchover --at); not
       counted in MAXFAULTS */
    :: d_step {
        n_sched < MAX_SCHED && !SWP && SCH == 0 ->
        n_sched++; SCH = 1;
        T(printf("TRACE fault: switchover scheduled\n"));
        zj = 0;
        do
        :: zj < N ->
            if :: is_el[zj] && conn[zj] && live[zj] && !crashed[zj] -> evsend(zj, EV_W_SW, 0, 0, 0, 0, 0) :: else fi;
            zj++
        :: else -> break
        od;
        zj = 0
       }
#endif
#ifdef LIVE
    :: break                            /* faults stop */
#endif
    od
}

/* ---------------------------------------------------------------------
 * The invariants S1 and S3, checked in every state.
 * ------------------------------------------------------------------- */
/* L1 at quiescence: when nothing but a fault can happen any more (every
   queue processed, no request the server could apply, no reconnect or
   expiry pending, no timer due - the watchdog fires only when all is
   quiet), exactly one node believes it is the READY leader and ZooKeeper
   agrees. With the fault budget finite, this and the absence of cycles
   (the LTL check, -DLIVE) is "eventually exactly one READY leader". */
#define NODE_IDLE(n) (crashed[n] || (len(ev[n]) == 0 && !app[n] && !EXCL_EN(n) && !SD_EN(n) && !FENCE_EN(n) && \
                      !DRT_EN(n) && \
                      !(is_el[n] && wd[n] && CONNECTED(n) && TA_OK(n) && QUIET)))
#define QUIESCENT (started && NODE_IDLE(0) && NODE_IDLE(1) && NODE_IDLE(2) && NET_IDLE && \
                   !SRV(0) && !SRV(1) && !SRV(2))

#ifndef LIVE
active proctype monitor() {
end_mon:
    do
    :: atomic { !S1 -> S1_one_ready_leader = 0; assert(S1_one_ready_leader) }
    :: atomic { !S3 -> S3_expired_never_acts = 0; assert(S3_expired_never_acts) }
    :: atomic { !S7 -> S7_one_active_service = 0; assert(S7_one_active_service) }
    :: atomic { !S8 -> S8_ready_is_active = 0; assert(S8_ready_is_active) }
#ifdef PIPE
    :: atomic { !S18 -> S18_ready_after_work = 0; assert(S18_ready_after_work) }
#endif
    :: atomic { QUIESCENT && !STABLE -> L1_quiescent_stable = 0; assert(L1_quiescent_stable) }
    :: atomic { QUIET && !L8 -> L8_named_learns = 0; assert(L8_named_learns) }
    :: atomic { QUIET && !L9 -> L9_elector_view_current = 0; assert(L9_elector_view_current) }
    :: atomic { QS && !L11 -> L11_lowest_is_elector = 0; assert(L11_lowest_is_elector) }
#ifdef RESIGN
    :: atomic { QUIET && !L10 -> L10_leader_succession_current = 0; assert(L10_leader_succession_current) }
#endif
#ifdef DR16
    :: atomic { QUIESCENT && (HELD(0) || HELD(1) || HELD(2)) -> L3_hold_ends = 0; assert(L3_hold_ends) }
    :: atomic { QUIET && (FORCED(0) || FORCED(1) || FORCED(2)) -> L4_forced_not_held = 0; assert(L4_forced_not_held) }
    :: atomic { QUIESCENT && SCH != 0 -> L5_sched_answered = 0; assert(L5_sched_answered) }
#endif
    od
}
#else
/* with the liveness claim, S1 and S3 are checked as assertions after every
   step of a node (the claim's first state keeps every system state in
   scope) */
#endif

/* ---------------------------------------------------------------------
 * Start. Default: every node opens its group, is connected and nominates
 * itself (zkelect_open, zkelect_group_open, zkelect_nominate), all at once.
 * STABLE_START=0 or 1: start instead from the state the fault-free run
 * converges to - node 0 registered first (the elector), node 0 or 1 the
 * READY leader at epoch 1, every view read and every watch set, nothing in
 * flight; STABLE_START=2: either of the two (one search covers both).
 * ------------------------------------------------------------------- */
init {
    byte n, ld;
    atomic {
#if defined(STABLE_START) && STABLE_START == 4
        /* issue 16, a cold start: nodes 0 and 1 registered (seq 1, 2), node
           0 the elector with its view read (no `elected`, no leader znode,
           no history), its child watch just fired for node 1's
           registration; node 2 starts (it connects and registers later) */
        do
        :: n < N ->
            live[n] = 1; conn[n] = 1; e_ld[n] = NONE; l_id[n] = NONE;
            if
            :: n < 2 ->
                c_sess[n] = CS_CONNECTED; c_sid[n] = SID(n);
                REG[n] = n + 1; reg[n] = RG_DONE; my_seq[n] = n + 1; czx[n] = 1;
                role[n] = R_MEMBER; e_rd[n] = 1; l_rd[n] = 1;
                W[WEL].s[n] = 1; W[WLD].s[n] = 1
#ifdef WAKE
                ; W_mn[n] = 1           /* the wake (issue 18): STAT_MINE armed it */
#endif
            :: else ->
                c_sess[n] = CS_CONNECTING; reg[n] = RG_PENDING; role[n] = R_NONE;
                ev[n]!EV_CONNECTED, 0, 0, 0, 0, 0
            fi;
            n++
        :: else -> break
        od;
        nextseq = 3;
        pred[1] = 1; W_pr[1] = 1; W_pst[1] = 1; la[1] = 1;
        is_el[0] = 1; el_rd[0] = 1; hi_rd[0] = 1;
        mseq[0].s[0] = 1; mseq[0].s[1] = 2;
#ifdef ABSENT
        /* ddc3ab4: node 0's registration created the group: its view is
           absent by construction, read and watched by nothing (view_absent) */
        W[WEL].s[0] = 0; W[WLD].s[0] = 0; e_df[0] = 1; l_df[0] = 1;
#endif
#ifdef CZX_ASSUME
        /* 4dce8aa: nor did it send STAT_MINE: czxid assumed, its own
           election znode unwatched */
        cza[0] = 1; W_mn[0] = 0;
#endif
        ev[0]!EV_W_CH, 0, 0, 0, 0, 0;
#else
#ifdef STABLE_START
        if
        :: STABLE_START == 0 || STABLE_START == 2 -> ld = 0
        :: STABLE_START == 1 || STABLE_START == 2 || STABLE_START == 3 -> ld = 1
        fi;
#endif
        do
        :: n < N ->
            live[n] = 1; conn[n] = 1;
#ifndef STABLE_START
            c_sess[n] = CS_CONNECTING;
            reg[n] = RG_PENDING; role[n] = R_NONE;
            e_ld[n] = NONE; l_id[n] = NONE;
            ev[n]!EV_CONNECTED, 0, 0, 0, 0, 0;
#else
            c_sess[n] = CS_CONNECTED; c_sid[n] = SID(n);
            REG[n] = n + 1; reg[n] = RG_DONE; my_seq[n] = n + 1; czx[n] = 1;
            role[n] = (n == ld -> R_READY : R_MEMBER);
            actv[n] = (n == ld);
            r_ep[n] = (n == ld -> 1 : 0);
            r_ev[n] = (n == ld -> 1 : 0);
            t_ok[n] = 0;
            he[n] = 1; e_ld[n] = ld; e_ep[n] = 1; e_rg[n] = ld + 1;
            e_ver[n] = 1; e_rd[n] = 1;
            hl[n] = 1; l_id[n] = ld; l_st[n] = ST_READY; l_ep[n] = 1;
            l_ver[n] = 2; l_own[n] = ld + 1; l_rd[n] = 1;
            W[WEL].s[n] = 1; W[WLD].s[n] = 1;
#ifdef WAKE
            W_mn[n] = 1;                /* the wake (issue 18): STAT_MINE armed it */
#endif
            if
            :: n > 0 -> pred[n] = n; W_pr[n] = n; W_pst[n] = 1;
                lw[n] = n - 1; la[n] = 1 /* its listing showed node 0 below node 1 */
            :: else
            fi;
#ifdef DR16
            sn[n] = 1;                  /* each has read the leader znode */
#endif
#endif
            n++
        :: else -> break
        od;
#ifdef STABLE_START
        nextseq = N + 1;
        E_ver = 1; E_ld = ld; E_ep = 1; E_rg = ld + 1;
        H_ver = 1; H_ep = 1;
        L_ver = 2; L_own = ld + 1; L_id = ld; L_st = ST_READY; L_ep = 1;
        is_el[0] = 1; el_rd[0] = 1; hi_rd[0] = 1; hi_ep[0] = 1; hi_ver[0] = 1;
        wd_ep[0] = 1;                   /* it decided epoch 1, saw it PROGRESS, then READY */
#ifdef MUT_TFAIL_AT_ONCE
        ps_ep[0] = 1;                   /* the old rule never cleared it */
#endif
        rdy_ep[ld] = 1;
#ifdef PIPE
        fin_ep[ld] = 1;                 /* (S18) its takeover of epoch 1 finished */
#endif
#ifdef HOLDS
        af[0] = 1;                      /* the leader was elected lately: anti-flap runs */
#endif
        mseq[0].s[0] = 1; mseq[0].s[1] = 2; mseq[0].s[2] = 3;
        W[WCH].s[0] = 1;
        last_ep = 1; last_nd = ld; srv_ep = 1; srv_nd = ld;
        if
        :: STABLE_START == 3 ->
            /* a takeover in flight: node 1 elected at epoch 1, its leader
               znode PROGRESS and its takeover running; the elector (node 0)
               has seen it PROGRESS and guards it with the watchdog */
            role[1] = R_PROGRESS; t_ok[1] = 0; app[1] = 1; app_ep[1] = 1;
            l_st[0] = ST_PROGRESS; l_st[1] = ST_PROGRESS; l_st[2] = ST_PROGRESS;
            l_ver[0] = 1; l_ver[1] = 1; l_ver[2] = 1;
            L_st = ST_PROGRESS; L_ver = 1;
            wd[0] = 1; ps_ep[0] = 1;
            rdy_ep[1] = 0; last_ep = 0; last_nd = NONE; srv_ep = 0; srv_nd = NONE
#ifdef PIPE
            ; fin_ep[1] = 0
#endif
        :: else
        fi;
#ifdef RESIGN
        /* issue 18 B: `successor` written with the decision of epoch 1 (the
           lowest other node), read (and watched) by the READY leader */
        mx_ep = 1;
        S_ver = 1; S_ev = 1; S_ep = 2; S_lrg = ld + 1;
#ifdef DIRECT_SO
        S_hv = 1;
#endif
        S_sd = (ld == 0 -> 1 + 4 * 2 : 0 + 4 * 1);
        su_w[0] = S_sd; su_v[0] = 1;
        if
        :: role[ld] == R_READY ->
            s_ver[ld] = S_ver; s_ev[ld] = S_ev; s_ep[ld] = S_ep; s_lrg[ld] = S_lrg; s_sd[ld] = S_sd;
#ifdef SELF_SUCC
            /* 574a8bb: the leader that is the elector (node 0) took it from
               its write, and watches nothing */
            W[WSU].s[ld] = (ld != 0)
#else
            W[WSU].s[ld] = 1
#endif
        :: else
        fi;
#endif
#endif
#endif
        n = 0; ld = 0; started = 1;
        run node(0); run node(1); run node(2);
        run server();
        run net();
        run faults()
    }
}
#else /* SLOTS != 1 */
/* =====================================================================
 * Issue 17: two slots (SLOTS=2). doc/model/README.md, "Issue 17".
 *
 * Three nodes, N = 2 slots (config `leaders`, lowered to 1 and raised again
 * by an operator). One `elected` decision holds both slots and is written
 * by the elector at once, compare-and-set on its version; each slot k has
 * its own leader znode (`leader`, `leader-1`) with the two-phase PROGRESS ->
 * READY takeover checked against `elected`, its own watchdog, and its own
 * epoch, fed by one counter (a new assignment gets the newest epoch of
 * every slot and of `history`, plus one). A node holds at most one slot;
 * the assignment is elector.c/slots.c's zke_slots_assign: sticky, lost slots
 * refilled lowest first, in the policy's order.
 *
 * This is the slot layer. Each slot runs the single-slot protocol that the
 * SLOTS=1 model checks with every session fault; here a session has only
 * the faults that move slots (a crash, its session expiring later), replies
 * come in the order the C sees them, and reads are atomic with the step
 * that uses them: what is checked is what is new with two slots.
 * ===================================================================== */
#if SLOTS != 2
#error "SLOTS is 1 (the default, the single-slot model) or 2"
#endif
#ifdef DIRECT_SO
#error "DIRECT_SO is for a group of one leader: the single-slot model"
#endif

#define N 3                     /* nodes 0, 1, 2 */
#define NS 2                    /* slots 0, 1 */
#define NONE 3                  /* "no node", "no slot" */

#ifndef MAXFAULTS
#define MAXFAULTS 2
#endif
#ifndef MAX_CRASH
#define MAX_CRASH 1             /* a node crashes; its session expires later */
#endif
#ifndef MAX_NCHG
#define MAX_NCHG 2              /* zkelect set-leaders: N 2 -> 1 or 1 -> 2 */
#endif
#ifndef MAX_SWITCH
#define MAX_SWITCH 1            /* zkelect switchover --from NODE */
#endif
#ifndef MAX_TFAIL
#define MAX_TFAIL 1             /* a takeover the application fails */
#endif
#ifndef START_N
#define START_N 2               /* N at the start */
#endif
#define MAXEPOCH 12

#define R_MEMBER    0
#define R_CREATING  1           /* create of leader-k sent */
#define R_PROGRESS  2           /* leader-k PROGRESS, the takeover running or done */
#define R_READYING  3           /* READY sent */
#define R_READY     4
#define R_STEPPING  5           /* the step-down callback running */
#define R_DELETING  6           /* the release of leader-k sent */

#define ST_PROGRESS 1
#define ST_READY    2

#define Q_CREATE    1           /* amulti: check elected, create leader-k PROGRESS */
#define Q_READY     2           /* amulti: check elected, set leader-k READY */
#define Q_DELETE    3           /* delete leader-k (the release) */

/* ZooKeeper */
byte CFG_N = START_N;           /* config.leaders */
byte E_ver;                     /* elected: version (0: none yet) */
byte E_n;                       /* elected: N of the decision (1 + nslots) */
byte E_ld[NS];                  /* elected: slot k's node, NONE = empty */
byte E_ep[NS];                  /* elected: slot k's epoch (0: empty) */
byte H_ep;                      /* history: the newest epoch */
byte L_own[NS];                 /* leader-k: the owning node, NONE = absent */
byte L_st[NS];                  /* leader-k: status */
byte L_ep[NS];                  /* leader-k: epoch */
bool sl[N];                     /* node n's session lives (nodes/<id>, election/...) */
byte swf = NONE;                /* switchover request: from this node */

/* nodes */
bool up[N];                     /* the process runs (not crashed) */
byte rl[N];                     /* role */
byte ks[N];                     /* the slot of the role (PROGRESS .. DELETING) */
byte kep[N];                    /* the epoch of that takeover */
byte vv[N];                     /* the version of elected the node read last */
byte fe[N];                     /* the epoch whose takeover failed here (0 none) */
byte pq[N];                     /* the request outstanding (Q_*, 0 none) */
byte pv[N];                     /* the version of elected it is checked against */
bool tok[N];                    /* the takeover ended well (READY to send) */

/* the elector (the lowest live registration) */
bool dirty;                     /* its view changed (members, config, a leader
                                   znode, a switchover, an exclusion): evaluate */
bool ex[N];                     /* excluded (a failed takeover, any slot) */

byte nflt, ncrash, nchg, nsw, ntf;                 /* faults spent: all, per kind */
bool started;

/* ghosts and properties */
byte gmax[NS];                  /* the newest epoch ever assigned to slot k */
byte grdy[NS];                  /* the newest epoch slot k was READY at */
bool S11_one_ready_per_slot = 1;
bool S12_one_slot_per_node = 1;
bool S13_at_most_N_ready = 1;
bool S14_slot_epochs_grow = 1;
bool S15_sticky_lowest_first = 1;
bool S16_leader_writes_follow_decision = 1;
bool L6_quiescent_slots_ready = 1;
bool bounds_ok = 1;

#define ELC (sl[0] -> 0 : (sl[1] -> 1 : (sl[2] -> 2 : NONE)))

/* the slot the decision names node n for */
#ifdef MUT_LOWER_NO_RELEASE
#define INS(n, k) (E_ld[k] == (n))      /* mutant: entries beyond N still read */
#else
#define INS(n, k) ((k) < E_n && E_ld[k] == (n))
#endif
#define MYS(n) (INS(n, 0) -> 0 : (INS(n, 1) -> 1 : NONE))
#define HOLDS(x) ((E_n > 0 && E_ld[0] == (x)) || (E_n > 1 && E_ld[1] == (x)))

/* a waiting candidate whose slot's leader znode has gone (its watch) */
#ifdef MUT_NO_WAIT
#define FREE(k, n) (L_own[k] != (n))    /* mutant: another's znode is no reason to wait */
#else
#define FREE(k, n) (L_own[k] == NONE)
#endif
#define CAN_CREATE(n) (rl[n] == R_MEMBER && MYS(n) != NONE && FREE(MYS(n), n) && fe[n] != E_ep[MYS(n)])

#define BEL(n) (up[n] && sl[n] && rl[n] == R_READY)
#define TWO(a, b) (BEL(a) && BEL(b) && ks[a] == ks[b])
#define S11 (!TWO(0, 1) && !TWO(0, 2) && !TWO(1, 2))
#define S12 (L_own[0] == NONE || L_own[0] != L_own[1])
#define NBEL (BEL(0) + BEL(1) + BEL(2))
#define STALE(n) (BEL(n) && vv[n] != E_ver)
#define S13 (NBEL <= E_n || STALE(0) || STALE(1) || STALE(2))

/* a slot READY: its node believes READY there, its znode is READY at the
   slot's epoch and owned by it */
#define SREADY(k) (E_ld[k] != NONE && BEL(E_ld[k]) && ks[E_ld[k]] == (k) && \
                   L_own[k] == E_ld[k] && L_st[k] == ST_READY && L_ep[k] == E_ep[k])
#define NREADY ((E_n > 0 && SREADY(0)) + (E_n > 1 && SREADY(1)))
#define NLIVE (sl[0] + sl[1] + sl[2])
#define WANTED(c) ((CFG_N <= NLIVE && (c) == CFG_N) || (CFG_N > NLIVE && (c) == NLIVE))
/* both slots READY (or as many as there are live nodes), N as configured,
   and no READY belief beyond them (no ?: here: the LTL parser has none) */
#define SSTABLE (E_n == CFG_N && WANTED(NREADY) && WANTED(NBEL))

/* QUIET: no node, the elector or the network has a step to take (every
   request answered, every watch read, every callback ended, every crashed
   session expired): what the watchdog, tens of seconds, waits for. Faults
   and the end of an exclusion may still come. */
#define NODE_STEP(n) (up[n] && (pq[n] != 0 || (rl[n] == R_PROGRESS && !tok[n]) || rl[n] == R_STEPPING || \
                      vv[n] != E_ver || CAN_CREATE(n)))
#define NET_STEP ((!up[0] && sl[0]) || (!up[1] && sl[1]) || (!up[2] && sl[2]))
#define QUIET (!NODE_STEP(0) && !NODE_STEP(1) && !NODE_STEP(2) && !NET_STEP && \
               !(dirty && ELC != NONE && up[ELC]))

/* the watchdog of slot k: its node is not READY there (fires only when
   QUIET) */
#define WD(k) ((k) < E_n && E_ld[k] != NONE && sl[E_ld[k]] && !SREADY(k))
#ifdef MUT_WD_SLOT0
#define WD_ANY (ELC != NONE && up[ELC] && WD(0))       /* mutant: slot 0's watchdog only */
#else
#define WD_ANY (ELC != NONE && up[ELC] && (WD(0) || WD(1)))
#endif

#ifdef LIVE
ltl slots_live { <> [] SSTABLE }
#endif

/* ---------------------------------------------------------------------
 * Candidate (candidate.c cand_step) for node n, on the view it just read.
 * ------------------------------------------------------------------- */
inline cand_step(n) {
    k = MYS(n);
    if
    :: rl[n] == R_MEMBER ->
        if
        :: k != NONE && fe[n] != E_ep[k] && FREE(k, n) ->
#ifdef MUT_NO_WAIT
            L_own[k] = NONE; L_st[k] = 0; L_ep[k] = 0;  /* takes the znode over */
#endif
            rl[n] = R_CREATING; ks[n] = k; kep[n] = E_ep[k];
            pq[n] = Q_CREATE; pv[n] = E_ver
        :: else                         /* not chosen, or waits for leader-k to go */
        fi
    :: rl[n] == R_PROGRESS || rl[n] == R_READY ->
        if
        :: k == ks[n] && E_ep[k] == kep[n] ->   /* still chosen for this slot */
            if
            :: rl[n] == R_PROGRESS && tok[n] ->
                pq[n] = Q_READY; pv[n] = E_ver; rl[n] = R_READYING
            :: else
            fi
        :: else ->                      /* moved, released, replaced: step down */
#ifdef MUT_CREATE_FIRST
            if                          /* mutant: the new slot's create goes first */
            :: k != NONE && k != ks[n] && L_own[k] == NONE && fe[n] != E_ep[k] ->
                L_own[k] = n; L_st[k] = ST_PROGRESS; L_ep[k] = E_ep[k];
                S12_one_slot_per_node = S12; assert(S12_one_slot_per_node)
            :: else
            fi;
#endif
            rl[n] = R_STEPPING
        fi
    :: else                             /* CREATING, READYING, STEPPING, DELETING */
    fi
}

proctype node(byte n) {
    byte k;
end_node:
    do
    /* the server applies the request and the node reads its reply */
    :: atomic { up[n] && pq[n] != 0 ->
        k = ks[n];
        if
        :: pq[n] == Q_CREATE ->
            if
            :: E_ver != pv[n] -> rl[n] = R_MEMBER        /* elected moved: read again */
            :: E_ver == pv[n] && L_own[k] != NONE -> rl[n] = R_MEMBER      /* NODEEXISTS: wait */
            :: E_ver == pv[n] && L_own[k] == NONE ->
                S16_leader_writes_follow_decision = (k < E_n && E_ld[k] == n && E_ep[k] == kep[n]);
                assert(S16_leader_writes_follow_decision);
                L_own[k] = n; L_st[k] = ST_PROGRESS; L_ep[k] = kep[n];
                rl[n] = R_PROGRESS; tok[n] = 0; dirty = 1;
                S12_one_slot_per_node = S12; assert(S12_one_slot_per_node)
            fi
        :: pq[n] == Q_READY ->
            if
            :: L_own[k] != n -> rl[n] = R_STEPPING       /* the znode is gone: lost */
            :: L_own[k] == n && E_ver != pv[n] -> rl[n] = R_PROGRESS       /* read again */
            :: L_own[k] == n && E_ver == pv[n] ->
                S16_leader_writes_follow_decision = (k < E_n && E_ld[k] == n && E_ep[k] == kep[n]);
                assert(S16_leader_writes_follow_decision);
                S14_slot_epochs_grow = (kep[n] > grdy[k]);
                assert(S14_slot_epochs_grow);
                grdy[k] = kep[n];
                L_st[k] = ST_READY; rl[n] = R_READY; dirty = 1
            fi
        :: pq[n] == Q_DELETE ->
            if
            :: L_own[k] == n -> L_own[k] = NONE; L_st[k] = 0; L_ep[k] = 0; dirty = 1
            :: else
            fi;
            rl[n] = R_MEMBER
        fi;
        pq[n] = 0; k = 0 }
    /* the application's takeover ends, well (READY is sent, checked
       against the elected it read last) or not */
    :: atomic { up[n] && pq[n] == 0 && rl[n] == R_PROGRESS && !tok[n] ->
        if
        :: tok[n] = 1; pq[n] = Q_READY; pv[n] = vv[n]; rl[n] = R_READYING
        :: ntf < MAX_TFAIL && nflt < MAXFAULTS ->
            ntf++; nflt++; fe[n] = kep[n]; rl[n] = R_STEPPING
        fi }
    /* the step-down ends: then the release */
    :: atomic { up[n] && pq[n] == 0 && rl[n] == R_STEPPING ->
        if
        :: L_own[ks[n]] == n -> pq[n] = Q_DELETE; rl[n] = R_DELETING
        :: else -> rl[n] = R_MEMBER
        fi }
    /* the watch on elected fired, or the one on a leader znode this
       candidate waits for: read, cand_step */
    :: atomic { up[n] && pq[n] == 0 && (vv[n] != E_ver || CAN_CREATE(n)) ->
        vv[n] = E_ver;
        cand_step(n);
        k = 0 }
    od
}

/* ---------------------------------------------------------------------
 * Elector (elector.c elector_eval with slots.c zke_slots_assign).
 * ------------------------------------------------------------------- */
/* a candidate: its session lives, not excluded, not the switchover's node */
#define CANDX(x) (sl[x] && !ex[x] && (x) != sw)
/* a present holder (slot < the decision's N) that can lead: the policy
   keeps it when there is room (as the shipped policies do) */
#define KH(x) (CANDX(x) && HOLDS(x))
#define NKH (KH(0) + KH(1) + KH(2))
#define PICK0(x) (CANDX(x) && (KH(x) || NKH < nn))
#define PICK1(x) (CANDX(x) && (x) != c0 && (KH(x) || NKH - KH(c0) < 1))
#define CHOSEN(x) ((x) != NONE && ((x) == c0 || (x) == c1))

proctype elector() {
    byte nn, c0, c1, sw, k, j, mx;
    byte nw[NS], nep[NS];
    bool changed;
end_elector:
    do
    :: atomic { dirty && ELC != NONE && up[ELC] ->
        dirty = 0;
        nn = CFG_N;
        /* a switchover --from x moves x's slot when another node can take it */
        sw = NONE;
        if
        :: swf != NONE && HOLDS(swf) &&
           ((swf != 0 && sl[0] && !ex[0] && !HOLDS(0)) ||
            (swf != 1 && sl[1] && !ex[1] && !HOLDS(1)) ||
            (swf != 2 && sl[2] && !ex[2] && !HOLDS(2))) -> sw = swf
        :: else
        fi;
        /* the policy's ordered set of up to nn distinct candidates, best
           first, fewer only when fewer can lead (choose_set) */
        c0 = NONE; c1 = NONE;
        if
        :: PICK0(0) -> c0 = 0
        :: PICK0(1) -> c0 = 1
        :: PICK0(2) -> c0 = 2
        :: else
        fi;
        if
        :: nn > 1 && PICK1(0) -> c1 = 0
        :: nn > 1 && PICK1(1) -> c1 = 1
        :: nn > 1 && PICK1(2) -> c1 = 2
        :: else
        fi;
        /* zke_slots_assign: (1) slots >= nn released; (2) a holder still
           chosen keeps its slot; (3) the others fill the free slots lowest
           first, in the policy's order; (4) the rest are empty */
        nw[0] = NONE; nw[1] = NONE;
#ifdef MUT_NOT_STICKY
        nw[0] = c0;                     /* mutant: the policy's order, slot by slot */
        if :: nn > 1 -> nw[1] = c1 :: else fi;
#else
        k = 0;
        do
        :: k < nn ->
            if
            :: k < E_n && CHOSEN(E_ld[k]) -> nw[k] = E_ld[k]
            :: else
            fi;
            k++
        :: else -> break
        od;
        j = 0;
        do
        :: j < 2 ->
            mx = (j == 0 -> c0 : c1);
#ifdef MUT_TWO_SLOTS
            if                          /* mutant: a kept holder fills a free slot too */
            :: mx != NONE ->
#else
            if
            :: mx != NONE && nw[0] != mx && nw[1] != mx ->
#endif
                if
                :: nw[0] == NONE && nn > 0 -> nw[0] = mx
                :: else -> if :: nw[1] == NONE && nn > 1 -> nw[1] = mx :: else fi
                fi
            :: else
            fi;
            j++
        :: else -> break
        od;
#endif
        /* epochs: one counter feeds both slots; a kept slot keeps its epoch */
        mx = H_ep;
        if :: E_ep[0] > mx -> mx = E_ep[0] :: else fi;
        if :: E_ep[1] > mx -> mx = E_ep[1] :: else fi;
        changed = (nn != E_n || swf != NONE);
        k = 0;
        do
        :: k < NS ->
            if
            :: k < nn && nw[k] != NONE && (k >= E_n || nw[k] != E_ld[k]) ->
#ifdef MUT_EPOCH_PER_SLOT
                nep[k] = E_ep[k] + 1;   /* mutant: each slot its own counter */
#else
                mx++; nep[k] = mx;
#endif
                changed = 1
            :: k < nn && nw[k] != NONE && k < E_n && nw[k] == E_ld[k] -> nep[k] = E_ep[k]
            :: else ->
                if :: k < E_n && E_ld[k] != NONE -> changed = 1 :: else fi;
                nep[k] = 0
            fi;
            k++
        :: else -> break
        od;
        if
        :: changed ->
            /* the properties of the decision written */
            S12_one_slot_per_node = (nn < 2 || nw[0] == NONE || nw[0] != nw[1]);
            assert(S12_one_slot_per_node);
            k = 0;
            do
            :: k < nn ->
                if
                :: nw[k] != NONE && (k >= E_n || nw[k] != E_ld[k]) ->
                    S14_slot_epochs_grow = (nep[k] > gmax[k]);
                    assert(S14_slot_epochs_grow);
                    gmax[k] = nep[k];
                    /* lowest first: no free slot below a newly filled one */
                    S15_sticky_lowest_first = (k == 0 || nw[0] != NONE);
                    assert(S15_sticky_lowest_first)
                :: else
                fi;
                /* sticky: a holder of a slot < nn still chosen stays in it */
                if
                :: k < E_n && E_ld[k] != NONE ->
                    S15_sticky_lowest_first = ((nw[0] != E_ld[k] || k == 0) &&
                                               (nn < 2 || nw[1] != E_ld[k] || k == 1));
                    assert(S15_sticky_lowest_first)
                :: else
                fi;
                k++
            :: else -> break
            od;
            E_ver++; E_n = nn;
#ifdef MUT_LOWER_NO_RELEASE
            k = 0;                      /* mutant: the released slots' entries stay */
            do
            :: k < nn -> E_ld[k] = nw[k]; E_ep[k] = nep[k]; k++
            :: else -> break
            od;
#else
            E_ld[0] = nw[0]; E_ep[0] = nep[0];
            E_ld[1] = nw[1]; E_ep[1] = nep[1];
#endif
            if :: nep[0] > H_ep -> H_ep = nep[0] :: else fi;
            if :: nep[1] > H_ep -> H_ep = nep[1] :: else fi;
            swf = NONE;                 /* acknowledged */
            bounds_ok = (H_ep < MAXEPOCH && E_ver < 250);
            assert(bounds_ok)
        :: else
        fi;
        k = 0; j = 0; mx = 0; c0 = 0; c1 = 0; sw = 0; nn = 0; changed = 0;
        nw[0] = 0; nw[1] = 0; nep[0] = 0; nep[1] = 0 }
    /* the watchdog of a slot: its node did not reach READY (a failed
       takeover): excluded from every slot; the elector decides again */
    :: atomic { QUIET && WD_ANY ->
        if
        :: WD(0) -> ex[E_ld[0]] = 1
#ifndef MUT_WD_SLOT0
        :: WD(1) -> ex[E_ld[1]] = 1
#endif
        fi;
        dirty = 1 }
    /* an exclusion ends (once a decision has been made with it: the
       exclusion lasts exclude_ms, the evaluation takes milliseconds) */
    :: atomic { ex[0] && !dirty -> ex[0] = 0; dirty = 1 }
    :: atomic { ex[1] && !dirty -> ex[1] = 0; dirty = 1 }
    :: atomic { ex[2] && !dirty -> ex[2] = 0; dirty = 1 }
    od
}

/* ---------------------------------------------------------------------
 * Faults and the operator.
 * ------------------------------------------------------------------- */
proctype faults() {
    byte n;
end_faults:
    do
    /* a crash: the process stops, its session expires later */
    :: atomic { nflt < MAXFAULTS && ncrash < MAX_CRASH ->
        if
        :: up[0] -> n = 0
        :: up[1] -> n = 1
        :: up[2] -> n = 2
        fi;
        up[n] = 0; nflt++; ncrash++; n = 0 }
    /* zkelect set-leaders: N 2 -> 1 or 1 -> 2 (the config watch) */
    :: atomic { nflt < MAXFAULTS && nchg < MAX_NCHG ->
        CFG_N = 3 - CFG_N; nflt++; nchg++; dirty = 1 }
    /* zkelect switchover --from NODE: a node that holds a slot */
    :: atomic { nflt < MAXFAULTS && nsw < MAX_SWITCH && swf == NONE && E_n > 0 ->
        if
        :: E_ld[0] != NONE -> swf = E_ld[0]
        :: E_n > 1 && E_ld[1] != NONE -> swf = E_ld[1]
        fi;
        nflt++; nsw++; dirty = 1 }
    :: break                            /* no more faults */
    od
}

/* the session of a crashed node expires (the server's session timeout):
   its ephemerals go, the elector's listing changes */
proctype net() {
    byte n;
end_net:
    do
    :: atomic { (!up[0] && sl[0]) || (!up[1] && sl[1]) || (!up[2] && sl[2]) ->
        if
        :: !up[0] && sl[0] -> n = 0
        :: !up[1] && sl[1] -> n = 1
        :: !up[2] && sl[2] -> n = 2
        fi;
        sl[n] = 0;
        if :: L_own[0] == n -> L_own[0] = NONE; L_st[0] = 0; L_ep[0] = 0 :: else fi;
        if :: L_own[1] == n -> L_own[1] = NONE; L_st[1] = 0; L_ep[1] = 0 :: else fi;
        dirty = 1; n = 0 }
    od
}

#ifndef LIVE
active proctype monitor() {
end_mon:
    do
    :: atomic { started && !S11 -> S11_one_ready_per_slot = 0; assert(S11_one_ready_per_slot) }
    :: atomic { started && !S12 -> S12_one_slot_per_node = 0; assert(S12_one_slot_per_node) }
    :: atomic { started && !S13 -> S13_at_most_N_ready = 0; assert(S13_at_most_N_ready) }
    /* L6: when nothing but a fault can happen any more (QUIET, no
       exclusion left, no watchdog due), both slots are READY (as many as
       there are live nodes) */
    :: atomic { started && QUIET && !WD_ANY && !ex[0] && !ex[1] && !ex[2] && !SSTABLE ->
        L6_quiescent_slots_ready = 0; assert(L6_quiescent_slots_ready) }
    od
}
#else
/* with the liveness claim: a state where nothing can happen any more
   stutters, so that the claim sees it for ever (else pan would read a
   deadlock short of both slots READY as the end of the run, not a cycle) */
active proctype idle() {
end_idle:
    do
    :: timeout -> skip
    od
}
#endif

/* ---------------------------------------------------------------------
 * Start: STABLE_START (default here): N = START_N, slot 0 node 0 READY at
 * epoch 1, slot 1 node 1 READY at epoch 2 (N = 2), node 2 a member, node 0
 * the elector. COLD_START: nothing decided yet, the elector evaluates.
 * ------------------------------------------------------------------- */
init {
    atomic {
        sl[0] = 1; sl[1] = 1; sl[2] = 1;
        up[0] = 1; up[1] = 1; up[2] = 1;
        E_ld[0] = NONE; E_ld[1] = NONE;
        L_own[0] = NONE; L_own[1] = NONE;
#ifdef COLD_START
        dirty = 1;
#else
        E_ver = 1; E_n = START_N;
        E_ld[0] = 0; E_ep[0] = 1; H_ep = 1;
        L_own[0] = 0; L_st[0] = ST_READY; L_ep[0] = 1;
        rl[0] = R_READY; ks[0] = 0; kep[0] = 1; tok[0] = 1; vv[0] = 1;
        gmax[0] = 1; grdy[0] = 1;
        if
        :: START_N > 1 ->
            E_ld[1] = 1; E_ep[1] = 2; H_ep = 2;
            L_own[1] = 1; L_st[1] = ST_READY; L_ep[1] = 2;
            rl[1] = R_READY; ks[1] = 1; kep[1] = 2; tok[1] = 1;
            gmax[1] = 2; grdy[1] = 2
        :: else
        fi;
        vv[1] = 1; vv[2] = 1;
#endif
        started = 1;
        run node(0); run node(1); run node(2);
        run elector();
        run faults();
        run net()
    }
}
#endif /* SLOTS */
