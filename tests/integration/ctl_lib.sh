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
          "time_based": true}, "loops": $loops},
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
# lines in $IT_TMP/err.txt); sets CTL_PID.
ctl_sweep_bg() {
	"$CTL_BIN" sweep "$1" --db "$CTL_DB" >"$IT_TMP/out.txt" 2>"$IT_TMP/err.txt" &
	CTL_PID=$!
}
# ctl_both_passed POINT LOOPS: pass 1 of POINT is in on both nodes.
ctl_both_passed() { [ "$(grep -c "^point $1/.*pass 1/$2" "$IT_TMP/err.txt")" = 2 ]; }
