/* jobfs.c -- a job's filesystem: record, private mount directory, mkfs, mount through the new
 * mount API, read-back, unmount, dry runs, and start-up recovery. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "buf.h"
#include "engines/engine.h"
#include "job/bootid.h"
#include "job/contain.h"
#include "job/jobfs.h"
#include "job/proc.h"
#include "log.h"
#include "num.h"
#include "timeutil.h"
#include "xmalloc.h"
#include "banned.h"

#define RECORD_MAX_BYTES 8192

int jobfs_init(struct jobfs *j, const char *root, const char *state_dir, const char *mountinfo,
               struct err *e)
{
	char real[PATH_MAX];
	struct stat st;
	int sfd = -1, rc = 0;

	memset(j, 0, sizeof(*j));
	j->dir_fd = -1;
	j->mountinfo = mountinfo ? mountinfo : "/proc/self/mountinfo";
	j->tool_timeout_s = JOBFS_TOOL_TIMEOUT_S;
	bootid_read(root, j->boot_id, sizeof(j->boot_id));
	if (!state_dir)
		return 0;
	if (!realpath(state_dir, real))
		return err_set(e, -errno, ERR_INTERNAL, "cannot resolve '%s': %s", state_dir,
		               strerror(errno));
	snprintf(j->dir, sizeof(j->dir), "%s/fs", real);
	sfd = open(real, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (sfd < 0)
		return err_set(e, -errno, ERR_INTERNAL, "cannot open '%s': %s", real,
		               strerror(errno));
	if (mkdirat(sfd, "fs", 0700) < 0 && errno != EEXIST) {
		rc = err_set(e, -errno, ERR_INTERNAL, "cannot create '%s': %s", j->dir,
		             strerror(errno));
		goto out;
	}
	j->dir_fd = openat(sfd, "fs", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (j->dir_fd < 0) {
		rc = err_set(e, -errno, ERR_INTERNAL, "'%s' %s: %s", j->dir,
		             errno == ELOOP || errno == ENOTDIR ? "is not a plain directory"
		                                                : "cannot be opened",
		             strerror(errno));
		goto out;
	}
	if (fstat(j->dir_fd, &st) < 0 || st.st_uid != geteuid() || (st.st_mode & 077)) {
		rc = err_set(
		        e, -EPERM, ERR_INTERNAL,
		        "'%s' must be a directory of the agent's user with mode 0700 (it holds "
		        "the mount points of job filesystems): chmod 700 %s",
		        j->dir, j->dir);
		goto out;
	}
out:
	if (rc && j->dir_fd >= 0) {
		close(j->dir_fd);
		j->dir_fd = -1;
	}
	close(sfd);
	return rc;
}

void jobfs_release(struct jobfs *j)
{
	if (j && j->dir_fd >= 0)
		close(j->dir_fd);
	if (j)
		j->dir_fd = -1;
}

/* The first non-blank line of what a tool printed on stderr, else on stdout. */
static void tool_why(const struct buf *out, const struct buf *err, char *why, size_t len)
{
	if (!engine_line_find(err->data ? err->data : "", err->len, NULL, why, len) &&
	    !engine_line_find(out->data ? out->data : "", out->len, NULL, why, len))
		snprintf(why, len, "(no output)");
}

/* Run a tool to its end: contained in c (job job_id) when c is given, stopped when stop()
 * says so (-ECANCELED) or after timeout_s (-ETIMEDOUT). *status is its exit status (-1 if a
 * signal ended it); out and err get what it printed. */
static int tool_run(char **argv, struct contain *c, int64_t job_id, jobfs_stop_fn stop,
                    void *stop_cls, double timeout_s, struct buf *out, struct buf *errout,
                    int *status, struct err *e)
{
	struct contain_pass cp;
	struct proc p;
	double deadline = time_mono_s() + timeout_s;
	int rc;

	memset(&cp, 0, sizeof(cp));
	memset(&p, 0, sizeof(p));
	*status = -1;
	if (c) {
		rc = contain_pass_begin(c, job_id, &cp, e);
		if (rc)
			goto out;
		rc = proc_spawn_in(&p, argv, "/", &cp, e);
	} else {
		rc = proc_spawn(&p, argv, "/", e);
	}
	if (rc) {
		err_set(e, rc, ERR_FS_FAILED, "%s", e->msg);
		goto out;
	}
	for (;;) {
		rc = proc_poll(&p, 200);
		if (rc == 1)
			break;
		if (rc < 0) {
			err_set(e, rc, ERR_FS_FAILED, "lost track of %s: %s", argv[0],
			        strerror(-rc));
			proc_terminate(&p, JOBFS_STOP_GRACE_S);
			goto out;
		}
		if (stop && stop(stop_cls)) {
			proc_terminate(&p, JOBFS_STOP_GRACE_S);
			rc = err_set(e, -ECANCELED, ERR_CANCELLED,
			             "%s stopped: the job was cancelled", argv[0]);
			goto out;
		}
		if (time_mono_s() > deadline) {
			proc_terminate(&p, JOBFS_STOP_GRACE_S);
			rc = err_set(e, -ETIMEDOUT, ERR_FS_FAILED,
			             "%s did not finish within %.0f s", argv[0], timeout_s);
			goto out;
		}
	}
	*status = p.exit_code;
	buf_append(out, p.out.data ? p.out.data : "", p.out.len);
	buf_append(errout, p.err.data ? p.err.data : "", p.err.len);
	rc = 0;
out:
	proc_release(&p);
	contain_pass_end(&cp);
	return rc;
}

int jobfs_tools_check(const struct fsopt_checked *c, struct err *e)
{
	const char *const *tool = c->tools;

	for (; *tool; tool++)
		if (!engine_tool_found(*tool))
			return err_set(e, -ENOENT, ERR_ENGINE_UNAVAILABLE,
			               "filesystem %s: '%s' is not installed on this node (Debian "
			               "package %s)",
			               c->type_name, *tool, c->package);
	return 0;
}

/* The kernel's log of a filesystem context (fsconfig's reasons), as one line. */
static void fsctx_log(int fd, char *out, size_t len)
{
	char msg[512];
	size_t used = 0;
	ssize_t n;

	out[0] = '\0';
	while ((n = read(fd, msg, sizeof(msg) - 1)) > 0 && used < len) {
		msg[n] = '\0';
		msg[strcspn(msg, "\n")] = '\0';
		/* "e xfs: ..." -> "xfs: ..." */
		used += (size_t)snprintf(out + used, len - used, "%s%s", used ? "; " : "",
		                         n > 2 && msg[1] == ' ' ? msg + 2 : msg);
	}
}

/* Hand the superblock options to a filesystem context: the kernel's parser judges each. */
static int fsctx_options(int fd, const struct fs_mount *m, enum err_code code, struct err *e)
{
	char why[300];
	int i, r;

	for (i = 0; i < m->n; i++) {
		const struct fs_sbopt *o = &m->o[i];

		r = o->has_value ? fsconfig(fd, FSCONFIG_SET_STRING, o->key, o->value, 0)
		                 : fsconfig(fd, FSCONFIG_SET_FLAG, o->key, NULL, 0);
		if (r < 0) {
			int saved = errno;

			fsctx_log(fd, why, sizeof(why));
			return err_set(e, -EINVAL, code,
			               "filesystem.mount: the kernel refuses '%s%s%s': %s", o->key,
			               o->has_value ? "=" : "", o->value,
			               why[0] ? why : strerror(saved));
		}
	}
	return 0;
}

/* The mount's attribute bits for the mount API. */
static unsigned mount_attrs(const struct fs_mount *m)
{
	unsigned a = 0;

	switch (m->atime) {
	case FS_ATIME_NOATIME:
		a |= MOUNT_ATTR_NOATIME;
		break;
	case FS_ATIME_STRICT:
		a |= MOUNT_ATTR_STRICTATIME;
		break;
	default:
		a |= MOUNT_ATTR_RELATIME;
		break;
	}
	if (m->attrs & FS_ATTR_NOSUID)
		a |= MOUNT_ATTR_NOSUID;
	if (m->attrs & FS_ATTR_NODEV)
		a |= MOUNT_ATTR_NODEV;
	if (m->attrs & FS_ATTR_NOEXEC)
		a |= MOUNT_ATTR_NOEXEC;
	if (m->attrs & FS_ATTR_NODIRATIME)
		a |= MOUNT_ATTR_NODIRATIME;
	if (m->attrs & FS_ATTR_NOSYMFOLLOW)
		a |= MOUNT_ATTR_NOSYMFOLLOW;
	return a;
}

/* The kernel's parser on every superblock option, with nothing created. EPERM/ENOSYS (no
 * CAP_SYS_ADMIN, an old kernel): only the tables judged; ENODEV: no such filesystem. */
int jobfs_kernel_check(const struct fsopt_checked *c, struct err *e)
{
	int fd = fsopen(c->type_name, FSOPEN_CLOEXEC), rc;

	if (fd < 0) {
		if (errno == ENODEV)
			return err_set(e, -ENODEV, ERR_ENGINE_UNAVAILABLE,
			               "filesystem %s: this node's kernel does not have it",
			               c->type_name);
		log_debug("fsopen(%s): %s: mount options judged by the tables only", c->type_name,
		          strerror(errno));
		return 0;
	}
	rc = fsctx_options(fd, &c->mount, ERR_INVALID_FS_OPTION, e);
	close(fd);
	return rc;
}

/* Mount device (type t, options m) onto the directory name in j->dir_fd. No path is
 * resolved for the target: move_mount() takes the directory's descriptor. */
static int mount_onto(struct jobfs *j, const char *name, const char *devpath, enum fs_type t,
                      const struct fs_mount *m, struct err *e)
{
	int fsfd = -1, mfd = -1, tfd = -1, rc;
	char why[300];

	fsfd = fsopen(fs_type_name(t), FSOPEN_CLOEXEC);
	if (fsfd < 0) {
		rc = err_set(e, -errno, ERR_FS_FAILED, "cannot mount %s (%s): fsopen: %s", devpath,
		             fs_type_name(t), strerror(errno));
		goto out;
	}
	if (fsconfig(fsfd, FSCONFIG_SET_STRING, "source", devpath, 0) < 0) {
		fsctx_log(fsfd, why, sizeof(why));
		rc = err_set(e, -errno, ERR_FS_FAILED, "cannot mount %s (%s): %s", devpath,
		             fs_type_name(t), why[0] ? why : strerror(errno));
		goto out;
	}
	rc = fsctx_options(fsfd, m, ERR_FS_FAILED, e);
	if (rc)
		goto out;
	if (fsconfig(fsfd, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0) {
		int saved = errno;

		fsctx_log(fsfd, why, sizeof(why));
		rc = err_set(e, -saved, ERR_FS_FAILED, "mount of %s (%s) refused: %s", devpath,
		             fs_type_name(t), why[0] ? why : strerror(saved));
		goto out;
	}
	mfd = fsmount(fsfd, FSMOUNT_CLOEXEC, mount_attrs(m));
	if (mfd < 0) {
		rc = err_set(e, -errno, ERR_FS_FAILED, "mount of %s (%s) refused: fsmount: %s",
		             devpath, fs_type_name(t), strerror(errno));
		goto out;
	}
	tfd = openat(j->dir_fd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (tfd < 0) {
		rc = err_set(e, -errno, ERR_FS_FAILED,
		             "cannot open the mount directory '%s/%s': %s", j->dir, name,
		             strerror(errno));
		goto out;
	}
	if (move_mount(mfd, "", tfd, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0) {
		rc = err_set(e, -errno, ERR_FS_FAILED,
		             "cannot attach the mount of %s at '%s/%s': %s", devpath, j->dir, name,
		             strerror(errno));
		goto out;
	}
	rc = 0;
out:
	if (tfd >= 0)
		close(tfd);
	if (mfd >= 0)
		close(mfd);
	if (fsfd >= 0)
		close(fsfd);
	return rc;
}

/* fsync the area, so a new or removed entry survives a crash. */
static void area_sync(struct jobfs *j)
{
	if (fsync(j->dir_fd) < 0)
		log_warn("cannot sync '%s': %s", j->dir, strerror(errno));
}

static int record_write(struct jobfs *j, const struct jobfs_made *m, unsigned major, unsigned minor,
                        struct err *e)
{
	char name[64], text[PATH_MAX + 256];
	int fd, n, rc = 0;

	snprintf(name, sizeof(name), "job-%lld.rec", (long long)m->job_id);
	n = snprintf(text, sizeof(text), "job %lld\nboot %s\ndevice %s\ndevnum %u:%u\ndir %s\n",
	             (long long)m->job_id, j->boot_id, m->device, major, minor, m->mount_point);
	fd = openat(j->dir_fd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return err_set(e, -errno, ERR_FS_FAILED,
		               errno == EEXIST ? "'%s/%s' is left from an earlier run that could "
		                                 "not unmount it; see the start-up log"
		                               : "cannot create '%s/%s': %s",
		               j->dir, name, strerror(errno));
	if (write(fd, text, (size_t)n) != n || fdatasync(fd) < 0)
		rc = err_set(e, errno ? -errno : -EIO, ERR_FS_FAILED, "cannot write '%s/%s': %s",
		             j->dir, name, strerror(errno ? errno : EIO));
	close(fd);
	if (rc)
		unlinkat(j->dir_fd, name, 0);
	else
		area_sync(j);
	return rc;
}

/* Unmount path (UMOUNT_NOFOLLOW), retrying while it is busy. Not mounted is success. */
static int unmount_path(const char *path)
{
	double deadline = time_mono_s() + JOBFS_UMOUNT_WAIT_S;

	for (;;) {
		if (umount2(path, UMOUNT_NOFOLLOW) == 0)
			return 0;
		if (errno == EINVAL || errno == ENOENT)
			return 1; /* not a mount point (any more) */
		if (errno != EBUSY || time_mono_s() > deadline)
			return -errno;
		sync();
		usleep(200 * 1000);
	}
}

int jobfs_unmake(struct jobfs *j, struct jobfs_made *m)
{
	char name[64];
	int rc = 0;

	if (!m || j->dir_fd < 0)
		return 0;
	if (m->mounted) {
		rc = unmount_path(m->mount_point);
		if (rc < 0) {
			log_error("job %lld: cannot unmount '%s': %s; the next start tries again",
			          (long long)m->job_id, m->mount_point, strerror(-rc));
			return rc;
		}
		m->mounted = false;
		log_info("job %lld: unmounted /dev/%s from %s", (long long)m->job_id, m->device,
		         m->mount_point);
	}
	if (m->dir_made) {
		snprintf(name, sizeof(name), "job-%lld", (long long)m->job_id);
		if (unlinkat(j->dir_fd, name, AT_REMOVEDIR) < 0 && errno != ENOENT) {
			rc = -errno;
			log_error("job %lld: cannot remove '%s': %s", (long long)m->job_id,
			          m->mount_point, strerror(errno));
			return rc;
		}
		m->dir_made = false;
	}
	if (m->record_made) {
		snprintf(name, sizeof(name), "job-%lld.rec", (long long)m->job_id);
		if (unlinkat(j->dir_fd, name, 0) < 0 && errno != ENOENT)
			log_error("job %lld: cannot remove '%s/%s': %s", (long long)m->job_id,
			          j->dir, name, strerror(errno));
		m->record_made = false;
		area_sync(j);
	}
	return 0;
}

/* The figures of a made filesystem: xfs_info on the directory, tune2fs -l on the device. */
static void figures_read(struct jobfs_made *m, const char *devpath, const char *mkfs_out,
                         struct contain *c, jobfs_stop_fn stop, void *cls)
{
	struct buf out = BUF_INIT, errout = BUF_INIT;
	char **argv = NULL, why[256];
	struct err e;
	int status;

	fsopt_info_argv(m->type, devpath, m->mount_point, &argv);
	err_clear(&e);
	if (tool_run(argv, c, m->job_id, stop, cls, JOBFS_DRY_TIMEOUT_S, &out, &errout, &status,
	             &e) == 0 &&
	    status == 0) {
		if (m->type == FS_XFS)
			fsinfo_xfs_parse(out.data ? out.data : "", &m->figures);
		else
			fsinfo_ext4_parse(out.data ? out.data : "", mkfs_out, &m->figures);
	} else {
		if (!e.msg[0])
			tool_why(&out, &errout, why, sizeof(why));
		log_warn("job %lld: %s failed (%s): the filesystem's figures are not recorded",
		         (long long)m->job_id, argv[0], e.msg[0] ? e.msg : why);
		if (m->type == FS_EXT4)
			fsinfo_ext4_parse(NULL, mkfs_out, &m->figures);
	}
	engine_argv_free(argv);
	buf_release(&out);
	buf_release(&errout);
}

/* Read back the mount on m->mount_point from mountinfo; -ENOENT if it is not there. */
static int mount_read_back(struct jobfs *j, struct jobfs_made *m, unsigned major, unsigned minor,
                           struct err *e)
{
	struct buf b = BUF_INIT;
	struct fs_mountinfo *mi = xcalloc(1, sizeof(*mi));
	int rc = -ENOENT;

	if (buf_read_file(&b, j->mountinfo, 8 << 20) == 0 &&
	    fsinfo_mountinfo_find(b.data, m->mount_point, mi) && mi->major == major &&
	    mi->minor == minor) {
		snprintf(m->mount_opts, sizeof(m->mount_opts), "%s", mi->mount_opts);
		snprintf(m->super_opts, sizeof(m->super_opts), "%s", mi->super_opts);
		rc = 0;
	} else {
		err_set(e, -ENOENT, ERR_FS_FAILED,
		        "the mount of /dev/%s does not show in %s at '%s'", m->device, j->mountinfo,
		        m->mount_point);
	}
	buf_release(&b);
	free(mi);
	return rc;
}

int jobfs_make(struct jobfs *j, int64_t job_id, const char *device, const struct fs_spec *spec,
               struct contain *c, jobfs_stop_fn stop, void *stop_cls, struct jobfs_made *m,
               struct err *e)
{
	struct buf out = BUF_INIT, errout = BUF_INIT;
	struct fs_mount mnt;
	struct stat st;
	char devpath[96], name[64], why[256], **argv = NULL;
	double t0;
	int rc, status;

	memset(m, 0, sizeof(*m));
	m->job_id = job_id;
	m->type = spec->type;
	snprintf(m->device, sizeof(m->device), "%s", device);
	if (j->dir_fd < 0)
		return err_set(e, -EPERM, ERR_FS_FAILED,
		               "this agent has no state directory to mount filesystems under");
	snprintf(devpath, sizeof(devpath), "/dev/%s", device);
	snprintf(name, sizeof(name), "job-%lld", (long long)job_id);
	snprintf(m->mount_point, sizeof(m->mount_point), "%s/%s", j->dir, name);
	rc = fsopt_mount_parse(spec->type, spec->mount, &mnt, e);
	if (rc == 0)
		rc = fsopt_mkfs_argv(spec, devpath, false, &argv, e);
	if (rc)
		goto out;
	fsopt_words_join((const char *const *)argv, -1, " ", m->mkfs_argv, sizeof(m->mkfs_argv));
	if (stat(devpath, &st) < 0 || !S_ISBLK(st.st_mode)) {
		rc = err_set(e, -ENODEV, ERR_FS_FAILED, "'%s' is not a block device", devpath);
		goto out;
	}
	m->dev_major = major(st.st_rdev);
	m->dev_minor = minor(st.st_rdev);
	/* The record first: a crash after this line leaves something to find. */
	rc = record_write(j, m, major(st.st_rdev), minor(st.st_rdev), e);
	if (rc)
		goto out;
	m->record_made = true;
	if (mkdirat(j->dir_fd, name, 0700) < 0) {
		rc = err_set(e, -errno, ERR_FS_FAILED, "cannot create the mount directory '%s': %s",
		             m->mount_point, strerror(errno));
		goto out;
	}
	m->dir_made = true;
	log_info("job %lld: %s", (long long)job_id, m->mkfs_argv);
	t0 = time_mono_s();
	rc = tool_run(argv, c, job_id, stop, stop_cls, j->tool_timeout_s, &out, &errout, &status,
	              e);
	if (rc)
		goto out;
	m->mkfs_s = time_mono_s() - t0;
	if (status != 0) {
		tool_why(&out, &errout, why, sizeof(why));
		rc = err_set(e, -EIO, ERR_FS_FAILED, "%s exited with status %d: %s", argv[0],
		             status, why);
		goto out;
	}
	if (stop && stop(stop_cls)) {
		rc = err_set(e, -ECANCELED, ERR_CANCELLED, "cancelled after mkfs");
		goto out;
	}
	/* tune2fs -l reads the device before it is mounted (no needs_recovery then); xfs_info
	 * asks the mounted filesystem. */
	if (spec->type == FS_EXT4)
		figures_read(m, devpath, out.data, c, stop, stop_cls);
	rc = mount_onto(j, name, devpath, spec->type, &mnt, e);
	if (rc)
		goto out;
	m->mounted = true;
	rc = mount_read_back(j, m, major(st.st_rdev), minor(st.st_rdev), e);
	if (rc)
		goto out;
	log_info("job %lld: mounted %s (%s) on %s: %s %s", (long long)job_id, devpath,
	         fs_type_name(spec->type), m->mount_point, m->mount_opts, m->super_opts);
	if (spec->type == FS_XFS)
		figures_read(m, devpath, out.data, c, stop, stop_cls);
out:
	if (rc)
		jobfs_unmake(j, m);
	engine_argv_free(argv);
	buf_release(&out);
	buf_release(&errout);
	return rc;
}

int jobfs_root_open(struct jobfs *j, const struct jobfs_made *m, struct err *e)
{
	struct stat st;
	char name[64];
	int fd;

	if (j->dir_fd < 0 || !m->mounted)
		return err_set(e, -ENOENT, ERR_FS_FAILED, "job %lld has no filesystem mounted",
		               (long long)m->job_id);
	snprintf(name, sizeof(name), "job-%lld", (long long)m->job_id);
	fd = openat(j->dir_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return err_set(e, -errno, ERR_FS_FAILED, "cannot open the mount directory '%s': %s",
		               m->mount_point, strerror(errno));
	if (fstat(fd, &st) < 0 || major(st.st_dev) != m->dev_major ||
	    minor(st.st_dev) != m->dev_minor) {
		close(fd);
		return err_set(e, -ESTALE, ERR_FS_FAILED,
		               "'%s' is no longer the filesystem made on /dev/%s (unmounted under "
		               "the job?); nothing was written",
		               m->mount_point, m->device);
	}
	return fd;
}

/* mkfs's no-op run of c on device: its summary into m's figures. */
static int mkfs_dry_run(const char *device, const struct fsopt_checked *c, struct jobfs_made *m,
                        struct err *e)
{
	struct buf out = BUF_INIT, errout = BUF_INIT;
	char why[256];
	int rc, status;

	m->type = c->type;
	snprintf(m->device, sizeof(m->device), "%s", device);
	rc = tool_run(c->mkfs_dry_argv, NULL, 0, NULL, NULL, JOBFS_DRY_TIMEOUT_S, &out, &errout,
	              &status, e);
	if (rc)
		goto out;
	if (status != 0) {
		tool_why(&out, &errout, why, sizeof(why));
		rc = err_set(e, -EINVAL, ERR_INVALID_FS_OPTION, "%s's dry run (%s) refuses: %s",
		             c->mkfs_dry_argv[0], c->dry_flag, why);
		goto out;
	}
	if (c->type == FS_XFS)
		fsinfo_xfs_parse(out.data ? out.data : "", &m->figures);
	else
		fsinfo_ext4_parse(NULL, out.data ? out.data : "", &m->figures);
out:
	buf_release(&out);
	buf_release(&errout);
	return rc;
}

int jobfs_host_check(const char *device, const struct fsopt_checked *c, bool held,
                     struct jobfs_made *m, struct err *e)
{
	int rc = jobfs_kernel_check(c, e);

	if (rc == 0)
		rc = jobfs_tools_check(c, e);
	if (rc)
		return rc;
	memset(m, 0, sizeof(*m));
	snprintf(m->mkfs_argv, sizeof(m->mkfs_argv), "%s", c->mkfs_line);
	return held ? 0 : mkfs_dry_run(device, c, m, e);
}

/* What one record says. */
struct record {
	int64_t job_id;
	char boot[64];
	char device[64];
	unsigned major, minor;
	bool has_devnum;
	char dir[PATH_MAX];
};

static int record_parse(const char *text, struct record *r)
{
	const char *line, *end;

	memset(r, 0, sizeof(*r));
	for (line = text; *line; line = *end ? end + 1 : end) {
		int n;

		end = line + strcspn(line, "\n");
		n = (int)(end - line);
		if (!strncmp(line, "job ", 4)) {
			char v[32];

			snprintf(v, sizeof(v), "%.*s", n - 4, line + 4);
			if (num_parse_i64(v, &r->job_id))
				return -EINVAL;
		} else if (!strncmp(line, "boot ", 5)) {
			snprintf(r->boot, sizeof(r->boot), "%.*s", n - 5, line + 5);
		} else if (!strncmp(line, "device ", 7)) {
			snprintf(r->device, sizeof(r->device), "%.*s", n - 7, line + 7);
		} else if (!strncmp(line, "devnum ", 7)) {
			r->has_devnum = sscanf(line + 7, "%u:%u", &r->major, &r->minor) == 2;
		} else if (!strncmp(line, "dir ", 4)) {
			snprintf(r->dir, sizeof(r->dir), "%.*s", n - 4, line + 4);
		}
	}
	return r->job_id > 0 && r->dir[0] ? 0 : -EINVAL;
}

/* Undo what one record names; 1 if something was unmounted, 0 if nothing was mounted, -errno
 * when the mount stays (the record is kept). */
static int record_recover(struct jobfs *j, const char *recname)
{
	struct buf b = BUF_INIT, mi = BUF_INIT;
	struct fs_mountinfo *m = xcalloc(1, sizeof(*m));
	struct record r;
	char expect[PATH_MAX + 16], name[64];
	int fd, rc = 0, unmounted = 0;

	fd = openat(j->dir_fd, recname, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0) {
		char chunk[1024];
		ssize_t n;

		while ((n = read(fd, chunk, sizeof(chunk))) > 0 && b.len < RECORD_MAX_BYTES)
			buf_append(&b, chunk, (size_t)n);
		close(fd);
	}
	if (!b.data || record_parse(b.data, &r)) {
		log_error("'%s/%s' is not a filesystem record of this agent: left alone", j->dir,
		          recname);
		rc = -EINVAL;
		goto out;
	}
	snprintf(expect, sizeof(expect), "%s/job-%lld", j->dir, (long long)r.job_id);
	if (strcmp(r.dir, expect)) {
		log_error("'%s/%s' names the directory '%s', not %s: left alone", j->dir, recname,
		          r.dir, expect);
		rc = -EINVAL;
		goto out;
	}
	if (buf_read_file(&mi, j->mountinfo, 8 << 20) == 0 &&
	    fsinfo_mountinfo_find(mi.data, r.dir, m)) {
		if (r.has_devnum && (m->major != r.major || m->minor != r.minor)) {
			log_error("job %lld: '%s' holds a mount of %u:%u, not the job's device %s "
			          "(%u:%u): left alone",
			          (long long)r.job_id, r.dir, m->major, m->minor, r.device, r.major,
			          r.minor);
			rc = -EBUSY;
			goto out;
		}
		rc = unmount_path(r.dir);
		if (rc < 0) {
			log_error(
			        "job %lld: cannot unmount /dev/%s from '%s': %s (record kept; the "
			        "next start tries again)",
			        (long long)r.job_id, r.device, r.dir, strerror(-rc));
			goto out;
		}
		unmounted = rc == 0;
		if (unmounted)
			log_info("job %lld: unmounted /dev/%s from %s (left mounted by an agent "
			         "that "
			         "stopped mid-job)",
			         (long long)r.job_id, r.device, r.dir);
	} else if (strcmp(r.boot, j->boot_id)) {
		log_info("job %lld: /dev/%s is no longer mounted (the machine restarted)",
		         (long long)r.job_id, r.device);
	} else {
		log_info("job %lld: /dev/%s was not mounted any more", (long long)r.job_id,
		         r.device);
	}
	snprintf(name, sizeof(name), "job-%lld", (long long)r.job_id);
	if (unlinkat(j->dir_fd, name, AT_REMOVEDIR) < 0 && errno != ENOENT) {
		if (errno == ENOTDIR && unlinkat(j->dir_fd, name, 0) == 0) {
			log_warn("job %lld: '%s' was not a directory: removed", (long long)r.job_id,
			         r.dir);
		} else {
			rc = -errno;
			log_error("job %lld: cannot remove '%s': %s (record kept)",
			          (long long)r.job_id, r.dir, strerror(errno));
			goto out;
		}
	}
	unlinkat(j->dir_fd, recname, 0);
	rc = unmounted;
out:
	buf_release(&b);
	buf_release(&mi);
	free(m);
	return rc;
}

int jobfs_recover(struct jobfs *j)
{
	struct dirent *de;
	int total = 0, rc, dfd;
	DIR *d;

	if (j->dir_fd < 0)
		return 0;
	dfd = dup(j->dir_fd);
	if (dfd < 0 || !(d = fdopendir(dfd))) {
		if (dfd >= 0)
			close(dfd);
		log_error("cannot list '%s': %s", j->dir, strerror(errno));
		return 0;
	}
	while ((de = readdir(d))) {
		size_t n = strlen(de->d_name);

		if (strncmp(de->d_name, "job-", 4) || n < 5 || strcmp(de->d_name + n - 4, ".rec"))
			continue;
		rc = record_recover(j, de->d_name);
		if (rc > 0)
			total += rc;
	}
	closedir(d);
	if (total)
		area_sync(j);
	return total;
}
