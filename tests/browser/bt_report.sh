#!/bin/bash
# bt_report.sh -- the sweep report (web/report.html + report.js) made self-contained from the
# controller's example sweep (tests/fixtures/sweep-example.json) the way `fleettune-ctl report
# --html` inlines it, opened from a file:// URL with the network off. The real two-node sweep
# is bt_sweep_report.sh.
. "$(dirname "$0")/../integration/lib.sh"
. "$(dirname "$0")/browser_lib.sh"

bt_need_browser
fx="$FT_SOURCE_DIR/tests/fixtures/sweep-example.json"
[ -f "$fx" ] || it_skip "no $fx yet"

node "$BT_DIR/inline_report.js" "$FT_SOURCE_DIR/web" "$fx" "$IT_TMP/report.html" ||
	{ it_fail "inline report.html"; it_done; }
it_pass "report.html inlines into one file"
bt_node report_check.js --html "$IT_TMP/report.html" --json "$fx" --shots "$BT_SHOTS" --prefix report-fixture

it_done
