/* ptree.h -- process trees through /proc, with every process named by its pid and start time,
 * so that a pid the kernel has given to someone else is never signalled. */
#ifndef FT_PTREE_H
#define FT_PTREE_H

#include <stdint.h>
#include <sys/types.h>

/* A process: its pid and its start time (/proc/PID/stat field 22, clock ticks after boot).
 * A pid that comes back with another start time is another process. */
struct pident {
	pid_t pid;
	uint64_t start;
};

/* What fleettune reads of /proc/PID/stat. */
struct ptree_stat {
	char state;     /* field 3: 'R', 'S', 'D', 'T', 'Z' (zombie), ... */
	pid_t ppid;     /* field 4 */
	pid_t pgrp;     /* field 5 */
	uint64_t start; /* field 22 */
};

/* Parse one /proc/PID/stat line. comm (field 2) may hold spaces and parentheses: fields are
 * counted from the last ')'. Returns 0 or -EINVAL. */
int ptree_stat_parse(const char *line, struct ptree_stat *st);
/* /proc/PID/stat of a live (or zombie) process; -ESRCH when there is none. */
int ptree_stat_read(pid_t pid, struct ptree_stat *st);
/*
 * Walk /proc once: the live processes (zombies excluded) that are one of ids[0..n) (same pid
 * and start time) or descend from one through parent links. *out (heap, caller frees; NULL
 * when none) gets them. Returns their number, or -errno if /proc cannot be read.
 */
int ptree_collect(const struct pident *ids, int n, struct pident **out);
/*
 * Kill ids and all their descendants: stop them (SIGSTOP), wait until each has stopped (a fork
 * under way completes first), walk again until no new child appears (a stopped process cannot
 * fork), SIGKILL them all, and repeat until nothing of the tree is alive or timeout_s has passed.
 * Each signal goes through a pidfd opened before the start time is checked, so it cannot reach a
 * process that reused the pid. *n_killed (may be NULL) counts the distinct processes that ended
 * during the kill (a stopped member of a group the kill orphans can die of the kernel's SIGHUP
 * before its SIGKILL). Returns 0, -ETIMEDOUT if some survived, or -errno.
 */
int ptree_kill(const struct pident *ids, int n, double timeout_s, int *n_killed);

#endif
