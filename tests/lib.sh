# lib.sh - what every shell test suite shares (bash; sourced). The suite sets
# NAME, passed=0 and failed=0, and its own log().
#
# now_ms is monotonic (/proc/uptime: time since boot, 10 ms steps), so a
# deadline never moves with the wall clock.

now_ms() {
    local up
    read -r up _ < /proc/uptime
    up=${up/./}
    echo $(( 10#$up * 10 ))
}

ok() { passed=$((passed + 1)); echo "ok - $*"; }

nok() {
    failed=$((failed + 1))
    echo "FAIL - $*"
}

# check DESCRIPTION COMMAND...: one assertion.
check() {
    local d=$1
    shift
    if "$@"; then ok "$d"; else nok "$d"; fi
}

# wait_until TIMEOUT_MS COMMAND...: poll COMMAND every 50 ms until it
# succeeds (0) or the deadline passes (1).
wait_until() {
    local end=$(( $(now_ms) + $1 ))
    shift
    while :; do
        "$@" && return 0
        [ "$(now_ms)" -ge "$end" ] && return 1
        sleep 0.05
    done
}

# pick_port VAR: set VAR (an array element too: port[n1]) to a loopback port
# nobody listens on and that this test has not picked before. It assigns
# rather than prints: $(pick_port) would run in a subshell and forget the
# ports it picked. The port is below the kernel's ephemeral range
# (net.ipv4.ip_local_port_range), which the other tests' outgoing
# connections and port-0 binds draw from: a port picked inside it could be
# taken by one of them before the daemon binds it (seen in CI: zkelectd
# "cannot listen on 44780: Address already in use").
used_ports=" "
# ephemeral_floor: the first port of the kernel's ephemeral range, when
# pick_port can pick below it (the range starts above 11024); else nothing
ephemeral_floor() {
    local lo hi
    if read -r lo hi 2>/dev/null </proc/sys/net/ipv4/ip_local_port_range &&
       [ "$lo" -gt 11024 ] 2>/dev/null; then
        echo "$lo"
    fi
}
pick_port() {
    local p lo base=20000 span=40000
    lo=$(ephemeral_floor)
    if [ -n "$lo" ]; then
        base=10000 span=$(( lo - 10000 ))
    fi
    while :; do
        p=$(( base + RANDOM % span ))
        case $used_ports in *" $p "*) continue ;; esac
        if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
            used_ports="$used_ports$p "
            printf -v "$1" '%s' "$p"
            return
        fi
    done
}

# finish: the last line, "NAME: N passed, N failed"; exit 1 on any failure.
finish() {
    trap - INT TERM HUP
    echo "$NAME: $passed passed, $failed failed"
    [ "$failed" -eq 0 ]
    exit $?
}

# A guard: the whole test never runs longer than TEST_DEADLINE_S seconds;
# then it prints so and sends the test SIGTERM (its INT/TERM/HUP trap
# finishes it). Sets guard_pid: cleanup kills it, and it takes its sleep
# along (a sleep left behind would outlive the test by up to the deadline).
deadline_guard() {
    ( trap 'kill "$sp" 2>/dev/null; exit 0' TERM
      sleep "$TEST_DEADLINE_S" &
      sp=$!
      wait "$sp" || exit 0
      echo "$NAME: deadline of ${TEST_DEADLINE_S}s passed"
      kill -TERM $$ ) &
    guard_pid=$!
}
