#!/bin/bash
# fanout.sh -- fleettune-ctl's fan-out against the tool a user would pick: `apply` of one
# parameter to AGENTS agents (each on a temp --sysfs-root tree) against one
# `curl --parallel --parallel-max 32` process sending the same PATCHes (a config file of one
# request per agent, keep-alive as curl does it), interleaved: apply, curl, apply, curl ...
# ROUNDS times, each checked (every agent read back its value). Prints min/median/max of both
# and their ratio; target: apply / curl --parallel <= 1 (issue 13's "apply < 1 s at 1 024").
# For 1 024 agents use a Release build (an ASan agent takes ~4x the memory).
#
# usage: bench/fanout.sh [BUILD_DIR]  (env: AGENTS=64 ROUNDS=5 FT_BENCH_PORT_BASE=21000: agent
#        I listens on BASE + I)
set -u
here=$(cd "$(dirname "$0")" && pwd)
BUILD=${1:-${FT_BUILD_DIR:-$here/../build}}
export FT_BUILD_DIR=$BUILD
source "$here/../tests/integration/lib.sh"
source "$here/fleet_lib.sh"
source "$here/bench_lib.sh"
bench_ports 21000
AGENTS=${AGENTS:-64}
ROUNDS=${ROUNDS:-5}
[ -x "$AGENT_BIN" ] && [ -x "$CTL_BIN" ] || { echo "build first: $AGENT_BIN, $CTL_BIN" >&2; exit 1; }
curl --help all 2>/dev/null | grep -q -- --parallel-max || { echo "curl without --parallel" >&2; exit 1; }

echo "# fanout.sh: $AGENTS agents, $ROUNDS rounds; $(bench_load)"
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

# curl_config V: one PATCH of nr_requests=V per agent, as curl's --config takes them.
curl_config() {
	local i
	for i in $(seq "$AGENTS"); do
		[ "$i" -gt 1 ] && echo next # each request its own headers and body
		printf 'url = "%s/api/v1/devices/sdb/params"\nrequest = "PATCH"\n' "${FLEET_URL[$i]}"
		printf 'header = "Authorization: Bearer %s"\nheader = "Content-Type: application/json"\n' \
			"$(<"$IT_TMP/a$i-state/token")"
		printf 'data = "{\\"params\\":{\\"nr_requests\\":%d}}"\noutput = "/dev/null"\nwrite-out = "%%{http_code}\\n"\n' "$1"
	done
}
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
	curl_config "$v" >"$IT_TMP/curl.cfg" # written before the clock starts
	t0=$(date +%s.%N)
	curl -s --no-progress-meter --parallel --parallel-max 32 --config "$IT_TMP/curl.cfg" >"$IT_TMP/curl.out" 2>"$IT_TMP/curl.err"
	t1=$(date +%s.%N)
	[ "$(grep -c '^200$' "$IT_TMP/curl.out")" = "$AGENTS" ] || { echo "curl --parallel: not every PATCH answered 200:" >&2; sort "$IT_TMP/curl.out" | uniq -c >&2; head -12 "$IT_TMP/curl.cfg" >&2; exit 1; }
	[ "$(cat "$IT_TMP/root$AGENTS/sys/block/sdb/queue/nr_requests")" = "$v" ] || { echo "curl --parallel did not apply" >&2; exit 1; }
	curl_times+=("$(echo "$t1 - $t0" | bc)")
	echo "# round $r: apply ${ctl_times[-1]} s, curl --parallel ${curl_times[-1]} s"
done
ctl_med=$(printf '%s\n' "${ctl_times[@]}" | bench_median)
curl_med=$(printf '%s\n' "${curl_times[@]}" | bench_median)
echo "RESULT apply to $AGENTS agents: $(printf '%s\n' "${ctl_times[@]}" | bench_mmm) s"
echo "RESULT curl --parallel --parallel-max 32: $(printf '%s\n' "${curl_times[@]}" | bench_mmm) s"
ratio=$(echo "scale=3; $ctl_med / $curl_med" | bc)
echo "RESULT apply / curl --parallel (medians): $ratio"
bench_target "apply / curl --parallel --parallel-max 32 at $AGENTS agents" "$ratio" "<=" 1
[ "$AGENTS" -ge 1024 ] && bench_target "apply to $AGENTS agents, s (median)" "$ctl_med" "<" 1
fleet_stop
exit 0
