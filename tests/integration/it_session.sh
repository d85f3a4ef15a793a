#!/usr/bin/env bash
# it_session.sh -- tuning sessions on a real loop device: close with restore, expiry, renew,
# and kill -9 of the agent with a session open followed by a restart.
. "$(dirname "$0")/lib.sh"
it_need_root_sysfs

dev=$(it_loop_create 128M)
it_agent_start a --allow-device "$dev" || exit 1
U=$a_URL/api/v1
T=$a_TOKEN

state() { echo "$(it_sys "$dev" scheduler) $(cat /sys/block/$dev/queue/nr_requests) $(cat /sys/block/$dev/queue/read_ahead_kb)"; }
orig=$(state)
it_log "original: $orig"
mistune() {
	it_http PATCH "$U/devices/$dev/params" "$T" '{"params":{"scheduler":"bfq","nr_requests":32,"read_ahead_kb":1024}}'
	it_eq "mistuned" "bfq 32 1024" "$(state)"
}

# 1. close with restore (the default)
it_http POST "$U/devices/$dev/sessions" "$T" '{"ttl_s":60}'
it_eq "open session" 201 "$HTTP_STATUS"
sid=$(echo "$HTTP_BODY" | jq .id)
it_eq "session is open" open "$(echo "$HTTP_BODY" | jq -r .state)"
it_http POST "$U/devices/$dev/sessions" "$T" '{"ttl_s":60}'
it_eq "a second session on the device: 409" 409 "$HTTP_STATUS"
mistune
it_http DELETE "$U/sessions/$sid" "$T"
it_eq "close session" 200 "$HTTP_STATUS"
it_eq "restored on close" "$orig" "$(state)"
it_http GET "$U/sessions/$sid" "$T"
it_eq "record says why" closed "$(echo "$HTTP_BODY" | jq -r .end_reason)"
it_eq "record says when" true "$(echo "$HTTP_BODY" | jq '.ended_at!=null')"

# 2. close without restore
it_http POST "$U/devices/$dev/sessions" "$T" ''
it_eq "open session with the default ttl" 600 "$(echo "$HTTP_BODY" | jq .ttl_s)"
sid=$(echo "$HTTP_BODY" | jq .id)
mistune
it_http DELETE "$U/sessions/$sid?restore=false" "$T"
it_eq "close without restore" "bfq 32 1024" "$(state)"
it_http PATCH "$U/devices/$dev/params" "$T" "{\"params\":{\"scheduler\":\"$(echo "$orig" | cut -d' ' -f1)\",\"nr_requests\":$(echo "$orig" | cut -d' ' -f2),\"read_ahead_kb\":$(echo "$orig" | cut -d' ' -f3)}}"
it_eq "put back by hand" "$orig" "$(state)"

# 3. expiry restores; renew postpones it
it_http POST "$U/devices/$dev/sessions" "$T" '{"ttl_s":2}'
sid=$(echo "$HTTP_BODY" | jq .id)
mistune
sleep 1
it_http POST "$U/sessions/$sid/renew" "$T" ''
it_eq "renew" 200 "$HTTP_STATUS"
sleep 1.5
it_eq "renewed session still holds the values" "bfq 32 1024" "$(state)"
is_orig() { [ "$(state)" = "$orig" ]; }
it_wait_for "restore after expiry" 6 is_orig
it_eq "restored after expiry" "$orig" "$(state)"
it_http GET "$U/sessions/$sid" "$T"
it_eq "record: expired" expired "$(echo "$HTTP_BODY" | jq -r .end_reason)"
it_eq "record: restored" restored "$(echo "$HTTP_BODY" | jq -r .state)"
it_http POST "$U/sessions/$sid/renew" "$T" ''
it_eq "renewing an ended session: 409" 409 "$HTTP_STATUS"
it_http GET "$U/sessions/999999" "$T"
it_eq "unknown session: 404" 404 "$HTTP_STATUS"
it_http POST "$U/devices/$dev/sessions" "$T" '{"ttl_s":"10"}'
it_eq "ttl_s as a string: 400" 400 "$HTTP_STATUS"

# 4. kill -9 with a session open, restart: restored at startup
it_http POST "$U/devices/$dev/sessions" "$T" '{"ttl_s":600}'
sid=$(echo "$HTTP_BODY" | jq .id)
mistune
kill -9 "$a_PID"
wait "$a_PID" 2>/dev/null
it_eq "still mistuned while the agent is dead" "bfq 32 1024" "$(state)"
it_agent_start a --allow-device "$dev" || exit 1
U=$a_URL/api/v1
it_eq "restored at startup" "$orig" "$(state)"
it_http GET "$U/sessions/$sid" "$a_TOKEN"
it_eq "record: agent_restart" agent_restart "$(echo "$HTTP_BODY" | jq -r .end_reason)"
it_check "the restore is logged" grep -q "session $sid on $dev agent_restart: restore ok" "$a_LOG"

# 5. a clean stop (SIGTERM) with a session open restores before exiting
U=$a_URL/api/v1
T=$a_TOKEN
it_http POST "$U/devices/$dev/sessions" "$T" '{"ttl_s":600}'
sid=$(echo "$HTTP_BODY" | jq .id)
mistune
kill -TERM "$a_PID"
wait "$a_PID"
it_eq "SIGTERM exits 0" 0 "$?"
it_eq "restored on shutdown" "$orig" "$(state)"
it_check "shutdown restore logged" grep -q "session $sid on $dev agent_shutdown: restore ok" "$a_LOG"

it_done
