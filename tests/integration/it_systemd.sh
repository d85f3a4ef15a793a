#!/bin/bash
# it_systemd.sh -- the hardened unit: systemd-analyze verify and security (exposure <= 4.5,
# every exposure left named in a comment of the unit), then the unit itself running the agent
# on a loop device: a PATCH, a fio job, its sandbox seen in /proc (bounding set, seccomp, no new
# privileges, a read-only /proc/sys, a writable /sys/devices), a clean stop. Under the system
# manager where PID 1 is systemd; elsewhere under a user manager of root's started for the test
# in a mount namespace of its own (systemd only runs a manager on a "booted" system, which a
# tmpfs on /run/systemd there fakes for that namespace alone).

# Everything below runs in a private mount namespace: mounts made here vanish with the test.
if [ -z "${FT_IT_HOST_MNTNS:-}" ] && [ "$(id -u)" = 0 ] && command -v unshare >/dev/null; then
	FT_IT_HOST_MNTNS=$(readlink /proc/self/ns/mnt) exec unshare --mount --propagation private \
		bash "$0" "$@"
fi
. "$(dirname "$0")/lib.sh"
it_ns_release_foreign # other tests' filesystems are not kept alive by this namespace
# The checks of the built binaries are part of it: a missing build fails.
it_need_built "$AGENT_BIN" "$CTL_BIN"

UNIT=$FT_SOURCE_DIR/deploy/fleettune-agent.service
MAX_EXPOSURE=4.5
command -v systemd-analyze >/dev/null || it_skip "systemd-analyze not installed (package systemd)"

# --- static: verify, the exposure score, every exposure explained ---
if [ -x "$AGENT_BIN" ]; then
	sed "s#/usr/local/bin/fleettune-agent#$AGENT_BIN#" "$UNIT" >"$IT_TMP/fleettune-agent.service"
	systemd-analyze verify --man=no "$IT_TMP/fleettune-agent.service" >"$IT_TMP/verify.out" 2>&1
	it_eq "systemd-analyze verify exits 0" 0 "$?"
	it_eq "systemd-analyze verify has nothing to say about the unit" "" \
		"$(grep -F fleettune-agent.service "$IT_TMP/verify.out")"
fi
cp "$UNIT" "$IT_TMP/security.service"
systemd-analyze security --offline=true --threshold="${MAX_EXPOSURE/./}" "$IT_TMP/security.service" \
	>"$IT_TMP/security.out" 2>&1
rc=$?
score=$(sed -n 's/.*Overall exposure level for security.service: \([0-9.]*\).*/\1/p' "$IT_TMP/security.out")
it_log "systemd-analyze security --offline=true deploy/fleettune-agent.service: $score"
it_check "the overall exposure ($score) is at most $MAX_EXPOSURE" \
	awk -v s="$score" -v m="$MAX_EXPOSURE" 'BEGIN { exit !(s != "" && s <= m) }'
it_eq "systemd-analyze security --threshold=${MAX_EXPOSURE/./} exits 0" 0 "$rc"
# Each line still marked ✗ names a setting ("User=/DynamicUser=", "SystemCallFilter=~@mount");
# the unit's comments must say why it stays.
n=0
while read -r name; do
	n=$((n + 1))
	it_check "exposure $name is explained in the unit" grep -qF "\"$name\"" <(grep '^#' "$UNIT")
done < <(sed -n 's/^✗ \([^ ]*\) .*/\1/p' "$IT_TMP/security.out")
it_log "$n exposures left"

# --- the unit running the agent ---
it_need_root_sysfs
command -v systemctl >/dev/null || it_skip "systemctl not installed"
[ -x /lib/systemd/systemd ] || it_skip "/lib/systemd/systemd not installed"

# The service cannot see /tmp (PrivateTmp) or /root (ProtectHome): its binary, state and log
# live under /run, removed at the end.
RUN=$(mktemp -d /run/ft-it-systemd-XXXXXX)
NAME=ft-it-agent-${RUN##*-}
manager_pid=""
cg_dirs=()
cleanup() {
	if [ -n "$manager_pid" ]; then
		sctl stop "$NAME.service" >/dev/null 2>&1
		kill -TERM "$manager_pid" 2>/dev/null
		for _ in $(seq 100); do kill -0 "$manager_pid" 2>/dev/null || break; sleep 0.1; done
		kill -KILL "$manager_pid" 2>/dev/null
	elif [ -d /run/systemd/system ]; then
		sctl stop "$NAME.service" >/dev/null 2>&1
		rm -rf "/run/systemd/system/$NAME.service" "/run/systemd/system/$NAME.service.d" \
			"/var/lib/$NAME"
		sctl daemon-reload
	fi
	# Back to the cgroups we came from, then the test's own cgroup trees go (deepest first).
	for d in "${cg_dirs[@]}"; do
		echo $$ >"${d%/*}/cgroup.procs" 2>/dev/null
		find "$d" -depth -type d -exec rmdir {} + 2>/dev/null
	done
	[ "${IT_KEEP:-0}" = 1 ] && echo "# kept $RUN" || rm -rf "$RUN"
	it_cleanup
}
trap cleanup EXIT

if [ -d /run/systemd/system ] && [ "$(ps -p 1 -o comm=)" = systemd ]; then
	MODE=system
	UNIT_DIR=/run/systemd/system
	sctl() { systemctl "$@"; }
else
	# A user manager of root's, in a cgroup of its own (both hierarchies on a hybrid host),
	# with its runtime, configuration and state directories under $RUN.
	MODE=user
	# What a booted system has and this one may lack: /run a mount point (else the unit's API
	# file systems bring an empty /run), and PID 1's inaccessible nodes, which ProtectHome=,
	# ProtectKernelTunables= and ProtectKernelLogs= mount over what they hide.
	mountpoint -q /run || mount --bind /run /run || it_skip "cannot make /run a mount point"
	mount -t tmpfs -o mode=0755 tmpfs /run/systemd || it_skip "cannot mount a tmpfs on /run/systemd"
	mkdir -p /run/systemd/system /run/systemd/inaccessible
	(
		cd /run/systemd/inaccessible && touch reg && mkdir dir && mknod chr c 0 0 &&
			mknod blk b 0 0 && mkfifo fifo && python3 -c 'import socket; socket.socket(socket.AF_UNIX).bind("sock")' &&
			chmod 0000 reg dir chr blk fifo sock
	) || it_skip "cannot make the inaccessible nodes under /run/systemd"
	for h in /sys/fs/cgroup/unified /sys/fs/cgroup/systemd /sys/fs/cgroup; do
		[ -f "$h/cgroup.procs" ] || continue
		mkdir "$h/${RUN##*/}" && cg_dirs+=("$h/${RUN##*/}") &&
			echo $$ >"$h/${RUN##*/}/cgroup.procs" || it_skip "cannot make a cgroup in $h"
	done
	export XDG_RUNTIME_DIR=$RUN/xdg XDG_CONFIG_HOME=$RUN/config XDG_STATE_HOME=$RUN/state
	mkdir -p "$XDG_RUNTIME_DIR" "$XDG_CONFIG_HOME" "$XDG_STATE_HOME"
	UNIT_DIR=$XDG_RUNTIME_DIR/systemd/user
	SYSTEMD_LOG_LEVEL=${FT_SYSTEMD_LOG_LEVEL:-info} SYSTEMD_LOG_TARGET=console /lib/systemd/systemd --user >"$RUN/manager.log" 2>&1 &
	manager_pid=$!
	sctl() { systemctl --user "$@"; }
	ok=0
	for _ in $(seq 100); do
		case $(sctl is-system-running 2>/dev/null) in running | degraded) ok=1; break ;; esac
		kill -0 "$manager_pid" 2>/dev/null || break
		sleep 0.1
	done
	[ "$ok" = 1 ] || it_skip "no systemd manager can run here: $(tail -n 3 "$RUN/manager.log")"
fi
it_log "running the unit under systemd's $MODE manager"

dev=$(it_loop_create 128M)
cp "$AGENT_BIN" "$RUN/fleettune-agent"
mkdir -p "$UNIT_DIR/$NAME.service.d"
cp "$UNIT" "$UNIT_DIR/$NAME.service"
# The unit as shipped; the drop-in only changes what a test must: the binary, an ephemeral
# port, a state directory of the test's own (never a real agent's /var/lib/fleettune), the
# loop device, where stderr goes, and leak detection (LeakSanitizer's ptrace is one of the
# calls the unit filters: @debug).
cat >"$UNIT_DIR/$NAME.service.d/test.conf" <<EOF
[Service]
StateDirectory=
StateDirectory=$NAME
ExecStart=
ExecStart=$RUN/fleettune-agent --listen 127.0.0.1:0 --state-dir %S/$NAME --node-name sd --allow-device $dev
StandardError=file:$RUN/agent.log
Environment=ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
Restart=no
EOF
sctl daemon-reload
it_check "systemctl start of the unit" sctl start "$NAME.service"
port=""
for _ in $(seq 100); do
	port=$(sed -n 's/.*listening on http:\/\/127\.0\.0\.1:\([0-9]*\).*/\1/p' "$RUN/agent.log" 2>/dev/null | tail -n 1)
	[ -n "$port" ] && break
	sleep 0.1
done
if [ -z "$port" ]; then
	sctl status "$NAME.service" --no-pager
	cat "$RUN/agent.log" "$RUN/manager.log" 2>/dev/null | tail -n 30
	it_fail "the agent listens under the unit"
	it_done
fi
it_pass "the agent listens under the unit"
pid=$(sctl show -p MainPID --value "$NAME.service")
state=$(tr '\0' ' ' </proc/"$pid"/cmdline | sed -n 's/.*--state-dir \([^ ]*\).*/\1/p')
U=http://127.0.0.1:$port/api/v1
T=$(cat "$state/token")

# The sandbox is in force: what the kernel says about the agent's process.
st=/proc/$pid/status
it_eq "bounding set: CAP_SYS_ADMIN alone" 0000000000200000 "$(sed -n 's/^CapBnd:\t//p' "$st")"
it_eq "no new privileges" 1 "$(sed -n 's/^NoNewPrivs:\t//p' "$st")"
it_eq "a seccomp filter" 2 "$(sed -n 's/^Seccomp:\t//p' "$st")"
it_check "a mount namespace of its own" [ "$(readlink /proc/$pid/ns/mnt)" != "$(readlink /proc/self/ns/mnt)" ]
mi=/proc/$pid/mountinfo
ro_of() { awk -v p="$1" '$5 == p { split($6, o, ","); print o[1] }' "$mi" | tail -n 1; }
it_eq "/proc/sys is read-only in the service" ro "$(ro_of /proc/sys)"
it_eq "/sys/devices is writable in the service" rw "$(ro_of /sys/devices)"
it_eq "/usr is read-only in the service" ro "$(ro_of /usr)"

it_http GET "$U/health" ""
it_eq "health" ok "$(jq -r .status <<<"$HTTP_BODY")"
sched0=$(it_sys "$dev" scheduler)
nr0=$(it_sys "$dev" nr_requests)
it_http PATCH "$U/devices/$dev/params" "$T" '{"params":{"scheduler":"mq-deadline","nr_requests":64}}'
it_eq "PATCH under the unit: 200" 200 "$HTTP_STATUS"
it_eq "scheduler written" mq-deadline "$(it_sys "$dev" scheduler)"
it_eq "nr_requests written" 64 "$(it_sys "$dev" nr_requests)"
job='{"device":"'$dev'","engine":"fio","loops":2,"params":{"nr_requests":32},
 "fio":{"rw":"randrw","bs":"64k","ioengine":"libaio","direct":true,"iodepth":8,"size":"32m",
        "runtime_s":1,"time_based":true}}'
it_job_run "under the unit" "$U" "$T" "$job"
it_eq "the fio job succeeded under the unit" succeeded "$(jq -r .state <<<"$HTTP_BODY")"
[ "$(jq -r .state <<<"$HTTP_BODY")" = succeeded ] || jq -c '{error, passes}' <<<"$HTTP_BODY"
it_eq "write.bw_mib and read.bw_mib are positive" true \
	"$(jq '[.passes[].metrics | .["write.bw_mib"] > 0 and .["read.bw_mib"] > 0] | all' <<<"$HTTP_BODY")"
it_eq "the job's nr_requests restored" 64 "$(it_sys "$dev" nr_requests)"
it_check "no filtered system call was refused" bash -c '! grep -qi "operation not permitted" "$1"' _ "$RUN/agent.log"

it_check "systemctl stop" sctl stop "$NAME.service"
it_check "the agent stopped cleanly" bash -c '! grep -qiE "AddressSanitizer|runtime error" "$1"' _ "$RUN/agent.log"
it_eq "the service ended with success" success "$(sctl show -p Result --value "$NAME.service")"
echo "$sched0" >"/sys/block/$dev/queue/scheduler"
echo "$nr0" >"/sys/block/$dev/queue/nr_requests"
it_done
