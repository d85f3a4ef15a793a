/* sweepdoc.h -- the sweep document read back: what `show --format json` writes
 * (schema/sweep.schema.json, format_version 1, 2 or 3) into a struct sweep, for `analyze`. */
#ifndef FT_SWEEPDOC_H
#define FT_SWEEPDOC_H

#include "err.h"
#include "sweep.h"

/* Versions of the document this reader takes. Version 1 differs from 2 only in the analysis
 * fields, which are never read; version 3's passes are objects {value, round, started_at}
 * (the run order: rows are judged within rounds) and a node may carry warm-up passes. */
#define SWEEPDOC_VERSION_MIN 1
#define SWEEPDOC_VERSION_MAX 3
/* Most passes one node may hold at one point. */
#define SWEEPDOC_PASSES_MAX 10000

/*
 * Parse the document text into s: the plan (the document's "plan" object, which plan_parse
 * judges), id, status, times, dropped nodes, and every point with its role, axis, reference,
 * parameters, loops and reference loops, and per node its state, passes (with their rounds
 * and start times from version 3; without them the rows are judged as independent samples,
 * as before rounds), warm-up passes, read-back values, job and error; the round order's seed.
 * Analysis fields (means, deltas, verdicts, best, outcome, noise, warnings) are ignored: run
 * verdict_sweep() on s. Unknown fields are ignored (the format only grows). Returns 0, or -EINVAL
 * with e naming the JSON path ("points[3].nodes[1].passes[2]: expected a number"); then s holds
 * nothing to release.
 */
int sweepdoc_parse(const char *text, struct sweep *s, struct err *e);

#endif
