#!/bin/bash
# it_ctl_revert_switch.sh -- a rollout's revert puts back what a scheduler switch reset (issue 31
# #13): a loop device at mq-deadline with nr_requests 64 and iosched/fifo_batch 8, a rollout of
# {"scheduler":"none"} (--check readback), then --revert: mq-deadline, 64 and 8 again (the
# kernel's switch back gave its defaults, 256 and 16), and verify --rollout says ok; a value
# changed afterwards is a difference verify names.
. "$(dirname "$0")/lib.sh"

it_need_root_sysfs
[ -x "$CTL_BIN" ] || it_skip "controller not built at $CTL_BIN"
dev=$(it_loop_create 64M) || it_skip "cannot create loop device"
grep -q mq-deadline "/sys/block/$dev/queue/scheduler" || it_skip "no mq-deadline on $dev"
echo mq-deadline >"/sys/block/$dev/queue/scheduler"
echo 64 >"/sys/block/$dev/queue/nr_requests"
echo 8 >"/sys/block/$dev/queue/iosched/fifo_batch"
it_agent_start n1 --allow-device "$dev" || exit 1
cat >"$IT_TMP/plan.json" <<PLAN
{"name": "it revert switch",
 "nodes": [{"name": "n1", "url": "$n1_URL", "device": "$dev", "token_file": "n1-state/token"}],
 "baseline": {"scheduler": "mq-deadline"},
 "axes": [{"param": "scheduler", "values": ["none"]}],
 "job": {"fio": {"rw": "write", "runtime_s": 1}}, "metric": "write.bw_mib"}
PLAN
ctl() { "$CTL_BIN" "$@" --db "$IT_TMP/ctl.db"; }
state() { echo "$(it_sys "$dev" scheduler) $(it_sys "$dev" nr_requests) $(cat "/sys/block/$dev/queue/iosched/fifo_batch" 2>/dev/null)"; }
it_eq "the device starts at mq-deadline 64 8" "mq-deadline 64 8" "$(state)"

ctl rollout "$IT_TMP/plan.json" --params '{"scheduler":"none"}' --check readback >"$IT_TMP/roll.out" 2>&1
it_eq "the rollout exits 0" 0 $?
it_eq "the device is at none" none "$(it_sys "$dev" scheduler)"
ctl rollout --revert r1 >"$IT_TMP/rev.out" 2>&1
it_eq "the revert exits 0" 0 $?
cat "$IT_TMP/rev.out" | sed 's/^/# /'
it_eq "the revert puts back the scheduler and what its switch reset" "mq-deadline 64 8" "$(state)"
ctl verify "$IT_TMP/plan.json" --rollout r1 >"$IT_TMP/verify.out" 2>&1
it_eq "verify --rollout r1 says ok" 0 $?
echo 128 >"/sys/block/$dev/queue/nr_requests"
sleep 1.5 # past the agent's cache of GET params, which a write behind its back does not end
ctl verify "$IT_TMP/plan.json" --rollout r1 >"$IT_TMP/verify2.out" 2>&1
it_eq "verify sees nr_requests changed after the revert" 1 $?
it_check "and names it" grep -q "nr_requests: live 128, 64 before the rollout" "$IT_TMP/verify2.out"
cat "$IT_TMP/verify2.out" | sed "s/^/# /"
it_done
