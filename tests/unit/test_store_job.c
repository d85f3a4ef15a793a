/* test_store_job.c -- store_job.c against a temp database: a job's life in its row (queued,
 * running, its parameter snapshot, passes and raw output, its end), cancel while queued,
 * restore points (rebased and kept per device), the params_changed mark, the results
 * history's filters and paging, the per-state counts, and a row whose spec cannot be read. */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "storetest.h"
#include "wire/wire.h"

/* Insert a queued job decoded from body at created_at; returns its id. */
static int64_t insert(struct store_fx *f, const char *body, double created_at)
{
	json_t *j = json_loads(body, 0, NULL);
	struct job_spec spec;
	int64_t id = 0;
	struct err e;

	assert_non_null(j);
	err_clear(&e);
	if (wire_job_spec_from_json(j, &spec, &e))
		fail_msg("%s: %s", body, e.msg);
	json_decref(j);
	assert_int_equal(store_job_insert(f->s, &spec, created_at, &id, &e), 0);
	job_spec_release(&spec);
	assert_true(id > 0);
	return id;
}

static void get(struct store_fx *f, int64_t id, struct job_rec *r)
{
	struct err e;

	err_clear(&e);
	if (store_job_get(f->s, id, r, &e))
		fail_msg("job %lld: %s", (long long)id, e.msg);
}

/* A device's parameters as sysfs reads them: an integer, a scheduler, an enum, a text. */
static void params_fill(struct params *ps, struct param *p)
{
	static const struct {
		const char *name, *value;
		enum param_kind kind;
	} t[4] = {
		{ "nr_requests", "64", PARAM_INT },
		{ "scheduler", "mq-deadline", PARAM_SCHED },
		{ "rq_affinity", "1", PARAM_ENUM },
		{ "write_cache", "write back", PARAM_TEXT },
	};
	int i;

	memset(p, 0, 4 * sizeof(*p));
	for (i = 0; i < 4; i++) {
		snprintf(p[i].name, sizeof(p[i].name), "%s", t[i].name);
		snprintf(p[i].value, sizeof(p[i].value), "%s", t[i].value);
		p[i].kind = t[i].kind;
	}
	ps->n = 4;
	ps->p = p;
}

static const struct store_value *value(const struct job_rec *r, const char *name)
{
	int i;

	for (i = 0; i < r->n_params; i++)
		if (!strcmp(r->params[i].name, name))
			return &r->params[i];
	return NULL;
}

static void test_life(void **state)
{
	struct store_fx *f = *state;
	static const char raw1[] = "{\"fio\":1}\0tail";
	struct param pa[4];
	struct params ps;
	struct pass_rec *passes;
	struct job_rec r, *q;
	struct metrics m = { 0 };
	const struct store_value *v;
	char *raw;
	size_t len;
	int64_t id, id2;
	struct err e, why;
	int n;

	id = insert(f,
	            "{\"device\":\"loop0\",\"engine\":\"fio\",\"loops\":2,"
	            "\"fio\":{\"rw\":\"randread\",\"bs\":\"4k\"},\"labels\":{\"run\":\"a\"}}",
	            100);
	id2 = insert(f, "{\"device\":\"loop1\",\"engine\":\"dd\",\"dd\":{\"count\":1}}", 101);
	get(f, id, &r);
	assert_string_equal(r.state, "queued");
	assert_string_equal(r.device, "loop0");
	assert_string_equal(r.engine, "fio");
	assert_int_equal(r.loops, 2);
	assert_int_equal(r.loops_done, 0);
	assert_true(r.spec_ok);
	assert_string_equal(r.spec.opts.fio.rw, "randread");
	assert_int_equal(r.spec.opts.fio.bs, 4096);
	assert_string_equal(r.spec.labels[0].key, "run");
	assert_false(r.has_params);
	assert_false(r.has_error);
	assert_true(r.created_at == 100 && r.started_at == 0 && r.finished_at == 0);
	store_job_rec_release(&r);
	/* The queue a restart takes up, oldest first. */
	err_clear(&e);
	assert_int_equal(store_jobs_queued(f->s, &q, &n, &e), 0);
	assert_int_equal(n, 2);
	assert_int_equal(q[0].id, id);
	assert_int_equal(q[1].id, id2);
	store_jobs_free(q, n);

	/* queued -> running, once. */
	assert_int_equal(store_job_start(f->s, id, 110, &e), 0);
	assert_int_equal(store_job_start(f->s, id, 111, &e), -ENOENT);
	assert_int_equal(e.code, ERR_NOT_FOUND);
	assert_int_equal(store_job_start(f->s, 999, 111, &e), -ENOENT);
	params_fill(&ps, pa);
	assert_int_equal(store_job_set_params(f->s, id, &ps, NULL, NULL, NULL, &e), 0);
	assert_int_equal(store_job_set_pgid(f->s, id, 4242), 0);
	get(f, id, &r);
	assert_string_equal(r.state, "running");
	assert_true(r.started_at == 110);
	assert_int_equal(r.pgid, 4242);
	assert_true(r.has_params);
	assert_int_equal(r.n_params, 4);
	v = value(&r, "nr_requests");
	assert_true(v && v->number && !strcmp(v->value, "64"));
	v = value(&r, "scheduler");
	assert_true(v && !v->number && !strcmp(v->value, "mq-deadline"));
	v = value(&r, "rq_affinity"); /* an enum of integers is a number, as GET params has it */
	assert_true(v && v->number && !strcmp(v->value, "1"));
	v = value(&r, "write_cache");
	assert_true(v && !v->number && !strcmp(v->value, "write back"));
	store_job_rec_release(&r);

	/* Passes: metrics, times and the raw output byte for byte (NULs too). */
	metrics_set(&m, "read.bw_mib", 512.25);
	metrics_set(&m, "read.iops", 131136);
	assert_int_equal(store_job_pass_add(f->s, id, 1, 111, 112.5, &m, NULL, 0, raw1,
	                                    sizeof(raw1) - 1, &e),
	                 0);
	metrics_set(&m, "read.bw_mib", 498.5);
	assert_int_equal(store_job_pass_add(f->s, id, 2, 113, 114, &m, NULL, 0, "", 0, &e), 0);
	get(f, id, &r);
	assert_int_equal(r.loops_done, 2);
	store_job_rec_release(&r);
	assert_int_equal(store_job_passes(f->s, id, &passes, &n, &e), 0);
	assert_int_equal(n, 2);
	assert_int_equal(passes[0].loop, 1);
	assert_true(passes[0].started_at == 111 && passes[0].finished_at == 112.5);
	assert_true(metrics_get(&passes[0].metrics, "read.bw_mib")->value == 512.25);
	assert_true(metrics_get(&passes[1].metrics, "read.bw_mib")->value == 498.5);
	assert_true(metrics_get(&passes[1].metrics, "read.iops")->value == 131136);
	free(passes);
	assert_int_equal(store_job_raw(f->s, id, 1, &raw, &len, &e), 0);
	assert_int_equal(len, sizeof(raw1) - 1);
	assert_memory_equal(raw, raw1, len);
	free(raw);
	assert_int_equal(store_job_raw(f->s, id, 2, &raw, &len, &e), 0);
	assert_int_equal(len, 0);
	assert_string_equal(raw, "");
	free(raw);
	assert_int_equal(store_job_raw(f->s, id, 3, &raw, &len, &e), -ENOENT);
	assert_string_equal(e.msg, "job 1 has no pass 3");
	free(raw);
	assert_int_equal(store_job_passes(f->s, id2, &passes, &n, &e), 0);
	assert_int_equal(n, 0);
	free(passes);

	/* The end: the state's word, no error for a success, the process group cleared. */
	assert_int_equal(store_job_finish(f->s, id, JOB_SUCCEEDED, 120, NULL, &e), 0);
	get(f, id, &r);
	assert_string_equal(r.state, "succeeded");
	assert_true(r.finished_at == 120);
	assert_false(r.has_error);
	assert_int_equal(r.pgid, 0);
	store_job_rec_release(&r);
	assert_int_equal(store_job_start(f->s, id2, 121, &e), 0);
	err_set(&why, -EIO, ERR_ENGINE_FAILED, "dd exited with status 1");
	assert_int_equal(store_job_finish(f->s, id2, JOB_FAILED, 122, &why, &e), 0);
	get(f, id2, &r);
	assert_string_equal(r.state, "failed");
	assert_true(r.has_error);
	assert_string_equal(r.error_code, "engine_failed");
	assert_string_equal(r.error_message, "dd exited with status 1");
	store_job_rec_release(&r);
	assert_int_equal(store_job_get(f->s, 999, &r, &e), -ENOENT);
	assert_string_equal(e.msg, "no job 999");
}

static void test_cancel_queued(void **state)
{
	struct store_fx *f = *state;
	int64_t queued, running;
	struct job_rec r;
	struct err e;

	queued = insert(f, "{\"device\":\"loop0\",\"engine\":\"fio\"}", 100);
	running = insert(f, "{\"device\":\"loop0\",\"engine\":\"fio\"}", 101);
	err_clear(&e);
	assert_int_equal(store_job_start(f->s, running, 102, &e), 0);
	assert_int_equal(store_job_cancel_queued(f->s, queued, 103, &e), 0);
	get(f, queued, &r);
	assert_string_equal(r.state, "cancelled");
	assert_true(r.finished_at == 103);
	assert_string_equal(r.error_code, "cancelled");
	assert_string_equal(r.error_message, "cancelled while queued");
	store_job_rec_release(&r);
	/* Only a queued job: a running or an ended one is -EBUSY and unchanged. */
	assert_int_equal(store_job_cancel_queued(f->s, running, 104, &e), -EBUSY);
	assert_int_equal(store_job_cancel_queued(f->s, queued, 104, &e), -EBUSY);
	get(f, running, &r);
	assert_string_equal(r.state, "running");
	store_job_rec_release(&r);
}

static bool has_restore(struct store_fx *f, int64_t id)
{
	struct tune_snapshot back;
	bool found = true;
	struct err e;

	err_clear(&e);
	assert_int_equal(store_job_restore(f->s, id, &back, &found, &e), 0);
	tune_snapshot_release(&back);
	return found;
}

/* Restore points, and what a session's restore and a request's write do to running jobs. */
static void test_restore_points(void **state)
{
	struct store_fx *f = *state;
	struct tune_snapshot snap, back;
	int64_t before, inside, other, queued;
	struct job_rec r;
	char why[64];
	bool found;
	struct err e;

	before = insert(f, "{\"device\":\"loop0\",\"engine\":\"fio\"}", 100);
	inside = insert(f, "{\"device\":\"loop0\",\"engine\":\"fio\"}", 100);
	other = insert(f, "{\"device\":\"loop1\",\"engine\":\"fio\"}", 100);
	queued = insert(f, "{\"device\":\"loop0\",\"engine\":\"fio\"}", 100);
	err_clear(&e);
	assert_int_equal(store_job_start(f->s, before, 200, &e), 0);
	assert_int_equal(store_job_start(f->s, inside, 300, &e), 0);
	assert_int_equal(store_job_start(f->s, other, 300, &e), 0);
	assert_false(has_restore(f, before)); /* none recorded yet: nothing to release */
	store_fx_snapshot(&snap, "loop0", "nr_requests", "64");
	assert_int_equal(store_job_set_restore(f->s, before, &snap, &e), 0);
	assert_int_equal(store_job_set_restore(f->s, inside, &snap, &e), 0);
	assert_int_equal(store_job_set_restore(f->s, queued, &snap, &e), 0);
	tune_snapshot_release(&snap);
	store_fx_snapshot(&snap, "loop1", "read_ahead_kb", "128");
	assert_int_equal(store_job_set_restore(f->s, other, &snap, &e), 0);
	assert_int_equal(store_job_set_restore(f->s, 999, &snap, &e), -ENOENT);
	tune_snapshot_release(&snap);
	assert_int_equal(store_job_restore(f->s, other, &back, &found, &e), 0);
	assert_true(found);
	assert_string_equal(back.device, "loop1");
	assert_string_equal(back.items[0].name, "read_ahead_kb");
	assert_string_equal(back.items[0].previous, "128");
	tune_snapshot_release(&back);
	assert_int_equal(store_job_restore(f->s, 999, &back, &found, &e), -ENOENT);
	assert_false(found);

	/* A session on loop0 opened at 250 restores: the running job started inside it loses
	 * its restore point; the one started before, the other device's and a queued job keep
	 * theirs. */
	assert_int_equal(store_jobs_rebase(f->s, "loop0", 250, &e), 0);
	assert_true(has_restore(f, before));
	assert_false(has_restore(f, inside));
	assert_true(has_restore(f, other));
	assert_true(has_restore(f, queued));

	/* params_changed marks the running jobs of the device; the first reason stays. */
	assert_int_equal(store_jobs_mark_changed(f->s, "loop0", "session 3 restored", &e), 0);
	assert_int_equal(store_jobs_mark_changed(f->s, "loop0", "request 9 PATCH", &e), 0);
	get(f, before, &r);
	assert_true(r.has_params_changed);
	assert_string_equal(r.params_changed, "session 3 restored");
	store_job_rec_release(&r);
	get(f, other, &r);
	assert_false(r.has_params_changed);
	store_job_rec_release(&r);
	/* The column alone, as a pass's end reads it. */
	assert_int_equal(store_job_params_changed(f->s, before, why, sizeof(why), &e), 0);
	assert_string_equal(why, "session 3 restored");
	assert_int_equal(store_job_params_changed(f->s, other, why, sizeof(why), &e), 0);
	assert_string_equal(why, "");
	assert_int_equal(store_job_params_changed(f->s, 999999, why, sizeof(why), &e), -ENOENT);
	get(f, queued, &r);
	assert_false(r.has_params_changed);
	store_job_rec_release(&r);
}

/* Run job id to state at finished_at, with its params snapshot (nr_requests = nr). */
static void finish(struct store_fx *f, int64_t id, enum job_state state, double finished_at,
                   const char *nr)
{
	struct param pa[4];
	struct params ps;
	struct err e;

	params_fill(&ps, pa);
	snprintf(pa[0].value, sizeof(pa[0].value), "%s", nr);
	err_clear(&e);
	assert_int_equal(store_job_start(f->s, id, finished_at - 1, &e), 0);
	assert_int_equal(store_job_set_params(f->s, id, &ps, NULL, NULL, NULL, &e), 0);
	assert_int_equal(store_job_finish(f->s, id, state, finished_at, NULL, &e), 0);
}

/* ids of a result list, newest first, as "5,3,1". */
static const char *ids(struct job_rec *list, int n)
{
	static char out[128];
	size_t used = 0;
	int i;

	out[0] = '\0';
	for (i = 0; i < n; i++)
		used += (size_t)snprintf(out + used, sizeof(out) - used, "%s%lld", i ? "," : "",
		                         (long long)list[i].id);
	store_jobs_free(list, n);
	return out;
}

static const char *results(struct store_fx *f, const struct result_filter *filter)
{
	struct job_rec *list;
	struct err e;
	int n;

	err_clear(&e);
	if (store_results(f->s, filter, &list, &n, &e))
		fail_msg("results: %s", e.msg);
	return ids(list, n);
}

static void test_results(void **state)
{
	struct store_fx *f = *state;
	struct result_filter flt;
	struct job_rec *list;
	int64_t counts[JOB_N_STATES];
	struct err e;
	int n;

	/* 1 fio loop0 run=a succeeded @1000 nr=64    4 fio loop0 run=b cancelled @4000 nr=128
	 * 2 dd  loop1 run=a failed    @2000 nr=64    5 fio loop0 queued
	 * 3 fio loop0 run=b succeeded @3000 nr=128   6 fio loop1 running */
	insert(f, "{\"device\":\"loop0\",\"engine\":\"fio\",\"labels\":{\"run\":\"a\"}}", 1);
	insert(f,
	       "{\"device\":\"loop1\",\"engine\":\"dd\",\"dd\":{\"count\":1},"
	       "\"labels\":{\"run\":\"a\"}}",
	       2);
	insert(f, "{\"device\":\"loop0\",\"engine\":\"fio\",\"labels\":{\"run\":\"b\"}}", 3);
	insert(f, "{\"device\":\"loop0\",\"engine\":\"fio\",\"labels\":{\"run\":\"b\"}}", 4);
	insert(f, "{\"device\":\"loop0\",\"engine\":\"fio\"}", 5);
	insert(f, "{\"device\":\"loop1\",\"engine\":\"fio\"}", 6);
	finish(f, 1, JOB_SUCCEEDED, 1000, "64");
	finish(f, 2, JOB_FAILED, 2000, "64");
	finish(f, 3, JOB_SUCCEEDED, 3000, "128");
	finish(f, 4, JOB_CANCELLED, 4000, "128");
	err_clear(&e);
	assert_int_equal(store_job_start(f->s, 6, 5000, &e), 0);

	memset(&flt, 0, sizeof(flt));
	flt.limit = 50;
	/* Finished jobs only (any final state), newest first. */
	assert_string_equal(results(f, &flt), "4,3,2,1");
	flt.state = "succeeded";
	assert_string_equal(results(f, &flt), "3,1");
	flt.state = "queued"; /* a state asked for by name is taken as asked */
	assert_string_equal(results(f, &flt), "");
	flt.state = NULL;
	flt.device = "loop1";
	assert_string_equal(results(f, &flt), "2");
	flt.device = NULL;
	flt.engine = "fio";
	assert_string_equal(results(f, &flt), "4,3,1");
	flt.engine = NULL;
	flt.labels[0] = (struct store_kv){ "run", "a" };
	flt.n_labels = 1;
	assert_string_equal(results(f, &flt), "2,1");
	flt.params[0] = (struct store_kv){ "nr_requests", "128" };
	flt.n_params = 1;
	assert_string_equal(results(f, &flt), "");
	flt.n_labels = 0;
	assert_string_equal(results(f, &flt), "4,3");
	flt.params[1] = (struct store_kv){ "scheduler", "mq-deadline" };
	flt.n_params = 2;
	assert_string_equal(results(f, &flt), "4,3");
	flt.n_params = 0;
	flt.since = 2000;
	assert_string_equal(results(f, &flt), "4,3,2");
	flt.since = 0;
	/* Paging: a limit, then what came before the last id. */
	flt.limit = 2;
	assert_string_equal(results(f, &flt), "4,3");
	flt.before_id = 3;
	assert_string_equal(results(f, &flt), "2,1");
	flt.before_id = 1;
	assert_string_equal(results(f, &flt), "");

	/* The job list: every state, or one; newest first, limited. */
	assert_int_equal(store_jobs_list(f->s, NULL, 500, true, &list, &n, &e), 0);
	assert_string_equal(ids(list, n), "6,5,4,3,2,1");
	assert_int_equal(store_jobs_list(f->s, "running", 500, true, &list, &n, &e), 0);
	assert_string_equal(ids(list, n), "6");
	assert_int_equal(store_jobs_list(f->s, NULL, 2, true, &list, &n, &e), 0);
	assert_string_equal(ids(list, n), "6,5");

	/* Counts per state, in the order of the table asked with. */
	assert_int_equal(store_job_state_counts(f->s, job_state_names, JOB_N_STATES, counts), 0);
	assert_int_equal(counts[JOB_QUEUED], 1);
	assert_int_equal(counts[JOB_RUNNING], 1);
	assert_int_equal(counts[JOB_SUCCEEDED], 2);
	assert_int_equal(counts[JOB_FAILED], 1);
	assert_int_equal(counts[JOB_CANCELLED], 1);
	assert_int_equal(counts[JOB_INTERRUPTED], 0);
}

/* A row whose spec column cannot be decoded still reads: spec_ok false, the columns' device,
 * engine and loops in spec. */
static void test_unreadable_spec(void **state)
{
	struct store_fx *f = *state;
	struct job_rec r;
	struct db *d;
	struct err e;
	int64_t id;

	id = insert(f, "{\"device\":\"loop0\",\"engine\":\"dd\",\"dd\":{\"count\":1},\"loops\":3}",
	            100);
	err_clear(&e);
	assert_int_equal(db_open(&d, f->path, &(struct db_kind){ "", ERR_STORE_ERROR, "", 0 }, &e),
	                 0);
	assert_int_equal(db_exec(d, "UPDATE jobs SET spec = '{\"device\":' WHERE id = 1", &e), 0);
	db_close(d);
	get(f, id, &r);
	assert_false(r.spec_ok);
	assert_string_equal(r.spec.device, "loop0");
	assert_ptr_equal(r.spec.engine, &dd_engine);
	assert_int_equal(r.spec.loops, 3);
	store_job_rec_release(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_life, store_fx_setup, store_fx_teardown),
		cmocka_unit_test_setup_teardown(test_cancel_queued, store_fx_setup,
		                                store_fx_teardown),
		cmocka_unit_test_setup_teardown(test_restore_points, store_fx_setup,
		                                store_fx_teardown),
		cmocka_unit_test_setup_teardown(test_results, store_fx_setup, store_fx_teardown),
		cmocka_unit_test_setup_teardown(test_unreadable_spec, store_fx_setup,
		                                store_fx_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
