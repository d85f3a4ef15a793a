#!/bin/bash
# it_ctl_suite.sh -- a 3-workload suite on two real agents and loop devices with real fio (1 s
# passes): one job per node per point per round carries every workload (the agent's stonewalled
# sections), the table gives a table per workload, the matrix and the rule's best line; the
# document (format 5) carries each pass's workloads and the suite; `show --format json |
# analyze -` decides the same, and analyze --decide re-judges it under another rule; compare
# gives a section per workload and the site's index marks the suite.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/ctl_lib.sh"

ctl_two_nodes

cat >"$IT_TMP/suite.json" <<PLAN
{
  "name": "it suite",
  "nodes": [
    {"name": "node1", "url": "$node1_URL", "device": "$A_DEV", "token_file": "node1-state/token"},
    {"name": "node2", "url": "$node2_URL", "device": "$B_DEV", "token_file": "node2-state/token"}
  ],
  "baseline": {"scheduler": "mq-deadline", "nr_requests": 128},
  "axes": [{"param": "nr_requests", "values": [64]}],
  "strategy": "grid",
  "job": {"engine": "fio", "fio": {"ioengine": "psync", "direct": true, "size": "32m",
          "runtime_s": 1, "time_based": true, "rate_iops": 1024}, "loops": 2},
  "workloads": [
    {"name": "seq read", "fio": {"rw": "read", "bs": "64k"}},
    {"name": "rand read 4k", "fio": {"rw": "randread", "bs": "4k"}, "metric": "read.iops"},
    {"name": "seq write", "fio": {"rw": "write", "bs": "64k"}}
  ],
  "decide": {"rule": "no_loss"},
  "guardrails": [{"metric": "read.clat_p99_us", "workload": "rand read 4k", "max_loss_pct": 50}],
  "min_effect_pct": 5,
  "labels": {"test": "$IT_NAME"}
}
PLAN

ctl sweep "$IT_TMP/suite.json" --verbose --out "$IT_TMP/suite.txt" 2>"$IT_TMP/suite.err"
rc=$?
cat "$IT_TMP/suite.txt"
it_eq "the suite sweep exits 0" 0 "$rc"
for w in "workload 1 of 3: 'seq read' (read.bw_mib, higher is better)" \
	"workload 2 of 3: 'rand read 4k' (read.iops, higher is better)" \
	"workload 3 of 3: 'seq write' (write.bw_mib, higher is better)" \
	"matrix (3 workloads against the baseline; rule no_loss):" \
	"best (rule no_loss: a gain on some workload and a loss on none"; do
	it_check "the table says: $w" grep -qF "$w" "$IT_TMP/suite.txt"
done
it_check "the matrix has a row for nr_requests=64" bash -c "grep -A1 '^configuration  *seq read  *rand read 4k  *seq write  *mean  *decision\$' '$IT_TMP/suite.txt' | grep -q 'nr_requests=64'"
# One job per node per point per round (2 points x 2 rounds: jobs 1 to 4 on each agent), each
# job running the 3 workloads in one pass.
for n in node1 node2; do
	it_eq "$n ran 4 jobs, one per point per round" 4 "$(grep -c 'pass 1/1 done (3 workloads' "$IT_TMP/$n.log")"
done
ctl_restored "suite"

ctl show 1 --format json >"$IT_TMP/suite.doc.json"
python3 - "$IT_TMP/suite.doc.json" "$FT_SOURCE_DIR/schema/sweep.schema.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["format_version"] == 5, d["format_version"]
su = d["suite"]
assert [w["name"] for w in su["workloads"]] == ["seq read", "rand read 4k", "seq write"], su
assert su["rule"] == "no_loss" and su["correction"] == "holm", su["rule"]
assert len(su["matrix"]) == 1 and len(su["matrix"][0]["cells"]) == 3, su["matrix"]
row = su["matrix"][0]
assert row["configuration"].find("nr_requests=64") >= 0, row["configuration"]
assert len(row["guardrails"]) == 1 and row["guardrails"][0]["workload"] == "rand read 4k"
npasses = 0
for p in d["points"]:
    for nd in p["nodes"]:
        assert nd["state"] == "ok", nd
        assert len(nd["passes"]) == 2, nd["passes"]
        for ps in nd["passes"]:
            names = [w["name"] for w in ps["workloads"]]
            assert names == ["seq read", "rand read 4k", "seq write"], names
            m = {w["name"]: w["metrics"] for w in ps["workloads"]}
            assert m["seq read"]["read.bw_mib"] > 0 and m["rand read 4k"]["read.iops"] > 0
            assert m["rand read 4k"]["read.clat_p99_us"] > 0 and m["seq write"]["write.bw_mib"] > 0
            assert ps["value"] == m["seq read"]["read.bw_mib"], ps   # the lead workload's
            assert ps["round"] in (1, 2)
            npasses += 1
assert npasses == 8, npasses
print("# suite verdict %s, decision %s (%s)" % (row["verdict"], d["decision"]["state"], d["decision"]["why"]))
for c in row["cells"]:
    print("# %-14s %+.1f %% %s" % (c["workload"], c["delta_pct"], c["verdict"]))
try:
    import jsonschema
    jsonschema.Draft202012Validator(json.load(open(sys.argv[2]))).validate(d)
    print("# schema-valid")
except ImportError:
    pass
PY
it_eq "the document carries each pass's workloads and the suite" 0 $?

ctl show 1 >"$IT_TMP/show.txt"
"$CTL_BIN" analyze - <"$IT_TMP/suite.doc.json" >"$IT_TMP/analyze.txt"
it_eq "analyze - exits 0" 0 $?
it_eq "analyze re-judges the suite as show does" "$(cat "$IT_TMP/show.txt")" "$(cat "$IT_TMP/analyze.txt")"
"$CTL_BIN" analyze - --format json <"$IT_TMP/suite.doc.json" >"$IT_TMP/analyze.json"
it_eq "the same decision" "$(jq -c .decision "$IT_TMP/suite.doc.json")" "$(jq -c .decision "$IT_TMP/analyze.json")"

"$CTL_BIN" analyze - --decide "primary:rand read 4k" <"$IT_TMP/suite.doc.json" >"$IT_TMP/primary.txt"
it_eq "analyze --decide primary:NAME exits 0" 0 $?
it_check "the best line names the primary rule" grep -q "^best (rule primary: one workload decides, the others are shown and guarded, 'rand read 4k'): " "$IT_TMP/primary.txt"
"$CTL_BIN" analyze - --decide primary:nope <"$IT_TMP/suite.doc.json" 2>"$IT_TMP/bad.err" >/dev/null
it_eq "an unknown primary is a usage error" 64 $?
it_check "naming it" grep -q "primary needs one of the suite's workloads (primary:NAME), not 'nope'" "$IT_TMP/bad.err"

# compare on a suite: a section per workload (the sweep against itself: every row matches).
ctl compare 1 1 >"$IT_TMP/compare.txt"
it_eq "compare of a suite exits 0" 0 $?
it_check "compare says it compares each workload on its own" grep -qF 'compare suite sweep 1 "it suite" → sweep 1 "it suite": 3 workloads, each compared on its own' "$IT_TMP/compare.txt"
it_eq "a section per workload" 3 "$(grep -c '^workload [123] of 3: ' "$IT_TMP/compare.txt")"
it_check "the second is rand read 4k's, on its metric" bash -c "grep -A1 \"^workload 2 of 3: 'rand read 4k' (read.iops)\\\$\" '$IT_TMP/compare.txt' | grep -q 'metric read.iops'"

# The site's index marks the suite: its workload count and rule.
ctl site "$IT_TMP/site" --web-root "$FT_SOURCE_DIR/web" 2>"$IT_TMP/site.err"
it_eq "site exits 0" 0 $?
python3 - "$IT_TMP/site/index.html" <<'PY'
import json, re, sys
html = open(sys.argv[1]).read()
m = re.search(r'<script id="site-data" type="application/json">(.*?)</script>', html, re.S)
doc = json.loads(m.group(1))
mark = doc["sweeps"][0]["suite"]
assert mark == {"workloads": 3, "rule": "no_loss", "primary": None}, mark
PY
it_eq "the site's index marks the suite sweep (3 workloads, no_loss)" 0 $?
it_done
