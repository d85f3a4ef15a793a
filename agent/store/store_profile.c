/* store_profile.c -- the profiles the agent keeps, and their before values, in its SQLite. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "store/store_priv.h"
#include "wire/wire.h"
#include "xmalloc.h"
#include "banned.h"

#define PROFILE_COLS "name, match, params, enforce, created_at, updated_at"

/* A row as text; decoded after the statement is done (the codec may log). */
struct profile_row {
	char name[PROFILE_NAME_MAX];
	char *match, *params; /* owned */
	bool enforce;
	double created_at, updated_at;
};

static void profile_from_row(struct sqlite3_stmt *st, void *elem)
{
	struct profile_row *r = elem;

	db_col_text(st, 0, r->name, sizeof(r->name), NULL);
	r->match = db_col_dup(st, 1);
	r->params = db_col_dup(st, 2);
	r->enforce = db_col_int(st, 3) != 0;
	r->created_at = db_col_double(st, 4);
	r->updated_at = db_col_double(st, 5);
}

static void profile_row_release(void *elem)
{
	struct profile_row *r = elem;

	free(r->match);
	free(r->params);
}

void store_profiles_free(struct profile *list, int n)
{
	int i;

	for (i = 0; list && i < n; i++)
		profile_release(&list[i]);
	free(list);
}

int store_profiles_load(struct store *s, struct profile **out, int *n, struct err *e)
{
	struct profile_row *rows = NULL;
	struct profile *list;
	int nrows = 0, i, k = 0, rc;

	*out = NULL;
	*n = 0;
	rc = store_rows(s, (void **)&rows, &nrows, sizeof(*rows), profile_from_row,
	                profile_row_release, e, "profiles",
	                "SELECT " PROFILE_COLS " FROM profiles ORDER BY name", NULL);
	if (rc < 0)
		return rc;
	list = xcalloc((size_t)nrows + 1, sizeof(*list));
	for (i = 0; i < nrows; i++) {
		struct profile *p = &list[k];
		struct err de;

		profile_init(p);
		snprintf(p->name, sizeof(p->name), "%s", rows[i].name);
		p->enforce = rows[i].enforce;
		p->created_at = rows[i].created_at;
		p->updated_at = rows[i].updated_at;
		err_clear(&de);
		if (wire_profile_match_decode(rows[i].match, &p->match, &de) ||
		    wire_profile_params_decode(rows[i].params, &p->params, &de)) {
			/* Never guess at what to write: a profile that cannot be read is skipped.
			 */
			log_error("profile '%s' in the database cannot be read, so it is not kept: "
			          "%s",
			          rows[i].name, de.msg);
			profile_release(p);
			continue;
		}
		k++;
	}
	for (i = 0; i < nrows; i++)
		profile_row_release(&rows[i]);
	free(rows);
	*out = list;
	*n = k;
	return 0;
}

/* Insert or update p; the caller holds a transaction. */
static int profile_upsert(struct store *s, const struct profile *p, struct err *e)
{
	char *match = wire_profile_match_encode(&p->match);
	char *params = wire_profile_params_encode(&p->params);
	int rc;

	rc = db_run(s->db, e, "profile save",
	            "INSERT INTO profiles(" PROFILE_COLS ") VALUES(?,?,?,?,?,?) ON CONFLICT(name) "
	            "DO UPDATE SET match = excluded.match, params = excluded.params, enforce = "
	            "excluded.enforce, updated_at = excluded.updated_at",
	            "tttidd", p->name, match, params, p->enforce ? 1 : 0, p->created_at,
	            p->updated_at);
	free(match);
	free(params);
	return rc;
}

/* Replace the before row of (name, b->device); the caller holds the store's lock. */
static int before_upsert(struct store *s, const char *name, const struct tune_snapshot *b,
                         struct err *e)
{
	char *json = wire_snapshot_encode(b);
	int rc;

	rc = db_run(s->db, e, "profile before values",
	            "INSERT INTO profile_before(profile, device, snapshot) VALUES(?,?,?) "
	            "ON CONFLICT(profile, device) DO UPDATE SET snapshot = excluded.snapshot",
	            "ttt", name, b->device, json);
	free(json);
	return rc;
}

int store_profile_save(struct store *s, const struct profile *p,
                       const struct tune_snapshot *befores, int n, struct err *e)
{
	int rc, i;

	rc = store_tx_begin(s, e);
	if (rc == 0)
		rc = profile_upsert(s, p, e);
	for (i = 0; rc >= 0 && i < n; i++)
		rc = before_upsert(s, p->name, &befores[i], e);
	rc = store_tx_end(s, rc, e);
	return rc < 0 ? rc : 0;
}

int store_profile_undo(struct store *s, const char *name, const struct profile *old,
                       const struct tune_snapshot *old_befores, int n, struct err *e)
{
	int rc, i;

	rc = store_tx_begin(s, e);
	if (rc == 0 && !old)
		rc = db_run(s->db, e, "profile undo", "DELETE FROM profiles WHERE name = ?", "t",
		            name);
	if (rc >= 0 && old) {
		rc = profile_upsert(s, old, e);
		if (rc >= 0)
			rc = db_run(s->db, e, "profile undo",
			            "DELETE FROM profile_before WHERE profile = ?", "t", name);
		for (i = 0; rc >= 0 && i < n; i++)
			rc = before_upsert(s, name, &old_befores[i], e);
	}
	rc = store_tx_end(s, rc, e);
	return rc < 0 ? rc : 0;
}

int store_profile_delete(struct store *s, const char *name, struct err *e)
{
	int rc = store_write(s, e, "profile delete", "DELETE FROM profiles WHERE name = ?", "t",
	                     name);

	if (rc == 0)
		return err_set(e, -ENOENT, ERR_NOT_FOUND, "no profile '%s'", name);
	return rc < 0 ? rc : 0;
}

/* A (device, snapshot JSON) row, decoded after the statement. */
struct before_row {
	char device[SYSFS_NAME_MAX];
	char *text;
};

static void before_from_row(struct sqlite3_stmt *st, void *elem)
{
	struct before_row *r = elem;

	db_col_text(st, 0, r->device, sizeof(r->device), NULL);
	r->text = db_col_dup(st, 1);
}

static void before_row_release(void *elem)
{
	free(((struct before_row *)elem)->text);
}

void store_snapshots_free(struct tune_snapshot *list, int n)
{
	int i;

	for (i = 0; list && i < n; i++)
		tune_snapshot_release(&list[i]);
	free(list);
}

int store_profile_befores(struct store *s, const char *name, struct tune_snapshot **out, int *n,
                          struct err *e)
{
	struct before_row *rows = NULL;
	struct tune_snapshot *list;
	int nrows = 0, i, k = 0, rc;

	*out = NULL;
	*n = 0;
	rc = store_rows(s, (void **)&rows, &nrows, sizeof(*rows), before_from_row,
	                before_row_release, e, "profile before values",
	                "SELECT device, snapshot FROM profile_before WHERE profile = ? ORDER BY "
	                "device",
	                "t", name);
	if (rc < 0)
		return rc;
	list = xcalloc((size_t)nrows + 1, sizeof(*list));
	for (i = 0; i < nrows; i++) {
		struct err de;

		err_clear(&de);
		if (wire_snapshot_decode(rows[i].device, rows[i].text, &list[k], &de) == 0)
			k++;
		else
			log_error("profile '%s': the values %s had before it cannot be read: %s",
			          name, rows[i].device, de.msg);
		before_row_release(&rows[i]);
	}
	free(rows);
	*out = list;
	*n = k;
	return 0;
}

int store_profile_before_put(struct store *s, const char *name, const struct tune_snapshot *before,
                             struct err *e)
{
	int rc;

	db_lock(s->db);
	rc = before_upsert(s, name, before, e);
	db_unlock(s->db);
	return rc < 0 ? rc : 0;
}

int store_profile_delete_owing(struct store *s, const char *name, const struct restore_owed *owed,
                               int n, double at, struct err *e)
{
	int rc, i;

	rc = store_tx_begin(s, e);
	if (rc == 0) {
		rc = db_run(s->db, e, "profile delete", "DELETE FROM profiles WHERE name = ?", "t",
		            name);
		if (rc == 0)
			rc = err_set(e, -ENOENT, ERR_NOT_FOUND, "no profile '%s'", name);
	}
	for (i = 0; rc >= 0 && i < n; i++) {
		char *json = wire_snapshot_encode(&owed[i].snap);

		rc = db_run(
		        s->db, e, "restore owed",
		        "INSERT INTO profile_restores_owed(device, profile, origin, snapshot, at) "
		        "VALUES(?,?,?,?,?)",
		        "ttttd", owed[i].snap.device, name, owed[i].origin, json, at);
		free(json);
	}
	rc = store_tx_end(s, rc, e);
	return rc < 0 ? rc : 0;
}

/* An owed row, its snapshot decoded after the statement. */
struct owed_row {
	int64_t id;
	char device[SYSFS_NAME_MAX];
	char profile[PROFILE_NAME_MAX];
	char origin[320];
	char *text;
};

static void owed_from_row(struct sqlite3_stmt *st, void *elem)
{
	struct owed_row *r = elem;

	r->id = db_col_int64(st, 0);
	db_col_text(st, 1, r->device, sizeof(r->device), NULL);
	db_col_text(st, 2, r->profile, sizeof(r->profile), NULL);
	db_col_text(st, 3, r->origin, sizeof(r->origin), NULL);
	r->text = db_col_dup(st, 4);
}

static void owed_row_release(void *elem)
{
	free(((struct owed_row *)elem)->text);
}

int store_restores_owed(struct store *s, struct restore_owed **out, int *n, struct err *e)
{
	struct owed_row *rows = NULL;
	struct restore_owed *list;
	int nrows = 0, i, k = 0, rc;

	*out = NULL;
	*n = 0;
	rc = store_rows(s, (void **)&rows, &nrows, sizeof(*rows), owed_from_row, owed_row_release,
	                e, "restores owed",
	                "SELECT id, device, profile, origin, snapshot FROM profile_restores_owed "
	                "ORDER BY id",
	                "");
	if (rc < 0)
		return rc;
	list = xcalloc((size_t)nrows + 1, sizeof(*list));
	for (i = 0; i < nrows; i++) {
		struct err de;

		err_clear(&de);
		if (wire_snapshot_decode(rows[i].device, rows[i].text, &list[k].snap, &de)) {
			log_error("restore owed %lld on %s is unreadable and is dropped: %s",
			          (long long)rows[i].id, rows[i].device, de.msg);
			store_restore_owed_done(s, rows[i].id, &de);
			continue;
		}
		list[k].id = rows[i].id;
		snprintf(list[k].profile, sizeof(list[k].profile), "%s", rows[i].profile);
		snprintf(list[k].origin, sizeof(list[k].origin), "%s", rows[i].origin);
		k++;
	}
	for (i = 0; i < nrows; i++)
		free(rows[i].text);
	free(rows);
	*out = list;
	*n = k;
	return 0;
}

void store_restores_owed_free(struct restore_owed *list, int n)
{
	int i;

	for (i = 0; list && i < n; i++)
		tune_snapshot_release(&list[i].snap);
	free(list);
}

int store_restore_owed_done(struct store *s, int64_t id, struct err *e)
{
	int rc = store_write(s, e, "restore owed done",
	                     "DELETE FROM profile_restores_owed WHERE id = ?", "I", id);

	return rc < 0 ? rc : 0;
}
