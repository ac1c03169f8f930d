#!/bin/bash
# test_daemon.sh - zkelectd end to end: three real daemons (-f, one of them
# daemonized) on a ZooKeeper started by zk-local, checked with curl on their
# HTTP endpoints, their event logs ([log] events) and a file the hooks append
# to. The hooks also stamp the service's start (takeover hook) and end
# (stepdown hook) with their own CLOCK_MONOTONIC clock (zke-mono) into
# service.log; at the end zke-service-check requires that no two nodes'
# services were ever active at once (issue 14).
# Prints "test_daemon: N passed, N failed" last; exits 1 on any failure.
#
# Run by `make check` (ZKELECT_TOP_BUILDDIR set), or by hand from a build
# directory: tests/daemon/test_daemon. ZKD_TEST_KEEP=1 keeps the work dir.
set -u

NAME=test_daemon
TOP_BUILDDIR=${ZKELECT_TOP_BUILDDIR:-$(pwd)}
TOP_SRCDIR=${ZKELECT_TOP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
ZKELECTD=$TOP_BUILDDIR/src/daemon/zkelectd
ZKLOCAL=$TOP_BUILDDIR/tests/harness/zk-local
SETCONFIG=$TOP_BUILDDIR/tests/daemon/zkd-setconfig
MONO=$TOP_BUILDDIR/tests/harness/zke-mono
SVCCHECK=$TOP_BUILDDIR/tests/harness/zke-service-check
export ZKELECT_POLICY_PATH=${ZKELECT_POLICY_PATH:-$TOP_BUILDDIR/policies/.libs}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$TOP_SRCDIR/tests/lsan.supp:print_suppressions=0}

SESSION_MS=2000                         # [zookeeper] session_timeout_ms
WATCHDOG_MS=2000                        # [election] watchdog_ms
SLACK_MS=5000                           # for a loaded box and the sanitizers
PAUSE_BOUND_MS=1000                     # a SIGCONTed leader stops its service within this
TEST_DEADLINE_S=240                     # the whole file, whatever happens
GROUP=/zkdtest

passed=0
failed=0
zk_pid=
guard_pid=
declare -A pid port                     # node -> daemon pid / HTTP port
declare -A quiet                        # node -> 1: no notify hook, no event log

T=$(mktemp -d "${TMPDIR:-/tmp}/zkd-test.XXXXXX") || exit 99

# ---------------------------------------------------------------------------
# Plumbing
# ---------------------------------------------------------------------------

. "$TOP_SRCDIR/tests/lib.sh"   # now_ms, ok, nok, check, wait_until, pick_port, finish

log() { echo "$NAME: $*"; }

# HTTP status of GET (or METHOD) on node's PATH; 000 when nothing answers.
http() {
    local node=$1 path=$2 method=${3:-GET}
    curl -s -o /dev/null -w '%{http_code}' --max-time 2 -X "$method" \
        "http://127.0.0.1:${port[$node]}$path" 2>/dev/null || true
}

body() { curl -s --max-time 2 "http://127.0.0.1:${port[$1]}$2" 2>/dev/null; }

is_code() { [ "$(http "$1" "$2")" = "$3" ]; }

alive() { [ -n "${pid[$1]:-}" ] && kill -0 "${pid[$1]}" 2>/dev/null; }

# Gone, or a zombie nobody reaped yet (a daemonized node is not our child).
dead_pid() {
    ! kill -0 "$1" 2>/dev/null ||
        [ "$(sed -n 's/^[0-9]* ([^)]*) \(.\).*/\1/p' "/proc/$1/stat" 2>/dev/null)" = Z ]
}

# The nodes whose /leader answers 200, sorted, space-separated.
leaders() {
    local n out=
    for n in $(printf '%s\n' "${!port[@]}" | sort); do
        [ "$(http "$n" /leader)" = 200 ] && out="$out $n"
    done
    echo "${out# }"
}

only_leader() { [ "$(leaders)" = "$1" ]; }

cleanup() {
    local n p end
    trap - EXIT INT TERM HUP
    for n in "${!pid[@]}"; do
        kill -TERM "${pid[$n]}" 2>/dev/null
    done
    for p in "$T"/*.pid; do
        [ -f "$p" ] && kill -TERM "$(cat "$p")" 2>/dev/null
    done
    end=$(( $(now_ms) + 15000 ))
    for n in "${!pid[@]}"; do
        while kill -0 "${pid[$n]}" 2>/dev/null && [ "$(now_ms)" -lt "$end" ]; do
            sleep 0.05
        done
        kill -KILL "${pid[$n]}" 2>/dev/null
    done
    for p in "$T"/*.pid; do
        [ -f "$p" ] && kill -KILL "$(cat "$p")" 2>/dev/null
    done
    [ -n "$zk_pid" ] && kill -TERM "$zk_pid" 2>/dev/null && wait "$zk_pid" 2>/dev/null
    [ -n "$guard_pid" ] && kill "$guard_pid" 2>/dev/null
    if [ "${ZKD_TEST_KEEP:-0}" = 1 ] || [ "$failed" -gt 0 ]; then
        # show what the daemons said, for the test log
        for p in "$T"/*.log; do
            [ -f "$p" ] || continue
            echo "---- $p (last 60 lines)"
            tail -n 60 "$p"
        done
        [ "${ZKD_TEST_KEEP:-0}" = 1 ] && echo "$NAME: kept $T"
    fi
    [ "${ZKD_TEST_KEEP:-0}" = 1 ] || rm -rf "$T"
}

trap 'cleanup' EXIT
trap 'nok "interrupted"; finish' INT TERM HUP

# the whole test never runs longer than TEST_DEADLINE_S (tests/lib.sh)
deadline_guard

for f in "$ZKELECTD" "$ZKLOCAL" "$SETCONFIG" "$MONO" "$SVCCHECK"; do
    if [ ! -x "$f" ]; then
        nok "$f is not built"
        finish
    fi
done
command -v curl >/dev/null || { nok "curl is not installed"; finish; }

# ---------------------------------------------------------------------------
# Hooks and configurations
# ---------------------------------------------------------------------------

ORDER=$T/order                          # hooks append one line per run
SVC_LOG=$T/service.log                  # "NODE start|end MONO EPOCH" (zke-service-check)
export ORDER SVC_LOG MONO
: > "$ORDER"
: > "$SVC_LOG"
FROZEN=()                               # --frozen NODE:FROM-TO of every SIGSTOP

# service_end NODE: a node killed with -9 stands for a dead machine here: its
# service died with it (an end with no service active is nothing).
service_end() { echo "$1 end $("$MONO") -" >> "$SVC_LOG"; }

cat > "$T/takeover.sh" <<'EOF'
#!/bin/sh
echo "$ZKELECT_NODE_ID start $("$MONO") ${ZKELECT_EPOCH:--}" >> "$SVC_LOG"
echo "takeover $ZKELECT_NODE_ID $ZKELECT_EPOCH event=$ZKELECT_EVENT prev=$ZKELECT_PREVIOUS prev_host=$ZKELECT_PREVIOUS_HOST" >> "$ORDER"
EOF
cat > "$T/takeover-fail.sh" <<'EOF'
#!/bin/sh
echo "$ZKELECT_NODE_ID start $("$MONO") ${ZKELECT_EPOCH:--}" >> "$SVC_LOG"
echo "takeover-attempt $ZKELECT_NODE_ID $ZKELECT_EPOCH" >> "$ORDER"
echo "first line of noise" >&2
echo "simulated takeover failure on $ZKELECT_NODE_ID" >&2
exit 3
EOF
# The stepdown hook records what a peer sees while it runs: the leader znode
# of this node must still be there (the library deletes it after the hook).
cat > "$T/stepdown.sh" <<'EOF'
#!/bin/sh
seen=
if [ -n "${PEER_STATUS_URL:-}" ]; then
    seen=$(curl -s --max-time 2 "$PEER_STATUS_URL" |
        grep -o '"leader":{"id":"[^"]*","status":"[A-Z]*"')
fi
echo "stepdown $ZKELECT_NODE_ID $ZKELECT_EPOCH event=$ZKELECT_EVENT reason=$ZKELECT_REASON peer_saw=$seen" >> "$ORDER"
echo "$ZKELECT_NODE_ID end $("$MONO") ${ZKELECT_EPOCH:--}" >> "$SVC_LOG"
EOF
# Hangs; its background child must die with it when the hook is ended.
cat > "$T/takeover-hang.sh" <<'EOF'
#!/bin/sh
echo "$ZKELECT_NODE_ID start $("$MONO") ${ZKELECT_EPOCH:--}" >> "$SVC_LOG"
echo "takeover-attempt $ZKELECT_NODE_ID $ZKELECT_EPOCH" >> "$ORDER"
sleep 60 &
echo $! > "$ORDER.hang-child"
wait
EOF
cat > "$T/notify.sh" <<'EOF'
#!/bin/sh
echo "notify $ZKELECT_NODE_ID $ZKELECT_EVENT leader=$ZKELECT_LEADER epoch=$ZKELECT_EPOCH" >> "$ORDER.notify"
EOF
chmod +x "$T"/*.sh

# write_config NODE PRIORITY [TAKEOVER_HOOK] [TAGS]
write_config() {
    cat > "$T/$1.ini" <<EOF
[zookeeper]
hosts = ${HOSTS:-127.0.0.1:1}
session_timeout_ms = $SESSION_MS
connect_timeout_ms = 15000
[cluster]
path = $GROUP
[node]
id = $1
site = dc1
priority = $2
tags = ${4:-t1}
state_dir = $T
[election]
policy = site
watchdog_ms = $WATCHDOG_MS
exclude_ms = 60000
[policy]
preempt = on
[hooks]
takeover = ${3:-$T/takeover.sh}
stepdown = $T/stepdown.sh
${quiet[$1]:+; }notify = $T/notify.sh
timeout_ms = 5000
[health]
command = test ! -e $T/unhealthy.$1
interval_ms = 200
failures = 2
[http]
listen = ${port[$1]}
[log]
level = debug
${quiet[$1]:+; }events = $T/$1.events
EOF
}

# start_node NODE PRIORITY [TAKEOVER_HOOK]: start zkelectd -f; wait until its
# HTTP server answers. A port taken meanwhile is replaced (up to 5 times).
start_node() {
    local n=$1 try
    for try in 1 2 3 4 5; do
        [ -n "${port[$n]:-}" ] || pick_port "port[$n]"
        write_config "$n" "$2" "${3:-}"
        PEER_STATUS_URL=${peer_url[$n]:-} "$ZKELECTD" -f -c "$T/$n.ini" >> "$T/$n.log" 2>&1 &
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

# exit status of a foreground daemon after SIGTERM (or 124 if it hangs)
stop_node() {
    local n=$1 p=${pid[$1]}
    kill -TERM "$p" 2>/dev/null
    if ! wait_until 20000 dead_pid "$p"; then
        kill -KILL "$p" 2>/dev/null
        wait "$p" 2>/dev/null
        unset "pid[$n]"
        return 124
    fi
    wait "$p"
    local rc=$?
    unset "pid[$n]"
    return $rc
}

# mono_ms of the first event-log line of FILE with event EV (and TEXT).
event_ms() {
    grep -F "\"event\":\"$2\"" "$1" 2>/dev/null | grep -F -- "${3:-}" | head -n 1 |
        sed -n 's/^{"mono_ms":\([0-9]*\),.*/\1/p'
}

has_event() { [ -n "$(event_ms "$@")" ]; }

# line number of the first line of FILE matching the fixed string S (or 0)
line_of() { grep -n -F -- "$2" "$1" 2>/dev/null | head -n 1 | cut -d: -f1 | grep . || echo 0; }

declare -A peer_url

# ---------------------------------------------------------------------------
# 1. Options and configuration check (no ZooKeeper needed)
# ---------------------------------------------------------------------------
log "options and -n"
pick_port "port[cfg]"
write_config cfg 1

"$ZKELECTD" -x > "$T/out" 2> "$T/err"
rc=$?
check "unknown option: exit 2" [ "$rc" = 2 ]
check "unknown option: usage on stderr" grep -q "^usage: zkelectd" "$T/err"
"$ZKELECTD" -c > /dev/null 2> "$T/err"
rc=$?
check "-c without its argument: exit 2" [ "$rc" = 2 ]
"$ZKELECTD" -f -c "$T/cfg.ini" surplus > /dev/null 2> "$T/err"
rc=$?
check "an extra operand: exit 2 and usage" \
    eval '[ "$rc" = 2 ] && grep -q "^usage:" "$T/err"'
"$ZKELECTD" -h > "$T/out" 2>&1
rc=$?
check "-h: exit 0 and the usage" eval '[ "$rc" = 0 ] && grep -q "^usage: zkelectd" "$T/out"'
"$ZKELECTD" -V > "$T/out" 2>&1
rc=$?
check "-V: exit 0 and the version" eval '[ "$rc" = 0 ] && grep -q "^zkelectd [0-9]" "$T/out"'

"$ZKELECTD" -n -c "$T/cfg.ini" > "$T/out" 2>&1
rc=$?
check "-n on a good configuration: 'configuration OK', exit 0" \
    eval '[ "$rc" = 0 ] && grep -qx "configuration OK" "$T/out"'

sed 's/^priority = 1$/priority = high/' "$T/cfg.ini" > "$T/broken.ini"
"$ZKELECTD" -n -c "$T/broken.ini" > "$T/out" 2> "$T/err"
rc=$?
check "-n on a broken configuration: exit 1" [ "$rc" = 1 ]
check "-n names the file, the section and the key" \
    grep -qF "$T/broken.ini: [node] priority: not an integer" "$T/err"

sed "s|^takeover = .*|takeover = $T/no-such-hook|" "$T/cfg.ini" > "$T/nohook.ini"
"$ZKELECTD" -n -c "$T/nohook.ini" > /dev/null 2> "$T/err"
rc=$?
check "-n: a missing hook is an error naming [hooks] takeover" \
    eval '[ "$rc" = 1 ] && grep -qF "$T/nohook.ini: [hooks] takeover: $T/no-such-hook" "$T/err"'

# [log] events must be a file the daemon can append to: -n checks it with
# the function the start opens it with, and names the file and the key.
mkdir -p "$T/events-dir"
sed "s|^events = .*|events = $T/events-dir|" "$T/cfg.ini" > "$T/evdir.ini"
"$ZKELECTD" -n -c "$T/evdir.ini" > "$T/out" 2> "$T/err"
rc=$?
check "-n: an event log that is a directory: exit 1, no 'configuration OK'" \
    eval '[ "$rc" = 1 ] && ! grep -q "configuration OK" "$T/out"'
check "-n: ... names the file, [log] events and the reason" \
    grep -qF "$T/evdir.ini: [log] events: $T/events-dir: cannot open for appending: Is a directory" "$T/err"
mkfifo "$T/events-fifo"
sed "s|^events = .*|events = $T/events-fifo|" "$T/cfg.ini" > "$T/evfifo.ini"
"$ZKELECTD" -n -c "$T/evfifo.ini" > "$T/out" 2> "$T/err"
rc=$?
check "-n: an event log that is a FIFO (not a regular file): exit 1, named" \
    eval '[ "$rc" = 1 ] && grep -qF "$T/evfifo.ini: [log] events: $T/events-fifo:" "$T/err"'
sed "s|^events = .*|events = $T/events-new|" "$T/cfg.ini" > "$T/evnew.ini"
"$ZKELECTD" -n -c "$T/evnew.ini" > "$T/out" 2>&1
rc=$?
check "-n: an event log still to be created is fine, and -n leaves no file" \
    eval '[ "$rc" = 0 ] && grep -qx "configuration OK" "$T/out" && [ ! -e "$T/events-new" ]'

# No ZooKeeper there: the daemonized start fails, and the parent says so.
pick_port nozk_port
sed -e 's/^connect_timeout_ms = .*/connect_timeout_ms = 500/' \
    -e "s/^hosts = .*/hosts = 127.0.0.1:$nozk_port/" "$T/cfg.ini" > "$T/nozk.ini"
"$ZKELECTD" -c "$T/nozk.ini" 2> "$T/nozk.log"
rc=$?
check "no ZooKeeper: the daemonizing parent exits 1" [ "$rc" = 1 ]
check "no ZooKeeper: the reason is logged" grep -q "cannot open a ZooKeeper session" "$T/nozk.log"
check "no ZooKeeper: the log says that every server refused the connection" \
    grep -qF "connection refused by every server (127.0.0.1:$nozk_port: Connection refused)" "$T/nozk.log"
unset "port[cfg]"

# ---------------------------------------------------------------------------
# 2. ZooKeeper, and three nodes
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
"$SETCONFIG" "$HOSTS" "$GROUP" dc1=100 > "$T/setconfig.log" 2>&1
rc=$?
check "the group's config (site dc1 = 100) is written" [ "$rc" = 0 ]

pick_port "port[n1]"
pick_port "port[n2]"
pick_port "port[n3]"
peer_url[n1]="http://127.0.0.1:${port[n2]}/status"

check "n1 (priority 30) starts" start_node n1 30
check "n1 becomes the READY leader" wait_until 20000 is_code n1 /leader 200
check "n2 (priority 20) starts" start_node n2 20

# n3 becomes a real daemon: the parent exits 0 once n3 has joined the group
write_config n3 10
"$ZKELECTD" -c "$T/n3.ini" -p "$T/n3.pid" 2>> "$T/n3.log"
rc=$?
check "n3 daemonized: the parent exits 0 after joining" [ "$rc" = 0 ]
check "n3 daemonized: its pid file names a live process" \
    eval '[ -s "$T/n3.pid" ] && kill -0 "$(cat "$T/n3.pid")"'
n3_daemon_pid=$(cat "$T/n3.pid" 2>/dev/null)

for n in n1 n2 n3; do
    check "$n: /health 200" wait_until 20000 is_code "$n" /health 200
done
# issue 18: n5 has no notify hook and no event log, so zkelectd does not
# follow the leader there (no +leader-changed subscription: the library
# watches nothing for it per leader change) and /status reads the leader on
# request. It never leads (priority 1).
quiet[n5]=1
check "n5 (priority 1, no notify hook, no event log) starts" start_node n5 1
check "n5: /health 200" wait_until 20000 is_code n5 /health 200
check "n5's configuration has no notify hook and no event log" \
    eval '! grep -q "^notify" "$T/n5.ini" && ! grep -q "^events" "$T/n5.ini"'
check "n2 follows the leader (its notify hook and event log need every change), n5 does not" \
    eval 'grep -qF "following the leader (a notify hook or an event log" "$T/n2.log" &&
          ! grep -qF "following the leader (a notify hook" "$T/n5.log"'
check "exactly one node answers /leader 200, and it is n1" only_leader n1
body n1 /leader > "$T/out"
check "/leader body names the leader and its epoch" \
    grep -qE '"id":"n1","status":"READY","epoch":[1-9]' "$T/out"
body n2 /status > "$T/out"
check "n2 /status: its own id and the leader n1 READY" \
    eval 'grep -qF "\"node\":{\"id\":\"n2\"" "$T/out" &&
          grep -qF "\"leader\":{\"id\":\"n1\",\"status\":\"READY\"" "$T/out" &&
          grep -qF "\"role\":\"candidate\"" "$T/out"'
body n1 /metrics > "$T/metrics"
missing=
for m in zkelect_is_leader zkelect_epoch zkelect_elections_total \
    zkelect_transitions_total zkelect_watchdog_firings_total \
    zkelect_session_connected zkelect_seconds_since_zookeeper_contact \
    zkelect_stalled_requests_total zkelect_stuck_total zkelect_illegal_transitions_total \
    zkelect_library_gaps_total zkelect_fences_total zkelect_fence_ms zkelect_unheard_ms \
    zkelect_no_eligible; do
    grep -q "^# HELP $m " "$T/metrics" && grep -q "^# TYPE $m " "$T/metrics" &&
        grep -qE "^$m [0-9.]+$" "$T/metrics" || missing="$missing $m"
done
check "n1 /metrics: every metric with HELP and TYPE${missing:+ (missing:$missing)}" \
    [ -z "$missing" ]
check "n1 /metrics: no stuck group, no illegal transition" \
    eval 'grep -qx "zkelect_stuck_total 0" "$T/metrics" &&
          grep -qx "zkelect_illegal_transitions_total 0" "$T/metrics"'
check "n1 /metrics: zkelect_is_leader 1, session connected" \
    eval 'grep -qx "zkelect_is_leader 1" "$T/metrics" &&
          grep -qx "zkelect_session_connected 1" "$T/metrics"'
check "n2 /metrics: zkelect_is_leader 0" eval 'body n2 /metrics | grep -qx "zkelect_is_leader 0"'
check "unknown path: 404" [ "$(http n1 /nope)" = 404 ]
check "POST: 405" [ "$(http n1 /leader POST)" = 405 ]
check "POST: the 405 names the methods (Allow: GET, HEAD)" \
    eval 'curl -s -D - -o /dev/null --max-time 2 -X POST "http://127.0.0.1:${port[n1]}/leader" |
          grep -qi "^Allow: GET, HEAD"'
check "HEAD /leader: 200 and no body" \
    eval '[ "$(curl -s -I --max-time 2 "http://127.0.0.1:${port[n1]}/leader" | head -1 | tr -d "\r")" = "HTTP/1.1 200 OK" ]'
check "a query string is ignored: /health?x=1 answers 200" [ "$(http n1 '/health?x=1')" = 200 ]
# a client that connects and sends nothing must not hold up the others
exec 7<>"/dev/tcp/127.0.0.1/${port[n1]}"
check "a silent connection does not block /health" [ "$(http n1 /health)" = 200 ]
exec 7>&-
# a request head larger than 8 KiB: 431, and the server goes on
big=$(head -c 9000 /dev/zero | tr '\0' a)
check "an oversized request head: 431" \
    [ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 -H "X-Big: $big" \
        "http://127.0.0.1:${port[n1]}/leader" 2>/dev/null)" = 431 ]
# the status line of a raw request (bounded: a server that never answers fails it)
raw_status() {
    timeout 3 bash -c 'exec 8<>"/dev/tcp/127.0.0.1/$1" && printf "%b" "$2" >&8 && head -1 <&8' \
        _ "${port[$1]}" "$2" 2>/dev/null | tr -d '\r'
}
check "garbage instead of HTTP: 400" [ "$(raw_status n1 'hello\r\n\r\n')" = "HTTP/1.1 400 Bad Request" ]
check "HTTP/1.0 GET /leader: 200" [ "$(raw_status n1 'GET /leader HTTP/1.0\r\n\r\n')" = "HTTP/1.1 200 OK" ]
check "still serving after all that" [ "$(http n1 /health)" = 200 ]
check "n1's event log: +ready of n1" has_event "$T/n1.events" +ready '"node":"n1"'
check "the takeover hook ran on n1" grep -q "^takeover n1 " "$ORDER"
check "the notify hook ran on +leader-changed" grep -q "+leader-changed" "$ORDER.notify"

# ---------------------------------------------------------------------------
# 3. SIGTERM of the leader: graceful step-down, then a new leader
# ---------------------------------------------------------------------------
log "SIGTERM of the leader n1"
stop_node n1
rc=$?
check "n1 exits 0 after SIGTERM ($rc)" [ "$rc" = 0 ]
check "n2 takes over" wait_until 15000 only_leader n2
sd=$(line_of "$ORDER" "stepdown n1 ")
to=$(line_of "$ORDER" "takeover n2 ")
check "n1's stepdown hook ran before n2's takeover hook (lines $sd < $to)" \
    eval '[ "$sd" -gt 0 ] && [ "$to" -gt "$sd" ]'
grep -F "stepdown n1 " "$ORDER" > "$T/out"
check "during n1's stepdown hook its leader znode was there (a peer saw n1 READY)" \
    grep -qF 'peer_saw="leader":{"id":"n1","status":"READY"' "$T/out"
grep "^takeover n2 " "$ORDER" > "$T/out2"
check "n2's takeover hook got ZKELECT_PREVIOUS=n1, ZKELECT_PREVIOUS_HOST=$(uname -n)" \
    grep -qF "prev=n1 prev_host=$(uname -n)" "$T/out2"
status_leader() { body "$1" /status | grep -qF "\"leader\":{\"id\":\"$2\",\"status\":\"READY\""; }
check "n5 /status (it follows nothing): the new leader n2 READY, read on request" \
    wait_until 5000 status_leader n5 n2
# (every node's /leader is polled here, which reads the leader on request:
# a node that did not follow would see these changes too)
check "the notify hook of n3 saw the change to n2" \
    wait_until 5000 grep -q "^notify n3 +leader-changed leader=n2 " "$ORDER.notify"
check "n1's stepdown hook got ZKELECT_REASON=resigning, ZKELECT_EVENT=-stepdown" \
    eval 'grep -qF "reason=resigning" "$T/out" && grep -qF "event=-stepdown" "$T/out"'
check "n1's event log: -stepdown then -registered" \
    eval '[ "$(line_of "$T/n1.events" "\"event\":\"-stepdown\"")" -gt 0 ] &&
          [ "$(line_of "$T/n1.events" "\"event\":\"-registered\"")" -gt \
            "$(line_of "$T/n1.events" "\"event\":\"-stepdown\"")" ]'

# ---------------------------------------------------------------------------
# 4. kill -9 of the leader: another node leads within the session timeout
# ---------------------------------------------------------------------------
log "kill -9 of the leader n2"
t0=$(now_ms)
kill -KILL "${pid[n2]}"
wait "${pid[n2]}" 2>/dev/null
service_end n2
unset "pid[n2]"
if wait_until $((SESSION_MS + SLACK_MS)) only_leader n3; then
    ok "n3 leads $(( $(now_ms) - t0 )) ms after kill -9 (bound $((SESSION_MS + SLACK_MS)) ms)"
else
    nok "n3 does not lead within $((SESSION_MS + SLACK_MS)) ms of kill -9 (leaders: $(leaders))"
fi
check "n5 /status: n3 READY after the kill -9 of n2" wait_until 5000 status_leader n5 n3
check "the notify hook of n3 saw the change to n3" \
    wait_until 5000 grep -q "^notify n3 +leader-changed leader=n3 " "$ORDER.notify"
check "n2 restarts" start_node n2 20
check "n2 (priority 20 > 10) takes the lead back (preempt = on)" \
    wait_until 15000 only_leader n2
check "n3 ran its stepdown hook" grep -q "^stepdown n3 " "$ORDER"
check "n5 /status: n2 READY again" wait_until 5000 status_leader n5 n2
# n5 leaves here: after the restarts it would be the elector next, and it
# writes no event log for the checks below
stop_node n5
rc=$?
check "n5 exits 0 after SIGTERM ($rc)" [ "$rc" = 0 ]
unset "port[n5]"

# ---------------------------------------------------------------------------
# 5. Restart right after kill -9: the id is still held by the old session
# ---------------------------------------------------------------------------
log "kill -9 of n3 and an immediate restart (node id still in use)"
kill -KILL "$n3_daemon_pid"
wait_until 5000 dead_pid "$n3_daemon_pid"
service_end n3
rm -f "$T/n3.pid"
# without its state file (lost, or another disk): otherwise the restart
# closes the old session first (tests/daemon/test_restart)
rm -f "$T/n3.state"
check "n3 restarts in the foreground" start_node n3 10
check "n3 logs that its id is held by another live session" \
    wait_until 5000 grep -q "held by another live ZooKeeper session" "$T/n3.log"
check "n3 joins once the old session expired" \
    wait_until $((2 * SESSION_MS + SLACK_MS)) is_code n3 /health 200
check "n2 still leads" only_leader n2

# ---------------------------------------------------------------------------
# 6. A failing health check steps the leader down
# ---------------------------------------------------------------------------
log "health check of the leader n2 fails"
touch "$T/unhealthy.n2"
check "n2 stops leading; n3 leads" wait_until 15000 only_leader n3
check "n2's event log: -stepdown" has_event "$T/n2.events" -stepdown
check "n2 /status: healthy false" eval 'body n2 /status | grep -qF "\"healthy\":false"'
check "n2 /health stays 200 (connected and registered)" is_code n2 /health 200
rm -f "$T/unhealthy.n2"
check "n2 healthy again takes the lead back" wait_until 15000 only_leader n2

# ---------------------------------------------------------------------------
# 7. SIGHUP: a new priority takes effect; a restart-only key is reported
# ---------------------------------------------------------------------------
log "SIGHUP of n3 with priority 50"
write_config n3 50 "" "t1, t2"
kill -HUP "${pid[n3]}"
check "n3 (now priority 50) takes over" wait_until 15000 only_leader n3
check "n3 logs the priority change" \
    grep -qF "reload: [node] priority: '10' -> '50'" "$T/n3.log"
check "n3 applies the new tags (library record and /status)" \
    eval 'grep -qF "reload: [node] tags:" "$T/n3.log" && body n3 /status | grep -qF "\"tags\":[\"t1\",\"t2\"]"'
check "n3 /status shows priority 50" \
    eval 'body n3 /status | grep -qF "\"priority\":50,\"eligible\":true"'
# an event log that cannot be opened refuses the whole reload: the priority
# change in the same file is not applied, the old event log stays, and the
# error names the file, the key and the reason
write_config n3 60 "" "t1, t2"
sed -i "s|^events = .*|events = $T/events-dir|" "$T/n3.ini"
ev_lines=$(wc -l < "$T/n3.events")
kill -HUP "${pid[n3]}"
check "n3 refuses a reload whose event log is a directory, with an error naming it" \
    wait_until 5000 grep -qF "reload failed: $T/n3.ini: [log] events: $T/events-dir: cannot open for appending: Is a directory; keeping the running configuration" "$T/n3.log"
kept_50() {
    body n3 /status | grep -qF '"priority":50,"eligible":true' &&
        ! grep -qF "reload: [node] priority: '50' -> '60'" "$T/n3.log"
}
check "n3 kept its running priority 50 (the new 60 was not applied)" kept_50
write_config n3 50 "" "t1, t2"
# a key that needs a restart is reported, not applied (and put back after)
sed -i 's/^site = dc1$/site = dc9/' "$T/n3.ini"
kill -HUP "${pid[n3]}"
check "n3 logs that [node] site needs a restart" \
    wait_until 5000 grep -qF "reload: [node] site changed: it takes effect only after a restart" "$T/n3.log"
check "n3 still leads (the site change was not applied)" only_leader n3
sed -i 's/^site = dc9$/site = dc1/' "$T/n3.ini"

# ---------------------------------------------------------------------------
# 8. A failing takeover hook on the preferred node
# ---------------------------------------------------------------------------
log "n1 returns with priority 100 and a failing takeover hook"
peer_url[n1]=
check "n1 starts" start_node n1 100 "$T/takeover-fail.sh"
check "n1's event log: -takeover-failed" \
    wait_until 15000 has_event "$T/n1.events" -takeover-failed
check "another node (n3) leads; n1 does not" \
    wait_until $((WATCHDOG_MS + SLACK_MS + 5000)) only_leader n3
tf=$(event_ms "$T/n1.events" -takeover-failed)
wd=
for n in n1 n2 n3; do
    w=$(event_ms "$T/$n.events" +watchdog '"subject":"n1"')
    [ -n "$w" ] && { wd=$w; break; }
done
check "the elector's event log: +watchdog for n1 after -takeover-failed ($tf < ${wd:-none})" \
    eval '[ -n "$tf" ] && [ -n "$wd" ] && [ "$wd" -ge "$tf" ]'
check "n1 logs the tail of the hook's stderr" \
    grep -q "stderr: simulated takeover failure on n1" "$T/n1.log"
check "n1 /leader 503" is_code n1 /leader 503
check "n3 still writes its old event log after the refused reload" \
    eval '[ "$(wc -l < "$T/n3.events")" -gt "$ev_lines" ]'

# ---------------------------------------------------------------------------
# 9. A hanging takeover hook is ended when the watchdog moves leadership
# ---------------------------------------------------------------------------
log "n4 (priority 200) with a takeover hook that hangs"
check "n4 starts" start_node n4 200 "$T/takeover-hang.sh"
check "n4's takeover hook runs" wait_until 15000 grep -q "^takeover-attempt n4 " "$ORDER"
check "the watchdog moves leadership back to n3" \
    wait_until $((WATCHDOG_MS + SLACK_MS + 5000)) only_leader n3
check "n4's event log: -takeover-abort" has_event "$T/n4.events" -takeover-abort
check "n4's hanging hook was ended, then its stepdown hook ran (-takeover-abort)" \
    eval 'grep -q "takeover hook (epoch [0-9]*): .* canceled after" "$T/n4.log" &&
          grep -q "^stepdown n4 [0-9]* event=-takeover-abort" "$ORDER"'
hang_child=$(cat "$ORDER.hang-child" 2>/dev/null)
check "the hook's background child died with it" \
    eval '[ -n "$hang_child" ] && wait_until 5000 dead_pid "$hang_child"'

# ---------------------------------------------------------------------------
# 10. The leader's session expires (SIGSTOP): leadership lost, hook runs
# ---------------------------------------------------------------------------
log "SIGSTOP of the leader n3 for longer than the session timeout"
stop_ms=$("$MONO")
kill -STOP "${pid[n3]}"
check "n2 leads while n3 is stopped (n1 and n4 are excluded)" \
    wait_until $((SESSION_MS + SLACK_MS)) eval '[ "$(http n2 /leader)" = 200 ]'
kill -CONT "${pid[n3]}"
FROZEN+=(--frozen "n3:$stop_ms-$("$MONO")")
# Resumed after more than fence_ms unheard, n3 steps down (-fenced) before it
# hears of the expiry; a library without the self-fence runs the hook on
# -leadership-lost.
check "n3 runs its stepdown hook for the lost leadership (-fenced or -leadership-lost)" \
    wait_until 10000 grep -Eq "^stepdown n3 [0-9]* event=-(fenced|leadership-lost)" "$ORDER"
# The hook can run before -session-expired is logged: a fencing deletion that
# reached n3's socket while it was stopped is read first (-leadership-lost),
# the expiry a few ms later.
check "n3's event log: -session-expired, -leadership-lost" \
    wait_until 10000 eval 'has_event "$T/n3.events" -session-expired &&
          has_event "$T/n3.events" -leadership-lost'
check "n3 joins again on a new session and leads (priority 50)" \
    wait_until 15000 only_leader n3

# ---------------------------------------------------------------------------
# 11. Everyone leaves gracefully
# ---------------------------------------------------------------------------
log "SIGTERM of every node"
for n in n1 n2 n3 n4; do
    stop_node "$n"
    rc=$?
    check "$n exits 0 after SIGTERM ($rc)" [ "$rc" = 0 ]
done
check "no sanitizer report in any log" \
    eval '! grep -l "Sanitizer" "$T"/*.log'

# ---------------------------------------------------------------------------
# 12. At the service: never two nodes' services active at once
# ---------------------------------------------------------------------------
"$SVCCHECK" "$SVC_LOG" --bound-ms "$PAUSE_BOUND_MS" "${FROZEN[@]}" > "$T/service.out" 2>&1
rc=$?
sed 's/^/    /' "$T/service.out"
check "service: no two nodes' services active at once, outside the SIGSTOP of n3 + $PAUSE_BOUND_MS ms ($(grep '^service: .*intervals' "$T/service.out"))" \
    [ "$rc" = 0 ]

finish
