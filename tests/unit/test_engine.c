/* test_engine.c -- engine.c on its own: the engine table and its lookups, option defaults
 * from each engine's table, engine_parse's dispatch (parse, then metrics_name), the binary an
 * engine runs and whether it is there, and the helpers every engine shares (argv, metrics,
 * sizes, lines). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engines/engine.h"
#include "testutil.h"

/* Every engine is found by its name, by its id, and stands in engine_names in id order. */
static void test_table(void **state)
{
	int id;

	(void)state;
	for (id = 0; id < ENGINE_COUNT; id++) {
		const struct engine *eng = engine_by_id((enum engine_id)id);

		assert_non_null(eng);
		assert_int_equal(eng->id, id);
		assert_string_equal(engine_names[id], eng->name);
		assert_ptr_equal(engine_find(eng->name), eng);
		assert_non_null(eng->check);
		assert_non_null(eng->argv_build);
		assert_non_null(eng->parse);
		assert_non_null(eng->metrics_list);
		assert_non_null(eng->pass_bound_s);
		assert_true(!strcmp(eng->raw_stream, "stdout") ||
		            !strcmp(eng->raw_stream, "stderr"));
	}
	assert_null(engine_names[ENGINE_COUNT]);
	assert_null(engine_by_id(ENGINE_COUNT));
	assert_null(engine_find("FIO"));
	assert_null(engine_find("fio "));
	assert_null(engine_find(""));
	assert_null(engine_find(NULL));
}

/* Defaults come from each engine's table; a reset touches its own engine's options only. */
static void test_opts_defaults(void **state)
{
	struct engine_opts o;
	int id;

	(void)state;
	engine_opts_init(&o);
	for (id = 0; id < ENGINE_COUNT; id++)
		assert_false(o.given[id]);
	assert_int_equal(o.fio.iodepth, 1);
	assert_int_equal(o.fio.rwmixread, 50);
	assert_false(o.fio.has_iodepth);
	assert_string_equal(o.dd.direction, "write");
	assert_int_equal(o.dd.bs, 1 << 20);
	assert_int_equal(o.dd.count, 0); /* required: no default */
	assert_false(o.dd.oflag_direct);

	o.fio.iodepth = 64;
	o.fio.has_iodepth = true;
	o.given[ENGINE_FIO] = true;
	o.dd.count = 5;
	o.given[ENGINE_DD] = true;
	engine_opts_reset(&fio_engine, &o);
	assert_int_equal(o.fio.iodepth, 1);
	assert_false(o.fio.has_iodepth);
	assert_false(o.given[ENGINE_FIO]);
	assert_int_equal(o.dd.count, 5); /* dd's are not fio's to reset */
	assert_true(o.given[ENGINE_DD]);
}

/* A stand-in engine, to see what engine_parse calls and in which order. */
static int parse_calls, name_calls;

static int stub_parse(const char *out, size_t out_len, const char *errout, size_t errout_len,
                      int exit_code, int term_signal, struct metrics *m, struct err *e)
{
	parse_calls++;
	assert_int_equal(name_calls, 0); /* parse first */
	assert_string_equal(out, "OUT");
	assert_int_equal(out_len, 3);
	assert_string_equal(errout, "ERR");
	assert_int_equal(errout_len, 3);
	m->n = 0;
	metrics_set(m, "bw_mib", 100);
	if (exit_code)
		return err_set(e, -EIO, ERR_ENGINE_FAILED, "exit %d signal %d", exit_code,
		               term_signal);
	return 0;
}

static void stub_name(const struct engine_opts *o, struct metrics *m)
{
	name_calls++;
	snprintf(m->m[0].name, sizeof(m->m[0].name), "%s.bw_mib", o->dd.direction);
}

static void test_parse_dispatch(void **state)
{
	struct engine stub = { .name = "stub", .parse = stub_parse, .metrics_name = stub_name };
	struct engine_opts o;
	struct metrics m;
	struct err e;

	(void)state;
	engine_opts_init(&o);
	o.dd.direction = "read";
	err_clear(&e);
	assert_int_equal(engine_parse(&stub, &o, "OUT", 3, "ERR", 3, 0, 0, &m, &e), 0);
	assert_int_equal(parse_calls, 1);
	assert_int_equal(name_calls, 1);
	assert_string_equal(m.m[0].name, "read.bw_mib");
	/* A failed pass still gets its metrics named, and the parser's error comes back. */
	parse_calls = name_calls = 0;
	assert_int_equal(engine_parse(&stub, &o, "OUT", 3, "ERR", 3, 1, 15, &m, &e), -EIO);
	assert_string_equal(e.msg, "exit 1 signal 15");
	assert_int_equal(name_calls, 1);
	assert_string_equal(m.m[0].name, "read.bw_mib");
	/* No metrics_name: the parser's names stand. */
	stub.metrics_name = NULL;
	parse_calls = name_calls = 0;
	assert_int_equal(engine_parse(&stub, &o, "OUT", 3, "ERR", 3, 0, 0, &m, &e), 0);
	assert_int_equal(name_calls, 0);
	assert_string_equal(m.m[0].name, "bw_mib");
}

static void test_exe_and_available(void **state)
{
	char *dir = tu_tmpdir(), *old_path = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
	char path[600];
	struct err e;

	(void)state;
	assert_string_equal(engine_exe(&fio_engine, NULL), "fio");
	assert_string_equal(engine_exe(&fio_engine, ""), "fio");
	assert_string_equal(engine_exe(&fio_engine, "/opt/fio"), "/opt/fio");
	/* --fio is fio's alone. */
	assert_string_equal(engine_exe(&dd_engine, "/opt/fio"), "dd");
	assert_string_equal(engine_exe(&bonnie_engine, "/opt/fio"), "bonnie++");
	assert_string_equal(engine_exe(&iozone_engine, NULL), "iozone");

	err_clear(&e);
	assert_int_equal(engine_available(NULL, NULL, &e), -EINVAL);
	assert_int_equal(e.code, ERR_BAD_REQUEST);
	/* A path: it must be executable. */
	tu_write(dir, "fio-not-x", "#!/bin/sh\n", 0644);
	snprintf(path, sizeof(path), "%s/fio-not-x", dir);
	assert_int_equal(engine_available(&fio_engine, path, &e), -ENOENT);
	assert_int_equal(e.code, ERR_ENGINE_UNAVAILABLE);
	assert_non_null(strstr(e.msg, "not found or not executable"));
	tu_write(dir, "fio-x", "#!/bin/sh\n", 0755);
	snprintf(path, sizeof(path), "%s/fio-x", dir);
	assert_int_equal(engine_available(&fio_engine, path, &e), 0);
	/* A bare name: looked up on each PATH entry in turn. */
	tu_write(dir, "bonnie++", "#!/bin/sh\n", 0755);
	setenv("PATH", "/nonexistent-a:/nonexistent-b", 1);
	assert_int_equal(engine_available(&bonnie_engine, NULL, &e), -ENOENT);
	assert_string_equal(e.msg,
	                    "engine 'bonnie' is not available: 'bonnie++' not found on PATH");
	snprintf(path, sizeof(path), "/nonexistent-a:%s", dir);
	setenv("PATH", path, 1);
	assert_int_equal(engine_available(&bonnie_engine, NULL, &e), 0);
	assert_int_equal(engine_available(&fio_engine, NULL, &e), -ENOENT); /* no fio there */
	if (old_path)
		setenv("PATH", old_path, 1);
	free(old_path);
	tu_rmrf(dir);
	free(dir);
}

static void test_argv(void **state)
{
	struct engine_argv a = { 0 };
	char **v;
	int i;

	(void)state;
	v = engine_argv_detach(&a); /* nothing added: an empty vector, not NULL */
	assert_non_null(v);
	assert_null(v[0]);
	engine_argv_free(v);
	engine_argv_free(NULL);
	for (i = 0; i < 40; i++) /* past the first allocation */
		engine_argv_add(&a, "--arg%d=%s", i, i % 2 ? "odd" : "even");
	engine_argv_add(&a, "%s", "");
	v = engine_argv_detach(&a);
	assert_null(a.v);
	assert_int_equal(a.n, 0);
	assert_string_equal(v[0], "--arg0=even");
	assert_string_equal(v[39], "--arg39=odd");
	assert_string_equal(v[40], "");
	assert_null(v[41]);
	engine_argv_free(v);
}

static void test_metrics(void **state)
{
	struct metrics m = { 0 };
	struct metric_names l = { 0 };
	char name[64], longname[80];
	int i;

	(void)state;
	metrics_set(&m, "read.bw_mib", 1.5);
	metrics_set(&m, "read.iops", 300);
	metrics_set(&m, "read.bw_mib", 2.5); /* replaced, not added */
	assert_int_equal(m.n, 2);
	assert_true(metrics_get(&m, "read.bw_mib")->value == 2.5);
	assert_null(metrics_get(&m, "write.bw_mib"));
	/* A name is cut to 47 bytes; a full table takes nothing more. */
	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	metrics_set(&m, longname, 1);
	assert_int_equal(strlen(m.m[2].name), 47);
	for (i = m.n; i < METRICS_MAX + 5; i++) {
		snprintf(name, sizeof(name), "m%d", i);
		metrics_set(&m, name, i);
	}
	assert_int_equal(m.n, METRICS_MAX);
	assert_null(metrics_get(&m, "m64"));
	metrics_set(&m, "read.iops", 7); /* a known name is still updated */
	assert_true(metrics_get(&m, "read.iops")->value == 7);

	metric_names_add(&l, "a");
	metric_names_add(&l, "b");
	metric_names_add(&l, "a");
	assert_int_equal(l.n, 2);
	assert_true(metric_names_has(&l, "b"));
	assert_false(metric_names_has(&l, "c"));
	for (i = 0; i < METRICS_MAX + 5; i++) {
		snprintf(name, sizeof(name), "n%d", i);
		metric_names_add(&l, name);
	}
	assert_int_equal(l.n, METRICS_MAX);
}

static void test_size_str(void **state)
{
	static const struct {
		uint64_t bytes;
		int lower;
		const char *want;
	} c[] = {
		{ 0, 0, "0" },
		{ 1, 0, "1" },
		{ 1023, 0, "1023" },
		{ 1024, 0, "1K" },
		{ 4096, 1, "4k" },
		{ 4097, 0, "4097" },
		{ 1536, 0, "1536" }, /* 1.5K: not exact, so bytes */
		{ 3ULL << 20, 0, "3M" },
		{ (1ULL << 20) + 1024, 0, "1025K" },
		{ 2ULL << 30, 1, "2g" },
		{ 1ULL << 40, 0, "1T" },
		{ 1ULL << 50, 0, "1024T" }, /* T is the largest unit */
	};
	char out[32];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		engine_size_str(c[i].bytes, c[i].lower, out, sizeof(out));
		assert_string_equal(out, c[i].want);
	}
}

static int line_has_x(const char *line, size_t n, void *ctx)
{
	(void)ctx;
	return memchr(line, 'x', n) != NULL;
}

static void test_lines(void **state)
{
	const char *s = "\n  \t\nfirst line  \r\nkey: value\xc2\xa0\nsecond x\nlast one\n\n \n";
	char out[64];
	int found;

	(void)state;
	assert_int_equal(engine_line_find(s, strlen(s), NULL, out, sizeof(out)), 1);
	assert_string_equal(out, "first line"); /* blank lines skipped, blanks trimmed */
	assert_int_equal(engine_line_find(s, strlen(s), "key:", out, sizeof(out)), 1);
	assert_string_equal(out, "key: value"); /* a trailing no-break space is a blank too */
	assert_int_equal(engine_line_find(s, strlen(s), "nope", out, sizeof(out)), 0);
	assert_int_equal(engine_line_find(NULL, 0, NULL, out, sizeof(out)), 0);
	assert_int_equal(engine_line_last(s, strlen(s), out, sizeof(out)), 1);
	assert_string_equal(out, "last one");
	assert_int_equal(engine_line_last("\n \n", 3, out, sizeof(out)), 0);
	/* Only the first len bytes are read. */
	assert_int_equal(engine_line_last(s, (size_t)(strstr(s, "second") - s), out, sizeof(out)),
	                 1);
	assert_string_equal(out, "key: value");
	/* From the last line back; '\r' ends a line too (progress lines). */
	found = engine_line_rfind("a x1\rb\rc x2\rd", 13, line_has_x, NULL);
	assert_int_equal(found, 1);
	assert_int_equal(engine_line_rfind("a\rb", 3, line_has_x, NULL), 0);
	assert_int_equal(engine_line_rfind(NULL, 0, line_has_x, NULL), 0);
	/* A line longer than out is cut, not overflowed. */
	assert_int_equal(engine_line_find("abcdefghij", 10, NULL, out, 5), 1);
	assert_string_equal(out, "abcd");
}

/* The deadline of a pass (issue 31 item 9): 2 x (expected time + I/O at 1 MiB/s) + 30 s, for
 * every engine, as docs/api.md writes the rule out for the controller. */
static void test_pass_deadline(void **state)
{
	const uint64_t MiB = 1024 * 1024;
	struct engine_opts o;

	(void)state;
	/* fio with runtime_s on a raw device: its runtime and ramp bound it. */
	engine_opts_init(&o);
	o.fio.has_runtime_s = true;
	o.fio.runtime_s = 3;
	assert_true(engine_pass_deadline_s(&fio_engine, &o, false, 1024 * MiB) == 36);
	o.fio.has_ramp_time_s = true;
	o.fio.ramp_time_s = 2;
	assert_true(engine_pass_deadline_s(&fio_engine, &o, false, 1024 * MiB) == 40);
	/* ... in a directory it lays out size x numjobs first. */
	o.fio.has_size = true;
	o.fio.size = 64 * MiB;
	o.fio.has_numjobs = true;
	o.fio.numjobs = 2;
	assert_true(engine_pass_deadline_s(&fio_engine, &o, true, 0) == 2 * (5 + 128) + 30);
	/* Without runtime_s, the I/O: size x numjobs, or the device's size without size. */
	engine_opts_init(&o);
	o.fio.has_size = true;
	o.fio.size = 10 * MiB;
	assert_true(engine_pass_deadline_s(&fio_engine, &o, false, 1024 * MiB) == 2 * 10 + 30);
	engine_opts_init(&o);
	assert_true(engine_pass_deadline_s(&fio_engine, &o, false, 100 * MiB) == 2 * 100 + 30);
	assert_true(engine_pass_deadline_s(&fio_engine, &o, false, 0) == 30);
	/* dd: bs x count; a fraction of a second rounds up. */
	engine_opts_init(&o);
	o.dd.count = 5;
	assert_true(engine_pass_deadline_s(&dd_engine, &o, false, 0) == 2 * 5 + 30);
	o.dd.has_bs = true;
	o.dd.bs = 4096;
	o.dd.count = 1;
	assert_true(engine_pass_deadline_s(&dd_engine, &o, false, 0) == 31);
	/* bonnie: size_mb x 5, and 6 operations per file at 1000/s. */
	engine_opts_init(&o);
	o.bonnie.size_mb = 100;
	snprintf(o.bonnie.files, sizeof(o.bonnie.files), "0");
	assert_true(engine_pass_deadline_s(&bonnie_engine, &o, true, 0) == 2 * 500 + 30);
	snprintf(o.bonnie.files, sizeof(o.bonnie.files), "16:1000:10:4");
	assert_true(engine_pass_deadline_s(&bonnie_engine, &o, true, 0) ==
	            ceil(2 * (500 + 16 * 1024 * 6 / 1000.0) + 30));
	/* iozone: file_size x threads x 2 per test. */
	engine_opts_init(&o);
	o.iozone.file_size = 8 * MiB;
	o.iozone.has_threads = true;
	o.iozone.threads = 2;
	o.iozone.tests = 1 | 2;
	assert_true(engine_pass_deadline_s(&iozone_engine, &o, true, 0) ==
	            2 * (8 * 2 * 2 * 2) + 30);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),          cmocka_unit_test(test_opts_defaults),
		cmocka_unit_test(test_parse_dispatch), cmocka_unit_test(test_exe_and_available),
		cmocka_unit_test(test_argv),           cmocka_unit_test(test_metrics),
		cmocka_unit_test(test_size_str),       cmocka_unit_test(test_lines),
		cmocka_unit_test(test_pass_deadline),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
