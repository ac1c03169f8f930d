#!/bin/sh
# demo.sh - the live demo: a local ZooKeeper, five zkelectd daemons across two
# sites, and the story of a DR failover told with the CLI's own output.
#
#   sh tests/demo.sh [--ci] [--builddir DIR]
#
# Interactive (a terminal): it pauses between steps. --ci (or no terminal):
# no pauses, every step is checked, and the last line is
# "demo: N passed, N failed". Everything it starts is stopped on exit, Ctrl-C
# included. Run it from a build directory (the quickstart does).
set -u

ci=0
builddir=$(pwd)
while [ $# -gt 0 ]; do
    case "$1" in
        --ci) ci=1 ;;
        --builddir) shift; builddir=$1 ;;
        -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
        *) echo "demo.sh: unknown option $1" >&2; exit 2 ;;
    esac
    shift
done
[ -t 0 ] && [ -t 1 ] || ci=1

ZKELECTD=$builddir/src/daemon/zkelectd
ZKELECT=$builddir/src/cli/zkelect
ZKLOCAL=$builddir/tests/harness/zk-local
for b in "$ZKELECTD" "$ZKELECT" "$ZKLOCAL"; do
    [ -x "$b" ] || { echo "demo.sh: $b is missing: build first (make)" >&2; exit 1; }
done
ZKELECT_POLICY_PATH=$builddir/policies/.libs
export ZKELECT_POLICY_PATH

tmp=$(mktemp -d "${TMPDIR:-/tmp}/zkelect-demo.XXXXXX")
zkpid=""
passed=0
failed=0

cleanup() {
    trap - EXIT INT TERM
    for f in "$tmp"/*.pid; do
        [ -f "$f" ] && kill -TERM "$(cat "$f")" 2>/dev/null
    done
    # give the daemons their graceful exit, bounded
    i=0
    while [ $i -lt 50 ]; do
        alive=0
        for f in "$tmp"/*.pid; do
            [ -f "$f" ] && kill -0 "$(cat "$f")" 2>/dev/null && alive=1
        done
        [ $alive = 0 ] && break
        i=$((i + 1))
        sleep 0.1 # bounded wait for processes to exit, not synchronization
    done
    for f in "$tmp"/*.pid; do
        [ -f "$f" ] && kill -KILL "$(cat "$f")" 2>/dev/null
    done
    [ -n "$zkpid" ] && kill -TERM "$zkpid" 2>/dev/null && wait "$zkpid" 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

say() {
    if [ $ci = 1 ]; then printf '\n== %s\n' "$*"; else printf '\n\033[1m== %s\033[0m\n' "$*"; fi
}
run() { printf '$ %s\n' "$*"; "$@"; }
pause() {
    [ $ci = 1 ] && return 0
    printf '\n(press Enter to continue)'
    read -r _ || true
}
check() { # check DESCRIPTION COMMAND...
    d=$1; shift
    if "$@"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "demo: FAILED: $d" >&2; fi
}
# a monotonic clock in ms (/proc/uptime, 10 ms steps): deadlines never move
# with the wall clock
now_ms() { awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime; }
# wait_until TIMEOUT_S COMMAND...: poll a condition with a deadline
wait_until() {
    t=$1; shift
    end=$(($(now_ms) + t * 1000))
    while ! "$@" >/dev/null 2>&1; do
        [ "$(now_ms)" -ge "$end" ] && return 1
        sleep 0.1 # polling interval of a deadline wait
    done
    return 0
}
leader_id() { "$ZKELECT" leader 2>/dev/null | awk 'NR == 1 { print $1 }'; }
leader_is() { [ "$(leader_id)" = "$1" ] && "$ZKELECT" leader >/dev/null 2>&1; }
leader_ready() { "$ZKELECT" leader >/dev/null 2>&1; }
leader_not() { id=$(leader_id); [ -n "$id" ] && [ "$id" != "$1" ] && "$ZKELECT" leader >/dev/null 2>&1; }
site_of() { case "$1" in n1|n2|n3) echo dc1 ;; *) echo dc2 ;; esac; }

# ---------------------------------------------------------------------------
say "1. A local ZooKeeper (a throwaway server on a free port of 127.0.0.1)"
"$ZKLOCAL" --no-stdin --hosts-file "$tmp/hosts" >"$tmp/zk.out" 2>&1 &
zkpid=$!
if ! wait_until 60 test -s "$tmp/hosts"; then
    echo "demo.sh: ZooKeeper did not start:" >&2
    cat "$tmp/zk.out" >&2
    exit 1
fi
ZKELECT_HOSTS=$(cat "$tmp/hosts")
ZKELECT_PATH=/demo
export ZKELECT_HOSTS ZKELECT_PATH
echo "ZooKeeper serving at $ZKELECT_HOSTS; the group lives under $ZKELECT_PATH"

say "2. Create the group with the site policy (no site has a priority yet)"
run "$ZKELECT" init --policy site
check "init" test $? = 0
pause

say "3. Five nodes: n1 n2 n3 in dc1, n4 n5 in dc2; each runs zkelectd"
cat >"$tmp/takeover" <<'EOF'
#!/bin/sh
echo "[hook] $ZKELECT_NODE_ID takes over at epoch $ZKELECT_EPOCH (previous leader: ${ZKELECT_PREVIOUS:-none}; $ZKELECT_REASON)" >>"$ZKELECT_DEMO_LOG"
EOF
chmod +x "$tmp/takeover"
ZKELECT_DEMO_LOG=$tmp/hooks.log
export ZKELECT_DEMO_LOG
: >"$ZKELECT_DEMO_LOG"
for n in n1 n2 n3 n4 n5; do
    case $n in n1|n4) prio=30 ;; n2|n5) prio=20 ;; *) prio=10 ;; esac
    cat >"$tmp/$n.ini" <<EOF
[zookeeper]
hosts = $ZKELECT_HOSTS
session_timeout_ms = 4000
[cluster]
path = $ZKELECT_PATH
[node]
id = $n
site = $(site_of $n)
priority = $prio
state_dir = $tmp
[election]
policy = site
watchdog_ms = 3000
exclude_ms = 20000
[hooks]
takeover = $tmp/takeover
timeout_ms = 5000
[log]
level = notice
EOF
    "$ZKELECTD" -f -c "$tmp/$n.ini" >"$tmp/$n.log" 2>&1 &
    echo $! >"$tmp/$n.pid"
    echo "started zkelectd for $n (site $(site_of $n), priority $prio), pid $!"
done
members() { "$ZKELECT" status 2>/dev/null | grep -c '^n[1-5] '; }
all_joined() { [ "$(members)" = 5 ]; }
wait_until 30 all_joined
check "all five nodes registered" all_joined
echo
echo "Every node has joined, but no site has a priority, so no node may lead:"
run "$ZKELECT" leader
check "no leader before the sites are configured (exit 3)" test $? = 3
pause

say "4. The operator gives dc1 (the primary site) priority 100 and dc2 (the DR site) 50"
run "$ZKELECT" set-site-priority dc1 100 --wait=30
check "a READY leader after the sites are configured" leader_ready
run "$ZKELECT" set-site-priority dc2 50 --wait=30
run "$ZKELECT" status
pause

say "5. Who leads, and why"
run "$ZKELECT" leader
check "the leader is n1 (best site, best priority)" leader_is n1
run "$ZKELECT" history -n 1
cat "$ZKELECT_DEMO_LOG"
pause

say "6. The leader's machine dies (kill -9 of n1's zkelectd)"
first=$(leader_id)
t0=$(now_ms)
kill -KILL "$(cat "$tmp/$first.pid")"
rm -f "$tmp/$first.pid"
echo "killed $first; ZooKeeper expires its session after the 4 s session timeout"
wait_until 30 leader_not "$first"
t1=$(now_ms)
check "a new leader after the crash" leader_not "$first"
run "$ZKELECT" leader
echo "new leader READY $((t1 - t0)) ms after the kill"
check "the new leader is n2 (same site, next priority)" leader_is n2
pause

say "7. The operator moves leadership to the DR site: zkelect set-site-priority dc2 200 --wait"
run "$ZKELECT" set-site-priority dc2 200 --wait=30
check "set-site-priority --wait succeeded" test $? = 0
check "the leader is now n4 (dc2, best priority)" leader_is n4
run "$ZKELECT" status
pause

say "8. Maintenance of n4: the operator drains it for 10 minutes (it hands over gracefully)"
run "$ZKELECT" drain n4 --for 10m --reason "kernel upgrade" --wait=30
check "drain --wait succeeded" test $? = 0
check "the leader is now n5 (dc2, the next priority)" leader_is n5
run "$ZKELECT" status
run "$ZKELECT" undrain n4 --wait=30
check "undrain --wait succeeded" test $? = 0
check "n5 keeps leading after the undrain (preempt is off)" leader_is n5
pause

say "9. Back to the primary site's best node: zkelect switchover --site dc1 --wait"
run "$ZKELECT" switchover --site dc1 --wait=30
check "switchover --site --wait succeeded" test $? = 0
check "the leader is n2 (the best node of dc1 left)" leader_is n2
pause

say "10. The history of decisions"
run "$ZKELECT" history
echo
echo "Takeover hooks that ran:"
cat "$ZKELECT_DEMO_LOG"

say "Done: everything this demo started is being stopped"
echo "demo: $passed passed, $failed failed"
[ $failed = 0 ]
