/* jread.c -- the strict JSON member reader both binaries share (jread.h). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "jread.h"
#include "banned.h"

void jread_path(const char *path, const char *key, char *out, size_t len)
{
	snprintf(out, len, "%s%s%s", path ? path : "", path && *path ? "." : "", key);
}

/* obj[key] into *v: 1 there, 0 absent and optional, -EINVAL absent and required. */
static int member(const struct jread *r, const json_t *obj, const char *path, const char *key,
                  int flags, json_t **v)
{
	char p[192];

	*v = obj ? json_object_get(obj, key) : NULL;
	if (*v)
		return 1;
	if (!(flags & JREAD_REQUIRED))
		return 0;
	jread_path(path, key, p, sizeof(p));
	return err_set_at(r->e, -EINVAL, r->code, p, "required field is missing");
}

/* "PATH.key: expected WHAT". */
static int wrong(const struct jread *r, const char *path, const char *key, const char *what)
{
	char p[192];

	jread_path(path, key, p, sizeof(p));
	return err_set_at(r->e, -EINVAL, r->code, p, "expected %s", what);
}

int jread_str(const struct jread *r, const json_t *obj, const char *path, const char *key,
              int flags, const char **out)
{
	char p[192];
	json_t *v;
	int rc = member(r, obj, path, key, flags, &v);

	if (rc <= 0)
		return rc;
	if (!json_is_string(v))
		return wrong(r, path, key, "a string");
	if ((flags & JREAD_NONEMPTY) && !*json_string_value(v)) {
		jread_path(path, key, p, sizeof(p));
		return err_set_at(r->e, -EINVAL, r->code, p, "must not be empty");
	}
	*out = json_string_value(v);
	return 1;
}

int jread_int(const struct jread *r, const json_t *obj, const char *path, const char *key,
              int flags, json_int_t min, json_int_t max, json_int_t *out)
{
	char what[80];
	json_t *v;
	int rc = member(r, obj, path, key, flags, &v);

	if (rc <= 0)
		return rc;
	if (json_is_integer(v) && json_integer_value(v) >= min && json_integer_value(v) <= max) {
		*out = json_integer_value(v);
		return 1;
	}
	if (min == LLONG_MIN && max == LLONG_MAX)
		snprintf(what, sizeof(what), "an integer");
	else
		snprintf(what, sizeof(what), "an integer %lld..%lld", (long long)min,
		         (long long)max);
	return wrong(r, path, key, what);
}

int jread_num(const struct jread *r, const json_t *obj, const char *path, const char *key,
              int flags, double *out)
{
	json_t *v;
	int rc = member(r, obj, path, key, flags, &v);

	if (rc <= 0)
		return rc;
	if (!json_is_number(v))
		return wrong(r, path, key, "a number");
	*out = json_number_value(v);
	return 1;
}

int jread_bool(const struct jread *r, const json_t *obj, const char *path, const char *key,
               int flags, bool *out)
{
	json_t *v;
	int rc = member(r, obj, path, key, flags, &v);

	if (rc <= 0)
		return rc;
	if (!json_is_boolean(v))
		return wrong(r, path, key, "true or false");
	*out = json_is_true(v);
	return 1;
}

/* obj[key] when it is a container of type t (what: its words in the error). */
static int container(const struct jread *r, const json_t *obj, const char *path, const char *key,
                     int flags, json_type t, const char *what, json_t **out)
{
	json_t *v;
	int rc = member(r, obj, path, key, flags, &v);

	if (rc <= 0)
		return rc;
	if (json_typeof(v) != t)
		return wrong(r, path, key, what);
	*out = v;
	return 1;
}

int jread_obj(const struct jread *r, const json_t *obj, const char *path, const char *key,
              int flags, json_t **out)
{
	return container(r, obj, path, key, flags, JSON_OBJECT, "an object", out);
}

int jread_arr(const struct jread *r, const json_t *obj, const char *path, const char *key,
              int flags, json_t **out)
{
	return container(r, obj, path, key, flags, JSON_ARRAY, "an array", out);
}

const char *jread_text(const json_t *obj, const char *key)
{
	const char *s = obj ? json_string_value(json_object_get(obj, key)) : NULL;

	return s ? s : "";
}

json_t *jread_at(const json_t *obj, const char *dotted)
{
	char key[64];
	const char *dot;

	while (obj && (dot = strchr(dotted, '.'))) {
		snprintf(key, sizeof(key), "%.*s", (int)(dot - dotted), dotted);
		obj = json_object_get(obj, key);
		dotted = dot + 1;
	}
	return obj ? json_object_get(obj, dotted) : NULL;
}
