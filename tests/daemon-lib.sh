# daemon-lib.sh - what the shell tests that run real zkelectd daemons on a
# zk-local ensemble share (bash; sourced after tests/lib.sh). Used by
# tests/dr/test_dr_ops.sh, tests/dr/test_dr.sh, tests/dr/test_dr_slots.sh and
# tests/daemon/test_service.sh.
#
# The test sets, before calling these:
#   T          its work directory          WAIT_MS   deadline for "eventually"
#   PH         the current scenario's directory (logs, service.log, exits)
#   ZKELECTD ZKLOCAL MONO SVCCHECK DREV   the programs (DREV: for kill9,
#                                          check_events and stop_all's exits)
#   declare -A pid port                    node -> daemon pid / HTTP port
#   write_config NODE                      writes $PH/NODE.ini (a function)
# and exports SVC_LOG (the service log its hooks stamp) for the daemons.
# The CLI helpers (cli, leader_ready, leader_is) use ZKELECT and T and the
# group in the environment (ZKELECT_HOSTS, ZKELECT_PATH); events and
# first_ms use DREV and PH.

alive() { [ -n "${pid[$1]:-}" ] && kill -0 "${pid[$1]}" 2>/dev/null; }

http() {
    curl -s -o /dev/null -w '%{http_code}' --max-time 2 \
        "http://127.0.0.1:${port[$1]}$2" 2>/dev/null || true
}

body() { curl -s --max-time 2 "http://127.0.0.1:${port[$1]}$2" 2>/dev/null; }

is_leader() { [ "$(http "$1" /leader)" = 200 ]; }

# The nodes whose /leader answers 200, space-separated, in name order.
leaders() {
    local n out=
    for n in $(printf '%s\n' "${!pid[@]}" | sort); do
        alive "$n" && is_leader "$n" && out="$out $n"
    done
    echo "${out# }"
}

# CLOCK_MONOTONIC ms, integer: the clock of the event logs' mono_ms.
mono() { "$DREV" now; }

# The DR tests' two sites: dc1 (n1 n2 n3) and dc2 (n4 n5); node priorities
# n1 30, n2 20, n3 10, n4 30, n5 20.
site_of() { case $1 in n1|n2|n3) echo dc1 ;; *) echo dc2 ;; esac; }
prio_of() { case $1 in n1|n4) echo 30 ;; n2|n5) echo 20 ;; *) echo 10 ;; esac; }

# hold_for MS COMMAND...: COMMAND keeps succeeding for MS (polled every
# 100 ms); 1 at its first failure. An observation window, for "nothing
# happens", not a synchronization.
hold_for() {
    local end=$(( $(now_ms) + $1 ))
    shift
    while [ "$(now_ms)" -lt "$end" ]; do
        "$@" || return 1
        sleep 0.1
    done
    "$@"
}

# mono_reached T0 MS: CLOCK_MONOTONIC (zke-mono's ms) has reached T0 + MS.
mono_reached() {
    awk -v t0="$1" -v d="$2" -v now="$("$MONO")" 'BEGIN { exit !(now >= t0 + d) }'
}

# ---------------------------------------------------------------------------
# zk-local -n N driven through a FIFO on fd 3: zk CMD prints its answer line
# ---------------------------------------------------------------------------

# zk_start N: start the ensemble, set HOSTS (and export ZKELECT_HOSTS) and
# zk_pid; 1 when it did not come up within 90 s.
zk_start() {
    mkfifo "$T/zk.ctl" || return 1
    : > "$T/zk.out"
    "$ZKLOCAL" -n "$1" --hosts-file "$T/hosts" < "$T/zk.ctl" > "$T/zk.out" 2> "$T/zk.log" &
    zk_pid=$!
    exec 3> "$T/zk.ctl"
    wait_until 90000 test -s "$T/hosts" || return 1
    HOSTS=$(cat "$T/hosts")
    export ZKELECT_HOSTS=$HOSTS
    # the answer lines start after the "serving at" line
    wait_until "$WAIT_MS" grep -q "serving at" "$T/zk.out"
}

zk_lines() { wc -l < "$T/zk.out"; }
zk() {
    local before
    before=$(zk_lines)
    echo "$*" >&3
    if ! wait_until "$WAIT_MS" eval '[ "$(zk_lines)" -gt "$before" ]'; then
        echo "error: zk-local did not answer '$*'"
        return 1
    fi
    sed -n "$((before + 1))p" "$T/zk.out"
}

# zk_stop: close the FIFO (zk-local stops its servers at its input's end).
zk_stop() {
    exec 3>&- 2>/dev/null
    if [ -n "${zk_pid:-}" ]; then
        wait_until 15000 eval '! kill -0 "$zk_pid" 2>/dev/null' || kill -TERM "$zk_pid" 2>/dev/null
        wait "$zk_pid" 2>/dev/null
        zk_pid=
    fi
}

# ---------------------------------------------------------------------------
# The CLI and the event logs
# ---------------------------------------------------------------------------

# zkelect on the current group: stdout to $T/cli.out, stderr to $T/cli.err;
# returns its exit status.
cli() { "$ZKELECT" "$@" > "$T/cli.out" 2> "$T/cli.err"; }

# The READY leader's id ("" when none is READY).
leader_ready() {
    local out
    out=$("$ZKELECT" leader 2>/dev/null) || { echo ""; return; }
    echo "${out%% *}"
}
leader_is() { [ "$(leader_ready)" = "$1" ]; }

# dr-events list over the current scenario's logs: "MS NODE EVENT SUBJECT EPOCH".
events() { "$DREV" list "$@" "$PH"/*.events; }

# The first matching event's mono_ms ("" when none): first_ms DR-EVENTS-OPTS...
first_ms() { events "$@" | awk 'NR == 1 { print $1 }'; }
has_events() { [ -n "$(first_ms "$@")" ]; }

# ---------------------------------------------------------------------------
# Daemons
# ---------------------------------------------------------------------------

# Registered: the session is connected and the node joined (/health 200).
node_registered() { alive "$1" && [ "$(http "$1" /health)" = 200 ]; }

# launch_node NODE: write its INI (a port picked if it has none) and start
# zkelectd -f in the background; no wait.
launch_node() {
    local n=$1
    [ -n "${port[$n]:-}" ] || pick_port "port[$n]"
    write_config "$n"
    "$ZKELECTD" -f -c "$PH/$n.ini" >> "$PH/$n.log" 2>&1 &
    pid[$n]=$!
}

# join_node NODE: wait until a launched NODE is registered; when its HTTP
# port was taken meanwhile, start it again on another (up to 5 times).
join_node() {
    local n=$1 try
    for try in 1 2 3 4 5; do
        wait_until "$WAIT_MS" eval '! alive "$n" || node_registered "$n"'
        node_registered "$n" && return 0
        if ! alive "$n" && grep -q "cannot listen" "$PH/$n.log"; then
            wait "${pid[$n]}" 2>/dev/null
            unset "pid[$n]"
            port[$n]=
            log "$n: its HTTP port was taken; try $((try + 1)) with another"
            launch_node "$n"
            continue
        fi
        log "$n did not join: $(tail -n 3 "$PH/$n.log")"
        return 1
    done
    return 1
}

# start_nodes NODE...: launch them all at once, then wait for each to join.
start_nodes() {
    local n rc=0
    for n in "$@"; do launch_node "$n"; done
    for n in "$@"; do join_node "$n" || rc=1; done
    return "$rc"
}

# kill9 NODE...: kill -9 all of them at once, reap them, record when each
# was gone in $PH/exits (dr-events -x) and stamp its service's end (a killed
# node stands for a dead machine: its service dies with it).
kill9() {
    local n t pids=()
    for n in "$@"; do pids+=("${pid[$n]}"); done
    kill -KILL "${pids[@]}" 2>/dev/null
    for n in "$@"; do
        wait "${pid[$n]}" 2>/dev/null
        unset "pid[$n]"
    done
    t=$("$DREV" now)
    for n in "$@"; do echo "$n $t" >> "$PH/exits"; done
    t=$("$MONO")
    for n in "$@"; do echo "$n end $t -" >> "$SVC_LOG"; done
}

# stop_all: SIGTERM every daemon (graceful: the leader runs its stepdown
# hook), wait (bounded, then SIGKILL and a failed check), record the exits
# (when the test has dr-events: DREV).
stop_all() {
    local n
    for n in "${!pid[@]}"; do kill -TERM "${pid[$n]}" 2>/dev/null; done
    for n in "${!pid[@]}"; do
        if ! wait_until "$WAIT_MS" eval '! kill -0 "${pid[$n]}" 2>/dev/null'; then
            nok "$n did not exit within $WAIT_MS ms of SIGTERM"
            kill -KILL "${pid[$n]}" 2>/dev/null
        fi
        wait "${pid[$n]}" 2>/dev/null
        [ -n "${DREV:-}" ] && echo "$n $("$DREV" now)" >> "$PH/exits"
        unset "pid[$n]"
    done
}

# kill_all_daemons: for a cleanup trap (bounded, no checks).
kill_all_daemons() {
    local n
    for n in "${!pid[@]}"; do kill -TERM "${pid[$n]}" 2>/dev/null; done
    for n in "${!pid[@]}"; do
        wait_until 15000 eval '! kill -0 "${pid[$n]}" 2>/dev/null' || kill -KILL "${pid[$n]}" 2>/dev/null
        wait "${pid[$n]}" 2>/dev/null
        unset "pid[$n]"
    done
}

# ---------------------------------------------------------------------------
# The checkers
# ---------------------------------------------------------------------------

# check_events WHAT [OPTION...]: over the scenario's event logs: never two
# READY leaders at once, +ready epochs strictly increasing (dr-events check
# with these options, e.g. -r).
check_events() {
    local out rc what=$1
    shift
    out=$("$DREV" check "$@" -x "$PH/exits" "$PH"/*.events 2>&1)
    rc=$?
    printf '%s\n' "$out" | sed 's/^/    /'
    check "$what: never two READY leaders, +ready epochs increasing" [ "$rc" = 0 ]
}

# check_service WHAT: from the hooks' own stamps in $SVC_LOG: no two nodes'
# services ever active at once (zke-service-check, 0 ms overlap).
check_service() {
    local out rc
    out=$("$SVCCHECK" "$SVC_LOG" 2>&1)
    rc=$?
    printf '%s\n' "$out" | sed 's/^/    /'
    check "$1: never two services active at once ($(printf '%s\n' "$out" | grep '^service: .*intervals'))" \
        [ "$rc" = 0 ]
}
