#!/bin/sh
# test_cli_ops.sh - issue 16's operator commands against a real ZooKeeper
# (tests/harness/zk-local): init --expect/--settle-ms/--failback-delay-ms/
# --min-move-interval-ms, drain/undrain, switchover --site/--at/--cancel and
# their refusals, and what status (text and --json) shows of them: the
# delays, the drains, the elector's hold and a scheduled switchover.
#
# Most checks run on a group whose members, decision and leader are
# planted by a foreign client (cli-helper set), with no elector running:
# what the CLI writes stays as written (a scheduled request stays pending)
# and what status shows of a hold does not depend on the elector's timing.
# One group of real library nodes (cli-helper nodes) checks the --wait paths.
#
# Run by `make check` (ZKELECT_TOP_BUILDDIR set) or by hand:
#   ZKELECT_TOP_BUILDDIR=/path/to/build sh tests/cli/test_cli_ops.sh
# Prints "test_cli_ops: N passed, N failed" last; exits 1 on any failure.
# Everything it starts is stopped on every way out (trap).

top=${ZKELECT_TOP_BUILDDIR:-.}
ZKE="$top/src/cli/zkelect"
HELPER="$top/tests/cli/cli-helper"
ZKLOCAL="$top/tests/harness/zk-local"
: "${ZKELECT_POLICY_PATH:=$top/policies/.libs}"
export ZKELECT_POLICY_PATH
unset ZKELECT_HOSTS ZKELECT_PATH ZKELECT_AUTH_FILE ZKELECT_AUTH

name=test_cli_ops
passed=0 failed=0
LOSSY="$top/tests/cli/zkelect-lossy"
for f in "$ZKE" "$HELPER" "$ZKLOCAL" "$LOSSY"; do
    [ -x "$f" ] || { echo "$name: $f not built"; echo "$name: 0 passed, 1 failed"; exit 1; }
done
command -v python3 >/dev/null || { echo "$name: python3 is needed"; echo "$name: 0 passed, 1 failed"; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/zkcliops.XXXXXX") || exit 1
zkpid="" helpers=""

stop_helpers() {
    exec 3>&-
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
    sanitizer_check "$tmp"/nodes*.err
    echo "$name: $passed passed, $failed failed"
    [ "$failed" = 0 ] && exit 0
    exit 1
}

now_ms() { python3 -c 'import time; print(int(time.time() * 1000))'; }
# monotonic milliseconds (/proc/uptime, 10 ms steps) for elapsed times
uptime_ms() { read -r up _ < /proc/uptime; up=$(echo "$up" | tr -d .); echo $((up * 10)); }

# status_json PATH DESCRIPTION EXPR: zkelect -p PATH status --json satisfies EXPR
status_json() {
    expect 0 "$2: status --json" -p "$1" status --json && pyjson "$tmp/out" "$2" "$3"
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

leader_is() {   # leader_is PATH ID
    "$ZKE" -z "$HOSTS" -p "$1" leader >"$tmp/lo" 2>/dev/null </dev/null
    read -r id st _ <"$tmp/lo" && [ "$id" = "$2" ] && [ "$st" = READY ]
}

# plant PATH DATA: a foreign client writes DATA into PATH
plant() {
    if "$HELPER" set -z "$HOSTS" "$1" "$2"; then pass; else fail "plant $1"; fi
}
G32=0123456789abcdef0123456789abcdef
# plant_member PATH ID SITE HEALTHY SEQ: a registered member, without a node behind it
plant_member() {
    plant "$1/nodes/$2" "{\"v\":1,\"id\":\"$2\",\"site\":\"$3\",\"priority\":10,\"eligible\":true,\"healthy\":$4}"
    plant "$1/election/$2_${G32}_000000000$5" ""
}
# plant_elected PATH HOLD-JSON: a decision (a1 leads, epoch 1) with that hold
plant_elected() {
    plant "$1/elected" "{\"v\":1,\"epoch\":1,\"leader\":\"a1\",\"leader_site\":\"dc1\",\"elector\":\"a1\",\"policy\":\"site\",\"reason\":\"planted\",\"excluded\":[],\"switchover_id\":$3,\"config_version\":0$2}"
}

# ---- ZooKeeper -----------------------------------------------------------------
"$ZKLOCAL" --no-stdin --hosts-file "$tmp/hosts" >"$tmp/zk.out" 2>&1 &
zkpid=$!
if ! wait_for "zk-local serving" 90 test -s "$tmp/hosts"; then
    cat "$tmp/zk.out"
    finish
fi
HOSTS=$(cat "$tmp/hosts")

# ---- init: the delays -------------------------------------------------------------
expect 0 'init with every delay' -p /o1 init --site dc1=100 --expect 5 --settle-ms 3000 \
    --failback-delay-ms 6000 --min-move-interval-ms 8000
status_json /o1 'init wrote the delays' \
    "d['settle_ms'] == 3000 and d['expect'] == 5 and d['failback_delay_ms'] == 6000 and d['min_move_interval_ms'] == 8000 and d['sites'] == {'dc1': 100}"
expect 0 'status text' -p /o1 status
has "$tmp/out" '^delays: +settle 3000 ms, expect 5 members, failback delay 6000 ms, min move interval 8000 ms$' 'status shows the delays'
expect 0 'init on an existing group' -p /o1 init --expect 7 --settle-ms 10
has "$tmp/out" '^exists  /o1/config \(config\): left alone$' 'existing config left alone'
has "$tmp/err" 'note: /o1/config exists: --expect, --settle-ms not applied' 'init says what it did not apply'
status_json /o1 'init changed nothing' "d['expect'] == 5 and d['settle_ms'] == 3000"
expect 0 'init on an existing group, --json' -p /o1 init --min-move-interval-ms 1 --json
pyjson "$tmp/out" 'init --json config_not_applied' "d['created'] == 0 and d['config_not_applied'] == '--min-move-interval-ms'"
expect 0 'init again without config options' -p /o1 init
hasnot "$tmp/err" 'not applied' 'no note without config options'
expect 0 'set-delays on an existing group' -p /o1 set-delays --settle-ms 500 --expect default \
    --min-move-interval-ms 0
has "$tmp/out" '^settle_ms: 500 ms \(was 3000 ms\)$' 'set-delays settle'
has "$tmp/out" "^expect: each node's default \\(was 5 members\\)$" 'set-delays expect'
has "$tmp/out" '^min_move_interval_ms: 0 ms \(was 8000 ms\)$' 'set-delays min move'
has "$tmp/out" '^config changed; config version [0-9]+$' 'set-delays changed'
status_json /o1 'set-delays wrote the config' \
    "d['settle_ms'] == 500 and d['expect'] is None and d['failback_delay_ms'] == 6000 and d['min_move_interval_ms'] == 0 and d['sites'] == {'dc1': 100}"
expect 0 'set-delays, nothing to change' -p /o1 set-delays --settle-ms 500 --json
pyjson "$tmp/out" 'set-delays --json' "d['changed'] is False and d['settle_ms'] == {'value': 500, 'previous': 500}"
expect 0 'set-delays back to the node default' -p /o1 set-delays --settle-ms default --failback-delay-ms default --json
pyjson "$tmp/out" 'set-delays default --json' "d['changed'] is True and d['settle_ms'] == {'value': None, 'previous': 500} and d['failback_delay_ms'] == {'value': None, 'previous': 6000}"
status_json /o1 'set-delays removed the fields' "d['settle_ms'] is None and d['failback_delay_ms'] is None and d['min_move_interval_ms'] == 0"
expect 1 'set-delays on a missing group' -p /nosuch set-delays --expect 3
has "$tmp/err" 'group /nosuch does not exist' 'set-delays: missing group'
expect 0 'init with explicit zeros' -p /o2 init --site dc1=100 --site dc2=50 --settle-ms 0 \
    --failback-delay-ms 0 --min-move-interval-ms 0
status_json /o2 'explicit 0 is not the node default' \
    "d['settle_ms'] == 0 and d['failback_delay_ms'] == 0 and d['min_move_interval_ms'] == 0 and d['expect'] is None"
expect 0 'init with the limits' -p /o3 init --expect 10000 --settle-ms 3600000 \
    --failback-delay-ms 86400000 --min-move-interval-ms 86400000
status_json /o3 'the limits' \
    "d['expect'] == 10000 and d['settle_ms'] == 3600000 and d['failback_delay_ms'] == 86400000 and d['min_move_interval_ms'] == 86400000"
expect 0 'init without delays' -p /o4 init
status_json /o4 'no delays: each node default' \
    "d['settle_ms'] is None and d['expect'] is None and d['failback_delay_ms'] is None and d['min_move_interval_ms'] is None and d['drains'] == [] and d['hold'] is None"
expect 0 'status without delays' -p /o4 status
has "$tmp/out" "^delays: +each node's default \(none set in the config\)$" 'status: no delays'
expect 2 'init --expect 0 on a server' -p /o9 init --expect 0
has "$tmp/err" '--expect: "0" is not a number of members from 1 to 10000' 'init --expect 0 refused'

# ---- a group with planted members and no elector ----------------------------------
S=/s
expect 0 'init the planted group' -p $S init --site dc1=100 --site dc2=50 --expect 5
plant_member $S a1 dc1 true 1
plant_member $S a2 dc2 true 2
plant_member $S a3 dc3 false 3
plant "$S/leader" '{"v":1,"id":"a1","status":"READY","epoch":1,"since_ms":1795662000000}'
plant_elected $S "" 0
expect 0 'planted group' -p $S leader
has "$tmp/out" '^a1 READY epoch 1 site dc1' 'the planted leader'

# ---- status: the elector's hold ------------------------------------------------------
T=$(($(now_ms) + 25000))
plant_elected $S ",\"hold\":{\"kind\":\"settle\",\"node\":\"\",\"until_ms\":$T}" 0
expect 0 'status with a settle hold' -p $S status
has "$tmp/out" '^hold: +settle: waiting for 2 more members \(3 of 5\), 2[0-5] s left$' 'settle hold text'
status_json $S 'settle hold JSON' \
    "d['hold']['kind'] == 'settle' and d['hold']['node'] is None and d['hold']['until_ms'] == $T and 15000 < d['hold']['remaining_ms'] <= 25000 and d['hold']['members'] == 3 and d['hold']['text'].startswith('settle: waiting for 2 more members (3 of 5), ')"
plant_elected $S ",\"hold\":{\"kind\":\"failback\",\"node\":\"a2\",\"until_ms\":$T}" 0
expect 0 'status with a failback hold' -p $S status
has "$tmp/out" '^hold: +failback: a2 \(dc2\) may lead in 2[0-5] s$' 'failback hold text'
status_json $S 'failback hold JSON' "d['hold']['kind'] == 'failback' and d['hold']['node'] == 'a2' and d['hold']['site'] == 'dc2'"
T=$(($(now_ms) + 5000))
plant_elected $S ",\"hold\":{\"kind\":\"anti-flap\",\"node\":\"a2\",\"until_ms\":$T}" 0
expect 0 'status with an anti-flap hold' -p $S status
has "$tmp/out" '^hold: +anti-flap: automatic moves blocked for [0-5]\.[0-9] s \(then a2 may lead\)$' 'anti-flap hold text'
T=$(($(now_ms) - 1000))
plant_elected $S ",\"hold\":{\"kind\":\"settle\",\"until_ms\":$T}" 0
plant "$S/config" '{"v":1,"sites":{"dc1":100,"dc2":50}}'
expect 0 'status with a past settle hold, no expect' -p $S status
has "$tmp/out" '^hold: +settle: 0\.0 s left \(3 members present\)$' 'settle hold without expect'
plant_elected $S "" 0
expect 0 'status without a hold' -p $S status
hasnot "$tmp/out" '^hold:' 'no hold line without a hold'

# ---- status: the standing succession (issue 18) ---------------------------------------
U=/su
expect 0 'init the succession group' -p $U init --site dc1=100 --site dc2=50
plant_member $U a1 dc1 true 1
plant_member $U a2 dc2 true 2
plant_elected $U "" 0          # version 0 of elected
expect 0 'status without a succession' -p $U status
hasnot "$tmp/out" '^successor:' 'no successor line without a succession'
plant "$U/successor" "{\"v\":1,\"elected_version\":0,\"history_version\":0,\"next_epoch\":2,\"elector\":\"a1\",\"policy\":\"site\",\"slots\":[{\"leader\":\"a1\",\"leader_znode\":\"a1_${G32}_0000000001\",\"successor\":\"a2\",\"successor_site\":\"dc2\",\"successor_znode\":\"a2_${G32}_0000000002\"}]}"
expect 0 'status with a succession' -p $U status
has "$tmp/out" '^successor: +a2 \(if a1 resigns\)$' 'successor line'
status_json $U 'succession JSON' "d['successors'] == [{'slot': 0, 'leader': 'a1', 'successor': 'a2', 'site': 'dc2', 'switchover': False}]"
plant_elected $U "" 0          # version 1: the succession is for an older decision
expect 0 'status with a stale succession' -p $U status
hasnot "$tmp/out" '^successor:' 'no successor line for a stale succession'
status_json $U 'stale succession JSON' "d['successors'] == []"
plant "$U/successor" '{"v":1,"elected_version":"x"}'
expect 1 'status with a malformed succession' -p $U status
has "$tmp/err" 'successor' 'the malformed succession is named'

# ---- the operator's direct switchover (issue 18; no elector: what the CLI
# writes is all that moves) --------------------------------------------------------------
D=/ds
expect 0 'init the direct-switchover group' -p $D init --site dc1=100 --site dc2=50
plant_member $D a1 dc1 true 1
plant_member $D a2 dc2 true 2
plant_member $D a3 dc2 true 3
plant_elected $D ",\"leader_znode\":\"a1_${G32}_0000000001\"" 0    # version 0
plant "$D/history" '{"v":1,"entries":[]}'                             # version 0
# dsucc ELECTED-VERSION SUCCESSOR-RECORD-VERSION EXTRA: the elector's succession
dsucc() {
    plant "$D/successor" "{\"v\":1,\"elected_version\":$1,\"history_version\":0,\"config_version\":0,\"next_epoch\":2,\"elector\":\"a1\",\"policy\":\"site\",\"slots\":[{\"leader\":\"a1\",\"leader_znode\":\"a1_${G32}_0000000001\",\"successor\":\"a2\",\"successor_site\":\"dc2\",\"successor_znode\":\"a2_${G32}_0000000002\",\"successor_version\":$2$3}]}"
}
dsucc 0 0 ''
expect 0 'switchover: the policy would go elsewhere' -p $D switchover --json
pyjson "$tmp/out" 'no switchover mark: a request' "d['direct'] is False and 'elsewhere' in d['direct_refused'] and 'decided' not in d"
status_json $D 'the request is pending, the decision unchanged' "d['elected']['leader'] == 'a1' and d['switchover']['state'] == 'pending'"
dsucc 0 0 ',"switchover":true'
expect 0 'switchover --to a node that is not the successor' -p $D switchover --to a3 --json
pyjson "$tmp/out" 'not the successor: a request' "d['direct'] is False and 'not the recorded successor' in d['direct_refused']"
dsucc 0 5 ',"switchover":true'
expect 0 "switchover: the successor's record changed since" -p $D switchover --json
pyjson "$tmp/out" 'refused by the record check: a request' "d['direct'] is False and 'changed meanwhile' in d['direct_refused']"
status_json $D 'the refused multi wrote nothing' "d['elected']['leader'] == 'a1' and d['elected']['epoch'] == 1 and d['switchover']['state'] == 'pending' and d['switchover']['id'] == 3"
dsucc 0 0 ',"switchover":true'
expect 0 'status shows where a switchover goes' -p $D status
has "$tmp/out" '^successor: +a2 \(if a1 resigns; a switchover goes there directly\)$' 'successor line with the switchover'
expect 0 'switchover decided from the succession' -p $D switchover --json
pyjson "$tmp/out" 'decided directly' "d['direct'] is True and d['decided'] == 'a2' and d['id'] == 4 and d['from'] == 'a1'"
status_json $D 'the decision the operator wrote' "d['elected']['leader'] == 'a2' and d['elected']['epoch'] == 2 and d['elected']['previous'] == 'a1' and d['elected']['switchover_id'] == 4 and 'written by the operator' in d['elected']['reason'] and d['switchover']['id'] == 4 and d['switchover']['state'] == 'acted on'"
if "$HELPER" get -z "$HOSTS" "$D/election/a2_${G32}_0000000002" >"$tmp/wake" 2>&1 && grep -qx 'a2' "$tmp/wake"; then
    pass; else fail "the successor's election znode was not woken (data: $(cat "$tmp/wake"))"; fi
expect 0 'switchover over a decision the succession is not for' -p $D switchover --to a1 --json
pyjson "$tmp/out" 'stale succession: a request' "d['direct'] is False and 'another decision' in d['direct_refused']"

# A direct write of unknown outcome (zkelect-lossy loses its multis' replies,
# ZKELECT_TEST_LOSE). Each case starts over from a1's decision, planted again
# (`elected` at version DV), with a succession made for it.
DV=1
dreset() {
    plant_elected $D ",\"leader_znode\":\"a1_${G32}_0000000001\"" 0
    DV=$((DV + 1))
    dsucc $DV 0 ',"switchover":true'
}
# lossy WHAT DESC EXIT ARGS...: the CLI, its multis' replies lost as WHAT says
lossy() {
    lwhat=$1 ldesc=$2 lexp=$3
    shift 3
    ZKELECT_TEST_LOSE=$lwhat "$LOSSY" -z "$HOSTS" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
    lrc=$?
    sanitizer_check "$tmp/err"
    if [ "$lrc" = "$lexp" ]; then pass; else fail "$ldesc: exit $lrc, expected $lexp ($(cat "$tmp/err"))"; fi
}
# applied, its reply lost: read back, and it is the decision
dreset
lossy lose 'direct write applied, its reply lost' 0 -p $D switchover --json
DV=$((DV + 1))  # the write set `elected`
pyjson "$tmp/out" 'read back as decided' "d['direct'] is True and d['decided'] == 'a2' and d['id'] == 6"
status_json $D 'one decision, no second request' "d['elected']['leader'] == 'a2' and d['elected']['switchover_id'] == 6 and d['switchover']['id'] == 6 and d['switchover']['state'] == 'acted on'"
# lost on every try, never applied: said so, nothing written (before: "changed
# concurrently 5 times in a row", as if someone else had written)
dreset
lossy drop,drop,drop,drop,drop 'direct write lost on all five tries' 1 -p $D switchover
has "$tmp/err" 'switchover 7: the replies of its direct writes were lost \(connection loss\) and a read after the last try did not find it decided; giving up after 5 tries \(it may still be applied' 'a lost write is not a concurrent change'
hasnot "$tmp/err" 'changed concurrently' 'no concurrent change claimed'
status_json $D 'nothing written by the lost tries' "d['elected']['leader'] == 'a1' and d['elected']['switchover_id'] == 0 and d['switchover']['id'] == 6"
# the last try's reply lost, applied: read back (before: not read back, and
# "changed concurrently", exit 1, while the decision had been written)
lossy drop,drop,drop,drop,lose "the last try's reply lost" 0 -p $D switchover --json
DV=$((DV + 1))
pyjson "$tmp/out" "the last try read back as decided" "d['direct'] is True and d['decided'] == 'a2' and d['id'] == 7"
status_json $D 'the last try decided' "d['elected']['leader'] == 'a2' and d['elected']['switchover_id'] == 7 and d['switchover']['state'] == 'acted on'"
# the session ended with the write in flight (applied here): the outcome is
# unknown, said so (before: taken as refused; the CLI then wrote a second
# request, one above the switchover the write had decided)
dreset
lossy expire 'the session ended with the direct write in flight' 1 -p $D switchover
has "$tmp/err" 'switchover 8: the ZooKeeper session ended \(session expired\) while its direct write was in flight: it may or may not have been decided' 'unknown outcome named'
status_json $D 'no second request after an expiry' "d['elected']['switchover_id'] == 8 and d['switchover']['id'] == 8 and d['switchover']['state'] == 'acted on'"
DV=$((DV + 1))
# a lost write still in flight after the read that followed it, applied
# then: the next try is refused by the versions it changed, and the read
# after the last try finds it (before: "changed concurrently 5 times", exit
# 1, while it was the decision)
dreset
lossy drop,drop,drop,late 'a lost write applied after the next read' 0 -p $D switchover --json
pyjson "$tmp/out" 'found by the read after the last try' "d['direct'] is True and d['decided'] == 'a2' and d['id'] == 9"
status_json $D 'the late write is the decision, no second request' "d['elected']['leader'] == 'a2' and d['elected']['switchover_id'] == 9 and d['switchover']['id'] == 9 and d['switchover']['state'] == 'acted on'"
# a request that could not have gone directly says nothing of why it did not
expect 0 'switchover --site: a request' -p $D switchover --site dc1 --json
pyjson "$tmp/out" 'no direct_refused for --site' "d['direct'] is False and 'direct_refused' not in d and d['site'] == 'dc1'"

# ---- drain / undrain ------------------------------------------------------------------
t0=$(now_ms)
expect 0 'drain a2 --for 90s --reason' -p $S drain a2 --for 90s --reason 'kernel upgrade'
has "$tmp/out" '^a2 drained until .* \(90 s\): kernel upgrade; config version [0-9]+$' 'drain output'
status_json $S 'the drain in the config' \
    "[(x['id'], x['reason'], x['active']) for x in d['drains']] == [('a2', 'kernel upgrade', True)] and $t0 + 90000 <= d['drains'][0]['until_ms'] <= NOW + 90000 and '@' in d['drains'][0]['by'] and 80000 < d['drains'][0]['remaining_ms'] <= 90000"
pyjson "$tmp/out" 'member a2 drained' "[(m['id'], m['drained'], m['can_lead']) for m in d['members'] if m['id'] == 'a2'] == [('a2', True, False)]"
pyjson "$tmp/out" 'member a1 not drained' "[(m['drained'], m['can_lead']) for m in d['members'] if m['id'] == 'a1'] == [(False, True)]"
expect 0 'status shows the drain' -p $S status
has "$tmp/out" '^drained: +a2 until .* \([0-9]+ s left\) by [^ ]+@[^ ]+: kernel upgrade$' 'status drain line'
t0=$(now_ms)
expect 0 'drain a2 again --for 2h' -p $S drain a2 --for 2h --json
pyjson "$tmp/out" 'drain --json' "d['node'] == 'a2' and d['drained'] is True and d['for_ms'] == 7200000 and d['reason'] == '' and d['previous']['reason'] == 'kernel upgrade' and d['previous']['active'] is True and $t0 + 7200000 <= d['until_ms'] <= NOW + 7200000"
status_json $S 'a drain replaced' "[(x['id'], x['reason']) for x in d['drains']] == [('a2', '')] and d['drains'][0]['remaining_ms'] > 7100000"
t0=$(now_ms)
expect 0 'drain a1, the default 1 hour' -p $S drain a1 --reason 'disk'
has "$tmp/out" '^a1 drained until .* \(1h 00m\): disk; config version' 'default drain is 1 hour'
status_json $S 'two drains' "sorted(x['id'] for x in d['drains']) == ['a1', 'a2'] and [x['until_ms'] for x in d['drains'] if x['id'] == 'a1'][0] >= $t0 + 3600000"
expect 0 'drain a node with a record only (a3 unhealthy)' -p $S drain a3 --for 1d
expect 0 'drain with --for=' -p $S drain a3 --for=7d --reason='7 days, the most'
has "$tmp/out" '\(7d 00h\): 7 days, the most' 'drain for 7 days'
expect 0 'drain with a UTF-8 reason' -p $S drain a3 --for 1h30m --reason "$(printf 'caf\303\251 \342\202\254')"
status_json $S 'UTF-8 reason kept' "[x['reason'] for x in d['drains'] if x['id'] == 'a3'] == ['caf\u00e9 \u20ac']"
expect 2 'drain an unknown node' -p $S drain nosuch
has "$tmp/err" 'NODE "nosuch": unknown node: not a member of /s' 'unknown node named'
has "$tmp/err" '^usage: zkelect ' 'unknown node: usage line'
status_json $S 'unknown node not written' "sorted(x['id'] for x in d['drains']) == ['a1', 'a2', 'a3']"
expect 6 'switchover to a drained node' -p $S switchover --to a2
has "$tmp/err" 'refused: a2 is drained for (1h 59m|2h 00m) more \(zkelect undrain a2\)' 'drained node refused'
expect 0 'undrain a1' -p $S undrain a1
has "$tmp/out" '^a1 undrained \(it was drained until .*\); config version [0-9]+$' 'undrain output'
expect 1 'undrain a1 again' -p $S undrain a1
has "$tmp/err" 'a1 is not drained \(the config of /s lists no drain for it\)' 'undrain of a node not drained'
expect 1 'undrain an unknown node' -p $S undrain nosuch
has "$tmp/err" 'nosuch is not drained' 'undrain of an unknown node'
expect 0 'undrain --json' -p $S undrain a3 --json
pyjson "$tmp/out" 'undrain --json' "d['node'] == 'a3' and d['drained'] is False and d['previous']['active'] is True"
status_json $S 'after undrain' "[x['id'] for x in d['drains']] == ['a2']"

# expired drains: shown as expired, removed by the next write
plant "$S/config" "{\"v\":1,\"sites\":{\"dc1\":100,\"dc2\":50},\"drains\":{\"a1\":{\"until_ms\":1000,\"reason\":\"long ago\"},\"a2\":{\"until_ms\":$(($(now_ms) + 600000))}}}"
expect 0 'status with an expired drain' -p $S status
has "$tmp/out" '^drained: +a1 until .* \(expired\) by -: long ago$' 'expired drain shown'
status_json $S 'expired drain JSON' "[(x['id'], x['active'], x['remaining_ms']) for x in d['drains']] == [('a1', False, 0), ('a2', True, d['drains'][1]['remaining_ms'])]"
pyjson "$tmp/out" 'an expired drain does not drain' "[m['drained'] for m in d['members'] if m['id'] == 'a1'] == [False]"
expect 0 'drain a3 removes the expired drain' -p $S drain a3 --for 1m
has "$tmp/out" '^removed 1 expired drain of other nodes$' 'expired drain removed'
status_json $S 'expired drain gone' "sorted(x['id'] for x in d['drains']) == ['a2', 'a3']"
plant "$S/config" '{"v":1,"sites":{"dc1":100,"dc2":50},"drains":{"a1":{"until_ms":1000}}}'
expect 0 'undrain an expired drain' -p $S undrain a1
has "$tmp/out" '^a1 undrained \(its drain had expired at ' 'undrain of an expired drain'
plant "$S/config" '{"v":1,"sites":{"dc1":"bad"}}'
expect 1 'drain over a malformed config' -p $S drain a1
has "$tmp/err" 'refusing to overwrite a malformed config' 'malformed config kept'
plant "$S/config" '{"v":1,"sites":{"dc1":100,"dc2":50}}'

# ---- switchover --site, --at, --cancel (no elector: requests stay pending) -----------
expect 6 'switchover --site with no nodes' -p $S switchover --site dc9
has "$tmp/err" 'refused: site dc9 has no nodes' 'site without nodes'
expect 6 'switchover --site where none can lead' -p $S switchover --site dc3
has "$tmp/err" 'refused: no node of site dc3 can lead \(1 registered' 'site where none can lead'
expect 6 "switchover --site of the leader's site" -p $S switchover --site dc1
has "$tmp/err" 'refused: the leader a1 is already on site dc1' "leader's site refused"
expect 0 'switchover --site dc2' -p $S switchover --site dc2
has "$tmp/out" '^switchover 1 requested: a1 -> the best node of site dc2$' 'switchover --site output'
status_json $S 'the site request' "d['switchover']['id'] == 1 and d['switchover']['site'] == 'dc2' and d['switchover']['to'] is None and d['switchover']['due_ms'] == 0 and d['switchover']['state'] == 'pending' and d['switchover']['cancel'] is False"
expect 0 'status of the site request' -p $S status
has "$tmp/out" '^switchover: #1 to site dc2 at .* by [^ ]+ \(pending\)$' 'status: site request'
expect 1 'cancel with nothing scheduled' -p $S switchover --cancel
has "$tmp/err" 'no scheduled switchover is pending: nothing to cancel' 'nothing to cancel'

t0=$(now_ms)
expect 0 'switchover --at +10m --site dc2' -p $S switchover --at +10m --site dc2
has "$tmp/out" '^switchover 2 scheduled for .* \(in (9m 59s|10m 00s)\): a1 -> the best node of site dc2$' 'scheduled output'
status_json $S 'the scheduled request' "d['switchover']['id'] == 2 and d['switchover']['site'] == 'dc2' and $t0 + 600000 <= d['switchover']['due_ms'] <= NOW + 600000 and d['switchover']['state'] == 'scheduled' and 590000 < d['switchover']['remaining_ms'] <= 600000"
expect 0 'status of the scheduled request' -p $S status
has "$tmp/out" '^switchover: #2 to site dc2 at .* \(scheduled for .*, [0-9]+m [0-9]{2}s left\)$' 'status: scheduled'
expect 0 'switchover --cancel' -p $S switchover --cancel
has "$tmp/out" '^switchover 3 cancels scheduled switchover 2 \(was due at .*\)$' 'cancel output'
status_json $S 'the cancel request' "d['switchover']['id'] == 3 and d['switchover']['cancel'] is True and d['switchover']['site'] is None and d['switchover']['to'] is None and d['switchover']['due_ms'] == 0"
expect 0 'status of the cancel' -p $S status
has "$tmp/out" '^switchover: #3 cancels the scheduled one, at .* \(pending\)$' 'status: cancel'
expect 1 'cancel twice' -p $S switchover --cancel

# RFC 3339 times, in UTC and with an offset
AT=$(date -u -d '+1 hour' +%Y-%m-%dT%H:%M:%SZ)
ATS=$(date -u -d "$AT" +%s)
expect 0 'switchover --at RFC 3339 Z --to a2' -p $S switchover --at "$AT" --to a2 --json
pyjson "$tmp/out" 'switchover --at --json' "d['id'] == 4 and d['to'] == 'a2' and d['site'] is None and d['due_ms'] == $ATS * 1000 and d['cancel'] is False and 'replaces' not in d"
AT2=$(TZ=Etc/GMT-2 date -d '+2 hours' +%Y-%m-%dT%H:%M:%S%:z)
ATS2=$(date -d "$AT2" +%s)
expect 0 'switchover --at with an offset replaces the pending one' -p $S switchover --at "$AT2"
has "$tmp/err" 'note: this request replaces scheduled switchover 4 \(due at ' 'replaced request noted'
status_json $S 'offset time' "d['switchover']['due_ms'] == $ATS2 * 1000 and d['switchover']['to'] is None and d['switchover']['state'] == 'scheduled'"
case "$AT2" in *+02:00) pass ;; *) fail "offset time $AT2 has no +02:00" ;; esac
expect 0 'cancel --json' -p $S switchover --cancel --json
pyjson "$tmp/out" 'cancel --json' "d['cancel'] is True and d['cancels'] == 5 and d['id'] == 6"
PAST=$(date -u -d '-1 minute' +%Y-%m-%dT%H:%M:%SZ)
expect 2 'switchover --at in the past' -p $S switchover --at "$PAST"
has "$tmp/err" "--at: \"$PAST\" is in the past" 'past time refused'
FAR=$(date -u -d '+8 days' +%Y-%m-%dT%H:%M:%SZ)
expect 2 'switchover --at 8 days ahead' -p $S switchover --at "$FAR"
has "$tmp/err" 'is more than 7 days ahead' 'far time refused'
expect 2 'switchover --at +8d' -p $S switchover --at +8d
expect 0 'switchover --at +7d' -p $S switchover --at +7d --site dc2
expect 0 'switchover --at to an unhealthy node: a note' -p $S switchover --at +5m --to a3
has "$tmp/err" 'note: a3 is not healthy \(its health check fails\) now; the elector refuses the switchover if it still is at its time' 'note about the node'
expect 6 'switchover to an unhealthy node now' -p $S switchover --to a3
expect 6 'switchover --at to an unknown node' -p $S switchover --at +5m --to nosuch
has "$tmp/err" 'refused: nosuch is not a member' 'unknown node refused when scheduled'
expect 6 'switchover --at to a site with no nodes' -p $S switchover --at +5m --site dc9
expect 0 'switchover --at to a site where none can lead: a note' -p $S switchover --at +5m --site dc3
has "$tmp/err" 'note: no node of site dc3 can lead now' 'note about the site'
hasnot "$tmp/err" 'note: the leader' 'no note about the leader on another site'
expect 0 "switchover --at to the leader's site: a note" -p $S switchover --at +5m --site dc1
has "$tmp/err" 'note: the leader a1 is on site dc1 now; if it still is at the time, the elector moves nothing' "note about the leader's site"
expect 0 'pause' -p $S pause
expect 6 'switchover --at while paused' -p $S switchover --at +1m
has "$tmp/err" 'refused: the group is paused; a scheduled switchover would not fire' 'paused refusal'
expect 6 'switchover --at --to while paused' -p $S switchover --at +1m --to a2
expect 0 'resume' -p $S resume

# --wait with --at counts from the due time (nobody acts here: exit 5)
t0=$(uptime_ms)
expect 5 'switchover --at +2s --wait=1 without an elector' -p $S switchover --at +2s --wait=1
t1=$(uptime_ms)
has "$tmp/err" 'timed out waiting for the elector to act on switchover' 'timeout message'
if [ $((t1 - t0)) -ge 2800 ] && [ $((t1 - t0)) -lt 15000 ]; then pass; else
    fail "--at +2s --wait=1 gave up after $((t1 - t0)) ms, not after about 3000"; fi
status_json $S 'request 11 is scheduled' "d['switchover']['id'] == 11 and d['switchover']['state'] == 'scheduled'"
# once the elector has acted on it (elected.switchover_id), it is no longer pending
plant_elected $S "" 11
status_json $S 'request 11 acted on' "d['switchover']['state'] == 'acted on' and d['switchover']['acted_on'] is True"
expect 1 'cancel after the elector acted' -p $S switchover --cancel
has "$tmp/err" 'no scheduled switchover is pending' 'an acted-on request cannot be cancelled'

# ---- watch shows holds and drains ------------------------------------------------------
timeout -k 30 60 "$ZKE" -z "$HOSTS" -p $S watch >"$tmp/watch.out" 2>"$tmp/watch.err" </dev/null &
wpid=$!
wait_for 'watch started' 20 grep -q ' config version ' "$tmp/watch.out"
T=$(($(now_ms) + 40000))
plant_elected $S ",\"hold\":{\"kind\":\"failback\",\"node\":\"a2\",\"until_ms\":$T}" 11
wait_for 'watch shows the hold' 20 grep -q ' \[hold: failback: a2 (dc2) may lead in [0-9]* s\]$' "$tmp/watch.out"
expect 0 'drain while watching' -p $S drain a1 --for 15m
wait_for 'watch shows the drain' 20 grep -q ' config version [0-9]*: .*, drained a1 (1[45]m [0-9][0-9]s left)$' "$tmp/watch.out"
term_wait $wpid watch
sanitizer_check "$tmp/watch.err"

# ---- config limits (the 33rd site, the 33rd drain) --------------------------------------
L=/l
expect 0 'init /l' -p $L init
i=0
while [ $i -lt 32 ]; do
    "$ZKE" -z "$HOSTS" -p $L set-site-priority "s$i" $i >/dev/null 2>&1 || fail "set-site-priority s$i"
    plant "$L/nodes/d$i" "{\"v\":1,\"id\":\"d$i\",\"site\":\"\",\"priority\":1,\"eligible\":true,\"healthy\":true}"
    "$ZKE" -z "$HOSTS" -p $L drain "d$i" --for 1h >/dev/null 2>&1 || fail "drain d$i"
    i=$((i + 1))
done
plant "$L/nodes/d32" '{"v":1,"id":"d32","site":"","priority":1,"eligible":true,"healthy":true}'
expect 1 'the 33rd site' -p $L set-site-priority s32 5
has "$tmp/err" 'the config already lists 32 sites, the most it can hold' '33rd site refused'
hasnot "$tmp/out" 'priority' '33rd site: no success line'
expect 1 'the 33rd drain' -p $L drain d32
has "$tmp/err" 'the config already lists 32 drains, the most it can hold \(undrain one first\)' '33rd drain refused'
expect 0 'a drain replaced at the limit' -p $L drain d31 --for 2h
status_json $L 'the limits' "len(d['sites']) == 32 and len(d['drains']) == 32"

# ---- real nodes: --wait ------------------------------------------------------------------
R=/r
expect 0 'init /r' -p $R init --policy site --site dc1=100 --site dc2=50 --settle-ms 0
mkfifo "$tmp/fifo3"
"$HELPER" nodes -z "$HOSTS" -p $R -w 3000 n1:dc1:10 n2:dc2:10 <"$tmp/fifo3" >"$tmp/nodes3.out" 2>"$tmp/nodes3.err" &
helpers="$!"
exec 3>"$tmp/fifo3"
wait_for 'nodes of /r registered' 30 grep -q '^ready' "$tmp/nodes3.out"
wait_for 'n1 leads /r' 30 leader_is $R n1
expect 0 'switchover --site dc2 --wait' -p $R switchover --site dc2 --wait=30
has "$tmp/out" '^n2 READY epoch [0-9]+ site dc2' 'switchover --site --wait prints the dc2 leader'
status_json $R 'the site request was acted on' "d['switchover']['site'] == 'dc2' and d['switchover']['state'] == 'acted on' and d['leader']['id'] == 'n2'"
expect 0 'drain n2 --wait --json' -p $R drain n2 --for 10m --wait=30 --json
pyjson "$tmp/out" 'drain --wait --json' "d['wait'] == 'ok' and d['leader']['status'] == 'READY' and d['node'] == 'n2'"
status_json $R 'the elector evaluated the drain' "d['elected']['config_version'] >= d['config_version'] and [x['id'] for x in d['drains']] == ['n2']"
expect 0 'set-delays --wait' -p $R set-delays --failback-delay-ms 1000 --wait=30
has "$tmp/out" '^n[12] READY epoch [0-9]+ site dc[12]' 'set-delays --wait prints the leader'
expect 0 'undrain n2 --wait' -p $R undrain n2 --wait=30
has "$tmp/out" '^n[12] READY epoch [0-9]+ site dc[12]' 'undrain --wait prints the leader'
# the elector marks its succession as where a switchover goes; the operator's
# switchover then writes the decision itself, and the old leader hands over
succ_marked() {
    "$ZKE" -z "$HOSTS" -p $R status --json >"$tmp/sm" 2>/dev/null </dev/null &&
        python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d["leader"]["status"] == "READY" and d["successors"] and d["successors"][0]["switchover"] else 1)' "$tmp/sm"
}
wait_for 'the succession says where a switchover goes' 30 succ_marked
expect 0 'switchover --wait, decided directly' -p $R switchover --wait=30
has "$tmp/out" '^switchover [0-9]+ decided: n[12] -> n[12] \(the elector.s recorded successor; written directly\)$' 'direct switchover line'
has "$tmp/out" '^n[12] READY epoch [0-9]+ site dc[12]' 'direct switchover --wait prints the new leader'
status_json $R 'the history has the operator decision' "d['leader']['id'] != d['elected']['previous'] and 'written by the operator' in d['elected']['reason'] and d['switchover']['state'] == 'acted on'"
expect 0 'history after the direct switchover' -p $R history
has "$tmp/out" 'written by the operator' 'the elector appended the history entry'

finish
