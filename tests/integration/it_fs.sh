#!/usr/bin/env bash
# it_fs.sh -- a filesystem for a job, on real loop devices: refusals that create nothing (403
# without --allow-format, 409 on a mounted device, 422 for options outside the tables, naming
# them), mkfs's dry run, an XFS job with seed 001's mkfs options and seed 000's mount options
# (the mount table during the job shows them, nothing is mounted afterwards, the figures are
# recorded), bonnie++ (and iozone where installed) in an ext4 filesystem, and kill -9 of the
# agent mid-job: the restarted agent unmounts and marks the job interrupted.
. "$(dirname "$0")/lib.sh"
it_need_root_sysfs
command -v fio >/dev/null || it_skip "fio not installed"
command -v mkfs.xfs >/dev/null || it_skip "xfsprogs not installed"
command -v mkfs.ext4 >/dev/null || it_skip "e2fsprogs not installed"
grep -qw xfs /proc/filesystems || modprobe -q xfs 2>/dev/null || true
grep -qw xfs /proc/filesystems || it_skip "the kernel has no xfs"

A=$(it_loop_create 1G)  # XFS with a stripe unit needs about 1 GiB (log >= 64 MB)
B=$(it_loop_create 512M) # allowlisted, but not for --allow-format
it_log "devices $A (format allowed) and $B"
it_agent_start a --allow-device "$A" --allow-device "$B" --allow-format="$A" || exit 1
U=$a_URL/api/v1
T=$a_TOKEN
FSDIR=$(realpath "$a_STATE")/fs

sig() { blkid -p -o export "/dev/$1" 2>/dev/null | grep -E '^(TYPE|UUID)=' | tr '\n' ' '; }
njobs() { it_http GET "$U/jobs?limit=100" "$T"; echo "$HTTP_BODY" | jq '.jobs | length'; }
fs_entries() { ls -A "$FSDIR" 2>/dev/null | wc -l; }
mounted_here() { grep -c " $FSDIR/" /proc/self/mountinfo; }
job_field() { it_http GET "$U/jobs/$1" "$T"; echo "$HTTP_BODY" | jq -r "$2"; }
fio_job() { # DEV FILESYSTEM_JSON RUNTIME_S LOOPS
	printf '{"device":"%s","engine":"fio","fio":{"rw":"write","bs":"1m","ioengine":"libaio","direct":true,"iodepth":4,"size":"64m","runtime_s":%s,"time_based":true,"rate_iops":64},"loops":%s,"filesystem":%s}' "$1" "$3" "$4" "$2"
}
XFS_SEED='{"type":"xfs","mkfs":["-b","size=4k","-d","su=64k,sw=7","-i","size=1k","-l","version=2"],"mount":"noatime,logbufs=8,logbsize=256k"}'

# ---- refusals: nothing created ----
sig_a=$(sig "$A")
sig_b=$(sig "$B")
n0=$(njobs)
refused() { # DESC STATUS CODE MESSAGE_PART BODY [QUERY]
	it_http POST "$U/jobs${6:-}" "$T" "$5"
	it_eq "$1: HTTP $2" "$2" "$HTTP_STATUS"
	it_eq "$1: code" "$3" "$(echo "$HTTP_BODY" | jq -r .error.code)"
	case $(echo "$HTTP_BODY" | jq -r .error.message) in
	*"$4"*) it_pass "$1: the message names it" ;;
	*) it_fail "$1: message lacks '$4': $HTTP_BODY" ;;
	esac
}
refused "no --allow-format for $B" 403 format_not_allowed "--allow-format=$B" "$(fio_job "$B" "$XFS_SEED" 1 1)"
refused "no --allow-format, dry run" 403 format_not_allowed "--allow-format=$B" "$(fio_job "$B" "$XFS_SEED" 1 1)" "?dry_run=true"
refused "mkfs option naming a path" 422 invalid_fs_option "filesystem.mkfs[1]: -d file: names another path" \
	"$(fio_job "$A" '{"type":"xfs","mkfs":["-d","file=1,name=/tmp/ft-x.img"]}' 1 1)"
refused "external log device" 422 invalid_fs_option "-l logdev: names another path or device" \
	"$(fio_job "$A" '{"type":"xfs","mkfs":["-l","logdev=/dev/'"$B"'"]}' 1 1)"
refused "seed 000's nobarrier" 422 invalid_fs_option "nobarrier: removed from XFS in Linux 4.19" \
	"$(fio_job "$A" '{"type":"xfs","mount":"rw,noatime,nobarrier,logbufs=8,logbsize=256k"}' 1 1)"
refused "unknown mount option" 422 invalid_fs_option "'bogus' is not a xfs mount option" \
	"$(fio_job "$A" '{"type":"xfs","mount":"noatime,bogus"}' 1 1)"
refused "ext4 journal on a path" 422 invalid_fs_option "journal_path: names another path" \
	"$(fio_job "$A" '{"type":"ext4","mount":"journal_path=/etc/passwd"}' 1 1)"
refused "unknown type" 422 invalid_fs_option "filesystem.type: 'btrfs' is not one of xfs, ext4" \
	"$(fio_job "$A" '{"type":"btrfs"}' 1 1)"
refused "mkfs's own dry run refuses" 422 invalid_fs_option "mkfs.xfs's dry run (-N) refuses" \
	"$(fio_job "$A" '{"type":"xfs","mkfs":["-l","version=1"]}' 1 1)"
refused "filesystem with a directory" 400 bad_request "give directory or filesystem, not both" \
	"$(fio_job "$A" "$XFS_SEED" 1 1 | jq -c '.directory="/tmp"')"
refused "filesystem not an object" 400 bad_request "filesystem: expected an object" \
	"$(fio_job "$A" '"xfs"' 1 1)"
# A device with a mounted filesystem: mounted by the test itself.
mkfs.ext4 -q -F "/dev/$A" >/dev/null 2>&1
mkdir -p "$IT_TMP/m"
mount "/dev/$A" "$IT_TMP/m"
sig_mounted=$(sig "$A")
refused "mounted device" 409 device_refused "/dev/$A is mounted" "$(fio_job "$A" "$XFS_SEED" 1 1)"
refused "mounted device, dry run" 409 device_refused "is mounted" "$(fio_job "$A" "$XFS_SEED" 1 1)" "?dry_run=true"
it_eq "the mounted filesystem is untouched" "$sig_mounted" "$(sig "$A")"
umount "$IT_TMP/m"
it_eq "nothing was queued or stored" "$n0" "$(njobs)"
it_eq "nothing was created under the state directory's fs/" 0 "$(fs_entries)"
it_eq "nothing is mounted there" 0 "$(mounted_here)"
it_eq "$B is untouched" "$sig_b" "$(sig "$B")"

# ---- the dry run: mkfs -N, nothing written ----
sig_a=$(sig "$A")
it_http POST "$U/jobs?dry_run=true" "$T" "$(fio_job "$A" "$XFS_SEED" 1 1)"
it_eq "dry run: 200" 200 "$HTTP_STATUS"
it_eq "dry run: mkfs.xfs -N's inode size" 1024 "$(echo "$HTTP_BODY" | jq .filesystem.figures.inode_size_bytes)"
it_eq "dry run: stripe unit 16 blocks, width 112" "16 112" "$(echo "$HTTP_BODY" | jq -r '.filesystem.figures | "\(.sunit_blocks) \(.swidth_blocks)"')"
it_eq "dry run: the command" "mkfs.xfs -f -N -b size=4k -d su=64k,sw=7 -i size=1024 -l version=2 /dev/$A" "$(echo "$HTTP_BODY" | jq -r .filesystem.mkfs)"
it_eq "dry run: the spec keeps the filesystem" "xfs" "$(echo "$HTTP_BODY" | jq -r .job.filesystem.type)"
it_eq "dry run: the device is as it was" "$sig_a" "$(sig "$A")"
it_eq "dry run: nothing created" 0 "$(fs_entries)"

# ---- an XFS job: seed 001's mkfs, seed 000's mount options ----
it_http POST "$U/jobs" "$T" "$(fio_job "$A" "$XFS_SEED" 2 2)"
it_eq "xfs job accepted" 202 "$HTTP_STATUS"
J=$(echo "$HTTP_BODY" | jq .id)
mount_line() { grep " $FSDIR/job-$J " /proc/self/mountinfo; }
if it_wait_for "job $J mounted" 30 mount_line; then
	line=$(mount_line)
	it_log "mountinfo: $line"
	# nosuid,nodev,noexec: a job's filesystem has them unless its options ask otherwise
	# (issue 31 item 24).
	case $line in *" rw,nosuid,nodev,noexec,noatime - xfs /dev/$A "*logbufs=8,logbsize=256k*) it_pass "the mount table shows nosuid, nodev, noexec, noatime, logbufs=8, logbsize=256k" ;;
	*) it_fail "mount line: $line" ;; esac
	it_eq "the mount directory is the agent's, 0700 above it" 700 "$(stat -c %a "$FSDIR")"
	it_eq "the record is written" 1 "$(ls "$FSDIR" | grep -c "^job-$J.rec$")"
	# A raw-device job meanwhile is refused without opening the device (the agent's own job
	# holds it; an exclusive open beside its mkfs or mount would fail one of them).
	it_http POST "$U/jobs?dry_run=true" "$T" "{\"device\":\"$A\",\"engine\":\"fio\",\"fio\":{\"rw\":\"read\",\"bs\":\"1m\",\"runtime_s\":1,\"time_based\":true}}"
	it_eq "a raw-device job on $A while the job's filesystem is on it: 409" 409 "$HTTP_STATUS"
	case $(echo "$HTTP_BODY" | jq -r .error.message) in
	*"the running job's filesystem is on it"*) it_pass "and the refusal says why" ;;
	*) it_fail "refusal: $HTTP_BODY" ;;
	esac
	# Each pass has a directory of its own in the filesystem (jobdir, as in a job directory).
	pass_dir() { ls -d "$FSDIR/job-$J"/ft-job"$J"-l[12] 2>/dev/null | head -1; }
	if it_wait_for "a pass directory in the mount" 20 sh -c "ls -d '$FSDIR/job-$J'/ft-job$J-l[12] >/dev/null 2>&1"; then
		pd=$(pass_dir)
		it_eq "the pass directory in the mount is the agent's own, 0700" "700 0" "$(stat -c '%a %u' "$pd" 2>/dev/null)"
	else
		it_fail "no pass directory showed in $FSDIR/job-$J"
	fi
else
	it_fail "job $J never showed its mount"
fi
it_wait_for "job $J ended" 60 sh -c "test \"\$(curl -s -H 'Authorization: Bearer $T' $U/jobs/$J | jq -r .state)\" != running && test \"\$(curl -s -H 'Authorization: Bearer $T' $U/jobs/$J | jq -r .state)\" != queued"
it_http GET "$U/jobs/$J" "$T"
it_eq "xfs job succeeded" succeeded "$(echo "$HTTP_BODY" | jq -r .state)"
[ "$(echo "$HTTP_BODY" | jq -r .state)" = succeeded ] || echo "$HTTP_BODY" | jq .error
it_eq "two passes with write.bw_mib" 2 "$(echo "$HTTP_BODY" | jq '[.passes[].metrics["write.bw_mib"] | select(. > 0)] | length')"
it_eq "recorded: inode size" 1024 "$(echo "$HTTP_BODY" | jq .filesystem.figures.inode_size_bytes)"
it_eq "recorded: sunit/swidth" "16 112" "$(echo "$HTTP_BODY" | jq -r '.filesystem.figures | "\(.sunit_blocks) \(.swidth_blocks)"')"
it_eq "recorded: log size" 67108864 "$(echo "$HTTP_BODY" | jq .filesystem.figures.log_size_bytes)"
it_eq "recorded: the mkfs command" "mkfs.xfs -f -b size=4k -d su=64k,sw=7 -i size=1024 -l version=2 /dev/$A" "$(echo "$HTTP_BODY" | jq -r .filesystem.mkfs)"
case $(echo "$HTTP_BODY" | jq -r .filesystem.super_options) in *logbsize=256k*) it_pass "recorded: the filesystem's options as mounted" ;; *) it_fail "super_options: $(echo "$HTTP_BODY" | jq -r .filesystem.super_options)" ;; esac
it_eq "snapshot: fs.mount" "noatime,logbufs=8,logbsize=256k" "$(echo "$HTTP_BODY" | jq -r '.params["fs.mount"]')"
it_eq "snapshot: fs.inode_size_bytes" 1024 "$(echo "$HTTP_BODY" | jq '.params["fs.inode_size_bytes"]')"
it_http GET "$U/results?param.fs.mount=noatime,logbufs=8,logbsize=256k" "$T"
it_eq "results filter by the mount options" "$J" "$(echo "$HTTP_BODY" | jq '.results[0].id')"
it_eq "after the job nothing is mounted" 0 "$(mounted_here)"
it_eq "after the job the mount directory and record are gone" 0 "$(fs_entries)"
it_eq "the device is left as mkfs left it" xfs "$(blkid -p -o value -s TYPE "/dev/$A")"

# ---- bonnie++ in an ext4 filesystem, as seed 001 ran it (-f, and -n files) ----
# direct (-D): buffered, the page cache takes a 256 MB block write in under bonnie++'s 0.5 s on a
# quiet machine and bonnie++ prints +++++ (no figure) for it; with O_DIRECT it takes seconds.
if command -v bonnie++ >/dev/null; then
	it_http POST "$U/jobs" "$T" "{\"device\":\"$A\",\"engine\":\"bonnie\",\"bonnie\":{\"size_mb\":256,\"ram_mb\":128,\"files\":\"1\",\"fast\":true,\"direct\":true},\"loops\":1,\"filesystem\":{\"type\":\"ext4\",\"mkfs\":[\"-b\",\"4096\",\"-E\",\"stride=16,stripe_width=112\"],\"mount\":\"noatime,data=writeback\"}}"
	it_eq "bonnie job accepted" 202 "$HTTP_STATUS"
	JB=$(echo "$HTTP_BODY" | jq .id)
	it_wait_for "bonnie job ended" 120 sh -c "curl -s -H 'Authorization: Bearer $T' $U/jobs/$JB | jq -e '.state | test(\"succeeded|failed|cancelled|interrupted\")' >/dev/null"
	it_http GET "$U/jobs/$JB" "$T"
	it_eq "bonnie++ in ext4 succeeded" succeeded "$(echo "$HTTP_BODY" | jq -r .state)"
	[ "$(echo "$HTTP_BODY" | jq -r .state)" = succeeded ] || echo "$HTTP_BODY" | jq .error
	it_check "bonnie++ measured block writes" test "$(echo "$HTTP_BODY" | jq '.passes[0].metrics["write.bw_mib"] > 0')" = true
	it_eq "ext4 figures: RAID stride" 16 "$(echo "$HTTP_BODY" | jq .filesystem.figures.raid_stride_blocks)"
	it_eq "ext4 figures: journal blocks recorded" true "$(echo "$HTTP_BODY" | jq '.filesystem.figures.journal_blocks > 0')"
	it_eq "ext4 mounted with data=writeback" true "$(echo "$HTTP_BODY" | jq '.filesystem.super_options | test("data=writeback")')"
	it_eq "after bonnie++ nothing is mounted" 0 "$(mounted_here)"
else
	it_log "bonnie++ not installed: its part skipped"
fi
if command -v iozone >/dev/null; then
	it_http POST "$U/jobs" "$T" "{\"device\":\"$A\",\"engine\":\"iozone\",\"iozone\":{\"record_size\":\"1m\",\"file_size\":\"64m\",\"threads\":2},\"loops\":1,\"filesystem\":{\"type\":\"xfs\",\"mount\":\"noatime\"}}"
	JI=$(echo "$HTTP_BODY" | jq .id)
	it_wait_for "iozone job ended" 120 sh -c "curl -s -H 'Authorization: Bearer $T' $U/jobs/$JI | jq -e '.state | test(\"succeeded|failed|cancelled|interrupted\")' >/dev/null"
	it_eq "iozone in xfs succeeded" succeeded "$(job_field "$JI" .state)"
else
	it_log "iozone not installed (Debian ships it in non-free): its part skipped"
fi

# ---- kill -9 mid-job: the restart unmounts and marks it interrupted ----
it_http POST "$U/jobs" "$T" "$(fio_job "$A" '{"type":"xfs","mount":"noatime"}' 30 1)"
JK=$(echo "$HTTP_BODY" | jq .id)
# fio is given the pass's directory by the agent's descriptor (/proc/AGENT/fd/N/.); its
# working directory is that directory, in the job's filesystem.
job_fio() { pgrep -f -- "--name=ft-job$JK-l1 .*--directory=/proc/$a_PID/fd/" | head -1; }
running_mounted() { grep -q " $FSDIR/job-$JK " /proc/self/mountinfo && [ -n "$(job_fio)" ]; }
if it_wait_for "job $JK running in its filesystem" 30 running_mounted; then
	it_eq "fio works in the pass's own directory in the mount" "$FSDIR/job-$JK/ft-job$JK-l1" \
		"$(readlink "/proc/$(job_fio)/cwd")"
	sleep 1
	killed_pid=$a_PID
	kill -KILL "$a_PID"
	wait "$a_PID" 2>/dev/null
	it_eq "killed agent: still mounted" 1 "$(grep -c " $FSDIR/job-$JK " /proc/self/mountinfo)"
	it_agent_start a --allow-device "$A" --allow-device "$B" --allow-format="$A" || exit 1
	U=$a_URL/api/v1
	it_eq "restarted: unmounted" 0 "$(mounted_here)"
	it_eq "restarted: the directory and record are gone" 0 "$(fs_entries)"
	it_eq "restarted: job interrupted" interrupted "$(job_field "$JK" .state)"
	it_check "restarted: the log says it unmounted" grep -q "job $JK: unmounted /dev/$A from $FSDIR/job-$JK" "$a_LOG"
	no_fio() { ! pgrep -f -- "--name=ft-job$JK-l1 .*--directory=/proc/$killed_pid/fd/" >/dev/null; }
	it_check "restarted: no fio of the job left" no_fio
	# The device is usable again: a new job makes its filesystem.
	it_http POST "$U/jobs?dry_run=true" "$T" "$(fio_job "$A" "$XFS_SEED" 1 1)"
	it_eq "restarted: the device takes a new filesystem" 200 "$HTTP_STATUS"
else
	it_fail "job $JK never ran in its filesystem"
fi
it_done
