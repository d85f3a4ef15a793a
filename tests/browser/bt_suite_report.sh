#!/bin/bash
# bt_suite_report.sh -- a suite's sweep report: tests/fixtures/sweep-suite.json (a 3-workload
# grid suite with a latency guardrail, as `fleettune-ctl show --format json` writes it) judged
# again by `fleettune-ctl analyze` and inlined as `report --html` does, opened from a file://
# URL with the network off: the matrix as a coloured grid and one chart per workload. Then the
# same suite grown to two cohorts whose suite decisions differ (suite_cohorts.jq): each
# cohort's matrix as a grid of its own, its decision last.
. "$(dirname "$0")/../integration/lib.sh"
. "$(dirname "$0")/browser_lib.sh"

bt_need_browser
it_need_built "$CTL_BIN"
fx="$FT_SOURCE_DIR/tests/fixtures/sweep-suite.json"
"$CTL_BIN" analyze "$fx" --format json >"$IT_TMP/suite.json" ||
	{ it_fail "analyze $fx --format json"; it_done; }
node "$BT_DIR/inline_report.js" "$FT_SOURCE_DIR/web" "$IT_TMP/suite.json" "$IT_TMP/report.html" ||
	{ it_fail "inline report.html"; it_done; }
it_pass "the suite's report inlines into one file"
bt_node suite_report_check.js --html "$IT_TMP/report.html" --json "$IT_TMP/suite.json" --shots "$BT_SHOTS" --prefix suite
jq -f "$BT_DIR/suite_cohorts.jq" "$fx" >"$IT_TMP/cohorts-in.json" ||
	{ it_fail "jq suite_cohorts.jq"; it_done; }
"$CTL_BIN" analyze "$IT_TMP/cohorts-in.json" --format json >"$IT_TMP/cohorts.json" ||
	{ it_fail "analyze the two-cohort suite"; it_done; }
jq -e '.suite.cohorts_differ' "$IT_TMP/cohorts.json" >/dev/null &&
	it_pass "the two-cohort suite's decisions differ" ||
	it_fail "the two-cohort suite's decisions do not differ"
node "$BT_DIR/inline_report.js" "$FT_SOURCE_DIR/web" "$IT_TMP/cohorts.json" "$IT_TMP/cohorts.html" ||
	{ it_fail "inline the two-cohort report"; it_done; }
bt_node suite_report_check.js --html "$IT_TMP/cohorts.html" --json "$IT_TMP/cohorts.json" --shots "$BT_SHOTS" --prefix suite-cohorts
it_done
