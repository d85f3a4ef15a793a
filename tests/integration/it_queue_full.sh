#!/usr/bin/env bash
# it_queue_full.sh -- the agent's queue is capped (issue 23 item 10: 429 queue_full naming the
# limit, nothing stored), and a job with params that cannot be recorded on a full state
# directory is 503 audit_unavailable, not 500 (item 14).
source "$(dirname "$0")/lib.sh"

it_need_root_sysfs
command -v jq >/dev/null || it_skip "jq not installed"
dev=$(it_loop_create 64M)
FAKE=$FT_SOURCE_DIR/tests/fixtures/fake-fio.sh
state=$IT_TMP/a-state
mnt=""
finish() {
	[ -n "${a_PID:-}" ] && kill -TERM "$a_PID" 2>/dev/null && wait "$a_PID" 2>/dev/null
	[ -n "$mnt" ] && umount "$mnt" 2>/dev/null
	it_cleanup
}
trap finish EXIT
mkdir -p "$state"
mount -t tmpfs -o size=4m tmpfs "$state" || it_skip "cannot mount a tmpfs here"
mnt=$state

it_agent_start a --allow-device "$dev" --fio "$FAKE" --max-queued 3 || exit 1
U=$a_URL/api/v1
T=$a_TOKEN
job() { it_http POST "$U/jobs" "$T" "{\"device\":\"$dev\",\"engine\":\"fio\",\"fio\":{\"rw\":\"read\",\"bs\":\"4k\",\"runtime_s\":$1,\"time_based\":true,\"rate_iops\":1024}$2}"; }
count_jobs() { curl -s -H "Authorization: Bearer $T" "$U/jobs?limit=100" | jq '.jobs | length'; }

# 10. One running (30 s), three waiting, the fifth refused.
job 30 ""
run=$(echo "$HTTP_BODY" | jq .id)
running() { curl -s -H "Authorization: Bearer $T" "$U/jobs/$run" | jq -e '.state == "running"' >/dev/null; }
it_check "job $run runs" it_wait_for "running" 20 running
for i in 1 2 3; do job 1 ""; it_eq "queued job $i accepted" 202 "$HTTP_STATUS"; done
n=$(count_jobs)
job 1 ""
it_eq "the queue is full: 429" 429 "$HTTP_STATUS"
it_eq "... queue_full" queue_full "$(echo "$HTTP_BODY" | jq -r .error.code)"
it_check "... naming the limit and the flag ($(echo "$HTTP_BODY" | jq -r .error.message))" \
	grep -q "holds 3 jobs already (its limit, --max-queued)" <<<"$HTTP_BODY"
it_eq "nothing was stored" "$n" "$(count_jobs)"
curl -s -o /dev/null -X DELETE -H "Authorization: Bearer $T" "$U/jobs/$run"
for id in $(curl -s -H "Authorization: Bearer $T" "$U/jobs?state=queued" | jq '.jobs[].id'); do
	curl -s -o /dev/null -X DELETE -H "Authorization: Bearer $T" "$U/jobs/$id"
done

# 14. The state directory full: a job with params cannot be recorded, so it is 503.
dd if=/dev/zero of="$state/filler" bs=4k 2>/dev/null
sync
job 1 ',"params":{"read_ahead_kb":512}'
it_eq "full: a job with params is 503" 503 "$HTTP_STATUS"
it_eq "... audit_unavailable" audit_unavailable "$(echo "$HTTP_BODY" | jq -r .error.code)"
rm -f "$state/filler"
it_eq "room again: the same job is accepted" 202 "$(job 1 ',"params":{"read_ahead_kb":512}'; echo "$HTTP_STATUS")"
it_done
