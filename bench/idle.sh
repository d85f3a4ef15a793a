#!/bin/bash
# idle.sh -- what the per-node daemon costs when nobody uses it, against the one users would
# pick: node_exporter (Debian's prometheus-node-exporter, its default collectors). Both run at
# once on this machine's real /sys, the agent with one --allow-device loop device. In ROUNDS
# rounds, each measured in turn (agent, node_exporter, agent, ...):
#   idle CPU      user + system time over IDLE_S seconds with no request (/proc/PID/stat),
#                 in % of a core;
#   idle opens    files opened per second over IDLE_S seconds (strace -f -e openat, in a
#                 window of its own: strace slows what it watches);
#   per scrape    SCRAPES GET /metrics one after another: CPU ms per scrape, and (a window of
#                 its own) files opened per scrape.
# Prints min/median/max per daemon and the agent's ratio to node_exporter; targets: the idle
# agent opens no file and uses no measurable CPU (< 0.01 % of a core).
# usage: bench/idle.sh [BUILD_DIR]   (root; env ROUNDS=3 IDLE_S=10 SCRAPES=50
#        FT_BENCH_PORT_BASE=26000: the agent on BASE + 1, node_exporter on BASE + 2; needs
#        prometheus-node-exporter and strace: WITH_BENCH=1 scripts/deps.sh)
set -u
here=$(cd "$(dirname "$0")" && pwd)
BUILD=${1:-${FT_BUILD_DIR:-$here/../build}}
source "$here/bench_lib.sh"
bench_ports 26000
ROUNDS=${ROUNDS:-3}
IDLE_S=${IDLE_S:-10}
SCRAPES=${SCRAPES:-50}
AGENT=$BUILD/agent/fleettune-agent
NE=$(command -v prometheus-node-exporter || command -v node_exporter || true)
[ -x "$AGENT" ] || { echo "build first: $AGENT" >&2; exit 1; }
[ -n "$NE" ] || { echo "needs prometheus-node-exporter (WITH_BENCH=1 scripts/deps.sh)" >&2; exit 1; }
command -v strace >/dev/null || { echo "needs strace" >&2; exit 1; }
[ "$(id -u)" = 0 ] || { echo "needs root (a loop device)" >&2; exit 1; }
tmp=$(mktemp -d /tmp/ft-bench-idle-XXXXXX)
apid= npid= dev=
cleanup() {
	[ -n "$apid" ] && kill "$apid" 2>/dev/null
	[ -n "$npid" ] && kill "$npid" 2>/dev/null
	wait 2>/dev/null
	[ -n "$dev" ] && losetup -d "/dev/$dev"
	rm -rf "$tmp"
}
trap cleanup EXIT
truncate -s 64M "$tmp/d.img"
dev=$(losetup --find --show "$tmp/d.img")
dev=${dev#/dev/}
aport=$(bench_port 1)
nport=$(bench_port 2)
"$AGENT" --listen "127.0.0.1:$aport" --state-dir "$tmp/state" --allow-device "$dev" 2>"$tmp/agent.log" &
apid=$!
"$NE" --web.listen-address="127.0.0.1:$nport" >"$tmp/ne.log" 2>&1 &
npid=$!
for _ in $(seq 100); do
	grep -q listening "$tmp/agent.log" && curl -s -o /dev/null "127.0.0.1:$nport/metrics" && break
	sleep 0.1
done
token=$(cat "$tmp/state/token")
echo "# idle.sh: agent $AGENT (pid $apid, device $dev), $NE (pid $npid); $ROUNDS rounds, $IDLE_S s idle, $SCRAPES scrapes; $(bench_load)"
cpu() { awk '{ print $14 + $15 }' "/proc/$1/stat"; } # clock ticks
tck=$(getconf CLK_TCK)
# opens PID SECONDS [CMD...]: files PID opened in SECONDS (while CMD runs).
opens() {
	local pid=$1 s=$2 out=$tmp/strace
	shift 2
	strace -f -qq -e trace=open,openat -p "$pid" -o "$out" &
	local st=$!
	sleep 0.5
	[ $# -gt 0 ] && "$@"
	sleep "$s"
	kill "$st"
	wait "$st" 2>/dev/null
	grep -c 'open' "$out" || true
}
scrape() { # URL [TOKEN]
	local i
	for i in $(seq "$SCRAPES"); do
		curl -s -o /dev/null ${2:+-H "Authorization: Bearer $2"} "$1"
	done
}
sleep 2
: >"$tmp/res"
for r in $(seq "$ROUNDS"); do
	for who in agent node_exporter; do
		if [ "$who" = agent ]; then pid=$apid url=http://127.0.0.1:$aport/metrics tok=$token
		else pid=$npid url=http://127.0.0.1:$nport/metrics tok=""; fi
		c0=$(cpu "$pid"); sleep "$IDLE_S"; c1=$(cpu "$pid")
		echo "$who idle_cpu_pct $(echo "($c1 - $c0) * 100 / $tck / $IDLE_S" | bc -l)" >>"$tmp/res"
		o=$(opens "$pid" "$IDLE_S")
		echo "$who idle_opens_per_s $(echo "$o / $IDLE_S" | bc -l)" >>"$tmp/res"
		c0=$(cpu "$pid"); scrape "$url" "$tok"; c1=$(cpu "$pid")
		echo "$who scrape_cpu_ms $(echo "($c1 - $c0) * 1000 / $tck / $SCRAPES" | bc -l)" >>"$tmp/res"
		o=$(opens "$pid" 0.3 scrape "$url" "$tok")
		echo "$who scrape_opens $(echo "$o / $SCRAPES" | bc -l)" >>"$tmp/res"
		echo "# round $r, $who: $(grep "^$who" "$tmp/res" | tail -4 | awk '{ printf "%s %.3f  ", $2, $3 }')"
	done
done
for k in idle_cpu_pct idle_opens_per_s scrape_cpu_ms scrape_opens; do
	a=$(awk -v k="$k" '$1 == "agent" && $2 == k { print $3 }' "$tmp/res" | bench_median)
	n=$(awk -v k="$k" '$1 == "node_exporter" && $2 == k { print $3 }' "$tmp/res" | bench_median)
	echo "RESULT $k: agent $(awk -v k="$k" '$1 == "agent" && $2 == k { print $3 }' "$tmp/res" | bench_mmm); node_exporter $(awk -v k="$k" '$1 == "node_exporter" && $2 == k { print $3 }' "$tmp/res" | bench_mmm); agent / node_exporter (medians) $(awk -v a="$a" -v n="$n" 'BEGIN { if (n > 0) printf "%.3f", a / n; else print "n/a (node_exporter 0)" }')"
done
bench_target "idle agent: files opened per second" \
	"$(awk '$1 == "agent" && $2 == "idle_opens_per_s" { print $3 }' "$tmp/res" | bench_median)" "<=" 0
bench_target "idle agent: % of a core" \
	"$(awk '$1 == "agent" && $2 == "idle_cpu_pct" { print $3 }' "$tmp/res" | bench_median)" "<" 0.01
echo "RESULT RSS: agent $(awk '/VmRSS/ { print $2 }' "/proc/$apid/status") KiB, node_exporter $(awk '/VmRSS/ { print $2 }' "/proc/$npid/status") KiB"
