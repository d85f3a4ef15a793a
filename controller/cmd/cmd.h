/* cmd.h -- what fleettune-ctl's commands share: the options as parsed, a command's table
 * entry, every option (cmd_options[]), and the helpers every command uses (the database, --out,
 * the plan, a stored sweep, signals). main.c holds the table of commands and dispatches. */
#ifndef FT_CMD_H
#define FT_CMD_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "buf.h"
#include "model/sweep.h"
#include "options.h"
#include "plan/plan.h"
#include "render/report.h"

/* The exit status of a usage error (sysexits' EX_USAGE): an option the command does not take,
 * a missing or bad value, the wrong number of arguments. */
#define EXIT_USAGE 64

/* The options of fleettune-ctl's commands, as parsed; each command takes those its entry's
 * opts names (cmd_options[] says how each is taken). */
struct opts {
	const char *db;
	const char *format;
	const char *out;
	const char *params;
	const char *html;
	const char *web_root;
	int64_t best_id;
	int64_t limit;
	int64_t session_ttl_s;
	int64_t poll_ms;
	double min_effect_pct;  /* --min-effect; NAN when not given */
	const char *cohort_by;  /* --cohort-by; NULL when not given */
	const char *decide;     /* analyze --decide RULE: a suite re-judged under another rule */
	const char *nodes_from; /* --nodes-from FILE: the nodes of a node list, not the plan's */
	const char *allow_differences; /* --allow-differences a,b: added to the plan's */
	bool dry_run;
	bool baseline;    /* export --baseline: the sweep's baseline, on purpose */
	bool unconfirmed; /* export, apply, rollout, verify --best: an unconfirmed decision's
	                     suggested configuration, on purpose */
	bool continue_on_node_failure;
	bool all_nodes; /* --nodes all: a column per node at any fleet size */
	bool verbose;   /* --verbose: debug logging */
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

/* Every option of every command, by index into cmd_options[]. A new option is an entry here,
 * one in cmd_options[] (cmd.c), a field of struct opts, its bit in the entries of the commands
 * that take it, and its line in docs/fleettune-ctl.1 (tests/lint/options.sh checks them). */
enum cmd_opt {
	CO_DB,
	CO_FORMAT,
	CO_OUT,
	CO_PARAMS,
	CO_BEST,
	CO_HTML,
	CO_WEB_ROOT,
	CO_LIMIT,
	CO_SESSION_TTL,
	CO_POLL_MS,
	CO_NODES,
	CO_NODES_FROM,
	CO_DRY_RUN,
	CO_BASELINE,
	CO_UNCONFIRMED,
	CO_ALLOW_DIFFERENCES,
	CO_CONTINUE,
	CO_MIN_EFFECT,
	CO_COHORT_BY,
	CO_DECIDE,
	CO_PROFILE,
	CO_WAVES,
	CO_CHECK,
	CO_CANARY,
	CO_MAX_FAILURES,
	CO_PARALLEL,
	CO_RESUME,
	CO_REVERT,
	CO_ROLLOUT,
	CO_NO_ENFORCE,
	CO_VERBOSE,
	CO_HELP,
	CO_N,
};
/* A command's options: CMD_OPTS(DB) | CMD_OPTS(FORMAT) ... (--help is every command's). */
#define CMD_OPTS(x) OPT_BIT(CO_##x)

extern const struct opt cmd_options[CO_N];

/* One command of the table in main.c: fleettune-ctl NAME ARGS [its options]. */
struct cmd {
	const char *name;
	const char *args; /* its synopsis after the name ("PLAN.json (--params JSON | --best ID)");
	                     the options it names there are not repeated after it */
	uint64_t opts;    /* the options it takes: CMD_OPTS(...) | ... */
	const char *help; /* what it does, for --help */
	int nargs;        /* the arguments it takes; -1: exec checks */
	int (*exec)(const struct cmd *c, struct opts *o);
	const char *usage_more; /* another form of it, or NULL ("rollout --resume ID | ...") */
};

/* The commands, each defined in its family's file: cmd_sweep.c (nodes, sweep), cmd_show.c
 * (history, show, compare, analyze), apply.c, cmd_rollout.c (rollout, verify), cmd_export.c
 * (export, report, site). main.c lists them with help. */
extern const struct cmd cmd_nodes_entry, cmd_sweep_entry, cmd_history_entry, cmd_show_entry,
        cmd_compare_entry, cmd_analyze_entry, cmd_apply_entry, cmd_rollout_entry, cmd_verify_entry,
        cmd_export_entry, cmd_report_entry, cmd_site_entry;

/* "fleettune-ctl NAME ARGS [--option ARG]..." of c, wrapped, into out. */
void usage_synopsis(const struct cmd *c, struct buf *out);
/* usage: its synopsis, its help and its options, as --help prints it. */
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
/* --format (table when not given) as a report format; EXIT_USAGE (logged) when it is not one. */
int cmd_format_get(const struct opts *o, enum report_format *f);
/* A sweep id argument; EXIT_USAGE (logged) when it is not one. */
int sweep_id_parse(const char *s, int64_t *id);
/* "r3" or "3" as a rollout id (logged when it is not one). */
int rollout_id_parse(const char *s, int64_t *id);
/* The signal SIGINT/SIGTERM set once signals_install ran (0: none). */
extern volatile sig_atomic_t stop_signal;
/* SIGINT/SIGTERM make a running sweep or rollout stop between steps, as it says. */
void signals_install(void);

#endif
