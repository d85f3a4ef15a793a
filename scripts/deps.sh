#!/bin/sh
# deps.sh -- install the Debian packages fleettune builds, tests and benchmarks with.
set -eu
PKGS="build-essential cmake pkg-config libmicrohttpd-dev libjansson-dev libcurl4-openssl-dev
 libsqlite3-dev libcmocka-dev fio sqlite3 curl jq util-linux e2fsprogs xfsprogs bonnie++ coreutils
 openssl procps prometheus python3-yaml strace universal-ctags"
# universal-ctags: scripts/fn-lengths.sh lists the functions over ~100 lines.
# strace: tests/integration/it_idle.sh watches what an idle agent opens.
# tests/integration/it_image.sh: podman builds the Dockerfile on a base debootstrap makes;
# it_systemd.sh: systemd-analyze (verify, security) and systemd-run.
PKGS="$PKGS podman debootstrap systemd"
# fuzz/: clang and its libFuzzer runtime (libclang_rt.fuzzer-x86_64.a is in libclang-rt-14-dev).
PKGS="$PKGS clang libclang-rt-dev"
[ "${WITH_BROWSER:-1}" = 1 ] && PKGS="$PKGS chromium"
# bench/ only (bench/api.sh, bench/soak.sh run WITH_BENCH=1 scripts/deps.sh): the load generator.
[ "${WITH_BENCH:-0}" = 1 ] && PKGS="$PKGS wrk prometheus-node-exporter" # bench/idle.sh: node_exporter, the anchor
# The browser tests drive Chromium with playwright-core from npm: they need Node.js and npm.
# Machines that ship Node.js keep theirs; others get Debian's.
if [ "${WITH_BROWSER:-1}" = 1 ] && ! command -v npm >/dev/null 2>&1; then
	PKGS="$PKGS nodejs npm"
fi
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "deps.sh: need root to install:$missing" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends $missing >/dev/null
