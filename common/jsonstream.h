/* jsonstream.h -- a pull tokenizer over JSON text in memory: objects and arrays walked member
 * by member, any value skipped as a span of the text (which a JSON parser then reads alone). */
#ifndef FT_JSONSTREAM_H
#define FT_JSONSTREAM_H

#include <stddef.h>

#include "err.h"

/* Deepest nesting a skipped value may have (jansson's own limit). */
#define JSONSTREAM_DEPTH_MAX 2048

/* A position in text[0..len); the text is borrowed and must outlive the stream. */
struct jsonstream {
	const char *text;
	size_t len;
	size_t pos;
};

/* Stand at the start of text[0..len). */
void jsonstream_init(struct jsonstream *js, const char *text, size_t len);

/* Move to the first byte after blanks (space, tab, CR, LF) and return it; 0 at the end. */
char jsonstream_peek(struct jsonstream *js);

/* Step into the object ('{') or array ('[') at the position (after blanks). Returns 0, or
 * -EINVAL ("invalid_json", "line L, column C: expected '{'") when something else stands
 * there. */
int jsonstream_enter(struct jsonstream *js, char open, struct err *e);

/*
 * The next member of the object entered (*count: the members read so far, 0 before the
 * first; incremented here). Returns 1 with the key's span [*key_start, *key_end) (the quoted
 * string, quotes included: a JSON string a parser can decode) and the position at its value;
 * 0 at the object's '}' (the position after it); -EINVAL on a missing ',' ':' or '"'.
 */
int jsonstream_member(struct jsonstream *js, size_t *count, size_t *key_start, size_t *key_end,
                      struct err *e);

/* The next element of the array entered, as jsonstream_member: 1 with the position at the
 * element, 0 at the array's ']' (the position after it), -EINVAL. */
int jsonstream_element(struct jsonstream *js, size_t *count, struct err *e);

/*
 * Skip the value at the position: its span [*start, *end). Strings and the nesting of
 * objects and arrays are followed (brackets must match); what lies inside is not checked:
 * the caller hands the span to a parser, or walks it. Returns 0 or -EINVAL.
 */
int jsonstream_skip(struct jsonstream *js, size_t *start, size_t *end, struct err *e);

/* Only blanks remain: 0, else -EINVAL. */
int jsonstream_end(struct jsonstream *js, struct err *e);

/* The 1-based line and column (bytes) of offset off of the text. */
void jsonstream_where(const struct jsonstream *js, size_t off, int *line, int *column);

#endif
