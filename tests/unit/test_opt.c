/* test_opt.c -- the option tables both binaries parse their command lines with (opt.c): the
 * takers, an option outside the command's mask refused by name, unknown options, missing and
 * unexpected values, optional values, letters, options after arguments, a second parse, and
 * --help and the usage synopsis printed from the same table. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "options.h"
#include "testutil.h"

struct args {
	const char *db, *format, *fmt_name;
	bool dry_run, help, fmt_all;
	int64_t limit;
	int level;
	unsigned conns;
};

/* An optional value, as fleettune-agent's --allow-format[=NAME]. */
static int take_fmt(const struct opt *o, const char *arg, void *ctx, struct err *e)
{
	struct args *a = ctx;

	(void)o;
	(void)e;
	if (arg)
		a->fmt_name = arg;
	else
		a->fmt_all = true;
	return 0;
}

enum { T_DB, T_FORMAT, T_DRY_RUN, T_LIMIT, T_LEVEL, T_CONNS, T_FMT, T_HELP, T_N };

static const struct opt table[T_N] = {
	[T_DB] = { .name = "db",
	           .has_arg = OPT_REQUIRED,
	           .arg = "PATH",
	           .help = "the database",
	           .take = opt_take_str,
	           .off = offsetof(struct args, db) },
	[T_FORMAT] = { .name = "format",
	               .letter = 'f',
	               .has_arg = OPT_REQUIRED,
	               .arg = "FORMAT",
	               .help = "the format\nsecond line",
	               .take = opt_take_str,
	               .off = offsetof(struct args, format) },
	[T_DRY_RUN] = { .name = "dry-run",
	                .has_arg = OPT_FLAG,
	                .help = "dry",
	                .take = opt_take_flag,
	                .off = offsetof(struct args, dry_run) },
	[T_LIMIT] = { .name = "limit",
	              .has_arg = OPT_REQUIRED,
	              .arg = "N",
	              .help = "limit",
	              .take = opt_take_i64,
	              .off = offsetof(struct args, limit),
	              .min = 1,
	              .max = INT64_MAX },
	[T_LEVEL] = { .name = "level",
	              .has_arg = OPT_REQUIRED,
	              .arg = "N",
	              .help = "level",
	              .take = opt_take_int,
	              .off = offsetof(struct args, level),
	              .min = 0,
	              .max = 9 },
	[T_CONNS] = { .name = "conns",
	              .has_arg = OPT_REQUIRED,
	              .arg = "N",
	              .help = "conns",
	              .take = opt_take_uint,
	              .off = offsetof(struct args, conns),
	              .min = 16,
	              .max = 1 << 20 },
	[T_FMT] = { .name = "allow-format",
	            .has_arg = OPT_OPTIONAL,
	            .arg = "NAME",
	            .help = "fmt",
	            .take = take_fmt },
	[T_HELP] = { .name = "help",
	             .letter = 'h',
	             .has_arg = OPT_FLAG,
	             .help = "this text",
	             .take = opt_take_flag,
	             .off = offsetof(struct args, help) },
};

/* Parse the NULL-terminated words (argv[0] first) with mask; rc, a, the first argument. */
static int parse(uint64_t mask, const char *const *words, struct args *a, int *first, struct err *e)
{
	static char *argv[32];
	int argc = 0;

	memset(a, 0, sizeof(*a));
	memset(e, 0, sizeof(*e));
	while (words[argc]) {
		argv[argc] = (char *)words[argc];
		argc++;
	}
	argv[argc] = NULL;
	return opt_parse(table, T_N, mask, "history", argc, argv, a, first, e);
}

static void test_takes_values(void **state)
{
	const char *w[] = { "sweep",
		            "plan.json",
		            "--db",
		            "x.db",
		            "-f",
		            "json",
		            "--dry-run",
		            "--limit",
		            "7",
		            "--level=3",
		            "--conns",
		            "64",
		            "--allow-format=sda",
		            NULL };
	struct args a;
	struct err e;
	int first;

	(void)state;
	assert_int_equal(parse(OPT_ALL, w, &a, &first, &e), 0);
	assert_string_equal(a.db, "x.db");
	assert_string_equal(a.format, "json");
	assert_true(a.dry_run);
	assert_int_equal(a.limit, 7);
	assert_int_equal(a.level, 3);
	assert_int_equal(a.conns, 64);
	assert_string_equal(a.fmt_name, "sda");
	assert_false(a.fmt_all);
	/* Options after the argument: it is moved behind them. */
	assert_int_equal(first, 12);
}

static void test_argument_after_options(void **state)
{
	const char *w[] = { "show", "--format", "csv", "3", "--allow-format", NULL };
	struct args a;
	struct err e;
	int first;

	(void)state;
	assert_int_equal(parse(OPT_ALL, w, &a, &first, &e), 0);
	assert_true(a.fmt_all);
	assert_null(a.fmt_name);
	assert_int_equal(first, 4);
}

/* An option of the table that the command does not take is refused by name, whatever its
 * spelling, and nothing after it is taken. */
static void test_mask_refuses(void **state)
{
	const uint64_t mask = OPT_BIT(T_DB) | OPT_BIT(T_LIMIT) | OPT_BIT(T_HELP);
	const char *w1[] = { "history", "--dry-run", NULL };
	const char *w2[] = { "history", "--limit", "3", "-f", "json", "--db", "y", NULL };
	const char *w3[] = { "history", "--dry", NULL }; /* an abbreviation */
	const char *w4[] = { "history", "--db", "d", "--limit", "2", "-h", NULL };
	struct args a;
	struct err e;
	int first, i;

	(void)state;
	assert_int_equal(parse(mask, w1, &a, &first, &e), -1);
	assert_string_equal(e.msg, "history does not take --dry-run");
	assert_int_equal(e.code, ERR_USAGE);
	assert_false(a.dry_run);
	assert_int_equal(parse(mask, w2, &a, &first, &e), -1);
	assert_string_equal(e.msg, "history does not take --format");
	assert_null(a.db);
	assert_int_equal(parse(mask, w3, &a, &first, &e), -1);
	assert_string_equal(e.msg, "history does not take --dry-run");
	assert_int_equal(parse(mask, w4, &a, &first, &e), 0);
	assert_true(a.help);
	/* Every option outside the mask, one at a time. */
	for (i = 0; i < T_N; i++) {
		const char *w[] = { "history", NULL, "v", NULL };
		char spelled[64], want[96];

		if (mask & OPT_BIT(i))
			continue;
		snprintf(spelled, sizeof(spelled), "--%s", table[i].name);
		w[1] = spelled;
		if (table[i].has_arg != OPT_REQUIRED)
			w[2] = NULL;
		assert_int_equal(parse(mask, w, &a, &first, &e), -1);
		snprintf(want, sizeof(want), "history does not take --%s", table[i].name);
		assert_string_equal(e.msg, want);
	}
}

static void test_bad_words(void **state)
{
	static const struct {
		const char *w[4];
		const char *msg;
	} cases[] = {
		{ { "x", "--bogus", NULL }, "unknown option '--bogus'" },
		{ { "x", "-z", NULL }, "unknown option '-z'" },
		{ { "x", "--db", NULL }, "--db needs a value (--db PATH)" },
		{ { "x", "-f", NULL }, "--format needs a value (--format FORMAT)" },
		{ { "x", "--dry-run=1", NULL }, "--dry-run takes no value ('--dry-run=1')" },
		{ { "x", "--limit", "0", NULL }, "--limit: '0' is not a positive integer" },
		{ { "x", "--limit", "1x", NULL }, "--limit: '1x' is not a positive integer" },
		{ { "x", "--level", "10", NULL }, "--level: '10' is not an integer in 0..9" },
		{ { "x", "--conns", "15", NULL },
		  "--conns: '15' is not an integer in 16..1048576" },
	};
	struct args a;
	struct err e;
	size_t i;
	int first;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(parse(OPT_ALL, cases[i].w, &a, &first, &e), -1);
		assert_string_equal(e.msg, cases[i].msg);
	}
}

/* A second parse starts from argv[1] again (getopt's state is reset). */
static void test_parse_twice(void **state)
{
	const char *w[] = { "x", "--limit", "5", "arg", NULL };
	struct args a;
	struct err e;
	int first;

	(void)state;
	assert_int_equal(parse(OPT_ALL, w, &a, &first, &e), 0);
	assert_int_equal(parse(OPT_ALL, w, &a, &first, &e), 0);
	assert_int_equal(a.limit, 5);
	assert_int_equal(first, 3);
}

/* --help and the synopsis: the options of the mask, from the table. */
static void test_help_and_synopsis(void **state)
{
	const uint64_t mask = OPT_BIT(T_DB) | OPT_BIT(T_FORMAT) | OPT_BIT(T_FMT) | OPT_BIT(T_HELP);
	struct buf b = BUF_INIT;
	char text[1024];
	FILE *f = fmemopen(text, sizeof(text), "w");

	(void)state;
	opt_help_print(f, table, T_N, mask, 24);
	fclose(f);
	assert_string_equal(text, "  --db PATH             the database\n"
	                          "  -f, --format FORMAT   the format\n"
	                          "                        second line\n"
	                          "  --allow-format[=NAME] fmt\n"
	                          "  -h, --help            this text\n");
	buf_puts(&b, "cmd ARG [--format table|csv]");
	opt_synopsis(&b, table, T_N, mask & ~OPT_BIT(T_HELP), 40, 4);
	assert_string_equal(b.data, "cmd ARG [--format table|csv] [--db PATH]\n"
	                            "    [--allow-format[=NAME]]");
	assert_true(opt_named("x --db y", "db"));
	assert_false(opt_named("x --dbx y", "db"));
	assert_false(opt_named("x --db-path", "db"));
	buf_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_takes_values), cmocka_unit_test(test_argument_after_options),
		cmocka_unit_test(test_mask_refuses), cmocka_unit_test(test_bad_words),
		cmocka_unit_test(test_parse_twice),  cmocka_unit_test(test_help_and_synopsis),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
