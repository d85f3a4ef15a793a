#!/usr/bin/env bash
# api.sh -- GET params throughput and p99 at 32 connections (wrk), and the agent's idle RSS.
# Usage: bench/api.sh [DURATION_S]   (root: creates and removes a loop device; FT_BUILD_DIR=DIR
# uses that build instead of configuring build-bench; FT_BENCH_PORT_BASE=25000: the agent
# listens on BASE + 1, restarted on BASE + 2). Each figure is printed with its target and whether it was met:
# >= 20000 req/s, p99 < 2 ms, idle RSS <= 4 MiB.
set -eu
cd "$(dirname "$0")/.."
DUR=${1:-10}
source bench/bench_lib.sh
bench_ports 25000
if [ -n "${FT_BUILD_DIR:-}" ]; then
	AGENT=$FT_BUILD_DIR/agent/fleettune-agent
else
	WITH_BENCH=1 ./scripts/deps.sh
	cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release -DFT_TESTS=OFF >/dev/null
	cmake --build build-bench -j"$(nproc)" --target fleettune-agent >/dev/null
	AGENT=build-bench/agent/fleettune-agent
fi
command -v wrk >/dev/null || { echo "needs wrk (WITH_BENCH=1 scripts/deps.sh)" >&2; exit 1; }
echo "# api.sh: $DUR s per wrk run, agent $AGENT; $(bench_load)"
tmp=$(mktemp -d /tmp/ft-bench-api-XXXXXX)
truncate -s 64M "$tmp/disk.img"
dev=$(losetup --find --show "$tmp/disk.img"); dev=${dev#/dev/}
cleanup() { kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; losetup -d "/dev/$dev"; rm -rf "$tmp"; }
starts=0
start_agent() { # extra agent flags...
	starts=$((starts + 1))
	# A log per start: the previous agent's "listening" line must not be read as this one's.
	log=$tmp/log.$starts
	"$AGENT" --listen "127.0.0.1:$(bench_port "$starts")" --state-dir "$tmp/state" --allow-device "$dev" "$@" 2>"$log" &
	pid=$!
	for _ in $(seq 300); do grep -q listening "$log" 2>/dev/null && break; sleep 0.1; done
	port=$(sed -n 's/.*listening on http:\/\/127\.0\.0\.1:\([0-9]*\).*/\1/p' "$log" 2>/dev/null)
	if [ -z "$port" ]; then
		echo "the agent did not listen on port $(bench_port "$starts") within 30 s:" >&2
		cat "$log" >&2
		exit 1
	fi
	url="http://127.0.0.1:$port/api/v1/devices/$dev/params"
	token=$(cat "$tmp/state/token")
}
stop_agent() { kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || true; }
cleanup() { stop_agent; losetup -d "/dev/$dev"; rm -rf "$tmp"; }
trap cleanup EXIT
# run_wrk LABEL [wrk args...]: prints one RESULT line
# ms: wrk's latency ("812.00us", "2.31ms", "1.02s") in milliseconds.
ms() { awk '{ v = $1 + 0; if ($1 ~ /us$/) v /= 1000; else if ($1 ~ /[^m]s$/) v *= 1000; print v }' <<<"$1"; }
run_wrk() {
	local label=$1 rps p99
	shift
	wrk -t2 -c32 -d"${DUR}s" --latency "$@" -H "Authorization: Bearer $token" "$url" >"$tmp/wrk.txt"
	rps=$(awk '/Requests\/sec/{print $2}' "$tmp/wrk.txt")
	p99=$(awk '$1=="99%"{print $2}' "$tmp/wrk.txt")
	printf 'RESULT %-34s %10s req/s  p50 %-8s p99 %-8s non-2xx %s\n' "$label" "$rps" \
		"$(awk '$1=="50%"{print $2}' "$tmp/wrk.txt")" "$p99" \
		"$(awk '/Non-2xx/{print $NF}' "$tmp/wrk.txt" | grep . || echo 0)"
	bench_target "$label: req/s" "$rps" ">=" 20000
	bench_target "$label: p99 ms" "$(ms "$p99")" "<" 2
}
# Paced load: each of the 32 connections waits 1 ms (wrk delays are whole ms) between
# requests: about 32 / (1 ms + latency), i.e. 25-30k req/s offered.
printf 'function delay()\n  return 1\nend\n' >"$tmp/pace.lua"

start_agent --params-cache-ms 0
sleep 1
run_wrk "uncached, 32 conns, saturating"
stop_agent
start_agent
sleep 1
rss_idle=$(awk '/VmRSS/{print $2}' /proc/$pid/status)
anon_idle=$(awk '/RssAnon/{print $2}' /proc/$pid/status)
nparams=$(curl -s -H "Authorization: Bearer $token" "$url" | jq '.params|length')
echo "agent pid $pid, device $dev, $nparams parameters per response, idle RSS ${rss_idle} KiB"
run_wrk "cached, 32 conns, saturating"
run_wrk "cached, 32 conns, paced 1 ms think time" -s "$tmp/pace.lua"
rss_load=$(awk '/VmRSS/{print $2}' /proc/$pid/status)
echo "RESULT RSS idle ${rss_idle} KiB (private anonymous ${anon_idle} KiB), after load ${rss_load} KiB"
bench_target "idle RSS KiB" "$rss_idle" "<=" 4096
echo "# wrk and the agent share $(nproc) cores; $(bench_load)"
