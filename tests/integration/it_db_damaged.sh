#!/usr/bin/env bash
# it_db_damaged.sh -- a database the agent cannot trust stops it at start, with a message that
# names the file and says what to do: garbage in pages 2 and up of agent.db (after a crash
# left a session open), a file that is no database, a state directory that cannot be written.
# Recovery is never skipped silently, and moving the file aside starts a new database.
. "$(dirname "$0")/lib.sh"
it_need_root_sysfs
command -v python3 >/dev/null || it_skip "python3 not installed"

dev=$(it_loop_create 64M)
state=$IT_TMP/a-state
ro_mounted=""
finish() {
	[ -n "$ro_mounted" ] && umount "$ro_mounted" 2>/dev/null
	it_cleanup
}
trap finish EXIT

nr() { cat /sys/block/$dev/queue/nr_requests; }
orig=$(nr)

# start_refused DESC: the agent must exit 1 within 20 s without listening; its log is $IT_TMP/refused.log
start_refused() {
	local rc
	timeout 20 "$AGENT_BIN" --listen 127.0.0.1:0 --node-name a --state-dir "$state" \
		--allow-device "$dev" 2>"$IT_TMP/refused.log"
	rc=$?
	it_eq "$1: the agent refuses to start" 1 "$rc"
	it_check "$1: it never listened" bash -c "! grep -q 'listening on' '$IT_TMP/refused.log'"
}

# 1. A crash leaves a session open with the device tuned; then pages 2+ of agent.db are garbage.
it_agent_start a --allow-device "$dev" || exit 1
U=$a_URL/api/v1
it_http POST "$U/devices/$dev/sessions" "$a_TOKEN" '{"ttl_s":600}'
it_eq "session opened" 201 "$HTTP_STATUS"
# Rows enough for several pages, so that the damage hits tables and indexes.
for i in $(seq 30); do
	it_http PATCH "$U/devices/$dev/params" "$a_TOKEN" "{\"params\":{\"nr_requests\":$((32 + i))}}"
done
it_eq "tuned" $((32 + 30)) "$(nr)"
kill -9 "$a_PID"
wait "$a_PID" 2>/dev/null
# What the crash left in the WAL goes into the file first, as a later clean open would do.
python3 -c "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute('PRAGMA wal_checkpoint(TRUNCATE)'); c.close()" "$state/agent.db"
pages=$(( $(stat -c %s "$state/agent.db") / 4096 ))
it_log "agent.db: $pages pages of 4096 bytes"
it_check "agent.db has pages 2 and up" test "$pages" -ge 3
python3 - "$state/agent.db" <<'PY'
import sys
with open(sys.argv[1], "r+b") as f:
    f.seek(4096)
    size = f.seek(0, 2) - 4096
    f.seek(4096)
    f.write(bytes((i * 131 + 7) & 0xff for i in range(size)))
PY
start_refused "garbage in pages 2+"
it_check "the message names the file" grep -q "database '$state/agent.db' is damaged" "$IT_TMP/refused.log"
it_check "the message says to move it aside" grep -q "move it aside and start again" "$IT_TMP/refused.log"
it_check "the message says the restore snapshots are lost" \
	grep -q "the restore snapshots of open sessions and running jobs it holds are lost" "$IT_TMP/refused.log"
it_check "the log says how" grep -q "mv $state/agent.db $state/agent.db.damaged" "$IT_TMP/refused.log"
it_eq "nothing was restored from a damaged file" $((32 + 30)) "$(nr)"

# Moving it aside starts a new database (the snapshots are gone: put the device back by hand).
mv "$state/agent.db" "$state/agent.db.damaged"
rm -f "$state/agent.db-wal" "$state/agent.db-shm"
it_agent_start a --allow-device "$dev" || exit 1
it_http GET "$a_URL/api/v1/sessions" "$a_TOKEN"
it_eq "a new database: no sessions" 0 "$(echo "$HTTP_BODY" | jq '.sessions | length')"
it_http PATCH "$a_URL/api/v1/devices/$dev/params" "$a_TOKEN" "{\"params\":{\"nr_requests\":$orig}}"
it_eq "put back by hand" "$orig" "$(nr)"
kill -TERM "$a_PID"
wait "$a_PID"

# 2. A file that is no database at all.
cp "$state/agent.db" "$IT_TMP/good.db"
head -c 20000 /dev/urandom >"$state/agent.db"
rm -f "$state/agent.db-wal" "$state/agent.db-shm"
start_refused "not a database"
it_check "the message names the file" grep -q "database '$state/agent.db' is damaged" "$IT_TMP/refused.log"
it_check "the log says what SQLite found" grep -q "file is not a database" "$IT_TMP/refused.log"
cp "$IT_TMP/good.db" "$state/agent.db"

# 3. A state directory that cannot be written (read-only bind mount): named as the cause.
mount --bind "$state" "$state" && ro_mounted=$state &&
	mount -o remount,ro,bind "$state" || it_skip "cannot bind-mount read-only here"
start_refused "read-only state directory"
it_check "the message names the file and the cause" \
	grep -q "cannot open the state directory's lock '$state/lock': .*can this user write the file and its directory" \
	"$IT_TMP/refused.log"
umount "$state" && ro_mounted=""
it_agent_start a --allow-device "$dev" || exit 1
it_eq "writable again: the agent starts" 200 \
	"$(curl -s -o /dev/null -w '%{http_code}' "$a_URL/api/v1/health")"
it_done
