#!/usr/bin/env bash
# api.sh -- GET params throughput and p99 at 32 connections (wrk), and the agent's idle RSS.
# Usage: bench/api.sh [DURATION_S]   (root: creates and removes a loop device)
set -eu
cd "$(dirname "$0")/.."
DUR=${1:-10}
command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk >/dev/null; }
./scripts/deps.sh
cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release -DFT_TESTS=OFF >/dev/null
cmake --build build-bench -j"$(nproc)" --target fleettune-agent >/dev/null
tmp=$(mktemp -d /tmp/ft-bench-api-XXXXXX)
truncate -s 64M "$tmp/disk.img"
dev=$(losetup --find --show "$tmp/disk.img"); dev=${dev#/dev/}
cleanup() { kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; losetup -d "/dev/$dev"; rm -rf "$tmp"; }
build-bench/agent/fleettune-agent --listen 127.0.0.1:0 --state-dir "$tmp/state" --allow-device "$dev" 2>"$tmp/log" &
pid=$!
trap cleanup EXIT
for _ in $(seq 50); do grep -q listening "$tmp/log" && break; sleep 0.1; done
port=$(sed -n 's/.*listening on http:\/\/127\.0\.0\.1:\([0-9]*\).*/\1/p' "$tmp/log")
url="http://127.0.0.1:$port/api/v1/devices/$dev/params"
token=$(cat "$tmp/state/token")
sleep 1
rss_idle=$(awk '/VmRSS/{print $2}' /proc/$pid/status)
nparams=$(curl -s -H "Authorization: Bearer $token" "$url" | jq '.params|length')
echo "agent pid $pid, device $dev, $nparams parameters per response, idle RSS ${rss_idle} KiB"
wrk -t2 -c32 -d"${DUR}s" --latency -H "Authorization: Bearer $token" "$url" | tee "$tmp/wrk.txt"
rss_load=$(awk '/VmRSS/{print $2}' /proc/$pid/status)
rps=$(awk '/Requests\/sec/{print $2}' "$tmp/wrk.txt")
p99=$(awk '$1=="99%"{print $2}' "$tmp/wrk.txt")
non2xx=$(awk '/Non-2xx/{print $NF}' "$tmp/wrk.txt")
echo
echo "RESULT GET params: ${rps} req/s, p99 ${p99}, non-2xx ${non2xx:-0}; RSS idle ${rss_idle} KiB, after load ${rss_load} KiB"
echo "targets: >= 20000 req/s, p99 < 2 ms, idle RSS <= 4096 KiB (wrk and the agent share $(nproc) cores)"
