/* fiofile.h -- an fio job file as a job gives it ("fio_file"): parsed, refused where it would
 * run or write anything but the job's own I/O, rewritten to point at the job's device or
 * directory, and read for the pass deadline and the metrics. */
#ifndef FT_FIOFILE_H
#define FT_FIOFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engines/engine.h"
#include "err.h"

#define FIOFILE_MAX_BYTES (32 * 1024) /* the text (an HTTP body is 64 KiB at most) */
#define FIOFILE_MAX_SECTIONS 16       /* [global] sections included */
#define FIOFILE_LINE_MAX 1024         /* bytes of a line (fio reads far longer ones) */
#define FIOFILE_NAME_MAX 64           /* bytes of a section's name */

struct fiofile_line {
	char *key;   /* as written, blanks trimmed */
	char *value; /* after '=', blanks trimmed; NULL for a bare flag ("time_based") */
	int lineno;  /* 1-based, for messages */
	int section; /* index into the sections */
};

struct fiofile_section {
	char name[FIOFILE_NAME_MAX + 1];
	bool global;
	/* A job section's options as the agent reads them (its own over every [global] before
	 * it): only those that bound its time and name its metrics (fiofile.c's list); fio
	 * judges all of them. */
	struct engine_opts opts;
};

struct fiofile {
	char *text; /* as given */
	int n_lines;
	struct fiofile_line *lines;
	int n_sections, n_jobs;
	struct fiofile_section *sections;
};

/*
 * Parse text (len bytes, no NUL) into *out (heap; fiofile_free). Refused, -EINVAL
 * "bad_request", every message starting "fio_file" and naming the line, section and option:
 * over FIOFILE_MAX_BYTES, FIOFILE_MAX_SECTIONS or FIOFILE_LINE_MAX; a control character; an
 * environment reference ("${"); include; an option outside a section; no job section; an
 * option that runs a command (exec_prerun, exec_postrun), an ioengine other than the agent's
 * (external:, exec, any library), options that write or reach outside the job (ioscheduler,
 * cgroup*, profile, allow_mounted_write, replay_redirect, opendir, a mem/iomem file, a
 * filename_format with '/'), fio's command-line options (daemonize, server, client,
 * remote-config, output, trigger*, ...), several reporting groups (stonewall, new_group: a pass
 * reports one); a value the agent must read for the deadline and cannot (runtime=$x).
 */
int fiofile_parse(const char *text, size_t len, struct fiofile **out, struct err *e);
void fiofile_free(struct fiofile *f);

/*
 * The checks that depend on where the job runs: device_path ("/dev/loop3") for a raw-device
 * job, or job_dir (the job's directory as given, or NULL for a job's own filesystem) when
 * in_directory. filename must be the device (raw) or a plain name in the directory; directory
 * only the job's own (and not in a raw-device job); log, iolog and verify-state files plain
 * names in the pass's directory, and none in a raw-device job (it has no directory of its
 * own); size in every job section of a directory job. -EINVAL "bad_request" naming them.
 */
int fiofile_target_check(const struct fiofile *f, const char *device_path, bool in_directory,
                         const char *job_dir, struct err *e);

/*
 * The text fio is given for the pass (heap): every line as written but filename and
 * directory, and in each job section directory=t->directory first (a directory job) or
 * filename=t->device_path, verify_state_save=0 last (a raw-device job), and group_reporting.
 */
char *fiofile_render(const struct fiofile *f, const struct engine_target *t);

#endif
