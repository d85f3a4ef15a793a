#!/bin/bash
# fleet.sh -- a sweep over NODES light agents (default 256) whose --fio is bench/fakefio in fixed mode
# (each pass takes exactly RUNTIME_S, bandwidth with seeded noise): a 3-value axis (baseline + 3
# points), LOOPS loops. Reports the controller's overhead, its peak RSS and CPU seconds, the job
# GETs each agent served per job (from the agents' /metrics: O(loops) with long-poll, not
# O(runtime / poll interval)), and the time from the last node finishing to the table printed.
# POLL=1 hides the agents' long_poll feature (FLEETTUNE_TEST_NO_LONG_POLL=1), so the controller
# polls every --poll-ms as before.
#
# The overhead, against four measures of "job time" (from the controller's --verbose "phases"
# lines and the agents' job records, same clock):
#   nominal  points x loops x RUNTIME_S: what the fake fio sleeps, nothing else.
#   span     per run (a point's loop of a round: one job per agent), the first job's start
#            to the last job's end on the agents, summed:
#            what a perfect controller cannot shorten (the agents' own per-pass cost and the
#            spread of job starts across nodes are in it; so is the job's applying its params,
#            which a job that carries them does before its first pass).
#   passes   per run, the first pass's start to the last pass's end (the benchmark alone: no
#            params applied, no job record written), summed.
#   POST     per run, the controller's first request (job POST, or PATCH for an agent without
#            job_applied) to its seeing the last job end, summed.
# wall is the controller's process start to exit (pre-flight, sessions, table and restore in).
# Per run it prints the phases: the job POSTs (and PATCHes) answered, the spread of job starts
# and ends, the lag to the controller noticing the last end, the point saved, and the gap to
# the next run.
#
# usage: bench/fleet.sh [BUILD_DIR]   (env: NODES=256 LOOPS=3 RUNTIME_S=5 POLL=0 POLL_MS=50;
# CTL=path runs another fleettune-ctl, e.g. an older build for an A/B comparison: without
# --verbose it prints no phases, and the job span comes from the agents' job records alone)
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
FAKE=$BUILD/bench/fakefio
[ -x "$AGENT_BIN" ] && [ -x "$CTL_BIN" ] && [ -x "$FAKE" ] ||
	{ echo "build first: $AGENT_BIN, $CTL_BIN, $FAKE" >&2; exit 1; }

# Agent I's environment: its own noise seed and run counter; the feature hidden with POLL=1.
agent_env() {
	echo "FAKEFIO_MODE=fixed FAKEFIO_SEED=$1 FAKEFIO_COUNT=$IT_TMP/a$1-state/fakefio.count" \
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
CTL=${CTL:-$CTL_BIN}
verbose=()
"$CTL" help sweep 2>&1 | grep -q -- --verbose && verbose=(--verbose)
python3 - "$CTL" "$IT_TMP" "$POLL_MS" "${verbose[@]}" <<'PY' >"$IT_TMP/run.txt"
import resource, subprocess, sys, time
ctl, tmp, poll_ms = sys.argv[1:4]
t0 = time.time()
p = subprocess.Popen([ctl, "sweep", tmp + "/plan.json", "--db", tmp + "/ctl.db",
                      "--poll-ms", poll_ms] + sys.argv[4:],
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
# Per run of a point (a point runs once per round: its k-th job on every agent is one run),
# from the agents' job records.
first_start, point_end, pass_start, pass_end = {}, {}, {}, {}
iso = lambda t: datetime.datetime.fromisoformat(t.replace("Z", "+00:00")).timestamp()
for i, url in enumerate(urls, 1):
    tok = open(f"{tmp}/a{i}-state/token").read().strip()
    h = {"Authorization": "Bearer " + tok}
    m = urllib.request.urlopen(urllib.request.Request(url + "/metrics", headers=h)).read().decode()
    gets.append(sum(int(c) for _, c in pat.findall(m)))
    js = json.load(urllib.request.urlopen(urllib.request.Request(
        url + "/api/v1/jobs?limit=100&fields=state,labels,started_at,finished_at,passes",
        headers=h)))["jobs"]
    jobs.append(len(js))
    seen = {}
    for j in sorted(js, key=lambda j: j["id"]):
        pt = (j.get("labels") or {}).get("sweep_point", "?")
        run = (pt, seen.get(pt, 0))
        seen[pt] = run[1] + 1
        if j["finished_at"]:
            end = iso(j["finished_at"])
            last_end = max(last_end, end)
            point_end[run] = max(point_end.get(run, 0), end)
            if j["started_at"]:
                first_start[run] = min(first_start.get(run, end), iso(j["started_at"]))
        # The benchmark itself: the passes' own start and end (after the job applied its
        # params and started the engine).
        for ps in j.get("passes") or []:
            if ps.get("started_at") and ps.get("finished_at"):
                pass_start[run] = min(pass_start.get(run, 1e18), iso(ps["started_at"]))
                pass_end[run] = max(pass_end.get(run, 0), iso(ps["finished_at"]))
per_job = sorted(g / j for g, j in zip(gets, jobs) if j)
span = sum(point_end[p] - first_start[p] for p in point_end if p in first_start)
pspan = sum(pass_end[p] - pass_start[p] for p in pass_end if p in pass_start)
print(per_job[len(per_job) // 2], per_job[-1], sum(gets), sum(jobs), table_at - last_end, span,
      pspan)
PY
read -r gets_med gets_max gets_sum jobs_sum tail_s agents_span pass_span <"$IT_TMP/agents.txt"
points=4
nominal=$((points * LOOPS * RUNTIME_S))
grep -o 'sweep [0-9]* [a-z]*: wall.*' "$IT_TMP/sweep.err" | sed 's/^/# controller: /'
grep -o 'sweep [0-9]*: first request.*' "$IT_TMP/sweep.err" | sed 's/^/# controller: /'
echo "RESULT fleet $NODES nodes, $points points x $LOOPS loops x $RUNTIME_S s ($([ "$POLL" = 1 ] && echo "polling every $POLL_MS ms" || echo long-poll)):"
# The phases of each point, and the overhead against each measure of job time.
python3 - "$IT_TMP/sweep.err" "$t0" "$t1" "$nominal" "$agents_span" "$pass_span" <<'PY'
import re, sys
err, t0, t1, nominal = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
agents_span, pass_span = float(sys.argv[5]), float(sys.argv[6])
pts = [dict((k, float(v)) for k, v in re.findall(r"(\w+)=([0-9.]+)", l))
       for l in open(err) if " phases point=" in l]
if pts:
    print("RESULT   per run (s): job POSTs (+PATCHes) | job starts spread | span | last end -> seen | "
          "seen -> saved | saved -> next run")
for i, p in enumerate(pts):
    nxt = pts[i + 1]["start"] if i + 1 < len(pts) else t1
    print("RESULT     run of point %d: %.3f | %.3f | %.3f | %.3f | %.3f | %.3f%s" % (
        p["point"], p["posted"] - p["start"], p["last_start"] - p["first_start"],
        p["last_end"] - p["first_start"], p["seen_done"] - p["last_end"],
        p["saved"] - p["seen_done"], nxt - p["saved"], " (to exit)" if i + 1 == len(pts) else ""))
wall = t1 - t0
print("RESULT   wall %.2f s (process start to exit)" % wall)
print("RESULT   wall / nominal job time (%.0f s):  x%.4f" % (nominal, wall / nominal))
print("RESULT   wall / job span (%.2f s, the agents' job records): x%.4f  (target <= 1.03 at 1 024 nodes)" %
      (agents_span, wall / agents_span))
print("RESULT   wall / pass span (%.2f s, the passes' own start to end per run, summed): x%.4f" %
      (pass_span, wall / pass_span))
if pts:
    post = sum(p["seen_done"] - p["start"] for p in pts)
    print("RESULT   before the first point (start, pre-flight, sessions): %.3f s" %
          (pts[0]["start"] - t0))
    print("RESULT   wall / first-request-to-last-seen (%.2f s): x%.4f" % (post, wall / post))
PY
echo "RESULT   controller peak RSS $((rss_kib / 1024)) MiB, CPU $cpu_s s"
echo "RESULT   job GETs per job per agent: median $gets_med, max $gets_max ($gets_sum GETs for $jobs_sum jobs)  (target O(loops))"
echo "RESULT   last node finished -> table printed: $(printf '%.3f' "$tail_s") s"
fleet_stop
