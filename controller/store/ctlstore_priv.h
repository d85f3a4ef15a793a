/* ctlstore_priv.h -- what the controller's store files (ctlstore.c: sweeps, ctlstore_rollout.c:
 * rollouts) share: the database handle. */
#ifndef FT_CTLSTORE_PRIV_H
#define FT_CTLSTORE_PRIV_H

#include "store/ctlstore.h"
#include "db.h"

struct ctlstore {
	struct db *db;
};

#endif
