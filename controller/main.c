/* main.c -- fleettune-ctl: the subcommand table, option parsing and output files. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ctlstore.h"
#include "fleet.h"
#include "log.h"
#include "num.h"
#include "plan.h"
#include "report.h"
#include "sweep.h"
#include "timeutil.h"
#include "verdict.h"
#include "version.h"
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
	bool dry_run;
	bool continue_on_node_failure;
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
			fprintf(stderr, "fleettune-ctl: cannot write '%s': %s\n", o->out,
			        strerror(errno));
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
		fprintf(stderr,
		        "fleettune-ctl: --format: '%s' is not table, markdown, csv or json\n",
		        o->format);
		return -1;
	}
	return 0;
}

static int id_parse(const char *s, int64_t *id)
{
	if (num_parse_i64(s, id) < 0 || *id <= 0) {
		fprintf(stderr, "fleettune-ctl: '%s' is not a sweep id\n", s);
		return -1;
	}
	return 0;
}

/* Load sweep id from the database and analyse it. */
static int sweep_load(const struct opts *o, int64_t id, struct sweep *s)
{
	struct ctlstore *st = NULL;
	char *path = db_path(o);
	struct err e = { 0 };
	int rc;

	rc = ctlstore_open(path, &st, &e);
	if (rc == 0)
		rc = ctlstore_sweep_load(st, id, s, &e);
	if (rc < 0)
		fprintf(stderr, "fleettune-ctl: %s\n", e.msg);
	else
		verdict_sweep(s);
	ctlstore_close(st);
	free(path);
	return rc;
}

static int plan_open(const char *path, struct plan *p, bool tokens)
{
	struct err e = { 0 };

	if (plan_load(path, p, &e) < 0 || (tokens && plan_tokens_load(p, &e) < 0)) {
		fprintf(stderr, "fleettune-ctl: %s: %s\n", path, e.msg);
		plan_release(p);
		return -1;
	}
	return 0;
}

static int cmd_nodes(const struct cmd *c, struct opts *o)
{
	struct plan p;
	struct fleet f;
	struct node_info *info;
	struct buf problems = BUF_INIT;
	int i, j, k, rc = 0;

	(void)c;
	if (plan_open(o->args[0], &p, true) < 0)
		return 1;
	fleet_init(&f, &p, 10.0, 2);
	info = xcalloc((size_t)p.nnodes, sizeof(*info));
	fleet_probe(&f, info);
	for (i = 0; i < p.nnodes; i++) {
		const struct node_info *ni = &info[i];

		printf("%s  %s  ", p.nodes[i].name, p.nodes[i].url);
		if (!ni->ok) {
			printf("DOWN: %s\n", ni->error);
			rc = 1;
			continue;
		}
		printf("ok  fleettune-agent %s  node \"%s\"  up %.0f s\n", ni->version, ni->node,
		       ni->uptime_s);
		if (!ni->dev_found) {
			printf("  device %s: not found%s%s\n", p.nodes[i].device,
			       ni->error[0] ? ": " : "", ni->error);
			rc = 1;
			continue;
		}
		printf("  device %s: %.1f GiB, %s\n", p.nodes[i].device,
		       (double)ni->dev_size_bytes / (1 << 30),
		       ni->dev_writable ? "writable" : "read-only (not in --allow-device)");
		for (j = 0, k = 0; j < ni->nparams; j++) {
			const struct param_info *pi = &ni->params[j];

			if (!pi->writable)
				continue;
			printf("%s%s=%s", k % 5 ? "  " : "    ", pi->name, pi->value);
			if (++k % 5 == 0)
				printf("\n");
		}
		if (k % 5)
			printf("\n");
		printf("    (%d writable parameters of %d)\n", k, ni->nparams);
	}
	if (fleet_preflight_check(&p, info, &problems) < 0) {
		printf("pre-flight for this plan would fail:\n%s", problems.data);
		rc = 1;
	} else {
		printf("pre-flight for this plan: ok\n");
	}
	buf_release(&problems);
	node_info_release(info, p.nnodes);
	free(info);
	fleet_release(&f);
	plan_release(&p);
	return rc;
}

static void dry_run_print(const struct plan *p)
{
	struct sweep s;
	struct plan copy;
	struct err e;
	int n = sweep_points_estimate(p), i;
	double point_s = p->loops * (p->runtime_s > 0 ? p->runtime_s : 0);

	/* Expand on a copy: sequential points after the first axis depend on results. */
	if (plan_parse(p->json, NULL, &copy, &e) < 0)
		return;
	sweep_init(&s, &copy);
	sweep_points_next(&s);
	printf("dry run: \"%s\", %s strategy, %d node%s, %d loops per point\n", p->name,
	       p->strategy == PLAN_GRID ? "grid" : "sequential", p->nnodes,
	       p->nnodes == 1 ? "" : "s", p->loops);
	for (i = 0; i < p->nnodes; i++)
		printf("  node %s  %s  device %s\n", p->nodes[i].name, p->nodes[i].url,
		       p->nodes[i].device);
	for (i = 0; i < s.npoints; i++) {
		struct buf b = BUF_INIT;

		config_format(&s.points[i].cfg, &b);
		printf("  point %d: %-9s %s\n", i + 1,
		       s.points[i].role == ROLE_BASELINE ? "baseline" : "", b.data);
		buf_release(&b);
	}
	if (p->strategy == PLAN_SEQUENTIAL) {
		for (i = 1; i < p->naxes; i++)
			printf("  then axis %d (%s%s): a fresh baseline + %d values, earlier axes "
			       "at "
			       "their chosen values\n",
			       i + 1, p->axes[i].params[0], p->axes[i].nparams > 1 ? ", ..." : "",
			       p->axes[i].nvalues);
		printf("  then a final confirmation of the best configuration against the "
		       "baseline\n");
	}
	if (point_s > 0)
		printf("at most %d points x %d loops x %g s = about %.0f s of benchmarking "
		       "(nodes run in parallel)\n",
		       n, p->loops, p->runtime_s, n * point_s);
	else
		printf("at most %d points x %d loops\n", n, p->loops);
	printf("nothing was changed\n");
	sweep_release(&s);
}

static int cmd_sweep(const struct cmd *c, struct opts *o)
{
	struct sweep s;
	struct plan p;
	struct sweep_opts so = { 0 };
	struct err e = { 0 };
	struct buf out = BUF_INIT;
	enum report_format f;
	char *path = NULL;
	int code;

	(void)c;
	if (format_get(o, &f) < 0)
		return EXIT_USAGE;
	if (plan_open(o->args[0], &p, !o->dry_run) < 0)
		return 1;
	if (o->dry_run) {
		dry_run_print(&p);
		plan_release(&p);
		return 0;
	}
	path = db_path(o);
	so.db_path = path;
	so.continue_on_node_failure = o->continue_on_node_failure;
	so.progress_tty = isatty(STDERR_FILENO);
	so.session_ttl_s = o->session_ttl_s > 0 ? o->session_ttl_s : 60;
	so.poll_interval_s = (o->poll_ms > 0 ? o->poll_ms : 50) / 1000.0;
	sweep_init(&s, &p);
	sweep_signals_install();
	code = sweep_run(&s, &so, &e);
	if (s.id > 0) {
		report_render(&s, f, &out);
		if (output_write(o, out.data, out.len) && code == 0)
			code = 1;
	}
	if (code != 0 && e.msg[0])
		fprintf(stderr, "fleettune-ctl: %s\n", e.msg);
	buf_release(&out);
	sweep_release(&s);
	free(path);
	return code;
}

static int cmd_history(const struct cmd *c, struct opts *o)
{
	struct ctlstore *st = NULL;
	struct ctlstore_summary *h = NULL;
	struct err e = { 0 };
	char *path = db_path(o);
	int n = 0, i, rc;

	(void)c;
	rc = ctlstore_open(path, &st, &e);
	if (rc == 0)
		rc = ctlstore_history(st, o->limit > 0 ? (int)o->limit : 20, &h, &n, &e);
	if (rc < 0) {
		fprintf(stderr, "fleettune-ctl: %s\n", e.msg);
		goto out;
	}
	printf("%-5s %-20s %-11s %-10s %-6s %-14s %s\n", "id", "started", "status", "strategy",
	       "points", "metric", "name / best");
	for (i = 0; i < n; i++) {
		char iso[40];

		time_fmt_iso(h[i].created_at, iso, sizeof(iso));
		printf("%-5lld %-20s %-11s %-10s %-6d %-14s %s\n", (long long)h[i].id, iso,
		       h[i].status, h[i].strategy, h[i].npoints, h[i].metric, h[i].name);
		if (h[i].best_line[0])
			printf("%67s%s\n", "", h[i].best_line);
	}
out:
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
	if (format_get(o, &f) < 0 || id_parse(o->args[0], &id) < 0)
		return EXIT_USAGE;
	if (sweep_load(o, id, &s) < 0)
		return 1;
	report_render(&s, f, &out);
	rc = output_write(o, out.data, out.len);
	buf_release(&out);
	sweep_release(&s);
	return rc;
}

static int cmd_compare(const struct cmd *c, struct opts *o)
{
	struct sweep a, b;
	struct buf out = BUF_INIT;
	int64_t ia, ib;
	int rc = 1;

	(void)c;
	if (id_parse(o->args[0], &ia) < 0 || id_parse(o->args[1], &ib) < 0)
		return EXIT_USAGE;
	if (o->format && strcmp(o->format, "table") && strcmp(o->format, "markdown")) {
		fprintf(stderr, "fleettune-ctl: compare --format: table or markdown\n");
		return EXIT_USAGE;
	}
	if (sweep_load(o, ia, &a) < 0)
		return 1;
	if (sweep_load(o, ib, &b) < 0) {
		sweep_release(&a);
		return 1;
	}
	if (report_compare(&a, &b, o->format && !strcmp(o->format, "markdown"), &out) > 0)
		rc = 0;
	else
		fprintf(stderr, "fleettune-ctl: sweeps %lld and %lld have no point in common\n",
		        (long long)ia, (long long)ib);
	if (output_write(o, out.data, out.len))
		rc = 1;
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
	struct err e = { 0 };
	unsigned *adjusted;
	int i, j, rc = 0;

	(void)c;
	if (!!o->params == !!o->best_id) {
		fprintf(stderr, "fleettune-ctl: apply needs exactly one of --params JSON or --best "
		                "ID\n");
		return EXIT_USAGE;
	}
	if (o->params && config_parse_json(o->params, &cfg, &e) < 0) {
		fprintf(stderr, "fleettune-ctl: --params: %s\n", e.msg);
		return EXIT_USAGE;
	}
	if (o->best_id) {
		struct sweep s;

		if (sweep_load(o, o->best_id, &s) < 0)
			return 1;
		if (s.best < 0) {
			fprintf(stderr,
			        "fleettune-ctl: sweep %lld found no significant gain; nothing to "
			        "apply\n",
			        (long long)o->best_id);
			sweep_release(&s);
			return 1;
		}
		cfg = s.points[s.best].cfg;
		sweep_release(&s);
	}
	if (cfg.n == 0) {
		fprintf(stderr, "fleettune-ctl: no parameters to apply\n");
		return EXIT_USAGE;
	}
	if (plan_open(o->args[0], &p, true) < 0)
		return 1;
	fleet_init(&f, &p, 10.0, 2);
	applied = xcalloc((size_t)p.nnodes, sizeof(*applied));
	adjusted = xcalloc((size_t)p.nnodes, sizeof(*adjusted));
	res = xcalloc((size_t)p.nnodes, sizeof(*res));
	fleet_params_apply(&f, &cfg, applied, adjusted, res);
	for (i = 0; i < p.nnodes; i++) {
		printf("%s %s: ", p.nodes[i].name, p.nodes[i].device);
		if (res[i].failed) {
			printf("FAILED: %s (nothing changed on this node)\n", res[i].error);
			rc = 1;
			continue;
		}
		for (j = 0; j < applied[i].n; j++) {
			const struct setting *req = config_get(&cfg, applied[i].s[j].name);

			printf("%s%s=", j ? " " : "", applied[i].s[j].name);
			if (adjusted[i] & (1u << j))
				printf("%s\u2192%s", req ? req->value : "?", applied[i].s[j].value);
			else
				printf("%s", applied[i].s[j].value);
		}
		printf("\n");
	}
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
		fprintf(stderr, "fleettune-ctl: export needs --format udev or --format tuned\n");
		return EXIT_USAGE;
	}
	if (id_parse(o->args[0], &id) < 0)
		return EXIT_USAGE;
	if (sweep_load(o, id, &s) < 0)
		return 1;
	if (s.best < 0)
		fprintf(stderr,
		        "fleettune-ctl: sweep %lld found no significant gain; exporting "
		        "its baseline\n",
		        (long long)id);
	if (report_export(&s, o->format, &out, &e) < 0) {
		fprintf(stderr, "fleettune-ctl: %s\n", e.msg);
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
		fprintf(stderr, "fleettune-ctl: report needs --html FILE\n");
		return EXIT_USAGE;
	}
	if (id_parse(o->args[0], &id) < 0)
		return EXIT_USAGE;
	if (sweep_load(o, id, &s) < 0)
		return 1;
	if (report_html_write(&s, web_dir(o), o->html, &e) < 0) {
		fprintf(stderr, "fleettune-ctl: %s\n", e.msg);
		rc = 1;
	} else {
		fprintf(stderr, "wrote %s\n", o->html);
	}
	sweep_release(&s);
	return rc;
}

static int cmd_help(const struct cmd *c, struct opts *o);

static const struct cmd cmds[] = {
	{ "nodes", cmd_nodes, "nodes PLAN.json",
	  "Show each node's health, version, device and current parameters, and whether the\n"
	  "plan's pre-flight would pass.",
	  1 },
	{ "sweep", cmd_sweep,
	  "sweep PLAN.json [--format table|markdown|csv|json] [--out FILE] [--dry-run]\n"
	  "                     [--continue-on-node-failure] [--db PATH] [--session-ttl S] "
	  "[--poll-ms MS]",
	  "Run the plan on every node at once: pre-flight, a tuning session per node, each\n"
	  "point applied with PATCH and benchmarked in parallel, then every node restored.\n"
	  "Exit 0 when complete, 2 when a node failed (partial results kept), 130 on\n"
	  "SIGINT/SIGTERM (jobs cancelled, nodes restored), 1 on other errors.",
	  1 },
	{ "history", cmd_history, "history [--limit N] [--db PATH]",
	  "List stored sweeps, newest first.", 0 },
	{ "show", cmd_show, "show ID [--format table|markdown|csv|json] [--out FILE] [--db PATH]",
	  "Render a stored sweep (no agent needed).", 1 },
	{ "compare", cmd_compare, "compare ID_A ID_B [--format table|markdown] [--db PATH]",
	  "Per-point, per-node deltas (Welch 95 % CI) of sweep B against sweep A, for the\n"
	  "points both sweeps ran (e.g. before and after a firmware change).",
	  2 },
	{ "apply", cmd_apply, "apply PLAN.json (--params JSON | --best ID) [--db PATH]",
	  "Set parameters permanently on every node of the plan, in parallel, and print the\n"
	  "values read back. --best ID applies the best configuration of a stored sweep.",
	  1 },
	{ "export", cmd_export, "export ID --format udev|tuned [--out FILE] [--db PATH]",
	  "Print a udev rule or a tuned profile for the sweep's best configuration.", 1 },
	{ "report", cmd_report, "report ID --html FILE [--web-root DIR] [--db PATH]",
	  "Write a self-contained HTML report (data, JS and CSS inline) of a stored sweep.", 1 },
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
	OPT_DRY_RUN,
	OPT_CONTINUE,
};

static int num_opt(const char *name, const char *v, int64_t *out)
{
	if (num_parse_i64(v, out) < 0 || *out <= 0) {
		fprintf(stderr, "fleettune-ctl: %s: '%s' is not a positive integer\n", name, v);
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
		{ "dry-run", no_argument, NULL, OPT_DRY_RUN },
		{ "continue-on-node-failure", no_argument, NULL, OPT_CONTINUE },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct opts o = { 0 };
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
		fprintf(stderr, "fleettune-ctl: unknown command '%s' (try fleettune-ctl help)\n",
		        argv[1]);
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
		case OPT_DRY_RUN:
			o.dry_run = true;
			break;
		case OPT_CONTINUE:
			o.continue_on_node_failure = true;
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
