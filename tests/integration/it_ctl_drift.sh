#!/bin/bash
# it_ctl_drift.sh -- a drifting machine: two real agents on loop devices whose --fio is
# bench/fakefio in drift mode (no setting matters; every run 1 % above the last). A grid sweep
# runs in interleaved rounds: its rows are "no real difference" and its table carries the
# drift line; the JSON's passes carry rounds and start times; show --format json | analyze -
# gives the same table; warm-up loops are run, stored, shown and not judged; compare of two
# runs says what run-to-run variation it cannot attribute; a format-2 document is judged as
# before and says so.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/ctl_lib.sh"

it_need_root_sysfs
it_need_built "$CTL_BIN"
FAKEFIO=$FT_BUILD_DIR/bench/fakefio
it_need_built "$FAKEFIO"
A_DEV=$(it_loop_create 64M) || it_skip "cannot create loop device"
B_DEV=$(it_loop_create 64M) || it_skip "cannot create loop device"
CTL_DB="$IT_TMP/ctl.db"
A_ORIG="$(it_sys "$A_DEV" scheduler) $(it_sys "$A_DEV" nr_requests)"
B_ORIG="$(it_sys "$B_DEV" scheduler) $(it_sys "$B_DEV" nr_requests)"
export FAKEFIO_MODE=drift FAKEFIO_CTL=$IT_TMP/fakefio.ctl FAKEFIO_DRIFT_PCT=1
export FAKEFIO_NOISE_PCT=0.5 FAKEFIO_SLEEP_MS=50
printf 'seed 17\ncounter %s\n' "$IT_TMP/runs" >"$FAKEFIO_CTL"
FAKEFIO_NODE=1 it_agent_start node1 --allow-device "$A_DEV" --fio "$FAKEFIO" || exit 1
FAKEFIO_NODE=2 it_agent_start node2 --allow-device "$B_DEV" --fio "$FAKEFIO" || exit 1

plan() {
	cat >"$1" <<PLAN
{"name": "drift", "strategy": "grid",
 "nodes": [{"name": "node1", "url": "$node1_URL", "device": "$A_DEV", "token_file": "node1-state/token"},
           {"name": "node2", "url": "$node2_URL", "device": "$B_DEV", "token_file": "node2-state/token"}],
 "baseline": {"nr_requests": 128},
 "axes": [{"param": "nr_requests", "values": [32, 64, 128]}],
 "job": {"fio": {"rw": "write", "runtime_s": 1}, "loops": 5$2},
 "metric": "write.bw_mib", "min_effect_pct": 5}
PLAN
}

# A grid in rounds: 3 points x 5 rounds, every pass 1 % above the one before.
plan "$IT_TMP/grid.json" ""
ctl sweep "$IT_TMP/grid.json" --out "$IT_TMP/grid.txt" 2>"$IT_TMP/grid.err"
it_eq "grid sweep exits 0" 0 $?
cat "$IT_TMP/grid.txt"
it_eq "both rows: no real difference" 2 "$(grep -c '| no real difference *|$' "$IT_TMP/grid.txt")"
it_check "no row significant" bash -c "! grep -q '| significant' '$IT_TMP/grid.txt'"
it_check "the drift line" grep -Eq "^drift: node1's figures rose [0-9.]+ % .*over the sweep.*; rows are judged within rounds, so it does not bias them$" "$IT_TMP/grid.txt"
it_check "it names node2 too" grep -q "node2's" "$IT_TMP/grid.txt"
ctl_restored "grid"

ctl show 1 --format json >"$IT_TMP/grid.doc.json"
python3 - "$IT_TMP/grid.doc.json" "$FT_SOURCE_DIR/schema/sweep.schema.json" <<'PY'
import json, sys, datetime
d = json.load(open(sys.argv[1]))
assert d["format_version"] == 5, d["format_version"]
assert d["rounds"] == 5, d["rounds"]
seen = set()
for p in d["points"]:
    for n in p["nodes"]:
        assert n["state"] == "ok", n
        rounds = [x["round"] for x in n["passes"]]
        assert rounds == [1, 2, 3, 4, 5], rounds
        for x in n["passes"]:
            assert x["value"] > 0
            datetime.datetime.strptime(x["started_at"], "%Y-%m-%dT%H:%M:%S.%fZ")
            seen.add((n["node"], x["started_at"]))
        assert n["warmup"] == []
# each pass of a node started at its own moment: one job per point per round
assert len(seen) == 2 * 3 * 5, len(seen)
# the points of a round ran one after the other, in an order that changes
first = {}
for p in d["points"]:
    for x in p["nodes"][0]["passes"]:
        first.setdefault(x["round"], []).append((x["started_at"], p["index"]))
orders = [tuple(i for _, i in sorted(v)) for _, v in sorted(first.items())]
assert all(sorted(o) == [0, 1, 2] for o in orders), orders
assert len(set(o[0] for o in orders)) > 1, "the same point ran first in every round: %s" % orders
assert orders[1] == tuple(reversed(orders[0])), "rounds 1 and 2 mirror each other: %s" % orders
dr = d["drift"]
assert dr["rounds"] is True and dr["text"], dr
assert all(n["significant"] for n in dr["nodes"]), dr["nodes"]
assert dr["nodes"][0]["change_pct"] > 5, dr["nodes"][0]
try:
    import jsonschema
    jsonschema.Draft202012Validator(json.load(open(sys.argv[2]))).validate(d)
    print("# schema-valid")
except ImportError:
    pass
PY
it_eq "the JSON's passes carry rounds and start times" 0 $?
ctl show 1 >"$IT_TMP/grid.show.txt"
"$CTL_BIN" analyze - <"$IT_TMP/grid.doc.json" >"$IT_TMP/grid.analyze.txt"
it_eq "analyze - exits 0" 0 $?
it_eq "show --format json | analyze - gives the same table" "$(cat "$IT_TMP/grid.show.txt")" "$(cat "$IT_TMP/grid.analyze.txt")"
it_eq "and the stored table is the live one" "$(cat "$IT_TMP/grid.txt")" "$(cat "$IT_TMP/grid.show.txt")"

# The same passes without their rounds (a format-2 document): judged as before, and it says so.
python3 - "$IT_TMP/grid.doc.json" >"$IT_TMP/grid.v2.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["format_version"] = 2
for p in d["points"]:
    for n in p["nodes"]:
        n["passes"] = [x["value"] for x in n["passes"]]
        del n["warmup"]
print(json.dumps(d))
PY
"$CTL_BIN" analyze "$IT_TMP/grid.v2.json" >"$IT_TMP/grid.v2.txt"
it_eq "analyze of a format-2 document exits 0" 0 $?
cat "$IT_TMP/grid.v2.txt"
it_check "it says the rows are judged as independent samples" grep -q '^rounds: none recorded.*independent samples' "$IT_TMP/grid.v2.txt"

# Warm-up: the first run of every node is 30 % low; one warm-up loop per point takes it.
printf 'seed 18\ncounter %s\nwarmup_runs 1\nwarmup_pct 30\n' "$IT_TMP/runs2" >"$FAKEFIO_CTL"
plan "$IT_TMP/warm.json" ', "warmup_loops": 1'
ctl sweep "$IT_TMP/warm.json" --out "$IT_TMP/warm.txt" --format json 2>"$IT_TMP/warm.err"
it_eq "warm-up sweep exits 0" 0 $?
python3 - "$IT_TMP/warm.txt" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for p in d["points"]:
    for n in p["nodes"]:
        assert len(n["warmup"]) == 1 and n["warmup"][0]["round"] == 1, n["warmup"]
        assert [x["round"] for x in n["passes"]] == [2, 3, 4, 5, 6], n["passes"]
# the 30 % low run is a warm-up pass, not a judged one
low = [x["value"] for p in d["points"] for n in p["nodes"] for x in n["passes"]]
warm = [n["warmup"][0]["value"] for p in d["points"] for n in p["nodes"]]
assert min(warm) < 0.8 * min(low), (warm, low)
assert all(p["verdict"] == "equivalent" for p in d["points"] if p["role"] != "baseline"), \
    [p["verdict"] for p in d["points"]]
assert d["drift"]["warmup_text"], d["drift"]
PY
it_eq "warm-up loops run and stored, not judged" 0 $?
ctl show 2 >"$IT_TMP/warm.show.txt"
cat "$IT_TMP/warm.show.txt"
it_check "the table shows the warm-up loops" grep -q '^warm-up: 1 loop per point ran first and is not judged' "$IT_TMP/warm.show.txt"

# compare of two runs of the same plan: nothing changed but time, and the drift went on (the
# second run's figures are about 16 % above the first's).
printf 'seed 19\ncounter %s\n' "$IT_TMP/runs" >"$FAKEFIO_CTL"
ctl sweep "$IT_TMP/grid.json" >/dev/null 2>&1
it_eq "second grid sweep exits 0" 0 $?
ctl compare 1 3 >"$IT_TMP/compare.txt"
it_eq "compare exits 0" 0 $?
cat "$IT_TMP/compare.txt"
it_check "compare says what run-to-run variation it cannot attribute" grep -Eq '^run-to-run: .*differences under [0-9.]+ % between these runs are within run-to-run variation' "$IT_TMP/compare.txt"
it_check "no compare row significant" bash -c "! grep -q '| significant' '$IT_TMP/compare.txt'"
ctl_restored "after every sweep"
it_done
