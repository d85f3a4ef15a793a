# lib.sh -- helpers for integration tests: loop devices, agents on loopback, HTTP, asserts.
# Source it from tests/integration/it_*.sh. A test exits 77 to skip, 1 on failure.
# A test job that runs real fio carries a rate cap ("rate_iops": 1024, or 64 for 1 MiB blocks)
# unless what it checks needs the device's own speed (bt_sweep_report needs a real difference
# between settings): at full speed a 1 s time_based pass on a loop device keeps both cores of a
# 2-core machine busy (fio and the loop's kernel worker, 1.9 CPU-s a pass), beside the three
# other tests ctest runs.
set -u

FT_BUILD_DIR=${FT_BUILD_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/build}
FT_SOURCE_DIR=${FT_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
AGENT_BIN=${AGENT_BIN:-$FT_BUILD_DIR/agent/fleettune-agent}
CTL_BIN=${CTL_BIN:-$FT_BUILD_DIR/controller/fleettune-ctl}

IT_NAME=$(basename "$0" .sh)
IT_TMP=$(mktemp -d "/tmp/ft-it-$IT_NAME-XXXXXX")
IT_LOOPS=()
IT_PIDS=()
IT_FAILS=0
IT_PASSES=0

it_cleanup() {
	local pid dev
	for pid in "${IT_PIDS[@]}"; do
		kill -TERM "$pid" 2>/dev/null
	done
	for pid in "${IT_PIDS[@]}"; do
		for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
		kill -KILL "$pid" 2>/dev/null
	done
	it_cgroups_clean
	[ -f "$IT_TMP/loops" ] && mapfile -t -O "${#IT_LOOPS[@]}" IT_LOOPS <"$IT_TMP/loops"
	for dev in "${IT_LOOPS[@]}"; do
		umount "/dev/$dev" 2>/dev/null
		losetup -d "/dev/$dev" 2>/dev/null
	done
	# Loop devices a test added (it_loop_attach_at) are removed again (LOOP_CTL_REMOVE).
	if [ -f "$IT_TMP/loops-added" ]; then
		while read -r dev; do
			python3 -c 'import fcntl, os, sys
fd = os.open("/dev/loop-control", os.O_RDWR)
fcntl.ioctl(fd, 0x4C81, int(sys.argv[1]))' "${dev#loop}" 2>/dev/null
		done <"$IT_TMP/loops-added"
	fi
	if [ "${IT_KEEP:-0}" = 1 ]; then
		echo "# kept $IT_TMP"
	else
		rm -rf "$IT_TMP"
	fi
}
trap it_cleanup EXIT

# it_cgroups_clean: a test that kills an agent with SIGKILL and does not restart it leaves
# that agent's job cgroups (named in its containment records) on the host; kill what is in
# them and remove them with their emptied parents.
it_cgroups_clean() {
	local rec cg i
	for rec in "$IT_TMP"/*-state/contain/job-*; do
		[ -f "$rec" ] || continue
		cg=$(sed -n 's/^cgroup //p' "$rec")
		case $cg in */fleettune/*/job-*) ;; *) continue ;; esac
		[ -d "$cg" ] || continue
		[ -w "$cg/cgroup.kill" ] && echo 1 >"$cg/cgroup.kill" 2>/dev/null
		for i in $(seq 100); do rmdir "$cg" 2>/dev/null && break; sleep 0.05; done
		rmdir "${cg%/*}" "${cg%/*/*}" 2>/dev/null
	done
	# The agents' bases (<agent id>, kept while an agent runs): one killed with SIGKILL
	# leaves its own, named in its start-up line.
	for log in "$IT_TMP"/*.log; do
		[ -f "$log" ] || continue
		sed -n 's|.*job containment: one cgroup per job under \(/.*/fleettune/[0-9a-f]\{16\}\) (.*|\1|p' "$log"
	done | sort -u | while read -r cg; do
		rmdir "$cg" "${cg%/*}" 2>/dev/null
	done
}

# it_ns_release_foreign: in a mount namespace a test made for itself (its top re-runs it under
# `unshare --mount --propagation private`, FT_IT_HOST_MNTNS set to the namespace it left, before
# sourcing this file: it_systemd.sh, it_image.sh), lazily detach the copies of other tests' mounts
# of loop devices under /tmp. unshare copies every mount of the moment, and a copy keeps its
# filesystem alive after its own test has unmounted it: that device stays busy (mkfs.xfs:
# "cannot open /dev/loopN: Device or resource busy", an agent's "busy (mounted or claimed
# exclusively)") for as long as this namespace, or one copied from it (a podman build step),
# lives. Nothing is done where FT_IT_HOST_MNTNS is not set or is still the namespace in use.
it_ns_release_foreign() {
	local mp src
	[ -n "${FT_IT_HOST_MNTNS:-}" ] || return 0
	[ "$(readlink /proc/self/ns/mnt)" != "$FT_IT_HOST_MNTNS" ] || return 0
	awk '{ for (i = 7; $i != "-"; i++); print $5, $(i + 2) }' /proc/self/mountinfo | sort -r |
		while read -r mp src; do
			case $mp:$src in /tmp/*:/dev/loop*) umount -l "$mp" 2>/dev/null ;; esac
		done
}
it_skip() { echo "SKIP: $IT_NAME: $*"; exit 77; }
# it_need_built BIN...: fail (never skip) unless each BIN is built: a wrong build directory
# must not turn the suite green.
it_need_built() {
	local b
	for b in "$@"; do
		[ -x "$b" ] && continue
		echo "not ok - $b is not built (FT_BUILD_DIR=$FT_BUILD_DIR: a wrong build directory?)"
		echo "0 passed, 1 failed"
		exit 1
	done
}
it_log() { echo "# $*"; }
it_pass() { IT_PASSES=$((IT_PASSES + 1)); echo "ok - $*"; }
it_fail() { IT_FAILS=$((IT_FAILS + 1)); echo "not ok - $*"; }
# it_check DESC CMD...: pass if CMD succeeds.
it_check() { local d=$1; shift; if "$@"; then it_pass "$d"; else it_fail "$d"; fi; }
# it_eq DESC EXPECTED ACTUAL
it_eq() {
	if [ "$2" = "$3" ]; then it_pass "$1"; else it_fail "$1: expected '$2', got '$3'"; fi
}
it_done() {
	local log
	# A script that made no check proves nothing: it fails.
	[ $((IT_PASSES + IT_FAILS)) = 0 ] && it_fail "$IT_NAME made no check"
	echo "$IT_PASSES passed, $IT_FAILS failed"
	if [ "$IT_FAILS" != 0 ]; then
		# What the agents said last: the one clue a CI log keeps of a failure.
		for log in "$IT_TMP"/*.log; do
			[ -f "$log" ] || continue
			echo "# --- last lines of ${log##*/}"
			tail -n 15 "$log" | sed 's/^/# /'
		done
		exit 1
	fi
	exit 0
}

# it_need_root_sysfs: skip unless root with writable /sys and working losetup.
it_need_root_sysfs() {
	it_need_built "$AGENT_BIN"
	[ "$(id -u)" = 0 ] || it_skip "needs root to create loop devices"
	[ -w /sys/block ] || touch /sys/block 2>/dev/null || true
	grep -q ' /sys sysfs rw' /proc/mounts || it_skip "/sys is mounted read-only"
	command -v losetup >/dev/null || it_skip "losetup not installed"
}

# it_loop_create SIZE: create a loop device backed by a sparse file; prints its name (loopN).
it_loop_create() {
	local size=${1:-256M} img dev
	img=$(mktemp "$IT_TMP/loop-XXXXXX.img")
	truncate -s "$size" "$img"
	dev=$(losetup --find --show "$img") || it_skip "losetup --find failed"
	dev=${dev#/dev/}
	# A loop device keeps its queue settings across detach and attach: start from what a
	# fresh one has (no scheduler, 128 requests), not from what an earlier test left.
	echo none >"/sys/block/$dev/queue/scheduler" 2>/dev/null
	echo 128 >"/sys/block/$dev/queue/nr_requests" 2>/dev/null
	# Every other queue setting as this test's first loop device has it: two nodes of a sweep
	# are twins (the controller's pre-flight refuses nodes that differ in what a plan does not
	# set, and an earlier test may have left rq_affinity or wbt_lat_usec changed).
	if [ -s "$IT_TMP/loops" ]; then
		it_loop_twin "$(head -n 1 "$IT_TMP/loops")" "$dev"
	fi
	# Called as dev=$(it_loop_create): remember it in a file the cleanup reads.
	echo "$dev" >>"$IT_TMP/loops"
	echo "$dev"
}

# it_loop_twin REF DEV: every writable queue setting of /dev/DEV as /dev/REF has it.
it_loop_twin() {
	"$FT_SOURCE_DIR/scripts/loop-twin" "$1" "$2"
}

# it_loop_unused: the name of a loop device that does not exist now (loop800..loop999).
it_loop_unused() {
	local n
	for _ in $(seq 100); do
		n=$((800 + RANDOM % 200))
		[ -e "/sys/block/loop$n" ] || [ -e "/dev/loop$n" ] || { echo "loop$n"; return 0; }
	done
	return 1
}

# it_loop_attach_at NAME [SIZE]: attach a new sparse file as /dev/NAME, a loop device that did
# not exist (it_loop_unused): the kernel adds it to /sys/block, as a disk that appears. The
# cleanup detaches it and removes the device.
it_loop_attach_at() {
	local name=$1 size=${2:-256M} img
	img=$(mktemp "$IT_TMP/loop-XXXXXX.img")
	truncate -s "$size" "$img"
	losetup "/dev/$name" "$img" || return 1
	echo "$name" >>"$IT_TMP/loops"
	echo "$name" >>"$IT_TMP/loops-added"
}

# it_agent_start NAME [agent args...]: start an agent on 127.0.0.1 with an ephemeral port
# and its own state dir. Sets NAME_URL, NAME_TOKEN, NAME_PID, NAME_STATE, NAME_LOG.
it_agent_start() {
	local name=$1 state log pid port i
	shift
	state="$IT_TMP/$name-state"
	log="$IT_TMP/$name.log"
	mkdir -p -m 700 "$state"
	# A restarted agent gets a fresh log; the previous run's is kept beside it.
	[ -f "$log" ] && mv "$log" "$log.$(date +%s%N)"
	# Port 0 (the kernel's choice), or the next of IT_PORT_BASE's range (a benchmark names its
	# ports: bench/bench_lib.sh).
	local listen=0
	if [ -n "${IT_PORT_BASE:-}" ]; then
		IT_PORT_NEXT=$((${IT_PORT_NEXT:-0} + 1))
		listen=$((IT_PORT_BASE + 900 + IT_PORT_NEXT))
	fi
	"$AGENT_BIN" --listen "127.0.0.1:$listen" --node-name "$name" --state-dir "$state" "$@" 2>"$log" &
	pid=$!
	IT_PIDS+=("$pid")
	port=""
	for i in $(seq 100); do
		port=$(sed -n 's/.*listening on https\{0,1\}:\/\/127\.0\.0\.1:\([0-9]*\).*/\1/p' "$log" 2>/dev/null | tail -n 1)
		[ -n "$port" ] && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.05
	done
	if [ -z "$port" ]; then
		echo "agent $name did not start:" >&2
		cat "$log" >&2
		return 1
	fi
	printf -v "${name}_URL" 'http://127.0.0.1:%s' "$port"
	printf -v "${name}_TOKEN" '%s' "$(cat "$state/token" 2>/dev/null)"
	printf -v "${name}_PID" '%s' "$pid"
	printf -v "${name}_STATE" '%s' "$state"
	printf -v "${name}_LOG" '%s' "$log"
}

# it_http METHOD URL TOKEN [BODY]: sets HTTP_STATUS and HTTP_BODY.
it_http() {
	local method=$1 url=$2 token=$3 body=${4-} out
	out="$IT_TMP/http.out"
	local args=(-s -o "$out" -w '%{http_code}' -X "$method" --max-time 30)
	[ -n "$token" ] && args+=(-H "Authorization: Bearer $token")
	if [ -n "$body" ]; then
		args+=(-H 'Content-Type: application/json' --data-binary "$body")
	fi
	HTTP_STATUS=$(curl "${args[@]}" "$url")
	HTTP_BODY=$(cat "$out")
}

# it_job_ended API_URL TOKEN ID: whether job ID has ended, asked with a GET the agent holds until
# the job ends or 5 s pass (until=end: one answer per job, as a controller waits, not a poll);
# for it_wait_for. Afterwards HTTP_BODY is the job.
it_job_ended() {
	it_http GET "$1/jobs/$3?wait_s=5&until=end" "$2"
	case $(jq -r .state <<<"$HTTP_BODY") in succeeded | failed | cancelled | interrupted) return 0 ;; esac
	return 1
}

# it_job_run DESC API_URL TOKEN BODY [TIMEOUT_S]: POST the job (202), then wait for it to end
# (default 60 s). Afterwards HTTP_BODY is the job and JOB_ID its id.
it_job_run() {
	local desc=$1 api=$2 tok=$3 body=$4 t=${5:-60}
	it_http POST "$api/jobs" "$tok" "$body"
	it_eq "$desc: POST job: 202" 202 "$HTTP_STATUS"
	JOB_ID=$(jq .id <<<"$HTTP_BODY")
	it_check "$desc: the job ends" it_wait_for "job $JOB_ID" "$t" it_job_ended "$api" "$tok" "$JOB_ID"
}

# it_sys DEV FILE: read /sys/block/DEV/queue/FILE (scheduler: the bracketed one).
it_sys() {
	local v
	v=$(cat "/sys/block/$1/queue/$2")
	if [ "$2" = scheduler ]; then
		v=$(echo "$v" | sed -n 's/.*\[\(.*\)\].*/\1/p')
	fi
	echo "$v"
}

# it_fio_pids JOB LOOP DEV: pids of the real fio processes (main and workers share fio's
# command line) of loop LOOP (empty: any) of job JOB on /dev/DEV, in order. Only the real fio's:
# the unit tests' fake fio (a shell script) runs the same job ids on "/dev/loop0" too.
it_fio_pids() {
	local p exe
	exe=$(readlink -f "$(command -v fio)")
	for p in $(pgrep -f -- "--name=ft-job$1-l$2.* --filename=/dev/$3( |\$)"); do
		[ "$(readlink "/proc/$p/exe" 2>/dev/null)" = "$exe" ] && echo "$p"
	done | sort -n
}

# it_wait_for DESC TIMEOUT_S CMD...: poll CMD until it succeeds, for TIMEOUT_S by the clock.
# Every 0.1 s for the first 2 s, then every 0.25 s, then after 10 s
# every 0.5 s: a long wait (a deadline, a restart) is not a poll of the agent ten times a
# second, each a curl and a jq on the CPUs the suite shares.
it_wait_for() {
	local d=$1 t=$2 start now ms
	shift 2
	start=${EPOCHREALTIME//[!0-9]/}
	while :; do
		"$@" && return 0
		now=${EPOCHREALTIME//[!0-9]/}
		ms=$(((now - start) / 1000))
		[ "$ms" -ge $((t * 1000)) ] && break
		if [ "$ms" -lt 2000 ]; then
			sleep 0.1
		elif [ "$ms" -lt 10000 ]; then
			sleep 0.25
		else
			sleep 0.5
		fi
	done
	echo "# timed out waiting for: $d" >&2
	return 1
}

# it_fake_scsi_device ROOT DEV MODEL FIRMWARE [VENDOR [SERIAL]]: a block device under the temp
# --sysfs-root ROOT whose device/ is a SCSI disk with that model and firmware revision (the
# files the agent's identity reads: device/{vendor,model,rev}, the subsystem link, the serial
# page device/vpd_pg80), with the queue files a sweep sets. The agent only reads and writes
# files there.
it_fake_scsi_device() {
	local root=$1 dev=$2 model=$3 fw=$4 vendor=${5:-ATA} serial=${6:-} d q
	d=$root/sys/block/$dev
	q=$d/queue
	mkdir -p "$q/iosched" "$d/device" "$root/sys/bus/scsi"
	echo 2097152 >"$d/size"
	echo "none [mq-deadline] kyber" >"$q/scheduler"
	echo 128 >"$q/nr_requests"
	echo 128 >"$q/read_ahead_kb"
	echo 1 >"$q/rq_affinity"
	echo 0 >"$q/rotational"
	echo 512 >"$q/logical_block_size"
	echo 4096 >"$q/physical_block_size"
	echo 16 >"$q/iosched/fifo_batch"
	printf '%-8s\n' "$vendor" >"$d/device/vendor"
	printf '%-16s\n' "$model" >"$d/device/model"
	printf '%-4s\n' "$fw" >"$d/device/rev"
	ln -sfn ../../../bus/scsi "$d/device/subsystem"
	if [ -n "$serial" ]; then
		# The unit serial number page: 00 80, the length, the serial.
		{ printf '\000\200\000'; printf "\\$(printf '%03o' "${#serial}")"; printf '%s' "$serial"; } \
			>"$d/device/vpd_pg80"
	fi
}
