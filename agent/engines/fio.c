/* fio.c -- the fio engine: option table and checks, argv (a job's workloads as stonewalled
 * sections, or its job file), progress, metrics, fio's JSON parser (per section). */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engines/engine.h"
#include "engines/fiofile.h"
#include "engines/fiosyntax.h"
#include "num.h"
#include "utf8.h"
#include "banned.h"

static const char *const fio_rw[] = {
	"read",   "write", "randread", "randwrite", "rw", "readwrite",
	"randrw", "trim",  "randtrim", "trimwrite", NULL,
};

static const char *const fio_ioengines[] = {
	"libaio",  "io_uring", "psync",    "sync", "pvsync",
	"pvsync2", "vsync",    "posixaio", "mmap", NULL,
};

static int fio_bssplit_check(const char *path, const char *v, struct err *e);
static int fio_distribution_check(const char *path, const char *v, struct err *e);

/* The "fio" object of a job. Absent keys are left to fio. Times take fio's units ("30s"). */
static const struct engine_opt fio_opts_table[] = {
	{ ENGINE_OPT(fio_opts, rw, EOPT_ENUM), .choices = fio_rw },
	{ ENGINE_OPT(fio_opts, ioengine, EOPT_ENUM), .choices = fio_ioengines },
	{ ENGINE_OPT(fio_opts, bs, EOPT_SIZE), .min = 1, .max = 1LL << 30 },
	{ ENGINE_OPT(fio_opts, size, EOPT_SIZE), .min = 1, .max = 1LL << 50 },
	{ ENGINE_OPT(fio_opts, direct, EOPT_BOOL) },
	{ ENGINE_OPT(fio_opts, iodepth, EOPT_INT), .min = 1, .max = 4096, .def = 1 },
	{ ENGINE_OPT(fio_opts, numjobs, EOPT_INT), .min = 1, .max = 256, .def = 1 },
	{ ENGINE_OPT(fio_opts, runtime_s, EOPT_DURATION), .min = 1, .max = 86400,
	  .unit_us = 1000000 },
	{ ENGINE_OPT(fio_opts, ramp_time_s, EOPT_DURATION), .min = 0, .max = 3600,
	  .unit_us = 1000000 },
	{ ENGINE_OPT(fio_opts, time_based, EOPT_BOOL) },
	{ ENGINE_OPT(fio_opts, rwmixread, EOPT_INT), .min = 0, .max = 100, .def = 50 },
	{ ENGINE_OPT(fio_opts, rwmixwrite, EOPT_INT), .min = 0, .max = 100, .def = 50 },
	{ ENGINE_OPT(fio_opts, bssplit, EOPT_TEXT), .max = FIO_TEXT_MAX,
	  .hint = "fio's bssplit, \"4k/10:64k/50:32k/40\"", .text_check = fio_bssplit_check },
	{ ENGINE_OPT(fio_opts, random_distribution, EOPT_TEXT), .max = FIO_TEXT_MAX,
	  .hint = "fio's random_distribution, \"zipf:1.2\"", .text_check = fio_distribution_check },
	{ ENGINE_OPT(fio_opts, percentage_random, EOPT_INT), .min = 0, .max = 100 },
	{ ENGINE_OPT(fio_opts, norandommap, EOPT_BOOL) },
	{ ENGINE_OPT(fio_opts, randrepeat, EOPT_BOOL) },
	{ ENGINE_OPT_AS(fio_opts, rate, rate_bytes_s, EOPT_SIZE), .min = 1, .max = 1LL << 40 },
	{ ENGINE_OPT(fio_opts, rate_iops, EOPT_INT), .min = 1, .max = 100000000 },
	{ ENGINE_OPT(fio_opts, iodepth_batch, EOPT_INT), .min = 0, .max = 4096 },
	{ ENGINE_OPT(fio_opts, fsync, EOPT_INT), .min = 0, .max = 1000000000 },
	{ ENGINE_OPT(fio_opts, fdatasync, EOPT_INT), .min = 0, .max = 1000000000 },
	{ ENGINE_OPT(fio_opts, end_fsync, EOPT_BOOL) },
	{ ENGINE_OPT(fio_opts, invalidate, EOPT_BOOL) },
	{ ENGINE_OPT(fio_opts, offset, EOPT_SIZE), .min = 0, .max = 1LL << 50 },
	{ ENGINE_OPT(fio_opts, offset_increment, EOPT_SIZE), .min = 0, .max = 1LL << 50 },
	{ ENGINE_OPT_AS(fio_opts, thinktime, thinktime_us, EOPT_DURATION), .min = 0,
	  .max = 60000000, .unit_us = 1 },
	{ ENGINE_OPT(fio_opts, loops, EOPT_INT), .min = 1, .max = 1000000 },
};

static int fio_bssplit_check(const char *path, const char *v, struct err *e)
{
	char why[160];

	if (fiosyntax_bssplit_parse(v, NULL, NULL, why, sizeof(why)))
		return err_set(e, -EINVAL, ERR_BAD_REQUEST,
		               "%s: %s (fio's bssplit: \"4k/10:64k/50:32k/40\", per direction "
		               "\"R,W\")",
		               path, why);
	return 0;
}

/* "zoned:60/10:30/20:10/70" (access%/range%), "zoned_abs:60/20g:40/100g" (access%/size): the
 * accesses of a list make 100, the ranges at most 100. */
static int fio_zones_check(const char *z, bool abs, char *why, size_t len)
{
	const char *dir = z, *p, *end, *slash, *colon, *comma;
	double acc, sum_acc, range, sum_range;
	uint64_t bytes;
	int n;

	for (n = 0;; n++) {
		comma = strchr(dir, ',');
		end = comma ? comma : dir + strlen(dir);
		if (n >= 3) {
			snprintf(why, len, "at most 3 lists (read,write,trim)");
			return -EINVAL;
		}
		sum_acc = sum_range = 0;
		for (p = dir; p < end; p = colon + 1) {
			colon = memchr(p, ':', (size_t)(end - p));
			if (!colon)
				colon = end;
			slash = memchr(p, '/', (size_t)(colon - p));
			if (!slash || fiosyntax_number(p, (size_t)(slash - p), &acc) || acc < 0 ||
			    acc > 100) {
				snprintf(why, len, "zone '%.*s' is not ACCESS%%/%s",
				         (int)(colon - p) > 32 ? 32 : (int)(colon - p), p,
				         abs ? "SIZE" : "RANGE%");
				return -EINVAL;
			}
			if (abs) {
				char buf[32];
				size_t k = (size_t)(colon - slash - 1);

				if (k == 0 || k >= sizeof(buf)) {
					snprintf(why, len, "a zone without a size");
					return -EINVAL;
				}
				memcpy(buf, slash + 1, k);
				buf[k] = '\0';
				if (num_parse_size(buf, &bytes) || !bytes) {
					snprintf(why, len, "'%s' is not a size like 20g", buf);
					return -EINVAL;
				}
			} else if (fiosyntax_number(slash + 1, (size_t)(colon - slash - 1),
			                            &range) ||
			           range < 0 || range > 100) {
				snprintf(why, len, "zone '%.*s': the range is not a percentage",
				         (int)(colon - p) > 32 ? 32 : (int)(colon - p), p);
				return -EINVAL;
			} else {
				sum_range += range;
			}
			sum_acc += acc;
			if (colon == end)
				break;
		}
		if (sum_acc < 100 - 1e-9 || sum_acc > 100 + 1e-9 || sum_range > 100 + 1e-9) {
			snprintf(why, len,
			         "the accesses of a list add up to %g%s; they must make 100%s",
			         sum_acc, abs ? "" : " and the ranges to",
			         abs ? "" : " and at most 100");
			if (!abs)
				snprintf(why, len,
				         "the accesses add up to %g and the ranges to %g; the "
				         "accesses "
				         "must make 100, the ranges at most 100",
				         sum_acc, sum_range);
			return -EINVAL;
		}
		if (!comma)
			return 0;
		dir = comma + 1;
	}
}

static int fio_distribution_check(const char *path, const char *v, struct err *e)
{
	static const char *const simple[] = { "zipf", "pareto", "normal", "gauss", NULL };
	const char *colon = strchr(v, ':'), *arg2;
	char why[200];
	double x, c;
	size_t n = colon ? (size_t)(colon - v) : strlen(v);
	int i;

	why[0] = '\0';
	if (!strcmp(v, "random"))
		return 0;
	if (colon && n == 5 && !strncmp(v, "zoned", 5)) {
		if (!fio_zones_check(colon + 1, false, why, sizeof(why)))
			return 0;
		goto bad;
	}
	if (colon && n == 9 && !strncmp(v, "zoned_abs", 9)) {
		if (!fio_zones_check(colon + 1, true, why, sizeof(why)))
			return 0;
		goto bad;
	}
	for (i = 0; simple[i]; i++)
		if (strlen(simple[i]) == n && !strncmp(v, simple[i], n))
			break;
	if (!simple[i] || !colon) {
		snprintf(why, sizeof(why),
		         "expected random, zipf:THETA, pareto:H, normal:DEV (or gauss), "
		         "zoned:ACCESS%%/RANGE%%:..., zoned_abs:ACCESS%%/SIZE:...");
		goto bad;
	}
	arg2 = strchr(colon + 1, ':');
	if (fiosyntax_number(colon + 1, arg2 ? (size_t)(arg2 - colon - 1) : strlen(colon + 1),
	                     &x)) {
		snprintf(why, sizeof(why), "%s needs a number after ':'", simple[i]);
		goto bad;
	}
	if (arg2 && (fiosyntax_number(arg2 + 1, strlen(arg2 + 1), &c) || c < 0 || c > 1)) {
		snprintf(why, sizeof(why), "the centre after the second ':' must be 0..1");
		goto bad;
	}
	if (i == 0 && (x <= 0 || fabs(x - 1.0) < 1e-12))
		snprintf(why, sizeof(why), "zipf's theta must be above 0 and not 1");
	else if (i == 1 && (x <= 0 || x >= 1))
		snprintf(why, sizeof(why), "pareto's h must be between 0 and 1");
	else if (i >= 2 && (x < 0 || x > 100))
		snprintf(why, sizeof(why), "%s's deviation must be a percentage 0..100", simple[i]);
	if (!why[0])
		return 0;
bad:
	return err_set(e, -EINVAL, ERR_BAD_REQUEST, "%s: '%.*s': %s", path, utf8_cut(v, 64), v,
	               why);
}

static int fio_rw_mixed(const char *rw)
{
	return rw && (!strcmp(rw, "rw") || !strcmp(rw, "readwrite") || !strcmp(rw, "randrw"));
}

/* The read share of a mixed workload: rwmixread, else 100 - rwmixwrite, else fio's 50. */
static int64_t fio_read_pct(const struct fio_opts *o)
{
	if (!o->has_rwmixread && o->has_rwmixwrite)
		return 100 - o->rwmixwrite;
	return o->rwmixread;
}

static int fio_check(const struct engine_opts *opts, struct err *e)
{
	const struct fio_opts *o = &opts->fio;

	if (o->file)
		return 0; /* fiofile_parse and fiofile_target_check have judged it */
	if (o->time_based && !o->has_runtime_s)
		return err_set(e, -EINVAL, ERR_BAD_REQUEST,
		               "fio.time_based: needs runtime_s (fio would run forever)");
	if (o->has_bs && o->has_size && o->size < o->bs)
		return err_set(e, -EINVAL, ERR_BAD_REQUEST, "fio.size: must be at least bs");
	if (o->has_bs && o->has_bssplit)
		return err_set(e, -EINVAL, ERR_BAD_REQUEST,
		               "fio.bssplit: give bs or bssplit, not both (fio would ignore bs)");
	if (o->has_rwmixread && o->has_rwmixwrite && o->rwmixread + o->rwmixwrite != 100)
		return err_set(e, -EINVAL, ERR_BAD_REQUEST,
		               "fio.rwmixwrite: rwmixread %" PRId64 " and rwmixwrite %" PRId64
		               " must add up to 100 (give one of them)",
		               o->rwmixread, o->rwmixwrite);
	if (o->has_rate_bytes_s && o->has_rate_iops)
		return err_set(e, -EINVAL, ERR_BAD_REQUEST,
		               "fio.rate_iops: give rate or rate_iops, not both");
	if (o->has_iodepth_batch && o->iodepth_batch > o->iodepth)
		return err_set(
		        e, -EINVAL, ERR_BAD_REQUEST,
		        "fio.iodepth_batch: %" PRId64 " is more than iodepth (%" PRId64 "%s)",
		        o->iodepth_batch, o->iodepth, o->has_iodepth ? "" : ", fio's default");
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

/* Name a workload in front of a per-section rule's message: "workloads[1] \"rand read 4k\":
 * fio.size: required ...". Returns rc. */
static int fio_section_err(const struct engine_opts *opts, int i, int rc, struct err *e)
{
	enum err_code code = e->code;
	char msg[sizeof(e->msg)];

	snprintf(msg, sizeof(msg), "%s", e->msg);
	return err_set(e, rc, code, "workloads[%d] \"%s\": %s", i, opts->workloads[i].name, msg);
}

/* The options of one section (a plain job's only one): every given key. rwmixread is only
 * passed for mixed workloads (rw, readwrite, randrw); elsewhere fio ignores it anyway. Takes
 * the vector and gives it back grown. */
static struct engine_argv fio_section_args(struct engine_argv a, const struct fio_opts *o);

/*
 * A plain job: fio --name=W --output-format=json --group_reporting <target> [--exec_prerun=CMD]
 * [options]. A job with workloads: one invocation, the target and group_reporting global, then
 * per workload i a section --name=W-wI --description=NAME [--stonewall] --new_group
 * [--exec_prerun=CMD, the first only] [its options]:
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
	if (o->file) {
		/* The job file names its target itself (fiofile_render): fio reads only it. */
		if (!t->job_file) {
			rc = err_set(e, -EINVAL, ERR_INTERNAL,
			             "fio: a job file job without its file");
			goto out;
		}
		engine_argv_add(&a, "%s", t->exe ? t->exe : "fio");
		engine_argv_add(&a, "--output-format=json");
		engine_argv_add(&a, "%s", t->job_file);
		*argv = engine_argv_detach(&a);
		rc = 0;
		goto out;
	}
	if (!t->directory && !t->device_path) {
		rc = err_set(e, -EINVAL, ERR_BAD_REQUEST, "fio: no device or directory to run on");
		goto out;
	}
	for (i = 0; t->directory && i < opts->n_workloads; i++)
		if (!opts->workloads[i].fio.has_size) {
			err_set(e, -EINVAL, ERR_BAD_REQUEST,
			        "fio.size: required when the job writes files in a directory");
			rc = fio_section_err(opts, i, -EINVAL, e);
			goto out;
		}
	if (t->directory && !opts->n_workloads && !o->has_size) {
		rc = err_set(e, -EINVAL, ERR_BAD_REQUEST,
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
	if (!opts->n_workloads) {
		if (t->prerun)
			engine_argv_add(&a, "--exec_prerun=%s", t->prerun);
		a = fio_section_args(a, o);
	}
	for (i = 0; i < opts->n_workloads; i++) {
		engine_argv_add(&a, "--name=%s-w%d", t->work_name, i);
		engine_argv_add(&a, "--description=%s", opts->workloads[i].name);
		if (i)
			engine_argv_add(&a, "--stonewall");
		engine_argv_add(&a, "--new_group");
		/* The first section only: the later ones start when it has ended. */
		if (!i && t->prerun)
			engine_argv_add(&a, "--exec_prerun=%s", t->prerun);
		a = fio_section_args(a, &opts->workloads[i].fio);
	}
	*argv = engine_argv_detach(&a);
	rc = 0;
out:
	engine_argv_free(engine_argv_detach(&a));
	return rc;
}

/* (Declared above fio_argv_build.) */
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
	if (o->has_rwmixwrite && !o->has_rwmixread && fio_rw_mixed(o->rw))
		engine_argv_add(&a, "--rwmixwrite=%" PRId64, o->rwmixwrite);
	if (o->has_bssplit)
		engine_argv_add(&a, "--bssplit=%s", o->bssplit);
	if (o->has_random_distribution)
		engine_argv_add(&a, "--random_distribution=%s", o->random_distribution);
	if (o->has_percentage_random)
		engine_argv_add(&a, "--percentage_random=%" PRId64, o->percentage_random);
	if (o->has_norandommap)
		engine_argv_add(&a, "--norandommap=%d", o->norandommap);
	if (o->has_randrepeat)
		engine_argv_add(&a, "--randrepeat=%d", o->randrepeat);
	if (o->has_rate_bytes_s) {
		engine_size_str(o->rate_bytes_s, 0, sz, sizeof(sz));
		engine_argv_add(&a, "--rate=%s", sz);
	}
	if (o->has_rate_iops)
		engine_argv_add(&a, "--rate_iops=%" PRId64, o->rate_iops);
	if (o->has_iodepth_batch)
		engine_argv_add(&a, "--iodepth_batch=%" PRId64, o->iodepth_batch);
	if (o->has_fsync)
		engine_argv_add(&a, "--fsync=%" PRId64, o->fsync);
	if (o->has_fdatasync)
		engine_argv_add(&a, "--fdatasync=%" PRId64, o->fdatasync);
	if (o->has_end_fsync)
		engine_argv_add(&a, "--end_fsync=%d", o->end_fsync);
	if (o->has_invalidate)
		engine_argv_add(&a, "--invalidate=%d", o->invalidate);
	if (o->has_offset) {
		engine_size_str(o->offset, 0, sz, sizeof(sz));
		engine_argv_add(&a, "--offset=%s", sz);
	}
	if (o->has_offset_increment) {
		engine_size_str(o->offset_increment, 0, sz, sizeof(sz));
		engine_argv_add(&a, "--offset_increment=%s", sz);
	}
	if (o->has_thinktime_us)
		engine_argv_add(&a, "--thinktime=%" PRId64 "us", o->thinktime_us);
	if (o->has_loops)
		engine_argv_add(&a, "--loops=%" PRId64, o->loops);
	return a;
}

/* The smallest block a job moves: bssplit's smallest, bs, or fio's 4k. */
static double fio_min_bs(const struct fio_opts *o)
{
	uint64_t lo;
	char why[160];

	if (o->has_bssplit && !fiosyntax_bssplit_parse(o->bssplit, &lo, NULL, why, sizeof(why)))
		return (double)lo;
	return o->has_bs && o->bs ? (double)o->bs : 4096.0;
}

/* How long rate, rate_iops and thinktime make one job move bytes, at most: at its rate (bytes
 * or IOs of the smallest block) and idling thinktime after every I/O of the smallest block. */
static double fio_throttled_s(const struct fio_opts *o, double bytes)
{
	double ios = bytes / fio_min_bs(o), t = 0;

	if (o->has_rate_bytes_s && o->rate_bytes_s)
		t = bytes / (double)o->rate_bytes_s;
	if (o->has_rate_iops && o->rate_iops)
		t = fmax(t, ios / (double)o->rate_iops);
	if (o->has_thinktime_us)
		t += ios * (double)o->thinktime_us / 1e6;
	return t;
}

/* runtime_s and the ramp before it (fio runs ramp_time, then measures for runtime), with one
 * thinktime past the end; without runtime_s, what a rate limit or thinktime makes size x loops
 * take; else unknown (0). */
static double fio_expected_runtime_s(const struct engine_opts *opts)
{
	const struct fio_opts *o = &opts->fio;
	double ramp = o->has_ramp_time_s ? (double)o->ramp_time_s : 0;
	double loops = o->has_loops ? (double)o->loops : 1;

	if (o->file)
		return fio_file_expected_runtime_s(o->file);
	if (o->has_runtime_s)
		return (double)o->runtime_s + ramp +
		       (o->has_thinktime_us ? (double)o->thinktime_us / 1e6 : 0);
	if (o->has_size && (o->has_rate_bytes_s || o->has_rate_iops || o->has_thinktime_us))
		return ramp + fio_throttled_s(o, (double)o->size * loops);
	return 0;
}

/* runtime_s and its ramp where given, and the I/O fio does where they do not bound it:
 * without runtime_s size x numjobs x loops (the device's size past offset without size) at the
 * floor rate, plus what rate limits and thinktime add to each job's share; in a directory the
 * files it lays out before the timed part. */
static double fio_pass_bound_s(const struct engine_opts *opts, bool in_directory,
                               uint64_t device_bytes)
{
	const struct fio_opts *o = &opts->fio;
	double dev = o->has_offset && o->offset < device_bytes ? (double)(device_bytes - o->offset)
	                                                       : (double)device_bytes;
	double per_job = o->has_size ? (double)o->size : dev;
	double jobs = o->has_numjobs ? (double)o->numjobs : 1;
	double loops = o->has_loops ? (double)o->loops : 1;
	double ramp = o->has_ramp_time_s ? (double)o->ramp_time_s : 0;

	if (o->file)
		return fio_file_pass_bound_s(o->file, in_directory, device_bytes);
	if (o->has_runtime_s && !in_directory)
		return fio_expected_runtime_s(opts);
	if (o->has_runtime_s)
		return fio_expected_runtime_s(opts) + engine_volume_s(per_job * jobs);
	return ramp + engine_volume_s(per_job * jobs * loops) + fio_throttled_s(o, per_job * loops);
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
		rc = err_set(e, -EINTR, ERR_ENGINE_FAILED, "fio interrupted (%s %d): %s",
		             term_signal ? "signal" : "exit status",
		             term_signal ? term_signal : exit_code, txt);
		goto out;
	}
	if (exit_code != 0 || job_error) {
		rc = err_set(e, -EIO, ERR_ENGINE_FAILED,
		             "fio exited with status %d (job error %" JSON_INTEGER_FORMAT "): %s",
		             exit_code, job_error, txt);
		goto out;
	}
	if (!json) {
		rc = err_set(e, -EPROTO, ERR_ENGINE_FAILED, "fio printed no JSON: %s", txt);
		goto out;
	}
	if (!root) {
		rc = err_set(e, -EPROTO, ERR_ENGINE_FAILED,
		             "cannot parse fio's JSON at line %d: %s", jerr.line, jerr.text);
		goto out;
	}
	if (!found && !sections) {
		rc = err_set(e, -EPROTO, ERR_ENGINE_FAILED,
		             "fio's JSON has no single group_reporting entry in \"jobs\"");
		goto out;
	}
	if (!found) {
		rc = err_set(
		        e, -EPROTO, ERR_ENGINE_FAILED,
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
		return err_set(e, -EINVAL, ERR_INTERNAL, "fio: a pass of %d sections", n);
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

	if (o->file) {
		fio_file_metrics_list(o->file, out);
		return;
	}
	if (fio_rw_mixed(rw)) {
		rd = fio_read_pct(o) > 0;
		wr = fio_read_pct(o) < 100;
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

/* ---- a job file's passes: each job section as a fio job of its own ---- */

double fio_file_pass_bound_s(const struct fiofile *f, bool in_directory, uint64_t device_bytes)
{
	double timed = 0, by_io = 0, b;
	int i;

	for (i = 0; i < f->n_sections; i++) {
		const struct fiofile_section *s = &f->sections[i];

		if (s->global)
			continue;
		b = fio_pass_bound_s(&s->opts, in_directory, device_bytes);
		/* Sections run side by side: those that end at their runtime take the longest
		 * one's time; those bounded by their I/O share the device, so each adds its own. */
		if (s->opts.fio.has_runtime_s && !in_directory)
			timed = fmax(timed, b);
		else
			by_io += b;
	}
	return timed + by_io;
}

double fio_file_expected_runtime_s(const struct fiofile *f)
{
	double t = 0;
	int i;

	for (i = 0; i < f->n_sections; i++)
		if (!f->sections[i].global)
			t = fmax(t, fio_expected_runtime_s(&f->sections[i].opts));
	return t;
}

void fio_file_metrics_list(const struct fiofile *f, struct metric_names *out)
{
	int i;

	for (i = 0; i < f->n_sections; i++)
		if (!f->sections[i].global)
			fio_metrics_list(&f->sections[i].opts, out);
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
	.exe = "fio",
	.id = ENGINE_FIO,
	.needs_directory = 0,
	ENGINE_OPTS(fio_opts_table, fio),
	.check = fio_job_check,
	.argv_build = fio_argv_build,
	.expected_runtime_s = fio_job_expected_runtime_s,
	.pass_bound_s = fio_job_pass_bound_s,
	.progress = fio_job_progress,
	.parse_sections = fio_parse_sections,
	.parse = fio_parse,
	.raw_stream = "stdout",
	.metrics_list = fio_job_metrics_list,
};
