/* plan_suite.h -- a plan's suite (plan_suite.c): workloads, a matrix or the iozone preset,
 * decide and guardrails, read into struct plan. Not for other modules than the parser. */
#ifndef FT_PLAN_SUITE_H
#define FT_PLAN_SUITE_H

#include <jansson.h>

#include "plan/planjson.h"

/* Read root's "workloads", "matrix", "suite" (with "threads"), "decide" and "guardrails" into
 * ps->p (after the job, metric and goal). None of the three: a plain plan, and decide and
 * guardrails are refused. Errors name the path ("workloads[2].name: ..."). */
int plan_suite_parse(struct parser *ps, json_t *root);

#endif
