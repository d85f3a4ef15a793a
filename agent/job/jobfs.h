/* jobfs.h -- a job's filesystem: made by mkfs on the job's device, mounted on a private
 * directory under the state directory, recorded before it is mounted so that a restarted agent
 * unmounts what a killed one left; dry runs of mkfs and of the mount options; what was made. */
#ifndef FT_JOBFS_H
#define FT_JOBFS_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "engines/fsinfo.h"
#include "engines/fsopt.h"
#include "err.h"

struct contain;

#define JOBFS_TOOL_TIMEOUT_S 1800.0 /* mkfs of a large device with discard takes minutes */
#define JOBFS_DRY_TIMEOUT_S 60.0
#define JOBFS_UMOUNT_WAIT_S 10.0
#define JOBFS_STOP_GRACE_S 5.0 /* a tool stopped: SIGTERM, then SIGKILL after this */
/* The most making a job's filesystem and undoing it may take: mkfs and the info tool each to
 * their timeout and grace, and the unmount's wait. */
#define JOBFS_DEADLINE_S (2 * (JOBFS_TOOL_TIMEOUT_S + JOBFS_STOP_GRACE_S) + JOBFS_UMOUNT_WAIT_S)

/*
 * The agent's filesystem area: STATE_DIR/fs (0700, made by the agent, never followed through
 * a link), held open as a directory descriptor. Each job with a filesystem has in it a record
 * "job-ID.rec" (written and fsynced before anything is mounted) and the mount directory
 * "job-ID" (0700). Thread-safe: jobs run one at a time, and dry runs touch neither.
 */
struct jobfs {
	int dir_fd;            /* STATE_DIR/fs; -1 without a state directory */
	char dir[PATH_MAX];    /* its path, for mount points and messages */
	const char *mountinfo; /* "/proc/self/mountinfo" (tests: a file) */
	char boot_id[40];      /* records of another boot name mounts that are gone */
	double tool_timeout_s; /* mkfs and the info tool: how long before they are killed */
};

/*
 * Open (making it) STATE_DIR/fs. state_dir NULL: no filesystem jobs (jobfs_make refuses).
 * Refuses a "fs" that is a link, not a directory, or not the agent's own with mode 0700.
 * mountinfo NULL: /proc/self/mountinfo. root (--sysfs-root; NULL: "/") is where the boot id
 * is read (bootid_read).
 */
int jobfs_init(struct jobfs *j, const char *root, const char *state_dir, const char *mountinfo,
               struct err *e);
void jobfs_release(struct jobfs *j);

/*
 * What was made for one job (and, for a dry run, what would be). Filled step by step, so that
 * jobfs_unmake() undoes exactly what was done.
 */
struct jobfs_made {
	int64_t job_id;
	enum fs_type type;
	char device[64];
	char mount_point[PATH_MAX];
	char mkfs_argv[1024]; /* the mkfs command as run, words separated by spaces */
	char mount_opts[256]; /* the mount's options as the kernel shows them: "rw,noatime" */
	char super_opts[512]; /* the filesystem's: "rw,inode64,logbufs=8,logbsize=256k,..." */
	struct fs_figures figures;
	double mkfs_s;                 /* how long mkfs took */
	unsigned dev_major, dev_minor; /* the device's number (what the mount's st_dev is) */
	bool record_made, dir_made, mounted;
};

/* Called between steps and while a tool runs: true stops (the job was cancelled). */
typedef bool (*jobfs_stop_fn)(void *cls);

/*
 * For job job_id on device (a checked /sys/block name), in order: the record, the mount
 * directory, mkfs (contained in c when non-NULL), the mount (the new mount API onto the
 * directory's descriptor: no path is followed), the read-back from mountinfo, the info tool's
 * figures. On failure everything done is undone (jobfs_unmake) and e says which step:
 * "mkfs.xfs exited with status 1: ...", "mount of /dev/loop1 (xfs) refused: xfs: ...";
 * code "fs_failed". The caller has checked the device is not in use.
 */
int jobfs_make(struct jobfs *j, int64_t job_id, const char *device, const struct fs_spec *spec,
               struct contain *c, jobfs_stop_fn stop, void *stop_cls, struct jobfs_made *out,
               struct err *e);
/*
 * The root of the filesystem made (out of jobfs_make), opened through the area's descriptor
 * (the mount directory's name, O_NOFOLLOW: no path outside the private area is resolved) and
 * checked to be that filesystem still (its st_dev is the device's: not the bare directory a
 * lost mount would leave). Returns the descriptor (the caller closes it) or -errno, code
 * "fs_failed" naming the mount directory.
 */
int jobfs_root_open(struct jobfs *j, const struct jobfs_made *m, struct err *e);

/*
 * Undo what out says was done: unmount (retrying while busy), remove the directory, then the
 * record. A step that fails is logged and stops there: the record stays for the next start.
 * Returns 0 or -errno of the failing step.
 */
int jobfs_unmake(struct jobfs *j, struct jobfs_made *made);

/*
 * The host side of a job's filesystem, checked by the tables (c, out of fsopt_spec_check), on
 * device: the kernel's own parser of every mount option (jobfs_kernel_check), the tools
 * (jobfs_tools_check), and unless held (the running job's filesystem is on the device: mkfs
 * cannot run on it) mkfs's no-op run (mkfs.xfs -N, mkfs.ext4 -n, nothing written), whose
 * summary fills out->figures. out->mkfs_argv gets the command either way. Errors: 422
 * "invalid_fs_option" for the kernel's refusal and mkfs's ("mkfs.xfs's dry run (-N) refuses:
 * ..."), "engine_unavailable" when a tool or the kernel's filesystem is missing.
 */
int jobfs_host_check(const char *device, const struct fsopt_checked *c, bool held,
                     struct jobfs_made *out, struct err *e);

/* c's mount options judged by the kernel's own parser (fsopen + fsconfig, nothing created;
 * skipped without CAP_SYS_ADMIN); -ENODEV "engine_unavailable" when it lacks the type. */
int jobfs_kernel_check(const struct fsopt_checked *c, struct err *e);

/* The tools c's type needs are on PATH; -ENOENT "engine_unavailable" naming the one missing
 * and its Debian package (xfsprogs, e2fsprogs). */
int jobfs_tools_check(const struct fsopt_checked *c, struct err *e);

/*
 * At start-up, before jobs are recovered: for every record a previous run left, unmount its
 * directory if something of that device is mounted there, remove the directory and the
 * record; logged per job ("job 12: unmounted /dev/loop1 from ..."). A record whose mount cannot
 * be undone stays (logged at error level). Returns the number of filesystems unmounted.
 */
int jobfs_recover(struct jobfs *j);

#endif
