/* job_run.c -- one started job run to its end: its filesystem made and recorded, the
 * parameter snapshot and identity, each pass (spawn, poll, cancel, parse, record), the
 * restore. The queue, its worker and recovery are job.c's. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "job/jobdir.h"
#include "job/jobfile.h"
#include "job/jobfs.h"
#include "job/proc.h"
#include "job/waiter.h"
#include "log.h"
#include "queue/job_run.h"
#include "timeutil.h"
#include "wire/wire.h"
#include "xmalloc.h"
#include "banned.h"

#define POLL_MS 200
/* With a bell (job_run_hooks.bell_fd), the longest a running pass's poll sleeps, and a held
 * one's (which needs no look before the moment): a cancel or the stop rings the bell, the
 * engine's output and exit wake the poll, and the fleet's 1 024 agents on 2 cores no longer
 * spend their CPU on five looks a second each. */
#define PASS_POLL_MAX_MS 1000
#define HELD_POLL_MAX_MS 60000
/* A pre-started pass's waiter wakes at the moment; the agent reads its report (and records it,
 * a database write) no sooner than this long after it, or at the engine's exit: out of the way
 * of the fleet's engines starting, which is all that should run in the moment (1 024 agents on
 * 2 cores recording them in it were 37 % of the CPU used in the 0.25 s after it; what the agent
 * records is the waiter's time, not its own). Then every PRESTART_LOOK_MS for
 * PRESTART_LOOK_FOR_S, then at POLL_MS. */
#define PRESTART_LOOK_S 0.3
#define PRESTART_LOOK_MS 10
#define PRESTART_LOOK_FOR_S 1.0

enum pass_result { PASS_OK, PASS_FAILED, PASS_CANCELLED };

/* A pass measured under params the job did not set is not kept: -ESTALE "params_changed" if
 * something (a session's restore) changed the device's parameters under job id. */
static int params_changed(const struct jobq_env *env, int64_t id, int loop, struct err *e)
{
	char why[256];

	if (store_job_params_changed(env->store, id, why, sizeof(why), e))
		return -EIO;
	if (why[0])
		return err_set(
		        e, -ESTALE, ERR_PARAMS_CHANGED,
		        "the device's parameters were changed under the job (%s): pass %d is "
		        "not kept and no further pass runs",
		        why, loop);
	return 0;
}

/* With --verbose: the engine's command line of a pass, shell-quoted (bench/fidelity.sh runs
 * exactly this command bare). */
static void argv_log(int64_t id, int loop, char **argv)
{
	struct buf b = BUF_INIT;
	const char *c;
	int i;

	if (!log_enabled(LOG_DEBUG))
		return;
	for (i = 0; argv[i]; i++) {
		buf_puts(&b, i ? " '" : "'");
		for (c = argv[i]; *c; c++)
			if (*c == '\'')
				buf_puts(&b, "'\\''");
			else
				buf_append(&b, c, 1);
		buf_puts(&b, "'");
	}
	log_debug("job %lld pass %d: argv %s", (long long)id, loop, b.data ? b.data : "");
	buf_release(&b);
}

/* The first pass of job id began at started: recorded with its engine's process group pgid in
 * one statement, with how long the job held for its start_at (from ready, when it held) and,
 * in the log, how late it began. -EIO when the process group could not be recorded. */
static int begun_record(const struct jobq_env *env, int64_t id, const struct job_spec *spec,
                        double ready, bool held, double started, int64_t pgid)
{
	char at[40];

	if (store_job_set_begun(env->store, id, pgid, started, held ? started - ready : 0))
		return -EIO;
	if (!(spec->start_at > 0))
		return 0;
	time_fmt_iso_ms(spec->start_at, at, sizeof(at));
	if (held)
		log_info("job %lld: held %.3f s for its start_at %s; began %.6f s after it",
		         (long long)id, started - ready, at, started - spec->start_at);
	else
		log_info("job %lld: its start_at %s had passed when it was ready: began at once, "
		         "%.3f s late",
		         (long long)id, at, started - spec->start_at);
	return 0;
}

/* A pass's workloads, named in the job's order, and the metrics its sections parse into. */
static struct pass_workload *workloads_new(const struct engine_opts *opts, struct metrics **per)
{
	struct pass_workload *wl = xcalloc((size_t)opts->n_workloads, sizeof(*wl));
	int i;

	for (i = 0; i < opts->n_workloads; i++)
		snprintf(wl[i].name, sizeof(wl[i].name), "%s", opts->workloads[i].name);
	*per = xcalloc((size_t)opts->n_workloads, sizeof(**per));
	return wl;
}

/* One pass under way: what its engine runs in and on, and what it ran. */
struct pass {
	const struct job_runner *r;
	int64_t id;
	const struct job_spec *spec;
	int loop;
	struct engine_target t;
	struct jobdir jd;
	struct jobfile jf;
	struct contain_pass cp;
	struct proc p;
	char devpath[96], work[48];
	char **argv;
	double started, start_mono; /* env->now_s() and the monotonic clock at the spawn */
	/* Pre-started (prestart_prepare): fio's cwd, a directory of the pass's own (its prerun's
	 * output, the waiter's report), the prerun command, when the pass was ready, and whether
	 * the waiter has yet to report. started and start_mono are then the moment's. */
	struct jobdir wd;
	char prerun[4200];
	bool prestart, begun_pending;
	double ready;
};

static void pass_init(struct pass *ps, const struct job_runner *r, int64_t id,
                      const struct job_spec *spec, int loop)
{
	memset(ps, 0, sizeof(*ps));
	ps->r = r;
	ps->id = id;
	ps->spec = spec;
	ps->loop = loop;
	ps->jd = (struct jobdir)JOBDIR_INIT;
	ps->jf = (struct jobfile)JOBFILE_INIT;
	ps->wd = (struct jobdir)JOBDIR_INIT;
	snprintf(ps->devpath, sizeof(ps->devpath), "/dev/%s", spec->device);
	snprintf(ps->work, sizeof(ps->work), "ft-job%lld-l%d", (long long)id, loop);
	ps->t.exe = engine_exe(spec->engine, r->env->fio_path);
	ps->t.device_path = ps->devpath;
	ps->t.directory = NULL;
	ps->t.work_name = ps->work;
	ps->t.job_file = NULL;
}

static void pass_release(struct pass *ps)
{
	if (ps->p.pid && store_job_set_pgid(ps->r->env->store, ps->id, 0))
		log_error("job %lld: cannot clear the process group in the database",
		          (long long)ps->id);
	proc_release(&ps->p);
	contain_pass_end(&ps->cp); /* nothing of the pass may outlive it */
	jobdir_close(&ps->jd);
	jobdir_close(&ps->wd);
	jobfile_close(&ps->jf);
	engine_argv_free(ps->argv);
}

/* STATE_DIR/wait, opened without following a link (made 0700 with make); -1 with e. */
static int wait_dir_open(const struct jobq_env *env, bool make, char *dir, size_t len,
                         struct err *e)
{
	int fd;

	snprintf(dir, len, "%s/wait", env->state_dir);
	if (make && mkdir(dir, 0700) < 0 && errno != EEXIST)
		return err_set(e, -errno, ERR_INTERNAL, "cannot make '%s': %s", dir,
		               strerror(errno));
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return err_set(e, -errno, ERR_INTERNAL, "cannot open '%s': %s", dir,
		               strerror(errno));
	return fd;
}

void job_prestart_recover(const struct jobq_env *env)
{
	struct jobdir jd = JOBDIR_INIT;
	struct dirent *de;
	char dir[600];
	struct err e;
	int fd;
	DIR *d;

	if (!env->state_dir)
		return;
	fd = wait_dir_open(env, false, dir, sizeof(dir), &e);
	if (fd < 0 || !(d = fdopendir(fd))) {
		if (fd >= 0)
			close(fd);
		return; /* none: no pass was ever pre-started here */
	}
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, "ft-job", 6))
			continue;
		/* A directory jobdir_close can empty and remove, as at a pass's end. */
		jd.parent_fd = dup(dirfd(d));
		jd.fd = openat(dirfd(d), de->d_name,
		               O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		snprintf(jd.name, sizeof(jd.name), "%s", de->d_name);
		if (jd.fd >= 0)
			log_info("removing %s/%s, left by a pass pre-started before a crash", dir,
			         de->d_name);
		jobdir_close(&jd);
	}
	closedir(d);
}

/* Whether the pass is a fio job's first (given as options), its moment JOB_PRESTART_MIN_S off
 * or more: then fio is spawned now and waits in its prerun (job_run.h), its cwd a directory of
 * the pass's own under STATE_DIR/wait (fio writes "<jobname>.prerun.txt" there, the waiter its
 * report; a raw-device pass would otherwise run in "/"). Anything in the way leaves the pass to
 * be spawned at its moment. */
static void prestart_prepare(struct pass *ps)
{
	const struct jobq_env *env = ps->r->env;
	const struct job_spec *spec = ps->spec;
	char dir[600];
	struct err e;
	int fd;

	if (ps->loop != 1 || !(spec->start_at > 0) || spec->engine->id != ENGINE_FIO ||
	    spec->opts.fio.file || !env->waiter_exe || !env->state_dir ||
	    spec->start_at - env->now_s() < JOB_PRESTART_MIN_S)
		return;
	err_clear(&e);
	fd = wait_dir_open(env, true, dir, sizeof(dir), &e);
	if (fd < 0 || jobdir_open_in(&ps->wd, fd, dir, ps->work, &e))
		goto fail;
	if (waiter_command(env->waiter_exe, spec->start_at, ps->prerun, sizeof(ps->prerun))) {
		err_set(&e, -EINVAL, ERR_INTERNAL, "no waiter command for '%s'", env->waiter_exe);
		goto fail;
	}
	ps->t.prerun = ps->prerun;
	ps->prestart = true;
	return;
fail:
	log_warn("job %lld: fio is spawned at its moment, not before: %s", (long long)ps->id,
	         e.msg);
	jobdir_close(&ps->wd);
}

/* The pass's directory, its job file and the engine's argv. The pass's files go in the job's
 * directory, or in the job's own filesystem made (NULL when there is none). */
static int pass_prepare(struct pass *ps, const struct jobfs_made *made, struct err *e)
{
	const struct jobq_env *env = ps->r->env;
	const struct job_spec *spec = ps->spec;
	int rc;

	/* The job directory is checked now, at use, and the engine gets a directory of the
	 * pass's own that nothing can be swapped under (jobdir.h). A job's own filesystem is
	 * entered the same way: its root is opened through the agent's descriptor of its private
	 * area STATE_DIR/fs (0700, never a link) and checked to be that filesystem still, and
	 * the pass gets its own directory in it by descriptor, as in any job directory. */
	if (made) {
		rc = jobfs_root_open(ps->r->jobfs, made, e);
		if (rc < 0 || jobdir_open_in(&ps->jd, rc, made->mount_point, ps->work, e))
			return -1;
	} else if (spec->directory && jobdir_open(&ps->jd, env->allow_dirs, env->n_allow_dirs,
	                                          spec->directory, ps->work, e)) {
		return -1;
	}
	if (ps->jd.fd >= 0)
		ps->t.directory = ps->jd.path;
	if (spec->fio_file) {
		/* The job file, pointed at this pass's device or directory, in a sealed memory
		 * file fio reads through the agent's descriptor (jobfile.h). */
		char *text = fiofile_render(spec->fio_file, &ps->t);

		rc = jobfile_open(&ps->jf, text, e);
		free(text);
		if (rc)
			return -1;
		ps->t.job_file = ps->jf.path;
	}
	prestart_prepare(ps);
	if (spec->engine->argv_build(&spec->opts, &ps->t, &ps->argv, e))
		return -1;
	argv_log(ps->id, ps->loop, ps->argv);
	return 0;
}

/* A pass stopped because its engine's process group could not be recorded. */
static enum pass_result pgid_unrecorded(struct pass *ps, struct err *e)
{
	/* A crash now would leave the engine running unseen: do not go on. */
	err_set(e, -EIO, ERR_STORE_ERROR,
	        "cannot record %s's process group in the database; pass stopped",
	        ps->spec->engine->name);
	proc_terminate(&ps->p, CANCEL_GRACE_S);
	return PASS_FAILED;
}

/* A pre-started pass (prestart_prepare): fio spawned now, its process group recorded; when
 * the pass began is recorded once its waiter reports (prestart_begun). Until then its deadline
 * counts from the moment by the wall clock (pass_elapsed_s). */
static enum pass_result prestart_spawn(struct pass *ps, struct err *e)
{
	const struct jobq_env *env = ps->r->env;

	ps->ready = ps->started = env->now_s();
	if (proc_spawn_in(&ps->p, ps->argv, ps->wd.path, &ps->cp, e))
		return PASS_FAILED;
	if (store_job_set_pgid(env->store, ps->id, ps->p.pid))
		return pgid_unrecorded(ps, e);
	ps->begun_pending = true;
	log_info("job %lld: %s spawned %.3f s before its start_at, to wait for it in its prerun "
	         "(process group %d)",
	         (long long)ps->id, ps->spec->engine->name, ps->spec->start_at - ps->ready,
	         (int)ps->p.pid);
	return PASS_OK;
}

/* Once a pre-started pass's waiter has reported, record when the pass began: when the waiter
 * woke (late if it woke after the moment), with held_s what it slept (the time fio stood ready:
 * the slack a controller learns its gap from; fio's setup before is the pass's, as it was when
 * fio was spawned at the moment); count the deadline from then. 0 (also while no report is
 * there), or -EIO when it cannot be recorded (e says so). */
static int prestart_begun(struct pass *ps, struct err *e)
{
	const struct jobq_env *env = ps->r->env;
	double (*mono_s)(void) = env->mono_s ? env->mono_s : time_mono_s;
	double woke = 0, slept = 0, now;
	char at[40];
	int rc;

	rc = waiter_report_read(ps->wd.fd, &woke, &slept);
	if (rc == 0)
		return 0;
	now = env->now_s();
	if (rc < 0) {
		log_warn("job %lld: cannot read the waiter's report (%s): its pass is taken to "
		         "have begun now",
		         (long long)ps->id, strerror(-rc));
		woke = now;
		slept = 0;
	}
	ps->begun_pending = false;
	ps->started = woke;
	ps->start_mono = mono_s() - (now - woke);
	if (store_job_set_begun(env->store, ps->id, ps->p.pid, woke, slept))
		return err_set(e, -EIO, ERR_STORE_ERROR,
		               "cannot record when %s began in the database; pass stopped",
		               ps->spec->engine->name);
	time_fmt_iso_ms(ps->spec->start_at, at, sizeof(at));
	if (slept > 0)
		log_info("job %lld: %s held %.3f s in its prerun for its start_at %s (spawned "
		         "%.3f s before it); began %.6f s after it",
		         (long long)ps->id, ps->spec->engine->name, slept, at,
		         ps->spec->start_at - ps->ready, woke - ps->spec->start_at);
	else
		log_info(
		        "job %lld: its start_at %s had passed when %s's prerun ran (spawned %.3f s "
		        "before it): began at once, %.3f s late",
		        (long long)ps->id, at, ps->spec->engine->name,
		        ps->spec->start_at - ps->ready, woke - ps->spec->start_at);
	return 0;
}

/* How long the pass has run, for its deadline: since its spawn, or for a pre-started pass since
 * its waiter woke (and since the moment, by the wall clock, until it has reported). */
static double pass_elapsed_s(const struct pass *ps)
{
	double (*mono_s)(void) = ps->r->env->mono_s ? ps->r->env->mono_s : time_mono_s;

	if (ps->begun_pending)
		return ps->r->env->now_s() - ps->spec->start_at;
	return mono_s() - ps->start_mono;
}

/* How long until a pre-started pass's waiter report is looked for: PRESTART_LOOK_S past the
 * moment, not before, whatever woke the poll (<= 0: now). */
static double prestart_look_in_s(const struct pass *ps)
{
	return ps->spec->start_at + PRESTART_LOOK_S - ps->r->env->now_s();
}

/* How long a pre-started pass's poll waits while its waiter has not reported: with a bell,
 * until the look (nothing before it needs the lane), else at most POLL_MS. */
static int prestart_poll_ms(const struct pass *ps)
{
	double left = prestart_look_in_s(ps);
	bool bell = ps->r->hooks.bell_fd >= 0;

	if (left < -PRESTART_LOOK_FOR_S || (!bell && left > POLL_MS / 1000.0))
		return POLL_MS;
	if (left > 0)
		return left * 1000 < HELD_POLL_MAX_MS ? (int)(left * 1000) + 1 : HELD_POLL_MAX_MS;
	return PRESTART_LOOK_MS;
}

/* How long a running pass's poll may sleep: with a bell, until the first of its deadline, the
 * next tenth of the pass by the clock (the tenths of the job's progress, which move its
 * version, fall on them), due_at (what progress_set asked, 0: nothing) and PASS_POLL_MAX_MS;
 * without one, POLL_MS. */
static int pass_poll_ms(const struct pass *ps, double deadline_s, double expected_s, double due_at)
{
	double elapsed = pass_elapsed_s(ps), wait_s = PASS_POLL_MAX_MS / 1000.0, tenth;

	if (ps->r->hooks.bell_fd < 0)
		return POLL_MS;
	if (expected_s > 0 && elapsed >= 0) {
		tenth = expected_s / 10;
		wait_s = fmin(wait_s, tenth - fmod(elapsed, tenth) + 0.002);
	}
	wait_s = fmin(wait_s, deadline_s - elapsed + 0.01);
	if (due_at > 0)
		wait_s = fmin(wait_s, due_at - ps->r->env->now_s() + 0.001);
	return wait_s > 0.005 ? (int)ceil(wait_s * 1000) : 5;
}

/* The pass's containment is made (its record written and synced, its cgroup) before the first
 * pass holds for the job's start_at, so that at the moment only the engine's spawn is left;
 * then the engine is spawned and its process group recorded (for the first pass with when it
 * began, in one statement). */
static enum pass_result pass_start(struct pass *ps, struct err *e)
{
	const struct jobq_env *env = ps->r->env;
	const struct job_spec *spec = ps->spec;
	const struct job_runner *r = ps->r;
	double ready = 0;
	bool held = false;
	int rc;

	if (contain_pass_begin(r->contain, ps->id, &ps->cp, e))
		return PASS_FAILED;
	if (ps->prestart)
		return prestart_spawn(ps, e);
	if (ps->loop == 1 && spec->start_at > 0) {
		ready = env->now_s();
		if (ready < spec->start_at) {
			if (r->hooks.hold_until(r->hooks.cls, spec->start_at) != JOB_RUNNING)
				return PASS_CANCELLED;
			held = true;
		}
	}
	ps->started = env->now_s();
	ps->start_mono = (env->mono_s ? env->mono_s : time_mono_s)();
	if (proc_spawn_in(&ps->p, ps->argv, ps->jd.fd >= 0 ? ps->jd.path : "/", &ps->cp, e))
		return PASS_FAILED;
	if (ps->loop == 1)
		rc = begun_record(env, ps->id, spec, ready, held, ps->started, ps->p.pid);
	else
		rc = store_job_set_pgid(env->store, ps->id, ps->p.pid);
	if (rc)
		return pgid_unrecorded(ps, e);
	return PASS_OK;
}

/* The engine past deadline_s: stopped, and e says so. */
static void pass_timeout(struct pass *ps, double deadline_s, struct err *e)
{
	const struct engine *eng = ps->spec->engine;

	/* A hung engine (a stopped fio, a dead disk) ends here, not never. */
	log_error("job %lld: %s ran past its deadline of %.0f s in pass %d of %d: "
	          "stopping it (process group %d)",
	          (long long)ps->id, eng->name, deadline_s, ps->loop, ps->spec->loops,
	          (int)ps->p.pid);
	proc_terminate(&ps->p, CANCEL_GRACE_S);
	err_set(e, -ETIMEDOUT, ERR_ENGINE_TIMEOUT,
	        "%s ran past its deadline of %.0f s in pass %d of %d and was "
	        "stopped "
	        "(the deadline is %.0f x what the pass should take, %.0f s, + %.0f "
	        "s)",
	        eng->name, deadline_s, ps->loop, ps->spec->loops, ENGINE_DEADLINE_FACTOR,
	        (deadline_s - ENGINE_DEADLINE_MARGIN_S) / ENGINE_DEADLINE_FACTOR,
	        ENGINE_DEADLINE_MARGIN_S);
}

/* Poll the engine to its exit with progress; stop it when the job is told to stop or past
 * deadline_s. */
static enum pass_result pass_wait(struct pass *ps, double deadline_s, struct err *e)
{
	const struct job_runner *r = ps->r;
	const struct engine *eng = ps->spec->engine;
	const struct engine_opts *opts = &ps->spec->opts;
	double expected_s = eng->expected_runtime_s(opts), elapsed, frac, due_at = 0;
	struct proc *p = &ps->p;
	int rc;

	for (;;) {
		rc = proc_poll_bell(p,
		                    ps->begun_pending
		                            ? prestart_poll_ms(ps)
		                            : pass_poll_ms(ps, deadline_s, expected_s, due_at),
		                    r->hooks.bell_fd);
		if (ps->begun_pending && (rc == 1 || prestart_look_in_s(ps) <= 0) &&
		    prestart_begun(ps, e)) {
			proc_terminate(p, CANCEL_GRACE_S);
			return PASS_FAILED;
		}
		if (rc == 1) {
			if (ps->begun_pending)
				log_warn("job %lld: %s ended before its prerun reported: "
				         "when its pass began is not recorded",
				         (long long)ps->id, eng->name);
			return PASS_OK;
		}
		if (rc < 0) {
			err_set(e, rc, ERR_ENGINE_FAILED, "lost track of %s: %s", eng->name,
			        strerror(-rc));
			proc_terminate(p, CANCEL_GRACE_S);
			return PASS_FAILED;
		}
		if (r->hooks.stopped(r->hooks.cls) != JOB_RUNNING) {
			log_info("job %lld: stopping %s (process group %d)", (long long)ps->id,
			         eng->name, (int)p->pid);
			proc_terminate(p, ps->begun_pending ? HELD_CANCEL_GRACE_S : CANCEL_GRACE_S);
			return PASS_CANCELLED;
		}
		elapsed = pass_elapsed_s(ps);
		if (elapsed > deadline_s) {
			pass_timeout(ps, deadline_s, e);
			return PASS_FAILED;
		}
		if (ps->begun_pending) /* no progress before the pass has begun */
			continue;
		frac = eng->progress(opts, elapsed, p->out.data, p->out.len, p->err.data,
		                     p->err.len);
		if (frac < 0 && expected_s > 0)
			frac = elapsed / expected_s;
		if (frac < 0)
			frac = 0;
		if (frac > 0.99)
			frac = 0.99;
		due_at = r->hooks.progress_set(r->hooks.cls,
		                               ((ps->loop - 1) + frac) / ps->spec->loops, false);
	}
}

/* Parse what the engine wrote and record the pass, unless the device's params changed. */
static int pass_record(struct pass *ps, struct err *e)
{
	const struct jobq_env *env = ps->r->env;
	const struct job_spec *spec = ps->spec;
	const struct engine *eng = spec->engine;
	const struct engine_opts *opts = &spec->opts;
	const struct proc *p = &ps->p;
	struct pass_workload *wl = NULL;
	struct metrics *per = NULL;
	const struct buf *raw;
	struct metrics m;
	int rc, i;

	if (opts->n_workloads)
		wl = workloads_new(opts, &per);
	rc = engine_parse_pass(eng, opts, p->out.data ? p->out.data : "", p->out.len,
	                       p->err.data ? p->err.data : "", p->err.len, p->exit_code,
	                       p->term_signal, &m, per, e);
	if (rc)
		goto out;
	for (i = 0; i < opts->n_workloads; i++)
		wl[i].metrics = per[i];
	rc = params_changed(env, ps->id, ps->loop, e);
	if (rc)
		goto out;
	raw = !strcmp(eng->raw_stream, "stderr") ? &p->err : &p->out;
	rc = store_job_pass_add(env->store, ps->id, ps->loop, ps->started, env->now_s(), &m, wl,
	                        opts->n_workloads, raw->data ? raw->data : "", raw->len, e);
	if (rc)
		goto out;
	if (opts->n_workloads)
		log_info("job %lld: pass %d/%d done (%d workloads, the first with %d metrics)",
		         (long long)ps->id, ps->loop, spec->loops, opts->n_workloads, m.n);
	else
		log_info("job %lld: pass %d/%d done (%d metrics)", (long long)ps->id, ps->loop,
		         spec->loops, m.n);
out:
	free(wl);
	free(per);
	return rc;
}

/* Run one loop of a job: spawn, poll with progress, cancel, stop past deadline_s, parse,
 * record. The pass's files go in the job's directory dir, or in the job's own filesystem made
 * (dir NULL then). */
static enum pass_result pass_run(const struct job_runner *r, int64_t id,
                                 const struct job_spec *spec, const struct jobfs_made *made,
                                 int loop, double deadline_s, struct err *e)
{
	enum pass_result res = PASS_FAILED;
	struct pass ps;

	pass_init(&ps, r, id, spec, loop);
	if (pass_prepare(&ps, made, e))
		goto out;
	res = pass_start(&ps, e);
	if (res == PASS_OK)
		res = pass_wait(&ps, deadline_s, e);
	if (res != PASS_OK)
		goto out;
	if (pass_record(&ps, e)) {
		res = PASS_FAILED;
		goto out;
	}
	r->hooks.progress_set(r->hooks.cls, (double)loop / spec->loops, true);
out:
	pass_release(&ps);
	return res;
}

/* Put back the restore snapshot a job recorded, if it has one (origin "job N WHY"). */
void job_restore_saved(const struct jobq_env *env, int64_t id, const char *why)
{
	struct tune_snapshot snap;
	char origin[64];
	bool found = false;
	struct err e;

	snprintf(origin, sizeof(origin), "job %lld %s", (long long)id, why);
	err_clear(&e);
	if (store_job_restore(env->store, id, &snap, &found, &e) ||
	    (found && tune_restore(env->tune, &snap, origin, NULL, &e)))
		log_error("job %lld: restore failed: %s", (long long)id, e.msg);
	tune_snapshot_release(&snap);
}

/* How a run told to stop ends: cancelled by request, or interrupted as the agent stops. */
static enum job_state stop_state(const struct job_runner *r)
{
	enum job_state s = r->hooks.stopped(r->hooks.cls);

	return s == JOB_RUNNING ? JOB_CANCELLED : s;
}

static bool stop_cb(void *cls)
{
	const struct job_runner *r = cls;

	return r->hooks.stopped(r->hooks.cls) != JOB_RUNNING;
}

/* Append one value to a parameter snapshot. */
static void snapshot_add(struct params *ps, const char *name, const char *value, bool number)
{
	struct param *p;

	ps->p = xrealloc(ps->p, (size_t)(ps->n + 1) * sizeof(*ps->p));
	p = &ps->p[ps->n++];
	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "%s", name);
	snprintf(p->value, sizeof(p->value), "%s", value);
	p->kind = number ? PARAM_INT : PARAM_TEXT;
}

/* The job's filesystem in its parameter snapshot, so that results filter and compare by it
 * (param.fs.mount=noatime): fs.type, fs.mkfs (the options as given), fs.mount (as given),
 * fs.mount_options (what the kernel shows), and every figure as fs.NAME. */
static void snapshot_fs(struct params *ps, const struct fs_spec *fs, const struct jobfs_made *m)
{
	char mkfs[FS_MKFS_TOKENS_MAX * FS_TOKEN_MAX], name[SYSFS_NAME_MAX];
	const char *tokens[FS_MKFS_TOKENS_MAX];
	int i;

	for (i = 0; i < fs->n_mkfs; i++)
		tokens[i] = fs->mkfs[i];
	fsopt_words_join(tokens, fs->n_mkfs, " ", mkfs, sizeof(mkfs));
	snapshot_add(ps, "fs.type", fs_type_name(fs->type), false);
	snapshot_add(ps, "fs.mkfs", mkfs, false);
	snapshot_add(ps, "fs.mount", fs->mount, false);
	snprintf(mkfs, sizeof(mkfs), "%s %s", m->mount_opts, m->super_opts);
	snapshot_add(ps, "fs.mount_options", mkfs, false);
	for (i = 0; i < m->figures.n; i++) {
		snprintf(name, sizeof(name), "fs.%s", m->figures.f[i].name);
		snapshot_add(ps, name, m->figures.f[i].value, m->figures.f[i].number);
	}
}

/* Make the job's filesystem (device free again, mkfs, mount) and record what was made. */
static int fs_make(const struct job_runner *r, int64_t id, const struct job_spec *spec,
                   struct jobfs_made *made, struct err *e)
{
	const struct jobq_env *env = r->env;
	char why[300];
	struct err se;
	int rc;

	/* The device was free when the job was queued; it must still be. */
	r->hooks.fs_begin(r->hooks.cls, spec->device);
	if (sysfs_device_in_use(env->fs, spec->device, why, sizeof(why)))
		rc = err_set(e, -EBUSY, ERR_DEVICE_REFUSED,
		             "refusing to make a filesystem on '%s': %s (mkfs would destroy its "
		             "data)",
		             spec->device, why);
	else
		rc = jobfs_make(r->jobfs, id, spec->device, spec->fs, r->contain, stop_cb,
		                (void *)r, made, e);
	r->hooks.fs_made(r->hooks.cls);
	if (rc)
		return rc;
	err_clear(&se);
	if (store_job_set_filesystem(env->store, id, made, &se))
		return err_set(e, -EIO, ERR_STORE_ERROR, "cannot record the job's filesystem: %s",
		               se.msg);
	return 0;
}

/* What params_apply hands the owner hook: the apply of a job's params. */
struct apply_ctx {
	const struct jobq_env *env;
	const struct job_spec *spec;
	const char *origin;
};

static int apply_owned(void *cls, struct err *e)
{
	struct apply_ctx *c = cls;
	bool rolled_back;

	return tune_apply(c->env->tune, c->spec->device, c->spec->params.items, c->spec->params.n,
	                  c->origin, &rolled_back, e);
}

/* With params_restore false: run fn(cls, e) while the session that puts job id's device back
 * (one open since before the job started) cannot end, and return its result; -ESRCH when
 * there is none (or the job's start cannot be read). e may be NULL. */
static int owner_hold(const struct job_runner *r, int64_t id, const struct job_spec *spec,
                      int (*fn)(void *cls, struct err *e), void *cls, struct err *e)
{
	const struct jobq_env *env = r->env;
	struct job_rec rec;
	struct err le;
	double since;

	if (!e)
		e = &le;
	err_clear(e);
	if (!env->owner.hold || store_job_get(env->store, id, &rec, e))
		return -ESRCH;
	since = rec.started_at;
	store_job_rec_release(&rec);
	return env->owner.hold(env->owner.cls, spec->device, since, fn, cls, e);
}

/* Apply the job's params, as a PATCH would; with params_restore false only while the device's
 * session owns it (its restore then covers them): -ESRCH "session_required" when it has
 * ended, and nothing is written. */
static int params_apply(const struct job_runner *r, int64_t id, const struct job_spec *spec,
                        const char *origin, struct err *e)
{
	struct apply_ctx c = { r->env, spec, origin };
	bool rolled_back;
	int rc;

	if (!spec->params_keep)
		return tune_apply(r->env->tune, spec->device, spec->params.items, spec->params.n,
		                  origin, &rolled_back, e);
	rc = owner_hold(r, id, spec, apply_owned, &c, e);
	if (rc == -ESRCH)
		return err_set(e, -ESRCH, ERR_SESSION_REQUIRED,
		               "params_restore: false leaves the params for the session on '%s' to "
		               "put back, and that session ended before the job started: nothing "
		               "was written",
		               spec->device);
	return rc;
}

void job_deadlines(const struct jobq_env *env, const struct job_spec *spec, double *pass_s,
                   double *run_s)
{
	uint64_t bytes;

	*pass_s = *run_s = 0;
	if (!spec->engine)
		return;
	sysfs_device_size(env->fs, spec->device, &bytes); /* 0 if it cannot be read */
	*pass_s = engine_pass_deadline_s(spec->engine, &spec->opts,
	                                 spec->directory != NULL || spec->fs != NULL, bytes);
	*run_s = spec->loops * (*pass_s + CANCEL_GRACE_S) + (spec->fs ? JOBFS_DEADLINE_S : 0);
}

/* The job's params applied: the restore point saved in the database first (a crash then still
 * restores; if it cannot be saved, the device is not touched). A job with params_restore
 * false takes one too: its session puts the device back, but should the session end while
 * the job runs, the job's own end does. *applied_json gets what was applied. */
static int params_take(const struct job_runner *r, int64_t id, const struct job_spec *spec,
                       const char *origin, struct tune_snapshot *snap, char **applied_json,
                       struct err *e)
{
	struct err se;

	if (tune_snapshot_take(r->env->tune, spec->device, snap, e))
		return -1;
	err_clear(&se);
	if (store_job_set_restore(r->env->store, id, snap, &se))
		return err_set(e, -EIO, ERR_STORE_ERROR,
		               "cannot record the restore point, so the job's params were not "
		               "applied: %s",
		               se.msg);
	if (params_apply(r, id, spec, origin, e))
		return -1;
	*applied_json = wire_tune_applied_encode(&spec->params);
	return 0;
}

/* The parameter snapshot (with the job's filesystem, made or NULL) and the identity of the
 * device and the host, recorded. */
static int snapshot_record(const struct jobq_env *env, int64_t id, const struct job_spec *spec,
                           const struct jobfs_made *made, const char *applied_json, struct err *e)
{
	struct params ps = { 0, NULL };
	struct device_identity d;
	struct host_identity h;
	struct err se, ie;
	int rc = -1;

	if (sysfs_params_read(env->fs, spec->device, &ps, e))
		goto out;
	if (made)
		snapshot_fs(&ps, spec->fs, made);
	/* What the device and the host are, beside the snapshot: a device that has vanished since
	 * the snapshot was read is recorded with no device fields. */
	err_clear(&ie);
	identity_device_read(env->fs, spec->device, env->hide_serial, &d, &ie);
	identity_host_read(env->fs, &h);
	err_clear(&se);
	if (store_job_set_params(env->store, id, &ps, applied_json, &d, &h, &se)) {
		err_set(e, -EIO, ERR_STORE_ERROR, "cannot record the parameter snapshot: %s",
		        se.msg);
		goto out;
	}
	rc = 0;
out:
	sysfs_params_release(&ps);
	return rc;
}

/* Every pass of the job, until one fails or the job is told to stop; *loop is the last one
 * begun. Returns the job's state. */
static enum job_state loops_run(const struct job_runner *r, int64_t id, const struct job_spec *spec,
                                const struct jobfs_made *made, double pass_deadline_s, int *loop,
                                struct err *e)
{
	enum pass_result pr;

	for (*loop = 1; *loop <= spec->loops; (*loop)++) {
		if (r->hooks.stopped(r->hooks.cls) != JOB_RUNNING)
			return stop_state(r);
		pr = pass_run(r, id, spec, made, *loop, pass_deadline_s, e);
		if (pr == PASS_CANCELLED)
			return stop_state(r);
		if (pr == PASS_FAILED)
			return JOB_FAILED;
	}
	return JOB_SUCCEEDED;
}

/* Run a started job to its end state. Nothing here re-reads or re-checks the spec. */
enum job_state job_run(const struct job_runner *r, int64_t id, const struct job_spec *spec,
                       struct err *e)
{
	const struct jobq_env *env = r->env;
	struct tune_snapshot snap = { { 0 }, 0, NULL };
	enum job_state state = JOB_FAILED;
	struct jobfs_made *made = NULL;
	char origin[64], *applied_json = NULL;
	bool restore_at_end = false;
	double pass_deadline_s, run_deadline_s;
	int loop = 1;

	err_clear(e);
	snprintf(origin, sizeof(origin), "job %lld", (long long)id);
	job_deadlines(env, spec, &pass_deadline_s, &run_deadline_s);
	if (r->hooks.stopped(r->hooks.cls) != JOB_RUNNING) {
		state = stop_state(r);
		goto stopped;
	}
	if (spec->fs) {
		made = xcalloc(1, sizeof(*made));
		if (fs_make(r, id, spec, made, e)) {
			if (e->code != ERR_CANCELLED)
				goto out;
			state = stop_state(r);
			goto stopped;
		}
	}
	if (spec->params.n) {
		if (params_take(r, id, spec, origin, &snap, &applied_json, e))
			goto out;
		restore_at_end = true;
	}
	if (snapshot_record(env, id, spec, made, applied_json, e))
		goto out;
	log_info("job %lld running: %s on %s, %d loop(s)", (long long)id, spec->engine->name,
	         spec->device, spec->loops);
	state = loops_run(r, id, spec, made, pass_deadline_s, &loop, e);
stopped:
	if (state == JOB_CANCELLED)
		err_set(e, -ECANCELED, ERR_CANCELLED, "cancelled by request during loop %d of %d",
		        loop, spec->loops);
	else if (state == JOB_INTERRUPTED)
		err_set(e, -EINTR, ERR_INTERRUPTED, "the agent shut down during loop %d of %d",
		        loop, spec->loops);
out:
	/* From the database, not snap: a session's restore may have cancelled it. */
	if (restore_at_end &&
	    !(spec->params_keep && owner_hold(r, id, spec, NULL, NULL, NULL) == 0))
		job_restore_saved(env, id, "end");
	if (made) { /* the device stays as mkfs left it, unmounted */
		jobfs_unmake(r->jobfs, made);
		free(made);
		r->hooks.fs_gone(r->hooks.cls);
	}
	if (state != JOB_SUCCEEDED)
		log_info("job %lld %s: %s", (long long)id, job_state_name(state), e->msg);
	else
		log_info("job %lld succeeded", (long long)id);
	tune_snapshot_release(&snap);
	free(applied_json);
	return state;
}
