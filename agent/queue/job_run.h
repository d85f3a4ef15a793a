/* job_run.h -- one started job run to its end (job_run.c), and what a run needs of whoever
 * starts it: the environment, where passes are contained and filesystems mounted, and a way to
 * tell that it should stop and how far it is. It knows no queue. */
#ifndef FT_JOB_RUN_H
#define FT_JOB_RUN_H

#include <stdbool.h>
#include <stdint.h>

#include "device/sysfs.h"
#include "device/tune.h"
#include "err.h"
#include "job/contain.h"
#include "job/jobfs.h"
#include "job/jobspec.h"
#include "protocol.h"
#include "store/store.h"

/* How long a stopped engine's process group has between SIGTERM and SIGKILL. */
#define CANCEL_GRACE_S 5.0
/* The same for an engine held for its moment (its pass not begun): it has measured nothing, so
 * nothing of its output is a result to wait for; a cancel of a held job ends it at once even if
 * the engine lost its SIGTERM (a shell forking just then: the child keeps the parent's handler
 * until it resets it, and the signal is lost with it). */
#define HELD_CANCEL_GRACE_S 0.5

/*
 * Who puts back the params of a job with params_restore false: the device's tuning session.
 * hold(cls, dev, since, fn, fcls, e) runs fn(fcls, e) (fn NULL: nothing) while an open session
 * on dev opened at or before since cannot end, and returns fn's result; -ESRCH
 * "session_required" when dev has no such session (session_owner_run). hold NULL: there are
 * no sessions, and such jobs are refused.
 */
struct job_owner {
	int (*hold)(void *cls, const char *dev, double since, int (*fn)(void *fcls, struct err *e),
	            void *fcls, struct err *e);
	void *cls;
};

/* What the job queue and its runs work with, given by whoever starts it (agent_init, a test): the
 * pointers and strings are borrowed and must outlive the queue. */
struct jobq_env {
	struct store *store;           /* jobs, passes, restore points */
	struct tune *tune;             /* params: validated, snapshotted, applied, restored */
	const struct sysfs *fs;        /* devices: exist, allowlisted, in use; params read */
	const char *fio_path;          /* --fio (NULL: fio on PATH) */
	const char *const *allow_dirs; /* --allow-dir: where jobs may create files */
	int n_allow_dirs;
	bool allow_format_all;           /* --allow-format: jobs may mkfs any allowlisted device */
	const char *const *allow_format; /* --allow-format=NAME: these devices */
	int n_allow_format;
	const char *state_dir;     /* containment records live in STATE_DIR/contain, job
	                              filesystems are mounted under STATE_DIR/fs */
	enum contain_mode contain; /* --contain */
	bool hide_serial;          /* --hide-serial: a job's identity has the serial's hash */
	/* The wall clock every recorded time is read from, epoch seconds (NULL: time_now_s). */
	double (*now_s)(void);
	/* The monotonic clock a pass's progress and deadline are measured on, seconds (NULL:
	 * time_mono_s). */
	double (*mono_s)(void);
	int max_queued; /* --max-queued: jobs waiting at most (0: JOBQ_DEFAULT_MAX_QUEUED) */
	/* The agent's own binary (waiter_exe_ok), that a fio job's first pass, spawned before its
	 * start_at, runs as its prerun to wait for it (waiter.h; needs now_s to be the realtime
	 * clock); NULL: every engine is spawned at its moment. */
	const char *waiter_exe;
	struct job_owner owner; /* the sessions, for params_restore false */
};

/* What a run tells, and asks, whoever started it (the queue); cls is theirs. */
struct job_run_hooks {
	/* JOB_RUNNING while the run may go on; JOB_CANCELLED (by request) or JOB_INTERRUPTED
	 * (the agent stops) once it must end. */
	enum job_state (*stopped)(void *cls);
	/* The run's progress is p (0..1); pass_landed: a pass was just recorded. Returns when
	 * (jobq_env.now_s) it wants to be called again, sooner than the progress would call it
	 * (a job end it is to announce then), or 0. */
	double (*progress_set)(void *cls, double p, bool pass_landed);
	/* The run is to make its filesystem on device dev: it has dev from now on (fs_gone once
	 * unmounted), and returns once dev's exclusive opens (its probe, mkfs, mount) are the run's
	 * alone, which they stay until fs_made (made or not). */
	void (*fs_begin)(void *cls, const char *dev);
	void (*fs_made)(void *cls);
	void (*fs_gone)(void *cls);
	/* Hold until the run's clock (jobq_env.now_s) reads at_s, without spinning: JOB_RUNNING
	 * then, or what stopped() would say as soon as the run must end instead. */
	enum job_state (*hold_until)(void *cls, double at_s);
	void *cls;
	/* Readable (non-blocking; an eventfd) when stopped() may say something new: a running
	 * pass's poll wakes on it and on the engine, and on its own only for its deadline, a
	 * tenth of its progress, what progress_set asked or PASS_POLL_MAX_MS. -1: none, and the
	 * pass looks every POLL_MS. */
	int bell_fd;
};

/* A run's world: all borrowed, outliving the run. */
struct job_runner {
	const struct jobq_env *env;
	struct contain *contain; /* where every pass's processes are kept */
	struct jobfs *jobfs;     /* where job filesystems are mounted (STATE_DIR/fs) */
	struct job_run_hooks hooks;
};

/* Run started job id (its spec checked at submit; nothing here re-reads or re-checks it) to
 * its end state, which is returned; e says why when that is not JOB_SUCCEEDED. The caller
 * records the end. A job with a start_at makes ready first (its filesystem, its params and
 * their snapshot, its identity), then holds its first pass until then (at once when the moment
 * has passed), and records when that pass began and how long it held. A fio job given as
 * options whose start_at is JOB_PRESTART_MIN_S off or more (and env.waiter_exe set) holds
 * inside fio instead: fio is spawned at once, set up, and waits in its prerun (waiter.h) until
 * the moment; the pass began when the waiter woke (its report), which is what is recorded, with
 * held_s what the waiter slept, and the pass's deadline counts from the moment. A stop
 * meanwhile ends fio as it ends any pass. The lead asked for is small: a fio spawned before
 * its moment never starts later than one spawned at it (a lead shorter than fio's setup makes
 * it late either way, and the waiter then says how late, where a spawn at the moment records a
 * begun_at before fio's setup), and a controller's runs posted ahead leave a gap of tens of ms
 * to a second between a job's take and its moment. */
#define JOB_PRESTART_MIN_S 0.005
enum job_state job_run(const struct job_runner *r, int64_t id, const struct job_spec *spec,
                       struct err *e);
/* The deadlines of a checked spec: *pass_s, the most one pass may run before it is stopped
 * and the job fails "engine_timeout" (engine_pass_deadline_s, with the raw device's size read
 * from env's sysfs for fio without size); *run_s, the most the whole run may take once the job
 * has started: loops x (pass_s + CANCEL_GRACE_S), plus JOBFS_DEADLINE_S with a filesystem. */
void job_deadlines(const struct jobq_env *env, const struct job_spec *spec, double *pass_s,
                   double *run_s);
/* Remove the directories of pre-started passes (STATE_DIR/wait) a crashed agent left, their
 * processes killed first (contain_recover). */
void job_prestart_recover(const struct jobq_env *env);
/* Put back the restore snapshot job id recorded, if it has one (origin "job N WHY"). */
void job_restore_saved(const struct jobq_env *env, int64_t id, const char *why);

#endif
