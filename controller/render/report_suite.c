/* report_suite.c -- a suite sweep in words: the matrix (and each cohort's when the suite's
 * decision splits by cohort), the breaches, the rule's best line and the cells as CSV. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/words.h"
#include "render/report_suite.h"
#include "render/text.h"
#include "xmalloc.h"
#include "banned.h"

static const char *cell_word(enum effect_decision d)
{
	switch (d) {
	case EFFECT_GAIN:
		return "gain";
	case EFFECT_LOSS:
		return "loss";
	case EFFECT_EQUIVALENT:
		return "equiv";
	case EFFECT_INCONCLUSIVE:
		return "inconcl";
	case EFFECT_HETEROGENEOUS:
		return "hetero";
	case EFFECT_COHORTS:
		return "cohorts";
	default:
		return "-";
	}
}

static const char *row_word(enum suite_verdict v)
{
	switch (v) {
	case SUITE_GAIN:
		return "gain";
	case SUITE_VETOED:
		return "vetoed (guardrail)";
	case SUITE_LOSS:
		return "loss";
	case SUITE_NO_GAIN:
		return "no gain";
	default:
		return "-";
	}
}

/* Display width of UTF-8 text: its code points. */
static int width(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

static bool workload_breached(const struct suite_row *r, int w)
{
	int c;

	for (c = 0; c < r->nchecks; c++)
		if (r->checks[c].workload == w && r->checks[c].breached)
			return true;
	return false;
}

static char *cell_text(const struct suite_cell *c, bool breached)
{
	struct buf b = BUF_INIT;

	if (!c->present) {
		buf_puts(&b, breached ? "- !" : "-");
		return buf_detach(&b, NULL);
	}
	words_delta_ci(&b, c->delta_pct, c->low_pct, c->high_pct);
	buf_printf(&b, " %s%s", cell_word(c->verdict),
	           c->verdict != c->raw ? "*" : ""); /* * : Holm took the claim back */
	if (breached)
		buf_puts(&b, " !");
	return buf_detach(&b, NULL);
}

static char *config_text(const struct point *p)
{
	struct buf b = BUF_INIT;

	config_format(&p->cfg, &b);
	if (!b.data)
		buf_puts(&b, "-");
	return buf_detach(&b, NULL);
}

/* The grid of rows (the fleet's or a cohort's, [s->npoints]): a line per compared
 * configuration, its cells, the mean and the row's verdict under the rule last. */
static void matrix_grid(const struct sweep *s, const struct suite_row *rows, bool markdown,
                        struct buf *out)
{
	const struct plan *p = &s->plan;
	int ncols = p->nworkloads + 3, nrows = 1, i, w, c, r;
	char **cell;
	int *wd;

	for (i = 0; i < s->npoints; i++)
		nrows += s->points[i].ref >= 0;
	cell = xcalloc((size_t)(ncols * nrows), sizeof(*cell));
	wd = xcalloc((size_t)ncols, sizeof(*wd));
	cell[0] = xstrdup("configuration");
	for (w = 0; w < p->nworkloads; w++)
		cell[1 + w] = xstrdup(p->workloads[w].name);
	cell[1 + p->nworkloads] = xstrdup(p->rule == PLAN_RULE_MEAN ? "mean (rule)" : "mean");
	cell[2 + p->nworkloads] = xstrdup("decision");
	for (i = 0, r = 1; i < s->npoints; i++) {
		const struct suite_row *row = &rows[i];

		if (s->points[i].ref < 0)
			continue;
		cell[r * ncols] = config_text(&s->points[i]);
		for (w = 0; w < p->nworkloads; w++)
			cell[r * ncols + 1 + w] =
			        cell_text(&row->cells[w], workload_breached(row, w));
		cell[r * ncols + 1 + p->nworkloads] = cell_text(&row->mean, false);
		cell[r * ncols + 2 + p->nworkloads] = xstrdup(row_word(row->verdict));
		r++;
	}
	for (i = 0; markdown && i < ncols * nrows; i++)
		text_markdown_cell(&cell[i]);
	for (i = 0; i < ncols * nrows; i++)
		if (width(cell[i]) > wd[i % ncols])
			wd[i % ncols] = width(cell[i]);
	for (r = 0; r < nrows; r++) {
		for (c = 0; c < ncols; c++) {
			const char *t = cell[r * ncols + c];

			if (markdown)
				buf_printf(out, "| %s ", t);
			else
				buf_printf(out, "%s%s%*s", c ? "  " : "", t,
				           c + 1 < ncols ? wd[c] - width(t) : 0, "");
		}
		buf_puts(out, markdown ? "|\n" : "\n");
		if (markdown && r == 0) {
			for (c = 0; c < ncols; c++)
				buf_puts(out, "|---");
			buf_puts(out, "|\n");
		}
	}
	buf_puts(out, "\n");
	for (i = 0; i < ncols * nrows; i++)
		free(cell[i]);
	free(cell);
	free(wd);
}

/* A line per breached guardrail check of rows ([s->npoints]). */
static void matrix_breaches(const struct sweep *s, const struct suite_row *rows, struct buf *out)
{
	const struct plan *p = &s->plan;
	int i, c;

	for (i = 0; i < s->npoints; i++) {
		const struct suite_row *row = &rows[i];

		for (c = 0; c < row->nchecks; c++) {
			const struct suite_check *k = &row->checks[c];
			const struct plan_guardrail *g = &p->guardrails[k->guardrail];
			char *cfg;

			if (!k->breached)
				continue;
			cfg = config_text(&s->points[i]);
			buf_printf(
			        out,
			        "guardrail %d (%s may lose at most %g %%) breached by %s on '%s': ",
			        k->guardrail + 1, g->metric, g->max_loss_pct, cfg,
			        p->workloads[k->workload].name);
			if (!k->present) {
				buf_puts(out, "no figure\n");
			} else {
				buf_puts(out, "loss ");
				words_signed(out, k->loss_pct);
				buf_puts(out, " %, up to ");
				words_signed(out, k->bound_pct);
				buf_printf(out, " %% (90 %% interval), %.1f points over\n",
				           k->over_pct);
			}
			free(cfg);
		}
	}
}

bool report_suite_cohorts_shown(const struct sweep *s)
{
	return s->suite && s->suite->ncohorts >= 2 && s->suite->cohort_rows &&
	       sweep_cohort_decisions_differ(s);
}

void report_suite_matrix(const struct sweep *s, bool markdown, struct buf *out)
{
	const struct suite *su = s->suite;
	const struct plan *p = &s->plan;
	int c;

	if (!su)
		return;
	buf_printf(out, "matrix (%d workloads against the baseline; rule %s):%s", p->nworkloads,
	           plan_rule_name(su->rule), markdown ? "\n\n" : "\n");
	matrix_grid(s, su->rows, markdown, out);
	buf_puts(out,
	         "cells: Δ against the baseline [95 % interval] and the workload's verdict "
	         "(* the claim did not survive Holm's correction; ! a guardrail is breached)\n");
	matrix_breaches(s, su->rows, out);
	words_suite_best_line(s, out);
	if (!report_suite_cohorts_shown(s))
		return;
	/* The suite's decision splits by cohort: each cohort's own matrix, as its rule saw it
	 * (its own figures on a workload whose row splits by cohort, the fleet's elsewhere). */
	for (c = 0; c < su->ncohorts; c++) {
		buf_puts(out, markdown ? "\n### matrix of cohort " : "\nmatrix of cohort ");
		words_cohort(s, c, out);
		buf_printf(out, " (rule %s):%s", plan_rule_name(su->rule),
		           markdown ? "\n\n" : "\n");
		matrix_grid(s, su->cohort_rows[c], markdown, out);
		matrix_breaches(s, su->cohort_rows[c], out);
		buf_puts(out, "decision of ");
		words_cohort(s, c, out);
		buf_puts(out, ": ");
		words_suite_decision(s, &s->cohorts[c].decision, out);
	}
}

static void csv_num(struct buf *out, double v)
{
	buf_puts(out, ",");
	if (isfinite(v))
		buf_printf(out, "%.6g", v);
}

/* The cells of rows ([s->npoints]) as CSV lines; cohort >= 0 opens each line with it. */
static void csv_cells(const struct sweep *s, const struct suite_row *rows, int cohort,
                      struct buf *out)
{
	const struct suite *su = s->suite;
	const struct plan *p = &s->plan;
	int i, w;

	for (i = 0; i < s->npoints; i++) {
		const struct suite_row *row = &rows[i];
		char *cfg;

		if (s->points[i].ref < 0)
			continue;
		cfg = config_text(&s->points[i]);
		for (w = 0; w <= p->nworkloads; w++) {
			const struct suite_cell *cl =
			        w < p->nworkloads ? &row->cells[w] : &row->mean;

			if (cohort >= 0) {
				struct buf key = BUF_INIT;

				sweep_cohort_key(s, cohort, &key);
				text_csv_field(out, key.data ? key.data : "");
				buf_puts(out, ",");
				buf_release(&key);
			}
			buf_printf(out, "%d,", i);
			text_csv_field(out, cfg);
			buf_puts(out, ",");
			text_csv_field(out, w < p->nworkloads ? p->workloads[w].name : "(mean)");
			buf_puts(out, ",");
			text_csv_field(out,
			               w < p->nworkloads ? p->workloads[w].metric : "suite.mean");
			csv_num(out, cl->delta_pct);
			csv_num(out, cl->low_pct);
			csv_num(out, cl->high_pct);
			csv_num(out, cl->p);
			csv_num(out, cl->p_holm);
			buf_printf(out, ",%s,%s,%s,%s,%s\n", words_decision_code(cl->raw),
			           words_decision_code(cl->verdict),
			           w < p->nworkloads && workload_breached(row, w) ? "true"
			                                                          : "false",
			           suite_verdict_code(row->verdict), plan_rule_name(su->rule));
		}
		free(cfg);
	}
}

void report_suite_csv(const struct sweep *s, struct buf *out)
{
	const struct suite *su = s->suite;
	const struct plan *p = &s->plan;
	int i, c;

	if (!su)
		return;
	buf_puts(out, "point,configuration,workload,metric,delta_pct,ci_low_pct,ci_high_pct,p,"
	              "p_holm,verdict_raw,verdict,breached,row_verdict,rule\n");
	csv_cells(s, su->rows, -1, out);
	buf_puts(out,
	         "\npoint,guardrail,metric,workload,max_loss_pct,loss_pct,bound_pct,breached\n");
	for (i = 0; i < s->npoints; i++)
		for (c = 0; c < su->rows[i].nchecks; c++) {
			const struct suite_check *k = &su->rows[i].checks[c];

			buf_printf(out, "%d,%d,", i, k->guardrail + 1);
			text_csv_field(out, p->guardrails[k->guardrail].metric);
			buf_puts(out, ",");
			text_csv_field(out, p->workloads[k->workload].name);
			csv_num(out, p->guardrails[k->guardrail].max_loss_pct);
			csv_num(out, k->loss_pct);
			csv_num(out, k->bound_pct);
			buf_printf(out, ",%s\n", k->breached ? "true" : "false");
		}
	if (su->ncohorts < 2 || !su->cohort_rows)
		return;
	/* Each cohort's cells (its rule judged on its own figures where a row splits). */
	buf_puts(out, "\ncohort,point,configuration,workload,metric,delta_pct,ci_low_pct,"
	              "ci_high_pct,p,p_holm,verdict_raw,verdict,breached,row_verdict,rule\n");
	for (c = 0; c < su->ncohorts; c++)
		csv_cells(s, su->cohort_rows[c], c, out);
}
