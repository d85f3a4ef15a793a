#!/bin/bash
# it_ctl_abandoned.sh -- a sweep whose controller is killed with SIGKILL stays `running` in the
# database, and `history` and `show` report it as `abandoned` with the time of its last saved
# point; a sweep whose controller is alive still reads `running`.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/ctl_lib.sh"

ctl_two_nodes
ctl_plan "$IT_TMP/plan.json" grid 3 2
ctl_sweep_bg "$IT_TMP/plan.json"
pid=$CTL_PID
it_wait_for "a pass of point 2 on both nodes" 60 ctl_both_passed 2 3
"$CTL_BIN" history --db "$CTL_DB" >"$IT_TMP/h1.txt"
it_check "while its controller runs, the sweep is running" grep -qE '^1 +[^ ]+ +running ' "$IT_TMP/h1.txt"
kill -KILL "$pid"
wait "$pid" 2>/dev/null
"$CTL_BIN" history --db "$CTL_DB" >"$IT_TMP/h2.txt"
cat "$IT_TMP/h2.txt"
it_check "after SIGKILL, history shows it abandoned" grep -qE '^1 +[^ ]+ +abandoned ' "$IT_TMP/h2.txt"
it_check "history names the gone controller and its last saved point" \
	grep -qE "its controller is gone \($(hostname), pid $pid\); last point saved 20" "$IT_TMP/h2.txt"
"$CTL_BIN" show 1 --db "$CTL_DB" --format json >"$IT_TMP/show.json"
it_eq "show says abandoned" abandoned "$(jq -r .status "$IT_TMP/show.json")"
it_eq "the stored row itself is unchanged (running)" running \
	"$(python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute("SELECT status FROM sweeps WHERE id=1").fetchone()[0])' "$CTL_DB")"
it_done
