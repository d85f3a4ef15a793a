#!/bin/bash
# it_ctl_start_at.sh -- a sweep's nodes start each run together by the clock, and the controller
# is answered once per job: three agents on temp --sysfs-root trees whose --fio is bench/fakefio
# (fixed mode: a pass takes exactly its runtime), no root. An agent holds a job with a
# "start_at" until the moment and says how long it held; one whose moment has passed begins at
# once and says how late; pre-flight refuses a node whose clock is off by more than the margin
# (FLEETTUNE_TEST_CLOCK_OFFSET_S moves the clock health reports) and keeps one slightly off;
# in the sweep every job carries start_at, every run's first passes begin within a spread far
# below the POSTs' fan-out, and each one-loop job was answered at most twice (the agents'
# /metrics), with the run after each posted while the one before it ran.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/../../bench/fleet_lib.sh"

[ -x "$CTL_BIN" ] || it_skip "controller not built at $CTL_BIN"
FAKE=$FT_BUILD_DIR/bench/fakefio
[ -x "$FAKE" ] || it_skip "bench/fakefio not built at $FAKE"
export FAKEFIO_MODE=fixed
for i in 1 2 3; do
	fleet_fake_device "$IT_TMP/root$i"
done
start() { # NAME I [agent args]
	local name=$1 i=$2
	shift 2
	FAKEFIO_SEED=$i FAKEFIO_COUNT="$IT_TMP/count$i" it_agent_start "$name" \
		--sysfs-root "$IT_TMP/root$i" --allow-device sdb --fio "$FAKE" "$@"
}
start n1 1 || exit 1
start n2 2 || exit 1
FLEETTUNE_TEST_CLOCK_OFFSET_S=0.05 start n3 3 || exit 1
CTL_DB=$IT_TMP/ctl.db

it_http GET "$n1_URL/api/v1/health" ""
it_check "health lists start_at and until_end and the agent's clock" \
	jq -e '(.features | index("start_at")) and (.features | index("until_end")) and (.time_s > 1e9)' <<<"$HTTP_BODY"

# ---- one agent: held to the moment, or late when the moment has passed
at() { date -u -d "@$1" +%Y-%m-%dT%H:%M:%S.%3NZ; }
body() { # START_AT
	echo "{\"device\":\"sdb\",\"engine\":\"fio\",\"fio\":{\"rw\":\"write\",\"runtime_s\":1,\"time_based\":true},\"start_at\":\"$1\"}"
}
moment=$(echo "$(date +%s.%N) + 2" | bc)
it_http POST "$n1_URL/api/v1/jobs" "$n1_TOKEN" "$(body "$(at "$moment")")"
it_eq "a job 2 s ahead is queued" 202 "$HTTP_STATUS"
id=$(jq .id <<<"$HTTP_BODY")
sleep 0.8
it_http GET "$n1_URL/api/v1/jobs/$id?fields=state,begun_at,passes" "$n1_TOKEN"
it_check "0.8 s later it is running (made ready) and has not begun" \
	jq -e '.state == "running" and .begun_at == null and (.passes | length) == 0' <<<"$HTTP_BODY"
it_http GET "$n1_URL/api/v1/jobs/$id?wait_s=10&until=end" "$n1_TOKEN"
it_check "until=end answers at its end" jq -e '.state == "succeeded"' <<<"$HTTP_BODY"
late=$(jq .start_late_s <<<"$HTTP_BODY")
held=$(jq .held_s <<<"$HTTP_BODY")
it_log "held ${held} s, began ${late} s after its start_at"
it_check "it held until the moment (held ${held} s of about 2)" \
	python3 -c "import sys; sys.exit(not 1.0 < $held < 2.1)"
it_check "and began within 50 ms of it (${late} s)" python3 -c "import sys; sys.exit(not 0 <= $late < 0.05)"
it_check "its first pass began at or after the moment" python3 -c "
import datetime, json, sys
j = json.loads(sys.argv[1])
t = datetime.datetime.fromisoformat(j['passes'][0]['started_at'].replace('Z', '+00:00')).timestamp()
sys.exit(not t >= $moment - 0.001)" "$HTTP_BODY"
it_http POST "$n1_URL/api/v1/jobs" "$n1_TOKEN" "$(body "$(at "$(echo "$(date +%s.%N) - 5" | bc)")")"
id=$(jq .id <<<"$HTTP_BODY")
it_http GET "$n1_URL/api/v1/jobs/$id?wait_s=10&until=end" "$n1_TOKEN"
late=$(jq .start_late_s <<<"$HTTP_BODY")
it_check "a job whose moment passed 5 s ago begins at once and says it is ${late} s late" \
	python3 -c "import sys; sys.exit(not (5 <= $late < 6.5 and $(jq .held_s <<<"$HTTP_BODY") == 0))"
it_check "its log says so" grep -q "job $id: its start_at .* had passed when it was ready: began at once" "$n1_LOG"

# ---- pre-flight: a clock 0.5 s off is refused, one 0.05 s off is kept
FLEETTUNE_TEST_CLOCK_OFFSET_S=-0.5 start bad 3 || exit 1
plan() { # FILE NODES...
	local f=$1 n sep="" i=0
	shift
	{
		echo '{"name":"start_at","strategy":"grid","nodes":['
		for n in "$@"; do
			i=$((i + 1))
			local url=${n}_URL
			echo "$sep{\"name\":\"$n\",\"url\":\"${!url}\",\"device\":\"sdb\",\"token_file\":\"$n-state/token\"}"
			sep=,
		done
		echo '],"baseline":{"nr_requests":64},"axes":[{"param":"nr_requests","values":[32,128]}],'
		echo '"job":{"fio":{"rw":"write","bs":"64k","runtime_s":1,"time_based":true},"loops":3},"metric":"write.bw_mib"}'
	} >"$f"
}
plan "$IT_TMP/bad.json" n1 bad
"$CTL_BIN" sweep "$IT_TMP/bad.json" --db "$CTL_DB" >"$IT_TMP/bad.out" 2>"$IT_TMP/bad.err"
it_eq "a node whose clock is 0.5 s behind fails pre-flight" 1 $?
grep 'clock' "$IT_TMP/bad.err" | sed 's/^/# /'
# 0.5 s as measured: to the round trip's uncertainty either side (0.499 in one suite run).
it_check "the refusal names the node and its clock" \
	grep -Eq "bad: clock: the agent's clock is 0\.(49[0-9]|5[0-9]*) s behind the controller's" "$IT_TMP/bad.err"
it_check "and n1 is not refused" bash -c "! grep -q '^n1: ' '$IT_TMP/bad.err'"

# ---- the sweep: 3 points x 3 loops in interleaved rounds, 9 one-loop jobs per node
plan "$IT_TMP/ok.json" n1 n2 n3
"$CTL_BIN" sweep "$IT_TMP/ok.json" --db "$CTL_DB" --verbose >"$IT_TMP/ok.out" 2>"$IT_TMP/ok.err"
it_eq "the sweep over n1, n2 and n3 (its clock 50 ms ahead) exits 0" 0 $?
grep -E 'pre-flight: the clocks|started by the clock' "$IT_TMP/ok.err" | sed 's/^.*info: /# /'
it_check "pre-flight says how close the clocks are" \
	grep -q 'pre-flight: the clocks of 3 nodes agree with the controller.s within' "$IT_TMP/ok.err"
it_check "the sweep says what spread its runs got" \
	grep -q 'runs started by the clock: pass starts within' "$IT_TMP/ok.err"
it_check "runs after the first of a batch were posted ahead" grep -q 'phases .* ahead=1 ' "$IT_TMP/ok.err"
# From the agents' records: per run (its k-th job on every node), the first passes' spread.
python3 - "$IT_TMP" n1="$n1_URL" n2="$n2_URL" n3="$n3_URL" <<'PY' >"$IT_TMP/runs.txt"
import datetime, json, sys, urllib.request
tmp = sys.argv[1]
iso = lambda t: datetime.datetime.fromisoformat(t.replace("Z", "+00:00")).timestamp()
runs = {}
for arg in sys.argv[2:]:
    name, url = arg.split("=", 1)
    tok = open(f"{tmp}/{name}-state/token").read().strip()
    req = urllib.request.Request(url + "/api/v1/jobs?limit=100&fields=labels,start_at,begun_at,held_s,start_late_s",
                                 headers={"Authorization": "Bearer " + tok})
    jobs = [j for j in json.load(urllib.request.urlopen(req))["jobs"] if j["labels"].get("sweep")]
    for k, j in enumerate(sorted(jobs, key=lambda j: j["id"])):
        runs.setdefault(k, []).append(j)
for k in sorted(runs):
    js = runs[k]
    with_at = sum(1 for j in js if j["start_at"])
    # Each node's start against its own start_at (to the microsecond: begun_at is to the
    # millisecond).
    begun = [j["start_late_s"] for j in js if j["start_at"] and j["start_late_s"] is not None]
    print(k, len(js), with_at, "%.6f" % (max(begun) - min(begun) if begun else -1),
          "%.6f" % max(j["start_late_s"] or 0 for j in js))
PY
cat "$IT_TMP/runs.txt" | sed 's/^/# run jobs with_start_at spread_s late_max_s: /'
it_eq "9 runs of 3 jobs, every job with its start_at" "9" \
	"$(awk '$2 == 3 && $3 == 3' "$IT_TMP/runs.txt" | wc -l)"
# The median run tight; every run within a second: on a loaded machine (the suite runs tests side
# by side) one node's engine can start a few hundred ms late (two such runs of 9, 172 and 320 ms,
# at -j4 and -j6).
it_check "every run's passes began by each node's clock (no run without its figures)" \
	awk '$4 < 0 { exit 1 }' "$IT_TMP/runs.txt"
it_check "the median run's passes began within 50 ms of each other, by each node's clock" \
	test "$(sort -k4,4g "$IT_TMP/runs.txt" | awk '{ v[NR] = $4 } END { print (v[int((NR + 1) / 2)] <= 0.05) }')" = 1
it_check "every run's passes began within 1 s of each other" awk '$4 > 1 { exit 1 }' "$IT_TMP/runs.txt"

# job_gets URL TOKEN: GET /api/v1/jobs/{id} answered 200 by the agent.
job_gets() {
	curl -s -H "Authorization: Bearer $2" "$1/metrics" |
		sed -n 's/^fleettune_http_requests_total{method="GET",route="\/api\/v1\/jobs\/{id}",status="200"} \([0-9]*\)$/\1/p'
}
g=$(job_gets "$n2_URL" "$n2_TOKEN")
it_check "n2 answered at most 2 job GETs per one-loop job (${g:-0} for 9 jobs)" \
	[ "${g:-0}" -ge 9 -a "${g:-0}" -le 18 ]
it_done
