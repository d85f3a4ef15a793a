#!/bin/bash
# bt_fio_file.sh -- the agent's page in headless Chromium for a job given as an fio job file
# (issue 29), run by real fio on a loop device: its job view shows the file as given, as text
# (a description with markup stays text), beside its passes. Screenshot:
# $FT_BUILD_DIR/screenshots/page-job-fio-file.png.
. "$(dirname "$0")/../integration/lib.sh"
. "$(dirname "$0")/browser_lib.sh"

it_need_root_sysfs
bt_need_browser
command -v fio >/dev/null || it_skip "fio not installed"

dev=$(it_loop_create 64M)
it_agent_start a --allow-device "$dev" --web-root "$FT_SOURCE_DIR/web" --public-read || exit 1
printf '%s\n' '; two workloads side by side' '[global]' 'ioengine=psync' 'runtime=1s' 'time_based' \
	'description=<img src=x onerror=alert(1)>' '' '[rand read]' 'rw=randread' 'bs=4k' '' \
	'[seq write]' 'rw=write' 'bs=64k' 'rate=8m' >"$IT_TMP/job.fio"
id=$(bt_job_post "$a_URL" "$a_TOKEN" "$(jq -n --arg dev "$dev" --rawfile f "$IT_TMP/job.fio" \
	'{device:$dev,engine:"fio",loops:2,fio_file:$f,labels:{suite:"bt"}}')")
[ -n "$id" ] || { it_fail "could not post the job file job"; it_done; }
it_check "the job file job finishes" bt_jobs_wait "$a_URL" "$a_TOKEN" 90 "$id"
bt_node fiofile_check.js --url "$a_URL/" --job "$id" --expect "$IT_TMP/job.fio" --shots "$BT_SHOTS" --prefix page
it_done
