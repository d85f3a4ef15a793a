/* fsparam.h -- the filesystem layer of a plan: the fs.type, fs.mkfs and fs.mount parameters,
 * the filesystem a configuration asks for, mkfs's tokens, and their compact display. */
#ifndef FT_FSPARAM_H
#define FT_FSPARAM_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"
#include "plan/plan.h"

/* The parameter names of the layer. They are not device parameters: a configuration's fs.*
 * values go into the job's "filesystem" object, never into a PATCH. */
#define FSPARAM_TYPE "fs.type"
#define FSPARAM_MKFS "fs.mkfs"
#define FSPARAM_MOUNT "fs.mount"

/* True for fs.type, fs.mkfs and fs.mount (not for the fs.* sysctls such as fs.file-max). */
bool fsparam_is(const char *name);
/* cfg without its fs.* entries: what is PATCHed onto the device. */
void fsparam_device_config(const struct config *cfg, struct config *out);
/* True if cfg holds an fs.* entry. */
bool fsparam_any(const struct config *cfg);

/* The filesystem a job runs in: the plan's job.filesystem with cfg's fs.* values on top. */
struct fsparam_fs {
	bool present; /* a filesystem at all (job.filesystem or an fs.* value) */
	char type[16];
	char mkfs[PARAM_VALUE_MAX]; /* options separated by blanks: "-b size=4k -i size=1k" */
	char mount[PARAM_VALUE_MAX];
};

/* The filesystem of configuration cfg under plan p. */
void fsparam_fs_of(const struct plan *p, const struct config *cfg, struct fsparam_fs *out);
/* Whether two configurations make the same filesystem. */
bool fsparam_fs_equal(const struct fsparam_fs *a, const struct fsparam_fs *b);

/* Split an fs.mkfs value at blanks into argv tokens (at most max, each < len bytes).
 * Returns the number of tokens, or -1 if one is too long or there are too many. */
int fsparam_mkfs_tokens(const char *mkfs, char (*tok)[96], int max);

/*
 * The compact display of fs.mkfs values: only what differs among the set values[0..n), each
 * option as "-FLAG key=value" with the flag's changed sub-options ("-d su=64k -i size=1k"
 * for "-b size=4k -d su=64k,sw=7 -i size=1k" among "-b size=4k -d su=256k,sw=7 -i size=2k").
 * out gets value i's display ("defaults" when it differs only by lacking options, the whole
 * value when every value is the same); common (may be NULL) what all share
 * ("-b size=4k -d sw=7"), "" when nothing.
 */
void fsparam_mkfs_compact(const char *const *values, int n, int i, struct buf *out,
                          struct buf *common);

#endif
