#!/bin/bash
# it_ctl_sigint.sh -- SIGINT mid-sweep cancels the jobs, restores both nodes and exits 130;
# SIGINT during the baseline says the baseline was cancelled (not failed), and the end log
# line gives no overhead figure out of a job span of zero.
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
it_check "no fio left on node1's device" it_wait_for "fio gone" 30 ctl_no_fio "$A_DEV"
it_check "no fio left on node2's device" it_wait_for "fio gone" 30 ctl_no_fio "$B_DEV"
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
it_check "SIGINT after finished runs: the log gives their overhead, not the wall's" \
	grep -q "sweep 1 interrupted: wall [0-9.]* s; job span [0-9.]* s over the 1 run that finished" "$IT_TMP/err.txt"

# 2. SIGINT while the baseline's first loop runs on both nodes: the jobs are cancelled, not
# failed, and the table and the log say so; no overhead figure out of a zero job span.
running_on() { curl -s -H "Authorization: Bearer $2" "$1/api/v1/jobs" | grep -q '"state": *"running"'; }
ctl_plan "$IT_TMP/plan2.json" grid 3 3
ctl_sweep_bg "$IT_TMP/plan2.json"
pid=$CTL_PID
it_wait_for "the baseline running on both nodes" 60 bash -c \
	"$(declare -f running_on); running_on $node1_URL $node1_TOKEN && running_on $node2_URL $node2_TOKEN"
kill -INT "$pid"
wait "$pid"
it_eq "SIGINT during the baseline: exit 130" 130 $?
cat "$IT_TMP/out.txt"
tail -3 "$IT_TMP/err.txt"
ctl_restored "SIGINT during the baseline"
it_check "the best line says the baseline was cancelled, by the interruption" grep -q \
	"^no best: the baseline was cancelled on every node before it finished (the sweep was interrupted) (node1: .*; node2: .*)$" "$IT_TMP/out.txt"
it_check "never 'the baseline failed'" bash -c "! grep -q 'failed on every node' '$IT_TMP/out.txt' '$IT_TMP/err.txt'"
it_check "the log says no run finished, with no overhead figure" \
	grep -q "sweep 2 interrupted: wall [0-9.]* s; no run finished, so there is no job span to measure the controller's overhead against" "$IT_TMP/err.txt"
it_check "no 'overhead x0.000'" bash -c "! grep -q 'x0.000' '$IT_TMP/err.txt'"
it_done
