/* report.h -- a sweep rendered for people: the table, markdown and CSV (JSON through
 * sweepdoc), compare, history, and the text of the dry run, pre-flight, nodes and apply. */
#ifndef FT_REPORT_H
#define FT_REPORT_H

#include <stdbool.h>

#include "buf.h"
#include "err.h"
#include "judge/verdict.h"
#include "model/sweep.h"
#include "run/preflight.h"
#include "store/ctlstore.h"

/*
 * The modules below produce structs, codes and numbers; the sentences a
 * person reads about them are written here, in words.c (the phrases the
 * table shares with the sweep document), sweepdoc.c (the document's text
 * fields), export.c, report_html.c and progress.c. Renderers append to out
 * and do no other I/O.
 */

enum report_format { REPORT_TABLE, REPORT_MARKDOWN, REPORT_CSV, REPORT_JSON };

/* Parse "table", "markdown", "csv" or "json". Returns 0 or -EINVAL. */
int report_format_parse(const char *s, enum report_format *out);
/* The table and markdown show a column per node up to this many nodes; above, the nodes'
 * distribution (with a figure, means, own Δ min / median / max, own gains / losses). */
#define REPORT_NODE_COLUMNS_MAX 8

/* Append s (analysed: analysis.h) in the given format to out. */
void report_render(const struct sweep *s, enum report_format f, struct buf *out);
/* The same; all_nodes keeps a column per node in the table and markdown at any fleet size
 * (CSV and JSON always carry every node). */
void report_render_nodes(const struct sweep *s, enum report_format f, bool all_nodes,
                         struct buf *out);
/* The per-point, per-node comparison cmp of sweep b against sweep a (analysis_sweeps_compared). */
void report_compare(const struct sweep *a, const struct sweep *b,
                    const struct verdict_comparison *cmp, bool markdown, struct buf *out);
/* compare for two suite sweeps (a->suite and b->suite set): a section per workload of a, each
 * workload's series of b (the workload of the same name) compared with a's as report_compare
 * does, and a line for a workload b does not have. Returns the points matched, over every
 * workload. */
int report_compare_suites(const struct sweep *a, const struct sweep *b, bool markdown,
                          struct buf *out);
/* The `history` listing: one line per sweep and its best line. */
void report_history(const struct ctlstore_summary *h, int n, struct buf *out);
/* An adaptive sweep's looks and what it still costs: worst case and expected loops per node
 * (race_remaining), in benchmark-seconds when the job has a runtime_s, and its budget. */
void report_adaptive_duration(const struct sweep *s, struct buf *out);
/* `sweep --dry-run`: s holds the first batch of points; nconfigs/complete come from
 * strategy_configs(). */
void report_dry_run(const struct sweep *s, int npoints_est, int nconfigs, bool complete,
                    struct buf *out);
/* A failed pre-flight of `sweep`: the header and every problem. */
void report_preflight_failed(const struct preflight *pf, struct buf *out);
/* `nodes`: each node's health, version, device and writable parameters, and the pre-flight. */
void report_nodes(const struct plan *p, const struct preflight *pf, struct buf *out);
/* `apply`: each node's read-back, or its error. */
void report_apply(const struct plan *p, const struct config *cfg, const struct config *applied,
                  const unsigned *adjusted, const struct fleet_result *res, struct buf *out);
/* The same with a configuration per node (apply --best of a sweep with cohorts): cfgs[i] NULL
 * is a node not applied, notes[i] (NULL, or NULL entries: none) says why or which cohort. */
void report_apply_each(const struct plan *p, const struct config *const *cfgs, char *const *notes,
                       const struct config *applied, const unsigned *adjusted,
                       const struct fleet_result *res, struct buf *out);

#endif
