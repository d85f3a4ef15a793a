/* job_priv.h -- what the job queue's files share (job.c, job_run.c): the queue and its jobs,
 * the queue's state calls that a running job makes. */
#ifndef FT_JOB_PRIV_H
#define FT_JOB_PRIV_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "job.h"
#include "jobfs.h"

#define CANCEL_GRACE_S 5.0

/* A job the queue holds: its id and its checked spec, decoded once. */
struct job {
	int64_t id;
	struct job_spec spec;
	struct job *next;
};

#define JOBQ_UNRECORDED_MAX 16

struct jobq {
	struct jobq_env env; /* now_s never NULL */
	pthread_t thread;
	bool thread_started;
	pthread_mutex_t lock;
	pthread_cond_t wake; /* new job, cancel, or stop */
	pthread_cond_t done; /* the running job finished */
	bool stop;
	struct job *head, *tail;        /* queued jobs, oldest first */
	int64_t running_id;             /* 0 when idle */
	bool cancel;                    /* cancel the running job */
	double progress;                /* of the running job, 0..1, never lower than before */
	struct contain contain;         /* where every pass's processes are kept */
	struct jobfs jobfs;             /* where job filesystems are mounted (STATE_DIR/fs) */
	char fs_device[SYSFS_NAME_MAX]; /* the device the running job has its filesystem on */
	/* Jobs that ended but whose end the database did not take (the state directory is full):
	 * shown ended all the same, written as soon as the database takes it (issue 23 item 6). */
	struct job_end {
		int64_t id;
		enum job_state state;
		double finished_at;
		char code[40], message[256];
	} unrecorded[JOBQ_UNRECORDED_MAX];
	int n_unrecorded;
	void (*watch_fn)(void *cls, int64_t id); /* a job's version changed (jobq_watch) */
	void *watch_cls;
};

/* Job id's version changed: tell the watcher (takes q->lock). */
void jobq_changed(struct jobq *q, int64_t id);
/* Move job id's progress to p (it never goes back) and tell the watcher when its version
 * changed: a new progress step, or a pass that just landed. */
void jobq_progress_set(struct jobq *q, int64_t id, double p, bool pass_landed);
/* The running job is cancelled or the queue stops. */
bool jobq_should_stop(struct jobq *q);
/* Keep a job's end the database did not take (it is shown ended, and written later). */
void jobq_end_unrecorded(struct jobq *q, int64_t id, enum job_state state, double at,
                         const struct err *why, const char *store_msg);

/* Put back the restore snapshot a job recorded, if it has one (origin "job N WHY"). */
void job_restore_saved(struct jobq *q, int64_t id, const char *why);
/* Run a started job to its end state (job_run.c). Nothing re-reads or re-checks the spec. */
void job_run(struct jobq *q, struct job *job);

#endif
