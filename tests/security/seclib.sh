# seclib.sh - plumbing shared by the shell tests of tests/security (bash,
# sourced). The sourcing script sets NAME (and TEST_DEADLINE_S) first, then
# calls sec_init; it ends with finish.
#
# What it gives: assertions (check, ok, nok) and the summary line "NAME: N
# passed, N failed"; polling with a deadline (wait_until); a ZooKeeper from
# zk-local (start_zk); zkelectd daemons (write_config, start_node, stop_node,
# alive, leaders, one_ready_leader); the event logs (has_event, count_event);
# the foreign client (zks); cleanup of everything on every way out.
#
# Environment: ZKELECT_TOP_BUILDDIR (default: the current directory),
# ZKELECT_TOP_SRCDIR, SEC_TEST_KEEP=1 (keep the work directory).

TOP_BUILDDIR=${ZKELECT_TOP_BUILDDIR:-$(pwd)}
ZKELECTD=$TOP_BUILDDIR/src/daemon/zkelectd
ZKELECT=$TOP_BUILDDIR/src/cli/zkelect
ZKLOCAL=$TOP_BUILDDIR/tests/harness/zk-local
ZKSEC=$TOP_BUILDDIR/tests/security/zksec
SECPOLICIES=$TOP_BUILDDIR/tests/security/policies/.libs
export ZKELECT_POLICY_PATH=${ZKELECT_POLICY_PATH:-$TOP_BUILDDIR/policies/.libs}
if [ -z "${LSAN_OPTIONS:-}" ] && [ -n "${ZKELECT_TOP_SRCDIR:-}" ]; then
    export LSAN_OPTIONS="suppressions=$ZKELECT_TOP_SRCDIR/tests/lsan.supp:print_suppressions=0"
fi
# A sanitizer report must fail a test even where exit status 1 is expected.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}exitcode=99"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}exitcode=99"
unset ZKELECT_HOSTS ZKELECT_PATH ZKELECT_AUTH_FILE ZKELECT_AUTH

SESSION_MS=${SESSION_MS:-4000}          # [zookeeper] session_timeout_ms of the daemons
WATCHDOG_MS=${WATCHDOG_MS:-3000}        # [election] watchdog_ms
SETTLE_MS=${SETTLE_MS:-20000}           # deadline for the cluster to settle

passed=0
failed=0
zk_pid=
guard_pid=
HOSTS=
declare -A pid port                     # node -> daemon pid / HTTP port

. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"   # now_ms, ok, nok, check, wait_until, pick_port, finish

SEC_T0=$(now_ms)
log() { echo "$NAME: [$(( ($(now_ms) - SEC_T0) / 1000 )) s] $*"; }

note() { echo "note - $*"; }

# ---------------------------------------------------------------------------
# Start, cleanup, summary
# ---------------------------------------------------------------------------

sec_cleanup() {
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
        wait "${pid[$n]}" 2>/dev/null
    done
    if [ -n "$zk_pid" ]; then
        kill -TERM "$zk_pid" 2>/dev/null
        wait "$zk_pid" 2>/dev/null
    fi
    if [ -n "$guard_pid" ]; then
        kill -TERM "$guard_pid" 2>/dev/null
        wait "$guard_pid" 2>/dev/null
    fi
    if [ "${SEC_TEST_KEEP:-0}" = 1 ] || [ "$failed" -gt 0 ]; then
        for p in "$T"/*.log; do
            [ -f "$p" ] || continue
            echo "---- $p (last 40 lines)"
            tail -n 40 "$p"
        done
        [ "${SEC_TEST_KEEP:-0}" = 1 ] && echo "$NAME: kept $T"
    fi
    [ "${SEC_TEST_KEEP:-0}" = 1 ] || rm -rf "$T"
}

# sec_init PROGRAM...: work directory, traps, the deadline guard, and a check
# that every PROGRAM is built.
sec_init() {
    local f
    T=$(mktemp -d "${TMPDIR:-/tmp}/zksec-test.XXXXXX") || exit 99
    trap 'sec_cleanup' EXIT
    trap 'nok "interrupted (signal or the ${TEST_DEADLINE_S:-180} s deadline)"; finish' INT TERM HUP
    # the whole test never runs longer than TEST_DEADLINE_S
    (
        trap 'kill "$sp" 2>/dev/null; exit 0' TERM
        sleep "${TEST_DEADLINE_S:-180}" &
        sp=$!
        wait "$sp"
        echo "$NAME: deadline of ${TEST_DEADLINE_S:-180} s passed"
        kill -TERM $$
    ) &
    guard_pid=$!
    for f in "$@"; do
        if [ ! -x "$f" ]; then
            nok "$f is not built"
            finish
        fi
    done
    umask 077
}

# start_zk [ZK-LOCAL OPTIONS]: a standalone ZooKeeper; sets HOSTS.
start_zk() {
    "$ZKLOCAL" --no-stdin --hosts-file "$T/hosts" "$@" > "$T/zk.log" 2>&1 &
    zk_pid=$!
    if ! wait_until 90000 test -s "$T/hosts"; then
        nok "zk-local did not start: $(tail -n 5 "$T/zk.log")"
        finish
    fi
    HOSTS=$(cat "$T/hosts")
    log "ZooKeeper at $HOSTS"
}

# zks [-a AUTHFILE] COMMAND ARGS: the foreign client against HOSTS.
zks() {
    local a=()
    if [ "${1:-}" = -a ]; then
        a=(-a "$2")
        shift 2
    fi
    "$ZKSEC" "${a[@]}" "$HOSTS" "$@" 2>>"$T/zksec.err"
}

# expect_zk RESULT DESCRIPTION [-a AUTHFILE] COMMAND ARGS: the foreign
# client's result (ZOK, ZNOAUTH, ...) is RESULT.
expect_zk() {
    local want=$1 d=$2 got
    shift 2
    got=$(zks "$@")
    if [ "$got" = "$want" ]; then
        ok "$d ($got)"
    else
        nok "$d: got ${got:-nothing}, expected $want"
    fi
}

# zke ARGS: the CLI against HOSTS; output in $T/out and $T/err.
zke() {
    "$ZKELECT" -z "$HOSTS" "$@" > "$T/out" 2> "$T/err" < /dev/null
}

# ---------------------------------------------------------------------------
# Daemons
# ---------------------------------------------------------------------------

# write_config NODE GROUP SITE PRIORITY [AUTHFILE] [POLICY]
write_config() {
    cat > "$T/$1.ini" <<EOF
[zookeeper]
hosts = $HOSTS
session_timeout_ms = $SESSION_MS
connect_timeout_ms = 15000
auth_file = ${5:-}
[cluster]
path = $2
[node]
id = $1
state_dir = $T
site = $3
priority = $4
[election]
policy = ${6:-site}
watchdog_ms = $WATCHDOG_MS
exclude_ms = 10000
[hooks]
timeout_ms = 5000
[http]
listen = ${port[$1]}
[log]
level = debug
events = $T/$1.events
EOF
}

alive() { [ -n "${pid[$1]:-}" ] && kill -0 "${pid[$1]}" 2>/dev/null; }

# HTTP status of GET on node's PATH; 000 when nothing answers.
http() {
    curl -s -o /dev/null -w '%{http_code}' --max-time 2 \
        "http://127.0.0.1:${port[$1]}$2" 2>/dev/null || true
}

node_answers() { ! alive "$1" || [ "$(http "$1" /health)" != 000 ]; }

is_code() { [ "$(http "$1" "$2")" = "$3" ]; }

# start_node NODE GROUP SITE PRIORITY [AUTHFILE] [POLICY]: zkelectd -f in the
# background; waits until its HTTP server answers or it exited. A port taken
# meanwhile is replaced (up to 5 times). 0 when it runs.
start_node() {
    local n=$1 try
    for try in 1 2 3 4 5; do
        [ -n "${port[$n]:-}" ] || pick_port "port[$n]"
        write_config "$@"
        "$ZKELECTD" -f -c "$T/$n.ini" >> "$T/$n.log" 2>&1 &
        pid[$n]=$!
        wait_until 20000 node_answers "$n"
        alive "$n" && return 0
        if grep -q "cannot listen" "$T/$n.log"; then
            wait "${pid[$n]}" 2>/dev/null
            port[$n]=
            continue
        fi
        return 1
    done
    return 1
}

# exited NODE: its process has ended (reaped by wait_exit).
exited() { ! kill -0 "${pid[$1]}" 2>/dev/null; }

# wait_exit NODE TIMEOUT_MS: wait until it ends; its exit status, 124 when it
# still runs (then it is killed).
wait_exit() {
    local n=$1 p=${pid[$1]} rc
    if ! wait_until "$2" exited "$n"; then
        kill -KILL "$p" 2>/dev/null
        wait "$p" 2>/dev/null
        unset "pid[$n]"
        return 124
    fi
    wait "$p"
    rc=$?
    unset "pid[$n]"
    return $rc
}

# stop_node NODE: SIGTERM; its exit status (124 if it hangs).
stop_node() {
    kill -TERM "${pid[$1]}" 2>/dev/null
    wait_exit "$1" 20000
}

# The nodes whose /leader answers 200, sorted, space-separated.
leaders() {
    local n out=
    for n in $(printf '%s\n' "${!pid[@]}" | sort); do
        [ "$(http "$n" /leader)" = 200 ] && out="$out $n"
    done
    echo "${out# }"
}

# one_ready_leader GROUP: exactly one daemon answers /leader 200 and the
# leader znode names it READY; sets LEADER and EPOCH.
one_ready_leader() {
    local l id st ep
    l=$(leaders)
    [ -n "$l" ] && [ "${l#* }" = "$l" ] || return 1
    "$ZKELECT" -z "$HOSTS" -p "$1" leader > "$T/leader.out" 2>/dev/null < /dev/null || return 1
    read -r id st _ ep _ < "$T/leader.out"
    [ "$id" = "$l" ] && [ "$st" = READY ] || return 1
    LEADER=$id
    EPOCH=$ep
}

# no_leader GROUP: no daemon answers /leader 200 and `zkelect leader` says 3.
no_leader() {
    [ -z "$(leaders)" ] || return 1
    "$ZKELECT" -z "$HOSTS" -p "$1" leader > /dev/null 2>&1 < /dev/null
    [ $? = 3 ]
}

all_alive() {
    local n
    for n in "$@"; do
        alive "$n" || return 1
    done
}

# ---------------------------------------------------------------------------
# Event logs ([log] events): one JSON object per line
# ---------------------------------------------------------------------------

# has_event FILE EVENT [TEXT]: a line of FILE has event EVENT (and TEXT).
has_event() {
    grep -F "\"event\":\"$2\"" "$1" 2>/dev/null | grep -q -F -- "${3:-}"
}

# count_event FILE EVENT [TEXT]
count_event() {
    grep -F "\"event\":\"$2\"" "$1" 2>/dev/null | grep -c -F -- "${3:-}"
}

# any_event EVENT TEXT NODE...: some node's event log has it.
any_event() {
    local ev=$1 text=$2 n
    shift 2
    for n in "$@"; do
        has_event "$T/$n.events" "$ev" "$text" && return 0
    done
    return 1
}

# No sanitizer report in any log of the work directory.
no_sanitizer_report() {
    ! grep -l -E 'Sanitizer|runtime error:' "$T"/*.log "$T"/*.err 2>/dev/null
}
