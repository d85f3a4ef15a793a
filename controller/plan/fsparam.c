/* fsparam.c -- fs.type, fs.mkfs, fs.mount: the filesystem of a configuration, mkfs's tokens,
 * and the compact display of mkfs option sets. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/fsparam.h"
#include "xmalloc.h"
#include "banned.h"

#define TOKENS_MAX 32
#define ITEMS_MAX 64

bool fsparam_is(const char *name)
{
	return !strcmp(name, FSPARAM_TYPE) || !strcmp(name, FSPARAM_MKFS) ||
	       !strcmp(name, FSPARAM_MOUNT);
}

void fsparam_device_config(const struct config *cfg, struct config *out)
{
	int i;

	out->n = 0;
	for (i = 0; i < cfg->n; i++)
		if (!fsparam_is(cfg->s[i].name))
			out->s[out->n++] = cfg->s[i];
}

bool fsparam_any(const struct config *cfg)
{
	int i;

	for (i = 0; i < cfg->n; i++)
		if (fsparam_is(cfg->s[i].name))
			return true;
	return false;
}

void fsparam_fs_of(const struct plan *p, const struct config *cfg, struct fsparam_fs *out)
{
	const struct setting *t = config_get(cfg, FSPARAM_TYPE), *m = config_get(cfg, FSPARAM_MKFS),
	                     *o = config_get(cfg, FSPARAM_MOUNT);

	memset(out, 0, sizeof(*out));
	out->present = p->has_fs || t || m || o;
	snprintf(out->type, sizeof(out->type), "%s", t ? t->value : p->fs_type);
	snprintf(out->mkfs, sizeof(out->mkfs), "%s", m ? m->value : p->fs_mkfs);
	snprintf(out->mount, sizeof(out->mount), "%s", o ? o->value : p->fs_mount);
}

bool fsparam_fs_equal(const struct fsparam_fs *a, const struct fsparam_fs *b)
{
	return a->present == b->present && !strcmp(a->type, b->type) && !strcmp(a->mkfs, b->mkfs) &&
	       !strcmp(a->mount, b->mount);
}

int fsparam_mkfs_tokens(const char *mkfs, char (*tok)[FSPARAM_TOKEN_LEN], int max)
{
	const char *p = mkfs;
	int n = 0;

	for (;;) {
		size_t len;

		p += strspn(p, " \t");
		if (!*p)
			return n;
		len = strcspn(p, " \t");
		if (n >= max || len >= 96)
			return -1;
		snprintf(tok[n++], 96, "%.*s", (int)len, p);
		p += len;
	}
}

void fsparam_run_of(const struct plan *p, const struct config *cfg, size_t label_max,
                    struct fsparam_run *out)
{
	const struct config *c = cfg ? cfg : &p->baseline;
	struct buf b = BUF_INIT;
	size_t cut;

	fsparam_device_config(c, &out->device);
	fsparam_fs_of(p, c, &out->fs);
	out->n_mkfs = fsparam_mkfs_tokens(out->fs.mkfs, out->mkfs_tok, FSPARAM_TOKENS_MAX);
	config_format(c, &b);
	if (label_max > sizeof(out->label))
		label_max = sizeof(out->label);
	if (b.len >= label_max && label_max > 4) {
		cut = label_max - 4;
		while (cut > 0 && b.data[cut] != ' ')
			cut--;
		b.len = cut;
		b.data[cut] = '\0';
		buf_puts(&b, " ...");
	}
	snprintf(out->label, sizeof(out->label), "%s", b.data ? b.data : "");
	buf_release(&b);
}

/* One option of an mkfs line: the flag, and one sub-option of its list ("su=64k": key "su")
 * or its plain value ("4096": key ""), or nothing ("-K"). */
struct item {
	char flag[96];
	char key[96];
	char text[96]; /* "su=64k", "4096", "" */
};

struct items {
	int n;
	struct item it[ITEMS_MAX];
};

static void items_add(struct items *l, const char *flag, const char *key, const char *text)
{
	if (l->n >= ITEMS_MAX)
		return;
	snprintf(l->it[l->n].flag, sizeof(l->it[0].flag), "%s", flag);
	snprintf(l->it[l->n].key, sizeof(l->it[0].key), "%s", key);
	snprintf(l->it[l->n].text, sizeof(l->it[0].text), "%s", text);
	l->n++;
}

/* Read an mkfs line into items. A flag's next token is its value unless it is a flag too; a
 * value with '=' is a comma list of sub-options. */
static void items_parse(const char *value, struct items *l)
{
	char tok[TOKENS_MAX][96];
	int n = fsparam_mkfs_tokens(value, tok, TOKENS_MAX), i;

	l->n = 0;
	if (n < 0) { /* not tokens the agent would take: one opaque item */
		items_add(l, value, "", "");
		return;
	}
	for (i = 0; i < n; i++) {
		const char *flag = tok[i], *v;

		if (flag[0] != '-' || i + 1 >= n || tok[i + 1][0] == '-') {
			items_add(l, flag, "", "");
			continue;
		}
		v = tok[++i];
		if (!strchr(v, '=')) {
			items_add(l, flag, "", v);
			continue;
		}
		while (*v) {
			size_t len = strcspn(v, ","), klen = strcspn(v, "=,");
			char key[96], text[96];

			snprintf(key, sizeof(key), "%.*s", (int)klen, v);
			snprintf(text, sizeof(text), "%.*s", (int)len, v);
			items_add(l, flag, key, text);
			v += len + (v[len] == ',');
		}
	}
}

static const struct item *items_find(const struct items *l, const char *flag, const char *key)
{
	int i;

	for (i = 0; i < l->n; i++)
		if (!strcmp(l->it[i].flag, flag) && !strcmp(l->it[i].key, key))
			return &l->it[i];
	return NULL;
}

/* Whether every list has the item it, word for word. */
static bool item_common(const struct items *all, int n, const struct item *it)
{
	int k;

	for (k = 0; k < n; k++) {
		const struct item *o = items_find(&all[k], it->flag, it->key);

		if (!o || strcmp(o->text, it->text))
			return false;
	}
	return true;
}

/* Append items of l (chosen by keep) grouped by flag: "-d su=64k,sw=7 -K". */
static void items_print(const struct items *l, const bool *keep, struct buf *out)
{
	bool done[ITEMS_MAX] = { false };
	int i, k;

	for (i = 0; i < l->n; i++) {
		bool first = true;

		if (!keep[i] || done[i])
			continue;
		buf_printf(out, "%s%s", out->len ? " " : "", l->it[i].flag);
		for (k = i; k < l->n; k++) {
			if (!keep[k] || done[k] || strcmp(l->it[k].flag, l->it[i].flag))
				continue;
			done[k] = true;
			if (l->it[k].text[0])
				buf_printf(out, "%s%s", first ? " " : ",", l->it[k].text);
			first = false;
		}
	}
}

void fsparam_mkfs_compact(const char *const *values, int n, int i, struct buf *out,
                          struct buf *common)
{
	struct items *all = xcalloc((size_t)n + 1, sizeof(*all)), absent;
	bool keep[ITEMS_MAX], any = false;
	int k, m;

	for (k = 0; k < n; k++)
		items_parse(values[k], &all[k]);
	if (common) {
		for (m = 0; m < all[0].n && n > 0; m++)
			keep[m] = item_common(all, n, &all[0].it[m]);
		if (n > 0)
			items_print(&all[0], keep, common);
	}
	for (m = 0; m < all[i].n; m++)
		any |= keep[m] = !item_common(all, n, &all[i].it[m]);
	if (!any) {
		bool same = true;

		for (k = 0; k < n; k++)
			same &= !strcmp(values[k], values[i]) || all[k].n == all[i].n;
		if (same) {
			buf_puts(out, values[i][0] ? values[i] : "defaults");
			goto out;
		}
	}
	items_print(&all[i], keep, out);
	/* What others set and this one leaves to mkfs: "-d su=default", "no -K". */
	absent.n = 0;
	for (k = 0; k < n; k++) {
		for (m = 0; m < all[k].n; m++) {
			const struct item *it = &all[k].it[m];
			char text[96];

			if (items_find(&all[i], it->flag, it->key))
				continue;
			snprintf(text, sizeof(text), "no %s", it->flag);
			if (it->key[0] ? items_find(&absent, it->flag, it->key) != NULL
			               : items_find(&absent, text, "") != NULL)
				continue;
			if (it->key[0]) {
				snprintf(text, sizeof(text), "%s=default", it->key);
				items_add(&absent, it->flag, it->key, text);
			} else {
				items_add(&absent, text, "", "");
			}
		}
	}
	for (m = 0; m < absent.n; m++)
		keep[m] = true;
	items_print(&absent, keep, out);
	if (!out->len)
		buf_puts(out, "defaults");
out:
	free(all);
}
