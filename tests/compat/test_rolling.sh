#!/bin/bash
# test_rolling.sh - a rolling upgrade (issue 17): the previous release's
# zkelectd and zkelect and this build's share one group with leaders = 1.
#
# The previous release is the commit named in tests/compat/PREVIOUS (bumped
# at each release). It is built from git (git archive, autoreconf, configure,
# make of the library, zkelectd, zkelect and the policies only) in a
# temporary directory and installed into tests/compat/prev-<hash> under the
# build directory, which later runs reuse. Without a git checkout of the
# source (a release tarball: make distcheck) or without that commit, the test
# is skipped (77) and says why.
#
# On a standalone ZooKeeper (zk-local), group /compat, policy nodeid (the
# lowest id leads), elections start once 4 members are in (init --expect):
#   n1 n3  the previous release (old)      n2 n4  this build (new)
# registered in the order n3 n4 n2 n1, so the elector (the oldest
# registration) is old (n3) and then new (n4):
#   1. n1 leads (elected by n3)
#   2. set-leaders 2 is refused while old daemons are members, naming n1, n3
#   3. SIGTERM n1   -> n2 leads   (old elector n3 elects a new node)
#   4. kill -9 n2   -> n3 leads   (n3 elects itself)
#   5. kill -9 n3   -> n4 leads   (n4 the elector once n3's session expired)
#   6. n1 back; the old CLI's switchover --to n1 -> n1 leads (new elector
#      n4 reads the old CLI's request and elects an old node)
#   7. set-leaders 2 is refused naming n1 alone
#   8. SIGTERM n1   -> n4 leads
# After every step: the old and the new CLI print the same `leader` and
# `history`, and the old CLI's `status` decodes everything (elected,
# leader, history and member records written by either release). Over
# steps 1-8, from the hooks' own stamps: never two services active at once
# (zke-service-check), and from the event logs never two READY leaders,
# epochs increasing (dr-events).
#   9. n2 back, all members new: set-leaders 2 is accepted and two actives
#      (n4 slot 0, n2 slot 1) come up; the old CLI still shows slot 0
#  10. an old CLI's config write (set-site-priority) drops "leaders": N is
#      1 again and slot 1 is released (doc/OPERATIONS.md warns of it)
#
# Prints "test_rolling: N passed, N failed" last; exits 1 on any failure,
# 77 when skipped. Run by `make check`, or by hand from a build directory:
# tests/compat/test_rolling.sh. COMPAT_TEST_KEEP=1 keeps the work directory.
set -u

NAME=test_rolling
TOP_BUILDDIR=${ZKELECT_TOP_BUILDDIR:-$(pwd)}
TOP_SRCDIR=${ZKELECT_TOP_SRCDIR:-$(sed -n 's/^abs_top_srcdir = //p' "$TOP_BUILDDIR/Makefile" 2>/dev/null)}
[ -n "$TOP_SRCDIR" ] || TOP_SRCDIR=$(cd "$(dirname "$0")/../.." && pwd)
ZKELECTD=$TOP_BUILDDIR/src/daemon/zkelectd
ZKELECT=$TOP_BUILDDIR/src/cli/zkelect
ZKLOCAL=$TOP_BUILDDIR/tests/harness/zk-local
DREV=$TOP_BUILDDIR/tests/dr/dr-events
MONO=$TOP_BUILDDIR/tests/harness/zke-mono
SVCCHECK=$TOP_BUILDDIR/tests/harness/zke-service-check
export ZKELECT_POLICY_PATH=${ZKELECT_POLICY_PATH:-$TOP_BUILDDIR/policies/.libs}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$TOP_SRCDIR/tests/lsan.supp:print_suppressions=0}

SESSION_MS=2000                         # [zookeeper] session_timeout_ms
WATCHDOG_MS=4000                        # [election] watchdog_ms
WAIT_MS=20000                           # generous deadline for "eventually"
TEST_DEADLINE_S=280                     # the whole file, the build included
GROUP=/compat

passed=0
failed=0
zk_pid=
guard_pid=
build_pid=
build_tmp=
declare -A pid port                     # node -> daemon pid / HTTP port

. "$TOP_SRCDIR/tests/lib.sh"         # now_ms, ok, nok, check, wait_until, pick_port, finish
. "$TOP_SRCDIR/tests/daemon-lib.sh"  # alive, http, leaders, start_nodes, kill9, stop_all,
                                     # zk_start, zk_stop, check_service

log() { echo "$NAME: $*"; }

skip() {
    echo "$NAME: SKIP: $*"
    exit 77
}

# ---------------------------------------------------------------------------
# The previous release, built from git once per hash
# ---------------------------------------------------------------------------

PREV_FILE=$TOP_SRCDIR/tests/compat/PREVIOUS
[ -r "$PREV_FILE" ] || { echo "$NAME: cannot read $PREV_FILE"; exit 1; }
PREV=$(grep -v '^#' "$PREV_FILE" | tr -d ' \t' | grep -v '^$' | head -n 1)
if ! printf '%s\n' "$PREV" | grep -qx '[0-9a-f]\{40\}'; then
    echo "$NAME: $PREV_FILE: \"$PREV\" is not a full commit hash (40 hex digits)"
    exit 1
fi
OLD=$TOP_BUILDDIR/tests/compat/prev-$PREV   # its install prefix, and the cache
OLD_ZKELECTD=$OLD/sbin/zkelectd
OLD_ZKELECT=$OLD/bin/zkelect
OLD_POLICIES=$OLD/lib/zkelect/policies

# build_previous LOG: git archive of $PREV into a temporary directory, then
# autoreconf, configure --prefix=$OLD, make install of the library, zkelectd,
# zkelect and the policies into a staging directory next to $OLD, renamed to
# $OLD at the end (so $OLD is complete or absent; a concurrent run's rename
# loses and uses the winner's). Installed, the programs find their library
# and policies by their paths (RUNPATH, the compiled-in policy directory).
build_previous() {
    local src=$build_tmp/src bld=$build_tmp/build stage
    mkdir -p "$src" "$bld" "$TOP_BUILDDIR/tests/compat" || return 1
    stage=$(mktemp -d "$TOP_BUILDDIR/tests/compat/.stage.XXXXXX") || return 1
    echo "$stage" > "$build_tmp/stage"     # for cleanup, if the build is stopped
    git -C "$TOP_SRCDIR" archive --format=tar "$PREV" | tar -x -C "$src" || return 1
    (cd "$src" && autoreconf -fi) || return 1
    # the make that runs this test passes its jobserver: the build has its own -j2
    (cd "$bld" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
        "$src/configure" --prefix="$OLD" --disable-dependency-tracking &&
     env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -j2 DESTDIR="$stage" \
        install-libLTLIBRARIES install-binPROGRAMS install-sbinPROGRAMS \
        install-policyLTLIBRARIES) || { rm -rf "$stage"; return 1; }
    echo "$PREV" > "$stage$OLD/BUILT"
    if ! mv -T "$stage$OLD" "$OLD" 2>/dev/null && [ ! -e "$OLD/BUILT" ]; then
        rm -rf "$stage"
        return 1
    fi
    rm -rf "$stage"
}

cleanup() {
    trap - EXIT INT TERM HUP
    [ -n "$build_pid" ] && kill -TERM -- "-$build_pid" 2>/dev/null
    kill_all_daemons
    zk_stop
    [ -n "$guard_pid" ] && kill "$guard_pid" 2>/dev/null
    if [ -n "$build_tmp" ]; then
        [ -f "$build_tmp/stage" ] && rm -rf "$(cat "$build_tmp/stage")"
        rm -rf "$build_tmp" "$build_tmp.log"
    fi
    if [ -n "${T:-}" ]; then
        if [ "${COMPAT_TEST_KEEP:-0}" = 1 ] || [ "$failed" -gt 0 ]; then
            for p in "$T"/*.log; do
                [ -f "$p" ] || continue
                echo "---- $p (last 30 lines)"
                tail -n 30 "$p"
            done
            [ "${COMPAT_TEST_KEEP:-0}" = 1 ] && echo "$NAME: kept $T"
        fi
        [ "${COMPAT_TEST_KEEP:-0}" = 1 ] || rm -rf "$T"
    fi
}

trap 'cleanup' EXIT
trap 'nok "interrupted"; finish' INT TERM HUP

# the whole test never runs longer than TEST_DEADLINE_S (tests/lib.sh)
deadline_guard

if [ -f "$OLD/BUILT" ]; then
    log "the previous release ($PREV) as built in $OLD by an earlier run"
else
    command -v git > /dev/null || skip "git is not installed: cannot build $PREV"
    top=$(git -C "$TOP_SRCDIR" rev-parse --show-toplevel 2>/dev/null)
    # a tarball unpacked inside some other checkout (distcheck's, in a build
    # directory of a clone) is no checkout of its own
    if [ -z "$top" ] || [ "$(cd "$top" && pwd -P)" != "$(cd "$TOP_SRCDIR" && pwd -P)" ]; then
        skip "$TOP_SRCDIR is not a git checkout (a release tarball?): cannot build the previous release $PREV"
    fi
    git -C "$TOP_SRCDIR" cat-file -e "$PREV^{commit}" 2>/dev/null ||
        skip "commit $PREV (tests/compat/PREVIOUS) is not in this clone (a shallow clone? git fetch --unshallow)"
    for p in autoreconf libtoolize make tar; do
        command -v "$p" > /dev/null || skip "$p is not installed: cannot build $PREV"
    done
    build_tmp=$(mktemp -d "${TMPDIR:-/tmp}/zkprev.XXXXXX") || exit 99
    log "building the previous release $PREV (git archive, autoreconf, configure, make -j2) in $build_tmp"
    t0=$(now_ms)
    # its own process group, so that the deadline's cleanup stops the whole build
    build_tmp=$build_tmp TOP_SRCDIR=$TOP_SRCDIR TOP_BUILDDIR=$TOP_BUILDDIR PREV=$PREV OLD=$OLD \
        setsid bash -c "$(declare -f build_previous); build_previous" > "$build_tmp.log" 2>&1 &
    build_pid=$!
    wait "$build_pid"
    rc=$?
    build_pid=
    if [ "$rc" != 0 ] || [ ! -f "$OLD/BUILT" ]; then
        tail -n 30 "$build_tmp.log"
        rm -f "$build_tmp.log"
        nok "building $PREV failed (exit $rc; the log's end above)"
        finish
    fi
    rm -f "$build_tmp.log"
    rm -rf "$build_tmp"
    build_tmp=
    ok "built the previous release $PREV in $(( ($(now_ms) - t0) / 1000 )) s into $OLD"
fi

T=$(mktemp -d "${TMPDIR:-/tmp}/zkcompat.XXXXXX") || exit 99
PH=$T                                   # daemon-lib: logs, exits, state files
chmod 0700 "$T"
: > "$PH/exits"
export SVC_LOG=$T/service.log
: > "$SVC_LOG"

for f in "$ZKELECTD" "$ZKELECT" "$ZKLOCAL" "$DREV" "$MONO" "$SVCCHECK" \
         "$OLD_ZKELECTD" "$OLD_ZKELECT" "$OLD_POLICIES/nodeid.so"; do
    if [ ! -x "$f" ] && [ ! -f "$f" ]; then
        nok "$f is not built"
        finish
    fi
done
command -v curl > /dev/null || { nok "curl is not installed"; finish; }

mono() { "$DREV" now; }       # CLOCK_MONOTONIC ms, the event logs' clock

# ---------------------------------------------------------------------------
# The two builds
# ---------------------------------------------------------------------------

build_of() { case $1 in n1|n3) echo old ;; *) echo new ;; esac; }

# The old programs run with an environment that cannot point them at this
# build's library (LD_LIBRARY_PATH outranks their RUNPATH) or policies.
oldenv() {
    env -u LD_LIBRARY_PATH -u LD_PRELOAD ZKELECT_POLICY_PATH="$OLD_POLICIES" "$@"
}

# The CLIs on the group; stdout in $T/<old|new>.out, stderr in .err.
oldcli() { oldenv "$OLD_ZKELECT" "$@" > "$T/old.out" 2> "$T/old.err" < /dev/null; }
newcli() { "$ZKELECT" "$@" > "$T/new.out" 2> "$T/new.err" < /dev/null; }

# The takeover hook stamps the service's start, the stepdown hook its end
# (tests/harness/svcint.h), each with its own CLOCK_MONOTONIC clock.
cat > "$T/takeover.sh" <<EOF
#!/bin/sh
echo "\$ZKELECT_NODE_ID start \$("$MONO") \${ZKELECT_EPOCH:--}" >> "\$SVC_LOG"
EOF
cat > "$T/stepdown.sh" <<EOF
#!/bin/sh
echo "\$ZKELECT_NODE_ID end \$("$MONO") \${ZKELECT_EPOCH:--}" >> "\$SVC_LOG"
EOF
chmod +x "$T/takeover.sh" "$T/stepdown.sh"

# write_config NODE (daemon-lib's launch_node calls it)
write_config() {
    local n=$1
    cat > "$PH/$n.ini" <<EOF
[zookeeper]
hosts = $HOSTS
session_timeout_ms = $SESSION_MS
connect_timeout_ms = 15000
[cluster]
path = $GROUP
[node]
id = $n
site = dc1
state_dir = $PH
[election]
policy = nodeid
watchdog_ms = $WATCHDOG_MS
[hooks]
takeover = $T/takeover.sh
stepdown = $T/stepdown.sh
timeout_ms = 5000
[http]
listen = ${port[$n]}
[log]
level = info
events = $PH/$n.events
EOF
}

# launch_node NODE: daemon-lib's, with the zkelectd of the node's release.
launch_node() {
    local n=$1
    [ -n "${port[$n]:-}" ] || pick_port "port[$n]"
    write_config "$n"
    if [ "$(build_of "$n")" = old ]; then
        # env itself, not the function oldenv: $! must be the daemon's pid
        env -u LD_LIBRARY_PATH -u LD_PRELOAD ZKELECT_POLICY_PATH="$OLD_POLICIES" \
            "$OLD_ZKELECTD" -f -c "$PH/$n.ini" >> "$PH/$n.log" 2>&1 &
    else
        "$ZKELECTD" -f -c "$PH/$n.ini" >> "$PH/$n.log" 2>&1 &
    fi
    pid[$n]=$!
}

# runs_old_library NODE: the daemon's process maps the previous release's
# libzkelect (an old node that loaded this build's library would prove
# nothing).
# (The maps name the file by its real path: the build directory's may not be.)
runs_old_library() {
    grep -qF " $(cd "$OLD/lib" && pwd -P)/libzkelect.so" "/proc/${pid[$1]}/maps"
}

# term NODE: SIGTERM (graceful: the leader runs its stepdown hook), reaped,
# its end recorded for dr-events.
term() {
    local n=$1
    kill -TERM "${pid[$n]}" 2>/dev/null
    if ! wait_until "$WAIT_MS" eval '! kill -0 "${pid[$n]}" 2>/dev/null'; then
        nok "$n did not exit within $WAIT_MS ms of SIGTERM"
        kill -KILL "${pid[$n]}" 2>/dev/null
    fi
    wait "${pid[$n]}" 2>/dev/null
    echo "$n $("$DREV" now)" >> "$PH/exits"
    unset "pid[$n]"
}

# both_lead NODE: the old and the new CLI's `leader` print the same line,
# "NODE READY epoch ...", and NODE is the one daemon whose /leader is 200.
both_lead() {
    oldcli leader && newcli leader || return 1
    cmp -s "$T/old.out" "$T/new.out" || return 1
    grep -q "^$1 READY epoch " "$T/new.out" || return 1
    [ "$(leaders)" = "$1" ]
}

# The first +ready of NODE at or after MONO_MS, from its event log.
ready_ms() { "$DREV" list -n "$1" -a "$2" -E +ready "$PH"/*.events | awk 'NR == 1 { print $1 }'; }

# lists_members FILE: a status output lists every live daemon's node.
lists_members() {
    local n
    for n in "${!pid[@]}"; do
        grep -qE "^$n +dc1 " "$1" || return 1
    done
}

# agree STEP LEADER ELECTOR: what the old and the new CLI read of the group
# once LEADER leads, ELECTOR having decided it.
agree() {
    local step=$1 l=$2 e=$3 orc nrc
    oldcli leader
    orc=$?
    cp "$T/old.out" "$T/old.leader"
    newcli leader
    nrc=$?
    check "$step: zkelect leader, old and new CLI: exit 0 ($orc, $nrc), the same line ($(head -n 1 "$T/new.out"))" \
        eval '[ $orc = 0 ] && [ $nrc = 0 ] && cmp -s "$T/old.leader" "$T/new.out"'
    oldcli history
    orc=$?
    cp "$T/old.out" "$T/old.history"
    newcli history
    nrc=$?
    check "$step: zkelect history, old and new CLI: exit 0 ($orc, $nrc), the same output" \
        eval '[ $orc = 0 ] && [ $nrc = 0 ] && cmp -s "$T/old.history" "$T/new.out"'
    check "$step: history's newest entry: $l elected by $e ($(build_of "$e")), as both CLIs read it" \
        eval 'tail -n 1 "$T/new.out" | awk -v l="$l" -v e="$e" "{ exit !(\$4 == l && \$5 == e) }"'
    oldcli status
    orc=$?
    check "$step: the old CLI's status: exit 0 ($orc), leader $l READY, elector $e, nothing malformed" \
        eval '[ $orc = 0 ] && grep -q "^leader: *$l READY epoch" "$T/old.out" &&
              grep -q "^elector: *$e " "$T/old.out" && ! grep -qi "malformed" "$T/old.out" "$T/old.err"'
    check "$step: the old CLI's status lists every live member" lists_members "$T/old.out"
    newcli status
    nrc=$?
    check "$step: the new CLI's status: exit 0 ($nrc), leader $l READY, elector $e, nothing malformed" \
        eval '[ $nrc = 0 ] && grep -q "^leader: *$l READY epoch" "$T/new.out" &&
              grep -q "^elector: *$e " "$T/new.out" && ! grep -qi "malformed" "$T/new.out" "$T/new.err"'
    check "$step: the new CLI's status lists every live member" lists_members "$T/new.out"
}

# handover STEP HOW FROM TO ELECTOR: stop FROM (term or kill9); TO leads,
# elected by ELECTOR; the CLIs agree.
handover() {
    local step=$1 how=$2 from=$3 to=$4 e=$5 t0 tr
    log "$step: $how $from ($(build_of "$from")) -> $to ($(build_of "$to")) leads, elector $e ($(build_of "$e"))"
    t0=$(mono)
    if [ "$how" = kill9 ]; then kill9 "$from"; else term "$from"; fi
    check "$step: $to ($(build_of "$to")) is the one leader, the same for the old and the new CLI" \
        wait_until $((SESSION_MS + WAIT_MS)) both_lead "$to"
    tr=$(ready_ms "$to" "$t0")
    log "$step: $to READY $(( ${tr:-$t0} - t0 )) ms after the $how of $from"
    agree "$step" "$to" "$e"
}

# set_leaders_refused STEP OLD...: the new CLI refuses set-leaders 2 and
# names exactly these members; the config keeps N = 1.
set_leaders_refused() {
    local step=$1 rc want
    shift
    newcli set-leaders 2
    rc=$?
    want="refused: $# member$([ $# -gt 1 ] && echo s) of $GROUP cannot serve 2 leaders: "
    check "$step: set-leaders 2 refused (exit 6, $rc): $(head -n 1 "$T/new.err")" \
        eval '[ $rc = 6 ] && grep -qF "$want" "$T/new.err"'
    for n in "$@"; do
        check "$step: the refusal names $n (old: at most 1 leader)" \
            grep -qE "[:,] $n \\(at most 1: a release without slots" "$T/new.err"
    done
    newcli leader
    check "$step: still one leader after the refusal" \
        eval '[ "$(wc -l < "$T/new.out")" = 1 ]'
}

# ---------------------------------------------------------------------------
# 1. Four daemons, two of each release
# ---------------------------------------------------------------------------
log "starting a standalone ZooKeeper"
if ! zk_start 1; then
    nok "zk-local did not start: $(tail -n 5 "$T/zk.log")"
    finish
fi
export ZKELECT_PATH=$GROUP
log "ZooKeeper at $HOSTS; group $GROUP"

newcli init --policy nodeid --expect 4 --settle-ms 60000
check "the new CLI's init --policy nodeid --expect 4" [ $? = 0 ]
oldcli status
check "the old CLI reads the new CLI's config (status exit 0, policy nodeid)" \
    eval '[ $? = 0 ] && grep -q "^policy: *nodeid" "$T/old.out"'

# one at a time: the registration order makes n3 the first elector
for n in n3 n4 n2 n1; do
    check "$n ($(build_of "$n")) starts and joins" start_nodes "$n"
done
for n in n1 n3; do
    check "$n runs the previous release's library ($OLD/lib)" runs_old_library "$n"
done
for n in n2 n4; do
    check "$n runs this build's library" eval '! runs_old_library "$n"'
done

log "1: the cold start (expect 4): the lowest id leads"
check "1: n1 (old) is the one leader, the same for the old and the new CLI" \
    wait_until "$WAIT_MS" both_lead n1
agree 1 n1 n3
newcli status
check "1: the new CLI reads the old daemons' member records (n1 n3 listed, not malformed)" \
    eval 'grep -qE "^n1 +dc1 " "$T/new.out" && grep -qE "^n3 +dc1 " "$T/new.out"'

set_leaders_refused 2 n1 n3

handover 3 term n1 n2 n3
handover 4 kill9 n2 n3 n3
handover 5 kill9 n3 n4 n4

log "6: n1 (old) back; the old CLI's switchover --to n1"
check "6: n1 (old) starts and joins" start_nodes n1
t0=$(mono)
oldcli switchover --to n1 --wait=30
rc=$?
check "6: the old CLI's switchover --to n1 --wait: exit 0 ($rc), n1 READY" \
    eval '[ $rc = 0 ] && grep -q "^n1 READY" "$T/old.out"'
check "6: n1 (old) is the one leader, the same for the old and the new CLI" \
    wait_until "$WAIT_MS" both_lead n1
tr=$(ready_ms n1 "$t0")
log "6: n1 READY $(( ${tr:-$t0} - t0 )) ms after the switchover request"
agree 6 n1 n4
check "6: history's newest entry (old CLI) says switchover to n1" \
    eval 'tail -n 1 "$T/old.history" | grep -q "switchover: switchover to n1"'

set_leaders_refused 7 n1

handover 8 term n1 n4 n4

# the one-leader part, as the hooks and the event logs saw it
log "1-8: the hooks' stamps and the event logs, one leader at a time"
mkdir -p "$T/n1phase"
cp "$SVC_LOG" "$PH/exits" "$T/n1phase/"
cp "$PH"/*.events "$T/n1phase/"
out=$("$SVCCHECK" "$T/n1phase/service.log" 2>&1)
rc=$?
printf '%s\n' "$out" | sed 's/^/    /'
check "1-8: never two services active at once ($(printf '%s\n' "$out" | grep '^service: .*intervals'))" \
    [ "$rc" = 0 ]
check "1-8: six services, one per leadership: n1 n2 n3 n4 n1 n4" \
    eval '[ "$(awk "\$2 == \"start\" { printf \"%s \", \$1 }" "$T/n1phase/service.log")" = "n1 n2 n3 n4 n1 n4 " ]'
out=$("$DREV" check -x "$T/n1phase/exits" "$T"/n1phase/*.events 2>&1)
rc=$?
printf '%s\n' "$out" | sed 's/^/    /'
check "1-8: never two READY leaders, +ready epochs increasing (old and new event logs)" [ "$rc" = 0 ]

# ---------------------------------------------------------------------------
# 9. Every member new: N = 2
# ---------------------------------------------------------------------------
log "9: n2 (new) back; every member is new: set-leaders 2"
check "9: n2 (new) starts and joins" start_nodes n2
t0=$(mono)
newcli set-leaders 2
rc=$?
check "9: set-leaders 2 accepted (exit 0, $rc): $(cat "$T/new.out")" \
    eval '[ $rc = 0 ] && grep -q "^leaders: 2 (was 1)" "$T/new.out"'
two_ready() {
    newcli leader || return 1
    [ "$(grep -c ' READY ' "$T/new.out")" = 2 ] && grep -q 'n4 READY' "$T/new.out" &&
        grep -q 'n2 READY' "$T/new.out"
}
check "9: two actives READY: n4 (slot 0) and n2 (slot 1): zkelect leader exits 0" \
    wait_until "$WAIT_MS" two_ready
sed 's/^/    /' "$T/new.out"
tr=$(ready_ms n2 "$t0")
log "9: n2 READY in slot 1 $(( ${tr:-$t0} - t0 )) ms after set-leaders"
check "9: both services active by the hooks' stamps (n4 and n2 started, not ended)" \
    eval '[ "$(awk "{ open[\$1] = (\$2 == \"start\") } END { for (n in open) if (open[n]) printf \"%s \", n }" "$SVC_LOG" |
              tr " " "\n" | sort | tr "\n" " ")" = "n2 n4 " ]'
oldcli leader
rc=$?
check "9: the old CLI's leader still reads slot 0: n4 READY (exit $rc)" \
    eval '[ $rc = 0 ] && grep -q "^n4 READY epoch" "$T/old.out"'
oldcli status
rc=$?
check "9: the old CLI's status decodes the N = 2 decision (exit $rc, leader n4, nothing malformed)" \
    eval '[ $rc = 0 ] && grep -q "^leader: *n4 READY" "$T/old.out" && ! grep -qi malformed "$T/old.out" "$T/old.err"'

# ---------------------------------------------------------------------------
# 9b. An old daemon joins the N = 2 group (COMPAT_OLD_JOINS=0 skips it)
# ---------------------------------------------------------------------------
# set-leaders checks the members only when it raises N. An old daemon that
# joins afterwards knows slot 0 only, so the elector must not name it in
# slot 1 (it gives no slot to a member whose max_leaders is below N). Before
# that rule the elector named it there, n1 never took the slot, and the
# watchdog fired every watchdog_ms without excluding it, a new epoch each
# time, for as long as no new member was there.
# hold_for MS COMMAND...: COMMAND keeps succeeding for MS, polled every
# 100 ms (an observation window, not a synchronization).
hold_for() {
    local end=$(( $(now_ms) + $1 ))
    shift
    while [ "$(now_ms)" -lt "$end" ]; do
        "$@" || return 1
        sleep 0.1
    done
    "$@"
}
n1_not_named() { newcli leader; ! grep -q 'n1 elected' "$T/new.out"; }
if [ "${COMPAT_OLD_JOINS:-1}" = 1 ]; then
    log "9b: n1 (old) joins the N = 2 group; kill -9 of n2 (slot 1)"
    check "9b: n1 (old) starts and joins" start_nodes n1
    t0=$(mono)
    kill9 n2
    check "9b: slot 1 is never given to n1 (old) within T + watchdog_ms + 1 s" \
        hold_for $((SESSION_MS + WATCHDOG_MS + 1000)) n1_not_named
    sed 's/^/    /' "$T/new.out"
    check "9b: no +watchdog since" \
        eval '[ -z "$("$DREV" list -a "$t0" -E +watchdog "$PH"/*.events)" ]'
    check "9b: n2 (new) starts again and joins" start_nodes n2
    check "9b: two actives READY again: n4 and n2" wait_until "$WAIT_MS" two_ready
fi

# ---------------------------------------------------------------------------
# 10. An old CLI's config write puts N back to 1 (doc/OPERATIONS.md)
# ---------------------------------------------------------------------------
log "10: the old CLI's set-site-priority rewrites the config without \"leaders\""
oldcli set-site-priority dc1 100
rc=$?
check "10: the old CLI's set-site-priority dc1 100: exit 0 ($rc)" [ $rc = 0 ]
one_ready() {
    newcli leader || return 1
    [ "$(wc -l < "$T/new.out")" = 1 ] && grep -q '^n4 READY' "$T/new.out"
}
check "10: N is 1 again: n4 alone leads, slot 1 released" wait_until "$WAIT_MS" one_ready
check "10: n2's service ended (its stepdown hook ran)" \
    wait_until "$WAIT_MS" eval '[ "$(awk "\$1 == \"n2\" { s = \$2 } END { print s }" "$SVC_LOG")" = end ]'

stop_all
check "no sanitizer report in any daemon log" eval '! grep -l "Sanitizer" "$PH"/*.log'
finish
