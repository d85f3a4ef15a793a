#!/bin/bash
# it_ctl_sigint.sh -- SIGINT mid-sweep cancels the jobs, restores both nodes and exits 130.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/ctl_lib.sh"

ctl_two_nodes
ctl_plan "$IT_TMP/plan.json" grid 3 2
ctl_sweep_bg "$IT_TMP/plan.json"
pid=$CTL_PID
# Interrupt in the middle of a round, once point 2's first pass is in (the points of a round
# run in turn, each one 2 s loop: the signal lands in one of them).
it_wait_for "a pass of point 2 on both nodes" 60 ctl_both_passed 2 3
it_check "node1 runs one of the sweep's configurations" \
	grep -Eqx 'mq-deadline (64|128)|none (64|128)' <<<"$(it_sys "$A_DEV" scheduler) $(it_sys "$A_DEV" nr_requests)"
kill -INT "$pid"
wait "$pid"
it_eq "controller exits 130" 130 $?
cat "$IT_TMP/err.txt" | tail -3
ctl_restored "SIGINT"
it_check "no fio left on node1's device" it_wait_for "fio gone" 10 ctl_no_fio "$A_DEV"
it_check "no fio left on node2's device" it_wait_for "fio gone" 10 ctl_no_fio "$B_DEV"
"$CTL_BIN" show 1 --db "$CTL_DB" --format json >"$IT_TMP/show.json"
python3 - "$IT_TMP/show.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["status"] == "interrupted", d["status"]
# The run under way (one loop of one point, in rounds) is cancelled on every node; the rest
# keep what they ran, point 2's first pass among it.
cancelled = [p for p in d["points"] if all(n["state"] == "cancelled" for n in p["nodes"])]
assert len(cancelled) == 1, [[n["state"] for n in p["nodes"]] for p in d["points"]]
assert all(n["state"] in ("ok", "pending") for p in d["points"] if p not in cancelled
           for n in p["nodes"]), d["points"]
assert all(len(n["passes"]) >= 1 for n in d["points"][1]["nodes"]), \
    "passes finished before the signal are kept"
open(sys.argv[1] + ".job", "w").write(str(cancelled[0]["nodes"][0]["job_id"]))
PY
it_eq "interrupted sweep saved with the cancelled point" 0 $?
job=$(cat "$IT_TMP/show.json.job")
it_wait_for "job cancelled" 10 bash -c "curl -s -H 'Authorization: Bearer $node1_TOKEN' $node1_URL/api/v1/jobs/$job | grep -q '\"state\": *\"cancelled\"'"
it_http GET "$node1_URL/api/v1/jobs/$job" "$node1_TOKEN"
it_check "the agent's job is cancelled" grep -q '"state": *"cancelled"' <<<"$HTTP_BODY"
it_http GET "$node1_URL/api/v1/sessions" "$node1_TOKEN"
it_check "the session is closed with restore" bash -c "! grep -q '\"state\": *\"open\"' <<<'$HTTP_BODY'"
it_done
