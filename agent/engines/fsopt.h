/* fsopt.h -- the filesystems a job may make (xfs, ext4): per type the mkfs and mount option
 * tables, their checks, and the mkfs and info command lines. No I/O. */
#ifndef FT_FSOPT_H
#define FT_FSOPT_H

#include <stdbool.h>
#include <stddef.h>

#include "err.h"

#define FS_MKFS_TOKENS_MAX 32 /* argv tokens of filesystem.mkfs */
#define FS_TOKEN_MAX 96       /* bytes of one token, NUL included */
#define FS_MOUNT_MAX 512      /* bytes of filesystem.mount, NUL included */
#define FS_MOUNT_OPTS_MAX 24  /* comma-separated options in filesystem.mount */
#define FS_OPT_KEY_MAX 32
#define FS_OPT_VALUE_MAX 64

enum fs_type { FS_XFS, FS_EXT4, FS_TYPE_COUNT };

/* "xfs", "ext4", NULL: the values of filesystem.type. */
extern const char *const fs_type_names[];

/*
 * A job's "filesystem" object as given: the type, mkfs's options as argv tokens
 * (["-b", "size=4k", "-d", "su=64k,sw=7"]) and the mount options as one string
 * ("noatime,logbufs=8"; "" for the defaults). Plain arrays: copy with '='.
 */
struct fs_spec {
	enum fs_type type;
	int n_mkfs;
	char mkfs[FS_MKFS_TOKENS_MAX][FS_TOKEN_MAX];
	char mount[FS_MOUNT_MAX];
};

/* The name of type t ("xfs"). */
const char *fs_type_name(enum fs_type t);
/* 0 and *t, or -EINVAL with code "invalid_fs_option" naming the choices. */
int fs_type_parse(const char *name, enum fs_type *t, struct err *e);

/*
 * Check filesystem.mkfs against the type's table: every flag known, its value in the form
 * the table gives (sizes as "64k" or bytes without leading zeros, since mkfs reads base 0;
 * powers of two; 0|1; choices), nothing that names another path or device (-d file, -l
 * logdev, -c, -p, -r, -d, -l FILE, -J device), nothing the agent does itself (-N, -n).
 * -EINVAL with code "invalid_fs_option" and a message naming the token:
 * "filesystem.mkfs[3]: -d file: names another path (the agent makes the filesystem on the
 * job's device only)".
 */
int fsopt_mkfs_check(const struct fs_spec *s, struct err *e);

/*
 * mkfs's argv for device_path (heap, NULL-terminated; free with engine_argv_free): the type's
 * mkfs binary, its force flag (the agent has checked the device), with dry_run its no-op flag
 * (mkfs.xfs -N, mkfs.ext4 -n: nothing is written), the checked tokens (a size given to an
 * option mkfs takes in bytes only, like mkfs.xfs -i size=1k, as bytes: 1024), the device.
 * Checks first, with fsopt_mkfs_check's errors.
 */
int fsopt_mkfs_argv(const struct fs_spec *s, const char *device_path, bool dry_run, char ***argv,
                    struct err *e);
/* words[0..n) (n < 0: up to a NULL) as one line in out[len], sep between them, cut at len:
 * the agent's one join of words, for an mkfs argv or a filesystem's mkfs tokens (records,
 * answers, snapshots) and a form's choices (messages). */
void fsopt_words_join(const char *const *words, int n, const char *sep, char *out, size_t len);

/* What the kernel is asked for by filesystem.mount, split the way the mount API takes it. */
enum fs_atime { FS_ATIME_DEFAULT, FS_ATIME_RELATIME, FS_ATIME_NOATIME, FS_ATIME_STRICT };
enum {
	FS_ATTR_NOSUID = 1 << 0,
	FS_ATTR_NODEV = 1 << 1,
	FS_ATTR_NOEXEC = 1 << 2,
	FS_ATTR_NODIRATIME = 1 << 3,
	FS_ATTR_NOSYMFOLLOW = 1 << 4,
};
/* What a job's mount has unless filesystem.mount asks otherwise ("suid", "dev", "exec"). */
#define FS_ATTR_DEFAULT (FS_ATTR_NOSUID | FS_ATTR_NODEV | FS_ATTR_NOEXEC)

/* One option handed to the filesystem (fsconfig): "logbsize" "256k", or a flag "largeio". */
struct fs_sbopt {
	char key[FS_OPT_KEY_MAX];
	char value[FS_OPT_VALUE_MAX];
	bool has_value;
};

struct fs_mount {
	enum fs_atime atime; /* of the mount */
	unsigned attrs;      /* FS_ATTR_* of the mount */
	int n;               /* the superblock's options, in the order given */
	struct fs_sbopt o[FS_MOUNT_OPTS_MAX];
};

/*
 * Check filesystem.mount against the VFS table and the type's, and split it: atime and
 * nosuid/nodev/noexec/nodiratime/nosymfollow go on the mount (nosuid, nodev and noexec by
 * default, FS_ATTR_DEFAULT: "suid", "dev", "exec" take them off), everything else (lazytime, sync,
 * logbufs=8, data=writeback, ...) to the filesystem. Refused with -EINVAL "invalid_fs_option"
 * naming the option: unknown ones (with the known list), "ro" (the job writes), options that
 * name another path or device (logdev=, rtdev=, journal_path=, journal_dev=, usrjquota=),
 * mount(8)/fstab words (user, nofail, x-*, ...), options the kernel no longer has (XFS
 * nobarrier, removed in Linux 4.19), and values outside their form.
 */
int fsopt_mount_parse(enum fs_type t, const char *opts, struct fs_mount *out, struct err *e);

/* The bytes of an mkfs command line, NUL included (jobfs_made.mkfs_argv's size). */
#define FS_MKFS_LINE_MAX 1024

/* A job's filesystem judged whole by the tables (fsopt_spec_check), with what the host side
 * needs of it, so that it asks nothing more of the tables. */
struct fsopt_checked {
	enum fs_type type;
	const char *type_name;    /* "xfs": what the kernel is asked for (fsopen) */
	const char *const *tools; /* the binaries the type needs (fsopt_tools) */
	const char *package;      /* the Debian package that has them: "xfsprogs" */
	const char *dry_flag;     /* mkfs's no-op flag: "-N", "-n" */
	struct fs_mount mount;    /* filesystem.mount split (fsopt_mount_parse) */
	char **mkfs_dry_argv; /* mkfs's no-op argv for the device; owned: fsopt_checked_release */
	char mkfs_line[FS_MKFS_LINE_MAX]; /* mkfs_dry_argv joined by spaces */
};

/*
 * Check s as a whole for device_path: mkfs's options first (fsopt_mkfs_check's errors), then
 * the mount's (fsopt_mount_parse's), and fill out. On an error out holds nothing to release.
 */
int fsopt_spec_check(const struct fs_spec *s, const char *device_path, struct fsopt_checked *out,
                     struct err *e);
/* Free what fsopt_spec_check gave c (NULL, or released twice: nothing). */
void fsopt_checked_release(struct fsopt_checked *c);

/*
 * The command that prints what mkfs made (heap argv, engine_argv_free): "xfs_info DIR" for
 * xfs (the mounted directory), "tune2fs -l DEVICE" for ext4.
 */
void fsopt_info_argv(enum fs_type t, const char *device_path, const char *dir, char ***argv);
/* The binaries a type needs, NULL-terminated ("mkfs.xfs", "xfs_info"). */
const char *const *fsopt_tools(enum fs_type t);

/*
 * The known keys of a type, for messages and documents: the mkfs flags ("-b -d -i ...") and
 * the mount options ("logbufs logbsize ...", VFS ones included), space separated.
 */
void fsopt_known(enum fs_type t, bool mount, char *out, size_t len);

#endif
