#!/bin/sh
# run.sh - check the Spin model of the election protocol (doc/model/README.md).
#
#   sh doc/model/run.sh            the bounded checks: safety and liveness
#   sh doc/model/run.sh --mutants  every mutant must FAIL with its violation
#   sh doc/model/run.sh --test     the bounded checks and the fast mutants
#                                  (the default test tier, tests/model)
#   sh doc/model/run.sh --smoke    one safety check and one mutant: the
#                                  model builds, runs and catches a bug
#                                  (tests/model with ZKELECT_MODEL_TIER=smoke:
#                                  make distcheck in tests/quickstart.sh)
#   sh doc/model/run.sh --deep     larger fault budgets, more starts, the
#                                  deep liveness check, every mutant
#   (each tier includes issue 16's checks: settle, holds, drain, scheduled
#   switchover, and their mutants; README.md, "Issue 16"; issue 17's
#   two-slot model, -DSLOTS=2, and its mutants; README.md, "Issue 17"; and
#   issue 18's direct READY create, -DPIPE, and the leader's resign with the
#   successor record, -DMAX_RESIGN=1, and their mutants; README.md, "Issue 18";
#   and issue 18's quiet members and the wake, on in every check, with its
#   checks and mutants, also in the default set; README.md, "Issue 18, second part";
#   and the operator's direct switchover, -DDIRECT_SO, and its mutants; README.md,
#   "Issue 18, the operator's direct switchover")
#   sh doc/model/run.sh --slots    only issue 17's: the two-slot checks of
#                                  every tier and their mutants
#   sh doc/model/run.sh --issue18  only issue 18's: its checks of every tier
#                                  and its mutants
#   sh doc/model/run.sh --wake  only the wake's (issue 18) checks and mutants,
#                                  with the wake gate's (-DOLD_NODE=n) and
#                                  the remembered predecessor's deep check
#   sh doc/model/run.sh --views only the checks and mutants of the C's
#                                  view changes (574a8bb: the elector-leader
#                                  takes the succession from its own writes;
#                                  ddc3ab4: a new group reads no first view;
#                                  4dce8aa: nor its elector's czxid)
#   sh doc/model/run.sh --fast  only the fast handover's (issue 18) checks,
#                                  reachability check and mutants, with its
#                                  deep checks
#   sh doc/model/run.sh --retake  only the retake configuration (a node cut
#                                  off, fenced, retaking, expired) and its
#                                  mutant WAKE_EXISTS_ALWAYS (part of --deep;
#                                  about 20 min, 12 GB)
#   sh doc/model/run.sh --dso   only the operator's direct switchover's
#                                  (issue 18, -DDIRECT_SO) checks,
#                                  reachability check and mutants, with its
#                                  deep checks (MODEL_NO_DEEP=1: without)
#
# Prints one "ok - ..." or "FAIL - ..." line per check and a summary; exits 0
# only when every check went as expected. Works from any directory and from a
# read-only source tree (a make distcheck build): everything is compiled in a
# temporary directory that is removed on exit. Needs spin (Debian package
# "spin") and a C compiler (CC, default cc). Every spin, cc and pan runs under
# nice -n 19. MODEL_MEMLIM (MB, default 4096) bounds pan's memory;
# MODEL_RETAKE_MEMLIM (MB, default 14336) that of --deep's retake check
# (11.8 GB hash-compacted) and of the fast handover's HO19 check (9.2 GB,
# --fast and --deep); MODEL_DEEP_MEMLIM (MB, default 10240) that of the two exhaustive --deep
# checks that outgrew 4 GB with bug 3's fix (README.md, "Bugs found", 3).
# MODEL_JOBS (default 1) runs that many checks at once (each under its own
# memory bound: mind them with --deep); their lines come in the usual order
# at the end.
set -u

here=$(cd "$(dirname "$0")" && pwd)
model=$here/election.pml
CC=${CC:-cc}
MEMLIM=${MODEL_MEMLIM:-4096}
DEEPMEM=${MODEL_DEEP_MEMLIM:-10240}
RETAKEMEM=${MODEL_RETAKE_MEMLIM:-14336}
JOBS=${MODEL_JOBS:-1}
mode=${1:---bounded}

case $JOBS in
''|*[!0-9]*|0) echo "run.sh: MODEL_JOBS=$JOBS: expected a number of parallel checks, 1 or more" >&2; exit 2 ;;
esac
case $mode in
--bounded|--mutants|--smoke|--test|--deep|--deep-only|--slots|--issue18|--wake|--views|--fast|--retake|--dso) ;;
-h|--help) sed -n '2,59p' "$0"; exit 0 ;;
*) echo "run.sh: unknown option $mode (--mutants, --smoke, --test, --deep, --slots, --issue18, --wake, --views, --fast, --retake, --dso)" >&2; exit 2 ;;
esac

if ! command -v spin >/dev/null 2>&1; then
    echo "FAIL - spin is not installed (Debian/Ubuntu: apt-get install spin)"
    echo "model: 0 passed, 1 failed"
    exit 1
fi
if [ ! -r "$model" ]; then
    echo "FAIL - $model is missing"
    echo "model: 0 passed, 1 failed"
    exit 1
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/zkelect-model.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
passed=0 failed=0
t_start=$(date +%s)

# check NAME EXPECT OPT SPINFLAGS CCFLAGS PANFLAGS
#   EXPECT: "pass", or the name of the assertion that must fail, or
#   "acceptance" (an acceptance cycle: the liveness claim is violated).
#   OPT: cc optimisation (-O0 compiles fast, for runs that end early;
#   -O2 compiles slowest, for the longest runs).
check_one() {
    name=$1 expect=$2 opt=$3 sflags=$4 cflags=$5 pflags=$6
    d=$tmp/$idx-$(echo "$name" | tr -c 'A-Za-z0-9_\n' '_')
    mkdir -p "$d" && cp "$model" "$d/election.pml" || return 1
    t0=$(date +%s)
    # shellcheck disable=SC2086
    if ! (cd "$d" && nice -n 19 spin $sflags -a election.pml >spin.out 2>&1 &&
          nice -n 19 "$CC" $opt -w -DMEMLIM="$MEMLIM" $cflags -o pan pan.c >cc.out 2>&1); then
        echo "FAIL - $name: the model does not build"
        sed 's/^/    /' "$d/spin.out" "$d/cc.out" 2>/dev/null | tail -n 20
        failed=$((failed + 1))
        return
    fi
    # shellcheck disable=SC2086
    (cd "$d" && nice -n 19 ./pan $pflags >pan.out 2>&1)
    t1=$(date +%s)
    out=$d/pan.out
    errors=$(sed -n 's/.*errors: \([0-9]*\).*/\1/p' "$out" | tail -n 1)
    stored=$(sed -n 's/^ *\([0-9.e+]*\) states, stored.*/\1/p' "$out" | tail -n 1)
    depth=$(sed -n 's/.*depth reached \([0-9]*\).*/\1/p' "$out" | tail -n 1)
    mem=$(sed -n 's/^ *\([0-9.]*\)[[:space:]]*total actual memory usage.*/\1/p' "$out" | tail -n 1)
    what=$(sed -n 's/.*assertion violated \([A-Za-z0-9_]*\).*/\1/p' "$out" | head -n 1)
    if [ -z "$what" ] && grep -q "acceptance cycle" "$out"; then
        what=acceptance
    fi
    incomplete=""
    if grep -q "reached -DMEMLIM bound\|max search depth too small\|out of memory" "$out"; then
        incomplete=yes
    fi
    stats="${stored:-?} states, depth ${depth:-?}, ${mem:-?} MB, $((t1 - t0)) s"
    if [ -z "$errors" ]; then
        echo "FAIL - $name: pan did not finish ($stats)"
        tail -n 5 "$out" | sed 's/^/    /'
        failed=$((failed + 1))
    elif [ "$expect" = pass ]; then
        if [ "$errors" = 0 ] && [ -z "$incomplete" ]; then
            echo "ok - $name: no violation ($stats)"
            passed=$((passed + 1))
        else
            echo "FAIL - $name: ${what:-search incomplete} ($stats)"
            grep -m 3 "violated\|cycle\|MEMLIM\|too small" "$out" | sed 's/^/    /'
            failed=$((failed + 1))
        fi
    elif [ "$errors" != 0 ] && [ "$what" = "$expect" ]; then
        echo "ok - $name: caught, $what violated ($stats)"
        passed=$((passed + 1))
    else
        echo "FAIL - $name: expected $expect to be violated, got ${what:-no violation} ($stats)"
        failed=$((failed + 1))
    fi
}

# check ...: check_one, or with MODEL_JOBS=J above 1, in whichever of the J
# lanes claims it first (an atomic mkdir), its lines kept for the end
idx=0
check() {
    idx=$((idx + 1))
    if [ "$JOBS" -gt 1 ]; then
        mkdir "$tmp/claim.$idx" 2>/dev/null || return 0
        check_one "$@" >"$tmp/out.$idx"
    else
        check_one "$@"
    fi
}

SAFE="-DSAFETY -DCOLLAPSE"
S6FLAGS="-DSTABLE_START=3 -DMAXFAULTS=1 -DMAX_DISC=0 -DMAX_CRASH=0 -DMAX_TFAIL=0 -DMAX_EARLY=0 -DMAX_SWITCH=0 -DMAX_FREEZE=0"
LIVE="-DCOLLAPSE -DNFAIR=3"
REARM="-DSTABLE_START=1 -DMAXFAULTS=2 -DMAX_DISC=1 -DMAX_EXP=0 -DMAX_CRASH=0 -DMAX_SWITCH=0 -DMAX_EARLY=0 -DMAX_FREEZE=0"
# issue 16: no fault at all, or one crash only (with -DCRASH_NODE=n: of node n)
NOFAULT="-DMAXFAULTS=0"
CRASH1="-DMAXFAULTS=1 -DMAX_DISC=0 -DMAX_EXP=0 -DMAX_SWITCH=0 -DMAX_TFAIL=0 -DMAX_EARLY=0 -DMAX_FREEZE=0"
TFAIL1="-DMAXFAULTS=1 -DMAX_DISC=0 -DMAX_EXP=0 -DMAX_SWITCH=0 -DMAX_CRASH=0 -DMAX_EARLY=0 -DMAX_FREEZE=0"
# bug 3 (README.md, "Bugs found"): one disconnect only (with -DDISC_NODE=n: of node n)
DISC1="-DMAXFAULTS=1 -DMAX_EXP=0 -DMAX_SWITCH=0 -DMAX_CRASH=0 -DMAX_TFAIL=0 -DMAX_EARLY=0 -DMAX_FREEZE=0"
# bug 3's counterexample: node 1 (the leader) cut off, any node drained
ABA="-DSTABLE_START=1 -DMAX_DRAIN=1 $DISC1"
HOLDS="-DSTABLE_START=0 -DHOLDS -DSETTLE -DMAX_PREF=1"
COLD="-DSTABLE_START=4 -DSETTLE"

safety_stable() {
    # safety: from the stable state (node 0 the elector and the READY
    # leader, nodes 1 and 2 members), any one fault: disconnect (with requests applied or not,
    # with or without the self-fence), expiry, freeze, crash, switchover, failed takeover,
    # early watchdog
    check "safety, stable start (leader = elector), 1 fault" pass -O1 \
        "-DSTABLE_START=0 -DMAXFAULTS=1" "$SAFE" "-m100000"
}

bounded() {
    safety_stable
    # safety (S6 with the rest): a takeover in flight, the new leader's
    # session expires (after its self-fence). 20.5 M states: hash-compacted
    # here (1.3 GB, 146 to 178 s; a collision may hide a state), exhaustive in --deep
    check "safety, a takeover in flight, the new leader's expiry (hash-compact)" pass -O2 \
        "$S6FLAGS" "-DSAFETY -DHC4" "-m100000 -w26"
    # liveness: under weak fairness once the faults stop, eventually one
    # READY leader for good: the leader (also the elector) crashes
    check "liveness, stable start, leader crash" pass -O0 \
        "-DLIVE -DSTABLE_START=0 -DMAXFAULTS=1 -DMAX_DISC=0 -DMAX_EXP=0 -DMAX_SWITCH=0 -DMAX_TFAIL=0 -DMAX_EARLY=0 -DMAX_FREEZE=0" \
        "$LIVE" "-m100000 -a -f"
    # liveness (bug 2): the leader is cut off, fences, is heard again and
    # takes over again, and that takeover fails
    check "safety and L1, a fenced leader's retake fails (disconnect + failed takeover)" pass -O0 \
        "$REARM" "$SAFE" "-m100000"
}

# issue 16 (DR operations): the settle hold at a cold start, failback and
# anti-flap holds on a voluntary move, drains, scheduled switchovers
bounded_dr() {
    # a cold start: nodes 0 and 1 registered, node 2 starting; the elector
    # holds until 3 members are listed or the settle timer ends
    check "issue 16: cold start, settle (expect 3)" pass -O1 \
        "$COLD -DEXPECT=3 $NOFAULT" "$SAFE" "-m100000"
    # a better node appears (preempt): the move waits for the failback delay
    # and the anti-flap interval; the leader (also the elector) crashes, at
    # any moment: never held, and no settle (a leader was seen)
    check "issue 16: failback/anti-flap holds, settle on, the leader crashes" pass -O1 \
        "$HOLDS $CRASH1 -DCRASH_NODE=0" "$SAFE" "-m100000"
    # any node drained (the leader too: a two-phase handover), the drain
    # ends at any moment
    check "issue 16: a drain (any node, the leader too)" pass -O0 \
        "-DSTABLE_START=1 -DMAX_DRAIN=1 $NOFAULT" "$SAFE" "-m100000"
    # a scheduled switchover; the leader (also the elector) crashes before
    # or after it is due
    check "issue 16: a scheduled switchover, the leader crashes" pass -O0 \
        "-DSTABLE_START=0 -DMAX_SCHED=1 $CRASH1 -DCRASH_NODE=0" "$SAFE" "-m100000"
}

mutants_dr() {
    check "mutant MUT_SETTLE_FOREVER (the settle timer never ends the hold)" \
        L1_quiescent_stable -O0 "-DMUT_SETTLE_FOREVER $COLD $NOFAULT" "$SAFE" "-m100000"
    check "mutant MUT_HOLD_ON_LOSS (the anti-flap hold on a lost leader)" \
        L4_forced_not_held -O0 "-DMUT_HOLD_ON_LOSS $HOLDS $CRASH1 -DCRASH_NODE=0" "$SAFE" "-m100000"
    check "mutant MUT_SETTLE_ON_LOSS (the settle hold after a leader was seen)" \
        L4_forced_not_held -O0 "-DMUT_SETTLE_ON_LOSS $HOLDS $CRASH1 -DCRASH_NODE=0" "$SAFE" "-m100000"
    check "mutant MUT_DRAIN_NO_HANDOVER (a drained leader's znode deleted with the new decision)" \
        S7_one_active_service -O0 "-DMUT_DRAIN_NO_HANDOVER -DSTABLE_START=1 -DMAX_DRAIN=1 $NOFAULT" \
        "$SAFE" "-m100000"
    # bug 3 back, either half of its fix undone: node 1's late release
    # deletes node 0's READY znode (same version); the elector reads it as
    # a failed takeover
    check "mutant MUT_RELEASE_NO_CHECK (the release deletes by version only: bug 3)" \
        S6_ready_never_takeover_failed -O0 "-DMUT_RELEASE_NO_CHECK $ABA -DDISC_NODE=1" "$SAFE" "-m100000"
    check "mutant MUT_FENCE_NO_BUMP (the elector's fence does not rewrite elected)" \
        S6_ready_never_takeover_failed -O1 "-DMUT_FENCE_NO_BUMP $ABA -DDISC_NODE=1" "$SAFE" "-m100000"
}

mutants_dr_more() {
    # bug 4's model of before (-DNO_LD_STALE): node 2, suspended, acts on
    # a stale NONODE, releases its own new znode; the elector excludes it
    check "mutant NO_LD_STALE (a leader znode's creation notified leaves the view read: bug 4)" \
        S6_ready_never_takeover_failed -O0 "-DNO_LD_STALE $ABA -DDISC_NODE=2" "$SAFE" "-m100000"
    check "mutant MUT_HOLD_FOREVER (failback/anti-flap timers never end a hold)" \
        L3_hold_ends -O0 "-DMUT_HOLD_FOREVER $HOLDS $CRASH1 -DCRASH_NODE=0" "$SAFE" "-m100000"
    check "mutant MUT_DRAIN_KEEP (a drained present leader is kept)" \
        L4_forced_not_held -O0 "-DMUT_DRAIN_KEEP -DSTABLE_START=1 -DMAX_DRAIN=1 $NOFAULT" "$SAFE" "-m100000"
    check "mutant MUT_SCHED_EARLY (a scheduled switchover acted on before it is due)" \
        S9_sched_not_early -O0 "-DMUT_SCHED_EARLY -DSTABLE_START=0 -DMAX_SCHED=1 $NOFAULT" "$SAFE" "-m100000"
    check "issue 16: a scheduled switchover of a paused group is refused" pass -O0 \
        "-DPAUSED -DSTABLE_START=0 -DMAX_SCHED=1 $NOFAULT" "$SAFE" "-m100000"
    check "mutant MUT_SCHED_PAUSED (a due scheduled switchover moves a paused group)" \
        S10_paused_refused -O0 "-DMUT_SCHED_PAUSED -DPAUSED -DSTABLE_START=0 -DMAX_SCHED=1 $NOFAULT" \
        "$SAFE" "-m100000"
}

deep_dr() {
    # the cold start with the settle timer alone (no expect)
    check "issue 16: cold start, settle (timer only)" pass -O1 \
        "$COLD $NOFAULT" "$SAFE" "-m100000"
    # one crash of any node, or a failed takeover, with each feature (one
    # expiry, freeze, early watchdog or switchover instead: each more than
    # 10 M states, not run; a disconnect of node 1 or node 0: bug 3's
    # checks, below; of node 2: bug 4's, below)
    check "issue 16: a drain, one crash (any node)" pass -O1 \
        "-DSTABLE_START=1 -DMAX_DRAIN=1 $CRASH1" "$SAFE" "-m100000"
    check "issue 16: a drain, a failed takeover" pass -O1 \
        "-DSTABLE_START=1 -DMAX_DRAIN=1 $TFAIL1" "$SAFE" "-m100000"
    # bug 3 (the release's ABA), fixed: the leader (node 1) is cut off and
    # fences, a drain moves the decision, the elector fences node 1's znode,
    # the next leader's znode reaches node 1's version. 14.5 M states,
    # ~47 s: hash-compacted (exhaustive, the 4 GB bound stops it at 10.3
    # M); here, not in the default set, which the fix made ~35 s longer
    # already (the takeover-in-flight check: 10.9 -> 21.0 M states)
    check "bug 3: a drain, the leader (node 1) cut off (hash-compact)" pass -O1 \
        "$ABA -DDISC_NODE=1" "-DSAFETY -DHC4" "-m100000 -w26"
    # the same with the elector (node 0) cut off instead: its fence's view
    # may be the stale one (11.3 M states, hash-compacted)
    check "bug 3: a drain, the elector (node 0) cut off (hash-compact)" pass -O1 \
        "$ABA -DDISC_NODE=0" "-DSAFETY -DHC4" "-m100000 -w26"
    # bug 4 (README.md, "Bugs found"), the model's divergence fixed (a
    # leader znode's creation notified makes the view unread, as the C):
    # the same with node 2 (the next leader) cut off. 53.7 M states, 3.1
    # GB, ~3.5 min, hash-compacted; the queues' bounds raised (with RQ 10
    # and EVQ 12 it stops at bounds_ok: node 2's reads pile up around
    # its reconnect)
    check "bug 4: a drain, the next leader (node 2) cut off (hash-compact)" pass -O1 \
        "$ABA -DDISC_NODE=2 -DRQ=16 -DEVQ=16" "-DSAFETY -DHC4" "-m100000 -w27"
    # (hash-compacted since the wake (issue 18): 18.4 M states; exhaustive, the
    # 4 GB bound stops it at 10.6 M)
    check "issue 16: holds, settle on, one crash (any node), hash-compact" pass -O1 \
        "$HOLDS $CRASH1" "-DSAFETY -DHC4" "-m100000 -w27"
    check "issue 16: holds, settle on, a failed takeover" pass -O1 \
        "$HOLDS $TFAIL1" "$SAFE" "-m100000"
    check "issue 16: a scheduled switchover, one crash (any node)" pass -O1 \
        "-DSTABLE_START=0 -DMAX_SCHED=1 $CRASH1" "$SAFE" "-m100000"
    check "issue 16: a scheduled switchover, a failed takeover" pass -O1 \
        "-DSTABLE_START=0 -DMAX_SCHED=1 $TFAIL1" "$SAFE" "-m100000"
    # liveness: under weak fairness, once the faults stop, one READY leader
    # for good, with holds and the leader's crash (L4 after every step)
    check "issue 16: liveness, holds, the leader crashes" pass -O1 \
        "-DLIVE $HOLDS $CRASH1 -DCRASH_NODE=0" "$LIVE" "-m200000 -a -f"
}

mutants_fast() {
    check "mutant MUT_NO_SUSPEND (no suspend on disconnect)" S3_expired_never_acts -O0 \
        "-DMUT_NO_SUSPEND -DSTABLE_START=2 -DMAXFAULTS=1" "$SAFE" "-m100000"
    check "mutant MUT_DELETE_FIRST (delete the znode before stopping)" S5_stop_before_delete -O1 \
        "-DMUT_DELETE_FIRST -DSTABLE_START=0 -DMAXFAULTS=1" "$SAFE" "-m100000"
    # (the watchdog re-armed for a missing leader znode, bug 2's fix, heals
    # bug 1 too: the mutant is checked without that second net)
    check "mutant MUT_NEWREG (bug 1: a re-registered leader is 'no change')" L1_quiescent_stable -O0 \
        "-DMUT_NEWREG -DMUT_NO_REARM_GONE -DSTABLE_START=1 -DMAXFAULTS=1" "$SAFE" "-m100000"
    # issue 14: one mutant per rule of the service's activity
    # the leader's expiry: it did not fence, a new leader takes over
    check "mutant MUT_NO_FENCE (no self-fence: an ACTIVE node's session expires)" \
        S7_one_active_service -O0 \
        "-DMUT_NO_FENCE -DSTABLE_START=0 -DMAXFAULTS=1 -DMAX_FREEZE=0" "$SAFE" "-m100000"
    # a takeover in flight fails: its PROGRESS znode goes before its
    # step-down ended, the elector moves on
    check "mutant MUT_RELEASE_FIRST (a failed takeover releases before its step-down)" \
        S7_one_active_service -O0 \
        "-DMUT_RELEASE_FIRST -DSTABLE_START=3 -DMAXFAULTS=1 -DMAX_DISC=0 -DMAX_EXP=0 -DMAX_CRASH=0 -DMAX_FREEZE=0 -DMAX_EARLY=0 -DMAX_SWITCH=0" \
        "$SAFE" "-m100000"
    # the leader is cut off, fences, is heard again: READY without a takeover
    check "mutant MUT_NO_REARM_GONE (bug 2: no watchdog once a retake failed)" L1_quiescent_stable -O0 \
        "-DMUT_NO_REARM_GONE $REARM" "$SAFE" "-m100000"
    check "mutant MUT_RESUME_FENCED (a fenced node resumes READY)" S8_ready_is_active -O0 \
        "-DMUT_RESUME_FENCED -DSTABLE_START=0 -DMAXFAULTS=1 -DMAX_FREEZE=0" "$SAFE" "-m100000"
    # the leader (node 1) is cut off, fences, is heard again and retakes;
    # the retake is applied, then node 1's session expires (not ACTIVE:
    # allowed) and node 0 takes over; node 1 handles the retake's reply
    check "mutant MUT_NO_LEASE (start_takeover without its lease check: ACTIVE after the expiry)" \
        S7_one_active_service -O1 \
        "-DMUT_NO_LEASE -DSTABLE_START=1 -DMAXFAULTS=2 -DMAX_DISC=1 -DMAX_EXP=1 -DMAX_CRASH=0 -DMAX_SWITCH=0 -DMAX_EARLY=0 -DMAX_FREEZE=0 -DMAX_TFAIL=0 -DEXP_NODE=1" \
        "$SAFE" "-m100000"
    # a switchover, then an early watchdog: the elector deletes the old
    # leader znode while the old leader still steps down
    check "mutant MUT_FENCE_EARLY (the elector deletes an ACTIVE leader's znode)" \
        S7_one_active_service -O0 \
        "-DMUT_FENCE_EARLY -DSTABLE_START=0 -DMAXFAULTS=2 -DMAX_DISC=0 -DMAX_EXP=0 -DMAX_CRASH=0 -DMAX_TFAIL=0 -DMAX_FREEZE=0" \
        "$SAFE" "-m100000"
}

mutants_slow() {
    # two faults each (a switchover, then an early watchdog): a write that
    # does not check `elected` is applied for a decision that moved on
    check "mutant MUT_READY_NOCHECK (READY without the check on elected)" \
        S4_leader_writes_follow_decision -O0 \
        "-DMUT_READY_NOCHECK -DSTABLE_START=0 -DMAXFAULTS=2 -DMAX_DISC=0 -DMAX_EXP=0 -DMAX_CRASH=0 -DMAX_TFAIL=0 -DMAX_FREEZE=0" \
        "$SAFE" "-m100000"
}

mutants_deep() {
    # from a takeover in flight, the new leader's expiry: the elector reads
    # its READY update after the expiry deleted the znode (it never saw
    # READY), then reads the vanished PROGRESS znode of a node still in its
    # member cache as a failed takeover. Hash-compacted since bug 3's fix
    # (the fence's write of elected doubled this space: exhaustive, the
    # 4 GB bound stops it at 11.0 M states before the error)
    check "mutant MUT_TFAIL_AT_ONCE (a vanished PROGRESS znode excluded without a fresh listing)" \
        S6_ready_never_takeover_failed -O1 \
        "-DMUT_TFAIL_AT_ONCE -DSTABLE_START=3 -DMAXFAULTS=1 -DMAX_DISC=0 -DMAX_CRASH=0 -DMAX_TFAIL=0 -DMAX_EARLY=0 -DMAX_SWITCH=0 -DMAX_FREEZE=0" \
        "-DSAFETY -DHC4" "-m100000 -w26"
    check "mutant MUT_CREATE_NOCHECK (create without the check on elected)" \
        S4_leader_writes_follow_decision -O0 \
        "-DMUT_CREATE_NOCHECK -DSTABLE_START=0 -DMAXFAULTS=2 -DMAX_DISC=0 -DMAX_EXP=0 -DMAX_CRASH=0 -DMAX_TFAIL=0 -DMAX_FREEZE=0" \
        "$SAFE" "-m100000"
}

deep() {
    bounded
    bounded_dr
    # (21.1 M states, 7.8 GB since bug 3's fix: MODEL_DEEP_MEMLIM)
    check "safety, a takeover in flight, the new leader's expiry (exhaustive)" pass -O1 \
        "$S6FLAGS" "$SAFE -UMEMLIM -DMEMLIM=$DEEPMEM" "-m100000"
    check "safety, stable start (either leader; node 0 the elector), 1 fault" pass -O1 \
        "-DSTABLE_START=2 -DMAXFAULTS=1" "$SAFE" "-m100000"
    # any one fault, liveness: weak fairness, once the faults stop
    check "liveness, stable start, any 1 fault" pass -O1 \
        "-DLIVE -DSTABLE_START=0 -DMAXFAULTS=1" "$LIVE" "-m200000 -a -f"
    # Not here: two faults from a stable start (more than 35 M states,
    # 1.9 GB with -DHC4 after 5 min, unfinished) and the first election with
    # one fault; see README.md, Results.
}

# issue 18 (README.md, "Issue 18"): A, the direct READY create (-DPIPE: a
# takeover with no work creates the leader znode READY in one multi; with
# -DWORK_NODE=n node n's takeovers have work: create PROGRESS, the work,
# READY); B, the READY leader
# resigns (-DMAX_RESIGN=1) and hands over with the elector's successor record
P18CS="-DSTABLE_START=1 -DMAXFAULTS=2 -DMAX_DISC=0 -DMAX_EXP=0 -DMAX_FREEZE=0 -DMAX_TFAIL=0 -DMAX_EARLY=0 -DCRASH_NODE=1"
# P18CS with a failed takeover allowed too (any two of: the crash, the
# switchover, a failed takeover)
P18CT="-DSTABLE_START=1 -DMAXFAULTS=2 -DMAX_DISC=0 -DMAX_EXP=0 -DMAX_FREEZE=0 -DMAX_EARLY=0 -DCRASH_NODE=1"
R18B="-DMAX_RESIGN=1 -DMAXFAULTS=1 -DMAX_DISC=0 -DMAX_EXP=0 -DMAX_FREEZE=0 -DMAX_TFAIL=0 -DMAX_EARLY=0"
R18="$R18B -DSTABLE_START=2"
# the READY leader (node 0, the elector) resigns after node 1's expiry: the
# successor (node 1, registered again) is not the next elector (node 2)
HO19="-DMAX_RESIGN=1 -DSTABLE_START=0 -DMAXFAULTS=1 -DMAX_DISC=0 -DMAX_CRASH=0 -DMAX_FREEZE=0 -DMAX_TFAIL=0 -DMAX_EARLY=0 -DMAX_SWITCH=0 -DEXP_NODE=1"
# HO19 with one early watchdog too (the fast handover: two faults)
# the retake configuration (README.md, "Issue 18, the fast handover", finding 4)
RETAKE="-DSTABLE_START=1 -DMAXFAULTS=2 -DMAX_DISC=1 -DMAX_EXP=1 -DMAX_CRASH=0 -DMAX_SWITCH=0 -DMAX_EARLY=0 -DMAX_FREEZE=0 -DMAX_TFAIL=0 -DEXP_NODE=1"
HO19E="-DMAX_RESIGN=1 -DSTABLE_START=0 -DMAXFAULTS=2 -DMAX_DISC=0 -DMAX_CRASH=0 -DMAX_FREEZE=0 -DMAX_TFAIL=0 -DMAX_EARLY=1 -DMAX_SWITCH=0 -DEXP_NODE=1"
bounded_18() {
    # A: the leader (node 1) crashes, the named candidate creates its
    # leader znode READY; a switchover may move the decision before the
    # create is applied
    check "issue 18: direct READY creates, the leader crashes, a switchover" pass -O1 \
        "-DPIPE $P18CS" "$SAFE" "-m100000"
    # the same, node 2's takeovers with work (two phases; its takeover may
    # fail), node 0's without: the elector may name either
    check "issue 18: direct READY creates, node 2's takeovers have work, the leader crashes, a switchover, a failed takeover" pass -O1 \
        "-DPIPE -DWORK_NODE=2 $P18CT" "$SAFE" "-m100000"
    # L2 with both kinds of takeover: either leader crashes, or a switchover
    check "issue 18: liveness, direct READY creates, node 2's takeovers have work, a crash or a switchover" pass -O1 \
        "-DLIVE -DPIPE -DWORK_NODE=2 -DSTABLE_START=2 -DMAXFAULTS=1 -DMAX_DISC=0 -DMAX_EXP=0 -DMAX_TFAIL=0 -DMAX_EARLY=0 -DMAX_FREEZE=0" \
        "$LIVE" "-m200000 -a -f"
    # B: either leader resigns (handover or ordinary leave), any node may
    # crash (the successor too: the elector rewrites the record); A on
    check "issue 18: the READY leader resigns (either leader), a crash, direct READY creates" pass -O1 \
        "-DPIPE $R18 -DMAX_SWITCH=0" "$SAFE" "-m100000"
    # L2 after a resign of the leader that is also the elector
    check "issue 18: liveness, the READY leader (the elector) resigns" pass -O1 \
        "-DLIVE -DMAX_RESIGN=1 -DSTABLE_START=0 -DMAXFAULTS=0" "$LIVE" "-m200000 -a -f"
}

mutants_18() {
    check "mutant MUT_PIPE_NOCHECK (the direct READY create does not check elected)" \
        S4_leader_writes_follow_decision -O0 "-DPIPE -DMUT_PIPE_NOCHECK $P18CS" "$SAFE" "-m100000"
    check "mutant MUT_PIPE_WORK (a takeover with work creates READY: READY before the work)" \
        S18_ready_after_work -O0 "-DPIPE -DWORK_NODE=2 -DMUT_PIPE_WORK $P18CS" "$SAFE" "-m100000"
    # node 1 expires and registers again: the elector rewrites the record
    # twice (node 2, then node 1 again), the leader (node 0) hands over with
    # the one it read before (node 2, still registered). (The wake, issue 18: the
    # successor's crash no longer reaches S17: the touch of its gone
    # registration fails the handover.)
    check "mutant MUT_SUCC_NOCHECK (the handover does not check successor's version)" \
        S17_handover_current_record -O2 "-DMUT_SUCC_NOCHECK $HO19" "$SAFE" "-m100000"
}

deep_18() {
    check "issue 18: direct READY creates, stable start, 1 fault" pass -O1 \
        "-DPIPE -DSTABLE_START=0 -DMAXFAULTS=1" "$SAFE" "-m100000"
    check "issue 18: direct READY creates, node 2's takeovers have work, stable start, 1 fault" pass -O1 \
        "-DPIPE -DWORK_NODE=2 -DSTABLE_START=0 -DMAXFAULTS=1" "$SAFE" "-m100000"
    # (the leader node 0, also the elector, resigns with a switchover: the
    # fast handover's check of the same knobs, deep_fast)
    check "issue 18: liveness, the READY leader resigns (either leader)" pass -O1 \
        "-DLIVE -DMAX_RESIGN=1 -DSTABLE_START=2 -DMAXFAULTS=0" "$LIVE" "-m200000 -a -f"
    # the op order proposed in README.md "Issue 18" (the model's knob
    # HO_DELETE_FIRST): still safe
    check "issue 18: the handover deletes the leader znode before it sets elected (HO_DELETE_FIRST)" pass -O1 \
        "-DPIPE -DHO_DELETE_FIRST $R18 -DMAX_SWITCH=0" "$SAFE" "-m100000"
}

# issue 17: two slots (README.md, "Issue 17"). The fault process may use
# any of its budgets (default MAXFAULTS=2: a crash, set-leaders 2 -> 1 -> 2,
# a switchover --from, a failed takeover) or stop at any point.
SL="-DSLOTS=2"
bounded_slots() {
    check "issue 17: two slots, stable start (N = 2), 2 faults" pass -O1 \
        "$SL" "$SAFE" "-m100000"
    check "issue 17: two slots, stable start with N = 1 (raised, lowered), 2 faults" pass -O1 \
        "$SL -DSTART_N=1" "$SAFE" "-m100000"
    check "issue 17: two slots, liveness, stable start, 2 faults" pass -O1 \
        "$SL -DLIVE" "$LIVE" "-m200000 -a -f"
    check "issue 17: two slots, stable start, 3 faults" pass -O1 \
        "$SL -DMAXFAULTS=3" "$SAFE" "-m100000"
}

# one mutant per slot rule, each with the budgets of the first check
mutants_slots() {
    check "mutant MUT_CREATE_FIRST (a node moved to another slot creates its znode before releasing the old)" \
        S12_one_slot_per_node -O0 "$SL -DMUT_CREATE_FIRST" "$SAFE" "-m100000"
    check "mutant MUT_TWO_SLOTS (the elector assigns a kept holder to a free slot too)" \
        S12_one_slot_per_node -O0 "$SL -DMUT_TWO_SLOTS" "$SAFE" "-m100000"
    check "mutant MUT_NO_WAIT (a slot's new holder does not wait for the old holder's znode)" \
        S11_one_ready_per_slot -O0 "$SL -DMUT_NO_WAIT" "$SAFE" "-m100000"
    check "mutant MUT_LOWER_NO_RELEASE (N lowered, the released slot's entry kept and read)" \
        S13_at_most_N_ready -O0 "$SL -DMUT_LOWER_NO_RELEASE" "$SAFE" "-m100000"
    check "mutant MUT_EPOCH_PER_SLOT (each slot its own epoch counter)" \
        S14_slot_epochs_grow -O0 "$SL -DMUT_EPOCH_PER_SLOT" "$SAFE" "-m100000"
    check "mutant MUT_NOT_STICKY (slots filled in the policy's order, holders moved)" \
        S15_sticky_lowest_first -O0 "$SL -DMUT_NOT_STICKY" "$SAFE" "-m100000"
    check "mutant MUT_WD_SLOT0 (slot 0's watchdog only)" \
        L6_quiescent_slots_ready -O0 "$SL -DMUT_WD_SLOT0" "$SAFE" "-m100000"
    check "mutant MUT_WD_SLOT0 under the liveness claim" \
        acceptance -O0 "$SL -DLIVE -DMUT_WD_SLOT0" "$LIVE" "-m200000 -a -f"
}

deep_slots() {
    check "issue 17: two slots, stable start, 4 faults" pass -O1 \
        "$SL -DMAXFAULTS=4" "$SAFE" "-m100000"
    check "issue 17: two slots, first election (N = 2), 2 faults" pass -O1 \
        "$SL -DCOLD_START" "$SAFE" "-m100000"
    check "issue 17: two slots, first election with N = 1, 3 faults" pass -O1 \
        "$SL -DCOLD_START -DSTART_N=1 -DMAXFAULTS=3" "$SAFE" "-m100000"
    check "issue 17: two slots, liveness, stable start, 3 faults" pass -O1 \
        "$SL -DLIVE -DMAXFAULTS=3" "$LIVE" "-m200000 -a -f"
}

# the wake, issue 18 (README.md, "Issue 18, second part"): quiet members and the wake. On in every
# check above; these aim at it. W19: node 2 alone eligible, so every
# decision names a member that is neither the elector nor in play (the
# first election: nodes 0 and 1 registered, node 2 starting)
W19="-DONLY_ELIG=2 -DSTABLE_START=4"
EARLY1="-DMAXFAULTS=1 -DMAX_DISC=0 -DMAX_EXP=0 -DMAX_SWITCH=0 -DMAX_TFAIL=0 -DMAX_CRASH=0 -DMAX_FREEZE=0"
CRASH2="-DMAXFAULTS=2 -DMAX_CRASH=2 -DMAX_DISC=0 -DMAX_EXP=0 -DMAX_SWITCH=0 -DMAX_TFAIL=0 -DMAX_EARLY=0 -DMAX_FREEZE=0"
bounded_wake() {
    # an early watchdog: the decision naming node 2 is replaced (no
    # leader) and written again while node 2 handles its wake
    check "the wake (issue 18): first election, node 2 alone eligible, an early watchdog" pass -O0 \
        "$W19 $EARLY1" "$SAFE" "-m100000"
    check "the wake (issue 18): liveness, first election, node 2 alone eligible" pass -O0 \
        "-DLIVE $W19 -DMAXFAULTS=0" "$LIVE" "-m200000 -a -f"
    # the remembered predecessor (README.md, "Issue 18, the predecessor's
    # deletion"): nodes 0 (elector, leader) and 1 crash; node 2 hears node
    # 1 go, checks node 0, the next below that its listing showed, finds it
    # gone, lists and becomes the elector
    check "the remembered predecessor (issue 18): stable start, two crashes" pass -O0 \
        "-DSTABLE_START=0 $CRASH2" "$SAFE" "-m100000"
    # an expiry deletes the leader znode before the election znode (the
    # server's order is its own; the other checks delete the election
    # znode first)
    check "safety, stable start, 1 fault, an expiry deletes the leader znode first" pass -O1 \
        "-DEXP_LEADER_FIRST -DSTABLE_START=0 -DMAXFAULTS=1" "$SAFE" "-m100000"
    # a leaver keeps its place (README.md, "Issue 18, the predecessor's
    # deletion", 9d6ed04): node 1, the READY leader, resigns while node 0,
    # the elector, crashes; node 1 walks on during its step-down and is
    # the elector until it has left (L11)
    check "a leaver keeps its place: the leader resigns, the elector crashes" pass -O0 \
        "-DMAX_RESIGN=1 -DSTABLE_START=1 $CRASH1 -DCRASH_NODE=0" "$SAFE" "-m100000"
}

# a switchover, node 0's crash, a failed takeover (a watchdog per epoch)
WDEP="-DSTABLE_START=0 -DMAXFAULTS=3 -DMAX_DISC=0 -DMAX_EXP=0 -DMAX_EARLY=0 -DMAX_FREEZE=0 -DCRASH_NODE=0"
mutant_elector_noread() {
    check "mutant MUT_ELECTOR_NOREAD (a new elector does not read what it left unread)" \
        L1_quiescent_stable -O0 "-DMUT_ELECTOR_NOREAD -DEXP_LEADER_FIRST -DSTABLE_START=0 $CRASH1" "$SAFE" "-m100000"
}

mutants_wake() {
    # node 0 (leader, elector) crashes; node 1, the new elector, names node 2
    check "mutant MUT_NOWAKE (no touch), a decision after the leader's crash" \
        L8_named_learns -O0 "-DMUT_NOWAKE -DSTABLE_START=0 $CRASH1" "$SAFE" "-m100000"
    check "mutant MUT_NOWAKE, the handover to a re-registered successor" \
        L8_named_learns -O0 "-DMUT_NOWAKE $HO19" "$SAFE" "-m100000"
    # L2 itself: node 2 never learns, the watchdog excludes it, no leader,
    # the exclusion ends, node 2 again: epochs grow until the model's bound
    check "mutant MUT_NOWAKE under the liveness claim (node 2 alone eligible)" \
        bounds_ok -O0 "-DLIVE -DMUT_NOWAKE $W19 -DMAXFAULTS=0" "$LIVE" "-m200000 -a -f"
    check "mutant MUT_WAKE_LATE (the wake reads elected before it re-arms)" \
        L8_named_learns -O0 "-DMUT_WAKE_LATE $W19 $EARLY1" "$SAFE" "-m100000"
    check "mutant MUT_STAT_NOREAD (no read of elected after the registration's STAT_MINE)" \
        L8_named_learns -O0 "-DMUT_STAT_NOREAD $W19 -DMAXFAULTS=0" "$SAFE" "-m100000"
    # node 0 (elector, leader) crashes; its session's expiry deletes the
    # leader znode first (EXP_LEADER_FIRST): node 1 hears it as a quiet
    # member, then becomes the elector at its predecessor's deletion. (With
    # the election znode deleted first, node 1 becomes the elector at once
    # and hears the leader's deletion as the elector: the mutant's window
    # needs the other order, or a listing between the two, as before the
    # shortcut to the elector)
    mutant_elector_noread
    # node 2 takes node 0, gone, for its predecessor without a request: no
    # elector is left, and no leader
    check "mutant MUT_LOWER_UNCHECKED (a remembered predecessor taken unchecked)" \
        L1_quiescent_stable -O0 "-DMUT_LOWER_UNCHECKED -DSTABLE_START=0 $CRASH2" "$SAFE" "-m100000"
    # the C before 9d6ed04: node 1 resigns, node 0 (the elector) crashes;
    # node 1, stepping down, lets its predecessor's deletion go: the
    # lowest member is nobody's elector while the step-down runs
    check "mutant MUT_LEAVING_NOWALK (a leaver still registered lets its predecessor's deletion go)" \
        L11_lowest_is_elector -O0 "-DMUT_LEAVING_NOWALK -DMAX_RESIGN=1 -DSTABLE_START=1 $CRASH1 -DCRASH_NODE=0" \
        "$SAFE" "-m100000"
    # the model before 9d6ed04: node 0, the leader and the elector,
    # resigns and stops its elector at once: no elector during its step-down
    check "mutant MUT_RESIGN_STOPS (a resigning elector stops at the resign)" \
        L11_lowest_is_elector -O0 "-DMUT_RESIGN_STOPS -DMAX_RESIGN=1 -DSTABLE_START=0 -DMAXFAULTS=0" "$SAFE" "-m100000"
    # a watchdog per epoch (README.md, "A watchdog per epoch"): a
    # switchover names node 1, node 0's watchdog names node 2, node 0
    # crashes, node 2's takeover fails; node 1 becomes the elector by the
    # shortcut with its read of that decision in flight, and its watchdog
    # of the decision before keeps the new one unguarded: nobody leads
    check "mutant MUT_WD_STALE (a watchdog armed for an older epoch keeps the new one unguarded)" \
        L1_quiescent_stable -O0 "-DMUT_WD_STALE $WDEP" "$SAFE" "-m100000"
}

deep_lower() {
    # a watchdog per epoch: the mutant's budgets, every node new (1.7 M
    # states, 0.7 GB, ~20 s)
    check "a watchdog per epoch: a switchover, node 0's crash, a failed takeover" pass -O1 \
        "$WDEP" "$SAFE" "-m100000"
    # two faults of any kind but disconnects, switchovers, failed takeovers
    # and early watchdogs (crashes, expiries): 20.9 M states,
    # hash-compacted (47 s, 1.3 GB)
    check "the remembered predecessor (issue 18): stable start, two crashes or expiries (hash-compact)" pass -O1 \
        "-DSTABLE_START=0 -DMAXFAULTS=2 -DMAX_DISC=0 -DMAX_SWITCH=0 -DMAX_TFAIL=0 -DMAX_EARLY=0 -DMAX_FREEZE=0" \
        "-DSAFETY -DHC4" "-m100000 -w26"
}

# the wake gate (README.md, "Issue 18, the wake gate"): node OLD_NODE is of
# a release before the wake (its decisions wake nobody and say no wake; it
# always follows); a new elector says wake while no old node is a member in
# its view; a new node is quiet only while its decision says wake
GCRASH0="-DSTABLE_START=0 $CRASH1 -DCRASH_NODE=0"
bounded_gate() {
    # the old node (0) is the leader and the elector from the start: any
    # one fault, its decisions (a switchover, a crash of either member, a
    # failed takeover, ...) wake nobody
    check "wake gate: old node 0 the elector and leader, 1 fault" pass -O1 \
        "-DOLD_NODE=0 -DSTABLE_START=0 -DMAXFAULTS=1" "$SAFE" "-m100000"
    # the new elector (node 0, the leader) crashes, the old node 1 becomes
    # the elector; a switchover before or after
    check "wake gate: old node 1 the elector after node 0's crash, a switchover" pass -O1 \
        "-DOLD_NODE=1 -DSTABLE_START=0 -DMAXFAULTS=2 -DMAX_DISC=0 -DMAX_EXP=0 -DMAX_TFAIL=0 -DMAX_EARLY=0 -DMAX_FREEZE=0 -DCRASH_NODE=0" \
        "$SAFE" "-m100000"
    # the first election by the old node 0, node 2 alone eligible: before
    # any decision every member follows
    check "wake gate: first election by old node 0, node 2 alone eligible" pass -O0 \
        "-DOLD_NODE=0 $W19 -DMAXFAULTS=0" "$SAFE" "-m100000"
    check "wake gate: liveness, old node 1 the elector after node 0's crash, node 2 alone eligible" pass -O0 \
        "-DLIVE -DOLD_NODE=1 -DONLY_ELIG=2 $GCRASH0" "$LIVE" "-m200000 -a -f"
}

mutants_gate() {
    # node 0 crashes, the old node 1 names node 2 (no touch), node 2 is
    # quiet on the first decision (wake false) and never hears it
    check "mutant MUT_NOGATE (new nodes quiet whatever the decision says), old node 1 the elector" \
        L8_named_learns -O0 "-DMUT_NOGATE -DOLD_NODE=1 $GCRASH0" "$SAFE" "-m100000"
    # the same under the liveness claim: node 2 never learns, the watchdog
    # excludes it, epochs grow until the model's bound (as MUT_NOWAKE's)
    check "mutant MUT_NOGATE under the liveness claim (node 2 alone eligible)" \
        bounds_ok -O0 "-DLIVE -DMUT_NOGATE -DOLD_NODE=1 -DONLY_ELIG=2 $GCRASH0" "$LIVE" "-m200000 -a -f"
    # node 0 (new) writes wake with the old node 1 a member (a switchover to
    # it), crashes; node 1's takeover fails, it names node 2 (no touch),
    # quiet: unheard, excluded, named again, until the epoch bound (L8 is
    # reachable too; the depth-first search meets the bound first)
    check "mutant MUT_WAKE_ALWAYS (a new elector says wake with an old member)" \
        bounds_ok -O0 "-DMUT_WAKE_ALWAYS -DOLD_NODE=1 -DSTABLE_START=0 -DMAXFAULTS=3 -DMAX_DISC=0 -DMAX_EXP=0 -DMAX_EARLY=0 -DMAX_FREEZE=0 -DCRASH_NODE=0" \
        "$SAFE" "-m100000"
}

deep_gate() {
    # MUT_WAKE_ALWAYS's budgets: a switchover, node 0's crash, a failed
    # takeover (8.1 M states, ~50 s; since bug 3's fix 14.2 M, 5.3 GB, ~80
    # s: MODEL_DEEP_MEMLIM; now 3.3 M, 1.4 GB, ~30 s). It found the
    # watchdog of an older epoch (MUT_WD_STALE, README.md, "A watchdog per
    # epoch"): 2.5 M states to the error
    check "wake gate: old node 1, a switchover, node 0's crash, a failed takeover" pass -O1 \
        "-DOLD_NODE=1 -DSTABLE_START=0 -DMAXFAULTS=3 -DMAX_DISC=0 -DMAX_EXP=0 -DMAX_EARLY=0 -DMAX_FREEZE=0 -DCRASH_NODE=0" \
        "$SAFE -UMEMLIM -DMEMLIM=$DEEPMEM" "-m100000"
}

# the C's view changes (README.md, "After the C: the elector-leader's
# succession and a new group's view"), on in every check above:
# 574a8bb (SELF_SUCC): a leader that is the elector watches no `successor`
# and hands over with what its own successful writes made of it; ddc3ab4
# (ABSENT): the node whose registration created the group (node 0 in
# STABLE_START=4) takes its view as absent and arms it after its own writes;
# 4dce8aa (CZX_ASSUME): nor does that node read its czxid or watch its own
# election znode until elector_stop
bounded_views() {
    # the first election from node 0's deferred view, every node eligible
    # (it may name itself: its own slot armed by its create's reply)
    check "views: a new group's first election (node 0's view deferred), every node eligible" pass -O1 \
        "-DSTABLE_START=4 $NOFAULT" "$SAFE" "-m100000"
    # node 2 alone eligible (the slot given to another node), node 0 (the
    # elector with the deferred view) crashes at any moment
    check "views: a new group, node 2 alone eligible, node 0 crashes" pass -O0 \
        "$W19 $CRASH1 -DCRASH_NODE=0" "$SAFE" "-m100000"
}

deep_views() {
    # node 0's session expires at any moment (its elector stops: what it
    # left unwatched is armed, on the old handle, then dropped; it registers
    # again and reads its view)
    check "views: a new group, node 2 alone eligible, node 0's expiry" pass -O1 \
        "$W19 -DMAXFAULTS=1 -DMAX_DISC=0 -DMAX_CRASH=0 -DMAX_SWITCH=0 -DMAX_TFAIL=0 -DMAX_FREEZE=0 -DMAX_EARLY=0 -DEXP_NODE=0" \
        "$SAFE" "-m100000"
}

mutants_views() {
    # node 0 names node 2 and never watches the leader znode: it never sees
    # node 2's READY (its watchdog would exclude a READY leader)
    check "mutant MUT_SLOT_NOARM (a slot given to another node left unarmed)" \
        L9_elector_view_current -O0 "-DMUT_SLOT_NOARM $W19 $NOFAULT" "$SAFE" "-m100000"
    # elected never armed after the first decision: an operator deletes it
    # (the only foreign write of it here; a handover's deregistration makes
    # the elector write, fail on the version and read: README)
    check "mutant MUT_EL_NOARM (elected never armed after the first decision), elected deleted" \
        L9_elector_view_current -O0 \
        "-DMUT_EL_NOARM $W19 -DMAXFAULTS=1 -DMAX_LOSE=1 -DMAX_DISC=0 -DMAX_EXP=0 -DMAX_SWITCH=0 -DMAX_TFAIL=0 -DMAX_CRASH=0 -DMAX_FREEZE=0 -DMAX_EARLY=0" \
        "$SAFE" "-m100000"
    # node 0 (the leader and elector) rewrites `successor` after node 1's
    # expiry and registration again, and keeps the copy of its decision
    check "mutant MUT_SU_NOTAKE (the elector-leader does not take its later writes of successor)" \
        L10_leader_succession_current -O0 "-DMUT_SU_NOTAKE $HO19" "$SAFE" "-m100000"
    check "mutant MUT_SU_KEEP (a later write's version taken, the content of before kept)" \
        L10_leader_succession_current -O2 "-DMUT_SU_KEEP $HO19" "$SAFE" "-m100000"
    # 4dce8aa: node 2, registering into the group before any decision,
    # assumes its czxid too: no STAT_MINE, no watch on its election znode;
    # node 0 names it, the touch wakes nobody, node 2 (quiet) never learns.
    # -DREVERSE: in pan's default order the watchdog loop (node 2 unheard,
    # excluded, named again) reaches the epoch bound first (bounds_ok)
    check "mutant MUT_CZX_ANY (the czxid assumed by a registration that did not create the group)" \
        L8_named_learns -O0 "-DMUT_CZX_ANY $W19 $NOFAULT" "$SAFE -DREVERSE" "-m100000"
}

# the fast handover (README.md, "Issue 18, the fast handover"): on in every
# check with MAX_RESIGN > 0 (issue 18's above too); -DNO_FAST is the model
# of before. A member woken by a handover creates the leader znode at once
# in one multi [check own election znode w+1, check elected V+1, create];
# the elector's wakes bump the woken znode by 2, a handover's by 1.
bounded_fast() {
    # (node 0, the leader and the elector, resigns with a switchover: in
    # deep_fast since 9d6ed04, 26.1 M states hash-compacted, 96 s)
    # the leader (node 1) crashes: node 0 names node 0 or 2, node 2 woken
    # (+2) speculates and is refused (its own version is w+2)
    check "fast handover: the leader crashes, an elector's wake (+2) refuses the speculation" pass -O0 \
        "-DMAX_RESIGN=1 -DSTABLE_START=1 $CRASH1 -DCRASH_NODE=1" "$SAFE" "-m100000"
    # reachability: pan must find a speculative create that succeeds
    check "fast handover reached (REACH_FAST: a speculative create applied)" \
        R_fast_reached -O0 "-DREACH_FAST -DPIPE $R18 -DMAX_SWITCH=0" "$SAFE" "-m100000"
    # the gate: with an old member (node 2) nobody speculates
    check "fast handover gate: old node 2 a member, nobody speculates (REACH_FAST not reached)" pass -O0 \
        "-DOLD_NODE=2 -DREACH_FAST -DPIPE $R18 -DMAX_SWITCH=0" "$SAFE" "-m100000"
}

mutants_fast18() {
    # node 1 (leader) crashes, node 0 names node 2 (+2): node 2 speculates
    # on the decision it read (node 1 at epoch 1): lands on the elector's
    check "mutant MUT_SPEC_NOSELF (the speculation does not check its own version)" \
        S19_spec_over_handover -O0 "-DMUT_SPEC_NOSELF -DMAX_RESIGN=1 -DSTABLE_START=1 $CRASH1 -DCRASH_NODE=1" \
        "$SAFE" "-m100000"
    check "mutant MUT_WAKE_ONE (an elector's wake bumps by 1)" \
        S19_spec_over_handover -O0 "-DMUT_WAKE_ONE -DMAX_RESIGN=1 -DSTABLE_START=1 $CRASH1 -DCRASH_NODE=1" \
        "$SAFE" "-m100000"
    # the standing successor: the succession's write names a node with one
    # set op, which a speculation at that wake takes for a handover's
    # (the elector, node 0, leads after node 1's crash and names node 2;
    # node 2 speculates at the naming; node 0 resigns, its handover is
    # refused and it leaves the ordinary way: the speculation lands; 7.9 M
    # states hash-compacted, 1.3 GB, ~25 s)
    check "mutant MUT_NAME_ONE (the standing successor's naming bumps by 1)" \
        S4_leader_writes_follow_decision -O2 "-DMUT_NAME_ONE -DMAX_RESIGN=1 $P18CS" "-DSAFETY -DHC4" "-m100000 -w27"
    # HO19 and an early watchdog: the new elector (node 2) replaces the
    # handover's decision before node 1's speculation is applied
    check "mutant MUT_SPEC_NOELECTED (the speculation does not check elected)" \
        S4_leader_writes_follow_decision -O0 "-DMUT_SPEC_NOELECTED $HO19E" "$SAFE" "-m100000"
}

deep_fast() {
    # node 0 (leader, elector) resigns: node 1 speculates (it succeeds, or
    # is refused when a switchover moved the decision first: the elector
    # names node 1 or 2, +2, a speculation at that wake is refused)
    # (hash-compacted since 9d6ed04, when the elector began to run during
    # its step-down: 26.1 M states, 2 GB, 96 s, too long for --test;
    # 1.9 M exhaustive before)
    check "fast handover: the READY leader (the elector) resigns, a switchover" pass -O1 \
        "-DMAX_RESIGN=1 -DSTABLE_START=0 -DMAXFAULTS=1 -DMAX_DISC=0 -DMAX_CRASH=0 -DMAX_FREEZE=0 -DMAX_TFAIL=0 -DMAX_EARLY=0 -DMAX_EXP=0" \
        "-DSAFETY -DHC4" "-m100000 -w27"
    # the standing successor (README.md, "Issue 18, the standing
    # successor"): node 1 crashes, node 0 (the elector) leads and names
    # node 2, then resigns (46 M states hash-compacted, 2.8 GB, ~2 min)
    check "standing successor: the leader crashes, the elector leads, names its successor, resigns" pass -O1 \
        "-DMAX_RESIGN=1 $P18CS" "-DSAFETY -DHC4" "-m100000 -w27"
    # HO19: node 1's expiry around node 0's resign (README.md, "Issue 18,
    # the fast handover", finding 3, closed by start_takeover's lease
    # check); hash-compacted (37.7 M states, 2.5 GB before 9d6ed04; since
    # then the elector runs during its step-down: 187.8 M states, 9.2 GB,
    # ~11 min; MODEL_RETAKE_MEMLIM, the bound of the other big one)
    check "fast handover: HO19, node 1's expiry around node 0's resign (hash-compact)" pass -O1 \
        "$HO19" "-DSAFETY -DHC4 -UMEMLIM -DMEMLIM=$RETAKEMEM" "-m100000 -w28"
    # node 0 resigns, an early watchdog (3.3 M states exhaustive before
    # 9d6ed04; 13.0 M hash-compacted since, 1.5 GB, ~45 s)
    check "fast handover: the READY leader (the elector) resigns, an early watchdog" pass -O1 \
        "-DMAX_RESIGN=1 -DSTABLE_START=0 -DMAXFAULTS=1 -DMAX_DISC=0 -DMAX_CRASH=0 -DMAX_FREEZE=0 -DMAX_TFAIL=0 -DMAX_SWITCH=0 -DMAX_EXP=0" \
        "-DSAFETY -DHC4" "-m100000 -w27"
}

deep_retake() {
    # node 1 (READY, STABLE_START=1) is cut off, fences, is heard again and
    # retakes, and expires; node 0 takes over (README.md, "Issue 18, the fast
    # handover", finding 4). With the wake as the C (its exists only for a
    # notification let go): 256 M states, hash-compacted, 11.8 GB, ~17 min
    check "retake: node 1's disconnect and expiry around its retake (hash-compact)" pass -O1 \
        "$RETAKE" "-DSAFETY -DHC4 -UMEMLIM -DMEMLIM=$RETAKEMEM" "-m100000 -w28"
    # the wake of before: its exists' stale reply, handled after the resync
    # (60 M states, 3.3 GB, ~3 min)
    check "mutant WAKE_EXISTS_ALWAYS (the wake sends the leader znode's exists for every slot)" \
        S6_ready_never_takeover_failed -O1 "-DWAKE_EXISTS_ALWAYS $RETAKE" \
        "-DSAFETY -DHC4 -UMEMLIM -DMEMLIM=$DEEPMEM" "-m100000 -w27"
}

# the operator's direct switchover (README.md, "Issue 18, the operator's
# direct switchover"): zkelect switchover writes the decision itself from
# the elector's standing succession, one multi [check successor, history,
# the successor's record; set elected (version read) to the successor at
# the reserved epoch; write the request; wake the successor (+1)]; no
# leader znode deleted: the old leader steps down as after any decision.
# -DDIRECT_SO (the succession with it, also without MAX_RESIGN; MAX_DSO=1
# operator's read and multi, not in MAXFAULTS)
DSO="-DDIRECT_SO"
CR1="-DMAXFAULTS=1 -DMAX_DISC=0 -DMAX_EXP=0 -DMAX_SWITCH=0 -DMAX_TFAIL=0 -DMAX_EARLY=0 -DMAX_FREEZE=0"
SW1="-DMAXFAULTS=1 -DMAX_DISC=0 -DMAX_EXP=0 -DMAX_CRASH=0 -DMAX_TFAIL=0 -DMAX_EARLY=0 -DMAX_FREEZE=0"
# one disconnect (with -DDISC_NODE=n); the queues' bounds raised as bug 4's
# check (a node's reads pile up around its reconnect: EVQ 12 is met)
DSOD1="-DMAXFAULTS=1 -DMAX_EXP=0 -DMAX_CRASH=0 -DMAX_SWITCH=0 -DMAX_TFAIL=0 -DMAX_EARLY=0 -DMAX_FREEZE=0 -DRQ=16 -DEVQ=16"
bounded_dso() {
    # a crash of any node at any moment: the successor (named while its
    # session lives, or the wake refused once it expired), the old leader,
    # the elector
    check "direct switchover: either leader, a crash (any node), direct READY creates" pass -O1 \
        "$DSO -DPIPE -DSTABLE_START=2 $CR1" "$SAFE" "-m100000"
    # an ordinary request too: the elector's decision lands between the
    # operator's read and its multi (refused), or the multi acknowledges the
    # pending request
    check "direct switchover: node 0 (leader, elector), an ordinary switchover, direct READY creates" pass -O1 \
        "$DSO -DPIPE -DSTABLE_START=0 $SW1" "$SAFE" "-m100000"
    # the leader resigns: its handover and the operator's multi race (the
    # second is refused by elected's version)
    check "direct switchover: either leader resigns too, direct READY creates" pass -O1 \
        "$DSO -DPIPE -DMAX_RESIGN=1 -DSTABLE_START=2 -DMAXFAULTS=0" "$SAFE" "-m100000"
    # reachability: the successor (node 1, a member) speculates at the
    # operator's one-op wake and its create lands once node 0 released
    check "direct switchover reached (REACH_DSO=2: a speculative create under the operator's decision)" \
        R_dso_reached -O0 "$DSO -DREACH_DSO=2 -DSTABLE_START=0 -DMAXFAULTS=0" "$SAFE" "-m100000"
}

mutants_dso() {
    # node 1 named at epoch 1, node 0's: its READY at the epoch node 0 was READY at
    check "mutant MUT_DSO_EPOCH (the successor given the old leader's epoch)" \
        S2_ready_epochs_increase -O0 "$DSO -DMUT_DSO_EPOCH -DSTABLE_START=2 -DMAXFAULTS=0" "$SAFE" "-m100000"
    # the old leader's znode deleted with the decision: the successor takes
    # over while the old leader's step-down runs
    check "mutant MUT_DSO_DELETE (the multi deletes the leader znode, as a handover)" \
        S7_one_active_service -O0 "$DSO -DMUT_DSO_DELETE -DSTABLE_START=2 -DMAXFAULTS=0" "$SAFE" "-m100000"
    # node 0 resigns and hands over to node 1 between the operator's read
    # and its multi: the multi writes the same decision again over the
    # handover's (same content: only the intent property S20 sees it)
    check "mutant MUT_DSO_STALE (the multi sets elected without its version check)" \
        S20_dso_over_its_decision -O0 "$DSO -DMUT_DSO_STALE -DPIPE -DMAX_RESIGN=1 -DSTABLE_START=2 -DMAXFAULTS=0" \
        "$SAFE" "-m100000"
    # the operator names node 1 at epoch 2 (elected 2, successor not
    # written); node 0 (READY) resigns before its read of elected 2 comes
    # back and hands over with its record for elected 1: epoch 2 again (S17
    # fails at the same step)
    check "mutant MUT_SUCC_STALE (the handover does not check elected's version)" \
        S16_handover_epoch_fresh -O0 "$DSO -DMUT_SUCC_STALE -DPIPE -DMAX_RESIGN=1 -DSTABLE_START=2 -DMAXFAULTS=0" \
        "$SAFE" "-m100000"
}

deep_dso() {
    # liveness (L2): either leader, the operator's switchover at any moment
    check "direct switchover: liveness, either leader" pass -O1 \
        "-DLIVE $DSO -DSTABLE_START=2 -DMAXFAULTS=0" "$LIVE" "-m200000 -a -f"
    # takeovers with work (no -DPIPE): node 0 (leader, elector), a crash of
    # any node (7.9 M states exhaustive, 3.5 GB: hash-compacted)
    check "direct switchover: node 0 (leader, elector), a crash (any node), takeovers with work (hash-compact)" pass -O1 \
        "$DSO -DSTABLE_START=0 $CR1" "-DSAFETY -DHC4" "-m100000 -w26"
    # an early watchdog: the elector's fence of a stale leader znode (its
    # write of elected moves the version the operator read)
    check "direct switchover: node 0 (leader, elector), an early watchdog, takeovers with work" pass -O1 \
        "$DSO -DSTABLE_START=0 -DMAXFAULTS=1 -DMAX_DISC=0 -DMAX_EXP=0 -DMAX_CRASH=0 -DMAX_SWITCH=0 -DMAX_TFAIL=0 -DMAX_FREEZE=0" \
        "$SAFE" "-m100000"
    # the old leader (node 1) cut off: it fences unheard, the successor
    # (node 0, the elector) waits for its znode (the fence's delete)
    check "direct switchover: the old leader (node 1) cut off, direct READY creates" pass -O1 \
        "$DSO -DPIPE -DSTABLE_START=1 $DSOD1 -DDISC_NODE=1" "$SAFE -DVECTORSZ=1280" "-m100000"
    check "direct switchover: the elector and successor (node 0) cut off, direct READY creates" pass -O1 \
        "$DSO -DPIPE -DSTABLE_START=1 $DSOD1 -DDISC_NODE=0" "$SAFE -DVECTORSZ=1280" "-m100000"
    # the successor (node 1) expires and registers again: its member record
    # is back at version 0 (the check passes), the wake of the recorded
    # registration refuses the multi
    check "direct switchover: the successor's (node 1) expiry, direct READY creates (hash-compact)" pass -O1 \
        "$DSO -DPIPE -DSTABLE_START=0 -DMAXFAULTS=1 -DMAX_DISC=0 -DMAX_CRASH=0 -DMAX_SWITCH=0 -DMAX_TFAIL=0 -DMAX_EARLY=0 -DMAX_FREEZE=0 -DEXP_NODE=1" \
        "-DSAFETY -DHC4" "-m100000 -w27"
    # the wake gate: the successor (node 1) of a release before the wake
    # (no fast_handover: the epoch reserved need not be e+1), a crash
    check "direct switchover: old node 1 the successor, a crash (any node), direct READY creates" pass -O1 \
        "$DSO -DOLD_NODE=1 -DPIPE -DSTABLE_START=0 $CR1" "$SAFE" "-m100000"
}

run_mode() {
case $mode in
--bounded) bounded; bounded_dr; bounded_slots; bounded_18; bounded_wake; mutants_wake; bounded_gate; mutants_gate;
    bounded_views; mutants_views; bounded_fast; mutants_fast18; bounded_dso; mutants_dso ;;
--mutants) mutants_fast; mutants_slow; mutants_deep; mutants_dr; mutants_dr_more; mutants_slots; mutants_18;
    mutants_wake; mutants_gate; mutants_views; mutants_fast18; mutants_dso ;;
--smoke) safety_stable; mutant_elector_noread ;;
--test) bounded; mutants_fast; mutants_slow; bounded_dr; mutants_dr; bounded_slots; mutants_slots;
    bounded_18; mutants_18; bounded_wake; mutants_wake; bounded_gate; mutants_gate; bounded_views; mutants_views;
    bounded_fast; mutants_fast18; bounded_dso; mutants_dso ;;
--deep-only) deep; deep_dr; bounded_slots; deep_slots; bounded_18; deep_18; bounded_wake; deep_lower; bounded_gate; deep_gate;
    bounded_views; deep_views; bounded_fast; deep_fast; deep_retake; bounded_dso; deep_dso ;;
--deep) deep; deep_dr; bounded_slots; deep_slots; bounded_18; deep_18; bounded_wake; deep_lower; bounded_gate; deep_gate;
    bounded_views; deep_views; bounded_fast; deep_fast; deep_retake; bounded_dso; deep_dso;
    mutants_fast; mutants_slow; mutants_deep; mutants_dr; mutants_dr_more; mutants_slots; mutants_18; mutants_wake;
    mutants_gate; mutants_views; mutants_fast18; mutants_dso ;;
--slots) bounded_slots; mutants_slots; deep_slots ;;
--issue18) bounded_18; mutants_18; deep_18 ;;
--wake) bounded_wake; mutants_wake; deep_lower; bounded_gate; mutants_gate ;;
--views) bounded_views; mutants_views; deep_views ;;
--fast) bounded_fast; mutants_fast18; [ -n "${MODEL_NO_DEEP:-}" ] || deep_fast ;;
--retake) deep_retake ;;
--dso) bounded_dso; mutants_dso; [ -n "${MODEL_NO_DEEP:-}" ] || deep_dso ;;
esac
}

if [ "$JOBS" -gt 1 ]; then
    # J lanes walk the same list; each check runs in the first to claim it
    lanes=""
    l=0
    while [ "$l" -lt "$JOBS" ]; do
        run_mode &
        lanes="$lanes $!"
        l=$((l + 1))
    done
    trap 'kill $lanes 2>/dev/null; exit 130' INT TERM
    wait
    i=1
    while [ -d "$tmp/claim.$i" ]; do
        cat "$tmp/out.$i" 2>/dev/null
        i=$((i + 1))
    done >"$tmp/out.all"
    cat "$tmp/out.all"
    passed=$(grep -c '^ok - ' "$tmp/out.all")
    failed=$(grep -c '^FAIL - ' "$tmp/out.all")
    if [ "$((passed + failed))" -lt "$((i - 1))" ]; then
        echo "FAIL - $((i - 1 - passed - failed)) of $((i - 1)) checks said nothing (a lane died)"
        failed=$((failed + i - 1 - passed - failed))
    fi
else
    run_mode
fi

t_end=$(date +%s)
echo "model: $passed passed, $failed failed ($((t_end - t_start)) s)"
[ "$failed" = 0 ]
