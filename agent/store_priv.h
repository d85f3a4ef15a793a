/* store_priv.h -- what the agent's store files (store.c, store_job.c, store_metrics.c) share. */
#ifndef FT_STORE_PRIV_H
#define FT_STORE_PRIV_H

#include <sqlite3.h>

#include "db.h"
#include "store.h"

struct store {
	struct db *db; /* db_lock() around every statement sequence: the store is thread-safe */
};

/* One write statement under the store's lock: db_run() (rows changed, or -EIO). */
int store_write(struct store *s, struct err *e, const char *what, const char *sql, const char *fmt,
                ...);

/*
 * Run sql, which selects (device, snapshot JSON) of the row whose id is its one "?", and
 * decode the snapshot into out (release with tune_snapshot_release); *found says the row had
 * one. -ENOENT "not_found" ("no NOUN ID") if there is no such row.
 */
int store_snapshot_get(struct store *s, const char *sql, int64_t id, const char *noun,
                       struct tune_snapshot *out, bool *found, struct err *e);

#endif
