/* storetest.h -- a fresh agent database in a temp directory for the store's tests (test_store,
 * test_store_job), and a one-value restore snapshot. */
#ifndef FT_STORETEST_H
#define FT_STORETEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/store.h"
#include "testutil.h"

struct store_fx {
	char *root;
	char path[512]; /* ROOT/agent.db */
	struct store *s;
};

static inline int store_fx_setup(void **state)
{
	struct store_fx *f = calloc(1, sizeof(*f));
	struct err e;

	f->root = tu_tmpdir();
	snprintf(f->path, sizeof(f->path), "%s/agent.db", f->root);
	err_clear(&e);
	if (store_open(&f->s, f->path, &e))
		fail_msg("store_open: %s", e.msg);
	*state = f;
	return 0;
}

static inline int store_fx_teardown(void **state)
{
	struct store_fx *f = *state;

	store_close(f->s);
	tu_rmrf(f->root);
	free(f->root);
	free(f);
	return 0;
}

/* A snapshot of dev that puts name back to previous. Release with tune_snapshot_release. */
static inline void store_fx_snapshot(struct tune_snapshot *snap, const char *dev, const char *name,
                                     const char *previous)
{
	memset(snap, 0, sizeof(*snap));
	snprintf(snap->device, sizeof(snap->device), "%s", dev);
	snap->items = calloc(1, sizeof(*snap->items));
	snap->n = 1;
	snprintf(snap->items[0].name, sizeof(snap->items[0].name), "%s", name);
	snprintf(snap->items[0].previous, sizeof(snap->items[0].previous), "%s", previous);
}

#endif
