/* answer.c -- an agent's answer taken in: the bounds of each route, a pre-scan that refuses
 * what would expand past them, jansson's decoding, and every text cleaned once. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "fleet/answer.h"
#include "utf8.h"
#include "xmalloc.h"
#include "banned.h"

/* Per route (the path after "/api/v1", its first segment and whether more follows). A real
 * agent's /devices is ~330 bytes and ~25 elements per block device; a job with 100 passes
 * of 40 metrics and its spec is ~200 KiB. */
static const struct route_bounds {
	const char *method; /* NULL: any */
	const char *prefix; /* of the path after /api/v1 */
	bool exact;         /* the prefix is the whole path */
	struct answer_bounds b;
} routes[] = {
	{ "GET", "/health", true, { 64u << 10, 4000, 8 } },
	{ "GET", "/devices", true, { 4u << 20, 100000, 8 } },
	{ NULL, "/devices/", false, { 512u << 10, 20000, 8 } },
	{ NULL, "/jobs", false, { 2u << 20, 100000, 12 } },
	{ NULL, "/sessions", false, { 256u << 10, 10000, 8 } },
	{ NULL, "/profiles", false, { 1u << 20, 40000, 10 } },
};

static const struct answer_bounds bounds_default = { 1u << 20, 40000, 12 };

void answer_bounds_of(const char *method, const char *url, struct answer_bounds *b)
{
	const char *p = strstr(url, "/api/v1/");
	size_t i, n;

	*b = bounds_default;
	if (!p)
		return;
	p += strlen("/api/v1");
	n = strcspn(p, "?");
	for (i = 0; i < sizeof(routes) / sizeof(routes[0]); i++) {
		const struct route_bounds *r = &routes[i];
		size_t k = strlen(r->prefix);

		if (r->method && strcmp(r->method, method))
			continue;
		if (n < k || strncmp(p, r->prefix, k) || (r->exact && n != k))
			continue;
		*b = r->b;
		return;
	}
}

/* Count what body would expand into: elements and depth, strings skipped. */
static int prescan(const char *body, size_t len, const struct answer_bounds *b, struct err *e)
{
	long elems = 0;
	int depth = 0,
	    max_depth = b->max_depth < ANSWER_DEPTH_MAX ? b->max_depth : ANSWER_DEPTH_MAX;
	bool in_str = false;
	size_t i;

	for (i = 0; i < len; i++) {
		char c = body[i];

		if (in_str) {
			if (c == '\\')
				i++;
			else if (c == '"')
				in_str = false;
			continue;
		}
		switch (c) {
		case '"':
			in_str = true;
			break;
		case '{':
		case '[':
			if (++depth > max_depth)
				return err_set(e, -E2BIG, ERR_ANSWER_TOO_DEEP,
				               "the answer is nested deeper than %d levels",
				               max_depth);
			/* fall through */
		case ',':
			if (++elems > b->max_elems)
				return err_set(e, -E2BIG, ERR_ANSWER_TOO_MANY,
				               "the answer has more than %ld elements",
				               b->max_elems);
			break;
		case '}':
		case ']':
			depth--;
			break;
		default:
			break;
		}
	}
	return 0;
}

/* Clean every string and member name of o in place (depth bounded by the pre-scan). */
static void clean_tree(json_t *o)
{
	const char *key;
	json_t *v, *fresh = NULL;
	void *tmp;
	size_t i;

	if (json_is_string(o)) {
		if (!utf8_is_clean(json_string_value(o))) {
			char *c = utf8_clean_dup(json_string_value(o));

			json_string_set(o, c);
			free(c);
		}
		return;
	}
	if (json_is_array(o)) {
		json_array_foreach(o, i, v) clean_tree(v);
		return;
	}
	if (!json_is_object(o))
		return;
	json_object_foreach_safe(o, tmp, key, v)
	{
		clean_tree(v);
		if (!utf8_is_clean(key) && !fresh)
			fresh = json_object();
	}
	if (!fresh)
		return;
	/* A member name to clean: the object again, every name cleaned (a name two dirty names
	 * clean to is kept once, the later value). */
	json_object_foreach(o, key, v)
	{
		char *c = utf8_clean_dup(key);

		json_object_set(fresh, c, v);
		free(c);
	}
	json_object_clear(o);
	json_object_update(o, fresh);
	json_decref(fresh);
}

json_t *answer_decode(const char *body, size_t len, const struct answer_bounds *b, struct err *e)
{
	json_error_t je;
	json_t *o;

	if (!body || !len) {
		err_set(e, -EINVAL, ERR_ANSWER_EMPTY, "the answer is empty");
		return NULL;
	}
	if (len > b->max_bytes) {
		err_set(e, -E2BIG, ERR_ANSWER_TOO_LARGE, "the answer is larger than %zu bytes",
		        b->max_bytes);
		return NULL;
	}
	if (prescan(body, len, b, e) < 0)
		return NULL;
	o = json_loadb(body, len, JSON_REJECT_DUPLICATES, &je);
	if (!o) {
		err_set(e, -EINVAL, ERR_ANSWER_NOT_JSON, "the answer is not JSON: %s", je.text);
		return NULL;
	}
	clean_tree(o);
	return o;
}
