#!/usr/bin/env bash
# joblist.sh -- what the agent's history costs under load (issue 23 item 17): wrk on
# GET /api/v1/jobs?limit=50 and on /metrics with 200 and 5 000 jobs in the history, and the
# owner's health latency while the jobs list is flooded. The history is one real job (fake fio,
# 3 loops, params) copied in SQL, so both sizes hold the same rows.
# The two sizes are measured interleaved (200, 5 000, 200, ... ROUNDS times each, the agent
# restarted on that history every time), with min/median/max and the ratio 5 000 / 200.
# Usage: bench/joblist.sh [AGENT_BINARY] [SECONDS]   (root: makes and removes a loop device)
#        default: a RelWithDebInfo build in build-bench, 10 s per wrk run; env ROUNDS=3,
#        FT_BENCH_PORT_BASE=27000 (the agent listens on BASE + 501, + 502, ... one per start)
set -eu
cd "$(dirname "$0")/.."
AGENT=${1:-}
DUR=${2:-10}
ROUNDS=${ROUNDS:-3}
source bench/bench_lib.sh
bench_ports 27000
WITH_BENCH=1 ./scripts/deps.sh >/dev/null
if [ -z "$AGENT" ]; then
	cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFT_TESTS=OFF >/dev/null
	cmake --build build-bench -j"$(nproc)" --target fleettune-agent >/dev/null
	AGENT=build-bench/agent/fleettune-agent
fi
tmp=$(mktemp -d /tmp/ft-bench-joblist-XXXXXX)
truncate -s 64M "$tmp/disk.img"
dev=$(losetup --find --show "$tmp/disk.img")
dev=${dev#/dev/}
pid=
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	losetup -d "/dev/$dev"
	rm -rf "$tmp"
}
trap cleanup EXIT
ulimit -n 8192
starts=0
start() {
	# A port of its own each start: the last one may be held by connections closing.
	starts=$((starts + 1))
	"$AGENT" --listen "127.0.0.1:$(bench_port $((500 + starts)))" --state-dir "$tmp/state" --allow-device "$dev" \
		--fio "$PWD/tests/fixtures/fake-fio.sh" 2>"$tmp/agent.log.$starts" &
	pid=$!
	# A log per start: the previous agent's "listening" line must not be read as this one's.
	for _ in $(seq 300); do grep -q listening "$tmp/agent.log.$starts" 2>/dev/null && break; sleep 0.1; done
	port=$(sed -n 's/.*listening on http:\/\/127\.0\.0\.1:\([0-9]*\).*/\1/p' "$tmp/agent.log.$starts" 2>/dev/null)
	if [ -z "$port" ]; then
		echo "the agent did not listen on port $(bench_port $((500 + starts))) within 30 s:" >&2
		cat "$tmp/agent.log.$starts" >&2
		exit 1
	fi
	base=http://127.0.0.1:$port
	auth="Authorization: Bearer $(cat "$tmp/state/token")"
}
stop() { kill "$pid"; wait "$pid" 2>/dev/null || true; pid=; }
mkdir -p "$tmp/state"
export FAKE_FIO_SLEEP_S=0
start
curl -s -H "$auth" -X POST "$base/api/v1/jobs" -d "{\"device\":\"$dev\",\"engine\":\"fio\",\"fio\":{\"rw\":\"randwrite\",\"bs\":\"64k\",\"size\":\"16m\",\"runtime_s\":1},\"loops\":3,\"params\":{\"read_ahead_kb\":256},\"labels\":{\"bench\":\"joblist\"}}"
for _ in $(seq 100); do
	[ "$(curl -s -H "$auth" "$base/api/v1/jobs/1" | jq -r .state)" = succeeded ] && break
	sleep 0.2
done
[ "$(curl -s -H "$auth" "$base/api/v1/jobs/1" | jq -r .state)" = succeeded ] || { echo "the seed job did not succeed" >&2; exit 1; }
stop
# grow SIZE: copy job 1 (its passes, labels and params rows too) until the history has SIZE jobs
grow() {
	sqlite3 "$tmp/state/agent.db" <<SQL
WITH RECURSIVE n(i) AS (SELECT (SELECT MAX(id) FROM jobs) + 1 UNION ALL SELECT i + 1 FROM n WHERE i < $1)
INSERT INTO jobs(id, state, device, engine, spec, labels, loops, loops_done, params, restore, pgid,
                 error_code, error_message, created_at, started_at, finished_at, params_changed)
  SELECT n.i, state, device, engine, spec, labels, loops, loops_done, params, NULL, NULL,
         error_code, error_message, created_at + n.i, started_at + n.i, finished_at + n.i, NULL
  FROM jobs, n WHERE jobs.id = 1;
INSERT INTO passes SELECT j.id, p.loop, p.started_at, p.finished_at, p.metrics, p.raw
  FROM jobs j, passes p WHERE p.job_id = 1 AND j.id > 1 AND j.id NOT IN (SELECT job_id FROM passes);
INSERT OR IGNORE INTO job_labels SELECT j.id, l.key, l.value FROM jobs j, job_labels l WHERE l.job_id = 1 AND j.id > 1;
INSERT OR IGNORE INTO job_params SELECT j.id, p.name, p.value FROM jobs j, job_params p WHERE p.job_id = 1 AND j.id > 1;
SQL
}
wrk_line() { # PATH: req/s and p99
	wrk -t2 -c16 -d"${DUR}s" --latency -H "$auth" "$base$1" >"$tmp/wrk.txt"
	awk '/Requests\/sec/ { rps = $2 } /^ +99%/ { p99 = $2 } /Non-2xx/ { err = $NF }
	     END { printf "%10s %10s %6s\n", rps, p99, err + 0 }' "$tmp/wrk.txt"
}
echo "# agent: $AGENT ($(git log --oneline -1 2>/dev/null | cut -c1-60)); $ROUNDS rounds; $(bench_load)"
# Both histories first: a copy of the state directory per size.
for size in 200 5000; do
	grow "$size"
	rm -rf "$tmp/state-$size"
	cp -a "$tmp/state" "$tmp/state-$size"
done
: >"$tmp/res"
for r in $(seq "$ROUNDS"); do
	for size in 200 5000; do
		rm -rf "$tmp/state"
		cp -a "$tmp/state-$size" "$tmp/state"
		start
		for path in "/api/v1/jobs?limit=50" "/metrics"; do
			bytes=$(curl -s -H "$auth" "$base$path" | wc -c)
			set -- $(wrk_line "$path")
			echo "$size $path $1 $2 $3 $bytes" >>"$tmp/res"
			printf '# round %d: %-5s %-24s %10s req/s  p99 %-8s errors %s  %s bytes\n' "$r" "$size" "$path" "$1" "$2" "$3" "$bytes"
		done
		if [ "$size" = 5000 ] && [ "$r" = "$ROUNDS" ]; then
			# health from the owner while 64 connections flood the jobs list
			wrk -t2 -c64 -d"${DUR}s" -H "$auth" "$base/api/v1/jobs?limit=50" >"$tmp/flood.txt" &
			flood=$!
			sleep 1
			: >"$tmp/health.txt"
			end=$((SECONDS + DUR - 2))
			while [ "$SECONDS" -lt "$end" ]; do
				curl -s -o /dev/null -w '%{time_total} %{http_code}\n' -m 10 "$base/api/v1/health" >>"$tmp/health.txt" || echo "10 000" >>"$tmp/health.txt"
				sleep 0.2
			done
			wait "$flood"
			sort -n "$tmp/health.txt" | awk '{ t[NR] = $1; if ($2 != 200) bad++ }
				END { k = int(NR * 0.99) + 1; if (k > NR) k = NR
				      printf "RESULT health during a jobs-list flood (64 conns): %d probes, p50 %.3f s, p99 %.3f s, max %.3f s, %d not 200\n",
				      NR, t[int(NR * 0.5) + 1], t[k], t[NR], bad + 0 }'
			awk '/Requests\/sec/ { print "# (the flood itself: " $2 " req/s)" }' "$tmp/flood.txt"
		fi
		stop
	done
done
for path in "/api/v1/jobs?limit=50" "/metrics"; do
	for size in 200 5000; do
		echo "RESULT $size jobs, $path: $(awk -v s="$size" -v p="$path" '$1 == s && $2 == p { print $3 }' "$tmp/res" | bench_mmm) req/s"
	done
	a=$(awk -v p="$path" '$1 == 200 && $2 == p { print $3 }' "$tmp/res" | bench_median)
	b=$(awk -v p="$path" '$1 == 5000 && $2 == p { print $3 }' "$tmp/res" | bench_median)
	echo "RESULT $path: 5 000 jobs / 200 jobs (median req/s) $(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.3f", b / a }')"
done
