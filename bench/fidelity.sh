#!/usr/bin/env bash
# fidelity.sh -- does the agent change what fio measures? The same fio job run directly and
# through the agent on the same loop device, interleaved, N pairs; median ratio agent/direct,
# and the agent's CPU use while fio runs.
# Usage: [FT_LOOP_DIO=1] bench/fidelity.sh [PAIRS] [RUNTIME_S]   (root: creates and removes a loop
# device; FT_LOOP_DIO=1 backs it with direct I/O to its file, so fio measures the disk, not
# the page cache)
set -eu
cd "$(dirname "$0")/.."
PAIRS=${1:-5}
RT=${2:-5}
./scripts/deps.sh
cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release -DFT_TESTS=OFF >/dev/null
cmake --build build-bench -j"$(nproc)" --target fleettune-agent >/dev/null
tmp=$(mktemp -d "${FT_BENCH_TMP:-/tmp}/ft-bench-fid-XXXXXX")
truncate -s 1G "$tmp/disk.img"
dev=$(losetup --find --show ${FT_LOOP_DIO:+--direct-io=on} "$tmp/disk.img"); dev=${dev#/dev/}
build-bench/agent/fleettune-agent --listen 127.0.0.1:0 --state-dir "$tmp/state" --allow-device "$dev" 2>"$tmp/log" &
pid=$!
cleanup() { kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; losetup -d "/dev/$dev"; rm -rf "$tmp"; }
trap cleanup EXIT
for _ in $(seq 50); do grep -q listening "$tmp/log" && break; sleep 0.1; done
port=$(sed -n 's/.*listening on http:\/\/127\.0\.0\.1:\([0-9]*\).*/\1/p' "$tmp/log")
A="http://127.0.0.1:$port/api/v1"
H="Authorization: Bearer $(cat "$tmp/state/token")"
opts="{\"rw\":\"randwrite\",\"bs\":\"4M\",\"ioengine\":\"libaio\",\"direct\":true,\"iodepth\":64,\"numjobs\":4,\"size\":\"256m\",\"runtime_s\":$RT,\"time_based\":true}"
ticks=$(getconf CLK_TCK)
cpu_ticks() { awk '{print $14 + $15}' "/proc/$pid/stat"; }

direct() {
	fio --name=direct --filename="/dev/$dev" --ioengine=libaio --direct=1 --bs=4M --rw=randwrite \
		--size=256m --iodepth=64 --numjobs=4 --runtime="$RT" --time_based --group_reporting \
		--output-format=json | jq '.jobs[0].write.bw / 1024'
}
via_agent() {
	local id state t0 c0 c1 t1
	t0=$(date +%s.%N); c0=$(cpu_ticks)
	id=$(curl -s -H "$H" -X POST "$A/jobs" -d "{\"device\":\"$dev\",\"engine\":\"fio\",\"fio\":$opts,\"loops\":1}" | jq .id)
	while :; do
		state=$(curl -s -H "$H" "$A/jobs/$id" | jq -r .state)
		case $state in succeeded) break ;; failed | cancelled | interrupted) echo "job $id $state" >&2; exit 1 ;; esac
		sleep 0.5
	done
	c1=$(cpu_ticks); t1=$(date +%s.%N)
	echo "$(curl -s -H "$H" "$A/jobs/$id" | jq '.passes[0].metrics["write.bw_mib"]') $(echo "($c1 - $c0) / $ticks / ($t1 - $t0) * 100" | bc -l)"
}

command -v bc >/dev/null || { apt-get install -y -qq bc >/dev/null; }
echo "pair direct_mib agent_mib ratio agent_cpu_pct"
: >"$tmp/ratios"; : >"$tmp/cpu"
for i in $(seq "$PAIRS"); do
	if [ $((i % 2)) = 1 ]; then d=$(direct); read -r g c < <(via_agent); else read -r g c < <(via_agent); d=$(direct); fi
	r=$(echo "$g / $d" | bc -l)
	printf '%d %.1f %.1f %.4f %.3f\n' "$i" "$d" "$g" "$r" "$c"
	echo "$r" >>"$tmp/ratios"; echo "$c" >>"$tmp/cpu"
done
med=$(sort -g "$tmp/ratios" | awk '{a[NR]=$1} END{print (NR%2)? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}')
cpu=$(sort -g "$tmp/cpu" | awk '{a[NR]=$1} END{print (NR%2)? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}')
printf 'RESULT median ratio agent/direct %.4f over %d pairs of %ss; agent CPU while fio runs (median) %.3f%% of a core\n' "$med" "$PAIRS" "$RT" "$cpu"
echo "targets: ratio >= 0.99, agent CPU < 0.5 % of a core"
