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
void store_bind_text(sqlite3_stmt *st, int i, const char *v);
void store_col_text(sqlite3_stmt *st, int i, char *out, size_t len, int *present);

#endif
