/* report_html.h -- the self-contained HTML report of a sweep (`fleettune-ctl report --html`). */
#ifndef FT_REPORT_HTML_H
#define FT_REPORT_HTML_H

#include "buf.h"
#include "err.h"
#include "model/sweep.h"

/*
 * Write a self-contained HTML report to path: web_dir/report.html with every
 * <script src> and <link rel="stylesheet"> inlined from web_dir and the sweep
 * document (sweepdoc_write; s analysed) put into <script id="sweep-data"
 * type="application/json">. Every "</" inside an inlined text is written "<\/", and
 * an inlined path that climbs out of web_dir is refused. Returns 0 or -errno (e filled).
 */
int report_html_write(const struct sweep *s, const char *web_dir, const char *path, struct err *e);
/* Append JSON text t (n bytes) for a <script type="application/json"> element: every '<',
 * '>' and '&' (they occur only inside strings) written as \u003c, \u003e, \u0026 and U+2028,
 * U+2029 as \u2028, \u2029, so that no "</script>", "<!--" or "<script" can end the element
 * or switch the HTML parser's state (a "<!--<script>" in a name blanked every table);
 * JSON.parse gives the same text back. The one way JSON goes into a page: the report, the
 * sweep pages and the site's index. */
void report_html_json_append(struct buf *out, const char *t, size_t n);
/* A page of the template text tmpl with json put into its <script id="DATA_ID"
 * type="application/json"> (report_html_json_append); its scripts and stylesheets are left
 * as links (fleettune-ctl site copies them beside the pages). Returns 0, or -EINVAL when the
 * template has no such script. */
int report_html_page(const char *tmpl, const char *data_id, const char *json, struct buf *out,
                     struct err *e);
/* Build the HTML document from the template text (for tests). Returns 0 or -errno. */
int report_html_build(const struct sweep *s, const char *tmpl, const char *web_dir, struct buf *out,
                      struct err *e);

#endif
