#!/bin/bash
# fanout.sh -- fleettune-ctl fan-out: `apply` of one parameter to AGENTS agents (each on a temp
# --sysfs-root tree; 1 024 is the issue-13 target, apply < 1 s) against a sequential curl loop
# doing the same PATCHes; then the controller's overhead in a real 2-node sweep on loop
# devices with fio. For 1 024 agents use a Release build (an ASan agent takes ~4x the memory).
#
# usage: bench/fanout.sh [BUILD_DIR]     (env: AGENTS=64 ROUNDS=5 SWEEP=1)
# Prints the figures; exits non-zero only when something did not run.
set -u
BUILD=${1:-${FT_BUILD_DIR:-$(cd "$(dirname "$0")/.." && pwd)/build}}
export FT_BUILD_DIR=$BUILD
source "$(dirname "$0")/../tests/integration/lib.sh"
AGENTS=${AGENTS:-64}
ROUNDS=${ROUNDS:-5}
[ -x "$AGENT_BIN" ] && [ -x "$CTL_BIN" ] || { echo "build first: $AGENT_BIN, $CTL_BIN" >&2; exit 1; }

source "$(dirname "$0")/fleet_lib.sh"

median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

echo "# starting $AGENTS agents on 127.0.0.1 with --sysfs-root trees"
t0=$(date +%s.%N)
fleet_start "$AGENTS" || exit 1
echo "# $AGENTS agents up in $(echo "$(date +%s.%N) - $t0" | bc) s"
plan=$IT_TMP/fleet.json
{
	echo '{"name":"fanout","nodes":'
	fleet_nodes_json "$AGENTS"
	echo ',"baseline":{"nr_requests":64},"axes":[{"param":"nr_requests","values":[128]}],'
	echo '"job":{"fio":{"rw":"randwrite"}}}'
} >"$plan"

ctl_times=()
curl_times=()
for r in $(seq "$ROUNDS"); do
	v=$((100 + r))
	t0=$(date +%s.%N)
	"$CTL_BIN" apply "$plan" --params "{\"nr_requests\":$v}" >"$IT_TMP/apply.out" || { cat "$IT_TMP/apply.out"; exit 1; }
	t1=$(date +%s.%N)
	ok=$(grep -c "nr_requests=$v\$" "$IT_TMP/apply.out")
	[ "$ok" = "$AGENTS" ] || { echo "apply: only $ok of $AGENTS nodes read back $v" >&2; exit 1; }
	ctl_times+=("$(echo "$t1 - $t0" | bc)")
	v=$((200 + r))
	t0=$(date +%s.%N)
	for i in $(seq "$AGENTS"); do
		curl -s -f -o /dev/null -X PATCH -H "Authorization: Bearer $(<"$IT_TMP/a$i-state/token")" \
			-H 'Content-Type: application/json' \
			--data-binary "{\"params\":{\"nr_requests\":$v}}" \
			"${FLEET_URL[$i]}/api/v1/devices/sdb/params" || { echo "curl to a$i failed" >&2; exit 1; }
	done
	t1=$(date +%s.%N)
	curl_times+=("$(echo "$t1 - $t0" | bc)")
	[ "$(cat "$IT_TMP/root$AGENTS/sys/block/sdb/queue/nr_requests")" = "$v" ] || { echo "curl loop did not apply" >&2; exit 1; }
done
ctl_med=$(printf '%s\n' "${ctl_times[@]}" | median)
curl_med=$(printf '%s\n' "${curl_times[@]}" | median)
echo "apply to $AGENTS agents: fleettune-ctl median ${ctl_med} s (runs: ${ctl_times[*]})"
echo "sequential curl loop:     median ${curl_med} s (runs: ${curl_times[*]})"
echo "speed-up: $(echo "scale=1; $curl_med / $ctl_med" | bc)x   (targets: < 1 s, >= 20x)"

fleet_stop

[ "${SWEEP:-1}" = 1 ] || exit 0
# Controller overhead in a real 2-node sweep: loop devices, real fio.
if [ "$(id -u)" != 0 ] || ! command -v fio >/dev/null; then
	echo "overhead: skipped (needs root for loop devices and fio)"
	exit 0
fi
A=$(it_loop_create 128M)
B=$(it_loop_create 128M)
it_agent_start s1 --allow-device "$A" || exit 1
it_agent_start s2 --allow-device "$B" || exit 1
cat >"$IT_TMP/sweep.json" <<PLAN
{"name": "overhead", "strategy": "grid",
 "nodes": [{"name": "node1", "url": "$s1_URL", "device": "$A", "token_file": "s1-state/token"},
           {"name": "node2", "url": "$s2_URL", "device": "$B", "token_file": "s2-state/token"}],
 "baseline": {"scheduler": "mq-deadline", "nr_requests": 128},
 "axes": [{"param": "scheduler", "values": ["mq-deadline", "none"]},
          {"param": "nr_requests", "values": [64, 128]}],
 "job": {"fio": {"rw": "randwrite", "bs": "64k", "ioengine": "libaio", "direct": true,
                 "iodepth": 8, "size": "64m", "runtime_s": 2, "time_based": true}, "loops": 3}}
PLAN
t0=$(date +%s.%N)
"$CTL_BIN" sweep "$IT_TMP/sweep.json" --db "$IT_TMP/ctl.db" >"$IT_TMP/sweep.out" 2>"$IT_TMP/sweep.err"
rc=$?
t1=$(date +%s.%N)
[ "$rc" = 0 ] || { cat "$IT_TMP/sweep.err"; exit 1; }
cat "$IT_TMP/sweep.out"
wall=$(echo "$t1 - $t0" | bc)
jobs=$("$CTL_BIN" show 1 --db "$IT_TMP/ctl.db" --format json | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(sum(max(n["job_runtime_s"] or 0 for n in p["nodes"]) for p in d["points"]))')
grep "overhead" "$IT_TMP/sweep.err" | sed 's/^.*info: /controller: /'
echo "2-node sweep: wall ${wall} s (process start to exit); agents' job runtimes (1 s resolution, longest node per point) sum ${jobs} s"
echo "overhead = wall / sum of job runtimes = $(echo "scale=3; $wall / $jobs" | bc)   (target <= 1.02)"
