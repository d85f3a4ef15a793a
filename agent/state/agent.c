/* agent.c -- the agent's wiring: database, sysfs, tune with audit, sessions, job queue, profiles.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "device/identity.h"
#include "log.h"
#include "queue/job.h"
#include "state/agent.h"
#include "state/pending.h"
#include "state/token.h"
#include "timeutil.h"
#include "banned.h"

/* The tune audit hooks: every write is recorded in the database before it is made. */
static int audit_intent(void *cls, struct tune_change *c, struct err *e)
{
	struct agent *a = cls;
	int rc = store_change_intent(a->store, c, time_now_s(), e);

	if (rc) {
		__atomic_add_fetch(&a->audit_failures, 1, __ATOMIC_RELAXED);
		log_error("cannot record the change of %s%s%s by %s in the audit log: %s",
		          c->device, c->device[0] ? " " : "", c->name, c->origin, e->msg);
	}
	return rc;
}

/* ... and what became of it, in the database and the log. */
static void audit_outcome(void *cls, const struct tune_change *c)
{
	struct agent *a = cls;
	struct err e;

	log_info("%s %s%s%s: %s -> %s (requested %s) by %s%s%s", c->outcome, c->device,
	         c->device[0] ? " " : "", c->name, c->previous ? c->previous : "-",
	         c->applied ? c->applied : "-", c->requested ? c->requested : "-", c->origin,
	         c->message ? ": " : "", c->message ? c->message : "");
	err_clear(&e);
	if (store_change_outcome(a->store, c, time_now_s(), &e) == 0)
		return;
	__atomic_add_fetch(&a->audit_failures, 1, __ATOMIC_RELAXED);
	if (c->id)
		log_error("audit row %lld (%s %s) stays 'pending': cannot record its outcome "
		          "%s: %s",
		          (long long)c->id, c->device, c->name, c->outcome, e.msg);
	else
		log_error("UNAUDITED: %s %s%s%s: %s -> %s by %s is not in the audit log: %s",
		          c->outcome, c->device, c->device[0] ? " " : "", c->name,
		          c->previous ? c->previous : "-", c->applied ? c->applied : "-", c->origin,
		          e.msg);
}

/* An apply is recorded (with the values to go back to) before its first write... */
static int audit_begin(void *cls, const struct tune_snapshot *snap, const char *origin, int n,
                       int64_t *id, struct err *e)
{
	struct agent *a = cls;
	int rc = store_apply_begin(a->store, snap, origin, n, time_now_s(), id, e);

	if (rc) {
		/* The apply is refused before any write: counted like a change that cannot be
		 * recorded (fleettune_audit_failures_total). */
		__atomic_add_fetch(&a->audit_failures, 1, __ATOMIC_RELAXED);
		log_error("cannot record %s in the audit log: %s", origin, e->msg);
	}
	return rc;
}

/* ... and its record goes once it is over. */
static void audit_end(void *cls, int64_t id)
{
	struct agent *a = cls;
	struct err e;

	err_clear(&e);
	if (store_apply_end(a->store, id, &e))
		log_error("apply %lld stays recorded (it is checked again at the next start): %s",
		          (long long)id, e.msg);
}

struct tune_audit agent_tune_audit(struct agent *a)
{
	struct tune_audit audit = { .intent = audit_intent,
		                    .outcome = audit_outcome,
		                    .begin = audit_begin,
		                    .end = audit_end,
		                    .cls = a };

	return audit;
}

/* The job queue's owner hook (job_run.h): a's sessions. */
static int owner_hold(void *cls, const char *dev, double since,
                      int (*fn)(void *fcls, struct err *e), void *fcls, struct err *e)
{
	struct agent *a = cls;

	return session_owner_run(&a->sessions, dev, since, fn, fcls, e);
}

struct jobq_env agent_jobq_env(struct agent *a)
{
	struct jobq_env env = {
		.store = a->store,
		.tune = &a->tune,
		.fs = &a->fs,
		.fio_path = a->cfg.fio_path,
		.allow_dirs = a->cfg.allow_dirs,
		.n_allow_dirs = a->cfg.n_allow_dirs,
		.allow_format_all = a->cfg.allow_format_all,
		.allow_format = a->cfg.allow_format,
		.n_allow_format = a->cfg.n_allow_format,
		.state_dir = a->cfg.state_dir,
		.contain = a->cfg.contain,
		.hide_serial = a->cfg.hide_serial,
		.now_s = time_now_s,
		.max_queued = (int)a->cfg.max_queued,
		.waiter_exe = a->cfg.waiter_exe,
		.owner = { owner_hold, a },
	};

	return env;
}

int agent_ident_read(void *cls, const char *dev, enum profile_ident field, char *out, size_t len)
{
	struct agent *a = cls;
	struct device_identity id;
	struct err e;
	const char *v;

	err_clear(&e);
	if (identity_device_read(&a->fs, dev, a->cfg.hide_serial, &id, &e))
		return -ENOENT;
	switch (field) {
	case IDENT_VENDOR:
		v = id.vendor;
		break;
	case IDENT_MODEL:
		v = id.model;
		break;
	case IDENT_FIRMWARE:
		v = id.firmware;
		break;
	case IDENT_SERIAL:
		v = id.serial;
		break;
	case IDENT_WWID:
		v = id.wwid;
		break;
	case IDENT_TRANSPORT:
		v = id.transport;
		break;
	default:
		v = NULL;
	}
	if (!v || !*v)
		return -ENOENT;
	if (strlen(v) >= len)
		return -ENAMETOOLONG;
	snprintf(out, len, "%s", v);
	return 0;
}

struct keeper_env agent_keeper_env(struct agent *a)
{
	struct keeper_env env = {
		.store = a->store,
		.tune = &a->tune,
		.fs = &a->fs,
		/* Matches by identity (model, firmware, ...): what GET /devices reports. */
		.ident = { agent_ident_read, a },
		.check_s = a->cfg.drift_check_s,
		.now_s = time_now_s,
	};

	return env;
}

int agent_init(struct agent *a, const struct agent_config *cfg, struct err *e)
{
	char path[PATH_MAX], host[64];
	struct tune_audit audit;
	struct keeper_env kenv;
	struct jobq_env env;
	int rc, made;

	memset(a, 0, sizeof(*a));
	a->cfg = *cfg;
	/* Before anything in the state directory is read or written: a second agent started on
	 * a live directory would otherwise run crash recovery under the live one. */
	rc = statelock_take(&a->lock, a->cfg.state_dir, e);
	if (rc)
		goto fail;
	snprintf(path, sizeof(path), "%s/token", a->cfg.state_dir);
	rc = token_load(a->cfg.token_file ? a->cfg.token_file : path, a->token, sizeof(a->token),
	                &made, e);
	if (rc)
		goto fail;
	if (made)
		log_info("created a new API token in %s (mode 0600)",
		         a->cfg.token_file ? a->cfg.token_file : path);
	a->started_mono_s = time_mono_s();
	if (a->cfg.node_name) {
		snprintf(a->node, sizeof(a->node), "%s", a->cfg.node_name);
	} else {
		if (gethostname(host, sizeof(host)) < 0)
			snprintf(host, sizeof(host), "localhost");
		host[sizeof(host) - 1] = '\0';
		snprintf(a->node, sizeof(a->node), "%s", host);
	}
	a->fs.root = a->cfg.sysfs_root ? a->cfg.sysfs_root : "/";
	a->fs.allow_devices = a->cfg.allow_devices;
	a->fs.n_allow_devices = a->cfg.n_allow_devices;
	a->fs.allow_sysctl = a->cfg.allow_sysctl;
	a->fs.cache = sysfs_cache_new(); /* what does not change is read once per medium */
	audit = agent_tune_audit(a);
	tune_init(&a->tune, &a->fs, &audit);
	params_cache_init(&a->pcache, a->cfg.params_cache_ms);
	snprintf(path, sizeof(path), "%s/agent.db", a->cfg.state_dir);
	rc = store_open(&a->store, path, e);
	if (rc)
		goto fail;
	a->sessions.tune = &a->tune;
	a->sessions.store = a->store;

	/* A previous run may have died mid-PATCH, with sessions open or a job running:
	 * recovery that cannot read the database stops the start, it is never skipped. The
	 * unfinished PATCH goes first: it is the newest change, and the restores after it
	 * compare against what it leaves. */
	rc = pending_recover(&a->tune, a->store, e);
	if (rc < 0)
		goto fail;
	if (rc > 0)
		log_info("recovered %d write(s) a previous run left unfinished", rc);
	rc = session_end_all(&a->sessions, time_now_s(), "agent_restart", e);
	if (rc < 0)
		goto fail;
	if (rc > 0)
		log_info("restored %d session(s) left open by a previous run", rc);
	env = agent_jobq_env(a);
	rc = jobq_start(&a->jobs, &env, e);
	if (rc)
		goto fail;
	/* After the restores of sessions and jobs: profiles are applied on what they left. */
	kenv = agent_keeper_env(a);
	rc = keeper_start(&a->keeper, &kenv, e);
	if (rc)
		goto fail;
	return 0;
fail:
	agent_release(a);
	return rc;
}

void agent_release(struct agent *a)
{
	keeper_stop(a->keeper);
	a->keeper = NULL;
	jobq_stop(a->jobs);
	a->jobs = NULL;
	/* Stopping on purpose puts the devices back too, not only the next start. */
	if (a->store && session_end_all(&a->sessions, time_now_s(), "agent_shutdown", NULL) > 0)
		log_info("restored the open session(s) before exiting");
	store_close(a->store);
	a->store = NULL;
	if (a->tune.fs) {
		tune_release(&a->tune);
		params_cache_release(&a->pcache);
		a->tune.fs = NULL;
	}
	sysfs_cache_free(a->fs.cache);
	a->fs.cache = NULL;
	statelock_release(&a->lock); /* last: nothing of this agent touches the directory now */
}
