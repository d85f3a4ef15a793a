#!/bin/bash
# bt_compare.sh -- the page's Compare and History with mixed workloads, in headless Chromium:
# real fio jobs of two workloads on one loop device (64k jobs posted by hand, 4k jobs run by a
# one-node fleettune-ctl sweep), and a job cancelled after one pass. Compare shows one
# workload at a time (the most recent by default, the other through the selector) and never
# pools the other's passes; its parameter list holds only settable parameters that vary; the
# history shows what each job changed; the cancelled job does not read "± 0".
. "$(dirname "$0")/../integration/lib.sh"
. "$(dirname "$0")/browser_lib.sh"

it_need_root_sysfs
bt_need_browser
command -v fio >/dev/null || it_skip "fio not installed"
it_need_built "$CTL_BIN"

dev=$(it_loop_create 256M)
it_log "loop device $dev"
it_agent_start node1 --allow-device "$dev" --web-root "$FT_SOURCE_DIR/web" || exit 1

# Workload A: 64k randwrite (bt_fio_body), nr_requests 32 and 64, posted by hand.
ids=()
post() { local id; id=$(bt_job_post "$node1_URL" "$node1_TOKEN" "$(bt_fio_body "$dev" "$@")") && ids+=("$id"); }
post 2 '{"nr_requests":32}' '{"suite":"cmp"}'
post 2 '{"nr_requests":64}' '{"suite":"cmp"}'
[ ${#ids[@]} = 2 ] || { it_fail "could not post the jobs"; it_done; }
it_check "workload A: 2 real fio jobs finish" bt_jobs_wait "$node1_URL" "$node1_TOKEN" 120 "${ids[@]}"

# A job of workload A cancelled after its first pass.
cancel=$(bt_job_post "$node1_URL" "$node1_TOKEN" "$(bt_fio_body "$dev" 6 '{}' '{"suite":"cmp","grp":"cancelled"}')")
it_wait_for "job $cancel to finish a pass" 60 bash -c \
	"[ \"\$(curl -s -H 'Authorization: Bearer $node1_TOKEN' $node1_URL/api/v1/jobs/$cancel | jq -r .loops_done)\" -ge 1 ]"
it_http DELETE "$node1_URL/api/v1/jobs/$cancel" "$node1_TOKEN"
it_check "job $cancel cancelled (HTTP $HTTP_STATUS)" bt_jobs_wait "$node1_URL" "$node1_TOKEN" 30 "$cancel"
it_eq "job $cancel ended cancelled" cancelled "$(bt_job_state "$node1_URL" "$node1_TOKEN" "$cancel")"

# Workload B: a real one-node sweep of nr_requests over a 4k randwrite, the most recent.
cat >"$IT_TMP/plan.json" <<PLAN
{"name": "bt compare", "strategy": "sequential",
 "nodes": [{"name": "node1", "url": "$node1_URL", "device": "$dev", "token_file": "node1-state/token"}],
 "baseline": {"nr_requests": 128},
 "axes": [{"param": "nr_requests", "values": [64]}],
 "job": {"engine": "fio", "fio": {"rw": "randwrite", "bs": "4k", "ioengine": "libaio", "direct": true,
         "iodepth": 8, "numjobs": 1, "size": "32m", "runtime_s": 1, "time_based": true, "rate_iops": 1024}, "loops": 2},
 "labels": {"suite": "cmp"}}
PLAN
"$CTL_BIN" sweep "$IT_TMP/plan.json" --db "$IT_TMP/ctl.db" >"$IT_TMP/sweep.txt" 2>"$IT_TMP/sweep.err"
rc=$?
it_check "workload B: the sweep completes (exit $rc)" test "$rc" = 0 -o "$rc" = 1
cat "$IT_TMP/sweep.txt"

it_http GET "$node1_URL/api/v1/results?limit=500" "$node1_TOKEN"
echo "$HTTP_BODY" >"$IT_TMP/results.json"
it_http GET "$node1_URL/api/v1/devices/$dev/params" "$node1_TOKEN"
echo "$HTTP_BODY" >"$IT_TMP/params.json"
# What the page must show, from the API: per workload (by bs) its succeeded jobs' passes.
jq -n --slurpfile r "$IT_TMP/results.json" --slurpfile p "$IT_TMP/params.json" --argjson cancel "$cancel" '
	def wl(bs): [$r[0].results[] | select(.state == "succeeded" and .spec.fio.bs == bs)];
	def side(bs): wl(bs) as $j | {jobs: ($j | length),
		passes: ([$j[].passes[].metrics["write.bw_mib"] | numbers] | length),
		groups: ([$j[].params.nr_requests | tostring] | unique),
		changed: ([$j[] | {id: (.id | tostring), text: (if (.spec.params // {}) != {} then
			(.spec.params | to_entries | map("\(.key)=\(.value)") | join(" "))
			else "sweep \(.labels.sweep): \(.labels.sweep_config)" end)}])};
	{a: side("64K"), b: side("4K"), cancelled: $cancel,
	 readonly: [$p[0].params | to_entries[] | select(.value.writable | not) | .key]}' >"$IT_TMP/expect.json"
jq -c . "$IT_TMP/expect.json" | sed 's/^/# expect: /'
it_eq "workload B: the sweep's jobs carry sweep_config" 0 \
	"$(jq '[.b.changed[] | select(.text | test("null"))] | length' "$IT_TMP/expect.json")"

bt_node compare_check.js --url "$node1_URL/" --token "$node1_TOKEN" --expect "$IT_TMP/expect.json" \
	--shots "$BT_SHOTS" --prefix compare
it_done
