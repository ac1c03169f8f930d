#!/bin/sh
# test_cli_zk.sh - zkelect against a real ZooKeeper (tests/harness/zk-local)
# and groups of real library nodes (tests/cli/cli-helper): init with digest
# ACLs, status (text and --json), leader exit codes 0/3/4, set-site-priority
# --wait moving the leader (policy "site"), get-site-priority, switchover
# --to/--wait and its refusals, pause/resume, history, watch, --wait timing
# out (5) and refused by the elector (6), not-authorized writes, a group
# without world read, a missing group, malformed config from a foreign client.
#
# Run by `make check` (ZKELECT_TOP_BUILDDIR set) or by hand:
#   ZKELECT_TOP_BUILDDIR=/path/to/build sh tests/cli/test_cli_zk.sh
# Prints "test_cli_zk: N passed, N failed" last; exits 1 on any failure.
# Everything it starts is stopped on every way out (trap).

top=${ZKELECT_TOP_BUILDDIR:-.}
ZKE="$top/src/cli/zkelect"
HELPER="$top/tests/cli/cli-helper"
ZKLOCAL="$top/tests/harness/zk-local"
: "${ZKELECT_POLICY_PATH:=$top/policies/.libs}"
export ZKELECT_POLICY_PATH
unset ZKELECT_HOSTS ZKELECT_PATH ZKELECT_AUTH_FILE ZKELECT_AUTH

name=test_cli_zk
passed=0 failed=0
for f in "$ZKE" "$HELPER" "$ZKLOCAL"; do
    [ -x "$f" ] || { echo "$name: $f not built"; echo "$name: 0 passed, 1 failed"; exit 1; }
done
command -v python3 >/dev/null || { echo "$name: python3 is needed"; echo "$name: 0 passed, 1 failed"; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/zkclizk.XXXXXX") || exit 1
zkpid="" helpers="" watchers=""

# Closing the FIFOs ends the helpers gracefully (their nodes resign).
stop_helpers() {
    exec 3>&- 4>&- 5>&-
    for p in $watchers; do kill -TERM "$p" 2>/dev/null; done
    watchers=""
    wait_helpers $helpers
    helpers=""
}
# wait_helpers, cleanup and the traps; pass, fail, now, sanitizer_check, z,
# expect, has, hasnot, pyjson
TOP_SRCDIR=${ZKELECT_TOP_SRCDIR:-$(sed -n 's/^abs_top_srcdir = //p' "$top/Makefile" 2>/dev/null)}
[ -n "$TOP_SRCDIR" ] || TOP_SRCDIR=$(cd "$(dirname "$0")/../.." && pwd)
[ -f "$TOP_SRCDIR/tests/cli/cli-lib.sh" ] || { echo "$name: $TOP_SRCDIR/tests/cli/cli-lib.sh not found (set ZKELECT_TOP_SRCDIR)"; echo "$name: 0 passed, 1 failed"; rm -rf "$tmp"; exit 1; }
. "$TOP_SRCDIR/tests/cli/cli-lib.sh"

finish() {
    stop_helpers
    sanitizer_check "$tmp"/nodes*.err "$tmp"/watch*.err
    echo "$name: $passed passed, $failed failed"
    [ "$failed" = 0 ] && exit 0
    exit 1
}


# wait_for DESCRIPTION SECONDS CMD...: poll CMD until it succeeds or the deadline
wait_for() {
    desc=$1 secs=$2
    shift 2
    deadline=$(($(now) + secs))
    while ! "$@" >/dev/null 2>&1; do
        if [ "$(now)" -ge "$deadline" ]; then
            fail "$desc: not within $secs s"
            return 1
        fi
        sleep 0.1
    done
    pass
    return 0
}

leader_is() {   # leader_is PATH ID [STATUS]
    "$ZKE" -z "$HOSTS" -p "$1" leader >"$tmp/lo" 2>/dev/null </dev/null
    set -- "$2" "${3:-READY}"
    read -r id st _ <"$tmp/lo" && [ "$id" = "$1" ] && [ "$st" = "$2" ]
}
leader_rc() {   # leader_rc PATH RC
    "$ZKE" -z "$HOSTS" -p "$1" leader >/dev/null 2>&1 </dev/null
    [ $? = "$2" ]
}

# start_nodes FD PATH AUTH WATCHDOG_MS SPEC...: a helper with library nodes, fed by FD
start_nodes() {
    fd=$1 path=$2 auth=$3 wd=$4
    shift 4
    mkfifo "$tmp/fifo$fd"
    if [ -n "$auth" ]; then
        "$HELPER" nodes -z "$HOSTS" -p "$path" -w "$wd" -a "$auth" "$@" <"$tmp/fifo$fd" >"$tmp/nodes$fd.out" 2>"$tmp/nodes$fd.err" &
    else
        "$HELPER" nodes -z "$HOSTS" -p "$path" -w "$wd" "$@" <"$tmp/fifo$fd" >"$tmp/nodes$fd.out" 2>"$tmp/nodes$fd.err" &
    fi
    helpers="$helpers $!"
    eval "exec $fd>\"\$tmp/fifo$fd\""
    wait_for "nodes of $path registered" 30 grep -q '^ready' "$tmp/nodes$fd.out"
}

# ---- ZooKeeper -----------------------------------------------------------------
"$ZKLOCAL" --no-stdin --hosts-file "$tmp/hosts" >"$tmp/zk.out" 2>&1 &
zkpid=$!
if ! wait_for "zk-local serving" 90 test -s "$tmp/hosts"; then
    cat "$tmp/zk.out"
    finish
fi
HOSTS=$(cat "$tmp/hosts")

umask 077
printf 'admin:secret\n' >"$tmp/op.auth"
printf 'member:pw\n' >"$tmp/mem.auth"
G=/t/g1

# ---- init with digest ACLs -----------------------------------------------------
expect 0 'init with ACLs' -p $G init --policy site --site dc1=100 --site dc2=50 \
    --operator-auth "$tmp/op.auth" --member-auth "$tmp/mem.auth"
has "$tmp/out" "^created /t \(ancestor\)" 'init creates the ancestor'
has "$tmp/out" "^created $G/config" 'init creates config'
has "$tmp/out" 'operator "admin" ALL; member "member" READ\|CREATE\|DELETE' 'init reports the ACLs'
hasnot "$tmp/out" 'secret|pw' 'init prints no secret'
expect 0 'init again (operator)' -a "$tmp/op.auth" -p $G init --policy site \
    --operator-auth "$tmp/op.auth" --member-auth "$tmp/mem.auth"
has "$tmp/out" "^exists  $G/config \(config\): left alone$" 'init is idempotent'
has "$tmp/out" '^nothing created' 'init says nothing was created'
expect 0 'init again, anonymous, --json' -p $G init --json
# ancestor, base, nodes, election, config, switchover (guards only with ACLs)
pyjson "$tmp/out" 'init --json' "d['created'] == 0 and len(d['znodes']) == 6 and not any(x['created'] for x in d['znodes'])"
expect 0 'get-site-priority after init' -p $G get-site-priority
has "$tmp/out" '^dc1 100$' 'init wrote site dc1'
has "$tmp/out" '^dc2 50$' 'init wrote site dc2'

# ---- a group of library nodes (member identity) ----------------------------------
start_nodes 3 $G "$tmp/mem.auth" 3000 n1:dc1:10 n2:dc2:10 n3:dc1:5 n4:dc2:1:i n5:dc2:1:u
wait_for 'first leader n1 READY' 30 leader_is $G n1
hasnot "$tmp/nodes3.err" 'cannot create|not authorized|NOAUTH' 'members work under the ACLs'

expect 0 'leader' -p $G leader
has "$tmp/out" '^n1 READY epoch [0-9]+ site dc1 since ' 'leader line'
expect 0 'leader --json' -p $G leader --json
pyjson "$tmp/out" 'leader --json' "d['id'] == 'n1' and d['status'] == 'READY' and d['epoch'] >= 1 and d['site'] == 'dc1'"
expect 0 'global --json' -p $G --json leader
pyjson "$tmp/out" 'global --json' "d['id'] == 'n1'"
if env ZKELECT_HOSTS="$HOSTS" ZKELECT_PATH=$G "$ZKE" leader >"$tmp/out" 2>"$tmp/err" </dev/null &&
    grep -q '^n1 READY' "$tmp/out"; then pass; else fail 'ZKELECT_HOSTS and ZKELECT_PATH are used'; fi

expect 0 'status' -p $G status
has "$tmp/out" '^leader: +n1 READY epoch' 'status shows the leader'
has "$tmp/out" '^n1 +dc1 +10 +leader +yes +yes +no +[0-9]{10} +test-host' 'status row of the leader'
has "$tmp/out" '^n4 +dc2 +1 +member +no +yes' 'status shows n4 ineligible'
has "$tmp/out" '^n5 +dc2 +1 +member +yes +no' 'status shows n5 unhealthy'
has "$tmp/out" '^sites: +dc1=100 dc2=50$' 'status shows the sites'
has "$tmp/out" '^paused: +no$' 'status shows paused'
has "$tmp/out" '^policy: +site' 'status shows the policy'
expect 0 'status --json' -p $G status --json
pyjson "$tmp/out" 'status --json leader' "d['leader']['id'] == 'n1' and d['leader']['status'] == 'READY' and d['leader']['epoch'] >= 1"
pyjson "$tmp/out" 'status --json members' "sorted(m['id'] for m in d['members']) == ['n1','n2','n3','n4','n5']"
pyjson "$tmp/out" 'status --json roles' "[m['role'] for m in d['members']].count('leader') == 1 and sum(1 for m in d['members'] if m['elector']) == 1 and d['elector'] in ['n1','n2','n3','n4','n5']"
pyjson "$tmp/out" 'status --json seq' "len(set(m['seq'] for m in d['members'])) == 5 and all(isinstance(m['seq'], int) for m in d['members'])"
pyjson "$tmp/out" 'status --json fields' "[(m['id'], m['site'], m['priority'], m['eligible'], m['healthy']) for m in d['members']] == [('n1','dc1',10,True,True),('n2','dc2',10,True,True),('n3','dc1',5,True,True),('n4','dc2',1,False,True),('n5','dc2',1,True,False)]"
pyjson "$tmp/out" 'status --json config' "d['sites'] == {'dc1': 100, 'dc2': 50} and d['paused'] is False and d['policy'] == 'site' and d['elected']['leader'] == 'n1' and d['errors'] == []"

# ---- not authorized ----------------------------------------------------------------
expect 1 'anonymous set-site-priority' -p $G set-site-priority dc2 200
has "$tmp/err" "cannot write $G/config: not authorized" 'anonymous write names the znode'
expect 1 'member set-site-priority' -a "$tmp/mem.auth" -p $G set-site-priority dc2 200
has "$tmp/err" 'user "member" of .* lacks the permission' 'member write refused'
expect 1 'anonymous switchover' -p $G switchover --to n2
# init created the switchover znode (operator only): the request is a write to it
has "$tmp/err" "cannot write $G/switchover: not authorized" 'anonymous switchover refused'

# ---- watch (text and JSON) in the background -----------------------------------------
timeout -k 30 120 "$ZKE" -z "$HOSTS" -p $G watch >"$tmp/watch.out" 2>"$tmp/watch.err" </dev/null &
wpid=$!
timeout -k 30 120 "$ZKE" -z "$HOSTS" -p $G --json watch >"$tmp/watchj.out" 2>"$tmp/watchj.err" </dev/null &
wjpid=$!
watchers="$wpid $wjpid"
wait_for 'watch shows the current leader' 20 grep -q ' leader n1 READY epoch' "$tmp/watch.out"
wait_for 'watch --json shows the current state' 20 grep -q '"event":"member"' "$tmp/watchj.out"

# ---- set-site-priority --wait moves the leader ----------------------------------------
O="-a $tmp/op.auth -p $G"
expect 0 'set-site-priority dc2 200 --wait' $O set-site-priority dc2 200 --wait=30
has "$tmp/out" '^site dc2: priority 200 \(was 50\); config version [0-9]+$' 'set-site-priority reports the change'
has "$tmp/out" '^n2 READY epoch [0-9]+ site dc2' 'set-site-priority --wait prints the new leader'
wait_for 'leader is n2' 5 leader_is $G n2
wait_for 'watch shows n2 READY' 20 grep -q ' leader n2 READY epoch' "$tmp/watch.out"
has "$tmp/watch.out" ' elected n2 epoch [0-9]+ by ' 'watch shows the decision'
expect 0 'get-site-priority dc2' -p $G get-site-priority dc2
has "$tmp/out" '^dc2 200$' 'get-site-priority dc2'
expect 0 'get-site-priority unlisted' -p $G get-site-priority dc9
has "$tmp/out" '^dc9 0 \(not listed' 'get-site-priority of an unlisted site'
expect 0 'get-site-priority --json' -p $G get-site-priority --json
pyjson "$tmp/out" 'get-site-priority --json' "d['sites'] == {'dc1': 100, 'dc2': 200}"
expect 0 'set-site-priority --json (no wait)' $O set-site-priority dc3 -5 --json
pyjson "$tmp/out" 'set-site-priority --json' "d['site'] == 'dc3' and d['priority'] == -5 and d['previous'] is None"
if env ZKELECT_AUTH_FILE="$tmp/op.auth" "$ZKE" -z "$HOSTS" -p $G set-site-priority dc3 -4 \
    >"$tmp/out" 2>"$tmp/err" </dev/null && grep -q '^site dc3: priority -4 (was -5)' "$tmp/out"; then
    pass; else fail 'ZKELECT_AUTH_FILE is used for writes'; fi

# ---- switchover ---------------------------------------------------------------------
expect 0 'switchover --to n3 --wait' $O switchover --to n3 --wait=30
has "$tmp/out" '^switchover [0-9]+ requested: n2 -> n3$' 'switchover request line'
has "$tmp/out" '^n3 READY epoch [0-9]+ site dc1' 'switchover --wait prints n3'
wait_for 'watch shows n3 READY' 20 grep -q ' leader n3 READY epoch' "$tmp/watch.out"
expect 6 'switchover to an ineligible node' $O switchover --to n4
has "$tmp/err" 'refused: n4 is not eligible' 'ineligible refused'
expect 6 'switchover to an unhealthy node' $O switchover --to n5 --wait=5
has "$tmp/err" 'refused: n5 is not healthy' 'unhealthy refused'
expect 6 'switchover to an unknown node' $O switchover --to nosuch
has "$tmp/err" 'refused: nosuch is not a member' 'unknown refused'
expect 6 'switchover to the leader' $O switchover --to n3
has "$tmp/err" 'refused: n3 is already the leader' 'current leader refused'
expect 2 'switchover to a bad id' $O switchover --to 'n 3'
expect 0 'switchover (any) --wait --json' $O switchover --wait=30 --json
pyjson "$tmp/out" 'switchover --json' "d['wait'] == 'ok' and d['from'] == 'n3' and d['to'] is None and d['leader']['id'] not in ('n3', None) and d['leader']['status'] == 'READY'"
# under the group's digest ACLs `elected` is the members': the operator's
# direct write is refused, and the request goes to the elector (PROTOCOL §4)
pyjson "$tmp/out" 'switchover (any) under ACLs goes to the elector' "d['direct'] is False and 'not authorized' in d['direct_refused']"
wait_for 'leader is n2 again' 5 leader_is $G n2
wait_for 'watch --json shows n3 READY' 20 grep -q '"event":"leader","leader":{"id":"n3","status":"READY"' "$tmp/watchj.out"
expect 0 'status after switchovers' -p $G status
has "$tmp/out" '^switchover: #[0-9]+ to any .*\(acted on\)$' 'status shows the switchover'

# ---- pause / resume -------------------------------------------------------------------
expect 0 'pause' $O pause
has "$tmp/out" '^elections paused; config version' 'pause output'
expect 0 'pause again' $O pause
has "$tmp/out" 'already paused' 'pause is idempotent'
expect 0 'status --json paused' -p $G status --json
pyjson "$tmp/out" 'paused in status' "d['paused'] is True"
expect 0 'set-site-priority while paused' $O set-site-priority dc1 300 --wait=30
has "$tmp/out" '^n2 READY' 'paused: the leader stays n2'
wait_for 'paused: leader still n2' 2 leader_is $G n2
expect 0 'resume --wait' $O resume --wait=30
has "$tmp/out" '^elections resumed' 'resume output'
has "$tmp/out" '^n1 READY epoch [0-9]+ site dc1' 'resume: the leader moves to n1'
wait_for 'leader is n1 after resume' 5 leader_is $G n1

# ---- history ------------------------------------------------------------------------
expect 0 'history' -p $G history
has "$tmp/out" '^TIME +EPOCH +LEADER +ELECTOR +POLICY +REASON$' 'history heading'
if [ "$(tail -n +2 "$tmp/out" | wc -l)" -ge 5 ]; then pass; else fail 'history has at least 5 decisions'; fi
if tail -n +2 "$tmp/out" | awk '{ if ($3 < last) bad = 1; last = $3 } END { exit bad }'; then
    pass; else fail 'history epochs never decrease (newest last)'; fi
tail -n 1 "$tmp/out" | grep -q ' n1 ' && pass || fail 'history ends with the n1 decision'
expect 0 'history --json' -p $G history --json
pyjson "$tmp/out" 'history --json' "len(d) >= 5 and d[-1]['leader'] == 'n1' and all(d[i]['epoch'] <= d[i+1]['epoch'] for i in range(len(d)-1)) and {'n2','n3'} <= set(e['leader'] for e in d)"
expect 0 'history -n 2 --json' -p $G history -n 2 --json
pyjson "$tmp/out" 'history -n 2' "len(d) == 2"

# ---- the elector refuses; no eligible node ----------------------------------------------
expect 0 'set-site-priority dc2 0' $O set-site-priority dc2 0 --wait=30
has "$tmp/out" '^n1 READY' 'n1 keeps leading'
expect 6 'switchover to a node on a site that never leads' $O switchover --to n2 --wait=30
has "$tmp/err" 'the elector refused switchover [0-9]+: .*dc2' 'elector refusal reason'
expect 6 'no node eligible after the change' $O set-site-priority dc1 0 --wait=30
has "$tmp/err" 'no node is eligible to lead' 'no eligible node message'
wait_for 'no leader: exit 3' 10 leader_rc $G 3
expect 3 'leader exit 3' -p $G leader
has "$tmp/out" '^no leader' 'no leader message'
expect 0 'set-site-priority back' $O set-site-priority dc1 100 --wait=30
has "$tmp/out" '^n1 READY' 'n1 leads again'

# ---- watch stops on SIGTERM with exit 0 ------------------------------------------------
term_wait $wpid watch
term_wait $wjpid 'watch --json'
watchers=""
if python3 -c '
import json, sys
for line in open(sys.argv[1]):
    json.loads(line)
' "$tmp/watchj.out"; then pass; else fail 'every watch --json line is JSON'; fi
has "$tmp/watch.out" ' member n1 present: site dc1 priority 10 eligible healthy' 'watch shows members'
has "$tmp/watch.out" ' config version [0-9]+: policy site, paused yes' 'watch shows the pause'
has "$tmp/watch.out" ' leader none' 'watch shows the leader gone'
if [ -s "$tmp/watch.err" ]; then fail "watch wrote to stderr: $(head -3 "$tmp/watch.err")"; else pass; fi

# ---- malformed config from a foreign client -----------------------------------------------
if "$HELPER" set -z "$HOSTS" -a "$tmp/op.auth" $G/config '{"v":1,"sites":{"dc1":"high"}}'; then
    pass; else fail 'plant a malformed config'; fi
expect 1 'status with a malformed config' -p $G status
has "$tmp/err" "malformed data: znode $G/config: config: field \"sites.dc1\"" 'status names the znode and the field'
has "$tmp/out" '^n1 +dc1 +10 ' 'status still shows the members'
expect 1 'status --json with a malformed config' -p $G status --json
pyjson "$tmp/out" 'status --json errors' "len(d['errors']) == 1 and '$G/config' in d['errors'][0] and len(d['members']) == 5"
expect 1 'set-site-priority over a malformed config' $O set-site-priority dc1 1
has "$tmp/err" 'refusing to overwrite a malformed config' 'malformed config is not overwritten'
expect 1 'get-site-priority with a malformed config' -p $G get-site-priority
"$HELPER" set -z "$HOSTS" -a "$tmp/op.auth" $G/config 'not json at all' && pass || fail 'plant garbage'
expect 1 'status with garbage config' -p $G status
has "$tmp/err" "znode $G/config: config: " 'garbage config reported'

# ---- a group without world read -----------------------------------------------------------
expect 0 'init --no-world-read' -p /g2 init --operator-auth "$tmp/op.auth" --member-auth "$tmp/mem.auth" --no-world-read
has "$tmp/out" 'world nothing' 'init --no-world-read reported'
expect 1 'anonymous status without world read' -p /g2 status
has "$tmp/err" 'cannot read /g2/[a-z]+: not authorized by its ACL \(no credentials given' 'anonymous read refused'
expect 0 'operator status without world read' -a "$tmp/op.auth" -p /g2 status
expect 0 'anonymous init on an existing group' -p /g2 init
has "$tmp/out" 'nothing created' 'anonymous init leaves /g2 alone'

# ---- missing group -----------------------------------------------------------------------
expect 1 'status of a missing group' -p /nosuch status
has "$tmp/err" 'group /nosuch does not exist .*run zkelect init' 'missing group message'
expect 1 'set-site-priority in a missing group' -p /nosuch set-site-priority dc1 1
expect 1 'switchover in a missing group' -p /nosuch switchover

# ---- exit 3, 4 and 5 in an open group --------------------------------------------------------
expect 0 'init open group' -p /g3 init --site dc1=10
has "$tmp/out" 'open \(world ALL\)' 'open ACLs reported'
expect 3 'leader of a group without members' -p /g3 leader
expect 5 '--wait without any elector' -p /g3 set-site-priority dc1 20 --wait=1
has "$tmp/err" 'timed out waiting for the elector to evaluate config version' 'timeout message'
# a takeover that never completes; the watchdog (60 s) does not interfere
start_nodes 4 /g3 "" 60000 h1:dc1:1:h
wait_for 'leader in PROGRESS: exit 4' 20 leader_rc /g3 4
expect 4 'leader exit 4' -p /g3 leader
has "$tmp/out" '^h1 PROGRESS epoch' 'PROGRESS leader line'
expect 0 'status during PROGRESS' -p /g3 status
has "$tmp/out" '^leader: +h1 PROGRESS' 'status shows PROGRESS'

# ---- malformed member record and election child from a foreign client ----------------
"$HELPER" set -z "$HOSTS" /g3/nodes/zz '{"v":1,"id":"zz"}' && pass || fail 'plant a malformed member'
"$HELPER" set -z "$HOSTS" /g3/election/garbage 'x' && pass || fail 'plant a foreign election child'
expect 1 'status with a malformed member' -p /g3 status
has "$tmp/err" 'malformed data: znode /g3/nodes/zz: member: ' 'malformed member named'
has "$tmp/err" 'znode /g3/election/garbage: not an <id>_<guid>_<sequence> name' 'foreign election child named'
has "$tmp/out" '^zz +malformed ' 'the malformed member has a row'
has "$tmp/out" '^h1 +dc1 +1 +leader ' 'the other members are still shown'
expect 1 'status --json with a malformed member' -p /g3 status --json
pyjson "$tmp/out" 'malformed member in JSON' "[m['valid'] for m in d['members'] if m['id'] == 'zz'] == [False] and len(d['errors']) == 2"
expect 4 'leader is unaffected by a malformed member' -p /g3 leader

finish
