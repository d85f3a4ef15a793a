/* apply.c -- `fleettune-ctl apply` (its entry and options): a configuration, or each node its
 * cohort's best, set permanently on every node of a plan in parallel, and what each node
 * read back. */
#include <stdio.h>
#include <stdlib.h>

#include "cmd/apply.h"
#include "cmd/cmd.h"
#include "fleet/fleet.h"
#include "judge/cohort.h"
#include "log.h"
#include "render/report.h"
#include "xmalloc.h"
#include "render/text.h"
#include "banned.h"

int apply_config(struct plan *p, const struct config *cfg, struct buf *out)
{
	struct config *applied = xcalloc((size_t)p->nnodes + 1, sizeof(*applied));
	unsigned *adjusted = xcalloc((size_t)p->nnodes + 1, sizeof(*adjusted));
	struct fleet_result *res = xcalloc((size_t)p->nnodes + 1, sizeof(*res));
	struct fleet f;
	int i, rc = 0;

	fleet_init(&f, p, 10.0, 2);
	fleet_params_apply(&f, cfg, applied, adjusted, res);
	for (i = 0; i < p->nnodes; i++)
		if (res[i].failed)
			rc = 1;
	report_apply(p, cfg, applied, adjusted, res, out);
	free(applied);
	free(adjusted);
	free(res);
	fleet_release(&f);
	return rc;
}

int apply_per_cohort(const struct sweep *s, struct plan *p, bool unconfirmed, struct buf *out)
{
	int n = p->nnodes, k, f, c, rc = 0, napplied = 0;
	const struct config **cfgs = xcalloc((size_t)n + 1, sizeof(*cfgs));
	char **notes = xcalloc((size_t)n + 1, sizeof(char *));
	struct node_info *info = xcalloc((size_t)n + 1, sizeof(*info));
	struct config *applied = xcalloc((size_t)n + 1, sizeof(*applied));
	unsigned *adjusted = xcalloc((size_t)n + 1, sizeof(*adjusted));
	struct fleet_result *res = xcalloc((size_t)n + 1, sizeof(*res));
	struct fleet fl;

	fleet_init(&fl, p, 10.0, 2);
	fleet_probe(&fl, false, info);
	for (k = 0; k < n; k++) {
		struct node_identity id;
		struct buf key = BUF_INIT;

		for (f = 0; f < IDF_N; f++)
			id.field[f] = info[k].identity[f];
		c = cohort_find(s, &p->nodes[k], &id);
		if (c >= 0)
			sweep_cohort_key(s, c, &key);
		if (!info[k].ok)
			notes[k] = xasprintf("cannot read what it is: %s", info[k].err.msg);
		else if (c < 0)
			notes[k] = xstrdup("what it is matches no cohort of the sweep");
		else if (s->cohorts[c].decision.state == DECISION_NONE)
			notes[k] =
			        xasprintf("cohort %s: no configuration gave it a significant gain",
			                  key.data ? key.data : "");
		else if (s->cohorts[c].decision.state == DECISION_UNCONFIRMED && !unconfirmed)
			notes[k] = xasprintf(
			        "cohort %s: its configuration is not confirmed by the "
			        "final confirmation (--unconfirmed applies it on purpose)",
			        key.data ? key.data : "");
		else {
			cfgs[k] = &s->cohorts[c].decision.cfg;
			notes[k] = xasprintf("cohort %s%s", key.data ? key.data : "",
			                     s->cohorts[c].decision.state == DECISION_UNCONFIRMED
			                             ? " (UNCONFIRMED, on purpose)"
			                             : "");
			napplied++;
		}
		buf_release(&key);
	}
	fleet_params_apply_each(&fl, cfgs, applied, adjusted, res);
	for (k = 0; k < n; k++)
		if (cfgs[k] && res[k].failed)
			rc = 1;
	report_apply_each(p, cfgs, notes, applied, adjusted, res, out);
	if (!napplied) {
		log_error(
		        "sweep %lld: no node of the plan is in a cohort with a best configuration",
		        (long long)s->id);
		rc = 1;
	}
	for (k = 0; k < n; k++)
		free(notes[k]);
	free(notes);
	free(cfgs);
	node_info_release(info, n);
	free(info);
	free(applied);
	free(adjusted);
	free(res);
	fleet_release(&fl);
	return rc;
}

/* The configuration apply sets: --params, or --best's (exactly one: *have_s when s holds its
 * sweep); *per_cohort when the sweep's cohorts have different bests. EXIT_USAGE or 1, logged. */
static int apply_what(struct opts *o, struct config *cfg, struct sweep *s, bool *have_s,
                      bool *per_cohort)
{
	struct err e = { 0 };
	const struct config *best;

	*per_cohort = false;
	if (!!o->params == !!o->best_id) {
		log_error("apply needs exactly one of --params JSON or --best ID");
		return EXIT_USAGE;
	}
	if (o->params && (config_parse_json(o->params, cfg, &e) < 0 || config_check(cfg, &e) < 0)) {
		log_error("--params: %s", e.msg);
		return EXIT_USAGE;
	}
	if (o->params)
		return 0;
	if (sweep_load(o, o->best_id, s) < 0)
		return 1;
	*have_s = true;
	*per_cohort = sweep_cohort_decisions_differ(s);
	if (*per_cohort)
		return 0;
	best = decision_action_cfg(o, s, &s->decision, "apply");
	if (!best)
		return 1;
	*cfg = *best;
	return 0;
}

static int cmd_apply(const struct cmd *c, struct opts *o)
{
	struct plan p;
	struct config cfg = { 0 };
	struct buf out = BUF_INIT;
	struct sweep s;
	bool have_s = false, per_cohort = false;
	int rc;

	(void)c;
	rc = apply_what(o, &cfg, &s, &have_s, &per_cohort);
	if (rc)
		goto out;
	if (!per_cohort && cfg.n == 0) {
		log_error("no parameters to apply");
		rc = EXIT_USAGE;
		goto out;
	}
	if (plan_open(o, o->args[0], &p, true) < 0) {
		rc = 1;
		goto out;
	}
	/* Of a sweep whose cohorts' decisions differ, each node its cohort's. */
	rc = per_cohort ? apply_per_cohort(&s, &p, o->unconfirmed, &out)
	                : apply_config(&p, &cfg, &out);
	text_fputs(out.data, stdout);
	plan_release(&p);
out:
	buf_release(&out);
	if (have_s)
		sweep_release(&s);
	return rc;
}

const struct cmd cmd_apply_entry = {
	.name = "apply",
	.args = "PLAN.json (--params JSON | --best ID [--unconfirmed])",
	.opts = CMD_OPTS(PARAMS) | CMD_OPTS(BEST) | CMD_OPTS(UNCONFIRMED) | CMD_OPTS(NODES_FROM) |
	        CMD_OPTS(DB),
	.help = "Set parameters permanently on every node of the plan, in parallel, and print the\n"
	        "values read back. --best ID applies the confirmed best configuration of a stored\n"
	        "sweep; of a sweep with cohorts, each node gets its cohort's (what the node is is\n"
	        "read from its agent, so the plan may name other nodes than the sweep's). A best\n"
	        "the final confirmation did not confirm is refused (exit 1, saying what it "
	        "showed)\n"
	        "unless --unconfirmed asks for the suggested configuration on purpose.",
	.nargs = 1,
	.exec = cmd_apply,
};
