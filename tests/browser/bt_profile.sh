#!/bin/bash
# bt_profile.sh -- the devices view shows the profiles the agent keeps on a device and their
# drift: a real agent on a loop device, a profile with enforce false, a value changed behind the
# agent's back; headless Chromium must show the profile, its state and the drifted value's live
# and wanted values. Screenshot in $FT_BUILD_DIR/screenshots/.
. "$(dirname "$0")/../integration/lib.sh"
. "$(dirname "$0")/browser_lib.sh"

it_need_root_sysfs
bt_need_browser

dev=$(it_loop_create 64M)
it_agent_start pub --allow-device "$dev" --web-root "$FT_SOURCE_DIR/web" --public-read \
	--drift-check-s 1 || exit 1
echo 64 >"/sys/block/$dev/queue/nr_requests"
it_http PUT "$pub_URL/api/v1/profiles/db" "$pub_TOKEN" \
	'{"match":{"devices":["'$dev'"]},"params":{"read_ahead_kb":512,"nr_requests":32},"enforce":false}'
it_eq "profile set" 201 "$HTTP_STATUS"
echo 48 >"/sys/block/$dev/queue/nr_requests"
drifted() {
	it_http GET "$pub_URL/api/v1/profiles/db" "$pub_TOKEN"
	[ "$(echo "$HTTP_BODY" | jq -r '.devices[0].state')" = drifted ]
}
it_check "the agent reports the drift" it_wait_for drifted 10 drifted
bt_node profile_check.js --url "$pub_URL/" --device "$dev" --profile db --param nr_requests \
	--live 48 --wanted 32 --held read_ahead_kb --shots "$BT_SHOTS"
it_done
