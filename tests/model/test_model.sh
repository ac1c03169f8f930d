#!/bin/sh
# test_model: the Spin model of the election protocol, default tier
# (doc/model/README.md): the bounded safety check, the bounded liveness
# checks (issue 16's settle, holds, drain and scheduled switchover too;
# issue 17's two-slot model, -DSLOTS=2; issue 18's direct READY create and
# the leader's resign with the successor record; issue 18's quiet members
# and the wake, on in every check; the C's view changes of 574a8bb and
# ddc3ab4, on in every check, with their two checks; issue 18's fast
# handover, on with the resign, its two checks and its reachability
# check), and the fast mutants (issue 17's seven, issue 18's three, the
# wake's and the election order's (issue 18) nine, the view changes' four,
# the fast handover's three too), each of which must be caught.
# About 7 to 14 minutes of one CPU, by the machine (the slowest mutants run
# in the full tier, run.sh --deep), in two checks at a time on a machine
# with two CPUs or more (MODEL_JOBS, default 2, each check under nice 19 and
# its own 4 GB bound).
# ZKELECT_MODEL_TIER=smoke runs run.sh --smoke instead: one safety check and
# one mutant, which show that the model builds, runs and catches a bug. The
# model's outcome does not depend on the build, so tests/quickstart.sh sets it
# for make distcheck only; its sanitizer build's make check runs the default
# tier. Any other value than "test" (the default) or "smoke" fails.
# Prints "ok"/"FAIL" per check and "test_model: N passed, N failed" last;
# exits 1 on any failure. Needs spin (Debian package "spin"): without it the
# test FAILS (tests/quickstart.sh installs it), it is never skipped.
NAME=test_model
top=${ZKELECT_TOP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
if ! command -v spin >/dev/null 2>&1; then
    echo "FAIL - spin not found: install the Debian package \"spin\" (apt-get install spin; tests/quickstart.sh does)"
    echo "$NAME: 0 passed, 1 failed"
    exit 1
fi
tier=${ZKELECT_MODEL_TIER:-test}
case $tier in
test|smoke) ;;
*)
    echo "FAIL - ZKELECT_MODEL_TIER=$tier: expected \"test\" (the default) or \"smoke\""
    echo "$NAME: 0 passed, 1 failed"
    exit 1 ;;
esac
[ "$tier" = smoke ] &&
    echo "# ZKELECT_MODEL_TIER=smoke: run.sh --smoke only (the default tier is run.sh --test)"
if [ -z "${MODEL_JOBS:-}" ]; then
    MODEL_JOBS=1
    [ "$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)" -ge 2 ] && MODEL_JOBS=2
    export MODEL_JOBS
fi
out=$(sh "$top/doc/model/run.sh" --"$tier" 2>&1)
rc=$?
echo "$out"
passed=$(echo "$out" | grep -c '^ok - ')
failed=$(echo "$out" | grep -c '^FAIL - ')
if [ "$rc" != 0 ] && [ "$failed" = 0 ]; then
    echo "FAIL - doc/model/run.sh exited with status $rc"
    failed=1
fi
echo "$NAME: $passed passed, $failed failed"
[ "$failed" = 0 ]
