# cli-lib.sh - the shell helpers test_cli_zk.sh and test_cli_ops.sh share:
# stopping helpers and cleaning up, pass/fail counting, the sanitizer check,
# running zkelect (z, expect) and checking its output (has, hasnot, pyjson).
# POSIX sh; sourced, not run.
# The caller sets name, tmp (a scratch directory), ZKE (the zkelect binary),
# passed=0 failed=0, zkpid, and HOSTS before the first z, and defines
# stop_helpers; its finish prints the tally.

# wait_helpers PID...: wait for each helper to end (up to 15 s; the caller's
# stop_helpers has closed their FIFOs), and kill one that does not.
wait_helpers() {
    for p in "$@"; do
        i=0
        while kill -0 "$p" 2>/dev/null && [ $i -lt 150 ]; do sleep 0.1; i=$((i + 1)); done
        if kill -0 "$p" 2>/dev/null; then
            echo "$name: helper $p did not stop; killing it"
            kill -KILL "$p" 2>/dev/null
        fi
        wait "$p" 2>/dev/null
    done
}
# On every way out: the caller's stop_helpers, then zk-local, then $tmp.
cleanup() {
    stop_helpers
    [ -n "$zkpid" ] && kill -TERM "$zkpid" 2>/dev/null && wait "$zkpid" 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'echo "$name: interrupted"; exit 1' INT TERM HUP

pass() { passed=$((passed + 1)); }
fail() {
    failed=$((failed + 1))
    echo "FAIL: $*"
    [ -f "$tmp/err" ] && sed 's/^/  stderr: /' "$tmp/err" | head -20
    [ -f "$tmp/out" ] && sed 's/^/  stdout: /' "$tmp/out" | head -30
}

now() { date +%s; }

# A sanitizer report fails the test even when the exit status was the one
# expected (ASan's default exit status is 1, an expected status here).
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}exitcode=99"
UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}exitcode=99"
export ASAN_OPTIONS UBSAN_OPTIONS
sanitizer_check() {   # sanitizer_check FILE...
    for f in "$@"; do
        if grep -E -q 'Sanitizer|runtime error:' "$f" 2>/dev/null; then
            fail "sanitizer report in $(basename "$f")"
            return 1
        fi
    done
}

# term_wait PID DESC: PID is a `timeout -k 30 ...` running a zkelect that
# exits on SIGTERM: send SIGTERM, wait for the exit and check the status is 0.
# The wait polls for the exit with a 10 s deadline; a process still there
# then fails the check, as `timeout -k 10` did before, but first has the
# state of its threads and of its children printed (a hang at exit shows
# where it is: a thread's wchan and system call, a tracer's TracerPid); then
# it is killed. The time to the exit goes to the log.
# The SIGTERM goes to the zkelect itself, timeout's child, as a supervisor's
# would, and not to timeout: timeout relays it, to the child and to its process
# group, and then sends SIGCONT to both. A SIGCONT that reaches a sanitizer
# build while LeakSanitizer stops the world at its exit discards the SIGSTOP
# of the tracer's PTRACE_ATTACH, and the tracer waits for that stop forever (a
# CI run saw it: the zkelect running and traced, its tracer in do_wait).
term_wait() {
    tw_pid=$1 tw_desc=$2 tw_more=""
    tw_target=$(cat /proc/"$tw_pid"/task/*/children 2>/dev/null)
    read -r tw_up _ < /proc/uptime
    tw_t0=$(echo "$tw_up" | tr -d .)
    kill -TERM ${tw_target:-$tw_pid} 2>/dev/null
    tw_dead=$((tw_t0 + 1000))
    while kill -0 "$tw_pid" 2>/dev/null && [ -z "$(sed -n 's/^State:\t\(Z\).*/\1/p' /proc/"$tw_pid"/status 2>/dev/null)" ]; do
        read -r tw_up _ < /proc/uptime
        tw_now=$(echo "$tw_up" | tr -d .)
        if [ "$tw_now" -ge "$tw_dead" ]; then
            echo "$tw_desc: still running 10 s after SIGTERM; its processes and threads:"
            for tw_p in $(cat /proc/"$tw_pid"/task/*/children 2>/dev/null); do
                for tw_c in $(cat /proc/"$tw_p"/task/*/children 2>/dev/null); do
                    tw_more="$tw_more $tw_c"
                done
            done
            for tw_p in "$tw_pid" $(cat /proc/"$tw_pid"/task/*/children 2>/dev/null) $tw_more; do
                echo "  pid $tw_p: $(tr '\0' ' ' < /proc/"$tw_p"/cmdline 2>/dev/null | cut -c1-120)" \
                     "$(grep -E '^(State|TracerPid|SigBlk|SigPnd|ShdPnd):' /proc/"$tw_p"/status 2>/dev/null | tr '\n\t' '  ')"
                for tw_t in /proc/"$tw_p"/task/*; do
                    echo "    thread ${tw_t##*/}: $(cut -d' ' -f3 "$tw_t"/stat 2>/dev/null)" \
                         "wchan $(cat "$tw_t"/wchan 2>/dev/null)" \
                         "syscall $(cut -d' ' -f1 "$tw_t"/syscall 2>/dev/null)"
                done
            done
            kill -KILL "$tw_pid" $(cat /proc/"$tw_pid"/task/*/children 2>/dev/null) $tw_more 2>/dev/null
            wait "$tw_pid"
            fail "$tw_desc: still running 10 s after SIGTERM (killed)"
            return 1
        fi
        sleep 0.05
    done
    wait "$tw_pid"
    tw_rc=$?
    read -r tw_up _ < /proc/uptime
    tw_now=$(echo "$tw_up" | tr -d .)
    echo "$tw_desc: exit status $tw_rc, $(( (tw_now - tw_t0) * 10 )) ms after SIGTERM"
    if [ "$tw_rc" = 0 ]; then pass; return 0; fi
    fail "$tw_desc: exits 0 on SIGTERM (got $tw_rc)"
    return 1
}

# z ARGS...: run zkelect against the test server; output in $tmp/out, $tmp/err
z() {
    "$ZKE" -z "$HOSTS" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
    zrc=$?
    sanitizer_check "$tmp/err"
    return $zrc
}

# expect RC DESCRIPTION ARGS...: run zkelect and check its exit status
expect() {
    exp=$1 desc=$2
    shift 2
    z "$@"
    rc=$?
    if [ "$rc" = "$exp" ]; then pass; return 0; fi
    fail "$desc: exit $rc, expected $exp"
    return 1
}

# has FILE PATTERN DESCRIPTION: FILE contains PATTERN (grep -E)
has() {
    if grep -E -q -- "$2" "$1"; then pass; else fail "$3: no \"$2\" in $(basename "$1")"; fi
}
hasnot() {
    if grep -E -q -- "$2" "$1"; then fail "$3: unexpected \"$2\" in $(basename "$1")"; else pass; fi
}

# pyjson FILE DESCRIPTION PYTHON-EXPR: the JSON in FILE, as d, satisfies EXPR
# (NOW is the wall clock in ms when it runs, for times left)
pyjson() {
    if python3 - "$1" "$3" <<'EOF'
import json, sys, time
d = json.load(open(sys.argv[1]))
NOW = int(time.time() * 1000)
ok = eval(sys.argv[2])
sys.exit(0 if ok else 1)
EOF
    then pass; else fail "$2: $3"; fi
}
