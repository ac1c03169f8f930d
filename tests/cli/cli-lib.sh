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
