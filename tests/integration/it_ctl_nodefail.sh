#!/bin/bash
# it_ctl_nodefail.sh -- an agent killed mid-sweep: exit 2, the other node restored, partial
# results kept; with --continue-on-node-failure the sweep goes on without it.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/ctl_lib.sh"

ctl_two_nodes
ctl_plan "$IT_TMP/plan.json" grid 2 1
"$CTL_BIN" sweep "$IT_TMP/plan.json" --db "$CTL_DB" --verbose >"$IT_TMP/out.txt" 2>"$IT_TMP/err.txt" &
pid=$!
it_wait_for "point 2 under way" 60 grep -q "^point 2/.*node2 pass 1/2" "$IT_TMP/err.txt"
kill -KILL "$node2_PID"
wait "$pid"
it_eq "controller exits 2" 2 $?
tail -4 "$IT_TMP/err.txt"
it_check "names the failed node" grep -q "node2 failed: .*aborting the sweep" "$IT_TMP/err.txt"
it_eq "node1 restored" "$A_ORIG" "$(it_sys "$A_DEV" scheduler) $(it_sys "$A_DEV" nr_requests)"
it_check "the partial table is printed" grep -q "^sweep 1 \"it grid\".*\[aborted\]" "$IT_TMP/out.txt"
"$CTL_BIN" show 1 --db "$CTL_DB" --format json >"$IT_TMP/show.json"
python3 - "$IT_TMP/show.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["status"] == "aborted", d["status"]
# The run under way when node2 died failed there (the others of its round were cancelled or
# had finished); every pass that finished before is kept, point 2's first one among them.
nodes = [(p, {n["node"]: n for n in p["nodes"]}) for p in d["points"]]
failed = [p for p, n in nodes if n["node2"]["state"] == "failed"]
assert len(failed) == 1 and {n["node"]: n for n in failed[0]["nodes"]}["node2"]["error"], failed
assert all(n["node1"]["state"] in ("ok", "cancelled", "pending") for p, n in nodes), nodes
assert len(nodes[1][1]["node2"]["passes"]) >= 1, nodes[1][1]["node2"]
assert all(x["round"] >= 1 for p, n in nodes for x in n["node1"]["passes"])
PY
it_eq "partial results saved" 0 $?
# The killed agent's session is restored when it comes back.
it_agent_start node2b --allow-device "$B_DEV" --state-dir "$node2_STATE" >/dev/null 2>&1 ||
	it_agent_start node2b --allow-device "$B_DEV"
it_wait_for "node2 restored by its agent" 15 test "$(it_sys "$B_DEV" scheduler) $(it_sys "$B_DEV" nr_requests)" = "$B_ORIG"
it_eq "node2 restored by its agent at restart" "$B_ORIG" "$(it_sys "$B_DEV" scheduler) $(it_sys "$B_DEV" nr_requests)"

# --continue-on-node-failure: node2 dies again, node1 finishes the sweep alone.
it_agent_start node3 --allow-device "$B_DEV" || exit 1
sed -i "s#$node2_URL#$node3_URL#; s#node2-state/token#node3-state/token#" "$IT_TMP/plan.json"
"$CTL_BIN" sweep "$IT_TMP/plan.json" --db "$CTL_DB" --verbose --continue-on-node-failure >"$IT_TMP/out2.txt" 2>"$IT_TMP/err2.txt" &
pid=$!
it_wait_for "point 2 under way" 60 grep -q "^point 2/.*node2 pass 1/2" "$IT_TMP/err2.txt"
kill -KILL "$node3_PID"
wait "$pid"
it_eq "continue: controller exits 2 (partial)" 2 $?
it_check "continue: node dropped" grep -q "node2 failed: .*dropping it and continuing" "$IT_TMP/err2.txt"
"$CTL_BIN" show 2 --db "$CTL_DB" --format json >"$IT_TMP/show2.json"
python3 - "$IT_TMP/show2.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["status"] == "completed", d["status"]
assert [n["dropped"] for n in d["nodes"]] == [False, True]
last = d["points"][-1]["nodes"]
assert last[0]["state"] == "ok" and last[1]["state"] == "dropped", last
assert len(d["points"]) == 4
PY
it_eq "continue: node1 ran every point" 0 $?
it_eq "continue: node1 restored" "$A_ORIG" "$(it_sys "$A_DEV" scheduler) $(it_sys "$A_DEV" nr_requests)"

# A node that hangs (SIGSTOP) instead of dying: the request timeouts catch it.
it_agent_start node4 --allow-device "$B_DEV" || exit 1
sed -i "s#$node3_URL#$node4_URL#; s#node3-state/token#node4-state/token#" "$IT_TMP/plan.json"
"$CTL_BIN" sweep "$IT_TMP/plan.json" --db "$CTL_DB" --verbose >"$IT_TMP/out3.txt" 2>"$IT_TMP/err3.txt" &
pid=$!
it_wait_for "point 2 under way" 60 grep -q "^point 2/.*node2 pass 1/2" "$IT_TMP/err3.txt"
t0=$(date +%s)
kill -STOP "$node4_PID"
wait "$pid"
rc=$?
kill -CONT "$node4_PID"
it_eq "hung node: controller exits 2" 2 "$rc"
it_check "hung node: detected within 60 s" test $(($(date +%s) - t0)) -lt 60
it_check "hung node: named as timed out" grep -q "node2 failed: .*Timeout" "$IT_TMP/err3.txt"
it_eq "hung node: node1 restored" "$A_ORIG" "$(it_sys "$A_DEV" scheduler) $(it_sys "$A_DEV" nr_requests)"
it_done
