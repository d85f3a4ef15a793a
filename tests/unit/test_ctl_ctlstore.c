/* test_ctl_ctlstore.c -- the controller's SQLite: a sweep saved and loaded back exactly,
 * history summaries, and databases made by every earlier schema version migrated with their
 * data. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctltest.h"
#include "db.h"
#include "judge/verdict.h"
#include "model/sweep.h"
#include "plan/plan.h"
#include "render/report.h"
#include "run/strategy.h"
#include "store/ctlstore.h"
#include "testutil.h"
#include "xmalloc.h"

static void test_store_roundtrip(void **state)
{
	char *dir = tu_tmpdir(), *db;
	struct ctlstore *st = NULL;
	struct ctlstore_summary *h = NULL;
	struct sweep s, l;
	struct err e = { 0 };
	struct buf a = BUF_INIT, b = BUF_INIT;
	struct strategy_batch batch = { 0 };
	struct config applied = { 0 };
	int n;

	(void)state;
	db = malloc(strlen(dir) + 32);
	snprintf(db, strlen(dir) + 32, "%s/sub/ctl.db", dir);
	assert_int_equal(ctlstore_open(db, &st, &e), 0);
	ctltest_sweep(&s, "grid", "");
	strategy_next(&s, &batch);
	for (int i = 0; i < s.npoints; i++)
		ctltest_fill(&s, i, 100 + i);
	s.points[2].nodes[1].state = NODE_FAILED;
	s.points[2].nodes[1].npasses = 1;
	node_result_error_set(&s.points[2].nodes[1], "job 3 failed");
	config_set(&applied, "nr_requests", "60", true);
	node_result_applied_set(&s.points[1].nodes[0], &applied);
	s.points[1].nodes[0].adjusted_mask = 1;
	s.points[1].nodes[0].job_id = 42;
	s.node_dropped[1] = true;
	/* Race decisions (adaptive) are history: stored as made, not recomputed. */
	s.points[1].race =
	        (struct race_mark){ RACE_DROPPED, RACE_WHY_WORSE, 1, 3, 2, -27.8, -30.1, -25.4 };
	s.points[2].race = (struct race_mark){ RACE_WON, RACE_WHY_LAST, 2, 4, 0, 12.5, NAN, NAN };
	s.points[4].race =
	        (struct race_mark){ RACE_TENTATIVE, RACE_WHY_NOT_BETTER, 1, 3, 0, 6.1, -1.2, 13.4 };
	/* What the nodes are (pre-flight) is kept: the cohorts are grouped from it again. */
	sweep_identity_set(&s, 0, IDF_MODEL, "ST300MM0008");
	sweep_identity_set(&s, 0, IDF_ROTATIONAL, "true");
	sweep_identity_set(&s, 1, IDF_MODEL, "ST300MM0009");
	sweep_identity_set(&s, 1, IDF_KERNEL, "6.1.0-18-amd64");
	assert_int_equal(ctlstore_sweep_create(st, &s, &e), 0);
	assert_true(s.id > 0);
	assert_int_equal(ctlstore_point_save(st, &s, 0, &e), 0);
	snprintf(s.status, sizeof(s.status), "aborted");
	s.finished_at = s.created_at + 10;
	verdict_sweep(&s);
	assert_int_equal(ctlstore_sweep_finish(st, &s, &e), 0);
	assert_int_equal(ctlstore_sweep_load(st, s.id, &l, &e), 0);
	verdict_sweep(&l);
	assert_int_equal(l.npoints, s.npoints);
	assert_string_equal(l.status, "aborted");
	assert_true(l.node_dropped[1]);
	assert_int_equal(l.points[2].nodes[1].state, NODE_FAILED);
	assert_string_equal(l.points[2].nodes[1].error, "job 3 failed");
	assert_int_equal(l.points[1].nodes[0].job_id, 42);
	assert_string_equal(config_get(l.points[1].nodes[0].applied, "nr_requests")->value, "60");
	assert_int_equal(l.points[1].loops_run, 3);
	assert_int_equal(l.points[2].nodes[1].npasses, 1);
	assert_int_equal(l.points[1].race.state, RACE_DROPPED);
	assert_int_equal(l.points[1].race.why, RACE_WHY_WORSE);
	assert_int_equal(l.points[1].race.round, 1);
	assert_int_equal(l.points[1].race.loops, 3);
	assert_int_equal(l.points[1].race.vs, 2);
	assert_true(l.points[1].race.low_pct == -30.1 && l.points[1].race.high_pct == -25.4);
	assert_int_equal(l.points[2].race.why, RACE_WHY_LAST);
	assert_true(isnan(l.points[2].race.low_pct));
	assert_int_equal(l.points[3].race.state, RACE_NONE);
	assert_int_equal(l.points[3].race.vs, -1);
	assert_int_equal(l.points[4].race.state, RACE_TENTATIVE);
	assert_int_equal(l.points[4].race.why, RACE_WHY_NOT_BETTER);
	assert_string_equal(l.identity[0].field[IDF_MODEL], "ST300MM0008");
	assert_string_equal(l.identity[0].field[IDF_ROTATIONAL], "true");
	assert_null(l.identity[0].field[IDF_FIRMWARE]);
	assert_string_equal(l.identity[1].field[IDF_KERNEL], "6.1.0-18-amd64");
	assert_int_equal(l.ncohorts, 2);
	/* The stored sweep renders exactly like the live one. */
	report_render(&s, REPORT_JSON, &a);
	report_render(&l, REPORT_JSON, &b);
	assert_string_equal(a.data, b.data);
	sweep_release(&l);
	assert_int_equal(ctlstore_history(st, 10, &h, &n, &e), 0);
	assert_int_equal(n, 1);
	assert_int_equal(h[0].npoints, s.npoints);
	assert_string_equal(h[0].status, "aborted");
	assert_int_not_equal(ctlstore_sweep_load(st, 999, &l, &e), 0);
	assert_string_equal(e.msg, "no sweep 999");
	free(h);
	buf_release(&a);
	buf_release(&b);
	strategy_batch_release(&batch);
	sweep_release(&s);
	ctlstore_close(st);
	/* Reopening runs no migration twice. */
	assert_int_equal(ctlstore_open(db, &st, &e), 0);
	ctlstore_close(st);
	tu_rmrf(dir);
	free(dir);
	free(db);
}

static char *db_temp(char **dir)
{
	*dir = tu_tmpdir();
	return xasprintf("%s/ctl.db", *dir);
}

/* Store sweep s as finished and return the history's summary of it. */
static void finish_and_summarise(struct ctlstore *st, struct sweep *s, struct ctlstore_summary *out)
{
	struct ctlstore_summary *h = NULL;
	struct err e = { 0 };
	int n;

	assert_int_equal(ctlstore_sweep_create(st, s, &e), 0);
	snprintf(s->status, sizeof(s->status), "completed");
	verdict_sweep(s);
	assert_int_equal(ctlstore_sweep_finish(st, s, &e), 0);
	assert_int_equal(ctlstore_history(st, 1, &h, &n, &e), 0);
	assert_int_equal(n, 1);
	assert_int_equal(h[0].id, s->id);
	*out = h[0];
	free(h);
}

static void test_history_outcomes(void **state)
{
	char *dir, *db = db_temp(&dir);
	struct strategy_batch b = { 0 };
	struct ctlstore_summary h;
	struct ctlstore *st = NULL;
	struct buf out = BUF_INIT;
	struct err e = { 0 };
	struct sweep s;
	int i;

	(void)state;
	assert_int_equal(ctlstore_open(db, &st, &e), 0);
	/* A best point: the store keeps its data, the report words it. */
	ctltest_sweep(&s, "grid", "");
	strategy_next(&s, &b);
	for (i = 0; i < s.npoints; i++)
		ctltest_fill(&s, i, i == 3 ? 120 : 100);
	finish_and_summarise(st, &s, &h);
	assert_int_equal(h.outcome, OUTCOME_BEST);
	/* The decision as stored is the decision as computed, field by field. */
	assert_true(h.has_decision);
	assert_true(decision_equal(&h.decision, &s.decision));
	assert_int_equal(h.decision.state, DECISION_CONFIRMED);
	assert_int_equal(h.decision.basis, DECISION_BASIS_GRID_ROW);
	assert_int_equal(h.decision.point, 3);
	assert_true(config_equal(&h.decision.cfg, &s.points[3].cfg));
	assert_float_equal(h.decision.delta_pct, s.points[3].delta_pct, 1e-9);
	assert_int_equal(h.decision.verdict, EFFECT_GAIN);
	report_history(&h, 1, &out);
	assert_non_null(strstr(out.data, "best: scheduler=none nr_requests=64  +20.0 % "
	                                 "(significant gain on both nodes)\n"));
	buf_reset(&out);
	sweep_release(&s);
	/* The baseline failed everywhere: no best, and the history says why. */
	ctltest_sweep(&s, "grid", "");
	strategy_next(&s, &b);
	for (i = 1; i < s.npoints; i++)
		ctltest_fill(&s, i, 100);
	for (i = 0; i < s.plan.nnodes; i++)
		s.points[0].nodes[i].state = NODE_FAILED;
	finish_and_summarise(st, &s, &h);
	assert_int_equal(h.outcome, OUTCOME_BASELINE_FAILED);
	assert_int_equal(h.decision.state, DECISION_NONE);
	assert_int_equal(h.decision.why, DECISION_WHY_BASELINE_FAILED);
	report_history(&h, 1, &out);
	assert_non_null(strstr(out.data, "no best: the baseline failed on every node\n"));
	buf_release(&out);
	strategy_batch_release(&b);
	sweep_release(&s);
	ctlstore_close(st);
	tu_rmrf(dir);
	free(dir);
	free(db);
}

extern const char ctlstore_schema_sql[];

/* The controller's schema as it stood at version v: its migration blocks 1..v. Caller frees. */
static char *schema_at(int v)
{
	char mark[32];
	const char *end;

	snprintf(mark, sizeof(mark), "-- migration %d\n", v + 1);
	end = strstr(ctlstore_schema_sql, mark);
	return end ? xstrndup(ctlstore_schema_sql, (size_t)(end - ctlstore_schema_sql))
	           : xstrdup(ctlstore_schema_sql);
}

/* Open path with the schema as it stood at version v (creating it at v, or leaving a newer
 * file as it is) and return its user_version after sql (NULL: none) has run. */
static int at_version(const char *path, int v, const char *sql)
{
	struct db_kind kind = { .err_code = ERR_DB_ERROR, .holds = "the test sweeps" };
	struct err e = { 0 };
	struct db *d;
	int have;

	kind.schema = schema_at(v);
	assert_int_equal(db_open(&d, path, &kind, &e), 0);
	if (sql)
		assert_int_equal(db_exec(d, sql, &e), 0);
	have = db_user_version(d);
	db_close(d);
	free((char *)kind.schema);
	return have;
}

/* A two-node, one-point sweep as the first schema stored it: a worded best line, no loops. */
static const char v1_rows[] =
        "INSERT INTO sweeps(id, name, plan_json, strategy, metric, status, created_at, "
        "best_line) VALUES (1, 't', '{\"name\":\"t\",\"nodes\":[{\"name\":\"a\",\"url\":"
        "\"http://h:1\",\"device\":\"sda\"},{\"name\":\"b\",\"url\":\"http://h:2\",\"device\":"
        "\"sdb\"}],\"baseline\":{\"scheduler\":\"mq-deadline\",\"nr_requests\":128},\"axes\":"
        "[{\"param\":\"nr_requests\",\"values\":[64]}],\"strategy\":\"grid\",\"job\":{\"fio\":"
        "{\"rw\":\"write\"},\"loops\":3}}', 'grid', 'write.bw_mib', 'completed', 1, 'best: the "
        "baseline (no configuration gave a significant gain)');"
        "INSERT INTO points(sweep_id, idx, role, config_json, verdict) VALUES (1, 0, "
        "'baseline', '{\"scheduler\":\"mq-deadline\",\"nr_requests\":128}', NULL);"
        "INSERT INTO point_nodes(sweep_id, idx, node_idx, node, state, applied_json) VALUES "
        "(1, 0, 0, 'a', 'ok', '{}'), (1, 0, 1, 'b', 'ok', '{}');"
        "INSERT INTO passes(sweep_id, idx, node_idx, loop, value) VALUES (1, 0, 0, 1, 10.5), "
        "(1, 0, 1, 1, 11.5);";

/* A database written at each earlier schema version (1 to the one before the newest) migrates
 * on open, one block at a time, and its rows load: the worded best line of the first schema is
 * shown, points without loops get the plan's, and the migrated file takes new points. */
static void test_schema_upgrade(void **state)
{
	/* The newest version: every block of the schema applied to an empty database. */
	int newest = at_version(":memory:", 1000, NULL), v;

	(void)state;
	assert_true(newest >= 5);
	for (v = 1; v < newest; v++) {
		char *dir, *db = db_temp(&dir);
		struct ctlstore_summary *h = NULL;
		struct ctlstore *st = NULL;
		struct err e = { 0 };
		struct sweep l;
		int n;

		assert_int_equal(at_version(db, v, v1_rows), v);
		if (v >= 4) /* a race decision of the adaptive strategy, stored by version 4 */
			at_version(
			        db, v,
			        "INSERT INTO point_races(sweep_id, idx, state, why, round, loops, "
			        "vs, delta_pct) VALUES (1, 0, 'won', 'last', 2, 4, NULL, 12.5);");
		assert_int_equal(ctlstore_open(db, &st, &e), 0);
		assert_int_equal(at_version(db, v, NULL), newest);
		assert_int_equal(ctlstore_history(st, 5, &h, &n, &e), 0);
		assert_int_equal(n, 1);
		assert_int_equal(h[0].outcome, OUTCOME_PENDING);
		assert_string_equal(
		        h[0].legacy_best_line,
		        "best: the baseline (no configuration gave a significant gain)");
		assert_int_equal(h[0].owner_pid, 0);
		assert_true(h[0].saved_at == 0);
		free(h);
		assert_int_equal(ctlstore_sweep_load(st, 1, &l, &e), 0);
		assert_int_equal(l.npoints, 1);
		assert_int_equal(l.points[0].loops_run, 3);
		assert_int_equal(l.points[0].nodes[1].npasses, 1);
		assert_float_equal(l.points[0].nodes[1].passes[0], 11.5, 0);
		assert_int_equal(l.points[0].race.state, v >= 4 ? RACE_WON : RACE_NONE);
		if (v >= 4) {
			assert_int_equal(l.points[0].race.vs, -1);
			assert_float_equal(l.points[0].race.delta_pct, 12.5, 0);
			assert_true(isnan(l.points[0].race.low_pct));
		}
		/* The migrated file takes what this version writes. */
		assert_int_equal(ctlstore_point_save(st, &l, 0, &e), 0);
		assert_int_equal(ctlstore_history(st, 5, &h, &n, &e), 0);
		assert_true(h[0].saved_at > 0);
		free(h);
		sweep_release(&l);
		ctlstore_close(st);
		tu_rmrf(dir);
		free(dir);
		free(db);
	}
}

/* A migration that fails leaves the file at the version before it and refuses the open. */
static void test_migration_fails_whole(void **state)
{
	char *dir, *db = db_temp(&dir);
	struct ctlstore *st = NULL;
	struct err e = { 0 };

	(void)state;
	/* Version 4 with a column that migration 5 adds: its ALTER TABLE fails. */
	assert_int_equal(at_version(db, 4, "ALTER TABLE sweeps ADD COLUMN saved_at REAL;"), 4);
	assert_int_equal(ctlstore_open(db, &st, &e), -EIO);
	assert_null(st);
	assert_int_equal(e.code, ERR_DB_ERROR);
	assert_non_null(strstr(e.msg, "cannot migrate database"));
	assert_non_null(strstr(e.msg, "to version 5"));
	assert_non_null(strstr(e.msg, "duplicate column name: saved_at"));
	/* Nothing of block 5 stayed: owner_pid, added before the failing line, is not there. */
	assert_int_equal(at_version(db, 4, NULL), 4);
	err_clear(&e);
	{
		struct db_kind k = { .schema = "", .err_code = ERR_DB_ERROR, .holds = "x" };
		struct db *d;

		assert_int_equal(db_open(&d, db, &k, &e), 0);
		assert_int_equal(db_exec(d, "SELECT owner_pid FROM sweeps", &e), -EIO);
		assert_non_null(strstr(e.msg, "no such column: owner_pid"));
		db_close(d);
	}
	tu_rmrf(dir);
	free(dir);
	free(db);
}

/* A file that is no database is refused with the helper's message, naming the file, what to do
 * and what is lost; the controller's errors carry db_error. */
static void test_not_a_database(void **state)
{
	char *dir, *db = db_temp(&dir);
	struct ctlstore *st = (struct ctlstore *)1;
	struct err e = { 0 };

	(void)state;
	tu_write(dir, "ctl.db",
	         "not an SQLite file, but long enough for SQLite to read its header and refuse "
	         "it.\n",
	         0600);
	assert_int_equal(ctlstore_open(db, &st, &e), -EUCLEAN);
	assert_null(st);
	assert_int_equal(e.code, ERR_DB_ERROR);
	assert_non_null(strstr(e.msg, db));
	assert_non_null(strstr(e.msg, "move it aside"));
	assert_non_null(strstr(e.msg, "the sweeps and rollouts it holds are lost"));
	tu_rmrf(dir);
	free(dir);
	free(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_store_roundtrip),
		cmocka_unit_test(test_history_outcomes),
		cmocka_unit_test(test_schema_upgrade),
		cmocka_unit_test(test_migration_fails_whole),
		cmocka_unit_test(test_not_a_database),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
