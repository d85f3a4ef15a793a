/* dd.c -- the dd engine: option table and checks, argv, progress from status=progress, parser. */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engines/engine.h"
#include "banned.h"

static const char *const dd_directions[] = { "write", "read", NULL };

/* The "dd" object of a job. */
static const struct engine_opt dd_opts_table[] = {
	{ ENGINE_OPT(dd_opts, direction, EOPT_ENUM), .choices = dd_directions, .def_str = "write" },
	{ ENGINE_OPT(dd_opts, bs, EOPT_SIZE), .min = 1, .max = 1LL << 30, .def = 1LL << 20 },
	{ ENGINE_OPT(dd_opts, count, EOPT_INT), .min = 1, .max = 1000000000 },
	{ ENGINE_OPT(dd_opts, oflag_direct, EOPT_BOOL) },
	{ ENGINE_OPT(dd_opts, iflag_direct, EOPT_BOOL) },
};

/* count is required: there is no sensible default amount of data to write to a device. */
static int dd_check(const struct engine_opts *opts, struct err *e)
{
	const struct dd_opts *o = &opts->dd;

	if (!o->has_count)
		return err_set(e, -EINVAL, ERR_BAD_REQUEST, "dd.count: required (1..1000000000)");
	/* /dev/zero and /dev/null refuse O_DIRECT, so each flag belongs to one direction. */
	if (o->oflag_direct && strcmp(o->direction, "write"))
		return err_set(e, -EINVAL, ERR_BAD_REQUEST,
		               "dd.oflag_direct: only valid with direction \"write\"");
	if (o->iflag_direct && strcmp(o->direction, "read"))
		return err_set(e, -EINVAL, ERR_BAD_REQUEST,
		               "dd.iflag_direct: only valid with direction \"read\"");
	return 0;
}

/* write: dd if=/dev/zero of=T bs= count= [oflag=direct] conv=fdatasync status=progress
 * read:  dd if=T of=/dev/null bs= count= [iflag=direct] status=progress
 * T is the raw device, or <dir>/<work_name>.dd for a write with a directory. A read with a
 * directory is refused: the pass's file name is fresh, so there would be nothing to read. */
static int dd_argv_build(const struct engine_opts *opts, const struct engine_target *t,
                         char ***argv, struct err *e)
{
	const struct dd_opts *o = &opts->dd;
	struct engine_argv a = { 0 };
	char bs[32];
	int rc;

	*argv = NULL;
	if (!t->directory && !t->device_path) {
		rc = err_set(e, -EINVAL, ERR_BAD_REQUEST, "dd: no device or directory to run on");
		goto out;
	}
	engine_size_str(o->bs, 0, bs, sizeof(bs));
	engine_argv_add(&a, "%s", t->exe ? t->exe : "dd");
	if (!strcmp(o->direction, "write")) {
		engine_argv_add(&a, "if=/dev/zero");
		if (t->directory)
			engine_argv_add(&a, "of=%s/%s.dd", t->directory, t->work_name);
		else
			engine_argv_add(&a, "of=%s", t->device_path);
		engine_argv_add(&a, "bs=%s", bs);
		engine_argv_add(&a, "count=%" PRId64, o->count);
		if (o->oflag_direct)
			engine_argv_add(&a, "oflag=direct");
		engine_argv_add(&a, "conv=fdatasync");
	} else {
		if (t->directory) {
			rc = err_set(e, -EINVAL, ERR_BAD_REQUEST,
			             "dd.direction: \"read\" needs a raw device; a job with a "
			             "directory has no file to read");
			goto out;
		}
		engine_argv_add(&a, "if=%s", t->device_path);
		engine_argv_add(&a, "of=/dev/null");
		engine_argv_add(&a, "bs=%s", bs);
		engine_argv_add(&a, "count=%" PRId64, o->count);
		if (o->iflag_direct)
			engine_argv_add(&a, "iflag=direct");
	}
	engine_argv_add(&a, "status=progress");
	*argv = engine_argv_detach(&a);
	rc = 0;
out:
	engine_argv_free(engine_argv_detach(&a));
	return rc;
}

static double dd_expected_runtime_s(const struct engine_opts *opts)
{
	return 0;
}

/* count blocks of bs, read or written. */
static double dd_pass_bound_s(const struct engine_opts *opts, bool in_directory,
                              uint64_t device_bytes)
{
	const struct dd_opts *o = &opts->dd;
	double bs = o->has_bs ? (double)o->bs : 1024.0 * 1024.0;

	(void)in_directory;
	(void)device_bytes;
	return engine_volume_s(bs * (double)o->count);
}

/* What one "<bytes> bytes ... copied, <secs> s" line of dd's stderr says. */
struct dd_copied {
	uint64_t bytes;
	double secs;
};

static int dd_copied_parse(const char *s, size_t n, void *ctx)
{
	struct dd_copied *c = ctx;
	char line[256], *p, *q;
	unsigned long long b;
	double t;

	snprintf(line, sizeof(line), "%.*s", (int)n, s);
	b = strtoull(line, &p, 10);
	q = strstr(line, " copied, ");
	if (p == line || strncmp(p, " bytes", 6) || !q)
		return 0;
	t = strtod(q + 9, &p);
	if (p == q + 9 || strncmp(p, " s", 2))
		return 0;
	c->bytes = b;
	c->secs = t;
	return 1;
}

/* Find the last "<bytes> bytes ... copied, <secs> s" segment of dd's stderr. Segments end
 * in '\n' or '\r' (status=progress rewrites its line with '\r'). secs may be NULL. */
static int dd_copied_last(const char *s, size_t len, uint64_t *bytes, double *secs)
{
	struct dd_copied c;

	if (!engine_line_rfind(s, len, dd_copied_parse, &c))
		return 0;
	*bytes = c.bytes;
	if (secs)
		*secs = c.secs;
	return 1;
}

/* Bytes copied so far (from status=progress) over bs*count, capped below 1. */
static double dd_progress(const struct engine_opts *opts, double elapsed_s, const char *out,
                          size_t out_len, const char *errout, size_t errout_len)
{
	const struct dd_opts *o = &opts->dd;
	uint64_t bytes;
	double p, secs;

	if (!o->has_count)
		return -1;
	if (!dd_copied_last(errout, errout_len, &bytes, &secs))
		return 0;
	p = (double)bytes / ((double)o->bs * (double)o->count);
	return p > 0.99 ? 0.99 : p;
}

/* The final line gives bytes and seconds; bw_mib is computed from them, not from dd's rounded
 * "870 MB/s". dd's output does not say which way data went, so the metric is the plain
 * "bw_mib"; engine_parse() renames it to "write.bw_mib" or "read.bw_mib" from the options. */
static int dd_parse(const char *out, size_t out_len, const char *errout, size_t errout_len,
                    int exit_code, int term_signal, struct metrics *m, struct err *e)
{
	uint64_t bytes = 0;
	double secs = 0;
	char txt[200];
	int found, rc;

	m->n = 0;
	found = dd_copied_last(errout, errout_len, &bytes, &secs);
	if (found && bytes > 0 && secs > 0)
		metrics_set(m, "bw_mib", (double)bytes / secs / (1024.0 * 1024.0));
	if (!engine_line_find(errout, errout_len, "dd: ", txt, sizeof(txt)) &&
	    !engine_line_last(errout, errout_len, txt, sizeof(txt)))
		snprintf(txt, sizeof(txt), "no error text");
	if (term_signal) {
		rc = err_set(e, -EINTR, ERR_ENGINE_FAILED, "dd interrupted (signal %d): %s",
		             term_signal, txt);
		goto out;
	}
	if (exit_code != 0) {
		rc = err_set(e, -EIO, ERR_ENGINE_FAILED, "dd exited with status %d: %s", exit_code,
		             txt);
		goto out;
	}
	if (!found) {
		rc = err_set(e, -EPROTO, ERR_ENGINE_FAILED,
		             "dd printed no \"bytes copied\" line: %s", txt);
		goto out;
	}
	if (bytes == 0 || secs <= 0) {
		rc = err_set(e, -EPROTO, ERR_ENGINE_FAILED, "dd copied nothing: %s", txt);
		goto out;
	}
	rc = 0;
out:
	return rc;
}

/* "write.bw_mib" or "read.bw_mib" from the direction option. */
static void dd_metrics_name(const struct engine_opts *opts, struct metrics *m)
{
	const struct metric *bw = metrics_get(m, "bw_mib");
	char name[48];
	int i;

	if (!bw)
		return;
	snprintf(name, sizeof(name), "%s.bw_mib", opts->dd.direction);
	i = (int)(bw - m->m);
	snprintf(m->m[i].name, sizeof(m->m[i].name), "%s", name);
}

/* The one figure dd's final line gives, named by direction. */
static void dd_metrics_list(const struct engine_opts *opts, struct metric_names *out)
{
	char name[48];

	snprintf(name, sizeof(name), "%s.bw_mib", opts->dd.direction);
	metric_names_add(out, name);
}

const struct engine dd_engine = {
	.name = "dd",
	.exe = "dd",
	.id = ENGINE_DD,
	.needs_directory = 0,
	ENGINE_OPTS(dd_opts_table, dd),
	.check = dd_check,
	.argv_build = dd_argv_build,
	.expected_runtime_s = dd_expected_runtime_s,
	.pass_bound_s = dd_pass_bound_s,
	.progress = dd_progress,
	.parse = dd_parse,
	.raw_stream = "stderr",
	.metrics_name = dd_metrics_name,
	.metrics_list = dd_metrics_list,
};
