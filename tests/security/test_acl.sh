#!/bin/bash
# test_acl.sh - digest ACLs end to end: `zkelect init --operator-auth
# --member-auth` on a real ZooKeeper (zk-local, with a super digest for
# inspection and repair), three zkelectd daemons with the member credential,
# and a foreign client (zksec) acting as nobody, as an unknown user, as a
# member and as the operator. Then daemons with a wrong password and with no
# credential, and the CLI without, with the wrong and with the right
# credential. What the ACL model guarantees and what it cannot is written
# down in tests/security/README.
#
# Prints "test_acl: N passed, N failed" last; exits 1 on any failure.
# By hand: ZKELECT_TOP_BUILDDIR=BUILD ZKELECT_TOP_SRCDIR=SRC bash tests/security/test_acl.sh
set -u

NAME=test_acl
TEST_DEADLINE_S=170
if [ -n "${ZKELECT_TOP_SRCDIR:-}" ]; then
    . "$ZKELECT_TOP_SRCDIR/tests/security/seclib.sh"
elif [ -f "$(dirname "$0")/seclib.sh" ]; then
    . "$(dirname "$0")/seclib.sh"
else
    echo "$NAME: set ZKELECT_TOP_SRCDIR"
    echo "$NAME: 0 passed, 1 failed"
    exit 1
fi

sec_init "$ZKELECTD" "$ZKELECT" "$ZKLOCAL" "$ZKSEC"
command -v curl > /dev/null || { nok "curl is not installed"; finish; }

# Credentials: files of mode 0600 (umask 077), never on a command line.
printf 'super:suprpw\n' > "$T/super.auth"
printf 'admin:opsecret\n' > "$T/op.auth"
printf 'member:mempw\n' > "$T/mem.auth"
printf 'member:WRONG\n' > "$T/wrong.auth"
printf 'admin:WRONG\n' > "$T/opwrong.auth"
printf 'intruder:pw\n' > "$T/intruder.auth"
SUPER=$("$ZKSEC" -a "$T/super.auth" digest)
OPID=$("$ZKSEC" -a "$T/op.auth" digest)
MEMID=$("$ZKSEC" -a "$T/mem.auth" digest)

G=/sec/grp
start_zk --super-digest "$SUPER"

# acl_is PATH EXPECTED: the ACL of PATH read with the super digest (ZooKeeper
# shows digest ids in full only to an identity with ADMIN on the znode).
acl_is() {
    local got
    got=$(zks -a "$T/super.auth" acl "$1" | tr '\n' ';')
    [ "$got" = "$2" ] && return 0
    echo "  $1: ACL is '$got', expected '$2'"
    return 1
}

# ---------------------------------------------------------------------------
# 1. init with digest ACLs
# ---------------------------------------------------------------------------
log "zkelect init with --operator-auth and --member-auth"
zke -p $G init --policy site --site dc1=100 --site dc2=50 \
    --operator-auth "$T/op.auth" --member-auth "$T/mem.auth"
rc=$?
check "init exits 0" [ "$rc" = 0 ]
check "init prints no secret" eval '! grep -q -e opsecret -e mempw "$T/out" "$T/err"'
DIR_ACL="digest:$OPID RWCDA;digest:$MEMID RCD;world:anyone R;"
check "ancestor /sec: operator ALL, member READ|CREATE, world READ" \
    acl_is /sec "digest:$OPID RWCDA;digest:$MEMID RC;world:anyone R;"
for p in $G $G/nodes $G/election; do
    check "$p: operator ALL, member READ|CREATE|DELETE, world READ" acl_is $p "$DIR_ACL"
done
check "$G/config: operator ALL, member READ, world READ" \
    acl_is $G/config "digest:$OPID RWCDA;digest:$MEMID R;world:anyone R;"
check "$G/switchover exists from init: operator ALL, member READ, world READ" \
    acl_is $G/switchover "digest:$OPID RWCDA;digest:$MEMID R;world:anyone R;"
for p in $G/config/guard $G/switchover/guard; do
    check "$p: operator ALL, world READ (makes its parent undeletable)" \
        acl_is $p "digest:$OPID RWCDA;world:anyone R;"
done

# ---------------------------------------------------------------------------
# 2. Daemons with the member credential run and elect a leader
# ---------------------------------------------------------------------------
log "three daemons with the member credential"
check "n1 (dc1, priority 30) starts" start_node n1 $G dc1 30 "$T/mem.auth"
check "n1 becomes the READY leader" wait_until $SETTLE_MS one_ready_leader $G
check "n2 (dc1, priority 20) starts" start_node n2 $G dc1 20 "$T/mem.auth"
check "n3 (dc2, priority 10) starts" start_node n3 $G dc2 10 "$T/mem.auth"
for n in n1 n2 n3; do
    check "$n: /health 200 (connected and registered)" wait_until $SETTLE_MS is_code $n /health 200
done
check "exactly one READY leader, n1" eval 'one_ready_leader $G && [ "$LEADER" = n1 ]'
L0=$LEADER E0=$EPOCH
check "no daemon reports an authorization error" \
    eval '! grep -h "ENOAUTH" "$T"/n[123].events'

# the znodes the members created: their identity ALL, world READ
MEMBER_ACL="digest:$MEMID RWCDA;world:anyone R;"
wait_until 5000 eval '[ "$(zks exists $G/history)" = ZOK ]'
for p in elected leader history nodes/n1 nodes/n2; do
    check "$G/$p (made by a member): member ALL, world READ" acl_is $G/$p "$MEMBER_ACL"
done
zks ls $G/election > "$T/children"
N2CHILD=$(grep '^n2_' "$T/children" | head -n 1)
N1CHILD=$(grep '^n1_' "$T/children" | head -n 1)
check "n2's election znode exists ($N2CHILD)" [ -n "$N2CHILD" ]
check "an election znode: member ALL, world READ" acl_is "$G/election/$N2CHILD" "$MEMBER_ACL"

# ---------------------------------------------------------------------------
# 3. Nobody (no credential) and an unknown user
# ---------------------------------------------------------------------------
log "an unauthenticated client"
zks get $G/config > "$T/config.before"
zks get $G/elected > "$T/elected.before"
check "anonymous: may read config (world READ)" [ -s "$T/config.before" ]
expect_zk ZNOAUTH "anonymous: setData config" set $G/config '{"v":1,"sites":{"dc2":999}}'
expect_zk ZNOAUTH "anonymous: delete config" delete $G/config
expect_zk ZNOAUTH "anonymous: setData elected" set $G/elected '{"v":1}'
expect_zk ZNOAUTH "anonymous: delete elected" delete $G/elected
expect_zk ZNOAUTH "anonymous: setData leader" set $G/leader '{"v":1}'
expect_zk ZNOAUTH "anonymous: delete leader" delete $G/leader
expect_zk ZNOAUTH "anonymous: setData history" set $G/history '[]'
expect_zk ZNOAUTH "anonymous: delete history" delete $G/history
expect_zk ZNOAUTH "anonymous: delete another member's record nodes/n2" delete $G/nodes/n2
expect_zk ZNOAUTH "anonymous: setData nodes/n2" set $G/nodes/n2 '{"v":1}'
expect_zk ZNOAUTH "anonymous: delete n2's election znode" delete "$G/election/$N2CHILD"
expect_zk ZNOAUTH "anonymous: create a fake member record nodes/fake" \
    create $G/nodes/fake '{"v":1,"id":"fake"}' ephemeral
expect_zk ZNOAUTH "anonymous: create a fake election znode" \
    create "$G/election/fake_0123456789abcdef0123456789abcdef_" fake sequential
expect_zk ZNOAUTH "anonymous: create switchover" create $G/switchover '{"v":1,"id":1}'
expect_zk ZNOAUTH "anonymous: create a znode in the base path" create $G/extra x
log "a client with an unknown user's credential"
expect_zk ZNOAUTH "unknown user: setData config" -a "$T/intruder.auth" set $G/config x
expect_zk ZNOAUTH "unknown user: setData elected" -a "$T/intruder.auth" set $G/elected x
expect_zk ZNOAUTH "unknown user: delete nodes/n2" -a "$T/intruder.auth" delete $G/nodes/n2
expect_zk ZNOAUTH "unknown user: create nodes/fake" -a "$T/intruder.auth" create $G/nodes/fake x
expect_zk ZNOAUTH "member with a wrong password: setData elected" -a "$T/wrong.auth" set $G/elected x
expect_zk ZNOAUTH "member with a wrong password: delete nodes/n2" -a "$T/wrong.auth" delete $G/nodes/n2
zks get $G/config > "$T/config.after"
check "config unchanged" cmp -s "$T/config.before" "$T/config.after"
check "member records and election znodes all there" \
    eval '[ "$(zks ls $G/nodes | tr "\n" " ")" = "n1 n2 n3 " ] &&
          [ "$(zks ls $G/election | wc -l)" = 3 ]'
check "the leader is still n1 at the same epoch" \
    eval 'one_ready_leader $G && [ "$LEADER" = "$L0" ] && [ "$EPOCH" = "$E0" ]'

# ---------------------------------------------------------------------------
# 4. The member identity: no config, no switchover
# ---------------------------------------------------------------------------
log "a client with the member credential"
expect_zk ZNOAUTH "member: setData config" -a "$T/mem.auth" set $G/config '{"v":1,"sites":{"dc2":999}}'
expect_zk ZOK "member: may read config" -a "$T/mem.auth" exists $G/config
# Members have DELETE and CREATE on the base path (for elected, leader and
# history), and ZooKeeper checks DELETE and CREATE on the parent. init closes
# that hole for config and switchover: both exist from the start and each has
# an operator-owned guard child, so a member can neither create them nor
# delete them (ZooKeeper never deletes a znode with children), nor delete the
# guards (that needs DELETE on config/switchover themselves). See README.
zks get $G/switchover > "$T/switchover.before"
expect_zk ZNODEEXISTS "member: create switchover (it exists from init)" \
    -a "$T/mem.auth" create $G/switchover 'written-by-a-member'
check "member: switchover unchanged" eval 'zks get $G/switchover | cmp -s - "$T/switchover.before"'
expect_zk ZNOAUTH "member: delete config's guard" -a "$T/mem.auth" delete $G/config/guard
expect_zk ZNOAUTH "member: delete switchover's guard" -a "$T/mem.auth" delete $G/switchover/guard
if [ "$(zks exists $G/switchover)" = ZOK ]; then
    note "a member created $G/switchover; removed with the super digest"
    zks -a "$T/super.auth" delete $G/switchover > /dev/null
fi
expect_zk ZNOTEMPTY "member: delete config (guarded)" -a "$T/mem.auth" delete $G/config
check "member: config unchanged" eval 'zks get $G/config | cmp -s - "$T/config.before"'
if [ "$(zks exists $G/config)" = ZNONODE ]; then
    expect_zk ZNOAUTH "member: create config (after deleting it)" \
        -a "$T/mem.auth" create $G/config "$(cat "$T/config.before")"
    note "a member replaced $G/config; the operator restores it"
    zks -a "$T/super.auth" delete $G/config > /dev/null
    "$ZKELECT" -z "$HOSTS" -a "$T/op.auth" -p $G init --policy site --site dc1=100 \
        --site dc2=50 --operator-auth "$T/op.auth" --member-auth "$T/mem.auth" \
        > /dev/null 2>&1 < /dev/null
    check "config restored by the operator with its ACL" \
        acl_is $G/config "digest:$OPID RWCDA;digest:$MEMID R;world:anyone R;"
fi
check "after the member's attempts: n1 is the one READY leader again" \
    wait_until $SETTLE_MS eval 'one_ready_leader $G && [ "$LEADER" = n1 ]'
E0=$EPOCH

# ---------------------------------------------------------------------------
# 5. The CLI: no credential, the member's, a wrong one, the operator's
# ---------------------------------------------------------------------------
log "the CLI"
zke -p $G set-site-priority dc2 60
rc=$?
check "CLI without credentials: set-site-priority exits 1 ($rc)" [ "$rc" = 1 ]
check "... 'not authorized', naming $G/config" \
    grep -qF "cannot write $G/config: not authorized" "$T/err"
zke -p $G pause
rc=$?
check "CLI without credentials: pause exits 1 naming $G/config ($rc)" \
    eval '[ "$rc" = 1 ] && grep -qF "cannot write $G/config: not authorized" "$T/err"'
zke -p $G switchover --to n2
rc=$?
check "CLI without credentials: switchover exits 1 naming $G/switchover ($rc)" \
    eval '[ "$rc" = 1 ] && grep -qF "$G/switchover: not authorized" "$T/err"'
zke -a "$T/mem.auth" -p $G set-site-priority dc2 60
rc=$?
check "CLI with the member credential: set-site-priority exits 1, not authorized ($rc)" \
    eval '[ "$rc" = 1 ] && grep -qF "cannot write $G/config: not authorized" "$T/err"'
zke -a "$T/opwrong.auth" -p $G set-site-priority dc2 60
rc=$?
check "CLI with a wrong operator password: exits 1, not authorized ($rc)" \
    eval '[ "$rc" = 1 ] && grep -qF "cannot write $G/config: not authorized" "$T/err"'
check "no CLI message shows a password" \
    eval '! grep -q -e opsecret -e WRONG -e mempw "$T/err" "$T/out"'
zke -p $G status
rc=$?
check "CLI without credentials: status works (world READ) ($rc)" \
    eval '[ "$rc" = 0 ] && grep -q "^leader: *n1 READY" "$T/out"'

zke -a "$T/op.auth" -p $G set-site-priority dc2 60 --wait=20
rc=$?
check "CLI with the operator credential: set-site-priority --wait exits 0 ($rc)" \
    eval '[ "$rc" = 0 ] && grep -q "^n1 READY" "$T/out"'
zke -a "$T/op.auth" -p $G switchover --to n2 --wait=20
rc=$?
check "CLI with the operator credential: switchover --to n2 --wait exits 0 ($rc)" \
    eval '[ "$rc" = 0 ] && grep -q "^n2 READY" "$T/out"'
check "the operator's switchover znode: operator ALL, member READ, world READ" \
    acl_is $G/switchover "digest:$OPID RWCDA;digest:$MEMID R;world:anyone R;"
check "n2 is the one READY leader" wait_until $SETTLE_MS eval 'one_ready_leader $G && [ "$LEADER" = n2 ]'
E1=$EPOCH
check "the epoch grew with the switchover ($E0 -> $E1)" [ "$E1" -gt "$E0" ]
expect_zk ZNOAUTH "anonymous: setData switchover" set $G/switchover '{"v":1,"id":99,"to":"n3"}'
expect_zk ZNOAUTH "member: setData switchover" -a "$T/mem.auth" set $G/switchover \
    '{"v":1,"id":99,"to":"n3","at_ms":1,"by":"member"}'
# DELETE on the base path would allow it, but the guard child prevents it:
expect_zk ZNOTEMPTY "member: delete switchover (guarded)" -a "$T/mem.auth" delete $G/switchover
check "member: the switchover znode is still there" eval '[ "$(zks exists $G/switchover)" = ZOK ]'

# ---------------------------------------------------------------------------
# 6. Daemons with a wrong password and with no credential do not act
# ---------------------------------------------------------------------------
# n4 and n5 would be the best choice (priority 100 on dc1) if they joined.
for spec in "n4 $T/wrong.auth wrong-password" "n5 - no-credential"; do
    set -- $spec
    n=$1 auth=$2 what=$3
    [ "$auth" = - ] && auth=
    log "$n: a daemon with a $what"
    pick_port "port[$n]"
    start_node $n $G dc1 100 "$auth"
    wait_exit $n 30000
    rc=$?
    check "$n ($what): exits 1 ($rc)" [ "$rc" = 1 ]
    check "$n ($what): logs 'cannot join the group $G as $n: not authorized'" \
        grep -qF "cannot join the group $G as $n: not authorized" "$T/$n.log"
    check "$n ($what): event log has -error ENOAUTH naming $G" \
        eval 'grep -F "\"event\":\"-error\"" "$T/$n.events" |
              grep -F "\"error_name\":\"ENOAUTH\"" | grep -qF "$G"'
    check "$n ($what): no +registered, +elector, +decision, +takeover, +ready event" \
        eval '! grep -E "\"event\":\"(\+registered|\+elector|\+decision|\+takeover|\+ready)\"" \
              "$T/$n.events"'
    check "$n ($what): no member record, no election znode" \
        eval '[ "$(zks exists $G/nodes/$n)" = ZNONODE ] && ! zks ls $G/election | grep -q "^${n}_"'
    check "$n ($what): the leader is still n2 at epoch $E1" \
        eval 'one_ready_leader $G && [ "$LEADER" = n2 ] && [ "$EPOCH" = "$E1" ]'
    check "$n ($what): does not print its password" \
        eval '! grep -q WRONG "$T/$n.log"'
done

# ---------------------------------------------------------------------------
# 7. Everyone leaves
# ---------------------------------------------------------------------------
log "SIGTERM of every node"
for n in n1 n2 n3; do
    stop_node $n
    rc=$?
    check "$n exits 0 after SIGTERM ($rc)" [ "$rc" = 0 ]
done
check "the leader znode is gone with its members" \
    eval '[ "$(zks exists $G/leader)" = ZNONODE ]'
check "no sanitizer report in any log" no_sanitizer_report

finish
