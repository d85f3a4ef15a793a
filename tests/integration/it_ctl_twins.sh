#!/bin/bash
# it_ctl_twins.sh -- issue 28: the nodes must be twins in what the plan does not set. Two agents
# on fake sysfs trees (no root), bench/fakefio; n2 arrives with rq_affinity 2 and
# iosched/fifo_batch 32 (n1: 1 and 16) while the plan sweeps nr_requests: `nodes` names the
# differences and their fix and exits 1; the sweep is refused at pre-flight (exit 1, nothing
# stored, nothing changed); with the fix it suggests (both in the baseline) it runs, as it does
# with "allow_differences" or --allow-differences.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/ctl_lib.sh"

ctl_fake_nodes 'base 1000
cv 0.02'
echo 2 >"$FAKE_ROOT2/sys/block/sdb/queue/rq_affinity"
echo 32 >"$FAKE_ROOT2/sys/block/sdb/queue/iosched/fifo_batch"
axes='[{"param": "nr_requests", "values": [128, 256]}]'
ctl_fake_plan "$IT_TMP/plan.json" grid "$axes"

ctl nodes "$IT_TMP/plan.json" >"$IT_TMP/nodes.txt" 2>&1
it_eq "nodes exits 1 when the nodes are not twins" 1 $?
cat "$IT_TMP/nodes.txt"
it_check "nodes names each difference with the reference node" grep -q "^n2: iosched.fifo_batch 32, n1: 16; rq_affinity 2, n1: 1$" "$IT_TMP/nodes.txt"
it_check "and the fix" grep -q '"baseline": {..., "iosched.fifo_batch": 16, "rq_affinity": 1}' "$IT_TMP/nodes.txt"

ctl sweep "$IT_TMP/plan.json" >"$IT_TMP/sweep.txt" 2>"$IT_TMP/sweep.err"
it_eq "the sweep is refused (exit 1)" 1 $?
it_check "at pre-flight, nothing changed" grep -q "^pre-flight failed, nothing was changed:" "$IT_TMP/sweep.err"
it_check "naming the difference" grep -q "^n2: iosched.fifo_batch 32, n1: 16; rq_affinity 2, n1: 1$" "$IT_TMP/sweep.err"
it_check "no sweep was stored" bash -c "[ -z \"\$('$CTL_BIN' history --db '$CTL_DB' | sed 1d)\" ]"
it_eq "n1's nr_requests untouched" 128 "$(cat "$FAKE_ROOT1/sys/block/sdb/queue/nr_requests")"

# The fix it suggests: the baseline sets both.
ctl_fake_plan "$IT_TMP/fixed.json" grid "$axes"
sed -i 's/"baseline": {"nr_requests": 128}/"baseline": {"nr_requests": 128, "iosched.fifo_batch": 16, "rq_affinity": 1}/' "$IT_TMP/fixed.json"
ctl sweep "$IT_TMP/fixed.json" >"$IT_TMP/fixed.txt" 2>"$IT_TMP/fixed.err"
it_eq "with them in the baseline the sweep runs (exit 0)" 0 $?
it_check "its table" grep -q "^best: " "$IT_TMP/fixed.txt"
# Or on purpose: the plan's allow_differences, or --allow-differences.
ctl_fake_plan "$IT_TMP/allow.json" grid "$axes" '"allow_differences": ["rq_affinity", "iosched.*"]'
ctl nodes "$IT_TMP/allow.json" >"$IT_TMP/nodes-allow.txt" 2>&1
it_eq "nodes with allow_differences exits 0" 0 $?
echo 2 >"$FAKE_ROOT2/sys/block/sdb/queue/rq_affinity"
echo 32 >"$FAKE_ROOT2/sys/block/sdb/queue/iosched/fifo_batch"
ctl sweep "$IT_TMP/plan.json" --allow-differences rq_affinity,iosched.fifo_batch >"$IT_TMP/allow.txt" 2>&1
it_eq "--allow-differences lets the sweep run (exit 0)" 0 $?
ctl_fake_plan "$IT_TMP/bad.json" grid "$axes" '"allow_differences": ["rq affinity"]'
ctl nodes "$IT_TMP/bad.json" >"$IT_TMP/bad.txt" 2>&1
it_eq "a bad allow_differences entry is refused" 1 $?
it_check "naming the entry" grep -q "allow_differences\[0\]: 'rq affinity' is not a parameter name" "$IT_TMP/bad.txt"
it_done
