/* contain.h -- job containment: every process a job starts can be found and killed, also by a
 * restarted agent after a kill -9: a cgroup v2 per job, or else the process tree recorded with
 * start times. */
#ifndef FT_CONTAIN_H
#define FT_CONTAIN_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "err.h"
#include "job/ptree.h"

enum contain_mode {
	CONTAIN_AUTO = 0, /* a cgroup where the agent can make one, else the /proc tree */
	CONTAIN_CGROUP,   /* cgroups or refuse to start */
	CONTAIN_PROC,     /* the /proc tree even where cgroups would work (tests, odd hosts) */
};

/* "auto", "cgroup", "proc" (the --contain flag); -EINVAL for anything else. */
int contain_mode_parse(const char *s, enum contain_mode *out);

/*
 * The agent's containment. Records live in STATE_DIR/contain/job-ID, one per job that may
 * have processes, written (and fsynced) before its engine starts and removed once nothing of
 * it is left: "cgroup PATH" lines name its cgroup, "pid PID START" lines (the /proc mode) its
 * processes as they appeared. A restarted agent kills whatever the records still name.
 *
 * Cgroups: the agent id is a hash of the state directory's real path; a job's cgroup is
 * <the agent's own cgroup>/fleettune/<agent id>/job-<job id> on the cgroup2 mount; the base,
 * <agent id>, is kept from contain_init to contain_fini. A recorded path is only acted on when
 * it lies on the cgroup2 mount and ends in that agent id and job.
 */
struct contain {
	enum contain_mode mode; /* CONTAIN_CGROUP or CONTAIN_PROC after contain_init */
	char records[PATH_MAX]; /* STATE_DIR/contain; "" without a state directory */
	char agent_id[17];      /* 16 hex digits */
	char mnt[PATH_MAX];     /* the cgroup2 mount point; "" if none */
	char base[PATH_MAX];    /* cgroup mode: <own cgroup>/fleettune/<agent id> */
	bool kill_file;         /* cgroup.kill exists (Linux >= 5.14) */
	char boot_id[40];       /* pid records of another boot name nobody */
	char why_proc[200];     /* why the /proc mode was chosen (for the start-up line) */
};

/*
 * Pick the mode (want CONTAIN_AUTO: a cgroup when one can be made and joined, probed with a
 * child process; else the /proc tree) and say which, once, in the log. state_dir NULL keeps
 * no records (a restarted agent then finds nothing). -EPERM "internal" when want is
 * CONTAIN_CGROUP and cgroups are not usable; -errno if the records directory cannot be made.
 * sysfs_root (--sysfs-root; NULL: "/") is where the boot id is read (bootid_read).
 */
int contain_init(struct contain *c, const char *sysfs_root, const char *state_dir,
                 enum contain_mode want, struct err *e);
/* Once no pass is left (the queue has stopped): remove the agent's cgroup base, and the
 * "fleettune" above it where no other agent uses it. The base is made at contain_init and kept
 * between passes: a pass makes and removes its own job cgroup only. */
void contain_fini(struct contain *c);
/* Kill everything the records of a previous run name, log it per job ("killed 5 leftover
 * processes of job 12 (cgroup ...)"), and remove the records and cgroups. Returns the number
 * of processes killed. */
int contain_recover(struct contain *c);
/* The cgroup path rules: the cgroup of job_id under base. */
int contain_cgroup_path(const char *base, int64_t job_id, char *out, size_t len);
/* True if a recorded cgroup path may be acted on: absolute, on mnt, no "." or ".." segment,
 * ending in "/fleettune/<agent_id>/job-<job_id>". */
bool contain_cgroup_path_ok(const char *path, const char *mnt, const char *agent_id,
                            int64_t job_id);

/*
 * One pass of a job, from before its engine starts until nothing of it is left. Not
 * thread-safe: the pass's thread owns it. A zeroed struct is "nothing begun": every call is
 * harmless on it.
 */
struct contain_pass {
	struct contain *c;
	int64_t job_id;
	char record[PATH_MAX];
	char cgroup[PATH_MAX]; /* cgroup mode */
	int procs_fd;          /* cgroup mode: cgroup.procs, for the child to join before exec */
	int cg_fd;             /* cgroup mode: the cgroup's directory, to fork the child into */
	int record_fd;         /* the record, open for appending */
	struct pident *ids;    /* /proc mode: every process of the pass seen so far */
	int n_ids, cap_ids;
	double tracked_mono_s;
};

/* Write the record (and make the cgroup) before anything is started. */
int contain_pass_begin(struct contain *c, int64_t job_id, struct contain_pass *cp, struct err *e);
/* The cgroup.procs descriptor the child writes "0" to before exec, or -1 (/proc mode). */
int contain_pass_join_fd(const struct contain_pass *cp);
/* The cgroup's directory, for a child made in it (clone3 CLONE_INTO_CGROUP) instead of
 * joining it; -1 (/proc mode, or it could not be opened: the child joins). */
int contain_pass_cgroup_fd(const struct contain_pass *cp);
/* The engine was forked (it waits before exec): /proc mode records it, fsynced, so that it is
 * never unrecorded while it may run. */
int contain_pass_admit(struct contain_pass *cp, pid_t pid, struct err *e);
/* /proc mode: record the pass's new descendants (fio forks its workers after it starts;
 * they setsid()). At most every 100 ms; cgroup mode has nothing to do. */
void contain_pass_track(struct contain_pass *cp);
/* How many processes of the pass are alive (0 when nothing was begun); -errno. */
int contain_pass_alive(struct contain_pass *cp);
/* SIGKILL every process of the pass and wait (up to 30 s) until they are gone. *n_killed
 * (may be NULL) is how many there were. */
int contain_pass_kill(struct contain_pass *cp, int *n_killed);
/* Kill whatever is left (logged), remove the cgroup and the record, release. A record whose
 * processes could not be killed stays for the next start. */
void contain_pass_end(struct contain_pass *cp);

#endif
