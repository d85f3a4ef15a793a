/* utf8.h -- text that stays valid UTF-8: bytes from clients quoted in messages, cuts on
 * character boundaries. Every error message goes through utf8_clean (err_set, http_error). */
#ifndef FT_UTF8_H
#define FT_UTF8_H

#include <stddef.h>

/*
 * The length in bytes of the longest prefix of s that holds at most max bytes and does not end
 * inside a UTF-8 character: for "%.*s" in place of "%.64s", which can cut "é" in two. Bytes
 * that are not UTF-8 count one each (utf8_clean escapes them later).
 */
int utf8_cut(const char *s, size_t max);

/*
 * Copy src into dst (dstlen bytes, always NUL-terminated when dstlen > 0): valid UTF-8 as it
 * is; every byte that is not part of a valid UTF-8 character, and every ASCII control
 * character, as the four characters "\xHH". Stops before a character or an escape that would
 * not fit whole, so the result is valid UTF-8 and never ends in a cut character. dst and src
 * must not overlap. Returns the bytes written (without the NUL).
 */
size_t utf8_clean(char *dst, size_t dstlen, const char *src);

/*
 * The byte offset of the first character in s that is not plain text, or -1 when there is
 * none: an ASCII control character (a line break, a tab, ESC, DEL), a C1 control (U+0080 to
 * U+009F, CSI among them), a bidirectional mark, embedding, override or isolate (U+200E,
 * U+200F, U+202A to U+202E, U+2066 to U+2069), or a byte that is not UTF-8. For free text a
 * client gives and others display (a job's labels).
 */
long utf8_control_at(const char *s);

#endif
