#!/bin/bash
# bt_report.sh -- the sweep report (web/report.html + report.js) made self-contained from the
# controller's example sweep (tests/fixtures/sweep-example.json) the way `fleettune-ctl report
# --html` inlines it, opened from a file:// URL with the network off. The real two-node sweep
# is bt_sweep_report.sh. The fixture is a version-1 document; `fleettune-ctl analyze` turns it
# into a version-2 one (codes, the noise line), checked the same way.
. "$(dirname "$0")/../integration/lib.sh"
. "$(dirname "$0")/browser_lib.sh"

bt_need_browser
fx="$FT_SOURCE_DIR/tests/fixtures/sweep-example.json"
[ -f "$fx" ] || it_skip "no $fx yet"

node "$BT_DIR/inline_report.js" "$FT_SOURCE_DIR/web" "$fx" "$IT_TMP/report.html" ||
	{ it_fail "inline report.html"; it_done; }
it_pass "report.html inlines into one file"
bt_node report_check.js --html "$IT_TMP/report.html" --json "$fx" --shots "$BT_SHOTS" --prefix report-fixture

# The same sweep judged again by `fleettune-ctl analyze`: a version-2 document (codes, noise).
it_need_built "$CTL_BIN"
"$CTL_BIN" analyze "$fx" --format json >"$IT_TMP/sweep-v2.json" ||
	{ it_fail "analyze $fx --format json"; it_done; }
node "$BT_DIR/inline_report.js" "$FT_SOURCE_DIR/web" "$IT_TMP/sweep-v2.json" "$IT_TMP/report-v2.html" ||
	{ it_fail "inline report-v2.html"; it_done; }
bt_node report_check.js --html "$IT_TMP/report-v2.html" --json "$IT_TMP/sweep-v2.json" --shots "$BT_SHOTS" --prefix report-fixture-v2

it_done
