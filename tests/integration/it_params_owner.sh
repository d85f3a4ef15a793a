#!/usr/bin/env bash
# it_params_owner.sh -- a job's params that nobody would put back are refused or owned (issue 31
# item 1), on a real loop device with real fio: "params_restore": false needs a session open on
# the device at submit (409 session_required) and at the job's start (the job fails, nothing
# written); while the session is open it owns the values; and after every way the issue found to
# leave a device tuned (the session expiring while the job waited, kill -9 and a restart with
# the job queued or running, no session at all) the device ends as it was.
source "$(dirname "$0")/lib.sh"

it_need_root_sysfs
command -v jq >/dev/null || it_skip "jq not installed"
command -v fio >/dev/null || it_skip "fio not installed"
dev=$(it_loop_create 64M)
orig=$(it_sys "$dev" read_ahead_kb)
it_agent_start a --allow-device "$dev" || exit 1

ra() { it_sys "$dev" read_ahead_kb; }
# job BODY_EXTRA RUNTIME_S: a raw-device fio job on dev; sets JID.
job() {
	it_http POST "$a_URL/api/v1/jobs" "$a_TOKEN" "{\"device\":\"$dev\",\"engine\":\"fio\",\"fio\":{\"rw\":\"randread\",\"bs\":\"4k\",\"runtime_s\":$2,\"time_based\":true,\"rate_iops\":1024,\"ioengine\":\"psync\"}$1}"
	JID=$(jq .id <<<"$HTTP_BODY")
}
job_state() { it_http GET "$a_URL/api/v1/jobs/$1" "$a_TOKEN"; jq -r .state <<<"$HTTP_BODY"; }
ended() { it_job_ended "$a_URL/api/v1" "$a_TOKEN" "$1"; }
running() { [ "$(job_state "$1")" = running ]; }
session() {
	it_http POST "$a_URL/api/v1/devices/$dev/sessions" "$a_TOKEN" "{\"ttl_s\":$1}"
	SID=$(jq .id <<<"$HTTP_BODY")
}
restart_after_kill() {
	kill -KILL "$a_PID"; wait "$a_PID" 2>/dev/null
	it_agent_start a --allow-device "$dev" || exit 1
}

# 1. No session at all: refused at submit, nothing written, nothing queued (also as a dry run).
keep='"params":{"read_ahead_kb":4096},"params_restore":false'
job ",$keep" 2
it_eq "no session: 409 session_required" "409 session_required" "$HTTP_STATUS $(jq -r .error.code <<<"$HTTP_BODY")"
it_check "... the message says what to do" grep -q "open one first (POST /api/v1/devices/$dev/sessions)" <<<"$HTTP_BODY"
it_http POST "$a_URL/api/v1/jobs?dry_run=true" "$a_TOKEN" "{\"device\":\"$dev\",\"engine\":\"fio\",\"fio\":{\"runtime_s\":1,\"time_based\":true},$keep}"
it_eq "... its dry run says the same" "409 session_required" "$HTTP_STATUS $(jq -r .error.code <<<"$HTTP_BODY")"
it_eq "... the device is untouched" "$orig" "$(ra)"
restart_after_kill
it_eq "... and across a restart" "$orig" "$(ra)"

# 2. The session expires while the job waits behind another: the job fails at its start and
# writes nothing (before: the job ran and left 2048 for good).
session 3
job "" 6
first=$JID
it_check "2: a first job runs" it_wait_for "job $first running" 20 running "$first"
job ",\"params\":{\"read_ahead_kb\":2048},\"params_restore\":false" 2
it_eq "2: the params_restore false job is queued inside the session" 202 "$HTTP_STATUS"
keep_id=$JID
it_check "2: both jobs end" it_wait_for "job $keep_id" 60 ended "$keep_id"
it_http GET "$a_URL/api/v1/jobs/$keep_id" "$a_TOKEN"
it_eq "2: it failed at its start: session_required" "failed session_required 0" \
	"$(jq -r '"\(.state) \(.error.code) \(.loops_done)"' <<<"$HTTP_BODY")"
it_eq "2: the device is as it was" "$orig" "$(ra)"

# 3. A session open, the job queued, kill -9 and a restart: the restart ends the session, so the
# job fails at its start (before: it ran after the restart and left 3072).
session 60
job "" 30
first=$JID
it_check "3: a first job runs" it_wait_for "job $first running" 20 running "$first"
job ",\"params\":{\"read_ahead_kb\":3072},\"params_restore\":false" 2
keep_id=$JID
restart_after_kill
it_check "3: after the restart the queued job ends" it_wait_for "job $keep_id" 60 ended "$keep_id"
it_http GET "$a_URL/api/v1/jobs/$keep_id" "$a_TOKEN"
it_eq "3: ... failed: session_required" "failed session_required" \
	"$(jq -r '"\(.state) \(.error.code)"' <<<"$HTTP_BODY")"
it_eq "3: the device is as it was" "$orig" "$(ra)"

# 4. Inside a live session the values stay after the job (a sweep's jobs rely on it), and the
# session's close puts them back.
session 60
sid=$SID
job ",\"params\":{\"read_ahead_kb\":4096},\"params_restore\":false" 1
keep_id=$JID
it_check "4: the job ends" it_wait_for "job $keep_id" 60 ended "$keep_id"
it_eq "4: it succeeded" succeeded "$(job_state "$keep_id")"
it_eq "4: its value stays while the session is open" 4096 "$(ra)"
it_http DELETE "$a_URL/api/v1/sessions/$sid" "$a_TOKEN"
it_eq "4: the session's close puts the device back" "$orig" "$(ra)"

# 5. kill -9 mid-job inside a session: the restart's session restore puts the device back.
session 60
job ",\"params\":{\"read_ahead_kb\":4096},\"params_restore\":false" 30
keep_id=$JID
it_check "5: the job runs" it_wait_for "job $keep_id running" 20 running "$keep_id"
it_eq "5: with its value" 4096 "$(ra)"
restart_after_kill
it_eq "5: after kill -9 and a restart the device is as it was" "$orig" "$(ra)"
it_eq "5: the job is interrupted" interrupted "$(job_state "$keep_id")"

# 6. kill -9 mid-job without a session (params put back by the job: params_restore true): the
# restart puts the device back from the job's restore point (before, with params_restore false
# and no session: 256 stayed).
job ",\"params\":{\"read_ahead_kb\":256}" 30
jid=$JID
it_check "6: the job runs" it_wait_for "job $jid running" 20 running "$jid"
it_eq "6: with its value" 256 "$(ra)"
restart_after_kill
it_eq "6: after kill -9 and a restart the device is as it was" "$orig" "$(ra)"
it_done
