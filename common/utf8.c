/* utf8.c -- UTF-8 validation for messages: cut on character boundaries, escape what is not. */
#include <stdio.h>

#include "utf8.h"
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

size_t utf8_clean(char *dst, size_t dstlen, const char *src)
{
	const unsigned char *u = (const unsigned char *)src;
	size_t o = 0, i = 0, len;

	if (!dstlen)
		return 0;
	while (u[i]) {
		len = char_len(u + i);
		if (len == 1 && (u[i] < 0x20 || u[i] == 0x7f))
			len = 0; /* a control character: escaped like a bad byte */
		if (len) {
			if (o + len >= dstlen)
				break;
			for (size_t k = 0; k < len; k++)
				dst[o++] = (char)u[i + k];
			i += len;
			continue;
		}
		if (o + 4 >= dstlen)
			break;
		snprintf(dst + o, 5, "\\x%02x", u[i]);
		o += 4;
		i++;
	}
	dst[o] = '\0';
	return o;
}

/* The code point of the valid character of len bytes at s. */
static unsigned long char_code(const unsigned char *s, size_t len)
{
	switch (len) {
	case 1:
		return s[0];
	case 2:
		return (unsigned long)(s[0] & 0x1f) << 6 | (s[1] & 0x3f);
	case 3:
		return (unsigned long)(s[0] & 0x0f) << 12 | (unsigned long)(s[1] & 0x3f) << 6 |
		       (s[2] & 0x3f);
	default:
		return (unsigned long)(s[0] & 0x07) << 18 | (unsigned long)(s[1] & 0x3f) << 12 |
		       (unsigned long)(s[2] & 0x3f) << 6 | (s[3] & 0x3f);
	}
}

/* Whether code point c controls a terminal or the direction of text. */
static int code_is_control(unsigned long c)
{
	return c < 0x20 || c == 0x7f || (c >= 0x80 && c <= 0x9f) || c == 0x200e || c == 0x200f ||
	       (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069);
}

long utf8_control_at(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n = 0, len;

	while (u[n]) {
		len = char_len(u + n);
		if (!len || code_is_control(char_code(u + n, len)))
			return (long)n;
		n += len;
	}
	return -1;
}
