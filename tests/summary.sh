#!/bin/sh
# summary.sh LOG... - add up the "N passed, N failed" lines that every test
# program prints last, and print the total as the run's closing line. A test
# whose log has no such line but that automake marked FAIL/ERROR counts as one
# failure, so a crash can never vanish from the total. No test skips (a
# missing tool fails the test, and tests/quickstart.sh installs every tool):
# one that exits 77 all the same counts as a failure.
passed=0 failed=0 missing=""
for log in "$@"; do
    [ -f "$log" ] || { missing="$missing $log"; failed=$((failed + 1)); continue; }
    line=$(grep -E '(^|: )[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
    trs=${log%.log}.trs
    res=$(sed -n 's/^:test-result: //p' "$trs" 2>/dev/null | head -n 1)
    if [ -n "$line" ]; then
        set -- $(echo "$line" | sed -E 's/^(.*[^0-9])?([0-9]+) passed, ([0-9]+) failed.*$/\2 \3/')
        p=$1 f=$2
        passed=$((passed + p)); failed=$((failed + f))
        if [ "$f" = 0 ] && { [ "$res" = FAIL ] || [ "$res" = ERROR ]; }; then
            echo "summary: $log: exited with an error after its tests passed"
            failed=$((failed + 1))
        fi
    elif [ "$res" = SKIP ]; then
        echo "summary: $log: skipped, counted as a failure (a test that cannot run fails)"
        failed=$((failed + 1))
    elif [ "$res" = PASS ]; then
        passed=$((passed + 1))
    else
        echo "summary: $log: no result line (${res:-no result})"
        failed=$((failed + 1))
    fi
done
[ -z "$missing" ] || echo "summary: missing logs:$missing"
echo "tests: $passed passed, $failed failed"
[ "$failed" = 0 ]
