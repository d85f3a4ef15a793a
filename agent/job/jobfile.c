/* jobfile.c -- a job file's text in a sealed memory file, and fio --parse-only on it. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "job/jobfile.h"
#include "job/proc.h"
#include "timeutil.h"
#include "banned.h"

int jobfile_open(struct jobfile *jf, const char *text, struct err *e)
{
	size_t len = strlen(text), done = 0;
	ssize_t n;
	int rc = 0;

	jf->fd = memfd_create("fio_file", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (jf->fd < 0)
		return err_set(e, -errno, ERR_INTERNAL, "cannot make the job file: %s",
		               strerror(errno));
	while (done < len) {
		n = write(jf->fd, text + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			rc = err_set(e, n < 0 ? -errno : -EIO, ERR_INTERNAL,
			             "cannot write the job file: %s",
			             n < 0 ? strerror(errno) : "short write");
			goto out;
		}
		done += (size_t)n;
	}
	if (fcntl(jf->fd, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL)) {
		rc = err_set(e, -errno, ERR_INTERNAL, "cannot seal the job file: %s",
		             strerror(errno));
		goto out;
	}
	snprintf(jf->path, sizeof(jf->path), "/proc/%d/fd/%d", (int)getpid(), jf->fd);
out:
	if (rc)
		jobfile_close(jf);
	return rc;
}

void jobfile_close(struct jobfile *jf)
{
	if (jf->fd >= 0)
		close(jf->fd);
	jf->fd = -1;
	jf->path[0] = '\0';
}

/* fio's lines, "; "-joined, the descriptor path as "fio_file". */
static void fio_words(const struct buf *b, const char *path, char *out, size_t len)
{
	const char *p = b->data, *end = b->data ? b->data + b->len : NULL, *nl, *hit;
	size_t used = 0, plen = strlen(path);

	out[0] = '\0';
	for (; p && p < end && used + 8 < len; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		while (p < nl && (*p == ' ' || *p == '\t'))
			p++;
		if (p == nl)
			continue;
		if (used)
			used += (size_t)snprintf(out + used, len - used, "; ");
		while (p < nl && used + 1 < len) {
			hit = plen && (size_t)(nl - p) >= plen && !memcmp(p, path, plen) ? p : NULL;
			if (hit) {
				used += (size_t)snprintf(out + used, len - used, "fio_file");
				p += plen;
				continue;
			}
			out[used++] = (*p >= 0x20 && *p != 0x7f) ? *p : ' ';
			out[used] = '\0';
			p++;
		}
		if (nl == end)
			break;
	}
	if (used >= len)
		out[len - 1] = '\0';
}

int jobfile_fio_check(const char *fio_exe, const struct jobfile *jf, struct err *e)
{
	char *argv[4], words[600], more[300];
	struct proc p;
	double until = time_mono_s() + JOBFILE_PARSE_TIMEOUT_S;
	int rc;

	argv[0] = (char *)(fio_exe ? fio_exe : "fio");
	argv[1] = (char *)"--parse-only";
	argv[2] = (char *)jf->path;
	argv[3] = NULL;
	memset(&p, 0, sizeof(p));
	rc = proc_spawn(&p, argv, "/", e);
	if (rc)
		return rc;
	for (;;) {
		rc = proc_poll(&p, 100);
		if (rc == 1)
			break;
		if (rc < 0 || time_mono_s() > until) {
			proc_terminate(&p, 1.0);
			proc_release(&p);
			if (rc < 0)
				return err_set(e, rc, ERR_ENGINE_FAILED,
				               "lost track of fio --parse-only");
			return err_set(e, -ETIMEDOUT, ERR_ENGINE_FAILED,
			               "fio --parse-only took more than %.0f s on the job file",
			               JOBFILE_PARSE_TIMEOUT_S);
		}
	}
	rc = 0;
	if (p.exit_code != 0 || p.term_signal) {
		fio_words(&p.err, jf->path, words, sizeof(words));
		fio_words(&p.out, jf->path, more, sizeof(more));
		rc = err_set(e, -EINVAL, ERR_FIO_REJECTED,
		             "fio_file: fio rejects it (fio --parse-only, exit status %d): %s%s%s",
		             p.exit_code,
		             words[0]  ? words
		             : more[0] ? more
		                       : "no error text",
		             words[0] && more[0] ? "; " : "", words[0] ? more : "");
	}
	proc_release(&p);
	return rc;
}
