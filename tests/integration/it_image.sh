#!/bin/bash
# it_image.sh -- the Dockerfile built with podman on a Debian base made here (debootstrap from
# the configured mirror, cached in the build directory), its runtime image measured (<= 100 MB,
# no cluster libraries, fio with the agent's engines) and run: its filesystem exported, the
# agent started from it with chroot on a loop device (PATCH, a real fio job, the web page), and
# the image's fleettune-ctl running a one-node sweep against it.
# Everything below (podman's build steps, the chroot of the image's agent) runs in a private
# mount namespace made before the other tests mount anything: each build step's namespace, a copy
# of it, then holds none of their filesystems (which would keep their devices busy after they
# unmount them, lib.sh's it_ns_release_foreign), and podman's mounts vanish with the test.
if [ -z "${FT_IT_HOST_MNTNS:-}" ] && [ "$(id -u)" = 0 ] && command -v unshare >/dev/null; then
	FT_IT_HOST_MNTNS=$(readlink /proc/self/ns/mnt) exec unshare --mount --propagation private \
		bash "$0" "$@"
fi
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/image_lib.sh"
it_ns_release_foreign

it_need_root_sysfs
it_need_built "$CTL_BIN"
for tool in podman debootstrap unshare chroot; do
	command -v "$tool" >/dev/null || it_skip "$tool not installed (scripts/deps.sh installs it)"
done
img_podman_init "$FT_BUILD_DIR/image" 2>"$IT_TMP/podman.err" || it_skip "$(cat "$IT_TMP/podman.err")"
TAG=localhost/fleettune:it-image
MAX_BYTES=100000000 # 100 MB, as podman and docker count (decimal)

t0=$(date +%s)
base_msg=$(img_base 2>"$IT_TMP/base.err")
case $? in
0) it_log "$base_msg ($(($(date +%s) - t0)) s)" ;;
2) it_skip "the Debian mirror is unavailable: $(cat "$IT_TMP/base.err")" ;;
*) it_fail "the Debian base image: $(cat "$IT_TMP/base.err")"; it_done ;;
esac

t1=$(date +%s)
# One compile job: the suite runs this test beside the others (tests/CMakeLists.txt).
if img_build "$FT_SOURCE_DIR" "$TAG" "$IT_TMP/build.log" --build-arg JOBS=1; then
	it_pass "podman build of the Dockerfile (both stages, BASE and RUNTIME_BASE the local base)"
else
	tail -n 40 "$IT_TMP/build.log"
	it_fail "podman build of the Dockerfile"
	it_done
fi
steps=$(grep -c 'STEP [0-9]*/[0-9]*:' "$IT_TMP/build.log")
cached=$(grep -c '^--> Using cache' "$IT_TMP/build.log")
it_log "build took $(($(date +%s) - t1)) s ($((steps - cached)) of $steps steps ran, the rest from the layer cache in $IMG_DIR)"

size=$(img_size_bytes "$TAG")
base_size=$(img_size_bytes "$IMG_BASE_TAG")
it_log "runtime image: $size bytes ($((size / 1000000)) MB); base $((base_size / 1000000)) MB, fleettune's layers $(((size - base_size) / 1000000)) MB"
it_check "the runtime image is at most 100 MB ($size bytes)" [ "$size" -le "$MAX_BYTES" ]
it_eq "default command" '[fleettune-agent --listen 0.0.0.0:7070 --state-dir /var/lib/fleettune]' \
	"$(pm image inspect --format '{{.Config.Cmd}}' "$TAG")"
it_check "the state directory is a volume" grep -q /var/lib/fleettune \
	<<<"$(pm image inspect --format '{{.Config.Volumes}}' "$TAG")"
it_check "port 7070 is exposed" grep -q 7070 \
	<<<"$(pm image inspect --format '{{.Config.ExposedPorts}}' "$TAG")"

ROOT=$IT_TMP/rootfs
if img_export "$TAG" "$ROOT"; then
	it_pass "podman create + export: the image's filesystem"
else
	it_fail "podman create + export"
	it_done
fi

# in_image PROG ARGS...: PROG run from the image's filesystem, in a mount namespace of its own
# with /sys, /dev, a /proc and this test's directory (at the same path) bound in; the mounts
# vanish with the process. The environment is the image's, not the host's.
cat >"$IT_TMP/in-image" <<'EOF'
#!/bin/sh
exec unshare --mount --propagation private sh -c '
	r=$1 t=$2; shift 2
	mount --bind /sys "$r/sys" && mount --bind /dev "$r/dev" && mount -t proc proc "$r/proc" &&
		mkdir -p "$r$t" && mount --bind "$t" "$r$t" &&
		exec chroot "$r" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
			HOME=/root "$@"' sh "$FT_IMAGE_ROOT" "$FT_IMAGE_TMP" "$@"
EOF
chmod +x "$IT_TMP/in-image"
export FT_IMAGE_ROOT=$ROOT FT_IMAGE_TMP=$IT_TMP
in_image() { "$IT_TMP/in-image" "$@"; }

# --- what is in it ---
it_check "no librados, librbd or glusterfs in the image" \
	bash -c '! find "$1/usr/lib" "$1/lib" -name "librados*" -o -name "librbd*" -o -name "libgf*" -o -name "libglusterfs*" | grep -q .' _ "$ROOT"
it_check "no compiler in the runtime image" bash -c '! [ -e "$1/usr/bin/gcc" ] && ! [ -e "$1/usr/bin/cc" ]' _ "$ROOT"
it_eq "no -dev package in the runtime image" "" \
	"$(chroot "$ROOT" dpkg-query -W -f '${Package}\n' | grep -- '-dev$')"
it_check "the host's fio is not in the image (jobs run the image's)" [ ! -e "$ROOT/usr/bin/fio" ]
for bin in fleettune-agent fleettune-ctl fio; do
	out=$(chroot "$ROOT" /usr/bin/ldd "/usr/local/bin/$bin" 2>&1)
	it_check "$bin: every shared library resolves in the image" bash -c '! grep -q "not found" <<<"$1"' _ "$out"
done
it_eq "the image's fio is Debian's 3.33" fio-3.33 "$(chroot "$ROOT" /usr/local/bin/fio --version)"
engines=$(chroot "$ROOT" /usr/local/bin/fio --enghelp 2>&1)
for e in libaio io_uring psync sync pvsync pvsync2 vsync posixaio mmap; do
	it_check "the image's fio has the $e engine" grep -qx "[[:space:]]*$e" <<<"$engines"
done
it_check "bonnie++ is in the image" [ -x "$ROOT/usr/sbin/bonnie++" ]
it_check "the web page is in the image" [ -f "$ROOT/usr/local/share/fleettune/web/index.html" ]

out=$(in_image fleettune-ctl --help 2>&1)
it_eq "fleettune-ctl --help from the image exits 0" 0 "$?"
it_check "fleettune-ctl --help lists the sweep command" grep -q sweep <<<"$out"

# --- the agent from the image, on a loop device ---
dev=$(it_loop_create 128M)
AGENT_BIN=$IT_TMP/in-image-agent
printf '#!/bin/sh\nexec "%s" fleettune-agent "$@"\n' "$IT_TMP/in-image" >"$AGENT_BIN"
chmod +x "$AGENT_BIN"
it_agent_start img --allow-device "$dev" || { it_fail "the image's agent starts"; it_done; }
it_pass "the image's agent starts (chroot, loop device $dev)"
U=$img_URL/api/v1
it_http GET "$U/health" ""
it_eq "health" ok "$(jq -r .status <<<"$HTTP_BODY")"
it_http GET "$img_URL/" ""
it_check "the web page is served from the image's share directory" grep -qi '<html' <<<"$HTTP_BODY"

nr0=$(it_sys "$dev" nr_requests)
ra0=$(it_sys "$dev" read_ahead_kb)
it_http PATCH "$U/devices/$dev/params" "$img_TOKEN" '{"params":{"nr_requests":64,"read_ahead_kb":512}}'
it_eq "PATCH: 200" 200 "$HTTP_STATUS"
it_eq "nr_requests written through the image's agent" 64 "$(it_sys "$dev" nr_requests)"
it_eq "read_ahead_kb written through the image's agent" 512 "$(it_sys "$dev" read_ahead_kb)"

job='{"device":"'$dev'","engine":"fio","loops":2,"params":{"nr_requests":32},
 "fio":{"rw":"randwrite","bs":"64k","ioengine":"libaio","direct":true,"iodepth":8,"size":"32m",
        "runtime_s":1,"time_based":true}}'
it_job_run "the image's fio" "$U" "$img_TOKEN" "$job"
it_eq "the job succeeded" succeeded "$(jq -r .state <<<"$HTTP_BODY")"
it_eq "2 passes" 2 "$(jq '.passes | length' <<<"$HTTP_BODY")"
it_eq "write.bw_mib is positive" true "$(jq '[.passes[].metrics["write.bw_mib"] > 0] | all' <<<"$HTTP_BODY")"
it_eq "the job's parameters are restored" 64 "$(it_sys "$dev" nr_requests)"
it_http GET "$U/jobs/$JOB_ID/raw?loop=1" "$img_TOKEN"
it_eq "the pass ran the image's fio" fio-3.33 "$(jq -r '."fio version"' <<<"$HTTP_BODY")"

# --- the image's controller: a one-node sweep against the image's agent ---
cat >"$IT_TMP/plan.json" <<PLAN
{
  "name": "it image",
  "nodes": [{"name": "img", "url": "$img_URL", "device": "$dev", "token_file": "img-state/token"}],
  "baseline": {"nr_requests": 64},
  "axes": [{"param": "nr_requests", "values": [32]}],
  "job": {"engine": "fio", "fio": {"rw": "randwrite", "bs": "64k", "ioengine": "libaio",
          "direct": true, "iodepth": 8, "size": "32m", "runtime_s": 1, "time_based": true},
          "loops": 2}
}
PLAN
in_image fleettune-ctl sweep "$IT_TMP/plan.json" --db "$IT_TMP/ctl.db" --format json \
	>"$IT_TMP/sweep.json" 2>"$IT_TMP/sweep.err"
rc=$?
[ "$rc" -le 1 ] || cat "$IT_TMP/sweep.err"
it_check "the image's fleettune-ctl runs a sweep against the image's agent (exit $rc)" [ "$rc" -le 1 ]
it_eq "the sweep document has the baseline and the point" true \
	"$(jq '[.points[]?] | length >= 2' "$IT_TMP/sweep.json")"
it_eq "the sweep put the device back" 64 "$(it_sys "$dev" nr_requests)"

it_http PATCH "$U/devices/$dev/params" "$img_TOKEN" "{\"params\":{\"nr_requests\":$nr0,\"read_ahead_kb\":$ra0}}"
it_eq "device put back" "$nr0 $ra0" "$(it_sys "$dev" nr_requests) $(it_sys "$dev" read_ahead_kb)"

# Old layers of earlier builds go; the base and this build stay cached for the next run.
img_prune
it_done
