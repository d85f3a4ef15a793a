/* store.c -- the agent's SQLite: migrations, audit log, sessions (jobs in store_job.c). */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "migration.h"
#include "store.h"
#include "store_priv.h"
#include "xmalloc.h"
#include "banned.h"

extern const char agent_schema_sql[];

static int db_fail(struct store *s, struct err *e, const char *what)
{
	return err_set(e, -EIO, "store_error", "database error in %s: %s", what,
	               sqlite3_errmsg(s->db));
}

int store_exec(struct store *s, const char *sql, struct err *e)
{
	char *msg = NULL;
	int rc;

	rc = sqlite3_exec(s->db, sql, NULL, NULL, &msg);
	if (rc != SQLITE_OK) {
		err_set(e, -EIO, "store_error", "database error: %s", msg ? msg : "?");
		sqlite3_free(msg);
		return -EIO;
	}
	return 0;
}

static sqlite3_stmt *store_vprepare(struct store *s, const char *sql, const char *fmt, va_list ap)
{
	sqlite3_stmt *st = NULL;
	int i, ok = 1;

	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		return NULL;
	for (i = 0; fmt && fmt[i] && ok; i++) {
		int k = i + 1, r = SQLITE_OK;

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
		case 'i':
			r = sqlite3_bind_int(st, k, va_arg(ap, int));
			break;
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
	if (!ok) {
		sqlite3_finalize(st);
		return NULL;
	}
	return st;
}

sqlite3_stmt *store_prepare(struct store *s, const char *sql, const char *fmt, ...)
{
	sqlite3_stmt *st;
	va_list ap;

	va_start(ap, fmt);
	st = store_vprepare(s, sql, fmt, ap);
	va_end(ap);
	return st;
}

int store_run(struct store *s, struct err *e, const char *what, const char *sql, const char *fmt,
              ...)
{
	bool own_tx = sqlite3_get_autocommit(s->db) != 0;
	sqlite3_stmt *st;
	va_list ap;
	int rc;

	/* Every write runs in a BEGIN IMMEDIATE transaction: ours if the caller has none. */
	if (own_tx && store_tx_begin(s, e))
		return -EIO;
	va_start(ap, fmt);
	st = store_vprepare(s, sql, fmt, ap);
	va_end(ap);
	if (!st || sqlite3_step(st) != SQLITE_DONE)
		rc = db_fail(s, e, what);
	else
		rc = sqlite3_changes(s->db);
	sqlite3_finalize(st);
	return own_tx ? store_tx_end(s, rc, e) : rc;
}

int store_collect(struct store *s, sqlite3_stmt *st, size_t elem_size,
                  void (*row)(sqlite3_stmt *st, void *elem), void (*release)(void *elem),
                  void **out, int *n, struct err *e, const char *what)
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
		return db_fail(s, e, what);
	}
	*out = list;
	*n = count;
	return 0;
}

int store_fetch_one(struct store *s, sqlite3_stmt *st, void (*row)(sqlite3_stmt *st, void *elem),
                    void *out, struct err *e, const char *what)
{
	int r = st ? sqlite3_step(st) : SQLITE_ERROR, rc;

	if (r == SQLITE_ROW) {
		row(st, out);
		rc = 1;
	} else {
		rc = r == SQLITE_DONE ? 0 : db_fail(s, e, what);
	}
	sqlite3_finalize(st);
	return rc;
}

int store_tx_begin(struct store *s, struct err *e)
{
	return store_exec(s, "BEGIN IMMEDIATE", e);
}

int store_tx_end(struct store *s, int rc, struct err *e)
{
	if (rc < 0) {
		store_exec(s, "ROLLBACK", NULL);
		return rc;
	}
	return store_exec(s, "COMMIT", e) ? -EIO : rc;
}

static int user_version(struct store *s)
{
	sqlite3_stmt *st;
	int v = -1;

	if (sqlite3_prepare_v2(s->db, "PRAGMA user_version", -1, &st, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return v;
}

/* Apply every "-- migration N" block of the schema with N above user_version. */
static int migrate(struct store *s, struct err *e)
{
	struct migration *m;
	int n, i, rc = 0;

	n = migrations_pending(agent_schema_sql, user_version(s), &m);
	for (i = 0; i < n && !rc; i++) {
		rc = store_exec(s, m[i].sql, e);
		if (rc)
			store_exec(s, "ROLLBACK", NULL);
		else
			log_info("database migrated to schema version %d", m[i].version);
	}
	migrations_free(m, n);
	return rc;
}

int store_open(struct store **out, const char *path, struct err *e)
{
	struct store *s = xcalloc(1, sizeof(*s));
	int rc;

	pthread_mutex_init(&s->lock, NULL);
	if (sqlite3_open_v2(path, &s->db,
	                    SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX,
	                    NULL) != SQLITE_OK) {
		rc = err_set(e, -EIO, "store_error", "cannot open database '%s': %s", path,
		             s->db ? sqlite3_errmsg(s->db) : "out of memory");
		goto fail;
	}
	sqlite3_busy_timeout(s->db, 5000);
	rc = store_exec(s,
	                "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; "
	                "PRAGMA foreign_keys=ON;",
	                e);
	if (rc)
		goto fail;
	rc = migrate(s, e);
	if (rc)
		goto fail;
	*out = s;
	return 0;
fail:
	store_close(s);
	return rc;
}

void store_close(struct store *s)
{
	if (!s)
		return;
	sqlite3_close(s->db);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

int store_schema_version(struct store *s)
{
	int v;

	pthread_mutex_lock(&s->lock);
	v = user_version(s);
	pthread_mutex_unlock(&s->lock);
	return v;
}

void store_bind_text(sqlite3_stmt *st, int i, const char *v)
{
	if (v)
		sqlite3_bind_text(st, i, v, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, i);
}

void store_col_text(sqlite3_stmt *st, int i, char *out, size_t len, int *present)
{
	const unsigned char *v = sqlite3_column_text(st, i);

	if (present)
		*present = v != NULL;
	snprintf(out, len, "%s", v ? (const char *)v : "");
}

int store_change_add(struct store *s, const struct tune_change *c, double at)
{
	struct err e;
	int rc;

	pthread_mutex_lock(&s->lock);
	rc = store_run(s, &e, "change insert",
	               "INSERT INTO changes(at, device, name, previous, requested, applied, "
	               "outcome, origin, message) VALUES(?,?,?,?,?,?,?,?,?)",
	               "dttttttt", at, c->device ? c->device : "", c->name, c->previous,
	               c->requested, c->applied, c->outcome, c->origin ? c->origin : "",
	               c->message);
	pthread_mutex_unlock(&s->lock);
	if (rc < 0)
		log_error("cannot record change of %s: %s", c->name, e.msg);
	return rc < 0 ? rc : 0;
}

static void change_from_row(sqlite3_stmt *st, void *elem)
{
	struct change_rec *c = elem;

	c->id = sqlite3_column_int64(st, 0);
	c->at = sqlite3_column_double(st, 1);
	store_col_text(st, 2, c->device, sizeof(c->device), NULL);
	store_col_text(st, 3, c->name, sizeof(c->name), NULL);
	store_col_text(st, 4, c->previous, sizeof(c->previous), &c->has_previous);
	store_col_text(st, 5, c->requested, sizeof(c->requested), &c->has_requested);
	store_col_text(st, 6, c->applied, sizeof(c->applied), &c->has_applied);
	store_col_text(st, 7, c->outcome, sizeof(c->outcome), NULL);
	store_col_text(st, 8, c->origin, sizeof(c->origin), NULL);
	store_col_text(st, 9, c->message, sizeof(c->message), &c->has_message);
}

int store_changes_list(struct store *s, const char *device, int limit, struct change_rec **out,
                       int *n, struct err *e)
{
	sqlite3_stmt *st;
	int rc;

	pthread_mutex_lock(&s->lock);
	st = store_prepare(s,
	                   "SELECT id, at, device, name, previous, requested, applied, outcome, "
	                   "origin, message FROM changes WHERE (?1 IS NULL OR device = ?1) "
	                   "ORDER BY id DESC LIMIT ?2",
	                   "ti", device, limit);
	rc = store_collect(s, st, sizeof(**out), change_from_row, NULL, (void **)out, n, e,
	                   "changes");
	pthread_mutex_unlock(&s->lock);
	return rc;
}

static void session_from_row(sqlite3_stmt *st, void *elem)
{
	struct session_rec *r = elem;

	const unsigned char *snap;

	memset(r, 0, sizeof(*r));
	r->id = sqlite3_column_int64(st, 0);
	store_col_text(st, 1, r->device, sizeof(r->device), NULL);
	r->created_at = sqlite3_column_double(st, 2);
	r->ttl_s = sqlite3_column_int64(st, 3);
	r->expires_at = sqlite3_column_double(st, 4);
	store_col_text(st, 5, r->state, sizeof(r->state), NULL);
	r->ended_at = sqlite3_column_double(st, 6);
	store_col_text(st, 7, r->end_reason, sizeof(r->end_reason), NULL);
	store_col_text(st, 8, r->restore_outcome, sizeof(r->restore_outcome), NULL);
	snap = sqlite3_column_text(st, 9);
	r->snapshot = xstrdup(snap ? (const char *)snap : "{}");
}

#define SESSION_COLS                                                                               \
	"id, device, created_at, ttl_s, expires_at, state, ended_at, end_reason, "                 \
	"restore_outcome, snapshot"

int store_session_insert(struct store *s, struct session_rec *rec, struct err *e)
{
	int rc;

	pthread_mutex_lock(&s->lock);
	rc = store_run(s, e, "session insert",
	               "INSERT INTO sessions(device, created_at, ttl_s, expires_at, state, "
	               "snapshot) VALUES(?,?,?,?,'open',?)",
	               "tdIdt", rec->device, rec->created_at, rec->ttl_s, rec->expires_at,
	               rec->snapshot);
	if (rc > 0) {
		rec->id = sqlite3_last_insert_rowid(s->db);
		snprintf(rec->state, sizeof(rec->state), "open");
	}
	pthread_mutex_unlock(&s->lock);
	return rc < 0 ? rc : 0;
}

int store_session_get(struct store *s, int64_t id, struct session_rec *rec, struct err *e)
{
	sqlite3_stmt *st;
	int rc;

	memset(rec, 0, sizeof(*rec));
	pthread_mutex_lock(&s->lock);
	st = store_prepare(s, "SELECT " SESSION_COLS " FROM sessions WHERE id = ?", "I", id);
	rc = store_fetch_one(s, st, session_from_row, rec, e, "session get");
	pthread_mutex_unlock(&s->lock);
	if (rc == 0)
		return err_set(e, -ENOENT, "not_found", "no session %lld", (long long)id);
	return rc < 0 ? rc : 0;
}

static void session_release_elem(void *elem)
{
	store_session_rec_release(elem);
}

int store_sessions_list(struct store *s, const char *state, const char *device,
                        struct session_rec **out, int *n, struct err *e)
{
	sqlite3_stmt *st;
	int rc;

	pthread_mutex_lock(&s->lock);
	st = store_prepare(s,
	                   "SELECT " SESSION_COLS " FROM sessions WHERE (?1 IS NULL OR state = ?1) "
	                   "AND (?2 IS NULL OR device = ?2) ORDER BY id DESC LIMIT 1000",
	                   "tt", state, device);
	rc = store_collect(s, st, sizeof(**out), session_from_row, session_release_elem,
	                   (void **)out, n, e, "sessions");
	pthread_mutex_unlock(&s->lock);
	return rc;
}

/* Rows changed by an update of an open session: none means no such open session. */
static int open_session_updated(int rc, int64_t id, struct err *e)
{
	if (rc == 0)
		return err_set(e, -ENOENT, "not_found", "no open session %lld", (long long)id);
	return rc < 0 ? rc : 0;
}

int store_session_renew(struct store *s, int64_t id, double expires_at, struct err *e)
{
	int rc;

	pthread_mutex_lock(&s->lock);
	rc = store_run(s, e, "session renew",
	               "UPDATE sessions SET expires_at = ? WHERE id = ? AND state = 'open'", "dI",
	               expires_at, id);
	pthread_mutex_unlock(&s->lock);
	return open_session_updated(rc, id, e);
}

int store_session_end(struct store *s, int64_t id, const char *state, double ended_at,
                      const char *reason, const char *outcome, struct err *e)
{
	int rc;

	pthread_mutex_lock(&s->lock);
	rc = store_run(s, e, "session end",
	               "UPDATE sessions SET state = ?, ended_at = ?, end_reason = ?, "
	               "restore_outcome = ? WHERE id = ? AND state = 'open'",
	               "tdttI", state, ended_at, reason, outcome, id);
	pthread_mutex_unlock(&s->lock);
	return open_session_updated(rc, id, e);
}

void store_session_rec_release(struct session_rec *rec)
{
	if (!rec)
		return;
	free(rec->snapshot);
	rec->snapshot = NULL;
}

void store_sessions_free(struct session_rec *list, int n)
{
	int i;

	for (i = 0; i < n; i++)
		store_session_rec_release(&list[i]);
	free(list);
}
