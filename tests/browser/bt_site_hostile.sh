#!/bin/bash
# bt_site_hostile.sh -- `<!--<script>` cannot blank the static history site (issue 31 #7): a plan
# named "x <!--<script> y" swept on two real agents (temp --sysfs-root trees, bench/fakefio),
# one of them behind hostile_agent.py, which adds " x <!--<script> y" to every text it answers
# (applied values, model, node, version). `fleettune-ctl site DIR` and the index and the sweep's
# page opened from file:// in headless Chromium: every table is there, the name shown as text.
# The self-contained `report --html` too. No root needed.
. "$(dirname "$0")/../integration/lib.sh"
. "$(dirname "$0")/browser_lib.sh"

bt_need_browser
FAKEFIO=$FT_BUILD_DIR/bench/fakefio
[ -x "$CTL_BIN" ] || it_skip "controller not built at $CTL_BIN"
[ -x "$FAKEFIO" ] || it_skip "bench/fakefio not built at $FAKEFIO"
[ -x "$AGENT_BIN" ] || it_skip "agent not built at $AGENT_BIN"

export FAKEFIO_CTL=$IT_TMP/fakefio.ctl
printf 'base 1000\ncv 0.02\nnode_sd 0\n' >"$IT_TMP/surface.spec"
printf 'spec %s\nseed 3\ncounter %s\nsleep_ms 1\n' "$IT_TMP/surface.spec" "$IT_TMP/cnt" >"$FAKEFIO_CTL"
for i in 1 2; do
	it_fake_scsi_device "$IT_TMP/root$i" sdb "ST300 <!--<script>" 2.1 ATA Z1Z0AAA$i
	FAKEFIO_SYSFS=$IT_TMP/root$i FAKEFIO_NODE=$i \
		it_agent_start "n$i" --sysfs-root "$IT_TMP/root$i" --allow-device sdb --fio "$FAKEFIO" ||
		exit 1
done
python3 "$FT_SOURCE_DIR/tests/integration/hostile_agent.py" "$n1_URL" "$IT_TMP/h.port" comment &
IT_PIDS+=("$!")
it_wait_for "hostile agent" 10 test -s "$IT_TMP/h.port" || exit 1
H_URL=http://127.0.0.1:$(cat "$IT_TMP/h.port")
cat >"$IT_TMP/plan.json" <<PLAN
{"name": "x <!--<script> y",
 "nodes": [{"name": "n1", "url": "$H_URL", "device": "sdb", "token_file": "n1-state/token"},
           {"name": "n2", "url": "$n2_URL", "device": "sdb", "token_file": "n2-state/token"}],
 "baseline": {"scheduler": "mq-deadline", "nr_requests": 128},
 "axes": [{"param": "nr_requests", "values": [128, 64]}],
 "strategy": "grid",
 "job": {"fio": {"rw": "write", "runtime_s": 1}, "loops": 2},
 "metric": "write.bw_mib", "min_effect_pct": 5}
PLAN
db=$IT_TMP/ctl.db
"$CTL_BIN" sweep "$IT_TMP/plan.json" --db "$db" >"$IT_TMP/sweep.out" 2>"$IT_TMP/sweep.err"
rc=$?
it_check "the sweep exits 0 or 1 (exit $rc)" test "$rc" = 0 -o "$rc" = 1
cat "$IT_TMP/sweep.out"
it_check "an applied value carries the comment" grep -q '<!--<script>' "$IT_TMP/sweep.out"

"$CTL_BIN" site "$IT_TMP/site" --db "$db" --web-root "$FT_SOURCE_DIR/web" 2>"$IT_TMP/site.err"
it_eq "fleettune-ctl site exits 0" 0 $?
it_check "the pages hold no raw <!-- (\\u003c in the JSON)" bash -c "! grep -q '<!--<script' '$IT_TMP/site/index.html' '$IT_TMP/site/sweep-1.html'"
"$CTL_BIN" show 1 --db "$db" --format json | jq -s '{sweeps: [.[] | {id, name, status, strategy,
	outcome, nodes: [.nodes[].name], best: (if .best then (.best.params | to_entries | map("\(.key)=\(.value)") | join(" ")) else null end)}],
	plans: []}' >"$IT_TMP/expect.json"
bt_node site_check.js --dir "$IT_TMP/site" --expect "$IT_TMP/expect.json" --shots "$BT_SHOTS" --prefix site-hostile

"$CTL_BIN" report 1 --html "$IT_TMP/report.html" --db "$db" --web-root "$FT_SOURCE_DIR/web"
it_eq "report --html exits 0" 0 $?
it_check "the report holds no raw <!--<script" bash -c "! grep -q '<!--<script' '$IT_TMP/report.html'"
it_done
