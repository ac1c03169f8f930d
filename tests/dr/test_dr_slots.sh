#!/bin/bash
# test_dr_slots.sh - N active leaders (issue 17) across two sites with real
# zkelectd daemons on a 3-server ZooKeeper ensemble (zk-local -n 3), driven
# and observed with the zkelect CLI (`zkelect leader --json`, `status --json`,
# `history --json`, `set-leaders`), checked at the service from the hooks'
# own CLOCK_MONOTONIC stamps.
#
# Sites: dc1 (n1 n2 n3, site priority 100) and dc2 (n4 n5, priority 50);
# node priorities n1 30, n2 20, n3 10, n4 30, n5 20; the site policy with its
# default preempt (off), the spread option from the daemons' [policy].
#
#   phase sites  /drslots/sites  init --leaders 2, spread = sites
#     1 spread   slot 0 n1 (dc1), slot 1 n4 (dc2), both READY, distinct
#                epochs; zkelect leader exits 0; status --json agrees
#     3 dc1 lost kill -9 of n1 n2 n3 (n5's takeover hook held open by a
#                gate file): zkelect leader exits 7 (1 of 2 READY) with slot
#                1 still n4 at its epoch and slot 0 n5 PROGRESS; gate opened:
#                exits 0, slot 0 n5 READY at a new epoch, slot 1 n4 at the
#                same epoch and its hooks never ran (sticky, undisturbed)
#     4 dc1 back n1 n2 n3 restart: nothing moves (preempt = off: the policy
#                keeps every holder that can still lead; a leaders change
#                is no config change for it either), no takeover anywhere
#     4b failback `switchover --from n5 --site dc1 --wait`: slot 0 to n1 by a
#                clean handover (n5's stepdown hook ends before n1's takeover
#                hook starts), slot 1 n4 undisturbed
#     5 N live   set-leaders 3 --wait: slot 2 to n2 (spread: dc1 and dc2
#                have one active each, then dc1's best), slots 0 and 1
#                undisturbed; set-leaders 1 --wait:
#                the actives of slots 1 and 2 run their stepdown hooks,
#                slot 0 undisturbed
#   phase none   /drslots/none   init (1 leader), spread = none
#     2 no spread set-leaders 2 --wait: slot 1 to n2, both actives in dc1
#                (best site first), slot 0 undisturbed
# After each phase, from the hooks' stamps ("NODE start|end MONO EPOCH SLOT",
# SLOT from ZKELECT_SLOT or "-"): every stamp is put in its slot by its
# epoch (`zkelect history --json`: each epoch was given in one slot; a
# ZKELECT_SLOT that disagrees is a violation), then never two nodes active
# in one slot (zke-service-check per slot, 0 ms overlap) and never one node
# active in two slots (a takeover in a slot while its interval in another
# is open). The checker is first shown to catch both on made-up stamps.
#
# To show that the checks can fail (the test then fails):
#   DR_SLOTS_SPREAD=none      phase sites runs with spread = none (1 fails)
#   DR_SLOTS_PREEMPT=on       phase sites runs with preempt = on (4 fails)
#   DR_TEST_KEEP=1            keep the work directory
# Prints "test_dr_slots: N passed, N failed" last; exits 1 on any failure.
set -u

NAME=test_dr_slots
TOP_BUILDDIR=${ZKELECT_TOP_BUILDDIR:-$(pwd)}
TOP_SRCDIR=${ZKELECT_TOP_SRCDIR:-$(sed -n 's/^abs_top_srcdir = //p' "$TOP_BUILDDIR/Makefile" 2>/dev/null)}
[ -n "$TOP_SRCDIR" ] || TOP_SRCDIR=$(cd "$(dirname "$0")/../.." && pwd)
ZKELECTD=$TOP_BUILDDIR/src/daemon/zkelectd
ZKELECT=$TOP_BUILDDIR/src/cli/zkelect
ZKLOCAL=$TOP_BUILDDIR/tests/harness/zk-local
DREV=$TOP_BUILDDIR/tests/dr/dr-events
MONO=$TOP_BUILDDIR/tests/harness/zke-mono
SVCCHECK=$TOP_BUILDDIR/tests/harness/zke-service-check
export ZKELECT_POLICY_PATH=${ZKELECT_POLICY_PATH:-$TOP_BUILDDIR/policies/.libs}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$TOP_SRCDIR/tests/lsan.supp:print_suppressions=0}

SESSION_MS=4000                         # [zookeeper] session_timeout_ms (fence_ms 1000)
WATCHDOG_MS=4000                        # [election] watchdog_ms: above the gate's hold
GATE_MS=3000                            # the takeover hook waits at most this for its gate
WAIT_MS=20000                           # generous deadline for "eventually"
QUIET_MS=3000                           # window in which nothing may happen
TEST_DEADLINE_S=150                     # the whole file, whatever happens

passed=0
failed=0
zk_pid=
guard_pid=
PH=
declare -A pid port                     # node -> daemon pid / HTTP port
declare -a SUMMARY                      # the figures printed at the end

T=$(mktemp -d "${TMPDIR:-/tmp}/zkdrslots.XXXXXX") || exit 99

. "$TOP_SRCDIR/tests/lib.sh"         # now_ms, ok, nok, check, wait_until, pick_port, finish
. "$TOP_SRCDIR/tests/daemon-lib.sh"  # daemons, ensemble, CLI helpers, checkers

log() { echo "$NAME: $*"; }
note() { SUMMARY+=("$*"); log "$*"; }

# ---------------------------------------------------------------------------
# The slots as the CLI shows them
# ---------------------------------------------------------------------------

# zkelect leader's exit status (0 all N READY, 7 some, 4 taking over, 3 none).
leader_rc() { "$ZKELECT" leader > /dev/null 2>&1; echo $?; }

# slots_read: `zkelect leader --json` into $T/slots, one line per slot
# "SLOT ID STATUS EPOCH ELECTED_ID ELECTED_EPOCH" (dr-events slots); its exit
# status in LEADER_RC.
slots_read() {
    "$ZKELECT" leader --json > "$T/leader.json" 2> /dev/null
    LEADER_RC=$?
    "$DREV" slots < "$T/leader.json" > "$T/slots" 2> /dev/null
}

# slot_field K FIELD: field FIELD (1-based) of slot K's line of $T/slots.
slot_field() { awk -v k="$1" -v f="$2" '$1 == k { print $f }' "$T/slots"; }

# slots_are "ID[@EPOCH] ..." (slot 0 first): zkelect leader exits 0 and every
# slot is READY with that node (at that epoch), no other slot.
slots_are() {
    local want=($1) k=0 w
    slots_read
    [ "$LEADER_RC" = 0 ] || return 1
    [ "$(wc -l < "$T/slots")" = ${#want[@]} ] || return 1
    for w in "${want[@]}"; do
        [ "$(slot_field "$k" 2)" = "${w%@*}" ] && [ "$(slot_field "$k" 3)" = READY ] || return 1
        [ "${w#*@}" = "$w" ] || [ "$(slot_field "$k" 4)" = "${w#*@}" ] || return 1
        k=$((k + 1))
    done
}

# "ID@EPOCH ..." of the slots now (slot 0 first), for messages.
slots_text() { awk '{ printf "%s%s %s@%s", (NR > 1 ? "," : ""), $1, $2 "/" $3, $4 } END { print "" }' "$T/slots"; }

# The hook stamps of NODE (or of anyone: "") of KIND (start|end) after MS.
stamps_after() {
    awk -v n="$1" -v k="$2" -v a="$3" '($1 == n || n == "") && $2 == k && $3 + 0 > a + 0' "$SVC_LOG"
}
no_stamps_after() { [ -z "$(awk -v n="$1" -v a="$2" '$1 == n && $3 + 0 > a + 0' "$SVC_LOG")" ]; }

# ---------------------------------------------------------------------------
# The service check per slot, from the hooks' stamps
# ---------------------------------------------------------------------------

# slot_split STAMPS EPOCHS DIR: put every stamp of STAMPS ("NODE start|end
# MONO EPOCH [SLOT]", kill9's ends "NODE end MONO -") in its slot, by its
# epoch (EPOCHS: "EPOCH SLOT LEADER", dr-events epochs) or, for an end
# without one, the slot its node is active in; write DIR/slot.K.svc (the four
# fields zke-service-check reads). Prints a VIOLATION line for a stamp whose
# epoch no decision gave, a ZKELECT_SLOT that is not the epoch's slot, and a
# node that starts in a slot while still active in another; exit 1 then.
slot_split() {
    rm -f "$3"/slot.*.svc
    sort -s -n -k3,3 "$1" | awk -v dir="$3" -v ef="$2" '
        FILENAME == ef { slot[$1] = $2; next }
        {
            node = $1; kind = $2; ms = $3; ep = $4; hs = NF >= 5 ? $5 : "-"
            if (ep in slot) s = slot[ep]
            else if (kind == "end" && ep == "-") s = act[node]
            else { printf "VIOLATION: %s %s at %s: epoch %s was given in no slot\n", node, kind, ms, ep; bad++; next }
            if (s == "") next                 # a kill of a node that was not active
            if (hs != "-" && hs != s) {
                printf "VIOLATION: %s %s at %s: ZKELECT_SLOT=%s, but epoch %s was given in slot %s\n", node, kind, ms, hs, ep, s
                bad++
            }
            if (kind == "start") {
                if (act[node] != "" && act[node] != s) {
                    printf "VIOLATION: %s active in two slots: takeover in slot %s at %s (epoch %s) while active in slot %s since %s\n", node, s, ms, ep, act[node], since[node]
                    bad++
                }
                act[node] = s; since[node] = ms
            } else if (act[node] == s) {
                act[node] = ""
            }
            print node, kind, ms, ep > (dir "/slot." s ".svc")
            n[s]++
        }
        END {
            for (s in n) printf "slot %s: %d stamps\n", s, n[s]
            exit bad > 0
        }' "$2" -
}

# check_slots_service WHAT: the phase's stamps, per slot (history of the
# current group): no two nodes in one slot, no node in two slots.
check_slots_service() {
    local out rc f k res=
    "$ZKELECT" history --json 2> /dev/null | "$DREV" epochs > "$PH/epochs"
    out=$(slot_split "$SVC_LOG" "$PH/epochs" "$PH" 2>&1)
    rc=$?
    printf '%s\n' "$out" | sed 's/^/    /'
    check "$1: every hook stamp in one slot by its epoch, never one node active in two slots" \
        [ "$rc" = 0 ]
    rc=0
    for f in "$PH"/slot.*.svc; do
        [ -f "$f" ] || continue
        k=${f%.svc}
        k=${k##*.}
        out=$("$SVCCHECK" "$f" 2>&1) || rc=1
        printf '%s\n' "$out" | sed "s/^/    slot $k: /"
        res="$res${res:+; }slot $k: $(printf '%s\n' "$out" | sed -n 's/^service: //p')"
    done
    check "$1: never two nodes active in one slot ($res)" [ "$rc" = 0 ]
}

# ---------------------------------------------------------------------------
# Hooks and daemons
# ---------------------------------------------------------------------------

# takeover stamps the service's start (with the slot when the daemon gives
# it), then, while $T/gate.NODE exists, waits (at most GATE_MS: a takeover
# the test holds open to look at the slot taking over); stepdown stamps the
# service's end.
cat > "$T/takeover.sh" <<EOF
#!/bin/sh
echo "\$ZKELECT_NODE_ID start \$("$MONO") \${ZKELECT_EPOCH:--} \${ZKELECT_SLOT:--}" >> "\$SVC_LOG"
if [ -e "$T/gate.\$ZKELECT_NODE_ID" ]; then
    : > "$T/gated.\$ZKELECT_NODE_ID"
    i=0
    while [ -e "$T/gate.\$ZKELECT_NODE_ID" ] && [ \$i -lt $((GATE_MS / 50)) ]; do
        sleep 0.05
        i=\$((i + 1))
    done
fi
exit 0
EOF
cat > "$T/stepdown.sh" <<EOF
#!/bin/sh
echo "\$ZKELECT_NODE_ID end \$("$MONO") \${ZKELECT_EPOCH:--} \${ZKELECT_SLOT:--}" >> "\$SVC_LOG"
EOF
chmod +x "$T/takeover.sh" "$T/stepdown.sh"

write_config() {
    local n=$1
    cat > "$PH/$n.ini" <<EOF
[zookeeper]
hosts = $HOSTS
session_timeout_ms = $SESSION_MS
connect_timeout_ms = 15000
[cluster]
path = $GROUP
[node]
id = $n
site = $(site_of "$n")
priority = $(prio_of "$n")
state_dir = $PH
[election]
policy = site
watchdog_ms = $WATCHDOG_MS
exclude_ms = 60000
[policy]
spread = $PH_SPREAD
preempt = $PH_PREEMPT
[hooks]
takeover = $T/takeover.sh
stepdown = $T/stepdown.sh
timeout_ms = 5000
[http]
listen = ${port[$n]}
[log]
level = info
events = $PH/$n.events
EOF
}

# phase_begin NAME SPREAD PREEMPT INIT_ARGS...: a fresh group /drslots/NAME.
phase_begin() {
    local name=$1
    PH=$T/$1
    GROUP=/drslots/$1
    PH_SPREAD=$2
    PH_PREEMPT=$3
    shift 3
    mkdir -p -m 0700 "$PH"
    : > "$PH/exits"
    export SVC_LOG=$PH/service.log
    : > "$SVC_LOG"
    port=()
    export ZKELECT_PATH=$GROUP
    log "---- $name: group $GROUP, spread = $PH_SPREAD, preempt = $PH_PREEMPT, init $*"
    cli init --policy site --site dc1=100 --site dc2=50 --expect 5 "$@"
    rc=$?
    check "$name: zkelect init --policy site --site dc1=100 --site dc2=50 --expect 5 $*" \
        eval '[ $rc = 0 ] || { cat "$T/cli.err"; false; }'
}

phase_end() {
    local w=$1
    stop_all
    check_slots_service "$w"
    check "$w: no sanitizer report in any daemon log" eval '! grep -l "Sanitizer" "$PH"/*.log'
}

cleanup() {
    local p
    trap - EXIT INT TERM HUP
    kill_all_daemons
    zk_stop
    [ -n "$guard_pid" ] && kill "$guard_pid" 2>/dev/null
    if [ "${DR_TEST_KEEP:-0}" = 1 ] || [ "$failed" -gt 0 ]; then
        for p in "$T"/*/service.log "$T"/*/*.log; do
            [ -f "$p" ] || continue
            echo "---- $p (last 30 lines)"
            tail -n 30 "$p"
        done
        [ "${DR_TEST_KEEP:-0}" = 1 ] && echo "$NAME: kept $T"
    fi
    [ "${DR_TEST_KEEP:-0}" = 1 ] || rm -rf "$T"
}

trap 'cleanup' EXIT
trap 'nok "interrupted"; finish' INT TERM HUP
deadline_guard

for f in "$ZKELECTD" "$ZKELECT" "$ZKLOCAL" "$DREV" "$MONO" "$SVCCHECK"; do
    if [ ! -x "$f" ]; then
        nok "$f is not built"
        finish
    fi
done
command -v curl > /dev/null || { nok "curl is not installed"; finish; }

# ---------------------------------------------------------------------------
# 0. The per-slot checker catches what it must, on made-up stamps
# ---------------------------------------------------------------------------
mkdir -p "$T/self"
printf '%s\n' "1 0 a" "2 1 b" "3 0 c" "4 1 a" > "$T/self/epochs"
# a moves from slot 0 to slot 1 after its step-down; c takes slot 0 after it
printf '%s\n' "a start 100 1 -" "b start 110 2 -" "a end 200 1 -" "b end 300 2 -" \
    "c start 210 3 -" "a start 310 4 1" "c end 400 - -" > "$T/self/clean"
slot_split "$T/self/clean" "$T/self/epochs" "$T/self" > /dev/null &&
    "$SVCCHECK" "$T/self/slot.0.svc" > /dev/null && "$SVCCHECK" "$T/self/slot.1.svc" > /dev/null
check "slot checker: a node moving between slots after its step-down passes" [ $? = 0 ]
printf '%s\n' "a start 100 1 -" "c start 150 3 -" > "$T/self/two"
slot_split "$T/self/two" "$T/self/epochs" "$T/self" > /dev/null
"$SVCCHECK" "$T/self/slot.0.svc" > /dev/null
check "slot checker: two nodes active in one slot fail" [ $? = 1 ]
printf '%s\n' "a start 100 1 -" "a start 150 4 -" > "$T/self/both"
slot_split "$T/self/both" "$T/self/epochs" "$T/self" > "$T/self/out"
rc=$?
check "slot checker: one node active in two slots fails" \
    eval '[ $rc = 1 ] && grep -q "VIOLATION: a active in two slots" "$T/self/out"'
printf '%s\n' "a start 100 1 1" > "$T/self/wrong"
slot_split "$T/self/wrong" "$T/self/epochs" "$T/self" > "$T/self/out"
rc=$?
check "slot checker: a ZKELECT_SLOT other than its epoch's slot fails" \
    eval '[ $rc = 1 ] && grep -q "ZKELECT_SLOT=1, but epoch 1 was given in slot 0" "$T/self/out"'
printf '%s\n' "a start 100 9 -" > "$T/self/unknown"
slot_split "$T/self/unknown" "$T/self/epochs" "$T/self" > /dev/null
check "slot checker: an epoch no decision gave fails" [ $? = 1 ]

log "starting a 3-server ZooKeeper ensemble"
if ! zk_start 3; then
    nok "zk-local -n 3 did not start: $(tail -n 5 "$T/zk.log")"
    finish
fi
log "ZooKeeper ensemble at $HOSTS"

# ---------------------------------------------------------------------------
# Phase sites: leaders = 2, spread = sites
# ---------------------------------------------------------------------------
phase_begin sites "${DR_SLOTS_SPREAD:-sites}" "${DR_SLOTS_PREEMPT:-off}" --leaders 2
t0=$(mono)
check "n1..n5 start and join" start_nodes n1 n2 n3 n4 n5

# 1. one active per site, the best of each
check "1 spread: both slots READY (zkelect leader exits 0)" \
    wait_until "$WAIT_MS" eval '[ "$(leader_rc)" = 0 ]'
slots_read
log "1 spread: slots $(slots_text) (zkelect leader exit $LEADER_RC)"
E0=$(slot_field 0 4)
E1=$(slot_field 1 4)
check "1 spread: zkelect leader --json shows 2 slots, both READY, exit 0" \
    eval '[ "$LEADER_RC" = 0 ] && [ "$(awk "\$3 == \"READY\"" "$T/slots" | wc -l)" = 2 ]'
check "1 spread: slot 0 n1 (the best of dc1), slot 1 n4 (the best of dc2)" slots_are "n1 n4"
check "1 spread: one active per site ($(site_of "$(slot_field 0 2)") and $(site_of "$(slot_field 1 2)"))" \
    eval '[ "$(site_of "$(slot_field 0 2)")" = dc1 ] && [ "$(site_of "$(slot_field 1 2)")" = dc2 ]'
check "1 spread: distinct epochs ($E0, $E1), each the decision's" \
    eval '[ -n "$E0" ] && [ -n "$E1" ] && [ "$E0" != "$E1" ] && [ "$(slot_field 0 6)" = "$E0" ] && [ "$(slot_field 1 6)" = "$E1" ]'
"$ZKELECT" status --json > "$T/status.json" 2> /dev/null
"$DREV" slots < "$T/status.json" | awk '{ print $1, $2, $3, $4 }' > "$T/status.slots"
awk '{ print $1, $2, $3, $4 }' "$T/slots" > "$T/leader.slots"
check "1 spread: zkelect status --json names the same slots ($(tr '\n' ';' < "$T/status.slots"))" \
    cmp -s "$T/leader.slots" "$T/status.slots"
r1=$(first_ms -a "$t0" -n n4 -E +ready)
r0=$(first_ms -a "$t0" -n n1 -E +ready)
note "1 spread: n1 (slot 0, epoch $E0) READY +$(( ${r0:-0} - t0 )) ms, n4 (slot 1, epoch $E1) +$(( ${r1:-0} - t0 )) ms after the daemons were launched"

# 3. loss of dc1; n5's takeover held open so that the partial state shows
log "3 dc1 lost: kill -9 of n1 n2 n3 (n5's takeover hook waits for its gate)"
: > "$T/gate.n5"
t3=$(mono)
kill9 n1 n2 n3
partial() {
    slots_read
    [ "$LEADER_RC" = 7 ] && [ "$(slot_field 1 2)" = n4 ] && [ "$(slot_field 1 3)" = READY ] &&
        [ "$(slot_field 1 4)" = "$E1" ] && [ "$(slot_field 0 3)" != READY ]
}
check "3 dc1 lost: zkelect leader exits 7 (1 of 2 slots READY): slot 1 n4 READY at epoch $E1" \
    wait_until $((SESSION_MS + WAIT_MS)) partial
t7=$(mono)
log "3 dc1 lost: $(slots_text) (exit $LEADER_RC), $((t7 - t3)) ms after the kill"
check "3 dc1 lost: n5 is taking over slot 0 (its hook waits at the gate)" \
    wait_until "$WAIT_MS" eval 'test -e "$T/gated.n5" && slots_read && [ "$(slot_field 0 5)" = n5 ] && [ "$LEADER_RC" = 7 ]'
log "3 dc1 lost: $(slots_text) (exit $LEADER_RC): slot 0 elected $(slot_field 0 5)@$(slot_field 0 6)"
tg=$(mono)
rm -f "$T/gate.n5"
check "3 dc1 lost: both slots READY on dc2 (zkelect leader exits 0): slot 0 n5, slot 1 n4 at epoch $E1" \
    wait_until "$WAIT_MS" slots_are "n5 n4@$E1"
E0b=$(slot_field 0 4)
log "3 dc1 lost: $(slots_text)"
check "3 dc1 lost: slot 0's new epoch $E0b is above every earlier one ($E0, $E1)" \
    eval '[ "${E0b:-0}" -gt "$E0" ] && [ "${E0b:-0}" -gt "$E1" ]'
check "3 dc1 lost: n4 (slot 1) undisturbed: no hook of it ran since the kill" no_stamps_after n4 "$t3"
check "3 dc1 lost: n4 published no step-down or takeover since the kill" \
    eval '! has_events -a "$t3" -n n4 -E -stepdown,+takeover,+ready,-leadership-lost'
s5=$(stamps_after n5 start "$t3" | awk 'NR == 1 { printf "%d", $3 }')
r5=$(first_ms -a "$t3" -n n5 -E +ready)
note "3 dc1 lost (session $SESSION_MS ms): n5's takeover hook started $(( ${s5:-0} - t3 )) ms after the kill (slot 0, epoch $E0b); zkelect leader exit 7 first seen +$((t7 - t3)) ms; gate opened +$((tg - t3)) ms, n5 READY $(( ${r5:-0} - tg )) ms later; slot 1 n4 kept epoch $E1"

# 4. dc1 comes back: the default preempt (off) keeps both holders
log "4 dc1 back: n1 n2 n3 restart"
t4=$(mono)
check "4 dc1 back: n1 n2 n3 restart and join" start_nodes n1 n2 n3
check "4 dc1 back: nothing moves for $QUIET_MS ms (preempt = off keeps n5 and n4 at epochs $E0b, $E1)" \
    hold_for "$QUIET_MS" slots_are "n5@$E0b n4@$E1"
log "4 dc1 back: $(slots_text)"
check "4 dc1 back: no takeover hook ran and no +takeover since the restart" \
    eval '[ -z "$(stamps_after "" start "$t4")" ] && ! has_events -a "$t4" -E +takeover,+ready'
cli status
log "4 dc1 back: zkelect status: $(grep -E '^(elected|leaders):' "$T/cli.out" | tr '\n' ';')"

# 4b. failback of slot 0 by the operator: switchover --from its holder
t4b=$(mono)
cli switchover --from n5 --site dc1 --wait=30
rc=$?
t4c=$(mono)
check "4b failback: switchover --from n5 --site dc1 --wait exits 0 ($rc: $(head -n 1 "$T/cli.out"))" \
    eval '[ $rc = 0 ] || { cat "$T/cli.err"; false; }'
check "4b failback: slot 0 n1 (the best of dc1), slot 1 n4 still at epoch $E1" \
    wait_until "$WAIT_MS" slots_are "n1 n4@$E1"
E0=$(slot_field 0 4)
log "4b failback: $(slots_text)"
check "4b failback: n4 (slot 1) undisturbed" no_stamps_after n4 "$t4b"
e5=$(stamps_after n5 end "$t4b" | awk 'NR == 1 { printf "%d", $3 }')
s1=$(stamps_after n1 start "$t4b" | awk 'NR == 1 { printf "%d", $3 }')
check "4b failback: n5's stepdown hook ended (${e5:-?}) before n1's takeover hook started (${s1:-?})" \
    eval '[ -n "$e5" ] && [ -n "$s1" ] && [ "$e5" -le "$s1" ]'
note "4b switchover --from n5 --site dc1: the command (--wait) took $((t4c - t4b)) ms; slot 0 without an active service for $(( ${s1:-0} - ${e5:-0} )) ms (n5's stepdown end to n1's takeover start)"

# 5. N raised and lowered live
t5=$(mono)
cli set-leaders 3 --wait=30
rc=$?
t5b=$(mono)
# --wait ends once every slot of the decision it waited for is READY: exit
# 0. That decision may be an acknowledgement written before the new slot
# is filled (CI saw it once), so the slots are waited for
check "5 N live: set-leaders 3 --wait exits 0 ($rc: $(head -n 1 "$T/cli.out"))" \
    eval '[ $rc = 0 ] || { cat "$T/cli.err"; false; }'
check "5 N live: 3 slots READY: n1 and n4 kept (epochs $E0, $E1), slot 2 to n2 (spread: the best of dc1 after n1)" \
    wait_until "$WAIT_MS" slots_are "n1@$E0 n4@$E1 n2"
E2=$(slot_field 2 4)
log "5 N live: $(slots_text)"
check "5 N live: slots 0 and 1 undisturbed (no hook of n1 or n4 ran)" \
    eval 'no_stamps_after n1 "$t5" && no_stamps_after n4 "$t5"'
r2=$(first_ms -a "$t5" -n n2 -E +ready)
note "5 set-leaders 3: the command (--wait) took $((t5b - t5)) ms; slot 2 n2 (epoch $E2) READY $(( ${r2:-0} - t5 )) ms after it was issued"
t6=$(mono)
cli set-leaders 1 --wait=30
rc=$?
t6b=$(mono)
check "5 N live: set-leaders 1 --wait exits 0 ($rc: $(head -n 1 "$T/cli.out"))" \
    eval '[ $rc = 0 ] || { cat "$T/cli.err"; false; }'
stepped() {
    [ -n "$(stamps_after n4 end "$t6" | awk -v e="$E1" '$4 == e')" ] &&
        [ -n "$(stamps_after n2 end "$t6" | awk -v e="$E2" '$4 == e')" ]
}
check "5 N live: the released slots' actives ran their stepdown hooks (n4 epoch $E1, n2 epoch $E2)" \
    wait_until "$WAIT_MS" stepped
check "5 N live: one slot left, n1 READY at epoch $E0 (zkelect leader exits 0)" \
    wait_until "$WAIT_MS" slots_are "n1@$E0"
check "5 N live: slot 0 undisturbed (no hook of n1 ran)" no_stamps_after n1 "$t5"
check "5 N live: n4 and n2 are no longer active (/leader 503)" \
    wait_until "$WAIT_MS" eval '[ "$(http n4 /leader)$(http n2 /leader)" = 503503 ]'
d4=$(stamps_after n4 end "$t6" | awk 'NR == 1 { printf "%d", $3 }')
d2=$(stamps_after n2 end "$t6" | awk 'NR == 1 { printf "%d", $3 }')
note "5 set-leaders 1: the command (--wait) took $((t6b - t6)) ms; stepdown hooks ended +$(( ${d4:-0} - t6 )) ms (n4, slot 1) and +$(( ${d2:-0} - t6 )) ms (n2, slot 2)"
phase_end "phase sites"

# ---------------------------------------------------------------------------
# Phase none: spread = none, N raised from 1 to 2
# ---------------------------------------------------------------------------
phase_begin none none "${DR_SLOTS_PREEMPT:-off}"
check "n1..n5 start and join" start_nodes n1 n2 n3 n4 n5
check "2 no spread: one leader, n1 READY" wait_until "$WAIT_MS" slots_are "n1"
E0=$(slot_field 0 4)
t2=$(mono)
cli set-leaders 2 --wait=30
rc=$?
check "2 no spread: set-leaders 2 --wait exits 0 ($rc: $(head -n 1 "$T/cli.out"))" \
    eval '[ $rc = 0 ] || { cat "$T/cli.err"; false; }'
check "2 no spread: slot 0 n1 (epoch $E0 kept), slot 1 n2: both actives in dc1 (best site first)" \
    wait_until "$WAIT_MS" slots_are "n1@$E0 n2"
log "2 no spread: $(slots_text)"
check "2 no spread: slot 0 undisturbed (no hook of n1 ran)" no_stamps_after n1 "$t2"
r2=$(first_ms -a "$t2" -n n2 -E +ready)
note "2 no spread: set-leaders 2: n2 (slot 1, epoch $(slot_field 1 4)) READY $(( ${r2:-0} - t2 )) ms after the command"
phase_end "phase none"

log "---- measured"
for s in "${SUMMARY[@]}"; do log "$s"; done
finish
