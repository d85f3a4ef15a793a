#!/usr/bin/env bash
# suites_agents.sh -- two of issue 29's scenarios through real agents: two fleettune-agents on
# temp --sysfs-root trees (no root, no devices) whose fio is bench/fakefio answering a suite
# job's sections each on its own (its wparam/wlat surface lines, CV 2 %, seeded), SWEEPS real
# `fleettune-ctl sweep`s per scenario (2 nodes, 5 loops, min_effect 5 %, grid: the baseline and
# nr_requests 64): the same judgement as bench/suites.sh's Monte Carlo, end to end (the job
# bodies with workloads, the agents' per-section passes, the controller's store and analysis).
# Usage: bench/suites_agents.sh [SWEEPS] [BUILD_DIR]   (default 20; each rate then within
# about ±10 points: it confirms the Monte Carlo's rows, it does not replace them)
set -u
SWEEPS=${1:-20}
BUILD=${2:-${FT_BUILD_DIR:-$(cd "$(dirname "$0")/.." && pwd)/build}}
BUILD=$(cd "$BUILD" && pwd)
export FT_BUILD_DIR=$BUILD
source "$(dirname "$0")/../tests/integration/lib.sh"
source "$(dirname "$0")/../tests/integration/ctl_lib.sh"
ctl_fake_nodes 'base 1000' 1

# plan FILE NWORKLOADS EXTRA_MEMBERS
plan() {
	local wl="" i names=(A B C D E F G H)
	for i in $(seq 0 $(($2 - 1))); do
		[ "$i" -gt 0 ] && wl+=","
		wl+="{\"name\":\"${names[$i]}\",\"fio\":{\"rw\":\"read\",\"bs\":\"64k\"}}"
	done
	cat >"$1" <<PLAN
{"name": "suites_agents", "nodes": [{"name": "n1", "url": "$n1_URL", "device": "sdb", "token_file": "n1-state/token"},
  {"name": "n2", "url": "$n2_URL", "device": "sdb", "token_file": "n2-state/token"}],
 "baseline": {"nr_requests": 128}, "axes": [{"param": "nr_requests", "values": [64]}],
 "strategy": "grid", "job": {"fio": {"runtime_s": 1}, "loops": 5}, "min_effect_pct": 5,
 "workloads": [$wl]$3}
PLAN
}

# scenario NAME NWORKLOADS EXTRA SPEC WANT: SWEEPS sweeps; WANT is kept (no confirmed decision)
# or vetoed (the configuration's suite verdict).
scenario() {
	local name=$1 n=$2 extra=$3 spec=$4 want=$5 k hits=0 ran=0 d v
	printf 'base 1000\ncv 0.02\nnode_sd 0.02\n%b' "$spec" >"$IT_TMP/surface.spec"
	plan "$IT_TMP/plan.json" "$n" "$extra"
	for k in $(seq 1 "$SWEEPS"); do
		printf 'spec %s\nseed %s\ncounter %s\nsleep_ms 1\n' "$IT_TMP/surface.spec" "$((1000 * k + n))" \
			"$IT_TMP/cnt.$name.$k" >"$FAKEFIO_CTL"
		rm -f "$IT_TMP/s.db"
		"$CTL_BIN" sweep "$IT_TMP/plan.json" --db "$IT_TMP/s.db" >"$IT_TMP/out.txt" 2>"$IT_TMP/err.txt" ||
			{ sed 's/^/# /' "$IT_TMP/err.txt" | tail -5; continue; }
		"$CTL_BIN" show 1 --db "$IT_TMP/s.db" --format json >"$IT_TMP/doc.json" || continue
		d=$(jq -r .decision.state "$IT_TMP/doc.json")
		v=$(jq -r '.suite.matrix[0].verdict' "$IT_TMP/doc.json")
		ran=$((ran + 1))
		[ "$k" = 1 ] && grep -A1 "^configuration " "$IT_TMP/out.txt" | sed 's/^/# /'
		[ "$k" = 1 ] && grep "^guardrail\|^best (rule" "$IT_TMP/out.txt" | sed 's/^/# /' 
		case $want in
		kept) [ "$d" != confirmed ] && hits=$((hits + 1)) ;;
		vetoed) [ "$v" = vetoed ] || [ "$v" = loss ] && hits=$((hits + 1)) ;;
		esac
	done
	echo "| $name | $hits / $ran | $(awk -v h=$hits -v r=$ran 'BEGIN { printf "%.0f %%", r ? 100 * h / r : 0 }') | ≥ 95 % |"
	it_check "$name: every sweep ran" test "$ran" = "$SWEEPS"
}

echo "| through real agents (fakefio per section; 2 nodes, CV 2 %, 5 loops) | sweeps | rate | target |"
echo "|---|---|---|---|"
scenario "+10 % on A, −10 % on B, 0 on 5 more: no_loss keeps the baseline" 7 "" \
	'wparam 0 nr_requests 64 1.10\nwparam 1 nr_requests 64 0.90\n' kept
# fakefio's p99 follows the bandwidth (1 / iops): x1.43 on top of +10 % is a p99 of +30 %.
scenario "p99 +30 % on A with its throughput +10 % (3 workloads): the latency guardrail vetoes" 3 \
	', "guardrails": [{"metric": "read.clat_p99_us", "workload": "*", "max_loss_pct": 10}]' \
	'wparam 0 nr_requests 64 1.10\nwlat 0 nr_requests 64 1.43\n' vetoed
it_done
