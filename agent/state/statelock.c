/* statelock.c -- the state directory's lock: flock on STATE_DIR/lock, with the holder's pid. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "num.h"
#include "state/statelock.h"
#include "banned.h"

#define STATELOCK_NAME "lock"

static void lock_path(const char *dir, char *out, size_t len)
{
	snprintf(out, len, "%s/%s", dir, STATELOCK_NAME);
}

pid_t statelock_holder(const char *dir)
{
	char path[PATH_MAX], line[32];
	int64_t pid;

	lock_path(dir, path, sizeof(path));
	buf_read_line(path, line, sizeof(line));
	if (num_parse_i64(line, &pid) || pid <= 0 || pid > INT_MAX)
		return 0;
	return (pid_t)pid;
}

int statelock_take(struct statelock *l, const char *dir, struct err *e)
{
	char path[PATH_MAX], pid[32];
	struct stat st;
	pid_t holder;
	int fd, rc, n;

	l->fd = -1;
	l->taken = false;
	lock_path(dir, path, sizeof(path));
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0600);
	if (fd < 0)
		return err_set(e, -errno, ERR_INTERNAL,
		               "cannot open the state directory's lock '%s': %s: can this user "
		               "write the file and its directory?",
		               path, strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid()) {
		rc = err_set(e, -EPERM, ERR_INTERNAL,
		             "the state directory's lock '%s' must be a plain file of the agent's "
		             "user",
		             path);
		goto fail;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		if (errno != EWOULDBLOCK) {
			rc = err_set(e, -errno, ERR_INTERNAL, "cannot lock '%s': %s", path,
			             strerror(errno));
			goto fail;
		}
		holder = statelock_holder(dir);
		if (holder)
			snprintf(pid, sizeof(pid), "pid %d", (int)holder);
		else
			snprintf(pid, sizeof(pid), "pid unknown");
		rc = err_set(e, -EBUSY, ERR_STATE_DIR_IN_USE,
		             "state directory '%s' is in use by another agent (%s holds %s): one "
		             "agent per state directory; stop that one first, or give this one its "
		             "own --state-dir",
		             dir, pid, path);
		goto fail;
	}
	n = snprintf(pid, sizeof(pid), "%d\n", (int)getpid());
	/* The pid is for the message above only: the lock itself is the flock. */
	if (ftruncate(fd, 0) < 0 || pwrite(fd, pid, (size_t)n, 0) != n) {
		rc = err_set(e, -errno ? -errno : -EIO, ERR_INTERNAL, "cannot write '%s': %s", path,
		             strerror(errno ? errno : EIO));
		goto fail;
	}
	l->fd = fd;
	l->taken = true;
	return 0;
fail:
	close(fd);
	return rc;
}

void statelock_release(struct statelock *l)
{
	if (!l || !l->taken)
		return;
	close(l->fd);
	l->fd = -1;
	l->taken = false;
}
