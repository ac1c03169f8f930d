#!/bin/sh
# test_cli_args.sh - zkelect's argument handling, no ZooKeeper needed:
# usage errors (exit 2, the usage line and the specific problem) for every
# command, unknown commands and options, missing hosts, refused auth files,
# --help per command, an unreachable ZooKeeper (exit 1, clear message; a
# refused port within about a second).
#
# Run by `make check` (ZKELECT_TOP_BUILDDIR set) or by hand:
#   ZKELECT_TOP_BUILDDIR=/path/to/build sh tests/cli/test_cli_args.sh
# Prints "test_cli_args: N passed, N failed" last; exits 1 on any failure.

top=${ZKELECT_TOP_BUILDDIR:-.}
ZK="$top/src/cli/zkelect"
[ -x "$ZK" ] || { echo "test_cli_args: $ZK not built"; echo "test_cli_args: 0 passed, 1 failed"; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/zkcliargs.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
unset ZKELECT_HOSTS ZKELECT_PATH ZKELECT_AUTH_FILE ZKELECT_AUTH

# ASan's default exit status (1) is one this test expects: make it distinct
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}exitcode=99"
UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}exitcode=99"
export ASAN_OPTIONS UBSAN_OPTIONS

passed=0 failed=0
pass() { passed=$((passed + 1)); }
fail() { failed=$((failed + 1)); echo "FAIL: $*"; sed 's/^/  stderr: /' "$tmp/err"; sed 's/^/  stdout: /' "$tmp/out"; }

# run EXPECTED_RC DESCRIPTION CMD... ; output in $tmp/out and $tmp/err
run() {
    exp=$1 desc=$2
    shift 2
    "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
    rc=$?
    if grep -E -q 'Sanitizer|runtime error:' "$tmp/err"; then
        fail "$desc: sanitizer report"
        return 1
    fi
    if [ "$rc" != "$exp" ]; then
        fail "$desc: exit $rc, expected $exp"
        return 1
    fi
    return 0
}

# A usage error: exit 2, the usage line and a "zkelect...: problem" line that
# contains PATTERN, nothing on stdout, and no attempt to connect (quick).
usage() {
    pat=$1 desc=$2
    shift 2
    run 2 "$desc" "$@" || return
    if ! grep -q '^usage: zkelect ' "$tmp/err"; then
        fail "$desc: no usage line"
    elif ! grep -q -- "$pat" "$tmp/err"; then
        fail "$desc: message does not say \"$pat\""
    elif [ -s "$tmp/out" ]; then
        fail "$desc: output on stdout"
    else
        pass
    fi
}

# Expect EXPECTED_RC and PATTERN on stderr.
expect_err() {
    exp=$1 pat=$2 desc=$3
    shift 3
    run "$exp" "$desc" "$@" || return
    if grep -q -- "$pat" "$tmp/err"; then pass; else fail "$desc: stderr lacks \"$pat\""; fi
}

# Z: a ZooKeeper address nobody listens on; usage errors must come first.
Z="-z 127.0.0.1:1 -t 2000"

# ---- the command line as a whole -------------------------------------------
usage 'no command given' 'no command' "$ZK"
usage 'unknown command "bogus"' 'unknown command' "$ZK" $Z bogus
usage 'unknown option' 'unknown global option' "$ZK" --bogus status
usage 'needs an argument' 'global option without value' "$ZK" -z
usage '-t: "5" is not a timeout' 'timeout out of range' "$ZK" -t 5 status
usage '-t: "abc"' 'timeout not a number' "$ZK" -t abc status
usage 'not a valid base path' 'relative path' "$ZK" $Z -p cluster status
usage 'not a valid base path' 'trailing slash' "$ZK" $Z -p /cluster/ status
usage 'not a valid base path' 'double slash' "$ZK" $Z -p /a//b status
usage 'not a valid base path' 'dot-dot' "$ZK" $Z -p /a/../b status
usage 'not a valid base path' 'root' "$ZK" $Z -p / status
usage 'not a ZooKeeper connection string' 'hosts without a port' "$ZK" -z localhost -t 2000 status
usage 'space or a control' 'hosts with a space' "$ZK" -z '127.0.0.1:1 x' status

run 0 '--help' "$ZK" --help && {
    ok=1
    for w in status leader watch set-site-priority get-site-priority switchover pause resume \
             history init drain undrain set-delays set-leaders 'Exit status' '  7  leader with N > 1 leaders: some slots READY, not all' '  6  refused' '  5  --wait timed out' '  4  the leader is taking over' \
             '  3  no leader' '  2  usage error' '  1  operational error' ZKELECT_HOSTS; do
        grep -q -- "$w" "$tmp/out" || { ok=0; fail "--help does not mention \"$w\""; }
    done
    [ $ok = 1 ] && pass
}
run 0 '-V' "$ZK" -V && { grep -q '^zkelect [0-9]' "$tmp/out" && pass || fail "-V: no version"; }
run 0 'help status' "$ZK" help status && { grep -q '^usage: .* status' "$tmp/out" && pass || fail "help status"; }
usage 'unknown command' 'help bogus' "$ZK" help bogus

# ---- --help of every command -------------------------------------------------
for cmd in status leader watch set-site-priority get-site-priority switchover pause resume \
           history init drain undrain set-delays set-leaders; do
    if run 0 "$cmd --help" "$ZK" "$cmd" --help; then
        if grep -q "^usage: zkelect .* $cmd" "$tmp/out" && grep -q 'Exit status' "$tmp/out"; then
            pass
        else
            fail "$cmd --help: no usage line or exit codes"
        fi
    fi
    # -h too, and --help after other arguments, without hosts
    run 0 "$cmd -h" "$ZK" "$cmd" -h && pass
done

# ---- bad arguments, command by command ----------------------------------------
usage 'unexpected argument "extra"' 'status extra' "$ZK" $Z status extra
usage 'unknown option --bogus' 'status --bogus' "$ZK" $Z status --bogus
usage 'unexpected argument "x"' 'leader x' "$ZK" $Z leader x
usage 'unknown option -x' 'leader -x' "$ZK" $Z leader -x
usage 'unknown option --bogus' 'watch --bogus' "$ZK" $Z watch --bogus
usage 'unexpected argument' 'watch x' "$ZK" $Z watch x

usage 'expected SITE and N' 'set-site-priority no args' "$ZK" $Z set-site-priority
usage 'expected SITE and N' 'set-site-priority SITE only' "$ZK" $Z set-site-priority dc1
usage 'too many arguments' 'set-site-priority 3 args' "$ZK" $Z set-site-priority dc1 5 6
usage 'N "abc" is not an integer' 'set-site-priority N=abc' "$ZK" $Z set-site-priority dc1 abc
usage 'N "1.5" is not an integer' 'set-site-priority N=1.5' "$ZK" $Z set-site-priority dc1 1.5
usage 'N "0x10" is not an integer' 'set-site-priority N=0x10' "$ZK" $Z set-site-priority dc1 0x10
usage 'N " 5" is not an integer' 'set-site-priority N=" 5"' "$ZK" $Z set-site-priority dc1 ' 5'
usage 'N "5x" is not an integer' 'set-site-priority N=5x' "$ZK" $Z set-site-priority dc1 5x
usage 'N "" is not an integer' 'set-site-priority N=""' "$ZK" $Z set-site-priority dc1 ''
usage 'N "1000001" is not an integer from -1000000 to 1000000' 'set-site-priority too high' \
    "$ZK" $Z set-site-priority dc1 1000001
usage 'N "-1000001"' 'set-site-priority too low' "$ZK" $Z set-site-priority dc1 -1000001
usage 'N "99999999999999999999"' 'set-site-priority overflow' "$ZK" $Z set-site-priority dc1 99999999999999999999
usage 'is not a valid site name' 'set-site-priority bad site' "$ZK" $Z set-site-priority 'bad site' 5
usage 'is not a valid site name' 'set-site-priority site starting with .' "$ZK" $Z set-site-priority .dc 5
usage '--wait=0' 'set-site-priority --wait=0' "$ZK" $Z set-site-priority dc1 5 --wait=0
usage '--wait=abc' 'set-site-priority --wait=abc' "$ZK" $Z set-site-priority dc1 5 --wait=abc
usage 'unknown option --waitx' 'set-site-priority --waitx' "$ZK" $Z set-site-priority dc1 5 --waitx
usage 'unknown option --to' 'set-site-priority --to' "$ZK" $Z set-site-priority --to n1 dc1 5

usage 'unexpected argument "b"' 'get-site-priority 2 args' "$ZK" $Z get-site-priority a b
usage 'not a valid site name' 'get-site-priority bad site' "$ZK" $Z get-site-priority 'a!'

usage 'option --to needs a value' 'switchover --to' "$ZK" $Z switchover --to
usage 'is not a valid node id' 'switchover --to bad id' "$ZK" $Z switchover --to 'bad id!'
usage 'is not a valid node id' 'switchover --to=""' "$ZK" $Z switchover --to=
usage 'unexpected argument "n1"' 'switchover n1' "$ZK" $Z switchover n1
usage '--wait=-1' 'switchover --wait=-1' "$ZK" $Z switchover --wait=-1
usage '--wait=86401' 'switchover --wait too long' "$ZK" $Z switchover --wait=86401

# switchover: issue 16's --site, --at and --cancel
usage '--site: "bad site" is not a valid site name' 'switchover --site bad' "$ZK" $Z switchover --site 'bad site'
usage '--site: "" is not a valid site name' 'switchover --site=""' "$ZK" $Z switchover --site=
usage 'option --site needs a value' 'switchover --site' "$ZK" $Z switchover --site
usage '--to and --site exclude each other' 'switchover --to --site' "$ZK" $Z switchover --to n1 --site dc1
usage '--cancel takes no --to, --site or --at' 'switchover --cancel --to' "$ZK" $Z switchover --cancel --to n1
usage '--cancel takes no --to, --site or --at' 'switchover --cancel --site' "$ZK" $Z switchover --site dc2 --cancel
usage '--cancel takes no --to, --site or --at' 'switchover --cancel --at' "$ZK" $Z switchover --cancel --at +1m
usage 'option --cancel takes no value' 'switchover --cancel=yes' "$ZK" $Z switchover --cancel=yes
# switchover: issue 17's --from
usage '--from: "bad id!" is not a valid node id' 'switchover --from bad' "$ZK" $Z switchover --from 'bad id!'
usage 'option --from needs a value' 'switchover --from' "$ZK" $Z switchover --from
usage '--cancel takes no --from' 'switchover --cancel --from' "$ZK" $Z switchover --cancel --from n1
usage '--from and --to name the same node n1' 'switchover --from n1 --to n1' "$ZK" $Z switchover --from n1 --to n1
usage '--to and --site exclude each other' 'switchover --from --to --site' "$ZK" $Z switchover --from n1 --to n2 --site dc1
# set-leaders and init --leaders (issue 17): 1..16, no --force
usage 'expected N' 'set-leaders no args' "$ZK" $Z set-leaders
usage 'too many arguments' 'set-leaders 2 args' "$ZK" $Z set-leaders 2 3
usage 'N "0" is not a number of leaders from 1 to 16' 'set-leaders 0' "$ZK" $Z set-leaders 0
usage 'N "17" is not a number of leaders from 1 to 16' 'set-leaders 17' "$ZK" $Z set-leaders 17
usage 'N "-1" is not a number of leaders' 'set-leaders -1' "$ZK" $Z set-leaders -- -1
usage 'N "two" is not a number of leaders' 'set-leaders two' "$ZK" $Z set-leaders two
usage 'N "2.0" is not a number of leaders' 'set-leaders 2.0' "$ZK" $Z set-leaders 2.0
usage 'unknown option --force' 'set-leaders --force' "$ZK" $Z set-leaders 3 --force
usage '--wait=-1' 'set-leaders --wait=-1' "$ZK" $Z set-leaders 3 --wait=-1
usage '--leaders: "0" is not a number of leaders from 1 to 16' 'init --leaders 0' "$ZK" $Z init --leaders 0
usage '--leaders: "17" is not a number of leaders from 1 to 16' 'init --leaders 17' "$ZK" $Z init --leaders 17
usage 'option --leaders needs a value' 'init --leaders' "$ZK" $Z init --leaders
usage 'option --at needs a value' 'switchover --at' "$ZK" $Z switchover --at
usage '--at: "" is empty' 'switchover --at ""' "$ZK" $Z switchover --at ''
usage '--at: "tomorrow" is not a time (expected RFC 3339' 'switchover --at tomorrow' "$ZK" $Z switchover --at tomorrow
usage '--at: "2026-11-26T03:00:00" has no time zone (add Z' 'switchover --at without zone' \
    "$ZK" $Z switchover --at 2026-11-26T03:00:00
usage '--at: "2026-02-30T03:00:00Z" is not a valid date' 'switchover --at Feb 30' \
    "$ZK" $Z switchover --at 2026-02-30T03:00:00Z
usage '--at: "2026-11-26T03:00:00+2" has a bad offset' 'switchover --at bad offset' \
    "$ZK" $Z switchover --at 2026-11-26T03:00:00+2
usage '--at: "+30" +DURATION: "30" has no unit' 'switchover --at +30' "$ZK" $Z switchover --at +30
usage '--at: "+1.5h" +DURATION: "1.5h" has a fraction' 'switchover --at +1.5h' "$ZK" $Z switchover --at +1.5h
usage '--at: "+8d" is more than 7 days ahead' 'switchover --at +8d' "$ZK" $Z switchover --at +8d
usage '--at: "+0s" is in the past' 'switchover --at +0s' "$ZK" $Z switchover --at +0s
usage '--at: "2020-01-01T00:00:00Z" is in the past' 'switchover --at 2020' "$ZK" $Z switchover --at 2020-01-01T00:00:00Z
usage '--at: "2999-01-01T00:00:00Z" is more than 7 days ahead' 'switchover --at 2999' \
    "$ZK" $Z switchover --at 2999-01-01T00:00:00Z
usage '--wait=0' 'switchover --at --wait=0' "$ZK" $Z switchover --at +1m --wait=0

# drain / undrain
usage 'expected NODE' 'drain without NODE' "$ZK" $Z drain
usage 'too many arguments' 'drain with two nodes' "$ZK" $Z drain n1 n2
usage 'NODE "a b" is not a valid node id' 'drain bad id' "$ZK" $Z drain 'a b'
usage 'NODE ".n1" is not a valid node id' 'drain id starting with .' "$ZK" $Z drain .n1
usage 'option --for needs a value' 'drain --for' "$ZK" $Z drain n1 --for
usage '--for: "30" has no unit (write e.g. 30ms, 30s or 30m' 'drain --for 30' "$ZK" $Z drain n1 --for 30
usage '--for: "0s" is too short (0 ms): expected 1.0 s to 7d 00h' 'drain --for 0s' "$ZK" $Z drain n1 --for 0s
usage '--for: "999ms" is too short' 'drain --for 999ms' "$ZK" $Z drain n1 --for 999ms
usage '--for: "8d" is too long' 'drain --for 8d' "$ZK" $Z drain n1 --for 8d
usage '--for: "7d1s" is too long' 'drain --for 7d1s' "$ZK" $Z drain n1 --for 7d1s
usage '--for: "99999999999999999999d" is too long' 'drain --for huge' "$ZK" $Z drain n1 --for 99999999999999999999d
usage '--for: "-5m" is negative' 'drain --for -5m' "$ZK" $Z drain n1 --for -5m
usage '--for: "1.5h" has a fraction' 'drain --for 1.5h' "$ZK" $Z drain n1 --for 1.5h
usage '--for: "abc" is not a duration' 'drain --for abc' "$ZK" $Z drain n1 --for abc
usage '--for: "5x" has an unknown unit' 'drain --for 5x' "$ZK" $Z drain n1 --for 5x
usage '--for: "" is empty' 'drain --for=' "$ZK" $Z drain n1 --for=
usage '--reason: "a\\x0ab" has a control character' 'drain --reason with a newline' "$ZK" $Z drain n1 --reason "$(printf 'a\nb')"
usage 'is 160 bytes long (at most 159)' 'drain --reason too long' \
    "$ZK" $Z drain n1 --reason "$(printf '%0160d' 0)"
usage 'is not valid UTF-8' 'drain --reason bad UTF-8' "$ZK" $Z drain n1 --reason "$(printf 'caf\351')"
usage 'option --reason needs a value' 'drain --reason' "$ZK" $Z drain n1 --reason
usage '--wait=x' 'drain --wait=x' "$ZK" $Z drain n1 --wait=x
usage 'unknown option --site' 'drain --site' "$ZK" $Z drain n1 --site dc1
usage 'expected NODE' 'undrain without NODE' "$ZK" $Z undrain
usage 'unknown option --for' 'undrain --for' "$ZK" $Z undrain n1 --for 1h
usage 'unknown option --reason' 'undrain --reason' "$ZK" $Z undrain n1 --reason x
usage 'NODE "-n1" is not a valid node id' 'undrain bad id' "$ZK" $Z undrain -- -n1
usage '--wait=86401' 'undrain --wait too long' "$ZK" $Z undrain n1 --wait=86401

# set-delays
usage 'nothing to set (give --expect' 'set-delays without options' "$ZK" $Z set-delays
usage '--expect: "0" is not a number of members from 1 to 10000, or "default"' 'set-delays --expect 0' \
    "$ZK" $Z set-delays --expect 0
usage '--settle-ms: "3600001" is not a number of milliseconds from 0 to 3600000' \
    'set-delays --settle-ms too long' "$ZK" $Z set-delays --settle-ms 3600001
usage '--failback-delay-ms: "-1"' 'set-delays --failback-delay-ms -1' "$ZK" $Z set-delays --failback-delay-ms -1
usage '--min-move-interval-ms: "8s"' 'set-delays --min-move-interval-ms 8s' "$ZK" $Z set-delays --min-move-interval-ms 8s
usage '--settle-ms given twice' 'set-delays twice' "$ZK" $Z set-delays --settle-ms 1 --settle-ms=default
usage 'unexpected argument "5"' 'set-delays 5' "$ZK" $Z set-delays 5
usage 'option --expect needs a value' 'set-delays --expect' "$ZK" $Z set-delays --expect

usage 'unexpected argument "x"' 'pause x' "$ZK" $Z pause x
usage '--wait=1.5' 'resume --wait=1.5' "$ZK" $Z resume --wait=1.5
usage 'unknown option' 'resume -w' "$ZK" $Z resume -w

usage '-n: "0" is not a count' 'history -n 0' "$ZK" $Z history -n 0
usage '-n: "65"' 'history -n 65' "$ZK" $Z history -n 65
usage '-n: "x"' 'history -n x' "$ZK" $Z history -n x
usage 'option -n needs a value' 'history -n' "$ZK" $Z history -n
usage 'unexpected argument "3"' 'history 3' "$ZK" $Z history 3

usage 'is not SITE=PRIO' 'init --site dc1' "$ZK" $Z init --site dc1
usage 'bad site name' 'init --site =5' "$ZK" $Z init --site =5
usage 'PRIO is not an integer' 'init --site dc1=x' "$ZK" $Z init --site dc1=x
usage 'given twice' 'init --site twice' "$ZK" $Z init --site dc1=1 --site dc1=2
usage 'go together' 'init --operator-auth alone' "$ZK" $Z init --operator-auth /nonexistent
usage 'go together' 'init --member-auth alone' "$ZK" $Z init --member-auth /nonexistent
usage 'needs --operator-auth' 'init --no-world-read alone' "$ZK" $Z init --no-world-read
usage 'exclude each other' 'init --world-read --no-world-read' "$ZK" $Z init --world-read --no-world-read
usage 'not a valid policy name' 'init --policy bad' "$ZK" $Z init --policy 'no good'
usage 'option --policy needs a value' 'init --policy' "$ZK" $Z init --policy
usage 'takes no value' 'init --world-read=yes' "$ZK" $Z init --world-read=yes
usage '--expect: "0" is not a number of members from 1 to 10000' 'init --expect 0' "$ZK" $Z init --expect 0
usage '--expect: "10001"' 'init --expect 10001' "$ZK" $Z init --expect 10001
usage '--expect: "five"' 'init --expect five' "$ZK" $Z init --expect five
usage 'option --expect needs a value' 'init --expect' "$ZK" $Z init --expect
usage '--settle-ms: "3600001" is not a number of milliseconds from 0 to 3600000' 'init --settle-ms too long' \
    "$ZK" $Z init --settle-ms 3600001
usage '--settle-ms: "-1"' 'init --settle-ms -1' "$ZK" $Z init --settle-ms -1
usage '--settle-ms: "2s"' 'init --settle-ms 2s' "$ZK" $Z init --settle-ms 2s
usage '--failback-delay-ms: "86400001" is not a number of milliseconds from 0 to 86400000' \
    'init --failback-delay-ms too long' "$ZK" $Z init --failback-delay-ms 86400001
usage '--failback-delay-ms: "1.5"' 'init --failback-delay-ms 1.5' "$ZK" $Z init --failback-delay-ms=1.5
usage '--min-move-interval-ms: "86400001" is not a number of milliseconds from 0 to 86400000' \
    'init --min-move-interval-ms too long' "$ZK" $Z init --min-move-interval-ms 86400001
usage '--min-move-interval-ms: ""' 'init --min-move-interval-ms empty' "$ZK" $Z init --min-move-interval-ms=

# ---- hosts and credentials -----------------------------------------------------
usage 'no ZooKeeper hosts' 'missing hosts' "$ZK" status
usage 'ZKELECT_HOSTS' 'missing hosts names ZKELECT_HOSTS' "$ZK" leader
expect_err 1 'cannot connect to ZooKeeper at 127.0.0.1:1: connection refused by every server' \
    'nothing listens' "$ZK" -z 127.0.0.1:1 -t 500 status
expect_err 1 'cannot connect to ZooKeeper at 127.0.0.1:1' 'ZKELECT_HOSTS is used' \
    env ZKELECT_HOSTS=127.0.0.1:1 "$ZK" -t 500 leader

# A refused port fails in about a second, not after -t (10 s by default);
# measured on the monotonic clock (/proc/uptime, 10 ms steps).
uptime_ms() { read -r up _ < /proc/uptime; up=$(echo "$up" | tr -d .); echo $((up * 10)); }
t0=$(uptime_ms)
expect_err 1 'connection refused by every server (127.0.0.1:1: Connection refused' \
    'refused by both servers, default -t' "$ZK" -z 127.0.0.1:1,127.0.0.1:1/chroot status
t1=$(uptime_ms)
if [ $((t1 - t0)) -lt 2500 ]; then pass; else
    fail "refused port: failed after $((t1 - t0)) ms, not within about 1 s (bound 2500 ms)"; fi

# A server that accepts but never answers is slow, not absent: the normal -t
# wait, and the usual timeout message. (python3 holds the listener.)
if command -v python3 >/dev/null; then
    python3 -c '
import os, signal, socket, sys
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(8)
open(sys.argv[1] + ".tmp", "w").write(str(s.getsockname()[1]))
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
signal.pause()
' "$tmp/silent.port" > /dev/null 2>&1 &
    silent_pid=$!
    i=0
    while [ ! -s "$tmp/silent.port" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
    sport=$(cat "$tmp/silent.port" 2>/dev/null)
    t0=$(uptime_ms)
    expect_err 1 "cannot connect to ZooKeeper at 127.0.0.1:1,127.0.0.1:$sport within 1500 ms" \
        'one refused and one silent server: the whole -t' \
        "$ZK" -z "127.0.0.1:1,127.0.0.1:$sport" -t 1500 status
    t1=$(uptime_ms)
    if [ $((t1 - t0)) -ge 1500 ]; then pass; else
        fail "silent server: gave up after $((t1 - t0)) ms, before -t 1500"; fi
    kill "$silent_pid" 2>/dev/null
    wait "$silent_pid" 2>/dev/null
fi

printf 'admin:secret\n' >"$tmp/open.auth"
chmod 644 "$tmp/open.auth"
printf 'admin:secret\n' >"$tmp/ok.auth"
chmod 600 "$tmp/ok.auth"
printf 'no-colon-here\n' >"$tmp/bad.auth"
chmod 600 "$tmp/bad.auth"
printf 'admin:secret\nsecond line\n' >"$tmp/two.auth"
chmod 600 "$tmp/two.auth"
expect_err 1 'refused: mode 0644' '-a with a 0644 file' "$ZK" $Z -a "$tmp/open.auth" status
expect_err 1 'chmod 600' '-a 0644 says how to fix it' "$ZK" $Z -a "$tmp/open.auth" leader
expect_err 1 'refused: mode 0644' 'ZKELECT_AUTH_FILE with a 0644 file' \
    env ZKELECT_AUTH_FILE="$tmp/open.auth" "$ZK" $Z status
expect_err 1 'No such file' '-a with a missing file' "$ZK" $Z -a "$tmp/missing.auth" status
ln -s "$tmp/ok.auth" "$tmp/link.auth"
expect_err 1 'refused: a symbolic link' '-a with a symbolic link' "$ZK" $Z -a "$tmp/link.auth" status
expect_err 1 'not a regular file' '-a with a directory' "$ZK" $Z -a "$tmp" status
expect_err 1 'expected one line "user:password"' '-a without a colon' "$ZK" $Z -a "$tmp/bad.auth" status
expect_err 1 'expected one line' '-a with two lines' "$ZK" $Z -a "$tmp/two.auth" status
expect_err 1 'cannot connect' '-a with a good file goes on to connect' "$ZK" -z 127.0.0.1:1 -t 500 \
    -a "$tmp/ok.auth" status
expect_err 1 'refused: mode 0644' 'init --operator-auth 0644' "$ZK" $Z init \
    --operator-auth "$tmp/open.auth" --member-auth "$tmp/ok.auth"
# the secret never reaches the output
if grep -q secret "$tmp/err" "$tmp/out"; then fail "a secret was printed"; else pass; fi
# usage errors come before the auth file is read
usage 'unexpected argument' 'usage before auth' "$ZK" $Z -a "$tmp/open.auth" status extra

echo "test_cli_args: $passed passed, $failed failed"
[ "$failed" = 0 ]
