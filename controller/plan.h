/* plan.h -- a sweep plan: nodes, baseline, axes, job and goal, parsed strictly from JSON. */
#ifndef FT_PLAN_H
#define FT_PLAN_H

#include <stdbool.h>

#include "buf.h"
#include "err.h"

#define CONFIG_MAX 16     /* parameters in one configuration */
#define PARAM_NAME_MAX 64 /* bytes, including NUL */
#define PARAM_VALUE_MAX 96
#define AXIS_PARAMS_MAX 8
#define PLAN_LOOPS_MAX 100

/* One parameter value. Integers are kept as their decimal text with is_int set. */
struct setting {
	char name[PARAM_NAME_MAX];
	char value[PARAM_VALUE_MAX];
	bool is_int;
};

/* A set of parameter values, in insertion order, names unique. */
struct config {
	int n;
	struct setting s[CONFIG_MAX];
};

/* Set name=value (replacing an existing entry). Returns 0 or -ENOSPC/-ENAMETOOLONG. */
int config_set(struct config *c, const char *name, const char *value, bool is_int);
/* The entry for name, or NULL. */
const struct setting *config_get(const struct config *c, const char *name);
/* Set every entry of src into dst. */
void config_merge(struct config *dst, const struct config *src);
/* True when both hold the same names with the same values (order ignored). */
bool config_equal(const struct config *a, const struct config *b);
/* Append "name=value name=value" to out. */
void config_format(const struct config *c, struct buf *out);

struct plan_node {
	char *name;
	char *url; /* without trailing slash */
	char *device;
	char *token;      /* NULL until plan_tokens_load() */
	char *token_file; /* resolved against the plan's directory; NULL if not given */
};

/* One axis: nparams parameters set together, nvalues configurations of them. */
struct plan_axis {
	int nparams;
	char params[AXIS_PARAMS_MAX][PARAM_NAME_MAX];
	int nvalues;
	struct config *values;
};

enum plan_strategy { PLAN_GRID, PLAN_SEQUENTIAL };

struct plan {
	char *name;
	int nnodes;
	struct plan_node *nodes;
	struct config baseline; /* holds a value for every axis parameter */
	int naxes;
	struct plan_axis *axes;
	enum plan_strategy strategy;
	char engine[16];   /* "fio", "dd" or "bonnie" */
	char *engine_json; /* the engine's option object as compact JSON */
	char *directory;   /* job.directory, NULL for a raw-device job */
	int loops;
	double runtime_s; /* per loop, from fio.runtime_s (0 when unknown) */
	char metric[PARAM_NAME_MAX];
	bool minimize;
	double min_effect_pct;
	char *labels_json; /* compact JSON object, "{}" when none */
	char *json;        /* the plan as compact JSON with "token" values removed */
};

/*
 * Parse and validate plan text. dir is the directory token_file paths are
 * resolved against (NULL: as given). Errors name the JSON path, e.g.
 * "axes[1].values[2]: expected an integer". Tokens are not read here.
 * On failure p is released.
 */
int plan_parse(const char *text, const char *dir, struct plan *p, struct err *e);
/* Read and parse a plan file; token_file is relative to the file's directory. */
int plan_load(const char *path, struct plan *p, struct err *e);
/* Fill every node's token: "token" in the plan, else token_file, else $FLEETTUNE_TOKEN. */
int plan_tokens_load(struct plan *p, struct err *e);
void plan_release(struct plan *p);
/* The table columns: every parameter of the baseline and axes, in first-seen order.
 * Returns how many were written to names (at most max). */
int plan_columns(const struct plan *p, char (*names)[PARAM_NAME_MAX], int max);
/* Human name of the metric's unit, from its suffix ("MiB/s" for *_bw_mib). */
const char *plan_metric_unit(const char *metric);

#endif
