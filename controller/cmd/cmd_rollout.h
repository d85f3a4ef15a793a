/* cmd_rollout.h -- fleettune-ctl's rollout and verify commands, their options, and what
 * history and show say of rollouts. */
#ifndef FT_CMD_ROLLOUT_H
#define FT_CMD_ROLLOUT_H

#include <getopt.h>
#include <stdint.h>

#include "buf.h"
#include "cmd/cmd.h"
#include "store/ctlstore.h"

/* Their long options' values, above main.c's own (which stay below CMD_ROLLOUT_OPT_FIRST). */
enum {
	CMD_ROLLOUT_OPT_FIRST = 0x1000,
	CMD_OPT_PROFILE = CMD_ROLLOUT_OPT_FIRST,
	CMD_OPT_WAVES,
	CMD_OPT_CHECK,
	CMD_OPT_CANARY,
	CMD_OPT_MAX_FAILURES,
	CMD_OPT_PARALLEL,
	CMD_OPT_RESUME,
	CMD_OPT_REVERT,
	CMD_OPT_ROLLOUT,
	CMD_OPT_NO_ENFORCE,
	CMD_ROLLOUT_OPT_LAST = CMD_OPT_NO_ENFORCE,
};
/* The entries of main.c's option table for them. */
#define CMD_ROLLOUT_OPTIONS                                                                        \
	{ "profile", required_argument, NULL, CMD_OPT_PROFILE },                                   \
	        { "waves", required_argument, NULL, CMD_OPT_WAVES },                               \
	        { "check", required_argument, NULL, CMD_OPT_CHECK },                               \
	        { "canary", required_argument, NULL, CMD_OPT_CANARY },                             \
	        { "max-failures", required_argument, NULL, CMD_OPT_MAX_FAILURES },                 \
	        { "parallel", required_argument, NULL, CMD_OPT_PARALLEL },                         \
	        { "resume", required_argument, NULL, CMD_OPT_RESUME },                             \
	        { "revert", required_argument, NULL, CMD_OPT_REVERT },                             \
	        { "rollout", required_argument, NULL, CMD_OPT_ROLLOUT },                           \
	{                                                                                          \
		"no-enforce", no_argument, NULL, CMD_OPT_NO_ENFORCE                                \
	}
/* Take option opt (a CMD_OPT_*) with its argument into o; -1 (logged) when it is bad. */
int cmd_rollout_opt(int opt, const char *arg, struct opts *o);
/* "r3" or "3" as a rollout id (logged when it is not one). */
int rollout_id_parse(const char *s, int64_t *id);

extern const char cmd_rollout_usage[], cmd_rollout_help[], cmd_verify_usage[], cmd_verify_help[];
int cmd_rollout(const struct cmd *c, struct opts *o);
int cmd_verify(const struct cmd *c, struct opts *o);
/* history's rollouts section (the newest limit, abandoned ones named) into out; -1 logged. */
int cmd_rollouts_history(struct ctlstore *st, int limit, struct buf *out);
/* show rID. */
int cmd_rollout_show(const struct opts *o);

#endif
