#!/bin/bash
# it_ctl_sigint.sh -- SIGINT mid-sweep cancels the jobs, restores both nodes and exits 130.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/ctl_lib.sh"

ctl_two_nodes
ctl_plan "$IT_TMP/plan.json" grid 3 2
ctl_sweep_bg "$IT_TMP/plan.json"
pid=$CTL_PID
# Interrupt in the middle of point 2, once its first pass is in.
it_wait_for "a pass of point 2 on both nodes" 60 ctl_both_passed 2 3
it_check "node1 runs point 2's scheduler during the sweep" test "$(it_sys "$A_DEV" scheduler)" = mq-deadline
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
assert all(n["state"] == "ok" for n in d["points"][0]["nodes"])
p2 = d["points"][1]["nodes"]
assert all(n["state"] == "cancelled" for n in p2), p2
assert all(len(n["passes"]) >= 1 for n in p2), "passes finished before the signal are kept"
PY
it_eq "interrupted sweep saved with the cancelled point" 0 $?
job=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["points"][1]["nodes"][0]["job_id"])' "$IT_TMP/show.json")
it_wait_for "job cancelled" 10 bash -c "curl -s -H 'Authorization: Bearer $node1_TOKEN' $node1_URL/api/v1/jobs/$job | grep -q '\"state\": *\"cancelled\"'"
it_http GET "$node1_URL/api/v1/jobs/$job" "$node1_TOKEN"
it_check "the agent's job is cancelled" grep -q '"state": *"cancelled"' <<<"$HTTP_BODY"
it_http GET "$node1_URL/api/v1/sessions" "$node1_TOKEN"
it_check "the session is closed with restore" bash -c "! grep -q '\"state\": *\"open\"' <<<'$HTTP_BODY'"
it_done
