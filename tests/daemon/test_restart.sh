#!/bin/bash
# test_restart.sh - issue 14, scenario 1 in its second form: the hooks start
# and stop a service zkelectd does not own (detached with setsid), the
# leader's zkelectd is killed with SIGKILL and restarted at once with the
# same configuration (what systemd's Restart=always does). Then:
#   - the old service is stopped (the restarted zkelectd runs the stepdown
#     hook from its state file) before the next leader's takeover starts:
#     0 ms of overlap, from the hooks' own CLOCK_MONOTONIC stamps;
#   - a new leader is READY well before the session timeout T: the
#     restarted zkelectd closed its old session, whose znodes went at once.
# And bad state files: a clear message naming the file, and the stepdown
# hook still runs when the file says active=1.
#
# ZKD_TEST_NO_STATE_DIR=1 leaves [node] state_dir out of the configurations:
# to run this against a zkelectd that has no state file (it then fails).
# ZKD_TEST_KEEP=1 keeps the work directory.
set -u

NAME=test_restart
TOP_BUILDDIR=${ZKELECT_TOP_BUILDDIR:-$(pwd)}
TOP_SRCDIR=${ZKELECT_TOP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
ZKELECTD=${ZKD_TEST_ZKELECTD:-$TOP_BUILDDIR/src/daemon/zkelectd}
ZKLOCAL=$TOP_BUILDDIR/tests/harness/zk-local
MONO=${ZKD_TEST_MONO:-$TOP_BUILDDIR/tests/harness/zke-mono}
SETCONFIG=$TOP_BUILDDIR/tests/daemon/zkd-setconfig
export ZKELECT_POLICY_PATH=${ZKELECT_POLICY_PATH:-$TOP_BUILDDIR/policies/.libs}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$TOP_SRCDIR/tests/lsan.supp:print_suppressions=0}

SESSION_MS=6000                         # T: long, so that "well before T" shows
TEST_DEADLINE_S=180
GROUP=/zkdrestart

passed=0
failed=0
zk_pid=
guard_pid=
declare -A pid port

T=$(mktemp -d "${TMPDIR:-/tmp}/zkd-restart.XXXXXX") || exit 99
. "$TOP_SRCDIR/tests/lib.sh"   # now_ms, ok, nok, check, wait_until, pick_port, finish

log() { echo "$NAME: $*"; }

http() {
    curl -s -o /dev/null -w '%{http_code}' --max-time 2 \
        "http://127.0.0.1:${port[$1]}$2" 2>/dev/null || true
}

alive() { [ -n "${pid[$1]:-}" ] && kill -0 "${pid[$1]}" 2>/dev/null; }

# gone, or a zombie (the detached services are not our children)
gone() {
    ! kill -0 "$1" 2>/dev/null ||
        [ "$(sed -n 's/^[0-9]* ([^)]*) \(.\).*/\1/p' "/proc/$1/stat" 2>/dev/null)" = Z ]
}

cleanup() {
    local n p
    trap - EXIT INT TERM HUP
    for n in "${!pid[@]}"; do kill -TERM "${pid[$n]}" 2>/dev/null; done
    for n in "${!pid[@]}"; do
        wait_until 15000 gone "${pid[$n]}" || kill -KILL "${pid[$n]}" 2>/dev/null
    done
    for p in "$T"/svc.*.pid; do
        [ -f "$p" ] && kill -KILL "$(cat "$p")" 2>/dev/null
    done
    [ -n "$zk_pid" ] && kill -TERM "$zk_pid" 2>/dev/null && wait "$zk_pid" 2>/dev/null
    [ -n "$guard_pid" ] && kill "$guard_pid" 2>/dev/null
    if [ "${ZKD_TEST_KEEP:-0}" = 1 ] || [ "$failed" -gt 0 ]; then
        for p in "$T"/*.log "$T/svc"; do
            [ -f "$p" ] || continue
            echo "---- $p (last 40 lines)"
            tail -n 40 "$p"
        done
    fi
    [ "${ZKD_TEST_KEEP:-0}" = 1 ] && echo "$NAME: kept $T" || rm -rf "$T"
}
trap 'cleanup' EXIT
trap 'nok "interrupted"; finish' INT TERM HUP
deadline_guard

for f in "$ZKELECTD" "$ZKLOCAL" "$MONO" "$SETCONFIG"; do
    [ -x "$f" ] || { nok "$f is not built"; finish; }
done
command -v curl >/dev/null || { nok "curl is not installed"; finish; }
command -v setsid >/dev/null || { nok "setsid is not installed"; finish; }

# ---------------------------------------------------------------------------
# Hooks: a detached service, stamped by the hooks themselves
# ---------------------------------------------------------------------------
SVC=$T/svc                               # "NODE start|end MONO EPOCH ..."
export SVC MONO T
: > "$SVC"
: > "$T/stepdowns"

cat > "$T/service.sh" <<'EOF'
#!/bin/sh
# the service: runs until killed (SIGTERM ends it at once)
exec sleep 1000000
EOF
# takeover: stamp, then start the service in its own session (zkelectd does
# not own it: a SIGKILL of zkelectd leaves it running)
cat > "$T/takeover.sh" <<'EOF'
#!/bin/sh
echo "$ZKELECT_NODE_ID start $("$MONO") $ZKELECT_EPOCH" >> "$SVC"
setsid "$T/service.sh" < /dev/null > /dev/null 2>&1 &
echo $! > "$T/svc.$ZKELECT_NODE_ID.pid"
EOF
# stepdown: stop the service, wait until it is gone, then stamp
cat > "$T/stepdown.sh" <<'EOF'
#!/bin/sh
echo "stepdown $ZKELECT_NODE_ID epoch=$ZKELECT_EPOCH event=$ZKELECT_EVENT reason=$ZKELECT_REASON" >> "$T/stepdowns"
f="$T/svc.$ZKELECT_NODE_ID.pid"
[ -f "$f" ] || exit 0
p=$(cat "$f")
kill -TERM "$p" 2>/dev/null
i=0
while kill -0 "$p" 2>/dev/null &&
    [ "$(sed -n 's/^[0-9]* ([^)]*) \(.\).*/\1/p' "/proc/$p/stat" 2>/dev/null)" != Z ]; do
    i=$((i + 1))
    [ $i -gt 100 ] && kill -KILL "$p" 2>/dev/null
    sleep 0.02
done
rm -f "$f"
echo "$ZKELECT_NODE_ID end $("$MONO") $ZKELECT_EPOCH $ZKELECT_EVENT" >> "$SVC"
EOF
chmod +x "$T"/*.sh

# write_config NODE PRIORITY [GROUP]
write_config() {
    cat > "$T/$1.ini" <<EOF
[zookeeper]
hosts = $HOSTS
session_timeout_ms = $SESSION_MS
connect_timeout_ms = 15000
[cluster]
path = ${3:-$GROUP}
[node]
id = $1
site = dc1
priority = $2
$([ "${ZKD_TEST_NO_STATE_DIR:-0}" = 1 ] || echo "state_dir = $T/state")
[election]
policy = site
watchdog_ms = 3000
exclude_ms = 1000
[policy]
preempt = off
[hooks]
takeover = $T/takeover.sh
stepdown = $T/stepdown.sh
timeout_ms = 5000
[http]
listen = ${port[$1]}
[log]
level = debug
events = $T/$1.events
EOF
}

start_node() {
    "$ZKELECTD" -f -c "$T/$1.ini" >> "$T/$1.log" 2>&1 &
    pid[$1]=$!
}

answers() { [ "$(http "$1" /health)" != 000 ]; }
leads() { [ "$(http "$1" /leader)" = 200 ]; }

# mono_ms of the first +ready of node in its event log after ms
ready_after() {
    sed -n 's/^{"mono_ms":\([0-9]*\),"node":"[^"]*","event":"+ready".*/\1/p' \
        "$T/$1.events" 2>/dev/null | awk -v t="$2" '$1 > t { print; exit }'
}

# ---------------------------------------------------------------------------
# ZooKeeper
# ---------------------------------------------------------------------------
"$ZKLOCAL" --no-stdin --hosts-file "$T/hosts" > "$T/zk.log" 2>&1 &
zk_pid=$!
if ! wait_until 60000 test -s "$T/hosts"; then
    nok "ZooKeeper did not start"
    finish
fi
HOSTS=$(cat "$T/hosts")
mkdir -m 0700 -p "$T/state"
# the site policy elects only in configured sites
if ! "$SETCONFIG" "$HOSTS" "$GROUP" dc1=100 > "$T/setconfig.log" 2>&1; then
    nok "cannot write the group's config znode: $(cat "$T/setconfig.log")"
    finish
fi

# ---------------------------------------------------------------------------
# 1. kill -9 of the leader's zkelectd, restarted at once
# ---------------------------------------------------------------------------
log "kill -9 of the leader, restarted at once (T = $SESSION_MS ms)"
# n1 starts first and leads; n2 (the best) and n3 join; preempt off keeps n1
for n in n1 n2 n3; do pick_port "port[$n]"; done
# the HTTP ports are below the ephemeral range, where no outgoing connection
# of a test running beside this one can take them before zkelectd binds
# (where pick_port can pick below it: ephemeral_floor)
eph_lo=$(ephemeral_floor)
if [ -n "$eph_lo" ]; then
    check "the daemons' ports are below the ephemeral range ($eph_lo)" \
        test "${port[n1]}" -lt "$eph_lo" -a "${port[n2]}" -lt "$eph_lo" -a "${port[n3]}" -lt "$eph_lo"
else
    log "the ephemeral range starts at or below 11024: ports picked inside it"
fi
write_config n1 10
write_config n2 30
write_config n3 20
start_node n1
check "n1 leads" wait_until 20000 leads n1
start_node n2
start_node n3
check "n2 and n3 joined" wait_until 20000 eval 'answers n2 && answers n3'
check "n1 still leads (preempt off)" leads n1
check "n1's service runs" grep -q "^n1 start " "$SVC"
if [ "${ZKD_TEST_NO_STATE_DIR:-0}" != 1 ]; then
    check "n1's state file says active=1, with the session" \
        eval 'grep -qx "active=1" "$T/state/n1.state" &&
              grep -q "^session=[0-9a-f]\{9,\}$" "$T/state/n1.state" &&
              [ "$(stat -c %a "$T/state/n1.state")" = 600 ]'
fi
svc1=$(cat "$T/svc.n1.pid" 2>/dev/null)

kill_ms=$("$MONO")
kill -KILL "${pid[n1]}"
wait "${pid[n1]}" 2>/dev/null
start_node n1                           # at once, same configuration

# a new leader (n2, the best) READY
check "a new leader (n2) is READY" wait_until $((SESSION_MS * 3)) leads n2
ready=$(ready_after n2 "${kill_ms%.*}")
if [ -n "$ready" ]; then
    took=$((ready - ${kill_ms%.*}))
    log "n2 READY $took ms after the kill -9 (T = $SESSION_MS ms)"
    check "the new leader is READY well before T ($took ms < $((SESSION_MS / 2)) ms)" \
        [ "$took" -lt $((SESSION_MS / 2)) ]
else
    nok "no +ready of n2 after the kill"
fi
check "n1's old service is stopped" eval '[ -n "$svc1" ] && wait_until 10000 gone "$svc1"'
check "the restarted n1 ran the stepdown hook with event -restart, reason restart" \
    wait_until 10000 grep -q "^stepdown n1 epoch=[1-9][0-9]* event=-restart reason=restart$" \
    "$T/stepdowns"
check "the restarted n1 closed its old session" \
    grep -q "previous session 0x[0-9a-f]* closed" "$T/n1.log"

# the service level: n1's interval ended before n2's began
n1_end=$(awk '$1 == "n1" && $2 == "end" { print $3; exit }' "$SVC")
n2_start=$(awk '$1 == "n2" && $2 == "start" { print $3; exit }' "$SVC")
log "service stamps: n1 end ${n1_end:-never}, n2 start ${n2_start:-never}"
if [ -n "$n1_end" ] && [ -n "$n2_start" ]; then
    gap=$(awk -v a="$n1_end" -v b="$n2_start" 'BEGIN { printf "%.3f", b - a }')
    log "gap between n1's end and n2's start: $gap ms"
    check "0 ms overlap: n1's service ended before n2's started" \
        awk -v a="$n1_end" -v b="$n2_start" 'BEGIN { exit !(a < b) }'
else
    nok "0 ms overlap: n1's service never ended (or n2's never started)"
fi
check "the restarted n1 joined again (it answers, it does not lead)" \
    wait_until 20000 eval 'answers n1 && ! leads n1'
[ "${ZKD_TEST_NO_STATE_DIR:-0}" = 1 ] ||
    check "n1's state file says active=0 now" grep -qx "active=0" "$T/state/n1.state"
for n in n1 n2 n3; do
    kill -TERM "${pid[$n]}" 2>/dev/null
done
for n in n1 n2 n3; do
    wait_until 20000 gone "${pid[$n]}"
    wait "${pid[$n]}" 2>/dev/null
    unset "pid[$n]"
done

if [ "${ZKD_TEST_NO_STATE_DIR:-0}" = 1 ]; then
    finish
fi

# ---------------------------------------------------------------------------
# 2. bad state files: a message naming the file; the stepdown hook still runs
#    when the file says active=1 (or cannot say it did not)
# ---------------------------------------------------------------------------
log "bad state files"
pick_port "port[b1]"
write_config b1 10 /zkdbadstate
good_state() {
    printf 'version=1\nnode=%s\ngroup=/zkdbadstate\nsession=1234\npasswd=%s\ntimeout_ms=6000\nactive=1\nepoch=%s\n' \
        "$1" 00112233445566778899aabbccddeeff "$2"
}
# bad_case NAME EXPECTED-MESSAGE EXPECTED-EPOCH: the file is in place
bad_case() {
    : > "$T/stepdowns"
    : > "$T/b1.log"
    start_node b1
    check "$1: the message names the file and the problem" \
        wait_until 20000 grep -qF "state file refused: $T/state/b1.state: $2" "$T/b1.log"
    check "$1: the stepdown hook ran (-restart, epoch $3)" \
        wait_until 20000 grep -qx "stepdown b1 epoch=$3 event=-restart reason=restart" \
        "$T/stepdowns"
    check "$1: the old session is not reused" \
        eval '! grep -q "previous session" "$T/b1.log"'
    check "$1: zkelectd runs on and joins" wait_until 20000 answers b1
    check "$1: the file is replaced by a good one, mode 0600" \
        eval '[ ! -L "$T/state/b1.state" ] && grep -qx "node=b1" "$T/state/b1.state" &&
              [ "$(stat -c %a "$T/state/b1.state")" = 600 ]'
    kill -TERM "${pid[b1]}"
    wait_until 20000 gone "${pid[b1]}"
    wait "${pid[b1]}" 2>/dev/null
    unset "pid[b1]"
    rm -f "$T/state/b1.state"
}

good_state b1 7 > "$T/state/b1.state"
chmod 0644 "$T/state/b1.state"
bad_case "mode 0644" "mode 0644: must be 0600" 7

good_state n9 8 > "$T/state/b1.state"
chmod 0600 "$T/state/b1.state"
bad_case "another node's file" "written for node 'n9', but this node is 'b1'" 8

good_state b1 9 | head -c -1 > "$T/state/b1.state"
chmod 0600 "$T/state/b1.state"
bad_case "truncated" "line 8: no newline at the end: the file is truncated" 9

printf 'garbage\0\001\002' > "$T/state/b1.state"
chmod 0600 "$T/state/b1.state"
bad_case "garbage (cannot say)" "not a text file" 0

good_state b1 11 > "$T/elsewhere"
chmod 0600 "$T/elsewhere"
ln -s "$T/elsewhere" "$T/state/b1.state"
bad_case "symbolic link" "is a symbolic link: refused (not followed)" 0

# a good file with active=0 and a session ZooKeeper does not know: no hook,
# "already expired"
good_state b1 12 | sed 's/^active=1$/active=0/' > "$T/state/b1.state"
chmod 0600 "$T/state/b1.state"
: > "$T/stepdowns"
: > "$T/b1.log"
start_node b1
check "unknown session: refused by ZooKeeper, logged" \
    wait_until 20000 grep -q "previous session 0x1234 already expired" "$T/b1.log"
check "active=0: no stepdown hook" eval '! grep -q . "$T/stepdowns"'
kill -TERM "${pid[b1]}"
wait_until 20000 gone "${pid[b1]}"
unset "pid[b1]"

# -n checks state_dir
mkdir -p "$T/open"
chmod 0777 "$T/open"
sed "s|^state_dir = .*|state_dir = $T/open|" "$T/b1.ini" > "$T/open.ini"
"$ZKELECTD" -n -c "$T/open.ini" > /dev/null 2> "$T/err"
check "-n refuses a world-writable state_dir, naming the key" \
    grep -qF "$T/open.ini: [node] state_dir: $T/open: mode 0777: writable by group or others" \
    "$T/err"
sed "s|^state_dir = .*|state_dir = $T/new|" "$T/b1.ini" > "$T/new.ini"
check "-n accepts a state_dir it can create" \
    eval '"$ZKELECTD" -n -c "$T/new.ini" | grep -qx "configuration OK"'

finish
