/* job_check.c -- everything a job's spec must pass before it is queued: the device, every
 * engine object, the allowlist, the directory or the filesystem (--allow-format, the device
 * free, the option tables, mkfs's dry run), the raw-device safety check, the params, the
 * engine's binary and its argv; and what a checked spec will report and take. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "job/jobdir.h"
#include "job/jobfile.h"
#include "job/jobfs.h"
#include "queue/job.h"
#include "timeutil.h"
#include "utf8.h"
#include "xmalloc.h"
#include "banned.h"

static bool path_under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (n == 1 && dir[0] == '/')
		return true;
	return !strncmp(path, dir, n) && (path[n] == '/' || path[n] == '\0');
}

/* Resolve and check a job directory: it must exist and lie under an --allow-dir. */
static int directory_check(const struct jobq_env *env, const char *dir, char *real, size_t len,
                           struct err *e)
{
	char buf[PATH_MAX];
	struct stat st;
	int i;

	if (dir[0] != '/')
		return err_set(e, -EINVAL, ERR_BAD_REQUEST,
		               "directory: '%.*s' is not an absolute path", utf8_cut(dir, 200),
		               dir);
	/* An engine's argv and output cannot carry a line break or another control character
	 * (fio's JSON would not parse): refused here, by the dry run too (issue 23 item 13). */
	if (jobdir_path_has_control(dir))
		return err_set(e, -EINVAL, ERR_BAD_REQUEST,
		               "directory: has a control character (a line break, a tab, ...); "
		               "such paths are refused");
	if (!realpath(dir, buf) || stat(buf, &st) < 0 || !S_ISDIR(st.st_mode))
		return err_set(e, -EINVAL, ERR_BAD_REQUEST, "directory: '%.*s' is not a directory",
		               utf8_cut(dir, 200), dir);
	if (jobdir_path_has_control(buf))
		return err_set(e, -EINVAL, ERR_BAD_REQUEST,
		               "directory: resolves to a path with a control character; such paths "
		               "are refused");
	for (i = 0; i < env->n_allow_dirs; i++) {
		if (path_under(buf, env->allow_dirs[i])) {
			snprintf(real, len, "%s", buf);
			return 0;
		}
	}
	return err_set(e, -EPERM, ERR_DIR_NOT_ALLOWED,
	               "directory: '%.*s' is not under an --allow-dir of this agent",
	               utf8_cut(buf, 200), buf);
}

/* Whether --allow-format lets jobs make a filesystem on dev (an allowlisted device). */
static bool format_allowed(const struct jobq_env *env, const char *dev)
{
	int i;

	if (env->allow_format_all)
		return true;
	for (i = 0; i < env->n_allow_format; i++)
		if (!strcmp(env->allow_format[i], dev))
			return true;
	return false;
}

/* A job with a filesystem: allowed on the device, the device free, the options in their
 * tables and accepted by the kernel's parser, the tools there, and mkfs's dry run. With held
 * (the running job's filesystem is on the device) the device is checked when the job starts,
 * and mkfs's dry run, which cannot run on a mounted device, gives the command only. */
static int fs_check(const struct jobq_env *env, struct job_spec *spec, bool held,
                    const struct tune_device_report *d, struct jobfs_made *would, struct err *e)
{
	struct fsopt_checked fs;
	char dev[80];
	int rc;

	if (spec->directory)
		return err_set(e, -EINVAL, ERR_BAD_REQUEST,
		               "directory: a job with a filesystem runs in the filesystem (mounted "
		               "by the agent): give directory or filesystem, not both");
	if (!format_allowed(env, spec->device))
		return err_set(
		        e, -EPERM, ERR_FORMAT_NOT_ALLOWED,
		        "filesystem: this agent may not make a filesystem on '%s': start it "
		        "with --allow-format=%s (or --allow-format for every --allow-device)",
		        spec->device, spec->device);
	if (!held && d->in_use)
		return err_set(e, -EBUSY, ERR_DEVICE_REFUSED,
		               "refusing to make a filesystem on '%s': %s (mkfs would destroy its "
		               "data)",
		               spec->device, d->why);
	/* The tables judge the filesystem whole, then the host its side, each once. */
	snprintf(dev, sizeof(dev), "/dev/%s", spec->device);
	rc = fsopt_spec_check(spec->fs, dev, &fs, e);
	if (rc)
		return rc;
	rc = jobfs_host_check(spec->device, &fs, held, would, e);
	fsopt_checked_release(&fs);
	return rc;
}

/* params_restore false leaves the params for the device's session to put back: one must be
 * open (409 session_required otherwise; the job's start checks again). */
static int owner_check(const struct jobq_env *env, const char *dev, struct err *e)
{
	int rc = env->owner.hold
	                 ? env->owner.hold(env->owner.cls, dev,
	                                   env->now_s ? env->now_s() : time_now_s(), NULL, NULL, e)
	                 : -ESRCH;

	if (rc == -ESRCH)
		rc = err_set(e, -ESRCH, ERR_SESSION_REQUIRED,
		             "params_restore: false leaves the params for the device's session to "
		             "put back, and no session is open on '%s': open one first (POST "
		             "/api/v1/devices/%s/sessions), or leave params_restore out",
		             dev, dev);
	return rc;
}

/* A job file as its passes will give it to fio (pointed at the job's device or directory),
 * judged by fio itself: fio --parse-only, and its words when it refuses (422 fio_rejected). */
static int fio_file_check(const struct jobq_env *env, const struct job_spec *spec,
                          struct engine_target *t, struct err *e)
{
	struct jobfile jf = JOBFILE_INIT;
	char *text = fiofile_render(spec->fio_file, t), **argv = NULL;
	int rc = jobfile_open(&jf, text, e);

	free(text);
	if (rc)
		return rc;
	t->job_file = jf.path;
	rc = spec->engine->argv_build(&spec->opts, t, &argv, e);
	engine_argv_free(argv);
	if (rc == 0)
		rc = jobfile_fio_check(t->exe, &jf, e);
	jobfile_close(&jf);
	return rc;
}

/* Every engine object given must be valid, even those not selected. */
static int engines_check(const struct job_spec *spec, struct err *e)
{
	int id, rc;

	for (id = 0; id < ENGINE_COUNT; id++) {
		const struct engine *other = engine_by_id(id);

		if (!spec->opts.given[id] && other != spec->engine)
			continue;
		rc = other->check(&spec->opts, e);
		if (rc)
			return rc;
	}
	return 0;
}

int job_spec_dry_run(const struct jobq_env *env, struct job_spec *spec, bool held,
                     struct jobfs_made *would, struct err *e)
{
	const struct engine *eng = spec->engine;
	/* The raw-device safety check, or the free device mkfs needs; never while held (the
	 * running job's filesystem is on the device: a job with a filesystem is checked when it
	 * starts, a raw-device job is refused). */
	bool ask_in_use = !held && (spec->fs || (!spec->directory && eng && !eng->needs_directory));
	struct tune_device_report d;
	struct engine_target t;
	char real[PATH_MAX], work[32];
	char **argv = NULL;
	int rc;

	/* The device asked once: the refusals below keep their order. */
	tune_device_report(env->tune, env->fs, spec->device, ask_in_use, spec->params.items,
	                   spec->params.n, &d);
	if (!d.exists)
		return err_set(e, -EINVAL, ERR_BAD_REQUEST, "device: no block device '%.*s'",
		               utf8_cut(spec->device, 64), spec->device);
	if (!eng)
		return err_set(e, -EINVAL, ERR_BAD_REQUEST,
		               "engine: expected one of fio, dd, bonnie, iozone");
	rc = engines_check(spec, e);
	if (rc)
		return rc;
	if (spec->fio_file) {
		/* where it runs, before the directory is resolved: as the job gives it */
		snprintf(real, sizeof(real), "/dev/%s", spec->device);
		rc = fiofile_target_check(spec->fio_file, real, spec->fs || spec->directory,
		                          spec->directory, e);
		if (rc)
			return rc;
	}
	if (spec->start_at > 0) {
		double now = env->now_s ? env->now_s() : time_now_s();

		if (spec->start_at - now > JOB_START_AHEAD_MAX_S)
			return err_set(
			        e, -EINVAL, ERR_BAD_REQUEST,
			        "start_at: %.0f s ahead of the agent's clock; a job holds for "
			        "its moment %d s at most",
			        spec->start_at - now, JOB_START_AHEAD_MAX_S);
	}
	if (!d.allowed)
		return err_set(e, -EPERM, ERR_DEVICE_NOT_ALLOWED,
		               "device '%s' is not in the agent's --allow-device list: it may not "
		               "be benchmarked",
		               spec->device);
	memset(would, 0, sizeof(*would));
	if (spec->fs) {
		rc = fs_check(env, spec, held, &d, would, e);
		if (rc)
			return rc;
	} else if (spec->directory) {
		rc = directory_check(env, spec->directory, real, sizeof(real), e);
		if (rc)
			return rc;
		free(spec->directory);
		spec->directory = xstrdup(real);
	} else if (eng->needs_directory) {
		return err_set(e, -EINVAL, ERR_BAD_REQUEST, "directory: required by engine %s",
		               eng->name);
	} else if (held || d.in_use) {
		return err_set(e, -EBUSY, ERR_DEVICE_REFUSED,
		               "refusing a raw-device job on '%s': %s (writing to it would destroy "
		               "data); give a directory instead",
		               spec->device,
		               held ? "the running job's filesystem is on it" : d.why);
	}
	if (d.params_rc) {
		if (e)
			*e = d.params_err;
		return d.params_rc;
	}
	if (spec->params_keep) {
		rc = owner_check(env, spec->device, e);
		if (rc)
			return rc;
	}
	rc = engine_available(eng, env->fio_path, e);
	if (rc)
		return rc;
	/* Build the argv once now, so a bad combination is a 400, not a failed pass. */
	snprintf(real, sizeof(real), "/dev/%s", spec->device);
	snprintf(work, sizeof(work), "ft-check");
	t.exe = engine_exe(eng, env->fio_path);
	t.device_path = real;
	t.directory = spec->fs ? "/fs/job-0" : spec->directory; /* the mount point's shape */
	t.work_name = work;
	t.job_file = NULL;
	t.prerun = NULL;
	if (spec->fio_file)
		return fio_file_check(env, spec, &t, e);
	rc = eng->argv_build(&spec->opts, &t, &argv, e);
	engine_argv_free(argv);
	return rc;
}

void job_metrics(const struct job_spec *spec, struct metric_names *out)
{
	out->n = 0;
	if (spec->engine)
		spec->engine->metrics_list(&spec->opts, out);
}

double job_expected_runtime_s(const struct job_spec *spec)
{
	if (!spec->engine)
		return 0;
	return spec->loops * spec->engine->expected_runtime_s(&spec->opts);
}
