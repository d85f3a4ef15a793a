/* proc.c -- spawning engines in their own process group, capturing output, and ending groups. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bell.h"
#include "job/contain.h"
#include "job/proc.h"
#include "job/ptree.h"
#include "log.h"
#include "timeutil.h"
#include "xmalloc.h"
#include "banned.h"

extern char **environ;

/* How long proc_poll keeps reading pipes an orphan holds open after the leader exited. */
#define PROC_DRAIN_S 1.0
/* How long proc_terminate waits for a SIGKILLed group (a member may sit in D state). */
#define PROC_KILL_WAIT_S 30.0

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* The agent's environment with LC_ALL=C in place of any LC_ALL. Caller frees the vector
 * (the strings are borrowed, except the last one, a literal). */
static char **env_build(void)
{
	size_t n = 0, i, k = 0;
	char **env;

	while (environ && environ[n])
		n++;
	env = xcalloc(n + 2, sizeof(*env));
	for (i = 0; i < n; i++)
		if (strncmp(environ[i], "LC_ALL=", 7))
			env[k++] = environ[i];
	env[k++] = (char *)"LC_ALL=C";
	env[k] = NULL;
	return env;
}

/* Move fd above 2 so dup2() onto 0..2 cannot clobber it (the copy close-on-exec, as every
 * descriptor of the agent's is). Async-signal-safe. */
static int fd_above_stdio(int fd)
{
	return fd < 0 || fd > 2 ? fd : fcntl(fd, F_DUPFD_CLOEXEC, 3);
}

/* Close [lo, hi]; hi < 0: to the last descriptor. Async-signal-safe. */
static void fds_close(int lo, int hi)
{
	int fd;

	if (hi >= 0 && lo > hi)
		return;
	if (close_range((unsigned)lo, hi < 0 ? ~0U : (unsigned)hi, 0) == 0)
		return;
	for (fd = lo; fd <= (hi < 0 ? 65535 : hi); fd++)
		close(fd);
}

/*
 * Close every descriptor above stdio but keep_a and keep_b (-1: none), both above 2. A child
 * waiting at its gate then holds nothing of the agent's: not the state directory's lock nor
 * the listening socket, which a restarted agent must take, nor its copy of the gate's write
 * end, which would keep the gate from ever reporting the parent's death. Async-signal-safe.
 */
static void fds_close_except(int keep_a, int keep_b)
{
	int lo = keep_a < keep_b ? keep_a : keep_b, hi = keep_a < keep_b ? keep_b : keep_a;

	if (lo < 0) {
		fds_close(3, hi - 1);
		fds_close(hi + 1, -1);
		return;
	}
	fds_close(3, lo - 1);
	fds_close(lo + 1, hi - 1);
	fds_close(hi + 1, -1);
}

/* What a child that could not exec reports on its status pipe. */
enum child_stage { STAGE_EXEC, STAGE_JOIN };
struct child_report {
	int stage; /* enum child_stage */
	int err;   /* errno */
};

/*
 * The child between fork and exec: only async-signal-safe calls. Joins the cgroup whose
 * cgroup.procs is join_fd (when >= 0) and waits for a byte on gate_fd (when >= 0: the parent
 * has recorded it) before exec; EOF there means the parent gave up or died: exit without
 * running anything. Reports failures on st_fd.
 */
static void child_exec(char *const argv[], char **envp, const char *cwd, int in_fd, int out_fd,
                       int err_fd, int st_fd, int join_fd, int gate_fd)
{
	struct child_report rep = { STAGE_EXEC, 0 };
	struct sigaction sa;
	sigset_t none;
	char go;
	int sig;

	setpgid(0, 0);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	for (sig = 1; sig < NSIG; sig++)
		sigaction(sig, &sa, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	in_fd = fd_above_stdio(in_fd);
	out_fd = fd_above_stdio(out_fd);
	err_fd = fd_above_stdio(err_fd);
	st_fd = fd_above_stdio(st_fd);
	if (in_fd < 0 || out_fd < 0 || err_fd < 0 || st_fd < 0 ||
	    (join_fd >= 0 && (join_fd = fd_above_stdio(join_fd)) < 0) ||
	    (gate_fd >= 0 && (gate_fd = fd_above_stdio(gate_fd)) < 0) || dup2(in_fd, 0) < 0 ||
	    dup2(out_fd, 1) < 0 || dup2(err_fd, 2) < 0)
		goto fail;
	if (cwd && chdir(cwd) < 0)
		goto fail;
	if (join_fd >= 0 && write(join_fd, "0", 1) != 1) {
		rep.stage = STAGE_JOIN;
		goto fail;
	}
	/* Before the gate: only stdio, the status pipe (close-on-exec) and the gate are left. */
	fds_close_except(st_fd, gate_fd);
	if (gate_fd >= 0 && read(gate_fd, &go, 1) != 1)
		_exit(127);
	execvpe(argv[0], argv, envp);
fail:
	rep.err = errno;
	if (write(st_fd, &rep, sizeof(rep)) < 0)
		_exit(127);
	_exit(127);
}

/* clone3's arguments up to cgroup (the kernel's struct clone_args, version 2: Linux 5.7). */
struct clone3_args {
	uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls, set_tid,
	        set_tid_size, cgroup;
};
#define PROC_CLONE_INTO_CGROUP 0x200000000ULL

/*
 * fork() with the child made in the cgroup whose directory is cg_fd (clone3 with
 * CLONE_INTO_CGROUP), so that it need not join it: a join moves a running process between
 * cgroups, which takes the kernel's cgroup lock for writing and waits for an RCU grace period
 * (13.8 ms from spawn to exec here, against 2.3 ms in /proc mode), and every engine of a
 * fleet starting at one moment queues on that lock. With cg_fd -1, or where the kernel cannot,
 * a plain fork(): *made_in false, the child must join. Like fork() in a threaded process, the
 * child may only make async-signal-safe calls.
 */
static pid_t fork_into(int cg_fd, bool *made_in)
{
	struct clone3_args ca;
	pid_t pid = -1;

	memset(&ca, 0, sizeof(ca));
	ca.flags = PROC_CLONE_INTO_CGROUP;
	ca.exit_signal = SIGCHLD;
	ca.cgroup = (uint64_t)cg_fd;
	if (cg_fd >= 0)
		pid = (pid_t)syscall(SYS_clone3, &ca, sizeof(ca));
	*made_in = pid >= 0;
	return *made_in ? pid : fork();
}

int proc_spawn(struct proc *p, char *const argv[], const char *cwd, struct err *e)
{
	return proc_spawn_in(p, argv, cwd, NULL, e);
}

int proc_spawn_in(struct proc *p, char *const argv[], const char *cwd, struct contain_pass *cp,
                  struct err *e)
{
	int outp[2] = { -1, -1 }, errp[2] = { -1, -1 }, st[2] = { -1, -1 }, gate[2] = { -1, -1 };
	struct child_report rep = { STAGE_EXEC, 0 };
	int rc, in_fd = -1;
	bool made_in;
	sigset_t all, old;
	char **envp = NULL;
	ssize_t n;
	pid_t pid;

	memset(p, 0, sizeof(*p));
	p->out_fd = p->err_fd = -1;
	buf_init(&p->out);
	buf_init(&p->err);
	buf_append(&p->out, "", 0);
	buf_append(&p->err, "", 0);
	if (!argv || !argv[0]) {
		rc = err_set(e, -EINVAL, ERR_ENGINE_FAILED, "nothing to run");
		goto out;
	}
	if (pipe2(outp, O_CLOEXEC) < 0 || pipe2(errp, O_CLOEXEC) < 0 || pipe2(st, O_CLOEXEC) < 0 ||
	    (cp && pipe2(gate, O_CLOEXEC) < 0) ||
	    (in_fd = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0) {
		rc = err_set(e, -errno, ERR_ENGINE_FAILED, "cannot run '%s': %s", argv[0],
		             strerror(errno));
		goto out;
	}
	envp = env_build();
	/* Block signals so no handler of ours runs in the child before it resets them. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	pid = fork_into(contain_pass_cgroup_fd(cp), &made_in);
	if (pid == 0)
		child_exec(argv, envp, cwd, in_fd, outp[1], errp[1], st[1],
		           made_in ? -1 : contain_pass_join_fd(cp), gate[0]);
	rc = pid < 0 ? -errno : 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc < 0) {
		err_set(e, rc, ERR_ENGINE_FAILED, "cannot run '%s': fork: %s", argv[0],
		        strerror(-rc));
		goto out;
	}
	setpgid(pid, pid); /* both sides, so the group exists before anyone signals it */
	close_fd(&outp[1]);
	close_fd(&errp[1]);
	close_fd(&st[1]);
	close_fd(&gate[0]);
	/* The child waits at the gate until it is recorded; closing the gate unopened makes
	 * it exit without running anything. */
	if (cp) {
		rc = contain_pass_admit(cp, pid, e);
		if (rc == 0 && write(gate[1], "1", 1) != 1)
			rc = err_set(e, -errno, ERR_ENGINE_FAILED, "cannot run '%s': %s", argv[0],
			             strerror(errno));
		close_fd(&gate[1]);
		if (rc) {
			while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
				;
			goto out;
		}
	}
	do
		n = read(st[0], &rep, sizeof(rep));
	while (n < 0 && errno == EINTR);
	if (n > 0) {
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		rc = err_set(e, -rep.err, ERR_ENGINE_FAILED, "cannot run '%s': %s%s", argv[0],
		             rep.stage == STAGE_JOIN ? "cannot join its cgroup: " : "",
		             strerror(rep.err));
		goto out;
	}
	fcntl(outp[0], F_SETFL, fcntl(outp[0], F_GETFL) | O_NONBLOCK);
	fcntl(errp[0], F_SETFL, fcntl(errp[0], F_GETFL) | O_NONBLOCK);
	p->pid = pid;
	p->cp = cp;
	p->out_fd = outp[0];
	p->err_fd = errp[0];
	outp[0] = errp[0] = -1;
	rc = 0;
out:
	if (rc < 0) {
		buf_release(&p->out);
		buf_release(&p->err);
	}
	close_fd(&outp[0]);
	close_fd(&outp[1]);
	close_fd(&errp[0]);
	close_fd(&errp[1]);
	close_fd(&st[0]);
	close_fd(&st[1]);
	close_fd(&gate[0]);
	close_fd(&gate[1]);
	close_fd(&in_fd);
	free(envp);
	return rc;
}

/* Read everything available on *fd into b (up to PROC_OUT_MAX); close it at EOF. */
static void drain(int *fd, struct buf *b)
{
	char tmp[65536];
	ssize_t n;

	while (*fd >= 0) {
		n = read(*fd, tmp, sizeof(tmp));
		if (n > 0) {
			if (b->len < PROC_OUT_MAX)
				buf_append(b, tmp,
				           (size_t)n < PROC_OUT_MAX - b->len
				                   ? (size_t)n
				                   : PROC_OUT_MAX - b->len);
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		close_fd(fd); /* EOF or a read error: nothing more will come */
	}
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static void reap(struct proc *p, int block)
{
	int status;
	pid_t w;

	if (p->exited)
		return;
	do
		w = waitpid(p->pid, &status, block ? 0 : WNOHANG);
	while (w < 0 && errno == EINTR);
	if (w == p->pid) {
		p->exited = 1;
		if (WIFEXITED(status)) {
			p->exit_code = WEXITSTATUS(status);
			p->term_signal = 0;
		} else {
			p->exit_code = -1;
			p->term_signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
		}
		p->exited_mono_s = time_mono_s();
	} else if (w < 0 && errno == ECHILD) {
		/* Someone else reaped it (SIGCHLD ignored?): call it killed, status unknown. */
		p->exited = 1;
		p->exit_code = -1;
		p->term_signal = 0;
		p->exited_mono_s = time_mono_s();
	}
}

int proc_poll_bell(struct proc *p, int timeout_ms, int bell_fd)
{
	struct pollfd fds[3];
	int n = 0, r, bell = -1;
	double left_s;

	if (!p || p->pid <= 0)
		return -ECHILD;
	if (p->exited) {
		left_s = p->exited_mono_s + PROC_DRAIN_S - time_mono_s();
		if (left_s < 0)
			left_s = 0;
		if (timeout_ms > left_s * 1000)
			timeout_ms = (int)(left_s * 1000);
	}
	if (p->out_fd >= 0)
		fds[n++] = (struct pollfd){ .fd = p->out_fd, .events = POLLIN };
	if (p->err_fd >= 0)
		fds[n++] = (struct pollfd){ .fd = p->err_fd, .events = POLLIN };
	if (n > 0) {
		if (bell_fd >= 0) {
			bell = n;
			fds[n++] = (struct pollfd){ .fd = bell_fd, .events = POLLIN };
		}
		r = poll(fds, (nfds_t)n, timeout_ms);
		if (r < 0 && errno != EINTR)
			return -errno;
		if (bell >= 0 && r > 0 && (fds[bell].revents & POLLIN))
			bell_drain(bell_fd);
	} else if (!p->exited && timeout_ms > 0) {
		sleep_ms(timeout_ms < 20 ? timeout_ms : 20); /* the child closed both streams */
	}
	drain(&p->out_fd, &p->out);
	drain(&p->err_fd, &p->err);
	contain_pass_track(p->cp);
	reap(p, 0);
	if (!p->exited)
		return 0;
	if (p->out_fd >= 0 || p->err_fd >= 0) {
		if (time_mono_s() - p->exited_mono_s < PROC_DRAIN_S)
			return 0;
		close_fd(&p->out_fd);
		close_fd(&p->err_fd);
	}
	return 1;
}

int proc_poll(struct proc *p, int timeout_ms)
{
	return proc_poll_bell(p, timeout_ms, -1);
}

/* Does argv[0] (or argv[1], for interpreters) of /proc/<pid>/cmdline end in name? */
static int cmdline_matches(const char *pid, const char *name)
{
	char path[64], data[4096], *arg, *base;
	ssize_t n;
	int fd, i, rc = 0;

	snprintf(path, sizeof(path), "/proc/%s/cmdline", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, data, sizeof(data) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	data[n] = '\0';
	arg = data;
	for (i = 0; i < 2 && arg < data + n; i++) {
		base = strrchr(arg, '/');
		base = base ? base + 1 : arg;
		if (!strcmp(base, name))
			rc = 1;
		arg += strlen(arg) + 1;
	}
	return rc;
}

/* Scan /proc for live (non-zombie) members of pgid; with name, only count members whose
 * command matches. Returns the count, or -1 if /proc cannot be read. */
static int group_scan(pid_t pgid, const char *name)
{
	struct ptree_stat st;
	struct dirent *de;
	int n = 0;
	DIR *d;

	d = opendir("/proc");
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		if (ptree_stat_read((pid_t)strtol(de->d_name, NULL, 10), &st) < 0 ||
		    st.pgrp != pgid)
			continue;
		if (st.state == 'Z' || st.state == 'X' || st.state == 'x')
			continue;
		if (!name || cmdline_matches(de->d_name, name))
			n++;
	}
	closedir(d);
	return n;
}

int proc_group_alive(pid_t pgid)
{
	int n;

	if (pgid <= 1)
		return 0;
	if (kill(-pgid, 0) < 0 && errno == ESRCH)
		return 0;
	n = group_scan(pgid, NULL);
	return n != 0; /* -1 (no /proc): kill() said it exists */
}

/* Signal the group; ESRCH (already gone) is fine. */
static int group_signal(pid_t pgid, int sig)
{
	if (kill(-pgid, sig) < 0 && errno != ESRCH)
		return -errno;
	return 0;
}

/* Is anything of p left: its group, or a process of its containment? */
static bool proc_alive(struct proc *p)
{
	return proc_group_alive(p->pid) || contain_pass_alive(p->cp) > 0;
}

/* Wait until no member of pgid (nor of p's containment) is alive, polling p (may be NULL)
 * meanwhile. */
static int group_wait(struct proc *p, pid_t pgid, double timeout_s)
{
	double deadline = time_mono_s() + timeout_s;

	for (;;) {
		if (p)
			proc_poll(p, 0);
		sleep_ms(20);
		if ((!p || p->exited) && !proc_group_alive(pgid) &&
		    (!p || contain_pass_alive(p->cp) <= 0))
			return 1;
		if (time_mono_s() >= deadline)
			return 0;
	}
}

int proc_terminate(struct proc *p, double grace_s)
{
	double deadline;
	int rc = 0;

	if (!p || p->pid <= 0)
		return 0;
	reap(p, 0);
	if (!p->exited || proc_alive(p)) {
		rc = group_signal(p->pid, SIGTERM);
		group_signal(p->pid, SIGCONT);
		if (rc < 0)
			log_warn("cannot SIGTERM process group %d: %s", (int)p->pid, strerror(-rc));
		if (!group_wait(p, p->pid, grace_s > 0 ? grace_s : 0)) {
			/* The containment first: it also holds the members that left the group. */
			contain_pass_kill(p->cp, NULL);
			rc = group_signal(p->pid, SIGKILL);
			if (rc < 0)
				log_warn("cannot SIGKILL process group %d: %s", (int)p->pid,
				         strerror(-rc));
			group_wait(p, p->pid, PROC_KILL_WAIT_S);
		}
	}
	deadline = time_mono_s() + PROC_KILL_WAIT_S;
	while (!p->exited && time_mono_s() < deadline)
		proc_poll(p, 50);
	while (p->exited && proc_poll(p, 50) == 0)
		;
	if (!p->exited) {
		log_error("process %d survived SIGKILL for %.0f s", (int)p->pid, PROC_KILL_WAIT_S);
		rc = -ETIMEDOUT;
	}
	return rc;
}

void proc_release(struct proc *p)
{
	if (!p)
		return;
	/* pid 0: never spawned (or a zeroed struct), so the fds are not ours to close. */
	if (p->pid > 0) {
		if (!p->exited) {
			contain_pass_kill(p->cp, NULL);
			group_signal(p->pid, SIGKILL);
			reap(p, 1);
		}
		close_fd(&p->out_fd);
		close_fd(&p->err_fd);
	}
	buf_release(&p->out);
	buf_release(&p->err);
	p->pid = 0;
	p->cp = NULL;
}

int proc_kill_stale_group(pid_t pgid, const char *exe_basename)
{
	if (pgid <= 1 || pgid == getpgrp() || !exe_basename || !*exe_basename)
		return 0;
	if (kill(-pgid, 0) < 0 && errno == ESRCH)
		return 0;
	if (group_scan(pgid, exe_basename) <= 0)
		return 0;
	log_info("killing stale process group %d (%s)", (int)pgid, exe_basename);
	group_signal(pgid, SIGTERM);
	group_signal(pgid, SIGCONT);
	if (!group_wait(NULL, pgid, 2.0)) {
		group_signal(pgid, SIGKILL);
		group_wait(NULL, pgid, PROC_KILL_WAIT_S);
	}
	return 1;
}
