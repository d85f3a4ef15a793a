/* store.c -- the agent's SQLite: open, audit log, sessions (jobs in store_job.c). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "store/store_priv.h"
#include "wire/wire.h"
#include "xmalloc.h"
#include "banned.h"

extern const char agent_schema_sql[];

static const struct db_kind agent_db = {
	.schema = agent_schema_sql,
	.err_code = ERR_STORE_ERROR,
	.holds = "the restore snapshots of open sessions and running jobs",
	/* Its audit log names every write and request; the token is next to it. */
	.create_mode = 0600,
};

int store_open(struct store **out, const char *path, struct err *e)
{
	struct store *s = xcalloc(1, sizeof(*s));
	int rc;

	rc = db_open(&s->db, path, &agent_db, e);
	if (rc) {
		free(s);
		return rc;
	}
	*out = s;
	return 0;
}

void store_close(struct store *s)
{
	if (!s)
		return;
	db_close(s->db);
	free(s->states);
	free(s->last);
	free(s);
}

int store_schema_version(struct store *s)
{
	int v;

	db_lock(s->db);
	v = db_user_version(s->db);
	db_unlock(s->db);
	return v;
}

int store_write(struct store *s, struct err *e, const char *what, const char *sql, const char *fmt,
                ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	db_lock(s->db);
	rc = db_vrun(s->db, e, what, sql, fmt, ap);
	s->gen++;
	db_unlock(s->db);
	va_end(ap);
	return rc;
}

/* A write of the audit log: counted by outcome, not in gen (job aggregates stay valid). */
static int changes_write(struct store *s, struct err *e, const char *what, const char *from,
                         const char *to, const char *sql, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	db_lock(s->db);
	rc = db_vrun(s->db, e, what, sql, fmt, ap);
	if (rc > 0) {
		if (from)
			store_outcome_count(s, from, -1);
		store_outcome_count(s, to, +1);
	}
	db_unlock(s->db);
	va_end(ap);
	return rc;
}

void store_outcome_count(struct store *s, const char *outcome, int delta)
{
	int i;

	if (!s->outcomes_known || !outcome)
		return; /* counted in full at the first scrape */
	for (i = 0; i < s->n_outcomes; i++)
		if (!strcmp(s->outcomes[i].key, outcome))
			break;
	if (i == s->n_outcomes) {
		if (s->n_outcomes == STORE_OUTCOMES_MAX) {
			s->outcomes_known = false; /* an odd table: count it again */
			return;
		}
		snprintf(s->outcomes[i].key, sizeof(s->outcomes[i].key), "%s", outcome);
		s->outcomes[i].n = 0;
		s->n_outcomes++;
	}
	s->outcomes[i].n += delta;
}

int store_tx_begin(struct store *s, struct err *e)
{
	db_lock(s->db);
	return db_tx_begin(s->db, e);
}

int store_tx_end(struct store *s, int rc, struct err *e)
{
	rc = db_tx_end(s->db, rc, e);
	s->gen++;
	db_unlock(s->db);
	return rc;
}

int store_rows(struct store *s, void **out, int *n, size_t elem_size,
               void (*row)(struct sqlite3_stmt *st, void *elem), void (*release)(void *elem),
               struct err *e, const char *what, const char *sql, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	db_lock(s->db);
	rc = db_collect(s->db, db_vprepare(s->db, sql, fmt, ap), elem_size, row, release, out, n, e,
	                what);
	db_unlock(s->db);
	va_end(ap);
	return rc;
}

int store_row(struct store *s, void *out, void (*row)(struct sqlite3_stmt *st, void *elem),
              struct err *e, const char *what, const char *sql, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	db_lock(s->db);
	rc = db_fetch_one(s->db, db_vprepare(s->db, sql, fmt, ap), row, out, e, what);
	db_unlock(s->db);
	va_end(ap);
	return rc;
}

int store_change_intent(struct store *s, struct tune_change *c, double at, struct err *e)
{
	int rc;

	db_lock(s->db);
	rc = db_run(s->db, e, "change insert",
	            "INSERT INTO changes(at, device, name, previous, requested, applied, "
	            "outcome, origin, message, apply_id) "
	            "VALUES(?,?,?,?,?,NULL,'pending',?,NULL,NULLIF(?,0))",
	            "dtttttI", at, c->device ? c->device : "", c->name, c->previous, c->requested,
	            c->origin ? c->origin : "", c->apply_id);
	if (rc > 0) {
		c->id = db_last_insert_id(s->db);
		store_outcome_count(s, "pending", +1);
	}
	db_unlock(s->db);
	return rc < 0 ? rc : 0;
}

int store_change_outcome(struct store *s, const struct tune_change *c, double at, struct err *e)
{
	int rc = 0;

	if (c->id > 0)
		rc = changes_write(s, e, "change update", "pending", c->outcome,
		                   "UPDATE changes SET applied = ?, outcome = ?, message = ? WHERE "
		                   "id = ? AND outcome = 'pending'",
		                   "tttI", c->applied, c->outcome, c->message, c->id);
	if (rc < 0 || c->id > 0)
		return rc < 0 ? rc : 0;
	rc = changes_write(s, e, "change insert", NULL, c->outcome,
	                   "INSERT INTO changes(at, device, name, previous, requested, applied, "
	                   "outcome, origin, message) VALUES(?,?,?,?,?,?,?,?,?)",
	                   "dttttttt", at, c->device ? c->device : "", c->name, c->previous,
	                   c->requested, c->applied, c->outcome, c->origin ? c->origin : "",
	                   c->message);
	return rc < 0 ? rc : 0;
}

static void change_from_row(struct sqlite3_stmt *st, void *elem)
{
	struct change_rec *c = elem;

	c->id = db_col_int64(st, 0);
	c->at = db_col_double(st, 1);
	db_col_text(st, 2, c->device, sizeof(c->device), NULL);
	db_col_text(st, 3, c->name, sizeof(c->name), NULL);
	db_col_text(st, 4, c->previous, sizeof(c->previous), &c->has_previous);
	db_col_text(st, 5, c->requested, sizeof(c->requested), &c->has_requested);
	db_col_text(st, 6, c->applied, sizeof(c->applied), &c->has_applied);
	db_col_text(st, 7, c->outcome, sizeof(c->outcome), NULL);
	db_col_text(st, 8, c->origin, sizeof(c->origin), NULL);
	db_col_text(st, 9, c->message, sizeof(c->message), &c->has_message);
}

int store_changes_list(struct store *s, const char *device, int limit, struct change_rec **out,
                       int *n, struct err *e)
{
	return store_rows(s, (void **)out, n, sizeof(**out), change_from_row, NULL, e, "changes",
	                  "SELECT id, at, device, name, previous, requested, applied, outcome, "
	                  "origin, message FROM changes WHERE (?1 IS NULL OR device = ?1) "
	                  "ORDER BY id DESC LIMIT ?2",
	                  "ti", device, limit);
}

int store_apply_begin(struct store *s, const struct tune_snapshot *snap, const char *origin, int n,
                      double at, int64_t *id, struct err *e)
{
	char *json = wire_snapshot_encode(snap);
	int rc;

	db_lock(s->db);
	rc = db_run(s->db, e, "apply insert",
	            "INSERT INTO applies(at, device, origin, n, snapshot) VALUES(?,?,?,?,?)",
	            "dttit", at, snap->device, origin ? origin : "", n, json);
	if (rc > 0)
		*id = db_last_insert_id(s->db);
	db_unlock(s->db);
	free(json);
	return rc < 0 ? rc : 0;
}

int store_apply_end(struct store *s, int64_t id, struct err *e)
{
	int rc = changes_write(s, e, "apply end", NULL, NULL, "DELETE FROM applies WHERE id = ?",
	                       "I", id);

	return rc < 0 ? rc : 0;
}

static void apply_from_row(struct sqlite3_stmt *st, void *elem)
{
	struct apply_rec *a = elem;

	a->id = db_col_int64(st, 0);
	db_col_text(st, 1, a->device, sizeof(a->device), NULL);
	db_col_text(st, 2, a->origin, sizeof(a->origin), NULL);
	a->n = db_col_int(st, 3);
}

int store_applies_open(struct store *s, struct apply_rec **out, int *n, struct err *e)
{
	return store_rows(s, (void **)out, n, sizeof(**out), apply_from_row, NULL, e, "applies",
	                  "SELECT id, device, origin, n FROM applies ORDER BY id", "");
}

int store_apply_snapshot(struct store *s, int64_t id, struct tune_snapshot *out, struct err *e)
{
	bool found;

	return store_snapshot_get(s, "SELECT device, snapshot FROM applies WHERE id = ?", id,
	                          "apply", out, &found, e);
}

int store_apply_changes(struct store *s, int64_t id, struct change_rec **out, int *n, struct err *e)
{
	return store_rows(s, (void **)out, n, sizeof(**out), change_from_row, NULL, e, "changes",
	                  "SELECT id, at, device, name, previous, requested, applied, outcome, "
	                  "origin, message FROM changes WHERE apply_id = ? ORDER BY id",
	                  "I", id);
}

int store_changes_pending(struct store *s, struct change_rec **out, int *n, struct err *e)
{
	return store_rows(s, (void **)out, n, sizeof(**out), change_from_row, NULL, e, "changes",
	                  "SELECT id, at, device, name, previous, requested, applied, outcome, "
	                  "origin, message FROM changes WHERE outcome = 'pending' AND "
	                  "apply_id IS NULL ORDER BY id",
	                  "");
}

int store_change_close(struct store *s, int64_t id, const char *applied, const char *outcome,
                       const char *message, struct err *e)
{
	int rc = changes_write(s, e, "change close", "pending", outcome,
	                       "UPDATE changes SET applied = COALESCE(?, applied), outcome = ?, "
	                       "message = ? WHERE id = ? AND outcome = 'pending'",
	                       "tttI", applied, outcome, message, id);

	return rc < 0 ? rc : 0;
}

static void session_from_row(struct sqlite3_stmt *st, void *elem)
{
	struct session_rec *r = elem;

	memset(r, 0, sizeof(*r));
	r->id = db_col_int64(st, 0);
	db_col_text(st, 1, r->device, sizeof(r->device), NULL);
	r->created_at = db_col_double(st, 2);
	r->ttl_s = db_col_int64(st, 3);
	r->expires_at = db_col_double(st, 4);
	db_col_text(st, 5, r->state, sizeof(r->state), NULL);
	r->ended_at = db_col_double(st, 6);
	db_col_text(st, 7, r->end_reason, sizeof(r->end_reason), NULL);
	db_col_text(st, 8, r->restore_outcome, sizeof(r->restore_outcome), NULL);
}

#define SESSION_COLS                                                                               \
	"id, device, created_at, ttl_s, expires_at, state, ended_at, end_reason, "                 \
	"restore_outcome"

static void id_from_row(struct sqlite3_stmt *st, void *elem)
{
	*(int64_t *)elem = db_col_int64(st, 0);
}

int store_session_insert(struct store *s, struct session_rec *rec, const struct tune_snapshot *snap,
                         struct err *e)
{
	char *json = wire_snapshot_encode(snap);
	int64_t open_id = 0;
	int rc;

	/* The check and the insert in one BEGIN IMMEDIATE: concurrent opens of one device find
	 * each other (the unique index of migration 3 backs this up). */
	rc = store_tx_begin(s, e);
	if (rc == 0)
		rc = db_fetch_one(s->db,
		                  db_prepare(s->db,
		                             "SELECT id FROM sessions WHERE device = ? AND "
		                             "state = 'open' LIMIT 1",
		                             "t", rec->device),
		                  id_from_row, &open_id, e, "session check");
	if (rc > 0)
		rc = err_set(e, -EBUSY, ERR_CONFLICT, "device '%s' already has open session %lld",
		             rec->device, (long long)open_id);
	if (rc == 0)
		rc = db_run(s->db, e, "session insert",
		            "INSERT INTO sessions(device, created_at, ttl_s, expires_at, state, "
		            "snapshot) VALUES(?,?,?,?,'open',?)",
		            "tdIdt", rec->device, rec->created_at, rec->ttl_s, rec->expires_at,
		            json);
	if (rc > 0)
		rec->id = db_last_insert_id(s->db);
	rc = store_tx_end(s, rc, e);
	if (rc >= 0)
		snprintf(rec->state, sizeof(rec->state), "open");
	free(json);
	return rc < 0 ? rc : 0;
}

int store_session_get(struct store *s, int64_t id, struct session_rec *rec, struct err *e)
{
	int rc;

	memset(rec, 0, sizeof(*rec));
	rc = store_row(s, rec, session_from_row, e, "session get",
	               "SELECT " SESSION_COLS " FROM sessions WHERE id = ?", "I", id);
	if (rc == 0)
		return err_set(e, -ENOENT, ERR_NOT_FOUND, "no session %lld", (long long)id);
	return rc < 0 ? rc : 0;
}

/* A (device, snapshot JSON) row. */
struct snapshot_row {
	char device[64];
	char *text; /* owned; NULL for SQL NULL */
};

static void snapshot_row(struct sqlite3_stmt *st, void *elem)
{
	struct snapshot_row *r = elem;

	db_col_text(st, 0, r->device, sizeof(r->device), NULL);
	r->text = db_col_dup(st, 1);
}

int store_snapshot_get(struct store *s, const char *sql, int64_t id, const char *noun,
                       struct tune_snapshot *out, bool *found, struct err *e)
{
	struct snapshot_row r = { { 0 }, NULL };
	int rc;

	memset(out, 0, sizeof(*out));
	*found = false;
	rc = store_row(s, &r, snapshot_row, e, noun, sql, "I", id);
	if (rc == 0)
		rc = err_set(e, -ENOENT, ERR_NOT_FOUND, "no %s %lld", noun, (long long)id);
	else if (rc > 0 && r.text)
		rc = wire_snapshot_decode(r.device, r.text, out, e);
	else if (rc > 0)
		rc = 0;
	*found = rc == 0 && r.text;
	free(r.text);
	return rc;
}

int store_session_snapshot(struct store *s, int64_t id, struct tune_snapshot *out, struct err *e)
{
	bool found;

	return store_snapshot_get(s, "SELECT device, snapshot FROM sessions WHERE id = ?", id,
	                          "session", out, &found, e);
}

int store_sessions_list(struct store *s, const char *state, const char *device,
                        struct session_rec **out, int *n, struct err *e)
{
	return store_rows(s, (void **)out, n, sizeof(**out), session_from_row, NULL, e, "sessions",
	                  "SELECT " SESSION_COLS " FROM sessions WHERE (?1 IS NULL OR state = ?1) "
	                  "AND (?2 IS NULL OR device = ?2) ORDER BY id DESC LIMIT 1000",
	                  "tt", state, device);
}

/* Rows changed by an update of an open session: none means no such open session. */
static int open_session_updated(int rc, int64_t id, struct err *e)
{
	if (rc == 0)
		return err_set(e, -ENOENT, ERR_NOT_FOUND, "no open session %lld", (long long)id);
	return rc < 0 ? rc : 0;
}

int store_session_renew(struct store *s, int64_t id, double expires_at, struct err *e)
{
	int rc;

	rc = store_write(s, e, "session renew",
	                 "UPDATE sessions SET expires_at = ? WHERE id = ? AND state = 'open'", "dI",
	                 expires_at, id);
	return open_session_updated(rc, id, e);
}

int store_session_end(struct store *s, int64_t id, const char *state, double ended_at,
                      const char *reason, const char *outcome, struct err *e)
{
	int rc;

	rc = store_write(s, e, "session end",
	                 "UPDATE sessions SET state = ?, ended_at = ?, end_reason = ?, "
	                 "restore_outcome = ? WHERE id = ? AND state = 'open'",
	                 "tdttI", state, ended_at, reason, outcome, id);
	return open_session_updated(rc, id, e);
}
