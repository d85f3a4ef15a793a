/* store_job.c -- jobs, passes and the results history in the agent's SQLite. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "log.h"
#include "store/store_priv.h"
#include "wire/wire.h"
#include "xmalloc.h"
#include "banned.h"

#define JOB_COLS                                                                                   \
	"id, state, device, engine, spec, params, loops, loops_done, pgid, error_code, "           \
	"error_message, created_at, started_at, finished_at, params_changed, filesystem, "         \
	"identity, applied, begun_at, held_s"
/* The same columns with params NULL (not read). The filesystem record and the identity are
 * read: they are small beside the snapshot and ?fields= may ask for them without params. */
#define JOB_COLS_NO_PARAMS                                                                         \
	"id, state, device, engine, spec, NULL, loops, loops_done, pgid, error_code, "             \
	"error_message, created_at, started_at, finished_at, params_changed, filesystem, "         \
	"identity, applied, begun_at, held_s"

/* The spec column decoded; a row the codec cannot read keeps what its columns say. */
static void spec_from_row(struct sqlite3_stmt *st, struct job_rec *r)
{
	struct err e;

	err_clear(&e);
	r->spec_ok = wire_job_spec_decode(db_col_str(st, 4), &r->spec, &e) == 0;
	if (r->spec_ok)
		return;
	log_warn("job %lld: %s", (long long)r->id, e.msg);
	job_spec_init(&r->spec);
	snprintf(r->spec.device, sizeof(r->spec.device), "%s", r->device);
	r->spec.engine = engine_find(r->engine);
	r->spec.loops = r->loops;
}

static void job_row(struct sqlite3_stmt *st, void *elem)
{
	struct job_rec *r = elem;

	memset(r, 0, sizeof(*r));
	r->id = db_col_int64(st, 0);
	db_col_text(st, 1, r->state, sizeof(r->state), NULL);
	db_col_text(st, 2, r->device, sizeof(r->device), NULL);
	db_col_text(st, 3, r->engine, sizeof(r->engine), NULL);
	r->has_params = !db_col_null(st, 5) &&
	                wire_param_values_decode(db_col_str(st, 5), &r->params, &r->n_params) == 0;
	r->loops = db_col_int(st, 6);
	r->loops_done = db_col_int(st, 7);
	r->pgid = db_col_int64(st, 8);
	db_col_text(st, 9, r->error_code, sizeof(r->error_code), &r->has_error);
	db_col_text(st, 10, r->error_message, sizeof(r->error_message), NULL);
	r->created_at = db_col_double(st, 11);
	r->started_at = db_col_double(st, 12);
	r->finished_at = db_col_double(st, 13);
	db_col_text(st, 14, r->params_changed, sizeof(r->params_changed), &r->has_params_changed);
	if (!db_col_null(st, 15))
		r->filesystem = xstrdup(db_col_str(st, 15));
	if (!db_col_null(st, 16))
		r->identity = xstrdup(db_col_str(st, 16));
	if (!db_col_null(st, 17))
		r->applied = xstrdup(db_col_str(st, 17));
	r->begun_at = db_col_double(st, 18);
	r->held_s = db_col_double(st, 19);
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
	free(r->filesystem);
	r->filesystem = NULL;
	free(r->identity);
	r->identity = NULL;
	free(r->applied);
	r->applied = NULL;
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

	rc = store_tx_begin(s, e);
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
	rc = store_tx_end(s, rc, e);
	free(json);
	free(labels);
	return rc < 0 ? rc : 0;
}

int store_jobs_queued(struct store *s, struct job_rec **out, int *n, struct err *e)
{
	return store_rows(s, (void **)out, n, sizeof(**out), job_row, job_release_elem, e, "jobs",
	                  "SELECT " JOB_COLS " FROM jobs WHERE state = 'queued' ORDER BY id", NULL);
}

int store_job_start(struct store *s, int64_t id, double now, struct err *e)
{
	int rc;

	rc = store_write(s, e, "job start",
	                 "UPDATE jobs SET state = 'running', started_at = ? WHERE id = ? AND "
	                 "state = 'queued'",
	                 "dI", now, id);
	if (rc == 0)
		return err_set(e, -ENOENT, ERR_NOT_FOUND, "job %lld is not queued", (long long)id);
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
		return err_set(e, -ENOENT, ERR_NOT_FOUND, "no job %lld", (long long)id);
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

int store_job_set_params(struct store *s, int64_t id, const struct params *ps, const char *applied,
                         const struct device_identity *d, const struct host_identity *h,
                         struct err *e)
{
	char *json = wire_param_values_encode(ps),
	     *ident = d && h ? wire_identity_encode(d, h) : NULL;
	int i, rc;

	rc = store_tx_begin(s, e);
	if (rc == 0)
		rc = db_run(
		        s->db, e, "job params",
		        "UPDATE jobs SET params = ?, applied = ?, identity = COALESCE(?, identity) "
		        "WHERE id = ?",
		        "tttI", json, applied, ident, id);
	for (i = 0; rc >= 0 && i < ps->n; i++)
		rc = kv_insert(s, "job_params", id, ps->p[i].name, ps->p[i].value, e);
	rc = store_tx_end(s, rc, e);
	free(json);
	free(ident);
	return rc < 0 ? rc : 0;
}

int store_job_set_filesystem(struct store *s, int64_t id, const struct jobfs_made *m, struct err *e)
{
	char *json = wire_fs_made_encode(m);
	int rc = store_write(s, e, "job filesystem", "UPDATE jobs SET filesystem = ? WHERE id = ?",
	                     "tI", json, id);

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

int store_job_set_begun(struct store *s, int64_t id, int64_t pgid, double begun_at, double held_s)
{
	int rc;

	rc = store_write(s, NULL, "job begun",
	                 "UPDATE jobs SET pgid = ?, begun_at = ?, held_s = ? WHERE id = ?", "nddI",
	                 pgid, begun_at, held_s, id);
	return rc < 0 ? rc : 0;
}

int store_job_pass_add(struct store *s, int64_t id, int loop, double started_at, double finished_at,
                       const struct metrics *m, const struct pass_workload *wl, int n_wl,
                       const char *raw, size_t raw_len, struct err *e)
{
	char *json = wire_metrics_encode(m), *wj;
	int rc, i;

	rc = store_tx_begin(s, e);
	if (rc == 0)
		rc = db_run(s->db, e, "pass insert",
		            "INSERT OR REPLACE INTO passes(job_id, loop, started_at, finished_at, "
		            "metrics, raw) VALUES(?,?,?,?,?,?)",
		            "Iiddtb", id, loop, started_at, finished_at, json, raw, raw_len);
	for (i = 0; rc >= 0 && i < n_wl; i++) {
		wj = wire_metrics_encode(&wl[i].metrics);
		rc = db_run(
		        s->db, e, "pass workload insert",
		        "INSERT OR REPLACE INTO pass_workloads(job_id, loop, idx, name, metrics) "
		        "VALUES(?,?,?,?,?)",
		        "Iiitt", id, loop, i, wl[i].name, wj);
		free(wj);
	}
	if (rc >= 0)
		rc = db_run(s->db, e, "pass insert", "UPDATE jobs SET loops_done = ? WHERE id = ?",
		            "iI", loop, id);
	rc = store_tx_end(s, rc, e);
	free(json);
	return rc < 0 ? rc : 0;
}

int store_job_finish(struct store *s, int64_t id, enum job_state state, double finished_at,
                     const struct err *why, struct err *e)
{
	const char *code = why ? err_word(why) : NULL, *message = why ? why->msg : NULL;
	int rc;

	rc = store_write(s, e, "job finish",
	                 "UPDATE jobs SET state = ?, finished_at = ?, error_code = ?, "
	                 "error_message = ?, pgid = NULL WHERE id = ?",
	                 "tdttI", job_state_name(state), finished_at, code, message, id);
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
	int rc;

	memset(out, 0, sizeof(*out));
	rc = store_row(s, out, job_row, e, "job get", "SELECT " JOB_COLS " FROM jobs WHERE id = ?",
	               "I", id);
	if (rc == 0)
		return err_set(e, -ENOENT, ERR_NOT_FOUND, "no job %lld", (long long)id);
	return rc < 0 ? rc : 0;
}

static void pass_from_row(struct sqlite3_stmt *st, void *elem)
{
	struct pass_rec *p = elem;

	p->loop = db_col_int(st, 0);
	p->started_at = db_col_double(st, 1);
	p->finished_at = db_col_double(st, 2);
	wire_metrics_decode(db_col_str(st, 3), &p->metrics);
}

/* A row of pass_workloads: (loop, idx, name, metrics). */
struct wl_row {
	int loop, idx;
	struct pass_workload w;
};

static void wl_from_row(struct sqlite3_stmt *st, void *elem)
{
	struct wl_row *r = elem;

	r->loop = db_col_int(st, 0);
	r->idx = db_col_int(st, 1);
	db_col_text(st, 2, r->w.name, sizeof(r->w.name), NULL);
	wire_metrics_decode(db_col_str(st, 3), &r->w.metrics);
}

int store_job_passes(struct store *s, int64_t id, struct pass_rec **out, int *n, struct err *e)
{
	struct wl_row *wl = NULL;
	int rc, nwl = 0, i, p;

	rc = store_rows(s, (void **)out, n, sizeof(**out), pass_from_row, NULL, e, "passes",
	                "SELECT loop, started_at, finished_at, metrics FROM passes WHERE "
	                "job_id = ? ORDER BY loop",
	                "I", id);
	if (rc || *n == 0)
		return rc;
	rc = store_rows(s, (void **)&wl, &nwl, sizeof(*wl), wl_from_row, NULL, e, "pass workloads",
	                "SELECT loop, idx, name, metrics FROM pass_workloads WHERE job_id = ? "
	                "ORDER BY loop, idx",
	                "I", id);
	if (rc) {
		store_passes_free(*out, *n);
		*out = NULL;
		*n = 0;
		return rc;
	}
	/* Both lists are in loop order: each pass takes its run of rows. */
	for (p = 0, i = 0; p < *n && i < nwl; p++) {
		struct pass_rec *pr = &(*out)[p];
		int k;

		while (i < nwl && wl[i].loop < pr->loop)
			i++;
		for (k = i; k < nwl && wl[k].loop == pr->loop; k++)
			;
		if (k == i)
			continue;
		pr->workloads = xcalloc((size_t)(k - i), sizeof(*pr->workloads));
		for (; i < k; i++)
			pr->workloads[pr->n_workloads++] = wl[i].w;
	}
	free(wl);
	return 0;
}

void store_passes_free(struct pass_rec *p, int n)
{
	int i;

	for (i = 0; p && i < n; i++)
		free(p[i].workloads);
	free(p);
}

/* The pass's raw output as a heap string (NUL-terminated; it may hold other NULs). */
struct raw_out {
	char *data;
	size_t len;
};

static void raw_from_row(struct sqlite3_stmt *st, void *elem)
{
	struct raw_out *r = elem;
	size_t n;
	const void *b = db_col_blob(st, 0, &n);

	r->data = xmalloc(n + 1);
	if (n)
		memcpy(r->data, b, n);
	r->data[n] = '\0';
	r->len = n;
}

/* The params_changed column, "" when NULL. */
struct changed_out {
	char *why;
	size_t len;
};

static void changed_from_row(struct sqlite3_stmt *st, void *elem)
{
	struct changed_out *c = elem;
	const char *why = db_col_str(st, 0);

	snprintf(c->why, c->len, "%s", why ? why : "");
}

int store_job_params_changed(struct store *s, int64_t id, char *why, size_t len, struct err *e)
{
	struct changed_out c = { why, len };
	int rc;

	why[0] = '\0';
	rc = store_row(s, &c, changed_from_row, e, "job params changed",
	               "SELECT params_changed FROM jobs WHERE id = ?", "I", id);
	if (rc == 0)
		return err_set(e, -ENOENT, ERR_NOT_FOUND, "no job %lld", (long long)id);
	return rc < 0 ? rc : 0;
}

int store_job_raw(struct store *s, int64_t id, int loop, char **raw, size_t *len, struct err *e)
{
	struct raw_out r = { NULL, 0 };
	int rc;

	rc = store_row(s, &r, raw_from_row, e, "raw",
	               "SELECT raw FROM passes WHERE job_id = ? AND loop = ?", "Ii", id, loop);
	if (rc == 0)
		rc = err_set(e, -ENOENT, ERR_NOT_FOUND, "job %lld has no pass %d", (long long)id,
		             loop);
	*raw = r.data;
	*len = r.len;
	return rc < 0 ? rc : 0;
}

int store_jobs_list(struct store *s, const char *state, int limit, bool with_params,
                    struct job_rec **out, int *n, struct err *e)
{
	/* Without params: the column is not read or decoded (the snapshot is most of a row). */
	if (!with_params)
		return store_rows(s, (void **)out, n, sizeof(**out), job_row, job_release_elem, e,
		                  "jobs",
		                  "SELECT " JOB_COLS_NO_PARAMS " FROM jobs WHERE (?1 IS NULL OR "
		                  "state = ?1) ORDER BY id DESC LIMIT ?2",
		                  "ti", state, limit);
	return store_rows(s, (void **)out, n, sizeof(**out), job_row, job_release_elem, e, "jobs",
	                  "SELECT " JOB_COLS " FROM jobs WHERE (?1 IS NULL OR state = ?1) ORDER BY "
	                  "id DESC LIMIT ?2",
	                  "ti", state, limit);
}

int store_results(struct store *s, const struct result_filter *f, struct job_rec **out, int *n,
                  struct err *e)
{
	struct buf sql = BUF_INIT;
	struct sqlite3_stmt *st = NULL;
	int i, k = 1, rc, nfinal = 0;

	*out = NULL;
	*n = 0;
	buf_puts(&sql, "SELECT " JOB_COLS " FROM jobs WHERE finished_at IS NOT NULL");
	if (f->state) {
		buf_puts(&sql, " AND state = ?");
	} else {
		/* Any final state; the words are fixed (protocol.h), so they are spelled in. */
		buf_puts(&sql, " AND state IN (");
		for (i = 0; i < JOB_N_STATES; i++)
			if (job_state_final((enum job_state)i))
				buf_printf(&sql, "%s'%s'", nfinal++ ? "," : "", job_state_names[i]);
		buf_puts(&sql, ")");
	}
	if (f->device)
		buf_puts(&sql, " AND device = ?");
	if (f->engine)
		buf_puts(&sql, " AND engine = ?");
	if (f->since > 0)
		buf_puts(&sql, " AND finished_at >= ?");
	if (f->before_id > 0)
		buf_puts(&sql, " AND id < ?");
	if (f->workload)
		buf_puts(&sql, " AND EXISTS (SELECT 1 FROM pass_workloads w WHERE w.name = ? AND "
		               "w.job_id = jobs.id)");
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
	/* The binds in the order the clauses above were written. */
	if (f->state)
		k = db_bind(st, k, "t", f->state);
	if (f->device)
		k = db_bind(st, k, "t", f->device);
	if (f->engine)
		k = db_bind(st, k, "t", f->engine);
	if (f->since > 0)
		k = db_bind(st, k, "d", f->since);
	if (f->before_id > 0)
		k = db_bind(st, k, "I", f->before_id);
	if (f->workload)
		k = db_bind(st, k, "t", f->workload);
	for (i = 0; i < f->n_labels; i++)
		k = db_bind(st, k, "tt", f->labels[i].key, f->labels[i].value);
	for (i = 0; i < f->n_params; i++)
		k = db_bind(st, k, "tt", f->params[i].key, f->params[i].value);
	if (db_bind(st, k, "i", f->limit) < 0) {
		rc = db_fail(s->db, e, "results");
		goto out;
	}
	rc = db_collect(s->db, st, sizeof(**out), job_row, job_release_elem, (void **)out, n, e,
	                "results");
	st = NULL; /* finalized by db_collect */
out:
	db_finalize(st);
	db_unlock(s->db);
	buf_release(&sql);
	return rc;
}

struct state_counts {
	const char *const *states;
	int n;
	int64_t *counts;
};

/* One (state, count) row into the count of that state, if it is one of those asked for. */
static int state_count_row(struct sqlite3_stmt *st, void *ctx, struct err *e)
{
	struct state_counts *c = ctx;
	const char *state = db_col_str(st, 0);
	int i;

	(void)e;
	for (i = 0; i < c->n; i++)
		if (!strcmp(c->states[i], state))
			c->counts[i] = db_col_int64(st, 1);
	return 0;
}

int store_job_state_counts(struct store *s, const char *const *states, int n, int64_t *counts)
{
	struct state_counts c = { states, n, counts };
	int rc;

	memset(counts, 0, sizeof(*counts) * (size_t)n);
	db_lock(s->db);
	/* Counted again only after a write (gen): /metrics does not scan an unchanged history. */
	if (s->states_gen == s->gen + 1 && s->n_states == n) {
		memcpy(counts, s->states, sizeof(*counts) * (size_t)n);
		db_unlock(s->db);
		return 0;
	}
	rc = db_each(s->db,
	             db_prepare(s->db, "SELECT state, COUNT(*) FROM jobs GROUP BY state", NULL),
	             state_count_row, &c, NULL, "job states");
	if (rc >= 0) {
		free(s->states);
		s->states = xcalloc((size_t)n + 1, sizeof(*s->states));
		memcpy(s->states, counts, sizeof(*counts) * (size_t)n);
		s->n_states = n;
		s->states_gen = s->gen + 1;
	}
	db_unlock(s->db);
	return rc < 0 ? rc : 0;
}
