/* tune.h -- all-or-nothing parameter changes with audit, snapshots and restore. */
#ifndef FT_TUNE_H
#define FT_TUNE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "device/sysfs.h"
#include "err.h"

/* One audited write, handed to the audit hooks (strings borrowed). */
struct tune_change {
	int64_t id;         /* its audit row: set by the intent hook, 0 if none was recorded */
	const char *device; /* "" for sysctls */
	const char *name;
	const char *previous;
	const char *requested;
	const char *applied; /* NULL if the write failed (or is yet to be made) */
	const char
	        *outcome; /* pending | ok | adjusted | rejected | rolled_back | restored | error */
	const char *origin;  /* "request 12 PATCH /api/v1/...", "session 3 expired" */
	const char *message; /* error text or NULL */
	/* The apply (tune_audit.begin) this write belongs to, its rollback's writes too; 0 for
	 * restores and sysctl writes. */
	int64_t apply_id;
};

struct tune_snapshot;

/*
 * Where every write is recorded, before it is made. intent records c (outcome "pending") and
 * sets c->id, or returns -errno with e filled: then the write is not made (a request gets 503
 * audit_unavailable) -- except a restore or a rollback, which is made anyway and logged as
 * unaudited, because refusing it would leave the device tuned. outcome records what became
 * of the write: it updates row c->id, or adds a row when c->id is 0. Both are called with the
 * tune lock held and must not call back into tune.
 */
struct tune_audit {
	int (*intent)(void *cls, struct tune_change *c, struct err *e);
	void (*outcome)(void *cls, const struct tune_change *c);
	/* An apply (tune_apply) of n writes on snap->device is about to write: record it with
	 * snap (every writable value before it) and set *id, or -errno with e filled (then
	 * nothing is written: 503 audit_unavailable). end: it is over (done or rolled back). A
	 * start after a crash finds the applies that did not end (pending.c). May be NULL. */
	int (*begin)(void *cls, const struct tune_snapshot *snap, const char *origin, int n,
	             int64_t *id, struct err *e);
	void (*end)(void *cls, int64_t id);
	void *cls;
};

/* Serialises every write the agent makes; thread-safe. */
struct tune {
	const struct sysfs *fs;
	pthread_mutex_t lock;
	struct tune_audit audit;  /* hooks may be NULL: nothing recorded */
	unsigned long generation; /* bumped by every write attempt; read with tune_generation() */
};

/* What a restore did: writes made, and of those how many have no audit row. */
struct tune_restore_count {
	int written;
	int unaudited;
};

/* One requested parameter and, after tune_apply, what happened to it. */
struct tune_item {
	char name[SYSFS_NAME_MAX];
	char requested[SYSFS_VALUE_MAX]; /* as the client sent it */
	char canon[SYSFS_VALUE_MAX];     /* after validation and alias mapping */
	char previous[SYSFS_VALUE_MAX];  /* value before this change */
	char applied[SYSFS_VALUE_MAX];   /* what the kernel reports afterwards */
	bool aliased;                    /* legacy scheduler name mapped */
	bool adjusted;                   /* applied differs from canon */
	bool deferred; /* an iosched.* attribute of the scheduler being switched to: validated
	                  as a plain integer first, fully only after the switch (previous may be
	                  "" then: the attribute does not exist yet) */
	enum param_kind kind;
};

#define TUNE_SET_MAX 64

/* The parameters of one request (a PATCH body, a job's params), in request order. */
struct tune_set {
	int n;
	struct tune_item *items; /* owned */
};

/* Free the items; NULL is fine. */
void tune_set_release(struct tune_set *s);

/* A device's writable parameters by name, to put back later. */
struct tune_snapshot {
	char device[SYSFS_NAME_MAX];
	int n;
	struct tune_item *items; /* name + previous (the value to restore) */
};

/* Changes whenever the agent writes anything, so readers can tell a cached view is stale. */
unsigned long tune_generation(struct tune *t);

/* audit may be NULL (nothing recorded); it is copied. */
void tune_init(struct tune *t, const struct sysfs *fs, const struct tune_audit *audit);
void tune_release(struct tune *t);

/*
 * Apply items to dev all-or-nothing: validate every item first (nothing is
 * written if one is bad), write the scheduler first (a switch resets
 * nr_requests and iosched attributes), then queue_depth, nr_requests, iosched.*, and
 * the rest. Each write's audit row is recorded before the write; if it cannot be, the write
 * is not made (-EAGAIN "audit_unavailable"). On a kernel rejection or an audit failure every
 * value already written is put back and *rolled_back is set. Returns 0 or -errno with err
 * filled.
 */
int tune_apply(struct tune *t, const char *dev, struct tune_item *items, int n, const char *origin,
               bool *rolled_back, struct err *e);

/* tune_apply, but first, with the lock held (so that no other write, snapshot or restore comes
 * between), may(cls, dev, e) decides: a non-zero return is returned as it is and nothing is
 * written. may must not call into tune. */
int tune_apply_if(struct tune *t, const char *dev, struct tune_item *items, int n,
                  const char *origin, int (*may)(void *cls, const char *dev, struct err *e),
                  void *cls, bool *rolled_back, struct err *e);

/*
 * Everything tune_apply checks before its first write, with the same errors (device missing
 * or not allowlisted, no items, unknown names, read-only, ranges from the kernel, enums,
 * scheduler aliases, the setra/read_ahead_kb conflict), and nothing written, audited or
 * invalidated. Fills canon, previous, aliased, deferred and kind of every item.
 */
int tune_validate(struct tune *t, const char *dev, struct tune_item *items, int n, struct err *e);

/*
 * What a job's check needs of its device, asked at once (the job's check words the refusals,
 * in its own order): whether dev exists and is allowlisted (sysfs), whether it is in use (only
 * when ask_in_use: sysfs_device_in_use opens it exclusively), and tune_validate's judgement of
 * items[0..n). What a fact depends on is not asked when it fails: nothing more of a device
 * that is not there, neither use nor params of one that is not allowlisted. t may be NULL
 * when n is 0.
 */
struct tune_device_report {
	bool exists;           /* a valid name with an entry under ROOT/sys/block */
	bool allowed;          /* on the --allow-device list */
	bool in_use;           /* asked, and in use: why says by what */
	char why[300];         /* sysfs_device_in_use's reason */
	int params_rc;         /* tune_validate's return; 0 also when n is 0 */
	struct err params_err; /* its error when params_rc is not 0 */
};
void tune_device_report(struct tune *t, const struct sysfs *fs, const char *dev, bool ask_in_use,
                        struct tune_item *items, int n, struct tune_device_report *out);

/* Snapshot every writable parameter of dev (setra excluded: it mirrors read_ahead_kb). */
int tune_snapshot_take(struct tune *t, const char *dev, struct tune_snapshot *out, struct err *e);
void tune_snapshot_release(struct tune_snapshot *s);

/*
 * Put dev back to snap: scheduler first, then every value that differs.
 * Best effort: goes on past failures, returns the first error. A write whose audit row
 * cannot be recorded is made all the same (logged loudly, counted in count->unaudited).
 * count (may be NULL) says what was done.
 */
int tune_restore(struct tune *t, const struct tune_snapshot *snap, const char *origin,
                 struct tune_restore_count *count, struct err *e);
/* The same for undoing a change (its rows say "rolled_back"): a previous run's unfinished
 * PATCH, rolled back at start (pending.c). */
int tune_rollback(struct tune *t, const struct tune_snapshot *snap, const char *origin,
                  struct tune_restore_count *count, struct err *e);

/* Validate and write one sysctl, its audit row first (-EAGAIN "audit_unavailable" if that
 * cannot be recorded: nothing written). */
int tune_sysctl_set(struct tune *t, struct tune_item *item, const char *origin, struct err *e);

#endif
