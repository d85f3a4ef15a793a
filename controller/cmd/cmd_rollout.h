/* cmd_rollout.h -- what history and show say of rollouts (cmd_rollout.c also holds the
 * rollout and verify commands, listed in cmd.h). */
#ifndef FT_CMD_ROLLOUT_H
#define FT_CMD_ROLLOUT_H

#include <stdint.h>

#include "buf.h"
#include "cmd/cmd.h"
#include "store/ctlstore.h"

/* history's rollouts section (the newest limit, abandoned ones named) into out; -1 logged. */
int cmd_rollouts_history(struct ctlstore *st, int limit, struct buf *out);
/* show rID. */
int cmd_rollout_show(const struct opts *o);

#endif
