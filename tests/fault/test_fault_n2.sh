#!/bin/sh
# test_fault_n2 - the default tier's fault run with N = 2 active leaders
# (slots, issue 17): test_fault -l 2, seed 1, the default 90 s, every
# check per slot (tests/fault/README). Run by `make check`, after the build.
prog=${ZKELECT_TOP_BUILDDIR:-.}/tests/fault/test_fault
if [ ! -x "$prog" ]; then
    echo "test_fault_n2: $prog is not built"
    echo "test_fault_n2: 0 passed, 1 failed"
    exit 1
fi
exec "$prog" --name test_fault_n2 -l 2 -s 1 "$@"
