/* ctlstore.c -- the controller's database (through common/db): opening it, saving and loading
 * sweeps (rollouts: ctlstore_rollout.c). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "plan/plan_nodes.h"
#include "plan/plan_parse.h"
#include "store/ctlstore.h"
#include "store/ctlstore_priv.h"
#include "timeutil.h"
#include "xmalloc.h"
#include "banned.h"

extern const char ctlstore_schema_sql[];

static const struct db_kind ctlstore_kind = {
	.schema = ctlstore_schema_sql,
	.err_code = ERR_DB_ERROR,
	.holds = "the sweeps and rollouts",
};

/* mkdir -p of path's parent directories. */
static void parents_make(const char *path)
{
	char *copy = xstrdup(path), *s;

	for (s = copy + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		mkdir(copy, 0700);
		*s = '/';
	}
	free(copy);
}

char *ctlstore_default_path(void)
{
	const char *xdg = getenv("XDG_DATA_HOME"), *home = getenv("HOME");

	if (xdg && *xdg)
		return xasprintf("%s/fleettune/ctl.db", xdg);
	return xasprintf("%s/.local/share/fleettune/ctl.db", home && *home ? home : ".");
}

int ctlstore_open(const char *path, struct ctlstore **out, struct err *e)
{
	struct db *db;
	int rc;

	*out = NULL;
	parents_make(path);
	rc = db_open(&db, path, &ctlstore_kind, e);
	if (rc < 0)
		return rc;
	*out = xcalloc(1, sizeof(**out));
	(*out)->db = db;
	return 0;
}

void ctlstore_close(struct ctlstore *st)
{
	if (!st)
		return;
	db_close(st->db);
	free(st);
}

/* What each node is (s->identity), one row per reported field. Inside a transaction. */
static int identity_write(struct ctlstore *st, const struct sweep *s, struct err *e)
{
	struct sqlite3_stmt *q;
	int k, f, rc = 0;

	q = db_prepare(st->db,
	               "INSERT INTO node_identity(sweep_id, node_idx, field, value) VALUES "
	               "(?,?,?,?)",
	               NULL);
	for (k = 0; k < s->plan.nnodes && rc >= 0; k++)
		for (f = 0; f < IDF_N && rc >= 0; f++)
			if (s->identity[k].field[f])
				rc = db_rerun(st->db, q, e, "insert node identity", "Iitt", s->id,
				              k, identity_field_names[f], s->identity[k].field[f]);
	db_finalize(q);
	return rc < 0 ? rc : 0;
}

int ctlstore_sweep_create(struct ctlstore *st, struct sweep *s, struct err *e)
{
	char seed[24];
	int rc = db_tx_begin(st->db, e);

	if (rc < 0)
		return rc;
	snprintf(seed, sizeof(seed), "%llu", (unsigned long long)s->order_seed);
	rc = db_run(st->db, e, "insert sweep",
	            "INSERT INTO sweeps(name, plan_json, strategy, metric, status, created_at, "
	            "owner_pid, owner_host, order_seed, rounds) VALUES (?,?,?,?,?,?,?,?,?,?)",
	            "tttttdittj", s->plan.name, s->plan.json, plan_strategy_name(s->plan.strategy),
	            s->plan.metric, s->status, s->created_at, s->owner_pid, s->owner_host, seed,
	            s->nrounds);
	if (rc >= 0) {
		s->id = db_last_insert_id(st->db);
		rc = identity_write(st, s, e);
	}
	rc = db_tx_end(st->db, rc < 0 ? rc : 0, e);
	if (rc < 0)
		s->id = 0;
	return rc < 0 ? rc : 0;
}

/* A verdict's code, NULL (SQL NULL) for none. */
static const char *verdict_code(enum effect_decision v)
{
	return v == EFFECT_NA ? NULL : sweep_verdict_code(v);
}

/* Point idx's node results and their passes, through two statements prepared once. */
static int point_nodes_write(struct ctlstore *st, const struct sweep *s, int idx, struct err *e)
{
	struct sqlite3_stmt *qn, *qp, *qw;
	int rc = 0, k, j;

	qn = db_prepare(st->db,
	                "INSERT INTO point_nodes(sweep_id, idx, node_idx, node, state, "
	                "applied_json, adjusted_mask, job_id, job_runtime_s, error, mean, stdev, "
	                "delta_pct, ci_low_pct, ci_high_pct, verdict, config_json, mkfs) VALUES "
	                "(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
	                NULL);
	qp = db_prepare(
	        st->db,
	        "INSERT INTO passes(sweep_id, idx, node_idx, loop, value, round, started_at, "
	        "series) VALUES (?,?,?,?,?,?,?,?)",
	        NULL);
	qw = db_prepare(st->db,
	                "INSERT INTO warmup_passes(sweep_id, idx, node_idx, n, value, round, "
	                "started_at) VALUES (?,?,?,?,?,?,?)",
	                NULL);
	for (k = 0; k < s->plan.nnodes && rc >= 0; k++) {
		const struct node_result *r = &s->points[idx].nodes[k];
		struct config none = { 0 };
		char *applied = config_to_json(r->applied ? r->applied : &none);
		char *own = r->cfg ? config_to_json(r->cfg) : NULL;

		rc = db_rerun(st->db, qn, e, "insert node result",
		              "IiitttInftffffftt"
		              "t",
		              s->id, idx, k, s->plan.nodes[k].name, sweep_node_state_code(r->state),
		              applied, (int64_t)r->adjusted_mask, r->job_id,
		              r->job_runtime_s > 0 ? r->job_runtime_s : NAN, r->error,
		              r->sum.n > 0 ? r->sum.mean : NAN, r->sum.n > 0 ? r->sum.stdev : NAN,
		              r->delta_pct, r->ci_low_pct, r->ci_high_pct, verdict_code(r->verdict),
		              own, r->mkfs);
		free(applied);
		free(own);
		for (j = 0; j < r->npasses && rc >= 0; j++)
			rc = db_rerun(
			        st->db, qp, e, "insert pass", "Iiiidjfb", s->id, idx, k, j + 1,
			        r->passes[j], r->pass_round[j] > 0 ? r->pass_round[j] : -1,
			        r->pass_started_at[j] > 0 ? r->pass_started_at[j] : NAN,
			        r->series && r->nseries > 0
			                ? (const void *)&r->series[(size_t)j * (size_t)r->nseries]
			                : NULL,
			        r->series && r->nseries > 0
			                ? (size_t)r->nseries * sizeof(*r->series)
			                : (size_t)0);
		for (j = 0; j < r->nwarmup && rc >= 0; j++)
			rc = db_rerun(st->db, qw, e, "insert warm-up pass", "Iiiidjf", s->id, idx,
			              k, j + 1, r->warmup[j].value,
			              r->warmup[j].round > 0 ? r->warmup[j].round : -1,
			              r->warmup[j].started_at > 0 ? r->warmup[j].started_at : NAN);
	}
	db_finalize(qn);
	db_finalize(qp);
	db_finalize(qw);
	return rc < 0 ? rc : 0;
}

/* Replace point idx's rows (the point, its node results and passes). Inside a transaction. */
static int point_write(struct ctlstore *st, const struct sweep *s, int idx, struct err *e)
{
	static const char *const deletes[] = {
		"DELETE FROM passes WHERE sweep_id=? AND idx=?",
		"DELETE FROM warmup_passes WHERE sweep_id=? AND idx=?",
		"DELETE FROM point_nodes WHERE sweep_id=? AND idx=?",
		"DELETE FROM points WHERE sweep_id=? AND idx=?",
	};
	const struct point *p = &s->points[idx];
	char *cfg = config_to_json(&p->cfg);
	int rc = 0;
	size_t i;

	for (i = 0; i < sizeof(deletes) / sizeof(deletes[0]) && rc >= 0; i++)
		rc = db_run(st->db, e, "delete point", deletes[i], "Ii", s->id, idx);
	if (rc >= 0)
		rc = db_run(st->db, e, "insert point",
		            "INSERT INTO points(sweep_id, idx, role, axis, ref, config_json, "
		            "delta_pct, ci_low_pct, ci_high_pct, spread_pct, verdict, loops, "
		            "ref_loops) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
		            "Iitjjtfffftin", s->id, idx, sweep_role_code(p->role), p->axis, p->ref,
		            cfg, p->delta_pct, p->ci_low_pct, p->ci_high_pct, p->spread_pct,
		            verdict_code(p->verdict), p->loops_run,
		            (int64_t)(p->ref_loops > 0 ? p->ref_loops : 0));
	if (rc >= 0)
		rc = point_nodes_write(st, s, idx, e);
	free(cfg);
	return rc < 0 ? rc : 0;
}

/* Point idx's race decision (adaptive), replacing the one stored; none for RACE_NONE. */
static int race_write(struct ctlstore *st, const struct sweep *s, int idx, struct err *e)
{
	const struct race_mark *m = &s->points[idx].race;
	int rc;

	if (m->state == RACE_NONE)
		return 0;
	rc = db_run(st->db, e, "insert race",
	            "INSERT OR REPLACE INTO point_races(sweep_id, idx, state, why, round, loops, "
	            "vs, delta_pct, low_pct, high_pct) VALUES (?,?,?,?,?,?,?,?,?,?)",
	            "Iittiijfff", s->id, idx, sweep_race_state_code(m->state),
	            m->why != RACE_WHY_NONE ? sweep_race_why_code(m->why) : NULL, m->round,
	            m->loops, m->vs, m->delta_pct, m->low_pct, m->high_pct);
	return rc < 0 ? rc : 0;
}

/* Every race decision of s: a round changes points other than the one just run. */
static int races_write(struct ctlstore *st, const struct sweep *s, struct err *e)
{
	int i, rc = 0;

	for (i = 0; i < s->npoints && !rc; i++)
		rc = race_write(st, s, i, e);
	return rc;
}

/* Decision d (cohort c, -1: the fleet) of s in place of the one stored. */
static int decision_write(struct ctlstore *st, const struct sweep *s, int c,
                          const struct decision *d, struct err *e)
{
	char *cfg = d->state != DECISION_NONE ? config_to_json(&d->cfg) : NULL;
	int rc, i;

	rc = db_run(st->db, e, "save decision",
	            "INSERT OR REPLACE INTO sweep_decisions (sweep_id, cohort, state, basis, why, "
	            "config_json, point, ref, verdict, delta_pct, low_pct, high_pct, level_pct, "
	            "nodes_used, nodes_gain) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
	            "Iittttjjtffffii", s->id, c, decision_state_code(d->state),
	            decision_basis_code(d->basis), decision_why_code(d->why), cfg, d->point, d->ref,
	            sweep_verdict_code(d->verdict), d->delta_pct, d->low_pct, d->high_pct,
	            d->level_pct, d->nused, d->ngain);
	if (rc >= 0)
		rc = db_run(st->db, e, "save decision",
		            "DELETE FROM decision_steps WHERE sweep_id=? AND cohort=?", "Ii", s->id,
		            c);
	for (i = 0; rc >= 0 && i < d->nsteps; i++) {
		const struct decision_step *x = &d->steps[i];

		rc = db_run(
		        st->db, e, "save decision",
		        "INSERT INTO decision_steps (sweep_id, cohort, n, point, axis, verdict, "
		        "delta_pct, low_pct, high_pct, level_pct) VALUES (?, ?, ?, ?, ?, ?, ?, ?, "
		        "?, ?)",
		        "Iiiijtffff", s->id, c, i, x->point, x->axis,
		        sweep_verdict_code(x->verdict), x->delta_pct, x->low_pct, x->high_pct,
		        x->level_pct);
	}
	free(cfg);
	return rc < 0 ? rc : 0;
}

/* The fleet's decision and each cohort's, in place of the stored ones. */
static int decisions_write(struct ctlstore *st, const struct sweep *s, struct err *e)
{
	int c, rc;

	rc = db_run(st->db, e, "save decision", "DELETE FROM sweep_decisions WHERE sweep_id=?", "I",
	            s->id);
	if (rc >= 0)
		rc = decision_write(st, s, -1, &s->decision, e);
	for (c = 0; rc >= 0 && s->ncohorts >= 2 && c < s->ncohorts; c++)
		rc = decision_write(st, s, c, &s->cohorts[c].decision, e);
	return rc < 0 ? rc : 0;
}

int ctlstore_point_save(struct ctlstore *st, const struct sweep *s, int idx, struct err *e)
{
	int rc = db_tx_begin(st->db, e);

	if (rc < 0)
		return rc;
	rc = point_write(st, s, idx, e);
	if (!rc)
		rc = races_write(st, s, e);
	/* The decision so far: a sweep stopped without its close keeps what it had decided. */
	if (!rc && s->outcome != OUTCOME_PENDING)
		rc = decisions_write(st, s, e);
	/* When the sweep last saved a point: what tells an abandoned sweep from a running one. */
	if (!rc)
		rc = db_run(st->db, e, "update sweep",
		            "UPDATE sweeps SET saved_at=?, rounds=? WHERE id=?", "dII",
		            time_now_s(), (int64_t)s->nrounds, s->id);
	return db_tx_end(st->db, rc < 0 ? rc : 0, e);
}

int ctlstore_sweep_finish(struct ctlstore *st, const struct sweep *s, struct err *e)
{
	const struct decision *d = &s->decision;
	bool best = d->state == DECISION_CONFIRMED;
	char *dropped = plan_node_set_to_json(&s->plan, s->node_dropped);
	char *best_cfg = best ? config_to_json(&d->cfg) : NULL;
	int rc, i;

	rc = db_tx_begin(st->db, e);
	if (rc < 0)
		goto out;
	for (i = 0; i < s->npoints && !rc; i++)
		rc = point_write(st, s, i, e);
	if (!rc)
		rc = races_write(st, s, e);
	if (!rc && s->outcome != OUTCOME_PENDING)
		rc = decisions_write(st, s, e);
	if (!rc)
		rc = db_run(st->db, e, "update sweep",
		            "UPDATE sweeps SET status=?, finished_at=?, dropped_json=?, outcome=?, "
		            "best_point=?, best_config_json=?, best_delta_pct=?, best_verdict=? "
		            "WHERE id=?",
		            "tfttjtftI", s->status, s->finished_at > 0 ? s->finished_at : NAN,
		            dropped,
		            s->outcome != OUTCOME_PENDING ? sweep_outcome_code(s->outcome) : NULL,
		            best ? d->point : -1, best_cfg, best ? d->delta_pct : NAN,
		            best ? sweep_verdict_code(d->verdict) : NULL, s->id);
	rc = db_tx_end(st->db, rc < 0 ? rc : 0, e);
out:
	free(dropped);
	free(best_cfg);
	return rc;
}

/* A sweep_decisions row into a decision (unknown codes: none, not judged). */
static void decision_row(struct sqlite3_stmt *q, void *elem)
{
	struct decision *d = elem;
	int v;

	decision_init(d);
	v = decision_state_parse(db_col_str(q, 0));
	d->state = v < 0 ? DECISION_NONE : (enum decision_state)v;
	v = decision_basis_parse(db_col_str(q, 1));
	d->basis = v < 0 ? DECISION_BASIS_NONE : (enum decision_basis)v;
	v = decision_why_parse(db_col_str(q, 2));
	d->why = v < 0 ? DECISION_WHY_NOT_JUDGED : (enum decision_why)v;
	if (!db_col_null(q, 3) && config_parse_json(db_col_str(q, 3), &d->cfg, NULL) < 0)
		d->state = DECISION_NONE;
	d->point = db_col_null(q, 4) ? -1 : db_col_int(q, 4);
	d->ref = db_col_null(q, 5) ? -1 : db_col_int(q, 5);
	v = sweep_verdict_parse(db_col_str(q, 6));
	d->verdict = v < 0 ? EFFECT_NA : (enum effect_decision)v;
	d->delta_pct = db_col_num(q, 7);
	d->low_pct = db_col_num(q, 8);
	d->high_pct = db_col_num(q, 9);
	d->level_pct = db_col_num(q, 10);
	d->nused = db_col_int(q, 11);
	d->ngain = db_col_int(q, 12);
}

/* A decision_steps row appended to the decision. */
static int step_row(struct sqlite3_stmt *q, void *ctx, struct err *e)
{
	struct decision *d = ctx;
	struct decision_step *x;
	int v;

	(void)e;
	if (d->nsteps >= DECISION_STEPS_MAX)
		return 0;
	x = &d->steps[d->nsteps++];
	x->point = db_col_int(q, 0);
	x->axis = db_col_null(q, 1) ? -1 : db_col_int(q, 1);
	v = sweep_verdict_parse(db_col_str(q, 2));
	x->verdict = v < 0 ? EFFECT_NA : (enum effect_decision)v;
	x->delta_pct = db_col_num(q, 3);
	x->low_pct = db_col_num(q, 4);
	x->high_pct = db_col_num(q, 5);
	x->level_pct = db_col_num(q, 6);
	return 0;
}

int ctlstore_decision_load(struct ctlstore *st, int64_t id, int cohort, struct decision *d,
                           struct err *e)
{
	int rc;

	decision_init(d);
	rc = db_fetch_one(st->db,
	                  db_prepare(st->db,
	                             "SELECT state, basis, why, config_json, point, ref, verdict, "
	                             "delta_pct, low_pct, high_pct, level_pct, nodes_used, "
	                             "nodes_gain FROM sweep_decisions WHERE sweep_id=? AND "
	                             "cohort=?",
	                             "Ii", id, cohort),
	                  decision_row, d, e, "load decision");
	if (rc <= 0)
		return rc < 0 ? rc : -ENOENT;
	rc = db_each(st->db,
	             db_prepare(st->db,
	                        "SELECT point, axis, verdict, delta_pct, low_pct, high_pct, "
	                        "level_pct FROM decision_steps WHERE sweep_id=? AND cohort=? "
	                        "ORDER BY n",
	                        "Ii", id, cohort),
	             step_row, d, e, "load decision steps");
	return rc < 0 ? rc : 0;
}

/* One point_races row into its point (rows with unknown codes or points are skipped). */
static int race_row(struct sqlite3_stmt *q, void *ctx, struct err *e)
{
	struct sweep *s = ctx;
	int idx = db_col_int(q, 0), state = sweep_race_state_parse(db_col_str(q, 1));
	int why = sweep_race_why_parse(db_col_str(q, 2));
	struct race_mark *m;

	(void)e;
	if (idx < 0 || idx >= s->npoints || state <= 0 || why < 0)
		return 0;
	m = &s->points[idx].race;
	m->state = (enum race_state)state;
	m->why = (enum race_why)why;
	m->round = db_col_int(q, 3);
	m->loops = db_col_int(q, 4);
	m->vs = db_col_null(q, 5) ? -1 : db_col_int(q, 5);
	m->delta_pct = db_col_num(q, 6);
	m->low_pct = db_col_num(q, 7);
	m->high_pct = db_col_num(q, 8);
	return 0;
}

/* The sweeps row: the plan (parsed anew), status, times, dropped nodes and owner. */
static int sweep_row(struct sqlite3_stmt *q, void *ctx, struct err *e)
{
	struct sweep *s = ctx;
	struct plan plan;
	int rc;

	rc = plan_parse(db_col_str(q, 0), NULL, &plan, e);
	if (rc < 0)
		return rc;
	sweep_init(s, &plan);
	snprintf(s->status, sizeof(s->status), "%s", db_col_str(q, 1));
	s->created_at = db_col_double(q, 2);
	s->finished_at = db_col_double(q, 3);
	s->owner_pid = db_col_int(q, 5);
	snprintf(s->owner_host, sizeof(s->owner_host), "%s", db_col_str(q, 6));
	s->saved_at = db_col_double(q, 7);
	s->order_seed = strtoull(db_col_str(q, 8), NULL, 10);
	s->nrounds = db_col_int(q, 9);
	return plan_node_set_parse(&s->plan, db_col_str(q, 4), s->node_dropped, e);
}

/* One points row, added to the sweep in idx order. */
static int point_row(struct sqlite3_stmt *q, void *ctx, struct err *e)
{
	struct sweep *s = ctx;
	int role = sweep_role_parse(db_col_str(q, 1)), idx;
	int axis = db_col_null(q, 2) ? -1 : db_col_int(q, 2);
	int ref = db_col_null(q, 3) ? -1 : db_col_int(q, 3);
	struct config cfg;

	if (config_parse_json(db_col_str(q, 4), &cfg, e) < 0)
		return -EINVAL;
	idx = sweep_point_add(s, role < 0 ? ROLE_CANDIDATE : (enum point_role)role, axis, ref,
	                      &cfg);
	/* Rows stored before migration 2 have no loops: the plan's, once run. */
	s->points[idx].loops_run = db_col_null(q, 5) ? -1 : db_col_int(q, 5);
	s->points[idx].ref_loops = db_col_int(q, 6);
	return 0;
}

/* One point_nodes row into its node result (rows of unknown points or nodes are skipped). */
static int node_row(struct sqlite3_stmt *q, void *ctx, struct err *e)
{
	struct sweep *s = ctx;
	int idx = db_col_int(q, 0), k = db_col_int(q, 1);
	int state = sweep_node_state_parse(db_col_str(q, 2));
	struct config applied;
	struct node_result *r;

	(void)e;
	if (idx < 0 || idx >= s->npoints || k < 0 || k >= s->plan.nnodes)
		return 0;
	r = &s->points[idx].nodes[k];
	if (state >= 0)
		r->state = (enum node_state)state;
	if (s->points[idx].loops_run < 0 && r->state != NODE_PENDING && r->state != NODE_DROPPED)
		s->points[idx].loops_run = s->plan.loops;
	if (config_parse_json(db_col_str(q, 3), &applied, NULL) == 0)
		node_result_applied_set(r, &applied);
	r->adjusted_mask = (unsigned)db_col_int64(q, 4);
	r->job_id = db_col_int64(q, 5);
	r->job_runtime_s = db_col_double(q, 6);
	node_result_error_set(r, db_col_str(q, 7));
	if (!db_col_null(q, 8)) {
		struct config own;

		if (config_parse_json(db_col_str(q, 8), &own, NULL) == 0)
			sweep_node_cfg_set(s, idx, k, &own);
	}
	node_result_mkfs_set(r, db_col_str(q, 9));
	return 0;
}

/* One passes row (or warm-up pass: warmup), appended to its node result in loop order; its
 * round and start time are NULL in rows stored before migration 7. */
static int pass_take(struct sqlite3_stmt *q, void *ctx, bool warmup)
{
	struct sweep *s = ctx;
	int idx = db_col_int(q, 0), k = db_col_int(q, 1), round = db_col_int(q, 4);

	if (idx >= 0 && idx < s->npoints && k >= 0 && k < s->plan.nnodes) {
		struct node_result *r = &s->points[idx].nodes[k];
		size_t len = 0;
		const void *blob = warmup ? NULL : db_col_blob(q, 6, &len);

		node_result_pass_add_at(r, db_col_num(q, 3), round > 0 ? round : 0,
		                        db_col_double(q, 5), warmup);
		if (blob && len > 0 && len % sizeof(double) == 0 &&
		    len <= PLAN_SERIES_MAX * sizeof(double)) { /* a suite's pass (migration 11) */
			double v[PLAN_SERIES_MAX];

			memcpy(v, blob, len);
			node_result_series_add(r, v, (int)(len / sizeof(double)));
		}
	}
	if (round > s->nrounds)
		s->nrounds = round;
	return 0;
}

static int pass_row(struct sqlite3_stmt *q, void *ctx, struct err *e)
{
	(void)e;
	return pass_take(q, ctx, false);
}

static int warmup_row(struct sqlite3_stmt *q, void *ctx, struct err *e)
{
	(void)e;
	return pass_take(q, ctx, true);
}

/* One node_identity row into its node (unknown fields and nodes are skipped). */
static int identity_row(struct sqlite3_stmt *q, void *ctx, struct err *e)
{
	struct sweep *s = ctx;
	int k = db_col_int(q, 0), f = identity_field_parse(db_col_str(q, 1));

	(void)e;
	if (k >= 0 && k < s->plan.nnodes && f >= 0)
		sweep_identity_set(s, k, f, db_col_str(q, 2));
	return 0;
}

/* The tables read back into a sweep, in the order they fill it. */
static const struct {
	const char *what;
	const char *sql; /* its one "?" is the sweep id */
	int (*row)(struct sqlite3_stmt *q, void *ctx, struct err *e);
} load_steps[] = {
	{ "select sweep",
	  "SELECT plan_json, status, created_at, finished_at, dropped_json, owner_pid, owner_host, "
	  "saved_at, order_seed, rounds FROM sweeps WHERE id=?",
	  sweep_row },
	{ "select points",
	  "SELECT idx, role, axis, ref, config_json, loops, ref_loops FROM points WHERE sweep_id=? "
	  "ORDER BY idx",
	  point_row },
	{ "select node results",
	  "SELECT idx, node_idx, state, applied_json, adjusted_mask, job_id, job_runtime_s, error, "
	  "config_json, mkfs FROM point_nodes WHERE sweep_id=?",
	  node_row },
	{ "select passes",
	  "SELECT idx, node_idx, loop, value, round, started_at, series FROM passes WHERE "
	  "sweep_id=? "
	  "ORDER BY idx, node_idx, loop",
	  pass_row },
	{ "select warm-up passes",
	  "SELECT idx, node_idx, n, value, round, started_at FROM warmup_passes WHERE sweep_id=? "
	  "ORDER BY idx, node_idx, n",
	  warmup_row },
	{ "select races",
	  "SELECT idx, state, why, round, loops, vs, delta_pct, low_pct, high_pct FROM point_races "
	  "WHERE sweep_id=?",
	  race_row },
	{ "select node identity",
	  "SELECT node_idx, field, value FROM node_identity WHERE sweep_id=?", identity_row },
};

int ctlstore_sweep_load(struct ctlstore *st, int64_t id, struct sweep *s, struct err *e)
{
	size_t i;
	int rc = 0, k;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < sizeof(load_steps) / sizeof(load_steps[0]) && rc >= 0; i++) {
		rc = db_each(st->db, db_prepare(st->db, load_steps[i].sql, "I", id),
		             load_steps[i].row, s, e, load_steps[i].what);
		if (rc == 0 && i == 0)
			rc = err_set(e, -ENOENT, ERR_NOT_FOUND, "no sweep %lld", (long long)id);
	}
	if (rc < 0) {
		if (s->plan.nnodes)
			sweep_release(s);
		return rc;
	}
	s->id = id;
	for (k = 0; k < s->npoints; k++)
		if (s->points[k].loops_run < 0)
			s->points[k].loops_run = 0;
	sweep_blocks_derive(s);
	return 0;
}

/* One history row: what the sweep found is data; a sweep stored by an older fleettune-ctl
 * has only its worded line. */
static void summary_row(struct sqlite3_stmt *q, void *elem)
{
	struct ctlstore_summary *h = elem;
	int outcome;

	h->id = db_col_int64(q, 0);
	snprintf(h->name, sizeof(h->name), "%s", db_col_str(q, 1));
	snprintf(h->status, sizeof(h->status), "%s", db_col_str(q, 2));
	snprintf(h->strategy, sizeof(h->strategy), "%s", db_col_str(q, 3));
	snprintf(h->metric, sizeof(h->metric), "%s", db_col_str(q, 4));
	h->created_at = db_col_double(q, 5);
	h->finished_at = db_col_double(q, 6);
	h->npoints = db_col_int(q, 7);
	snprintf(h->legacy_best_line, sizeof(h->legacy_best_line), "%s", db_col_str(q, 8));
	outcome = sweep_outcome_parse(db_col_str(q, 9));
	h->outcome = outcome < 0 ? OUTCOME_PENDING : (enum sweep_outcome)outcome;
	h->owner_pid = db_col_int(q, 14);
	snprintf(h->owner_host, sizeof(h->owner_host), "%s", db_col_str(q, 15));
	h->saved_at = db_col_double(q, 16);
}

/* One count row. */
static void count_row(struct sqlite3_stmt *q, void *elem)
{
	*(int *)elem = db_col_int(q, 0);
}

/* Whether some cohort's stored decision is not the fleet's (state or configuration). */
static int cohorts_differ(struct ctlstore *st, struct ctlstore_summary *h, struct err *e)
{
	char *cfg = h->decision.state != DECISION_NONE ? config_to_json(&h->decision.cfg) : NULL;
	int n = 0, rc;

	rc = db_fetch_one(st->db,
	                  db_prepare(st->db,
	                             "SELECT count(*) FROM sweep_decisions WHERE sweep_id=? AND "
	                             "cohort >= 0 AND (state != ? OR IFNULL(config_json, '') != "
	                             "IFNULL(?, ''))",
	                             "Itt", h->id, decision_state_code(h->decision.state), cfg),
	                  count_row, &n, e, "load decisions");
	free(cfg);
	h->cohorts_differ = rc > 0 && n > 0;
	return rc < 0 ? rc : 0;
}

int ctlstore_history(struct ctlstore *st, int limit, struct ctlstore_summary **out, int *n,
                     struct err *e)
{
	void *list;
	int rc, i;

	rc = db_collect(st->db,
	                db_prepare(st->db,
	                           "SELECT s.id, s.name, s.status, s.strategy, s.metric, "
	                           "s.created_at, s.finished_at, (SELECT count(*) FROM points p "
	                           "WHERE p.sweep_id = s.id), s.best_line, s.outcome, "
	                           "s.best_point, s.best_config_json, s.best_delta_pct, "
	                           "s.best_verdict, s.owner_pid, s.owner_host, s.saved_at FROM "
	                           "sweeps s ORDER BY s.id DESC LIMIT ?",
	                           "i", limit),
	                sizeof(**out), summary_row, NULL, &list, n, e, "select history");
	*out = list;
	for (i = 0; rc >= 0 && i < *n; i++) {
		struct ctlstore_summary *h = &(*out)[i];
		int r = ctlstore_decision_load(st, h->id, -1, &h->decision, e);

		h->has_decision = r == 0;
		if (r < 0 && r != -ENOENT)
			rc = r;
		if (r == 0)
			r = cohorts_differ(st, h, e);
		if (r < 0 && r != -ENOENT)
			rc = r;
	}
	return rc;
}
