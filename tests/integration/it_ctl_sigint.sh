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
it_check "no fio left on node1's device" it_wait_for "fio gone" 30 ctl_no_fio "$A_DEV"
it_check "no fio left on node2's device" it_wait_for "fio gone" 30 ctl_no_fio "$B_DEV"
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
it_check "SIGINT after finished runs: the log gives their overhead, not the wall's" \
	grep -Eq "sweep 1 interrupted: wall [0-9.]+ s; job span [0-9.]+ s over the [0-9]+ runs? that finished" "$IT_TMP/err.txt"

# 2. SIGINT while the first run of round 1 is under way on both nodes: its jobs are
# cancelled, not failed, and the table and the log say so; no overhead figure out of a zero
# job span. The round's order is seeded: the run is the baseline's (cancelled) or another
# point's (the baseline had not run yet).
running_on() { curl -s -H "Authorization: Bearer $2" "$1/api/v1/jobs" | grep -q '"state": *"running"'; }
ctl_plan "$IT_TMP/plan2.json" grid 3 3
ctl_sweep_bg "$IT_TMP/plan2.json"
pid=$CTL_PID
it_wait_for "the first run under way on both nodes" 60 bash -c \
	"$(declare -f running_on); running_on $node1_URL $node1_TOKEN && running_on $node2_URL $node2_TOKEN"
kill -INT "$pid"
wait "$pid"
it_eq "SIGINT during the first run: exit 130" 130 $?
cat "$IT_TMP/out.txt"
tail -3 "$IT_TMP/err.txt"
ctl_restored "SIGINT during the first run"
base=$("$CTL_BIN" show 2 --db "$CTL_DB" --format json | jq -r '[.points[0].nodes[].state] | unique | join(",")')
case $base in
cancelled)
	it_check "the baseline's run was cancelled: the best line says so, by the interruption" grep -q \
		"^no best: the baseline was cancelled on every node before it finished (the sweep was interrupted) (node1: cancelled; node2: cancelled)$" "$IT_TMP/out.txt" ;;
pending)
	it_check "another point ran first: the best line says the baseline's turn had not come" grep -q \
		"^no best: the sweep was interrupted before the baseline's turn in the first round (node1: pending; node2: pending)$" "$IT_TMP/out.txt" ;;
*) it_fail "the baseline's nodes are cancelled or pending, not '$base'" ;;
esac
it_check "never 'the baseline failed'" bash -c "! grep -q 'failed on every node' '$IT_TMP/out.txt' '$IT_TMP/err.txt'"
it_check "the log says no run finished, with no overhead figure" \
	grep -q "sweep 2 interrupted: wall [0-9.]* s; no run finished, so there is no job span to measure the controller's overhead against" "$IT_TMP/err.txt"
it_check "no 'overhead x0.000'" bash -c "! grep -q 'x0.000' '$IT_TMP/err.txt'"
it_done
