/* buf.h -- a growable byte buffer, always NUL-terminated. */
#ifndef FT_BUF_H
#define FT_BUF_H

#include <stddef.h>

struct buf {
	char *data; /* NUL-terminated when non-NULL */
	size_t len;
	size_t cap;
};

#define BUF_INIT                                                                                   \
	{                                                                                          \
		NULL, 0, 0                                                                         \
	}

void buf_init(struct buf *b);
void buf_release(struct buf *b);
void buf_reset(struct buf *b);
void buf_append(struct buf *b, const void *p, size_t n);
void buf_puts(struct buf *b, const char *s);
void buf_printf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Hand the data to the caller (never NULL) and reset b. Caller has ownership. */
char *buf_detach(struct buf *b, size_t *len);
/* Read a whole file (at most max_bytes) into b. Returns 0 or -errno. */
int buf_read_file(struct buf *b, const char *path, size_t max_bytes);
/* The first line of a small file (at most 4 KiB read) into out, without its newline; "" when
 * the file cannot be read. */
void buf_read_line(const char *path, char *out, size_t len);
/* Replace the file at path with data[0..len) (mode 0644 before the umask): written to
 * "PATH.tmp" and renamed over path, so a reader sees the old file or the new one, never half.
 * Returns 0 or -errno (the temporary file removed). */
int buf_write_file(const char *path, const void *data, size_t len);

#endif
