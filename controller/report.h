/* report.h -- render a sweep as a table, markdown, CSV, JSON or a self-contained HTML file. */
#ifndef FT_REPORT_H
#define FT_REPORT_H

#include <stdbool.h>

#include "buf.h"
#include "err.h"
#include "sweep.h"

enum report_format { REPORT_TABLE, REPORT_MARKDOWN, REPORT_CSV, REPORT_JSON };

/* Parse "table", "markdown", "csv" or "json". Returns 0 or -EINVAL. */
int report_format_parse(const char *s, enum report_format *out);
/* Append s (analysed with verdict_sweep()) in the given format to out. */
void report_render(const struct sweep *s, enum report_format f, struct buf *out);
/* The sweep document of `show --format json` (schema/sweep.schema.json). Caller has ownership. */
char *report_json(const struct sweep *s);
/* The one-line summary of the best configuration ("best: ... (significant gain on ...)"). */
void report_best_line(const struct sweep *s, struct buf *out);
/* Per-point, per-node comparison of sweep b against sweep a (points matched by their
 * parameters). Returns the number of matched points. */
int report_compare(const struct sweep *a, const struct sweep *b, bool markdown, struct buf *out);
/* The best configuration (else the baseline) as a udev rule ("udev") or a tuned profile
 * ("tuned"). Returns 0 or -EINVAL for an unknown format. */
int report_export(const struct sweep *s, const char *format, struct buf *out, struct err *e);
/*
 * Write a self-contained HTML report to path: web_dir/report.html with every
 * <script src> and <link rel="stylesheet"> inlined from web_dir and the sweep
 * JSON put into <script id="sweep-data" type="application/json">.
 */
int report_html_write(const struct sweep *s, const char *web_dir, const char *path, struct err *e);
/* Build the HTML document from the template text (for tests). Returns 0 or -errno. */
int report_html_build(const struct sweep *s, const char *tmpl, const char *web_dir, struct buf *out,
                      struct err *e);

#endif
