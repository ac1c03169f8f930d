#!/bin/bash
# test_cli_run.sh - `zkelect run` against a real ZooKeeper (zk-local), with
# runners of a job that appends "<monotonic time> <epoch> <pid> <node>
# <previous> <group>" to a file every 50 ms while it is alive:
#
#   1. failover: kill -9 of the leading runner; its job, a child of the
#      sh -c that COMMAND is, dies at once (the leash kills COMMAND's process
#      group: its pid is gone before the other job's first line),
#      the other runner takes over at a higher epoch, the jobs' lifetimes
#      never overlap, and the job sees ZKELECT_* in its environment;
#   2. SIGTERM to the leading runner: its job gets SIGTERM (and takes 1 s to
#      stop), the runner exits 143, and the other takes over only after the
#      job has exited, well before the killed runner's session (15 s) could
#      have expired: leadership was released, not lost;
#   3. COMMAND exits by itself with status 3: the runner exits 3, the other
#      takes over (again before the session timeout);
#   4. a job that ignores SIGTERM is killed after --stop-timeout; with its
#      whole process group stopped (the leash too), by the group's SIGKILL
#      2 s later;
#   5. --ready-check: the leader stays PROGRESS until the check succeeds;
#      a check that never succeeds fails the takeover and stops the job;
#   6. COMMAND not found: a clear message and exit 127 (126: not executable);
#      ZKELECT_AUTH never reaches COMMAND; a readable auth file is refused;
#      a persistent nodes/<id> (no session's): exit 1 at once, naming it;
#   7. bad options: exit 2, naming the option;
#   8. the connection to ZooKeeper is lost: the job is stopped (leadership
#      suspended); it runs again once leadership is verified after the
#      server is back.
#
# Run by `make check` (ZKELECT_TOP_BUILDDIR set) or by hand from a build
# directory: tests/cli/test_cli_run. Prints "test_cli_run: N passed, N
# failed" last; exits 1 on any failure. Everything it starts is stopped on
# every way out (trap), and the whole file has a deadline.
set -u

NAME=test_cli_run
TOP_BUILDDIR=${ZKELECT_TOP_BUILDDIR:-$(pwd)}
TOP_SRCDIR=${ZKELECT_TOP_SRCDIR:-$(sed -n 's/^abs_top_srcdir = //p' "$TOP_BUILDDIR/Makefile" 2>/dev/null)}
[ -n "$TOP_SRCDIR" ] || TOP_SRCDIR=$(cd "$(dirname "$0")/../.." && pwd)
ZKE=$TOP_BUILDDIR/src/cli/zkelect
ZKLOCAL=$TOP_BUILDDIR/tests/harness/zk-local
MONO=$TOP_BUILDDIR/tests/harness/zke-mono   # CLOCK_MONOTONIC ms, 3 decimals
export MONO
export ZKELECT_POLICY_PATH=${ZKELECT_POLICY_PATH:-$TOP_BUILDDIR/policies/.libs}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$TOP_SRCDIR/tests/lsan.supp:print_suppressions=0}
unset ZKELECT_HOSTS ZKELECT_PATH ZKELECT_AUTH_FILE ZKELECT_AUTH

# A sanitizer report must not pass for an expected exit status.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}exitcode=99"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}exitcode=99"

FAST_MS=2000                # session timeout of a runner that is killed -9
SLOW_MS=15000               # session timeout of a runner that must release
RELEASE_MS=10000            # ... so the other takes over within this (< SLOW_MS)
WAIT_MS=30000               # generous deadline for "eventually"
TEST_DEADLINE_S=300         # the whole file, whatever happens

passed=0
failed=0
zk_pid=
guard_pid=
declare -A rpid             # runner name -> pid

. "$TOP_SRCDIR/tests/lib.sh"   # now_ms, ok, nok, check, wait_until, finish

for f in "$ZKE" "$ZKLOCAL"; do
    [ -x "$f" ] || { echo "$NAME: $f not built"; echo "$NAME: 0 passed, 1 failed"; exit 1; }
done

T=$(mktemp -d "${TMPDIR:-/tmp}/zkrun.XXXXXX") || exit 99

log() { echo "$NAME: $*"; }

cleanup() {
    local n p end
    trap - EXIT INT TERM HUP
    for n in "${!rpid[@]}"; do kill -TERM "${rpid[$n]}" 2>/dev/null; done
    end=$(( $(now_ms) + 20000 ))
    for n in "${!rpid[@]}"; do
        while kill -0 "${rpid[$n]}" 2>/dev/null && [ "$(now_ms)" -lt "$end" ]; do
            sleep 0.05
        done
        kill -KILL "${rpid[$n]}" 2>/dev/null
        wait "${rpid[$n]}" 2>/dev/null
    done
    # jobs a broken build left running (they must have died with their runners)
    for n in "$T"/*.jobs; do
        [ -f "$n" ] || continue
        for p in $(awk '{ print $3 }' "$n" | sort -u); do
            proc_dead "$p" || { echo "$NAME: job $p still running: killing it"; kill -KILL "$p"; }
        done
    done
    exec 3>&-
    [ -n "$zk_pid" ] && kill -TERM "$zk_pid" 2>/dev/null && wait "$zk_pid" 2>/dev/null
    [ -n "$guard_pid" ] && kill "$guard_pid" 2>/dev/null
    if [ "${RUN_TEST_KEEP:-0}" = 1 ] || [ "$failed" -gt 0 ]; then
        for n in "$T"/*.err "$T"/*.jobs; do
            [ -f "$n" ] || continue
            echo "---- $n (last 30 lines)"
            tail -n 30 "$n"
        done
        [ "${RUN_TEST_KEEP:-0}" = 1 ] && echo "$NAME: kept $T"
    fi
    [ "${RUN_TEST_KEEP:-0}" = 1 ] || rm -rf "$T"
}
trap 'cleanup' EXIT
trap 'nok "interrupted"; finish' INT TERM HUP

# the whole test never runs longer than TEST_DEADLINE_S (tests/lib.sh)
deadline_guard

# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------

# The job: one line per 50 ms while alive. JOB_TERM=slow: on SIGTERM, write
# "term", take 1 s, write "term-end" and exit 0; JOB_TERM=ignore: ignore it.
# It exits 3 once the file $JOB_EXIT_FLAG.<node> exists.
cat >"$T/job.sh" <<'EOF'
#!/bin/bash
out=$1
line() {
    echo "$("$MONO") $ZKELECT_EPOCH $$ $ZKELECT_NODE_ID ${ZKELECT_PREVIOUS:--} $ZKELECT_GROUP $*" >>"$out"
}
case ${JOB_TERM:-} in
slow)   trap 'line term; sleep 1; line term-end; exit 0' TERM ;;
ignore) trap '' TERM ;;
esac
while :; do
    line
    if [ -n "${JOB_EXIT_FLAG:-}" ] && [ -e "$JOB_EXIT_FLAG.$ZKELECT_NODE_ID" ]; then
        line exit-3
        exit 3
    fi
    sleep 0.05
done
EOF
chmod +x "$T/job.sh"

# start_runner NAME GROUP ID ARGS... -- COMMAND...: a runner in the background,
# stderr in $T/NAME.err.
start_runner() {
    local n=$1 g=$2 id=$3
    shift 3
    "$ZKE" -z "$HOSTS" -p "$g" run --id "$id" "$@" >"$T/$n.out" 2>"$T/$n.err" </dev/null 3>&- &
    rpid[$n]=$!
}

# wait_runner NAME: its exit status (it must have exited, or be about to).
runner_gone() { ! kill -0 "${rpid[$1]}" 2>/dev/null; }
wait_runner() {
    local rc
    wait "${rpid[$1]}"
    rc=$?
    unset "rpid[$1]"
    echo "$rc"
}

# The READY leader of GROUP ("" when none is READY).
leader_of() {
    local out
    out=$("$ZKE" -z "$HOSTS" -p "$1" leader 2>/dev/null) || { echo ""; return; }
    echo "${out%% *}"
}
leader_is() { [ "$(leader_of "$1")" = "$2" ]; }
# GROUP's leader is ID with status STATUS (PROGRESS or READY)
leader_status_is() {
    local out
    out=$("$ZKE" -z "$HOSTS" -p "$1" leader 2>/dev/null)
    set -- "$2" "$3" $out
    [ "$3" = "$1" ] && [ "$4" = "$2" ]
}
member_of() { "$ZKE" -z "$HOSTS" -p "$1" status 2>/dev/null | grep -q "^$2 "; }

# Job lines of node ID in FILE (all of them).
lines_of() { [ ! -f "$1" ] || awk -v id="$2" '$4 == id' "$1"; }
has_line_of() { [ -n "$(lines_of "$1" "$2")" ]; }
# CLOCK_MONOTONIC microseconds of the first / last line of ID in FILE ("" if
# none). The jobs stamp their lines with zke-mono: /proc/uptime (what now_ms
# reads) counts in 10 ms steps, too coarse to order one job's last line and the
# next job's first, which can come within the same 10 ms.
first_us() { lines_of "$1" "$2" | head -n 1 | awk '{ printf "%.0f", $1 * 1000 }'; }
last_us() { lines_of "$1" "$2" | tail -n 1 | awk '{ printf "%.0f", $1 * 1000 }'; }
mono_us() { "$MONO" | awk '{ printf "%.0f", $1 * 1000 }'; }
# field K of the first line of ID in FILE
field_of() { lines_of "$1" "$2" | head -n 1 | awk -v k="$3" '{ print $k }'; }
# the job's pid (every line of a node in one phase has the same one)
job_pid() { field_of "$1" "$2" 3; }
# the process is gone (or a zombie nobody reaped yet: it runs no more)
proc_dead() {
    local st
    [ -r "/proc/$1/stat" ] || return 0
    st=$(sed 's/^.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1)
    [ -z "$st" ] || [ "$st" = Z ] || [ "$st" = X ]
}
# a runner's stderr has no sanitizer report
clean_err() { ! grep -E -q 'Sanitizer|runtime error:' "$T/$1.err"; }

# zkcmd LINE: a command to zk-local; waits for its answer ("ok ..." or "error: ...")
zk_answers() { grep -c -E '^(ok|error)' "$T/zk.out"; }
zk_answered() { [ "$(zk_answers)" -gt "$1" ]; }
zkcmd() {
    local n
    n=$(zk_answers)
    echo "$1" >&3
    wait_until 60000 zk_answered "$n" && [ "$(grep -E '^(ok|error)' "$T/zk.out" | tail -n 1 | cut -c1-2)" = ok ]
}
# a line of node ID in FILE from a job other than PID
other_job_line() { [ -n "$(lines_of "$1" "$2" | awk -v p="$3" '$3 != p')" ]; }

# init GROUP: the group with the nodeid policy (the lowest id leads first)
init_group() { "$ZKE" -z "$HOSTS" -p "$1" init --policy nodeid >/dev/null 2>"$T/init.err"; }

# ---------------------------------------------------------------------------
# ZooKeeper
# ---------------------------------------------------------------------------

# driven through a FIFO (test 8 kills and restarts the server); closing it
# stops zk-local, as does its pid's SIGTERM in cleanup
mkfifo "$T/zkctl"
"$ZKLOCAL" --hosts-file "$T/hosts" <"$T/zkctl" >"$T/zk.out" 2>&1 &
zk_pid=$!
exec 3>"$T/zkctl"
if ! wait_until 90000 test -s "$T/hosts"; then
    cat "$T/zk.out"
    nok "zk-local serving"
    finish
fi
HOSTS=$(cat "$T/hosts")
log "ZooKeeper at $HOSTS"

# ---------------------------------------------------------------------------
# 1. kill -9 of the leading runner
# ---------------------------------------------------------------------------
G=/t/run1
J=$T/run1.jobs
init_group $G
# n1's job is the child of a shell that does not exec it: PR_SET_PDEATHSIG
# reaches only the shell; the leash's kill of the process group reaches it
start_runner a1 $G n1 --session-timeout $FAST_MS -- /bin/sh -c '"$0" "$1"; exit $?' "$T/job.sh" "$J"
check "1: n1 leads and its job runs" wait_until $WAIT_MS has_line_of "$J" n1
check "1: n1 is the READY leader" wait_until $WAIT_MS leader_is $G n1
start_runner a2 $G n2 --session-timeout $FAST_MS -- "$T/job.sh" "$J"
check "1: n2 joined" wait_until $WAIT_MS member_of $G n2
check "1: n2's job does not run while n1 leads" test -z "$(lines_of "$J" n2)"
p1=$(job_pid "$J" n1)
kill -KILL "${rpid[a1]}"
wait "${rpid[a1]}" 2>/dev/null
unset "rpid[a1]"
check "1: n1's job (a child of sh -c) died with its runner (the leash)" wait_until 5000 proc_dead "$p1"
dead_us=$(mono_us)
check "1: n2 takes over and its job runs" wait_until $WAIT_MS has_line_of "$J" n2
f2=$(first_us "$J" n2)
l1=$(last_us "$J" n1)
log "1: n1's job: last line at $l1 us, seen dead at $dead_us us; n2's first line at ${f2:-none} us"
check "1: n1's job was dead before n2's job's first line" test -n "$f2" -a "$dead_us" -le "${f2:-0}"
check "1: the lifetimes do not overlap (n1's last line before n2's first)" \
    test -n "$f2" -a "$l1" -lt "${f2:-0}"
e1=$(field_of "$J" n1 2)
e2=$(field_of "$J" n2 2)
check "1: n2's epoch ($e2) is above n1's ($e1)" test "${e2:-0}" -gt "${e1:-0}"
check "1: ZKELECT_PREVIOUS is n1 for n2's job" test "$(field_of "$J" n2 5)" = n1
check "1: ZKELECT_GROUP is the group" test "$(field_of "$J" n2 6)" = $G
check "1: ZKELECT_NODE_ID and ZKELECT_EPOCH set" test -n "$e1" -a "$(field_of "$J" n1 4)" = n1
check "1: every line of n2's job has n2's epoch" \
    test "$(lines_of "$J" n2 | awk '{ print $2 }' | sort -u)" = "$e2"
check "1: n2 is the READY leader" wait_until $WAIT_MS leader_is $G n2
kill -TERM "${rpid[a2]}"
check "1: n2's runner stops on SIGTERM" wait_until $WAIT_MS runner_gone a2
check "1: ... with 143" test "$(wait_runner a2)" = 143
check "1: no sanitizer report" clean_err a2

# ---------------------------------------------------------------------------
# 2. SIGTERM to the leading runner: forwarded, released after the job exited
# ---------------------------------------------------------------------------
G=/t/run2
J=$T/run2.jobs
init_group $G
JOB_TERM=slow start_runner b1 $G n1 --session-timeout $SLOW_MS --stop-timeout 8000 \
    -- "$T/job.sh" "$J"
check "2: n1 leads and its job runs" wait_until $WAIT_MS has_line_of "$J" n1
check "2: n1 is the READY leader" wait_until $WAIT_MS leader_is $G n1
start_runner b2 $G n2 --session-timeout $SLOW_MS -- "$T/job.sh" "$J"
check "2: n2 joined" wait_until $WAIT_MS member_of $G n2
p1=$(job_pid "$J" n1)
t0=$(mono_us)
kill -TERM "${rpid[b1]}"
check "2: n1's runner exits" wait_until $WAIT_MS runner_gone b1
check "2: ... with 143 (128 + SIGTERM)" test "$(wait_runner b1)" = 143
check "2: n1's job got SIGTERM" grep -q " n1 .* term$" "$J"
check "2: n1's job finished its SIGTERM handler" grep -q " n1 .* term-end$" "$J"
check "2: n1's job is gone" proc_dead "$p1"
check "2: n2 takes over within $RELEASE_MS ms (released, not expired)" \
    wait_until $RELEASE_MS has_line_of "$J" n2
log "2: n2's first line $(( ($(first_us "$J" n2) - t0) / 1000 )) ms after the SIGTERM"
check "2: n2's job started after n1's job exited" \
    test "$(last_us "$J" n1)" -lt "$(first_us "$J" n2)"
check "2: n1's runner said it resigned" grep -q "resigned from $G" "$T/b1.err"
check "2: no sanitizer report" clean_err b1
kill -TERM "${rpid[b2]}"
check "2: n2's runner stops" wait_until $WAIT_MS runner_gone b2
wait_runner b2 >/dev/null

# ---------------------------------------------------------------------------
# 3. COMMAND exits by itself with status 3
# ---------------------------------------------------------------------------
G=/t/run3
J=$T/run3.jobs
init_group $G
JOB_EXIT_FLAG=$T/exit3 start_runner c1 $G n1 --session-timeout $SLOW_MS -- "$T/job.sh" "$J"
check "3: n1 leads and its job runs" wait_until $WAIT_MS has_line_of "$J" n1
check "3: n1 is the READY leader" wait_until $WAIT_MS leader_is $G n1
start_runner c2 $G n2 --session-timeout $SLOW_MS -- "$T/job.sh" "$J"
check "3: n2 joined" wait_until $WAIT_MS member_of $G n2
touch "$T/exit3.n1"
check "3: n1's runner exits" wait_until $WAIT_MS runner_gone c1
check "3: ... with the job's status 3" test "$(wait_runner c1)" = 3
check "3: n2 takes over within $RELEASE_MS ms" wait_until $RELEASE_MS has_line_of "$J" n2
check "3: n2's job started after n1's exited" \
    test "$(last_us "$J" n1)" -lt "$(first_us "$J" n2)"
check "3: n1's runner says the job exited by itself" grep -q "exited by itself.*exit status 3" "$T/c1.err"
check "3: no sanitizer report" clean_err c1
kill -TERM "${rpid[c2]}"
check "3: n2's runner stops" wait_until $WAIT_MS runner_gone c2
wait_runner c2 >/dev/null

# ---------------------------------------------------------------------------
# 4. a job that ignores SIGTERM: SIGKILL after --stop-timeout
# ---------------------------------------------------------------------------
G=/t/run4
J=$T/run4.jobs
init_group $G
JOB_TERM=ignore start_runner d1 $G n1 --stop-timeout 700 -- "$T/job.sh" "$J"
check "4: n1's job runs" wait_until $WAIT_MS has_line_of "$J" n1
check "4: n1 is the READY leader" wait_until $WAIT_MS leader_is $G n1
p1=$(job_pid "$J" n1)
t0=$(now_ms)
kill -TERM "${rpid[d1]}"
check "4: the runner exits" wait_until $WAIT_MS runner_gone d1
check "4: ... with 143" test "$(wait_runner d1)" = 143
t1=$(now_ms)
check "4: not before --stop-timeout ($(( t1 - t0 )) ms)" test $(( t1 - t0 )) -ge 600
check "4: the job is gone" proc_dead "$p1"
check "4: the runner used SIGKILL" grep -q "still running after SIGTERM: SIGKILL" "$T/d1.err"
check "4: no leader left" wait_until $WAIT_MS leader_is $G ""
check "4: no sanitizer report" clean_err d1

# the job's whole process group stopped (SIGSTOP, the leash with it): the
# leash cannot act on the kill it is asked for, and the runner sends the
# group SIGKILL 2 s later (before, it waited for the leash for ever)
J=$T/run4b.jobs
JOB_TERM=ignore start_runner d2 $G n1 --stop-timeout 300 -- "$T/job.sh" "$J"
check "4b: n1's job runs" wait_until $WAIT_MS has_line_of "$J" n1
check "4b: n1 is the READY leader" wait_until $WAIT_MS leader_is $G n1
p1=$(job_pid "$J" n1)
pg=$(ps -o pgid= -p "$p1" | tr -d ' ')
check "4b: the job's group is known ($pg)" test -n "$pg"
kill -STOP -- "-$pg"
kill -TERM "${rpid[d2]}"
check "4b: the runner exits" wait_until $WAIT_MS runner_gone d2
check "4b: ... with 143" test "$(wait_runner d2)" = 143
check "4b: the job is gone" proc_dead "$p1"
check "4b: the runner used the group's SIGKILL" grep -q "SIGKILL to its group" "$T/d2.err"
check "4b: no leader left" wait_until $WAIT_MS leader_is $G ""
check "4b: no sanitizer report" clean_err d2

# ---------------------------------------------------------------------------
# 5. --ready-check: PROGRESS until the check succeeds
# ---------------------------------------------------------------------------
G=/t/run5
J=$T/run5.jobs
init_group $G
start_runner e1 $G n1 --ready-check "test -e '$T/ready5'" --ready-timeout 60000 \
    -- "$T/job.sh" "$J"
check "5: n1's job runs" wait_until $WAIT_MS has_line_of "$J" n1
check "5: the leader is PROGRESS while the check fails" leader_status_is $G n1 PROGRESS
touch "$T/ready5"
check "5: READY once the check succeeds" wait_until $WAIT_MS leader_status_is $G n1 READY
kill -TERM "${rpid[e1]}"
check "5: the runner stops" wait_until $WAIT_MS runner_gone e1
wait_runner e1 >/dev/null
check "5: no sanitizer report" clean_err e1

# a check that never succeeds: the takeover fails, the job is stopped, the
# runner stays a candidate
G=/t/run5b
J=$T/run5b.jobs
init_group $G
start_runner e2 $G n1 --ready-check false --ready-timeout 1000 -- "$T/job.sh" "$J"
check "5b: n1's job runs" wait_until $WAIT_MS has_line_of "$J" n1
p1=$(job_pid "$J" n1)
check "5b: the job is stopped when the check never succeeds" wait_until $WAIT_MS proc_dead "$p1"
check "5b: the runner says the takeover failed" \
    wait_until $WAIT_MS grep -q "did not succeed within 1000 ms: the takeover of epoch" "$T/e2.err"
check "5b: the library reports -takeover-failed" wait_until $WAIT_MS grep -q -- "-takeover-failed" "$T/e2.err"
check "5b: the runner stays a candidate" kill -0 "${rpid[e2]}"
check "5b: no READY leader" leader_is $G ""
kill -TERM "${rpid[e2]}"
check "5b: the runner stops" wait_until $WAIT_MS runner_gone e2
check "5b: ... with 143" test "$(wait_runner e2)" = 143
check "5b: no sanitizer report" clean_err e2

# ---------------------------------------------------------------------------
# 6. COMMAND not found / not executable
# ---------------------------------------------------------------------------
G=/t/run6
"$ZKE" -z "$HOSTS" -p $G run --id n1 -- zkelect-no-such-command arg >"$T/f.out" 2>"$T/f.err" </dev/null
check "6: unknown command: exit 127" test $? = 127
check "6: ... says so" grep -q "zkelect-no-such-command: command not found" "$T/f.err"
"$ZKE" -z "$HOSTS" -p $G run --id n1 -- "$T/no/such/file" >"$T/f.out" 2>"$T/f.err" </dev/null
check "6: missing path: exit 127" test $? = 127
check "6: ... names it" grep -q "$T/no/such/file: command not found" "$T/f.err"
"$ZKE" -z "$HOSTS" -p $G run --id n1 zkelect-no-such-command --its-own-option >"$T/f.out" 2>"$T/f.err" </dev/null
check "6: without --, options end at COMMAND (its own are left alone): exit 127" test $? = 127
touch "$T/notexec"
"$ZKE" -z "$HOSTS" -p $G run --id n1 -- "$T/notexec" >"$T/f.out" 2>"$T/f.err" </dev/null
check "6: not executable: exit 126" test $? = 126
check "6: ... says so" grep -q "notexec: not executable" "$T/f.err"
check "6: nothing joined the group" test -z "$("$ZKE" -z "$HOSTS" -p $G status 2>/dev/null | grep '^n1 ')"

# credentials: from a 0600 file (-a) or the environment, never passed on
G=/t/run6a
init_group $G
ZKELECT_AUTH=member:pw timeout -k 10 60 "$ZKE" -z "$HOSTS" -p $G run --id n1 \
    -- /bin/sh -c 'exit ${ZKELECT_AUTH:+9}0' >"$T/f.out" 2>"$T/f.err" </dev/null
check "6: ZKELECT_AUTH never reaches COMMAND (exit 0, not 90)" test $? = 0
printf 'member:pw\n' >"$T/open.auth"
chmod 644 "$T/open.auth"
"$ZKE" -z "$HOSTS" -a "$T/open.auth" -p $G run --id n1 -- true >"$T/f.out" 2>"$T/f.err" </dev/null
check "6: an auth file others can read is refused: exit 1" test $? = 1
check "6: ... with the reason" grep -q "mode 0644 is too open" "$T/f.err"

# a member record that is no session's (a persistent nodes/<id> another
# client wrote): no expiry frees it, so the runner gives up at once,
# naming it (before: "held by another live ZooKeeper session", retried
# for twice the session timeout)
"$TOP_BUILDDIR/tests/cli/cli-helper" set -z "$HOSTS" $G/nodes/n5 '{"v":1,"id":"n5"}' 2>"$T/f.err"
check "6: a foreign client writes a persistent $G/nodes/n5" test $? = 0
t6=$(now_ms)
timeout -k 10 60 "$ZKE" -z "$HOSTS" -p $G run --id n5 --session-timeout 10000 -- true \
    >"$T/f.out" 2>"$T/f.err" </dev/null
rc=$?
t6=$(( $(now_ms) - t6 ))
check "6: the runner with id n5 exits 1 ($rc) before a session timeout ($t6 ms)" \
    eval '[ "$rc" = 1 ] && [ "$t6" -lt 10000 ]'
check "6: ... naming the znode and what it is" \
    grep -q "$G/nodes/n5 is a persistent or container znode" "$T/f.err"

# ---------------------------------------------------------------------------
# 7. bad options: exit 2, naming the option (no ZooKeeper contacted)
# ---------------------------------------------------------------------------
badopt() {   # badopt PATTERN DESCRIPTION ARGS...
    local pat=$1 d=$2 rc
    shift 2
    "$ZKE" -z 127.0.0.1:1 "$@" >"$T/o.out" 2>"$T/o.err" </dev/null
    rc=$?
    check "7: $d: exit 2 (got $rc)" test "$rc" = 2
    check "7: $d: the message names it" grep -q -- "$pat" "$T/o.err"
}
badopt "unknown option --bogus" "unknown option" run --bogus -- true
badopt "--stop-timeout: \"soon\"" "bad --stop-timeout" run --stop-timeout soon -- true
badopt "--priority: \"x\"" "bad --priority" run --priority x -- true
badopt "--id: \"bad id\"" "bad --id" run --id "bad id" -- true
badopt "option --session-timeout needs a value" "missing value" run --session-timeout
badopt "no COMMAND given" "no COMMAND" run --id n1 --
badopt "unknown option -x" "an option after the command's options" run -x -- true

# ---------------------------------------------------------------------------
# 8. the connection is lost: the job stops; it runs again once leadership
#    is verified on the same session
# ---------------------------------------------------------------------------
G=/t/run8
J=$T/run8.jobs
init_group $G
start_runner h1 $G n1 --session-timeout $SLOW_MS --stop-timeout 2000 -- "$T/job.sh" "$J"
check "8: n1's job runs" wait_until $WAIT_MS has_line_of "$J" n1
check "8: n1 is the READY leader" wait_until $WAIT_MS leader_is $G n1
p1=$(job_pid "$J" n1)
e1=$(field_of "$J" n1 2)
check "8: ZooKeeper killed" zkcmd "kill 0"
check "8: the job is stopped when the connection is lost" wait_until 10000 proc_dead "$p1"
check "8: the runner says leadership was suspended" grep -q -- "-suspended" "$T/h1.err"
check "8: ZooKeeper restarted" zkcmd "restart 0"
check "8: the job runs again once leadership is verified" \
    wait_until $WAIT_MS other_job_line "$J" n1 "$p1"
check "8: ... at the same epoch" \
    test "$(lines_of "$J" n1 | awk -v p="$p1" '$3 != p { print $2 }' | sort -u)" = "$e1"
check "8: n1 is the READY leader again" wait_until $WAIT_MS leader_is $G n1
kill -TERM "${rpid[h1]}"
check "8: the runner stops" wait_until $WAIT_MS runner_gone h1
check "8: ... with 143" test "$(wait_runner h1)" = 143
check "8: no sanitizer report" clean_err h1

finish
