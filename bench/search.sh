#!/bin/bash
# search.sh -- the adaptive strategy against grid on the same plans: real agents (each on a
# temp --sysfs-root tree) whose --fio is bench/fakefio, answering from a response surface
# with seeded noise; prints per scenario grid's and adaptive's benchmark-seconds, their ratio,
# how often adaptive picked a configuration within min_effect of the true best, and (nothing
# matters) how often it kept the baseline.
#
# usage: bench/search.sh [SEEDS] [BUILD_DIR]
#   SEEDS        seeds per scenario (default 20)
#   env SCENARIOS="one6-cv2-n2 ..."  a subset (default: all below)
#   env GRID_SEEDS=1   real grid sweeps per scenario that check grid's computed count
#   env SLEEP_MS=2     wall time of one fake fio run (benchmark-seconds are nominal)
#   env LOOPS_MIN=3 LOOPS_MAX=20   adaptive's job.loops {min, max}; grid runs LOOPS_MAX
#
# Benchmark-seconds (per node, every node runs every loop at once): loops x job runtime_s
# summed over the sweep's points, from the sweep's JSON ("loops" per point). Grid runs every
# point job.loops = LOOPS_MAX times (the loops adaptive's final confirmation runs and the cap
# of its races: loops {min LOOPS_MIN, max LOOPS_MAX}), so its count is fixed: points x
# LOOPS_MAX x runtime_s; it is computed for every seed and checked
# against GRID_SEEDS real grid sweeps per scenario. runtime_s is 1 (nominal: fakefio sleeps
# SLEEP_MS). A pick is "within min_effect of the true best" when the surface's mean of the
# chosen configuration (best, else the baseline) is at least (1 - 5 %) x the best mean over
# every configuration the plan spans.
set -u
SEEDS=${1:-20}
BUILD=${2:-${FT_BUILD_DIR:-$(cd "$(dirname "$0")/.." && pwd)/build}}
export FT_BUILD_DIR=$BUILD
source "$(dirname "$0")/../tests/integration/lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/bench_lib.sh"
bench_ports 29000 # agents listen on named ports: FT_BENCH_PORT_BASE + N
GRID_SEEDS=${GRID_SEEDS:-1}
SLEEP_MS=${SLEEP_MS:-2}
LOOPS_MIN=${LOOPS_MIN:-3}
LOOPS_MAX=${LOOPS_MAX:-20}
SCENARIOS=${SCENARIOS:-one6-cv2-n2 one6-cv5-n2 one6-cv2-n16 one6-cv5-n16 grid44-cv2-n2 grid44-cv5-n2 grid44-cv2-n16 grid44-cv5-n16 flat-cv2-n2 flat-cv5-n2 flat-cv2-n16 flat-cv5-n16}
FAKEFIO=$BUILD/bench/fakefio
for b in "$AGENT_BIN" "$CTL_BIN" "$FAKEFIO"; do
	[ -x "$b" ] || { echo "build first: $b" >&2; exit 1; }
done
t_start=$(date +%s)

fake_device() {
	local q=$1/sys/block/sdb/queue
	mkdir -p "$q/iosched"
	echo 2097152 >"$1/sys/block/sdb/size"
	echo "none [mq-deadline] kyber" >"$q/scheduler"
	echo 128 >"$q/nr_requests"
	echo 128 >"$q/read_ahead_kb"
	echo 1 >"$q/rq_affinity"
	echo 0 >"$q/rotational"
	echo 16 >"$q/iosched/fifo_batch"
}

# Surfaces: the metric's factor per parameter value (1 where not listed).
surface() {
	case $1 in
	one6) # seed 003's nr_requests row shape: one value +15 %, the others worse
		printf 'param nr_requests 32 0.70\nparam nr_requests 64 0.85\nparam nr_requests 256 1.15\n'
		printf 'param nr_requests 512 0.96\nparam nr_requests 1024 0.80\n' ;;
	grid44) # two axes and an interaction: 512 x 512 is best only together
		printf 'param nr_requests 64 0.90\nparam nr_requests 256 1.06\nparam nr_requests 512 1.03\n'
		printf 'param read_ahead_kb 64 0.95\nparam read_ahead_kb 256 1.04\nparam read_ahead_kb 512 1.08\n'
		printf 'inter nr_requests 512 read_ahead_kb 512 1.06\n' ;;
	flat) # nothing matters: every value within 1 %
		printf 'param nr_requests 32 0.99\nparam nr_requests 64 1.005\nparam nr_requests 256 1.01\n'
		printf 'param nr_requests 512 0.995\nparam nr_requests 1024 1.0\n' ;;
	esac
}

axes() {
	case $1 in
	grid44) echo '[{"param":"nr_requests","values":[64,128,256,512]},{"param":"read_ahead_kb","values":[64,128,256,512]}]' ;;
	*) echo '[{"param":"nr_requests","values":[32,64,128,256,512,1024]}]' ;;
	esac
}

# plan FILE STRATEGY NODES AXES
plan() {
	local file=$1 strategy=$2 n=$3 ax=$4 i loops
	[ "$strategy" = adaptive ] && loops="{\"min\":$LOOPS_MIN,\"max\":$LOOPS_MAX}" || loops=$LOOPS_MAX
	{
		echo '{"name":"search","nodes":['
		for i in $(seq "$n"); do
			url_var=n${i}_URL
			[ "$i" -gt 1 ] && echo ","
			printf '{"name":"n%d","url":"%s","device":"sdb","token_file":"n%d-state/token"}' \
				"$i" "${!url_var}" "$i"
		done
		echo '],"baseline":{"nr_requests":128,"read_ahead_kb":128},'
		echo "\"axes\":$ax,\"strategy\":\"$strategy\","
		echo "\"job\":{\"fio\":{\"rw\":\"write\",\"runtime_s\":1},\"loops\":$loops},"
		echo '"metric":"write.bw_mib","goal":"maximize","min_effect_pct":5}'
	} >"$file"
}

maxn=2
for sc in $SCENARIOS; do
	n=${sc##*-n}
	[ "$n" -gt "$maxn" ] && maxn=$n
done
echo "# $maxn agents on 127.0.0.1 (--sysfs-root trees, --fio $FAKEFIO); $SEEDS seeds per scenario"
export FAKEFIO_CTL=$IT_TMP/fakefio.ctl
for i in $(seq "$maxn"); do
	root=$IT_TMP/root$i
	fake_device "$root"
	export FAKEFIO_SYSFS=$root FAKEFIO_NODE=$i
	it_agent_start "n$i" --sysfs-root "$root" --allow-device sdb --fio "$FAKEFIO" || exit 1
done

run=0
fails=0
for sc in $SCENARIOS; do
	name=${sc%%-*}
	rest=${sc#*-cv}
	cv=${rest%%-*}
	n=${sc##*-n}
	surface "$name" >"$IT_TMP/$sc.spec"
	printf 'base 1000\ncv 0.0%s\nnode_sd 0.02\n' "$cv" >>"$IT_TMP/$sc.spec"
	for strategy in adaptive grid; do
		plan "$IT_TMP/$sc.$strategy.plan" "$strategy" "$n" "$(axes "$name")"
	done
	for seed in $(seq "$SEEDS"); do
		for strategy in adaptive grid; do
			[ "$strategy" = grid ] && [ "$seed" -gt "$GRID_SEEDS" ] && continue
			run=$((run + 1))
			printf 'spec %s\nseed %d\ncounter %s\nsleep_ms %d\n' "$IT_TMP/$sc.spec" \
				"$((seed * 7919 + ${#sc}))" "$IT_TMP/cnt.$sc.$seed.$strategy" "$SLEEP_MS" \
				>"$FAKEFIO_CTL"
			out=$IT_TMP/out.$sc.$seed.$strategy.json
			"$CTL_BIN" sweep "$IT_TMP/$sc.$strategy.plan" --format json --out "$out" \
				--db "$IT_TMP/search.db" 2>"$IT_TMP/err.$sc.$seed.$strategy" </dev/null
			rc=$?
			if [ "$rc" != 0 ] && [ "$rc" != 1 ] || [ ! -s "$out" ]; then
				fails=$((fails + 1))
				echo "# $sc seed $seed $strategy: exit $rc" >&2
				tail -3 "$IT_TMP/err.$sc.$seed.$strategy" >&2
				rm -f "$out"
			fi
		done
	done
	echo "# $sc done ($(( $(date +%s) - t_start )) s)" >&2
done

python3 - "$IT_TMP" "$SEEDS" "$SCENARIOS" "$LOOPS_MAX" <<'PY'
import glob, itertools, json, os, sys
tmp, seeds, scenarios, lmax = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(), int(sys.argv[4])
BASE = {"nr_requests": "128", "read_ahead_kb": "128"}

def spec(path):
    params, inters = {}, []
    for line in open(path):
        w = line.split()
        if w and w[0] == "param":
            params[(w[1], w[2])] = float(w[3])
        elif w and w[0] == "inter":
            inters.append((w[1], w[2], w[3], w[4], float(w[5])))
    return params, inters

def truth(sp, cfg):
    params, inters = sp
    m = 1.0
    for (k, v), f in params.items():
        if str(cfg.get(k)) == v:
            m *= f
    for k1, v1, k2, v2, f in inters:
        if str(cfg.get(k1)) == v1 and str(cfg.get(k2)) == v2:
            m *= f
    return m

def space(plan):
    lists = []
    for a in plan["axes"]:
        lists.append([(a["param"], str(v)) for v in a["values"]])
    for combo in itertools.product(*lists):
        c = dict(BASE)
        c.update(dict(combo))
        yield c

def seconds(d):
    rt = d["plan"]["job"]["fio"]["runtime_s"]
    return sum(p["loops"] for p in d["points"]) * rt

print("| scenario | nodes | CV | seeds | grid s | adaptive s (mean, min-max) | ratio | within min_effect of best | baseline kept |")
print("|---|---|---|---|---|---|---|---|---|")
for sc in scenarios:
    sp = spec(f"{tmp}/{sc}.spec")
    plan = json.load(open(f"{tmp}/{sc}.adaptive.plan"))
    cfgs = list(space(plan))
    best = max(truth(sp, c) for c in cfgs)
    # grid: the baseline plus every combination that differs from it, job.loops = LOOPS_MAX each
    npts = 1 + sum(1 for c in cfgs if c != BASE)
    grid_s = npts * lmax * plan["job"]["fio"]["runtime_s"]
    for f in glob.glob(f"{tmp}/out.{sc}.*.grid.json"):
        real = seconds(json.load(open(f)))
        assert real == grid_s, (f, real, grid_s)
    ad, good, kept, n = [], 0, 0, 0
    for s in range(1, seeds + 1):
        f = f"{tmp}/out.{sc}.{s}.adaptive.json"
        if not os.path.exists(f):
            continue
        d = json.load(open(f))
        n += 1
        ad.append(seconds(d))
        picked = dict(BASE)
        if d["best"] is not None:
            picked.update({k: str(v) for k, v in d["best"]["params"].items()})
        else:
            kept += 1
        good += truth(sp, picked) >= best * 0.95 - 1e-12
    nodes = len(plan["nodes"])
    cv = sc.split("-cv")[1].split("-")[0]
    if not n:
        print(f"| {sc} | {nodes} | {cv} % | 0 | {grid_s} | - | - | - | - |")
        continue
    mean = sum(ad) / n
    flat = sc.startswith("flat")
    print(f"| {sc} | {nodes} | {cv} % | {n} | {grid_s:.0f} | {mean:.1f} ({min(ad):.0f}-{max(ad):.0f}) "
          f"| {100 * mean / grid_s:.0f} % | {100 * good / n:.0f} % | "
          f"{f'{100 * kept / n:.0f} %' if flat else f'({100 * kept / n:.0f} %)'} |")
grids = len(glob.glob(f"{tmp}/out.*.grid.json"))
print(f"\nadaptive: job.loops {{min {plan['job']['loops']['min']}, max {lmax}}}; grid: job.loops {lmax}; runtime_s 1 (nominal).")
print(f"grid's seconds are computed (points x {lmax} loops x 1 s); {grids} real grid sweeps matched the count.")
PY
echo "# $run sweeps, $fails failed, $(( $(date +%s) - t_start )) s wall"
[ "$fails" = 0 ]
