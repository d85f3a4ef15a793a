#!/usr/bin/env bash
# it_agent_basics.sh -- the agent against a temp --sysfs-root tree (no root needed): token file
# (a file group or others may read or write is refused), --public-read, sysctl writes under --allow-sysctl, HTTPS, static files, clean SIGTERM exit.
. "$(dirname "$0")/lib.sh"
it_need_built "$AGENT_BIN"
command -v jq >/dev/null || it_skip "jq not installed"

root="$IT_TMP/root"
mkq() { mkdir -p "$(dirname "$root/$1")"; printf '%s\n' "$2" >"$root/$1"; chmod "${3:-644}" "$root/$1"; }
for d in sdb sdc; do
	mkq sys/block/$d/size 2097152 444
	mkq sys/block/$d/queue/scheduler "[mq-deadline] none"
	mkq sys/block/$d/queue/nr_requests 256
	mkq sys/block/$d/queue/read_ahead_kb 128
	mkq sys/block/$d/queue/rotational 1
	mkq sys/block/$d/queue/logical_block_size 512 444
	mkq sys/block/$d/queue/iosched/fifo_batch 16
	mkq sys/block/$d/device/queue_depth 256
done
mkq proc/sys/vm/dirty_ratio 20
mkq proc/sys/vm/dirty_background_ratio 10
mkq proc/sys/vm/swappiness 60
mkq proc/sys/fs/file-max 9223372036854775807

# 1. token file: created 0600 with 64 hex chars, and used
it_agent_start a --sysfs-root "$root" --allow-device sdb --allow-sysctl || exit 1
U=$a_URL/api/v1
it_eq "token file mode" 600 "$(stat -c %a "$a_STATE/token")"
it_check "token is 64 hex chars" grep -Eq '^[0-9a-f]{64}$' "$a_STATE/token"
it_check "the log says where the token is" grep -q "token in $a_STATE/token" "$a_LOG"
it_http GET "$U/devices" "$a_TOKEN"
it_eq "fake tree devices" '["sdb","sdc"]' "$(echo "$HTTP_BODY" | jq -c '[.devices[].name]')"
it_eq "size from the tree" 1073741824 "$(echo "$HTTP_BODY" | jq '.devices[0].size_bytes')"
it_http GET "$U/devices/sdb/params" "$a_TOKEN"
it_eq "queue_depth from device/" 256 "$(echo "$HTTP_BODY" | jq .params.queue_depth.value)"
it_eq "setra = 2 x read_ahead_kb" 256 "$(echo "$HTTP_BODY" | jq .params.setra.value)"

# 2. sysctl writes under --allow-sysctl go to the temp tree only
it_http PUT "$U/sysctl/vm.dirty_ratio" "$a_TOKEN" '{"value":5}'
it_eq "sysctl PUT" 200 "$HTTP_STATUS"
it_eq "previous" 20 "$(echo "$HTTP_BODY" | jq .previous)"
it_eq "written to the temp tree" 5 "$(cat "$root/proc/sys/vm/dirty_ratio")"
it_http PUT "$U/sysctl/vm.dirty_ratio" "$a_TOKEN" '{"value":101}'
it_eq "out of range: 422" 422 "$HTTP_STATUS"
it_http PUT "$U/sysctl/kernel.panic" "$a_TOKEN" '{"value":1}'
it_eq "unmanaged sysctl: 404" 404 "$HTTP_STATUS"
it_eq "unchanged after errors" 5 "$(cat "$root/proc/sys/vm/dirty_ratio")"
it_http GET "$U/sysctl" "$a_TOKEN"
it_eq "all present sysctls listed" 4 "$(echo "$HTTP_BODY" | jq '.sysctls|length')"
it_http GET "$U/changes?limit=5" "$a_TOKEN"
it_eq "sysctl write audited" vm.dirty_ratio "$(echo "$HTTP_BODY" | jq -r '[.changes[]|select(.outcome=="ok")][0].name')"

# 3. static files with a strict CSP, and no traversal out of the web root
mkdir -p "$IT_TMP/web"
echo '<!doctype html><title>t</title>' >"$IT_TMP/web/index.html"
echo secret >"$IT_TMP/secret.txt"
kill -TERM "$a_PID"
wait "$a_PID"
it_eq "SIGTERM: clean exit" 0 "$?"
it_agent_start a --sysfs-root "$root" --allow-device sdb --web-root "$IT_TMP/web" --public-read || exit 1
U=$a_URL/api/v1
hdr=$(curl -s -D - -o /dev/null "$a_URL/")
it_check "index served" grep -q '200' <<<"$hdr"
it_check "CSP header" grep -qi "content-security-policy: default-src 'self'" <<<"$hdr"
it_eq "traversal out of the web root" 400 "$(curl -s -o /dev/null -w '%{http_code}' "$a_URL/..%2fsecret.txt")"
it_eq "missing page: 404" 404 "$(curl -s -o /dev/null -w '%{http_code}' "$a_URL/nope.html")"

# 4. --public-read: GETs open, writes still need the token
it_http GET "$U/devices/sdb/params" ""
it_eq "public GET" 200 "$HTTP_STATUS"
it_http PUT "$U/devices/sdb/params/nr_requests" "" '{"value":64}'
it_eq "PUT without token under --public-read: 401" 401 "$HTTP_STATUS"
it_http PUT "$U/devices/sdb/params/nr_requests" "$a_TOKEN" '{"value":64}'
it_eq "PUT with token" 200 "$HTTP_STATUS"
it_http PUT "$U/sysctl/vm.dirty_ratio" "$a_TOKEN" '{"value":7}'
it_eq "sysctl write without --allow-sysctl: 403" 403 "$HTTP_STATUS"
it_http PUT "$U/devices/sdc/params/nr_requests" "$a_TOKEN" '{"value":64}'
it_eq "non-allowlisted device: 403" 403 "$HTTP_STATUS"
it_eq "sdc untouched" 256 "$(cat "$root/sys/block/sdc/queue/nr_requests")"
# What --public-read leaves behind the token (issue 23): the audit log (request origins) and
# raw engine output (the host's own disks).
it_http GET "$U/changes" ""
it_eq "the audit log without a token under --public-read: 401" 401 "$HTTP_STATUS"
it_http GET "$U/changes" "$a_TOKEN"
it_eq "... with the token: 200" 200 "$HTTP_STATUS"
it_http GET "$U/jobs/1/raw" ""
it_eq "raw output without a token under --public-read: 401" 401 "$HTTP_STATUS"
it_http GET "$U/jobs" ""
it_eq "the job list stays public" 200 "$HTTP_STATUS"
kill -TERM "$a_PID"
wait "$a_PID"
it_agent_start p --sysfs-root "$root" --public-read --public-read-private || exit 1
it_http GET "$p_URL/api/v1/changes" ""
it_eq "--public-read-private opens the audit log too" 200 "$HTTP_STATUS"
kill -TERM "$p_PID"
wait "$p_PID"

# 5. --token-file and HTTPS
if command -v openssl >/dev/null; then
	openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=127.0.0.1 \
		-keyout "$IT_TMP/key.pem" -out "$IT_TMP/cert.pem" 2>/dev/null
	echo "my-own-token-0123456789abcdef" >"$IT_TMP/tok"
	chmod 600 "$IT_TMP/tok"
	it_agent_start t --sysfs-root "$root" --token-file "$IT_TMP/tok" \
		--tls-cert "$IT_TMP/cert.pem" --tls-key "$IT_TMP/key.pem" || exit 1
	port=${t_URL##*:}
	code=$(curl -s -o /dev/null -w '%{http_code}' --cacert "$IT_TMP/cert.pem" \
		-H "Authorization: Bearer my-own-token-0123456789abcdef" "https://127.0.0.1:$port/api/v1/devices")
	it_eq "HTTPS with --token-file" 200 "$code"
	code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/api/v1/health")
	it_check "plain HTTP is not served on the TLS port ($code)" test "$code" != 200
	it_check "log says https" grep -q "listening on https://" "$t_LOG"
else
	it_log "openssl missing: HTTPS not tested"
fi

# 6. a token file that group or others may read or write stops the start, and is left as it was
tok=$IT_TMP/shared-tok
echo "shared-token-0123456789abcdef" >"$tok"
for mode in 644 640 604 620 602 666; do
	chmod "$mode" "$tok"
	timeout 10 "$AGENT_BIN" --listen 127.0.0.1:0 --state-dir "$IT_TMP/m-state" \
		--sysfs-root "$root" --token-file "$tok" 2>"$IT_TMP/m.err" >/dev/null
	rc=$?
	it_eq "token file mode $mode: the agent does not start" 1 "$rc"
	it_check "mode $mode: the message names the file, its mode and chmod 600" grep -q \
		"token file '$tok' has mode 0$mode: group or others may read or write it; run 'chmod 600'" \
		"$IT_TMP/m.err"
	it_eq "mode $mode: the file is left as it was" "$mode shared-token-0123456789abcdef" \
		"$(stat -c %a "$tok") $(cat "$tok")"
done
it_check "a refused start does not listen" bash -c "! grep -q 'listening on' '$IT_TMP/m.err'"
chmod 600 "$tok"
it_agent_start m --sysfs-root "$root" --token-file "$tok" || exit 1
it_http GET "$m_URL/api/v1/devices" "shared-token-0123456789abcdef"
it_eq "the same file at mode 600 is used" 200 "$HTTP_STATUS"
kill -TERM "$m_PID"
wait "$m_PID"
# the default STATE_DIR/token is checked the same way
mkdir -p "$IT_TMP/d-state"
echo "default-token-0123456789abcdef" >"$IT_TMP/d-state/token"
chmod 644 "$IT_TMP/d-state/token"
timeout 10 "$AGENT_BIN" --listen 127.0.0.1:0 --state-dir "$IT_TMP/d-state" --sysfs-root "$root" \
	2>"$IT_TMP/d.err" >/dev/null
it_eq "STATE_DIR/token at mode 644: the agent does not start" 1 "$?"
it_check "the message names STATE_DIR/token" grep -q "token file '$IT_TMP/d-state/token' has mode 0644" \
	"$IT_TMP/d.err"
chmod 600 "$IT_TMP/d-state/token"
it_agent_start d --sysfs-root "$root" || exit 1
it_eq "STATE_DIR/token at mode 600 is used" default-token-0123456789abcdef "$d_TOKEN"
it_http GET "$d_URL/api/v1/devices" "$d_TOKEN"
it_eq "and accepted" 200 "$HTTP_STATUS"
kill -TERM "$d_PID"
wait "$d_PID"

# 7. a 0-byte token (what a crash right after the first start left when the file was written
# without fsync, issue 31 item 16) or a damaged one stops the start with what to do, and is left
# as it was; a new token is written whole (no temporary file beside it).
mkdir -p -m 700 "$IT_TMP/z-state"
for content in "" "garbage-token-with-a-NUL-0123456789"; do
	if [ -n "$content" ]; then printf '%s\0\n' "$content" >"$IT_TMP/z-state/token"; else : >"$IT_TMP/z-state/token"; fi
	chmod 600 "$IT_TMP/z-state/token"
	size=$(stat -c %s "$IT_TMP/z-state/token")
	timeout 10 "$AGENT_BIN" --listen 127.0.0.1:0 --state-dir "$IT_TMP/z-state" --sysfs-root "$root" \
		2>"$IT_TMP/z.err" >/dev/null
	it_eq "token file of $size bytes: the agent does not start" 1 "$?"
	it_check "... the message names the file and what to do" grep -Eq \
		"token file '$IT_TMP/z-state/token' is (empty \(cut short by a crash\?\): remove it|damaged: byte [0-9]+ is not printable ASCII)" \
		"$IT_TMP/z.err"
	it_eq "... the file is left as it was" "$size" "$(stat -c %s "$IT_TMP/z-state/token")"
done
rm "$IT_TMP/z-state/token"
it_agent_start z --sysfs-root "$root" || exit 1
it_check "a new token is made whole" grep -Eq '^[0-9a-f]{64}$' "$z_STATE/token"
it_eq "... and no temporary file is left beside it" "" "$(ls "$z_STATE" | grep '^token.')"

it_done
