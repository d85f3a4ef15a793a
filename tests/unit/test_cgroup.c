/* test_cgroup.c -- cgroup.c: mountinfo and /proc/PID/cgroup parsing from captured text, and
 * real cgroups (where this process may make them): join, count, kill both ways, remove. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "buf.h"
#include "job/cgroup.h"
#include "testutil.h"

/* /proc/self/mountinfo of a hybrid host (Debian 12 VM, Linux 6.18): v1 controllers, and
 * cgroup2 at /sys/fs/cgroup/unified. */
static const char hybrid[] =
        "22 1 254:0 / / rw,relatime - ext4 /dev/vda rw\n"
        "23 22 0:21 / /sys rw,nosuid,nodev,noexec,relatime - sysfs sysfs rw\n"
        "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
        "32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n"
        "35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"
        "40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,name=systemd\n"
        "41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n";

/* A pure v2 host (systemd), with optional fields before the separator. */
static const char pure_v2[] =
        "24 1 8:2 / / rw,relatime shared:1 - ext4 /dev/sda2 rw,errors=remount-ro\n"
        "25 24 0:22 / /sys rw,nosuid,nodev,noexec,relatime shared:2 - sysfs sysfs rw\n"
        "28 25 0:25 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 "
        "cgroup2 rw,nsdelegate,memory_recursiveprot\n"
        "29 25 0:26 / /sys/fs/pstore rw,nosuid,nodev,noexec,relatime shared:5 - pstore "
        "pstore rw\n";

/* cgroup v1 only: no cgroup2 anywhere (a "cgroup2" in a path does not count). */
static const char v1_only[] =
        "22 1 254:0 / / rw,relatime - ext4 /dev/vda rw\n"
        "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
        "32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n"
        "50 22 0:40 / /mnt/cgroup2\\040backup rw,relatime - ext4 /dev/vdb rw\n";

/* A container that sees only its subtree, mounted at a path with a space. */
static const char container[] =
        "700 650 0:30 /docker/abc /sys/fs/cgroup\\040x ro,nosuid - cgroup2 cgroup rw\n";

static void test_mount_find(void **state)
{
	char mnt[256], root[256];

	assert_int_equal(cgroup_mount_find(hybrid, mnt, sizeof(mnt), root, sizeof(root)), 0);
	assert_string_equal(mnt, "/sys/fs/cgroup/unified");
	assert_string_equal(root, "/");
	assert_int_equal(cgroup_mount_find(pure_v2, mnt, sizeof(mnt), root, sizeof(root)), 0);
	assert_string_equal(mnt, "/sys/fs/cgroup");
	assert_string_equal(root, "/");
	assert_int_equal(cgroup_mount_find(v1_only, mnt, sizeof(mnt), root, sizeof(root)), -ENOENT);
	assert_int_equal(cgroup_mount_find("", mnt, sizeof(mnt), root, sizeof(root)), -ENOENT);
	assert_int_equal(cgroup_mount_find(container, mnt, sizeof(mnt), root, sizeof(root)), 0);
	assert_string_equal(mnt, "/sys/fs/cgroup x");
	assert_string_equal(root, "/docker/abc");
	assert_int_equal(cgroup_mount_find(pure_v2, mnt, 8, root, sizeof(root)), -ENAMETOOLONG);
}

static void test_self_find(void **state)
{
	char path[256];

	assert_int_equal(cgroup_self_find("12:pids:/\n4:memory:/x\n0::/\n", path, sizeof(path)), 0);
	assert_string_equal(path, "/");
	assert_int_equal(
	        cgroup_self_find("0::/system.slice/fleettune-agent.service\n", path, sizeof(path)),
	        0);
	assert_string_equal(path, "/system.slice/fleettune-agent.service");
	assert_int_equal(cgroup_self_find("1:name=systemd:/\n", path, sizeof(path)), -ENOENT);
	assert_int_equal(cgroup_self_find("0::/a/very/long/one\n", path, 5), -ENAMETOOLONG);
}

static void test_dir_join(void **state)
{
	char out[256];

	assert_int_equal(cgroup_dir_join("/sys/fs/cgroup/unified", "/", "/", out, sizeof(out)), 0);
	assert_string_equal(out, "/sys/fs/cgroup/unified");
	assert_int_equal(
	        cgroup_dir_join("/sys/fs/cgroup", "/", "/system.slice/a.service", out, sizeof(out)),
	        0);
	assert_string_equal(out, "/sys/fs/cgroup/system.slice/a.service");
	assert_int_equal(cgroup_dir_join("/sys/fs/cgroup", "/docker/abc", "/docker/abc/sub", out,
	                                 sizeof(out)),
	                 0);
	assert_string_equal(out, "/sys/fs/cgroup/sub");
	assert_int_equal(
	        cgroup_dir_join("/sys/fs/cgroup", "/docker/abc", "/docker/abc", out, sizeof(out)),
	        0);
	assert_string_equal(out, "/sys/fs/cgroup");
	assert_int_equal(
	        cgroup_dir_join("/sys/fs/cgroup", "/docker/abc", "/docker/abcd", out, sizeof(out)),
	        -EXDEV);
	assert_int_equal(
	        cgroup_dir_join("/sys/fs/cgroup", "/docker/abc", "/other", out, sizeof(out)),
	        -EXDEV);
}

/* A test cgroup under this process's own, or NULL (and the test skips) where none can be
 * made: not root, no cgroup2, read-only cgroupfs. */
static char *test_cgroup_make(void)
{
	char mnt[512], root[512], self[512], own[1024], *dir;
	struct buf b = BUF_INIT;
	struct err e;

	if (buf_read_file(&b, "/proc/self/mountinfo", 1 << 20) ||
	    cgroup_mount_find(b.data, mnt, sizeof(mnt), root, sizeof(root))) {
		buf_release(&b);
		return NULL;
	}
	buf_release(&b);
	if (buf_read_file(&b, "/proc/self/cgroup", 1 << 16) ||
	    cgroup_self_find(b.data, self, sizeof(self)) ||
	    cgroup_dir_join(mnt, root, self, own, sizeof(own))) {
		buf_release(&b);
		return NULL;
	}
	buf_release(&b);
	dir = malloc(1200);
	snprintf(dir, 1200, "%s/ft-unit-cgroup-%d", own, (int)getpid());
	if (cgroup_create(dir, &e)) {
		free(dir);
		return NULL;
	}
	return dir;
}

/* A child that joins dir (writes "0" to its cgroup.procs before exec, as proc.c's children
 * do) and runs sh -c script. */
static pid_t spawn_in(const char *dir, const char *script)
{
	char path[1300];
	pid_t pid;
	int fd;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	pid = fork();
	if (pid == 0) {
		if (write(fd, "0", 1) != 1)
			_exit(126);
		execl("/bin/sh", "sh", "-c", script, (char *)NULL);
		_exit(127);
	}
	close(fd);
	assert_true(pid > 0);
	return pid;
}

static void wait_count(const char *dir, int want)
{
	int i;

	for (i = 0; i < 500 && cgroup_procs_count(dir) != want; i++)
		usleep(10000);
	assert_int_equal(cgroup_procs_count(dir), want);
}

/* Kill a cgroup holding a shell and two setsid() sleeps, with cgroup.kill or without. */
static void kill_case(const char *dir, bool use_kill_file)
{
	pid_t sh;
	int n = -1, status;

	sh = spawn_in(dir, "setsid sleep 60 & setsid sleep 60 & exec sleep 60");
	wait_count(dir, 3);
	assert_int_equal(cgroup_kill(dir, use_kill_file, 10.0, &n), 0);
	assert_int_equal(n, 3);
	assert_int_equal(waitpid(sh, &status, 0), sh);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	wait_count(dir, 0);
	/* An empty cgroup: nothing to kill. */
	assert_int_equal(cgroup_kill(dir, use_kill_file, 1.0, &n), 0);
	assert_int_equal(n, 0);
}

static void test_real_cgroup(void **state)
{
	char *dir = test_cgroup_make(), path[1300];

	if (!dir)
		skip();
	assert_int_equal(cgroup_procs_count(dir), 0);
	snprintf(path, sizeof(path), "%s/cgroup.kill", dir);
	if (access(path, W_OK) == 0)
		kill_case(dir, true);
	kill_case(dir, false);
	assert_int_equal(cgroup_remove(dir), 0);
	assert_int_equal(cgroup_remove(dir), 0); /* gone is fine */
	assert_int_equal(cgroup_procs_count(dir), -ENOENT);
	assert_int_equal(cgroup_kill(dir, false, 1.0, NULL), -ENOENT);
	free(dir);
}

/* rmdir refuses a populated cgroup. */
static void test_remove_busy(void **state)
{
	char *dir = test_cgroup_make();
	pid_t pid;

	if (!dir)
		skip();
	pid = spawn_in(dir, "exec sleep 60");
	wait_count(dir, 1);
	assert_int_equal(cgroup_remove(dir), -EBUSY);
	assert_int_equal(cgroup_kill(dir, false, 10.0, NULL), 0);
	waitpid(pid, NULL, 0);
	assert_int_equal(cgroup_remove(dir), 0);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mount_find),  cmocka_unit_test(test_self_find),
		cmocka_unit_test(test_dir_join),    cmocka_unit_test(test_real_cgroup),
		cmocka_unit_test(test_remove_busy),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
