/* keeprec.h -- what a profile is to each device it matches, as the keeper records it: the
 * keeper fills it (keeper.c, keep.c), wire encodes it (wire_profile.c); below both, so that the
 * codec does not look up at the keeper. */
#ifndef FT_KEEPREC_H
#define FT_KEEPREC_H

#include <stdbool.h>
#include <stdint.h>

#include "device/sysfs.h"
#include "profile/profile.h"
#include "protocol.h" /* enum keep_state, keep_state_names */

/* One held parameter on one device. */
struct keep_param {
	char name[SYSFS_NAME_MAX];
	enum param_kind kind;
	char wanted[SYSFS_VALUE_MAX];   /* what the kernel took at the last application (the
	                                   requested value until one was made) */
	char live[SYSFS_VALUE_MAX];     /* at the last comparison; "" when it could not be read */
	char previous[SYSFS_VALUE_MAX]; /* before the last application ("": none yet) */
	bool readable;                  /* live was read */
	bool drifted;                   /* live differs from wanted */
	double drift_since;             /* when it was first seen differing; 0 unless drifted */
	bool adjusted;                  /* the kernel took another value than the one requested */
};

/* What a profile is to one device. */
struct keep_device {
	char device[SYSFS_NAME_MAX];
	enum keep_state state;
	double since;      /* when the state began (epoch s) */
	double checked_at; /* the last comparison of live values; 0 never */
	double applied_at; /* the last application; 0 never */
	char applied_by[96];
	double reapplied_at; /* the last time drift was put back; 0 never */
	int reapplied_count;
	char reapplied_what[256]; /* "nr_requests 32 -> 128" */
	char owner[64];           /* yielded: "session 3" / "job 7"; conflict: "profile NAME" */
	char error[256];          /* failed, or drift that could not be put back */
	int n_params;
	struct keep_param *params; /* owned; in the profile's order */
	/* the keeper's own */
	bool seen;    /* present at the last scan */
	bool has_seq; /* the kernel's diskseq */
	uint64_t seq; /* ... at the last scan */
	bool owed;    /* an application is due (set, start, appeared, owner let go) */
	char owed_why[96];
	bool recheck;          /* compare at the next scan (an owner let go) */
	char failed_live[512]; /* live values when putting drift back failed: tried again when
	                          they change, or at retry_at */
	double retry_at;       /* the next try of a put-back that failed (epoch s) */
	int failures;          /* put-backs of this drift that failed in a row */
};

/* A profile and what it is to each device it matches, as the API shows it. */
struct keeper_view {
	struct profile profile;
	int n_devices;
	struct keep_device *devices; /* owned; sorted by device */
};
#endif
