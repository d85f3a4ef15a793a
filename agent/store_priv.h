/* store_priv.h -- what the agent's store files (store.c, store_job.c, store_metrics.c) share. */
#ifndef FT_STORE_PRIV_H
#define FT_STORE_PRIV_H

#include <sqlite3.h>

#include "db.h"
#include "store.h"

struct store {
	struct db *db; /* db_lock() around every statement sequence: the store is thread-safe */
};

#endif
