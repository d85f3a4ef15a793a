/* jsonstream.c -- a pull tokenizer over JSON text in memory: members, elements and the spans
 * of skipped values, every error with its line and column. */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "jsonstream.h"
#include "banned.h"

/* "line L, column C: WHAT" at offset off, as an invalid_json error. */
static int fail_at(const struct jsonstream *js, size_t off, const char *what, struct err *e)
{
	int line, column;

	jsonstream_where(js, off, &line, &column);
	return err_set(e, -EINVAL, ERR_INVALID_JSON, "line %d, column %d: %s", line, column, what);
}

static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

void jsonstream_init(struct jsonstream *js, const char *text, size_t len)
{
	js->text = text;
	js->len = len;
	js->pos = 0;
}

char jsonstream_peek(struct jsonstream *js)
{
	while (js->pos < js->len && blank(js->text[js->pos]))
		js->pos++;
	return js->pos < js->len ? js->text[js->pos] : '\0';
}

int jsonstream_enter(struct jsonstream *js, char open, struct err *e)
{
	if (jsonstream_peek(js) != open)
		return fail_at(js, js->pos, open == '{' ? "expected '{'" : "expected '['", e);
	js->pos++;
	return 0;
}

/* The string at the position (its opening quote): the position after its closing quote. */
static int string_skip(struct jsonstream *js, struct err *e)
{
	size_t start = js->pos;
	const char *t = js->text;

	for (js->pos++; js->pos < js->len; js->pos++) {
		if (t[js->pos] == '\\')
			js->pos++;
		else if (t[js->pos] == '"')
			break;
	}
	if (js->pos >= js->len)
		return fail_at(js, start, "unterminated string", e);
	js->pos++;
	return 0;
}

/* After the first item of an object or array: ',' (then 1) or the closer (then 0). */
static int separator(struct jsonstream *js, size_t *count, char close, struct err *e)
{
	char c = jsonstream_peek(js);

	if (c == close) {
		js->pos++;
		return 0;
	}
	if (*count == 0)
		return 1;
	if (c != ',')
		return fail_at(js, js->pos,
		               close == '}' ? "expected ',' or '}'" : "expected ',' or ']'", e);
	js->pos++;
	jsonstream_peek(js);
	return 1;
}

int jsonstream_member(struct jsonstream *js, size_t *count, size_t *key_start, size_t *key_end,
                      struct err *e)
{
	int rc = separator(js, count, '}', e);

	if (rc <= 0)
		return rc;
	if (js->pos >= js->len || js->text[js->pos] != '"')
		return fail_at(js, js->pos, "expected a string (an object's key)", e);
	*key_start = js->pos;
	if ((rc = string_skip(js, e)) < 0)
		return rc;
	*key_end = js->pos;
	if (jsonstream_peek(js) != ':')
		return fail_at(js, js->pos, "expected ':'", e);
	js->pos++;
	jsonstream_peek(js);
	(*count)++;
	return 1;
}

int jsonstream_element(struct jsonstream *js, size_t *count, struct err *e)
{
	int rc = separator(js, count, ']', e);

	if (rc <= 0)
		return rc;
	(*count)++;
	return 1;
}

int jsonstream_skip(struct jsonstream *js, size_t *start, size_t *end, struct err *e)
{
	char stack[JSONSTREAM_DEPTH_MAX], c = jsonstream_peek(js);
	const char *t = js->text;
	int depth = 0, rc;

	*start = js->pos;
	if (!c)
		return fail_at(js, js->pos, "expected a value", e);
	if (c == '"') {
		if ((rc = string_skip(js, e)) < 0)
			return rc;
		*end = js->pos;
		return 0;
	}
	if (c != '{' && c != '[') { /* a number, true, false or null: up to what ends it */
		while (js->pos < js->len && !blank(t[js->pos]) && !strchr(",:]}[{\"", t[js->pos]))
			js->pos++;
		if (js->pos == *start)
			return fail_at(js, js->pos, "expected a value", e);
		*end = js->pos;
		return 0;
	}
	while (js->pos < js->len) {
		c = t[js->pos];
		if (c == '"') {
			if ((rc = string_skip(js, e)) < 0)
				return rc;
			continue;
		}
		if (c == '{' || c == '[') {
			if (depth == JSONSTREAM_DEPTH_MAX)
				return fail_at(js, js->pos, "nested too deep", e);
			stack[depth++] = c == '{' ? '}' : ']';
		} else if (c == '}' || c == ']') {
			if (c != stack[depth - 1])
				return fail_at(js, js->pos, "unexpected bracket", e);
			if (--depth == 0) {
				*end = ++js->pos;
				return 0;
			}
		}
		js->pos++;
	}
	return fail_at(js, *start, "unterminated object or array", e);
}

int jsonstream_end(struct jsonstream *js, struct err *e)
{
	if (jsonstream_peek(js))
		return fail_at(js, js->pos, "end of file expected", e);
	return 0;
}

void jsonstream_where(const struct jsonstream *js, size_t off, int *line, int *column)
{
	size_t i, bol = 0;

	*line = 1;
	for (i = 0; i < off && i < js->len; i++) {
		if (js->text[i] == '\n') {
			(*line)++;
			bol = i + 1;
		}
	}
	*column = (int)(off - bol) + 1;
}
