#!/bin/bash
# it_ctl_cohorts.sh -- cohorts end to end: two real agents on temp --sysfs-root trees whose
# disks differ in model (ST300MM0008 and MZ7LH480), bench/fakefio answering with a per-cohort
# effect (nr_requests 256: +10 % on the first model, -10 % on the second), a grid sweep with
# cohort_by: pre-flight prints the cohorts, the row is split with each cohort's own verdict, the
# best is chosen per cohort, the JSON carries it (schema-valid), export writes one udev rule and
# one tuned profile per cohort matching the model, apply --best gives each node its cohort's
# value, analyze --cohort-by re-judges the document as one fleet; a sequential sweep carries
# each cohort's winner forward for its nodes; nodes from an Ansible inventory are grouped by
# its labels; identity strings with glob characters or a quote are matched exactly or refused.
# No root needed.
. "$(dirname "$0")/lib.sh"

FAKEFIO=$FT_BUILD_DIR/bench/fakefio
it_need_built "$CTL_BIN"
it_need_built "$FAKEFIO"
it_need_built "$AGENT_BIN"

# The surface: 1000 MiB/s, CV 2 %, nr_requests 256 helps one model and hurts the other.
cat >"$IT_TMP/surface.spec" <<'SPEC'
base 1000
cv 0.02
node_sd 0
if device/model ST300MM0008 param nr_requests 256 1.10
if device/model MZ7LH480 param nr_requests 256 0.90
SPEC
export FAKEFIO_CTL=$IT_TMP/fakefio.ctl
printf 'spec %s\nseed 19\ncounter %s\nsleep_ms 1\n' "$IT_TMP/surface.spec" "$IT_TMP/cnt" >"$FAKEFIO_CTL"

it_fake_scsi_device "$IT_TMP/root1" sdb ST300MM0008 2.1 ATA Z1Z0AAAA
it_fake_scsi_device "$IT_TMP/root2" sdb MZ7LH480 HXT7 ATA S4AAAAAA
for i in 1 2; do
	mkdir -p "$IT_TMP/root$i/proc/sys/kernel"
	echo 6.1.0-18-amd64 >"$IT_TMP/root$i/proc/sys/kernel/osrelease"
	FAKEFIO_SYSFS=$IT_TMP/root$i FAKEFIO_NODE=$i \
		it_agent_start "n$i" --sysfs-root "$IT_TMP/root$i" --allow-device sdb --fio "$FAKEFIO" ||
		exit 1
done

plan() { # plan FILE NODES_JSON
	cat >"$1" <<PLAN
{"name": "it cohorts",
 "nodes": $2,
 "baseline": {"nr_requests": 128},
 "axes": [{"param": "nr_requests", "values": [128, 256]}],
 "strategy": "grid", "cohort_by": ["model", "firmware"],
 "job": {"fio": {"rw": "write", "runtime_s": 1}, "loops": 5},
 "metric": "write.bw_mib", "min_effect_pct": 5}
PLAN
}
plan "$IT_TMP/plan.json" "[{\"name\": \"n1\", \"url\": \"$n1_URL\", \"device\": \"sdb\", \"token_file\": \"n1-state/token\"},
  {\"name\": \"n2\", \"url\": \"$n2_URL\", \"device\": \"sdb\", \"token_file\": \"n2-state/token\"}]"
# ctl COMMAND ARGS...: fleettune-ctl with the test's database, for the commands that take one.
ctl() {
	case $1 in
	nodes | analyze | help) "$CTL_BIN" "$@" ;;
	*) "$CTL_BIN" "$@" --db "$IT_TMP/ctl.db" ;;
	esac
}

# nodes: what each node is and the cohorts, before anything runs.
ctl nodes "$IT_TMP/plan.json" >"$IT_TMP/nodes.txt" 2>&1
it_eq "nodes exits 0" 0 $?
it_check "nodes says what n1's disk is" grep -q "  is: vendor=ATA model=ST300MM0008 firmware=2.1 serial=Z1Z0AAAA transport=scsi .*kernel=6.1.0-18-amd64" "$IT_TMP/nodes.txt"
it_check "nodes prints the cohorts" grep -q "^cohorts by model, firmware: 2$" "$IT_TMP/nodes.txt"

# The same nodes from an Ansible inventory, grouped by the label its variables give them.
n1_hp=${n1_URL#http://}
n2_hp=${n2_URL#http://}
cat >"$IT_TMP/inventory.ini" <<INI
[rack1]
n1 ansible_host=${n1_hp%:*} fleettune_port=${n1_hp##*:} fleettune_token_file=n1-state/token
[rack2]
n2 ansible_host=${n2_hp%:*} fleettune_port=${n2_hp##*:} fleettune_token_file=n2-state/token
[rack1:vars]
fleettune_label_rack=r1
[rack2:vars]
fleettune_label_rack=r2
[all:vars]
fleettune_device=sdb
INI
sed 's/"cohort_by": \["model", "firmware"\]/"cohort_by": ["label.rack", "kernel"]/' "$IT_TMP/plan.json" >"$IT_TMP/plan_racks.json"
ctl nodes "$IT_TMP/plan_racks.json" --nodes-from "$IT_TMP/inventory.ini" >"$IT_TMP/nodes_racks.txt" 2>&1
it_eq "nodes --nodes-from an inventory exits 0" 0 $?
it_check "its cohorts are the inventory's racks" grep -q "^cohorts by label.rack, kernel: 2$" "$IT_TMP/nodes_racks.txt"
it_check "rack r2's cohort names n2" grep -q "label.rack=r2 kernel=6.1.0-18-amd64 (1 node): n2" "$IT_TMP/nodes_racks.txt" ||
	cat "$IT_TMP/nodes_racks.txt"

ctl sweep "$IT_TMP/plan.json" >"$IT_TMP/sweep.txt" 2>"$IT_TMP/sweep.err"
it_eq "sweep exits 0" 0 $?
cat "$IT_TMP/sweep.txt"
it_check "pre-flight prints the cohorts" grep -q "cohorts by model, firmware: 2" "$IT_TMP/sweep.err"
it_check "pre-flight names each cohort's nodes" grep -q "model=MZ7LH480 firmware=HXT7 (1 node): n2" "$IT_TMP/sweep.err"
it_check "the row is split by cohort" grep -q "| by cohort .*| cohorts differ (between cohorts p" "$IT_TMP/sweep.txt"
it_check "the first cohort's row: a significant gain" grep -q "↳ model=ST300MM0008 firmware=2.1 (1 node) .*| +[0-9.]* % .*| significant gain" "$IT_TMP/sweep.txt"
it_check "the second cohort's row: a significant loss" grep -q "↳ model=MZ7LH480 firmware=HXT7 (1 node) .*| −[0-9.]* % .*| significant loss" "$IT_TMP/sweep.txt"
it_check "best per cohort" grep -q "^best per cohort (the cohorts' effects differ):$" "$IT_TMP/sweep.txt"
# (+10 % true, CV 2 % on one node: the figure is whatever the seeded noise of the rounds' order
# gave, within its interval.)
it_check "the first cohort keeps nr_requests=256" grep -Eq "^  model=ST300MM0008 firmware=2.1 \(1 node\): nr_requests=256  \+[0-9]+\.[0-9] % \(significant gain on its one node\)$" "$IT_TMP/sweep.txt"
it_check "the second keeps its baseline" grep -q "^  model=MZ7LH480 firmware=HXT7 (1 node): the baseline" "$IT_TMP/sweep.txt"

ctl show 1 --format json >"$IT_TMP/sweep.json"
python3 - "$IT_TMP/sweep.json" "$FT_SOURCE_DIR/schema/sweep.schema.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["cohort_by"] == ["model", "firmware"], d["cohort_by"]
assert [c["key"] for c in d["cohorts"]] == ["model=ST300MM0008 firmware=2.1", "model=MZ7LH480 firmware=HXT7"]
assert d["cohorts"][0]["best"]["params"] == {"nr_requests": 256} and d["cohorts"][0]["best"]["own"]
assert d["cohorts"][1]["best"] is None
assert d["nodes"][0]["identity"]["model"] == "ST300MM0008" and d["nodes"][1]["cohort"] == 1
assert d["nodes"][0]["identity"]["kernel"] == "6.1.0-18-amd64"
p = d["points"][1]
assert p["verdict"] == "cohorts" and p["between"]["split"], p["between"]
assert [c["verdict"] for c in p["cohorts"]] == ["gain", "loss"], p["cohorts"]
assert d["best"] is None and d["outcome"] == "best"
try:
    import jsonschema
    jsonschema.Draft202012Validator(json.load(open(sys.argv[2]))).validate(d)
    print("# schema-valid")
except ImportError:
    pass
PY
it_eq "the sweep document carries the cohorts" 0 $?

ctl history >"$IT_TMP/history.txt"
it_check "history: the best is per cohort" grep -q "best: per cohort" "$IT_TMP/history.txt"

# The jobs recorded what their devices were.
it_http GET "$n2_URL/api/v1/results?limit=1" "$n2_TOKEN"
it_eq "a job's identity is in the results" MZ7LH480 "$(echo "$HTTP_BODY" | jq -r '.results[0].identity.device.model')"

# Exports: one rule / profile per cohort, matching the model; never a device name.
ctl export 1 --format udev >"$IT_TMP/60-fleettune.rules"
it_eq "export udev exits 0" 0 $?
cat "$IT_TMP/60-fleettune.rules"
it_eq "one rule: the second cohort has no best" 1 "$(grep -c '^ACTION==' "$IT_TMP/60-fleettune.rules")"
it_check "and says so" grep -q "^# no configuration gave it a significant gain: no rule" "$IT_TMP/60-fleettune.rules"
it_check "no device name" bash -c "! grep -q 'KERNEL==' '$IT_TMP/60-fleettune.rules'"
it_check "the first cohort's rule" grep -q '^ACTION=="add|change", SUBSYSTEM=="block", ENV{DEVTYPE}=="disk", ATTRS{model}=="ST300MM0008", ATTRS{rev}=="2.1", ATTR{queue/nr_requests}="256"$' "$IT_TMP/60-fleettune.rules"
ctl export 1 --format udev --baseline >"$IT_TMP/baseline.rules"
it_check "--baseline: the second cohort's baseline on purpose" grep -q 'ATTRS{model}=="MZ7LH480", ATTRS{rev}=="HXT7", ATTR{queue/nr_requests}="128"$' "$IT_TMP/baseline.rules"
ctl export 1 --format tuned >"$IT_TMP/tuned.conf"
it_eq "export tuned exits 0" 0 $?
it_eq "one profile" 1 "$(grep -c '^# ---- profile fleettune-1-c' "$IT_TMP/tuned.conf")"
it_check "it matches its model" grep -q '^devices_udev_regex=(?s)\\A(?=.\*^ID_MODEL=ST300MM0008$)' "$IT_TMP/tuned.conf"
# Each profile's regex, as tuned applies it (re.search over the device's udev properties, one
# KEY=value line each, MULTILINE), selects its cohort's disks and not the other's.
ctl export 1 --format tuned --baseline >"$IT_TMP/tuned_both.conf"
it_check "tuned's regexes select each cohort's disks only" python3 - "$IT_TMP/tuned_both.conf" <<'PY'
import re, sys
rx = [l.split("=", 1)[1].rstrip("\n") for l in open(sys.argv[1]) if l.startswith("devices_udev_regex=")]
assert len(rx) == 2, rx
disks = ["DEVNAME=/dev/sdb\nID_MODEL=ST300MM0008\nID_REVISION=2.1\nID_VENDOR=ATA\n",
         "DEVNAME=/dev/sdc\nID_MODEL=MZ7LH480\nID_REVISION=HXT7\nID_VENDOR=ATA\n"]
for i, r in enumerate(rx):
    for j, d in enumerate(disks):
        hit = re.search(r, d, re.MULTILINE) is not None
        assert hit == (i == j), (r, d, hit)
PY

# apply --best: each node its cohort's best (n1 256, n2 untouched at 128).
echo 64 >"$IT_TMP/root2/sys/block/sdb/queue/nr_requests"
ctl apply "$IT_TMP/plan.json" --best 1 >"$IT_TMP/apply.txt"
it_eq "apply --best exits 0" 0 $?
cat "$IT_TMP/apply.txt"
it_eq "n1 got its cohort's best" 256 "$(cat "$IT_TMP/root1/sys/block/sdb/queue/nr_requests")"
it_eq "n2's cohort has no best: untouched" 64 "$(cat "$IT_TMP/root2/sys/block/sdb/queue/nr_requests")"
it_check "apply says why" grep -q "^n2 sdb: not applied: cohort model=MZ7LH480 firmware=HXT7: no configuration gave it a significant gain$" "$IT_TMP/apply.txt"

# analyze --cohort-by: the same passes as one fleet (no split), then by firmware alone.
"$CTL_BIN" analyze "$IT_TMP/sweep.json" --cohort-by "" --format json >"$IT_TMP/one.json"
it_eq "analyze --cohort-by '' exits 0" 0 $?
it_eq "one cohort: the row is the fleet's" "1 heterogeneous" "$(jq -r '"\(.cohorts | length) \(.points[1].verdict)"' "$IT_TMP/one.json")"
"$CTL_BIN" analyze "$IT_TMP/sweep.json" --cohort-by firmware >"$IT_TMP/fw.txt"
it_check "by firmware: split again" grep -q "↳ firmware=HXT7 (1 node)" "$IT_TMP/fw.txt"
"$CTL_BIN" analyze "$IT_TMP/sweep.json" --cohort-by colour >/dev/null 2>"$IT_TMP/bad.err"
it_eq "an unknown key is refused" 64 $?
it_check "and named" grep -q "cohort-by: 'colour' is neither an identity field" "$IT_TMP/bad.err"

# Sequential per cohort: nr_requests splits, so read_ahead_kb runs over each cohort's own
# nr_requests on its nodes, and the final confirmation judges each cohort's configuration.
echo "param read_ahead_kb 256 1.08" >>"$IT_TMP/surface.spec"
for i in 1 2; do echo 128 >"$IT_TMP/root$i/sys/block/sdb/queue/nr_requests"; done
sed -e 's/"baseline": {"nr_requests": 128}/"baseline": {"nr_requests": 128, "read_ahead_kb": 128}/' \
	-e 's/"axes": \[{"param": "nr_requests", "values": \[128, 256\]}\]/"axes": [{"param": "nr_requests", "values": [128, 256]}, {"param": "read_ahead_kb", "values": [128, 256]}]/' \
	-e 's/"strategy": "grid"/"strategy": "sequential"/' "$IT_TMP/plan.json" >"$IT_TMP/seq.json"
ctl sweep "$IT_TMP/seq.json" >"$IT_TMP/seq.txt" 2>"$IT_TMP/seq.err"
it_eq "sequential sweep exits 0" 0 $?
cat "$IT_TMP/seq.txt"
it_check "axis 2 runs each cohort's own nr_requests" grep -q "^| 256|128 " "$IT_TMP/seq.txt"
it_check "the final confirmation is judged per cohort" grep -q "final vs original baseline: cohorts differ" "$IT_TMP/seq.txt"
it_check "the first cohort keeps both values" grep -q "^  model=ST300MM0008 firmware=2.1 (1 node): nr_requests=256 read_ahead_kb=256 " "$IT_TMP/seq.txt"
it_check "the second keeps read_ahead_kb only" grep -q "^  model=MZ7LH480 firmware=HXT7 (1 node): nr_requests=128 read_ahead_kb=256 " "$IT_TMP/seq.txt"
ctl export 2 --format udev >"$IT_TMP/seq.rules"
it_check "its rules: each cohort's own" grep -q 'ATTRS{model}=="MZ7LH480", ATTRS{rev}=="HXT7", ATTR{queue/nr_requests}="128", ATTR{queue/read_ahead_kb}="256"$' "$IT_TMP/seq.rules"
ctl show 2 --format json | "$CTL_BIN" analyze - >"$IT_TMP/seq.analyze.txt"
it_eq "the stored per-node configurations read back as they ran" "$(cat "$IT_TMP/seq.txt")" "$(cat "$IT_TMP/seq.analyze.txt")"

# Identity strings come from the agents: a model with glob characters is matched exactly; one
# with a quote cannot be held exactly by a udev rule, so that export is refused (nothing
# written), while tuned's regex holds it as \x22.
m2=$IT_TMP/root2/sys/block/sdb/device/model
printf '%-16s\n' 'MZ7LH*480[1]' >"$m2"
ctl sweep "$IT_TMP/plan.json" >/dev/null 2>"$IT_TMP/glob.err"
it_eq "a sweep with a glob model exits 0" 0 $?
ctl export 3 --format udev --baseline >"$IT_TMP/glob.rules"
it_check "the glob model is matched exactly" grep -qF 'ATTRS{model}=="MZ7LH[*]480[[]1]", ' "$IT_TMP/glob.rules"
printf '%-16s\n' 'MZ7", RUN+="/x' >"$m2"
ctl sweep "$IT_TMP/plan.json" >/dev/null 2>"$IT_TMP/quote.err"
it_eq "a sweep with a quote in a model exits 0" 0 $?
ctl export 4 --format udev --baseline >"$IT_TMP/quote.rules" 2>"$IT_TMP/quote.export.err"
it_eq "its udev export is refused" 1 $?
it_check "naming the cohort and the field" grep -q 'cohort 2 (model=MZ7.* firmware=HXT7): its model has a character (0x22) a udev rule cannot match exactly' "$IT_TMP/quote.export.err"
it_eq "nothing written" "" "$(cat "$IT_TMP/quote.rules")"
ctl export 4 --format tuned --baseline >"$IT_TMP/quote.tuned"
it_eq "its tuned export is written" 0 $?
it_check "the quote as \\x22 (or udev's _)" grep -qF 'ID_MODEL=MZ7(?:\x22|_)(?:\x2c|_)[ _]+RUN[+]\x3d(?:\x22|_)(?:\x2f|_)x$)' "$IT_TMP/quote.tuned"
it_check "no quote on a profile line" bash -c "! grep -v '^#' '$IT_TMP/quote.tuned' | grep -q '\"'"
it_check "tuned's regex selects that model as the kernel or udev writes it, nothing wider" \
	python3 - "$IT_TMP/quote.tuned" <<'PY'
import re, sys
rx = [l.split("=", 1)[1].rstrip("\n") for l in open(sys.argv[1]) if "ID_MODEL=MZ7" in l][0]
def hit(model):
    return re.search(rx, "ID_MODEL=%s\nID_REVISION=HXT7\n" % model, re.MULTILINE) is not None
assert hit('MZ7", RUN+="/x') and hit("MZ7___RUN+=__x"), rx
assert not hit('MZ7x, RUN+="/x') and not hit('MZ7", RUN+="/xy') and not hit("MZ7"), rx
PY
printf '%-16s\n' MZ7LH480 >"$m2"
it_done
