/* test_ctl_fsparam.c -- fsparam.c: the fs.* names, a configuration's filesystem, mkfs tokens,
 * and the compact display of mkfs option sets (seed 001's three mkfs lines). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/fsparam.h"
#include "testutil.h"

/* Seed 001's tests 2.1, 2.2 and 2.4: the inode size and the strip changed. */
static const char *const seed_001[] = {
	"-b size=4k -d su=64k,sw=7 -i size=1k -l version=2",
	"-b size=4k -d su=64k,sw=7 -i size=2k -l version=2",
	"-b size=4k -d su=256k,sw=7 -i size=1k -l version=2",
};

static void compact_is(const char *const *values, int n, int i, const char *want,
                       const char *want_common)
{
	struct buf out = BUF_INIT, common = BUF_INIT;

	fsparam_mkfs_compact(values, n, i, &out, &common);
	if (strcmp(out.data ? out.data : "", want))
		fail_msg("value %d: got '%s', want '%s'", i, out.data ? out.data : "", want);
	if (want_common && strcmp(common.data ? common.data : "", want_common))
		fail_msg("common: got '%s', want '%s'", common.data ? common.data : "",
		         want_common);
	buf_release(&out);
	buf_release(&common);
}

static void test_compact_seed_001(void **state)
{
	(void)state;
	compact_is(seed_001, 3, 0, "-d su=64k -i size=1k", "-b size=4k -d sw=7 -l version=2");
	compact_is(seed_001, 3, 1, "-d su=64k -i size=2k", NULL);
	compact_is(seed_001, 3, 2, "-d su=256k -i size=1k", NULL);
	/* Two of them: only the inode size differs. */
	compact_is(seed_001, 2, 0, "-i size=1k", "-b size=4k -d su=64k,sw=7 -l version=2");
	compact_is(seed_001, 2, 1, "-i size=2k", NULL);
	/* One value, or the same twice: shown whole. */
	compact_is(seed_001, 1, 0, "-b size=4k -d su=64k,sw=7 -i size=1k -l version=2",
	           "-b size=4k -d su=64k,sw=7 -i size=1k -l version=2");
}

/* Options one value has and another lacks; flags without values; ext4's plain values. */
static void test_compact_absent(void **state)
{
	static const char *const a[] = { "-i size=512 -K", "-i size=512", "" };
	static const char *const b[] = { "-b 4096 -E stride=16,stripe_width=112", "-b 1024",
		                         "-b 4096 -I 512" };
	static const char *const c[] = { "", "" };

	(void)state;
	compact_is(a, 3, 0, "-i size=512 -K", "");
	compact_is(a, 3, 1, "-i size=512 no -K", NULL);
	compact_is(a, 3, 2, "-i size=default no -K", NULL);
	compact_is(a, 2, 1, "no -K", "-i size=512");
	compact_is(b, 3, 0, "-b 4096 -E stride=16,stripe_width=112 no -I", "");
	compact_is(b, 3, 1, "-b 1024 -E stride=default,stripe_width=default no -I", NULL);
	compact_is(b, 3, 2, "-b 4096 -I 512 -E stride=default,stripe_width=default", NULL);
	compact_is(c, 2, 1, "defaults", "");
}

static void test_tokens(void **state)
{
	char tok[8][96];
	char longtok[200];

	(void)state;
	assert_int_equal(fsparam_mkfs_tokens("  -b size=4k\t-d su=64k,sw=7 ", tok, 8), 4);
	assert_string_equal(tok[0], "-b");
	assert_string_equal(tok[3], "su=64k,sw=7");
	assert_int_equal(fsparam_mkfs_tokens("", tok, 8), 0);
	assert_int_equal(fsparam_mkfs_tokens("-a -b -c", tok, 2), -1);
	memset(longtok, 'x', sizeof(longtok) - 1);
	longtok[sizeof(longtok) - 1] = '\0';
	assert_int_equal(fsparam_mkfs_tokens(longtok, tok, 8), -1);
}

/* fs.* are not device parameters; the fs.* sysctls are not the layer. */
static void test_names_and_fs_of(void **state)
{
	struct config c = { 0 }, dev;
	struct plan p;
	struct fsparam_fs a, b;

	(void)state;
	assert_true(fsparam_is("fs.mkfs"));
	assert_true(fsparam_is("fs.mount"));
	assert_true(fsparam_is("fs.type"));
	assert_false(fsparam_is("fs.file-max"));
	assert_false(fsparam_is("read_ahead_kb"));
	config_set(&c, "read_ahead_kb", "4096", true);
	config_set(&c, "fs.mount", "noatime", false);
	config_set(&c, "scheduler", "none", false);
	assert_true(fsparam_any(&c));
	fsparam_device_config(&c, &dev);
	assert_int_equal(dev.n, 2);
	assert_string_equal(dev.s[0].name, "read_ahead_kb");
	assert_string_equal(dev.s[1].name, "scheduler");
	assert_false(fsparam_any(&dev));
	memset(&p, 0, sizeof(p));
	p.has_fs = true;
	snprintf(p.fs_type, sizeof(p.fs_type), "xfs");
	snprintf(p.fs_mkfs, sizeof(p.fs_mkfs), "-i size=512");
	snprintf(p.fs_mount, sizeof(p.fs_mount), "relatime");
	fsparam_fs_of(&p, &c, &a);
	assert_true(a.present);
	assert_string_equal(a.type, "xfs");
	assert_string_equal(a.mkfs, "-i size=512");
	assert_string_equal(a.mount, "noatime");
	fsparam_fs_of(&p, &dev, &b);
	assert_string_equal(b.mount, "relatime");
	assert_false(fsparam_fs_equal(&a, &b));
	config_set(&dev, "fs.mount", "noatime", false);
	fsparam_fs_of(&p, &dev, &b);
	assert_true(fsparam_fs_equal(&a, &b));
	p.has_fs = false;
	fsparam_fs_of(&p, &c, &a);
	assert_true(a.present); /* an fs.* value is a filesystem */
	c.n = 0;
	fsparam_fs_of(&p, &c, &a);
	assert_false(a.present);
}

/* A run of a configuration worked out once: the device's values, the filesystem with mkfs's
 * tokens, the label cut after the last setting that fits. */
static void test_run_of(void **state)
{
	struct fsparam_run *run = calloc(1, sizeof(*run));
	struct plan *p = calloc(1, sizeof(*p));
	struct config c = { 0 };
	char v[40];
	int i;

	(void)state;
	p->has_fs = true;
	snprintf(p->fs_type, sizeof(p->fs_type), "xfs");
	snprintf(p->fs_mkfs, sizeof(p->fs_mkfs), "-b size=4k  -i size=512");
	config_set(&p->baseline, "nr_requests", "64", true);
	fsparam_run_of(p, NULL, 256, run); /* the baseline */
	assert_int_equal(run->device.n, 1);
	assert_true(run->fs.present);
	assert_int_equal(run->n_mkfs, 4);
	assert_string_equal(run->mkfs_tok[3], "size=512");
	assert_string_equal(run->label, "nr_requests=64");
	config_set(&c, "fs.mount", "noatime", false);
	config_set(&c, "read_ahead_kb", "4096", true);
	fsparam_run_of(p, &c, 256, run);
	assert_int_equal(run->device.n, 1);
	assert_string_equal(run->device.s[0].name, "read_ahead_kb");
	assert_string_equal(run->fs.mount, "noatime");
	assert_string_equal(run->label, "fs.mount=noatime read_ahead_kb=4096");
	fsparam_run_of(p, &c, 24, run); /* cut after the last setting that fits */
	assert_string_equal(run->label, "fs.mount=noatime ...");
	c.n = 0;
	for (i = 0; i < 12; i++) {
		char name[32];

		snprintf(name, sizeof(name), "iosched.param_%02d", i);
		memset(v, 'x', 20);
		v[20] = '\0';
		config_set(&c, name, v, false);
	}
	fsparam_run_of(p, &c, 256, run);
	assert_true(strlen(run->label) <= 256);
	assert_string_equal(run->label + strlen(run->label) - 4, " ...");
	snprintf(p->fs_mkfs, sizeof(p->fs_mkfs), "%s",
	         "-d su=0123456789012345678901234567890123456789"
	         "0123456789012345678901234567890123456789"
	         "0123456789012345678901234567890123456789");
	fsparam_run_of(p, &c, 256, run);
	assert_int_equal(run->n_mkfs, -1); /* a token too long: the agent says what is wrong */
	free(p);
	free(run);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_compact_seed_001), cmocka_unit_test(test_compact_absent),
		cmocka_unit_test(test_tokens),           cmocka_unit_test(test_names_and_fs_of),
		cmocka_unit_test(test_run_of),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
