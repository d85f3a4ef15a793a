/* keeper.c -- the profiles the agent keeps: the set of them, set and deleted all or nothing, the
 * scans for devices that appear, the worker, and the views the API shows (keep.c: one device). */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "log.h"
#include "num.h"
#include "profile/keepid.h"
#include "state/keep.h"
#include "state/keeper.h"
#include "timeutil.h"
#include "xmalloc.h"
#include "banned.h"

#define KEEPER_SCAN_S 1.0
#define KEEPER_CHECK_S 5.0
#define KEEPER_PROFILES_MAX 256 /* every scan walks them all */

/* A profile and its devices, sorted by name. */
struct kept {
	struct profile p;
	int n, cap;
	struct keep_device *dev;
};

struct keeper {
	struct keeper_env env; /* now_s never NULL, scan_s and check_s > 0 */
	pthread_mutex_t lock;  /* held for a whole pass or request: one at a time */
	pthread_cond_t wake;
	pthread_t thread;
	bool thread_started, stop, kick;
	bool started; /* the pass at agent start is done */
	int n, cap;
	struct kept *kept;       /* oldest first: on a device two profiles hold, the older wins */
	struct block_seen *seen; /* the last scan of ROOT/sys/block */
	int n_seen;
	int n_owed;                        /* restores owed (profile_restores_owed) */
	struct keepid ids;                 /* identity read once per device and medium */
	struct profile_ident_source ident; /* env.ident through ids */
};

static void kept_release(struct kept *kp)
{
	int i;

	for (i = 0; i < kp->n; i++)
		keep_device_release(&kp->dev[i]);
	free(kp->dev);
	kp->dev = NULL;
	kp->n = kp->cap = 0;
	profile_release(&kp->p);
}

void keeper_view_release(struct keeper_view *v)
{
	int i;

	if (!v)
		return;
	for (i = 0; i < v->n_devices; i++)
		keep_device_release(&v->devices[i]);
	free(v->devices);
	v->devices = NULL;
	v->n_devices = 0;
	profile_release(&v->profile);
}

void keeper_views_free(struct keeper_view *v, int n)
{
	int i;

	for (i = 0; v && i < n; i++)
		keeper_view_release(&v[i]);
	free(v);
}

static void view_make(const struct kept *kp, struct keeper_view *out)
{
	int i;

	memset(out, 0, sizeof(*out));
	profile_init(&out->profile);
	profile_copy(&out->profile, &kp->p);
	out->devices = xcalloc((size_t)kp->n + 1, sizeof(*out->devices));
	for (i = 0; i < kp->n; i++)
		keep_device_copy(&out->devices[i], &kp->dev[i]);
	out->n_devices = kp->n;
}

static double now_s(struct keeper *k)
{
	return k->env.now_s();
}

/* kp's record of dev, added (pending) if it has none; records stay sorted by device. */
static struct keep_device *device_get(struct kept *kp, const char *dev, double now)
{
	struct keep_device *d;
	int i, at;

	for (i = 0; i < kp->n; i++)
		if (!strcmp(kp->dev[i].device, dev))
			return &kp->dev[i];
	for (at = 0; at < kp->n && strcmp(kp->dev[at].device, dev) < 0; at++)
		;
	kp->dev = xgrow(kp->dev, &kp->cap, kp->n + 1, sizeof(*kp->dev));
	memmove(&kp->dev[at + 1], &kp->dev[at], (size_t)(kp->n - at) * sizeof(*kp->dev));
	kp->n++;
	d = &kp->dev[at];
	memset(d, 0, sizeof(*d));
	snprintf(d->device, sizeof(d->device), "%s", dev);
	d->state = KEEP_PENDING;
	d->since = now;
	keep_device_params_init(d, &kp->p);
	return d;
}

static const struct block_seen *seen_find(const struct keeper *k, const char *dev)
{
	int i;

	for (i = 0; i < k->n_seen; i++)
		if (!strcmp(k->seen[i].name, dev))
			return &k->seen[i];
	return NULL;
}

static bool present(const struct keeper *k, const char *dev)
{
	const struct block_seen *b = seen_find(k, dev);

	return b && b->size_bytes > 0;
}

/* Whether p is about dev now: when dev is present, if it matches (names or patterns, and the
 * identity fields); when it is not, if p names it exactly (it is absent). The rule of scans,
 * PUTs and conflicts alike. */
static bool about(const struct keeper *k, const struct profile *p, const char *dev)
{
	return present(k, dev) ? profile_matches(p, dev, &k->ident) : profile_names(p, dev);
}

/* Scan ROOT/sys/block (allowed_only: the worker's periodic scan, which reads the
 * --allow-device devices and leaves the others as the last full scan saw them; a request's
 * look reads them all); on failure the last scan stays. */
static void scan_some(struct keeper *k, bool allowed_only)
{
	struct block_seen *list = NULL;
	struct err e;
	int n = 0, rc;

	err_clear(&e);
	rc = allowed_only ? sysfs_block_scan_allowed(k->env.fs, k->seen, k->n_seen, &list, &n, &e)
	                  : sysfs_block_scan(k->env.fs, &list, &n, &e);
	if (rc) {
		log_error("profiles: cannot scan for block devices: %s", e.msg);
		return;
	}
	free(k->seen);
	k->seen = list;
	k->n_seen = n;
	keepid_rescan(&k->ids, list, n);
}

static void scan(struct keeper *k)
{
	scan_some(k, false);
}

/* The older profile that holds one of k->kept[idx]'s parameters on dev, or NULL. */
static const struct kept *contender(const struct keeper *k, int idx, const char *dev)
{
	char name[SYSFS_NAME_MAX];
	int j;

	for (j = 0; j < idx; j++)
		if (about(k, &k->kept[j].p, dev) &&
		    profile_params_overlap(&k->kept[idx].p, &k->kept[j].p, name, sizeof(name)))
			return &k->kept[j];
	return NULL;
}

/* The devices kept k->kept[idx] is about now: the ones its match names exactly (present or
 * not) and the present ones it matches; each is then processed. */
static void kept_sync(struct keeper *k, int idx, enum keep_pass mode)
{
	struct kept *kp = &k->kept[idx];
	const struct profile *p = &kp->p;
	double t = now_s(k);
	bool *keep;
	int i, j;

	for (i = 0; i < p->match.n_devices; i++)
		if (!profile_is_pattern(p->match.devices[i]) && about(k, p, p->match.devices[i]))
			device_get(kp, p->match.devices[i], t);
	for (i = 0; i < k->n_seen; i++)
		if (k->seen[i].size_bytes && profile_matches(p, k->seen[i].name, &k->ident))
			device_get(kp, k->seen[i].name, t);
	keep = xcalloc((size_t)kp->n + 1, sizeof(*keep));
	for (i = 0; i < kp->n; i++)
		keep[i] = about(k, p, kp->dev[i].device);
	for (i = j = 0; i < kp->n; i++) {
		if (keep[i]) {
			kp->dev[j++] = kp->dev[i];
			continue;
		}
		keep_device_release(&kp->dev[i]);
	}
	kp->n = j;
	free(keep);
	for (i = 0; i < kp->n; i++) {
		const struct kept *rival = contender(k, idx, kp->dev[i].device);

		keep_process(&k->env, p, &kp->dev[i], seen_find(k, kp->dev[i].device), k->started,
		             rival ? rival->p.name : NULL, mode, &k->kick);
	}
}

/* Whether a kept profile holds parameter name on dev now. */
static bool held_by_kept(const struct keeper *k, const char *dev, const char *name)
{
	int i;

	for (i = 0; i < k->n; i++)
		if (about(k, &k->kept[i].p, dev) && profile_param(&k->kept[i].p, name))
			return true;
	return false;
}

/* Pay the restores a DELETE ?restore=true owes devices whose owner has let go: the values the
 * deleted profile found, but none a kept profile holds there now (issue 31 item 19). */
static void owed_pay(struct keeper *k)
{
	struct restore_owed *list = NULL;
	struct tune_restore_count count = { 0, 0 };
	char who[64], origin[512];
	struct err e;
	int n = 0, i, j, m;

	if (!k->n_owed)
		return;
	err_clear(&e);
	if (store_restores_owed(k->env.store, &list, &n, &e)) {
		log_error("profiles: cannot read the restores owed: %s", e.msg);
		return;
	}
	k->n_owed = n;
	for (i = 0; i < n; i++) {
		struct restore_owed *o = &list[i];
		const char *dev = o->snap.device;

		if (!present(k, dev) || keep_owner(&k->env, dev, who, sizeof(who), &e) != 0)
			continue; /* absent, owned still, or the database cannot say: later */
		for (j = m = 0; j < o->snap.n; j++)
			if (!held_by_kept(k, dev, o->snap.items[j].name))
				o->snap.items[m++] = o->snap.items[j];
		o->snap.n = m;
		snprintf(origin, sizeof(origin), "profile %s deleted by %s, once its owner let go",
		         o->profile, o->origin);
		err_clear(&e);
		if (m && sysfs_device_allowed(k->env.fs, dev) &&
		    tune_restore(k->env.tune, &o->snap, origin, &count, &e))
			log_error("profile %s: the restore owed on %s failed: %s", o->profile, dev,
			          e.msg);
		else
			log_info("profile %s (deleted): %s put back now that its owner let go (%d "
			         "value(s) written)",
			         o->profile, dev, count.written);
		err_clear(&e);
		if (store_restore_owed_done(k->env.store, o->id, &e) == 0)
			k->n_owed--;
		else
			log_error("profile %s: cannot record the restore owed on %s as paid: %s",
			          o->profile, dev, e.msg);
	}
	store_restores_owed_free(list, n);
}

/* The worker's pass: nothing at all without a profile (an idle agent reads nothing), else a
 * scan of the allowed devices and each profile's devices processed. */
static void pass_locked(struct keeper *k, enum keep_pass mode)
{
	int i;

	if (!k->n && !k->n_owed)
		return;
	scan_some(k, true);
	owed_pay(k);
	for (i = 0; i < k->n; i++)
		kept_sync(k, i, mode);
}

void keeper_tick(struct keeper *k, bool check)
{
	pthread_mutex_lock(&k->lock);
	pass_locked(k, check ? KEEP_PASS_CHECK : KEEP_PASS_SCAN);
	pthread_mutex_unlock(&k->lock);
}

/* Wait on cond (lock held) for at most wait_s. */
static void cond_wait_s(pthread_cond_t *cond, pthread_mutex_t *lock, double wait_s)
{
	struct timespec ts;

	time_deadline_after(wait_s, &ts);
	pthread_cond_timedwait(cond, lock, &ts);
}

static void *worker_main(void *arg)
{
	struct keeper *k = arg;
	double next_check = time_mono_s() + k->env.check_s, now;
	bool check;

	pthread_mutex_lock(&k->lock);
	while (!k->stop) {
		now = time_mono_s();
		if (!k->kick) {
			double wait = next_check - now;

			cond_wait_s(&k->wake, &k->lock,
			            wait < k->env.scan_s ? (wait > 0 ? wait : 0) : k->env.scan_s);
		}
		if (k->stop)
			break;
		now = time_mono_s();
		check = k->kick || now >= next_check;
		if (check)
			next_check = now + k->env.check_s;
		k->kick = false;
		pass_locked(k, check ? KEEP_PASS_CHECK : KEEP_PASS_SCAN);
	}
	pthread_mutex_unlock(&k->lock);
	return NULL;
}

static int kept_index(const struct keeper *k, const char *name)
{
	int i;

	for (i = 0; i < k->n; i++)
		if (!strcmp(k->kept[i].p.name, name))
			return i;
	return -1;
}

/* Add p (taken over) as the newest profile. */
static struct kept *kept_add(struct keeper *k, struct profile *p)
{
	struct kept *kp;

	k->kept = xgrow(k->kept, &k->cap, k->n + 1, sizeof(*k->kept));
	kp = &k->kept[k->n++];
	memset(kp, 0, sizeof(*kp));
	kp->p = *p;
	profile_init(p);
	return kp;
}

static int created_cmp(const void *a, const void *b)
{
	const struct profile *x = a, *y = b;

	if (x->created_at != y->created_at)
		return x->created_at < y->created_at ? -1 : 1;
	return strcmp(x->name, y->name);
}

int keeper_start(struct keeper **out, const struct keeper_env *env, struct err *e)
{
	struct keeper *k = xcalloc(1, sizeof(*k));
	struct profile *list = NULL;
	int n = 0, i, rc;

	k->env = *env;
	if (!k->env.now_s)
		k->env.now_s = time_now_s;
	if (!(k->env.scan_s > 0))
		k->env.scan_s = KEEPER_SCAN_S;
	if (!(k->env.check_s > 0))
		k->env.check_s = KEEPER_CHECK_S;
	pthread_mutex_init(&k->lock, NULL);
	pthread_cond_init(&k->wake, NULL);
	keepid_init(&k->ids, &k->env.ident);
	k->ident = keepid_source(&k->ids);
	rc = store_profiles_load(k->env.store, &list, &n, e);
	if (rc) {
		keeper_stop(k);
		return rc;
	}
	if (n)
		qsort(list, (size_t)n, sizeof(*list), created_cmp);
	for (i = 0; i < n; i++)
		kept_add(k, &list[i]);
	store_profiles_free(list, n);
	if (k->n)
		log_info("profiles: keeping %d profile(s)", k->n);
	{
		struct restore_owed *owed = NULL;

		rc = store_restores_owed(k->env.store, &owed, &k->n_owed, e);
		store_restores_owed_free(owed, k->n_owed);
		if (rc) {
			keeper_stop(k);
			return rc;
		}
		if (k->n_owed)
			log_info(
			        "profiles: %d restore(s) owed by deleted profiles, made once their "
			        "devices' owners let go",
			        k->n_owed);
	}
	keeper_tick(k, true); /* at agent start: every matching device gets its profile */
	k->started = true;
	if (!k->env.manual) {
		if (pthread_create(&k->thread, NULL, worker_main, k)) {
			keeper_stop(k);
			return err_set(e, -EAGAIN, ERR_INTERNAL, "cannot start the profile thread");
		}
		k->thread_started = true;
	}
	*out = k;
	return 0;
}

void keeper_stop(struct keeper *k)
{
	int i;

	if (!k)
		return;
	pthread_mutex_lock(&k->lock);
	k->stop = true;
	pthread_cond_broadcast(&k->wake);
	pthread_mutex_unlock(&k->lock);
	if (k->thread_started)
		pthread_join(k->thread, NULL);
	for (i = 0; i < k->n; i++)
		kept_release(&k->kept[i]);
	free(k->kept);
	free(k->seen);
	keepid_release(&k->ids);
	pthread_cond_destroy(&k->wake);
	pthread_mutex_destroy(&k->lock);
	free(k);
}

/* A device both p and kept q are about (one either names exactly, or a present device both
 * match): into dev. */
static bool put_contested(const struct keeper *k, const struct profile *p, const struct profile *q,
                          char *dev, size_t len)
{
	const struct profile *both[2] = { p, q };
	int i, j;

	for (j = 0; j < 2; j++)
		for (i = 0; i < both[j]->match.n_devices; i++) {
			const char *d = both[j]->match.devices[i];

			if (!profile_is_pattern(d) && about(k, p, d) && about(k, q, d)) {
				snprintf(dev, len, "%s", d);
				return true;
			}
		}
	for (i = 0; i < k->n_seen; i++) {
		const char *d = k->seen[i].name;

		if (k->seen[i].size_bytes && about(k, p, d) && about(k, q, d)) {
			snprintf(dev, len, "%s", d);
			return true;
		}
	}
	return false;
}

/* The checks of a PUT that need the other profiles and the allowlist. */
static int put_check(struct keeper *k, const struct profile *p, struct err *e)
{
	char name[SYSFS_NAME_MAX], dev[SYSFS_NAME_MAX];
	int i;

	for (i = 0; i < k->n; i++) {
		const struct profile *q = &k->kept[i].p;

		if (!strcmp(q->name, p->name) ||
		    !profile_params_overlap(p, q, name, sizeof(name)) ||
		    !put_contested(k, p, q, dev, sizeof(dev)))
			continue;
		return err_set(e, -EBUSY, ERR_CONFLICT,
		               "profile '%s' already holds %s on '%s'; a parameter of a device is "
		               "held by one profile",
		               q->name, name, dev);
	}
	for (i = 0; i < p->match.n_devices; i++) {
		const char *d = p->match.devices[i];

		if (!profile_is_pattern(d) && !sysfs_device_allowed(k->env.fs, d))
			return err_set(e, -EPERM, ERR_DEVICE_NOT_ALLOWED,
			               "match.devices[%d]: device '%s' is not in the agent's "
			               "--allow-device list",
			               i, d);
	}
	return 0;
}

/* One device of a PUT: what it is, and for a target its validated plan. */
struct put_target {
	struct keep_device *d; /* in the new kept's records */
	struct keep_plan pl;
	bool write;                /* present, allowlisted, not owned: applied now */
	struct tune_snapshot undo; /* the whole device before the write, for a rollback */
	bool written;
};

/* Classify the new profile's devices (records in nk) and validate the targets. */
static int put_prepare(struct keeper *k, struct kept *nk, struct put_target *tg, struct err *e)
{
	char who[64];
	double t = now_s(k);
	int i, rc;

	for (i = 0; i < nk->n; i++) {
		struct keep_device *d = &nk->dev[i];

		tg[i].d = d;
		if (!present(k, d->device)) {
			keep_state_set(d, KEEP_ABSENT, t);
			continue;
		}
		d->seen = true;
		d->has_seq = seen_find(k, d->device)->has_seq;
		d->seq = seen_find(k, d->device)->seq;
		if (!sysfs_device_allowed(k->env.fs, d->device)) {
			keep_state_set(d, KEEP_NOT_ALLOWED, t);
			keep_live_read(&k->env, d, false, NULL, 0);
			continue;
		}
		/* Validated also where an owner holds the device: it is written when it lets go. */
		rc = keep_plan_make(&k->env, &nk->p, d->device, &tg[i].pl, e);
		if (rc) {
			char msg[sizeof(e->msg)];

			snprintf(msg, sizeof(msg), "%s", e->msg);
			return err_set(e, rc, e->code, "%s: %s", d->device, msg);
		}
		rc = keep_owner(&k->env, d->device, who, sizeof(who), e);
		if (rc < 0)
			return rc;
		if (rc > 0) {
			keep_state_set(d, KEEP_YIELDED, t);
			snprintf(d->owner, sizeof(d->owner), "%s", who);
			d->owed = true;
			snprintf(d->owed_why, sizeof(d->owed_why), "after %s let go", who);
			keep_live_read(&k->env, d, false, NULL, 0);
			continue;
		}
		tg[i].write = true;
	}
	return 0;
}

/* Put every device written so far back (a PUT that failed). */
static void put_rollback(struct keeper *k, const char *name, const char *origin,
                         struct put_target *tg, int n)
{
	char rb[320];
	struct err e;
	int i;

	snprintf(rb, sizeof(rb), "rollback of profile %s set by %s", name, origin);
	for (i = 0; i < n; i++) {
		if (!tg[i].written)
			continue;
		err_clear(&e);
		if (tune_restore(k->env.tune, &tg[i].undo, rb, NULL, &e))
			log_error("profile %s: rollback on %s failed: %s", name, tg[i].d->device,
			          e.msg);
	}
}

/* A PUT under way: the new kept, its devices, and the stored befores of the old and new. */
struct put {
	struct kept nk;
	struct put_target *tg;
	int n_tg;
	int idx; /* the profile replaced in k->kept, or -1 */
	struct profile old;
	struct tune_snapshot *old_b, *new_b;
	int n_old_b, n_new_b;
	double t;
};

static void put_release(struct put *pu)
{
	int i;

	for (i = 0; i < pu->n_tg; i++) {
		keep_plan_release(&pu->tg[i].pl);
		tune_snapshot_release(&pu->tg[i].undo);
	}
	free(pu->tg);
	kept_release(&pu->nk);
	profile_release(&pu->old);
	store_snapshots_free(pu->old_b, pu->n_old_b);
	store_snapshots_free(pu->new_b, pu->n_new_b);
}

/* The new profile's device records, by the same rule as a scan's, and their targets. */
static int put_devices(struct keeper *k, struct put *pu, struct err *e)
{
	struct kept *nk = &pu->nk;
	int i;

	for (i = 0; i < nk->p.match.n_devices; i++)
		if (!profile_is_pattern(nk->p.match.devices[i]) &&
		    about(k, &nk->p, nk->p.match.devices[i]))
			device_get(nk, nk->p.match.devices[i], pu->t);
	for (i = 0; i < k->n_seen; i++)
		if (k->seen[i].size_bytes && profile_matches(&nk->p, k->seen[i].name, &k->ident))
			device_get(nk, k->seen[i].name, pu->t);
	pu->tg = xcalloc((size_t)nk->n + 1, sizeof(*pu->tg));
	pu->n_tg = nk->n;
	return put_prepare(k, nk, pu->tg, e);
}

/* Store the profile with its before values (the old profile's, and each target's) first: a
 * crash before the writes leaves a stored profile, which the next start applies. */
static int put_store(struct keeper *k, struct put *pu, struct err *e)
{
	bool changed;
	int i, rc;

	if (pu->idx >= 0) {
		profile_copy(&pu->old, &k->kept[pu->idx].p);
		rc = store_profile_befores(k->env.store, pu->nk.p.name, &pu->old_b, &pu->n_old_b,
		                           e);
		if (rc)
			return rc;
	}
	for (i = 0; i < pu->n_old_b; i++) {
		const struct tune_snapshot *ob = &pu->old_b[i];
		struct tune_snapshot *b = keep_before_for(&pu->new_b, &pu->n_new_b, ob->device);

		b->items = xcalloc((size_t)ob->n + 1, sizeof(*b->items));
		memcpy(b->items, ob->items, (size_t)ob->n * sizeof(*b->items));
		b->n = ob->n;
	}
	for (i = 0; i < pu->nk.n; i++)
		if (pu->tg[i].write)
			keep_before_merge(
			        &pu->tg[i].pl,
			        keep_before_for(&pu->new_b, &pu->n_new_b, pu->tg[i].d->device),
			        &changed);
	return store_profile_save(k->env.store, &pu->nk.p, pu->new_b, pu->n_new_b, e);
}

/* Target i failed with we: put the ones before it back (tune_apply put this one back itself)
 * and undo the saving. */
static int put_fail(struct keeper *k, struct put *pu, const char *origin, int i, int rc,
                    struct err *we, struct err *e)
{
	char msg[sizeof(we->msg)];

	snprintf(msg, sizeof(msg), "%s", we->msg);
	err_set(e, rc, we->code, "%s: %s", pu->tg[i].d->device, msg);
	put_rollback(k, pu->nk.p.name, origin, pu->tg, i);
	err_clear(we);
	if (store_profile_undo(k->env.store, pu->nk.p.name, pu->idx >= 0 ? &pu->old : NULL,
	                       pu->old_b, pu->n_old_b, we))
		log_error("profile %s: cannot undo its saving after a failed PUT: %s",
		          pu->nk.p.name, we->msg);
	return rc;
}

/* Write every target; a device an owner took meanwhile yields. On a failure every device is
 * put back and *rolled_back set. */
static int put_write(struct keeper *k, struct put *pu, const char *origin, bool *rolled_back,
                     struct err *e)
{
	char why[320];
	int i, last, rc = 0;

	snprintf(why, sizeof(why), "set by %s", origin);
	for (i = last = 0; i < pu->nk.n; i++)
		if (pu->tg[i].write)
			last = i;
	for (i = 0; i < pu->nk.n; i++) {
		struct keep_device *d = pu->tg[i].d;
		char who[64];
		struct err we;

		if (!pu->tg[i].write)
			continue;
		err_clear(&we);
		/* A device is put back by hand only when a later one fails; the last one is put
		 * back by tune_apply itself. */
		rc = i < last ? tune_snapshot_take(k->env.tune, d->device, &pu->tg[i].undo, &we)
		              : 0;
		if (rc == 0)
			rc = keep_plan_write(&k->env, &pu->nk.p, d, &pu->tg[i].pl, why, &we);
		if (rc == -EBUSY && we.code == ERR_YIELDED &&
		    keep_owner(&k->env, d->device, who, sizeof(who), &we) > 0) {
			keep_state_set(d, KEEP_YIELDED, pu->t);
			snprintf(d->owner, sizeof(d->owner), "%s", who);
			d->owed = true;
			snprintf(d->owed_why, sizeof(d->owed_why), "after %s let go", who);
			rc = 0;
			continue;
		}
		if (rc) {
			*rolled_back = true;
			return put_fail(k, pu, origin, i, rc, &we, e);
		}
		pu->tg[i].written = true;
		keep_state_set(d, KEEP_HELD, pu->t);
	}
	return 0;
}

/* Kept from now on, with the new records; out gets its view. */
static void put_keep(struct keeper *k, struct put *pu, struct keeper_view *out)
{
	if (pu->idx >= 0) {
		kept_release(&k->kept[pu->idx]);
		k->kept[pu->idx] = pu->nk;
	} else {
		k->kept = xgrow(k->kept, &k->cap, k->n + 1, sizeof(*k->kept));
		k->kept[k->n++] = pu->nk;
	}
	memset(&pu->nk, 0, sizeof(pu->nk));
	profile_init(&pu->nk.p);
	view_make(&k->kept[pu->idx >= 0 ? pu->idx : k->n - 1], out);
}

int keeper_put(struct keeper *k, struct profile *p, bool dry_run, const char *origin,
               struct keeper_view *out, bool *created, bool *rolled_back, struct err *e)
{
	struct put pu;
	int i, rc;

	*rolled_back = false;
	*created = false;
	memset(out, 0, sizeof(*out));
	memset(&pu, 0, sizeof(pu));
	profile_init(&pu.old);
	rc = profile_check(p, &k->ident, e);
	if (rc) {
		profile_release(p);
		return rc;
	}
	pthread_mutex_lock(&k->lock);
	pu.t = now_s(k);
	scan(k);
	pu.idx = kept_index(k, p->name);
	*created = pu.idx < 0;
	rc = pu.idx < 0 && k->n >= KEEPER_PROFILES_MAX
	             ? err_set(e, -EBUSY, ERR_CONFLICT,
	                       "the agent keeps at most %d profiles; delete one first",
	                       KEEPER_PROFILES_MAX)
	             : put_check(k, p, e);
	if (rc)
		goto out;
	p->created_at = pu.idx < 0 ? pu.t : k->kept[pu.idx].p.created_at;
	p->updated_at = pu.t;
	pu.nk.p = *p;
	profile_init(p);
	rc = put_devices(k, &pu, e);
	if (rc)
		goto out;
	if (dry_run) {
		for (i = 0; i < pu.nk.n; i++)
			if (pu.tg[i].write)
				keep_preview(pu.tg[i].d, &pu.tg[i].pl);
		view_make(&pu.nk, out);
		goto out;
	}
	rc = put_store(k, &pu, e);
	if (rc == 0)
		rc = put_write(k, &pu, origin, rolled_back, e);
	if (rc)
		goto out;
	put_keep(k, &pu, out);
	log_info("profile %s %s by %s", out->profile.name, *created ? "created" : "replaced",
	         origin);
out:
	put_release(&pu);
	profile_release(p);
	pthread_mutex_unlock(&k->lock);
	return rc;
}

/* Profile name's index with its devices looked at now (nothing written), or -ENOENT
 * "not_found"; the caller holds the lock. */
static int look_locked(struct keeper *k, const char *name, struct err *e)
{
	int idx = kept_index(k, name);

	if (idx < 0)
		return err_set(e, -ENOENT, ERR_NOT_FOUND, "no profile '%s'", name);
	scan(k);
	kept_sync(k, idx, KEEP_PASS_READ);
	return idx;
}

int keeper_get(struct keeper *k, const char *name, struct keeper_view *out, struct err *e)
{
	int idx, rc = 0;

	memset(out, 0, sizeof(*out));
	pthread_mutex_lock(&k->lock);
	idx = look_locked(k, name, e);
	if (idx < 0) {
		rc = idx;
		goto out;
	}
	view_make(&k->kept[idx], out);
	if (k->kick)
		pthread_cond_signal(&k->wake);
out:
	pthread_mutex_unlock(&k->lock);
	return rc;
}

static int view_name_cmp(const void *a, const void *b)
{
	return strcmp(((const struct keeper_view *)a)->profile.name,
	              ((const struct keeper_view *)b)->profile.name);
}

int keeper_list(struct keeper *k, bool live, struct keeper_view **out, int *n, struct err *e)
{
	int i;

	(void)e;
	pthread_mutex_lock(&k->lock);
	if (live) {
		scan(k);
		for (i = 0; i < k->n; i++)
			kept_sync(k, i, KEEP_PASS_READ);
		if (k->kick)
			pthread_cond_signal(&k->wake);
	}
	*out = xcalloc((size_t)k->n + 1, sizeof(**out));
	*n = k->n;
	for (i = 0; i < k->n; i++)
		view_make(&k->kept[i], &(*out)[i]);
	pthread_mutex_unlock(&k->lock);
	if (*n > 1)
		qsort(*out, (size_t)*n, sizeof(**out), view_name_cmp);
	return 0;
}

/* The values profile p found on dev for its parameters (from befores), into snap; false when
 * it changed nothing there. */
static bool owed_snapshot(const struct profile *p, const struct tune_snapshot *befores, int nb,
                          const char *dev, struct tune_snapshot *snap)
{
	int i, j;

	memset(snap, 0, sizeof(*snap));
	for (i = 0; i < nb; i++) {
		if (strcmp(befores[i].device, dev))
			continue;
		snprintf(snap->device, sizeof(snap->device), "%s", dev);
		snap->items = xcalloc((size_t)befores[i].n + 1, sizeof(*snap->items));
		for (j = 0; j < befores[i].n; j++)
			if (profile_param(p, befores[i].items[j].name))
				snap->items[snap->n++] = befores[i].items[j];
		if (!snap->n)
			tune_snapshot_release(snap);
		return snap->n > 0;
	}
	return false;
}

/* Put d's before values of the parameters p holds back (restore of a DELETE). */
static void delete_restore(struct keeper *k, const struct profile *p, const struct keep_device *d,
                           const struct tune_snapshot *befores, int nb, const char *origin,
                           struct keeper_restore *r)
{
	const struct tune_snapshot *b = NULL;
	struct tune_snapshot snap = { { 0 }, 0, NULL };
	struct tune_restore_count count = { 0, 0 };
	char who[64], rorigin[320];
	struct err e;
	int i, rc;

	snprintf(r->device, sizeof(r->device), "%s", d->device);
	for (i = 0; i < nb && !b; i++)
		if (!strcmp(befores[i].device, d->device))
			b = &befores[i];
	if (!present(k, d->device)) {
		snprintf(r->outcome, sizeof(r->outcome), "not restored: the device is not present");
		return;
	}
	if (!b || !sysfs_device_allowed(k->env.fs, d->device)) {
		snprintf(r->outcome, sizeof(r->outcome),
		         "nothing to restore: the profile changed nothing here");
		return;
	}
	err_clear(&e);
	rc = keep_owner(&k->env, d->device, who, sizeof(who), &e);
	if (rc != 0) {
		snprintf(r->outcome, sizeof(r->outcome), "not restored: %s", rc > 0 ? who : e.msg);
		if (rc > 0)
			snprintf(r->outcome, sizeof(r->outcome), "not restored: %s owns it", who);
		return;
	}
	snprintf(snap.device, sizeof(snap.device), "%s", d->device);
	snap.items = xcalloc((size_t)b->n + 1, sizeof(*snap.items));
	for (i = 0; i < b->n; i++)
		if (profile_param(p, b->items[i].name))
			snap.items[snap.n++] = b->items[i];
	snprintf(rorigin, sizeof(rorigin), "profile %s deleted by %s", p->name, origin);
	rc = tune_restore(k->env.tune, &snap, rorigin, &count, &e);
	if (rc)
		snprintf(r->outcome, sizeof(r->outcome), "failed: %s", e.msg);
	else
		snprintf(r->outcome, sizeof(r->outcome), "ok (%d value(s) written)", count.written);
	tune_snapshot_release(&snap);
}

int keeper_delete(struct keeper *k, const char *name, bool restore, const char *origin,
                  struct keeper_view *out, struct keeper_restore **restored, int *n_restored,
                  struct err *e)
{
	struct tune_snapshot *befores = NULL;
	struct restore_owed *owed = NULL;
	char **owner = NULL;
	int idx, i, nb = 0, n_owed = 0, rc = 0;

	memset(out, 0, sizeof(*out));
	*restored = NULL;
	*n_restored = 0;
	pthread_mutex_lock(&k->lock);
	idx = look_locked(k, name, e);
	if (idx < 0) {
		rc = idx;
		goto out;
	}
	view_make(&k->kept[idx], out);
	if (restore) {
		rc = store_profile_befores(k->env.store, name, &befores, &nb, e);
		if (rc)
			goto out;
		/* A device a session or job owns now is put back when it lets go: the debt is
		 * stored with the delete, so a restart pays it too. */
		owed = xcalloc((size_t)out->n_devices + 1, sizeof(*owed));
		owner = xcalloc((size_t)out->n_devices + 1, sizeof(*owner));
		for (i = 0; i < out->n_devices; i++) {
			const char *dev = out->devices[i].device;
			char who[64];

			if (!present(k, dev) || !sysfs_device_allowed(k->env.fs, dev) ||
			    keep_owner(&k->env, dev, who, sizeof(who), e) <= 0 ||
			    !owed_snapshot(&out->profile, befores, nb, dev, &owed[n_owed].snap))
				continue;
			snprintf(owed[n_owed].origin, sizeof(owed[n_owed].origin), "%s", origin);
			owner[i] = xstrdup(who);
			n_owed++;
		}
	}
	rc = store_profile_delete_owing(k->env.store, name, owed, n_owed, now_s(k), e);
	if (rc)
		goto out;
	k->n_owed += n_owed;
	if (restore) {
		*restored = xcalloc((size_t)out->n_devices + 1, sizeof(**restored));
		for (i = 0; i < out->n_devices; i++) {
			struct keeper_restore *r = &(*restored)[(*n_restored)++];

			if (!owner[i]) {
				delete_restore(k, &out->profile, &out->devices[i], befores, nb,
				               origin, r);
				continue;
			}
			snprintf(r->device, sizeof(r->device), "%s", out->devices[i].device);
			snprintf(r->outcome, sizeof(r->outcome),
			         "owed: %s owns it; put back when it lets go", owner[i]);
		}
	}
	kept_release(&k->kept[idx]);
	memmove(&k->kept[idx], &k->kept[idx + 1], (size_t)(k->n - idx - 1) * sizeof(*k->kept));
	k->n--;
	log_info("profile %s deleted by %s%s", name, origin, restore ? " (values restored)" : "");
out:
	for (i = 0; owner && i < out->n_devices; i++)
		free(owner[i]);
	free(owner);
	if (rc)
		keeper_view_release(out);
	for (i = 0; i < n_owed; i++)
		tune_snapshot_release(&owed[i].snap);
	free(owed);
	store_snapshots_free(befores, nb);
	pthread_mutex_unlock(&k->lock);
	return rc;
}
