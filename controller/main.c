/* main.c -- fleettune-ctl: the subcommand table, option parsing, each command's wiring of
 * plan, store, sweep run and report, and the exit codes. */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis.h"
#include "ctlstore.h"
#include "export.h"
#include "fleet.h"
#include "log.h"
#include "num.h"
#include "plan.h"
#include "preflight.h"
#include "race.h"
#include "report.h"
#include "report_html.h"
#include "report_rollout.h"
#include "rollout.h"
#include "rollrun.h"
#include "site.h"
#include "strategy.h"
#include "sweep.h"
#include "sweepdoc.h"
#include "sweeprun.h"
#include "timeutil.h"
#include "verdict.h"
#include "verify.h"
#include "version.h"
#include "words.h"
#include "xmalloc.h"
#include "banned.h"

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
	const char *nodes_from; /* --nodes-from FILE: the nodes of a node list, not the plan's */
	bool dry_run;
	bool baseline; /* export --baseline: the sweep's baseline, on purpose */
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

static void usage_print(FILE *f, const struct cmd *c)
{
	fprintf(f, "usage: fleettune-ctl %s\n\n%s\n", c->usage, c->help);
}

static char *db_path(const struct opts *o)
{
	return o->db ? xstrdup(o->db) : ctlstore_default_path();
}

/* Write text to --out FILE, or stdout. */
static int output_write(const struct opts *o, const char *text, size_t len)
{
	FILE *f = stdout;
	int rc = 0;

	if (o->out) {
		f = fopen(o->out, "w");
		if (!f) {
			log_error("cannot write '%s': %s", o->out, strerror(errno));
			return 1;
		}
	}
	if (fwrite(text, 1, len, f) != len)
		rc = 1;
	if (o->out && fclose(f))
		rc = 1;
	else if (!o->out)
		fflush(stdout);
	return rc;
}

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

/* "r3" or "3" as a rollout id. */
static int rollout_id_parse(const char *s, int64_t *id)
{
	if (num_parse_i64(s[0] == 'r' ? s + 1 : s, id) < 0 || *id <= 0) {
		log_error("'%s' is not a rollout id (r3, or 3)", s);
		return -1;
	}
	return 0;
}

/* A sweep from another host that saved no point for this long is taken as abandoned. */
#define CTL_ABANDONED_S 3600.0

/* This host's name, as sweeps record their controller's; "" when it cannot be read. */
static void host_name(char *out, size_t len)
{
	memset(out, 0, len);
	if (gethostname(out, len - 1) < 0)
		out[0] = '\0';
}

/*
 * A `running` sweep whose controller is gone is abandoned: run on this host (me), its pid is
 * no longer alive; run on another host (or by a controller too old to record it), it saved no
 * point for CTL_ABANDONED_S. A pid reused by another process keeps it `running`.
 */
static bool sweep_abandoned(const char *me, const char *status, int pid, const char *host,
                            double saved_at, double created_at)
{
	double last = saved_at > 0 ? saved_at : created_at;

	if (strcmp(status, "running"))
		return false;
	if (pid > 0 && me[0] && !strcmp(host, me))
		return kill(pid, 0) < 0 && errno == ESRCH;
	return time_now_s() - last > CTL_ABANDONED_S;
}

/* Load sweep id from the database and analyse it. */
static int sweep_load(const struct opts *o, int64_t id, struct sweep *s)
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
	if (rc == 0 &&
	    sweep_abandoned(me, s->status, s->owner_pid, s->owner_host, s->saved_at, s->created_at))
		snprintf(s->status, sizeof(s->status), "abandoned");
	ctlstore_close(st);
	free(path);
	return rc;
}

static int plan_open(const struct opts *o, const char *path, struct plan *p, bool tokens)
{
	struct err e = { 0 };

	if (plan_load_nodes_from(path, o->nodes_from, p, &e) < 0 || race_budget_check(p, &e) < 0 ||
	    (tokens && plan_tokens_load(p, &e) < 0)) {
		log_error("%s: %s", path, e.msg);
		plan_release(p);
		return -1;
	}
	return 0;
}

static int cmd_nodes(const struct cmd *c, struct opts *o)
{
	struct plan p;
	struct fleet f;
	struct preflight pf;
	struct buf out = BUF_INIT;
	int rc;

	(void)c;
	if (plan_open(o, o->args[0], &p, true) < 0)
		return 1;
	fleet_init(&f, &p, 10.0, 2);
	/* A node that is down or lacks its device is a pre-flight problem too. */
	rc = preflight_plan(&f, &p, true, &pf) < 0 ? 1 : 0;
	report_nodes(&p, &pf, &out);
	fputs(out.data, stdout);
	buf_release(&out);
	preflight_release(&pf);
	fleet_release(&f);
	plan_release(&p);
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
	fputs(out.data, stdout);
	buf_release(&out);
	strategy_batch_release(&b);
	free(cfgs);
	sweep_release(&s);
}

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

/* SIGINT/SIGTERM make a running sweep cancel its jobs, restore every node and stop. */
static void signals_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
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
	struct ctlstore_rollout_summary *rh = NULL;
	struct buf out = BUF_INIT;
	struct err e = { 0 };
	char *path = db_path(o);
	char me[64];
	int n = 0, nr = 0, rc, i;

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
		if (sweep_abandoned(me, h[i].status, h[i].owner_pid, h[i].owner_host, h[i].saved_at,
		                    h[i].created_at))
			snprintf(h[i].status, sizeof(h[i].status), "abandoned");
	report_history(h, n, &out);
	rc = ctlstore_rollouts_list(st, o->limit > 0 ? (int)o->limit : 20, &rh, &nr, &e);
	if (rc < 0) {
		log_error("%s", e.msg);
		goto out;
	}
	for (i = 0; i < nr; i++)
		if (sweep_abandoned(me, rh[i].status, rh[i].owner_pid, rh[i].owner_host,
		                    rh[i].saved_at, rh[i].created_at))
			snprintf(rh[i].status, sizeof(rh[i].status), "abandoned");
	report_rollouts_history(rh, nr, &out);
	fputs(out.data, stdout);
out:
	buf_release(&out);
	free(h);
	free(rh);
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
	if (o->args[0][0] == 'r') {
		struct rollout r;
		struct ctlstore *st = NULL;
		char *path = db_path(o);
		struct err e = { 0 };

		if (rollout_id_parse(o->args[0], &id) < 0) {
			free(path);
			return EXIT_USAGE;
		}
		rc = ctlstore_open(path, &st, &e);
		if (rc == 0)
			rc = ctlstore_rollout_load(st, id, &r, &e);
		ctlstore_close(st);
		free(path);
		if (rc < 0) {
			log_error("%s", e.msg);
			return 1;
		}
		report_rollout_show(&r, o->all_nodes, &out);
		rc = output_write(o, out.data, out.len);
		buf_release(&out);
		rollout_release(&r);
		return rc;
	}
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
	struct config cfg, *applied;
	struct fleet f;
	struct fleet_result *res;
	struct buf out = BUF_INIT;
	struct err e = { 0 };
	unsigned *adjusted;
	int i, rc = 0;

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
		struct sweep s;

		if (sweep_load(o, o->best_id, &s) < 0)
			return 1;
		if (s.best < 0) {
			log_error("sweep %lld has no best configuration; nothing to apply",
			          (long long)o->best_id);
			sweep_release(&s);
			return 1;
		}
		cfg = s.points[s.best].cfg;
		sweep_release(&s);
	}
	if (cfg.n == 0) {
		log_error("no parameters to apply");
		return EXIT_USAGE;
	}
	if (plan_open(o, o->args[0], &p, true) < 0)
		return 1;
	fleet_init(&f, &p, 10.0, 2);
	applied = xcalloc((size_t)p.nnodes, sizeof(*applied));
	adjusted = xcalloc((size_t)p.nnodes, sizeof(*adjusted));
	res = xcalloc((size_t)p.nnodes, sizeof(*res));
	fleet_params_apply(&f, &cfg, applied, adjusted, res);
	for (i = 0; i < p.nnodes; i++)
		if (res[i].failed)
			rc = 1;
	report_apply(&p, &cfg, applied, adjusted, res, &out);
	fputs(out.data, stdout);
	buf_release(&out);
	free(applied);
	free(adjusted);
	free(res);
	fleet_release(&f);
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
	if (s.best < 0 && !o->baseline) {
		struct buf why = BUF_INIT, cfg = BUF_INIT;

		words_no_best(&s, &why);
		config_format(&s.plan.baseline, &cfg);
		log_error(
		        "sweep %lld has no best configuration to export: %s. Nothing was written; "
		        "--baseline exports its baseline (%s) on purpose",
		        (long long)id, why.data, cfg.data ? cfg.data : "");
		buf_release(&why);
		buf_release(&cfg);
		sweep_release(&s);
		return 1;
	}
	if (export_render(&s, o->format, o->baseline ? EXPORT_BASELINE : EXPORT_BEST, &out, &e) <
	    0) {
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

	if (sweep_abandoned(me, s->status, s->owner_pid, s->owner_host, s->saved_at, s->created_at))
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
	analysis_sweep_loaded(&s);
	report_render_nodes(&s, f, o->all_nodes, &out);
	rc = output_write(o, out.data, out.len);
	buf_release(&out);
	sweep_release(&s);
	return rc;
}

/* Profile names as the agent takes them: 1..63 of A-Z a-z 0-9 _ . -, not starting with '.'. */
static bool profile_name_ok(const char *s)
{
	size_t n = strlen(s);

	if (!n || n > 63 || s[0] == '.')
		return false;
	return strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-") == n;
}

/* The configuration of --params or --best (with its sweep, for the promise and the job). */
static int rollout_config(const struct opts *o, struct config *cfg, struct sweep *s, bool *have_s)
{
	struct err e = { 0 };

	*have_s = false;
	if (!!o->params == !!o->best_id) {
		log_error("give exactly one of --params JSON or --best ID");
		return EXIT_USAGE;
	}
	if (o->params && (config_parse_json(o->params, cfg, &e) < 0 || config_check(cfg, &e) < 0)) {
		log_error("--params: %s", e.msg);
		return EXIT_USAGE;
	}
	if (o->best_id) {
		if (sweep_load(o, o->best_id, s) < 0)
			return 1;
		*have_s = true;
		if (s->best < 0) {
			log_error("sweep %lld has no best configuration; nothing to roll out",
			          (long long)o->best_id);
			return 1;
		}
		*cfg = s->points[s->best].cfg;
	}
	if (cfg->n == 0) {
		log_error("no parameters to roll out");
		return EXIT_USAGE;
	}
	return 0;
}

static void rollout_event(void *cls, const struct rollout *r, enum rollrun_event ev, int wave,
                          int round, int rounds)
{
	struct buf b = BUF_INIT;

	(void)cls;
	report_rollout_event(r, ev, wave, round, rounds, &b);
	fputs(b.data ? b.data : "", stderr);
	buf_release(&b);
}

/* rollout's exit status: 0 completed (or reverted), 1 error, 2 stopped, 3 completed with
 * tolerated failures, 130 a signal. */
static int rollout_exit_code(enum rollrun_result r)
{
	static const int codes[] = {
		[ROLLRUN_COMPLETED] = 0,     [ROLLRUN_PARTIAL] = 3,  [ROLLRUN_STOPPED] = 2,
		[ROLLRUN_INTERRUPTED] = 130, [ROLLRUN_REVERTED] = 0, [ROLLRUN_FAILED] = 1,
	};

	return codes[r];
}

/* Load stored rollout id and its plan (tokens loaded); refuse one whose controller runs. */
static int rollout_stored(const struct opts *o, int64_t id, struct rollout *r, struct plan *p)
{
	struct ctlstore *st = NULL;
	char *path = db_path(o), me[64];
	struct err e = { 0 };
	int rc;

	rc = ctlstore_open(path, &st, &e);
	if (rc == 0)
		rc = ctlstore_rollout_load(st, id, r, &e);
	ctlstore_close(st);
	free(path);
	if (rc < 0) {
		log_error("%s", e.msg);
		return -1;
	}
	host_name(me, sizeof(me));
	if (r->status == ROLLOUT_RUNNING && r->owner_pid > 0 && !strcmp(r->owner_host, me) &&
	    (kill(r->owner_pid, 0) == 0 || errno != ESRCH) && r->owner_pid != (int)getpid()) {
		log_error("rollout r%lld is running (pid %d on this host); stop it first",
		          (long long)id, r->owner_pid);
		rollout_release(r);
		return -1;
	}
	if (plan_parse(r->plan_json, r->plan_dir, p, &e) < 0 || plan_tokens_load(p, &e) < 0) {
		log_error("rollout r%lld's plan: %s", (long long)id, e.msg);
		rollout_release(r);
		return -1;
	}
	return 0;
}

static int cmd_rollout(const struct cmd *c, struct opts *o)
{
	struct rollrun_opts ro = { 0 };
	struct rollout r;
	struct plan p, *job = NULL;
	struct sweep s;
	struct config cfg = { 0 };
	struct buf out = BUF_INIT;
	struct err e = { 0 };
	bool have_s = false, stored = o->resume_id || o->revert_id;
	char *path, me[64], dir[PATH_MAX], *copy;
	enum rollrun_result res;
	int rc, check;

	rollout_init(&r);
	if (stored ? o->nargs != 0 || (o->resume_id && o->revert_id) : o->nargs != 1) {
		usage_print(stderr, c);
		return EXIT_USAGE;
	}
	if (stored && o->nodes_from) {
		log_error("--nodes-from: a stored rollout goes on with (or puts back) the nodes it "
		          "was started with");
		return EXIT_USAGE;
	}
	if (stored) {
		if (rollout_stored(o, o->resume_id ? o->resume_id : o->revert_id, &r, &p) < 0)
			return 1;
		if (r.sweep_id && sweep_load(&(struct opts){ .db = o->db }, r.sweep_id, &s) == 0) {
			have_s = true;
			job = &s.plan;
		}
	} else {
		rc = rollout_config(o, &cfg, &s, &have_s);
		if (rc)
			goto usage_out;
		check = o->check ? rollout_check_parse(o->check) : CHECK_READBACK;
		if (check < 0 || (o->profile && !profile_name_ok(o->profile))) {
			log_error(check < 0 ? "--check: '%s' is not none, readback or measure"
			                    : "--profile: '%s' is not a profile name (1..63 of A-Z "
			                      "a-z 0-9 _ . -)",
			          check < 0 ? o->check : o->profile);
			rc = EXIT_USAGE;
			goto usage_out;
		}
		if (plan_open(o, o->args[0], &p, true) < 0) {
			rc = 1;
			goto usage_out;
		}
		r.params = cfg;
		r.check = (enum rollout_check)check;
		r.enforce = !o->no_enforce;
		r.canary = o->canary > 0 ? (int)o->canary : 1;
		r.max_failures = o->max_failures > 0 ? (int)o->max_failures : 0;
		if (o->profile)
			snprintf(r.profile, sizeof(r.profile), "%s", o->profile);
		if (o->waves)
			snprintf(r.waves_spec, sizeof(r.waves_spec), "%s", o->waves);
		snprintf(r.plan_name, sizeof(r.plan_name), "%s", p.name ? p.name : "");
		r.plan_json = xstrdup(p.json);
		copy = xstrdup(o->args[0]);
		r.plan_dir = xstrdup(realpath(dirname(copy), dir) ? dir : ".");
		free(copy);
		if (have_s) {
			r.sweep_id = o->best_id;
			r.promised_gain = s.outcome == OUTCOME_BEST;
			r.promised_pct = s.points[s.best].delta_pct;
			job = &s.plan;
		}
	}
	path = db_path(o);
	signals_install();
	host_name(me, sizeof(me));
	ro.db_path = path;
	ro.stop = &stop_signal;
	ro.window = o->parallel > 0 ? (int)o->parallel : 0;
	ro.session_ttl_s = o->session_ttl_s > 0 ? o->session_ttl_s : 60;
	ro.poll_interval_s = (o->poll_ms > 0 ? o->poll_ms : 50) / 1000.0;
	ro.owner_pid = (int)getpid();
	ro.owner_host = me;
	ro.event = rollout_event;
	if (o->revert_id)
		res = rollrun_revert(&r, &p, &ro, &e);
	else if (o->resume_id)
		res = rollrun_resume(&r, &p, job, &ro, &e);
	else
		res = rollrun_start(&r, &p, job, &ro, &e);
	rc = rollout_exit_code(res);
	if (r.id > 0) {
		report_rollout_show(&r, o->all_nodes, &out);
		if (output_write(o, out.data, out.len) && rc == 0)
			rc = 1;
	}
	if (res == ROLLRUN_FAILED && e.msg[0])
		log_error("%s", e.msg);
	buf_release(&out);
	free(path);
	plan_release(&p);
usage_out:
	if (have_s)
		sweep_release(&s);
	rollout_release(&r);
	return rc;
}

static int cmd_verify(const struct cmd *c, struct opts *o)
{
	const char *name = o->profile ? o->profile : ROLLOUT_PROFILE_DEFAULT;
	struct verify_expect *ex = NULL;
	struct verify_node *res = NULL;
	struct rollout r;
	struct plan p;
	struct sweep s;
	struct config cfg = { 0 };
	struct buf out = BUF_INIT;
	char source[64];
	bool have_s = false, have_r = false;
	int rc, bad;

	(void)c;
	rollout_init(&r);
	if ((o->params || o->best_id) && o->rollout_id) {
		log_error("give one of --params, --best or --rollout");
		return EXIT_USAGE;
	}
	if (!profile_name_ok(name)) {
		log_error("--profile: '%s' is not a profile name", name);
		return EXIT_USAGE;
	}
	if (o->params || o->best_id) {
		rc = rollout_config(o, &cfg, &s, &have_s);
		if (rc)
			goto out;
		snprintf(source, sizeof(source), "%s",
		         o->params ? "--params" : "the best of sweep --best");
	} else {
		struct ctlstore *st = NULL;
		struct ctlstore_rollout_summary *h = NULL;
		char *path = db_path(o);
		struct err e = { 0 };
		int64_t id = o->rollout_id;
		int n = 0, i;

		/* The newest rollout of this profile name holds what each node should have. */
		rc = ctlstore_open(path, &st, &e);
		if (rc == 0 && !id)
			rc = ctlstore_rollouts_list(st, 1000, &h, &n, &e);
		for (i = 0; rc == 0 && !id && i < n; i++)
			if (!strcmp(h[i].profile, name))
				id = h[i].id;
		if (rc == 0 && id)
			rc = ctlstore_rollout_load(st, id, &r, &e);
		free(h);
		ctlstore_close(st);
		free(path);
		if (rc < 0 || !id) {
			log_error("%s",
			          rc < 0 ? e.msg
			                 : "no rollout of this profile to verify against: give "
			                   "--rollout ID, --params JSON or --best ID");
			rc = 1;
			goto out;
		}
		have_r = true;
		snprintf(source, sizeof(source), "rollout r%lld", (long long)id);
		name = r.profile;
	}
	if (plan_open(o, o->args[0], &p, true) < 0) {
		rc = 1;
		goto out;
	}
	ex = xcalloc((size_t)p.nnodes + 1, sizeof(*ex));
	res = xcalloc((size_t)p.nnodes + 1, sizeof(*res));
	verify_expect_from(&p, have_r ? &r : NULL, &cfg, source, ex);
	bad = verify_run(&p, name, ex, res);
	report_verify(&p, name, res, bad, &out);
	rc = output_write(o, out.data, out.len) || bad ? 1 : 0;
	buf_release(&out);
	plan_release(&p);
out:
	free(ex);
	free(res);
	if (have_s)
		sweep_release(&s);
	rollout_release(&r);
	return rc;
}

static int cmd_help(const struct cmd *c, struct opts *o);

static const struct cmd cmds[] = {
	{ "nodes", cmd_nodes, "nodes PLAN.json [--nodes-from FILE]",
	  "Show each node's health, version, device and current parameters, and run the\n"
	  "plan's pre-flight: every agent judges every configuration and the job with dry\n"
	  "runs; nothing is changed. --nodes-from FILE (here and for sweep, apply, rollout\n"
	  "and verify) takes the nodes from a node list instead of the plan's: a hosts file\n"
	  "('name url device' or 'host[:port] [device]' per line), an Ansible inventory (INI\n"
	  "or YAML) or the JSON of kubectl get pods -o json; the plan's \"nodes_from\" options\n"
	  "still apply.",
	  1 },
	{ "sweep", cmd_sweep,
	  "sweep PLAN.json [--format table|markdown|csv|json] [--out FILE] [--dry-run]\n"
	  "                     [--continue-on-node-failure] [--db PATH] [--session-ttl S] "
	  "[--poll-ms MS]\n"
	  "                     [--nodes all|auto] [--nodes-from FILE] [--verbose]",
	  "Run the plan on every node at once: pre-flight (every agent judges every\n"
	  "configuration and the job with dry runs before anything changes), a tuning session\n"
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
	  "                     [--nodes all|auto]",
	  "Judge a sweep document again from its passes: FILE (or - for stdin) as\n"
	  "show --format json writes it. Every figure and verdict in it is recomputed, so\n"
	  "--min-effect P re-judges an old sweep with another threshold (in %). No agent and\n"
	  "no database are needed.",
	  1 },
	{ "apply", cmd_apply,
	  "apply PLAN.json (--params JSON | --best ID) [--nodes-from FILE] [--db PATH]",
	  "Set parameters permanently on every node of the plan, in parallel, and print the\n"
	  "values read back. --best ID applies the best configuration of a stored sweep.",
	  1 },
	{ "rollout", cmd_rollout,
	  "rollout PLAN.json (--best ID | --params JSON) [--canary N] [--waves 10%,50%,100%]\n"
	  "                     [--max-failures K] [--check none|readback|measure] [--profile "
	  "NAME]\n"
	  "                     [--no-enforce] [--parallel N] [--nodes-from FILE] [--db PATH]\n"
	  "       fleettune-ctl rollout --resume ID | --revert ID [--db PATH]",
	  "Put the values on the plan's nodes as a profile their agents keep (profile NAME,\n"
	  "default fleettune: applied at every start, when the device appears, and put back when\n"
	  "it drifts), wave by wave: --canary N nodes first (1), then --waves, each the share of\n"
	  "all nodes (or a count) that holds it afterwards. Pre-flight asks every node (its\n"
	  "agent keeps profiles, what it holds now); each agent judges the values at the write,\n"
	  "all or nothing, the canary first. After each wave the\n"
	  "check: readback (every node of the wave holds the values, live), measure (readback,\n"
	  "then the sweep's job run old vs new on the wave's nodes, interleaved, judged by the\n"
	  "sweep's verdict rules: no significant loss, and for a sweep that found a gain, not\n"
	  "equivalent to nothing), or none. More than --max-failures K failing nodes in a wave\n"
	  "(0), or a failed check, stops: that wave is put back and the exit status is 2. A\n"
	  "signal stops between nodes (130): every node holds the new profile or what it had.\n"
	  "Every rollout is stored (history, show rID); --resume ID goes on with one whose\n"
	  "controller died, --revert ID puts every node it changed back. Exit 0 completed, 3\n"
	  "completed with up to K failures a wave left as they were, 1 on errors.",
	  -1 },
	{ "verify", cmd_verify,
	  "verify PLAN.json [--profile NAME] [--rollout ID | --params JSON | --best ID]\n"
	  "                     [--nodes-from FILE] [--db PATH]",
	  "Ask every node of the plan for its profile (default: the newest rollout's name) and\n"
	  "say per node what differs from what it should hold: the newest rollout of that\n"
	  "profile (the values on the nodes it left new, what the others had), or --params /\n"
	  "--best on every node; values drifted, devices not held. Exit 1 when any node\n"
	  "differs or cannot be asked.",
	  1 },
	{ "export", cmd_export,
	  "export ID --format udev|tuned [--baseline] [--out FILE] [--db PATH]",
	  "Print a udev rule or a tuned profile for the sweep's best configuration. A sweep with "
	  "no best\nis refused (exit 1, saying why); --baseline exports its baseline instead, on "
	  "purpose.",
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
	OPT_PROFILE,
	OPT_WAVES,
	OPT_CHECK,
	OPT_CANARY,
	OPT_MAX_FAILURES,
	OPT_PARALLEL,
	OPT_RESUME,
	OPT_REVERT,
	OPT_ROLLOUT,
	OPT_NO_ENFORCE,
	OPT_NODES_FROM,
};

static int num_opt(const char *name, const char *v, int64_t *out)
{
	if (num_parse_i64(v, out) < 0 || *out <= 0) {
		log_error("%s: '%s' is not a positive integer", name, v);
		return -1;
	}
	return 0;
}

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
		{ "continue-on-node-failure", no_argument, NULL, OPT_CONTINUE },
		{ "min-effect", required_argument, NULL, OPT_MIN_EFFECT },
		{ "profile", required_argument, NULL, OPT_PROFILE },
		{ "waves", required_argument, NULL, OPT_WAVES },
		{ "check", required_argument, NULL, OPT_CHECK },
		{ "canary", required_argument, NULL, OPT_CANARY },
		{ "max-failures", required_argument, NULL, OPT_MAX_FAILURES },
		{ "parallel", required_argument, NULL, OPT_PARALLEL },
		{ "resume", required_argument, NULL, OPT_RESUME },
		{ "revert", required_argument, NULL, OPT_REVERT },
		{ "rollout", required_argument, NULL, OPT_ROLLOUT },
		{ "no-enforce", no_argument, NULL, OPT_NO_ENFORCE },
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
		case OPT_PROFILE:
			o.profile = optarg;
			break;
		case OPT_WAVES:
			o.waves = optarg;
			break;
		case OPT_CHECK:
			o.check = optarg;
			break;
		case OPT_CANARY:
			if (num_opt("--canary", optarg, &o.canary) < 0)
				return EXIT_USAGE;
			break;
		case OPT_MAX_FAILURES:
			if (num_parse_i64(optarg, &o.max_failures) < 0 || o.max_failures < 0) {
				log_error("--max-failures: '%s' is not a count (0 or more)",
				          optarg);
				return EXIT_USAGE;
			}
			break;
		case OPT_PARALLEL:
			if (num_opt("--parallel", optarg, &o.parallel) < 0)
				return EXIT_USAGE;
			break;
		case OPT_RESUME:
			if (rollout_id_parse(optarg, &o.resume_id) < 0)
				return EXIT_USAGE;
			break;
		case OPT_REVERT:
			if (rollout_id_parse(optarg, &o.revert_id) < 0)
				return EXIT_USAGE;
			break;
		case OPT_ROLLOUT:
			if (rollout_id_parse(optarg, &o.rollout_id) < 0)
				return EXIT_USAGE;
			break;
		case OPT_NO_ENFORCE:
			o.no_enforce = true;
			break;
		case 'h':
			o.help = true;
			break;
		default:
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
