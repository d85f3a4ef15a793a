# Dockerfile -- fleettune: a build stage that compiles and runs the unit tests, and a slim
# runtime stage with fio, fleettune-agent, fleettune-ctl and the web page.
#
# Build:  docker build -t fleettune .
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
# --token-file /run/secrets/fleettune-token. README.md ("Running in production") has the details.

FROM debian:bookworm AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      build-essential cmake pkg-config libmicrohttpd-dev libjansson-dev \
      libcurl4-openssl-dev libsqlite3-dev libcmocka-dev \
 && rm -rf /var/lib/apt/lists/*
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
# Every unit test runs here: their fixtures are all under tests/.
RUN cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DFT_WERROR=ON -DCMAKE_INSTALL_PREFIX=/usr/local \
 && cmake --build build -j"$(nproc)" \
 && ctest --test-dir build -L unit --output-on-failure \
 && DESTDIR=/out cmake --install build --strip

FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      fio libmicrohttpd12 libjansson4 libcurl4 libsqlite3-0 ca-certificates \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /out/usr/local/bin/fleettune-agent /out/usr/local/bin/fleettune-ctl /usr/local/bin/
COPY --from=build /out/usr/local/share/fleettune/web/ /usr/local/share/fleettune/web/
VOLUME ["/var/lib/fleettune"]
EXPOSE 7070
CMD ["fleettune-agent", "--listen", "0.0.0.0:7070", "--state-dir", "/var/lib/fleettune"]
