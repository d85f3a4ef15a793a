#!/usr/bin/env bash
# it_agent_state.sh -- the agent's start-up words and files: a busy port is named in the error
# (the real port, and the kernel's reason); a new state directory is made 0700 and its
# agent.db (with its -wal) 0600; an existing wider directory or database is left as it is,
# with a warning naming it and the chmod that fixes it.
. "$(dirname "$0")/lib.sh"
it_need_built "$AGENT_BIN"
command -v python3 >/dev/null || it_skip "python3 not installed"

mode() { stat -c %a "$1"; }

# 1. A busy port: another process listens on it; the agent refuses to start and says which
# address and why.
python3 -c '
import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen()
print(s.getsockname()[1], flush=True)
time.sleep(60)' >"$IT_TMP/busy.port" &
busy_pid=$!
IT_PIDS+=("$busy_pid")
it_wait_for "the port holder" 10 test -s "$IT_TMP/busy.port"
port=$(cat "$IT_TMP/busy.port")
timeout 30 "$AGENT_BIN" --listen "127.0.0.1:$port" --state-dir "$IT_TMP/busy-state" 2>"$IT_TMP/busy.log"
rc=$?
cat "$IT_TMP/busy.log"
it_check "busy port: the agent exits non-zero (exit $rc)" test "$rc" -ne 0 -a "$rc" -ne 124
it_check "busy port: the error names 127.0.0.1:$port and the kernel's reason" \
	grep -q "cannot listen on 127.0.0.1:$port: Address already in use" "$IT_TMP/busy.log"
it_check "busy port: nothing says port 0" bash -c "! grep -q 'port 0' '$IT_TMP/busy.log'"
kill "$busy_pid" 2>/dev/null

# 2. A new state directory (and its parent): 0700, agent.db and its -wal 0600, token 0600,
# and no warning.
state="$IT_TMP/new/state"
it_agent_start fresh --state-dir "$state" || exit 1
# it_agent_start made $IT_TMP/fresh-state; the agent was told to use $state instead.
it_http GET "$fresh_URL/api/v1/health" ""
it_eq "fresh: the agent answers" 200 "$HTTP_STATUS"
it_eq "fresh: state directory 0700" 700 "$(mode "$state")"
it_eq "fresh: agent.db 0600" 600 "$(mode "$state/agent.db")"
[ -e "$state/agent.db-wal" ] && it_eq "fresh: agent.db-wal 0600" 600 "$(mode "$state/agent.db-wal")"
it_eq "fresh: token 0600" 600 "$(mode "$state/token")"
it_check "fresh: no mode warning" bash -c "! grep -q 'is mode' '$fresh_LOG'"
kill -TERM "$fresh_PID"
it_wait_for "fresh agent to stop" 10 bash -c "! kill -0 $fresh_PID 2>/dev/null"

# 3. The same files made wider by hand: left as they are, a warning for each.
chmod 755 "$state"
chmod 644 "$state/agent.db"
it_agent_start wide --state-dir "$state" || exit 1
it_http GET "$wide_URL/api/v1/health" ""
it_eq "wide: the agent still starts" 200 "$HTTP_STATUS"
it_eq "wide: state directory left 0755" 755 "$(mode "$state")"
it_eq "wide: agent.db left 0644" 644 "$(mode "$state/agent.db")"
grep 'is mode' "$wide_LOG"
it_check "wide: the directory is named in a warning with its fix" \
	grep -q "warn: state directory '$state' is mode 0755: group or others may read the audit log and results in it; 'chmod 700 $state'" "$wide_LOG"
it_check "wide: agent.db is named in a warning with its fix" \
	grep -q "warn: '$state/agent.db' is mode 0644: group or others may read it; 'chmod 600 $state/agent.db'" "$wide_LOG"
it_done
