/* jobdir.c -- a pass's private directory: opened link-free, made exclusively, named by fd. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "job/jobdir.h"
#include "log.h"
#include "utf8.h"
#include "banned.h"

/* Names tried for a pass's directory when its own name is taken. */
#define JOBDIR_TRIES 8

/* Unpredictable enough that a name cannot be planted ahead (getrandom, else the clock). */
static uint32_t random_u32(void)
{
	struct timespec ts;
	uint32_t v;

	if (getrandom(&v, sizeof(v), GRND_NONBLOCK) == (ssize_t)sizeof(v))
		return v;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint32_t)ts.tv_nsec ^ (uint32_t)getpid() << 16;
}

/* How deep an engine's own subdirectories are removed (bonnie++ makes one level). */
#define JOBDIR_DEPTH_MAX 8

bool jobdir_path_has_control(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s == 0x7f)
			return true;
	return false;
}

/* The allow dir that dir lies under (the longest), or NULL. */
static const char *allow_dir_of(const char *const *allow_dirs, int n, const char *dir)
{
	const char *best = NULL;
	size_t len, best_len = 0;
	int i;

	for (i = 0; i < n; i++) {
		len = strlen(allow_dirs[i]);
		if (len == 1 && allow_dirs[i][0] == '/')
			len = 0;
		if (strncmp(dir, allow_dirs[i], len) || (dir[len] != '/' && dir[len] != '\0'))
			continue;
		if (!best || len >= best_len) {
			best = allow_dirs[i];
			best_len = len;
		}
	}
	return best;
}

/* Open dir from its allow dir, component by component, never following a link. */
static int open_nofollow(const char *const *allow_dirs, int n, const char *dir, struct err *e)
{
	const char *root = allow_dir_of(allow_dirs, n, dir), *p, *end;
	char comp[NAME_MAX + 1];
	int fd, next, rc;
	size_t len;

	if (!root)
		return err_set(e, -EPERM, ERR_DIR_NOT_ALLOWED,
		               "directory: '%.*s' is not under an --allow-dir of this agent",
		               utf8_cut(dir, 200), dir);
	fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return err_set(e, -errno, ERR_DIR_CHANGED,
		               "directory: cannot open --allow-dir '%s': %s", root,
		               strerror(errno));
	len = strlen(root) == 1 ? 0 : strlen(root);
	for (p = dir + len; *p;) {
		while (*p == '/')
			p++;
		if (!*p)
			break;
		end = strchr(p, '/');
		if (!end)
			end = p + strlen(p);
		if ((size_t)(end - p) > NAME_MAX || (end - p == 2 && !strncmp(p, "..", 2)) ||
		    (end - p == 1 && *p == '.')) {
			close(fd);
			return err_set(e, -EINVAL, ERR_DIR_CHANGED,
			               "directory: '%.*s' is not a plain path", utf8_cut(dir, 200),
			               dir);
		}
		memcpy(comp, p, (size_t)(end - p));
		comp[end - p] = '\0';
		next = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0) {
			rc = -errno;
			close(fd);
			return err_set(
			        e, rc, ERR_DIR_CHANGED,
			        "directory: '%.*s' changed since the job was submitted: '%s' is "
			        "%s; nothing was written",
			        utf8_cut(dir, 200), dir, comp,
			        rc == -ELOOP || rc == -ENOTDIR ? "no longer a directory (a link?)"
			                                       : strerror(-rc));
		}
		close(fd);
		fd = next;
		p = end;
	}
	return fd;
}

int jobdir_open(struct jobdir *jd, const char *const *allow_dirs, int n_allow_dirs, const char *dir,
                const char *name, struct err *e)
{
	int rc;

	*jd = (struct jobdir)JOBDIR_INIT;
	if (jobdir_path_has_control(dir))
		return err_set(e, -EINVAL, ERR_BAD_REQUEST, "directory: has a control character");
	rc = open_nofollow(allow_dirs, n_allow_dirs, dir, e);
	if (rc < 0)
		return rc;
	return jobdir_open_in(jd, rc, dir, name, e);
}

int jobdir_open_in(struct jobdir *jd, int parent_fd, const char *dir, const char *name,
                   struct err *e)
{
	struct stat st;
	int rc, tries;

	*jd = (struct jobdir)JOBDIR_INIT;
	jd->parent_fd = parent_fd;
	/* name, or (something planted under that name: job ids are guessable) name.RANDOM. */
	snprintf(jd->name, sizeof(jd->name), "%s", name);
	for (tries = 0; mkdirat(jd->parent_fd, jd->name, 0700) < 0; tries++) {
		rc = -errno;
		if (rc == -EEXIST && tries < JOBDIR_TRIES) {
			if (!tries)
				log_warn("%s/%s exists already (planted?): the pass uses another "
				         "name",
				         dir, name);
			snprintf(jd->name, sizeof(jd->name), "%s.%08lx", name,
			         (unsigned long)random_u32());
			continue;
		}
		err_set(e, rc, rc == -EEXIST ? ERR_DIR_CONFLICT : ERR_DIR_CHANGED,
		        "cannot make the pass's directory '%s' in '%.*s': %s%s", jd->name,
		        utf8_cut(dir, 200), dir, strerror(-rc),
		        rc == -EEXIST ? " (something of that name is there already: nothing was "
		                        "written through it)"
		                      : "");
		goto fail;
	}
	rc = 0;
	jd->fd = openat(jd->parent_fd, jd->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (jd->fd < 0 || fstat(jd->fd, &st) < 0 || (st.st_mode & 0777) != 0700 ||
	    st.st_uid != geteuid()) {
		rc = err_set(e, -EPERM, ERR_DIR_CHANGED,
		             "the pass's directory '%s' in '%.*s' was replaced as it was made",
		             jd->name, utf8_cut(dir, 200), dir);
		goto fail;
	}
	/* "/." at the end: an engine that lstat()s its directory sees the directory, not the
	 * magic link. */
	snprintf(jd->path, sizeof(jd->path), "/proc/%d/fd/%d/.", (int)getpid(), jd->fd);
	return 0;
fail:
	if (jd->fd >= 0)
		close(jd->fd);
	jd->fd = -1;
	close(jd->parent_fd);
	jd->parent_fd = -1;
	return rc;
}

/* Remove what is in directory fd (consumed), depth levels deep at most. */
static void empty_dir(int fd, int depth)
{
	struct dirent *de;
	DIR *d = fdopendir(fd);
	int sub;

	if (!d) {
		close(fd);
		return;
	}
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (unlinkat(dirfd(d), de->d_name, 0) == 0)
			continue;
		if (errno != EISDIR && errno != EPERM)
			continue;
		sub = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub >= 0 && depth < JOBDIR_DEPTH_MAX)
			empty_dir(sub, depth + 1);
		else if (sub >= 0)
			close(sub);
		unlinkat(dirfd(d), de->d_name, AT_REMOVEDIR);
	}
	closedir(d);
}

void jobdir_close(struct jobdir *jd)
{
	struct stat mine, named;

	if (jd->fd >= 0) {
		bool same = fstat(jd->fd, &mine) == 0 &&
		            fstatat(jd->parent_fd, jd->name, &named, AT_SYMLINK_NOFOLLOW) == 0 &&
		            mine.st_dev == named.st_dev && mine.st_ino == named.st_ino;

		empty_dir(dup(jd->fd), 0);
		if (same) {
			if (unlinkat(jd->parent_fd, jd->name, AT_REMOVEDIR) < 0)
				log_warn("cannot remove the pass's directory %s: %s", jd->name,
				         strerror(errno));
		} else {
			log_warn("the pass's directory %s was renamed or replaced while the pass "
			         "ran: "
			         "its files are removed, the name is left alone",
			         jd->name);
		}
		close(jd->fd);
	}
	if (jd->parent_fd >= 0)
		close(jd->parent_fd);
	*jd = (struct jobdir)JOBDIR_INIT;
}
