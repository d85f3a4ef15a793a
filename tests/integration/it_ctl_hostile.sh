#!/bin/bash
# it_ctl_hostile.sh -- a controller no agent can blind or starve (issue 31): the real controller
# against hostile_agent.py, a fake agent in front of a real one (a temp --sysfs-root tree, the
# bench/fakefio engine), beside an honest real agent. Its answers carry escape sequences, C1 and
# bidi controls, <script> and <!--<script> in every text (nothing of it reaches the controller's
# stdout, stderr, markdown, CSV or stored history: nodes, sweep, show, rollout, show rN);
# answers of ~60 MB and element bombs under a byte cap (peak RSS bounded, a clear refusal in
# seconds); a job that never ends (the sweep's wait is bounded: the job cancelled, the node's run
# failed with its reason, the other node's device put back); non-physical figures (refused on
# the live path as analyze refuses them); 401/403 (an authentication failure naming the node).
# No root needed.
. "$(dirname "$0")/lib.sh"

FAKEFIO=$FT_BUILD_DIR/bench/fakefio
[ -x "$CTL_BIN" ] || it_skip "controller not built at $CTL_BIN"
[ -x "$FAKEFIO" ] || it_skip "bench/fakefio not built at $FAKEFIO"
[ -x "$AGENT_BIN" ] || it_skip "agent not built at $AGENT_BIN"
command -v python3 >/dev/null || it_skip "python3 not installed"
[ -x /usr/bin/time ] || it_skip "/usr/bin/time not installed"

export FAKEFIO_CTL=$IT_TMP/fakefio.ctl
printf 'base 1000\ncv 0.02\nnode_sd 0\n' >"$IT_TMP/surface.spec"
printf 'spec %s\nseed 7\ncounter %s\nsleep_ms 1\n' "$IT_TMP/surface.spec" "$IT_TMP/cnt" >"$FAKEFIO_CTL"
for i in 1 2; do
	it_fake_scsi_device "$IT_TMP/root$i" sdb ST300MM0008 2.1 ATA Z1Z0AAA$i
	FAKEFIO_SYSFS=$IT_TMP/root$i FAKEFIO_NODE=$i \
		it_agent_start "n$i" --sysfs-root "$IT_TMP/root$i" --allow-device sdb --fio "$FAKEFIO" ||
		exit 1
done
sys() { cat "$IT_TMP/root$1/sys/block/sdb/queue/$2"; }
ORIG1="$(sys 1 scheduler) $(sys 1 nr_requests)"
ORIG2="$(sys 2 scheduler) $(sys 2 nr_requests)"

# hostile MODE: (re)start the hostile agent in front of n1 with MODE; sets H_URL.
H_PID=""
hostile() {
	if [ -n "$H_PID" ]; then
		kill "$H_PID" 2>/dev/null
		wait "$H_PID" 2>/dev/null
	fi
	rm -f "$IT_TMP/h.port"
	python3 "$FT_SOURCE_DIR/tests/integration/hostile_agent.py" "$n1_URL" "$IT_TMP/h.port" "$1" &
	H_PID=$!
	IT_PIDS+=("$H_PID")
	it_wait_for "hostile agent" 10 test -s "$IT_TMP/h.port" || exit 1
	H_URL=http://127.0.0.1:$(cat "$IT_TMP/h.port")
}

# plan FILE [RUNTIME_S] [LOOPS]: n1 through the hostile agent, n2 the honest one.
plan() {
	cat >"$1" <<PLAN
{"name": "it hostile",
 "nodes": [{"name": "n1", "url": "$H_URL", "device": "sdb", "token_file": "n1-state/token"},
           {"name": "n2", "url": "$n2_URL", "device": "sdb", "token_file": "n2-state/token"}],
 "baseline": {"scheduler": "mq-deadline", "nr_requests": 128},
 "axes": [{"param": "nr_requests", "values": [128, 64]}],
 "strategy": "grid",
 "job": {"fio": {"rw": "write", "runtime_s": ${2:-1}}, "loops": ${3:-2}},
 "metric": "write.bw_mib", "min_effect_pct": 5}
PLAN
}
ctl() {
	case $1 in
	nodes | analyze | help) "$CTL_BIN" "$@" ;;
	*) "$CTL_BIN" "$@" --db "$IT_TMP/ctl.db" ;;
	esac
}

# clean DESC FILE...: no ESC, no C1 control (U+0080..U+009F), no bidi override, isolate or
# mark, no other C0 control than newline and tab, in the files.
clean() {
	local d=$1 f bad=0
	shift
	for f in "$@"; do
		if LC_ALL=C grep -qaP '[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]|\xe2\x80[\xa8-\xae]|\xe2\x81[\xa6-\xa9]|\xd8\x9c|\xe2\x80[\x8e\x8f]' "$f"; then
			it_log "$d: a control byte in $f:"
			LC_ALL=C grep -naP '[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]|\xe2\x80[\xa8-\xae]|\xe2\x81[\xa6-\xa9]' "$f" | head -n 3 | cat -v
			bad=1
		fi
	done
	[ "$bad" = 0 ]
}
# no_html DESC FILE: no raw <script or <img in the file.
no_html() { ! grep -qaE '<script|<img' "$2" || { it_log "$1: raw HTML in $2"; grep -naE '<script|<img' "$2" | head -n 3; false; }; }

# 1. Escapes in every text.
hostile escapes
plan "$IT_TMP/plan.json"
ctl nodes "$IT_TMP/plan.json" >"$IT_TMP/nodes.out" 2>"$IT_TMP/nodes.err"
it_check "escapes: nodes shows the hostile node's words" grep -q 'x1b\[2J' "$IT_TMP/nodes.out"
it_check "escapes: nodes prints no control byte" clean nodes "$IT_TMP/nodes.out" "$IT_TMP/nodes.err"
ctl sweep "$IT_TMP/plan.json" --continue-on-node-failure >"$IT_TMP/sweep.out" 2>"$IT_TMP/sweep.err"
it_log "sweep exit $?"
it_check "escapes: sweep prints no control byte" clean sweep "$IT_TMP/sweep.out" "$IT_TMP/sweep.err"
id=$(ctl history 2>/dev/null | sed -n 's/^ *#\{0,1\}\([0-9][0-9]*\) .*/\1/p' | head -n 1)
it_check "escapes: the sweep is stored" test -n "$id"
for f in table markdown csv json; do
	ctl show "${id:-1}" --format $f >"$IT_TMP/show.$f" 2>&1
	it_check "escapes: show --format $f prints no control byte" clean "show $f" "$IT_TMP/show.$f"
done
it_check "escapes: markdown carries no raw <script> or <img>" no_html markdown "$IT_TMP/show.markdown"
it_check "escapes: the table carries the escaped value" grep -q 'x1b' "$IT_TMP/show.table"
ctl rollout "$IT_TMP/plan.json" --params '{"nr_requests":64}' --check readback >"$IT_TMP/roll.out" 2>"$IT_TMP/roll.err"
it_log "rollout exit $?"
it_check "escapes: rollout prints no control byte" clean rollout "$IT_TMP/roll.out" "$IT_TMP/roll.err"
ctl show r1 >"$IT_TMP/showr.out" 2>&1
it_check "escapes: show r1 prints no control byte" clean "show r1" "$IT_TMP/showr.out"
ctl rollout --revert r1 >"$IT_TMP/rev.out" 2>&1
it_check "escapes: the revert prints no control byte" clean revert "$IT_TMP/rev.out"

# A stored rollout whose token file is gone: refused with the reason, nothing leaked (#17: the
# stored plan was; the sanitizer build reports a leak on stderr).
mv "$IT_TMP/n1-state/token" "$IT_TMP/token.away"
ctl rollout --revert r1 >"$IT_TMP/rev2.out" 2>"$IT_TMP/rev2.err"
it_eq "a revert whose token file is gone exits 1" 1 $?
it_check "it says which token file" grep -q "rollout r1's plan: n1: cannot read token_file" "$IT_TMP/rev2.err"
it_check "and leaks nothing" bash -c "! grep -q LeakSanitizer '$IT_TMP/rev2.err'"
mv "$IT_TMP/token.away" "$IT_TMP/n1-state/token"
# An inline token: a rollout that could not be reverted or resumed is refused at its start (#10).
jq --arg t "$n2_TOKEN" '.nodes[1] |= (del(.token_file) | .token = $t)' "$IT_TMP/plan.json" >"$IT_TMP/inline.json"
ctl rollout "$IT_TMP/inline.json" --params '{"nr_requests":64}' >"$IT_TMP/inl.out" 2>"$IT_TMP/inl.err"
it_eq "a rollout of a plan with an inline token exits 1" 1 $?
it_check "it names the node and the fix" grep -q "node 'n2' has an inline \"token\".*give the node a \"token_file\"" "$IT_TMP/inl.err"
it_check "and stores no rollout" bash -c "! '$CTL_BIN' show r2 --db '$IT_TMP/ctl.db' >/dev/null 2>&1"
it_eq "n2's device was not touched" 128 "$(sys 2 nr_requests)"

# 2. Huge answers and element bombs: refused quickly, memory bounded.
for m in huge bomb; do
	hostile $m
	plan "$IT_TMP/plan.json"
	/usr/bin/time -f '%M %e' -o "$IT_TMP/time.$m" "$CTL_BIN" nodes "$IT_TMP/plan.json" \
		>"$IT_TMP/nodes.$m" 2>&1
	read -r rss_kb secs < <(tail -n 1 "$IT_TMP/time.$m")
	it_log "$m: nodes peak RSS ${rss_kb} KiB in ${secs} s"
	it_check "$m: the controller's peak RSS stays under 200 MiB (${rss_kb} KiB)" test "$rss_kb" -lt 204800
	it_check "$m: nodes ends within 20 s (${secs} s)" awk -v s="$secs" 'BEGIN { exit !(s < 20) }'
	it_check "$m: nodes says the answer is refused, and why" grep -qE "n1 .*(larger than|more than|deeper than)" "$IT_TMP/nodes.$m"
	it_check "$m: the honest node is read" grep -q '^n2 .* ok ' "$IT_TMP/nodes.$m"
done

# 3. A job that never ends: the wait is bounded by the run's deadline (the agent's
# run_deadline_s, 3 s here, and the controller's margin), the job cancelled, the node's run
# failed with the reason, and the sweep goes on and puts every device back.
hostile hang
plan "$IT_TMP/plan.json" 1 2
t0=$(date +%s)
ctl sweep "$IT_TMP/plan.json" >"$IT_TMP/hang.out" 2>"$IT_TMP/hang.err"
rc=$?
secs=$(($(date +%s) - t0))
it_log "hang: sweep exit $rc in $secs s"
it_check "hang: the sweep ends within 90 s (${secs} s)" test "$secs" -lt 90
it_check "hang: it says the job ran past its deadline" grep -q "n1: point [0-9]* failed: job [0-9]* ran past its deadline: running for [0-9]* s, more than the [0-9]* s its [0-9]* loops\{0,1\} may take" "$IT_TMP/hang.err"
it_check "hang: the hung job was cancelled" grep -q "^DELETE /api/v1/jobs/[0-9]" "$IT_TMP/h.port.log"
hid=$(ctl history 2>/dev/null | sed -n 's/^ *#\{0,1\}\([0-9][0-9]*\) .*/\1/p' | head -n 1)
ctl show "$hid" --format json >"$IT_TMP/hang.json" 2>&1
it_eq "hang: the honest node measured both points" "ok ok" "$(jq -r '[.points[].nodes[] | select(.node == "n2") | .state] | join(" ")' "$IT_TMP/hang.json")"
it_check "hang: the hung node's runs failed with the reason" jq -e '[.points[].nodes[] | select(.node == "n1") | .error | test("ran past its deadline")] | all' "$IT_TMP/hang.json"
it_eq "hang: n2's device is put back" 128 "$(sys 2 nr_requests)"
it_eq "hang: n1's device is put back" 128 "$(sys 1 nr_requests)"
it_check "hang: nothing printed a control byte" clean hang "$IT_TMP/hang.out" "$IT_TMP/hang.err"

# 4. Non-physical figures: refused on the live path, as analyze refuses them, with the node's
# reason; the saved sweep reads back.
hostile figures
plan "$IT_TMP/plan.json" 1 3
ctl sweep "$IT_TMP/plan.json" >"$IT_TMP/fig.out" 2>"$IT_TMP/fig.err"
it_log "figures: sweep exit $?"
it_check "figures: the pass is refused with the reason" grep -q "n1: point 1 failed: job [0-9]* pass 1: 1e+308 is not a measurement" "$IT_TMP/fig.err"
it_check "figures: no inf in the table" bash -c "! grep -q 'inf' '$IT_TMP/fig.out'"
fid=$(ctl history 2>/dev/null | sed -n 's/^ *#\{0,1\}\([0-9][0-9]*\) .*/\1/p' | head -n 1)
ctl show "$fid" --format json >"$IT_TMP/fig.json" 2>&1
"$CTL_BIN" analyze "$IT_TMP/fig.json" >"$IT_TMP/fig.analyze" 2>&1
it_eq "figures: analyze reads the saved sweep" 0 $?

# 5. 401 and 403: an authentication failure naming the node, never "not found".
for m in unauth forbidden; do
	hostile $m
	plan "$IT_TMP/plan.json"
	ctl nodes "$IT_TMP/plan.json" >"$IT_TMP/$m.out" 2>&1
	it_check "$m: nodes exits non-zero" test $? != 0
	it_check "$m: an authentication failure naming n1" grep -q "authentication failed: node 'n1' answered HTTP 40[13]" "$IT_TMP/$m.out"
	it_check "$m: never 'not found'" bash -c "! grep -q 'not found' '$IT_TMP/$m.out'"
done

# A hosts file gives each node its own token file (#20); a wrong one is an authentication
# failure naming that node.
echo "wrong-token-0123456789" >"$IT_TMP/wrong.token"
printf 'n1 %s sdb n1-state/token\nn2 %s sdb n2-state/token\n' "$n1_URL" "$n2_URL" >"$IT_TMP/hosts.list"
ctl nodes "$IT_TMP/plan.json" --nodes-from "$IT_TMP/hosts.list" >"$IT_TMP/hosts.out" 2>&1
it_eq "hosts file with a token file a line: nodes exits 0" 0 $?
printf 'n1 %s sdb n1-state/token\nn2 %s sdb wrong.token\n' "$n1_URL" "$n2_URL" >"$IT_TMP/hosts.list"
ctl nodes "$IT_TMP/plan.json" --nodes-from "$IT_TMP/hosts.list" >"$IT_TMP/hosts.out" 2>&1
it_check "a wrong token file a line: nodes exits non-zero" test $? != 0
it_check "it is an authentication failure of n2" grep -q "authentication failed: node 'n2' answered HTTP 401" "$IT_TMP/hosts.out"
it_check "n1's own token was taken" grep -q "^n1 .* ok " "$IT_TMP/hosts.out"

it_done
