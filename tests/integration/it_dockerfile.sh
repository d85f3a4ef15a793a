#!/bin/bash
# it_dockerfile.sh -- lint the Dockerfile without a Docker engine (it_image.sh builds and runs
# it with podman): hadolint if installed; else every COPY source exists and is not .dockerignored, every apt package is a real Debian package
# (apt-cache show), the COPY --from=build paths are what cmake --install produces, and the
# runtime packages provide every library the binaries link against directly.
. "$(dirname "$0")/lib.sh"
# The checks of the built binaries are part of it: a missing build fails.
it_need_built "$AGENT_BIN" "$CTL_BIN"

DF=$FT_SOURCE_DIR/Dockerfile
[ -f "$DF" ] || { it_fail "Dockerfile exists"; it_done; }
command -v apt-cache >/dev/null || it_skip "apt-cache not available (not a Debian system)"

if command -v hadolint >/dev/null; then
	it_check "hadolint accepts the Dockerfile" hadolint "$DF"
fi

# The Dockerfile with continuation lines joined, comments dropped.
JOINED=$IT_TMP/Dockerfile.joined
sed -e '/^[[:space:]]*#/d' "$DF" | sed -e ':a' -e '/\\$/N; s/\\\n//; ta' >"$JOINED"

stages=$(grep -c '^FROM ' "$JOINED")
it_eq "two stages" 2 "$stages"
# The base images are build arguments (it_image.sh builds on a base made here), with Docker
# Hub's Debian 12 images as the defaults.
it_check "build stage is FROM \${BASE}" grep -q '^FROM \${BASE} AS build$' "$JOINED"
it_check "BASE defaults to debian:bookworm" grep -qx 'ARG BASE=debian:bookworm' "$JOINED"
it_check "runtime stage is FROM \${RUNTIME_BASE}" grep -qx 'FROM \${RUNTIME_BASE}' "$JOINED"
it_check "RUNTIME_BASE defaults to debian:bookworm-slim" grep -qx 'ARG RUNTIME_BASE=debian:bookworm-slim' "$JOINED"
it_check "the build-time arguments come before the first FROM" \
	bash -c '[ "$(grep -n "^ARG .*BASE=" "$1" | tail -n 1 | cut -d: -f1)" -lt "$(grep -n "^FROM " "$1" | head -n 1 | cut -d: -f1)" ]' _ "$JOINED"
it_check "build stage builds with cmake" grep -q 'cmake --build' "$JOINED"
it_check "build stage runs the unit tests" grep -q 'ctest .*-L unit' "$JOINED"
it_check "the unit tests run unless UNIT_TESTS=0" grep -qx 'ARG UNIT_TESTS=1' "$JOINED"
it_check "build stage builds fio from Debian's source package" grep -q 'apt-get source .*fio' "$JOINED"
for engine in rados rbd gfapi; do
	it_check "fio is built without the $engine engine" grep -q -- "--disable-$engine" "$JOINED"
done
it_check "the runtime stage copies the built fio" grep -q '^COPY --from=build .*/out/usr/local/bin/fio ' "$JOINED"
it_check "default command runs the agent on 0.0.0.0:7070 with the state dir" grep -qx \
	'CMD \["fleettune-agent", "--listen", "0.0.0.0:7070", "--state-dir", "/var/lib/fleettune"\]' \
	"$JOINED"
it_check "state directory is a volume" grep -q '^VOLUME .*/var/lib/fleettune' "$JOINED"
it_check "run flags are documented (privileged or caps, /sys rw, state volume)" \
	grep -q -- '--privileged.*-v /sys:/sys:rw\|-v /sys:/sys:rw.*--privileged' \
	<(tr '\n' ' ' <"$DF")
[ -x "$AGENT_BIN" ] && for flag in --listen --state-dir --allow-device --token-file; do
	it_check "fleettune-agent takes $flag" grep -q -- "$flag" <("$AGENT_BIN" --help)
done

# dockerignored PATH: true if a .dockerignore pattern (root-anchored glob) matches PATH or a parent.
dockerignored() {
	local path=${1%/} pat p
	[ -f "$FT_SOURCE_DIR/.dockerignore" ] || return 1
	while IFS= read -r pat; do
		pat=${pat%/}
		case $pat in '' | '#'* | '!'*) continue ;; esac
		p=$path
		while [ -n "$p" ] && [ "$p" != . ]; do
			# shellcheck disable=SC2053
			[[ $p == $pat ]] && return 0
			[[ $pat == '**/'* && ${p##*/} == ${pat#'**/'} ]] && return 0
			[ "${p%/*}" = "$p" ] && break
			p=${p%/*}
		done
	done <"$FT_SOURCE_DIR/.dockerignore"
	return 1
}
kept_in_context() { ! dockerignored "$1"; }
it_check ".dockerignore keeps build trees out" dockerignored build-eco/agent
it_check ".dockerignore keeps node_modules out" dockerignored tests/openapi/node_modules

# COPY sources from the build context.
n=0
while read -r -a words; do
	[ "${words[0]-}" = COPY ] || continue
	case "${words[1]}" in --from=*) continue ;; esac
	srcs=("${words[@]:1:${#words[@]}-2}")
	for src in "${srcs[@]}"; do
		case $src in --*) continue ;; esac
		n=$((n + 1))
		it_check "COPY source $src exists" [ -e "$FT_SOURCE_DIR/$src" ]
		it_check "COPY source $src is not in .dockerignore" kept_in_context "$src"
	done
done <"$JOINED"
it_check "the Dockerfile copies from the context ($n sources)" [ "$n" -gt 0 ]
for must in CMakeLists.txt common agent controller schema web tests deploy docs cmake; do
	it_check "build context copies $must" grep -Eq "^COPY ($must|$must/) " "$JOINED"
done

# apt packages: every word after "apt-get install" up to the next && / ; that is not an option.
pkgs_of_stage() {
	awk -v stage="$1" '/^FROM /{ s++ } s == stage' "$JOINED" |
		grep -o 'apt-get install[^&;]*' | sed 's/apt-get install//' | tr ' ' '\n' |
		grep -v '^-' | grep -v '^$'
}
build_pkgs=$(pkgs_of_stage 1)
runtime_pkgs=$(pkgs_of_stage 2)
it_check "build stage installs packages" [ -n "$build_pkgs" ]
it_check "runtime stage installs libaio1 (the built fio's libaio engine)" grep -qx libaio1 <<<"$runtime_pkgs"
it_check "runtime stage does not install Debian's fio (librados2, librbd1, glusterfs)" \
	bash -c '! grep -qx fio <<<"$1"' _ "$runtime_pkgs"
codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
[ "$codename" = bookworm ] || it_log "this host is '$codename', the image is bookworm: names checked against this host's lists"
# One apt-cache call for all of them (it prints the packages it knows, and fails on the others).
# shellcheck disable=SC2086
apt-cache show --no-all-versions $build_pkgs $runtime_pkgs >"$IT_TMP/apt-show" 2>/dev/null
for p in $build_pkgs $runtime_pkgs; do
	it_check "apt package $p is a real Debian package" grep -qx "Package: $p" "$IT_TMP/apt-show"
done
for p in $runtime_pkgs; do
	case $p in *-dev) it_fail "runtime stage installs a -dev package: $p" ;; esac
done

# COPY --from=build: the paths cmake --install lays out under /usr/local.
if [ -x "$AGENT_BIN" ] && [ -x "$CTL_BIN" ]; then
	inst=$IT_TMP/install
	if DESTDIR=$inst cmake --install "$FT_BUILD_DIR" --prefix /usr/local >"$IT_TMP/install.log" 2>&1; then
		it_pass "cmake --install into a DESTDIR"
		while read -r -a words; do
			[ "${words[0]-}" = COPY ] && [ "${words[1]}" = --from=build ] || continue
			srcs=("${words[@]:2:${#words[@]}-3}")
			for src in "${srcs[@]}"; do
				# fio is the build stage's own build (install -D ... /out/usr/local/bin/fio).
				if [ "$src" = /out/usr/local/bin/fio ]; then
					it_check "COPY --from=build $src is installed by the fio step" \
						grep -q 'install .*/out/usr/local/bin/fio ' "$JOINED"
					continue
				fi
				it_check "COPY --from=build $src is installed" [ -e "$inst${src#/out}" ]
			done
		done <"$JOINED"
		it_check "web/index.html is at the installed share path" \
			[ -f "$inst/usr/local/share/fleettune/web/index.html" ]
	else
		cat "$IT_TMP/install.log"
		it_fail "cmake --install into a DESTDIR"
	fi

	# Every library the binaries need directly comes from a runtime package (or libc6, which
	# the slim base has). Sanitizer runtimes only appear in the ASan build and are left out.
	for bin in "$AGENT_BIN" "$CTL_BIN"; do
		for soname in $(readelf -d "$bin" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p'); do
			case $soname in libasan.so* | libubsan.so* | libc.so* | libm.so* | ld-linux*) continue ;; esac
			path=$(ldconfig -p | awk -v s="$soname" '$1 == s { print $NF; exit }')
			pkg=$(dpkg -S "$path" 2>/dev/null | head -n 1 | cut -d: -f1)
			if [ -z "$pkg" ]; then
				path=$(readlink -f "$path")
				pkg=$(dpkg -S "$path" 2>/dev/null | head -n 1 | cut -d: -f1)
			fi
			it_check "$(basename "$bin") needs $soname: package '$pkg' is in the runtime stage" \
				grep -qx "$pkg" <<<"$runtime_pkgs"
		done
	done
else
	it_log "binaries not built: install layout and library checks skipped"
fi
it_done
