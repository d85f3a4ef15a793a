#!/bin/bash
# bt_decision.sh -- issue 28 in the browser: the stored decision rendered by the report and by
# the site exactly as show gives it, and the site counting only what finished. Two agents on
# fake sysfs trees with bench/fakefio (no root): sweep 1 a sequential sweep whose axis row
# gains early and whose final confirmation does not (unconfirmed); sweeps 2-4 one grid plan
# with a lasting gain, sweep 3 interrupted with SIGINT. `report 1 --html` and `site DIR` are
# opened from file:// in headless Chromium with the network off: every banner carries its
# sweep's decision (data-decision, the summary; green only for a confirmed, completed sweep),
# the per-axis charts are the paired Δ with the interval that decided (whiskers agree with the
# verdicts, legend names them, 0 on the axis), the index marks the interrupted sweep and the
# runs chart plots sweeps 2 and 4 only, from 0. Screenshots in $FT_BUILD_DIR/screenshots/.
. "$(dirname "$0")/../integration/lib.sh"
. "$(dirname "$0")/../integration/ctl_lib.sh"
. "$(dirname "$0")/browser_lib.sh"

bt_need_browser
command -v jq >/dev/null || it_skip "jq not installed"
ctl_fake_nodes 'base 1000
cv 0.02
node_sd 0
param nr_requests 32 1.15 until 10'
ctl_fake_plan "$IT_TMP/u.json" sequential '[{"param": "nr_requests", "values": [128, 32]}]'
ctl_fake_plan "$IT_TMP/g.json" grid '[{"param": "nr_requests", "values": [128, 32, 64]}]'

ctl sweep "$IT_TMP/u.json" >"$IT_TMP/s1.txt" 2>&1
it_eq "sweep 1 exits 0" 0 $?
printf 'base 1000\ncv 0.02\nnode_sd 0\nparam nr_requests 32 1.15\n' >"$IT_TMP/surface.spec"
ctl sweep "$IT_TMP/g.json" >"$IT_TMP/s2.txt" 2>&1
it_eq "sweep 2 exits 0" 0 $?
# Sweep 3: slow passes, interrupted after its first rounds.
sed -i 's/^sleep_ms .*/sleep_ms 400/' "$FAKEFIO_CTL"
ctl_sweep_bg "$IT_TMP/g.json"
it_wait_for "sweep 3 has run passes" 20 grep -q "pass 1/" "$IT_TMP/err.txt"
sleep 1
kill -INT "$CTL_PID"
wait "$CTL_PID"
it_eq "sweep 3 exits 130 (interrupted)" 130 $?
sed -i 's/^sleep_ms .*/sleep_ms 1/' "$FAKEFIO_CTL"
ctl sweep "$IT_TMP/g.json" >"$IT_TMP/s4.txt" 2>&1
it_eq "sweep 4 exits 0" 0 $?
ctl history
kill -TERM "$n1_PID" "$n2_PID"

for i in 1 2 3 4; do ctl show "$i" --format json >"$IT_TMP/doc$i.json"; done
it_eq "the decisions" "unconfirmed confirmed interrupted confirmed" \
	"$(for i in 1 2 3 4; do jq -r 'if .status == "completed" then .decision.state else .status end' "$IT_TMP/doc$i.json"; done | xargs)"

# The report of sweep 1: its banner is the stored decision, its charts what was judged.
ctl report 1 --html "$IT_TMP/report1.html" --web-root "$FT_SOURCE_DIR/web"
it_eq "report 1 exits 0" 0 $?
bt_node report_check.js --html "$IT_TMP/report1.html" --json "$IT_TMP/doc1.json" --shots "$BT_SHOTS" --prefix decision-report

ctl site "$IT_TMP/site" --web-root "$FT_SOURCE_DIR/web" 2>"$IT_TMP/site.err"
it_eq "site exits 0" 0 $?
for i in 1 2 3 4; do cat "$IT_TMP/doc$i.json"; done | jq -s '{sweeps: [.[] | {id, name, status, strategy, outcome,
	nodes: [.nodes[].name], best: (if .best then (.best.params | to_entries | map("\(.key)=\(.value)") | join(" ")) else null end),
	decision: {state: .decision.state, summary: .decision.summary}}],
	plans: [{name: "it grid", runs: [2, 4]}]}' >"$IT_TMP/expect.json"
jq -c . "$IT_TMP/expect.json" | sed 's/^/# expect: /'
bt_node site_check.js --dir "$IT_TMP/site" --expect "$IT_TMP/expect.json" --shots "$BT_SHOTS" --prefix decision-site
it_done
