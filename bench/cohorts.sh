#!/bin/bash
# cohorts.sh -- issue 19's table: real agents on temp --sysfs-root trees whose disks carry a
# model, a firmware revision and a vendor, bench/fakefio answering with a per-cohort effect
# ("if device/model M param nr_requests V FACTOR" lines), seeded, every sweep through
# `fleettune-ctl sweep`; then 1 024 such agents in 8 cohorts for the controller's pre-flight and
# analysis time and peak RSS.
#
# usage: bench/cohorts.sh [SEEDS] [BUILD_DIR]
#   SEEDS   sweeps per scenario (default 20)
#   env NODES=40 (30 of model ST300MM0008, the rest MZ7LH480; firmware 2.1 on all)
#   env BIG_NODES=1024 (8 models of 128 nodes; 0 skips it)  BIG_LOOPS=3
#   env SCENARIOS="split same named"  SLEEP_MS=1 (a fake pass's wall time)
#
# Scenarios (CV 2 %, 5 loops, min_effect 5 %, node offsets of 2 % SD; grid over nr_requests
# 128 (baseline), 64, 256):
#   split  nr_requests 256: +10 % on ST300MM0008, -10 % on MZ7LH480; 64 the other way round.
#          "verdicts": both rows split by cohort with each cohort's own verdict right (256: gain
#          and loss, 64: loss and gain); "best": each cohort's best is its own best value
#          (ST300MM0008 256, MZ7LH480 64).
#   same   +10 % at 256 on both models (64: -10 % on both): no row split (one fleet effect).
#   named  cohort_by ["firmware"] (one cohort): +10 % at 256 except nodes 7 and 23 (vendor ATB)
#          at -10 %: the 256 row names exactly those two.
# Deterministic apart from the machine's speed: the same SEEDS give the same verdicts.
set -u
SEEDS=${1:-20}
BUILD=${2:-${FT_BUILD_DIR:-$(cd "$(dirname "$0")/.." && pwd)/build}}
BUILD=$(cd "$BUILD" && pwd)
export FT_BUILD_DIR=$BUILD
source "$(dirname "$0")/../tests/integration/lib.sh"
source "$(dirname "$0")/fleet_lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/bench_lib.sh"
bench_ports 23000 # agents listen on named ports: FT_BENCH_PORT_BASE + N
NODES=${NODES:-40}
BIG_NODES=${BIG_NODES:-1024}
BIG_LOOPS=${BIG_LOOPS:-3}
SCENARIOS=${SCENARIOS:-split same named}
SLEEP_MS=${SLEEP_MS:-1}
FAKE=$BUILD/bench/fakefio
for b in "$AGENT_BIN" "$CTL_BIN" "$FAKE"; do
	[ -x "$b" ] || { echo "build first: $b" >&2; exit 1; }
done
export FAKEFIO_CTL=$IT_TMP/fakefio.ctl
t_start=$(date +%s)

# identity I MODEL FW VENDOR: agent I's disk is a SCSI disk of that model (the files the
# agent's identity reads), beside fleet_lib's queue files.
identity() {
	local d=$IT_TMP/root$1/sys/block/sdb/device
	mkdir -p "$d" "$IT_TMP/root$1/sys/bus/scsi"
	printf '%-8s\n' "$4" >"$d/vendor"
	printf '%-16s\n' "$2" >"$d/model"
	printf '%-4s\n' "$3" >"$d/rev"
	ln -sfn ../../../bus/scsi "$d/subsystem"
}

agent_env() {
	echo "FAKEFIO_SYSFS=$IT_TMP/root$1 FAKEFIO_NODE=$1"
}
FLEET_ENV_FN=agent_env

# plan FILE N COHORT_BY LOOPS
plan() {
	cat >"$1" <<PLAN
{"name": "cohorts", "nodes": $(fleet_nodes_json "$2"),
 "baseline": {"nr_requests": 128},
 "axes": [{"param": "nr_requests", "values": [64, 256]}],
 "strategy": "grid", "cohort_by": $3,
 "job": {"fio": {"rw": "write", "runtime_s": 1}, "loops": $4},
 "metric": "write.bw_mib", "min_effect_pct": 5}
PLAN
}

# spec SCENARIO: the surface of a scenario.
spec() {
	printf 'base 1000\ncv 0.02\nnode_sd 0.02\n'
	case $1 in
	split)
		echo "if device/model ST300MM0008 param nr_requests 256 1.10"
		echo "if device/model MZ7LH480 param nr_requests 256 0.90"
		echo "if device/model ST300MM0008 param nr_requests 64 0.90"
		echo "if device/model MZ7LH480 param nr_requests 64 1.10" ;;
	same)
		echo "param nr_requests 256 1.10"
		echo "param nr_requests 64 0.90" ;;
	named)
		echo "if device/vendor ATA param nr_requests 256 1.10"
		echo "if device/vendor ATB param nr_requests 256 0.90" ;;
	esac
}

echo "# $NODES agents on 127.0.0.1 (--sysfs-root trees, --fio $FAKE); $SEEDS seeds per scenario"
fleet_start "$NODES" --fio "$FAKE" || exit 1
for i in $(seq "$NODES"); do
	model=ST300MM0008
	[ "$i" -gt $((NODES * 3 / 4)) ] && model=MZ7LH480
	vendor=ATA
	[ "$i" = 7 ] || [ "$i" = 23 ] && vendor=ATB
	identity "$i" "$model" 2.1 "$vendor"
done
plan "$IT_TMP/plan-model.json" "$NODES" '["model", "firmware"]' 5
plan "$IT_TMP/plan-firmware.json" "$NODES" '["firmware"]' 5

fails=0
for sc in $SCENARIOS; do
	spec "$sc" >"$IT_TMP/$sc.spec"
	p=$IT_TMP/plan-model.json
	[ "$sc" = named ] && p=$IT_TMP/plan-firmware.json
	for seed in $(seq "$SEEDS"); do
		printf 'spec %s\nseed %d\ncounter %s\nsleep_ms %d\n' "$IT_TMP/$sc.spec" \
			"$((seed * 7919 + ${#sc}))" "$IT_TMP/cnt.$sc.$seed" "$SLEEP_MS" >"$FAKEFIO_CTL"
		"$CTL_BIN" sweep "$p" --format json --out "$IT_TMP/out.$sc.$seed.json" \
			--db "$IT_TMP/cohorts.db" 2>"$IT_TMP/err.$sc.$seed" </dev/null
		rc=$?
		if [ "$rc" != 0 ]; then
			echo "# $sc seed $seed: sweep exited $rc" >&2
			tail -3 "$IT_TMP/err.$sc.$seed" >&2
			fails=$((fails + 1))
		fi
	done
done

python3 - "$IT_TMP" "$SEEDS" "$SCENARIOS" <<'PY'
import json, os, sys
tmp, seeds, scenarios = sys.argv[1], int(sys.argv[2]), sys.argv[3].split()
def docs(sc):
    for s in range(1, seeds + 1):
        f = "%s/out.%s.%d.json" % (tmp, sc, s)
        if os.path.exists(f) and os.path.getsize(f):
            yield json.load(open(f))
def row(d, nr):
    return next(p for p in d["points"] if p["params"] == {"nr_requests": nr})
def cohort_index(d, model):
    return next(i for i, c in enumerate(d["cohorts"]) if c["values"].get("model") == model)
rows = []
def pct(k, n):
    return 100.0 * k / n if n else 0.0
if "split" in scenarios:
    ds = list(docs("split"))
    ok_v = ok_b = 0
    for d in ds:
        a, b = cohort_index(d, "ST300MM0008"), cohort_index(d, "MZ7LH480")
        r256, r64 = row(d, 256), row(d, 64)
        def verdicts(r):
            return [c["verdict"] for c in sorted(r["cohorts"], key=lambda c: c["cohort"])]
        v256, v64 = verdicts(r256), verdicts(r64)
        ok_v += (r256["between"] or {}).get("split") is True and \
            (r64["between"] or {}).get("split") is True and \
            v256[a] == "gain" and v256[b] == "loss" and v64[a] == "loss" and v64[b] == "gain"
        ba, bb = d["cohorts"][a]["best"], d["cohorts"][b]["best"]
        ok_b += bool(ba and bb and ba["params"] == {"nr_requests": 256} and
                     bb["params"] == {"nr_requests": 64})
    rows.append(("%d nodes in 2 cohorts (%d + %d), +10 %% and -10 %%: each cohort's verdict right"
                 % (len(ds[0]["nodes"]) if ds else 0, len(ds[0]["cohorts"][0]["nodes"]) if ds else 0,
                    len(ds[0]["cohorts"][1]["nodes"]) if ds else 0), pct(ok_v, len(ds)), len(ds), ">= 95 %"))
    rows.append(("same: best per cohort is that cohort's best value", pct(ok_b, len(ds)), len(ds), ">= 95 %"))
if "same" in scenarios:
    ds = list(docs("same"))
    ok = sum(all(not (p.get("between") or {}).get("split") for p in d["points"]) and
             row(d, 256)["verdict"] == "gain" for d in ds)
    rows.append(("%d nodes in 2 cohorts, same +10 %% on both: one fleet effect (no cohort split)"
                 % (len(ds[0]["nodes"]) if ds else 0), pct(ok, len(ds)), len(ds), ">= 95 %"))
if "named" in scenarios:
    ds = list(docs("named"))
    ok = 0
    for d in ds:
        r = row(d, 256)
        ok += len(d["cohorts"]) == 1 and r["verdict"] == "heterogeneous" and \
            sorted(x["node"] for x in r["disagree"]) == ["a23", "a7"]
    rows.append(("%d nodes, 1 cohort, 2 nodes at -10 %%: those 2 named within the cohort"
                 % (len(ds[0]["nodes"]) if ds else 0), pct(ok, len(ds)), len(ds), ">= 95 %"))
print("| scenario (CV 2 %, 5 loops) | measured | sweeps | target |")
print("|---|---|---|---|")
for name, v, n, t in rows:
    print("| %s | %.1f %% | %d | %s |" % (name, v, n, t))
    print("RESULT %s: %.1f %% of %d sweeps (target %s)" % (name, v, n, t))
PY
fleet_stop
echo "# $((NODES)) node scenarios: $(($(date +%s) - t_start)) s, $fails failed sweeps"

[ "$BIG_NODES" -gt 0 ] || exit 0
# ---- 1 024 nodes in 8 cohorts: pre-flight, sweep and analysis, the controller's time and RSS.
echo "# starting $BIG_NODES agents in 8 cohorts"
t0=$(date +%s)
fleet_start "$BIG_NODES" --fio "$FAKE" || exit 1
echo "# $BIG_NODES agents up in $(($(date +%s) - t0)) s ($(uptime | sed 's/.*load/load/'))"
for i in $(seq "$BIG_NODES"); do
	identity "$i" "MODEL$(((i - 1) % 8))" 2.1 ATA
done
plan "$IT_TMP/plan-big.json" "$BIG_NODES" '["model", "firmware"]' "$BIG_LOOPS"
{
	printf 'base 1000\ncv 0.02\nnode_sd 0.02\n'
	for m in 0 1 2 3; do echo "if device/model MODEL$m param nr_requests 256 1.10"; done
	for m in 4 5 6 7; do echo "if device/model MODEL$m param nr_requests 256 0.90"; done
} >"$IT_TMP/big.spec"
printf 'spec %s\nseed 1\ncounter %s\nsleep_ms %d\n' "$IT_TMP/big.spec" "$IT_TMP/cnt.big" \
	"$SLEEP_MS" >"$FAKEFIO_CTL"
# timed WHAT CMD...: the command's wall time (s) and peak RSS (KiB) into time.WHAT.
timed() {
	local what=$1 rc
	shift
	/usr/bin/time -f "%e %M" -o "$IT_TMP/time.$what" "$@" >"$IT_TMP/out.$what" 2>"$IT_TMP/err.$what"
	rc=$?
	echo "# $what: exit $rc, wall and peak RSS (KiB): $(cat "$IT_TMP/time.$what")"
}
timed nodes "$CTL_BIN" nodes "$IT_TMP/plan-big.json"
grep -A9 '^cohorts by' "$IT_TMP/out.nodes"
t_sweep=$(date +%s.%N)
timed sweep "$CTL_BIN" sweep "$IT_TMP/plan-big.json" --db "$IT_TMP/big.db"
# The sweep's own pre-flight: from its start to the log line that prints the cohorts (written
# once pre-flight has passed and the identities are read).
preflight_s=$(python3 - "$IT_TMP/err.sweep" "$t_sweep" <<'PY'
import datetime, re, sys
for line in open(sys.argv[1]):
    m = re.match(r"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+)Z .*cohorts by", line)
    if m:
        t = datetime.datetime.strptime(m.group(1), "%Y-%m-%dT%H:%M:%S.%f")
        t = t.replace(tzinfo=datetime.timezone.utc).timestamp()
        print("%.2f" % (t - float(sys.argv[2])))
        break
else:
    print("?")
PY
)
echo "RESULT $BIG_NODES nodes in 8 cohorts: the sweep's pre-flight (start to cohorts printed) $preflight_s s"
grep -E 'cohorts by|^  MODEL|pre-flight' "$IT_TMP/err.sweep" | head -12
tail -20 "$IT_TMP/out.sweep"
"$CTL_BIN" show 1 --format json --db "$IT_TMP/big.db" >"$IT_TMP/big.json"
timed analyze_table "$CTL_BIN" analyze "$IT_TMP/big.json"
timed analyze_json "$CTL_BIN" analyze "$IT_TMP/big.json" --format json
timed analyze_model "$CTL_BIN" analyze "$IT_TMP/big.json" --cohort-by model
for w in nodes sweep analyze_table analyze_json analyze_model; do
	read -r wall rss <"$IT_TMP/time.$w"
	echo "RESULT $BIG_NODES nodes in 8 cohorts: $w wall $wall s, peak RSS $((rss / 1024)) MiB"
done
fleet_stop
echo "# done in $(($(date +%s) - t_start)) s; $(uptime | sed 's/.*load/load/')"
