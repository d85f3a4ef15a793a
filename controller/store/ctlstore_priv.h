/* ctlstore_priv.h -- what the controller's store files (ctlstore.c: sweeps, ctlstore_rollout.c:
 * rollouts) share: the database handle. */
#ifndef FT_CTLSTORE_PRIV_H
#define FT_CTLSTORE_PRIV_H

#include "db.h"
#include "store/ctlstore.h"

struct ctlstore {
	struct db *db;
};

#endif
