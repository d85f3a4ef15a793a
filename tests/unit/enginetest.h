/* enginetest.h -- helpers shared by the engine parser tests (test_fio, test_dd, ...). */
#ifndef FT_ENGINETEST_H
#define FT_ENGINETEST_H

#include <jansson.h>

#include "engines/engine.h"
#include "testutil.h"
#include "wire/wire.h"

/* Parse test JSON or fail the test. Caller decrefs. */
static inline json_t *load(const char *text)
{
	json_error_t jerr;
	json_t *j = json_loads(text, 0, &jerr);

	if (!j)
		fail_msg("bad test JSON %s: %s", text, jerr.text);
	return j;
}

/* Decode text (NULL: no object) as eng's option object the way a job body's is decoded, then
 * check it as the job layer does. Returns the first error, with e filled. */
static inline int opts_check(const struct engine *eng, const char *text, struct engine_opts *o,
                             struct err *e)
{
	json_t *j = text ? load(text) : NULL;
	int rc;

	engine_opts_init(o);
	err_clear(e);
	rc = wire_engine_opts_from_json(eng, j, o, e);
	if (rc == 0)
		rc = eng->check(o, e);
	json_decref(j);
	return rc;
}

/* opts_check() that must succeed; returns o. */
static inline const struct engine_opts *opts_load(const struct engine *eng, const char *text,
                                                  struct engine_opts *o)
{
	struct err e;

	if (opts_check(eng, text, o, &e))
		fail_msg("options %s refused: %s", text ? text : "(none)", e.msg);
	return o;
}

/* The engine promises exactly the metrics a parse of a real output of that kind yields:
 * every promised name is in m, and m has nothing unpromised. */
static inline void assert_metrics_promised(const struct engine *eng, const struct engine_opts *o,
                                           const struct metrics *m)
{
	struct metric_names names = { 0 };
	int i;

	eng->metrics_list(o, &names);
	for (i = 0; i < names.n; i++)
		if (!metrics_get(m, names.name[i]))
			fail_msg("%s promises %s, the parsed output has no such metric", eng->name,
			         names.name[i]);
	for (i = 0; i < m->n; i++)
		if (!metric_names_has(&names, m->m[i].name))
			fail_msg("%s's output has %s, which its metrics list does not name",
			         eng->name, m->m[i].name);
}

/* The metric exists and equals want to within tol. */
static inline void assert_metric_tol(const struct metrics *m, const char *name, double want,
                                     double tol)
{
	const struct metric *x = metrics_get(m, name);

	if (!x)
		fail_msg("metric %s missing", name);
	if (x->value < want - tol || x->value > want + tol)
		fail_msg("metric %s = %f, want %f", name, x->value, want);
}

#endif
