/* engine.h -- benchmark engines (fio, dd, bonnie++, iozone): option checks, argv, parsers. */
#ifndef FT_ENGINE_H
#define FT_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"

/*
 * Flat metrics of one pass, units in the names: "read.bw_mib" (MiB/s),
 * "write.iops", "read.clat_p99_us" (microseconds), "cpu.usr_pct" (percent
 * of one CPU as fio reports it), "seq_create_per_s" (files per second).
 * A metric that was not measured is absent, never zero.
 */
#define METRICS_MAX 64
struct metric {
	char name[48];
	double value;
};
struct metrics {
	int n;
	struct metric m[METRICS_MAX];
};

/* Replace the value of `name` or append it. Names longer than 47 bytes are
 * truncated; when the table is full the call is ignored (engines emit < 40). */
void metrics_set(struct metrics *m, const char *name, double value);
/* NULL if absent. */
const struct metric *metrics_get(const struct metrics *m, const char *name);

/* The names of the metrics a pass will report, derived from the options before it runs. */
struct metric_names {
	int n;
	char name[METRICS_MAX][48];
};

/* Append name unless it is there already (or the list is full). */
void metric_names_add(struct metric_names *l, const char *name);
/* True if name is in l. */
bool metric_names_has(const struct metric_names *l, const char *name);

/* ---- typed options: what the API layer decodes an engine's object into ---- */

/* fio: a has_* flag says the key was given; only given keys reach fio's argv. Keys and fields
 * differ where the field carries its unit: "rate" is rate_bytes_s, "thinktime" thinktime_us. */
#define FIO_TEXT_MAX 255 /* bssplit, random_distribution */
struct fiofile;
struct fio_opts {
	const char *rw;        /* one of fio_engine's rw choices; NULL: fio's default, read */
	const char *ioengine;  /* NULL: fio's default */
	uint64_t bs, size;     /* bytes */
	uint64_t rate_bytes_s; /* fio's rate, per job and direction */
	uint64_t offset, offset_increment; /* bytes */
	int64_t iodepth, numjobs, runtime_s, rwmixread, rwmixwrite;
	int64_t ramp_time_s; /* fio's ramp_time: run this long before measuring, every pass */
	int64_t percentage_random, rate_iops, iodepth_batch, fsync, fdatasync;
	int64_t thinktime_us; /* fio's thinktime: idle this long after each I/O */
	int64_t loops;        /* fio's loops: the workload this many times within one pass */
	char bssplit[FIO_TEXT_MAX + 1];             /* "4k/10:64k/50:32k/40", checked */
	char random_distribution[FIO_TEXT_MAX + 1]; /* "zipf:1.2", "zoned:60/10:40/90", checked */
	bool direct, time_based, norandommap, randrepeat, end_fsync, invalidate;
	bool has_rw, has_ioengine, has_bs, has_size, has_iodepth, has_numjobs, has_runtime_s,
	        has_rwmixread, has_direct, has_time_based, has_ramp_time_s;
	bool has_rwmixwrite, has_bssplit, has_random_distribution, has_percentage_random,
	        has_norandommap, has_randrepeat, has_rate_bytes_s, has_rate_iops, has_iodepth_batch,
	        has_fsync, has_fdatasync, has_end_fsync, has_invalidate, has_offset,
	        has_offset_increment, has_thinktime_us, has_loops;
	/* A job given as an fio job file ("fio_file"): the parsed file, owned by the job spec;
	 * NULL for a job given as options. With it the options above are unused and the engine
	 * asks the file (fiofile.h) for its argv, deadline and metrics. */
	const struct fiofile *file;
};

/* dd: direction "write" (default) or "read"; bs in bytes (default 1M); count is required. */
struct dd_opts {
	const char *direction;
	uint64_t bs;
	int64_t count;
	bool oflag_direct, iflag_direct;
	bool has_direction, has_bs, has_count, has_oflag_direct, has_iflag_direct;
};

/* bonnie++: size_mb is required (0: no I/O tests, -s 0); ram_mb defaults to size_mb / 2
 * (bonnie_ram_mb()); files is -n's "N[:max[:min[:dirs[:chunk]]]]", default "16"; fast (-f)
 * skips the per-character tests, no_buffer (-b) fsyncs after every write, direct (-D) uses
 * O_DIRECT for the bulk I/O. */
struct bonnie_opts {
	int64_t size_mb, ram_mb;
	char files[64];
	bool fast, no_buffer, direct;
	bool has_size_mb, has_ram_mb, has_files, has_fast, has_no_buffer, has_direct;
};

/* iozone (throughput mode): sizes in bytes; tests is a bit set of "write" (1), "read" (2) and
 * "random" (4), all three by default. */
struct iozone_opts {
	uint64_t record_size, file_size;
	int64_t threads;
	unsigned tests;
	bool has_record_size, has_file_size, has_threads, has_tests;
};

enum engine_id { ENGINE_FIO, ENGINE_DD, ENGINE_BONNIE, ENGINE_IOZONE, ENGINE_COUNT };

/* The options of every engine a job body may carry (each object given is validated, the
 * selected engine's is used); given[id] says the body had that engine's object. */
struct engine_opts {
	struct fio_opts fio;
	struct dd_opts dd;
	struct bonnie_opts bonnie;
	struct iozone_opts iozone;
	bool given[ENGINE_COUNT];
	/* fio only: the job's workloads, run as stonewalled sections of each pass in this order
	 * (NULL, 0: a plain job). Owned by the job spec whose options these are
	 * (job_spec_release frees them). */
	struct fio_workload *workloads;
	int n_workloads;
};

/* ---- fio workloads: the sections of one fio invocation, each reported on its own ---- */

#define FIO_WORKLOADS_MAX 16
#define FIO_WORKLOAD_NAME_MAX 64 /* bytes of [A-Za-z0-9 _.,:+-], not starting with a space */

struct fio_workload {
	char name[FIO_WORKLOAD_NAME_MAX + 1];
	struct fio_opts own; /* the workload's own "fio" object as given (its has_ flags) */
	struct fio_opts fio; /* what its section runs: the job's "fio" object, own's keys over it */
};

/* o with workload i's options as its fio options and no workloads: what every per-section rule
 * (check, runtime, bound, metrics list) reads. */
void engine_section_opts(const struct engine_opts *o, int i, struct engine_opts *out);

/* Every engine's defaults, nothing given. */
void engine_opts_init(struct engine_opts *o);

/*
 * One key of an engine's option object, as a table entry: the API layer decodes and encodes
 * objects by walking the table, so the limits written here are the only ones (the OpenAPI
 * document repeats them and tests/openapi/validate.js checks it does).
 */
enum engine_opt_type {
	EOPT_INT,  /* int64_t in min..max */
	EOPT_BOOL, /* bool */
	EOPT_SIZE, /* uint64_t bytes from a size string ("4k", "1M"), min..max, a multiple of align
	            */
	EOPT_ENUM, /* const char * pointing into choices */
	EOPT_TEXT, /* char[max + 1]; hint says what a valid value looks like */
	EOPT_SET,  /* unsigned: bit i for choices[i], from an array of distinct strings */
	EOPT_DURATION, /* int64_t in units of unit_us, min..max: an integer (in that unit) or fio's
	                  "30s", "2m", "500ms", "100us", "1h", "1d"; a whole number of the unit */
};

/* The start of a table entry for key K of struct S (with its has_K flag), of type T. */
#define ENGINE_OPT(S, K, T)                                                                        \
	.key = #K, .type = T, .off = offsetof(struct S, K), .has_off = offsetof(struct S, has_##K)
/* The same for key K kept in field F (with its has_F flag): the field names its unit. */
#define ENGINE_OPT_AS(S, K, F, T)                                                                  \
	.key = #K, .type = T, .off = offsetof(struct S, F), .has_off = offsetof(struct S, has_##F)

struct engine_opt {
	const char *key;
	enum engine_opt_type type;
	int64_t min, max;
	uint64_t align;
	const char *const *choices; /* EOPT_ENUM, EOPT_SET: NULL-terminated */
	int64_t def;                /* EOPT_INT, EOPT_BOOL, EOPT_SIZE, EOPT_SET: when absent */
	const char *def_str;        /* EOPT_ENUM, EOPT_TEXT: when absent (NULL: none) */
	const char *hint;           /* EOPT_TEXT */
	int64_t unit_us;            /* EOPT_DURATION: the field's unit (1000000: seconds) */
	/* EOPT_TEXT: the value's own syntax, when it has one: 0, or -EINVAL "bad_request" naming
	 * "ENG.KEY" (given as path) and what is wrong. */
	int (*text_check)(const char *path, const char *v, struct err *e);
	size_t off, has_off; /* of the value and of its has_ flag in the option struct */
};

/* Where a pass runs. All strings are borrowed. */
struct engine_target {
	const char *exe; /* binary to run: fio path from --fio, else "dd", "bonnie++", "iozone"
	                    found on PATH */
	const char *device_path; /* "/dev/loop0": target when directory is NULL (raw device) */
	const char *directory;   /* files go here when non-NULL (already validated by the caller) */
	const char *work_name;   /* unique per job+loop, e.g. "ft-job12-l1", use for file names */
	const char *job_file;    /* fio with a job file: the path of its rewritten text
	                            (fiofile_render) that fio reads; NULL otherwise */
	const char *prerun;      /* fio given as options: a command its first section's job
	                            processes run (exec_prerun) after their setup, before their I/O
	                            and clock start (the wait for a job's moment, waiter.h); NULL:
	                            none. The other engines and job files take none. */
};

/*
 * One benchmark tool. The four engines are table entries (fio_engine, ...);
 * callers go through engine_find(). The function pointers do no I/O and
 * keep no state, so any thread may call them. They take the decoded options
 * of every engine and read their own (o->fio, o->dd, ...).
 *
 * Errors: the API layer's decoder refuses keys, types and ranges outside the
 * table (opts) with -EINVAL, code "bad_request", naming the key
 * ("fio.iodepth: must be 1..4096"); check() then refuses missing required
 * keys and combinations the same way. argv_build() also refuses combinations
 * that need the target (fio with a directory but no size, dd read with a
 * directory), so the job layer calls it once when the job is submitted to
 * answer 400 instead of failing the first pass.
 *
 * parse() results, the same for every engine:
 *   0        the pass succeeded; m holds its metrics.
 *   -EINTR   the tool was killed by a signal (term_signal != 0) or, for fio,
 *            exited 128 ("fio: terminating on signal 15"). Whatever the tool
 *            printed before dying is still parsed into m (fio prints partial
 *            JSON), but the pass is not a result: the job layer treats any
 *            non-zero return as a failed or cancelled pass.
 *   -EIO     the tool exited non-zero or reported an error (fio's per-job
 *            "error" field). m may hold partial metrics.
 *   -EPROTO  the output could not be understood (no JSON, no CSV line).
 * Failures use code "engine_failed" and a message carrying the tool's own
 * error text, e.g. "fio exited with status 1 (job error 22): fio: io_u
 * error on file /dev/loop0: Invalid argument: read offset=0, buflen=4097".
 *
 * Files: fio with a directory writes <dir>/<work_name>.<job>.0, dd writes
 * <dir>/<work_name>.dd, iozone writes <dir>/<work_name>.<n>; bonnie++
 * removes its own. The job layer removes <dir>/<work_name>* after a pass.
 */
struct engine {
	const char *name; /* "fio", "dd", "bonnie", "iozone" — the job's "engine" field and the key
	                     of its option object */
	enum engine_id id;
	const char *exe;     /* the binary it runs when no path is given, found on PATH */
	int needs_directory; /* bonnie, iozone: 1 */
	/* The option object's keys, in the order they are checked. */
	const struct engine_opt *opts;
	int n_opts;
	size_t opts_off, opts_size; /* where this engine's option struct is in struct engine_opts */
	/* (ENGINE_OPTS fills the four fields above.) */
	/* Required keys and rules joining several keys, on decoded options: -EINVAL with code
	 * "bad_request" and a message naming the key, e.g. "dd.count: required (1..1000000000)". */
	int (*check)(const struct engine_opts *o, struct err *e);
	/* Build a NULL-terminated argv (heap; free with engine_argv_free). Never uses a shell.
	 * Takes checked options. Sizes are passed as exact binary units ("4M"). */
	int (*argv_build)(const struct engine_opts *o, const struct engine_target *t, char ***argv,
	                  struct err *e);
	/* Expected wall time of one pass in seconds, 0 if unknown. */
	double (*expected_runtime_s)(const struct engine_opts *o);
	/* The most one pass should take, in seconds, for its deadline (engine_pass_deadline_s):
	 * its expected time plus the I/O it does where that time does not bound it, at
	 * ENGINE_FLOOR_MIB_S (engine_volume_s). in_directory: its files are in a directory (fio
	 * lays them out first); device_bytes: the raw device's size (what fio without size
	 * covers). */
	double (*pass_bound_s)(const struct engine_opts *o, bool in_directory,
	                       uint64_t device_bytes);
	/* Progress of the running pass in 0..1 from elapsed time and the output so far, -1 if
	 * unknown. Never returns 1: a pass is done when its process is. */
	double (*progress)(const struct engine_opts *o, double elapsed_s, const char *out,
	                   size_t out_len, const char *errout, size_t errout_len);
	/* Parse a finished pass. exit_code is the exit status (or -1 if killed by term_signal).
	 * Fills metrics (m is reset first); returns 0 or a negative errno as described above. */
	int (*parse)(const char *out, size_t out_len, const char *errout, size_t errout_len,
	             int exit_code, int term_signal, struct metrics *m, struct err *e);
	/* Optional (fio): parse a pass of n sections, a job's workloads, each into per[i]
	 * (fio_parse_sections). NULL: the engine runs no workloads. */
	int (*parse_sections)(const char *out, size_t out_len, const char *errout,
	                      size_t errout_len, int exit_code, int term_signal, int n,
	                      struct metrics *per, struct err *e);
	/* Which stream is the pass's raw output kept in the database: "stdout" or "stderr". */
	const char *raw_stream;
	/* Optional: name metrics that depend on the options (dd's output does not say whether
	 * it read or wrote, so its parse() yields "bw_mib" and this renames it). NULL if none.
	 * engine_parse() calls parse() and then this. */
	void (*metrics_name)(const struct engine_opts *o, struct metrics *m);
	/* Every metric a successful pass with these options reports (names after metrics_name),
	 * so a caller can refuse a metric the job cannot produce before it runs. One exception:
	 * bonnie++ prints "+++++" instead of a figure for a test that ran too fast to time, and
	 * that pass then lacks the metric. */
	void (*metrics_list)(const struct engine_opts *o, struct metric_names *out);
};

/* The option fields of an engine's descriptor: its option table and its member of struct
 * engine_opts, e.g. ENGINE_OPTS(fio_opts_table, fio). */
#define ENGINE_OPTS(table, member)                                                                 \
	.opts = (table), .n_opts = (int)(sizeof(table) / sizeof((table)[0])),                      \
	.opts_off = offsetof(struct engine_opts, member),                                          \
	.opts_size = sizeof(((struct engine_opts *)0)->member)

/* "fio", "dd", "bonnie", "iozone", NULL: the job's "engine" values. */
extern const char *const engine_names[];

extern const struct engine fio_engine;
extern const struct engine dd_engine;
extern const struct engine bonnie_engine;
extern const struct engine iozone_engine;

/*
 * A pass's deadline: ENGINE_DEADLINE_FACTOR x its bound (pass_bound_s) + ENGINE_DEADLINE_MARGIN_S,
 * rounded up to whole seconds. A pass still running then is stopped and its job fails
 * "engine_timeout" (job_run.c). The controller reads the result from the job's
 * pass_deadline_s; the rule is written out in docs/api.md.
 */
#define ENGINE_FLOOR_MIB_S 1.0
#define ENGINE_DEADLINE_FACTOR 2.0
#define ENGINE_DEADLINE_MARGIN_S 30.0
double engine_pass_deadline_s(const struct engine *eng, const struct engine_opts *o,
                              bool in_directory, uint64_t device_bytes);
/* Seconds to move bytes at ENGINE_FLOOR_MIB_S. */
double engine_volume_s(double bytes);

/* NULL if unknown. */
const struct engine *engine_find(const char *name);
/* Put eng's options in o back to their defaults, not given. */
void engine_opts_reset(const struct engine *eng, struct engine_opts *o);
/* The engine with that id (0 <= id < ENGINE_COUNT). */
const struct engine *engine_by_id(enum engine_id id);
/* eng->parse() followed by eng->metrics_name(o): what the job layer should call, so dd
 * passes get "write.bw_mib" / "read.bw_mib". Same return values as parse(). */
int engine_parse(const struct engine *eng, const struct engine_opts *o, const char *out,
                 size_t out_len, const char *errout, size_t errout_len, int exit_code,
                 int term_signal, struct metrics *m, struct err *e);
/* engine_parse() of a pass of any job: with workloads (fio), each section's metrics into
 * per[0..o->n_workloads) in the job's order (fio_parse_sections) and m a copy of per[0], so a
 * pass's own metrics are its first workload's. per may be NULL for a job without workloads.
 * Same return values as parse(). */
int engine_parse_pass(const struct engine *eng, const struct engine_opts *o, const char *out,
                      size_t out_len, const char *errout, size_t errout_len, int exit_code,
                      int term_signal, struct metrics *m, struct metrics *per, struct err *e);
/* fio's JSON of a pass with n sections (fio_engine's argv for a job with workloads names
 * section i "<work_name>-w<i>"): "jobs" must hold n group_reporting entries, entry i being
 * section i's, each parsed as a plain pass's one entry into per[i]. Return values as parse();
 * -EPROTO when the entries are not the n sections. */
int fio_parse_sections(const char *out, size_t out_len, const char *errout, size_t errout_len,
                       int exit_code, int term_signal, int n, struct metrics *per, struct err *e);
/* A fio job file's passes (fio.c), each job section a fio job of its own: the most a pass
 * takes (the longest section bounded by its runtime, plus every section bounded by its I/O),
 * the expected time (the longest section's), and the union of the job sections' metrics. */
struct fiofile;
double fio_file_pass_bound_s(const struct fiofile *f, bool in_directory, uint64_t device_bytes);
double fio_file_expected_runtime_s(const struct fiofile *f);
void fio_file_metrics_list(const struct fiofile *f, struct metric_names *out);
/* The binary eng runs: fio_path for fio when given, else its exe (dd, bonnie++, iozone). */
const char *engine_exe(const struct engine *eng, const char *fio_path);
/* The PATH a tool is looked for on when the agent's environment has none (or an empty one). */
#define ENGINE_DEFAULT_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
/* Is tool exe runnable: a path with a '/' is checked directly, a bare name on $PATH
 * (ENGINE_DEFAULT_PATH without one; an empty entry is the working directory). The one PATH
 * search of the agent: engines' binaries and a job filesystem's tools. */
bool engine_tool_found(const char *exe);
/* Frees an argv from argv_build; NULL is fine. */
void engine_argv_free(char **argv);
/* Engines whose binary is unavailable (iozone not on PATH) are still found; the job layer
 * checks availability with this: fio uses fio_path when non-NULL (else "fio" on PATH), the
 * others their binary on PATH. Returns 0, or -ENOENT with code "engine_unavailable". */
int engine_available(const struct engine *eng, const char *fio_path, struct err *e);

/* ---- helpers shared by the engine modules (engine.c) ---- */

/* A growing argv. engine_argv_add() takes printf arguments. */
struct engine_argv {
	char **v;
	int n, cap;
};
void engine_argv_add(struct engine_argv *a, const char *fmt, ...)
        __attribute__((format(printf, 2, 3)));
/* Hand over the NULL-terminated vector and reset a. Caller has ownership. */
char **engine_argv_detach(struct engine_argv *a);

/* Format bytes in the largest binary unit that divides it exactly: 4194304 -> "4M"
 * ("4m" with lower), 4097 -> "4097". fio, dd and iozone all read "K/M/G/T" as binary. */
void engine_size_str(uint64_t bytes, int lower, char *out, size_t len);
/* fio's time values: digits, then nothing (default_unit_us) or one of us/usec, ms/msec, s/sec,
 * m/min, h/hour, d/day (any case); into microseconds. -EINVAL for anything else, -ERANGE past
 * INT64_MAX. */
int engine_duration_parse(const char *s, int64_t default_unit_us, int64_t *us);

/* Copy the first non-blank line of s[0..len) that starts with `prefix` (or any line when
 * prefix is NULL) into out, trimmed. Returns 1 if found. */
int engine_line_find(const char *s, size_t len, const char *prefix, char *out, size_t outlen);
/* Copy the last non-blank line of s[0..len) (lines end in '\n' or '\r') into out. */
int engine_line_last(const char *s, size_t len, char *out, size_t outlen);
/* Walk the lines of s[0..len) (they end in '\n' or '\r') from the last to the first, until
 * match(line, n, ctx) returns non-zero. Returns 1 if one did, 0 if none (or s is NULL). */
int engine_line_rfind(const char *s, size_t len,
                      int (*match)(const char *line, size_t n, void *ctx), void *ctx);

#endif
