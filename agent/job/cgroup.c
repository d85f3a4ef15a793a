/* cgroup.c -- cgroup v2: the mount from mountinfo, and creating, killing and removing cgroups. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "job/cgroup.h"
#include "num.h"
#include "timeutil.h"
#include "xmalloc.h"
#include "banned.h"

#define CGROUP_WAIT_STEP_MS 10
/* cgroup.procs of a job holds a few processes; more than this is read in several passes. */
#define CGROUP_PROCS_MAX_BYTES (1 << 20)

/* Copy one mountinfo field (up to a space) into out, decoding \ooo escapes. */
static int field_copy(const char *s, const char *end, char *out, size_t len)
{
	size_t o = 0;

	while (s < end) {
		char c = *s;

		if (c == '\\' && end - s >= 4 && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' &&
		    s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			c = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 4;
		} else {
			s++;
		}
		if (o + 1 >= len)
			return -ENAMETOOLONG;
		out[o++] = c;
	}
	out[o] = '\0';
	return 0;
}

/* Start of the n-th (0-based) space-separated field of line [s, end), and its end. */
static const char *field_at(const char *s, const char *end, int n, const char **fend)
{
	int i;

	for (i = 0; i < n; i++) {
		s = memchr(s, ' ', (size_t)(end - s));
		if (!s)
			return NULL;
		s++;
	}
	*fend = memchr(s, ' ', (size_t)(end - s));
	if (!*fend)
		*fend = end;
	return s;
}

int cgroup_mount_find(const char *mountinfo, char *mnt, size_t mnt_len, char *root, size_t root_len)
{
	const char *line = mountinfo, *end, *sep, *f, *fe;
	int rc;

	for (; line && *line; line = *end ? end + 1 : end) {
		end = strchr(line, '\n');
		if (!end)
			end = line + strlen(line);
		/* "36 25 0:31 / /sys/fs/cgroup/unified rw,... shared:9 - cgroup2 cgroup2 rw" */
		sep = strstr(line, " - ");
		if (!sep || sep >= end || strncmp(sep + 3, "cgroup2 ", 8))
			continue;
		f = field_at(line, sep, 3, &fe);
		if (!f || (rc = field_copy(f, fe, root, root_len)))
			continue;
		f = field_at(line, sep, 4, &fe);
		if (!f)
			continue;
		rc = field_copy(f, fe, mnt, mnt_len);
		return rc;
	}
	return -ENOENT;
}

int cgroup_self_find(const char *proc_cgroup, char *path, size_t len)
{
	const char *line = proc_cgroup, *end;

	for (; line && *line; line = *end ? end + 1 : end) {
		end = strchr(line, '\n');
		if (!end)
			end = line + strlen(line);
		if (strncmp(line, "0::", 3))
			continue;
		if ((size_t)(end - line - 3) >= len)
			return -ENAMETOOLONG;
		snprintf(path, len, "%.*s", (int)(end - line - 3), line + 3);
		return 0;
	}
	return -ENOENT;
}

int cgroup_dir_join(const char *mnt, const char *mnt_root, const char *self, char *out, size_t len)
{
	size_t n = strlen(mnt_root);

	if (!strcmp(mnt_root, "/"))
		n = 0;
	else if (strncmp(self, mnt_root, n) || (self[n] != '/' && self[n] != '\0'))
		return -EXDEV;
	if ((size_t)snprintf(out, len, "%s%s", mnt, self + n) >= len)
		return -ENAMETOOLONG;
	/* "/sys/fs/cgroup" + "/" for a process in the root cgroup */
	n = strlen(out);
	if (n > 1 && out[n - 1] == '/')
		out[n - 1] = '\0';
	return 0;
}

int cgroup_create(const char *dir, struct err *e)
{
	char tmp[PATH_MAX];
	char *p;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s", dir) >= sizeof(tmp))
		return err_set(e, -ENAMETOOLONG, ERR_INTERNAL, "cgroup path too long");
	for (p = tmp + 1;; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		{
			char c = *p;

			*p = '\0';
			if (mkdir(tmp, 0755) < 0 && errno != EEXIST)
				return err_set(e, -errno, ERR_INTERNAL,
				               "cannot create cgroup '%s': %s", tmp,
				               strerror(errno));
			*p = c;
		}
		if (!*p)
			break;
	}
	return 0;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* Read dir/name into b; -errno. */
static int cg_read(const char *dir, const char *name, struct buf *b)
{
	char path[PATH_MAX];

	buf_release(b);
	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >= sizeof(path))
		return -ENAMETOOLONG;
	return buf_read_file(b, path, CGROUP_PROCS_MAX_BYTES);
}

/* Call fn for each pid listed in procs text; returns how many there were. */
static int procs_each(const char *text, void (*fn)(void *cls, pid_t pid), void *cls)
{
	const char *s = text;
	char *end;
	long v;
	int n = 0;

	while (*s) {
		errno = 0;
		v = strtol(s, &end, 10);
		if (end == s)
			break;
		if (!errno && v > 0 && v <= INT32_MAX) {
			if (fn)
				fn(cls, (pid_t)v);
			n++;
		}
		s = end;
		while (*s == '\n' || *s == ' ')
			s++;
	}
	return n;
}

int cgroup_procs_count(const char *dir)
{
	struct buf b = BUF_INIT;
	int rc = cg_read(dir, "cgroup.procs", &b);

	if (rc == 0)
		rc = procs_each(b.data, NULL, NULL);
	buf_release(&b);
	return rc;
}

/* The pids seen while emptying a cgroup, to count each process once. */
struct seen {
	pid_t *pid;
	int n, cap;
};

static void kill_and_note(void *cls, pid_t pid)
{
	struct seen *s = cls;
	int i;

	kill(pid, SIGKILL);
	for (i = 0; i < s->n; i++)
		if (s->pid[i] == pid)
			return;
	s->pid = xgrow(s->pid, &s->cap, s->n + 1, sizeof(*s->pid));
	s->pid[s->n++] = pid;
}

/* True once cgroup.events says "populated 0" (nothing left in dir or below). */
static int populated(const char *dir)
{
	struct buf b = BUF_INIT;
	int rc = cg_read(dir, "cgroup.events", &b);

	if (rc == 0)
		rc = strstr(b.data, "populated 0") ? 0 : 1;
	buf_release(&b);
	return rc;
}

int cgroup_kill(const char *dir, bool use_kill_file, double timeout_s, int *n_killed)
{
	char path[PATH_MAX];
	double deadline = time_mono_s() + timeout_s;
	struct buf b = BUF_INIT;
	struct seen seen = { NULL, 0, 0 };
	int rc, fd, n;

	if (n_killed)
		*n_killed = 0;
	rc = cg_read(dir, "cgroup.procs", &b);
	if (rc)
		goto out;
	n = procs_each(b.data, NULL, NULL);
	if (use_kill_file) {
		snprintf(path, sizeof(path), "%s/cgroup.kill", dir);
		fd = open(path, O_WRONLY | O_CLOEXEC);
		if (fd < 0 || write(fd, "1", 1) != 1) {
			rc = -errno;
			if (fd >= 0)
				close(fd);
			goto out;
		}
		close(fd);
		if (n_killed)
			*n_killed = n;
		while ((rc = populated(dir)) > 0 && time_mono_s() < deadline)
			sleep_ms(CGROUP_WAIT_STEP_MS);
		rc = rc > 0 ? -ETIMEDOUT : rc;
		goto out;
	}
	/* No cgroup.kill: a process may fork between the read and the kill, so read again
	 * until the list stays empty. A cgroup cannot be left, so this ends. */
	for (;;) {
		if (procs_each(b.data, kill_and_note, &seen) == 0) {
			rc = 0;
			break;
		}
		if (time_mono_s() >= deadline) {
			rc = -ETIMEDOUT;
			break;
		}
		sleep_ms(CGROUP_WAIT_STEP_MS);
		rc = cg_read(dir, "cgroup.procs", &b);
		if (rc)
			break;
	}
	if (n_killed)
		*n_killed = seen.n;
out:
	buf_release(&b);
	free(seen.pid);
	return rc;
}

int cgroup_remove(const char *dir)
{
	if (rmdir(dir) < 0 && errno != ENOENT)
		return -errno;
	return 0;
}

int cgroup_remove_wait(const char *dir, double timeout_s)
{
	double deadline = time_mono_s() + timeout_s;
	int rc;

	while ((rc = cgroup_remove(dir)) == -EBUSY && time_mono_s() < deadline)
		sleep_ms(CGROUP_WAIT_STEP_MS);
	return rc;
}
