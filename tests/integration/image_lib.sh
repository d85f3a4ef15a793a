# image_lib.sh -- the container image built with podman from a locally made Debian base (no
# registry but Debian's packages): the mirror, the podman command, the base, the build. Sourced
# by tests/integration/it_image.sh and bench/image.sh; every function returns non-zero with a
# message on stderr, and the caller decides between skip and fail.

IMG_SUITE=bookworm
IMG_BASE_TAG=localhost/fleettune-base:$IMG_SUITE

# img_mirror: the Debian mirror apt is configured with (FT_DEBIAN_MIRROR overrides it): the
# first URI of a deb822 stanza or a one-line entry whose suites include the plain suite.
img_mirror() {
	local uri
	if [ -n "${FT_DEBIAN_MIRROR:-}" ]; then
		echo "$FT_DEBIAN_MIRROR"
		return 0
	fi
	uri=$(awk -v suite="$IMG_SUITE" '
		/^[[:space:]]*$/ { if (u != "" && s) { print u; exit } u = ""; s = 0; next }
		/^URIs:/ { u = $2 }
		/^Suites:/ { for (i = 2; i <= NF; i++) if ($i == suite) s = 1 }
		END { if (u != "" && s) print u }' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -n 1)
	[ -n "$uri" ] || uri=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
		awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i !~ /^\[/ && $i ~ /:\/\//) { print $i; exit } }')
	[ -n "$uri" ] || { echo "no Debian mirror in /etc/apt/sources.list*" >&2; return 1; }
	echo "$uri"
}

# img_podman_init DIR: every podman call below keeps its images, layers and state under DIR
# (one build directory's cache; nothing in /var/lib/containers).
img_podman_init() {
	IMG_DIR=$1
	mkdir -p "$IMG_DIR/storage" "$IMG_DIR/run" "$IMG_DIR/tmp"
	IMG_PODMAN=(podman --root "$IMG_DIR/storage" --runroot "$IMG_DIR/run"
		--storage-driver overlay --cgroup-manager cgroupfs --events-backend file
		--tmpdir "$IMG_DIR/tmp")
	"${IMG_PODMAN[@]}" info >"$IMG_DIR/podman-info.log" 2>&1 || {
		echo "podman does not work here: $(tail -n 3 "$IMG_DIR/podman-info.log")" >&2
		return 1
	}
	# A run killed mid-build (a test timeout) leaves its build containers mounted.
	"${IMG_PODMAN[@]}" ps -aq --external | xargs -r "${IMG_PODMAN[@]}" rm -f >/dev/null 2>&1
	return 0
}

pm() { TMPDIR=$IMG_DIR/tmp "${IMG_PODMAN[@]}" "$@"; }

# img_slimify ROOT: what Debian's official -slim images leave out (debuerreotype's slimify):
# documentation, man and info pages, locales, and apt's caches, now and for later installs.
img_slimify() {
	local r=$1
	cat >"$r/etc/dpkg/dpkg.cfg.d/docker-slim" <<-'EOF'
		path-exclude /usr/share/doc/*
		path-include /usr/share/doc/*/copyright
		path-exclude /usr/share/groff/*
		path-exclude /usr/share/info/*
		path-exclude /usr/share/linda/*
		path-exclude /usr/share/lintian/overrides/*
		path-exclude /usr/share/locale/*
		path-exclude /usr/share/man/*
	EOF
	find "$r/usr/share/doc" -mindepth 1 -not -name copyright -not -type d -delete
	find "$r/usr/share/doc" -mindepth 1 -depth -type d -empty -delete
	rm -rf "$r"/usr/share/groff/* "$r"/usr/share/info/* "$r"/usr/share/linda/* \
		"$r"/usr/share/lintian/overrides/* "$r"/usr/share/locale/* "$r"/usr/share/man/*
	rm -rf "$r"/var/cache/apt/archives/*.deb "$r"/var/cache/apt/*.bin "$r"/var/lib/apt/lists/* \
		"$r"/var/log/apt/* "$r"/var/log/dpkg.log "$r"/var/log/bootstrap.log
}

# img_base: the Debian base image (debootstrap --variant=minbase from the mirror, slimified,
# imported), made once per IMG_DIR and reused. Prints how it was had.
img_base() {
	local mirror root
	if pm image exists "$IMG_BASE_TAG"; then
		echo "base $IMG_BASE_TAG reused from $IMG_DIR"
		return 0
	fi
	mirror=$(img_mirror) || return 1
	root=$IMG_DIR/rootfs
	rm -rf "$root"
	if ! debootstrap --variant=minbase "$IMG_SUITE" "$root" "$mirror" >"$IMG_DIR/debootstrap.log" 2>&1; then
		echo "debootstrap $IMG_SUITE from $mirror failed: $(tail -n 3 "$IMG_DIR/debootstrap.log")" >&2
		rm -rf "$root"
		return 2
	fi
	img_slimify "$root"
	if ! tar -C "$root" -c . | pm import --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
		--change 'CMD ["/bin/bash"]' - "$IMG_BASE_TAG" >"$IMG_DIR/import.log" 2>&1; then
		echo "podman import of the base failed: $(tail -n 3 "$IMG_DIR/import.log")" >&2
		rm -rf "$root"
		return 1
	fi
	rm -rf "$root"
	echo "base $IMG_BASE_TAG made with debootstrap from $mirror"
}

# img_build SRC TAG LOG [podman build args...]: the Dockerfile of SRC built with both stages on
# the local base, the unit tests left to the suite (UNIT_TESTS=0). The build stage is tagged
# TAG-build first, so that img_prune keeps its layers as the next run's cache.
img_build() {
	local src=$1 tag=$2 log=$3 stage
	shift 3
	for stage in build runtime; do
		pm build --isolation=chroot --network host --layers \
			--build-arg BASE="$IMG_BASE_TAG" --build-arg RUNTIME_BASE="$IMG_BASE_TAG" \
			--build-arg UNIT_TESTS=0 "$@" \
			$([ "$stage" = build ] && echo "--target build -t $tag-build" || echo "-t $tag") \
			-f "$src/Dockerfile" "$src" >>"$log" 2>&1 || return 1
	done
}

# img_prune: the layers no tagged image uses (earlier builds') go; the base, the last build
# stage and the last image stay as the next run's cache.
img_prune() { pm image prune -f >/dev/null 2>&1; }

# img_size_bytes IMAGE: the image's size as podman reports it (uncompressed, every layer).
img_size_bytes() { pm image inspect --format '{{.Size}}' "$1"; }

# img_export IMAGE DIR: the image's filesystem unpacked into DIR (podman run does not work in
# every sandbox; create + export does).
img_export() {
	local cid rc
	cid=$(pm create "$1") || return 1
	mkdir -p "$2"
	pm export "$cid" | tar -C "$2" -x
	rc=$?
	pm rm "$cid" >/dev/null
	return $rc
}
