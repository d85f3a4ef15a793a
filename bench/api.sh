#!/usr/bin/env bash
# api.sh -- GET params throughput and p99 at 32 connections (wrk), and the agent's idle RSS.
# Usage: bench/api.sh [DURATION_S]   (root: creates and removes a loop device)
set -eu
cd "$(dirname "$0")/.."
DUR=${1:-10}
WITH_BENCH=1 ./scripts/deps.sh
cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release -DFT_TESTS=OFF >/dev/null
cmake --build build-bench -j"$(nproc)" --target fleettune-agent >/dev/null
tmp=$(mktemp -d /tmp/ft-bench-api-XXXXXX)
truncate -s 64M "$tmp/disk.img"
dev=$(losetup --find --show "$tmp/disk.img"); dev=${dev#/dev/}
cleanup() { kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; losetup -d "/dev/$dev"; rm -rf "$tmp"; }
start_agent() { # extra agent flags...
	build-bench/agent/fleettune-agent --listen 127.0.0.1:0 --state-dir "$tmp/state" --allow-device "$dev" "$@" 2>"$tmp/log" &
	pid=$!
	for _ in $(seq 50); do grep -q listening "$tmp/log" && break; sleep 0.1; done
	port=$(sed -n 's/.*listening on http:\/\/127\.0\.0\.1:\([0-9]*\).*/\1/p' "$tmp/log")
	url="http://127.0.0.1:$port/api/v1/devices/$dev/params"
	token=$(cat "$tmp/state/token")
}
stop_agent() { kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || true; }
cleanup() { stop_agent; losetup -d "/dev/$dev"; rm -rf "$tmp"; }
trap cleanup EXIT
# run_wrk LABEL [wrk args...]: prints one RESULT line
run_wrk() {
	local label=$1
	shift
	wrk -t2 -c32 -d"${DUR}s" --latency "$@" -H "Authorization: Bearer $token" "$url" >"$tmp/wrk.txt"
	printf 'RESULT %-34s %10s req/s  p50 %-8s p99 %-8s non-2xx %s\n' "$label" \
		"$(awk '/Requests\/sec/{print $2}' "$tmp/wrk.txt")" \
		"$(awk '$1=="50%"{print $2}' "$tmp/wrk.txt")" "$(awk '$1=="99%"{print $2}' "$tmp/wrk.txt")" \
		"$(awk '/Non-2xx/{print $NF}' "$tmp/wrk.txt" | grep . || echo 0)"
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
echo "targets: >= 20000 req/s, p99 < 2 ms, idle RSS <= 4096 KiB (wrk and the agent share $(nproc) cores)"
