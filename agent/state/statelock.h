/* statelock.h -- one agent per state directory: an exclusive lock on STATE_DIR/lock, taken
 * before anything in the directory is read or written. */
#ifndef FT_STATELOCK_H
#define FT_STATELOCK_H

#include <stdbool.h>
#include <sys/types.h>

#include "err.h"

/* A taken lock: the open lock file (flock LOCK_EX on it, O_CLOEXEC). Zeroed: not taken. */
struct statelock {
	int fd;
	bool taken;
};

/*
 * Take the lock of the state directory dir (it must exist): open, making it 0600, dir/lock (a
 * link or anything but a plain file of the agent's user is refused), flock it exclusively
 * without waiting, and write our pid in it. The lock lasts as long as the descriptor: it goes
 * with statelock_release() or with the process, whatever kills it (and only once every thread
 * of a killed agent is gone, so a write still in the kernel when the agent was killed has
 * landed before a new agent may start). -EBUSY "state_dir_in_use" naming dir and the pid
 * written in the lock by the agent that holds it when another process holds it; -errno
 * "internal" when the file cannot be opened or locked.
 */
int statelock_take(struct statelock *l, const char *dir, struct err *e);
/* The pid the holder of dir's lock wrote in it, or 0 if it cannot be read. */
pid_t statelock_holder(const char *dir);
/* Drop the lock (close the file; it stays, with the last holder's pid). NULL, zeroed or not
 * taken is fine. */
void statelock_release(struct statelock *l);

#endif
