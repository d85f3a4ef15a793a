#!/bin/bash
# bt_site.sh -- `fleettune-ctl site DIR` over real sweeps (two agents on two loop devices, real
# fio): one plan run twice, another once and a suite of two workloads once. The index and one
# sweep's page opened from file:// in headless Chromium with the network off: a row per stored
# sweep with its link, name, date, nodes, strategy, metric (a suite's workload count and rule),
# best and outcome as the history has them; a chart for the plan
# run twice (its runs' effect and baseline) and none for the other; the sweep page is that
# sweep's report. Screenshots in $FT_BUILD_DIR/screenshots/.
. "$(dirname "$0")/../integration/lib.sh"
. "$(dirname "$0")/browser_lib.sh"

it_need_root_sysfs
bt_need_browser
command -v fio >/dev/null || it_skip "fio not installed"
it_need_built "$CTL_BIN"

d1=$(it_loop_create 256M)
d2=$(it_loop_create 256M)
it_agent_start node1 --allow-device "$d1" || exit 1
it_agent_start node2 --allow-device "$d2" || exit 1

# plan NAME AXIS_VALUES FILE: a two-node grid over max_sectors_kb (4 KiB requests against
# whole ones: a gain), 2 loops of 1 s.
plan() {
	jq -n --arg name "$1" --argjson vals "$2" --arg u1 "$node1_URL" --arg u2 "$node2_URL" \
		--arg d1 "$d1" --arg d2 "$d2" --arg t1 "$node1_STATE/token" --arg t2 "$node2_STATE/token" '{
	name: $name,
	nodes: [{name: "node1", url: $u1, device: $d1, token_file: $t1},
	        {name: "node2", url: $u2, device: $d2, token_file: $t2}],
	baseline: {scheduler: "none", max_sectors_kb: 4},
	axes: [{param: "max_sectors_kb", values: $vals}],
	strategy: "grid",
	job: {engine: "fio", fio: {rw: "randwrite", bs: "64k", ioengine: "libaio", direct: true, iodepth: 8,
	      numjobs: 1, size: "32m", runtime_s: 1, time_based: true, rate_iops: 1024}, loops: 2},
	metric: "write.bw_mib", labels: {suite: "bt-site"}}' >"$3"
}
db="$IT_TMP/ctl.db"
plan "bt <i>site</i> plan A" '[1280]' "$IT_TMP/a.json"
plan "bt site plan B" '[128]' "$IT_TMP/b.json"
# Plan C: plan A's grid as a suite of two workloads (the index marks it).
plan "bt site suite C" '[1280]' "$IT_TMP/c0.json"
jq '.workloads = [{name: "rand write", fio: {rw: "randwrite"}}, {name: "rand read", fio: {rw: "randread"}}]' \
	"$IT_TMP/c0.json" >"$IT_TMP/c.json"
for p in a b a c; do
	"$CTL_BIN" sweep "$IT_TMP/$p.json" --db "$db" >>"$IT_TMP/sweeps.txt" 2>>"$IT_TMP/sweeps.err"
	rc=$?
	it_check "sweep of plan $p exits 0 or 1 (exit $rc)" test "$rc" = 0 -o "$rc" = 1
done
cat "$IT_TMP/sweeps.txt"
kill -TERM "$node1_PID" "$node2_PID"

"$CTL_BIN" site "$IT_TMP/site" --db "$db" --web-root "$FT_SOURCE_DIR/web" 2>"$IT_TMP/site.err"
it_eq "fleettune-ctl site exits 0" 0 $?
cat "$IT_TMP/site.err"
it_check "it says what it wrote" grep -q "wrote $IT_TMP/site/index.html and 4 sweep pages (3 plans, 1 run more than once)" "$IT_TMP/site.err"
for f in index.html sweep-1.html sweep-2.html sweep-3.html sweep-4.html style.css charts.js report.js site.js vendor/chart.umd.js; do
	it_check "site has $f" test -s "$IT_TMP/site/$f"
done
# What the index must show, from the store itself.
for i in 1 2 3 4; do "$CTL_BIN" show "$i" --db "$db" --format json; done | jq -s '{sweeps: [.[] | {id, name, status, strategy,
	outcome, nodes: [.nodes[].name], best: (if .best then (.best.params | to_entries | map("\(.key)=\(.value)") | join(" ")) else null end),
	metric: (if .suite then "suite: \(.suite.workloads | length) workloads, rule \(.suite.rule)" else .metric end)}],
	plans: [{name: "bt <i>site</i> plan A", runs: [1, 3]}]}' >"$IT_TMP/expect.json"
jq -c . "$IT_TMP/expect.json" | sed 's/^/# expect: /'
bt_node site_check.js --dir "$IT_TMP/site" --expect "$IT_TMP/expect.json" --shots "$BT_SHOTS" --prefix site
it_done
