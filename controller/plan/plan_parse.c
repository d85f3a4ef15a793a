/* plan_parse.c -- parse and validate a sweep plan's structure (errors name the JSON path): axes,
 * job, filesystem, budget and the top level; the nodes are plan_nodes.c's. */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "buf.h"
#include "num.h"
#include "plan/config.h"
#include "plan/fsparam.h"
#include "plan/plan_nodes.h"
#include "plan/plan_parse.h"
#include "plan/plan_suite.h"
#include "plan/planjson.h"
#include "protocol.h"
#include "xmalloc.h"
#include "banned.h"

/* Check value v of parameter name against its first-seen type and store it in c. */
static int take_value(struct parser *ps, const char *name, json_t *v, const char *path,
                      struct config *c)
{
	char text[PARAM_VALUE_MAX];
	int type, i;

	if (json_is_integer(v)) {
		type = 1;
		snprintf(text, sizeof(text), "%lld", (long long)json_integer_value(v));
	} else if (json_is_string(v)) {
		type = 2;
		if (!*json_string_value(v) || strlen(json_string_value(v)) >= PARAM_VALUE_MAX)
			return fail(ps, path, "expected a non-empty string shorter than %d bytes",
			            PARAM_VALUE_MAX);
		snprintf(text, sizeof(text), "%s", json_string_value(v));
	} else {
		return fail(ps, path, "expected an integer or a string");
	}
	if (type == 1 && fsparam_is(name))
		return fail(ps, path, "expected a string (%s)",
		            !strcmp(name, "fs.mkfs")    ? "mkfs's options, e.g. \"-i size=512\""
		            : !strcmp(name, "fs.mount") ? "mount options, e.g. \"noatime\""
		                                        : "xfs or ext4");
	for (i = 0; i < ps->ntypes; i++)
		if (!strcmp(ps->types[i].name, name))
			break;
	if (i == ps->ntypes) {
		if (ps->ntypes == 64)
			return fail(ps, path, "too many parameters");
		snprintf(ps->types[i].name, sizeof(ps->types[i].name), "%s", name);
		ps->types[i].type = type;
		ps->ntypes++;
	} else if (ps->types[i].type != type) {
		return fail(ps, path,
		            ps->types[i].type == 1 ? "expected an integer" : "expected a string");
	}
	if (config_set(c, name, text, type == 1) < 0)
		return fail(ps, path, "too many parameters in one configuration");
	return 0;
}

static int parse_param_name(struct parser *ps, json_t *v, const char *path, char *out)
{
	if (!json_is_string(v))
		return fail(ps, path, "expected a string");
	if (!planjson_name_ok(json_string_value(v), "."))
		return fail(ps, path, "'%s' is not a parameter name", json_string_value(v));
	snprintf(out, PARAM_NAME_MAX, "%s", json_string_value(v));
	return 0;
}

static int parse_axis(struct parser *ps, json_t *ax, size_t ai)
{
	static const char *const keys[] = { "param", "params", "values", NULL };
	struct plan_axis *a = &ps->p->axes[ai];
	json_t *param = json_object_get(ax, "param"), *params = json_object_get(ax, "params");
	json_t *values = json_object_get(ax, "values"), *v;
	char path[96];
	size_t i, k;
	int r, j;

	snprintf(path, sizeof(path), "axes[%zu]", ai);
	if (!json_is_object(ax))
		return fail(ps, path, "expected an object");
	if ((r = planjson_check_keys(ps, ax, path, keys)) < 0)
		return r;
	if (!!param == !!params)
		return fail(ps, path, "exactly one of 'param' or 'params' is required");
	if (param) {
		snprintf(path, sizeof(path), "axes[%zu].param", ai);
		if ((r = parse_param_name(ps, param, path, a->params[0])) < 0)
			return r;
		a->nparams = 1;
	} else {
		snprintf(path, sizeof(path), "axes[%zu].params", ai);
		if (!json_is_array(params) || json_array_size(params) == 0)
			return fail(ps, path, "expected a non-empty array of parameter names");
		if (json_array_size(params) > AXIS_PARAMS_MAX)
			return fail(ps, path, "at most 8 parameters per axis");
		json_array_foreach(params, i, v)
		{
			snprintf(path, sizeof(path), "axes[%zu].params[%zu]", ai, i);
			if ((r = parse_param_name(ps, v, path, a->params[i])) < 0)
				return r;
			for (k = 0; k < i; k++)
				if (!strcmp(a->params[k], a->params[i]))
					return fail(ps, path, "duplicate parameter '%s'",
					            a->params[i]);
		}
		a->nparams = (int)json_array_size(params);
	}
	for (j = 0; j < a->nparams; j++) {
		for (k = 0; k < ai; k++) {
			int m;

			for (m = 0; m < ps->p->axes[k].nparams; m++) {
				if (strcmp(ps->p->axes[k].params[m], a->params[j]))
					continue;
				snprintf(path, sizeof(path), "axes[%zu]", ai);
				return fail(ps, path, "'%s' is already swept by an earlier axis",
				            a->params[j]);
			}
		}
	}
	snprintf(path, sizeof(path), "axes[%zu].values", ai);
	if (!values)
		return fail(ps, path, "required field is missing");
	if (!json_is_array(values) || json_array_size(values) == 0)
		return fail(ps, path, "expected a non-empty array");
	a->values = xcalloc(json_array_size(values), sizeof(*a->values));
	json_array_foreach(values, i, v)
	{
		a->nvalues = (int)i + 1;
		snprintf(path, sizeof(path), "axes[%zu].values[%zu]", ai, i);
		if (param) {
			if ((r = take_value(ps, a->params[0], v, path, &a->values[i])) < 0)
				return r;
		} else {
			json_t *e;

			if (!json_is_array(v))
				return fail(ps, path,
				            "expected an array (one value per parameter)");
			if ((int)json_array_size(v) != a->nparams) {
				char m[64];

				snprintf(m, sizeof(m), "expected %d values (one per parameter)",
				         a->nparams);
				return fail(ps, path, "%s", m);
			}
			json_array_foreach(v, k, e)
			{
				snprintf(path, sizeof(path), "axes[%zu].values[%zu][%zu]", ai, i,
				         k);
				if ((r = take_value(ps, a->params[k], e, path, &a->values[i])) < 0)
					return r;
			}
		}
		for (j = 0; j < (int)i; j++) {
			if (config_equal(&a->values[j], &a->values[i])) {
				snprintf(path, sizeof(path), "axes[%zu].values[%zu]", ai, i);
				return fail(ps, path, "duplicate value");
			}
		}
	}
	return 0;
}

/* The engine's option object: any object, forwarded verbatim; runtime_s is read as a hint
 * (seconds, or a time in fio's units: "30s", "2m"). */
static int parse_engine_opts(struct parser *ps, json_t *opts, const char *path)
{
	json_t *rt;
	int64_t us;

	if (!json_is_object(opts))
		return fail(ps, path, "expected an object (the engine's options)");
	ps->p->engine_json = json_dumps(opts, JSON_COMPACT | JSON_PRESERVE_ORDER);
	rt = json_object_get(opts, "runtime_s");
	if (json_is_number(rt) && json_number_value(rt) > 0)
		ps->p->runtime_s = json_number_value(rt);
	else if (json_is_string(rt) &&
	         num_parse_duration(json_string_value(rt), 1000000, &us) == 0 && us > 0)
		ps->p->runtime_s = (double)us / 1e6;
	return 0;
}

/* A loop count at path: an integer in [least, PLAN_LOOPS_MAX]. */
static int loops_take(struct parser *ps, json_t *v, const char *path, int least, int *out)
{
	if (!v)
		return fail(ps, path, "required field is missing");
	if (!json_is_integer(v))
		return fail(ps, path, "expected an integer");
	if (json_integer_value(v) < least || json_integer_value(v) > PLAN_LOOPS_MAX)
		return fail(ps, path, "must be between %d and %d", least, PLAN_LOOPS_MAX);
	*out = (int)json_integer_value(v);
	return 0;
}

/* job.filesystem: {"type", "mkfs" (an array of argv tokens, or one string of blank-separated
 * ones), "mount"}; the agents judge the options. Kept as fs.type, fs.mkfs, fs.mount text. */
static int parse_filesystem(struct parser *ps, json_t *fs)
{
	static const char *const keys[] = { "type", "mkfs", "mount", NULL };
	struct plan *p = ps->p;
	const char *type = NULL, *mount = NULL;
	json_t *mkfs = json_object_get(fs, "mkfs"), *t;
	struct buf b = BUF_INIT;
	char path[96];
	size_t i;
	int r;

	if (!json_is_object(fs))
		return fail(ps, "job.filesystem",
		            "expected an object {\"type\", \"mkfs\", \"mount\"}");
	if ((r = planjson_check_keys(ps, fs, "job.filesystem", keys)) < 0 ||
	    (r = jread_str(&ps->jr, fs, "job.filesystem", "type", JREAD_REQUIRED | JREAD_NONEMPTY,
	                   &type)) < 0)
		return r;
	if (json_object_get(fs, "mount") && json_is_string(json_object_get(fs, "mount")) &&
	    !*json_string_value(json_object_get(fs, "mount")))
		mount = "";
	else if ((r = jread_str(&ps->jr, fs, "job.filesystem", "mount", JREAD_NONEMPTY, &mount)) <
	         0)
		return r;
	if (json_is_string(mkfs)) {
		buf_puts(&b, json_string_value(mkfs));
	} else if (json_is_array(mkfs)) {
		json_array_foreach(mkfs, i, t)
		{
			const char *tok = json_string_value(t);

			snprintf(path, sizeof(path), "job.filesystem.mkfs[%zu]", i);
			if (!tok || !*tok || strpbrk(tok, " \t")) {
				r = fail(ps, path,
				         "expected one argv token (a string without blanks)");
				goto out;
			}
			buf_printf(&b, "%s%s", i ? " " : "", tok);
		}
	} else if (mkfs) {
		return fail(ps, "job.filesystem.mkfs", "expected an array of argv tokens");
	}
	if (strlen(type) >= sizeof(p->fs_type) || b.len >= sizeof(p->fs_mkfs) ||
	    (mount && strlen(mount) >= sizeof(p->fs_mount))) {
		r = fail(ps, "job.filesystem", "too long (mkfs and mount: at most %d bytes each)",
		         PARAM_VALUE_MAX - 1);
		goto out;
	}
	p->has_fs = true;
	snprintf(p->fs_type, sizeof(p->fs_type), "%s", type);
	snprintf(p->fs_mkfs, sizeof(p->fs_mkfs), "%s", b.data ? b.data : "");
	snprintf(p->fs_mount, sizeof(p->fs_mount), "%s", mount ? mount : "");
	r = 0;
out:
	buf_release(&b);
	return r;
}

/* The filesystem layer's rules: every fs.* value needs a type to go with it, and a job with a
 * filesystem runs in its mount directory. */
static int check_filesystem(struct parser *ps)
{
	struct plan *p = ps->p;
	const char *name = NULL;
	int i, k;

	for (i = 0; i < p->baseline.n && !name; i++)
		if (fsparam_is(p->baseline.s[i].name))
			name = p->baseline.s[i].name;
	for (i = 0; i < p->naxes && !name; i++)
		for (k = 0; k < p->axes[i].nparams; k++)
			if (fsparam_is(p->axes[i].params[k]))
				name = p->axes[i].params[k];
	if (!name && !p->has_fs)
		return 0;
	if (!p->has_fs && !config_get(&p->baseline, "fs.type"))
		return fail(ps, "job.filesystem",
		            "required by %s: give the filesystem's type here ({\"type\": \"xfs\"}) "
		            "or fs.type in the baseline",
		            name);
	if (p->directory)
		return fail(ps, "job.directory",
		            "a job with a filesystem runs in the agent's mount directory: give "
		            "job.directory or job.filesystem, not both");
	return 0;
}

/* job.fio_file: the path of an fio job file (relative to the plan file's directory), read
 * here and sent as text; or {"path", "text"}, the form a stored plan keeps (it reads back
 * without the file). The agents judge the file. */
static int parse_fio_file(struct parser *ps, json_t *v, json_t *job)
{
	struct plan *p = ps->p;
	const char *rel = NULL, *text = NULL;
	struct buf b = BUF_INIT;
	char full[PATH_MAX];
	int rc;

	if (strcmp(p->engine, "fio"))
		return fail(ps, "job.fio_file", "only with engine fio");
	if (json_object_get(job, "fio"))
		return fail(ps, "job.fio_file",
		            "give job.fio (options) or job.fio_file (a job file), not both");
	if (json_is_object(v)) {
		static const char *const keys[] = { "path", "text", NULL };

		if ((rc = planjson_check_keys(ps, v, "job.fio_file", keys)) < 0 ||
		    (rc = jread_str(&ps->jr, v, "job.fio_file", "path",
		                    JREAD_REQUIRED | JREAD_NONEMPTY, &rel)) < 0 ||
		    (rc = jread_str(&ps->jr, v, "job.fio_file", "text",
		                    JREAD_REQUIRED | JREAD_NONEMPTY, &text)) < 0)
			return rc;
	} else if (json_is_string(v) && *json_string_value(v)) {
		rel = json_string_value(v);
	} else {
		return fail(ps, "job.fio_file",
		            "expected the path of an fio job file (relative to the plan file)");
	}
	if (!text) {
		if (rel[0] != '/' && !ps->dir)
			return fail(ps, "job.fio_file",
			            "'%s' is relative to the plan file, and this plan is not read "
			            "from a file",
			            rel);
		snprintf(full, sizeof(full), "%s%s%s", rel[0] == '/' ? "" : ps->dir,
		         rel[0] == '/' ? "" : "/", rel);
		rc = buf_read_file(&b, full, PLAN_FIO_FILE_MAX + 1);
		if (rc < 0 && rc != -EFBIG) {
			rc = fail(ps, "job.fio_file", "cannot read '%s': %s", full, strerror(-rc));
			goto out;
		}
		if (rc == -EFBIG || b.len > PLAN_FIO_FILE_MAX || memchr(b.data, '\0', b.len)) {
			rc = fail(ps, "job.fio_file",
			          "'%s' is over %d bytes or not text (an agent takes at most that)",
			          full, PLAN_FIO_FILE_MAX);
			goto out;
		}
		text = b.data ? b.data : "";
	}
	if (strlen(text) > PLAN_FIO_FILE_MAX) {
		rc = fail(ps, "job.fio_file", "over %d bytes (an agent takes at most that)",
		          PLAN_FIO_FILE_MAX);
		goto out;
	}
	p->fio_file = xstrdup(text);
	p->fio_file_path = xstrdup(rel);
	rc = 0;
out:
	buf_release(&b);
	return rc;
}

static int parse_job(struct parser *ps, json_t *job)
{
	static const char *const own[] = { "engine",    "loops",      "warmup_loops",
		                           "directory", "filesystem", "fio_file",
		                           NULL };
	struct plan *p = ps->p;
	const char *engine = "fio", *dirv = NULL, *key;
	json_t *loops, *v;
	char path[160];
	int r;

	if (!job)
		return fail(ps, "job", "required field is missing");
	if (!json_is_object(job))
		return fail(ps, "job", "expected an object");
	if ((r = jread_str(&ps->jr, job, "job", "engine", JREAD_NONEMPTY, &engine)) < 0)
		return r;
	if (!planjson_name_ok(engine, "-") || planjson_key_allowed(engine, own))
		return fail(ps, "job.engine", "'%s' is not an engine name (e.g. fio, dd)", engine);
	json_object_foreach(job, key, v)
	{
		if (planjson_key_allowed(key, own) || !strcmp(key, engine))
			continue;
		snprintf(path, sizeof(path), "job.%s", key);
		return fail(ps, path, "unknown field (the options of engine '%s' go in job.%s)",
		            engine, engine);
	}
	if ((r = jread_str(&ps->jr, job, "job", "directory", JREAD_NONEMPTY, &dirv)) < 0)
		return r;
	snprintf(p->engine, sizeof(p->engine), "%s", engine);
	if (dirv)
		p->directory = xstrdup(dirv);
	v = json_object_get(job, "filesystem");
	if (v && (r = parse_filesystem(ps, v)) < 0)
		return r;
	snprintf(path, sizeof(path), "job.%s", engine);
	v = json_object_get(job, engine);
	if (v && (r = parse_engine_opts(ps, v, path)) < 0)
		return r;
	v = json_object_get(job, "fio_file");
	if (v && (r = parse_fio_file(ps, v, job)) < 0)
		return r;
	loops = json_object_get(job, "loops");
	p->loops = p->loops_max = 5;
	if (loops && json_is_object(loops)) {
		static const char *const lk[] = { "min", "max", NULL };
		json_t *mn = json_object_get(loops, "min"), *mx = json_object_get(loops, "max");

		if ((r = planjson_check_keys(ps, loops, "job.loops", lk)) < 0)
			return r;
		if ((r = loops_take(ps, mn, "job.loops.min", 2, &p->loops)) < 0 ||
		    (r = loops_take(ps, mx, "job.loops.max", 2, &p->loops_max)) < 0)
			return r;
		if (p->loops_max < p->loops)
			return fail(ps, "job.loops.max", "must be at least job.loops.min (%d)",
			            p->loops);
	} else if (loops) {
		if ((r = loops_take(ps, loops, "job.loops", 1, &p->loops)) < 0)
			return r;
		p->loops_max = p->loops;
	}
	v = json_object_get(job, "warmup_loops");
	if (v && (!json_is_integer(v) || json_integer_value(v) < 0 ||
	          json_integer_value(v) > PLAN_WARMUP_LOOPS_MAX))
		return fail(ps, "job.warmup_loops", "expected an integer between 0 and %d",
		            PLAN_WARMUP_LOOPS_MAX);
	p->warmup_loops = v ? (int)json_integer_value(v) : 0;
	return 0;
}

/* How many configurations the plan can run: the grid every combination, the other strategies
 * (one axis at a time) the baseline and every axis value. A double: a grid's product can
 * exceed any integer type before it is refused. */
static double plan_points(const struct plan *p)
{
	double n = 1;
	int a;

	for (a = 0; a < p->naxes; a++)
		n = p->strategy == PLAN_GRID ? n * p->axes[a].nvalues : n + p->axes[a].nvalues;
	return n;
}

/* max_points (default PLAN_POINTS_DEFAULT): a plan of more configurations is refused before
 * anything is expanded, so a typo cannot make a dry run take minutes and gigabytes. */
static int parse_max_points(struct parser *ps, json_t *v)
{
	struct plan *p = ps->p;
	double max = PLAN_POINTS_DEFAULT, n;

	if (v) {
		if (!json_is_integer(v) || json_integer_value(v) < 1 ||
		    json_integer_value(v) > PLAN_POINTS_MAX)
			return fail(ps, "max_points", "must be an integer between 1 and %d",
			            PLAN_POINTS_MAX);
		max = (double)json_integer_value(v);
	}
	n = plan_points(p);
	if (n > max)
		return fail(ps, "axes",
		            "the %s strategy would run %.0f configurations, more than max_points "
		            "(%.0f%s): fewer values, another strategy, or a higher max_points (up "
		            "to %d)",
		            plan_strategy_name(p->strategy), n, max, v ? "" : ", the default",
		            PLAN_POINTS_MAX);
	return 0;
}

/* What the adaptive strategy needs: a loop range to race in, and budget_s (adaptive only) in
 * benchmark-seconds, which needs the job's runtime_s to count them. */
static int parse_adaptive(struct parser *ps, json_t *budget)
{
	struct plan *p = ps->p;

	if (p->strategy == PLAN_ADAPTIVE && p->loops_max <= p->loops)
		return fail(ps, "job.loops",
		            "the adaptive strategy races values from a minimum to a maximum number "
		            "of loops: give {\"min\": 3, \"max\": 20} (max above min)");
	if (!budget)
		return 0;
	if (p->strategy != PLAN_ADAPTIVE)
		return fail(ps, "budget_s", "only the adaptive strategy takes a budget");
	if (!json_is_number(budget))
		return fail(ps, "budget_s", "expected a number");
	p->budget_s = json_number_value(budget);
	if (!(p->budget_s > 0) || p->budget_s > 1e9)
		return fail(ps, "budget_s", "must be a positive number of seconds (up to 1e9)");
	if (p->runtime_s <= 0)
		return fail(ps, "budget_s",
		            "counts benchmark-seconds (loops x job.%s.runtime_s): the job needs a "
		            "runtime_s",
		            p->engine);
	return 0;
}

/* allow_differences: the parameters the nodes may hold different values of (run/twins.h). */
static int allow_parse(struct parser *ps, json_t *v)
{
	struct err e = { 0 };
	char path[48];
	json_t *k;
	size_t i;

	if (!v)
		return 0;
	if (!json_is_array(v))
		return fail(ps, "allow_differences", "expected an array of parameter names");
	json_array_foreach(v, i, k)
	{
		snprintf(path, sizeof(path), "allow_differences[%zu]", i);
		if (!json_is_string(k) || strchr(json_string_value(k), ','))
			return fail(ps, path, "expected a parameter name");
		if (plan_allow_differences_add(ps->p, json_string_value(k), &e) < 0)
			return fail(ps, path, "%s", e.msg);
	}
	return 0;
}

/* "name": the name and labels go into reports and exported rules (a udev comment, a tuned
 * profile): a line break there would start a rule of its own. */
static int parse_name(struct parser *ps, json_t *root)
{
	const char *s;
	int r;

	if ((r = jread_str(&ps->jr, root, "", "name", JREAD_REQUIRED | JREAD_NONEMPTY, &s)) < 0)
		return r;
	if (planjson_has_control(s))
		return fail(ps, "name", "has a control character (a line break, a tab, ...)");
	ps->p->name = xstrdup(s);
	return 0;
}

/* "nodes" and "nodes_from" (one at least, or the command line's node list, which replaces
 * the plan's nodes), then their index. */
static int parse_node_lists(struct parser *ps, json_t *root, const char *dir)
{
	int r;

	if (!json_object_get(root, "nodes") && !json_object_get(root, "nodes_from") &&
	    !ps->nodes_from)
		return fail(ps, "nodes", "required field is missing (or nodes_from)");
	if (json_object_get(root, "nodes") && !ps->nodes_from &&
	    (r = plan_parse_nodes(ps, json_object_get(root, "nodes"), dir)) < 0)
		return r;
	if ((r = plan_parse_node_list(ps, json_object_get(root, "nodes_from"), dir)) < 0 ||
	    (r = plan_nodes_index(ps)) < 0 || (r = plan_nodes_hosts_check(ps)) < 0)
		return r;
	return 0;
}

/* "baseline": an object of parameter values. */
static int parse_baseline(struct parser *ps, json_t *root)
{
	json_t *v = NULL, *val;
	const char *key;
	char path[160];
	int r;

	if ((r = jread_obj(&ps->jr, root, "", "baseline", 0, &v)) < 0)
		return r;
	if (!v)
		return 0;
	json_object_foreach(v, key, val)
	{
		snprintf(path, sizeof(path), "baseline.%s", key);
		if (!planjson_name_ok(key, "."))
			return fail(ps, path, "not a parameter name");
		if ((r = take_value(ps, key, val, path, &ps->p->baseline)) < 0)
			return r;
	}
	return 0;
}

/* "axes": a non-empty array of axes, every parameter of which has a baseline value. */
static int parse_axes(struct parser *ps, json_t *axes)
{
	struct plan *p = ps->p;
	char path[160];
	json_t *v;
	size_t i;
	int r, j;

	if (!axes)
		return fail(ps, "axes", "required field is missing");
	if (!json_is_array(axes) || json_array_size(axes) == 0)
		return fail(ps, "axes", "expected a non-empty array");
	p->axes = xcalloc(json_array_size(axes), sizeof(*p->axes));
	json_array_foreach(axes, i, v)
	{
		p->naxes = (int)i + 1;
		if ((r = parse_axis(ps, v, i)) < 0)
			return r;
		for (j = 0; j < p->axes[i].nparams; j++) {
			const char *pn = p->axes[i].params[j];

			if (!config_get(&p->baseline, pn)) {
				snprintf(path, sizeof(path), "baseline.%s", pn);
				return fail(
				        ps, path,
				        "required field is missing (every axis parameter needs a "
				        "baseline value)");
			}
		}
	}
	return 0;
}

/* "strategy": grid, sequential (the default) or adaptive. */
static int parse_strategy(struct parser *ps, json_t *root)
{
	const char *s;
	int r;

	ps->p->strategy = PLAN_SEQUENTIAL;
	if ((r = jread_str(&ps->jr, root, "", "strategy", JREAD_NONEMPTY, &s)) < 0)
		return r;
	if (r == 1) {
		if (!strcmp(s, "grid"))
			ps->p->strategy = PLAN_GRID;
		else if (!strcmp(s, "adaptive"))
			ps->p->strategy = PLAN_ADAPTIVE;
		else if (strcmp(s, "sequential"))
			return fail(ps, "strategy", "'%s' is not one of grid, sequential, adaptive",
			            s);
	}
	return 0;
}

/* "metric" (write.bw_mib), "goal" (maximize) and "min_effect_pct" (5). */
static int parse_metric(struct parser *ps, json_t *root)
{
	struct plan *p = ps->p;
	const char *s;
	int r;

	snprintf(p->metric, sizeof(p->metric), "write.bw_mib");
	if ((r = jread_str(&ps->jr, root, "", "metric", JREAD_NONEMPTY, &s)) < 0)
		return r;
	if (r == 1) {
		if (!planjson_name_ok(s, "."))
			return fail(ps, "metric", "'%s' is not a metric name (e.g. write.bw_mib)",
			            s);
		snprintf(p->metric, sizeof(p->metric), "%s", s);
	}
	if ((r = jread_str(&ps->jr, root, "", "goal", JREAD_NONEMPTY, &s)) < 0)
		return r;
	if (r == 1) {
		if (!strcmp(s, "minimize"))
			p->minimize = true;
		else if (strcmp(s, "maximize"))
			return fail(ps, "goal", "'%s' is not one of maximize, minimize", s);
	}
	p->min_effect_pct = 5.0;
	if ((r = jread_num(&ps->jr, root, "", "min_effect_pct", 0, &p->min_effect_pct)) < 0)
		return r;
	if (p->min_effect_pct < 0 || p->min_effect_pct >= 1000)
		return fail(ps, "min_effect_pct", "must be between 0 and 1000");
	return 0;
}

static int parse_top(struct parser *ps, json_t *root, const char *dir)
{
	static const char *const keys[] = {
		"name",       "nodes",    "nodes_from", "baseline",  "axes",
		"strategy",   "job",      "metric",     "goal",      "min_effect_pct",
		"labels",     "budget_s", "max_points", "cohort_by", "allow_differences",
		"workloads",  "matrix",   "suite",      "threads",   "decide",
		"guardrails", NULL
	};
	struct plan *p = ps->p;
	int r;

	if (!json_is_object(root))
		return fail(ps, "$", "expected an object");
	if ((r = planjson_check_keys(ps, root, "", keys)) < 0 || (r = parse_name(ps, root)) < 0 ||
	    (r = parse_node_lists(ps, root, dir)) < 0 || (r = parse_baseline(ps, root)) < 0 ||
	    (r = parse_axes(ps, json_object_get(root, "axes"))) < 0 ||
	    (r = parse_strategy(ps, root)) < 0)
		return r;
	if ((r = parse_job(ps, json_object_get(root, "job"))) < 0 ||
	    (r = parse_adaptive(ps, json_object_get(root, "budget_s"))) < 0 ||
	    (r = check_filesystem(ps)) < 0 ||
	    (r = parse_max_points(ps, json_object_get(root, "max_points"))) < 0 ||
	    (r = parse_metric(ps, root)) < 0)
		return r;
	if ((r = plan_labels_take(ps, json_object_get(root, "labels"), "labels", &p->labels,
	                          &p->nlabels)) < 0 ||
	    (r = allow_parse(ps, json_object_get(root, "allow_differences"))) < 0 ||
	    (r = plan_suite_parse(ps, root)) < 0)
		return r;
	return plan_parse_cohort_by(ps, json_object_get(root, "cohort_by"));
}

int plan_parse(const char *text, const char *dir, struct plan *p, struct err *e)
{
	return plan_parse_nodes_from(text, dir, NULL, p, e);
}

int plan_parse_nodes_from(const char *text, const char *dir, const char *nodes_from, struct plan *p,
                          struct err *e)
{
	struct parser ps = {
		.p = p, .e = e, .jr = { e, ERR_INVALID_PLAN }, .nodes_from = nodes_from, .dir = dir
	};
	json_error_t je;
	json_t *root, *nodes, *n;
	size_t i;
	int rc;

	memset(p, 0, sizeof(*p));
	root = json_loads(text, JSON_REJECT_DUPLICATES, &je);
	if (!root)
		return err_set(e, -EINVAL, ERR_INVALID_PLAN, "line %d, column %d: %s", je.line,
		               je.column, je.text);
	rc = parse_top(&ps, root, dir);
	if (rc < 0)
		goto out;
	if (nodes_from || json_object_get(root, "nodes_from"))
		plan_nodes_json_set(root, p);
	if (p->fio_file) /* the stored plan keeps the file's text: it reads back without it */
		json_object_set_new(
		        json_object_get(root, "job"), "fio_file",
		        json_pack("{s:s,s:s}", "path", p->fio_file_path, "text", p->fio_file));
	nodes = json_object_get(root, "nodes");
	json_array_foreach(nodes, i, n) json_object_del(n, "token");
	p->json = json_dumps(root, JSON_COMPACT | JSON_PRESERVE_ORDER);
out:
	json_decref(root);
	if (rc < 0)
		plan_release(p);
	return rc;
}

int plan_load(const char *path, struct plan *p, struct err *e)
{
	return plan_load_nodes_from(path, NULL, p, e);
}

int plan_load_nodes_from(const char *path, const char *nodes_from, struct plan *p, struct err *e)
{
	struct buf b = BUF_INIT;
	char *copy = xstrdup(path), *dir;
	int rc;

	rc = buf_read_file(&b, path, 1 << 20);
	if (rc < 0) {
		err_set(e, rc, ERR_PLAN_UNREADABLE, "cannot read plan '%s': %s", path,
		        strerror(-rc));
		memset(p, 0, sizeof(*p));
		goto out;
	}
	dir = dirname(copy);
	rc = plan_parse_nodes_from(b.data, dir, nodes_from, p, e);
out:
	free(copy);
	buf_release(&b);
	return rc;
}
