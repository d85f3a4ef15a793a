/* store_job.c -- jobs, passes and the results history in the agent's SQLite. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "log.h"
#include "store_priv.h"
#include "wire.h"
#include "xmalloc.h"
#include "banned.h"

#define JOB_COLS                                                                                   \
	"id, state, device, engine, spec, params, loops, loops_done, pgid, error_code, "           \
	"error_message, created_at, started_at, finished_at, params_changed"

static void bind_text(sqlite3_stmt *st, int i, const char *v)
{
	if (v)
		sqlite3_bind_text(st, i, v, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, i);
}

/* The spec column decoded; a row the codec cannot read keeps what its columns say. */
static void spec_from_row(sqlite3_stmt *st, struct job_rec *r)
{
	const unsigned char *text = sqlite3_column_text(st, 4);
	struct err e;

	err_clear(&e);
	r->spec_ok = wire_job_spec_decode((const char *)text, &r->spec, &e) == 0;
	if (r->spec_ok)
		return;
	log_warn("job %lld: %s", (long long)r->id, e.msg);
	job_spec_init(&r->spec);
	snprintf(r->spec.device, sizeof(r->spec.device), "%s", r->device);
	r->spec.engine = engine_find(r->engine);
	r->spec.loops = r->loops;
}

static void job_row(sqlite3_stmt *st, void *elem)
{
	struct job_rec *r = elem;
	const unsigned char *params;

	memset(r, 0, sizeof(*r));
	r->id = sqlite3_column_int64(st, 0);
	db_col_text(st, 1, r->state, sizeof(r->state), NULL);
	db_col_text(st, 2, r->device, sizeof(r->device), NULL);
	db_col_text(st, 3, r->engine, sizeof(r->engine), NULL);
	params = sqlite3_column_text(st, 5);
	r->has_params = params && wire_param_values_decode((const char *)params, &r->params,
	                                                   &r->n_params) == 0;
	r->loops = sqlite3_column_int(st, 6);
	r->loops_done = sqlite3_column_int(st, 7);
	r->pgid = sqlite3_column_int64(st, 8);
	db_col_text(st, 9, r->error_code, sizeof(r->error_code), &r->has_error);
	db_col_text(st, 10, r->error_message, sizeof(r->error_message), NULL);
	r->created_at = sqlite3_column_double(st, 11);
	r->started_at = sqlite3_column_double(st, 12);
	r->finished_at = sqlite3_column_double(st, 13);
	db_col_text(st, 14, r->params_changed, sizeof(r->params_changed), &r->has_params_changed);
	spec_from_row(st, r);
}

static void job_release_elem(void *elem)
{
	store_job_rec_release(elem);
}

void store_values_free(struct store_value *v, int n)
{
	int i;

	for (i = 0; v && i < n; i++) {
		free(v[i].name);
		free(v[i].value);
	}
	free(v);
}

void store_job_rec_release(struct job_rec *r)
{
	if (!r)
		return;
	job_spec_release(&r->spec);
	store_values_free(r->params, r->n_params);
	r->params = NULL;
	r->n_params = 0;
}

void store_jobs_free(struct job_rec *list, int n)
{
	int i;

	for (i = 0; i < n; i++)
		store_job_rec_release(&list[i]);
	free(list);
}

/* Insert name/value rows into table (job_labels or job_params) for job id. */
static int kv_insert(struct store *s, const char *table, int64_t id, const char *key,
                     const char *value, struct err *e)
{
	char sql[128];

	snprintf(sql, sizeof(sql), "INSERT OR REPLACE INTO %s VALUES(?,?,?)", table);
	return db_run(s->db, e, table, sql, "Itt", id, key, value);
}

int store_job_insert(struct store *s, const struct job_spec *spec, double created_at, int64_t *id,
                     struct err *e)
{
	char *json = wire_job_spec_encode(spec), *labels = wire_labels_encode(spec);
	int i, rc;

	db_lock(s->db);
	rc = db_tx_begin(s->db, e);
	if (rc == 0)
		rc = db_run(s->db, e, "job insert",
		            "INSERT INTO jobs(state, device, engine, spec, labels, loops, "
		            "created_at) VALUES('queued',?,?,?,?,?,?)",
		            "ttttid", spec->device, spec->engine->name, json, labels, spec->loops,
		            created_at);
	if (rc >= 0)
		*id = db_last_insert_id(s->db);
	for (i = 0; rc >= 0 && i < spec->n_labels; i++)
		rc = kv_insert(s, "job_labels", *id, spec->labels[i].key, spec->labels[i].value, e);
	rc = db_tx_end(s->db, rc, e);
	db_unlock(s->db);
	free(json);
	free(labels);
	return rc < 0 ? rc : 0;
}

static int jobs_collect(struct store *s, sqlite3_stmt *st, struct job_rec **out, int *n,
                        struct err *e)
{
	return db_collect(s->db, st, sizeof(**out), job_row, job_release_elem, (void **)out, n, e,
	                  "jobs");
}

int store_jobs_queued(struct store *s, struct job_rec **out, int *n, struct err *e)
{
	sqlite3_stmt *st;
	int rc;

	db_lock(s->db);
	st = db_prepare(s->db, "SELECT " JOB_COLS " FROM jobs WHERE state = 'queued' ORDER BY id",
	                NULL);
	rc = jobs_collect(s, st, out, n, e);
	db_unlock(s->db);
	return rc;
}

int store_job_start(struct store *s, int64_t id, double now, struct err *e)
{
	int rc;

	rc = store_write(s, e, "job start",
	                 "UPDATE jobs SET state = 'running', started_at = ? WHERE id = ? AND "
	                 "state = 'queued'",
	                 "dI", now, id);
	if (rc == 0)
		return err_set(e, -ENOENT, "not_found", "job %lld is not queued", (long long)id);
	return rc < 0 ? rc : 0;
}

int store_job_set_restore(struct store *s, int64_t id, const struct tune_snapshot *snap,
                          struct err *e)
{
	char *json = wire_snapshot_encode(snap);
	int rc;

	rc = store_write(s, e, "job restore point", "UPDATE jobs SET restore = ? WHERE id = ?",
	                 "tI", json, id);
	free(json);
	if (rc == 0)
		return err_set(e, -ENOENT, "not_found", "no job %lld", (long long)id);
	return rc < 0 ? rc : 0;
}

int store_jobs_rebase(struct store *s, const char *device, double since, struct err *e)
{
	int rc =
	        store_write(s, e, "job restore points",
	                    "UPDATE jobs SET restore = NULL WHERE device = ? AND state = 'running' "
	                    "AND started_at >= ? AND restore IS NOT NULL",
	                    "td", device, since);

	return rc < 0 ? rc : 0;
}

int store_jobs_mark_changed(struct store *s, const char *device, const char *why, struct err *e)
{
	int rc = store_write(s, e, "job params changed",
	                     "UPDATE jobs SET params_changed = COALESCE(params_changed, ?) WHERE "
	                     "device = ? AND state = 'running'",
	                     "tt", why, device);

	return rc < 0 ? rc : 0;
}

int store_job_restore(struct store *s, int64_t id, struct tune_snapshot *out, bool *found,
                      struct err *e)
{
	return store_snapshot_get(s, "SELECT device, restore FROM jobs WHERE id = ?", id, "job",
	                          out, found, e);
}

int store_job_set_params(struct store *s, int64_t id, const struct params *ps, struct err *e)
{
	char *json = wire_param_values_encode(ps);
	int i, rc;

	db_lock(s->db);
	rc = db_tx_begin(s->db, e);
	if (rc == 0)
		rc = db_run(s->db, e, "job params", "UPDATE jobs SET params = ? WHERE id = ?", "tI",
		            json, id);
	for (i = 0; rc >= 0 && i < ps->n; i++)
		rc = kv_insert(s, "job_params", id, ps->p[i].name, ps->p[i].value, e);
	rc = db_tx_end(s->db, rc, e);
	db_unlock(s->db);
	free(json);
	return rc < 0 ? rc : 0;
}

int store_job_set_pgid(struct store *s, int64_t id, int64_t pgid)
{
	int rc;

	rc = store_write(s, NULL, "job pgid", "UPDATE jobs SET pgid = ? WHERE id = ?", "nI", pgid,
	                 id);
	return rc < 0 ? rc : 0;
}

int store_job_pass_add(struct store *s, int64_t id, int loop, double started_at, double finished_at,
                       const struct metrics *m, const char *raw, size_t raw_len, struct err *e)
{
	char *json = wire_metrics_encode(m);
	int rc;

	db_lock(s->db);
	rc = db_tx_begin(s->db, e);
	if (rc == 0)
		rc = db_run(s->db, e, "pass insert",
		            "INSERT OR REPLACE INTO passes(job_id, loop, started_at, finished_at, "
		            "metrics, raw) VALUES(?,?,?,?,?,?)",
		            "Iiddtb", id, loop, started_at, finished_at, json, raw, raw_len);
	if (rc >= 0)
		rc = db_run(s->db, e, "pass insert", "UPDATE jobs SET loops_done = ? WHERE id = ?",
		            "iI", loop, id);
	rc = db_tx_end(s->db, rc, e);
	db_unlock(s->db);
	free(json);
	return rc < 0 ? rc : 0;
}

int store_job_finish(struct store *s, int64_t id, const char *state, double finished_at,
                     const char *code, const char *message, struct err *e)
{
	int rc;

	rc = store_write(s, e, "job finish",
	                 "UPDATE jobs SET state = ?, finished_at = ?, error_code = ?, "
	                 "error_message = ?, pgid = NULL WHERE id = ?",
	                 "tdttI", state, finished_at, code, message, id);
	return rc < 0 ? rc : 0;
}

int store_job_cancel_queued(struct store *s, int64_t id, double now, struct err *e)
{
	int rc;

	rc = store_write(s, e, "job cancel",
	                 "UPDATE jobs SET state = 'cancelled', finished_at = ?, error_code = "
	                 "'cancelled', error_message = 'cancelled while queued' WHERE id = ? AND "
	                 "state = 'queued'",
	                 "dI", now, id);
	if (rc == 0)
		return -EBUSY;
	return rc < 0 ? rc : 0;
}

int store_job_get(struct store *s, int64_t id, struct job_rec *out, struct err *e)
{
	sqlite3_stmt *st;
	int rc;

	memset(out, 0, sizeof(*out));
	db_lock(s->db);
	st = db_prepare(s->db, "SELECT " JOB_COLS " FROM jobs WHERE id = ?", "I", id);
	rc = db_fetch_one(s->db, st, job_row, out, e, "job get");
	db_unlock(s->db);
	if (rc == 0)
		return err_set(e, -ENOENT, "not_found", "no job %lld", (long long)id);
	return rc < 0 ? rc : 0;
}

static void pass_from_row(sqlite3_stmt *st, void *elem)
{
	struct pass_rec *p = elem;

	p->loop = sqlite3_column_int(st, 0);
	p->started_at = sqlite3_column_double(st, 1);
	p->finished_at = sqlite3_column_double(st, 2);
	wire_metrics_decode((const char *)sqlite3_column_text(st, 3), &p->metrics);
}

int store_job_passes(struct store *s, int64_t id, struct pass_rec **out, int *n, struct err *e)
{
	sqlite3_stmt *st;
	int rc;

	db_lock(s->db);
	st = db_prepare(s->db,
	                "SELECT loop, started_at, finished_at, metrics FROM passes WHERE "
	                "job_id = ? ORDER BY loop",
	                "I", id);
	rc = db_collect(s->db, st, sizeof(**out), pass_from_row, NULL, (void **)out, n, e,
	                "passes");
	db_unlock(s->db);
	return rc;
}

/* The pass's raw output as a heap string (NUL-terminated; it may hold other NULs). */
struct raw_out {
	char *data;
	size_t len;
};

static void raw_from_row(sqlite3_stmt *st, void *elem)
{
	struct raw_out *r = elem;
	const void *b = sqlite3_column_blob(st, 0);
	int n = sqlite3_column_bytes(st, 0);

	r->data = xmalloc((size_t)n + 1);
	if (n)
		memcpy(r->data, b, (size_t)n);
	r->data[n] = '\0';
	r->len = (size_t)n;
}

int store_job_raw(struct store *s, int64_t id, int loop, char **raw, size_t *len, struct err *e)
{
	struct raw_out r = { NULL, 0 };
	sqlite3_stmt *st;
	int rc;

	db_lock(s->db);
	st = db_prepare(s->db, "SELECT raw FROM passes WHERE job_id = ? AND loop = ?", "Ii", id,
	                loop);
	rc = db_fetch_one(s->db, st, raw_from_row, &r, e, "raw");
	db_unlock(s->db);
	if (rc == 0)
		rc = err_set(e, -ENOENT, "not_found", "job %lld has no pass %d", (long long)id,
		             loop);
	*raw = r.data;
	*len = r.len;
	return rc < 0 ? rc : 0;
}

int store_jobs_list(struct store *s, const char *state, int limit, struct job_rec **out, int *n,
                    struct err *e)
{
	sqlite3_stmt *st;
	int rc;

	db_lock(s->db);
	st = db_prepare(s->db,
	                "SELECT " JOB_COLS " FROM jobs WHERE (?1 IS NULL OR state = ?1) ORDER BY "
	                "id DESC LIMIT ?2",
	                "ti", state, limit);
	rc = jobs_collect(s, st, out, n, e);
	db_unlock(s->db);
	return rc;
}

int store_results(struct store *s, const struct result_filter *f, struct job_rec **out, int *n,
                  struct err *e)
{
	struct buf sql = BUF_INIT;
	sqlite3_stmt *st = NULL;
	int i, k = 1, rc;

	*out = NULL;
	*n = 0;
	buf_puts(&sql, "SELECT " JOB_COLS " FROM jobs WHERE finished_at IS NOT NULL");
	if (f->state)
		buf_puts(&sql, " AND state = ?");
	else
		buf_puts(&sql, " AND state IN ('succeeded','failed','cancelled','interrupted')");
	if (f->device)
		buf_puts(&sql, " AND device = ?");
	if (f->engine)
		buf_puts(&sql, " AND engine = ?");
	if (f->since > 0)
		buf_puts(&sql, " AND finished_at >= ?");
	if (f->before_id > 0)
		buf_puts(&sql, " AND id < ?");
	for (i = 0; i < f->n_labels; i++)
		buf_puts(&sql, " AND EXISTS (SELECT 1 FROM job_labels l WHERE l.job_id = jobs.id "
		               "AND l.key = ? AND l.value = ?)");
	for (i = 0; i < f->n_params; i++)
		buf_puts(&sql, " AND EXISTS (SELECT 1 FROM job_params p WHERE p.job_id = jobs.id "
		               "AND p.name = ? AND p.value = ?)");
	buf_puts(&sql, " ORDER BY id DESC LIMIT ?");
	db_lock(s->db);
	st = db_prepare(s->db, sql.data, NULL);
	if (!st) {
		rc = db_fail(s->db, e, "results");
		goto out;
	}
	if (f->state)
		bind_text(st, k++, f->state);
	if (f->device)
		bind_text(st, k++, f->device);
	if (f->engine)
		bind_text(st, k++, f->engine);
	if (f->since > 0)
		sqlite3_bind_double(st, k++, f->since);
	if (f->before_id > 0)
		sqlite3_bind_int64(st, k++, f->before_id);
	for (i = 0; i < f->n_labels; i++) {
		bind_text(st, k++, f->labels[i].key);
		bind_text(st, k++, f->labels[i].value);
	}
	for (i = 0; i < f->n_params; i++) {
		bind_text(st, k++, f->params[i].key);
		bind_text(st, k++, f->params[i].value);
	}
	sqlite3_bind_int(st, k, f->limit);
	rc = jobs_collect(s, st, out, n, e);
	st = NULL; /* finalized by jobs_collect */
out:
	db_finalize(st);
	db_unlock(s->db);
	buf_release(&sql);
	return rc;
}

int store_job_state_counts(struct store *s, const char *const *states, int n, int64_t *counts)
{
	sqlite3_stmt *st = NULL;
	int i, rc = 0;

	memset(counts, 0, sizeof(*counts) * (size_t)n);
	db_lock(s->db);
	st = db_prepare(s->db, "SELECT state, COUNT(*) FROM jobs GROUP BY state", NULL);
	if (!st) {
		rc = -EIO;
		goto out;
	}
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *state = (const char *)sqlite3_column_text(st, 0);

		for (i = 0; i < n; i++)
			if (state && !strcmp(states[i], state))
				counts[i] = sqlite3_column_int64(st, 1);
	}
out:
	db_finalize(st);
	db_unlock(s->db);
	return rc;
}
