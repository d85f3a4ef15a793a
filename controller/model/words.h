/* words.h -- the phrases every rendering of a sweep shares (the table, the sweep document,
 * compare, history): verdicts, parameter cells, Δ with its interval, the best, noise and
 * warning lines. */
#ifndef FT_WORDS_H
#define FT_WORDS_H

#include <stdbool.h>

#include "buf.h"
#include "model/sweep.h"

/*
 * The modules below produce structs, codes and numbers; the sentences a person reads about
 * them that more than one rendering carries are written here, so the table and the JSON's
 * text fields cannot drift apart. Every function appends to out and does no other I/O.
 */

/* A suite's best line (words_best_line's for a sweep with s->suite): "best (rule no_loss: ...):
 * read_ahead_kb=1024, mean Δ +4.0 % [+3.4, +4.7]", or why none. */
void words_suite_best_line(const struct sweep *s, struct buf *out);
/* A suite's decision d (the fleet's or a cohort's) after the best line's head, with its
 * newline: the configuration and its Δ, or why the baseline stands. */
void words_suite_decision(const struct sweep *s, const struct decision *d, struct buf *out);
/* What a suite's rule means, in words (the best line, the document's rule_words). */
const char *words_rule(enum plan_rule r);
/* A decision's code as CSV and JSON carry it ("" for EFFECT_NA). */
const char *words_decision_code(enum effect_decision d);
/* A signed figure with one decimal and a real minus sign: "+1.5", "−2.0". */
void words_signed(struct buf *b, double v);
/* "+1.5 % [−0.2, +3.1]": a Δ with its interval; the interval only when both ends are known,
 * nothing at all for a NAN Δ. */
void words_delta_ci(struct buf *b, double delta_pct, double lo, double hi);
/* The value shown for parameter name of point p: "975→919" when a node adjusted it, "-" when
 * p does not set it; fs.mkfs compactly, only the options that differ among the sweep's
 * values (fsparam_mkfs_compact). */
void words_param(const struct sweep *s, const struct point *p, const char *name, struct buf *b);
/* What every fs.mkfs value of s shares, as the table's line under it says it ("-b size=4k -d
 * sw=7"); nothing when s has fewer than two values or they share nothing. */
void words_mkfs_common(const struct sweep *s, struct buf *out);
/* The plan's node names, indexed like its nodes, for words_decision. Caller frees the array
 * (not the names). */
char **words_node_names(const struct plan *p);
/* The most loops the advice quotes a figure for: a job runs 1..100 loops. */
#define WORDS_LOOPS_MAX 100
/* The loops beyond which a noisy row reads "more than N loops" rather than a figure: the
 * plan's loops (job.loops.max for adaptive loops), at most WORDS_LOOPS_MAX. */
int words_loops_ceiling(const struct plan *p);
/* Decision d of comparison fx in words ("significant gain", ...); a heterogeneous one names
 * its disagreeing nodes (names[k] is node k's) with their own Δ; an inconclusive one whose
 * nodes' own effects differ says so ("nodes differ: τ 3.9 %"), whatever its loop estimate,
 * and one that noise explains says how many loops would decide it ("~60 loops needed"), or
 * above ceiling only "more than N loops needed". */
void words_decision(const struct effect *fx, enum effect_decision d, char *const *names,
                    int ceiling, struct buf *out);
/* Point p's verdict as the table's verdict column and the document's verdict_text say it
 * (s analysed: analysis.h). */
void words_verdict(const struct sweep *s, const struct point *p, struct buf *b);
/* The table's verdict cell: words_verdict's, but a row split by cohort only says so
 * ("cohorts differ (between cohorts p 0.0001)"): its cohorts' rows follow it. */
void words_verdict_short(const struct sweep *s, const struct point *p, struct buf *b);
/* The lines that say what s found (its decision: decision.h): "best: CFG  +15.2 % (significant
 * gain on n1 and n2)" and under it which comparison decided with the interval it used; an
 * unconfirmed decision as "best: the baseline (CFG is not confirmed: the final confirmation
 * showed +1.0 %, no real difference)" with the rows that suggested it, each with its interval,
 * and what the actions do; "best: the baseline (...)", or "no best: why (node: error; ...)".
 * Cohorts whose decisions differ: one line per cohort. Each line with its newline. */
void words_best_line(const struct sweep *s, struct buf *out);
/* The first of those lines, without the node details and without a newline. */
void words_best_summary(const struct sweep *s, struct buf *out);
/* A decision's one-line summary from the decision alone (the history's, the site's, the
 * report's banner), status the sweep's (an unconfirmed decision says the sweep stopped
 * before its final confirmation). No newline. */
void words_decision_summary(const struct decision *d, const char *status, struct buf *out);
/* Why s (analysed) has no best, as a clause: "no configuration gave a significant gain over
 * the baseline", "the baseline failed on every node", ... No newline. */
void words_no_best(const struct sweep *s, struct buf *out);
/* Why an action refuses decision d of s (not confirmed): "nr_requests=32 is not confirmed:
 * the final confirmation showed +1.0 %, no real difference (+1.0 % [−0.9, +2.9] (95 %
 * interval)); the axis rows suggested it: ...", or words_no_best's clause for none. */
void words_decision_refusal(const struct sweep *s, const struct decision *d, struct buf *out);
/* "+1.5 % [−0.2, +3.1] (99.5 % interval)": a Δ with the interval a decision used and its
 * level; without the level when the interval is unknown. */
void words_delta_level(struct buf *b, double delta_pct, double lo, double hi, double level_pct);
/* The cohorts of s (grouped: cohort.h) as pre-flight prints them: "cohorts by model,
 * firmware: 2" and one line per cohort with its values, its node count and first nodes; each
 * line with its newline. */
void words_cohorts(const struct sweep *s, struct buf *out);
/* "model=ST300 firmware=2.1 (5 nodes)": cohort c's values and size. */
void words_cohort(const struct sweep *s, int c, struct buf *out);
/* Cohort c's own decision on point p (p->cohort_fx set), with delta its Δ: "significant gain
 * +10.0 % [+9.4, +10.6]"; disagreeing nodes are named ("nodes disagree: n3 differs:
 * −10.0 %", then without a Δ). */
void words_cohort_decision(const struct sweep *s, const struct point *p, int c, bool delta,
                           struct buf *out);
/* Warning w of s in words (without "warning: " and the newline). */
void words_warning(const struct sweep *s, const struct sweep_warning *w, struct buf *out);
/* The noise line (without "noise: " and the newline) when s->noise.nnoisy > 0: how much the
 * passes vary, which rows cannot resolve min_effect, and what would decide them: above the
 * plan's loops (or WORDS_LOOPS_MAX) "More than N loops: this job is too noisy for a 5 %
 * decision here" with the remedies; rows whose nodes' effects differ are named apart. */
void words_noise(const struct sweep *s, struct buf *out);

/* The drift line (without "drift: " and the newline) when s->drift.nsignificant > 0: whose
 * figures rose or fell, by how much over the sweep, and whether that can bias the rows
 * (judged within rounds: no; without rounds: it may). */
void words_drift(const struct sweep *s, struct buf *out);
/* The warm-up line (without "warm-up: " and the newline) when words_warmup_due(s): the
 * warm-up loops run and not judged, and the nodes whose first passes still stand out, with
 * the remedy (fio's ramp_time, the plan's warmup_loops). */
bool words_warmup_due(const struct sweep *s);
void words_warmup(const struct sweep *s, struct buf *out);
/* The rounds line (without "rounds: " and the newline) when words_rounds_due(s): a sweep
 * whose passes carry no rounds is judged as independent samples, as before rounds. */
bool words_rounds_due(const struct sweep *s);
void words_rounds(const struct sweep *s, struct buf *out);

#endif
