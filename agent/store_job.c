/* store_job.c -- jobs, passes and the results history in the agent's SQLite. */
#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "store_priv.h"
#include "xmalloc.h"
#include "banned.h"

#define JOB_COLS                                                                                   \
	"id, state, device, engine, spec, labels, params, restore, loops, loops_done, pgid, "      \
	"error_code, error_message, created_at, started_at, finished_at"

static int db_fail(struct store *s, struct err *e, const char *what)
{
	return err_set(e, -EIO, "store_error", "database error in %s: %s", what,
	               sqlite3_errmsg(s->db));
}

static char *col_dup(sqlite3_stmt *st, int i)
{
	const unsigned char *v = sqlite3_column_text(st, i);

	return v ? xstrdup((const char *)v) : NULL;
}

static void job_from_row(sqlite3_stmt *st, struct job_rec *r)
{
	memset(r, 0, sizeof(*r));
	r->id = sqlite3_column_int64(st, 0);
	store_col_text(st, 1, r->state, sizeof(r->state), NULL);
	store_col_text(st, 2, r->device, sizeof(r->device), NULL);
	store_col_text(st, 3, r->engine, sizeof(r->engine), NULL);
	r->spec = col_dup(st, 4);
	r->labels = col_dup(st, 5);
	r->params = col_dup(st, 6);
	r->restore = col_dup(st, 7);
	r->loops = sqlite3_column_int(st, 8);
	r->loops_done = sqlite3_column_int(st, 9);
	r->pgid = sqlite3_column_int64(st, 10);
	store_col_text(st, 11, r->error_code, sizeof(r->error_code), &r->has_error);
	store_col_text(st, 12, r->error_message, sizeof(r->error_message), NULL);
	r->created_at = sqlite3_column_double(st, 13);
	r->started_at = sqlite3_column_double(st, 14);
	r->finished_at = sqlite3_column_double(st, 15);
}

void store_job_rec_release(struct job_rec *r)
{
	if (!r)
		return;
	free(r->spec);
	free(r->labels);
	free(r->params);
	free(r->restore);
	r->spec = r->labels = r->params = r->restore = NULL;
}

void store_jobs_free(struct job_rec *list, int n)
{
	int i;

	for (i = 0; i < n; i++)
		store_job_rec_release(&list[i]);
	free(list);
}

void store_passes_free(struct pass_rec *list, int n)
{
	int i;

	for (i = 0; i < n; i++)
		free(list[i].metrics);
	free(list);
}

/* Insert name/value rows into table (job_labels or job_params) for job id. */
static int kv_insert(struct store *s, const char *table, int64_t id, const struct store_kv *kv,
                     int n)
{
	char sql[128];
	sqlite3_stmt *st = NULL;
	int i, rc = 0;

	snprintf(sql, sizeof(sql), "INSERT OR REPLACE INTO %s VALUES(?,?,?)", table);
	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	for (i = 0; i < n && !rc; i++) {
		sqlite3_bind_int64(st, 1, id);
		store_bind_text(st, 2, kv[i].key);
		store_bind_text(st, 3, kv[i].value);
		if (sqlite3_step(st) != SQLITE_DONE)
			rc = -EIO;
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	return rc;
}

int store_job_insert(struct store *s, struct job_rec *rec, const struct store_kv *labels,
                     int n_labels, struct err *e)
{
	static const char sql[] = "INSERT INTO jobs(state, device, engine, spec, labels, loops, "
	                          "created_at) VALUES('queued',?,?,?,?,?,?)";
	sqlite3_stmt *st = NULL;
	int rc = 0;

	pthread_mutex_lock(&s->lock);
	if (store_exec(s, "BEGIN IMMEDIATE", e)) {
		rc = -EIO;
		goto out;
	}
	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		goto fail;
	store_bind_text(st, 1, rec->device);
	store_bind_text(st, 2, rec->engine);
	store_bind_text(st, 3, rec->spec);
	store_bind_text(st, 4, rec->labels ? rec->labels : "{}");
	sqlite3_bind_int(st, 5, rec->loops);
	sqlite3_bind_double(st, 6, rec->created_at);
	if (sqlite3_step(st) != SQLITE_DONE)
		goto fail;
	rec->id = sqlite3_last_insert_rowid(s->db);
	snprintf(rec->state, sizeof(rec->state), "queued");
	if (kv_insert(s, "job_labels", rec->id, labels, n_labels))
		goto fail;
	if (store_exec(s, "COMMIT", e))
		rc = -EIO;
	goto out;
fail:
	rc = db_fail(s, e, "job insert");
	store_exec(s, "ROLLBACK", NULL);
out:
	sqlite3_finalize(st);
	pthread_mutex_unlock(&s->lock);
	return rc;
}

int store_job_claim_next(struct store *s, double now, struct job_rec *out, struct err *e)
{
	static const char pick[] =
	        "SELECT " JOB_COLS " FROM jobs WHERE state = 'queued' ORDER BY id LIMIT 1";
	static const char mark[] = "UPDATE jobs SET state = 'running', started_at = ? WHERE id = ?";
	sqlite3_stmt *st = NULL;
	int rc = 0, r;

	pthread_mutex_lock(&s->lock);
	if (store_exec(s, "BEGIN IMMEDIATE", e)) {
		rc = -EIO;
		goto out;
	}
	if (sqlite3_prepare_v2(s->db, pick, -1, &st, NULL) != SQLITE_OK)
		goto fail;
	r = sqlite3_step(st);
	if (r == SQLITE_DONE) {
		store_exec(s, "COMMIT", NULL);
		rc = -ENOENT;
		goto out;
	}
	if (r != SQLITE_ROW)
		goto fail;
	job_from_row(st, out);
	sqlite3_finalize(st);
	st = NULL;
	if (sqlite3_prepare_v2(s->db, mark, -1, &st, NULL) != SQLITE_OK)
		goto fail;
	sqlite3_bind_double(st, 1, now);
	sqlite3_bind_int64(st, 2, out->id);
	if (sqlite3_step(st) != SQLITE_DONE)
		goto fail;
	snprintf(out->state, sizeof(out->state), "running");
	out->started_at = now;
	if (store_exec(s, "COMMIT", e))
		rc = -EIO;
	goto out;
fail:
	rc = db_fail(s, e, "job claim");
	store_exec(s, "ROLLBACK", NULL);
	store_job_rec_release(out);
out:
	sqlite3_finalize(st);
	pthread_mutex_unlock(&s->lock);
	return rc;
}

/* Run sql with (text, id) bound, in its own transaction. */
static int update_text(struct store *s, const char *sql, const char *text, int64_t id,
                       struct err *e)
{
	sqlite3_stmt *st = NULL;
	int rc = 0;

	if (store_exec(s, "BEGIN IMMEDIATE", e))
		return -EIO;
	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		goto fail;
	store_bind_text(st, 1, text);
	sqlite3_bind_int64(st, 2, id);
	if (sqlite3_step(st) != SQLITE_DONE)
		goto fail;
	sqlite3_finalize(st);
	return store_exec(s, "COMMIT", e);
fail:
	rc = db_fail(s, e, "job update");
	sqlite3_finalize(st);
	store_exec(s, "ROLLBACK", NULL);
	return rc;
}

int store_job_set_restore(struct store *s, int64_t id, const char *restore_json, struct err *e)
{
	int rc;

	pthread_mutex_lock(&s->lock);
	rc = update_text(s, "UPDATE jobs SET restore = ? WHERE id = ?", restore_json, id, e);
	pthread_mutex_unlock(&s->lock);
	return rc;
}

int store_job_set_params(struct store *s, int64_t id, const char *params_json,
                         const struct store_kv *params, int n, struct err *e)
{
	sqlite3_stmt *st = NULL;
	int rc = 0;

	pthread_mutex_lock(&s->lock);
	if (store_exec(s, "BEGIN IMMEDIATE", e)) {
		rc = -EIO;
		goto out;
	}
	if (sqlite3_prepare_v2(s->db, "UPDATE jobs SET params = ? WHERE id = ?", -1, &st, NULL) !=
	    SQLITE_OK)
		goto fail;
	store_bind_text(st, 1, params_json);
	sqlite3_bind_int64(st, 2, id);
	if (sqlite3_step(st) != SQLITE_DONE || kv_insert(s, "job_params", id, params, n))
		goto fail;
	if (store_exec(s, "COMMIT", e))
		rc = -EIO;
	goto out;
fail:
	rc = db_fail(s, e, "job params");
	store_exec(s, "ROLLBACK", NULL);
out:
	sqlite3_finalize(st);
	pthread_mutex_unlock(&s->lock);
	return rc;
}

int store_job_set_pgid(struct store *s, int64_t id, int64_t pgid)
{
	sqlite3_stmt *st = NULL;
	int rc = -EIO;

	pthread_mutex_lock(&s->lock);
	if (sqlite3_prepare_v2(s->db, "UPDATE jobs SET pgid = ? WHERE id = ?", -1, &st, NULL) ==
	    SQLITE_OK) {
		if (pgid)
			sqlite3_bind_int64(st, 1, pgid);
		else
			sqlite3_bind_null(st, 1);
		sqlite3_bind_int64(st, 2, id);
		if (sqlite3_step(st) == SQLITE_DONE)
			rc = 0;
	}
	sqlite3_finalize(st);
	pthread_mutex_unlock(&s->lock);
	return rc;
}

int store_job_pass_add(struct store *s, int64_t id, int loop, double started_at, double finished_at,
                       const char *metrics_json, const char *raw, size_t raw_len, struct err *e)
{
	static const char ins[] = "INSERT OR REPLACE INTO passes(job_id, loop, started_at, "
	                          "finished_at, metrics, raw) VALUES(?,?,?,?,?,?)";
	static const char bump[] = "UPDATE jobs SET loops_done = ? WHERE id = ?";
	sqlite3_stmt *st = NULL;
	int rc = 0;

	pthread_mutex_lock(&s->lock);
	if (store_exec(s, "BEGIN IMMEDIATE", e)) {
		rc = -EIO;
		goto out;
	}
	if (sqlite3_prepare_v2(s->db, ins, -1, &st, NULL) != SQLITE_OK)
		goto fail;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int(st, 2, loop);
	sqlite3_bind_double(st, 3, started_at);
	sqlite3_bind_double(st, 4, finished_at);
	store_bind_text(st, 5, metrics_json);
	if (raw)
		sqlite3_bind_blob64(st, 6, raw, raw_len, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, 6);
	if (sqlite3_step(st) != SQLITE_DONE)
		goto fail;
	sqlite3_finalize(st);
	st = NULL;
	if (sqlite3_prepare_v2(s->db, bump, -1, &st, NULL) != SQLITE_OK)
		goto fail;
	sqlite3_bind_int(st, 1, loop);
	sqlite3_bind_int64(st, 2, id);
	if (sqlite3_step(st) != SQLITE_DONE)
		goto fail;
	if (store_exec(s, "COMMIT", e))
		rc = -EIO;
	goto out;
fail:
	rc = db_fail(s, e, "pass insert");
	store_exec(s, "ROLLBACK", NULL);
out:
	sqlite3_finalize(st);
	pthread_mutex_unlock(&s->lock);
	return rc;
}

int store_job_finish(struct store *s, int64_t id, const char *state, double finished_at,
                     const char *code, const char *message, struct err *e)
{
	static const char sql[] = "UPDATE jobs SET state = ?, finished_at = ?, error_code = ?, "
	                          "error_message = ?, pgid = NULL WHERE id = ?";
	sqlite3_stmt *st = NULL;
	int rc = 0;

	pthread_mutex_lock(&s->lock);
	if (store_exec(s, "BEGIN IMMEDIATE", e)) {
		rc = -EIO;
		goto out;
	}
	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		goto fail;
	store_bind_text(st, 1, state);
	sqlite3_bind_double(st, 2, finished_at);
	store_bind_text(st, 3, code);
	store_bind_text(st, 4, message);
	sqlite3_bind_int64(st, 5, id);
	if (sqlite3_step(st) != SQLITE_DONE)
		goto fail;
	if (store_exec(s, "COMMIT", e))
		rc = -EIO;
	goto out;
fail:
	rc = db_fail(s, e, "job finish");
	store_exec(s, "ROLLBACK", NULL);
out:
	sqlite3_finalize(st);
	pthread_mutex_unlock(&s->lock);
	return rc;
}

int store_job_cancel_queued(struct store *s, int64_t id, double now, struct err *e)
{
	static const char sql[] = "UPDATE jobs SET state = 'cancelled', finished_at = ?, "
	                          "error_code = 'cancelled', error_message = 'cancelled while "
	                          "queued' WHERE id = ? AND state = 'queued'";
	sqlite3_stmt *st = NULL;
	int rc = 0;

	pthread_mutex_lock(&s->lock);
	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK) {
		rc = db_fail(s, e, "job cancel");
		goto out;
	}
	sqlite3_bind_double(st, 1, now);
	sqlite3_bind_int64(st, 2, id);
	if (sqlite3_step(st) != SQLITE_DONE)
		rc = db_fail(s, e, "job cancel");
	else if (sqlite3_changes(s->db) == 0)
		rc = -EBUSY;
out:
	sqlite3_finalize(st);
	pthread_mutex_unlock(&s->lock);
	return rc;
}

int store_job_get(struct store *s, int64_t id, struct job_rec *out, struct err *e)
{
	sqlite3_stmt *st = NULL;
	int rc = 0, r;

	memset(out, 0, sizeof(*out));
	pthread_mutex_lock(&s->lock);
	if (sqlite3_prepare_v2(s->db, "SELECT " JOB_COLS " FROM jobs WHERE id = ?", -1, &st,
	                       NULL) != SQLITE_OK) {
		rc = db_fail(s, e, "job get");
		goto out;
	}
	sqlite3_bind_int64(st, 1, id);
	r = sqlite3_step(st);
	if (r == SQLITE_ROW)
		job_from_row(st, out);
	else if (r == SQLITE_DONE)
		rc = err_set(e, -ENOENT, "not_found", "no job %lld", (long long)id);
	else
		rc = db_fail(s, e, "job get");
out:
	sqlite3_finalize(st);
	pthread_mutex_unlock(&s->lock);
	return rc;
}

int store_job_passes(struct store *s, int64_t id, struct pass_rec **out, int *n, struct err *e)
{
	static const char sql[] = "SELECT loop, started_at, finished_at, metrics FROM passes "
	                          "WHERE job_id = ? ORDER BY loop";
	struct pass_rec *list = NULL;
	sqlite3_stmt *st = NULL;
	int count = 0, cap = 0, rc = 0, r;

	pthread_mutex_lock(&s->lock);
	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK) {
		rc = db_fail(s, e, "passes");
		goto out;
	}
	sqlite3_bind_int64(st, 1, id);
	while ((r = sqlite3_step(st)) == SQLITE_ROW) {
		if (count == cap) {
			cap = cap ? cap * 2 : 8;
			list = xrealloc(list, (size_t)cap * sizeof(*list));
		}
		list[count].loop = sqlite3_column_int(st, 0);
		list[count].started_at = sqlite3_column_double(st, 1);
		list[count].finished_at = sqlite3_column_double(st, 2);
		list[count].metrics = col_dup(st, 3);
		count++;
	}
	if (r != SQLITE_DONE)
		rc = db_fail(s, e, "passes");
out:
	sqlite3_finalize(st);
	pthread_mutex_unlock(&s->lock);
	*out = list;
	*n = count;
	return rc;
}

int store_job_raw(struct store *s, int64_t id, int loop, char **raw, size_t *len, struct err *e)
{
	sqlite3_stmt *st = NULL;
	int rc = 0, r;

	*raw = NULL;
	*len = 0;
	pthread_mutex_lock(&s->lock);
	if (sqlite3_prepare_v2(s->db, "SELECT raw FROM passes WHERE job_id = ? AND loop = ?", -1,
	                       &st, NULL) != SQLITE_OK) {
		rc = db_fail(s, e, "raw");
		goto out;
	}
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int(st, 2, loop);
	r = sqlite3_step(st);
	if (r == SQLITE_ROW) {
		const void *b = sqlite3_column_blob(st, 0);
		int n = sqlite3_column_bytes(st, 0);

		*raw = xmalloc((size_t)n + 1);
		if (n)
			memcpy(*raw, b, (size_t)n);
		(*raw)[n] = '\0';
		*len = (size_t)n;
	} else if (r == SQLITE_DONE) {
		rc = err_set(e, -ENOENT, "not_found", "job %lld has no pass %d", (long long)id,
		             loop);
	} else {
		rc = db_fail(s, e, "raw");
	}
out:
	sqlite3_finalize(st);
	pthread_mutex_unlock(&s->lock);
	return rc;
}

static int jobs_collect(struct store *s, sqlite3_stmt *st, struct job_rec **out, int *n,
                        struct err *e)
{
	struct job_rec *list = NULL;
	int count = 0, cap = 0, r;

	while ((r = sqlite3_step(st)) == SQLITE_ROW) {
		if (count == cap) {
			cap = cap ? cap * 2 : 16;
			list = xrealloc(list, (size_t)cap * sizeof(*list));
		}
		job_from_row(st, &list[count++]);
	}
	*out = list;
	*n = count;
	if (r != SQLITE_DONE) {
		store_jobs_free(list, count);
		*out = NULL;
		*n = 0;
		return db_fail(s, e, "jobs");
	}
	return 0;
}

int store_jobs_list(struct store *s, const char *state, int limit, struct job_rec **out, int *n,
                    struct err *e)
{
	static const char sql[] = "SELECT " JOB_COLS " FROM jobs WHERE (?1 IS NULL OR state = ?1) "
	                          "ORDER BY id DESC LIMIT ?2";
	sqlite3_stmt *st = NULL;
	int rc;

	*out = NULL;
	*n = 0;
	pthread_mutex_lock(&s->lock);
	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK) {
		rc = db_fail(s, e, "jobs");
		goto out;
	}
	store_bind_text(st, 1, state);
	sqlite3_bind_int(st, 2, limit);
	rc = jobs_collect(s, st, out, n, e);
out:
	sqlite3_finalize(st);
	pthread_mutex_unlock(&s->lock);
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
	pthread_mutex_lock(&s->lock);
	if (sqlite3_prepare_v2(s->db, sql.data, -1, &st, NULL) != SQLITE_OK) {
		rc = db_fail(s, e, "results");
		goto out;
	}
	if (f->state)
		store_bind_text(st, k++, f->state);
	if (f->device)
		store_bind_text(st, k++, f->device);
	if (f->engine)
		store_bind_text(st, k++, f->engine);
	if (f->since > 0)
		sqlite3_bind_double(st, k++, f->since);
	if (f->before_id > 0)
		sqlite3_bind_int64(st, k++, f->before_id);
	for (i = 0; i < f->n_labels; i++) {
		store_bind_text(st, k++, f->labels[i].key);
		store_bind_text(st, k++, f->labels[i].value);
	}
	for (i = 0; i < f->n_params; i++) {
		store_bind_text(st, k++, f->params[i].key);
		store_bind_text(st, k++, f->params[i].value);
	}
	sqlite3_bind_int(st, k, f->limit);
	rc = jobs_collect(s, st, out, n, e);
out:
	sqlite3_finalize(st);
	pthread_mutex_unlock(&s->lock);
	buf_release(&sql);
	return rc;
}

int store_job_state_counts(struct store *s, const char *const *states, int n, int64_t *counts)
{
	sqlite3_stmt *st = NULL;
	int i, rc = 0;

	memset(counts, 0, sizeof(*counts) * (size_t)n);
	pthread_mutex_lock(&s->lock);
	if (sqlite3_prepare_v2(s->db, "SELECT state, COUNT(*) FROM jobs GROUP BY state", -1, &st,
	                       NULL) != SQLITE_OK) {
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
	sqlite3_finalize(st);
	pthread_mutex_unlock(&s->lock);
	return rc;
}
