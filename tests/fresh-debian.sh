#!/bin/sh
# fresh-debian.sh - the README's quick start on a fresh Debian 12, proven.
#
#   sh tests/fresh-debian.sh          (as root; Debian package debootstrap)
#
# 1. debootstrap --variant=minbase bookworm from the Debian mirror named in
#    this machine's apt sources (FRESH_MIRROR overrides it);
# 2. apt-get install git in it (--no-install-recommends: git and nothing
#    that could hide a package the quick start forgot);
# 3. git clone of this clone's HEAD (committed work only) into /root/zkelect;
# 4. with the root a mount point (bind), /proc, /sys, /dev (and /dev/pts,
#    /dev/shm) and a fresh /run mounted,
#    run the quick start's commands as root, each exactly as the README writes
#    it (read from the README, not copied here), from the top of the clone;
# 5. a command that leaves a process running in the chroot fails (each
#    promises to stop everything it starts);
# 6. stop whatever is still running in the chroot and unmount everything
#    under the work directory: what this script mounted and what the tests
#    mounted (the fault test's network namespaces under /run/netns), on every
#    way out (trap).
#
# The work directory is a mktemp -d under FRESH_TMPDIR (default /var/tmp),
# about 2 GB; it is removed afterwards unless a step failed or FRESH_KEEP=1.
# Every step's output is in its log there (debootstrap.log, git.log, demo.log,
# test.log). The last line says what passed, e.g.
#   fresh-debian: demo passed (57 s), test passed (9 min 12 s)
# and the exit status is 0 only when every command passed.
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
name=fresh-debian
say() { echo "$name: $*"; }
summary=""                              # the closing line: what passed
# die MESSAGE: fail; before the work directory exists (no trap yet) this is
# the closing line, afterwards cleanup prints the summary last
die() {
    summary="${summary:+$summary, }FAILED: $*"
    if [ -n "${work:-}" ]; then say "$*"; else say "$summary"; fi
    exit 1
}

[ "$(id -u)" = 0 ] || die "must run as root (debootstrap, chroot, mount)"
command -v debootstrap >/dev/null || die "debootstrap is not installed (apt-get install debootstrap)"
git -C "$top" rev-parse --verify -q HEAD >/dev/null || die "$top is not a git clone"

# The README's quick start commands: the indented lines of its "Quick start"
# section, as written (a trailing comment included: sh ignores it).
cmds=$(awk '/^Quick start/ { q = 1; next }
            q && /^[A-Z][a-z]/ && !/^From / { exit }
            q && /^    sh / { sub(/^    /, ""); print }' "$top/README")
ncmds=$(printf '%s\n' "$cmds" | grep -c .)
[ "$ncmds" = 2 ] || die "README: expected the quick start's two commands, found $ncmds: $cmds"

# The Debian mirror of this machine's apt sources: the first deb URI serving
# the suite bookworm (deb822 .sources or one-line .list files).
mirror=${FRESH_MIRROR:-}
if [ -z "$mirror" ]; then
    for f in /etc/apt/sources.list.d/*.sources; do
        [ -f "$f" ] || continue
        mirror=$(awk 'function flush() { if (deb && on && suite && uri != "" && !found) { print uri; found = 1 }
                                         deb = 0; on = 1; suite = 0; uri = "" }
                      BEGIN { on = 1 }
                      /^[ \t]*$/ { flush(); next }
                      tolower($1) == "types:" { for (i = 2; i <= NF; i++) if ($i == "deb") deb = 1 }
                      tolower($1) == "enabled:" && tolower($2) == "no" { on = 0 }
                      tolower($1) == "suites:" { for (i = 2; i <= NF; i++) if ($i == "bookworm") suite = 1 }
                      tolower($1) == "uris:" { uri = $2 }
                      END { flush() }' "$f")
        [ -n "$mirror" ] && break
    done
fi
if [ -z "$mirror" ]; then
    mirror=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
        awk '$1 == "deb" { i = 2; if ($2 ~ /^\[/) while (i <= NF && $i !~ /\]$/) i++
                          if ($2 ~ /^\[/) i++
                          if ($(i + 1) == "bookworm") { print $i; exit } }')
fi
[ -n "$mirror" ] || die "no Debian mirror for bookworm in /etc/apt/sources.list*; set FRESH_MIRROR"

work=$(mktemp -d "${FRESH_TMPDIR:-/var/tmp}/zkelect-fresh.XXXXXX") || die "cannot make a work directory"
root=$work/root
mounted=0

# The mount points under $work, deepest first.
mounts_under() {
    awk -v w="$work" '$5 == w || index($5, w "/") == 1 { print length($5), $5 }' /proc/self/mountinfo |
        sort -rn | cut -d' ' -f2-
}
# The processes running in the chroot: everything whose root directory is
# ours was started by this script.
chroot_procs() {
    for p in /proc/[0-9]*; do
        [ "$(readlink "$p/root" 2>/dev/null)" = "$root" ] && echo "${p#/proc/}"
    done
}
# show_procs PID...: one line each, with its command line
show_procs() {
    for p in "$@"; do
        echo "  $p: $(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | cut -c1-300)"
    done
}
cleanup() {
    rc=$?
    trap - EXIT INT TERM HUP
    # processes left in the chroot (a server a killed test did not stop)
    left=$(chroot_procs | tr '\n' ' ')
    if [ -n "$left" ]; then
        say "stopping what still runs in the chroot: $left"
        # shellcheck disable=SC2086
        show_procs $left
        # shellcheck disable=SC2086
        kill -TERM $left 2>/dev/null
        i=0
        while [ $i -lt 100 ]; do
            alive=""
            for p in $left; do kill -0 "$p" 2>/dev/null && alive="$alive $p"; done
            [ -z "$alive" ] && break
            sleep 0.1                       # polling, bounded: 10 s
            i=$((i + 1))
        done
        # shellcheck disable=SC2086
        [ -n "$alive" ] && kill -KILL $alive 2>/dev/null
    fi
    if [ "$mounted" = 1 ]; then
        n=0 nns=0
        for m in $(mounts_under); do
            n=$((n + 1))
            case $m in "$root/run/netns"*) nns=$((nns + 1)) ;; esac
            umount "$m" 2>/dev/null || umount -l "$m" || say "cannot unmount $m"
        done
        left=$(mounts_under)
        if [ -n "$left" ]; then
            say "still mounted: $left"
            summary="$summary; unmounting FAILED"
            rc=1
        else
            say "unmounted everything under $work: $n mounts ($nns under /run/netns)"
        fi
    fi
    if [ "$rc" = 0 ] && [ "${FRESH_KEEP:-0}" != 1 ] && [ -z "$(mounts_under)" ]; then
        rm -rf --one-file-system "$work"
    else
        say "kept $work"
    fi
    say "${summary:-FAILED before any command ran}"
    exit $rc
}
trap cleanup EXIT
trap 'say "interrupted"; exit 1' INT TERM HUP

# Everything is mounted below a private bind mount of the work directory, so
# that no mount made here (or by the tests in the chroot) propagates to the
# rest of the machine, and unmounting it all touches nothing else.
mount --bind "$work" "$work" && mounted=1 && mount --make-private "$work" ||
    die "cannot make $work a private mount"

elapsed() {   # elapsed SECONDS: "57 s", "9 min 12 s"
    if [ "$1" -lt 60 ]; then echo "$1 s"; else echo "$(($1 / 60)) min $(($1 % 60)) s"; fi
}
now() { cut -d' ' -f1 /proc/uptime | cut -d. -f1; }   # monotonic seconds

commit=$(git -C "$top" rev-parse HEAD)
say "Debian 12 minbase from $mirror into $root; testing $commit"
t0=$(now)
debootstrap --variant=minbase bookworm "$root" "$mirror" >"$work/debootstrap.log" 2>&1 || {
    tail -n 20 "$work/debootstrap.log"; die "debootstrap failed (see $work/debootstrap.log)"; }
say "debootstrap: $(elapsed $(($(now) - t0)))"

# What chroot needs to be a machine: name resolution for apt, then the
# kernel file systems. The root is a mount point of its own (a bind mount of
# itself), as a machine's is: `ip -n NS` makes / a slave mount in its own
# mount namespace and fails where / is not a mount (the network namespaces
# of test_partition and of the fault test's partitions). /dev is the host's
# (rbind, made a slave so that nothing unmounted in here is unmounted
# outside); /run is a fresh tmpfs.
cp -L /etc/resolv.conf "$root/etc/resolv.conf" || die "cannot copy /etc/resolv.conf"
mount --bind "$root" "$root" &&
    mount -t proc proc "$root/proc" &&
    mount -t sysfs sysfs "$root/sys" &&
    mount --rbind /dev "$root/dev" && mount --make-rslave "$root/dev" &&
    mount -t tmpfs -o mode=0755,nosuid,nodev tmpfs "$root/run" ||
    die "cannot mount the root, /proc, /sys, /dev or /run of the chroot"

# in_chroot COMMAND: run a shell command in the chroot as root, with the
# environment of a root login (not this one's).
in_chroot() {
    chroot "$root" /usr/bin/env -i HOME=/root LOGNAME=root USER=root SHELL=/bin/sh \
        PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        /bin/sh -c "$1" </dev/null
}

# git, and a clone of HEAD: pushed into a bare repository in the chroot,
# cloned from there by the chroot's git, as a user would clone.
t0=$(now)
{
    in_chroot 'apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends git' &&
    git init -q --bare --initial-branch=main "$root/root/zkelect.git" &&
    git -C "$top" push -q "$root/root/zkelect.git" HEAD:refs/heads/main &&
    in_chroot 'cd /root && git clone /root/zkelect.git zkelect && git -C zkelect log --oneline -1'
} >"$work/git.log" 2>&1 || { tail -n 20 "$work/git.log"; die "installing git or cloning failed (see $work/git.log)"; }
say "git and the clone: $(elapsed $(($(now) - t0)))"

status=0
old_ifs=$IFS
IFS='
'
for cmd in $cmds; do
    IFS=$old_ifs
    what=$(echo "$cmd" | awk '{ print $3 }')   # demo, test
    say "running '$cmd' in /root/zkelect (log: $work/$what.log)"
    t0=$(now)
    in_chroot "cd /root/zkelect && $cmd" >"$work/$what.log" 2>&1
    rc=$?
    t=$(elapsed $(($(now) - t0)))
    # Both commands stop everything they start: anything still there after
    # 5 s is a bug (the wait is for processes that are on their way out).
    i=0
    while left=$(chroot_procs | tr '\n' ' ') && [ -n "$left" ] && [ $i -lt 50 ]; do
        sleep 0.1
        i=$((i + 1))
    done
    if [ -n "$left" ]; then
        say "'$cmd' left processes running in the chroot:"
        # shellcheck disable=SC2086
        show_procs $left
    fi
    if [ $rc = 0 ] && [ -z "$left" ]; then
        tail -n 5 "$work/$what.log" | sed "s/^/  $what: /"
        result="$what passed ($t)"
    elif [ $rc = 0 ]; then
        tail -n 5 "$work/$what.log" | sed "s/^/  $what: /"
        result="$what FAILED: it passed but left processes running ($t)"
        status=1
    else
        tail -n 60 "$work/$what.log" | sed "s/^/  $what: /"
        result="$what FAILED with status $rc ($t)"
        status=1
    fi
    say "$result"
    summary="${summary:+$summary, }$result"
done
IFS=$old_ifs
exit $status                            # cleanup prints the summary last
