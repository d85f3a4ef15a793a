#!/usr/bin/env bash
# suites_cost.sh -- issue 29's cost: a 7-workload suite sweep against 7 separate sweeps of the
# same points on the same two agents (loop devices, real fio, RUNTIME_S-second passes): the
# suite's benchmark-seconds (its jobs' runtimes as the agents report them, summed) within x1.05
# of the 7 sweeps' and its wall within x1.10 of theirs, with one request (job) per node per
# point per round. Prints both, the ratios, the targets and met/not.
# Usage: bench/suites_cost.sh [LOOPS] [BUILD_DIR]   (env RUNTIME_S=1; root: creates and removes
# loop devices)
set -eu
cd "$(dirname "$0")/.."
LOOPS=${1:-2}
BUILD=${2:-build-bench}
RUNTIME_S=${RUNTIME_S:-1}
if [ "$BUILD" = build-bench ]; then
	./scripts/deps.sh >/dev/null
	cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release -DFT_TESTS=OFF >/dev/null
	cmake --build build-bench -j2 --target fleettune-agent fleettune-ctl >/dev/null
fi
command -v fio >/dev/null || { echo "suites_cost.sh: fio is not installed" >&2; exit 77; }
[ "$(id -u)" = 0 ] || { echo "suites_cost.sh: needs root (loop devices)" >&2; exit 77; }
source bench/bench_lib.sh
bench_ports 33000
AGENT=$BUILD/agent/fleettune-agent
CTL=$BUILD/controller/fleettune-ctl
tmp=$(mktemp -d "${FT_BENCH_TMP:-/tmp}/ft-bench-suites-XXXXXX")
pids=()
devs=()
cleanup() {
	local p d
	for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
	for d in "${devs[@]}"; do losetup -d "/dev/$d" 2>/dev/null || true; done
	rm -rf "$tmp"
}
trap cleanup EXIT
for n in 1 2; do
	truncate -s 96M "$tmp/node$n.img"
	d=$(losetup --find --show "$tmp/node$n.img")
	devs+=("${d#/dev/}")
done
bench_agent_start node1 "${devs[0]}" 601
U1=$URL
bench_agent_start node2 "${devs[1]}" 602
U2=$URL
# The iozone suite's tests, as the plan's "suite": "iozone" gives them (plan_suite.c).
names=("write" "rewrite" "read" "reread" "random read" "random write" "mixed")
fios=('{"rw":"write"}' '{"rw":"write"}' '{"rw":"read"}' '{"rw":"read"}' '{"rw":"randread"}'
	'{"rw":"randwrite"}' '{"rw":"randrw","rwmixread":50}')
plan() { # FILE NAME WORKLOADS_MEMBER
	cat >"$1" <<PLAN
{
  "name": "$2",
  "nodes": [
    {"name": "node1", "url": "$U1", "device": "${devs[0]}", "token_file": "node1-state/token"},
    {"name": "node2", "url": "$U2", "device": "${devs[1]}", "token_file": "node2-state/token"}
  ],
  "baseline": {"nr_requests": 128},
  "axes": [{"param": "nr_requests", "values": [64]}],
  "strategy": "grid",
  "job": {"engine": "fio", "fio": {"ioengine": "psync", "direct": true, "bs": "64k", "size": "32m",
          "runtime_s": $RUNTIME_S, "time_based": true}, "loops": $LOOPS},
  $3,
  "min_effect_pct": 5
}
PLAN
}
# sweep PLAN DB: run it; prints "WALL_S BENCH_S JOBS" (benchmark-seconds: every node's job
# runtimes at every point, as the agents reported them; jobs: the agents' job count after).
sweep() {
	local t0 t1 j
	t0=$(date +%s.%N)
	"$CTL" sweep "$1" --db "$2" >"$1.txt" 2>"$1.err" || { sed 's/^/# /' "$1.err" >&2; exit 1; }
	t1=$(date +%s.%N)
	"$CTL" show 1 --db "$2" --format json >"$1.doc"
	j=$(jq '[.points[].nodes[].job_runtime_s // 0] | add' "$1.doc")
	echo "$(echo "$t1 - $t0" | bc) $j"
}
# jobs_of NAME URL: the jobs that agent ran so far (its log's "job N succeeded" lines).
jobs_of() { grep -c 'info: job [0-9]* succeeded$' "$tmp/$1.log" || true; }
wl='"workloads": ['
for i in "${!names[@]}"; do
	[ "$i" -gt 0 ] && wl+=','
	wl+="{\"name\":\"${names[$i]}\",\"fio\":${fios[$i]}}"
done
wl+='], "decide": {"rule": "no_loss"}'
plan "$tmp/suite.json" "iozone suite" "$wl"
echo "# uptime: $(uptime)"
j0=$(jobs_of node1 "$U1")
read -r sw sb < <(sweep "$tmp/suite.json" "$tmp/suite.db")
sj=$(($(jobs_of node1 "$U1") - j0))
tw=0 tb=0
j0=$(jobs_of node1 "$U1")
for i in "${!names[@]}"; do
	plan "$tmp/one$i.json" "${names[$i]} alone" "\"workloads\": [{\"name\":\"${names[$i]}\",\"fio\":${fios[$i]}}]"
	read -r w b < <(sweep "$tmp/one$i.json" "$tmp/one$i.db")
	tw=$(echo "$tw + $w" | bc)
	tb=$(echo "$tb + $b" | bc)
done
oj=$(($(jobs_of node1 "$U1") - j0))
echo "# uptime: $(uptime)"
rb=$(printf '%.2f' "$(echo "scale=4; $sb / $tb" | bc)")
rw=$(printf '%.2f' "$(echo "scale=4; $sw / $tw" | bc)")
sb=$(printf '%.1f' "$sb") tb=$(printf '%.1f' "$tb") sw=$(printf '%.1f' "$sw") tw=$(printf '%.1f' "$tw")
points=2
echo "| 2 nodes, 2 points, $LOOPS loops, $RUNTIME_S s passes, real fio on loop devices | suite (7 workloads) | 7 sweeps | ratio | target | |"
echo "|---|---|---|---|---|---|"
echo "| benchmark-seconds (the jobs' runtimes, summed over nodes) | $sb | $tb | $rb | ≤ 1.05 | $([ "$(echo "$rb <= 1.05" | bc)" = 1 ] && echo met || echo 'NOT met') |"
echo "| wall, s | $sw | $tw | $rw | ≤ 1.10 | $([ "$(echo "$rw <= 1.10" | bc)" = 1 ] && echo met || echo 'NOT met') |"
echo "| jobs per node | $sj | $oj | | $((points * LOOPS)) for the suite (one per point per round) | $([ "$sj" = $((points * LOOPS)) ] && echo met || echo 'NOT met') |"
