#!/bin/sh
# run-fuzz.sh [SECONDS] [TARGET...] - the full fuzzing tier (not part of make
# check): build the libFuzzer targets with clang in a build directory of their
# own and run each for SECONDS (default 60), one after the other.
#
# TARGET: member elected leader config switchover history successor ini
# (default: all).
# Environment:
#   ZKELECT_FUZZ_BUILDDIR  build directory (default ${TMPDIR:-/tmp}/zkelect-fuzz-build);
#                          configured on first use with CC=clang --enable-fuzzing
#   CC                     the compiler for that first configure (default clang)
#   ZKELECT_FUZZ_JOBS      make -j (default 2)
#   ZKELECT_FUZZ_ARGS      more libFuzzer options, e.g. "-fork=4" or "-jobs=4"
#
# Each target fuzzes a working corpus in BUILDDIR/fuzz-run/TARGET/corpus,
# seeded from tests/fuzz/corpus/TARGET (copied again on every run; what the
# fuzzer adds stays there for the next run, the repository's seeds are never
# touched: by hand, never give a fuzz_NAME tests/fuzz/corpus/NAME as its first
# directory, libFuzzer writes new inputs there). Crash reproducers go to
# BUILDDIR/fuzz-run/TARGET/artifacts-TIME/.
# For each target it prints the executions, executions per second, coverage
# (libFuzzer's cov = edges, ft = features) and any crash, then the line
# "fuzz: N passed, N failed" (one per target). Exit status 0 when no target
# crashed, 1 when one did, 2 on a usage or build error.
set -u

usage() {
    echo "usage: $0 [SECONDS] [member|elected|leader|config|switchover|history|successor|ini ...]" >&2
    exit 2
}

secs=60
if [ $# -gt 0 ]; then
    case $1 in
    ''|*[!0-9]*) usage ;;
    *) secs=$1; shift ;;
    esac
fi
[ "$secs" -gt 0 ] || usage
all="member elected leader config switchover history successor ini"
targets=${*:-$all}
for t in $targets; do
    case " $all " in
    *" $t "*) ;;
    *) echo "$0: unknown target '$t' (known: $all)" >&2; exit 2 ;;
    esac
done

srcdir=$(cd "$(dirname "$0")/../.." && pwd) || exit 2
builddir=${ZKELECT_FUZZ_BUILDDIR:-${TMPDIR:-/tmp}/zkelect-fuzz-build}
jobs=${ZKELECT_FUZZ_JOBS:-2}
extra=${ZKELECT_FUZZ_ARGS:-}

if [ ! -x "$srcdir/configure" ]; then
    echo "$0: $srcdir/configure is missing: run autoreconf -fi there first" >&2
    exit 2
fi
mkdir -p "$builddir" || exit 2
cd "$builddir" || exit 2
if [ ! -f Makefile ]; then
    echo "run-fuzz: configuring $builddir (CC=${CC:-clang} --enable-fuzzing)"
    if ! "$srcdir/configure" CC="${CC:-clang}" --enable-fuzzing >configure.log 2>&1; then
        tail -n 20 configure.log >&2
        echo "$0: configure failed (log: $builddir/configure.log)" >&2
        exit 2
    fi
fi
if ! grep -q '^FUZZ_LDFLAGS = .*fuzzer' Makefile; then
    echo "$0: $builddir is not configured with --enable-fuzzing" >&2
    exit 2
fi
progs=
for t in $targets; do
    progs="$progs tests/fuzz/fuzz_$t"
done
echo "run-fuzz: building$progs"
# shellcheck disable=SC2086
if ! make -j"$jobs" $progs >make.log 2>&1; then
    tail -n 30 make.log >&2
    echo "$0: build failed (log: $builddir/make.log)" >&2
    exit 2
fi

# Sanitizer reports stop at the first error; leaks count as crashes.
ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=0:detect_leaks=1}
UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export ASAN_OPTIONS UBSAN_OPTIONS

passed=0 failed=0
stamp=$(date +%Y%m%d-%H%M%S)
for t in $targets; do
    run=$builddir/fuzz-run/$t
    corpus=$run/corpus
    art=$run/artifacts-$stamp
    log=$run/fuzz-$stamp.log
    mkdir -p "$corpus" "$art"
    cp -L "$srcdir/tests/fuzz/corpus/$t"/* "$corpus/" 2>/dev/null
    if [ -d "$srcdir/tests/fuzz/crashes/$t" ]; then
        cp -L "$srcdir/tests/fuzz/crashes/$t"/* "$corpus/" 2>/dev/null
    fi
    case $t in
    ini) dict=$srcdir/tests/fuzz/ini.dict ;;
    *) dict=$srcdir/tests/fuzz/codec.dict ;;
    esac
    echo "run-fuzz: fuzz_$t for ${secs}s (log: $log)"
    # shellcheck disable=SC2086
    "$builddir/tests/fuzz/fuzz_$t" -max_total_time="$secs" -max_len=4096 \
        -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        -dict="$dict" -artifact_prefix="$art/" $extra "$corpus" >"$log" 2>&1
    rc=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    eps=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
    last=$(grep -E '^#[0-9]+.*cov: ' "$log" | tail -n 1)
    cov=$(echo "$last" | sed -n 's/.* cov: \([0-9]*\).*/\1/p')
    ft=$(echo "$last" | sed -n 's/.* ft: \([0-9]*\).*/\1/p')
    ncorp=$(find "$corpus" -type f | wc -l)
    crashes=$(ls "$art" 2>/dev/null)
    printf 'fuzz_%s: %s execs, %s exec/s, cov %s, ft %s, corpus %s files' \
        "$t" "${execs:-?}" "${eps:-?}" "${cov:-?}" "${ft:-?}" "$ncorp"
    if [ "$rc" = 0 ] && [ -z "$crashes" ]; then
        echo ": no crash"
        passed=$((passed + 1))
        rmdir "$art" 2>/dev/null
    else
        echo ": FAILED (libFuzzer exit status $rc)"
        failed=$((failed + 1))
        for f in $crashes; do
            echo "  reproducer: $art/$f"
            echo "    replay: $builddir/tests/fuzz/fuzz_$t $art/$f"
        done
        # The report: our property message or the sanitizer's summary.
        grep -E "^(fuzz_$t:|==[0-9]+== ?ERROR|SUMMARY:|.*runtime error:)" "$log" |
            head -n 8 | sed 's/^/  /'
    fi
done
echo "fuzz: $passed passed, $failed failed"
[ "$failed" = 0 ]
