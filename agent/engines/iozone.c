/* iozone.c -- the iozone engine: option table and checks, throughput-mode argv, metrics, and
 * the "Children see" parser. */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engines/engine.h"
#include "banned.h"

/* The "tests" names, in the order iozone must run them (-i 0 creates the files), with the
 * two result labels each prints. */
static const char *const iozone_test_names[] = { "write", "read", "random", NULL };

static const struct {
	int flag;
	const char *metric[2];
} iozone_tests[] = {
	{ 0, { "initial_write.bw_mib", "rewrite.bw_mib" } },
	{ 1, { "read.bw_mib", "reread.bw_mib" } },
	{ 2, { "random_read.bw_mib", "random_write.bw_mib" } },
};

#define N_TESTS (sizeof(iozone_tests) / sizeof(iozone_tests[0]))

/* "Children see throughput for 6 <label> = <KB/sec>" label -> metric. */
static const struct {
	const char *label, *metric;
} iozone_labels[] = {
	{ "initial writers", "initial_write.bw_mib" },
	{ "rewriters", "rewrite.bw_mib" },
	{ "readers", "read.bw_mib" },
	{ "re-readers", "reread.bw_mib" },
	{ "random readers", "random_read.bw_mib" },
	{ "random writers", "random_write.bw_mib" },
};

/* The "iozone" object of a job. Sizes are whole KiB; record_size defaults to iozone's 4k. */
static const struct engine_opt iozone_opts_table[] = {
	{ ENGINE_OPT(iozone_opts, record_size, EOPT_SIZE), .min = 4096, .max = 16LL << 20,
	  .align = 1024, .def = 4096 },
	{ ENGINE_OPT(iozone_opts, file_size, EOPT_SIZE), .min = 4096, .max = 1LL << 44,
	  .align = 1024 },
	{ ENGINE_OPT(iozone_opts, threads, EOPT_INT), .min = 1, .max = 64, .def = 1 },
	{ ENGINE_OPT(iozone_opts, tests, EOPT_SET), .choices = iozone_test_names, .def = 7 },
};

/* file_size is required, and "write" creates the files the other tests use. */
static int iozone_check(const struct engine_opts *opts, struct err *e)
{
	const struct iozone_opts *o = &opts->iozone;

	if (!o->has_file_size)
		return err_set(e, -EINVAL, ERR_BAD_REQUEST,
		               "iozone.file_size: required (e.g. \"8g\")");
	if (o->file_size < o->record_size)
		return err_set(e, -EINVAL, ERR_BAD_REQUEST,
		               "iozone.file_size: must be at least record_size");
	if (!(o->tests & 1))
		return err_set(e, -EINVAL, ERR_BAD_REQUEST,
		               "iozone.tests: must include \"write\" (it creates the files the "
		               "other tests use)");
	return 0;
}

/* How many tests are selected. */
static int iozone_n_tests(const struct iozone_opts *o)
{
	size_t k;
	int n = 0;

	for (k = 0; k < N_TESTS; k++)
		n += (o->tests >> k) & 1;
	return n;
}

/* iozone -r R -s S -t N -i 0 [-i 1] [-i 2] -F <dir>/<work>.1 ... <dir>/<work>.N */
static int iozone_argv_build(const struct engine_opts *opts, const struct engine_target *t,
                             char ***argv, struct err *e)
{
	const struct iozone_opts *o = &opts->iozone;
	struct engine_argv a = { 0 };
	char sz[32];
	int64_t i;
	size_t k;
	int rc;

	*argv = NULL;
	if (!t->directory) {
		rc = err_set(e, -EINVAL, ERR_BAD_REQUEST, "iozone: needs a directory");
		goto out;
	}
	engine_argv_add(&a, "%s", t->exe ? t->exe : "iozone");
	engine_argv_add(&a, "-r");
	engine_size_str(o->record_size, 1, sz, sizeof(sz));
	engine_argv_add(&a, "%s", sz);
	engine_argv_add(&a, "-s");
	engine_size_str(o->file_size, 1, sz, sizeof(sz));
	engine_argv_add(&a, "%s", sz);
	engine_argv_add(&a, "-t");
	engine_argv_add(&a, "%" PRId64, o->threads);
	for (k = 0; k < N_TESTS; k++) {
		if (!((o->tests >> k) & 1))
			continue;
		engine_argv_add(&a, "-i");
		engine_argv_add(&a, "%d", iozone_tests[k].flag);
	}
	engine_argv_add(&a, "-F");
	for (i = 1; i <= o->threads; i++)
		engine_argv_add(&a, "%s/%s.%" PRId64, t->directory, t->work_name, i);
	*argv = engine_argv_detach(&a);
	rc = 0;
out:
	engine_argv_free(engine_argv_detach(&a));
	return rc;
}

static double iozone_expected_runtime_s(const struct engine_opts *opts)
{
	return 0;
}

/* Each test moves every thread's file twice (write and rewrite, read and reread, random read
 * and random write). */
static double iozone_pass_bound_s(const struct engine_opts *opts, bool in_directory,
                                  uint64_t device_bytes)
{
	const struct iozone_opts *o = &opts->iozone;
	double threads = o->has_threads ? (double)o->threads : 1;

	(void)in_directory;
	(void)device_bytes;
	return engine_volume_s((double)o->file_size * threads * 2.0 * iozone_n_tests(o));
}

/* One "Children see throughput for  6 initial writers  =  127186.71 KB/sec" line: the metric
 * name and MiB/s (iozone's KB is KiB). Returns 0 for other lines. */
static int iozone_line_parse(const char *line, const char **metric, double *bw_mib)
{
	static const char lead[] = "Children see throughput for";
	const char *p = strstr(line, lead), *eq, *lend;
	char *end;
	double kb;
	size_t k, llen;

	if (!p)
		return 0;
	p += sizeof(lead) - 1;
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p < '0' || *p > '9')
		return 0;
	while (*p >= '0' && *p <= '9')
		p++;
	while (*p == ' ' || *p == '\t')
		p++;
	eq = strchr(p, '=');
	if (!eq)
		return 0;
	lend = eq;
	while (lend > p && (lend[-1] == ' ' || lend[-1] == '\t'))
		lend--;
	llen = (size_t)(lend - p);
	kb = strtod(eq + 1, &end);
	if (end == eq + 1)
		return 0;
	while (*end == ' ' || *end == '\t')
		end++;
	if (strncmp(end, "KB/sec", 6) && strncmp(end, "kB/sec", 6))
		return 0; /* -O prints ops/sec */
	for (k = 0; k < sizeof(iozone_labels) / sizeof(iozone_labels[0]); k++) {
		if (strlen(iozone_labels[k].label) == llen &&
		    !strncmp(iozone_labels[k].label, p, llen)) {
			*metric = iozone_labels[k].metric;
			*bw_mib = kb / 1024.0;
			return 1;
		}
	}
	return 0;
}

/* Turn UTF-8 no-break spaces into two blanks: iozone output pasted from a web page (seed 000)
 * has them in place of the indentation and padding. */
static void nbsp_blank(char *line)
{
	for (; *line; line++) {
		if ((unsigned char)line[0] == 0xc2 && (unsigned char)line[1] == 0xa0) {
			line[0] = ' ';
			line[1] = ' ';
		}
	}
}

/* Put each recognised result line of out into m (may be NULL); returns how many there were. */
static int iozone_results(const char *out, size_t len, struct metrics *m)
{
	size_t start = 0, end;
	const char *metric;
	char line[256];
	double bw_mib;
	int n = 0;

	while (out && start < len) {
		end = start;
		while (end < len && out[end] != '\n')
			end++;
		snprintf(line, sizeof(line), "%.*s", (int)(end - start), out + start);
		nbsp_blank(line);
		if (iozone_line_parse(line, &metric, &bw_mib)) {
			n++;
			if (m)
				metrics_set(m, metric, bw_mib);
		}
		start = end + 1;
	}
	return n;
}

/* Each selected test prints two results (write: initial writers + rewriters, read: readers
 * + re-readers, random: random readers + random writers). */
static double iozone_progress(const struct engine_opts *opts, double elapsed_s, const char *out,
                              size_t out_len, const char *errout, size_t errout_len)
{
	int n_tests = iozone_n_tests(&opts->iozone);
	double p;

	if (n_tests == 0)
		return -1;
	p = (double)iozone_results(out, out_len, NULL) / (2.0 * n_tests);
	return p > 0.99 ? 0.99 : p;
}

/* When out holds several runs the last value of each metric wins. */
static int iozone_parse(const char *out, size_t out_len, const char *errout, size_t errout_len,
                        int exit_code, int term_signal, struct metrics *m, struct err *e)
{
	char txt[200];
	int n, rc;

	m->n = 0;
	n = iozone_results(out, out_len, m);
	if (!engine_line_last(errout, errout_len, txt, sizeof(txt)) &&
	    !engine_line_last(out, out_len, txt, sizeof(txt)))
		snprintf(txt, sizeof(txt), "no error text");
	if (term_signal) {
		rc = err_set(e, -EINTR, ERR_ENGINE_FAILED, "iozone interrupted (signal %d): %s",
		             term_signal, txt);
		goto out;
	}
	if (exit_code != 0) {
		rc = err_set(e, -EIO, ERR_ENGINE_FAILED, "iozone exited with status %d: %s",
		             exit_code, txt);
		goto out;
	}
	if (n == 0) {
		rc = err_set(e, -EPROTO, ERR_ENGINE_FAILED,
		             "iozone printed no \"Children see throughput\" lines: %s", txt);
		goto out;
	}
	rc = 0;
out:
	return rc;
}

/* The two results of every selected test. */
static void iozone_metrics_list(const struct engine_opts *opts, struct metric_names *out)
{
	size_t k;

	for (k = 0; k < N_TESTS; k++) {
		if (!((opts->iozone.tests >> k) & 1))
			continue;
		metric_names_add(out, iozone_tests[k].metric[0]);
		metric_names_add(out, iozone_tests[k].metric[1]);
	}
}

const struct engine iozone_engine = {
	.name = "iozone",
	.exe = "iozone",
	.id = ENGINE_IOZONE,
	.needs_directory = 1,
	ENGINE_OPTS(iozone_opts_table, iozone),
	.check = iozone_check,
	.argv_build = iozone_argv_build,
	.expected_runtime_s = iozone_expected_runtime_s,
	.pass_bound_s = iozone_pass_bound_s,
	.progress = iozone_progress,
	.parse = iozone_parse,
	.raw_stream = "stdout",
	.metrics_list = iozone_metrics_list,
};
