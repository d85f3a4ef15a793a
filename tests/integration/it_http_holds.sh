#!/usr/bin/env bash
# it_http_holds.sh -- held requests cannot lock the owner out, and a request's framing is never
# guessed at (issue 23 items 5 and 16). Long-polls from 8 other loopback addresses, more than
# the connection limit: the hold limits (total and per client, below the connection limits)
# answer the rest 503 too_many_waits at once and close them, so the owner's health and
# authorised requests from 127.0.0.1 are answered; the holds of clients that went away are
# released within a second, not at their deadline; an anonymous client (--public-read) holds
# nothing. Framing: Transfer-Encoding with Content-Length refused (400), an unknown
# Transfer-Encoding refused at once (501, no hang), chunked alone served.
source "$(dirname "$0")/lib.sh"

it_need_root_sysfs
command -v python3 >/dev/null || it_skip "python3 not installed"
command -v jq >/dev/null || it_skip "jq not installed"
ulimit -n 8192 2>/dev/null || true
dev=$(it_loop_create 64M)
FAKE=$FT_SOURCE_DIR/tests/fixtures/fake-fio.sh
port_of() { echo "${1##*:}"; }
held() {
	curl -s -m 2 -H "Authorization: Bearer $2" "$1/metrics" |
		sed -n 's/^fleettune_http_held_requests \([0-9]*\)$/\1/p'
}
held_is() { test "$(held "$1" "$2")" = "$3"; }
health() { curl -s -o /dev/null -w '%{http_code}' -m 2 --interface 127.0.0.1 "$1/api/v1/health"; }

# A finished job: a wait with after=its version is held until wait_s.
it_agent_start a --allow-device "$dev" --fio "$FAKE" --connection-timeout-s 30 || exit 1
U=$a_URL/api/v1
it_check "the hold limits are logged (half the connection limits)" \
	grep -q "at most 512 held requests, 64 per client address" "$a_LOG"
it_http POST "$U/jobs" "$a_TOKEN" "{\"device\":\"$dev\",\"engine\":\"fio\",\"fio\":{\"rw\":\"randread\",\"bs\":\"4k\",\"size\":\"8m\",\"runtime_s\":1}}"
jid=$(echo "$HTTP_BODY" | jq -r .id)
job_done() { curl -s -H "Authorization: Bearer $a_TOKEN" "$U/jobs/$jid?fields=state" | jq -e '.state == "succeeded"' >/dev/null; }
it_check "job $jid finishes" it_wait_for "job done" 30 job_done
v=$(curl -s -H "Authorization: Bearer $a_TOKEN" "$U/jobs/$jid?fields=state" | jq -r .version)
WAIT="/api/v1/jobs/$jid?wait_s=30&after=$v&fields=state"

# 1. The issue's case: 130 long-polls from each of 127.0.0.2 .. .9 (1040 > the 1024
# connections), default limits.
python3 "$FT_SOURCE_DIR/tests/integration/holds.py" "$(port_of "$a_URL")" "$WAIT" "$a_TOKEN" 130 8 3 600 \
	>"$IT_TMP/flood.out" &
FLOOD=$!
IT_PIDS+=("$FLOOD")
it_wait_for "flood answered" 30 grep -q unanswered "$IT_TMP/flood.out"
cat "$IT_TMP/flood.out" | sed 's/^/# flood: /'
# until the agent has taken up all it will (the count stays the same for a second)
prev=-1
for i in $(seq 5); do
	n=$(held "$a_URL" "$a_TOKEN")
	[ "$n" = "$prev" ] && break
	prev=$n
	sleep 1
done
it_eq "512 of the 1040 are held (the total limit)" 512 "$(held "$a_URL" "$a_TOKEN")"
it_eq "the other 528 are answered 503 at once" 528 "$(sed -n 's/^503 //p' "$IT_TMP/flood.out")"
ok=0
for i in 1 2 3; do [ "$(health "$a_URL")" = 200 ] && ok=$((ok + 1)); done
it_eq "the owner's health from 127.0.0.1 answers 3 of 3 during the flood" 3 "$ok"
st=$(curl -s -o /dev/null -w '%{http_code}' -m 2 -H "Authorization: Bearer $a_TOKEN" "$U/devices")
it_eq "an authorised request from 127.0.0.1 answers too" 200 "$st"
body=$(curl -s -m 5 -H "Authorization: Bearer $a_TOKEN" "$a_URL$WAIT")
it_eq "a further wait is refused 503 too_many_waits, naming the limit" "too_many_waits" \
	"$(echo "$body" | jq -r .error.code)"
it_check "... its message names --max-held ($body)" grep -q -- "--max-held" <<<"$body"

# 2. The flooding client goes away: its holds are released at once, not after wait_s=30.
kill "$FLOOD"
wait "$FLOOD" 2>/dev/null
it_check "the departed client's 512 holds are released within 3 s" it_wait_for "0 held" 3 held_is "$a_URL" "$a_TOKEN" 0

# 3. One client address: 100 from 127.0.0.2 alone, 64 held.
python3 "$FT_SOURCE_DIR/tests/integration/holds.py" "$(port_of "$a_URL")" "$WAIT" "$a_TOKEN" 100 1 3 600 \
	>"$IT_TMP/one.out" &
ONE=$!
IT_PIDS+=("$ONE")
it_wait_for "one answered" 30 grep -q unanswered "$IT_TMP/one.out"
it_eq "one client address: 64 held (the per-client limit)" 64 "$(held "$a_URL" "$a_TOKEN")"
it_eq "... and 36 answered 503" 36 "$(sed -n 's/^503 //p' "$IT_TMP/one.out")"
kill "$ONE"
wait "$ONE" 2>/dev/null
it_check "released again" it_wait_for "0 held" 3 held_is "$a_URL" "$a_TOKEN" 0

# 4. Framing (item 16), raw requests.
raw() { python3 "$FT_SOURCE_DIR/tests/integration/raw_http.py" "$(port_of "$a_URL")" 5 | tr '\n' ' '; }
body='{"device":"'$dev'","engine":"fio","fio":{"rw":"randread","bs":"4k","size":"8m","runtime_s":1}}'
len=${#body}
got=$(printf 'POST /api/v1/jobs?dry_run=true HTTP/1.1\nHost: a\nAuthorization: Bearer %s\nContent-Type: application/json\nTransfer-Encoding: chunked\nContent-Length: %d\n\n%x\n%s\n0\n\n' \
	"$a_TOKEN" "$len" "$len" "$body" | raw)
it_eq "chunked and Content-Length together: 400, connection closed" "400 closed " "$got"
got=$(printf 'POST /api/v1/jobs?dry_run=true HTTP/1.1\nHost: a\nAuthorization: Bearer %s\nContent-Type: application/json\nTransfer-Encoding: gzip\n\n%s' \
	"$a_TOKEN" "$body" | raw)
it_eq "an unknown Transfer-Encoding: 501 at once, connection closed (no hang)" "501 closed " "$got"
got=$(printf 'POST /api/v1/jobs?dry_run=true HTTP/1.1\nHost: a\nAuthorization: Bearer %s\nContent-Type: application/json\nTransfer-Encoding: chunked\nTransfer-Encoding: chunked\n\n%x\n%s\n0\n\n' \
	"$a_TOKEN" "$len" "$body" | raw)
it_eq "two Transfer-Encoding headers: 400" "400 closed " "$got"
got=$(printf 'POST /api/v1/jobs?dry_run=true HTTP/1.1\nHost: a\nAuthorization: Bearer %s\nContent-Type: application/json\nTransfer-Encoding: chunked\n\n%x\n%s\n0\n\n' \
	"$a_TOKEN" "$len" "$body" | raw)
it_eq "chunked alone is served (dry run 200)" "200" "${got%% *}"
it_http GET "$U/jobs" "$a_TOKEN"
it_eq "nothing was queued by the refused requests" 1 "$(echo "$HTTP_BODY" | jq '.jobs|length')"

# 5. Anonymous clients hold nothing (--public-read): answered at once, as if the wait ended.
it_agent_start b --allow-device "$dev" --fio "$FAKE" --public-read || exit 1
it_http POST "$b_URL/api/v1/jobs" "$b_TOKEN" "{\"device\":\"$dev\",\"engine\":\"fio\",\"fio\":{\"rw\":\"randread\",\"bs\":\"4k\",\"size\":\"8m\",\"runtime_s\":1}}"
bj=$(echo "$HTTP_BODY" | jq -r .id)
b_done() { curl -s "$b_URL/api/v1/jobs/$bj?fields=state" | jq -e '.state == "succeeded"' >/dev/null; }
it_check "job $bj on b finishes" it_wait_for "b job done" 30 b_done
bv=$(curl -s "$b_URL/api/v1/jobs/$bj?fields=state" | jq -r .version)
t0=$(date +%s.%N)
st=$(curl -s -o "$IT_TMP/anon.out" -w '%{http_code}' -m 20 "$b_URL/api/v1/jobs/$bj?wait_s=10&after=$bv&fields=state")
t=$(echo "$(date +%s.%N) - $t0" | bc)
it_eq "an anonymous long-poll is answered 200" 200 "$st"
it_check "... at once, not held ($t s)" awk -v t="$t" 'BEGIN { exit !(t < 3) }'
it_eq "... with the job as it is" "$bv" "$(jq -r .version "$IT_TMP/anon.out")"
curl -s -o /dev/null -m 20 -H "Authorization: Bearer $b_TOKEN" "$b_URL/api/v1/jobs/$bj?wait_s=10&after=$bv&fields=state" &
HB=$!
it_check "with the token the same wait is held" it_wait_for "1 held" 5 held_is "$b_URL" "$b_TOKEN" 1
kill "$HB" 2>/dev/null
wait "$HB" 2>/dev/null
it_done
