/* test_jobfs.c -- jobfs.c against temp state directories and mountinfo files: the private area
 * (0700, never a link), start-up recovery of records, refusals that leave nothing behind, the
 * tools check, and the kernel's judgement of mount options where this process may ask it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "engines/engine.h"
#include "engines/fsopt.h"
#include "job/bootid.h"
#include "job/jobfs.h"
#include "testutil.h"

static bool exists(const char *root, const char *rel)
{
	char path[4096];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	return lstat(path, &st) == 0;
}

static void test_init_area(void **state)
{
	char *dir = tu_tmpdir(), path[4096];
	struct jobfs j;
	struct stat st;
	struct err e;

	(void)state;
	assert_int_equal(jobfs_init(&j, NULL, dir, NULL, &e), 0);
	snprintf(path, sizeof(path), "%s/fs", dir);
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(st.st_mode & 0777, 0700);
	assert_int_equal(jobfs_recover(&j), 0);
	jobfs_release(&j);
	/* Opened again as it is. */
	assert_int_equal(jobfs_init(&j, NULL, dir, NULL, &e), 0);
	jobfs_release(&j);
	/* Group or others may enter: refused, with the fix. */
	chmod(path, 0755);
	assert_int_equal(jobfs_init(&j, NULL, dir, NULL, &e), -EPERM);
	assert_non_null(strstr(e.msg, "mode 0700"));
	assert_non_null(strstr(e.msg, "chmod 700"));
	assert_int_equal(j.dir_fd, -1);
	/* A link in its place is never followed. */
	rmdir(path);
	assert_int_equal(symlink("/tmp", path), 0);
	assert_true(jobfs_init(&j, NULL, dir, NULL, &e) < 0);
	assert_non_null(strstr(e.msg, "is not a plain directory"));
	unlink(path);
	/* No state directory: no filesystem jobs. */
	assert_int_equal(jobfs_init(&j, NULL, NULL, NULL, &e), 0);
	assert_int_equal(j.dir_fd, -1);
	assert_int_equal(jobfs_recover(&j), 0);
	jobfs_release(&j);
	tu_rmrf(dir);
	free(dir);
}

/* The root a pass's directory is made in: the mount directory opened through the area, never
 * a link, and only while it is the filesystem made (its st_dev the device's): a directory
 * whose mount is gone is refused, so nothing is written into the state directory's own disk. */
static void test_root_open(void **state)
{
	char *dir = tu_tmpdir(), path[4096], victim[4096];
	struct jobfs_made m;
	struct jobfs j;
	struct stat st;
	struct err e;
	int fd;

	(void)state;
	assert_int_equal(jobfs_init(&j, NULL, dir, NULL, &e), 0);
	memset(&m, 0, sizeof(m));
	m.job_id = 3;
	snprintf(m.device, sizeof(m.device), "loop7");
	snprintf(m.mount_point, sizeof(m.mount_point), "%s/fs/job-3", dir);
	/* Nothing mounted (yet): refused. */
	assert_int_equal(jobfs_root_open(&j, &m, &e), -ENOENT);
	m.mounted = true;
	assert_int_equal(jobfs_root_open(&j, &m, &e), -ENOENT);
	snprintf(path, sizeof(path), "%s/fs/job-3", dir);
	assert_int_equal(mkdir(path, 0700), 0);
	assert_int_equal(stat(path, &st), 0);
	/* The bare directory (its filesystem is the state directory's, not /dev/loop7's). */
	m.dev_major = major(st.st_dev) + 1;
	m.dev_minor = minor(st.st_dev);
	assert_int_equal(jobfs_root_open(&j, &m, &e), -ESTALE);
	assert_int_equal(e.code, ERR_FS_FAILED);
	assert_non_null(strstr(e.msg, "is no longer the filesystem made on /dev/loop7"));
	/* What it is when the device's filesystem is there. */
	m.dev_major = major(st.st_dev);
	fd = jobfs_root_open(&j, &m, &e);
	assert_true(fd >= 0);
	close(fd);
	/* A link in the directory's place is not followed. */
	assert_int_equal(rmdir(path), 0);
	snprintf(victim, sizeof(victim), "%s/victim", dir);
	assert_int_equal(mkdir(victim, 0700), 0);
	assert_int_equal(symlink(victim, path), 0);
	assert_true(jobfs_root_open(&j, &m, &e) < 0);
	assert_int_equal(e.code, ERR_FS_FAILED);
	unlink(path);
	jobfs_release(&j);
	tu_rmrf(dir);
	free(dir);
}

/* A record and its directory left by a killed agent, not mounted any more: both go. A record
 * naming another directory, a directory a link stands in for, a mount of another device in
 * the directory: left alone or handled without following anything. */
static void test_recover(void **state)
{
	char *dir = tu_tmpdir(), rec[8192], mi[8192], path[4096], real[4096], *victim = tu_tmpdir();
	struct jobfs j;
	struct err e;

	(void)state;
	assert_non_null(realpath(dir, real));
	tu_write(dir, "mountinfo", "22 27 0:21 / /proc rw,relatime - proc proc rw\n", 0600);
	snprintf(mi, sizeof(mi), "%s/mountinfo", dir);
	assert_int_equal(jobfs_init(&j, NULL, dir, mi, &e), 0);
	/* 1: a plain leftover. */
	snprintf(rec, sizeof(rec), "job 1\nboot x\ndevice loop7\ndevnum 7:7\ndir %s/fs/job-1\n",
	         real);
	tu_write(dir, "fs/job-1.rec", rec, 0600);
	snprintf(path, sizeof(path), "%s/fs/job-1", real);
	assert_int_equal(mkdir(path, 0700), 0);
	/* 2: names a directory outside the area. */
	snprintf(rec, sizeof(rec), "job 2\nboot x\ndevice loop7\ndevnum 7:7\ndir /etc\n");
	tu_write(dir, "fs/job-2.rec", rec, 0600);
	/* 3: its directory is a link to a directory with a file in it. */
	snprintf(rec, sizeof(rec), "job 3\nboot x\ndevice loop7\ndevnum 7:7\ndir %s/fs/job-3\n",
	         real);
	tu_write(dir, "fs/job-3.rec", rec, 0600);
	tu_write(victim, "keep", "data", 0600);
	snprintf(path, sizeof(path), "%s/fs/job-3", real);
	assert_int_equal(symlink(victim, path), 0);
	/* 4: not a record at all. */
	tu_write(dir, "fs/job-4.rec", "garbage\n", 0600);
	assert_int_equal(jobfs_recover(&j), 0);
	assert_false(exists(dir, "fs/job-1"));
	assert_false(exists(dir, "fs/job-1.rec"));
	assert_true(exists(dir, "fs/job-2.rec"));
	assert_false(exists(dir, "fs/job-3"));
	assert_false(exists(dir, "fs/job-3.rec"));
	assert_true(exists(victim, "keep"));
	assert_true(exists(dir, "fs/job-4.rec"));
	jobfs_release(&j);
	/* 5: the mountinfo shows another device on the job's directory: left alone. */
	snprintf(mi, sizeof(mi),
	         "22 27 0:21 / /proc rw,relatime - proc proc rw\n"
	         "90 27 8:1 / %s/fs/job-5 rw,relatime - ext4 /dev/sda1 rw\n",
	         real);
	tu_write(dir, "mountinfo", mi, 0600);
	snprintf(mi, sizeof(mi), "%s/mountinfo", dir);
	assert_int_equal(jobfs_init(&j, NULL, dir, mi, &e), 0);
	snprintf(rec, sizeof(rec), "job 5\nboot x\ndevice loop7\ndevnum 7:7\ndir %s/fs/job-5\n",
	         real);
	tu_write(dir, "fs/job-5.rec", rec, 0600);
	snprintf(path, sizeof(path), "%s/fs/job-5", real);
	assert_int_equal(mkdir(path, 0700), 0);
	assert_int_equal(jobfs_recover(&j), 0);
	assert_true(exists(dir, "fs/job-5.rec"));
	assert_true(exists(dir, "fs/job-5"));
	jobfs_release(&j);
	tu_rmrf(dir);
	tu_rmrf(victim);
	free(dir);
	free(victim);
}

/* A make that cannot start leaves nothing: no record, no directory. */
static void test_make_refused(void **state)
{
	char *dir = tu_tmpdir();
	struct fs_spec s;
	struct jobfs j;
	struct jobfs_made m;
	struct err e;

	(void)state;
	memset(&s, 0, sizeof(s));
	s.type = FS_XFS;
	assert_int_equal(jobfs_init(&j, NULL, NULL, NULL, &e), 0);
	assert_int_equal(jobfs_make(&j, 7, "loop0", &s, NULL, NULL, NULL, &m, &e), -EPERM);
	assert_int_equal(e.code, ERR_FS_FAILED);
	jobfs_release(&j);
	assert_int_equal(jobfs_init(&j, NULL, dir, NULL, &e), 0);
	/* No such block device. */
	assert_int_equal(jobfs_make(&j, 7, "ft-no-such-dev", &s, NULL, NULL, NULL, &m, &e),
	                 -ENODEV);
	assert_non_null(strstr(e.msg, "'/dev/ft-no-such-dev' is not a block device"));
	assert_false(exists(dir, "fs/job-7"));
	assert_false(exists(dir, "fs/job-7.rec"));
	/* Options outside the table: refused before anything. */
	snprintf(s.mount, sizeof(s.mount), "nobarrier");
	assert_int_equal(jobfs_make(&j, 7, "ft-no-such-dev", &s, NULL, NULL, NULL, &m, &e),
	                 -EINVAL);
	assert_int_equal(e.code, ERR_INVALID_FS_OPTION);
	assert_false(exists(dir, "fs/job-7.rec"));
	assert_int_equal(jobfs_unmake(&j, &m), 0);
	jobfs_release(&j);
	tu_rmrf(dir);
	free(dir);
}

/* The boot id is read under the root it is given; absent there, it is empty. */
static void test_boot_id_under_root(void **state)
{
	char *dir = tu_tmpdir(), id[40], real[40];
	struct jobfs j;
	struct err e;

	(void)state;
	bootid_read(dir, id, sizeof(id));
	assert_string_equal(id, "");
	tu_write(dir, "proc/sys/kernel/random/boot_id", "0b7e1d2c-test-boot\n", 0644);
	bootid_read(dir, id, sizeof(id));
	assert_string_equal(id, "0b7e1d2c-test-boot");
	assert_int_equal(jobfs_init(&j, dir, NULL, NULL, &e), 0);
	assert_string_equal(j.boot_id, "0b7e1d2c-test-boot");
	jobfs_release(&j);
	bootid_read(NULL, real, sizeof(real));
	bootid_read("/", id, sizeof(id));
	assert_string_equal(id, real);
	tu_rmrf(dir);
	free(dir);
}

/* One PATH search: a bare name on $PATH (an empty entry the working directory), a path as
 * given; the words of a line joined with a separator, cut at the buffer's end. */
static void test_tool_found_and_join(void **state)
{
	char *dir = tu_tmpdir(), *path = getenv("PATH") ? strdup(getenv("PATH")) : NULL, full[4096];
	const char *words[] = { "mkfs.xfs", "-f", "/dev/loop0", NULL };
	char out[16];

	(void)state;
	tu_write(dir, "ft-tool", "#!/bin/sh\n", 0755);
	tu_write(dir, "ft-plain", "", 0644);
	setenv("PATH", dir, 1);
	assert_true(engine_tool_found("ft-tool"));
	assert_false(engine_tool_found("ft-plain")); /* not executable */
	assert_false(engine_tool_found("ft-none"));
	snprintf(full, sizeof(full), "%s/ft-tool", dir);
	assert_true(engine_tool_found(full));
	snprintf(full, sizeof(full), "%s/ft-plain", dir);
	assert_false(engine_tool_found(full));
	setenv("PATH", "", 1); /* empty: ENGINE_DEFAULT_PATH, where sh is */
	assert_true(engine_tool_found("sh"));
	if (path)
		setenv("PATH", path, 1);
	else
		unsetenv("PATH");
	fsopt_words_join(words, -1, " ", out, sizeof(out));
	assert_string_equal(out, "mkfs.xfs -f /de"); /* cut at 15 bytes */
	fsopt_words_join(words, 2, ", ", out, sizeof(out));
	assert_string_equal(out, "mkfs.xfs, -f");
	fsopt_words_join(words, 0, " ", out, sizeof(out));
	assert_string_equal(out, "");
	free(path);
	tu_rmrf(dir);
	free(dir);
}

/* A filesystem the tables take (type t, the default mkfs and mount), checked for the host. */
static void checked_of(enum fs_type t, const char *mount, struct fsopt_checked *c, int want)
{
	struct fs_spec s = { .type = t };
	struct err e;

	snprintf(s.mount, sizeof(s.mount), "%s", mount);
	assert_int_equal(fsopt_spec_check(&s, "/dev/loop9", c, &e), want);
	if (want)
		assert_int_equal(e.code, ERR_INVALID_FS_OPTION);
}

static void test_tools(void **state)
{
	char *dir = tu_tmpdir(), *path = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
	struct fsopt_checked xfs, ext4;
	struct err e;

	(void)state;
	checked_of(FS_XFS, "", &xfs, 0);
	checked_of(FS_EXT4, "", &ext4, 0);
	assert_string_equal(xfs.mkfs_line, "mkfs.xfs -f -N /dev/loop9");
	setenv("PATH", dir, 1);
	assert_int_equal(jobfs_tools_check(&xfs, &e), -ENOENT);
	assert_int_equal(e.code, ERR_ENGINE_UNAVAILABLE);
	assert_string_equal(e.msg, "filesystem xfs: 'mkfs.xfs' is not installed on this node "
	                           "(Debian package xfsprogs)");
	tu_write(dir, "mkfs.ext4", "#!/bin/sh\n", 0755);
	assert_int_equal(jobfs_tools_check(&ext4, &e), -ENOENT);
	assert_string_equal(e.msg, "filesystem ext4: 'tune2fs' is not installed on this node "
	                           "(Debian package e2fsprogs)");
	tu_write(dir, "tune2fs", "#!/bin/sh\n", 0755);
	assert_int_equal(jobfs_tools_check(&ext4, &e), 0);
	/* held: the tools there, the command given, mkfs not run */
	{
		struct jobfs_made m;
		int fd = fsopen("ext4", FSOPEN_CLOEXEC);

		if (fd >= 0)
			close(fd);
		if (fd >= 0 || errno != ENODEV) {
			assert_int_equal(jobfs_host_check("loop9", &ext4, true, &m, &e), 0);
			assert_string_equal(m.mkfs_argv, "mkfs.ext4 -F -n /dev/loop9");
		}
	}
	if (path)
		setenv("PATH", path, 1);
	fsopt_checked_release(&xfs);
	fsopt_checked_release(&ext4);
	free(path);
	tu_rmrf(dir);
	free(dir);
}

/* The kernel's parser behind the tables, where this process may open a filesystem context. */
static void test_mount_check(void **state)
{
	struct fsopt_checked c;
	struct err e;
	int fd = fsopen("ext4", FSOPEN_CLOEXEC);

	(void)state;
	checked_of(FS_XFS, "ro", &c, -EINVAL);
	if (fd < 0) {
		print_message("skipped the kernel's part: fsopen: %s\n", strerror(errno));
		return;
	}
	close(fd);
	checked_of(FS_EXT4, "noatime,data=writeback,commit=30", &c, 0);
	assert_int_equal(jobfs_kernel_check(&c, &e), 0);
	fsopt_checked_release(&c);
	if ((fd = fsopen("xfs", FSOPEN_CLOEXEC)) >= 0) {
		close(fd);
		checked_of(FS_XFS, "noatime,logbufs=8,logbsize=256k", &c, 0);
		assert_int_equal(jobfs_kernel_check(&c, &e), 0);
		fsopt_checked_release(&c);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_boot_id_under_root),
		cmocka_unit_test(test_tool_found_and_join),
		cmocka_unit_test(test_init_area),
		cmocka_unit_test(test_recover),
		cmocka_unit_test(test_make_refused),
		cmocka_unit_test(test_tools),
		cmocka_unit_test(test_mount_check),
		cmocka_unit_test(test_root_open),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
