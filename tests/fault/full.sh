#!/bin/sh
# full.sh - the full tier of the fault-injection harness: test_fault with
# ten seeds (issue 14 asks at least ten), each run FAULT_DURATION seconds (default 120; faults stop
# FAULT_QUIET seconds, default 25, before the end), one after the other;
# then FAULT_N2_SEEDS (default 44 77 110 220 330) with N = 2 active leaders
# (slots, issue 17: test_fault -l 2, every check per slot; "" for none).
#
#   sh tests/fault/full.sh              (from a build directory, after make check)
#   make check-full                     (the same, from the build directory)
#   FAULT_SEEDS="1 2 3 4" FAULT_DURATION=300 sh tests/fault/full.sh
#
# The build directory: $ZKELECT_TOP_BUILDDIR, else the current directory,
# ./build-full, the top of the tree or its build-full (tests/full-tier.sh
# runs it from the top of the tree), whichever has tests/fault/test_fault.
#
# Each run prints its checks, its figures and its own summary line; the last
# line is "test_fault_full: N passed, N failed" over every run. A failed
# run keeps its work directory (its path is printed).
set -u

top=$(cd "$(dirname "$0")/../.." && pwd)
builddir=${ZKELECT_TOP_BUILDDIR:-}
if [ -z "$builddir" ]; then
    for d in "$(pwd)" "$(pwd)/build-full" "$top" "$top/build-full"; do
        if [ -x "$d/tests/fault/test_fault" ]; then
            builddir=$d
            break
        fi
    done
fi
prog=${builddir:-.}/tests/fault/test_fault
seeds=${FAULT_SEEDS:-11 22 33 44 55 66 77 88 99 110}
n2_seeds=${FAULT_N2_SEEDS-44 77 110 220 330}
duration=${FAULT_DURATION:-120}
quiet=${FAULT_QUIET:-25}

if [ ! -x "$prog" ]; then
    echo "full.sh: tests/fault/test_fault is not built (looked in \$ZKELECT_TOP_BUILDDIR, ." \
        "./build-full, $top, $top/build-full): run make check first" >&2
    echo "test_fault_full: 0 passed, 1 failed"
    exit 1
fi
log=$(mktemp "${TMPDIR:-/tmp}/fault-full.XXXXXX") || exit 1
trap 'rm -f "$log"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
passed=0
failed=0
runs_failed=""
# runs: "LEADERS:SEED", one leader first
runs=""
for seed in $seeds; do
    runs="$runs 1:$seed"
done
for seed in $n2_seeds; do
    runs="$runs 2:$seed"
done
for run in $runs; do
    n=${run%%:*}
    seed=${run#*:}
    name=test_fault_s$seed
    [ "$n" -eq 1 ] || name=test_fault_n${n}_s$seed
    "$prog" --name "$name" -l "$n" -s "$seed" -d "$duration" -q "$quiet" 2>&1 | tee "$log"
    out=$(tail -n 1 "$log")
    p=$(echo "$out" | sed -n "s/^$name: \([0-9]*\) passed, \([0-9]*\) failed\$/\1/p")
    f=$(echo "$out" | sed -n "s/^$name: \([0-9]*\) passed, \([0-9]*\) failed\$/\2/p")
    if [ -z "$p" ] || [ -z "$f" ]; then
        echo "full.sh: $name: no summary line" >&2
        p=0
        f=1
    fi
    passed=$((passed + p))
    failed=$((failed + f))
    [ "$f" -eq 0 ] || runs_failed="$runs_failed $name"
done
[ -z "$runs_failed" ] || echo "full.sh: failed runs:$runs_failed"
echo "test_fault_full: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
