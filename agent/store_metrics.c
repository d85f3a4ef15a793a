/* store_metrics.c -- aggregate queries for GET /metrics: writes by outcome, last job metrics. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "store_metrics.h"
#include "store_priv.h"
#include "xmalloc.h"
#include "banned.h"

static int query_fail(struct store *s, struct err *e, const char *what)
{
	return err_set(e, -EIO, "store_error", "database error reading %s: %s", what,
	               sqlite3_errmsg(s->db));
}

int store_change_outcome_counts(struct store *s, struct store_count **out, int *n, struct err *e)
{
	static const char sql[] =
	        "SELECT outcome, COUNT(*) FROM changes GROUP BY outcome ORDER BY outcome";
	struct store_count *list = NULL;
	sqlite3_stmt *st = NULL;
	int count = 0, cap = 0, rc = 0, r;

	pthread_mutex_lock(&s->lock);
	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK) {
		rc = query_fail(s, e, "change outcomes");
		goto out;
	}
	while ((r = sqlite3_step(st)) == SQLITE_ROW) {
		list = xgrow(list, &cap, count + 1, sizeof(*list));
		memset(&list[count], 0, sizeof(list[count]));
		store_col_text(st, 0, list[count].key, sizeof(list[count].key), NULL);
		list[count].n = sqlite3_column_int64(st, 1);
		count++;
	}
	if (r != SQLITE_DONE)
		rc = query_fail(s, e, "change outcomes");
out:
	sqlite3_finalize(st);
	pthread_mutex_unlock(&s->lock);
	if (rc) {
		free(list);
		list = NULL;
		count = 0;
	}
	*out = list;
	*n = count;
	return rc;
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
	struct store_job_metric *list = NULL;
	sqlite3_stmt *st = NULL;
	int count = 0, cap = 0, rc = 0, r;

	pthread_mutex_lock(&s->lock);
	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK) {
		rc = query_fail(s, e, "last job metrics");
		goto out;
	}
	while ((r = sqlite3_step(st)) == SQLITE_ROW) {
		struct store_job_metric *m;

		list = xgrow(list, &cap, count + 1, sizeof(*list));
		m = &list[count++];
		memset(m, 0, sizeof(*m));
		store_col_text(st, 0, m->device, sizeof(m->device), NULL);
		store_col_text(st, 1, m->engine, sizeof(m->engine), NULL);
		m->job_id = sqlite3_column_int64(st, 2);
		m->finished_at = sqlite3_column_double(st, 3);
		store_col_text(st, 4, m->metric, sizeof(m->metric), NULL);
		m->mean = sqlite3_column_double(st, 5);
	}
	if (r != SQLITE_DONE)
		rc = query_fail(s, e, "last job metrics");
out:
	sqlite3_finalize(st);
	pthread_mutex_unlock(&s->lock);
	if (rc) {
		free(list);
		list = NULL;
		count = 0;
	}
	*out = list;
	*n = count;
	return rc;
}
