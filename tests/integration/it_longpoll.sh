#!/bin/bash
# it_longpoll.sh -- a job watched by long-poll on a real agent, a loop device and real fio: every
# answer carries a new version (a pass landing among them) and their number does not grow with
# the runtime; a wait on a finished job ends with the same version, past the idle timeout; 300
# held requests at once while the agent still answers others; the agent shut down (503) and
# crashed (connection cut) mid-wait, and the wait re-armed on the restarted agent answered at
# once (a queued job taken up again, a running one interrupted with its reason); a job it does
# not have is 404.
source "$(dirname "$0")/lib.sh"

it_need_root_sysfs
command -v fio >/dev/null || it_skip "fio not installed"
command -v jq >/dev/null || it_skip "jq not installed"
dev=$(it_loop_create 96M)
# An idle timeout of 1 s: a held request must outlive it.
args=(--allow-device "$dev" --connection-timeout-s 1 --max-connections-per-ip 400 --max-held-per-ip 300)
it_agent_start a "${args[@]}" || { it_fail "agent starts"; it_done; }
H="Authorization: Bearer $a_TOKEN"
FIELDS=state,progress,loops_done,passes

# lp URL: one request; sets LP_CODE (HTTP status, 000 when the connection broke), LP_BODY,
# LP_S (seconds it took) and LP_RC (curl's exit status).
lp() {
	local out=$IT_TMP/lp.out t0 t1
	t0=$(date +%s.%N)
	LP_CODE=$(curl -s -o "$out" -w '%{http_code}' --max-time 70 -H "$H" "$1")
	LP_RC=$?
	t1=$(date +%s.%N)
	LP_BODY=$(cat "$out" 2>/dev/null)
	LP_S=$(echo "$t1 - $t0" | bc)
}
job_post() {
	it_http POST "$a_URL/api/v1/jobs" "$a_TOKEN" "{\"device\":\"$dev\",\"engine\":\"fio\",\"loops\":$1,
	  \"fio\":{\"rw\":\"randread\",\"bs\":\"64k\",\"ioengine\":\"psync\",\"size\":\"32m\",
	           \"runtime_s\":$2,\"time_based\":true,\"rate_iops\":1024}}"
	echo "$HTTP_BODY" | jq -r .id
}
held() {
	curl -s -H "$H" "$1/metrics" | sed -n 's/^fleettune_http_held_requests \([0-9]*\)$/\1/p'
}
# rearm URL WHAT: a long-poll of 60 s answered 200 at once.
rearm() {
	lp "$1"
	it_eq "$2: answered at once" 200 "$LP_CODE"
	it_check "... in well under the wait ($LP_S s)" awk -v s="$LP_S" 'BEGIN { exit !(s < 30) }'
}
held_is() { test "$(held "$a_URL")" = "$1"; }
job_state_is() {
	test "$(curl -s -H "$H" "$a_URL/api/v1/jobs/$1?fields=state" | jq -r .state)" = "$2"
}

# 1. Watch a 2-loop job to its end, re-arming on each answer.
jid=$(job_post 2 1)
it_check "job $jid queued" [ "$jid" -gt 0 ]
v=0 answers=0 saw_pass=0 state=queued changed=1
while [ "$state" != succeeded ] && [ "$answers" -lt 40 ]; do
	lp "$a_URL/api/v1/jobs/$jid?wait_s=30&after=$v&fields=$FIELDS"
	[ "$LP_CODE" = 200 ] || { it_fail "long-poll answered $LP_CODE: $LP_BODY"; break; }
	answers=$((answers + 1))
	nv=$(echo "$LP_BODY" | jq .version)
	[ "$nv" != "$v" ] || changed=0
	v=$nv
	state=$(echo "$LP_BODY" | jq -r .state)
	if [ "$state" = running ] && [ "$(echo "$LP_BODY" | jq .loops_done)" = 1 ]; then
		[ "$(echo "$LP_BODY" | jq '.passes | length')" = 1 ] && saw_pass=1
	fi
done
it_eq "the watched job succeeded" succeeded "$state"
it_eq "every answer came with a new version (none was a timeout or spurious)" 1 "$changed"
it_eq "an answer came when the first pass landed, with that pass" 1 "$saw_pass"
# queued/running, up to 10 progress steps, 2 passes, the end: bounded whatever the runtime.
it_check "$answers answers for a 2-loop job (at most 15)" [ "$answers" -le 15 ]
it_eq "the light form carries only the fields asked for" '["id","loops_done","passes","progress","state","version"]' \
	"$(echo "$LP_BODY" | jq -c 'keys')"

# 2. Nothing changes on a finished job: the wait ends after wait_s (twice the idle timeout),
# with the same version.
lp "$a_URL/api/v1/jobs/$jid?wait_s=2&after=$v&fields=state"
it_eq "a wait that times out is 200" 200 "$LP_CODE"
it_eq "... with the same version" "$v" "$(echo "$LP_BODY" | jq .version)"
it_check "... after the wait, not before, and not cut by the 1 s idle timeout ($LP_S s)" \
	awk -v s="$LP_S" 'BEGIN { exit !(s >= 1.9 && s < 30) }'

# 3. 300 requests held at once (2 cores: a thread pool of 2), and the agent still answers.
args3=()
for _ in $(seq 300); do args3+=(-o /dev/null "$a_URL/api/v1/jobs/$jid?wait_s=4&after=$v&fields=state"); done
curl -s -Z --parallel-immediate --parallel-max 300 -H "$H" -w '%{http_code}\n' "${args3[@]}" \
	>"$IT_TMP/many.codes" 2>/dev/null &
many=$!
it_check "300 requests are held at once" it_wait_for "300 held" 20 held_is 300
it_http GET "$a_URL/api/v1/health" ""
it_eq "while 300 are held, health answers" 200 "$HTTP_STATUS"
wait "$many"
it_eq "all 300 are answered 200 when their wait ends" 300 "$(grep -c '^200$' "$IT_TMP/many.codes")"
it_eq "none is held any more" 0 "$(held "$a_URL")"

# 4. The agent shuts down while a request is held: 503 shutting_down. The wait is on a job
# queued behind a long one, so nothing but the shutdown can end it. Restarted, the agent
# takes the queued job up again, and the same wait re-armed answers at once with it running
# (a new version); the long job it was running is interrupted.
jlong=$(job_post 1 60)
it_wait_for "job $jlong running" 20 job_state_is "$jlong" running
jq1=$(job_post 1 60)
lp "$a_URL/api/v1/jobs/$jq1?fields=state"
it_eq "job $jq1 waits in the queue" queued "$(echo "$LP_BODY" | jq -r .state)"
v=$(echo "$LP_BODY" | jq .version)
out=$IT_TMP/held.out
curl -s -o "$out" -w '%{http_code}' -H "$H" --max-time 70 \
	"$a_URL/api/v1/jobs/$jq1?wait_s=60&after=$v&fields=state" >"$IT_TMP/held.code" &
waiter=$!
it_check "the wait is held" it_wait_for "1 held" 20 held_is 1
kill -TERM "$a_PID"
wait "$waiter"
it_eq "a held request is answered 503 when the agent shuts down" 503 "$(cat "$IT_TMP/held.code")"
it_eq "... with code shutting_down" shutting_down "$(jq -r .error.code "$out")"
wait "$a_PID" 2>/dev/null
it_agent_start a "${args[@]}" || { it_fail "agent restarts"; it_done; }
rearm "$a_URL/api/v1/jobs/$jq1?wait_s=60&after=$v&fields=state,error" "re-armed on the restarted agent"
it_eq "... the queued job was taken up again" running "$(echo "$LP_BODY" | jq -r .state)"
it_check "... with a new version" [ "$(echo "$LP_BODY" | jq .version)" != "$v" ]
lp "$a_URL/api/v1/jobs/$jlong?fields=state,error"
it_eq "the job running at the shutdown was interrupted" "interrupted interrupted" \
	"$(echo "$LP_BODY" | jq -r '.state + " " + .error.code')"

# 5. The agent is killed while requests are held: their connections break. Restarted, a wait
# re-armed on the job that was running answers at once: interrupted, saying why.
jrun=$jq1
lp "$a_URL/api/v1/jobs/$jrun?fields=state"
vrun=$(echo "$LP_BODY" | jq .version)
jq2=$(job_post 1 60)
lp "$a_URL/api/v1/jobs/$jq2?fields=state"
v=$(echo "$LP_BODY" | jq .version)
curl -s -o /dev/null -w '%{http_code}' -H "$H" --max-time 70 \
	"$a_URL/api/v1/jobs/$jq2?wait_s=60&after=$v&fields=state" >"$IT_TMP/crash.code" &
waiter=$!
it_check "the wait is held" it_wait_for "1 held" 20 held_is 1
dev_fio() {
	local p
	for p in $(pgrep -x fio); do
		{ tr '\0' ' ' <"/proc/$p/cmdline"; } 2>/dev/null | grep -q -- "--filename=/dev/$dev " && echo "$p"
	done
}
mapfile -t old_fio < <(dev_fio)
it_check "job $jrun runs fio (${old_fio[*]})" [ "${#old_fio[@]}" -gt 0 ]
kill -KILL "$a_PID"
wait "$waiter"
rc=$?
it_check "a held request sees its connection cut when the agent dies (curl $rc, HTTP $(cat "$IT_TMP/crash.code"))" \
	[ "$rc" = 52 -o "$rc" = 56 ]
wait "$a_PID" 2>/dev/null
it_agent_start a "${args[@]}" || { it_fail "agent restarts after a crash"; it_done; }
rearm "$a_URL/api/v1/jobs/$jrun?wait_s=60&after=$vrun&fields=state,error" "re-armed after the crash"
it_eq "... the job was interrupted" interrupted "$(echo "$LP_BODY" | jq -r .state)"
it_eq "... and says why" "the agent stopped while the job was running" \
	"$(echo "$LP_BODY" | jq -r .error.message)"
gone() {
	local p
	for p in "$@"; do kill -0 "$p" 2>/dev/null && return 1; done
	return 0
}
it_check "the crashed agent's fio (${old_fio[*]}) was killed" it_wait_for "old fio gone" 20 gone "${old_fio[@]}"

# 6. A job the agent does not have: 404 at once, not a wait.
lp "$a_URL/api/v1/jobs/99999?wait_s=60&after=1"
it_eq "a wait on a job the agent does not have is 404" 404 "$LP_CODE"
it_eq "... not_found" not_found "$(echo "$LP_BODY" | jq -r .error.code)"
it_check "... at once ($LP_S s)" awk -v s="$LP_S" 'BEGIN { exit !(s < 30) }'
it_done
