/* engine.c -- the engine table, metrics, option defaults, and argv helpers the engines share. */
#include <errno.h>
#include <math.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engines/engine.h"
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

const char *const engine_names[] = { "fio", "dd", "bonnie", "iozone", NULL };

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

void metric_names_add(struct metric_names *l, const char *name)
{
	if (metric_names_has(l, name) || l->n >= METRICS_MAX)
		return;
	snprintf(l->name[l->n], sizeof(l->name[l->n]), "%s", name);
	l->n++;
}

bool metric_names_has(const struct metric_names *l, const char *name)
{
	int i;

	for (i = 0; i < l->n; i++)
		if (!strcmp(l->name[i], name))
			return true;
	return false;
}

/* Store d's default into the option struct at base. */
static void opt_default(void *base, const struct engine_opt *d)
{
	char *field = (char *)base + d->off;

	switch (d->type) {
	case EOPT_INT:
	case EOPT_DURATION:
		*(int64_t *)field = d->def;
		break;
	case EOPT_BOOL:
		*(bool *)field = d->def != 0;
		break;
	case EOPT_SIZE:
		*(uint64_t *)field = (uint64_t)d->def;
		break;
	case EOPT_ENUM:
		*(const char **)field = d->def_str;
		break;
	case EOPT_TEXT:
		snprintf(field, (size_t)d->max + 1, "%s", d->def_str ? d->def_str : "");
		break;
	case EOPT_SET:
		*(unsigned *)field = (unsigned)d->def;
		break;
	}
	*(bool *)((char *)base + d->has_off) = false;
}

void engine_opts_reset(const struct engine *eng, struct engine_opts *o)
{
	char *base = (char *)o + eng->opts_off;
	int k;

	memset(base, 0, eng->opts_size);
	for (k = 0; k < eng->n_opts; k++)
		opt_default(base, &eng->opts[k]);
	o->given[eng->id] = false;
}

void engine_opts_init(struct engine_opts *o)
{
	size_t i;

	memset(o, 0, sizeof(*o));
	for (i = 0; i < N_ENGINES; i++)
		engine_opts_reset(engine_table[i], o);
}

const struct engine *engine_by_id(enum engine_id id)
{
	size_t i;

	for (i = 0; i < N_ENGINES; i++)
		if (engine_table[i]->id == id)
			return engine_table[i];
	return NULL;
}

int engine_duration_parse(const char *s, int64_t default_unit_us, int64_t *us)
{
	return num_parse_duration(s, default_unit_us, us);
}

double engine_volume_s(double bytes)
{
	return bytes / (ENGINE_FLOOR_MIB_S * 1024.0 * 1024.0);
}

double engine_pass_deadline_s(const struct engine *eng, const struct engine_opts *o,
                              bool in_directory, uint64_t device_bytes)
{
	double bound = eng->pass_bound_s(o, in_directory, device_bytes);

	return ceil(ENGINE_DEADLINE_FACTOR * (bound > 0 ? bound : 0) + ENGINE_DEADLINE_MARGIN_S);
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

int engine_parse(const struct engine *eng, const struct engine_opts *o, const char *out,
                 size_t out_len, const char *errout, size_t errout_len, int exit_code,
                 int term_signal, struct metrics *m, struct err *e)
{
	int rc;

	rc = eng->parse(out, out_len, errout, errout_len, exit_code, term_signal, m, e);
	if (eng->metrics_name)
		eng->metrics_name(o, m);
	return rc;
}

void engine_section_opts(const struct engine_opts *o, int i, struct engine_opts *out)
{
	*out = *o;
	out->fio = o->workloads[i].fio;
	out->workloads = NULL;
	out->n_workloads = 0;
}

int engine_parse_pass(const struct engine *eng, const struct engine_opts *o, const char *out,
                      size_t out_len, const char *errout, size_t errout_len, int exit_code,
                      int term_signal, struct metrics *m, struct metrics *per, struct err *e)
{
	int rc;

	if (!eng->parse_sections || o->n_workloads == 0 || !per)
		return engine_parse(eng, o, out, out_len, errout, errout_len, exit_code,
		                    term_signal, m, e);
	rc = eng->parse_sections(out, out_len, errout, errout_len, exit_code, term_signal,
	                         o->n_workloads, per, e);
	*m = per[0];
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

bool engine_tool_found(const char *exe)
{
	const char *path, *p, *colon;
	char full[4096];
	size_t dirlen;

	if (strchr(exe, '/'))
		return access(exe, X_OK) == 0;
	path = getenv("PATH");
	if (!path || !*path)
		path = ENGINE_DEFAULT_PATH;
	for (p = path;; p = colon + 1) {
		colon = strchr(p, ':');
		dirlen = colon ? (size_t)(colon - p) : strlen(p);
		if (dirlen == 0)
			snprintf(full, sizeof(full), "./%s", exe);
		else
			snprintf(full, sizeof(full), "%.*s/%s", (int)dirlen, p, exe);
		if (access(full, X_OK) == 0)
			return true;
		if (!colon)
			break;
	}
	return false;
}

const char *engine_exe(const struct engine *eng, const char *fio_path)
{
	if (eng->id == ENGINE_FIO && fio_path && *fio_path)
		return fio_path;
	return eng->exe;
}

int engine_available(const struct engine *eng, const char *fio_path, struct err *e)
{
	const char *exe;

	if (!eng)
		return err_set(e, -EINVAL, ERR_BAD_REQUEST, "unknown engine");
	exe = engine_exe(eng, fio_path);
	if (!engine_tool_found(exe))
		return err_set(e, -ENOENT, ERR_ENGINE_UNAVAILABLE,
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

int engine_line_rfind(const char *s, size_t len,
                      int (*match)(const char *line, size_t n, void *ctx), void *ctx)
{
	size_t end = len, start;

	if (!s)
		return 0;
	while (end > 0) {
		start = end;
		while (start > 0 && s[start - 1] != '\n' && s[start - 1] != '\r')
			start--;
		if (match(s + start, end - start, ctx))
			return 1;
		end = start ? start - 1 : 0;
	}
	return 0;
}

/* Where engine_line_last copies its line. */
struct line_out {
	char *out;
	size_t len;
};

static int nonblank_copy(const char *line, size_t n, void *ctx)
{
	struct line_out *o = ctx;

	if (is_blank(line, n))
		return 0;
	copy_trimmed(line, n, o->out, o->len);
	return 1;
}

int engine_line_last(const char *s, size_t len, char *out, size_t outlen)
{
	struct line_out o = { out, outlen };

	return engine_line_rfind(s, len, nonblank_copy, &o);
}
