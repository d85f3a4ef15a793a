/* fiofile.c -- fio job files: the ini parser, what a root daemon refuses to run, the rewrite
 * that points a job at its device or directory, and the options read for deadline and metrics. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "engines/fiofile.h"
#include "engines/fiosyntax.h"
#include "num.h"
#include "utf8.h"
#include "xmalloc.h"
#include "banned.h"

/* The ioengines a job file may name: those of the "fio" object (no library is loaded, nothing
 * is executed, nothing leaves the host). */
static const char *const ff_ioengines[] = {
	"libaio",  "io_uring", "psync",    "sync", "pvsync",
	"pvsync2", "vsync",    "posixaio", "mmap", NULL,
};

static const char *const ff_rw[] = {
	"read",   "write", "randread", "randwrite", "rw", "readwrite",
	"randrw", "trim",  "randtrim", "trimwrite", NULL,
};

/* Options refused wherever they are, by their name (lower case, '-' as '_': a superset of
 * fio's own spelling), with why. */
static const struct {
	const char *key, *why;
} ff_refused[] = {
	{ "exec_prerun", "runs a command as root" },
	{ "exec_postrun", "runs a command as root" },
	{ "ioscheduler", "writes the device's scheduler: give it as a job param (\"params\")" },
	{ "cgroup", "makes cgroups outside the job's containment" },
	{ "cgroup_weight", "makes cgroups outside the job's containment" },
	{ "cgroup_nodelete", "leaves cgroups behind" },
	{ "profile", "brings a profile's options, which the agent has not checked" },
	{ "allow_mounted_write", "writes a device that is mounted" },
	{ "replay_redirect", "sends the I/O to another device" },
	{ "opendir", "adds files from outside the job's directory" },
	{ "stonewall", "makes a second reporting group: a pass reports one" },
	{ "wait_for_previous", "makes a second reporting group: a pass reports one" },
	{ "new_group", "makes a second reporting group: a pass reports one" },
	{ "include", "reads another file: the agent runs only the text it was given" },
	/* fio's command-line options: not job options, and each would run a server or a
	 * client, detach, or write where the agent does not look. */
	{ "daemonize", "is a command-line option of fio's (it would detach from the agent)" },
	{ "server", "is a command-line option of fio's (it would run a server)" },
	{ "client", "is a command-line option of fio's (it would connect to a server)" },
	{ "remote_config", "is a command-line option of fio's (client and server)" },
	{ "output", "is a command-line option of fio's (it would write elsewhere)" },
	{ "output_format", "is a command-line option of fio's (the agent reads JSON)" },
	{ "aux_path", "is a command-line option of fio's (it would write elsewhere)" },
	{ "bandwidth_log", "is a command-line option of fio's (it would write elsewhere)" },
	{ "status_interval", "is a command-line option of fio's" },
	{ "parse_only", "is a command-line option of fio's" },
	/* what fio reports, which the agent reads: read., write., trim. with clat percentiles
	 * 50, 99 and 99.9, and CPU */
	{ "unified_rw_reporting", "changes the figures fio reports, which the agent reads" },
	{ "stats", "changes the figures fio reports, which the agent reads" },
	{ "percentile_list", "changes the figures fio reports, which the agent reads" },
	{ "clat_percentiles", "changes the figures fio reports, which the agent reads" },
	{ "disable_clat", "changes the figures fio reports, which the agent reads" },
	{ "disable_lat", "changes the figures fio reports, which the agent reads" },
	{ "disable_bw_measurement", "changes the figures fio reports, which the agent reads" },
	{ "disable_bw", "changes the figures fio reports, which the agent reads" },
	{ "gtod_reduce", "changes the figures fio reports, which the agent reads" },
	{ "exec", "is not an fio option (and would run a command)" },
};

/* Options whose value names a file fio writes or reads (a log prefix, an iolog, a verify
 * state): plain names in the pass's own directory only. */
static const char *const ff_file_opts[] = {
	"write_iolog",
	"read_iolog",
	"merge_blktrace_file",
	"write_bw_log",
	"write_lat_log",
	"write_iops_log",
	"write_hist_log",
	"verify_state_load",
	"verify_state_save",
	"verify_dump",
	NULL,
};

/* fio's aliases of the options read here (fio --cmdhelp=NAME). */
static const struct {
	const char *alias, *key;
} ff_aliases[] = {
	{ "fill_fs", "fill_device" }, { "readwrite", "rw" },
	{ "blocksize", "bs" },        { "timeout", "runtime" },
	{ "fileoffset", "offset" },   { "io_limit", "io_size" },
	{ "iomem", "mem" },           { "wait_for_previous", "stonewall" },
};

/* key lower-cased, '-' as '_', and fio's alias resolved. */
static void ff_norm(const char *key, char *out, size_t len)
{
	size_t i;

	for (i = 0; key[i] && i + 1 < len; i++)
		out[i] = key[i] == '-' ? '_' : (char)tolower((unsigned char)key[i]);
	out[i] = '\0';
	for (i = 0; i < sizeof(ff_aliases) / sizeof(ff_aliases[0]); i++)
		if (!strcmp(out, ff_aliases[i].alias) && strcmp(ff_aliases[i].key, "stonewall")) {
			snprintf(out, len, "%s", ff_aliases[i].key);
			return;
		}
}

static bool ff_in(const char *const *list, const char *s)
{
	for (; *list; list++)
		if (!strcmp(*list, s))
			return true;
	return false;
}

static char *ff_trim(char *s)
{
	char *end;

	while (*s == ' ' || *s == '\t')
		s++;
	end = s + strlen(s);
	while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
		*--end = '\0';
	return s;
}

/* What a message calls a line: "fio_file line 12 [randrw] exec_prerun". */
static void ff_where(const struct fiofile *f, const struct fiofile_line *l, char *out, size_t len)
{
	snprintf(out, len, "fio_file line %d [%s] %.*s", l->lineno, f->sections[l->section].name,
	         utf8_cut(l->key, 64), l->key);
}

/* A plain file name: 1..64 of [A-Za-z0-9_.+-], not "." or "..". */
static bool ff_plain_name(const char *v)
{
	const char *p;

	if (!v || !*v || strlen(v) > 64 || !strcmp(v, ".") || !strcmp(v, ".."))
		return false;
	for (p = v; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("_.+-", *p))
			return false;
	return true;
}

/* A section's or job's name: 1..FIOFILE_NAME_MAX of [A-Za-z0-9_.+- ] (fio names files after
 * it, so no '/'). */
static bool ff_section_name_ok(const char *v)
{
	const char *p;

	if (!v || !*v || strlen(v) > FIOFILE_NAME_MAX)
		return false;
	for (p = v; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("_.+- ", *p))
			return false;
	return true;
}

/* ---- the values the agent reads ---- */

/* Sizes separated by ',' (per direction) or '-' (a range): the smallest or the largest given.
 * "N%" is a share of the device: *pct set, no size. */
static int ff_sizes(const char *v, bool want_max, uint64_t *out, bool *pct)
{
	char buf[64], *tok, *save = NULL;
	uint64_t x;
	bool any = false;

	*pct = false;
	if (!v || strlen(v) >= sizeof(buf))
		return -EINVAL;
	snprintf(buf, sizeof(buf), "%s", v);
	if (buf[0] && buf[strlen(buf) - 1] == '%') {
		char *end;
		double p = strtod(buf, &end);

		if (*end != '%' || end[1] || !(p >= 0 && p <= 100))
			return -EINVAL;
		*pct = true;
		return 0;
	}
	for (tok = strtok_r(buf, ",-", &save); tok; tok = strtok_r(NULL, ",-", &save)) {
		if (num_parse_size(tok, &x))
			return -EINVAL;
		if (!any || (want_max ? x > *out : x < *out))
			*out = x;
		any = true;
	}
	return any ? 0 : -EINVAL;
}

/* Integers separated by ',' (per direction; empty entries skipped): the smallest positive. */
static int ff_ints_min(const char *v, int64_t *out)
{
	char buf[64], *tok, *save = NULL;
	int64_t x;
	bool any = false;

	if (!v || strlen(v) >= sizeof(buf))
		return -EINVAL;
	snprintf(buf, sizeof(buf), "%s", v);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (num_parse_i64(tok, &x) || x < 0)
			return -EINVAL;
		if (x > 0 && (!any || x < *out))
			*out = x;
		any = any || x > 0;
	}
	return 0;
}

/* Sizes per direction for rate: the smallest positive. */
static int ff_rate(const char *v, uint64_t *out, bool *has)
{
	char buf[64], *p = buf, *comma;
	uint64_t x;

	*has = false;
	if (!v || strlen(v) >= sizeof(buf))
		return -EINVAL;
	snprintf(buf, sizeof(buf), "%s", v);
	for (;;) {
		comma = strchr(p, ',');
		if (comma)
			*comma = '\0';
		if (*p) {
			if (num_parse_size(p, &x))
				return -EINVAL;
			if (x > 0 && (!*has || x < *out)) {
				*out = x;
				*has = true;
			}
		}
		if (!comma)
			return 0;
		p = comma + 1;
	}
}

/* A time, or a range "1-10" (its end), in default_us units: whole seconds, rounded up. */
static int ff_time(const char *v, int64_t default_us, int64_t *us)
{
	const char *dash = v ? strchr(v, '-') : NULL;

	if (!v)
		return -EINVAL;
	if (dash)
		v = dash + 1;
	return engine_duration_parse(v, default_us, us);
}

static bool ff_bool(const char *v)
{
	return !v || strcmp(v, "0");
}

/* The readers of the options the agent reads: each takes key's value v (NULL when the line
 * has no '=') into o, or returns -EINVAL with *what naming what v should be. */
static int ff_read_rw(struct fio_opts *o, const char *key, const char *v, const char **what)
{
	char rw[32];
	size_t n = v ? strcspn(v, ":") : 0;
	int k;

	(void)key;
	(void)what;
	if (!v || n >= sizeof(rw))
		return 0; /* fio says what is wrong */
	memcpy(rw, v, n);
	rw[n] = '\0';
	for (k = 0; ff_rw[k]; k++)
		if (!strcmp(ff_rw[k], rw))
			o->rw = ff_rw[k];
	o->has_rw = true;
	return 0;
}

static int ff_read_rwmix(struct fio_opts *o, const char *key, const char *v, const char **what)
{
	int64_t t;

	*what = "a percentage";
	if (!v || num_parse_i64(v, &t) || t < 0 || t > 100)
		return -EINVAL;
	if (key[5] == 'r') {
		o->rwmixread = t;
		o->has_rwmixread = true;
	} else {
		o->rwmixwrite = t;
		o->has_rwmixwrite = true;
	}
	return 0;
}

static int ff_read_size(struct fio_opts *o, const char *key, const char *v, const char **what)
{
	uint64_t x;
	bool pct;

	(void)key;
	*what = "a size like 1g (or a percentage)";
	if (ff_sizes(v, true, &x, &pct))
		return -EINVAL;
	/* the largest given bounds the I/O (io_size may exceed size); a share of the device is
	 * bounded by the device */
	if (pct) {
		o->size = 0;
		o->has_size = false;
	} else if (!o->has_size || x > o->size) {
		o->size = x;
		o->has_size = true;
	}
	return 0;
}

static int ff_read_bs(struct fio_opts *o, const char *key, const char *v, const char **what)
{
	uint64_t x;
	bool pct;

	(void)key;
	*what = "a block size like 4k";
	if (ff_sizes(v, false, &x, &pct) || pct || !x)
		return -EINVAL;
	o->bs = x;
	o->has_bs = true;
	return 0;
}

static int ff_read_bssplit(struct fio_opts *o, const char *key, const char *v, const char **what)
{
	char why[160];

	(void)key;
	*what = "fio's bssplit (4k/10:64k/90)";
	if (!v || strlen(v) > FIO_TEXT_MAX ||
	    fiosyntax_bssplit_parse(v, NULL, NULL, why, sizeof(why)))
		return -EINVAL;
	snprintf(o->bssplit, sizeof(o->bssplit), "%s", v);
	o->has_bssplit = true;
	return 0;
}

static int ff_read_offset(struct fio_opts *o, const char *key, const char *v, const char **what)
{
	uint64_t x;
	bool pct;

	(void)key;
	*what = "a size like 1g (or a percentage)";
	if (ff_sizes(v, false, &x, &pct))
		return -EINVAL;
	o->offset = pct ? 0 : x;
	o->has_offset = !pct;
	return 0;
}

/* numjobs or loops */
static int ff_read_count(struct fio_opts *o, const char *key, const char *v, const char **what)
{
	int64_t t;

	*what = key[0] == 'n' ? "a whole number 1..256 (the agent's limit, as for the fio "
	                        "object)"
	                      : "a whole number 1..1000000";
	if (!v || num_parse_i64(v, &t) || t < 1 || t > (key[0] == 'n' ? 256 : 1000000))
		return -EINVAL;
	if (key[0] == 'n') {
		o->numjobs = t;
		o->has_numjobs = true;
	} else {
		o->loops = t;
		o->has_loops = true;
	}
	return 0;
}

/* runtime, ramp_time or startdelay */
static int ff_read_time(struct fio_opts *o, const char *key, const char *v, const char **what)
{
	int64_t t;

	*what = "a time like 30 or 30s";
	if (ff_time(v, 1000000, &t) || t / 1000000 > 100000000)
		return -EINVAL;
	t = (t + 999999) / 1000000;
	if (key[1] == 'u') {
		o->runtime_s = t;
		o->has_runtime_s = t > 0; /* fio: runtime=0 is no limit */
	} else {
		/* startdelay too: time before the measured part, every pass */
		o->ramp_time_s = key[1] == 'a' ? t : o->ramp_time_s + t;
		o->has_ramp_time_s = true;
	}
	return 0;
}

static int ff_read_time_based(struct fio_opts *o, const char *key, const char *v, const char **what)
{
	(void)key;
	(void)what;
	o->time_based = ff_bool(v);
	o->has_time_based = true;
	return 0;
}

static int ff_read_thinktime(struct fio_opts *o, const char *key, const char *v, const char **what)
{
	int64_t t;

	(void)key;
	*what = "a time like 100 (us) or 10ms";
	if (ff_time(v, 1, &t))
		return -EINVAL;
	o->thinktime_us = t;
	o->has_thinktime_us = t > 0;
	return 0;
}

static int ff_read_rate(struct fio_opts *o, const char *key, const char *v, const char **what)
{
	(void)key;
	*what = "a rate like 10m or 10m,5m";
	return ff_rate(v, &o->rate_bytes_s, &o->has_rate_bytes_s) ? -EINVAL : 0;
}

static int ff_read_rate_iops(struct fio_opts *o, const char *key, const char *v, const char **what)
{
	(void)key;
	*what = "a rate like 500 or 500,200";
	o->rate_iops = 0;
	if (ff_ints_min(v, &o->rate_iops))
		return -EINVAL;
	o->has_rate_iops = o->rate_iops > 0;
	return 0;
}

static const struct ff_reader {
	const char *key;
	int (*read)(struct fio_opts *o, const char *key, const char *v, const char **what);
} ff_readers[] = {
	{ "rw", ff_read_rw },
	{ "rwmixread", ff_read_rwmix },
	{ "rwmixwrite", ff_read_rwmix },
	{ "size", ff_read_size },
	{ "io_size", ff_read_size },
	{ "filesize", ff_read_size },
	{ "bs", ff_read_bs },
	{ "bsrange", ff_read_bs },
	{ "bssplit", ff_read_bssplit },
	{ "offset", ff_read_offset },
	{ "numjobs", ff_read_count },
	{ "loops", ff_read_count },
	{ "runtime", ff_read_time },
	{ "ramp_time", ff_read_time },
	{ "startdelay", ff_read_time },
	{ "time_based", ff_read_time_based },
	{ "thinktime", ff_read_thinktime },
	{ "rate", ff_read_rate },
	{ "rate_iops", ff_read_rate_iops },
};

/* Read l's value into the section's options when it is one the agent reads. */
static int ff_read(struct fio_opts *o, const char *key, const struct fiofile_line *l,
                   const char **what)
{
	size_t i;

	*what = NULL;
	for (i = 0; i < sizeof(ff_readers) / sizeof(ff_readers[0]); i++)
		if (!strcmp(key, ff_readers[i].key))
			return ff_readers[i].read(o, key, l->value, what);
	return 0;
}

/* ---- parsing ---- */

static int ff_refuse(const struct fiofile *f, const struct fiofile_line *l, const char *why,
                     struct err *e)
{
	char where[160];

	ff_where(f, l, where, sizeof(where));
	return err_set(e, -EINVAL, ERR_BAD_REQUEST, "%s: %s", where, why);
}

/* The checks of one option that hold wherever the job runs; then read it. */
static int ff_option(struct fiofile *f, const struct fiofile_line *l, struct fio_opts *o,
                     struct err *e)
{
	char key[80], why[200];
	const char *what;
	size_t i;

	ff_norm(l->key, key, sizeof(key));
	for (i = 0; i < sizeof(ff_refused) / sizeof(ff_refused[0]); i++)
		if (!strcmp(key, ff_refused[i].key)) {
			snprintf(why, sizeof(why), "refused: it %s", ff_refused[i].why);
			return ff_refuse(f, l, why, e);
		}
	if (!strncmp(key, "trigger", 7))
		return ff_refuse(f, l,
		                 "refused: fio's triggers run commands (and are command-line "
		                 "options)",
		                 e);
	if (!strcmp(key, "ioengine") && (!l->value || !ff_in(ff_ioengines, l->value)))
		return ff_refuse(f, l,
		                 "refused: only libaio, io_uring, psync, sync, pvsync, pvsync2, "
		                 "vsync, posixaio or mmap (an external: or exec engine, or any "
		                 "other, loads or runs code)",
		                 e);
	if (!strcmp(key, "mem") && l->value && strchr(l->value, ':'))
		return ff_refuse(f, l, "refused: a memory file is a path outside the job", e);
	if (!strcmp(key, "filename_format") && l->value &&
	    (strchr(l->value, '/') || !strcmp(l->value, ".") || !strcmp(l->value, "..")))
		return ff_refuse(f, l, "refused: names files outside the job's directory", e);
	if (!strcmp(key, "name") && !ff_section_name_ok(l->value))
		return ff_refuse(
		        f, l,
		        "refused: a job's name is 1..64 of [A-Za-z0-9_.+- ] (fio names its "
		        "files after it)",
		        e);
	if (ff_read(o, key, l, &what)) {
		snprintf(why, sizeof(why),
		         "the agent reads it for the pass deadline and '%.*s' is not %s",
		         utf8_cut(l->value ? l->value : "", 40), l->value ? l->value : "", what);
		return ff_refuse(f, l, why, e);
	}
	return 0;
}

/* A control character anywhere but a tab (lines end in '\n', '\r' before it is fine). */
static long ff_control_at(const char *text, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)text[i];

		if (c == '\n' || c == '\t' || (c == '\r' && (i + 1 == len || text[i + 1] == '\n')))
			continue;
		if (c < 0x20 || c == 0x7f)
			return (long)i;
	}
	return -1;
}

static int ff_section(struct fiofile *f, char *p, int lineno, const struct fio_opts *global,
                      struct err *e)
{
	char *close = strchr(p, ']'), *name;
	struct fiofile_section *s;

	if (!close || *ff_trim(close + 1))
		return err_set(e, -EINVAL, ERR_BAD_REQUEST,
		               "fio_file line %d: a section header is [name] and nothing after",
		               lineno);
	*close = '\0';
	name = ff_trim(p + 1);
	if (!*name || strlen(name) > FIOFILE_NAME_MAX)
		return err_set(e, -EINVAL, ERR_BAD_REQUEST,
		               "fio_file line %d: a section's name is 1..%d bytes", lineno,
		               FIOFILE_NAME_MAX);
	if (!ff_section_name_ok(name))
		return err_set(e, -EINVAL, ERR_BAD_REQUEST,
		               "fio_file line %d: section [%.*s]: a name is of "
		               "[A-Za-z0-9_.+- ] (fio names its files after it)",
		               lineno, utf8_cut(name, 64), name);
	if (f->n_sections >= FIOFILE_MAX_SECTIONS)
		return err_set(e, -EINVAL, ERR_BAD_REQUEST,
		               "fio_file line %d: more than %d sections", lineno,
		               FIOFILE_MAX_SECTIONS);
	s = &f->sections[f->n_sections++];
	snprintf(s->name, sizeof(s->name), "%s", name);
	s->global = !strcmp(name, "global");
	engine_opts_init(&s->opts);
	s->opts.fio = *global;
	if (!s->global)
		f->n_jobs++;
	return 0;
}

/* The whole text's limits: its size, no NUL, no control character but tabs and line ends. */
static int ff_text_check(const char *text, size_t len, struct err *e)
{
	long at;

	if (len > FIOFILE_MAX_BYTES)
		return err_set(e, -EINVAL, ERR_BAD_REQUEST, "fio_file: %zu bytes; at most %d", len,
		               FIOFILE_MAX_BYTES);
	if (memchr(text, '\0', len))
		return err_set(e, -EINVAL, ERR_BAD_REQUEST, "fio_file: contains a NUL byte");
	at = ff_control_at(text, len);
	if (at >= 0)
		return err_set(
		        e, -EINVAL, ERR_BAD_REQUEST,
		        "fio_file: a control character at byte %ld (only tabs and line ends)",
		        at + 1);
	return 0;
}

/* An option line p (trimmed, not blank, not a comment, not a section) of f's last section. */
static int ff_option_line(struct fiofile *f, char *p, int lineno, struct err *e)
{
	struct fiofile_line *l;
	char *eq;
	int i;

	/* fio takes any line that starts "include" as an include of what follows its eighth
	 * byte ("includeXfile" too): all refused */
	if (!strncasecmp(p, "include", 7))
		return err_set(e, -EINVAL, ERR_BAD_REQUEST,
		               "fio_file line %d: include: refused: the agent runs only the "
		               "text it was given",
		               lineno);
	if (!f->n_sections)
		return err_set(e, -EINVAL, ERR_BAD_REQUEST,
		               "fio_file line %d: an option outside a [section]", lineno);
	l = &f->lines[f->n_lines++];
	l->lineno = lineno;
	l->section = f->n_sections - 1;
	eq = strchr(p, '=');
	if (eq) {
		*eq = '\0';
		l->value = xstrdup(ff_trim(eq + 1));
	}
	l->key = xstrdup(ff_trim(p));
	for (i = 0; l->key[i]; i++)
		if (!isalnum((unsigned char)l->key[i]) && l->key[i] != '_' && l->key[i] != '-')
			break;
	if (!l->key[0] || l->key[i])
		return err_set(e, -EINVAL, ERR_BAD_REQUEST,
		               "fio_file line %d [%s]: '%.*s' is not an option name", lineno,
		               f->sections[l->section].name, utf8_cut(l->key, 64), l->key);
	return ff_option(f, l, &f->sections[l->section].opts.fio, e);
}

/* One line (cut at its '\n'): blank, a comment, a [section] (global: the options of every
 * [global] before it) or an option. */
static int ff_line(struct fiofile *f, char *line, int lineno, struct fio_opts *global,
                   struct err *e)
{
	char *p;

	if (strlen(line) > FIOFILE_LINE_MAX)
		return err_set(e, -EINVAL, ERR_BAD_REQUEST,
		               "fio_file line %d: longer than %d bytes", lineno, FIOFILE_LINE_MAX);
	p = ff_trim(line);
	if (!*p || *p == '#' || *p == ';')
		return 0;
	if (strstr(p, "${"))
		return err_set(e, -EINVAL, ERR_BAD_REQUEST,
		               "fio_file line %d: refused: an environment reference (${...}) "
		               "would read the agent's environment",
		               lineno);
	if (*p == '[') {
		/* a section's own options start from every [global] before it */
		if (f->n_sections && f->sections[f->n_sections - 1].global)
			*global = f->sections[f->n_sections - 1].opts.fio;
		return ff_section(f, p, lineno, global, e);
	}
	return ff_option_line(f, p, lineno, e);
}

/* A job section at least, and none time_based without a runtime. */
static int ff_jobs_check(const struct fiofile *f, struct err *e)
{
	int i;

	if (!f->n_jobs)
		return err_set(e, -EINVAL, ERR_BAD_REQUEST,
		               "fio_file: no job section (a [name] other than [global])");
	for (i = 0; i < f->n_sections; i++) {
		const struct fio_opts *o = &f->sections[i].opts.fio;

		if (!f->sections[i].global && o->time_based && !o->has_runtime_s)
			return err_set(
			        e, -EINVAL, ERR_BAD_REQUEST,
			        "fio_file [%s]: time_based needs runtime (fio would run forever)",
			        f->sections[i].name);
	}
	return 0;
}

int fiofile_parse(const char *text, size_t len, struct fiofile **out, struct err *e)
{
	struct fiofile *f = NULL;
	struct fio_opts global;
	struct engine_opts init;
	char *copy = NULL, *line, *next;
	int lineno = 0, rc;

	*out = NULL;
	rc = ff_text_check(text, len, e);
	if (rc)
		goto out;
	f = xcalloc(1, sizeof(*f));
	f->text = xmalloc(len + 1);
	memcpy(f->text, text, len);
	f->text[len] = '\0';
	f->sections = xcalloc(FIOFILE_MAX_SECTIONS, sizeof(*f->sections));
	f->lines = xcalloc(len / 2 + 2, sizeof(*f->lines)); /* a line is 2 bytes at least */
	engine_opts_init(&init);
	global = init.fio;
	copy = xstrdup(f->text);
	for (line = copy; line && rc == 0; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		rc = ff_line(f, line, ++lineno, &global, e);
	}
	if (rc == 0)
		rc = ff_jobs_check(f, e);
	if (rc == 0) {
		*out = f;
		f = NULL;
	}
out:
	free(copy);
	if (f)
		fiofile_free(f);
	return rc;
}

void fiofile_free(struct fiofile *f)
{
	int i;

	if (!f)
		return;
	for (i = 0; i < f->n_lines; i++) {
		free(f->lines[i].key);
		free(f->lines[i].value);
	}
	free(f->lines);
	free(f->sections);
	free(f->text);
	free(f);
}

/* ---- where it runs ---- */

static bool ff_same_dir(const char *a, const char *b)
{
	size_t na = strlen(a), nb = strlen(b);

	while (na > 1 && a[na - 1] == '/')
		na--;
	while (nb > 1 && b[nb - 1] == '/')
		nb--;
	return na == nb && !strncmp(a, b, na);
}

int fiofile_target_check(const struct fiofile *f, const char *device_path, bool in_directory,
                         const char *job_dir, struct err *e)
{
	char key[80], why[300];
	int i;

	for (i = 0; i < f->n_lines; i++) {
		const struct fiofile_line *l = &f->lines[i];

		ff_norm(l->key, key, sizeof(key));
		if (!strcmp(key, "filename")) {
			if (!in_directory && (!l->value || strcmp(l->value, device_path))) {
				snprintf(why, sizeof(why),
				         "refused: the job runs on its device %s; leave filename "
				         "out "
				         "(the agent sets it) or give exactly that",
				         device_path);
				return ff_refuse(f, l, why, e);
			}
			if (in_directory && !ff_plain_name(l->value))
				return ff_refuse(f, l,
				                 "refused: in a directory job, a plain name "
				                 "([A-Za-z0-9_.+-], no '/' or ':') in the job's "
				                 "directory",
				                 e);
		} else if (!strcmp(key, "directory")) {
			if (!in_directory)
				return ff_refuse(
				        f, l,
				        "refused: a raw-device job has no directory (give the "
				        "job a \"directory\" instead)",
				        e);
			if (!l->value || !job_dir || !ff_same_dir(l->value, job_dir)) {
				snprintf(why, sizeof(why),
				         "refused: the job runs in %s%s; leave directory out (the "
				         "agent "
				         "sets it) or give exactly that",
				         job_dir ? job_dir : "its own filesystem",
				         job_dir ? "" : " (no directory may be named)");
				return ff_refuse(f, l, why, e);
			}
		} else if (!strcmp(key, "fill_device") && in_directory) {
			return ff_refuse(
			        f, l,
			        "refused: in a directory job it would fill the directory's "
			        "whole filesystem (give size)",
			        e);
		} else if ((!strcmp(key, "unlink") || !strcmp(key, "unlink_each_loop")) &&
		           !in_directory) {
			return ff_refuse(
			        f, l,
			        "refused: a raw-device job's file is the device node, which "
			        "fio may not unlink",
			        e);
		} else if (ff_in(ff_file_opts, key)) {
			bool is_flag = !strncmp(key, "verify_", 7);

			if (!in_directory)
				return ff_refuse(
				        f, l,
				        "refused: it writes or reads files beside fio, and a "
				        "raw-device job has no directory of its own (give the "
				        "job a \"directory\")",
				        e);
			if (!is_flag && l->value && !ff_plain_name(l->value))
				return ff_refuse(f, l,
				                 "refused: a log or iolog is a plain name "
				                 "([A-Za-z0-9_.+-]) in the pass's own directory",
				                 e);
		}
	}
	for (i = 0; in_directory && i < f->n_sections; i++)
		if (!f->sections[i].global && !f->sections[i].opts.fio.has_size)
			return err_set(
			        e, -EINVAL, ERR_BAD_REQUEST,
			        "fio_file [%s]: size: required when the job writes files in a "
			        "directory",
			        f->sections[i].name);
	return 0;
}

/* A growing string. */
struct buf_lite {
	char *p;
	size_t n, cap;
};

static void bl_put(struct buf_lite *b, const char *s, size_t n)
{
	if (b->n + n + 1 > b->cap) {
		b->cap = (b->n + n + 1) * 2;
		b->p = xrealloc(b->p, b->cap);
	}
	memcpy(b->p + b->n, s, n);
	b->n += n;
	b->p[b->n] = '\0';
}

static void bl_puts(struct buf_lite *b, const char *s)
{
	bl_put(b, s, strlen(s));
}

/* filename= and directory= split at ':'; a literal colon is "\:". */
static void ff_escape(struct buf_lite *b, const char *s)
{
	for (; *s; s++) {
		if (*s == ':')
			bl_put(b, "\\", 1);
		bl_put(b, s, 1);
	}
}

/* The lines a job section ends with. */
static void ff_section_end(struct buf_lite *b, const struct fiofile_section *s,
                           const struct engine_target *t)
{
	if (s->global)
		return;
	if (!t->directory) {
		bl_puts(b, "filename=");
		ff_escape(b, t->device_path ? t->device_path : "");
		bl_puts(b, "\nverify_state_save=0\n");
	}
	bl_puts(b, "group_reporting\n");
}

char *fiofile_render(const struct fiofile *f, const struct engine_target *t)
{
	struct buf_lite b = { NULL, 0, 0 };
	char key[80];
	int i, sec = -1;

	bl_puts(&b, "; rewritten by fleettune-agent: the job's target and group_reporting\n");
	for (i = 0; i <= f->n_lines; i++) {
		const struct fiofile_line *l = i < f->n_lines ? &f->lines[i] : NULL;
		int next = l ? l->section : f->n_sections;

		/* every section, the empty ones too, in order */
		while (sec < next) {
			if (sec >= 0)
				ff_section_end(&b, &f->sections[sec], t);
			if (++sec >= f->n_sections)
				break;
			bl_puts(&b, "[");
			bl_puts(&b, f->sections[sec].name);
			bl_puts(&b, "]\n");
			if (!f->sections[sec].global && t->directory) {
				bl_puts(&b, "directory=");
				ff_escape(&b, t->directory);
				bl_puts(&b, "\n");
			}
		}
		if (!l)
			break;
		ff_norm(l->key, key, sizeof(key));
		if (!strcmp(key, "directory") || (!t->directory && !strcmp(key, "filename")))
			continue;
		bl_puts(&b, l->key);
		if (l->value) {
			bl_puts(&b, "=");
			bl_puts(&b, l->value);
		}
		bl_puts(&b, "\n");
	}
	return b.p ? b.p : xstrdup("");
}
