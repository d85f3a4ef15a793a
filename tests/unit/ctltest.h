/* ctltest.h -- helpers shared by the controller's unit tests: a two-node sweep plan and
 * results as the runner leaves them. */
#ifndef FT_CTLTEST_H
#define FT_CTLTEST_H

#include "model/sweep.h"
#include "run/strategy.h"

/*
 * Init s from a plan with nodes a and b (devices sda, sdb), baseline
 * {scheduler: mq-deadline, nr_requests: 128}, axes scheduler [mq-deadline,
 * none, bfq] and nr_requests [64, 128, 256], a fio job of 3 loops of 2 s,
 * the given strategy, and extra appended to the top-level object (e.g.
 * ",\"goal\":\"minimize\""). No points yet.
 */
void ctltest_sweep(struct sweep *s, const char *strategy, const char *extra);
/* Every node of point i finished 3 passes around mean (earlier passes dropped); the sweep is
 * analysed then, as the run loop does after a run (analysis_point_ran). */
void ctltest_fill(struct sweep *s, int i, double mean);
/* The point of cohort c's confirmed decision (c < 0: the fleet's), -1 when it is not
 * confirmed: what the tests call the best. */
int ctltest_best(const struct sweep *s, int c);
/* Init s from the plan text (the test fails when it does not parse). No points yet. */
void ctltest_sweep_text(struct sweep *s, const char *plan_json);
/*
 * A plan of nnodes nodes n1..nN (devices sda, sdb, ...), the given baseline and axes (JSON
 * text), strategy, job.loops (JSON text: 5 or {"min":3,"max":20}) and extra members appended
 * to the top-level object. Caller frees.
 */
char *ctltest_plan(int nnodes, const char *baseline, const char *axes, const char *strategy,
                   const char *loops, const char *extra);
/* Node k of point i finished with the passes x[0..n) (earlier passes dropped); the point's
 * loops_run becomes n when that is more. */
void ctltest_passes(struct sweep *s, int i, int k, const double *x, int n);
/*
 * A deterministic stand-in for the runner: each item of b appends its loops to every node
 * (counted with sweep_point_loops_add), pass j of node k of point i at
 * 1000 (1 + eff[i] / 100) (1 ± cv / 100), the sign alternating with j + k: every point's
 * passes on a node share one pattern, so Δ is eff[i] and the per-pass CV about cv. The sweep
 * is analysed after each item, as the run loop does.
 */
void ctltest_batch_run(struct sweep *s, const struct strategy_batch *b, const double *eff,
                       double cv);
/*
 * A finished, judged sequential sweep on nodes n1, n2 over axes x [1, 2] and y [1] from
 * baseline {x: 0, y: 0}, job.loops as given (JSON text), run by ctltest_batch_run with the
 * effects eff per point index (against point 0; at most 8 points) and per-pass CV cv.
 */
void ctltest_sequential_run(struct sweep *s, const char *loops, const double *eff, double cv);

/* Seed 003's nr_requests / queue_depth runs: MiB/s per 60 s pass, [point][node][pass]. */
extern const double ctltest_seed003_passes[4][2][5];
/*
 * A finished, judged grid sweep over those figures: id 7, plan "anvil </script> tuning" (the
 * name tests the HTML escaping), nodes node1 and node2 (both device sda), baseline
 * nr_requests 128 / queue_depth 256 and the points 975/256, 975/975, 4000/975, 5 loops of a
 * 60 s fio randwrite; queue_depth 975 reads back as 919 (adjusted), jobs 10 i + k + 1.
 */
void ctltest_seed003(struct sweep *s);

/*
 * A judged grid sweep over nodes n1..nN in two cohorts by model, A (the first na nodes) and
 * B, firmware 1.0: point 0 the baseline, points 1 (x=1) and 2 (x=2) with effect_a[i] % on A's
 * nodes and effect_b[i] % on B's (node odd_node at odd_effect % instead; -1 for none), CV
 * 2 %, 5 passes alternating around each mean, so every node's Δ is its effect.
 */
void ctltest_cohort_sweep(struct sweep *s, int n, int na, const double *effect_a,
                          const double *effect_b, int odd_node, double odd_effect);

/* Seed 001's three mkfs lines as a grid axis on nodes n1, n2 (devices sda, sdb): baseline
 * fs.type xfs, fs.mkfs "-b size=4k -d su=64k,sw=7 -i size=1k -l version=2", fs.mount
 * "noatime,logbufs=8,logbsize=256k", read_ahead_kb 128; the -i size=2k point +20 %, the
 * su=256k one -10 %, 3 loops each, judged. */
void ctltest_fs_sweep(struct sweep *s);

#endif
