/* cmd.c -- what fleettune-ctl's commands share: every option (how each is taken and said in
 * --help), usage, the database path, --out, the plan, a stored sweep, the signals. */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "model/words.h"
#include "judge/analysis.h"
#include "judge/race.h"
#include "log.h"
#include "num.h"
#include "plan/plan_nodes.h"
#include "plan/plan_parse.h"
#include "store/ctlstore.h"
#include "timeutil.h"
#include "utf8.h"
#include "xmalloc.h"
#include "banned.h"

/* --nodes all|auto. */
static int take_nodes(const struct opt *op, const char *arg, void *ctx, struct err *e)
{
	struct opts *o = ctx;

	(void)op;
	if (strcmp(arg, "all") && strcmp(arg, "auto"))
		return err_set(e, -1, ERR_USAGE, "--nodes: '%s' is not all or auto", arg);
	o->all_nodes = !strcmp(arg, "all");
	return 0;
}

/* A percentage: a number in [0, 1000), as the plan's min_effect_pct. */
static int take_pct(const struct opt *op, const char *arg, void *ctx, struct err *e)
{
	double *out = (double *)((char *)ctx + op->off);
	char *end;

	errno = 0;
	*out = strtod(arg, &end);
	if (!*arg || *end || errno || !(*out >= 0 && *out < 1000))
		return err_set(e, -1, ERR_USAGE,
		               "--%s: '%s' is not a percentage between 0 and 1000", op->name, arg);
	return 0;
}

/* A rollout id, "r3" or "3". */
static int take_rollout_id(const struct opt *op, const char *arg, void *ctx, struct err *e)
{
	int64_t *out = (int64_t *)((char *)ctx + op->off);

	if (num_parse_i64(arg[0] == 'r' ? arg + 1 : arg, out) < 0 || *out <= 0)
		return err_set(e, -1, ERR_USAGE, "--%s: '%s' is not a rollout id (r3, or 3)",
		               op->name, arg);
	return 0;
}

#define AT(f) offsetof(struct opts, f)
#define STR(f, n, a, h)                                                                            \
	{                                                                                          \
		.name = n, .has_arg = OPT_REQUIRED, .arg = a, .help = h, .take = opt_take_str,     \
		.off = AT(f)                                                                       \
	}
#define FLAG(f, n, h)                                                                              \
	{                                                                                          \
		.name = n, .has_arg = OPT_FLAG, .help = h, .take = opt_take_flag, .off = AT(f)     \
	}
#define COUNT(f, n, a, lo, h)                                                                      \
	{                                                                                          \
		.name = n, .has_arg = OPT_REQUIRED, .arg = a, .help = h, .take = opt_take_i64,     \
		.off = AT(f), .min = lo, .max = INT64_MAX                                          \
	}
#define TAKE(f, n, a, fn, h)                                                                       \
	{                                                                                          \
		.name = n, .has_arg = OPT_REQUIRED, .arg = a, .help = h, .take = fn, .off = AT(f)  \
	}

/* Every option of every command; docs/fleettune-ctl.1's OPTIONS says each at length. */
const struct opt cmd_options[CO_N] = {
	[CO_DB] = STR(db, "db", "PATH",
	              "the controller database (default\n"
	              "$XDG_DATA_HOME/fleettune/ctl.db)"),
	[CO_FORMAT] = { .name = "format",
	                .letter = 'f',
	                .has_arg = OPT_REQUIRED,
	                .arg = "FORMAT",
	                .help = "the output's format",
	                .take = opt_take_str,
	                .off = AT(format) },
	[CO_OUT] = STR(out, "out", "FILE", "write the output to FILE, not standard output"),
	[CO_PARAMS] = STR(params, "params", "JSON", "the parameters, e.g. '{\"nr_requests\":256}'"),
	[CO_BEST] = COUNT(best_id, "best", "ID", 1, "the best configuration of stored sweep ID"),
	[CO_HTML] = STR(html, "html", "FILE", "the report's file"),
	[CO_WEB_ROOT] = STR(web_root, "web-root", "DIR",
	                    "where the report's JavaScript and CSS are read from"),
	[CO_LIMIT] = COUNT(limit, "limit", "N", 1, "how many sweeps and rollouts to list (20)"),
	[CO_SESSION_TTL] = COUNT(session_ttl_s, "session-ttl", "S", 1,
	                         "TTL of the agents' tuning sessions in seconds (60)"),
	[CO_POLL_MS] = COUNT(poll_ms, "poll-ms", "MS", 1,
	                     "how often jobs are polled where they cannot be long-polled (50)"),
	[CO_NODES] = TAKE(all_nodes, "nodes", "all|auto", take_nodes,
	                  "all: a column per node at any fleet size (auto: up to 8)"),
	[CO_NODES_FROM] =
	        STR(nodes_from, "nodes-from", "FILE", "the nodes of a node list, not the plan's"),
	[CO_DRY_RUN] = FLAG(dry_run, "dry-run", "print the points and jobs; contact no agent"),
	[CO_BASELINE] = FLAG(baseline, "baseline", "export the sweep's baseline, on purpose"),
	[CO_UNCONFIRMED] = FLAG(unconfirmed, "unconfirmed",
	                        "take a best the final confirmation did not confirm, on purpose"),
	[CO_ALLOW_DIFFERENCES] = STR(allow_differences, "allow-differences", "P,P...",
	                             "let the nodes differ in these parameters (prefix.* too)"),
	[CO_CONTINUE] = FLAG(continue_on_node_failure, "continue-on-node-failure",
	                     "drop a node that fails and go on with the others"),
	[CO_MIN_EFFECT] = TAKE(min_effect_pct, "min-effect", "P", take_pct,
	                       "judge with another threshold, in %"),
	[CO_COHORT_BY] = STR(cohort_by, "cohort-by", "KEY,KEY...",
	                     "group the nodes by these identity fields or labels"),
	[CO_DECIDE] = STR(decide, "decide", "RULE",
	                  "re-judge a suite under no_loss, mean or primary:WORKLOAD"),
	[CO_PROFILE] = STR(profile, "profile", "NAME", "the agents' profile (default fleettune)"),
	[CO_WAVES] = STR(waves, "waves", "SPEC", "the waves after the canary (10%,50%,100%)"),
	[CO_CHECK] = STR(check, "check", "none|readback|measure",
	                 "the check after each wave (readback)"),
	[CO_CANARY] = COUNT(canary, "canary", "N", 1, "nodes of the first wave (1)"),
	[CO_MAX_FAILURES] = COUNT(max_failures, "max-failures", "K", 0,
	                          "failed nodes a wave may have and go on (0)"),
	[CO_PARALLEL] = COUNT(parallel, "parallel", "N", 1, "requests in flight at once (64)"),
	[CO_RESUME] =
	        TAKE(resume_id, "resume", "ID", take_rollout_id, "go on with stored rollout ID"),
	[CO_REVERT] = TAKE(revert_id, "revert", "ID", take_rollout_id,
	                   "put back every node stored rollout ID changed"),
	[CO_ROLLOUT] = TAKE(rollout_id, "rollout", "ID", take_rollout_id,
	                    "compare each node with stored rollout ID"),
	[CO_NO_ENFORCE] = FLAG(no_enforce, "no-enforce", "drift is only reported, not put back"),
	[CO_VERBOSE] = FLAG(verbose, "verbose", "debug logging (each point's phases)"),
	[CO_HELP] = { .name = "help",
	              .letter = 'h',
	              .has_arg = OPT_FLAG,
	              .help = "this text",
	              .take = opt_take_flag,
	              .off = AT(help) },
};

void usage_synopsis(const struct cmd *c, struct buf *out)
{
	uint64_t mask = c->opts;
	int i;

	/* What its other form names is said there. */
	for (i = 0; i < CO_N && c->usage_more; i++)
		if (opt_named(c->usage_more, cmd_options[i].name))
			mask &= ~OPT_BIT(i);
	buf_printf(out, "fleettune-ctl %s%s%s", c->name, c->args ? " " : "",
	           c->args ? c->args : "");
	opt_synopsis(out, cmd_options, CO_N, mask, 92, 21);
	if (c->usage_more)
		buf_printf(out, "\n       fleettune-ctl %s", c->usage_more);
}

void usage_print(FILE *f, const struct cmd *c)
{
	struct buf b = BUF_INIT;

	usage_synopsis(c, &b);
	fprintf(f, "usage: %s\n\n%s\n\noptions:\n", b.data, c->help);
	opt_help_print(f, cmd_options, CO_N, c->opts | CMD_OPTS(HELP), 32);
	buf_release(&b);
}

char *db_path(const struct opts *o)
{
	return o->db ? xstrdup(o->db) : ctlstore_default_path();
}

/* Write text to --out FILE, or stdout: by the terminal's rule (render/text.h), whatever
 * the format, so no agent's escape sequence or bidi override is printed as it was sent. */
int output_write(const struct opts *o, const char *text, size_t len)
{
	FILE *f = stdout;
	char *clean = NULL;
	int rc = 0;

	if (text && len == strlen(text) && !utf8_text_is_clean(text)) {
		clean = utf8_clean_text_dup(text);
		text = clean;
		len = strlen(clean);
	}

	if (o->out) {
		f = fopen(o->out, "w");
		if (!f) {
			log_error("cannot write '%s': %s", o->out, strerror(errno));
			free(clean);
			return 1;
		}
	}
	if (fwrite(text, 1, len, f) != len)
		rc = 1;
	if (o->out && fclose(f))
		rc = 1;
	else if (!o->out)
		fflush(stdout);
	free(clean);
	return rc;
}

/* A sweep from another host that saved no point for this long is taken as abandoned. */
#define CTL_ABANDONED_S 3600.0

/* This host's name, as sweeps record their controller's; "" when it cannot be read. */
void host_name(char *out, size_t len)
{
	memset(out, 0, len);
	if (gethostname(out, len - 1) < 0)
		out[0] = '\0';
}

int64_t pid_start_ticks(int pid)
{
	char path[64], line[1024], *p;
	long long ticks = 0;
	int field;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	buf_read_line(path, line, sizeof(line));
	/* "PID (COMM) STATE ...": COMM may hold blanks and ')', so count after the last ')'. */
	p = strrchr(line, ')');
	if (!p)
		return 0;
	for (field = 2; field < 22 && p; field++)
		p = strchr(p + 1, ' ');
	if (!p || sscanf(p + 1, "%lld", &ticks) != 1)
		return 0;
	return ticks;
}

bool owner_alive(int pid, int64_t start)
{
	int64_t now;

	if (kill(pid, 0) < 0 && errno == ESRCH)
		return false;
	if (start <= 0)
		return true; /* not recorded (an older row): the pid is all there is */
	now = pid_start_ticks(pid);
	return now == 0 || now == start;
}

/*
 * A `running` sweep whose controller is gone is abandoned: run on this host (me), its pid is
 * no longer alive, or is another process's (start: the owner's start time, 0 when not
 * recorded); run on another host (or by a controller too old to record it), it saved no
 * point for CTL_ABANDONED_S.
 */
bool sweep_abandoned(const char *me, const char *status, int pid, int64_t start, const char *host,
                     double saved_at, double created_at)
{
	double last = saved_at > 0 ? saved_at : created_at;

	if (strcmp(status, "running"))
		return false;
	if (pid > 0 && me[0] && !strcmp(host, me))
		return !owner_alive(pid, start);
	return time_now_s() - last > CTL_ABANDONED_S;
}

/* Load sweep id from the database and analyse it. */
int sweep_load(const struct opts *o, int64_t id, struct sweep *s)
{
	struct ctlstore *st = NULL;
	char *path = db_path(o);
	struct err e = { 0 };
	char me[64];
	int rc;

	rc = ctlstore_open(path, &st, &e);
	if (rc == 0)
		rc = ctlstore_sweep_load(st, id, s, &e);
	host_name(me, sizeof(me));
	if (rc < 0)
		log_error("%s", e.msg);
	else
		analysis_sweep_loaded(s);
	if (rc == 0 && sweep_abandoned(me, s->status, s->owner_pid, 0, s->owner_host, s->saved_at,
	                               s->created_at))
		snprintf(s->status, sizeof(s->status), "abandoned");
	ctlstore_close(st);
	free(path);
	return rc;
}

const struct config *decision_action_cfg(const struct opts *o, const struct sweep *s,
                                         const struct decision *d, const char *verb)
{
	struct buf why = BUF_INIT;
	const struct config *cfg = NULL;

	if (d->state == DECISION_CONFIRMED)
		return &d->cfg;
	words_decision_refusal(s, d, &why);
	if (d->state == DECISION_UNCONFIRMED && o->unconfirmed) {
		log_warn("sweep %lld: taking its UNCONFIRMED configuration on purpose "
		         "(--unconfirmed): %s",
		         (long long)s->id, why.data ? why.data : "");
		cfg = &d->cfg;
	} else if (d->state == DECISION_UNCONFIRMED) {
		log_error("sweep %lld has no confirmed best to %s: %s. Nothing was changed; "
		          "--unconfirmed takes the suggested configuration on purpose",
		          (long long)s->id, verb, why.data ? why.data : "");
	} else {
		log_error("sweep %lld has no best configuration to %s: %s. Nothing was changed",
		          (long long)s->id, verb, why.data ? why.data : "");
	}
	buf_release(&why);
	return cfg;
}

int plan_open(const struct opts *o, const char *path, struct plan *p, bool tokens)
{
	struct err e = { 0 };

	if (plan_load_nodes_from(path, o->nodes_from, p, &e) < 0 || race_budget_check(p, &e) < 0 ||
	    (o->allow_differences && plan_allow_differences_add(p, o->allow_differences, &e) < 0) ||
	    (tokens && plan_tokens_load(p, &e) < 0)) {
		log_error("%s: %s", path, e.msg);
		plan_release(p);
		return -1;
	}
	return 0;
}

volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

void signals_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

int rollout_id_parse(const char *s, int64_t *id)
{
	if (num_parse_i64(s[0] == 'r' ? s + 1 : s, id) < 0 || *id <= 0) {
		log_error("'%s' is not a rollout id (r3, or 3)", s);
		return -1;
	}
	return 0;
}

int cmd_format_get(const struct opts *o, enum report_format *f)
{
	*f = REPORT_TABLE;
	if (o->format && report_format_parse(o->format, f) < 0) {
		log_error("--format: '%s' is not table, markdown, csv or json", o->format);
		return EXIT_USAGE;
	}
	return 0;
}

int sweep_id_parse(const char *s, int64_t *id)
{
	if (num_parse_i64(s, id) < 0 || *id <= 0) {
		log_error("'%s' is not a sweep id", s);
		return EXIT_USAGE;
	}
	return 0;
}
