/* store_metrics.c -- aggregate queries for GET /metrics: writes by outcome, last job metrics. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "store_metrics.h"
#include "store_priv.h"
#include "xmalloc.h"
#include "banned.h"

static void count_from_row(struct sqlite3_stmt *st, void *elem)
{
	struct store_count *c = elem;

	db_col_text(st, 0, c->key, sizeof(c->key), NULL);
	c->n = db_col_int64(st, 1);
}

int store_change_outcome_counts(struct store *s, struct store_count **out, int *n, struct err *e)
{
	return store_rows(
	        s, (void **)out, n, sizeof(**out), count_from_row, NULL, e, "change outcomes",
	        "SELECT outcome, COUNT(*) FROM changes GROUP BY outcome ORDER BY outcome", NULL);
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
	return store_rows(s, (void **)out, n, sizeof(**out), job_metric_from_row, NULL, e,
	                  "last job metrics", sql, NULL);
}
