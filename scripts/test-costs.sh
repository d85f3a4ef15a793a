#!/bin/sh
# test-costs.sh -- tests/costs.txt from a full run's timings: "name seconds" per test that took
# at least a second, longest first. ctest -j starts tests in descending COST (tests/CMakeLists.txt
# sets it from this file), so the long ones start first and the short ones fill the end.
# The fuzzers (fuzz/, set in their own directory) are left out: they keep COST 0 and run last.
# usage: scripts/test-costs.sh [BUILD_DIR] > tests/costs.txt   (after ./scripts/test.sh)
set -eu
data=${1:-build}/Testing/Temporary/CTestCostData.txt
[ -r "$data" ] || { echo "test-costs.sh: no $data: run the suite in that build first" >&2; exit 1; }
echo "# tests/costs.txt -- seconds per test from a full run (scripts/test-costs.sh); ctest starts"
echo "# the longest first. Regenerate after adding a long test; a missing test costs 0."
awk 'NF == 3 && $3 >= 1 && $1 !~ /^fuzz\// { printf "%s %d\n", $1, $3 + 0.5 }' "$data" | sort -k2,2nr -k1,1
