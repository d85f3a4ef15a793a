/* keep.c -- what one profile is to one device: its application (before values first), the
 * comparison of live values, drift put back, and who owns the device meanwhile. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "num.h"
#include "state/keep.h"
#include "xmalloc.h"
#include "banned.h"

void keep_plan_release(struct keep_plan *pl)
{
	free(pl->items);
	pl->items = NULL;
	pl->n = 0;
}

void keep_device_release(struct keep_device *d)
{
	free(d->params);
	d->params = NULL;
	d->n_params = 0;
}

void keep_device_copy(struct keep_device *dst, const struct keep_device *src)
{
	*dst = *src;
	dst->params = xcalloc((size_t)src->n_params + 1, sizeof(*dst->params));
	memcpy(dst->params, src->params, (size_t)src->n_params * sizeof(*dst->params));
}

void keep_state_set(struct keep_device *d, enum keep_state s, double now)
{
	if (d->state != s)
		d->since = now;
	d->state = s;
	if (s != KEEP_YIELDED && s != KEEP_CONFLICT)
		d->owner[0] = '\0';
}

/* The held parameters of a fresh record: wanted is what was requested until an application. */
void keep_device_params_init(struct keep_device *d, const struct profile *p)
{
	int i;

	keep_device_release(d);
	d->params = xcalloc((size_t)p->params.n + 1, sizeof(*d->params));
	d->n_params = p->params.n;
	for (i = 0; i < p->params.n; i++) {
		struct keep_param *kp = &d->params[i];
		const char *req = p->params.items[i].requested;

		snprintf(kp->name, sizeof(kp->name), "%s", p->params.items[i].name);
		snprintf(kp->wanted, sizeof(kp->wanted), "%s", req);
		kp->kind = num_is_plain_int(req) ? PARAM_INT : PARAM_TEXT;
	}
}

static struct keep_param *param_find(struct keep_device *d, const char *name)
{
	int i;

	for (i = 0; i < d->n_params; i++)
		if (!strcmp(d->params[i].name, name))
			return &d->params[i];
	return NULL;
}

/*
 * Who owns dev now: a tuning session open on it, or a job running on it ("session 3", "job
 * 7"). 1 (who filled) when one does, 0 when none, -errno (e filled) when the database cannot
 * say: the caller then writes nothing.
 */
int keep_owner(const struct keeper_env *env, const char *dev, char *who, size_t len, struct err *e)
{
	struct session_rec *ss = NULL;
	struct job_rec *js = NULL;
	int n = 0, i, rc, found = 0;

	rc = store_sessions_list(env->store, "open", dev, &ss, &n, e);
	if (rc)
		return rc;
	if (n > 0) {
		snprintf(who, len, "session %lld", (long long)ss[0].id);
		found = 1;
	}
	free(ss);
	if (found)
		return 1;
	rc = store_jobs_list(env->store, job_state_name(JOB_RUNNING), 100, false, &js, &n, e);
	if (rc)
		return rc;
	for (i = 0; i < n && !found; i++) {
		if (strcmp(js[i].device, dev))
			continue;
		snprintf(who, len, "job %lld", (long long)js[i].id);
		found = 1;
	}
	store_jobs_free(js, n);
	return found;
}

/* tune_apply_if's guard: nothing is written on a device a session or job owns. Runs with the
 * tune lock held, so that no session can snapshot and no job apply in between. */
static int may_write(void *cls, const char *dev, struct err *e)
{
	const struct keeper_env *env = cls;
	char who[64];
	int rc = keep_owner(env, dev, who, sizeof(who), e);

	if (rc > 0)
		return err_set(e, -EBUSY, ERR_YIELDED, "%s owns '%s'", who, dev);
	return rc;
}

/* The profile's items validated against dev now (canon, previous, kind). */
int keep_plan_make(const struct keeper_env *env, const struct profile *p, const char *dev,
                   struct keep_plan *pl, struct err *e)
{
	int rc;

	pl->n = p->params.n;
	pl->items = xcalloc((size_t)pl->n + 1, sizeof(*pl->items));
	memcpy(pl->items, p->params.items, (size_t)pl->n * sizeof(*pl->items));
	rc = tune_validate(env->tune, dev, pl->items, pl->n, e);
	if (rc)
		keep_plan_release(pl);
	return rc;
}

/* Add to b (dev's before values) the values pl found for the parameters b lacks; *changed
 * says one was added. An iosched attribute that does not exist yet has no before value. */
void keep_before_merge(const struct keep_plan *pl, struct tune_snapshot *b, bool *changed)
{
	int i, j;

	for (i = 0; i < pl->n; i++) {
		const struct tune_item *it = &pl->items[i];
		bool have = false;

		if (!it->previous[0])
			continue;
		for (j = 0; j < b->n && !have; j++)
			have = !strcmp(b->items[j].name, it->name);
		if (have)
			continue;
		b->items = xrealloc(b->items, (size_t)(b->n + 1) * sizeof(*b->items));
		memset(&b->items[b->n], 0, sizeof(b->items[b->n]));
		snprintf(b->items[b->n].name, sizeof(b->items[b->n].name), "%s", it->name);
		snprintf(b->items[b->n].previous, sizeof(b->items[b->n].previous), "%s",
		         it->previous);
		b->items[b->n].kind = it->kind;
		b->n++;
		*changed = true;
	}
}

/* befores[0..*n)'s entry for dev, added empty when missing. */
struct tune_snapshot *keep_before_for(struct tune_snapshot **befores, int *n, const char *dev)
{
	int i;

	for (i = 0; i < *n; i++)
		if (!strcmp((*befores)[i].device, dev))
			return &(*befores)[i];
	*befores = xrealloc(*befores, (size_t)(*n + 1) * sizeof(**befores));
	memset(&(*befores)[*n], 0, sizeof(**befores));
	snprintf((*befores)[*n].device, sizeof((*befores)[*n].device), "%s", dev);
	return &(*befores)[(*n)++];
}

/* Record, before the first write of profile name on dev, what its parameters were. */
static int before_record(const struct keeper_env *env, const char *name, const char *dev,
                         const struct keep_plan *pl, struct err *e)
{
	struct tune_snapshot *befores = NULL, *b;
	bool changed = false;
	int n = 0, rc;

	rc = store_profile_befores(env->store, name, &befores, &n, e);
	if (rc)
		return rc;
	b = keep_before_for(&befores, &n, dev);
	keep_before_merge(pl, b, &changed);
	if (changed)
		rc = store_profile_before_put(env->store, name, b, e);
	store_snapshots_free(befores, n);
	return rc;
}

/* After a write of items[0..n) (or none) on d: what the kernel took becomes what is wanted. */
static void wanted_update(struct keep_device *d, const struct keep_plan *pl,
                          const struct tune_item *w, int nw)
{
	int i, j;

	for (i = 0; i < pl->n; i++) {
		const struct tune_item *it = &pl->items[i], *done = NULL;
		struct keep_param *kp = param_find(d, it->name);

		if (!kp)
			continue;
		for (j = 0; j < nw && !done; j++)
			if (!strcmp(w[j].name, it->name))
				done = &w[j];
		kp->kind = it->kind;
		snprintf(kp->previous, sizeof(kp->previous), "%s", it->previous);
		if (done) {
			snprintf(kp->wanted, sizeof(kp->wanted), "%s", done->applied);
			kp->adjusted = done->adjusted;
		} else if (it->previous[0]) {
			snprintf(kp->wanted, sizeof(kp->wanted), "%s", it->previous);
		}
		snprintf(kp->live, sizeof(kp->live), "%s", kp->wanted);
		kp->readable = true;
		kp->drifted = false;
		kp->drift_since = 0;
	}
}

/* Write what of pl differs from the device (everything when the scheduler switches: that
 * resets the rest), audited as "profile NAME WHY". -EBUSY "yielded" when an owner came. */
int keep_plan_write(const struct keeper_env *env, const struct profile *p, struct keep_device *d,
                    const struct keep_plan *pl, const char *why, struct err *e)
{
	struct tune_item *w = xcalloc((size_t)pl->n + 1, sizeof(*w));
	bool all = false, rolled_back;
	char origin[256];
	int i, m = 0, rc = 0;

	for (i = 0; i < pl->n; i++)
		if (!strcmp(pl->items[i].name, "scheduler") &&
		    !sysfs_value_equal(pl->items[i].canon, pl->items[i].previous))
			all = true;
	for (i = 0; i < pl->n; i++)
		if (all || pl->items[i].deferred ||
		    !sysfs_value_equal(pl->items[i].canon, pl->items[i].previous))
			w[m++] = pl->items[i];
	if (m) {
		snprintf(origin, sizeof(origin), "profile %s %s", p->name, why);
		rc = tune_apply_if(env->tune, d->device, w, m, origin, may_write, (void *)env,
		                   &rolled_back, e);
	}
	if (rc == 0) {
		double t = env->now_s();

		wanted_update(d, pl, w, m);
		d->applied_at = t;
		d->checked_at = t;
		snprintf(d->applied_by, sizeof(d->applied_by), "%s", why);
		d->error[0] = '\0';
		d->failed_live[0] = '\0';
		d->failures = 0;
		if (m)
			log_info("profile %s on %s: applied %s (%d value(s) written)", p->name,
			         d->device, why, m);
	}
	free(w);
	return rc;
}

/* Apply profile p to d now (before values first). */
void keep_apply(const struct keeper_env *env, const struct profile *p, struct keep_device *d,
                const char *why)
{
	struct keep_plan pl = { NULL, 0 };
	double t = env->now_s();
	char who[64];
	struct err e;
	int rc;

	err_clear(&e);
	d->owed = false;
	rc = keep_plan_make(env, p, d->device, &pl, &e);
	if (rc == 0)
		rc = before_record(env, p->name, d->device, &pl, &e);
	if (rc == 0)
		rc = keep_plan_write(env, p, d, &pl, why, &e);
	keep_plan_release(&pl);
	if (rc == -EBUSY && e.code == ERR_YIELDED &&
	    keep_owner(env, d->device, who, sizeof(who), &e) > 0) {
		d->owed = true;
		snprintf(d->owed_why, sizeof(d->owed_why), "after %s let go", who);
		keep_state_set(d, KEEP_YIELDED, t);
		snprintf(d->owner, sizeof(d->owner), "%s", who);
		return;
	}
	if (rc) {
		snprintf(d->error, sizeof(d->error), "%s", e.msg);
		keep_state_set(d, KEEP_FAILED, t);
		log_error("profile %s on %s: cannot apply %s: %s", p->name, d->device, why, e.msg);
		return;
	}
	keep_state_set(d, KEEP_HELD, t);
}

/* Read every held value of d; with judge, mark what differs from wanted. Returns how many
 * differ. live_sig (may be NULL) gets the live values, to tell one drift from another. */
int keep_live_read(const struct keeper_env *env, struct keep_device *d, bool judge, char *live_sig,
                   size_t sig_len)
{
	double t = env->now_s();
	size_t off = 0;
	int i, n = 0;

	if (live_sig && sig_len)
		live_sig[0] = '\0';
	for (i = 0; i < d->n_params; i++) {
		struct keep_param *kp = &d->params[i];
		struct param p;
		struct err e;
		bool differs;

		err_clear(&e);
		kp->readable = sysfs_param_read(env->fs, d->device, kp->name, &p, &e) == 0;
		snprintf(kp->live, sizeof(kp->live), "%s", kp->readable ? p.value : "");
		if (live_sig && off < sig_len)
			off += (size_t)snprintf(live_sig + off, sig_len - off, "%s=%s;", kp->name,
			                        kp->live);
		if (!judge)
			continue;
		differs = !kp->readable || !sysfs_value_equal(kp->live, kp->wanted);
		if (differs && !kp->drifted)
			kp->drift_since = t;
		kp->drifted = differs;
		if (!differs)
			kp->drift_since = 0;
		n += differs;
	}
	if (judge)
		d->checked_at = t;
	return n;
}

/* Put back what drifted on d (the whole profile when the scheduler did: a switch resets the
 * rest, and the iosched attributes it holds are the old scheduler's). */
static void reapply(const struct keeper_env *env, const struct profile *p, struct keep_device *d,
                    const char *live_sig)
{
	struct keep_plan all = { NULL, 0 }, pl = { NULL, 0 };
	char what[256], why[64];
	bool whole = false;
	double t = env->now_s();
	size_t off = 0;
	struct err e;
	int i, rc;

	for (i = 0; i < d->n_params; i++)
		if (d->params[i].drifted &&
		    (!strcmp(d->params[i].name, "scheduler") || !d->params[i].readable))
			whole = true;
	what[0] = '\0';
	for (i = 0; i < d->n_params && off < sizeof(what); i++)
		if (d->params[i].drifted)
			off += (size_t)snprintf(what + off, sizeof(what) - off, "%s%s %s -> %s",
			                        off ? ", " : "", d->params[i].name,
			                        d->params[i].readable ? d->params[i].live
			                                              : "(gone)",
			                        d->params[i].wanted);
	err_clear(&e);
	rc = keep_plan_make(env, p, d->device, &all, &e);
	if (rc == 0) {
		/* The drifted items only (or all of them); keep_plan_write then writes what
		 * differs. */
		pl.items = xcalloc((size_t)all.n + 1, sizeof(*pl.items));
		for (i = 0; i < all.n; i++) {
			struct keep_param *kp = param_find(d, all.items[i].name);

			if (whole || (kp && kp->drifted))
				pl.items[pl.n++] = all.items[i];
		}
		double applied_at = d->applied_at;
		char applied_by[sizeof(d->applied_by)];

		/* applied_* say when the whole profile was last applied, not this put-back. */
		snprintf(applied_by, sizeof(applied_by), "%s", d->applied_by);
		snprintf(why, sizeof(why), "put back drift");
		rc = keep_plan_write(env, p, d, &pl, why, &e);
		d->applied_at = applied_at;
		snprintf(d->applied_by, sizeof(d->applied_by), "%s", applied_by);
	}
	keep_plan_release(&pl);
	keep_plan_release(&all);
	if (rc == -EBUSY && e.code == ERR_YIELDED) {
		d->recheck = true;
		return;
	}
	if (rc) {
		double wait_s = env->check_s;
		int k;

		/* Tried again when the live values change, or after a wait that doubles from
		 * check_s up to KEEP_RETRY_MAX_S: a full or read-only state directory (the audit
		 * row cannot be written) gets room again, a kernel that refused may take it. */
		d->failures++;
		for (k = 1; k < d->failures && wait_s < KEEP_RETRY_MAX_S; k++)
			wait_s *= 2;
		if (wait_s > KEEP_RETRY_MAX_S)
			wait_s = KEEP_RETRY_MAX_S;
		d->retry_at = t + wait_s;
		snprintf(d->error, sizeof(d->error),
		         "cannot put back %s (try %d; again in %.0f s): %s", what, d->failures,
		         wait_s, e.msg);
		snprintf(d->failed_live, sizeof(d->failed_live), "%s", live_sig);
		keep_state_set(d, KEEP_DRIFTED, t);
		log_error("profile %s on %s: %s", p->name, d->device, d->error);
		return;
	}
	d->reapplied_at = t;
	d->reapplied_count++;
	snprintf(d->reapplied_what, sizeof(d->reapplied_what), "%s", what);
	keep_state_set(d, KEEP_REAPPLIED, t);
	log_info("profile %s on %s: drift put back (%s)", p->name, d->device, what);
}

/* Record whether d is there (b, NULL when it is not) and whether it appeared anew, which owes
 * it the profile. Returns false when d is absent. */
static bool seen_update(struct keep_device *d, const struct block_seen *b, bool started, double t)
{
	bool appeared;

	if (!b || !b->size_bytes) {
		keep_state_set(d, KEEP_ABSENT, t);
		d->seen = false;
		d->owed = false;
		d->error[0] = '\0';
		return false;
	}
	appeared = !d->seen || (b->has_seq && d->has_seq && b->seq != d->seq);
	d->seen = true;
	d->has_seq = b->has_seq;
	d->seq = b->seq;
	if (appeared) {
		d->owed = true;
		if (started)
			snprintf(d->owed_why, sizeof(d->owed_why), "when %s appeared", d->device);
		else
			snprintf(d->owed_why, sizeof(d->owed_why), "at agent start");
	}
	return true;
}

/* Whether a session or a job owns d (or that cannot be told): then the profile yields and
 * nothing is written. Returns true when it yields. */
static bool owner_yields(const struct keeper_env *env, struct keep_device *d, double t)
{
	char who[64];
	struct err e;
	int rc;

	err_clear(&e);
	rc = keep_owner(env, d->device, who, sizeof(who), &e);
	if (rc < 0) {
		snprintf(
		        d->error, sizeof(d->error),
		        "cannot tell whether a session or a job owns it, so nothing is written: %s",
		        e.msg);
		return true;
	}
	if (rc == 0)
		return false;
	keep_state_set(d, KEEP_YIELDED, t);
	snprintf(d->owner, sizeof(d->owner), "%s", who);
	if (d->owed)
		snprintf(d->owed_why, sizeof(d->owed_why), "after %s let go", who);
	d->recheck = true;
	keep_live_read(env, d, false, NULL, 0);
	return true;
}

/* A request's look: nothing is written; what it finds is for the worker (*kick). A device
 * still marked yielded has lost its owner since the last scan. */
static void read_look(const struct keeper_env *env, const struct profile *p, struct keep_device *d,
                      double t, bool *kick)
{
	bool judge;
	int n;

	if (d->state == KEEP_YIELDED && d->owed) {
		keep_state_set(d, KEEP_PENDING, t);
		*kick = true;
	}
	judge = !d->owed && d->applied_at > 0 && d->state != KEEP_FAILED;
	n = keep_live_read(env, d, judge, NULL, 0);
	if (judge && n && d->state != KEEP_DRIFTED) {
		keep_state_set(d, KEEP_DRIFTED, t);
		if (p->enforce)
			*kick = true;
	} else if (judge && !n && (d->state == KEEP_DRIFTED || d->state == KEEP_YIELDED)) {
		keep_state_set(d, KEEP_HELD, t);
		d->error[0] = '\0';
		d->failed_live[0] = '\0';
	}
}

/* The worker's check of an applied profile: held, drifted, or drift put back. */
static void drift_check(const struct keeper_env *env, const struct profile *p,
                        struct keep_device *d, double t)
{
	char sig[512];
	int n;

	if (d->state == KEEP_FAILED || !d->applied_at) {
		keep_live_read(env, d, false, NULL, 0);
		return;
	}
	n = keep_live_read(env, d, true, sig, sizeof(sig));
	if (n == 0) {
		if (d->state != KEEP_REAPPLIED)
			keep_state_set(d, KEEP_HELD, t);
		d->error[0] = '\0';
		d->failed_live[0] = '\0';
		d->failures = 0;
		return;
	}
	if (!p->enforce) {
		if (d->state != KEEP_DRIFTED)
			log_info("profile %s on %s: drifted (not enforced)", p->name, d->device);
		keep_state_set(d, KEEP_DRIFTED, t);
		return;
	}
	if (d->failed_live[0] && !strcmp(sig, d->failed_live) && t < d->retry_at) {
		/* The same drift that could not be put back, before its next try. */
		keep_state_set(d, KEEP_DRIFTED, t);
		return;
	}
	reapply(env, p, d, sig);
}

void keep_process(const struct keeper_env *env, const struct profile *p, struct keep_device *d,
                  const struct block_seen *b, bool started, const char *rival, enum keep_pass mode,
                  bool *kick)
{
	double t = env->now_s();
	char why[96];

	if (!seen_update(d, b, started, t))
		return;
	if (!sysfs_device_allowed(env->fs, d->device)) {
		keep_state_set(d, KEEP_NOT_ALLOWED, t);
		/* Its values are read when a request asks, never by the worker's passes. */
		if (mode == KEEP_PASS_READ)
			keep_live_read(env, d, false, NULL, 0);
		return;
	}
	if (rival) {
		keep_state_set(d, KEEP_CONFLICT, t);
		snprintf(d->owner, sizeof(d->owner), "profile %s", rival);
		return;
	}
	/* A scan with nothing owed, nothing to look at again and no owner to watch is done: the
	 * worker's every-second pass costs a directory read, not the database. */
	if (mode == KEEP_PASS_SCAN && !d->owed && !d->recheck && d->state != KEEP_YIELDED)
		return;
	if (owner_yields(env, d, t))
		return;
	if (mode == KEEP_PASS_READ) {
		read_look(env, p, d, t, kick);
		return;
	}
	if (d->owed) {
		snprintf(why, sizeof(why), "%s", d->owed_why);
		keep_apply(env, p, d, why);
		d->recheck = false;
		return;
	}
	if (mode != KEEP_PASS_CHECK && !d->recheck)
		return;
	d->recheck = false;
	drift_check(env, p, d, t);
}

void keep_preview(struct keep_device *d, const struct keep_plan *pl)
{
	int j;

	for (j = 0; j < pl->n; j++) {
		const struct tune_item *it = &pl->items[j];
		struct keep_param *kp = param_find(d, it->name);

		if (!kp)
			continue;
		kp->kind = it->kind;
		snprintf(kp->wanted, sizeof(kp->wanted), "%s", it->canon);
		snprintf(kp->live, sizeof(kp->live), "%s", it->previous);
		snprintf(kp->previous, sizeof(kp->previous), "%s", it->previous);
		kp->readable = it->previous[0] != '\0';
		kp->drifted = false; /* not applied yet: what differs is what would be written */
	}
}
