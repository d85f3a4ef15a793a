/* fsopt.c -- the mkfs and mount option tables of xfs and ext4, their checks, the mkfs and info
 * command lines. Everything a job may ask of mkfs or mount is a row here. */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "engines/engine.h"
#include "engines/fsopt.h"
#include "num.h"
#include "utf8.h"
#include "banned.h"

const char *const fs_type_names[] = { "xfs", "ext4", NULL };

#define CODE ERR_INVALID_FS_OPTION
#define NAMES_PATH                                                                                 \
	"names another path or device (the agent makes the filesystem on the job's device only)"
#define ARRAY_N(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* The form of a value. */
enum fsv {
	FSV_NONE,     /* no value: "-K", "noalign", "largeio" */
	FSV_INT,      /* plain decimal in min..max */
	FSV_POW2,     /* plain decimal power of two in min..max */
	FSV_SIZE,     /* digits with an optional k/m/g/t (binary), min..max bytes; pow2 if set */
	FSV_BYTES,    /* FSV_SIZE, but handed to mkfs as plain bytes (mkfs.xfs -i size) */
	FSV_BOOL,     /* 0 or 1 */
	FSV_ENUM,     /* one of choices */
	FSV_LABEL,    /* 1..max bytes of [A-Za-z0-9_.-] */
	FSV_FEATURES, /* a comma list of choices, each optionally "^" (off) */
	FSV_REFUSED,  /* refused: why */
};

struct fsv_form {
	enum fsv form;
	int64_t min, max;
	bool pow2;                  /* FSV_SIZE, FSV_BYTES */
	const char *const *choices; /* FSV_ENUM, FSV_FEATURES: NULL-terminated */
	const char *why;            /* FSV_REFUSED */
};

/* A sub-option of a flag's comma list: "su" of -d su=64k,sw=7. FSV_NONE: given bare. */
struct fsopt_sub {
	const char *key;
	struct fsv_form v;
};

/* A flag of mkfs: a comma list of sub-options (subs), or one value (v; FSV_NONE: none). */
struct fsopt_flag {
	const char *flag;
	const struct fsopt_sub *subs;
	int n_subs;
	struct fsv_form v;
	bool dropped; /* accepted, but the agent passes it itself (-f, -F, -q) */
};

#define SUBS(t) .subs = (t), .n_subs = ARRAY_N(t)
#define INT(lo, hi)                                                                                \
	{                                                                                          \
		.form = FSV_INT, .min = (lo), .max = (hi)                                          \
	}
#define POW2(lo, hi)                                                                               \
	{                                                                                          \
		.form = FSV_POW2, .min = (lo), .max = (hi)                                         \
	}
#define SIZE(lo, hi)                                                                               \
	{                                                                                          \
		.form = FSV_SIZE, .min = (lo), .max = (hi)                                         \
	}
#define SIZE2(lo, hi)                                                                              \
	{                                                                                          \
		.form = FSV_SIZE, .min = (lo), .max = (hi), .pow2 = true                           \
	}
#define BYTES2(lo, hi)                                                                             \
	{                                                                                          \
		.form = FSV_BYTES, .min = (lo), .max = (hi), .pow2 = true                          \
	}
#define BOOL01                                                                                     \
	{                                                                                          \
		.form = FSV_BOOL                                                                   \
	}
#define NONE                                                                                       \
	{                                                                                          \
		.form = FSV_NONE                                                                   \
	}
#define ENUM(c)                                                                                    \
	{                                                                                          \
		.form = FSV_ENUM, .choices = (c)                                                   \
	}
#define REFUSED(w)                                                                                 \
	{                                                                                          \
		.form = FSV_REFUSED, .why = (w)                                                    \
	}

#define KiB 1024LL
#define MiB (1024LL * KiB)
#define GiB (1024LL * MiB)
#define TiB (1024LL * GiB)

/* ---- mkfs.xfs (xfsprogs 6.1, mkfs.xfs(8)) ---- */

static const struct fsopt_sub xfs_b[] = { { "size", SIZE2(512, 64 * KiB) } };
static const struct fsopt_sub xfs_m[] = {
	{ "crc", BOOL01 },     { "finobt", BOOL01 },     { "rmapbt", BOOL01 },
	{ "reflink", BOOL01 }, { "inobtcount", BOOL01 }, { "bigtime", BOOL01 },
};
static const struct fsopt_sub xfs_d[] = {
	{ "agcount", INT(1, 1LL << 31) },
	{ "agsize", SIZE(16 * MiB, TiB) },
	{ "su", SIZE(512, 1LL << 31) },
	{ "sw", INT(1, 1LL << 16) },
	{ "sunit", INT(1, 1LL << 22) },
	{ "swidth", INT(1, 1LL << 30) },
	{ "noalign", NONE },
	{ "size", SIZE(300 * MiB, 1LL << 60) },
	{ "sectsize", SIZE2(512, 32 * KiB) },
	{ "file", REFUSED(NAMES_PATH) },
	{ "name", REFUSED(NAMES_PATH) },
};
static const char *const xfs_attr_choices[] = { "0", "1", "2", NULL };
static const struct fsopt_sub xfs_i[] = {
	{ "size", BYTES2(256, 2048) }, { "perblock", POW2(2, 16) },
	{ "maxpct", INT(0, 100) },     { "attr", ENUM(xfs_attr_choices) },
	{ "projid32bit", BOOL01 },     { "sparse", BOOL01 },
	{ "nrext64", BOOL01 },         { "align", BOOL01 },
};
static const struct fsopt_sub xfs_l[] = {
	{ "size", SIZE(512 * KiB, 2 * GiB) },
	{ "version", INT(1, 2) },
	{ "sunit", INT(1, 1LL << 20) },
	{ "su", SIZE(512, 256 * KiB) },
	{ "lazy-count", BOOL01 },
	{ "internal", NONE },
	{ "agnum", INT(0, 1LL << 31) },
	{ "sectsize", SIZE2(512, 32 * KiB) },
	{ "logdev", REFUSED(NAMES_PATH) },
	{ "file", REFUSED(NAMES_PATH) },
	{ "name", REFUSED(NAMES_PATH) },
};
static const char *const xfs_n_versions[] = { "2", "ci", NULL };
static const struct fsopt_sub xfs_n[] = {
	{ "size", SIZE2(512, 64 * KiB) },
	{ "version", ENUM(xfs_n_versions) },
	{ "ftype", BOOL01 },
};
static const struct fsopt_sub xfs_s[] = { { "size", SIZE2(512, 32 * KiB) } };

static const struct fsopt_flag xfs_mkfs[] = {
	{ "-b", SUBS(xfs_b) },
	{ "-m", SUBS(xfs_m) },
	{ "-d", SUBS(xfs_d) },
	{ "-i", SUBS(xfs_i) },
	{ "-l", SUBS(xfs_l) },
	{ "-n", SUBS(xfs_n) },
	{ "-s", SUBS(xfs_s) },
	{ "-K", .v = NONE },
	{ "-L", .v = { .form = FSV_LABEL, .max = 12 } },
	{ "-f", .v = NONE, .dropped = true },
	{ "-q", .v = NONE, .dropped = true },
	{ "-N", .v = REFUSED("the agent makes the dry run itself (POST /jobs?dry_run=true)") },
	{ "-c", .v = REFUSED("reads a configuration file: " NAMES_PATH) },
	{ "-p", .v = REFUSED("reads a prototype file: " NAMES_PATH) },
	{ "-r", .v = REFUSED("a realtime subvolume needs another device: " NAMES_PATH) },
};

/* ---- mkfs.ext4 (e2fsprogs 1.47, mke2fs(8)) ---- */

static const struct fsopt_sub ext4_E[] = {
	{ "stride", INT(1, 1LL << 30) },
	{ "stripe_width", INT(1, 1LL << 30) },
	{ "stripe-width", INT(1, 1LL << 30) },
	{ "resize", INT(1, 1LL << 32) },
	{ "lazy_itable_init", BOOL01 },
	{ "lazy_journal_init", BOOL01 },
	{ "packed_meta_blocks", BOOL01 },
	{ "assume_storage_prezeroed", BOOL01 },
	{ "num_backup_sb", INT(0, 2) },
	{ "discard", NONE },
	{ "nodiscard", NONE },
	{ "offset", REFUSED("puts the filesystem elsewhere on the device than its start") },
	{ "root_owner", REFUSED("not a tuning choice: the agent's files belong to root") },
};
static const struct fsopt_sub ext4_J[] = {
	{ "size", INT(1, 10240) }, /* MiB */
	{ "fast_commit_size", INT(1, 1024) },
	{ "device", REFUSED("an external journal is another device: " NAMES_PATH) },
	{ "location", REFUSED("not a tuning choice the agent takes") },
};
static const char *const ext4_features[] = {
	"64bit",        "bigalloc",     "dir_index",     "dir_nlink",
	"ea_inode",     "encrypt",      "ext_attr",      "extent",
	"extents",      "extra_isize",  "fast_commit",   "filetype",
	"flex_bg",      "has_journal",  "huge_file",     "inline_data",
	"large_dir",    "large_file",   "metadata_csum", "metadata_csum_seed",
	"mmp",          "orphan_file",  "project",       "quota",
	"resize_inode", "sparse_super", "sparse_super2", "stable_inodes",
	"uninit_bg",    "verity",       "casefold",      NULL,
};
static const char *const ext4_usage_types[] = { "default",   "floppy",     "small", "news",
	                                        "largefile", "largefile4", "big",   "huge",
	                                        "hurd",      NULL };
static const char *const ext4_errors[] = { "continue", "remount-ro", "panic", NULL };

static const struct fsopt_flag ext4_mkfs[] = {
	{ "-b", .v = POW2(1024, 64 * KiB) },
	{ "-C", .v = SIZE2(1024, 256 * MiB) },
	{ "-E", SUBS(ext4_E) },
	{ "-G", .v = POW2(1, 1LL << 20) },
	{ "-g", .v = INT(256, 65528) },
	{ "-I", .v = POW2(128, 64 * KiB) },
	{ "-i", .v = INT(1024, 64 * MiB) },
	{ "-J", SUBS(ext4_J) },
	{ "-j", .v = NONE },
	{ "-K", .v = NONE },
	{ "-L", .v = { .form = FSV_LABEL, .max = 16 } },
	{ "-m", .v = INT(0, 50) },
	{ "-N", .v = INT(16, 4294967295LL) },
	{ "-O", .v = { .form = FSV_FEATURES, .choices = ext4_features } },
	{ "-T", .v = ENUM(ext4_usage_types) },
	{ "-e", .v = ENUM(ext4_errors) },
	{ "-F", .v = NONE, .dropped = true },
	{ "-q", .v = NONE, .dropped = true },
	{ "-n", .v = REFUSED("the agent makes the dry run itself (POST /jobs?dry_run=true)") },
	{ "-t", .v = REFUSED("the type is filesystem.type") },
	{ "-c", .v = REFUSED("a bad-block scan is slow, and -c -c writes the whole device") },
	{ "-l", .v = REFUSED("reads a bad-block list from a file: " NAMES_PATH) },
	{ "-d", .v = REFUSED("copies a directory into the filesystem: " NAMES_PATH) },
	{ "-S", .v = REFUSED("writes superblocks only, for recovery: not a tuning choice") },
};

/* ---- mount options ---- */

enum mnt_kind {
	MK_NOOP,   /* the default already: accepted, nothing to do */
	MK_ATIME,  /* the mount's atime mode */
	MK_ATTR,   /* a mount attribute bit */
	MK_UNATTR, /* asks for what a default attribute bit takes away: clears it */
	MK_SB,     /* handed to the filesystem (fsconfig), VFS superblock flags included */
};

struct fsopt_mnt {
	const char *key;
	struct fsv_form v; /* the value's form; FSV_NONE: no value */
	enum mnt_kind kind;
	int arg; /* MK_ATIME: enum fs_atime; MK_ATTR, MK_UNATTR: FS_ATTR_* */
};

#define MNT_WORD "a mount(8)/fstab word, not a kernel option"
static const struct fsopt_mnt vfs_mount[] = {
	{ "defaults", NONE, MK_NOOP, 0 },
	{ "rw", NONE, MK_NOOP, 0 },
	{ "async", NONE, MK_NOOP, 0 },
	{ "atime", NONE, MK_NOOP, 0 },
	{ "diratime", NONE, MK_NOOP, 0 },
	{ "suid", NONE, MK_UNATTR, FS_ATTR_NOSUID },
	{ "dev", NONE, MK_UNATTR, FS_ATTR_NODEV },
	{ "exec", NONE, MK_UNATTR, FS_ATTR_NOEXEC },
	{ "relatime", NONE, MK_ATIME, FS_ATIME_RELATIME },
	{ "noatime", NONE, MK_ATIME, FS_ATIME_NOATIME },
	{ "strictatime", NONE, MK_ATIME, FS_ATIME_STRICT },
	{ "norelatime", NONE, MK_ATIME, FS_ATIME_STRICT },
	{ "nodiratime", NONE, MK_ATTR, FS_ATTR_NODIRATIME },
	{ "nosuid", NONE, MK_ATTR, FS_ATTR_NOSUID },
	{ "nodev", NONE, MK_ATTR, FS_ATTR_NODEV },
	{ "noexec", NONE, MK_ATTR, FS_ATTR_NOEXEC },
	{ "nosymfollow", NONE, MK_ATTR, FS_ATTR_NOSYMFOLLOW },
	{ "lazytime", NONE, MK_SB, 0 },
	{ "nolazytime", NONE, MK_SB, 0 },
	{ "sync", NONE, MK_SB, 0 },
	{ "dirsync", NONE, MK_SB, 0 },
	{ "ro", REFUSED("the job writes to the filesystem"), MK_NOOP, 0 },
	{ "remount", REFUSED("the agent mounts a new filesystem"), MK_NOOP, 0 },
	{ "bind", REFUSED("the agent mounts a new filesystem"), MK_NOOP, 0 },
	{ "source", REFUSED(NAMES_PATH), MK_NOOP, 0 },
	{ "loop", REFUSED(NAMES_PATH), MK_NOOP, 0 },
	{ "context", REFUSED("SELinux labels are not a tuning choice"), MK_NOOP, 0 },
	{ "fscontext", REFUSED("SELinux labels are not a tuning choice"), MK_NOOP, 0 },
	{ "defcontext", REFUSED("SELinux labels are not a tuning choice"), MK_NOOP, 0 },
	{ "rootcontext", REFUSED("SELinux labels are not a tuning choice"), MK_NOOP, 0 },
	{ "user", REFUSED(MNT_WORD), MK_NOOP, 0 },
	{ "users", REFUSED(MNT_WORD), MK_NOOP, 0 },
	{ "owner", REFUSED(MNT_WORD), MK_NOOP, 0 },
	{ "group", REFUSED(MNT_WORD), MK_NOOP, 0 },
	{ "nofail", REFUSED(MNT_WORD), MK_NOOP, 0 },
	{ "auto", REFUSED(MNT_WORD), MK_NOOP, 0 },
	{ "noauto", REFUSED(MNT_WORD), MK_NOOP, 0 },
	{ "_netdev", REFUSED(MNT_WORD), MK_NOOP, 0 },
};

static const struct fsopt_mnt xfs_mount[] = {
	{ "logbufs", INT(2, 8), MK_SB, 0 },
	{ "logbsize", SIZE2(16 * KiB, 256 * KiB), MK_SB, 0 },
	{ "allocsize", SIZE2(4 * KiB, GiB), MK_SB, 0 },
	{ "largeio", NONE, MK_SB, 0 },
	{ "nolargeio", NONE, MK_SB, 0 },
	{ "inode32", NONE, MK_SB, 0 },
	{ "inode64", NONE, MK_SB, 0 },
	{ "swalloc", NONE, MK_SB, 0 },
	{ "noalign", NONE, MK_SB, 0 },
	{ "sunit", INT(1, 1LL << 30), MK_SB, 0 },
	{ "swidth", INT(1, 1LL << 30), MK_SB, 0 },
	{ "wsync", NONE, MK_SB, 0 },
	{ "ikeep", NONE, MK_SB, 0 },
	{ "noikeep", NONE, MK_SB, 0 },
	{ "filestreams", NONE, MK_SB, 0 },
	{ "discard", NONE, MK_SB, 0 },
	{ "nodiscard", NONE, MK_SB, 0 },
	{ "grpid", NONE, MK_SB, 0 },
	{ "bsdgroups", NONE, MK_SB, 0 },
	{ "nogrpid", NONE, MK_SB, 0 },
	{ "sysvgroups", NONE, MK_SB, 0 },
	{ "nouuid", NONE, MK_SB, 0 },
	{ "noquota", NONE, MK_SB, 0 },
	{ "usrquota", NONE, MK_SB, 0 },
	{ "uquota", NONE, MK_SB, 0 },
	{ "grpquota", NONE, MK_SB, 0 },
	{ "gquota", NONE, MK_SB, 0 },
	{ "prjquota", NONE, MK_SB, 0 },
	{ "pquota", NONE, MK_SB, 0 },
	{ "logdev", REFUSED(NAMES_PATH), MK_NOOP, 0 },
	{ "rtdev", REFUSED(NAMES_PATH), MK_NOOP, 0 },
	{ "barrier",
	  REFUSED("removed from XFS in Linux 4.19: the kernel refuses it (write caches "
	          "are handled by flushes)"),
	  MK_NOOP, 0 },
	{ "nobarrier",
	  REFUSED("removed from XFS in Linux 4.19: the kernel refuses it (write caches "
	          "are handled by flushes)"),
	  MK_NOOP, 0 },
	{ "norecovery", REFUSED("needs a read-only mount, and the job writes"), MK_NOOP, 0 },
	{ "dax", REFUSED("needs a DAX device"), MK_NOOP, 0 },
};

static const char *const ext4_data_modes[] = { "journal", "ordered", "writeback", NULL };
static const struct fsopt_mnt ext4_mount[] = {
	{ "data", ENUM(ext4_data_modes), MK_SB, 0 },
	{ "commit", INT(0, 86400), MK_SB, 0 },
	{ "barrier", { .form = FSV_BOOL }, MK_SB, 0 },
	{ "nobarrier", NONE, MK_SB, 0 },
	{ "journal_checksum", NONE, MK_SB, 0 },
	{ "nojournal_checksum", NONE, MK_SB, 0 },
	{ "journal_async_commit", NONE, MK_SB, 0 },
	{ "journal_ioprio", INT(0, 7), MK_SB, 0 },
	{ "delalloc", NONE, MK_SB, 0 },
	{ "nodelalloc", NONE, MK_SB, 0 },
	{ "dioread_nolock", NONE, MK_SB, 0 },
	{ "dioread_lock", NONE, MK_SB, 0 },
	{ "stripe", INT(0, 1LL << 30), MK_SB, 0 },
	{ "inode_readahead_blks", POW2(1, 1LL << 30), MK_SB, 0 },
	{ "max_batch_time", INT(0, 1000000), MK_SB, 0 },
	{ "min_batch_time", INT(0, 1000000), MK_SB, 0 },
	{ "discard", NONE, MK_SB, 0 },
	{ "nodiscard", NONE, MK_SB, 0 },
	{ "auto_da_alloc", NONE, MK_SB, 0 },
	{ "noauto_da_alloc", NONE, MK_SB, 0 },
	{ "init_itable", INT(0, 1000), MK_SB, 0 },
	{ "noinit_itable", NONE, MK_SB, 0 },
	{ "block_validity", NONE, MK_SB, 0 },
	{ "noblock_validity", NONE, MK_SB, 0 },
	{ "errors", ENUM(ext4_errors), MK_SB, 0 },
	{ "nombcache", NONE, MK_SB, 0 },
	{ "mb_optimize_scan", BOOL01, MK_SB, 0 },
	{ "prefetch_block_bitmaps", NONE, MK_SB, 0 },
	{ "no_prefetch_block_bitmaps", NONE, MK_SB, 0 },
	{ "acl", NONE, MK_SB, 0 },
	{ "noacl", NONE, MK_SB, 0 },
	{ "user_xattr", NONE, MK_SB, 0 },
	{ "grpid", NONE, MK_SB, 0 },
	{ "nogrpid", NONE, MK_SB, 0 },
	{ "journal_path", REFUSED(NAMES_PATH), MK_NOOP, 0 },
	{ "journal_dev", REFUSED(NAMES_PATH), MK_NOOP, 0 },
	{ "usrjquota", REFUSED("names a quota file: " NAMES_PATH), MK_NOOP, 0 },
	{ "grpjquota", REFUSED("names a quota file: " NAMES_PATH), MK_NOOP, 0 },
	{ "sb", REFUSED("mounts from a backup superblock: for recovery, not tuning"), MK_NOOP, 0 },
	{ "noload", REFUSED("needs a read-only mount, and the job writes"), MK_NOOP, 0 },
	{ "norecovery", REFUSED("needs a read-only mount, and the job writes"), MK_NOOP, 0 },
	{ "dax", REFUSED("needs a DAX device"), MK_NOOP, 0 },
};

/* One filesystem type: its tools and tables. */
struct fs_type_desc {
	const char *name;
	const char *mkfs, *force, *dry;
	const char *const *tools;
	const char *package; /* the Debian package of the tools */
	const struct fsopt_flag *mkfs_opts;
	int n_mkfs_opts;
	const struct fsopt_mnt *mount_opts;
	int n_mount_opts;
};

static const char *const xfs_tools[] = { "mkfs.xfs", "xfs_info", NULL };
static const char *const ext4_tools[] = { "mkfs.ext4", "tune2fs", NULL };

static const struct fs_type_desc fs_types[FS_TYPE_COUNT] = {
	[FS_XFS] = { "xfs", "mkfs.xfs", "-f", "-N", xfs_tools, "xfsprogs", xfs_mkfs,
	             ARRAY_N(xfs_mkfs), xfs_mount, ARRAY_N(xfs_mount) },
	[FS_EXT4] = { "ext4", "mkfs.ext4", "-F", "-n", ext4_tools, "e2fsprogs", ext4_mkfs,
	              ARRAY_N(ext4_mkfs), ext4_mount, ARRAY_N(ext4_mount) },
};

const char *fs_type_name(enum fs_type t)
{
	return t >= 0 && t < FS_TYPE_COUNT ? fs_types[t].name : "?";
}

int fs_type_parse(const char *name, enum fs_type *t, struct err *e)
{
	int i;

	for (i = 0; i < FS_TYPE_COUNT; i++) {
		if (name && !strcmp(name, fs_types[i].name)) {
			*t = (enum fs_type)i;
			return 0;
		}
	}
	return err_set(e, -EINVAL, CODE, "filesystem.type: '%.*s' is not one of xfs, ext4",
	               utf8_cut(name ? name : "", 32), name ? name : "");
}

const char *const *fsopt_tools(enum fs_type t)
{
	return fs_types[t].tools;
}

int fsopt_spec_check(const struct fs_spec *s, const char *device_path, struct fsopt_checked *out,
                     struct err *e)
{
	int rc;

	memset(out, 0, sizeof(*out));
	rc = fsopt_mkfs_argv(s, device_path, true, &out->mkfs_dry_argv, e);
	if (rc == 0)
		rc = fsopt_mount_parse(s->type, s->mount, &out->mount, e);
	if (rc) {
		fsopt_checked_release(out);
		return rc;
	}
	out->type = s->type;
	out->type_name = fs_types[s->type].name;
	out->tools = fs_types[s->type].tools;
	out->package = fs_types[s->type].package;
	out->dry_flag = fs_types[s->type].dry;
	fsopt_words_join((const char *const *)out->mkfs_dry_argv, -1, " ", out->mkfs_line,
	                 sizeof(out->mkfs_line));
	return 0;
}

void fsopt_checked_release(struct fsopt_checked *c)
{
	if (!c)
		return;
	engine_argv_free(c->mkfs_dry_argv);
	c->mkfs_dry_argv = NULL;
}

/* Printable ASCII a token may hold: no blanks, quotes, slashes or shell characters. */
static bool token_chars_ok(const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      strchr("_.,:=^+-", c)))
			return false;
	}
	return true;
}

static bool is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

/* A size as mkfs and mount read it: digits without leading zeros (mkfs.xfs reads base 0:
 * "010" would be octal), then at most one of k, m, g, t. */
static int size_parse(const char *s, uint64_t *bytes)
{
	char digits[24];
	size_t n = strspn(s, "0123456789");

	if (!n || n >= sizeof(digits) || (s[n] && (!strchr("kmgtKMGT", s[n]) || s[n + 1])))
		return -EINVAL;
	memcpy(digits, s, n);
	digits[n] = '\0';
	if (!num_is_plain_int(digits))
		return -EINVAL;
	return num_parse_size(s, bytes);
}

/* Whether a choice list holds s. */
static bool choice_has(const char *const *choices, const char *s, size_t len)
{
	for (; *choices; choices++)
		if (strlen(*choices) == len && !strncmp(*choices, s, len))
			return true;
	return false;
}

void fsopt_words_join(const char *const *words, int n, const char *sep, char *out, size_t len)
{
	size_t used = 0;
	int i;

	out[0] = '\0';
	for (i = 0; (n < 0 ? words[i] != NULL : i < n) && used < len; i++)
		used += (size_t)snprintf(out + used, len - used, "%s%s", i ? sep : "", words[i]);
}

/* Check value v (NULL: none given) against form f; what names the option in messages. On
 * success with FSV_BYTES, canon gets plain bytes; otherwise canon is v. */
static int value_check(const struct fsv_form *f, const char *what, const char *v, char *canon,
                       size_t canon_len, struct err *e)
{
	char list[600];
	uint64_t bytes;
	int64_t n;
	const char *p;

	canon[0] = '\0';
	if (f->form == FSV_REFUSED)
		return err_set(e, -EINVAL, CODE, "%s: %s", what, f->why);
	if (f->form == FSV_NONE) {
		if (v)
			return err_set(e, -EINVAL, CODE, "%s: takes no value", what);
		return 0;
	}
	if (!v || !*v)
		return err_set(e, -EINVAL, CODE, "%s: needs a value", what);
	snprintf(canon, canon_len, "%s", v);
	switch (f->form) {
	case FSV_INT:
	case FSV_POW2:
		if (num_parse_i64(v, &n) || n < f->min || n > f->max)
			return err_set(e, -EINVAL, CODE,
			               "%s: '%s' must be a plain integer in %" PRId64 "..%" PRId64,
			               what, v, f->min, f->max);
		if (f->form == FSV_POW2 && !is_pow2((uint64_t)n))
			return err_set(e, -EINVAL, CODE, "%s: '%s' must be a power of two", what,
			               v);
		return 0;
	case FSV_SIZE:
	case FSV_BYTES:
		if (size_parse(v, &bytes) || bytes < (uint64_t)f->min || bytes > (uint64_t)f->max)
			return err_set(e, -EINVAL, CODE,
			               "%s: '%s' must be a size in %" PRId64 "..%" PRId64
			               " bytes (digits, optionally k, m, g or t)",
			               what, v, f->min, f->max);
		if (f->pow2 && !is_pow2(bytes))
			return err_set(e, -EINVAL, CODE, "%s: '%s' must be a power of two", what,
			               v);
		if (f->form == FSV_BYTES)
			snprintf(canon, canon_len, "%" PRIu64, bytes);
		return 0;
	case FSV_BOOL:
		if (strcmp(v, "0") && strcmp(v, "1"))
			return err_set(e, -EINVAL, CODE, "%s: '%s' must be 0 or 1", what, v);
		return 0;
	case FSV_ENUM:
		if (choice_has(f->choices, v, strlen(v)))
			return 0;
		fsopt_words_join(f->choices, -1, ", ", list, sizeof(list));
		return err_set(e, -EINVAL, CODE, "%s: '%s' is not one of %s", what, v, list);
	case FSV_LABEL:
		if ((int64_t)strlen(v) > f->max ||
		    strspn(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMN"
		              "OPQRSTUVWXYZ0123456789_.-") != strlen(v))
			return err_set(e, -EINVAL, CODE,
			               "%s: '%s' must be 1..%" PRId64 " of A-Z a-z 0-9 _ . -", what,
			               v, f->max);
		return 0;
	case FSV_FEATURES:
		for (p = v;;) {
			size_t len = strcspn(p, ",");
			const char *name = *p == '^' ? p + 1 : p;
			size_t nlen = *p == '^' ? len - 1 : len;

			if (!nlen || !choice_has(f->choices, name, nlen)) {
				fsopt_words_join(f->choices, -1, ", ", list, sizeof(list));
				return err_set(e, -EINVAL, CODE,
				               "%s: '%.*s' is not a feature (%s; ^ turns one off)",
				               what, (int)len, p, list);
			}
			if (!p[len])
				break;
			p += len + 1;
		}
		return 0;
	default:
		return err_set(e, -EINVAL, CODE, "%s: no form", what);
	}
}

static const struct fsopt_flag *flag_find(const struct fs_type_desc *d, const char *flag)
{
	int i;

	for (i = 0; i < d->n_mkfs_opts; i++)
		if (!strcmp(d->mkfs_opts[i].flag, flag))
			return &d->mkfs_opts[i];
	return NULL;
}

static const struct fsopt_sub *sub_find(const struct fsopt_flag *f, const char *key, size_t len)
{
	int i;

	for (i = 0; i < f->n_subs; i++)
		if (strlen(f->subs[i].key) == len && !strncmp(f->subs[i].key, key, len))
			return &f->subs[i];
	return NULL;
}

/* The sub-options of one flag's list ("su=64k,sw=7"); canon gets the list as mkfs is given it. */
static int subs_check(const struct fsopt_flag *f, int at, const char *list, char *canon,
                      size_t canon_len, struct err *e)
{
	const char *p = list;
	char what[160], val[FS_TOKEN_MAX], one[FS_TOKEN_MAX], known[400];
	size_t used = 0;
	int rc, i;

	canon[0] = '\0';
	for (;;) {
		size_t len = strcspn(p, ","), klen = strcspn(p, "=,");
		const struct fsopt_sub *s = sub_find(f, p, klen);
		bool has_val = klen < len;

		if (!s) {
			known[0] = '\0';
			for (i = 0; i < f->n_subs; i++)
				if (f->subs[i].v.form != FSV_REFUSED)
					snprintf(known + strlen(known),
					         sizeof(known) - strlen(known), "%s%s",
					         strlen(known) ? ", " : "", f->subs[i].key);
			return err_set(
			        e, -EINVAL, CODE,
			        "filesystem.mkfs[%d]: %s %.*s: not an option the agent takes "
			        "(%s takes %s)",
			        at, f->flag, (int)(klen ? klen : len), p, f->flag, known);
		}
		snprintf(what, sizeof(what), "filesystem.mkfs[%d]: %s %s", at, f->flag, s->key);
		snprintf(val, sizeof(val), "%.*s", has_val ? (int)(len - klen - 1) : 0,
		         p + klen + 1);
		rc = value_check(&s->v, what, has_val ? val : NULL, one, sizeof(one), e);
		if (rc)
			return rc;
		used += (size_t)snprintf(canon + used, canon_len - used, "%s%s%s%s",
		                         used ? "," : "", s->key, has_val ? "=" : "", one);
		if (used >= canon_len)
			return err_set(e, -EINVAL, CODE, "filesystem.mkfs[%d]: too long", at);
		if (!p[len])
			return 0;
		p += len + 1;
	}
}

/* Check the tokens; with a, append the argv mkfs gets for them. */
static int mkfs_walk(const struct fs_spec *s, struct engine_argv *a, struct err *e)
{
	const struct fs_type_desc *d;
	char what[160], canon[FS_TOKEN_MAX], known[200];
	int i, k, rc;

	if (s->type < 0 || s->type >= FS_TYPE_COUNT)
		return err_set(e, -EINVAL, CODE, "filesystem.type: unknown");
	d = &fs_types[s->type];
	if (s->n_mkfs < 0 || s->n_mkfs > FS_MKFS_TOKENS_MAX)
		return err_set(e, -EINVAL, CODE, "filesystem.mkfs: at most %d tokens",
		               FS_MKFS_TOKENS_MAX);
	for (i = 0; i < s->n_mkfs; i++) {
		const char *tok = s->mkfs[i];
		const struct fsopt_flag *f;

		if (!*tok)
			return err_set(e, -EINVAL, CODE, "filesystem.mkfs[%d]: empty token", i);
		f = tok[0] == '-' ? flag_find(d, tok) : NULL;
		if (!f) {
			known[0] = '\0';
			for (k = 0; k < d->n_mkfs_opts; k++)
				if (d->mkfs_opts[k].v.form != FSV_REFUSED || d->mkfs_opts[k].n_subs)
					snprintf(known + strlen(known),
					         sizeof(known) - strlen(known), "%s%s",
					         strlen(known) ? " " : "", d->mkfs_opts[k].flag);
			return err_set(
			        e, -EINVAL, CODE,
			        tok[0] == '-'
			                ? "filesystem.mkfs[%d]: '%.*s' is not an option of %s "
			                  "the agent takes (it takes %s; one argv token each)"
			                : "filesystem.mkfs[%d]: '%.*s' is not an option (%s "
			                  "takes %s; the agent adds the device)",
			        i, utf8_cut(tok, 64), tok, d->mkfs, known);
		}
		if (f->v.form == FSV_REFUSED && !f->n_subs)
			return err_set(e, -EINVAL, CODE, "filesystem.mkfs[%d]: %s: %s", i, f->flag,
			               f->v.why);
		if (f->n_subs || f->v.form != FSV_NONE) {
			if (i + 1 >= s->n_mkfs)
				return err_set(
				        e, -EINVAL, CODE,
				        "filesystem.mkfs[%d]: %s needs a value in the next token",
				        i, f->flag);
			i++;
			/* The table judges keys and values first (a refused key says why); what it
			 * took is plain ASCII, checked again below. */
			if (f->n_subs) {
				rc = subs_check(f, i, s->mkfs[i], canon, sizeof(canon), e);
			} else {
				snprintf(what, sizeof(what), "filesystem.mkfs[%d]: %s", i, f->flag);
				rc = value_check(&f->v, what, s->mkfs[i], canon, sizeof(canon), e);
			}
			if (rc)
				return rc;
			if (!token_chars_ok(s->mkfs[i]))
				return err_set(
				        e, -EINVAL, CODE,
				        "filesystem.mkfs[%d]: '%.*s' may hold only A-Z a-z 0-9 "
				        "and _ . , : = ^ + -",
				        i, utf8_cut(s->mkfs[i], 64), s->mkfs[i]);
			if (a) {
				engine_argv_add(a, "%s", f->flag);
				engine_argv_add(a, "%s", canon);
			}
		} else if (a && !f->dropped) {
			engine_argv_add(a, "%s", f->flag);
		}
	}
	return 0;
}

int fsopt_mkfs_check(const struct fs_spec *s, struct err *e)
{
	return mkfs_walk(s, NULL, e);
}

int fsopt_mkfs_argv(const struct fs_spec *s, const char *device_path, bool dry_run, char ***argv,
                    struct err *e)
{
	struct engine_argv a = { 0 };
	int rc;

	*argv = NULL;
	if (s->type < 0 || s->type >= FS_TYPE_COUNT)
		return err_set(e, -EINVAL, CODE, "filesystem.type: unknown");
	engine_argv_add(&a, "%s", fs_types[s->type].mkfs);
	engine_argv_add(&a, "%s", fs_types[s->type].force);
	if (dry_run)
		engine_argv_add(&a, "%s", fs_types[s->type].dry);
	rc = mkfs_walk(s, &a, e);
	if (rc == 0) {
		engine_argv_add(&a, "%s", device_path);
		*argv = engine_argv_detach(&a);
	}
	engine_argv_free(engine_argv_detach(&a));
	return rc;
}

static const struct fsopt_mnt *mnt_find(const struct fsopt_mnt *t, int n, const char *key,
                                        size_t len)
{
	int i;

	for (i = 0; i < n; i++)
		if (strlen(t[i].key) == len && !strncmp(t[i].key, key, len))
			return &t[i];
	return NULL;
}

void fsopt_known(enum fs_type t, bool mount, char *out, size_t len)
{
	const struct fs_type_desc *d = &fs_types[t];
	size_t used = 0;
	int i, pass;

	out[0] = '\0';
	if (!mount) {
		for (i = 0; i < d->n_mkfs_opts && used < len; i++)
			if (d->mkfs_opts[i].v.form != FSV_REFUSED || d->mkfs_opts[i].n_subs)
				used += (size_t)snprintf(out + used, len - used, "%s%s",
				                         used ? " " : "", d->mkfs_opts[i].flag);
		return;
	}
	for (pass = 0; pass < 2; pass++) {
		const struct fsopt_mnt *m = pass ? d->mount_opts : vfs_mount;
		int n = pass ? d->n_mount_opts : ARRAY_N(vfs_mount);

		for (i = 0; i < n && used < len; i++)
			if (m[i].v.form != FSV_REFUSED)
				used += (size_t)snprintf(out + used, len - used, "%s%s",
				                         used ? " " : "", m[i].key);
	}
}

int fsopt_mount_parse(enum fs_type t, const char *opts, struct fs_mount *out, struct err *e)
{
	const struct fs_type_desc *d;
	char what[96], val[FS_OPT_VALUE_MAX + 1], canon[FS_OPT_VALUE_MAX + 1], known[1200];
	const char *p = opts;
	bool sunit = false, swidth = false;
	int rc, count = 0;

	memset(out, 0, sizeof(*out));
	/* A job's filesystem is for I/O: no set-uid programs, device nodes or executables run
	 * from it unless the options ask for them (suid, dev, exec). */
	out->attrs = FS_ATTR_DEFAULT;
	if (t < 0 || t >= FS_TYPE_COUNT)
		return err_set(e, -EINVAL, CODE, "filesystem.type: unknown");
	d = &fs_types[t];
	if (!opts || !*opts)
		return 0;
	if (strlen(opts) >= FS_MOUNT_MAX)
		return err_set(e, -EINVAL, CODE, "filesystem.mount: at most %d bytes",
		               FS_MOUNT_MAX - 1);
	for (;;) {
		size_t len = strcspn(p, ","), klen = strcspn(p, "=,");
		const struct fsopt_mnt *m;
		bool has_val = klen < len;

		if (!len)
			return err_set(e, -EINVAL, CODE, "filesystem.mount: empty option in '%s'",
			               opts);
		if (++count > FS_MOUNT_OPTS_MAX)
			return err_set(e, -EINVAL, CODE, "filesystem.mount: at most %d options",
			               FS_MOUNT_OPTS_MAX);
		m = mnt_find(d->mount_opts, d->n_mount_opts, p, klen);
		if (!m)
			m = mnt_find(vfs_mount, ARRAY_N(vfs_mount), p, klen);
		if (!m && klen >= 2 && !strncmp(p, "x-", 2))
			return err_set(e, -EINVAL, CODE, "filesystem.mount: '%.*s': %s",
			               (int)utf8_cut(p, len < 64 ? len : 64), p, MNT_WORD);
		if (!m) {
			fsopt_known(t, true, known, sizeof(known));
			return err_set(
			        e, -EINVAL, CODE,
			        "filesystem.mount: '%.*s' is not a %s mount option the agent "
			        "takes (it takes %s)",
			        (int)utf8_cut(p, klen < 64 ? klen : 64), p, d->name, known);
		}
		snprintf(what, sizeof(what), "filesystem.mount: %s", m->key);
		if (has_val && len - klen - 1 > FS_OPT_VALUE_MAX)
			return err_set(e, -EINVAL, CODE, "%s: value too long", what);
		snprintf(val, sizeof(val), "%.*s", has_val ? (int)(len - klen - 1) : 0,
		         p + klen + 1);
		rc = value_check(&m->v, what, has_val ? val : NULL, canon, sizeof(canon), e);
		if (rc)
			return rc;
		switch (m->kind) {
		case MK_NOOP:
			break;
		case MK_ATIME:
			out->atime = (enum fs_atime)m->arg;
			break;
		case MK_ATTR:
			out->attrs |= (unsigned)m->arg;
			break;
		case MK_UNATTR:
			out->attrs &= ~(unsigned)m->arg;
			break;
		case MK_SB:
			snprintf(out->o[out->n].key, sizeof(out->o[0].key), "%s", m->key);
			snprintf(out->o[out->n].value, sizeof(out->o[0].value), "%s", canon);
			out->o[out->n].has_value = has_val;
			out->n++;
			break;
		}
		sunit |= t == FS_XFS && !strcmp(m->key, "sunit");
		swidth |= t == FS_XFS && !strcmp(m->key, "swidth");
		if (!p[len])
			break;
		p += len + 1;
	}
	if (sunit != swidth)
		return err_set(e, -EINVAL, CODE,
		               "filesystem.mount: sunit and swidth go together (both in 512-byte "
		               "units)");
	return 0;
}

void fsopt_info_argv(enum fs_type t, const char *device_path, const char *dir, char ***argv)
{
	struct engine_argv a = { 0 };

	if (t == FS_XFS) {
		engine_argv_add(&a, "xfs_info");
		engine_argv_add(&a, "%s", dir);
	} else {
		engine_argv_add(&a, "tune2fs");
		engine_argv_add(&a, "-l");
		engine_argv_add(&a, "%s", device_path);
	}
	*argv = engine_argv_detach(&a);
}
