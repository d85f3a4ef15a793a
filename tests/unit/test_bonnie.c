/* test_bonnie.c -- bonnie.c: checks, argv, and the parser on real bonnie++ 2.00a CSV. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engines/engine.h"
#include "enginetest.h"

static void assert_metric(const struct metrics *m, const char *name, double want)
{
	assert_metric_tol(m, name, want, 1e-6);
}

/* bonnie/<name>.csv is stdout, bonnie/<name>.txt stderr (the human table). */
static int parse_fixture(const char *name, int exit_code, struct metrics *m, struct err *e)
{
	char path[256], *out, *errout;
	size_t out_len, err_len;
	int rc;

	snprintf(path, sizeof(path), "bonnie/%s.csv", name);
	out = tu_slurp(path, &out_len);
	snprintf(path, sizeof(path), "bonnie/%s.txt", name);
	errout = tu_slurp(path, &err_len);
	err_clear(e);
	rc = bonnie_engine.parse(out, out_len, errout, err_len, exit_code, 0, m, e);
	free(out);
	free(errout);
	return rc;
}

/* -s 1024 -r 512 -n 64: block input, seeks and the stat rates were "+++++" (too fast). */
static void test_parse_default(void **state)
{
	struct metrics m;
	struct err e;

	assert_int_equal(parse_fixture("default-1g", 0, &m, &e), 0);
	assert_metric(&m, "write.bw_mib", 585067 / 1024.0);
	assert_metric(&m, "rewrite.bw_mib", 1574298 / 1024.0);
	assert_metric(&m, "write_char.bw_mib", 1309 / 1024.0);
	assert_metric(&m, "read_char.bw_mib", 2103 / 1024.0);
	assert_metric(&m, "seq_create_per_s", 58919);
	assert_metric(&m, "seq_delete_per_s", 73419);
	assert_metric(&m, "rand_create_per_s", 65141);
	assert_metric(&m, "rand_delete_per_s", 69903);
	assert_null(metrics_get(&m, "read.bw_mib"));
	assert_null(metrics_get(&m, "seeks_per_s"));
	assert_null(metrics_get(&m, "seq_stat_per_s"));
	assert_null(metrics_get(&m, "rand_stat_per_s"));
	assert_int_equal(m.n, 8);
}

/* -f -D -s 4096: per-char tests skipped (empty fields), block input measured. */
static void test_parse_direct(void **state)
{
	struct metrics m;
	struct err e;

	assert_int_equal(parse_fixture("direct-4g", 0, &m, &e), 0);
	assert_metric(&m, "write.bw_mib", 61386 / 1024.0);
	assert_metric(&m, "rewrite.bw_mib", 351070 / 1024.0);
	assert_metric(&m, "read.bw_mib", 6336647 / 1024.0);
	assert_metric(&m, "seq_create_per_s", 53443);
	assert_metric(&m, "rand_delete_per_s", 62040);
	assert_null(metrics_get(&m, "write_char.bw_mib"));
	assert_null(metrics_get(&m, "read_char.bw_mib"));
	assert_null(metrics_get(&m, "seeks_per_s"));
}

/* -n 4 on a small filesystem: every file rate "+++++", so none of them is a metric. */
static void test_parse_small(void **state)
{
	struct metrics m;
	struct err e;

	assert_int_equal(parse_fixture("small", 0, &m, &e), 0);
	assert_metric(&m, "write.bw_mib", 159807 / 1024.0);
	assert_null(metrics_get(&m, "rewrite.bw_mib"));
	assert_null(metrics_get(&m, "seq_create_per_s"));
	assert_null(metrics_get(&m, "rand_delete_per_s"));
	assert_int_equal(m.n, 3);
}

static void test_parse_failed(void **state)
{
	struct metrics m;
	struct err e;

	assert_int_equal(parse_fixture("nodir", 1, &m, &e), -EIO);
	assert_int_equal(e.code, ERR_ENGINE_FAILED);
	assert_string_equal(e.msg, "bonnie++ exited with status 1: Can't change to directory "
	                           "\"/tmp/ft-eng-nonexistent\".");
	assert_int_equal(m.n, 0);
	assert_int_equal(parse_fixture("nodir", 0, &m, &e), -EPROTO);
	assert_int_equal(bonnie_engine.parse("", 0, "", 0, -1, 15, &m, &e), -EINTR);
	assert_non_null(strstr(e.msg, "signal 15"));
}

static void expect_bad(const char *text, const char *msg)
{
	struct engine_opts o;
	struct err e;

	assert_int_equal(opts_check(&bonnie_engine, text, &o, &e), -EINVAL);
	assert_int_equal(e.code, ERR_BAD_REQUEST);
	if (strcmp(e.msg, msg))
		fail_msg("for %s: got \"%s\", want \"%s\"", text, e.msg, msg);
}

static void test_check(void **state)
{
	static const char files_msg[] = "bonnie.files: must look like \"16\" or "
	                                "\"16:100000:16:64\" (N in 0..1024 thousands of files, "
	                                "then max size, min size, directories)";
	struct engine_opts o;
	struct err e;

	assert_int_equal(
	        opts_check(&bonnie_engine,
	                   "{\"size_mb\":1024,\"ram_mb\":512,\"files\":\"16:100000:16:64\"}", &o,
	                   &e),
	        0);
	expect_bad("{\"size_mb\":1024,\"chunk\":1}", "bonnie.chunk: unknown option");
	expect_bad("{}", "bonnie.size_mb: required (0..16777216; 0 skips the I/O tests)");
	expect_bad("{\"size_mb\":-1}", "bonnie.size_mb: must be 0..16777216");
	expect_bad("{\"size_mb\":\"1g\"}", "bonnie.size_mb: must be an integer 0..16777216");
	expect_bad("{\"size_mb\":0,\"files\":\"0\"}",
	           "bonnie.size_mb: 0 skips the I/O tests and bonnie.files 0 the file tests: "
	           "nothing would run");
	expect_bad("{\"size_mb\":100,\"fast\":1}", "bonnie.fast: must be true or false");
	/* Seed 001's file-test runs: -s 0 with a ram size. */
	assert_int_equal(opts_check(&bonnie_engine,
	                            "{\"size_mb\":0,\"ram_mb\":4092,\"files\":\"50:0:0:50\","
	                            "\"no_buffer\":true}",
	                            &o, &e),
	                 0);
	expect_bad("{\"size_mb\":100,\"ram_mb\":256}",
	           "bonnie.size_mb: must be at least twice ram_mb (bonnie++ refuses smaller "
	           "files)");
	expect_bad("{\"size_mb\":100,\"ram_mb\":-1}", "bonnie.ram_mb: must be 0..8388608");
	expect_bad("{\"size_mb\":100,\"files\":16}",
	           "bonnie.files: must be a string like \"16\" or \"16:100000:16:64\"");
	expect_bad("{\"size_mb\":100,\"files\":\"16k\"}", files_msg);
	expect_bad("{\"size_mb\":100,\"files\":\"2000\"}", files_msg);
	expect_bad("{\"size_mb\":100,\"files\":\"16:1:1:0\"}", files_msg);
	expect_bad("{\"size_mb\":100,\"files\":\"1:2:3:4:5:6\"}", files_msg);
	expect_bad("{\"size_mb\":100,\"files\":\"16;rm -rf /\"}", files_msg);
	expect_bad("{\"size_mb\":100,\"files\":\"\"}", files_msg);
}

static void test_argv(void **state)
{
	struct engine_target t = { "bonnie++", "/dev/loop0", "/mnt/b", "ft-job1-l1", NULL, NULL };
	struct engine_opts oo, od;
	const struct engine_opts *o = opts_load(
	        &bonnie_engine, "{\"size_mb\":1024,\"ram_mb\":512,\"files\":\"64\"}", &oo);
	const struct engine_opts *dflt = opts_load(&bonnie_engine, "{\"size_mb\":2048}", &od);
	const char *want[] = { "bonnie++", "-q", "-d", "/mnt/b", "-s",   "1024", "-r",
		               "512",      "-n", "64", "-u",     "root", NULL };
	char **argv;
	struct err e;
	int i;

	if (geteuid() != 0)
		want[10] = NULL; /* -u root only as root */
	assert_int_equal(bonnie_engine.argv_build(o, &t, &argv, &e), 0);
	for (i = 0; want[i]; i++)
		assert_string_equal(argv[i], want[i]);
	assert_null(argv[i]);
	engine_argv_free(argv);

	assert_int_equal(bonnie_engine.argv_build(dflt, &t, &argv, &e), 0);
	assert_string_equal(argv[6], "-r");
	assert_string_equal(argv[7], "1024");
	assert_string_equal(argv[9], "16");
	engine_argv_free(argv);

	/* Seed 001's I/O run: bonnie++ -n 0 -r 4092 -s SIZE -f -b -d MOUNT. */
	o = opts_load(&bonnie_engine,
	              "{\"size_mb\":20480,\"ram_mb\":4092,\"files\":\"0\",\"fast\":true,"
	              "\"no_buffer\":true,\"direct\":false}",
	              &oo);
	assert_int_equal(bonnie_engine.argv_build(o, &t, &argv, &e), 0);
	assert_string_equal(argv[4], "-s");
	assert_string_equal(argv[5], "20480");
	assert_string_equal(argv[7], "4092");
	assert_string_equal(argv[9], "0");
	assert_string_equal(argv[10], "-f");
	assert_string_equal(argv[11], "-b");
	assert_true(!argv[12] || !strcmp(argv[12], "-u"));
	engine_argv_free(argv);
	o = opts_load(&bonnie_engine, "{\"size_mb\":1024,\"ram_mb\":512,\"direct\":true}", &oo);
	assert_int_equal(bonnie_engine.argv_build(o, &t, &argv, &e), 0);
	assert_string_equal(argv[10], "-D");
	engine_argv_free(argv);

	t.directory = NULL;
	assert_int_equal(bonnie_engine.argv_build(o, &t, &argv, &e), -EINVAL);
	assert_string_equal(e.msg, "bonnie: needs a directory");
	assert_true(bonnie_engine.progress(o, 5, "", 0, "", 0) == -1);
}

/* Every metric a pass reports is promised, and a promised one is missing only where bonnie++
 * printed "+++++" (untimed, NULL-terminated). */
static void assert_promised(const char *opts, const char *fixture, const char *const *untimed)
{
	struct metric_names names = { 0 };
	struct engine_opts o;
	struct metrics m;
	struct err e;
	int i, k;

	bonnie_engine.metrics_list(opts_load(&bonnie_engine, opts, &o), &names);
	assert_int_equal(parse_fixture(fixture, 0, &m, &e), 0);
	for (i = 0; i < m.n; i++)
		if (!metric_names_has(&names, m.m[i].name))
			fail_msg("%s: %s is not promised", fixture, m.m[i].name);
	for (i = 0; i < names.n; i++) {
		if (metrics_get(&m, names.name[i]))
			continue;
		for (k = 0; untimed[k] && strcmp(untimed[k], names.name[i]); k++)
			;
		if (!untimed[k])
			fail_msg("%s: promised %s is missing", fixture, names.name[i]);
	}
}

/* The promise follows -n: no file tests, no file metrics. */
static void test_metrics_list(void **state)
{
	static const char *const untimed_1g[] = { "read.bw_mib", "seeks_per_s", "seq_stat_per_s",
		                                  "rand_stat_per_s", NULL };
	static const char *const untimed_small[] = {
		"rewrite.bw_mib",    "read.bw_mib",
		"seeks_per_s",       "seq_create_per_s",
		"seq_stat_per_s",    "seq_delete_per_s",
		"rand_create_per_s", "rand_stat_per_s",
		"rand_delete_per_s", NULL,
	};
	struct metric_names names = { 0 };
	struct engine_opts o;

	assert_promised("{\"size_mb\":1024,\"ram_mb\":512,\"files\":\"64\"}", "default-1g",
	                untimed_1g);
	assert_promised("{\"size_mb\":512,\"ram_mb\":256,\"files\":\"4\"}", "small", untimed_small);
	bonnie_engine.metrics_list(
	        opts_load(&bonnie_engine, "{\"size_mb\":512,\"files\":\"0\"}", &o), &names);
	assert_int_equal(names.n, 6);
	assert_true(metric_names_has(&names, "write.bw_mib"));
	assert_false(metric_names_has(&names, "seq_create_per_s"));
	/* fast: no per-character figures (direct-4g was run with -f -D). */
	static const char *const untimed_direct[] = { "seq_stat_per_s",    "rand_stat_per_s",
		                                      "seq_create_per_s",  "seq_delete_per_s",
		                                      "rand_create_per_s", "rand_delete_per_s",
		                                      "seeks_per_s",       "read.bw_mib",
		                                      "rewrite.bw_mib",    NULL };
	assert_promised("{\"size_mb\":4096,\"ram_mb\":2048,\"files\":\"64\",\"fast\":true,"
	                "\"direct\":true}",
	                "direct-4g", untimed_direct);
	names.n = 0;
	bonnie_engine.metrics_list(
	        opts_load(&bonnie_engine, "{\"size_mb\":0,\"files\":\"50:0:0:50\"}", &o), &names);
	assert_int_equal(names.n, 6);
	assert_true(metric_names_has(&names, "seq_create_per_s"));
	assert_false(metric_names_has(&names, "write.bw_mib"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_default), cmocka_unit_test(test_parse_direct),
		cmocka_unit_test(test_parse_small),   cmocka_unit_test(test_parse_failed),
		cmocka_unit_test(test_check),         cmocka_unit_test(test_argv),
		cmocka_unit_test(test_metrics_list),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
