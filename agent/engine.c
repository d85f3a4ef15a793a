/* engine.c -- the engine table, metrics, and option/argv helpers the engine modules share. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine.h"
#include "num.h"
#include "xmalloc.h"
#include "banned.h"

static const struct engine *const engine_table[] = {
	&fio_engine,
	&dd_engine,
	&bonnie_engine,
	&iozone_engine,
};

#define N_ENGINES (sizeof(engine_table) / sizeof(engine_table[0]))

void metrics_set(struct metrics *m, const char *name, double value)
{
	int i;

	for (i = 0; i < m->n; i++) {
		if (!strcmp(m->m[i].name, name)) {
			m->m[i].value = value;
			return;
		}
	}
	if (m->n >= METRICS_MAX)
		return;
	snprintf(m->m[m->n].name, sizeof(m->m[m->n].name), "%s", name);
	m->m[m->n].value = value;
	m->n++;
}

const struct metric *metrics_get(const struct metrics *m, const char *name)
{
	int i;

	for (i = 0; i < m->n; i++)
		if (!strcmp(m->m[i].name, name))
			return &m->m[i];
	return NULL;
}

const struct engine *engine_find(const char *name)
{
	size_t i;

	if (!name)
		return NULL;
	for (i = 0; i < N_ENGINES; i++)
		if (!strcmp(engine_table[i]->name, name))
			return engine_table[i];
	return NULL;
}

int engine_parse(const struct engine *eng, const json_t *opts, const char *out, size_t out_len,
                 const char *errout, size_t errout_len, int exit_code, int term_signal,
                 struct metrics *m, struct err *e)
{
	int rc;

	rc = eng->parse(out, out_len, errout, errout_len, exit_code, term_signal, m, e);
	if (eng->metrics_name)
		eng->metrics_name(opts, m);
	return rc;
}

void engine_argv_free(char **argv)
{
	char **p;

	if (!argv)
		return;
	for (p = argv; *p; p++)
		free(*p);
	free(argv);
}

/* The binary each engine runs when no explicit path is given. */
static const char *engine_default_exe(const struct engine *eng)
{
	if (eng == &fio_engine)
		return "fio";
	if (eng == &dd_engine)
		return "dd";
	if (eng == &bonnie_engine)
		return "bonnie++";
	return "iozone";
}

/* Is `exe` runnable: a path with a '/' is checked directly, a bare name on $PATH. */
static int exe_runnable(const char *exe)
{
	const char *path, *p, *colon;
	char full[4096];
	size_t dirlen;

	if (strchr(exe, '/'))
		return access(exe, X_OK) == 0;
	path = getenv("PATH");
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin";
	for (p = path;; p = colon + 1) {
		colon = strchr(p, ':');
		dirlen = colon ? (size_t)(colon - p) : strlen(p);
		if (dirlen == 0)
			snprintf(full, sizeof(full), "./%s", exe);
		else
			snprintf(full, sizeof(full), "%.*s/%s", (int)dirlen, p, exe);
		if (access(full, X_OK) == 0)
			return 1;
		if (!colon)
			break;
	}
	return 0;
}

const char *engine_exe(const struct engine *eng, const char *fio_path)
{
	if (eng == &fio_engine && fio_path && *fio_path)
		return fio_path;
	return engine_default_exe(eng);
}

int engine_available(const struct engine *eng, const char *fio_path, struct err *e)
{
	const char *exe;

	if (!eng)
		return err_set(e, -EINVAL, "bad_request", "unknown engine");
	exe = engine_exe(eng, fio_path);
	if (!exe_runnable(exe))
		return err_set(e, -ENOENT, "engine_unavailable",
		               "engine '%s' is not available: '%s' not found%s", eng->name, exe,
		               strchr(exe, '/') ? " or not executable" : " on PATH");
	return 0;
}

void engine_argv_add(struct engine_argv *a, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	s = xmalloc((size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	va_end(ap);
	if (a->n + 2 > a->cap) {
		a->cap = a->cap ? a->cap * 2 : 16;
		a->v = xrealloc(a->v, (size_t)a->cap * sizeof(*a->v));
	}
	a->v[a->n++] = s;
	a->v[a->n] = NULL;
}

char **engine_argv_detach(struct engine_argv *a)
{
	char **v = a->v;

	if (!v)
		v = xcalloc(1, sizeof(*v));
	a->v = NULL;
	a->n = 0;
	a->cap = 0;
	return v;
}

int engine_opts_keys(const json_t *opts, const char *eng, const char *const *keys, struct err *e)
{
	const char *key;
	json_t *val;
	size_t i;

	if (!opts || json_is_null(opts))
		return 0;
	if (!json_is_object(opts))
		return err_set(e, -EINVAL, "bad_request", "%s: must be an object", eng);
	json_object_foreach((json_t *)opts, key, val)
	{
		int known = 0;

		(void)val;
		for (i = 0; keys[i]; i++)
			if (!strcmp(keys[i], key))
				known = 1;
		if (!known)
			return err_set(e, -EINVAL, "bad_request", "%s.%s: unknown option", eng,
			               key);
	}
	return 0;
}

int engine_opt_has(const json_t *opts, const char *key)
{
	return opts && json_is_object(opts) && json_object_get(opts, key) != NULL;
}

int engine_opt_int(const json_t *opts, const char *eng, const char *key, int64_t min, int64_t max,
                   int64_t def, int64_t *out, struct err *e)
{
	json_t *v = opts ? json_object_get(opts, key) : NULL;
	int64_t x;

	*out = def;
	if (!v)
		return 0;
	if (!json_is_integer(v))
		return err_set(e, -EINVAL, "bad_request",
		               "%s.%s: must be an integer %" PRId64 "..%" PRId64, eng, key, min,
		               max);
	x = (int64_t)json_integer_value(v);
	if (x < min || x > max)
		return err_set(e, -EINVAL, "bad_request", "%s.%s: must be %" PRId64 "..%" PRId64,
		               eng, key, min, max);
	*out = x;
	return 0;
}

int engine_opt_bool(const json_t *opts, const char *eng, const char *key, int def, int *out,
                    struct err *e)
{
	json_t *v = opts ? json_object_get(opts, key) : NULL;

	*out = def;
	if (!v)
		return 0;
	if (!json_is_boolean(v))
		return err_set(e, -EINVAL, "bad_request", "%s.%s: must be true or false", eng, key);
	*out = json_is_true(v);
	return 0;
}

int engine_opt_size(const json_t *opts, const char *eng, const char *key, uint64_t min,
                    uint64_t max, uint64_t align, uint64_t def, uint64_t *out, struct err *e)
{
	json_t *v = opts ? json_object_get(opts, key) : NULL;
	char lo[32], hi[32], al[32];
	uint64_t x;

	*out = def;
	if (!v)
		return 0;
	engine_size_str(min, 0, lo, sizeof(lo));
	engine_size_str(max, 0, hi, sizeof(hi));
	if (!json_is_string(v) || num_parse_size(json_string_value(v), &x) < 0)
		return err_set(e, -EINVAL, "bad_request",
		               "%s.%s: must be a size like \"4k\", \"1M\" or \"2g\"", eng, key);
	if (x < min || x > max)
		return err_set(e, -EINVAL, "bad_request", "%s.%s: must be %s..%s", eng, key, lo,
		               hi);
	if (align > 1 && x % align) {
		engine_size_str(align, 0, al, sizeof(al));
		return err_set(e, -EINVAL, "bad_request", "%s.%s: must be a multiple of %s", eng,
		               key, al);
	}
	*out = x;
	return 0;
}

int engine_opt_enum(const json_t *opts, const char *eng, const char *key,
                    const char *const *choices, const char *def, const char **out, struct err *e)
{
	json_t *v = opts ? json_object_get(opts, key) : NULL;
	char list[256];
	size_t i, used = 0;

	*out = def;
	if (!v)
		return 0;
	if (json_is_string(v)) {
		for (i = 0; choices[i]; i++) {
			if (!strcmp(choices[i], json_string_value(v))) {
				*out = choices[i];
				return 0;
			}
		}
	}
	list[0] = '\0';
	for (i = 0; choices[i] && used < sizeof(list); i++) {
		int n = snprintf(list + used, sizeof(list) - used, "%s%s", i ? "|" : "",
		                 choices[i]);

		if (n < 0)
			break;
		used += (size_t)n;
	}
	return err_set(e, -EINVAL, "bad_request", "%s.%s: must be one of %s", eng, key, list);
}

void engine_size_str(uint64_t bytes, int lower, char *out, size_t len)
{
	static const char units[] = "KMGT";
	int u = -1;

	while (bytes && u < 3 && bytes % 1024 == 0) {
		bytes /= 1024;
		u++;
	}
	if (u < 0)
		snprintf(out, len, "%" PRIu64, bytes);
	else
		snprintf(out, len, "%" PRIu64 "%c", bytes, lower ? units[u] - 'A' + 'a' : units[u]);
}

/* Length of the blank at s (space, tab, CR, or a UTF-8 no-break space), 0 if none. */
static size_t blank_at(const char *s, size_t n)
{
	if (n >= 1 && (*s == ' ' || *s == '\t' || *s == '\r'))
		return 1;
	if (n >= 2 && (unsigned char)s[0] == 0xc2 && (unsigned char)s[1] == 0xa0)
		return 2;
	return 0;
}

/* Copy s[0..n) into out trimmed of surrounding blanks. */
static void copy_trimmed(const char *s, size_t n, char *out, size_t outlen)
{
	size_t b;

	while ((b = blank_at(s, n))) {
		s += b;
		n -= b;
	}
	for (;;) {
		if (n >= 1 && blank_at(s + n - 1, 1))
			n--;
		else if (n >= 2 && blank_at(s + n - 2, 2) == 2)
			n -= 2;
		else
			break;
	}
	snprintf(out, outlen, "%.*s", (int)n, s);
}

static int is_blank(const char *s, size_t n)
{
	size_t b;

	while ((b = blank_at(s, n))) {
		s += b;
		n -= b;
	}
	return n == 0;
}

int engine_line_find(const char *s, size_t len, const char *prefix, char *out, size_t outlen)
{
	size_t start = 0, end, plen = prefix ? strlen(prefix) : 0;

	if (!s)
		return 0;
	while (start < len) {
		end = start;
		while (end < len && s[end] != '\n')
			end++;
		if (!is_blank(s + start, end - start) &&
		    (!prefix || (end - start >= plen && !memcmp(s + start, prefix, plen)))) {
			copy_trimmed(s + start, end - start, out, outlen);
			return 1;
		}
		start = end + 1;
	}
	return 0;
}

int engine_line_last(const char *s, size_t len, char *out, size_t outlen)
{
	size_t end = len, start;

	if (!s)
		return 0;
	while (end > 0) {
		start = end;
		while (start > 0 && s[start - 1] != '\n' && s[start - 1] != '\r')
			start--;
		if (!is_blank(s + start, end - start)) {
			copy_trimmed(s + start, end - start, out, outlen);
			return 1;
		}
		end = start ? start - 1 : 0;
	}
	return 0;
}
