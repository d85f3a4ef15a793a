/* test_token.c -- the token file: made once (0600, 64 hex characters, no temporary file left),
 * read back the same; an empty, short or damaged file, or one others may read, refused with a
 * message naming it and nothing rewritten. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <dirent.h>

#include "state/token.h"
#include "testutil.h"

static int files_in(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	while (d && (de = readdir(d)))
		n += de->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

static void test_made_then_read(void **state)
{
	char *dir = tu_tmpdir(), path[512], tok[128], again[128];
	struct stat st;
	struct err e;
	int made = -1;
	size_t i;

	(void)state;
	snprintf(path, sizeof(path), "%s/token", dir);
	err_clear(&e);
	assert_int_equal(token_load(path, tok, sizeof(tok), &made, &e), 0);
	assert_int_equal(made, 1);
	assert_int_equal(strlen(tok), 64);
	for (i = 0; i < 64; i++)
		assert_non_null(strchr("0123456789abcdef", tok[i]));
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(st.st_size, 65);   /* the token and a newline, whole */
	assert_int_equal(files_in(dir), 1); /* no temporary file left beside it */
	assert_int_equal(token_load(path, again, sizeof(again), &made, &e), 0);
	assert_int_equal(made, 0);
	assert_string_equal(again, tok);
	tu_rmrf(dir);
	free(dir);
}

/* What a crash after the file's creation but before its write left (before it was durable),
 * and other damage: a clear error naming the file, and the file left as it is. */
static void test_refused(void **state)
{
	static const struct {
		const char *content;
		const char *says;
	} cases[] = {
		{ "", "is empty (cut short by a crash?): remove it" },
		{ "\n", "is empty" },
		{ "short\n", "must hold 16..127 characters (it has 5)" },
		{ "0123456789abcdef\0\0\0\0", "is damaged: byte 17 is not printable ASCII" },
		{ "0123456789 abcdef\n", "is damaged: byte 11" },
		{ "0123456789abcdef\xc3\xa9\n", "is damaged: byte 17" },
	};
	char *dir = tu_tmpdir(), path[512], tok[128];
	struct stat st;
	struct err e;
	size_t k;
	int made;

	(void)state;
	snprintf(path, sizeof(path), "%s/token", dir);
	for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		FILE *f = fopen(path, "w");
		size_t len = strlen(cases[k].content);

		if (k == 3)
			len = 20; /* NUL bytes after the token */
		fwrite(cases[k].content, 1, len, f);
		fclose(f);
		chmod(path, 0600);
		err_clear(&e);
		assert_int_not_equal(token_load(path, tok, sizeof(tok), &made, &e), 0);
		assert_non_null(strstr(e.msg, path));
		if (!strstr(e.msg, cases[k].says))
			fail_msg("case %zu: '%s' lacks '%s'", k, e.msg, cases[k].says);
		assert_int_equal(made, 0);
		assert_int_equal(files_in(dir), 1);
		assert_int_equal(stat(path, &st), 0); /* left as it was */
		assert_int_equal((size_t)st.st_size, len);
	}
	/* Others may read it: refused, with the fix. */
	tu_write(dir, "token", "0123456789abcdef0123\n", 0644);
	err_clear(&e);
	assert_int_equal(token_load(path, tok, sizeof(tok), &made, &e), -EPERM);
	assert_non_null(strstr(e.msg, "has mode 0644"));
	assert_string_equal(tu_read(dir, "token"), "0123456789abcdef0123\n");
	/* A good one of the operator's own (trailing blanks dropped). */
	tu_write(dir, "token", "0123456789abcdef0123  \r\n", 0600);
	assert_int_equal(token_load(path, tok, sizeof(tok), &made, &e), 0);
	assert_string_equal(tok, "0123456789abcdef0123");
	tu_rmrf(dir);
	free(dir);
}

/* A directory the token cannot be made in: an error naming it, nothing left. */
static void test_cannot_make(void **state)
{
	char *dir = tu_tmpdir(), path[512], tok[128];
	struct err e;
	int made;

	(void)state;
	snprintf(path, sizeof(path), "%s/missing/token", dir);
	err_clear(&e);
	assert_int_not_equal(token_load(path, tok, sizeof(tok), &made, &e), 0);
	assert_non_null(strstr(e.msg, "cannot create token file"));
	assert_int_equal(made, 0);
	tu_rmrf(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_made_then_read),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_cannot_make),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
