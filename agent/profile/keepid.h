/* keepid.h -- the keeper's identity look-ups (keeper.c's): each device's identity fields read
 * once per medium, not once per profile, device and scan. Not thread-safe: the keeper calls it
 * under its lock. */
#ifndef FT_KEEPID_H
#define FT_KEEPID_H

#include <stdint.h>

#include "device/sysfs.h"
#include "profile/profile.h"

/* One device's fields as read for its medium (diskseq); have/absent are bit masks by field. */
struct keepid_entry {
	char dev[SYSFS_NAME_MAX];
	uint64_t seq;
	unsigned have, absent;
	char v[IDENT_COUNT][PROFILE_VALUE_MAX];
};

struct keepid {
	struct profile_ident_source src; /* where identity comes from (read NULL: none) */
	struct keepid_entry *e;
	int n, cap;
	unsigned long reads; /* reads passed to src, for tests and the debug log */
};

void keepid_init(struct keepid *c, const struct profile_ident_source *src);
void keepid_release(struct keepid *c);
/* After a scan: keep a device's fields while it holds the same medium (same diskseq); a
 * device that is gone, has a new medium, or has no diskseq to tell (kernels before 5.15) is
 * read again when next asked. */
void keepid_rescan(struct keepid *c, const struct block_seen *seen, int n);
/* The source that reads through c: read NULL when c's src has none (so that profile_check
 * still refuses identity matches). */
struct profile_ident_source keepid_source(struct keepid *c);

#endif
