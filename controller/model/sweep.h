/* sweep.h -- a sweep's data: its points, every node's passes and the analysis fields. */
#ifndef FT_SWEEP_H
#define FT_SWEEP_H

#include <stdbool.h>
#include <stdint.h>

#include "model/decision.h"
#include "model/suite.h"
#include "plan/plan.h"
#include "protocol.h"
#include "stats.h"
#include "stats/effect.h"

/*
 * The data model only: no run loop, no I/O, no statistics. The strategy
 * appends points, the runner fills node results (passes are appended, so a
 * point can be run more than once), the verdict module fills the analysis
 * fields, the store saves and loads all of it and the report renders it.
 * The enums have stable snake_case codes (sweep_*_code) for storage; their
 * wording for people lives in the report.
 */

enum point_role { ROLE_BASELINE, ROLE_CANDIDATE, ROLE_FINAL };

enum node_state {
	NODE_PENDING,   /* not run (yet) */
	NODE_OK,        /* every loop finished */
	NODE_FAILED,    /* the job or the node failed; passes may be partial */
	NODE_CANCELLED, /* cancelled by the controller (signal or another node's failure) */
	NODE_DROPPED,   /* node dropped earlier (--continue-on-node-failure) */
};

/*
 * Verdicts are effect.h's decisions (enum effect_decision): a node's own decision on a point
 * against its reference point (gain, loss, equivalent, inconclusive), and a row's decision,
 * made on the fleet effect (the same, or heterogeneous when nodes disagree); EFFECT_NA for
 * baseline rows and points without data.
 */

/* What a sweep found, for the exit status (the decision says what to do: decision.h). */
enum sweep_outcome {
	OUTCOME_PENDING,  /* not analysed yet */
	OUTCOME_BEST,     /* the fleet's decision, or some cohort's, is confirmed */
	OUTCOME_BASELINE, /* configurations were measured; nothing confirmed beats the baseline
	                     (the decision may be unconfirmed: a suggestion, never acted on) */
	OUTCOME_BASELINE_FAILED, /* the original baseline has no figure on any node */
	OUTCOME_NO_FIGURES,      /* the baseline has figures but no configuration has one */
};

/* Warnings of the analysis; the report words them. */
enum warning_code {
	WARNING_NODE_OFFSET, /* node is consistently offset_pct away from other (or the rest) */
};

struct sweep_warning {
	enum warning_code code;
	int node;          /* plan node index */
	int other;         /* node compared with, -1: the mean of the other nodes */
	double offset_pct; /* mean signed deviation, % */
	int npoints;       /* points where it held (all points with data) */
};

#define SWEEP_WARNINGS_MAX 8

/* The noise of the sweep's comparison rows, for the line under the table: set when some row
 * could not resolve min_effect (its minimum detectable effect is larger). */
struct sweep_noise {
	int nrows;        /* comparison rows (candidates and final) with a fleet effect */
	int nnoisy;       /* of those, undecided rows (inconclusive, heterogeneous) whose MDE
	                     exceeds min_effect (0 when it is 0) */
	double cv_pct;    /* the largest per-pass CV of a noisy row, % */
	double mde_pct;   /* the largest MDE of a noisy row whose nodes do not differ (of any
	                     noisy row when all differ), % */
	int loops_needed; /* the most loops per point a noisy row needs to resolve min_effect;
	                     0 when no noisy row can get there with more loops */
	int nunreachable; /* noisy rows more loops cannot resolve: their nodes' effects differ */
	int ndiffer;      /* noisy rows whose nodes' own effects differ (a significant τ), whatever
	                     their loop estimate (the unreachable ones among them); they are left
	                     out of loops_needed and mde_pct */
	double tau_pct;   /* the largest τ among those */
};

/* How one node's figures moved over the sweep, and whether its first passes stand out as
 * warm-up (drift.c fills it). Percentages are of the node's level at the start. */
struct sweep_drift_node {
	int npasses;              /* judged passes of points with 2 or more, in the trend */
	double change_pct;        /* fitted change from the first pass to the last, %; NAN: none */
	double low_pct, high_pct; /* its 95 % interval */
	double change_log;        /* the change in log units, and its standard error */
	double change_se_log;
	double p;          /* Holm-adjusted p (over the nodes) of no trend */
	bool significant;  /* p <= 5 % and |change| >= DRIFT_MIN_PCT */
	int warm_points;   /* points whose first judged pass stands out below the rest */
	int warm_of;       /* points with 3 judged passes or more */
	double warm_pct;   /* median shortfall of those first passes, % */
	bool warmup;       /* on most points (more than half, and 2 or more) */
	int nwarmup;       /* warm-up passes run (plan job.warmup_loops) */
	double warmup_pct; /* their mean shortfall against their point's judged mean, % */
};

struct sweep_drift {
	int nnodes;                     /* plan.nnodes once analysed, 0 before */
	struct sweep_drift_node *nodes; /* [nnodes], owned */
	bool rounds;                    /* the passes carry rounds: rows are judged within them */
	bool timed;                     /* the trend is against the passes' start times */
	double span_s;                  /* timed: the first pass's start to the last's */
	int nsignificant;               /* nodes with a significant drift */
	int nwarmup_nodes;              /* nodes whose first passes stand out as warm-up */
	int nwarmup_passes;             /* warm-up passes run, over every node */
};

/* A point's place in its axis' race (strategy adaptive; race.c sets it, the store keeps it). */
enum race_state {
	RACE_NONE,      /* not raced: other strategies, and the final confirmation */
	RACE_RUNNING,   /* still in the race */
	RACE_DROPPED,   /* out of the race: why is worse, equivalent or failed */
	RACE_WON,       /* the axis' choice: why is how the race ended */
	RACE_TIED,      /* equivalent to the kept value when the race ended; not chosen */
	RACE_OPEN,      /* still undecided when the race stopped (why: cap, budget, not_better) */
	RACE_TENTATIVE, /* the axis' choice carried forward without a shown gain over the
	                   baseline's value (why: cap, budget, not_better): later axes race over
	                   it and the final confirmation decides; never a gain by itself */
};

enum race_why {
	RACE_WHY_NONE,
	RACE_WHY_WORSE,      /* shown worse than the leader */
	RACE_WHY_EQUIVALENT, /* shown equivalent to the leader, below it, and not the baseline */
	RACE_WHY_FAILED,     /* no usable figure on any node */
	RACE_WHY_LAST,       /* the only value left */
	RACE_WHY_ALL_EQUIVALENT, /* the rest equivalent to the leader: the baseline's value kept */
	RACE_WHY_CAP,            /* the survivors reached job.loops.max */
	RACE_WHY_BUDGET,         /* the next round would have gone over budget_s */
	RACE_WHY_NOT_BETTER,     /* only the baseline's value left beside the leader, shown no
	                            better than it by min_effect */
	RACE_WHY_RULE,           /* a suite's: its row against the axis' baseline point is
	                            settled and the rule does not crown it (a decided loss on a
	                            workload, a guardrail shown breached, no gain anywhere) */
};

/* The decision that settled a point's race (or its latest comparison while it runs). */
struct race_mark {
	enum race_state state;
	enum race_why why;
	int round;        /* the round it was decided after (1: after the first job.loops.min) */
	int loops;        /* loops the point had then */
	int vs;           /* the point it was compared with (the leader then); -1 when none */
	double delta_pct; /* Δ against vs, % (goal not applied: as measured) */
	double low_pct, high_pct; /* the interval the decision used, %; NAN when none */
};

/* A warm-up pass: run and stored, shown, never judged. */
struct sweep_pass {
	double value;      /* the plan's metric */
	int round;         /* the sweep's round it ran in (1-based); 0: not recorded */
	double started_at; /* epoch seconds by the agent's clock; 0: not recorded */
};

/* What a node's device and host are, as its agent answered GET /api/v1/devices at pre-flight
 * (the device's identity and the host's): one text per identity field of common/protocol.h
 * (IDF_*; a boolean as "true"/"false", a number in decimal), NULL when not reported. */
struct node_identity {
	char *field[IDF_N];
};

/* A cohort: the nodes whose cohort_by values are all the same (controller/judge/cohort.h). */
struct sweep_cohort {
	int nvalues;   /* plan.ncohort_by when grouped */
	char **values; /* [nvalues] the cohort's value of each key; NULL when absent */
	int nnodes;
	int *nodes; /* plan node indexes, increasing */
	/* What this cohort decided (decision.h), judged through its own decision on rows split
	 * by cohort and the fleet's on the others; cfg is what its (first) node ran. */
	struct decision decision;
	bool own; /* the decision's comparison row is split by cohort: the cohort's own figures */
};

/* The between-cohort heterogeneity test of one row (cohort.h states the rule). */
struct cohort_test {
	int ncohorts; /* cohorts with a fleet effect */
	double q;     /* Q_between: Σ w_c (θ_c - θ̄)², w_c = 1 / SE_c² */
	int df;       /* ncohorts - 1 */
	double p;     /* its chi-square p-value; NAN with fewer than 2 cohorts */
	bool split;   /* the row is reported and chosen from per cohort */
};

/* One node's run of one point (across every run of the point). */
struct node_result {
	enum node_state state;
	int npasses;
	double *passes;          /* the plan's metric, per loop; grown by node_result_pass_add() */
	int *pass_round;         /* [npasses] the sweep's round of each pass (1-based; passes of
	                            one round of different points are compared with each other);
	                            0: not recorded (format 1 and 2 documents, older history) */
	double *pass_started_at; /* [npasses] epoch seconds the pass started; 0: not recorded */
	int passes_cap;          /* private */
	int nseries;             /* a suite's: the plan's series per pass (plan_series_build) */
	double *series;          /* [npasses][nseries] every series of each pass (the lead
	                            workload's is passes[]); NULL for a plain sweep */
	int nwarmup;             /* warm-up passes (plan job.warmup_loops), in run order */
	struct sweep_pass *warmup;
	int warmup_cap;     /* private */
	struct config *cfg; /* what this node runs when it is not the point's cfg (a cohort's
	                       own, strategy per cohort); NULL: the point's. Owned */
	/* The value read back per parameter of the point, exactly sized: only applied->s[0..n)
	 * exist (node_result_applied_set); NULL when nothing was read back. Owned */
	const struct config *applied;
	unsigned adjusted_mask; /* bit i: applied->s[i] differs from the request */
	int64_t job_id;         /* the agent's id of the latest job, 0 when none */
	double job_runtime_s;   /* agent's started_at..finished_at, summed over runs */
	char *error; /* why the node failed at the point ("job 12 failed: ..."), NULL when it did
	                not. Owned: node_result_error_set */
	char *mkfs;  /* the mkfs command its agent ran for the job ("mkfs.xfs -f -i size=1024
	                /dev/sdb", the job's filesystem.mkfs), NULL when none or not known.
	                Owned: node_result_mkfs_set */
	/* Filled by verdict_sweep(): the summary of the passes, and the node's own figures of
	 * the point's comparison (its node in point.fx), copied for the store and the table. */
	struct stats_summary sum;
	double delta_pct, ci_low_pct, ci_high_pct; /* ratio of means, 95 %; NAN when none */
	enum effect_decision verdict;              /* never EFFECT_HETEROGENEOUS */
};

struct point {
	int index;
	enum point_role role;
	int axis;  /* axis index for sequential points, -1 otherwise */
	int ref;   /* index of the point this one is compared with; -1 for the first baseline */
	int block; /* the block it runs in: the index of the block's first point (a block is the
	              set of points compared with one another, run in interleaved rounds) */
	struct config cfg;
	int loops_run;             /* loops asked of every node so far, over every run */
	int loops_target;          /* loops_run once the batch under way has run (schedule.c);
	                              what the progress display counts towards */
	int ref_loops;             /* loops_run of the reference when this point last ran: the
	                              reference passes its comparison counts (the first ref_loops
	                              of each node); 0: all of them */
	struct node_result *nodes; /* one per plan node */
	/* Filled by verdict_sweep(). fx is the whole comparison with the reference (owned);
	 * the row's figures below are copied from it for the strategy, store and table. */
	struct effect fx;                          /* zeroed when ref < 0 */
	double delta_pct, ci_low_pct, ci_high_pct; /* fleet Δ and its 95 % CI */
	double spread_pct;                         /* (max - min) / mean of node means */
	enum effect_decision verdict;              /* EFFECT_NA for baseline rows */
	struct race_mark race;                     /* adaptive strategy only; RACE_NONE otherwise */
	/* Filled by verdict_sweep() when the sweep has 2 cohorts or more (else NULL): the
	 * comparison within each cohort (cohort_fx[c].nodes[j] is sweep.cohorts[c].nodes[j];
	 * owned) and the between-cohort test; with between.split the row's verdict is
	 * EFFECT_COHORTS and each cohort's own decision stands for its nodes. */
	struct effect *cohort_fx;
	struct cohort_test between;
};

struct sweep {
	int64_t id; /* controller database id; 0 before it is stored */
	struct plan plan;
	char status[16]; /* running, completed, aborted, interrupted, failed (abandoned: shown) */
	double created_at, finished_at; /* epoch seconds */
	int owner_pid;                  /* the controller that runs it (0: unknown, older rows) */
	char owner_host[64];            /* and its host name */
	double saved_at;                /* epoch seconds of the last saved point; 0: none */
	int npoints, cap;
	struct point *points;
	bool *node_dropped;  /* per plan node */
	uint64_t order_seed; /* the seed of the order of the points inside each round */
	int nrounds;         /* rounds begun so far (the last pass's round) */
	/* Filled by verdict_sweep(). */
	enum sweep_outcome outcome;
	struct decision decision; /* the fleet's decision (decision.h): what every surface shows */
	int nwarnings;
	struct sweep_warning warnings[SWEEP_WARNINGS_MAX];
	struct sweep_noise noise;
	struct sweep_drift drift;
	/* What each node is (pre-flight; the store and the sweep document keep it): [nnodes]. */
	struct node_identity *identity;
	/* Filled by verdict_sweep() (cohort_assign): the nodes grouped by plan.cohort_by. */
	int ncohorts;
	struct sweep_cohort *cohorts;
	int *cohort_of; /* [nnodes] each node's cohort */
	/* Filled by the suite's analysis (judge/suite.c) when the plan has workloads, else NULL:
	 * each workload judged on its own and the rule across them (model/suite.h). Owned. */
	struct suite *suite;
};

/* Set node k's identity field f to value (copied; NULL clears it). */
void sweep_identity_set(struct sweep *s, int k, enum identity_field f, const char *value);
/* Free every cohort of s (ncohorts 0). */
void sweep_cohorts_clear(struct sweep *s);
/* Point p's decision and Δ as cohort c sees them: the cohort's own on a row split by cohort
 * (p->between.split), the row's otherwise (also for c < 0, the fleet). */
enum effect_decision sweep_cohort_decision(const struct point *p, int c);
double sweep_cohort_delta_pct(const struct point *p, int c);
/* Cohort c's value of cohort_by key j ("(none)" when absent), and "model=X firmware=Y" for
 * the whole cohort appended to out. */
const char *sweep_cohort_value(const struct sweep *s, int c, int j);
void sweep_cohort_key(const struct sweep *s, int c, struct buf *out);

/* Take ownership of plan (moved; the caller must not release it). */
void sweep_init(struct sweep *s, struct plan *plan);
void sweep_release(struct sweep *s);
/* Append a point with a node result per plan node; returns its index. */
int sweep_point_add(struct sweep *s, enum point_role role, int axis, int ref,
                    const struct config *cfg);
/* The configuration node k runs at point p: its own (node_result.cfg) or the point's. */
const struct config *sweep_node_cfg(const struct point *p, int k);
/* Give node k of point i its own configuration (copied; the point's own, or NULL, clears it). */
void sweep_node_cfg_set(struct sweep *s, int i, int k, const struct config *cfg);
/* Cohort c's decision (c < 0, or a sweep with fewer than two cohorts: the fleet's). */
const struct decision *sweep_decision(const struct sweep *s, int c);
/* Why the original baseline has no figure, for a sweep whose outcome is baseline_failed:
 * DECISION_WHY_BASELINE_FAILED when a node of it failed (or the sweep completed), else, the
 * sweep having stopped (Ctrl-C, another node's failure), _CANCELLED when the controller
 * cancelled its run, _NOT_RUN when the sweep stopped before its turn in the seeded rounds. */
enum decision_why sweep_baseline_why(const struct sweep *s);
/* Whether some cohort's decision differs from the fleet's (state or configuration): the
 * cohorts are then shown and acted on one by one. */
bool sweep_cohort_decisions_differ(const struct sweep *s);
/* Whether point p's nodes run more than one configuration. */
bool sweep_point_mixed(const struct sweep *s, const struct point *p);
/* The most a pass's figure may be in magnitude (1e15 MiB/s, IOPS or us): beyond it a mean and
 * a spread overflow to inf. */
#define SWEEP_PASS_ABS_MAX 1e15
/* Bytes of a node's mkfs command kept, including NUL. */
#define SWEEP_MKFS_MAX 512
/* Bytes of a node's error kept, including NUL. */
#define SWEEP_ERROR_MAX 256
/* What a measurement is, the one rule of the live path (the runner) and the reader of saved
 * sweeps: NULL when v is one, else why not in why ("1e+308 is not a measurement (at most 1e+15
 * in magnitude)"): not finite, beyond SWEEP_PASS_ABS_MAX, or negative (no engine measures a
 * negative throughput, latency or count). */
const char *sweep_pass_problem(double v, char *why, size_t len);
/* Give r's last pass its n series values (a suite's pass; after node_result_pass_add_at). */
void node_result_series_add(struct node_result *r, const double *v, int n);
/* Free s's suite analysis (set by judge/suite.c) and its series' sweeps, which borrow s's plan,
 * node_dropped and identity. */
void sweep_suite_clear(struct sweep *s);
/* Replace r's read-back by a copy of c's n settings (NULL or none: nothing read back). */
void node_result_applied_set(struct node_result *r, const struct config *c);
/* Replace r's error by a copy of the first SWEEP_ERROR_MAX - 1 bytes of why (NULL or "":
 * none). */
void node_result_error_set(struct node_result *r, const char *why);
/* Replace r's mkfs command by a copy of the first SWEEP_MKFS_MAX - 1 bytes of mkfs (NULL or
 * "": none). */
void node_result_mkfs_set(struct node_result *r, const char *mkfs);
/* Append one pass to r (round and start time not recorded). */
void node_result_pass_add(struct node_result *r, double value);
/* Append one pass that ran in round (1-based) from started_at (epoch s; 0: unknown); a
 * warm-up pass goes to r's warm-up passes instead. */
void node_result_pass_add_at(struct node_result *r, double value, int round, double started_at,
                             bool warmup);
/* What a node's job has given so far for one run of a point (the runner hands it over at each
 * poll): its read-back, all its passes, a suite's series, the mkfs command it ran. */
struct sweep_job_figures {
	const struct config *applied; /* the job's own read-back; NULL: none (yet) */
	unsigned adjusted;            /* bit i: applied->s[i] differs from the request */
	const double *passes;         /* [npasses] the job's passes so far */
	int npasses;
	int passes_before; /* the node's passes (or warm-up passes) of the point before the job */
	const double *series; /* [npasses][nseries] a suite's; NULL or nseries 0: none */
	int nseries;
	int round;         /* the round the run is in (1-based) */
	double started_at; /* when its passes started (epoch s; 0: unknown, a pass each) */
	bool warmup;       /* a warm-up run: its passes are warm-up passes */
	const char *mkfs;  /* the mkfs command its agent ran; NULL or "": none */
};

/* Record in r what its job gave (jf) and r lacks: the read-back, the passes past those r
 * holds (each with its series), the mkfs command. A pass sweep_pass_problem refuses stops it
 * there, nothing after it recorded: returns that pass's index in jf->passes and why in why
 * ("1e+308 is not a measurement ..."); -1 when everything was recorded. */
int sweep_node_job_record(struct node_result *r, const struct sweep_job_figures *jf, char *why,
                          size_t len);
/* Each point's block from the rounds its passes ran in (points that share a round are one
 * block, named by its first point), for a sweep read back (s->nrounds set). */
void sweep_blocks_derive(struct sweep *s);
/* Every pass of every point carries its round: the sweep's rows are judged within rounds. */
bool sweep_has_rounds(const struct sweep *s);
/* Point i is asked loops more loops on every node: count them in loops_run, and note the
 * reference's loops so far in ref_loops (the runner calls this as a run starts; the
 * reference of an adaptive round runs first). */
void sweep_point_loops_add(struct sweep *s, int i, int loops);
/* The look of point i for effect's stopping rule: 1 after the plan's minimum loops, one more
 * per extra loop, at most sweep_nlooks(). */
int sweep_point_look(const struct sweep *s, int i);
/* Node k's part of point p's comparison (p->fx.nodes[k]), or NULL when the point has none. */
const struct effect_node *sweep_node_effect(const struct point *p, int k);
/* The looks a point can take: loops_max - loops + 1 (1 for a fixed number of loops). */
int sweep_nlooks(const struct plan *p);

/* Stable codes (storage) and their inverses; the parsers return -1 for an unknown code. */
const char *sweep_role_code(enum point_role r);
int sweep_role_parse(const char *code);
const char *sweep_node_state_code(enum node_state st);
int sweep_node_state_parse(const char *code);
/* effect.h's decision codes (gain, loss, equivalent, inconclusive, heterogeneous); NULL for
 * EFFECT_NA, which is stored as SQL NULL. The parser returns -1 for any other text. */
const char *sweep_verdict_code(enum effect_decision d);
int sweep_verdict_parse(const char *code);
const char *sweep_outcome_code(enum sweep_outcome o);
int sweep_outcome_parse(const char *code);
/* "" for RACE_NONE, running, dropped, won, tied, open, tentative. */
const char *sweep_race_state_code(enum race_state st);
int sweep_race_state_parse(const char *code);
/* "" for RACE_WHY_NONE, worse, equivalent, failed, last, all_equivalent, cap, budget,
 * not_better. */
const char *sweep_race_why_code(enum race_why w);
int sweep_race_why_parse(const char *code);

#endif
