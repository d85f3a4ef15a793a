# fleet_lib.sh -- many light agents at once for the benchmarks (fanout.sh, fleet.sh): each on a
# temp --sysfs-root tree with one fake device "sdb", started in staggered batches, readiness
# read from their logs (one grep per round, not one request per agent). Source after
# tests/integration/lib.sh.

# fleet_fake_device ROOT: a minimal block device under ROOT; the agent only reads and writes files.
fleet_fake_device() {
	local q=$1/sys/block/sdb/queue
	mkdir -p "$q/iosched"
	echo 2097152 >"$1/sys/block/sdb/size"
	echo "none [mq-deadline] kyber" >"$q/scheduler"
	echo 64 >"$q/nr_requests"
	echo 128 >"$q/read_ahead_kb"
	echo 1 >"$q/rq_affinity"
	echo 0 >"$q/rotational"
	echo 16 >"$q/iosched/fifo_batch"
	echo 512 >"$q/hw_sector_size"
	# A medium's sequence number, as kernels since 5.15 give: the agent keeps what does not
	# change per medium.
	echo 1 >"$1/sys/block/sdb/diskseq"
}

# fleet_start N [agent args...]: agents a1..aN on 127.0.0.1 ports FT_BENCH_PORT_BASE + I
# (bench_lib.sh's bench_ports sets the base; 20000 when the script did not), state in
# $IT_TMP/aI-state (token file aI-state/token, relative to $IT_TMP), logs $IT_TMP/aI.log.
# FLEET_ENV_FN, if set, names a function called with I that prints VAR=VALUE words for agent
# I's environment. Sets FLEET_URL[1..N]; returns 1 if an agent did not come up in 120 s.
fleet_start() {
	local n=$1 i t ready port f env
	shift
	FT_BENCH_PORT_BASE=${FT_BENCH_PORT_BASE:-20000}
	# One descriptor per agent connection in the controller, plus the agents' own.
	ulimit -n 65536 2>/dev/null || ulimit -n 8192 2>/dev/null
	FLEET_URL=()
	for i in $(seq "$n"); do
		fleet_fake_device "$IT_TMP/root$i"
		mkdir -p "$IT_TMP/a$i-state"
		env=()
		[ -n "${FLEET_ENV_FN:-}" ] && read -r -a env < <("$FLEET_ENV_FN" "$i")
		env "${env[@]}" "$AGENT_BIN" --listen "127.0.0.1:$((FT_BENCH_PORT_BASE + i))" --node-name "a$i" \
			--state-dir "$IT_TMP/a$i-state" --sysfs-root "$IT_TMP/root$i" --allow-device sdb \
			"$@" 2>"$IT_TMP/a$i.log" &
		IT_PIDS+=("$!")
		# Stagger: 2 cores start 32 agents, then let them settle.
		[ $((i % 32)) = 0 ] && sleep 0.3
	done
	for t in $(seq 1200); do
		ready=$(grep -l 'listening on' "$IT_TMP"/a*.log 2>/dev/null | wc -l)
		[ "$ready" -ge "$n" ] && break
		sleep 0.1
	done
	[ "$ready" -ge "$n" ] || { echo "only $ready of $n agents came up" >&2; return 1; }
	# One pass over the logs: "DIR/aI.log:...listening on http://127.0.0.1:PORT".
	while IFS=: read -r f _ _ port; do
		f=${f##*/a}
		FLEET_URL[${f%.log}]="http://127.0.0.1:${port%% *}"
	done < <(grep -o 'listening on http://127.0.0.1:[0-9]*' "$IT_TMP"/a*.log)
	return 0
}

# fleet_nodes_json N: the plan's "nodes" array for agents a1..aN.
fleet_nodes_json() {
	local i
	echo -n '['
	for i in $(seq "$1"); do
		[ "$i" -gt 1 ] && echo -n ','
		printf '{"name":"a%d","url":"%s","device":"sdb","token_file":"a%d-state/token"}' \
			"$i" "${FLEET_URL[$i]}" "$i"
	done
	echo -n ']'
}

# fleet_stop: stop every agent (TERM to all, then wait).
fleet_stop() {
	local pid
	for pid in "${IT_PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null; done
	wait 2>/dev/null
	IT_PIDS=()
}
