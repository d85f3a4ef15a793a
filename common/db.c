/* db.c -- the SQLite helper both stores use: open, migrate, prepare/bind, rows, transactions. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "db.h"
#include "log.h"
#include "utf8.h"
#include "xmalloc.h"
#include "banned.h"

struct db {
	sqlite3 *conn;
	pthread_mutex_t lock;
	char path[512];
	enum err_code err_code;
};

int db_fail(struct db *d, struct err *e, const char *what)
{
	return err_set(e, -EIO, d->err_code, "database error in %s: %s", what,
	               sqlite3_errmsg(d->conn));
}

int db_exec(struct db *d, const char *sql, struct err *e)
{
	char *msg = NULL;

	if (sqlite3_exec(d->conn, sql, NULL, NULL, &msg) != SQLITE_OK) {
		err_set(e, -EIO, d->err_code, "database error: %s", msg ? msg : "?");
		sqlite3_free(msg);
		return -EIO;
	}
	return 0;
}

/* Bind one argument per character of fmt (db.h) to st's parameters first, first + 1, ...;
 * false if one could not be bound. */
static bool bind(sqlite3_stmt *st, int first, const char *fmt, va_list ap)
{
	int i, ok = 1;

	for (i = 0; fmt && fmt[i] && ok; i++) {
		int k = first + i, r;

		switch (fmt[i]) {
		case 't': {
			const char *v = va_arg(ap, const char *);

			r = v ? sqlite3_bind_text(st, k, v, -1, SQLITE_TRANSIENT)
			      : sqlite3_bind_null(st, k);
			break;
		}
		case 'd':
			r = sqlite3_bind_double(st, k, va_arg(ap, double));
			break;
		case 'f': {
			double v = va_arg(ap, double);

			r = isfinite(v) ? sqlite3_bind_double(st, k, v) : sqlite3_bind_null(st, k);
			break;
		}
		case 'i':
			r = sqlite3_bind_int(st, k, va_arg(ap, int));
			break;
		case 'j': {
			int v = va_arg(ap, int);

			r = v >= 0 ? sqlite3_bind_int(st, k, v) : sqlite3_bind_null(st, k);
			break;
		}
		case 'I':
			r = sqlite3_bind_int64(st, k, va_arg(ap, int64_t));
			break;
		case 'n': {
			int64_t v = va_arg(ap, int64_t);

			r = v ? sqlite3_bind_int64(st, k, v) : sqlite3_bind_null(st, k);
			break;
		}
		case 'b': {
			const void *p = va_arg(ap, const void *);
			size_t n = va_arg(ap, size_t);

			r = p ? sqlite3_bind_blob64(st, k, p, n, SQLITE_TRANSIENT)
			      : sqlite3_bind_null(st, k);
			break;
		}
		default:
			r = SQLITE_MISUSE;
		}
		ok = r == SQLITE_OK;
	}
	return ok;
}

sqlite3_stmt *db_vprepare(struct db *d, const char *sql, const char *fmt, va_list ap)
{
	sqlite3_stmt *st = NULL;

	if (sqlite3_prepare_v2(d->conn, sql, -1, &st, NULL) != SQLITE_OK)
		return NULL;
	if (!bind(st, 1, fmt, ap)) {
		sqlite3_finalize(st);
		return NULL;
	}
	return st;
}

sqlite3_stmt *db_prepare(struct db *d, const char *sql, const char *fmt, ...)
{
	sqlite3_stmt *st;
	va_list ap;

	va_start(ap, fmt);
	st = db_vprepare(d, sql, fmt, ap);
	va_end(ap);
	return st;
}

int db_bind(sqlite3_stmt *st, int first, const char *fmt, ...)
{
	va_list ap;
	bool ok;

	if (!st || first < 1)
		return -EINVAL;
	va_start(ap, fmt);
	ok = bind(st, first, fmt, ap);
	va_end(ap);
	return ok ? first + (int)strlen(fmt) : -EINVAL;
}

void db_finalize(sqlite3_stmt *st)
{
	sqlite3_finalize(st);
}

int db_vrun(struct db *d, struct err *e, const char *what, const char *sql, const char *fmt,
            va_list ap)
{
	bool own_tx = sqlite3_get_autocommit(d->conn) != 0;
	sqlite3_stmt *st;
	int rc;

	/* Every write runs in a BEGIN IMMEDIATE transaction: ours if the caller has none. */
	if (own_tx && db_tx_begin(d, e))
		return -EIO;
	st = db_vprepare(d, sql, fmt, ap);
	if (!st || sqlite3_step(st) != SQLITE_DONE)
		rc = db_fail(d, e, what);
	else
		rc = sqlite3_changes(d->conn);
	sqlite3_finalize(st);
	return own_tx ? db_tx_end(d, rc, e) : rc;
}

int db_run(struct db *d, struct err *e, const char *what, const char *sql, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = db_vrun(d, e, what, sql, fmt, ap);
	va_end(ap);
	return rc;
}

int db_rerun(struct db *d, sqlite3_stmt *st, struct err *e, const char *what, const char *fmt, ...)
{
	va_list ap;
	bool ok;

	if (!st)
		return db_fail(d, e, what);
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	va_start(ap, fmt);
	ok = bind(st, 1, fmt, ap);
	va_end(ap);
	if (!ok || sqlite3_step(st) != SQLITE_DONE)
		return db_fail(d, e, what);
	return sqlite3_changes(d->conn);
}

int db_each(struct db *d, sqlite3_stmt *st, int (*row)(sqlite3_stmt *st, void *ctx, struct err *e),
            void *ctx, struct err *e, const char *what)
{
	int r = SQLITE_ERROR, rc = 0, n = 0;

	while (st && (r = sqlite3_step(st)) == SQLITE_ROW) {
		rc = row(st, ctx, e);
		if (rc < 0)
			goto out;
		n++;
	}
	rc = r == SQLITE_DONE ? n : db_fail(d, e, what);
out:
	sqlite3_finalize(st);
	return rc;
}

int db_collect(struct db *d, sqlite3_stmt *st, size_t elem_size,
               void (*row)(sqlite3_stmt *st, void *elem), void (*release)(void *elem), void **out,
               int *n, struct err *e, const char *what)
{
	char *list = NULL;
	int count = 0, cap = 0, r = SQLITE_ERROR, i;

	while (st && (r = sqlite3_step(st)) == SQLITE_ROW) {
		list = xgrow(list, &cap, count + 1, elem_size);
		memset(list + (size_t)count * elem_size, 0, elem_size);
		row(st, list + (size_t)count * elem_size);
		count++;
	}
	sqlite3_finalize(st);
	if (r != SQLITE_DONE) {
		for (i = 0; release && i < count; i++)
			release(list + (size_t)i * elem_size);
		free(list);
		*out = NULL;
		*n = 0;
		return db_fail(d, e, what);
	}
	*out = list;
	*n = count;
	return 0;
}

int db_fetch_one(struct db *d, sqlite3_stmt *st, void (*row)(sqlite3_stmt *st, void *elem),
                 void *out, struct err *e, const char *what)
{
	int r = st ? sqlite3_step(st) : SQLITE_ERROR, rc;

	if (r == SQLITE_ROW) {
		row(st, out);
		rc = 1;
	} else {
		rc = r == SQLITE_DONE ? 0 : db_fail(d, e, what);
	}
	sqlite3_finalize(st);
	return rc;
}

int db_tx_begin(struct db *d, struct err *e)
{
	return db_exec(d, "BEGIN IMMEDIATE", e);
}

int db_tx_end(struct db *d, int rc, struct err *e)
{
	if (rc < 0) {
		db_exec(d, "ROLLBACK", NULL);
		return rc;
	}
	return db_exec(d, "COMMIT", e) ? -EIO : rc;
}

int64_t db_last_insert_id(struct db *d)
{
	return sqlite3_last_insert_rowid(d->conn);
}

int db_user_version(struct db *d)
{
	sqlite3_stmt *st;
	int v = -1;

	if (sqlite3_prepare_v2(d->conn, "PRAGMA user_version", -1, &st, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return v;
}

void db_lock(struct db *d)
{
	pthread_mutex_lock(&d->lock);
}

void db_unlock(struct db *d)
{
	pthread_mutex_unlock(&d->lock);
}

#define MIGRATION_MARK "-- migration "

/* One "-- migration N" block of a schema, as the script that applies it. */
struct migration {
	int version;
	char *sql; /* "BEGIN IMMEDIATE; <block> PRAGMA user_version = N; COMMIT;" */
};

/* The blocks of schema with N above have (PRAGMA user_version), in file order. Returns how
 * many; the caller frees each sql and the array. */
static int migrations_pending(const char *schema, int have, struct migration **out)
{
	const char *p = schema, *next;
	struct migration *list = NULL;
	int n = 0, cap = 0, v;
	char *block;

	while ((p = strstr(p, MIGRATION_MARK))) {
		v = (int)strtol(p + strlen(MIGRATION_MARK), NULL, 10);
		next = strstr(p + strlen(MIGRATION_MARK), MIGRATION_MARK);
		if (v > have) {
			block = next ? xstrndup(p, (size_t)(next - p)) : xstrdup(p);
			list = xgrow(list, &cap, n + 1, sizeof(*list));
			list[n].version = v;
			list[n].sql = xasprintf("BEGIN IMMEDIATE;\n%s\nPRAGMA user_version = %d;\n"
			                        "COMMIT;",
			                        block, v);
			free(block);
			n++;
		}
		p = next ? next : p + strlen(p);
	}
	*out = list;
	return n;
}

/* Apply every "-- migration N" block of schema with N above user_version, one transaction
 * each: a block that fails leaves the database at the version before it. An existing file
 * that moves up is logged (a new one is not: the CLI creates one on its first run). */
static int migrate(struct db *d, const char *schema, struct err *e)
{
	int have = db_user_version(d), n, i, rc = 0;
	struct migration *m;
	struct err me;

	n = migrations_pending(schema, have, &m);
	for (i = 0; i < n && !rc; i++) {
		err_clear(&me);
		rc = db_exec(d, m[i].sql, &me);
		if (rc) {
			db_exec(d, "ROLLBACK", NULL);
			err_set(e, rc, d->err_code,
			        "cannot migrate database '%s' to version %d: %s", d->path,
			        m[i].version, me.msg);
		} else if (have > 0) {
			log_info("database %s migrated to schema version %d", d->path,
			         m[i].version);
		}
	}
	for (i = 0; i < n; i++)
		free(m[i].sql);
	free(m);
	return rc;
}

/* The error for a file that is no database or a damaged one: what to do comes first (the
 * message may be cut), then what was found. */
static int damaged(struct db *d, const char *holds, const char *found, struct err *e)
{
	log_error("database %s: %s", d->path, found);
	log_error("to start again with a new database: mv %s %s.damaged", d->path, d->path);
	return err_set(e, -EUCLEAN, d->err_code,
	               "database '%s' is damaged: move it aside and start again (a new one is "
	               "created); %s it holds are lost (%.*s)",
	               d->path, holds, utf8_cut(found, 100), found);
}

/* Why a freshly opened connection cannot be used, by SQLite's error code. */
static int open_failed(struct db *d, const char *holds, const char *why, struct err *e)
{
	int code = d->conn ? sqlite3_errcode(d->conn) : SQLITE_NOMEM;

	if (code == SQLITE_NOTADB || code == SQLITE_CORRUPT)
		return damaged(d, holds, why, e);
	if (code == SQLITE_READONLY || code == SQLITE_CANTOPEN || code == SQLITE_PERM ||
	    code == SQLITE_IOERR)
		return err_set(e, -EIO, d->err_code,
		               "cannot open database '%s': %s (can this user write the file and "
		               "its directory, and is there space?)",
		               d->path, why);
	return err_set(e, -EIO, d->err_code, "cannot open database '%s': %s", d->path, why);
}

/* PRAGMA quick_check: "ok", or the first problem it lists into problem. -EIO if it could not
 * run (the reason in problem). */
static int quick_check(struct db *d, char *problem, size_t len)
{
	sqlite3_stmt *st = NULL;
	const unsigned char *v;
	int rc = 0, r;

	if (sqlite3_prepare_v2(d->conn, "PRAGMA quick_check(1)", -1, &st, NULL) != SQLITE_OK) {
		snprintf(problem, len, "%s", sqlite3_errmsg(d->conn));
		return -EIO;
	}
	r = sqlite3_step(st);
	if (r == SQLITE_ROW) {
		char *nl;

		v = sqlite3_column_text(st, 0);
		snprintf(problem, len, "%s", v ? (const char *)v : "?");
		while ((nl = strchr(problem,
		                    '\n'))) /* one line: "*** in database main ***\nPage 2" */
			*nl = ' ';
		rc = strcmp(problem, "ok") ? -EUCLEAN : 0;
	} else {
		snprintf(problem, len, "%s", sqlite3_errmsg(d->conn));
		rc = -EIO;
	}
	sqlite3_finalize(st);
	return rc;
}

/* Create path with mode if it does not exist (SQLite takes an empty file as a new database);
 * an existing file whose mode grants more than mode is left as it is and named in a
 * warning. Errors are left to SQLite's open, which names them. */
static void file_mode_prepare(const char *path, mode_t mode)
{
	struct stat st;
	int fd;

	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
	if (fd >= 0) {
		close(fd);
		return;
	}
	if (errno != EEXIST || stat(path, &st) < 0 || !S_ISREG(st.st_mode))
		return;
	if (st.st_mode & 0777 & ~mode)
		log_warn("'%s' is mode %04o: group or others may read it; 'chmod %o %s' keeps it "
		         "private (new files are created %04o)",
		         path, (unsigned int)(st.st_mode & 0777), (unsigned int)mode, path,
		         (unsigned int)mode);
}

int db_open(struct db **out, const char *path, const struct db_kind *kind, struct err *e)
{
	struct db *d = xcalloc(1, sizeof(*d));
	char problem[512];
	struct err pe;
	int rc;

	*out = NULL;
	pthread_mutex_init(&d->lock, NULL);
	snprintf(d->path, sizeof(d->path), "%s", path);
	d->err_code = kind->err_code;
	if (kind->create_mode)
		file_mode_prepare(path, (mode_t)kind->create_mode);
	if (sqlite3_open_v2(path, &d->conn,
	                    SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX,
	                    NULL) != SQLITE_OK) {
		rc = open_failed(d, kind->holds,
		                 d->conn ? sqlite3_errmsg(d->conn) : "out of memory", e);
		goto fail;
	}
	sqlite3_busy_timeout(d->conn, 5000);
	err_clear(&pe);
	rc = db_exec(d,
	             "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; "
	             "PRAGMA foreign_keys=ON;",
	             &pe);
	if (rc) {
		rc = open_failed(d, kind->holds, sqlite3_errmsg(d->conn), e);
		goto fail;
	}
	/* Damage found now stops the program: found later, it would make writes fail one by one
	 * and recovery skip what it cannot read. */
	rc = quick_check(d, problem, sizeof(problem));
	if (rc == -EUCLEAN) {
		rc = damaged(d, kind->holds, problem, e);
		goto fail;
	}
	if (rc) {
		rc = open_failed(d, kind->holds, problem, e);
		goto fail;
	}
	rc = migrate(d, kind->schema, e);
	if (rc)
		goto fail;
	*out = d;
	return 0;
fail:
	db_close(d);
	return rc;
}

void db_close(struct db *d)
{
	if (!d)
		return;
	sqlite3_close(d->conn);
	pthread_mutex_destroy(&d->lock);
	free(d);
}

void db_col_text(sqlite3_stmt *st, int i, char *out, size_t len, int *present)
{
	const unsigned char *v = sqlite3_column_text(st, i);

	if (present)
		*present = v != NULL;
	snprintf(out, len, "%s", v ? (const char *)v : "");
}

char *db_col_dup(sqlite3_stmt *st, int i)
{
	const unsigned char *v = sqlite3_column_text(st, i);

	return v ? xstrdup((const char *)v) : NULL;
}

const char *db_col_str(sqlite3_stmt *st, int i)
{
	const unsigned char *v = sqlite3_column_text(st, i);

	return v ? (const char *)v : "";
}

bool db_col_null(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL;
}

int db_col_int(sqlite3_stmt *st, int i)
{
	return sqlite3_column_int(st, i);
}

int64_t db_col_int64(sqlite3_stmt *st, int i)
{
	return sqlite3_column_int64(st, i);
}

double db_col_double(sqlite3_stmt *st, int i)
{
	return sqlite3_column_double(st, i);
}

double db_col_num(sqlite3_stmt *st, int i)
{
	return db_col_null(st, i) ? NAN : sqlite3_column_double(st, i);
}

const void *db_col_blob(sqlite3_stmt *st, int i, size_t *len)
{
	const void *b = sqlite3_column_blob(st, i);

	*len = (size_t)sqlite3_column_bytes(st, i);
	return b;
}
