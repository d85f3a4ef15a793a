/* ptree.c -- process trees walked through /proc, each process known by pid and start time. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "job/ptree.h"
#include "timeutil.h"
#include "xmalloc.h"
#include "banned.h"

#define PTREE_STEP_MS 10
/* Rounds of "stop, walk again" before the kill; a tree only grows while a member forks. */
#define PTREE_STOP_ROUNDS 8
/* How long a stopped member may take to reach the stopped state (one in uninterruptible I/O
 * stops when the I/O ends). */
#define PTREE_STOP_WAIT_MS 200

int ptree_stat_parse(const char *line, struct ptree_stat *st)
{
	const char *rp = strrchr(line, ')'), *s;
	unsigned long long start;
	int field, ppid, pgrp;
	char state;

	if (!rp || sscanf(rp + 1, " %c %d %d", &state, &ppid, &pgrp) != 3)
		return -EINVAL;
	/* rp + 1 starts field 3; field 22 is 19 fields further on */
	s = rp + 1;
	for (field = 2; field < 21 && s; field++) {
		s = strchr(s + 1, ' ');
		while (s && s[1] == ' ')
			s++;
	}
	if (!s || sscanf(s, " %llu", &start) != 1)
		return -EINVAL;
	st->state = state;
	st->ppid = ppid;
	st->pgrp = pgrp;
	st->start = start;
	return 0;
}

int ptree_stat_read(pid_t pid, struct ptree_stat *st)
{
	char path[64], line[1024];
	ssize_t n;
	int fd, rc;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	n = read(fd, line, sizeof(line) - 1);
	rc = n < 0 ? (errno == ESRCH ? -ESRCH : -errno) : 0;
	close(fd);
	if (rc)
		return rc;
	line[n] = '\0';
	return ptree_stat_parse(line, st) ? -ESRCH : 0;
}

static bool is_dead(char state)
{
	return state == 'Z' || state == 'X' || state == 'x';
}

/* One process as a walk sees it. */
struct node {
	pid_t pid, ppid;
	uint64_t start;
	bool dead, in_tree;
};

/* Every process in /proc; *nodes is heap. Returns the count or -errno. */
static int proc_walk(struct node **nodes)
{
	struct ptree_stat st;
	struct dirent *de;
	struct node *v = NULL;
	int n = 0, cap = 0;
	char *end;
	long pid;
	DIR *d;

	*nodes = NULL;
	d = opendir("/proc");
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		pid = strtol(de->d_name, &end, 10);
		if (*end || pid <= 0 || ptree_stat_read((pid_t)pid, &st))
			continue;
		v = xgrow(v, &cap, n + 1, sizeof(*v));
		v[n++] = (struct node){ (pid_t)pid, st.ppid, st.start, is_dead(st.state), false };
	}
	closedir(d);
	*nodes = v;
	return n;
}

int ptree_collect(const struct pident *ids, int n, struct pident **out)
{
	struct node *v;
	int nv, i, k, found = 0;
	bool grew;

	*out = NULL;
	nv = proc_walk(&v);
	if (nv < 0)
		return nv;
	for (i = 0; i < nv; i++)
		for (k = 0; k < n; k++)
			if (v[i].pid == ids[k].pid && v[i].start == ids[k].start)
				v[i].in_tree = true;
	/* Children of tree members join the tree, until a pass adds nobody. */
	do {
		grew = false;
		for (i = 0; i < nv; i++) {
			if (v[i].in_tree)
				continue;
			for (k = 0; k < nv; k++) {
				if (v[k].in_tree && v[k].pid == v[i].ppid) {
					v[i].in_tree = grew = true;
					break;
				}
			}
		}
	} while (grew);
	for (i = 0; i < nv; i++)
		if (v[i].in_tree && !v[i].dead)
			found++;
	if (found) {
		*out = xcalloc((size_t)found, sizeof(**out));
		for (i = 0, k = 0; i < nv; i++)
			if (v[i].in_tree && !v[i].dead)
				(*out)[k++] = (struct pident){ v[i].pid, v[i].start };
	}
	free(v);
	return found;
}

/* Send sig to exactly that process: a pidfd pins the process before its start time is
 * checked. Kernels without pidfds (before 5.3) get a plain kill() after the check. Returns 0,
 * -ESRCH if it is gone or the pid now names another process. */
static int ident_signal(const struct pident *id, int sig)
{
	struct ptree_stat st;
	int fd = -1, rc;

#if defined(SYS_pidfd_open) && defined(SYS_pidfd_send_signal)
	fd = (int)syscall(SYS_pidfd_open, id->pid, 0);
	if (fd < 0 && errno != ENOSYS)
		return -ESRCH;
#endif
	rc = ptree_stat_read(id->pid, &st);
	if (rc == 0 && (st.start != id->start || is_dead(st.state)))
		rc = -ESRCH;
	if (rc == 0) {
#if defined(SYS_pidfd_open) && defined(SYS_pidfd_send_signal)
		if (fd >= 0)
			rc = syscall(SYS_pidfd_send_signal, fd, sig, NULL, 0) < 0 ? -errno : 0;
		else
#endif
			rc = kill(id->pid, sig) < 0 ? -errno : 0;
	}
	if (fd >= 0)
		close(fd);
	return rc;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* Add the members of add[0..n) that are not in *all yet; returns how many were new. */
/*
 * Wait until every one of tree[0..n) is stopped or gone, up to PTREE_STOP_WAIT_MS. SIGSTOP
 * is delivered when the process next returns to user space: a fork(2) under way when it was
 * sent completes first, and its child only appears in /proc then. A walk made before the
 * parent has stopped can miss that child, which the parent's SIGKILL would then orphan.
 */
static void stopped_wait(const struct pident *tree, int n)
{
	double deadline = time_mono_s() + PTREE_STOP_WAIT_MS / 1000.0;
	struct ptree_stat st;
	int i;

	for (i = 0; i < n;) {
		if (ptree_stat_read(tree[i].pid, &st) || st.start != tree[i].start ||
		    st.state == 'T' || st.state == 't' || is_dead(st.state)) {
			i++;
			continue;
		}
		if (time_mono_s() >= deadline)
			return;
		sleep_ms(1);
	}
}

static int ident_merge(struct pident **all, int *n_all, int *cap, const struct pident *add, int n)
{
	int i, k, added = 0;

	for (i = 0; i < n; i++) {
		for (k = 0; k < *n_all; k++)
			if ((*all)[k].pid == add[i].pid && (*all)[k].start == add[i].start)
				break;
		if (k < *n_all)
			continue;
		*all = xgrow(*all, cap, *n_all + 1, sizeof(**all));
		(*all)[(*n_all)++] = add[i];
		added++;
	}
	return added;
}

int ptree_kill(const struct pident *ids, int n, double timeout_s, int *n_killed)
{
	double deadline = time_mono_s() + timeout_s;
	struct pident *tree = NULL, *all = NULL, *killed = NULL;
	int n_all = 0, cap = 0, n_dead = 0, cap_dead = 0, nt, i, round, rc = 0;

	/* all: every process of the tree seen so far, the roots included, so the walk finds
	 * the children of a member even after that member is killed. */
	ident_merge(&all, &n_all, &cap, ids, n);
	for (;;) {
		nt = ptree_collect(all, n_all, &tree);
		if (nt < 0) {
			rc = nt;
			break;
		}
		if (nt == 0)
			break;
		if (time_mono_s() >= deadline) {
			rc = -ETIMEDOUT;
			break;
		}
		for (round = 0; round < PTREE_STOP_ROUNDS; round++) {
			for (i = 0; i < nt; i++)
				ident_signal(&tree[i], SIGSTOP);
			stopped_wait(tree, nt);
			if (ident_merge(&all, &n_all, &cap, tree, nt) == 0 && round > 0)
				break;
			free(tree);
			nt = ptree_collect(all, n_all, &tree);
			if (nt <= 0)
				break;
		}
		/* A member gone by now (-ESRCH) was alive in this round's walk: it ended during
		 * this kill. Killing a stopped group's leader orphans the group, and the kernel
		 * then sends the stopped members SIGHUP (POSIX's orphaned process group rule), so
		 * some die before their SIGKILL: they count as killed too. */
		for (i = 0; i < nt; i++) {
			rc = ident_signal(&tree[i], SIGKILL);
			if (rc == 0 || rc == -ESRCH)
				ident_merge(&killed, &n_dead, &cap_dead, &tree[i], 1);
		}
		rc = 0;
		free(tree);
		tree = NULL;
		sleep_ms(PTREE_STEP_MS);
	}
	free(tree);
	if (n_killed)
		*n_killed = n_dead;
	free(killed);
	free(all);
	return rc;
}
