#!/usr/bin/env bash
# demo.sh -- the README's main command: install, build, then a real two-node sweep that decides.
# Two loop devices backed by files of seeded pseudo-random data on this machine's disk (direct
# I/O), made twins in every queue setting the plan does not set, a node1
# and a node2 agent on 127.0.0.1, and a sequential sweep with fleettune-ctl of buffered
# sequential 4 KiB reads: read_ahead_kb first (the knob the seeds' authors turned with setra:
# it matters here), then nr_requests (which one sequential reader never fills: it does not).
# Adaptive loops, 3 to 10 loops x 2 s per point, about 3 minutes. The database, the plan, the
# agents' state and logs stay in a directory that outlives the run (printed at the end with
# the commands to explore it); the devices are restored and detached and their backing files
# removed.
#   FLEETTUNE_DEMO_DIR=DIR   keep everything in DIR (default /var/tmp/fleettune-demo-DATE)
#   FLEETTUNE_DEMO_BUILD=DIR build directory (default build-demo)
set -euo pipefail
cd "$(dirname "$0")/.."
top=$PWD
[ "$(id -u)" = 0 ] || { echo "demo.sh: run as root (it creates loop devices and writes /sys)" >&2; exit 1; }
./scripts/deps.sh
build=${FLEETTUNE_DEMO_BUILD:-$top/build-demo}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFT_TESTS=OFF >/dev/null
cmake --build "$build" -j"$(nproc)" >/dev/null
AGENT=$build/agent/fleettune-agent
CTL=$build/controller/fleettune-ctl

keep=${FLEETTUNE_DEMO_DIR:-/var/tmp/fleettune-demo-$(date +%Y%m%d-%H%M%S)}
mkdir -p -m 700 "$keep"
keep=$(cd "$keep" && pwd)
# The backing files are written in full on this machine's disk, with bytes from a seeded
# generator (AES-128 in counter mode over zeros, keyed by the node's name: the same bytes every
# run, never zeros, no two blocks alike), and read with direct I/O: every request the loop
# device gets is a real read from the disk, with its latency, which is what read-ahead is for
# (holes, or zero-filled blocks a virtual disk's host may answer from memory, would not need
# it). They are removed at the end.
img_dir=$(mktemp -d "$keep/img-XXXXXX")
devs=()
pids=()
cleanup() {
	local pid dev
	for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
	for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
	for dev in "${devs[@]}"; do losetup -d "/dev/$dev" 2>/dev/null || true; done
	rm -rf "$img_dir"
}
trap cleanup EXIT

# 3 GiB each: a 2 s pass reads less than that even at 1.5 GB/s, so it never wraps around to
# data it has read already (which the page cache would serve).
dio=on
for n in 1 2; do
	key=$(printf 'fleettune-demo-node%s' "$n" | sha256sum | cut -c1-32)
	# (openssl is stopped by the pipe once dd has its 3 GiB: not a failure.)
	{ openssl enc -aes-128-ctr -nosalt -K "$key" -iv 00000000000000000000000000000000 </dev/zero 2>/dev/null || true; } |
		dd of="$img_dir/node$n.img" bs=4M count=768 iflag=fullblock oflag=direct status=none
	dev=$(losetup --direct-io=on --find --show "$img_dir/node$n.img" 2>/dev/null) || dev=""
	[ -n "$dev" ] || dev=$(losetup --find --show "$img_dir/node$n.img")
	devs+=("${dev#/dev/}")
	# losetup may fall back to buffered I/O silently: the kernel says what it does.
	[ "$(cat "/sys/block/${dev#/dev/}/loop/dio" 2>/dev/null)" = 1 ] || dio=off
done
# Twins: node2's device gets node1's queue settings (scripts/loop-twin says why).
./scripts/loop-twin "${devs[0]}" "${devs[1]}" read_ahead_kb
disk=$(df --output=source "$img_dir" | tail -n 1)
queue() { # DEV: the settings the sweep changes, as the kernel reports them
	local q=/sys/block/$1/queue
	echo "scheduler=$(sed 's/.*\[\(.*\)\].*/\1/' $q/scheduler) read_ahead_kb=$(cat $q/read_ahead_kb) nr_requests=$(cat $q/nr_requests)"
}
echo "== loop devices: node1=${devs[0]} node2=${devs[1]}, 3 GiB each, backed by files in $img_dir ($disk) filled with seeded pseudo-random bytes, direct I/O to them $dio"
if [ "$dio" = off ]; then
	echo "   note: the filesystem of $img_dir refuses direct I/O to the backing files, so the loop" \
		"devices go through its page cache: read-ahead matters less and the figures are noisier"
fi
for n in 1 2; do echo "   ${devs[$((n - 1))]}: $(queue "${devs[$((n - 1))]}")"; done

# wait_listening N PID LOG: the port agent N prints once it listens; fails if the agent
# exits or 20 s pass first. Nothing is read before the agent has written it.
wait_listening() {
	local port="" i
	for i in $(seq 200); do
		if [ -s "$3" ]; then
			port=$(sed -n 's/.*listening on http:\/\/127\.0\.0\.1:\([0-9]*\).*/\1/p' "$3" | tail -n 1)
			[ -n "$port" ] && { echo "$port"; return 0; }
		fi
		kill -0 "$2" 2>/dev/null || break
		sleep 0.1
	done
	echo "demo.sh: agent node$1 did not start:" >&2
	cat "$3" >&2 2>/dev/null || true
	return 1
}

ports=()
for n in 1 2; do
	state=$keep/state$n
	mkdir -p -m 700 "$state"
	"$AGENT" --listen 127.0.0.1:0 --node-name "node$n" --state-dir "$state" \
		--allow-device "${devs[$((n - 1))]}" 2>"$keep/agent$n.log" &
	pids+=($!)
	port=$(wait_listening "$n" "${pids[-1]}" "$keep/agent$n.log")
	[ -s "$state/token" ] || { echo "demo.sh: node$n wrote no token in $state" >&2; exit 1; }
	ports+=("$port")
	echo "== node$n agent on http://127.0.0.1:$port (device ${devs[$((n - 1))]}, state $state)"
done

cat >"$keep/plan.json" <<JSON
{
  "name": "demo: read_ahead_kb then nr_requests, buffered sequential reads",
  "nodes": [
    {"name": "node1", "url": "http://127.0.0.1:${ports[0]}", "device": "${devs[0]}", "token_file": "state1/token"},
    {"name": "node2", "url": "http://127.0.0.1:${ports[1]}", "device": "${devs[1]}", "token_file": "state2/token"}
  ],
  "baseline": {"scheduler": "mq-deadline", "read_ahead_kb": 16, "nr_requests": 128},
  "axes": [
    {"param": "read_ahead_kb", "values": [128, 4096]},
    {"param": "nr_requests", "values": [32, 512]}
  ],
  "strategy": "sequential",
  "job": {"engine": "fio",
          "fio": {"rw": "read", "bs": "4k", "ioengine": "psync", "direct": false,
                  "size": "3g", "runtime_s": 2, "time_based": true},
          "loops": {"min": 3, "max": 10}},
  "metric": "read.bw_mib",
  "goal": "maximize",
  "min_effect_pct": 5,
  "labels": {"demo": "loop"}
}
JSON
echo "== plan: $keep/plan.json"
cat <<TXT
== what the two nodes share: both loop devices are on this one machine, backed by files on
   the same disk ($disk). Each gets its own file, agent, port and state, but they share that
   disk, the CPU cores ($(nproc)), the memory and the kernel with each other and with
   everything else running here: what slows the machine slows both at once, and at high
   read-ahead the two split the disk's bandwidth. Each pass reads with 4 KiB read() calls
   through the page cache (fio drops the device's cache before each pass), so read_ahead_kb
   decides how much the kernel asks the disk for at a time. The baseline is a small 16 KiB
   read-ahead (a device tuned for random I/O); 128 is the kernel's default, 4096 what the
   seeds set with blockdev --setra 8192. nr_requests bounds the requests queued at once,
   which one sequential reader never comes near: it should make no real difference.
TXT
rc=0
"$CTL" sweep "$keep/plan.json" --db "$keep/ctl.db" | tee "$keep/table.txt" || rc=$?
cat <<'TXT'
== how to read the table: each node cell is the mean ± stdev of that node's passes (MiB/s);
   "loops" is how many each point needed: after 3, one more round at a time until the
   verdict was decided or 10 were run. A sequential sweep has one block per axis (its first
   row is the baseline it is compared with: the original one, then the best configuration so
   far) and a final confirmation of the chosen configuration against the original baseline,
   measured again beside it.
   "Δ vs baseline" is the fleet effect with its 95 % interval; the verdict is decided on it:
   significant gain or loss (the interval excludes 0 and the effect is at least 5 %), no real
   difference (its 90 % interval inside ±5 %), inconclusive, or nodes disagree (named).
   With up to 8 looks per point each look is judged at 5 %/8, a wider interval than the 95 %
   shown: where that makes a row whose 95 % interval clears 0 inconclusive, its verdict says
   which interval decided it.
   The best line is the final confirmation's: a configuration is the best only when it is a
   gain beside the original baseline measured again in the same rounds; rows that looked
   better earlier but did not hold up are named there as "not confirmed", and export, apply
   --best and rollout --best refuse them.
   A "noise:" line means the passes vary too much to tell 5 % apart, and says what would.
   The points of a block run in interleaved rounds (one loop of each point a round, both
   nodes on the same point at once, in a seeded order that changes every round), and each
   node's rows are judged within rounds: what the machine does to a whole round (a busy
   neighbour, the disk warming up) cancels. A "drift:" line says how far a node's figures
   moved over the sweep; a "warm-up:" line names first passes that ran well below the rest.
TXT
echo "== after the sweep (the controller restored both nodes):"
for n in 1 2; do echo "   ${devs[$((n - 1))]}: $(queue "${devs[$((n - 1))]}")"; done
id=$("$CTL" history --limit 1 --db "$keep/ctl.db" 2>/dev/null | awk 'NR > 1 && $1 ~ /^[0-9]+$/ { print $1; exit }')
id=${id:-1}
cat <<TXT
== kept in $keep (the agents are stopped; the loop devices are gone):
   database  $keep/ctl.db
   plan      $keep/plan.json
   explore it:
     $CTL show $id --db $keep/ctl.db
     $CTL report $id --html $keep/report.html --db $keep/ctl.db
     $AGENT --listen 127.0.0.1:7070 --node-name node1 --state-dir $keep/state1 --web-root $top/web
       then open http://127.0.0.1:7070/#/compare (node1's results, read-only: no device is
       allowlisted); the token it asks for is in $keep/state1/token
TXT
exit $rc
