/* test_ctl_export.c -- a sweep's best configuration as a udev rule and a tuned profile; a
 * sweep with no best refused unless its baseline is asked for. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "testutil.h"
#include "analysis.h"
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

/* Two cohorts whose best values differ: one rule each, matching the cohort's model and
 * firmware with the attributes of its transport, and each its own best. */
static void test_export_per_cohort(void **state)
{
	const double a[] = { 0, 10, 4 }, b[] = { 0, -10, 12 };
	struct sweep s;
	struct buf o = BUF_INIT;
	struct err e;
	int k;

	(void)state;
	ctltest_cohort_sweep(&s, 8, 6, a, b, -1, 0);
	for (k = 0; k < 8; k++)
		sweep_identity_set(&s, k, IDF_TRANSPORT, k < 6 ? "sata" : "nvme");
	assert_int_equal(s.cohorts[0].best, 1);
	assert_int_equal(s.cohorts[1].best, 2);
	assert_int_equal(export_render(&s, "udev", EXPORT_BEST, &o, &e), 0);
	assert_int_equal(count_of(o.data, "KERNEL=="), 0); /* never a device name */
	assert_non_null(strstr(o.data, "# cohort 1 of 2: model=A firmware=1.0 (6 nodes: n1, n2, "
	                               "n3, n4 and 2 more)\n# its best configuration\n"
	                               "ACTION==\"add|change\", SUBSYSTEM==\"block\", "
	                               "ENV{DEVTYPE}==\"disk\", ATTRS{model}==\"A\", "
	                               "ATTRS{rev}==\"1.0\", ATTR{queue/x}=\"1\"\n"));
	assert_non_null(strstr(o.data, "# cohort 2 of 2: model=B firmware=1.0 (2 nodes: n7, n8)\n"
	                               "# its best configuration\nACTION==\"add|change\", "
	                               "SUBSYSTEM==\"block\", ENV{DEVTYPE}==\"disk\", "
	                               "ATTRS{model}==\"B\", ATTRS{firmware_rev}==\"1.0\", "
	                               "ATTR{queue/x}=\"2\"\n"));
	buf_reset(&o);
	assert_int_equal(export_render(&s, "tuned", EXPORT_BEST, &o, &e), 0);
	assert_non_null(strstr(o.data, "# ---- profile fleettune-0-c1: "
	                               "/etc/tuned/fleettune-0-c1/tuned.conf\n"));
	assert_non_null(strstr(o.data, "[disk]\ndevices_udev_regex=(?s)\\A(?=.*^ID_MODEL=A$)"
	                               "(?=.*^ID_REVISION=(.{4})?1[.]0$)\n"));
	assert_non_null(strstr(o.data, "devices_udev_regex=(?s)\\A(?=.*^ID_MODEL=B$)"
	                               "(?=.*^ID_REVISION=1[.]0$)\n# tuned sets no other block "
	                               "parameter per device: use export --format udev for x=2\n"));
	assert_int_equal(count_of(o.data, "/sys/block/"), 0);
	buf_release(&o);
	sweep_release(&s);
}

/* A cohort with no best gets no rule (a permanent rule is never written for a baseline nobody
 * chose), unless --baseline asks for the baseline on purpose; a sweep without any best is
 * refused. */
static void test_export_cohort_without_best(void **state)
{
	const double a[] = { 0, 10, 0 }, b[] = { 0, -10, 0 }, z[] = { 0, 0, 0 };
	struct sweep s;
	struct buf o = BUF_INIT;
	struct err e;
	int k;

	(void)state;
	ctltest_cohort_sweep(&s, 8, 6, a, b, -1, 0);
	for (k = 0; k < 8; k++)
		sweep_identity_set(&s, k, IDF_TRANSPORT, "sata");
	assert_int_equal(s.cohorts[1].best, -1);
	assert_int_equal(export_render(&s, "udev", EXPORT_BEST, &o, &e), 0);
	assert_int_equal(count_of(o.data, "ACTION=="), 1);
	assert_non_null(strstr(o.data, "# cohort 2 of 2: model=B firmware=1.0 (2 nodes: n7, n8)\n"
	                               "# no configuration gave it a significant gain: no rule"));
	buf_reset(&o);
	assert_int_equal(export_render(&s, "udev", EXPORT_BASELINE, &o, &e), 0);
	assert_int_equal(count_of(o.data, "ACTION=="), 2);
	assert_int_equal(count_of(o.data, "ATTR{queue/x}=\"0\""), 2);
	sweep_release(&s);
	buf_reset(&o);
	ctltest_cohort_sweep(&s, 8, 6, z, z, -1, 0);
	assert_int_equal(export_render(&s, "udev", EXPORT_BEST, &o, &e), -ENOENT);
	assert_string_equal(e.code, "no_best");
	assert_true(o.len == 0);
	buf_release(&o);
	sweep_release(&s);
}

/* What cannot be matched, and what is not a device's: values that cannot reach a rule, host
 * fields as a comment, a cohort with nothing to match, loop devices by their names. */
static void test_export_matching(void **state)
{
	const double a[] = { 0, 10, 4 }, b[] = { 0, -10, 12 };
	struct sweep s;
	struct buf o = BUF_INIT;
	struct err e;
	int k;

	(void)state;
	ctltest_cohort_sweep(&s, 8, 6, a, b, -1, 0);
	/* A model with quoting and glob characters: each becomes one '?'. */
	for (k = 0; k < 6; k++) {
		sweep_identity_set(&s, k, IDF_MODEL, "ST300\"*, RUN+=\"x");
		sweep_identity_set(&s, k, IDF_TRANSPORT, "sas");
	}
	for (k = 6; k < 8; k++)
		sweep_identity_set(&s, k, IDF_TRANSPORT, "loop");
	s.plan.ncohort_by = 3;
	snprintf(s.plan.cohort_by[2], sizeof(s.plan.cohort_by[2]), "kernel");
	for (k = 0; k < 8; k++)
		sweep_identity_set(&s, k, IDF_KERNEL, "6.1.0\n#");
	analysis_sweep_loaded(&s);
	assert_int_equal(export_render(&s, "udev", EXPORT_BEST, &o, &e), 0);
	assert_non_null(strstr(o.data, "ATTRS{model}==\"ST300??, RUN+=?x\""));
	assert_non_null(strstr(o.data, "# install only on hosts with kernel=6.1.0?#: these are not "
	                               "properties of the device\n"));
	/* Cohort B: loop devices "of model B": a loop device has no such attributes, so its rule
	 * says so and matches loop devices by name. */
	assert_non_null(strstr(o.data,
	                       "# not matched: model (no udev attribute on loop), firmware "
	                       "(no udev attribute on loop)\n# nothing else to match: every "
	                       "loop device\n"));
	buf_reset(&o);
	/* A cohort that reports nothing a rule can match: refused, nothing written. */
	for (k = 6; k < 8; k++) {
		sweep_identity_set(&s, k, IDF_MODEL, NULL);
		sweep_identity_set(&s, k, IDF_FIRMWARE, NULL);
		sweep_identity_set(&s, k, IDF_TRANSPORT, NULL);
	}
	analysis_sweep_loaded(&s);
	assert_int_equal(export_render(&s, "udev", EXPORT_BEST, &o, &e), -EINVAL);
	assert_string_equal(e.code, "no_match");
	assert_non_null(strstr(e.msg,
	                       "(model=(none) firmware=(none) kernel=6.1.0\\x0a#, 2 nodes) has "
	                       "nothing a udev rule can match"));
	assert_true(o.len == 0);
	/* Loop devices alone: matched by their names, the rule says so. */
	for (k = 6; k < 8; k++)
		sweep_identity_set(&s, k, IDF_TRANSPORT, "loop");
	analysis_sweep_loaded(&s);
	assert_int_equal(export_render(&s, "udev", EXPORT_BEST, &o, &e), 0);
	assert_non_null(strstr(o.data, "# nothing else to match: every loop device\nACTION==\"add|"
	                               "change\", SUBSYSTEM==\"block\", ENV{DEVTYPE}==\"disk\", "
	                               "KERNEL==\"loop[0-9]*\", "));
	buf_reset(&o);
	assert_int_equal(export_render(&s, "tuned", EXPORT_BEST, &o, &e), 0);
	assert_non_null(strstr(o.data, "devices_udev_regex=^DEVNAME=/dev/loop[0-9]+$\n"));
	/* A value no rule may write is refused. */
	config_set(&s.points[1].cfg, "scheduler", "none\", RUN+=\"/bin/sh", false);
	buf_reset(&o);
	assert_int_equal(export_render(&s, "udev", EXPORT_BEST, &o, &e), -EINVAL);
	assert_string_equal(e.code, "bad_value");
	buf_release(&o);
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
		cmocka_unit_test(test_export_per_cohort),
		cmocka_unit_test(test_export_cohort_without_best),
		cmocka_unit_test(test_export_matching),
		cmocka_unit_test(test_export_filesystem),
		cmocka_unit_test(test_export_no_best),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
