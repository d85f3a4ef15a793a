/* bonnie.c -- the bonnie++ engine: option table and checks, argv, metrics, the -q CSV parser. */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engines/engine.h"
#include "num.h"
#include "banned.h"

/* Field numbers of the CSV line, format version 2 (bonnie++ >= 1.90; 2.00a writes "1.98"),
 * from bon_csv2html(1) "FORMAT". Each rate is followed by its %CPU field. */
enum {
	BON_FORMAT_VERSION = 0,
	BON_PUTC = 9,
	BON_PUT_BLOCK = 11,
	BON_REWRITE = 13,
	BON_GETC = 15,
	BON_GET_BLOCK = 17,
	BON_SEEKS = 19,
	BON_SEQ_CREATE = 26,
	BON_SEQ_STAT = 28,
	BON_SEQ_DEL = 30,
	BON_RAN_CREATE = 32,
	BON_RAN_STAT = 34,
	BON_RAN_DEL = 36,
	BON_MIN_FIELDS = 38, /* everything up to ran_del_cpu; latencies follow */
	BON_MAX_FIELDS = 64,
};

/* CSV field -> metric; K/s fields are divided by 1024 into MiB/s; files: a file test (-n);
 * per_char: a per-character test, which fast (-f) skips. */
static const struct {
	int field;
	const char *metric;
	int kib;
	int files;
	int per_char;
} bonnie_fields[] = {
	{ BON_PUTC, "write_char.bw_mib", 1, 0, 1 },
	{ BON_PUT_BLOCK, "write.bw_mib", 1, 0, 0 },
	{ BON_REWRITE, "rewrite.bw_mib", 1, 0, 0 },
	{ BON_GETC, "read_char.bw_mib", 1, 0, 1 },
	{ BON_GET_BLOCK, "read.bw_mib", 1, 0, 0 },
	{ BON_SEEKS, "seeks_per_s", 0, 0, 0 },
	{ BON_SEQ_CREATE, "seq_create_per_s", 0, 1, 0 },
	{ BON_SEQ_STAT, "seq_stat_per_s", 0, 1, 0 },
	{ BON_SEQ_DEL, "seq_delete_per_s", 0, 1, 0 },
	{ BON_RAN_CREATE, "rand_create_per_s", 0, 1, 0 },
	{ BON_RAN_STAT, "rand_stat_per_s", 0, 1, 0 },
	{ BON_RAN_DEL, "rand_delete_per_s", 0, 1, 0 },
};

/* The "bonnie" object of a job. */
static const struct engine_opt bonnie_opts_table[] = {
	{ ENGINE_OPT(bonnie_opts, size_mb, EOPT_INT), .min = 0, .max = 16 << 20 },
	{ ENGINE_OPT(bonnie_opts, ram_mb, EOPT_INT), .min = 0, .max = 8 << 20 },
	{ ENGINE_OPT(bonnie_opts, files, EOPT_TEXT), .max = 63, .def_str = "16",
	  .hint = "a string like \"16\" or \"16:100000:16:64\"" },
	{ ENGINE_OPT(bonnie_opts, fast, EOPT_BOOL) },
	{ ENGINE_OPT(bonnie_opts, no_buffer, EOPT_BOOL) },
	{ ENGINE_OPT(bonnie_opts, direct, EOPT_BOOL) },
};

/* ram_mb, or its default: half of size_mb. */
static int64_t bonnie_ram_mb(const struct bonnie_opts *o)
{
	return o->has_ram_mb ? o->ram_mb : o->size_mb / 2;
}

/* files: "N[:max_size[:min_size[:num_dirs[:chunk_size]]]]" as bonnie++ -n takes it; N is in
 * units of 1024 files (0 skips the file tests), the rest plain byte or count integers. */
static int bonnie_files_check(const char *files, struct err *e)
{
	char part[32];
	const char *p = files, *colon;
	int64_t v;
	int i;

	for (i = 0;; i++) {
		colon = strchr(p, ':');
		snprintf(part, sizeof(part), "%.*s", colon ? (int)(colon - p) : (int)strlen(p), p);
		if (i >= 5 || num_parse_i64(part, &v) < 0 || v < 0 || (i == 0 && v > 1024) ||
		    (i == 3 && v < 1))
			return err_set(e, -EINVAL, ERR_BAD_REQUEST,
			               "bonnie.files: must look like \"16\" or "
			               "\"16:100000:16:64\" (N in 0..1024 thousands of files, "
			               "then max size, min size, directories)");
		if (!colon)
			break;
		p = colon + 1;
	}
	return 0;
}

static int64_t bonnie_files_n(const struct bonnie_opts *o);

/* size_mb is required (bonnie++ would otherwise pick twice the host's RAM), and bonnie++
 * refuses a size below twice the RAM. */
static int bonnie_check(const struct engine_opts *opts, struct err *e)
{
	const struct bonnie_opts *o = &opts->bonnie;

	int rc;

	if (!o->has_size_mb)
		return err_set(e, -EINVAL, ERR_BAD_REQUEST,
		               "bonnie.size_mb: required (0..16777216; 0 skips the I/O tests)");
	if (o->size_mb && o->size_mb < 2 * bonnie_ram_mb(o))
		return err_set(e, -EINVAL, ERR_BAD_REQUEST,
		               "bonnie.size_mb: must be at least twice ram_mb (bonnie++ refuses "
		               "smaller files)");
	rc = bonnie_files_check(o->files, e);
	if (rc == 0 && !o->size_mb && !bonnie_files_n(o))
		rc = err_set(e, -EINVAL, ERR_BAD_REQUEST,
		             "bonnie.size_mb: 0 skips the I/O tests and bonnie.files 0 the file "
		             "tests: nothing would run");
	return rc;
}

/* The number of files (-n's first field, in thousands): 0 skips the file tests. */
static int64_t bonnie_files_n(const struct bonnie_opts *o)
{
	int64_t n = 0;
	char part[32];

	snprintf(part, sizeof(part), "%.*s", (int)strcspn(o->files, ":"), o->files);
	if (num_parse_i64(part, &n) < 0)
		return 0;
	return n;
}

/* bonnie++ -q -d DIR -s SIZE_MB -r RAM_MB -n FILES [-f] [-b] [-D] [-u root], as seed 001 ran it
 * (-f: no per-character tests, -b: fsync after every write, -s 0: the file tests only). -u is
 * only given as root, where bonnie++ demands it; under another user it would fail to switch. */
static int bonnie_argv_build(const struct engine_opts *opts, const struct engine_target *t,
                             char ***argv, struct err *e)
{
	const struct bonnie_opts *o = &opts->bonnie;
	struct engine_argv a = { 0 };
	int rc;

	*argv = NULL;
	if (!t->directory) {
		rc = err_set(e, -EINVAL, ERR_BAD_REQUEST, "bonnie: needs a directory");
		goto out;
	}
	engine_argv_add(&a, "%s", t->exe ? t->exe : "bonnie++");
	engine_argv_add(&a, "-q");
	engine_argv_add(&a, "-d");
	engine_argv_add(&a, "%s", t->directory);
	engine_argv_add(&a, "-s");
	engine_argv_add(&a, "%" PRId64, o->size_mb);
	engine_argv_add(&a, "-r");
	engine_argv_add(&a, "%" PRId64, bonnie_ram_mb(o));
	engine_argv_add(&a, "-n");
	engine_argv_add(&a, "%s", o->files);
	if (o->fast)
		engine_argv_add(&a, "-f");
	if (o->no_buffer)
		engine_argv_add(&a, "-b");
	if (o->direct)
		engine_argv_add(&a, "-D");
	if (geteuid() == 0) {
		engine_argv_add(&a, "-u");
		engine_argv_add(&a, "root");
	}
	*argv = engine_argv_detach(&a);
	rc = 0;
out:
	engine_argv_free(engine_argv_detach(&a));
	return rc;
}

static double bonnie_expected_runtime_s(const struct engine_opts *opts)
{
	return 0;
}

/* The I/O tests move size_mb about five times (written by character and by block, rewritten,
 * read by character and by block); the file tests make, stat and delete N x 1024 files,
 * counted as 6 operations each at 1000 operations/s. */
static double bonnie_pass_bound_s(const struct engine_opts *opts, bool in_directory,
                                  uint64_t device_bytes)
{
	const struct bonnie_opts *o = &opts->bonnie;

	(void)in_directory;
	(void)device_bytes;
	return engine_volume_s(5.0 * (double)o->size_mb * 1024.0 * 1024.0) +
	       (double)bonnie_files_n(o) * 1024.0 * 6.0 / 1000.0;
}

/* With -q bonnie++ prints nothing until it is done. */
static double bonnie_progress(const struct engine_opts *opts, double elapsed_s, const char *out,
                              size_t out_len, const char *errout, size_t errout_len)
{
	return -1;
}

/* Split one line at commas into fields (pointers into line, which is modified). */
static int csv_split(char *line, char **f, int max)
{
	int n = 0;
	char *p = line;

	for (;;) {
		if (n == max)
			return -1;
		f[n++] = p;
		p = strchr(p, ',');
		if (!p)
			break;
		*p++ = '\0';
	}
	return n;
}

/* The last line of out that is a CSV result line: starts with a digit (the format version)
 * and has at least BON_MIN_FIELDS fields. Copied into line. */
static int bonnie_csv_line(const char *out, size_t len, char *line, size_t linelen)
{
	size_t end = len, start;
	int commas;
	size_t i;

	if (!out)
		return 0;
	while (end > 0) {
		start = end;
		while (start > 0 && out[start - 1] != '\n')
			start--;
		commas = 0;
		for (i = start; i < end; i++)
			commas += out[i] == ',';
		if (end > start && out[start] >= '0' && out[start] <= '9' &&
		    commas + 1 >= BON_MIN_FIELDS && end - start < linelen) {
			snprintf(line, linelen, "%.*s", (int)(end - start), out + start);
			return 1;
		}
		end = start ? start - 1 : 0;
	}
	return 0;
}

/* A rate field: a plain non-negative number. "+++++" (too fast to measure) and "" (test
 * skipped) are not. */
static int bonnie_value(const char *s, double *v)
{
	char *end;

	if (!*s || *s < '0' || *s > '9')
		return 0;
	*v = strtod(s, &end);
	return *end == '\0' || *end == '\r';
}

static int bonnie_parse(const char *out, size_t out_len, const char *errout, size_t errout_len,
                        int exit_code, int term_signal, struct metrics *m, struct err *e)
{
	char line[4096], txt[200], *f[BON_MAX_FIELDS];
	int found, nf = 0, rc;
	size_t i;
	double v;

	m->n = 0;
	found = bonnie_csv_line(out, out_len, line, sizeof(line));
	if (found)
		nf = csv_split(line, f, BON_MAX_FIELDS);
	for (i = 0; nf >= BON_MIN_FIELDS && i < sizeof(bonnie_fields) / sizeof(bonnie_fields[0]);
	     i++) {
		if (bonnie_value(f[bonnie_fields[i].field], &v))
			metrics_set(m, bonnie_fields[i].metric,
			            bonnie_fields[i].kib ? v / 1024 : v);
	}
	if (!engine_line_find(errout, errout_len, NULL, txt, sizeof(txt)) &&
	    !engine_line_last(out, out_len, txt, sizeof(txt)))
		snprintf(txt, sizeof(txt), "no error text");
	if (term_signal) {
		rc = err_set(e, -EINTR, ERR_ENGINE_FAILED, "bonnie++ interrupted (signal %d): %s",
		             term_signal, txt);
		goto out;
	}
	if (exit_code != 0) {
		rc = err_set(e, -EIO, ERR_ENGINE_FAILED, "bonnie++ exited with status %d: %s",
		             exit_code, txt);
		goto out;
	}
	if (nf < BON_MIN_FIELDS) {
		rc = err_set(e, -EPROTO, ERR_ENGINE_FAILED,
		             "bonnie++ printed no CSV result line: %s", txt);
		goto out;
	}
	rc = 0;
out:
	return rc;
}

/* Every figure of the CSV line: the file tests only when -n asks for files, the I/O tests
 * only with a size, the per-character ones only without fast. */
static void bonnie_metrics_list(const struct engine_opts *opts, struct metric_names *out)
{
	const struct bonnie_opts *o = &opts->bonnie;
	bool files = bonnie_files_n(o) > 0;
	size_t i;

	for (i = 0; i < sizeof(bonnie_fields) / sizeof(bonnie_fields[0]); i++) {
		if (bonnie_fields[i].files ? !files
		                           : !o->size_mb || (o->fast && bonnie_fields[i].per_char))
			continue;
		metric_names_add(out, bonnie_fields[i].metric);
	}
}

const struct engine bonnie_engine = {
	.name = "bonnie",
	.exe = "bonnie++",
	.id = ENGINE_BONNIE,
	.needs_directory = 1,
	ENGINE_OPTS(bonnie_opts_table, bonnie),
	.check = bonnie_check,
	.argv_build = bonnie_argv_build,
	.expected_runtime_s = bonnie_expected_runtime_s,
	.pass_bound_s = bonnie_pass_bound_s,
	.progress = bonnie_progress,
	.parse = bonnie_parse,
	.raw_stream = "stdout",
	.metrics_list = bonnie_metrics_list,
};
