#!/bin/bash
# it_ctl_sweep.sh -- grid and sequential sweeps on two real agents and loop devices with real
# fio; the table, JSON, history, show (agents stopped), compare, export, report and apply.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/ctl_lib.sh"

ctl_two_nodes

# --dry-run lists the points and changes nothing.
ctl_plan "$IT_TMP/grid.json" grid 2 1
out=$(ctl sweep "$IT_TMP/grid.json" --dry-run)
it_check "dry-run lists 4 grid points" grep -q "point 4:" <<<"$out"
it_check "dry-run says nothing changed" grep -q "nothing was changed" <<<"$out"
ctl_restored "dry-run"
it_check "dry-run stored nothing" test ! -e "$CTL_DB"

# Grid: baseline + 3 combinations, 2 loops of 1 s each.
ctl sweep "$IT_TMP/grid.json" --out "$IT_TMP/grid.txt" 2>"$IT_TMP/grid.err"
it_eq "grid sweep exits 0" 0 $?
cat "$IT_TMP/grid.txt"
it_check "table header" grep -q '^sweep 1 "it grid"  metric write.bw_mib (maximize)  2 loops × 1 s  2 nodes  grid' "$IT_TMP/grid.txt"
it_check "table columns" grep -q '^| scheduler   | nr_requests | node1 (MiB/s) *| node2 (MiB/s) *| spread *| Δ vs baseline *| verdict *|$' "$IT_TMP/grid.txt"
it_eq "table has 4 point rows" 4 "$(grep -c '^| \(mq-deadline\|none\) ' "$IT_TMP/grid.txt")"
it_check "baseline row" grep -q '^| mq-deadline | 128 .*| baseline ' "$IT_TMP/grid.txt"
it_check "rows carry a verdict" grep -Eq '\| (significant gain|significant loss|no real difference|inconclusive|nodes disagree)[^|]*\|$' "$IT_TMP/grid.txt"
it_check "best line" grep -q '^best: ' "$IT_TMP/grid.txt"
it_check "off a TTY, plain progress lines with an ETA, not one per pass" bash -c "grep -q '^point [0-9]/4 \[.*\] loop [0-9]/2.*  ETA ' '$IT_TMP/grid.err' && ! grep -q ' pass [0-9]/2 (round' '$IT_TMP/grid.err'"
ctl_restored "grid"

ctl show 1 --format json >"$IT_TMP/grid.json.out"
python3 - "$IT_TMP/grid.json.out" "$FT_SOURCE_DIR/schema/sweep.schema.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["status"] == "completed", d["status"]
assert len(d["points"]) == 4
for p in d["points"]:
    for n in p["nodes"]:
        assert n["state"] == "ok", n
        assert len(n["passes"]) == 2 and all(v["value"] > 0 for v in n["passes"]), n
        assert [v["round"] for v in n["passes"]] == [1, 2], n
        assert n["job_id"] > 0
        assert set(n["applied"]) == set(p["params"]), n["applied"]
        if p["role"] != "baseline":
            assert n["verdict"] in ("gain", "loss", "equivalent", "inconclusive"), n
    if p["role"] != "baseline":
        assert p["delta_pct"] is not None and p["ref"] == 0
assert d["points"][0]["role"] == "baseline" and d["points"][0]["verdict"] is None
assert d["plan"]["nodes"][0]["token_file"] == "node1-state/token"
try:
    import jsonschema
    jsonschema.Draft202012Validator(json.load(open(sys.argv[2]))).validate(d)
    print("# schema-valid")
except ImportError:
    pass
PY
it_eq "show --format json is right" 0 $?

# analyze: the stored sweep's document judged again from its passes gives the same table,
# and the same JSON; --min-effect overrides the plan's.
ctl show 1 >"$IT_TMP/grid.show.txt"
"$CTL_BIN" analyze - <"$IT_TMP/grid.json.out" >"$IT_TMP/grid.analyze.txt"
it_eq "analyze - exits 0" 0 $?
it_eq "show --format json | analyze - gives show's table" "$(cat "$IT_TMP/grid.show.txt")" "$(cat "$IT_TMP/grid.analyze.txt")"
"$CTL_BIN" analyze "$IT_TMP/grid.json.out" --format json >"$IT_TMP/grid.analyze.json"
it_eq "analyze FILE --format json gives show's JSON" "$(cat "$IT_TMP/grid.json.out")" "$(cat "$IT_TMP/grid.analyze.json")"
"$CTL_BIN" analyze "$IT_TMP/grid.json.out" --min-effect 50 --format json >"$IT_TMP/grid.me50.json"
it_eq "analyze --min-effect overrides the plan's" 50 "$(jq '.min_effect_pct' "$IT_TMP/grid.me50.json")"
jq '.points[1].nodes[0].passes[0] = "fast"' "$IT_TMP/grid.json.out" >"$IT_TMP/bad.json"
"$CTL_BIN" analyze "$IT_TMP/bad.json" >/dev/null 2>"$IT_TMP/bad.err"
it_eq "analyze of a bad document fails" 1 $?
it_check "and names the JSON path" grep -q 'points\[1\].nodes\[0\].passes\[0\]' "$IT_TMP/bad.err"

# The agents ran the jobs with the plan's labels plus the sweep id.
job=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["points"][1]["nodes"][0]["job_id"])' "$IT_TMP/grid.json.out")
it_http GET "$node1_URL/api/v1/jobs/$job" "$node1_TOKEN"
it_check "agent job carries sweep labels" grep -q '"sweep": *"1"' <<<"$(python3 -m json.tool <<<"$HTTP_BODY")"
# One request per node per run: the point's values travel in the job (its spec's params), the
# agent records what it applied (the job's "applied", the sweep's read-back), and the sweep sent
# no PATCH: every write in the device's audit log came from a job or the session's restore.
want=$(jq -cS '.points[1].params | to_entries | map({(.key): .value}) | add' "$IT_TMP/grid.json.out")
it_eq "the job carries the point's params" "$want" "$(jq -cS '.spec.params' <<<"$HTTP_BODY")"
it_eq "the job records what they did" "$want" \
	"$(jq -cS '.applied | to_entries | map({(.key): .value.value}) | add' <<<"$HTTP_BODY")"
it_http GET "$node1_URL/api/v1/changes?device=$A_DEV&limit=1000" "$node1_TOKEN"
it_eq "no PATCH came from the sweep" 0 \
	"$(jq '[.changes[] | select(.origin | test("PATCH"))] | length' <<<"$HTTP_BODY")"
it_check "the jobs wrote the points' values" test \
	"$(jq '[.changes[] | select(.origin | startswith("job "))] | length' <<<"$HTTP_BODY")" -gt 0

# Sequential: per axis a fresh baseline and its values.
ctl_plan "$IT_TMP/seq.json" sequential 2 1
# A 3 s session TTL is shorter than the sweep: the sessions must be renewed to survive.
ctl sweep "$IT_TMP/seq.json" --format markdown --session-ttl 3 >"$IT_TMP/seq.md" 2>"$IT_TMP/seq.err"
it_eq "sequential sweep exits 0" 0 $?
it_http GET "$node2_URL/api/v1/sessions" "$node2_TOKEN"
it_eq "the renewed session was closed, not expired" closed \
	"$(python3 -c 'import json,sys; print(max(json.load(sys.stdin)["sessions"], key=lambda s: s["id"])["end_reason"])' <<<"$HTTP_BODY")"
cat "$IT_TMP/seq.md"
it_check "markdown separator row" grep -q '^|-------------|' "$IT_TMP/seq.md"
ctl show 2 --format json >"$IT_TMP/seq.json.out"
python3 - "$IT_TMP/seq.json.out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
pts = d["points"]
assert d["strategy"] == "sequential"
assert pts[0]["role"] == "baseline" and pts[0]["axis"] == 0
assert pts[1]["params"] == {"scheduler": "none", "nr_requests": 128}, pts[1]
b2 = [p for p in pts if p["role"] == "baseline" and p["axis"] == 1]
assert len(b2) == 1, "one fresh baseline for axis 2"
# the axis-2 baseline holds axis 1's choice
chosen = d["best"]["params"]["scheduler"] if d["best"] else b2[0]["params"]["scheduler"]
assert b2[0]["params"]["nr_requests"] == 128
assert all(p["ref"] == b2[0]["index"] for p in pts if p["axis"] == 1 and p["role"] == "candidate")
# a final confirmation runs beside the original baseline measured again
assert len(pts) in (4, 6), len(pts)
if len(pts) == 6:
    assert pts[4]["role"] == "baseline" and pts[4]["params"] == pts[0]["params"], pts[4]
    assert pts[5]["role"] == "final" and pts[5]["ref"] == 4, pts[5]
PY
it_eq "sequential points are right" 0 $?
ctl_restored "sequential"

ctl history >"$IT_TMP/history.txt"
it_check "history lists both sweeps" grep -q '^2 .*completed *sequential' "$IT_TMP/history.txt"

# Apply sets values permanently, in parallel, and prints the read-back.
out=$(ctl apply "$IT_TMP/grid.json" --params '{"scheduler":"mq-deadline","nr_requests":64}')
it_eq "apply exits 0" 0 $?
it_check "apply prints node1's read-back" grep -q "^node1 $A_DEV: scheduler=mq-deadline nr_requests=64$" <<<"$out"
it_eq "apply set node2" "mq-deadline 64" "$(it_sys "$B_DEV" scheduler) $(it_sys "$B_DEV" nr_requests)"
ctl apply "$IT_TMP/grid.json" --params "{\"scheduler\":\"${A_ORIG% *}\",\"nr_requests\":${A_ORIG#* }}" >/dev/null
ctl apply "$IT_TMP/grid.json" --params '{"scheduler":"bogus"}' >"$IT_TMP/apply-bad.txt"
it_eq "apply of a bad value fails" 1 $?
it_check "apply names the node's error" grep -q "^node1 $A_DEV: FAILED: HTTP 4" "$IT_TMP/apply-bad.txt"

# With the agents stopped, show, compare, export and report still work.
kill -TERM "$node1_PID" "$node2_PID"
wait "$node1_PID" "$node2_PID" 2>/dev/null
ctl show 1 >"$IT_TMP/show.txt"
it_eq "show works with the agents stopped" 0 $?
it_eq "show re-renders the stored table" "$(sed -n '2,6p' "$IT_TMP/grid.txt")" "$(sed -n '2,6p' "$IT_TMP/show.txt")"
ctl show 1 --format csv >"$IT_TMP/show.csv"
it_eq "csv: header + 4 points x 2 nodes" 9 "$(wc -l <"$IT_TMP/show.csv")"
ctl compare 1 2 >"$IT_TMP/compare.txt"
it_eq "compare exits 0" 0 $?
it_check "compare matches the shared baseline" grep -q '^| mq-deadline | 128 ' "$IT_TMP/compare.txt"
# export writes a best configuration only: whether this short sweep found one depends on the
# machine, so the exit status follows the stored outcome, and --baseline (always allowed)
# gives the rule whose shape is checked.
outcome=$(ctl show 1 --format json | python3 -c 'import json,sys; print(json.load(sys.stdin)["outcome"])')
ctl export 1 --format udev >"$IT_TMP/best.rules" 2>"$IT_TMP/export.err"
rc=$?
if [ "$outcome" = best ]; then
	it_eq "export udev of a sweep with a best exits 0" 0 "$rc"
else
	it_eq "export udev of a sweep without a best ($outcome) exits 1" 1 "$rc"
	it_check "and says why" grep -q "sweep 1 has no best configuration to export: " "$IT_TMP/export.err"
fi
ctl export 1 --format udev --baseline >"$IT_TMP/60-fleettune.rules" 2>/dev/null
it_eq "export udev --baseline exits 0" 0 $?
cat "$IT_TMP/60-fleettune.rules"
if command -v udevadm >/dev/null && udevadm verify --help >/dev/null 2>&1; then
	it_check "udevadm verify accepts the rule" udevadm verify "$IT_TMP/60-fleettune.rules"
else
	it_log "udevadm verify not available: checking the syntax"
	bad=$(grep -v '^#' "$IT_TMP/60-fleettune.rules" | grep -v '^$' |
		grep -Ev '^ACTION=="add\|change", SUBSYSTEM=="block", ENV\{DEVTYPE\}=="disk", KERNEL=="loop\[0-9\]\*"(, ATTR\{(queue|device)/[a-z_/]+\}="[A-Za-z0-9_-]+")+$')
	it_eq "every udev line is well-formed" "" "$bad"
	# Loop devices report no model or firmware: the one cohort's rule matches them as loop
	# devices, never by one node's device name.
	it_check "udev rule matches loop devices" grep -q 'KERNEL=="loop\[0-9\]\*", ATTR{queue/scheduler}=' "$IT_TMP/60-fleettune.rules"
	it_check "and no device name" bash -c "! grep -q 'KERNEL==\"$A_DEV\"' '$IT_TMP/60-fleettune.rules'"
fi
ctl export 1 --format tuned --baseline >"$IT_TMP/tuned.conf" 2>/dev/null
it_check "tuned profile has a [disk] section" grep -q "^\[disk\]$" "$IT_TMP/tuned.conf"
it_check "tuned profile matches loop devices" grep -q '^devices_udev_regex=^DEVNAME=/dev/loop\[0-9\]+\$$' "$IT_TMP/tuned.conf"
it_check "tuned profile sets the scheduler" grep -q "^elevator=" "$IT_TMP/tuned.conf"
if [ -f "$FT_SOURCE_DIR/web/report.html" ]; then
	ctl report 1 --html "$IT_TMP/report.html" --web-root "$FT_SOURCE_DIR/web"
	it_eq "report exits 0" 0 $?
	it_check "report inlines the data" grep -q '<script id="sweep-data" type="application/json">{' "$IT_TMP/report.html"
	it_check "report has no external scripts" bash -c "! grep -q '<script src=' '$IT_TMP/report.html'"
	it_check "report has no external stylesheets" bash -c "! grep -q '<link rel=\"stylesheet\"' '$IT_TMP/report.html'"
fi
ctl show 99 >/dev/null 2>"$IT_TMP/show99.err"
it_eq "show of an unknown id fails" 1 $?
it_check "and says so" grep -q "no sweep 99" "$IT_TMP/show99.err"
it_done
