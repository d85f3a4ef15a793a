/* testutil.c -- temp trees and files for unit tests. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TU_LSAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define TU_LSAN 1
#endif
#ifdef TU_LSAN
#include <sanitizer/lsan_interface.h>
#endif

int tu_leaked(void)
{
#ifdef TU_LSAN
	return __lsan_do_recoverable_leak_check() != 0;
#else
	return 0;
#endif
}

char *tu_tmpdir(void)
{
	char tmpl[] = "/tmp/ft-unit-XXXXXX";
	char *p = mkdtemp(tmpl);

	assert_non_null(p);
	return strdup(p);
}

static int rm_cb(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

void tu_rmrf(const char *path)
{
	if (path && strncmp(path, "/tmp/ft-", 8) == 0)
		nftw(path, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
}

static void mkdirs(const char *path)
{
	char tmp[PATH_MAX];
	char *p;

	snprintf(tmp, sizeof(tmp), "%s", path);
	for (p = tmp + 1; *p; p++) {
		if (*p == '/') {
			*p = '\0';
			mkdir(tmp, 0755);
			*p = '/';
		}
	}
	mkdir(tmp, 0755);
}

void tu_write(const char *root, const char *relpath, const char *content, int mode)
{
	char path[PATH_MAX], dir[PATH_MAX];
	char *slash;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, relpath);
	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (slash) {
		*slash = '\0';
		mkdirs(dir);
	}
	chmod(path, 0644);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(content, f);
	fclose(f);
	chmod(path, (mode_t)mode);
}

const char *tu_read(const char *root, const char *relpath)
{
	static char out[4096];
	char path[PATH_MAX];
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, relpath);
	f = fopen(path, "r");
	if (!f)
		return NULL;
	n = fread(out, 1, sizeof(out) - 1, f);
	out[n] = '\0';
	fclose(f);
	return out;
}

char tu_proc_state(int pid)
{
	char path[64], line[512], *paren;
	FILE *in;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	in = fopen(path, "r");
	if (!in)
		return 0;
	paren = fgets(line, sizeof(line), in) ? strrchr(line, ')') : NULL;
	fclose(in);
	return paren && paren[1] == ' ' ? paren[2] : 0;
}

char *tu_slurp(const char *path, size_t *len)
{
	char full[PATH_MAX];
	char *data;
	long sz;
	FILE *f;

	if (path[0] == '/')
		snprintf(full, sizeof(full), "%s", path);
	else
		snprintf(full, sizeof(full), "%s/%s", FT_FIXTURES, path);
	f = fopen(full, "rb");
	if (!f)
		fail_msg("cannot open fixture %s", full);
	fseek(f, 0, SEEK_END);
	sz = ftell(f);
	fseek(f, 0, SEEK_SET);
	data = malloc((size_t)sz + 1);
	assert_non_null(data);
	if (fread(data, 1, (size_t)sz, f) != (size_t)sz)
		fail_msg("short read on %s", full);
	data[sz] = '\0';
	fclose(f);
	if (len)
		*len = (size_t)sz;
	return data;
}

void tu_fake_device(const char *root, const char *dev, int with_queue_depth)
{
	static const struct {
		const char *name, *value;
		int mode;
	} q[] = {
		{ "scheduler", "none [mq-deadline] kyber bfq\n", 0644 },
		{ "nr_requests", "64\n", 0644 },
		{ "read_ahead_kb", "128\n", 0644 },
		{ "max_sectors_kb", "1280\n", 0644 },
		{ "max_hw_sectors_kb", "32767\n", 0444 },
		{ "rq_affinity", "1\n", 0644 },
		{ "nomerges", "0\n", 0644 },
		{ "rotational", "0\n", 0644 },
		{ "add_random", "0\n", 0644 },
		{ "iostats", "1\n", 0644 },
		{ "logical_block_size", "512\n", 0444 },
		{ "hw_sector_size", "512\n", 0444 },
		{ "wbt_lat_usec", "2000\n", 0644 },
		{ "write_cache", "write back\n", 0644 },
		{ "io_poll", "0\n", 0644 },
		{ "zoned", "none\n", 0444 },
	};
	static const struct {
		const char *name, *value;
	} io[] = {
		{ "fifo_batch", "16\n" },           { "read_expire", "500\n" },
		{ "write_expire", "5000\n" },       { "writes_starved", "2\n" },
		{ "front_merges", "1\n" },          { "async_depth", "48\n" },
		{ "prio_aging_expire", "10000\n" },
	};
	char rel[256];
	size_t i;

	snprintf(rel, sizeof(rel), "sys/block/%s/size", dev);
	tu_write(root, rel, "2097152\n", 0444);
	for (i = 0; i < sizeof(q) / sizeof(q[0]); i++) {
		snprintf(rel, sizeof(rel), "sys/block/%s/queue/%s", dev, q[i].name);
		tu_write(root, rel, q[i].value, q[i].mode);
	}
	for (i = 0; i < sizeof(io) / sizeof(io[0]); i++) {
		snprintf(rel, sizeof(rel), "sys/block/%s/queue/iosched/%s", dev, io[i].name);
		tu_write(root, rel, io[i].value, 0644);
	}
	if (with_queue_depth) {
		snprintf(rel, sizeof(rel), "sys/block/%s/device/queue_depth", dev);
		tu_write(root, rel, "256\n", 0644);
	}
}

/* A symlink root/rel -> target (the parent directory made first). */
void tu_link(const char *root, const char *rel, const char *target)
{
	char path[PATH_MAX], dir[PATH_MAX], *slash;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	snprintf(dir, sizeof(dir), "%s", rel);
	slash = strrchr(dir, '/');
	if (slash) {
		*slash = '\0';
		snprintf(slash, sizeof(dir) - (size_t)(slash - dir), "/.keep");
		tu_write(root, dir, "", 0644);
	}
	assert_int_equal(symlink(target, path), 0);
}
