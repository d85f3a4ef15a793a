/* test_db.c -- common/db.c: a damaged file or one that is no database is refused at open with
 * a message naming the file and what to do; migrations on an existing file. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"
#include "db.h"

static const struct db_kind kind = {
	.schema = "-- migration 1\nCREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT);\n"
	          "CREATE INDEX t_v ON t(v);\n",
	.err_code = "store_error",
	.holds = "the test rows",
};

/* A database of several pages: a table and an index, 2000 rows. */
static void make_db(const char *path)
{
	struct db *d;
	struct err e;
	int i;

	assert_int_equal(db_open(&d, path, &kind, &e), 0);
	assert_int_equal(db_exec(d, "BEGIN", &e), 0);
	for (i = 0; i < 2000; i++)
		assert_true(db_run(d, &e, "insert", "INSERT INTO t(v) VALUES(?)", "t",
		                   "some text to fill the pages of the table") == 1);
	assert_int_equal(db_exec(d, "COMMIT", &e), 0);
	db_close(d); /* the last connection: the WAL goes into the file */
}

/* Overwrite len bytes of path at offset with garbage. */
static void scribble(const char *path, off_t offset, size_t len)
{
	char *junk = malloc(len);
	int fd = open(path, O_WRONLY);
	size_t i;

	assert_true(fd >= 0);
	for (i = 0; i < len; i++)
		junk[i] = (char)(0x5a ^ (i * 131));
	assert_int_equal(pwrite(fd, junk, len, offset), (ssize_t)len);
	close(fd);
	free(junk);
}

static void test_open_migrate(void **state)
{
	char *dir = tu_tmpdir(), path[600];
	struct db *d;
	struct err e;

	(void)state;
	snprintf(path, sizeof(path), "%s/x.db", dir);
	make_db(path);
	assert_int_equal(db_open(&d, path, &kind, &e), 0);
	assert_int_equal(db_user_version(d), 1);
	db_close(d);
	tu_rmrf(dir);
	free(dir);
}

/* The case: garbage in pages 2 and up. */
static void test_damaged_refused(void **state)
{
	char *dir = tu_tmpdir(), path[600];
	struct db *d = (struct db *)1;
	struct err e;

	(void)state;
	snprintf(path, sizeof(path), "%s/x.db", dir);
	make_db(path);
	scribble(path, 4096, 3 * 4096);
	err_clear(&e);
	assert_int_equal(db_open(&d, path, &kind, &e), -EUCLEAN);
	assert_null(d);
	assert_string_equal(e.code, "store_error");
	assert_non_null(strstr(e.msg, path));
	assert_non_null(strstr(e.msg, "is damaged: move it aside"));
	assert_non_null(strstr(e.msg, "the test rows it holds are lost"));
	tu_rmrf(dir);
	free(dir);
}

/* Page 1 gone too: not a database at all. */
static void test_not_a_database(void **state)
{
	char *dir = tu_tmpdir(), path[600];
	struct db *d;
	struct err e;

	(void)state;
	snprintf(path, sizeof(path), "%s/x.db", dir);
	tu_write(dir, "x.db",
	         "this is a text file, not an SQLite database, and it is long enough "
	         "to have a header that SQLite reads and refuses.\n",
	         0600);
	err_clear(&e);
	assert_int_equal(db_open(&d, path, &kind, &e), -EUCLEAN);
	assert_non_null(strstr(e.msg, path));
	assert_non_null(strstr(e.msg, "move it aside"));
	assert_non_null(strstr(e.msg, "not a database"));
	tu_rmrf(dir);
	free(dir);
}

static void test_no_directory(void **state)
{
	char *dir = tu_tmpdir(), path[600];
	struct db *d;
	struct err e;

	(void)state;
	snprintf(path, sizeof(path), "%s/missing/x.db", dir);
	err_clear(&e);
	assert_int_equal(db_open(&d, path, &kind, &e), -EIO);
	assert_non_null(strstr(e.msg, path));
	assert_non_null(strstr(e.msg, "cannot open database"));
	tu_rmrf(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_open_migrate),
		cmocka_unit_test(test_damaged_refused),
		cmocka_unit_test(test_not_a_database),
		cmocka_unit_test(test_no_directory),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
