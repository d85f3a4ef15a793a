/* test_iozone.c -- iozone.c: checks, argv, metrics list, and the parser on seed 000's iozone
 * output (tests/fixtures/iozone/seed-000.txt). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engines/engine.h"
#include "enginetest.h"

#define SEED_000 "iozone/seed-000.txt"

/* The "Children see throughput" KB/sec of the eight runs in seed 000, in file order:
 * initial writers, rewriters, readers, re-readers, random readers, random writers. */
static const double seed_kb[8][6] = {
	{ 127186.71, 122600.47, 147034.55, 148429.68, 111854.35, 114345.54 },
	{ 124040.12, 123174.21, 218050.79, 218356.21, 111753.62, 112428.72 },
	{ 124310.84, 126704.35, 220193.77, 225211.62, 111848.74, 113410.98 },
	{ 123856.80, 126771.08, 221716.43, 222601.81, 111680.99, 112984.59 },
	{ 124676.73, 126894.43, 220207.82, 222805.00, 111137.16, 112366.90 },
	{ 142557.77, 144666.08, 222012.70, 193011.65, 111677.88, 126197.96 },
	{ 144759.69, 143237.56, 220328.79, 222152.23, 109889.88, 128001.76 },
	{ 144278.33, 145186.16, 222705.52, 225033.54, 111713.37, 127603.61 },
};

static const char *const metric_names[6] = {
	"initial_write.bw_mib", "rewrite.bw_mib",     "read.bw_mib",
	"reread.bw_mib",        "random_read.bw_mib", "random_write.bw_mib",
};

static void assert_metric(const struct metrics *m, const char *name, double want)
{
	assert_metric_tol(m, name, want, 1e-6);
}

/* Each run in the seed, from one "Iozone: Performance Test" banner to the next, is what one
 * iozone process printed; parse them one by one. */
static void test_parse_seed_000(void **state)
{
	static const char banner[] = "Iozone: Performance Test of File I/O";
	size_t len;
	char *text = tu_slurp(SEED_000, &len);
	char *run = strstr(text, banner), *next;
	struct metrics m;
	struct err e;
	int i, k;

	for (i = 0; run; i++, run = next) {
		next = strstr(run + 1, banner);
		assert_true(i < 8);
		assert_int_equal(iozone_engine.parse(run,
		                                     next ? (size_t)(next - run)
		                                          : len - (size_t)(run - text),
		                                     "", 0, 0, 0, &m, &e),
		                 0);
		assert_int_equal(m.n, 6);
		for (k = 0; k < 6; k++)
			assert_metric(&m, metric_names[k], seed_kb[i][k] / 1024.0);
	}
	assert_int_equal(i, 8);

	/* The whole report at once: the last run's figures win. */
	assert_int_equal(iozone_engine.parse(text, len, "", 0, 0, 0, &m, &e), 0);
	assert_metric(&m, "initial_write.bw_mib", seed_kb[7][0] / 1024.0);
	free(text);
}

/* Progress counts result lines: two per selected test. */
static void test_progress(void **state)
{
	static const char banner[] = "Iozone: Performance Test of File I/O";
	struct engine_opts oa, ow;
	const struct engine_opts *all = opts_load(
	        &iozone_engine, "{\"file_size\":\"8g\",\"record_size\":\"4m\",\"threads\":6}", &oa);
	const struct engine_opts *wr = opts_load(
	        &iozone_engine, "{\"file_size\":\"8g\",\"tests\":[\"write\",\"read\"]}", &ow);
	size_t len;
	char *text = tu_slurp(SEED_000, &len);
	char *run = strstr(text, banner), *rewriters, *readers;

	rewriters = strstr(run, "rewriters"); /* padding is no-break spaces in run 1 */
	readers = strstr(run, "readers");
	assert_non_null(rewriters);
	assert_non_null(readers);
	assert_true(iozone_engine.progress(all, 1, run, 0, "", 0) == 0);
	assert_true(iozone_engine.progress(all, 1, run, (size_t)(rewriters - run), "", 0) ==
	            1.0 / 6);
	assert_true(iozone_engine.progress(wr, 1, run, (size_t)(readers - run), "", 0) == 0.5);
	assert_true(iozone_engine.progress(all, 1, text, len, "", 0) == 0.99);
	assert_true(iozone_engine.expected_runtime_s(all) == 0);
	free(text);
}

/* A run cut off before its first result (the seed's first banner and header only). */
static void test_parse_failed(void **state)
{
	size_t len, head;
	char *text = tu_slurp(SEED_000, &len);
	char *run = strstr(text, "Iozone: Performance Test of File I/O");
	struct metrics m;
	struct err e;

	head = (size_t)(strstr(run, "Children see") - run);
	assert_int_equal(iozone_engine.parse(run, head, "", 0, 0, 0, &m, &e), -EPROTO);
	assert_int_equal(e.code, ERR_ENGINE_FAILED);
	assert_int_equal(m.n, 0);
	assert_int_equal(iozone_engine.parse(run, head, "", 0, 1, 0, &m, &e), -EIO);
	assert_string_equal(e.msg, "iozone exited with status 1: Each process writes a 8388608 "
	                           "Kbyte file in 4096 Kbyte records");
	assert_int_equal(iozone_engine.parse(run, head, "", 0, -1, 15, &m, &e), -EINTR);
	assert_non_null(strstr(e.msg, "signal 15"));
	free(text);
}

static void expect_bad(const char *text, const char *msg)
{
	struct engine_opts o;
	struct err e;

	assert_int_equal(opts_check(&iozone_engine, text, &o, &e), -EINVAL);
	assert_int_equal(e.code, ERR_BAD_REQUEST);
	if (strcmp(e.msg, msg))
		fail_msg("for %s: got \"%s\", want \"%s\"", text, e.msg, msg);
}

static void test_check(void **state)
{
	static const char tests_msg[] =
	        "iozone.tests: must be an array of distinct \"write\", \"read\", \"random\"";
	struct engine_opts o;
	struct err e;

	assert_int_equal(opts_check(&iozone_engine,
	                            "{\"record_size\":\"4m\",\"file_size\":\"8g\",\"threads\":6,"
	                            "\"tests\":[\"write\",\"read\",\"random\"]}",
	                            &o, &e),
	                 0);
	expect_bad("{\"file_size\":\"1g\",\"b\":\"results.xls\"}", "iozone.b: unknown option");
	expect_bad("{}", "iozone.file_size: required (e.g. \"8g\")");
	expect_bad("{\"file_size\":\"8q\"}",
	           "iozone.file_size: must be a size like \"4k\", \"1M\" or \"2g\"");
	expect_bad("{\"file_size\":\"1g\",\"record_size\":\"4097\"}",
	           "iozone.record_size: must be a multiple of 1K");
	expect_bad("{\"file_size\":\"1g\",\"record_size\":\"32m\"}",
	           "iozone.record_size: must be 4K..16M");
	expect_bad("{\"file_size\":\"1m\",\"record_size\":\"4m\"}",
	           "iozone.file_size: must be at least record_size");
	expect_bad("{\"file_size\":\"1g\",\"threads\":65}", "iozone.threads: must be 1..64");
	expect_bad("{\"file_size\":\"1g\",\"tests\":[\"read\"]}",
	           "iozone.tests: must include \"write\" (it creates the files the other tests "
	           "use)");
	expect_bad("{\"file_size\":\"1g\",\"tests\":[\"write\",\"write\"]}", tests_msg);
	expect_bad("{\"file_size\":\"1g\",\"tests\":[\"write\",\"stride\"]}", tests_msg);
	expect_bad("{\"file_size\":\"1g\",\"tests\":[0]}", tests_msg);
	expect_bad("{\"file_size\":\"1g\",\"tests\":[]}", tests_msg);
	expect_bad("{\"file_size\":\"1g\",\"tests\":\"write\"}", tests_msg);
}

/* The seed's command line, with -F files in the job's directory; tests run in iozone order. */
static void test_argv(void **state)
{
	static const char *const want[] = {
		"iozone",
		"-r",
		"4m",
		"-s",
		"8g",
		"-t",
		"6",
		"-i",
		"0",
		"-i",
		"1",
		"-i",
		"2",
		"-F",
		"/var/lib/vz/ft-job2-l1.1",
		"/var/lib/vz/ft-job2-l1.2",
		"/var/lib/vz/ft-job2-l1.3",
		"/var/lib/vz/ft-job2-l1.4",
		"/var/lib/vz/ft-job2-l1.5",
		"/var/lib/vz/ft-job2-l1.6",
		NULL,
	};
	struct engine_target t = {
		"iozone", "/dev/loop0", "/var/lib/vz", "ft-job2-l1", NULL, NULL
	};
	struct engine_opts oo, od;
	const struct engine_opts *o = opts_load(&iozone_engine,
	                                        "{\"record_size\":\"4m\",\"file_size\":\"8g\","
	                                        "\"threads\":6,"
	                                        "\"tests\":[\"random\",\"write\",\"read\"]}",
	                                        &oo);
	const struct engine_opts *dflt = opts_load(&iozone_engine, "{\"file_size\":\"100m\"}", &od);
	char **argv;
	struct err e;
	int i;

	assert_int_equal(iozone_engine.argv_build(o, &t, &argv, &e), 0);
	for (i = 0; want[i]; i++)
		assert_string_equal(argv[i], want[i]);
	assert_null(argv[i]);
	engine_argv_free(argv);

	assert_int_equal(iozone_engine.argv_build(dflt, &t, &argv, &e), 0);
	assert_string_equal(argv[2], "4k");
	assert_string_equal(argv[4], "100m");
	assert_string_equal(argv[6], "1");
	assert_string_equal(argv[14], "/var/lib/vz/ft-job2-l1.1");
	assert_null(argv[15]);
	engine_argv_free(argv);

	t.directory = NULL;
	assert_int_equal(iozone_engine.argv_build(o, &t, &argv, &e), -EINVAL);
	assert_string_equal(e.msg, "iozone: needs a directory");
}

/* The seed's command line (-i 0 -i 1 -i 2) promises the six figures each of its runs printed;
 * fewer tests, fewer figures. */
static void test_metrics_list(void **state)
{
	struct metric_names names = { 0 };
	struct engine_opts o;
	struct metrics m;
	struct err e;
	size_t len;
	char *text = tu_slurp(SEED_000, &len);

	opts_load(&iozone_engine,
	          "{\"record_size\":\"4m\",\"file_size\":\"8g\",\"threads\":6,"
	          "\"tests\":[\"write\",\"read\",\"random\"]}",
	          &o);
	assert_int_equal(iozone_engine.parse(text, len, "", 0, 0, 0, &m, &e), 0);
	assert_metrics_promised(&iozone_engine, &o, &m);
	iozone_engine.metrics_list(
	        opts_load(&iozone_engine, "{\"file_size\":\"1g\",\"tests\":[\"write\"]}", &o),
	        &names);
	assert_int_equal(names.n, 2);
	assert_true(metric_names_has(&names, "initial_write.bw_mib"));
	assert_true(metric_names_has(&names, "rewrite.bw_mib"));
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_seed_000), cmocka_unit_test(test_progress),
		cmocka_unit_test(test_parse_failed),   cmocka_unit_test(test_check),
		cmocka_unit_test(test_argv),           cmocka_unit_test(test_metrics_list),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
