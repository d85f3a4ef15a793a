#!/bin/bash
# it_ctl_dbfull.sh -- a sweep whose --db fills up stops (issue 23 item 7): the point it cannot
# save ends the sweep, every node is restored, the error says what, and fleettune-ctl exits 1
# (not 0 with "completed").
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/ctl_lib.sh"

export FAKE_FIO_SLEEP_S=1
ctl_two_nodes --fio "$FT_SOURCE_DIR/tests/fixtures/fake-fio.sh"
dbdir=$IT_TMP/dbfs
mkdir -p "$dbdir"
mount -t tmpfs -o size=2m tmpfs "$dbdir" || it_skip "cannot mount a tmpfs here"
finish() { umount "$dbdir" 2>/dev/null; it_cleanup; }
trap finish EXIT
CTL_DB=$dbdir/ctl.db
ctl_plan "$IT_TMP/plan.json" grid 1 1 '[{"param":"nr_requests","values":[32,48,64,96,160,192]}]'
ctl sweep "$IT_TMP/plan.json" >"$IT_TMP/out.txt" 2>"$IT_TMP/err.txt" &
sweep=$!
# Once the sweep is under way, take every byte left on the --db filesystem.
it_wait_for "sweep started" 30 grep -q "point\|baseline\|running" "$IT_TMP/err.txt"
sleep 1.5
dd if=/dev/zero of="$dbdir/filler" bs=4k 2>/dev/null
sync
wait "$sweep"
rc=$?
tail -5 "$IT_TMP/err.txt" | sed 's/^/# /'
it_eq "the sweep exits 1" 1 "$rc"
it_check "the error says the measurements cannot be saved" grep -q "cannot be saved in --db" "$IT_TMP/err.txt"
it_check "... and not that it completed" bash -c "! grep -q 'completed' '$IT_TMP/err.txt'"
ctl_restored "db full"
rm -f "$dbdir/filler"
it_done
