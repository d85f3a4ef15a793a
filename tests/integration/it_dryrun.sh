#!/usr/bin/env bash
# it_dryrun.sh -- validate-only requests and strict query parameters against a real agent on a
# real loop device: a dry-run PATCH with a scheduler switch changes nothing and refuses exactly as
# the real PATCH does, a dry-run job is checked like a real submit and queues nothing, and every
# route of the table refuses a query parameter it does not take.
. "$(dirname "$0")/lib.sh"
it_need_root_sysfs
command -v fio >/dev/null || it_skip "fio not installed"
command -v jq >/dev/null || it_skip "jq not installed"

dev=$(it_loop_create 256M)
it_agent_start a --allow-device "$dev" || exit 1
U=$a_URL/api/v1
T=$a_TOKEN
Q=/sys/block/$dev/queue
it_log "agent $a_URL, device $dev"

# every readable file of the device's queue/ (iosched/ included), name=value, one a line
device_state() {
	local f
	for f in $(find "$Q" -type f | sort); do
		[ -r "$f" ] && printf '%s=%s\n' "${f#$Q/}" "$(cat "$f" 2>/dev/null)"
	done
}
changes_count() { it_http GET "$U/changes?device=$dev&limit=10000" "$T"; echo "$HTTP_BODY" | jq '.changes|length'; }
jobs_count() { it_http GET "$U/jobs?limit=500" "$T"; echo "$HTTP_BODY" | jq '.jobs|length'; }

it_http GET "$U/health" ""
it_eq "health lists the features" '["dry_run","strict_query","long_poll","profiles","job_applied","start_at","until_end","pass_deadline","workloads","device_lanes","fio_file"]' "$(echo "$HTTP_BODY" | jq -c .features)"

# A session puts the device back at the end (loop devices keep their queue settings after
# losetup -d, and the next test may get the same one).
it_http POST "$U/devices/$dev/sessions" "$T" '{"ttl_s":600}'
it_eq "session opened" 201 "$HTTP_STATUS"
sid=$(echo "$HTTP_BODY" | jq .id)
# Start from "none" so that the dry run switches the scheduler.
it_http PUT "$U/devices/$dev/params/scheduler" "$T" '{"value":"none"}'
it_eq "scheduler none to start" 200 "$HTTP_STATUS"
nr0=$(cat "$Q/nr_requests")
before=$(device_state)
c0=$(changes_count)

# 1. A dry run with a scheduler switch, nr_requests and an iosched attribute: 200, nothing written.
it_http PATCH "$U/devices/$dev/params?dry_run=true" "$T" \
	'{"params":{"scheduler":"deadline","nr_requests":64,"iosched.fifo_batch":32}}'
it_eq "dry run: 200" 200 "$HTTP_STATUS"
it_eq "dry run says so" true "$(echo "$HTTP_BODY" | jq .dry_run)"
it_eq "scheduler would be mq-deadline" mq-deadline "$(echo "$HTTP_BODY" | jq -r .would_apply.scheduler.value)"
it_eq "the legacy name is mapped" mq-deadline "$(echo "$HTTP_BODY" | jq -r .would_apply.scheduler.mapped_to)"
it_eq "scheduler previous" none "$(echo "$HTTP_BODY" | jq -r .would_apply.scheduler.previous)"
it_eq "nr_requests previous" "$nr0" "$(echo "$HTTP_BODY" | jq .would_apply.nr_requests.previous)"
it_eq "nr_requests value" 64 "$(echo "$HTTP_BODY" | jq .would_apply.nr_requests.value)"
it_eq "the iosched item is checked after the switch" after_switch \
	"$(echo "$HTTP_BODY" | jq -r '.would_apply["iosched.fifo_batch"].checked')"
it_eq "it does not exist yet" null "$(echo "$HTTP_BODY" | jq '.would_apply["iosched.fifo_batch"].previous')"
it_eq "every parameter of the device is unchanged" "$before" "$(device_state)"
it_eq "no audit row" "$c0" "$(changes_count)"
it_eq "the kernel still has none" none "$(it_sys "$dev" scheduler)"
it_http GET "$U/devices/$dev/params/nr_requests" "$T"
it_eq "GET params shows nothing new" "$nr0" "$(echo "$HTTP_BODY" | jq .value)"

# 2. Refusals: exactly the real PATCH's status and body (max_sectors_kb above max_hw_sectors_kb,
# cfq, setra with read_ahead_kb, an unknown name), and nothing written by either.
hw=$(cat "$Q/max_hw_sectors_kb")
for body in \
	"{\"params\":{\"max_sectors_kb\":$((hw + 1))}}" \
	'{"params":{"scheduler":"cfq"}}' \
	'{"params":{"setra":512,"read_ahead_kb":256}}' \
	'{"params":{"scheduler":"deadline","nr_requests":64,"no_such_param":1}}'; do
	it_http PATCH "$U/devices/$dev/params?dry_run=true" "$T" "$body"
	ds=$HTTP_STATUS db=$HTTP_BODY
	it_http PATCH "$U/devices/$dev/params" "$T" "$body"
	it_eq "$body: dry run answers as the PATCH ($HTTP_STATUS)" "$HTTP_STATUS $HTTP_BODY" "$ds $db"
done
it_http PATCH "$U/devices/$dev/params?dry_run=true" "$T" "{\"params\":{\"max_sectors_kb\":$((hw + 1))}}"
it_eq "max_sectors_kb: 422 naming the kernel's maximum" \
	"422 max_sectors_kb: $((hw + 1)) is above the maximum $hw" \
	"$HTTP_STATUS $(echo "$HTTP_BODY" | jq -r .error.message)"
it_eq "device unchanged after the refusals" "$before" "$(device_state)"

# 3. A dry-run job: the real submit's 400 for iodepth 5000, nothing queued; a good one is
# normalised, with its metrics and expected runtime, and still nothing queued.
n0=$(jobs_count)
job='{"device":"'$dev'","engine":"fio","fio":{"rw":"randwrite","bs":"1m","iodepth":5000,"runtime_s":1,"time_based":true}}'
it_http POST "$U/jobs?dry_run=true" "$T" "$job"
ds=$HTTP_STATUS db=$HTTP_BODY
it_http POST "$U/jobs" "$T" "$job"
it_eq "iodepth 5000: the dry run answers as the POST" "$HTTP_STATUS $HTTP_BODY" "$ds $db"
it_eq "iodepth 5000 is 400" 400 "$ds"
it_eq "the message names the limit" "fio.iodepth: must be 1..4096" "$(echo "$db" | jq -r .error.message)"
job='{"device":"'$dev'","engine":"fio","loops":3,"fio":{"rw":"randread","bs":"1m","iodepth":8,"runtime_s":2,"time_based":true},"params":{"nr_requests":64}}'
it_http POST "$U/jobs?dry_run=true" "$T" "$job"
it_eq "a good job: 200" 200 "$HTTP_STATUS"
it_eq "normalised size" 1M "$(echo "$HTTP_BODY" | jq -r .job.fio.bs)"
it_eq "expected runtime: 3 loops x 2 s" 6 "$(echo "$HTTP_BODY" | jq .expected_runtime_s)"
it_eq "randread reports read.bw_mib" true "$(echo "$HTTP_BODY" | jq '.metrics|index("read.bw_mib")!=null')"
it_eq "randread reports no write.*" 0 "$(echo "$HTTP_BODY" | jq '[.metrics[]|select(startswith("write."))]|length')"
it_eq "GET /jobs unchanged" "$n0" "$(jobs_count)"
it_eq "device unchanged after the job dry runs" "$before" "$(device_state)"

# 4. Strict queries on every route of the table: an unknown key is 400 before any handler runs.
ids='1'
routes=$(grep -oE '\{ "(GET|PUT|POST|PATCH|DELETE)", "[^"]+"' "$FT_SOURCE_DIR/agent/api/api.c" | sed 's/{ "\([A-Z]*\)", "\(.*\)"/\1 \2/')
[ "$(echo "$routes" | wc -l)" -ge 20 ] || it_fail "route table parsed: $(echo "$routes" | wc -l) routes"
while read -r method pattern; do
	path=$(echo "$pattern" | sed "s/{dev}/$dev/; s/{name}/nr_requests/; s/{id}/$ids/")
	body=""
	case "$method $pattern" in
	"PUT "*params/*) body='{"value":32}' ;;
	"PATCH "*) body='{"params":{"nr_requests":32}}' ;;
	"POST /api/v1/jobs") body='{"device":"'$dev'","engine":"fio","fio":{"runtime_s":1,"time_based":true}}' ;;
	"POST "*sessions) body='{"ttl_s":60}' ;;
	"PUT /api/v1/sysctl"*) body='{"value":10}' ;;
	esac
	url=$a_URL$path
	it_http "$method" "$url?no_such_key=1" "$T" "$body"
	it_eq "$method $pattern?no_such_key=1: 400 unknown_query_param" "400 unknown_query_param" \
		"$HTTP_STATUS $(echo "$HTTP_BODY" | jq -r .error.code)"
done <<<"$routes"
it_eq "no request of the loop changed the device" "$before" "$(device_state)"
it_eq "no request of the loop wrote an audit row" "$c0" "$(changes_count)"
it_eq "no request of the loop queued a job" "$n0" "$(jobs_count)"

# dry_run is a boolean: anything but true/false is refused, nothing written.
it_http PATCH "$U/devices/$dev/params?dry_run=yes" "$T" '{"params":{"nr_requests":32}}'
it_eq "PATCH ?dry_run=yes: 400" 400 "$HTTP_STATUS"
it_http POST "$U/jobs?dry_run=yes" "$T" '{"device":"'$dev'","engine":"fio"}'
it_eq "POST /jobs?dry_run=yes: 400" 400 "$HTTP_STATUS"
it_http PATCH "$U/devices/$dev/params?dry_run=true&dry_run=false" "$T" '{"params":{"nr_requests":32}}'
it_eq "dry_run twice: 400" 400 "$HTTP_STATUS"
it_http GET "$U/results?limit=%zz" "$T"
it_eq "results?limit=%zz: 400" 400 "$HTTP_STATUS"
it_http GET "$U/sessions?state=bogus" "$T"
it_eq "sessions?state=bogus: 400 listing the states" "400 true" \
	"$HTTP_STATUS $(echo "$HTTP_BODY" | jq '.error.message|test("open, closed, restored")')"
it_http GET "$U/jobs?state=bogus" "$T"
it_eq "jobs?state=bogus: 400 listing the states" "400 true" \
	"$HTTP_STATUS $(echo "$HTTP_BODY" | jq '.error.message|test("queued, running, succeeded")')"
it_eq "device unchanged at the end" "$before" "$(device_state)"
it_eq "no audit row at the end" "$c0" "$(changes_count)"
it_http DELETE "$U/sessions/$sid?restore=true" "$T"
it_eq "the device is put back as it was before the test" 200 "$HTTP_STATUS"

it_done
