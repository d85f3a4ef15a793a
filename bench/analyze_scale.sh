#!/bin/bash
# analyze_scale.sh -- `fleettune-ctl analyze --format table` of synthetic sweep documents of
# NODES x 8 points x 10 passes: wall time, CPU time (user + system: what a loaded machine
# distorts least) and peak RSS per size, and the ratios per 4x of nodes (the analysis must be
# linear in nodes: each 4x within 5x of time).
#
# usage: bench/analyze_scale.sh [BUILD_DIR] [SIZES]
#   SIZES   node counts (default "1024 4096 16384")
#   env FORMAT=3 (passes {value, round, started_at}, judged within rounds) or 2 (plain
#       numbers, for an older fleettune-ctl: CTL=.../fleettune-ctl FORMAT=2)
#   env REPS=3   runs per size (the median is reported)
#   env CTL_REF=.../fleettune-ctl   another build (main's) run once per size on the same
#       document: its output must be byte-identical (analyze --format table and json), else
#       the script fails
# The documents are seeded (the same bytes every time); generating them takes a while at
# 16 384 nodes (about 130 MB) and is not timed.
set -u
BUILD=${1:-$(cd "$(dirname "$0")/.." && pwd)/build}
SIZES=${2:-1024 4096 16384}
CTL=${CTL:-$BUILD/controller/fleettune-ctl}
FORMAT=${FORMAT:-3}
REPS=${REPS:-3}
CTL_REF=${CTL_REF:-}
[ -x "$CTL" ] || { echo "build first: $CTL" >&2; exit 1; }
[ -z "$CTL_REF" ] || [ -x "$CTL_REF" ] || { echo "CTL_REF is not executable: $CTL_REF" >&2; exit 1; }
source "$(dirname "$0")/bench_lib.sh"
command -v /usr/bin/time >/dev/null || { echo "needs /usr/bin/time (apt-get install time)" >&2; exit 1; }
TMP=$(mktemp -d /tmp/ft-analyze-scale-XXXXXX)
trap 'rm -rf "$TMP"' EXIT

gen() {
	python3 - "$1" "$FORMAT" <<'PY'
import json, random, sys
n, fmt = int(sys.argv[1]), int(sys.argv[2])
rnd = random.Random(17 + n)
values = [32, 64, 96, 192, 256, 512, 1024]
nodes = [{"name": "n%d" % k, "url": "http://10.0.%d.%d:7070" % (k // 250, k % 250 + 1),
          "device": "sdb"} for k in range(n)]
plan = {"name": "scale", "nodes": nodes, "baseline": {"nr_requests": 128},
        "axes": [{"param": "nr_requests", "values": values}], "strategy": "grid",
        "job": {"fio": {"rw": "write", "runtime_s": 1}, "loops": 10}, "metric": "write.bw_mib",
        "min_effect_pct": 5}
level = [1000 * (1 + 0.05 * rnd.gauss(0, 1)) for _ in range(n)]
eff = [1.0, 0.97, 1.0, 1.02, 1.06, 1.03, 0.99, 0.95]
order = [list(range(8)) for _ in range(10)]
for o in order:
    rnd.shuffle(o)
t0 = 1764580000.0
out = sys.stdout
out.write('{"format": "fleettune-sweep", "format_version": %d, "id": 1, "status": "completed",'
          ' "created_at": "2026-12-01T09:06:40Z", "finished_at": "2026-12-01T09:08:00Z",'
          ' "nodes": %s, "points": [' % (fmt, json.dumps([{"name": x["name"], "dropped": False} for x in nodes])))
for i in range(8):
    cfg = {"nr_requests": 128 if i == 0 else values[i - 1]}
    out.write('%s{"index": %d, "role": "%s", "axis": null, "ref": %s, "params": %s, "loops": 10, "nodes": ['
              % ("," if i else "", i, "baseline" if i == 0 else "candidate",
                 "null" if i == 0 else "0", json.dumps(cfg)))
    for k in range(n):
        vals = [level[k] * eff[i] * (1 + 0.02 * rnd.gauss(0, 1)) for _ in range(10)]
        if fmt >= 3:
            ps = ",".join('{"value": %.17g, "round": %d, "started_at": "2026-12-01T09:%02d:%02d.000Z"}'
                          % (v, j + 1, 6 + (j * 8 + order[j].index(i)) // 60,
                             (40 + j * 8 + order[j].index(i)) % 60) for j, v in enumerate(vals))
        else:
            ps = ",".join("%.17g" % v for v in vals)
        out.write('%s{"node": "n%d", "state": "ok", "passes": [%s], "job_id": %d}'
                  % ("," if k else "", k, ps, i + 1))
    out.write("]}")
out.write('], "plan": %s}\n' % json.dumps(plan))
PY
}

echo "# $CTL, format $FORMAT, sizes: $SIZES${CTL_REF:+, compared with $CTL_REF}; $(bench_load)"
prev_t=""
prev_c=""
prev_n=""
for n in $SIZES; do
	gen "$n" >"$TMP/doc-$n.json"
	ts=()
	cs=()
	rss=0
	for r in $(seq "$REPS"); do
		/usr/bin/time -f '%e %U %S %M' -o "$TMP/time" "$CTL" analyze "$TMP/doc-$n.json" \
			--format table >"$TMP/out-$n.txt" 2>"$TMP/err-$n.txt" ||
			{ echo "analyze failed at $n nodes:" >&2; cat "$TMP/err-$n.txt" >&2; exit 1; }
		read -r t u sy m <"$TMP/time"
		ts+=("$t")
		cs+=("$(awk -v u="$u" -v s="$sy" 'BEGIN { printf "%.2f", u + s }')")
		[ "$m" -gt "$rss" ] && rss=$m
	done
	med=$(printf '%s\n' "${ts[@]}" | sort -g | sed -n "$(( (REPS + 1) / 2 ))p")
	cpu=$(printf '%s\n' "${cs[@]}" | sort -g | sed -n "$(( (REPS + 1) / 2 ))p")
	ratio=""
	[ -n "$prev_t" ] && ratio=$(awk -v a="$med" -v b="$prev_t" -v c="$cpu" -v d="$prev_c" \
		-v x="$n" -v y="$prev_n" 'BEGIN { printf " (x%.0f nodes: wall x%.2f, cpu x%.2f)", x / y,
		(b > 0 ? a / b : 0), (d > 0 ? c / d : 0) }')
	echo "RESULT analyze nodes=$n points=8 passes=10 format=$FORMAT wall_s=$med cpu_s=$cpu (runs: ${ts[*]} s wall; ${cs[*]} s cpu) peak_rss_mib=$((rss / 1024)) doc_mib=$(( $(stat -c %s "$TMP/doc-$n.json") / 1048576 ))$ratio"
	if [ -n "$prev_t" ]; then
		bench_target "analyze wall x per x$((n / prev_n)) nodes ($prev_n -> $n)" \
			"$(awk -v a="$med" -v b="$prev_t" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')" "<=" \
			"$(awk -v x="$n" -v y="$prev_n" 'BEGIN { print 1.25 * x / y }')"
	fi
	if [ -n "$CTL_REF" ]; then
		same=yes
		for f in table json; do
			"$CTL" analyze "$TMP/doc-$n.json" --format "$f" >"$TMP/new-$n.$f" 2>&1
			"$CTL_REF" analyze "$TMP/doc-$n.json" --format "$f" >"$TMP/ref-$n.$f" 2>&1
			cmp -s "$TMP/new-$n.$f" "$TMP/ref-$n.$f" || same="no ($f differs)"
			rm -f "$TMP/new-$n.$f" "$TMP/ref-$n.$f"
		done
		echo "RESULT analyze nodes=$n output identical to CTL_REF (table, json): $same"
		[ "$same" = yes ] || { echo "analyze output differs from $CTL_REF at $n nodes" >&2; exit 1; }
	fi
	[ "$n" -ge 16384 ] && bench_target "analyze peak RSS at $n nodes, MiB" "$((rss / 1024))" "<=" 300
	prev_t=$med
	prev_c=$cpu
	prev_n=$n
	rm -f "$TMP/doc-$n.json"
done
