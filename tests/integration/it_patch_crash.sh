#!/usr/bin/env bash
# it_patch_crash.sh -- a PATCH cut short by kill -9 is rolled back at the next start, and one
# that had made every write is recorded as done; no audit row stays 'pending' (issue 23 item
# 8). 1: the state a kill leaves, made by hand (the device half-written, the rows as the agent
# writes them), also where a write resets a value compared before it (an nr_requests write
# resets iosched.async_depth: the rollback read every value once, before writing, and left
# async_depth as the write made it; issue 31 item 3); 2: real kill -9s during a burst of
# PATCHes, 20 rounds each after a cancelled fio job on the device and each restarted at once
# (the start waits for the killed agent's lock, so its last write has landed before recovery
# looks), every start leaving the device all old or all new.
source "$(dirname "$0")/lib.sh"

it_need_root_sysfs
command -v sqlite3 >/dev/null || it_skip "sqlite3 not installed"
command -v jq >/dev/null || it_skip "jq not installed"
dev=$(it_loop_create 64M)
alt=bfq
grep -qw bfq "/sys/block/$dev/queue/scheduler" || alt=kyber
q() { sqlite3 "$a_STATE/agent.db" "$1"; }
state() { echo "$(it_sys "$dev" scheduler) $(it_sys "$dev" nr_requests) $(it_sys "$dev" read_ahead_kb)"; }

# The loop device goes back as it came (its queue settings outlive losetup -d: the next test
# to get this loop number would start from ours).
orig_state=$(state)
it_agent_start a --allow-device "$dev" || exit 1
U=$a_URL/api/v1
it_http PATCH "$U/devices/$dev/params" "$a_TOKEN" '{"params":{"scheduler":"mq-deadline","nr_requests":64,"read_ahead_kb":128}}'
it_eq "start: mq-deadline 64 128" "200 mq-deadline 64 128" "$HTTP_STATUS $(state)"
kill -TERM "$a_PID"; wait "$a_PID" 2>/dev/null
has_applies=$(q "SELECT COUNT(*) FROM sqlite_master WHERE name = 'applies'")

# crashed ORIGIN N ROWS...: what a PATCH of N writes leaves when killed, as the agent records
# it (an agent with the applies table: the apply and its snapshot; any agent: the audit rows),
# each row "name|previous|requested|applied|outcome" (applied "" = NULL). The snapshot is the
# rows' previous values.
crashed() {
	local origin=$1 n=$2 r name prev req app out apply=NULL snap="" sep=""
	shift 2
	for r in "$@"; do
		IFS='|' read -r name prev req app out <<<"$r"
		snap="$snap$sep\"$name\":\"$prev\""
		sep=,
	done
	if [ "$has_applies" = 1 ]; then
		q "INSERT INTO applies(at, device, origin, n, snapshot)
		   VALUES(strftime('%s','now'), '$dev', '$origin', $n, '{$snap}')"
		apply=$(q "SELECT MAX(id) FROM applies")
	fi
	for r in "$@"; do
		IFS='|' read -r name prev req app out <<<"$r"
		[ -n "$app" ] && app="'$app'" || app=NULL
		if [ "$has_applies" = 1 ]; then
			q "INSERT INTO changes(at, device, name, previous, requested, applied, outcome, origin, apply_id)
			   VALUES(strftime('%s','now'), '$dev', '$name', '$prev', '$req', $app, '$out', '$origin', $apply)"
		else
			q "INSERT INTO changes(at, device, name, previous, requested, applied, outcome, origin)
			   VALUES(strftime('%s','now'), '$dev', '$name', '$prev', '$req', $app, '$out', '$origin')"
		fi
	done
}

# 1a. Killed after the scheduler and nr_requests, before read_ahead_kb (its row pending, its
# write not made): rolled back.
echo "$alt" >"/sys/block/$dev/queue/scheduler"
echo 256 >"/sys/block/$dev/queue/nr_requests"
crashed "request 7 PATCH /api/v1/devices/$dev/params" 3 \
	"scheduler|mq-deadline|$alt|$alt|ok" "nr_requests|64|256|256|ok" "read_ahead_kb|128|1024||pending"
it_agent_start a --allow-device "$dev" || exit 1
it_eq "a PATCH cut short is rolled back at start" "mq-deadline 64 128" "$(state)"
it_eq "no audit row stays pending" 0 "$(q "SELECT COUNT(*) FROM changes WHERE outcome = 'pending'")"
it_eq "its pending row is closed as interrupted" interrupted \
	"$(q "SELECT outcome FROM changes WHERE name = 'read_ahead_kb' AND requested = '1024'")"
it_check "the rollback is in the audit log" test \
	"$(q "SELECT COUNT(*) FROM changes WHERE origin LIKE 'rollback at start of request 7 PATCH%' AND outcome = 'rolled_back'")" -ge 2
it_check "the start log says so" grep -q "request 7 PATCH .* was cut short" "$a_LOG"
kill -TERM "$a_PID"; wait "$a_PID" 2>/dev/null

# 1b. Killed after the last write, before its outcome was recorded: recorded as done.
echo "$alt" >"/sys/block/$dev/queue/scheduler"
echo 256 >"/sys/block/$dev/queue/nr_requests"
echo 1024 >"/sys/block/$dev/queue/read_ahead_kb"
crashed "request 9 PATCH /api/v1/devices/$dev/params" 3 \
	"scheduler|mq-deadline|$alt|$alt|ok" "nr_requests|64|256|256|ok" "read_ahead_kb|128|1024||pending"
it_agent_start a --allow-device "$dev" || exit 1
it_eq "a PATCH whose writes were all made stays" "$alt 256 1024" "$(state)"
it_eq "... its last row is closed as ok, with the value" "ok 1024" \
	"$(q "SELECT outcome, applied FROM changes WHERE origin LIKE 'request 9 %' AND name = 'read_ahead_kb'" | tr '|' ' ')"
it_eq "no audit row stays pending" 0 "$(q "SELECT COUNT(*) FROM changes WHERE outcome = 'pending'")"
kill -TERM "$a_PID"; wait "$a_PID" 2>/dev/null

# 1c. A write that resets a value the rollback compares later: from mq-deadline, nr_requests
# 128, async_depth 64, a PATCH of nr_requests 64 (the kernel sets async_depth to 64 with it)
# and read_ahead_kb 4096, killed after the first write. Rolling back nr_requests to 128 resets
# async_depth to 128: the rollback must see that and write 64 again.
aq=/sys/block/$dev/queue
echo mq-deadline >"$aq/scheduler"
echo 128 >"$aq/nr_requests"
echo 64 >"$aq/iosched/async_depth"
pre="$(cat "$aq/nr_requests") $(cat "$aq/iosched/async_depth") $(cat "$aq/read_ahead_kb")"
read -r pre_nr pre_async pre_ra <<<"$pre"
echo 64 >"$aq/nr_requests"
crashed "request 11 PATCH /api/v1/devices/$dev/params" 2 \
	"nr_requests|$pre_nr|64|64|ok" "read_ahead_kb|$pre_ra|4096||pending"
q "UPDATE applies SET snapshot = '{\"scheduler\":\"mq-deadline\",\"nr_requests\":\"$pre_nr\",\"iosched.async_depth\":\"$pre_async\",\"read_ahead_kb\":\"$pre_ra\"}' WHERE origin LIKE 'request 11 %'"
it_agent_start a --allow-device "$dev" || exit 1
it_eq "a rollback whose write resets another value puts both back" "$pre" \
	"$(cat "$aq/nr_requests") $(cat "$aq/iosched/async_depth") $(cat "$aq/read_ahead_kb")"
U=$a_URL/api/v1
it_http PATCH "$U/devices/$dev/params" "$a_TOKEN" '{"params":{"scheduler":"mq-deadline","nr_requests":64,"read_ahead_kb":128}}'

# 2. Real kills: a fio job on the device submitted and cancelled, a burst of PATCHes between
# two states, kill -9 at a random moment and a restart at once, 20 rounds.
A="$alt 256 1024"
B="mq-deadline 64 128"
ROUNDS=${IT_PATCH_CRASH_ROUNDS:-20}
mixed=0 pend=0
job_running() { it_http GET "$U/jobs/$1" "$a_TOKEN"; [ "$(jq -r .state <<<"$HTTP_BODY")" = running ]; }
for k in $(seq "$ROUNDS"); do
	it_http POST "$U/jobs" "$a_TOKEN" "{\"device\":\"$dev\",\"engine\":\"fio\",\"fio\":{\"rw\":\"randwrite\",\"bs\":\"4k\",\"runtime_s\":30,\"time_based\":true,\"rate_iops\":1024,\"ioengine\":\"psync\",\"direct\":false}}"
	jid=$(jq .id <<<"$HTTP_BODY")
	it_wait_for "job $jid running" 20 job_running "$jid" || it_fail "round $k: the prior job did not run"
	sleep 0.3
	it_http DELETE "$U/jobs/$jid" "$a_TOKEN"
	[ "$HTTP_STATUS" = 200 ] || it_fail "round $k: the prior job was not cancelled: $HTTP_STATUS"
	(
		while :; do
			curl -s -o /dev/null -m 5 -X PATCH -H "Authorization: Bearer $a_TOKEN" \
				--data-binary "{\"params\":{\"scheduler\":\"$alt\",\"nr_requests\":256,\"read_ahead_kb\":1024}}" "$U/devices/$dev/params"
			curl -s -o /dev/null -m 5 -X PATCH -H "Authorization: Bearer $a_TOKEN" \
				--data-binary '{"params":{"scheduler":"mq-deadline","nr_requests":64,"read_ahead_kb":128}}' "$U/devices/$dev/params"
		done
	) &
	burst=$!
	sleep "0.$((RANDOM % 5 + 3))"
	kill -KILL "$a_PID"
	# At once, as a supervisor would: a start refused while the killed agent still holds the
	# state directory (a thread still in a kernel write) is tried again.
	starts=0
	until it_agent_start a --allow-device "$dev" 2>/dev/null; do
		starts=$((starts + 1))
		[ "$starts" -lt 100 ] || { it_fail "round $k: no start in 100 tries"; break; }
		sleep 0.05
	done
	kill "$burst"; wait "$burst" 2>/dev/null
	U=$a_URL/api/v1
	s=$(state)
	p=$(q "SELECT COUNT(*) FROM changes WHERE outcome = 'pending'")
	it_log "kill $k: $s, $p pending, $starts start(s) refused while the killed agent held the lock"
	[ "$s" = "$A" ] || [ "$s" = "$B" ] || mixed=$((mixed + 1))
	[ "$p" = 0 ] || pend=$((pend + 1))
	# What the burst's in-flight request did to the new agent is over before the next round.
	it_http PATCH "$U/devices/$dev/params" "$a_TOKEN" '{"params":{"scheduler":"mq-deadline","nr_requests":64,"read_ahead_kb":128}}'
done
it_eq "$ROUNDS kill -9s during PATCHes after a cancelled job: none leaves a mix of old and new values" 0 "$mixed"
it_eq "... and none leaves a pending audit row" 0 "$pend"
read -r o_sched o_nr o_ra <<<"$orig_state"
it_http PATCH "$U/devices/$dev/params" "$a_TOKEN" "{\"params\":{\"scheduler\":\"$o_sched\",\"nr_requests\":$o_nr,\"read_ahead_kb\":$o_ra}}"
it_eq "the device is back as it came" "$orig_state" "$(state)"
it_done
