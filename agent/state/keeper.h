/* keeper.h -- the profiles the agent keeps: applied when set, at every start, when a matching
 * device appears and when the session or job that owned a device lets go; live values compared
 * with them at start, on a timer and on request; drift put back (enforce) or only reported. */
#ifndef FT_KEEPER_H
#define FT_KEEPER_H

#include <stdbool.h>
#include <stdint.h>

#include "device/sysfs.h"
#include "device/tune.h"
#include "err.h"
#include "profile/keeprec.h"
#include "profile/profile.h"
#include "store/store.h"

/* Free a view (keeprec.h) and a list of them. */
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
 * first changed them; on a device a session or job owns the restore is owed instead (stored
 * with the delete, outcome "owed: job 7 owns it; put back when it lets go") and made by the
 * keeper's passes once the owner has let go, also after a restart, for the parameters no kept
 * profile holds there by then. *restored (caller frees) has one entry per device.
 */
int keeper_delete(struct keeper *k, const char *name, bool restore, const char *origin,
                  struct keeper_view *out, struct keeper_restore **restored, int *n_restored,
                  struct err *e);

#endif
