/* keeper.h -- the profiles the agent keeps: applied when set, at every start, when a matching
 * device appears and when the session or job that owned a device lets go; live values compared
 * with them at start, on a timer and on request; drift put back (enforce) or only reported. */
#ifndef FT_KEEPER_H
#define FT_KEEPER_H

#include <stdbool.h>
#include <stdint.h>

#include "err.h"
#include "profile.h"
#include "store.h"
#include "sysfs.h"
#include "tune.h"

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
extern const char *const keep_state_names[KEEP_N_STATES];

/* One held parameter on one device. */
struct keep_param {
	char name[SYSFS_NAME_MAX];
	enum param_kind kind;
	char wanted[SYSFS_VALUE_MAX]; /* what the kernel took at the last application (the
	                                 requested value until one was made) */
	char live[SYSFS_VALUE_MAX];   /* at the last comparison; "" when it could not be read */
	bool readable;                /* live was read */
	bool drifted;                 /* live differs from wanted */
	double drift_since;           /* when it was first seen differing; 0 unless drifted */
	bool adjusted;                /* the kernel took another value than the one requested */
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
	char failed_live[512]; /* live values when putting drift back failed: no retry until they
	                          change */
};

/* A profile and what it is to each device it matches, as the API shows it. */
struct keeper_view {
	struct profile profile;
	int n_devices;
	struct keep_device *devices; /* owned; sorted by device */
};
void keeper_view_release(struct keeper_view *v);
void keeper_views_free(struct keeper_view *v, int n);

/* What the keeper works with; pointers borrowed (they must outlive it). */
struct keeper_env {
	struct store *store;    /* profiles and their before values; the sessions and jobs that own
	                           devices */
	struct tune *tune;      /* every write, audited */
	const struct sysfs *fs; /* devices: present, allowlisted; values read */
	struct profile_ident_source ident; /* identity for matches (read NULL: none yet) */
	double scan_s;  /* how often ROOT/sys/block is scanned for devices that appear (0: 1 s) */
	double check_s; /* how often live values are compared with the profiles (0: 5 s) */
	double (*now_s)(void); /* the wall clock, epoch s (NULL: time_now_s) */
	bool manual;           /* no worker thread: the caller runs keeper_tick() (unit tests) */
};

struct keeper;

/* Load the stored profiles, apply them to every matching device ("at agent start") and start
 * the worker (unless env->manual). env is copied. */
int keeper_start(struct keeper **out, const struct keeper_env *env, struct err *e);
/* Stop the worker and free; NULL is fine. Values stay as they are. */
void keeper_stop(struct keeper *k);
/* One pass of the worker: scan for devices, apply what is owed, and when check, compare every
 * device's live values and put drift back where the profile enforces. */
void keeper_tick(struct keeper *k, bool check);
/* Wake the worker for a pass with a comparison now. */
void keeper_kick(struct keeper *k);

/*
 * Set profile p (taken over: p is left empty on success and on failure): checked
 * (profile_check, then an older profile holding one of its parameters on a device both match
 * is 409 "conflict", a device named exactly that is not an --allow-device is 403), every
 * present matching allowlisted device's values validated as a PATCH would (422 naming the
 * device), then, unless dry_run, stored and applied all or nothing: a device the kernel refuses
 * puts back every device already written and the stored profile is as before (*rolled_back).
 * Devices a session or job owns are applied when it lets go. out receives the view (dry run:
 * what would be done, states "pending"); *created says there was no profile of that name.
 */
int keeper_put(struct keeper *k, struct profile *p, bool dry_run, const char *origin,
               struct keeper_view *out, bool *created, bool *rolled_back, struct err *e);
/* A profile with every device's live values read now (nothing written); -ENOENT "not_found". */
int keeper_get(struct keeper *k, const char *name, struct keeper_view *out, struct err *e);
/* Every profile by name; live: read the values now, else as the last comparison found them.
 * Caller frees with keeper_views_free. */
int keeper_list(struct keeper *k, bool live, struct keeper_view **out, int *n, struct err *e);

/* What DELETE ?restore=true did on one device. */
struct keeper_restore {
	char device[SYSFS_NAME_MAX];
	char outcome[256]; /* "ok (2 values written)", "not restored: session 3 owns it", ... */
};
/*
 * Stop keeping profile name (-ENOENT "not_found"); out receives it as it was. With restore,
 * every present device it held gets back the values its parameters had before the profile
 * first changed them (a device a session or job owns is left alone and says so); *restored
 * (caller frees) has one entry per device.
 */
int keeper_delete(struct keeper *k, const char *name, bool restore, const char *origin,
                  struct keeper_view *out, struct keeper_restore **restored, int *n_restored,
                  struct err *e);

#endif
