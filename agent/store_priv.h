/* store_priv.h -- what store.c shares with store_job.c; only they include it. */
#ifndef FT_STORE_PRIV_H
#define FT_STORE_PRIV_H

#include <pthread.h>
#include <sqlite3.h>

#include "store.h"

struct store {
	sqlite3 *db;
	pthread_mutex_t lock; /* one statement sequence (or transaction) at a time */
};

int store_exec(struct store *s, const char *sql, struct err *e);
/*
 * Prepare sql and bind one argument per character of fmt: 't' text (NULL
 * binds NULL), 'd' double, 'i' int, 'I' int64_t, 'n' int64_t where 0 binds
 * NULL, 'b' blob (const void *, size_t). NULL on failure.
 */
sqlite3_stmt *store_prepare(struct store *s, const char *sql, const char *fmt, ...);
/* Prepare, bind and step a statement that returns no rows. Returns the
 * number of rows changed, or -EIO with err naming what failed. */
int store_run(struct store *s, struct err *e, const char *what, const char *sql, const char *fmt,
              ...);
/*
 * Step st (from store_prepare; NULL means the prepare failed) to the end,
 * filling a fresh array of elem_size-byte elements with row(st, elem) per
 * row. On failure the rows so far are released with release (may be NULL),
 * *out is NULL and -EIO comes back with err naming what. Finalizes st.
 */
int store_collect(struct store *s, sqlite3_stmt *st, size_t elem_size,
                  void (*row)(sqlite3_stmt *st, void *elem), void (*release)(void *elem),
                  void **out, int *n, struct err *e, const char *what);
/* Step st (NULL: the prepare failed) once and fill out with row() if there
 * is a row. Returns 1 if found, 0 if not, -EIO on error. Finalizes st. */
int store_fetch_one(struct store *s, sqlite3_stmt *st, void (*row)(sqlite3_stmt *st, void *elem),
                    void *out, struct err *e, const char *what);
/* BEGIN IMMEDIATE; and its end: COMMIT when rc is 0, else ROLLBACK. Returns
 * rc, or the COMMIT's error. The caller holds s->lock around both. */
int store_tx_begin(struct store *s, struct err *e);
int store_tx_end(struct store *s, int rc, struct err *e);
void store_bind_text(sqlite3_stmt *st, int i, const char *v);
void store_col_text(sqlite3_stmt *st, int i, char *out, size_t len, int *present);

#endif
