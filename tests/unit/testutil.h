/* testutil.h -- helpers for cmocka unit tests: temp dirs, fake sysfs trees, files. */
#ifndef FT_TESTUTIL_H
#define FT_TESTUTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

/* Make a fresh temp directory; returns a heap path. Caller frees (after tu_rmrf). */
char *tu_tmpdir(void);
/* rm -rf path. */
void tu_rmrf(const char *path);
/* Write content to root/relpath, creating parent directories, with mode. */
void tu_write(const char *root, const char *relpath, const char *content, int mode);
/* A symlink root/rel -> target (its parent directory made first). */
void tu_link(const char *root, const char *rel, const char *target);
/* Read root/relpath into a static buffer (trailing newline kept). */
const char *tu_read(const char *root, const char *relpath);
/* Read a fixture file (FT_FIXTURES/name or an absolute path); caller frees. */
char *tu_slurp(const char *path, size_t *len);

/* The state letter of process pid in /proc/PID/stat ('R', 'S', 'Z', ...), 0 when it is gone. */
char tu_proc_state(int pid);

/* In a LeakSanitizer build, 1 if memory has leaked so far (LSan prints where it was allocated);
 * 0 otherwise and in builds without LSan. The process goes on either way. */
int tu_leaked(void);

/*
 * Build a fake sysfs tree under root for device dev, shaped like a loop
 * device on Linux 6.x with mq-deadline active: queue/{scheduler,nr_requests,
 * read_ahead_kb,max_sectors_kb,max_hw_sectors_kb,rq_affinity,nomerges,
 * rotational,logical_block_size,...}, iosched/{fifo_batch,read_expire,...},
 * size, and with_queue_depth adds device/queue_depth.
 */
void tu_fake_device(const char *root, const char *dev, int with_queue_depth);

#endif
