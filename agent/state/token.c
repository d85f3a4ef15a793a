/* token.c -- the bearer token file: checked when read, made durably (temp, fsync, link, fsync
 * of the directory) when absent. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "state/token.h"
#include "banned.h"

#define TOKEN_FILE_MAX 4096

/* The directory part of path ("." when it has none). */
static void dir_of(const char *path, char *out, size_t len)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		snprintf(out, len, ".");
	else if (slash == path)
		snprintf(out, len, "/");
	else
		snprintf(out, len, "%.*s", (int)(slash - path), path);
}

/* fsync the directory dir: a link made in it survives a crash. */
static int dir_sync(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), rc = 0;

	if (fd < 0)
		return -errno;
	if (fsync(fd) < 0)
		rc = -errno;
	close(fd);
	return rc;
}

/* Write data to a new temporary file beside path, fsync it, link it to path and fsync the
 * directory. -EEXIST when path appeared meanwhile (nothing replaced). */
static int durable_create(const char *path, const char *data, size_t len, struct err *e)
{
	char dir[PATH_MAX], tmp[PATH_MAX + 32];
	const char *p = data;
	ssize_t n;
	int fd, rc = 0;

	dir_of(path, dir, sizeof(dir));
	snprintf(tmp, sizeof(tmp), "%s.new.%d", path, (int)getpid());
	unlink(tmp); /* a previous crash's, of a pid that is ours again */
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return err_set(e, -errno, ERR_INTERNAL, "cannot create token file '%s': %s", tmp,
		               strerror(errno));
	while (len > 0 && rc == 0) {
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
	if (rc == 0 && fsync(fd) < 0)
		rc = -errno;
	if (close(fd) < 0 && rc == 0)
		rc = -errno;
	if (rc) {
		err_set(e, rc, ERR_INTERNAL, "cannot write token file '%s': %s", tmp,
		        strerror(-rc));
		goto out;
	}
	if (link(tmp, path) < 0) {
		rc = -errno;
		if (rc != -EEXIST)
			err_set(e, rc, ERR_INTERNAL, "cannot create token file '%s': %s", path,
			        strerror(-rc));
		goto out;
	}
	rc = dir_sync(dir);
	if (rc)
		err_set(e, rc, ERR_INTERNAL, "cannot sync the directory of token file '%s': %s",
		        path, strerror(-rc));
out:
	unlink(tmp);
	return rc;
}

/* The token in b (the file's bytes): trailing blanks and line ends dropped, then checked. */
static int token_parse(const char *path, const struct buf *b, char *out, size_t len, struct err *e)
{
	size_t n = b->len, i;

	while (n && (b->data[n - 1] == '\n' || b->data[n - 1] == '\r' || b->data[n - 1] == ' '))
		n--;
	if (n == 0)
		return err_set(
		        e, -EINVAL, ERR_INTERNAL,
		        "token file '%s' is empty (cut short by a crash?): remove it and the "
		        "agent makes a new token at its next start, or write the fleet's "
		        "token into it",
		        path);
	if (n < TOKEN_MIN_CHARS || n >= len)
		return err_set(e, -EINVAL, ERR_INTERNAL,
		               "token file '%s' must hold %d..%zu characters (it has %zu)", path,
		               TOKEN_MIN_CHARS, len - 1, n);
	for (i = 0; i < n; i++)
		if ((unsigned char)b->data[i] <= ' ' || (unsigned char)b->data[i] >= 0x7f)
			return err_set(
			        e, -EINVAL, ERR_INTERNAL,
			        "token file '%s' is damaged: byte %zu is not printable ASCII "
			        "(a token is one word of printable ASCII): remove it for a new "
			        "token, or write the fleet's token into it",
			        path, i + 1);
	memcpy(out, b->data, n);
	out[n] = '\0';
	return 0;
}

int token_load(const char *path, char *out, size_t len, int *made, struct err *e)
{
	const mode_t open_to_others = S_IRGRP | S_IWGRP | S_IROTH | S_IWOTH;
	unsigned char raw[32];
	char hex[66];
	struct buf b = BUF_INIT;
	struct stat st;
	size_t i;
	int rc, tries;

	if (made)
		*made = 0;
	for (tries = 0; tries < 2; tries++) {
		if (stat(path, &st) == 0 && (st.st_mode & open_to_others)) {
			rc = err_set(e, -EPERM, ERR_INTERNAL,
			             "token file '%s' has mode %04o: group or others may read or "
			             "write it; run 'chmod 600' on it (or remove it to get a new "
			             "token)",
			             path, (unsigned)(st.st_mode & 07777));
			goto out;
		}
		buf_reset(&b);
		rc = buf_read_file(&b, path, TOKEN_FILE_MAX);
		if (rc == 0) {
			rc = token_parse(path, &b, out, len, e);
			goto out;
		}
		if (rc != -ENOENT) {
			rc = err_set(e, rc, ERR_INTERNAL, "cannot read token file '%s': %s", path,
			             strerror(-rc));
			goto out;
		}
		if (getrandom(raw, sizeof(raw), 0) != (ssize_t)sizeof(raw)) {
			rc = err_set(e, -EIO, ERR_INTERNAL, "getrandom failed: %s",
			             strerror(errno));
			goto out;
		}
		for (i = 0; i < sizeof(raw); i++)
			snprintf(hex + 2 * i, 3, "%02x", raw[i]);
		hex[64] = '\n';
		hex[65] = '\0';
		rc = durable_create(path, hex, 65, e);
		if (rc == -EEXIST)
			continue; /* made meanwhile by someone else: read theirs */
		if (rc)
			goto out;
		hex[64] = '\0';
		snprintf(out, len, "%s", hex);
		if (made)
			*made = 1;
		goto out;
	}
	rc = err_set(e, -EEXIST, ERR_INTERNAL, "token file '%s' keeps changing", path);
out:
	buf_release(&b);
	return rc;
}
