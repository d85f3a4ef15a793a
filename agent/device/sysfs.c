/* sysfs.c -- block-device parameters and sysctls: discovery, validation, write and read-back
 * (what is known of each parameter is sysfs_catalogue.c's). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "device/catalogue.h"
#include "device/sysfs.h"
#include "num.h"
#include "utf8.h"
#include "xmalloc.h"
#include "banned.h"

bool sysfs_device_name_ok(const char *dev)
{
	size_t n;
	const char *p;

	if (!dev || !*dev)
		return false;
	n = strlen(dev);
	if (n >= SYSFS_NAME_MAX || !strcmp(dev, ".") || !strcmp(dev, ".."))
		return false;
	for (p = dev; *p; p++) {
		char c = *p;

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '-' || c == ':' || c == '.'))
			return false;
	}
	return strstr(dev, "..") == NULL;
}

/* Parameter names are [a-z0-9_.-], at most one '.', which only "iosched." may use. */
static bool param_name_ok(const char *name)
{
	const char *p;

	if (!name || !*name || strlen(name) >= SYSFS_NAME_MAX || strstr(name, ".."))
		return false;
	for (p = name; *p; p++) {
		char c = *p;

		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
		      c == '.'))
			return false;
	}
	p = strchr(name, '.');
	if (p && (strncmp(name, "iosched.", 8) || strchr(p + 1, '.') || !p[1]))
		return false;
	return true;
}

static void path_join(char *out, size_t len, const char *root, const char *rel)
{
	size_t rl = strlen(root);

	if (rl && root[rl - 1] == '/')
		snprintf(out, len, "%s%s", root, rel);
	else
		snprintf(out, len, "%s/%s", root, rel);
}

/* Read a small attribute relative to dirfd (AT_FDCWD for a full path), strip the
 * trailing newline, and tell from the open file whether it takes writes. */
static int attr_read_at(int dirfd, const char *path, char *out, size_t len, bool *writable)
{
	struct stat st;
	ssize_t n;
	int fd, rc;

	fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (writable)
		*writable = fstat(fd, &st) == 0 && (st.st_mode & 0222) != 0;
	do
		n = read(fd, out, len - 1);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		rc = -errno;
		close(fd);
		return rc;
	}
	close(fd);
	out[n] = '\0';
	while (n > 0 && (out[n - 1] == '\n' || out[n - 1] == ' '))
		out[--n] = '\0';
	return 0;
}

static int attr_read(const char *path, char *out, size_t len)
{
	return attr_read_at(AT_FDCWD, path, out, len, NULL);
}

/* Write an attribute with one write(2), reporting the kernel's errno. */
static int attr_write(const char *path, const char *value)
{
	size_t len = strlen(value);
	ssize_t n;
	int fd, rc = 0;

	fd = open(path, O_WRONLY | O_TRUNC |
	                        O_CLOEXEC); /* O_TRUNC: no-op on sysfs, needed for test trees */
	if (fd < 0)
		return -errno;
	do
		n = write(fd, value, len);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		rc = -errno;
	else if ((size_t)n != len)
		rc = -EIO;
	if (close(fd) < 0 && !rc)
		rc = -errno;
	return rc;
}

bool sysfs_device_allowed(const struct sysfs *fs, const char *dev)
{
	int i;

	for (i = 0; i < fs->n_allow_devices; i++)
		if (!strcmp(fs->allow_devices[i], dev))
			return true;
	return false;
}

int sysfs_device_check(const struct sysfs *fs, const char *dev, struct err *e)
{
	char rel[PATH_MAX], path[PATH_MAX];
	struct stat st;

	if (!sysfs_device_name_ok(dev))
		return err_set(e, -EINVAL, ERR_BAD_REQUEST, "invalid device name '%.*s'",
		               utf8_cut(dev ? dev : "", 64), dev ? dev : "");
	snprintf(rel, sizeof(rel), "sys/block/%s", dev);
	path_join(path, sizeof(path), fs->root, rel);
	if (stat(path, &st) < 0 || !S_ISDIR(st.st_mode))
		return err_set(e, -ENOENT, ERR_NOT_FOUND, "no block device '%s'", dev);
	return 0;
}

static void device_path(const struct sysfs *fs, const char *dev, const char *tail, char *out,
                        size_t len)
{
	char rel[PATH_MAX];

	snprintf(rel, sizeof(rel), "sys/block/%s/%s", dev, tail);
	path_join(out, len, fs->root, rel);
}

int sysfs_device_size(const struct sysfs *fs, const char *dev, uint64_t *bytes)
{
	char path[PATH_MAX], val[32];
	int64_t v;
	int rc;

	*bytes = 0;
	if (!sysfs_device_name_ok(dev))
		return -EINVAL;
	device_path(fs, dev, "size", path, sizeof(path));
	rc = attr_read(path, val, sizeof(val));
	if (rc)
		return rc;
	if (num_parse_kernel_i64(val, &v) || v < 0)
		return -EINVAL;
	*bytes = (uint64_t)v * 512;
	return 0;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(((const struct device_info *)a)->name, ((const struct device_info *)b)->name);
}

int sysfs_devices_list(const struct sysfs *fs, struct device_info **out, int *n, struct err *e)
{
	struct device_info *list = NULL;
	char path[PATH_MAX], val[SYSFS_VALUE_MAX];
	struct dirent *de;
	int count = 0, cap = 0;
	DIR *d;

	path_join(path, sizeof(path), fs->root, "sys/block");
	d = opendir(path);
	if (!d)
		return err_set(e, -errno, ERR_INTERNAL, "cannot list '%s': %s", path,
		               strerror(errno));
	while ((de = readdir(d))) {
		struct device_info *di;
		int64_t v;
		char *open_br, *close_br;

		if (de->d_name[0] == '.' || !sysfs_device_name_ok(de->d_name))
			continue;
		list = xgrow(list, &cap, count + 1, sizeof(*list));
		di = &list[count++];
		memset(di, 0, sizeof(*di));
		snprintf(di->name, sizeof(di->name), "%s", de->d_name);
		device_path(fs, de->d_name, "size", path, sizeof(path));
		if (!attr_read(path, val, sizeof(val)) && !num_parse_kernel_i64(val, &v) && v >= 0)
			di->size_bytes = (uint64_t)v * 512;
		device_path(fs, de->d_name, "queue/rotational", path, sizeof(path));
		di->rotational = !attr_read(path, val, sizeof(val)) && !strcmp(val, "1");
		device_path(fs, de->d_name, "queue/scheduler", path, sizeof(path));
		if (!attr_read(path, val, sizeof(val))) {
			open_br = strchr(val, '[');
			close_br = open_br ? strchr(open_br, ']') : NULL;
			if (open_br && close_br) {
				*close_br = '\0';
				snprintf(di->scheduler, sizeof(di->scheduler), "%s", open_br + 1);
			} else {
				snprintf(di->scheduler, sizeof(di->scheduler), "%s", val);
			}
		}
		di->writable = sysfs_device_allowed(fs, de->d_name);
	}
	closedir(d);
	if (count)
		qsort(list, (size_t)count, sizeof(*list), name_cmp);
	*out = list;
	*n = count;
	return 0;
}

/* Does a mounts/swaps line's first field name dev or one of its partitions? */
static bool source_is_dev(const char *src, const char *dev)
{
	size_t dl = strlen(dev);
	const char *rest;

	if (strncmp(src, "/dev/", 5) || strncmp(src + 5, dev, dl))
		return false;
	rest = src + 5 + dl;
	if (*rest == '\0')
		return true;
	/* Partitions: sda1, but loop0p1 and nvme0n1p1 when the name ends in a digit. */
	if (dl && dev[dl - 1] >= '0' && dev[dl - 1] <= '9') {
		if (*rest++ != 'p')
			return false;
	}
	if (*rest < '0' || *rest > '9')
		return false;
	while (*rest >= '0' && *rest <= '9')
		rest++;
	return *rest == '\0';
}

static bool table_names_dev(const char *path, const char *dev, char *what, size_t len)
{
	char line[1024];
	bool found = false;
	FILE *f = fopen(path, "re");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		char *sp = strpbrk(line, " \t");

		if (sp)
			*sp = '\0';
		if (source_is_dev(line, dev)) {
			found = true;
			snprintf(what, len, "%s", line);
		}
	}
	fclose(f);
	return found;
}

/* How deep loop devices over loop devices are followed (losetup stacks them at will). */
#define IN_USE_DEPTH_MAX 8
#define DEVNUMS_MAX 64

/* The device numbers ("7:7") of dev and of its partitions, from ROOT/sys/block/DEV[/PART]/dev. */
static int devnums_read(const struct sysfs *fs, const char *dev, dev_t *out, int max)
{
	char path[PATH_MAX], val[32], tail[SYSFS_NAME_MAX * 2 + 16];
	unsigned int maj, min;
	struct dirent *de;
	int n = 0;
	DIR *d;

	device_path(fs, dev, "dev", path, sizeof(path));
	if (!attr_read(path, val, sizeof(val)) && sscanf(val, "%u:%u", &maj, &min) == 2)
		out[n++] = makedev(maj, min);
	device_path(fs, dev, "", path, sizeof(path));
	d = opendir(path);
	while (d && n < max && (de = readdir(d))) {
		if (de->d_name[0] == '.' || !sysfs_device_name_ok(de->d_name))
			continue;
		snprintf(tail, sizeof(tail), "%s/partition", de->d_name);
		device_path(fs, dev, tail, path, sizeof(path));
		if (access(path, F_OK))
			continue;
		snprintf(tail, sizeof(tail), "%s/dev", de->d_name);
		device_path(fs, dev, tail, path, sizeof(path));
		if (!attr_read(path, val, sizeof(val)) && sscanf(val, "%u:%u", &maj, &min) == 2)
			out[n++] = makedev(maj, min);
	}
	if (d)
		closedir(d);
	return n;
}

/* Whether a loop device's backing file (as ROOT/sys/block/LOOP/loop/backing_file names it)
 * is dev or one of its partitions: by name (/dev/DEV, /dev/DEVpN), or as a device node
 * elsewhere (/dev/disk/by-id/..., a node made by hand) whose number is one of nums. */
static bool backing_is_dev(const struct sysfs *fs, const char *backing, const char *dev,
                           const dev_t *nums, int n_nums)
{
	char path[PATH_MAX];
	struct stat st;
	int i;

	if (source_is_dev(backing, dev))
		return true;
	if (backing[0] != '/')
		return false;
	path_join(path, sizeof(path), fs->root, backing + 1);
	if (stat(path, &st) < 0 || !S_ISBLK(st.st_mode))
		return false;
	for (i = 0; i < n_nums; i++)
		if (st.st_rdev == nums[i])
			return true;
	return false;
}

static bool in_use(const struct sysfs *fs, const char *dev, char *why, size_t why_len, int depth);

/* A loop device whose backing file is dev (or a partition of it): dev's data is in use through
 * it, mounted or not. why says which, and what uses the loop device in turn (recursively). */
static bool loop_over(const struct sysfs *fs, const char *dev, char *why, size_t why_len, int depth)
{
	char path[PATH_MAX], backing[PATH_MAX], tail[SYSFS_NAME_MAX + 32], sub[256];
	dev_t nums[DEVNUMS_MAX];
	struct dirent *de;
	bool found = false;
	int n_nums;
	DIR *d;

	n_nums = devnums_read(fs, dev, nums, DEVNUMS_MAX);
	path_join(path, sizeof(path), fs->root, "sys/block");
	d = opendir(path);
	while (d && !found && (de = readdir(d))) {
		if (de->d_name[0] == '.' || !strcmp(de->d_name, dev) ||
		    !sysfs_device_name_ok(de->d_name))
			continue;
		snprintf(tail, sizeof(tail), "loop/backing_file");
		device_path(fs, de->d_name, tail, path, sizeof(path));
		if (attr_read(path, backing, sizeof(backing)) ||
		    !backing_is_dev(fs, backing, dev, nums, n_nums))
			continue;
		found = true;
		if (depth < IN_USE_DEPTH_MAX && in_use(fs, de->d_name, sub, sizeof(sub), depth + 1))
			snprintf(why, why_len, "%s is the backing file of loop device %s, and %s",
			         backing, de->d_name, sub);
		else
			snprintf(why, why_len,
			         "%s is the backing file of loop device %s ('losetup -d /dev/%s' "
			         "frees it)",
			         backing, de->d_name, de->d_name);
	}
	if (d)
		closedir(d);
	return found;
}

static bool in_use(const struct sysfs *fs, const char *dev, char *why, size_t why_len, int depth)
{
	char path[PATH_MAX], what[256];
	struct dirent *de;
	DIR *d;
	int fd;

	path_join(path, sizeof(path), fs->root, "proc/self/mounts");
	if (table_names_dev(path, dev, what, sizeof(what))) {
		snprintf(why, why_len, "%s is mounted", what);
		return true;
	}
	path_join(path, sizeof(path), fs->root, "proc/swaps");
	if (table_names_dev(path, dev, what, sizeof(what))) {
		snprintf(why, why_len, "%s is in use as swap", what);
		return true;
	}
	/* The kernel's own answer, whatever mount namespace we are in (a container
	 * sees only its own mounts): an exclusive open fails while the device is
	 * mounted or claimed by md, dm or another exclusive opener. */
	snprintf(what, sizeof(what), "dev/%s", dev);
	path_join(path, sizeof(path), fs->root, what);
	fd = open(path, O_RDONLY | O_EXCL | O_CLOEXEC | O_NONBLOCK);
	if (fd >= 0) {
		close(fd);
	} else if (errno == EBUSY) {
		snprintf(why, why_len,
		         "/dev/%s is busy (mounted, here or in another mount namespace, or claimed "
		         "exclusively)",
		         dev);
		return true;
	}
	device_path(fs, dev, "holders", path, sizeof(path));
	d = opendir(path);
	if (d) {
		while ((de = readdir(d))) {
			if (de->d_name[0] == '.')
				continue;
			snprintf(why, why_len, "%s is held by %s (LVM, dm or md)", dev, de->d_name);
			closedir(d);
			return true;
		}
		closedir(d);
	}
	/* A loop device over it holds it open without O_EXCL and shows no holder: the
	 * kernel's answers above all miss it. */
	return loop_over(fs, dev, why, why_len, depth);
}

bool sysfs_device_in_use(const struct sysfs *fs, const char *dev, char *why, size_t why_len)
{
	return in_use(fs, dev, why, why_len, 0);
}

static void choices_split(struct param *p, const char *list, char sep)
{
	const char *s = list;

	p->n_choices = 0;
	while (*s && p->n_choices < SYSFS_CHOICES_MAX) {
		const char *end = strchr(s, sep);
		size_t len = end ? (size_t)(end - s) : strlen(s);

		if (len && len < sizeof(p->choices[0])) {
			memcpy(p->choices[p->n_choices], s, len);
			p->choices[p->n_choices][len] = '\0';
			p->n_choices++;
		}
		if (!end)
			break;
		s = end + 1;
	}
}

/* "none [mq-deadline] kyber bfq" -> choices, active value. */
static void sched_parse(struct param *p, const char *raw)
{
	char buf[SYSFS_VALUE_MAX], *tok, *save = NULL;

	snprintf(buf, sizeof(buf), "%s", raw);
	p->n_choices = 0;
	p->value[0] = '\0';
	for (tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		size_t len = strlen(tok);
		bool active = tok[0] == '[' && tok[len - 1] == ']';

		if (active) {
			tok[len - 1] = '\0';
			tok++;
		}
		if (active || !p->value[0])
			snprintf(p->value, sizeof(p->value), "%s", tok);
		if (p->n_choices < SYSFS_CHOICES_MAX)
			snprintf(p->choices[p->n_choices++], sizeof(p->choices[0]), "%s", tok);
	}
}

/*
 * Map a parameter name to its file: queue/NAME, queue/iosched/ATTR,
 * device/queue_depth; setra is virtual over queue/read_ahead_kb.
 */
static void param_path(const struct sysfs *fs, const char *dev, const char *name, char *out,
                       size_t len)
{
	char tail[SYSFS_NAME_MAX + 32];

	if (!strcmp(name, "queue_depth"))
		snprintf(tail, sizeof(tail), "device/queue_depth");
	else if (!strcmp(name, "setra"))
		snprintf(tail, sizeof(tail), "queue/read_ahead_kb");
	else if (!strncmp(name, "iosched.", 8))
		snprintf(tail, sizeof(tail), "queue/iosched/%s", name + 8);
	else
		snprintf(tail, sizeof(tail), "queue/%s", name);
	device_path(fs, dev, tail, out, len);
}

/* Bounds a parameter takes from a sibling file (max_sectors_kb <= max_hw_sectors_kb). */
static void param_set_max(struct param *p, const char *maxval)
{
	int64_t v;

	if (maxval && !num_parse_kernel_i64(maxval, &v)) {
		p->has_max = true;
		p->max = v;
	}
}

/* Fill p from what the kernel printed (raw); no I/O. */
static void param_from_raw(const struct sysfs *fs, const char *dev, const char *name,
                           const char *raw, bool file_writable, struct param *p)
{
	const struct param_meta *m = catalogue_queue_find(name);
	int64_t v;

	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "%s", name);
	p->writable = file_writable && sysfs_device_allowed(fs, dev);
	if (m) {
		p->kind = m->kind;
		p->unit = m->unit;
		p->has_min = m->has_min;
		p->min = m->min;
		p->has_max = m->has_max;
		p->max = m->max;
		if (m->choices)
			choices_split(p, m->choices, '|');
	} else if (!strncmp(name, "iosched.", 8)) {
		p->kind = PARAM_INT;
		p->unit = catalogue_iosched_unit(name + 8);
	} else {
		p->kind = num_parse_kernel_i64(raw, &v) == 0 ? PARAM_INT : PARAM_TEXT;
	}
	if (p->kind == PARAM_SCHED)
		sched_parse(p, raw);
	else if (!strcmp(name, "setra") && !num_parse_kernel_i64(raw, &v))
		snprintf(p->value, sizeof(p->value), "%lld", (long long)v * 2);
	else
		snprintf(p->value, sizeof(p->value), "%s", raw);
	if (p->kind == PARAM_INT && num_parse_kernel_i64(p->value, &v))
		p->kind = PARAM_TEXT; /* e.g. a file that prints "none" */
}

/* Read one parameter by name from its file; returns -errno if it can't be read. */
int sysfs_nr_requests_max(const struct sysfs *fs, const char *dev, const char *scheduler,
                          int64_t *max)
{
	char path[PATH_MAX], val[32], tail[SYSFS_NAME_MAX + 32];
	struct dirent *de;
	int64_t v, lowest = -1;
	DIR *d;

	device_path(fs, dev, "mq", path, sizeof(path));
	d = opendir(path);
	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.' || !sysfs_device_name_ok(de->d_name))
			continue;
		snprintf(tail, sizeof(tail), "mq/%s/nr_tags", de->d_name);
		device_path(fs, dev, tail, path, sizeof(path));
		if (!attr_read(path, val, sizeof(val)) && !num_parse_kernel_i64(val, &v) && v > 0 &&
		    (lowest < 0 || v < lowest))
			lowest = v;
	}
	if (d)
		closedir(d);
	if (lowest < 0)
		return -ENOENT; /* not a blk-mq device, or its tags are not shown */
	*max = !strcmp(scheduler, "none") ? lowest : SYSFS_SCHED_RQ_MAX;
	return 0;
}

/* nr_requests' bound under the active scheduler (sysfs_nr_requests_max), into p. */
static void nr_requests_bound(const struct sysfs *fs, const char *dev, struct param *p)
{
	char path[PATH_MAX], raw[SYSFS_VALUE_MAX];
	struct param sched;
	int64_t max;

	device_path(fs, dev, "queue/scheduler", path, sizeof(path));
	if (attr_read(path, raw, sizeof(raw)))
		return;
	memset(&sched, 0, sizeof(sched));
	sched_parse(&sched, raw);
	if (sysfs_nr_requests_max(fs, dev, sched.value, &max) == 0) {
		p->has_max = true;
		p->max = max;
	}
}

static int param_load(const struct sysfs *fs, const char *dev, const char *name, struct param *p)
{
	char path[PATH_MAX], raw[SYSFS_VALUE_MAX], maxval[64];
	const struct param_meta *m = catalogue_queue_find(name);
	bool writable;
	int rc;

	param_path(fs, dev, name, path, sizeof(path));
	rc = attr_read_at(AT_FDCWD, path, raw, sizeof(raw), &writable);
	if (rc)
		return rc;
	param_from_raw(fs, dev, name, raw, writable, p);
	if (m && m->max_from) {
		char tail[SYSFS_NAME_MAX + 8];

		snprintf(tail, sizeof(tail), "queue/%s", m->max_from);
		device_path(fs, dev, tail, path, sizeof(path));
		if (!attr_read(path, maxval, sizeof(maxval)))
			param_set_max(p, maxval);
	}
	if (!strcmp(name, "nr_requests"))
		nr_requests_bound(fs, dev, p);
	return 0;
}

static int param_cmp(const void *a, const void *b)
{
	return strcmp(((const struct param *)a)->name, ((const struct param *)b)->name);
}

static void params_push(struct params *ps, int *cap, const struct param *p)
{
	ps->p = xgrow(ps->p, cap, ps->n + 1, sizeof(*ps->p));
	ps->p[ps->n++] = *p;
}

/* Add every readable regular file of dir as prefix+name, reading each
 * relative to the directory's fd (one path walk per directory, not per file). */
static void params_scan_dir(const struct sysfs *fs, const char *dev, const char *dir,
                            const char *prefix, struct params *ps, int *cap)
{
	char path[PATH_MAX], name[SYSFS_NAME_MAX + 16], raw[SYSFS_VALUE_MAX];
	struct dirent *de;
	struct param p;
	bool writable = false;
	DIR *d;

	device_path(fs, dev, dir, path, sizeof(path));
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || de->d_type == DT_DIR)
			continue;
		if (de->d_type != DT_REG && de->d_type != DT_UNKNOWN && de->d_type != DT_LNK)
			continue;
		snprintf(name, sizeof(name), "%s%s", prefix, de->d_name);
		if (!param_name_ok(name))
			continue;
		if (attr_read_at(dirfd(d), de->d_name, raw, sizeof(raw), &writable))
			continue;
		param_from_raw(fs, dev, name, raw, writable, &p);
		params_push(ps, cap, &p);
	}
	closedir(d);
}

/* ---- the cache of what does not change ---- */

#define CACHE_SLOTS 64

/* One device's parameters as last read in full, for its medium and scheduler. */
struct cache_slot {
	char dev[SYSFS_NAME_MAX];
	uint64_t seq;                /* its diskseq */
	char sched[SYSFS_VALUE_MAX]; /* its scheduler file, as read */
	struct params ps; /* queue/, iosched.* and queue_depth, before setra and bounds */
};

struct sysfs_cache {
	pthread_mutex_t lock;
	struct cache_slot slot[CACHE_SLOTS];
	int next; /* the slot a new device takes when all are used (round-robin) */
};

struct sysfs_cache *sysfs_cache_new(void)
{
	struct sysfs_cache *c = xcalloc(1, sizeof(*c));

	pthread_mutex_init(&c->lock, NULL);
	return c;
}

void sysfs_cache_free(struct sysfs_cache *c)
{
	int i;

	if (!c)
		return;
	for (i = 0; i < CACHE_SLOTS; i++)
		free(c->slot[i].ps.p);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

/* What a cached list is kept for: dev's diskseq and scheduler file; false when dev has no
 * diskseq (its medium cannot be told apart: no caching) or is not allowlisted. */
static bool cache_key(const struct sysfs *fs, const char *dev, uint64_t *seq, char *sched,
                      size_t len)
{
	char path[PATH_MAX], val[64];
	int64_t v;

	if (!fs->cache || !sysfs_device_allowed(fs, dev))
		return false;
	device_path(fs, dev, "diskseq", path, sizeof(path));
	if (attr_read(path, val, sizeof(val)) || num_parse_kernel_i64(val, &v) || v < 0)
		return false;
	*seq = (uint64_t)v;
	device_path(fs, dev, "queue/scheduler", path, sizeof(path));
	if (attr_read(path, sched, len))
		sched[0] = '\0';
	return true;
}

static void params_copy(struct params *to, const struct params *from)
{
	to->n = from->n;
	to->p = xcalloc((size_t)from->n + 1, sizeof(*to->p));
	if (from->n)
		memcpy(to->p, from->p, (size_t)from->n * sizeof(*to->p));
}

/* dev's list from the cache for (seq, sched), its writable files read again (the scheduler's
 * from sched); false on a miss. */
static bool cache_get(const struct sysfs *fs, const char *dev, uint64_t seq, const char *sched,
                      struct params *out)
{
	struct sysfs_cache *c = fs->cache;
	char path[PATH_MAX], raw[SYSFS_VALUE_MAX];
	bool hit = false, writable;
	int i;

	pthread_mutex_lock(&c->lock);
	for (i = 0; i < CACHE_SLOTS && !hit; i++) {
		const struct cache_slot *sl = &c->slot[i];

		if (sl->ps.p && sl->seq == seq && !strcmp(sl->dev, dev) &&
		    !strcmp(sl->sched, sched)) {
			params_copy(out, &sl->ps);
			hit = true;
		}
	}
	pthread_mutex_unlock(&c->lock);
	for (i = 0; hit && i < out->n; i++) {
		struct param *p = &out->p[i];
		char name[SYSFS_NAME_MAX];

		if (!p->writable)
			continue;
		snprintf(name, sizeof(name), "%s", p->name); /* param_from_raw clears p first */
		if (!strcmp(name, "scheduler")) {
			param_from_raw(fs, dev, name, sched, true, p);
			continue;
		}
		param_path(fs, dev, name, path, sizeof(path));
		if (attr_read_at(AT_FDCWD, path, raw, sizeof(raw), &writable) == 0)
			param_from_raw(fs, dev, name, raw, writable, p);
	}
	return hit;
}

/* Keep a copy of dev's list read in full, for (seq, sched). */
static void cache_put(const struct sysfs *fs, const char *dev, uint64_t seq, const char *sched,
                      const struct params *ps)
{
	struct sysfs_cache *c = fs->cache;
	struct cache_slot *sl = NULL;
	int i;

	pthread_mutex_lock(&c->lock);
	for (i = 0; i < CACHE_SLOTS && !sl; i++)
		if (c->slot[i].ps.p && !strcmp(c->slot[i].dev, dev))
			sl = &c->slot[i];
	for (i = 0; i < CACHE_SLOTS && !sl; i++)
		if (!c->slot[i].ps.p)
			sl = &c->slot[i];
	if (!sl) {
		sl = &c->slot[c->next];
		c->next = (c->next + 1) % CACHE_SLOTS;
	}
	free(sl->ps.p);
	snprintf(sl->dev, sizeof(sl->dev), "%s", dev);
	sl->seq = seq;
	snprintf(sl->sched, sizeof(sl->sched), "%s", sched);
	params_copy(&sl->ps, ps);
	pthread_mutex_unlock(&c->lock);
}

int sysfs_params_read(const struct sysfs *fs, const char *dev, struct params *out, struct err *e)
{
	char sched[SYSFS_VALUE_MAX];
	const struct param *ra;
	struct param p;
	int cap = 0, rc, i;
	uint64_t seq = 0;
	bool keyed;
	size_t k;

	out->n = 0;
	out->p = NULL;
	rc = sysfs_device_check(fs, dev, e);
	if (rc)
		return rc;
	keyed = cache_key(fs, dev, &seq, sched, sizeof(sched));
	if (!keyed || !cache_get(fs, dev, seq, sched, out)) {
		params_scan_dir(fs, dev, "queue", "", out, &cap);
		params_scan_dir(fs, dev, "queue/iosched", "iosched.", out, &cap);
		if (param_load(fs, dev, "queue_depth", &p) == 0)
			params_push(out, &cap, &p);
		if (keyed)
			cache_put(fs, dev, seq, sched, out);
	}
	/* setra mirrors read_ahead_kb, and bounds come from siblings: no extra reads. */
	ra = sysfs_params_find(out, "read_ahead_kb");
	if (ra) {
		param_from_raw(fs, dev, "setra", ra->value, ra->writable, &p);
		p.writable = ra->writable;
		params_push(out, &cap, &p);
	}
	for (k = 0; k < catalogue_queue_n; k++) {
		const struct param *mx;
		struct param *target = NULL;

		if (!catalogue_queue[k].max_from)
			continue;
		for (i = 0; i < out->n; i++)
			if (!strcmp(out->p[i].name, catalogue_queue[k].name))
				target = &out->p[i];
		mx = sysfs_params_find(out, catalogue_queue[k].max_from);
		if (target && mx)
			param_set_max(target, mx->value);
	}
	for (i = 0; i < out->n; i++)
		if (!strcmp(out->p[i].name, "nr_requests"))
			nr_requests_bound(fs, dev, &out->p[i]);
	if (out->n)
		qsort(out->p, (size_t)out->n, sizeof(*out->p), param_cmp);
	return 0;
}

void sysfs_params_release(struct params *ps)
{
	if (!ps)
		return;
	free(ps->p);
	ps->p = NULL;
	ps->n = 0;
}

const struct param *sysfs_params_find(const struct params *ps, const char *name)
{
	int i;

	for (i = 0; i < ps->n; i++)
		if (!strcmp(ps->p[i].name, name))
			return &ps->p[i];
	return NULL;
}

int sysfs_param_read(const struct sysfs *fs, const char *dev, const char *name, struct param *out,
                     struct err *e)
{
	int rc;

	rc = sysfs_device_check(fs, dev, e);
	if (rc)
		return rc;
	if (!param_name_ok(name))
		return err_set(e, -ENOENT, ERR_UNKNOWN_PARAM, "no parameter '%.*s' on '%s'",
		               utf8_cut(name, 64), name, dev);
	rc = param_load(fs, dev, name, out);
	if (rc == -ENOENT)
		return err_set(e, -ENOENT, ERR_UNKNOWN_PARAM, "no parameter '%s' on '%s'", name,
		               dev);
	if (rc)
		return err_set(e, rc, ERR_INTERNAL, "cannot read '%s' on '%s': %s", name, dev,
		               strerror(-rc));
	return 0;
}

static void choices_join(const struct param *p, char *out, size_t len)
{
	size_t off = 0;
	int i;

	out[0] = '\0';
	for (i = 0; i < p->n_choices && off < len; i++)
		off += (size_t)snprintf(out + off, len - off, "%s%s", i ? ", " : "", p->choices[i]);
}

static const struct {
	const char *legacy, *current;
} sched_aliases[] = {
	{ "noop", "none" },
	{ "deadline", "mq-deadline" },
};

static int check_int(const char *name, const char *requested, bool has_min, int64_t min,
                     bool has_max, int64_t max, char *canon, size_t canon_len, struct err *e)
{
	int64_t v;
	int rc;

	rc = num_parse_i64(requested, &v);
	/* A sign only where the parameter takes values below 0 (io_poll_delay -1): iosched.*
	 * attributes and unknown integer files take none (mq-deadline would read "-5" as a
	 * huge unsigned value, or clamp it silently). */
	if (!rc && requested[0] == '-' && !(has_min && min < 0))
		rc = -EINVAL;
	if (rc == -ERANGE)
		return err_set(e, -EINVAL, ERR_INVALID_VALUE, "%s: '%.*s' is out of range", name,
		               utf8_cut(requested, 64), requested);
	if (rc)
		return err_set(e, -EINVAL, ERR_INVALID_VALUE,
		               "%s: '%.*s' is not a plain decimal integer (no sign, spaces or "
		               "leading zeros)",
		               name, utf8_cut(requested, 64), requested);
	if (has_min && v < min)
		return err_set(e, -EINVAL, ERR_INVALID_VALUE, "%s: %lld is below the minimum %lld",
		               name, (long long)v, (long long)min);
	if (has_max && v > max)
		return err_set(e, -EINVAL, ERR_INVALID_VALUE, "%s: %lld is above the maximum %lld",
		               name, (long long)v, (long long)max);
	snprintf(canon, canon_len, "%lld", (long long)v);
	return 0;
}

int sysfs_param_check(const struct param *p, const char *requested, char *canon, size_t canon_len,
                      bool *aliased, struct err *e)
{
	char list[SYSFS_CHOICES_MAX * 34];
	const char *want = requested;
	size_t i;
	int c;

	if (aliased)
		*aliased = false;
	if (!p->writable)
		return err_set(e, -EPERM, ERR_READ_ONLY, "%s is read-only", p->name);
	switch (p->kind) {
	case PARAM_INT:
		return check_int(p->name, requested, p->has_min, p->min, p->has_max, p->max, canon,
		                 canon_len, e);
	case PARAM_SCHED:
		for (i = 0; i < N_ELEM(sched_aliases); i++) {
			if (!strcmp(requested, sched_aliases[i].legacy)) {
				want = sched_aliases[i].current;
				if (aliased)
					*aliased = true;
			}
		}
		/* fall through */
	case PARAM_ENUM:
		for (c = 0; c < p->n_choices; c++) {
			if (!strcmp(p->choices[c], want)) {
				snprintf(canon, canon_len, "%s", want);
				return 0;
			}
		}
		choices_join(p, list, sizeof(list));
		return err_set(e, -EINVAL, ERR_INVALID_VALUE, "%s: '%.*s' is not available (%s)",
		               p->name, utf8_cut(requested, 64), requested, list);
	case PARAM_TEXT:
		if (!*requested || strchr(requested, '\n') || strlen(requested) >= canon_len)
			return err_set(e, -EINVAL, ERR_INVALID_VALUE, "%s: invalid value '%.*s'",
			               p->name, utf8_cut(requested, 64), requested);
		snprintf(canon, canon_len, "%s", requested);
		return 0;
	}
	return err_set(e, -EINVAL, ERR_INVALID_VALUE, "%s: cannot be set", p->name);
}

int sysfs_param_write(const struct sysfs *fs, const char *dev, const char *name, const char *canon,
                      char *applied, size_t applied_len, struct err *e)
{
	char path[PATH_MAX], value[SYSFS_VALUE_MAX];
	struct param p;
	int64_t v;
	int rc;

	rc = sysfs_device_check(fs, dev, e);
	if (rc)
		return rc;
	if (!param_name_ok(name))
		return err_set(e, -ENOENT, ERR_UNKNOWN_PARAM, "no parameter '%.*s'",
		               utf8_cut(name, 64), name);
	if (!sysfs_device_allowed(fs, dev))
		return err_set(e, -EPERM, ERR_DEVICE_NOT_ALLOWED,
		               "device '%s' is not in the agent's --allow-device list", dev);
	snprintf(value, sizeof(value), "%s", canon);
	if (!strcmp(name, "setra")) {
		/* blockdev --setra semantics: 512-byte sectors, read_ahead_kb = sectors / 2. */
		if (num_parse_i64(canon, &v) || v < 0)
			return err_set(e, -EINVAL, ERR_INVALID_VALUE, "setra: '%s' is not valid",
			               canon);
		snprintf(value, sizeof(value), "%lld", (long long)(v / 2));
	}
	param_path(fs, dev, name, path, sizeof(path));
	rc = attr_write(path, value);
	if (rc == -ENOENT)
		return err_set(e, rc, ERR_UNKNOWN_PARAM, "no parameter '%s' on '%s'", name, dev);
	if (rc)
		return err_set(e, rc, ERR_KERNEL_REJECTED,
		               "kernel rejected %s=%s on '%s': %s (errno %d)", name, canon, dev,
		               strerror(-rc), -rc);
	rc = param_load(fs, dev, name, &p);
	if (rc)
		return err_set(e, rc, ERR_INTERNAL, "cannot read back '%s' on '%s': %s", name, dev,
		               strerror(-rc));
	snprintf(applied, applied_len, "%s", p.value);
	return 0;
}

bool sysfs_value_equal(const char *a, const char *b)
{
	int64_t x, y;

	if (!num_parse_kernel_i64(a, &x) && !num_parse_kernel_i64(b, &y))
		return x == y;
	return strcmp(a, b) == 0;
}

static int sysctl_load(const struct sysfs *fs, const struct sysctl_meta *m, struct param *p)
{
	char path[PATH_MAX];
	bool writable;
	int rc;

	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "%s", m->name);
	path_join(path, sizeof(path), fs->root, m->relpath);
	rc = attr_read_at(AT_FDCWD, path, p->value, sizeof(p->value), &writable);
	if (rc)
		return rc;
	p->kind = PARAM_INT;
	p->unit = m->unit;
	p->has_min = true;
	p->min = m->min;
	p->has_max = m->max >= 0;
	p->max = m->max;
	p->writable = fs->allow_sysctl && writable;
	return 0;
}

int sysfs_sysctls_read(const struct sysfs *fs, struct params *out, struct err *e)
{
	struct param p;
	size_t i;
	int cap = 0;

	out->n = 0;
	out->p = NULL;
	for (i = 0; i < catalogue_sysctl_n; i++)
		if (sysctl_load(fs, &catalogue_sysctl[i], &p) == 0)
			params_push(out, &cap, &p);
	return 0;
}

int sysfs_sysctl_read(const struct sysfs *fs, const char *name, struct param *out, struct err *e)
{
	const struct sysctl_meta *m = catalogue_sysctl_find(name);
	int rc;

	if (!m)
		return err_set(e, -ENOENT, ERR_UNKNOWN_SYSCTL,
		               "'%.*s' is not a sysctl fleettune manages", utf8_cut(name, 64),
		               name);
	rc = sysctl_load(fs, m, out);
	if (rc)
		return err_set(e, rc, rc == -ENOENT ? ERR_NOT_FOUND : ERR_INTERNAL,
		               "cannot read %s: %s", name, strerror(-rc));
	return 0;
}

int sysfs_sysctl_write(const struct sysfs *fs, const char *name, const char *canon, char *applied,
                       size_t applied_len, struct err *e)
{
	const struct sysctl_meta *m = catalogue_sysctl_find(name);
	char path[PATH_MAX];
	struct param p;
	int rc;

	if (!m)
		return err_set(e, -ENOENT, ERR_UNKNOWN_SYSCTL,
		               "'%.*s' is not a sysctl fleettune manages", utf8_cut(name, 64),
		               name);
	if (!fs->allow_sysctl)
		return err_set(e, -EPERM, ERR_FORBIDDEN,
		               "sysctl writes are disabled; start the agent with --allow-sysctl");
	path_join(path, sizeof(path), fs->root, m->relpath);
	rc = attr_write(path, canon);
	if (rc)
		return err_set(e, rc, ERR_KERNEL_REJECTED, "kernel rejected %s=%s: %s (errno %d)",
		               name, canon, strerror(-rc), -rc);
	rc = sysctl_load(fs, m, &p);
	if (rc)
		return err_set(e, rc, ERR_INTERNAL, "cannot read back %s: %s", name, strerror(-rc));
	snprintf(applied, applied_len, "%s", p.value);
	return 0;
}

bool sysfs_param_name_ok(const char *name)
{
	return param_name_ok(name);
}

static int seen_cmp(const void *a, const void *b)
{
	return strcmp(((const struct block_seen *)a)->name, ((const struct block_seen *)b)->name);
}

int sysfs_block_scan_allowed(const struct sysfs *fs, const struct block_seen *prev, int nprev,
                             struct block_seen **out, int *n, struct err *e)
{
	struct block_seen *list = NULL;
	char path[PATH_MAX], val[64];
	struct dirent *de;
	int count = 0, cap = 0, i;
	int64_t v;
	DIR *d;

	*out = NULL;
	*n = 0;
	path_join(path, sizeof(path), fs->root, "sys/block");
	d = opendir(path);
	if (!d)
		return err_set(e, -errno, ERR_INTERNAL, "cannot list '%s': %s", path,
		               strerror(errno));
	while ((de = readdir(d))) {
		struct block_seen *b;

		if (de->d_name[0] == '.' || !sysfs_device_name_ok(de->d_name))
			continue;
		list = xgrow(list, &cap, count + 1, sizeof(*list));
		b = &list[count++];
		memset(b, 0, sizeof(*b));
		snprintf(b->name, sizeof(b->name), "%s", de->d_name);
		if (!sysfs_device_allowed(fs, de->d_name)) {
			/* Not ours to look at now: as the last full scan saw it, if it did. */
			for (i = 0; i < nprev; i++)
				if (!strcmp(prev[i].name, b->name))
					*b = prev[i];
			continue;
		}
		device_path(fs, de->d_name, "size", path, sizeof(path));
		if (!attr_read(path, val, sizeof(val)) && !num_parse_kernel_i64(val, &v) && v >= 0)
			b->size_bytes = (uint64_t)v * 512;
		device_path(fs, de->d_name, "diskseq", path, sizeof(path));
		if (!attr_read(path, val, sizeof(val)) && !num_parse_kernel_i64(val, &v) &&
		    v >= 0) {
			b->seq = (uint64_t)v;
			b->has_seq = true;
		}
	}
	closedir(d);
	if (count)
		qsort(list, (size_t)count, sizeof(*list), seen_cmp);
	*out = list;
	*n = count;
	return 0;
}

int sysfs_block_scan(const struct sysfs *fs, struct block_seen **out, int *n, struct err *e)
{
	struct device_info *list = NULL;
	char path[PATH_MAX], val[64];
	int count = 0, i, rc;
	int64_t v;

	*out = NULL;
	*n = 0;
	rc = sysfs_devices_list(fs, &list, &count, e);
	if (rc)
		return rc;
	*out = xcalloc((size_t)count + 1, sizeof(**out));
	for (i = 0; i < count; i++) {
		struct block_seen *b = &(*out)[i];

		snprintf(b->name, sizeof(b->name), "%s", list[i].name);
		b->size_bytes = list[i].size_bytes;
		device_path(fs, list[i].name, "diskseq", path, sizeof(path));
		if (!attr_read(path, val, sizeof(val)) && !num_parse_kernel_i64(val, &v) &&
		    v >= 0) {
			b->seq = (uint64_t)v;
			b->has_seq = true;
		}
	}
	free(list);
	*n = count;
	return 0;
}
