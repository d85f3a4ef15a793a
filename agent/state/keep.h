/* keep.h -- what one profile is to one device (keeper.c's per-device half): the application of
 * a profile with its before values recorded first, the comparison of live values, drift put
 * back, and the session or job that owns the device meanwhile. Not thread-safe: the keeper
 * calls it under its lock. */
#ifndef FT_KEEP_H
#define FT_KEEP_H

#include <stdbool.h>
#include <stddef.h>

#include "state/keeper.h"

/* What an application writes: the profile's items, validated against the device. */
struct keep_plan {
	struct tune_item *items; /* canon, previous, kind and deferred filled */
	int n;
};
void keep_plan_release(struct keep_plan *pl);
/* p's items validated against dev now (tune_validate: the checks and errors of a PATCH). */
int keep_plan_make(const struct keeper_env *env, const struct profile *p, const char *dev,
                   struct keep_plan *pl, struct err *e);
/*
 * Write what of pl differs from the device (all of it when the scheduler switches: a switch
 * resets the rest), audited as "profile NAME WHY", with tune_apply_if's guard that nothing is
 * written on a device a session or job owns (-EBUSY "yielded"). On success what the kernel
 * took becomes d's wanted values and d is marked applied.
 */
int keep_plan_write(const struct keeper_env *env, const struct profile *p, struct keep_device *d,
                    const struct keep_plan *pl, const char *why, struct err *e);
/* A dry run's record: what pl would write as wanted, what is there as live. */
void keep_preview(struct keep_device *d, const struct keep_plan *pl);

/* Add to b the values pl found for the parameters b lacks (*changed when one was added); an
 * iosched attribute that does not exist yet has no before value. */
void keep_before_merge(const struct keep_plan *pl, struct tune_snapshot *b, bool *changed);
/* befores[0..*n)'s entry for dev, added empty when missing. */
struct tune_snapshot *keep_before_for(struct tune_snapshot **befores, int *n, const char *dev);

/* Who owns dev: a session open on it or a job running on it ("session 3", "job 7"). 1 with
 * who filled, 0 when nobody, -errno (e filled) when the database cannot say. */
int keep_owner(const struct keeper_env *env, const char *dev, char *who, size_t len, struct err *e);

/* d's held parameters afresh from p: wanted is what p requests until an application. */
void keep_device_params_init(struct keep_device *d, const struct profile *p);
void keep_device_release(struct keep_device *d);
void keep_device_copy(struct keep_device *dst, const struct keep_device *src);
/* d's state, with since when it changes. */
void keep_state_set(struct keep_device *d, enum keep_state s, double now);
/* Read d's held values; with judge, mark what differs from wanted. Returns how many differ.
 * live_sig (may be NULL) gets the live values, to tell one drift from another. */
int keep_live_read(const struct keeper_env *env, struct keep_device *d, bool judge, char *live_sig,
                   size_t sig_len);
/* Apply p on d now (its before values recorded first); d becomes held, yielded or failed. */
void keep_apply(const struct keeper_env *env, const struct profile *p, struct keep_device *d,
                const char *why);

/* A put-back of drift that failed is tried again when the live values change, or after
 * check_s, then twice as long each time, at most this long. */
#define KEEP_RETRY_MAX_S 60.0

enum keep_pass {
	KEEP_PASS_READ,  /* a request's look: live values read, nothing written */
	KEEP_PASS_SCAN,  /* the worker's scan: applications owed are made */
	KEEP_PASS_CHECK, /* ... and every device compared, drift put back where p enforces */
};
/*
 * What p is to d now, per mode. b: d's entry in the last scan (NULL: not there); started: the
 * pass at agent start is done (an appearance before it is "at agent start"); rival: an older
 * profile that holds one of p's parameters on d (NULL: none). *kick is set when a request's
 * look found drift for the worker to put back.
 */
void keep_process(const struct keeper_env *env, const struct profile *p, struct keep_device *d,
                  const struct block_seen *b, bool started, const char *rival, enum keep_pass mode,
                  bool *kick);

#endif
