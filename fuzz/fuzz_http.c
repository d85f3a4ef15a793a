/* fuzz_http.c -- libFuzzer harness for percent-decoding and route matching (httpd.c). */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "http/httpd.h"
#include "xmalloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A decoded string is never longer than its source and holds no NUL. */
static void decode_check(const char *src, size_t len, bool plus_is_space)
{
	char *out = http_decode(src, len, plus_is_space);

	if (!out)
		return;
	if (strlen(out) > len)
		abort();
	if (!plus_is_space && !memchr(src, '%', len) &&
	    (strlen(out) != len || memcmp(out, src, len)))
		abort(); /* nothing to decode: unchanged */
	free(out);
}

/* Every capture of a matching route is one safe path segment. */
static void route_check(const char *path)
{
	struct http_req req;
	int i, k, m;

	for (i = 0; i < api_n_routes; i++) {
		memset(&req, 0, sizeof(req));
		m = http_route_match(api_routes[i].pattern, path, &req);
		if (m < -1 || m > 1 || (m != 1 && req.n_args))
			abort();
		for (k = 0; k < req.n_args; k++) {
			const char *a = req.args[k];

			if (!a || !*a || strchr(a, '/') || !strcmp(a, ".") || !strcmp(a, ".."))
				abort();
			free(req.args[k]);
		}
	}
}

/* The input is a request target: the path before '?' goes through the router, each
 * key=value of the query through the query decoder. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *target = xmalloc(size + 1), *q, *amp, *eq, *p;

	memcpy(target, data, size);
	target[size] = '\0';
	decode_check((const char *)data, size, false);
	decode_check((const char *)data, size, true);
	q = strchr(target, '?');
	if (q)
		*q++ = '\0';
	route_check(target);
	for (p = q; p && *p; p = amp) {
		amp = strchr(p, '&');
		if (amp)
			*amp++ = '\0';
		eq = strchr(p, '=');
		decode_check(p, eq ? (size_t)(eq - p) : strlen(p), true);
		if (eq)
			decode_check(eq + 1, strlen(eq + 1), true);
	}
	free(target);
	return 0;
}
