#!/bin/bash
# it_ctl_preflight.sh -- pre-flight asks the agents: values only an agent can judge (iodepth
# 5000, max_sectors_kb above the device's max_hw_sectors_kb, a scheduler the kernel lacks)
# fail it with the agent's own message, every problem is listed, nothing changes anywhere.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/ctl_lib.sh"

ctl_two_nodes

# JSON field of stdin, with python3 (path as a Python expression on d).
jget() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }

# nothing_changed DESC: both devices as they were, and no session, job or write on any agent.
snapshot() {
	local d
	for d in "$A_DEV" "$B_DEV"; do
		printf '%s ' "$(it_sys "$d" scheduler)" "$(it_sys "$d" nr_requests)" \
			"$(it_sys "$d" max_sectors_kb)" "$(it_sys "$d" read_ahead_kb)"
	done
}
SNAP=$(snapshot)
nothing_changed() {
	local n url_var tok_var
	it_eq "$1: every device parameter unchanged" "$SNAP" "$(snapshot)"
	for n in node1 node2; do
		url_var=${n}_URL tok_var=${n}_TOKEN
		it_http GET "${!url_var}/api/v1/sessions" "${!tok_var}"
		it_eq "$1: $n: no session opened" 0 "$(jget 'len(d["sessions"])' <<<"$HTTP_BODY")"
		it_http GET "${!url_var}/api/v1/jobs" "${!tok_var}"
		it_eq "$1: $n: no job created" 0 "$(jget 'len(d["jobs"])' <<<"$HTTP_BODY")"
		it_http GET "${!url_var}/api/v1/changes" "${!tok_var}"
		it_eq "$1: $n: no parameter written" 0 "$(jget 'len(d["changes"])' <<<"$HTTP_BODY")"
	done
	it_check "$1: no sweep stored" bash -c "! '$CTL_BIN' history --db '$CTL_DB' 2>/dev/null | grep -q '^1 '"
}

# The agent's own message for a dry run of BODY (PATCH params, or POST a job).
agent_says() {
	local method=$1 path=$2 body=$3
	it_http "$method" "$node1_URL$path" "$node1_TOKEN" "$body"
	jget 'd["error"]["message"]' <<<"$HTTP_BODY"
}

# 1. iodepth 5000: the controller no longer has a copy of fio's limits; the agents refuse
# the job's dry run, and pre-flight prints their message for each node.
ctl_plan "$IT_TMP/iodepth.json" grid 2 1
sed -i 's/"iodepth": 8/"iodepth": 5000/' "$IT_TMP/iodepth.json"
ctl sweep "$IT_TMP/iodepth.json" >"$IT_TMP/out1.txt" 2>"$IT_TMP/err1.txt"
it_eq "iodepth 5000: sweep exits 1" 1 $?
cat "$IT_TMP/err1.txt"
body=$(python3 - "$IT_TMP/iodepth.json" "$A_DEV" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
print(json.dumps({"device": sys.argv[2], "engine": "fio", "fio": p["job"]["fio"],
                  "loops": p["job"]["loops"],
                  "labels": dict(p["labels"], sweep="0", sweep_point="0",
                                 sweep_config=" ".join("%s=%s" % kv for kv in p["baseline"].items()))}))
PY
)
msg=$(agent_says POST "/api/v1/jobs?dry_run=true" "$body")
it_check "iodepth 5000: the agent refuses it ($msg)" test -n "$msg"
it_check "iodepth 5000: node1's line carries the agent's own message" grep -qxF "node1: job: $msg" "$IT_TMP/err1.txt"
it_check "iodepth 5000: node2's line too" grep -qxF "node2: job: $msg" "$IT_TMP/err1.txt"
it_check "iodepth 5000: says nothing was changed" grep -q "^pre-flight failed, nothing was changed:$" "$IT_TMP/err1.txt"
it_eq "iodepth 5000: no table on stdout" "" "$(cat "$IT_TMP/out1.txt")"
nothing_changed "iodepth 5000"

# 2. max_sectors_kb above the device's max_hw_sectors_kb: a limit the agent derives from
# the kernel, which no plan or controller table could know.
hw=$(it_sys "$A_DEV" max_hw_sectors_kb)
cur=$(it_sys "$A_DEV" max_sectors_kb)
over=$((hw + 4))
ctl_plan "$IT_TMP/msk.json" sequential 2 1 "[{\"param\":\"max_sectors_kb\",\"values\":[$over]}]"
sed -i "s/\"nr_requests\": 128}/\"nr_requests\": 128, \"max_sectors_kb\": $cur}/" "$IT_TMP/msk.json"
ctl sweep "$IT_TMP/msk.json" >"$IT_TMP/out2.txt" 2>"$IT_TMP/err2.txt"
it_eq "max_sectors_kb $over > max_hw_sectors_kb $hw: sweep exits 1" 1 $?
cat "$IT_TMP/err2.txt"
msg=$(agent_says PATCH "/api/v1/devices/$A_DEV/params?dry_run=true" \
	"{\"params\":{\"scheduler\":\"mq-deadline\",\"nr_requests\":128,\"max_sectors_kb\":$over}}")
it_check "max_sectors_kb: the agent refuses it ($msg)" test -n "$msg"
it_check "max_sectors_kb: the line names node, configuration and the agent's message" \
	grep -qxF "node1: [scheduler=mq-deadline nr_requests=128 max_sectors_kb=$over] $msg" "$IT_TMP/err2.txt"
it_check "max_sectors_kb: node2 too" grep -q "^node2: \[scheduler=mq-deadline nr_requests=128 max_sectors_kb=$over\] " "$IT_TMP/err2.txt"
it_eq "max_sectors_kb: no table on stdout" "" "$(cat "$IT_TMP/out2.txt")"
nothing_changed "max_sectors_kb"

# 3. A scheduler the kernel does not offer, and a node pointed at a device it may not write:
# every problem listed, one line each.
ctl_plan "$IT_TMP/bad.json" grid 2 1 '[{"param":"scheduler","values":["mq-deadline","cfq"]}]'
sed -i "s/\"device\": \"$B_DEV\"/\"device\": \"$A_DEV\"/" "$IT_TMP/bad.json"
ctl sweep "$IT_TMP/bad.json" >"$IT_TMP/out.txt" 2>"$IT_TMP/err.txt"
it_eq "cfq: sweep exits 1" 1 $?
cat "$IT_TMP/err.txt"
msg=$(agent_says PATCH "/api/v1/devices/$A_DEV/params?dry_run=true" \
	'{"params":{"scheduler":"cfq","nr_requests":128}}')
it_check "cfq: names node, configuration and the agent's message ($msg)" \
	grep -qxF "node1: [scheduler=cfq nr_requests=128] $msg" "$IT_TMP/err.txt"
it_check "cfq: the agent's message lists the choices" grep -q "'cfq'.*(.*mq-deadline.*)" <<<"$msg"
it_check "names the non-writable device" \
	grep -q "^node2: device '$A_DEV' is not writable (start the agent with --allow-device $A_DEV)$" "$IT_TMP/err.txt"
it_eq "no table on stdout" "" "$(cat "$IT_TMP/out.txt")"
nothing_changed "cfq"

# 4. A metric the job cannot produce: a randread job has no write.* figures.
ctl_plan "$IT_TMP/metric.json" grid 2 1
sed -i 's/"rw": "randwrite"/"rw": "randread"/' "$IT_TMP/metric.json"
ctl sweep "$IT_TMP/metric.json" >/dev/null 2>"$IT_TMP/err4.txt"
it_eq "randread job, write metric: sweep exits 1" 1 $?
it_check "names the metric and what the job does report" \
	grep -q "^node1: metric 'write.bw_mib' is not reported by this job (it reports .*read.bw_mib" "$IT_TMP/err4.txt"
nothing_changed "metric"

# 5. A node that does not answer: pre-flight fails, the other node is untouched.
ctl_plan "$IT_TMP/down.json" grid 2 1
sed -i "s#$node2_URL#http://127.0.0.1:9#" "$IT_TMP/down.json"
ctl sweep "$IT_TMP/down.json" >/dev/null 2>"$IT_TMP/err5.txt"
it_eq "unreachable node: sweep exits 1" 1 $?
it_check "names the unreachable node" grep -q "^node2: not healthy: " "$IT_TMP/err5.txt"
nothing_changed "unreachable node"

# Plan errors carry the JSON path.
sed 's/"loops": 2/"loops": "2"/' "$IT_TMP/bad.json" >"$IT_TMP/typo.json"
ctl sweep "$IT_TMP/typo.json" 2>"$IT_TMP/err6.txt"
it_eq "bad plan exits 1" 1 $?
it_check "bad plan error names the path" grep -q "job.loops: expected an integer" "$IT_TMP/err6.txt"

# nodes shows health, version, device and parameters, and runs the same pre-flight.
ctl_plan "$IT_TMP/good.json" grid 2 1
ctl nodes "$IT_TMP/good.json" >"$IT_TMP/nodes.txt"
it_eq "nodes exits 0" 0 $?
cat "$IT_TMP/nodes.txt"
it_check "nodes shows health and version" grep -q "^node1  $node1_URL  ok  fleettune-agent " "$IT_TMP/nodes.txt"
it_check "nodes shows the device" grep -q "^  device $B_DEV: .*writable" "$IT_TMP/nodes.txt"
it_check "nodes shows parameters" grep -q "nr_requests=" "$IT_TMP/nodes.txt"
it_check "nodes: every configuration judged by the agents" grep -q "^every agent validated 4 configurations and the job (dry runs)$" "$IT_TMP/nodes.txt"
it_check "nodes reports pre-flight ok" grep -q "^pre-flight for this plan: ok$" "$IT_TMP/nodes.txt"
ctl nodes "$IT_TMP/iodepth.json" >"$IT_TMP/nodes2.txt"
it_eq "nodes of the iodepth plan exits 1" 1 $?
it_check "nodes reports the same problems" grep -q "^node1: job: .*iodepth" "$IT_TMP/nodes2.txt"
nothing_changed "nodes"
it_done
