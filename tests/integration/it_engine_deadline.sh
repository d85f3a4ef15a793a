#!/usr/bin/env bash
# it_engine_deadline.sh -- nothing waits for ever on a hung engine (issue 31 item 9), with real
# fio on a loop device: a 3 s job whose fio is stopped (SIGSTOP, as a hung disk or a wedged tool
# would leave it) is stopped at its pass deadline, 2 x 3 s + 30 s = 36 s, and fails
# "engine_timeout" naming the deadline; its params are put back and the job queued behind it
# runs. The job's answers carry pass_deadline_s and run_deadline_s, as does its dry run, and
# health lists the feature pass_deadline.
source "$(dirname "$0")/lib.sh"

it_need_root_sysfs
command -v jq >/dev/null || it_skip "jq not installed"
command -v fio >/dev/null || it_skip "fio not installed"
dev=$(it_loop_create 64M)
orig=$(it_sys "$dev" read_ahead_kb)
it_agent_start a --allow-device "$dev" || exit 1
U=$a_URL/api/v1
T=$a_TOKEN

it_http GET "$U/health" ""
it_check "health lists pass_deadline" grep -q '"pass_deadline"' <<<"$HTTP_BODY"
body="{\"device\":\"$dev\",\"engine\":\"fio\",\"fio\":{\"rw\":\"randread\",\"bs\":\"4k\",\"runtime_s\":3,\"time_based\":true,\"rate_iops\":1024,\"ioengine\":\"psync\"},\"loops\":2,\"params\":{\"read_ahead_kb\":512}}"
it_http POST "$U/jobs?dry_run=true" "$T" "$body"
it_eq "dry run: the deadlines" "36 82" "$(jq -r '"\(.pass_deadline_s) \(.run_deadline_s)"' <<<"$HTTP_BODY")"
it_http POST "$U/jobs" "$T" "$body"
it_eq "POST: 202 with the deadlines" "202 36 82" "$HTTP_STATUS $(jq -r '"\(.pass_deadline_s) \(.run_deadline_s)"' <<<"$HTTP_BODY")"
jid=$(jq .id <<<"$HTTP_BODY")
it_http POST "$U/jobs" "$T" "{\"device\":\"$dev\",\"engine\":\"fio\",\"fio\":{\"rw\":\"randread\",\"bs\":\"4k\",\"runtime_s\":1,\"time_based\":true,\"rate_iops\":1024,\"ioengine\":\"psync\"}}"
next=$(jq .id <<<"$HTTP_BODY")
job_fio() { it_fio_pids "$jid" 1 "$dev" | grep .; }
it_check "the job's fio runs" it_wait_for "fio of job $jid" 20 job_fio
t0=$(date +%s.%N)
for p in $(job_fio); do kill -STOP "$p"; done
state_of() { it_http GET "$U/jobs/$1" "$T"; jq -r .state <<<"$HTTP_BODY"; }
ended() { it_job_ended "$U" "$T" "$1"; }
it_check "the hung job ends" it_wait_for "job $jid" 60 ended "$jid"
t1=$(date +%s.%N)
took=$(echo "$t1 - $t0" | bc)
it_log "stopped fio to failed job: $took s"
it_check "... at its deadline (about 36 s after its pass began), not before" \
	test "$(echo "$took > 30 && $took < 50" | bc)" = 1
it_http GET "$U/jobs/$jid" "$T"
it_eq "... failed: engine_timeout" "failed engine_timeout 0" \
	"$(jq -r '"\(.state) \(.error.code) \(.loops_done)"' <<<"$HTTP_BODY")"
it_eq "... naming the deadline" \
	"fio ran past its deadline of 36 s in pass 1 of 2 and was stopped (the deadline is 2 x what the pass should take, 3 s, + 30 s)" \
	"$(jq -r .error.message <<<"$HTTP_BODY")"
no_fio() { ! job_fio >/dev/null; }
it_check "... its fio is gone" no_fio
it_eq "... its params are put back" "$orig" "$(it_sys "$dev" read_ahead_kb)"
it_check "the job queued behind it runs" it_wait_for "job $next" 30 ended "$next"
it_eq "... and succeeds" succeeded "$(state_of "$next")"
it_done
