#!/usr/bin/env bash
# verdicts.sh -- Monte Carlo of the verdict statistics (controller/stats/effect.c) on synthetic
# Gaussian passes: issue 9's benchmark table, each row from TRIALS trials, with its target;
# then the same scenarios with every node judged within rounds (paired by round, as sweeps run
# in interleaved rounds are).
# Usage: bench/verdicts.sh [TRIALS] [SEED]   (default 5000 trials; seeded and deterministic;
# no root, no devices; about two minutes on 2 cores)
set -eu
cd "$(dirname "$0")/.."
TRIALS=${1:-5000}
SEED=${2:-20251130}
source bench/bench_lib.sh
bench_mc_build verdicts_mc
"$B"/bench/verdicts_mc --trials "$TRIALS" --seed "$SEED"
echo
exec "$B"/bench/verdicts_mc --trials "$TRIALS" --seed "$SEED" --rounds
