/* cmd_show.c -- the commands that read what is stored or written, with no agent: history,
 * show, compare and analyze. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/cmd_rollout.h"
#include "doc/sweepdoc.h"
#include "judge/analysis.h"
#include "judge/verdict.h"
#include "log.h"
#include "model/sweep.h"
#include "plan/plan.h"
#include "plan/plan_nodes.h"
#include "render/report.h"
#include "store/ctlstore.h"
#include "render/text.h"
#include "banned.h"

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

const struct cmd cmd_history_entry = {
	.name = "history",
	.opts = CMD_OPTS(LIMIT) | CMD_OPTS(DB),
	.help = "List stored sweeps, then stored rollouts (rID), newest first.",
	.nargs = 0,
	.exec = cmd_history,
};

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
	if (cmd_format_get(o, &f) || sweep_id_parse(o->args[0], &id))
		return EXIT_USAGE;
	if (sweep_load(o, id, &s) < 0)
		return 1;
	report_render_nodes(&s, f, o->all_nodes, &out);
	rc = output_write(o, out.data, out.len);
	buf_release(&out);
	sweep_release(&s);
	return rc;
}

const struct cmd cmd_show_entry = {
	.name = "show",
	.args = "ID [--format table|markdown|csv|json]",
	.opts = CMD_OPTS(FORMAT) | CMD_OPTS(OUT) | CMD_OPTS(DB) | CMD_OPTS(NODES),
	.help = "Render a stored sweep (no agent needed). --nodes all: a column per node at any "
	        "fleet\n"
	        "size. show rID renders a stored rollout: its waves, checks and the nodes that do "
	        "not\n"
	        "hold the profile (--nodes all: every node).",
	.nargs = 1,
	.exec = cmd_show,
};

static int cmd_compare(const struct cmd *c, struct opts *o)
{
	struct sweep a, b;
	struct verdict_comparison cmp;
	struct buf out = BUF_INIT;
	bool have_a = false, have_b = false;
	int64_t ia, ib;
	int rc = EXIT_USAGE, matched;

	(void)c;
	if (sweep_id_parse(o->args[0], &ia) || sweep_id_parse(o->args[1], &ib))
		goto out;
	if (o->format && strcmp(o->format, "table") && strcmp(o->format, "markdown")) {
		log_error("compare --format: table or markdown");
		goto out;
	}
	rc = 1;
	if (sweep_load(o, ia, &a) < 0)
		goto out;
	have_a = true;
	if (sweep_load(o, ib, &b) < 0)
		goto out;
	have_b = true;
	memset(&cmp, 0, sizeof(cmp));
	if (a.suite && b.suite) {
		/* Two suites: a section per workload. */
		matched = report_compare_suites(&a, &b, o->format && !strcmp(o->format, "markdown"),
		                                &out);
	} else {
		analysis_sweeps_compared(&a, &b, &cmp);
		report_compare(&a, &b, &cmp, o->format && !strcmp(o->format, "markdown"), &out);
		matched = cmp.nrows;
	}
	if (matched > 0)
		rc = 0;
	else
		log_error("sweeps %lld and %lld have no point in common", (long long)ia,
		          (long long)ib);
	if (output_write(o, out.data, out.len))
		rc = 1;
	verdict_comparison_release(&cmp);
out:
	buf_release(&out);
	if (have_a)
		sweep_release(&a);
	if (have_b)
		sweep_release(&b);
	return rc;
}

const struct cmd cmd_compare_entry = {
	.name = "compare",
	.args = "ID_A ID_B [--format table|markdown]",
	.opts = CMD_OPTS(FORMAT) | CMD_OPTS(OUT) | CMD_OPTS(DB),
	.help = "Sweep B against sweep A, for the points both sweeps ran (e.g. before and after a\n"
	        "firmware change): per node the ratio of means with its 95 % CI, the fleet effect\n"
	        "and a verdict decided on it, as in a sweep's table.",
	.nargs = 2,
	.exec = cmd_compare,
};

/* --decide RULE: the suite's rule (no_loss, mean, primary:WORKLOAD) instead of its plan's. */
static int decide_set(struct plan *p, const char *spec, struct err *e)
{
	char rule[16];
	const char *colon = strchr(spec, ':');
	size_t n = colon ? (size_t)(colon - spec) : strlen(spec);
	int r, w = -1;

	if (!p->nworkloads)
		return err_set(e, -EINVAL, ERR_USAGE,
		               "--decide: the sweep is not a suite (its plan has no workloads)");
	snprintf(rule, sizeof(rule), "%.*s", (int)(n < sizeof(rule) ? n : sizeof(rule) - 1), spec);
	if (n >= sizeof(rule) || (r = plan_rule_parse(rule)) < 0)
		return err_set(e, -EINVAL, ERR_USAGE,
		               "--decide: '%s' is not no_loss, mean or primary:WORKLOAD", spec);
	if (r == PLAN_RULE_PRIMARY) {
		if (!colon || (w = plan_workload_find(p, colon + 1)) < 0)
			return err_set(e, -EINVAL, ERR_USAGE,
			               "--decide: primary needs one of the suite's workloads "
			               "(primary:NAME), not '%s'",
			               colon ? colon + 1 : "");
	} else if (colon) {
		return err_set(e, -EINVAL, ERR_USAGE, "--decide: only primary names a workload");
	}
	p->rule = (enum plan_rule)r;
	p->primary = w >= 0 ? w : 0;
	return 0;
}

/* analyze: a sweep document (FILE, or - for stdin) judged again from its passes. */
static int cmd_analyze(const struct cmd *c, struct opts *o)
{
	const char *path = o->args[0], *name = strcmp(path, "-") ? path : "stdin";
	struct buf in = BUF_INIT, out = BUF_INIT;
	struct err e = { 0 };
	enum report_format f;
	bool have_s = false;
	struct sweep s;
	int rc = EXIT_USAGE;

	(void)c;
	if (cmd_format_get(o, &f))
		goto out;
	rc = buf_read_file(&in, strcmp(path, "-") ? path : "/dev/stdin", 256u << 20);
	if (rc < 0) {
		log_error("cannot read %s: %s", name, strerror(-rc));
		rc = 1;
		goto out;
	}
	rc = sweepdoc_parse(in.data, &s, &e);
	buf_release(&in);
	if (rc < 0) {
		log_error("%s: %s", name, e.msg);
		rc = 1;
		goto out;
	}
	have_s = true;
	if (!isnan(o->min_effect_pct))
		s.plan.min_effect_pct = o->min_effect_pct;
	if ((o->cohort_by && plan_cohort_by_set(&s.plan, o->cohort_by, &e) < 0) ||
	    (o->decide && decide_set(&s.plan, o->decide, &e) < 0)) {
		log_error("%s", e.msg);
		rc = EXIT_USAGE;
		goto out;
	}
	analysis_sweep_loaded(&s);
	report_render_nodes(&s, f, o->all_nodes, &out);
	rc = output_write(o, out.data, out.len);
out:
	buf_release(&in);
	buf_release(&out);
	if (have_s)
		sweep_release(&s);
	return rc;
}

const struct cmd cmd_analyze_entry = {
	.name = "analyze",
	.args = "FILE|- [--format table|markdown|csv|json]",
	.opts = CMD_OPTS(FORMAT) | CMD_OPTS(MIN_EFFECT) | CMD_OPTS(OUT) | CMD_OPTS(NODES) |
	        CMD_OPTS(COHORT_BY) | CMD_OPTS(DECIDE),
	.help = "Judge a sweep document again from its passes: FILE (or - for stdin) as\n"
	        "show --format json writes it. Every figure and verdict in it is recomputed, so\n"
	        "--min-effect P re-judges an old sweep with another threshold (in %), and\n"
	        "--cohort-by groups its nodes into cohorts by other identity fields or node "
	        "labels\n"
	        "(\"model,firmware\", \"kernel\", \"label.rack\"; \"\" for one cohort), and\n"
	        "--decide RULE re-judges a suite under another rule (no_loss, mean,\n"
	        "primary:WORKLOAD). No agent and no database are needed.",
	.nargs = 1,
	.exec = cmd_analyze,
};
