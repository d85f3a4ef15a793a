#!/bin/bash
# it_ctl_preflight.sh -- a failing pre-flight names every problem and changes nothing.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/ctl_lib.sh"

ctl_two_nodes

# An axis value the kernel does not offer, and a node pointed at a device it may not write.
ctl_plan "$IT_TMP/bad.json" grid 2 1 '[{"param":"scheduler","values":["mq-deadline","cfq"]}]'
sed -i "s/\"device\": \"$B_DEV\"/\"device\": \"$A_DEV\"/" "$IT_TMP/bad.json"
ctl sweep "$IT_TMP/bad.json" >"$IT_TMP/out.txt" 2>"$IT_TMP/err.txt"
it_eq "sweep exits 1" 1 $?
cat "$IT_TMP/err.txt"
it_check "names the unavailable scheduler with the choices" \
	grep -Eq "^node1: scheduler 'cfq' not available \((none|mq-deadline|kyber|bfq)(, (none|mq-deadline|kyber|bfq))+\)$" "$IT_TMP/err.txt"
it_check "names the non-writable device" \
	grep -q "^node2: device '$A_DEV' is not writable (start the agent with --allow-device $A_DEV)$" "$IT_TMP/err.txt"
it_check "says nothing was changed" grep -q "pre-flight failed, nothing was changed" "$IT_TMP/err.txt"
it_eq "no table on stdout" "" "$(cat "$IT_TMP/out.txt")"
ctl_restored "pre-flight"
for n in node1 node2; do
	url_var=${n}_URL tok_var=${n}_TOKEN
	it_http GET "${!url_var}/api/v1/sessions" "${!tok_var}"
	it_eq "$n: no session opened" 0 "$(python3 -c 'import json,sys; print(len(json.load(sys.stdin)["sessions"]))' <<<"$HTTP_BODY")"
	it_http GET "${!url_var}/api/v1/jobs" "${!tok_var}"
	it_eq "$n: no job created" 0 "$(python3 -c 'import json,sys; print(len(json.load(sys.stdin)["jobs"]))' <<<"$HTTP_BODY")"
	it_http GET "${!url_var}/api/v1/changes" "${!tok_var}"
	it_eq "$n: no parameter written" 0 "$(python3 -c 'import json,sys; print(len(json.load(sys.stdin)["changes"]))' <<<"$HTTP_BODY")"
done
it_check "no sweep stored" bash -c "! '$CTL_BIN' history --db '$CTL_DB' | grep -q '^1 '"

# A node that does not answer: pre-flight fails, the other node is untouched.
ctl_plan "$IT_TMP/down.json" grid 2 1
sed -i "s#$node2_URL#http://127.0.0.1:9#" "$IT_TMP/down.json"
ctl sweep "$IT_TMP/down.json" >/dev/null 2>"$IT_TMP/err2.txt"
it_eq "unreachable node: sweep exits 1" 1 $?
it_check "names the unreachable node" grep -q "^node2: not healthy: " "$IT_TMP/err2.txt"
ctl_restored "unreachable node"

# Plan errors carry the JSON path.
sed 's/"loops": 2/"loops": "2"/' "$IT_TMP/bad.json" >"$IT_TMP/typo.json"
ctl sweep "$IT_TMP/typo.json" 2>"$IT_TMP/err3.txt"
it_eq "bad plan exits 1" 1 $?
it_check "bad plan error names the path" grep -q "job.loops: expected an integer" "$IT_TMP/err3.txt"

# nodes shows health, version, device and parameters, and the pre-flight verdict.
ctl_plan "$IT_TMP/good.json" grid 2 1
ctl nodes "$IT_TMP/good.json" >"$IT_TMP/nodes.txt"
it_eq "nodes exits 0" 0 $?
cat "$IT_TMP/nodes.txt"
it_check "nodes shows health and version" grep -q "^node1  $node1_URL  ok  fleettune-agent " "$IT_TMP/nodes.txt"
it_check "nodes shows the device" grep -q "^  device $B_DEV: .*writable" "$IT_TMP/nodes.txt"
it_check "nodes shows parameters" grep -q "nr_requests=" "$IT_TMP/nodes.txt"
it_check "nodes reports pre-flight ok" grep -q "^pre-flight for this plan: ok$" "$IT_TMP/nodes.txt"
it_done
