#!/usr/bin/env bash
# demo.sh -- the README's main command: install, build, then a real two-node sweep.
# Creates two loop devices with direct I/O (the page cache of the backing file would make the
# figures noisy; where the backing filesystem refuses, plain loop devices and a note), starts
# node1 and node2 agents on 127.0.0.1 (two ports, separate state dirs), runs a sequential sweep
# (scheduler x nr_requests, adaptive loops: 3 to 8 loops x 2 s of fio per point) with
# fleettune-ctl, prints the table and how to read it, and stops everything, restoring and
# detaching the devices.
set -euo pipefail
cd "$(dirname "$0")/.."
top=$PWD
[ "$(id -u)" = 0 ] || { echo "demo.sh: run as root (it creates loop devices and writes /sys)" >&2; exit 1; }
./scripts/deps.sh
# Debian builds bfq and kyber as modules, listed in queue/scheduler only once loaded.
modprobe -q bfq 2>/dev/null || true
modprobe -q kyber-iosched 2>/dev/null || true
cmake -S . -B build-demo -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFT_TESTS=OFF >/dev/null
cmake --build build-demo -j"$(nproc)" >/dev/null
AGENT=$top/build-demo/agent/fleettune-agent
CTL=$top/build-demo/controller/fleettune-ctl

work=$(mktemp -d /tmp/fleettune-demo-XXXXXX)
devs=()
pids=()
cleanup() {
	local pid dev
	for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
	for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
	for dev in "${devs[@]}"; do losetup -d "/dev/$dev" 2>/dev/null || true; done
	rm -rf "$work"
}
trap cleanup EXIT

dio=on
for n in 1 2; do
	truncate -s 512M "$work/node$n.img"
	dev=$(losetup --direct-io=on --find --show "$work/node$n.img" 2>/dev/null) || dev=""
	if [ -z "$dev" ]; then
		dev=$(losetup --find --show "$work/node$n.img")
	fi
	devs+=("${dev#/dev/}")
	# losetup may fall back to buffered I/O silently: the kernel says what it does.
	[ "$(cat "/sys/block/${dev#/dev/}/loop/dio" 2>/dev/null)" = 1 ] || dio=off
done
echo "== loop devices: node1=${devs[0]} node2=${devs[1]}, direct I/O $dio"
if [ "$dio" = off ]; then
	echo "   note: the filesystem of $work refuses direct I/O to the backing files, so the loop" \
		"devices go through the page cache and the figures will be noisier"
fi
for n in 1 2; do
	d=${devs[$((n - 1))]}
	echo "   ${d}: scheduler=$(sed 's/.*\[\(.*\)\].*/\1/' /sys/block/$d/queue/scheduler) nr_requests=$(cat /sys/block/$d/queue/nr_requests)"
done

ports=()
for n in 1 2; do
	mkdir -p "$work/state$n"
	"$AGENT" --listen 127.0.0.1:0 --node-name "node$n" --state-dir "$work/state$n" \
		--allow-device "${devs[$((n - 1))]}" 2>"$work/agent$n.log" &
	pids+=($!)
	port=""
	for _ in $(seq 100); do
		port=$(sed -n 's/.*listening on http:\/\/127\.0\.0\.1:\([0-9]*\).*/\1/p' "$work/agent$n.log")
		[ -n "$port" ] && break
		sleep 0.05
	done
	[ -n "$port" ] || { cat "$work/agent$n.log" >&2; exit 1; }
	ports+=("$port")
	echo "== node$n agent on http://127.0.0.1:$port (device ${devs[$((n - 1))]})"
done

cat >"$work/plan.json" <<JSON
{
  "name": "demo: scheduler x nr_requests on two loop devices",
  "nodes": [
    {"name": "node1", "url": "http://127.0.0.1:${ports[0]}", "device": "${devs[0]}", "token_file": "state1/token"},
    {"name": "node2", "url": "http://127.0.0.1:${ports[1]}", "device": "${devs[1]}", "token_file": "state2/token"}
  ],
  "baseline": {"scheduler": "mq-deadline", "nr_requests": 128},
  "axes": [
    {"param": "scheduler", "values": ["none", "kyber", "bfq"]},
    {"param": "nr_requests", "values": [64, 256]}
  ],
  "strategy": "sequential",
  "job": {"engine": "fio",
          "fio": {"rw": "randwrite", "bs": "4M", "ioengine": "libaio", "direct": true, "iodepth": 64,
                  "numjobs": 4, "size": "256m", "runtime_s": 2, "time_based": true},
          "loops": {"min": 3, "max": 8}},
  "metric": "write.bw_mib",
  "goal": "maximize",
  "min_effect_pct": 5,
  "labels": {"demo": "loop"}
}
JSON
echo "== plan: $work/plan.json"
rc=0
"$CTL" sweep "$work/plan.json" --db "$work/ctl.db" || rc=$?
cat <<'TXT'
== how to read the table: each node cell is the mean ± stdev of that node's passes (MiB/s);
   "loops" is how many each point needed: after 3, one more at a time until the verdict was
   decided or 8 were run. "Δ vs baseline" is the fleet effect with its 95 % interval; the
   verdict is decided on it: significant gain or loss (the interval excludes 0 and the effect
   is at least 5 %), no real difference (within ±5 %), inconclusive, or nodes disagree (named).
   With up to 6 looks per point each look is judged at 5 %/6, a wider interval than the 95 %
   shown: a row whose interval just clears 0 can still be inconclusive.
   A "noise:" line means the passes vary too much to tell 5 % apart, and what would.
TXT
echo "== after the sweep (the controller restored both nodes):"
for n in 1 2; do
	d=${devs[$((n - 1))]}
	echo "   ${d}: scheduler=$(sed 's/.*\[\(.*\)\].*/\1/' /sys/block/$d/queue/scheduler) nr_requests=$(cat /sys/block/$d/queue/nr_requests)"
done
exit $rc
