#!/bin/bash
# it_profiles.sh -- profiles the agent keeps, on real loop devices: applied when set, at a
# restart, to a loop device attached after the profile was set, and after another tool switched
# the scheduler; drift reported (API and /metrics) with enforce false and put back with enforce
# true; a job and a session on a profiled device win while they run and their restore puts the
# profile's values back; --allow-device bounds it; matches by identity (transport); bad input
# changes nothing; every write is in the audit log.
. "$(dirname "$0")/lib.sh"

it_need_root_sysfs
command -v fio >/dev/null || it_skip "fio not installed"
dev=$(it_loop_create 128M)
other=$(it_loop_create 64M)
late=$(it_loop_unused) || it_skip "no free loop device number"
mkdir -p "$IT_TMP/jobs"
q=/sys/block/$dev/queue
echo mq-deadline >"$q/scheduler"
echo 128 >"$q/read_ahead_kb"
echo 64 >"$q/nr_requests"
start_agent() {
	it_agent_start a --allow-device "$dev" --allow-device "$late" --allow-dir "$IT_TMP/jobs" \
		--drift-check-s 1 || { it_fail "agent starts"; it_done; }
}
start_agent
H=(-H "Authorization: Bearer $a_TOKEN")
api() { it_http "$1" "$a_URL/api/v1$2" "$a_TOKEN" "${3-}"; }
jqb() { echo "$HTTP_BODY" | jq -r "$1"; }
changes() { curl -s "${H[@]}" "$a_URL/api/v1/changes?limit=1000" | jq -r "$1"; }
state_is() { api GET "/profiles/$1"; [ "$(jqb ".devices[] | select(.device == \"$2\") | .state")" = "$3" ]; }
sys_is() { [ "$(it_sys "$1" "$2")" = "$3" ]; }

# 1. Bad input changes nothing: sysfs, the profiles and the audit log stay as they were.
before_sys="$(it_sys "$dev" read_ahead_kb) $(it_sys "$dev" nr_requests) $(it_sys "$dev" scheduler)"
n_changes=$(changes '.changes | length')
body='{"match":{"devices":["'$dev'"]},"params":{"read_ahead_kb":4096,"nr_requests":"010"}}'
api PUT /profiles/db "$body"
it_eq "a plain decimal integer is required (422)" 422 "$HTTP_STATUS"
api PUT /profiles/db '{"match":{"devices":["'$dev'"]},"params":{"no_such_knob":1}}'
it_eq "an unknown parameter is refused" unknown_param "$(jqb .error.code)"
api PUT /profiles/db '{"match":{"devices":["'$other'"]},"params":{"read_ahead_kb":256}}'
it_eq "a device outside --allow-device is 403" 403 "$HTTP_STATUS"
it_check "... and the message names it" grep -q "$other" <<<"$(jqb .error.message)"
api PUT /profiles/db '{"match":{"model":"ST4000\u001b[2J"},"params":{"read_ahead_kb":256}}'
it_eq "an identity value that could never match (an escape) is 400" 400 "$HTTP_STATUS"
api PUT /profiles/db '{"match":{"devices":["'$dev'"]},"params":{"iosched.fifo_batch":8}}'
it_eq "iosched.* without its scheduler is refused" 422 "$HTTP_STATUS"
api PUT '/profiles/..%2fx' '{"match":{"devices":["'$dev'"]},"params":{"read_ahead_kb":256}}'
it_check "a traversal in the name never reaches a handler that writes" [ "$HTTP_STATUS" -ge 400 ]
api PUT /profiles/db '{"match":{"devices":["'$dev'"]},"params":{"read_ahead_kb":256},"force":1}'
it_eq "an unknown field is 400" 400 "$HTTP_STATUS"
api PUT /profiles/db '{"match":{"devices":["'$dev'"]},"params":{"nr_requests":100000}}'
it_eq "a value the kernel refuses is 422 before any write (its limit is known)" \
	"422 invalid_value null" "$HTTP_STATUS $(jqb .error.code) $(jqb .rolled_back)"
it_eq "nothing changed in sysfs" "$before_sys" \
	"$(it_sys "$dev" read_ahead_kb) $(it_sys "$dev" nr_requests) $(it_sys "$dev" scheduler)"
api GET /profiles
it_eq "no profile was stored" 0 "$(jqb '.profiles | length')"
it_eq "the refused requests wrote nothing" "$n_changes" "$(changes '.changes | length')"

# 1b. Identity matches, live: the agent reads what the device is (GET /devices/{dev}: a loop
# device's transport is "loop"); a profile matching transport loop holds it, one matching
# transport nvme (or a model a loop device does not report) does not apply to it and writes
# nothing.
api GET "/devices/$dev"
it_eq "the agent reports the loop device's transport" loop "$(jqb '.identity.transport')"
api PUT /profiles/byid '{"match":{"devices":["'$dev'"],"transport":["nvme","loop"]},"params":{"read_ahead_kb":1024},"enforce":false}'
it_eq "a profile matching transport loop is set (201)" 201 "$HTTP_STATUS"
it_eq "... and holds the loop device" held "$(jqb '.devices[] | select(.device == "'$dev'") | .state')"
it_eq "... its value written" 1024 "$(it_sys "$dev" read_ahead_kb)"
api PUT /profiles/byid '{"match":{"devices":["'$dev'"],"transport":"nvme"},"params":{"read_ahead_kb":512},"enforce":false}'
it_eq "replaced by one matching transport nvme (200)" 200 "$HTTP_STATUS"
it_eq "... which does not apply to the loop device" "" \
	"$(jqb '.devices[] | select(.device == "'$dev'") | .state')"
it_eq "... and writes nothing" 1024 "$(it_sys "$dev" read_ahead_kb)"
api PUT /profiles/byid '{"match":{"devices":["'$dev'"],"model":"ST4000NM0035"},"params":{"read_ahead_kb":512},"enforce":false}'
it_eq "a model the loop device does not report matches nothing" "" \
	"$(jqb '.devices[] | select(.device == "'$dev'") | .state')"
it_eq "... nothing written" 1024 "$(it_sys "$dev" read_ahead_kb)"
api DELETE /profiles/byid
it_eq "deleted" 200 "$HTTP_STATUS"
echo 128 >"$q/read_ahead_kb"

# 2. Dry run: what would be done, nothing written.
api PUT "/profiles/db?dry_run=true" '{"match":{"devices":["'$dev'"]},"params":{"read_ahead_kb":4096}}'
it_eq "dry run is 200" 200 "$HTTP_STATUS"
it_eq "dry run says pending" pending "$(jqb '.profile.devices[0].state')"
it_eq "dry run shows the live value" 128 "$(jqb '.profile.devices[0].params.read_ahead_kb.live')"
it_eq "dry run wrote nothing" 128 "$(it_sys "$dev" read_ahead_kb)"

# 3. Applied when set.
api PUT /profiles/db '{"match":{"devices":["'$dev'"]},"params":{"read_ahead_kb":4096,"nr_requests":32},"enforce":false}'
it_eq "PUT creates (201)" 201 "$HTTP_STATUS"
it_eq "held" held "$(jqb '.devices[0].state')"
it_eq "read_ahead_kb applied" 4096 "$(it_sys "$dev" read_ahead_kb)"
it_eq "nr_requests applied" 32 "$(it_sys "$dev" nr_requests)"
it_eq "the write is audited with the profile as origin" \
	"profile db set by request" "$(changes '.changes[0].origin' | cut -c1-25)"

# 4. Drift with enforce false: reported, not put back (API and /metrics).
echo 96 >"$q/nr_requests"
api GET /profiles/db
it_eq "drifted" drifted "$(jqb '.devices[0].state')"
it_eq "the live value" 96 "$(jqb '.devices[0].params.nr_requests.live')"
it_eq "the wanted value" 32 "$(jqb '.devices[0].params.nr_requests.wanted')"
it_check "since when" [ "$(jqb '.devices[0].params.nr_requests.since')" != null ]
metric() { curl -s "${H[@]}" "$a_URL/metrics" | grep "^fleettune_profile_drift{profile=\"db\",device=\"$dev\",param=\"$1\"}" | awk '{print $2}'; }
it_eq "/metrics: nr_requests drifted" 1 "$(metric nr_requests)"
it_eq "/metrics: read_ahead_kb held" 0 "$(metric read_ahead_kb)"
sleep 2.5
it_eq "not put back with enforce false" 96 "$(it_sys "$dev" nr_requests)"

# 5. enforce true: put back.
api PUT /profiles/db '{"match":{"devices":["'$dev'"]},"params":{"read_ahead_kb":4096,"nr_requests":32},"enforce":true}'
it_eq "PUT replaces (200)" 200 "$HTTP_STATUS"
it_eq "nr_requests put back by the new PUT" 32 "$(it_sys "$dev" nr_requests)"
echo 100 >"$q/nr_requests"
it_check "drift put back within seconds" it_wait_for "nr_requests 32" 10 sys_is "$dev" nr_requests 32
it_check "state reapplied" it_wait_for reapplied 5 state_is db "$dev" reapplied
it_eq "what was put back" "nr_requests 100 -> 32" "$(jqb '.devices[0].reapplied.what')"
it_eq "/metrics: no drift" 0 "$(metric nr_requests)"
it_eq "the put-back is audited" "profile db put back drift" \
	"$(changes '[.changes[] | select(.name == "nr_requests")][0].origin')"

# 6. Another tool switches the scheduler (which resets nr_requests): put back.
echo none >"$q/scheduler"
it_check "nr_requests put back after a scheduler switch" it_wait_for "nr_requests 32" 10 \
	sys_is "$dev" nr_requests 32
# ... and a profile that holds the scheduler and its attributes gets all of them back.
api PUT /profiles/db '{"match":{"devices":["'$dev'"]},"params":{"scheduler":"mq-deadline","iosched.fifo_batch":8,"read_ahead_kb":4096}}'
it_eq "the profile with a scheduler is set" 200 "$HTTP_STATUS"
it_eq "fifo_batch 8" 8 "$(cat "$q/iosched/fifo_batch")"
echo none >"$q/scheduler"
it_check "scheduler put back" it_wait_for "mq-deadline" 10 sys_is "$dev" scheduler mq-deadline
it_check "fifo_batch put back after the switch" it_wait_for "fifo_batch 8" 10 \
	bash -c "[ \"\$(cat $q/iosched/fifo_batch 2>/dev/null)\" = 8 ]"

# 7. A restart applies it (the agent runs at boot).
kill -TERM "$a_PID"
wait "$a_PID" 2>/dev/null
echo 512 >"$q/read_ahead_kb"
echo 16 >"$q/iosched/fifo_batch"
start_agent
it_eq "read_ahead_kb applied at start" 4096 "$(it_sys "$dev" read_ahead_kb)"
it_eq "fifo_batch applied at start" 8 "$(cat "$q/iosched/fifo_batch")"
it_eq "audited as at agent start" "profile db at agent start" \
	"$(changes '[.changes[] | select(.name == "read_ahead_kb")][0].origin')"

# 8. A job on the profiled device wins while it runs; its restore puts the profile back.
job='{"device":"'$dev'","directory":"'$IT_TMP/jobs'","engine":"fio","loops":2,
 "fio":{"rw":"write","bs":"64k","size":"8M","ioengine":"psync","runtime_s":2,"time_based":true,"rate_iops":1024},
 "params":{"read_ahead_kb":256}}'
api POST /jobs "$job"
jid=$(jqb .id)
job_running() { api GET "/jobs/$jid"; [ "$(jqb .state)" = running ]; }
job_over() { api GET "/jobs/$jid"; case $(jqb .state) in succeeded | failed | cancelled) return 0 ;; esac; return 1; }
it_check "job $jid runs" it_wait_for running 20 job_running
it_check "the job's value is there while it runs" it_wait_for 256 5 sys_is "$dev" read_ahead_kb 256
it_check "the profile yields to the job" it_wait_for yielded 5 state_is db "$dev" yielded
it_eq "... and names it" "job $jid" "$(jqb '.devices[0].owner')"
sleep 1.5
it_eq "the profile did not fight the job" 256 "$(it_sys "$dev" read_ahead_kb)"
it_check "job $jid ends" it_wait_for "job end" 60 job_over
it_eq "job succeeded" succeeded "$(jqb .state)"
it_eq "the job's passes were not disturbed" null "$(jqb .params_changed)"
it_eq "the job's restore put the profile's value back" 4096 "$(it_sys "$dev" read_ahead_kb)"
kept_again() { state_is db "$dev" held || state_is db "$dev" reapplied; }
it_check "the profile holds again" it_wait_for "held" 5 kept_again

# 9. A profile set while a session owns the device is applied when the session ends; the
# session's restore puts back its snapshot first.
api POST "/devices/$dev/sessions" '{"ttl_s":120}'
sid=$(jqb .id)
api PUT /profiles/db '{"match":{"devices":["'$dev'"]},"params":{"scheduler":"mq-deadline","iosched.fifo_batch":8,"read_ahead_kb":1024}}'
it_eq "PUT during a session is accepted" 200 "$HTTP_STATUS"
it_eq "... and yields" yielded "$(jqb '.devices[0].state')"
it_eq "nothing written inside the session" 4096 "$(it_sys "$dev" read_ahead_kb)"
api PATCH "/devices/$dev/params" '{"params":{"read_ahead_kb":2048}}'
sleep 1.5
it_eq "the session's own write stands" 2048 "$(it_sys "$dev" read_ahead_kb)"
api DELETE "/sessions/$sid?restore=true"
it_check "after the session the profile's new value" it_wait_for 1024 10 sys_is "$dev" read_ahead_kb 1024
it_eq "audited as after the session let go" "profile db after session $sid let go" \
	"$(changes '[.changes[] | select(.name == "read_ahead_kb")][0].origin')"

# 10. A loop device attached after the profile was set gets it.
api PUT /profiles/late '{"match":{"devices":["'$late'"]},"params":{"read_ahead_kb":768,"nr_requests":48}}'
it_eq "a profile for a device that is not there yet" 201 "$HTTP_STATUS"
it_eq "... is absent" absent "$(jqb '.devices[0].state')"
it_check "attach $late" it_loop_attach_at "$late" 64M
it_check "$late gets read_ahead_kb" it_wait_for 768 10 sys_is "$late" read_ahead_kb 768
it_check "$late gets nr_requests" it_wait_for 48 5 sys_is "$late" nr_requests 48
it_eq "audited as when it appeared" "profile late when $late appeared" \
	"$(changes "[.changes[] | select(.device == \"$late\")][0].origin")"

# 11. Patterns match what --allow-device allows and report the rest.
api PUT /profiles/wide '{"match":{"devices":["'$other'","nomatch*"]},"params":{"add_random":0}}'
it_eq "exact names stay bounded by --allow-device" 403 "$HTTP_STATUS"
pat="${other%?}?"
api PUT /profiles/wide '{"match":{"devices":["'$pat'"]},"params":{"wbt_lat_usec":0}}'
it_check "a pattern is accepted ($HTTP_STATUS)" [ "$HTTP_STATUS" = 201 ]
it_eq "a device it matches outside --allow-device is not written" not_allowed \
	"$(jqb "[.devices[] | select(.device == \"$other\")][0].state")"

# 12. DELETE with restore puts back what the profile found.
api DELETE "/profiles/late?restore=true"
it_eq "delete is 200" 200 "$HTTP_STATUS"
it_eq "restored" "ok" "$(jqb '.restored[0].outcome' | cut -c1-2)"
api GET /profiles/late
it_eq "gone" 404 "$HTTP_STATUS"
api DELETE /profiles/late
it_eq "deleting it again is 404" 404 "$HTTP_STATUS"

# 13. One validation rule (issue 31 item 18): an nr_requests the kernel would refuse is 422
# naming the limit whether or not a session owns the device (before: 201 while a session owned
# it, failing later), and the same for a PATCH; nothing stored, nothing written.
nr0=$(it_sys "$dev" nr_requests)
api POST "/devices/$dev/sessions" '{"ttl_s":60}'
sid=$(jqb .id)
api PUT /profiles/huge '{"match":{"devices":["'$dev'"]},"params":{"nr_requests":100000}}'
owned="$HTTP_STATUS $(jqb .error.code)"
msg_owned=$(jqb .error.message)
api DELETE "/sessions/$sid"
api PUT /profiles/huge '{"match":{"devices":["'$dev'"]},"params":{"nr_requests":100000}}'
it_eq "nr_requests 100000, a session owning the device: 422 invalid_value" "422 invalid_value" "$owned"
it_eq "... and unowned: the same" "422 invalid_value" "$HTTP_STATUS $(jqb .error.code)"
it_eq "... with the same message" "$msg_owned" "$(jqb .error.message)"
it_check "... naming the kernel's limit" grep -q "100000" <<<"$msg_owned"
api PATCH "/devices/$dev/params" '{"params":{"nr_requests":100000}}'
it_eq "a PATCH of it: 422 invalid_value, no rollback needed" "422 invalid_value null" \
	"$HTTP_STATUS $(jqb .error.code) $(jqb .rolled_back)"
api GET /profiles/huge
it_eq "nothing stored" 404 "$HTTP_STATUS"
it_eq "nothing written" "$nr0" "$(it_sys "$dev" nr_requests)"

# 14. DELETE ?restore=true while a job owns the device (issue 31 item 19): the restore is owed
# and made when the job ends (before: the values stayed for good).
api GET /profiles
for name in $(jqb '.profiles[].name'); do api DELETE "/profiles/$name"; done
ra0=$(it_sys "$dev" read_ahead_kb)
api PUT /profiles/owed '{"match":{"devices":["'$dev'"]},"params":{"read_ahead_kb":3584}}'
it_eq "profile owed set" "201 3584" "$HTTP_STATUS $(it_sys "$dev" read_ahead_kb)"
api POST /jobs '{"device":"'$dev'","engine":"fio","fio":{"rw":"randread","bs":"4k","runtime_s":30,"time_based":true,"rate_iops":1024,"ioengine":"psync"}}'
jid=$(jqb .id)
job_running() { api GET "/jobs/$jid"; [ "$(jqb .state)" = running ]; }
it_check "a job runs on $dev" it_wait_for "job running" 20 job_running
api DELETE "/profiles/owed?restore=true"
it_eq "deleted while the job owns the device: the restore is owed" \
	"200 owed: job $jid owns it; put back when it lets go" "$HTTP_STATUS $(jqb '.restored[0].outcome')"
sleep 2
it_eq "... the value stays while the job runs" 3584 "$(it_sys "$dev" read_ahead_kb)"
api DELETE "/jobs/$jid"
it_check "the job ends: the device is put back" it_wait_for "owed restore" 15 sys_is "$dev" read_ahead_kb "$ra0"
it_check "... audited as the deleted profile's" \
	bash -c "curl -s -H 'Authorization: Bearer $a_TOKEN' '$a_URL/api/v1/changes?limit=20' | grep -q 'profile owed deleted by .*once its owner let go'"

it_done
