/* main.c -- fleettune-ctl: the subcommand table, option parsing, each command's wiring of
 * plan, store, sweep run and report, and the exit codes. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/apply.h"
#include "cmd/cmd.h"
#include "cmd/cmd_rollout.h"
#include "cmd/sweeprun.h"
#include "doc/sweepdoc.h"
#include "fleet/fleet.h"
#include "judge/analysis.h"
#include "judge/cohort.h"
#include "judge/race.h"
#include "judge/verdict.h"
#include "log.h"
#include "model/sweep.h"
#include "model/words.h"
#include "num.h"
#include "plan/plan.h"
#include "plan/plan_nodes.h"
#include "render/text.h"
#include "render/export.h"
#include "render/report.h"
#include "render/report_html.h"
#include "render/site.h"
#include "run/preflight.h"
#include "run/twins.h"
#include "run/strategy.h"
#include "store/ctlstore.h"
#include "timeutil.h"
#include "version.h"
#include "xmalloc.h"
#include "banned.h"

static int format_get(const struct opts *o, enum report_format *f)
{
	*f = REPORT_TABLE;
	if (o->format && report_format_parse(o->format, f) < 0) {
		log_error("--format: '%s' is not table, markdown, csv or json", o->format);
		return -1;
	}
	return 0;
}

static int id_parse(const char *s, int64_t *id)
{
	if (num_parse_i64(s, id) < 0 || *id <= 0) {
		log_error("'%s' is not a sweep id", s);
		return -1;
	}
	return 0;
}

static int cmd_nodes(const struct cmd *c, struct opts *o)
{
	struct plan p;
	struct sweep s;
	struct fleet f;
	struct preflight pf;
	struct buf out = BUF_INIT;
	int rc, n;

	(void)c;
	if (plan_open(o, o->args[0], &p, true) < 0)
		return 1;
	fleet_init(&f, &p, 10.0, 2);
	/* A node that is down or lacks its device is a pre-flight problem too. */
	rc = preflight_plan(&f, &p, true, &pf) < 0 ? 1 : 0;
	fleet_release(&f);
	/* The cohorts the nodes fall into, as a sweep of this plan groups them; the nodes of each
	 * must be twins in what the plan does not set, a pre-flight problem otherwise. */
	sweep_init(&s, &p);
	preflight_identity_copy(&pf, &s);
	cohort_assign(&s);
	n = twins_check(&s.plan, pf.info, s.cohort_of, &pf.problems);
	pf.nproblems += n;
	rc = rc || n > 0;
	report_nodes(&s.plan, &pf, &out);
	words_cohorts(&s, &out);
	text_fputs(out.data, stdout);
	buf_release(&out);
	preflight_release(&pf);
	sweep_release(&s);
	return rc;
}

static void dry_run_print(struct plan *p)
{
	struct sweep s;
	struct strategy_batch b = { 0 };
	struct buf out = BUF_INIT;
	struct config *cfgs;
	bool complete;
	int n = strategy_estimate(p),
	    ncfg = strategy_configs(p, STRATEGY_CONFIGS_CAP, &cfgs, &complete);

	/* Sequential points after the first axis depend on results: show the first batch. */
	sweep_init(&s, p);
	strategy_next(&s, &b);
	report_dry_run(&s, n, ncfg, complete, &out);
	text_fputs(out.data, stdout);
	buf_release(&out);
	strategy_batch_release(&b);
	free(cfgs);
	sweep_release(&s);
}

/* sweep's exit status: 0 completed, 1 failed (or no best), 2 a node failed, 130 a signal. */
static int sweep_exit_code(enum sweeprun_result r)
{
	static const int codes[] = {
		[SWEEPRUN_COMPLETED] = 0,
		[SWEEPRUN_FAILED] = 1,
		[SWEEPRUN_NODE_FAILED] = 2,
		[SWEEPRUN_INTERRUPTED] = 130,
	};

	return codes[r];
}

static int cmd_sweep(const struct cmd *c, struct opts *o)
{
	struct sweeprun_opts ro = { 0 };
	struct sweep s;
	struct plan p;
	struct err e = { 0 };
	struct buf out = BUF_INIT;
	enum report_format f;
	char *path, me[64];
	int code;

	(void)c;
	if (format_get(o, &f) < 0)
		return EXIT_USAGE;
	if (plan_open(o, o->args[0], &p, !o->dry_run) < 0)
		return 1;
	if (o->dry_run) {
		dry_run_print(&p);
		return 0;
	}
	path = db_path(o);
	sweep_init(&s, &p);
	signals_install();
	host_name(me, sizeof(me));
	ro.db_path = path;
	ro.continue_on_node_failure = o->continue_on_node_failure;
	ro.session_ttl_s = o->session_ttl_s > 0 ? o->session_ttl_s : 60;
	ro.poll_interval_s = (o->poll_ms > 0 ? o->poll_ms : 50) / 1000.0;
	ro.stop = &stop_signal;
	ro.tty = isatty(STDERR_FILENO);
	ro.owner_pid = (int)getpid();
	ro.owner_host = me;
	code = sweep_exit_code(sweeprun_execute(&s, &ro, &e));
	if (s.id > 0) {
		report_render_nodes(&s, f, o->all_nodes, &out);
		if (output_write(o, out.data, out.len) && code == 0)
			code = 1;
	}
	if (code != 0 && e.msg[0])
		log_error("%s", e.msg);
	buf_release(&out);
	sweep_release(&s);
	free(path);
	return code;
}

static int cmd_history(const struct cmd *c, struct opts *o)
{
	struct ctlstore *st = NULL;
	struct ctlstore_summary *h = NULL;
	struct buf out = BUF_INIT;
	struct err e = { 0 };
	char *path = db_path(o);
	char me[64];
	int n = 0, rc, i;

	(void)c;
	rc = ctlstore_open(path, &st, &e);
	if (rc == 0)
		rc = ctlstore_history(st, o->limit > 0 ? (int)o->limit : 20, &h, &n, &e);
	if (rc < 0) {
		log_error("%s", e.msg);
		goto out;
	}
	host_name(me, sizeof(me));
	for (i = 0; i < n; i++)
		if (sweep_abandoned(me, h[i].status, h[i].owner_pid, 0, h[i].owner_host,
		                    h[i].saved_at, h[i].created_at))
			snprintf(h[i].status, sizeof(h[i].status), "abandoned");
	report_history(h, n, &out);
	rc = cmd_rollouts_history(st, o->limit > 0 ? (int)o->limit : 20, &out);
	if (rc == 0)
		text_fputs(out.data, stdout);
out:
	buf_release(&out);
	free(h);
	ctlstore_close(st);
	free(path);
	return rc < 0 ? 1 : 0;
}

static int cmd_show(const struct cmd *c, struct opts *o)
{
	struct sweep s;
	struct buf out = BUF_INIT;
	enum report_format f;
	int64_t id;
	int rc;

	(void)c;
	if (o->args[0][0] == 'r')
		return cmd_rollout_show(o);
	if (format_get(o, &f) < 0 || id_parse(o->args[0], &id) < 0)
		return EXIT_USAGE;
	if (sweep_load(o, id, &s) < 0)
		return 1;
	report_render_nodes(&s, f, o->all_nodes, &out);
	rc = output_write(o, out.data, out.len);
	buf_release(&out);
	sweep_release(&s);
	return rc;
}

static int cmd_compare(const struct cmd *c, struct opts *o)
{
	struct sweep a, b;
	struct verdict_comparison cmp;
	struct buf out = BUF_INIT;
	int64_t ia, ib;
	int rc = 1;

	(void)c;
	if (id_parse(o->args[0], &ia) < 0 || id_parse(o->args[1], &ib) < 0)
		return EXIT_USAGE;
	if (o->format && strcmp(o->format, "table") && strcmp(o->format, "markdown")) {
		log_error("compare --format: table or markdown");
		return EXIT_USAGE;
	}
	if (sweep_load(o, ia, &a) < 0)
		return 1;
	if (sweep_load(o, ib, &b) < 0) {
		sweep_release(&a);
		return 1;
	}
	analysis_sweeps_compared(&a, &b, &cmp);
	report_compare(&a, &b, &cmp, o->format && !strcmp(o->format, "markdown"), &out);
	if (cmp.nrows > 0)
		rc = 0;
	else
		log_error("sweeps %lld and %lld have no point in common", (long long)ia,
		          (long long)ib);
	if (output_write(o, out.data, out.len))
		rc = 1;
	verdict_comparison_release(&cmp);
	buf_release(&out);
	sweep_release(&a);
	sweep_release(&b);
	return rc;
}

static int cmd_apply(const struct cmd *c, struct opts *o)
{
	struct plan p;
	struct config cfg;
	struct buf out = BUF_INIT;
	struct err e = { 0 };
	struct sweep s = { 0 };
	int rc = 0;

	(void)c;
	if (!!o->params == !!o->best_id) {
		log_error("apply needs exactly one of --params JSON or --best ID");
		return EXIT_USAGE;
	}
	if (o->params &&
	    (config_parse_json(o->params, &cfg, &e) < 0 || config_check(&cfg, &e) < 0)) {
		log_error("--params: %s", e.msg);
		return EXIT_USAGE;
	}
	if (o->best_id) {
		const struct config *best;

		if (sweep_load(o, o->best_id, &s) < 0)
			return 1;
		if (sweep_cohort_decisions_differ(&s)) {
			/* Each node its cohort's decision. */
			if (plan_open(o, o->args[0], &p, true) < 0) {
				sweep_release(&s);
				return 1;
			}
			rc = apply_per_cohort(&s, &p, o->unconfirmed, &out);
			text_fputs(out.data, stdout);
			buf_release(&out);
			plan_release(&p);
			sweep_release(&s);
			return rc;
		}
		best = decision_action_cfg(o, &s, &s.decision, "apply");
		if (!best) {
			sweep_release(&s);
			return 1;
		}
		cfg = *best;
		sweep_release(&s);
	}
	if (cfg.n == 0) {
		log_error("no parameters to apply");
		return EXIT_USAGE;
	}
	if (plan_open(o, o->args[0], &p, true) < 0)
		return 1;
	rc = apply_config(&p, &cfg, &out);
	text_fputs(out.data, stdout);
	buf_release(&out);
	plan_release(&p);
	return rc;
}

static int cmd_export(const struct cmd *c, struct opts *o)
{
	struct sweep s;
	struct buf out = BUF_INIT;
	struct err e = { 0 };
	int64_t id;
	int rc = 0;

	(void)c;
	if (!o->format || (strcmp(o->format, "udev") && strcmp(o->format, "tuned"))) {
		log_error("export needs --format udev or --format tuned");
		return EXIT_USAGE;
	}
	if (id_parse(o->args[0], &id) < 0)
		return EXIT_USAGE;
	if (sweep_load(o, id, &s) < 0)
		return 1;
	if (o->baseline && o->unconfirmed) {
		log_error("export takes one of --baseline and --unconfirmed");
		sweep_release(&s);
		return EXIT_USAGE;
	}
	if (s.outcome != OUTCOME_BEST && !o->baseline &&
	    !(o->unconfirmed && s.decision.state == DECISION_UNCONFIRMED)) {
		/* no confirmed decision of the fleet or any cohort */
		struct buf why = BUF_INIT, cfg = BUF_INIT;

		words_decision_refusal(&s, &s.decision, &why);
		config_format(&s.plan.baseline, &cfg);
		log_error("sweep %lld has no %s to export: %s. Nothing was written; %s"
		          "--baseline exports its baseline (%s) on purpose",
		          (long long)id,
		          s.decision.state == DECISION_UNCONFIRMED ? "confirmed best"
		                                                   : "best configuration",
		          why.data ? why.data : "",
		          s.decision.state == DECISION_UNCONFIRMED
		                  ? "--unconfirmed exports the suggested configuration on purpose, "
		                  : "",
		          cfg.data ? cfg.data : "");
		buf_release(&why);
		buf_release(&cfg);
		sweep_release(&s);
		return 1;
	}
	if (export_render(&s, o->format,
	                  o->baseline      ? EXPORT_BASELINE
	                  : o->unconfirmed ? EXPORT_UNCONFIRMED
	                                   : EXPORT_BEST,
	                  &out, &e) < 0) {
		log_error("%s", e.msg);
		rc = 1;
	} else {
		rc = output_write(o, out.data, out.len);
	}
	buf_release(&out);
	sweep_release(&s);
	return rc;
}

/* --web-root, else the source tree's web/ (when built there), else the installed one. */
static const char *web_dir(const struct opts *o)
{
	struct stat sb;

	if (o->web_root)
		return o->web_root;
	if (stat(FLEETTUNE_SOURCE_DIR "/web/report.html", &sb) == 0)
		return FLEETTUNE_SOURCE_DIR "/web";
	return FLEETTUNE_WEB_DIR;
}

static int cmd_report(const struct cmd *c, struct opts *o)
{
	struct sweep s;
	struct err e = { 0 };
	int64_t id;
	int rc = 0;

	(void)c;
	if (!o->html) {
		log_error("report needs --html FILE");
		return EXIT_USAGE;
	}
	if (id_parse(o->args[0], &id) < 0)
		return EXIT_USAGE;
	if (sweep_load(o, id, &s) < 0)
		return 1;
	if (report_html_write(&s, web_dir(o), o->html, &e) < 0) {
		log_error("%s", e.msg);
		rc = 1;
	} else {
		log_info("wrote %s", o->html);
	}
	sweep_release(&s);
	return rc;
}

/* site_write's status hook: a running sweep whose controller is gone shows as abandoned. */
static void site_status(struct sweep *s, void *ctx)
{
	const char *me = ctx;

	if (sweep_abandoned(me, s->status, s->owner_pid, 0, s->owner_host, s->saved_at,
	                    s->created_at))
		snprintf(s->status, sizeof(s->status), "abandoned");
}

/* site DIR: every stored sweep as a static site (site.h). */
static int cmd_site(const struct cmd *c, struct opts *o)
{
	struct ctlstore *st = NULL;
	struct site_stats stats;
	struct err e = { 0 };
	char *path = db_path(o), me[64];
	struct site_opts so = { .web_dir = web_dir(o),
		                .db_label = path,
		                .now_s = time_now_s(),
		                .status_adjust = site_status,
		                .ctx = me };
	double t0 = time_mono_s();
	int rc;

	(void)c;
	host_name(me, sizeof(me));
	rc = ctlstore_open(path, &st, &e);
	if (rc == 0)
		rc = site_write(st, o->args[0], &so, &stats, &e);
	if (rc < 0)
		log_error("%s", e.msg);
	else
		log_info("wrote %s/index.html and %d sweep page%s (%d plan%s, %d run more than "
		         "once) "
		         "in %.2f s",
		         o->args[0], stats.nsweeps, stats.nsweeps == 1 ? "" : "s", stats.nplans,
		         stats.nplans == 1 ? "" : "s", stats.nplans_repeat, time_mono_s() - t0);
	ctlstore_close(st);
	free(path);
	return rc < 0 ? 1 : 0;
}

/* analyze: a sweep document (FILE, or - for stdin) judged again from its passes. */
static int cmd_analyze(const struct cmd *c, struct opts *o)
{
	const char *path = o->args[0], *name = strcmp(path, "-") ? path : "stdin";
	struct buf in = BUF_INIT, out = BUF_INIT;
	struct err e = { 0 };
	enum report_format f;
	struct sweep s;
	int rc;

	(void)c;
	if (format_get(o, &f) < 0)
		return EXIT_USAGE;
	rc = buf_read_file(&in, strcmp(path, "-") ? path : "/dev/stdin", 256u << 20);
	if (rc < 0) {
		log_error("cannot read %s: %s", name, strerror(-rc));
		buf_release(&in);
		return 1;
	}
	rc = sweepdoc_parse(in.data, &s, &e);
	buf_release(&in);
	if (rc < 0) {
		log_error("%s: %s", name, e.msg);
		return 1;
	}
	if (!isnan(o->min_effect_pct))
		s.plan.min_effect_pct = o->min_effect_pct;
	if (o->cohort_by && plan_cohort_by_set(&s.plan, o->cohort_by, &e) < 0) {
		log_error("%s", e.msg);
		sweep_release(&s);
		return EXIT_USAGE;
	}
	analysis_sweep_loaded(&s);
	report_render_nodes(&s, f, o->all_nodes, &out);
	rc = output_write(o, out.data, out.len);
	buf_release(&out);
	sweep_release(&s);
	return rc;
}

static int cmd_help(const struct cmd *c, struct opts *o);

static const struct cmd cmds[] = {
	{ "nodes", cmd_nodes, "nodes PLAN.json [--nodes-from FILE] [--allow-differences P,P...]",
	  "Show each node's health, version, device and current parameters, and run the\n"
	  "plan's pre-flight: every agent judges every configuration and the job with dry\n"
	  "runs, and the nodes of each cohort must be twins in every writable parameter the\n"
	  "plan does not set (a difference is named with its fix; the plan's\n"
	  "\"allow_differences\" or --allow-differences lets it be); nothing is changed. "
	  "--nodes-from FILE (here and for sweep, apply, rollout\n"
	  "and verify) takes the nodes from a node list instead of the plan's: a hosts file\n"
	  "('name url device' or 'host[:port] [device]' per line), an Ansible inventory (INI\n"
	  "or YAML) or the JSON of kubectl get pods -o json; the plan's \"nodes_from\" options\n"
	  "still apply.",
	  1 },
	{ "sweep", cmd_sweep,
	  "sweep PLAN.json [--format table|markdown|csv|json] [--out FILE] [--dry-run]\n"
	  "                     [--continue-on-node-failure] [--db PATH] [--session-ttl S] "
	  "[--poll-ms MS]\n"
	  "                     [--nodes all|auto] [--nodes-from FILE] [--allow-differences "
	  "P,P...]\n"
	  "                     [--verbose]",
	  "Run the plan on every node at once: pre-flight (every agent judges every\n"
	  "configuration and the job with dry runs before anything changes; the nodes must be\n"
	  "twins in what the plan does not set, as for nodes), a tuning session\n"
	  "per node, each point applied with PATCH and benchmarked in parallel, then every\n"
	  "node restored. Exit 0 when complete, 2 when a node failed (partial results kept),\n"
	  "130 on SIGINT/SIGTERM (jobs cancelled, nodes restored), 1 on other errors: a failed\n"
	  "pre-flight, or no best (the baseline failed on every node, or no configuration\n"
	  "produced a figure). --verbose logs each point's phases (\"phases\" lines: PATCH and\n"
	  "job POSTs, the agents' job starts and ends, the point saved) and the connections\n"
	  "the controller opened. Above 8 nodes the table shows the nodes' distribution (with a\n"
	  "figure, means, own \u0394 min / median / max, own gains / losses) instead of a column\n"
	  "per node; --nodes all keeps a column per node (CSV and JSON always have every node).",
	  1 },
	{ "history", cmd_history, "history [--limit N] [--db PATH]",
	  "List stored sweeps, then stored rollouts (rID), newest first.", 0 },
	{ "show", cmd_show,
	  "show ID [--format table|markdown|csv|json] [--out FILE] [--db PATH] [--nodes all|auto]",
	  "Render a stored sweep (no agent needed). --nodes all: a column per node at any fleet\n"
	  "size. show rID renders a stored rollout: its waves, checks and the nodes that do not\n"
	  "hold the profile (--nodes all: every node).",
	  1 },
	{ "compare", cmd_compare, "compare ID_A ID_B [--format table|markdown] [--db PATH]",
	  "Sweep B against sweep A, for the points both sweeps ran (e.g. before and after a\n"
	  "firmware change): per node the ratio of means with its 95 % CI, the fleet effect\n"
	  "and a verdict decided on it, as in a sweep's table.",
	  2 },
	{ "analyze", cmd_analyze,
	  "analyze FILE|- [--format table|markdown|csv|json] [--min-effect P] [--out FILE]\n"
	  "                     [--nodes all|auto] [--cohort-by KEY,KEY...]",
	  "Judge a sweep document again from its passes: FILE (or - for stdin) as\n"
	  "show --format json writes it. Every figure and verdict in it is recomputed, so\n"
	  "--min-effect P re-judges an old sweep with another threshold (in %), and\n"
	  "--cohort-by groups its nodes into cohorts by other identity fields or node labels\n"
	  "(\"model,firmware\", \"kernel\", \"label.rack\"; \"\" for one cohort). No agent and\n"
	  "no database are needed.",
	  1 },
	{ "apply", cmd_apply,
	  "apply PLAN.json (--params JSON | --best ID [--unconfirmed]) [--nodes-from FILE] "
	  "[--db PATH]",
	  "Set parameters permanently on every node of the plan, in parallel, and print the\n"
	  "values read back. --best ID applies the confirmed best configuration of a stored\n"
	  "sweep; of a sweep with cohorts, each node gets its cohort's (what the node is is read\n"
	  "from its agent, so the plan may name other nodes than the sweep's). A best the final\n"
	  "confirmation did not confirm is refused (exit 1, saying what it showed) unless\n"
	  "--unconfirmed asks for the suggested configuration on purpose.",
	  1 },
	{ "rollout", cmd_rollout, cmd_rollout_usage, cmd_rollout_help, -1 },
	{ "verify", cmd_verify, cmd_verify_usage, cmd_verify_help, 1 },
	{ "export", cmd_export,
	  "export ID --format udev|tuned [--baseline | --unconfirmed] [--out FILE] [--db PATH]",
	  "Print a udev rule or a tuned profile for the sweep's confirmed best configuration. A\n"
	  "sweep with no confirmed best is refused (exit 1, saying what its final confirmation\n"
	  "showed); --baseline exports its baseline instead, on purpose; --unconfirmed exports\n"
	  "the configuration its axis rows suggested, on purpose, with a comment saying so.",
	  1 },
	{ "report", cmd_report, "report ID --html FILE [--web-root DIR] [--db PATH]",
	  "Write a self-contained HTML report (data, JS and CSS inline) of a stored sweep.", 1 },
	{ "site", cmd_site, "site DIR [--web-root DIR] [--db PATH]",
	  "Write every stored sweep as a static site: DIR/index.html (each sweep's name, date, "
	  "nodes,\nstrategy, best and outcome, and for plans run more than once the best "
	  "configuration's effect\nand the baseline's figure over time) and DIR/sweep-ID.html, "
	  "each sweep's report. It opens\nfrom file:// with no network.",
	  1 },
	{ "help", cmd_help, "help [COMMAND]", "Show the commands, or one command's usage.", -1 },
};

#define NCMDS ((int)(sizeof(cmds) / sizeof(cmds[0])))

static int cmd_help(const struct cmd *c, struct opts *o)
{
	int i;

	(void)c;
	for (i = 0; o->nargs > 0 && i < NCMDS; i++) {
		if (!strcmp(cmds[i].name, o->args[0])) {
			usage_print(stdout, &cmds[i]);
			return 0;
		}
	}
	printf("fleettune-ctl %s -- tune block devices across a fleet of fleettune agents\n\n"
	       "commands:\n",
	       FLEETTUNE_VERSION);
	for (i = 0; i < NCMDS; i++)
		printf("  %s\n", cmds[i].usage);
	printf("\nfleettune-ctl COMMAND --help shows a command's details. The database defaults "
	       "to\n$XDG_DATA_HOME/fleettune/ctl.db (~/.local/share/fleettune/ctl.db).\n");
	return 0;
}

enum {
	OPT_DB = 256,
	OPT_OUT,
	OPT_PARAMS,
	OPT_BEST,
	OPT_HTML,
	OPT_WEB_ROOT,
	OPT_LIMIT,
	OPT_TTL,
	OPT_POLL,
	OPT_VERBOSE,
	OPT_NODES,
	OPT_DRY_RUN,
	OPT_BASELINE,
	OPT_CONTINUE,
	OPT_MIN_EFFECT,
	OPT_COHORT_BY,
	OPT_NODES_FROM,
	OPT_UNCONFIRMED,
	OPT_ALLOW_DIFFERENCES,
};

/* A percentage option: a number in [0, 1000), as the plan's min_effect_pct. */
static int pct_opt(const char *name, const char *v, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(v, &end);
	if (!*v || *end || errno || !(*out >= 0 && *out < 1000)) {
		log_error("%s: '%s' is not a percentage between 0 and 1000", name, v);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "db", required_argument, NULL, OPT_DB },
		{ "format", required_argument, NULL, 'f' },
		{ "out", required_argument, NULL, OPT_OUT },
		{ "params", required_argument, NULL, OPT_PARAMS },
		{ "best", required_argument, NULL, OPT_BEST },
		{ "html", required_argument, NULL, OPT_HTML },
		{ "web-root", required_argument, NULL, OPT_WEB_ROOT },
		{ "limit", required_argument, NULL, OPT_LIMIT },
		{ "session-ttl", required_argument, NULL, OPT_TTL },
		{ "poll-ms", required_argument, NULL, OPT_POLL },
		{ "verbose", no_argument, NULL, OPT_VERBOSE },
		{ "nodes", required_argument, NULL, OPT_NODES },
		{ "dry-run", no_argument, NULL, OPT_DRY_RUN },
		{ "baseline", no_argument, NULL, OPT_BASELINE },
		{ "unconfirmed", no_argument, NULL, OPT_UNCONFIRMED },
		{ "allow-differences", required_argument, NULL, OPT_ALLOW_DIFFERENCES },
		{ "continue-on-node-failure", no_argument, NULL, OPT_CONTINUE },
		{ "min-effect", required_argument, NULL, OPT_MIN_EFFECT },
		CMD_ROLLOUT_OPTIONS,
		{ "cohort-by", required_argument, NULL, OPT_COHORT_BY },
		{ "nodes-from", required_argument, NULL, OPT_NODES_FROM },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct opts o = { .min_effect_pct = NAN };
	const struct cmd *c = NULL;
	int64_t v;
	int i, ch;

	log_init("fleettune-ctl", LOG_INFO);
	if (argc < 2) {
		cmd_help(NULL, &o);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
		return cmd_help(NULL, &o);
	if (!strcmp(argv[1], "--version")) {
		printf("fleettune-ctl %s\n", FLEETTUNE_VERSION);
		return 0;
	}
	for (i = 0; i < NCMDS; i++)
		if (!strcmp(cmds[i].name, argv[1]))
			c = &cmds[i];
	if (!c) {
		log_error("unknown command '%s' (try fleettune-ctl help)", argv[1]);
		return EXIT_USAGE;
	}
	optind = 1;
	while ((ch = getopt_long(argc - 1, argv + 1, "f:h", lopts, NULL)) != -1) {
		switch (ch) {
		case OPT_DB:
			o.db = optarg;
			break;
		case 'f':
			o.format = optarg;
			break;
		case OPT_OUT:
			o.out = optarg;
			break;
		case OPT_PARAMS:
			o.params = optarg;
			break;
		case OPT_BEST:
			if (num_opt("--best", optarg, &o.best_id) < 0)
				return EXIT_USAGE;
			break;
		case OPT_HTML:
			o.html = optarg;
			break;
		case OPT_WEB_ROOT:
			o.web_root = optarg;
			break;
		case OPT_LIMIT:
			if (num_opt("--limit", optarg, &o.limit) < 0)
				return EXIT_USAGE;
			break;
		case OPT_TTL:
			if (num_opt("--session-ttl", optarg, &v) < 0)
				return EXIT_USAGE;
			o.session_ttl_s = (double)v;
			break;
		case OPT_POLL:
			if (num_opt("--poll-ms", optarg, &v) < 0)
				return EXIT_USAGE;
			o.poll_ms = (double)v;
			break;
		case OPT_NODES:
			if (strcmp(optarg, "all") && strcmp(optarg, "auto")) {
				log_error("--nodes: '%s' is not all or auto", optarg);
				return EXIT_USAGE;
			}
			o.all_nodes = !strcmp(optarg, "all");
			break;
		case OPT_VERBOSE:
			log_init("fleettune-ctl", LOG_DEBUG);
			break;
		case OPT_DRY_RUN:
			o.dry_run = true;
			break;
		case OPT_BASELINE:
			o.baseline = true;
			break;
		case OPT_UNCONFIRMED:
			o.unconfirmed = true;
			break;
		case OPT_ALLOW_DIFFERENCES:
			o.allow_differences = optarg;
			break;
		case OPT_CONTINUE:
			o.continue_on_node_failure = true;
			break;
		case OPT_NODES_FROM:
			o.nodes_from = optarg;
			break;
		case OPT_MIN_EFFECT:
			if (pct_opt("--min-effect", optarg, &o.min_effect_pct) < 0)
				return EXIT_USAGE;
			break;
		case OPT_COHORT_BY:
			o.cohort_by = optarg;
			break;
		case 'h':
			o.help = true;
			break;
		default:
			if (ch >= CMD_ROLLOUT_OPT_FIRST && ch <= CMD_ROLLOUT_OPT_LAST) {
				if (cmd_rollout_opt(ch, optarg, &o) < 0)
					return EXIT_USAGE;
				break;
			}
			usage_print(stderr, c);
			return EXIT_USAGE;
		}
	}
	if (o.help) {
		usage_print(stdout, c);
		return 0;
	}
	o.args = argv + 1 + optind;
	o.nargs = argc - 1 - optind;
	if (c->nargs >= 0 && o.nargs != c->nargs) {
		usage_print(stderr, c);
		return EXIT_USAGE;
	}
	return c->exec(c, &o);
}
