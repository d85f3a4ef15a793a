/* test_db.c -- common/db.c: a damaged file or one that is no database is refused at open with
 * a message naming the file and what to do; migrations on an existing file; binds, reruns,
 * rows and columns. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "db.h"
#include "testutil.h"

static const struct db_kind kind = {
	.schema = "-- migration 1\nCREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT);\n"
	          "CREATE INDEX t_v ON t(v);\n",
	.err_code = ERR_STORE_ERROR,
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
	assert_int_equal(e.code, ERR_STORE_ERROR);
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

/* A second block on a file at version 1 runs alone, and the rows of the first stay. */
static void test_migrate_next_block(void **state)
{
	struct db_kind two = kind;
	char *dir = tu_tmpdir(), path[600];
	struct db *d;
	struct err e;

	(void)state;
	two.schema = "-- migration 1\nCREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT);\n"
	             "CREATE INDEX t_v ON t(v);\n"
	             "-- migration 2\nALTER TABLE t ADD COLUMN w INTEGER NOT NULL DEFAULT 7;\n";
	snprintf(path, sizeof(path), "%s/x.db", dir);
	make_db(path);
	assert_int_equal(db_open(&d, path, &two, &e), 0);
	assert_int_equal(db_user_version(d), 2);
	assert_int_equal(db_run(d, &e, "update", "UPDATE t SET w = w + 1 WHERE w = 7", NULL), 2000);
	db_close(d);
	tu_rmrf(dir);
	free(dir);
}

struct row {
	int64_t id;
	char *v;
	double x;
	int k;
	bool x_null, k_null;
};

static int row_read(struct sqlite3_stmt *st, void *ctx, struct err *e)
{
	struct row *rows = ctx;
	int64_t id = db_col_int64(st, 0);

	(void)e;
	if (id > 3)
		return -ERANGE; /* stops the walk */
	rows[id].id = id;
	rows[id].v = db_col_dup(st, 1);
	rows[id].x = db_col_num(st, 2);
	rows[id].x_null = db_col_null(st, 2);
	rows[id].k = db_col_null(st, 3) ? -1 : db_col_int(st, 3);
	rows[id].k_null = db_col_null(st, 3);
	assert_string_equal(db_col_str(st, 1), rows[id].v ? rows[id].v : "");
	assert_true(db_col_double(st, 2) == (rows[id].x_null ? 0 : rows[id].x));
	return 0;
}

/* One statement prepared once and run for many rows, 'f' and 'j' binding NULL for "none", and
 * the rows walked back with the column readers. */
static void test_rerun_each_columns(void **state)
{
	static const struct db_kind k = {
		.schema = "-- migration 1\nCREATE TABLE r (id INTEGER PRIMARY KEY, v TEXT, x REAL, "
		          "k INTEGER);\n",
		.err_code = ERR_DB_ERROR,
		.holds = "the rows",
	};
	static const double xs[] = { 1.5, NAN, INFINITY, -2.25 };
	static const int ks[] = { 0, -1, 5, -7 };
	struct row rows[4] = { 0 };
	struct sqlite3_stmt *q;
	struct db *d;
	struct err e = { 0 };
	int i;

	(void)state;
	assert_int_equal(db_open(&d, ":memory:", &k, &e), 0);
	assert_int_equal(db_tx_begin(d, &e), 0);
	q = db_prepare(d, "INSERT INTO r(id, v, x, k) VALUES (?,?,?,?)", NULL);
	assert_non_null(q);
	for (i = 0; i < 4; i++)
		assert_int_equal(db_rerun(d, q, &e, "insert r", "Itfj", (int64_t)i,
		                          i == 1 ? NULL : "text", xs[i], ks[i]),
		                 1);
	/* A second row 0: the constraint fails, named. */
	assert_int_equal(db_rerun(d, q, &e, "insert r", "Itfj", (int64_t)0, "x", 0.0, 0), -EIO);
	assert_int_equal(e.code, ERR_DB_ERROR);
	assert_non_null(strstr(e.msg, "database error in insert r: UNIQUE constraint failed"));
	db_finalize(q);
	assert_int_equal(db_tx_end(d, 0, &e), 0);
	assert_int_equal(db_each(d, db_prepare(d, "SELECT id, v, x, k FROM r ORDER BY id", NULL),
	                         row_read, rows, &e, "select r"),
	                 4);
	assert_string_equal(rows[0].v, "text");
	assert_null(rows[1].v);
	assert_true(rows[0].x == 1.5 && !rows[0].x_null);
	assert_true(isnan(rows[1].x) && rows[1].x_null);
	assert_true(isnan(rows[2].x) && rows[2].x_null); /* an infinity is no figure either */
	assert_true(rows[3].x == -2.25);
	assert_true(rows[0].k == 0 && !rows[0].k_null);
	assert_true(rows[1].k == -1 && rows[1].k_null);
	assert_true(rows[2].k == 5);
	assert_true(rows[3].k_null);
	for (i = 0; i < 4; i++)
		free(rows[i].v);
	/* A row callback's error stops the walk and comes back. */
	assert_int_equal(db_run(d, &e, "insert", "INSERT INTO r(id) VALUES (?)", "I", (int64_t)9),
	                 1);
	memset(rows, 0, sizeof(rows));
	assert_int_equal(db_each(d,
	                         db_prepare(d, "SELECT id, v, x, k FROM r ORDER BY id DESC", NULL),
	                         row_read, rows, &e, "select r"),
	                 -ERANGE);
	/* A statement that did not prepare is the error, named. */
	assert_int_equal(db_each(d, db_prepare(d, "SELECT nope FROM r", NULL), row_read, rows, &e,
	                         "select nope"),
	                 -EIO);
	assert_non_null(strstr(e.msg, "database error in select nope: no such column: nope"));
	assert_int_equal(db_rerun(d, NULL, &e, "rerun", NULL), -EIO);
	db_close(d);
}

static void blob_row(struct sqlite3_stmt *st, void *elem)
{
	size_t n;
	const void *b = db_col_blob(st, 0, &n);

	assert_int_equal(n, 5);
	memcpy(elem, b, n);
}

/* Binds chained over SQL built at run time, a failure passed down the chain, and a blob with
 * a NUL in it read back whole. */
static void test_bind_chain_blob(void **state)
{
	static const struct db_kind k = {
		.schema = "-- migration 1\nCREATE TABLE b (a TEXT, x REAL, c BLOB);\n",
		.err_code = ERR_DB_ERROR,
		.holds = "the rows",
	};
	struct sqlite3_stmt *q;
	struct db *d;
	struct err e = { 0 };
	char got[5];
	int i;

	(void)state;
	assert_int_equal(db_open(&d, ":memory:", &k, &e), 0);
	q = db_prepare(d, "INSERT INTO b VALUES (?, ?, ?)", NULL);
	i = db_bind(q, 1, "t", "one");
	assert_int_equal(i, 2);
	i = db_bind(q, i, "db", 2.5, "ab\0cd", (size_t)5);
	assert_int_equal(i, 4);
	assert_int_equal(db_rerun(d, q, &e, "insert", "tdb", "one", 2.5, "ab\0cd", (size_t)5), 1);
	/* One parameter too many: the failure runs down the chain. */
	i = db_bind(q, 3, "tt", "x", "y");
	assert_int_equal(i, -EINVAL);
	assert_int_equal(db_bind(q, i, "t", "z"), -EINVAL);
	assert_int_equal(db_bind(q, 1, "?", "z"), -EINVAL); /* no such bind type */
	db_finalize(q);
	assert_int_equal(db_fetch_one(d,
	                              db_prepare(d, "SELECT c FROM b WHERE a = ? AND x > ?", "td",
	                                         "one", 2.0),
	                              blob_row, got, &e, "select"),
	                 1);
	assert_memory_equal(got, "ab\0cd", 5);
	db_close(d);
}

/* Run db_open on path with kind k, its stderr (the log) into log[len]. */
static int open_logged(const char *path, const struct db_kind *k, char *log, size_t len)
{
	char tmpl[] = "/tmp/ft-test-db-log-XXXXXX";
	int fd = mkstemp(tmpl), saved = dup(2), rc;
	struct db *d;
	struct err e;
	ssize_t n;

	assert_true(fd >= 0 && saved >= 0);
	fflush(stderr);
	dup2(fd, 2);
	rc = db_open(&d, path, k, &e);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	n = pread(fd, log, len - 1, 0);
	log[n > 0 ? n : 0] = '\0';
	close(fd);
	unlink(tmpl);
	if (!rc) {
		assert_true(db_run(d, &e, "insert", "INSERT INTO t(v) VALUES(?)", "t", "x") == 1);
		db_close(d);
	}
	return rc;
}

static unsigned int mode_of(const char *path)
{
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	return st.st_mode & 0777;
}

/* create_mode: a new file (and its -wal) is made 0600 whatever the umask; an existing wider
 * file is kept as it is and the log names it; without create_mode SQLite's default holds. */
static void test_create_mode(void **state)
{
	char *dir = tu_tmpdir(), path[600], wal[620], log[2048];
	struct db_kind priv = kind;
	mode_t old = umask(0);

	(void)state;
	priv.create_mode = 0600;
	snprintf(path, sizeof(path), "%s/private.db", dir);
	snprintf(wal, sizeof(wal), "%s-wal", path);
	assert_int_equal(open_logged(path, &priv, log, sizeof(log)), 0);
	assert_int_equal(mode_of(path), 0600);
	assert_null(strstr(log, "is mode"));
	if (access(wal, F_OK) == 0)
		assert_int_equal(mode_of(wal), 0600);

	/* An existing file that others may read: left as it is, with a warning naming it. */
	snprintf(path, sizeof(path), "%s/wide.db", dir);
	assert_int_equal(open_logged(path, &kind, log, sizeof(log)), 0);
	assert_int_equal(chmod(path, 0644), 0);
	assert_int_equal(open_logged(path, &priv, log, sizeof(log)), 0);
	assert_int_equal(mode_of(path), 0644);
	assert_non_null(strstr(log, "is mode 0644: group or others may read it"));
	assert_non_null(strstr(log, path));
	assert_non_null(strstr(log, "chmod 600"));

	/* Without create_mode: SQLite's own default (0644 under umask 0). */
	snprintf(path, sizeof(path), "%s/plain.db", dir);
	assert_int_equal(open_logged(path, &kind, log, sizeof(log)), 0);
	assert_int_equal(mode_of(path), 0644);
	umask(old);
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
		cmocka_unit_test(test_migrate_next_block),
		cmocka_unit_test(test_rerun_each_columns),
		cmocka_unit_test(test_bind_chain_blob),
		cmocka_unit_test(test_create_mode),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
