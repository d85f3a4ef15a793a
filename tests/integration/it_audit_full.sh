#!/usr/bin/env bash
# it_audit_full.sh -- no unaudited write: with the state directory on a full tmpfs, PATCH, PUT
# and a sysctl write are refused with 503 audit_unavailable and change nothing; a session's
# restore is made all the same (a device is never left tuned) and says what is not audited;
# with room again, writes are audited as before. fleettune_audit_failures_total counts it all.
. "$(dirname "$0")/lib.sh"
it_need_root_sysfs
command -v jq >/dev/null || it_skip "jq not installed"

dev=$(it_loop_create 64M)
state=$IT_TMP/a-state
mnt=""
# The agent goes before the tmpfs under its state dir is unmounted, and that before cleanup.
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
ra() { it_sys "$dev" read_ahead_kb; }
# fill: take every free byte of the tmpfs (dd stops at ENOSPC).
fill() { dd if=/dev/zero of="$state/filler" bs=4k 2>/dev/null; sync; }
audit_failures() {
	curl -s -H "Authorization: Bearer $a_TOKEN" "$a_URL/metrics" |
		sed -n 's/^fleettune_audit_failures_total \([0-9]*\)$/\1/p'
}
rows() {
	it_http GET "$U/changes?device=$dev&limit=1000" "$a_TOKEN"
	echo "$HTTP_BODY" | jq '.changes | length'
}

it_agent_start a --allow-device "$dev" || exit 1
U=$a_URL/api/v1
orig_nr=$(nr)
orig_ra=$(ra)
it_http PATCH "$U/devices/$dev/params" "$a_TOKEN" '{"params":{"nr_requests":32}}'
it_eq "with room, PATCH is made" 200 "$HTTP_STATUS"
it_eq "and audited" 1 "$(rows)"
it_http POST "$U/devices/$dev/sessions" "$a_TOKEN" '{"ttl_s":600}'
it_eq "session opened" 201 "$HTTP_STATUS"
sid=$(echo "$HTTP_BODY" | jq .id)
before=$(rows)
it_eq "with room, fleettune_audit_failures_total is 0" 0 "$(audit_failures)"

fill
it_log "state dir: $(df -k "$state" | tail -n 1)"
for i in 1 2 3; do
	it_http PATCH "$U/devices/$dev/params" "$a_TOKEN" '{"params":{"nr_requests":64,"read_ahead_kb":512}}'
	it_eq "full: PATCH $i refused with 503" 503 "$HTTP_STATUS"
	it_eq "full: PATCH $i says why" audit_unavailable "$(echo "$HTTP_BODY" | jq -r .error.code)"
done
it_check "the message names the device and the parameter" \
	bash -c "echo '$HTTP_BODY' | jq -r .error.message | grep -q '$dev '"
it_eq "full: nr_requests unchanged" 32 "$(nr)"
it_eq "full: read_ahead_kb unchanged" "$orig_ra" "$(ra)"
it_http PUT "$U/devices/$dev/params/nr_requests" "$a_TOKEN" '{"value":16}'
it_eq "full: PUT refused with 503" 503 "$HTTP_STATUS"
it_eq "full: PUT wrote nothing" 32 "$(nr)"
it_http PUT "$U/devices/$dev/params/scheduler" "$a_TOKEN" '{"value":"none"}'
it_eq "full: PUT scheduler refused with 503" 503 "$HTTP_STATUS"
it_eq "full: reads still work" 200 "$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $a_TOKEN" "$U/devices/$dev/params")"
it_eq "full: no audit row was lost (none added, none made)" "$before" "$(rows)"
it_eq "full: fleettune_audit_failures_total counts the 5 refused changes" 5 "$(audit_failures)"

# A restore is made even when it cannot be recorded; it says so, and the log says UNAUDITED.
it_http PUT "$U/devices/$dev/params/read_ahead_kb" "$a_TOKEN" '{"value":1024}'
it_eq "full: PUT read_ahead_kb refused" 503 "$HTTP_STATUS"
rm -f "$state/filler"
it_http PATCH "$U/devices/$dev/params" "$a_TOKEN" '{"params":{"nr_requests":48,"read_ahead_kb":1024}}'
it_eq "room again: PATCH made" 200 "$HTTP_STATUS"
fill
it_http DELETE "$U/sessions/$sid?restore=true" "$a_TOKEN"
if [ "$HTTP_STATUS" = 200 ]; then
	it_pass "full: session close answered 200"
	it_check "its restore_outcome counts the unaudited writes" \
		bash -c "echo '$HTTP_BODY' | jq -r .restore_outcome | grep -q 'not in the audit log'"
else
	# The session's end cannot be recorded on a full disk: it stays open (restored again later).
	it_eq "full: session close is a JSON error" true "$(echo "$HTTP_BODY" | jq 'has("error")')"
fi
it_eq "full: the restore was made (nr_requests)" 32 "$(nr)"
it_eq "full: the restore was made (read_ahead_kb)" "$orig_ra" "$(ra)"
it_check "the log says the restore writes are unaudited" grep -q "UNAUDITED: restored $dev" "$a_LOG"

rm -f "$state/filler"
it_http PATCH "$U/devices/$dev/params" "$a_TOKEN" "{\"params\":{\"nr_requests\":$orig_nr}}"
it_eq "room again: PATCH made" 200 "$HTTP_STATUS"
it_http GET "$U/changes?device=$dev&limit=1" "$a_TOKEN"
it_eq "and audited with its outcome" ok "$(echo "$HTTP_BODY" | jq -r '.changes[0].outcome')"
it_eq "no row is left pending" 0 \
	"$(curl -s -H "Authorization: Bearer $a_TOKEN" "$U/changes?device=$dev&limit=1000" | jq '[.changes[] | select(.outcome == "pending")] | length')"
it_done
