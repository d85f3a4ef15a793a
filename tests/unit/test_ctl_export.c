/* test_ctl_export.c -- a sweep's best configuration as a udev rule and a tuned profile; a
 * sweep with no best refused unless its baseline is asked for. */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctltest.h"
#include "judge/analysis.h"
#include "model/sweep.h"
#include "model/words.h"
#include "render/export.h"
#include "testutil.h"
#include "xmalloc.h"

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
	assert_int_equal(ctltest_best(&s, 0), 1);
	assert_int_equal(ctltest_best(&s, 1), 2);
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
	assert_int_equal(ctltest_best(&s, 1), -1);
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
	assert_int_equal(e.code, ERR_NO_BEST);
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
	/* A model with glob characters and a backslash: matched exactly (brackets). */
	for (k = 0; k < 6; k++) {
		sweep_identity_set(&s, k, IDF_MODEL, "ST300*?[x]\\");
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
	assert_non_null(strstr(o.data, "ATTRS{model}==\"ST300[*][?][[]x][\\\\]\""));
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
	assert_int_equal(e.code, ERR_NO_MATCH);
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
	analysis_sweep_loaded(&s);
	buf_reset(&o);
	assert_int_equal(export_render(&s, "udev", EXPORT_BEST, &o, &e), -EINVAL);
	assert_int_equal(e.code, ERR_EXPORT_REFUSED);
	assert_true(o.len == 0);
	buf_release(&o);
	sweep_release(&s);
}

/* The value of key in a udev rule line, parsed as udev reads it (KEY OP "VALUE" pairs separated
 * by ", "; a value ends at the first '"', and none may end in a backslash, which udev 247+
 * would read as an escaped quote); NULL when the line is not such a rule or has no key. */
static char *udev_match_of(const char *line, const char *key)
{
	const char *p = line, *end;
	char *found = NULL;

	while (*p && *p != '\n') {
		const char *k = p, *q;

		while (*p && *p != '=' && *p != '!' && *p != '+' && *p != '\n')
			p++;
		q = p;
		if (!strncmp(p, "==", 2) || !strncmp(p, "!=", 2) || !strncmp(p, "+=", 2))
			p += 2;
		else if (*p == '=')
			p++;
		else
			goto bad;
		if (*p++ != '"')
			goto bad;
		end = strchr(p, '"');
		if (!end || (end > p && end[-1] == '\\') || memchr(p, '\n', (size_t)(end - p)))
			goto bad;
		if ((size_t)(q - k) == strlen(key) && !strncmp(k, key, strlen(key)) &&
		    q[0] == '=' && q[1] == '=') {
			free(found);
			found = xstrndup(p, (size_t)(end - p));
		}
		p = end + 1;
		if (*p == '\n' || !*p)
			break;
		if (strncmp(p, ", ", 2))
			goto bad;
		p += 2;
	}
	return found;
bad:
	free(found);
	fail_msg("not a udev rule line: %.200s", line);
	return NULL;
}

/* Identity strings come from the agents: whatever a model or firmware holds, the rule that
 * matches it stays one rule, matches that string exactly (fnmatch(3), as udev does) and
 * nothing wider; what no rule can hold exactly is refused, nothing written. */
static void test_export_identity_strings(void **state)
{
	static const char *const exact[] = {
		"A*B", "A?B", "A[B", "A]B", "A\\B", "AB\\", "A$B%C", "A B  C", "A#B", "x\\, RUN+=",
	};
	static const char *const refused[] = {
		"A\"B", "A|B", "A\nB", "A\rB", "A\x01", "A\xc3\xa9", "x\", RUN+=\"/bin/sh",
	};
	const double a[] = { 0, 10, 4 }, b[] = { 0, -10, 12 };
	struct sweep s;
	struct buf o = BUF_INIT;
	struct err e;
	size_t i;
	int k;

	(void)state;
	ctltest_cohort_sweep(&s, 8, 6, a, b, -1, 0);
	for (k = 0; k < 8; k++)
		sweep_identity_set(&s, k, IDF_TRANSPORT, "sas");
	for (i = 0; i < sizeof(exact) / sizeof(exact[0]); i++) {
		char *line, *v, variant[32];
		size_t at;

		for (k = 0; k < 6; k++)
			sweep_identity_set(&s, k, IDF_MODEL, exact[i]);
		analysis_sweep_loaded(&s);
		buf_reset(&o);
		assert_int_equal(export_render(&s, "udev", EXPORT_BEST, &o, &e), 0);
		assert_int_equal(count_of(o.data, "\nACTION=="), 2);
		line = strstr(o.data, "\nACTION==") + 1;
		v = udev_match_of(line, "ATTRS{model}");
		assert_non_null(v);
		assert_int_equal(fnmatch(v, exact[i], 0), 0);
		/* The same string with its first character that is not a letter changed does
		 * not match: the rule is no wider than the model. */
		snprintf(variant, sizeof(variant), "%s", exact[i]);
		at = strspn(variant, "AB");
		variant[at] = variant[at] == 'x' ? 'y' : 'x';
		assert_int_not_equal(fnmatch(v, variant, 0), 0);
		free(v);
		assert_null(udev_match_of(strstr(line, "\nACTION==") + 1, "RUN"));
		/* tuned: one line of the profile, no quote, comment or expansion in it. */
		buf_reset(&o);
		assert_int_equal(export_render(&s, "tuned", EXPORT_BEST, &o, &e), 0);
		line = strstr(o.data, "devices_udev_regex=");
		assert_non_null(line);
		assert_null(memchr(line, '"', (size_t)(strchr(line, '\n') - line)));
		assert_null(strstr(line, "${"));
		assert_null(strstr(line, " #"));
	}
	buf_reset(&o);
	for (k = 0; k < 6; k++)
		sweep_identity_set(&s, k, IDF_MODEL, "A\"B");
	analysis_sweep_loaded(&s);
	assert_int_equal(export_render(&s, "tuned", EXPORT_BEST, &o, &e), 0);
	assert_non_null(strstr(o.data, "(?=.*^ID_MODEL=A(?:\\x22|_)B$)"));
	for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		for (k = 0; k < 6; k++) {
			sweep_identity_set(&s, k, IDF_MODEL, "A");
			sweep_identity_set(&s, k, IDF_FIRMWARE, refused[i]);
		}
		analysis_sweep_loaded(&s);
		buf_reset(&o);
		err_clear(&e);
		assert_int_equal(export_render(&s, "udev", EXPORT_BEST, &o, &e), -EINVAL);
		assert_int_equal(e.code, ERR_EXPORT_REFUSED);
		assert_non_null(strstr(e.msg, "its firmware has a character"));
		assert_int_equal(o.len, 0);
		err_clear(&e);
		k = export_render(&s, "tuned", EXPORT_BEST, &o, &e);
		/* tuned holds a quote and '|' exactly (\xHH), never a control character or a
		 * byte above ASCII. */
		if (strpbrk(refused[i], "\"|") && !strpbrk(refused[i], "\n\r\x01")) {
			assert_int_equal(k, 0);
			assert_null(strstr(o.data, "RUN+=\""));
		} else {
			assert_int_equal(k, -EINVAL);
			assert_int_equal(e.code, ERR_EXPORT_REFUSED);
			assert_int_equal(o.len, 0);
		}
	}
	buf_release(&o);
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
	s.decision.state = DECISION_NONE;
	assert_int_equal(export_render(&s, "udev", EXPORT_BASELINE, &b, &e), -EINVAL);
	assert_int_equal(e.code, ERR_EXPORT_REFUSED);
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
	char ran[SWEEP_MKFS_MAX];
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
	/* The command the agents ran, where the sweep recorded it (issue 31 #21: mkfs.xfs 6.1
	 * refuses "-i size=2k"; the agent writes it in bytes): that command, its device
	 * /dev/DEVICE. An agent's command with a word a shell line cannot hold is not used. */
	snprintf(ran, sizeof(ran),
	         "mkfs.xfs -f -b size=4096 -d su=65536,sw=7 -i size=2048 -l version=2 /dev/%s",
	         s.plan.nodes[0].device);
	node_result_mkfs_set(&s.points[ctltest_best(&s, -1)].nodes[0], ran);
	s.points[ctltest_best(&s, -1)].nodes[0].state = NODE_OK;
	buf_reset(&out);
	assert_int_equal(export_render(&s, "tuned", EXPORT_BEST, &out, &e), 0);
	assert_non_null(strstr(out.data, "\n#   mkfs.xfs -f -b size=4096 -d su=65536,sw=7 -i "
	                                 "size=2048 -l version=2 /dev/DEVICE\n"));
	assert_null(strstr(out.data, "size=2k -l version=2 /dev/DEVICE"));
	assert_non_null(strstr(out.data, "as the sweep's agents ran it"));
	snprintf(ran, sizeof(ran), "mkfs.xfs -f $(reboot) /dev/%s", s.plan.nodes[0].device);
	node_result_mkfs_set(&s.points[ctltest_best(&s, -1)].nodes[0], ran);
	buf_reset(&out);
	assert_int_equal(export_render(&s, "tuned", EXPORT_BEST, &out, &e), 0);
	assert_null(strstr(out.data, "reboot"));
	assert_non_null(strstr(out.data, "#   mkfs.xfs -b size=4k -d su=64k,sw=7 -i size=2k"));
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
	assert_true(ctltest_best(&s, -1) >= 0);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		v = value_of(&s.decision.cfg, bad[i].name);
		snprintf(keep, sizeof(keep), "%s", v);
		snprintf(v, PARAM_VALUE_MAX, "%s", bad[i].value);
		for (f = 0; f < 2; f++) {
			err_clear(&e);
			assert_int_equal(export_render(&s, formats[f], EXPORT_BEST, &out, &e),
			                 -EINVAL);
			assert_int_equal(e.code, ERR_EXPORT_REFUSED);
			assert_non_null(strstr(e.msg, bad[i].name));
			assert_int_equal(out.len, 0);
		}
		snprintf(v, PARAM_VALUE_MAX, "%s", keep);
	}
	/* job.filesystem's own values too (a point that does not set fs.mount: the plan's). */
	v = value_of(&s.decision.cfg, "fs.mount");
	v[0] = '\0';
	drop_empty(&s.decision.cfg);
	s.plan.has_fs = true;
	snprintf(s.plan.fs_type, sizeof(s.plan.fs_type), "xfs");
	snprintf(s.plan.fs_mount, sizeof(s.plan.fs_mount), "noatime\nRUN+=\"/bin/sh\"");
	assert_int_equal(export_render(&s, "udev", EXPORT_BEST, &out, &e), -EINVAL);
	assert_int_equal(e.code, ERR_EXPORT_REFUSED);
	assert_int_equal(out.len, 0);
	snprintf(s.plan.fs_mount, sizeof(s.plan.fs_mount), "noatime");
	assert_int_equal(export_render(&s, "udev", EXPORT_BEST, &out, &e), 0);
	assert_non_null(strstr(out.data, "#   mount -t xfs -o noatime /dev/DEVICE /MOUNTPOINT\n"));
	buf_reset(&out);
	/* Blanks other than one space (a tab, two spaces) are only separators. */
	v = value_of(&s.decision.cfg, "fs.mkfs");
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
	assert_int_equal(ctltest_best(&s, -1), -1);
	assert_int_equal(s.outcome, OUTCOME_BASELINE);
	assert_int_equal(export_render(&s, "udev", EXPORT_BEST, &b, &e), -ENOENT);
	assert_int_equal(b.len, 0);
	assert_string_equal(e.msg, "sweep 0 has no confirmed configuration");
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
		cmocka_unit_test(test_export_per_cohort),
		cmocka_unit_test(test_export_cohort_without_best),
		cmocka_unit_test(test_export_matching),
		cmocka_unit_test(test_export_identity_strings),
		cmocka_unit_test(test_export_filesystem),
		cmocka_unit_test(test_export_filesystem_injection),
		cmocka_unit_test(test_export_no_best),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
