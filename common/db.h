/* db.h -- SQLite for both binaries: open with WAL and busy_timeout, user_version migrations,
 * prepare and bind, row collection, single-row fetch, columns, BEGIN IMMEDIATE writes. Only
 * db.c includes sqlite3.h: the stores work through this header. */
#ifndef FT_DB_H
#define FT_DB_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"

/* One connection. Its statements are serialised by db_lock() where threads share it. */
struct db;
/* sqlite3.h's statement type, opaque: the db_col_* accessors read its columns. */
struct sqlite3_stmt;

/* What one program's database is, for db_open and its messages. */
struct db_kind {
	const char *schema;       /* "-- migration N" blocks (schema/NAME.sql) */
	enum err_code err_code;   /* ERR_STORE_ERROR (agent), ERR_DB_ERROR (controller) */
	const char *holds;        /* what is lost when the file is moved aside, for the message
	                             ("the restore snapshots of open sessions and running jobs") */
	unsigned int create_mode; /* 0: SQLite's default. Else a new file is created with this
	                             mode (0600), and an existing one that grants more is kept
	                             as it is, with a warning in the log */
};

/*
 * Open (creating) the database at path: WAL, synchronous=NORMAL, foreign keys, a 5 s busy
 * timeout, PRAGMA quick_check, then every "-- migration N" block of kind->schema above PRAGMA
 * user_version, one transaction each (a block that fails leaves the version before it and
 * fails the open; an existing file that moves up is logged). With kind->create_mode the file
 * is created with that mode before SQLite opens it (its -wal and -shm files take the same). Every
 * error names the file and carries kind->err_code, which later errors reuse. A file that is not a
 * database, or one quick_check finds damaged, is refused with -EUCLEAN and a message that says to
 * move it aside and what that loses (kind->holds); a directory that cannot be written is named as
 * the likely cause.
 */
int db_open(struct db **out, const char *path, const struct db_kind *kind, struct err *e);
/* NULL is fine. */
void db_close(struct db *d);
/* PRAGMA user_version, -1 if it cannot be read. */
int db_user_version(struct db *d);

/* One statement sequence or transaction at a time for callers that share d between threads. */
void db_lock(struct db *d);
void db_unlock(struct db *d);

/* Run SQL text (several statements allowed). 0 or -EIO with err filled. */
int db_exec(struct db *d, const char *sql, struct err *e);
/*
 * Prepare sql and bind one argument per character of fmt (NULL: none): 't' text (NULL binds
 * NULL), 'd' double, 'f' double where NaN or an infinity binds NULL, 'i' int, 'j' int where a
 * negative value binds NULL (an index, -1 for none), 'I' int64_t, 'n' int64_t where 0 binds
 * NULL, 'b' blob (const void *, size_t). NULL on failure. Finalize with db_finalize().
 */
struct sqlite3_stmt *db_prepare(struct db *d, const char *sql, const char *fmt, ...);
/* db_prepare() with the binds in a va_list. */
struct sqlite3_stmt *db_vprepare(struct db *d, const char *sql, const char *fmt, va_list ap);
/* Bind fmt's arguments (as db_prepare's) to st's parameters first, first + 1, ...: for SQL
 * whose parameters are known only at run time. Returns the next parameter's number, so that
 * calls chain (k = db_bind(st, k, ...)), or -EINVAL, which the next call in a chain passes
 * on (a first below 1 binds nothing). */
int db_bind(struct sqlite3_stmt *st, int first, const char *fmt, ...);
void db_finalize(struct sqlite3_stmt *st);
/* Prepare, bind and step a statement that returns no rows, inside a BEGIN IMMEDIATE
 * transaction of its own unless one is open. Returns the number of rows changed, or -EIO with
 * err naming what. */
int db_run(struct db *d, struct err *e, const char *what, const char *sql, const char *fmt, ...);
/* db_run() with the binds in a va_list. */
int db_vrun(struct db *d, struct err *e, const char *what, const char *sql, const char *fmt,
            va_list ap);
/* Run st (from db_prepare, NULL: the prepare failed) again with fresh binds (fmt as
 * db_prepare's): one statement prepared once for many rows. It must return no rows. Returns
 * the number of rows changed, or -EIO with err naming what. Does not finalize st. */
int db_rerun(struct db *d, struct sqlite3_stmt *st, struct err *e, const char *what,
             const char *fmt, ...);
/* Step st (NULL: the prepare failed) to the end, calling row(st, ctx, e) for each row; a
 * negative return from row stops and is returned. Returns the number of rows, or -EIO with
 * err naming what if a step fails. Finalizes st. */
int db_each(struct db *d, struct sqlite3_stmt *st,
            int (*row)(struct sqlite3_stmt *st, void *ctx, struct err *e), void *ctx, struct err *e,
            const char *what);
/*
 * Step st (from db_prepare; NULL means the prepare failed) to the end, filling a fresh array of
 * elem_size-byte zeroed elements with row(st, elem) per row. On failure the rows so far are
 * released with release (may be NULL), *out is NULL and -EIO comes back with err naming what.
 * Finalizes st. Caller frees *out.
 */
int db_collect(struct db *d, struct sqlite3_stmt *st, size_t elem_size,
               void (*row)(struct sqlite3_stmt *st, void *elem), void (*release)(void *elem),
               void **out, int *n, struct err *e, const char *what);
/* Step st (NULL: the prepare failed) once and fill out with row() if there is a row. Returns
 * 1 if found, 0 if not, -EIO on error. Finalizes st. */
int db_fetch_one(struct db *d, struct sqlite3_stmt *st,
                 void (*row)(struct sqlite3_stmt *st, void *elem), void *out, struct err *e,
                 const char *what);
/* BEGIN IMMEDIATE; and its end: COMMIT when rc >= 0, else ROLLBACK. Returns rc, or the
 * COMMIT's error. */
int db_tx_begin(struct db *d, struct err *e);
int db_tx_end(struct db *d, int rc, struct err *e);
/* The rowid of the last INSERT on this connection. */
int64_t db_last_insert_id(struct db *d);
/* Fill err with the connection's last error ("database error in WHAT: ...") and return -EIO. */
int db_fail(struct db *d, struct err *e, const char *what);

/* Column i of the current row. Text: "" for SQL NULL, valid until the next step. */
const char *db_col_str(struct sqlite3_stmt *st, int i);
bool db_col_null(struct sqlite3_stmt *st, int i);
int db_col_int(struct sqlite3_stmt *st, int i);
int64_t db_col_int64(struct sqlite3_stmt *st, int i);
/* 0 for SQL NULL. */
double db_col_double(struct sqlite3_stmt *st, int i);
/* NaN for SQL NULL: a figure that was not there. */
double db_col_num(struct sqlite3_stmt *st, int i);
/* Column i as bytes (NULL for SQL NULL or none), their count in *len; valid until the next
 * step. */
const void *db_col_blob(struct sqlite3_stmt *st, int i, size_t *len);
/* Column i as text into out (""), *present (may be NULL) says it was not NULL. */
void db_col_text(struct sqlite3_stmt *st, int i, char *out, size_t len, int *present);
/* Column i as a fresh heap string, NULL for SQL NULL. Caller has ownership. */
char *db_col_dup(struct sqlite3_stmt *st, int i);

#endif
