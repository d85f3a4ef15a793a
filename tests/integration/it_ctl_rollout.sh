#!/bin/bash
# it_ctl_rollout.sh -- fleettune-ctl rollout and verify on 4 agents with real loop devices: a
# readback rollout that stops in wave 2 when one node's kernel refuses the value and puts that
# wave back; verify's exit status; revert; a measure rollout that stops when the (fake) fio makes
# the new value a loss; kill -9 of the controller mid-rollout, then --resume, and again, then
# --revert; SIGINT between nodes; history and show; nodes from an Ansible inventory
# (--nodes-from); inputs refused before anything is stored; a hostile agent's escapes shown
# escaped.
. "$(dirname "$0")/lib.sh"

it_need_root_sysfs
it_need_built "$CTL_BIN"
FAKEFIO=$FT_BUILD_DIR/bench/fakefio
it_need_built "$FAKEFIO"
CTL_DB=$IT_TMP/ctl.db
# ctl COMMAND ARGS...: fleettune-ctl with the test's database, for the commands that take one.
ctl() {
	case $1 in
	nodes | analyze | help) "$CTL_BIN" "$@" ;;
	*) "$CTL_BIN" "$@" --db "$CTL_DB" ;;
	esac
}

export FAKEFIO_SYSFS=/ FAKEFIO_CTL=$IT_TMP/fakefio.ctl
# fakefio ctl SPEC_LINES: the surface the fake fio answers from (4 % noise-free base 1000).
fakefio_surface() {
	printf 'base 1000\ncv 0.01\nnode_sd 0\n%s\n' "$1" >"$IT_TMP/spec"
	printf 'spec %s\nseed 7\ncounter %s\nsleep_ms %d\n' "$IT_TMP/spec" "$IT_TMP/cnt" "${2:-50}" \
		>"$FAKEFIO_CTL"
}
fakefio_surface ""

DEVS=()
for i in 1 2 3 4; do
	DEVS+=("$(it_loop_create 32M)") || it_skip "cannot create loop devices"
done
for i in 1 2 3 4; do
	d=${DEVS[$((i - 1))]}
	echo mq-deadline >"/sys/block/$d/queue/scheduler"
	echo 64 >"/sys/block/$d/queue/nr_requests"
	echo 128 >"/sys/block/$d/queue/read_ahead_kb"
done
# node3's kernel refuses nr_requests above its queue depth without a scheduler (the agent knows
# that bound and refuses the value before writing).
echo none >"/sys/block/${DEVS[2]}/queue/scheduler"
for i in 1 2 3 4; do
	export FAKEFIO_NODE=$i
	it_agent_start "node$i" --allow-device "${DEVS[$((i - 1))]}" --fio "$FAKEFIO" \
		--drift-check-s 1 || { it_fail "node$i starts"; it_done; }
done
PLAN=$IT_TMP/plan.json
{
	echo '{"name": "it rollout", "nodes": ['
	for i in 1 2 3 4; do
		url_var="node${i}_URL"
		[ "$i" -gt 1 ] && echo ','
		printf '{"name":"node%d","url":"%s","device":"%s","token_file":"node%d-state/token"}' \
			"$i" "${!url_var}" "${DEVS[$((i - 1))]}" "$i"
	done
	echo '],'
	echo '"baseline": {"read_ahead_kb": 128}, "axes": [{"param": "read_ahead_kb", "values": [256]}],'
	echo '"job": {"engine": "fio", "fio": {"rw": "write", "bs": "64k", "size": "8M",'
	echo '        "runtime_s": 1, "time_based": true}, "loops": 3},'
	echo '"metric": "write.bw_mib", "min_effect_pct": 5}'
} >"$PLAN"

tok() { cat "$IT_TMP/node$1-state/token"; }
url() { local v="node${1}_URL"; echo "${!v}"; }
profile_of() { # NODE NAME: the agent's profile as JSON, or "none"
	it_http GET "$(url "$1")/api/v1/profiles/$2" "$(tok "$1")"
	[ "$HTTP_STATUS" = 200 ] && echo "$HTTP_BODY" || echo none
}
ra() { it_sys "${DEVS[$(($1 - 1))]}" read_ahead_kb; }
nr() { it_sys "${DEVS[$(($1 - 1))]}" nr_requests; }
last_id() { sqlite3 "$CTL_DB" 'SELECT max(id) FROM rollouts'; }
rstatus() { sqlite3 "$CTL_DB" "SELECT status FROM rollouts WHERE id = $1"; }

# 1. readback, 4 nodes in waves 1 | 2 | 4: node3 refuses in wave 2, which is put back.
ctl rollout "$PLAN" --params '{"nr_requests":256,"read_ahead_kb":1024}' --canary 1 \
	--waves 50%,100% --check readback >"$IT_TMP/a.out" 2>"$IT_TMP/a.err"
rc=$?
it_eq "a node refusing in wave 2 stops the rollout (exit 2)" 2 "$rc"
A=$(last_id)
it_eq "stored as stopped" stopped "$(rstatus "$A")"
it_check "the reason names node3 and the kernel's bound" \
	grep -q "wave 2: 1 node(s) failed.*node3: write: HTTP 422: .*nr_requests.*128" "$IT_TMP/a.out"
it_eq "canary node1 holds the profile" "256 1024" "$(nr 1) $(ra 1)"
it_eq "wave 1's node2 holds the profile" "256 1024" "$(nr 2) $(ra 2)"
it_eq "node3 is as it was (the agent rolled back)" "128 128" "$(nr 3) $(ra 3)"
it_eq "node3 has no profile" none "$(profile_of 3 fleettune)"
it_eq "wave 2's node4 was put back" "64 128" "$(nr 4) $(ra 4)"
it_eq "node4 has no profile" none "$(profile_of 4 fleettune)"
it_eq "node1's agent keeps it" held "$(profile_of 1 fleettune | jq -r '.devices[0].state')"
ctl show "r$A" >"$IT_TMP/show.out"
it_check "show r$A lists the waves and the failed node" \
	grep -q "node3 .*wave 2  failed" "$IT_TMP/show.out"
ctl history >"$IT_TMP/history.out"
it_check "history lists the rollout" grep -q "^r$A .*stopped .*readback .*2/4 .*it rollout / fleettune = nr_requests=256 read_ahead_kb=1024" "$IT_TMP/history.out"

# 2. verify: 0 while every node holds what the rollout left it, 1 when one does not.
ctl verify "$PLAN" >"$IT_TMP/v1.out"
it_eq "verify exits 0: every node as the rollout left it" 0 $?
it_http DELETE "$(url 2)/api/v1/profiles/fleettune" "$(tok 2)"
ctl verify "$PLAN" >"$IT_TMP/v2.out"
it_eq "verify exits 1 when a node lost its profile" 1 $?
it_check "... and names it" grep -q "^node2 .*DIFFERS .*no profile 'fleettune'" "$IT_TMP/v2.out"
ctl verify "$PLAN" --params '{"nr_requests":256,"read_ahead_kb":1024}' >"$IT_TMP/v3.out"
it_eq "verify --params exits 1 for nodes without it" 1 $?
it_eq "... three of them" 3 "$(grep -c DIFFERS "$IT_TMP/v3.out")"

# 3. --revert puts back every node the rollout changed.
ctl rollout --revert "r$A" >"$IT_TMP/rv.out" 2>&1
it_eq "revert exits 0" 0 $?
it_eq "stored as reverted" reverted "$(rstatus "$A")"
it_eq "node1 back" "64 128" "$(nr 1) $(ra 1)"
it_eq "node1 has no profile" none "$(profile_of 1 fleettune)"

# 4. measure: the fake fio makes read_ahead_kb=1024 a 20 % loss; the canary stops it.
fakefio_surface "param read_ahead_kb 1024 0.8"
ctl rollout "$PLAN" --params '{"read_ahead_kb":1024}' --check measure --profile m \
	>"$IT_TMP/m.out" 2>"$IT_TMP/m.err"
rc=$?
it_eq "a measured loss stops the rollout (exit 2)" 2 "$rc"
it_check "the reason is the loss (about -20 %)" \
	grep -Eq "wave 0: measure: write.bw_mib new vs old on 1 node.*: -(1[6-9]|2[0-4])\.[0-9] %.*a significant loss" "$IT_TMP/m.out"
it_eq "the canary was put back" 128 "$(ra 1)"
it_eq "no other node was touched" "128 128 128" "$(ra 2) $(ra 3) $(ra 4)"
it_eq "the canary has no profile m" none "$(profile_of 1 m)"
it_eq "no session left open on the canary" 0 \
	"$(curl -s -H "Authorization: Bearer $(tok 1)" "$(url 1)/api/v1/sessions?state=open" | jq '.sessions | length')"

# 5. kill -9 of the controller mid-rollout (in wave 1's measurement), then --resume.
fakefio_surface "param read_ahead_kb 2048 1.10" 400
roll_bg() { # PROFILE: a measured rollout of read_ahead_kb=2048 in the background
	"$CTL_BIN" rollout "$PLAN" --params '{"read_ahead_kb":2048}' --check measure --profile "$1" \
		--waves 50%,100% --db "$CTL_DB" >"$IT_TMP/$1.out" 2>"$IT_TMP/$1.err" &
	CTL_PID=$!
}
in_wave1() { grep -q "^wave 0 (canary" "$IT_TMP/$1.err" && grep -q "^wave 1: measure round 1" "$IT_TMP/$1.err"; }
roll_bg k
it_check "the rollout reaches wave 1's measurement" it_wait_for "wave 1" 60 in_wave1 k
kill -9 "$CTL_PID"
wait "$CTL_PID" 2>/dev/null
K=$(last_id)
it_eq "the killed rollout is stored as running" running "$(rstatus "$K")"
ctl history >"$IT_TMP/history2.out"
it_check "history shows it abandoned" grep -q "^r$K .*abandoned" "$IT_TMP/history2.out"
it_check "wave 1's session is still open on node2" [ "$(curl -s -H "Authorization: Bearer $(tok 2)" \
	"$(url 2)/api/v1/sessions?state=open" | jq '.sessions | length')" = 1 ]
ctl rollout --resume "r$K" >"$IT_TMP/resume.out" 2>"$IT_TMP/resume.err"
it_eq "--resume completes (exit 0)" 0 $?
it_eq "stored as completed" completed "$(rstatus "$K")"
it_eq "every node holds the new value" "2048 2048 2048 2048" "$(ra 1) $(ra 2) $(ra 3) $(ra 4)"
it_eq "node3 holds profile k" held "$(profile_of 3 k | jq -r '.devices[0].state')"
it_eq "no session left open on node2" 0 \
	"$(curl -s -H "Authorization: Bearer $(tok 2)" "$(url 2)/api/v1/sessions?state=open" | jq '.sessions | length')"
ctl verify "$PLAN" --profile k >/dev/null
it_eq "verify of the resumed rollout exits 0" 0 $?

# 6. kill -9 again, then --revert: every node back to what it had (a parameter is held by one
# profile: k goes first).
ctl rollout --revert "r$K" >/dev/null 2>&1
it_eq "rollout k reverted: the values are back" "128 128 128 128" "$(ra 1) $(ra 2) $(ra 3) $(ra 4)"
roll_bg j
it_check "the second rollout reaches wave 1's measurement" it_wait_for "wave 1" 60 in_wave1 j
kill -9 "$CTL_PID"
wait "$CTL_PID" 2>/dev/null
J=$(last_id)
it_eq "profile j on the canary" "2048" "$(profile_of 1 j | jq -r '.params.read_ahead_kb')"
ctl rollout --revert "r$J" >"$IT_TMP/revert.out" 2>&1
rc=$?
# The killed controller's measurement may still own a device when the revert deletes the
# profile: the agent then leaves its values, and the revert says so and exits 1 ("its values
# stay; rollout --revert retries"). Doing what it says, once, must finish the job.
if [ "$rc" = 1 ] && grep -q 'rollout --revert retries' "$IT_TMP/revert.out"; then
	sed 's/^/# first --revert: /' "$IT_TMP/revert.out"
	ctl rollout --revert "r$J" >"$IT_TMP/revert.out" 2>&1
	rc=$?
fi
it_eq "--revert exits 0" 0 "$rc"
it_eq "stored as reverted" reverted "$(rstatus "$J")"
for i in 1 2 3 4; do
	it_eq "node$i has no profile j" none "$(profile_of "$i" j)"
done
it_eq "no session left open on node2" 0 \
	"$(curl -s -H "Authorization: Bearer $(tok 2)" "$(url 2)/api/v1/sessions?state=open" | jq '.sessions | length')"

it_eq "the values are back" "128 128 128 128" "$(ra 1) $(ra 2) $(ra 3) $(ra 4)"

# 7. SIGINT: stops between nodes; every node holds the whole profile or none of it.
roll_bg s
it_check "the third rollout reaches wave 1's measurement" it_wait_for "wave 1" 60 in_wave1 s
kill -INT "$CTL_PID"
wait "$CTL_PID"
it_eq "SIGINT exits 130" 130 $?
S=$(last_id)
it_eq "stored as interrupted" interrupted "$(rstatus "$S")"
for i in 1 2 3 4; do
	p=$(profile_of "$i" s)
	if [ "$p" = none ]; then
		it_eq "node$i: fully old" 128 "$(ra "$i")"
	else
		it_eq "node$i: fully new" "2048 2048" "$(echo "$p" | jq -r '.params.read_ahead_kb') $(ra "$i")"
	fi
done
it_eq "no session left open on node2" 0 \
	"$(curl -s -H "Authorization: Bearer $(tok 2)" "$(url 2)/api/v1/sessions?state=open" | jq '.sessions | length')"
ctl rollout --resume "r$S" >/dev/null 2>"$IT_TMP/s-resume.err"
it_eq "the interrupted rollout resumes to the end" 0 $?
it_eq "every node holds it" "2048 2048 2048 2048" "$(ra 1) $(ra 2) $(ra 3) $(ra 4)"

# 8. Nodes from an Ansible inventory (--nodes-from, as sweeps take them): three of the four,
# token files relative to the inventory. The stored rollout keeps them written out, so
# --revert needs neither the inventory nor the directory it was named from.
mkdir -p "$IT_TMP/inv"
{
	echo "[storage]"
	for i in 1 2 4; do
		echo "node$i fleettune_url=$(url "$i") fleettune_device=${DEVS[$((i - 1))]} fleettune_token_file=../node$i-state/token"
	done
} >"$IT_TMP/inv/hosts.ini"
(cd "$IT_TMP" && "$CTL_BIN" rollout plan.json --nodes-from inv/hosts.ini --db "$CTL_DB" \
	--params '{"nr_requests":32}' --profile nf --waves 100% >"$IT_TMP/nf.out" 2>"$IT_TMP/nf.err")
it_eq "rollout --nodes-from completes (exit 0)" 0 $?
N=$(last_id)
it_eq "the rollout has the inventory's three nodes" "node1 node2 node4" \
	"$(sqlite3 "$CTL_DB" "SELECT group_concat(name, ' ') FROM (SELECT name FROM rollout_nodes WHERE rollout_id = $N ORDER BY idx)")"
it_eq "nodes 1, 2, 4 hold nr_requests 32, node3 is left alone" "32 32 128 32" \
	"$(nr 1) $(nr 2) $(nr 3) $(nr 4)"
it_eq "node3 has no profile nf" none "$(profile_of 3 nf)"
(cd "$IT_TMP/inv" && "$CTL_BIN" verify ../plan.json --nodes-from hosts.ini --profile nf \
	--db "$CTL_DB" >"$IT_TMP/nf-verify.out")
it_eq "verify --nodes-from exits 0" 0 $?
it_eq "... with a line per listed node, all ok" 3 "$(grep -c '^node[124] .* ok' "$IT_TMP/nf-verify.out")"
ctl rollout --resume "r$N" --nodes-from "$IT_TMP/inv/hosts.ini" >/dev/null 2>"$IT_TMP/nf-resume.err"
it_eq "--resume with --nodes-from is a usage error" 64 $?
it_check "... saying why" grep -q "a stored rollout goes on with" "$IT_TMP/nf-resume.err"
mv "$IT_TMP/inv" "$IT_TMP/inv.gone"
ctl rollout --revert "r$N" >"$IT_TMP/nf-revert.out" 2>&1
rc=$?
it_eq "--revert without the inventory exits 0" 0 "$rc"
[ "$rc" = 0 ] || sed 's/^/# /' "$IT_TMP/nf-revert.out"
it_eq "nodes 1, 2, 4 are back" "64 64 128 64" "$(nr 1) $(nr 2) $(nr 3) $(nr 4)"

# 9. Rollout inputs an output or a device could not take are refused before anything is
# stored or sent: control characters in values and names, names that are not parameter or
# profile names, waves strtod would take.
before=$(last_id)
bad_input() { # DESCRIPTION WANT_RC ARGS...: the rollout exits WANT_RC; nothing is stored
	local what=$1 want=$2
	shift 2
	ctl rollout "$PLAN" "$@" >"$IT_TMP/bad.out" 2>"$IT_TMP/bad.err"
	it_eq "$what: exit $want" "$want" $?
	it_eq "$what: no rollout stored" "$before" "$(last_id)"
}
bad_input "a line break in a value (JSON escape)" 64 --params '{"scheduler":"none\nmq-deadline"}'
it_check "... named" grep -q 'params.scheduler: has a control character' "$IT_TMP/bad.err"
bad_input "a raw line break in a value" 64 --params $'{"scheduler":"none\nmq-deadline"}'
bad_input "an escape in a value" 64 --params '{"scheduler":"none\u001b[2J"}'
bad_input "a path as a parameter name" 64 --params '{"../queue/nr_requests":32}'
bad_input "a value longer than a setting holds" 64 \
	--params "{\"scheduler\":\"$(printf 'x%.0s' $(seq 200))\"}"
bad_input "a line break in the profile name" 64 --params '{"nr_requests":32}' --profile $'a\nb'
bad_input "a quote in the profile name" 64 --params '{"nr_requests":32}' --profile 'a"b'
bad_input "a blank before a wave" 1 --params '{"nr_requests":32}' --waves ' 50%,100%'
it_check "... named" grep -q "' 50%' is not a percentage" "$IT_TMP/bad.err"
bad_input "a line break before a wave" 1 --params '{"nr_requests":32}' --waves $'\n50%,100%'
ctl verify "$PLAN" --params $'{"scheduler":"none\n"}' >/dev/null 2>"$IT_TMP/bad.err"
it_eq "verify refuses the same values (exit 64)" 64 $?
ctl apply "$PLAN" --params $'{"scheduler":"none\n"}' >/dev/null 2>"$IT_TMP/bad.err"
it_eq "apply refuses them too (exit 64)" 64 $?
it_eq "nothing changed on the nodes" "64 64 128 64" "$(nr 1) $(nr 2) $(nr 3) $(nr 4)"

# 10. What an agent answers is shown on the operator's terminal: a hostile one's escapes
# (colours, a title, a screen clear, a carriage return) in its states, errors and values come
# out escaped.
python3 - "$IT_TMP/hostile.port" <<'PY' &
import http.server, json, sys
body = json.dumps({"name": "fleettune", "match": {"devices": ["sdz"]},
                   "params": {"nr_requests": 32}, "enforce": True,
                   "devices": [{"device": "sdz", "state": "failed\u001b[31m",
                                "error": "no\u001b]0;owned\u0007",
                                "params": {"nr_requests": {"live": "64\u001b[2J", "wanted": "32",
                                                           "drifted": True,
                                                           "since": "2026-12-01T00:00:00Z\r"}}}]
                   }).encode()
fail = json.dumps({"error": {"code": "internal\u001b[1m",
                             "message": "boom\u001b[2J\u001b]0;owned\u0007"}}).encode()
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        out = fail if self.path.endswith("/err") else body
        self.send_response(500 if out is fail else 200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)
    def log_message(self, *a):
        pass
s = http.server.HTTPServer(("127.0.0.1", 0), H)
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write(str(s.server_address[1]))
import os; os.rename(sys.argv[1] + ".tmp", sys.argv[1])
s.serve_forever()
PY
HOSTILE_PID=$!
port_up() { [ -s "$IT_TMP/hostile.port" ]; }
if it_wait_for "the hostile agent's port" 20 port_up; then
	jq --arg url "http://127.0.0.1:$(cat "$IT_TMP/hostile.port")" \
		'.nodes = [{"name": "hostile", "url": $url, "device": "sdz",
			"token": "0123456789abcdef0123456789abcdef"}]' "$PLAN" >"$IT_TMP/hostile.json"
	ctl verify "$IT_TMP/hostile.json" --params '{"nr_requests":32}' >"$IT_TMP/hostile.out"
	it_eq "verify of the hostile node exits 1" 1 $?
	it_check "... and shows what differs" grep -q '^hostile .*DIFFERS' "$IT_TMP/hostile.out"
	it_eq "no escape, bell or carriage return reaches the terminal" 0 \
		"$(tr -cd '\033\007\r' <"$IT_TMP/hostile.out" | wc -c)"
	it_check "... they are shown escaped" grep -qF 'failed\x1b[31m' "$IT_TMP/hostile.out"
	it_check "... in values too" grep -qF 'live 64\x1b[2J' "$IT_TMP/hostile.out"
	ctl verify "$IT_TMP/hostile.json" --params '{"nr_requests":32}' --profile err \
		>"$IT_TMP/hostile2.out" 2>&1
	it_eq "verify of a node that answers an error exits 1" 1 $?
	it_eq "... its message reaches the terminal escaped" 0 \
		"$(tr -cd '\033\007\r' <"$IT_TMP/hostile2.out" | wc -c)"
	it_check "... and readable" grep -qF 'boom\x1b[2J' "$IT_TMP/hostile2.out"
else
	it_fail "the hostile agent did not start"
fi
kill "$HOSTILE_PID" 2>/dev/null
wait "$HOSTILE_PID" 2>/dev/null

it_done
