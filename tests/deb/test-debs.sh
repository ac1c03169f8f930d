#!/bin/bash
# test-debs.sh - the Debian packages, end to end (full tier; needs root):
#
#   1. build libzkelect0, libzkelect-dev and zkelect from this tree with
#      `dpkg-buildpackage -us -uc -b` (tracked and untracked files, not the
#      ignored ones, copied to a scratch directory) and run lintian: no errors;
#   2. debootstrap a minimal Debian 12 (minbase) from this machine's Debian
#      mirror, and `apt-get install ./*.deb zookeeper default-jre-headless`
#      inside it (plus systemd and man-db for step 3);
#   3. what the install did: the zkelect user, an empty /etc/zkelect, the
#      units enabled but their ConditionFileNotEmpty= false (so systemd does
#      not start an unconfigured daemon) and no zkelectd running;
#      `systemd-analyze verify` on both units;
#   4. `zkelectd -n` on the packaged sample configuration;
#   5. a ZooKeeper started inside the chroot on a free loopback port, two
#      zkelectd daemons as the zkelect user with /etc/zkelect/n1.ini and
#      n2.ini: one READY leader is elected; it resigns (SIGTERM) and the
#      other takes over;
#   6. the chroot booted with systemd (systemd-nspawn -b, sharing our
#      network): systemd skipped the enabled, unconfigured zkelectd.service
#      at boot; with /etc/zkelect/zkelect.ini written, `systemctl start`
#      returns once the daemon has joined (Type=notify), its STATUS= shows
#      it leading, its takeover hook ran sudo under the unit's hardening;
#      reload and stop work.
#
#   bash tests/deb/test-debs.sh [--keep]     (sh tests/full-tier.sh deb)
#
# Everything lives in one directory under /var/tmp (--keep keeps it); on
# exit, also on failure or Ctrl-C, the container and the processes running
# in the chroot are stopped and what was mounted is unmounted. Every wait
# polls a condition with a deadline. The last line, printed after that, is
# "deb: N passed, N failed (what passed, or where it stopped)".
set -u
NAME=deb
passed=0
failed=0
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/lib.sh
. "$top/tests/lib.sh"

keep=0
[ "${1:-}" = --keep ] && keep=1
log() { echo "deb: $*"; }
why=""                                   # why it stopped early, for the last line
summary=""                               # the last line once every step ran
die() { nok "$*"; why="stopped at: $*"; exit 1; }

[ "$(id -u)" = 0 ] || { echo "deb: needs root (debootstrap, chroot, mount)"; echo "deb: 0 passed, 1 failed (not root)"; exit 1; }

work=$(mktemp -d /var/tmp/zkelect-deb.XXXXXX) || exit 1
root=$work/root
mounted=""
zk_pid=""
nspawn_pid=""
declare -A dpid=()

# ---------------------------------------------------------------------------
# Cleanup: every process whose root is the chroot (ours alone), then the
# mounts, then the directory.
# ---------------------------------------------------------------------------
in_chroot_pids() {
    local p r
    for p in /proc/[0-9]*; do
        r=$(readlink "$p/root" 2>/dev/null) || continue
        [ "$r" = "$root" ] && echo "${p#/proc/}"
    done
}
none_in_chroot() { [ -z "$(in_chroot_pids)" ]; }
gone() { ! kill -0 "$1" 2>/dev/null; }
cleanup() {
    local pids m
    trap - EXIT
    trap '' INT TERM HUP                # a second Ctrl-C does not cut it short
    if [ -n "$nspawn_pid" ] && kill -0 "$nspawn_pid" 2>/dev/null; then
        kill -TERM "$nspawn_pid"        # the container shuts down cleanly
        wait_until 60000 gone "$nspawn_pid" || kill -KILL "$nspawn_pid"
    fi
    pids=$(in_chroot_pids)
    # shellcheck disable=SC2086
    if [ -n "$pids" ]; then
        kill -TERM $pids 2>/dev/null
        wait_until 20000 none_in_chroot ||
            { pids=$(in_chroot_pids); [ -n "$pids" ] && kill -KILL $pids 2>/dev/null; }
    fi
    for m in $mounted; do
        umount "$m" 2>/dev/null || umount -l "$m"
    done
    if [ "$keep" = 1 ]; then
        log "kept $work"
    else
        rm -rf "$work"
    fi
    if [ -n "$summary" ]; then
        echo "$summary"
    else
        echo "deb: $passed passed, $failed failed (${why:-stopped early})"
    fi
}
trap cleanup EXIT
trap 'failed=$((failed + 1)); why="interrupted"; exit 130' INT
trap 'failed=$((failed + 1)); why="terminated"; exit 143' TERM HUP

# ---------------------------------------------------------------------------
# 1. Build and lintian
# ---------------------------------------------------------------------------
need=""
for p in dpkg-dev debhelper lintian debootstrap systemd-container; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || need="$need $p"
done
if [ -n "$need" ]; then
    log "installing:$need"
    # shellcheck disable=SC2086
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $need >/dev/null ||
        die "apt-get install$need"
fi

src=$work/build/zkelect
mkdir -p "$src"
(cd "$top" && git ls-files -co --exclude-standard -z | tar --null -T - -cf -) | tar -C "$src" -xf - ||
    die "copying the tree"
missing=$(cd "$src" && dpkg-checkbuilddeps 2>&1) ||
    die "build dependencies: $missing (apt-get install them)"
log "building the packages (log: $work/build/build.log)"
if (cd "$src" && DEB_BUILD_OPTIONS="parallel=$(nproc)" nice dpkg-buildpackage -us -uc -b) \
        >"$work/build/build.log" 2>&1; then
    ok "dpkg-buildpackage -us -uc -b"
else
    tail -n 40 "$work/build/build.log"
    die "dpkg-buildpackage -us -uc -b"
fi
ndebs=0
for f in "$work"/build/*.deb; do
    case $f in *-dbgsym_*) continue ;; esac
    ndebs=$((ndebs + 1))
    log "package: $(du -k "$f" | cut -f1) KiB ${f##*/}"
done
lintian -I -E --pedantic --tag-display-limit 0 "$work"/build/zkelect_*.changes \
    >"$work/build/lintian.txt" 2>&1
sed 's/^/deb: lintian: /' "$work/build/lintian.txt" | grep -v 'root privileges'
lint_e=$(grep -c '^E:' "$work/build/lintian.txt")
lint_w=$(grep -c '^W:' "$work/build/lintian.txt")
check "lintian: no errors ($lint_w warnings)" [ "$lint_e" = 0 ]

# ---------------------------------------------------------------------------
# 2. A fresh Debian 12 with the packages
# ---------------------------------------------------------------------------
# This machine's Debian mirror: the URI of an apt source for "bookworm".
mirror_from_apt() {
    local f
    for f in /etc/apt/sources.list.d/*.sources; do
        [ -f "$f" ] || continue
        awk -v RS= '{
            uri = ""; ok = 0; n = split($0, l, "\n")
            for (i = 1; i <= n; i++) {
                if (l[i] ~ /^URIs:/) { split(l[i], a, /[ \t]+/); uri = a[2] }
                if (l[i] ~ /^Suites:/ && l[i] ~ /[ \t]bookworm([ \t]|$)/) ok = 1
            }
            if (ok && uri != "") { print uri; exit }
        }' "$f"
    done
    cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
        awk '$1 == "deb" && / bookworm( |$)/ {
            for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) { print $i; exit } }'
}
mirror=$(mirror_from_apt | head -n 1)
[ -n "$mirror" ] || die "no bookworm mirror in /etc/apt/sources*"
log "debootstrap --variant=minbase bookworm from $mirror (log: $work/debootstrap.log)"
if nice debootstrap --variant=minbase bookworm "$root" "$mirror" >"$work/debootstrap.log" 2>&1; then
    ok "debootstrap --variant=minbase bookworm"
else
    tail -n 20 "$work/debootstrap.log"
    die "debootstrap"
fi
mount -t proc proc "$root/proc" || die "mount proc"
mounted="$root/proc $mounted"
if [ ! -c "$root/dev/null" ]; then
    mount --bind /dev "$root/dev" || die "mount /dev"
    mounted="$root/dev $mounted"
fi
# No service starts from a maintainer script inside the chroot.
printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
chmod 755 "$root/usr/sbin/policy-rc.d"

mkdir -p "$root/tmp/debs"
cp "$work"/build/*.deb "$root/tmp/debs/"
rm -f "$root"/tmp/debs/*-dbgsym_*.deb
inchroot() { chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 "$@"; }
# systemd and man-db: systemd-analyze verify; sudo: a hook's in step 6
log "apt-get install ./*.deb zookeeper default-jre-headless systemd man-db sudo (log: $work/apt.log)"
if inchroot sh -c 'cd /tmp/debs && apt-get update -q &&
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
            ./*.deb zookeeper default-jre-headless systemd man-db sudo' >"$work/apt.log" 2>&1; then
    ok "apt-get install ./*.deb zookeeper default-jre-headless"
else
    tail -n 30 "$work/apt.log"
    die "apt-get install in the chroot"
fi

# ---------------------------------------------------------------------------
# 3. What the installation did, the units
# ---------------------------------------------------------------------------
user_made() {
    inchroot getent passwd zkelect | grep -q ':/var/lib/zkelect:/usr/sbin/nologin$' &&
        inchroot getent group zkelect >/dev/null
}
check "postinst made the system user zkelect" user_made
etc_empty() { [ -d "$root/etc/zkelect" ] && [ -z "$(ls -A "$root/etc/zkelect")" ]; }
check "/etc/zkelect exists and holds no configuration" etc_empty
check "zkelectd.service is enabled" \
    test -L "$root/etc/systemd/system/multi-user.target.wants/zkelectd.service"
cond=$(grep '^ConditionFileNotEmpty=' "$root/lib/systemd/system/zkelectd.service")
cond_false() { ! inchroot systemd-analyze condition "$cond" >/dev/null 2>&1; }
check "unconfigured: $cond is false: systemd would not start zkelectd" cond_false
no_daemon() {
    local p
    for p in $(in_chroot_pids); do
        grep -qx zkelectd "/proc/$p/comm" 2>/dev/null && return 1
    done
    return 0
}
check "no zkelectd runs after the installation" no_daemon
verify=$(inchroot systemd-analyze verify /lib/systemd/system/zkelectd.service \
    /lib/systemd/system/zkelectd@.service /lib/systemd/system/zkelectd@n1.service 2>&1)
vrc=$?
[ -n "$verify" ] && printf '%s\n' "$verify" | sed 's/^/deb: systemd-analyze: /'
verify_clean() { [ "$vrc" = 0 ] && [ -z "$verify" ]; }
check "systemd-analyze verify zkelectd.service zkelectd@.service zkelectd@n1.service: clean" \
    verify_clean

# ---------------------------------------------------------------------------
# 4. The sample configuration
# ---------------------------------------------------------------------------
out=$(inchroot zkelectd -n -c /usr/share/doc/zkelect/examples/zkelect.ini 2>&1)
check "zkelectd -n on the sample configuration: $out" [ "$out" = "configuration OK" ]

# ---------------------------------------------------------------------------
# 5. ZooKeeper in the chroot, two daemons, one leader
# ---------------------------------------------------------------------------
zkport=
pick_port zkport
mkdir -p "$root/var/tmp/zk/data"
cat >"$root/var/tmp/zk/zoo.cfg" <<EOF
tickTime=1000
initLimit=10
syncLimit=5
dataDir=/var/tmp/zk/data
clientPort=$zkport
clientPortAddress=127.0.0.1
admin.enableServer=false
4lw.commands.whitelist=ruok,srvr
EOF
chroot "$root" java -Xms16m -Xmx128m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 \
    -cp /usr/share/java/zookeeper.jar:/usr/share/java/slf4j-simple.jar \
    org.apache.zookeeper.server.quorum.QuorumPeerMain /var/tmp/zk/zoo.cfg \
    >"$root/var/tmp/zk/server.log" 2>&1 &
zk_pid=$!
# accepting connections on 127.0.0.1:PORT (the chroot shares our network)
zk_listening() {
    kill -0 "$zk_pid" 2>/dev/null && (exec 3<>"/dev/tcp/127.0.0.1/$zkport") 2>/dev/null
}
if wait_until 60000 zk_listening; then
    ok "ZooKeeper listens on 127.0.0.1:$zkport inside the chroot"
else
    tail -n 20 "$root/var/tmp/zk/server.log"
    die "ZooKeeper did not start"
fi

install -d -o zkelect -g zkelect -m 750 "$root/var/log/zkelect" 2>/dev/null ||
    inchroot install -d -o zkelect -g zkelect -m 750 /var/log/zkelect
for n in n1 n2; do
    prio=100
    [ $n = n2 ] && prio=50
    cat >"$root/etc/zkelect/$n.ini" <<EOF
# written by tests/deb/test-debs.sh
[zookeeper]
hosts = 127.0.0.1:$zkport
session_timeout_ms = 4000
[cluster]
path = /pkgtest
[node]
id = $n
site = dc1
priority = $prio
[log]
events = /var/log/zkelect/$n.events
EOF
done
cond1=$(grep '^ConditionFileNotEmpty=' "$root/lib/systemd/system/zkelectd@.service")
cond1=${cond1//%i/n1}
cond1_true() { inchroot systemd-analyze condition "$cond1" >/dev/null 2>&1; }
check "configured: zkelectd@n1's $cond1 is true" cond1_true
out=$(chroot --userspec=zkelect:zkelect "$root" /usr/sbin/zkelectd -n -c /etc/zkelect/n1.ini 2>&1)
check "zkelectd -n on /etc/zkelect/n1.ini as the zkelect user: $out" [ "$out" = "configuration OK" ]

cli() { inchroot env ZKELECT_HOSTS="127.0.0.1:$zkport" ZKELECT_PATH=/pkgtest zkelect "$@"; }
# the site policy leads from a site with a priority: the operator's first step
init_group() {
    cli init --policy site --site dc1=100 | sed 's/^/deb: init: /'
    return "${PIPESTATUS[0]}"
}
check "zkelect init --policy site --site dc1=100" init_group

start_daemon() {
    chroot --userspec=zkelect:zkelect "$root" /usr/sbin/zkelectd -f -c "/etc/zkelect/$1.ini" \
        >"$root/var/log/zkelect/$1.log" 2>&1 &
    dpid[$1]=$!
}
start_daemon n1
start_daemon n2
# READY leader named $1 (any when empty)
leader_is() {
    local l
    l=$(cli leader 2>/dev/null) || return 1
    [ -z "$1" ] || echo "$l" | grep -qw "$1"
}
joined() { grep -q "joined /pkgtest as $1" "$root/var/log/zkelect/$1.log"; }
both_joined() { joined n1 && joined n2; }
check "both daemons joined the group" wait_until 30000 both_joined
if wait_until 30000 leader_is ""; then
    first=$(cli leader 2>/dev/null | head -n 1)
    ok "a READY leader is elected: $first"
else
    cli status
    tail -n 20 "$root"/var/log/zkelect/n1.log "$root"/var/log/zkelect/n2.log
    die "no READY leader within 30 s"
fi
case $first in
    *n1*) lead=n1; other=n2 ;;
    *n2*) lead=n2; other=n1 ;;
    *) die "leader is neither n1 nor n2: $first" ;;
esac
cli status | sed 's/^/deb: status: /'
kill -TERM "${dpid[$lead]}"
check "the leader $lead resigns on SIGTERM and exits" wait_until 30000 gone "${dpid[$lead]}"
wait "${dpid[$lead]}"
check "  ... with status 0" [ $? = 0 ]
if wait_until 30000 leader_is "$other"; then
    ok "$other takes over: $(cli leader 2>/dev/null | head -n 1)"
else
    cli status
    nok "$other did not take over within 30 s"
fi
kill -TERM "${dpid[$other]}"
check "$other resigns on SIGTERM and exits" wait_until 30000 gone "${dpid[$other]}"
wait "${dpid[$other]}"
check "  ... with status 0" [ $? = 0 ]

# ---------------------------------------------------------------------------
# 6. Under systemd: the chroot booted as a container
# ---------------------------------------------------------------------------
# The configuration, and a takeover hook that needs sudo (a rule for just
# that command) and writes into the unit's StateDirectory.
cat >"$work/zkelect.ini" <<EOF
# written by tests/deb/test-debs.sh
[zookeeper]
hosts = 127.0.0.1:$zkport
session_timeout_ms = 4000
[cluster]
path = /pkgtest
[node]
id = n3
site = dc1
priority = 100
[hooks]
takeover = /usr/local/libexec/zkelect-test/takeover
[log]
events = /var/log/zkelect/events.json
EOF
mkdir -p "$root/usr/local/libexec/zkelect-test"
cat >"$root/usr/local/libexec/zkelect-test/takeover" <<'EOF'
#!/bin/sh
# as zkelect, under the unit's hardening: sudo must work, StateDirectory too
sudo -n /usr/bin/touch /var/lib/zkelect-test-sudo || exit 1
echo "$ZKELECT_EPOCH" >/var/lib/zkelect/takeover.epoch
EOF
chmod 755 "$root/usr/local/libexec/zkelect-test/takeover"
echo 'zkelect ALL=(root) NOPASSWD: /usr/bin/touch /var/lib/zkelect-test-sudo' \
    >"$root/etc/sudoers.d/zkelect-test"
chmod 440 "$root/etc/sudoers.d/zkelect-test"
# Unconfigured at boot: an empty zkelect.ini (ConditionFileNotEmpty=).
rm -f "$root/etc/zkelect/n1.ini" "$root/etc/zkelect/n2.ini"
: >"$root/etc/zkelect/zkelect.ini"

systemd-nspawn -D "$root" --machine="zkelect-deb-${work##*.}" --register=no --keep-unit \
    -b --quiet >"$work/nspawn.log" 2>&1 &
nspawn_pid=$!
# the container's PID 1: the systemd under nspawn
cpid=""
find_init() {
    local c g
    for c in $(pgrep -P "$nspawn_pid"); do
        for g in $c $(pgrep -P "$c"); do
            [ "$(cat "/proc/$g/comm" 2>/dev/null)" = systemd ] && { cpid=$g; return 0; }
        done
    done
    return 1
}
inct() { nsenter -t "$cpid" -m -u -i -n -p -- env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 "$@"; }
booted() {
    local st
    st=$(inct systemctl is-system-running 2>/dev/null)
    [ "$st" = running ] || [ "$st" = degraded ]
}
prop() { inct systemctl show -p "$1" --value zkelectd.service; }
status_leading() { prop StatusText | grep -q 'leader of /pkgtest (READY'; }
reloaded() { inct journalctl -u zkelectd.service --no-pager -q | grep -q 'configuration reloaded'; }
if wait_until 30000 find_init && wait_until 120000 booted; then
    ok "the chroot boots with systemd (systemd-nspawn -b)"
    v="$(prop ConditionResult)/$(prop ActiveState)"
    check "at boot, systemd skipped the enabled, unconfigured zkelectd.service (ConditionResult/ActiveState: $v)" \
        [ "$v" = no/inactive ]
    cp "$work/zkelect.ini" "$root/etc/zkelect/zkelect.ini"
    check "configured: systemctl start zkelectd returns (Type=notify: once joined)" \
        inct systemctl start zkelectd.service
    v="$(prop ActiveState)/$(prop SubState)"
    check "  ... and it is $v" [ "$v" = active/running ]
    if wait_until 30000 status_leading; then
        ok "systemctl status says: $(prop StatusText)"
    else
        nok "STATUS= never said it leads: '$(prop StatusText)'"
    fi
    check "the takeover hook ran sudo under the unit's hardening" \
        test -f "$root/var/lib/zkelect-test-sudo"
    check "  ... and wrote into StateDirectory=/var/lib/zkelect (epoch $(cat "$root/var/lib/zkelect/takeover.epoch" 2>/dev/null))" \
        test -s "$root/var/lib/zkelect/takeover.epoch"
    check "  ... and [log] events went into LogsDirectory=/var/log/zkelect" \
        grep -q '"event":"+ready"' "$root/var/log/zkelect/events.json"
    inct systemctl reload zkelectd.service
    check "systemctl reload: the configuration is reloaded" wait_until 15000 reloaded
    check "systemctl stop: zkelectd resigns" inct systemctl stop zkelectd.service
    v="$(prop Result)/$(prop ExecMainStatus)"
    check "  ... and exits 0 (Result/status: $v)" [ "$v" = success/0 ]
    inct journalctl -u zkelectd.service --no-pager -q -o cat | tail -n 4 | sed 's/^/deb: journal: /'
else
    tail -n 20 "$work/nspawn.log"
    nok "the chroot did not boot with systemd-nspawn"
fi
kill -TERM "$nspawn_pid"
check "the container shuts down" wait_until 60000 gone "$nspawn_pid"

# the last line, printed by cleanup() after everything is stopped
if [ "$failed" = 0 ]; then
    summary="deb: $passed passed, 0 failed (built $ndebs packages, lintian 0 errors/$lint_w warnings; installed in a Debian 12 minbase chroot; units verified and not started unconfigured; zkelectd -n OK; leader $lead elected, handed over to $other; under systemd: skipped unconfigured, Type=notify start, STATUS=, a sudo hook, reload, stop)"
else
    summary="deb: $passed passed, $failed failed"
fi
[ "$failed" = 0 ]
