#!/usr/bin/env bash
# it_fio_file.sh -- fio as its users write it (issue 29), with real fio on a loop device: a job
# file with exec_prerun is refused naming it (and nothing runs), one fio's own parser rejects is
# refused with fio's words (422 fio_rejected), one that would write outside the job is refused
# naming the option; a valid two-section file runs, each loop a pass, its passes stored with
# both sections' figures; and the "fio" object's options in fio's units ("1s", "4k", "100us",
# bssplit, rate, thinktime, loops ...) run on real fio too.
source "$(dirname "$0")/lib.sh"

it_need_root_sysfs
command -v jq >/dev/null || it_skip "jq not installed"
command -v fio >/dev/null || it_skip "fio not installed"
dev=$(it_loop_create 64M)
mkdir -p "$IT_TMP/jobs"
it_agent_start a --allow-device "$dev" --allow-dir "$IT_TMP/jobs" || exit 1
U=$a_URL/api/v1
T=$a_TOKEN
marker="$IT_TMP/pwned"

# job BODY-WITHOUT-BRACES FILE-TEXT: a job body with the file's text as fio_file.
job() { jq -nc --arg dev "$dev" --arg f "$2" "{device:\$dev,engine:\"fio\",fio_file:\$f$1}"; }

it_http POST "$U/jobs" "$T" "$(job "" $'[j]\nrw=read\nsize=1m\nexec_prerun=touch '"$marker"$'\n')"
it_eq "exec_prerun: 400 naming it" \
	"400 bad_request fio_file line 4 [j] exec_prerun: refused: it runs a command as root" \
	"$HTTP_STATUS $(jq -r '"\(.error.code) \(.error.message)"' <<<"$HTTP_BODY")"
it_check "... nothing ran" test ! -e "$marker"
it_http POST "$U/jobs" "$T" "$(job "" $'[j]\nioengine=external:/tmp/evil.so\n')"
it_eq "an external ioengine: 400 naming it" "400 ioengine" \
	"$HTTP_STATUS $(jq -r '.error.message' <<<"$HTTP_BODY" | sed -n 's/^fio_file line 2 \[j\] \([a-z_]*\): refused.*/\1/p')"
it_http POST "$U/jobs" "$T" "$(job "" $'[j]\nrw=write\nwrite_bw_log=/etc/bw\n')"
it_eq "a log outside the job: 400 naming it" "400 write_bw_log" \
	"$HTTP_STATUS $(jq -r '.error.message' <<<"$HTTP_BODY" | sed -n 's/^fio_file line 3 \[j\] \([a-z_]*\): refused.*/\1/p')"
it_http POST "$U/jobs" "$T" "$(job "" $'[j]\nrw=read\nfilename=/dev/vda\n')"
it_eq "another device: 400 naming filename" "400 filename" \
	"$HTTP_STATUS $(jq -r '.error.message' <<<"$HTTP_BODY" | sed -n 's/^fio_file line 3 \[j\] \([a-z_]*\): refused.*/\1/p')"
it_http POST "$U/jobs" "$T" "$(job "" $'[j]\nrw=read\nsize=1m\nbogus_option=1\n')"
it_eq "fio rejects it: 422 fio_rejected" "422 fio_rejected" \
	"$HTTP_STATUS $(jq -r .error.code <<<"$HTTP_BODY")"
it_check "... in fio's words" grep -q 'fio_file: fio rejects it (fio --parse-only, exit status 1): Bad option <bogus_option=1>' <<<"$(jq -r .error.message <<<"$HTTP_BODY")"
it_log "$(jq -r .error.message <<<"$HTTP_BODY")"
it_http POST "$U/jobs" "$T" "$(job "" $'[j]\nrw=sideways\n')"
it_eq "a bad rw: fio's own words" "422 fio_rejected" "$HTTP_STATUS $(jq -r .error.code <<<"$HTTP_BODY")"
it_http GET "$U/jobs" "$T"
it_eq "nothing was queued" 0 "$(jq '.jobs | length' <<<"$HTTP_BODY")"

file=$'; two workloads side by side, one reporting group\n[global]\nioengine=psync\nruntime=1s\ntime_based\nbs=4k\n\n[rand read]\nrw=randread\n\n[seq write]\nrw=write\nbs=64k\nrate=8m\n'
it_http POST "$U/jobs?dry_run=true" "$T" "$(job ',loops:2' "$file")"
it_eq "dry run: 200, 1 s a pass, the deadline 2 x 1 + 30" "200 2 32" \
	"$HTTP_STATUS $(jq -r '"\(.expected_runtime_s) \(.pass_deadline_s)"' <<<"$HTTP_BODY")"
it_check "... both sections' metrics" jq -e '(.metrics | index("read.iops")) and (.metrics | index("write.bw_mib"))' <<<"$HTTP_BODY"
it_job_run "a valid job file" "$U" "$T" "$(job ',loops:2' "$file")" 60
it_eq "... succeeds, 2 loops" "succeeded 2" "$(jq -r '"\(.state) \(.loops_done)"' <<<"$HTTP_BODY")"
it_http GET "$U/jobs/$JOB_ID?fields=passes,spec" "$T"
it_eq "... 2 passes stored" 2 "$(jq '.passes | length' <<<"$HTTP_BODY")"
it_check "... each with reads and writes" jq -e '[.passes[].metrics | (."read.iops" > 0) and (."write.bw_mib" > 0)] | all' <<<"$HTTP_BODY"
it_log "write MiB/s per pass (rate=8m): $(jq -c '[.passes[].metrics."write.bw_mib"]' <<<"$HTTP_BODY")"
it_check "... the write section held to its rate (8 MiB/s)" jq -e '[.passes[].metrics."write.bw_mib" < 9] | all' <<<"$HTTP_BODY"
it_check "... the spec keeps the file as given" jq -e --arg f "$file" '.spec.fio_file == $f' <<<"$HTTP_BODY"
it_http GET "$U/jobs/$JOB_ID/raw?loop=1" "$T"
it_check "... fio ran the rewritten file on /dev/$dev" grep -q "\"filename\" : \"/dev/$dev\"" <<<"$HTTP_BODY"

# In a directory: fio writes its files (and a log, a plain name) in the pass's own directory.
it_http POST "$U/jobs" "$T" "$(job ",directory:\"$IT_TMP/jobs\"" $'[w]\nrw=write\nbs=64k\nwrite_bw_log=/tmp/bw\n')"
it_eq "a directory job: a log path is refused" "400" "$HTTP_STATUS"
it_http POST "$U/jobs" "$T" "$(job ",directory:\"$IT_TMP/jobs\"" $'[w]\nrw=write\nbs=64k\n')"
it_eq "... and a section without size" \
	"400 fio_file [w]: size: required when the job writes files in a directory" \
	"$HTTP_STATUS $(jq -r .error.message <<<"$HTTP_BODY")"
it_job_run "a job file in a directory" "$U" "$T" \
	"$(job ",directory:\"$IT_TMP/jobs\"" $'[w]\nrw=write\nbs=64k\nsize=4m\nwrite_bw_log=bw\nfilename=data\n')" 60
it_eq "... succeeds" "succeeded" "$(jq -r .state <<<"$HTTP_BODY")"
it_eq "... and leaves nothing behind" "" "$(ls -A "$IT_TMP/jobs")"

# The fio object's options in fio's units, on real fio.
body=$(jq -nc --arg dev "$dev" '{device:$dev,engine:"fio",fio:{rw:"randrw",rwmixwrite:30,
	bssplit:"4k/50:16k/50",random_distribution:"zipf:1.2",percentage_random:90,norandommap:true,
	randrepeat:false,rate:"4m",iodepth:4,iodepth_batch:2,ioengine:"libaio",direct:true,
	fsync:0,end_fsync:true,invalidate:true,offset:"1m",thinktime:"50us",loops:2,
	runtime_s:"1s",ramp_time_s:"0s",time_based:true}}')
it_job_run "fio options with units" "$U" "$T" "$body" 60
it_eq "... succeeds" succeeded "$(jq -r .state <<<"$HTTP_BODY")"
it_http GET "$U/jobs/$JOB_ID?fields=passes,spec" "$T"
it_eq "... as given back: runtime 1 s, rate 4M, thinktime 50 us" "1 4M 50" \
	"$(jq -r '.spec.fio | "\(.runtime_s) \(.rate) \(.thinktime)"' <<<"$HTTP_BODY")"
it_log "read, write MiB/s (rate=4m each): $(jq -c '.passes[0].metrics | [."read.bw_mib", ."write.bw_mib"]' <<<"$HTTP_BODY")"
it_check "... reads and writes, each held to its rate (4 MiB/s)" jq -e '.passes[0].metrics | (."read.bw_mib" > 0) and (."write.bw_mib" > 0) and (."write.bw_mib" < 4.5) and (."read.bw_mib" < 4.5)' <<<"$HTTP_BODY"
it_done
