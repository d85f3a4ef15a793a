#!/usr/bin/env bash
# it_jobdir.sh -- job files as root cannot be aimed (issue 23 items 1, 2, 13): a link planted in
# an --allow-dir under the name the next job's file will have writes nothing through it (the
# victim keeps its bytes, the link stays); a queued job whose directory was swapped for a link
# after submit fails "dir_changed" and writes nothing outside; a directory with a line break
# is refused by the dry run and the real POST.
source "$(dirname "$0")/lib.sh"

it_need_root_sysfs
command -v jq >/dev/null || it_skip "jq not installed"
command -v dd >/dev/null || it_skip "dd not installed"
dev=$(it_loop_create 64M)
dir=$IT_TMP/allowed
out=$IT_TMP/outside
mkdir -p "$dir" "$out"
FAKE=$FT_SOURCE_DIR/tests/fixtures/fake-fio.sh
it_agent_start a --allow-device "$dev" --allow-dir "$dir" --fio "$FAKE" || exit 1
U=$a_URL/api/v1
T=$a_TOKEN
job_state() { curl -s -H "Authorization: Bearer $T" "$U/jobs/$1" | jq -r .state; }
final() { case $(job_state "$1") in succeeded|failed|cancelled|interrupted) return 0 ;; esac; return 1; }

# 1. The next job is job 1: plant links under every name its files could have.
printf 'precious' >"$out/victim"
ln -s "$out/victim" "$dir/ft-job1-l1.dd"
ln -s "$out/victim" "$dir/ft-job1-l1"
it_http POST "$U/jobs" "$T" "{\"device\":\"$dev\",\"engine\":\"dd\",\"dd\":{\"count\":2,\"bs\":\"1m\"},\"directory\":\"$dir\"}"
it_eq "the dd job is accepted" "202 1" "$HTTP_STATUS $(echo "$HTTP_BODY" | jq .id)"
it_check "job 1 ends" it_wait_for "job 1" 60 final 1
it_eq "job 1 succeeds, in a directory of its own" succeeded "$(job_state 1)"
it_eq "the victim behind the planted links keeps its bytes" precious "$(cat "$out/victim")"
it_check "the planted links are left alone" test -L "$dir/ft-job1-l1.dd" -a -L "$dir/ft-job1-l1"
it_eq "nothing of the pass is left in the directory" "ft-job1-l1 ft-job1-l1.dd" "$(ls "$dir" | tr '\n' ' ' | sed 's/ $//')"
rm -f "$dir/ft-job1-l1.dd" "$dir/ft-job1-l1"

# 2. Checked at use: a job queued behind a running one, its directory swapped for a link.
mkdir -p "$dir/swap2/inner" "$out/inner"
it_http POST "$U/jobs" "$T" "{\"device\":\"$dev\",\"engine\":\"fio\",\"fio\":{\"rw\":\"read\",\"bs\":\"4k\",\"runtime_s\":3,\"time_based\":true,\"rate_iops\":1024}}"
busy=$(echo "$HTTP_BODY" | jq .id)
it_http POST "$U/jobs" "$T" "{\"device\":\"$dev\",\"engine\":\"dd\",\"dd\":{\"count\":2,\"bs\":\"1m\"},\"directory\":\"$dir/swap2/inner\"}"
it_eq "a dd job in $dir/swap2/inner is queued" 202 "$HTTP_STATUS"
swapped=$(echo "$HTTP_BODY" | jq .id)
it_eq "... behind the running one" queued "$(job_state "$swapped")"
before=$(stat -c %y "$out/inner")
mv "$dir/swap2" "$dir/swap2.old"
ln -s "$out" "$dir/swap2"
it_check "the swapped job ends" it_wait_for "job $swapped" 60 final "$swapped"
it_http GET "$U/jobs/$swapped" "$T"
it_eq "it fails: the directory changed since submit" "failed dir_changed" \
	"$(echo "$HTTP_BODY" | jq -r '.state + " " + (.error.code // "")')"
it_check "... the message names the component ($(echo "$HTTP_BODY" | jq -r .error.message))" \
	grep -q "'swap2'" <<<"$(echo "$HTTP_BODY" | jq -r .error.message)"
it_eq "nothing was written outside the allowed directory" "$before" "$(stat -c %y "$out/inner")"
it_eq "... the outside directory is empty" "" "$(ls -A "$out/inner")"
it_check "the running job was not disturbed" it_wait_for "job $busy" 60 final "$busy"
it_eq "... and succeeded" succeeded "$(job_state "$busy")"

# 13. A directory with a line break: refused by the dry run and the real POST alike.
nl_dir="$dir/a
b"
mkdir -p "$nl_dir"
body=$(jq -cn --arg d "$nl_dir" --arg dev "$dev" '{device:$dev,engine:"fio",fio:{rw:"read",bs:"4k",size:"8m",runtime_s:1},directory:$d}')
it_http POST "$U/jobs?dry_run=true" "$T" "$body"
it_eq "a directory with a line break: the dry run refuses it (400)" 400 "$HTTP_STATUS"
it_check "... naming the control character" grep -q "control character" <<<"$HTTP_BODY"
it_http POST "$U/jobs" "$T" "$body"
it_eq "... and so does the real POST" 400 "$HTTP_STATUS"
it_done
