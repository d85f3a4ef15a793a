#!/usr/bin/env bash
# suites.sh -- issue 29's table: suite decisions (no_loss, primary, mean, guardrails, Holm within
# a configuration) by Monte Carlo, each trial a whole suite sweep judged by the controller's own
# analysis (judge/analysis.c, judge/suite.c) on Gaussian passes: 2 nodes, CV 2 %, 5 loops in
# interleaved rounds, min_effect 5 %. Prints each scenario's rate with its 95 % interval, the
# target and met/not.
# Usage: bench/suites.sh [TRIALS] [SEED]   (default 1000 trials: every rate within ±3 points;
# seeded and deterministic; no root, no devices)
set -eu
cd "$(dirname "$0")/.."
TRIALS=${1:-1000}
SEED=${2:-20261202}
source bench/bench_lib.sh
bench_mc_build suites_mc
exec "$B"/bench/suites_mc "$TRIALS" "$SEED"
