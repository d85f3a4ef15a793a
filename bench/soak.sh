#!/usr/bin/env bash
# soak.sh -- the ASan+UBSan agent under load, in rounds: wrk at 64 connections on params,
# metrics and results for SECONDS, then 1 000 idle connections (from 8 loopback addresses, so
# all of them are held) while health is probed from another address. Prints a table; the
# RESULT lines say whether there were 0 errors, health always answered, sanitizers stayed
# quiet, and descriptors (/proc/PID/fd) and RSS stayed flat from round to round.
# Usage: bench/soak.sh [SECONDS] [ROUNDS] [IDLE_S]   (root: makes and removes a loop device)
#        defaults 60 2 20; a dry run: bench/soak.sh 5 2 5
set -eu
cd "$(dirname "$0")/.."
DUR=${1:-60}
ROUNDS=${2:-2}
IDLE_S=${3:-20}
source bench/bench_lib.sh
bench_ports 28000
# FT_BUILD_DIR=DIR: that (sanitizer) build's agent, nothing configured or built.
if [ -n "${FT_BUILD_DIR:-}" ]; then
	SOAK_AGENT=$FT_BUILD_DIR/agent/fleettune-agent
else
	WITH_BENCH=1 ./scripts/deps.sh
	cmake -S . -B build-soak -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFT_SANITIZE=ON -DFT_TESTS=OFF >/dev/null
	cmake --build build-soak -j"$(nproc)" --target fleettune-agent >/dev/null
	SOAK_AGENT=build-soak/agent/fleettune-agent
fi
ulimit -n 8192
tmp=$(mktemp -d /tmp/ft-bench-soak-XXXXXX)
truncate -s 128M "$tmp/disk.img"
dev=$(losetup --find --show "$tmp/disk.img")
dev=${dev#/dev/}
pid=
idle_pid=
cleanup() {
	[ -n "$idle_pid" ] && kill "$idle_pid" 2>/dev/null
	[ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	losetup -d "/dev/$dev"
	rm -rf "$tmp"
}
trap cleanup EXIT

export ASAN_OPTIONS="detect_leaks=1:log_path=$tmp/asan"
export UBSAN_OPTIONS="print_stacktrace=1:log_path=$tmp/ubsan"
"$SOAK_AGENT" --listen "127.0.0.1:$(bench_port 1)" --state-dir "$tmp/state" \
	--allow-device "$dev" 2>"$tmp/agent.log" &
pid=$!
for _ in $(seq 100); do grep -q listening "$tmp/agent.log" && break; sleep 0.1; done
port=$(sed -n 's/.*listening on http:\/\/127\.0\.0\.1:\([0-9]*\).*/\1/p' "$tmp/agent.log")
token=$(cat "$tmp/state/token")
base=http://127.0.0.1:$port
auth="Authorization: Bearer $token"

# Some history for the results route: two short fio jobs.
for _ in 1 2; do
	curl -s -o /dev/null -H "$auth" -X POST "$base/api/v1/jobs" -d "{\"device\":\"$dev\",\"engine\":\"fio\",\"fio\":{\"rw\":\"randwrite\",\"bs\":\"64k\",\"ioengine\":\"libaio\",\"direct\":true,\"iodepth\":4,\"size\":\"16m\",\"runtime_s\":1,\"time_based\":true},\"loops\":2}"
done
for _ in $(seq 100); do
	[ "$(curl -s -H "$auth" "$base/api/v1/jobs?state=succeeded" | jq '.jobs|length')" = 2 ] && break
	sleep 0.2
done

cat >"$tmp/paths.lua" <<LUA
local paths = { "/api/v1/devices/$dev/params", "/metrics", "/api/v1/results?limit=50" }
local i = 0
request = function()
	i = i % #paths + 1
	return wrk.format("GET", paths[i])
end
LUA

fds() { ls "/proc/$pid/fd" | wc -l; }
rss_mib() { awk '/^VmRSS/ {printf "%.1f", $2 / 1024}' "/proc/$pid/status"; }
# wrk_field FILE: requests, req/s, p99 (ms), errors (non-2xx + socket errors)
wrk_parse() {
	awk '
	/requests in/ { req = $1 }
	/Requests\/sec/ { rps = $2 }
	/^ +99%/ { p99 = $2 }
	/Non-2xx or 3xx responses/ { err += $NF }
	/Socket errors/ { for (i = 3; i <= NF; i += 2) { v = $(i + 1); gsub(",", "", v); err += v } }
	END { printf "%s %s %s %d\n", req, rps, p99, err }' "$1"
}

printf '%-6s %-28s %10s %10s %9s %7s %10s %6s %8s\n' round phase requests req/s p99 errors health fds rss_MiB
total_err=0
health_bad=0
declare -a round_fds round_rss
for r in $(seq "$ROUNDS"); do
	wrk -t2 -c64 -d"${DUR}s" --latency -s "$tmp/paths.lua" -H "$auth" "$base" >"$tmp/wrk.txt"
	read -r req rps p99 err < <(wrk_parse "$tmp/wrk.txt")
	total_err=$((total_err + err))
	sleep 1
	printf '%-6s %-28s %10s %10s %9s %7s %10s %6s %8s\n' "$r" "wrk 64 conns, ${DUR}s" "$req" "$rps" "$p99" "$err" - "$(fds)" "$(rss_mib)"
	# What the errors were (wrk's own lines: socket errors by kind, non-2xx answers).
	grep -E 'Socket errors|Non-2xx' "$tmp/wrk.txt" | sed 's/^ */       /' || true

	python3 tests/integration/idle_conns.py "$port" 1000 "$IDLE_S" 8 >"$tmp/idle.out" &
	idle_pid=$!
	for _ in $(seq 100); do grep -q opened "$tmp/idle.out" && break; sleep 0.1; done
	sleep 1
	held=$(fds)
	ok=0
	probes=0
	end=$((SECONDS + IDLE_S - 2))
	while [ "$SECONDS" -lt "$end" ]; do
		probes=$((probes + 1))
		code=$(curl -s -o /dev/null -w '%{http_code}' -m 2 --interface 127.0.0.2 "$base/api/v1/health") || true
		[ "$code" = 200 ] && ok=$((ok + 1))
		sleep 0.5
	done
	health_bad=$((health_bad + probes - ok))
	wait "$idle_pid" 2>/dev/null || true
	idle_pid=
	sleep 2
	round_fds[$r]=$(fds)
	round_rss[$r]=$(rss_mib)
	printf '%-6s %-28s %10s %10s %9s %7s %10s %6s %8s\n' "$r" "1000 idle, ${IDLE_S}s (held $held fds)" - - - - "$ok/$probes" "${round_fds[$r]}" "${round_rss[$r]}"
done

kill "$pid"
wait "$pid" 2>/dev/null || true
pid=
reports=$(cat "$tmp"/asan* "$tmp"/ubsan* 2>/dev/null | grep -c 'ERROR: \|runtime error' || true)
last=$ROUNDS
echo "RESULT soak errors=$total_err health_failures=$health_bad sanitizer_reports=$reports"
echo "RESULT soak fds round1=${round_fds[1]} round$last=${round_fds[$last]} rss_mib round1=${round_rss[1]} round$last=${round_rss[$last]}"
flat=$(awk -v f1="${round_fds[1]}" -v fl="${round_fds[$last]}" -v r1="${round_rss[1]}" -v rl="${round_rss[$last]}" \
	'BEGIN { print (fl - f1 <= 2 && rl <= r1 * 1.10 + 2) ? "yes" : "no" }')
echo "RESULT soak flat=$flat (descriptors within 2, RSS within 10 % + 2 MiB of round 1)"
[ "$total_err" = 0 ] && [ "$health_bad" = 0 ] && [ "$reports" = 0 ] && [ "$flat" = yes ]
