/* buf.c -- growable byte buffer. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "xmalloc.h"
#include "banned.h"

void buf_init(struct buf *b)
{
	b->data = NULL;
	b->len = 0;
	b->cap = 0;
}

void buf_release(struct buf *b)
{
	if (!b)
		return;
	free(b->data);
	buf_init(b);
}

void buf_reset(struct buf *b)
{
	b->len = 0;
	if (b->data)
		b->data[0] = '\0';
}

static void buf_grow(struct buf *b, size_t extra)
{
	size_t need = b->len + extra + 1;

	if (need <= b->cap)
		return;
	if (b->cap * 2 > need)
		need = b->cap * 2;
	if (need < 64)
		need = 64;
	b->data = xrealloc(b->data, need);
	b->cap = need;
}

void buf_append(struct buf *b, const void *p, size_t n)
{
	buf_grow(b, n);
	if (n)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
}

void buf_puts(struct buf *b, const char *s)
{
	buf_append(b, s, strlen(s));
}

void buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	buf_grow(b, (size_t)n);
	va_start(ap, fmt);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

char *buf_detach(struct buf *b, size_t *len)
{
	char *p;

	if (!b->data)
		buf_grow(b, 0), b->data[0] = '\0';
	p = b->data;
	if (len)
		*len = b->len;
	buf_init(b);
	return p;
}

int buf_write_file(const char *path, const void *data, size_t len)
{
	struct buf tmp = BUF_INIT;
	const char *p = data;
	int fd, rc = 0;
	ssize_t n;

	buf_printf(&tmp, "%s.tmp", path);
	fd = open(tmp.data, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		rc = -errno;
		goto out;
	}
	while (len > 0) {
		n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = -errno;
			break;
		}
		p += n;
		len -= (size_t)n;
	}
	if (close(fd) < 0 && rc == 0)
		rc = -errno;
	if (rc == 0 && rename(tmp.data, path) < 0)
		rc = -errno;
	if (rc)
		unlink(tmp.data);
out:
	buf_release(&tmp);
	return rc;
}

int buf_read_file(struct buf *b, const char *path, size_t max_bytes)
{
	char tmp[8192];
	int fd, rc = 0;
	ssize_t n;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (;;) {
		n = read(fd, tmp, sizeof(tmp));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			rc = -errno;
			break;
		}
		if (n == 0)
			break;
		if (b->len + (size_t)n > max_bytes) {
			rc = -EFBIG;
			break;
		}
		buf_append(b, tmp, (size_t)n);
	}
	close(fd);
	if (!b->data)
		buf_append(b, "", 0);
	return rc;
}

void buf_read_line(const char *path, char *out, size_t len)
{
	struct buf b = BUF_INIT;

	out[0] = '\0';
	if (buf_read_file(&b, path, 4096) == 0)
		snprintf(out, len, "%.*s", (int)strcspn(b.data, "\n"), b.data);
	buf_release(&b);
}
