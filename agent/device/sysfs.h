/* sysfs.h -- the only module that touches /sys and /proc/sys: block-device
 * parameter catalogue, validation, and write with read-back. */
#ifndef FT_SYSFS_H
#define FT_SYSFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "device/catalogue.h"
#include "err.h"

#define SYSFS_NAME_MAX 64
#define SYSFS_VALUE_MAX 256
#define SYSFS_CHOICES_MAX 16

/* Where the outside world is: everything is read below `root` ("/" in
 * production, a temp tree in tests), and only allowlisted devices are
 * writable. The strings are borrowed, not owned. */
struct sysfs_cache;
struct sysfs {
	const char *root;
	const char *const *allow_devices;
	int n_allow_devices;
	bool allow_sysctl;
	struct sysfs_cache *cache; /* NULL: a parameter read opens every file every time */
};

/*
 * What does not change, kept: the parameter list of each --allow-device device, per medium
 * (its diskseq) and active scheduler, with the values of its read-only files (hw_sector_size,
 * max_hw_sectors_kb, ...). A read then opens diskseq, the scheduler and the writable files
 * only (17 of 48 queue files on a loop device, the iosched files, queue_depth). A device
 * without diskseq (kernels before 5.15, test trees) is read whole every time. Thread-safe;
 * free with sysfs_cache_free (NULL is fine).
 */
struct sysfs_cache *sysfs_cache_new(void);
void sysfs_cache_free(struct sysfs_cache *c);

struct param {
	char name[SYSFS_NAME_MAX]; /* "nr_requests", "iosched.fifo_batch", "queue_depth", "setra" */
	enum param_kind kind;
	char value[SYSFS_VALUE_MAX]; /* as the kernel prints it, trimmed; scheduler: the active one
	                              */
	bool writable;               /* the file takes writes and the device is allowlisted */
	bool has_min, has_max;
	int64_t min, max;
	const char
	        *unit; /* static string or NULL: "KiB", "sectors", "requests", "us", "ms", "ns" */
	int n_choices;
	char choices[SYSFS_CHOICES_MAX][32];
};

/* A list of parameters; free with sysfs_params_release. */
struct params {
	int n;
	struct param *p;
};

struct device_info {
	char name[SYSFS_NAME_MAX];
	uint64_t size_bytes;
	bool rotational;
	char scheduler[32];
	bool writable; /* allowlisted */
};

/* True if dev is a syntactically safe device name: non-empty, at most 63
 * bytes of [A-Za-z0-9_.:-], not "." or "..", no '/'. Checked before any
 * path is built. */
bool sysfs_device_name_ok(const char *dev);
/* 0 if dev names an entry of ROOT/sys/block, else -ENOENT ("not_found") or
 * -EINVAL ("bad_request") with err filled. */
int sysfs_device_check(const struct sysfs *fs, const char *dev, struct err *e);
bool sysfs_device_allowed(const struct sysfs *fs, const char *dev);
/* The size of dev in bytes (ROOT/sys/block/DEV/size x 512); -errno if it cannot be read. */
int sysfs_device_size(const struct sysfs *fs, const char *dev, uint64_t *bytes);
/* All block devices under ROOT/sys/block, sorted by name. Caller frees
 * *out. */
int sysfs_devices_list(const struct sysfs *fs, struct device_info **out, int *n, struct err *e);

/* True (with why filled) if dev or one of its partitions is mounted, used
 * as swap, held by another device (LVM, dm, md), or the backing file of a
 * loop device (losetup /dev/DEV: the loop device may be mounted, and shows
 * neither as a holder nor in an exclusive open): raw I/O would destroy
 * data. Reads ROOT/proc/self/mounts, ROOT/proc/swaps and holders/, tries an
 * exclusive open of ROOT/dev/DEV (EBUSY while mounted, even in a mount
 * namespace that does not show the mount), and reads every
 * ROOT/sys/block/X/loop/backing_file (by name, or a device node whose
 * number is dev's or a partition's); why then says what uses the loop
 * device in turn, followed up to 8 loop devices deep. */
bool sysfs_device_in_use(const struct sysfs *fs, const char *dev, char *why, size_t why_len);

/* Every parameter of dev: queue/ files, iosched.* of the active scheduler,
 * queue_depth where device/queue_depth exists, and the virtual setra. */
int sysfs_params_read(const struct sysfs *fs, const char *dev, struct params *out, struct err *e);
void sysfs_params_release(struct params *ps);
/* Find a parameter by name in a list, or NULL. */
const struct param *sysfs_params_find(const struct params *ps, const char *name);
/* The most requests the kernel takes in nr_requests under scheduler (the active one, or one a
 * request switches to): without an I/O scheduler ("none") the device's tag depth (the
 * smallest ROOT/sys/block/DEV/mq/N/nr_tags), with one SYSFS_SCHED_RQ_MAX (the kernel's
 * MAX_SCHED_RQ, 16 x 128). -ENOENT when dev shows no tags (not blk-mq): no bound known. The
 * bound is nr_requests' max in every read (so a PATCH, a job's params and a profile are all
 * refused alike, owned device or not), and a scheduler switch's in validation. */
#define SYSFS_SCHED_RQ_MAX 2048
int sysfs_nr_requests_max(const struct sysfs *fs, const char *dev, const char *scheduler,
                          int64_t *max);
/* One parameter; -ENOENT with code "unknown_param" if dev has no such name. */
int sysfs_param_read(const struct sysfs *fs, const char *dev, const char *name, struct param *out,
                     struct err *e);

/*
 * Validate `requested` for p and write its canonical form into canon:
 * integers must be plain decimal and within min/max, enums one of choices,
 * schedulers one of the bracketed list with the legacy aliases noop->none
 * and deadline->mq-deadline (*aliased set when mapped). Returns 0 or
 * -EINVAL with code "invalid_value"; -EPERM "read_only" if not writable.
 */
int sysfs_param_check(const struct param *p, const char *requested, char *canon, size_t canon_len,
                      bool *aliased, struct err *e);

/* Write canon to the parameter's file (open/write/close, errno checked)
 * and read it back into applied. No validation: call sysfs_param_check
 * first. A kernel rejection returns -errno with code "kernel_rejected". */
int sysfs_param_write(const struct sysfs *fs, const char *dev, const char *name, const char *canon,
                      char *applied, size_t applied_len, struct err *e);

/* True if two values of the same parameter mean the same thing (numeric
 * compare for integers, exact otherwise). */
bool sysfs_value_equal(const char *a, const char *b);

/* True if name could be a parameter ([a-z0-9_.-], at most one '.', only after "iosched"): the
 * check every name passes before a path is built. */
bool sysfs_param_name_ok(const char *name);

/* A block device as a scan of ROOT/sys/block sees it, to tell when one appears. */
struct block_seen {
	char name[SYSFS_NAME_MAX];
	uint64_t size_bytes; /* 0: no medium (an unattached loop device) */
	uint64_t seq;        /* the kernel's diskseq: a new value for every new medium */
	bool has_seq;        /* kernels before 5.15 have no diskseq */
};

/* Every entry of ROOT/sys/block with its size and diskseq, sorted by name. Caller frees *out. */
int sysfs_block_scan(const struct sysfs *fs, struct block_seen **out, int *n, struct err *e);
/* The same, reading the size and diskseq of the --allow-device devices only (two files each):
 * every other entry is as prev[0..nprev) had it (a name prev lacks: size 0, no diskseq). What
 * a periodic scan may read. Caller frees *out. */
int sysfs_block_scan_allowed(const struct sysfs *fs, const struct block_seen *prev, int nprev,
                             struct block_seen **out, int *n, struct err *e);

/* The sysctls fleettune knows (vm.dirty_ratio ...), read below ROOT/proc/sys. */
int sysfs_sysctls_read(const struct sysfs *fs, struct params *out, struct err *e);
int sysfs_sysctl_read(const struct sysfs *fs, const char *name, struct param *out, struct err *e);
/* Validate and write a sysctl; -EPERM "forbidden" unless allow_sysctl. */
int sysfs_sysctl_write(const struct sysfs *fs, const char *name, const char *canon, char *applied,
                       size_t applied_len, struct err *e);

#endif
