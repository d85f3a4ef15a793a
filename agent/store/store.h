/* store.h -- the agent's SQLite database: audit log, sessions, jobs and results.
 * Its files (store*.c) are the only agent code that uses SQLite, through common/db.h (only
 * common/db.c includes sqlite3.h). Every function is thread-safe. */
#ifndef FT_STORE_H
#define FT_STORE_H

#include <stdbool.h>
#include <stdint.h>

#include "device/identity.h"
#include "device/sysfs.h"
#include "device/tune.h"
#include "engines/engine.h"
#include "err.h"
#include "job/jobrec.h"
#include "job/jobspec.h"
#include "profile/profile.h"
#include "protocol.h"

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

/* The audit log is written ahead: a row for a write before it is made (outcome "pending";
 * sets c->id), then what became of it. Each is its own committed transaction. */
int store_change_intent(struct store *s, struct tune_change *c, double at, struct err *e);
/* Update row c->id with c's applied value, outcome and message; with c->id 0, add a row. */
int store_change_outcome(struct store *s, const struct tune_change *c, double at, struct err *e);
/* ---- applies: an all-or-nothing PATCH/PUT under way (tune_audit.begin/end) ---- */
struct apply_rec {
	int64_t id;
	char device[64];
	char origin[256];
	int n; /* writes it makes */
};

/* Record an apply of n writes with snap (the device's writable values before it); sets *id. */
int store_apply_begin(struct store *s, const struct tune_snapshot *snap, const char *origin, int n,
                      double at, int64_t *id, struct err *e);
/* The apply is over (done or rolled back): its record goes. */
int store_apply_end(struct store *s, int64_t id, struct err *e);
/* Applies that did not end (a previous run was killed during them), oldest first. */
int store_applies_open(struct store *s, struct apply_rec **out, int *n, struct err *e);
/* An apply's snapshot. Caller releases with tune_snapshot_release. */
int store_apply_snapshot(struct store *s, int64_t id, struct tune_snapshot *out, struct err *e);
/* The audit rows of an apply (and of its rollback), in write order. Caller frees *out. */
int store_apply_changes(struct store *s, int64_t id, struct change_rec **out, int *n,
                        struct err *e);
/* Pending rows of no apply (restores, sysctl writes), in write order. Caller frees *out. */
int store_changes_pending(struct store *s, struct change_rec **out, int *n, struct err *e);
/* Close a pending row: outcome, message and (if not NULL) what the parameter holds now. */
int store_change_close(struct store *s, int64_t id, const char *applied, const char *outcome,
                       const char *message, struct err *e);
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
	char state[16];  /* open | closed | restored */
	double ended_at; /* 0 while open */
	char end_reason[32];
	char restore_outcome[256];
};

/* Insert an open session with the snapshot to restore; sets rec->id and rec->state. -EBUSY
 * "conflict" (naming it) if the device has an open session: checked in the same transaction,
 * so that concurrent opens of one device give one session. */
int store_session_insert(struct store *s, struct session_rec *rec, const struct tune_snapshot *snap,
                         struct err *e);
int store_session_get(struct store *s, int64_t id, struct session_rec *rec, struct err *e);
/* The snapshot a session restores. Caller releases with tune_snapshot_release. */
int store_session_snapshot(struct store *s, int64_t id, struct tune_snapshot *out, struct err *e);
/* Newest first; state and device may be NULL (any). Caller frees *out. */
int store_sessions_list(struct store *s, const char *state, const char *device,
                        struct session_rec **out, int *n, struct err *e);
int store_session_renew(struct store *s, int64_t id, double expires_at, struct err *e);
int store_session_end(struct store *s, int64_t id, const char *state, double ended_at,
                      const char *reason, const char *outcome, struct err *e);

/* ---- jobs and results (store_job.c) ---- */

/* Frees a list of parameter values (a job_rec's params). */
void store_values_free(struct store_value *v, int n);

/* A name=value pair for result filters (borrowed strings). */
struct store_kv {
	const char *key;
	const char *value;
};

#define STORE_FILTER_MAX 8

struct result_filter {
	const char *device, *engine, *state; /* NULL = any (state: any finished state) */
	struct store_kv labels[STORE_FILTER_MAX];
	int n_labels;
	struct store_kv params[STORE_FILTER_MAX];
	int n_params;
	const char *workload; /* jobs with passes of the workload of that name; NULL = any */
	double since;         /* finished_at >= since; 0 = no bound */
	int64_t before_id;    /* id < before_id; 0 = no bound */
	int limit;
};

/* Insert a queued job with its spec and labels; sets *id. */
int store_job_insert(struct store *s, const struct job_spec *spec, double created_at, int64_t *id,
                     struct err *e);
/* Queued jobs, oldest first (the queue a restarted agent takes up). Caller frees with
 * store_jobs_free. */
int store_jobs_queued(struct store *s, struct job_rec **out, int *n, struct err *e);
/* queued -> running. -ENOENT "not_found" if the job is not queued (cancelled meanwhile). */
int store_job_start(struct store *s, int64_t id, double now, struct err *e);
/* Record the restore snapshot (before the job's params are applied). */
int store_job_set_restore(struct store *s, int64_t id, const struct tune_snapshot *snap,
                          struct err *e);
/* Restore precedence (docs/api.md, "Tuning sessions"): before a session on device restores it, the
 * running jobs there that started inside the session (started_at >= since) lose their restore
 * point, so that their end cannot put back what they saw inside the session. */
int store_jobs_rebase(struct store *s, const char *device, double since, struct err *e);
/* Mark every running job on device: its params were changed under it (why). The first
 * reason is kept. */
int store_jobs_mark_changed(struct store *s, const char *device, const char *why, struct err *e);
/* The restore snapshot of a job; *found false (and nothing to release) if it has none. */
int store_job_restore(struct store *s, int64_t id, struct tune_snapshot *out, bool *found,
                      struct err *e);
/* Record every parameter of the device, read just before loop 1, and applied (NULL: the job
 * has no params): what applying the job's params did (wire_tune_applied_encode); with d and h
 * (both or neither) what the job's device and host are, read with the snapshot (the identity
 * column, JSON): one transaction. */
int store_job_set_params(struct store *s, int64_t id, const struct params *ps, const char *applied,
                         const struct device_identity *d, const struct host_identity *h,
                         struct err *e);
/* Record what mkfs and mount made for the job (the filesystem column). */
struct jobfs_made;
int store_job_set_filesystem(struct store *s, int64_t id, const struct jobfs_made *m,
                             struct err *e);
int store_job_set_pgid(struct store *s, int64_t id, int64_t pgid);
/* What changed the device's params under job id mid-run (store_jobs_mark_changed) into
 * why[0..len), "" when nothing did: that column alone, not the whole row. */
int store_job_params_changed(struct store *s, int64_t id, char *why, size_t len, struct err *e);
/* The job's first pass began (begun_at, epoch s) with its engine in process group pgid, and
 * how long the job held before it for its start_at (held_s, 0 when it did not): one
 * statement. */
int store_job_set_begun(struct store *s, int64_t id, int64_t pgid, double begun_at, double held_s);
/* Add a finished pass and bump loops_done; with workloads (n_wl > 0) each one's metrics under
 * its name (wl[0..n_wl), the job's order), in the same transaction. */
int store_job_pass_add(struct store *s, int64_t id, int loop, double started_at, double finished_at,
                       const struct metrics *m, const struct pass_workload *wl, int n_wl,
                       const char *raw, size_t raw_len, struct err *e);
/* Move a job to a final state; why (its code and message) is NULL for none. */
int store_job_finish(struct store *s, int64_t id, enum job_state state, double finished_at,
                     const struct err *why, struct err *e);
/* queued -> cancelled; -EBUSY if the job is not queued. */
int store_job_cancel_queued(struct store *s, int64_t id, double now, struct err *e);
int store_job_get(struct store *s, int64_t id, struct job_rec *out, struct err *e);
/* Passes in loop order, each with its workloads' metrics. Caller frees with store_passes_free. */
int store_job_passes(struct store *s, int64_t id, struct pass_rec **out, int *n, struct err *e);
/* Free a list of passes and their workloads; NULL is fine. */
void store_passes_free(struct pass_rec *p, int n);
/* Raw output of one pass. Caller frees *raw. */
int store_job_raw(struct store *s, int64_t id, int loop, char **raw, size_t *len, struct err *e);
/* Jobs newest first; state may be NULL. */
int store_jobs_list(struct store *s, const char *state, int limit, bool with_params,
                    struct job_rec **out, int *n, struct err *e);
/* Finished jobs matching f, newest first. */
int store_results(struct store *s, const struct result_filter *f, struct job_rec **out, int *n,
                  struct err *e);
void store_job_rec_release(struct job_rec *r);
void store_jobs_free(struct job_rec *list, int n);
/* Jobs per state, for /metrics: fills counts[i] for states[i]. */
int store_job_state_counts(struct store *s, const char *const *states, int n, int64_t *counts);

/* ---- profiles the agent keeps (store_profile.c) ---- */

/* Every stored profile, by name. Caller frees with store_profiles_free. */
int store_profiles_load(struct store *s, struct profile **out, int *n, struct err *e);
void store_profiles_free(struct profile *list, int n);
/* Store p (inserted, or updated by name) and, in the same transaction, befores[0..n): the
 * values each device had before p first changed them (one row per device, replaced). */
int store_profile_save(struct store *s, const struct profile *p,
                       const struct tune_snapshot *befores, int n, struct err *e);
/* Undo a save, in one transaction: old NULL removes profile name (and its before values);
 * else profile old and exactly old_befores[0..n) are put back. */
int store_profile_undo(struct store *s, const char *name, const struct profile *old,
                       const struct tune_snapshot *old_befores, int n, struct err *e);
/* Remove a profile and its before values; -ENOENT "not_found" if there is none. */
int store_profile_delete(struct store *s, const char *name, struct err *e);

/* A restore a DELETE ?restore=true owes a device a session or job owned (table
 * profile_restores_owed). */
struct restore_owed {
	int64_t id;
	char profile[PROFILE_NAME_MAX];
	char origin[320];
	struct tune_snapshot snap; /* device and the values to put back */
};
/* store_profile_delete, and in the same transaction the restores owed[0..n) (at: now): a crash
 * leaves the profile and no debt, or neither. */
int store_profile_delete_owing(struct store *s, const char *name, const struct restore_owed *owed,
                               int n, double at, struct err *e);
/* Every restore owed, oldest first. Caller frees with store_restores_owed_free. */
int store_restores_owed(struct store *s, struct restore_owed **out, int *n, struct err *e);
void store_restores_owed_free(struct restore_owed *list, int n);
/* Restore owed id is paid (or void): remove it. */
int store_restore_owed_done(struct store *s, int64_t id, struct err *e);
/* The before values of profile name, one snapshot per device (device set). Caller frees with
 * store_snapshots_free. */
int store_profile_befores(struct store *s, const char *name, struct tune_snapshot **out, int *n,
                          struct err *e);
/* Replace the before values of profile name on before->device. */
int store_profile_before_put(struct store *s, const char *name, const struct tune_snapshot *before,
                             struct err *e);
void store_snapshots_free(struct tune_snapshot *list, int n);

#endif
