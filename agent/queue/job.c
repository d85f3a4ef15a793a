/* job.c -- benchmark jobs: the FIFO queue and its workers (a lane per device: jobs on different
 * devices run at once, jobs on one device one after another in FIFO order), progress, cancel,
 * recovery (a job's run and its loops are job_run.c's).
 * Specs arrive decoded (struct job_spec), checked by job_check.c, and are run as they are. */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bell.h"
#include "buf.h"
#include "job/jobdir.h"
#include "job/jobfs.h"
#include "job/proc.h"
#include "log.h"
#include "queue/job.h"
#include "timeutil.h"
#include "utf8.h"
#include "xmalloc.h"
#include "banned.h"

/* A job the queue holds: its id and its checked spec, decoded once. */
struct job {
	int64_t id;
	struct job_spec spec;
	struct job *next;
};

#define JOBQ_UNRECORDED_MAX 16

/* A device's exclusive opens, one holder at a time: the in-use probe, mkfs's dry run, mkfs and
 * mount each open it O_EXCL, and one beside another fails with EBUSY ("mkfs.xfs: cannot open
 * /dev/loop3: Device or resource busy"). A claim lives with its holder (a check's stack, the
 * lane making its job's filesystem) and is linked in struct jobq's claims while held. */
struct claim {
	char dev[SYSFS_NAME_MAX];
	struct claim *next;
};

/* One device's worker: it runs the device's queued jobs one at a time, oldest first. Made by
 * the first job for the device, it lives until the queue stops. Every field but the thread is
 * under the queue's lock. */
struct lane {
	struct jobq *q;
	char device[SYSFS_NAME_MAX];
	pthread_t thread;
	int64_t running_id; /* 0 when idle */
	bool cancel;        /* cancel the running job */
	int bell_fd;        /* an eventfd rung when cancel or the queue's stop is set (bell.h) */
	double progress;    /* of the running job, 0..1, never lower than before */
	char fs_device[SYSFS_NAME_MAX]; /* the device the running job has its filesystem on */
	struct claim claim;             /* its exclusive opens while it makes it (run_fs_begin) */
	/* A job that ended (recorded) while the device's next job was due, its end announced to
	 * the watcher at end_announce_at, once that one has begun (0: none). */
	int64_t end_unannounced;
	double end_announce_at;
	struct lane *next;
};

/* A job's end is announced after the device's next job has begun, JOB_END_ANNOUNCE_LAG_S past
 * its start_at, when that start_at is at most JOB_END_DEFER_S off (or past): the answers it
 * wakes, and what the client does on them (its next POSTs, to every node at once), then land
 * neither before that start nor in the moment every node starts at. */
#define JOB_END_DEFER_S 2.0
#define JOB_END_ANNOUNCE_LAG_S 0.3

struct jobq {
	struct jobq_env env; /* now_s never NULL */
	pthread_mutex_t lock;
	pthread_cond_t wake; /* new job, cancel, or stop */
	pthread_cond_t done; /* a running job finished */
	bool stop;
	struct job *head, *tail;  /* queued jobs, oldest first, every device's */
	struct lane *lanes;       /* a worker per device that has had a job */
	struct claim *claims;     /* devices being opened exclusively, by whom (struct claim) */
	pthread_cond_t unclaimed; /* a claim was dropped */
	struct contain contain;   /* where every pass's processes are kept */
	struct jobfs jobfs;       /* where job filesystems are mounted (STATE_DIR/fs) */
	/* Jobs that ended but whose end the database did not take (the state directory is full):
	 * shown ended all the same, written as soon as the database takes it (issue 23 item 6). */
	struct job_end {
		int64_t id;
		enum job_state state;
		double finished_at;
		struct err why; /* ERR_NONE: it succeeded */
	} unrecorded[JOBQ_UNRECORDED_MAX];
	int n_unrecorded;
	void (*watch_fn)(void *cls, int64_t id, bool ended); /* a version changed (jobq_watch) */
	void *watch_cls;
};

/* The progress step of a running job: 0..JOB_PROGRESS_STEPS. */
static uint64_t progress_step(double progress)
{
	if (!(progress > 0))
		return 0;
	if (progress >= 1)
		return JOB_PROGRESS_STEPS;
	return (uint64_t)(progress * JOB_PROGRESS_STEPS);
}

/* Phase in the top bits (queued 1, running 2, ended 3: never 0, so after=0 always answers at
 * once), then loops_done, then the progress step of a running job. */
uint64_t job_version(enum job_state state, int loops_done, double progress)
{
	uint64_t phase = state == JOB_QUEUED ? 1 : state == JOB_RUNNING ? 2 : 3;

	if (loops_done < 0)
		loops_done = 0;
	return phase << 24 | (uint64_t)loops_done << 8 | (phase == 2 ? progress_step(progress) : 0);
}

bool job_changed_since(uint64_t version, uint64_t after)
{
	return version != after;
}

uint64_t job_wait_key(int64_t id, bool until_end)
{
	/* Ids are positive int64: bit 63 is free to tell the two kinds of wait apart. */
	return (uint64_t)id | (until_end ? UINT64_C(1) << 63 : 0);
}

void jobq_watch(struct jobq *q, void (*fn)(void *cls, int64_t id, bool ended), void *cls)
{
	pthread_mutex_lock(&q->lock);
	q->watch_fn = fn;
	q->watch_cls = cls;
	pthread_mutex_unlock(&q->lock);
}

/* Job id's version changed (ended: to a final state): tell the watcher. The caller holds
 * q->lock. */
static void changed_locked(struct jobq *q, int64_t id, bool ended)
{
	if (q->watch_fn)
		q->watch_fn(q->watch_cls, id, ended);
}

static void jobq_changed(struct jobq *q, int64_t id, bool ended)
{
	pthread_mutex_lock(&q->lock);
	changed_locked(q, id, ended);
	pthread_mutex_unlock(&q->lock);
}

static void job_free(struct job *j)
{
	if (!j)
		return;
	job_spec_release(&j->spec);
	free(j);
}

/* Append a job to the queue; the caller holds q->lock. Takes spec over. */
static void queue_push(struct jobq *q, int64_t id, struct job_spec *spec)
{
	struct job *j = xcalloc(1, sizeof(*j));

	j->id = id;
	j->spec = *spec;
	job_spec_init(spec);
	if (q->tail)
		q->tail->next = j;
	else
		q->head = j;
	q->tail = j;
}

/* Take job id out of the queue (NULL if it is not queued); the caller holds q->lock. */
static struct job *queue_remove(struct jobq *q, int64_t id)
{
	struct job **pp, *prev = NULL;

	for (pp = &q->head; *pp; prev = *pp, pp = &(*pp)->next) {
		struct job *j = *pp;

		if (j->id != id)
			continue;
		*pp = j->next;
		if (q->tail == j)
			q->tail = prev;
		j->next = NULL;
		return j;
	}
	return NULL;
}

/* Whether the running job has its filesystem on dev (the caller holds q->lock): the device
 * checks of a job for dev then wait for its start (mkfs cannot dry-run on the mounted device). */
static bool fs_held_locked(const struct jobq *q, const char *dev)
{
	const struct lane *l;

	for (l = q->lanes; l; l = l->next)
		if (l->running_id && !strcmp(l->fs_device, dev))
			return true;
	return false;
}

/* Wait until no one opens dev exclusively, then hold its exclusive opens with c, until
 * claim_drop_locked; the caller holds q->lock. */
static void claim_take_locked(struct jobq *q, struct claim *c, const char *dev)
{
	const struct claim *o;

	snprintf(c->dev, sizeof(c->dev), "%s", dev);
	for (o = q->claims; o;) {
		if (strcmp(o->dev, c->dev)) {
			o = o->next;
			continue;
		}
		pthread_cond_wait(&q->unclaimed, &q->lock);
		o = q->claims; /* the list changed: from the start */
	}
	c->next = q->claims;
	q->claims = c;
}

static void claim_drop_locked(struct jobq *q, struct claim *c)
{
	struct claim **pp;

	for (pp = &q->claims; *pp; pp = &(*pp)->next)
		if (*pp == c) {
			*pp = c->next;
			break;
		}
	pthread_cond_broadcast(&q->unclaimed);
}

/* The lane running job id (NULL: none runs it); the caller holds q->lock. */
static struct lane *lane_running(struct jobq *q, int64_t id)
{
	struct lane *l;

	for (l = q->lanes; l; l = l->next)
		if (l->running_id == id)
			return l;
	return NULL;
}

static void *lane_main(void *arg);

/* Device dev's lane, made with its worker when dev has none yet; the caller holds q->lock.
 * -EAGAIN "internal" when the thread cannot be started. */
static int lane_get(struct jobq *q, const char *dev, struct err *e)
{
	struct lane *l;

	for (l = q->lanes; l; l = l->next)
		if (!strcmp(l->device, dev))
			return 0;
	l = xcalloc(1, sizeof(*l));
	l->q = q;
	snprintf(l->device, sizeof(l->device), "%s", dev);
	/* Without one (no eventfd), its passes look at the flags every 200 ms (job_run.h). */
	l->bell_fd = bell_open();
	if (pthread_create(&l->thread, NULL, lane_main, l)) {
		if (l->bell_fd >= 0)
			close(l->bell_fd);
		free(l);
		return err_set(e, -EAGAIN, ERR_INTERNAL, "cannot start the job worker of '%s'",
		               dev);
	}
	l->next = q->lanes;
	q->lanes = l;
	return 0;
}

int job_check(struct jobq *q, struct job_spec *spec, struct jobfs_made *would, struct err *e)
{
	struct jobfs_made own;
	struct claim c;
	bool held, claimed = false;
	int rc;

	/* held (the running job's filesystem is on it, made or being made): the check opens the
	 * device not at all, and never waits on the lane's mkfs. Else its probes take turns with
	 * every other check's and with a lane about to make its job's filesystem, and held is read
	 * again once they may begin. */
	pthread_mutex_lock(&q->lock);
	held = fs_held_locked(q, spec->device);
	if (!held) {
		claim_take_locked(q, &c, spec->device);
		claimed = true;
		held = fs_held_locked(q, spec->device);
	}
	pthread_mutex_unlock(&q->lock);
	rc = job_spec_dry_run(&q->env, spec, held, would ? would : &own, e);
	if (claimed) {
		pthread_mutex_lock(&q->lock);
		claim_drop_locked(q, &c);
		pthread_mutex_unlock(&q->lock);
	}
	return rc;
}

int job_submit(struct jobq *q, struct job_spec *spec, int64_t *id, struct err *e)
{
	int max_queued = q->env.max_queued > 0 ? q->env.max_queued : JOBQ_DEFAULT_MAX_QUEUED;
	char dev[SYSFS_NAME_MAX];
	const struct job *j;
	const char *engine;
	int rc, loops, n_queued = 0;

	rc = job_check(q, spec, NULL, e);
	if (rc)
		return rc;
	snprintf(dev, sizeof(dev), "%s", spec->device);
	engine = spec->engine->name;
	loops = spec->loops;
	pthread_mutex_lock(&q->lock);
	for (j = q->head; j; j = j->next)
		n_queued++;
	if (q->stop) {
		rc = err_set(e, -EAGAIN, ERR_SHUTTING_DOWN,
		             "the agent is stopping: nothing is queued");
		goto out;
	}
	if (n_queued >= max_queued) {
		rc = err_set(e, -EAGAIN, ERR_QUEUE_FULL,
		             "the agent's queue holds %d jobs already (its limit, --max-queued): "
		             "submit again once some have run, or cancel some",
		             n_queued);
		goto out;
	}
	rc = lane_get(q, dev, e);
	if (rc)
		goto out;
	rc = store_job_insert(q->env.store, spec, q->env.now_s(), id, e);
	if (rc == 0) {
		queue_push(q, *id, spec);
		pthread_cond_broadcast(&q->wake);
	} else if (spec->params.n) {
		/* The job's params are writes: a job that cannot be recorded cannot have them
		 * audited either (503, as a PATCH on a full disk). */
		struct err se = *e;

		rc = err_set(e, rc, ERR_AUDIT_UNAVAILABLE,
		             "cannot record the job and the writes of its params in the database, "
		             "so it was not queued: %s",
		             se.msg);
	}
out:
	pthread_mutex_unlock(&q->lock);
	if (rc == 0)
		log_info("job %lld queued: %s on %s, %d loop(s)", (long long)*id, engine, dev,
		         loops);
	return rc;
}

/* Wait on cond (the caller holds lock) for at most wait_s: the condition variable's deadline
 * is on CLOCK_REALTIME, whatever clock the queue records times with. */
static void cond_wait_s(pthread_cond_t *cond, pthread_mutex_t *lock, double wait_s)
{
	struct timespec ts;

	time_deadline_after(wait_s, &ts);
	pthread_cond_timedwait(cond, lock, &ts);
}

int job_cancel(struct jobq *q, int64_t id, struct err *e)
{
	struct job_rec rec;
	struct lane *l;
	struct job *j;
	double deadline;
	int rc;

	pthread_mutex_lock(&q->lock);
	j = queue_remove(q, id);
	if (j) {
		rc = store_job_cancel_queued(q->env.store, id, q->env.now_s(), e);
		if (rc == 0)
			changed_locked(q, id, true);
		pthread_mutex_unlock(&q->lock);
		job_free(j);
		if (rc == 0)
			log_info("job %lld cancelled while queued", (long long)id);
		else if (rc == -EBUSY)
			rc = err_set(e, -EBUSY, ERR_CONFLICT, "job %lld is no longer queued",
			             (long long)id);
		return rc;
	}
	l = lane_running(q, id);
	if (!l) {
		pthread_mutex_unlock(&q->lock);
		rc = store_job_get(q->env.store, id, &rec, e);
		if (rc)
			return rc;
		rc = err_set(e, -EBUSY, ERR_CONFLICT, "job %lld already %s", (long long)id,
		             rec.state);
		store_job_rec_release(&rec);
		return rc;
	}
	l->cancel = true;
	bell_ring(l->bell_fd);
	pthread_cond_broadcast(&q->wake);
	/* Wait for the device's worker: SIGTERM, up to 5 s of grace, SIGKILL, restore. A lane
	 * lives until the queue stops, so l stays valid while we wait. */
	deadline = time_mono_s() + CANCEL_GRACE_S + 10;
	while (l->running_id == id && time_mono_s() < deadline)
		cond_wait_s(&q->done, &q->lock, 0.2);
	rc = l->running_id == id ? -EINPROGRESS : 0;
	pthread_mutex_unlock(&q->lock);
	return rc;
}

/* Whether restore item name is one a write of written[0..n) replaced. */
static bool restore_superseded(const char *name, const struct tune_item *written, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		const char *w = written[i].name;

		if (!strcmp(written[i].previous, written[i].applied))
			continue;
		if (!strcmp(w, "scheduler") || !strcmp(w, name) ||
		    (!strcmp(w, "setra") && !strcmp(name, "read_ahead_kb")))
			return true;
	}
	return false;
}

void job_params_written(struct jobq *q, const char *device, const struct tune_item *items, int n,
                        const char *origin)
{
	struct store *store = q->env.store;
	struct tune_snapshot snap = { { 0 }, 0, NULL };
	char why[512], at[40];
	bool found = false;
	int64_t id;
	int i, kept = 0, changed = 0;
	const struct lane *l;
	struct err e;

	for (i = 0; i < n; i++)
		changed += strcmp(items[i].previous, items[i].applied) != 0;
	id = 0;
	pthread_mutex_lock(&q->lock);
	for (l = q->lanes; l && !id; l = l->next)
		if (!strcmp(l->device, device))
			id = l->running_id;
	pthread_mutex_unlock(&q->lock);
	if (!id || !changed)
		return;
	err_clear(&e);
	if (store_job_restore(store, id, &snap, &found, &e))
		goto fail;
	if (found && strcmp(snap.device, device))
		goto out;
	time_fmt_iso(q->env.now_s(), at, sizeof(at));
	snprintf(why, sizeof(why), "%s wrote %d value(s) at %s", origin, changed, at);
	if (store_jobs_mark_changed(store, device, why, &e))
		goto fail;
	if (!found)
		goto out;
	for (i = 0; i < snap.n; i++)
		if (!restore_superseded(snap.items[i].name, items, n))
			snap.items[kept++] = snap.items[i];
	if (kept == snap.n)
		goto out;
	snap.n = kept;
	if (store_job_set_restore(store, id, &snap, &e))
		goto fail;
	log_info("job %lld on %s: %s; its end will not put back what that wrote", (long long)id,
	         device, why);
	goto out;
fail:
	log_error("job %lld on %s: cannot record that %s wrote its params: %s", (long long)id,
	          device, origin, e.msg);
out:
	tune_snapshot_release(&snap);
}

/* Fill rec->progress (live for the running job, else from its state and loops) and
 * rec->version. */
static void progress_fill(struct jobq *q, struct job_rec *rec)
{
	int state = job_state_parse(rec->state), k;
	const struct lane *l;
	bool running;

	pthread_mutex_lock(&q->lock);
	l = lane_running(q, rec->id);
	running = l != NULL;
	if (running)
		rec->progress = l->progress;
	for (k = 0; k < q->n_unrecorded; k++) {
		const struct job_end *je = &q->unrecorded[k];

		if (je->id != rec->id)
			continue;
		snprintf(rec->state, sizeof(rec->state), "%s", job_state_name(je->state));
		rec->finished_at = je->finished_at;
		rec->has_error = je->why.code != ERR_NONE;
		snprintf(rec->error_code, sizeof(rec->error_code), "%s", err_word(&je->why));
		snprintf(rec->error_message, sizeof(rec->error_message), "%s", je->why.msg);
		state = (int)je->state;
	}
	pthread_mutex_unlock(&q->lock);
	if (!running)
		rec->progress = state == JOB_SUCCEEDED ? 1.0
		                : rec->loops > 0       ? (double)rec->loops_done / rec->loops
		                                       : 0;
	if (rec->spec_ok)
		job_deadlines(&q->env, &rec->spec, &rec->pass_deadline_s, &rec->run_deadline_s);
	/* A word no state has (a damaged row) counts as ended, as any final state does. */
	rec->version = job_version(state < 0 ? JOB_N_STATES : (enum job_state)state,
	                           rec->loops_done, rec->progress);
}

int job_get(struct jobq *q, int64_t id, struct job_rec *out, struct err *e)
{
	int rc = store_job_get(q->env.store, id, out, e);

	if (rc == 0)
		progress_fill(q, out);
	return rc;
}

int job_list(struct jobq *q, const char *state, int limit, bool with_params, struct job_rec **out,
             int *n, struct err *e)
{
	int rc = store_jobs_list(q->env.store, state, limit, with_params, out, n, e), i;

	for (i = 0; rc == 0 && i < *n; i++)
		progress_fill(q, &(*out)[i]);
	return rc;
}

int job_results(struct jobq *q, const struct result_filter *f, struct job_rec **out, int *n,
                struct err *e)
{
	int rc = store_results(q->env.store, f, out, n, e), i;

	for (i = 0; rc == 0 && i < *n; i++)
		progress_fill(q, &(*out)[i]);
	return rc;
}

int job_passes(struct jobq *q, int64_t id, struct pass_rec **out, int *n, struct err *e)
{
	return store_job_passes(q->env.store, id, out, n, e);
}

int job_raw(struct jobq *q, int64_t id, int loop, char **raw, size_t *len, struct err *e)
{
	return store_job_raw(q->env.store, id, loop, raw, len, e);
}

static int lane_info_cmp(const void *a, const void *b)
{
	return strcmp(((const struct jobq_lane_info *)a)->device,
	              ((const struct jobq_lane_info *)b)->device);
}

void jobq_lanes(struct jobq *q, struct jobq_lane_info **out, int *n)
{
	const struct lane *l;
	const struct job *j;
	int k = 0, i;

	pthread_mutex_lock(&q->lock);
	for (l = q->lanes; l; l = l->next)
		k++;
	*out = xcalloc((size_t)k + 1, sizeof(**out));
	for (l = q->lanes, i = 0; l; l = l->next, i++) {
		snprintf((*out)[i].device, sizeof((*out)[i].device), "%s", l->device);
		(*out)[i].running_id = l->running_id;
		for (j = q->head; j; j = j->next)
			(*out)[i].queued += !strcmp(j->spec.device, l->device);
	}
	pthread_mutex_unlock(&q->lock);
	qsort(*out, (size_t)k, sizeof(**out), lane_info_cmp);
	*n = k;
}

int job_state_counts(struct jobq *q, int64_t *counts)
{
	return store_job_state_counts(q->env.store, job_state_names, JOB_N_STATES, counts);
}

int job_last_metrics(struct jobq *q, struct store_job_metric **out, int *n, struct err *e)
{
	return store_last_job_metrics(q->env.store, out, n, e);
}

/* Announce the end of l's job that waited for the next one's start; the caller holds q->lock. */
static void end_announce_locked(struct lane *l)
{
	if (!l->end_unannounced)
		return;
	changed_locked(l->q, l->end_unannounced, true);
	l->end_unannounced = 0;
}

static void end_announce(struct lane *l)
{
	pthread_mutex_lock(&l->q->lock);
	end_announce_locked(l);
	pthread_mutex_unlock(&l->q->lock);
}

/* Move job id's progress to p (it never goes back: an engine's estimate may wobble) and tell
 * the watcher when its version changed: a new progress step, or a pass that just landed; and
 * the end of the lane's job before, once its time has come (job_end). */
static double lane_progress_set(struct lane *l, double p, bool pass_landed)
{
	struct jobq *q = l->q;
	uint64_t before;
	double due;

	pthread_mutex_lock(&q->lock);
	before = progress_step(l->progress);
	p = p < 0 ? 0 : p > 1 ? 1 : p;
	if (p > l->progress)
		l->progress = p;
	if (pass_landed || progress_step(l->progress) != before)
		changed_locked(q, l->running_id, false);
	if (l->end_unannounced && q->env.now_s() >= l->end_announce_at)
		end_announce_locked(l);
	due = l->end_unannounced ? l->end_announce_at : 0;
	pthread_mutex_unlock(&q->lock);
	return due;
}

/* Keep a job's end the database did not take (it is shown ended, and written later). */
static void jobq_end_unrecorded(struct jobq *q, int64_t id, enum job_state state, double at,
                                const struct err *why, const char *store_msg)
{
	struct job_end *je;

	pthread_mutex_lock(&q->lock);
	if (q->n_unrecorded < JOBQ_UNRECORDED_MAX) {
		je = &q->unrecorded[q->n_unrecorded++];
		memset(je, 0, sizeof(*je));
		je->id = id;
		je->state = state;
		je->finished_at = at;
		if (why)
			je->why = *why;
	}
	pthread_mutex_unlock(&q->lock);
	log_error("job %lld ended (%s) but the database cannot record it now (%s): it is shown "
	          "ended, and its end is written once the database takes it",
	          (long long)id, job_state_name(state), store_msg);
}

/* Write the ends kept by end_unrecorded that the database takes now (q->lock held). */
static void ends_flush_locked(struct jobq *q)
{
	struct job_end *je;
	struct err e;
	int i;

	for (i = 0; i < q->n_unrecorded;) {
		je = &q->unrecorded[i];
		err_clear(&e);
		if (store_job_finish(q->env.store, je->id, je->state, je->finished_at,
		                     je->why.code != ERR_NONE ? &je->why : NULL, &e)) {
			i++;
			continue;
		}
		log_info("job %lld: its end (%s) is recorded now", (long long)je->id,
		         job_state_name(je->state));
		q->unrecorded[i] = q->unrecorded[--q->n_unrecorded];
	}
}

/* The oldest queued job for dev (NULL: none); the caller holds q->lock. */
static struct job *queue_first_for(struct jobq *q, const char *dev)
{
	struct job *j;

	for (j = q->head; j; j = j->next)
		if (!strcmp(j->spec.device, dev))
			return j;
	return NULL;
}

/* Wait for a queued job of l's device or stop; returns the next job (l->running_id set) or
 * NULL to stop. While an end waits to be recorded, it is tried again every second. */
static struct job *next_job(struct lane *l)
{
	struct jobq *q = l->q;
	struct job *j = NULL;

	pthread_mutex_lock(&q->lock);
	for (;;) {
		if (q->n_unrecorded)
			ends_flush_locked(q);
		if (q->stop || (j = queue_first_for(q, l->device)))
			break;
		end_announce_locked(l); /* the job it waited for went (cancelled) */
		if (q->n_unrecorded)
			cond_wait_s(&q->wake, &q->lock, 1.0);
		else
			pthread_cond_wait(&q->wake, &q->lock);
	}
	if (!q->stop) {
		queue_remove(q, j->id);
		l->running_id = j->id;
		l->cancel = false;
		l->progress = 0;
	} else {
		end_announce_locked(l);
		j = NULL;
	}
	pthread_mutex_unlock(&q->lock);
	return j;
}

/* The run's hooks (job_run.h) on the queue. */
static enum job_state run_stopped(void *cls)
{
	struct lane *l = cls;
	struct jobq *q = l->q;
	enum job_state s = JOB_RUNNING;

	pthread_mutex_lock(&q->lock);
	if (q->stop)
		s = JOB_INTERRUPTED;
	else if (l->cancel)
		s = JOB_CANCELLED;
	pthread_mutex_unlock(&q->lock);
	return s;
}

static double run_progress(void *cls, double p, bool pass_landed)
{
	return lane_progress_set(cls, p, pass_landed);
}

static enum job_state run_hold_until(void *cls, double at_s)
{
	struct lane *l = cls;
	struct jobq *q = l->q;
	enum job_state s = JOB_RUNNING;
	double left;

	pthread_mutex_lock(&q->lock);
	for (;;) {
		if (q->stop || l->cancel) {
			s = q->stop ? JOB_INTERRUPTED : JOB_CANCELLED;
			break;
		}
		left = at_s - q->env.now_s();
		if (left <= 0)
			break;
		/* Woken early by a submit, a cancel or the stop: look again. */
		cond_wait_s(&q->wake, &q->lock, left);
	}
	pthread_mutex_unlock(&q->lock);
	return s;
}

/* The run's filesystem is to be made on dev: the lane has it from now on (checks leave the
 * device to the job's start), and its exclusive opens once the checks' are over. */
static void run_fs_begin(void *cls, const char *dev)
{
	struct lane *l = cls;
	struct jobq *q = l->q;

	pthread_mutex_lock(&q->lock);
	snprintf(l->fs_device, sizeof(l->fs_device), "%s", dev);
	claim_take_locked(q, &l->claim, dev);
	pthread_mutex_unlock(&q->lock);
}

static void run_fs_made(void *cls)
{
	struct lane *l = cls;
	struct jobq *q = l->q;

	pthread_mutex_lock(&q->lock);
	claim_drop_locked(q, &l->claim);
	pthread_mutex_unlock(&q->lock);
}

static void run_fs_gone(void *cls)
{
	struct lane *l = cls;
	struct jobq *q = l->q;

	pthread_mutex_lock(&q->lock);
	l->fs_device[0] = '\0';
	pthread_mutex_unlock(&q->lock);
}

/* Record job id's end on l, state (e says why when it did not succeed); an end the database
 * does not take is kept and shown all the same. It is announced at once, or when the device's
 * next job is due within JOB_END_DEFER_S, once that one's pass runs JOB_END_ANNOUNCE_LAG_S past
 * its start_at (lane_progress_set), or as it ends before. */
static void job_end(struct lane *l, int64_t id, enum job_state state, const struct err *e)
{
	struct jobq *q = l->q;
	bool ok = state == JOB_SUCCEEDED;
	const struct job *next;
	struct err se;
	double now;

	err_clear(&se);
	now = q->env.now_s();
	if (store_job_finish(q->env.store, id, state, now, ok ? NULL : e, &se))
		jobq_end_unrecorded(q, id, state, now, ok ? NULL : e, se.msg);
	pthread_mutex_lock(&q->lock);
	next = queue_first_for(q, l->device);
	if (!q->stop && next && next->spec.start_at > 0 &&
	    next->spec.start_at - now <= JOB_END_DEFER_S) {
		l->end_unannounced = id;
		l->end_announce_at = next->spec.start_at + JOB_END_ANNOUNCE_LAG_S;
	} else
		changed_locked(q, id, true);
	pthread_mutex_unlock(&q->lock);
}

static void *lane_main(void *arg)
{
	struct lane *l = arg;
	struct jobq *q = l->q;
	struct job_runner runner = { &q->env,
		                     &q->contain,
		                     &q->jobfs,
		                     { run_stopped, run_progress, run_fs_begin, run_fs_made,
		                       run_fs_gone, run_hold_until, l, l->bell_fd } };
	struct job *job;
	struct err e;

	while ((job = next_job(l))) {
		err_clear(&e);
		if (store_job_start(q->env.store, job->id, q->env.now_s(), &e) == 0) {
			enum job_state st;

			jobq_changed(q, job->id, false);
			st = job_run(&runner, job->id, &job->spec, &e);
			end_announce(l); /* the run ended before its engine began */
			job_end(l, job->id, st, &e);
		} else {
			end_announce(l);
			log_error("job %lld not started: %s", (long long)job->id, e.msg);
		}
		pthread_mutex_lock(&q->lock);
		l->running_id = 0;
		l->cancel = false;
		pthread_cond_broadcast(&q->done);
		pthread_mutex_unlock(&q->lock);
		job_free(job);
	}
	return NULL;
}

/* Jobs left "running" by a crashed agent: kill their engine, restore, mark interrupted.
 * -errno with err filled if they cannot be read (the agent must not start then). */
static int recover(struct jobq *q, struct err *err)
{
	struct job_rec *list = NULL;
	int n = 0, i, rc;
	struct err e, why;

	rc = store_jobs_list(q->env.store, job_state_name(JOB_RUNNING), 1000, false, &list, &n,
	                     err);
	if (rc) {
		log_error("cannot list the jobs a previous run left running: %s", err->msg);
		return rc;
	}
	for (i = 0; i < n; i++) {
		struct job_rec *j = &list[i];
		const struct engine *eng = engine_find(j->engine);

		if (j->pgid > 0 && eng) {
			const char *exe = engine_exe(eng, q->env.fio_path),
			           *base = strrchr(exe, '/');

			if (proc_kill_stale_group((pid_t)j->pgid, base ? base + 1 : exe) > 0)
				log_info("job %lld: killed leftover %s process group %lld",
				         (long long)j->id, j->engine, (long long)j->pgid);
		}
		job_restore_saved(&q->env, j->id, "interrupted");
		err_clear(&e);
		err_set(&why, 0, ERR_INTERRUPTED, "the agent stopped while the job was running");
		if (store_job_finish(q->env.store, j->id, JOB_INTERRUPTED, q->env.now_s(), &why,
		                     &e))
			log_error("job %lld: %s", (long long)j->id, e.msg);
		log_info("job %lld marked interrupted (agent restarted mid-job)", (long long)j->id);
	}
	store_jobs_free(list, n);
	return 0;
}

/* Take up the jobs a previous run left queued, oldest first: their specs are decoded once
 * here, by the same codec the API uses. A spec that cannot be read fails its job. */
static int queue_load(struct jobq *q, struct err *e)
{
	struct job_rec *list = NULL;
	int n = 0, i, rc;

	rc = store_jobs_queued(q->env.store, &list, &n, e);
	if (rc)
		return rc;
	for (i = 0; i < n; i++) {
		struct err fe, why;

		if (list[i].spec_ok) {
			char dev[SYSFS_NAME_MAX];

			snprintf(dev, sizeof(dev), "%s", list[i].spec.device);
			pthread_mutex_lock(&q->lock);
			queue_push(q, list[i].id, &list[i].spec);
			rc = lane_get(q, dev, e);
			pthread_mutex_unlock(&q->lock);
			if (rc) {
				store_jobs_free(list, n);
				return rc;
			}
			continue;
		}
		err_clear(&fe);
		err_set(&why, 0, ERR_INTERNAL, "the stored job spec is unreadable");
		if (store_job_finish(q->env.store, list[i].id, JOB_FAILED, q->env.now_s(), &why,
		                     &fe))
			log_error("job %lld: %s", (long long)list[i].id, fe.msg);
	}
	if (n)
		log_info("%d queued job(s) taken up from the database", n);
	store_jobs_free(list, n);
	return 0;
}

int jobq_start(struct jobq **out, const struct jobq_env *env, struct err *e)
{
	struct jobq *q = xcalloc(1, sizeof(*q));
	int rc;

	q->env = *env;
	if (!q->env.now_s)
		q->env.now_s = time_now_s;
	pthread_mutex_init(&q->lock, NULL);
	pthread_cond_init(&q->wake, NULL);
	pthread_cond_init(&q->done, NULL);
	pthread_cond_init(&q->unclaimed, NULL);
	rc = contain_init(&q->contain, env->fs ? env->fs->root : NULL, env->state_dir, env->contain,
	                  e);
	if (rc) {
		free(q);
		return rc;
	}
	rc = jobfs_init(&q->jobfs, env->fs ? env->fs->root : NULL, env->state_dir, NULL, e);
	if (rc) {
		contain_fini(&q->contain);
		free(q);
		return rc;
	}
	contain_recover(&q->contain);  /* the processes of jobs a crashed agent left running */
	jobfs_recover(&q->jobfs);      /* then the filesystems they had mounted */
	job_prestart_recover(&q->env); /* and their pre-started passes' directories */
	if (recover(q, e) || queue_load(q, e)) {
		jobq_stop(q);
		return -EIO;
	}
	*out = q;
	return 0;
}

void jobq_stop(struct jobq *q)
{
	struct lane *l;

	if (!q)
		return;
	pthread_mutex_lock(&q->lock);
	q->stop = true;
	for (l = q->lanes; l; l = l->next)
		bell_ring(l->bell_fd);
	pthread_cond_broadcast(&q->wake);
	pthread_mutex_unlock(&q->lock);
	/* Every device's worker stops its job (interrupted, params restored), at once. No lane
	 * is made once stop is set. */
	for (l = q->lanes; l; l = l->next)
		pthread_join(l->thread, NULL);
	while (q->lanes) {
		l = q->lanes;
		q->lanes = l->next;
		if (l->bell_fd >= 0)
			close(l->bell_fd);
		free(l);
	}
	while (q->head) {
		struct job *j = q->head;

		q->head = j->next;
		job_free(j);
	}
	jobfs_release(&q->jobfs);
	contain_fini(&q->contain);
	pthread_cond_destroy(&q->wake);
	pthread_cond_destroy(&q->done);
	pthread_cond_destroy(&q->unclaimed);
	pthread_mutex_destroy(&q->lock);
	free(q);
}
