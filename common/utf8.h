/* utf8.h -- text that stays valid UTF-8: bytes from clients quoted in messages, cuts on
 * character boundaries. Every error message goes through utf8_clean (err_set, http_error). */
#ifndef FT_UTF8_H
#define FT_UTF8_H

#include <stdbool.h>
#include <stddef.h>

/*
 * The length in bytes of the longest prefix of s that holds at most max bytes and does not end
 * inside a UTF-8 character: for "%.*s" in place of "%.64s", which can cut "é" in two. Bytes
 * that are not UTF-8 count one each (utf8_clean escapes them later).
 */
int utf8_cut(const char *s, size_t max);

/*
 * Copy src into dst (dstlen bytes, always NUL-terminated when dstlen > 0): valid UTF-8 as it
 * is, except the characters utf8_code_hidden names; every byte that is not part of a valid
 * UTF-8 character and every ASCII control character as the four characters "\xHH", every other
 * hidden character as the six "\uHHHH" (U+009B, the C1 CSI: "\u009b"; U+202E: "\u202e"). Stops
 * before a character or an escape that would not fit whole, so the result is valid UTF-8 and
 * never ends in a cut character. dst and src must not overlap. Returns the bytes written
 * (without the NUL). The one rule for text from outside (clients, agents) that reaches a
 * terminal, a log or a file a person reads.
 */
size_t utf8_clean(char *dst, size_t dstlen, const char *src);
/* utf8_clean into a new string that holds all of it. Caller has ownership. */
char *utf8_clean_dup(const char *src);
/* Whether utf8_clean would give s back unchanged. */
bool utf8_is_clean(const char *s);
/* The same rule for text of many lines (what a command prints): '\n' and '\t' kept. */
char *utf8_clean_text_dup(const char *src);
bool utf8_text_is_clean(const char *s);
/* Whether code point c is shown as an escape, never as itself: C0 controls and DEL, the C1
 * controls U+0080..U+009F (U+009B is a CSI that terminals obey), and the characters that
 * reorder or break what is shown: U+061C, U+200E, U+200F, U+2028..U+202E (line and
 * paragraph separators, bidi embeddings and overrides), U+2066..U+2069 (bidi isolates). */
bool utf8_code_hidden(unsigned long c);

/*
 * The byte offset of the first character in s that is not plain text, or -1 when there is
 * none: a character utf8_code_hidden() names (a line break, a tab, ESC, DEL, a C1 control,
 * a bidirectional mark, embedding, override or isolate, a line separator), or a byte that is
 * not UTF-8. For free text a client gives and others display (a job's labels).
 */
long utf8_control_at(const char *s);

#endif
