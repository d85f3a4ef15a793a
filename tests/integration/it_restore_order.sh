#!/usr/bin/env bash
# it_restore_order.sh -- restore precedence (issue 11.2): a session that expires mid-job restores
# the device, cancels the restore point of the job that started inside it and marks the job
# (params_changed, failed); the job's end then does not put back the values from inside the
# session. The same after kill -9 and a restart (session restored first, then job recovery).
# A PATCH while a job runs marks the job and leaves the written values out of its restore point.
. "$(dirname "$0")/lib.sh"
it_need_root_sysfs
command -v fio >/dev/null || it_skip "fio not installed"
command -v jq >/dev/null || it_skip "jq not installed"

dev=$(it_loop_create 128M)
# The scenario's base has nr_requests 256: with no scheduler the kernel caps it at the loop
# driver's 128 tags (it_loop_create starts from none), so the device gets one first.
echo mq-deadline >"/sys/block/$dev/queue/scheduler"
nr() { it_sys "$dev" nr_requests; }
ra() { it_sys "$dev" read_ahead_kb; }
fio='{"rw":"randread","bs":"4k","ioengine":"psync","size":"32m","runtime_s":4,"time_based":true,"rate_iops":1024}'
wait_job_end() { it_wait_for "job $1" 30 it_job_ended "$U" "$a_TOKEN" "$1"; } # ID
# scenario: base 256/2560; session (ttl 4 s); PATCH 128/512; job with nr_requests 64, 2 x 4 s.
scenario() {
	it_http PATCH "$U/devices/$dev/params" "$a_TOKEN" '{"params":{"nr_requests":256,"read_ahead_kb":2560}}'
	it_eq "$1: base set" 200 "$HTTP_STATUS"
	it_http POST "$U/devices/$dev/sessions" "$a_TOKEN" '{"ttl_s":4}'
	it_eq "$1: session opened" 201 "$HTTP_STATUS"
	it_http PATCH "$U/devices/$dev/params" "$a_TOKEN" '{"params":{"nr_requests":128,"read_ahead_kb":512}}'
	it_http POST "$U/jobs" "$a_TOKEN" "{\"device\":\"$dev\",\"engine\":\"fio\",\"fio\":$fio,\"loops\":2,\"params\":{\"nr_requests\":64}}"
	it_eq "$1: job accepted" 202 "$HTTP_STATUS"
	job=$(echo "$HTTP_BODY" | jq .id)
}

# 1. The session expires mid-job, then the job ends.
it_agent_start a --allow-device "$dev" || exit 1
U=$a_URL/api/v1
scenario "expiry"
it_check "expiry: the job ends" wait_job_end "$job"
it_eq "expiry: the job failed" failed "$(echo "$HTTP_BODY" | jq -r .state)"
it_eq "expiry: error params_changed" params_changed "$(echo "$HTTP_BODY" | jq -r .error.code)"
it_check "expiry: params_changed names the session" \
	grep -q 'session [0-9]* expired' <<<"$(echo "$HTTP_BODY" | jq -r .params_changed)"
it_eq "expiry: nr_requests at the session's base" 256 "$(nr)"
it_eq "expiry: read_ahead_kb at the session's base" 2560 "$(ra)"

# 2. kill -9 mid-job inside the session; the restart restores the session, then recovers the job.
scenario "restart"
it_wait_for "job running" 20 bash -c "[ \"\$(curl -s -H 'Authorization: Bearer $a_TOKEN' $U/jobs/$job | jq -r .state)\" = running ]"
sleep 1
it_eq "restart: job params in force" 64 "$(nr)"
kill -9 "$a_PID"
wait "$a_PID" 2>/dev/null
it_agent_start a --allow-device "$dev" || exit 1
U=$a_URL/api/v1
it_http GET "$U/jobs/$job" "$a_TOKEN"
it_eq "restart: the job is interrupted" interrupted "$(echo "$HTTP_BODY" | jq -r .state)"
it_check "restart: the job is marked" \
	grep -q 'agent_restart' <<<"$(echo "$HTTP_BODY" | jq -r .params_changed)"
it_eq "restart: nr_requests at the session's base" 256 "$(nr)"
it_eq "restart: read_ahead_kb at the session's base" 2560 "$(ra)"
# 3. A PATCH while a job runs (no session): the job fails params_changed naming the request, and
# its end puts back what it set itself (nr_requests) but not the value the PATCH wrote.
it_http PATCH "$U/devices/$dev/params" "$a_TOKEN" '{"params":{"nr_requests":256,"read_ahead_kb":2560}}'
it_http POST "$U/jobs" "$a_TOKEN" "{\"device\":\"$dev\",\"engine\":\"fio\",\"fio\":$fio,\"loops\":2,\"params\":{\"nr_requests\":64}}"
it_eq "patch: job accepted" 202 "$HTTP_STATUS"
job=$(echo "$HTTP_BODY" | jq .id)
it_wait_for "patch: job running" 20 bash -c "[ \"\$(curl -s -H 'Authorization: Bearer $a_TOKEN' $U/jobs/$job | jq -r .state)\" = running ]"
it_http PATCH "$U/devices/$dev/params" "$a_TOKEN" '{"params":{"read_ahead_kb":1024}}'
it_eq "patch: the PATCH is applied" 200 "$HTTP_STATUS"
it_check "patch: the job ends" wait_job_end "$job"
it_eq "patch: the job failed" failed "$(echo "$HTTP_BODY" | jq -r .state)"
it_eq "patch: error params_changed" params_changed "$(echo "$HTTP_BODY" | jq -r .error.code)"
it_check "patch: params_changed names the request" \
	grep -q 'PATCH /api/v1/devices/'"$dev"'/params wrote 1 value' <<<"$(echo "$HTTP_BODY" | jq -r .params_changed)"
it_eq "patch: the job's own nr_requests put back" 256 "$(nr)"
it_eq "patch: the PATCH's read_ahead_kb kept" 1024 "$(ra)"
it_done
