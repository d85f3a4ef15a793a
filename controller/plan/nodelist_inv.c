/* nodelist_inv.c -- the Ansible inventory model both inventory readers fill: groups, hosts and
 * their variables, host patterns with ranges, and the "FILE:LINE: message" errors. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/nodelist_priv.h"
#include "xmalloc.h"
#include "banned.h"

int inv_fail(struct err *e, const char *file, int line, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (line > 0)
		return err_set(e, -EINVAL, ERR_INVALID_NODES, "%s:%d: %s", file, line, msg);
	return err_set(e, -EINVAL, ERR_INVALID_NODES, "%s: %s", file, msg);
}

int inv_group(struct inventory *inv, const char *name, int line)
{
	struct inv_group *g;
	int i;

	for (i = 0; i < inv->ngroups; i++)
		if (!strcmp(inv->groups[i].name, name))
			return i;
	if (inv->ngroups >= NODELIST_GROUPS_MAX)
		return -1;
	inv->groups = xgrow(inv->groups, &inv->gcap, inv->ngroups + 1, sizeof(*inv->groups));
	g = &inv->groups[inv->ngroups];
	memset(g, 0, sizeof(*g));
	g->name = xstrdup(name);
	g->line = line;
	return inv->ngroups++;
}

static unsigned name_hash(const char *s)
{
	unsigned h = 2166136261u; /* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

/* The slot of name in the host hash: where it is, or the empty one where it would go. */
static int host_slot(const struct inventory *inv, const char *name)
{
	int i = (int)(name_hash(name) & (unsigned)(inv->nslots - 1));

	while (inv->hslots[i] && strcmp(inv->hosts[inv->hslots[i] - 1].name, name))
		i = (i + 1) & (inv->nslots - 1);
	return i;
}

/* Keep the hash at most half full (a power of two of slots). */
static void host_hash_grow(struct inventory *inv)
{
	int h;

	if (inv->nslots && (inv->nhosts + 1) * 2 <= inv->nslots)
		return;
	free(inv->hslots);
	inv->nslots = inv->nslots ? inv->nslots * 2 : 64;
	inv->hslots = xcalloc((size_t)inv->nslots, sizeof(int));
	for (h = 0; h < inv->nhosts; h++)
		inv->hslots[host_slot(inv, inv->hosts[h].name)] = h + 1;
}

int inv_host(struct inventory *inv, const char *name, int line, int g)
{
	struct inv_group *gr;
	int h, i, slot;

	host_hash_grow(inv);
	slot = host_slot(inv, name);
	h = inv->hslots[slot] - 1;
	if (h < 0) {
		h = inv->nhosts;
		inv->hosts = xgrow(inv->hosts, &inv->hcap, inv->nhosts + 1, sizeof(*inv->hosts));
		memset(&inv->hosts[h], 0, sizeof(inv->hosts[h]));
		inv->hosts[h].name = xstrdup(name);
		inv->hosts[h].line = line;
		inv->nhosts++;
		inv->hslots[slot] = h + 1;
	}
	if (g < 0)
		return h;
	gr = &inv->groups[g];
	for (i = 0; i < gr->nhosts; i++)
		if (gr->hosts[i] == h)
			return h;
	gr->hosts = xgrow(gr->hosts, &gr->hcap, gr->nhosts + 1, sizeof(int));
	gr->hosts[gr->nhosts++] = h;
	return h;
}

void inv_child(struct inventory *inv, int parent, int child)
{
	struct inv_group *p = &inv->groups[parent];
	int i;

	for (i = 0; i < p->nchildren; i++)
		if (p->children[i] == child)
			return;
	p->children = xgrow(p->children, &p->ccap, p->nchildren + 1, sizeof(int));
	p->children[p->nchildren++] = child;
}

void inv_var_set(struct inv_vars *vars, const char *key, const char *value, int line)
{
	int i;

	for (i = 0; i < vars->n; i++)
		if (!strcmp(vars->v[i].key, key))
			break;
	if (i == vars->n) {
		vars->v = xgrow(vars->v, &vars->cap, vars->n + 1, sizeof(*vars->v));
		vars->v[i].key = xstrdup(key);
		vars->n++;
	} else {
		free(vars->v[i].value);
	}
	vars->v[i].value = value ? xstrdup(value) : NULL;
	vars->v[i].line = line;
}

const struct inv_var *inv_vars_get(const struct inv_vars *vars, const char *key)
{
	int i;

	for (i = 0; i < vars->n; i++)
		if (!strcmp(vars->v[i].key, key))
			return &vars->v[i];
	return NULL;
}

void inv_vars_release(struct inv_vars *vars)
{
	int i;

	for (i = 0; i < vars->n; i++) {
		free(vars->v[i].key);
		free(vars->v[i].value);
	}
	free(vars->v);
	memset(vars, 0, sizeof(*vars));
}

void inv_release(struct inventory *inv)
{
	int i;

	for (i = 0; i < inv->nhosts; i++) {
		free(inv->hosts[i].name);
		inv_vars_release(&inv->hosts[i].vars);
	}
	for (i = 0; i < inv->ngroups; i++) {
		free(inv->groups[i].name);
		inv_vars_release(&inv->groups[i].vars);
		free(inv->groups[i].hosts);
		free(inv->groups[i].children);
	}
	free(inv->hosts);
	free(inv->groups);
	free(inv->hslots);
	inv->hslots = NULL;
	inv->nslots = 0;
	inv->hosts = NULL;
	inv->groups = NULL;
	inv->nhosts = inv->ngroups = 0;
}

/* One [a:b] or [a:b:stride] range of a host pattern: numbers keep a's width (01..10), or
 * single letters. */
struct range {
	bool alpha;
	long from, to, step;
	int width;
};

static int range_parse(const char *s, size_t len, struct range *r)
{
	char part[3][24];
	int n = 0, i;
	size_t k = 0;

	memset(part, 0, sizeof(part));
	for (size_t j = 0; j < len; j++) {
		if (s[j] == ':') {
			if (++n > 2)
				return -EINVAL;
			k = 0;
			continue;
		}
		if (k + 1 >= sizeof(part[0]))
			return -EINVAL;
		part[n][k++] = s[j];
	}
	if (n < 1 || !part[0][0] || !part[1][0])
		return -EINVAL;
	r->step = 1;
	if (n == 2) {
		char *end;

		r->step = strtol(part[2], &end, 10);
		if (*end || r->step < 1)
			return -EINVAL;
	}
	if (isalpha((unsigned char)part[0][0])) {
		if (part[0][1] || part[1][1] || !isalpha((unsigned char)part[1][0]))
			return -EINVAL;
		r->alpha = true;
		r->from = part[0][0];
		r->to = part[1][0];
		r->width = 1;
	} else {
		char *end;

		for (i = 0; i < 2; i++)
			for (k = 0; part[i][k]; k++)
				if (!isdigit((unsigned char)part[i][k]))
					return -EINVAL;
		r->alpha = false;
		r->from = strtol(part[0], &end, 10);
		r->to = strtol(part[1], &end, 10);
		r->width = part[0][0] == '0' && part[0][1] ? (int)strlen(part[0]) : 0;
	}
	return r->from <= r->to ? 0 : -EINVAL;
}

/* Add every host pattern names, expanding the first range and recursing for the rest. */
static int hosts_expand(struct inventory *inv, const char *pattern, int line, int g,
                        const struct inv_var *kv, int nkv, int *count, struct err *e)
{
	const char *open = strchr(pattern, '['), *close;
	struct range r;
	long v;
	int rc, h, i;

	if (!open) {
		if (++*count > NODELIST_HOSTS_MAX || inv->nhosts >= NODELIST_HOSTS_MAX)
			return inv_fail(e, inv->file, line, "more than %d hosts",
			                NODELIST_HOSTS_MAX);
		h = inv_host(inv, pattern, line, g);
		for (i = 0; i < nkv; i++)
			inv_var_set(&inv->hosts[h].vars, kv[i].key, kv[i].value, kv[i].line);
		return 0;
	}
	close = strchr(open, ']');
	if (!close || range_parse(open + 1, (size_t)(close - open - 1), &r))
		return inv_fail(e, inv->file, line,
		                "'%s': a host range is [FROM:TO] or [FROM:TO:STEP] (web[01:20], "
		                "db-[a:f])",
		                pattern);
	for (v = r.from; v <= r.to; v += r.step) {
		char *host;

		if (r.alpha)
			host = xasprintf("%.*s%c%s", (int)(open - pattern), pattern, (char)v,
			                 close + 1);
		else
			host = xasprintf("%.*s%0*ld%s", (int)(open - pattern), pattern, r.width, v,
			                 close + 1);
		rc = hosts_expand(inv, host, line, g, kv, nkv, count, e);
		free(host);
		if (rc)
			return rc;
	}
	return 0;
}

int inv_hosts_add(struct inventory *inv, const char *pattern, int line, int g,
                  const struct inv_var *kv, int nkv, struct err *e)
{
	int count = 0;

	return hosts_expand(inv, pattern, line, g, kv, nkv, &count, e);
}
