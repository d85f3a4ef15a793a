/* session.c -- tuning sessions: a device snapshot that is always put back. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "state/session.h"
#include "timeutil.h"
#include "banned.h"

int session_open(struct session_mgr *m, const char *dev, int64_t ttl_s, double now,
                 struct session_rec *out, struct err *e)
{
	struct tune_snapshot snap = { { 0 }, 0, NULL };
	int rc;

	memset(out, 0, sizeof(*out));
	if (ttl_s < 1 || ttl_s > SESSION_TTL_MAX_S)
		return err_set(e, -EINVAL, ERR_BAD_REQUEST, "ttl_s: must be 1..%d seconds",
		               SESSION_TTL_MAX_S);
	if (!sysfs_device_allowed(m->tune->fs, dev))
		return err_set(e, -EPERM, ERR_DEVICE_NOT_ALLOWED,
		               "device '%s' is not in the agent's --allow-device list", dev);
	rc = tune_snapshot_take(m->tune, dev, &snap, e);
	if (rc)
		goto out;
	snprintf(out->device, sizeof(out->device), "%s", dev);
	out->created_at = now;
	out->ttl_s = ttl_s;
	out->expires_at = now + (double)ttl_s;
	rc = store_session_insert(m->store, out, &snap, e);
	if (rc)
		goto out;
	pthread_mutex_lock(&m->lock);
	m->opens++;
	if (m->due_at > 0 && out->expires_at < m->due_at)
		m->due_at = out->expires_at;
	pthread_mutex_unlock(&m->lock);
	log_info("session %lld opened on %s (ttl %llds, %d parameters saved)", (long long)out->id,
	         dev, (long long)ttl_s, snap.n);
out:
	tune_snapshot_release(&snap);
	return rc;
}

static void unrecorded_apply(struct session_mgr *m, struct session_rec *rec);

int session_renew(struct session_mgr *m, int64_t id, double now, struct session_rec *out,
                  struct err *e)
{
	int rc;

	rc = store_session_get(m->store, id, out, e);
	if (rc)
		return rc;
	unrecorded_apply(m, out);
	if (strcmp(out->state, "open"))
		return err_set(e, -EBUSY, ERR_CONFLICT, "session %lld is %s, not open",
		               (long long)id, out->state);
	out->expires_at = now + (double)out->ttl_s;
	return store_session_renew(m->store, id, out->expires_at, e);
}

/* Restore precedence: the session is the device's owner of last resort. Jobs that started
 * inside it lose their restore point first, so that a job ending after the session's restore
 * cannot put back the values it saw inside the session. */
static void jobs_rebase(struct session_mgr *m, const struct session_rec *s)
{
	struct err e;

	err_clear(&e);
	if (store_jobs_rebase(m->store, s->device, s->created_at, &e))
		log_error("session %lld on %s: cannot cancel the restore points of the jobs that "
		          "ran inside it (a job ending later may put back values from inside the "
		          "session): %s",
		          (long long)s->id, s->device, e.msg);
}

/* ... and a job running there when the restore wrote to its device is marked. */
static void jobs_mark_changed(struct session_mgr *m, const struct session_rec *s,
                              const char *reason, int written, double now)
{
	char why[200], at[40];
	struct err e;

	time_fmt_iso(now, at, sizeof(at));
	snprintf(why, sizeof(why), "session %lld %s: its restore wrote %d value(s) at %s",
	         (long long)s->id, reason, written, at);
	err_clear(&e);
	if (store_jobs_mark_changed(m->store, s->device, why, &e))
		log_error("session %lld on %s: cannot mark the jobs running there: %s",
		          (long long)s->id, s->device, e.msg);
}

/* The unrecorded end of session id, or -1 (with m->lock held). */
static int unrecorded_find(struct session_mgr *m, int64_t id)
{
	int i;

	for (i = 0; i < m->n_unrecorded; i++)
		if (m->unrecorded[i].id == id)
			return i;
	return -1;
}

/* Write the ends the database could not take before; keep those it still cannot. */
static void unrecorded_flush(struct session_mgr *m)
{
	struct session_rec *r;
	struct err e;
	int i;

	pthread_mutex_lock(&m->lock);
	for (i = 0; i < m->n_unrecorded;) {
		r = &m->unrecorded[i];
		err_clear(&e);
		if (store_session_end(m->store, r->id, r->state, r->ended_at, r->end_reason,
		                      r->restore_outcome, &e)) {
			i++;
			continue;
		}
		log_info("session %lld: its end (%s) is recorded now", (long long)r->id, r->state);
		m->unrecorded[i] = m->unrecorded[--m->n_unrecorded];
	}
	pthread_mutex_unlock(&m->lock);
}

/* Overlay what the database does not have yet onto rec (a session read from it). */
static void unrecorded_apply(struct session_mgr *m, struct session_rec *rec)
{
	int k;

	pthread_mutex_lock(&m->lock);
	k = unrecorded_find(m, rec->id);
	if (k >= 0)
		*rec = m->unrecorded[k];
	pthread_mutex_unlock(&m->lock);
}

int session_end(struct session_mgr *m, int64_t id, bool restore, const char *reason, double now,
                struct session_rec *out, struct err *e)
{
	struct tune_snapshot snap = { { 0 }, 0, NULL };
	char origin[96], outcome[256];
	struct err rerr;
	struct tune_restore_count count = { 0, 0 };
	int rc;

	/* No owner check (session_owner_run) may fall between this session's restore and its
	 * record: a job that finds the session open must be able to rely on its restore. */
	pthread_mutex_lock(&m->end_lock);
	rc = store_session_get(m->store, id, out, e);
	if (rc)
		goto out;
	unrecorded_apply(m, out);
	if (strcmp(out->state, "open")) {
		rc = err_set(e, -EBUSY, ERR_CONFLICT, "session %lld already ended (%s)",
		             (long long)id, out->end_reason);
		goto out;
	}
	snprintf(outcome, sizeof(outcome), "not restored");
	if (restore) {
		snprintf(origin, sizeof(origin), "session %lld %s", (long long)id, reason);
		err_clear(&rerr);
		rc = store_session_snapshot(m->store, id, &snap, &rerr);
		if (!rc)
			jobs_rebase(m, out);
		if (!rc)
			rc = tune_restore(m->tune, &snap, origin, &count, &rerr);
		if (count.written)
			jobs_mark_changed(m, out, reason, count.written, now);
		if (rc)
			snprintf(outcome, sizeof(outcome), "failed: %s", rerr.msg);
		else if (count.unaudited)
			snprintf(outcome, sizeof(outcome),
			         "ok (%d values written, %d of them not in the audit log)",
			         count.written, count.unaudited);
		else
			snprintf(outcome, sizeof(outcome), "ok (%d values written)", count.written);
		log_info("session %lld on %s %s: restore %s", (long long)id, out->device, reason,
		         outcome);
	} else {
		log_info("session %lld on %s %s without restore", (long long)id, out->device,
		         reason);
	}
	snprintf(out->state, sizeof(out->state), "%s", restore ? "restored" : "closed");
	out->ended_at = now;
	snprintf(out->end_reason, sizeof(out->end_reason), "%s", reason);
	snprintf(out->restore_outcome, sizeof(out->restore_outcome), "%s", outcome);
	rc = store_session_end(m->store, id, out->state, now, reason, outcome, e);
	if (rc) {
		/* The restore is made: the session is over, recorded or not (issue 23 item 6). */
		pthread_mutex_lock(&m->lock);
		if (m->n_unrecorded < SESSION_UNRECORDED_MAX) {
			m->unrecorded[m->n_unrecorded++] = *out;
			rc = 0;
		}
		pthread_mutex_unlock(&m->lock);
		if (rc == 0)
			log_error(
			        "session %lld ended (%s) but the database cannot record it now "
			        "(%s): "
			        "it stays ended, and its end is written once the database takes it",
			        (long long)id, out->state, e ? e->msg : "database error");
	}
out:
	pthread_mutex_unlock(&m->end_lock);
	tune_snapshot_release(&snap);
	return rc;
}

int session_owner_run(struct session_mgr *m, const char *dev, double since,
                      int (*fn)(void *cls, struct err *e), void *cls, struct err *e)
{
	struct session_rec *open = NULL;
	int n = 0, i, rc;

	pthread_mutex_lock(&m->end_lock);
	rc = session_list(m, "open", dev, &open, &n, e);
	if (rc)
		goto out;
	for (i = 0; i < n && open[i].created_at > since; i++)
		;
	if (i == n) {
		rc = err_set(e, -ESRCH, ERR_SESSION_REQUIRED,
		             "no session is open on '%s' to put its params back", dev);
		goto out;
	}
	rc = fn ? fn(cls, e) : 0;
out:
	pthread_mutex_unlock(&m->end_lock);
	free(open);
	return rc;
}

/* End every open session (only_expired: those due by now) with restore. Returns how many, or
 * -errno with err filled when the open sessions cannot be listed. */
static int end_matching(struct session_mgr *m, double now, bool only_expired, const char *reason,
                        struct err *err)
{
	struct session_rec *open = NULL, rec;
	int n = 0, i, done = 0, rc;
	double due = HUGE_VAL;
	uint64_t opens;
	struct err e;

	pthread_mutex_lock(&m->lock);
	opens = m->opens;
	pthread_mutex_unlock(&m->lock);
	unrecorded_flush(m);
	rc = store_sessions_list(m->store, "open", NULL, &open, &n, err);
	if (rc) {
		log_error("cannot list the open sessions to restore them: %s",
		          err ? err->msg : "database error");
		return rc;
	}
	for (i = 0; i < n; i++) {
		unrecorded_apply(m, &open[i]);
		if (strcmp(open[i].state, "open"))
			continue; /* ended already, its end not recorded yet: no second restore */
		if (only_expired && open[i].expires_at > now) {
			due = fmin(due, open[i].expires_at);
			continue;
		}
		err_clear(&e);
		if (session_end(m, open[i].id, true, reason, now, &rec, &e) == 0) {
			done++;
		} else {
			log_error("session %lld: %s", (long long)open[i].id, e.msg);
			due = fmin(due, open[i].expires_at); /* still open: the next pass tries */
		}
	}
	free(open);
	pthread_mutex_lock(&m->lock);
	m->due_at = m->opens == opens ? due : fmin(due, m->due_at);
	pthread_mutex_unlock(&m->lock);
	return done;
}

int session_get(struct session_mgr *m, int64_t id, struct session_rec *out, struct err *e)
{
	int rc = store_session_get(m->store, id, out, e);

	if (rc == 0)
		unrecorded_apply(m, out);
	return rc;
}

int session_list(struct session_mgr *m, const char *state, const char *device,
                 struct session_rec **out, int *n, struct err *e)
{
	int rc = store_sessions_list(m->store, state, device, out, n, e), i, k = 0;

	for (i = 0; rc == 0 && i < *n; i++) {
		unrecorded_apply(m, &(*out)[i]);
		if (state && strcmp((*out)[i].state, state))
			continue; /* ended meanwhile (not recorded yet): not in this list */
		(*out)[k++] = (*out)[i];
	}
	if (rc == 0)
		*n = k;
	return rc;
}

int session_expire_due(struct session_mgr *m, double now)
{
	struct err e;
	bool look;
	int n;

	pthread_mutex_lock(&m->lock);
	look = m->n_unrecorded > 0 || !(m->due_at > 0) || now >= m->due_at;
	pthread_mutex_unlock(&m->lock);
	if (!look)
		return 0;
	n = end_matching(m, now, true, "expired", &e);

	return n < 0 ? 0 : n;
}

int session_end_all(struct session_mgr *m, double now, const char *reason, struct err *e)
{
	return end_matching(m, now, false, reason, e);
}
