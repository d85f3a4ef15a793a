#!/bin/bash
# bt_page.sh -- the agent's page in headless Chromium against a real agent holding real fio
# results from a loop device: history rows, filters, job bars, compare groups, devices, the
# token prompt (without --public-read), no prompt with --public-read, and escaped labels.
# Screenshots of every view go to $FT_BUILD_DIR/screenshots/.
. "$(dirname "$0")/../integration/lib.sh"
. "$(dirname "$0")/browser_lib.sh"

it_need_root_sysfs
bt_need_browser
command -v fio >/dev/null || it_skip "fio not installed"

XSS='<img src=x onerror=alert(1)>'
dev=$(it_loop_create 256M)
it_log "loop device $dev"
it_agent_start priv --allow-device "$dev" --web-root "$FT_SOURCE_DIR/web" || exit 1

# The page and its CSP come from the agent.
hdr=$(curl -s -D - -o "$IT_TMP/index.html" "$priv_URL/")
it_check "agent serves index.html at /" grep -q 'app.js' "$IT_TMP/index.html"
it_check "agent sends CSP default-src 'self'" grep -qi "content-security-policy: default-src 'self'" <<<"$hdr"
js_type=$(curl -s -o /dev/null -w '%{content_type}' "$priv_URL/app.js")
it_check "app.js served as JavaScript ($js_type)" grep -qi javascript <<<"$js_type"

# Real fio jobs: three nr_requests values, two label groups, one label with markup.
ids=()
post() { local id; id=$(bt_job_post "$priv_URL" "$priv_TOKEN" "$(bt_fio_body "$dev" "$@")") && ids+=("$id"); }
post 2 '{"nr_requests":32}' '{"suite":"bt","grp":"a"}'
post 3 '{"nr_requests":64}' '{"suite":"bt","grp":"a"}'
post 2 '{"nr_requests":128}' "$(jq -cn --arg x "$XSS" '{suite:"bt",grp:"b",note:$x}')"
post 2 '{"nr_requests":64}' '{"suite":"bt","grp":"b"}'
[ ${#ids[@]} = 4 ] || { it_fail "could not post the jobs"; it_done; }
it_log "jobs ${ids[*]}"
it_check "4 real fio jobs finish" bt_jobs_wait "$priv_URL" "$priv_TOKEN" 180 "${ids[@]}"

# What the page must show, from the API itself.
it_http GET "$priv_URL/api/v1/results?limit=500" "$priv_TOKEN"
echo "$HTTP_BODY" >"$IT_TMP/results.json"
total=$(jq '.results | length' "$IT_TMP/results.json")
it_eq "results lists the 4 jobs" 4 "$total"
jq -n --slurpfile r "$IT_TMP/results.json" --arg dev "$dev" --arg xss "$XSS" \
	--argjson job "${ids[1]}" --argjson xjob "${ids[2]}" '
	$r[0].results as $j | {
	total: ($j | length), device: $dev,
	job: {id: $job, loops: ($j[] | select(.id == $job) | .passes | length)},
	filter: {label: "grp=a", count: ([$j[] | select(.labels.grp == "a")] | length),
	         param: "nr_requests=64", paramCount: ([$j[] | select((.params.nr_requests | tostring) == "64")] | length)},
	compare: {by: "nr_requests", metric: "write.bw_mib",
	          groups: ([$j[] | .params.nr_requests | tostring] | unique | length),
	          passes: ([$j[] | .passes[] | .metrics["write.bw_mib"] | numbers] | length)},
	xss: {text: $xss, job: $xjob}}' >"$IT_TMP/expect.json"
cat "$IT_TMP/expect.json" | jq -c . | sed 's/^/# expect: /'

# Without --public-read: the token prompt, a wrong token, then every view.
bt_node page_check.js --url "$priv_URL/" --token "$priv_TOKEN" --expect "$IT_TMP/expect.json" \
	--shots "$BT_SHOTS" --prefix auth

# Same history under --public-read: never a prompt.
kill -TERM "$priv_PID"
it_wait_for "agent priv to stop" 10 bash -c "! kill -0 $priv_PID 2>/dev/null"
mkdir -p "$IT_TMP/pub-state"
cp -a "$priv_STATE"/. "$IT_TMP/pub-state/"
it_agent_start pub --allow-device "$dev" --web-root "$FT_SOURCE_DIR/web" --public-read || exit 1
bt_node page_check.js --url "$pub_URL/" --expect "$IT_TMP/expect.json" --shots "$BT_SHOTS" --prefix page

# A running job: the job view shows its progress and follows it to the end by polling. 8 loops
# of 1 s: a browser that starts slowly on a loaded machine still opens it while it runs.
live=$(bt_job_post "$pub_URL" "$priv_TOKEN" "$(bt_fio_body "$dev" 8 '{}' '{"suite":"bt","grp":"live"}')")
if [ -n "$live" ]; then
	it_wait_for "job $live to start" 30 bash -c "[ \"\$(curl -s $pub_URL/api/v1/jobs/$live | jq -r .state)\" = running ]"
	bt_node live_check.js --url "$pub_URL/" --job "$live" --shots "$BT_SHOTS" --prefix page
else
	it_fail "could not post the live job"
fi

it_done
