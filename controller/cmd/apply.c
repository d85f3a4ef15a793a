/* apply.c -- `fleettune-ctl apply`: a configuration, or each node its cohort's best, set
 * permanently on every node of a plan in parallel, and what each node read back. */
#include <stdio.h>
#include <stdlib.h>

#include "cmd/apply.h"
#include "fleet/fleet.h"
#include "judge/cohort.h"
#include "log.h"
#include "render/report.h"
#include "xmalloc.h"
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
			notes[k] = xasprintf("cannot read what it is: %s", info[k].error);
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
