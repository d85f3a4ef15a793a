/* test_wire.c -- the JSON codec: params, engine options and job specs decoded strictly and
 * encoded normalised, and the database's JSON columns round-tripped. */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "store/store.h"
#include "testutil.h"
#include "wire/wire.h"

static json_t *load(const char *text)
{
	json_error_t jerr;
	json_t *j = json_loads(text, JSON_ALLOW_NUL, &jerr);

	if (!j)
		fail_msg("bad test JSON %s: %s", text, jerr.text);
	return j;
}

/* Decode a params object; returns rc, e filled. */
static int params(const char *text, int min_n, struct tune_set *out, struct err *e)
{
	json_t *j = load(text);
	int rc;

	err_clear(e);
	rc = wire_params_from_json(json_object_get(j, "params"), min_n, out, e);
	json_decref(j);
	return rc;
}

static void test_params(void **state)
{
	struct tune_set s;
	struct buf big;
	struct err e;
	json_t *o;
	char *text;
	int i;

	assert_int_equal(
	        params("{\"params\":{\"nr_requests\":64,\"scheduler\":\"none\"}}", 1, &s, &e), 0);
	assert_int_equal(s.n, 2);
	assert_string_equal(s.items[0].name, "nr_requests");
	assert_string_equal(s.items[0].requested, "64");
	assert_string_equal(s.items[1].requested, "none");
	o = wire_params_to_json(&s);
	text = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS);
	assert_string_equal(text, "{\"nr_requests\":64,\"scheduler\":\"none\"}");
	free(text);
	json_decref(o);
	tune_set_release(&s);

	assert_int_equal(params("{\"params\":{}}", 1, &s, &e), -EINVAL);
	assert_string_equal(e.msg, "params: expected an object of 1..64 parameters");
	assert_int_equal(params("{\"params\":{}}", 0, &s, &e), 0);
	assert_int_equal(s.n, 0);
	tune_set_release(&s);
	assert_int_equal(params("{\"params\":[1]}", 0, &s, &e), -EINVAL);
	assert_string_equal(e.msg, "params: expected an object of at most 64 parameters");
	assert_int_equal(params("{}", 1, &s, &e), -EINVAL);
	assert_int_equal(params("{\"params\":{\"nr_requests\":1.5}}", 1, &s, &e), -EINVAL);
	assert_string_equal(e.msg, "params.nr_requests: expected an integer or a string");
	assert_null(s.items);
	assert_int_equal(params("{\"params\":{\"nr_requests\":true}}", 1, &s, &e), -EINVAL);
	assert_int_equal(params("{\"params\":{\"a\":\"x\\u0000y\"}}", 1, &s, &e), -EINVAL);
	assert_string_equal(e.msg, "params.a: string too long or contains NUL");
	assert_int_equal(
	        params("{\"params\":{\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	               "aaaaaaaa\":1}}",
	               1, &s, &e),
	        -ENOENT);
	assert_int_equal(e.code, ERR_UNKNOWN_PARAM);
	/* 65 names */
	buf_init(&big);
	buf_puts(&big, "{\"params\":{");
	for (i = 0; i < 65; i++)
		buf_printf(&big, "%s\"p%d\":1", i ? "," : "", i);
	buf_puts(&big, "}}");
	assert_int_equal(params(big.data, 1, &s, &e), -EINVAL);
	buf_release(&big);
}

static int spec(const char *text, struct job_spec *out, struct err *e)
{
	json_t *j = load(text);
	int rc;

	err_clear(e);
	rc = wire_job_spec_from_json(j, out, e);
	json_decref(j);
	return rc;
}

static void expect_bad(const char *text, const char *msg)
{
	struct job_spec s;
	struct err e;

	assert_true(spec(text, &s, &e) < 0);
	if (strcmp(e.msg, msg))
		fail_msg("for %s: got \"%s\", want \"%s\"", text, e.msg, msg);
	/* released on failure: nothing to free, and it reads as empty */
	assert_null(s.directory);
	assert_int_equal(s.n_labels, 0);
}

static void test_job_spec_refused(void **state)
{
	expect_bad("{\"device\":\"loop0\",\"engine\":\"fio\",\"extra\":1}", "extra: unknown field");
	expect_bad("{\"engine\":\"fio\"}", "device: required field is missing");
	expect_bad("{\"device\":\"loop0\"}", "engine: required (fio, dd, bonnie or iozone)");
	expect_bad("{\"device\":\"loop0\",\"engine\":\"bonnie++\"}",
	           "engine: expected one of fio, dd, bonnie, iozone");
	expect_bad("{\"device\":\"loop0\",\"engine\":\"fio\",\"loops\":101}",
	           "loops: expected an integer 1..100");
	expect_bad("{\"device\":\"loop0\",\"engine\":\"fio\",\"loops\":\"2\"}",
	           "loops: expected an integer 1..100");
	expect_bad("{\"device\":\"loop0\",\"engine\":\"fio\",\"fio\":{\"iodepth\":5000}}",
	           "fio.iodepth: must be 1..4096");
	expect_bad("{\"device\":\"loop0\",\"engine\":\"fio\",\"fio\":[]}",
	           "fio: must be an object");
	/* an engine object that is not the selected one is decoded too */
	expect_bad("{\"device\":\"loop0\",\"engine\":\"fio\",\"dd\":{\"bs\":\"4Q\"}}",
	           "dd.bs: must be a size like \"4k\", \"1M\" or \"2g\"");
	expect_bad("{\"device\":\"loop0\",\"engine\":\"fio\",\"iozone\":{\"tests\":[\"write\",7]}}",
	           "iozone.tests: must be an array of distinct \"write\", \"read\", \"random\"");
	expect_bad("{\"device\":\"loop0\",\"engine\":\"fio\",\"labels\":{\"a b\":\"x\"}}",
	           "labels: key 'a b' must be 1..64 of [A-Za-z0-9_.:-]");
	expect_bad("{\"device\":\"loop0\",\"engine\":\"fio\",\"labels\":{\"k\":1}}",
	           "labels.k: expected a string of at most 256 bytes");
	expect_bad("{\"device\":\"loop0\",\"engine\":\"fio\",\"directory\":7}",
	           "directory: expected a string");
	expect_bad("{\"device\":\"loop0\",\"engine\":\"fio\",\"params\":{\"nr_requests\":[1]}}",
	           "params.nr_requests: expected an integer or a string");
	/* the filesystem object's shape (its options are job_check's, against the tables) */
	expect_bad("{\"device\":\"loop0\",\"engine\":\"fio\",\"filesystem\":\"xfs\"}",
	           "filesystem: expected an object {\"type\", \"mkfs\", \"mount\"}");
	expect_bad("{\"device\":\"loop0\",\"engine\":\"fio\",\"filesystem\":{}}",
	           "filesystem.type: required string (xfs or ext4)");
	expect_bad("{\"device\":\"loop0\",\"engine\":\"fio\",\"filesystem\":{\"type\":\"xfs\","
	           "\"label\":\"x\"}}",
	           "filesystem.label: unknown field");
	expect_bad("{\"device\":\"loop0\",\"engine\":\"fio\",\"filesystem\":{\"type\":\"xfs\","
	           "\"mkfs\":\"-K\"}}",
	           "filesystem.mkfs: expected an array of at most 32 argv tokens");
	expect_bad("{\"device\":\"loop0\",\"engine\":\"fio\",\"filesystem\":{\"type\":\"xfs\","
	           "\"mkfs\":[\"-K\",4]}}",
	           "filesystem.mkfs[1]: expected a string of at most 95 bytes");
	expect_bad(
	        "{\"device\":\"loop0\",\"engine\":\"fio\",\"filesystem\":{\"type\":\"xfs\","
	        "\"mount\":[\"noatime\"]}}",
	        "filesystem.mount: expected a string of at most 511 bytes (\"noatime,logbufs=8\")");
	expect_bad("{\"device\":\"loop0\",\"engine\":\"fio\",\"filesystem\":{\"type\":\"zfs\"}}",
	           "filesystem.type: 'zfs' is not one of xfs, ext4");
}

/* s encoded as the database keeps it; the encoding must decode to a spec that encodes the
 * same. Caller frees. */
static char *encoded_round_trip(const struct job_spec *s)
{
	struct job_spec back;
	struct err e;
	char *text = wire_job_spec_encode(s), *again;

	assert_int_equal(wire_job_spec_decode(text, &back, &e), 0);
	again = wire_job_spec_encode(&back);
	assert_string_equal(text, again);
	free(again);
	job_spec_release(&back);
	return text;
}

/* A filesystem survives the database: decoded, encoded, decoded to the same. */
static void test_job_spec_filesystem(void **state)
{
	struct job_spec s;
	struct err e;
	char *text;

	(void)state;
	assert_int_equal(spec("{\"device\":\"loop0\",\"engine\":\"bonnie\",\"bonnie\":"
	                      "{\"size_mb\":64},\"filesystem\":{\"type\":\"xfs\",\"mkfs\":[\"-b\","
	                      "\"size=4k\",\"-i\",\"size=1k\"],\"mount\":\"noatime,logbufs=8\"}}",
	                      &s, &e),
	                 0);
	assert_non_null(s.fs);
	assert_int_equal(s.fs->type, FS_XFS);
	assert_int_equal(s.fs->n_mkfs, 4);
	assert_string_equal(s.fs->mkfs[3], "size=1k");
	assert_string_equal(s.fs->mount, "noatime,logbufs=8");
	assert_null(s.directory);
	text = encoded_round_trip(&s);
	assert_non_null(strstr(text,
	                       "\"filesystem\":{\"mkfs\":[\"-b\",\"size=4k\",\"-i\","
	                       "\"size=1k\"],\"mount\":\"noatime,logbufs=8\",\"type\":\"xfs\"}"));
	free(text);
	job_spec_release(&s);
}

/* A job file and fio options in fio's units survive the database: the file as given (parsed
 * again on the way back), the units normalised. */
static void test_job_spec_fio_file(void **state)
{
	struct job_spec s;
	struct err e;
	char *text;

	(void)state;
	assert_int_equal(spec("{\"device\":\"loop0\",\"engine\":\"fio\",\"loops\":2,\"fio_file\":"
	                      "\"[global]\\nruntime=2s\\n[r]\\nrw=randread\\n\"}",
	                      &s, &e),
	                 0);
	assert_non_null(s.fio_file);
	assert_ptr_equal(s.opts.fio.file, s.fio_file);
	assert_int_equal(s.fio_file->n_jobs, 1);
	text = encoded_round_trip(&s);
	assert_string_equal(text, "{\"device\":\"loop0\",\"engine\":\"fio\",\"fio_file\":"
	                          "\"[global]\\nruntime=2s\\n[r]\\nrw=randread\\n\",\"labels\":{},"
	                          "\"loops\":2}");
	free(text);
	job_spec_release(&s);
	assert_int_equal(spec("{\"device\":\"loop0\",\"engine\":\"fio\",\"fio\":{\"runtime_s\":"
	                      "\"2m\",\"thinktime\":\"1ms\",\"rate\":\"10m\",\"bssplit\":"
	                      "\"4k/50:8k/50\"}}",
	                      &s, &e),
	                 0);
	text = encoded_round_trip(&s);
	assert_non_null(strstr(text, "\"fio\":{\"bssplit\":\"4k/50:8k/50\",\"rate\":\"10M\","
	                             "\"runtime_s\":120,\"thinktime\":1000}"));
	free(text);
	job_spec_release(&s);
}

/* Decoded once, encoded normalised; the encoding decodes to the same thing. */
static void test_job_spec_round_trip(void **state)
{
	struct job_spec s;
	struct err e;
	char *text;

	assert_int_equal(spec("{\"device\":\"loop0\",\"engine\":\"fio\",\"directory\":\"/mnt/x\","
	                      "\"fio\":{\"rw\":\"randrw\",\"bs\":\"4096\",\"size\":\"2048m\","
	                      "\"direct\":true,\"rwmixread\":70},"
	                      "\"dd\":{\"count\":8},\"loops\":3,"
	                      "\"params\":{\"nr_requests\":\"128\",\"scheduler\":\"none\"},"
	                      "\"labels\":{\"b\":\"2\",\"a\":\"1\"}}",
	                      &s, &e),
	                 0);
	assert_ptr_equal(s.engine, &fio_engine);
	assert_int_equal(s.loops, 3);
	assert_true(s.opts.given[ENGINE_FIO]);
	assert_true(s.opts.given[ENGINE_DD]);
	assert_false(s.opts.given[ENGINE_BONNIE]);
	assert_true(s.opts.fio.has_bs);
	assert_int_equal(s.opts.fio.bs, 4096);
	assert_false(s.opts.fio.has_iodepth);
	assert_int_equal(s.opts.fio.iodepth, 1); /* the table's default, not passed to fio */
	assert_string_equal(s.opts.dd.direction, "write");
	assert_int_equal(s.params.n, 2);
	assert_int_equal(s.n_labels, 2);
	text = encoded_round_trip(&s);
	assert_string_equal(text,
	                    "{\"dd\":{\"count\":8},\"device\":\"loop0\",\"directory\":\"/mnt/x\","
	                    "\"engine\":\"fio\",\"fio\":{\"bs\":\"4K\",\"direct\":true,"
	                    "\"rw\":\"randrw\",\"rwmixread\":70,\"size\":\"2G\"},"
	                    "\"labels\":{\"a\":\"1\",\"b\":\"2\"},\"loops\":3,"
	                    "\"params\":{\"nr_requests\":128,\"scheduler\":\"none\"}}");
	free(text);
	job_spec_release(&s);

	/* the selected engine's object appears even when the body had none; defaults filled */
	assert_int_equal(spec("{\"device\":\"loop0\",\"engine\":\"iozone\","
	                      "\"iozone\":{\"file_size\":\"1g\",\"tests\":[\"read\",\"write\"]}}",
	                      &s, &e),
	                 0);
	assert_int_equal(s.opts.iozone.tests, 3);
	text = wire_job_spec_encode(&s);
	assert_string_equal(text, "{\"device\":\"loop0\",\"engine\":\"iozone\",\"iozone\":{"
	                          "\"file_size\":\"1G\",\"tests\":[\"write\",\"read\"]},"
	                          "\"labels\":{},\"loops\":1}");
	free(text);
	job_spec_release(&s);
	assert_int_equal(wire_job_spec_decode("{\"device\":", &s, &e), -EINVAL);
	assert_int_equal(e.code, ERR_INTERNAL);
}

static void test_columns(void **state)
{
	struct tune_snapshot snap = { "loop0", 0, NULL }, back;
	struct store_value *vals;
	struct params ps;
	struct param p[4];
	struct metrics m = { 0 }, mback;
	struct err e;
	char *text;
	int n;

	snap.items = calloc(2, sizeof(*snap.items));
	snap.n = 2;
	snprintf(snap.items[0].name, sizeof(snap.items[0].name), "scheduler");
	snprintf(snap.items[0].previous, sizeof(snap.items[0].previous), "mq-deadline");
	snprintf(snap.items[1].name, sizeof(snap.items[1].name), "nr_requests");
	snprintf(snap.items[1].previous, sizeof(snap.items[1].previous), "64");
	text = wire_snapshot_encode(&snap);
	assert_string_equal(text, "{\"nr_requests\":\"64\",\"scheduler\":\"mq-deadline\"}");
	assert_int_equal(wire_snapshot_decode("loop0", text, &back, &e), 0);
	assert_int_equal(back.n, 2);
	assert_string_equal(back.device, "loop0");
	assert_string_equal(back.items[0].name, "nr_requests");
	assert_string_equal(back.items[0].previous, "64");
	free(text);
	tune_snapshot_release(&back);
	tune_snapshot_release(&snap);
	assert_true(wire_snapshot_decode("loop0", "[1,2]", &back, &e) < 0);
	assert_int_equal(e.code, ERR_INTERNAL);
	assert_non_null(strstr(e.msg, "loop0"));
	tune_snapshot_release(&back);

	metrics_set(&m, "write.bw_mib", 6969.132777);
	metrics_set(&m, "write.iops", 1742.0);
	text = wire_metrics_encode(&m);
	assert_int_equal(wire_metrics_decode(text, &mback), 0);
	assert_int_equal(mback.n, 2);
	assert_true(fabs(metrics_get(&mback, "write.bw_mib")->value - 6969.132777) < 1e-6);
	free(text);
	assert_int_equal(wire_metrics_decode("nope", &mback), -EINVAL);

	memset(p, 0, sizeof(p));
	snprintf(p[0].name, sizeof(p[0].name), "nr_requests");
	snprintf(p[0].value, sizeof(p[0].value), "256");
	p[0].kind = PARAM_INT;
	snprintf(p[1].name, sizeof(p[1].name), "write_cache");
	snprintf(p[1].value, sizeof(p[1].value), "write back");
	p[1].kind = PARAM_TEXT;
	/* An enumeration of integers is a number, as GET params sends it (issue 31 item 22);
	 * one of words stays a string. */
	snprintf(p[2].name, sizeof(p[2].name), "rq_affinity");
	snprintf(p[2].value, sizeof(p[2].value), "1");
	p[2].kind = PARAM_ENUM;
	snprintf(p[3].name, sizeof(p[3].name), "zoned");
	snprintf(p[3].value, sizeof(p[3].value), "none");
	p[3].kind = PARAM_ENUM;
	ps.n = 4;
	ps.p = p;
	text = wire_param_values_encode(&ps);
	assert_string_equal(text, "{\"nr_requests\":256,\"rq_affinity\":1,\"write_cache\":"
	                          "\"write back\",\"zoned\":\"none\"}");
	assert_int_equal(wire_param_values_decode(text, &vals, &n), 0);
	assert_int_equal(n, 4);
	assert_string_equal(vals[0].value, "256");
	assert_true(vals[0].number);
	assert_string_equal(vals[1].name, "rq_affinity");
	assert_string_equal(vals[1].value, "1");
	assert_true(vals[1].number);
	assert_false(vals[2].number);
	assert_false(vals[3].number);
	store_values_free(vals, n);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_params),
		cmocka_unit_test(test_job_spec_refused),
		cmocka_unit_test(test_job_spec_round_trip),
		cmocka_unit_test(test_job_spec_fio_file),
		cmocka_unit_test(test_job_spec_filesystem),
		cmocka_unit_test(test_columns),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
