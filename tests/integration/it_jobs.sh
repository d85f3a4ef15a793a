#!/usr/bin/env bash
# it_jobs.sh -- benchmark jobs with real fio on real loop devices: success and metrics, params
# applied and restored, cancel, kill -9 recovery, raw-device safety, bad bodies, history filters.
. "$(dirname "$0")/lib.sh"
it_need_root_sysfs
command -v fio >/dev/null || it_skip "fio not installed"
command -v mkfs.ext4 >/dev/null || it_skip "mkfs.ext4 not installed"

dev=$(it_loop_create 256M)
mdev=$(it_loop_create 128M)
mnt="$IT_TMP/mnt"
mkdir -p "$mnt" "$IT_TMP/outside"
mkfs.ext4 -q -F "/dev/$mdev" || it_skip "mkfs.ext4 failed"
mount "/dev/$mdev" "$mnt" || it_skip "cannot mount a loop device here"
trap 'umount "$mnt" 2>/dev/null; it_cleanup' EXIT
it_agent_start a --allow-device "$dev" --allow-device "$mdev" --allow-dir "$mnt" || exit 1
U=$a_URL/api/v1
T=$a_TOKEN
nr0=$(cat /sys/block/$dev/queue/nr_requests)
nr_job=$((nr0 / 2))
it_log "agent $a_URL, raw device $dev (nr_requests $nr0), mounted $mdev on $mnt"

fio_opts() { # RUNTIME_S
	echo "{\"rw\":\"randwrite\",\"bs\":\"1M\",\"ioengine\":\"libaio\",\"direct\":true,\"iodepth\":8,\"numjobs\":2,\"size\":\"64m\",\"runtime_s\":$1,\"time_based\":true,\"rate_iops\":64}"
}
job_state() { it_http GET "$U/jobs/$1" "$T"; echo "$HTTP_BODY" | jq -r .state; }
state_is() { [ "$(job_state "$1")" = "$2" ]; }
wait_state() { it_wait_for "job $1 $2" "$3" state_is "$1" "$2"; } # ID STATE TIMEOUT_S
count_jobs() { it_http GET "$U/jobs?limit=500" "$T"; echo "$HTTP_BODY" | jq '.jobs|length'; }

# 1. a job succeeds with sane metrics, params applied during it and restored after
it_http POST "$U/jobs" "$T" "{\"device\":\"$dev\",\"engine\":\"fio\",\"fio\":$(fio_opts 1),\"loops\":3,\"params\":{\"nr_requests\":$nr_job},\"labels\":{\"strip_size\":\"256k\",\"run\":\"a\"}}"
it_eq "POST job: 202" 202 "$HTTP_STATUS"
it_eq "queued" queued "$(echo "$HTTP_BODY" | jq -r .state)"
j1=$(echo "$HTTP_BODY" | jq .id)
it_check "job 1 runs" wait_state "$j1" running 10
in_loop_progress() { # ID: progress strictly between 0 and 1 while the job runs
	it_http GET "$U/jobs/$1" "$T"
	echo "$HTTP_BODY" | jq -e '.progress > 0 and .progress < 1 and .state == "running"' >/dev/null
}
it_check "progress moves within a loop" it_wait_for "progress" 5 in_loop_progress "$j1"
it_eq "params applied during the job" "$nr_job" "$(cat /sys/block/$dev/queue/nr_requests)"
it_check "job 1 succeeds" wait_state "$j1" succeeded 30
it_eq "params restored after the job" "$nr0" "$(cat /sys/block/$dev/queue/nr_requests)"
it_http GET "$U/jobs/$j1" "$T"
it_eq "3 passes" 3 "$(echo "$HTTP_BODY" | jq '.passes|length')"
it_eq "loops_done 3" 3 "$(echo "$HTTP_BODY" | jq .loops_done)"
it_check "write.bw_mib is positive" test "$(echo "$HTTP_BODY" | jq '[.passes[].metrics["write.bw_mib"]>0]|all')" = true
it_check "write.clat_p99_us is positive" test "$(echo "$HTTP_BODY" | jq '.summary["write.clat_p99_us"].mean>0')" = true
it_eq "no read metrics for randwrite" 0 "$(echo "$HTTP_BODY" | jq '[.passes[].metrics|keys[]|select(startswith("read."))]|length')"
it_eq "summary n = 3" 3 "$(echo "$HTTP_BODY" | jq '.summary["write.bw_mib"].n')"
it_eq "params snapshot taken with the job's values" "$nr_job" "$(echo "$HTTP_BODY" | jq .params.nr_requests)"
# Enumerated integers are numbers in the snapshot, as GET params sends them (issue 31 item 22).
snap_types=$(echo "$HTTP_BODY" | jq -c '[.params.rq_affinity, .params.nomerges] | map(type)')
it_http GET "$U/devices/$dev/params" "$T"
it_eq "the snapshot's rq_affinity and nomerges are numbers, as in GET params" \
	"$(echo "$HTTP_BODY" | jq -c '[.params.rq_affinity.value, .params.nomerges.value] | map(type)') [\"number\",\"number\"]" \
	"$snap_types [\"number\",\"number\"]"
it_http GET "$U/jobs/$j1" "$T"
it_http GET "$U/jobs/$j1/raw?loop=2" "$T"
it_eq "raw output of pass 2 is fio's JSON" fio-3.33 "$(echo "$HTTP_BODY" | jq -r '."fio version"')"

# 2. cancel mid-loop: cancelled, params restored, no fio left
it_http POST "$U/jobs" "$T" "{\"device\":\"$dev\",\"engine\":\"fio\",\"fio\":$(fio_opts 2),\"loops\":3,\"params\":{\"nr_requests\":$nr_job},\"labels\":{\"run\":\"b\"}}"
j2=$(echo "$HTTP_BODY" | jq .id)
it_check "job 2 runs" wait_state "$j2" running 10
loops_done() { it_http GET "$U/jobs/$1" "$T"; [ "$(echo "$HTTP_BODY" | jq .loops_done)" -ge "$2" ]; }
it_check "job 2 finishes its first loop" it_wait_for "loop 1" 15 loops_done "$j2" 1
has_fio() { [ -n "$(it_fio_pids "$1" "" "$dev")" ]; }
it_check "job 2's fio is found while it runs" it_wait_for "fio of job 2" 5 has_fio "$j2"
sleep 0.3
it_http DELETE "$U/jobs/$j2" "$T"
it_eq "cancel: 200" 200 "$HTTP_STATUS"
it_eq "cancelled" cancelled "$(job_state "$j2")"
it_http GET "$U/jobs/$j2" "$T"
it_eq "the finished pass is kept" 1 "$(echo "$HTTP_BODY" | jq '.passes|length')"
it_eq "params restored after cancel" "$nr0" "$(cat /sys/block/$dev/queue/nr_requests)"
it_eq "no fio left running" "" "$(it_fio_pids "$j2" "" "$dev")"
it_http DELETE "$U/jobs/$j2" "$T"
it_eq "cancelling a finished job: 409" 409 "$HTTP_STATUS"

# a queued job is simply dropped
it_http POST "$U/jobs" "$T" "{\"device\":\"$dev\",\"engine\":\"fio\",\"fio\":$(fio_opts 1),\"loops\":2}"
j3=$(echo "$HTTP_BODY" | jq .id)
it_http POST "$U/jobs" "$T" "{\"device\":\"$dev\",\"engine\":\"fio\",\"fio\":$(fio_opts 1),\"loops\":1}"
j4=$(echo "$HTTP_BODY" | jq .id)
it_eq "second job waits its turn" queued "$(job_state "$j4")"
it_http DELETE "$U/jobs/$j4" "$T"
it_eq "queued job dropped" cancelled "$(job_state "$j4")"
it_check "job 3 still succeeds" wait_state "$j3" succeeded 30

# 3. kill -9 of the agent mid-job, then restart: interrupted, params restored, fio gone
it_http POST "$U/jobs" "$T" "{\"device\":\"$dev\",\"engine\":\"fio\",\"fio\":$(fio_opts 2),\"loops\":3,\"params\":{\"nr_requests\":$nr_job}}"
j5=$(echo "$HTTP_BODY" | jq .id)
it_check "job 5 runs" wait_state "$j5" running 10
sleep 1
it_check "job 5's fio is found while it runs" has_fio "$j5"
it_eq "params applied" "$nr_job" "$(cat /sys/block/$dev/queue/nr_requests)"
kill -9 "$a_PID"
wait "$a_PID" 2>/dev/null
it_agent_start a --allow-device "$dev" --allow-device "$mdev" --allow-dir "$mnt" || exit 1
U=$a_URL/api/v1
it_eq "interrupted after restart" interrupted "$(job_state "$j5")"
it_eq "params restored at startup" "$nr0" "$(cat /sys/block/$dev/queue/nr_requests)"
no_fio() { [ -z "$(it_fio_pids "$1" "" "$dev")" ]; }
it_check "the orphaned fio was killed" it_wait_for "fio gone" 5 no_fio "$j5"

# 4. raw-device safety: mounted gets 409, not allowlisted 403 device_not_allowed (as every other
# route); directories need --allow-dir
n0=$(count_jobs)
it_http POST "$U/jobs" "$T" "{\"device\":\"$mdev\",\"engine\":\"fio\",\"fio\":$(fio_opts 1)}"
it_eq "raw job on a mounted device: 409" 409 "$HTTP_STATUS"
it_eq "message says why" true "$(echo "$HTTP_BODY" | jq '.error.message|test("mounted")')"
other=$(ls /sys/block | grep '^loop' | grep -v -e "^$dev\$" -e "^$mdev\$" | head -n 1)
it_http POST "$U/jobs" "$T" "{\"device\":\"$other\",\"engine\":\"fio\",\"fio\":$(fio_opts 1)}"
it_eq "raw job on a non-allowlisted device: 403 device_not_allowed" "403 device_not_allowed" \
	"$HTTP_STATUS $(echo "$HTTP_BODY" | jq -r .error.code)"
it_http POST "$U/jobs" "$T" "{\"device\":\"$mdev\",\"directory\":\"$IT_TMP/outside\",\"engine\":\"fio\",\"fio\":$(fio_opts 1)}"
it_eq "directory outside --allow-dir: 403" 403 "$HTTP_STATUS"

# 5. bad bodies: 400, no job created
for body in \
	'{}' \
	"{\"device\":\"$dev\"}" \
	"{\"device\":\"$dev\",\"engine\":\"iozonex\"}" \
	"{\"device\":\"$dev\",\"engine\":\"fio\",\"fio\":{\"rw\":\"randwrite\",\"bs\":\"4Q\"}}" \
	"{\"device\":\"$dev\",\"engine\":\"fio\",\"fio\":{\"rw\":\"randwrite\",\"iodepth\":0}}" \
	"{\"device\":\"$dev\",\"engine\":\"fio\",\"fio\":{\"rw\":\"randwrite\",\"nope\":1}}" \
	"{\"device\":\"$dev\",\"engine\":\"fio\",\"fio\":$(fio_opts 1),\"loops\":0}" \
	"{\"device\":\"$dev\",\"engine\":\"fio\",\"fio\":$(fio_opts 1),\"loops\":101}" \
	"{\"device\":\"$dev\",\"engine\":\"fio\",\"fio\":$(fio_opts 1),\"loops\":\"2\"}" \
	"{\"device\":\"$dev\",\"engine\":\"fio\",\"fio\":$(fio_opts 1),\"labels\":{\"k\":1}}" \
	"{\"device\":\"$dev\",\"engine\":\"fio\",\"fio\":$(fio_opts 1),\"extra\":true}" \
	"{\"device\":\"$dev\",\"engine\":\"bonnie\",\"bonnie\":{}}" \
	"{\"device\":\"$dev\",\"engine\":\"dd\",\"dd\":{\"direction\":\"sideways\"}}" \
	"{\"device\":\"sdzz\",\"engine\":\"fio\",\"fio\":$(fio_opts 1)}"; do
	it_http POST "$U/jobs" "$T" "$body"
	it_eq "bad body $(echo "$body" | cut -c1-70): 400" 400 "$HTTP_STATUS"
done
it_http POST "$U/jobs" "$T" "{\"device\":\"$dev\",\"engine\":\"fio\",\"fio\":$(fio_opts 1),\"params\":{\"scheduler\":\"cfq\"}}"
it_eq "bad params: 422" 422 "$HTTP_STATUS"
it_eq "no job was created by any refused request" "$n0" "$(count_jobs)"

# 6. a dd job and a directory fio job on the mounted filesystem
it_http POST "$U/jobs" "$T" "{\"device\":\"$dev\",\"engine\":\"dd\",\"dd\":{\"direction\":\"write\",\"bs\":\"1M\",\"count\":32,\"oflag_direct\":true},\"loops\":2,\"labels\":{\"run\":\"dd\"}}"
jdd=$(echo "$HTTP_BODY" | jq .id)
it_http POST "$U/jobs" "$T" "{\"device\":\"$mdev\",\"directory\":\"$mnt\",\"engine\":\"fio\",\"fio\":{\"rw\":\"write\",\"bs\":\"1M\",\"size\":\"16m\",\"direct\":true,\"ioengine\":\"libaio\"},\"loops\":2,\"params\":{\"read_ahead_kb\":512},\"labels\":{\"run\":\"dir\"}}"
it_eq "directory job accepted" 202 "$HTTP_STATUS"
jdir=$(echo "$HTTP_BODY" | jq .id)
it_check "dd job succeeds" wait_state "$jdd" succeeded 30
it_http GET "$U/jobs/$jdd" "$T"
it_check "dd write.bw_mib > 0" test "$(echo "$HTTP_BODY" | jq '.summary["write.bw_mib"].mean>0')" = true
it_check "directory job succeeds" wait_state "$jdir" succeeded 30
it_eq "the job's files were removed" 0 "$(find "$mnt" -name "ft-job$jdir-*" | wc -l)"

# 7. the history filters by label and by parameter
it_http GET "$U/results?label.run=a" "$T"
it_eq "filter by label: one job" "[$j1]" "$(echo "$HTTP_BODY" | jq -c '[.results[].id]')"
# (on $dev: $mdev keeps whatever nr_requests an earlier test left, which may equal $nr_job)
it_http GET "$U/results?param.nr_requests=$nr_job&state=succeeded&device=$dev" "$T"
it_eq "filter by param: the job that ran with it" "[$j1]" "$(echo "$HTTP_BODY" | jq -c '[.results[].id]')"
it_http GET "$U/results?param.read_ahead_kb=512" "$T"
it_eq "filter by another param" "[$jdir]" "$(echo "$HTTP_BODY" | jq -c '[.results[].id]')"
it_http GET "$U/results?engine=dd" "$T"
it_eq "filter by engine" "[$jdd]" "$(echo "$HTTP_BODY" | jq -c '[.results[].id]')"
it_http GET "$U/results?limit=2" "$T"
it_eq "paged: 2 results" 2 "$(echo "$HTTP_BODY" | jq '.results|length')"
next=$(echo "$HTTP_BODY" | jq .next_before_id)
it_http GET "$U/results?limit=2&before_id=$next" "$T"
it_check "next page is older" test "$(echo "$HTTP_BODY" | jq ".results[0].id < $next")" = true
it_http GET "$U/results?bogus=1" "$T"
it_eq "unknown filter: 400" 400 "$HTTP_STATUS"

it_done
