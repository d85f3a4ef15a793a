#!/usr/bin/env bash
# it_joblist.sh -- the cheap list and scrape of issue 23 item 17: GET /jobs answers each job in
# its summary form (no spec, summary, passes or params) unless fields= asks, and /metrics keeps
# its write counts and job counts true as writes and jobs go on (counted as they happen, not
# by scanning the history at each scrape), also across a restart.
source "$(dirname "$0")/lib.sh"

it_need_root_sysfs
command -v jq >/dev/null || it_skip "jq not installed"
dev=$(it_loop_create 64M)
export FAKE_FIO_SLEEP_S=0
it_agent_start a --allow-device "$dev" --fio "$FT_SOURCE_DIR/tests/fixtures/fake-fio.sh" || exit 1
U=$a_URL/api/v1
T=$a_TOKEN
get() { curl -s -H "Authorization: Bearer $T" "$1"; }
metric() { get "$a_URL/metrics" | sed -n "s/^$1 \\([0-9]*\\)\$/\\1/p"; }

it_http POST "$U/jobs" "$T" "{\"device\":\"$dev\",\"engine\":\"fio\",\"fio\":{\"rw\":\"read\",\"bs\":\"4k\",\"size\":\"8m\",\"runtime_s\":1},\"loops\":2,\"params\":{\"read_ahead_kb\":256},\"labels\":{\"k\":\"v\"}}"
jid=$(echo "$HTTP_BODY" | jq .id)
done_() { [ "$(get "$U/jobs/$jid" | jq -r .state)" = succeeded ]; }
it_check "job $jid succeeds" it_wait_for "job" 30 done_
list=$(get "$U/jobs")
it_eq "the list's job has no spec, summary, passes or params" "false false false false" \
	"$(echo "$list" | jq -r '.jobs[0] | [has("spec"), has("summary"), has("passes"), has("params")] | map(tostring) | join(" ")')"
it_eq "... and has its state, labels and times" "succeeded v true" \
	"$(echo "$list" | jq -r '.jobs[0] | "\(.state) \(.labels.k) \(.finished_at != null)"')"
full=$(get "$U/jobs?fields=spec,summary,passes,params")
it_eq "fields= gives the rest" "true true 2 256" \
	"$(echo "$full" | jq -r '.jobs[0] | "\(has("spec")) \(has("summary")) \(.passes | length) \(.params.read_ahead_kb)"')"
it_eq "... as GET /jobs/{id} has them" "$(get "$U/jobs/$jid" | jq -c .params)" "$(echo "$full" | jq -c '.jobs[0].params')"
it_http GET "$U/jobs?fields=nope" "$T"
it_eq "an unknown member is 400" 400 "$HTTP_STATUS"

# The counters follow the writes (nr_requests goes back as it came at the end).
orig_nr=$(it_sys "$dev" nr_requests)
ok0=$(metric 'fleettune_param_writes_total{outcome="ok"}')
for v in 64 96 128; do
	it_http PATCH "$U/devices/$dev/params" "$T" "{\"params\":{\"nr_requests\":$v}}"
done
it_http PUT "$U/devices/$dev/params/io_poll" "$T" '{"value":1}' # the kernel refuses it on a loop device
ok1=$(metric 'fleettune_param_writes_total{outcome="ok"}')
it_eq "three more writes counted ok" $((ok0 + 3)) "$ok1"
rows=$(get "$U/changes?limit=1000" | jq '[.changes[] | select(.outcome == "ok")] | length')
it_eq "... as many as the audit log has" "$rows" "$ok1"
it_eq "the refused write counted rejected" \
	"$(get "$U/changes?limit=1000" | jq '[.changes[] | select(.outcome == "rejected")] | length')" \
	"$(metric 'fleettune_param_writes_total{outcome="rejected"}')"
succ=$(metric 'fleettune_jobs{state="succeeded"}')
it_http POST "$U/jobs" "$T" "{\"device\":\"$dev\",\"engine\":\"fio\",\"fio\":{\"rw\":\"read\",\"bs\":\"4k\",\"size\":\"8m\",\"runtime_s\":1}}"
j2=$(echo "$HTTP_BODY" | jq .id)
d2() { [ "$(get "$U/jobs/$j2" | jq -r .state)" = succeeded ]; }
it_check "job $j2 succeeds" it_wait_for "job 2" 30 d2
it_eq "the job count follows" $((succ + 1)) "$(metric 'fleettune_jobs{state="succeeded"}')"
kill -TERM "$a_PID"; wait "$a_PID" 2>/dev/null
it_agent_start a --allow-device "$dev" --fio "$FT_SOURCE_DIR/tests/fixtures/fake-fio.sh" || exit 1
it_eq "after a restart the counts are the same" "$ok1 $((succ + 1))" \
	"$(metric 'fleettune_param_writes_total{outcome="ok"}') $(metric 'fleettune_jobs{state="succeeded"}')"
U=$a_URL/api/v1
it_http PATCH "$U/devices/$dev/params" "$T" "{\"params\":{\"nr_requests\":$orig_nr}}"
it_done
