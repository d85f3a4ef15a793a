#!/usr/bin/env bash
# run.sh -- run the libFuzzer harnesses of fuzz/ for a while each; print executions and crashes.
#
#   fuzz/run.sh SECONDS [HARNESS...]     build build-fuzz/ (clang) and run every harness (or
#                                        the named ones) for SECONDS each, one after the other
#   fuzz/run.sh --ctest SECONDS HARNESS  what CTest runs: one short run from the seed corpus,
#                                        exit 77 when clang's libFuzzer is missing, 1 on a crash
#
# Long runs keep going after a crash (libFuzzer -fork=1 -ignore_crashes=1): each crashing
# input is saved as build-fuzz/artifacts/HARNESS/crash-*. The corpus a run grows is kept in
# build-fuzz/corpus/HARNESS (the checked-in seeds in fuzz/corpus/HARNESS are only read).
# Environment: FT_FUZZ_BUILD (default build-fuzz), FT_FUZZ_JOBS (parallel harnesses, 1),
# FT_FUZZ_ARGS (extra libFuzzer flags).
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/.." && pwd)
all="fuzz_fio fuzz_dd fuzz_bonnie fuzz_iozone fuzz_fiofile fuzz_http fuzz_api fuzz_plan fuzz_sweep fuzz_nodelist"
common_args=(-timeout=10 -rss_limit_mb=4096 -max_len=65536 -print_final_stats=1)
# fuzz_api keeps a sysfs tree and a database in $FT_FUZZ_TMP: memory, where there is some.
shm=/dev/shm
[ -d "$shm" ] && [ -w "$shm" ] || shm=/tmp

if [ "${1:-}" = --ctest ]; then
	secs=$2 name=$3
	if [ "${FT_FUZZ_OK:-OFF}" != ON ] || [ ! -x "${FT_FUZZ_BIN:-}/$name" ]; then
		echo "SKIP: $name: clang with libFuzzer (Debian: clang libclang-rt-14-dev) not found when configuring"
		exit 77
	fi
	work=$(mktemp -d "/tmp/ft-fuzz-$name-XXXXXX")
	FT_FUZZ_TMP=$(mktemp -d "$shm/ft-fuzz-$name-XXXXXX")
	export FT_FUZZ_TMP
	trap 'rm -rf "$work" "$FT_FUZZ_TMP"' EXIT
	mkdir -p "$work/corpus"
	cd "$work" || exit 1
	"$FT_FUZZ_BIN/$name" "${common_args[@]}" -max_total_time="$secs" \
		-artifact_prefix="$work/" "$work/corpus" "$here/corpus/$name" >"$work/log" 2>&1
	rc=$?
	grep -E '^(stat::number_of_executed_units|INFO: seed corpus|==[0-9]+==ERROR|SUMMARY)' "$work/log"
	if [ $rc != 0 ]; then
		tail -n 60 "$work/log"
		for f in "$work"/crash-* "$work"/leak-* "$work"/timeout-* "$work"/oom-*; do
			[ -e "$f" ] && { echo "input ($f):"; od -c "$f" | head -n 20; }
		done
		exit 1
	fi
	exit 0
fi

secs=${1:?usage: fuzz/run.sh SECONDS [HARNESS...]}
shift
names=${*:-$all}
build=${FT_FUZZ_BUILD:-$src/build-fuzz}
command -v clang >/dev/null || { echo "run.sh: clang not found (scripts/deps.sh installs it)" >&2; exit 1; }
cmake -S "$src" -B "$build" -DCMAKE_C_COMPILER=clang -DFT_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null || exit 1
cmake --build "$build" -j"${FT_BUILD_JOBS:-2}" --target fuzzers >/dev/null || exit 1

# run_one NAME: fuzz NAME for $secs seconds; writes its summary line to $build/results/NAME.
run_one() {
	local name=$1 corpus=$build/corpus/$1 art=$build/artifacts/$1 log=$build/logs/$1.log
	local execs crashes units tmp last
	mkdir -p "$corpus" "$art" "$build/logs" "$build/results"
	tmp=$(mktemp -d "$shm/ft-fuzz-$name-XXXXXX")
	(cd "$art" && FT_FUZZ_TMP=$tmp "$build/fuzz/$name" "${common_args[@]}" -max_total_time="$secs" \
		-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
		-artifact_prefix="$art/" ${FT_FUZZ_ARGS:-} "$corpus" "$here/corpus/$name" >"$log" 2>&1)
	rm -rf "$tmp"
	# fork mode: the last "#N: ... oom/timeout/crash: O/T/C ..." status line has the totals
	# (a leak counts as a crash); the inputs are in $art
	last=$(grep -E '^#[0-9]+' "$log" | tail -n 1)
	execs=$(echo "$last" | sed -E 's/^#([0-9]+).*/\1/')
	crashes=$(echo "$last" | sed -nE 's/.*oom\/timeout\/crash: ([0-9]+)\/([0-9]+)\/([0-9]+).*/\3 \2 \1/p')
	units=$(find "$corpus" -maxdepth 1 -type f | wc -l)
	printf '%-12s %8s %14s %16s %10s\n' "$name" "$secs" "${execs:-0}" "${crashes:-? ? ?}" "$units" \
		>"$build/results/$name"
}

jobs=${FT_FUZZ_JOBS:-1}
for name in $names; do
	[ -x "$build/fuzz/$name" ] || { echo "run.sh: no harness $name" >&2; exit 1; }
	run_one "$name" &
	while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
done
wait
printf '%-12s %8s %14s %16s %10s\n' harness seconds executions "crash timeout oom" corpus
total_crashes=0
for name in $names; do
	cat "$build/results/$name"
	total_crashes=$((total_crashes + $(awk '{print ($4 ~ /^[0-9]+$/ ? $4 + $5 + $6 : 1)}' "$build/results/$name")))
done
echo "logs: $build/logs/  crashing inputs: $build/artifacts/HARNESS/crash-*"
[ "$total_crashes" = 0 ]
