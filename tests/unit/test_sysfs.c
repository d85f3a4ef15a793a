/* test_sysfs.c -- the parameter catalogue, validation, aliases and setra against a temp sysfs tree.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "device/sysfs.h"
#include "testutil.h"

struct fx {
	char *root;
	const char *allow[2];
	struct sysfs fs;
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	f->root = tu_tmpdir();
	tu_fake_device(f->root, "loop0", 0);
	tu_fake_device(f->root, "sdb", 1);
	tu_fake_device(f->root, "vda", 0);
	f->allow[0] = "loop0";
	f->allow[1] = "sdb";
	f->fs.root = f->root;
	f->fs.allow_devices = f->allow;
	f->fs.n_allow_devices = 2;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	tu_rmrf(f->root);
	free(f->root);
	free(f);
	return 0;
}

static void test_device_names(void **state)
{
	struct fx *f = *state;
	struct err e;

	assert_true(sysfs_device_name_ok("loop0"));
	assert_true(sysfs_device_name_ok("nvme0n1"));
	assert_true(sysfs_device_name_ok("dm-0"));
	assert_false(sysfs_device_name_ok(""));
	assert_false(sysfs_device_name_ok(".."));
	assert_false(sysfs_device_name_ok("."));
	assert_false(sysfs_device_name_ok("../../etc"));
	assert_false(sysfs_device_name_ok("a/b"));
	assert_false(sysfs_device_name_ok("a..b"));
	assert_false(sysfs_device_name_ok("loop0 "));
	assert_int_equal(sysfs_device_check(&f->fs, "loop0", &e), 0);
	assert_int_equal(sysfs_device_check(&f->fs, "sdz", &e), -ENOENT);
	assert_int_equal(e.code, ERR_NOT_FOUND);
	assert_int_equal(sysfs_device_check(&f->fs, "../../etc", &e), -EINVAL);
	assert_int_equal(e.code, ERR_BAD_REQUEST);
}

static void test_devices_list(void **state)
{
	struct fx *f = *state;
	struct device_info *list;
	struct err e;
	int n;

	assert_int_equal(sysfs_devices_list(&f->fs, &list, &n, &e), 0);
	assert_int_equal(n, 3);
	assert_string_equal(list[0].name, "loop0");
	assert_string_equal(list[1].name, "sdb");
	assert_string_equal(list[2].name, "vda");
	assert_int_equal(list[0].size_bytes, 2097152ULL * 512);
	assert_string_equal(list[0].scheduler, "mq-deadline");
	assert_true(list[0].writable);
	assert_false(list[2].writable); /* not allowlisted */
	free(list);
}

static void test_catalogue(void **state)
{
	struct fx *f = *state;
	struct params ps;
	const struct param *p;
	struct err e;

	assert_int_equal(sysfs_params_read(&f->fs, "sdb", &ps, &e), 0);
	/* Every queue/ file, iosched.* of the active scheduler, queue_depth, setra. */
	p = sysfs_params_find(&ps, "nr_requests");
	assert_non_null(p);
	assert_int_equal(p->kind, PARAM_INT);
	assert_string_equal(p->value, "64");
	assert_true(p->writable);
	assert_true(p->has_min);
	assert_int_equal(p->min, 4);
	p = sysfs_params_find(&ps, "logical_block_size");
	assert_non_null(p);
	assert_false(p->writable); /* mode 0444 */
	p = sysfs_params_find(&ps, "scheduler");
	assert_non_null(p);
	assert_int_equal(p->kind, PARAM_SCHED);
	assert_string_equal(p->value, "mq-deadline");
	assert_int_equal(p->n_choices, 4);
	assert_string_equal(p->choices[0], "none");
	assert_string_equal(p->choices[3], "bfq");
	p = sysfs_params_find(&ps, "iosched.fifo_batch");
	assert_non_null(p);
	assert_string_equal(p->value, "16");
	p = sysfs_params_find(&ps, "iosched.read_expire");
	assert_non_null(p);
	assert_string_equal(p->unit, "ms");
	p = sysfs_params_find(&ps, "queue_depth");
	assert_non_null(p);
	assert_string_equal(p->value, "256");
	p = sysfs_params_find(&ps, "setra");
	assert_non_null(p);
	assert_string_equal(p->value, "256"); /* 2 x read_ahead_kb 128 */
	assert_string_equal(p->unit, "sectors");
	p = sysfs_params_find(&ps, "max_sectors_kb");
	assert_non_null(p);
	assert_true(p->has_max);
	assert_int_equal(p->max, 32767); /* from max_hw_sectors_kb */
	p = sysfs_params_find(&ps, "rq_affinity");
	assert_int_equal(p->kind, PARAM_ENUM);
	assert_int_equal(p->n_choices, 3);
	p = sysfs_params_find(&ps, "write_cache");
	assert_int_equal(p->n_choices, 2);
	assert_string_equal(p->value, "write back");
	sysfs_params_release(&ps);

	/* loop0 has no device/queue_depth. */
	assert_int_equal(sysfs_params_read(&f->fs, "loop0", &ps, &e), 0);
	assert_null(sysfs_params_find(&ps, "queue_depth"));
	sysfs_params_release(&ps);

	/* A non-allowlisted device is read-only throughout. */
	assert_int_equal(sysfs_params_read(&f->fs, "vda", &ps, &e), 0);
	assert_false(sysfs_params_find(&ps, "nr_requests")->writable);
	sysfs_params_release(&ps);
}

static void test_param_read_unknown(void **state)
{
	struct fx *f = *state;
	struct param p;
	struct err e;

	assert_int_equal(sysfs_param_read(&f->fs, "loop0", "no_such", &p, &e), -ENOENT);
	assert_int_equal(e.code, ERR_UNKNOWN_PARAM);
	assert_int_equal(sysfs_param_read(&f->fs, "loop0", "../../size", &p, &e), -ENOENT);
	assert_int_equal(sysfs_param_read(&f->fs, "loop0", "iosched.../x", &p, &e), -ENOENT);
	assert_int_equal(sysfs_param_read(&f->fs, "loop0", "iosched.fifo_batch", &p, &e), 0);
	assert_string_equal(p.value, "16");
}

static void check_ok(const struct param *p, const char *req, const char *want, bool want_alias)
{
	char canon[256];
	bool aliased;
	struct err e;

	err_clear(&e);
	assert_int_equal(sysfs_param_check(p, req, canon, sizeof(canon), &aliased, &e), 0);
	assert_string_equal(canon, want);
	assert_int_equal(aliased, want_alias);
}

static void check_bad(const struct param *p, const char *req, const char *msg_part)
{
	char canon[256];
	struct err e;

	err_clear(&e);
	assert_int_equal(sysfs_param_check(p, req, canon, sizeof(canon), NULL, &e), -EINVAL);
	assert_int_equal(e.code, ERR_INVALID_VALUE);
	if (msg_part && !strstr(e.msg, msg_part))
		fail_msg("message '%s' lacks '%s'", e.msg, msg_part);
}

static void test_validation(void **state)
{
	struct fx *f = *state;
	struct params ps;
	const struct param *p;
	char canon[64];
	struct err e;

	assert_int_equal(sysfs_params_read(&f->fs, "loop0", &ps, &e), 0);
	p = sysfs_params_find(&ps, "nr_requests");
	check_ok(p, "128", "128", false);
	check_bad(p, "010", "plain decimal"); /* octal-looking: refused */
	check_bad(p, "+5", "plain decimal");
	check_bad(p, "12a", "plain decimal");
	check_bad(p, " 12", "plain decimal");
	check_bad(p, "", "plain decimal");
	check_bad(p, "2", "minimum 4");
	check_bad(p, "99999999999999999999", "out of range");
	p = sysfs_params_find(&ps, "max_sectors_kb");
	check_ok(p, "512", "512", false);
	check_bad(p, "40000", "maximum 32767");
	p = sysfs_params_find(&ps, "rq_affinity");
	check_ok(p, "2", "2", false);
	check_bad(p, "3", "0, 1, 2");
	p = sysfs_params_find(&ps, "nomerges");
	check_bad(p, "-1", NULL);
	p = sysfs_params_find(&ps, "wbt_lat_usec");
	check_ok(p, "-1", "-1", false);
	/* No sign where the parameter takes nothing below 0 (issue 23 item 11). */
	check_bad(p = sysfs_params_find(&ps, "nr_requests"), "-5", "no sign");
	p = sysfs_params_find(&ps, "iosched.fifo_batch");
	assert_non_null(p);
	check_ok(p, "16", "16", false);
	check_bad(p, "-5", "no sign");
	check_bad(p, "-1", "no sign");
	check_bad(p, "+5", "no sign");
	p = sysfs_params_find(&ps, "logical_block_size");
	assert_int_equal(sysfs_param_check(p, "4096", canon, sizeof(canon), NULL, &e), -EPERM);
	assert_int_equal(e.code, ERR_READ_ONLY);
	sysfs_params_release(&ps);
}

static void test_scheduler_aliases(void **state)
{
	struct fx *f = *state;
	struct params ps;
	const struct param *p;
	struct err e;

	assert_int_equal(sysfs_params_read(&f->fs, "loop0", &ps, &e), 0);
	p = sysfs_params_find(&ps, "scheduler");
	check_ok(p, "mq-deadline", "mq-deadline", false);
	check_ok(p, "noop", "none", true);
	check_ok(p, "deadline", "mq-deadline", true);
	check_ok(p, "bfq", "bfq", false);
	check_bad(p, "cfq", "none, mq-deadline, kyber, bfq");
	check_bad(p, "anticipatory", "not available");
	sysfs_params_release(&ps);

	/* A kernel without bfq: the alias still maps, bfq is refused. */
	tu_write(f->root, "sys/block/sdb/queue/scheduler", "[none] mq-deadline kyber\n", 0644);
	assert_int_equal(sysfs_params_read(&f->fs, "sdb", &ps, &e), 0);
	p = sysfs_params_find(&ps, "scheduler");
	assert_string_equal(p->value, "none");
	check_bad(p, "bfq", "(none, mq-deadline, kyber)");
	sysfs_params_release(&ps);
}

static void test_write_readback_and_setra(void **state)
{
	struct fx *f = *state;
	char applied[256];
	struct err e;

	assert_int_equal(sysfs_param_write(&f->fs, "loop0", "nr_requests", "256", applied,
	                                   sizeof(applied), &e),
	                 0);
	assert_string_equal(applied, "256");
	assert_string_equal(tu_read(f->root, "sys/block/loop0/queue/nr_requests"), "256");
	/* setra 8192 sectors = read_ahead_kb 4096 */
	assert_int_equal(
	        sysfs_param_write(&f->fs, "loop0", "setra", "8192", applied, sizeof(applied), &e),
	        0);
	assert_string_equal(tu_read(f->root, "sys/block/loop0/queue/read_ahead_kb"), "4096");
	assert_string_equal(applied, "8192");
	/* an odd sector count rounds down, which read-back shows */
	assert_int_equal(
	        sysfs_param_write(&f->fs, "loop0", "setra", "257", applied, sizeof(applied), &e),
	        0);
	assert_string_equal(applied, "256");
	assert_true(sysfs_value_equal("256", "256\n"));
	assert_false(sysfs_value_equal("256", "257"));
	/* iosched attributes and queue_depth map to their files */
	assert_int_equal(sysfs_param_write(&f->fs, "sdb", "iosched.fifo_batch", "32", applied,
	                                   sizeof(applied), &e),
	                 0);
	assert_string_equal(tu_read(f->root, "sys/block/sdb/queue/iosched/fifo_batch"), "32");
	assert_int_equal(
	        sysfs_param_write(&f->fs, "sdb", "queue_depth", "64", applied, sizeof(applied), &e),
	        0);
	assert_string_equal(tu_read(f->root, "sys/block/sdb/device/queue_depth"), "64");
	/* never on a device outside the allowlist */
	assert_int_equal(
	        sysfs_param_write(&f->fs, "vda", "nr_requests", "32", applied, sizeof(applied), &e),
	        -EPERM);
	assert_int_equal(e.code, ERR_DEVICE_NOT_ALLOWED);
	assert_string_equal(tu_read(f->root, "sys/block/vda/queue/nr_requests"), "64\n");
}

static void test_in_use(void **state)
{
	struct fx *f = *state;
	char why[256];

	assert_false(sysfs_device_in_use(&f->fs, "loop0", why, sizeof(why)));
	tu_write(f->root, "proc/self/mounts",
	         "/dev/vda / ext4 rw 0 0\n/dev/loop10 /mnt ext4 rw 0 0\n", 0444);
	assert_false(sysfs_device_in_use(&f->fs, "loop1", why, sizeof(why)));
	assert_true(sysfs_device_in_use(&f->fs, "loop10", why, sizeof(why)));
	tu_write(f->root, "proc/self/mounts", "/dev/loop0p1 /mnt ext4 rw 0 0\n", 0444);
	assert_true(sysfs_device_in_use(&f->fs, "loop0", why, sizeof(why)));
	assert_non_null(strstr(why, "loop0p1 is mounted"));
	tu_write(f->root, "proc/self/mounts", "/dev/sdb2 /mnt ext4 rw 0 0\n", 0444);
	assert_true(sysfs_device_in_use(&f->fs, "sdb", why, sizeof(why)));
	assert_false(sysfs_device_in_use(&f->fs, "sd", why, sizeof(why)));
	tu_write(f->root, "proc/self/mounts", "", 0444);
	tu_write(f->root, "sys/block/sdb/holders/dm-0", "", 0444);
	assert_true(sysfs_device_in_use(&f->fs, "sdb", why, sizeof(why)));
}

/* A loop device over a device (losetup /dev/loop0) uses its data whether mounted or not, and
 * shows neither as a holder nor in an exclusive open: found by its backing file, by name or
 * by device number, with what uses the loop device in turn, stacks followed (issue 31 item 4). */
static void test_in_use_stacked_loop(void **state)
{
	struct fx *f = *state;
	char why[256], node[600];

	tu_write(f->root, "sys/block/loop0/dev", "7:0\n", 0444);
	tu_write(f->root, "sys/block/loop0/loop0p1/partition", "1\n", 0444);
	tu_write(f->root, "sys/block/loop0/loop0p1/dev", "259:3\n", 0444);
	tu_write(f->root, "sys/block/loop1/dev", "7:1\n", 0444);
	/* An unattached loop device has no loop/ directory; another one's file: free. */
	tu_write(f->root, "sys/block/loop7/loop/backing_file", "/srv/images/a.img\n", 0444);
	assert_false(sysfs_device_in_use(&f->fs, "loop0", why, sizeof(why)));
	/* loop8 over loop0, not mounted: in use all the same. */
	tu_write(f->root, "sys/block/loop8/loop/backing_file", "/dev/loop0\n", 0444);
	assert_true(sysfs_device_in_use(&f->fs, "loop0", why, sizeof(why)));
	assert_string_equal(why, "/dev/loop0 is the backing file of loop device loop8 ('losetup -d "
	                         "/dev/loop8' frees it)");
	assert_false(sysfs_device_in_use(&f->fs, "loop1", why, sizeof(why)));
	/* ... and mounted: why says so. */
	tu_write(f->root, "proc/self/mounts", "/dev/loop8 /mnt ext4 rw 0 0\n", 0444);
	assert_true(sysfs_device_in_use(&f->fs, "loop0", why, sizeof(why)));
	assert_string_equal(why,
	                    "/dev/loop0 is the backing file of loop device loop8, and /dev/loop8 "
	                    "is mounted");
	/* Stacked: loop9 over loop8 over a partition of loop0, loop9 mounted. */
	tu_write(f->root, "proc/self/mounts", "/dev/loop9 /mnt ext4 rw 0 0\n", 0444);
	tu_write(f->root, "sys/block/loop8/loop/backing_file", "/dev/loop0p1\n", 0444);
	tu_write(f->root, "sys/block/loop9/loop/backing_file", "/dev/loop8\n", 0444);
	assert_true(sysfs_device_in_use(&f->fs, "loop0", why, sizeof(why)));
	assert_string_equal(why, "/dev/loop0p1 is the backing file of loop device loop8, and "
	                         "/dev/loop8 is the backing file of loop device loop9, and "
	                         "/dev/loop9 is mounted");
	/* A cycle (the kernel refuses one, a tree can hold one): the search ends. */
	tu_write(f->root, "proc/self/mounts", "", 0444);
	tu_write(f->root, "sys/block/loop8/loop/backing_file", "/dev/loop9\n", 0444);
	assert_true(sysfs_device_in_use(&f->fs, "loop9", why, sizeof(why)));
	assert_non_null(strstr(why, "/dev/loop9 is the backing file of loop device loop8, and "));
	/* By device number: a node of another name (made by hand, /dev/disk/by-id/...). */
	tu_write(f->root, "sys/block/loop8/loop/backing_file", "/srv/images/b.img\n", 0444);
	tu_write(f->root, "sys/block/loop9/loop/backing_file", "/srv/images/c.img\n", 0444);
	tu_write(f->root, "proc/self/mounts", "", 0444);
	assert_false(sysfs_device_in_use(&f->fs, "loop0", why, sizeof(why)));
	snprintf(node, sizeof(node), "%s/nodes/disk0", f->root);
	tu_write(f->root, "nodes/.keep", "", 0644);
	if (getuid() == 0 && mknod(node, S_IFBLK | 0600, makedev(7, 0)) == 0) {
		tu_write(f->root, "sys/block/loop8/loop/backing_file", "/nodes/disk0\n", 0444);
		assert_true(sysfs_device_in_use(&f->fs, "loop0", why, sizeof(why)));
		assert_non_null(
		        strstr(why, "/nodes/disk0 is the backing file of loop device loop8"));
		assert_false(sysfs_device_in_use(&f->fs, "loop1", why, sizeof(why)));
	}
}

static void test_sysctls(void **state)
{
	struct fx *f = *state;
	struct params ps;
	struct param p;
	char applied[64], canon[64];
	struct err e;

	tu_write(f->root, "proc/sys/vm/dirty_ratio", "20\n", 0644);
	tu_write(f->root, "proc/sys/vm/swappiness", "60\n", 0644);
	tu_write(f->root, "proc/sys/fs/file-max", "9223372036854775807\n", 0644);
	assert_int_equal(sysfs_sysctls_read(&f->fs, &ps, &e), 0);
	assert_int_equal(ps.n, 3);
	sysfs_params_release(&ps);
	assert_int_equal(sysfs_sysctl_read(&f->fs, "vm.dirty_ratio", &p, &e), 0);
	assert_string_equal(p.value, "20");
	assert_false(p.writable);
	assert_int_equal(
	        sysfs_sysctl_write(&f->fs, "vm.dirty_ratio", "10", applied, sizeof(applied), &e),
	        -EPERM);
	assert_int_equal(e.code, ERR_FORBIDDEN);
	f->fs.allow_sysctl = true;
	assert_int_equal(sysfs_sysctl_read(&f->fs, "vm.dirty_ratio", &p, &e), 0);
	assert_true(p.writable);
	assert_int_equal(sysfs_param_check(&p, "101", canon, sizeof(canon), NULL, &e), -EINVAL);
	assert_int_equal(
	        sysfs_sysctl_write(&f->fs, "vm.dirty_ratio", "10", applied, sizeof(applied), &e),
	        0);
	assert_string_equal(applied, "10");
	assert_int_equal(sysfs_sysctl_read(&f->fs, "kernel.panic", &p, &e), -ENOENT);
	assert_int_equal(e.code, ERR_UNKNOWN_SYSCTL);
	f->fs.allow_sysctl = false;
}

/* The value of name in dev's parameters, as a read gives it now ("" when absent). */
static const char *value_now(struct fx *f, const char *dev, const char *name, char *out, size_t len)
{
	struct params ps;
	const struct param *p;
	struct err e;

	assert_int_equal(sysfs_params_read(&f->fs, dev, &ps, &e), 0);
	p = sysfs_params_find(&ps, name);
	snprintf(out, len, "%s", p ? p->value : "");
	sysfs_params_release(&ps);
	return out;
}

/* With a cache, what does not change is read once per medium and scheduler: a read-only file
 * keeps the value first read until the diskseq changes; writable files are read every time;
 * a new scheduler lists its own iosched files; a device without diskseq, and one outside
 * --allow-device, are read whole every time. */
static void test_cache(void **state)
{
	struct fx *f = *state;
	char v[64];

	f->fs.cache = sysfs_cache_new();
	tu_write(f->root, "sys/block/loop0/diskseq", "7\n", 0444);
	tu_write(f->root, "sys/block/vda/diskseq", "8\n", 0444);
	assert_string_equal(value_now(f, "loop0", "hw_sector_size", v, sizeof(v)), "512");
	tu_write(f->root, "sys/block/loop0/queue/hw_sector_size", "4096\n", 0444);
	tu_write(f->root, "sys/block/loop0/queue/nr_requests", "32\n", 0644);
	assert_string_equal(value_now(f, "loop0", "hw_sector_size", v, sizeof(v)), "512");
	assert_string_equal(value_now(f, "loop0", "nr_requests", v, sizeof(v)), "32");
	assert_string_equal(value_now(f, "loop0", "setra", v, sizeof(v)), "256");
	tu_write(f->root, "sys/block/loop0/queue/read_ahead_kb", "512\n", 0644);
	assert_string_equal(value_now(f, "loop0", "setra", v, sizeof(v)), "1024");
	/* A new medium: everything read again. */
	tu_write(f->root, "sys/block/loop0/diskseq", "9\n", 0444);
	assert_string_equal(value_now(f, "loop0", "hw_sector_size", v, sizeof(v)), "4096");
	/* Another scheduler: its own attributes. */
	tu_write(f->root, "sys/block/loop0/queue/iosched/slice_idle", "8\n", 0644);
	assert_string_equal(value_now(f, "loop0", "iosched.slice_idle", v, sizeof(v)), "");
	tu_write(f->root, "sys/block/loop0/queue/scheduler", "none mq-deadline kyber [bfq]\n",
	         0644);
	assert_string_equal(value_now(f, "loop0", "iosched.slice_idle", v, sizeof(v)), "8");
	assert_string_equal(value_now(f, "loop0", "scheduler", v, sizeof(v)), "bfq");
	/* sdb has no diskseq, vda is not allowlisted: read whole. */
	tu_write(f->root, "sys/block/sdb/queue/hw_sector_size", "4096\n", 0444);
	assert_string_equal(value_now(f, "sdb", "hw_sector_size", v, sizeof(v)), "4096");
	tu_write(f->root, "sys/block/sdb/queue/hw_sector_size", "512\n", 0444);
	assert_string_equal(value_now(f, "sdb", "hw_sector_size", v, sizeof(v)), "512");
	assert_string_equal(value_now(f, "vda", "hw_sector_size", v, sizeof(v)), "512");
	tu_write(f->root, "sys/block/vda/queue/hw_sector_size", "4096\n", 0444);
	assert_string_equal(value_now(f, "vda", "hw_sector_size", v, sizeof(v)), "4096");
	sysfs_cache_free(f->fs.cache);
	f->fs.cache = NULL;
}

/* The periodic scan reads the allowlisted devices only: the others are as the last full scan
 * saw them, or absent (size 0) when it never did. */
static void test_block_scan_allowed(void **state)
{
	struct fx *f = *state;
	struct block_seen *full, *part;
	int nf, np, i;
	struct err e;

	tu_write(f->root, "sys/block/loop0/diskseq", "7\n", 0444);
	assert_int_equal(sysfs_block_scan(&f->fs, &full, &nf, &e), 0);
	assert_int_equal(nf, 3);
	tu_write(f->root, "sys/block/vda/size", "0\n", 0444);
	tu_write(f->root, "sys/block/loop0/size", "0\n", 0444);
	assert_int_equal(sysfs_block_scan_allowed(&f->fs, full, nf, &part, &np, &e), 0);
	assert_int_equal(np, 3);
	for (i = 0; i < np; i++) {
		assert_string_equal(part[i].name, full[i].name);
		if (!strcmp(part[i].name, "vda")) /* not read: as before */
			assert_true(part[i].size_bytes == 2097152ull * 512);
		if (!strcmp(part[i].name, "loop0")) /* read: its medium is gone */
			assert_true(part[i].size_bytes == 0 && part[i].has_seq && part[i].seq == 7);
	}
	free(part);
	assert_int_equal(sysfs_block_scan_allowed(&f->fs, NULL, 0, &part, &np, &e), 0);
	for (i = 0; i < np; i++)
		if (!strcmp(part[i].name, "vda"))
			assert_true(part[i].size_bytes == 0 && !part[i].has_seq);
	free(part);
	free(full);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_cache, setup, teardown),
		cmocka_unit_test_setup_teardown(test_block_scan_allowed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_device_names, setup, teardown),
		cmocka_unit_test_setup_teardown(test_devices_list, setup, teardown),
		cmocka_unit_test_setup_teardown(test_catalogue, setup, teardown),
		cmocka_unit_test_setup_teardown(test_param_read_unknown, setup, teardown),
		cmocka_unit_test_setup_teardown(test_validation, setup, teardown),
		cmocka_unit_test_setup_teardown(test_scheduler_aliases, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_readback_and_setra, setup, teardown),
		cmocka_unit_test_setup_teardown(test_in_use, setup, teardown),
		cmocka_unit_test_setup_teardown(test_in_use_stacked_loop, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sysctls, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
