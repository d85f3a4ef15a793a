/* jobfile.h -- an fio job file's rewritten text as fio reads it: a sealed memory file the
 * agent holds, named to fio through the agent's descriptor; and fio --parse-only on it. */
#ifndef FT_JOBFILE_H
#define FT_JOBFILE_H

#include "err.h"

struct jobfile {
	int fd;        /* the memory file, -1 when closed */
	char path[64]; /* "/proc/PID/fd/N": what fio is given */
};

#define JOBFILE_INIT                                                                               \
	{                                                                                          \
		-1, ""                                                                             \
	}

/* How long fio --parse-only may take before the check gives up. */
#define JOBFILE_PARSE_TIMEOUT_S 10.0

/* Put text in a memory file sealed against any change (nothing on disk, nothing another
 * process can swap), open until jobfile_close. -errno "internal" if it cannot be made. */
int jobfile_open(struct jobfile *jf, const char *text, struct err *e);
/* Close it; safe on a closed or failed jobfile. */
void jobfile_close(struct jobfile *jf);

/*
 * Let fio judge the file: fio_exe --parse-only PATH. 0 when fio accepts it; -EINVAL
 * "fio_rejected" with fio's own words when it does not ("fio_file: fio rejects it: Bad
 * option <bogus=1>; Did you mean bs?; fio: job a dropped"), the agent's descriptor path
 * replaced by "fio_file"; -ETIMEDOUT "engine_failed" past JOBFILE_PARSE_TIMEOUT_S, -errno
 * "engine_failed" when fio cannot be run.
 */
int jobfile_fio_check(const char *fio_exe, const struct jobfile *jf, struct err *e);

#endif
