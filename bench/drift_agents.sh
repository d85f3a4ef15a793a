#!/bin/bash
# drift_agents.sh -- bench/drift.sh's rows through real agents: two fleettune-agents on temp
# --sysfs-root trees whose --fio is bench/fakefio in drift mode (no setting matters; each run
# 0.5 % above the last, CV 1 %), real `fleettune-ctl sweep`s (grid, then sequential), every
# row's verdict and the drift line counted from the sweeps' JSON and tables.
#
# usage: bench/drift_agents.sh SWEEPS [BUILD_DIR]
#   SWEEPS   sweeps per strategy (grid: 3 rows each; sequential: 3 rows and the final
#            confirmation when one ran)
#   env DRIFT_PCT=0.5 NOISE_PCT=1 SLEEP_MS=20 LOOPS=5 STRATEGIES="grid sequential"
#   env CTL_BIN=... AGENT_BIN=...   another build's binaries (an A/B against older code)
# Prints one RESULT line per strategy: rows, "significant", "no real difference", sweeps
# whose table has the drift line, and the time the sweeps took.
set -u
SWEEPS=${1:-10}
BUILD=${2:-${FT_BUILD_DIR:-$(cd "$(dirname "$0")/.." && pwd)/build}}
export FT_BUILD_DIR=$BUILD
source "$(dirname "$0")/../tests/integration/lib.sh"
source "$(dirname "$0")/fleet_lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/bench_lib.sh"
bench_ports 30000 # agents listen on named ports: FT_BENCH_PORT_BASE + N
DRIFT_PCT=${DRIFT_PCT:-0.5}
NOISE_PCT=${NOISE_PCT:-1}
SLEEP_MS=${SLEEP_MS:-20}
LOOPS=${LOOPS:-5}
STRATEGIES=${STRATEGIES:-grid sequential}
FAKEFIO=${FAKEFIO:-$BUILD/bench/fakefio}
for b in "$AGENT_BIN" "$CTL_BIN" "$FAKEFIO"; do
	[ -x "$b" ] || { echo "build first: $b" >&2; exit 1; }
done


export FAKEFIO_MODE=drift FAKEFIO_CTL=$IT_TMP/fakefio.ctl FAKEFIO_DRIFT_PCT=$DRIFT_PCT
export FAKEFIO_NOISE_PCT=$NOISE_PCT FAKEFIO_SLEEP_MS=$SLEEP_MS
for i in 1 2; do
	fleet_fake_device "$IT_TMP/root$i"
	export FAKEFIO_NODE=$i
	it_agent_start "n$i" --sysfs-root "$IT_TMP/root$i" --allow-device sdb --fio "$FAKEFIO" ||
		exit 1
done

plan() {
	cat >"$1" <<PLAN
{"name": "drift $2", "strategy": "$2",
 "nodes": [{"name": "node1", "url": "$n1_URL", "device": "sdb", "token_file": "n1-state/token"},
           {"name": "node2", "url": "$n2_URL", "device": "sdb", "token_file": "n2-state/token"}],
 "baseline": {"nr_requests": 128},
 "axes": [{"param": "nr_requests", "values": [64, 256, 512]}],
 "job": {"fio": {"rw": "write", "runtime_s": 1}, "loops": $LOOPS},
 "metric": "write.bw_mib", "goal": "maximize", "min_effect_pct": 5}
PLAN
}

fails=0
for strategy in $STRATEGIES; do
	plan "$IT_TMP/$strategy.plan" "$strategy"
	t0=$(date +%s.%N)
	for seed in $(seq "$SWEEPS"); do
		printf 'seed %d\ncounter %s\n' "$((seed * 7919 + ${#strategy}))" \
			"$IT_TMP/cnt.$strategy.$seed" >"$FAKEFIO_CTL"
		out=$IT_TMP/out.$strategy.$seed
		"$CTL_BIN" sweep "$IT_TMP/$strategy.plan" --format json --out "$out.json" \
			--db "$IT_TMP/drift.db" 2>"$out.err" </dev/null
		rc=$?
		if [ "$rc" != 0 ] && [ "$rc" != 1 ] || [ ! -s "$out.json" ]; then
			fails=$((fails + 1))
			echo "# $strategy seed $seed: exit $rc" >&2
			tail -3 "$out.err" >&2
			rm -f "$out.json"
			continue
		fi
		id=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["id"])' "$out.json")
		"$CTL_BIN" show "$id" --db "$IT_TMP/drift.db" >"$out.txt"
	done
	t1=$(date +%s.%N)
	python3 - "$IT_TMP" "$strategy" "$SWEEPS" "$t0" "$t1" <<'PY'
import glob, json, sys
tmp, strategy, sweeps, t0, t1 = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
rows = sig = eqv = lines = n = 0
for s in range(1, sweeps + 1):
    try:
        d = json.load(open(f"{tmp}/out.{strategy}.{s}.json"))
    except OSError:
        continue
    n += 1
    for p in d["points"]:
        if p["role"] == "baseline" or p["verdict"] is None:
            continue
        rows += 1
        sig += p["verdict"] in ("gain", "loss")
        eqv += p["verdict"] == "equivalent"
    lines += any(l.startswith("drift:") for l in open(f"{tmp}/out.{strategy}.{s}.txt"))
pct = lambda k, m: f"{100.0 * k / m:.1f} %" if m else "-"
print(f"RESULT agents {strategy}: {n} sweeps, {rows} rows; significant {sig}/{rows} ({pct(sig, rows)}); "
      f"no real difference {eqv}/{rows} ({pct(eqv, rows)}); drift line {lines}/{n} ({pct(lines, n)}); "
      f"{t1 - t0:.0f} s")
PY
done
[ "$fails" = 0 ]
