#!/bin/bash
# rollout.sh -- fleettune-ctl rollout against `apply` on AGENTS agents (256; each on a temp
# --sysfs-root tree, as bench/fanout.sh starts them): a readback rollout in waves 1, 10 %, 50 %,
# 100 %, wall per wave and in total, against apply to all at once (target: the rollout within
# 3x apply); then 1 node in 20 made to fail its write (its read_ahead_kb file immutable, so the
# write fails after the dry run passed): the rollout must stop in the first wave with more than
# K failures, put that wave back and leave no node half-changed.
#
# usage: bench/rollout.sh [BUILD_DIR]     (env: AGENTS=256 ROUNDS=3 K=3)
# Prints RESULT lines; exits non-zero only when something did not run or a check failed.
set -u
BUILD=${1:-${FT_BUILD_DIR:-$(cd "$(dirname "$0")/.." && pwd)/build}}
export FT_BUILD_DIR=$BUILD
source "$(dirname "$0")/../tests/integration/lib.sh"
source "$(dirname "$0")/fleet_lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/bench_lib.sh"
bench_ports 22000 # agents listen on named ports: FT_BENCH_PORT_BASE + N
AGENTS=${AGENTS:-256}
ROUNDS=${ROUNDS:-3}
K=${K:-3}
[ -x "$AGENT_BIN" ] && [ -x "$CTL_BIN" ] || { echo "build first: $AGENT_BIN, $CTL_BIN" >&2; exit 1; }
DB=$IT_TMP/ctl.db
FAILING=()

median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
now() { date +%s.%N; }

# The immutable files must become writable again before the cleanup removes the trees.
unfail() {
	local i
	for i in "${FAILING[@]}"; do
		chattr -i "$IT_TMP/root$i/sys/block/sdb/queue/read_ahead_kb" 2>/dev/null
	done
	FAILING=()
}
trap 'unfail; it_cleanup' EXIT

echo "# $(uptime)"
echo "# starting $AGENTS agents on 127.0.0.1 with --sysfs-root trees"
t0=$(now)
fleet_start "$AGENTS" || exit 1
echo "# $AGENTS agents up in $(echo "$(now) - $t0" | bc) s"
plan=$IT_TMP/fleet.json
{
	echo '{"name":"rollout bench","nodes":'
	fleet_nodes_json "$AGENTS"
	echo ',"baseline":{"read_ahead_kb":128},"axes":[{"param":"read_ahead_kb","values":[256]}],'
	echo '"job":{"fio":{"rw":"randwrite"}}}'
} >"$plan"
ra() { cat "$IT_TMP/root$1/sys/block/sdb/queue/read_ahead_kb"; }

# 1. apply (nr_requests) and a readback rollout (read_ahead_kb), ROUNDS each, alternated.
apply_times=()
roll_times=()
waves_last=""
for r in $(seq "$ROUNDS"); do
	v=$((100 + r))
	t0=$(now)
	"$CTL_BIN" apply "$plan" --params "{\"nr_requests\":$v}" >"$IT_TMP/apply.out" || { cat "$IT_TMP/apply.out"; exit 1; }
	t1=$(now)
	ok=$(grep -c "nr_requests=$v\$" "$IT_TMP/apply.out")
	[ "$ok" = "$AGENTS" ] || { echo "apply: only $ok of $AGENTS nodes read back $v" >&2; exit 1; }
	apply_times+=("$(echo "$t1 - $t0" | bc)")
	v=$((1024 + 8 * r))
	t0=$(now)
	"$CTL_BIN" rollout "$plan" --params "{\"read_ahead_kb\":$v}" --canary 1 --waves 10%,50%,100% \
		--check readback --profile bench --db "$DB" >"$IT_TMP/roll.out" 2>"$IT_TMP/roll.err"
	rc=$?
	t1=$(now)
	[ "$rc" = 0 ] || { cat "$IT_TMP/roll.out" "$IT_TMP/roll.err"; echo "rollout exited $rc" >&2; exit 1; }
	[ "$(ra "$AGENTS")" = "$v" ] && [ "$(ra 1)" = "$v" ] || { echo "rollout did not apply $v" >&2; exit 1; }
	roll_times+=("$(echo "$t1 - $t0" | bc)")
	id=$(sqlite3 "$DB" 'SELECT max(id) FROM rollouts')
	waves_last=$(sqlite3 "$DB" "SELECT group_concat(nodes || ':' || printf('%.3f', finished_at - started_at), ' ') FROM (SELECT * FROM rollout_waves WHERE rollout_id = $id ORDER BY wave)")
	echo "# round $r: apply ${apply_times[-1]} s, rollout ${roll_times[-1]} s (r$id; waves nodes:wall_s $waves_last)"
done
apply_med=$(printf '%s\n' "${apply_times[@]}" | median)
roll_med=$(printf '%s\n' "${roll_times[@]}" | median)
echo "RESULT apply_s=$apply_med runs=${apply_times[*]}"
echo "RESULT rollout_readback_s=$roll_med runs=${roll_times[*]} waves(nodes:wall_s, last run)=$waves_last"
echo "RESULT ratio=$(echo "scale=2; $roll_med / $apply_med" | bc) (target <= 3)"

# 2. 1 node in 20 fails its write: the rollout stops in the first wave with more than K.
if [ "$(id -u)" != 0 ]; then
	echo "RESULT failures=skipped (needs root for chattr +i)"
	exit 0
fi
for i in $(seq 20 20 "$AGENTS"); do
	if ! chattr +i "$IT_TMP/root$i/sys/block/sdb/queue/read_ahead_kb" 2>/dev/null; then
		echo "RESULT failures=skipped (chattr +i is not supported on $IT_TMP's filesystem)"
		unfail
		exit 0
	fi
	FAILING+=("$i")
done
before=()
for i in $(seq "$AGENTS"); do before[$i]=$(ra "$i"); done
v=4096
t0=$(now)
"$CTL_BIN" rollout "$plan" --params "{\"read_ahead_kb\":$v}" --canary 1 --waves 10%,50%,100% \
	--check readback --max-failures "$K" --profile bench --db "$DB" >"$IT_TMP/fail.out" 2>"$IT_TMP/fail.err"
rc=$?
t1=$(now)
id=$(sqlite3 "$DB" 'SELECT max(id) FROM rollouts')
stopped_wave=$(sqlite3 "$DB" "SELECT min(wave) FROM rollout_waves WHERE rollout_id = $id AND check_outcome = 'failed'")
waves=$(sqlite3 "$DB" "SELECT group_concat(wave || ':' || nodes || 'n/' || failures || 'f/' || ifnull(check_outcome, '-'), ' ') FROM (SELECT * FROM rollout_waves WHERE rollout_id = $id ORDER BY wave)")
echo "# ${#FAILING[@]} failing nodes (every 20th); K=$K; rollout r$id exited $rc in $(echo "$t1 - $t0" | bc) s; waves $waves"
sed -n 's/^why: /# why: /p' "$IT_TMP/fail.out"
# No node half-changed: each holds the new profile and value, or no change at all.
half=0
new=0
for i in $(seq "$AGENTS"); do
	state=$(sqlite3 "$DB" "SELECT state FROM rollout_nodes WHERE rollout_id = $id AND idx = $((i - 1))")
	if [ "$state" = new ]; then
		[ "$(ra "$i")" = "$v" ] || { half=$((half + 1)); echo "# a$i: new but read_ahead_kb $(ra "$i")"; }
		new=$((new + 1))
	else
		[ "$(ra "$i")" = "${before[$i]}" ] || { half=$((half + 1)); echo "# a$i: $state but read_ahead_kb $(ra "$i") (was ${before[$i]})"; }
	fi
done
"$CTL_BIN" verify "$plan" --profile bench --db "$DB" >"$IT_TMP/verify.out"
vrc=$?
echo "RESULT failures=${#FAILING[@]} K=$K exit=$rc stopped_wave=${stopped_wave:-none} new=$new half_changed=$half verify_exit=$vrc"
unfail
[ "$rc" = 2 ] && [ "$half" = 0 ] && [ "$vrc" = 0 ] || exit 1
