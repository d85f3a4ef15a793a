#!/bin/bash
# bt_fs.sh -- the job view of a job that made its own filesystem, in headless Chromium: the
# Filesystem section with the mkfs and mount options asked, the command mkfs ran, the options
# the mount shows, and the figures xfs_info reported (seed 001's inode size and stripe).
. "$(dirname "$0")/../integration/lib.sh"
. "$(dirname "$0")/browser_lib.sh"

it_need_root_sysfs
bt_need_browser
command -v fio >/dev/null || it_skip "fio not installed"
command -v mkfs.xfs >/dev/null || it_skip "xfsprogs not installed"
grep -qw xfs /proc/filesystems || modprobe -q xfs 2>/dev/null || true
grep -qw xfs /proc/filesystems || it_skip "the kernel has no xfs"

dev=$(it_loop_create 1G)
it_agent_start fsp --allow-device "$dev" --allow-format --web-root "$FT_SOURCE_DIR/web" || exit 1
body=$(jq -cn --arg dev "$dev" '{device: $dev, engine: "fio",
	fio: {rw: "write", bs: "1m", ioengine: "libaio", direct: true, iodepth: 4, size: "32m",
	      runtime_s: 1, time_based: true, rate_iops: 1024}, loops: 2,
	filesystem: {type: "xfs", mkfs: ["-b", "size=4k", "-d", "su=64k,sw=7", "-i", "size=1k", "-l", "version=2"],
	             mount: "noatime,logbufs=8,logbsize=256k"}}')
id=$(bt_job_post "$fsp_URL" "$fsp_TOKEN" "$body") || { it_fail "could not post the job"; it_done; }
it_check "the xfs job finishes" bt_jobs_wait "$fsp_URL" "$fsp_TOKEN" 120 "$id"
bt_node fs_check.js --url "$fsp_URL/" --token "$fsp_TOKEN" --job "$id" --dev "$dev" --shots "$BT_SHOTS"
it_done
