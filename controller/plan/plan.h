/* plan.h -- a sweep plan parsed strictly into structs. */
#ifndef FT_PLAN_H
#define FT_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "err.h"
#include "plan/config.h"

/* A node's bearer token: at most PLAN_TOKEN_MAX visible ASCII characters; a token_file is read
 * up to PLAN_TOKEN_FILE_MAX bytes (more: refused). */
#define PLAN_TOKEN_MAX 512
#define PLAN_TOKEN_MAX_TEXT "512"
#define PLAN_TOKEN_FILE_MAX 1024
/* Configurations a plan may run (its "max_points"; the default, and the most it may say). */
#define PLAN_POINTS_DEFAULT 10000
#define PLAN_POINTS_MAX 1000000
#define AXIS_PARAMS_MAX 8
#define PLAN_LOOPS_MAX 100
#define PLAN_FIO_FILE_MAX (32 * 1024) /* job.fio_file's bytes: what an agent takes */
#define PLAN_WARMUP_LOOPS_MAX 10      /* job.warmup_loops */

/* The filesystem layer's parameters: fs.type, fs.mkfs, fs.mount (fsparam.h). Their values are
 * strings and go into the job's "filesystem" object, not into a PATCH. */
bool plan_param_is_fs(const char *name);

#define PLAN_COHORT_BY_MAX 8 /* keys of cohort_by */
#define PLAN_DEVICES_MAX 16  /* nodes[].devices: a node's devices */
#define PLAN_ALLOW_MAX 32    /* names of allow_differences */

/* A free label: the plan's, attached to every agent job of the sweep, or a node's. */
struct plan_label {
	char *key;
	char *value;
};

struct plan_node {
	char *name; /* a node of several devices: one member per device, called "host/device" */
	char *url;  /* without trailing slash */
	char *device;
	char *host;  /* a member of a node that gave "devices": the node's own name (NULL: none) */
	char *token; /* NULL until plan_tokens_load() */
	char *token_file; /* resolved against the plan's directory; NULL if not given */
	int nlabels;      /* nodes[].labels: what cohort_by may group by beside the identity */
	struct plan_label *labels;
};

/* One axis: nparams parameters set together, nvalues configurations of them. */
struct plan_axis {
	int nparams;
	char params[AXIS_PARAMS_MAX][PARAM_NAME_MAX];
	int nvalues;
	struct config *values;
};

enum plan_strategy { PLAN_GRID, PLAN_SEQUENTIAL, PLAN_ADAPTIVE };

/* A suite (plan_suite.c): workloads every configuration runs, the rule that decides across
 * them and the guardrails. docs/plan.md ("Suites") and docs/method.md ("Suites") say more. */
#define PLAN_WORKLOADS_MAX 16
#define PLAN_WORKLOAD_NAME_MAX 65 /* 1..64 characters of A-Za-z0-9 _.,:+- */
#define PLAN_GUARDRAILS_MAX 16

struct plan_workload {
	char name[PLAN_WORKLOAD_NAME_MAX];
	char *fio_json;              /* its own fio keys (over the job's), compact JSON; owned */
	char metric[PARAM_NAME_MAX]; /* what it is judged on */
	bool minimize;               /* its goal: lower is better (latencies) */
	double weight;               /* decide.weights (rule mean); 1 by default */
};

enum plan_rule {
	PLAN_RULE_NO_LOSS = 0, /* "no_loss": a gain on one workload, a loss on none (Holm) */
	PLAN_RULE_PRIMARY,     /* "primary": one workload decides, the others are shown */
	PLAN_RULE_MEAN,        /* "mean": the weighted geometric mean of the workloads' ratios */
};

/* A guardrail: metric of the workloads it names ("*": every one) may lose at most
 * max_loss_pct (its own direction: a latency loses by going up). */
struct plan_guardrail {
	char metric[PARAM_NAME_MAX];
	char workload[PLAN_WORKLOAD_NAME_MAX]; /* a workload's name or "*" */
	double max_loss_pct;
	bool minimize; /* the metric's direction, from its name (plan_metric_minimize) */
};

/*
 * The plan. The parser checks the plan's own structure (names, types, axes
 * against the baseline, loops within the controller's pass storage). It does
 * not judge parameter values or the engine's options: the agent is their
 * only judge, and pre-flight asks every agent with dry runs before anything
 * is changed. That is why the engine's option object stays opaque JSON text,
 * forwarded verbatim to the agent.
 */
struct plan {
	char *name;
	int nnodes;
	struct plan_node *nodes;
	int *node_by_name;      /* node indexes in name order, for plan_node_find (plan_parse) */
	struct config baseline; /* holds a value for every axis parameter */
	int naxes;
	struct plan_axis *axes;
	enum plan_strategy strategy;
	char engine[PARAM_NAME_MAX];    /* job.engine, "fio" by default; any name */
	char *engine_json;              /* job.<engine> as compact JSON, NULL when absent */
	char *fio_file;                 /* job.fio_file: the job file's text (engine fio, no
	                                   job.fio), sent to the agents as "fio_file"; NULL: none */
	char *fio_file_path;            /* ... the path it was read from, as the plan gives it */
	char *directory;                /* job.directory, NULL for a raw-device job */
	bool has_fs;                    /* job.filesystem given: every job makes its filesystem */
	char fs_type[16];               /* job.filesystem.type ("" when not given) */
	char fs_mkfs[PARAM_VALUE_MAX];  /* job.filesystem.mkfs, tokens joined by blanks */
	char fs_mount[PARAM_VALUE_MAX]; /* job.filesystem.mount */
	int loops;        /* job.loops, or job.loops.min: the loops every point runs first */
	int loops_max;    /* job.loops.max (adaptive loops); == loops for a plain number */
	int warmup_loops; /* job.warmup_loops: warm-up rounds at the start of every block, run on
	                     every node and stored, shown, never judged; 0 by default */
	double runtime_s; /* per loop: <engine>.runtime_s when it is a positive number (a display
	                     and ETA hint; the agent validates it), else 0 */
	double budget_s;  /* adaptive: benchmark-seconds per node the sweep may spend (loops x
	                     runtime_s summed over its points); 0: no budget */
	char metric[PARAM_NAME_MAX];
	bool minimize;
	double min_effect_pct;
	int nlabels;
	struct plan_label *labels;
	/* cohort_by: what nodes are grouped by (controller/judge/cohort.h): identity fields of
	 * common/protocol.h, or node labels ("label.KEY", or KEY when it names no identity
	 * field); ["model", "firmware"] when the plan does not say; [] is one cohort. */
	int ncohort_by;
	char cohort_by[PLAN_COHORT_BY_MAX][PARAM_NAME_MAX];
	/* allow_differences (and --allow-differences): parameters the nodes may hold different
	 * values of although the plan does not set them (run/twins.h); a name ending ".*" is a
	 * prefix ("iosched.*"). */
	int nallow;
	char allow[PLAN_ALLOW_MAX][PARAM_NAME_MAX];
	/* A suite: nworkloads 0 for a plain plan (one job, judged on metric). With a suite,
	 * metric and minimize are the lead workload's (the primary's, else the first's): what
	 * the strategy races on and what a plain reader sees. */
	int nworkloads;
	struct plan_workload *workloads;
	char suite[16];      /* "iozone" for the preset, "matrix" for a matrix, "" given */
	enum plan_rule rule; /* decide.rule; no_loss by default */
	int primary;         /* decide.primary's workload index (rule primary), else 0 */
	int lead;            /* the workload the agent's plain metrics and the strategy follow */
	int nguardrails;
	struct plan_guardrail *guardrails;
	char *json; /* the plan as compact JSON with "token" values removed */
};

/* Free what p holds (NULL is fine); p is zeroed by no one: parse again to reuse it. */
void plan_release(struct plan *p);
/* Free n labels l. */
void plan_labels_free(struct plan_label *l, int n);
/* Give dst src's job and how it is judged: engine, options, directory, loops, runtime_s,
 * metric, goal, min_effect_pct (a rollout measures a sweep's job on its own plan's nodes). */
void plan_job_copy(struct plan *dst, const struct plan *src);
/* Add the comma-separated parameter names of list (--allow-differences) to p's
 * allow_differences. Errors name the entry. */
int plan_allow_differences_add(struct plan *p, const char *list, struct err *e);
/* How much data the plan's job writes or reads on a node, from its engine's options: fio's
 * size (times numjobs for a job writing files), bonnie++'s size_mb, dd's count x bs, iozone's
 * file_size; what names them ("bonnie++ size_mb 20480"). Returns 1 when known, 0 when the
 * options do not say (a time-based fio job without size, a percentage). */
int plan_job_bytes(const struct plan *p, uint64_t *bytes, char *what, size_t len);
/* Whether name is among p's allow_differences (exactly, or under a "prefix.*" entry). */
bool plan_difference_allowed(const struct plan *p, const char *name);
/* The table columns: every parameter of the axes and the baseline, in first-seen order.
 * Returns how many were written to names (at most max). */
int plan_columns(const struct plan *p, char (*names)[PARAM_NAME_MAX], int max);
/* The most columns a rendering of a sweep shows. */
#define PLAN_COLUMNS_MAX 32
/* The job's engine options set "direct", to either value: the job chose its I/O path. */
bool plan_job_sets_direct(const struct plan *p);
/* Human name of the metric's unit, from its suffix ("MiB/s" for *_bw_mib). */
const char *plan_metric_unit(const char *metric);
/* A suite's series: what each pass of a suite job is read for. Series w < nworkloads is
 * workload w's own metric; then each guardrail's metric on each workload it names, where that
 * is not the workload's own metric already (plan_series_build). */
#define PLAN_SERIES_MAX 40
struct plan_series {
	int workload;                /* index into plan.workloads */
	char metric[PARAM_NAME_MAX]; /* the metric in that workload's pass figures */
	bool minimize;
};
/* Fill out (at most PLAN_SERIES_MAX) with p's series; returns how many (0: no suite). */
int plan_series_build(const struct plan *p, struct plan_series *out);
/* The series of workload w's metric among n, or -1. */
int plan_series_find(const struct plan_series *s, int n, int w, const char *metric);
/* Whether a metric is a latency (lower is better) by its name: *lat*, *_us, *_ms, *_ns. */
bool plan_metric_minimize(const char *metric);
/* "no_loss", "primary", "mean"; plan_rule_parse gives -1 for any other text. */
const char *plan_rule_name(enum plan_rule r);
int plan_rule_parse(const char *s);
/* The index of p's workload called name, or -1. */
int plan_workload_find(const struct plan *p, const char *name);
/* "grid", "sequential" or "adaptive", as written in a plan. */
const char *plan_strategy_name(enum plan_strategy s);
/* The value of node n's label key, or NULL. */
const char *plan_node_label(const struct plan_node *n, const char *key);
/* The index of the node called name, or -1 (a binary search: O(log n)). */
int plan_node_find(const struct plan *p, const char *name);

#endif
