#!/bin/bash
# it_metrics.sh -- GET /metrics: real scrapes parsed and linted by promtool (Debian's prometheus
# package), values that follow a PUT, a session, a fio job and a profile's drift (and the
# drift alerting rule run on it), label escaping, and auth.
. "$(dirname "$0")/lib.sh"

it_need_root_sysfs
command -v promtool >/dev/null || it_skip "promtool not installed (apt-get install prometheus)"
command -v fio >/dev/null || it_skip "fio not installed"
command -v jq >/dev/null || it_skip "jq not installed"

dev=$(it_loop_create 128M)
mkdir -p "$IT_TMP/jobs"
# A node name with every character the exposition format escapes in a label value.
node=$'n\\o"d\ne'
it_agent_start a --allow-device "$dev" --allow-dir "$IT_TMP/jobs" --node-name "$node" ||
	{ it_fail "agent starts"; it_done; }

# scrape NAME [TOKEN]: GET /metrics into $IT_TMP/NAME.prom; sets SCRAPE_STATUS and SCRAPE_TYPE.
scrape() {
	local meta args=(-s -o "$IT_TMP/$1.prom" -w '%{http_code}\t%{content_type}' --max-time 30)
	[ -n "${2-}" ] && args+=(-H "Authorization: Bearer $2")
	meta=$(curl "${args[@]}" "${SCRAPE_URL:-$a_URL}/metrics")
	SCRAPE_STATUS=${meta%%$'\t'*}
	SCRAPE_TYPE=${meta#*$'\t'}
}

# promtool_ok NAME: the scrape parses and passes promtool's lint.
promtool_ok() {
	if promtool check metrics <"$IT_TMP/$1.prom" >"$IT_TMP/$1.lint" 2>&1; then
		it_pass "promtool check metrics accepts the $1 scrape"
	else
		it_fail "promtool check metrics rejects the $1 scrape: $(head -c 600 "$IT_TMP/$1.lint")"
	fi
}

# value NAME SERIES: the sample value of exactly SERIES (name{labels} as exposed), or "absent".
# SERIES goes through the environment: awk -v would undo the escapes under test.
value() {
	SERIES=$2 awk 'BEGIN { s = ENVIRON["SERIES"] }
		index($0, s " ") == 1 { print substr($0, length(s) + 2); found = 1 }
		END { if (!found) print "absent" }' "$IT_TMP/$1.prom"
}

scrape noauth
it_eq "no token: 401" 401 "$SCRAPE_STATUS"
scrape wrong "not-the-token-0123456789"
it_eq "wrong token: 401" 401 "$SCRAPE_STATUS"

scrape s0 "$a_TOKEN"
it_eq "with the token: 200" 200 "$SCRAPE_STATUS"
it_eq "content type" "text/plain; version=0.0.4" "$SCRAPE_TYPE"
promtool_ok s0
version=$(curl -s "$a_URL/api/v1/health" | jq -r .version)
it_eq "build info with the node name escaped (backslash, quote, newline)" 1 \
	"$(value s0 "fleettune_build_info{version=\"$version\",node=\"n\\\\o\\\"d\\ne\"}")"
up=$(value s0 fleettune_uptime_seconds)
it_check "uptime is a number of seconds ($up)" awk -v u="$up" 'BEGIN { exit !(u >= 0 && u < 60) }'
for st in queued running succeeded failed cancelled interrupted; do
	it_eq "jobs{state=$st} starts at 0" 0 "$(value s0 "fleettune_jobs{state=\"$st\"}")"
done
it_eq "no sessions open" 0 "$(value s0 fleettune_sessions_open)"
it_eq "no audit failures" 0 "$(value s0 fleettune_audit_failures_total)"
it_eq "the connection limit (--max-connections default)" 1024 "$(value s0 fleettune_http_max_connections)"
it_eq "the per-address limit (--max-connections-per-ip default)" 128 \
	"$(value s0 fleettune_http_max_connections_per_ip)"
it_eq "both 401 scrapes were counted" 2 \
	"$(value s0 'fleettune_http_requests_total{method="GET",route="/metrics",status="401"}')"
nr=$(it_sys "$dev" nr_requests)
it_eq "queue param nr_requests is the sysfs value" "$nr" \
	"$(value s0 "fleettune_queue_param{device=\"$dev\",param=\"nr_requests\"}")"
it_eq "queue param read_ahead_kb is the sysfs value" "$(it_sys "$dev" read_ahead_kb)" \
	"$(value s0 "fleettune_queue_param{device=\"$dev\",param=\"read_ahead_kb\"}")"
it_eq "only allowlisted devices have queue params" "" \
	"$(grep '^fleettune_queue_param{' "$IT_TMP/s0.prom" | grep -v "device=\"$dev\"")"

# A write, a kernel rejection, a session.
new=$((nr == 64 ? 32 : 64))
it_http PUT "$a_URL/api/v1/devices/$dev/params/nr_requests" "$a_TOKEN" "{\"value\":$new}"
it_eq "PUT nr_requests=$new" 200 "$HTTP_STATUS"
it_http PUT "$a_URL/api/v1/devices/$dev/params/io_poll" "$a_TOKEN" '{"value":1}'
it_eq "PUT the kernel refuses (io_poll on a loop device)" 422 "$HTTP_STATUS"
it_http POST "$a_URL/api/v1/devices/$dev/sessions" "$a_TOKEN" '{"ttl_s":300}'
it_eq "session opened" 201 "$HTTP_STATUS"
sid=$(echo "$HTTP_BODY" | jq -r .id)
it_http GET "$a_URL/api/v1/changes?device=$dev" "$a_TOKEN"
ok_writes=$(echo "$HTTP_BODY" | jq '[.changes[] | select(.outcome == "ok")] | length')
rejected=$(echo "$HTTP_BODY" | jq '[.changes[] | select(.outcome == "rejected")] | length')

scrape s1 "$a_TOKEN"
promtool_ok s1
it_eq "queue param follows the PUT" "$new" \
	"$(value s1 "fleettune_queue_param{device=\"$dev\",param=\"nr_requests\"}")"
it_eq "writes{outcome=ok} counts the PUT" "$ok_writes" \
	"$(value s1 'fleettune_param_writes_total{outcome="ok"}')"
it_check "the ok write is there ($ok_writes)" [ "$ok_writes" -ge 1 ]
it_eq "writes{outcome=rejected} counts the kernel rejection" "$rejected" \
	"$(value s1 'fleettune_param_writes_total{outcome="rejected"}')"
it_check "the rejection is there ($rejected)" [ "$rejected" -ge 1 ]
it_eq "one session open" 1 "$(value s1 fleettune_sessions_open)"
it_eq "requests by route and status: PUT 200" 1 \
	"$(value s1 'fleettune_http_requests_total{method="PUT",route="/api/v1/devices/{dev}/params/{name}",status="200"}')"
it_eq "requests by route and status: PUT 422" 1 \
	"$(value s1 'fleettune_http_requests_total{method="PUT",route="/api/v1/devices/{dev}/params/{name}",status="422"}')"
curl -s -o /dev/null "$a_URL/no/such/page"
it_http DELETE "$a_URL/api/v1/sessions/$sid" "$a_TOKEN"
it_eq "session closed" 200 "$HTTP_STATUS"

# A real fio job: jobs by state and its main metrics per device.
job='{"device":"'$dev'","directory":"'$IT_TMP/jobs'","engine":"fio","loops":2,
 "fio":{"rw":"randrw","bs":"4k","size":"8M","ioengine":"psync","runtime_s":1,"time_based":true,"rate_iops":1024}}'
it_http POST "$a_URL/api/v1/jobs" "$a_TOKEN" "$job"
it_eq "job submitted" 202 "$HTTP_STATUS"
jid=$(echo "$HTTP_BODY" | jq -r .id)
job_done() {
	it_http GET "$a_URL/api/v1/jobs/$jid" "$a_TOKEN"
	case $(echo "$HTTP_BODY" | jq -r .state) in succeeded | failed | cancelled) return 0 ;; esac
	return 1
}
it_check "job $jid finishes" it_wait_for "job $jid" 60 job_done
it_eq "job succeeded" succeeded "$(echo "$HTTP_BODY" | jq -r .state)"
wbw=$(echo "$HTTP_BODY" | jq '.summary["write.bw_mib"].mean')
rp99=$(echo "$HTTP_BODY" | jq '.summary["read.clat_p99_us"].mean')

scrape s2 "$a_TOKEN"
promtool_ok s2
it_eq "jobs{state=succeeded}" 1 "$(value s2 'fleettune_jobs{state="succeeded"}')"
it_eq "jobs{state=queued}" 0 "$(value s2 'fleettune_jobs{state="queued"}')"
it_eq "sessions back to 0" 0 "$(value s2 fleettune_sessions_open)"
it_eq "last job id" "$jid" "$(value s2 "fleettune_last_job_id{device=\"$dev\",engine=\"fio\"}")"
got=$(value s2 "fleettune_last_job_metric{device=\"$dev\",engine=\"fio\",metric=\"write.bw_mib\"}")
it_check "last job write.bw_mib is the job's mean ($got vs $wbw)" \
	awk -v a="$got" -v b="$wbw" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(b > 0 && d <= 1e-6 * b) }'
got=$(value s2 "fleettune_last_job_metric{device=\"$dev\",engine=\"fio\",metric=\"read.clat_p99_us\"}")
it_check "last job read.clat_p99_us is the job's mean ($got vs $rp99)" \
	awk -v a="$got" -v b="$rp99" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(b > 0 && d <= 1e-6 * b) }'
it_eq "secondary metrics are left out" absent \
	"$(value s2 "fleettune_last_job_metric{device=\"$dev\",engine=\"fio\",metric=\"cpu.sys_pct\"}")"
it_check "unmatched requests count as route=other" \
	grep -q '^fleettune_http_requests_total{route="other",status="404"} 1$' "$IT_TMP/s2.prom"
# A profile the agent keeps, with a value drifted: drift per held parameter, state per device.
it_http PUT "$a_URL/api/v1/profiles/m" "$a_TOKEN" \
	'{"match":{"devices":["'$dev'"]},"params":{"nr_requests":32,"read_ahead_kb":256},"enforce":false}'
it_eq "profile set" 201 "$HTTP_STATUS"
echo 64 >"/sys/block/$dev/queue/nr_requests"
it_http GET "$a_URL/api/v1/profiles/m" "$a_TOKEN"
scrape s3 "$a_TOKEN"
promtool_ok s3
it_eq "profile drift of nr_requests" 1 \
	"$(value s3 "fleettune_profile_drift{profile=\"m\",device=\"$dev\",param=\"nr_requests\"}")"
it_eq "profile drift of read_ahead_kb" 0 \
	"$(value s3 "fleettune_profile_drift{profile=\"m\",device=\"$dev\",param=\"read_ahead_kb\"}")"
it_eq "profile device state" 1 \
	"$(value s3 "fleettune_profile_device_state{profile=\"m\",device=\"$dev\",state=\"drifted\"}")"
# The alerting rule on this scrape's drift series as they are (names, labels, values held for
# 30 minutes): it fires for nr_requests alone, with the labels its annotations use.
{
	echo "rule_files: ['$FT_SOURCE_DIR/deploy/prometheus/fleettune-rules.yaml']"
	echo "evaluation_interval: 1m"
	echo "tests:"
	echo "  - interval: 1m"
	echo "    input_series:"
	sed -n 's/^fleettune_profile_drift{\(.*\)} \([01]\)$/      - series: '"'"'fleettune_profile_drift{job="fleettune",instance="a",\1}'"'"'\n        values: '"'"'\2x30'"'"'/p' \
		"$IT_TMP/s3.prom"
	echo "    alert_rule_test:"
	echo "      - eval_time: 20m"
	echo "        alertname: FleettuneProfileDrift"
	echo "        exp_alerts:"
	echo "          - exp_labels: {severity: warning, job: fleettune, instance: a, profile: m, device: $dev, param: nr_requests}"
	echo "            exp_annotations:"
	echo "              summary: 'nr_requests on $dev at a drifted from profile m'"
	echo "              description: \"For 15 minutes nr_requests on a's $dev has not been the value profile m holds. GET /api/v1/profiles/m on the agent shows the live and wanted values and since when; \`fleettune-ctl verify PLAN --profile m\` lists every node's differences.\""
} >"$IT_TMP/drift.test.yaml"
it_eq "the scrape has two drift series for the rule" 2 "$(grep -c '^      - series:' "$IT_TMP/drift.test.yaml")"
if promtool test rules "$IT_TMP/drift.test.yaml" >"$IT_TMP/drift.test.out" 2>&1; then
	it_pass "FleettuneProfileDrift fires on the live drift series with profile, device and param"
else
	it_fail "FleettuneProfileDrift on the live series: $(head -c 900 "$IT_TMP/drift.test.out")"
fi
# Profile names are label values and URL path segments: every character a name may have shows
# as it is; a name with a quote, a backslash, a line break, a blank or an escape is refused
# and never reaches the labels.
nm=$(cat "/sys/block/$dev/queue/nomerges")
it_http PUT "$a_URL/api/v1/profiles/Ab-c.d_9" "$a_TOKEN" \
	'{"match":{"devices":["'$dev'"]},"params":{"nomerges":'$nm'},"enforce":false}'
it_eq "profile Ab-c.d_9 set" 201 "$HTTP_STATUS"
for bad in 'a%22b' 'a%5cb' 'a%0ab' 'a%20b' 'a%1b%5b2J' '%c3%a9'; do
	it_http PUT "$a_URL/api/v1/profiles/$bad" "$a_TOKEN" \
		'{"match":{"devices":["'$dev'"]},"params":{"rq_affinity":1},"enforce":false}'
	it_eq "profile name $bad refused" 400 "$HTTP_STATUS"
done
it_http GET "$a_URL/api/v1/profiles" "$a_TOKEN"
it_eq "two profiles kept, none of the refused" "Ab-c.d_9 m" \
	"$(jq -r '[.profiles[].name] | sort | join(" ")' <<<"$HTTP_BODY")"
scrape s4 "$a_TOKEN"
promtool_ok s4
it_eq "the name shows as it is in the labels" 1 \
	"$(value s4 "fleettune_profile_device_state{profile=\"Ab-c.d_9\",device=\"$dev\",state=\"held\"}")"
it_eq "profile labels: only the two names" "Ab-c.d_9 m" \
	"$(grep -o '^fleettune_profile_[a-z_]*{profile="[^"]*"' "$IT_TMP/s4.prom" | sed 's/.*profile="//; s/"$//' | sort -u | tr '\n' ' ' | sed 's/ $//')"
it_http DELETE "$a_URL/api/v1/profiles/Ab-c.d_9" "$a_TOKEN"
it_eq "profile Ab-c.d_9 deleted" 200 "$HTTP_STATUS"
for fam in fleettune_build_info fleettune_uptime_seconds fleettune_http_requests_total \
	fleettune_jobs fleettune_last_job_metric fleettune_param_writes_total fleettune_sessions_open \
	fleettune_queue_param fleettune_http_held_requests fleettune_http_max_connections \
	fleettune_http_max_connections_per_ip fleettune_audit_failures_total fleettune_profile_drift \
	fleettune_profile_reapplied_total fleettune_profile_device_state; do
	it_check "family $fam has HELP and TYPE" grep -q "^# TYPE $fam " "$IT_TMP/s3.prom"
done

# --public-metrics opens /metrics only; --public-read opens it too.
it_agent_start b --allow-device "$dev" --public-metrics --max-connections 64 \
	--max-connections-per-ip 16 || { it_fail "agent b starts"; it_done; }
SCRAPE_URL=$b_URL scrape b
it_eq "--public-metrics: 200 without a token" 200 "$SCRAPE_STATUS"
promtool_ok b
it_eq "--max-connections 64 is the limit exported" 64 "$(value b fleettune_http_max_connections)"
it_eq "--max-connections-per-ip 16 is the limit exported" 16 \
	"$(value b fleettune_http_max_connections_per_ip)"
it_http GET "$b_URL/api/v1/devices" ""
it_eq "--public-metrics: other routes still need the token" 401 "$HTTP_STATUS"
it_agent_start c --public-read || { it_fail "agent c starts"; it_done; }
SCRAPE_URL=$c_URL scrape c
it_eq "--public-read: 200 without a token" 200 "$SCRAPE_STATUS"
it_eq "--public-read, no allowlist: no queue params" "" \
	"$(grep '^fleettune_queue_param{' "$IT_TMP/c.prom")"
it_done
