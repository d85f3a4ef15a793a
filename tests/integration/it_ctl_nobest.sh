#!/bin/bash
# it_ctl_nobest.sh -- a sweep with nothing to compare is not a success. Fio fails (as on a bad
# option) while a device runs the scheduler "none": 1. a baseline with it fails on every node:
# the sweep stops at once (issue 28: no other point can be compared with it), with the agents'
# reasons; 2. the baseline runs but the one other configuration fails everywhere. Each time
# the table says why there is no best, a failed cell says why it failed, the controller exits
# 1, the outcome is stored and the devices are restored; `export` refuses both (exit 1, saying
# why) unless --baseline asks for the baseline on purpose.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/ctl_lib.sh"

export FAKE_FIO_FAIL_SCHEDULER=none FAKE_FIO_SLEEP_S=0
ctl_two_nodes --fio "$FT_SOURCE_DIR/tests/fixtures/fake-fio.sh"

# no_best ID DESC WHY OUTCOME ERR: sweep ID (its output in $IT_TMP/out.txt and err.txt) has no
# best, says WHY (plain text) with each node's error, the error line ERR, and stored OUTCOME.
no_best() {
	local id=$1 desc=$2 why=$3 outcome=$4 errline=$5
	cat "$IT_TMP/out.txt"
	tail -3 "$IT_TMP/err.txt"
	it_check "$desc: the table is printed" grep -q "^sweep $id \"it grid\"" "$IT_TMP/out.txt"
	it_check "$desc: no best, and why, with each node's error" \
		grep -Eq "^no best: $why \(.*node1: job [0-9]+ failed: engine_failed: .+; node2: job [0-9]+ failed: engine_failed: .+\)$" "$IT_TMP/out.txt"
	it_check "$desc: never 'best: '" bash -c "! grep -q '^best: ' '$IT_TMP/out.txt'"
	it_check "$desc: the error says so too" grep -qF "$errline" "$IT_TMP/err.txt"
	ctl_restored "$desc"
	ctl show "$id" --format json >"$IT_TMP/show.json"
	it_eq "$desc: stored outcome" "$outcome" \
		"$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["outcome"])' "$IT_TMP/show.json")"
}

# 1. Every point runs "none": every job fails, the baseline first.
ctl_plan "$IT_TMP/plan1.json" grid 1 1 '[{"param":"nr_requests","values":[32,64]}]'
sed -i 's/"baseline": {"scheduler": "mq-deadline"/"baseline": {"scheduler": "none"/' "$IT_TMP/plan1.json"
ctl sweep "$IT_TMP/plan1.json" >"$IT_TMP/out.txt" 2>"$IT_TMP/err.txt"
it_eq "baseline failed: sweep exits 1" 1 $?
it_check "baseline failed: a failed cell says why" grep -Eq '^\| 128 +\| none +\| failed: [^|]+\| failed: [^|]+\|' "$IT_TMP/out.txt"
it_check "baseline failed: the status is failed" bash -c "'$CTL_BIN' show 1 --db '$CTL_DB' --format json | grep -q '\"status\": \"failed\"'"
no_best 1 "baseline failed" "the baseline failed on every node" baseline_failed \
	"sweep 1 stopped at once: the baseline failed on every node (node1: job"

# 2. The baseline (mq-deadline) runs; "none", the only other configuration, fails everywhere.
ctl_plan "$IT_TMP/plan2.json" grid 1 1 '[{"param":"scheduler","values":["none"]}]'
ctl sweep "$IT_TMP/plan2.json" >"$IT_TMP/out.txt" 2>"$IT_TMP/err.txt"
it_eq "no figures: sweep exits 1" 1 $?
it_check "no figures: the baseline ran on both nodes" \
	grep -Eq '^\| mq-deadline +\| 128 +\| [0-9.]+ (± [0-9.]+|\(1 pass\)) +\| [0-9.]+ (± [0-9.]+|\(1 pass\)) +\|.*\| baseline' "$IT_TMP/out.txt"
it_check "no figures: the other configuration failed on both, saying why" grep -Eq '^\| none +\| 128 +\| failed: [^|]+\| failed: [^|]+\|' "$IT_TMP/out.txt"
no_best 2 "no figures" "no configuration produced a figure to compare with the baseline" no_figures \
	"sweep 2: no best: no configuration produced a figure to compare with the baseline"

# export refuses a sweep with no best (a permanent rule of a baseline nobody chose), unless
# --baseline asks for the baseline on purpose.
ctl export 1 --format udev --out "$IT_TMP/rule1" 2>"$IT_TMP/export.err"
it_eq "export of a sweep with no best: exit 1" 1 $?
cat "$IT_TMP/export.err"
it_check "export says why and what --baseline does" grep -qF \
	"sweep 1 has no best configuration to export: the baseline failed on every node. Nothing was written; --baseline exports its baseline (scheduler=none nr_requests=128) on purpose" "$IT_TMP/export.err"
it_check "export wrote no file" test ! -e "$IT_TMP/rule1"
ctl export 2 --format tuned 2>"$IT_TMP/export.err" >"$IT_TMP/export.out"
it_eq "export of the no-figures sweep: exit 1" 1 $?
it_check "export says that one's reason" grep -qF \
	"sweep 2 has no best configuration to export: no configuration produced a figure to compare with the baseline." "$IT_TMP/export.err"
it_eq "nothing on stdout" "" "$(cat "$IT_TMP/export.out")"
ctl export 1 --format udev --baseline --out "$IT_TMP/rule1"
it_eq "export --baseline: exit 0" 0 $?
it_check "export --baseline writes the baseline, saying it was asked for" grep -q \
	'^# fleettune sweep 1 "it grid": its baseline, exported on purpose$' "$IT_TMP/rule1"
it_check "export --baseline: the rule sets the baseline's scheduler" grep -q 'ATTR{queue/scheduler}="none"' "$IT_TMP/rule1"

ctl history >"$IT_TMP/history.txt"
cat "$IT_TMP/history.txt"
it_check "history says there is no best, and why, for each" bash -c \
	"grep -q 'no best: the baseline failed on every node' '$IT_TMP/history.txt' && grep -q 'no best: no configuration produced a figure' '$IT_TMP/history.txt'"
it_done
