#!/bin/bash
# web.sh -- first render of the history view with 5 000 results, in headless Chromium.
# Makes a loop device, runs 3 short real fio jobs through a real agent, clones them in the
# agent's SQLite (schema/agent.sql: jobs, passes, job_labels, job_params) up to N results,
# restarts the agent on that database and times the history view's first render
# (navigation start -> view built, and -> next painted frame; median of RUNS cold loads).
# usage: bench/web.sh [N=5000] [RUNS=7]     (root; FT_BUILD_DIR defaults to ./build)
# Prints: "web first render (history, N results, 50 rows): median ... ms".
set -u
here=$(cd "$(dirname "$0")" && pwd)
export FT_SOURCE_DIR=${FT_SOURCE_DIR:-$(dirname "$here")}
export FT_BUILD_DIR=${FT_BUILD_DIR:-$FT_SOURCE_DIR/build}
. "$FT_SOURCE_DIR/tests/integration/lib.sh"
. "$FT_SOURCE_DIR/tests/browser/browser_lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/bench_lib.sh"
bench_ports 31000 # agents listen on named ports: FT_BENCH_PORT_BASE + N
N=${1:-5000}
RUNS=${2:-7}

it_need_root_sysfs
bt_need_browser
command -v sqlite3 >/dev/null || it_skip "sqlite3 not installed"
command -v fio >/dev/null || it_skip "fio not installed"

dev=$(it_loop_create 256M)
it_agent_start bench --allow-device "$dev" --web-root "$FT_SOURCE_DIR/web" || exit 1
ids=()
for nr in 32 64 128; do
	id=$(bt_job_post "$bench_URL" "$bench_TOKEN" \
		"$(bt_fio_body "$dev" 2 "{\"nr_requests\":$nr}" '{"suite":"bench","note":"<img src=x onerror=alert(1)>"}')") || exit 1
	ids+=("$id")
done
bt_jobs_wait "$bench_URL" "$bench_TOKEN" 120 "${ids[@]}" || exit 1
kill -TERM "$bench_PID"
it_wait_for "agent to stop" 10 bash -c "! kill -0 $bench_PID 2>/dev/null" || exit 1

db="$bench_STATE/agent.db"
t0=$(date +%s.%N)
sqlite3 "$db" <<SQL || exit 1
PRAGMA foreign_keys = OFF;
BEGIN;
CREATE TEMP TABLE seed AS SELECT id AS seed_id, row_number() OVER (ORDER BY id) AS k
  FROM jobs WHERE state = 'succeeded';
CREATE TEMP TABLE clone AS
  WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n
                          WHERE i < $N - (SELECT count(*) FROM temp.seed))
  SELECT i, (SELECT max(id) FROM jobs) + i AS new_id,
         (SELECT seed_id FROM temp.seed WHERE k = 1 + (i - 1) % (SELECT count(*) FROM temp.seed)) AS seed_id
  FROM n;
INSERT INTO jobs (id, state, device, engine, spec, labels, loops, loops_done, params, restore, pgid,
                  error_code, error_message, created_at, started_at, finished_at)
  SELECT c.new_id, j.state, j.device, j.engine, j.spec, j.labels, j.loops, j.loops_done, j.params,
         j.restore, NULL, j.error_code, j.error_message, j.created_at + 10 * c.i,
         j.started_at + 10 * c.i, j.finished_at + 10 * c.i
  FROM temp.clone c JOIN jobs j ON j.id = c.seed_id ORDER BY c.i;
INSERT INTO passes (job_id, loop, started_at, finished_at, metrics, raw)
  SELECT c.new_id, p.loop, p.started_at + 10 * c.i, p.finished_at + 10 * c.i, p.metrics, p.raw
  FROM temp.clone c JOIN passes p ON p.job_id = c.seed_id;
INSERT INTO job_labels (job_id, key, value)
  SELECT c.new_id, l.key, l.value FROM temp.clone c JOIN job_labels l ON l.job_id = c.seed_id;
INSERT INTO job_params (job_id, name, value)
  SELECT c.new_id, p.name, p.value FROM temp.clone c JOIN job_params p ON p.job_id = c.seed_id;
COMMIT;
SQL
t1=$(date +%s.%N)
it_log "cloned to $(sqlite3 "$db" 'SELECT count(*) FROM jobs') jobs, $(sqlite3 "$db" 'SELECT count(*) FROM passes') passes in $(awk "BEGIN{printf \"%.2f\", $t1 - $t0}") s; db $(du -h "$db" | cut -f1)"

it_agent_start bench --allow-device "$dev" --web-root "$FT_SOURCE_DIR/web" || exit 1
it_http GET "$bench_URL/api/v1/results?limit=1" "$bench_TOKEN"
it_log "results API: HTTP $HTTP_STATUS, newest id $(echo "$HTTP_BODY" | jq '.results[0].id')"
t=$(curl -s -o /dev/null -w '%{time_total}' -H "Authorization: Bearer $bench_TOKEN" "$bench_URL/api/v1/results?limit=50")
it_log "GET /api/v1/results?limit=50 alone: ${t}s"

out="$IT_TMP/render.out"
node "$BT_DIR/render_bench.js" --url "$bench_URL/" --hash '#/history' --runs "$RUNS" --token "$bench_TOKEN" \
	--expect-rows 50 | tee "$out" | sed 's/^/# history 50: /'
[ "${PIPESTATUS[0]}" = 0 ] || { echo "render bench failed" >&2; exit 1; }
m=$(sed -n 's/^median ready_ms=\([0-9.]*\) paint_ms=\([0-9.]*\).*/\1 \2/p' "$out")
node "$BT_DIR/render_bench.js" --url "$bench_URL/" --hash '#/history?limit=500' --runs 3 --token "$bench_TOKEN" \
	--expect-rows 500 | tee "$out.500" | sed 's/^/# history 500: /'
m500=$(sed -n 's/^median ready_ms=\([0-9.]*\) paint_ms=\([0-9.]*\).*/\1 \2/p' "$out.500")
set -- $m
echo "web first render (history, $N results, 50 rows): median ${1} ms to view built, ${2} ms to first paint (target < 1000 ms)"
set -- $m500
echo "web first render (history, $N results, 500 rows): median ${1} ms to view built, ${2} ms to first paint"
