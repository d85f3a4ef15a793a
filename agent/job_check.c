/* job_check.c -- everything a job's spec must pass before it is queued: the device, every
 * engine object, the allowlist, the directory, the raw-device safety check, the params, the
 * engine's binary and its argv; and what a checked spec will report and take. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "job.h"
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
		return err_set(e, -EINVAL, "bad_request",
		               "directory: '%.*s' is not an absolute path", utf8_cut(dir, 200),
		               dir);
	if (!realpath(dir, buf) || stat(buf, &st) < 0 || !S_ISDIR(st.st_mode))
		return err_set(e, -EINVAL, "bad_request", "directory: '%.*s' is not a directory",
		               utf8_cut(dir, 200), dir);
	for (i = 0; i < env->n_allow_dirs; i++) {
		if (path_under(buf, env->allow_dirs[i])) {
			snprintf(real, len, "%s", buf);
			return 0;
		}
	}
	return err_set(e, -EPERM, "dir_not_allowed",
	               "directory: '%.*s' is not under an --allow-dir of this agent",
	               utf8_cut(buf, 200), buf);
}

int job_spec_check(const struct jobq_env *env, struct job_spec *spec, struct err *e)
{
	const struct engine *eng = spec->engine;
	struct engine_target t;
	char real[PATH_MAX], why[300], work[32];
	char **argv = NULL;
	int rc, id;

	if (!sysfs_device_name_ok(spec->device) || sysfs_device_check(env->fs, spec->device, NULL))
		return err_set(e, -EINVAL, "bad_request", "device: no block device '%.*s'",
		               utf8_cut(spec->device, 64), spec->device);
	if (!eng)
		return err_set(e, -EINVAL, "bad_request",
		               "engine: expected one of fio, dd, bonnie, iozone");
	/* Every engine object given must be valid, even those not selected. */
	for (id = 0; id < ENGINE_COUNT; id++) {
		const struct engine *other = engine_by_id(id);

		if (!spec->opts.given[id] && other != eng)
			continue;
		rc = other->check(&spec->opts, e);
		if (rc)
			return rc;
	}
	if (!sysfs_device_allowed(env->fs, spec->device))
		return err_set(e, -EBUSY, "device_refused",
		               "device '%s' is not in the agent's --allow-device list: it may not "
		               "be benchmarked",
		               spec->device);
	if (spec->directory) {
		rc = directory_check(env, spec->directory, real, sizeof(real), e);
		if (rc)
			return rc;
		free(spec->directory);
		spec->directory = xstrdup(real);
	} else if (eng->needs_directory) {
		return err_set(e, -EINVAL, "bad_request", "directory: required by engine %s",
		               eng->name);
	} else if (sysfs_device_in_use(env->fs, spec->device, why, sizeof(why))) {
		return err_set(e, -EBUSY, "device_refused",
		               "refusing a raw-device job on '%s': %s (writing to it would destroy "
		               "data); give a directory instead",
		               spec->device, why);
	}
	if (spec->params.n) {
		rc = tune_validate(env->tune, spec->device, spec->params.items, spec->params.n, e);
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
	t.directory = spec->directory;
	t.work_name = work;
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
