/* tune.c -- all-or-nothing parameter changes: validation, ordering, rollback, snapshots, audit. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tune.h"
#include "utf8.h"
#include "xmalloc.h"
#include "banned.h"

void tune_init(struct tune *t, const struct sysfs *fs, tune_audit_fn audit, void *cls)
{
	t->fs = fs;
	pthread_mutex_init(&t->lock, NULL);
	t->audit = audit;
	t->audit_cls = cls;
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

static void audit(struct tune *t, const char *dev, const char *name, const char *previous,
                  const char *requested, const char *applied, const char *outcome,
                  const char *origin, const char *message)
{
	struct tune_change c = {
		dev, name, previous, requested, applied, outcome, origin, message
	};

	/* Every write attempt is audited, so this is where readers learn of it. */
	__atomic_add_fetch(&t->generation, 1, __ATOMIC_RELEASE);
	if (t->audit)
		t->audit(t->audit_cls, &c);
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

/* Restore with the lock held. */
static int restore_locked(struct tune *t, const struct tune_snapshot *snap, const char *origin,
                          const char *outcome, int *n_written, struct err *e)
{
	const char *dev = snap->device;
	char applied[SYSFS_VALUE_MAX];
	struct params cur = { 0, NULL };
	struct err first, we;
	int k, rc, first_rc = 0, written = 0;
	int *order = NULL;

	err_clear(&first);
	rc = sysfs_params_read(t->fs, dev, &cur, e);
	if (rc)
		goto out;
	order = write_order(snap->items, snap->n);
	for (k = 0; k < snap->n; k++) {
		const struct tune_item *it = &snap->items[order[k]];
		const struct param *p;

		if (k > 0 && !strcmp(snap->items[order[k - 1]].name, "scheduler") && written) {
			/* The switch reset things: compare against what is there now. */
			sysfs_params_release(&cur);
			rc = sysfs_params_read(t->fs, dev, &cur, e);
			if (rc)
				goto out;
		}
		p = sysfs_params_find(&cur, it->name);
		if (!p) {
			if (!first_rc) {
				first_rc = err_set(&first, -ENOENT, "restore_failed",
				                   "cannot restore %s on '%s': parameter is gone",
				                   it->name, dev);
			}
			audit(t, dev, it->name, NULL, it->previous, NULL, "error", origin,
			      "parameter is gone");
			continue;
		}
		if (!p->writable || sysfs_value_equal(p->value, it->previous))
			continue;
		err_clear(&we);
		rc = sysfs_param_write(t->fs, dev, it->name, it->previous, applied, sizeof(applied),
		                       &we);
		written++;
		if (rc) {
			audit(t, dev, it->name, p->value, it->previous, NULL, "error", origin,
			      we.msg);
			if (!first_rc) {
				first_rc = rc;
				first = we;
			}
			continue;
		}
		audit(t, dev, it->name, p->value, it->previous, applied, outcome, origin, NULL);
	}
	rc = first_rc;
	if (rc && e)
		*e = first;
out:
	if (n_written)
		*n_written = written;
	free(order);
	sysfs_params_release(&cur);
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
	int i, rc;

	if (item_present(items, n, "setra") && item_present(items, n, "read_ahead_kb"))
		return err_set(e, -EINVAL, "invalid_value",
		               "setra and read_ahead_kb set the same thing; send only one");
	for (i = 0; i < n; i++) {
		if (strcmp(items[i].name, "scheduler"))
			continue;
		sp = sysfs_params_find(cur, "scheduler");
		if (!sp)
			return err_set(e, -ENOENT, "unknown_param", "'%s' has no scheduler", dev);
		rc = sysfs_param_check(sp, items[i].requested, items[i].canon,
		                       sizeof(items[i].canon), &items[i].aliased, e);
		if (rc)
			return rc;
		sched_change = strcmp(items[i].canon, sp->value) != 0;
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
			/* Attributes of the new scheduler only exist after the switch. */
			struct param tmp = { 0 };

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
			return err_set(e, -ENOENT, "unknown_param", "no parameter '%.*s' on '%s'",
			               utf8_cut(items[i].name, 64), items[i].name, dev);
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
		return err_set(e, -EPERM, "device_not_allowed",
		               "device '%s' is not in the agent's --allow-device list", dev);
	if (n <= 0)
		return err_set(e, -EINVAL, "bad_request", "no parameters given");
	return validate_all(t, dev, cur, items, n, e);
}

int tune_apply(struct tune *t, const char *dev, struct tune_item *items, int n, const char *origin,
               bool *rolled_back, struct err *e)
{
	struct params cur = { 0, NULL };
	struct tune_snapshot snap = { { 0 }, 0, NULL };
	int *order = NULL;
	char rb_origin[320];
	struct err rb_err;
	int k, rc;

	*rolled_back = false;
	pthread_mutex_lock(&t->lock);
	rc = check_locked(t, dev, items, n, &cur, e);
	if (rc)
		goto out;
	snapshot_from_params(dev, &cur, &snap);
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
		rc = sysfs_param_write(t->fs, dev, it->name, it->canon, it->applied,
		                       sizeof(it->applied), e);
		if (rc) {
			audit(t, dev, it->name, it->previous, it->requested, NULL, "rejected",
			      origin, e ? e->msg : NULL);
			goto fail;
		}
		it->adjusted = !sysfs_value_equal(it->applied, it->canon);
		audit(t, dev, it->name, it->previous, it->requested, it->applied,
		      it->adjusted ? "adjusted" : "ok", origin, NULL);
	}
	rc = 0;
	goto out;
fail:
	snprintf(rb_origin, sizeof(rb_origin), "rollback of %s", origin);
	err_clear(&rb_err);
	if (restore_locked(t, &snap, rb_origin, "rolled_back", NULL, &rb_err) == 0) {
		*rolled_back = true;
	} else {
		err_set(e, rc, e ? e->code : NULL, "%s; rollback failed: %s", e ? e->msg : "",
		        rb_err.msg);
	}
out:
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
                 int *n_written, struct err *e)
{
	int rc;

	pthread_mutex_lock(&t->lock);
	rc = restore_locked(t, snap, origin, "restored", n_written, e);
	pthread_mutex_unlock(&t->lock);
	return rc;
}

int tune_sysctl_set(struct tune *t, struct tune_item *item, const char *origin, struct err *e)
{
	struct param p;
	int rc;

	pthread_mutex_lock(&t->lock);
	rc = sysfs_sysctl_read(t->fs, item->name, &p, e);
	if (rc)
		goto out;
	if (!t->fs->allow_sysctl) {
		rc = err_set(e, -EPERM, "forbidden",
		             "sysctl writes are disabled; start the agent with --allow-sysctl");
		goto out;
	}
	rc = sysfs_param_check(&p, item->requested, item->canon, sizeof(item->canon), NULL, e);
	if (rc)
		goto out;
	snprintf(item->previous, sizeof(item->previous), "%s", p.value);
	item->kind = p.kind;
	rc = sysfs_sysctl_write(t->fs, item->name, item->canon, item->applied,
	                        sizeof(item->applied), e);
	if (rc) {
		audit(t, "", item->name, item->previous, item->requested, NULL, "rejected", origin,
		      e ? e->msg : NULL);
		goto out;
	}
	item->adjusted = !sysfs_value_equal(item->applied, item->canon);
	audit(t, "", item->name, item->previous, item->requested, item->applied,
	      item->adjusted ? "adjusted" : "ok", origin, NULL);
out:
	pthread_mutex_unlock(&t->lock);
	return rc;
}
