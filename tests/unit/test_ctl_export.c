/* test_ctl_export.c -- a sweep's best configuration as a udev rule and a tuned profile. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "ctltest.h"
#include "export.h"
#include "sweep.h"
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
	assert_int_equal(export_render(&s, "udev", &b, &e), 0);
	assert_int_equal(count_of(b.data, "KERNEL==\"sda\""), 1);
	buf_reset(&b);
	assert_int_equal(export_render(&s, "tuned", &b, &e), 0);
	assert_int_equal(count_of(b.data, "/sys/block/sda/queue/nr_requests="), 1);
	assert_int_equal(export_render(&s, "ini", &b, &e), -EINVAL);
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
	assert_int_equal(export_render(&s, "udev", &b, &e), 0);
	assert_null(strstr(b.data, "\nACTION==\"add\", KERNEL==\"loop0\""));
	/* The name stays on its comment line. */
	for (line = b.data; line && *line;
	     line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL)
		if (strstr(line, "RUN+=") &&
		    strstr(line, "RUN+=") < (strchr(line, '\n') ?: line + strlen(line)) &&
		    line[0] != '#')
			fail_msg("a rule line carries RUN: %s", line);
	buf_reset(&b);
	assert_int_equal(export_render(&s, "tuned", &b, &e), 0);
	assert_null(strstr(b.data, "\n[script]"));
	buf_reset(&b);
	/* A value that would quote its way out of ATTR{}="..." is refused, for both formats. */
	assert_true(s.plan.baseline.n > 0);
	for (i = 0; i < s.plan.baseline.n; i++)
		snprintf(s.plan.baseline.s[i].value, sizeof(s.plan.baseline.s[i].value),
		         "none\", RUN+=\"/bin/sh");
	s.best = -1;
	assert_int_equal(export_render(&s, "udev", &b, &e), -EINVAL);
	assert_string_equal(e.code, "export_refused");
	assert_int_equal(export_render(&s, "tuned", &b, &e), -EINVAL);
	buf_release(&b);
	sweep_release(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_export_injection),
		cmocka_unit_test(test_export_one_rule_per_device),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
