/* dd.c -- the dd engine: option checks, argv, progress from status=progress, final-line parser. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "banned.h"

#define DD "dd"

static const char *const dd_keys[] = {
	"direction", "bs", "count", "oflag_direct", "iflag_direct", NULL,
};

static const char *const dd_directions[] = { "write", "read", NULL };

struct dd_opts {
	const char *direction;
	uint64_t bs;
	int64_t count;
	int oflag_direct, iflag_direct;
};

/* count is required: there is no sensible default amount of data to write to a device. */
static int dd_opts_read(const json_t *opts, struct dd_opts *o, struct err *e)
{
	int rc;

	memset(o, 0, sizeof(*o));
	rc = engine_opts_keys(opts, DD, dd_keys, e);
	if (rc < 0)
		goto out;
	rc = engine_opt_enum(opts, DD, "direction", dd_directions, "write", &o->direction, e);
	if (rc < 0)
		goto out;
	rc = engine_opt_size(opts, DD, "bs", 1, 1ULL << 30, 0, 1ULL << 20, &o->bs, e);
	if (rc < 0)
		goto out;
	rc = engine_opt_int(opts, DD, "count", 1, 1000000000, 0, &o->count, e);
	if (rc < 0)
		goto out;
	rc = engine_opt_bool(opts, DD, "oflag_direct", 0, &o->oflag_direct, e);
	if (rc < 0)
		goto out;
	rc = engine_opt_bool(opts, DD, "iflag_direct", 0, &o->iflag_direct, e);
	if (rc < 0)
		goto out;
	if (!engine_opt_has(opts, "count")) {
		rc = err_set(e, -EINVAL, "bad_request", "dd.count: required (1..1000000000)");
		goto out;
	}
	/* /dev/zero and /dev/null refuse O_DIRECT, so each flag belongs to one direction. */
	if (o->oflag_direct && strcmp(o->direction, "write")) {
		rc = err_set(e, -EINVAL, "bad_request",
		             "dd.oflag_direct: only valid with direction \"write\"");
		goto out;
	}
	if (o->iflag_direct && strcmp(o->direction, "read")) {
		rc = err_set(e, -EINVAL, "bad_request",
		             "dd.iflag_direct: only valid with direction \"read\"");
		goto out;
	}
	rc = 0;
out:
	return rc;
}

static int dd_check(const json_t *opts, struct err *e)
{
	struct dd_opts o;

	return dd_opts_read(opts, &o, e);
}

/* write: dd if=/dev/zero of=T bs= count= [oflag=direct] conv=fdatasync status=progress
 * read:  dd if=T of=/dev/null bs= count= [iflag=direct] status=progress
 * T is the raw device, or <dir>/<work_name>.dd for a write with a directory. A read with a
 * directory is refused: the pass's file name is fresh, so there would be nothing to read. */
static int dd_argv_build(const json_t *opts, const struct engine_target *t, char ***argv,
                         struct err *e)
{
	struct engine_argv a = { 0 };
	struct dd_opts o;
	char bs[32];
	int rc;

	*argv = NULL;
	rc = dd_opts_read(opts, &o, e);
	if (rc < 0)
		goto out;
	if (!t->directory && !t->device_path) {
		rc = err_set(e, -EINVAL, "bad_request", "dd: no device or directory to run on");
		goto out;
	}
	engine_size_str(o.bs, 0, bs, sizeof(bs));
	engine_argv_add(&a, "%s", t->exe ? t->exe : "dd");
	if (!strcmp(o.direction, "write")) {
		engine_argv_add(&a, "if=/dev/zero");
		if (t->directory)
			engine_argv_add(&a, "of=%s/%s.dd", t->directory, t->work_name);
		else
			engine_argv_add(&a, "of=%s", t->device_path);
		engine_argv_add(&a, "bs=%s", bs);
		engine_argv_add(&a, "count=%" PRId64, o.count);
		if (o.oflag_direct)
			engine_argv_add(&a, "oflag=direct");
		engine_argv_add(&a, "conv=fdatasync");
	} else {
		if (t->directory) {
			rc = err_set(e, -EINVAL, "bad_request",
			             "dd.direction: \"read\" needs a raw device; a job with a "
			             "directory has no file to read");
			goto out;
		}
		engine_argv_add(&a, "if=%s", t->device_path);
		engine_argv_add(&a, "of=/dev/null");
		engine_argv_add(&a, "bs=%s", bs);
		engine_argv_add(&a, "count=%" PRId64, o.count);
		if (o.iflag_direct)
			engine_argv_add(&a, "iflag=direct");
	}
	engine_argv_add(&a, "status=progress");
	*argv = engine_argv_detach(&a);
	rc = 0;
out:
	engine_argv_free(engine_argv_detach(&a));
	return rc;
}

static double dd_expected_runtime_s(const json_t *opts)
{
	return 0;
}

/* Find the last "<bytes> bytes ... copied, <secs> s" segment of dd's stderr. Segments end
 * in '\n' or '\r' (status=progress rewrites its line with '\r'). secs may be NULL. */
static int dd_copied_last(const char *s, size_t len, uint64_t *bytes, double *secs)
{
	size_t end = len, start;
	char line[256], *p, *q;
	unsigned long long b;
	double t;

	if (!s)
		return 0;
	while (end > 0) {
		start = end;
		while (start > 0 && s[start - 1] != '\n' && s[start - 1] != '\r')
			start--;
		snprintf(line, sizeof(line), "%.*s", (int)(end - start), s + start);
		b = strtoull(line, &p, 10);
		q = strstr(line, " copied, ");
		if (p != line && !strncmp(p, " bytes", 6) && q) {
			t = strtod(q + 9, &p);
			if (p != q + 9 && !strncmp(p, " s", 2)) {
				*bytes = b;
				if (secs)
					*secs = t;
				return 1;
			}
		}
		end = start ? start - 1 : 0;
	}
	return 0;
}

/* Bytes copied so far (from status=progress) over bs*count, capped below 1. */
static double dd_progress(const json_t *opts, double elapsed_s, const char *out, size_t out_len,
                          const char *errout, size_t errout_len)
{
	struct dd_opts o;
	uint64_t bytes;
	double p, secs;

	if (dd_opts_read(opts, &o, NULL) < 0)
		return -1;
	if (!dd_copied_last(errout, errout_len, &bytes, &secs))
		return 0;
	p = (double)bytes / ((double)o.bs * (double)o.count);
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
		rc = err_set(e, -EINTR, "engine_failed", "dd interrupted (signal %d): %s",
		             term_signal, txt);
		goto out;
	}
	if (exit_code != 0) {
		rc = err_set(e, -EIO, "engine_failed", "dd exited with status %d: %s", exit_code,
		             txt);
		goto out;
	}
	if (!found) {
		rc = err_set(e, -EPROTO, "engine_failed", "dd printed no \"bytes copied\" line: %s",
		             txt);
		goto out;
	}
	if (bytes == 0 || secs <= 0) {
		rc = err_set(e, -EPROTO, "engine_failed", "dd copied nothing: %s", txt);
		goto out;
	}
	rc = 0;
out:
	return rc;
}

/* "write.bw_mib" or "read.bw_mib" from the direction option. */
static void dd_metrics_name(const json_t *opts, struct metrics *m)
{
	const struct metric *bw = metrics_get(m, "bw_mib");
	struct dd_opts o;
	char name[48];
	int i;

	if (!bw || dd_opts_read(opts, &o, NULL) < 0)
		return;
	snprintf(name, sizeof(name), "%s.bw_mib", o.direction);
	i = (int)(bw - m->m);
	snprintf(m->m[i].name, sizeof(m->m[i].name), "%s", name);
}

const struct engine dd_engine = {
	.name = "dd",
	.needs_directory = 0,
	.check = dd_check,
	.argv_build = dd_argv_build,
	.expected_runtime_s = dd_expected_runtime_s,
	.progress = dd_progress,
	.parse = dd_parse,
	.raw_stream = "stderr",
	.metrics_name = dd_metrics_name,
};
