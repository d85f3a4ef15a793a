/* test_profile.c -- profile.c: names, device patterns, the checks of a definition, matches by
 * device and by identity through a source (the plug-in issue 19's identity fills), overlaps. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile/profile.h"
#include "testutil.h"

static void item(struct profile *p, const char *name, const char *value)
{
	struct tune_item *it;

	p->params.items = realloc(p->params.items, (size_t)(p->params.n + 1) * sizeof(*it));
	it = &p->params.items[p->params.n++];
	memset(it, 0, sizeof(*it));
	snprintf(it->name, sizeof(it->name), "%s", name);
	snprintf(it->requested, sizeof(it->requested), "%s", value);
}

static void make(struct profile *p, const char *name, const char *dev)
{
	profile_init(p);
	snprintf(p->name, sizeof(p->name), "%s", name);
	if (dev)
		snprintf(p->match.devices[p->match.n_devices++], SYSFS_NAME_MAX, "%s", dev);
}

/* A fake identity: sda is model "ST4000" firmware "2.1", sdb model "ST4000" firmware "2.3". */
static int fake_ident(void *cls, const char *dev, enum profile_ident field, char *out, size_t len)
{
	(void)cls;
	if (field == IDENT_MODEL && (!strcmp(dev, "sda") || !strcmp(dev, "sdb"))) {
		snprintf(out, len, "ST4000");
		return 0;
	}
	if (field == IDENT_FIRMWARE && !strcmp(dev, "sda")) {
		snprintf(out, len, "2.1");
		return 0;
	}
	if (field == IDENT_FIRMWARE && !strcmp(dev, "sdb")) {
		snprintf(out, len, "2.3");
		return 0;
	}
	return -ENOENT;
}

static void test_names(void **state)
{
	(void)state;
	assert_true(profile_name_ok("db-pool_1.v2"));
	assert_false(profile_name_ok(""));
	assert_false(profile_name_ok(".hidden"));
	assert_false(profile_name_ok("a/b"));
	assert_false(profile_name_ok("a b"));
	assert_false(profile_name_ok(
	        "0123456789012345678901234567890123456789012345678901234567890123"));
	assert_true(profile_is_pattern("nvme*n1"));
	assert_true(profile_is_pattern("sd[ab]"));
	assert_false(profile_is_pattern("sda"));
}

static void test_check(void **state)
{
	struct profile_ident_source none = { NULL, NULL }, src = { fake_ident, NULL };
	struct profile p;
	struct err e;

	(void)state;
	make(&p, "db", "sda");
	assert_int_equal(profile_check(&p, &none, &e), -EINVAL); /* no params */
	item(&p, "read_ahead_kb", "4096");
	assert_int_equal(profile_check(&p, &none, &e), 0);
	item(&p, "setra", "8192");
	assert_int_equal(profile_check(&p, &none, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "the same thing"));
	profile_release(&p);

	make(&p, "db", "sda");
	item(&p, "iosched.fifo_batch", "8");
	assert_int_equal(profile_check(&p, &none, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "scheduler"));
	item(&p, "scheduler", "mq-deadline");
	assert_int_equal(profile_check(&p, &none, &e), 0);
	item(&p, "../etc", "1");
	assert_int_equal(profile_check(&p, &none, &e), -ENOENT);
	profile_release(&p);

	make(&p, "db", "../sda");
	item(&p, "nr_requests", "32");
	assert_int_equal(profile_check(&p, &none, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "match.devices[0]"));
	profile_release(&p);

	make(&p, "db", NULL);
	item(&p, "nr_requests", "32");
	assert_int_equal(profile_check(&p, &none, &e), -EINVAL); /* an empty match */
	p.match.n_values[IDENT_MODEL] = 1;
	snprintf(p.match.values[IDENT_MODEL][0], PROFILE_VALUE_MAX, "ST4000");
	assert_int_equal(profile_check(&p, &none, &e), -EINVAL);
	assert_int_equal(e.code, ERR_UNSUPPORTED_MATCH);
	assert_int_equal(profile_check(&p, &src, &e), 0);
	profile_release(&p);
}

static void test_matches(void **state)
{
	struct profile_ident_source none = { NULL, NULL }, src = { fake_ident, NULL };
	struct profile p;

	(void)state;
	make(&p, "db", "nvme*n1");
	assert_true(profile_matches(&p, "nvme0n1", &none));
	assert_true(profile_matches(&p, "nvme12n1", &none));
	assert_false(profile_matches(&p, "nvme0n1p1", &none));
	assert_false(profile_names(&p, "nvme0n1"));
	snprintf(p.match.devices[p.match.n_devices++], SYSFS_NAME_MAX, "sda");
	assert_true(profile_names(&p, "sda"));
	assert_true(profile_matches(&p, "sda", &none));
	profile_release(&p);

	/* identity: every field given must match, devices too when given */
	make(&p, "old-fw", NULL);
	p.match.n_values[IDENT_MODEL] = 1;
	snprintf(p.match.values[IDENT_MODEL][0], PROFILE_VALUE_MAX, "ST4000");
	p.match.n_values[IDENT_FIRMWARE] = 2;
	snprintf(p.match.values[IDENT_FIRMWARE][0], PROFILE_VALUE_MAX, "2.0");
	snprintf(p.match.values[IDENT_FIRMWARE][1], PROFILE_VALUE_MAX, "2.1");
	assert_true(profile_matches(&p, "sda", &src));
	assert_false(profile_matches(&p, "sdb", &src));
	assert_false(profile_matches(&p, "vda", &src)); /* no identity: no match */
	assert_false(profile_matches(&p, "sda", &none));
	snprintf(p.match.devices[p.match.n_devices++], SYSFS_NAME_MAX, "sdb");
	assert_false(profile_matches(&p, "sda", &src));
	profile_release(&p);
}

static void test_overlap(void **state)
{
	struct profile a, b;
	char name[64];

	(void)state;
	make(&a, "a", "sda");
	make(&b, "b", "sda");
	item(&a, "read_ahead_kb", "4096");
	item(&b, "nr_requests", "32");
	assert_false(profile_params_overlap(&a, &b, name, sizeof(name)));
	item(&b, "setra", "256");
	assert_true(profile_params_overlap(&a, &b, name, sizeof(name)));
	assert_string_equal(name, "read_ahead_kb");
	assert_non_null(profile_param(&b, "read_ahead_kb"));
	profile_release(&a);
	profile_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_check),
		cmocka_unit_test(test_matches),
		cmocka_unit_test(test_overlap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL) || tu_leaked();
}
