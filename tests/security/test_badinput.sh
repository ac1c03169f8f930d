#!/bin/bash
# test_badinput.sh - bad znode data under running daemons: a foreign client
# (zksec) writes malformed data into every znode kind of a group (member
# record, election znode, elected, leader, config, switchover, history),
# writes 512 KiB into config and elected, deletes znodes under the running
# election (elected, leader, history, config, election znodes of other nodes),
# and plants an election znode that belongs to nobody and a persistent member
# record (the daemon with that id exits 1 at once, naming it). After each: no daemon
# crashed, the event logs name the znode (-malformed), and the group keeps or
# regains exactly one READY leader with epochs that never go back. By the
# event logs' monotonic times, no two daemons are ever READY at once.
#
# The group is open (no ACLs) so that the foreign client may write anything;
# test_acl covers who may write what.
#
# Prints "test_badinput: N passed, N failed" last; exits 1 on any failure.
# By hand: ZKELECT_TOP_BUILDDIR=BUILD ZKELECT_TOP_SRCDIR=SRC bash tests/security/test_badinput.sh
set -u

NAME=test_badinput
TEST_DEADLINE_S=170
if [ -n "${ZKELECT_TOP_SRCDIR:-}" ]; then
    . "$ZKELECT_TOP_SRCDIR/tests/security/seclib.sh"
elif [ -f "$(dirname "$0")/seclib.sh" ]; then
    . "$(dirname "$0")/seclib.sh"
else
    echo "$NAME: set ZKELECT_TOP_SRCDIR"
    echo "$NAME: 0 passed, 1 failed"
    exit 1
fi

DREV=$TOP_BUILDDIR/tests/dr/dr-events
sec_init "$ZKELECTD" "$ZKELECT" "$ZKLOCAL" "$ZKSEC" "$DREV"
command -v curl > /dev/null || { nok "curl is not installed"; finish; }
command -v python3 > /dev/null || { nok "python3 is not installed"; finish; }

G=/bad
NODES="n1 n2 n3"
BIG=524288                              # 512 KiB
start_zk

# json_is FILE PYTHON-EXPR: FILE holds JSON d for which EXPR is true.
json_is() {
    python3 - "$1" "$2" <<'EOF' 2>/dev/null
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if eval(sys.argv[2]) else 1)
EOF
}

# elected_is LEADER EPOCH: `elected` decodes and names LEADER at EPOCH.
elected_is() {
    zks get $G/elected > "$T/elected.json" || return 1
    json_is "$T/elected.json" "d['leader'] == '$1' and d['epoch'] == $2"
}

# settled: every daemon alive, one READY leader, its epoch never below the
# last one seen (E). Sets LEADER and EPOCH.
L= E=0
settled() {
    all_alive $NODES && one_ready_leader $G && [ "$EPOCH" -ge "$E" ]
}

# after DESCRIPTION: assert the group settled. PL and PE are the leader and
# epoch before, L and E the ones now (unchanged when it did not settle).
after() {
    PL=$L PE=$E
    if wait_until $SETTLE_MS settled; then
        ok "$1: every daemon alive, one READY leader ($LEADER, epoch $EPOCH >= $E)"
        L=$LEADER E=$EPOCH
    else
        nok "$1: not settled within $SETTLE_MS ms (alive: $(for n in $NODES; do
            alive $n && printf '%s ' $n; done); leaders: '$(leaders)'; last epoch $E)"
    fi
}

# unchanged: after() found the same leader at the same epoch as before.
unchanged() { [ "$L" = "$PL" ] && [ "$E" = "$PE" ]; }

# same_leader L E: the leader is L at epoch E now.
same_leader() { one_ready_leader $G && [ "$LEADER" = "$1" ] && [ "$EPOCH" = "$2" ]; }

# other_than NODE...: the first of n1 n2 n3 that is none of NODE.
other_than() {
    local c x
    for c in n1 n2 n3; do
        for x in "$@"; do
            [ "$c" = "$x" ] && continue 2
        done
        echo "$c"
        return
    done
}

# malformed_named PATH MARKER: some daemon published -malformed naming PATH
# with the data MARKER (each step writes its own marker).
malformed_named() { any_event -malformed "$1: " $NODES && any_event -malformed "$2" $NODES; }

# restart NODE: SIGTERM and start again (to go on after a failed check
# left it out of the election).
declare -A site prio
restart() {
    note "restarting $1 to go on"
    stop_node "$1"
    start_node "$1" $G "${site[$1]}" "${prio[$1]}"
    wait_until $SETTLE_MS is_code "$1" /health 200
}

# cpu_ticks NODE: user + system clock ticks of its process so far.
cpu_ticks() {
    awk '{ print $14 + $15 }' "/proc/${pid[$1]}/stat" 2>/dev/null || echo 0
}

# not_spinning NODE: it used less than 0.4 s of CPU in the next 2 s.
not_spinning() {
    local t0 t1 hz
    hz=$(getconf CLK_TCK)
    t0=$(cpu_ticks "$1")
    sleep 2                             # a measurement window, not a synchronization
    t1=$(cpu_ticks "$1")
    [ $(( (t1 - t0) * 10 / hz )) -lt 4 ]
}

# one_ready_at_a_time: by the daemons' event logs, never two of them READY
# at once and +ready epochs never going back (tests/dr/dr-events check: each
# event carries the CLOCK_MONOTONIC time at which the library changed role,
# one clock for every process here). -r: a leader whose leader znode was
# deleted takes over again at its own epoch. Probing /leader on each daemon
# in turn could not tell: a handover between two probes reads as two leaders.
one_ready_at_a_time() {
    local f=() n
    for n in $NODES; do
        f+=("$T/$n.events")
    done
    "$DREV" check -r "${f[@]}" > "$T/drev.out" 2>&1 && return 0
    grep -E 'VIOLATION|error' "$T/drev.out" | head -n 5 | sed 's/^/  /'
    return 1
}

# elector: the member with the lowest election sequence.
elector() { zks ls $G/election | awk -F_ '{ print $NF, $1 }' | sort -n | head -n 1 | cut -d' ' -f2; }

# registered_again NODE OLDCHILD: NODE has an election znode other than OLDCHILD.
registered_again() { zks ls $G/election | grep "^${1}_" | grep -qv "^$2\$"; }

# ---------------------------------------------------------------------------
# The group: site policy, dc1 preferred; three daemons without credentials
# ---------------------------------------------------------------------------
log "init $G and three daemons"
zke -p $G init --policy site --site dc1=100 --site dc2=50
check "init of an open group exits 0" [ $? = 0 ]
zks get $G/config > "$T/config.good"
site=([n1]=dc1 [n2]=dc1 [n3]=dc2)
prio=([n1]=30 [n2]=20 [n3]=10)
check "n1 (dc1, priority 30) starts" start_node n1 $G dc1 30
check "n1 leads" wait_until $SETTLE_MS one_ready_leader $G
check "n2 (dc1, priority 20) starts" start_node n2 $G dc1 20
check "n3 (dc2, priority 10) starts" start_node n3 $G dc2 10
for n in $NODES; do
    wait_until $SETTLE_MS is_code $n /health 200
done
after "three daemons"

# ---------------------------------------------------------------------------
# 1. Malformed data in every znode kind
# ---------------------------------------------------------------------------
OTHER=$(other_than "$L")
log "malformed member record of a member that does not lead (nodes/$OTHER)"
zks get $G/nodes/$OTHER > "$T/other.rec"
M="garbage-member-$OTHER-$RANDOM"
expect_zk ZOK "foreign client overwrites nodes/$OTHER" set $G/nodes/$OTHER "{\"v\":1,\"id\":\"$M"
check "-malformed names $G/nodes/$OTHER and the data" \
    wait_until $SETTLE_MS malformed_named $G/nodes/$OTHER "$M"
after "malformed nodes/$OTHER"
check "the leader did not change ($PL at $PE -> $L at $E)" unchanged
zks set-file $G/nodes/$OTHER "$T/other.rec" > /dev/null

log "malformed member record of the leader (nodes/$L)"
zks get $G/nodes/$L > "$T/leader.rec"
M="garbage-member-$L-$RANDOM"
expect_zk ZOK "foreign client overwrites nodes/$L" set $G/nodes/$L "$M"
check "-malformed names $G/nodes/$L and the data" \
    wait_until $SETTLE_MS malformed_named $G/nodes/$L "$M"
after "malformed record of the leader"
zks set-file $G/nodes/$PL "$T/leader.rec" > /dev/null
after "record of the leader restored"

log "malformed data in an election znode"
CHILD=$(zks ls $G/election | grep "^$(other_than "$L")_" | head -n 1)
expect_zk ZOK "foreign client overwrites election/$CHILD" set "$G/election/$CHILD" '{{{garbage'
expect_zk ZOK "foreign client creates election/not-a-registration" \
    create $G/election/not-a-registration x
after "garbage in and beside the election znodes"
check "the leader did not change ($PL at $PE -> $L at $E)" unchanged
zks delete $G/election/not-a-registration > /dev/null

log "malformed elected"
M="garbage-elected-$RANDOM"
expect_zk ZOK "foreign client overwrites elected" set $G/elected "$M"
check "-malformed names $G/elected and the data" \
    wait_until $SETTLE_MS malformed_named $G/elected "$M"
check "the elector writes the decision back: $L at epoch $E" \
    wait_until 10000 elected_is "$L" "$E"
after "malformed elected"
check "the leader did not change ($PL at $PE -> $L at $E)" unchanged

log "malformed leader"
M="garbage-leader-$RANDOM"
expect_zk ZOK "foreign client overwrites leader" set $G/leader "$M"
check "-malformed names $G/leader and the data" \
    wait_until $SETTLE_MS malformed_named $G/leader "$M"
check "the leader rewrites its znode: $L READY at epoch $E" \
    wait_until $SETTLE_MS same_leader "$L" "$E"
after "malformed leader"
check "the leader did not change ($PL at $PE -> $L at $E)" unchanged

log "malformed config"
M="garbage-config-$RANDOM"
expect_zk ZOK "foreign client overwrites config" set $G/config "{\"v\":1,\"sites\":{\"dc1\":\"$M\"}}"
check "-malformed names $G/config and the data" \
    wait_until $SETTLE_MS malformed_named $G/config "$M"
after "malformed config"
check "the last good config is kept: the leader did not change ($PL at $PE -> $L at $E)" unchanged
zke -p $G status
rc=$?
check "zkelect status exits 1 and names $G/config ($rc)" \
    eval '[ "$rc" = 1 ] && grep -qF "znode $G/config: config: " "$T/err"'
zks set-file $G/config "$T/config.good" > /dev/null
after "config restored (an operator change: the site policy may move the leader)"

log "malformed switchover"
M="garbage-switchover-$RANDOM"
# init created switchover ("no request"): the foreign client overwrites it
expect_zk ZOK "foreign client overwrites switchover with garbage" set $G/switchover "$M"
check "-malformed names $G/switchover and the data" \
    wait_until $SETTLE_MS malformed_named $G/switchover "$M"
after "malformed switchover"
check "the leader did not change ($PL at $PE -> $L at $E)" unchanged
zks set $G/switchover '{"v":1,"id":0,"to":null}' > /dev/null

log "malformed history, then a decision"
M="garbage-history-$RANDOM"
expect_zk ZOK "foreign client overwrites history" set $G/history "$M"
TO=$(other_than "$L" n3)
zke -p $G switchover --to $TO --wait=20
rc=$?
check "a switchover to $TO is still carried out ($rc)" \
    eval '[ "$rc" = 0 ] && grep -q "^$TO READY" "$T/out"'
check "-malformed names $G/history and the data" \
    wait_until $SETTLE_MS malformed_named $G/history "$M"
after "malformed history"
check "the epoch grew ($PE -> $E)" [ "$E" -gt "$PE" ]
zke -p $G history --json
check "history is valid again and ends with epoch $E" \
    eval 'json_is "$T/out" "d[-1][\"epoch\"] == $E"'

# ---------------------------------------------------------------------------
# 2. Oversize data (512 KiB): ZooKeeper takes it, the decoders refuse it
# ---------------------------------------------------------------------------
log "512 KiB into config"
expect_zk ZOK "foreign client writes $BIG bytes into config" set-size $G/config $BIG
check "-malformed names $G/config: payload of $BIG bytes, too large" \
    wait_until $SETTLE_MS any_event -malformed "$G/config: config: payload of $BIG bytes, more than" $NODES
after "oversize config"
check "the leader did not change ($PL at $PE -> $L at $E)" unchanged
zke -p $G status
rc=$?
check "zkelect status exits 1 and says why ($rc)" \
    eval '[ "$rc" = 1 ] && grep -qF "znode $G/config: config: payload of" "$T/err" &&
          grep -qF "more than 65536" "$T/err"'
zke -p $G set-site-priority dc1 100
rc=$?
check "zkelect set-site-priority refuses to overwrite it ($rc)" \
    eval '[ "$rc" = 1 ] && grep -qF "malformed config" "$T/err"'
zks set-file $G/config "$T/config.good" > /dev/null
after "config restored"

log "512 KiB into elected"
# (switchover still holds the request of the history step, acted on long
# ago: an elector that lost `elected` must not take it for a new one)
expect_zk ZOK "foreign client writes $BIG bytes into elected" set-size $G/elected $BIG
check "-malformed names $G/elected: payload of $BIG bytes, too large" \
    wait_until $SETTLE_MS any_event -malformed "$G/elected: elected: payload of $BIG bytes, more than" $NODES
check "the elector writes the decision back: $L at epoch $E" \
    wait_until 10000 elected_is "$L" "$E"
after "oversize elected"
check "the leader did not change ($PL at $PE -> $L at $E)" unchanged

# ---------------------------------------------------------------------------
# 3. Znodes deleted under the running election
# ---------------------------------------------------------------------------
log "elected deleted"
expect_zk ZOK "foreign client deletes elected" delete $G/elected
check "the elector writes the decision back: $L at epoch $E" \
    wait_until 10000 elected_is "$L" "$E"
after "elected deleted"
check "the leader did not change ($PL at $PE -> $L at $E)" unchanged

log "leader deleted"
expect_zk ZOK "foreign client deletes the leader znode" delete $G/leader
check "$L reports -leadership-lost" wait_until $SETTLE_MS has_event "$T/$L.events" -leadership-lost
after "leader deleted"
[ "$E" = "$PE" ] && note "$L took over again at the same epoch $E (elected still names it)"

log "history deleted, then a decision"
expect_zk ZOK "foreign client deletes history" delete $G/history
TO=$(other_than "$L" n3)
zke -p $G switchover --to $TO --wait=20
rc=$?
check "a switchover to $TO is carried out ($rc)" \
    eval '[ "$rc" = 0 ] && grep -q "^$TO READY" "$T/out"'
after "history deleted"
check "the epoch grew ($PE -> $E)" [ "$E" -gt "$PE" ]
zke -p $G history --json
check "history exists again and ends with epoch $E" \
    eval 'json_is "$T/out" "d[-1][\"epoch\"] == $E"'

log "the election znode of a member that neither leads nor elects deleted"
OTHER=$(other_than "$L" "$(elector)")
CHILD=$(zks ls $G/election | grep "^${OTHER}_" | head -n 1)
expect_zk ZOK "foreign client deletes $OTHER's election znode" delete "$G/election/$CHILD"
if wait_until 10000 registered_again $OTHER "$CHILD"; then
    ok "$OTHER registers again (a new election znode)"
else
    nok "$OTHER registers again (a new election znode) within 10 s (it is silently no candidate)"
    restart $OTHER
fi
after "$OTHER's election znode deleted"
check "the leader did not change ($PL at $PE -> $L at $E)" unchanged

log "the election znode of the leader deleted (it is not the elector)"
if [ "$(elector)" = "$L" ]; then
    zke -p $G switchover --to "$(other_than "$L" n3)" --wait=20
    after "a switchover, so that the leader is not the elector"
fi
OLD=$L
CHILD=$(zks ls $G/election | grep "^${OLD}_" | head -n 1)
expect_zk ZOK "foreign client deletes $OLD's election znode" delete "$G/election/$CHILD"
after "the leader's election znode deleted"
check "never two READY leaders meanwhile (event logs)" one_ready_at_a_time
check "a new decision: the epoch grew ($PE -> $E)" [ "$E" -gt "$PE" ]
if wait_until 10000 registered_again $OLD "$CHILD"; then
    ok "$OLD registers again (a new election znode)"
else
    nok "$OLD registers again (a new election znode) within 10 s (it is silently no candidate)"
    restart $OLD
fi
after "three members again"

log "the election znode of the elector deleted, the elector leading"
EL=$(elector)
if [ "$EL" != "$L" ]; then
    zke -p $G switchover --to "$EL" --wait=20
    after "a switchover to the elector $EL"
fi
check "the elector $EL leads ($L)" [ "$EL" = "$L" ]
OLD=$L
CHILD=$(zks ls $G/election | grep "^${OLD}_" | head -n 1)
expect_zk ZOK "foreign client deletes $OLD's election znode" delete "$G/election/$CHILD"
after "the elector's election znode deleted"
check "never two READY leaders meanwhile (event logs)" one_ready_at_a_time
check "a new decision: the epoch grew ($PE -> $E)" [ "$E" -gt "$PE" ]
check "$OLD stepped down: -stepdown or -leadership-lost at epoch $PE" \
    eval 'has_event "$T/$OLD.events" -stepdown "\"epoch\":$PE," ||
          has_event "$T/$OLD.events" -leadership-lost "\"epoch\":$PE,"'
if wait_until 10000 registered_again $OLD "$CHILD"; then
    ok "$OLD registers again (a new election znode)"
else
    nok "$OLD registers again (a new election znode) within 10 s"
fi
check "$OLD does not spin (less than 20% CPU over 2 s)" not_spinning $OLD
registered_again $OLD "$CHILD" || restart $OLD
check "three registrations, one per member" \
    eval '[ "$(zks ls $G/election | sed "s/_.*//" | sort -u | tr "\n" " ")" = "n1 n2 n3 " ] &&
          [ "$(zks ls $G/election | wc -l)" = 3 ]'
after "three members again"

log "config deleted"
EL=$(elector)
# lost_count: step-downs and lost leaderships of L, and decisions of the
# elector for no one or for another node (a re-evaluation that keeps L is fine)
lost_count() {
    echo $(( $(count_event "$T/$L.events" -stepdown) + $(count_event "$T/$L.events" -leadership-lost) +
             $(count_event "$T/$EL.events" -no-eligible) + $(count_event "$T/$EL.events" +decision) -
             $(count_event "$T/$EL.events" +decision "\"subject\":\"$L\",") ))
}
LOST0=$(lost_count)
expect_zk ZOK "foreign client deletes config" delete $G/config
# expected: the leader stays (a deleted config is bad input, like a
# malformed one); the site policy would read "no config" as "no site may lead"
check "the elector $EL says it keeps the last good config" \
    wait_until $SETTLE_MS has_event "$T/$EL.events" -error "$G/config was deleted; keeping the last good config"
# 3 s in which the elector would have decided anew and L stepped down: a
# window of observation, read from the event logs
if wait_until 3000 eval '[ "$(lost_count)" != "$LOST0" ]'; then
    nok "config deleted: a decision against $L or a step-down followed ($LOST0 -> $(lost_count) events)"
else
    ok "config deleted: for 3 s no decision against $L, no step-down, no lost leadership"
fi
check "config deleted: $L still leads at epoch $E" wait_until $SETTLE_MS same_leader "$L" "$E"
zke -p $G init --policy site --site dc1=100 --site dc2=50
check "init recreates config" eval '[ $? = 0 ] && [ "$(zks exists $G/config)" = ZOK ]'
after "config recreated"

# ---------------------------------------------------------------------------
# 4. An election znode that belongs to nobody, with the lowest sequence
# ---------------------------------------------------------------------------
log "a ghost election znode with the lowest sequence"
GHOST=ghost_0123456789abcdef0123456789abcdef_0000000000
expect_zk ZOK "foreign client creates election/$GHOST (persistent)" create "$G/election/$GHOST" ghost
TO=$(other_than "$L" n3)
zke -p $G switchover --to $TO --wait=10
rc=$?
check "a switchover to $TO is still carried out ($rc: $(cat "$T/out" "$T/err" | tr '\n' ' '))" \
    eval '[ "$rc" = 0 ] && grep -q "^$TO READY" "$T/out"'
zks delete "$G/election/$GHOST" > /dev/null
after "ghost election znode removed"

# ---------------------------------------------------------------------------
# 4b. A member record that is no session's: a persistent nodes/<id>
# ---------------------------------------------------------------------------
# No session holds it, so no expiry will free it: the daemon gives up at
# once, naming it (before: "held by another live ZooKeeper session", then
# retries for twice the session timeout, 8 s here).
log "a persistent nodes/n4 written by a foreign client"
expect_zk ZOK "foreign client creates nodes/n4 (persistent)" create "$G/nodes/n4" '{"v":1,"id":"n4"}'
t_n4=$(now_ms)
start_node n4 $G dc2 5
wait_exit n4 $((SESSION_MS * 3 / 2))
rc=$?
check "n4 gives up at once and exits 1 (exit $rc after $(( $(now_ms) - t_n4 )) ms)" [ "$rc" = 1 ]
check "n4's log names the znode and what it is" \
    grep -qF "$G/nodes/n4 is a persistent or container znode" "$T/n4.log"
check "n4's log does not say a live session holds the id" \
    eval '! grep -q "held by another live" "$T/n4.log"'
zks delete "$G/nodes/n4" > /dev/null
after "the persistent nodes/n4 removed"

# ---------------------------------------------------------------------------
# 5. The end
# ---------------------------------------------------------------------------
log "SIGTERM of every node"
for n in $NODES; do
    check "$n: its event log stayed small (no error loop)" \
        eval '[ "$(wc -l < "$T/$n.events")" -lt 2000 ]'
done
for n in $NODES; do
    stop_node $n
    rc=$?
    check "$n exits 0 after SIGTERM ($rc)" [ "$rc" = 0 ]
done
check "over the whole test, never two daemons READY at once (event logs)" one_ready_at_a_time
check "no sanitizer report in any log" no_sanitizer_report

finish
