/* site.h -- `fleettune-ctl site DIR`: every stored sweep as a static site (an index page and
 * each sweep's report), and the index document it is drawn from. */
#ifndef FT_SITE_H
#define FT_SITE_H

#include "err.h"
#include "model/sweep.h"
#include "store/ctlstore.h"

struct site_opts {
	const char *web_dir;  /* site.html, report.html and the files they use */
	const char *db_label; /* what the index says the sweeps come from (the database path) */
	double now_s;         /* the time the index says it was written */
	/* Called on every sweep as it is loaded and analysed, before it is written: the caller's
	 * view of its status ("abandoned"); NULL for none. */
	void (*status_adjust)(struct sweep *s, void *ctx);
	void *ctx;
};

struct site_stats {
	int nsweeps;       /* sweeps written (each sweep-ID.html) */
	int nplans;        /* distinct plans among them */
	int nplans_repeat; /* of those, plans run more than once (a chart each on the index) */
};

/*
 * Write the site into dir (created if absent, 0755; files in it replaced):
 *   dir/index.html       web_dir/site.html with the index document (site_index_json) in its
 *                        <script id="site-data">
 *   dir/sweep-ID.html    web_dir/report.html with sweep ID's document (sweepdoc_write) in its
 *                        <script id="sweep-data">, for every stored sweep
 *   dir/style.css, charts.js, report.js, site.js, vendor/chart.umd.js and its licence,
 *                        copied from web_dir: the pages link them, so they open from file://
 *                        with no network and the chart library is stored once, not per page.
 * Sweeps are read from st one at a time. Two sweeps are runs of the same plan when their
 * plans are equal without their nodes and labels (the node URLs change from run to run).
 * Returns 0, or -errno with e naming the file or the sweep.
 */
int site_write(struct ctlstore *st, const char *dir, const struct site_opts *o,
               struct site_stats *stats, struct err *e);

#endif
