#!/usr/bin/env bash
# drift.sh -- verdicts on drifting machines (issue 17's table): whole sweeps through
# fleettune-ctl's strategy, round schedule and verdict code on simulated drifting nodes
# (bench/drift_mc.c: seeded, deterministic), before rounds (each point's loops back to back,
# independent samples) and with them; then real sweeps through two agents whose --fio is
# bench/fakefio in drift mode (bench/drift_agents.sh).
# Usage: bench/drift.sh [SWEEPS] [AGENT_SWEEPS] [SEED]
#   SWEEPS        simulated sweeps per scenario and order (default 2000)
#   AGENT_SWEEPS  real sweeps per strategy (default 50; 0 skips them)
# No root, no devices: the agents run on temp --sysfs-root trees. About 10 minutes on 2 cores.
set -eu
cd "$(dirname "$0")/.."
SWEEPS=${1:-2000}
AGENT_SWEEPS=${2:-50}
SEED=${3:-20261201}
# FT_BUILD_DIR=DIR: that build's binaries, nothing configured or built (the suite's run).
BUILD=${FT_BUILD_DIR:-${BUILD:-build-bench}}
if [ -z "${FT_BUILD_DIR:-}" ]; then
	cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DFT_TESTS=OFF >/dev/null
	cmake --build "$BUILD" -j2 --target drift_mc fakefio fleettune-agent fleettune-ctl >/dev/null
fi
"$BUILD/bench/drift_mc" --sweeps "$SWEEPS" --seed "$SEED"
[ "$AGENT_SWEEPS" -gt 0 ] || exit 0
echo
echo "Real sweeps: two fleettune-agents, bench/fakefio drift mode (0.5 % per run, CV 1 %),"
echo "grid and sequential over nr_requests 128 (baseline), 64, 256, 512, 5 loops."
echo
bench/drift_agents.sh "$AGENT_SWEEPS" "$BUILD"
