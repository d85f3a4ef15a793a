/* fsinfo.h -- what mkfs and mount made, read from the tools' own words: xfs_info (and mkfs.xfs's
 * summary, the same format), tune2fs -l and mke2fs's output, and /proc/self/mountinfo. Pure
 * parsers, no I/O. */
#ifndef FT_FSINFO_H
#define FT_FSINFO_H

#include <stdbool.h>
#include <stddef.h>

#include "engines/fsopt.h"

#define FS_FIGURES_MAX 48

/* One figure, units in the name: "inode_size_bytes" 1024, "sunit_blocks" 16, "features"
 * "has_journal extent ..." (number false: a string). */
struct fs_figure {
	char name[40];
	char value[160];
	bool number;
};

struct fs_figures {
	int n;
	struct fs_figure f[FS_FIGURES_MAX];
};

/* Set name (replacing an earlier value); ignored when full. */
void fs_figures_set(struct fs_figures *fg, const char *name, const char *value, bool number);
/* NULL if absent. */
const struct fs_figure *fs_figures_get(const struct fs_figures *fg, const char *name);

/*
 * xfs_info's or mkfs.xfs's (also -N's) summary: isize, agcount, agsize, sector size, the
 * metadata features (crc, finobt, reflink, ...), data block size and blocks, sunit, swidth,
 * the log's blocks, version and stripe unit; in bytes too where the unit is blocks
 * (sunit_bytes, swidth_bytes, log_size_bytes). Returns the number of figures found, 0 if the
 * text is not such a summary.
 */
int fsinfo_xfs_parse(const char *text, struct fs_figures *out);
/*
 * ext4: tune2fs -l's "Key: value" lines (block and inode size and count, RAID stride and
 * stripe width, flex_bg size, features, ...) and mke2fs's own lines ("Creating filesystem with
 * N 4k blocks and M inodes", "Creating journal (N blocks)"); either may be NULL (a dry run
 * has only mke2fs -n's). Returns the number of figures found.
 */
int fsinfo_ext4_parse(const char *tune2fs_text, const char *mke2fs_text, struct fs_figures *out);

/* One line of /proc/self/mountinfo. */
struct fs_mountinfo {
	unsigned major, minor;
	char mount_point[4096]; /* unescaped (\040 -> ' ') */
	char mount_opts[256];   /* per mount: "rw,noatime" */
	char fstype[32];
	char source[256];
	char super_opts[512]; /* the filesystem's: "rw,inode64,logbufs=8,logbsize=256k,..." */
};

/* Find the last (topmost) mount on mount_point in a mountinfo text. 1 if found, else 0. */
int fsinfo_mountinfo_find(const char *text, const char *mount_point, struct fs_mountinfo *out);
/* Whether any mount in text is of the block device major:minor. */
bool fsinfo_mountinfo_has_dev(const char *text, unsigned major, unsigned minor, char *where,
                              size_t where_len);

#endif
