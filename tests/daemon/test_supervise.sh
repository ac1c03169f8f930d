#!/bin/bash
# test_supervise.sh - the supervised leader command ([leader] command) of
# zkelectd, at the service level (issue 14, scenario 1, first form).
#
# The command is `exec zke-service FILE NODE`: it stamps "NODE start MONO
# EPOCH" into FILE when it starts and "NODE end MONO EPOCH" on SIGTERM; a
# SIGKILL death is stamped from outside (zke-service --wait-dead, taken after
# the death: it can only make an end later; zke-service --kill when the test
# kills the service itself, so the stamp is not late by a process start).
# zke-service-check then fails on
# any overlap of two nodes' [start, end] intervals.
#
#   1. -n refuses timing values that break F + D <= T/2, naming the keys.
#   2. kill -9 of the leader's zkelectd (no restart): its command, a service
#      that daemonizes (setsid -f: out of the process group, its parent
#      gone), runs under the leash, and is dead before any other node's
#      command starts (0 ms overlap); another node is READY.
#   3. The command exiting by itself moves leadership (the node turns
#      unhealthy), counted in /metrics and shown in /status.
#   4. A ready_command that never passes fails the takeover: the command is
#      stopped before the next node's starts.
#   5. The step-down budget D: a command that ignores SIGTERM is killed
#      after stop_timeout_ms, a hanging stepdown hook within the rest of D.
#   6. SIGHUP applies the same timing checks; SIGTERM of zkelectd stops its
#      command, which sh forked (no exec) and which takes 150 ms to stop:
#      within the grace, without SIGKILL.
#
# ZKD_SUP_HOOKS=1 runs part 2 the way users had to before [leader] command:
# a takeover hook starts the service detached (and a stepdown hook stops it).
# That run must FAIL (the service survives the kill -9): it shows what the
# test catches, on the code that has no [leader] command.
#
# Run by `make check`, or by hand from a build directory:
# tests/daemon/test_supervise. ZKD_TEST_KEEP=1 keeps the work dir.
set -u

NAME=test_supervise
TOP_BUILDDIR=${ZKELECT_TOP_BUILDDIR:-$(pwd)}
TOP_SRCDIR=${ZKELECT_TOP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
ZKELECTD=${ZKD_SUP_ZKELECTD:-$TOP_BUILDDIR/src/daemon/zkelectd}   # another build: the old code
ZKLOCAL=$TOP_BUILDDIR/tests/harness/zk-local
SETCONFIG=$TOP_BUILDDIR/tests/daemon/zkd-setconfig
SERVICE=$TOP_BUILDDIR/tests/harness/zke-service
MONO=$TOP_BUILDDIR/tests/harness/zke-mono
SVCCHECK=$TOP_BUILDDIR/tests/harness/zke-service-check
export ZKELECT_POLICY_PATH=${ZKELECT_POLICY_PATH:-$TOP_BUILDDIR/policies/.libs}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$TOP_SRCDIR/tests/lsan.supp:print_suppressions=0}

SESSION_MS=2000                         # [zookeeper] session_timeout_ms: T
WATCHDOG_MS=2000                        # [election] watchdog_ms
SLACK_MS=10000                          # for a loaded box and the sanitizers
TEST_DEADLINE_S=240                     # the whole file, whatever happens
HOOKS_MODE=${ZKD_SUP_HOOKS:-0}

passed=0
failed=0
zk_pid=
guard_pid=
declare -A pid port                     # node -> daemon pid / HTTP port

T=$(mktemp -d "${TMPDIR:-/tmp}/zkd-sup.XXXXXX") || exit 99

# ---------------------------------------------------------------------------
# Plumbing
# ---------------------------------------------------------------------------

. "$TOP_SRCDIR/tests/lib.sh"   # now_ms, ok, nok, check, wait_until, pick_port, finish

log() { echo "$NAME: $*"; }

http() {
    curl -s -o /dev/null -w '%{http_code}' --max-time 2 \
        "http://127.0.0.1:${port[$1]}$2" 2>/dev/null || true
}

body() { curl -s --max-time 2 "http://127.0.0.1:${port[$1]}$2" 2>/dev/null; }

alive() { [ -n "${pid[$1]:-}" ] && kill -0 "${pid[$1]}" 2>/dev/null; }

# The live nodes whose /leader answers 200 (READY leader), space-separated.
leaders() {
    local n out=
    for n in $(printf '%s\n' "${!pid[@]}" | sort); do
        alive "$n" && [ "$(http "$n" /leader)" = 200 ] && out="$out $n"
    done
    echo "${out# }"
}

one_leader() { local l; l=$(leaders); [ -n "$l" ] && [ "${l% *}" = "$l" ]; }

# A READY leader other than $1.
other_leader() { local l; l=$(leaders); [ -n "$l" ] && [ "$l" != "$1" ] && [ "${l% *}" = "$l" ]; }

# "NODE start" lines in FILE
starts() { grep -c "^$2 start " "$1" 2>/dev/null || true; }

svc_pid() { cat "$1.$2.pid" 2>/dev/null; }

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
    # services a failed run (or the hooks mode) left behind
    for p in "$T"/*.pid; do
        [ -f "$p" ] && kill -KILL "$(cat "$p")" 2>/dev/null
    done
    [ -n "$zk_pid" ] && kill -TERM "$zk_pid" 2>/dev/null && wait "$zk_pid" 2>/dev/null
    [ -n "$guard_pid" ] && kill "$guard_pid" 2>/dev/null
    if [ "${ZKD_TEST_KEEP:-0}" = 1 ] || [ "$failed" -gt 0 ]; then
        for p in "$T"/*.log "$T"/svc*; do
            [ -f "$p" ] || continue
            case $p in *.pid) continue ;; esac
            echo "---- $p (last 40 lines)"
            tail -n 40 "$p"
        done
        [ "${ZKD_TEST_KEEP:-0}" = 1 ] && echo "$NAME: kept $T"
    fi
    [ "${ZKD_TEST_KEEP:-0}" = 1 ] || rm -rf "$T"
}

trap 'cleanup' EXIT
trap 'nok "interrupted"; finish' INT TERM HUP

deadline_guard

for f in "$ZKELECTD" "$ZKLOCAL" "$SETCONFIG" "$SERVICE" "$MONO" "$SVCCHECK"; do
    if [ ! -x "$f" ]; then
        nok "$f is not built"
        finish
    fi
done
command -v curl >/dev/null || { nok "curl is not installed"; finish; }

# The hooks mode: the service started detached by a takeover hook, stopped by
# a stepdown hook (what doc/OPERATIONS.md showed before [leader] command).
cat > "$T/takeover.sh" <<EOF
#!/bin/sh
setsid "$SERVICE" "\$SVC" "\$ZKELECT_NODE_ID" < /dev/null > /dev/null 2>&1 &
i=0
while [ ! -s "\$SVC.\$ZKELECT_NODE_ID.pid" ] && [ \$i -lt 200 ]; do sleep 0.01; i=\$((i+1)); done
EOF
cat > "$T/stepdown.sh" <<'EOF'
#!/bin/sh
p=$(cat "$SVC.$ZKELECT_NODE_ID.pid" 2>/dev/null) || exit 0
kill -TERM "$p" 2>/dev/null
i=0
while kill -0 "$p" 2>/dev/null && [ $i -lt 200 ]; do sleep 0.01; i=$((i+1)); done
rm -f "$SVC.$ZKELECT_NODE_ID.pid"
EOF
chmod +x "$T"/*.sh

# write_config NODE PRIORITY GROUP SVCFILE [EXTRA-LEADER-LINES]
write_config() {
    local leader cmd="${SVC_ENV:+$SVC_ENV }exec $SERVICE $4 $1"
    # NOEXEC=1: sh -c forks the service and waits for it (no exec)
    [ -n "${NOEXEC:-}" ] && cmd="${SVC_ENV:+$SVC_ENV }$SERVICE $4 $1; exit \$?"
    # DAEMON=1: the service daemonizes (a new session, its parent exits)
    [ -n "${DAEMON:-}" ] && cmd="setsid -f $SERVICE $4 $1 < /dev/null > /dev/null 2>&1"
    if [ "$HOOKS_MODE" = 1 ] && [ "$3" = /zkdsup1 ]; then
        leader="[hooks]
takeover = $T/takeover.sh
stepdown = $T/stepdown.sh
timeout_ms = 1000"
    else
        leader="[hooks]
timeout_ms = 1000
${STEPDOWN_HOOK:+stepdown = $STEPDOWN_HOOK}
[leader]
command = $cmd
${5:-}"
    fi
    cat > "$T/$1.ini" <<EOF
[zookeeper]
hosts = ${HOSTS:-127.0.0.1:1}
session_timeout_ms = $SESSION_MS
connect_timeout_ms = 15000
[cluster]
path = $3
[node]
id = $1
state_dir = $T
site = dc1
priority = $2
[election]
policy = site
watchdog_ms = $WATCHDOG_MS
exclude_ms = ${EXCLUDE_MS:-60000}
[policy]
preempt = off
$leader
[http]
listen = ${port[$1]}
[log]
level = debug
events = $T/$1.events
EOF
}

# start_node NODE PRIORITY GROUP SVCFILE [EXTRA]: zkelectd -f, until it answers.
start_node() {
    local n=$1 try
    for try in 1 2 3 4 5; do
        [ -n "${port[$n]:-}" ] || pick_port "port[$n]"
        write_config "$@"
        SVC=$4 "$ZKELECTD" -f -c "$T/$n.ini" >> "$T/$n.log" 2>&1 &
        pid[$n]=$!
        # it answers, or it died (a port taken meanwhile by another test:
        # then again on a new port)
        if wait_until 20000 node_answers "$n" && alive "$n"; then
            return 0
        fi
        if grep -q "cannot listen" "$T/$n.log" && ! alive "$n"; then
            wait "${pid[$n]}" 2>/dev/null
            port[$n]=
            continue
        fi
        return 1
    done
    return 1
}

node_answers() { ! alive "$1" || [ "$(http "$1" /health)" != 000 ]; }

# The service check over FILE: prints its summary, 0 when no overlap.
svc_ok() {
    "$SVCCHECK" "$1" > "$T/svccheck.out" 2>&1
    local rc=$?
    log "$(tail -n 1 "$T/svccheck.out")"
    [ "$rc" = 0 ] || sed 's/^/    /' "$T/svccheck.out"
    return $rc
}

# stamp_death FILE NODE: wait until NODE's service (pid file) is dead and
# append "NODE end MONO EPOCH" (the epoch of its last start line). With
# KILL_IT=1 the test kills it: SIGKILL and the wait from one process, so the
# stamp follows the death by under a millisecond (zke-service --kill).
stamp_death() {
    local p at ep how=--wait-dead
    [ -n "${KILL_IT:-}" ] && how=--kill
    p=$(svc_pid "$1" "$2") || return 1
    at=$("$SERVICE" "$how" "$p" "$SLACK_MS") || return 1
    ep=$(grep "^$2 start " "$1" | tail -n 1 | cut -d' ' -f4)
    echo "$2 end $at ${ep:-0}" >> "$1"
}

# ---------------------------------------------------------------------------
# 1. -n: the timing rules, naming the keys (no ZooKeeper needed)
# ---------------------------------------------------------------------------
log "-n and the timing keys"
pick_port "port[cfg]"
write_config cfg 1 /zkdsup0 "$T/svc0"

# expect_bad DESCRIPTION 'SED-SCRIPT' 'FRAGMENT': -n refuses, naming the key
expect_bad() {
    local want="$T/bad.ini: $3" rc
    sed "$2" "$T/cfg.ini" > "$T/bad.ini"
    "$ZKELECTD" -n -c "$T/bad.ini" > "$T/out" 2> "$T/err"
    rc=$?
    check "-n refuses $1" eval '[ "$rc" = 1 ] && ! grep -q "configuration OK" "$T/out" &&
        grep -qF -- "$want" "$T/err"' || sed 's/^/    /' "$T/err"
}

"$ZKELECTD" -n -c "$T/cfg.ini" > "$T/out" 2>&1
rc=$?
check "-n: a [leader] command with the derived timing is OK" \
    eval '[ "$rc" = 0 ] && grep -qx "configuration OK" "$T/out"'
expect_bad "fence_ms + stepdown_timeout_ms > T/2" \
    '/^\[leader\]/a fence_ms = 800' \
    "[leader] fence_ms: fence_ms + [hooks] stepdown_timeout_ms = 800 ms + 500 ms (derived) = 1300 ms exceeds half of [zookeeper] session_timeout_ms (1000 ms)"
expect_bad "stop_timeout_ms >= stepdown_timeout_ms" \
    '/^\[leader\]/a stop_timeout_ms = 500' \
    "[leader] stop_timeout_ms: 500 ms must be less than [hooks] stepdown_timeout_ms (500 ms (derived))"
expect_bad "a stepdown_timeout_ms that leaves fence_ms below 100 ms" \
    '/^timeout_ms = /a stepdown_timeout_ms = 950' \
    "[leader] fence_ms: 50 ms (derived) is below 100 ms"
expect_bad "watchdog_ms <= stepdown_timeout_ms" \
    $'s/^watchdog_ms = .*/watchdog_ms = 400/\n/^timeout_ms = /a stepdown_timeout_ms = 400' \
    "[hooks] stepdown_timeout_ms: 400 ms must be less than [election] watchdog_ms (400 ms)"
unset "port[cfg]"

# ---------------------------------------------------------------------------
# 2. ZooKeeper; kill -9 of the leader's zkelectd
# ---------------------------------------------------------------------------
log "starting ZooKeeper"
"$ZKLOCAL" --no-stdin --hosts-file "$T/hosts" > "$T/zk.log" 2>&1 &
zk_pid=$!
if ! wait_until 90000 test -s "$T/hosts"; then
    nok "zk-local did not start: $(tail -n 5 "$T/zk.log")"
    finish
fi
HOSTS=$(cat "$T/hosts")
log "ZooKeeper at $HOSTS"
for g in /zkdsup1 /zkdsup2; do
    "$SETCONFIG" "$HOSTS" "$g" dc1=100 >> "$T/setconfig.log" 2>&1 ||
        nok "the config of $g is not written"
done

SVC1=$T/svc1
: > "$SVC1"
# exclude_ms 3000: a node whose command ended is unhealthy for that long
# n1's service daemonizes (setsid -f): it leaves the command's process group
# and its parent exits; PR_SET_PDEATHSIG alone did not reach it, nor did a
# kill of the group; the leash, its subreaper, does
DAEMON=1 EXCLUDE_MS=3000 start_node n1 3 /zkdsup1 "$SVC1" || nok "n1 does not start"
check "n1 is the READY leader, its service started" \
    wait_until "$SLACK_MS" eval '[ "$(leaders)" = n1 ] && [ "$(starts "$SVC1" n1)" = 1 ]'
EXCLUDE_MS=3000 start_node n2 2 /zkdsup1 "$SVC1" || nok "n2 does not start"
EXCLUDE_MS=3000 start_node n3 1 /zkdsup1 "$SVC1" || nok "n3 does not start"
wait_until "$SLACK_MS" eval 'body n3 /status | grep -q "\"registered\":true"'

if [ "$HOOKS_MODE" != 1 ]; then
    sp=$(svc_pid "$SVC1" n1)
    leash=$(ps -o ppid= -p "$sp" | tr -d " ")
    check "/status: the command runs (sh exited; the daemon it started is waited for)" \
        eval 'body n1 /status | grep -qE "\"command\":\\{\"configured\":true,\"pid\":[0-9]+,\"state\":\"running\""'
    check "the daemon left the process group, and is the child of the leash (zkelectd's child, the group's leader)" \
        eval '[ "$(ps -o ppid= -p "$leash" | tr -d " ")" = "${pid[n1]}" ] &&
              [ "$(ps -o pgid= -p "$leash" | tr -d " ")" = "$leash" ] &&
              [ "$(ps -o pgid= -p "$sp" | tr -d " ")" != "$leash" ]'
fi

log "kill -9 of n1's zkelectd"
killed_at=$("$MONO")
kill -KILL "${pid[n1]}"
wait "${pid[n1]}" 2>/dev/null
unset "pid[n1]"
if stamp_death "$SVC1" n1; then
    dead_at=$(grep '^n1 end ' "$SVC1" | tail -n 1 | cut -d' ' -f3)
    ms=$(awk -v a="$killed_at" -v b="$dead_at" 'BEGIN { printf "%.1f", b - a }')
    log "n1's service dead ${ms} ms after the kill -9"
    check "n1's service died with its zkelectd (within 1 s)" \
        awk -v a="$killed_at" -v b="$dead_at" 'BEGIN { exit !(b - a < 1000) }'
else
    nok "n1's service still runs ${SLACK_MS} ms after its zkelectd was killed"
fi
check "another node is the READY leader, and its service started" \
    wait_until $((SESSION_MS + SLACK_MS)) eval 'other_leader n1 &&
        [ "$(grep -c " start " "$SVC1")" -ge 2 ]'
check "kill -9: no two services ran at once (0 ms overlap)" svc_ok "$SVC1"
next_at=$(grep -v '^n1 ' "$SVC1" | grep ' start ' | head -n 1 | cut -d' ' -f3)
[ -n "${dead_at:-}" ] && [ -n "$next_at" ] &&
    log "the next service started $(awk -v a="$dead_at" -v b="$next_at" 'BEGIN { printf "%.1f", b - a }') ms after n1's died"
if [ "$HOOKS_MODE" = 1 ]; then
    finish
fi

# ---------------------------------------------------------------------------
# 3. The command ends by itself: leadership moves
# ---------------------------------------------------------------------------
m=$(leaders)
k=$([ "$m" = n2 ] && echo n3 || echo n2)
log "$m's service is killed (SIGKILL, not by zkelectd)"
KILL_IT=1 stamp_death "$SVC1" "$m" || nok "$m's service does not die"
check "$k becomes the READY leader, its service started" \
    wait_until $((SESSION_MS + SLACK_MS)) eval '[ "$(leaders)" = "$k" ] &&
        [ "$(starts "$SVC1" "$k")" = 1 ]'
check "$m logs that its command ended by itself, and turns unhealthy" \
    eval 'grep -q "leader command (pid [0-9]*, epoch [0-9]*) ended by itself while leading: killed by signal 9" "$T/$m.log" &&
          grep -q "health: node unhealthy (the leader command ended by itself" "$T/$m.log"'
check "$m's /metrics count the exit" \
    eval 'body "$m" /metrics | grep -qx "zkelect_command_exits_total 1"'
check "$m's /status: no command runs any more" \
    eval 'body "$m" /status | grep -qF "\"command\":{\"configured\":true,\"pid\":null,\"state\":\"stopped\""'
check "self exit: no two services ran at once" svc_ok "$SVC1"
check "$m is healthy again [election] exclude_ms (3000 ms) later (no health command)" \
    wait_until $((3000 + SLACK_MS)) eval 'grep -q "health: node healthy again (\[election\] exclude_ms passed" "$T/$m.log" &&
        body "$m" /metrics | grep -qx "zkelect_healthy 1"'
check "... and $k still leads (no preemption)" eval '[ "$(leaders)" = "$k" ]'

# ---------------------------------------------------------------------------
# 4. A ready_command that never passes fails the takeover
# ---------------------------------------------------------------------------
log "ready_command that never passes (p1), then p2"
SVC2=$T/svc2
: > "$SVC2"
start_node p1 2 /zkdsup2 "$SVC2" "ready_command = exit 1" || nok "p1 does not start"
check "p1's takeover fails: ready_command did not pass within [hooks] timeout_ms" \
    wait_until "$SLACK_MS" grep -q "ready_command did not pass within \[hooks\] timeout_ms (1000 ms" "$T/p1.log"
check "p1's command was stopped (SIGTERM: its end stamped)" \
    wait_until "$SLACK_MS" grep -q "^p1 end " "$SVC2"
# p2's command has no exec, and its service takes 150 ms to stop: SIGTERM's
# grace must cover the service, not only sh (part 6)
NOEXEC=1 SVC_ENV=ZKE_SERVICE_STOP_MS=150 start_node p2 1 /zkdsup2 "$SVC2" \
    "ready_command = test -s $SVC2.p2.pid
stop_timeout_ms = 350" || nok "p2 does not start"
check "p2 becomes the READY leader once its ready_command passed" \
    wait_until $((WATCHDOG_MS + SLACK_MS)) eval '[ "$(http p2 /leader)" = 200 ]'
check "p2's log: ready_command passed" grep -q "ready_command passed" "$T/p2.log"
check "failed takeover: no two services ran at once" svc_ok "$SVC2"

# SIGHUP checks the timing as -n does; D and F need a restart
cp "$T/p2.ini" "$T/p2.ini.good"
sed -i '/^\[leader\]/a fence_ms = 900' "$T/p2.ini"
kill -HUP "${pid[p2]}"
check "SIGHUP: fence_ms + stepdown_timeout_ms > T/2 is refused, naming the key" \
    wait_until 5000 grep -qF "reload failed: $T/p2.ini: [leader] fence_ms: fence_ms + [hooks] stepdown_timeout_ms = 900 ms + 500 ms (derived)" "$T/p2.log"
sed '/^timeout_ms = /a stepdown_timeout_ms = 400' "$T/p2.ini.good" > "$T/p2.ini"
kill -HUP "${pid[p2]}"
check "SIGHUP: a new stepdown_timeout_ms is logged as needing a restart" \
    wait_until 5000 grep -qF "reload: [hooks] stepdown_timeout_ms changed: it takes effect only after a restart" "$T/p2.log"
check "p2 still leads" eval '[ "$(http p2 /leader)" = 200 ]'

# ---------------------------------------------------------------------------
# 5. The step-down budget D (T/4 = 500 ms): a command that ignores SIGTERM is
#    killed after stop_timeout_ms (250 ms), a slow stepdown hook gets the rest
# ---------------------------------------------------------------------------
log "q1: a command that ignores SIGTERM, a stepdown hook that hangs"
printf '#!/bin/sh\nexec sleep 30\n' > "$T/slow-stepdown.sh"
chmod +x "$T/slow-stepdown.sh"
SVC3=$T/svc3
: > "$SVC3"
"$SETCONFIG" "$HOSTS" /zkdsup3 dc1=100 >> "$T/setconfig.log" 2>&1
STEPDOWN_HOOK=$T/slow-stepdown.sh start_node q1 1 /zkdsup3 "$SVC3" \
    "command = ZKE_SERVICE_IGNORE_TERM=1 exec $SERVICE $SVC3 q1" || nok "q1 does not start"
check "q1 leads, its command runs" \
    wait_until "$SLACK_MS" eval '[ "$(http q1 /leader)" = 200 ] && [ -s "$SVC3.q1.pid" ]'
t0=$("$MONO")
kill -TERM "${pid[q1]}"
wait_until 20000 eval '! kill -0 "${pid[q1]}" 2>/dev/null'
t1=$("$MONO")
wait "${pid[q1]}"
unset "pid[q1]"
check "D: the command that ignores SIGTERM was killed after stop_timeout_ms (250 ms)" \
    grep -q "did not exit within 250 ms (\[leader\] stop_timeout_ms.*SIGKILL" "$T/q1.log"
check "D: the hanging stepdown hook was ended within what was left of the budget" \
    grep -qE "stepdown hook \(epoch [0-9]+\): .*slow-stepdown.sh failed: timed out after [0-9]+ ms" "$T/q1.log"
ms=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", b - a }')
log "SIGTERM to exit, with a stuck command and a hanging stepdown hook: $ms ms"
check "D: the whole resignation took less than D + 1 s ($ms ms)" [ "$ms" -lt 1500 ]

# ---------------------------------------------------------------------------
# 6. SIGTERM of zkelectd stops its command
# ---------------------------------------------------------------------------
sp=$(svc_pid "$SVC2" p2)
kill -TERM "${pid[p2]}"
wait_until 20000 eval '! kill -0 "${pid[p2]}" 2>/dev/null'
wait "${pid[p2]}"
rc=$?
unset "pid[p2]"
check "SIGTERM: zkelectd exits 0" [ "$rc" = 0 ]
check "SIGTERM: its command got SIGTERM, and its service (sh's child, 150 ms to stop) the time to end (end stamped); it is gone" \
    eval 'grep -q "^p2 end " "$SVC2" && "$SERVICE" --wait-dead "$sp" 1000 > /dev/null'
check "SIGTERM: the command did not need SIGKILL" \
    eval 'grep -q "stopping the leader command (pid [0-9]*): SIGTERM to its process group, SIGKILL after 350 ms" "$T/p2.log" &&
          ! grep -q "did not exit within" "$T/p2.log"'

finish
