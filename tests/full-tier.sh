#!/bin/sh
# full-tier.sh - the long checks CI does not run by default:
#
#   1. valgrind (memcheck) over the unit tests and the library's integration
#      tests, in a plain build (no sanitizers);
#   2. libFuzzer on every payload decoder and the INI loader (clang),
#      FUZZ_SECONDS each (default 300): tests/fuzz/run-fuzz.sh;
#   3. long fault-injection runs with several seeds (tests/fault, when present);
#   4. the deeper Spin model check (doc/model, when present);
#   5. the burst: 10,000 groups on one handle with connection losses
#      mid-burst (tests/integration/test_burst; the default tier runs 2,000),
#      plus the fake-ZooKeeper tests under valgrind;
#   6. the Debian packages (root only): built with dpkg-buildpackage,
#      lintian, installed into a fresh Debian 12 chroot (debootstrap from
#      this machine's mirror), a leader elected there by two packaged
#      daemons: tests/deb/test-debs.sh;
#   7. fresh: the README's two quick start commands, as written, on a fresh
#      Debian 12 (debootstrap minbase plus git; needs root, the package
#      debootstrap and the Debian mirror: tests/fresh-debian.sh, ~10 min).
#
#   sh tests/full-tier.sh [valgrind|fuzz|fault|model|burst|deb|fresh ...]   (default: all)
#
# Run from the top of a clone after `sh tests/quickstart.sh test` (which
# installs the packages, except two: clang for fuzz and debootstrap for
# fresh, `apt-get install clang debootstrap`; without them those parts
# fail); it builds in ./build-full. The last line is
# "full-tier: N passed, N failed" (one per part).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
parts=${*:-valgrind fuzz fault model burst deb fresh}
passed=0
failed=0
result() { if [ "$2" = 0 ]; then passed=$((passed + 1)); echo "full-tier: $1 passed"; else failed=$((failed + 1)); echo "full-tier: $1 FAILED"; fi; }

for p in $parts; do
    case $p in
    valgrind)
        command -v valgrind >/dev/null || { echo "full-tier: valgrind is not installed (apt-get install valgrind)"; result valgrind 1; continue; }
        mkdir -p build-full && cd build-full
        [ -f Makefile ] || ../configure >/dev/null
        make -j"$(nproc)" >/dev/null && make -j"$(nproc)" check TESTS= >/dev/null
        rc=$?
        if [ $rc = 0 ]; then
            # libtool --mode=execute runs valgrind on the real binary, not a wrapper
            VG="./libtool --mode=execute valgrind --quiet --error-exitcode=97 --leak-check=full \
                --errors-for-leak-kinds=definite --suppressions=$top/tests/valgrind.supp"
            export ZKELECT_TOP_SRCDIR="$top" ZKELECT_TOP_BUILDDIR="$(pwd)" \
                ZKELECT_POLICY_PATH="$(pwd)/policies/.libs"
            for t in tests/unit/test_codec tests/unit/test_config tests/unit/test_policies \
                     tests/unit/test_loader tests/unit/test_common tests/fakezk/test_fakezk \
                     tests/fakezk/test_fakezk_faults tests/fakezk/test_fakezk_bugs \
                     tests/fakezk/test_fakezk_quiet \
                     tests/integration/test_election tests/integration/test_slots; do
                echo "full-tier: valgrind $t"
                $VG "$t" >"$t.valgrind.log" 2>&1 || { rc=1; tail -n 30 "$t.valgrind.log"; }
                tail -n 1 "$t.valgrind.log"
            done
        fi
        cd "$top"
        result valgrind $rc
        ;;
    fuzz)
        sh tests/fuzz/run-fuzz.sh "${FUZZ_SECONDS:-300}"
        result fuzz $?
        ;;
    burst)
        mkdir -p build-full
        (cd build-full && { [ -f Makefile ] || ../configure >/dev/null; } &&
            make -j"$(nproc)" >/dev/null && make -j"$(nproc)" check TESTS= >/dev/null &&
            ZKELECT_POLICY_PATH="$(pwd)/policies/.libs" ZKELECT_BURST_GROUPS=10000 \
                ./tests/integration/test_burst)
        result burst $?
        ;;
    fault)
        mkdir -p build-full
        (cd build-full && { [ -f Makefile ] || ../configure >/dev/null; } &&
            make -j"$(nproc)" >/dev/null && make -j"$(nproc)" check TESTS= >/dev/null)
        ZKELECT_TOP_BUILDDIR="$top/build-full" ZKELECT_TOP_SRCDIR="$top" sh tests/fault/full.sh
        result fault $?
        ;;
    model)
        if [ -f doc/model/run.sh ]; then
            sh doc/model/run.sh --deep
            result model $?
        else
            echo "full-tier: doc/model/run.sh is not there; skipped"
        fi
        ;;
    deb)
        if [ ! -d debian ] || [ ! -f tests/deb/test-debs.sh ]; then
            echo "full-tier: deb needs a clone (a release tarball has no debian/); skipped"
        elif [ "$(id -u)" = 0 ]; then
            bash tests/deb/test-debs.sh
            result deb $?
        else
            echo "full-tier: deb needs root (debootstrap, chroot); skipped"
        fi
        ;;
    fresh)
        sh tests/fresh-debian.sh
        result fresh $?
        ;;
    *) echo "full-tier: unknown part $p (valgrind, fuzz, fault, model, burst, deb, fresh)"; exit 2 ;;
    esac
done
echo "full-tier: $passed passed, $failed failed"
[ $failed = 0 ]
