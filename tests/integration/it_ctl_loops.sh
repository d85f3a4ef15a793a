#!/bin/bash
# it_ctl_loops.sh -- adaptive loops (job.loops {min, max}) on two real agents and loop
# devices with real fio: dry run and header show min and max, every compared point runs the
# minimum, then one more loop at a time with its reference until effect.c decides it or the
# maximum; the JSON's stopping figures agree, and analyze re-judges the stored sweep the same.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/ctl_lib.sh"

ctl_two_nodes

# nr_requests 127 against 128 changes nothing measurable: rarely decided at the first look of
# 2 loops, so it takes more looks; 32 may be decided sooner.
ctl_plan "$IT_TMP/adaptive.json" grid '{"min": 2, "max": 5}' 1 \
	'[{"param":"nr_requests","values":[127,32]}]'

out=$(ctl sweep "$IT_TMP/adaptive.json" --dry-run)
it_check "dry-run gives min and max loops" grep -q "2–5 loops per point (adaptive" <<<"$out"
it_check "dry-run gives min and max durations" grep -Eq "= about [0-9]+–[0-9]+ s of benchmarking" <<<"$out"
ctl_restored "dry-run"

ctl sweep "$IT_TMP/adaptive.json" --verbose --out "$IT_TMP/adaptive.txt" 2>"$IT_TMP/adaptive.err"
it_eq "adaptive sweep exits 0" 0 $?
cat "$IT_TMP/adaptive.txt"
it_check "header gives min-max loops" grep -q '2–5 loops × 1 s' "$IT_TMP/adaptive.txt"
it_check "table has a loops column" grep -q '^| nr_requests | scheduler *| node1 (MiB/s) *| node2 (MiB/s) *| spread *| loops |' "$IT_TMP/adaptive.txt"
ctl_restored "adaptive"

ctl show 1 --format json >"$IT_TMP/adaptive.json.out"
python3 - "$IT_TMP/adaptive.json.out" "$FT_SOURCE_DIR/schema/sweep.schema.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["format_version"] == 5 and d["loops"] == 2 and d["loops_max"] == 5, d["loops_max"]
pts = d["points"]
base = pts[0]
assert base["role"] == "baseline" and 2 <= base["loops"] <= 5, base["loops"]
more = 0
for p in pts[1:]:
    n, st = p["loops"], p["stopping"]
    assert 2 <= n <= 5, n
    assert st["looks"] == 4 and st["look"] == n - 1, (n, st)
    assert p["fleet"]["alpha"] == 0.05 / 4, p["fleet"]
    # every look compares the point's loops with the reference's of the same rounds (ref_n ==
    # n below); the reference's loop of the point's last round may run after it in that
    # round, so when the point last ran the reference had n - 1 or more
    assert p["ref_loops"] >= n - 1, (p["ref_loops"], n)
    assert base["loops"] >= n
    for nd in p["nodes"]:
        # judged within rounds: the reference's passes of the rounds the point ran
        assert len(nd["passes"]) == n and nd["blocked"] and nd["ref_n"] == n, nd
    decided = p["verdict"] in ("gain", "loss", "equivalent")
    # the loops stopped at the first decided look, or at the maximum
    assert st["stop"], st
    assert decided or n == 5, (p["verdict"], n)
    more += n > 2
    print("# nr_requests=%s: %d loops, %s, Δ %+.1f %%" % (p["params"]["nr_requests"], n,
          p["verdict"], p["delta_pct"]))
assert base["loops"] == max(p["loops"] for p in pts[1:])
assert more > 0 or all(p["verdict"] in ("gain", "loss", "equivalent") for p in pts[1:])
try:
    import jsonschema
    jsonschema.Draft202012Validator(json.load(open(sys.argv[2]))).validate(d)
    print("# schema-valid")
except ImportError:
    pass
PY
it_eq "the loops stopped where effect.c decided, or at the maximum" 0 $?

# Every extra round reports its pass: the third of the baseline, when a third loop ran.
nmax=$(jq '[.points[].loops] | max' "$IT_TMP/adaptive.json.out")
if [ "$nmax" -gt 2 ]; then
	it_check "progress line of the baseline's third loop" grep -q "^point 1/3 scheduler=mq-deadline nr_requests=128: node1 pass 3/3 (round 3) write.bw_mib" "$IT_TMP/adaptive.err"
fi

ctl show 1 >"$IT_TMP/show.txt"
"$CTL_BIN" analyze - <"$IT_TMP/adaptive.json.out" >"$IT_TMP/analyze.txt"
it_eq "analyze - exits 0" 0 $?
it_eq "analyze re-judges the adaptive sweep as show does" "$(cat "$IT_TMP/show.txt")" "$(cat "$IT_TMP/analyze.txt")"
it_done
