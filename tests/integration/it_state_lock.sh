#!/usr/bin/env bash
# it_state_lock.sh -- one agent per state directory (issue 31 item 2): a second agent started on
# a live agent's state directory is refused before it reads or writes anything there (no crash
# recovery under the live agent), with a message naming the directory and the live agent's
# pid; the live agent's session, its device values and its running job are untouched. Once the
# live agent stops, an agent starts on the directory again.
source "$(dirname "$0")/lib.sh"

it_need_root_sysfs
command -v jq >/dev/null || it_skip "jq not installed"
command -v fio >/dev/null || it_skip "fio not installed"
dev=$(it_loop_create 64M)
orig_ra=$(it_sys "$dev" read_ahead_kb)
it_agent_start n1 --allow-device "$dev" || exit 1
U=$n1_URL/api/v1
T=$n1_TOKEN
port=${n1_URL##*:}

it_http POST "$U/devices/$dev/sessions" "$T" '{"ttl_s":120}'
it_eq "n1: session opened" 201 "$HTTP_STATUS"
sid=$(jq .id <<<"$HTTP_BODY")
it_http PATCH "$U/devices/$dev/params" "$T" '{"params":{"read_ahead_kb":4096}}'
it_eq "n1: read_ahead_kb 4096 inside the session" "200 4096" "$HTTP_STATUS $(it_sys "$dev" read_ahead_kb)"
it_http POST "$U/jobs" "$T" "{\"device\":\"$dev\",\"engine\":\"fio\",\"fio\":{\"rw\":\"randread\",\"bs\":\"4k\",\"runtime_s\":60,\"time_based\":true,\"rate_iops\":1024,\"ioengine\":\"psync\"}}"
it_eq "n1: a long job queued" 202 "$HTTP_STATUS"
jid=$(jq .id <<<"$HTTP_BODY")
# The job's own fio processes (other agents on the machine may run fio too).
job_fio() { it_fio_pids "$jid" 1 "$dev" | tr '\n' ' '; }
# fio's main process forks the job's process a moment later: wait for both.
running() { it_http GET "$U/jobs/$jid" "$T"; [ "$(jq -r .state <<<"$HTTP_BODY")" = running ] && [ "$(job_fio | wc -w)" -ge 2 ]; }
it_check "n1: the job runs (fio is up)" it_wait_for "job running" 20 running
fio_pids=$(job_fio)

# second LISTEN: another agent on n1's state directory, on n1's own port and on a free one.
second() {
	local listen=$1 log=$IT_TMP/second-$2.log rc
	timeout 20 "$AGENT_BIN" --listen "$listen" --node-name second --state-dir "$n1_STATE" \
		--allow-device "$dev" 2>"$log"
	rc=$?
	it_eq "second agent ($2): refused (exit 1)" 1 "$rc"
	it_check "... naming the directory and n1's pid" \
		grep -q "state directory '$n1_STATE' is in use by another agent (pid $n1_PID holds" "$log"
	it_check "... before any recovery (no restore, no kill, no interrupted job)" \
		bash -c "! grep -Eiq 'restor|killed|interrupted|recovered|rolled|listening' '$log'"
}
second "127.0.0.1:$port" same-port
second 127.0.0.1:0 free-port

it_eq "n1's device still holds the session's value" 4096 "$(it_sys "$dev" read_ahead_kb)"
it_http GET "$U/sessions/$sid" "$T"
it_eq "n1's session is still open" open "$(jq -r .state <<<"$HTTP_BODY")"
it_http GET "$U/jobs/$jid" "$T"
it_eq "n1's job is still running" running "$(jq -r .state <<<"$HTTP_BODY")"
it_eq "... its fio processes are the same ones" "$fio_pids" "$(job_fio)"
it_http GET "$U/health" "$T"
it_eq "n1 still answers" 200 "$HTTP_STATUS"
it_eq "the lock file names n1" "$n1_PID" "$(cat "$n1_STATE/lock")"

# n1 stops (its session restored, its job interrupted): the directory is free again.
it_http DELETE "$U/jobs/$jid" "$T"
kill -TERM "$n1_PID"; wait "$n1_PID" 2>/dev/null
it_eq "n1 put the device back as it stopped" "$orig_ra" "$(it_sys "$dev" read_ahead_kb)"
it_agent_start n1 --allow-device "$dev" || exit 1
it_check "an agent starts on the directory once n1 is gone" kill -0 "$n1_PID"
it_eq "... and holds the lock" "$n1_PID" "$(cat "$n1_STATE/lock")"
it_done
