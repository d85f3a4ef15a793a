#!/usr/bin/env bash
# image.sh -- the container image's build time and size: a cold build (a new podman store: the
# debootstrap base, both stages from nothing) and a warm one (the store kept, one source file
# changed, as a developer's second test run), with the default Dockerfile (UNIT_TESTS=1) and
# the suite's (UNIT_TESTS=0). Usage: bench/image.sh [WORK_DIR]  (root; podman, debootstrap
# and the Debian mirror; about 6 minutes on 2 cores; WORK_DIR, default /tmp/ft-bench-image,
# is removed first).
set -eu
cd "$(dirname "$0")/.."
SRC=$PWD
WORK=${1:-/tmp/ft-bench-image}
./scripts/deps.sh
. tests/integration/image_lib.sh
rm -rf "$WORK"
mkdir -p "$WORK"
echo "# load: $(uptime)"

# A copy of the tree, so that the warm build can change a file without touching the checkout.
tar -C "$SRC" --exclude='./build*' --exclude=./.git --exclude='*/node_modules' -c . |
	(mkdir -p "$WORK/src" && tar -C "$WORK/src" -x)

run() { # LABEL UNIT_TESTS
	local t0 t1 t2
	img_podman_init "$WORK/store-$2"
	t0=$(date +%s%N)
	img_base >/dev/null
	t1=$(date +%s%N)
	img_build "$WORK/src" "localhost/fleettune:bench" "$WORK/build-$2.log" --build-arg UNIT_TESTS="$2"
	t2=$(date +%s%N)
	printf 'RESULT %-28s base %6.1f s  build %6.1f s  image %s bytes\n' "$1" \
		"$(awk -v a="$t0" -v b="$t1" 'BEGIN { print (b - a) / 1e9 }')" \
		"$(awk -v a="$t1" -v b="$t2" 'BEGIN { print (b - a) / 1e9 }')" "$(img_size_bytes localhost/fleettune:bench)"
}
run "cold UNIT_TESTS=0" 0
echo "/* bench/image.sh: a changed source file */" >>"$WORK/src/agent/main.c"
run "warm UNIT_TESTS=0" 0
run "cold UNIT_TESTS=1 (default)" 1
echo "# layers of the runtime image:"
pm history --format '{{.Size}}\t{{.CreatedBy}}' localhost/fleettune:bench | cut -c1-100
echo "# load: $(uptime)"
rm -rf "$WORK"
