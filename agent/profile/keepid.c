/* keepid.c -- the keeper's identity look-ups: per device and medium, each field read once. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile/keepid.h"
#include "xmalloc.h"
#include "banned.h"

void keepid_init(struct keepid *c, const struct profile_ident_source *src)
{
	memset(c, 0, sizeof(*c));
	if (src)
		c->src = *src;
}

void keepid_release(struct keepid *c)
{
	free(c->e);
	c->e = NULL;
	c->n = c->cap = 0;
}

void keepid_rescan(struct keepid *c, const struct block_seen *seen, int n)
{
	struct keepid_entry *old = c->e;
	int i, j, n_old = c->n;

	/* One entry per device of the scan with a medium and a diskseq: the old one while the
	 * medium is the same, else an empty one (read when asked). */
	c->e = xcalloc((size_t)n + 1, sizeof(*c->e));
	c->cap = n + 1;
	c->n = 0;
	for (i = 0; i < n; i++) {
		struct keepid_entry *en = &c->e[c->n];

		if (!seen[i].has_seq || !seen[i].size_bytes ||
		    strlen(seen[i].name) >= sizeof(en->dev))
			continue;
		for (j = 0; j < n_old; j++)
			if (old[j].seq == seen[i].seq && !strcmp(old[j].dev, seen[i].name))
				break;
		if (j < n_old) {
			*en = old[j];
		} else {
			snprintf(en->dev, sizeof(en->dev), "%s", seen[i].name);
			en->seq = seen[i].seq;
		}
		c->n++;
	}
	free(old);
}

/* dev's entry, or NULL when the last scan gave nothing to tell its medium by. */
static struct keepid_entry *entry_get(struct keepid *c, const char *dev)
{
	int i;

	for (i = 0; i < c->n; i++)
		if (!strcmp(c->e[i].dev, dev))
			return &c->e[i];
	return NULL;
}

/* The cached source's read: the entry's field, else read through and remembered. */
static int cached_read(void *cls, const char *dev, enum profile_ident f, char *out, size_t len)
{
	struct keepid *c = cls;
	struct keepid_entry *en = entry_get(c, dev);
	unsigned bit = 1u << f;
	int rc;

	if (!en) {
		c->reads++;
		return c->src.read(c->src.cls, dev, f, out, len);
	}
	if (!(en->have & bit) && !(en->absent & bit)) {
		c->reads++;
		rc = c->src.read(c->src.cls, dev, f, en->v[f], sizeof(en->v[f]));
		if (rc < 0)
			en->absent |= bit;
		else
			en->have |= bit;
	}
	if (en->absent & bit)
		return -ENOENT;
	if (strlen(en->v[f]) >= len)
		return -ENAMETOOLONG;
	snprintf(out, len, "%s", en->v[f]);
	return 0;
}

struct profile_ident_source keepid_source(struct keepid *c)
{
	struct profile_ident_source s = { c->src.read ? cached_read : NULL, c };

	return s;
}
