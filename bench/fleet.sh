#!/bin/bash
# fleet.sh -- a sweep over NODES light agents (default 256) whose --fio is bench/fakefio_fixed (each
# pass takes exactly RUNTIME_S, bandwidth with seeded noise): a 3-value axis (baseline + 3
# points), LOOPS loops. Reports the controller's overhead (wall / nominal job time; target
# <= 1.02), its peak RSS and CPU seconds, the job GETs each agent served per job (from the
# agents' /metrics: O(loops) with long-poll, not O(runtime / poll interval)), and the time
# from the last node finishing to the table printed. POLL=1 hides the agents' long_poll
# feature (FLEETTUNE_TEST_NO_LONG_POLL=1), so the controller polls every --poll-ms as before.
#
# usage: bench/fleet.sh [BUILD_DIR]   (env: NODES=256 LOOPS=3 RUNTIME_S=5 POLL=0 POLL_MS=50)
# Use a Release build for the figures; no root, no devices.
set -u
BUILD=${1:-${FT_BUILD_DIR:-$(cd "$(dirname "$0")/.." && pwd)/build}}
BUILD=$(cd "$BUILD" && pwd)
export FT_BUILD_DIR=$BUILD
source "$(dirname "$0")/../tests/integration/lib.sh"
source "$(dirname "$0")/fleet_lib.sh"
NODES=${NODES:-256}
LOOPS=${LOOPS:-3}
RUNTIME_S=${RUNTIME_S:-5}
POLL=${POLL:-0}
POLL_MS=${POLL_MS:-50}
FAKE=$BUILD/bench/fakefio_fixed
[ -x "$AGENT_BIN" ] && [ -x "$CTL_BIN" ] && [ -x "$FAKE" ] ||
	{ echo "build first: $AGENT_BIN, $CTL_BIN, $FAKE" >&2; exit 1; }

# Agent I's environment: its own noise seed and run counter; the feature hidden with POLL=1.
agent_env() {
	echo "FAKEFIO_SEED=$1 FAKEFIO_COUNT=$IT_TMP/a$1-state/fakefio.count" \
		"FLEETTUNE_TEST_NO_LONG_POLL=$POLL"
}
FLEET_ENV_FN=agent_env
echo "# starting $NODES agents (fake fio: $RUNTIME_S s a pass)"
t0=$(date +%s.%N)
fleet_start "$NODES" --fio "$FAKE" || exit 1
echo "# $NODES agents up in $(echo "$(date +%s.%N) - $t0" | bc) s"
cat >"$IT_TMP/plan.json" <<PLAN
{"name": "fleet $NODES", "strategy": "grid", "nodes": $(fleet_nodes_json "$NODES"),
 "baseline": {"nr_requests": 64},
 "axes": [{"param": "nr_requests", "values": [32, 128, 256]}],
 "job": {"fio": {"rw": "randwrite", "bs": "64k", "runtime_s": $RUNTIME_S, "time_based": true},
         "loops": $LOOPS},
 "metric": "write.bw_mib"}
PLAN

# The controller under a Python parent: its rusage (peak RSS, CPU) and the moment the table's
# first line reached stdout; nothing polls anything while it runs.
python3 - "$CTL_BIN" "$IT_TMP" "$POLL_MS" <<'PY' >"$IT_TMP/run.txt"
import resource, subprocess, sys, time
ctl, tmp, poll_ms = sys.argv[1:4]
t0 = time.time()
p = subprocess.Popen([ctl, "sweep", tmp + "/plan.json", "--db", tmp + "/ctl.db",
                      "--poll-ms", poll_ms],
                     stdout=subprocess.PIPE, stderr=open(tmp + "/sweep.err", "w"), text=True)
table_at = None
with open(tmp + "/sweep.out", "w") as out:
    for line in p.stdout:
        if table_at is None and line.startswith("sweep "):
            table_at = time.time()
        out.write(line)
rc = p.wait()
t1 = time.time()
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
print(rc, t0, t1, table_at or 0, ru.ru_maxrss, ru.ru_utime + ru.ru_stime)
PY
read -r rc t0 t1 table_at rss_kib cpu_s <"$IT_TMP/run.txt"
[ "$rc" = 0 ] || { tail -20 "$IT_TMP/sweep.err"; echo "sweep failed ($rc)" >&2; exit 1; }
cat "$IT_TMP/sweep.out"

# After the sweep: every agent's job GET count and its last job's end (no request during it).
python3 - "$NODES" "$IT_TMP" "$table_at" "$(printf '%s\n' "${FLEET_URL[@]}")" <<'PY' >"$IT_TMP/agents.txt"
import json, re, sys, urllib.request, datetime
n, tmp, table_at, urls = int(sys.argv[1]), sys.argv[2], float(sys.argv[3]), sys.argv[4].split()
pat = re.compile(r'^fleettune_http_requests_total\{method="GET",route="/api/v1/jobs/\{id\}",status="(\d+)"\} (\d+)$', re.M)
gets, jobs, last_end = [], [], 0.0
for i, url in enumerate(urls, 1):
    tok = open(f"{tmp}/a{i}-state/token").read().strip()
    h = {"Authorization": "Bearer " + tok}
    m = urllib.request.urlopen(urllib.request.Request(url + "/metrics", headers=h)).read().decode()
    gets.append(sum(int(c) for _, c in pat.findall(m)))
    js = json.load(urllib.request.urlopen(urllib.request.Request(url + "/api/v1/jobs?limit=100", headers=h)))["jobs"]
    jobs.append(len(js))
    for j in js:
        if j["finished_at"]:
            end = datetime.datetime.fromisoformat(j["finished_at"].replace("Z", "+00:00")).timestamp()
            last_end = max(last_end, end)
per_job = sorted(g / j for g, j in zip(gets, jobs) if j)
print(per_job[len(per_job) // 2], per_job[-1], sum(gets), sum(jobs), table_at - last_end)
PY
read -r gets_med gets_max gets_sum jobs_sum tail_s <"$IT_TMP/agents.txt"
points=4
nominal=$((points * LOOPS * RUNTIME_S))
wall=$(echo "$t1 - $t0" | bc)
grep -o 'sweep [0-9]* [a-z]*: wall.*' "$IT_TMP/sweep.err" | sed 's/^/# controller: /'
echo "RESULT fleet $NODES nodes, $points points x $LOOPS loops x $RUNTIME_S s ($([ "$POLL" = 1 ] && echo "polling every $POLL_MS ms" || echo long-poll)):"
echo "RESULT   wall $wall s (process start to exit), nominal job time $nominal s: overhead x$(echo "scale=4; $wall / $nominal" | bc)  (target <= 1.02)"
jobs_s=$(sed -n 's/.*; jobs \([0-9.]*\) s (POST.*/\1/p' "$IT_TMP/sweep.err")
echo "RESULT   wall / the jobs' own time (POST to last node done, summed; the agents' per-pass cost included): x$(echo "scale=4; $wall / $jobs_s" | bc)"
echo "RESULT   controller peak RSS $((rss_kib / 1024)) MiB, CPU $cpu_s s"
echo "RESULT   job GETs per job per agent: median $gets_med, max $gets_max ($gets_sum GETs for $jobs_sum jobs)  (target O(loops))"
echo "RESULT   last node finished -> table printed: $(printf '%.3f' "$tail_s") s"
fleet_stop
