# Dockerfile -- fleettune: a build stage that compiles fleettune and fio (and runs the unit
# tests), and a small runtime stage with fio, fleettune-agent, fleettune-ctl and the web page.
#
# Build:  docker build -t fleettune .
#   --build-arg BASE=IMAGE          the build stage's Debian 12 image (default debian:bookworm)
#   --build-arg RUNTIME_BASE=IMAGE  the runtime stage's (default debian:bookworm-slim)
#   --build-arg UNIT_TESTS=0        skip the unit tests in the build stage (a CI that already
#                                   ran them; tests/integration/it_image.sh does this)
#   --build-arg JOBS=N              compile with N jobs (default: every CPU; it_image.sh uses
#                                   1, leaving the other CPU to the tests it overlaps)
# Run the agent on a node (it writes /sys/block/*/queue and benchmarks devices):
#   docker run -d --name fleettune-agent --network host --privileged \
#     -v /sys:/sys:rw -v /var/lib/fleettune:/var/lib/fleettune \
#     fleettune fleettune-agent --listen 0.0.0.0:7070 --state-dir /var/lib/fleettune \
#       --allow-device sdb
# Without --privileged, the minimum should be (derived from Docker's defaults, not run here)
#   --security-opt apparmor=unconfined -v /sys:/sys:rw --cap-add SYS_ADMIN
#   --device /dev/sdb (one per --allow-device, for benchmarks on the raw device)
#   plus --security-opt systempaths=unconfined if the agent runs with --allow-sysctl.
# The token is created in the state directory (mode 0600) on first start, or pass
# --token-file /run/secrets/fleettune-token. docs/operations.md ("The container image") has
# the details.
#
# fio comes from Debian's own source package (the same fio 3.33 with Debian's patches), built
# with the engines the agent offers (libaio, io_uring, the sync family, posixaio, mmap) and
# without the network and cluster engines (rados, rbd, gfapi, nbd, rdma, pmem): Debian's fio
# binary links librados2, librbd1 and glusterfs, about 100 MB that no agent job uses.

ARG BASE=debian:bookworm
ARG RUNTIME_BASE=debian:bookworm-slim

FROM ${BASE} AS build
ARG UNIT_TESTS=1
ARG JOBS=
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      build-essential cmake pkg-config libmicrohttpd-dev libjansson-dev \
      libcurl4-openssl-dev libsqlite3-dev libcmocka-dev libaio-dev zlib1g-dev dpkg-dev \
 && rm -rf /var/lib/apt/lists/*

# fio from the source package of the image's own Debian release (deb-src added for this step).
WORKDIR /fio
RUN for f in /etc/apt/sources.list.d/*.sources; do \
      [ -f "$f" ] && sed -i 's/^Types: deb$/Types: deb deb-src/' "$f"; \
    done; \
    if [ -f /etc/apt/sources.list ]; then \
      sed -n 's/^deb \(.*\)/deb-src \1/p' /etc/apt/sources.list >/etc/apt/sources.list.d/src.list; \
    fi; \
    apt-get update \
 && apt-get source --download-only fio \
 && rm -rf /var/lib/apt/lists/* \
 && dpkg-source -x fio_*.dsc src \
 && cd src \
 && eval "$(DEB_BUILD_MAINT_OPTIONS=hardening=+all dpkg-buildflags --export=sh)" \
 && ./configure --prefix=/usr/local --disable-native \
      --disable-rados --disable-rbd --disable-http --disable-gfapi --disable-pmem --disable-rdma \
      --disable-numa --disable-libzbc --disable-dfs --disable-xnvme --disable-libnfs \
      --disable-tcmalloc \
 && make -j"${JOBS:-$(nproc)}" fio \
 && install -D -s -m 0755 fio /out/usr/local/bin/fio \
 && ./fio --enghelp | grep -qw libaio && ./fio --enghelp | grep -qw io_uring

WORKDIR /src
COPY CMakeLists.txt ./
COPY cmake/ cmake/
COPY common/ common/
COPY agent/ agent/
COPY controller/ controller/
COPY schema/ schema/
COPY web/ web/
COPY tests/ tests/
COPY deploy/ deploy/
COPY docs/ docs/
# With UNIT_TESTS=1 (the default) every unit test runs here: their fixtures are all under tests/.
RUN if [ "$UNIT_TESTS" = 1 ]; then tests=ON; else tests=OFF; fi \
 && cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DFT_WERROR=ON -DFT_TESTS=$tests \
      -DCMAKE_INSTALL_PREFIX=/usr/local \
 && cmake --build build -j"${JOBS:-$(nproc)}" \
 && if [ "$tests" = ON ]; then ctest --test-dir build -L unit --output-on-failure; fi \
 && DESTDIR=/out cmake --install build --strip

# The runtime: the shared libraries the two binaries and fio link, CA certificates for the
# controller's HTTPS, bonnie++ (the agent's bonnie engine, 0.2 MB); dd is in the base.
FROM ${RUNTIME_BASE}
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      libmicrohttpd12 libjansson4 libcurl4 libsqlite3-0 libaio1 zlib1g ca-certificates bonnie++ \
 && apt-get clean \
 && rm -rf /var/lib/apt/lists/* /var/cache/debconf/*-old /var/log/apt/* /var/log/dpkg.log
COPY --from=build /out/usr/local/bin/fleettune-agent /out/usr/local/bin/fleettune-wait \
     /out/usr/local/bin/fleettune-ctl /out/usr/local/bin/fio /usr/local/bin/
COPY --from=build /out/usr/local/share/fleettune/web/ /usr/local/share/fleettune/web/
VOLUME ["/var/lib/fleettune"]
EXPOSE 7070
CMD ["fleettune-agent", "--listen", "0.0.0.0:7070", "--state-dir", "/var/lib/fleettune"]
