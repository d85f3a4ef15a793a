/* store_priv.h -- what the agent's store files (store.c, store_job.c, store_metrics.c) share. */
#ifndef FT_STORE_PRIV_H
#define FT_STORE_PRIV_H

#include <sqlite3.h>

#include "db.h"
#include "store.h"

struct store {
	struct db *db; /* db_lock() around every statement sequence: the store is thread-safe */
};

/* A row of (device, snapshot JSON) for a session's or a job's restore point. */
struct store_snapshot_row {
	char device[64];
	char *text; /* owned; NULL for SQL NULL */
};

/* db_fetch_one() row callback filling a struct store_snapshot_row. */
void store_snapshot_row(sqlite3_stmt *st, void *elem);

#endif
