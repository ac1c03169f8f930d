#!/bin/bash
# test_badconfig.sh - `zkelectd -n` on the sample configuration
# (etc/zkelect.ini) with each key made wrong in turn: the check must exit 1
# and name the file, the section and the key ("FILE: [section] key: why").
# The variants are generated from the sample: the key's line (commented out
# or not) is replaced by "key = BAD VALUE" from the table below. Every key of
# the sample must have a row, and every row a key of the sample, so that a
# new key cannot go untested. No ZooKeeper is needed.
#
# Prints "test_badconfig: N passed, N failed" last; exits 1 on any failure.
# By hand: ZKELECT_TOP_BUILDDIR=BUILD ZKELECT_TOP_SRCDIR=SRC bash tests/security/test_badconfig.sh
set -u

NAME=test_badconfig
TEST_DEADLINE_S=120
if [ -n "${ZKELECT_TOP_SRCDIR:-}" ]; then
    . "$ZKELECT_TOP_SRCDIR/tests/security/seclib.sh"
    SAMPLE=$ZKELECT_TOP_SRCDIR/etc/zkelect.ini
elif [ -f "$(dirname "$0")/seclib.sh" ]; then
    . "$(dirname "$0")/seclib.sh"
    SAMPLE=$(dirname "$0")/../../etc/zkelect.ini
else
    echo "$NAME: set ZKELECT_TOP_SRCDIR"
    echo "$NAME: 0 passed, 1 failed"
    exit 1
fi

sec_init "$ZKELECTD"
[ -f "$SAMPLE" ] || { nok "no sample configuration $SAMPLE"; finish; }

# A credential file that others may read, and one that is fine.
printf 'member:pw\n' > "$T/open.secret"
chmod 644 "$T/open.secret"

# section|key|bad value|what the message must also say
# (awk -v turns \001 into the control character.)
TABLE=$(cat <<EOF
zookeeper|hosts|127.0.0.1|has a host without a port
zookeeper|hosts|127.0.0.1:99999|has an invalid port
zookeeper|hosts||must not be empty
zookeeper|hosts|zk1:2181,,zk2:2181|has an empty host entry
zookeeper|session_timeout_ms|10s|not an integer
zookeeper|session_timeout_ms|999|out of range
zookeeper|connect_timeout_ms|600001|out of range
zookeeper|connect_timeout_ms|fast|not an integer
zookeeper|auth_file|/nonexistent/zkelect.secret|/nonexistent/zkelect.secret
zookeeper|auth_file|$T/open.secret|$T/open.secret
cluster|path|cluster|must be an absolute path
cluster|path|/zookeeper/x|reserved
cluster|path|/a//b|empty component
node|id|bad id!|may only contain
node|id||must not be empty
node|id|-n1|must not start with
node|site|dc 1|may only contain
node|priority|high|not an integer
node|priority|1000001|out of range
node|tags|ssd, bad tag!|bad tag!
node|eligible|maybe|expected yes/no
node|state_dir|relative/dir|must be an absolute path
election|policy|Site!|invalid policy
election|policy_path|relative/dir|absolute path
election|watchdog_ms|99|out of range
election|exclude_ms|86400001|out of range
election|exclude_ms|-1|out of range
election|settle_ms|3600001|out of range
election|settle_ms|2s|not an integer
election|expect|-1|out of range
election|expect|10001|out of range
election|failback_delay_ms|86400001|out of range
election|failback_delay_ms|-5|out of range
election|min_move_interval_ms|86400001|out of range
election|min_move_interval_ms|x|not an integer
policy|preempt|maybe|preempt
policy|preempt|on\001|control characters
policy|failover|nowhere|failover
policy|spread|everywhere|spread
hooks|takeover|relative/hook|must be an absolute path
hooks|takeover|/nonexistent/takeover|/nonexistent/takeover
hooks|stepdown|/tmp/|names a directory
hooks|notify|notify.sh|must be an absolute path
hooks|timeout_ms|99|out of range
hooks|stepdown_timeout_ms|9|out of range
leader|command|run\001|control characters
leader|ready_command|check\001|control characters
leader|stop_timeout_ms|-1|out of range
leader|stop_timeout_ms|5000|must be less than [hooks] stepdown_timeout_ms
leader|fence_ms|99|out of range
leader|fence_ms|4000|exceeds half of [zookeeper] session_timeout_ms
health|command|check\001|control characters
health|interval_ms|99|out of range
health|failures|0|out of range
health|failures|1001|out of range
http|listen|localhost:8181|expected PORT
http|listen|70000|expected PORT
log|level|verbose|expected debug
log|target|file|expected stderr or syslog
log|events|events.json|must be an absolute path
log|events|/nonexistent-dir/events.json|/nonexistent-dir
EOF
)

# The keys of the sample, "section key" per line, in file order: "key = v"
# and "; key = v" lines inside a section.
sample_keys() {
    awk '/^\[/ { sec = substr($0, 2, index($0, "]") - 2); next }
         sec != "" && /^(; *)?[a-z_]+ *=/ { k = $0; sub(/^; */, "", k); sub(/ *=.*/, "", k);
                                            print sec, k }' "$SAMPLE"
}

# variant SECTION KEY VALUE: the sample with that key's line replaced.
variant() {
    awk -v s="$1" -v k="$2" -v v="$3" '
        /^\[/ { sec = substr($0, 2, index($0, "]") - 2) }
        {
            kk = $0
            if (kk ~ /^(; *)?[a-z_]+ *=/) {
                sub(/^; */, "", kk)
                sub(/ *=.*/, "", kk)
                if (sec == s && kk == k) {
                    print k " = " v
                    done = 1
                    next
                }
            }
            print
        }
        END { exit done ? 0 : 1 }' "$SAMPLE"
}

log "the sample as shipped"
"$ZKELECTD" -n -c "$SAMPLE" > "$T/out" 2> "$T/err"
rc=$?
check "the sample passes: exit 0, 'configuration OK' ($rc)" \
    eval '[ "$rc" = 0 ] && [ "$(cat "$T/out")" = "configuration OK" ] && [ ! -s "$T/err" ]'

sample_keys > "$T/keys"
check "the sample has keys ($(wc -l < "$T/keys"))" [ "$(wc -l < "$T/keys")" -ge 20 ]
while read -r sec key; do
    if printf '%s\n' "$TABLE" | grep -q "^$sec|$key|"; then
        ok "[$sec] $key has a bad value in the table"
    else
        nok "[$sec] $key of the sample has no bad value in the table"
    fi
done < "$T/keys"

log "each key wrong in turn"
i=0
while IFS='|' read -r sec key val why; do
    i=$((i + 1))
    f=$T/bad-$i.ini
    if ! grep -qx "$sec $key" "$T/keys"; then
        nok "table row $i: [$sec] $key is not a key of the sample"
        continue
    fi
    variant "$sec" "$key" "$val" > "$f"
    "$ZKELECTD" -n -c "$f" > "$T/out" 2> "$T/err"
    rc=$?
    cat "$T/err" >> "$T/all.err"
    shown=$(printf '%s' "$val" | cat -v)
    msg=$(head -n 1 "$T/err")
    if [ "$rc" = 1 ] && grep -qF "zkelectd: $f: [$sec] $key: " "$T/err" &&
        grep -qF -- "$why" "$T/err" && [ ! -s "$T/out" ]; then
        ok "[$sec] $key = '$shown': exit 1: ${msg#zkelectd: $f: }"
    else
        nok "[$sec] $key = '$shown': exit $rc, expected 1 and '$f: [$sec] $key: ...$why...'; got: $(cat "$T/out") $msg"
    fi
done <<< "$TABLE"

check "no sanitizer report" eval '! grep -q -E "Sanitizer|runtime error:" "$T/all.err"'
finish
