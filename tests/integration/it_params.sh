#!/usr/bin/env bash
# it_params.sh -- the parameter API over HTTP against a real loop device: PUT, PATCH, rollback,
# validation, auth, traversal, and "nothing changed" after every failed request.
. "$(dirname "$0")/lib.sh"
it_need_root_sysfs

dev=$(it_loop_create 256M)
it_agent_start a --allow-device "$dev" || exit 1
U=$a_URL/api/v1
T=$a_TOKEN
it_log "agent on $a_URL, device $dev"

# snapshot DEV: the values we check for "nothing changed"
snap() { echo "$(it_sys "$dev" scheduler) $(cat /sys/block/$dev/queue/nr_requests) $(cat /sys/block/$dev/queue/read_ahead_kb) $(cat /sys/block/$dev/queue/rq_affinity)"; }
unchanged() { it_eq "$1: device unchanged" "$2" "$(snap)"; }

it_http GET "$U/health" ""
it_eq "health is public" 200 "$HTTP_STATUS"
it_eq "health names the node" a "$(echo "$HTTP_BODY" | jq -r .node)"

it_http GET "$U/devices" ""
it_eq "devices without a token: 401" 401 "$HTTP_STATUS"
it_eq "401 is a JSON error" unauthorized "$(echo "$HTTP_BODY" | jq -r .error.code)"
it_http GET "$U/devices" "wrong-token-0123456789abcdef"
it_eq "devices with a wrong token: 401" 401 "$HTTP_STATUS"
it_http GET "$U/devices" "$T"
it_eq "devices with the token" 200 "$HTTP_STATUS"
it_eq "our loop device is writable" true "$(echo "$HTTP_BODY" | jq -r ".devices[]|select(.name==\"$dev\").writable")"
it_eq "vda-like devices are not" 0 "$(echo "$HTTP_BODY" | jq "[.devices[]|select(.name!=\"$dev\" and .writable)]|length")"

it_http GET "$U/devices/$dev/params" "$T"
it_eq "params" 200 "$HTTP_STATUS"
it_eq "setra = 2 x read_ahead_kb" "$(( $(cat /sys/block/$dev/queue/read_ahead_kb) * 2 ))" "$(echo "$HTTP_BODY" | jq .params.setra.value)"
it_eq "read-only params are marked" false "$(echo "$HTTP_BODY" | jq .params.logical_block_size.writable)"
it_eq "scheduler choices" true "$(echo "$HTTP_BODY" | jq '.params.scheduler.choices|index("mq-deadline")!=null')"

# set the scheduler to mq-deadline (by its legacy name), then read an iosched attribute
it_http PUT "$U/devices/$dev/params/scheduler" "$T" '{"value":"deadline"}'
it_eq "PUT scheduler deadline" 200 "$HTTP_STATUS"
it_eq "legacy name mapped" mq-deadline "$(echo "$HTTP_BODY" | jq -r .mapped_to)"
it_eq "kernel has mq-deadline" mq-deadline "$(it_sys "$dev" scheduler)"
it_http GET "$U/devices/$dev/params/iosched.fifo_batch" "$T"
it_eq "GET iosched.fifo_batch" 200 "$HTTP_STATUS"
it_eq "fifo_batch matches sysfs" "$(cat /sys/block/$dev/queue/iosched/fifo_batch)" "$(echo "$HTTP_BODY" | jq .value)"

# read-back: read_ahead_kb is kept in pages, 13 KiB becomes 12
it_http PUT "$U/devices/$dev/params/read_ahead_kb" "$T" '{"value":13}'
it_eq "PUT read_ahead_kb 13" 200 "$HTTP_STATUS"
it_eq "applied value is the kernel's" 12 "$(echo "$HTTP_BODY" | jq .value)"
it_eq "adjusted flag" true "$(echo "$HTTP_BODY" | jq .adjusted)"
it_http PUT "$U/devices/$dev/params/setra" "$T" '{"value":8192}'
it_eq "setra 8192 sectors = read_ahead_kb 4096" 4096 "$(cat /sys/block/$dev/queue/read_ahead_kb)"

# nr_requests above the kernel's limit (known: the tag depth without a scheduler, 2048 with
# one): 422 before any write, naming the limit; value unchanged
before=$(snap)
it_http PUT "$U/devices/$dev/params/nr_requests" "$T" '{"value":100000}'
it_eq "nr_requests over the limit: 422 invalid_value" "422 invalid_value" "$HTTP_STATUS $(echo "$HTTP_BODY" | jq -r .error.code)"
it_eq "names the limit" true "$(echo "$HTTP_BODY" | jq '.error.message|test("2048|128")')"
unchanged "after the refused PUT" "$before"
# A write the kernel itself refuses (io_poll on a loop device, which has no poll queues): 422,
# naming the errno, value unchanged.
it_http PUT "$U/devices/$dev/params/io_poll" "$T" '{"value":1}'
it_eq "io_poll 1 on a loop device: 422 kernel_rejected" "422 kernel_rejected" "$HTTP_STATUS $(echo "$HTTP_BODY" | jq -r .error.code)"
it_eq "names the errno" true "$(echo "$HTTP_BODY" | jq '.error.message|test("Invalid argument")')"
unchanged "after the rejected PUT" "$before"

# validation failures change nothing
for body in '{"value":"010"}' '{"value":"12abc"}' '{"value":-5}' '{"value":1.5}' '{"value":null}' '{}' '{"value":1,"x":2}' 'not json'; do
	it_http PUT "$U/devices/$dev/params/nr_requests" "$T" "$body"
	case "$HTTP_STATUS" in 400 | 422) it_pass "bad value $body: $HTTP_STATUS" ;; *) it_fail "bad value $body: $HTTP_STATUS" ;; esac
	unchanged "after bad value $body" "$before"
done
it_http PUT "$U/devices/$dev/params/scheduler" "$T" '{"value":"cfq"}'
it_eq "cfq: 422" 422 "$HTTP_STATUS"
it_eq "lists the choices" true "$(echo "$HTTP_BODY" | jq '.error.message|test("mq-deadline")')"
it_http PUT "$U/devices/$dev/params/rq_affinity" "$T" '{"value":3}'
it_eq "rq_affinity 3: 422" 422 "$HTTP_STATUS"
it_http PUT "$U/devices/$dev/params/logical_block_size" "$T" '{"value":4096}'
it_eq "read-only param: 403" 403 "$HTTP_STATUS"
it_http PUT "$U/devices/$dev/params/no_such" "$T" '{"value":1}'
it_eq "unknown param: 404" 404 "$HTTP_STATUS"
unchanged "after validation errors" "$before"

# PATCH: all or nothing
it_http PATCH "$U/devices/$dev/params" "$T" '{"params":{"nr_requests":64,"scheduler":"kyber","rq_affinity":2}}'
it_eq "PATCH ok" 200 "$HTTP_STATUS"
it_eq "scheduler applied first, then nr_requests" "kyber 64 2" "$(it_sys "$dev" scheduler) $(cat /sys/block/$dev/queue/nr_requests) $(cat /sys/block/$dev/queue/rq_affinity)"
it_eq "PATCH reports previous" 2 "$(echo "$HTTP_BODY" | jq '.applied.rq_affinity.value')"
before=$(snap)
it_http PATCH "$U/devices/$dev/params" "$T" '{"params":{"scheduler":"mq-deadline","rq_affinity":1,"read_ahead_kb":512,"io_poll":1}}'
it_eq "PATCH with one value the kernel refuses: 422" 422 "$HTTP_STATUS"
it_eq "rolled_back" true "$(echo "$HTTP_BODY" | jq .rolled_back)"
unchanged "after the rolled-back PATCH" "$before"
it_http GET "$U/devices/$dev/params" "$T"
it_eq "GET shows the old scheduler" kyber "$(echo "$HTTP_BODY" | jq -r .params.scheduler.value)"
it_eq "GET shows the old nr_requests" 64 "$(echo "$HTTP_BODY" | jq .params.nr_requests.value)"
it_http PATCH "$U/devices/$dev/params" "$T" '{"params":{"scheduler":"bfq","rq_affinity":9}}'
it_eq "PATCH failing validation: 422, nothing written" 422 "$HTTP_STATUS"
unchanged "after the invalid PATCH" "$before"
it_http PATCH "$U/devices/$dev/params" "$T" '{"params":{}}'
it_eq "empty PATCH: 400" 400 "$HTTP_STATUS"
it_http PATCH "$U/devices/$dev/params" "$T" '{"params":{"nr_requests":64},"params":{"nr_requests":32}}'
it_eq "duplicate keys: 400" 400 "$HTTP_STATUS"
head -c 70000 /dev/zero | tr '\0' ' ' >"$IT_TMP/big.json"
it_http PATCH "$U/devices/$dev/params" "$T" "$(cat "$IT_TMP/big.json")"
it_eq "body over 64 KiB: 413" 413 "$HTTP_STATUS"
unchanged "after malformed PATCHes" "$before"

# traversal and device names never reach the filesystem
it_http GET "$U/devices/..%2f..%2fetc/params" "$T"
case "$HTTP_STATUS" in 400 | 404) it_pass "traversal: $HTTP_STATUS" ;; *) it_fail "traversal: $HTTP_STATUS" ;; esac
it_http GET "$U/devices/../../etc/params" "$T"
case "$HTTP_STATUS" in 400 | 404) it_pass "raw traversal: $HTTP_STATUS" ;; *) it_fail "raw traversal: $HTTP_STATUS" ;; esac
it_http GET "$U/devices/$dev%00x/params" "$T"
case "$HTTP_STATUS" in 400 | 404) it_pass "NUL in name: $HTTP_STATUS" ;; *) it_fail "NUL in name: $HTTP_STATUS" ;; esac
it_http PUT "$U/devices/$dev/params/..%2fsize" "$T" '{"value":1}'
case "$HTTP_STATUS" in 400 | 404) it_pass "traversal in param name: $HTTP_STATUS" ;; *) it_fail "traversal in param name: $HTTP_STATUS" ;; esac
it_http GET "$U/devices/sdzz/params" "$T"
it_eq "unknown device: 404" 404 "$HTTP_STATUS"
it_http PUT "$U/devices/vda/params/nr_requests" "$T" '{"value":64}'
case "$HTTP_STATUS" in 403 | 404) it_pass "vda is not writable: $HTTP_STATUS" ;; *) it_fail "vda: $HTTP_STATUS" ;; esac
it_http DELETE "$U/devices" "$T"
it_eq "wrong method: 405" 405 "$HTTP_STATUS"
unchanged "after traversal attempts" "$before"

# sysctls: readable, writes refused without --allow-sysctl (the host's are never written)
it_http GET "$U/sysctl" "$T"
it_eq "sysctl list" 200 "$HTTP_STATUS"
it_eq "vm.dirty_ratio is listed" true "$(echo "$HTTP_BODY" | jq '.sysctls["vm.dirty_ratio"]!=null')"
ratio=$(cat /proc/sys/vm/dirty_ratio)
it_http PUT "$U/sysctl/vm.dirty_ratio" "$T" "{\"value\":$ratio}"
it_eq "sysctl write without --allow-sysctl: 403" 403 "$HTTP_STATUS"

# the audit log has every write, including the rollback
it_http GET "$U/changes?device=$dev&limit=200" "$T"
it_eq "audit log" 200 "$HTTP_STATUS"
it_eq "rejected write logged" true "$(echo "$HTTP_BODY" | jq '[.changes[]|select(.outcome=="rejected" and .name=="io_poll" and .requested=="1")]|length>=2')"
it_eq "rollback logged" true "$(echo "$HTTP_BODY" | jq '[.changes[]|select(.outcome=="rolled_back")]|length>=1')"
it_eq "origin names the request" true "$(echo "$HTTP_BODY" | jq '[.changes[]|select(.origin|test("^request [0-9]+ PATCH"))]|length>=1')"

it_done
