/* test_fio_workloads.c -- a fio job's workloads (issue 29): the body's rules and their errors,
 * the merge over the job's fio object, one argv with a stonewalled section each, the times
 * summed, the parser per section on real fio 3.33 JSON, the spec's echo, the store's
 * per-workload passes and the results filter, the job object's workloads members. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "enginetest.h"
#include "storetest.h"
#include "wire/wire.h"

#define BASE                                                                                       \
	"{\"device\":\"loop0\",\"engine\":\"fio\",\"loops\":2,"                                    \
	"\"fio\":{\"runtime_s\":1,\"time_based\":true,\"ioengine\":\"psync\",\"direct\":true,"     \
	"\"bs\":\"64k\"},"
#define THREE                                                                                      \
	BASE "\"workloads\":[{\"name\":\"seq read 1M\",\"fio\":{\"rw\":\"read\",\"bs\":\"1m\"}},"  \
	     "{\"name\":\"rand read 4k\",\"fio\":{\"rw\":\"randread\",\"bs\":\"4k\","              \
	     "\"numjobs\":2}},"                                                                    \
	     "{\"name\":\"rand write\",\"fio\":{\"rw\":\"randwrite\"}}]}"

/* Decode body as POST /jobs does; returns the error (spec released on failure). */
static int spec_from(const char *body, struct job_spec *spec, struct err *e)
{
	json_t *j = load(body);
	int rc;

	err_clear(e);
	rc = wire_job_spec_from_json(j, spec, e);
	json_decref(j);
	return rc;
}

static void spec_ok(const char *body, struct job_spec *spec)
{
	struct err e;

	if (spec_from(body, spec, &e))
		fail_msg("%s refused: %s", body, e.msg);
	if (spec->engine->check(&spec->opts, &e))
		fail_msg("%s: check: %s", body, e.msg);
}

static void test_decode_merge(void **state)
{
	struct job_spec s;
	const struct fio_workload *w;

	(void)state;
	spec_ok(THREE, &s);
	assert_int_equal(s.opts.n_workloads, 3);
	w = s.opts.workloads;
	assert_string_equal(w[0].name, "seq read 1M");
	/* The workload's key wins; the job's keys fill in the rest. */
	assert_true(w[0].fio.bs == 1u << 20 && w[0].fio.has_bs);
	assert_true(w[0].fio.has_runtime_s && w[0].fio.runtime_s == 1 && w[0].fio.time_based);
	assert_string_equal(w[0].fio.ioengine, "psync");
	assert_string_equal(w[2].fio.rw, "randwrite");
	assert_true(w[2].fio.bs == 64u << 10); /* from the job's fio object */
	assert_int_equal(w[1].fio.numjobs, 2);
	/* own: only what the workload gave. */
	assert_true(w[2].own.has_rw && !w[2].own.has_bs && !w[2].own.has_runtime_s);
	/* The job's own fio object is as given. */
	assert_true(s.opts.fio.bs == 64u << 10 && !s.opts.fio.has_rw);
	job_spec_release(&s);
	assert_null(s.opts.workloads);
	assert_int_equal(s.opts.n_workloads, 0);
}

static void assert_refused(const char *body, const char *want)
{
	struct job_spec s;
	struct err e;
	int rc = spec_from(body, &s, &e);

	if (rc == 0) {
		rc = s.engine->check(&s.opts, &e);
		job_spec_release(&s);
	}
	if (rc != -EINVAL)
		fail_msg("%s: expected -EINVAL, got %d (%s)", body, rc, e.msg);
	assert_int_equal(e.code, ERR_BAD_REQUEST);
	if (strcmp(e.msg, want))
		fail_msg("%s:\n  message '%s'\n  wanted  '%s'", body, e.msg, want);
}

static void test_refused(void **state)
{
	char body[4096], list[3000];
	size_t k = 0;
	int i;

	(void)state;
	assert_refused(BASE "\"workloads\":[{\"name\":\"a\",\"fio\":{\"iodepth\":0}}]}",
	               "workloads[0] \"a\": fio.iodepth: must be 1..4096");
	assert_refused(BASE
	               "\"workloads\":[{\"name\":\"a\"},{\"name\":\"b\",\"fio\":{\"turbo\":1}}]}",
	               "workloads[1] \"b\": fio.turbo: unknown option");
	assert_refused(BASE "\"workloads\":[{\"name\":\"a\"},{\"name\":\"a\"}]}",
	               "workloads[1].name: \"a\" is workloads[0]'s name too; a job's workload "
	               "names are unique");
	assert_refused(BASE "\"workloads\":[{\"name\":\"a/b\"}]}",
	               "workloads[0].name: required, 1..64 characters of A-Za-z0-9 and \" "
	               "_.,:+-\", not starting with a space");
	assert_refused(BASE "\"workloads\":[{\"name\":\" a\"}]}",
	               "workloads[0].name: required, 1..64 characters of A-Za-z0-9 and \" "
	               "_.,:+-\", not starting with a space");
	assert_refused(BASE "\"workloads\":[{\"name\":\"\"}]}",
	               "workloads[0].name: required, 1..64 characters of A-Za-z0-9 and \" "
	               "_.,:+-\", not starting with a space");
	assert_refused(BASE "\"workloads\":[{\"fio\":{}}]}",
	               "workloads[0].name: required, 1..64 characters of A-Za-z0-9 and \" "
	               "_.,:+-\", not starting with a space");
	assert_refused(BASE "\"workloads\":[{\"name\":\"a\",\"metric\":\"read.iops\"}]}",
	               "workloads[0].metric: unknown field");
	assert_refused(BASE "\"workloads\":[{\"name\":\"a\",\"fio\":[]}]}",
	               "workloads[0] \"a\": fio: must be an object");
	assert_refused(BASE "\"workloads\":[\"a\"]}",
	               "workloads[0]: expected an object {\"name\", \"fio\"}");
	assert_refused(BASE "\"workloads\":[]}",
	               "workloads: expected an array of 1..16 objects {\"name\", \"fio\"}");
	assert_refused(BASE "\"workloads\":{}}",
	               "workloads: expected an array of 1..16 objects {\"name\", \"fio\"}");
	for (i = 0; i < 17; i++)
		k += (size_t)snprintf(list + k, sizeof(list) - k, "%s{\"name\":\"w%d\"}",
		                      i ? "," : "", i);
	snprintf(body, sizeof(body), BASE "\"workloads\":[%s]}", list);
	assert_refused(body, "workloads: expected an array of 1..16 objects {\"name\", \"fio\"}");
	assert_refused("{\"device\":\"loop0\",\"engine\":\"dd\",\"dd\":{\"count\":1},"
	               "\"workloads\":[{\"name\":\"a\"}]}",
	               "workloads: only with engine fio (the sections of one fio run)");
	/* A rule joining keys is checked on each section's merged options. */
	assert_refused("{\"device\":\"loop0\",\"engine\":\"fio\",\"fio\":{\"time_based\":true},"
	               "\"workloads\":[{\"name\":\"a\",\"fio\":{\"runtime_s\":1}},"
	               "{\"name\":\"b b\"}]}",
	               "workloads[1] \"b b\": fio.time_based: needs runtime_s (fio would run "
	               "forever)");
	assert_refused("{\"device\":\"loop0\",\"engine\":\"fio\",\"fio\":{\"size\":\"4k\"},"
	               "\"workloads\":[{\"name\":\"big\",\"fio\":{\"bs\":\"1m\"}}]}",
	               "workloads[0] \"big\": fio.size: must be at least bs");
	/* 64 characters are fine, 65 are not. */
	snprintf(body, sizeof(body), BASE "\"workloads\":[{\"name\":\"%065d\"}]}", 0);
	assert_refused(body, "workloads[0].name: required, 1..64 characters of A-Za-z0-9 and \" "
	                     "_.,:+-\", not starting with a space");
}

static void test_name_chars(void **state)
{
	struct job_spec s;
	char body[512];

	(void)state;
	snprintf(body, sizeof(body),
	         BASE "\"workloads\":[{\"name\":\"%064d\"},{\"name\":\"Az09 "
	              "_.,:+-\"}]}",
	         0);
	spec_ok(body, &s);
	assert_string_equal(s.opts.workloads[1].name, "Az09 _.,:+-");
	job_spec_release(&s);
}

static void assert_argv(char **argv, const char *const *want)
{
	int i;

	for (i = 0; want[i]; i++) {
		if (!argv[i])
			fail_msg("argv ends at %d, wanted '%s'", i, want[i]);
		if (strcmp(argv[i], want[i]))
			fail_msg("argv[%d] = '%s', wanted '%s'", i, argv[i], want[i]);
	}
	if (argv[i])
		fail_msg("argv has more: argv[%d] = '%s'", i, argv[i]);
}

static void test_argv_sections(void **state)
{
	static const char *const want[] = {
		"fio",
		"--output-format=json",
		"--group_reporting",
		"--filename=/dev/loop0",
		"--name=ft-job4-l2-w0",
		"--description=seq read 1M",
		"--new_group",
		"--rw=read",
		"--bs=1M",
		"--ioengine=psync",
		"--direct=1",
		"--runtime=1",
		"--time_based",
		"--name=ft-job4-l2-w1",
		"--description=rand read 4k",
		"--stonewall",
		"--new_group",
		"--rw=randread",
		"--bs=4K",
		"--ioengine=psync",
		"--direct=1",
		"--numjobs=2",
		"--runtime=1",
		"--time_based",
		"--name=ft-job4-l2-w2",
		"--description=rand write",
		"--stonewall",
		"--new_group",
		"--rw=randwrite",
		"--bs=64K",
		"--ioengine=psync",
		"--direct=1",
		"--runtime=1",
		"--time_based",
		NULL,
	};
	struct engine_target t = { "fio", "/dev/loop0", NULL, "ft-job4-l2", NULL, NULL };
	struct job_spec s;
	char **argv = NULL;
	struct err e;

	(void)state;
	spec_ok(THREE, &s);
	assert_int_equal(s.engine->argv_build(&s.opts, &t, &argv, &e), 0);
	assert_argv(argv, want);
	engine_argv_free(argv);
	job_spec_release(&s);
}

static void test_argv_directory_size(void **state)
{
	struct engine_target t = { "fio", "/dev/loop0", "/mnt/jobs", "ft-job5-l1", NULL, NULL };
	struct job_spec s;
	char **argv = NULL;
	struct err e;

	(void)state;
	/* The job's size reaches every section; one without is refused, named. */
	spec_ok(BASE "\"workloads\":[{\"name\":\"a\",\"fio\":{\"size\":\"8m\"}},{\"name\":\"b\"}]}",
	        &s);
	err_clear(&e);
	assert_int_equal(s.engine->argv_build(&s.opts, &t, &argv, &e), -EINVAL);
	assert_null(argv);
	assert_string_equal(e.msg, "workloads[1] \"b\": fio.size: required when the job writes "
	                           "files in a directory");
	job_spec_release(&s);
	spec_ok("{\"device\":\"loop0\",\"engine\":\"fio\",\"fio\":{\"size\":\"8m\"},"
	        "\"workloads\":[{\"name\":\"a\"},{\"name\":\"b\"}]}",
	        &s);
	assert_int_equal(s.engine->argv_build(&s.opts, &t, &argv, &e), 0);
	assert_string_equal(argv[3], "--directory=/mnt/jobs");
	assert_string_equal(argv[4], "--name=ft-job5-l1-w0");
	engine_argv_free(argv);
	job_spec_release(&s);
}

static void test_times(void **state)
{
	struct job_spec s;
	struct metric_names names = { 0 };
	struct engine_opts sec;

	(void)state;
	spec_ok(BASE "\"workloads\":[{\"name\":\"a\",\"fio\":{\"ramp_time_s\":2}},{\"name\":\"b\","
	             "\"fio\":{\"runtime_s\":3}},{\"name\":\"c\",\"fio\":{\"rw\":\"write\"}}]}",
	        &s);
	/* (1 + 2) + 3 + 1 */
	assert_true(s.engine->expected_runtime_s(&s.opts) == 7);
	assert_true(s.engine->pass_bound_s(&s.opts, false, 1u << 30) == 7);
	assert_true(s.engine->progress(&s.opts, 3.5, NULL, 0, NULL, 0) == 0.5);
	assert_true(s.engine->progress(&s.opts, 70, NULL, 0, NULL, 0) == 0.99);
	/* A pass's own metrics are the first workload's: reads. */
	s.engine->metrics_list(&s.opts, &names);
	assert_true(metric_names_has(&names, "read.bw_mib"));
	assert_false(metric_names_has(&names, "write.bw_mib"));
	engine_section_opts(&s.opts, 2, &sec);
	assert_null(sec.workloads);
	assert_string_equal(sec.fio.rw, "write");
	assert_true(engine_pass_deadline_s(s.engine, &s.opts, false, 1u << 30) == 2 * 7 + 30);
	job_spec_release(&s);
	/* A section fio cannot time makes the whole pass's time unknown. */
	spec_ok("{\"device\":\"loop0\",\"engine\":\"fio\",\"workloads\":[{\"name\":\"a\",\"fio\":"
	        "{\"runtime_s\":1}},{\"name\":\"b\"}]}",
	        &s);
	assert_true(s.engine->expected_runtime_s(&s.opts) == 0);
	job_spec_release(&s);
}

/* Section i of fixture fio/workloads-3.json, read with jansson: the figure the parser must
 * give for dir.key (bw in KiB/s to MiB/s via bw_bytes, latencies ns to us). */
static double fixture_figure(const json_t *root, int i, const char *dir, const char *what)
{
	const json_t *d =
	        json_object_get(json_array_get(json_object_get(root, "jobs"), (size_t)i), dir);

	if (!strcmp(what, "bw_mib"))
		return json_number_value(json_object_get(d, "bw_bytes")) / 1048576.0;
	if (!strcmp(what, "iops"))
		return json_number_value(json_object_get(d, "iops"));
	if (!strcmp(what, "clat_p99_us"))
		return json_number_value(json_object_get(
		               json_object_get(json_object_get(d, "clat_ns"), "percentile"),
		               "99.000000")) /
		       1000.0;
	return json_number_value(json_object_get(json_object_get(d, "clat_ns"), "mean")) / 1000.0;
}

static void test_parse_sections(void **state)
{
	static const char *const what[] = { "bw_mib", "iops", "clat_p99_us", "clat_mean_us" };
	struct metrics per[3], m;
	struct job_spec s;
	size_t len;
	char *out = tu_slurp("fio/workloads-3.json", &len);
	json_t *root = load(out);
	char name[48];
	struct err e;
	size_t k;
	int i;

	(void)state;
	spec_ok(THREE, &s);
	err_clear(&e);
	assert_int_equal(engine_parse_pass(s.engine, &s.opts, out, len, "", 0, 0, 0, &m, per, &e),
	                 0);
	/* Each section's figures are its own entry's; the third only wrote. */
	for (i = 0; i < 3; i++)
		for (k = 0; k < sizeof(what) / sizeof(what[0]); k++) {
			const char *dir = i == 2 ? "write" : "read";

			snprintf(name, sizeof(name), "%s.%s", dir, what[k]);
			assert_metric_tol(&per[i], name, fixture_figure(root, i, dir, what[k]),
			                  1e-6);
		}
	assert_null(metrics_get(&per[2], "read.bw_mib"));
	assert_null(metrics_get(&per[0], "write.bw_mib"));
	/* numjobs 2 in section 1: one group_reporting entry, summed by fio. */
	assert_true(metrics_get(&per[1], "read.iops")->value > 1000);
	/* The pass's own metrics are the first workload's. */
	assert_int_equal(m.n, per[0].n);
	for (i = 0; i < m.n; i++)
		assert_true(metrics_get(&per[0], m.m[i].name)->value == m.m[i].value);
	/* What the parse gives is what each section promises. */
	for (i = 0; i < 3; i++) {
		struct engine_opts sec;

		engine_section_opts(&s.opts, i, &sec);
		assert_metrics_promised(s.engine, &sec, &per[i]);
	}
	json_decref(root);
	free(out);
	job_spec_release(&s);
}

static void test_parse_sections_mismatch(void **state)
{
	struct metrics per[4];
	size_t len, rlen;
	char *out = tu_slurp("fio/workloads-3.json", &len),
	     *read = tu_slurp("fio/read.json", &rlen);
	char *renamed;
	struct err e;

	(void)state;
	/* The wrong count of entries. */
	assert_int_equal(fio_parse_sections(out, len, "", 0, 0, 0, 2, per, &e), -EPROTO);
	assert_int_equal(e.code, ERR_ENGINE_FAILED);
	assert_non_null(strstr(e.msg, "does not hold the job's 2 workloads"));
	assert_int_equal(fio_parse_sections(out, len, "", 0, 0, 0, 4, per, &e), -EPROTO);
	assert_int_equal(fio_parse_sections(read, rlen, "", 0, 0, 0, 3, per, &e), -EPROTO);
	/* An entry that is not the section in its place (named ...-w1 where -w0 belongs). */
	renamed = strdup(out);
	memcpy(strstr(renamed, "\"ft-job7-l1-w0\""), "\"ft-job7-l1-w9\"", 15);
	assert_int_equal(fio_parse_sections(renamed, len, "", 0, 0, 0, 3, per, &e), -EPROTO);
	/* fio's failure is still a failure, with its words. */
	assert_int_equal(
	        fio_parse_sections(out, len, "fio: something broke\n", 21, 1, 0, 3, per, &e), -EIO);
	assert_non_null(strstr(e.msg, "fio: something broke"));
	/* A plain fio parse of a sectioned output is refused too. */
	assert_int_equal(engine_find("fio")->parse(out, len, "", 0, 0, 0, &per[0], &e), -EPROTO);
	free(renamed);
	free(read);
	free(out);
}

static void test_spec_echo_roundtrip(void **state)
{
	struct job_spec s, back;
	char *text, *again;
	json_t *o;
	struct err e;

	(void)state;
	spec_ok(THREE, &s);
	o = wire_job_spec_to_json(&s);
	text = json_dumps(json_object_get(o, "workloads"), JSON_COMPACT);
	assert_string_equal(text,
	                    "[{\"name\":\"seq read 1M\",\"fio\":{\"rw\":\"read\",\"bs\":\"1M\"}},"
	                    "{\"name\":\"rand read 4k\",\"fio\":{\"rw\":\"randread\",\"bs\":"
	                    "\"4K\",\"numjobs\":2}},{\"name\":\"rand write\",\"fio\":{\"rw\":"
	                    "\"randwrite\"}}]");
	free(text);
	json_decref(o);
	/* The database column decodes to the same spec. */
	text = wire_job_spec_encode(&s);
	err_clear(&e);
	assert_int_equal(wire_job_spec_decode(text, &back, &e), 0);
	again = wire_job_spec_encode(&back);
	assert_string_equal(text, again);
	assert_int_equal(back.opts.n_workloads, 3);
	assert_true(back.opts.workloads[2].fio.bs == 64u << 10);
	free(text);
	free(again);
	job_spec_release(&back);
	job_spec_release(&s);
}

/* ---- the store and the job object ---- */

static int64_t insert(struct store_fx *f, const char *body)
{
	struct job_spec spec;
	int64_t id = 0;
	struct err e;

	spec_ok(body, &spec);
	assert_int_equal(store_job_insert(f->s, &spec, 100, &id, &e), 0);
	job_spec_release(&spec);
	return id;
}

static void test_store_and_answer(void **state)
{
	struct store_fx *f = *state;
	struct pass_workload wl[3];
	struct result_filter rf;
	struct pass_rec *passes = NULL;
	struct job_rec *list = NULL, r;
	struct metrics m = { 0 };
	int64_t id, plain;
	int n = 0, i, loop;
	struct err e;
	json_t *o, *sw;

	err_clear(&e);
	id = insert(f, THREE);
	plain = insert(f, "{\"device\":\"loop0\",\"engine\":\"fio\",\"fio\":{\"rw\":\"read\"}}");
	memset(wl, 0, sizeof(wl));
	for (loop = 1; loop <= 2; loop++) {
		for (i = 0; i < 3; i++) {
			wl[i].metrics.n = 0;
			snprintf(wl[i].name, sizeof(wl[i].name), "%s",
			         i == 0   ? "seq read 1M"
			         : i == 1 ? "rand read 4k"
			                  : "rand write");
			metrics_set(&wl[i].metrics, i == 2 ? "write.iops" : "read.iops",
			            100.0 * (i + 1) + loop);
		}
		assert_int_equal(store_job_pass_add(f->s, id, loop, 110 + loop, 111 + loop,
		                                    &wl[0].metrics, wl, 3, "{}", 2, &e),
		                 0);
	}
	metrics_set(&m, "read.iops", 7);
	assert_int_equal(store_job_pass_add(f->s, plain, 1, 1, 2, &m, NULL, 0, "", 0, &e), 0);
	assert_int_equal(store_job_finish(f->s, id, JOB_SUCCEEDED, 200, NULL, &e), 0);
	assert_int_equal(store_job_finish(f->s, plain, JOB_SUCCEEDED, 201, NULL, &e), 0);

	assert_int_equal(store_job_passes(f->s, id, &passes, &n, &e), 0);
	assert_int_equal(n, 2);
	for (loop = 0; loop < 2; loop++) {
		assert_int_equal(passes[loop].n_workloads, 3);
		assert_string_equal(passes[loop].workloads[1].name, "rand read 4k");
		assert_true(metrics_get(&passes[loop].workloads[2].metrics, "write.iops")->value ==
		            301 + loop);
	}
	/* The job object: each pass's workloads, the summary per workload. */
	assert_int_equal(store_job_get(f->s, id, &r, &e), 0);
	o = wire_job_to_json(&r, passes, n, WIRE_JOB_ALL);
	assert_int_equal(json_array_size(json_object_get(
	                         json_array_get(json_object_get(o, "passes"), 1), "workloads")),
	                 3);
	sw = json_object_get(o, "summary_workloads");
	assert_int_equal(json_array_size(sw), 3);
	assert_string_equal(json_string_value(json_object_get(json_array_get(sw, 2), "name")),
	                    "rand write");
	assert_true(json_real_value(json_object_get(
	                    json_object_get(json_object_get(json_array_get(sw, 1), "summary"),
	                                    "read.iops"),
	                    "mean")) == 201.5);
	assert_true(json_integer_value(json_object_get(
	                    json_object_get(json_object_get(json_array_get(sw, 1), "summary"),
	                                    "read.iops"),
	                    "n")) == 2);
	/* The job's summary is the first workload's. */
	assert_true(json_real_value(json_object_get(
	                    json_object_get(json_object_get(o, "summary"), "read.iops"), "mean")) ==
	            101.5);
	json_decref(o);
	store_job_rec_release(&r);
	store_passes_free(passes, n);

	/* A plain job has neither member. */
	assert_int_equal(store_job_passes(f->s, plain, &passes, &n, &e), 0);
	assert_int_equal(store_job_get(f->s, plain, &r, &e), 0);
	o = wire_job_to_json(&r, passes, n, WIRE_JOB_ALL);
	assert_null(json_object_get(o, "summary_workloads"));
	assert_null(json_object_get(json_array_get(json_object_get(o, "passes"), 0), "workloads"));
	json_decref(o);
	store_job_rec_release(&r);
	store_passes_free(passes, n);

	/* /results?workload= */
	memset(&rf, 0, sizeof(rf));
	rf.limit = 10;
	rf.workload = "rand read 4k";
	assert_int_equal(store_results(f->s, &rf, &list, &n, &e), 0);
	assert_int_equal(n, 1);
	assert_true(list[0].id == id);
	store_jobs_free(list, n);
	rf.workload = "rand read";
	assert_int_equal(store_results(f->s, &rf, &list, &n, &e), 0);
	assert_int_equal(n, 0);
	store_jobs_free(list, n);
	rf.workload = NULL;
	assert_int_equal(store_results(f->s, &rf, &list, &n, &e), 0);
	assert_int_equal(n, 2);
	store_jobs_free(list, n);
}

static void test_fields(void **state)
{
	unsigned mask;
	struct err e;

	(void)state;
	assert_int_equal(wire_job_fields_parse("state,summary_workloads", &mask, &e), 0);
	assert_true(wire_job_fields_need_passes(mask));
}

static void test_dry_run_answer(void **state)
{
	struct metric_names names = { 0 };
	struct job_spec s;
	json_t *o, *w;

	(void)state;
	spec_ok(THREE, &s);
	s.engine->metrics_list(&s.opts, &names);
	o = wire_job_dry_run_to_json(&s, &names, 6, 42, 100, NULL);
	w = json_object_get(o, "workloads");
	assert_int_equal(json_array_size(w), 3);
	assert_string_equal(json_string_value(json_object_get(json_array_get(w, 2), "name")),
	                    "rand write");
	assert_string_equal(json_string_value(json_array_get(
	                            json_object_get(json_array_get(w, 2), "metrics"), 0)),
	                    "write.bw_mib");
	json_decref(o);
	job_spec_release(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decode_merge),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_name_chars),
		cmocka_unit_test(test_argv_sections),
		cmocka_unit_test(test_argv_directory_size),
		cmocka_unit_test(test_times),
		cmocka_unit_test(test_parse_sections),
		cmocka_unit_test(test_parse_sections_mismatch),
		cmocka_unit_test(test_spec_echo_roundtrip),
		cmocka_unit_test(test_fields),
		cmocka_unit_test(test_dry_run_answer),
		cmocka_unit_test_setup_teardown(test_store_and_answer, store_fx_setup,
		                                store_fx_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
