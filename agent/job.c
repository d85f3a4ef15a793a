/* job.c -- benchmark jobs: spec validation, the FIFO worker, loops, progress, cancel, recovery. */
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent.h"
#include "contain.h"
#include "engine.h"
#include "job.h"
#include "log.h"
#include "num.h"
#include "proc.h"
#include "timeutil.h"
#include "xmalloc.h"
#include "banned.h"

#define JOB_LOOPS_MAX 100
#define JOB_LABELS_MAX 32
#define JOB_PARAMS_MAX 64
#define CANCEL_GRACE_S 5.0
#define POLL_MS 200

struct jobq {
	struct agent *a;
	pthread_t thread;
	bool thread_started;
	pthread_mutex_t lock;
	pthread_cond_t wake; /* new job, cancel, or stop */
	pthread_cond_t done; /* the running job finished */
	bool stop;
	int64_t running_id; /* 0 when idle */
	bool cancel;        /* cancel the running job */
	double progress;    /* of the running job, 0..1 */
	int64_t last_finished_id;
	struct contain contain; /* where every pass's processes are kept */
};

const char *const job_spec_keys[] = { "device", "directory", "engine", "fio",    "dd", "bonnie",
	                              "iozone", "loops",     "params", "labels", NULL };

static bool path_under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (n == 1 && dir[0] == '/')
		return true;
	return !strncmp(path, dir, n) && (path[n] == '/' || path[n] == '\0');
}

/* Resolve and check a job directory: it must exist and lie under an --allow-dir. */
static int directory_check(const struct agent *a, const char *dir, char *real, size_t len,
                           struct err *e)
{
	char buf[PATH_MAX];
	struct stat st;
	int i;

	if (dir[0] != '/')
		return err_set(e, -EINVAL, "bad_request",
		               "directory: '%.200s' is not an absolute path", dir);
	if (!realpath(dir, buf) || stat(buf, &st) < 0 || !S_ISDIR(st.st_mode))
		return err_set(e, -EINVAL, "bad_request", "directory: '%.200s' is not a directory",
		               dir);
	for (i = 0; i < a->cfg.n_allow_dirs; i++) {
		if (path_under(buf, a->cfg.allow_dirs[i])) {
			snprintf(real, len, "%s", buf);
			return 0;
		}
	}
	return err_set(e, -EPERM, "dir_not_allowed",
	               "directory: '%.200s' is not under an --allow-dir of this agent", buf);
}

static bool label_key_ok(const char *k)
{
	const char *p;

	if (!*k || strlen(k) > 64)
		return false;
	for (p = k; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '_' || *p == '-' || *p == '.' || *p == ':'))
			return false;
	return true;
}

/* The job's params as tune items. Caller frees *items. */
static int params_items(const json_t *params, struct tune_item **items, int *n, struct err *e)
{
	const char *key;
	json_t *v;
	int k = 0;

	*items = NULL;
	*n = 0;
	if (!params)
		return 0;
	if (!json_is_object(params) || json_object_size(params) > JOB_PARAMS_MAX)
		return err_set(e, -EINVAL, "bad_request",
		               "params: expected an object of at most %d "
		               "parameters",
		               JOB_PARAMS_MAX);
	*items = xcalloc(json_object_size(params) + 1, sizeof(**items));
	json_object_foreach((json_t *)params, key, v)
	{
		struct tune_item *it = &(*items)[k];

		if (strlen(key) >= sizeof(it->name)) {
			free(*items);
			*items = NULL;
			return err_set(e, -ENOENT, "unknown_param", "params: no parameter '%.64s'",
			               key);
		}
		snprintf(it->name, sizeof(it->name), "%s", key);
		if (json_is_integer(v)) {
			snprintf(it->requested, sizeof(it->requested), "%lld",
			         (long long)json_integer_value(v));
		} else if (json_is_string(v) && json_string_length(v) < sizeof(it->requested)) {
			snprintf(it->requested, sizeof(it->requested), "%s", json_string_value(v));
		} else {
			free(*items);
			*items = NULL;
			return err_set(e, -EINVAL, "bad_request",
			               "params.%.64s: expected an integer or a string", key);
		}
		k++;
	}
	*n = k;
	return 0;
}

/* Validate a job body. On success fills the device and engine. */
static int spec_check(struct agent *a, json_t *body, const struct engine **engp, struct err *e)
{
	const char *dev, *engine_name, *key;
	const struct engine *eng;
	struct engine_target t;
	struct tune_item *items = NULL;
	char real[PATH_MAX], why[300], work[32];
	char **argv = NULL;
	json_t *v, *labels, *dir;
	int n_items = 0, rc, i;

	v = json_object_get(body, "device");
	if (!json_is_string(v))
		return err_set(e, -EINVAL, "bad_request", "device: required string");
	dev = json_string_value(v);
	if (!sysfs_device_name_ok(dev) || sysfs_device_check(&a->fs, dev, NULL))
		return err_set(e, -EINVAL, "bad_request", "device: no block device '%.64s'", dev);
	v = json_object_get(body, "engine");
	if (!v)
		return err_set(e, -EINVAL, "bad_request",
		               "engine: required (fio, dd, bonnie or "
		               "iozone)");
	if (!json_is_string(v) || !(eng = engine_find(json_string_value(v))))
		return err_set(e, -EINVAL, "bad_request",
		               "engine: expected one of fio, dd, bonnie, iozone");
	engine_name = eng->name;
	/* Every engine object given must be valid, even those not selected. */
	for (i = 0; i < 4; i++) {
		static const char *const names[] = { "fio", "dd", "bonnie", "iozone" };
		const struct engine *other = engine_find(names[i]);

		v = json_object_get(body, names[i]);
		if (!v && other != eng)
			continue;
		if (v && !json_is_object(v))
			return err_set(e, -EINVAL, "bad_request", "%s: expected an object",
			               names[i]);
		rc = other->check(v, e);
		if (rc)
			return rc;
	}
	v = json_object_get(body, "loops");
	if (v && (!json_is_integer(v) || json_integer_value(v) < 1 ||
	          json_integer_value(v) > JOB_LOOPS_MAX))
		return err_set(e, -EINVAL, "bad_request", "loops: expected an integer 1..%d",
		               JOB_LOOPS_MAX);
	labels = json_object_get(body, "labels");
	if (labels) {
		if (!json_is_object(labels) || json_object_size(labels) > JOB_LABELS_MAX)
			return err_set(e, -EINVAL, "bad_request",
			               "labels: expected an object of at most %d strings",
			               JOB_LABELS_MAX);
		json_object_foreach(labels, key, v)
		{
			if (!label_key_ok(key))
				return err_set(
				        e, -EINVAL, "bad_request",
				        "labels: key '%.64s' must be 1..64 of [A-Za-z0-9_.:-]",
				        key);
			if (!json_is_string(v) || json_string_length(v) > 256)
				return err_set(e, -EINVAL, "bad_request",
				               "labels.%s: expected a string of at most 256 bytes",
				               key);
		}
	}
	dir = json_object_get(body, "directory");
	if (dir && !json_is_string(dir))
		return err_set(e, -EINVAL, "bad_request", "directory: expected a string");
	if (!sysfs_device_allowed(&a->fs, dev))
		return err_set(e, -EBUSY, "device_refused",
		               "device '%s' is not in the agent's --allow-device list: it may not "
		               "be benchmarked",
		               dev);
	if (dir) {
		rc = directory_check(a, json_string_value(dir), real, sizeof(real), e);
		if (rc)
			return rc;
	} else if (eng->needs_directory) {
		return err_set(e, -EINVAL, "bad_request", "directory: required by engine %s",
		               engine_name);
	} else if (sysfs_device_in_use(&a->fs, dev, why, sizeof(why))) {
		return err_set(e, -EBUSY, "device_refused",
		               "refusing a raw-device job on '%s': %s (writing to it would destroy "
		               "data); give a directory instead",
		               dev, why);
	}
	rc = params_items(json_object_get(body, "params"), &items, &n_items, e);
	if (!rc && n_items)
		rc = tune_validate(&a->tune, dev, items, n_items, e);
	free(items);
	if (rc)
		return rc;
	rc = engine_available(eng, a->cfg.fio_path, e);
	if (rc)
		return rc;
	/* Build the argv once now, so a bad combination is a 400, not a failed pass. */
	snprintf(real, sizeof(real), "/dev/%s", dev);
	snprintf(work, sizeof(work), "ft-check");
	t.exe = engine_exe(eng, a->cfg.fio_path);
	t.device_path = real;
	t.directory = dir ? json_string_value(dir) : NULL;
	t.work_name = work;
	rc = eng->argv_build(json_object_get(body, eng->name), &t, &argv, e);
	engine_argv_free(argv);
	if (rc)
		return rc;
	*engp = eng;
	return 0;
}

int job_submit(struct jobq *q, json_t *body, int64_t *id, struct err *e)
{
	struct agent *a = q->a;
	const struct engine *eng = NULL;
	struct store_kv kv[JOB_LABELS_MAX];
	struct job_rec rec;
	const char *key;
	json_t *labels, *v;
	int n = 0, rc;

	rc = spec_check(a, body, &eng, e);
	if (rc)
		return rc;
	memset(&rec, 0, sizeof(rec));
	snprintf(rec.device, sizeof(rec.device), "%s",
	         json_string_value(json_object_get(body, "device")));
	snprintf(rec.engine, sizeof(rec.engine), "%s", eng->name);
	v = json_object_get(body, "loops");
	rec.loops = v ? (int)json_integer_value(v) : 1;
	rec.created_at = time_now_s();
	labels = json_object_get(body, "labels");
	if (labels) {
		json_object_foreach(labels, key, v)
		{
			kv[n].key = key;
			kv[n].value = json_string_value(v);
			n++;
		}
	}
	rec.spec = json_dumps(body, JSON_COMPACT | JSON_SORT_KEYS);
	rec.labels = labels ? json_dumps(labels, JSON_COMPACT | JSON_SORT_KEYS) : xstrdup("{}");
	rc = store_job_insert(a->store, &rec, kv, n, e);
	free(rec.spec);
	free(rec.labels);
	if (rc)
		return rc;
	*id = rec.id;
	log_info("job %lld queued: %s on %s, %d loop(s)", (long long)rec.id, rec.engine, rec.device,
	         rec.loops);
	pthread_mutex_lock(&q->lock);
	pthread_cond_signal(&q->wake);
	pthread_mutex_unlock(&q->lock);
	return 0;
}

int job_cancel(struct jobq *q, int64_t id, struct err *e)
{
	struct job_rec rec;
	double deadline;
	int rc;

	rc = store_job_cancel_queued(q->a->store, id, time_now_s(), e);
	if (rc == 0) {
		log_info("job %lld cancelled while queued", (long long)id);
		return 0;
	}
	if (rc != -EBUSY)
		return rc;
	pthread_mutex_lock(&q->lock);
	if (q->running_id != id) {
		pthread_mutex_unlock(&q->lock);
		rc = store_job_get(q->a->store, id, &rec, e);
		if (rc)
			return rc;
		rc = err_set(e, -EBUSY, "conflict", "job %lld already %s", (long long)id,
		             rec.state);
		store_job_rec_release(&rec);
		return rc;
	}
	q->cancel = true;
	pthread_cond_broadcast(&q->wake);
	/* Wait for the worker: SIGTERM, up to 5 s of grace, SIGKILL, restore. */
	deadline = time_now_s() + CANCEL_GRACE_S + 10;
	while (q->running_id == id && time_now_s() < deadline) {
		struct timespec ts;
		double t = time_now_s() + 0.2;

		ts.tv_sec = (time_t)t;
		ts.tv_nsec = (long)((t - (double)ts.tv_sec) * 1e9);
		pthread_cond_timedwait(&q->done, &q->lock, &ts);
	}
	rc = q->running_id == id ? -EINPROGRESS : 0;
	pthread_mutex_unlock(&q->lock);
	return rc;
}

double job_progress(struct jobq *q, int64_t id, bool *running)
{
	double p = 0;

	pthread_mutex_lock(&q->lock);
	*running = q->running_id == id;
	if (*running)
		p = q->progress;
	pthread_mutex_unlock(&q->lock);
	return p;
}

/* A parameter list as a JSON object (integers as numbers) plus name=value pairs. */
static char *params_snapshot(const struct params *ps, struct store_kv **kv)
{
	json_t *o = json_object();
	char *out;
	int64_t n;
	int i;

	*kv = xcalloc((size_t)ps->n + 1, sizeof(**kv));
	for (i = 0; i < ps->n; i++) {
		const struct param *p = &ps->p[i];

		if (p->kind == PARAM_INT && !num_parse_kernel_i64(p->value, &n))
			json_object_set_new(o, p->name, json_integer((json_int_t)n));
		else
			json_object_set_new(o, p->name, json_string(p->value));
		(*kv)[i].key = p->name;
		(*kv)[i].value = p->value;
	}
	out = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(o);
	return out;
}

static char *metrics_json(const struct metrics *m)
{
	json_t *o = json_object();
	char *out;
	int i;

	for (i = 0; i < m->n; i++)
		json_object_set_new(o, m->m[i].name, json_real(m->m[i].value));
	out = json_dumps(o, JSON_COMPACT | JSON_REAL_PRECISION(10));
	json_decref(o);
	return out;
}

/* Remove the files a pass left in its directory (names start with work_name). */
static void pass_cleanup(const char *dir, const char *work_name)
{
	char path[PATH_MAX];
	struct dirent *de;
	size_t n = strlen(work_name);
	DIR *d;

	if (!dir || !(d = opendir(dir)))
		return;
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, work_name, n) || (de->d_name[n] != '.' && de->d_name[n]))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (unlink(path) < 0)
			log_warn("cannot remove %s: %s", path, strerror(errno));
	}
	closedir(d);
}

static void set_progress(struct jobq *q, double p)
{
	pthread_mutex_lock(&q->lock);
	q->progress = p < 0 ? 0 : p > 1 ? 1 : p;
	pthread_mutex_unlock(&q->lock);
}

static bool should_stop(struct jobq *q)
{
	bool s;

	pthread_mutex_lock(&q->lock);
	s = q->cancel || q->stop;
	pthread_mutex_unlock(&q->lock);
	return s;
}

enum pass_result { PASS_OK, PASS_FAILED, PASS_CANCELLED };

/* Run one loop of a job: spawn, poll with progress, cancel, parse, record. */
static enum pass_result pass_run(struct jobq *q, const struct job_rec *job,
                                 const struct engine *eng, const json_t *opts, const char *dir,
                                 int loop, struct err *e)
{
	struct agent *a = q->a;
	struct engine_target t;
	struct contain_pass cp;
	struct metrics m;
	struct proc p;
	char devpath[96], work[48];
	char **argv = NULL, *mjson = NULL;
	double started, start_mono, expected_s, frac;
	enum pass_result res = PASS_FAILED;
	const struct buf *raw;
	int rc;

	memset(&p, 0, sizeof(p));
	memset(&cp, 0, sizeof(cp));
	snprintf(devpath, sizeof(devpath), "/dev/%s", job->device);
	snprintf(work, sizeof(work), "ft-job%lld-l%d", (long long)job->id, loop);
	t.exe = engine_exe(eng, a->cfg.fio_path);
	t.device_path = devpath;
	t.directory = dir;
	t.work_name = work;
	if (eng->argv_build(opts, &t, &argv, e))
		goto out;
	started = time_now_s();
	start_mono = time_mono_s();
	if (contain_pass_begin(&q->contain, job->id, &cp, e) ||
	    proc_spawn_in(&p, argv, dir ? dir : "/", &cp, e))
		goto out;
	store_job_set_pgid(a->store, job->id, p.pid);
	expected_s = eng->expected_runtime_s(opts);
	for (;;) {
		rc = proc_poll(&p, POLL_MS);
		if (rc == 1)
			break;
		if (rc < 0) {
			err_set(e, rc, "engine_failed", "lost track of %s: %s", eng->name,
			        strerror(-rc));
			proc_terminate(&p, CANCEL_GRACE_S);
			goto out;
		}
		if (should_stop(q)) {
			log_info("job %lld: stopping %s (process group %d)", (long long)job->id,
			         eng->name, (int)p.pid);
			proc_terminate(&p, CANCEL_GRACE_S);
			res = PASS_CANCELLED;
			goto out;
		}
		frac = eng->progress(opts, time_mono_s() - start_mono, p.out.data, p.out.len,
		                     p.err.data, p.err.len);
		if (frac < 0 && expected_s > 0)
			frac = (time_mono_s() - start_mono) / expected_s;
		if (frac < 0)
			frac = 0;
		if (frac > 0.99)
			frac = 0.99;
		set_progress(q, ((loop - 1) + frac) / job->loops);
	}
	rc = engine_parse(eng, opts, p.out.data ? p.out.data : "", p.out.len,
	                  p.err.data ? p.err.data : "", p.err.len, p.exit_code, p.term_signal, &m,
	                  e);
	if (rc)
		goto out;
	raw = !strcmp(eng->raw_stream, "stderr") ? &p.err : &p.out;
	mjson = metrics_json(&m);
	if (store_job_pass_add(a->store, job->id, loop, started, time_now_s(), mjson,
	                       raw->data ? raw->data : "", raw->len, e))
		goto out;
	log_info("job %lld: pass %d/%d done (%d metrics)", (long long)job->id, loop, job->loops,
	         m.n);
	set_progress(q, (double)loop / job->loops);
	res = PASS_OK;
out:
	store_job_set_pgid(a->store, job->id, 0);
	proc_release(&p);
	contain_pass_end(&cp); /* nothing of the pass may outlive it */
	pass_cleanup(dir, work);
	engine_argv_free(argv);
	free(mjson);
	return res;
}

/* Run a claimed job to its end state. */
static void job_run(struct jobq *q, struct job_rec *job)
{
	struct agent *a = q->a;
	struct tune_snapshot snap = { { 0 }, 0, NULL };
	struct tune_item *items = NULL;
	struct params ps = { 0, NULL };
	struct store_kv *kv = NULL;
	const struct engine *eng;
	const char *state = "succeeded", *dir = NULL;
	char origin[64], *json = NULL, realdir[PATH_MAX];
	bool rolled_back, applied = false;
	json_t *spec;
	json_error_t jerr;
	struct err e;
	int n_items = 0, loop;

	err_clear(&e);
	spec = json_loads(job->spec, 0, &jerr);
	eng = engine_find(job->engine);
	if (!spec || !eng) {
		err_set(&e, -EINVAL, "internal", "stored job spec is unreadable");
		state = "failed";
		goto out;
	}
	if (json_is_string(json_object_get(spec, "directory"))) {
		if (directory_check(a, json_string_value(json_object_get(spec, "directory")),
		                    realdir, sizeof(realdir), &e)) {
			state = "failed";
			goto out;
		}
		dir = realdir;
	}
	snprintf(origin, sizeof(origin), "job %lld", (long long)job->id);
	if (params_items(json_object_get(spec, "params"), &items, &n_items, &e)) {
		state = "failed";
		goto out;
	}
	if (n_items) {
		/* Save the restore point in the database first: a crash then still restores. */
		if (tune_snapshot_take(&a->tune, job->device, &snap, &e)) {
			state = "failed";
			goto out;
		}
		json = tune_snapshot_to_json(&snap);
		store_job_set_restore(a->store, job->id, json, NULL);
		free(json);
		json = NULL;
		if (tune_apply(&a->tune, job->device, items, n_items, origin, &rolled_back, &e)) {
			state = "failed";
			goto out;
		}
		applied = true;
	}
	if (sysfs_params_read(&a->fs, job->device, &ps, &e)) {
		state = "failed";
		goto out;
	}
	json = params_snapshot(&ps, &kv);
	store_job_set_params(a->store, job->id, json, kv, ps.n, NULL);
	log_info("job %lld running: %s on %s, %d loop(s)", (long long)job->id, eng->name,
	         job->device, job->loops);
	for (loop = 1; loop <= job->loops; loop++) {
		enum pass_result r;

		if (should_stop(q)) {
			state = q->stop ? "interrupted" : "cancelled";
			break;
		}
		r = pass_run(q, job, eng, json_object_get(spec, eng->name), dir, loop, &e);
		if (r == PASS_CANCELLED) {
			state = q->stop ? "interrupted" : "cancelled";
			break;
		}
		if (r == PASS_FAILED) {
			state = "failed";
			break;
		}
	}
	if (!strcmp(state, "cancelled"))
		err_set(&e, -ECANCELED, "cancelled", "cancelled by request during loop %d of %d",
		        loop, job->loops);
	else if (!strcmp(state, "interrupted"))
		err_set(&e, -EINTR, "interrupted", "the agent shut down during loop %d of %d", loop,
		        job->loops);
out:
	if (applied) {
		struct err re;

		snprintf(origin, sizeof(origin), "job %lld end", (long long)job->id);
		err_clear(&re);
		if (tune_restore(&a->tune, &snap, origin, NULL, &re))
			log_error("job %lld: restore failed: %s", (long long)job->id, re.msg);
	}
	if (strcmp(state, "succeeded"))
		log_info("job %lld %s: %s", (long long)job->id, state, e.msg);
	else
		log_info("job %lld succeeded", (long long)job->id);
	store_job_finish(a->store, job->id, state, time_now_s(),
	                 strcmp(state, "succeeded") ? e.code : NULL,
	                 strcmp(state, "succeeded") ? e.msg : NULL, NULL);
	json_decref(spec);
	tune_snapshot_release(&snap);
	sysfs_params_release(&ps);
	free(items);
	free(kv);
	free(json);
}

static void *worker_main(void *arg)
{
	struct jobq *q = arg;
	struct job_rec job;
	struct err e;

	for (;;) {
		pthread_mutex_lock(&q->lock);
		if (q->stop) {
			pthread_mutex_unlock(&q->lock);
			break;
		}
		pthread_mutex_unlock(&q->lock);
		err_clear(&e);
		if (store_job_claim_next(q->a->store, time_now_s(), &job, &e)) {
			struct timespec ts;
			double t = time_now_s() + 1.0;

			ts.tv_sec = (time_t)t;
			ts.tv_nsec = (long)((t - (double)ts.tv_sec) * 1e9);
			pthread_mutex_lock(&q->lock);
			if (!q->stop)
				pthread_cond_timedwait(&q->wake, &q->lock, &ts);
			pthread_mutex_unlock(&q->lock);
			continue;
		}
		pthread_mutex_lock(&q->lock);
		q->running_id = job.id;
		q->cancel = false;
		q->progress = 0;
		pthread_mutex_unlock(&q->lock);
		job_run(q, &job);
		pthread_mutex_lock(&q->lock);
		q->last_finished_id = job.id;
		q->running_id = 0;
		q->cancel = false;
		pthread_cond_broadcast(&q->done);
		pthread_mutex_unlock(&q->lock);
		store_job_rec_release(&job);
	}
	return NULL;
}

/* Jobs left "running" by a crashed agent: kill their engine, restore, mark interrupted. */
static void recover(struct agent *a)
{
	struct job_rec *list = NULL;
	int n = 0, i;
	struct err e;

	err_clear(&e);
	if (store_jobs_list(a->store, "running", 1000, &list, &n, &e)) {
		log_error("cannot list running jobs: %s", e.msg);
		return;
	}
	for (i = 0; i < n; i++) {
		struct job_rec *j = &list[i];
		const struct engine *eng = engine_find(j->engine);

		if (j->pgid > 0 && eng) {
			const char *exe = engine_exe(eng, a->cfg.fio_path),
			           *base = strrchr(exe, '/');

			if (proc_kill_stale_group((pid_t)j->pgid, base ? base + 1 : exe) > 0)
				log_info("job %lld: killed leftover %s process group %lld",
				         (long long)j->id, j->engine, (long long)j->pgid);
		}
		if (j->restore) {
			struct tune_snapshot snap;
			char origin[64];

			snprintf(origin, sizeof(origin), "job %lld interrupted", (long long)j->id);
			err_clear(&e);
			if (tune_snapshot_from_json(j->device, j->restore, &snap, &e) ||
			    tune_restore(&a->tune, &snap, origin, NULL, &e))
				log_error("job %lld: restore failed: %s", (long long)j->id, e.msg);
			tune_snapshot_release(&snap);
		}
		store_job_finish(a->store, j->id, "interrupted", time_now_s(), "interrupted",
		                 "the agent stopped while the job was running", NULL);
		log_info("job %lld marked interrupted (agent restarted mid-job)", (long long)j->id);
	}
	store_jobs_free(list, n);
}

int jobq_start(struct jobq **out, struct agent *a, struct err *e)
{
	struct jobq *q = xcalloc(1, sizeof(*q));
	int rc;

	q->a = a;
	pthread_mutex_init(&q->lock, NULL);
	pthread_cond_init(&q->wake, NULL);
	pthread_cond_init(&q->done, NULL);
	rc = contain_init(&q->contain, a->cfg.state_dir, a->cfg.contain, e);
	if (rc) {
		free(q);
		return rc;
	}
	contain_recover(&q->contain); /* the processes of jobs a crashed agent left running */
	recover(a);
	if (pthread_create(&q->thread, NULL, worker_main, q)) {
		free(q);
		return err_set(e, -EAGAIN, "internal", "cannot start the job worker thread");
	}
	q->thread_started = true;
	*out = q;
	return 0;
}

void jobq_stop(struct jobq *q)
{
	if (!q)
		return;
	pthread_mutex_lock(&q->lock);
	q->stop = true;
	pthread_cond_broadcast(&q->wake);
	pthread_mutex_unlock(&q->lock);
	if (q->thread_started)
		pthread_join(q->thread, NULL);
	pthread_cond_destroy(&q->wake);
	pthread_cond_destroy(&q->done);
	pthread_mutex_destroy(&q->lock);
	free(q);
}
