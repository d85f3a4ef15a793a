/* cgroup.h -- cgroup v2: finding the hierarchy, and creating, emptying and removing a cgroup. */
#ifndef FT_CGROUP_H
#define FT_CGROUP_H

#include <stdbool.h>
#include <stddef.h>

#include "err.h"

/*
 * The cgroup2 mount in mountinfo text (the contents of /proc/self/mountinfo): its mount
 * point ("/sys/fs/cgroup" on a pure v2 host, "/sys/fs/cgroup/unified" on a hybrid one) and
 * the directory of the hierarchy mounted there ("/" unless only a subtree is visible, as in
 * some containers). Octal escapes (\040 for a space) are decoded. Returns 0, -ENOENT when no
 * cgroup2 file system is mounted, -ENAMETOOLONG.
 */
int cgroup_mount_find(const char *mountinfo, char *mnt, size_t mnt_len, char *root,
                      size_t root_len);
/* The v2 entry ("0::/system.slice/x.service") of /proc/PID/cgroup text: "/system.slice/...".
 * Returns 0 or -ENOENT. */
int cgroup_self_find(const char *proc_cgroup, char *path, size_t len);
/* The directory of cgroup self (as cgroup_self_find gives it) under a cgroup2 mount of the
 * hierarchy directory mnt_root: mnt + (self without mnt_root). -EXDEV when self is outside the
 * mounted subtree. */
int cgroup_dir_join(const char *mnt, const char *mnt_root, const char *self, char *out, size_t len);

/* mkdir dir and any missing parents below the mount (0755); an existing one is fine. */
int cgroup_create(const char *dir, struct err *e);
/* Processes in dir's cgroup.procs (this cgroup only, zombies excluded by the kernel), or
 * -errno (-ENOENT once it is removed). */
int cgroup_procs_count(const char *dir);
/*
 * Kill every process in cgroup dir and below, then wait up to timeout_s until none is left.
 * With use_kill_file, one write to cgroup.kill (Linux >= 5.14: race-free); otherwise SIGKILL
 * to each pid of cgroup.procs, read again until it stays empty. *n_killed (may be NULL) is the
 * number of distinct processes that were there. Returns 0, -ENOENT if dir does not exist,
 * -ETIMEDOUT if processes remain (stuck in the kernel), or -errno.
 */
int cgroup_kill(const char *dir, bool use_kill_file, double timeout_s, int *n_killed);
/* rmdir dir; 0 when it is gone (or was never there), else -errno (-EBUSY: still populated). */
int cgroup_remove(const char *dir);
/*
 * cgroup_remove, trying again for up to timeout_s while rmdir says -EBUSY: right after the
 * last member exits ("populated 0"), the kernel can still hold the cgroup for a moment.
 */
int cgroup_remove_wait(const char *dir, double timeout_s);

#endif
