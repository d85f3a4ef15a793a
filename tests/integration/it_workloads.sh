#!/usr/bin/env bash
# it_workloads.sh -- a job with workloads (issue 29) against a real agent, real fio and a loop
# device: 3 workloads, 2 loops of 1 s each; one fio invocation per pass with a stonewalled
# section per workload; every pass carries each workload's metrics in the job's order (the
# pass's own metrics are the first's), the summary per workload, GET until=end and fields,
# /results?workload=; the dry run lists each workload's metrics; bad workloads are refused
# naming them, with nothing stored.
. "$(dirname "$0")/lib.sh"
it_need_root_sysfs
command -v fio >/dev/null || it_skip "fio not installed"
command -v jq >/dev/null || it_skip "jq not installed"

dev=$(it_loop_create 256M)
argv_log="$IT_TMP/fio-argv.log"
# fio through a wrapper that logs its argv, to count the invocations and see the sections.
wrap="$IT_TMP/fio-wrap.sh"
printf '#!/bin/sh\nfor a in "$@"; do printf "%%s\\n" "$a" >>"%s"; done\necho -- >>"%s"\nexec %s "$@"\n' \
	"$argv_log" "$argv_log" "$(command -v fio)" >"$wrap"
chmod +x "$wrap"
it_agent_start a --allow-device "$dev" --fio "$wrap" || exit 1
U=$a_URL/api/v1
T=$a_TOKEN
it_log "agent $a_URL, device $dev"

jqe() { jq -e "$@" >/dev/null; }
jobs_count() { it_http GET "$U/jobs?limit=500" "$T"; jq '.jobs|length' <<<"$HTTP_BODY"; }

it_http GET "$U/health" ""
it_check "health lists workloads" jqe '.features|index("workloads")' <<<"$HTTP_BODY"

W='[{"name":"seq read 1M","fio":{"rw":"read","bs":"1m"}},
    {"name":"rand read 4k","fio":{"rw":"randread","bs":"4k","numjobs":2}},
    {"name":"rand write 4k","fio":{"rw":"randwrite","bs":"4k","iodepth":4,"ioengine":"libaio"}}]'
BODY=$(jq -c -n --arg d "$dev" --argjson w "$W" \
	'{device:$d,engine:"fio",loops:2,labels:{suite:"it29"},
	  fio:{runtime_s:1,time_based:true,rate_iops:1024,ioengine:"psync",direct:true},workloads:$w}')

# 1. Bad workloads: 400 naming the workload, nothing stored.
n0=$(jobs_count)
bad() {
	local desc=$1 want=$2 body=$3
	it_http POST "$U/jobs" "$T" "$body"
	it_eq "$desc: 400" 400 "$HTTP_STATUS"
	it_check "$desc: the message names it ($(jq -r .error.message <<<"$HTTP_BODY"))" \
		grep -qF -- "$want" <<<"$(jq -r .error.message <<<"$HTTP_BODY")"
}
bad "a bad option in a workload" 'workloads[1] "rand read 4k": fio.iodepth: must be 1..4096' \
	"$(jq -c '.workloads[1].fio.iodepth=0' <<<"$BODY")"
bad "an unknown option in a workload" 'workloads[0] "seq read 1M": fio.exec_prerun: unknown option' \
	"$(jq -c '.workloads[0].fio.exec_prerun="x"' <<<"$BODY")"
bad "a duplicate name" 'workloads[2].name: "seq read 1M" is workloads[0]' \
	"$(jq -c '.workloads[2].name="seq read 1M"' <<<"$BODY")"
bad "a name with a slash" 'workloads[0].name: required' \
	"$(jq -c '.workloads[0].name="a/b"' <<<"$BODY")"
bad "a name starting with a space" 'workloads[0].name' "$(jq -c '.workloads[0].name=" x"' <<<"$BODY")"
bad "an unknown key" 'workloads[1].metric: unknown field' "$(jq -c '.workloads[1].metric="x"' <<<"$BODY")"
bad "no workloads" 'workloads: expected an array of 1..16' "$(jq -c '.workloads=[]' <<<"$BODY")"
bad "17 workloads" 'workloads: expected an array of 1..16' \
	"$(jq -c '.workloads=[range(17)|{name:"w\(.)",fio:{}}]' <<<"$BODY")"
bad "another engine" 'workloads: only with engine fio' \
	"$(jq -c '.engine="dd"|.dd={count:1}' <<<"$BODY")"
bad "a section rule" 'workloads[0] "seq read 1M": fio.time_based: needs runtime_s' \
	"$(jq -c 'del(.fio.runtime_s)|.workloads[1].fio.runtime_s=1|.workloads[2].fio.runtime_s=1' <<<"$BODY")"
it_eq "no job stored for a bad workload" "$n0" "$(jobs_count)"
it_check "fio never ran for them" test ! -s "$argv_log"

# 2. Dry run: each workload's metrics, the time of all sections, nothing queued.
it_http POST "$U/jobs?dry_run=true" "$T" "$BODY"
it_eq "dry run: 200" 200 "$HTTP_STATUS"
it_eq "dry run: 2 loops of three 1 s sections" 6 "$(jq .expected_runtime_s <<<"$HTTP_BODY")"
it_eq "dry run: the workloads in order" '["seq read 1M","rand read 4k","rand write 4k"]' \
	"$(jq -c '[.workloads[].name]' <<<"$HTTP_BODY")"
it_check "dry run: the write workload reports write.iops" \
	jqe '.workloads[2].metrics|index("write.iops")' <<<"$HTTP_BODY"
it_check "dry run: and no read.bw_mib" jqe '.workloads[2].metrics|index("read.bw_mib")|not' <<<"$HTTP_BODY"
it_eq "dry run: the spec echoes the workloads as given" '{"rw":"randread","bs":"4K","numjobs":2}' \
	"$(jq -c '.job.workloads[1].fio' <<<"$HTTP_BODY")"
it_eq "dry run: nothing queued" "$n0" "$(jobs_count)"

# 3. The job: 2 passes, each one fio run of 3 sections.
it_http POST "$U/jobs" "$T" "$BODY"
it_eq "POST job: 202" 202 "$HTTP_STATUS"
id=$(jq .id <<<"$HTTP_BODY")
it_http GET "$U/jobs/$id?wait_s=60&until=end&fields=state,passes,summary" "$T"
J=$HTTP_BODY
it_eq "the job succeeded ($(jq -c .error <<<"$J"))" succeeded "$(jq -r .state <<<"$J")"
it_eq "until=end with fields: only those members" '["id","passes","state","summary","summary_workloads","version"]' \
	"$(jq -c 'keys' <<<"$J")"
it_eq "two passes" 2 "$(jq '.passes|length' <<<"$J")"
it_eq "fio ran once per pass" 2 "$(grep -c '^--$' "$argv_log")"
it_eq "each run has three sections" 3 "$(head -n "$(grep -n -m1 '^--$' "$argv_log" | cut -d: -f1)" "$argv_log" | grep -c '^--name=')"
it_eq "sections 2 and 3 are stonewalled" 2 "$(head -n "$(grep -n -m1 '^--$' "$argv_log" | cut -d: -f1)" "$argv_log" | grep -c '^--stonewall$')"
for p in 0 1; do
	it_eq "pass $p: workloads in the job's order" '["seq read 1M","rand read 4k","rand write 4k"]' \
		"$(jq -c ".passes[$p].workloads|map(.name)" <<<"$J")"
	it_check "pass $p: seq read has read.bw_mib > 0" jqe ".passes[$p].workloads[0].metrics[\"read.bw_mib\"] > 0" <<<"$J"
	it_check "pass $p: rand read has read.iops and a p99" \
		jqe ".passes[$p].workloads[1].metrics | (.[\"read.iops\"] > 0 and .[\"read.clat_p99_us\"] > 0)" <<<"$J"
	it_check "pass $p: rand write writes and does not read" \
		jqe ".passes[$p].workloads[2].metrics | (.[\"write.iops\"] > 0 and (has(\"read.bw_mib\")|not))" <<<"$J"
	it_eq "pass $p: its own metrics are the first workload's" \
		"$(jq -c ".passes[$p].workloads[0].metrics" <<<"$J")" "$(jq -c ".passes[$p].metrics" <<<"$J")"
done
it_check "the sections measured different things (1M reads beat 4k reads per I/O)" \
	jqe '.passes[0].workloads[0].metrics["read.clat_mean_us"] > .passes[0].workloads[1].metrics["read.clat_mean_us"]' <<<"$J"
it_eq "summary_workloads in order" '["seq read 1M","rand read 4k","rand write 4k"]' \
	"$(jq -c '[.summary_workloads[].name]' <<<"$J")"
it_eq "each workload's summary is over both passes" 2 \
	"$(jq '.summary_workloads[1].summary["read.iops"].n' <<<"$J")"
it_eq "its mean is the passes' mean" \
	"$(jq '[.passes[].workloads[1].metrics["read.iops"]]|add/2|.*1000|round' <<<"$J")" \
	"$(jq '.summary_workloads[1].summary["read.iops"].mean|.*1000|round' <<<"$J")"
it_eq "the job's summary is the first workload's" \
	"$(jq -c '.summary_workloads[0].summary' <<<"$J")" "$(jq -c .summary <<<"$J")"

# 4. The whole job: the spec holds the workloads; the raw output is fio's, one entry a section.
it_http GET "$U/jobs/$id" "$T"
it_eq "spec: the workloads as given (normalised)" '[{"name":"seq read 1M","fio":{"rw":"read","bs":"1M"}},{"name":"rand read 4k","fio":{"rw":"randread","bs":"4K","numjobs":2}},{"name":"rand write 4k","fio":{"rw":"randwrite","ioengine":"libaio","bs":"4K","iodepth":4}}]' \
	"$(jq -c .spec.workloads <<<"$HTTP_BODY")"
it_http GET "$U/jobs/$id/raw?loop=2" "$T"
it_eq "raw: fio's JSON names each section's workload" '["seq read 1M","rand read 4k","rand write 4k"]' \
	"$(jq -c '[.jobs[].desc]' <<<"$HTTP_BODY")"

# 5. /results?workload=
it_http GET "$U/results?workload=rand%20read%204k" "$T"
it_eq "results: workload= finds the job" "$id" "$(jq '.results[0].id' <<<"$HTTP_BODY")"
it_check "results: with its passes' workloads" jqe '.results[0].passes[1].workloads[2].metrics["write.iops"] > 0' <<<"$HTTP_BODY"
it_http GET "$U/results?workload=nope" "$T"
it_eq "results: another name finds none" 0 "$(jq '.results|length' <<<"$HTTP_BODY")"

# 6. A plain job still answers as before: no workloads anywhere.
it_job_run "plain job" "$U" "$T" "$(jq -c -n --arg d "$dev" '{device:$d,engine:"fio",fio:{rw:"read",bs:"1m",runtime_s:1,time_based:true,rate_iops:64}}')"
it_eq "plain job succeeded" succeeded "$(jq -r .state <<<"$HTTP_BODY")"
it_eq "plain job: no workload members" 'false false' \
	"$(jq -r '[(.passes[0]|has("workloads")), has("summary_workloads")]|map(tostring)|join(" ")' <<<"$HTTP_BODY")"
it_http GET "$U/results?workload=seq%20read%201M" "$T"
it_eq "results: the plain job is not a workload's" "$id" "$(jq -c '[.results[].id]|join(",")' -r <<<"$HTTP_BODY")"

# 7. The fake fio (tests/fixtures/fake-fio.sh) answers a section per workload, with the figures
# it is given per workload name (what the controller's suite tests drive agents with).
echo 'seq read 1M=512.5,rand read 4k=30' >"$IT_TMP/bw"
FAKE_FIO_WORKLOAD_BW_FILE=$IT_TMP/bw FAKE_FIO_WORKLOAD_P99_US='rand write 4k=2500' \
	it_agent_start f --allow-device "$dev" --fio "$FT_SOURCE_DIR/tests/fixtures/fake-fio.sh" || exit 1
it_http POST "$f_URL/api/v1/jobs" "$f_TOKEN" "$BODY"
it_eq "fake fio: POST job: 202" 202 "$HTTP_STATUS"
fid=$(jq .id <<<"$HTTP_BODY")
it_http GET "$f_URL/api/v1/jobs/$fid?wait_s=60&until=end" "$f_TOKEN"
it_eq "fake fio: the job succeeded ($(jq -c .error <<<"$HTTP_BODY"))" succeeded "$(jq -r .state <<<"$HTTP_BODY")"
it_eq "fake fio: each workload's bandwidth as given (the third by its index)" '[512.5,30,120]' \
	"$(jq -c '[.passes[1].workloads[] | (.metrics["read.bw_mib"] // .metrics["write.bw_mib"])]' <<<"$HTTP_BODY")"
it_eq "fake fio: iops from bs (30 MiB/s of 4k)" 7680 "$(jq '.passes[0].workloads[1].metrics["read.iops"]' <<<"$HTTP_BODY")"
it_eq "fake fio: the p99 as given" 2500 "$(jq '.passes[0].workloads[2].metrics["write.clat_p99_us"]' <<<"$HTTP_BODY")"
it_eq "fake fio: the summary per workload" 512.5 "$(jq '.summary_workloads[0].summary["read.bw_mib"].mean' <<<"$HTTP_BODY")"

it_done
