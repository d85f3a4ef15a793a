/* jobdir.h -- the directory a pass's files go in: made by the agent, exclusively, in a job
 * directory opened without following a link, and named to the engine by descriptor. */
#ifndef FT_JOBDIR_H
#define FT_JOBDIR_H

#include <stdbool.h>

#include "err.h"

/* A pass's private directory, open. */
struct jobdir {
	int parent_fd; /* the job directory, -1 when closed */
	int fd;        /* the private directory in it */
	char name[64]; /* its name in the job directory */
	char path[64]; /* "/proc/PID/fd/N/.": what the engine is given */
};

#define JOBDIR_INIT                                                                                \
	{                                                                                          \
		-1, -1, "", ""                                                                     \
	}

/*
 * Open the job directory dir (absolute, as job_check resolved it: under one of allow_dirs)
 * at use, not by the path it had at submit: from the allow dir it lies under, one component
 * at a time, with O_NOFOLLOW, so a component replaced by a link (or renamed away) since is
 * refused (-ELOOP, -ENOTDIR or -ENOENT, code "dir_changed", naming it). In it, make the
 * directory name (mode 0700, exclusively: -EEXIST "dir_conflict" if anything has that name,
 * a planted link included) and open it. jd->path then names that directory through the
 * agent's own descriptor (/proc/PID/fd/N), so that renaming it or linking anything in its
 * place cannot redirect what the engine writes; only root can write in it. Any engine, any
 * job directory: the engine is given jd->path as its directory (and as its cwd).
 */
int jobdir_open(struct jobdir *jd, const char *const *allow_dirs, int n_allow_dirs, const char *dir,
                const char *name, struct err *e);

/* The same in a job directory the caller has opened already (parent_fd, consumed: closed on
 * failure, by jobdir_close otherwise), e.g. the root of a job's own filesystem; dir names it
 * in messages only. */
int jobdir_open_in(struct jobdir *jd, int parent_fd, const char *dir, const char *name,
                   struct err *e);

/* Remove everything in the private directory through its descriptor (no link is followed;
 * subdirectories an engine made too), then the directory itself if its name in the job
 * directory still names it, and close both. Safe on a closed or failed jobdir. */
void jobdir_close(struct jobdir *jd);

/* Whether s (a path) has a control character (a byte below 0x20, or 0x7f): such paths are
 * refused, engines and their output cannot carry them. */
bool jobdir_path_has_control(const char *s);

#endif
