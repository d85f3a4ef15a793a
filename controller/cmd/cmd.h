/* cmd.h -- what fleettune-ctl's commands share: the options as parsed, a command's table
 * entry, and the helpers every command uses (the database, --out, the plan, a stored sweep,
 * signals). main.c holds the table and parses the options. */
#ifndef FT_CMD_H
#define FT_CMD_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "model/sweep.h"
#include "plan/plan.h"

#define EXIT_USAGE 64

/* Options shared by the subcommands; each command accepts the ones its usage lists. */
struct opts {
	const char *db;
	const char *format;
	const char *out;
	const char *params;
	const char *html;
	const char *web_root;
	int64_t best_id;
	int64_t limit;
	double session_ttl_s;
	double poll_ms;
	double min_effect_pct;  /* --min-effect; NAN when not given */
	const char *cohort_by;  /* --cohort-by; NULL when not given */
	const char *nodes_from; /* --nodes-from FILE: the nodes of a node list, not the plan's */
	const char *allow_differences; /* --allow-differences a,b: added to the plan's */
	bool dry_run;
	bool baseline;    /* export --baseline: the sweep's baseline, on purpose */
	bool unconfirmed; /* export, apply, rollout, verify --best: an unconfirmed decision's
	                     suggested configuration, on purpose */
	bool continue_on_node_failure;
	bool all_nodes; /* --nodes all: a column per node at any fleet size */
	/* rollout and verify */
	const char *profile;  /* --profile NAME: the agents' profile (default fleettune) */
	const char *waves;    /* --waves 10%,50%,100% */
	const char *check;    /* --check none|readback|measure */
	int64_t canary;       /* --canary N (0: 1) */
	int64_t max_failures; /* --max-failures K (-1: 0) */
	int64_t parallel;     /* --parallel N: requests in flight (0: 64) */
	int64_t resume_id;    /* --resume ID */
	int64_t revert_id;    /* --revert ID */
	int64_t rollout_id;   /* verify --rollout ID */
	bool no_enforce;      /* --no-enforce: drift is only reported */
	bool help;
	int nargs;
	char **args;
};

struct cmd {
	const char *name;
	int (*exec)(const struct cmd *c, struct opts *o);
	const char *usage;
	const char *help;
	int nargs;
};

void usage_print(FILE *f, const struct cmd *c);
/* --db, else the default database path. Caller frees. */
char *db_path(const struct opts *o);
/* Write text to --out FILE, or stdout. */
int output_write(const struct opts *o, const char *text, size_t len);
/* This host's name, as sweeps record their controller's; "" when it cannot be read. */
void host_name(char *out, size_t len);
/* Whether a stored sweep or rollout still `running` is abandoned (its controller is gone:
 * start is its recorded start time, 0 when none was). */
bool sweep_abandoned(const char *me, const char *status, int pid, int64_t start, const char *host,
                     double saved_at, double created_at);
/* Process pid's start time: field 22 of /proc/PID/stat (clock ticks after boot); 0 when it
 * cannot be read (no such process). */
int64_t pid_start_ticks(int pid);
/* Whether process pid, started at start (0: not recorded), still runs: a pid reused by a
 * process that started at another time is not it. */
bool owner_alive(int pid, int64_t start);
/* Load sweep id from the database and analyse it (logs what failed). */
int sweep_load(const struct opts *o, int64_t id, struct sweep *s);
/* The configuration an action (verb: "export", "apply", "roll out", "verify") takes from
 * decision d of sweep s (analysed): d's when it is confirmed, or unconfirmed and
 * o->unconfirmed asks for it (a warning says so); otherwise NULL, after logging why: what the
 * final confirmation showed, and that --unconfirmed takes the suggestion on purpose. */
const struct config *decision_action_cfg(const struct opts *o, const struct sweep *s,
                                         const struct decision *d, const char *verb);
/* Load the plan at path (--nodes-from's nodes instead of its own), its budget checked, its
 * tokens loaded when tokens (logs what failed; p released then). */
int plan_open(const struct opts *o, const char *path, struct plan *p, bool tokens);
/* A positive integer option (logs what is wrong). */
int num_opt(const char *name, const char *v, int64_t *out);
/* The signal SIGINT/SIGTERM set once signals_install ran (0: none). */
extern volatile sig_atomic_t stop_signal;
/* SIGINT/SIGTERM make a running sweep or rollout stop between steps, as it says. */
void signals_install(void);

#endif
