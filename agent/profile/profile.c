/* profile.c -- profile definitions: names, matches (device names, patterns, identity), checks. */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile/profile.h"
#include "utf8.h"
#include "xmalloc.h"
#include "banned.h"

const char *const profile_ident_names[IDENT_COUNT] = {
	"vendor", "model", "firmware", "serial", "wwid", "transport",
};

void profile_init(struct profile *p)
{
	memset(p, 0, sizeof(*p));
	p->enforce = true;
}

void profile_release(struct profile *p)
{
	if (!p)
		return;
	tune_set_release(&p->params);
}

void profile_copy(struct profile *dst, const struct profile *src)
{
	profile_release(dst);
	*dst = *src;
	dst->params.items = NULL;
	if (src->params.n) {
		dst->params.items = xcalloc((size_t)src->params.n, sizeof(*dst->params.items));
		memcpy(dst->params.items, src->params.items,
		       (size_t)src->params.n * sizeof(*dst->params.items));
	}
}

bool profile_is_pattern(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

/* A pattern: the characters of a device name plus * ? [ ] ! and no "..". */
static bool pattern_ok(const char *s)
{
	const char *c;

	if (!*s || strlen(s) >= SYSFS_NAME_MAX || strstr(s, ".."))
		return false;
	for (c = s; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		      (*c >= '0' && *c <= '9') || strchr("_-:.*?[]!", *c)))
			return false;
	return true;
}

/* setra and read_ahead_kb set the same thing. */
static bool same_param(const char *a, const char *b)
{
	if (!strcmp(a, "setra"))
		a = "read_ahead_kb";
	if (!strcmp(b, "setra"))
		b = "read_ahead_kb";
	return !strcmp(a, b);
}

const struct tune_item *profile_param(const struct profile *p, const char *name)
{
	int i;

	for (i = 0; i < p->params.n; i++)
		if (same_param(p->params.items[i].name, name))
			return &p->params.items[i];
	return NULL;
}

static int match_check(const struct profile_match *m, const struct profile_ident_source *src,
                       struct err *e)
{
	int i, f, parts = m->n_devices > 0;

	for (i = 0; i < m->n_devices; i++) {
		const char *d = m->devices[i];

		if (profile_is_pattern(d) ? !pattern_ok(d) : !sysfs_device_name_ok(d))
			return err_set(e, -EINVAL, ERR_BAD_REQUEST,
			               "match.devices[%d]: '%.*s' is not a device name or pattern",
			               i, utf8_cut(d, 64), d);
	}
	for (f = 0; f < IDENT_COUNT; f++) {
		if (!m->n_values[f])
			continue;
		if (!src || !src->read)
			return err_set(
			        e, -EINVAL, ERR_UNSUPPORTED_MATCH,
			        "match.%s: this agent does not read device identity (vendor, "
			        "model, firmware, serial, wwid, transport) yet; match by "
			        "devices",
			        profile_ident_names[f]);
		parts++;
	}
	if (!parts)
		return err_set(e, -EINVAL, ERR_BAD_REQUEST,
		               "match: give devices (names or patterns) or an identity field");
	return 0;
}

int profile_check(const struct profile *p, const struct profile_ident_source *src, struct err *e)
{
	bool sched = false, iosched = false;
	int i, j, rc;

	if (!profile_name_ok(p->name))
		return err_set(e, -EINVAL, ERR_BAD_REQUEST,
		               "name: '%.*s' is not a profile name (" PROFILE_NAME_RULE ")",
		               utf8_cut(p->name, 64), p->name);
	rc = match_check(&p->match, src, e);
	if (rc)
		return rc;
	if (p->params.n < 1)
		return err_set(e, -EINVAL, ERR_BAD_REQUEST, "params: give at least one parameter");
	for (i = 0; i < p->params.n; i++) {
		const char *n = p->params.items[i].name;

		if (!sysfs_param_name_ok(n))
			return err_set(e, -ENOENT, ERR_UNKNOWN_PARAM,
			               "params.%.*s: not a parameter name", utf8_cut(n, 64), n);
		for (j = 0; j < i; j++)
			if (same_param(p->params.items[j].name, n))
				return err_set(
				        e, -EINVAL, ERR_INVALID_VALUE,
				        "params: %s and %s set the same thing; give only one",
				        p->params.items[j].name, n);
		sched |= !strcmp(n, "scheduler");
		iosched |= !strncmp(n, "iosched.", 8);
	}
	/* A scheduler switch by anyone removes the iosched attributes of the old one: a profile
	 * can only hold them together with the scheduler they belong to. */
	if (iosched && !sched)
		return err_set(e, -EINVAL, ERR_INVALID_VALUE,
		               "params: iosched.* attributes belong to one scheduler; hold the "
		               "scheduler too");
	return 0;
}

bool profile_names(const struct profile *p, const char *dev)
{
	int i;

	for (i = 0; i < p->match.n_devices; i++)
		if (!profile_is_pattern(p->match.devices[i]) && !strcmp(p->match.devices[i], dev))
			return true;
	return false;
}

bool profile_matches(const struct profile *p, const char *dev,
                     const struct profile_ident_source *src)
{
	const struct profile_match *m = &p->match;
	char v[PROFILE_VALUE_MAX];
	bool ok;
	int i, f;

	if (m->n_devices) {
		ok = false;
		for (i = 0; i < m->n_devices && !ok; i++)
			ok = !fnmatch(m->devices[i], dev, FNM_PATHNAME | FNM_PERIOD);
		if (!ok)
			return false;
	}
	for (f = 0; f < IDENT_COUNT; f++) {
		if (!m->n_values[f])
			continue;
		if (!src || !src->read ||
		    src->read(src->cls, dev, (enum profile_ident)f, v, sizeof(v)) < 0)
			return false;
		ok = false;
		for (i = 0; i < m->n_values[f] && !ok; i++)
			ok = !strcmp(m->values[f][i], v);
		if (!ok)
			return false;
	}
	return true;
}

bool profile_params_overlap(const struct profile *a, const struct profile *b, char *name,
                            size_t len)
{
	int i;

	for (i = 0; i < a->params.n; i++) {
		if (profile_param(b, a->params.items[i].name)) {
			snprintf(name, len, "%s", a->params.items[i].name);
			return true;
		}
	}
	return false;
}
