/* session.h -- tuning sessions: snapshot on open, restore on close, expiry or agent restart. */
#ifndef FT_SESSION_H
#define FT_SESSION_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "device/tune.h"
#include "err.h"
#include "store/store.h"

#define SESSION_TTL_DEFAULT_S 600
#define SESSION_TTL_MAX_S (7 * 24 * 3600)

#define SESSION_UNRECORDED_MAX 64

struct session_mgr {
	struct tune *tune;
	struct store *store;
	/* Sessions that ended (their restore was made) but whose end the database did not take
	 * (the state directory is full): they are over all the same -- no second restore, GET
	 * shows them ended -- and their end is written as soon as the database takes it (every
	 * expiry pass tries). lock guards them; a zeroed mutex is a valid one (glibc), so a
	 * session_mgr filled in by hand needs no init. */
	pthread_mutex_t lock;
	struct session_rec unrecorded[SESSION_UNRECORDED_MAX];
	int n_unrecorded;
	/* Held for the whole of a session's end (its jobs rebased, its restore, its record) and
	 * by session_owner_run: while it is held no session ends. Taken before the tune lock and
	 * the database's, never after. Zeroed is valid, as lock. */
	pthread_mutex_t end_lock;
	/* No open session expires before due_at (0: not known yet): the expiry pass, run every
	 * second, reads the database only from then on. Each pass sets it to the earliest expiry
	 * of the sessions it leaves open (HUGE_VAL: none) and each open lowers it; a renewal or a
	 * close leaves it early, which costs one pass that finds nothing. lock guards it and
	 * opens, the count of opens: a pass an open overlapped does not raise it past that
	 * open's expiry. */
	double due_at;
	uint64_t opens;
};

/* Snapshot every writable parameter of dev and open a session. Only one
 * open session per device (-EBUSY "conflict" otherwise). */
int session_open(struct session_mgr *m, const char *dev, int64_t ttl_s, double now,
                 struct session_rec *out, struct err *e);
/* Push the expiry back to now + ttl_s. */
int session_renew(struct session_mgr *m, int64_t id, double now, struct session_rec *out,
                  struct err *e);
/* End a session, restoring its snapshot if restore. reason: "closed", "expired", "agent_restart".
 */
int session_end(struct session_mgr *m, int64_t id, bool restore, const char *reason, double now,
                struct session_rec *out, struct err *e);
/* One session; -ENOENT "not_found" if there is none with that id. */
int session_get(struct session_mgr *m, int64_t id, struct session_rec *out, struct err *e);
/* Sessions newest first (at most 1000); state and device may be NULL (any). Caller frees
 * *out. */
int session_list(struct session_mgr *m, const char *state, const char *device,
                 struct session_rec **out, int *n, struct err *e);
/*
 * The owner of a write nobody else puts back (a job's params with params_restore false): with
 * no session able to end meanwhile, find the open session on dev that was opened at or before
 * since (its snapshot predates since, so its restore covers whatever is written after) and run
 * fn(cls, e) (fn NULL: only look). Returns fn's result (0 for NULL), or -ESRCH
 * "session_required" naming dev when there is no such session (fn not run), or -errno when
 * the sessions cannot be read. A session that ends after this returns restores after all that
 * fn wrote. fn must not call into the session manager.
 */
int session_owner_run(struct session_mgr *m, const char *dev, double since,
                      int (*fn)(void *cls, struct err *e), void *cls, struct err *e);
/* Restore and close every open session whose expiry is <= now. Returns how many. Reads the
 * database only when a session may be due (due_at) or an end is still to be recorded. */
int session_expire_due(struct session_mgr *m, double now);
/* Restore and close every open session: at startup those a previous run
 * left open (reason "agent_restart"), at shutdown our own ("agent_shutdown"). Returns how
 * many, or -errno with e filled when the open sessions cannot be read: at startup the agent
 * then refuses to start rather than leave a device tuned. A restore that fails is logged and
 * recorded in its session. */
int session_end_all(struct session_mgr *m, double now, const char *reason, struct err *e);

#endif
