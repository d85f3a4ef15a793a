/* nodelist_read.c -- nodes from hosts files, Ansible inventories (INI here, YAML in
 * nodelist_yaml.c, the model in nodelist_inv.c) and kubectl's pod JSON (nodelist_kube.c):
 * which format, host variables, the inventory's hosts as nodes. */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "plan/nodelist.h"
#include "plan/nodelist_priv.h"
#include "plan/nodelist_read.h"
#include "xmalloc.h"
#include "banned.h"

/* --- Ansible INI --- */

/* Next whitespace-separated token of *s, with "..." and '...' quoting (quotes removed) and a
 * '#' or ';' comment ending the line. NULL at the end. Caller frees. */
static char *ini_token(const char **s)
{
	struct buf b = BUF_INIT;
	const char *p = *s;
	char q = 0;

	while (*p == ' ' || *p == '\t')
		p++;
	if (!*p || *p == '#' || *p == ';') {
		*s = p;
		return NULL;
	}
	buf_puts(&b, "");
	for (; *p; p++) {
		if (q) {
			if (*p == q)
				q = 0;
			else
				buf_append(&b, p, 1);
		} else if (*p == '"' || *p == '\'') {
			q = *p;
		} else if (*p == ' ' || *p == '\t') {
			break;
		} else {
			buf_append(&b, p, 1);
		}
	}
	*s = p;
	return buf_detach(&b, NULL);
}

/* A value with surrounding whitespace and one pair of quotes removed. Caller frees. */
static char *ini_value(const char *s)
{
	size_t len;

	while (*s == ' ' || *s == '\t')
		s++;
	len = strlen(s);
	while (len && (s[len - 1] == ' ' || s[len - 1] == '\t' || s[len - 1] == '\r'))
		len--;
	if (len >= 2 && (s[0] == '"' || s[0] == '\'') && s[len - 1] == s[0])
		return xstrndup(s + 1, len - 2);
	return xstrndup(s, len);
}

enum ini_section { INI_HOSTS, INI_VARS, INI_CHILDREN };

/* A host line: PATTERN [key=value ...]. The pattern's ":PORT" is Ansible's SSH port, not the
 * agent's, and is dropped from the name. */
static int ini_host_line(struct inventory *inv, const char *line_text, int line, int g,
                         struct err *e)
{
	struct inv_var kv[64];
	const char *p = line_text;
	char *pattern = ini_token(&p), *tok, *colon;
	int nkv = 0, rc = 0, i;

	if (!pattern)
		return 0;
	colon = strrchr(pattern, ':');
	if (colon && colon > pattern && colon[1] &&
	    strspn(colon + 1, "0123456789") == strlen(colon + 1))
		*colon = '\0';
	while ((tok = ini_token(&p))) {
		char *eq = strchr(tok, '=');

		if (!eq || eq == tok) {
			rc = inv_fail(e, inv->file, line,
			              "'%s' after host '%s': expected key=value (Ansible's host "
			              "variables)",
			              tok, pattern);
			free(tok);
			goto out;
		}
		if (nkv == (int)(sizeof(kv) / sizeof(kv[0]))) {
			free(tok);
			rc = inv_fail(e, inv->file, line, "more than %d variables on one host line",
			              nkv);
			goto out;
		}
		*eq = '\0';
		kv[nkv].key = xstrdup(tok);
		kv[nkv].value = xstrdup(eq + 1);
		kv[nkv].line = line;
		nkv++;
		free(tok);
	}
	rc = inv_hosts_add(inv, pattern, line, g, kv, nkv, e);
out:
	for (i = 0; i < nkv; i++) {
		free(kv[i].key);
		free(kv[i].value);
	}
	free(pattern);
	return rc;
}

static int ini_read(struct inventory *inv, const char *text, struct err *e)
{
	enum ini_section sec = INI_HOSTS;
	int g = inv_group(inv, "ungrouped", 0), line = 0, rc = 0;
	const char *p = text;

	while (*p && !rc) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		char *s = xstrndup(p, len), *t = s, *end;

		line++;
		p = nl ? nl + 1 : p + len;
		while (*t == ' ' || *t == '\t')
			t++;
		end = t + strlen(t);
		while (end > t && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
			*--end = '\0';
		if (!*t || *t == '#' || *t == ';') {
			free(s);
			continue;
		}
		if (*t == '[') {
			char *close = strchr(t, ']'), *colon;

			if (!close || close[1] || close == t + 1) {
				rc = inv_fail(e, inv->file, line,
				              "'%s': a section is [GROUP], "
				              "[GROUP:vars] or [GROUP:children]",
				              t);
				free(s);
				break;
			}
			*close = '\0';
			colon = strchr(t + 1, ':');
			sec = INI_HOSTS;
			if (colon) {
				*colon = '\0';
				if (!strcmp(colon + 1, "vars"))
					sec = INI_VARS;
				else if (!strcmp(colon + 1, "children"))
					sec = INI_CHILDREN;
				else {
					rc = inv_fail(e, inv->file, line,
					              "[%s:%s]: the suffix is :vars or :children",
					              t + 1, colon + 1);
					free(s);
					break;
				}
			}
			g = inv_group(inv, t + 1, line);
			free(s);
			if (g < 0)
				rc = inv_fail(e, inv->file, line, "more than %d groups",
				              NODELIST_GROUPS_MAX);
			continue;
		}
		if (sec == INI_HOSTS) {
			rc = ini_host_line(inv, t, line, g, e);
		} else if (sec == INI_VARS) {
			char *eq = strchr(t, '='), *key, *val;

			if (!eq || eq == t) {
				rc = inv_fail(e, inv->file, line,
				              "'%s' in [%s:vars]: expected key=value", t,
				              inv->groups[g].name);
			} else {
				*eq = '\0';
				key = ini_value(t);
				val = ini_value(eq + 1);
				inv_var_set(&inv->groups[g].vars, key, val, line);
				free(key);
				free(val);
			}
		} else {
			const char *q = t;
			char *child = ini_token(&q), *more = ini_token(&q);
			int c;

			if (!child || more)
				rc = inv_fail(e, inv->file, line,
				              "'%s' in [%s:children]: expected one group name", t,
				              inv->groups[g].name);
			else if ((c = inv_group(inv, child, line)) < 0)
				rc = inv_fail(e, inv->file, line, "more than %d groups",
				              NODELIST_GROUPS_MAX);
			else
				inv_child(inv, g, c);
			free(child);
			free(more);
		}
		free(s);
	}
	return rc;
}

/* --- from an inventory to nodes --- */

/* Depth of every group below "all" (all 0, a top group 1, its children 2, ...): Ansible
 * applies group variables from the shallowest group to the deepest. */
static void groups_depth(const struct inventory *inv, int *depth)
{
	int i, j, changed, all = -1;

	for (i = 0; i < inv->ngroups; i++) {
		depth[i] = 1;
		if (!strcmp(inv->groups[i].name, "all")) {
			all = i;
			depth[i] = 0;
		}
	}
	/* Longest path from the top; a cycle stops at ngroups rounds. */
	for (int round = 0; round < inv->ngroups; round++) {
		changed = 0;
		for (i = 0; i < inv->ngroups; i++)
			for (j = 0; j < inv->groups[i].nchildren; j++) {
				int c = inv->groups[i].children[j];

				if (c != all && depth[c] < depth[i] + 1) {
					depth[c] = depth[i] + 1;
					changed = 1;
				}
			}
		if (!changed)
			break;
	}
}

/* Mark g and every group below it. */
static void groups_below(const struct inventory *inv, int g, bool *mark)
{
	int i;

	if (mark[g])
		return;
	mark[g] = true;
	for (i = 0; i < inv->groups[g].nchildren; i++)
		groups_below(inv, inv->groups[g].children[i], mark);
}

/* member[h * ngroups + g]: host h is in group g or in a group below it. Caller frees. */
static bool *members_make(const struct inventory *inv)
{
	size_t ng = (size_t)inv->ngroups;
	bool *below = xcalloc(ng * ng + 1, sizeof(bool)); /* below[g * ng + d]: d is g or under g */
	bool *member = xcalloc((size_t)inv->nhosts * ng + 1, sizeof(bool));
	size_t g, d;
	int i;

	for (g = 0; g < ng; g++)
		groups_below(inv, (int)g, &below[g * ng]);
	for (d = 0; d < ng; d++)
		for (i = 0; i < inv->groups[d].nhosts; i++)
			for (g = 0; g < ng; g++)
				if (below[g * ng + d])
					member[(size_t)inv->groups[d].hosts[i] * ng + g] = true;
	free(below);
	return member;
}

struct vars_order {
	const struct inventory *inv;
	const int *depth;
};

static int group_cmp(const void *a, const void *b, void *arg)
{
	const struct vars_order *o = arg;
	int ga = *(const int *)a, gb = *(const int *)b;

	if (o->depth[ga] != o->depth[gb])
		return o->depth[ga] - o->depth[gb];
	return strcmp(o->inv->groups[ga].name, o->inv->groups[gb].name);
}

/* The value of key for host h: host variables over the deepest group's over the shallower
 * ones' ("all" last). NULL when unset. */
static const struct inv_var *host_var(const struct inventory *inv, int h, const char *key,
                                      const int *order, int norder)
{
	const struct inv_var *v = inv_vars_get(&inv->hosts[h].vars, key);
	int i;

	if (v)
		return v;
	for (i = norder - 1; i >= 0; i--)
		if ((v = inv_vars_get(&inv->groups[order[i]].vars, key)))
			return v;
	return NULL;
}

static char *path_resolve(const char *dir, const char *path)
{
	return path[0] == '/' || !dir ? xstrdup(path) : xasprintf("%s/%s", dir, path);
}

#define LABEL_VAR "fleettune_label_"

/* The labels of host h (fleettune_label_KEY=VALUE variables: the host's over its deepest
 * group's over the shallower ones'), onto node n. Returns 0, or -EINVAL naming a variable
 * whose value the reader did not understand. */
static int host_labels(const struct inventory *inv, int h, const int *order, int norder,
                       struct nodelist_node *n, struct err *e)
{
	size_t plen = strlen(LABEL_VAR);
	int i, j, k;

	for (i = 0; i <= norder; i++) {
		const struct inv_vars *vars =
		        i < norder ? &inv->groups[order[i]].vars : &inv->hosts[h].vars;

		for (j = 0; j < vars->n; j++) {
			const struct inv_var *v = &vars->v[j];

			if (strncmp(v->key, LABEL_VAR, plen) || !v->key[plen])
				continue;
			if (!v->value)
				return inv_fail(e, inv->file, v->line,
				                "%s of host '%s': expected a plain value", v->key,
				                inv->hosts[h].name);
			for (k = 0; k < n->nlabels && strcmp(n->labels[k].key, v->key + plen); k++)
				;
			if (k == n->nlabels) {
				n->labels = xrealloc(n->labels,
				                     ((size_t)n->nlabels + 1) * sizeof(*n->labels));
				n->labels[n->nlabels].key = xstrdup(v->key + plen);
				n->labels[n->nlabels++].value = NULL;
			}
			free(n->labels[k].value);
			n->labels[k].value = xstrdup(v->value);
		}
	}
	return 0;
}

static int inventory_nodes(const struct inventory *inv, const char *dir,
                           const struct nodelist_opts *o, struct nodelist *l, struct err *e)
{
	int *depth = xcalloc((size_t)inv->ngroups + 1, sizeof(int));
	int *order = xcalloc((size_t)inv->ngroups + 1, sizeof(int));
	bool *member = members_make(inv);
	struct vars_order vo = { inv, depth };
	int sel = -1, h, g, norder, cap = 0, rc = 0;
	char port_s[16];

	groups_depth(inv, depth);
	if (o->group) {
		for (g = 0; g < inv->ngroups; g++)
			if (!strcmp(inv->groups[g].name, o->group))
				sel = g;
		if (sel < 0 || (!inv->groups[sel].nhosts && !inv->groups[sel].nchildren)) {
			struct buf names = BUF_INIT;

			for (g = 0; g < inv->ngroups; g++)
				if (inv->groups[g].nhosts || inv->groups[g].nchildren)
					buf_printf(&names, "%s%s", names.len ? ", " : "",
					           inv->groups[g].name);
			rc = inv_fail(e, inv->file, 0, "no group '%s' with hosts (groups: %s)",
			              o->group, names.len ? names.data : "none");
			buf_release(&names);
			goto out;
		}
	}
	snprintf(port_s, sizeof(port_s), "%d", o->port ? o->port : NODELIST_DEFAULT_PORT);
	for (h = 0; h < inv->nhosts && !rc; h++) {
		const struct inv_var *url, *dev, *tf, *addr, *port, *scheme;
		const bool *in = &member[(size_t)h * (size_t)inv->ngroups];

		if (sel >= 0 && !in[sel])
			continue;
		/* The host's groups (and those above them, "all" always), shallowest first. */
		norder = 0;
		for (g = 0; g < inv->ngroups; g++)
			if (in[g] || !strcmp(inv->groups[g].name, "all"))
				order[norder++] = g;
		qsort_r(order, (size_t)norder, sizeof(int), group_cmp, &vo);
		url = host_var(inv, h, "fleettune_url", order, norder);
		dev = host_var(inv, h, "fleettune_device", order, norder);
		tf = host_var(inv, h, "fleettune_token_file", order, norder);
		addr = host_var(inv, h, "ansible_host", order, norder);
		port = host_var(inv, h, "fleettune_port", order, norder);
		scheme = host_var(inv, h, "fleettune_scheme", order, norder);
		const struct inv_var *used[] = { url, dev, tf, addr, port, scheme };

		for (size_t k = 0; k < sizeof(used) / sizeof(used[0]); k++)
			if (used[k] && !used[k]->value) {
				rc = inv_fail(e, inv->file, used[k]->line,
				              "%s of host '%s': expected a plain value",
				              used[k]->key, inv->hosts[h].name);
				goto out;
			}
		if (!dev && !o->device) {
			rc = inv_fail(
			        e, inv->file, inv->hosts[h].line,
			        "host '%s' has no device: set fleettune_device (a host or group "
			        "variable) or give a default device",
			        inv->hosts[h].name);
			goto out;
		}
		nodelist_node_add(l, &cap, xstrdup(inv->hosts[h].name),
		                  url ? xstrdup(url->value)
		                      : nodelist_url_make(scheme      ? scheme->value
		                                          : o->scheme ? o->scheme
		                                                      : "http",
		                                          addr ? addr->value : inv->hosts[h].name,
		                                          port ? port->value : port_s),
		                  nodelist_device_take(dev ? dev->value : o->device),
		                  tf              ? path_resolve(dir, tf->value)
		                  : o->token_file ? xstrdup(o->token_file)
		                                  : NULL,
		                  inv->hosts[h].line);
		rc = host_labels(inv, h, order, norder, &l->nodes[l->n - 1], e);
	}
	if (!rc && !l->n)
		rc = inv_fail(e, inv->file, 0, "no hosts%s%s", o->group ? " in group " : "",
		              o->group ? o->group : "");
out:
	free(depth);
	free(order);
	free(member);
	return rc;
}

/* --- hosts files: "name url device [token_file]", "host[:port] [device [token_file]]",
 * "name url" --- */

/* Split "host", "host:port", "[v6]:port" or fio's "host,port" into host and port. */
static int hostport_split(const char *s, char **host, char **port)
{
	const char *sep = NULL, *h = s, *hend;

	if (s[0] == '[') {
		hend = strchr(s, ']');
		if (!hend || (hend[1] && hend[1] != ':'))
			return -EINVAL;
		h = s + 1;
		sep = hend[1] ? hend + 1 : NULL;
	} else {
		sep = strchr(s, ',');
		if (!sep) {
			sep = strchr(s, ':');
			if (sep && strchr(sep + 1, ':'))
				return -EINVAL; /* a bare IPv6 address: needs [ ] */
		}
		hend = sep ? sep : s + strlen(s);
	}
	if (hend == h)
		return -EINVAL;
	for (const char *c = h; c < hend; c++)
		if (!isalnum((unsigned char)*c) && !strchr(".-_:", *c))
			return -EINVAL;
	*port = NULL;
	if (sep) {
		char *end;
		long v = strtol(sep + 1, &end, 10);

		if (!sep[1] || *end || v < 1 || v > 65535)
			return -EINVAL;
		*port = xstrdup(sep + 1);
	}
	*host = xstrndup(h, (size_t)(hend - h));
	return 0;
}

/* Line's own token file (the list's directory resolves a relative one), else the default. */
static char *hosts_token_file(const char *dir, const char *own, const struct nodelist_opts *o)
{
	if (own)
		return path_resolve(dir, own);
	return o->token_file ? xstrdup(o->token_file) : NULL;
}

/* A hosts file being read: where, with what defaults, into which list. */
struct hosts {
	const char *file, *dir;
	const struct nodelist_opts *o;
	struct nodelist *l;
	int cap, pcap;
	char **ports;    /* per node: the port of a host[:port] line, else NULL */
	char port_s[16]; /* the default port */
};

/* A "name url [device [token_file]]" line of nf fields f. */
static int hosts_url_line(struct hosts *h, char **f, int nf, int line, struct err *e)
{
	if (nf == 1)
		return inv_fail(e, h->file, line,
		                "'%s': a URL needs a name before it ('name url device')", f[0]);
	if (nf == 2 && !h->o->device)
		return inv_fail(e, h->file, line,
		                "host '%s' has no device: write 'name url device' or "
		                "give a "
		                "default device",
		                f[0]);
	nodelist_node_add(h->l, &h->cap, xstrdup(f[0]), xstrdup(f[1]),
	                  nodelist_device_take(nf >= 3 ? f[2] : h->o->device),
	                  hosts_token_file(h->dir, nf == 4 ? f[3] : NULL, h->o), line);
	return 0;
}

/* A "host[:port] [device [token_file]]" line of nf fields f. */
static int hosts_host_line(struct hosts *h, char **f, int nf, int line, struct err *e)
{
	struct nodelist *l = h->l;
	char *host = NULL, *port = NULL;
	int rc = 0;

	if (hostport_split(f[0], &host, &port)) {
		rc = inv_fail(e, h->file, line,
		              "'%s' is not a host list line ('name url device' or "
		              "'host[:port] [device]'), an Ansible inventory (INI or "
		              "YAML) or kubectl get pods -o json",
		              f[0]);
	} else if (nf == 1 && !h->o->device) {
		rc = inv_fail(e, h->file, line,
		              "host '%s' has no device: write 'host[:port] device' "
		              "or give "
		              "a default device",
		              host);
	} else {
		h->ports[l->n] = xstrdup(port ? port : h->port_s);
		nodelist_node_add(l, &h->cap, xstrdup(host),
		                  nodelist_url_make(h->o->scheme ? h->o->scheme : "http", host,
		                                    h->ports[l->n]),
		                  nodelist_device_take(nf >= 2 ? f[1] : h->o->device),
		                  hosts_token_file(h->dir, nf == 3 ? f[2] : NULL, h->o), line);
	}
	free(host);
	free(port);
	return rc;
}

/* One line's nf fields f (nf may be more than the 5 kept). */
static int hosts_line(struct hosts *h, char **f, int nf, int line, struct err *e)
{
	struct nodelist *l = h->l;
	bool url;

	if (l->n >= NODELIST_HOSTS_MAX)
		return inv_fail(e, h->file, line, "more than %d hosts", NODELIST_HOSTS_MAX);
	h->ports = xgrow(h->ports, &h->pcap, l->n + 1, sizeof(*h->ports));
	h->ports[l->n] = NULL;
	url = nf > 1 && (!strncmp(f[1], "http://", 7) || !strncmp(f[1], "https://", 8));
	if (nf > 4 || (nf == 4 && !url))
		return inv_fail(e, h->file, line,
		                "%d fields: a host list line is 'name url device [token_file]', "
		                "'host[:port] [device [token_file]]' or 'name url'",
		                nf);
	if (nf == 3 && !url && strchr(f[1], ':'))
		/* a device name has no ':': this is "name host:port device" */
		return inv_fail(e, h->file, line,
		                "'%s': the second of three fields must be the agent's URL "
		                "(http:// or https://): 'name url device'",
		                f[1]);
	if (!strncmp(f[nf > 1 ? 1 : 0], "http://", 7) || !strncmp(f[nf > 1 ? 1 : 0], "https://", 8))
		return hosts_url_line(h, f, nf, line, e);
	return hosts_host_line(h, f, nf, line, e);
}

/* A name is unique: where two host[:port] lines share a host, both are "host-PORT". */
static void hosts_names_unique(struct nodelist *l, char **ports)
{
	int i, j;

	for (i = 0; i < l->n; i++) {
		bool shared = false;

		if (!ports[i])
			continue;
		for (j = 0; j < l->n && !shared; j++)
			shared = j != i && ports[j] && !strcmp(l->nodes[j].name, l->nodes[i].name);
		if (shared)
			for (j = l->n - 1; j >= i; j--)
				if (ports[j] && j != i &&
				    !strcmp(l->nodes[j].name, l->nodes[i].name)) {
					char *renamed =
					        xasprintf("%s-%s", l->nodes[j].name, ports[j]);

					free(l->nodes[j].name);
					l->nodes[j].name = renamed;
				}
		if (shared) {
			char *renamed = xasprintf("%s-%s", l->nodes[i].name, ports[i]);

			free(l->nodes[i].name);
			l->nodes[i].name = renamed;
		}
	}
}

static int hosts_read(const char *text, const char *file, const char *dir,
                      const struct nodelist_opts *o, struct nodelist *l, struct err *e)
{
	struct hosts h = { .file = file, .dir = dir, .o = o, .l = l };
	const char *p = text;
	int line = 0, rc = 0, i;

	snprintf(h.port_s, sizeof(h.port_s), "%d", o->port ? o->port : NODELIST_DEFAULT_PORT);
	while (*p && !rc) {
		const char *nl = strchr(p, '\n'), *q;
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		char *s = xstrndup(p, len), *f[5] = { NULL, NULL, NULL, NULL, NULL }, *tok;
		int nf = 0;

		line++;
		p = nl ? nl + 1 : p + len;
		q = s;
		while ((tok = ini_token(&q))) {
			if (nf < 5)
				f[nf] = tok;
			else
				free(tok);
			nf++;
		}
		if (nf)
			rc = hosts_line(&h, f, nf, line, e);
		for (i = 0; i < 5; i++)
			free(f[i]);
		free(s);
	}
	if (!rc)
		hosts_names_unique(l, h.ports);
	for (i = 0; i < l->n; i++)
		free(h.ports[i]);
	free(h.ports);
	if (rc)
		return rc;
	return l->n ? 0 : inv_fail(e, file, 0, "no hosts in the file");
}

/* --- which format --- */

/* JSON, YAML and INI by their first significant line ('{'; "---" or "key:"; "[group]" or
 * "key=value"); INI also by a later section or variable (a file may open with ungrouped
 * hosts); else a hosts file. */
static enum nodelist_format format_detect(const char *text)
{
	const char *p = text;
	bool first = true;

	while (*p) {
		const char *nl = strchr(p, '\n'), *s = p, *end = nl ? nl : p + strlen(p), *c;

		p = nl ? nl + 1 : end;
		while (s < end && (*s == ' ' || *s == '\t' || *s == '\r'))
			s++;
		if (s == end || *s == '#' || *s == ';')
			continue;
		if (first) {
			if (*s == '{')
				return NODELIST_KUBECTL;
			if (!strncmp(s, "---", 3))
				return NODELIST_ANSIBLE_YAML;
			/* "key:" or "key: value", not "host:port" */
			for (c = s; c < end && *c != ' ' && *c != '\t'; c++)
				if (*c == ':' && (c + 1 == end || strchr(" \t\r", c[1])))
					return NODELIST_ANSIBLE_YAML;
			first = false;
		}
		if (*s == '[') {
			const char *close = s;

			while (close < end && *close != ']')
				close++;
			/* "[group]" rather than "[fe80::1]:7070" (a host) */
			if (close < end && (close + 1 == end || strchr(" \t\r#;", close[1])))
				return NODELIST_ANSIBLE_INI;
		}
		for (c = s; c < end; c++)
			if (*c == '=')
				return NODELIST_ANSIBLE_INI;
	}
	return NODELIST_HOSTS;
}

int nodelist_parse(const char *text, const char *file, const char *dir,
                   const struct nodelist_opts *o, struct nodelist *out, struct err *e)
{
	static const struct nodelist_opts none = { 0 };
	struct inventory inv = { .file = file };
	int rc;

	memset(out, 0, sizeof(*out));
	if (!o)
		o = &none;
	out->format = o->format == NODELIST_AUTO ? format_detect(text) : o->format;
	if (o->group && out->format != NODELIST_ANSIBLE_INI && out->format != NODELIST_ANSIBLE_YAML)
		return inv_fail(e, file, 0,
		                "a group ('%s') selects hosts of an Ansible inventory, "
		                "and this is read as %s",
		                o->group, nodelist_format_name(out->format));
	switch (out->format) {
	case NODELIST_HOSTS:
		rc = hosts_read(text, file, dir, o, out, e);
		break;
	case NODELIST_KUBECTL:
		rc = nodelist_kubectl_read(text, file, o, out, e);
		break;
	case NODELIST_ANSIBLE_INI:
	case NODELIST_ANSIBLE_YAML:
		inv_group(&inv, "all", 0);
		rc = out->format == NODELIST_ANSIBLE_INI ? ini_read(&inv, text, e)
		                                         : inv_yaml_read(&inv, text, e);
		if (!rc)
			rc = inventory_nodes(&inv, dir, o, out, e);
		inv_release(&inv);
		break;
	default:
		rc = inv_fail(e, file, 0, "unknown format");
	}
	if (rc)
		nodelist_release(out);
	return rc;
}
