#!/usr/bin/env bash
# fs_sweep.sh -- a real sweep over the filesystem layer on two loop devices, as seed 001 ran
# bonnie++ in each XFS it made: two agents (--allow-format), fs.mkfs (inode size 512 and 2048,
# seed 001's stripe -d su=64k,sw=7) x fs.mount (relatime, noatime), a grid, LOOPS loops of
# bonnie++'s file tests (-s 0 -n FILES: create, read, delete of small files, where the inode size
# and atime updates matter) in each job's own filesystem; prints the table, the JSON's per-job
# filesystem figures and the tuned export. Not a benchmark of fleettune: its figures are the
# filesystems', on a shared loop-device disk (noisy).
# Usage: bench/fs_sweep.sh [LOOPS] [BUILD_DIR]   (env: FILES=8:4096:4096:8, METRIC=
# seq_create_per_s, STRATEGY=grid, SIZE=1G, MOUNTS="relatime noatime": the fs.mount values, the
# baseline's first; with one value no fs.mount axis, 2 points instead of 4; root: creates and
# removes loop devices and mounts)
set -eu
cd "$(dirname "$0")/.."
LOOPS=${1:-5}
BUILD=${2:-build-bench}
FILES=${FILES:-8:4096:4096:8}
METRIC=${METRIC:-seq_create_per_s}
STRATEGY=${STRATEGY:-grid}
SIZE=${SIZE:-1G}
MOUNTS=${MOUNTS:-relatime noatime}
if [ "$BUILD" = build-bench ]; then
	./scripts/deps.sh >/dev/null
	cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release -DFT_TESTS=OFF >/dev/null
	cmake --build build-bench -j2 --target fleettune-agent fleettune-ctl >/dev/null
fi
source bench/bench_lib.sh
bench_ports 32000 # the agents listen on FT_BENCH_PORT_BASE + 501, + 502
AGENT=$BUILD/agent/fleettune-agent
CTL=$BUILD/controller/fleettune-ctl
tmp=$(mktemp -d "${FT_BENCH_TMP:-/tmp}/ft-bench-fs-XXXXXX")
pids=()
devs=()
cleanup() {
	local p d
	for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
	for d in "${devs[@]}"; do umount "/dev/$d" 2>/dev/null || true; losetup -d "/dev/$d" 2>/dev/null || true; done
	rm -rf "$tmp"
}
trap cleanup EXIT
for n in 1 2; do
	truncate -s "$SIZE" "$tmp/node$n.img"
	d=$(losetup --find --show "$tmp/node$n.img")
	devs+=("${d#/dev/}")
	# A loop device keeps its queue settings across detach and attach: start both from what a
	# fresh one has (no scheduler, 128 requests), which loop-twin leaves as they are.
	echo none >"/sys/block/${d#/dev/}/queue/scheduler" 2>/dev/null || true
	echo 128 >"/sys/block/${d#/dev/}/queue/nr_requests" 2>/dev/null || true
done
./scripts/loop-twin "${devs[0]}" "${devs[1]}"
bench_agent_start node1 "${devs[0]}" 501 --allow-format
U1=$URL
bench_agent_start node2 "${devs[1]}" 502 --allow-format
U2=$URL
read -ra mounts <<<"$MOUNTS"
mount_axis=
if [ "${#mounts[@]}" -gt 1 ]; then
	mount_axis=,$'\n'"    {\"param\": \"fs.mount\", \"values\": $(printf '%s\n' "${mounts[@]}" | jq -Rc . | jq -sc .)}"
fi
cat >"$tmp/plan.json" <<PLAN
{
  "name": "xfs inode size x atime (bonnie++ file tests)",
  "nodes": [
    {"name": "node1", "url": "$U1", "device": "${devs[0]}", "token_file": "node1-state/token"},
    {"name": "node2", "url": "$U2", "device": "${devs[1]}", "token_file": "node2-state/token"}
  ],
  "baseline": {"fs.mkfs": "-b size=4k -d su=64k,sw=7 -i size=512 -l version=2", "fs.mount": "${mounts[0]}"},
  "axes": [
    {"param": "fs.mkfs", "values": ["-b size=4k -d su=64k,sw=7 -i size=512 -l version=2",
                                    "-b size=4k -d su=64k,sw=7 -i size=2048 -l version=2"]}$mount_axis
  ],
  "strategy": "$STRATEGY",
  "job": {"engine": "bonnie", "bonnie": {"size_mb": 0, "files": "$FILES"},
          "filesystem": {"type": "xfs"}, "loops": $LOOPS},
  "metric": "$METRIC",
  "min_effect_pct": 5
}
PLAN
echo "# uptime: $(uptime)"
echo "# $CTL sweep plan.json  (plan: $tmp/plan.json)"
start_s=$(date +%s)
"$CTL" sweep "$tmp/plan.json" --db "$tmp/ctl.db" 2>"$tmp/sweep.err" | tee "$tmp/table.txt"
rc=${PIPESTATUS[0]}
echo "# wall $(($(date +%s) - start_s)) s; uptime: $(uptime)"
[ "$rc" = 0 ] || { sed 's/^/# /' "$tmp/sweep.err"; echo "the sweep exited $rc" >&2; exit 1; }
echo "# each job's filesystem, as its agent recorded it (node1):"
for id in $(curl -s -H "Authorization: Bearer $(cat "$tmp/node1-state/token")" "$U1/api/v1/jobs?limit=100" | jq -r '.jobs[].id' | sort -n); do
	curl -s -H "Authorization: Bearer $(cat "$tmp/node1-state/token")" "$U1/api/v1/jobs/$id" |
		jq -r '"#   job \(.id): \(.filesystem.mkfs)  mounted \(.filesystem.mount_options) \(.filesystem.super_options)  isize=\(.filesystem.figures.inode_size_bytes) sunit=\(.filesystem.figures.sunit_blocks) swidth=\(.filesystem.figures.swidth_blocks) log=\(.filesystem.figures.log_size_bytes)"'
done
# export writes a best configuration only; a sweep with none (its verdicts depend on the noise)
# is exported with --baseline, which says so in its header.
echo "# $CTL export 1 --format tuned (--baseline when the sweep has no best)"
"$CTL" export 1 --format tuned --db "$tmp/ctl.db" 2>/dev/null ||
	"$CTL" export 1 --format tuned --baseline --db "$tmp/ctl.db"
echo "# left mounted: $(grep -c " $tmp/" /proc/self/mountinfo || true)"
