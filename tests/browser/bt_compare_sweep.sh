#!/bin/bash
# bt_compare_sweep.sh -- issue 28: the agent page's Compare view over a two-axis sequential
# sweep never pools across the other varying parameter. Two agents on fake sysfs trees with
# bench/fakefio (no root; read_ahead_kb 4096 +40 %, nr_requests 32 +10 %), a sequential sweep of
# nr_requests then read_ahead_kb; node n1's page in headless Chromium: the default parameter is
# the first axis, setra (moves with read_ahead_kb) is named and not offered, and each effect is
# shown only within one setting of the other parameter, for both axes. Screenshots in
# $FT_BUILD_DIR/screenshots/.
. "$(dirname "$0")/../integration/lib.sh"
. "$(dirname "$0")/../integration/ctl_lib.sh"
. "$(dirname "$0")/browser_lib.sh"

bt_need_browser
command -v jq >/dev/null || it_skip "jq not installed"
ctl_fake_nodes 'base 1000
cv 0.02
param read_ahead_kb 4096 1.4
param nr_requests 32 1.1'
# The page: n1 restarted with the web root.
kill -TERM "$n1_PID"
wait "$n1_PID" 2>/dev/null
FAKEFIO_SYSFS=$IT_TMP/root1 FAKEFIO_NODE=1 it_agent_start n1 --sysfs-root "$IT_TMP/root1" --allow-device sdb \
	--fio "$FAKEFIO" --web-root "$FT_SOURCE_DIR/web" || exit 1
ctl_fake_plan "$IT_TMP/plan.json" sequential '[{"param": "nr_requests", "values": [128, 32]}, {"param": "read_ahead_kb", "values": [128, 4096]}]'
sed -i 's/"baseline": {"nr_requests": 128}/"baseline": {"nr_requests": 128, "read_ahead_kb": 128}/' "$IT_TMP/plan.json"
ctl sweep "$IT_TMP/plan.json" >"$IT_TMP/sweep.txt" 2>"$IT_TMP/sweep.err"
it_eq "the sweep exits 0" 0 $?
cat "$IT_TMP/sweep.txt"
it_http GET "$n1_URL/api/v1/results?limit=500" "$n1_TOKEN"
echo "$HTTP_BODY" | jq '{first: "nr_requests", second: "read_ahead_kb",
	jobs: [.results[] | select(.state == "succeeded") | {id, params: (.params | with_entries(.value |= (if type == "object" and has("value") then .value else . end)))}]}' >"$IT_TMP/expect.json"
it_check "the expectation holds the sweep's jobs" test "$(jq '.jobs | length' "$IT_TMP/expect.json")" -ge 20
bt_node compare_sweep_check.js --url "$n1_URL/" --token "$n1_TOKEN" --expect "$IT_TMP/expect.json" --shots "$BT_SHOTS"
it_done
