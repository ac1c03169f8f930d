#!/bin/bash
# test_badpolicy.sh - zkelectd with a broken election policy: a module whose
# init() fails (policies/failinit.c), one whose choose() names a node that
# does not exist (policies/unknown.c), a module path that does not exist,
# and a policy name in the group's config that no node has.
#
# zkelectd loads the policy only when the node becomes the elector (the
# library does; `zkelectd -n` cannot load policies through the public API),
# so what is tested is what happens then: a clear -error event naming the
# policy and the problem, no decision, no crash, and the group electing as
# soon as the broken node is gone. Whether `zkelectd -n` and the start
# refuse such a policy is printed as notes.
#
# Prints "test_badpolicy: N passed, N failed" last; exits 1 on any failure.
# By hand: ZKELECT_TOP_BUILDDIR=BUILD ZKELECT_TOP_SRCDIR=SRC bash tests/security/test_badpolicy.sh
set -u

NAME=test_badpolicy
TEST_DEADLINE_S=150
if [ -n "${ZKELECT_TOP_SRCDIR:-}" ]; then
    . "$ZKELECT_TOP_SRCDIR/tests/security/seclib.sh"
elif [ -f "$(dirname "$0")/seclib.sh" ]; then
    . "$(dirname "$0")/seclib.sh"
else
    echo "$NAME: set ZKELECT_TOP_SRCDIR"
    echo "$NAME: 0 passed, 1 failed"
    exit 1
fi

FAILINIT=$SECPOLICIES/failinit.so
UNKNOWN=$SECPOLICIES/unknown.so
MISSING=/nonexistent/zkelect/no-such-policy.so
sec_init "$ZKELECTD" "$ZKELECT" "$ZKLOCAL" "$ZKSEC"
for f in "$FAILINIT" "$UNKNOWN"; do
    [ -f "$f" ] || { nok "$f is not built (make check builds it)"; finish; }
done
command -v curl > /dev/null || { nok "curl is not installed"; finish; }

# -error events of NODE (EVENT lines whose error_name is NAME) containing TEXT
policy_error() {
    grep -F '"event":"-error"' "$T/$1.events" 2>/dev/null |
        grep -F "\"error_name\":\"$2\"" | grep -q -F -- "$3"
}

# no_decision NODE: it never published +decision.
no_decision() { ! has_event "$T/$1.events" +decision; }

# ---------------------------------------------------------------------------
# 0. What -n says (no ZooKeeper needed)
# ---------------------------------------------------------------------------
HOSTS=127.0.0.1:2181
pick_port "port[chk]"
write_config chk /pol/check dc1 10 "" "$FAILINIT"
"$ZKELECTD" -n -c "$T/chk.ini" > "$T/out" 2> "$T/err"
rc=$?
# the module loads; its init refuses the [policy] options: the message
# names the file, the section, the module and the policy's own reason
check "zkelectd -n refuses a policy whose init fails, naming the module and its reason ($rc)" \
    eval '[ "$rc" = 1 ] && grep -qF "chk.ini: [policy]: policy module " "$T/err" &&
          grep -qF "failinit.so: policy failinit init failed: failinit: refusing to start" "$T/err"'
write_config chk /pol/check dc1 10 "" "$MISSING"
"$ZKELECTD" -n -c "$T/chk.ini" > "$T/out" 2> "$T/err"
rc=$?
check "zkelectd -n refuses a policy module that does not exist, naming [election] policy ($rc)" \
    eval '[ "$rc" = 1 ] && grep -qF "[election] policy" "$T/err"'
unset "port[chk]"

start_zk

# ---------------------------------------------------------------------------
# 1. A policy whose init fails
# ---------------------------------------------------------------------------
G=/pol/failinit
log "$G: a daemon whose policy's init fails"
zke -p $G init --site dc1=100
check "init $G" [ $? = 0 ]
start_node f1 $G dc1 10 "" "$FAILINIT"
if ! alive f1; then
    wait_exit f1 1000
    rc=$?
    check "f1 is refused at start with a message naming the policy ($rc)" \
        eval '[ "$rc" = 1 ] && grep -qF "failinit" "$T/f1.log"'
else
    note "f1 (a policy whose init fails) starts: the policy is loaded only on the elector"
    check "f1 joins the group (/health 200)" wait_until $SETTLE_MS is_code f1 /health 200
    check "f1 becomes the elector" wait_until $SETTLE_MS has_event "$T/f1.events" +elector
    check "f1: -error EPOLINIT naming the module and init's message" \
        wait_until $SETTLE_MS policy_error f1 EPOLINIT \
        "cannot load policy $FAILINIT: policy module $FAILINIT: policy failinit init failed: failinit: refusing to start (test policy)"
    check "f1: the daemon's log says it too" \
        grep -qF "init failed: failinit: refusing to start (test policy)" "$T/f1.log"
    check "f1: no decision, no leader" eval 'no_decision f1 && no_leader $G'
    check "f1: still running" alive f1
    start_node f2 $G dc1 5 "" site
    check "f2 (policy site) joins" wait_until $SETTLE_MS is_code f2 /health 200
    if no_leader $G && no_decision f2; then
        note "while f1 is the elector nobody leads: its broken policy blocks every decision of the group"
    fi
    check "f1 reported the failed load once, not in a loop" \
        eval '[ "$(grep -c "cannot load policy" "$T/f1.events")" -le 3 ]'
    stop_node f1
    rc=$?
    check "f1 exits 0 after SIGTERM ($rc)" [ "$rc" = 0 ]
    check "without f1, f2 becomes the elector and the READY leader" \
        wait_until $SETTLE_MS eval 'one_ready_leader $G && [ "$LEADER" = f2 ]'
    stop_node f2
fi

# ---------------------------------------------------------------------------
# 2. A policy that chooses a node that does not exist
# ---------------------------------------------------------------------------
G=/pol/unknown
log "$G: a daemon whose policy chooses a node that does not exist"
zke -p $G init --site dc1=100
check "init $G" [ $? = 0 ]
start_node u1 $G dc1 10 "" "$UNKNOWN"
if ! alive u1; then
    wait_exit u1 1000
    nok "u1 exited at start: $(tail -n 3 "$T/u1.log")"
else
    check "u1 joins the group (/health 200)" wait_until $SETTLE_MS is_code u1 /health 200
    check "u1: -error EBADCHOICE: index 8 is not a member, refused" \
        wait_until $SETTLE_MS policy_error u1 EBADCHOICE \
        "policy unknown ($UNKNOWN) chose index 8, not -1 or a member index below 1: refused"
    check "u1: no decision, no leader" eval 'no_decision u1 && no_leader $G'
    start_node u2 $G dc1 5 "" site
    check "u2 (policy site) joins" wait_until $SETTLE_MS is_code u2 /health 200
    check "u1 refuses the choice again when u2 joins (index 9 of 2)" \
        wait_until $SETTLE_MS policy_error u1 EBADCHOICE "chose index 9, not -1 or a member index below 2"
    check "still no decision, no leader; u1 and u2 running" \
        eval 'no_decision u1 && no_leader $G && all_alive u1 u2'
    stop_node u1
    rc=$?
    check "u1 exits 0 after SIGTERM ($rc)" [ "$rc" = 0 ]
    check "without u1, u2 becomes the READY leader" \
        wait_until $SETTLE_MS eval 'one_ready_leader $G && [ "$LEADER" = u2 ]'
    stop_node u2
fi

# ---------------------------------------------------------------------------
# 3. A policy module that does not exist
# ---------------------------------------------------------------------------
G=/pol/missing
log "$G: a daemon whose policy module does not exist"
zke -p $G init --site dc1=100
check "init $G" [ $? = 0 ]
start_node m1 $G dc1 10 "" "$MISSING"
if ! alive m1; then
    wait_exit m1 1000
    rc=$?
    check "m1 is refused at start with a message naming the module ($rc)" \
        eval '[ "$rc" = 1 ] && grep -qF "$MISSING" "$T/m1.log"'
else
    note "m1 (a policy module that does not exist) starts: the policy is loaded only on the elector"
    check "m1: -error ENOTFOUND naming the module" \
        wait_until $SETTLE_MS policy_error m1 ENOTFOUND "cannot load policy $MISSING"
    check "m1: no decision, no leader, still running" \
        eval 'no_decision m1 && no_leader $G && alive m1'
    stop_node m1
    rc=$?
    check "m1 exits 0 after SIGTERM ($rc)" [ "$rc" = 0 ]
fi

# ---------------------------------------------------------------------------
# 4. The group's config names a policy no node has
# ---------------------------------------------------------------------------
G=/pol/config
log "$G: the config names a policy that does not exist"
zke -p $G init --policy no-such-policy --site dc1=100
check "init $G --policy no-such-policy" [ $? = 0 ]
start_node c1 $G dc1 10 "" site
check "c1 joins the group (/health 200)" wait_until $SETTLE_MS is_code c1 /health 200
check "c1: -error ENOTFOUND naming no-such-policy" \
    wait_until $SETTLE_MS policy_error c1 ENOTFOUND "cannot load policy no-such-policy"
check "c1: no decision, no leader, still running" \
    eval 'no_decision c1 && no_leader $G && alive c1'
stop_node c1
rc=$?
check "c1 exits 0 after SIGTERM ($rc)" [ "$rc" = 0 ]

check "no sanitizer report in any log" no_sanitizer_report
finish
