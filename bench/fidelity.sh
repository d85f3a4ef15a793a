#!/usr/bin/env bash
# fidelity.sh -- does running fio through fleettune change what it measures, on the path users
# take? Bare fio against fio run by `fleettune-ctl sweep` on one node (the controller waiting by
# long-poll), interleaved (bare first in odd pairs, the sweep first in even ones), PAIRS pairs,
# on two loop devices: "cpu" (backed by a page-cached file: randread 64k with psync, CPU-bound)
# and "dio" (losetup --direct-io=on: the disk under the file, libaio iodepth 16, direct=1).
#
# Only fleettune's presence differs between the two sides:
#  - the command: the bare side runs exactly the fio command line the agent ran, taken from the
#    agent's log (--verbose: "job N pass 1: argv ...") after an uncounted warm-up sweep: the
#    same --name, --output-format=json, --group_reporting, option order and values (the agent
#    spells bs and size in bytes). Both sides read the same figure: bw_bytes / 2^20.
#  - the device: the sweep's one point sets nr_requests to the value the device has (a no-op
#    write), its session restores what it found, nothing else is written; no page cache is
#    dropped by either side, and each fio run opens the device anew (the kernel drops a block
#    device's own cache on its last close, so both start with the backing file's cache only).
#    The queue's scheduler, nr_requests and read_ahead_kb are read before every run and any
#    change is reported.
#  - the process: the agent runs fio in a job cgroup (no limits set) under its own.
#
# Reports per mode the median ratio sweep/bare with a 95 % bootstrap CI of the median (10 000
# resamples, seeded), the geometric mean with a t-interval on the log ratios, and a
# drift-robust estimate: log(MiB/s) fitted on run order (a linear trend) plus a sweep effect,
# over every run in time order (its 95 % t-interval); and the agent's CPU during each sweep,
# from /proc/PID/stat read before and after it (nothing is spawned per poll; the controller
# holds one long-poll).
# Usage: bench/fidelity.sh [PAIRS] [RUNTIME_S]   (default 20 pairs of 5 s; env: MODES="cpu dio";
# FT_BUILD_DIR=DIR uses that build instead of configuring build-bench; FT_BENCH_PORT_BASE=
# 24000: the agent of the first mode listens on BASE + 1, the second's on BASE + 2; root: creates and removes loop devices). Targets: the
# CI includes 1.0 and its lower end is >= 0.98. Run it on a quiet machine: the "cpu" mode is
# CPU-bound, so any other load moves it. The sweep document is read as it is today (format 3:
# each pass {value, round, started_at}) or as older ones were (a number).
set -eu
cd "$(dirname "$0")/.."
PAIRS=${1:-20}
RT=${2:-5}
MODES=${MODES:-cpu dio}
source bench/bench_lib.sh
bench_ports 24000
if [ -n "${FT_BUILD_DIR:-}" ]; then
	B=$FT_BUILD_DIR
else
	./scripts/deps.sh >/dev/null
	cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release -DFT_TESTS=OFF >/dev/null
	cmake --build build-bench -j2 --target fleettune-agent fleettune-ctl >/dev/null
	B=build-bench
fi
echo "# fidelity.sh: $PAIRS pairs of $RT s, modes $MODES, build $B; $(bench_load)"
tmp=$(mktemp -d "${FT_BENCH_TMP:-/tmp}/ft-bench-fid-XXXXXX")
pid=""
dev=""
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	[ -n "$dev" ] && losetup -d "/dev/$dev"
	rm -rf "$tmp"
}
trap cleanup EXIT
ticks=$(getconf CLK_TCK)

# fio_opts MODE: the job's fio options as the plan's JSON.
fio_opts() {
	if [ "$1" = cpu ]; then
		JSON='{"rw":"randread","bs":"64k","ioengine":"psync","direct":false,"size":"256m","runtime_s":'$RT',"time_based":true}'
	else
		JSON='{"rw":"randread","bs":"64k","ioengine":"libaio","direct":true,"iodepth":16,"size":"256m","runtime_s":'$RT',"time_based":true}'
	fi
}

# The agent's fio command of its last pass, from its --verbose log, into BARE_ARGV, less its
# exec_prerun.
agent_argv() {
	local line
	line=$(sed -n 's/.* pass [0-9]*: argv //p' "$tmp/agent-$mode.log" | tail -1)
	[ -n "$line" ] || { echo "no argv line in $tmp/agent-$mode.log" >&2; exit 1; }
	eval "BARE_ARGV=($line)"
	# Not the wait for a job's moment (a pre-started pass's exec_prerun): bare fio starts now.
	local a kept=()
	for a in "${BARE_ARGV[@]}"; do
		case "$a" in --exec_prerun=*) ;; *) kept+=("$a") ;; esac
	done
	BARE_ARGV=("${kept[@]}")
}

# The queue's state a run starts from.
dev_state() {
	local q=/sys/block/$dev/queue
	echo "$(cat "$q/scheduler") nr_requests=$(cat "$q/nr_requests") read_ahead_kb=$(cat "$q/read_ahead_kb")"
}

# Note one run (kind, MiB/s) in time order, and a device state that is not the initial one.
run_note() {
	echo "$1 $2" >>"$tmp/$mode.runs"
	[ "$state" = "$3" ] || echo "# $mode: run $1 began with $3 (initially $state)" | tee -a "$tmp/$mode.drift" >&2
}

bare() {
	local st v
	st=$(dev_state)
	v=$("${BARE_ARGV[@]}" | jq '.jobs[0].read.bw_bytes / 1048576')
	run_note bare "$v" "$st"
	echo "$v"
}

# One sweep of one point and one pass (N: its id in the database; 0: the warm-up, which is
# sweep 1 and not counted); prints "MiB/s agent_cpu_pct".
via_sweep() {
	local c0 c1 t0 t1 g n=$1
	local st
	st=$(dev_state)
	t0=$(date +%s.%N); c0=$(awk '{print $14 + $15}' "/proc/$pid/stat")
	"$B"/controller/fleettune-ctl sweep "$tmp/plan.json" --db "$tmp/ctl.db" >/dev/null 2>"$tmp/sweep.err" ||
		{ cat "$tmp/sweep.err" >&2; exit 1; }
	c1=$(awk '{print $14 + $15}' "/proc/$pid/stat"); t1=$(date +%s.%N)
	g=$("$B"/controller/fleettune-ctl show "$([ "$n" = 0 ] && echo "$sweeps" || echo "$n")" --db "$tmp/ctl.db" --format json |
		jq '.points[0].nodes[0].passes[0] | if type == "object" then .value else . end')
	[ -n "$g" ] && [ "$g" != null ] || { echo "no pass in sweep $n's document" >&2; exit 1; }
	[ "$n" = 0 ] || run_note sweep "$g" "$st"
	echo "$g $(echo "($c1 - $c0) / $ticks / ($t1 - $t0) * 100" | bc -l)"
}

sweeps=0
for mode in $MODES; do
	img=$tmp/$mode.img
	if [ "$mode" = cpu ]; then
		dd if=/dev/zero of="$img" bs=1M count=256 status=none   # in the page cache
		dev=$(losetup --find --show "$img")
	else
		truncate -s 1G "$img"
		dev=$(losetup --find --show --direct-io=on "$img")
	fi
	dev=${dev#/dev/}
	nmode=$((${nmode:-0} + 1)) # an agent per mode, each on a port of its own
	"$B"/agent/fleettune-agent --listen "127.0.0.1:$(bench_port "$nmode")" --state-dir "$tmp/state-$mode" \
		--allow-device "$dev" --verbose 2>"$tmp/agent-$mode.log" &
	pid=$!
	for _ in $(seq 100); do grep -qs listening "$tmp/agent-$mode.log" && break; sleep 0.1; done
	port=$(sed -n 's/.*listening on http:\/\/127\.0\.0\.1:\([0-9]*\).*/\1/p' "$tmp/agent-$mode.log")
	fio_opts "$mode"
	nr=$(cat "/sys/block/$dev/queue/nr_requests")
	# One point (the axis value is the baseline's: the device as it is) and one pass.
	cat >"$tmp/plan.json" <<PLAN
{"name":"fidelity $mode","strategy":"grid",
 "nodes":[{"name":"n1","url":"http://127.0.0.1:$port","device":"$dev","token_file":"state-$mode/token"}],
 "baseline":{"nr_requests":$nr},"axes":[{"param":"nr_requests","values":[$nr]}],
 "job":{"fio":$JSON,"loops":1},"metric":"read.bw_mib"}
PLAN
	state=$(dev_state)
	: >"$tmp/$mode.pairs"
	: >"$tmp/$mode.runs"
	# Warm-up, not counted: a sweep (its pass gives the agent's command) and that command bare.
	sweeps=$((sweeps + 1)); via_sweep 0 >/dev/null
	agent_argv
	echo "# $mode: the agent's fio command, run bare: ${BARE_ARGV[*]}"
	"${BARE_ARGV[@]}" >/dev/null
	echo "# $mode: pair bare_mib sweep_mib ratio agent_cpu_pct"
	for i in $(seq "$PAIRS"); do
		if [ $((i % 2)) = 1 ]; then
			b=$(bare); sweeps=$((sweeps + 1)); read -r g c < <(via_sweep "$sweeps")
		else
			sweeps=$((sweeps + 1)); read -r g c < <(via_sweep "$sweeps"); b=$(bare)
		fi
		printf '%s %d %.1f %.1f %.4f %.3f\n' "$mode" "$i" "$b" "$g" "$(echo "$g / $b" | bc -l)" "$c" |
			tee -a "$tmp/$mode.pairs"
	done
	kill "$pid"; wait "$pid" 2>/dev/null || true; pid=""
	losetup -d "/dev/$dev"; dev=""
	python3 - "$mode" "$tmp/$mode.pairs" "$RT" "$tmp/$mode.runs" <<'PY'
import math, random, statistics, sys
mode, path, rt, runs_path = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
rows = [l.split() for l in open(path)]
ratios = [float(r[4]) for r in rows]
cpu = [float(r[5]) for r in rows]
n = len(ratios)
med = statistics.median(ratios)
rng = random.Random(1)
boot = sorted(statistics.median(rng.choices(ratios, k=n)) for _ in range(10000))
lo, hi = boot[249], boot[9749]
logs = [math.log(r) for r in ratios]
# t quantile 0.975 for n-1 degrees of freedom (table; >= 30 uses 2.0).
T = {1: 12.71, 2: 4.30, 3: 3.18, 4: 2.78, 5: 2.57, 6: 2.45, 7: 2.36, 8: 2.31, 9: 2.26, 10: 2.23,
     11: 2.20, 12: 2.18, 13: 2.16, 14: 2.14, 15: 2.13, 16: 2.12, 17: 2.11, 18: 2.10, 19: 2.09,
     20: 2.09, 25: 2.06}
df = n - 1
t = T.get(df) or (2.0 if df >= 30 else T[max(k for k in T if k <= df)])
gm = math.exp(statistics.mean(logs))
half = t * statistics.stdev(logs) / math.sqrt(n) if n > 1 else float("nan")
print(f"RESULT {mode}: median ratio sweep/bare {med:.4f}, 95% bootstrap CI of the median "
      f"[{lo:.4f}, {hi:.4f}] over {n} pairs of {rt} s; geometric mean {gm:.4f}, t-interval on "
      f"log ratios [{gm / math.exp(half):.4f}, {gm * math.exp(half):.4f}]; agent CPU during a "
      f"sweep (median) {statistics.median(cpu):.3f}% of a core")
# Drift-robust: log(MiB/s) = a + b * run index + c * [sweep], least squares over every run in
# time order; exp(c) with a t-interval on n - 3 degrees of freedom.
runs = [l.split() for l in open(runs_path)]
X = [(1.0, float(i), 1.0 if k == "sweep" else 0.0) for i, (k, _) in enumerate(runs)]
y = [math.log(float(v)) for _, v in runs]
N = len(y)
A = [[sum(x[r] * x[c] for x in X) for c in range(3)] for r in range(3)]
bv = [sum(x[r] * yy for x, yy in zip(X, y)) for r in range(3)]
def solve(M, v):
    M = [row[:] + [vv] for row, vv in zip(M, v)]
    for i in range(3):
        p = max(range(i, 3), key=lambda r: abs(M[r][i]))
        M[i], M[p] = M[p], M[i]
        for r in range(3):
            if r != i:
                f = M[r][i] / M[i][i]
                M[r] = [a - f * b for a, b in zip(M[r], M[i])]
    return [M[i][3] / M[i][i] for i in range(3)]
beta = solve(A, bv)
res = [yy - sum(b * xx for b, xx in zip(beta, x)) for x, yy in zip(X, y)]
if N > 3:
    s2 = sum(r * r for r in res) / (N - 3)
    cinv = solve(A, [0.0, 0.0, 1.0])[2]  # (A^-1)[2][2]
    dft = N - 3
    tt = T.get(dft) or (2.0 if dft >= 30 else T[max(k for k in T if k <= dft)])
    hw = tt * math.sqrt(s2 * cinv)
    print(f"RESULT {mode}: drift-robust (linear trend over {N} runs in time order) sweep/bare "
          f"{math.exp(beta[2]):.4f} [{math.exp(beta[2] - hw):.4f}, {math.exp(beta[2] + hw):.4f}]; "
          f"trend {100 * (math.exp(beta[1]) - 1):+.3f} % per run")
print(f"RESULT {mode}: targets: the CI includes 1.0 ({'yes' if lo <= 1 <= hi else 'NO'}), "
      f"its lower end >= 0.98 ({'yes' if lo >= 0.98 else 'NO'})")
PY
done
