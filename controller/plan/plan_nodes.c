/* plan_nodes.c -- a plan's nodes: parsed (name, url, device, token, labels) or read from a
 * node list, indexed by name, node sets, their tokens loaded, and the cohort_by keys that may
 * name their labels. */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "buf.h"
#include "plan/nodelist.h"
#include "plan/nodelist_read.h"
#include "plan/plan.h"
#include "plan/plan_nodes.h"
#include "plan/planjson.h"
#include "protocol.h"
#include "xmalloc.h"
#include "banned.h"

char *plan_node_set_to_json(const struct plan *p, const bool *set)
{
	json_t *a = json_array();
	char *s;
	int i;

	for (i = 0; i < p->nnodes; i++)
		if (set[i])
			json_array_append_new(a, json_string(p->nodes[i].name));
	s = json_dumps(a, JSON_COMPACT);
	json_decref(a);
	return s;
}

int plan_node_set_parse(const struct plan *p, const char *text, bool *set, struct err *e)
{
	json_t *a = json_loads(text, 0, NULL), *v;
	size_t i;
	int k;

	if (!json_is_array(a)) {
		json_decref(a);
		return err_set(e, -EINVAL, ERR_INVALID_NODES, "node set: expected a JSON array");
	}
	json_array_foreach(a, i, v)
	{
		k = json_is_string(v) ? plan_node_find(p, json_string_value(v)) : -1;
		if (k >= 0)
			set[k] = true;
	}
	json_decref(a);
	return 0;
}

/* Order node indexes by name, ties by index (qsort_r's comparison). */
static int node_cmp(const void *a, const void *b, void *arg)
{
	const struct plan *p = arg;
	int ia = *(const int *)a, ib = *(const int *)b;
	int c = strcmp(p->nodes[ia].name, p->nodes[ib].name);

	return c ? c : (ia > ib) - (ia < ib);
}

/* Build p->node_by_name and refuse a name given twice (naming its second use): sorting, not
 * comparing every pair, so that a plan of thousands of nodes parses in O(n log n). */
int plan_nodes_index(struct parser *ps)
{
	struct plan *p = ps->p;
	char path[64];
	int k;

	p->node_by_name = xcalloc((size_t)p->nnodes + 1, sizeof(int));
	for (k = 0; k < p->nnodes; k++)
		p->node_by_name[k] = k;
	qsort_r(p->node_by_name, (size_t)p->nnodes, sizeof(int), node_cmp, p);
	for (k = 1; k < p->nnodes; k++) {
		int i = p->node_by_name[k];

		if (strcmp(p->nodes[p->node_by_name[k - 1]].name, p->nodes[i].name))
			continue;
		snprintf(path, sizeof(path), "nodes[%d].name", i);
		return fail(ps, path, "duplicate node name '%s'", p->nodes[i].name);
	}
	return 0;
}

/* The name a node was given in the plan: a member of a node of several devices, its host's. */
static const char *node_given_name(const struct plan_node *n)
{
	return n->host ? n->host : n->name;
}

/* Order node indexes by the name they were given, ties by index (qsort_r's comparison). */
static int given_cmp(const void *a, const void *b, void *arg)
{
	const struct plan *p = arg;
	int ia = *(const int *)a, ib = *(const int *)b;
	int c = strcmp(node_given_name(&p->nodes[ia]), node_given_name(&p->nodes[ib]));

	return c ? c : (ia > ib) - (ia < ib);
}

int plan_nodes_hosts_check(struct parser *ps)
{
	struct plan *p = ps->p;
	int *by = xcalloc((size_t)p->nnodes + 1, sizeof(int)), k, rc = 0;

	for (k = 0; k < p->nnodes; k++)
		by[k] = k;
	qsort_r(by, (size_t)p->nnodes, sizeof(int), given_cmp, p);
	for (k = 1; k < p->nnodes && !rc; k++) {
		const struct plan_node *a = &p->nodes[by[k - 1]], *b = &p->nodes[by[k]];

		if (strcmp(node_given_name(a), node_given_name(b)))
			continue;
		/* The members of one node's "devices" follow one another, at one URL. */
		if (a->host && b->host && by[k] == by[k - 1] + 1 && !strcmp(a->url, b->url))
			continue;
		rc = fail(ps, "nodes",
		          "'%s' names two nodes, '%s' (device %s) and '%s' (device %s): give the "
		          "host once, with every device of it in its \"devices\"",
		          node_given_name(a), a->name, a->device, b->name, b->device);
	}
	free(by);
	return rc;
}

/* An object of strings (labels, nodes[i].labels) into *out, keys as parameter names. */
int plan_labels_take(struct parser *ps, json_t *v, const char *where, struct plan_label **out,
                     int *n)
{
	const char *key;
	json_t *lv;
	char path[200];

	if (!v)
		return 0;
	if (!json_is_object(v))
		return fail(ps, where, "expected an object");
	*out = xcalloc(json_object_size(v) + 1, sizeof(**out));
	json_object_foreach(v, key, lv)
	{
		snprintf(path, sizeof(path), "%s.%s", where, key);
		if (!json_is_string(lv))
			return fail(ps, path, "expected a string");
		if (planjson_has_control(key) || planjson_has_control(json_string_value(lv)))
			return fail(ps, where,
			            "a label key or value has a control character (a line break, a "
			            "tab, ...)");
		(*out)[*n].key = xstrdup(key);
		(*out)[(*n)++].value = xstrdup(json_string_value(lv));
	}
	return 0;
}

/* What is wrong with tok as a bearer token (NULL: nothing). It goes into an HTTP header, so
 * it is one run of visible ASCII (no space, CR, LF or other control character) of plausible
 * length; the message never quotes it. */
static const char *token_problem(const char *tok)
{
	size_t i, n = strlen(tok);

	if (!n)
		return "is empty";
	if (n > PLAN_TOKEN_MAX)
		return "is longer than " PLAN_TOKEN_MAX_TEXT " characters: not a token";
	for (i = 0; i < n; i++)
		if ((unsigned char)tok[i] < 0x21 || (unsigned char)tok[i] > 0x7e)
			return "has a space, a line break or another character a bearer token "
			       "cannot have (visible ASCII only)";
	return NULL;
}

/* A copy of n labels. */
static struct plan_label *labels_dup(const struct plan_label *l, int n)
{
	struct plan_label *out = n ? xcalloc((size_t)n, sizeof(*out)) : NULL;
	int k;

	for (k = 0; k < n; k++) {
		out[k].key = xstrdup(l[k].key);
		out[k].value = xstrdup(l[k].value);
	}
	return out;
}

/* Append an empty node to p (its array grown by doubling). */
static struct plan_node *node_add(struct plan *p, int *cap)
{
	if (p->nnodes >= *cap) {
		*cap = *cap ? *cap * 2 : 8;
		p->nodes = xrealloc(p->nodes, (size_t)*cap * sizeof(*p->nodes));
	}
	memset(&p->nodes[p->nnodes], 0, sizeof(*p->nodes));
	return &p->nodes[p->nnodes++];
}

/*
 * Node pn (its device set) becomes one member per device of devs[0..ndev) when host is given
 * (a node's "devices"): pn itself is the first, called "host/dev", and copies of it follow with
 * the same URL, token and labels. Everything but the name and the device is pn's.
 */
static void node_members(struct plan *p, int *cap, int first, const char *host,
                         const char *const *devs, int ndev)
{
	int d;

	for (d = 0; d < ndev; d++) {
		struct plan_node *pn = d ? node_add(p, cap) : &p->nodes[first], *src;

		src = &p->nodes[first]; /* node_add may have moved the array */
		if (d) {
			pn->url = xstrdup(src->url);
			pn->token = src->token ? xstrdup(src->token) : NULL;
			pn->token_file = src->token_file ? xstrdup(src->token_file) : NULL;
			pn->labels = labels_dup(src->labels, src->nlabels);
			pn->nlabels = src->nlabels;
		} else {
			free(pn->name);
			free(pn->device);
		}
		pn->host = xstrdup(host);
		pn->name = xasprintf("%s/%s", host, devs[d]);
		pn->device = xstrdup(devs[d]);
	}
}

/* nodes[i].devices: 1..PLAN_DEVICES_MAX block device names, each once, into devs. */
static int devices_take(struct parser *ps, json_t *v, size_t i, const char **devs, int *ndev)
{
	char path[64];
	size_t k;
	json_t *d;
	int j;

	snprintf(path, sizeof(path), "nodes[%zu].devices", i);
	if (!json_is_array(v) || json_array_size(v) == 0 || json_array_size(v) > PLAN_DEVICES_MAX)
		return fail(ps, path, "expected an array of 1 to %d block device names",
		            PLAN_DEVICES_MAX);
	json_array_foreach(v, k, d)
	{
		snprintf(path, sizeof(path), "nodes[%zu].devices[%zu]", i, k);
		if (!json_is_string(d) || !planjson_name_ok(json_string_value(d), "-"))
			return fail(ps, path, "'%s' is not a block device name (e.g. sda, loop0)",
			            json_is_string(d) ? json_string_value(d) : "(not a string)");
		devs[k] = json_string_value(d);
		for (j = 0; j < (int)k; j++)
			if (!strcmp(devs[j], devs[k]))
				return fail(ps, path, "'%s' is given twice", devs[k]);
	}
	*ndev = (int)json_array_size(v);
	return 0;
}

int plan_parse_nodes(struct parser *ps, json_t *arr, const char *dir)
{
	static const char *const keys[] = { "name",       "url",   "device", "devices",
		                            "token_file", "token", "labels", NULL };
	struct plan *p = ps->p;
	size_t i;
	char path[64];
	json_t *n;
	int r, cap = 0;

	if (!json_is_array(arr))
		return fail(ps, "nodes", "expected an array");
	if (json_array_size(arr) == 0)
		return fail(ps, "nodes", "at least one node is required");
	json_array_foreach(arr, i, n)
	{
		struct plan_node *pn;
		const char *name = NULL, *url = NULL, *dev = NULL, *tf = NULL, *tok = NULL;
		const char *devs[PLAN_DEVICES_MAX];
		json_t *devices;
		int ndev = 0, first;

		snprintf(path, sizeof(path), "nodes[%zu]", i);
		if (!json_is_object(n))
			return fail(ps, path, "expected an object");
		if ((r = planjson_check_keys(ps, n, path, keys)) < 0)
			return r;
		devices = json_object_get(n, "devices");
		if ((r = jread_str(&ps->jr, n, path, "name", JREAD_REQUIRED | JREAD_NONEMPTY,
		                   &name)) < 0 ||
		    (r = jread_str(&ps->jr, n, path, "url", JREAD_REQUIRED | JREAD_NONEMPTY,
		                   &url)) < 0 ||
		    (r = jread_str(&ps->jr, n, path, "device",
		                   JREAD_NONEMPTY | (!devices ? JREAD_REQUIRED : 0), &dev)) < 0 ||
		    (r = jread_str(&ps->jr, n, path, "token_file", JREAD_NONEMPTY, &tf)) < 0 ||
		    (r = jread_str(&ps->jr, n, path, "token", JREAD_NONEMPTY, &tok)) < 0)
			return r;
		if (devices && dev)
			return fail(
			        ps, path,
			        "give \"device\" (one device) or \"devices\" (several), not both");
		if (devices && (r = devices_take(ps, devices, i, devs, &ndev)) < 0)
			return r;
		if (!planjson_name_ok(name, ".-")) {
			snprintf(path, sizeof(path), "nodes[%zu].name", i);
			return fail(ps, path, "'%s' must be letters, digits, '.', '-' or '_'",
			            name);
		}
		if (strncmp(url, "http://", 7) && strncmp(url, "https://", 8)) {
			snprintf(path, sizeof(path), "nodes[%zu].url", i);
			return fail(ps, path, "'%s' must start with http:// or https://", url);
		}
		if (dev && !planjson_name_ok(dev, "-")) {
			snprintf(path, sizeof(path), "nodes[%zu].device", i);
			return fail(ps, path, "'%s' is not a block device name (e.g. sda, loop0)",
			            dev);
		}
		if (tok && token_problem(tok)) {
			snprintf(path, sizeof(path), "nodes[%zu].token", i);
			return fail(ps, path, "%s", token_problem(tok));
		}
		first = p->nnodes;
		pn = node_add(p, &cap);
		pn->name = xstrdup(name);
		pn->url = xstrdup(url);
		while (strlen(pn->url) > 8 && pn->url[strlen(pn->url) - 1] == '/')
			pn->url[strlen(pn->url) - 1] = '\0';
		pn->device = xstrdup(dev ? dev : devs[0]);
		if (tok)
			pn->token = xstrdup(tok);
		if (tf)
			pn->token_file =
			        (tf[0] == '/' || !dir) ? xstrdup(tf) : xasprintf("%s/%s", dir, tf);
		snprintf(path, sizeof(path), "nodes[%zu].labels", i);
		if ((r = plan_labels_take(ps, json_object_get(n, "labels"), path, &pn->labels,
		                          &pn->nlabels)) < 0)
			return r;
		for (r = 0; r < pn->nlabels; r++) {
			if (planjson_name_ok(pn->labels[r].key, ".-"))
				continue;
			snprintf(path, sizeof(path), "nodes[%zu].labels.%s", i, pn->labels[r].key);
			return fail(ps, path, "a label key is letters, digits, '.', '-' or '_'");
		}
		if (devices)
			node_members(p, &cap, first, name, devs, ndev);
	}
	return 0;
}

/* A node list's device: one name, or several separated by commas ("sdb,sdc", "/dev/" before
 * each is dropped), each a block device name given once, at most PLAN_DEVICES_MAX. list is cut
 * in place and devs point into it. -EINVAL with why saying what is wrong. */
static int device_list_split(char *list, const char *node, const char **devs, int *ndev, char *why,
                             size_t len)
{
	char *at = list, *end, of[120] = "";
	int j;

	if (node)
		snprintf(of, sizeof(of), " (node %.100s)", node);
	for (*ndev = 0;; at = end + 1) {
		end = strchr(at, ',');
		if (end)
			*end = '\0';
		if (!strncmp(at, "/dev/", 5))
			at += 5;
		if (*ndev >= PLAN_DEVICES_MAX) {
			snprintf(why, len, "more than %d devices%s", PLAN_DEVICES_MAX, of);
			return -EINVAL;
		}
		if (!planjson_name_ok(at, "-")) {
			snprintf(why, len, "'%.60s'%s is not a block device name (e.g. sda, loop0)",
			         at, of);
			return -EINVAL;
		}
		for (j = 0; j < *ndev; j++)
			if (!strcmp(devs[j], at)) {
				snprintf(why, len, "device '%.60s'%s is given twice", at, of);
				return -EINVAL;
			}
		devs[(*ndev)++] = at;
		if (!end)
			return 0;
	}
}

/* "nodes_from" v's file (NULL: the command line's) and the options o of its object form;
 * *tf gets the token file's path (the caller frees it). Returns 1 when there is a list to
 * read, 0 when there is none, or the error. */
static int list_opts_take(struct parser *ps, json_t *v, const char *dir, struct nodelist_opts *o,
                          const char **file, char **tf)
{
	static const char *const keys[] = { "file", "format", "group",      "device",
		                            "port", "scheme", "token_file", NULL };
	const char *devs[PLAN_DEVICES_MAX], *s;
	char why[200], *dev_list;
	json_t *port;
	int r, ndev;

	if (v && json_is_string(v)) {
		*file = json_string_value(v);
		return 1;
	}
	if (v && !json_is_object(v))
		return fail(ps, "nodes_from", "expected a file name or an object");
	if (!v)
		return ps->nodes_from ? 1 : 0;
	if ((r = planjson_check_keys(ps, v, "nodes_from", keys)) < 0 ||
	    (r = jread_str(&ps->jr, v, "nodes_from", "file",
	                   JREAD_NONEMPTY | (!ps->nodes_from ? JREAD_REQUIRED : 0), file)) < 0)
		return r;
	if ((r = jread_str(&ps->jr, v, "nodes_from", "format", JREAD_NONEMPTY, &s)) < 0)
		return r;
	if (r == 1 && nodelist_format_parse(s, &o->format))
		return fail(ps, "nodes_from.format",
		            "'%s' is not one of auto, hosts, ansible-ini, ansible-yaml, "
		            "kubectl",
		            s);
	if ((r = jread_str(&ps->jr, v, "nodes_from", "group", JREAD_NONEMPTY, &o->group)) < 0 ||
	    (r = jread_str(&ps->jr, v, "nodes_from", "device", JREAD_NONEMPTY, &o->device)) < 0)
		return r;
	if (o->device) {
		dev_list = xstrdup(o->device);
		r = device_list_split(dev_list, NULL, devs, &ndev, why, sizeof(why));
		free(dev_list);
		if (r)
			return fail(ps, "nodes_from.device", "%s", why);
	}
	if ((r = jread_str(&ps->jr, v, "nodes_from", "scheme", JREAD_NONEMPTY, &o->scheme)) < 0)
		return r;
	if (o->scheme && strcmp(o->scheme, "http") && strcmp(o->scheme, "https"))
		return fail(ps, "nodes_from.scheme", "'%s' is not one of http, https", o->scheme);
	port = json_object_get(v, "port");
	if (port && (!json_is_integer(port) || json_integer_value(port) < 1 ||
	             json_integer_value(port) > 65535))
		return fail(ps, "nodes_from.port", "expected a port number (1-65535)");
	o->port = port ? (int)json_integer_value(port) : 0;
	if ((r = jread_str(&ps->jr, v, "nodes_from", "token_file", JREAD_NONEMPTY, &s)) < 0)
		return r;
	if (r == 1)
		o->token_file = *tf =
		        (s[0] == '/' || !dir) ? xstrdup(s) : xasprintf("%s/%s", dir, s);
	return 1;
}

/* Every node of list l (read from path) has a node name, devices, a URL and labels a plan
 * takes; else the error, naming the line. */
static int list_check(struct parser *ps, const struct nodelist *l, const char *path)
{
	const char *devs[PLAN_DEVICES_MAX];
	char why[200], *dev_list;
	int i, k, r, ndev;

	for (i = 0; i < l->n; i++) {
		const struct nodelist_node *n = &l->nodes[i];

		if (!planjson_name_ok(n->name, ".-"))
			return err_set(
			        ps->e, -EINVAL, ERR_INVALID_NODES,
			        "%s:%d: node name '%s' must be letters, digits, '.', '-' or '_'",
			        path, n->line, n->name);
		dev_list = xstrdup(n->device);
		r = device_list_split(dev_list, n->name, devs, &ndev, why, sizeof(why));
		free(dev_list);
		if (r)
			return err_set(ps->e, -EINVAL, ERR_INVALID_NODES, "%s:%d: %s", path,
			               n->line, why);
		if (strncmp(n->url, "http://", 7) && strncmp(n->url, "https://", 8))
			return err_set(ps->e, -EINVAL, ERR_INVALID_NODES,
			               "%s:%d: '%s' (node %s) must start with http:// or https://",
			               path, n->line, n->url, n->name);
		for (k = 0; k < n->nlabels; k++) {
			if (planjson_name_ok(n->labels[k].key, ".-") &&
			    !planjson_has_control(n->labels[k].value))
				continue;
			return err_set(ps->e, -EINVAL, ERR_INVALID_NODES,
			               "%s:%d: label '%s' of node %s: a label key is letters, "
			               "digits, '.', '-' or '_', and its value has no control "
			               "character",
			               path, n->line, n->labels[k].key, n->name);
		}
	}
	return 0;
}

/* The checked nodes of l appended to the plan's (their strings moved, not copied); a node of
 * several devices ("sdb,sdc") becomes a member per device. */
static void list_append(struct plan *p, struct nodelist *l)
{
	const char *devs[PLAN_DEVICES_MAX];
	char why[200];
	int i, k, cap, ndev;

	cap = p->nnodes + l->n;
	p->nodes = xrealloc(p->nodes, (size_t)cap * sizeof(*p->nodes));
	for (i = 0; i < l->n; i++) {
		int first = p->nnodes;
		struct plan_node *pn = node_add(p, &cap);
		struct nodelist_node *n = &l->nodes[i];

		pn->name = n->name;
		pn->url = n->url;
		while (strlen(pn->url) > 8 && pn->url[strlen(pn->url) - 1] == '/')
			pn->url[strlen(pn->url) - 1] = '\0';
		pn->device = n->device;
		pn->token_file = n->token_file;
		n->name = n->url = n->device = n->token_file = NULL;
		if (n->nlabels)
			pn->labels = xcalloc((size_t)n->nlabels, sizeof(*pn->labels));
		for (k = 0; k < n->nlabels; k++) {
			pn->labels[k].key = n->labels[k].key;
			pn->labels[k].value = n->labels[k].value;
			n->labels[k].key = n->labels[k].value = NULL;
		}
		pn->nlabels = n->nlabels;
		if (strchr(pn->device, ',')) { /* "sdb,sdc": a member per device */
			char *list = xstrdup(pn->device), *host = xstrdup(pn->name);

			device_list_split(list, NULL, devs, &ndev, why, sizeof(why));
			node_members(p, &cap, first, host, devs, ndev);
			free(host);
			free(list);
		}
	}
}

/* "nodes_from": a file name, or {"file", "format", "group", "device", "port", "scheme",
 * "token_file"}; relative paths against the plan's directory. ps->nodes_from (the command
 * line's) replaces the file. The nodes are appended to the plan's. */
int plan_parse_node_list(struct parser *ps, json_t *v, const char *dir)
{
	struct nodelist_opts o = { 0 };
	struct nodelist l = { 0 };
	struct buf text = BUF_INIT;
	const char *file = NULL;
	char *path = NULL, *fdir = NULL, *tf = NULL;
	int r;

	r = list_opts_take(ps, v, dir, &o, &file, &tf);
	if (r <= 0)
		goto out;
	if (file && !*file) {
		r = fail(ps, "nodes_from", "must not be empty");
		goto out;
	}
	path = ps->nodes_from             ? xstrdup(ps->nodes_from)
	       : (file[0] == '/' || !dir) ? xstrdup(file)
	                                  : xasprintf("%s/%s", dir, file);
	r = buf_read_file(&text, path, 16 << 20);
	if (r < 0) {
		r = err_set(ps->e, r, ERR_INVALID_PLAN, "nodes_from: cannot read '%s': %s", path,
		            strerror(-r));
		goto out;
	}
	fdir = xstrdup(path);
	r = nodelist_parse(text.data, path, dirname(fdir), &o, &l, ps->e);
	if (r < 0 || (r = list_check(ps, &l, path)) < 0)
		goto out;
	list_append(ps->p, &l);
	r = 0;
out:
	nodelist_release(&l);
	buf_release(&text);
	free(path);
	free(fdir);
	free(tf);
	return r;
}

/* A token file's path for the stored plan: absolute and without "..", so that it names the
 * same file from any directory and whatever became of the list's (NULL: leave it as is). */
static char *token_path_abs(const char *path)
{
	char buf[PATH_MAX], *dir, *base, *out = NULL;

	if (realpath(path, buf))
		return xstrdup(buf);
	/* Not there (yet): its directory resolved, or the current directory put before it. */
	dir = xstrdup(path);
	base = xstrdup(path);
	if (realpath(dirname(dir), buf))
		out = xasprintf("%s/%s", buf, basename(base));
	else if (path[0] != '/' && getcwd(buf, sizeof(buf)))
		out = xasprintf("%s/%s", buf, path);
	free(dir);
	free(base);
	return out;
}

/* The plan's "nodes" as read, for the stored plan: a plan whose nodes came from a node list
 * is kept with the list's nodes written out (and without "nodes_from"), so that it reads
 * back without the file. Their token files are written as absolute paths: a list's are
 * relative to the current directory (--nodes-from) or to a plan directory given relative,
 * and a stored plan is read back against the plan's absolute directory (rollout --resume). */
void plan_nodes_json_set(json_t *root, const struct plan *p)
{
	json_t *arr = json_array();
	int i;

	for (i = 0; i < p->nnodes; i++) {
		const struct plan_node *n = &p->nodes[i];
		json_t *o =
		        json_pack("{s:s, s:s}", "name", n->host ? n->host : n->name, "url", n->url);
		int k;

		if (n->host) { /* the members of one node of several devices, as it was given */
			json_t *devs = json_array();

			json_array_append_new(devs, json_string(n->device));
			while (i + 1 < p->nnodes && p->nodes[i + 1].host &&
			       !strcmp(p->nodes[i + 1].host, n->host))
				json_array_append_new(devs, json_string(p->nodes[++i].device));
			json_object_set_new(o, "devices", devs);
		} else {
			json_object_set_new(o, "device", json_string(n->device));
		}

		if (n->token_file) {
			char *tf = token_path_abs(n->token_file);

			json_object_set_new(o, "token_file", json_string(tf ? tf : n->token_file));
			free(tf);
		}
		if (n->nlabels) {
			json_t *l = json_object();

			for (k = 0; k < n->nlabels; k++)
				json_object_set_new(l, n->labels[k].key,
				                    json_string(n->labels[k].value));
			json_object_set_new(o, "labels", l);
		}
		json_array_append_new(arr, o);
	}
	json_object_set_new(root, "nodes", arr);
	json_object_del(root, "nodes_from");
}

/* Does some node carry label key? */
static bool some_node_label(const struct plan *p, const char *key)
{
	int i;

	for (i = 0; i < p->nnodes; i++)
		if (plan_node_label(&p->nodes[i], key))
			return true;
	return false;
}

/* Why s cannot be key n of p's cohort_by (0 when it can: an identity field, label.KEY of a
 * node label, or KEY of a node label that is no identity field, not given before). */
static int cohort_key_check(const struct plan *p, const char *s, int n, char *why, size_t len)
{
	const char *label = !strncmp(s, "label.", 6) ? s + 6 : NULL;
	int j;

	if (!planjson_name_ok(s, ".-"))
		snprintf(why, len, "expected an identity field or a node label name");
	else if (!label && identity_field_parse(s) < 0 && !some_node_label(p, s))
		snprintf(
		        why, len,
		        "'%s' is neither an identity field (vendor, model, firmware, serial, wwid, "
		        "transport, rotational, logical_block_bytes, physical_block_bytes, "
		        "size_bytes, kernel, machine, hostname) nor a label of any node "
		        "(nodes[].labels)",
		        s);
	else if (label && !some_node_label(p, label))
		snprintf(why, len, "no node has the label '%s' (nodes[].labels)", label);
	else if (n >= PLAN_COHORT_BY_MAX)
		snprintf(why, len, "at most %d keys", PLAN_COHORT_BY_MAX);
	else
		for (j = 0, why[0] = '\0'; j < n && !why[0]; j++)
			if (!strcmp(p->cohort_by[j], s))
				snprintf(why, len, "'%s' is given twice", s);
	return why[0] ? -EINVAL : 0;
}

/* cohort_by: identity fields and node labels, each once; ["model", "firmware"] by default. */
int plan_parse_cohort_by(struct parser *ps, json_t *v)
{
	struct plan *p = ps->p;
	char path[64], why[400];
	json_t *k;
	size_t i;

	if (!v) {
		p->ncohort_by = 2;
		snprintf(p->cohort_by[0], PARAM_NAME_MAX, "%s", identity_field_names[IDF_MODEL]);
		snprintf(p->cohort_by[1], PARAM_NAME_MAX, "%s", identity_field_names[IDF_FIRMWARE]);
		return 0;
	}
	if (!json_is_array(v))
		return fail(ps, "cohort_by", "expected an array of identity fields or node labels");
	if (json_array_size(v) > PLAN_COHORT_BY_MAX)
		return fail(ps, "cohort_by", "at most %d keys", PLAN_COHORT_BY_MAX);
	json_array_foreach(v, i, k)
	{
		snprintf(path, sizeof(path), "cohort_by[%zu]", i);
		if (!json_is_string(k))
			return fail(ps, path, "expected an identity field or a node label name");
		if (cohort_key_check(p, json_string_value(k), p->ncohort_by, why, sizeof(why)))
			return fail(ps, path, "%s", why);
		snprintf(p->cohort_by[p->ncohort_by++], PARAM_NAME_MAX, "%s", json_string_value(k));
	}
	return 0;
}

int plan_cohort_by_set(struct plan *p, const char *list, struct err *e)
{
	struct plan t = { .nnodes = p->nnodes, .nodes = p->nodes };
	char key[PARAM_NAME_MAX + 1], why[400];
	const char *at = list, *end;
	size_t n;

	while (*at) {
		end = strchr(at, ',');
		n = end ? (size_t)(end - at) : strlen(at);
		while (n && *at == ' ')
			at++, n--;
		while (n && at[n - 1] == ' ')
			n--;
		if (n == 0 || n > PARAM_NAME_MAX - 1)
			return err_set(e, -EINVAL, ERR_BAD_OPTION,
			               "--cohort-by: expected names separated by commas");
		snprintf(key, sizeof(key), "%.*s", (int)n, at);
		if (cohort_key_check(&t, key, t.ncohort_by, why, sizeof(why)))
			return err_set(e, -EINVAL, ERR_BAD_OPTION, "--cohort-by: %s", why);
		snprintf(t.cohort_by[t.ncohort_by++], PARAM_NAME_MAX, "%s", key);
		if (!end)
			break;
		at = end + 1;
	}
	memcpy(p->cohort_by, t.cohort_by, sizeof(p->cohort_by));
	p->ncohort_by = t.ncohort_by;
	return 0;
}

int plan_tokens_load(struct plan *p, struct err *e)
{
	const char *env = getenv("FLEETTUNE_TOKEN");
	int i, rc = 0;

	for (i = 0; i < p->nnodes; i++) {
		struct plan_node *n = &p->nodes[i];
		struct buf b = BUF_INIT;

		if (n->token)
			continue;
		if (n->token_file) {
			/* At most a little more than a token: a token_file pointing at another
			 * file (/etc/shadow) is refused, and nothing of it is sent or shown. */
			rc = buf_read_file(&b, n->token_file, PLAN_TOKEN_FILE_MAX);
			if (rc < 0) {
				buf_release(&b);
				return err_set(e, rc, ERR_TOKEN_UNREADABLE,
				               "%s: cannot read token_file '%s': %s%s", n->name,
				               n->token_file, strerror(-rc),
				               rc == -EFBIG ? " (a token file holds one token)"
				                            : "");
			}
			while (b.len && (b.data[b.len - 1] == '\n' || b.data[b.len - 1] == '\r' ||
			                 b.data[b.len - 1] == ' '))
				b.data[--b.len] = '\0';
			if (token_problem(b.data ? b.data : "")) {
				rc = err_set(e, -EINVAL, ERR_TOKEN_INVALID,
				             "%s: token_file '%s' does not hold a token: it %s",
				             n->name, n->token_file,
				             token_problem(b.data ? b.data : ""));
				buf_release(&b);
				return rc;
			}
			n->token = buf_detach(&b, NULL);
		} else if (env && *env) {
			if (token_problem(env))
				return err_set(e, -EINVAL, ERR_TOKEN_INVALID,
				               "%s: FLEETTUNE_TOKEN %s", n->name,
				               token_problem(env));
			n->token = xstrdup(env);
		} else {
			return err_set(e, -ENOENT, ERR_TOKEN_MISSING,
			               "%s: no token (set nodes[%d].token_file, nodes[%d].token or "
			               "FLEETTUNE_TOKEN)",
			               n->name, i, i);
		}
	}
	return rc;
}
