/* http.c -- the HTTP layer's request and answer helpers that need no libmicrohttpd: query
 * lookup and the strict check of a query against its route's table, percent-decoding, route
 * matching with safe captures, JSON error answers, a constant-time token compare. */
#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http/httpd.h"
#include "num.h"
#include "utf8.h"
#include "xmalloc.h"
#include "banned.h"

const char *http_query(const struct http_req *r, const char *key)
{
	int i;

	for (i = 0; i < r->n_query; i++)
		if (!strcmp(r->query[i].key, key))
			return r->query[i].value;
	return NULL;
}

void http_body_take(struct http_resp *resp, char *body, const char *content_type)
{
	free(resp->body);
	resp->body = body;
	resp->body_len = body ? strlen(body) : 0;
	resp->content_type = content_type;
}

void http_error(struct http_resp *resp, int status, enum err_code code, const char *fmt, ...)
{
	char raw[1024], msg[512];
	json_t *o;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	/* The message may quote the request (a path, a key): valid UTF-8, or JSON has no body. */
	utf8_clean(msg, sizeof(msg), raw);
	o = json_pack("{s:{s:s,s:s}}", "error", "code", err_code_name(code), "message", msg);
	resp->status = status;
	http_body_take(resp, json_dumps(o, JSON_COMPACT | JSON_ENSURE_ASCII), "application/json");
	json_decref(o);
}

bool http_token_equal(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i;
	unsigned char diff = (unsigned char)(la != lb);

	/* Walk the expected token's length whatever the input, so timing says nothing. */
	for (i = 0; i < lb; i++)
		diff |= (unsigned char)(b[i] ^ (i < la ? a[i] : 0));
	return diff == 0;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

char *http_decode(const char *src, size_t len, bool plus_is_space)
{
	char *out = xmalloc(len + 1);
	size_t i, o = 0;

	for (i = 0; i < len; i++) {
		if (src[i] == '%') {
			int hi, lo;

			if (i + 2 >= len)
				goto bad;
			hi = hexval(src[i + 1]);
			lo = hexval(src[i + 2]);
			if (hi < 0 || lo < 0)
				goto bad;
			out[o] = (char)(hi * 16 + lo);
			if (out[o] == '\0')
				goto bad;
			o++;
			i += 2;
		} else if (src[i] == '+' && plus_is_space) {
			out[o++] = ' ';
		} else if (src[i] == '\0') {
			goto bad;
		} else {
			out[o++] = src[i];
		}
	}
	out[o] = '\0';
	return out;
bad:
	free(out);
	return NULL;
}

void http_printable(const char *s, char *out, size_t len)
{
	size_t i;

	for (i = 0; s[i] && i + 1 < len; i++)
		out[i] = (s[i] >= 0x20 && s[i] < 0x7f) ? s[i] : '?';
	out[i] = '\0';
}

long long http_query_int(const struct http_req *r, const char *key, long long def)
{
	const char *v = http_query(r, key);
	int64_t n;

	if (!v || num_parse_i64(v, &n))
		return def;
	return n;
}

bool http_query_bool(const struct http_req *r, const char *key, bool def)
{
	const char *v = http_query(r, key);

	if (!v)
		return def;
	return !strcmp(v, "true");
}

/* The route's query parameter for key, or NULL. */
static const struct query_param *query_param_find(const struct route *rt, const char *key)
{
	const struct query_param *p;
	size_t n;

	for (p = rt->query; p && p->key; p++) {
		if (p->type != QUERY_PREFIX && !strcmp(p->key, key))
			return p;
		n = strlen(p->key);
		if (p->type == QUERY_PREFIX && !strncmp(p->key, key, n) && key[n])
			return p;
	}
	return NULL;
}

/* "a, b, c" from the keys (prefixes as "label.KEY") or the choices. */
static void names_list(const struct query_param *params, const char *const *choices, char *out,
                       size_t len)
{
	size_t used = 0;
	int i, n;

	out[0] = '\0';
	for (i = 0; (params ? params[i].key : choices[i]) && used < len; i++) {
		const char *name = params ? params[i].key : choices[i];
		bool prefix = params && params[i].type == QUERY_PREFIX;

		n = snprintf(out + used, len - used, "%s%s%s", i ? ", " : "", name,
		             prefix ? "KEY" : "");
		if (n < 0)
			break;
		used += (size_t)n;
	}
}

/* One value against its parameter's type. */
static int query_value_check(const struct query_param *p, const char *key, const char *v,
                             struct err *e)
{
	char shown[48], list[200];
	int64_t n;
	int i;

	http_printable(v, shown, sizeof(shown));
	switch (p->type) {
	case QUERY_INT:
		if (num_parse_i64(v, &n) || n < p->min || n > p->max)
			return err_set(e, -EINVAL, ERR_BAD_REQUEST,
			               "%s: expected an integer in %lld..%lld, got '%s'", key,
			               p->min, p->max, shown);
		return 0;
	case QUERY_BOOL:
		if (strcmp(v, "true") && strcmp(v, "false"))
			return err_set(e, -EINVAL, ERR_BAD_REQUEST,
			               "%s: expected true or false, got '%s'", key, shown);
		return 0;
	case QUERY_ENUM:
		for (i = 0; p->choices[i]; i++)
			if (!strcmp(p->choices[i], v))
				return 0;
		names_list(NULL, p->choices, list, sizeof(list));
		return err_set(e, -EINVAL, ERR_BAD_REQUEST, "%s: '%s' is not one of %s", key, shown,
		               list);
	default:
		return 0;
	}
}

int http_query_check(const struct route *rt, const struct http_req *r, struct err *e)
{
	const struct query_param *p;
	char shown[72], list[200];
	int i, j, rc;

	for (i = 0; i < r->n_query; i++) {
		const char *key = r->query[i].key;

		http_printable(key, shown, sizeof(shown));
		p = query_param_find(rt, key);
		if (!p) {
			if (!rt->query || !rt->query[0].key)
				return err_set(e, -EINVAL, ERR_UNKNOWN_QUERY_PARAM,
				               "unknown query parameter '%s': %s %s takes none",
				               shown, rt->method, rt->pattern);
			names_list(rt->query, NULL, list, sizeof(list));
			return err_set(e, -EINVAL, ERR_UNKNOWN_QUERY_PARAM,
			               "unknown query parameter '%s': %s %s takes %s", shown,
			               rt->method, rt->pattern, list);
		}
		for (j = 0; j < i; j++)
			if (!strcmp(r->query[j].key, key))
				return err_set(e, -EINVAL, ERR_BAD_REQUEST,
				               "query parameter '%s' given more than once", shown);
		rc = query_value_check(p, shown, r->query[i].value, e);
		if (rc)
			return rc;
	}
	return 0;
}

/*
 * Match path against pattern segment by segment; {x} captures one decoded
 * segment. Returns 1 on match, 0 on no match, -1 if a captured segment is
 * unsafe (bad escape, NUL, '/', "." or "..").
 */
static int route_match(const char *pattern, const char *path, struct http_req *r)
{
	const char *p = pattern, *u = path;

	r->n_args = 0;
	while (*p && *u) {
		const char *pe, *ue;

		if (*p != '/' || *u != '/')
			return 0;
		p++;
		u++;
		pe = strchr(p, '/');
		ue = strchr(u, '/');
		if (!pe)
			pe = p + strlen(p);
		if (!ue)
			ue = u + strlen(u);
		if (*p == '{') {
			char *seg;

			if (ue == u || r->n_args >= HTTP_MAX_ARGS)
				return 0;
			seg = http_decode(u, (size_t)(ue - u), false);
			if (!seg || strchr(seg, '/') || !strcmp(seg, ".") || !strcmp(seg, "..")) {
				free(seg);
				return -1;
			}
			r->args[r->n_args++] = seg;
		} else if ((size_t)(pe - p) != (size_t)(ue - u) ||
		           strncmp(p, u, (size_t)(pe - p))) {
			return 0;
		}
		p = pe;
		u = ue;
	}
	return *p == '\0' && *u == '\0';
}

int http_route_match(const char *pattern, const char *path, struct http_req *r)
{
	int m = route_match(pattern, path, r), i;

	if (m != 1) {
		for (i = 0; i < r->n_args; i++)
			free(r->args[i]);
		r->n_args = 0;
	}
	return m;
}

void http_req_release(struct http_req *r)
{
	int i;

	for (i = 0; i < r->n_args; i++)
		free(r->args[i]);
	for (i = 0; i < r->n_query; i++) {
		free(r->query[i].key);
		free(r->query[i].value);
	}
}
