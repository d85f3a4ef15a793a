/* ctlstore.c -- the controller's only sqlite3 user: migrations, saving and loading sweeps. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <sqlite3.h>

#include "ctlstore.h"
#include "migration.h"
#include "timeutil.h"
#include "xmalloc.h"
#include "banned.h"

extern const char ctlstore_schema_sql[];

struct ctlstore {
	sqlite3 *db;
};

static int db_fail(struct ctlstore *st, struct err *e, const char *what)
{
	return err_set(e, -EIO, "db_error", "database: %s: %s", what, sqlite3_errmsg(st->db));
}

static int user_version(sqlite3 *db)
{
	sqlite3_stmt *q;
	int v = -1;

	if (sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &q, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(q) == SQLITE_ROW)
		v = sqlite3_column_int(q, 0);
	sqlite3_finalize(q);
	return v;
}

/* Apply every "-- migration N" block with N above user_version, one transaction each. */
static int migrate(struct ctlstore *st, struct err *e)
{
	struct migration *m;
	int n, i, rc = 0;

	n = migrations_pending(ctlstore_schema_sql, user_version(st->db), &m);
	for (i = 0; i < n && !rc; i++) {
		if (sqlite3_exec(st->db, m[i].sql, NULL, NULL, NULL) != SQLITE_OK) {
			rc = db_fail(st, e, "migration");
			sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
		}
	}
	migrations_free(m, n);
	return rc;
}

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
	struct ctlstore *st = xcalloc(1, sizeof(*st));
	int rc = 0;

	parents_make(path);
	if (sqlite3_open_v2(path, &st->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) !=
	    SQLITE_OK) {
		rc = err_set(e, -EIO, "db_error", "cannot open database '%s': %s", path,
		             st->db ? sqlite3_errmsg(st->db) : "out of memory");
		goto out;
	}
	sqlite3_busy_timeout(st->db, 5000);
	sqlite3_exec(st->db, "PRAGMA journal_mode=WAL; PRAGMA foreign_keys=ON;", NULL, NULL, NULL);
	rc = migrate(st, e);
out:
	if (rc < 0) {
		ctlstore_close(st);
		st = NULL;
	}
	*out = st;
	return rc;
}

void ctlstore_close(struct ctlstore *st)
{
	if (!st)
		return;
	sqlite3_close(st->db);
	free(st);
}

static void bind_num(sqlite3_stmt *q, int i, double v)
{
	if (isnan(v) || isinf(v))
		sqlite3_bind_null(q, i);
	else
		sqlite3_bind_double(q, i, v);
}

int ctlstore_sweep_create(struct ctlstore *st, struct sweep *s, struct err *e)
{
	sqlite3_stmt *q = NULL;
	int rc = 0;

	if (sqlite3_prepare_v2(st->db,
	                       "INSERT INTO sweeps(name, plan_json, strategy, metric, status, "
	                       "created_at, owner_pid, owner_host) VALUES (?,?,?,?,?,?,?,?)",
	                       -1, &q, NULL) != SQLITE_OK)
		return db_fail(st, e, "insert sweep");
	sqlite3_bind_text(q, 1, s->plan.name, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 2, s->plan.json, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 3, plan_strategy_name(s->plan.strategy), -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 4, s->plan.metric, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 5, s->status, -1, SQLITE_STATIC);
	sqlite3_bind_double(q, 6, s->created_at);
	sqlite3_bind_int(q, 7, s->owner_pid);
	sqlite3_bind_text(q, 8, s->owner_host, -1, SQLITE_STATIC);
	if (sqlite3_step(q) != SQLITE_DONE)
		rc = db_fail(st, e, "insert sweep");
	else
		s->id = sqlite3_last_insert_rowid(st->db);
	sqlite3_finalize(q);
	return rc;
}

/* Run one statement with the given integer key bindings. */
static int exec_keys(struct ctlstore *st, const char *sql, int64_t id, int idx, struct err *e)
{
	sqlite3_stmt *q;
	int rc = 0;

	if (sqlite3_prepare_v2(st->db, sql, -1, &q, NULL) != SQLITE_OK)
		return db_fail(st, e, sql);
	sqlite3_bind_int64(q, 1, id);
	sqlite3_bind_int(q, 2, idx);
	if (sqlite3_step(q) != SQLITE_DONE)
		rc = db_fail(st, e, sql);
	sqlite3_finalize(q);
	return rc;
}

static int point_write(struct ctlstore *st, const struct sweep *s, int idx, struct err *e)
{
	const struct point *p = &s->points[idx];
	sqlite3_stmt *q = NULL, *qn = NULL, *qp = NULL;
	char *cfg = config_to_json(&p->cfg);
	int rc, k, j;

	rc = exec_keys(st, "DELETE FROM passes WHERE sweep_id=? AND idx=?", s->id, idx, e);
	if (!rc)
		rc = exec_keys(st, "DELETE FROM point_nodes WHERE sweep_id=? AND idx=?", s->id, idx,
		               e);
	if (!rc)
		rc = exec_keys(st, "DELETE FROM points WHERE sweep_id=? AND idx=?", s->id, idx, e);
	if (rc)
		goto out;
	if (sqlite3_prepare_v2(st->db,
	                       "INSERT INTO points(sweep_id, idx, role, axis, ref, config_json, "
	                       "delta_pct, ci_low_pct, ci_high_pct, spread_pct, verdict, loops, "
	                       "ref_loops) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
	                       -1, &q, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(st->db,
	                       "INSERT INTO point_nodes(sweep_id, idx, node_idx, node, state, "
	                       "applied_json, adjusted_mask, job_id, job_runtime_s, error, mean, "
	                       "stdev, delta_pct, ci_low_pct, ci_high_pct, verdict) VALUES "
	                       "(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
	                       -1, &qn, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(st->db,
	                       "INSERT INTO passes(sweep_id, idx, node_idx, loop, value) VALUES "
	                       "(?,?,?,?,?)",
	                       -1, &qp, NULL) != SQLITE_OK) {
		rc = db_fail(st, e, "prepare point");
		goto out;
	}
	sqlite3_bind_int64(q, 1, s->id);
	sqlite3_bind_int(q, 2, idx);
	sqlite3_bind_text(q, 3, sweep_role_code(p->role), -1, SQLITE_STATIC);
	if (p->axis >= 0)
		sqlite3_bind_int(q, 4, p->axis);
	if (p->ref >= 0)
		sqlite3_bind_int(q, 5, p->ref);
	sqlite3_bind_text(q, 6, cfg, -1, SQLITE_STATIC);
	bind_num(q, 7, p->delta_pct);
	bind_num(q, 8, p->ci_low_pct);
	bind_num(q, 9, p->ci_high_pct);
	bind_num(q, 10, p->spread_pct);
	if (p->verdict != EFFECT_NA)
		sqlite3_bind_text(q, 11, sweep_verdict_code(p->verdict), -1, SQLITE_STATIC);
	sqlite3_bind_int(q, 12, p->loops_run);
	if (p->ref_loops > 0)
		sqlite3_bind_int(q, 13, p->ref_loops);
	if (sqlite3_step(q) != SQLITE_DONE) {
		rc = db_fail(st, e, "insert point");
		goto out;
	}
	for (k = 0; k < s->plan.nnodes; k++) {
		const struct node_result *r = &p->nodes[k];
		char *applied = config_to_json(&r->applied);

		sqlite3_reset(qn);
		sqlite3_clear_bindings(qn);
		sqlite3_bind_int64(qn, 1, s->id);
		sqlite3_bind_int(qn, 2, idx);
		sqlite3_bind_int(qn, 3, k);
		sqlite3_bind_text(qn, 4, s->plan.nodes[k].name, -1, SQLITE_STATIC);
		sqlite3_bind_text(qn, 5, sweep_node_state_code(r->state), -1, SQLITE_STATIC);
		sqlite3_bind_text(qn, 6, applied, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int64(qn, 7, r->adjusted_mask);
		if (r->job_id)
			sqlite3_bind_int64(qn, 8, r->job_id);
		if (r->job_runtime_s > 0)
			sqlite3_bind_double(qn, 9, r->job_runtime_s);
		if (r->error[0])
			sqlite3_bind_text(qn, 10, r->error, -1, SQLITE_STATIC);
		if (r->sum.n > 0) {
			sqlite3_bind_double(qn, 11, r->sum.mean);
			sqlite3_bind_double(qn, 12, r->sum.stdev);
		}
		bind_num(qn, 13, r->delta_pct);
		bind_num(qn, 14, r->ci_low_pct);
		bind_num(qn, 15, r->ci_high_pct);
		if (r->verdict != EFFECT_NA)
			sqlite3_bind_text(qn, 16, sweep_verdict_code(r->verdict), -1,
			                  SQLITE_STATIC);
		free(applied);
		if (sqlite3_step(qn) != SQLITE_DONE) {
			rc = db_fail(st, e, "insert node result");
			goto out;
		}
		for (j = 0; j < r->npasses; j++) {
			sqlite3_reset(qp);
			sqlite3_bind_int64(qp, 1, s->id);
			sqlite3_bind_int(qp, 2, idx);
			sqlite3_bind_int(qp, 3, k);
			sqlite3_bind_int(qp, 4, j + 1);
			sqlite3_bind_double(qp, 5, r->passes[j]);
			if (sqlite3_step(qp) != SQLITE_DONE) {
				rc = db_fail(st, e, "insert pass");
				goto out;
			}
		}
	}
out:
	sqlite3_finalize(q);
	sqlite3_finalize(qn);
	sqlite3_finalize(qp);
	free(cfg);
	return rc;
}

static int tx_begin(struct ctlstore *st, struct err *e)
{
	if (sqlite3_exec(st->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
		return db_fail(st, e, "begin");
	return 0;
}

static int tx_end(struct ctlstore *st, int rc, struct err *e)
{
	if (rc < 0) {
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
		return rc;
	}
	if (sqlite3_exec(st->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
		rc = db_fail(st, e, "commit");
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
	}
	return rc;
}

/* Point idx's race decision (adaptive), replacing the one stored; none for RACE_NONE. */
static int race_write(struct ctlstore *st, const struct sweep *s, int idx, struct err *e)
{
	const struct race_mark *m = &s->points[idx].race;
	sqlite3_stmt *q = NULL;
	int rc = 0;

	if (m->state == RACE_NONE)
		return 0;
	if (sqlite3_prepare_v2(
	            st->db,
	            "INSERT OR REPLACE INTO point_races(sweep_id, idx, state, why, round, "
	            "loops, vs, delta_pct, low_pct, high_pct) VALUES "
	            "(?,?,?,?,?,?,?,?,?,?)",
	            -1, &q, NULL) != SQLITE_OK)
		return db_fail(st, e, "prepare race");
	sqlite3_bind_int64(q, 1, s->id);
	sqlite3_bind_int(q, 2, idx);
	sqlite3_bind_text(q, 3, sweep_race_state_code(m->state), -1, SQLITE_STATIC);
	if (m->why != RACE_WHY_NONE)
		sqlite3_bind_text(q, 4, sweep_race_why_code(m->why), -1, SQLITE_STATIC);
	sqlite3_bind_int(q, 5, m->round);
	sqlite3_bind_int(q, 6, m->loops);
	if (m->vs >= 0)
		sqlite3_bind_int(q, 7, m->vs);
	bind_num(q, 8, m->delta_pct);
	bind_num(q, 9, m->low_pct);
	bind_num(q, 10, m->high_pct);
	if (sqlite3_step(q) != SQLITE_DONE)
		rc = db_fail(st, e, "insert race");
	sqlite3_finalize(q);
	return rc;
}

/* Every race decision of s: a round changes points other than the one just run. */
static int races_write(struct ctlstore *st, const struct sweep *s, struct err *e)
{
	int i, rc = 0;

	for (i = 0; i < s->npoints && !rc; i++)
		rc = race_write(st, s, i, e);
	return rc;
}

/* When the sweep last saved a point: what tells an abandoned sweep from a running one. */
static int saved_at_write(struct ctlstore *st, const struct sweep *s, struct err *e)
{
	sqlite3_stmt *q = NULL;
	int rc = 0;

	if (sqlite3_prepare_v2(st->db, "UPDATE sweeps SET saved_at=? WHERE id=?", -1, &q, NULL) !=
	    SQLITE_OK)
		return db_fail(st, e, "update sweep");
	sqlite3_bind_double(q, 1, time_now_s());
	sqlite3_bind_int64(q, 2, s->id);
	if (sqlite3_step(q) != SQLITE_DONE)
		rc = db_fail(st, e, "update sweep");
	sqlite3_finalize(q);
	return rc;
}

int ctlstore_point_save(struct ctlstore *st, const struct sweep *s, int idx, struct err *e)
{
	int rc = tx_begin(st, e);

	if (rc < 0)
		return rc;
	rc = point_write(st, s, idx, e);
	if (!rc)
		rc = races_write(st, s, e);
	if (!rc)
		rc = saved_at_write(st, s, e);
	return tx_end(st, rc, e);
}

int ctlstore_sweep_finish(struct ctlstore *st, const struct sweep *s, struct err *e)
{
	const struct point *best = s->best >= 0 ? &s->points[s->best] : NULL;
	sqlite3_stmt *q = NULL;
	char *dropped = plan_node_set_to_json(&s->plan, s->node_dropped);
	char *best_cfg = best ? config_to_json(&best->cfg) : NULL;
	int rc, i;

	rc = tx_begin(st, e);
	if (rc < 0)
		goto out;
	for (i = 0; i < s->npoints && !rc; i++)
		rc = point_write(st, s, i, e);
	if (!rc)
		rc = races_write(st, s, e);
	if (rc)
		goto end;
	if (sqlite3_prepare_v2(st->db,
	                       "UPDATE sweeps SET status=?, finished_at=?, dropped_json=?, "
	                       "outcome=?, best_point=?, best_config_json=?, best_delta_pct=?, "
	                       "best_verdict=? WHERE id=?",
	                       -1, &q, NULL) != SQLITE_OK) {
		rc = db_fail(st, e, "update sweep");
		goto end;
	}
	sqlite3_bind_text(q, 1, s->status, -1, SQLITE_STATIC);
	if (s->finished_at > 0)
		sqlite3_bind_double(q, 2, s->finished_at);
	sqlite3_bind_text(q, 3, dropped, -1, SQLITE_STATIC);
	if (s->outcome != OUTCOME_PENDING)
		sqlite3_bind_text(q, 4, sweep_outcome_code(s->outcome), -1, SQLITE_STATIC);
	if (best) {
		sqlite3_bind_int(q, 5, s->best);
		sqlite3_bind_text(q, 6, best_cfg, -1, SQLITE_STATIC);
		bind_num(q, 7, best->delta_pct);
		sqlite3_bind_text(q, 8, sweep_verdict_code(best->verdict), -1, SQLITE_STATIC);
	}
	sqlite3_bind_int64(q, 9, s->id);
	if (sqlite3_step(q) != SQLITE_DONE)
		rc = db_fail(st, e, "update sweep");
end:
	sqlite3_finalize(q);
	rc = tx_end(st, rc, e);
out:
	free(dropped);
	free(best_cfg);
	return rc;
}

static const char *col_text(sqlite3_stmt *q, int i)
{
	const unsigned char *t = sqlite3_column_text(q, i);

	return t ? (const char *)t : "";
}

static double col_num(sqlite3_stmt *q, int i)
{
	return sqlite3_column_type(q, i) == SQLITE_NULL ? NAN : sqlite3_column_double(q, i);
}

/* The race decisions stored for sweep id into its points (rows with unknown codes or points
 * are skipped). */
static int races_read(struct ctlstore *st, int64_t id, struct sweep *s, struct err *e)
{
	sqlite3_stmt *q = NULL;

	if (sqlite3_prepare_v2(st->db,
	                       "SELECT idx, state, why, round, loops, vs, delta_pct, low_pct, "
	                       "high_pct FROM point_races WHERE sweep_id=?",
	                       -1, &q, NULL) != SQLITE_OK)
		return db_fail(st, e, "select races");
	sqlite3_bind_int64(q, 1, id);
	while (sqlite3_step(q) == SQLITE_ROW) {
		int idx = sqlite3_column_int(q, 0),
		    st_code = sweep_race_state_parse(col_text(q, 1));
		int why = sweep_race_why_parse(col_text(q, 2));
		struct race_mark *m;

		if (idx < 0 || idx >= s->npoints || st_code <= 0 || why < 0)
			continue;
		m = &s->points[idx].race;
		m->state = (enum race_state)st_code;
		m->why = (enum race_why)why;
		m->round = sqlite3_column_int(q, 3);
		m->loops = sqlite3_column_int(q, 4);
		m->vs = sqlite3_column_type(q, 5) == SQLITE_NULL ? -1 : sqlite3_column_int(q, 5);
		m->delta_pct = col_num(q, 6);
		m->low_pct = col_num(q, 7);
		m->high_pct = col_num(q, 8);
	}
	sqlite3_finalize(q);
	return 0;
}

int ctlstore_sweep_load(struct ctlstore *st, int64_t id, struct sweep *s, struct err *e)
{
	sqlite3_stmt *q = NULL;
	struct plan plan;
	int rc = 0, step, i;

	memset(s, 0, sizeof(*s));
	if (sqlite3_prepare_v2(st->db,
	                       "SELECT plan_json, status, created_at, finished_at, dropped_json, "
	                       "owner_pid, owner_host, saved_at FROM sweeps WHERE id=?",
	                       -1, &q, NULL) != SQLITE_OK)
		return db_fail(st, e, "select sweep");
	sqlite3_bind_int64(q, 1, id);
	step = sqlite3_step(q);
	if (step != SQLITE_ROW) {
		rc = step == SQLITE_DONE
		             ? err_set(e, -ENOENT, "not_found", "no sweep %lld", (long long)id)
		             : db_fail(st, e, "select sweep");
		goto out;
	}
	rc = plan_parse(col_text(q, 0), NULL, &plan, e);
	if (rc < 0)
		goto out;
	sweep_init(s, &plan);
	s->id = id;
	snprintf(s->status, sizeof(s->status), "%s", col_text(q, 1));
	s->created_at = sqlite3_column_double(q, 2);
	s->finished_at = sqlite3_column_type(q, 3) == SQLITE_NULL ? 0 : sqlite3_column_double(q, 3);
	s->owner_pid = sqlite3_column_int(q, 5);
	snprintf(s->owner_host, sizeof(s->owner_host), "%s", col_text(q, 6));
	s->saved_at = sqlite3_column_double(q, 7);
	rc = plan_node_set_parse(&s->plan, col_text(q, 4), s->node_dropped, e);
	if (rc < 0)
		goto out;
	sqlite3_finalize(q);
	q = NULL;
	if (sqlite3_prepare_v2(st->db,
	                       "SELECT idx, role, axis, ref, config_json, loops, ref_loops FROM "
	                       "points WHERE sweep_id=? ORDER BY idx",
	                       -1, &q, NULL) != SQLITE_OK) {
		rc = db_fail(st, e, "select points");
		goto out;
	}
	sqlite3_bind_int64(q, 1, id);
	while ((step = sqlite3_step(q)) == SQLITE_ROW) {
		int role = sweep_role_parse(col_text(q, 1)), idx;
		struct config cfg;
		int axis = sqlite3_column_type(q, 2) == SQLITE_NULL ? -1 : sqlite3_column_int(q, 2);
		int ref = sqlite3_column_type(q, 3) == SQLITE_NULL ? -1 : sqlite3_column_int(q, 3);

		if (config_parse_json(col_text(q, 4), &cfg, e) < 0) {
			rc = -EINVAL;
			goto out;
		}
		idx = sweep_point_add(s, role < 0 ? ROLE_CANDIDATE : (enum point_role)role, axis,
		                      ref, &cfg);
		/* Rows stored before migration 2 have no loops: the plan's, once run. */
		s->points[idx].loops_run =
		        sqlite3_column_type(q, 5) == SQLITE_NULL ? -1 : sqlite3_column_int(q, 5);
		s->points[idx].ref_loops = sqlite3_column_int(q, 6);
	}
	sqlite3_finalize(q);
	q = NULL;
	if (sqlite3_prepare_v2(st->db,
	                       "SELECT idx, node_idx, state, applied_json, adjusted_mask, job_id, "
	                       "job_runtime_s, error FROM point_nodes WHERE sweep_id=?",
	                       -1, &q, NULL) != SQLITE_OK) {
		rc = db_fail(st, e, "select node results");
		goto out;
	}
	sqlite3_bind_int64(q, 1, id);
	while (sqlite3_step(q) == SQLITE_ROW) {
		int idx = sqlite3_column_int(q, 0), k = sqlite3_column_int(q, 1);
		int state = sweep_node_state_parse(col_text(q, 2));
		struct node_result *r;

		if (idx < 0 || idx >= s->npoints || k < 0 || k >= s->plan.nnodes)
			continue;
		r = &s->points[idx].nodes[k];
		if (state >= 0)
			r->state = (enum node_state)state;
		if (s->points[idx].loops_run < 0 && r->state != NODE_PENDING &&
		    r->state != NODE_DROPPED)
			s->points[idx].loops_run = s->plan.loops;
		config_parse_json(col_text(q, 3), &r->applied, NULL);
		r->adjusted_mask = (unsigned)sqlite3_column_int64(q, 4);
		r->job_id = sqlite3_column_int64(q, 5);
		r->job_runtime_s = sqlite3_column_double(q, 6);
		snprintf(r->error, sizeof(r->error), "%s", col_text(q, 7));
	}
	sqlite3_finalize(q);
	q = NULL;
	if (sqlite3_prepare_v2(st->db,
	                       "SELECT idx, node_idx, loop, value FROM passes WHERE sweep_id=? "
	                       "ORDER BY idx, node_idx, loop",
	                       -1, &q, NULL) != SQLITE_OK) {
		rc = db_fail(st, e, "select passes");
		goto out;
	}
	sqlite3_bind_int64(q, 1, id);
	while (sqlite3_step(q) == SQLITE_ROW) {
		int idx = sqlite3_column_int(q, 0), k = sqlite3_column_int(q, 1);

		if (idx < 0 || idx >= s->npoints || k < 0 || k >= s->plan.nnodes)
			continue;
		node_result_pass_add(&s->points[idx].nodes[k], col_num(q, 3));
	}
	for (i = 0; i < s->npoints; i++)
		if (s->points[i].loops_run < 0)
			s->points[i].loops_run = 0;
	sqlite3_finalize(q);
	q = NULL;
	rc = races_read(st, id, s, e);
out:
	sqlite3_finalize(q);
	if (rc < 0 && s->plan.nnodes)
		sweep_release(s);
	return rc;
}

int ctlstore_history(struct ctlstore *st, int limit, struct ctlstore_summary **out, int *n,
                     struct err *e)
{
	sqlite3_stmt *q = NULL;
	int cap = 16, rc = 0;

	*n = 0;
	*out = xcalloc((size_t)cap, sizeof(**out));
	if (sqlite3_prepare_v2(st->db,
	                       "SELECT s.id, s.name, s.status, s.strategy, s.metric, s.created_at, "
	                       "s.finished_at, (SELECT count(*) FROM points p WHERE p.sweep_id = "
	                       "s.id), s.best_line, s.outcome, s.best_point, s.best_config_json, "
	                       "s.best_delta_pct, s.best_verdict, s.owner_pid, s.owner_host, "
	                       "s.saved_at FROM sweeps s ORDER BY s.id DESC LIMIT ?",
	                       -1, &q, NULL) != SQLITE_OK)
		return db_fail(st, e, "select history");
	sqlite3_bind_int(q, 1, limit);
	while (sqlite3_step(q) == SQLITE_ROW) {
		struct ctlstore_summary *h;
		int outcome, verdict;

		if (*n == cap) {
			cap *= 2;
			*out = xrealloc(*out, (size_t)cap * sizeof(**out));
		}
		h = &(*out)[(*n)++];
		memset(h, 0, sizeof(*h));
		h->id = sqlite3_column_int64(q, 0);
		snprintf(h->name, sizeof(h->name), "%s", col_text(q, 1));
		snprintf(h->status, sizeof(h->status), "%s", col_text(q, 2));
		snprintf(h->strategy, sizeof(h->strategy), "%s", col_text(q, 3));
		snprintf(h->metric, sizeof(h->metric), "%s", col_text(q, 4));
		h->created_at = sqlite3_column_double(q, 5);
		h->finished_at = sqlite3_column_double(q, 6);
		h->npoints = sqlite3_column_int(q, 7);
		snprintf(h->legacy_best_line, sizeof(h->legacy_best_line), "%s", col_text(q, 8));
		outcome = sweep_outcome_parse(col_text(q, 9));
		h->outcome = outcome < 0 ? OUTCOME_PENDING : (enum sweep_outcome)outcome;
		h->best_point =
		        sqlite3_column_type(q, 10) == SQLITE_NULL ? -1 : sqlite3_column_int(q, 10);
		if (h->best_point >= 0 &&
		    config_parse_json(col_text(q, 11), &h->best_cfg, NULL) < 0)
			h->best_point = -1;
		h->best_delta_pct = col_num(q, 12);
		verdict = sweep_verdict_parse(col_text(q, 13));
		h->best_verdict = verdict < 0 ? EFFECT_NA : (enum effect_decision)verdict;
		h->owner_pid = sqlite3_column_int(q, 14);
		snprintf(h->owner_host, sizeof(h->owner_host), "%s", col_text(q, 15));
		h->saved_at = sqlite3_column_double(q, 16);
	}
	sqlite3_finalize(q);
	return rc;
}
