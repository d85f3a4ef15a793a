#!/bin/bash
# it_ctl_decision.sh -- issue 28: a sweep's decision stands behind its evidence. Two agents on
# fake sysfs trees, bench/fakefio with an effect that exists early (nr_requests 32: +15 % for
# each node's first 10 passes, the axis' rows) and is gone by the final confirmation: the
# sweep prints no "significant gain" best but "not confirmed" with what each comparison
# showed; export, apply --best, rollout --best and verify --best refuse (exit 1, saying what
# the final confirmation showed) and change nothing; export --unconfirmed writes the suggested
# rule with a comment saying so, apply --best --unconfirmed sets it; the stored decision reads
# back the same from the history and show --format json. Then an effect that lasts: confirmed,
# "decided by the final confirmation", export writes it. No root needed.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/ctl_lib.sh"

ctl_fake_nodes 'base 1000
cv 0.02
node_sd 0
param nr_requests 32 1.15 until 10'
ctl_fake_plan "$IT_TMP/plan.json" sequential '[{"param": "nr_requests", "values": [128, 32]}]'

ctl sweep "$IT_TMP/plan.json" >"$IT_TMP/sweep.txt" 2>"$IT_TMP/sweep.err"
it_eq "sweep exits 0 (complete; the baseline is kept)" 0 $?
cat "$IT_TMP/sweep.txt"
it_check "the axis row is a significant gain" grep -Eq '^\| 32 .*\| \+1[0-9]\.[0-9] % .*\| significant gain' "$IT_TMP/sweep.txt"
it_check "the final confirmation is not a gain" grep -Eq '^\| 32 .*final vs original baseline: (no real difference|inconclusive)' "$IT_TMP/sweep.txt"
it_check "no 'significant gain' best" bash -c "! grep -q '^best: nr_requests=32 .*significant gain' '$IT_TMP/sweep.txt'"
it_check "the best line: the baseline, nr_requests=32 not confirmed, what the final showed" \
	grep -Eq '^best: the baseline \(nr_requests=32 is not confirmed: the final confirmation showed [+−][0-9.]+ %, (no real difference|inconclusive)\)$' "$IT_TMP/sweep.txt"
it_check "what the axis row showed, with its interval and level" \
	grep -Eq "^  suggested by axis 1's row nr_requests=32: \+1[0-9]\.[0-9] % \[\+[0-9.]+, \+[0-9.]+\] \(95 % interval\), significant gain$" "$IT_TMP/sweep.txt"
it_check "what the final confirmation showed, with the interval that decided" \
	grep -Eq '^  the final confirmation beside the original baseline measured again: [+−][0-9.]+ % \[[^]]*\] \((90|95) % interval\), ' "$IT_TMP/sweep.txt"

before1=$(cat "$FAKE_ROOT1/sys/block/sdb/queue/nr_requests")
ctl export 1 --format udev >"$IT_TMP/export.txt" 2>"$IT_TMP/export.err"
it_eq "export of an unconfirmed best exits 1" 1 $?
it_check "export writes nothing" test ! -s "$IT_TMP/export.txt"
it_check "export says what the final confirmation showed" grep -q "no confirmed best to export: nr_requests=32 is not confirmed: the final confirmation showed" "$IT_TMP/export.err"
it_check "export names --unconfirmed" grep -q -- "--unconfirmed exports the suggested configuration on purpose" "$IT_TMP/export.err"
ctl apply "$IT_TMP/plan.json" --best 1 >"$IT_TMP/apply.txt" 2>"$IT_TMP/apply.err"
it_eq "apply --best of an unconfirmed best exits 1" 1 $?
it_check "apply says what the final confirmation showed" grep -q "no confirmed best to apply: nr_requests=32 is not confirmed" "$IT_TMP/apply.err"
ctl rollout "$IT_TMP/plan.json" --best 1 >"$IT_TMP/rollout.txt" 2>"$IT_TMP/rollout.err"
it_eq "rollout --best of an unconfirmed best exits 1" 1 $?
it_check "rollout says what the final confirmation showed" grep -q "no confirmed best to roll out: nr_requests=32 is not confirmed" "$IT_TMP/rollout.err"
ctl verify "$IT_TMP/plan.json" --best 1 >"$IT_TMP/verify.txt" 2>"$IT_TMP/verify.err"
it_eq "verify --best of an unconfirmed best exits 1" 1 $?
it_eq "nothing was changed on n1" "$before1" "$(cat "$FAKE_ROOT1/sys/block/sdb/queue/nr_requests")"
it_check "no rollout was stored" bash -c "! '$CTL_BIN' history --db '$CTL_DB' | grep -q '^r[0-9]'"

ctl export 1 --format udev --unconfirmed >"$IT_TMP/export-u.txt" 2>"$IT_TMP/export-u.err"
it_eq "export --unconfirmed exits 0" 0 $?
cat "$IT_TMP/export-u.txt"
it_check "the rule sets the suggestion" grep -q 'ATTR{queue/nr_requests}="32"' "$IT_TMP/export-u.txt"
it_check "its comment says it is unconfirmed and why" grep -q '^# UNCONFIRMED: nr_requests=32 is not confirmed: the final confirmation showed' "$IT_TMP/export-u.txt"
it_check "and that it was asked for" grep -q '^# exported on purpose with --unconfirmed' "$IT_TMP/export-u.txt"
ctl export 1 --format udev --unconfirmed --baseline >/dev/null 2>&1
it_eq "--unconfirmed with --baseline is a usage error" 64 $?
ctl apply "$IT_TMP/plan.json" --best 1 --unconfirmed >"$IT_TMP/apply-u.txt" 2>"$IT_TMP/apply-u.err"
it_eq "apply --best --unconfirmed exits 0" 0 $?
it_check "it warns that it applies an unconfirmed configuration" grep -q "UNCONFIRMED configuration on purpose" "$IT_TMP/apply-u.err"
it_eq "n1 holds the suggestion" 32 "$(cat "$FAKE_ROOT1/sys/block/sdb/queue/nr_requests")"
echo 128 >"$FAKE_ROOT1/sys/block/sdb/queue/nr_requests"
echo 128 >"$FAKE_ROOT2/sys/block/sdb/queue/nr_requests"

# The stored decision, read back: the history's line is the document's summary; the document's
# decision says unconfirmed with each comparison's figures.
ctl history >"$IT_TMP/history.txt"
ctl show 1 --format json >"$IT_TMP/show.json"
summary=$(jq -r .decision.summary "$IT_TMP/show.json")
it_check "history shows the stored decision as show does" grep -qF "$summary" "$IT_TMP/history.txt"
it_check "the best line's first line is the summary" grep -qxF "$summary" "$IT_TMP/sweep.txt"
it_eq "the document's decision" "unconfirmed final not_confirmed 32 null gain 95" \
	"$(jq -r '[.decision.state, .decision.basis, .decision.why, .decision.params.nr_requests, .best, .decision.steps[0].verdict, .decision.steps[0].level_pct] | map(tostring) | join(" ")' "$IT_TMP/show.json")"
ctl show 1 >"$IT_TMP/show.txt"
it_check "show prints the same best lines as the sweep" bash -c "diff <(grep -A3 '^best:' '$IT_TMP/sweep.txt') <(grep -A3 '^best:' '$IT_TMP/show.txt')"

# An effect that lasts: the final confirmation confirms it.
printf 'base 1000\ncv 0.02\nnode_sd 0\nparam nr_requests 32 1.15\n' >"$IT_TMP/surface.spec"
ctl sweep "$IT_TMP/plan.json" >"$IT_TMP/sweep2.txt" 2>"$IT_TMP/sweep2.err"
it_eq "the second sweep exits 0" 0 $?
cat "$IT_TMP/sweep2.txt"
it_check "a confirmed best" grep -Eq '^best: nr_requests=32  \+1[0-9]\.[0-9] % \(significant gain on both nodes\)$' "$IT_TMP/sweep2.txt"
it_check "it says which comparison decided, with its interval, and which nodes show it alone" \
	grep -Eq '^  decided by the final confirmation beside the original baseline measured again: \+1[0-9]\.[0-9] % \[\+[0-9.]+, \+[0-9.]+\] \(95 % interval\); a gain on its own on n1 and n2$' "$IT_TMP/sweep2.txt"
ctl export 2 --format udev >"$IT_TMP/export2.txt" 2>&1
it_eq "export of a confirmed best exits 0" 0 $?
it_check "with no UNCONFIRMED comment" bash -c "! grep -q UNCONFIRMED '$IT_TMP/export2.txt'"
it_check "its header says confirmed" grep -q '"it sequential": best configuration (confirmed)' "$IT_TMP/export2.txt"
it_done
