/* test_ctl_plan.c -- plan validation: good plans, bad plans and their JSON-path errors. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "plan/plan.h"
#include "plan/plan_nodes.h"
#include "plan/plan_parse.h"
#include "testutil.h"
#include "xmalloc.h"

/* The plan from issue 4, with a multi-parameter axis added. */
static const char *good_plan =
        "{\"name\":\"anvil kernel tuning\","
        "\"nodes\":[{\"name\":\"node1\",\"url\":\"http://127.0.0.1:7071/\",\"device\":\"loop0\","
        "\"token_file\":\"state1/token\"},"
        "{\"name\":\"node2\",\"url\":\"http://127.0.0.1:7072\",\"device\":\"loop1\",\"token\":"
        "\"abc\"}],"
        "\"baseline\":{\"scheduler\":\"mq-deadline\",\"nr_requests\":128,\"queue_depth\":256},"
        "\"axes\":[{\"param\":\"scheduler\",\"values\":[\"mq-deadline\",\"none\",\"bfq\"]},"
        "{\"params\":[\"nr_requests\",\"queue_depth\"],\"values\":[[975,919],[4000,919]]}],"
        "\"strategy\":\"sequential\","
        "\"job\":{\"engine\":\"fio\",\"fio\":{\"rw\":\"randwrite\",\"bs\":\"4M\",\"ioengine\":"
        "\"libaio\",\"direct\":true,\"iodepth\":64,\"numjobs\":4,\"size\":\"256m\","
        "\"runtime_s\":2,\"time_based\":true},\"loops\":5},"
        "\"metric\":\"write.bw_mib\",\"goal\":\"maximize\",\"min_effect_pct\":5,"
        "\"labels\":{\"strip_size\":\"256k\"}}";

static void test_good_plan(void **state)
{
	struct plan p;
	struct err e = { 0 };
	char cols[8][PARAM_NAME_MAX];

	(void)state;
	assert_int_equal(plan_parse(good_plan, "/etc/ft", &p, &e), 0);
	assert_string_equal(p.name, "anvil kernel tuning");
	assert_int_equal(p.nnodes, 2);
	assert_string_equal(p.nodes[0].url, "http://127.0.0.1:7071");
	assert_string_equal(p.nodes[0].token_file, "/etc/ft/state1/token");
	assert_string_equal(p.nodes[1].token, "abc");
	assert_int_equal(p.naxes, 2);
	assert_int_equal(p.axes[0].nvalues, 3);
	assert_int_equal(p.axes[1].nparams, 2);
	assert_string_equal(config_get(&p.axes[1].values[0], "queue_depth")->value, "919");
	assert_true(config_get(&p.axes[1].values[0], "nr_requests")->is_int);
	assert_false(config_get(&p.baseline, "scheduler")->is_int);
	assert_int_equal(p.strategy, PLAN_SEQUENTIAL);
	assert_int_equal(p.loops, 5);
	assert_int_equal(p.loops_max, 5);
	assert_float_equal(p.runtime_s, 2.0, 0);
	assert_false(p.minimize);
	assert_float_equal(p.min_effect_pct, 5.0, 0);
	assert_string_equal(p.engine, "fio");
	/* The engine's options go to the agent verbatim, in order. */
	assert_string_equal(p.engine_json,
	                    "{\"rw\":\"randwrite\",\"bs\":\"4M\",\"ioengine\":\"libaio\","
	                    "\"direct\":true,\"iodepth\":64,\"numjobs\":4,\"size\":\"256m\","
	                    "\"runtime_s\":2,\"time_based\":true}");
	assert_int_equal(p.nlabels, 1);
	assert_string_equal(p.labels[0].key, "strip_size");
	assert_string_equal(p.labels[0].value, "256k");
	/* Tokens never reach the stored plan. */
	assert_null(strstr(p.json, "abc"));
	assert_int_equal(plan_columns(&p, cols, 8), 3);
	assert_string_equal(cols[0], "scheduler");
	assert_string_equal(cols[1], "nr_requests");
	assert_string_equal(cols[2], "queue_depth");
	assert_string_equal(plan_metric_unit(p.metric), "MiB/s");
	plan_release(&p);
}

static void test_defaults(void **state)
{
	const char *t = "{\"name\":\"x\",\"nodes\":[{\"name\":\"a\",\"url\":\"http://h:1\","
	                "\"device\":\"sda\"}],\"baseline\":{\"nr_requests\":64},"
	                "\"axes\":[{\"param\":\"nr_requests\",\"values\":[32,64]}],"
	                "\"job\":{\"fio\":{\"rw\":\"read\"}}}";
	struct plan p;
	struct err e = { 0 };

	(void)state;
	assert_int_equal(plan_parse(t, NULL, &p, &e), 0);
	assert_int_equal(p.strategy, PLAN_SEQUENTIAL);
	assert_int_equal(p.loops, 5);
	assert_string_equal(p.metric, "write.bw_mib");
	assert_int_equal(p.nlabels, 0);
	assert_string_equal(p.engine, "fio");
	plan_release(&p);
}

/* Replace the first occurrence of from with to in good_plan and expect msg. */
static void bad(const char *from, const char *to, const char *msg)
{
	char text[4096], *at;
	struct plan p;
	struct err e = { 0 };

	at = strstr(good_plan, from);
	assert_non_null(at);
	snprintf(text, sizeof(text), "%.*s%s%s", (int)(at - good_plan), good_plan, to,
	         at + strlen(from));
	assert_int_not_equal(plan_parse(text, NULL, &p, &e), 0);
	if (strcmp(e.msg, msg))
		fail_msg("for %s -> %s\nexpected: %s\n     got: %s", from, to, msg, e.msg);
	assert_int_equal(e.code, ERR_INVALID_PLAN);
}

/* "loops": {"min","max"} asks for adaptive loops; a plain number means min == max. */
static void test_adaptive_loops(void **state)
{
	char text[4096], *at;
	struct plan p;
	struct err e = { 0 };

	(void)state;
	at = strstr(good_plan, "\"loops\":5");
	assert_non_null(at);
	snprintf(text, sizeof(text), "%.*s\"loops\":{\"min\":3,\"max\":20}%s",
	         (int)(at - good_plan), good_plan, at + strlen("\"loops\":5"));
	assert_int_equal(plan_parse(text, NULL, &p, &e), 0);
	assert_int_equal(p.loops, 3);
	assert_int_equal(p.loops_max, 20);
	assert_int_equal(p.strategy, PLAN_SEQUENTIAL);
	assert_true(p.budget_s == 0);
	plan_release(&p);
}

/* good_plan as an adaptive plan with the given loops object and top-level extra. */
static int adaptive_parse(const char *loops, const char *extra, struct plan *p, struct err *e)
{
	char text[4096], *at, *st;

	at = strstr(good_plan, "\"loops\":5");
	st = strstr(good_plan, "\"strategy\":\"sequential\"");
	assert_true(st && at && st < at);
	snprintf(text, sizeof(text), "%.*s\"strategy\":\"adaptive\"%s%.*s\"loops\":%s%s",
	         (int)(st - good_plan), good_plan, extra,
	         (int)(at - st - strlen("\"strategy\":\"sequential\"")),
	         st + strlen("\"strategy\":\"sequential\""), loops, at + strlen("\"loops\":5"));
	return plan_parse(text, NULL, p, e);
}

/* "strategy": "adaptive" races from loops.min to loops.max; budget_s counts benchmark-seconds. */
static void test_adaptive_plan(void **state)
{
	struct plan p;
	struct err e = { 0 };

	(void)state;
	assert_int_equal(adaptive_parse("{\"min\":3,\"max\":12}", ",\"budget_s\":600", &p, &e), 0);
	assert_int_equal(p.strategy, PLAN_ADAPTIVE);
	assert_string_equal(plan_strategy_name(p.strategy), "adaptive");
	assert_int_equal(p.loops, 3);
	assert_int_equal(p.loops_max, 12);
	assert_true(p.budget_s == 600);
	plan_release(&p);
	assert_int_equal(adaptive_parse("{\"min\":3,\"max\":12}", "", &p, &e), 0);
	assert_true(p.budget_s == 0);
	plan_release(&p);
	assert_int_not_equal(adaptive_parse("{\"min\":3,\"max\":3}", "", &p, &e), 0);
	assert_string_equal(e.msg,
	                    "job.loops: the adaptive strategy races values from a minimum to "
	                    "a maximum number of loops: give {\"min\": 3, \"max\": 20} "
	                    "(max above min)");
	assert_int_not_equal(adaptive_parse("{\"min\":3,\"max\":9}", ",\"budget_s\":-1", &p, &e),
	                     0);
	assert_string_equal(e.msg, "budget_s: must be a positive number of seconds (up to 1e9)");
	assert_int_not_equal(
	        adaptive_parse("{\"min\":3,\"max\":9}", ",\"budget_s\":\"1h\"", &p, &e), 0);
	assert_string_equal(e.msg, "budget_s: expected a number");
	assert_int_equal(e.code, ERR_INVALID_PLAN);
}

static void test_bad_plans(void **state)
{
	(void)state;
	bad("[[975,919],[4000,919]]", "[[975,919],[4000,\"x\"]]",
	    "axes[1].values[1][1]: expected an integer");
	bad("\"none\",\"bfq\"", "\"none\",7", "axes[0].values[2]: expected a string");
	bad("[975,919],[4000,919]", "[975,919],[4000,919],[1,2,3]",
	    "axes[1].values[2]: expected 2 values (one per parameter)");
	bad("\"values\":[\"mq-deadline\"", "\"values\":[1.5",
	    "axes[0].values[0]: expected an integer or a string");
	bad("\"strategy\":\"sequential\"", "\"strategy\":\"random\"",
	    "strategy: 'random' is not one of grid, sequential, adaptive");
	bad("\"strategy\":\"sequential\"", "\"strategy\":\"adaptive\"",
	    "job.loops: the adaptive strategy races values from a minimum to a maximum number of "
	    "loops: give {\"min\": 3, \"max\": 20} (max above min)");
	bad("\"strategy\":\"sequential\"", "\"strategy\":\"sequential\",\"budget_s\":60",
	    "budget_s: only the adaptive strategy takes a budget");

	bad("\"goal\":\"maximize\"", "\"goal\":\"up\"",
	    "goal: 'up' is not one of maximize, minimize");
	bad("\"loops\":5", "\"loops\":0", "job.loops: must be between 1 and 100");
	bad("\"loops\":5", "\"loops\":\"5\"", "job.loops: expected an integer");
	bad("\"loops\":5", "\"loops\":{\"min\":1,\"max\":9}",
	    "job.loops.min: must be between 2 and 100");
	bad("\"loops\":5", "\"loops\":{\"min\":5,\"max\":3}",
	    "job.loops.max: must be at least job.loops.min (5)");
	bad("\"loops\":5", "\"loops\":{\"min\":3}", "job.loops.max: required field is missing");
	bad("\"loops\":5", "\"loops\":{\"min\":3,\"max\":9,\"step\":1}",
	    "job.loops.step: unknown field");
	bad("\"engine\":\"fio\",\"fio\":{", "\"engine\":\"fio\",\"dd\":{},\"fio\":{",
	    "job.dd: unknown field (the options of engine 'fio' go in job.fio)");
	bad("\"engine\":\"fio\"", "\"engine\":\"loops\"",
	    "job.engine: 'loops' is not an engine name (e.g. fio, dd)");
	bad("\"engine\":\"fio\"", "\"engine\":\"../fio\"",
	    "job.engine: '../fio' is not an engine name (e.g. fio, dd)");
	bad("\"name\":\"node2\"", "\"name\":\"node1\"",
	    "nodes[1].name: duplicate node name 'node1'");
	bad("\"url\":\"http://127.0.0.1:7072\"", "\"url\":\"ftp://x\"",
	    "nodes[1].url: 'ftp://x' must start with http:// or https://");
	bad("\"device\":\"loop1\"", "\"device\":\"../sda\"",
	    "nodes[1].device: '../sda' is not a block device name (e.g. sda, loop0)");
	bad("\"device\":\"loop1\"", "\"disk\":\"loop1\"", "nodes[1].disk: unknown field");
	bad("\"device\":\"loop0\",", "", "nodes[0].device: required field is missing");
	bad("\"metric\"", "\"metrics\"", "metrics: unknown field");
	bad("\"nr_requests\":128,", "",
	    "baseline.nr_requests: required field is missing (every axis "
	    "parameter needs a baseline value)");
	bad("{\"param\":\"scheduler\",", "{\"param\":\"scheduler\",\"params\":[\"x\"],",
	    "axes[0]: exactly one of 'param' or 'params' is required");
	bad("\"values\":[\"mq-deadline\",\"none\",\"bfq\"]", "\"values\":[]",
	    "axes[0].values: expected a non-empty array");
	bad("\"none\",\"bfq\"", "\"none\",\"none\"", "axes[0].values[2]: duplicate value");
	bad("\"params\":[\"nr_requests\",\"queue_depth\"]",
	    "\"params\":[\"scheduler\",\"queue_depth\"]",
	    "axes[1]: 'scheduler' is already swept by an earlier axis");
	bad("\"min_effect_pct\":5", "\"min_effect_pct\":\"5\"",
	    "min_effect_pct: expected a number");
	bad("\"strip_size\":\"256k\"", "\"strip_size\":256",
	    "labels.strip_size: expected a string");
	/* cohort_by and node labels. */
	bad("\"min_effect_pct\":5", "\"min_effect_pct\":5,\"cohort_by\":\"model\"",
	    "cohort_by: expected an array of identity fields or node labels");
	bad("\"min_effect_pct\":5", "\"min_effect_pct\":5,\"cohort_by\":[\"modle\"]",
	    "cohort_by[0]: 'modle' is neither an identity field (vendor, model, firmware, serial, "
	    "wwid, transport, rotational, logical_block_bytes, physical_block_bytes, size_bytes, "
	    "kernel, machine, hostname) nor a label of any node (nodes[].labels)");
	bad("\"min_effect_pct\":5", "\"min_effect_pct\":5,\"cohort_by\":[\"model\",\"model\"]",
	    "cohort_by[1]: 'model' is given twice");
	bad("\"min_effect_pct\":5", "\"min_effect_pct\":5,\"cohort_by\":[\"label.rack\"]",
	    "cohort_by[0]: no node has the label 'rack' (nodes[].labels)");
	bad("\"min_effect_pct\":5", "\"min_effect_pct\":5,\"cohort_by\":[3]",
	    "cohort_by[0]: expected an identity field or a node label name");
	bad("\"device\":\"loop1\"", "\"device\":\"loop1\",\"labels\":[\"rack\"]",
	    "nodes[1].labels: expected an object");
	bad("\"device\":\"loop1\"", "\"device\":\"loop1\",\"labels\":{\"rack\":7}",
	    "nodes[1].labels.rack: expected a string");
	bad("\"device\":\"loop1\"", "\"device\":\"loop1\",\"labels\":{\"a b\":\"7\"}",
	    "nodes[1].labels.a b: a label key is letters, digits, '.', '-' or '_'");
}

/* A two-node plan whose first node has labels, with extra top-level members. */
#define COHORT_PLAN(extra)                                                                         \
	"{\"name\":\"x\",\"nodes\":[{\"name\":\"a\",\"url\":\"http://h:1\","                       \
	"\"device\":\"sda\",\"labels\":{\"rack\":\"r7\",\"model\":\"m\"}},"                        \
	"{\"name\":\"b\",\"url\":\"http://h:2\",\"device\":\"sda\"}],"                             \
	"\"baseline\":{\"nr_requests\":64},"                                                       \
	"\"axes\":[{\"param\":\"nr_requests\",\"values\":[32,64]}],"                               \
	"\"job\":{\"fio\":{\"rw\":\"read\"}}" extra "}"

/* cohort_by: the default, identity fields, node labels by name and as label.KEY, and []. */
static void test_cohort_by(void **state)
{
	char text[2048];
	struct plan p;
	struct err e = { 0 };

	(void)state;
	snprintf(text, sizeof(text), "%s", COHORT_PLAN(""));
	assert_int_equal(plan_parse(text, NULL, &p, &e), 0);
	assert_int_equal(p.ncohort_by, 2); /* the default */
	assert_string_equal(p.cohort_by[0], "model");
	assert_string_equal(p.cohort_by[1], "firmware");
	assert_int_equal(p.nodes[0].nlabels, 2);
	assert_string_equal(plan_node_label(&p.nodes[0], "rack"), "r7");
	assert_null(plan_node_label(&p.nodes[1], "rack"));
	/* The node labels are in the stored plan, for analyze. */
	assert_non_null(strstr(p.json, "\"labels\":{\"rack\":\"r7\""));
	plan_release(&p);

	/* An identity field, a label by its name, a label that shadows an identity field. */
	snprintf(text, sizeof(text), "%s",
	         COHORT_PLAN(",\"cohort_by\":[\"kernel\",\"rack\",\"label.model\"]"));
	assert_int_equal(plan_parse(text, NULL, &p, &e), 0);
	assert_int_equal(p.ncohort_by, 3);
	assert_string_equal(p.cohort_by[1], "rack");
	assert_string_equal(p.cohort_by[2], "label.model");

	/* analyze --cohort-by: the same names, comma-separated; a refused list changes nothing. */
	assert_int_equal(plan_cohort_by_set(&p, " kernel, label.rack ", &e), 0);
	assert_int_equal(p.ncohort_by, 2);
	assert_string_equal(p.cohort_by[0], "kernel");
	assert_string_equal(p.cohort_by[1], "label.rack");
	assert_int_equal(plan_cohort_by_set(&p, "model,colour", &e), -EINVAL);
	assert_non_null(strstr(e.msg, "--cohort-by: 'colour' is neither an identity field"));
	assert_int_equal(plan_cohort_by_set(&p, "model,,firmware", &e), -EINVAL);
	assert_int_equal(plan_cohort_by_set(&p, "model,model", &e), -EINVAL);
	assert_string_equal(e.msg, "--cohort-by: 'model' is given twice");
	assert_int_equal(p.ncohort_by, 2);
	assert_string_equal(p.cohort_by[1], "label.rack");
	assert_int_equal(plan_cohort_by_set(&p, "", &e), 0);
	assert_int_equal(p.ncohort_by, 0);
	plan_release(&p);

	snprintf(text, sizeof(text), "%s", COHORT_PLAN(",\"cohort_by\":[]"));
	assert_int_equal(plan_parse(text, NULL, &p, &e), 0);
	assert_int_equal(p.ncohort_by, 0); /* one cohort */
	plan_release(&p);

	snprintf(text, sizeof(text), "%s", COHORT_PLAN(",\"cohort_by\":[\"pool\"]"));
	assert_int_not_equal(plan_parse(text, NULL, &p, &e), 0);
	assert_non_null(strstr(e.msg, "cohort_by[0]: 'pool' is neither an identity field"));
}

/* The agent is the only judge of job options: the plan forwards them as they are. */
static void replace_parse(const char *from, const char *to, struct plan *p)
{
	char text[4096], *at = strstr(good_plan, from);
	struct err e = { 0 };

	assert_non_null(at);
	snprintf(text, sizeof(text), "%.*s%s%s", (int)(at - good_plan), good_plan, to,
	         at + strlen(from));
	if (plan_parse(text, NULL, p, &e))
		fail_msg("%s -> %s: %s", from, to, e.msg);
}

static void test_engine_opaque(void **state)
{
	struct plan p;

	(void)state;
	/* Values only the agent may refuse: the plan keeps them verbatim. */
	replace_parse("\"iodepth\":64", "\"iodepth\":5000", &p);
	assert_non_null(strstr(p.engine_json, "\"iodepth\":5000"));
	plan_release(&p);
	replace_parse("\"iodepth\":64", "\"io_depth\":\"x\"", &p);
	assert_non_null(strstr(p.engine_json, "\"io_depth\":\"x\""));
	plan_release(&p);
	/* Any engine name, iozone included, with its options under its own key. */
	replace_parse("\"engine\":\"fio\",\"fio\":", "\"engine\":\"iozone\",\"iozone\":", &p);
	assert_string_equal(p.engine, "iozone");
	assert_float_equal(p.runtime_s, 2.0, 0);
	plan_release(&p);
	{
		const char *t = "{\"name\":\"x\",\"nodes\":[{\"name\":\"a\",\"url\":\"http://h:1\","
		                "\"device\":\"sda\"}],\"baseline\":{\"nr_requests\":64},"
		                "\"axes\":[{\"param\":\"nr_requests\",\"values\":[32]}],"
		                "\"job\":{\"fio\":[\"rw\"]}}";
		struct err e = { 0 };

		assert_int_not_equal(plan_parse(t, NULL, &p, &e), 0);
		assert_string_equal(e.msg, "job.fio: expected an object (the engine's options)");
	}
	/* No option object: the agent's defaults (or its refusal). */
	replace_parse("\"engine\":\"fio\",\"fio\":{\"rw\":\"randwrite\",\"bs\":\"4M\","
	              "\"ioengine\":\"libaio\",\"direct\":true,\"iodepth\":64,\"numjobs\":4,"
	              "\"size\":\"256m\",\"runtime_s\":2,\"time_based\":true},",
	              "\"engine\":\"bonnie\",", &p);
	assert_null(p.engine_json);
	assert_float_equal(p.runtime_s, 0, 0);
	plan_release(&p);
}

/* A plan with job (the text inside "job":{...}), parsed with dir as the plan file's. */
static int fio_job_plan(const char *job, const char *dir, struct plan *p, struct err *e)
{
	char text[4096];

	snprintf(text, sizeof(text),
	         "{\"name\":\"x\",\"nodes\":[{\"name\":\"a\",\"url\":\"http://h:1\","
	         "\"device\":\"sda\",\"token\":\"t\"}],\"baseline\":{\"x\":1},\"axes\":[{\"param\":"
	         "\"x\",\"values\":[2]}],\"job\":{%s}}",
	         job);
	memset(e, 0, sizeof(*e));
	return plan_parse(text, dir, p, e);
}

/* job.fio_file: read relative to the plan file, sent as text, kept in the stored plan (which
 * reads back without the file); refused with another engine, beside job.fio, unreadable, too
 * big. */
static void test_fio_file(void **state)
{
	const char *text = "[global]\nruntime=2s\n[rr]\nrw=randread\n";
	char *dir = tu_tmpdir(), path[600], *big;
	struct plan p, q;
	struct err e;

	(void)state;
	tu_write(dir, "jobs/randrw.fio", text, 0644);
	assert_int_equal(fio_job_plan("\"fio_file\":\"jobs/randrw.fio\",\"loops\":3", dir, &p, &e),
	                 0);
	assert_string_equal(p.fio_file, text);
	assert_string_equal(p.fio_file_path, "jobs/randrw.fio");
	assert_null(p.engine_json);
	/* the stored plan carries the text: parsed again with no directory, the same job */
	assert_non_null(strstr(p.json, "\"fio_file\":{\"path\":\"jobs/randrw.fio\",\"text\":"));
	assert_int_equal(plan_parse(p.json, NULL, &q, &e), 0);
	assert_string_equal(q.fio_file, text);
	plan_release(&q);
	plan_job_copy(&q, &p);
	assert_string_equal(q.fio_file, text);
	free(q.fio_file);
	free(q.fio_file_path);
	free(q.engine_json);
	free(q.directory);
	plan_release(&p);
	/* an absolute path needs no plan directory */
	snprintf(path, sizeof(path), "\"fio_file\":\"%s/jobs/randrw.fio\"", dir);
	assert_int_equal(fio_job_plan(path, NULL, &p, &e), 0);
	assert_string_equal(p.fio_file, text);
	plan_release(&p);
	assert_int_not_equal(fio_job_plan("\"fio_file\":\"jobs/randrw.fio\"", NULL, &p, &e), 0);
	assert_string_equal(e.msg, "job.fio_file: 'jobs/randrw.fio' is relative to the plan file, "
	                           "and this plan is not read from a file");
	assert_int_not_equal(fio_job_plan("\"fio_file\":\"nope.fio\"", dir, &p, &e), 0);
	assert_non_null(strstr(e.msg, "job.fio_file: cannot read '"));
	assert_non_null(strstr(e.msg, "/nope.fio': No such file or directory"));
	assert_int_not_equal(
	        fio_job_plan("\"fio_file\":\"jobs/randrw.fio\",\"fio\":{}", dir, &p, &e), 0);
	assert_string_equal(e.msg, "job.fio_file: give job.fio (options) or job.fio_file (a job "
	                           "file), not both");
	assert_int_not_equal(
	        fio_job_plan("\"engine\":\"dd\",\"fio_file\":\"jobs/randrw.fio\"", dir, &p, &e), 0);
	assert_string_equal(e.msg, "job.fio_file: only with engine fio");
	assert_int_not_equal(fio_job_plan("\"fio_file\":7", dir, &p, &e), 0);
	assert_string_equal(e.msg, "job.fio_file: expected the path of an fio job file (relative "
	                           "to the plan file)");
	big = xcalloc(1, PLAN_FIO_FILE_MAX + 2);
	memset(big, ';', PLAN_FIO_FILE_MAX + 1);
	tu_write(dir, "big.fio", big, 0644);
	free(big);
	assert_int_not_equal(fio_job_plan("\"fio_file\":\"big.fio\"", dir, &p, &e), 0);
	assert_non_null(strstr(e.msg, "/big.fio' is over 32768 bytes or not text"));
	tu_rmrf(dir);
	free(dir);
	/* a time in fio's units is a runtime hint too */
	assert_int_equal(fio_job_plan("\"fio\":{\"runtime_s\":\"2m\"}", NULL, &p, &e), 0);
	assert_float_equal(p.runtime_s, 120, 0);
	plan_release(&p);
}

static void test_config_codec(void **state)
{
	struct config c = { 0 }, back;
	struct err e = { 0 };
	char *text;

	(void)state;
	config_set(&c, "scheduler", "mq-deadline", false);
	config_set(&c, "nr_requests", "128", true);
	text = config_to_json(&c);
	assert_string_equal(text, "{\"scheduler\":\"mq-deadline\",\"nr_requests\":128}");
	assert_int_equal(config_parse_json(text, &back, &e), 0);
	assert_true(config_equal(&c, &back));
	assert_true(config_get(&back, "nr_requests")->is_int);
	free(text);
	assert_int_not_equal(config_parse_json("{\"x\":1.5}", &back, &e), 0);
	assert_string_equal(e.msg, "params.x: expected an integer or a string");
	assert_int_not_equal(config_parse_json("[1]", &back, &e), 0);
	assert_string_equal(e.msg, "params: expected a JSON object");
}

static void test_node_set_codec(void **state)
{
	struct plan p;
	struct err e = { 0 };
	bool set[2] = { false, true }, back[2] = { false, false };
	char *text;

	(void)state;
	assert_int_equal(plan_parse(good_plan, NULL, &p, &e), 0);
	text = plan_node_set_to_json(&p, set);
	assert_string_equal(text, "[\"node2\"]");
	assert_int_equal(plan_node_set_parse(&p, text, back, &e), 0);
	assert_false(back[0]);
	assert_true(back[1]);
	assert_int_equal(plan_node_find(&p, "node2"), 1);
	assert_int_equal(plan_node_find(&p, "node3"), -1);
	assert_int_not_equal(plan_node_set_parse(&p, "{}", back, &e), 0);
	assert_string_equal(plan_strategy_name(p.strategy), "sequential");
	free(text);
	plan_release(&p);
}

static void test_syntax_errors(void **state)
{
	struct plan p;
	struct err e = { 0 };

	(void)state;
	assert_int_not_equal(plan_parse("{\"name\":\"a\",\"name\":\"b\"}", NULL, &p, &e), 0);
	assert_non_null(strstr(e.msg, "duplicate"));
	assert_int_not_equal(plan_parse("{\"name\":", NULL, &p, &e), 0);
	assert_non_null(strstr(e.msg, "line 1"));
	assert_int_not_equal(plan_parse("[]", NULL, &p, &e), 0);
	assert_string_equal(e.msg, "$: expected an object");
	assert_int_not_equal(plan_parse("{\"name\":\"a\",\"nodes\":[]}", NULL, &p, &e), 0);
	assert_string_equal(e.msg, "nodes: at least one node is required");
}

static void test_tokens(void **state)
{
	char *dir = tu_tmpdir(), path[512];
	struct plan p;
	struct err e = { 0 };
	FILE *f;

	(void)state;
	tu_write(dir, "state1/token", "deadbeef\n", 0600);
	snprintf(path, sizeof(path), "%s/plan.json", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(good_plan, f);
	fclose(f);
	assert_int_equal(plan_load(path, &p, &e), 0);
	assert_int_equal(plan_tokens_load(&p, &e), 0);
	assert_string_equal(p.nodes[0].token, "deadbeef");
	assert_string_equal(p.nodes[1].token, "abc");
	plan_release(&p);
	tu_rmrf(dir);
	/* Without token or token_file, $FLEETTUNE_TOKEN. */
	assert_int_equal(plan_parse("{\"name\":\"x\",\"nodes\":[{\"name\":\"a\",\"url\":"
	                            "\"http://h:1\",\"device\":\"sda\"}],\"baseline\":{\"x\":1},"
	                            "\"axes\":[{\"param\":\"x\",\"values\":[2]}],\"job\":{\"fio\":"
	                            "{\"rw\":\"read\"}}}",
	                            NULL, &p, &e),
	                 0);
	unsetenv("FLEETTUNE_TOKEN");
	assert_int_not_equal(plan_tokens_load(&p, &e), 0);
	assert_non_null(strstr(e.msg, "a: no token"));
	setenv("FLEETTUNE_TOKEN", "fromenv", 1);
	assert_int_equal(plan_tokens_load(&p, &e), 0);
	assert_string_equal(p.nodes[0].token, "fromenv");
	unsetenv("FLEETTUNE_TOKEN");
	plan_release(&p);
	/* Missing token file: a clear error naming the node. */
	assert_int_equal(plan_parse(good_plan, "/nonexistent", &p, &e), 0);
	assert_int_not_equal(plan_tokens_load(&p, &e), 0);
	assert_non_null(strstr(e.msg, "node1: cannot read token_file"));
	plan_release(&p);
	free(dir);
}

/* A plan for node a with extra ("token": ... or "token_file": ...) in its node. */
static int one_node_plan(const char *extra, const char *dir, struct plan *p, struct err *e)
{
	char text[4096];

	snprintf(text, sizeof(text),
	         "{\"name\":\"x\",\"nodes\":[{\"name\":\"a\",\"url\":\"http://h:1\","
	         "\"device\":\"sda\"%s}],\"baseline\":{\"x\":1},\"axes\":[{\"param\":\"x\","
	         "\"values\":[2]}],\"job\":{\"fio\":{\"rw\":\"read\"}}}",
	         extra);
	return plan_parse(text, dir, p, e);
}

/* Issue 23 item 4: nothing but a token goes into the header, and no file is sent as one. */
static void test_tokens_refused(void **state)
{
	char *dir = tu_tmpdir(), big[1500], extra[700];
	struct plan p;
	struct err e = { 0 };

	(void)state;
	/* A header smuggled in the token: refused at parse, and not echoed. */
	assert_int_not_equal(one_node_plan(",\"token\":\"a\\r\\nX-Injected: 1\"", NULL, &p, &e), 0);
	assert_non_null(strstr(e.msg, "nodes[0].token"));
	assert_null(strstr(e.msg, "X-Injected"));
	assert_int_not_equal(one_node_plan(",\"token\":\"two words\"", NULL, &p, &e), 0);
	memset(extra, 0, sizeof(extra));
	snprintf(extra, sizeof(extra), ",\"token\":\"%0600d\"", 0);
	assert_int_not_equal(one_node_plan(extra, NULL, &p, &e), 0);
	assert_non_null(strstr(e.msg, "longer than 512"));

	/* A token_file that is some other file (many lines, as /etc/shadow): refused unsent. */
	tu_write(dir, "shadow", "root:$6$salt$hash:19000:0:99999:7:::\ndaemon:*:19000::::::\n",
	         0600);
	assert_int_equal(one_node_plan(",\"token_file\":\"shadow\"", dir, &p, &e), 0);
	assert_int_not_equal(plan_tokens_load(&p, &e), 0);
	assert_int_equal(e.code, ERR_TOKEN_INVALID);
	assert_null(strstr(e.msg, "root"));
	assert_null(p.nodes[0].token);
	plan_release(&p);
	/* Larger than a token file can be. */
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	tu_write(dir, "big", big, 0600);
	assert_int_equal(one_node_plan(",\"token_file\":\"big\"", dir, &p, &e), 0);
	assert_int_not_equal(plan_tokens_load(&p, &e), 0);
	assert_null(p.nodes[0].token);
	plan_release(&p);
	/* A token file with CRLF is fine: the line end is not the token. */
	tu_write(dir, "crlf", "deadbeef\r\n", 0600);
	assert_int_equal(one_node_plan(",\"token_file\":\"crlf\"", dir, &p, &e), 0);
	assert_int_equal(plan_tokens_load(&p, &e), 0);
	assert_string_equal(p.nodes[0].token, "deadbeef");
	plan_release(&p);
	/* $FLEETTUNE_TOKEN is held to the same rule. */
	assert_int_equal(one_node_plan("", NULL, &p, &e), 0);
	setenv("FLEETTUNE_TOKEN", "abc\r\nX-Injected: 1", 1);
	assert_int_not_equal(plan_tokens_load(&p, &e), 0);
	assert_int_equal(e.code, ERR_TOKEN_INVALID);
	unsetenv("FLEETTUNE_TOKEN");
	plan_release(&p);
	tu_rmrf(dir);
	free(dir);
}

/* Issue 23 item 10: a plan of more configurations than max_points is refused at parse. */
static void test_points_capped(void **state)
{
	struct buf b = BUF_INIT, vals = BUF_INIT;
	struct plan p;
	struct err e = { 0 };
	int i;

	(void)state;
	for (i = 1; i <= 100; i++)
		buf_printf(&vals, "%s%d", i > 1 ? "," : "", i);
	buf_printf(&b,
	           "{\"name\":\"x\",\"nodes\":[{\"name\":\"a\",\"url\":\"http://h:1\","
	           "\"device\":\"sda\"}],\"baseline\":{\"a\":1,\"b\":1,\"c\":1},\"axes\":["
	           "{\"param\":\"a\",\"values\":[%s]},{\"param\":\"b\",\"values\":[%s]},"
	           "{\"param\":\"c\",\"values\":[%s]}],\"job\":{\"fio\":{\"rw\":\"read\"}},"
	           "\"strategy\":\"grid\"",
	           vals.data, vals.data, vals.data);
	buf_puts(&b, "}");
	assert_int_equal(plan_parse(b.data, NULL, &p, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "1000000 configurations, more than max_points (10000"));
	/* Raised: accepted (parsed, nothing expanded). */
	b.data[b.len - 1] = '\0';
	b.len--;
	buf_puts(&b, ",\"max_points\":1000000}");
	assert_int_equal(plan_parse(b.data, NULL, &p, &e), 0);
	plan_release(&p);
	/* Sequential: the baseline and every value, 301. */
	buf_reset(&b);
	buf_printf(&b,
	           "{\"name\":\"x\",\"nodes\":[{\"name\":\"a\",\"url\":\"http://h:1\","
	           "\"device\":\"sda\"}],\"baseline\":{\"a\":1,\"b\":1,\"c\":1},\"axes\":["
	           "{\"param\":\"a\",\"values\":[%s]},{\"param\":\"b\",\"values\":[%s]},"
	           "{\"param\":\"c\",\"values\":[%s]}],\"job\":{\"fio\":{\"rw\":\"read\"}},"
	           "\"max_points\":300}",
	           vals.data, vals.data, vals.data);
	assert_int_equal(plan_parse(b.data, NULL, &p, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "sequential strategy would run 301"));
	buf_release(&b);
	buf_release(&vals);
}

/* Issue 23 item 3: plan names and labels refuse control characters (they reach exports). */
static void test_control_chars_refused(void **state)
{
	static const char *const bad[] = {
		"{\"name\":\"x\\nACTION==\\\"add\\\"\",\"nodes\":[]}",
		"{\"name\":\"x\\ty\",\"nodes\":[]}",
	};
	struct plan p;
	struct err e = { 0 };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(plan_parse(bad[i], NULL, &p, &e), -EINVAL);
		assert_non_null(strstr(e.msg, "name: has a control character"));
	}
	assert_int_equal(one_node_plan("", NULL, &p, &e), 0);
	plan_release(&p);
}

/* A plan's tail: everything but the nodes. */
#define PLAN_REST                                                                                  \
	"\"baseline\":{\"nr_requests\":128},\"axes\":[{\"param\":\"nr_requests\",\"values\":[64]}" \
	"],"                                                                                       \
	"\"job\":{\"fio\":{\"rw\":\"read\"}}}"

static int plan_at(const char *dir, const char *nodes_json, const char *override, struct plan *p,
                   struct err *e)
{
	char *text = xasprintf("{\"name\":\"from lists\",%s," PLAN_REST, nodes_json);
	int rc = plan_parse_nodes_from(text, dir, override, p, e);

	free(text);
	return rc;
}

static void test_nodes_from(void **state)
{
	char *dir = tu_tmpdir(), *override;
	struct plan p, back;
	struct err e = { 0 };

	(void)state;
	tu_write(dir, "hosts.txt", "# fio host list\nnode1 http://10.0.0.1:7070 sda\n10.0.0.2\n",
	         0644);
	tu_write(dir, "inv/fleet.yaml",
	         "all:\n  children:\n    storage:\n      vars: {fleettune_token_file: tok}\n"
	         "      hosts:\n        s1: {ansible_host: 10.1.0.1}\n        s2:\n"
	         "    web:\n      hosts:\n        w1:\n",
	         0644);
	tu_write(dir, "bad.ini", "[storage]\nn1 fleettune_device=sd/a\n", 0644);

	/* A file name: relative to the plan's directory; a host list line without a device is an
	 * error naming the line. */
	assert_int_equal(plan_at(dir, "\"nodes_from\":\"hosts.txt\"", NULL, &p, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "/hosts.txt:3: host '10.0.0.2' has no device"));
	/* The object form: a default device, the plan's nodes first. */
	assert_int_equal(plan_at(dir,
	                         "\"nodes\":[{\"name\":\"local\",\"url\":\"http://127.0.0.1:7070\","
	                         "\"device\":\"loop0\"}],"
	                         "\"nodes_from\":{\"file\":\"hosts.txt\",\"device\":\"sdb\"}",
	                         NULL, &p, &e),
	                 0);
	assert_int_equal(p.nnodes, 3);
	assert_string_equal(p.nodes[0].name, "local");
	assert_string_equal(p.nodes[1].url, "http://10.0.0.1:7070");
	assert_string_equal(p.nodes[2].name, "10.0.0.2");
	assert_string_equal(p.nodes[2].device, "sdb");
	assert_int_equal(plan_node_find(&p, "10.0.0.2"), 2);
	/* The stored plan has the nodes written out, and reads back without the file. */
	assert_null(strstr(p.json, "nodes_from"));
	assert_non_null(strstr(p.json, "{\"name\":\"10.0.0.2\",\"url\":\"http://10.0.0.2:7070\","
	                               "\"device\":\"sdb\"}"));
	assert_int_equal(plan_parse(p.json, NULL, &back, &e), 0);
	assert_int_equal(back.nnodes, 3);
	plan_release(&back);
	plan_release(&p);

	/* Cohorts with a list's nodes: the plan's nodes keep their labels in the stored plan
	 * (which reads back with its cohort_by); a label no node has left is refused. */
	assert_int_equal(plan_at(dir,
	                         "\"nodes\":[{\"name\":\"local\",\"url\":\"http://127.0.0.1:7070\","
	                         "\"device\":\"loop0\",\"labels\":{\"rack\":\"r1\"}}],"
	                         "\"cohort_by\":[\"model\",\"label.rack\"],"
	                         "\"nodes_from\":{\"file\":\"hosts.txt\",\"device\":\"sdb\"}",
	                         NULL, &p, &e),
	                 0);
	assert_int_equal(p.ncohort_by, 2);
	assert_non_null(strstr(p.json, "\"device\":\"loop0\",\"labels\":{\"rack\":\"r1\"}}"));
	assert_int_equal(plan_parse(p.json, NULL, &back, &e), 0);
	assert_string_equal(plan_node_label(&back.nodes[0], "rack"), "r1");
	assert_null(plan_node_label(&back.nodes[1], "rack"));
	assert_string_equal(back.cohort_by[1], "label.rack");
	plan_release(&back);
	plan_release(&p);
	override = xasprintf("%s/hosts.txt", dir);
	assert_int_equal(
	        plan_at(dir,
	                "\"nodes\":[{\"name\":\"local\",\"url\":\"http://127.0.0.1:7070\","
	                "\"device\":\"loop0\",\"labels\":{\"rack\":\"r1\"}}],"
	                "\"cohort_by\":[\"label.rack\"],\"nodes_from\":{\"device\":\"sdb\"}",
	                override, &p, &e),
	        -EINVAL);
	assert_non_null(strstr(e.msg, "cohort_by[0]: no node has the label 'rack'"));
	assert_int_equal(plan_at(dir, "\"nodes_from\":{\"device\":\"sdb\"}", override, &p, &e), 0);
	assert_int_equal(p.ncohort_by, 2); /* model, firmware: read from each node's agent */
	plan_release(&p);
	free(override);
	/* An inventory's fleettune_label_KEY variables are its nodes' labels. */
	tu_write(dir, "racks.ini",
	         "[rack1]\nn1 fleettune_label_rack=r1\n[rack2]\nn2 fleettune_label_rack=r2\n"
	         "[all:vars]\nfleettune_device=sdb\n",
	         0644);
	assert_int_equal(plan_at(dir, "\"cohort_by\":[\"label.rack\"],\"nodes_from\":\"racks.ini\"",
	                         NULL, &p, &e),
	                 0);
	assert_string_equal(plan_node_label(&p.nodes[1], "rack"), "r2");
	assert_non_null(strstr(p.json, "\"device\":\"sdb\",\"labels\":{\"rack\":\"r2\"}}"));
	plan_release(&p);
	tu_write(dir, "racks.ini", "[rack1]\nn1 fleettune_device=sdb fleettune_label_r/k=r1\n",
	         0644);
	assert_int_equal(plan_at(dir, "\"nodes_from\":\"racks.ini\"", NULL, &p, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "/racks.ini:2: label 'r/k' of node n1: a label key is"));
	/* A node label with a control character is refused, as the plan's labels are. */
	assert_int_equal(plan_at(dir,
	                         "\"nodes\":[{\"name\":\"local\",\"url\":\"http://127.0.0.1:7070\","
	                         "\"device\":\"loop0\",\"labels\":{\"rack\":\"r1\\nACTION\"}}]",
	                         NULL, &p, &e),
	                 -EINVAL);
	assert_non_null(strstr(e.msg, "nodes[0].labels: a label key or value has a control"));

	/* An Ansible group, its token file resolved against the inventory's directory. */
	assert_int_equal(
	        plan_at(dir,
	                "\"nodes_from\":{\"file\":\"inv/fleet.yaml\",\"group\":\"storage\","
	                "\"device\":\"nvme0n1\",\"port\":7443,\"scheme\":\"https\"}",
	                NULL, &p, &e),
	        0);
	assert_int_equal(p.nnodes, 2);
	assert_string_equal(p.nodes[0].url, "https://10.1.0.1:7443");
	assert_string_equal(p.nodes[1].url, "https://s2:7443");
	override = xasprintf("%s/inv/tok", dir);
	assert_string_equal(p.nodes[1].token_file, override);
	free(override);
	plan_release(&p);

	/* The command line's list replaces the plan's nodes and file; the options stay. */
	override = xasprintf("%s/inv/fleet.yaml", dir);
	assert_int_equal(plan_at(dir,
	                         "\"nodes\":[{\"name\":\"local\",\"url\":\"http://127.0.0.1:7070\","
	                         "\"device\":\"loop0\"}],"
	                         "\"nodes_from\":{\"file\":\"hosts.txt\",\"group\":\"web\","
	                         "\"device\":\"sdc\"}",
	                         override, &p, &e),
	                 0);
	assert_int_equal(p.nnodes, 1);
	assert_string_equal(p.nodes[0].name, "w1");
	assert_string_equal(p.nodes[0].device, "sdc");
	plan_release(&p);
	/* ... and a plan may then have no nodes at all. */
	assert_int_equal(plan_at(dir, "\"nodes_from\":{\"device\":\"sdd\"}", override, &p, &e), 0);
	assert_int_equal(p.nnodes, 3);
	plan_release(&p);
	free(override);

	/* A list named relative to the current directory: the stored plan's token files are
	 * absolute, so it reads back right against any plan directory (rollout --resume). */
	{
		char cwd[PATH_MAX], real[PATH_MAX], *want;

		assert_non_null(getcwd(cwd, sizeof(cwd)));
		assert_int_equal(chdir(dir), 0);
		assert_int_equal(
		        plan_at("/nowhere",
		                "\"nodes_from\":{\"group\":\"storage\",\"device\":\"sdb\"}",
		                "inv/fleet.yaml", &p, &e),
		        0);
		assert_int_equal(chdir(cwd), 0);
		assert_string_equal(p.nodes[0].token_file, "inv/tok");
		assert_non_null(realpath(dir, real));
		want = xasprintf("\"token_file\":\"%s/inv/tok\"", real);
		assert_non_null(strstr(p.json, want));
		assert_int_equal(plan_parse(p.json, "/elsewhere", &back, &e), 0);
		free(want);
		want = xasprintf("%s/inv/tok", real);
		assert_string_equal(back.nodes[0].token_file, want);
		free(want);
		plan_release(&back);
		plan_release(&p);
	}

	/* Errors. */
	assert_int_equal(plan_at(dir, "\"nodes_from\":\"nosuch.txt\"", NULL, &p, &e), -ENOENT);
	assert_non_null(strstr(e.msg, "nodes_from: cannot read '"));
	assert_non_null(strstr(e.msg, "/nosuch.txt': No such file or directory"));
	assert_int_equal(plan_at(dir, "\"nodes_from\":{\"file\":\"hosts.txt\",\"format\":\"csv\"}",
	                         NULL, &p, &e),
	                 -EINVAL);
	assert_string_equal(e.msg, "nodes_from.format: 'csv' is not one of auto, hosts, "
	                           "ansible-ini, ansible-yaml, kubectl");
	assert_int_equal(
	        plan_at(dir, "\"nodes_from\":{\"file\":\"hosts.txt\",\"port\":0}", NULL, &p, &e),
	        -EINVAL);
	assert_string_equal(e.msg, "nodes_from.port: expected a port number (1-65535)");
	assert_int_equal(
	        plan_at(dir, "\"nodes_from\":{\"file\":\"hosts.txt\",\"colour\":1}", NULL, &p, &e),
	        -EINVAL);
	assert_string_equal(e.msg, "nodes_from.colour: unknown field");
	assert_int_equal(plan_at(dir, "\"nodes_from\":[\"hosts.txt\"]", NULL, &p, &e), -EINVAL);
	assert_string_equal(e.msg, "nodes_from: expected a file name or an object");
	assert_int_equal(plan_at(dir, "\"nodes_from\":\"bad.ini\"", NULL, &p, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "/bad.ini:2: 'sd/a' (node n1) is not a block device name"));
	assert_int_equal(plan_at(dir,
	                         "\"nodes_from\":{\"file\":\"hosts.txt\",\"device\":\"sdb\"},"
	                         "\"nodes\":[{\"name\":\"node1\",\"url\":\"http://x:1\","
	                         "\"device\":\"sda\"}]",
	                         NULL, &p, &e),
	                 -EINVAL);
	assert_string_equal(e.msg, "nodes[1].name: duplicate node name 'node1'");
	tu_rmrf(dir);
	free(dir);
}

/* Seed 001 as a plan: fs.mkfs (two inode sizes) x fs.mount over an XFS filesystem with the
 * read-ahead on top; the filesystem layer's own rules. */
static const char *fs_plan =
        "{\"name\":\"3ware xfs\","
        "\"nodes\":[{\"name\":\"n1\",\"url\":\"http://127.0.0.1:7071\",\"device\":\"sde\","
        "\"token\":\"t\"}],"
        "\"baseline\":{\"fs.mkfs\":\"-b size=4k -d su=64k,sw=7 -i size=1k -l version=2\","
        "\"fs.mount\":\"relatime\",\"read_ahead_kb\":128},"
        "\"axes\":[{\"param\":\"fs.mkfs\",\"values\":[\"-b size=4k -d su=64k,sw=7 -i size=1k "
        "-l version=2\",\"-b size=4k -d su=64k,sw=7 -i size=2k -l version=2\"]},"
        "{\"params\":[\"fs.mount\",\"read_ahead_kb\"],\"values\":[[\"noatime\",128],"
        "[\"noatime\",8192]]}],"
        "\"job\":{\"engine\":\"bonnie\",\"bonnie\":{\"size_mb\":1024},"
        "\"filesystem\":{\"type\":\"xfs\",\"mkfs\":[\"-K\"],\"mount\":\"\"},\"loops\":3}}";

/* text with its first from replaced by to (which must be there). Caller frees. */
static char *xstrreplace(const char *text, const char *from, const char *to)
{
	const char *at = strstr(text, from);
	size_t n = strlen(text) - strlen(from) + strlen(to) + 1;
	char *out = malloc(n);

	assert_non_null(at);
	snprintf(out, n, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
	return out;
}

static void fs_bad(const char *from, const char *to, const char *msg)
{
	char *text = xstrreplace(fs_plan, from, to);
	struct plan p;
	struct err e = { 0 };

	assert_int_equal(plan_parse(text, NULL, &p, &e), -EINVAL);
	if (strcmp(e.msg, msg))
		fail_msg("got \"%s\", want \"%s\"", e.msg, msg);
	free(text);
}

/* A node of several devices ("devices", or "sdb,sdc" in a node list): a member per device,
 * called NODE/DEV, with the node's URL, token and labels; the stored plan reads back to the
 * same members; bad device lists are refused naming the path. */
static void test_devices(void **state)
{
	char *dir = tu_tmpdir();
	struct plan p, back;
	struct err e = { 0 };
	int k;

	(void)state;
	assert_int_equal(
	        plan_at(dir,
	                "\"nodes\":[{\"name\":\"a\",\"url\":\"http://10.0.0.1:7070/\","
	                "\"devices\":[\"sdb\",\"sdc\"],\"token\":\"t1\",\"labels\":{\"rack\":"
	                "\"r1\"}},"
	                "{\"name\":\"b\",\"url\":\"http://10.0.0.2:7070\",\"device\":\"sdb\"}]",
	                NULL, &p, &e),
	        0);
	assert_int_equal(p.nnodes, 3);
	assert_string_equal(p.nodes[0].name, "a/sdb");
	assert_string_equal(p.nodes[1].name, "a/sdc");
	assert_string_equal(p.nodes[2].name, "b");
	for (k = 0; k < 2; k++) {
		assert_string_equal(p.nodes[k].url, "http://10.0.0.1:7070");
		assert_string_equal(p.nodes[k].host, "a");
		assert_string_equal(p.nodes[k].token, "t1");
		assert_string_equal(plan_node_label(&p.nodes[k], "rack"), "r1");
	}
	assert_string_equal(p.nodes[0].device, "sdb");
	assert_string_equal(p.nodes[1].device, "sdc");
	assert_null(p.nodes[2].host);
	assert_int_equal(plan_node_find(&p, "a/sdc"), 1);
	assert_int_equal(plan_node_find(&p, "a"), -1);
	plan_release(&p);

	/* Refused: both device and devices, none, an empty list, a bad name, one given twice. */
	assert_int_equal(plan_at(dir,
	                         "\"nodes\":[{\"name\":\"a\",\"url\":\"http://h:1\",\"device\":"
	                         "\"sdb\",\"devices\":[\"sdc\"]}]",
	                         NULL, &p, &e),
	                 -EINVAL);
	assert_string_equal(e.msg, "nodes[0]: give \"device\" (one device) or \"devices\" "
	                           "(several), not both");
	assert_int_equal(
	        plan_at(dir, "\"nodes\":[{\"name\":\"a\",\"url\":\"http://h:1\"}]", NULL, &p, &e),
	        -EINVAL);
	assert_non_null(strstr(e.msg, "device"));
	assert_int_equal(
	        plan_at(dir, "\"nodes\":[{\"name\":\"a\",\"url\":\"http://h:1\",\"devices\":[]}]",
	                NULL, &p, &e),
	        -EINVAL);
	assert_string_equal(e.msg,
	                    "nodes[0].devices: expected an array of 1 to 16 block device names");
	assert_int_equal(plan_at(dir,
	                         "\"nodes\":[{\"name\":\"a\",\"url\":\"http://h:1\",\"devices\":["
	                         "\"sdb\",\"../sda\"]}]",
	                         NULL, &p, &e),
	                 -EINVAL);
	assert_string_equal(e.msg, "nodes[0].devices[1]: '../sda' is not a block device name (e.g. "
	                           "sda, loop0)");
	assert_int_equal(plan_at(dir,
	                         "\"nodes\":[{\"name\":\"a\",\"url\":\"http://h:1\",\"devices\":["
	                         "\"sdb\",\"sdb\"]}]",
	                         NULL, &p, &e),
	                 -EINVAL);
	assert_string_equal(e.msg, "nodes[0].devices[1]: 'sdb' is given twice");
	/* A name given to a node and to a node of several devices, in either order, or to two
	 * nodes of devices at different URLs: refused naming both. */
	assert_int_equal(plan_at(dir,
	                         "\"nodes\":[{\"name\":\"a\",\"url\":\"http://h:1\",\"device\":"
	                         "\"sdb\"},{\"name\":\"a\",\"url\":\"http://h:1\",\"devices\":["
	                         "\"sdc\"]}]",
	                         NULL, &p, &e),
	                 -EINVAL);
	assert_string_equal(e.msg, "nodes: 'a' names two nodes, 'a' (device sdb) and 'a/sdc' "
	                           "(device sdc): give the host once, with every device of it in "
	                           "its \"devices\"");
	assert_int_equal(plan_at(dir,
	                         "\"nodes\":[{\"name\":\"a\",\"url\":\"http://h:1\",\"devices\":["
	                         "\"sdc\",\"sdd\"]},{\"name\":\"b\",\"url\":\"http://h:2\","
	                         "\"device\":\"sdb\"},{\"name\":\"a\",\"url\":\"http://h:1\","
	                         "\"device\":\"sdb\"}]",
	                         NULL, &p, &e),
	                 -EINVAL);
	assert_string_equal(e.msg, "nodes: 'a' names two nodes, 'a/sdd' (device sdd) and 'a' "
	                           "(device sdb): give the host once, with every device of it in "
	                           "its \"devices\"");
	assert_int_equal(plan_at(dir,
	                         "\"nodes\":[{\"name\":\"a\",\"url\":\"http://h:1\",\"devices\":["
	                         "\"sdb\"]},{\"name\":\"a\",\"url\":\"http://h:9\",\"devices\":["
	                         "\"sdc\"]}]",
	                         NULL, &p, &e),
	                 -EINVAL);
	assert_non_null(strstr(e.msg, "'a/sdb' (device sdb) and 'a/sdc' (device sdc)"));

	/* A hosts file's "sdb,sdc" (and a default device list): members too, written out in the
	 * stored plan as one node with "devices", which reads back the same. */
	tu_write(dir, "hosts.txt", "n1 http://10.0.0.1:7070 sdb,/dev/sdc\n10.0.0.2\n", 0644);
	assert_int_equal(plan_at(dir,
	                         "\"nodes_from\":{\"file\":\"hosts.txt\",\"device\":\"sdd,sde\"}",
	                         NULL, &p, &e),
	                 0);
	assert_int_equal(p.nnodes, 4);
	assert_string_equal(p.nodes[0].name, "n1/sdb");
	assert_string_equal(p.nodes[1].name, "n1/sdc");
	assert_string_equal(p.nodes[1].device, "sdc");
	assert_string_equal(p.nodes[2].name, "10.0.0.2/sdd");
	assert_string_equal(p.nodes[3].name, "10.0.0.2/sde");
	assert_string_equal(p.nodes[3].url, "http://10.0.0.2:7070");
	assert_non_null(strstr(p.json, "{\"name\":\"n1\",\"url\":\"http://10.0.0.1:7070\","
	                               "\"devices\":[\"sdb\",\"sdc\"]}"));
	assert_int_equal(plan_parse(p.json, NULL, &back, &e), 0);
	assert_int_equal(back.nnodes, 4);
	for (k = 0; k < 4; k++) {
		assert_string_equal(back.nodes[k].name, p.nodes[k].name);
		assert_string_equal(back.nodes[k].device, p.nodes[k].device);
		assert_string_equal(back.nodes[k].url, p.nodes[k].url);
	}
	plan_release(&back);
	plan_release(&p);
	/* An Ansible inventory's fleettune_device=sdb,sdc, likewise. */
	tu_write(dir, "inv.ini", "[storage]\ns1 ansible_host=10.1.0.1 fleettune_device=sdb,sdc\n",
	         0644);
	assert_int_equal(plan_at(dir, "\"nodes_from\":\"inv.ini\"", NULL, &p, &e), 0);
	assert_int_equal(p.nnodes, 2);
	assert_string_equal(p.nodes[0].name, "s1/sdb");
	assert_string_equal(p.nodes[1].name, "s1/sdc");
	assert_string_equal(p.nodes[1].url, "http://10.1.0.1:7070");
	plan_release(&p);
	tu_write(dir, "hosts.txt", "n1 http://10.0.0.1:7070 sdb,sdb\n", 0644);
	assert_int_equal(plan_at(dir, "\"nodes_from\":\"hosts.txt\"", NULL, &p, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "/hosts.txt:1: device 'sdb' (node n1) is given twice"));
	tu_rmrf(dir);
	free(dir);
}

static void test_filesystem(void **state)
{
	struct plan p;
	struct err e = { 0 };

	(void)state;
	assert_int_equal(plan_parse(fs_plan, NULL, &p, &e), 0);
	assert_true(p.has_fs);
	assert_string_equal(p.fs_type, "xfs");
	assert_string_equal(p.fs_mkfs, "-K");
	assert_string_equal(p.fs_mount, "");
	assert_string_equal(config_get(&p.baseline, "fs.mkfs")->value,
	                    "-b size=4k -d su=64k,sw=7 -i size=1k -l version=2");
	assert_false(config_get(&p.axes[1].values[0], "fs.mount")->is_int);
	plan_release(&p);
	/* mkfs as one string; type from the baseline instead of job.filesystem. */
	{
		char *t = xstrreplace(fs_plan, "[\"-K\"]", "\"-K -m crc=1\"");

		assert_int_equal(plan_parse(t, NULL, &p, &e), 0);
		assert_string_equal(p.fs_mkfs, "-K -m crc=1");
		plan_release(&p);
		free(t);
		fs_bad("\"job\":{\"engine\":\"bonnie\",\"bonnie\":{\"size_mb\":1024},"
		       "\"filesystem\":{"
		       "\"type\":\"xfs\",\"mkfs\":[\"-K\"],\"mount\":\"\"}",
		       "\"job\":{\"engine\":\"bonnie\",\"bonnie\":{\"size_mb\":1024}",
		       "job.filesystem: required by fs.mkfs: give the filesystem's type here "
		       "({\"type\": \"xfs\"}) or fs.type in the baseline");
		t = xstrreplace(fs_plan, "\"read_ahead_kb\":128},",
		                "\"read_ahead_kb\":128,\"fs.type\":\"ext4\"},");
		{
			char *u = xstrreplace(t,
			                      ",\"filesystem\":{\"type\":\"xfs\",\"mkfs\":[\"-K\"],"
			                      "\"mount\":\"\"}",
			                      "");

			assert_int_equal(plan_parse(u, NULL, &p, &e), 0);
			assert_false(p.has_fs);
			assert_string_equal(config_get(&p.baseline, "fs.type")->value, "ext4");
			plan_release(&p);
			free(u);
		}
		free(t);
	}
	fs_bad("\"fs.mount\":\"relatime\"", "\"fs.mount\":1",
	       "baseline.fs.mount: expected a string (mount options, e.g. \"noatime\")");
	fs_bad("\"mkfs\":[\"-K\"]", "\"mkfs\":[\"-d su=64k\"]",
	       "job.filesystem.mkfs[0]: expected one argv token (a string without blanks)");
	fs_bad("\"mkfs\":[\"-K\"]", "\"mkfs\":7",
	       "job.filesystem.mkfs: expected an array of argv tokens");
	fs_bad("\"mount\":\"\"}", "\"mount\":\"\",\"label\":\"x\"}",
	       "job.filesystem.label: unknown field");
	fs_bad("{\"type\":\"xfs\",", "{", "job.filesystem.type: required field is missing");
	fs_bad("\"loops\":3}", "\"loops\":3,\"directory\":\"/mnt\"}",
	       "job.directory: a job with a filesystem runs in the agent's mount directory: give "
	       "job.directory or job.filesystem, not both");
}

/* A plan of one node with job JOB_JSON (the "job" object's text). */
static void job_plan(const char *job, struct plan *p)
{
	char text[1024];
	struct err e = { 0 };

	snprintf(text, sizeof(text),
	         "{\"name\":\"j\",\"nodes\":[{\"name\":\"a\",\"url\":\"http://h:1\","
	         "\"device\":\"sda\"}],\"baseline\":{\"nr_requests\":128},\"axes\":[{"
	         "\"param\":\"nr_requests\",\"values\":[64]}],\"job\":%s}",
	         job);
	assert_int_equal(plan_parse(text, NULL, p, &e), 0);
}

/* How much data a job moves, per engine, for the size pre-flight; and allow_differences. */
static void test_job_bytes(void **state)
{
	struct plan p;
	uint64_t b;
	char what[160];

	(void)state;
	job_plan("{\"fio\":{\"rw\":\"write\",\"size\":\"2g\"},\"loops\":3}", &p);
	assert_int_equal(plan_job_bytes(&p, &b, what, sizeof(what)), 1);
	assert_true(b == 2ull << 30);
	assert_string_equal(what, "fio size 2g");
	plan_release(&p);
	job_plan("{\"engine\":\"bonnie\",\"directory\":\"/mnt/x\",\"bonnie\":{\"size_mb\":20480},"
	         "\"loops\":3}",
	         &p);
	assert_int_equal(plan_job_bytes(&p, &b, what, sizeof(what)), 1);
	assert_true(b == 20480ull << 20);
	assert_string_equal(what, "bonnie++ size_mb 20480");
	plan_release(&p);
	job_plan("{\"engine\":\"dd\",\"dd\":{\"count\":2048,\"bs\":\"1m\"},\"loops\":3}", &p);
	assert_int_equal(plan_job_bytes(&p, &b, what, sizeof(what)), 1);
	assert_true(b == 2048ull << 20);
	plan_release(&p);
	job_plan(
	        "{\"engine\":\"iozone\",\"directory\":\"/mnt/x\",\"iozone\":{\"file_size\":\"8g\"},"
	        "\"loops\":3}",
	        &p);
	assert_int_equal(plan_job_bytes(&p, &b, what, sizeof(what)), 1);
	assert_true(b == 8ull << 30);
	plan_release(&p);
	/* A time-based job that names no size: unknown. */
	job_plan("{\"fio\":{\"rw\":\"write\",\"runtime_s\":5,\"time_based\":true},\"loops\":3}",
	         &p);
	assert_int_equal(plan_job_bytes(&p, &b, what, sizeof(what)), 0);
	assert_false(plan_difference_allowed(&p, "rq_affinity"));
	assert_int_equal(plan_allow_differences_add(&p, "rq_affinity, iosched.*", NULL), 0);
	assert_true(plan_difference_allowed(&p, "rq_affinity"));
	assert_true(plan_difference_allowed(&p, "iosched.fifo_batch"));
	assert_false(plan_difference_allowed(&p, "iosched"));
	assert_false(plan_difference_allowed(&p, "nr_requests"));
	plan_release(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good_plan),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_adaptive_loops),
		cmocka_unit_test(test_adaptive_plan),
		cmocka_unit_test(test_bad_plans),
		cmocka_unit_test(test_cohort_by),
		cmocka_unit_test(test_syntax_errors),
		cmocka_unit_test(test_tokens),
		cmocka_unit_test(test_tokens_refused),
		cmocka_unit_test(test_points_capped),
		cmocka_unit_test(test_control_chars_refused),
		cmocka_unit_test(test_engine_opaque),
		cmocka_unit_test(test_fio_file),
		cmocka_unit_test(test_config_codec),
		cmocka_unit_test(test_node_set_codec),
		cmocka_unit_test(test_nodes_from),
		cmocka_unit_test(test_devices),
		cmocka_unit_test(test_filesystem),
		cmocka_unit_test(test_job_bytes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
