#!/usr/bin/env bash
# it_stacked_loop.sh -- a device in use through a loop device over it (issue 31 item 4), on real
# loop devices: `losetup --find --show /dev/LOWER` and the upper one mounted. The lower device
# shows no mount, no holder and opens O_EXCL, and mkfs on it destroyed the mounted data: now a
# filesystem job and a raw-device job on it (and their dry runs) are 409 device_refused naming
# the loop device and its mount, also two loop devices deep and with the upper one unmounted;
# the mounted file reads back; once the loop device goes, the job is taken.
source "$(dirname "$0")/lib.sh"

it_need_root_sysfs
command -v jq >/dev/null || it_skip "jq not installed"
command -v fio >/dev/null || it_skip "fio not installed"
command -v mkfs.ext4 >/dev/null || it_skip "e2fsprogs not installed"

low=$(it_loop_create 128M)
mnt=$IT_TMP/mnt
mkdir -p "$mnt"
# stack DEV: a loop device over /dev/DEV (detached by the cleanup, before DEV); prints its name.
stack() {
	local up
	up=$(losetup --find --show "/dev/$1") || return 1
	up=${up#/dev/}
	{ echo "$up"; cat "$IT_TMP/loops"; } >"$IT_TMP/loops.new" && mv "$IT_TMP/loops.new" "$IT_TMP/loops"
	echo "$up"
}
up=$(stack "$low") || it_skip "losetup over a loop device failed"
mkfs.ext4 -q -F "/dev/$up" || exit 1
mount "/dev/$up" "$mnt" || it_skip "cannot mount /dev/$up"
echo "precious data" >"$mnt/keep.txt"
sync
it_agent_start a --allow-device "$low" --allow-format="$low" || exit 1
U=$a_URL/api/v1
T=$a_TOKEN
FSJOB="{\"device\":\"$low\",\"engine\":\"fio\",\"fio\":{\"rw\":\"write\",\"bs\":\"1m\",\"size\":\"16m\"},\"filesystem\":{\"type\":\"ext4\"}}"
RAWJOB="{\"device\":\"$low\",\"engine\":\"fio\",\"fio\":{\"rw\":\"write\",\"bs\":\"1m\",\"size\":\"16m\"}}"

# refused DESC BODY QUERY WANT_IN_MESSAGE
refused() {
	it_http POST "$U/jobs$3" "$T" "$2"
	it_eq "$1: 409 device_refused" "409 device_refused" "$HTTP_STATUS $(jq -r .error.code <<<"$HTTP_BODY")"
	case $(jq -r .error.message <<<"$HTTP_BODY") in
	*"$4"*) it_pass "$1: the message names it" ;;
	*) it_fail "$1: message lacks '$4': $HTTP_BODY" ;;
	esac
}
it_check "the lower device opens O_EXCL (what the old check relied on)" \
	python3 -c "import os; os.close(os.open('/dev/$low', os.O_RDONLY | os.O_EXCL))"
said="/dev/$low is the backing file of loop device $up, and /dev/$up is mounted"
refused "filesystem job, upper mounted" "$FSJOB" "" "$said"
refused "... its dry run" "$FSJOB" "?dry_run=true" "$said"
refused "raw-device job, upper mounted" "$RAWJOB" "" "$said"
it_eq "the mounted file reads back" "precious data" "$(cat "$mnt/keep.txt")"

# Two deep: a loop device over the upper one, mounted instead.
umount "$mnt"
top=$(stack "$up") || exit 1
mount "/dev/$top" "$mnt" || exit 1
refused "two loop devices deep" "$FSJOB" "" \
	"/dev/$low is the backing file of loop device $up, and /dev/$up is the backing file of loop device $top, and /dev/$top is mounted"
it_eq "... the file still reads back" "precious data" "$(cat "$mnt/keep.txt")"
umount "$mnt"
losetup -d "/dev/$top"

# Not mounted: the loop device still reads and writes the lower one's data.
refused "upper not mounted" "$FSJOB" "" "is the backing file of loop device $up ('losetup -d /dev/$up' frees it)"
it_http GET "$U/jobs" "$T"
it_eq "nothing was queued" 0 "$(jq '.jobs | length' <<<"$HTTP_BODY")"

# The loop device gone: the lower device is free.
losetup -d "/dev/$up"
for _ in $(seq 50); do [ -e "/sys/block/$up/loop/backing_file" ] || break; sleep 0.1; done
it_http POST "$U/jobs?dry_run=true" "$T" "$FSJOB"
it_eq "once the loop device is gone, the dry run passes" 200 "$HTTP_STATUS"
it_done
