#!/bin/sh
# quickstart.sh - the README's two commands, for a fresh Debian 12 machine.
#
#   sh tests/quickstart.sh demo    install what is missing, build, run the live demo
#   sh tests/quickstart.sh test    install what is missing, build with ASan/UBSan and
#                                  -Werror, run the whole test suite (what CI runs)
#
# Run it as root or as a user with sudo, from the top of a clone. It builds in
# ./build (test: ./build-check) and never touches the system outside apt-get.
set -eu

mode=${1:-}
case "$mode" in
    demo|test) ;;
    *) echo "usage: sh tests/quickstart.sh demo|test" >&2; exit 2 ;;
esac
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

# The Debian packages the project needs, build and run. A minimal Debian 12
# (debootstrap --variant=minbase, checked by tests/fresh-debian.sh) has
# coreutils, sed, grep, mawk, findutils, diffutils, bash, tar and gzip; the
# rest of what the demo and the tests run comes from here:
#   zookeeper, default-jre-headless   the local ZooKeeper servers (tests/harness)
#   curl                              the daemons' HTTP endpoints (tests/daemon, dr, security)
#   iproute2                          ip(8): the network namespaces of the fault test and test_partition
#   procps                            ps(1), to look at what the demo started (no test needs it)
#   python3                           JSON assertions and wall-clock ms in tests/cli
#                                     (test_cli_zk, test_cli_args, test_cli_ops) and
#                                     tests/security/test_badinput.sh
#   spin                              the model check (tests/model)
#   valgrind                          the full tier (tests/full-tier.sh)
PKGS="build-essential autoconf automake libtool pkg-config
      libzookeeper-mt-dev libcjson-dev libiniparser-dev libcunit1-dev libsystemd-dev
      zookeeper default-jre-headless procps iproute2 curl"
[ "$mode" = test ] && PKGS="$PKGS valgrind spin python3"

missing=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing="$missing $p"
done
if [ -n "$missing" ]; then
    echo "quickstart: installing:$missing"
    SUDO=""
    [ "$(id -u)" = 0 ] || SUDO=sudo
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    # shellcheck disable=SC2086
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing
fi

[ -x configure ] && [ configure -nt configure.ac ] || autoreconf -fi >/dev/null

jobs=$(nproc 2>/dev/null || echo 2)

# show_failures DIR LABEL N: for each test under DIR that automake marked
# FAIL or ERROR, its failed checks (with the lines before each) and its last
# N lines.
show_failures() {
    for trs in $(grep -l -E '^:test-result: (FAIL|ERROR)' \
                 $(find "$1" -name '*.trs' 2>/dev/null) 2>/dev/null); do
        log=${trs%.trs}.log
        echo "--- $2: ${log#"$1"/}: failed checks, each after what led to it"
        grep -B 6 -E '^(FAIL|not ok)|Assertion|ERROR|runtime error|deadline' "$log" | head -n 40
        echo "--- $2: ${log#"$1"/}: last lines"
        tail -n "$3" "$log"
    done
}
if [ "$mode" = test ]; then
    # 1. the packaging check: a tarball that builds, passes `make check` and
    #    installs from a read-only source tree (a plain build, no sanitizers).
    #    The Spin model's default tier (7 to 14 min of one CPU) does not
    #    depend on the build and runs in step 2: here its smoke check only
    #    (tests/model/test_model.sh)
    mkdir -p build-dist
    dist=0
    (cd build-dist && { [ -f Makefile ] || ../configure >/dev/null; } &&
        ZKELECT_MODEL_TIER=smoke make -j"$jobs" distcheck >distcheck.log 2>&1) || dist=$?
    # 2. every test under AddressSanitizer/UBSan, warnings as errors
    mkdir -p build-check && cd build-check
    [ -f Makefile ] || ../configure --enable-sanitizers --enable-werror >/dev/null
    make -j"$jobs"
    status=0
    # one job more than CPUs: tests/model (the first test) holds one job
    # slot for its whole run under nice 19, the others keep $jobs beside it
    make -j"$((jobs + 1))" check || status=$?
    # what each failed test said, where a CI log's tail shows it
    [ "$status" = 0 ] || show_failures . check 12
    if [ "$dist" = 0 ]; then
        echo "distcheck: passed"
    else
        echo "distcheck: FAILED (see build-dist/distcheck.log):"
        tail -n 30 ../build-dist/distcheck.log
        show_failures ../build-dist distcheck 40
        status=1
    fi
    make check-summary || status=1
    exit $status
fi

mkdir -p build && cd build
[ -f Makefile ] || ../configure >/dev/null
make -j"$jobs"
shift
exec sh ../tests/demo.sh --builddir "$(pwd)" "$@"
