/* keeprec.h -- what a profile is to each device it matches, as the keeper records it: the
 * keeper fills it (keeper.c, keep.c), wire encodes it (wire_profile.c); below both, so that the
 * codec does not look up at the keeper. */
#ifndef FT_KEEPREC_H
#define FT_KEEPREC_H

#include <stdbool.h>
#include <stdint.h>

#include "device/sysfs.h"
#include "profile/profile.h"

/* What a profile is to one device it matches. */
enum keep_state {
	KEEP_HELD,        /* every value is the profile's */
	KEEP_DRIFTED,     /* a value differs: enforce is false, or putting it back failed (error) */
	KEEP_REAPPLIED,   /* a value had drifted and the agent put it back; held since */
	KEEP_PENDING,     /* not applied yet (a dry run's answer, or before the first scan) */
	KEEP_YIELDED,     /* a tuning session or a running job owns the device (owner): the
	                     agent writes nothing there until it lets go, then applies */
	KEEP_FAILED,      /* applying failed (error); tried again when the device reappears,
	                     the profile is set again or the agent restarts */
	KEEP_ABSENT,      /* named by the match, but not present (or without a medium) */
	KEEP_NOT_ALLOWED, /* matches, but is not an --allow-device: never written */
	KEEP_CONFLICT,    /* an older profile (owner) holds one of these parameters on it */
	KEEP_N_STATES,
};
/* The states' words, as the API and /metrics show them (keeprec.c). */
extern const char *const keep_state_names[KEEP_N_STATES];

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
