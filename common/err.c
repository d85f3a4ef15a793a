/* err.c -- filling struct err. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "err.h"
#include "banned.h"

int err_set(struct err *e, int rc, const char *code, const char *fmt, ...)
{
	va_list ap;

	if (!e)
		return rc;
	snprintf(e->code, sizeof(e->code), "%s", code ? code : "internal");
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	return rc;
}

void err_clear(struct err *e)
{
	if (e)
		memset(e, 0, sizeof(*e));
}
