#!/bin/bash
# test_slots.sh - zkelectd in a group with N = 2 active leaders (issue 17):
# three daemons on a real ZooKeeper, config `leaders = 2`.
#
#   1. n1 and n2 take the two slots: their takeover hooks and leader
#      commands see ZKELECT_SLOT 0 and 1 (distinct) with their epochs;
#      /leader is 200 on both; n3 joins and stays a candidate (503).
#   2. /status (leaders, slots[]) and /metrics (zkelect_leaders,
#      zkelect_slot_ready/epoch/is_leader) on all three agree; the event log
#      lines carry "slot"; the slot-1 active's state file says slot=1.
#   3. kill -9 of the slot-1 active's zkelectd: its leader command dies;
#      slot 1 goes to n3 (ZKELECT_SLOT=1 in its hook and command, a new
#      epoch above both), while slot 0's holder runs no takeover or stepdown
#      hook again and keeps its epoch; its notify hook hears of slot 1.
#   4. The killed daemon restarted: its state file makes it run the stepdown
#      hook for what it left active, with ZKELECT_SLOT=1 (-restart).
#
# ZKD_SLOTS_ZKELECTD=PATH runs another zkelectd (the code before slots in
# the daemon: it must FAIL: no ZKELECT_SLOT, /leader only for slot 0).
#
# Run by `make check`, or by hand from a build directory:
# tests/daemon/test_slots. ZKD_TEST_KEEP=1 keeps the work dir.
set -u

NAME=test_slots
TOP_BUILDDIR=${ZKELECT_TOP_BUILDDIR:-$(pwd)}
TOP_SRCDIR=${ZKELECT_TOP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
ZKELECTD=${ZKD_SLOTS_ZKELECTD:-$TOP_BUILDDIR/src/daemon/zkelectd}
ZKLOCAL=$TOP_BUILDDIR/tests/harness/zk-local
SETCONFIG=$TOP_BUILDDIR/tests/daemon/zkd-setconfig
export ZKELECT_POLICY_PATH=${ZKELECT_POLICY_PATH:-$TOP_BUILDDIR/policies/.libs}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$TOP_SRCDIR/tests/lsan.supp:print_suppressions=0}

SESSION_MS=2000                         # [zookeeper] session_timeout_ms
WAIT_MS=20000                           # "eventually", on a loaded box
TEST_DEADLINE_S=150                     # the whole file, whatever happens
GROUP=/zkdslots

passed=0
failed=0
zk_pid=
guard_pid=
declare -A pid port                     # node -> daemon pid / HTTP port

T=$(mktemp -d "${TMPDIR:-/tmp}/zkd-slots.XXXXXX") || exit 99
HOOKS=$T/hooks.log                      # one line per hook / command start

. "$TOP_SRCDIR/tests/lib.sh"   # now_ms, ok, nok, check, wait_until, pick_port, finish

log() { echo "$NAME: $*"; }

http() {
    curl -s -o /dev/null -w '%{http_code}' --max-time 2 \
        "http://127.0.0.1:${port[$1]}$2" 2>/dev/null || true
}

body() { curl -s --max-time 2 "http://127.0.0.1:${port[$1]}$2" 2>/dev/null; }

alive() { [ -n "${pid[$1]:-}" ] && kill -0 "${pid[$1]}" 2>/dev/null; }

# The live nodes whose /leader answers 200, space-separated, in name order.
leaders() {
    local n out=
    for n in $(printf '%s\n' "${!pid[@]}" | sort); do
        alive "$n" && [ "$(http "$n" /leader)" = 200 ] && out="$out $n"
    done
    echo "${out# }"
}

# hook_lines NODE KIND: NODE's lines of KIND (takeover, stepdown, command).
hook_lines() { grep "^$1 $2 " "$HOOKS" 2>/dev/null; }
count() { hook_lines "$1" "$2" | wc -l; }
# field NODE KIND KEY: KEY's value in NODE's last KIND line.
field() { hook_lines "$1" "$2" | tail -n 1 | tr ' ' '\n' | sed -n "s/^$3=//p"; }

cleanup() {
    local n p end
    trap - EXIT INT TERM HUP
    for n in "${!pid[@]}"; do
        kill -TERM "${pid[$n]}" 2>/dev/null
    done
    end=$(( $(now_ms) + 15000 ))
    for n in "${!pid[@]}"; do
        while kill -0 "${pid[$n]}" 2>/dev/null && [ "$(now_ms)" -lt "$end" ]; do
            sleep 0.05
        done
        kill -KILL "${pid[$n]}" 2>/dev/null
    done
    for p in "$T"/*.cmd.pid; do
        [ -f "$p" ] && kill -KILL "$(cat "$p")" 2>/dev/null
    done
    [ -n "$zk_pid" ] && kill -TERM "$zk_pid" 2>/dev/null && wait "$zk_pid" 2>/dev/null
    [ -n "$guard_pid" ] && kill "$guard_pid" 2>/dev/null
    if [ "${ZKD_TEST_KEEP:-0}" = 1 ] || [ "$failed" -gt 0 ]; then
        for p in "$HOOKS" "$T"/*.log; do
            [ -f "$p" ] || continue
            echo "---- $p (last 30 lines)"
            tail -n 30 "$p"
        done
        [ "${ZKD_TEST_KEEP:-0}" = 1 ] && echo "$NAME: kept $T"
    fi
    [ "${ZKD_TEST_KEEP:-0}" = 1 ] || rm -rf "$T"
}

trap 'cleanup' EXIT
trap 'nok "interrupted"; finish' INT TERM HUP

deadline_guard

for f in "$ZKELECTD" "$ZKLOCAL" "$SETCONFIG"; do
    if [ ! -x "$f" ]; then
        nok "$f is not built"
        finish
    fi
done
command -v curl >/dev/null || { nok "curl is not installed"; finish; }
command -v python3 >/dev/null || { nok "python3 is not installed"; finish; }

# Every hook and the leader command stamp what they were given.
cat > "$T/hook.sh" <<EOF
#!/bin/sh
echo "\$ZKELECT_NODE_ID \$ZKELECT_HOOK event=\$ZKELECT_EVENT slot=\${ZKELECT_SLOT-unset} epoch=\$ZKELECT_EPOCH prev=\$ZKELECT_PREVIOUS leader=\$ZKELECT_LEADER" >> "$HOOKS"
EOF
cat > "$T/cmd.sh" <<EOF
#!/bin/sh
echo \$\$ > "$T/\$ZKELECT_NODE_ID.cmd.pid"
echo "\$ZKELECT_NODE_ID command event=\$ZKELECT_EVENT slot=\${ZKELECT_SLOT-unset} epoch=\$ZKELECT_EPOCH pid=\$\$" >> "$HOOKS"
exec sleep 300
EOF
chmod +x "$T/hook.sh" "$T/cmd.sh"
: > "$HOOKS"

write_config() {
    cat > "$T/$1.ini" <<EOF
[zookeeper]
hosts = $HOSTS
session_timeout_ms = $SESSION_MS
connect_timeout_ms = 15000
[cluster]
path = $GROUP
[node]
id = $1
state_dir = $T
site = dc1
[election]
policy = nodeid
watchdog_ms = 2000
exclude_ms = 60000
[hooks]
takeover = $T/hook.sh
stepdown = $T/hook.sh
notify = $T/hook.sh
timeout_ms = 1000
[leader]
command = exec $T/cmd.sh
[http]
listen = ${port[$1]}
[log]
level = debug
events = $T/$1.events
EOF
}

node_answers() { ! alive "$1" || [ "$(http "$1" /health)" = 200 ]; }

# start_node NODE: zkelectd -f, until it is registered (/health 200).
start_node() {
    local n=$1 try
    for try in 1 2 3 4 5; do
        [ -n "${port[$n]:-}" ] || pick_port "port[$n]"
        write_config "$n"
        "$ZKELECTD" -f -c "$T/$n.ini" >> "$T/$n.log" 2>&1 &
        pid[$n]=$!
        wait_until "$WAIT_MS" node_answers "$n" && alive "$n" && return 0
        if grep -q "cannot listen" "$T/$n.log" && ! alive "$n"; then
            wait "${pid[$n]}" 2>/dev/null
            port[$n]=
            continue
        fi
        return 1
    done
    return 1
}

# status_check NODE EXPR: python3 EXPR over NODE's /status JSON (as s) holds.
status_check() {
    body "$1" /status | python3 -c '
import json, sys
s = json.load(sys.stdin)
sys.exit(0 if eval("(" + sys.argv[1] + ")") else 1)' "$2"
}

# metric NODE LINE: NODE's /metrics has exactly this line.
metric() { body "$1" /metrics | grep -qxF -- "$2"; }

# ---------------------------------------------------------------------------
# ZooKeeper, config leaders = 2
# ---------------------------------------------------------------------------
log "starting ZooKeeper"
"$ZKLOCAL" --no-stdin --hosts-file "$T/hosts" > "$T/zk.log" 2>&1 &
zk_pid=$!
if ! wait_until 90000 test -s "$T/hosts"; then
    nok "zk-local did not start: $(tail -n 5 "$T/zk.log")"
    finish
fi
HOSTS=$(cat "$T/hosts")
t0=$(now_ms)
"$SETCONFIG" -l 2 "$HOSTS" "$GROUP" dc1=100 > "$T/setconfig.log" 2>&1 ||
    { nok "the config of $GROUP is not written: $(cat "$T/setconfig.log")"; finish; }

# ---------------------------------------------------------------------------
# 1. two actives, distinct slots
# ---------------------------------------------------------------------------
start_node n1 || nok "n1 does not start"
start_node n2 || nok "n2 does not start"
check "n1 and n2 are both READY (/leader 200 on both)" \
    wait_until "$WAIT_MS" eval '[ "$(leaders)" = "n1 n2" ]'
check "each ran its takeover hook once and started its command once" \
    wait_until 5000 eval '[ "$(count n1 takeover)" = 1 ] && [ "$(count n2 takeover)" = 1 ] &&
        [ "$(count n1 command)" = 1 ] && [ "$(count n2 command)" = 1 ]'
s1=$(field n1 takeover slot); s2=$(field n2 takeover slot)
e1=$(field n1 takeover epoch); e2=$(field n2 takeover epoch)
log "takeover hooks: n1 slot=$s1 epoch=$e1, n2 slot=$s2 epoch=$e2"
check "the takeover hooks saw ZKELECT_SLOT 0 and 1, distinct" \
    eval '[ "$(printf "%s\n" "$s1" "$s2" | sort | tr "\n" " ")" = "0 1 " ]'
check "their epochs are set and distinct" \
    eval '[ "${e1:-0}" -gt 0 ] && [ "${e2:-0}" -gt 0 ] && [ "$e1" != "$e2" ]'
check "each leader command saw its takeover's slot and epoch" \
    eval '[ "$(field n1 command slot)" = "$s1" ] && [ "$(field n1 command epoch)" = "$e1" ] &&
        [ "$(field n2 command slot)" = "$s2" ] && [ "$(field n2 command epoch)" = "$e2" ]'
if [ "$s1" = 1 ]; then A1=n1; A0=n2; E1=$e1; E0=$e2; else A1=n2; A0=n1; E1=$e2; E0=$e1; fi
log "slot 0: $A0 (epoch $E0), slot 1: $A1 (epoch $E1)"

start_node n3 || nok "n3 does not start"
check "n3 joins as a candidate: /leader 503 on n3, 200 on $A0 and $A1" \
    eval '[ "$(http n3 /leader)" = 503 ] && [ "$(leaders)" = "n1 n2" ]'

# ---------------------------------------------------------------------------
# 2. /status, /metrics, the event log, the state file
# ---------------------------------------------------------------------------
for n in n1 n2 n3; do
    check "$n /status: leaders 2, slot 0 $A0 READY epoch $E0, slot 1 $A1 READY epoch $E1" \
        wait_until 5000 status_check "$n" "s['leaders'] == 2 and len(s['slots']) == 2 and
            [(x['slot'], x['leader'], x['status'], x['epoch']) for x in s['slots']] ==
            [(0, '$A0', 'READY', $E0), (1, '$A1', 'READY', $E1)] and
            [x['self'] for x in s['slots']] == ['$n' == '$A0', '$n' == '$A1'] and
            s['is_leader'] == ('$n' != 'n3') and s['leader']['id'] == '$A0'"
    check "$n /metrics: zkelect_leaders 2, both slots READY with their epochs" \
        eval 'metric $n "zkelect_leaders 2" &&
            metric $n "zkelect_slot_ready{slot=\"0\"} 1" &&
            metric $n "zkelect_slot_ready{slot=\"1\"} 1" &&
            metric $n "zkelect_slot_epoch{slot=\"0\"} $E0" &&
            metric $n "zkelect_slot_epoch{slot=\"1\"} $E1"'
done
check "/metrics: zkelect_slot_is_leader says which slot each active holds" \
    eval 'metric $A0 "zkelect_slot_is_leader{slot=\"0\"} 1" &&
        metric $A0 "zkelect_slot_is_leader{slot=\"1\"} 0" &&
        metric $A1 "zkelect_slot_is_leader{slot=\"1\"} 1" &&
        metric n3 "zkelect_slot_is_leader{slot=\"1\"} 0" &&
        metric $A1 "zkelect_is_leader 1" && metric n3 "zkelect_is_leader 0"'
check "/leader on $A1 names its slot 1 and that slot's epoch" \
    eval 'body $A1 /leader | grep -qF "\"slot\":1,\"slot_epoch\":$E1"'
check "the event log's lines carry the slot (N = 2): $A1's +ready says slot 1" \
    grep -q '"event":"+ready".*"slot":1' "$T/$A1.events"
check "$A1's state file says active, epoch $E1, slot 1; $A0's has no slot line" \
    eval 'grep -qx "active=1" "$T/$A1.state" && grep -qx "epoch=$E1" "$T/$A1.state" &&
        grep -qx "slot=1" "$T/$A1.state" && ! grep -q "^slot=" "$T/$A0.state"'

# ---------------------------------------------------------------------------
# 3. kill -9 of the slot-1 active's zkelectd
# ---------------------------------------------------------------------------
cmdpid=$(cat "$T/$A1.cmd.pid" 2>/dev/null)
t1=$(now_ms)
kill -KILL "${pid[$A1]}"
wait "${pid[$A1]}" 2>/dev/null
unset "pid[$A1]"
check "$A1's leader command (pid $cmdpid) dies with its zkelectd" \
    wait_until 5000 eval '[ -n "$cmdpid" ] && ! kill -0 "$cmdpid" 2>/dev/null'
want=$(printf '%s\n' "$A0" n3 | sort | xargs)
check "slot 1 goes to n3: /leader 200 on $A0 and n3" \
    wait_until "$WAIT_MS" eval '[ "$(leaders)" = "$want" ]'
t2=$(now_ms)
log "slot 1 moved in $((t2 - t1)) ms (session timeout $SESSION_MS ms)"
e3=$(field n3 takeover epoch)
check "n3's takeover hook and command saw ZKELECT_SLOT=1, a new epoch above both" \
    eval '[ "$(count n3 takeover)" = 1 ] && [ "$(field n3 takeover slot)" = 1 ] &&
        [ "$(field n3 command slot)" = 1 ] && [ "$(field n3 command epoch)" = "$e3" ] &&
        [ "${e3:-0}" -gt "$E0" ] && [ "$e3" -gt "$E1" ]'
check "n3's takeover hook was told the slot's previous holder: ZKELECT_PREVIOUS=$A1" \
    eval '[ "$(field n3 takeover prev)" = "$A1" ]'
check "$A0's notify hook was told of slot 1's new READY leader (ZKELECT_SLOT=1, ZKELECT_LEADER=n3)" \
    wait_until 5000 eval 'hook_lines $A0 notify | grep -q "event=+leader-changed slot=1 epoch=$e3 .*leader=n3\$"'
check "slot 0's holder $A0 ran no hook again (one takeover, no stepdown, one command)" \
    eval '[ "$(count $A0 takeover)" = 1 ] && [ "$(count $A0 stepdown)" = 0 ] &&
        [ "$(count $A0 command)" = 1 ]'
check "slot 0 keeps its epoch $E0; slot 1 is n3's at epoch $e3 (/status of $A0 and n3)" \
    eval 'status_check $A0 "[(x[\"leader\"], x[\"epoch\"]) for x in s[\"slots\"]] ==
            [(\"$A0\", $E0), (\"n3\", $e3)]" &&
        status_check n3 "[(x[\"leader\"], x[\"status\"], x[\"epoch\"]) for x in s[\"slots\"]] ==
            [(\"$A0\", \"READY\", $E0), (\"n3\", \"READY\", $e3)]"'

# ---------------------------------------------------------------------------
# 4. the killed daemon restarted: the stepdown hook for slot 1 (-restart)
# ---------------------------------------------------------------------------
start_node "$A1" || nok "$A1 does not start again"
check "$A1's restart ran the stepdown hook with ZKELECT_SLOT=1, epoch $E1 (state file)" \
    wait_until 5000 eval 'hook_lines $A1 stepdown | grep -q "^$A1 stepdown event=-restart slot=1 epoch=$E1 "'
check "$A1 comes back as a candidate: slot 1 stays n3's" \
    eval '[ "$(http $A1 /leader)" = 503 ] && [ "$(count n3 takeover)" = 1 ]'
log "the whole test: $(( ($(now_ms) - t0) / 1000 )) s after ZooKeeper started"

finish
