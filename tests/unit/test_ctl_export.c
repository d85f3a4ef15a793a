/* test_ctl_export.c -- a sweep's best configuration as a udev rule and a tuned profile; a
 * sweep with no best refused unless its baseline is asked for. */
#include <errno.h>
#include <string.h>

#include "testutil.h"
#include "ctltest.h"
#include "export.h"
#include "sweep.h"
#include "words.h"

/* Occurrences of needle in hay. */
static int count_of(const char *hay, const char *needle)
{
	int n = 0;

	for (; (hay = strstr(hay, needle)); hay++)
		n++;
	return n;
}

/* Two nodes with the same device name get one rule, not one each. */
static void test_export_one_rule_per_device(void **state)
{
	struct sweep s;
	struct buf b = BUF_INIT;
	struct err e;

	(void)state;
	ctltest_seed003(&s);
	assert_int_equal(export_render(&s, "udev", EXPORT_BEST, &b, &e), 0);
	assert_int_equal(count_of(b.data, "KERNEL==\"sda\""), 1);
	buf_reset(&b);
	assert_int_equal(export_render(&s, "tuned", EXPORT_BEST, &b, &e), 0);
	assert_int_equal(count_of(b.data, "/sys/block/sda/queue/nr_requests="), 1);
	assert_int_equal(export_render(&s, "ini", EXPORT_BEST, &b, &e), -EINVAL);
	buf_release(&b);
	sweep_release(&s);
}

/* A filesystem choice (ctltest_fs_sweep) is noted with its mkfs, mount and fstab lines; an
 * fs.* value is never written as a sysfs attribute or a sysctl. */
static void test_export_filesystem(void **state)
{
	struct buf out = BUF_INIT;
	struct sweep s;
	struct err e;

	(void)state;
	ctltest_fs_sweep(&s);
	assert_int_equal(export_render(&s, "tuned", EXPORT_BEST, &out, &e), 0);
	assert_non_null(strstr(out.data, "/sys/block/sda/queue/read_ahead_kb=128\n"));
	assert_null(strstr(out.data, "[sysctl]"));
	assert_null(strstr(out.data, "\nfs."));
	assert_non_null(strstr(out.data,
	                       "# filesystem: tuned cannot make or mount one; the sweep's "
	                       "choice is fs.type=xfs fs.mkfs=-b size=4k -d su=64k,sw=7 -i "
	                       "size=2k -l version=2 fs.mount=noatime,logbufs=8,"
	                       "logbsize=256k:\n"
	                       "#   mkfs.xfs -b size=4k -d su=64k,sw=7 -i size=2k -l "
	                       "version=2 /dev/DEVICE\n"
	                       "#   mount -t xfs -o noatime,logbufs=8,logbsize=256k "
	                       "/dev/DEVICE /MOUNTPOINT\n"));
	buf_reset(&out);
	assert_int_equal(export_render(&s, "udev", EXPORT_BEST, &out, &e), 0);
	assert_non_null(strstr(out.data, "ATTR{queue/read_ahead_kb}=\"128\"\n"));
	assert_null(strstr(out.data, "ATTR{queue/fs."));
	assert_non_null(strstr(out.data, "# filesystem: a udev rule cannot make or mount one"));
	buf_release(&out);
	sweep_release(&s);
}

/* A sweep with no best is never exported as if it had one: EXPORT_BEST is refused (-ENOENT,
 * nothing written), EXPORT_BASELINE writes the baseline and says it was asked for. */
static void test_export_no_best(void **state)
{
	static const double flat[8] = { 0 };
	struct buf b = BUF_INIT, why = BUF_INIT;
	struct sweep s;
	struct err e = { 0 };

	(void)state;
	ctltest_sequential_run(&s, "3", flat, 1);
	assert_int_equal(s.best, -1);
	assert_int_equal(s.outcome, OUTCOME_BASELINE);
	assert_int_equal(export_render(&s, "udev", EXPORT_BEST, &b, &e), -ENOENT);
	assert_int_equal(b.len, 0);
	assert_string_equal(e.msg, "sweep 0 has no best configuration");
	words_no_best(&s, &why);
	assert_string_equal(why.data, "no configuration gave a significant gain over the baseline");
	assert_int_equal(export_render(&s, "udev", EXPORT_BASELINE, &b, &e), 0);
	assert_non_null(strstr(b.data, ": its baseline, exported on purpose\n"));
	assert_non_null(strstr(b.data, "ATTR{queue/x}=\"0\""));
	buf_reset(&b);
	assert_int_equal(export_render(&s, "tuned", EXPORT_BASELINE, &b, &e), 0);
	assert_non_null(strstr(b.data, "summary=fleettune sweep 0: baseline\n"));
	buf_release(&b);
	buf_release(&why);
	sweep_release(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_export_one_rule_per_device),
		cmocka_unit_test(test_export_filesystem),
		cmocka_unit_test(test_export_no_best),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
