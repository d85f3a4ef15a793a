/* store.h -- the agent's SQLite database: audit log, sessions, jobs and results.
 * The only agent module that includes sqlite3.h. Every function is thread-safe. */
#ifndef FT_STORE_H
#define FT_STORE_H

#include <stdint.h>

#include "err.h"
#include "tune.h"

struct store;

/* Open (creating) the database at path and apply pending migrations from
 * schema/agent.sql. Sets WAL and busy_timeout. */
int store_open(struct store **out, const char *path, struct err *e);
void store_close(struct store *s);
/* The schema version after migrations (PRAGMA user_version). */
int store_schema_version(struct store *s);

/* ---- audit log ---- */
struct change_rec {
	int64_t id;
	double at;
	char device[64];
	char name[64];
	char previous[256];
	char requested[256];
	char applied[256];
	char outcome[16];
	char origin[256];
	char message[256];
	int has_previous, has_requested, has_applied, has_message;
};

int store_change_add(struct store *s, const struct tune_change *c, double at);
/* Newest first; device may be NULL. Caller frees *out. */
int store_changes_list(struct store *s, const char *device, int limit, struct change_rec **out,
		       int *n, struct err *e);

/* ---- sessions ---- */
struct session_rec {
	int64_t id;
	char device[64];
	double created_at;
	int64_t ttl_s;
	double expires_at;
	char state[16]; /* open | closed | restored */
	double ended_at; /* 0 while open */
	char end_reason[32];
	char restore_outcome[256];
	char *snapshot; /* JSON; owned, free with store_session_rec_release */
};

int store_session_insert(struct store *s, struct session_rec *rec, struct err *e); /* sets id */
int store_session_get(struct store *s, int64_t id, struct session_rec *rec, struct err *e);
/* state and device may be NULL (any). Caller releases each and frees *out. */
int store_sessions_list(struct store *s, const char *state, const char *device,
			struct session_rec **out, int *n, struct err *e);
int store_session_renew(struct store *s, int64_t id, double expires_at, struct err *e);
int store_session_end(struct store *s, int64_t id, const char *state, double ended_at,
		      const char *reason, const char *outcome, struct err *e);
void store_session_rec_release(struct session_rec *rec);
void store_sessions_free(struct session_rec *list, int n);

#endif
