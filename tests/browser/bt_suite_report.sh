#!/bin/bash
# bt_suite_report.sh -- a suite's sweep report: tests/fixtures/sweep-suite.json (a 3-workload
# grid suite with a latency guardrail, as `fleettune-ctl show --format json` writes it) judged
# again by `fleettune-ctl analyze` and inlined as `report --html` does, opened from a file://
# URL with the network off: the matrix as a coloured grid and one chart per workload.
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
it_done
