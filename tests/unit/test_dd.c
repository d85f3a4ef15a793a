/* test_dd.c -- dd.c: checks, argv, progress, and the parser on real coreutils 9.1 stderr. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engines/engine.h"
#include "enginetest.h"

static void assert_metric(const struct metrics *m, const char *name, double want)
{
	assert_metric_tol(m, name, want, 1e-3);
}

/* engine_parse() on fixture dd/<name> as stderr, with the job's options. */
static int parse_fixture(const char *name, const char *opts, int exit_code, struct metrics *m,
                         struct err *e)
{
	char path[256], *errout;
	struct engine_opts o;
	size_t len;
	int rc;

	opts_load(&dd_engine, opts, &o);
	snprintf(path, sizeof(path), "dd/%s", name);
	errout = tu_slurp(path, &len);
	err_clear(e);
	rc = engine_parse(&dd_engine, &o, "", 0, errout, len, exit_code, 0, m, e);
	if (rc == 0)
		assert_metrics_promised(&dd_engine, &o, m);
	free(errout);
	return rc;
}

/* 268435456 bytes in 0.124474 s, not dd's rounded "2.2 GB/s". */
static void test_parse_write(void **state)
{
	struct metrics m;
	struct err e;

	assert_int_equal(parse_fixture("write-direct.txt",
	                               "{\"direction\":\"write\",\"bs\":\"1M\",\"count\":256,"
	                               "\"oflag_direct\":true}",
	                               0, &m, &e),
	                 0);
	assert_int_equal(m.n, 1);
	assert_metric(&m, "write.bw_mib", 268435456 / 0.124474 / 1048576);
	assert_null(metrics_get(&m, "read.bw_mib"));
}

static void test_parse_read(void **state)
{
	struct metrics m;
	struct err e;

	assert_int_equal(parse_fixture("read-direct.txt",
	                               "{\"direction\":\"read\",\"bs\":\"1M\",\"count\":256,"
	                               "\"iflag_direct\":true}",
	                               0, &m, &e),
	                 0);
	assert_int_equal(m.n, 1);
	assert_metric(&m, "read.bw_mib", 268435456 / 0.073847 / 1048576);
}

/* status=progress lines end in '\r'; the last line (after conv=fdatasync) wins over the last
 * progress line (7.83062 s). */
static void test_parse_progress_lines(void **state)
{
	struct metrics m;
	struct err e;

	assert_int_equal(parse_fixture("write-direct-4k.txt",
	                               "{\"bs\":\"4k\",\"count\":131072,\"oflag_direct\":true}", 0,
	                               &m, &e),
	                 0);
	assert_metric(&m, "write.bw_mib", 536870912 / 8.07011 / 1048576);
}

/* parse() alone cannot tell the direction. */
static void test_parse_raw_name(void **state)
{
	struct metrics m;
	struct err e;
	size_t len;
	char *errout = tu_slurp("dd/read-direct.txt", &len);

	assert_int_equal(dd_engine.parse("", 0, errout, len, 0, 0, &m, &e), 0);
	assert_metric(&m, "bw_mib", 268435456 / 0.073847 / 1048576);
	free(errout);
}

static void test_parse_failed(void **state)
{
	struct metrics m;
	struct err e;

	assert_int_equal(parse_fixture("write-enospc.txt", "{\"count\":600,\"oflag_direct\":true}",
	                               1, &m, &e),
	                 -EIO);
	assert_int_equal(e.code, ERR_ENGINE_FAILED);
	assert_string_equal(e.msg, "dd exited with status 1: dd: error writing '/dev/loop0': No "
	                           "space left on device");
	assert_metric(&m, "write.bw_mib", 536870912 / 1.57528 / 1048576); /* partial, kept */

	assert_int_equal(dd_engine.parse("", 0, "", 0, -1, 15, &m, &e), -EINTR);
	assert_non_null(strstr(e.msg, "signal 15"));
	assert_int_equal(m.n, 0);
	assert_int_equal(dd_engine.parse("", 0, "dd: hello\n", 10, 0, 0, &m, &e), -EPROTO);
}

static void test_progress(void **state)
{
	struct engine_opts oo;
	const struct engine_opts *o =
	        opts_load(&dd_engine, "{\"bs\":\"4k\",\"count\":131072}", &oo);
	size_t len, first;
	char *errout = tu_slurp("dd/write-direct-4k.txt", &len);

	/* Up to the second '\r': "64872448 bytes ... copied, 1 s" of 512 MiB. */
	first = (size_t)(strchr(errout + 1, '\r') - errout);
	assert_true(dd_engine.progress(o, 1, "", 0, errout, first) == 64872448.0 / 536870912.0);
	assert_true(dd_engine.progress(o, 9, "", 0, errout, len) == 0.99);
	assert_true(dd_engine.progress(o, 0, "", 0, "", 0) == 0);
	assert_true(dd_engine.expected_runtime_s(o) == 0);
	free(errout);
}

static void expect_bad(const char *text, const char *msg)
{
	struct engine_opts o;
	struct err e;

	assert_int_equal(opts_check(&dd_engine, text, &o, &e), -EINVAL);
	assert_int_equal(e.code, ERR_BAD_REQUEST);
	if (strcmp(e.msg, msg))
		fail_msg("for %s: got \"%s\", want \"%s\"", text, e.msg, msg);
}

static void test_check(void **state)
{
	struct engine_opts o;
	struct err e;

	assert_int_equal(opts_check(&dd_engine,
	                            "{\"direction\":\"write\",\"bs\":\"1M\",\"count\":1024,"
	                            "\"oflag_direct\":true}",
	                            &o, &e),
	                 0);
	expect_bad("{\"count\":1,\"skip\":1}", "dd.skip: unknown option");
	expect_bad("{}", "dd.count: required (1..1000000000)");
	expect_bad("{\"count\":0}", "dd.count: must be 1..1000000000");
	expect_bad("{\"count\":1000000001}", "dd.count: must be 1..1000000000");
	expect_bad("{\"count\":1,\"bs\":\"1X\"}",
	           "dd.bs: must be a size like \"4k\", \"1M\" or \"2g\"");
	expect_bad("{\"count\":1,\"direction\":\"sideways\"}",
	           "dd.direction: must be one of write|read");
	expect_bad("{\"count\":1,\"iflag_direct\":true}",
	           "dd.iflag_direct: only valid with direction \"read\"");
	expect_bad("{\"count\":1,\"direction\":\"read\",\"oflag_direct\":true}",
	           "dd.oflag_direct: only valid with direction \"write\"");
	expect_bad("{\"count\":1,\"oflag_direct\":\"yes\"}",
	           "dd.oflag_direct: must be true or false");
}

static void assert_argv(char **argv, const char *const *want)
{
	int i;

	for (i = 0; want[i]; i++) {
		if (!argv[i])
			fail_msg("argv too short: missing \"%s\" at %d", want[i], i);
		if (strcmp(argv[i], want[i]))
			fail_msg("argv[%d] = \"%s\", want \"%s\"", i, argv[i], want[i]);
	}
	if (argv[i])
		fail_msg("argv too long: extra \"%s\" at %d", argv[i], i);
}

static void test_argv(void **state)
{
	static const char *const w_dev[] = {
		"dd",           "if=/dev/zero",   "of=/dev/loop0",   "bs=1M", "count=1024",
		"oflag=direct", "conv=fdatasync", "status=progress", NULL,
	};
	static const char *const w_dir[] = {
		"dd",       "if=/dev/zero",   "of=/mnt/t/ft-job7-l3.dd", "bs=4097",
		"count=10", "conv=fdatasync", "status=progress",         NULL,
	};
	static const char *const r_dev[] = {
		"dd",       "if=/dev/loop0", "of=/dev/null",    "bs=64K",
		"count=16", "iflag=direct",  "status=progress", NULL,
	};
	struct engine_target t = { "dd", "/dev/loop0", NULL, "ft-job7-l3", NULL, NULL };
	struct engine_opts ow, ow2, orr;
	const struct engine_opts *w = opts_load(&dd_engine,
	                                        "{\"direction\":\"write\",\"bs\":\"1M\","
	                                        "\"count\":1024,\"oflag_direct\":true}",
	                                        &ow);
	const struct engine_opts *w2 =
	        opts_load(&dd_engine, "{\"bs\":\"4097\",\"count\":10}", &ow2);
	const struct engine_opts *r = opts_load(&dd_engine,
	                                        "{\"direction\":\"read\",\"bs\":\"64k\","
	                                        "\"count\":16,\"iflag_direct\":true}",
	                                        &orr);
	char **argv;
	struct err e;

	assert_int_equal(dd_engine.argv_build(w, &t, &argv, &e), 0);
	assert_argv(argv, w_dev);
	engine_argv_free(argv);
	assert_int_equal(dd_engine.argv_build(r, &t, &argv, &e), 0);
	assert_argv(argv, r_dev);
	engine_argv_free(argv);
	t.directory = "/mnt/t";
	assert_int_equal(dd_engine.argv_build(w2, &t, &argv, &e), 0);
	assert_argv(argv, w_dir);
	engine_argv_free(argv);
	assert_int_equal(dd_engine.argv_build(r, &t, &argv, &e), -EINVAL);
	assert_null(argv);
	assert_int_equal(e.code, ERR_BAD_REQUEST);
	assert_non_null(strstr(e.msg, "dd.direction: \"read\" needs a raw device"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_write),
		cmocka_unit_test(test_parse_read),
		cmocka_unit_test(test_parse_progress_lines),
		cmocka_unit_test(test_parse_raw_name),
		cmocka_unit_test(test_parse_failed),
		cmocka_unit_test(test_progress),
		cmocka_unit_test(test_check),
		cmocka_unit_test(test_argv),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
