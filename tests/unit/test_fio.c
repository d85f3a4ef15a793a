/* test_fio.c -- fio.c and engine.c: checks, argv, progress, metrics list, parser on real fio 3.33
 * JSON. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engines/engine.h"
#include "enginetest.h"

static const struct engine *fio(void)
{
	const struct engine *eng = engine_find("fio");

	assert_non_null(eng);
	return eng;
}

/* Parse fixture fio/<name> (stdout) and fio/<name>.stderr if given. */
static int parse_fixture(const char *name, const char *errname, int exit_code, int sig,
                         struct metrics *m, struct err *e)
{
	char path[256];
	char *out, *errout = NULL;
	size_t out_len, err_len = 0;
	int rc;

	snprintf(path, sizeof(path), "fio/%s", name);
	out = tu_slurp(path, &out_len);
	if (errname) {
		snprintf(path, sizeof(path), "fio/%s", errname);
		errout = tu_slurp(path, &err_len);
	}
	err_clear(e);
	rc = fio()->parse(out, out_len, errout, err_len, exit_code, sig, m, e);
	free(out);
	free(errout);
	return rc;
}

static void assert_metric(const struct metrics *m, const char *name, double want)
{
	assert_metric_tol(m, name, want, 1e-3);
}

static void assert_no_dir(const struct metrics *m, const char *dir)
{
	static const char *const names[] = { "bw_mib",      "iops",        "clat_mean_us",
		                             "clat_p50_us", "clat_p99_us", "clat_p999_us" };
	char name[48];
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(name, sizeof(name), "%s.%s", dir, names[i]);
		if (metrics_get(m, name))
			fail_msg("metric %s present for a direction without I/O", name);
	}
}

static void test_parse_read(void **state)
{
	struct metrics m;
	struct err e;

	assert_int_equal(parse_fixture("read.json", NULL, 0, 0, &m, &e), 0);
	assert_metric(&m, "read.bw_mib", 2858.283433);
	assert_metric(&m, "read.iops", 2858.283433);
	assert_metric(&m, "read.clat_mean_us", 5472.493857);
	assert_metric(&m, "read.clat_p50_us", 1564.672);
	assert_metric(&m, "read.clat_p99_us", 53215.232);
	assert_metric(&m, "read.clat_p999_us", 64749.568);
	assert_metric(&m, "cpu.usr_pct", 0.4995);
	assert_metric(&m, "cpu.sys_pct", 13.486513);
	assert_no_dir(&m, "write");
	assert_no_dir(&m, "trim");
	assert_int_equal(m.n, 8);
}

static void test_parse_write(void **state)
{
	struct metrics m;
	struct err e;

	assert_int_equal(parse_fixture("write.json", NULL, 0, 0, &m, &e), 0);
	assert_metric(&m, "write.bw_mib", 5505.494505);
	assert_metric(&m, "write.iops", 5505.494505);
	assert_metric(&m, "write.clat_mean_us", 2837.843348);
	assert_metric(&m, "write.clat_p50_us", 2703.360);
	assert_metric(&m, "write.clat_p99_us", 6193.152);
	assert_metric(&m, "write.clat_p999_us", 9240.576);
	assert_metric(&m, "cpu.usr_pct", 22.2);
	assert_metric(&m, "cpu.sys_pct", 19.8);
	assert_no_dir(&m, "read");
}

static void test_parse_randrw(void **state)
{
	struct metrics m;
	struct err e;

	assert_int_equal(parse_fixture("randrw.json", NULL, 0, 0, &m, &e), 0);
	assert_metric(&m, "read.bw_mib", 264.196740);
	assert_metric(&m, "read.iops", 67634.365634);
	assert_metric(&m, "read.clat_mean_us", 323.552243);
	assert_metric(&m, "read.clat_p99_us", 937.984);
	assert_metric(&m, "write.bw_mib", 112.383710);
	assert_metric(&m, "write.iops", 28770.22977);
	assert_metric(&m, "write.clat_p999_us", 1433.600);
	assert_metric(&m, "cpu.sys_pct", 33.9);
	assert_int_equal(m.n, 14);
}

/* bw_mib agrees with fio's KiB/s "bw" field divided by 1024. */
static void test_parse_randwrite_numjobs4(void **state)
{
	struct metrics m;
	struct err e;

	assert_int_equal(parse_fixture("randwrite-4jobs.json", NULL, 0, 0, &m, &e), 0);
	assert_metric(&m, "write.bw_mib", 6969.132777);
	assert_true(fabs(metrics_get(&m, "write.bw_mib")->value - 7136391 / 1024.0) < 0.001);
	assert_metric(&m, "write.iops", 1742.283195);
	assert_metric(&m, "write.clat_mean_us", 139155.291181);
	assert_metric(&m, "write.clat_p99_us", 258998.272);
	assert_no_dir(&m, "read");
}

/* fio prints "fio: pid=..., err=22/..." on stdout before the JSON and exits 1. */
static void test_parse_error_before_json(void **state)
{
	struct metrics m;
	struct err e;

	assert_int_equal(
	        parse_fixture("error-before-json.json", "error-before-json.stderr", 1, 0, &m, &e),
	        -EIO);
	assert_int_equal(e.code, ERR_ENGINE_FAILED);
	assert_non_null(strstr(e.msg, "status 1"));
	assert_non_null(strstr(e.msg, "job error 22"));
	assert_non_null(strstr(e.msg, "fio: io_u error on file /dev/loop0: Invalid argument"));
	assert_no_dir(&m, "read");
	assert_non_null(metrics_get(&m, "cpu.usr_pct")); /* the JSON after the error line parsed */

	/* Same output without stderr: the error line before the JSON is fio's text. */
	assert_int_equal(parse_fixture("error-before-json.json", NULL, 1, 0, &m, &e), -EIO);
	assert_non_null(strstr(e.msg, "err=22/file:io_u.c:1876, func=io_u error, "
	                              "error=Invalid argument"));

	/* The job's "error" field alone fails the pass even with exit status 0. */
	assert_int_equal(parse_fixture("error-before-json.json", NULL, 0, 0, &m, &e), -EIO);
	assert_non_null(strstr(e.msg, "job error 22"));
}

/* A bad --directory: fio exits 1 without any JSON. */
static void test_parse_no_json(void **state)
{
	struct metrics m;
	struct err e;

	assert_int_equal(parse_fixture("nodir.out", "nodir.stderr", 1, 0, &m, &e), -EIO);
	assert_non_null(strstr(e.msg, "fio: /tmp/ft-eng-cap/nonexistent is not a directory"));
	assert_int_equal(m.n, 0);
	assert_int_equal(parse_fixture("nodir.out", "nodir.stderr", 0, 0, &m, &e), -EPROTO);
	assert_non_null(strstr(e.msg, "no JSON"));
}

/* SIGTERM to fio's group: partial JSON after "fio: terminating on signal 15", exit 128. */
static void test_parse_killed(void **state)
{
	struct metrics m;
	struct err e;

	assert_int_equal(parse_fixture("killed.json", NULL, 128, 0, &m, &e), -EINTR);
	assert_int_equal(e.code, ERR_ENGINE_FAILED);
	assert_non_null(strstr(e.msg, "fio: terminating on signal 15"));
	assert_metric(&m, "write.bw_mib", 1073.762175);
	assert_metric(&m, "write.iops", 17180.194805);
	assert_no_dir(&m, "read");

	/* Killed outright (SIGKILL: no output at all). */
	assert_int_equal(fio()->parse("", 0, "", 0, -1, 9, &m, &e), -EINTR);
	assert_non_null(strstr(e.msg, "signal 9"));
	assert_int_equal(m.n, 0);
}

static void test_parse_truncated(void **state)
{
	struct metrics m;
	struct err e;
	size_t len;
	char *out = tu_slurp("fio/read.json", &len);

	assert_int_equal(fio()->parse(out, len / 2, NULL, 0, 0, 0, &m, &e), -EPROTO);
	assert_non_null(strstr(e.msg, "cannot parse fio's JSON"));
	assert_int_equal(fio()->parse(NULL, 0, NULL, 0, 0, 0, &m, &e), -EPROTO);
	free(out);
}

static int check_json(const char *text, struct err *e)
{
	struct engine_opts o;

	return opts_check(fio(), text, &o, e);
}

static void expect_bad(const char *text, const char *msg)
{
	struct err e;

	assert_int_equal(check_json(text, &e), -EINVAL);
	assert_int_equal(e.code, ERR_BAD_REQUEST);
	if (strcmp(e.msg, msg))
		fail_msg("for %s: got \"%s\", want \"%s\"", text, e.msg, msg);
}

static void test_check(void **state)
{
	struct engine_opts o;
	struct err e;

	assert_int_equal(opts_check(fio(), NULL, &o, &e), 0);
	assert_int_equal(check_json("{}", &e), 0);
	assert_int_equal(check_json("{\"rw\":\"randwrite\",\"bs\":\"4M\",\"ioengine\":\"libaio\","
	                            "\"direct\":true,\"iodepth\":64,\"numjobs\":4,\"size\":\"2g\","
	                            "\"runtime_s\":30,\"time_based\":true,\"rwmixread\":70}",
	                            &e),
	                 0);
	expect_bad("{\"rw\":\"read\",\"blocksize\":\"4k\"}", "fio.blocksize: unknown option");
	expect_bad("{\"bs\":\"4Q\"}", "fio.bs: must be a size like \"4k\", \"1M\" or \"2g\"");
	expect_bad("{\"bs\":4096}", "fio.bs: must be a size like \"4k\", \"1M\" or \"2g\"");
	expect_bad("{\"bs\":\"2G\"}", "fio.bs: must be 1..1G");
	expect_bad("{\"size\":\"-1g\"}", "fio.size: must be a size like \"4k\", \"1M\" or \"2g\"");
	expect_bad("{\"iodepth\":0}", "fio.iodepth: must be 1..4096");
	expect_bad("{\"iodepth\":4097}", "fio.iodepth: must be 1..4096");
	expect_bad("{\"iodepth\":\"64\"}", "fio.iodepth: must be an integer 1..4096");
	expect_bad("{\"iodepth\":6.5}", "fio.iodepth: must be an integer 1..4096");
	expect_bad("{\"numjobs\":257}", "fio.numjobs: must be 1..256");
	expect_bad("{\"runtime_s\":0}", "fio.runtime_s: must be 1..86400 s");
	expect_bad("{\"runtime_s\":86401}", "fio.runtime_s: must be 1..86400 s");
	expect_bad("{\"rwmixread\":101}", "fio.rwmixread: must be 0..100");
	expect_bad("{\"ramp_time_s\":3601}", "fio.ramp_time_s: must be 0..3600 s");
	expect_bad("{\"ramp_time_s\":-1}", "fio.ramp_time_s: must be 0..3600 s");
	expect_bad("{\"direct\":1}", "fio.direct: must be true or false");
	expect_bad("{\"rw\":\"randomwrite\"}", "fio.rw: must be one of read|write|randread|"
	                                       "randwrite|rw|readwrite|randrw|trim|randtrim|"
	                                       "trimwrite");
	expect_bad("{\"ioengine\":\"splice; rm -rf /\"}",
	           "fio.ioengine: must be one of libaio|io_uring|psync|sync|pvsync|pvsync2|vsync|"
	           "posixaio|mmap");
	expect_bad("{\"time_based\":true}", "fio.time_based: needs runtime_s (fio would run "
	                                    "forever)");
	expect_bad("{\"bs\":\"1M\",\"size\":\"4k\"}", "fio.size: must be at least bs");
	expect_bad("[1,2]", "fio: must be an object");
}

static void assert_argv(char **argv, const char *const *want);

/* Times in fio's units: runtime_s and ramp_time_s take integers (seconds) and "30s", "2m";
 * thinktime integers (microseconds, fio's unit) and "10ms". */
static void test_units(void **state)
{
	struct engine_opts o;
	struct err e;

	(void)state;
	opts_load(fio(), "{\"runtime_s\":\"2m\",\"ramp_time_s\":\"30s\",\"thinktime\":\"10ms\"}",
	          &o);
	assert_int_equal(o.fio.runtime_s, 120);
	assert_int_equal(o.fio.ramp_time_s, 30);
	assert_int_equal(o.fio.thinktime_us, 10000);
	opts_load(fio(), "{\"runtime_s\":\"1h\",\"ramp_time_s\":0,\"thinktime\":250}", &o);
	assert_int_equal(o.fio.runtime_s, 3600);
	assert_int_equal(o.fio.thinktime_us, 250);
	opts_load(fio(), "{\"runtime_s\":\"3000ms\",\"thinktime\":\"1s\"}", &o);
	assert_int_equal(o.fio.runtime_s, 3);
	assert_int_equal(o.fio.thinktime_us, 1000000);
	opts_load(fio(), "{\"runtime_s\":\"1d\"}", &o);
	assert_int_equal(o.fio.runtime_s, 86400);
	expect_bad("{\"runtime_s\":\"30x\"}",
	           "fio.runtime_s: must be an integer (s) or a time like "
	           "\"30s\", \"2m\", \"500ms\"");
	expect_bad("{\"runtime_s\":\"1500ms\"}",
	           "fio.runtime_s: must be a whole number of s (\"1500ms\" is not)");
	expect_bad("{\"runtime_s\":\"2d\"}", "fio.runtime_s: must be 1..86400 s");
	expect_bad("{\"runtime_s\":\" 30s\"}", "fio.runtime_s: must be an integer (s) or a time "
	                                       "like \"30s\", \"2m\", \"500ms\"");
	expect_bad("{\"runtime_s\":\"-30s\"}", "fio.runtime_s: must be an integer (s) or a time "
	                                       "like \"30s\", \"2m\", \"500ms\"");
	expect_bad("{\"runtime_s\":30.5}", "fio.runtime_s: must be an integer (s) or a time like "
	                                   "\"30s\", \"2m\", \"500ms\"");
	expect_bad("{\"ramp_time_s\":\"2h\"}", "fio.ramp_time_s: must be 0..3600 s");
	expect_bad("{\"thinktime\":\"61s\"}", "fio.thinktime: must be 0..60000000 us");
	expect_bad("{\"thinktime\":true}", "fio.thinktime: must be an integer (us) or a time like "
	                                   "\"30s\", \"2m\", \"500ms\"");
	expect_bad("{\"thinktime\":\"99999999999999999999s\"}",
	           "fio.thinktime: must be an integer (us) or a time like \"30s\", \"2m\", "
	           "\"500ms\"");
	/* The duration parser itself */
	{
		int64_t us;

		assert_int_equal(engine_duration_parse("30", 1000000, &us), 0);
		assert_true(us == 30000000);
		assert_int_equal(engine_duration_parse("5MIN", 1, &us), 0);
		assert_true(us == 300000000);
		assert_int_equal(engine_duration_parse("7usec", 1000000, &us), 0);
		assert_true(us == 7);
		assert_int_equal(engine_duration_parse("1m30s", 1, &us), -EINVAL);
		assert_int_equal(engine_duration_parse("", 1, &us), -EINVAL);
		assert_int_equal(engine_duration_parse("9223372036854775807d", 1, &us), -ERANGE);
	}
	(void)e;
}

/* The options fio users use daily, each checked strictly and named when wrong. */
static void test_new_options(void **state)
{
	struct engine_opts o;

	(void)state;
	opts_load(fio(),
	          "{\"rw\":\"randrw\",\"rwmixwrite\":30,\"bssplit\":\"4k/10:64k/50:32k/40\","
	          "\"random_distribution\":\"zipf:1.2\",\"percentage_random\":80,"
	          "\"norandommap\":true,\"randrepeat\":false,\"rate\":\"10m\","
	          "\"iodepth\":16,\"iodepth_batch\":8,\"fsync\":32,\"fdatasync\":0,"
	          "\"end_fsync\":true,\"invalidate\":true,\"offset\":\"1g\","
	          "\"offset_increment\":\"256m\",\"thinktime\":\"100us\",\"loops\":3}",
	          &o);
	assert_true(o.fio.rate_bytes_s == 10 << 20);
	assert_true(o.fio.offset == 1ULL << 30);
	assert_string_equal(o.fio.bssplit, "4k/10:64k/50:32k/40");
	opts_load(fio(), "{\"bssplit\":\"4k/:8k/:1m/20,4k\"}", &o);
	opts_load(fio(), "{\"random_distribution\":\"zoned:60/10:30/20:10/70\"}", &o);
	opts_load(fio(), "{\"random_distribution\":\"zoned_abs:60/20g:40/100g\"}", &o);
	opts_load(fio(), "{\"random_distribution\":\"pareto:0.9\"}", &o);
	opts_load(fio(), "{\"random_distribution\":\"normal:25:0.5\"}", &o);
	opts_load(fio(), "{\"random_distribution\":\"random\"}", &o);
	opts_load(fio(), "{\"rate_iops\":500,\"offset\":\"0\"}", &o);
	opts_load(fio(), "{\"rwmixread\":70,\"rwmixwrite\":30}", &o);
	expect_bad("{\"bssplit\":\"4k/50:64k/40\"}",
	           "fio.bssplit: the percentages of a list add up to 90; they must make 100 (or "
	           "less, with some left out) (fio's bssplit: \"4k/10:64k/50:32k/40\", per "
	           "direction \"R,W\")");
	expect_bad("{\"bssplit\":\"4q/100\"}",
	           "fio.bssplit: '4q' is not a block size 1..1G like 4k (fio's bssplit: "
	           "\"4k/10:64k/50:32k/40\", per direction \"R,W\")");
	expect_bad("{\"bssplit\":\"4k/101\"}",
	           "fio.bssplit: '101' is not a percentage 0..100 (fio's bssplit: "
	           "\"4k/10:64k/50:32k/40\", per direction \"R,W\")");
	expect_bad("{\"bssplit\":\"4k,4k,4k,4k\"}",
	           "fio.bssplit: at most 3 lists (read,write,trim) (fio's bssplit: "
	           "\"4k/10:64k/50:32k/40\", per direction \"R,W\")");
	expect_bad("{\"bssplit\":\"4k/100\",\"bs\":\"4k\"}",
	           "fio.bssplit: give bs or bssplit, not both (fio would ignore bs)");
	expect_bad("{\"random_distribution\":\"zipf:1\"}",
	           "fio.random_distribution: 'zipf:1': zipf's theta must be above 0 and not 1");
	expect_bad("{\"random_distribution\":\"pareto:1.5\"}",
	           "fio.random_distribution: 'pareto:1.5': pareto's h must be between 0 and 1");
	expect_bad(
	        "{\"random_distribution\":\"zoned:60/10:30/20\"}",
	        "fio.random_distribution: 'zoned:60/10:30/20': the accesses add up to 90 and the "
	        "ranges to 30; the accesses must make 100, the ranges at most 100");
	expect_bad("{\"random_distribution\":\"uniform\"}",
	           "fio.random_distribution: 'uniform': expected random, zipf:THETA, pareto:H, "
	           "normal:DEV (or gauss), zoned:ACCESS%/RANGE%:..., zoned_abs:ACCESS%/SIZE:...");
	expect_bad("{\"random_distribution\":\"zipf:x\"}",
	           "fio.random_distribution: 'zipf:x': zipf needs a number after ':'");
	expect_bad("{\"random_distribution\":12}",
	           "fio.random_distribution: must be fio's random_distribution, \"zipf:1.2\"");
	expect_bad("{\"rwmixwrite\":101}", "fio.rwmixwrite: must be 0..100");
	expect_bad("{\"rwmixread\":70,\"rwmixwrite\":40}",
	           "fio.rwmixwrite: rwmixread 70 and rwmixwrite 40 must add up to 100 (give one of "
	           "them)");
	expect_bad("{\"percentage_random\":101}", "fio.percentage_random: must be 0..100");
	expect_bad("{\"norandommap\":1}", "fio.norandommap: must be true or false");
	expect_bad("{\"randrepeat\":\"yes\"}", "fio.randrepeat: must be true or false");
	expect_bad("{\"rate\":\"0\"}", "fio.rate: must be 1..1T");
	expect_bad("{\"rate\":1048576}", "fio.rate: must be a size like \"4k\", \"1M\" or \"2g\"");
	expect_bad("{\"rate\":\"1m\",\"rate_iops\":100}",
	           "fio.rate_iops: give rate or rate_iops, not both");
	expect_bad("{\"rate_iops\":0}", "fio.rate_iops: must be 1..100000000");
	expect_bad("{\"iodepth_batch\":4}", "fio.iodepth_batch: 4 is more than iodepth (1, fio's "
	                                    "default)");
	expect_bad("{\"iodepth\":8,\"iodepth_batch\":16}",
	           "fio.iodepth_batch: 16 is more than iodepth (8)");
	expect_bad("{\"fsync\":-1}", "fio.fsync: must be 0..1000000000");
	expect_bad("{\"fdatasync\":\"4\"}", "fio.fdatasync: must be an integer 0..1000000000");
	expect_bad("{\"end_fsync\":\"true\"}", "fio.end_fsync: must be true or false");
	expect_bad("{\"invalidate\":0}", "fio.invalidate: must be true or false");
	expect_bad("{\"offset\":\"10%\"}", "fio.offset: must be a size like \"4k\", \"1M\" or "
	                                   "\"2g\"");
	expect_bad("{\"offset_increment\":4096}", "fio.offset_increment: must be a size like "
	                                          "\"4k\", \"1M\" or \"2g\"");
	expect_bad("{\"loops\":0}", "fio.loops: must be 1..1000000");
	expect_bad("{\"random_distribution\":\"zipf:1.2\",\"exec_prerun\":\"x\"}",
	           "fio.exec_prerun: unknown option");
}

static void test_argv_new_options(void **state)
{
	static const char *const want[] = {
		"fio",
		"--name=w",
		"--output-format=json",
		"--group_reporting",
		"--filename=/dev/loop0",
		"--rw=randrw",
		"--iodepth=16",
		"--runtime=120",
		"--rwmixwrite=30",
		"--bssplit=4k/10:64k/90",
		"--random_distribution=zipf:1.2",
		"--percentage_random=80",
		"--norandommap=1",
		"--randrepeat=0",
		"--rate=10M",
		"--iodepth_batch=8",
		"--fsync=32",
		"--fdatasync=1",
		"--end_fsync=1",
		"--invalidate=0",
		"--offset=1G",
		"--offset_increment=256M",
		"--thinktime=100us",
		"--loops=3",
		NULL,
	};
	struct engine_target t = { "fio", "/dev/loop0", NULL, "w", NULL, NULL };
	struct engine_opts oo;
	const struct engine_opts *o =
	        opts_load(fio(),
	                  "{\"rw\":\"randrw\",\"rwmixwrite\":30,\"bssplit\":\"4k/10:64k/90\","
	                  "\"random_distribution\":\"zipf:1.2\",\"percentage_random\":80,"
	                  "\"norandommap\":true,\"randrepeat\":false,\"rate\":\"10m\","
	                  "\"iodepth\":16,\"iodepth_batch\":8,\"fsync\":32,\"fdatasync\":1,"
	                  "\"end_fsync\":true,\"invalidate\":false,\"offset\":\"1g\","
	                  "\"offset_increment\":\"256m\",\"thinktime\":\"100us\",\"loops\":3,"
	                  "\"runtime_s\":\"2m\"}",
	                  &oo);
	struct metric_names names = { 0 };
	char **argv = NULL;
	struct err e;

	(void)state;
	assert_int_equal(fio()->argv_build(o, &t, &argv, &e), 0);
	assert_argv(argv, want);
	engine_argv_free(argv);
	/* rwmixwrite 100: a mixed workload that only writes reports no read figures */
	o = opts_load(fio(), "{\"rw\":\"randrw\",\"rwmixwrite\":100}", &oo);
	fio()->metrics_list(o, &names);
	assert_false(metric_names_has(&names, "read.iops"));
	assert_true(metric_names_has(&names, "write.iops"));
}

/* The pass deadline (docs/api.md "pass deadline") from rate limits, thinktime and loops: a
 * pass bounded by its I/O takes size/rate per job, an idle thinktime after every I/O of its
 * smallest block, and loops times that; runtime_s bounds it whatever they say (plus one
 * thinktime). */
static void test_deadline_throttled(void **state)
{
	const uint64_t MiB = 1024 * 1024;
	struct engine_opts oo;
	const struct engine_opts *o;

	(void)state;
	/* 64 MiB at 1 MiB/s: 64 s, besides 64 s at the floor rate */
	o = opts_load(fio(), "{\"size\":\"64m\",\"rate\":\"1m\"}", &oo);
	assert_true(engine_pass_deadline_s(fio(), o, false, 1024 * MiB) == 2 * (64 + 64) + 30);
	assert_true(fio()->expected_runtime_s(o) == 64);
	/* ... 3 loops, 2 jobs each with its own rate: 3 x 64 s of rate, 3 x 128 s at the floor */
	o = opts_load(fio(), "{\"size\":\"64m\",\"rate\":\"1m\",\"loops\":3,\"numjobs\":2}", &oo);
	assert_true(engine_pass_deadline_s(fio(), o, false, 1024 * MiB) ==
	            2 * (3 * 64 + 3 * 128) + 30);
	assert_true(fio()->expected_runtime_s(o) == 3 * 64);
	/* rate_iops of the smallest block: 16 MiB of 4k blocks = 4096 IOs at 256/s = 16 s */
	o = opts_load(fio(), "{\"size\":\"16m\",\"bs\":\"4k\",\"rate_iops\":256}", &oo);
	assert_true(engine_pass_deadline_s(fio(), o, false, 1024 * MiB) == 2 * (16 + 16) + 30);
	o = opts_load(fio(), "{\"size\":\"16m\",\"bssplit\":\"4k/50:1m/50\",\"rate_iops\":256}",
	              &oo);
	assert_true(engine_pass_deadline_s(fio(), o, false, 1024 * MiB) == 2 * (16 + 16) + 30);
	/* thinktime 10 ms after each of 1024 16k blocks: 10.24 s */
	o = opts_load(fio(), "{\"size\":\"16m\",\"bs\":\"16k\",\"thinktime\":\"10ms\"}", &oo);
	assert_true(engine_pass_deadline_s(fio(), o, false, 1024 * MiB) ==
	            ceil(2 * (16 + 10.24) + 30));
	assert_true(fabs(fio()->expected_runtime_s(o) - 10.24) < 1e-9);
	/* without size: the device from offset on */
	o = opts_load(fio(), "{\"offset\":\"64m\",\"rate\":\"1m\"}", &oo);
	assert_true(engine_pass_deadline_s(fio(), o, false, 128 * MiB) == 2 * (64 + 64) + 30);
	assert_true(fio()->expected_runtime_s(o) == 0);
	/* runtime_s bounds it, whatever the rate: 60 s, ramp 10 s, one thinktime of 2 s */
	o = opts_load(fio(),
	              "{\"size\":\"64g\",\"rate\":\"1k\",\"runtime_s\":\"1m\",\"ramp_time_s\":10,"
	              "\"thinktime\":\"2s\",\"loops\":100}",
	              &oo);
	assert_true(engine_pass_deadline_s(fio(), o, false, 1024 * MiB) == 2 * 72 + 30);
	assert_true(fio()->expected_runtime_s(o) == 72);
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

/* The example body: rwmixread is kept out of a randwrite run. */
static void test_argv_device(void **state)
{
	static const char *const want[] = {
		"/usr/bin/fio",
		"--name=ft-job12-l1",
		"--output-format=json",
		"--group_reporting",
		"--filename=/dev/loop0",
		"--rw=randwrite",
		"--bs=4M",
		"--ioengine=libaio",
		"--direct=1",
		"--iodepth=64",
		"--numjobs=4",
		"--size=2G",
		"--runtime=30",
		"--time_based",
		"--ramp_time=5",
		NULL,
	};
	struct engine_target t = { "/usr/bin/fio", "/dev/loop0", NULL, "ft-job12-l1", NULL, NULL };
	struct engine_opts oo;
	const struct engine_opts *o =
	        opts_load(fio(),
	                  "{\"rw\":\"randwrite\",\"bs\":\"4M\",\"ioengine\":\"libaio\","
	                  "\"direct\":true,\"iodepth\":64,\"numjobs\":4,\"size\":\"2g\","
	                  "\"runtime_s\":30,\"time_based\":true,\"rwmixread\":70,"
	                  "\"ramp_time_s\":5}",
	                  &oo);
	char **argv = NULL;
	struct err e;

	assert_int_equal(fio()->argv_build(o, &t, &argv, &e), 0);
	assert_argv(argv, want);
	engine_argv_free(argv);
}

static void test_argv_directory_mixed(void **state)
{
	static const char *const want[] = {
		"fio",
		"--name=ft-job3-l2",
		"--output-format=json",
		"--group_reporting",
		"--directory=/mnt/test dir\\:1",
		"--rw=randrw",
		"--bs=4097",
		"--direct=0",
		"--size=64M",
		"--rwmixread=70",
		NULL,
	};
	struct engine_target t = {
		"fio", "/dev/loop0", "/mnt/test dir:1", "ft-job3-l2", NULL, NULL
	};
	struct engine_opts oo;
	const struct engine_opts *o =
	        opts_load(fio(),
	                  "{\"rw\":\"randrw\",\"bs\":\"4097\",\"direct\":false,\"size\":\"64m\","
	                  "\"rwmixread\":70}",
	                  &oo);
	char **argv = NULL;
	struct err e;

	assert_int_equal(fio()->argv_build(o, &t, &argv, &e), 0);
	assert_argv(argv, want);
	engine_argv_free(argv);
}

static void test_argv_refused(void **state)
{
	struct engine_target t = { "fio", "/dev/loop0", "/mnt/test", "ft-job3-l2", NULL, NULL };
	struct engine_opts oo;
	const struct engine_opts *o = opts_load(fio(), "{\"rw\":\"write\"}", &oo);
	char **argv = (char **)1;
	struct err e;

	assert_int_equal(fio()->argv_build(o, &t, &argv, &e), -EINVAL);
	assert_null(argv);
	assert_string_equal(e.msg, "fio.size: required when the job writes files in a directory");
	t.directory = NULL;
	t.device_path = NULL;
	assert_int_equal(fio()->argv_build(o, &t, &argv, &e), -EINVAL);
	assert_string_equal(e.msg, "fio: no device or directory to run on");
}

static void test_progress(void **state)
{
	struct engine_opts oo, on, od;
	const struct engine_opts *o =
	        opts_load(fio(), "{\"runtime_s\":30,\"time_based\":true}", &oo);
	const struct engine_opts *none = opts_load(fio(), "{\"size\":\"1g\"}", &on);
	const struct engine_opts *dflt = opts_load(fio(), NULL, &od);

	assert_true(fio()->expected_runtime_s(o) == 30);
	/* fio ramps before it measures: the pass lasts ramp_time_s longer. */
	assert_true(fio()->expected_runtime_s(
	                    opts_load(fio(), "{\"runtime_s\":30,\"ramp_time_s\":10}", &on)) == 40);
	none = opts_load(fio(), "{\"size\":\"1g\"}", &on);
	assert_true(fio()->expected_runtime_s(none) == 0);
	assert_true(fio()->progress(o, 0, NULL, 0, NULL, 0) == 0);
	assert_true(fio()->progress(o, 15, NULL, 0, NULL, 0) == 0.5);
	assert_true(fio()->progress(o, 45, NULL, 0, NULL, 0) == 0.99);
	assert_true(fio()->progress(none, 15, NULL, 0, NULL, 0) == -1);
	assert_true(fio()->progress(dflt, 15, NULL, 0, NULL, 0) == -1);
}

/* Each fixture's options (tests/fixtures/README.md): what the engine promises is exactly what
 * fio reported. */
static void test_metrics_list(void **state)
{
	static const struct {
		const char *fixture, *opts;
	} cases[] = {
		{ "read.json",
		  "{\"rw\":\"read\",\"bs\":\"1M\",\"ioengine\":\"libaio\",\"direct\":true,"
		  "\"iodepth\":16,\"size\":\"256M\",\"runtime_s\":1,\"time_based\":true}" },
		{ "write.json", "{\"rw\":\"write\",\"bs\":\"1M\",\"ioengine\":\"libaio\","
		                "\"direct\":true,\"iodepth\":16,\"size\":\"256M\",\"runtime_s\":1,"
		                "\"time_based\":true}" },
		{ "randrw.json", "{\"rw\":\"randrw\",\"rwmixread\":70,\"bs\":\"4k\","
		                 "\"ioengine\":\"libaio\",\"direct\":true,\"iodepth\":32,"
		                 "\"size\":\"256M\",\"runtime_s\":1,\"time_based\":true}" },
		{ "randwrite-4jobs.json",
		  "{\"rw\":\"randwrite\",\"bs\":\"4M\",\"ioengine\":\"libaio\","
		  "\"direct\":true,\"iodepth\":64,\"numjobs\":4,"
		  "\"size\":\"128M\",\"runtime_s\":2,\"time_based\":true}" },
	};
	struct metric_names names = { 0 };
	struct engine_opts o;
	struct metrics m;
	struct err e;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		opts_load(fio(), cases[i].opts, &o);
		assert_int_equal(parse_fixture(cases[i].fixture, NULL, 0, 0, &m, &e), 0);
		assert_metrics_promised(fio(), &o, &m);
	}
	/* No write.* for a read workload, whatever fio's default; none of the reads when a mixed
	 * workload only writes. */
	fio()->metrics_list(opts_load(fio(), "{\"rw\":\"randread\"}", &o), &names);
	assert_true(metric_names_has(&names, "read.bw_mib"));
	assert_false(metric_names_has(&names, "write.bw_mib"));
	assert_true(metric_names_has(&names, "cpu.sys_pct"));
	names.n = 0;
	fio()->metrics_list(opts_load(fio(), NULL, &o), &names);
	assert_true(metric_names_has(&names, "read.clat_p99_us"));
	assert_int_equal(names.n, 8);
	names.n = 0;
	fio()->metrics_list(opts_load(fio(), "{\"rw\":\"randrw\",\"rwmixread\":0}", &o), &names);
	assert_false(metric_names_has(&names, "read.bw_mib"));
	assert_true(metric_names_has(&names, "write.clat_p999_us"));
	names.n = 0;
	fio()->metrics_list(opts_load(fio(), "{\"rw\":\"trimwrite\"}", &o), &names);
	assert_true(metric_names_has(&names, "trim.iops"));
	assert_true(metric_names_has(&names, "write.iops"));
	assert_false(metric_names_has(&names, "read.iops"));
}

static void test_registry(void **state)
{
	char path[512], *dir, *old_path = strdup(getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
	struct err e;

	assert_ptr_equal(engine_find("fio"), &fio_engine);
	assert_ptr_equal(engine_find("dd"), &dd_engine);
	assert_ptr_equal(engine_find("bonnie"), &bonnie_engine);
	assert_ptr_equal(engine_find("iozone"), &iozone_engine);
	assert_null(engine_find("bonnie++"));
	assert_null(engine_find(NULL));
	assert_string_equal(fio_engine.raw_stream, "stdout");
	assert_string_equal(dd_engine.raw_stream, "stderr");
	assert_int_equal(bonnie_engine.needs_directory, 1);
	assert_int_equal(fio_engine.needs_directory, 0);

	snprintf(path, sizeof(path), "%s/fake-fio.sh", FT_FIXTURES);
	assert_int_equal(engine_available(&fio_engine, path, &e), 0);
	assert_int_equal(engine_available(&fio_engine, "/nonexistent/fio", &e), -ENOENT);
	assert_int_equal(e.code, ERR_ENGINE_UNAVAILABLE);
	assert_non_null(strstr(e.msg, "/nonexistent/fio"));

	/* iozone is looked up on PATH. */
	dir = tu_tmpdir();
	setenv("PATH", dir, 1);
	assert_int_equal(engine_available(&iozone_engine, NULL, &e), -ENOENT);
	assert_string_equal(e.msg, "engine 'iozone' is not available: 'iozone' not found on PATH");
	tu_write(dir, "iozone", "#!/bin/sh\n", 0755);
	assert_int_equal(engine_available(&iozone_engine, NULL, &e), 0);
	setenv("PATH", old_path, 1);
	assert_int_equal(engine_available(&dd_engine, NULL, &e), 0);
	tu_rmrf(dir);
	free(dir);
	free(old_path);
}

static void test_metrics(void **state)
{
	struct metrics m = { 0 };
	int i;

	metrics_set(&m, "read.bw_mib", 1);
	metrics_set(&m, "read.bw_mib", 2);
	metrics_set(&m, "write.bw_mib", 3);
	assert_int_equal(m.n, 2);
	assert_true(metrics_get(&m, "read.bw_mib")->value == 2);
	assert_null(metrics_get(&m, "read.iops"));
	for (i = 0; i < METRICS_MAX + 5; i++) {
		char name[48];

		snprintf(name, sizeof(name), "m%d", i);
		metrics_set(&m, name, i);
	}
	assert_int_equal(m.n, METRICS_MAX);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_read),
		cmocka_unit_test(test_parse_write),
		cmocka_unit_test(test_parse_randrw),
		cmocka_unit_test(test_parse_randwrite_numjobs4),
		cmocka_unit_test(test_parse_error_before_json),
		cmocka_unit_test(test_parse_no_json),
		cmocka_unit_test(test_parse_killed),
		cmocka_unit_test(test_parse_truncated),
		cmocka_unit_test(test_check),
		cmocka_unit_test(test_units),
		cmocka_unit_test(test_new_options),
		cmocka_unit_test(test_argv_new_options),
		cmocka_unit_test(test_deadline_throttled),
		cmocka_unit_test(test_argv_device),
		cmocka_unit_test(test_argv_directory_mixed),
		cmocka_unit_test(test_argv_refused),
		cmocka_unit_test(test_progress),
		cmocka_unit_test(test_metrics_list),
		cmocka_unit_test(test_registry),
		cmocka_unit_test(test_metrics),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
