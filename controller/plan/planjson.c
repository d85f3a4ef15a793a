/* planjson.c -- the plan parser's own checks: known keys only, names, control characters. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "plan/planjson.h"
#include "banned.h"

bool planjson_key_allowed(const char *key, const char *const *allowed)
{
	for (; *allowed; allowed++)
		if (!strcmp(key, *allowed))
			return true;
	return false;
}

/* Refuse keys not in allowed (NULL-terminated). */
int planjson_check_keys(struct parser *ps, json_t *obj, const char *path,
                        const char *const *allowed)
{
	const char *key;
	json_t *v;
	char p[160];

	json_object_foreach(obj, key, v)
	{
		if (!planjson_key_allowed(key, allowed)) {
			snprintf(p, sizeof(p), "%s%s%s", path, *path ? "." : "", key);
			return fail(ps, p, "unknown field");
		}
	}
	return 0;
}

bool planjson_name_ok(const char *s, const char *extra)
{
	if (!*s || strlen(s) >= PARAM_NAME_MAX)
		return false;
	for (; *s; s++) {
		if ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		    (*s >= '0' && *s <= '9') || *s == '_')
			continue;
		if (!strchr(extra, *s))
			return false;
	}
	return true;
}

bool planjson_has_control(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s == 0x7f)
			return true;
	return false;
}

/* Get a string member; required: error when missing. Returns 0/1 found, <0 error. */
