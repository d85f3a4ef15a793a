# ctl_lib.sh -- shared setup for the it_ctl_* tests: two loop devices, two agents, a plan.
# Source after lib.sh.

# ctl_two_nodes [agent args...]: loop devices A_DEV/B_DEV, agents node1/node2 on them.
ctl_two_nodes() {
	it_need_root_sysfs
	it_need_built "$CTL_BIN"
	command -v fio >/dev/null || it_skip "fio not installed"
	A_DEV=$(it_loop_create 96M) || it_skip "cannot create loop device"
	B_DEV=$(it_loop_create 96M) || it_skip "cannot create loop device"
	it_agent_start node1 --allow-device "$A_DEV" "$@" || exit 1
	it_agent_start node2 --allow-device "$B_DEV" "$@" || exit 1
	CTL_DB="$IT_TMP/ctl.db"
	A_ORIG="$(it_sys "$A_DEV" scheduler) $(it_sys "$A_DEV" nr_requests)"
	B_ORIG="$(it_sys "$B_DEV" scheduler) $(it_sys "$B_DEV" nr_requests)"
}

# ctl_plan FILE STRATEGY LOOPS [RUNTIME_S] [AXES_JSON]: write a two-node plan. token_file
# paths are relative to the plan's directory ($IT_TMP).
ctl_plan() {
	local file=$1 strategy=$2 loops=$3 runtime=${4:-1}
	local axes=${5:-'[{"param":"scheduler","values":["mq-deadline","none"]},{"param":"nr_requests","values":[64,128]}]'}
	cat >"$file" <<PLAN
{
  "name": "it $strategy",
  "nodes": [
    {"name": "node1", "url": "$node1_URL", "device": "$A_DEV", "token_file": "node1-state/token"},
    {"name": "node2", "url": "$node2_URL", "device": "$B_DEV", "token_file": "node2-state/token"}
  ],
  "baseline": {"scheduler": "mq-deadline", "nr_requests": 128},
  "axes": $axes,
  "strategy": "$strategy",
  "job": {"engine": "fio", "fio": {"rw": "randwrite", "bs": "64k", "ioengine": "libaio",
          "direct": true, "iodepth": 8, "numjobs": 1, "size": "32m", "runtime_s": $runtime,
          "time_based": true, "rate_iops": 1024}, "loops": $loops},
  "metric": "write.bw_mib",
  "goal": "maximize",
  "min_effect_pct": 5,
  "labels": {"test": "$IT_NAME"}
}
PLAN
}

# ctl_restored DESC: both devices are back at their original scheduler and nr_requests.
ctl_restored() {
	it_eq "$1: node1 restored" "$A_ORIG" "$(it_sys "$A_DEV" scheduler) $(it_sys "$A_DEV" nr_requests)"
	it_eq "$1: node2 restored" "$B_ORIG" "$(it_sys "$B_DEV" scheduler) $(it_sys "$B_DEV" nr_requests)"
}

# ctl COMMAND ARGS...: fleettune-ctl with the test's database, for the commands that take one.
ctl() {
	case $1 in
	nodes | analyze | help) "$CTL_BIN" "$@" ;;
	*) "$CTL_BIN" "$@" --db "$CTL_DB" ;;
	esac
}

# ctl_no_fio DEV: true when no fio process targets /dev/DEV.
ctl_no_fio() {
	local p
	for p in $(pgrep -x fio); do
		{ tr '\0' ' ' <"/proc/$p/cmdline"; } 2>/dev/null | grep -q -- "--filename=/dev/$1 " && return 1
	done
	return 0
}

# ctl_sweep_bg PLAN: run a sweep in the background (stdout in $IT_TMP/out.txt, the progress
# lines in $IT_TMP/err.txt: --verbose, one per pass); sets CTL_PID.
ctl_sweep_bg() {
	"$CTL_BIN" sweep "$1" --db "$CTL_DB" --verbose >"$IT_TMP/out.txt" 2>"$IT_TMP/err.txt" &
	CTL_PID=$!
}
# ctl_both_passed POINT LOOPS: pass 1 of POINT is in on both nodes.
ctl_both_passed() { [ "$(grep -c "^point $1/.*pass 1/$2" "$IT_TMP/err.txt")" = 2 ]; }

# ctl_fake_nodes SPEC_TEXT [SEED]: agents n1 and n2 on temp --sysfs-root trees (a fake disk sdb
# each: it_fake_scsi_device), bench/fakefio answering from the response surface SPEC_TEXT
# (bench/fakefio.c: base, cv, param NAME VALUE FACTOR [until N], ...); no root needed. Sets
# FAKE_ROOT1/FAKE_ROOT2 and CTL_DB.
ctl_fake_nodes() {
	local i
	FAKEFIO=$FT_BUILD_DIR/bench/fakefio
	[ -x "$CTL_BIN" ] || it_skip "controller not built at $CTL_BIN"
	[ -x "$FAKEFIO" ] || it_skip "bench/fakefio not built at $FAKEFIO"
	[ -x "$AGENT_BIN" ] || it_skip "agent not built at $AGENT_BIN"
	printf '%s\n' "$1" >"$IT_TMP/surface.spec"
	export FAKEFIO_CTL=$IT_TMP/fakefio.ctl
	printf 'spec %s\nseed %s\ncounter %s\nsleep_ms 1\n' "$IT_TMP/surface.spec" "${2:-5}" "$IT_TMP/cnt" >"$FAKEFIO_CTL"
	for i in 1 2; do
		it_fake_scsi_device "$IT_TMP/root$i" sdb ST300MM0008 2.1 ATA "Z1Z0AAA$i"
		FAKEFIO_SYSFS=$IT_TMP/root$i FAKEFIO_NODE=$i \
			it_agent_start "n$i" --sysfs-root "$IT_TMP/root$i" --allow-device sdb --fio "$FAKEFIO" ||
			exit 1
	done
	FAKE_ROOT1=$IT_TMP/root1
	FAKE_ROOT2=$IT_TMP/root2
	CTL_DB="$IT_TMP/ctl.db"
}

# ctl_fake_plan FILE STRATEGY AXES_JSON [EXTRA_JSON_MEMBERS]: a plan for ctl_fake_nodes' agents,
# baseline nr_requests 128, a 1 s fio write job of 5 loops.
ctl_fake_plan() {
	cat >"$1" <<PLAN
{"name": "it $2", "nodes": [{"name": "n1", "url": "$n1_URL", "device": "sdb", "token_file": "n1-state/token"},
  {"name": "n2", "url": "$n2_URL", "device": "sdb", "token_file": "n2-state/token"}],
 "baseline": {"nr_requests": 128},
 "axes": $3,
 "strategy": "$2",
 "job": {"fio": {"rw": "write", "runtime_s": 1}, "loops": 5},
 "metric": "write.bw_mib", "min_effect_pct": 5${4:+, $4}}
PLAN
}
