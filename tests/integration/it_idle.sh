#!/bin/bash
# it_idle.sh -- an idle agent reads only what it is asked or allowed: on a temp --sysfs-root tree
# with sdb (--allow-device) and sdc (not allowed), both with a diskseq, the agent's file opens are
# watched with strace. Without a profile it opens nothing at all while idle; with a profile that
# matches both (devices "sd*"), its passes (a scan every second, a comparison every --drift-check-s)
# open files of sdb only, never sdc's, which a request's look still reports (not_allowed); a
# /metrics scrape opens sdb's diskseq, scheduler and writable files only, the read-only ones
# being kept per medium.
source "$(dirname "$0")/lib.sh"

command -v strace >/dev/null || it_skip "strace not installed"
[ "$(id -u)" = 0 ] || it_skip "strace -p needs root here"
mkdev() { # NAME SEQ
	local q=$IT_TMP/root/sys/block/$1/queue
	mkdir -p "$q/iosched"
	echo 2097152 >"$IT_TMP/root/sys/block/$1/size"
	echo "$2" >"$IT_TMP/root/sys/block/$1/diskseq"
	echo "none [mq-deadline] kyber" >"$q/scheduler"
	echo 64 >"$q/nr_requests"
	echo 128 >"$q/read_ahead_kb"
	echo 512 >"$q/hw_sector_size"
	chmod 0444 "$q/hw_sector_size" "$IT_TMP/root/sys/block/$1/diskseq"
	echo 16 >"$q/iosched/fifo_batch"
}
mkdev sdb 11
mkdev sdc 12
it_agent_start idle --sysfs-root "$IT_TMP/root" --allow-device sdb --drift-check-s 2 || exit 1

# opens SECONDS [CMD...]: the files the agent opened (openat) below the tree in SECONDS, while
# CMD runs; one path a line, the tree's prefix cut.
opens() {
	local s=$1 out=$IT_TMP/strace.$RANDOM
	shift
	strace -f -qq -e trace=openat,open -p "$idle_PID" -o "$out" &
	local st=$!
	sleep 0.5
	[ $# -gt 0 ] && "$@" >/dev/null
	sleep "$s"
	kill "$st" 2>/dev/null
	wait "$st" 2>/dev/null
	# openat(DIRFD, "name") of a directory's files shows the bare name: kept as it is.
	grep -v ENOENT "$out" | grep -o 'open[a-z]*([^"]*"[^"]*"' | sed 's/^[^"]*"//; s/"$//' |
		grep -v '^/\(proc\|dev\|etc\|usr\|lib\)' | sed "s|^$IT_TMP/root/||"
}
sleep 1.5 # past the start's own reads
o=$(opens 3)
it_eq "no profile: no file opened in 3 s of idle" "" "$o"

it_http PUT "$idle_URL/api/v1/profiles/ra" "$idle_TOKEN" \
	'{"match":{"devices":["sd*"]},"params":{"read_ahead_kb":256}}'
it_eq "a profile matching sd* is kept" 201 "$HTTP_STATUS"
it_http GET "$idle_URL/api/v1/profiles/ra" "$idle_TOKEN"
it_check "a request's look reports sdc as not_allowed and sdb as held" \
	jq -e '(.devices[] | select(.device == "sdc") | .state == "not_allowed") and
	       (.devices[] | select(.device == "sdb") | .state == "held")' <<<"$HTTP_BODY"
sleep 1
o=$(opens 4.5)
it_log "opens in 4.5 s with the profile: $(echo "$o" | wc -l) ($(echo "$o" | sort | uniq -c | sort -rn | head -5 | tr -s ' ' | tr '\n' ';'))"
it_check "the passes opened sdb's files" grep -q '^sys/block/sdb/' <<<"$o"
it_eq "and never sdc's" "" "$(grep '^sys/block/sdc' <<<"$o")"

auth=(-H "Authorization: Bearer $idle_TOKEN")
curl -s "${auth[@]}" -o /dev/null "$idle_URL/metrics" # the first read lists the catalogue
o=$(opens 0.5 curl -s "${auth[@]}" -o /dev/null "$idle_URL/metrics")
it_log "a /metrics scrape opened: $(echo "$o" | tr '\n' ' ')"
it_eq "a scrape opens nothing of sdc" "" "$(grep '^sys/block/sdc' <<<"$o")"
it_eq "nor sdb's read-only files (kept per medium)" "" "$(grep 'hw_sector_size' <<<"$o")"
it_eq "nor lists its directories" "" "$(grep -x 'sys/block/sdb/queue' <<<"$o")"
it_check "but reads its writable ones" grep -q 'sys/block/sdb/queue/nr_requests' <<<"$o"
new_medium() {
	echo 13 >"$IT_TMP/root/sys/block/sdb/diskseq"
	curl -s "${auth[@]}" -o /dev/null "$idle_URL/metrics"
}
o=$(opens 1.5 new_medium)
# Read whole by the scrape, or by the profile's pass that saw the medium appear and applied it.
it_eq "a new medium (diskseq) is read whole once" 1 "$(grep -c 'hw_sector_size' <<<"$o")"
it_done
