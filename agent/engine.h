/* engine.h -- benchmark engines (fio, dd, bonnie++, iozone): option checks, argv, parsers. */
#ifndef FT_ENGINE_H
#define FT_ENGINE_H

#include <jansson.h>
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

/* Where a pass runs. All strings are borrowed. */
struct engine_target {
	const char *exe; /* binary to run: fio path from --fio, else "dd", "bonnie++", "iozone"
	                    found on PATH */
	const char *device_path; /* "/dev/loop0": target when directory is NULL (raw device) */
	const char *directory;   /* files go here when non-NULL (already validated by the caller) */
	const char *work_name;   /* unique per job+loop, e.g. "ft-job12-l1", use for file names */
};

/*
 * One benchmark tool. The four engines are table entries (fio_engine, ...);
 * callers go through engine_find(). The function pointers do no I/O and
 * keep no state, so any thread may call them.
 *
 * Errors: check and argv_build fail with -EINVAL and code "bad_request"
 * naming the key ("fio.iodepth: must be 1..4096"). argv_build also refuses
 * combinations that need the target (fio with a directory but no size, dd
 * read with a directory), so the job layer should call it once when the
 * job is submitted to answer 400 instead of failing the first pass.
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
	int needs_directory; /* bonnie, iozone: 1 */
	/* Strict validation of the engine's option object (may be NULL = defaults where sensible).
	 * Unknown keys, wrong types, bad sizes ("4Q"), out-of-range numbers -> return -EINVAL with
	 * err code "bad_request" and a message naming the key, e.g. "fio.iodepth: must be 1..4096".
	 */
	int (*check)(const json_t *opts, struct err *e);
	/* Build a NULL-terminated argv (heap; free with engine_argv_free). Never uses a shell.
	 * Runs check() first. Sizes are passed as exact binary units ("4M"). */
	int (*argv_build)(const json_t *opts, const struct engine_target *t, char ***argv,
	                  struct err *e);
	/* Expected wall time of one pass in seconds, 0 if unknown. */
	double (*expected_runtime_s)(const json_t *opts);
	/* Progress of the running pass in 0..1 from elapsed time and the output so far, -1 if
	 * unknown. Never returns 1: a pass is done when its process is. */
	double (*progress)(const json_t *opts, double elapsed_s, const char *out, size_t out_len,
	                   const char *errout, size_t errout_len);
	/* Parse a finished pass. exit_code is the exit status (or -1 if killed by term_signal).
	 * Fills metrics (m is reset first); returns 0 or a negative errno as described above. */
	int (*parse)(const char *out, size_t out_len, const char *errout, size_t errout_len,
	             int exit_code, int term_signal, struct metrics *m, struct err *e);
	/* Which stream is the pass's raw output kept in the database: "stdout" or "stderr". */
	const char *raw_stream;
	/* Optional: name metrics that depend on the options (dd's output does not say whether
	 * it read or wrote, so its parse() yields "bw_mib" and this renames it). NULL if none.
	 * engine_parse() calls parse() and then this. */
	void (*metrics_name)(const json_t *opts, struct metrics *m);
};

extern const struct engine fio_engine;
extern const struct engine dd_engine;
extern const struct engine bonnie_engine;
extern const struct engine iozone_engine;

/* NULL if unknown. */
const struct engine *engine_find(const char *name);
/* eng->parse() followed by eng->metrics_name(opts): what the job layer should call, so dd
 * passes get "write.bw_mib" / "read.bw_mib". Same return values as parse(). */
int engine_parse(const struct engine *eng, const json_t *opts, const char *out, size_t out_len,
                 const char *errout, size_t errout_len, int exit_code, int term_signal,
                 struct metrics *m, struct err *e);
/* The binary eng runs: fio_path for fio when given, else fio, dd, bonnie++ or iozone. */
const char *engine_exe(const struct engine *eng, const char *fio_path);
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

/* Option readers. Each one fails with -EINVAL / "bad_request" "<eng>.<key>: ..." when the
 * key is present with a wrong type or value, and stores `def` when the key is absent.
 * opts may be NULL (everything absent). */
int engine_opts_keys(const json_t *opts, const char *eng, const char *const *keys,
                     struct err *e); /* keys: NULL-terminated; also checks opts is an object */
int engine_opt_int(const json_t *opts, const char *eng, const char *key, int64_t min, int64_t max,
                   int64_t def, int64_t *out, struct err *e);
int engine_opt_bool(const json_t *opts, const char *eng, const char *key, int def, int *out,
                    struct err *e);
/* A size string ("4k", "1M", "2g"; binary units) in min..max bytes, optionally a multiple
 * of `align` (0 = any). */
int engine_opt_size(const json_t *opts, const char *eng, const char *key, uint64_t min,
                    uint64_t max, uint64_t align, uint64_t def, uint64_t *out, struct err *e);
/* One of choices[] (NULL-terminated); *out points into choices, or is def. */
int engine_opt_enum(const json_t *opts, const char *eng, const char *key,
                    const char *const *choices, const char *def, const char **out, struct err *e);
/* True if key is present in opts. */
int engine_opt_has(const json_t *opts, const char *key);

/* Format bytes in the largest binary unit that divides it exactly: 4194304 -> "4M"
 * ("4m" with lower), 4097 -> "4097". fio, dd and iozone all read "K/M/G/T" as binary. */
void engine_size_str(uint64_t bytes, int lower, char *out, size_t len);
/* Copy the first non-blank line of s[0..len) that starts with `prefix` (or any line when
 * prefix is NULL) into out, trimmed. Returns 1 if found. */
int engine_line_find(const char *s, size_t len, const char *prefix, char *out, size_t outlen);
/* Copy the last non-blank line of s[0..len) (lines end in '\n' or '\r') into out. */
int engine_line_last(const char *s, size_t len, char *out, size_t outlen);

#endif
