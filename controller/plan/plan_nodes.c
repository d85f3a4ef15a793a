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
		return err_set(e, -EINVAL, "invalid_nodes", "node set: expected a JSON array");
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

int plan_parse_nodes(struct parser *ps, json_t *arr, const char *dir)
{
	static const char *const keys[] = { "name",  "url",    "device", "token_file",
		                            "token", "labels", NULL };
	struct plan *p = ps->p;
	size_t i;
	char path[64];
	json_t *n;
	int r;

	if (!json_is_array(arr))
		return fail(ps, "nodes", "expected an array");
	if (json_array_size(arr) == 0)
		return fail(ps, "nodes", "at least one node is required");
	p->nodes = xcalloc(json_array_size(arr), sizeof(*p->nodes));
	json_array_foreach(arr, i, n)
	{
		struct plan_node *pn = &p->nodes[i];
		const char *name = NULL, *url = NULL, *dev = NULL, *tf = NULL, *tok = NULL;

		p->nnodes = (int)i + 1;
		snprintf(path, sizeof(path), "nodes[%zu]", i);
		if (!json_is_object(n))
			return fail(ps, path, "expected an object");
		if ((r = planjson_check_keys(ps, n, path, keys)) < 0)
			return r;
		if ((r = planjson_get_str(ps, n, "name", path, true, &name)) < 0 ||
		    (r = planjson_get_str(ps, n, "url", path, true, &url)) < 0 ||
		    (r = planjson_get_str(ps, n, "device", path, true, &dev)) < 0 ||
		    (r = planjson_get_str(ps, n, "token_file", path, false, &tf)) < 0 ||
		    (r = planjson_get_str(ps, n, "token", path, false, &tok)) < 0)
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
		if (!planjson_name_ok(dev, "-")) {
			snprintf(path, sizeof(path), "nodes[%zu].device", i);
			return fail(ps, path, "'%s' is not a block device name (e.g. sda, loop0)",
			            dev);
		}
		if (tok && token_problem(tok)) {
			snprintf(path, sizeof(path), "nodes[%zu].token", i);
			return fail(ps, path, "%s", token_problem(tok));
		}
		pn->name = xstrdup(name);
		pn->url = xstrdup(url);
		while (strlen(pn->url) > 8 && pn->url[strlen(pn->url) - 1] == '/')
			pn->url[strlen(pn->url) - 1] = '\0';
		pn->device = xstrdup(dev);
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
	}
	return 0;
}

/* "nodes_from": a file name, or {"file", "format", "group", "device", "port", "scheme",
 * "token_file"}; relative paths against the plan's directory. ps->nodes_from (the command
 * line's) replaces the file. The nodes are appended to the plan's. */
int plan_parse_node_list(struct parser *ps, json_t *v, const char *dir)
{
	static const char *const keys[] = { "file", "format", "group",      "device",
		                            "port", "scheme", "token_file", NULL };
	struct nodelist_opts o = { 0 };
	struct nodelist l = { 0 };
	struct plan *p = ps->p;
	struct buf text = BUF_INIT;
	const char *file = NULL, *s;
	char *path = NULL, *fdir = NULL, *tf = NULL;
	json_t *port;
	int r, i, k;

	if (v && json_is_string(v)) {
		file = json_string_value(v);
	} else if (v && json_is_object(v)) {
		if ((r = planjson_check_keys(ps, v, "nodes_from", keys)) < 0 ||
		    (r = planjson_get_str(ps, v, "file", "nodes_from", !ps->nodes_from, &file)) < 0)
			return r;
		if ((r = planjson_get_str(ps, v, "format", "nodes_from", false, &s)) < 0)
			return r;
		if (r == 1 && nodelist_format_parse(s, &o.format))
			return fail(ps, "nodes_from.format",
			            "'%s' is not one of auto, hosts, ansible-ini, ansible-yaml, "
			            "kubectl",
			            s);
		if ((r = planjson_get_str(ps, v, "group", "nodes_from", false, &o.group)) < 0 ||
		    (r = planjson_get_str(ps, v, "device", "nodes_from", false, &o.device)) < 0)
			return r;
		if (o.device && !planjson_name_ok(o.device, "-"))
			return fail(ps, "nodes_from.device",
			            "'%s' is not a block device name (e.g. sda, loop0)", o.device);
		if ((r = planjson_get_str(ps, v, "scheme", "nodes_from", false, &o.scheme)) < 0)
			return r;
		if (o.scheme && strcmp(o.scheme, "http") && strcmp(o.scheme, "https"))
			return fail(ps, "nodes_from.scheme", "'%s' is not one of http, https",
			            o.scheme);
		port = json_object_get(v, "port");
		if (port && (!json_is_integer(port) || json_integer_value(port) < 1 ||
		             json_integer_value(port) > 65535))
			return fail(ps, "nodes_from.port", "expected a port number (1-65535)");
		o.port = port ? (int)json_integer_value(port) : 0;
		if ((r = planjson_get_str(ps, v, "token_file", "nodes_from", false, &s)) < 0)
			return r;
		if (r == 1)
			o.token_file = tf =
			        (s[0] == '/' || !dir) ? xstrdup(s) : xasprintf("%s/%s", dir, s);
	} else if (v) {
		return fail(ps, "nodes_from", "expected a file name or an object");
	} else if (!ps->nodes_from) {
		return 0;
	}
	if (file && !*file)
		return fail(ps, "nodes_from", "must not be empty");
	path = ps->nodes_from             ? xstrdup(ps->nodes_from)
	       : (file[0] == '/' || !dir) ? xstrdup(file)
	                                  : xasprintf("%s/%s", dir, file);
	r = buf_read_file(&text, path, 16 << 20);
	if (r < 0) {
		r = err_set(ps->e, r, "invalid_plan", "nodes_from: cannot read '%s': %s", path,
		            strerror(-r));
		goto out;
	}
	fdir = xstrdup(path);
	r = nodelist_parse(text.data, path, dirname(fdir), &o, &l, ps->e);
	if (r < 0)
		goto out;
	for (i = 0; i < l.n; i++) {
		const struct nodelist_node *n = &l.nodes[i];

		if (!planjson_name_ok(n->name, ".-")) {
			r = err_set(
			        ps->e, -EINVAL, "invalid_nodes",
			        "%s:%d: node name '%s' must be letters, digits, '.', '-' or '_'",
			        path, n->line, n->name);
			goto out;
		}
		if (!planjson_name_ok(n->device, "-")) {
			r = err_set(ps->e, -EINVAL, "invalid_nodes",
			            "%s:%d: '%s' (node %s) is not a block device name (e.g. sda, "
			            "loop0)",
			            path, n->line, n->device, n->name);
			goto out;
		}
		if (strncmp(n->url, "http://", 7) && strncmp(n->url, "https://", 8)) {
			r = err_set(ps->e, -EINVAL, "invalid_nodes",
			            "%s:%d: '%s' (node %s) must start with http:// or https://",
			            path, n->line, n->url, n->name);
			goto out;
		}
		for (k = 0; k < n->nlabels; k++) {
			if (planjson_name_ok(n->labels[k].key, ".-") &&
			    !planjson_has_control(n->labels[k].value))
				continue;
			r = err_set(ps->e, -EINVAL, "invalid_nodes",
			            "%s:%d: label '%s' of node %s: a label key is letters, digits, "
			            "'.', '-' or '_', and its value has no control character",
			            path, n->line, n->labels[k].key, n->name);
			goto out;
		}
	}
	p->nodes = xrealloc(p->nodes, ((size_t)p->nnodes + (size_t)l.n) * sizeof(*p->nodes));
	for (i = 0; i < l.n; i++) {
		struct plan_node *pn = &p->nodes[p->nnodes++];
		struct nodelist_node *n = &l.nodes[i];

		memset(pn, 0, sizeof(*pn));
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
	}
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
		json_t *o = json_pack("{s:s, s:s, s:s}", "name", n->name, "url", n->url, "device",
		                      n->device);
		int k;

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
			return err_set(e, -EINVAL, "bad_option",
			               "--cohort-by: expected names separated by commas");
		snprintf(key, sizeof(key), "%.*s", (int)n, at);
		if (cohort_key_check(&t, key, t.ncohort_by, why, sizeof(why)))
			return err_set(e, -EINVAL, "bad_option", "--cohort-by: %s", why);
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
				return err_set(e, rc, "token_unreadable",
				               "%s: cannot read token_file '%s': %s%s", n->name,
				               n->token_file, strerror(-rc),
				               rc == -EFBIG ? " (a token file holds one token)"
				                            : "");
			}
			while (b.len && (b.data[b.len - 1] == '\n' || b.data[b.len - 1] == '\r' ||
			                 b.data[b.len - 1] == ' '))
				b.data[--b.len] = '\0';
			if (token_problem(b.data ? b.data : "")) {
				rc = err_set(e, -EINVAL, "token_invalid",
				             "%s: token_file '%s' does not hold a token: it %s",
				             n->name, n->token_file,
				             token_problem(b.data ? b.data : ""));
				buf_release(&b);
				return rc;
			}
			n->token = buf_detach(&b, NULL);
		} else if (env && *env) {
			if (token_problem(env))
				return err_set(e, -EINVAL, "token_invalid",
				               "%s: FLEETTUNE_TOKEN %s", n->name,
				               token_problem(env));
			n->token = xstrdup(env);
		} else {
			return err_set(e, -ENOENT, "token_missing",
			               "%s: no token (set nodes[%d].token_file, nodes[%d].token or "
			               "FLEETTUNE_TOKEN)",
			               n->name, i, i);
		}
	}
	return rc;
}
