#!/usr/bin/env bash
# it_state_full.sh -- what ends while the state directory is full is over all the same (issue
# 23 item 6): a session that expires has its restore made, GET shows it restored, a PATCH made
# once there is room again is not undone by a second restore, and its end is written as soon
# as the database takes it; a job that ends meanwhile is shown ended (not running) and its end
# written later too. An enforced profile's put-back of drift that failed while the directory
# was full is tried again once there is room, the live value unchanged (issue 31 item 11).
source "$(dirname "$0")/lib.sh"

it_need_root_sysfs
command -v jq >/dev/null || it_skip "jq not installed"
command -v sqlite3 >/dev/null || it_skip "sqlite3 not installed"
dev=$(it_loop_create 64M)
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
nr() { it_sys "$dev" nr_requests; }

it_agent_start a --allow-device "$dev" --fio "$FT_SOURCE_DIR/tests/fixtures/fake-fio.sh" || exit 1
U=$a_URL/api/v1
T=$a_TOKEN
orig=$(nr)
it_http POST "$U/devices/$dev/sessions" "$T" '{"ttl_s":3}'
sid=$(echo "$HTTP_BODY" | jq .id)
it_eq "session $sid opened" 201 "$HTTP_STATUS"
it_http PATCH "$U/devices/$dev/params" "$T" '{"params":{"nr_requests":48}}'
it_eq "tuned inside the session" "200 48" "$HTTP_STATUS $(nr)"
dd if=/dev/zero of="$state/filler" bs=4k 2>/dev/null
sync
restored() { [ "$(nr)" = "$orig" ]; }
it_check "full: the session expires and its restore is made" it_wait_for "restore" 15 restored
it_http GET "$U/sessions/$sid" "$T"
it_eq "full: GET shows it restored, not open" "restored expired" \
	"$(echo "$HTTP_BODY" | jq -r '.state + " " + .end_reason')"
rm -f "$state/filler"
it_http PATCH "$U/devices/$dev/params" "$T" '{"params":{"nr_requests":64}}'
it_eq "room again: a PATCH is made" "200 64" "$HTTP_STATUS $(nr)"
sleep 3 # a few expiry passes
it_eq "... and no second restore undoes it" 64 "$(nr)"
it_eq "the restore was made once" 1 \
	"$(grep -c "restored $dev nr_requests: 48 -> $orig .* by session $sid expired" "$a_LOG")"
recorded() { [ "$(sqlite3 "$state/agent.db" "SELECT state FROM sessions WHERE id = $sid")" = restored ]; }
it_check "its end is in the database now" it_wait_for "recorded" 10 recorded
it_http PATCH "$U/devices/$dev/params" "$T" "{\"params\":{\"nr_requests\":$orig}}"

# A job that ends while the disk is full.
it_http POST "$U/jobs" "$T" "{\"device\":\"$dev\",\"engine\":\"fio\",\"fio\":{\"rw\":\"read\",\"bs\":\"4k\",\"runtime_s\":3,\"time_based\":true,\"rate_iops\":1024}}"
jid=$(echo "$HTTP_BODY" | jq .id)
job_state() { curl -s -H "Authorization: Bearer $T" "$U/jobs/$jid?fields=state" | jq -r .state; }
running() { [ "$(job_state)" = running ]; }
it_check "job $jid runs" it_wait_for "running" 20 running
dd if=/dev/zero of="$state/filler" bs=4k 2>/dev/null
sync
ended() { case $(job_state) in succeeded|failed) return 0 ;; esac; return 1; }
it_check "full: the job is shown ended, not running" it_wait_for "ended" 20 ended
db_state() { sqlite3 "$state/agent.db" "SELECT state FROM jobs WHERE id = $jid"; }
it_log "the database has job $jid as $(db_state) meanwhile; the agent shows $(job_state)"
rm -f "$state/filler"
db_final() { [ "$(db_state)" = "$(job_state)" ]; }
it_check "room again: its end is written ($(job_state))" it_wait_for "job end recorded" 10 db_final

# An enforced profile: drift while the directory is full cannot be put back (its audit row
# cannot be written); once there is room it is, without the value changing again.
it_http PUT "$U/profiles/keep" "$T" "{\"match\":{\"devices\":[\"$dev\"]},\"params\":{\"nr_requests\":40},\"enforce\":true}"
it_eq "profile keep: nr_requests 40" "201 40" "$HTTP_STATUS $(nr)"
dd if=/dev/zero of="$state/filler" bs=4k 2>/dev/null
sync
echo 99 >"/sys/block/$dev/queue/nr_requests"
failed() { grep -q "profile keep on $dev: cannot put back nr_requests 99 -> 40" "$a_LOG"; }
it_check "full: the put-back of the drift fails (logged)" it_wait_for "put-back failed" 20 failed
it_eq "... the drift stays meanwhile" 99 "$(nr)"
rm -f "$state/filler"
t0=$(date +%s)
back() { [ "$(nr)" = 40 ]; }
it_check "room again: the drift is put back, the live value unchanged (before: never)" \
	it_wait_for "put back" 40 back
it_log "put back $(($(date +%s) - t0)) s after room came back"
it_http DELETE "$U/profiles/keep?restore=true" "$T"
it_eq "the profile's delete puts the device back" "200 $orig" "$HTTP_STATUS $(nr)"
it_done
