/* err.c -- filling struct err. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "err.h"
#include "utf8.h"
#include "banned.h"

int err_set(struct err *e, int rc, const char *code, const char *fmt, ...)
{
	char raw[1024], c[sizeof(e->code)];
	va_list ap;

	if (!e)
		return rc;
	/* Formatted aside first: the arguments may be e's own code and message. */
	snprintf(c, sizeof(c), "%s", code ? code : "internal");
	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	memcpy(e->code, c, sizeof(c));
	/* Messages quote client input: keep them valid UTF-8 (JSON), cut between characters. */
	utf8_clean(e->msg, sizeof(e->msg), raw);
	return rc;
}

void err_clear(struct err *e)
{
	if (e)
		memset(e, 0, sizeof(*e));
}
