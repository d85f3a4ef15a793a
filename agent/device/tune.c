/* tune.c -- all-or-nothing parameter changes: validation, ordering, rollback, snapshots, audit. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/tune.h"
#include "utf8.h"
#include "xmalloc.h"
#include "banned.h"

void tune_init(struct tune *t, const struct sysfs *fs, const struct tune_audit *audit)
{
	t->fs = fs;
	pthread_mutex_init(&t->lock, NULL);
	memset(&t->audit, 0, sizeof(t->audit));
	if (audit)
		t->audit = *audit;
}

void tune_release(struct tune *t)
{
	if (t)
		pthread_mutex_destroy(&t->lock);
}

unsigned long tune_generation(struct tune *t)
{
	return __atomic_load_n(&t->generation, __ATOMIC_ACQUIRE);
}

/* A change of name on dev about to be made (outcome "pending"). */
static struct tune_change change_make(const char *dev, const char *name, const char *previous,
                                      const char *requested, const char *origin)
{
	struct tune_change c = {
		0, dev, name, previous, requested, NULL, "pending", origin, NULL, 0
	};

	return c;
}

/* Record c before its write. 0, or -EAGAIN "audit_unavailable" (e filled): the write must not
 * be made, unless it is a restore. */
static int audit_intent(struct tune *t, struct tune_change *c, struct err *e)
{
	struct err ae;

	c->id = 0;
	if (!t->audit.intent)
		return 0;
	err_clear(&ae);
	if (t->audit.intent(t->audit.cls, c, &ae) == 0)
		return 0;
	c->id = 0;
	return err_set(e, -EAGAIN, ERR_AUDIT_UNAVAILABLE,
	               "cannot record the change of %s%s%s in the audit log, so it was not made: "
	               "%s",
	               c->device[0] ? c->device : "", c->device[0] ? " " : "", c->name, ae.msg);
}

/* Record an apply before its first write; -EAGAIN "audit_unavailable" if it cannot be. */
static int apply_begin(struct tune *t, const struct tune_snapshot *snap, const char *origin,
                       const struct tune_item *items, int n, int64_t *id, struct err *e)
{
	struct err ae;

	*id = 0;
	if (!t->audit.begin)
		return 0;
	err_clear(&ae);
	if (t->audit.begin(t->audit.cls, snap, origin, n, id, &ae) == 0)
		return 0;
	*id = 0;
	return err_set(e, -EAGAIN, ERR_AUDIT_UNAVAILABLE,
	               "cannot record the change of %s %s%s in the audit log, so nothing was "
	               "written: %s",
	               snap->device, items[0].name, n > 1 ? " (and the rest of the request)" : "",
	               ae.msg);
}

/* Record what became of c's write (or, with no intent row, that it was attempted). */
static void audit_outcome(struct tune *t, struct tune_change *c, const char *applied,
                          const char *outcome, const char *message)
{
	c->applied = applied;
	c->outcome = outcome;
	c->message = message;
	/* Every write attempt is audited, so this is where readers learn of it. */
	__atomic_add_fetch(&t->generation, 1, __ATOMIC_RELEASE);
	if (t->audit.outcome)
		t->audit.outcome(t->audit.cls, c);
}

/* Write order: a scheduler switch resets nr_requests and the iosched attributes, and a
 * queue_depth change bounds nr_requests. */
static int write_rank(const char *name)
{
	if (!strcmp(name, "scheduler"))
		return 0;
	if (!strcmp(name, "queue_depth"))
		return 1;
	if (!strcmp(name, "nr_requests"))
		return 2;
	if (!strncmp(name, "iosched.", 8))
		return 3;
	return 4;
}

/* Indices of items sorted by write_rank, stable. Caller frees. */
static int *write_order(const struct tune_item *items, int n)
{
	int *idx = xcalloc((size_t)n, sizeof(int));
	int i, j, k = 0, rank;

	for (rank = 0; rank <= 4; rank++)
		for (i = 0; i < n; i++)
			if (write_rank(items[i].name) == rank)
				idx[k++] = i;
	for (j = k; j < n; j++) /* unreachable: every name has a rank */
		idx[j] = j;
	return idx;
}

/* How many times a restore goes over its snapshot: a write may change values written or
 * compared before it (a scheduler switch resets nr_requests and the iosched attributes, an
 * nr_requests write resets iosched.async_depth), so a pass that wrote is followed by another that
 * reads every value afresh, until one finds nothing to write. */
#define RESTORE_PASSES_MAX 3

/* Restore with the lock held. Every value is read just before it is compared (never from a
 * read made before an earlier write), and the passes go on until the device reads as the
 * snapshot. A write whose intent cannot be recorded is made all the same: a restore or
 * rollback refused would leave the device tuned (the hooks log it loudly). */
static int restore_locked(struct tune *t, const struct tune_snapshot *snap, const char *origin,
                          const char *outcome, int64_t apply_id, struct tune_restore_count *count,
                          struct err *e)
{
	const char *dev = snap->device;
	char applied[SYSFS_VALUE_MAX];
	struct tune_change c;
	struct param p;
	struct err first, we;
	bool *done = NULL;
	int k, pass, rc, first_rc = 0, written = 0, unaudited = 0, wrote;
	int *order = NULL;

	err_clear(&first);
	rc = sysfs_device_check(t->fs, dev, e);
	if (rc)
		goto out;
	order = write_order(snap->items, snap->n);
	done = xcalloc((size_t)snap->n + 1, sizeof(*done)); /* gone or refused: not tried again */
	for (pass = 0; pass < RESTORE_PASSES_MAX; pass++) {
		wrote = 0;
		for (k = 0; k < snap->n; k++) {
			const struct tune_item *it = &snap->items[order[k]];

			if (done[order[k]])
				continue;
			err_clear(&we);
			if (sysfs_param_read(t->fs, dev, it->name, &p, &we)) {
				done[order[k]] = true;
				if (!first_rc)
					first_rc = err_set(
					        &first, -ENOENT, ERR_RESTORE_FAILED,
					        "cannot restore %s on '%s': parameter is gone",
					        it->name, dev);
				c = change_make(dev, it->name, NULL, it->previous, origin);
				audit_outcome(t, &c, NULL, "error", "parameter is gone");
				continue;
			}
			if (!p.writable || sysfs_value_equal(p.value, it->previous))
				continue;
			c = change_make(dev, it->name, p.value, it->previous, origin);
			c.apply_id = apply_id; /* a rollback's rows belong to the apply they undo */
			if (audit_intent(t, &c, NULL))
				unaudited++;
			err_clear(&we);
			rc = sysfs_param_write(t->fs, dev, it->name, it->previous, applied,
			                       sizeof(applied), &we);
			written++;
			wrote++;
			if (rc) {
				done[order[k]] = true;
				audit_outcome(t, &c, NULL, "error", we.msg);
				if (!first_rc) {
					first_rc = rc;
					first = we;
				}
				continue;
			}
			audit_outcome(t, &c, applied, outcome, NULL);
		}
		if (!wrote)
			break;
	}
	rc = first_rc;
	if (rc && e)
		*e = first;
out:
	if (count) {
		count->written = written;
		count->unaudited = unaudited;
	}
	free(order);
	free(done);
	return rc;
}

static void snapshot_from_params(const char *dev, const struct params *cur,
                                 struct tune_snapshot *out)
{
	int i;

	memset(out, 0, sizeof(*out));
	snprintf(out->device, sizeof(out->device), "%s", dev);
	out->items = xcalloc((size_t)cur->n + 1, sizeof(*out->items));
	for (i = 0; i < cur->n; i++) {
		const struct param *p = &cur->p[i];
		struct tune_item *it;

		if (!p->writable || !strcmp(p->name, "setra"))
			continue;
		it = &out->items[out->n++];
		snprintf(it->name, sizeof(it->name), "%s", p->name);
		snprintf(it->previous, sizeof(it->previous), "%s", p->value);
		it->kind = p->kind;
	}
}

static bool item_present(const struct tune_item *items, int n, const char *name)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(items[i].name, name))
			return true;
	return false;
}

/* Validate everything before the first write. Items under iosched.* that
 * belong to a scheduler being switched to are checked after the switch. */
static int validate_all(struct tune *t, const char *dev, const struct params *cur,
                        struct tune_item *items, int n, struct err *e)
{
	bool sched_change = false;
	const struct param *sp;
	const char *sched_to = "";
	int i, rc;

	if (item_present(items, n, "setra") && item_present(items, n, "read_ahead_kb"))
		return err_set(e, -EINVAL, ERR_INVALID_VALUE,
		               "setra and read_ahead_kb set the same thing; send only one");
	for (i = 0; i < n; i++) {
		if (strcmp(items[i].name, "scheduler"))
			continue;
		sp = sysfs_params_find(cur, "scheduler");
		if (!sp)
			return err_set(e, -ENOENT, ERR_UNKNOWN_PARAM, "'%s' has no scheduler", dev);
		rc = sysfs_param_check(sp, items[i].requested, items[i].canon,
		                       sizeof(items[i].canon), &items[i].aliased, e);
		if (rc)
			return rc;
		sched_change = strcmp(items[i].canon, sp->value) != 0;
		sched_to = items[i].canon;
	}
	for (i = 0; i < n; i++) {
		const struct param *p = sysfs_params_find(cur, items[i].name);

		items[i].deferred = false;
		if (!strcmp(items[i].name, "scheduler")) {
			snprintf(items[i].previous, sizeof(items[i].previous), "%s", p->value);
			items[i].kind = p->kind;
			continue;
		}
		if (sched_change && !strncmp(items[i].name, "iosched.", 8)) {
			/* Attributes of the new scheduler only exist after the switch: a name
			 * the new scheduler is known not to have is refused now, before any
			 * write (not found after the switch and rolled back). */
			struct param tmp = { 0 };
			char attrs[256];

			if (catalogue_iosched_attr_known(sched_to, items[i].name + 8, attrs,
			                                 sizeof(attrs)) == 0)
				return err_set(
				        e, -ENOENT, ERR_UNKNOWN_PARAM,
				        "no parameter '%.*s' under the scheduler %s that '%s' "
				        "would switch to (its attributes: %s)",
				        utf8_cut(items[i].name, 64), items[i].name, sched_to, dev,
				        attrs);

			snprintf(tmp.name, sizeof(tmp.name), "%s", items[i].name);
			tmp.kind = PARAM_INT;
			tmp.writable = true;
			rc = sysfs_param_check(&tmp, items[i].requested, items[i].canon,
			                       sizeof(items[i].canon), NULL, e);
			if (rc)
				return rc;
			if (p)
				snprintf(items[i].previous, sizeof(items[i].previous), "%s",
				         p->value);
			items[i].deferred = true;
			items[i].kind = PARAM_INT;
			continue;
		}
		if (!p)
			return err_set(e, -ENOENT, ERR_UNKNOWN_PARAM, "no parameter '%.*s' on '%s'",
			               utf8_cut(items[i].name, 64), items[i].name, dev);
		if (sched_change && !strcmp(items[i].name, "nr_requests")) {
			/* Written after the switch: judged by the bound of the scheduler to come.
			 */
			struct param np = *p;
			int64_t max;

			if (sysfs_nr_requests_max(t->fs, dev, sched_to, &max) == 0) {
				np.has_max = true;
				np.max = max;
			}
			rc = sysfs_param_check(&np, items[i].requested, items[i].canon,
			                       sizeof(items[i].canon), &items[i].aliased, e);
			if (rc)
				return rc;
			snprintf(items[i].previous, sizeof(items[i].previous), "%s", p->value);
			items[i].kind = p->kind;
			continue;
		}
		rc = sysfs_param_check(p, items[i].requested, items[i].canon,
		                       sizeof(items[i].canon), &items[i].aliased, e);
		if (rc)
			return rc;
		snprintf(items[i].previous, sizeof(items[i].previous), "%s", p->value);
		items[i].kind = p->kind;
	}
	return 0;
}

/* What tune_apply checks before writing, with the lock held: the device may be written, there
 * is something to write, every item is valid. Fills cur with the device's parameters. */
static int check_locked(struct tune *t, const char *dev, struct tune_item *items, int n,
                        struct params *cur, struct err *e)
{
	int rc = sysfs_params_read(t->fs, dev, cur, e);

	if (rc)
		return rc;
	if (!sysfs_device_allowed(t->fs, dev))
		return err_set(e, -EPERM, ERR_DEVICE_NOT_ALLOWED,
		               "device '%s' is not in the agent's --allow-device list", dev);
	if (n <= 0)
		return err_set(e, -EINVAL, ERR_BAD_REQUEST, "no parameters given");
	return validate_all(t, dev, cur, items, n, e);
}

int tune_apply(struct tune *t, const char *dev, struct tune_item *items, int n, const char *origin,
               bool *rolled_back, struct err *e)
{
	return tune_apply_if(t, dev, items, n, origin, NULL, NULL, rolled_back, e);
}

int tune_apply_if(struct tune *t, const char *dev, struct tune_item *items, int n,
                  const char *origin, int (*may)(void *cls, const char *dev, struct err *e),
                  void *cls, bool *rolled_back, struct err *e)
{
	struct params cur = { 0, NULL };
	struct tune_snapshot snap = { { 0 }, 0, NULL };
	struct tune_change c;
	int *order = NULL;
	char rb_origin[320];
	struct err rb_err;
	int64_t apply_id = 0;
	int k, rc;

	*rolled_back = false;
	pthread_mutex_lock(&t->lock);
	rc = may ? may(cls, dev, e) : 0;
	if (rc)
		goto out;
	rc = check_locked(t, dev, items, n, &cur, e);
	if (rc)
		goto out;
	snapshot_from_params(dev, &cur, &snap);
	rc = apply_begin(t, &snap, origin, items, n, &apply_id, e);
	if (rc)
		goto out;
	order = write_order(items, n);
	for (k = 0; k < n; k++) {
		struct tune_item *it = &items[order[k]];

		if (it->deferred) {
			struct param p;

			rc = sysfs_param_read(t->fs, dev, it->name, &p, e);
			if (!rc)
				rc = sysfs_param_check(&p, it->requested, it->canon,
				                       sizeof(it->canon), NULL, e);
			if (rc)
				goto fail;
			if (!it->previous[0])
				snprintf(it->previous, sizeof(it->previous), "%s", p.value);
		}
		/* The audit row first: a write that cannot be recorded is not made. */
		c = change_make(dev, it->name, it->previous, it->requested, origin);
		c.apply_id = apply_id;
		rc = audit_intent(t, &c, e);
		if (rc)
			goto fail;
		rc = sysfs_param_write(t->fs, dev, it->name, it->canon, it->applied,
		                       sizeof(it->applied), e);
		if (rc) {
			audit_outcome(t, &c, NULL, "rejected", e ? e->msg : NULL);
			goto fail;
		}
		it->adjusted = !sysfs_value_equal(it->applied, it->canon);
		audit_outcome(t, &c, it->applied, it->adjusted ? "adjusted" : "ok", NULL);
	}
	rc = 0;
	goto out;
fail:
	snprintf(rb_origin, sizeof(rb_origin), "rollback of %s", origin);
	err_clear(&rb_err);
	if (restore_locked(t, &snap, rb_origin, "rolled_back", apply_id, NULL, &rb_err) == 0) {
		*rolled_back = true;
	} else {
		err_set(e, rc, e ? e->code : ERR_INTERNAL, "%s; rollback failed: %s",
		        e ? e->msg : "", rb_err.msg);
	}
out:
	if (apply_id && t->audit.end)
		t->audit.end(t->audit.cls, apply_id);
	pthread_mutex_unlock(&t->lock);
	tune_snapshot_release(&snap);
	sysfs_params_release(&cur);
	free(order);
	return rc;
}

int tune_validate(struct tune *t, const char *dev, struct tune_item *items, int n, struct err *e)
{
	struct params cur = { 0, NULL };
	int rc;

	pthread_mutex_lock(&t->lock);
	rc = check_locked(t, dev, items, n, &cur, e);
	pthread_mutex_unlock(&t->lock);
	sysfs_params_release(&cur);
	return rc;
}

void tune_device_report(struct tune *t, const struct sysfs *fs, const char *dev, bool ask_in_use,
                        struct tune_item *items, int n, struct tune_device_report *out)
{
	memset(out, 0, sizeof(*out));
	out->exists = sysfs_device_name_ok(dev) && sysfs_device_check(fs, dev, NULL) == 0;
	if (!out->exists)
		return;
	out->allowed = sysfs_device_allowed(fs, dev);
	if (!out->allowed)
		return;
	if (ask_in_use)
		out->in_use = sysfs_device_in_use(fs, dev, out->why, sizeof(out->why));
	if (n > 0)
		out->params_rc = tune_validate(t, dev, items, n, &out->params_err);
}

void tune_set_release(struct tune_set *s)
{
	if (!s)
		return;
	free(s->items);
	s->items = NULL;
	s->n = 0;
}

int tune_snapshot_take(struct tune *t, const char *dev, struct tune_snapshot *out, struct err *e)
{
	struct params cur = { 0, NULL };
	int rc;

	memset(out, 0, sizeof(*out));
	pthread_mutex_lock(&t->lock);
	rc = sysfs_params_read(t->fs, dev, &cur, e);
	if (!rc)
		snapshot_from_params(dev, &cur, out);
	pthread_mutex_unlock(&t->lock);
	sysfs_params_release(&cur);
	return rc;
}

void tune_snapshot_release(struct tune_snapshot *s)
{
	if (!s)
		return;
	free(s->items);
	s->items = NULL;
	s->n = 0;
}

int tune_restore(struct tune *t, const struct tune_snapshot *snap, const char *origin,
                 struct tune_restore_count *count, struct err *e)
{
	int rc;

	pthread_mutex_lock(&t->lock);
	rc = restore_locked(t, snap, origin, "restored", 0, count, e);
	pthread_mutex_unlock(&t->lock);
	return rc;
}

int tune_rollback(struct tune *t, const struct tune_snapshot *snap, const char *origin,
                  struct tune_restore_count *count, struct err *e)
{
	int rc;

	pthread_mutex_lock(&t->lock);
	rc = restore_locked(t, snap, origin, "rolled_back", 0, count, e);
	pthread_mutex_unlock(&t->lock);
	return rc;
}

int tune_sysctl_set(struct tune *t, struct tune_item *item, const char *origin, struct err *e)
{
	struct tune_change c;
	struct param p;
	int rc;

	pthread_mutex_lock(&t->lock);
	rc = sysfs_sysctl_read(t->fs, item->name, &p, e);
	if (rc)
		goto out;
	if (!t->fs->allow_sysctl) {
		rc = err_set(e, -EPERM, ERR_FORBIDDEN,
		             "sysctl writes are disabled; start the agent with --allow-sysctl");
		goto out;
	}
	rc = sysfs_param_check(&p, item->requested, item->canon, sizeof(item->canon), NULL, e);
	if (rc)
		goto out;
	snprintf(item->previous, sizeof(item->previous), "%s", p.value);
	item->kind = p.kind;
	c = change_make("", item->name, item->previous, item->requested, origin);
	rc = audit_intent(t, &c, e);
	if (rc)
		goto out;
	rc = sysfs_sysctl_write(t->fs, item->name, item->canon, item->applied,
	                        sizeof(item->applied), e);
	if (rc) {
		audit_outcome(t, &c, NULL, "rejected", e ? e->msg : NULL);
		goto out;
	}
	item->adjusted = !sysfs_value_equal(item->applied, item->canon);
	audit_outcome(t, &c, item->applied, item->adjusted ? "adjusted" : "ok", NULL);
out:
	pthread_mutex_unlock(&t->lock);
	return rc;
}
