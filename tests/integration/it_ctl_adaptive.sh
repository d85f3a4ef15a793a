#!/bin/bash
# it_ctl_adaptive.sh -- an adaptive sweep on two real agents and loop devices with real fio:
# the dry run's worst case and expected duration, a budget too small refused before anything
# changes, the races (every raced point decided, its passes kept), the final confirmation at
# job.loops.max, the race decisions in the table, the JSON and `show`, and the devices restored.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/ctl_lib.sh"

ctl_two_nodes

loops='{"min": 2, "max": 4}'
ctl_plan "$IT_TMP/ad.json" adaptive "$loops" 1

# --dry-run: 2 racers on each axis, worst case 2 x 4 + 2 x 4 + 2 x 4 = 24 loops per node (the
# final confirmation runs beside the original baseline measured again).
out=$(ctl sweep "$IT_TMP/ad.json" --dry-run)
echo "$out"
it_check "dry-run names the strategy" grep -q 'adaptive strategy' <<<"$out"
it_check "dry-run: worst case and expected duration" \
	grep -Eq '^loops per node: worst case 24 x 1 s = 24 s, expected about [0-9]+ x 1 s = [0-9]+ s' <<<"$out"
it_check "dry-run: looks and alpha" grep -q 'raced from 2 to 4 loops (3 looks, each at alpha 5 %/3)' <<<"$out"
it_check "dry-run stored nothing" test ! -e "$CTL_DB"

# A budget below the first round and the final confirmation is refused before anything runs.
python3 - "$IT_TMP/ad.json" "$IT_TMP/tight.json" 7 <<'PY'
import json, sys
p = json.load(open(sys.argv[1])); p["budget_s"] = float(sys.argv[3])
json.dump(p, open(sys.argv[2], "w"))
PY
ctl sweep "$IT_TMP/tight.json" >"$IT_TMP/tight.out" 2>"$IT_TMP/tight.err"
it_eq "too small a budget exits 1" 1 $?
it_check "and says how much the plan needs" \
	grep -q 'budget_s: 7 s is less than the least this plan spends.*12 s' "$IT_TMP/tight.err"
it_check "and stored nothing" test ! -e "$CTL_DB"
ctl_restored "budget refused"

ctl sweep "$IT_TMP/ad.json" --out "$IT_TMP/ad.txt" 2>"$IT_TMP/ad.err"
rc=$?
cat "$IT_TMP/ad.txt"
tail -5 "$IT_TMP/ad.err"
it_check "adaptive sweep exits 0" test "$rc" = 0
it_check "table header names the strategy" grep -q '^sweep 1 "it adaptive" .* adaptive' "$IT_TMP/ad.txt"
it_check "the table lists the race decisions" grep -q '^race (adaptive):' "$IT_TMP/ad.txt"
it_check "each axis kept by one value (won, or tentative: not shown better)" \
	test "$(grep -Ec ': (won|tentative) after [0-9]* loops \(round [0-9]*\)' "$IT_TMP/ad.txt")" = 2
it_check "start line gives worst case and expected loops" \
	grep -q 'adaptive, 2 to 4 loops; loops per node: worst case 24, expected about' "$IT_TMP/ad.err"
ctl_restored "adaptive"

ctl show 1 --format json >"$IT_TMP/ad.json.out"
python3 - "$IT_TMP/ad.json.out" "$FT_SOURCE_DIR/schema/sweep.schema.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["status"] == "completed", d["status"]
assert d["strategy"] == "adaptive"
pts = d["points"]
raced = [p for p in pts if p["axis"] is not None]
finals = [p for p in pts if p["role"] == "final"]
again = [p for p in pts if p["axis"] is None and p["role"] == "baseline"]
assert {p["axis"] for p in raced} == {0, 1}, raced
for ax in (0, 1):
    ps = [p for p in raced if p["axis"] == ax]
    assert len(ps) == 2, ps
    assert sum(p["race"]["state"] in ("won", "tentative") for p in ps) == 1, [p["race"] for p in ps]
for p in raced:
    r = p["race"]
    assert r is not None and r["state"] in ("dropped", "won", "tied", "open", "tentative"), r
    assert 2 <= p["loops"] <= 4, p
    assert r["loops"] == p["loops"], (r, p["loops"])
    assert r["round"] == p["loops"] - 1, r
    for n in p["nodes"]:
        assert n["state"] == "ok", n
        # a dropped value keeps every pass it ran
        assert len(n["passes"]) == p["loops"] and all(v["value"] > 0 for v in n["passes"]), n
    if r["state"] == "dropped":
        assert r["why"] in ("worse", "equivalent"), r
        assert r["vs"] is not None and r["low_pct"] <= r["delta_pct"] <= r["high_pct"], r
    if r["state"] == "tentative":
        # carried forward without a shown gain over the axis' baseline point
        assert r["why"] in ("cap", "budget", "not_better") and r["vs"] is not None, r
        assert not (r["low_pct"] > 0 and r["delta_pct"] >= 5), r
# the axis-2 baseline holds the value axis 1 kept (won or tentative)
won1 = [p for p in raced if p["axis"] == 0 and p["race"]["state"] in ("won", "tentative")][0]
b2 = [p for p in raced if p["axis"] == 1 and p["role"] == "baseline"][0]
assert b2["params"]["scheduler"] == won1["params"]["scheduler"], (b2, won1)
# the final confirmation, when the races changed something, runs against the original
# baseline measured again beside it, in the same rounds, taking looks as the races do: from
# loops.min (2) a round at a time while undecided, up to loops.max (4)
assert len(finals) <= 1 and len(again) == len(finals), (finals, again)
if any(p["race"]["state"] == "tentative" for p in raced):
    assert finals, "a tentative value is confirmed against the original baseline"
for f in finals:
    a = again[0]
    assert f["race"] is None and 2 <= f["loops"] <= 4 and f["ref"] == a["index"], f
    assert a["params"] == pts[0]["params"] and a["ref"] == 0 and a["loops"] == f["loops"], a
    assert [x["round"] for x in f["nodes"][0]["passes"]] == [x["round"] for x in a["nodes"][0]["passes"]]
if d["best"] is not None:
    assert finals and d["best"]["params"] == finals[0]["params"], d["best"]
try:
    import jsonschema
    jsonschema.Draft202012Validator(json.load(open(sys.argv[2]))).validate(d)
    print("# schema-valid")
except ImportError:
    pass
PY
it_eq "show --format json has the races" 0 $?
ctl show 1 >"$IT_TMP/show.txt"
it_eq "show re-renders the race decisions from the store" \
	"$(sed -n '/^race (adaptive):/,/^$/p' "$IT_TMP/ad.txt")" \
	"$(sed -n '/^race (adaptive):/,/^$/p' "$IT_TMP/show.txt")"

it_done
