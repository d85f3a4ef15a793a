#!/bin/bash
# it_ctl_longpoll.sh -- the controller waits for jobs by long-poll where the agent has the
# "long_poll" feature and falls back to --poll-ms polling where it does not: one sweep over a
# mixed pair (node2 started with FLEETTUNE_TEST_NO_LONG_POLL=1, which hides the feature and
# refuses wait_s/after as an older agent would). Counted from the agents' /metrics: node1
# served a bounded number of job GETs per job, node2 about one per poll interval, and
# neither refused one.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/ctl_lib.sh"

it_need_root_sysfs
it_need_built "$CTL_BIN"
command -v fio >/dev/null || it_skip "fio not installed"
A_DEV=$(it_loop_create 96M) || it_skip "cannot create loop device"
B_DEV=$(it_loop_create 96M) || it_skip "cannot create loop device"
it_agent_start node1 --allow-device "$A_DEV" || exit 1
FLEETTUNE_TEST_NO_LONG_POLL=1 it_agent_start node2 --allow-device "$B_DEV" || exit 1
CTL_DB="$IT_TMP/ctl.db"

it_http GET "$node1_URL/api/v1/health" ""
it_check "node1 lists long_poll" grep -q '"long_poll"' <<<"$HTTP_BODY"
it_http GET "$node2_URL/api/v1/health" ""
it_check "node2 (feature hidden) does not" bash -c "! grep -q long_poll <<<'$HTTP_BODY'"
it_http GET "$node2_URL/api/v1/jobs/1?wait_s=1&after=1" "$node2_TOKEN"
it_eq "node2 refuses wait_s as an older agent would" 400 "$HTTP_STATUS"

# Baseline + 1 point, 2 loops of 2 s each, in 2 interleaved rounds: 4 one-loop jobs per node.
ctl_plan "$IT_TMP/lp.json" grid 2 2 '[{"param":"nr_requests","values":[64]}]'
ctl sweep "$IT_TMP/lp.json" --poll-ms 100 --verbose >"$IT_TMP/lp.txt" 2>"$IT_TMP/lp.err"
it_eq "the sweep over a long-poll and a polled agent exits 0" 0 $?
cat "$IT_TMP/lp.txt"
it_check "the progress lines name every pass" grep -q 'node2 pass 2/2 (round 2) write.bw_mib' "$IT_TMP/lp.err"
it_eq "table has 2 point rows" 2 "$(grep -c '^| \(64\|128\) ' "$IT_TMP/lp.txt")"
ctl show 1 --format json | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["status"] == "completed", d["status"]
for p in d["points"]:
    for n in p["nodes"]:
        assert n["state"] == "ok" and len(n["passes"]) == 2, n'
it_eq "every node has its 2 passes at every point" 0 $?

# job_gets URL TOKEN STATUS: GET /api/v1/jobs/{id} requests the agent answered with STATUS.
job_gets() {
	curl -s -H "Authorization: Bearer $2" "$1/metrics" |
		sed -n "s/^fleettune_http_requests_total{method=\"GET\",route=\"\/api\/v1\/jobs\/{id}\",status=\"$3\"} \([0-9]*\)$/\1/p"
}
lp=$(job_gets "$node1_URL" "$node1_TOKEN" 200)
polled=$(job_gets "$node2_URL" "$node2_TOKEN" 200)
it_log "job GETs answered: node1 (long-poll) ${lp:-0}, node2 (polled every 100 ms) ${polled:-0}"
# Per job at most: queued/running, 10 progress steps, its pass, the end, and a spare.
it_check "node1 was long-polled: at most 15 job GETs per job (${lp:-0} for 4 jobs)" \
	[ "${lp:-0}" -ge 4 -a "${lp:-0}" -le 60 ]
it_check "node2 was polled: more than one job GET per 200 ms of its 8 s of jobs (${polled:-0})" \
	[ "${polled:-0}" -gt 40 ]
it_eq "node1 refused no job GET" "" "$(job_gets "$node1_URL" "$node1_TOKEN" 400)"
it_eq "node2 refused only this test's own wait_s (the controller never sent one)" 1 \
	"$(job_gets "$node2_URL" "$node2_TOKEN" 400)"
it_done
