/* pending.h -- a previous run's unfinished writes (audit rows left 'pending' by kill -9),
 * completed or rolled back at start. */
#ifndef FT_PENDING_H
#define FT_PENDING_H

#include "device/tune.h"
#include "err.h"
#include "store/store.h"

/*
 * For each apply (a PATCH or PUT, recorded with its snapshot before its first write) that a
 * previous run did not end: if every write of it was made (all its rows there, the pending
 * ones' parameters now hold what was requested), its pending rows are closed as "ok";
 * otherwise the device is put back to the apply's snapshot, as a rollback at run time does
 * (rows "rolled_back", origin "rollback at start of ORIGIN"), and its pending rows are closed
 * as "interrupted". A pending row of no apply is closed as well: a sysctl write "ok" or
 * "interrupted" by what the sysctl holds, a restore's write "interrupted" (the session and job
 * restores that follow at start redo it). Returns how many applies and rows were recovered,
 * or -errno when the database cannot be read (the start stops). Sysfs failures are logged.
 */
int pending_recover(struct tune *t, struct store *s, struct err *e);

#endif
