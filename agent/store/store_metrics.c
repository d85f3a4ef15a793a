/* store_metrics.c -- aggregate queries for GET /metrics: writes by outcome, last job metrics. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "store/store_metrics.h"
#include "store/store_priv.h"
#include "xmalloc.h"
#include "banned.h"

static void count_from_row(struct sqlite3_stmt *st, void *elem)
{
	struct store_count *c = elem;

	db_col_text(st, 0, c->key, sizeof(c->key), NULL);
	c->n = db_col_int64(st, 1);
}

static int count_cmp(const void *a, const void *b)
{
	return strcmp(((const struct store_count *)a)->key, ((const struct store_count *)b)->key);
}

int store_change_outcome_counts(struct store *s, struct store_count **out, int *n, struct err *e)
{
	struct store_count *rows = NULL;
	int k = 0, rc = 0;

	db_lock(s->db);
	if (!s->outcomes_known) {
		/* Once (and after an odd table): then kept by the writes (store.c). */
		rc = db_collect(s->db,
		                db_prepare(s->db,
		                           "SELECT outcome, COUNT(*) FROM changes GROUP BY outcome",
		                           NULL),
		                sizeof(*rows), count_from_row, NULL, (void **)&rows, &k, e,
		                "change outcomes");
		if (rc >= 0 && k <= STORE_OUTCOMES_MAX) {
			if (k)
				memcpy(s->outcomes, rows, (size_t)k * sizeof(*rows));
			s->n_outcomes = k;
			s->outcomes_known = true;
		}
		free(rows);
	}
	if (rc >= 0) {
		*out = xcalloc((size_t)s->n_outcomes + 1, sizeof(**out));
		memcpy(*out, s->outcomes, (size_t)s->n_outcomes * sizeof(**out));
		*n = s->n_outcomes;
		qsort(*out, (size_t)*n, sizeof(**out), count_cmp);
	}
	db_unlock(s->db);
	return rc < 0 ? rc : 0;
}

static void job_metric_from_row(struct sqlite3_stmt *st, void *elem)
{
	struct store_job_metric *m = elem;

	db_col_text(st, 0, m->device, sizeof(m->device), NULL);
	db_col_text(st, 1, m->engine, sizeof(m->engine), NULL);
	m->job_id = db_col_int64(st, 2);
	m->finished_at = db_col_double(st, 3);
	db_col_text(st, 4, m->metric, sizeof(m->metric), NULL);
	m->mean = db_col_double(st, 5);
}

int store_last_job_metrics(struct store *s, struct store_job_metric **out, int *n, struct err *e)
{
	/* The newest finished job per device that has passes; ties go to the higher id. */
	static const char sql[] =
	        "SELECT j.device, j.engine, j.id, j.finished_at, m.key, AVG(m.value) "
	        "FROM jobs j JOIN passes p ON p.job_id = j.id, json_each(p.metrics) m "
	        "WHERE j.id IN (SELECT (SELECT j2.id FROM jobs j2 WHERE j2.device = d.device "
	        "  AND j2.finished_at IS NOT NULL AND j2.loops_done > 0 "
	        "  ORDER BY j2.finished_at DESC, j2.id DESC LIMIT 1) "
	        "  FROM (SELECT DISTINCT device FROM jobs) d) "
	        "AND json_valid(p.metrics) AND m.type IN ('integer', 'real') "
	        "GROUP BY j.id, m.key ORDER BY j.device, m.key";
	int rc = 0;

	/* Recomputed only after a write (gen): a scrape of an idle agent costs nothing more
	 * with a longer history. */
	db_lock(s->db);
	if (s->last_gen != s->gen + 1) {
		struct store_job_metric *rows = NULL;
		int k = 0;

		rc = db_collect(s->db, db_prepare(s->db, sql, NULL), sizeof(*rows),
		                job_metric_from_row, NULL, (void **)&rows, &k, e,
		                "last job metrics");
		if (rc >= 0) {
			free(s->last);
			s->last = rows;
			s->n_last = k;
			s->last_gen = s->gen + 1;
		}
	}
	if (rc >= 0) {
		*out = xcalloc((size_t)s->n_last + 1, sizeof(**out));
		if (s->n_last)
			memcpy(*out, s->last, (size_t)s->n_last * sizeof(**out));
		*n = s->n_last;
	}
	db_unlock(s->db);
	return rc < 0 ? rc : 0;
}
