#!/bin/sh
# test.sh -- install dependencies, build with -Werror and ASan+UBSan, run every test.
# This is the README's test command and exactly what CI (.ci/run) runs.
set -eu
cd "$(dirname "$0")/.."
./scripts/deps.sh
# Debian builds bfq and kyber as modules, listed in queue/scheduler only once loaded.
modprobe -q bfq 2>/dev/null || true
modprobe -q kyber-iosched 2>/dev/null || true
BUILD=${FT_BUILD:-build}
cmake -S . -B "$BUILD" -DFT_WERROR=ON -DFT_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug >/dev/null
cmake --build "$BUILD" -j"$(nproc)"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# Two tests per CPU at a time (most of a test's time is waiting on fio, agents and devices;
# FT_TEST_JOBS overrides), the longest first (tests/costs.txt); none takes a lock, none shares
# a resource (tests/CMakeLists.txt).
ctest --test-dir "$BUILD" --output-on-failure -j"${FT_TEST_JOBS:-$((2 * $(nproc)))}" "$@"
