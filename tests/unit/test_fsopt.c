/* test_fsopt.c -- fsopt.c: the mkfs and mount option tables of xfs and ext4 (what each takes,
 * the value forms, what names another path), the mkfs argv, the mount split. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "engines/engine.h"
#include "engines/fsopt.h"
#include "testutil.h"

/* A spec from tokens (NULL-terminated) and a mount string. */
static struct fs_spec spec_make(enum fs_type t, const char *mount, ...)
{
	struct fs_spec s;
	const char *tok;
	va_list ap;

	memset(&s, 0, sizeof(s));
	s.type = t;
	snprintf(s.mount, sizeof(s.mount), "%s", mount ? mount : "");
	va_start(ap, mount);
	while ((tok = va_arg(ap, const char *)))
		snprintf(s.mkfs[s.n_mkfs++], FS_TOKEN_MAX, "%s", tok);
	va_end(ap);
	return s;
}

static void argv_str(char **argv, char *out, size_t len)
{
	size_t used = 0;
	int i;

	out[0] = '\0';
	for (i = 0; argv[i]; i++)
		used += (size_t)snprintf(out + used, len - used, "%s%s", i ? " " : "", argv[i]);
}

/* The mkfs check must refuse s with code invalid_fs_option and a message holding want. */
static void assert_mkfs_refused(const struct fs_spec *s, const char *want)
{
	struct err e;

	err_clear(&e);
	assert_int_equal(fsopt_mkfs_check(s, &e), -EINVAL);
	assert_int_equal(e.code, ERR_INVALID_FS_OPTION);
	if (!strstr(e.msg, want))
		fail_msg("message '%s' lacks '%s'", e.msg, want);
}

static void assert_mount_refused(enum fs_type t, const char *opts, const char *want)
{
	struct fs_mount m;
	struct err e;

	err_clear(&e);
	assert_int_equal(fsopt_mount_parse(t, opts, &m, &e), -EINVAL);
	assert_int_equal(e.code, ERR_INVALID_FS_OPTION);
	if (!strstr(e.msg, want))
		fail_msg("'%s': message '%s' lacks '%s'", opts, e.msg, want);
}

/* Seed 001's mkfs line: -i size=1k goes to mkfs.xfs 6.1 as bytes (it refuses unit suffixes
 * there: tests/fixtures/fs/mkfs-xfs-bad.txt), -f is the agent's own. */
static void test_xfs_seed_001(void **state)
{
	struct fs_spec s = spec_make(FS_XFS, NULL, "-f", "-b", "size=4k", "-d", "su=64k,sw=7", "-i",
	                             "size=1k", "-l", "version=2", NULL);
	char **argv = NULL, line[512];
	struct err e;

	(void)state;
	assert_int_equal(fsopt_mkfs_check(&s, &e), 0);
	assert_int_equal(fsopt_mkfs_argv(&s, "/dev/loop9", false, &argv, &e), 0);
	argv_str(argv, line, sizeof(line));
	assert_string_equal(line, "mkfs.xfs -f -b size=4k -d su=64k,sw=7 -i size=1024 -l version=2 "
	                          "/dev/loop9");
	engine_argv_free(argv);
	assert_int_equal(fsopt_mkfs_argv(&s, "/dev/loop9", true, &argv, &e), 0);
	argv_str(argv, line, sizeof(line));
	assert_string_equal(line,
	                    "mkfs.xfs -f -N -b size=4k -d su=64k,sw=7 -i size=1024 -l version=2 "
	                    "/dev/loop9");
	engine_argv_free(argv);
	/* The other inode size and strip of the seed, a label, no discard, metadata features. */
	s = spec_make(FS_XFS, NULL, "-b", "size=4096", "-d", "su=256k,sw=7", "-i", "size=2048",
	              "-L", "cfhat5_1_un0", "-K", "-m", "crc=1,reflink=0", "-l",
	              "size=64m,lazy-count=1", "-n", "version=ci,ftype=1", NULL);
	assert_int_equal(fsopt_mkfs_argv(&s, "/dev/sde", false, &argv, &e), 0);
	argv_str(argv, line, sizeof(line));
	assert_string_equal(line, "mkfs.xfs -f -b size=4096 -d su=256k,sw=7 -i size=2048 -L "
	                          "cfhat5_1_un0 -K -m crc=1,reflink=0 -l size=64m,lazy-count=1 -n "
	                          "version=ci,ftype=1 /dev/sde");
	engine_argv_free(argv);
	s = spec_make(FS_XFS, NULL, NULL);
	assert_int_equal(fsopt_mkfs_argv(&s, "/dev/sde", true, &argv, &e), 0);
	argv_str(argv, line, sizeof(line));
	assert_string_equal(line, "mkfs.xfs -f -N /dev/sde");
	engine_argv_free(argv);
}

/* Nothing that names another path or device, nothing the agent does itself. */
static void test_xfs_refusals(void **state)
{
	struct fs_spec s;

	(void)state;
	s = spec_make(FS_XFS, NULL, "-d", "file=1,name=/tmp/img", NULL);
	assert_mkfs_refused(&s, "filesystem.mkfs[1]: -d file: names another path");
	s = spec_make(FS_XFS, NULL, "-l", "logdev=/dev/sdb,size=64m", NULL);
	assert_mkfs_refused(&s, "-l logdev: names another path or device");
	s = spec_make(FS_XFS, NULL, "-r", "rtdev=/dev/sdc", NULL);
	assert_mkfs_refused(&s,
	                    "filesystem.mkfs[0]: -r: a realtime subvolume needs another device");
	s = spec_make(FS_XFS, NULL, "-c", "options=/etc/xfs.conf", NULL);
	assert_mkfs_refused(&s, "-c: reads a configuration file");
	s = spec_make(FS_XFS, NULL, "-p", "/etc/proto", NULL);
	assert_mkfs_refused(&s, "-p: reads a prototype file");
	s = spec_make(FS_XFS, NULL, "-N", NULL);
	assert_mkfs_refused(&s, "-N: the agent makes the dry run itself");
	s = spec_make(FS_XFS, NULL, "/dev/sda", NULL);
	assert_mkfs_refused(&s, "'/dev/sda' is not an option (mkfs.xfs takes -b -m -d -i -l -n -s "
	                        "-K -L -f -q; the agent adds the device)");
	s = spec_make(FS_XFS, NULL, "-Z", NULL);
	assert_mkfs_refused(&s, "'-Z' is not an option of mkfs.xfs the agent takes");
	s = spec_make(FS_XFS, NULL, "-d su=64k", NULL);
	assert_mkfs_refused(&s, "one argv token each");
	s = spec_make(FS_XFS, NULL, "-d", NULL);
	assert_mkfs_refused(&s, "filesystem.mkfs[0]: -d needs a value in the next token");
	s = spec_make(FS_XFS, NULL, "-d", "bogus=1", NULL);
	assert_mkfs_refused(&s,
	                    "-d bogus: not an option the agent takes (-d takes agcount, agsize, "
	                    "su, sw, sunit, swidth, noalign, size, sectsize)");
	s = spec_make(FS_XFS, NULL, "-d", "su=64k;reboot", NULL);
	assert_mkfs_refused(&s, "-d su: '64k;reboot' must be a size");
}

/* The value forms: powers of two, ranges, no leading zeros (mkfs.xfs reads base 0), 0|1,
 * choices, labels. */
static void test_xfs_value_forms(void **state)
{
	struct fs_spec s;

	(void)state;
	s = spec_make(FS_XFS, NULL, "-b", "size=3k", NULL);
	assert_mkfs_refused(&s, "-b size: '3k' must be a power of two");
	s = spec_make(FS_XFS, NULL, "-b", "size=128k", NULL);
	assert_mkfs_refused(&s, "-b size: '128k' must be a size in 512..65536 bytes");
	s = spec_make(FS_XFS, NULL, "-d", "su=064k", NULL);
	assert_mkfs_refused(&s, "-d su: '064k' must be a size");
	s = spec_make(FS_XFS, NULL, "-d", "su=64kib", NULL);
	assert_mkfs_refused(&s, "-d su: '64kib' must be a size");
	s = spec_make(FS_XFS, NULL, "-d", "sw=010", NULL);
	assert_mkfs_refused(&s, "-d sw: '010' must be a plain integer");
	s = spec_make(FS_XFS, NULL, "-i", "size=4096", NULL);
	assert_mkfs_refused(&s, "-i size: '4096' must be a size in 256..2048 bytes");
	s = spec_make(FS_XFS, NULL, "-m", "crc=2", NULL);
	assert_mkfs_refused(&s, "-m crc: '2' must be 0 or 1");
	s = spec_make(FS_XFS, NULL, "-n", "version=3", NULL);
	assert_mkfs_refused(&s, "-n version: '3' is not one of 2, ci");
	s = spec_make(FS_XFS, NULL, "-L", "thirteen_char", NULL);
	assert_mkfs_refused(&s, "-L: 'thirteen_char' must be 1..12 of A-Z a-z 0-9 _ . -");
	s = spec_make(FS_XFS, NULL, "-d", "noalign=1", NULL);
	assert_mkfs_refused(&s, "-d noalign: takes no value");
	s = spec_make(FS_XFS, NULL, "-d", "su=", NULL);
	assert_mkfs_refused(&s, "-d su: needs a value");
}

static void test_ext4_mkfs(void **state)
{
	struct fs_spec s = spec_make(
	        FS_EXT4, NULL, "-b", "4096", "-E", "stride=16,stripe_width=112", "-I", "512", "-O",
	        "^has_journal,metadata_csum", "-T", "largefile", "-m", "0", "-J", "size=64", NULL);
	char **argv = NULL, line[512];
	struct err e;

	(void)state;
	assert_int_equal(fsopt_mkfs_argv(&s, "/dev/loop3", true, &argv, &e), 0);
	argv_str(argv, line, sizeof(line));
	assert_string_equal(line,
	                    "mkfs.ext4 -F -n -b 4096 -E stride=16,stripe_width=112 -I 512 -O "
	                    "^has_journal,metadata_csum -T largefile -m 0 -J size=64 /dev/loop3");
	engine_argv_free(argv);
	s = spec_make(FS_EXT4, NULL, "-J", "device=/dev/sdb", NULL);
	assert_mkfs_refused(&s, "-J device: an external journal is another device");
	s = spec_make(FS_EXT4, NULL, "-d", "/etc", NULL);
	assert_mkfs_refused(&s, "-d: copies a directory into the filesystem");
	s = spec_make(FS_EXT4, NULL, "-l", "/tmp/badblocks", NULL);
	assert_mkfs_refused(&s, "-l: reads a bad-block list from a file");
	s = spec_make(FS_EXT4, NULL, "-E", "offset=4096", NULL);
	assert_mkfs_refused(&s, "-E offset: puts the filesystem elsewhere");
	s = spec_make(FS_EXT4, NULL, "-c", NULL);
	assert_mkfs_refused(&s, "-c: a bad-block scan is slow");
	s = spec_make(FS_EXT4, NULL, "-n", NULL);
	assert_mkfs_refused(&s, "-n: the agent makes the dry run itself");
	s = spec_make(FS_EXT4, NULL, "-t", "ext3", NULL);
	assert_mkfs_refused(&s, "-t: the type is filesystem.type");
	s = spec_make(FS_EXT4, NULL, "-O", "bogus_feature", NULL);
	assert_mkfs_refused(&s, "-O: 'bogus_feature' is not a feature");
	s = spec_make(FS_EXT4, NULL, "-O", "^", NULL);
	assert_mkfs_refused(&s, "-O: '^' is not a feature");
	s = spec_make(FS_EXT4, NULL, "-I", "3000", NULL);
	assert_mkfs_refused(&s, "-I: '3000' must be a power of two");
	s = spec_make(FS_EXT4, NULL, "-T", "bogus", NULL);
	assert_mkfs_refused(&s, "-T: 'bogus' is not one of default, floppy");
	/* An xfs flag is not an ext4 one. */
	s = spec_make(FS_EXT4, NULL, "-d", "su=64k", NULL);
	assert_mkfs_refused(&s, "-d: copies a directory");
	s = spec_make(FS_EXT4, NULL, "-s", "size=4k", NULL);
	assert_mkfs_refused(&s, "'-s' is not an option of mkfs.ext4 the agent takes");
}

/* Seed 000's mount line: nobarrier is refused with the reason, the rest is split. */
static void test_xfs_mount(void **state)
{
	struct fs_mount m;
	struct err e;

	(void)state;
	assert_int_equal(fsopt_mount_parse(FS_XFS, "noatime,logbufs=8,logbsize=256k", &m, &e), 0);
	assert_int_equal(m.atime, FS_ATIME_NOATIME);
	assert_int_equal(m.attrs, FS_ATTR_DEFAULT); /* nosuid,nodev,noexec unless asked */
	assert_int_equal(m.n, 2);
	assert_string_equal(m.o[0].key, "logbufs");
	assert_string_equal(m.o[0].value, "8");
	assert_true(m.o[0].has_value);
	assert_string_equal(m.o[1].key, "logbsize");
	assert_string_equal(m.o[1].value, "256k");
	assert_mount_refused(FS_XFS, "rw,noatime,nobarrier,logbufs=8,logbsize=256k",
	                     "filesystem.mount: nobarrier: removed from XFS in Linux 4.19");
	assert_int_equal(fsopt_mount_parse(FS_XFS,
	                                   "rw,relatime,nodiratime,nosuid,nodev,lazytime,largeio,"
	                                   "inode64,swalloc,allocsize=64k,sunit=128,swidth=896",
	                                   &m, &e),
	                 0);
	assert_int_equal(m.atime, FS_ATIME_RELATIME);
	assert_int_equal(m.attrs, FS_ATTR_NODIRATIME | FS_ATTR_DEFAULT);
	assert_int_equal(m.n, 7);
	assert_string_equal(m.o[0].key, "lazytime");
	assert_false(m.o[0].has_value);
	/* Asked for: suid, dev and exec take the default bits off, in the order given. */
	assert_int_equal(fsopt_mount_parse(FS_XFS, "exec,dev", &m, &e), 0);
	assert_int_equal(m.attrs, FS_ATTR_NOSUID);
	assert_int_equal(fsopt_mount_parse(FS_XFS, "suid,nosuid,exec", &m, &e), 0);
	assert_int_equal(m.attrs, FS_ATTR_NOSUID | FS_ATTR_NODEV);
	assert_int_equal(fsopt_mount_parse(FS_XFS, "", &m, &e), 0);
	assert_int_equal(m.n, 0);
	assert_int_equal(m.atime, FS_ATIME_DEFAULT);
	assert_int_equal(m.attrs, FS_ATTR_DEFAULT);
	assert_mount_refused(FS_XFS, "logdev=/dev/sdb", "logdev: names another path or device");
	assert_mount_refused(FS_XFS, "rtdev=/dev/sdb", "rtdev: names another path");
	assert_mount_refused(FS_XFS, "ro", "ro: the job writes to the filesystem");
	assert_mount_refused(FS_XFS, "noatime,source=/dev/sda", "source: names another path");
	assert_mount_refused(FS_XFS, "x-systemd.automount", "a mount(8)/fstab word");
	assert_mount_refused(FS_XFS, "nofail", "nofail: a mount(8)/fstab word");
	assert_mount_refused(FS_XFS, "logbsize=48k", "logbsize: '48k' must be a power of two");
	assert_mount_refused(FS_XFS, "logbsize=512k", "logbsize: '512k' must be a size in");
	assert_mount_refused(FS_XFS, "logbufs=9", "logbufs: '9' must be a plain integer in 2..8");
	assert_mount_refused(FS_XFS, "sunit=128", "sunit and swidth go together");
	assert_mount_refused(FS_XFS, "noatime,,inode64", "empty option");
	assert_mount_refused(FS_XFS, "noatime=1", "noatime: takes no value");
	assert_mount_refused(FS_XFS, "data=writeback",
	                     "'data' is not a xfs mount option the agent takes (it takes defaults "
	                     "rw async");
	assert_mount_refused(FS_XFS, "context=system_u:object_r:tmp_t", "SELinux labels");
}

static void test_ext4_mount(void **state)
{
	struct fs_mount m;
	struct err e;

	(void)state;
	assert_int_equal(fsopt_mount_parse(FS_EXT4,
	                                   "noatime,data=writeback,commit=30,nobarrier,barrier=0,"
	                                   "stripe=112,dioread_nolock,journal_ioprio=3",
	                                   &m, &e),
	                 0);
	assert_int_equal(m.atime, FS_ATIME_NOATIME);
	assert_int_equal(m.n, 7);
	assert_string_equal(m.o[0].key, "data");
	assert_string_equal(m.o[0].value, "writeback");
	assert_mount_refused(FS_EXT4, "journal_path=/etc/passwd",
	                     "journal_path: names another path");
	assert_mount_refused(FS_EXT4, "journal_dev=2049", "journal_dev: names another path");
	assert_mount_refused(FS_EXT4, "usrjquota=aquota.user", "usrjquota: names a quota file");
	assert_mount_refused(FS_EXT4, "data=bogus",
	                     "data: 'bogus' is not one of journal, ordered, "
	                     "writeback");
	assert_mount_refused(FS_EXT4, "barrier=2", "barrier: '2' must be 0 or 1");
	assert_mount_refused(FS_EXT4, "logbufs=8", "'logbufs' is not a ext4 mount option");
	assert_mount_refused(FS_EXT4, "noload", "noload: needs a read-only mount");
}

static void test_types(void **state)
{
	enum fs_type t;
	char known[2048];
	struct err e;

	(void)state;
	assert_int_equal(fs_type_parse("xfs", &t, &e), 0);
	assert_int_equal(t, FS_XFS);
	assert_int_equal(fs_type_parse("ext4", &t, &e), 0);
	assert_int_equal(t, FS_EXT4);
	assert_int_equal(fs_type_parse("btrfs", &t, &e), -EINVAL);
	assert_int_equal(e.code, ERR_INVALID_FS_OPTION);
	assert_string_equal(e.msg, "filesystem.type: 'btrfs' is not one of xfs, ext4");
	assert_string_equal(fs_type_name(FS_EXT4), "ext4");
	assert_string_equal(fsopt_tools(FS_XFS)[0], "mkfs.xfs");
	assert_string_equal(fsopt_tools(FS_EXT4)[1], "tune2fs");
	fsopt_known(FS_EXT4, false, known, sizeof(known));
	assert_string_equal(known, "-b -C -E -G -g -I -i -J -j -K -L -m -N -O -T -e -F -q");
	fsopt_known(FS_XFS, true, known, sizeof(known));
	assert_non_null(strstr(known, "noatime"));
	assert_non_null(strstr(known, "logbsize"));
	assert_null(strstr(known, "nobarrier"));
	assert_null(strstr(known, "logdev"));
}

static void test_info_argv(void **state)
{
	char **argv = NULL, line[256];

	(void)state;
	fsopt_info_argv(FS_XFS, "/dev/loop1", "/var/lib/fleettune/fs/job-3", &argv);
	argv_str(argv, line, sizeof(line));
	assert_string_equal(line, "xfs_info /var/lib/fleettune/fs/job-3");
	engine_argv_free(argv);
	fsopt_info_argv(FS_EXT4, "/dev/loop1", "/var/lib/fleettune/fs/job-3", &argv);
	argv_str(argv, line, sizeof(line));
	assert_string_equal(line, "tune2fs -l /dev/loop1");
	engine_argv_free(argv);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_xfs_seed_001),    cmocka_unit_test(test_xfs_refusals),
		cmocka_unit_test(test_xfs_value_forms), cmocka_unit_test(test_ext4_mkfs),
		cmocka_unit_test(test_xfs_mount),       cmocka_unit_test(test_ext4_mount),
		cmocka_unit_test(test_types),           cmocka_unit_test(test_info_argv),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
