/* test_ctl_export.c -- a sweep's best configuration as a udev rule and a tuned profile; a
 * sweep with no best refused unless its baseline is asked for. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "ctltest.h"
#include "export.h"
#include "sweep.h"
#include "xmalloc.h"
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

/* Issue 23 item 3: nothing from a plan or a sweep can add a rule or a section to an export. */
static void test_export_injection(void **state)
{
	struct sweep s;
	struct buf b = BUF_INIT;
	struct err e;
	const char *line;
	int i;

	(void)state;
	ctltest_seed003(&s);
	free(s.plan.name);
	s.plan.name =
	        xstrdup("x\nACTION==\"add\", KERNEL==\"loop0\", RUN+=\"/bin/touch /tmp/pwned\"\n"
	                "[script]\nscript=/tmp/x.sh");
	assert_int_equal(export_render(&s, "udev", EXPORT_BEST, &b, &e), 0);
	assert_null(strstr(b.data, "\nACTION==\"add\", KERNEL==\"loop0\""));
	/* The name stays on its comment line. */
	for (line = b.data; line && *line;
	     line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL)
		if (strstr(line, "RUN+=") &&
		    strstr(line, "RUN+=") < (strchr(line, '\n') ?: line + strlen(line)) &&
		    line[0] != '#')
			fail_msg("a rule line carries RUN: %s", line);
	buf_reset(&b);
	assert_int_equal(export_render(&s, "tuned", EXPORT_BEST, &b, &e), 0);
	assert_null(strstr(b.data, "\n[script]"));
	buf_reset(&b);
	/* A value that would quote its way out of ATTR{}="..." is refused, for both formats. */
	assert_true(s.plan.baseline.n > 0);
	for (i = 0; i < s.plan.baseline.n; i++)
		snprintf(s.plan.baseline.s[i].value, sizeof(s.plan.baseline.s[i].value),
		         "none\", RUN+=\"/bin/sh");
	s.best = -1;
	assert_int_equal(export_render(&s, "udev", EXPORT_BASELINE, &b, &e), -EINVAL);
	assert_string_equal(e.code, "export_refused");
	assert_int_equal(export_render(&s, "tuned", EXPORT_BASELINE, &b, &e), -EINVAL);
	assert_int_equal(b.len, 0);
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

/* The value of name in configuration c, to overwrite (the test's own sweep). */
static char *value_of(struct config *c, const char *name)
{
	int i;

	for (i = 0; i < c->n; i++)
		if (!strcmp(c->s[i].name, name))
			return c->s[i].value;
	fail_msg("no %s in the configuration", name);
	return NULL;
}

/* Drop the settings of c whose value is empty (the test's way to unset one). */
static void drop_empty(struct config *c)
{
	int i, k = 0;

	for (i = 0; i < c->n; i++)
		if (c->s[i].value[0])
			c->s[k++] = c->s[i];
	c->n = k;
}

/* The filesystem lines hold values from the plan (fs.* and job.filesystem): they go through the
 * export's rules as the sysfs lines do. Nothing can end the comment and start a rule or a
 * section, or put a shell word into the commands: export_refused, nothing written. mkfs's
 * tokens are written as the agents get them, one space apart. */
static void test_export_filesystem_injection(void **state)
{
	static const struct {
		const char *name, *value;
	} bad[] = {
		{ "fs.mkfs", "-b size=4k\nACTION==\"add\", KERNEL==\"sda\", RUN+=\"/bin/sh\"" },
		{ "fs.mkfs", "-b size=4k\r[script]" },
		{ "fs.mkfs", "-L $(reboot)" },
		{ "fs.mkfs", "-b size=4k; rm -rf /" },
		{ "fs.mkfs", "-L \"x\"" },
		{ "fs.mount", "noatime\n[sysctl]\nkernel.panic=1" },
		{ "fs.mount", "noatime 0 0\n/dev/sda / xfs" },
		{ "fs.mount", "noatime#" },
		{ "fs.type", "xfs\n" },
		{ "fs.type", "xfs -o" },
	};
	static const char *const formats[] = { "udev", "tuned" };
	struct buf out = BUF_INIT;
	struct sweep s;
	struct err e;
	char keep[PARAM_VALUE_MAX], *v;
	size_t i, f;

	(void)state;
	ctltest_fs_sweep(&s);
	assert_true(s.best >= 0);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		v = value_of(&s.points[s.best].cfg, bad[i].name);
		snprintf(keep, sizeof(keep), "%s", v);
		snprintf(v, PARAM_VALUE_MAX, "%s", bad[i].value);
		for (f = 0; f < 2; f++) {
			err_clear(&e);
			assert_int_equal(export_render(&s, formats[f], EXPORT_BEST, &out, &e),
			                 -EINVAL);
			assert_string_equal(e.code, "export_refused");
			assert_non_null(strstr(e.msg, bad[i].name));
			assert_int_equal(out.len, 0);
		}
		snprintf(v, PARAM_VALUE_MAX, "%s", keep);
	}
	/* job.filesystem's own values too (a point that does not set fs.mount: the plan's). */
	v = value_of(&s.points[s.best].cfg, "fs.mount");
	v[0] = '\0';
	drop_empty(&s.points[s.best].cfg);
	s.plan.has_fs = true;
	snprintf(s.plan.fs_type, sizeof(s.plan.fs_type), "xfs");
	snprintf(s.plan.fs_mount, sizeof(s.plan.fs_mount), "noatime\nRUN+=\"/bin/sh\"");
	assert_int_equal(export_render(&s, "udev", EXPORT_BEST, &out, &e), -EINVAL);
	assert_string_equal(e.code, "export_refused");
	assert_int_equal(out.len, 0);
	snprintf(s.plan.fs_mount, sizeof(s.plan.fs_mount), "noatime");
	assert_int_equal(export_render(&s, "udev", EXPORT_BEST, &out, &e), 0);
	assert_non_null(strstr(out.data, "#   mount -t xfs -o noatime /dev/DEVICE /MOUNTPOINT\n"));
	buf_reset(&out);
	/* Blanks other than one space (a tab, two spaces) are only separators. */
	v = value_of(&s.points[s.best].cfg, "fs.mkfs");
	snprintf(v, PARAM_VALUE_MAX, "-b\tsize=4k  -O ^has_journal -i size=2k");
	assert_int_equal(export_render(&s, "tuned", EXPORT_BEST, &out, &e), 0);
	assert_non_null(strstr(out.data, "#   mkfs.xfs -b size=4k -O ^has_journal -i size=2k "
	                                 "/dev/DEVICE\n"));
	assert_null(strstr(out.data, "\t"));
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
		cmocka_unit_test(test_export_injection),
		cmocka_unit_test(test_export_one_rule_per_device),
		cmocka_unit_test(test_export_filesystem),
		cmocka_unit_test(test_export_filesystem_injection),
		cmocka_unit_test(test_export_no_best),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
