#!/bin/bash
# bt_workloads.sh -- the job view of a suite job (a fio job with workloads, issue 29) in
# headless Chromium: its passes by workload, a row per workload and a column per pass for the
# metric chosen, each workload's own options, and a chart per workload.
. "$(dirname "$0")/../integration/lib.sh"
. "$(dirname "$0")/browser_lib.sh"

it_need_root_sysfs
bt_need_browser
command -v fio >/dev/null || it_skip "fio not installed"

dev=$(it_loop_create 256M)
it_agent_start wl --allow-device "$dev" --web-root "$FT_SOURCE_DIR/web" || exit 1
body=$(jq -cn --arg dev "$dev" '{device: $dev, engine: "fio", loops: 2,
	fio: {runtime_s: 1, time_based: true, rate_iops: 1024, ioengine: "psync", direct: true},
	workloads: [{name: "seq read 1M", fio: {rw: "read", bs: "1m"}},
	            {name: "rand read 4k", fio: {rw: "randread", bs: "4k"}},
	            {name: "rand write 4k", fio: {rw: "randwrite", bs: "4k"}}]}')
id=$(bt_job_post "$wl_URL" "$wl_TOKEN" "$body") || { it_fail "could not post the job"; it_done; }
it_check "the suite job finishes" bt_jobs_wait "$wl_URL" "$wl_TOKEN" 120 "$id"
bt_node workloads_check.js --url "$wl_URL/" --token "$wl_TOKEN" --job "$id" --shots "$BT_SHOTS"
it_done
