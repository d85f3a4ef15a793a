#!/bin/bash
# it_ctl_devices.sh -- several devices per node (issue 29): one agent, two loop devices, real
# fio. Two jobs on different devices run at the same moment (their passes overlap, by the
# agent's own times), two on one device one after the other in FIFO order, /metrics shows a job
# running on each device; then a sweep of a node with "devices": [A, B] on that one agent: the
# table has both members (node/dev), every run's two jobs overlap, and both devices are put
# back at the end.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/ctl_lib.sh"

it_need_root_sysfs
it_need_built "$CTL_BIN"
command -v fio >/dev/null || it_skip "fio not installed"
A_DEV=$(it_loop_create 96M) || it_skip "cannot create loop device"
B_DEV=$(it_loop_create 96M) || it_skip "cannot create loop device"
it_agent_start n1 --allow-device "$A_DEV" --allow-device "$B_DEV" || exit 1
CTL_DB="$IT_TMP/ctl.db"
A_ORIG="$(it_sys "$A_DEV" scheduler) $(it_sys "$A_DEV" nr_requests)"
B_ORIG="$(it_sys "$B_DEV" scheduler) $(it_sys "$B_DEV" nr_requests)"
API=$n1_URL/api/v1

it_http GET "$API/health" ""
it_check "health lists device_lanes" jq -e >/dev/null '.features | index("device_lanes")' <<<"$HTTP_BODY"

# ---- the agent: different devices at once, one device in turn
job() { # DEV RUNTIME_S
	echo "{\"device\":\"$1\",\"engine\":\"fio\",\"loops\":1,\"fio\":{\"rw\":\"randwrite\",\"bs\":\"64k\",\"ioengine\":\"libaio\",\"direct\":true,\"iodepth\":4,\"size\":\"16m\",\"runtime_s\":$2,\"time_based\":true,\"rate_iops\":1024}}"
}
post() { # DEV RUNTIME_S: prints the job id
	it_http POST "$API/jobs" "$n1_TOKEN" "$(job "$1" "$2")"
	[ "$HTTP_STATUS" = 202 ] || { echo "# POST $1: $HTTP_STATUS $HTTP_BODY" >&2; return 1; }
	jq .id <<<"$HTTP_BODY"
}
a1=$(post "$A_DEV" 2) && a2=$(post "$A_DEV" 1) && b1=$(post "$B_DEV" 2)
it_check "three jobs queued (two on $A_DEV, one on $B_DEV)" test -n "$b1"
# One /metrics scrape shows the moment whole: a job running on each device and the second job of
# A_DEV waiting (separate GETs could straddle the end of A_DEV's first job on a loaded machine).
both_running() {
	it_http GET "$n1_URL/metrics" "$n1_TOKEN"
	echo "$HTTP_BODY" >"$IT_TMP/metrics.prom"
	grep -qx "fleettune_device_job_running{device=\"$A_DEV\"} 1" "$IT_TMP/metrics.prom" &&
		grep -qx "fleettune_device_job_running{device=\"$B_DEV\"} 1" "$IT_TMP/metrics.prom" &&
		grep -qx "fleettune_device_jobs_queued{device=\"$A_DEV\"} 1" "$IT_TMP/metrics.prom" &&
		grep -qx "fleettune_device_jobs_queued{device=\"$B_DEV\"} 0" "$IT_TMP/metrics.prom"
}
it_check "/metrics: a job running on each device at once, the second of $A_DEV waiting" \
	it_wait_for "both running" 10 both_running
for id in "$a1" "$a2" "$b1"; do
	it_http GET "$API/jobs/$id?wait_s=30&until=end&fields=state,started_at,finished_at,passes" "$n1_TOKEN"
	echo "$HTTP_BODY" >"$IT_TMP/job$id.json"
	it_eq "job $id succeeds" succeeded "$(jq -r .state <<<"$HTTP_BODY")"
done
python3 - "$IT_TMP/job$a1.json" "$IT_TMP/job$a2.json" "$IT_TMP/job$b1.json" <<'PY'
import datetime, json, sys
def t(s): return datetime.datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp()
a1, a2, b1 = (json.load(open(f)) for f in sys.argv[1:])
def span(j): return t(j["passes"][0]["started_at"]), t(j["passes"][-1]["finished_at"])
(a1s, a1e), (a2s, a2e), (b1s, b1e) = span(a1), span(a2), span(b1)
print(f"# A1 {a1s:.3f}..{a1e:.3f}  B1 {b1s:.3f}..{b1e:.3f}  A2 {a2s:.3f}..{a2e:.3f}")
ov = min(a1e, b1e) - max(a1s, b1s)
print(f"# A1 and B1 overlap {ov:.2f} s of 2; A2 began {a2s - a1e:.3f} s after A1 ended")
assert ov > 1.5, "jobs on different devices did not run at the same moment"
assert a2s >= a1e and t(a2["started_at"]) >= t(a1["finished_at"]), "one device ran two jobs at once"
PY
it_eq "the passes of the two devices overlap, the device's second job follows its first" 0 $?

# ---- a sweep of one node with two devices
cat >"$IT_TMP/plan.json" <<PLAN
{
  "name": "it devices",
  "nodes": [{"name": "n1", "url": "$n1_URL", "devices": ["$A_DEV", "$B_DEV"], "token_file": "n1-state/token"}],
  "baseline": {"scheduler": "mq-deadline", "nr_requests": 128},
  "axes": [{"param": "nr_requests", "values": [64]}],
  "strategy": "grid",
  "job": {"engine": "fio", "fio": {"rw": "randwrite", "bs": "64k", "ioengine": "libaio",
          "direct": true, "iodepth": 8, "size": "32m", "runtime_s": 1, "time_based": true, "rate_iops": 1024}, "loops": 2},
  "metric": "write.bw_mib", "goal": "maximize", "min_effect_pct": 5,
  "labels": {"test": "$IT_NAME"}
}
PLAN
ctl sweep "$IT_TMP/plan.json" --out "$IT_TMP/out.txt" 2>"$IT_TMP/err.txt"
it_eq "the sweep exits 0" 0 $?
cat "$IT_TMP/out.txt"
it_log "$(grep 'started by the clock' "$IT_TMP/err.txt")"
it_check "the table has a column per device: n1/$A_DEV and n1/$B_DEV" \
	grep -Eq "\| n1/$A_DEV \(MiB/s\) *\| n1/$B_DEV \(MiB/s\) *\|" "$IT_TMP/out.txt"
it_check "the header counts two nodes" grep -q ' 2 nodes ' "$IT_TMP/out.txt"
it_eq "$A_DEV restored" "$A_ORIG" "$(it_sys "$A_DEV" scheduler) $(it_sys "$A_DEV" nr_requests)"
it_eq "$B_DEV restored" "$B_ORIG" "$(it_sys "$B_DEV" scheduler) $(it_sys "$B_DEV" nr_requests)"
ctl show 1 --format json >"$IT_TMP/show.json"
it_check "the document names both members, each with its own device and identity" jq -e >/dev/null \
	--arg a "n1/$A_DEV" --arg b "n1/$B_DEV" --arg da "$A_DEV" --arg db "$B_DEV" \
	'[.nodes[] | [.name, .device]] == [[$a, $da], [$b, $db]] and ([.nodes[].identity] | length) == 2' "$IT_TMP/show.json"
it_check "the stored plan keeps the node with its devices" jq -e >/dev/null \
	--arg da "$A_DEV" --arg db "$B_DEV" '.plan.nodes == [.plan.nodes[0]] and .plan.nodes[0].devices == [$da, $db]' "$IT_TMP/show.json"
# Every point's jobs on the two devices ran at the same moment: their first passes began
# together (one start_at), and each ran its own point's values.
for p in 0 1; do
	for k in 0 1; do
		id=$(jq ".points[$p].nodes[$k].job_id" "$IT_TMP/show.json")
		it_http GET "$API/jobs/$id?fields=state,device,begun_at,start_at,start_late_s,passes,spec" "$n1_TOKEN"
		echo "$HTTP_BODY" >"$IT_TMP/p$p-k$k.json"
	done
done
python3 - "$IT_TMP" "$A_DEV" "$B_DEV" <<'PY'
import datetime, json, sys
d, a, b = sys.argv[1:]
def t(s): return datetime.datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp()
for p in (0, 1):
    ja, jb = (json.load(open(f"{d}/p{p}-k{k}.json")) for k in (0, 1))
    assert ja["device"] == a and jb["device"] == b, (ja["device"], jb["device"])
    # The point's jobs of each round: the two devices' passes overlap pass by pass.
    for pa, pb in zip(ja["passes"], jb["passes"]):
        ov = min(t(pa["finished_at"]), t(pb["finished_at"])) - max(t(pa["started_at"]), t(pb["started_at"]))
        print(f"# point {p}: passes overlap {ov:.2f} s")
        assert ov > 0.5, (p, pa, pb)
    if "begun_at" in ja and ja["begun_at"] and jb["begun_at"]:
        # One start_at for both; each began at it, or as late as its agent says it was (a
        # loaded machine can make the agent late: it says so, and then the gap is that lateness).
        assert ja.get("start_at") and ja.get("start_at") == jb.get("start_at"), (ja.get("start_at"), jb.get("start_at"))
        gap = abs(t(ja["begun_at"]) - t(jb["begun_at"]))
        late = max(ja.get("start_late_s") or 0, jb.get("start_late_s") or 0)
        print(f"# point {p}: first passes began {gap:.3f} s apart (one start_at; latest {late:.3f} s late)")
        assert gap < 0.5 + late, (gap, late)
PY
it_eq "each point's two jobs ran at the same moment on their two devices" 0 $?
it_done
