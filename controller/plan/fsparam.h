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

/* The most argv tokens an fs.mkfs value splits into, and the bytes of one (NUL included). */
#define FSPARAM_TOKENS_MAX 32
#define FSPARAM_TOKEN_LEN 96

/* What one run of a configuration asks of a node, worked out once from the plan: the device's
 * values (what is PATCHed, or carried in the job), the filesystem the job makes with mkfs's
 * options as argv tokens, and the configuration's label text. */
struct fsparam_run {
	struct config device; /* cfg without its fs.* entries */
	struct fsparam_fs fs;
	int n_mkfs; /* tokens of fs.mkfs in mkfs_tok; -1: not tokens the agent takes */
	char mkfs_tok[FSPARAM_TOKENS_MAX][FSPARAM_TOKEN_LEN];
	/* cfg as config_format writes it ("read_ahead_kb=4096 nr_requests=128"), cut after the
	 * last setting that fits label_max bytes, with " ..." when something was cut */
	char label[CONFIG_MAX * (PARAM_NAME_MAX + PARAM_VALUE_MAX + 1) + 8];
};

/* The run of configuration cfg (NULL: the plan's baseline) under plan p, its label cut to fit
 * label_max bytes (the agent's limit on a label value; at most sizeof(out->label)). */
void fsparam_run_of(const struct plan *p, const struct config *cfg, size_t label_max,
                    struct fsparam_run *out);

/* Split an fs.mkfs value at blanks into argv tokens (at most max, each < FSPARAM_TOKEN_LEN
 * bytes).
 * Returns the number of tokens, or -1 if one is too long or there are too many. */
int fsparam_mkfs_tokens(const char *mkfs, char (*tok)[FSPARAM_TOKEN_LEN], int max);

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
