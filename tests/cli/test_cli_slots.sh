#!/bin/sh
# test_cli_slots.sh - issue 17's operator commands against a real ZooKeeper
# (tests/harness/zk-local): init --leaders, set-leaders (compare-and-set of
# the config, bad values, refused by a member that cannot serve N: an old
# record without max_leaders), switchover --from (the payload written and
# its refusals), what leader, status, watch and history show of slots, and
# `zkelect leader`'s exit codes (0 all READY, 7 some, 4 taking over, 3 none).
#
# Members, decisions and leader znodes are planted by a foreign client
# (cli-helper set/get/delete) with no elector running: what the CLI writes
# stays as written and what it shows does not depend on an elector's timing.
#
# Run by `make check` (ZKELECT_TOP_BUILDDIR set) or by hand:
#   ZKELECT_TOP_BUILDDIR=/path/to/build sh tests/cli/test_cli_slots.sh
# Prints "test_cli_slots: N passed, N failed" last; exits 1 on any failure.
# Everything it starts is stopped on every way out (trap).

top=${ZKELECT_TOP_BUILDDIR:-.}
ZKE="$top/src/cli/zkelect"
HELPER="$top/tests/cli/cli-helper"
ZKLOCAL="$top/tests/harness/zk-local"
unset ZKELECT_HOSTS ZKELECT_PATH ZKELECT_AUTH_FILE ZKELECT_AUTH

name=test_cli_slots
passed=0 failed=0
for f in "$ZKE" "$HELPER" "$ZKLOCAL"; do
    [ -x "$f" ] || { echo "$name: $f not built"; echo "$name: 0 passed, 1 failed"; exit 1; }
done
command -v python3 >/dev/null || { echo "$name: python3 is needed"; echo "$name: 0 passed, 1 failed"; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/zkclislots.XXXXXX") || exit 1
zkpid="" helpers=""

stop_helpers() { :; }   # no library nodes here
# wait_helpers, cleanup and the traps; pass, fail, now, sanitizer_check, z,
# expect, has, hasnot, pyjson
TOP_SRCDIR=${ZKELECT_TOP_SRCDIR:-$(sed -n 's/^abs_top_srcdir = //p' "$top/Makefile" 2>/dev/null)}
[ -n "$TOP_SRCDIR" ] || TOP_SRCDIR=$(cd "$(dirname "$0")/../.." && pwd)
[ -f "$TOP_SRCDIR/tests/cli/cli-lib.sh" ] || { echo "$name: $TOP_SRCDIR/tests/cli/cli-lib.sh not found (set ZKELECT_TOP_SRCDIR)"; echo "$name: 0 passed, 1 failed"; rm -rf "$tmp"; exit 1; }
. "$TOP_SRCDIR/tests/cli/cli-lib.sh"

finish() {
    echo "$name: $passed passed, $failed failed"
    [ "$failed" = 0 ] && exit 0
    exit 1
}

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

# plant PATH DATA: a foreign client writes DATA into PATH
plant() {
    if "$HELPER" set -z "$HOSTS" "$1" "$2"; then pass; else fail "plant $1"; fi
}
# unplant PATH: a foreign client deletes PATH
unplant() {
    if "$HELPER" delete -z "$HOSTS" "$1"; then pass; else fail "delete $1"; fi
}
# znode PATH: PATH's data into $tmp/znode (for pyjson and has)
znode() {
    "$HELPER" get -z "$HOSTS" "$1" >"$tmp/znode" 2>"$tmp/err" || fail "get $1"
}
G32=0123456789abcdef0123456789abcdef
# plant_member PATH ID SITE SEQ [EXTRA]: a registered member without a node
# behind it; EXTRA (",\"max_leaders\":16") absent = a release before slots
plant_member() {
    plant "$1/nodes/$2" "{\"v\":1,\"id\":\"$2\",\"site\":\"$3\",\"priority\":10,\"eligible\":true,\"healthy\":true$5}"
    plant "$1/election/$2_${G32}_000000000$4" ""
}
# plant_slot PATH K ID STATUS EPOCH: the leader znode of slot K
plant_slot() {
    if [ "$2" = 0 ]; then
        plant "$1/leader" "{\"v\":1,\"id\":\"$3\",\"status\":\"$4\",\"epoch\":$5,\"since_ms\":1795662000000}"
    else
        plant "$1/leader-$2" "{\"v\":1,\"id\":\"$3\",\"status\":\"$4\",\"epoch\":$5,\"since_ms\":1795662000000,\"slot\":$2}"
    fi
}
# plant_elected PATH LEADER EPOCH SLOTS-JSON: a decision (slot 0: LEADER)
plant_elected() {
    plant "$1/elected" "{\"v\":1,\"epoch\":$3,\"leader\":\"$2\",\"elector\":\"a1\",\"policy\":\"site\",\"reason\":\"planted\",\"excluded\":[],\"switchover_id\":0,\"config_version\":0$4}"
}
M16=',"max_leaders":16'

# ---- ZooKeeper -----------------------------------------------------------------
"$ZKLOCAL" --no-stdin --hosts-file "$tmp/hosts" >"$tmp/zk.out" 2>&1 &
zkpid=$!
if ! wait_for "zk-local serving" 90 test -s "$tmp/hosts"; then
    cat "$tmp/zk.out"
    finish
fi
HOSTS=$(cat "$tmp/hosts")

# ---- init --leaders ---------------------------------------------------------------
expect 0 'init --leaders 3' -p /i3 init --leaders 3 --site dc1=100
znode /i3/config
pyjson "$tmp/znode" 'init wrote leaders 3' "d['leaders'] == 3 and d['sites'] == {'dc1': 100}"
expect 0 'init without --leaders' -p /i1 init
znode /i1/config
has "$tmp/znode" '^\{"v":1,"policy":"","sites":\{\},"watchdog_ms":0,"exclude_ms":0,"options":\{\},"paused":false\}$' 'one leader: the config of releases before slots'
expect 0 'init --leaders 1' -p /i1b init --leaders 1
znode /i1b/config
hasnot "$tmp/znode" 'leaders' 'init --leaders 1 writes no key'
expect 0 'init --leaders 16' -p /i16 init --leaders 16
znode /i16/config
pyjson "$tmp/znode" 'init --leaders 16' "d['leaders'] == 16"
expect 0 'init --leaders on an existing group' -p /i3 init --leaders 5
has "$tmp/err" 'note: /i3/config exists: --leaders not applied' 'init says --leaders was not applied'
znode /i3/config
pyjson "$tmp/znode" 'existing config kept' "d['leaders'] == 3"
expect 2 'init --leaders 17' -p /i17 init --leaders 17
has "$tmp/err" '--leaders: "17" is not a number of leaders from 1 to 16' 'init --leaders 17 refused'

# ---- set-leaders ----------------------------------------------------------------------
K=/k
expect 0 'init /k' -p $K init --site dc1=100 --site dc2=50 --expect 2
plant_member $K a1 dc1 1 "$M16"
plant_member $K a2 dc2 2 ',"max_leaders":4'
expect 0 'set-leaders 3' -p $K set-leaders 3
has "$tmp/out" '^leaders: 3 \(was 1\); config version [0-9]+$' 'set-leaders output'
znode $K/config
pyjson "$tmp/znode" 'set-leaders kept the rest of the config' "d['leaders'] == 3 and d['sites'] == {'dc1': 100, 'dc2': 50} and d['expect'] == 2"
expect 0 'set-leaders 3 again --json' -p $K set-leaders 3 --json
pyjson "$tmp/out" 'set-leaders unchanged --json' "d['leaders'] == 3 and d['previous'] == 3 and d['changed'] is False"
expect 0 'set-leaders 3 again' -p $K set-leaders 3
has "$tmp/out" '^leaders: 3 \(unchanged\); config version [0-9]+$' 'set-leaders unchanged'
expect 6 'set-leaders 5 above a2 max_leaders 4' -p $K set-leaders 5
has "$tmp/err" 'refused: 1 member of /k cannot serve 5 leaders: a2 \(at most 4\); upgrade it or stop it first' 'a2 named'
hasnot "$tmp/err" 'a1' 'a1 (16) not named'
# an old member: its record has no max_leaders (a release before slots: 1)
plant_member $K a3 dc1 3 ""
expect 6 'set-leaders 4 with an old member' -p $K set-leaders 4
has "$tmp/err" 'refused: 1 member of /k cannot serve 4 leaders: a3 \(at most 1: a release without slots' 'old member named'
expect 6 'set-leaders 5 with both' -p $K set-leaders 5 --json
has "$tmp/err" 'refused: 2 members of /k cannot serve 5 leaders: a2 \(at most 4\), a3 \(at most 1' 'both named'
znode $K/config
pyjson "$tmp/znode" 'a refused set-leaders writes nothing' "d['leaders'] == 3"
expect 0 'set-leaders 1 with an old member' -p $K set-leaders 1 --json
pyjson "$tmp/out" 'set-leaders 1 --json' "d['leaders'] == 1 and d['previous'] == 3 and d['changed'] is True"
znode $K/config
hasnot "$tmp/znode" 'leaders' 'set-leaders 1 removes the key'
pyjson "$tmp/znode" 'set-leaders 1 kept the rest' "d['sites'] == {'dc1': 100, 'dc2': 50} and d['expect'] == 2"
plant "$K/nodes/a3" '{"v":1,"id":"a3","site":"dc1","priority":10,"eligible":true,"healthy":true,"max_leaders":0}'
expect 6 'set-leaders 2 with a malformed member record' -p $K set-leaders 2
has "$tmp/err" 'a3 \(member record malformed\)' 'malformed record named'
has "$tmp/err" 'malformed data: znode /k/nodes/a3: member: field "max_leaders"' 'the record problem shown'
plant "$K/nodes/a3" "{\"v\":1,\"id\":\"a3\",\"site\":\"dc1\",\"priority\":10,\"eligible\":true,\"healthy\":true$M16}"
expect 0 'set-leaders 4 once every member serves it' -p $K set-leaders 4
expect 2 'set-leaders 0' -p $K set-leaders 0
expect 2 'set-leaders 17' -p $K set-leaders 17
has "$tmp/err" 'N "17" is not a number of leaders from 1 to 16' 'set-leaders 17 refused'
expect 2 'set-leaders --force' -p $K set-leaders 2 --force
# compare-and-set: a malformed config is never overwritten
plant "$K/config" '{"v":1,"leaders":"3"}'
expect 1 'set-leaders over a malformed config' -p $K set-leaders 2
has "$tmp/err" 'refusing to overwrite a malformed config' 'malformed config kept'
znode $K/config
has "$tmp/znode" '"leaders":"3"' 'malformed config untouched'
plant "$K/config" '{"v":1,"sites":{"dc1":100}}'
# with no elector, --wait times out (exit 5) after writing
expect 5 'set-leaders 2 --wait=1 without an elector' -p $K set-leaders 2 --wait=1
has "$tmp/err" 'timed out waiting for the elector to evaluate config version' 'set-leaders --wait timeout'
expect 1 'set-leaders on a missing group' -p /nosuch set-leaders 2
has "$tmp/err" 'group /nosuch does not exist' 'set-leaders: missing group'

# ---- a planted group with three slots ---------------------------------------------------
S=/s
# planted, not init --leaders: what follows checks the display of slots alone
expect 0 'init /s' -p $S init --site dc1=100 --site dc2=50
plant "$S/config" '{"v":1,"sites":{"dc1":100,"dc2":50},"leaders":3}'
plant_member $S a1 dc1 1 "$M16"
plant_member $S a2 dc2 2 "$M16"
plant_member $S a3 dc1 3 "$M16"
plant_member $S a4 dc2 4 "$M16"
plant_elected $S a1 4 ',"slots":[{"slot":1,"leader":"a2","leader_site":"dc2","epoch":5},{"slot":2,"leader":null,"epoch":0}]'
plant_slot $S 0 a1 READY 4
plant_slot $S 1 a2 READY 5

# leader: slot 0 as before, then the slots; exit 7 (2 of 3 READY)
expect 7 'leader with 2 of 3 slots READY' -p $S leader
has "$tmp/out" '^a1 READY epoch 4 site dc1 since ' 'slot 0 line as before slots'
has "$tmp/out" '^slot 1: a2 READY epoch 5 site dc2 since ' 'slot 1 line'
has "$tmp/out" '^slot 2: none \(no node elected\)$' 'slot 2 empty'
has "$tmp/out" '^2 of 3 slots READY$' 'count of READY slots'
expect 7 'leader --json' -p $S leader --json
pyjson "$tmp/out" 'leader --json slots' "d['id'] == 'a1' and d['leaders'] == 3 and d['ready'] == 2 and [(s['slot'], s['id'], s['status'], s['epoch']) for s in d['slots']] == [(0, 'a1', 'READY', 4), (1, 'a2', 'READY', 5), (2, None, 'NONE', 0)] and d['slots'][1]['site'] == 'dc2' and d['slots'][1]['transition'] is False"
# the decision names a3 for slot 2, which is taking over
plant_elected $S a1 4 ',"slots":[{"slot":1,"leader":"a2","leader_site":"dc2","epoch":5},{"slot":2,"leader":"a3","epoch":6}]'
expect 7 'leader: slot 2 elected, no znode yet' -p $S leader
has "$tmp/out" '^slot 2: none \(a3 elected at epoch 6 is taking over\)$' 'slot 2 taking over'
plant_slot $S 2 a3 PROGRESS 6
expect 7 'leader: slot 2 PROGRESS' -p $S leader
has "$tmp/out" '^slot 2: a3 PROGRESS epoch 6 site dc1 since ' 'slot 2 PROGRESS line'
plant_slot $S 2 a3 READY 6
expect 0 'leader: all 3 slots READY' -p $S leader
has "$tmp/out" '^3 of 3 slots READY$' 'all READY count'
expect 0 'leader --json all READY' -p $S leader --json
pyjson "$tmp/out" 'all READY --json' "d['ready'] == 3 and [s['id'] for s in d['slots']] == ['a1', 'a2', 'a3']"
# the leader znode of slot 1 now names another node than the decision
plant_slot $S 1 a4 READY 3
expect 0 'leader: slot 1 in transition' -p $S leader
has "$tmp/out" '^slot 1: a4 READY epoch 3 site dc2 since .* - transition in progress: a2 elected at epoch 5$' 'slot transition shown'
plant_slot $S 1 a2 READY 5
# leader-2 that says it is slot 1: malformed, exit 1
plant "$S/leader-2" '{"v":1,"id":"a3","status":"READY","epoch":6,"slot":1}'
expect 1 'leader-2 naming slot 1' -p $S leader
has "$tmp/err" 'malformed data: znode /s/leader-2: the leader znode of slot 2 names slot 1' 'slot mismatch reported'
plant_slot $S 2 a3 READY 6

# status: the slots after slot 0, a SLOT column, JSON
expect 0 'status with slots' -p $S status
has "$tmp/out" '^leader: +a1 READY epoch 4 site dc1 since ' 'status slot 0 line'
has "$tmp/out" '^leaders: +3 \(3 of 3 slots READY\)$' 'status leaders line'
has "$tmp/out" '^slot 1: +a2 READY epoch 5 site dc2 since ' 'status slot 1'
has "$tmp/out" '^slot 2: +a3 READY epoch 6 site dc1 since ' 'status slot 2'
has "$tmp/out" '^ID +SITE +PRIO +ROLE +SLOT +ELIGIBLE ' 'status SLOT column'
has "$tmp/out" '^a2 +dc2 +10 +leader +1 +yes ' 'a2 leads slot 1'
has "$tmp/out" '^a4 +dc2 +10 +member +- +yes ' 'a4 holds no slot'
expect 0 'status --json with slots' -p $S status --json
pyjson "$tmp/out" 'status --json slots' "d['leaders'] == 3 and d['ready'] == 3 and [s['id'] for s in d['slots']] == ['a1', 'a2', 'a3'] and {m['id']: m['slot'] for m in d['members']} == {'a1': 0, 'a2': 1, 'a3': 2, 'a4': None} and [m['role'] for m in d['members']] == ['leader', 'leader', 'leader', 'member']"

# ---- switchover --from ------------------------------------------------------------------
expect 6 'switchover --from a node that is not a member' -p $S switchover --from a9
has "$tmp/err" 'refused: a9 holds no slot \(the decision of /s names it in none of its 3 slots\)' 'a9 named'
expect 6 'switchover --from a member that holds no slot' -p $S switchover --from a4
has "$tmp/err" 'refused: a4 holds no slot' 'a4 named'
expect 6 'switchover --from a2 --to a slot holder' -p $S switchover --from a2 --to a1
has "$tmp/err" 'refused: a1 already holds slot 0 \(a node holds at most one slot\)' 'target holding a slot refused'
expect 0 'switchover --from a2 --to a4' -p $S switchover --from a2 --to a4
has "$tmp/out" '^switchover 1 requested: a2 \(slot 1\) -> a4$' 'switchover --from output'
znode $S/switchover
pyjson "$tmp/znode" 'the request names from and to' "d['id'] == 1 and d['from'] == 'a2' and d['to'] == 'a4' and 'site' not in d and '@' in d['by']"
expect 0 'switchover --from a3 --json' -p $S switchover --from a3 --json
pyjson "$tmp/out" 'switchover --from --json' "d['id'] == 2 and d['from'] == 'a3' and d['slot'] == 2 and d['to'] is None"
znode $S/switchover
pyjson "$tmp/znode" 'from without to' "d['from'] == 'a3' and d['to'] is None"
expect 0 'status shows the from' -p $S status
has "$tmp/out" '^switchover: #2 from a3 to any at ' 'status: switchover from'
expect 0 'switchover --from a1 --site dc2' -p $S switchover --from a1 --site dc2
znode $S/switchover
pyjson "$tmp/znode" 'from with a site' "d['from'] == 'a1' and d['site'] == 'dc2' and d['to'] is None"
expect 6 'switchover --from a2 --site dc1: no free node' -p $S switchover --from a2 --site dc1
has "$tmp/err" 'refused: no node of site dc1 can lead \(2 registered; none eligible, healthy, not excluded, holding no slot and not drained\)' 'site without a free node'
expect 0 'switchover without --from' -p $S switchover --to a4
znode $S/switchover
pyjson "$tmp/znode" 'without --from: no from key (slot 0, as before slots)' "'from' not in d and d['to'] == 'a4'"
# with no elector, --wait for the slot times out
expect 5 'switchover --from --wait=1 without an elector' -p $S switchover --from a2 --wait=1
has "$tmp/err" 'timed out waiting for the elector to act on switchover' 'switchover --from --wait timeout'

# ---- leader exit codes on a group of two slots ------------------------------------------
N=/n
expect 0 'init /n' -p $N init
plant "$N/config" '{"v":1,"leaders":2}'
expect 3 'leader: no slot has a leader' -p $N leader
has "$tmp/out" '^no leader$' 'no leader line'
has "$tmp/out" '^slot 1: none \(no node elected\)$' 'slot 1 none'
has "$tmp/out" '^0 of 2 slots READY$' 'none READY'
plant_slot $N 1 b2 PROGRESS 2
expect 4 'leader: only slot 1, taking over' -p $N leader
plant_slot $N 0 b1 READY 1
expect 7 'leader: slot 0 READY, slot 1 PROGRESS' -p $N leader
plant_slot $N 1 b2 READY 2
expect 0 'leader: both READY' -p $N leader
unplant $N/leader
expect 7 'leader: slot 1 READY, slot 0 gone' -p $N leader
has "$tmp/out" '^no leader$' 'slot 0: no leader'
has "$tmp/out" '^1 of 2 slots READY$' 'one of two'
# back to one leader: leader-1 is no longer read, today's codes
expect 0 'set-leaders 1 on /n' -p $N set-leaders 1
expect 3 'leader with N = 1 and no leader' -p $N leader
hasnot "$tmp/out" 'slot' 'N = 1: no slot lines'

# ---- one leader: the output of releases before slots -----------------------------------
O=/one
expect 0 'init /one' -p $O init --site dc1=100
plant_member $O c1 dc1 1 "$M16"
plant_elected $O c1 2 ''
plant_slot $O 0 c1 READY 2
expect 0 'N = 1 leader' -p $O leader
if [ "$(wc -l <"$tmp/out")" -eq 1 ]; then pass; else fail 'N = 1 leader prints one line'; fi
has "$tmp/out" '^c1 READY epoch 2 site dc1 since ' 'N = 1 leader line'
expect 0 'N = 1 leader --json' -p $O leader --json
pyjson "$tmp/out" 'N = 1 leader --json keys' "sorted(d) == ['elected', 'epoch', 'id', 'since', 'since_ms', 'site', 'status', 'transition']"
expect 0 'N = 1 status' -p $O status
hasnot "$tmp/out" '^leaders:|^slot |SLOT' 'N = 1 status: no slot lines or column'
has "$tmp/out" '^ID +SITE +PRIO +ROLE +ELIGIBLE +HEALTHY +EXCLUDED +SEQ +HOST$' 'N = 1 status table as before'
expect 0 'N = 1 status --json' -p $O status --json
pyjson "$tmp/out" 'N = 1 status --json: no slot fields' "'leaders' not in d and 'slots' not in d and 'ready' not in d and all('slot' not in m for m in d['members'])"

# ---- history with slots -------------------------------------------------------------------
plant "$O/history" '{"v":1,"entries":[{"epoch":1,"leader":"c1","elector":"c1","policy":"site","reason":"first","at_ms":1795662000000}]}'
expect 0 'history without slots' -p $O history
has "$tmp/out" '^TIME +EPOCH +LEADER +ELECTOR +POLICY +REASON$' 'history heading as before'
expect 0 'history --json without slots' -p $O history --json
pyjson "$tmp/out" 'no slot key without slots' "all('slot' not in e for e in d)"
plant "$S/history" '{"v":1,"entries":[{"epoch":4,"leader":"a1","elector":"a1","policy":"site","reason":"slot 0","at_ms":1795662000000},{"epoch":5,"leader":"a2","elector":"a1","policy":"site","reason":"slot 1","at_ms":1795662001000,"slot":1}]}'
expect 0 'history with slots' -p $S history
has "$tmp/out" '^TIME +SLOT +EPOCH +LEADER +ELECTOR +POLICY +REASON$' 'history SLOT column'
has "$tmp/out" ' 1 +5 +a2 +a1 +site +slot 1$' 'history slot 1 entry'
has "$tmp/out" ' 0 +4 +a1 +a1 +site +slot 0$' 'history slot 0 entry'
expect 0 'history --json with slots' -p $S history --json
pyjson "$tmp/out" 'history --json slots' "[(e['slot'], e['leader']) for e in d] == [(0, 'a1'), (1, 'a2')]"

# ---- watch shows slot changes --------------------------------------------------------------
timeout -k 30 60 "$ZKE" -z "$HOSTS" -p $S watch >"$tmp/watch.out" 2>"$tmp/watch.err" </dev/null &
wpid=$!
wait_for 'watch started' 20 grep -q ' leader slot 2 a3 READY epoch 6 ' "$tmp/watch.out"
has "$tmp/watch.out" ' leader slot 1 a2 READY epoch 5 site dc2 since ' 'watch: slot 1 at start'
plant_slot $S 1 a4 PROGRESS 7
wait_for 'watch shows the new slot 1 leader' 20 grep -q ' leader slot 1 a4 PROGRESS epoch 7 site dc2 since ' "$tmp/watch.out"
plant_elected $S a1 4 ',"slots":[{"slot":1,"leader":"a4","epoch":7},{"slot":2,"leader":"a3","epoch":6}]'
wait_for 'watch shows the decision slots' 20 grep -q ': planted slots: 1=a4@7 2=a3@6$' "$tmp/watch.out"
term_wait $wpid watch
sanitizer_check "$tmp/watch.err"
timeout -k 30 60 "$ZKE" -z "$HOSTS" -p $S watch --json >"$tmp/watchj.out" 2>"$tmp/watchj.err" </dev/null &
wpid=$!
wait_for 'watch --json started' 20 grep -q '"slot":2' "$tmp/watchj.out"
term_wait $wpid 'watch --json'
python3 - "$tmp/watchj.out" <<'PYEOF' && pass || fail 'watch --json: slot events and the decision slots'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
slots = {l['slot']: l['leader']['id'] for l in lines if l['event'] == 'leader' and 'slot' in l}
el = [l for l in lines if l['event'] == 'elected']
ok = slots == {1: 'a4', 2: 'a3'} and el and el[0]['slots'] == [
    {'slot': 1, 'leader': 'a4', 'epoch': 7}, {'slot': 2, 'leader': 'a3', 'epoch': 6}]
sys.exit(0 if ok else 1)
PYEOF
sanitizer_check "$tmp/watchj.err"

finish
