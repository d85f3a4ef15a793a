/* twins.c -- the nodes of each cohort compared on the writable parameters the plan does not set,
 * each difference named with its fix. */
#include <stdlib.h>
#include <string.h>

#include "run/twins.h"
#include "xmalloc.h"
#include "banned.h"

const char *twins_moves_with(const char *name)
{
	static const char *const pairs[][2] = {
		{ "setra", "read_ahead_kb" },
		{ "read_ahead_kb", "setra" },
		{ "iosched.async_depth", "nr_requests" },
	};
	size_t i;

	for (i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++)
		if (!strcmp(pairs[i][0], name))
			return pairs[i][1];
	return NULL;
}

/* Whether the plan sets name: its baseline, or an axis. */
static bool plan_sets(const struct plan *p, const char *name)
{
	int a, j;

	if (config_get(&p->baseline, name))
		return true;
	for (a = 0; a < p->naxes; a++)
		for (j = 0; j < p->axes[a].nparams; j++)
			if (!strcmp(p->axes[a].params[j], name))
				return true;
	return false;
}

/* Node k's writable parameter name, or NULL. */
static const struct param_info *param_of(const struct node_info *ni, const char *name)
{
	int i;

	for (i = 0; i < ni->nparams; i++)
		if (ni->params[i].writable && !strcmp(ni->params[i].name, name))
			return &ni->params[i];
	return NULL;
}

/* Whether every character of v is a digit: the baseline takes it as a number. */
static bool is_int_text(const char *v)
{
	if (!*v)
		return false;
	for (; *v; v++)
		if (*v < '0' || *v > '9')
			return false;
	return true;
}

/* A parameter to compare: on every node of the group, not set by the plan, not moving with one
 * it sets, not allowed to differ. */
static bool comparable(const struct plan *p, const struct node_info *info, const int *g, int ng,
                       const char *name)
{
	const char *with = twins_moves_with(name);
	int j;

	if (plan_sets(p, name) || (with && plan_sets(p, with)) || plan_difference_allowed(p, name))
		return false;
	for (j = 0; j < ng; j++)
		if (!param_of(&info[g[j]], name))
			return false;
	return true;
}

/* The group's reference node for name: the first node holding the value most nodes hold. */
static int reference(const struct node_info *info, const int *g, int ng, const char *name)
{
	int j, i, best = 0, best_n = 0, n;

	for (j = 0; j < ng; j++) {
		const char *v = param_of(&info[g[j]], name)->value;

		for (n = 0, i = 0; i < ng; i++)
			n += !strcmp(param_of(&info[g[i]], name)->value, v);
		if (n > best_n) {
			best_n = n;
			best = j;
		}
	}
	return g[best];
}

/* The nodes of one group (ng of them, g[]) compared; lines into out, the differing names and
 * reference values into fix and names. Returns the differing nodes. */
static int group_check(const struct plan *p, const struct node_info *info, const int *g, int ng,
                       struct buf *out, struct buf *fix, struct buf *names, struct buf *quoted)
{
	const struct node_info *first = &info[g[0]];
	int j, i, ndiff = 0, *ref = xcalloc((size_t)first->nparams + 1, sizeof(int));
	bool *cmp = xcalloc((size_t)first->nparams + 1, sizeof(bool));
	bool *named = xcalloc((size_t)first->nparams + 1, sizeof(bool));

	for (i = 0; i < first->nparams; i++) {
		cmp[i] = first->params[i].writable &&
		         comparable(p, info, g, ng, first->params[i].name);
		if (cmp[i])
			ref[i] = reference(info, g, ng, first->params[i].name);
	}
	for (j = 0; j < ng; j++) {
		const struct node_info *ni = &info[g[j]];
		size_t start = out->len;
		int n = 0;

		for (i = 0; i < first->nparams; i++) {
			const char *name = first->params[i].name;
			const struct param_info *mine, *theirs;

			if (!cmp[i] || ref[i] == g[j])
				continue;
			mine = param_of(ni, name);
			theirs = param_of(&info[ref[i]], name);
			if (!strcmp(mine->value, theirs->value))
				continue;
			buf_printf(out, "%s%s %s, %s: %s", n++ ? "; " : "", name, mine->value,
			           p->nodes[ref[i]].name, theirs->value);
			if (!named[i]) {
				named[i] = true;
				buf_printf(fix, ", \"%s\": %s%s%s", name,
				           is_int_text(theirs->value) ? "" : "\"", theirs->value,
				           is_int_text(theirs->value) ? "" : "\"");
				buf_printf(names, "%s%s", names->len ? "," : "", name);
				buf_printf(quoted, "%s\"%s\"", quoted->len ? ", " : "", name);
			}
		}
		if (n) {
			/* The node's name first: insert it before its differences. */
			struct buf line = BUF_INIT;

			buf_printf(&line, "%s: %s\n", p->nodes[g[j]].name, out->data + start);
			out->len = start;
			out->data[start] = '\0';
			buf_append(out, line.data, line.len);
			buf_release(&line);
			ndiff++;
		}
	}
	free(ref);
	free(cmp);
	free(named);
	return ndiff;
}

int twins_check(const struct plan *p, const struct node_info *info, const int *cohort_of,
                struct buf *out)
{
	int n = p->nnodes, *g = xcalloc((size_t)n + 1, sizeof(int)), ng, c, k, ndiff = 0, maxc = 0;
	struct buf fix = BUF_INIT, names = BUF_INIT, allow = BUF_INIT;

	for (k = 0; cohort_of && k < n; k++)
		maxc = cohort_of[k] > maxc ? cohort_of[k] : maxc;
	for (c = 0; c <= maxc; c++) {
		for (ng = 0, k = 0; k < n; k++)
			if ((!cohort_of || cohort_of[k] == c) && info[k].ok && info[k].nparams > 0)
				g[ng++] = k;
		if (ng >= 2)
			ndiff += group_check(p, info, g, ng, out, &fix, &names, &allow);
	}
	if (ndiff) {
		buf_printf(
		        out,
		        "the nodes are not twins in parameters the plan does not set: put them in "
		        "the plan's baseline so every node runs the same (\"baseline\": {...%s}), "
		        "or let them differ on purpose (\"allow_differences\": [%s], or "
		        "--allow-differences %s)\n",
		        fix.data, allow.data, names.data);
	}
	buf_release(&fix);
	buf_release(&names);
	buf_release(&allow);
	free(g);
	return ndiff;
}
