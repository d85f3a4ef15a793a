#!/bin/bash
# it_openapi.sh -- schema/openapi.yaml stays true: it is a valid OpenAPI 3.0 document, it has
# exactly the routes and query parameters of agent/api/api.c's table and the engine option limits of
# agent/{fio,dd,bonnie,iozone}.c, and real responses of a running agent (every GET route,
# representative PUT/PATCH/POST/DELETE, dry runs and error answers) match its schemas (ajv).
. "$(dirname "$0")/lib.sh"

SPEC=$FT_SOURCE_DIR/schema/openapi.yaml
OA_DIR=$FT_SOURCE_DIR/tests/openapi

command -v node >/dev/null || it_skip "node not installed"
command -v npm >/dev/null || it_skip "npm not installed"

# oa_npm_ci: install the validators from package-lock.json once (re-run when the lock changes).
oa_npm_ci() {
	exec 8>"$OA_DIR/.npm-install.lock"
	flock 8
	if [ ! -f "$OA_DIR/node_modules/ajv/package.json" ] ||
		! cmp -s "$OA_DIR/package-lock.json" "$OA_DIR/node_modules/.package-lock.json.ft"; then
		it_log "npm ci --prefix $OA_DIR"
		if ! npm ci --prefix "$OA_DIR" --no-audit --no-fund --loglevel=error >"$IT_TMP/npm.log" 2>&1; then
			cat "$IT_TMP/npm.log" >&2
			flock -u 8
			it_fail "npm ci --prefix tests/openapi"
			it_done
		fi
		cp "$OA_DIR/package-lock.json" "$OA_DIR/node_modules/.package-lock.json.ft"
	fi
	flock -u 8
	exec 8>&-
}

# oa_node ARGS...: run validate.js; its ok / not ok lines count into this test.
oa_node() {
	local out line
	out="$IT_TMP/node.out"
	node "$OA_DIR/validate.js" "$@" >"$out" 2>&1
	while IFS= read -r line; do
		case "$line" in
		"ok - "*) it_pass "${line#ok - }" ;;
		"not ok - "*) it_fail "${line#not ok - }" ;;
		*) echo "# $line" ;;
		esac
	done <"$out"
}

oa_npm_ci

# 1. The document itself, and the route table against it (no agent needed).
oa_node spec "$SPEC"
oa_node routes "$SPEC" "$FT_SOURCE_DIR/agent/api/api.c"
oa_node engines "$SPEC" "$FT_SOURCE_DIR/agent"
it_need_built "$AGENT_BIN"
if [ "$(id -u)" != 0 ] || ! grep -q ' /sys sysfs rw' /proc/mounts; then
	[ "$IT_FAILS" = 0 ] || it_done
	it_skip "static checks passed; live checks need root and writable /sys"
fi

# 2. Live responses.
it_need_root_sysfs
command -v fio >/dev/null || it_skip "fio not installed"
dev=$(it_loop_create 128M)
mkdir -p "$IT_TMP/jobs"
it_agent_start a --allow-device "$dev" --allow-dir "$IT_TMP/jobs" --allow-format || { it_fail "agent starts"; it_done; }

CASES=$IT_TMP/cases.tsv
: >"$CASES"
N=0

# oa_call DESC METHOD PATTERN PATH [BODY [valid|invalid]] [--no-token]: one request; records the
# response (and the request body with whether the spec should accept it) for validate.js.
oa_call() {
	local desc=$1 method=$2 pattern=$3 path=$4 body=${5-} expect=${6-} token=${OA_TOKEN:-$a_TOKEN}
	local out req="-" meta args
	[ "${7-}" = --no-token ] && token=""
	N=$((N + 1))
	out="$IT_TMP/resp-$N"
	args=(-s -o "$out" -w '%{http_code}\t%{content_type}' -X "$method" --max-time 30)
	[ -n "$token" ] && args+=(-H "Authorization: Bearer $token")
	if [ -n "$body" ]; then
		req="$IT_TMP/req-$N"
		printf '%s' "$body" >"$req"
		args+=(-H 'Content-Type: application/json' --data-binary "@$req")
	fi
	meta=$(curl "${args[@]}" "${OA_URL:-$a_URL}$path")
	OA_STATUS=${meta%%$'\t'*}
	OA_BODY=$(cat "$out")
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$desc" "$method" "$pattern" "$OA_STATUS" \
		"${meta#*$'\t'}" "$out" "$req" "${expect:--}" >>"$CASES"
}

P='/api/v1/devices/{dev}/params'
PN='/api/v1/devices/{dev}/params/{name}'
oa_call "health" GET /api/v1/health /api/v1/health "" "" --no-token
oa_call "metrics" GET /metrics /metrics
oa_call "metrics without a token" GET /metrics /metrics "" "" --no-token
it_eq "metrics without a token is 401" 401 "$OA_STATUS"
oa_call "devices" GET /api/v1/devices /api/v1/devices
oa_call "devices without a token" GET /api/v1/devices /api/v1/devices "" "" --no-token
oa_call "device" GET '/api/v1/devices/{dev}' "/api/v1/devices/$dev"
it_eq "a loop device's transport is loop" loop "$(echo "$OA_BODY" | jq -r .identity.transport)"
oa_call "device missing" GET '/api/v1/devices/{dev}' /api/v1/devices/nosuchdev0
it_eq "a missing device is 404" 404 "$OA_STATUS"
oa_call "device traversal" GET '/api/v1/devices/{dev}' /api/v1/devices/..%2f..%2fetc
# A SCSI disk with a model, firmware and serial, on a temp tree, serial hidden.
it_fake_scsi_device "$IT_TMP/root-b" sdb ST300MM0008 2.1 ATA Z1Z0ABCD
mkdir -p "$IT_TMP/root-b/proc/sys/kernel"
echo 6.1.0-18-amd64 >"$IT_TMP/root-b/proc/sys/kernel/osrelease"
if it_agent_start b --sysfs-root "$IT_TMP/root-b" --allow-device sdb --hide-serial; then
	OA_URL=$b_URL OA_TOKEN=$b_TOKEN oa_call "devices with identity" GET /api/v1/devices /api/v1/devices
	OA_URL=$b_URL OA_TOKEN=$b_TOKEN oa_call "device with identity" GET '/api/v1/devices/{dev}' /api/v1/devices/sdb
	it_eq "identity: model, firmware, transport, kernel" "ST300MM0008 2.1 scsi 6.1.0-18-amd64" \
		"$(echo "$OA_BODY" | jq -r '[.identity.model, .identity.firmware, .identity.transport, .host.kernel] | join(" ")')"
	it_eq "--hide-serial: the serial's hash" "sha256:acc459be013e9479" "$(echo "$OA_BODY" | jq -r .identity.serial)"
else
	it_fail "agent b starts on a temp tree"
fi
oa_call "params" GET "$P" "/api/v1/devices/$dev/params"
oa_call "params of a missing device" GET "$P" /api/v1/devices/nosuchdev0/params
oa_call "params traversal" GET "$P" /api/v1/devices/..%2f..%2fetc/params
oa_call "param nr_requests" GET "$PN" "/api/v1/devices/$dev/params/nr_requests"
oa_call "param scheduler" GET "$PN" "/api/v1/devices/$dev/params/scheduler"
oa_call "param unknown" GET "$PN" "/api/v1/devices/$dev/params/no_such_param"
oa_call "put nr_requests" PUT "$PN" "/api/v1/devices/$dev/params/nr_requests" '{"value":64}' valid
it_eq "put nr_requests is 200" 200 "$OA_STATUS"
oa_call "put legacy scheduler name" PUT "$PN" "/api/v1/devices/$dev/params/scheduler" \
	'{"value":"deadline"}' valid
oa_call "put above the kernel limit" PUT "$PN" "/api/v1/devices/$dev/params/nr_requests" \
	'{"value":100000000}' valid
it_eq "kernel rejection is 422" 422 "$OA_STATUS"
oa_call "put unknown field" PUT "$PN" "/api/v1/devices/$dev/params/nr_requests" \
	'{"value":64,"force":true}' invalid
it_eq "unknown field is 400" 400 "$OA_STATUS"
oa_call "put wrong type" PUT "$PN" "/api/v1/devices/$dev/params/nr_requests" '{"value":1.5}' invalid
oa_call "put malformed JSON" PUT "$PN" "/api/v1/devices/$dev/params/nr_requests" '{"value":' invalid
oa_call "put read-only" PUT "$PN" "/api/v1/devices/$dev/params/hw_sector_size" '{"value":512}' valid
oa_call "put too large" PUT "$PN" "/api/v1/devices/$dev/params/nr_requests" \
	"{\"value\":\"$(head -c 70000 /dev/zero | tr '\0' a)\"}"
it_eq "a 70 kB body is 413" 413 "$OA_STATUS"
oa_call "patch" PATCH "$P" "/api/v1/devices/$dev/params" \
	'{"params":{"scheduler":"mq-deadline","nr_requests":32,"iosched.fifo_batch":8}}' valid
it_eq "patch is 200" 200 "$OA_STATUS"
oa_call "patch rolled back" PATCH "$P" "/api/v1/devices/$dev/params" \
	'{"params":{"scheduler":"none","io_poll":1}}' valid
it_eq "patch with a bad value says rolled_back" true "$(echo "$OA_BODY" | jq -r .rolled_back)"
oa_call "patch empty" PATCH "$P" "/api/v1/devices/$dev/params" '{"params":{}}' invalid
oa_call "patch dry run" PATCH "$P" "/api/v1/devices/$dev/params?dry_run=true" \
	'{"params":{"scheduler":"kyber","nr_requests":64,"iosched.read_lat_nsec":2000000}}' valid
it_eq "patch dry run is 200" 200 "$OA_STATUS"
oa_call "patch dry run, legacy name" PATCH "$P" "/api/v1/devices/$dev/params?dry_run=true" \
	'{"params":{"scheduler":"deadline"}}' valid
oa_call "patch dry run refused" PATCH "$P" "/api/v1/devices/$dev/params?dry_run=true" \
	'{"params":{"max_sectors_kb":99999999}}' valid
it_eq "patch dry run above the kernel's maximum is 422" 422 "$OA_STATUS"
oa_call "patch, unknown query parameter" PATCH "$P" "/api/v1/devices/$dev/params?force=true" \
	'{"params":{"nr_requests":64}}' valid
it_eq "an unknown query parameter is 400" unknown_query_param "$(echo "$OA_BODY" | jq -r .error.code)"
oa_call "patch, dry_run=yes" PATCH "$P" "/api/v1/devices/$dev/params?dry_run=yes" \
	'{"params":{"nr_requests":64}}' valid
it_eq "dry_run=yes is 400" 400 "$OA_STATUS"

oa_call "session open" POST '/api/v1/devices/{dev}/sessions' "/api/v1/devices/$dev/sessions" \
	'{"ttl_s":120}' valid
sid=$(echo "$OA_BODY" | jq -r .id)
oa_call "session open, bad ttl type" POST '/api/v1/devices/{dev}/sessions' \
	"/api/v1/devices/$dev/sessions" '{"ttl_s":"long"}' invalid
oa_call "sessions" GET /api/v1/sessions "/api/v1/sessions?state=open"
oa_call "session" GET '/api/v1/sessions/{id}' "/api/v1/sessions/$sid"
oa_call "session missing" GET '/api/v1/sessions/{id}' /api/v1/sessions/999999
oa_call "session renew" POST '/api/v1/sessions/{id}/renew' "/api/v1/sessions/$sid/renew"
oa_call "session renew with a field" POST '/api/v1/sessions/{id}/renew' "/api/v1/sessions/$sid/renew" \
	'{"ttl_s":5}' invalid
oa_call "session end" DELETE '/api/v1/sessions/{id}' "/api/v1/sessions/$sid?restore=true"
it_eq "session end is 200" 200 "$OA_STATUS"
oa_call "session end again" DELETE '/api/v1/sessions/{id}' "/api/v1/sessions/$sid"
oa_call "session end, bad restore" DELETE '/api/v1/sessions/{id}' "/api/v1/sessions/$sid?restore=maybe"

# Sysctls are only read: a write without --allow-sysctl is refused before anything is touched.
oa_call "sysctls" GET /api/v1/sysctl /api/v1/sysctl
oa_call "sysctl" GET '/api/v1/sysctl/{name}' /api/v1/sysctl/vm.swappiness
oa_call "sysctl unknown" GET '/api/v1/sysctl/{name}' /api/v1/sysctl/vm.no_such
oa_call "sysctl write refused" PUT '/api/v1/sysctl/{name}' /api/v1/sysctl/vm.swappiness \
	'{"value":60}' valid
it_eq "sysctl write without --allow-sysctl is 403" 403 "$OA_STATUS"
oa_call "changes" GET /api/v1/changes "/api/v1/changes?device=$dev&limit=50"
oa_call "changes, bad limit" GET /api/v1/changes "/api/v1/changes?limit=0"

job='{"device":"'$dev'","directory":"'$IT_TMP/jobs'","engine":"fio","loops":1,
 "fio":{"rw":"randrw","bs":"4k","size":"8M","ioengine":"psync","runtime_s":1,"time_based":true,"rate_iops":1024},
 "params":{"nr_requests":16},"labels":{"suite":"openapi","quote":"a\"b"}}'
oa_call "job dry run, fio options in fio's units" POST /api/v1/jobs "/api/v1/jobs?dry_run=true" \
	'{"device":"'$dev'","engine":"fio","fio":{"rw":"randrw","rwmixwrite":30,"bssplit":"4k/50:64k/50","rate":"8m","thinktime":"10ms","runtime_s":"2s","ramp_time_s":"1s","time_based":true,"random_distribution":"zipf:1.2","loops":2}}' valid
it_eq "... is 200" 200 "$OA_STATUS"
oa_call "job dry run, a job file" POST /api/v1/jobs "/api/v1/jobs?dry_run=true" \
	'{"device":"'$dev'","engine":"fio","fio_file":"[global]\nruntime=1s\ntime_based\n[r]\nrw=randread\n"}' valid
it_eq "... is 200" 200 "$OA_STATUS"
oa_call "job dry run, a job file fio rejects" POST /api/v1/jobs "/api/v1/jobs?dry_run=true" \
	'{"device":"'$dev'","engine":"fio","fio_file":"[r]\nrw=randread\nbogus_option=1\n"}' valid
it_eq "... is 422 fio_rejected" "422 fio_rejected" "$OA_STATUS $(jq -r .error.code <<<"$OA_BODY")"
oa_call "job submit" POST /api/v1/jobs /api/v1/jobs "$job" valid
it_eq "job submit is 202" 202 "$OA_STATUS"
jid=$(echo "$OA_BODY" | jq -r .id)
job_done() {
	it_http GET "$a_URL/api/v1/jobs/$jid" "$a_TOKEN"
	case $(echo "$HTTP_BODY" | jq -r .state) in succeeded | failed | cancelled) return 0 ;; esac
	return 1
}
it_check "job $jid finishes" it_wait_for "job $jid" 60 job_done
oa_call "job" GET '/api/v1/jobs/{id}' "/api/v1/jobs/$jid"
it_eq "job succeeded" succeeded "$(echo "$OA_BODY" | jq -r .state)"
it_eq "the job recorded what its device is" loop "$(echo "$OA_BODY" | jq -r .identity.device.transport)"
jv=$(echo "$OA_BODY" | jq .version)
oa_call "job long-poll, nothing new" GET '/api/v1/jobs/{id}' \
	"/api/v1/jobs/$jid?wait_s=1&after=$jv&fields=state,progress,loops_done,passes"
it_eq "a long-poll on a finished job answers with its version" "$jv" "$(echo "$OA_BODY" | jq .version)"
oa_call "job long-poll, changed" GET '/api/v1/jobs/{id}' "/api/v1/jobs/$jid?wait_s=30&after=0"
oa_call "job long-poll without after" GET '/api/v1/jobs/{id}' "/api/v1/jobs/$jid?wait_s=5"
it_eq "wait_s without after is 400" 400 "$OA_STATUS"
oa_call "job, unknown field" GET '/api/v1/jobs/{id}' "/api/v1/jobs/$jid?fields=state,colour"
oa_call "job missing" GET '/api/v1/jobs/{id}' /api/v1/jobs/999999
oa_call "jobs" GET /api/v1/jobs "/api/v1/jobs?limit=10"
# The list's summary form leaves the identity out; fields=identity asks for it.
it_eq "the list's job has no identity member" false \
	"$(echo "$OA_BODY" | jq --argjson id "$jid" '.jobs[] | select(.id == $id) | has("identity")')"
oa_call "jobs, fields=identity" GET /api/v1/jobs "/api/v1/jobs?limit=10&fields=state,identity"
it_eq "fields=identity gives the list its identity" loop \
	"$(echo "$OA_BODY" | jq -r --argjson id "$jid" '.jobs[] | select(.id == $id) | .identity.device.transport')"
oa_call "jobs, bad state" GET /api/v1/jobs "/api/v1/jobs?state=sleeping"
oa_call "job raw" GET '/api/v1/jobs/{id}/raw' "/api/v1/jobs/$jid/raw?loop=1"
oa_call "job raw, missing loop" GET '/api/v1/jobs/{id}/raw' "/api/v1/jobs/$jid/raw?loop=9"
oa_call "results" GET /api/v1/results "/api/v1/results?device=$dev&label.suite=openapi&limit=5"
oa_call "results by param" GET /api/v1/results "/api/v1/results?param.nr_requests=16"
oa_call "results, unknown filter" GET /api/v1/results "/api/v1/results?colour=blue"
# A job with workloads (issue 29): its spec, passes' workloads and summary_workloads.
wjob='{"device":"'$dev'","directory":"'$IT_TMP/jobs'","engine":"fio","loops":1,
 "fio":{"size":"8M","ioengine":"psync","runtime_s":1,"time_based":true,"rate_iops":1024},
 "workloads":[{"name":"seq read 1M","fio":{"rw":"read","bs":"1m"}},{"name":"rand write 4k","fio":{"rw":"randwrite","bs":"4k"}}]}'
oa_call "workloads job dry run" POST /api/v1/jobs "/api/v1/jobs?dry_run=true" "$wjob" valid
oa_call "workloads job submit" POST /api/v1/jobs /api/v1/jobs "$wjob" valid
wid=$(echo "$OA_BODY" | jq -r .id)
oa_call "workloads job, until=end" GET '/api/v1/jobs/{id}' "/api/v1/jobs/$wid?wait_s=60&until=end"
it_eq "workloads job succeeded" succeeded "$(echo "$OA_BODY" | jq -r .state)"
it_eq "its pass has both workloads" 2 "$(echo "$OA_BODY" | jq '.passes[0].workloads|length')"
oa_call "workloads job, fields" GET '/api/v1/jobs/{id}' "/api/v1/jobs/$wid?fields=passes,summary_workloads"
oa_call "results by workload" GET /api/v1/results "/api/v1/results?workload=rand%20write%204k"
it_eq "results by workload: the job" "$wid" "$(echo "$OA_BODY" | jq '.results[0].id')"
oa_call "workloads job refused" POST /api/v1/jobs /api/v1/jobs \
	'{"device":"'$dev'","engine":"fio","workloads":[{"name":"a","fio":{"iodepth":0}}]}' invalid
oa_call "job cancel, finished" DELETE '/api/v1/jobs/{id}' "/api/v1/jobs/$jid"
it_eq "cancelling a finished job is 409" 409 "$OA_STATUS"
oa_call "job dry run" POST /api/v1/jobs "/api/v1/jobs?dry_run=true" "$job" valid
it_eq "job dry run is 200" 200 "$OA_STATUS"
oa_call "job dry run refused" POST /api/v1/jobs "/api/v1/jobs?dry_run=true" \
	'{"device":"'$dev'","engine":"fio","fio":{"iodepth":5000}}' invalid
it_eq "job dry run with iodepth 5000 is 400" 400 "$OA_STATUS"
oa_call "jobs, unknown query parameter" GET /api/v1/jobs "/api/v1/jobs?sort=id"
oa_call "metrics, unknown query parameter" GET /metrics "/metrics?format=json"
it_eq "/metrics refuses an unknown query parameter" 400 "$OA_STATUS"
oa_call "health, unknown query parameter" GET /api/v1/health "/api/v1/health?x=1" "" "" --no-token
oa_call "job submit, unknown fio option" POST /api/v1/jobs /api/v1/jobs \
	'{"device":"'$dev'","engine":"fio","fio":{"rw":"write","turbo":true}}' invalid
oa_call "job submit, no engine" POST /api/v1/jobs /api/v1/jobs '{"device":"'$dev'"}' invalid
oa_call "job submit, directory not allowed" POST /api/v1/jobs /api/v1/jobs \
	'{"device":"'$dev'","engine":"fio","directory":"/","fio":{"size":"1M"}}' valid
# A job with a filesystem (ext4 fits the 128 MiB device): its dry run, a refusal, the job.
if command -v mkfs.ext4 >/dev/null; then
	fsjob='{"device":"'$dev'","engine":"fio","loops":1,"fio":{"rw":"write","bs":"64k","size":"8M",
 "ioengine":"psync","runtime_s":1,"time_based":true,"rate_iops":1024},
 "filesystem":{"type":"ext4","mkfs":["-b","4096","-E","stride=16,stripe_width=32"],"mount":"noatime,data=writeback"}}'
	oa_call "filesystem job dry run" POST /api/v1/jobs "/api/v1/jobs?dry_run=true" "$fsjob" valid
	it_eq "filesystem job dry run is 200" 200 "$OA_STATUS"
	oa_call "filesystem option outside the table" POST /api/v1/jobs /api/v1/jobs \
		'{"device":"'$dev'","engine":"fio","fio":{"size":"8M"},"filesystem":{"type":"ext4","mount":"journal_path=/etc/passwd"}}' valid
	it_eq "an option outside the table is 422" 422 "$OA_STATUS"
	oa_call "filesystem job submit" POST /api/v1/jobs /api/v1/jobs "$fsjob" valid
	fid=$(echo "$OA_BODY" | jq -r .id)
	it_wait_for "filesystem job $fid ends" 60 sh -c "curl -s -H 'Authorization: Bearer $a_TOKEN' $a_URL/api/v1/jobs/$fid | jq -e '.state == \"succeeded\" or .state == \"failed\"' >/dev/null"
	oa_call "filesystem job" GET '/api/v1/jobs/{id}' "/api/v1/jobs/$fid"
	it_eq "the filesystem job has its filesystem" ext4 "$(echo "$OA_BODY" | jq -r .filesystem.type)"
	oa_call "filesystem job, fields" GET '/api/v1/jobs/{id}' "/api/v1/jobs/$fid?fields=state,filesystem"
	# The list's summary form leaves the filesystem record out; fields= asks for it.
	oa_call "jobs with a filesystem job" GET /api/v1/jobs "/api/v1/jobs?limit=10"
	it_eq "the list's filesystem job has no filesystem member" false \
		"$(echo "$OA_BODY" | jq --argjson id "$fid" '.jobs[] | select(.id == $id) | has("filesystem")')"
	oa_call "jobs, fields=filesystem" GET /api/v1/jobs "/api/v1/jobs?limit=10&fields=state,filesystem"
	it_eq "fields=filesystem gives the list its filesystem" ext4 \
		"$(echo "$OA_BODY" | jq -r --argjson id "$fid" '.jobs[] | select(.id == $id) | .filesystem.type')"
fi
long='{"device":"'$dev'","directory":"'$IT_TMP/jobs'","engine":"fio","loops":2,
 "fio":{"rw":"write","bs":"64k","size":"8M","ioengine":"psync","runtime_s":30,"time_based":true,"rate_iops":1024}}'
oa_call "long job submit" POST /api/v1/jobs /api/v1/jobs "$long" valid
lid=$(echo "$OA_BODY" | jq -r .id)
sleep 1
oa_call "job cancel" DELETE '/api/v1/jobs/{id}' "/api/v1/jobs/$lid"
it_check "cancel answers 200 or 202" [ "$OA_STATUS" = 200 -o "$OA_STATUS" = 202 ]
PR='/api/v1/profiles/{name}'
prof='{"match":{"devices":["'$dev'"]},"params":{"read_ahead_kb":512,"nr_requests":32},"enforce":false}'
oa_call "profiles, none" GET /api/v1/profiles /api/v1/profiles
oa_call "profile dry run" PUT "$PR" "/api/v1/profiles/oa?dry_run=true" "$prof" valid
it_eq "profile dry run is 200" 200 "$OA_STATUS"
oa_call "profile create" PUT "$PR" /api/v1/profiles/oa "$prof" valid
it_eq "profile create is 201" 201 "$OA_STATUS"
echo 64 >"/sys/block/$dev/queue/nr_requests"
oa_call "profile drifted" GET "$PR" /api/v1/profiles/oa
it_eq "the profile reports drift" drifted "$(echo "$OA_BODY" | jq -r '.devices[0].state')"
oa_call "profile replace" PUT "$PR" /api/v1/profiles/oa \
	'{"match":{"devices":["'$dev'","nvme*n1"],"model":["x"]},"params":{"read_ahead_kb":512}}' valid
it_eq "a match by devices and model is taken (the agent reads identity)" 200 "$OA_STATUS"
oa_call "profile replace" PUT "$PR" /api/v1/profiles/oa \
	'{"match":{"devices":["'$dev'","nvme*n1"]},"params":{"read_ahead_kb":512}}' valid
it_eq "profile replace is 200" 200 "$OA_STATUS"
oa_call "profile, unknown field" PUT "$PR" /api/v1/profiles/oa \
	'{"match":{"devices":["'$dev'"]},"params":{"read_ahead_kb":512},"force":true}' invalid
oa_call "profile, not allowlisted" PUT "$PR" /api/v1/profiles/oa2 \
	'{"match":{"devices":["vda"]},"params":{"read_ahead_kb":512}}' valid
it_eq "a device outside --allow-device is 403" 403 "$OA_STATUS"
oa_call "profile, bad value" PUT "$PR" /api/v1/profiles/oa2 \
	'{"match":{"devices":["'$dev'"]},"params":{"nr_requests":"010"}}' valid
oa_call "profile, conflict" PUT "$PR" /api/v1/profiles/oa2 \
	'{"match":{"devices":["'$dev'"]},"params":{"read_ahead_kb":256}}' valid
it_eq "a parameter held by another profile is 409" 409 "$OA_STATUS"
oa_call "profile, bad restore" DELETE "$PR" "/api/v1/profiles/oa?restore=maybe"
oa_call "profile" GET "$PR" /api/v1/profiles/oa
oa_call "profile missing" GET "$PR" /api/v1/profiles/nosuch
oa_call "profiles" GET /api/v1/profiles /api/v1/profiles
oa_call "metrics with a profile" GET /metrics /metrics
oa_call "profile delete" DELETE "$PR" "/api/v1/profiles/oa?restore=true"
it_eq "profile delete is 200" 200 "$OA_STATUS"
oa_call "profile delete again" DELETE "$PR" /api/v1/profiles/oa
it_eq "deleting a missing profile is 404" 404 "$OA_STATUS"
oa_call "metrics after all that" GET /metrics /metrics

oa_node responses "$SPEC" "$CASES"
it_done
