#!/usr/bin/env bash
# it_contain.sh -- no orphaned benchmark: real fio with numjobs 4 (whose workers setsid() and
# leave fio's process group) on a loop device; the agent is killed with SIGKILL right after a
# job starts, mid-pass and between loops, restarted, and 1 s later no process of the job may
# exist and the device's parameters are back. A cancel whose SIGTERM cannot finish the job
# (its workers are stopped) falls back to SIGKILL through the containment and leaves nothing.
# Both containments: a cgroup v2 per job (where the agent can make one) and --contain proc.
. "$(dirname "$0")/lib.sh"
it_need_root_sysfs
command -v fio >/dev/null || it_skip "fio not installed"

dev=$(it_loop_create 512M)
nr0=$(cat /sys/block/$dev/queue/nr_requests)
nr_job=$((nr0 / 2))
it_log "device $dev (nr_requests $nr0, the jobs set $nr_job)"

# procs ID [LOOP]: pids of the job's real fio processes.
procs() { it_fio_pids "$1" "${2:-}" "$dev"; }
count() { procs "$@" | wc -l; }
job_state() { it_http GET "$U/jobs/$1" "$T"; echo "$HTTP_BODY" | jq -r .state; }
post_job() { # RUNTIME_S LOOPS: sets J
	it_http POST "$U/jobs" "$T" "{\"device\":\"$dev\",\"engine\":\"fio\",\"fio\":{\"rw\":\"randwrite\",\"bs\":\"64k\",\"ioengine\":\"libaio\",\"direct\":true,\"iodepth\":4,\"numjobs\":4,\"size\":\"64m\",\"runtime_s\":$1,\"time_based\":true,\"rate_iops\":1024},\"loops\":$2,\"params\":{\"nr_requests\":$nr_job}}"
	J=$(echo "$HTTP_BODY" | jq .id)
}
start() { # MODE
	it_agent_start a --allow-device "$dev" --contain "$1" || return 1
	U=$a_URL/api/v1
	T=$a_TOKEN
}
# this agent's job cgroups still on the cgroup2 mount (none may be left). Other tests'
# agents have other ids, so only this state dir's base counts (the cgroup start-up line
# names it; --contain proc keeps the same state dir, hence the same base).
CG_BASE=""
cgroups_left() { # ID
	local mnt
	if [ -n "$CG_BASE" ]; then
		[ -d "$CG_BASE/job-$1" ] && echo 1 || echo 0
		return
	fi
	mnt=$(awk '$0 ~ / - cgroup2 / {print $5; exit}' /proc/self/mountinfo)
	[ -n "$mnt" ] && find "$mnt" -maxdepth 6 -type d -name "job-$1" -path '*/fleettune/*' 2>/dev/null | wc -l || echo 0
}
fio_has_workers() { [ "$(count "$1" "$2")" -ge 5 ]; } # main + 4 workers
fio_started() { [ "$(count "$1" "$2")" -ge 1 ]; }

# crash MODE MOMENT: start a job, SIGKILL the agent at MOMENT, restart, check.
crash() {
	local mode=$1 moment=$2 before survivors i
	# Passes of 4 s where the moment is a pass's end; else 20 s, so that fio's workers outlive
	# the restart however long a loaded machine takes to make it (the restart kills them).
	post_job "$([ "$moment" = between ] && echo 4 || echo 20)" 3
	it_check "$mode/$moment: job $J accepted" test "$HTTP_STATUS" = 202
	case $moment in
	start) # as soon as fio of loop 1 exists: its workers may not be forked yet
		it_wait_for "fio of job $J" 10 fio_started "$J" 1
		;;
	mid) # fio and its 4 workers running, 1 s into the pass
		it_wait_for "fio workers of job $J" 10 fio_has_workers "$J" 1
		sleep 1
		;;
	between) # loop 1's fio just exited; loop 2's is about to start (or just started)
		it_wait_for "fio workers of job $J" 10 fio_has_workers "$J" 1
		for i in $(seq 1000); do [ "$(count "$J" 1)" = 0 ] && break; sleep 0.01; done
		;;
	esac
	before=$(procs "$J" | tr '\n' ' ')
	kill -9 "$a_PID"
	wait "$a_PID" 2>/dev/null
	survivors=$(count "$J")
	it_log "$mode/$moment: agent killed; job $J processes before: [${before% }], alive after the agent died: $survivors"
	if [ "$moment" = mid ]; then
		it_check "$mode/$moment: fio's workers outlive the killed agent (the case to handle)" test "$survivors" -ge 4
	fi
	start "$mode" || exit 1
	sleep 1
	it_eq "$mode/$moment: no process of job $J 1 s after the restart" "" "$(procs "$J" | tr '\n' ' ')"
	it_eq "$mode/$moment: nr_requests restored" "$nr0" "$(cat /sys/block/$dev/queue/nr_requests)"
	it_eq "$mode/$moment: job $J interrupted" interrupted "$(job_state "$J")"
	it_eq "$mode/$moment: no job cgroup left" 0 "$(cgroups_left "$J")"
	it_eq "$mode/$moment: no containment record left" "" "$(ls "$a_STATE/contain")"
	if [ "$survivors" -gt 0 ]; then
		it_check "$mode/$moment: the restart logged what it killed" \
			grep -q "killed [0-9]* leftover process(es) of job $J (" "$a_LOG"
	fi
}

# cancel MODE: stop fio's workers so SIGTERM cannot end the job; the SIGKILL after the 5 s
# grace must reach them through the containment.
cancel() {
	local mode=$1 w
	post_job 30 1
	it_wait_for "fio workers of job $J" 10 fio_has_workers "$J" 1
	for w in $(procs "$J"); do
		[ "$(ps -o sid= -p "$w" | tr -d ' ')" = "$w" ] && kill -STOP "$w"
	done
	it_http DELETE "$U/jobs/$J" "$T"
	it_eq "$mode/cancel: 200" 200 "$HTTP_STATUS"
	it_eq "$mode/cancel: cancelled" cancelled "$(job_state "$J")"
	it_eq "$mode/cancel: no process of job $J left, stopped workers included" "" "$(procs "$J" | tr '\n' ' ')"
	it_eq "$mode/cancel: nr_requests restored" "$nr0" "$(cat /sys/block/$dev/queue/nr_requests)"
	it_eq "$mode/cancel: no job cgroup left" 0 "$(cgroups_left "$J")"
}

for mode in cgroup proc; do
	if ! start "$mode" 2>/dev/null; then
		it_log "SKIP cgroup mode: the agent cannot make cgroups here ($(grep -o 'contain cgroup: .*' "$IT_TMP/a.log" | head -n 1))"
		continue
	fi
	[ "$mode" = cgroup ] && CG_BASE=$(sed -n 's/.*one cgroup per job under \(.*\) (.*/\1/p' "$a_LOG" | tail -n 1)
	it_check "$mode: the start-up line names the containment" \
		grep -q "job containment: $([ "$mode" = cgroup ] && echo 'one cgroup per job' || echo 'process trees')" "$a_LOG"
	for moment in start mid between; do
		crash "$mode" "$moment"
	done
	cancel "$mode"
	kill -TERM "$a_PID"
	wait "$a_PID" 2>/dev/null
done

it_done
