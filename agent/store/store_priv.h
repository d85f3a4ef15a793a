/* store_priv.h -- what the agent's store files (store.c, store_job.c, store_metrics.c) share. */
#ifndef FT_STORE_PRIV_H
#define FT_STORE_PRIV_H

#include "db.h"
#include "store/store.h"

#include "store/store_metrics.h"

#define STORE_OUTCOMES_MAX 16

struct store {
	struct db *db; /* db_lock() around every statement sequence: the store is thread-safe */
	/* For /metrics, so that a scrape costs the same whatever the history (under db_lock):
	 * the audit log's rows per outcome, counted once and then kept as rows are written;
	 * and every other write bumps gen, which the cached job aggregates are valid for. */
	struct store_count outcomes[STORE_OUTCOMES_MAX];
	int n_outcomes;
	bool outcomes_known;
	uint64_t gen;
	uint64_t states_gen; /* gen the cached job state counts are of (0: none) */
	int64_t *states;
	int n_states;
	uint64_t last_gen; /* gen the cached last job metrics are of (0: none) */
	struct store_job_metric *last;
	int n_last;
};

/* Count a row of the audit log moving to outcome (delta +1) or away from it (-1); with
 * db_lock held. */
void store_outcome_count(struct store *s, const char *outcome, int delta);

/* One write statement under the store's lock: db_run() (rows changed, or -EIO). */
int store_write(struct store *s, struct err *e, const char *what, const char *sql, const char *fmt,
                ...);

/* A transaction of several writes: the store's lock, then BEGIN IMMEDIATE. Always end it with
 * store_tx_end(), which COMMITs when rc >= 0 (else ROLLBACKs), unlocks and returns rc or the
 * COMMIT's error. */
int store_tx_begin(struct store *s, struct err *e);
int store_tx_end(struct store *s, int rc, struct err *e);

/* Under the store's lock, the rows sql (binds fmt, ...) selects, one elem_size-byte element each
 * filled by row(): db_collect(). Caller frees *out. */
int store_rows(struct store *s, void **out, int *n, size_t elem_size,
               void (*row)(struct sqlite3_stmt *st, void *elem), void (*release)(void *elem),
               struct err *e, const char *what, const char *sql, const char *fmt, ...);
/* Under the store's lock, the first row sql (binds fmt, ...) selects into out with row(). 1 if
 * there was one, 0 if not, -EIO on error. */
int store_row(struct store *s, void *out, void (*row)(struct sqlite3_stmt *st, void *elem),
              struct err *e, const char *what, const char *sql, const char *fmt, ...);

/*
 * Run sql, which selects (device, snapshot JSON) of the row whose id is its one "?", and
 * decode the snapshot into out (release with tune_snapshot_release); *found says the row had
 * one. -ENOENT "not_found" ("no NOUN ID") if there is no such row.
 */
int store_snapshot_get(struct store *s, const char *sql, int64_t id, const char *noun,
                       struct tune_snapshot *out, bool *found, struct err *e);

#endif
