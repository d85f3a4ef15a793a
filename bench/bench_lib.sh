# bench_lib.sh -- what every benchmark script shares: named ports, min/median/max, and the
# line that says whether a target was met. Source it; it sources nothing.
#
# Ports: every agent or daemon a script starts listens on a port of its own, named, from
# FT_BENCH_PORT_BASE (each script sets its own default range below 30000, so that two scripts
# run side by side and the ports say whose they are): bench_port N is base + N. Nothing
# listens on port 0.

# bench_ports DEFAULT_BASE: the script's range (FT_BENCH_PORT_BASE overrides it); also sets
# IT_PORT_BASE for tests/integration/lib.sh's it_agent_start.
bench_ports() {
	FT_BENCH_PORT_BASE=${FT_BENCH_PORT_BASE:-$1}
	export IT_PORT_BASE=$FT_BENCH_PORT_BASE
}

# bench_port N: port N of the range.
bench_port() {
	echo $((FT_BENCH_PORT_BASE + $1))
}

# bench_mmm < numbers: "min M, median M, max M (n N)".
bench_mmm() {
	sort -g | awk '{ a[NR] = $1 } END {
		if (!NR) { print "none"; exit }
		m = (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2
		printf "min %.4g, median %.4g, max %.4g (n %d)\n", a[1], m, a[NR], NR }'
}

# bench_median < numbers
bench_median() {
	sort -g | awk '{ a[NR] = $1 } END { if (NR) print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}

# bench_target WHAT VALUE OP LIMIT: "RESULT target WHAT: VALUE (target OP LIMIT): met" or
# "NOT met"; OP is <= < >= >. Returns 0 either way (a bench reports, it does not fail).
bench_target() {
	local met
	met=$(awk -v v="$2" -v l="$4" -v op="$3" 'BEGIN {
		ok = (op == "<=") ? v <= l : (op == "<") ? v < l : (op == ">=") ? v >= l : v > l
		print ok ? "met" : "NOT met" }')
	echo "RESULT target $1: $2 (target $3 $4): $met"
}

# bench_load: the machine's load, for the figures' "load stated".
bench_load() {
	echo "load $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
}

# bench_agent_start NAME DEV PORT_N [AGENT_OPTION...]: starts $AGENT for node NAME on loop device
# DEV, listening on bench_port PORT_N, its state in $tmp/NAME-state and its log in $tmp/NAME.log;
# appends its pid to the caller's pids array and sets URL once it listens (exits 1 with its log
# if it does not within 5 s).
bench_agent_start() {
	local name=$1 dev=$2 port_n=$3 log="$tmp/$1.log" port="" i
	shift 3
	mkdir -p "$tmp/$name-state"
	"$AGENT" --listen "127.0.0.1:$(bench_port "$port_n")" --node-name "$name" \
		--state-dir "$tmp/$name-state" --allow-device "$dev" "$@" 2>"$log" &
	pids+=($!)
	for i in $(seq 100); do
		port=$(sed -n 's/.*listening on http:\/\/127\.0\.0\.1:\([0-9]*\).*/\1/p' "$log" | tail -n 1)
		[ -n "$port" ] && break
		sleep 0.05
	done
	[ -n "$port" ] || { cat "$log" >&2; exit 1; }
	URL=http://127.0.0.1:$port
}

# bench_mc_build TARGET: sets B to the build directory holding bench/TARGET (a Monte Carlo
# program): FT_BUILD_DIR when set (the suite's run: nothing configured or built), else a Release
# build-bench of the tree (run from the tree's top), configured and built for TARGET alone.
bench_mc_build() {
	if [ -n "${FT_BUILD_DIR:-}" ]; then
		B=$FT_BUILD_DIR
		return
	fi
	WITH_BROWSER=0 ./scripts/deps.sh
	cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release -DFT_TESTS=OFF >/dev/null
	cmake --build build-bench -j2 --target "$1" >/dev/null
	B=build-bench
}
