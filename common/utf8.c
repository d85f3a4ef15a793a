/* utf8.c -- UTF-8 validation for messages: cut on character boundaries, escape what is not. */
#include <stdio.h>
#include <string.h>

#include "utf8.h"
#include "xmalloc.h"
#include "banned.h"

/* The length of the valid UTF-8 character at s (1..4), or 0 if s does not start one: no
 * overlong forms, no surrogates, nothing above U+10FFFF (what jansson accepts). */
static size_t char_len(const unsigned char *s)
{
	unsigned char c = s[0];

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		return (s[1] & 0xc0) == 0x80 ? 2 : 0;
	if (c >= 0xe0 && c <= 0xef) {
		unsigned char lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;

		return s[1] >= lo && s[1] <= hi && (s[2] & 0xc0) == 0x80 ? 3 : 0;
	}
	if (c >= 0xf0 && c <= 0xf4) {
		unsigned char lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;

		return s[1] >= lo && s[1] <= hi && (s[2] & 0xc0) == 0x80 && (s[3] & 0xc0) == 0x80
		               ? 4
		               : 0;
	}
	return 0;
}

int utf8_cut(const char *s, size_t max)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n = 0, len;

	while (u[n]) {
		len = char_len(u + n);
		if (!len)
			len = 1;
		if (n + len > max)
			break;
		n += len;
	}
	return (int)n;
}

/* The code point of the valid character of len bytes at s. */
static unsigned long char_code(const unsigned char *s, size_t len)
{
	if (len == 1)
		return s[0];
	if (len == 2)
		return (unsigned long)(s[0] & 0x1f) << 6 | (s[1] & 0x3f);
	if (len == 3)
		return (unsigned long)(s[0] & 0x0f) << 12 | (unsigned long)(s[1] & 0x3f) << 6 |
		       (s[2] & 0x3f);
	return (unsigned long)(s[0] & 0x07) << 18 | (unsigned long)(s[1] & 0x3f) << 12 |
	       (unsigned long)(s[2] & 0x3f) << 6 | (s[3] & 0x3f);
}

bool utf8_code_hidden(unsigned long c)
{
	return c < 0x20 || c == 0x7f || (c >= 0x80 && c <= 0x9f) || c == 0x061c || c == 0x200e ||
	       c == 0x200f || (c >= 0x2028 && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069);
}

/* How the character or byte at u (len bytes, 0: not a valid character) is written: 0 when
 * as it is, else the escape in esc ("\xHH" or "\u202e"). */
static size_t char_escape(const unsigned char *u, size_t len, bool lines, char esc[8])
{
	unsigned long c;

	if (!len) {
		snprintf(esc, 8, "\\x%02x", u[0]);
		return 4;
	}
	c = char_code(u, len);
	if (!utf8_code_hidden(c) || (lines && (c == '\n' || c == '\t')))
		return 0;
	if (c < 0x80) {
		snprintf(esc, 8, "\\x%02lx", c);
		return 4;
	}
	snprintf(esc, 8, "\\u%04lx", c);
	return 6;
}

static size_t clean(char *dst, size_t dstlen, const char *src, bool lines)
{
	const unsigned char *u = (const unsigned char *)src;
	size_t o = 0, i = 0, len, elen;
	char esc[8];

	if (!dstlen)
		return 0;
	while (u[i]) {
		len = char_len(u + i);
		elen = char_escape(u + i, len, lines, esc);
		if (!elen) {
			if (o + len >= dstlen)
				break;
			for (size_t k = 0; k < len; k++)
				dst[o++] = (char)u[i + k];
			i += len;
			continue;
		}
		if (o + elen >= dstlen)
			break;
		memcpy(dst + o, esc, elen);
		o += elen;
		i += len ? len : 1;
	}
	dst[o] = '\0';
	return o;
}

size_t utf8_clean(char *dst, size_t dstlen, const char *src)
{
	return clean(dst, dstlen, src, false);
}

static bool is_clean(const char *s, bool lines)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, len;
	char esc[8];

	while (u[i]) {
		len = char_len(u + i);
		if (char_escape(u + i, len, lines, esc))
			return false;
		i += len;
	}
	return true;
}

bool utf8_is_clean(const char *s)
{
	return is_clean(s, false);
}

static char *clean_dup(const char *s, bool lines)
{
	size_t n = strlen(s) * 6 + 1; /* the longest escape is 6 bytes for at least 1 */
	char *d = xmalloc(n);

	clean(d, n, s, lines);
	return d;
}

char *utf8_clean_dup(const char *s)
{
	return clean_dup(s, false);
}

bool utf8_text_is_clean(const char *s)
{
	return is_clean(s, true);
}

char *utf8_clean_text_dup(const char *s)
{
	return clean_dup(s, true);
}

long utf8_control_at(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n = 0, len;

	while (u[n]) {
		len = char_len(u + n);
		if (!len || utf8_code_hidden(char_code(u + n, len)))
			return (long)n;
		n += len;
	}
	return -1;
}
