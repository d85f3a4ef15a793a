/* test_ctl_sweepdoc.c -- the sweep document: what it carries as written, round trips,
 * version 1 read back, and errors that name the JSON path and leave nothing behind. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "ctltest.h"
#include "doc/sweepdoc.h"
#include "judge/verdict.h"
#include "model/sweep.h"
#include "render/report.h"
#include "run/strategy.h"
#include "testutil.h"
#include "xmalloc.h"

/* A finished sequential sweep with adaptive loops (3 to 12), judged. */
static void adaptive_sweep(struct sweep *s)
{
	const double eff[8] = { 0, 8, -1, 8, 8, 0, 8, 8 };

	ctltest_sequential_run(s, "{\"min\":3,\"max\":12}", eff, 4);
	s->id = 12;
	s->created_at = 1764457200.0;
	s->finished_at = 1764457800.0;
	snprintf(s->status, sizeof(s->status), "completed");
	verdict_sweep(s);
}

/* The document as written: codes and the words for them, the fleet figures, the plan. */
static void test_json(void **state)
{
	struct sweep s;
	json_t *doc, *pt, *n;
	char *text;
	const char *out = getenv("FT_FIXTURE_OUT");

	(void)state;
	ctltest_seed003(&s);
	text = sweepdoc_write(&s);
	if (out) {
		FILE *f = fopen(out, "w");

		assert_non_null(f);
		fprintf(f, "%s\n", text);
		fclose(f);
	}
	doc = json_loads(text, 0, NULL);
	assert_non_null(doc);
	assert_string_equal(json_string_value(json_object_get(doc, "format")), "fleettune-sweep");
	assert_int_equal(json_integer_value(json_object_get(doc, "id")), 7);
	assert_int_equal(json_array_size(json_object_get(doc, "points")), 4);
	pt = json_array_get(json_object_get(doc, "points"), 2);
	assert_string_equal(json_string_value(json_object_get(pt, "role")), "candidate");
	assert_int_equal(
	        json_integer_value(json_object_get(json_object_get(pt, "params"), "queue_depth")),
	        975);
	n = json_array_get(json_object_get(pt, "nodes"), 0);
	assert_int_equal(
	        json_integer_value(json_object_get(
	                json_object_get(json_object_get(n, "applied"), "queue_depth"), "value")),
	        919);
	assert_true(json_is_true(json_object_get(
	        json_object_get(json_object_get(n, "applied"), "queue_depth"), "adjusted")));
	assert_string_equal(json_string_value(json_object_get(n, "verdict")), "gain");
	assert_int_equal(json_array_size(json_object_get(n, "passes")), 5);
	/* Format 3: every pass an object; this sweep's passes carry no rounds (seed 003's
	 * figures, as typed in), so round and started_at are null and the rows are judged as
	 * independent samples, as the rounds line says. */
	assert_true(json_is_number(
	        json_object_get(json_array_get(json_object_get(n, "passes"), 0), "value")));
	assert_true(json_is_null(
	        json_object_get(json_array_get(json_object_get(n, "passes"), 0), "round")));
	assert_int_equal(json_array_size(json_object_get(n, "warmup")), 0);
	assert_true(json_is_false(json_object_get(json_object_get(doc, "drift"), "rounds")));
	assert_non_null(
	        json_string_value(json_object_get(json_object_get(doc, "drift"), "rounds_text")));
	assert_true(json_number_value(json_object_get(n, "df")) > 4);
	assert_true(json_number_value(json_object_get(n, "cv_pct")) > 0);
	assert_true(json_is_false(json_object_get(n, "disagrees")));
	assert_int_equal(json_integer_value(json_object_get(doc, "format_version")), 5);
	/* Rows carry codes and the report's words for them, with the fleet figures. */
	assert_string_equal(json_string_value(json_object_get(pt, "verdict")), "gain");
	assert_string_equal(json_string_value(json_object_get(pt, "verdict_text")),
	                    "significant gain");
	assert_string_equal(
	        json_string_value(json_object_get(json_object_get(pt, "fleet"), "decision")),
	        "gain");
	assert_int_equal(
	        json_integer_value(json_object_get(json_object_get(pt, "fleet"), "nodes_used")), 2);
	assert_int_equal(json_array_size(json_object_get(json_object_get(pt, "fleet"), "ci90_pct")),
	                 2);
	assert_true(json_is_boolean(json_object_get(json_object_get(pt, "noise"), "noisy")));
	assert_int_equal(json_array_size(json_object_get(pt, "disagree")), 0);
	assert_int_equal(
	        json_integer_value(json_object_get(json_object_get(pt, "stopping"), "looks")), 1);
	assert_string_equal(
	        json_string_value(json_object_get(json_object_get(doc, "best"), "verdict")),
	        "gain");
	assert_int_equal(
	        json_integer_value(json_object_get(json_object_get(doc, "noise"), "noisy_rows")),
	        0);
	assert_true(json_is_null(json_object_get(json_object_get(doc, "noise"), "text")));
	assert_true(json_is_null(
	        json_object_get(json_array_get(json_object_get(doc, "points"), 0), "verdict")));
	assert_true(json_is_null(json_object_get(json_array_get(json_object_get(doc, "points"), 0),
	                                         "verdict_text")));
	/* The plan is embedded without tokens. */
	assert_true(json_is_object(json_object_get(doc, "plan")));
	json_decref(doc);
	free(text);
	sweep_release(&s);
}

/* show --format json, read back and judged again, gives the same document and table. */
static void test_roundtrip(void **state)
{
	struct buf t1 = BUF_INIT, t2 = BUF_INIT;
	struct sweep a, b;
	struct err e;
	char *j1, *j2;

	(void)state;
	adaptive_sweep(&a);
	j1 = sweepdoc_write(&a);
	assert_int_equal(sweepdoc_parse(j1, &b, &e), 0);
	/* Only the data came back: nothing is judged until verdict_sweep. */
	assert_int_equal(b.npoints, a.npoints);
	assert_int_equal(b.points[1].verdict, EFFECT_NA);
	assert_int_equal(b.points[1].loops_run, a.points[1].loops_run);
	assert_int_equal(b.points[1].ref_loops, a.points[1].ref_loops);
	assert_int_equal(b.plan.loops_max, 12);
	verdict_sweep(&b);
	j2 = sweepdoc_write(&b);
	assert_string_equal(j1, j2);
	report_render(&a, REPORT_TABLE, &t1);
	report_render(&b, REPORT_TABLE, &t2);
	assert_string_equal(t1.data, t2.data);
	assert_non_null(strstr(t1.data, "3\u201312 loops"));
	assert_int_equal(b.points[1].verdict, EFFECT_GAIN);
	free(j1);
	free(j2);
	buf_release(&t1);
	buf_release(&t2);
	sweep_release(&a);
	sweep_release(&b);
}

/* A document's identity strings are cleaned as the agent cleans the kernel's: a terminal
 * escape or a line break in a model cannot reach analyze's output; a field left empty is not
 * reported. */
static void test_identity_cleaned(void **state)
{
	const double a[] = { 0, 10, 4 }, b[] = { 0, -10, 12 };
	struct buf t = BUF_INIT;
	struct sweep s, back;
	struct err e;
	char *j, *p, *edited;

	(void)state;
	ctltest_cohort_sweep(&s, 4, 2, a, b, -1, 0);
	j = sweepdoc_write(&s);
	p = strstr(j, "\"model\": \"A\"");
	assert_non_null(p);
	edited = xasprintf("%.*s\"model\": \"\\u001b]0;x\\u0007A\\nB \", \"vendor\": \"  \"%s",
	                   (int)(p - j), j, p + strlen("\"model\": \"A\""));
	assert_int_equal(sweepdoc_parse(edited, &back, &e), 0);
	assert_string_equal(back.identity[0].field[IDF_MODEL], "?]0;x?A B");
	assert_null(back.identity[0].field[IDF_VENDOR]);
	verdict_sweep(&back);
	report_render(&back, REPORT_TABLE, &t);
	assert_null(strchr(t.data, '\x1b'));
	assert_null(strchr(t.data, '\x07'));
	free(j);
	free(edited);
	buf_release(&t);
	sweep_release(&s);
	sweep_release(&back);
}

/* Analysis fields are ignored: a document whose verdicts and means lie is judged from its
 * passes. */
static void test_analysis_ignored(void **state)
{
	struct sweep a, b;
	struct err e;
	char *j, *p;

	(void)state;
	adaptive_sweep(&a);
	j = sweepdoc_write(&a);
	p = strstr(j, "\"verdict\": \"gain\"");
	assert_non_null(p);
	memcpy(p, "\"verdict\": \"loss\"", strlen("\"verdict\": \"loss\""));
	assert_int_equal(sweepdoc_parse(j, &b, &e), 0);
	verdict_sweep(&b);
	assert_int_equal(b.points[1].verdict, EFFECT_GAIN);
	assert_int_equal(ctltest_best(&b, -1), ctltest_best(&a, -1));
	free(j);
	sweep_release(&a);
	sweep_release(&b);
}

/* The version-1 fixture (English verdicts) is read and judged with the new rules. */
static void test_version1(void **state)
{
	char *text = tu_slurp(FT_FIXTURES "/sweep-example.json", NULL);
	struct sweep s;
	struct err e;

	(void)state;
	assert_int_equal(sweepdoc_parse(text, &s, &e), 0);
	assert_int_equal(s.id, 1);
	assert_int_equal(s.npoints, 6);
	assert_int_equal(s.plan.strategy, PLAN_SEQUENTIAL);
	assert_int_equal(s.points[0].nodes[0].npasses, 3);
	assert_string_equal(s.status, "completed");
	verdict_sweep(&s);
	/* nr_requests 256 against its axis baseline: -35 % on both nodes. */
	assert_int_equal(s.points[5].verdict, EFFECT_LOSS);
	assert_int_equal(ctltest_best(&s, -1), -1);
	free(text);
	sweep_release(&s);
}

/* One bad document: it is refused with code invalid_sweep and a message that starts with the
 * JSON path. */
static void refused(const char *text, const char *msg_start)
{
	struct sweep s;
	struct err e;

	err_clear(&e);
	assert_int_equal(sweepdoc_parse(text, &s, &e), -EINVAL);
	assert_int_equal(e.code, ERR_INVALID_SWEEP);
	if (strncmp(e.msg, msg_start, strlen(msg_start)))
		fail_msg("message '%s' does not start with '%s'", e.msg, msg_start);
}

/* Replace the first occurrence of from in the document with to, and expect msg_start. */
static void refused_edit(const char *doc, const char *from, const char *to, const char *msg_start)
{
	const char *at = strstr(doc, from);
	struct buf b = BUF_INIT;

	assert_non_null(at);
	buf_append(&b, doc, (size_t)(at - doc));
	buf_puts(&b, to);
	buf_puts(&b, at + strlen(from));
	refused(b.data, msg_start);
	buf_release(&b);
}

static void test_errors(void **state)
{
	struct sweep a;
	char *j;

	(void)state;
	adaptive_sweep(&a);
	j = sweepdoc_write(&a);
	refused("", "line 1");
	refused("[]", "$: expected an object");
	refused("{\"format\":\"other\"}", "format: not a fleettune sweep document");
	refused_edit(j, "\"format_version\": 5", "\"format_version\": 6",
	             "format_version: 6 is newer");
	refused_edit(j, "\"format_version\": 5", "\"format_version\": \"2\"",
	             "format_version: expected an integer");
	refused_edit(j, "\"passes\": [\n", "\"passes\": [\n\"fast\",\n",
	             "points[0].nodes[0].passes[0]: expected an object {value, round, started_at}");
	refused_edit(j, "\"value\": ", "\"value\": \"fast\", \"v\": ",
	             "points[0].nodes[0].passes[0].value: expected a number");
	refused_edit(j, "\"round\": null", "\"round\": 0",
	             "points[0].nodes[0].passes[0].round: 0 is not between 1 and");
	refused_edit(j, "\"started_at\": null", "\"started_at\": \"yesterday\"",
	             "points[0].nodes[0].passes[0].started_at: 'yesterday' is not an ISO-8601");
	refused_edit(j, "\"order_seed\": \"", "\"order_seed\": \"x", "order_seed: 'x");
	refused_edit(j, "\"role\": \"candidate\"", "\"role\": \"winner\"",
	             "points[1].role: 'winner' is not baseline, candidate or final");
	refused_edit(j, "\"ref\": 0", "\"ref\": 7", "points[1].ref: 7 is not an earlier point");
	refused_edit(j, "\"state\": \"ok\"", "\"state\": \"happy\"",
	             "points[0].nodes[0].state: 'happy' is not");
	refused_edit(j, "\"node\": \"n1\"", "\"node\": \"n9\"",
	             "points[0].nodes[0].node: 'n9', expected 'n1'");
	refused_edit(j, "\"strategy\": \"sequential\",\n    \"job\"",
	             "\"strategy\": \"random\",\n    \"job\"", "plan.");
	free(j);
	sweep_release(&a);
}

/* The document's text with its "plan" moved first (the reader takes either order). */
static char *plan_first(const char *doc)
{
	json_t *d = json_loads(doc, 0, NULL), *o = json_object(), *v;
	const char *k;
	char *text;

	assert_non_null(d);
	json_object_set(o, "plan", json_object_get(d, "plan"));
	json_object_foreach(d, k, v)
	{
		if (strcmp(k, "plan"))
			json_object_set(o, k, v);
	}
	text = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
	json_decref(o);
	json_decref(d);
	return text;
}

/* Read text, judge it, write it again. */
static char *rejudged(const char *text)
{
	struct sweep s;
	struct err e;
	char *j;

	if (sweepdoc_parse(text, &s, &e) < 0)
		fail_msg("%s", e.msg);
	verdict_sweep(&s);
	j = sweepdoc_write(&s);
	sweep_release(&s);
	return j;
}

/* The reader streams: the plan, which the writer puts last, may also come first, and a suite's
 * passes (format 5: each workload's series, named by the plan) read the same either way. */
static void test_plan_order(void **state)
{
	char *suite = tu_slurp(FT_FIXTURES "/sweep-suite.json", NULL), *first, *a, *b, *j;
	struct sweep s;
	struct err e;

	(void)state;
	first = plan_first(suite);
	assert_true(strstr(first, "\"plan\"") < strstr(first, "\"points\""));
	assert_int_equal(sweepdoc_parse(first, &s, &e), 0);
	assert_true(s.plan.nworkloads > 1);
	assert_true(s.points[1].nodes[0].nseries > 1);
	sweep_release(&s);
	a = rejudged(suite);
	b = rejudged(first);
	assert_string_equal(a, b);
	free(first);
	free(a);
	free(b);
	adaptive_sweep(&s);
	j = sweepdoc_write(&s);
	first = plan_first(j);
	a = rejudged(j);
	b = rejudged(first);
	assert_string_equal(a, b);
	assert_string_equal(a, j);
	free(first);
	free(a);
	free(b);
	free(j);
	sweep_release(&s);
	free(suite);
}

/* refused_edit of the first occurrence of from at or after from_at (a place in doc). */
static void refused_edit_in(const char *doc, const char *from_at, const char *from, const char *to,
                            const char *msg_start)
{
	const char *at = strstr(from_at, from);
	struct buf b = BUF_INIT;

	assert_non_null(at);
	buf_append(&b, doc, (size_t)(at - doc));
	buf_puts(&b, to);
	buf_puts(&b, at + strlen(from));
	refused(b.data, msg_start);
	buf_release(&b);
}

/* The line of the first occurrence of what in doc (1-based). */
static int line_of(const char *doc, const char *what)
{
	const char *at = strstr(doc, what), *c;
	int line = 1;

	assert_non_null(at);
	for (c = doc; c < at; c++)
		line += *c == '\n';
	return line;
}

/* What the streamed reader refuses as the whole document's parse did: syntax errors placed in
 * the document (not in the node result they stand in), duplicate keys at every level, the
 * document's shape. */
static void test_stream_errors(void **state)
{
	struct sweep a;
	char *j, *tail, *points, want[64];

	(void)state;
	adaptive_sweep(&a);
	j = sweepdoc_write(&a);
	snprintf(want, sizeof(want), "line %d, column ", line_of(j, "\"state\": \"ok\""));
	refused_edit(j, "\"state\": \"ok\"", "\"state\": ok", want);
	snprintf(want, sizeof(want), "line %d, column ", line_of(j, "\"index\": 1,"));
	refused_edit(j, "\"index\": 1,", "\"index\": 1 \"role\": 2,", want);
	snprintf(want, sizeof(want), "line %d, column ", line_of(j, "\"id\": 12,"));
	refused_edit(j, "\"id\": 12,", "\"id\": 12, \"id\": 12,", want);
	refused_edit(j, "\"id\": 12,", "\"points\": [], \"id\": 12,", "line ");
	refused_edit(j, "\"index\": 1,", "\"index\": 1, \"nodes\": [],", "line ");
	refused_edit(j, "\"state\": \"ok\"", "\"state\": \"ok\", \"state\": \"ok\"", "line ");
	refused_edit(j, "\"points\": [", "\"pointz\": [", "points: required field is missing");
	refused_edit(j, "\"points\": [", "\"points\": 7, \"pointz\": [",
	             "points: expected an array");
	refused_edit(j, "\"points\": [", "\"points\": [7, ", "points[0]: expected an object");
	/* points[0]'s "nodes" (the document's own "nodes" comes before the points). */
	points = strstr(j, "\"points\": [");
	assert_non_null(points);
	refused_edit_in(j, points, "\"nodes\": [", "\"nodes\": 3, \"nodez\": [",
	                "points[0].nodes: expected an array");
	refused_edit_in(j, points, "\"nodes\": [", "\"nodez\": [",
	                "points[0].nodes: required field is missing");
	refused_edit_in(j, points, "\"nodes\": [", "\"nodes\": [], \"nodez\": [",
	                "points[0].nodes: 0 results, expected one per plan node");
	refused_edit_in(j, points, "\"nodes\": [", "\"nodes\": [{}, [], 7, ",
	                "points[0].nodes: 5 results, expected one per plan node (2)");
	tail = xasprintf("%s x", j);
	refused(tail, "line ");
	free(tail);
	tail = xasprintf("%.*s", (int)strlen(j) - 1, j);
	refused(tail, "line ");
	free(tail);
	free(j);
	sweep_release(&a);
}

/* Numbers a plan would refuse, or no engine measures (issue 23 item 15). */
static void test_numbers_refused(void **state)
{
	struct sweep a;
	char *j, *v2;
	const char *top;

	(void)state;
	adaptive_sweep(&a);
	j = sweepdoc_write(&a);
	refused_edit(j, "\"value\": ", "\"value\": 1e308, \"v\": ",
	             "points[0].nodes[0].passes[0].value: 1e+308 is not a measurement");
	refused_edit(j, "\"value\": ", "\"value\": -1e300, \"v\": ",
	             "points[0].nodes[0].passes[0].value: -1e+300 is not a measurement");
	/* The plain numbers of format 1 and 2 are held to the same bound. */
	v2 = tu_slurp(FT_FIXTURES "/sweep-v2-drift.json", NULL);
	refused_edit(v2, "\"passes\": [\n", "\"passes\": [\n1e308,\n",
	             "points[0].nodes[0].passes[0]: 1e+308 is not a measurement");
	free(v2);
	/* The summary's min_effect_pct comes before the plan's. */
	top = strstr(j, "\"min_effect_pct\": ");
	assert_non_null(top);
	assert_true(top < strstr(j, "\"plan\""));
	refused_edit(j, "\"min_effect_pct\": ", "\"min_effect_pct\": -50, \"x\": ",
	             "min_effect_pct: must be a number between 0 and 1000");
	free(j);
	sweep_release(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_analysis_ignored),
		cmocka_unit_test(test_identity_cleaned),
		cmocka_unit_test(test_version1),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_plan_order),
		cmocka_unit_test(test_stream_errors),
		cmocka_unit_test(test_numbers_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
