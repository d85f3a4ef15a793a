/* rollmeasure.c -- a rollout's measure check: the sweep's job old vs new on a wave's new
 * nodes, in ABBA rounds inside a tuning session per node, judged by effect.h. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "plan/plan_nodes.h"
#include "plan/plan_parse.h"
#include "run/rollctx.h"
#include "run/rollmeasure.h"
#include "stats/effect.h"
#include "timeutil.h"
#include "xmalloc.h"
#include "banned.h"

struct measure {
	struct plan mp; /* the rollout's nodes with the job plan's job */
	struct fleet mf;
	bool *on;      /* nodes measured (sessions open, no job failed) */
	double **x[2]; /* x[side][node][i]: side 0 old, 1 new, the i-th pass */
	int **rd[2];   /* rd[side][node][i]: the round of that pass (1-based), for effect.h */
	int *nx[2];
	struct config *cfgs[2];
	int wave;
	char why_node[256]; /* the first node that dropped out, for the detail */
};

static void measure_release(struct measure *m, int n)
{
	int s, i;

	for (s = 0; s < 2; s++) {
		for (i = 0; m->x[s] && i < n; i++)
			free(m->x[s][i]);
		for (i = 0; m->rd[s] && i < n; i++)
			free(m->rd[s][i]);
		free(m->x[s]);
		free(m->rd[s]);
		free(m->nx[s]);
		free(m->cfgs[s]);
	}
	free(m->on);
	if (m->mf.plan)
		fleet_release(&m->mf);
	plan_release(&m->mp);
}

/* Wait for the jobs of one run to end (renewing the sessions); -EINTR after cancelling them. */
static int measure_wait(struct rollctx *u, struct measure *m, struct fleet_node_run *nr,
                        double *last_renew)
{
	int n = m->mp.nnodes, k, left, rc = 0;
	struct fleet_result *res = xcalloc((size_t)n + 1, sizeof(*res));
	int64_t *ids = xcalloc((size_t)n + 1, sizeof(*ids));

	for (;;) {
		left = 0;
		for (k = 0; k < n; k++)
			left += nr[k].job_id && !nr[k].job.terminal;
		if (!left)
			break;
		fleet_jobs_wait(&m->mf, nr, u->o->poll_interval_s, WAIT_STEP_S);
		for (k = 0; k < n; k++)
			if (nr[k].fresh && nr[k].wait.failed) {
				nr[k].job.terminal = true;
				nr[k].job.succeeded = false;
				nr[k].job.err = nr[k].wait.err;
			}
		if (time_mono_s() - *last_renew > u->o->session_ttl_s / 3) {
			fleet_sessions_renew(&m->mf, res);
			*last_renew = time_mono_s();
		}
		if (rollctx_stopped(u)) {
			for (k = 0; k < n; k++)
				ids[k] = nr[k].job_id;
			fleet_jobs_cancel(&m->mf, ids, res);
			rc = -EINTR;
			break;
		}
	}
	fleet_jobs_wait_end(&m->mf);
	free(ids);
	free(res);
	return rc;
}

/* The measurement's jobs are labelled rollout=rID and rollout_wave=W (beside the plan's own
 * labels and the configuration each ran, sweep_config): p's labels gain them. */
static void labels_add(struct plan *p, int64_t id, int wave)
{
	p->labels = xrealloc(p->labels, ((size_t)p->nlabels + 2) * sizeof(*p->labels));
	p->labels[p->nlabels].key = xstrdup("rollout");
	p->labels[p->nlabels++].value = xasprintf("r%lld", (long long)id);
	p->labels[p->nlabels].key = xstrdup("rollout_wave");
	p->labels[p->nlabels++].value = xasprintf("%d", wave);
}

/* One run of side (0 old, 1 new) on every measured node, 1 loop; its pass kept per node. */
static int measure_run(struct rollctx *u, struct measure *m, int side, int round,
                       double *last_renew)
{
	int n = m->mp.nnodes, k, rc;
	struct fleet_node_run *nr = xcalloc((size_t)n + 1, sizeof(*nr));

	for (k = 0; k < n; k++) {
		nr[k].run = m->on[k];
		nr[k].cfg = &m->cfgs[side][k];
	}
	fleet_point_start(&m->mf, NULL, -1, 0, 1, nr);
	for (k = 0; k < n; k++)
		u->r->nodes[k].job_id = nr[k].job_id;
	rollctx_save_nodes(u, m->on);
	rc = measure_wait(u, m, nr, last_renew);
	for (k = 0; k < n; k++)
		u->r->nodes[k].job_id = 0;
	rollctx_save_nodes(u, m->on);
	for (k = 0; rc == 0 && k < n; k++) {
		const char *why = NULL;
		char bad[128];

		if (!m->on[k])
			continue;
		if (nr[k].patch.failed)
			why = nr[k].patch.err.msg;
		else if (nr[k].post.failed || !nr[k].job_id)
			why = nr[k].post.err.msg;
		else if (!nr[k].job.succeeded || nr[k].job.npasses < 1)
			why = nr[k].job.err.msg[0] ? nr[k].job.err.msg : "the job has no pass";
		else /* the sweep's rule of a measurement (sweep.h) */
			why = sweep_pass_problem(nr[k].job.passes[0], bad, sizeof(bad));
		if (why) {
			m->on[k] = false;
			if (!m->why_node[0])
				snprintf(m->why_node, sizeof(m->why_node), "%s left out: %s (%s)",
				         m->mp.nodes[k].name, why, side ? "new" : "old");
			continue;
		}
		m->rd[side][k][m->nx[side][k]] = round;
		m->x[side][k][m->nx[side][k]++] = nr[k].job.passes[0];
	}
	fleet_node_runs_release(nr, n);
	free(nr);
	return rc;
}

/* Judge old vs new with effect.h: 1 the wave may go on, 0 it may not (detail says why). */
static int measure_judge(struct rollctx *u, struct measure *m, char *detail, size_t len)
{
	const struct plan *jp = u->job_plan;
	int n = m->mp.nnodes, k, used = 0, rc = 1, j;
	struct effect_sample *ref = xcalloc((size_t)n + 1, sizeof(*ref));
	struct effect_sample *pt = xcalloc((size_t)n + 1, sizeof(*pt));
	struct effect_input in;
	struct effect ef;
	struct err e = { 0 };
	char line[200];

	memset(&ef, 0, sizeof(ef));
	for (k = 0; k < n; k++) {
		if (!m->on[k])
			continue;
		/* Paired by round (ABBA): whatever moves a whole round cancels. */
		ref[k] = (struct effect_sample){ m->x[0][k], m->nx[0][k], m->rd[0][k] };
		pt[k] = (struct effect_sample){ m->x[1][k], m->nx[1][k], m->rd[1][k] };
		used++;
	}
	in = (struct effect_input){ .nnodes = n,
		                    .ref = ref,
		                    .point = pt,
		                    .min_effect_pct = jp->min_effect_pct,
		                    .minimize = jp->minimize,
		                    .look = 1,
		                    .nlooks = 1 };
	if (!used || effect_compute(&in, &ef, &e) || ef.nused == 0) {
		snprintf(detail, len, "measure: no node gave figures of old and new (%s)",
		         m->why_node[0] ? m->why_node
		         : e.msg[0]     ? e.msg
		                        : "no passes");
		rc = 0;
		goto out;
	}
	snprintf(line, sizeof(line),
	         "%s new vs old on %d node(s), %d round(s): %+.1f %% [%+.1f, %+.1f]", jp->metric,
	         ef.nused, jp->loops, ef.delta_pct, ef.ci95_low_pct, ef.ci95_high_pct);
	if (ef.decision == EFFECT_LOSS) {
		snprintf(detail, len, "measure: %s: a significant loss", line);
		rc = 0;
	} else if (ef.decision == EFFECT_HETEROGENEOUS) {
		for (j = 0; j < ef.ndisagree && rc; j++)
			if (ef.nodes[ef.disagree[j]].decision == EFFECT_LOSS) {
				snprintf(detail, len, "measure: %s; %s: a significant loss", line,
				         m->mp.nodes[ef.disagree[j]].name);
				rc = 0;
			}
		if (rc)
			snprintf(detail, len, "measure: %s: nodes disagree, none with a loss",
			         line);
	} else if (ef.decision == EFFECT_EQUIVALENT && u->r->promised_gain) {
		snprintf(detail, len,
		         "measure: %s: equivalent to no change (within %.3g %%) where sweep %lld "
		         "promised %+.1f %%",
		         line, jp->min_effect_pct, (long long)u->r->sweep_id, u->r->promised_pct);
		rc = 0;
	} else {
		snprintf(detail, len, "measure: %s: %s", line, effect_decision_name(ef.decision));
	}
	if (m->why_node[0] && strlen(detail) + 4 < len)
		snprintf(detail + strlen(detail), len - strlen(detail), "; %s", m->why_node);
out:
	effect_release(&ef);
	free(ref);
	free(pt);
	return rc;
}

/* Measure the wave's new nodes (mask): 1 pass, 0 fail (detail), -EINTR on a signal. */
int rollmeasure_check(struct rollctx *u, int w, char *detail, size_t len)
{
	struct rollout *r = u->r;
	int n = r->nnodes, k, s, round, rounds = u->job_plan->loops > 1 ? u->job_plan->loops : 2;
	struct fleet_result *res = xcalloc((size_t)n + 1, sizeof(*res));
	struct node_info *info = xcalloc((size_t)n + 1, sizeof(*info));
	struct measure m;
	double last_renew;
	struct err e = { 0 };
	int rc = 1;

	memset(&m, 0, sizeof(m));
	if (!rollctx_mask_of(u, w, RNODE_NEW)) {
		snprintf(detail, len, "measure: no node of the wave holds the profile");
		rc = 0;
		goto out;
	}
	if (plan_parse(r->plan_json, r->plan_dir, &m.mp, &e) || plan_tokens_load(&m.mp, &e)) {
		snprintf(detail, len, "measure: %s", e.msg);
		rc = 0;
		goto out;
	}
	plan_job_copy(&m.mp, u->job_plan);
	m.wave = w;
	labels_add(&m.mp, r->id, w);
	fleet_init(&m.mf, &m.mp, 10.0, 2);
	fleet_transport_set(&m.mf, u->o->transport);
	m.on = xcalloc((size_t)n + 1, sizeof(bool));
	for (s = 0; s < 2; s++) {
		m.x[s] = xcalloc((size_t)n + 1, sizeof(double *));
		m.rd[s] = xcalloc((size_t)n + 1, sizeof(int *));
		m.nx[s] = xcalloc((size_t)n + 1, sizeof(int));
		m.cfgs[s] = xcalloc((size_t)n + 1, sizeof(struct config));
	}
	for (k = 0; k < n; k++) {
		m.mf.active[k] = u->mask[k];
		m.on[k] = u->mask[k];
		m.cfgs[0][k] = r->nodes[k].old_values;
		m.cfgs[1][k] = r->params;
		for (s = 0; s < 2; s++) {
			m.x[s][k] = xcalloc((size_t)rounds + 1, sizeof(double));
			m.rd[s][k] = xcalloc((size_t)rounds + 1, sizeof(int));
		}
		/* A node whose old values were not all read cannot run old. */
		if (m.on[k] && r->nodes[k].old_values.n < r->params.n) {
			m.on[k] = false;
			if (!m.why_node[0])
				snprintf(m.why_node, sizeof(m.why_node),
				         "%s left out: its old values were not all read",
				         r->nodes[k].name);
		}
	}
	fleet_probe(&m.mf, false, info); /* which agents long-poll */
	/* The sessions own the devices while the job runs (the agents' profiles yield), and
	 * their restore puts back what the wave applied. */
	fleet_sessions_open(&m.mf, u->o->session_ttl_s, res);
	/* Saved: a controller killed now leaves them open; resume and revert close them. */
	for (k = 0; k < n; k++)
		r->nodes[k].session_id = m.mf.session_id[k];
	rollctx_save_nodes(u, u->mask);
	for (k = 0; k < n; k++)
		if (m.on[k] && res[k].failed) {
			m.on[k] = false;
			if (!m.why_node[0])
				snprintf(m.why_node, sizeof(m.why_node), "%s left out: session: %s",
				         r->nodes[k].name, res[k].err.msg);
		}
	last_renew = time_mono_s();
	for (round = 1; round <= rounds && rc == 1; round++) {
		/* ABBA: old first in odd rounds, new first in even ones. */
		int first = round % 2 ? 0 : 1;

		for (s = 0; s < 2 && rc == 1; s++)
			if (measure_run(u, &m, s ? 1 - first : first, round, &last_renew) == -EINTR)
				rc = -EINTR;
		rollctx_event(u, ROLLRUN_MEASURE, w, round, rounds);
	}
	fleet_sessions_close(&m.mf, true, res);
	for (k = 0; k < n; k++) {
		if (m.mf.active[k] && res[k].failed && !m.why_node[0])
			snprintf(m.why_node, sizeof(m.why_node), "%s: closing its session: %s",
			         r->nodes[k].name, res[k].err.msg);
		r->nodes[k].session_id = m.mf.session_id[k];
	}
	rollctx_save_nodes(u, u->mask);
	if (rc == 1)
		rc = measure_judge(u, &m, detail, len);
out:
	node_info_release(info, n);
	free(info);
	free(res);
	measure_release(&m, n);
	return rc;
}
