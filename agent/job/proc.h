/* proc.h -- child processes in their own process group: spawn, capture, poll, terminate; with
 * a job's containment (contain.h) also everything they start, setsid() or not. */
#ifndef FT_PROC_H
#define FT_PROC_H

#include <sys/types.h>

#include "buf.h"
#include "err.h"

/* Each captured stream keeps at most this much; later output is read and dropped so the
 * child never blocks on a full pipe. */
#define PROC_OUT_MAX (64u << 20)

/*
 * One child. Not thread-safe: one thread owns a struct proc. The child runs with
 * stdin=/dev/null, stdout/stderr on pipes, LC_ALL=C (so dd and friends print numbers
 * the parsers understand), default signal dispositions, and no other inherited fd.
 */
struct contain_pass;

struct proc {
	pid_t pid;               /* also the process group id; 0 when nothing was spawned */
	struct contain_pass *cp; /* the containment it was spawned into, or NULL (borrowed) */
	int out_fd, err_fd;      /* -1 once drained to EOF (or given up on) */
	struct buf out, err;     /* captured stdout / stderr so far */
	int exited;              /* the leader has been reaped */
	int exit_code;           /* exit status, or -1 when killed by term_signal */
	int term_signal;         /* signal that killed the leader, else 0 */
	double exited_mono_s;    /* monotonic time of the reap, for the pipe drain deadline */
};

/* Start argv[0] (looked up on PATH by execvp) in cwd (NULL: the agent's). Returns 0, or
 * -errno with code "engine_failed" when the pipes, fork or exec fail ("cannot run 'fio': No
 * such file or directory"): exec failures are reported here, not as an exit status. On
 * failure nothing is left to release (proc_release() is still harmless). */
int proc_spawn(struct proc *p, char *const argv[], const char *cwd, struct err *e);
/* proc_spawn() into a job's containment cp (begun, borrowed until proc_release): the child
 * joins cp's cgroup, or is recorded with its start time, before it may exec, so it and every
 * process it starts can be killed. proc_poll() then records new descendants (/proc mode),
 * proc_terminate() and proc_release() kill through cp: SIGKILL reaches the setsid() workers
 * that left the group. "cannot run 'fio': cannot join its cgroup: ..." when joining fails. */
int proc_spawn_in(struct proc *p, char *const argv[], const char *cwd, struct contain_pass *cp,
                  struct err *e);
/* Wait up to timeout_ms for output or exit, drain the pipes, reap without blocking. Returns 1
 * when the leader has exited and its pipes are drained (EOF, or still held open 1 s after the
 * exit by an orphan; then they are closed), 0 while running, <0 -errno. Group members that
 * outlive the leader are not touched: proc_terminate() ends them. */
int proc_poll(struct proc *p, int timeout_ms);
/* proc_poll() that also returns (0, or 1 as above) as soon as bell_fd (non-blocking; -1: none)
 * is readable, emptied: a cancel or a stop rings it, and the caller looks at its flags. */
int proc_poll_bell(struct proc *p, int timeout_ms, int bell_fd);
/* SIGTERM (and SIGCONT) the whole group, wait up to grace_s for every member (and every
 * contained process) to go, then SIGKILL the group and the containment; reaps the leader and
 * drains its pipes. Also cleans up after a leader
 * that already exited: leftover members get the same treatment. Returns 0, or -errno if the
 * group could not be signalled. */
int proc_terminate(struct proc *p, double grace_s);
/* Close pipes and free buffers. A child still running is killed (SIGKILL to the group and the
 * containment) and reaped first, so nothing leaks. NULL, a zeroed struct, or a failed spawn are
 * fine. */
void proc_release(struct proc *p);
/* Kill a process group left by a crashed agent if it still exists and one of its live
 * members' /proc/PID/cmdline argv[0] basename matches exe_basename (argv[1] too, for a
 * script run by its interpreter, like tests/fixtures/fake-fio.sh). SIGTERM, 2 s grace,
 * SIGKILL. Returns 1 if it killed something, 0 if nothing was there. */
int proc_kill_stale_group(pid_t pgid, const char *exe_basename);
/* True while a member of process group pgid is alive (zombies do not count). */
int proc_group_alive(pid_t pgid);

#endif
