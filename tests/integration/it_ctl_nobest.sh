#!/bin/bash
# it_ctl_nobest.sh -- a sweep with nothing to compare is not a success: when every job fails
# (here fio itself fails on both nodes), the table says why there is no best and the
# controller exits 1; the devices are restored all the same.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/ctl_lib.sh"

# Agents whose fio fails every pass the way fio fails on a bad option (exit 1).
export FAKE_FIO_FAIL=1 FAKE_FIO_SLEEP_S=0
ctl_two_nodes --fio "$FT_SOURCE_DIR/tests/fixtures/fake-fio.sh"
ctl_plan "$IT_TMP/plan.json" grid 1 1
ctl sweep "$IT_TMP/plan.json" >"$IT_TMP/out.txt" 2>"$IT_TMP/err.txt"
it_eq "sweep exits 1" 1 $?
cat "$IT_TMP/out.txt"
tail -3 "$IT_TMP/err.txt"
it_check "the table is printed" grep -q '^sweep 1 "it grid"' "$IT_TMP/out.txt"
it_check "every point failed" test "$(grep -c '| failed *| failed *|' "$IT_TMP/out.txt")" = 4
it_check "no best, and why: the baseline failed on every node, with each node's error" \
	grep -Eq '^no best: the baseline failed on every node \(node1: job [0-9]+ failed: engine_failed: .+; node2: job [0-9]+ failed: engine_failed: .+\)$' "$IT_TMP/out.txt"
it_check "never 'best: the baseline'" bash -c "! grep -q '^best: ' '$IT_TMP/out.txt'"
it_check "the error says so too" grep -q "sweep 1: no best: the baseline failed on every node" "$IT_TMP/err.txt"
ctl_restored "no best"
ctl show 1 --format json >"$IT_TMP/show.json"
it_eq "stored outcome" baseline_failed "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["outcome"])' "$IT_TMP/show.json")"
ctl history >"$IT_TMP/history.txt"
it_check "history says there is no best" grep -q "no best: the baseline failed on every node" "$IT_TMP/history.txt"
it_done
