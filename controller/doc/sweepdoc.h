/* sweepdoc.h -- the sweep document (schema/sweep.schema.json): written for `show --format
 * json` and the HTML report, read back (format_version 1 to 5) for `analyze`. */
#ifndef FT_SWEEPDOC_H
#define FT_SWEEPDOC_H

#include "err.h"
#include "model/sweep.h"

/* format_version of the document sweepdoc_write writes. 2: verdicts are effect.h's codes,
 * with the fleet effect, noise, named disagreeing nodes and the stopping rule's look. 3: every
 * pass an object {value, round, started_at}, warm-up passes, the round order's seed, the
 * drift and warm-up of every node. 4: the decision (model/decision.h) of the sweep and of each
 * cohort, which every rendering shows; "best" is the confirmed decision's only. 5: a suite's
 * passes carry "workloads" (each workload's figures of the pass, as the agent reports them)
 * and the document a "suite" object (the matrix, guardrails and the rule's decision). */
#define SWEEPDOC_FORMAT_VERSION 5

/* The sweep document of s (analysed: analysis.h): every field of the schema, the
 * table's words in its text fields, numbers at full precision (17 digits) so that analyze
 * re-judges the passes exactly as show judged them. Caller has ownership. */
char *sweepdoc_write(const struct sweep *s);

/* Versions of the document this reader takes. Version 1 differs from 2, and 3 from 4, only in
 * the analysis fields, which are never read; version 3's passes are objects {value, round,
 * started_at} (the run order: rows are judged within rounds) and a node may carry warm-up passes.
 */
#define SWEEPDOC_VERSION_MIN 1
#define SWEEPDOC_VERSION_MAX SWEEPDOC_FORMAT_VERSION
/* Most passes one node may hold at one point. */
#define SWEEPDOC_PASSES_MAX 10000
/* A pass's metric larger than this in magnitude is refused (sweep.h's rule). */
#define SWEEPDOC_PASS_ABS_MAX SWEEP_PASS_ABS_MAX

/*
 * Parse the document text into s: the plan (the document's "plan" object, which plan_parse
 * judges), id, status, times, dropped nodes, and every point with its role, axis, reference,
 * parameters, loops and reference loops, and per node its state, passes (with their rounds
 * and start times from version 3; without them the rows are judged as independent samples,
 * as before rounds), warm-up passes, read-back values, job and error; the round order's seed.
 * Analysis fields (means, deltas, verdicts, best, outcome, noise, warnings, drift) are
 * ignored: analysis_sweep_loaded() judges s. Unknown fields are ignored (the format only
 * grows). The members may come in any order: the points are read once the rest is (the
 * writer puts "plan" last, and a suite's passes need its workloads), skipped over by a
 * tokenizer (common/jsonstream.h) until then. Each node result is parsed alone and freed, so
 * that what is held beside the text is the model, not a tree of the document: at 16 384
 * nodes the peak is about 2x the text's size, text included, where a whole tree took 15x.
 * Returns 0, or -EINVAL with e naming the JSON path ("points[3].nodes[1].passes[2]: expected
 * a number") or, for a syntax error, the line and column in the text; then s holds nothing
 * to release.
 */
int sweepdoc_parse(const char *text, struct sweep *s, struct err *e);

#endif
