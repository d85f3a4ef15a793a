/* progress.h -- what a running sweep shows on stderr as it goes: the live line with its ETA on
 * a TTY, the same as a plain line every few seconds off one (a line per pass with --verbose),
 * and the runner's failures as they happen. */
#ifndef FT_PROGRESS_H
#define FT_PROGRESS_H

#include <stdbool.h>

#include "buf.h"
#include "model/sweep.h"
#include "run/runner.h"

/* What the progress display of a running sweep keeps; the run loop fills it in. */
struct progress {
	const struct sweep *s;
	const struct runner *r;
	bool tty;             /* stderr is a terminal: the live line, else one line per pass */
	bool line;            /* a TTY progress line is on screen */
	int npoints_est;      /* strategy_estimate(): the most points the sweep can run */
	double first_point_s; /* per point before one finished: the agents' estimate */
	int loops_done;       /* loops of the runs that finished */
	int round;            /* the sweep's round under way */
	bool warmup;          /* the run under way is a warm-up loop */
	double last_draw;     /* time_mono_s() of the last live line */
};

/* Off a TTY, the seconds between two plain progress lines. */
#define PROGRESS_PLAIN_S 10.0

/*
 * The runner's event callback (runner_opts.event, ctx a struct progress): failures go to the
 * log (the live line cleared first); news of a point redraws the live line on a TTY on a new
 * pass, else at most four times a second, with the ETA from the seconds per loop so far
 * (adaptive: the loops race_remaining expects still); off a TTY it prints that line plainly
 * at the first news and then every PROGRESS_PLAIN_S seconds, or, with debug logging
 * (--verbose), every new pass instead.
 */
void progress_event(void *ctx, const struct runner_event *ev);
/* Clear the live line when it is on screen. */
void progress_clear(struct progress *pg);

/* Off a TTY: one line per pass of point that landed after reported[node] passes ("pass j/L
 * (round r)": L the loops of the batch under way). */
void progress_pass_lines(const struct sweep *s, int point, int npoints_est, const int *reported,
                         struct buf *out);
/* On a TTY: the live line (it starts by returning to column 0 and clearing the line): the
 * point, its loop of the batch under way (or "warm-up loop") and the sweep's round. The ETA
 * is eta_s, or the range eta_s..eta_max_s when adaptive loops may run longer. */
void progress_line(const struct sweep *s, int point, int npoints_est, int round, bool warmup,
                   const bool *active, double eta_s, double eta_max_s, struct buf *out);

#endif
