#!/bin/bash
# test_service.sh - one active service at a time, measured at the service
# (issue 14): real zkelectd daemons on a 3-server ensemble (zk-local -n 3),
# whose hooks stamp their own CLOCK_MONOTONIC times (zke-mono) into a
# service.log: "NODE start MONO EPOCH" when the takeover hook starts,
# "NODE end MONO EPOCH" when the stepdown hook ends. zke-service-check then
# measures the overlap of two nodes' [start, end] intervals; every scenario
# prints it and requires 0 ms.
#
#   0. zke-service-check and zke-mono on made-up logs (the checker can fail)
#   1. partition: T = 4000 ms; the leader n1 reaches ZooKeeper through one
#      server only (a follower of the ensemble), n2 n3 through the two others;
#      that server is stopped (SIGSTOP) for 8.2 s, then resumed. The old
#      leader must have stopped its service before another node starts one.
#   2. failed takeover: n1's takeover hook exits 1 (2a), or hangs past [hooks]
#      timeout_ms (2b), and its stepdown hook takes 1 s to undo; the next
#      node's takeover must start after n1's stepdown hook ended.
#
# Prints "test_service: N passed, N failed" last; exits 1 on any failure.
# Run by `make check`, or by hand from a build directory:
# tests/daemon/test_service. SVC_TEST_KEEP=1 keeps the work directory.
set -u

NAME=test_service
TOP_BUILDDIR=${ZKELECT_TOP_BUILDDIR:-$(pwd)}
TOP_SRCDIR=${ZKELECT_TOP_SRCDIR:-$(sed -n 's/^abs_top_srcdir = //p' "$TOP_BUILDDIR/Makefile" 2>/dev/null)}
[ -n "$TOP_SRCDIR" ] || TOP_SRCDIR=$(cd "$(dirname "$0")/../.." && pwd)
ZKELECTD=$TOP_BUILDDIR/src/daemon/zkelectd
ZKELECT=$TOP_BUILDDIR/src/cli/zkelect
ZKLOCAL=$TOP_BUILDDIR/tests/harness/zk-local
MONO=$TOP_BUILDDIR/tests/harness/zke-mono
SVCCHECK=$TOP_BUILDDIR/tests/harness/zke-service-check
export ZKELECT_POLICY_PATH=${ZKELECT_POLICY_PATH:-$TOP_BUILDDIR/policies/.libs}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$TOP_SRCDIR/tests/lsan.supp:print_suppressions=0}

PART_SESSION_MS=4000                    # scenario 1: T (so D = 1000 ms: n1's stepdown
                                        # hook, a shell and zke-mono under ASan on a
                                        # loaded CI machine, ends within its budget)
PART_FREEZE_MS=8200                     # scenario 1: the server's pause
FAIL_SESSION_MS=6000                    # scenario 2: T (a 1 s stepdown fits its budget)
FAIL_HOOK_MS=2000                       # scenario 2: [hooks] timeout_ms
STEPDOWN_S=1                            # scenario 2: n1's stepdown hook takes this long
WATCHDOG_MS=4000                        # [election] watchdog_ms (> the hook timeout)
WAIT_MS=30000                           # generous deadline for "eventually"
TEST_DEADLINE_S=240                     # the whole file, whatever happens

passed=0
failed=0
zk_pid=
guard_pid=
PH=                                     # the current scenario's directory
declare -A pid port                     # node -> daemon pid / HTTP port

T=$(mktemp -d "${TMPDIR:-/tmp}/zksvc.XXXXXX") || exit 99

. "$TOP_SRCDIR/tests/lib.sh"         # now_ms, ok, nok, check, wait_until, pick_port, finish
. "$TOP_SRCDIR/tests/daemon-lib.sh"  # alive, http, is_leader, leaders, mono_reached,
                                     # zk_start, zk, zk_stop, stop_all

log() { echo "$NAME: $*"; }

some_leader_but() { # some_leader_but NODE: another node answers /leader 200
    local l
    for l in $(leaders); do [ "$l" != "$1" ] && return 0; done
    return 1
}

# The servers' states: "I=leader" / "I=follower" ..., via mntr.
zk_state() { zk mntr "$1" | grep -o 'zk_server_state=[a-z]*' | cut -d= -f2; }

# ---------------------------------------------------------------------------
# Hooks: the service's start and end, stamped by the hooks themselves
# ---------------------------------------------------------------------------

# takeover: stamps its start first (the service starts with the hook), then
# fails while $T/fail.NODE exists, hangs while $T/hang.NODE exists.
cat > "$T/takeover.sh" <<EOF
#!/bin/sh
echo "\$ZKELECT_NODE_ID start \$("$MONO") \${ZKELECT_EPOCH:--}" >> "\$SVC_LOG"
if [ -e "$T/fail.\$ZKELECT_NODE_ID" ]; then
    echo "takeover refused on \$ZKELECT_NODE_ID: $T/fail.\$ZKELECT_NODE_ID exists" >&2
    exit 1
fi
if [ -e "$T/hang.\$ZKELECT_NODE_ID" ]; then
    exec sleep 120
fi
exit 0
EOF
# stepdown: takes \$(cat $T/slow.NODE) seconds to undo, then stamps its end.
cat > "$T/stepdown.sh" <<EOF
#!/bin/sh
if [ -s "$T/slow.\$ZKELECT_NODE_ID" ]; then
    sleep "\$(cat "$T/slow.\$ZKELECT_NODE_ID")"
fi
echo "\$ZKELECT_NODE_ID end \$("$MONO") \${ZKELECT_EPOCH:--}" >> "\$SVC_LOG"
EOF
chmod +x "$T"/*.sh

# write_config NODE PRIORITY HOSTS
write_config() {
    cat > "$PH/$1.ini" <<EOF
[zookeeper]
hosts = $3
session_timeout_ms = $PH_SESSION_MS
connect_timeout_ms = 15000
[cluster]
path = $GROUP
[node]
id = $1
state_dir = $PH
site = dc1
priority = $2
[election]
policy = site
watchdog_ms = $WATCHDOG_MS
exclude_ms = 60000
[policy]
preempt = $PH_PREEMPT
[hooks]
takeover = $T/takeover.sh
stepdown = $T/stepdown.sh
timeout_ms = $PH_HOOK_MS
[http]
listen = ${port[$1]}
[log]
level = debug
events = $PH/$1.events
EOF
}

node_answers() { alive "$1" && [ "$(http "$1" /health)" != 000 ]; }

# start_node NODE PRIORITY HOSTS: start zkelectd -f and wait until its HTTP
# server answers. A port taken meanwhile is replaced (up to 5 times).
start_node() {
    local n=$1 try
    for try in 1 2 3 4 5; do
        [ -n "${port[$n]:-}" ] || pick_port "port[$n]"
        write_config "$n" "$2" "$3"
        SVC_LOG=$PH/service.log "$ZKELECTD" -f -c "$PH/$n.ini" >> "$PH/$n.log" 2>&1 &
        pid[$n]=$!
        wait_until "$WAIT_MS" eval '! alive "$n" || node_answers "$n"'
        node_answers "$n" && return 0
        if ! alive "$n" && grep -q "cannot listen" "$PH/$n.log"; then
            wait "${pid[$n]}" 2>/dev/null
            unset "pid[$n]"
            port[$n]=
            continue
        fi
        log "$n did not start: $(tail -n 3 "$PH/$n.log")"
        return 1
    done
    return 1
}

# last_stamp NODE KIND [AFTER]: the MONO of NODE's last KIND stamp (after AFTER).
last_stamp() {
    awk -v n="$1" -v k="$2" -v a="${3:-0}" \
        '$1 == n && $2 == k && $3 + 0 > a + 0 { t = $3 } END { if (t != "") print t }' \
        "$PH/service.log" 2>/dev/null
}

# first_start_but NODE AFTER: the first start stamp of another node after AFTER.
first_start_but() {
    awk -v n="$1" -v a="$2" '$1 != n && $2 == "start" && $3 + 0 > a + 0 { print $1, $3; exit }' \
        "$PH/service.log" 2>/dev/null
}

# n1's service is not active: its last stamp is an end (or it has none).
inactive() {
    [ "$(awk -v n="$1" '$1 == n { k = $2 } END { print k }' "$PH/service.log" 2>/dev/null)" != start ]
}

# service_check WHAT [ARGS]: zke-service-check over the scenario's service.log;
# prints its report and the measured overlap, requires 0 ms.
service_check() {
    local what=$1 out rc
    shift
    out=$("$SVCCHECK" "$PH/service.log" "$@" 2>&1)
    rc=$?
    printf '%s\n' "$out" | sed 's/^/    /'
    log "$what: $(printf '%s\n' "$out" | grep '^service: .*intervals')"
    check "$what: no two services active at once (0 ms overlap)" [ "$rc" = 0 ]
}

scenario_begin() { # scenario_begin DIR GROUP SESSION_MS HOOK_MS PREEMPT
    PH=$T/$1
    GROUP=$2
    PH_SESSION_MS=$3
    PH_HOOK_MS=$4
    PH_PREEMPT=$5
    mkdir -p "$PH"
    : > "$PH/service.log"
    port=()
    log "---- $1: group $GROUP, session $3 ms, hooks timeout $4 ms, preempt $5"
    ZKELECT_PATH=$GROUP "$ZKELECT" init --policy site --site dc1=100 > "$PH/init.log" 2>&1
    check "$1: zkelect init $GROUP" [ $? = 0 ]
}

cleanup() {
    local n p
    trap - EXIT INT TERM HUP
    for n in "${!pid[@]}"; do kill -TERM "${pid[$n]}" 2>/dev/null; done
    for n in "${!pid[@]}"; do
        wait_until 15000 eval '! kill -0 "${pid[$n]}" 2>/dev/null'
        kill -KILL "${pid[$n]}" 2>/dev/null
        wait "${pid[$n]}" 2>/dev/null
    done
    # a server left stopped would not stop on SIGTERM
    [ -n "${zk_paused:-}" ] && [ -n "$zk_pid" ] && echo "resume $zk_paused" >&3 2>/dev/null
    zk_stop
    [ -n "$guard_pid" ] && kill "$guard_pid" 2>/dev/null
    if [ "${SVC_TEST_KEEP:-0}" = 1 ] || [ "$failed" -gt 0 ]; then
        for p in "$T"/*/service.log "$T"/*/*.log; do
            [ -f "$p" ] || continue
            echo "---- $p (last 40 lines)"
            tail -n 40 "$p"
        done
        [ "${SVC_TEST_KEEP:-0}" = 1 ] && echo "$NAME: kept $T"
    fi
    [ "${SVC_TEST_KEEP:-0}" = 1 ] || rm -rf "$T"
}

trap 'cleanup' EXIT
trap 'nok "interrupted"; finish' INT TERM HUP

deadline_guard

for f in "$ZKELECTD" "$ZKELECT" "$ZKLOCAL" "$MONO" "$SVCCHECK"; do
    if [ ! -x "$f" ]; then
        nok "$f is not built"
        finish
    fi
done
command -v curl > /dev/null || { nok "curl is not installed"; finish; }

# ---------------------------------------------------------------------------
# 0. The checker on made-up logs: its "ok" means something
# ---------------------------------------------------------------------------
log "zke-mono and zke-service-check on made-up logs"
S=$T/self
mkdir -p "$S"
check "zke-mono prints CLOCK_MONOTONIC ms with 3 decimals" \
    eval '"$MONO" | grep -Eqx "[0-9]+\.[0-9]{3}"'
a=$("$MONO"); b=$("$MONO")
check "zke-mono does not go backwards ($a <= $b)" awk -v a="$a" -v b="$b" 'BEGIN { exit !(a <= b) }'
printf '%s\n' "n1 start 1000.000 1" "n1 end 2000.000 1" "n2 start 2000.001 2" \
    "n2 end 3000 2" > "$S/clean"
"$SVCCHECK" "$S/clean" --end 5000 > "$S/out" 2>&1
rc=$?
check "a clean handover passes: exit 0, 2 intervals, 0 overlap" \
    eval '[ $rc = 0 ] && grep -qx "service: 2 intervals, longest overlap 0.000 ms (0.000 ms outside frozen windows)" "$S/out"'
printf '%s\n' "n1 start 1000 1" "n2 start 1500 2" "n1 end 1700.5 1" > "$S/over"
"$SVCCHECK" "$S/over" --end 5000 > "$S/out" 2>&1
rc=$?
check "an overlap fails: exit 1, both nodes named, 200.5 ms" \
    eval '[ $rc = 1 ] && grep -q "^VIOLATION: two services active: n1 .* and n2 " "$S/out" &&
          grep -q "longest overlap 200.500 ms (200.500 ms outside" "$S/out"'
printf '%s\n' "n1 start 1000 1" "n2 start 4000 2" > "$S/open"
"$SVCCHECK" "$S/open" --end 5000 > "$S/out" 2>&1
rc=$?
check "an interval with no end lasts to the end of the run (1000 ms overlap)" \
    eval '[ $rc = 1 ] && grep -q "longest overlap 1000.000 ms" "$S/out"'
"$SVCCHECK" "$S/open" --end 5000 --frozen n1:3500-4800 --bound-ms 200 > "$S/out" 2>&1
check "inside a frozen window of one of them + the bound: allowed" [ $? = 0 ]
"$SVCCHECK" "$S/open" --end 5000 --frozen n1:3500-4500 --bound-ms 200 > "$S/out" 2>&1
rc=$?
check "beyond the frozen window + the bound: 300 ms outside, a violation" \
    eval '[ $rc = 1 ] && grep -q "(300.000 ms outside frozen windows)" "$S/out"'
printf '%s\n' "n1 start 1000 1" "n1 stop 1200 1" > "$S/bad"
"$SVCCHECK" "$S/bad" > "$S/out" 2>&1
rc=$?
check "a malformed line is an error naming the file and line" \
    eval '[ $rc = 2 ] && grep -qF "$S/bad:2: \"stop\" is neither start nor end" "$S/out"'

# ---------------------------------------------------------------------------
# The ensemble, driven through a FIFO (pause/resume/mntr)
# ---------------------------------------------------------------------------
log "starting a 3-server ZooKeeper ensemble"
if ! zk_start 3; then
    nok "zk-local -n 3 did not start: $(tail -n 5 "$T/zk.log")"
    finish
fi
IFS=, read -r -a SERVER <<< "$HOSTS"
log "ZooKeeper ensemble at $HOSTS"

# ---------------------------------------------------------------------------
# 1. Partition: the leader's only server stops answering for 8.2 s
# ---------------------------------------------------------------------------
scenario_begin partition /svc/partition "$PART_SESSION_MS" 5000 off
F=
for i in 0 1 2; do
    s=$(zk_state "$i")
    log "server $i (${SERVER[$i]}): ${s:-no answer}"
    [ -z "$F" ] && [ "$s" = follower ] && F=$i
done
check "partition: a follower server for the leader's hosts (server ${F:-none})" [ -n "$F" ]
F=${F:-0}
OTHERS=
for i in 0 1 2; do [ "$i" != "$F" ] && OTHERS="$OTHERS${OTHERS:+,}${SERVER[$i]}"; done
check "partition: n1 (hosts ${SERVER[$F]} only) starts" start_node n1 30 "${SERVER[$F]}"
check "partition: n1 is the READY leader" wait_until "$WAIT_MS" is_leader n1
check "partition: n2 n3 (hosts $OTHERS) start" \
    eval 'start_node n2 20 "$OTHERS" && start_node n3 10 "$OTHERS"'
check "partition: n1's service is on (its takeover hook stamped its start)" \
    eval '[ -n "$(last_stamp n1 start)" ]'
t0=$("$MONO")
zk_paused=$F
log "partition: SIGSTOP of server $F for $PART_FREEZE_MS ms: $(zk pause "$F")"
check "partition: another node leads while n1's server is stopped" \
    wait_until $((PART_FREEZE_MS + WAIT_MS)) some_leader_but n1
# the fault lasts PART_FREEZE_MS from t0 (a duration, not a synchronization)
wait_until $((PART_FREEZE_MS + 5000)) mono_reached "$t0" "$PART_FREEZE_MS"
t1=$("$MONO")
log "partition: server $F resumed after $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", b - a }') ms: $(zk resume "$F")"
zk_paused=
check "partition: n1's service is off again (its stepdown hook ended)" \
    wait_until "$WAIT_MS" inactive n1
check "partition: exactly one leader afterwards" \
    wait_until "$WAIT_MS" eval '[ "$(leaders | wc -w)" = 1 ]'
e1=$(last_stamp n1 end "$t0")
read -r nx s2 < <(first_start_but n1 "$t0")
log "partition: n1's stepdown ended $(awk -v a="$t0" -v b="${e1:-0}" 'BEGIN { printf "%.0f", b - a }') ms after the freeze; ${nx:-nobody} started its service $(awk -v a="$t0" -v b="${s2:-0}" 'BEGIN { printf "%.0f", b - a }') ms after the freeze"
service_check "partition (scenario 2)"
stop_all

# ---------------------------------------------------------------------------
# 2. Failed takeover: n1's hook fails (a) or hangs (b); its stepdown takes 1 s
# ---------------------------------------------------------------------------
failed_takeover() { # failed_takeover LABEL FLAG
    local label=$1 flag=$2 ts te nx s2
    scenario_begin "$label" "/svc/$label" "$FAIL_SESSION_MS" "$FAIL_HOOK_MS" on
    check "$label: n2 starts and leads" \
        eval 'start_node n2 20 "$HOSTS" && wait_until "$WAIT_MS" is_leader n2'
    check "$label: n3 starts" start_node n3 10 "$HOSTS"
    touch "$T/$flag.n1"
    echo "$STEPDOWN_S" > "$T/slow.n1"
    ts=$("$MONO")
    check "$label: n1 (priority 30, takeover hook ${flag}s, stepdown ${STEPDOWN_S} s) starts" \
        start_node n1 30 "$HOSTS"
    check "$label: n1 takes over and fails (-takeover-failed)" \
        wait_until "$WAIT_MS" grep -q '"event":"-takeover-failed"' "$PH/n1.events"
    check "$label: n1's stepdown hook ends" \
        wait_until "$WAIT_MS" eval '[ -n "$(last_stamp n1 end "$ts")" ]'
    check "$label: another node leads again" wait_until "$WAIT_MS" some_leader_but n1
    te=$(last_stamp n1 end "$ts")
    read -r nx s2 < <(first_start_but n1 "$(last_stamp n1 start "$ts")")
    log "$label: n1's stepdown ended at ${te:-?}; the next takeover (${nx:-none}) started at ${s2:-?} ($(awk -v a="${te:-0}" -v b="${s2:-0}" 'BEGIN { printf "%+.0f", b - a }') ms)"
    check "$label: the next takeover starts after n1's stepdown hook ended" \
        awk -v a="${te:-x}" -v b="${s2:-}" 'BEGIN { exit !(a != "x" && b != "" && b + 0 > a + 0) }'
    service_check "$label (scenario 3)"
    rm -f "$T/$flag.n1" "$T/slow.n1"
    stop_all
}
failed_takeover takeover-fails fail
failed_takeover takeover-hangs hang

finish
