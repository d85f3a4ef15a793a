/* options.c -- command-line options from one table: parsing with getopt_long, --help and the
 * usage synopsis. */
#include <assert.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "num.h"
#include "options.h"
#include "xmalloc.h"
#include "banned.h"

/* getopt_long's value of table entry i (above every letter). */
#define OPT_VAL0 256

static void *opt_at(const struct opt *o, void *ctx)
{
	return (char *)ctx + o->off;
}

int opt_take_str(const struct opt *o, const char *arg, void *ctx, struct err *e)
{
	(void)e;
	*(const char **)opt_at(o, ctx) = arg;
	return 0;
}

int opt_take_flag(const struct opt *o, const char *arg, void *ctx, struct err *e)
{
	(void)arg;
	(void)e;
	*(bool *)opt_at(o, ctx) = true;
	return 0;
}

/* arg as an integer in o's range. */
static int opt_range(const struct opt *o, const char *arg, int64_t *v, struct err *e)
{
	if (num_parse_i64(arg, v) == 0 && *v >= o->min && *v <= o->max)
		return 0;
	if (o->max == INT64_MAX && o->min == 1)
		return err_set(e, -1, ERR_USAGE, "--%s: '%s' is not a positive integer", o->name,
		               arg);
	if (o->max == INT64_MAX && o->min == 0)
		return err_set(e, -1, ERR_USAGE, "--%s: '%s' is not a count (0 or more)", o->name,
		               arg);
	return err_set(e, -1, ERR_USAGE, "--%s: '%s' is not an integer in %lld..%lld", o->name, arg,
	               (long long)o->min, (long long)o->max);
}

int opt_take_i64(const struct opt *o, const char *arg, void *ctx, struct err *e)
{
	int64_t v;

	if (opt_range(o, arg, &v, e) < 0)
		return -1;
	*(int64_t *)opt_at(o, ctx) = v;
	return 0;
}

int opt_take_int(const struct opt *o, const char *arg, void *ctx, struct err *e)
{
	int64_t v;

	assert(o->min >= INT32_MIN && o->max <= INT32_MAX);
	if (opt_range(o, arg, &v, e) < 0)
		return -1;
	*(int *)opt_at(o, ctx) = (int)v;
	return 0;
}

int opt_take_uint(const struct opt *o, const char *arg, void *ctx, struct err *e)
{
	int64_t v;

	assert(o->min >= 0 && o->max <= UINT32_MAX);
	if (opt_range(o, arg, &v, e) < 0)
		return -1;
	*(unsigned *)opt_at(o, ctx) = (unsigned)v;
	return 0;
}

/* The entry getopt_long's answer ch stands for, or -1. */
static int opt_index(const struct opt *t, size_t n, int ch)
{
	size_t i;

	if (ch >= OPT_VAL0 && ch < OPT_VAL0 + (int)n)
		return ch - OPT_VAL0;
	for (i = 0; ch > 0 && i < n; i++)
		if (t[i].letter == ch)
			return (int)i;
	return -1;
}

/* getopt_long's tables for t: the long options, and the letters (":" first, so that a missing
 * argument is told from an unknown option). */
static void opt_tables(const struct opt *t, size_t n, struct option *lo, char *letters)
{
	static const int has[] = { [OPT_FLAG] = no_argument,
		                   [OPT_REQUIRED] = required_argument,
		                   [OPT_OPTIONAL] = optional_argument };
	char *l = letters;
	size_t i;

	*l++ = ':';
	for (i = 0; i < n; i++) {
		lo[i] = (struct option){ t[i].name, has[t[i].has_arg], NULL, OPT_VAL0 + (int)i };
		if (!t[i].letter)
			continue;
		*l++ = (char)t[i].letter;
		if (t[i].has_arg != OPT_FLAG)
			*l++ = ':';
		if (t[i].has_arg == OPT_OPTIONAL)
			*l++ = ':';
	}
	*l = '\0';
}

/* What getopt_long's '?' or ':' for argv[bad] means. */
static int opt_refused(const struct opt *t, size_t n, int ch, const char *arg, struct err *e)
{
	int i = opt_index(t, n, optopt);

	if (ch == ':' && i >= 0)
		return err_set(e, -1, ERR_USAGE, "--%s needs a value (--%s %s)", t[i].name,
		               t[i].name, t[i].arg ? t[i].arg : "VALUE");
	if (i >= 0)
		return err_set(e, -1, ERR_USAGE, "--%s takes no value ('%s')", t[i].name, arg);
	return err_set(e, -1, ERR_USAGE, "unknown option '%s'", arg);
}

int opt_parse(const struct opt *t, size_t n, uint64_t mask, const char *who, int argc, char **argv,
              void *ctx, int *first_arg, struct err *e)
{
	struct option *lo = xcalloc(n + 1, sizeof(*lo));
	char *letters = xmalloc(3 * n + 2);
	int ch, i, rc = -1;

	assert(n <= OPT_MAX);
	opt_tables(t, n, lo, letters);
	optind = 0; /* glibc: start again at argv[1], whatever was parsed before */
	opterr = 0;
	while ((ch = getopt_long(argc, argv, letters, lo, NULL)) != -1) {
		i = opt_index(t, n, ch);
		if (ch == '?' || ch == ':' || i < 0) {
			opt_refused(t, n, ch, argv[optind - 1], e);
			goto out;
		}
		if (!(mask & OPT_BIT(i))) {
			err_set(e, -1, ERR_USAGE, "%s does not take --%s", who, t[i].name);
			goto out;
		}
		if (t[i].take(&t[i], optarg, ctx, e) < 0)
			goto out;
	}
	*first_arg = optind;
	rc = 0;
out:
	free(lo);
	free(letters);
	return rc;
}

/* "-f, --name ARG" or "--name[=ARG]" into out. */
static void opt_spelling(const struct opt *o, struct buf *out)
{
	if (o->letter)
		buf_printf(out, "-%c, ", o->letter);
	buf_printf(out, "--%s", o->name);
	if (o->has_arg == OPT_REQUIRED)
		buf_printf(out, " %s", o->arg);
	else if (o->has_arg == OPT_OPTIONAL)
		buf_printf(out, "[=%s]", o->arg);
}

void opt_help_print(FILE *f, const struct opt *t, size_t n, uint64_t mask, int width)
{
	struct buf b = BUF_INIT;
	const char *h, *nl;
	size_t i;

	for (i = 0; i < n; i++) {
		if (!(mask & OPT_BIT(i)))
			continue;
		buf_reset(&b);
		buf_puts(&b, "  ");
		opt_spelling(&t[i], &b);
		/* A spelling too long for the column gets one blank before its help. */
		fprintf(f, "%-*s ", width - 1, b.data);
		for (h = t[i].help; (nl = strchr(h, '\n')); h = nl + 1)
			fprintf(f, "%.*s\n%*s", (int)(nl - h), h, width, "");
		fprintf(f, "%s\n", h);
	}
	buf_release(&b);
}

bool opt_named(const char *text, const char *name)
{
	size_t len = strlen(name);
	const char *p;

	for (p = text; (p = strstr(p, "--")); p += 2)
		if (!strncmp(p + 2, name, len) &&
		    !strchr("abcdefghijklmnopqrstuvwxyz-", p[2 + len]))
			return true;
	return false;
}

void opt_synopsis(struct buf *out, const struct opt *t, size_t n, uint64_t mask, int col,
                  int indent)
{
	struct buf one = BUF_INIT;
	const char *nl;
	size_t i, line;

	for (i = 0; i < n; i++) {
		if (!(mask & OPT_BIT(i)) || opt_named(out->data ? out->data : "", t[i].name))
			continue;
		buf_reset(&one);
		buf_puts(&one, "[");
		if (t[i].has_arg == OPT_REQUIRED)
			buf_printf(&one, "--%s %s", t[i].name, t[i].arg);
		else if (t[i].has_arg == OPT_OPTIONAL)
			buf_printf(&one, "--%s[=%s]", t[i].name, t[i].arg);
		else
			buf_printf(&one, "--%s", t[i].name);
		buf_puts(&one, "]");
		nl = out->data ? strrchr(out->data, '\n') : NULL;
		line = out->len - (nl ? (size_t)(nl + 1 - out->data) : 0);
		if (line + 1 + one.len > (size_t)col)
			buf_printf(out, "\n%*s", indent, "");
		else
			buf_puts(out, " ");
		buf_puts(out, one.data);
	}
	buf_release(&one);
}
