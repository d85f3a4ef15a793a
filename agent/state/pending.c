/* pending.c -- unfinished applies of a previous run, completed or rolled back at start. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "state/pending.h"
#include "xmalloc.h"
#include "banned.h"

static bool is_rollback(const struct change_rec *c)
{
	return !strncmp(c->origin, "rollback", 8);
}

/* Whether c's parameter holds now what c requested (fills now with what it holds). */
static bool holds_requested(struct tune *t, const struct change_rec *c, char *now, size_t now_len)
{
	char canon[SYSFS_VALUE_MAX];
	struct param cur;
	struct err e;
	int rc;

	now[0] = '\0';
	err_clear(&e);
	if (c->device[0])
		rc = sysfs_param_read(t->fs, c->device, c->name, &cur, &e);
	else
		rc = sysfs_sysctl_read(t->fs, c->name, &cur, &e);
	if (rc)
		return false;
	snprintf(now, now_len, "%s", cur.value);
	if (!c->has_requested)
		return false;
	cur.writable = true; /* judge the value, not whether it may be written now */
	if (sysfs_param_check(&cur, c->requested, canon, sizeof(canon), NULL, &e))
		return false;
	return sysfs_value_equal(cur.value, canon);
}

/* Close pending row c with outcome and message, and what its parameter holds now. */
static void close_row(struct tune *t, struct store *s, const struct change_rec *c,
                      const char *outcome, const char *message)
{
	char now[SYSFS_VALUE_MAX];
	struct err e;

	holds_requested(t, c, now, sizeof(now));
	err_clear(&e);
	if (store_change_close(s, c->id, now[0] ? now : NULL, outcome, message, &e))
		log_error("audit row %lld stays 'pending': %s", (long long)c->id, e.msg);
}

/* Whether every write of the apply was made: all n rows there, none of a rollback, none
 * refused, and the pending ones' parameters hold what they requested. */
static bool apply_finished(struct tune *t, const struct apply_rec *ap,
                           const struct change_rec *rows, int n)
{
	char now[SYSFS_VALUE_MAX];
	int i, n_writes = 0;

	for (i = 0; i < n; i++) {
		const struct change_rec *c = &rows[i];

		if (is_rollback(c))
			return false; /* it had failed and was being rolled back */
		n_writes++;
		if (!strcmp(c->outcome, "pending")) {
			if (!holds_requested(t, c, now, sizeof(now)))
				return false;
		} else if (strcmp(c->outcome, "ok") && strcmp(c->outcome, "adjusted")) {
			return false;
		}
	}
	return n_writes == ap->n;
}

/* One apply a previous run did not end: recorded as done, or rolled back to its snapshot. */
static int apply_recover(struct tune *t, struct store *s, const struct apply_rec *ap, struct err *e)
{
	struct change_rec *rows = NULL;
	struct tune_snapshot snap = { { 0 }, 0, NULL };
	char origin[320];
	struct err re;
	bool done;
	int n = 0, i, rc;

	rc = store_apply_changes(s, ap->id, &rows, &n, e);
	if (rc < 0)
		goto out;
	done = apply_finished(t, ap, rows, n);
	if (done) {
		log_info("%s: every write was made before the agent stopped; recorded as done",
		         ap->origin);
	} else {
		log_warn("%s was cut short (the agent stopped during it): rolling it back",
		         ap->origin);
		rc = store_apply_snapshot(s, ap->id, &snap, e);
		if (rc < 0)
			goto out;
		snprintf(origin, sizeof(origin), "rollback at start of %s", ap->origin);
		err_clear(&re);
		if (tune_rollback(t, &snap, origin, NULL, &re))
			log_error("%s: %s", origin, re.msg);
	}
	for (i = 0; i < n; i++)
		if (!strcmp(rows[i].outcome, "pending"))
			close_row(
			        t, s, &rows[i], done ? "ok" : "interrupted",
			        done ? "completed at start: the write was made before the agent "
			               "stopped"
			             : "the agent stopped during this request; it was rolled back "
			               "at start");
	rc = store_apply_end(s, ap->id, e);
out:
	tune_snapshot_release(&snap);
	free(rows);
	return rc;
}

/* A pending row of no apply: a sysctl write (one write, made or not), or a restore's write
 * (what asked for it, a session or job restore at start, redoes it). */
static void loose_recover(struct tune *t, struct store *s, const struct change_rec *c)
{
	char now[SYSFS_VALUE_MAX];

	if (!strncmp(c->origin, "request ", 8) && holds_requested(t, c, now, sizeof(now)))
		close_row(t, s, c, "ok",
		          "completed at start: the write was made before the agent stopped");
	else if (!strncmp(c->origin, "request ", 8))
		close_row(t, s, c, "interrupted",
		          "the agent stopped before this write was made; nothing to undo");
	else
		close_row(t, s, c, "interrupted",
		          "the agent stopped during this restore; redone at start where its "
		          "session or job still needs it");
}

int pending_recover(struct tune *t, struct store *s, struct err *e)
{
	struct apply_rec *aps = NULL;
	struct change_rec *loose = NULL;
	int n_aps = 0, n_loose = 0, i, rc;

	rc = store_applies_open(s, &aps, &n_aps, e);
	if (rc < 0)
		goto out;
	for (i = 0; i < n_aps; i++) {
		rc = apply_recover(t, s, &aps[i], e);
		if (rc < 0)
			goto out;
	}
	rc = store_changes_pending(s, &loose, &n_loose, e);
	if (rc < 0)
		goto out;
	for (i = 0; i < n_loose; i++)
		loose_recover(t, s, &loose[i]);
	rc = n_aps + n_loose;
out:
	free(aps);
	free(loose);
	return rc;
}
