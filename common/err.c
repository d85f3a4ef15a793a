/* err.c -- filling struct err. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "err.h"
#include "utf8.h"
#include "banned.h"

/* Fill e with code (word: its outside word, or NULL) and the message fmt makes, after
 * "PATH: " when path is not NULL. */
static int err_vset(struct err *e, int rc, enum err_code code, const char *word, const char *path,
                    const char *fmt, va_list ap)
{
	char raw[1024], w[sizeof(e->word)];
	int at = 0;

	if (!e)
		return rc;
	if (code == ERR_NONE)
		code = ERR_INTERNAL;
	/* Formatted aside first: the arguments may be e's own word and message. */
	if (code != ERR_UNLISTED)
		w[0] = '\0';
	else
		utf8_clean(w, sizeof(w), word ? word : e->word);
	if (path)
		at = snprintf(raw, sizeof(raw), "%s: ", path);
	if (at < 0 || (size_t)at >= sizeof(raw))
		at = 0;
	vsnprintf(raw + at, sizeof(raw) - (size_t)at, fmt, ap);
	e->code = code;
	memcpy(e->word, w, sizeof(w));
	/* Messages quote client input: keep them valid UTF-8 (JSON), cut between characters. */
	utf8_clean(e->msg, sizeof(e->msg), raw);
	return rc;
}

int err_set(struct err *e, int rc, enum err_code code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	rc = err_vset(e, rc, code, NULL, NULL, fmt, ap);
	va_end(ap);
	return rc;
}

int err_set_at(struct err *e, int rc, enum err_code code, const char *path, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	rc = err_vset(e, rc, code, NULL, path, fmt, ap);
	va_end(ap);
	return rc;
}

int err_set_word(struct err *e, int rc, const char *word, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	rc = err_vset(e, rc, err_code_parse(word), word, NULL, fmt, ap);
	va_end(ap);
	return rc;
}

const char *err_word(const struct err *e)
{
	if (e->code == ERR_UNLISTED && e->word[0])
		return e->word;
	return err_code_name(e->code);
}

void err_clear(struct err *e)
{
	if (e)
		memset(e, 0, sizeof(*e));
}
