#!/bin/sh
# check-wraps.sh - every ZooKeeper client function that libzkelect's objects
# call must be wrapped by the fake (tests/fakezk/Makefile.inc, FAKEZK_WRAP):
# one that is not would be handed the fake's handle by the real client.
# Allowed unwrapped: the *_op_init helpers, zerror, and ZOO_* constants.
top_src=${ZKELECT_TOP_SRCDIR:-$(dirname "$0")/../..}
top_build=${ZKELECT_TOP_BUILDDIR:-.}
lib=$top_build/src/lib/.libs/libzkelect_core.a
name=check-wraps.sh
if ! command -v nm >/dev/null 2>&1 || [ ! -f "$lib" ]; then
    echo "$name: nm or $lib missing: skipped"
    exit 77
fi
wrapped=$(sed -n 's/.*--wrap=\([A-Za-z0-9_]*\).*/\1/p' "$top_src/tests/fakezk/Makefile.inc" |
    tr ' ' '\n'; grep -o -- '--wrap=[A-Za-z0-9_]*' "$top_src/tests/fakezk/Makefile.inc" |
    sed 's/--wrap=//')
missing=""
for sym in $(nm -u "$lib" | awk '{print $2}' | grep -E '^(zoo_|zookeeper_|is_unrecoverable)' | sort -u); do
    case $sym in
    *_op_init) continue ;;
    esac
    if ! echo "$wrapped" | grep -qx "$sym"; then
        missing="$missing $sym"
    fi
done
if [ -n "$missing" ]; then
    echo "$name: libzkelect calls ZooKeeper functions the fake does not wrap:$missing"
    echo "$name: add them to FAKEZK_WRAP (tests/fakezk/Makefile.inc) and to fakezk.c"
    echo "$name: 0 passed, 1 failed"
    exit 1
fi
echo "$name: every ZooKeeper function libzkelect calls is wrapped"
echo "$name: 1 passed, 0 failed"
