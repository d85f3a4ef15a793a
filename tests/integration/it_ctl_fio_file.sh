#!/bin/bash
# it_ctl_fio_file.sh -- a plan whose job is an fio job file (job.fio_file, issue 29): on two
# real agents and loop devices with real fio, the controller reads the file beside the plan
# and sends its text; each agent runs it (the sweep decides on its figures), its jobs keep the
# file, and the stored sweep's plan carries the text so that it reads back without the file.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/ctl_lib.sh"

ctl_two_nodes
mkdir -p "$IT_TMP/jobs"
cat >"$IT_TMP/jobs/randrw.fio" <<'FIO'
; seed 000's mixed test, as its author would write it
[global]
ioengine=libaio
direct=1
iodepth=8
bs=64k
size=32m
runtime=1s
time_based

[mixed]
rw=randrw
rwmixread=70
FIO
ctl_plan "$IT_TMP/plan.json" grid 2 1 '[{"param":"nr_requests","values":[64]}]'
python3 - "$IT_TMP/plan.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
p["job"] = {"engine": "fio", "fio_file": "jobs/randrw.fio", "loops": 2}
p["metric"] = "read.bw_mib"
json.dump(p, open(sys.argv[1], "w"), indent=1)
PY
out=$(ctl sweep "$IT_TMP/plan.json" --dry-run 2>&1)
it_eq "dry run exits 0" 0 $?
ctl sweep "$IT_TMP/plan.json" --out "$IT_TMP/out.txt" 2>"$IT_TMP/err.txt"
it_eq "the sweep exits 0" 0 $?
cat "$IT_TMP/out.txt" "$IT_TMP/err.txt"
it_check "the table has node1's read MiB/s" grep -q 'node1 (MiB/s)' "$IT_TMP/out.txt"
ctl_restored "after the sweep"
it_http GET "$node1_URL/api/v1/jobs?limit=1" "$node1_TOKEN"
jid=$(jq '.jobs[0].id' <<<"$HTTP_BODY")
it_http GET "$node1_URL/api/v1/jobs/$jid?fields=spec,passes" "$node1_TOKEN"
it_check "node1's job is the file's text" jq -e --rawfile f "$IT_TMP/jobs/randrw.fio" '.spec.fio_file == $f and (.spec | has("fio") | not)' <<<"$HTTP_BODY"
it_check "... with reads and writes in its passes" jq -e '[.passes[].metrics | (."read.bw_mib" > 0) and (."write.bw_mib" > 0)] | all and length >= 1' <<<"$HTTP_BODY"
ctl show 1 --format json >"$IT_TMP/show.json"
it_check "the stored plan carries the file's text" jq -e --rawfile f "$IT_TMP/jobs/randrw.fio" '.plan.job.fio_file == {"path": "jobs/randrw.fio", "text": $f}' "$IT_TMP/show.json"
mv "$IT_TMP/jobs/randrw.fio" "$IT_TMP/jobs/gone.fio"
ctl analyze "$IT_TMP/show.json" >"$IT_TMP/analyze.txt" 2>&1
it_eq "analyze re-judges it without the file" 0 $?
it_done
