/* nodelist_yaml.c -- the YAML that Ansible inventories are written in, read into the inventory
 * model: block mappings by indentation, plain and quoted scalars, {} and flow mappings of
 * scalars, comments; lists, block scalars, anchors and aliases only as values nobody reads. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "plan/nodelist_priv.h"
#include "xmalloc.h"
#include "banned.h"

/* One significant line: its indentation, its number, and its text with the comment and
 * trailing blanks gone. */
struct yline {
	int indent;
	int line;
	char *text;
};

enum ykind { Y_NULL, Y_SCALAR, Y_MAP, Y_OPAQUE };

/* A parsed value. Y_OPAQUE: a list, a block scalar, an alias, a nested flow collection. */
struct ynode {
	enum ykind kind;
	int line;
	char *scalar;
	int n, cap;
	char **keys;
	int *key_lines;
	struct ynode **vals;
};

struct yreader {
	const char *file;
	struct yline *lines;
	int n, pos;
	struct err *e;
};

static void ynode_free(struct ynode *y)
{
	int i;

	if (!y)
		return;
	for (i = 0; i < y->n; i++) {
		free(y->keys[i]);
		ynode_free(y->vals[i]);
	}
	free(y->keys);
	free(y->key_lines);
	free(y->vals);
	free(y->scalar);
	free(y);
}

static struct ynode *ynode_new(enum ykind kind, int line)
{
	struct ynode *y = xcalloc(1, sizeof(*y));

	y->kind = kind;
	y->line = line;
	return y;
}

static void ymap_add(struct ynode *m, char *key, int line, struct ynode *val)
{
	if (m->n == m->cap) {
		int cap = m->cap;

		m->keys = xgrow(m->keys, &cap, m->n + 1, sizeof(*m->keys));
		cap = m->cap;
		m->key_lines = xgrow(m->key_lines, &cap, m->n + 1, sizeof(*m->key_lines));
		m->vals = xgrow(m->vals, &m->cap, m->n + 1, sizeof(*m->vals));
	}
	m->keys[m->n] = key;
	m->key_lines[m->n] = line;
	m->vals[m->n] = val;
	m->n++;
}

/* Where a comment starts in s ('#' at the start or after a blank, outside quotes), or the end. */
static size_t comment_at(const char *s)
{
	char q = 0;
	size_t i;

	for (i = 0; s[i]; i++) {
		if (q) {
			if (s[i] == q)
				q = 0;
		} else if (s[i] == '"' || s[i] == '\'') {
			if (i == 0 || s[i - 1] == ' ' || s[i - 1] == ':' || s[i - 1] == '{' ||
			    s[i - 1] == ',' || s[i - 1] == '[')
				q = s[i];
		} else if (s[i] == '#' && (i == 0 || s[i - 1] == ' ' || s[i - 1] == '\t')) {
			return i;
		}
	}
	return i;
}

/* Split text into significant lines. */
static int ylines_split(struct yreader *r, const char *text)
{
	const char *p = text;
	int lineno = 0, cap = 0, docs = 0;

	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p), cut;
		char *s = xstrndup(p, len);
		int indent = 0;

		lineno++;
		p = nl ? nl + 1 : p + len;
		while (s[indent] == ' ')
			indent++;
		if (s[indent] == '\t') {
			free(s);
			return inv_fail(r->e, r->file, lineno,
			                "a tab in the indentation (YAML indents "
			                "with spaces)");
		}
		cut = comment_at(s);
		s[cut] = '\0';
		while (cut > 0 && (s[cut - 1] == ' ' || s[cut - 1] == '\t' || s[cut - 1] == '\r'))
			s[--cut] = '\0';
		if (!s[indent] || (indent == 0 && !strncmp(s, "%", 1))) {
			free(s);
			continue;
		}
		if (indent == 0 && (!strcmp(s, "---") || !strncmp(s, "--- ", 4))) {
			free(s);
			if (++docs > 1 || r->n > 0)
				return inv_fail(r->e, r->file, lineno,
				                "a second YAML document: an inventory is one");
			continue;
		}
		if (indent == 0 && !strcmp(s, "...")) {
			free(s);
			break;
		}
		r->lines = xgrow(r->lines, &cap, r->n + 1, sizeof(*r->lines));
		r->lines[r->n].indent = indent;
		r->lines[r->n].line = lineno;
		r->lines[r->n].text = xstrdup(s + indent);
		r->n++;
		free(s);
	}
	return 0;
}

/* A scalar as written: "..." (with \" \\ \n \t), '...' (with ''), or plain. -EINVAL when a
 * quote is not closed on the line. *rest is set past it. Caller frees *out. */
static int yscalar(const char *s, char **out, const char **rest)
{
	struct buf b = BUF_INIT;
	char q = s[0];
	const char *p;

	if (q != '"' && q != '\'') {
		*out = xstrdup(s);
		*rest = s + strlen(s);
		return 0;
	}
	buf_puts(&b, "");
	for (p = s + 1; *p; p++) {
		if (q == '\'' && p[0] == '\'' && p[1] == '\'') {
			buf_append(&b, "'", 1);
			p++;
		} else if (*p == q) {
			break;
		} else if (q == '"' && *p == '\\' && p[1]) {
			p++;
			buf_append(&b, *p == 'n' ? "\n" : *p == 't' ? "\t" : p, 1);
		} else {
			buf_append(&b, p, 1);
		}
	}
	if (*p != q) {
		buf_release(&b);
		return -EINVAL;
	}
	*out = buf_detach(&b, NULL);
	*rest = p + 1;
	return 0;
}

/* "key: rest" -> key (unquoted) and the value text after ": ". -EINVAL when the line has no
 * key. */
static int ykey(const char *s, char **key, const char **value)
{
	const char *p;

	if (s[0] == '"' || s[0] == '\'') {
		if (yscalar(s, key, &p))
			return -EINVAL;
		if (*p != ':' || (p[1] && p[1] != ' ')) {
			free(*key);
			return -EINVAL;
		}
	} else {
		for (p = s; *p; p++)
			if (*p == ':' && (!p[1] || p[1] == ' '))
				break;
		if (!*p || p == s)
			return -EINVAL;
		*key = xstrndup(s, (size_t)(p - s));
	}
	p++;
	while (*p == ' ')
		p++;
	*value = p;
	return 0;
}

/* Skip the lines of a value nobody reads: those indented deeper than indent, and a list's
 * "- " lines at indent itself. */
static void yskip(struct yreader *r, int indent)
{
	while (r->pos < r->n &&
	       (r->lines[r->pos].indent > indent ||
	        (r->lines[r->pos].indent == indent && r->lines[r->pos].text[0] == '-' &&
	         (r->lines[r->pos].text[1] == ' ' || !r->lines[r->pos].text[1]))))
		r->pos++;
}

/* A flow mapping of scalars, "{a: 1, b: 'x'}", or NULL if it holds anything else. */
static struct ynode *yflow_map(const char *s, int line)
{
	struct ynode *m = ynode_new(Y_MAP, line);
	const char *p = s + 1;

	for (;;) {
		char *key = NULL, *val = NULL;
		const char *after;
		size_t k;

		while (*p == ' ')
			p++;
		if (*p == '}' && !p[1])
			return m;
		if (*p == '"' || *p == '\'') {
			if (yscalar(p, &key, &after))
				goto bad;
			p = after;
		} else {
			k = strcspn(p, ":,{}[]");
			key = xstrndup(p, k);
			while (k && key[k - 1] == ' ')
				key[--k] = '\0';
			p += strcspn(p, ":,{}[]");
		}
		if (*p != ':') {
			free(key);
			goto bad;
		}
		p++;
		while (*p == ' ')
			p++;
		if (*p == '"' || *p == '\'') {
			if (yscalar(p, &val, &after)) {
				free(key);
				goto bad;
			}
			p = after;
		} else {
			k = strcspn(p, ",{}[]");
			if (p[k] == '{' || p[k] == '[') {
				free(key);
				goto bad;
			}
			val = xstrndup(p, k);
			while (k && (val[k - 1] == ' '))
				val[--k] = '\0';
			p += k;
		}
		while (*p == ' ')
			p++;
		{
			struct ynode *v = ynode_new(*val ? Y_SCALAR : Y_NULL, line);

			v->scalar = val;
			ymap_add(m, key, line, v);
		}
		if (*p == ',') {
			p++;
			continue;
		}
		if (*p == '}' && !p[1])
			return m;
		goto bad;
	}
bad:
	ynode_free(m);
	return NULL;
}

static int ymap_read(struct yreader *r, int indent, struct ynode *m);

/* The value after "key:" at indent: inline text, or the lines below. */
static int yvalue_read(struct yreader *r, int indent, const char *text, int line,
                       struct ynode **out)
{
	const char *rest;
	int rc;

	*out = NULL;
	/* Tags are ignored; an anchor names the value, which is read as usual. */
	while (*text == '!' || *text == '&') {
		text += strcspn(text, " ");
		while (*text == ' ')
			text++;
	}
	if (!*text) {
		const struct yline *next = r->pos < r->n ? &r->lines[r->pos] : NULL;

		if (next && next->text[0] == '-' && (next->text[1] == ' ' || !next->text[1]) &&
		    next->indent >= indent) {
			*out = ynode_new(Y_OPAQUE, line); /* a block list */
			yskip(r, indent);
			return 0;
		}
		if (!next || next->indent <= indent) {
			*out = ynode_new(Y_NULL, line);
			return 0;
		}
		*out = ynode_new(Y_MAP, next->line);
		return ymap_read(r, next->indent, *out);
	}
	if (*text == '|' || *text == '>' || *text == '*' || *text == '[') {
		*out = ynode_new(Y_OPAQUE, line); /* block scalar, alias, flow list */
		if (*text != '*' && !(*text == '[' && text[strlen(text) - 1] == ']'))
			yskip(r, indent);
		return 0;
	}
	if (*text == '{') {
		*out = yflow_map(text, line);
		if (!*out) {
			*out = ynode_new(Y_OPAQUE, line);
			if (text[strlen(text) - 1] != '}')
				yskip(r, indent);
		}
		return 0;
	}
	*out = ynode_new(Y_SCALAR, line);
	rc = yscalar(text, &(*out)->scalar, &rest);
	if (rc)
		return inv_fail(r->e, r->file, line,
		                "a quoted value that does not end on its line");
	if (!strcmp((*out)->scalar, "~") || !strcmp((*out)->scalar, "null")) {
		free((*out)->scalar);
		(*out)->scalar = NULL;
		(*out)->kind = Y_NULL;
	}
	return 0;
}

/* The "key: value" lines at exactly indent, into m. */
static int ymap_read(struct yreader *r, int indent, struct ynode *m)
{
	while (r->pos < r->n && r->lines[r->pos].indent >= indent) {
		const struct yline *l = &r->lines[r->pos];
		const char *value;
		struct ynode *v;
		char *key;
		int rc;

		if (l->indent > indent)
			return inv_fail(r->e, r->file, l->line,
			                "indented more than the key above it");
		if (l->text[0] == '-' && (l->text[1] == ' ' || !l->text[1]))
			return inv_fail(
			        r->e, r->file, l->line,
			        "a list item where an inventory has a mapping (group: hosts, "
			        "vars, children)");
		if (ykey(l->text, &key, &value))
			return inv_fail(r->e, r->file, l->line,
			                "'%s': expected 'key:' or 'key: value'", l->text);
		r->pos++;
		rc = yvalue_read(r, indent, value, l->line, &v);
		if (rc) {
			free(key);
			ynode_free(v);
			return rc;
		}
		ymap_add(m, key, l->line, v);
	}
	return 0;
}

/* --- the inventory: groups of hosts, vars and children --- */

static int yvars_take(struct inventory *inv, struct inv_vars *vars, const struct ynode *y,
                      const char *what, struct err *e)
{
	int i;

	if (y->kind == Y_NULL)
		return 0;
	if (y->kind != Y_MAP)
		return inv_fail(e, inv->file, y->line, "the vars of %s: expected a mapping", what);
	for (i = 0; i < y->n; i++) {
		const struct ynode *v = y->vals[i];

		inv_var_set(vars, y->keys[i],
		            v->kind == Y_SCALAR ? v->scalar
		            : v->kind == Y_NULL ? ""
		                                : NULL,
		            y->key_lines[i]);
	}
	return 0;
}

static int ygroup_take(struct inventory *inv, const char *name, int line, const struct ynode *y,
                       int depth, struct err *e)
{
	int g = inv_group(inv, name, line), i, j, rc;
	char what[96];

	if (g < 0)
		return inv_fail(e, inv->file, line, "too many groups");
	if (depth > 64)
		return inv_fail(e, inv->file, line, "groups nested more than 64 deep");
	if (y->kind == Y_NULL)
		return 0;
	if (y->kind != Y_MAP)
		return inv_fail(e, inv->file, line,
		                "group '%s': expected a mapping (hosts, vars, "
		                "children)",
		                name);
	for (i = 0; i < y->n; i++) {
		const char *k = y->keys[i];
		const struct ynode *v = y->vals[i];

		if (!strcmp(k, "vars")) {
			snprintf(what, sizeof(what), "group '%s'", name);
			if ((rc = yvars_take(inv, &inv->groups[g].vars, v, what, e)))
				return rc;
		} else if (!strcmp(k, "hosts") || !strcmp(k, "children")) {
			if (v->kind == Y_NULL)
				continue;
			if (v->kind != Y_MAP)
				return inv_fail(e, inv->file, y->key_lines[i],
				                "the %s of group '%s': expected a mapping", k,
				                name);
			for (j = 0; j < v->n; j++) {
				const struct ynode *hv = v->vals[j];

				if (!strcmp(k, "children")) {
					int c = inv_group(inv, v->keys[j], v->key_lines[j]);

					if (c < 0)
						return inv_fail(e, inv->file, v->key_lines[j],
						                "too many groups");
					inv_child(inv, g, c);
					rc = ygroup_take(inv, v->keys[j], v->key_lines[j], hv,
					                 depth + 1, e);
				} else {
					struct inv_vars hvars = { 0 };

					snprintf(what, sizeof(what), "host '%s'", v->keys[j]);
					rc = yvars_take(inv, &hvars, hv, what, e);
					if (!rc)
						rc = inv_hosts_add(inv, v->keys[j], v->key_lines[j],
						                   g, hvars.v, hvars.n, e);
					inv_vars_release(&hvars);
				}
				if (rc)
					return rc;
			}
		} else {
			return inv_fail(e, inv->file, y->key_lines[i],
			                "'%s' in group '%s': a group has hosts, vars and children",
			                k, name);
		}
	}
	return 0;
}

int inv_yaml_read(struct inventory *inv, const char *text, struct err *e)
{
	struct yreader r = { .file = inv->file, .e = e };
	struct ynode *root = ynode_new(Y_MAP, 1);
	int rc, i;

	rc = ylines_split(&r, text);
	if (!rc && r.n && r.lines[0].indent > 0)
		rc = inv_fail(e, inv->file, r.lines[0].line, "the first key is indented");
	if (!rc)
		rc = ymap_read(&r, 0, root);
	if (!rc && r.pos < r.n)
		rc = inv_fail(e, inv->file, r.lines[r.pos].line, "unexpected text");
	for (i = 0; !rc && i < root->n; i++)
		rc = ygroup_take(inv, root->keys[i], root->key_lines[i], root->vals[i], 0, e);
	for (i = 0; i < r.n; i++)
		free(r.lines[i].text);
	free(r.lines);
	ynode_free(root);
	return rc;
}
