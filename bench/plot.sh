#!/bin/sh
# plot.sh - latency CDFs of zkbench's CSV files, as PNG, with gnuplot.
#
# usage: sh bench/plot.sh CSVDIR PNGDIR
#
# Draws, from the files `zkbench -o CSVDIR` wrote (see bench/README, "Plots"):
#   handover.png       planned handover: graceful leave per policy and
#                      switchover, the lock recipe's baseline beside them,
#                      with the floor of section 1 as a vertical line
#                      (summary.csv)
#   failover.png       crash failover: kill -> READY per session timeout,
#                      session expiry -> READY, session closed -> READY (3c),
#                      elector kill -> new elector
#   rtt-LABEL.png      the bare ZooKeeper operations (one per rtt-LABEL.csv):
#                      reads, writes, notifications
# Missing CSV files are skipped with a note. Needs gnuplot (Debian package
# gnuplot-nox). Exit status: 0 when every plot that had data was drawn, 1 on
# an error, 2 for bad arguments.
set -u

me=plot.sh
if [ $# -ne 2 ]; then
    echo "usage: sh bench/plot.sh CSVDIR PNGDIR" >&2
    exit 2
fi
csv=$1
out=$2
if [ ! -d "$csv" ]; then
    echo "$me: $csv: no such directory (run zkbench -o $csv first)" >&2
    exit 1
fi
if ! command -v gnuplot >/dev/null 2>&1; then
    echo "$me: gnuplot not found: install the Debian package gnuplot-nox" >&2
    exit 1
fi
mkdir -p "$out" || exit 1

# pngcairo when this gnuplot has it (gnuplot-nox does), else libgd's png
if gnuplot -e 'set terminal pngcairo' >/dev/null 2>&1; then
    term="pngcairo noenhanced font 'sans,10'"
else
    term="png noenhanced font 'sans,10'"
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/zkbench-plot.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM HUP
status=0
note() { echo "$me: $*" >&2; }

# cdf FILE COLUMN [FILTERCOL FILTERVAL] > DATA: the empirical CDF of COLUMN
# (microseconds in the CSV; milliseconds out): a "# n N nonpositive K" line,
# then "ms fraction" lines, sorted. Values <= 0 cannot be drawn on a log axis:
# with NONPOS=keep (a notification may arrive before the write's ack: a
# negative time) they count in the fractions, so the curve starts at K/N;
# otherwise (-1 = not measured) they are left out. Fails when a column is
# absent.
cdf() {
    awk -F, -v vc="$2" -v fc="${3:-}" -v fv="${4:-}" '
        NR == 1 {
            for (i = 1; i <= NF; i++) { if ($i == vc) v = i; if (fc != "" && $i == fc) f = i }
            if (!v || (fc != "" && !f)) { bad = 1; exit 1 }
            next
        }
        (fc == "" || $f == fv) && $v != "" { print $v / 1000.0 }
        END { if (bad) exit 1 }' "$1" > "$tmp/raw" || {
        note "$1: no column $2${3:+ or $3}: skipped"
        return 1
    }
    sort -g "$tmp/raw" | awk -v keep="${NONPOS:-}" '
        $1 <= 0 { np++; next }
        { a[++n] = $1 }
        END {
            tot = n + (keep == "keep" ? np : 0); base = keep == "keep" ? np : 0
            printf "# n %d nonpositive %d\n", tot, base
            for (i = 1; i <= n; i++) printf "%.6f %.6f\n", a[i], (base + i) / tot
        }'
}

# The value column of summary.csv for SECTION,METRIC (empty when absent).
summary() {
    [ -f "$csv/summary.csv" ] || return 0
    awk -F, -v s="$1" -v m="$2" '$1 == s && $2 == m && $9 != "" { print $9; exit }' "$csv/summary.csv"
}

# Lines of the plot command, one per curve, accumulated in $tmp/plot.
curves=0
files=
start_plot() { : > "$tmp/plot"; curves=0; files=; }
# add DATAFILE TITLE STYLE
add() {
    set -- "$1" "$2" "$3" $(sed -n '1s/^# n \([0-9]*\) nonpositive \([0-9]*\)$/\1 \2/p' "$1")
    if [ "${4:-0}" -eq 0 ]; then
        note "$1: no samples for \"$2\": skipped"
        return
    fi
    if [ $curves -gt 0 ]; then printf ', \\\n' >> "$tmp/plot"; fi
    if [ "${5:-0}" -gt 0 ]; then
        printf "  '%s' using 1:2 with steps %s title '%s (n=%d, %d <= 0 ms)'" "$1" "$3" "$2" "$4" "$5" >> "$tmp/plot"
    else
        printf "  '%s' using 1:2 with steps %s title '%s (n=%d)'" "$1" "$3" "$2" "$4" >> "$tmp/plot"
    fi
    curves=$((curves + 1))
    files="$files $1"
}

# xrange [LO:HI] around the data of the curves added and the values given
# (floors), with a margin: a log axis autoscales to whole decades.
xrange() {
    for v in $(for d in $files; do sed -n 2p "$d"; tail -n 1 "$d"; done | cut -d' ' -f1) "$@"; do
        echo "$v"
    done | awk '$1 > 0 { if (lo == "" || $1 + 0 < lo) lo = $1 + 0; if ($1 + 0 > hi) hi = $1 + 0 }
        END { if (lo != "") printf "set xrange [%g:%g]\n", lo / 1.3, hi * 1.3 }'
}

# common PNGFILE TITLE: the settings every plot shares
common() {
    cat <<EOF
set terminal $term size 1100,650
set output '$1'
set title '$2'
set xlabel 'latency (ms, log scale)'
set ylabel 'fraction of samples <= x'
set logscale x 10
set format x '%g'
set yrange [0:1.02]
set ytics 0.1
set grid xtics mxtics ytics
set key right bottom box opaque
set mxtics 10
EOF
}

draw() {
    if ! gnuplot "$tmp/script" 2> "$tmp/gp.err"; then
        note "gnuplot failed on $1:"
        cat "$tmp/gp.err" >&2
        status=1
        return
    fi
    # warnings only (e.g. a curve without positive values on a log axis)
    [ -s "$tmp/gp.err" ] && sed "s|^|$me: gnuplot: |" "$tmp/gp.err" >&2
    echo "$me: wrote $1"
}

# ---- planned handover -----------------------------------------------------

start_plot
k=0
for f in "$csv"/handover-*-*.csv "$csv"/switchover-*-*.csv; do
    [ -f "$f" ] || continue
    b=$(basename "$f" .csv)
    kind=${b%%-*}                   # handover | switchover
    rest=${b#*-}
    label=${rest%%-*}               # ensemble | standalone
    policy=${rest#*-}
    k=$((k + 1))
    cdf "$f" total_us > "$tmp/h$k" || continue
    dash=1
    [ "$label" = ensemble ] || dash=2
    if [ "$kind" = handover ]; then
        add "$tmp/h$k" "graceful leave -> new leader READY, policy $policy ($label)" "lw 2 dt $dash"
    else
        add "$tmp/h$k" "switchover request -> target READY, policy $policy ($label)" "lw 2 dt $dash"
    fi
done
# the lock recipe's baseline, interleaved with those (ensemble only)
for f in "$csv"/recipe-ensemble-*-leave.csv "$csv"/recipe-ensemble-*-switchover.csv; do
    [ -f "$f" ] || continue
    b=$(basename "$f" .csv)
    rest=${b#recipe-ensemble-}
    kind=${rest##*-}                # leave | switchover
    policy=${rest%-*}
    k=$((k + 1))
    cdf "$f" total_us > "$tmp/h$k" || continue
    add "$tmp/h$k" "lock recipe baseline: delete -> successor leads (beside $kind, $policy)" "lw 1 dt 4"
done
if [ $curves -eq 0 ]; then
    note "no handover-*.csv or switchover-*.csv in $csv: handover.png skipped"
else
    {
        common "$out/handover.png" "Planned handover latency (zkbench sections 2a/2b; 3-server loopback ensemble)"
        floors=
        for label in ensemble standalone; do
            fl=$(summary "$label" floor)
            [ -n "$fl" ] || continue
            floors="$floors $fl"
            echo "set arrow from $fl, graph 0 to $fl, graph 1 nohead lw 1.5 dt 3 lc rgb 'black'"
            echo "set label 'floor ($label): $fl ms' at $fl, graph 0.5 rotate by 90 center offset 1,0 font 'sans,9'"
        done
        xrange $floors
        echo "plot \\"
        cat "$tmp/plot"
        echo
    } > "$tmp/script"
    [ -n "$(summary ensemble floor)$(summary standalone floor)" ] ||
        note "no floor in $csv/summary.csv (section 1 not run): handover.png has no floor line"
    draw "$out/handover.png"
fi

# ---- crash failover -------------------------------------------------------

start_plot
k=0
for f in "$csv"/crash-*.csv; do
    [ -f "$f" ] || continue
    t=$(basename "$f" .csv)
    t=${t#crash-}
    k=$((k + 1))
    if cdf "$f" kill_to_ready_us > "$tmp/c$k"; then
        add "$tmp/c$k" "leader SIGKILL -> new leader READY, session timeout $t ms" "lw 2 dt 1 lc $k"
    fi
    if cdf "$f" deleted_to_ready_us > "$tmp/e$k"; then
        add "$tmp/e$k" "session expiry (leader znode deleted) -> new leader READY, $t ms" "lw 2 dt 2 lc $k"
    fi
done
if [ -f "$csv/closed.csv" ] && cdf "$csv/closed.csv" close_to_ready_us > "$tmp/cl"; then
    add "$tmp/cl" "leader SIGKILL, session closed at once: closeSession -> new leader READY" "lw 2 dt 5 lc rgb 'dark-green'"
fi
if [ -f "$csv/elector.csv" ]; then
    t=$(awk -F, 'NR == 2 { print $1; exit }' "$csv/elector.csv")
    if cdf "$csv/elector.csv" kill_to_elector_us > "$tmp/el"; then
        add "$tmp/el" "elector SIGKILL -> next elector, session timeout ${t:-?} ms" "lw 2 dt 4 lc rgb 'dark-grey'"
    fi
else
    note "no elector.csv in $csv: failover.png without the elector curve"
fi
if [ $curves -eq 0 ]; then
    note "no crash-*.csv or elector.csv in $csv: failover.png skipped"
else
    {
        common "$out/failover.png" "Crash failover latency (zkbench sections 3 and 4; 3-server loopback ensemble)"
        xrange
        echo "set key left top box opaque"
        echo "plot \\"
        cat "$tmp/plot"
        echo
    } > "$tmp/script"
    draw "$out/failover.png"
fi

# ---- bare operations ------------------------------------------------------

# panel TITLE OP...: one panel of the rtt multiplot
panel() {
    title=$1
    shift
    start_plot
    for op in "$@"; do
        k=$((k + 1))
        NONPOS=keep
        cdf "$f" us op "$op" > "$tmp/r$k" || { NONPOS=; return; }
        NONPOS=
        [ -s "$tmp/r$k" ] || continue
        add "$tmp/r$k" "$op" "lw 2"
    done
    [ $curves -gt 0 ] || { note "$f: no samples for the $title panel"; return; }
    xrange
    echo "set title '$title'"
    echo "plot \\"
    cat "$tmp/plot"
    echo
}

found=0
for f in "$csv"/rtt-*.csv; do
    [ -f "$f" ] || continue
    found=1
    label=$(basename "$f" .csv)
    label=${label#rtt-}
    k=0
    {
        common "$out/rtt-$label.png" ""
        echo "set terminal $term size 1800,700"
        echo "set output '$out/rtt-$label.png'"
        echo "set key below box font 'sans,8' maxcols 1"
        echo "set bmargin 12"
        echo "set multiplot layout 1,3 title 'Bare ZooKeeper operations, $label (zkbench section 1): call -> reply, write ack -> notification'"
        panel "reads" "getData" "exists" "getData with watch" "exists with watch" "getChildren with watch"
        panel "writes" "create ephemeral" "setData" "delete" "multi(check+create)" \
            "multi(check+setData)" "multi(setData+setData)" "multi(delete+delete)"
        panel "watches: write ack -> notification (-> read)" "notification after setData ack" \
            "notification after delete ack" "child notification after create ack" \
            "watch+getData after setData ack" "watch+exists after delete ack" \
            "watch+getChildren after create ack"
        echo "unset multiplot"
    } > "$tmp/script"
    draw "$out/rtt-$label.png"
done
[ $found -eq 1 ] || note "no rtt-*.csv in $csv: the bare operations plot skipped"

exit $status
