#!/bin/bash
# it_ctl_earlystop.sh -- issue 28: work that cannot succeed is not run. Two agents on fake sysfs
# trees (no root): a job whose size is larger than the 1 GiB device (fio size 2g, dd 2048 x 1m)
# is refused at pre-flight, naming the size and the device; then with tests/fixtures/
# fake-fio.sh failing every job, the baseline fails on every node and the sweep stops at once
# (exit 1, the agents' reasons, status failed) instead of running every point; its failed cells
# say why; the summary line of a job with no fixed runtime quotes no "nominal fio time".
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/ctl_lib.sh"

ctl_fake_nodes 'base 1000
cv 0.02'
axes='[{"param": "nr_requests", "values": [128, 32, 64, 256]}]'

# Size pre-flight: the fake disks hold 1.0 GiB.
ctl_fake_plan "$IT_TMP/big.json" grid "$axes"
sed -i 's/"fio": {"rw": "write", "runtime_s": 1}/"fio": {"rw": "write", "size": "2g"}/' "$IT_TMP/big.json"
ctl sweep "$IT_TMP/big.json" >"$IT_TMP/big.txt" 2>"$IT_TMP/big.err"
it_eq "a job larger than the device is refused (exit 1)" 1 $?
cat "$IT_TMP/big.err"
it_check "at pre-flight, naming the size and the device" grep -q "^n1: the job needs 2.0 GiB (fio size 2g) but device 'sdb' holds 1.0 GiB: it cannot succeed" "$IT_TMP/big.err"
it_check "for each node" grep -q "^n2: the job needs 2.0 GiB" "$IT_TMP/big.err"
ctl nodes "$IT_TMP/big.json" >"$IT_TMP/big-nodes.txt" 2>&1
it_eq "nodes says so too (exit 1)" 1 $?
ctl_fake_plan "$IT_TMP/dd.json" grid "$axes"
sed -i 's/"fio": {"rw": "write", "runtime_s": 1}/"engine": "dd", "dd": {"count": 2048, "bs": "1m"}/' "$IT_TMP/dd.json"
sed -i 's/"metric": "write.bw_mib"/"metric": "write.bw_mib"/' "$IT_TMP/dd.json"
ctl nodes "$IT_TMP/dd.json" >"$IT_TMP/dd.txt" 2>&1
it_check "dd: count x bs against the device" grep -q "the job needs 2.0 GiB (dd count 2048 × bs 1048576) but device 'sdb' holds 1.0 GiB" "$IT_TMP/dd.txt" || cat "$IT_TMP/dd.txt"
it_check "no sweep was stored" bash -c "[ -z \"\$('$CTL_BIN' history --db '$CTL_DB' | sed 1d)\" ]"

# A baseline that fails on every node: stop at once.
kill -TERM "$n1_PID" "$n2_PID"
wait "$n1_PID" "$n2_PID" 2>/dev/null
export FAKE_FIO_FAIL=1
for i in 1 2; do
	it_agent_start "n$i" --sysfs-root "$IT_TMP/root$i" --allow-device sdb --fio "$FT_SOURCE_DIR/tests/fixtures/fake-fio.sh" || exit 1
done
ctl_fake_plan "$IT_TMP/fail.json" grid "$axes"
ctl sweep "$IT_TMP/fail.json" >"$IT_TMP/fail.txt" 2>"$IT_TMP/fail.err"
it_eq "the sweep exits 1" 1 $?
cat "$IT_TMP/fail.txt"
tail -3 "$IT_TMP/fail.err"
it_check "it stopped at once, with the agents' reasons" grep -q "sweep 1 stopped at once: the baseline failed on every node (n1: job [0-9]* failed: engine_failed: .*; n2: job" "$IT_TMP/fail.err"
jobs=$(grep -c "queued" "$n1_LOG")
# One round is 4 jobs; the next run's job is queued while the current one runs (start_at),
# so a baseline that comes last in its round leaves one more job behind it.
it_check "n1 ran at most one round of the block and the next run's job, not 4 points x 5 loops ($jobs jobs)" test "$jobs" -le 5
it_check "the baseline's failed cells say why" grep -Eq '^\| 128 +\| failed: [^|]+\| failed: [^|]+\|' "$IT_TMP/fail.txt"
it_eq "its status is failed" failed "$(ctl show 1 --format json | jq -r .status)"
it_check "the end line quotes no nominal time for a job without runtime_s" bash -c "! grep -q 'nominal fio time 0 s' '$IT_TMP/fail.err'"
it_done
