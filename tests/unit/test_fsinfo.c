/* test_fsinfo.c -- fsinfo.c on real output captured from mkfs.xfs, xfs_info, mkfs.ext4 and
 * tune2fs on a loop device, and on real /proc/self/mountinfo lines (tests/fixtures/fs/). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engines/fsinfo.h"
#include "testutil.h"

static void assert_figure(const struct fs_figures *fg, const char *name, const char *want)
{
	const struct fs_figure *f = fs_figures_get(fg, name);

	if (!f)
		fail_msg("no figure %s", name);
	assert_string_equal(f->value, want);
}

/* The seed 001 filesystem (-b size=4k -d su=64k,sw=7 -i size=1024 -l version=2) on 1 GiB,
 * as xfs_info tells it mounted and as mkfs.xfs -N and mkfs.xfs told it. */
static void test_xfs(void **state)
{
	static const char *const files[] = { "fs/xfs_info-mounted.txt", "fs/mkfs-xfs-dry.txt",
		                             "fs/mkfs-xfs.txt" };
	struct fs_figures fg;
	size_t i, len;

	(void)state;
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char *text = tu_slurp(files[i], &len);

		assert_true(fsinfo_xfs_parse(text, &fg) > 20);
		assert_figure(&fg, "inode_size_bytes", "1024");
		assert_figure(&fg, "agcount", "8");
		assert_figure(&fg, "agsize_blocks", "32768");
		assert_figure(&fg, "sector_size_bytes", "512");
		assert_figure(&fg, "crc", "1");
		assert_figure(&fg, "reflink", "1");
		assert_figure(&fg, "block_size_bytes", "4096");
		assert_figure(&fg, "data_blocks", "262144");
		assert_figure(&fg, "sunit_blocks", "16");
		assert_figure(&fg, "swidth_blocks", "112");
		assert_figure(&fg, "sunit_bytes", "65536");
		assert_figure(&fg, "swidth_bytes", "458752");
		assert_figure(&fg, "naming", "2");
		assert_figure(&fg, "ftype", "1");
		assert_figure(&fg, "log", "internal log");
		assert_figure(&fg, "log_blocks", "16384");
		assert_figure(&fg, "log_size_bytes", "67108864");
		assert_figure(&fg, "log_version", "2");
		assert_figure(&fg, "log_sunit_blocks", "16");
		assert_figure(&fg, "lazy_count", "1");
		assert_figure(&fg, "realtime", "none");
		assert_null(fs_figures_get(&fg, "meta-data"));
		assert_true(fs_figures_get(&fg, "inode_size_bytes")->number);
		assert_false(fs_figures_get(&fg, "log")->number);
		free(text);
	}
}

/* Not a summary: mkfs.xfs refusing an option, or on a mounted device. */
static void test_xfs_not_a_summary(void **state)
{
	struct fs_figures fg;
	size_t len;
	char *text;

	(void)state;
	text = tu_slurp("fs/mkfs-xfs-bad.txt", &len);
	assert_int_equal(fsinfo_xfs_parse(text, &fg), 0);
	free(text);
	text = tu_slurp("fs/mkfs-xfs-mounted.txt", &len);
	assert_int_equal(fsinfo_xfs_parse(text, &fg), 0);
	free(text);
	assert_int_equal(fsinfo_xfs_parse("", &fg), 0);
	assert_int_equal(fsinfo_xfs_parse(NULL, &fg), 0);
}

/* mkfs.ext4 -b 4096 -E stride=16,stripe_width=112 -I 512, then tune2fs -l. */
static void test_ext4(void **state)
{
	struct fs_figures fg;
	size_t len;
	char *tune = tu_slurp("fs/tune2fs-l.txt", &len), *mk = tu_slurp("fs/mkfs-ext4.txt", &len);

	(void)state;
	assert_true(fsinfo_ext4_parse(tune, mk, &fg) > 10);
	assert_figure(&fg, "block_size_bytes", "4096");
	assert_figure(&fg, "block_count", "262144");
	assert_figure(&fg, "inode_size_bytes", "512");
	assert_figure(&fg, "inode_count", "65536");
	assert_figure(&fg, "raid_stride_blocks", "16");
	assert_figure(&fg, "raid_stripe_width_blocks", "112");
	assert_figure(&fg, "raid_stride_bytes", "65536");
	assert_figure(&fg, "raid_stripe_width_bytes", "458752");
	assert_figure(&fg, "flex_bg_size", "16");
	assert_figure(&fg, "reserved_blocks", "13107");
	assert_figure(&fg, "journal_blocks", "8192");
	assert_figure(&fg, "journal_size_bytes", "33554432");
	assert_figure(&fg, "errors_behavior", "Continue");
	assert_figure(&fg, "features",
	              "has_journal ext_attr resize_inode dir_index filetype extent 64bit flex_bg "
	              "sparse_super large_file huge_file dir_nlink extra_isize metadata_csum");
	assert_false(fs_figures_get(&fg, "features")->number);
	free(tune);
	free(mk);
	/* A dry run has only mke2fs -n's words. */
	mk = tu_slurp("fs/mkfs-ext4-dry.txt", &len);
	fsinfo_ext4_parse(NULL, mk, &fg);
	assert_figure(&fg, "block_count", "262144");
	assert_figure(&fg, "block_size_bytes", "4096");
	assert_figure(&fg, "inode_count", "65536");
	assert_null(fs_figures_get(&fg, "journal_blocks"));
	free(mk);
	mk = tu_slurp("fs/mkfs-ext4-bad.txt", &len);
	assert_int_equal(fsinfo_ext4_parse(NULL, mk, &fg), 0);
	free(mk);
}

static void test_mountinfo(void **state)
{
	struct fs_mountinfo *m = calloc(1, sizeof(*m));
	char where[256];
	size_t len;
	char *text = tu_slurp("fs/mountinfo-xfs.txt", &len);
	static const char escaped[] =
	        "22 27 0:21 / /proc rw,relatime - proc proc rw\n"
	        "90 27 7:3 / /var/lib/fleet\\040tune/fs/job-9 rw,noatime shared:9 - xfs /dev/loop3 "
	        "rw,inode64\n"
	        "91 90 7:4 / /var/lib/fleet\\040tune/fs/job-9 rw,relatime - ext4 /dev/loop4 rw\n";

	(void)state;
	assert_int_equal(fsinfo_mountinfo_find(text, "/tmp/w21/mnt", m), 1);
	assert_int_equal(m->major, 7);
	assert_int_equal(m->minor, 1);
	assert_string_equal(m->mount_opts, "rw,noatime");
	assert_string_equal(m->fstype, "xfs");
	assert_string_equal(m->source, "/dev/loop1");
	assert_string_equal(m->super_opts,
	                    "rw,inode64,logbufs=8,logbsize=256k,sunit=128,swidth=896,noquota");
	assert_int_equal(fsinfo_mountinfo_find(text, "/tmp/w21", m), 0);
	assert_true(fsinfo_mountinfo_has_dev(text, 7, 1, where, sizeof(where)));
	assert_string_equal(where, "/tmp/w21/mnt");
	assert_false(fsinfo_mountinfo_has_dev(text, 7, 2, where, sizeof(where)));
	free(text);
	text = tu_slurp("fs/mountinfo-ext4.txt", &len);
	assert_int_equal(fsinfo_mountinfo_find(text, "/tmp/w21/mnt", m), 1);
	assert_string_equal(m->fstype, "ext4");
	assert_string_equal(m->super_opts, "rw,commit=30,stripe=112,data=writeback");
	free(text);
	/* Escapes undone, optional fields skipped, the topmost of stacked mounts. */
	assert_int_equal(fsinfo_mountinfo_find(escaped, "/var/lib/fleet tune/fs/job-9", m), 1);
	assert_int_equal(m->minor, 4);
	assert_string_equal(m->fstype, "ext4");
	assert_int_equal(fsinfo_mountinfo_find("garbage\n- - -\n", "/x", m), 0);
	free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_xfs),
		cmocka_unit_test(test_xfs_not_a_summary),
		cmocka_unit_test(test_ext4),
		cmocka_unit_test(test_mountinfo),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
