#!/bin/bash
# it_prometheus.sh -- deploy/prometheus/fleettune-rules.yaml: promtool check rules, its unit
# tests (promtool test rules fleettune-rules.test.yaml), an alert for every condition
# docs/operations.md ("Metrics and alerts") names, and every fleettune metric a rule uses is
# one the agent exports (it_metrics.sh runs the drift rule on a live agent's scrape).
. "$(dirname "$0")/lib.sh"

command -v promtool >/dev/null || it_skip "promtool not installed (Debian package prometheus)"
DIR=$FT_SOURCE_DIR/deploy/prometheus
RULES=$DIR/fleettune-rules.yaml

out=$(promtool check rules "$RULES" 2>&1)
it_eq "promtool check rules exits 0" 0 "$?"
echo "$out" | sed 's/^/# /'
# promtool resolves rule_files against the test file's directory.
out=$(cd "$DIR" && promtool test rules fleettune-rules.test.yaml 2>&1)
rc=$?
echo "$out" | sed 's/^/# /'
it_eq "promtool test rules fleettune-rules.test.yaml exits 0" 0 "$rc"
it_check "promtool test rules says SUCCESS" grep -q SUCCESS <<<"$out"

for alert in FleettuneAgentDown FleettuneJobsFailing FleettuneHeldRequestsNearLimit \
	FleettuneHeldRequestsNearPerAddressLimit FleettuneAuditUnavailable FleettuneProfileDrift; do
	it_check "rule $alert exists" grep -qx "      - alert: $alert" "$RULES"
	it_check "rule $alert has a unit test" grep -q "alertname: $alert$" "$DIR/fleettune-rules.test.yaml"
done

# The metric names the rules use, and those the agent's /metrics code writes.
used=$(grep -o 'fleettune_[a-z_]*' <(grep -v '^ *#' "$RULES") | sort -u)
exported=$(grep -ho '"fleettune_[a-z_]*' "$FT_SOURCE_DIR"/agent/*/*.c | tr -d '"' | sort -u)
for m in $used; do
	it_check "metric $m is exported by the agent" grep -qx "$m" <<<"$exported"
done
it_done
