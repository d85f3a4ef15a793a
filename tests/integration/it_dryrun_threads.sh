#!/usr/bin/env bash
# it_dryrun_threads.sh -- mkfs dry runs do not hold the HTTP threads (issue 31 item 8), on a real
# loop device with real mkfs: 8 clients doing filesystem dry runs back to back leave health fast
# (its p95 printed and bounded), and two dry runs whose mkfs stalls (a stand-in mkfs.xfs that
# sleeps on -N, as a slow or failing disk would) leave health answering at once while they wait;
# past the worker pool's queue a dry run is answered 503 busy at once.
source "$(dirname "$0")/lib.sh"

it_need_root_sysfs
command -v jq >/dev/null || it_skip "jq not installed"
command -v mkfs.ext4 >/dev/null || it_skip "e2fsprogs not installed"
command -v mkfs.xfs >/dev/null || it_skip "xfsprogs not installed"
command -v python3 >/dev/null || it_skip "python3 not installed"
grep -qw xfs /proc/filesystems || modprobe -q xfs 2>/dev/null || true
grep -qw xfs /proc/filesystems || it_skip "the kernel has no xfs"
dev=$(it_loop_create 512M)
here=$(dirname "$0")
# A mkfs.xfs that sleeps STALL_S on its dry run (-N) and is the real one otherwise.
mkdir -p "$IT_TMP/bin"
real_xfs=$(command -v mkfs.xfs)
cat >"$IT_TMP/bin/mkfs.xfs" <<EOS
#!/bin/sh
for a in "\$@"; do [ "\$a" = -N ] && [ -f "$IT_TMP/stall" ] && sleep "\$(cat "$IT_TMP/stall")"; done
exec "$real_xfs" "\$@"
EOS
chmod +x "$IT_TMP/bin/mkfs.xfs"
PATH="$IT_TMP/bin:$PATH" it_agent_start a --allow-device "$dev" --allow-format="$dev" || exit 1
U=$a_URL/api/v1
T=$a_TOKEN
ext4="{\"device\":\"$dev\",\"engine\":\"fio\",\"fio\":{\"rw\":\"write\",\"bs\":\"1m\",\"size\":\"16m\"},\"filesystem\":{\"type\":\"ext4\"}}"
xfs="{\"device\":\"$dev\",\"engine\":\"fio\",\"fio\":{\"rw\":\"write\",\"bs\":\"1m\",\"size\":\"16m\"},\"filesystem\":{\"type\":\"xfs\"}}"

it_http POST "$U/jobs?dry_run=true" "$T" "$ext4"
it_eq "an ext4 dry run answers" "200 mkfs.ext4" "$HTTP_STATUS $(jq -r '.filesystem.mkfs | split(" ")[0]' <<<"$HTTP_BODY")"

# 1. 8 clients doing ordinary dry runs for 5 s.
out=$(python3 "$here/dryrun_load.py" "$a_URL" "$T" 8 5 "$ext4")
it_log "8 clients, ext4 dry runs, 5 s: $out"
p95=$(sed -n 's/.* p95=\([0-9.]*\) .*/\1/p' <<<"$out")
it_check "health p95 under 1 s while 8 clients do dry runs (the issue measured 2.2 s)" test "$(echo "$p95 < 1" | bc)" = 1
it_check "... no health request timed out" grep -q " timeouts=0 " <<<"$out"
it_check "... and the dry runs were answered" grep -Eq "statuses=200:[0-9]+" <<<"$out"

# 2. Two dry runs whose mkfs stalls for 8 s (past the ten health requests below, about 4 s):
# health answers at once meanwhile.
echo 8 >"$IT_TMP/stall"
pids=()
for i in 1 2; do
	curl -s -o "$IT_TMP/stalled-$i.out" -w '%{http_code}' -m 60 -X POST -H "Authorization: Bearer $T" \
		--data-binary "$xfs" "$U/jobs?dry_run=true" >"$IT_TMP/stalled-$i.code" &
	pids+=($!)
done
sleep 1
slow=0
for i in $(seq 10); do
	t=$(curl -s -o /dev/null -w '%{time_total}' -m 30 "$U/health")
	it_log "health during two stalled dry runs: $t s"
	[ "$(echo "$t < 3" | bc)" = 1 ] || slow=$((slow + 1))
	sleep 0.3
done
it_eq "health answered within 3 s every time while two dry runs stalled (the issue measured 55 s)" 0 "$slow"
it_http GET "$U/devices/$dev/params" "$T"
it_eq "... so did an authenticated GET" 200 "$HTTP_STATUS"
wait "${pids[@]}"
it_eq "the stalled dry runs were answered once mkfs came back" "200 200" \
	"$(cat "$IT_TMP/stalled-1.code") $(cat "$IT_TMP/stalled-2.code")"

# 3. Past the slow-work queue (16 waiting behind the running one) a dry run is answered 503 busy
# at once, and the queued ones are answered once mkfs comes back.
echo 3 >"$IT_TMP/stall"
pids=()
for i in $(seq 18); do
	curl -s -o "$IT_TMP/q-$i.out" -w '%{http_code}' -m 60 -X POST -H "Authorization: Bearer $T" \
		--data-binary "$xfs" "$U/jobs?dry_run=true" >"$IT_TMP/q-$i.code" &
	pids+=($!)
	sleep 0.05
done
sleep 1
it_eq "... one of 18 is refused at once" 1 "$(grep -lx 503 "$IT_TMP"/q-*.code 2>/dev/null | wc -l)"
it_check "... 503 busy, saying why" grep -q '"code":"busy".*16 slow requests' "$IT_TMP"/q-*.out
rm -f "$IT_TMP/stall"
wait "${pids[@]}"
it_eq "... the other 17 are answered 200" 17 "$(grep -lx 200 "$IT_TMP"/q-*.code | wc -l)"
it_done
