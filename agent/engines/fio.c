/* fio.c -- the fio engine: option table and checks, argv (a job's workloads as stonewalled
 * sections), progress, metrics, fio's JSON parser (per section). */
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "engines/engine.h"
#include "banned.h"

static const char *const fio_rw[] = {
	"read",   "write", "randread", "randwrite", "rw", "readwrite",
	"randrw", "trim",  "randtrim", "trimwrite", NULL,
};

static const char *const fio_ioengines[] = {
	"libaio",  "io_uring", "psync",    "sync", "pvsync",
	"pvsync2", "vsync",    "posixaio", "mmap", NULL,
};

/* The "fio" object of a job. Absent keys are left to fio. */
static const struct engine_opt fio_opts_table[] = {
	{ ENGINE_OPT(fio_opts, rw, EOPT_ENUM), .choices = fio_rw },
	{ ENGINE_OPT(fio_opts, ioengine, EOPT_ENUM), .choices = fio_ioengines },
	{ ENGINE_OPT(fio_opts, bs, EOPT_SIZE), .min = 1, .max = 1LL << 30 },
	{ ENGINE_OPT(fio_opts, size, EOPT_SIZE), .min = 1, .max = 1LL << 50 },
	{ ENGINE_OPT(fio_opts, direct, EOPT_BOOL) },
	{ ENGINE_OPT(fio_opts, iodepth, EOPT_INT), .min = 1, .max = 4096, .def = 1 },
	{ ENGINE_OPT(fio_opts, numjobs, EOPT_INT), .min = 1, .max = 256, .def = 1 },
	{ ENGINE_OPT(fio_opts, runtime_s, EOPT_INT), .min = 1, .max = 86400 },
	{ ENGINE_OPT(fio_opts, ramp_time_s, EOPT_INT), .min = 0, .max = 3600 },
	{ ENGINE_OPT(fio_opts, time_based, EOPT_BOOL) },
	{ ENGINE_OPT(fio_opts, rwmixread, EOPT_INT), .min = 0, .max = 100, .def = 50 },
};

static int fio_rw_mixed(const char *rw)
{
	return rw && (!strcmp(rw, "rw") || !strcmp(rw, "readwrite") || !strcmp(rw, "randrw"));
}

static int fio_check(const struct engine_opts *opts, struct err *e)
{
	const struct fio_opts *o = &opts->fio;

	if (o->time_based && !o->has_runtime_s)
		return err_set(e, -EINVAL, "bad_request",
		               "fio.time_based: needs runtime_s (fio would run forever)");
	if (o->has_bs && o->has_size && o->size < o->bs)
		return err_set(e, -EINVAL, "bad_request", "fio.size: must be at least bs");
	return 0;
}

/* fio splits filename= and directory= at ':'; a literal colon is written "\:". */
static void fio_escape_colons(const char *in, char *out, size_t len)
{
	size_t k = 0;

	for (; *in && k + 2 < len; in++) {
		if (*in == ':')
			out[k++] = '\\';
		out[k++] = *in;
	}
	out[k] = '\0';
}

/* The options of one section (a plain job's only one): every given key. rwmixread is only
 * passed for mixed workloads (rw, readwrite, randrw); elsewhere fio ignores it anyway. Takes
 * the vector and gives it back grown. */
static struct engine_argv fio_section_args(struct engine_argv a, const struct fio_opts *o)
{
	char sz[32];

	if (o->rw)
		engine_argv_add(&a, "--rw=%s", o->rw);
	if (o->has_bs) {
		engine_size_str(o->bs, 0, sz, sizeof(sz));
		engine_argv_add(&a, "--bs=%s", sz);
	}
	if (o->ioengine)
		engine_argv_add(&a, "--ioengine=%s", o->ioengine);
	if (o->has_direct)
		engine_argv_add(&a, "--direct=%d", o->direct);
	if (o->has_iodepth)
		engine_argv_add(&a, "--iodepth=%" PRId64, o->iodepth);
	if (o->has_numjobs)
		engine_argv_add(&a, "--numjobs=%" PRId64, o->numjobs);
	if (o->has_size) {
		engine_size_str(o->size, 0, sz, sizeof(sz));
		engine_argv_add(&a, "--size=%s", sz);
	}
	if (o->has_runtime_s)
		engine_argv_add(&a, "--runtime=%" PRId64, o->runtime_s);
	if (o->time_based)
		engine_argv_add(&a, "--time_based");
	if (o->has_ramp_time_s)
		engine_argv_add(&a, "--ramp_time=%" PRId64, o->ramp_time_s);
	if (o->has_rwmixread && fio_rw_mixed(o->rw))
		engine_argv_add(&a, "--rwmixread=%" PRId64, o->rwmixread);
	return a;
}

/* Name a workload in front of a per-section rule's message: "workloads[1] \"rand read 4k\":
 * fio.size: required ...". Returns rc. */
static int fio_section_err(const struct engine_opts *opts, int i, int rc, struct err *e)
{
	char code[sizeof(e->code)], msg[sizeof(e->msg)];

	snprintf(code, sizeof(code), "%s", e->code);
	snprintf(msg, sizeof(msg), "%s", e->msg);
	return err_set(e, rc, code, "workloads[%d] \"%s\": %s", i, opts->workloads[i].name, msg);
}

/*
 * A plain job: fio --name=W --output-format=json --group_reporting <target> [options].
 * A job with workloads: one invocation, the target and group_reporting global, then per
 * workload i a section --name=W-wI --description=NAME [--stonewall] --new_group [its options]:
 * the sections run one after another, each its own reporting group (its numjobs summed within
 * it); fio's JSON names each entry's workload in its "desc".
 */
static int fio_argv_build(const struct engine_opts *opts, const struct engine_target *t,
                          char ***argv, struct err *e)
{
	const struct fio_opts *o = &opts->fio;
	struct engine_argv a = { 0 };
	char path[8192];
	int rc, i;

	*argv = NULL;
	if (!t->directory && !t->device_path) {
		rc = err_set(e, -EINVAL, "bad_request", "fio: no device or directory to run on");
		goto out;
	}
	for (i = 0; t->directory && i < opts->n_workloads; i++)
		if (!opts->workloads[i].fio.has_size) {
			err_set(e, -EINVAL, "bad_request",
			        "fio.size: required when the job writes files in a directory");
			rc = fio_section_err(opts, i, -EINVAL, e);
			goto out;
		}
	if (t->directory && !opts->n_workloads && !o->has_size) {
		rc = err_set(e, -EINVAL, "bad_request",
		             "fio.size: required when the job writes files in a directory");
		goto out;
	}
	engine_argv_add(&a, "%s", t->exe ? t->exe : "fio");
	if (!opts->n_workloads)
		engine_argv_add(&a, "--name=%s", t->work_name);
	engine_argv_add(&a, "--output-format=json");
	engine_argv_add(&a, "--group_reporting");
	fio_escape_colons(t->directory ? t->directory : t->device_path, path, sizeof(path));
	if (t->directory)
		engine_argv_add(&a, "--directory=%s", path);
	else
		engine_argv_add(&a, "--filename=%s", path);
	if (!opts->n_workloads)
		a = fio_section_args(a, o);
	for (i = 0; i < opts->n_workloads; i++) {
		engine_argv_add(&a, "--name=%s-w%d", t->work_name, i);
		engine_argv_add(&a, "--description=%s", opts->workloads[i].name);
		if (i)
			engine_argv_add(&a, "--stonewall");
		engine_argv_add(&a, "--new_group");
		a = fio_section_args(a, &opts->workloads[i].fio);
	}
	*argv = engine_argv_detach(&a);
	rc = 0;
out:
	engine_argv_free(engine_argv_detach(&a));
	return rc;
}

/* runtime_s, and the ramp before it (fio runs ramp_time, then measures for runtime). */
static double fio_expected_runtime_s(const struct engine_opts *opts)
{
	const struct fio_opts *o = &opts->fio;

	if (!o->has_runtime_s)
		return 0;
	return (double)o->runtime_s + (o->has_ramp_time_s ? (double)o->ramp_time_s : 0);
}

/* runtime_s and its ramp where given, and the I/O fio does where they do not bound it:
 * without runtime_s size x numjobs (the device's size without size), and in a directory the
 * files it lays out before the timed part. */
static double fio_pass_bound_s(const struct engine_opts *opts, bool in_directory,
                               uint64_t device_bytes)
{
	const struct fio_opts *o = &opts->fio;
	double per_job = o->has_size ? (double)o->size : (double)device_bytes;
	double jobs = o->has_numjobs ? (double)o->numjobs : 1;

	if (o->has_runtime_s && !in_directory)
		return fio_expected_runtime_s(opts);
	return fio_expected_runtime_s(opts) + engine_volume_s(per_job * jobs);
}

/* elapsed/runtime_s, capped below 1; fio prints nothing until the end in JSON mode. */
static double fio_progress(const struct engine_opts *opts, double elapsed_s, const char *out,
                           size_t out_len, const char *errout, size_t errout_len)
{
	double runtime_s = fio_expected_runtime_s(opts), p;

	if (runtime_s <= 0)
		return -1;
	p = elapsed_s / runtime_s;
	if (p < 0)
		p = 0;
	if (p > 0.99)
		p = 0.99;
	return p;
}

/* The JSON document starts at the first '{' that begins a line: fio prints error lines
 * ("fio: pid=..., err=22/...") and "fio: terminating on signal 15" before it. */
static const char *fio_json_start(const char *out, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (out[i] == '{' && (i == 0 || out[i - 1] == '\n'))
			return out + i;
	return NULL;
}

static int json_num(const json_t *obj, const char *key, double *out)
{
	json_t *v = obj ? json_object_get(obj, key) : NULL;

	if (!v || !json_is_number(v))
		return 0;
	*out = json_number_value(v);
	return 1;
}

/* One direction ("read", "write", "trim") of a group_reporting job: nothing when it did no
 * I/O. bw: bw_bytes (B/s) when present, else bw (KiB/s). Latencies: ns -> us. */
static void fio_dir_parse(const json_t *job, const char *dir, struct metrics *m)
{
	static const struct {
		const char *pct, *name;
	} pcts[] = {
		{ "50.000000", "clat_p50_us" },
		{ "99.000000", "clat_p99_us" },
		{ "99.900000", "clat_p999_us" },
	};
	const json_t *d = json_object_get(job, dir), *clat, *pct;
	double io_bytes = 0, total_ios = 0, v;
	char name[48];
	size_t i;

	if (!d || !json_is_object(d))
		return;
	json_num(d, "io_bytes", &io_bytes);
	json_num(d, "total_ios", &total_ios);
	if (io_bytes <= 0 || total_ios <= 0)
		return;
	snprintf(name, sizeof(name), "%s.bw_mib", dir);
	if (json_num(d, "bw_bytes", &v))
		metrics_set(m, name, v / (1024.0 * 1024.0));
	else if (json_num(d, "bw", &v))
		metrics_set(m, name, v / 1024.0);
	snprintf(name, sizeof(name), "%s.iops", dir);
	if (json_num(d, "iops", &v))
		metrics_set(m, name, v);
	clat = json_object_get(d, "clat_ns");
	snprintf(name, sizeof(name), "%s.clat_mean_us", dir);
	if (json_num(clat, "mean", &v))
		metrics_set(m, name, v / 1000.0);
	pct = clat ? json_object_get(clat, "percentile") : NULL;
	for (i = 0; i < sizeof(pcts) / sizeof(pcts[0]); i++) {
		snprintf(name, sizeof(name), "%s.%s", dir, pcts[i].name);
		if (json_num(pct, pcts[i].pct, &v))
			metrics_set(m, name, v / 1000.0);
	}
}

/* fio's own words for a failure: the first "fio: " line on stderr, else on stdout (before
 * the JSON), else the first stderr line at all. */
static void fio_error_text(const char *out, size_t out_len, const char *errout, size_t errout_len,
                           char *txt, size_t len)
{
	const char *json = out ? fio_json_start(out, out_len) : NULL;
	size_t pre_len = json ? (size_t)(json - out) : out_len;

	txt[0] = '\0';
	if (engine_line_find(errout, errout_len, "fio: ", txt, len))
		return;
	if (engine_line_find(out, pre_len, "fio: ", txt, len))
		return;
	if (engine_line_find(errout, errout_len, NULL, txt, len))
		return;
	snprintf(txt, len, "no error text");
}

/* One group_reporting entry of "jobs" into m. */
static void fio_job_parse(const json_t *job, struct metrics *m, json_int_t *job_error)
{
	double v;

	fio_dir_parse(job, "read", m);
	fio_dir_parse(job, "write", m);
	fio_dir_parse(job, "trim", m);
	if (json_num(job, "usr_cpu", &v))
		metrics_set(m, "cpu.usr_pct", v);
	if (json_num(job, "sys_cpu", &v))
		metrics_set(m, "cpu.sys_pct", v);
	if (json_is_integer(json_object_get(job, "error")) && !*job_error)
		*job_error = json_integer_value(json_object_get(job, "error"));
}

/* Whether entry i of "jobs" is section i: its jobname ends in "-w<i>" (the argv's names). */
static bool fio_section_is(const json_t *job, int i)
{
	const char *name = json_string_value(json_object_get(job, "jobname"));
	char suffix[16];
	size_t len, slen;

	if (!name)
		return false;
	snprintf(suffix, sizeof(suffix), "-w%d", i);
	len = strlen(name);
	slen = strlen(suffix);
	return len > slen && !strcmp(name + len - slen, suffix);
}

/* A plain pass (sections 0: one group_reporting entry into per[0]) or one of n sections
 * (per[0..n)). */
static int fio_parse_jobs(const char *out, size_t out_len, const char *errout, size_t errout_len,
                          int exit_code, int term_signal, int sections, struct metrics *per,
                          struct err *e)
{
	const char *json = out ? fio_json_start(out, out_len) : NULL;
	int n = sections ? sections : 1, i, found = 0;
	json_t *root = NULL, *jobs;
	json_error_t jerr;
	json_int_t job_error = 0;
	char txt[200];
	int rc;

	for (i = 0; i < n; i++)
		per[i].n = 0;
	fio_error_text(out, out_len, errout, errout_len, txt, sizeof(txt));
	if (json) {
		root = json_loadb(json, out_len - (size_t)(json - out), JSON_DISABLE_EOF_CHECK,
		                  &jerr);
	}
	jobs = root ? json_object_get(root, "jobs") : NULL;
	if (jobs && json_is_array(jobs) && json_array_size(jobs) == (size_t)n) {
		for (i = 0; i < n; i++) {
			const json_t *job = json_array_get(jobs, (size_t)i);

			if (sections && !fio_section_is(job, i))
				break;
			fio_job_parse(job, &per[i], &job_error);
		}
		found = i == n;
	}
	if (term_signal || exit_code == 128) {
		rc = err_set(e, -EINTR, "engine_failed", "fio interrupted (%s %d): %s",
		             term_signal ? "signal" : "exit status",
		             term_signal ? term_signal : exit_code, txt);
		goto out;
	}
	if (exit_code != 0 || job_error) {
		rc = err_set(e, -EIO, "engine_failed",
		             "fio exited with status %d (job error %" JSON_INTEGER_FORMAT "): %s",
		             exit_code, job_error, txt);
		goto out;
	}
	if (!json) {
		rc = err_set(e, -EPROTO, "engine_failed", "fio printed no JSON: %s", txt);
		goto out;
	}
	if (!root) {
		rc = err_set(e, -EPROTO, "engine_failed", "cannot parse fio's JSON at line %d: %s",
		             jerr.line, jerr.text);
		goto out;
	}
	if (!found && !sections) {
		rc = err_set(e, -EPROTO, "engine_failed",
		             "fio's JSON has no single group_reporting entry in \"jobs\"");
		goto out;
	}
	if (!found) {
		rc = err_set(
		        e, -EPROTO, "engine_failed",
		        "fio's JSON does not hold the job's %d workloads in \"jobs\" (one "
		        "group_reporting entry per section, in order, named ...-w0 to ...-w%d)",
		        n, n - 1);
		goto out;
	}
	rc = 0;
out:
	json_decref(root);
	return rc;
}

static int fio_parse(const char *out, size_t out_len, const char *errout, size_t errout_len,
                     int exit_code, int term_signal, struct metrics *m, struct err *e)
{
	return fio_parse_jobs(out, out_len, errout, errout_len, exit_code, term_signal, 0, m, e);
}

int fio_parse_sections(const char *out, size_t out_len, const char *errout, size_t errout_len,
                       int exit_code, int term_signal, int n, struct metrics *per, struct err *e)
{
	if (n < 1)
		return err_set(e, -EINVAL, "internal", "fio: a pass of %d sections", n);
	return fio_parse_jobs(out, out_len, errout, errout_len, exit_code, term_signal, n, per, e);
}

/* Per direction with I/O (fio_dir_parse), then fio's CPU figures. rw defaults to read; a mixed
 * workload with rwmixread 0 or 100 only writes or only reads. */
static void fio_metrics_list(const struct engine_opts *opts, struct metric_names *out)
{
	static const char *const per_dir[] = { "bw_mib",      "iops",        "clat_mean_us",
		                               "clat_p50_us", "clat_p99_us", "clat_p999_us" };
	const struct fio_opts *o = &opts->fio;
	const char *rw = o->rw ? o->rw : "read";
	bool rd = false, wr = false, trim = false;
	char name[48];
	size_t i;

	if (fio_rw_mixed(rw)) {
		rd = o->rwmixread > 0;
		wr = o->rwmixread < 100;
	} else if (!strcmp(rw, "trimwrite")) {
		trim = wr = true;
	} else {
		rd = strstr(rw, "read") != NULL;
		wr = strstr(rw, "write") != NULL;
		trim = strstr(rw, "trim") != NULL;
	}
	for (i = 0; i < sizeof(per_dir) / sizeof(per_dir[0]); i++) {
		if (rd) {
			snprintf(name, sizeof(name), "read.%s", per_dir[i]);
			metric_names_add(out, name);
		}
		if (wr) {
			snprintf(name, sizeof(name), "write.%s", per_dir[i]);
			metric_names_add(out, name);
		}
		if (trim) {
			snprintf(name, sizeof(name), "trim.%s", per_dir[i]);
			metric_names_add(out, name);
		}
	}
	metric_names_add(out, "cpu.usr_pct");
	metric_names_add(out, "cpu.sys_pct");
}

/* ---- a job with workloads: each rule per section, the times summed over them ---- */

static int fio_job_check(const struct engine_opts *opts, struct err *e)
{
	struct engine_opts sec;
	int i, rc;

	if (!opts->n_workloads)
		return fio_check(opts, e);
	for (i = 0; i < opts->n_workloads; i++) {
		engine_section_opts(opts, i, &sec);
		rc = fio_check(&sec, e);
		if (rc)
			return fio_section_err(opts, i, rc, e);
	}
	return 0;
}

/* The sections run one after another: the sum, 0 (unknown) when one section's is. */
static double fio_job_expected_runtime_s(const struct engine_opts *opts)
{
	struct engine_opts sec;
	double sum = 0, s;
	int i;

	if (!opts->n_workloads)
		return fio_expected_runtime_s(opts);
	for (i = 0; i < opts->n_workloads; i++) {
		engine_section_opts(opts, i, &sec);
		s = fio_expected_runtime_s(&sec);
		if (s <= 0)
			return 0;
		sum += s;
	}
	return sum;
}

static double fio_job_pass_bound_s(const struct engine_opts *opts, bool in_directory,
                                   uint64_t device_bytes)
{
	struct engine_opts sec;
	double sum = 0;
	int i;

	if (!opts->n_workloads)
		return fio_pass_bound_s(opts, in_directory, device_bytes);
	for (i = 0; i < opts->n_workloads; i++) {
		engine_section_opts(opts, i, &sec);
		sum += fio_pass_bound_s(&sec, in_directory, device_bytes);
	}
	return sum;
}

static double fio_job_progress(const struct engine_opts *opts, double elapsed_s, const char *out,
                               size_t out_len, const char *errout, size_t errout_len)
{
	double runtime_s = fio_job_expected_runtime_s(opts), p;

	if (!opts->n_workloads)
		return fio_progress(opts, elapsed_s, out, out_len, errout, errout_len);
	if (runtime_s <= 0)
		return -1;
	p = elapsed_s / runtime_s;
	return p < 0 ? 0 : p > 0.99 ? 0.99 : p;
}

/* A pass's own metrics are its first workload's (engine_parse_pass). */
static void fio_job_metrics_list(const struct engine_opts *opts, struct metric_names *out)
{
	struct engine_opts sec;

	if (!opts->n_workloads) {
		fio_metrics_list(opts, out);
		return;
	}
	engine_section_opts(opts, 0, &sec);
	fio_metrics_list(&sec, out);
}

const struct engine fio_engine = {
	.name = "fio",
	.id = ENGINE_FIO,
	.needs_directory = 0,
	ENGINE_OPTS(fio_opts_table, fio),
	.check = fio_job_check,
	.argv_build = fio_argv_build,
	.expected_runtime_s = fio_job_expected_runtime_s,
	.pass_bound_s = fio_job_pass_bound_s,
	.progress = fio_job_progress,
	.parse = fio_parse,
	.raw_stream = "stdout",
	.metrics_list = fio_job_metrics_list,
};
