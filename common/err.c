/* err.c -- filling struct err. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "err.h"
#include "utf8.h"
#include "banned.h"

/* Fill e with code and the message fmt makes, after "PATH: " when path is not NULL. */
static int err_vset(struct err *e, int rc, const char *code, const char *path, const char *fmt,
                    va_list ap)
{
	char raw[1024], c[sizeof(e->code)];
	int at = 0;

	if (!e)
		return rc;
	/* Formatted aside first: the arguments may be e's own code and message. */
	snprintf(c, sizeof(c), "%s", code ? code : "internal");
	if (path)
		at = snprintf(raw, sizeof(raw), "%s: ", path);
	if (at < 0 || (size_t)at >= sizeof(raw))
		at = 0;
	vsnprintf(raw + at, sizeof(raw) - (size_t)at, fmt, ap);
	memcpy(e->code, c, sizeof(c));
	/* Messages quote client input: keep them valid UTF-8 (JSON), cut between characters. */
	utf8_clean(e->msg, sizeof(e->msg), raw);
	return rc;
}

int err_set(struct err *e, int rc, const char *code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	rc = err_vset(e, rc, code, NULL, fmt, ap);
	va_end(ap);
	return rc;
}

int err_set_at(struct err *e, int rc, const char *code, const char *path, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	rc = err_vset(e, rc, code, path, fmt, ap);
	va_end(ap);
	return rc;
}

void err_clear(struct err *e)
{
	if (e)
		memset(e, 0, sizeof(*e));
}
