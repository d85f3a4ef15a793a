/* rollrun.c -- a staged rollout run: pre-flight, waves, checks (readback, measure), put-back,
 * resume and revert. Every node's move is saved before the request that makes it. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fleet/fleet.h"
#include "fleet/fleet_profile.h"
#include "log.h"
#include "run/rollctx.h"
#include "run/rollmeasure.h"
#include "run/rollrun.h"
#include "store/ctlstore.h"
#include "timeutil.h"
#include "xmalloc.h"
#include "banned.h"

#define WINDOW_DEFAULT 64
#define READBACK_WAIT_S 30 /* how long a readback waits for a device's owner to let go */

/* Sleep s seconds (a signal ends it early: the caller checks its stop flag). */
static void sleep_s(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };

	nanosleep(&ts, NULL);
}

static void node_set(struct rollctx *u, int i, enum rollout_node_state s, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));

static void node_set(struct rollctx *u, int i, enum rollout_node_state s, const char *fmt, ...)
{
	struct rollout_node *n = &u->r->nodes[i];
	va_list ap;

	n->state = s;
	n->updated_at = time_now_s();
	if (!fmt)
		return;
	va_start(ap, fmt);
	vsnprintf(n->error, sizeof(n->error), fmt, ap);
	va_end(ap);
}

static void save_wave(struct rollctx *u, int w)
{
	struct err e = { 0 };

	if (!u->db_failed && ctlstore_rollout_wave_save(u->st, u->r, w, &e)) {
		u->db_failed = true;
		u->db_err = e;
	}
}

static void save_status(struct rollctx *u)
{
	struct err e = { 0 };

	if (ctlstore_rollout_status_save(u->st, u->r, &e) && !u->db_failed) {
		u->db_failed = true;
		u->db_err = e;
	}
}

/* The answer holds the rollout's profile. */
static bool holds_new(const struct rollout *r, const struct fleet_profile *a)
{
	return a->found && config_equal(&a->params, &r->params) && a->enforce == r->enforce;
}

/* The answer is what node n had before the rollout. */
static bool holds_old(const struct rollout_node *n, const struct fleet_profile *a)
{
	if (!n->had_profile)
		return !a->found;
	return a->found && a->body && n->old_profile && !strcmp(a->body, n->old_profile);
}

/* Cancel the measurement's jobs and close its sessions that a killed controller left (the
 * sessions' restore puts back what the wave applied), so that the profiles stop yielding. */
static void sessions_close_stale(struct rollctx *u)
{
	struct rollout *r = u->r;
	struct fleet_result *res = xcalloc((size_t)r->nnodes + 1, sizeof(*res));
	int64_t *jobs = xcalloc((size_t)r->nnodes + 1, sizeof(*jobs));
	int i, n = 0, nj = 0;

	for (i = 0; i < r->nnodes; i++) {
		jobs[i] = r->nodes[i].job_id;
		nj += jobs[i] != 0;
		r->nodes[i].job_id = 0;
	}
	/* A job that already ended answers 409: nothing to cancel. */
	if (nj)
		fleet_jobs_cancel(&u->f, jobs, res);
	free(jobs);
	for (i = 0; i < r->nnodes; i++) {
		u->f.session_id[i] = r->nodes[i].session_id;
		u->mask[i] = r->nodes[i].session_id != 0;
		n += u->mask[i];
	}
	if (n) {
		fleet_sessions_close(&u->f, true, res);
		for (i = 0; i < r->nnodes; i++)
			r->nodes[i].session_id = u->f.session_id[i];
	}
	if (n || nj)
		rollctx_save_nodes(u, NULL);
	free(res);
}

/* Ask the nodes whose move was sent but not confirmed what they hold now. */
static void resolve_uncertain(struct rollctx *u)
{
	struct rollout *r = u->r;
	int i, n = 0;

	for (i = 0; i < r->nnodes; i++) {
		u->mask[i] =
		        r->nodes[i].state == RNODE_APPLYING || r->nodes[i].state == RNODE_REVERTING;
		n += u->mask[i];
	}
	if (!n)
		return;
	fleet_profile_get(&u->f, u->mask, r->profile, u->ans);
	for (i = 0; i < r->nnodes; i++) {
		struct rollout_node *nd = &r->nodes[i];
		const struct fleet_profile *a = &u->ans[i];

		if (!u->mask[i])
			continue;
		if (a->res.failed)
			snprintf(nd->error, sizeof(nd->error), "cannot ask what it holds: %s",
			         a->res.err.msg);
		else if (holds_new(r, a))
			node_set(u, i, RNODE_NEW, "%s", "");
		else if (holds_old(nd, a))
			node_set(u, i, nd->state == RNODE_APPLYING ? RNODE_OLD : RNODE_REVERTED,
			         "%s", "");
		else
			node_set(u, i, RNODE_FAILED,
			         "holds a profile '%s' that is neither the rollout's nor what it "
			         "had: "
			         "changed by someone else, left alone",
			         r->profile);
	}
	rollctx_save_nodes(u, u->mask);
	fleet_profiles_release(u->ans, r->nnodes);
}

static void owners_wait(struct rollctx *u, const bool *mask, struct fleet_profile *ans,
                        bool stoppable);
static void reset_values_write(struct rollctx *u, const bool *put_back, struct fleet_profile *ans);

/* A device a session or job owns keeps its values through a put-back (its owner's restore has
 * the last word): a killed controller's measurement may still run there, so wait for it to
 * let go first. */
static void revert_owners_wait(struct rollctx *u, const bool *put_back)
{
	int n = u->r->nnodes;
	struct fleet_profile *now = xcalloc((size_t)n + 1, sizeof(*now));

	fleet_profile_get(&u->f, put_back, u->r->profile, now);
	owners_wait(u, put_back, now, false);
	fleet_profiles_release(now, n);
	free(now);
}

/* A profile already gone (deleted by hand without its restore) left the values: write back
 * what the node had, as read before the rollout. a2 holds the DELETEs' answers of without. */
static void revert_gone_write(struct rollctx *u, const bool *without, struct fleet_profile *a2)
{
	struct rollout *r = u->r;
	int n = r->nnodes, i, ngone = 0;
	bool *gone = xcalloc((size_t)n + 1, sizeof(bool));
	const struct config **old = xcalloc((size_t)n + 1, sizeof(*old));
	struct config *applied = xcalloc((size_t)n + 1, sizeof(*applied));
	unsigned *adjusted = xcalloc((size_t)n + 1, sizeof(*adjusted));
	struct fleet_result *res = xcalloc((size_t)n + 1, sizeof(*res));

	for (i = 0; i < n; i++) {
		gone[i] = without[i] && a2[i].status == 404;
		old[i] = gone[i] && r->nodes[i].old_values.n ? &r->nodes[i].old_values : NULL;
		ngone += gone[i];
	}
	if (ngone)
		fleet_params_apply_each(&u->f, old, applied, adjusted, res);
	for (i = 0; i < n; i++)
		if (gone[i] && res[i].failed) {
			a2[i].res = res[i];
			err_set_word(&a2[i].res.err, 0, err_word(&res[i].err),
			             "its profile was gone and writing the old values failed: %s",
			             res[i].err.msg);
		}
	free(res);
	free(adjusted);
	free(applied);
	free(old);
	free(gone);
}

/* What the scheduler switch reset is no profile's value: written back here, on the nodes put
 * back with their old profile (answers in u->ans) and without one (answers in a2). */
static void revert_resets_write(struct rollctx *u, const bool *put_back, const bool *with,
                                const bool *without, struct fleet_profile *a2)
{
	int n = u->r->nnodes, i;
	bool *wm = xcalloc((size_t)n + 1, sizeof(bool)), *om = xcalloc((size_t)n + 1, 1);

	for (i = 0; i < n; i++) {
		wm[i] = put_back[i] && with[i];
		om[i] = put_back[i] && without[i];
	}
	reset_values_write(u, wm, u->ans);
	reset_values_write(u, om, a2);
	free(wm);
	free(om);
}

/* Node i's state after its put-back, answered in a (without: a DELETE's); returns 1 when it
 * could not be put back. */
static int revert_judge(struct rollctx *u, int i, const struct fleet_profile *a, bool without,
                        enum rollout_node_state done)
{
	struct rollout *r = u->r;
	char why[256];

	/* The agent deleted the profile but left a device as it was (a session or job owns it):
	 * not put back yet. */
	if (!a->res.failed && without && a->restored[0] && strncmp(a->restored, "ok", 2) &&
	    strncmp(a->restored, "nothing to restore", 18)) {
		node_set(u, i, RNODE_REVERTING,
		         "cannot put it back: %s (its values stay; "
		         "rollout --revert retries)",
		         a->restored);
		return 1;
	}
	if (a->res.failed) {
		snprintf(why, sizeof(why), "%s", r->nodes[i].error);
		node_set(u, i, RNODE_REVERTING, "cannot put it back: %s%s%s", a->res.err.msg,
		         why[0] ? "; before: " : "", why);
		return 1;
	}
	node_set(u, i, done, done == RNODE_FAILED ? NULL : "%s", "");
	return 0;
}

/*
 * Put the nodes of put_back back to what they had: a profile that was there before PUT back as
 * the agent showed it, else DELETE ?restore=true (the agent writes back the values its
 * parameters had before the profile first changed them). Nodes end in state done.
 * Returns how many could not be put back (they stay "reverting", with the reason).
 */
static int revert(struct rollctx *u, const bool *put_back, enum rollout_node_state done)
{
	struct rollout *r = u->r;
	int n = r->nnodes, i, failed = 0;
	bool *with = xcalloc((size_t)n + 1, sizeof(bool)), *without = xcalloc((size_t)n + 1, 1);
	char **bodies = xcalloc((size_t)n + 1, sizeof(char *));
	struct fleet_profile *a2 = xcalloc((size_t)n + 1, sizeof(*a2));

	for (i = 0; i < n; i++) {
		if (!put_back[i])
			continue;
		node_set(u, i, RNODE_REVERTING, NULL);
		with[i] = r->nodes[i].had_profile;
		without[i] = !r->nodes[i].had_profile;
		bodies[i] = r->nodes[i].old_profile;
	}
	rollctx_save_nodes(u, put_back);
	revert_owners_wait(u, put_back);
	/* A revert is never cut short by a signal: it leaves every node old. */
	fleet_profile_put(&u->f, with, r->profile, NULL, false, bodies, false, u->window, NULL,
	                  u->ans);
	fleet_profile_delete(&u->f, without, r->profile, true, u->window, NULL, a2);
	revert_gone_write(u, without, a2);
	revert_resets_write(u, put_back, with, without, a2);
	for (i = 0; i < n; i++)
		if (put_back[i])
			failed +=
			        revert_judge(u, i, with[i] ? &u->ans[i] : &a2[i], without[i], done);
	rollctx_save_nodes(u, put_back);
	fleet_profiles_release(u->ans, n);
	fleet_profiles_release(a2, n);
	free(a2);
	free(bodies);
	free(with);
	free(without);
	return failed;
}

/* Why node i's answer does not show the rollout's values held on its device, or "" when it
 * does. */
static void readback_judge(const struct rollout *r, const struct rollout_node *nd,
                           const struct fleet_profile *a, char *why, size_t len)
{
	const struct fleet_profile_device *d = NULL;
	int k, j;

	why[0] = '\0';
	if (a->res.failed) {
		snprintf(why, len, "readback: %s", a->res.err.msg);
		return;
	}
	if (!holds_new(r, a)) {
		snprintf(why, len, "readback: the agent does not hold the rollout's profile '%s'",
		         r->profile);
		return;
	}
	for (k = 0; k < a->ndevices && !d; k++)
		if (!strcmp(a->devices[k].device, nd->device))
			d = &a->devices[k];
	if (!d) {
		snprintf(why, len, "readback: profile '%s' does not apply to %s", r->profile,
		         nd->device);
		return;
	}
	if (!keep_state_holds(d->kstate)) {
		snprintf(why, len, "readback: %s is %s%s%s%s%s", nd->device, d->state,
		         d->owner[0] ? " " : "", d->owner, d->error[0] ? ": " : "", d->error);
		return;
	}
	for (j = 0; j < d->nvalues; j++) {
		const struct fleet_profile_value *v = &d->values[j];

		if (v->drifted || v->adjusted || strcmp(v->live, v->wanted)) {
			snprintf(why, len, "readback: %s on %s is %s, the profile's is %s%s",
			         v->name, nd->device, v->live[0] ? v->live : "unreadable",
			         v->wanted,
			         v->adjusted ? " (the kernel adjusted the requested value)" : "");
			return;
		}
	}
}

/* Node n's device is owned by a session or a job in answer a. */
static bool owned(const struct rollout_node *n, const struct fleet_profile *a)
{
	int k;

	for (k = 0; !a->res.failed && k < a->ndevices; k++)
		if (!strcmp(a->devices[k].device, n->device) &&
		    a->devices[k].kstate == KEEP_YIELDED)
			return true;
	return false;
}

/*
 * ans holds the profile answers of the nodes of mask. While a session or a job owns the device
 * of one of them (the agent reports the profile "yielded" there: a killed controller's
 * measurement may still run), ask those nodes again once a second, up to READBACK_WAIT_S, their
 * newest answers replacing the old in ans. A signal cuts the wait short only when stoppable (a
 * revert is never cut short).
 */
static void owners_wait(struct rollctx *u, const bool *mask, struct fleet_profile *ans,
                        bool stoppable)
{
	struct rollout *r = u->r;
	int n = r->nnodes, i, waited, busy;
	bool *busy_mask = xcalloc((size_t)n + 1, sizeof(bool));
	struct fleet_profile *again = xcalloc((size_t)n + 1, sizeof(*again));

	for (waited = 0; waited < READBACK_WAIT_S && !(stoppable && rollctx_stopped(u)); waited++) {
		for (busy = 0, i = 0; i < n; i++) {
			busy_mask[i] = mask[i] && owned(&r->nodes[i], &ans[i]);
			busy += busy_mask[i];
		}
		if (!busy)
			break;
		sleep_s(1.0);
		fleet_profile_get(&u->f, busy_mask, r->profile, again);
		for (i = 0; i < n; i++)
			if (busy_mask[i]) {
				free(ans[i].body);
				ans[i] = again[i];
				again[i].body = NULL;
			}
	}
	free(again);
	free(busy_mask);
}

/* Read back the wave's new nodes; a node that does not hold the values is put back and fails. */
static void check_readback(struct rollctx *u, int w)
{
	struct rollout *r = u->r;
	int n = r->nnodes, i;
	bool *bad = xcalloc((size_t)n + 1, sizeof(bool));
	char why[256];
	int nbad = 0;

	if (!rollctx_mask_of(u, w, RNODE_NEW))
		goto out;
	fleet_profile_get(&u->f, u->mask, r->profile, u->ans);
	/* A device a session or job owns cannot be judged yet: ask again for a while before
	 * calling it a failure. */
	owners_wait(u, u->mask, u->ans, true);
	for (i = 0; i < n; i++) {
		if (!u->mask[i])
			continue;
		readback_judge(r, &r->nodes[i], &u->ans[i], why, sizeof(why));
		if (!why[0])
			continue;
		snprintf(r->nodes[i].error, sizeof(r->nodes[i].error), "%s", why);
		bad[i] = true;
		nbad++;
	}
	fleet_profiles_release(u->ans, n);
	if (nbad)
		revert(u, bad, RNODE_FAILED);
out:
	free(bad);
}

/* ---- waves ---- */

/* What node i's device held before its PUT (the answer's previous values), kept the first
 * time: the measurement's old side, and what a revert writes where the profile is gone. */
static void old_values_read(struct rollctx *u, int i, const struct fleet_profile *a)
{
	struct rollout_node *nd = &u->r->nodes[i];
	int k, j;

	if (nd->old_values.n)
		return;
	for (k = 0; k < a->ndevices; k++) {
		if (strcmp(a->devices[k].device, nd->device))
			continue;
		for (j = 0; j < a->devices[k].nvalues; j++) {
			const struct fleet_profile_value *v = &a->devices[k].values[j];
			const struct setting *want = config_get(&u->r->params, v->name);

			if (want && v->previous[0])
				config_set(&nd->old_values, v->name, v->previous, want->is_int);
		}
	}
}

/* Whether a scheduler switch resets the parameter: nr_requests and the scheduler's own. */
static bool switch_resets(const char *name)
{
	return !strcmp(name, "nr_requests") || !strncmp(name, "iosched.", 8);
}

/* Before a rollout that sets the scheduler changes the nodes of mask: what the switch will
 * reset and the profile does not set, as each device has it now (kept the first time, as
 * old_values): the agent's restore puts back only the profile's own values. */
static void reset_values_read(struct rollctx *u, const bool *mask)
{
	struct rollout *r = u->r;
	int n = r->nnodes, i, j, any = 0;
	bool *ask, *was;
	struct node_info *info;

	if (!config_get(&r->params, "scheduler"))
		return;
	ask = xcalloc((size_t)n + 1, sizeof(bool));
	for (i = 0; i < n; i++)
		any += ask[i] = mask[i] && !r->nodes[i].reset_values.n;
	if (!any) {
		free(ask);
		return;
	}
	was = xcalloc((size_t)n * 4 + 1, sizeof(bool));
	info = xcalloc((size_t)n + 1, sizeof(*info));
	/* A probe of these nodes only; what it learns of the others' features is kept. */
	memcpy(was, u->f.active, (size_t)n * sizeof(bool));
	memcpy(was + n, u->f.long_poll, (size_t)n * sizeof(bool));
	memcpy(was + 2 * n, u->f.job_applied, (size_t)n * sizeof(bool));
	memcpy(was + 3 * n, u->f.pass_deadline, (size_t)n * sizeof(bool));
	for (i = 0; i < n; i++)
		u->f.active[i] = ask[i];
	fleet_probe(&u->f, true, info);
	memcpy(u->f.active, was, (size_t)n * sizeof(bool));
	for (i = 0; i < n; i++)
		if (!ask[i]) {
			u->f.long_poll[i] = was[n + i];
			u->f.job_applied[i] = was[2 * n + i];
			u->f.pass_deadline[i] = was[3 * n + i];
		}
	for (i = 0; i < n; i++)
		for (j = 0; ask[i] && j < info[i].nparams; j++) {
			const struct param_info *pi = &info[i].params[j];

			if (pi->writable && pi->value[0] && switch_resets(pi->name) &&
			    !config_get(&r->params, pi->name))
				config_set(&r->nodes[i].reset_values, pi->name, pi->value,
				           strspn(pi->value, "0123456789") == strlen(pi->value));
		}
	node_info_release(info, n);
	free(info);
	free(was);
	free(ask);
}

/* After a revert: write back on every node put back what the scheduler switch reset (its
 * reset_values, less what its old profile holds: the agent put that back), scheduler
 * first being the agent's. A node whose write fails gets the reason in ans[i]. */
static void reset_values_write(struct rollctx *u, const bool *put_back, struct fleet_profile *ans)
{
	struct rollout *r = u->r;
	int n = r->nnodes, i, k, any = 0;
	struct config *cfg = xcalloc((size_t)n + 1, sizeof(*cfg));
	const struct config **cfgs = xcalloc((size_t)n + 1, sizeof(*cfgs));
	struct config *applied = xcalloc((size_t)n + 1, sizeof(*applied));
	unsigned *adjusted = xcalloc((size_t)n + 1, sizeof(*adjusted));
	struct fleet_result *res = xcalloc((size_t)n + 1, sizeof(*res));

	for (i = 0; i < n; i++) {
		const struct rollout_node *nd = &r->nodes[i];

		if (!put_back[i] || ans[i].res.failed || !nd->reset_values.n)
			continue;
		if (ans[i].restored[0] && strncmp(ans[i].restored, "ok", 2) &&
		    strncmp(ans[i].restored, "nothing to restore", 18))
			continue; /* an owner keeps the device: not put back yet */
		for (k = 0; k < nd->reset_values.n; k++)
			if (!nd->had_profile ||
			    !config_get(&nd->old_params, nd->reset_values.s[k].name))
				config_set(&cfg[i], nd->reset_values.s[k].name,
				           nd->reset_values.s[k].value,
				           nd->reset_values.s[k].is_int);
		if (cfg[i].n) {
			cfgs[i] = &cfg[i];
			any++;
		}
	}
	if (any)
		fleet_params_apply_each(&u->f, cfgs, applied, adjusted, res);
	for (i = 0; any && i < n; i++)
		if (cfgs[i] && res[i].failed) {
			ans[i].res = res[i];
			err_set_word(&ans[i].res.err, 0, err_word(&res[i].err),
			             "writing back what the scheduler switch reset failed: %s",
			             res[i].err.msg);
		}
	free(res);
	free(adjusted);
	free(applied);
	free(cfgs);
	free(cfg);
}

/* PUT the profile on the wave's old nodes (window at a time; none once *stop is set). */
static void wave_apply(struct rollctx *u, int w)
{
	struct rollout *r = u->r;
	int n = r->nnodes, i, nu = 0;
	bool *unsure;

	if (!rollctx_mask_of(u, w, RNODE_OLD))
		return;
	reset_values_read(u, u->mask);
	for (i = 0; i < n; i++)
		if (u->mask[i])
			node_set(u, i, RNODE_APPLYING, "%s", "");
	rollctx_save_nodes(u, u->mask);
	if (u->db_failed) {
		for (i = 0; i < n; i++)
			if (u->mask[i])
				node_set(u, i, RNODE_OLD, NULL);
		return;
	}
	fleet_profile_put(&u->f, u->mask, r->profile, &r->params, r->enforce, NULL, false,
	                  u->window, u->o->stop, u->ans);
	unsure = xcalloc((size_t)n + 1, sizeof(bool));
	for (i = 0; i < n; i++) {
		const struct fleet_profile *a = &u->ans[i];

		if (!u->mask[i])
			continue;
		if (a->not_started) {
			node_set(u, i, RNODE_OLD, "%s", "");
		} else if (!a->res.failed) {
			node_set(u, i, RNODE_NEW, "%s", "");
			old_values_read(u, i, a);
		} else if (a->res.unreachable) {
			/* No answer: it may have been applied. Ask below. */
			snprintf(r->nodes[i].error, sizeof(r->nodes[i].error), "write: %s",
			         a->res.err.msg);
			unsure[i] = true;
			nu++;
		} else
			node_set(u, i, RNODE_FAILED, "write: %s", a->res.err.msg);
	}
	fleet_profiles_release(u->ans, n);
	rollctx_save_nodes(u, u->mask);
	if (nu) {
		fleet_profile_get(&u->f, unsure, r->profile, u->ans);
		for (i = 0; i < n; i++) {
			if (!unsure[i])
				continue;
			if (!u->ans[i].res.failed && holds_new(r, &u->ans[i])) {
				node_set(u, i, RNODE_NEW, "%s", "");
				old_values_read(u, i, &u->ans[i]);
			} else if (!u->ans[i].res.failed && holds_old(&r->nodes[i], &u->ans[i]))
				node_set(u, i, RNODE_FAILED,
				         NULL); /* unchanged: the write's error stays */
		}
		fleet_profiles_release(u->ans, n);
		rollctx_save_nodes(u, unsure);
	}
	free(unsure);
}

/* A failed node's line for the wave's detail: "node3: write: HTTP 422: ..." */
static void failures_text(const struct rollout *r, int w, char *out, size_t len)
{
	size_t off = 0;
	int i, shown = 0;

	out[0] = '\0';
	for (i = 0; i < r->nnodes && off < len; i++) {
		const struct rollout_node *n = &r->nodes[i];

		if (n->wave != w || (n->state != RNODE_FAILED && n->state != RNODE_APPLYING))
			continue;
		if (shown++ == 3) {
			off += (size_t)snprintf(out + off, len - off, "; ...");
			break;
		}
		off += (size_t)snprintf(out + off, len - off, "%s%s: %s", off ? "; " : "", n->name,
		                        n->error[0] ? n->error : "no answer");
	}
}

/* Run wave w: apply, check, and put it back when it fails. */
static enum rollrun_result wave_run(struct rollctx *u, int w)
{
	struct rollout *r = u->r;
	struct rollout_wave *wv = &r->waves[w];
	char detail[512], fails[400];
	double t_start, t_applied, t_read;
	int failures, rc = 1, i;

	if (rollctx_stopped(u))
		return ROLLRUN_INTERRUPTED;
	if (!(wv->started_at > 0))
		wv->started_at = time_now_s();
	t_start = time_now_s();
	save_wave(u, w);
	wave_apply(u, w);
	t_applied = time_now_s();
	if (u->db_failed)
		return ROLLRUN_FAILED;
	if (rollctx_stopped(u))
		return ROLLRUN_INTERRUPTED;
	detail[0] = '\0';
	if (r->check != CHECK_NONE)
		check_readback(u, w);
	t_read = time_now_s();
	failures = rollout_count(r, w, RNODE_FAILED) + rollout_count(r, w, RNODE_APPLYING);
	if (failures <= r->max_failures && r->check == CHECK_MEASURE) {
		rc = rollmeasure_check(u, w, detail, sizeof(detail));
		if (rc == -EINTR)
			return ROLLRUN_INTERRUPTED;
	}
	wv->failures = failures;
	failures_text(r, w, fails, sizeof(fails));
	if (failures > r->max_failures) {
		snprintf(wv->check, sizeof(wv->check), "failed");
		snprintf(wv->detail, sizeof(wv->detail),
		         "%d node(s) failed, more than --max-failures %d: %s", failures,
		         r->max_failures, fails);
	} else if (!rc) {
		snprintf(wv->check, sizeof(wv->check), "failed");
		snprintf(wv->detail, sizeof(wv->detail), "%s", detail);
	} else {
		snprintf(wv->check, sizeof(wv->check), "%s",
		         r->check == CHECK_NONE ? "skipped" : "passed");
		snprintf(wv->detail, sizeof(wv->detail), "%s%s%s", detail,
		         detail[0] && fails[0] ? "; " : "", fails);
	}
	wv->finished_at = time_now_s();
	save_wave(u, w);
	log_debug("phases wave=%d nodes=%d start=%.3f applied=%.3f read_back=%.3f checked=%.3f "
	          "saved=%.3f",
	          w, wv->nodes, t_start, t_applied, t_read, wv->finished_at, time_now_s());
	rollctx_event(u, ROLLRUN_WAVE_DONE, w, 0, 0);
	if (!strcmp(wv->check, "failed")) {
		int nbad;

		for (i = 0; i < r->nnodes; i++)
			u->mask[i] = r->nodes[i].wave == w && (r->nodes[i].state == RNODE_NEW ||
			                                       r->nodes[i].state == RNODE_APPLYING);
		nbad = revert(u, u->mask, RNODE_REVERTED);
		snprintf(r->reason, sizeof(r->reason), "wave %d: %s%s", w, wv->detail,
		         nbad ? "; some nodes could not be put back (rollout --revert retries)"
		              : "");
		rollctx_event(u, ROLLRUN_REVERT_DONE, w, 0, 0);
		return ROLLRUN_STOPPED;
	}
	return u->db_failed ? ROLLRUN_FAILED : ROLLRUN_COMPLETED;
}

/* Run the waves from the first unfinished one; set the status and save it. */
static enum rollrun_result waves_run(struct rollctx *u, struct err *e)
{
	struct rollout *r = u->r;
	enum rollrun_result res = ROLLRUN_COMPLETED;
	int w;

	for (w = 0; w < r->nwaves && res == ROLLRUN_COMPLETED; w++)
		if (!(r->waves[w].finished_at > 0))
			res = wave_run(u, w);
	if (res == ROLLRUN_COMPLETED && rollout_count(r, -1, RNODE_NEW) < r->nnodes)
		res = ROLLRUN_PARTIAL;
	switch (res) {
	case ROLLRUN_COMPLETED:
	case ROLLRUN_PARTIAL:
		r->status = ROLLOUT_COMPLETED;
		r->finished_at = time_now_s();
		if (res == ROLLRUN_PARTIAL)
			snprintf(r->reason, sizeof(r->reason),
			         "%d node(s) failed within --max-failures and were left as they "
			         "were",
			         r->nnodes - rollout_count(r, -1, RNODE_NEW));
		break;
	case ROLLRUN_STOPPED:
		r->status = ROLLOUT_STOPPED;
		r->finished_at = time_now_s();
		break;
	case ROLLRUN_INTERRUPTED:
		r->status = ROLLOUT_INTERRUPTED;
		snprintf(r->reason, sizeof(r->reason),
		         "interrupted by a signal between nodes: %d node(s) hold the profile, the "
		         "others are as they were",
		         rollout_count(r, -1, RNODE_NEW));
		break;
	default:
		r->status = ROLLOUT_FAILED;
		r->finished_at = time_now_s();
		snprintf(r->reason, sizeof(r->reason),
		         "the database failed, so the rollout stopped: %s", u->db_err.msg);
		err_set(e, -EIO, ERR_DB_ERROR, "%s", r->reason);
		break;
	}
	save_status(u);
	return res;
}

/* ---- pre-flight ---- */

/* Every node's state before anything is written, in one round of requests (health and what
 * it holds): failures are its wave's. The values are judged by the agents at the write
 * itself, all or nothing: the canary is the first to see a value refused. */
static void preflight(struct rollctx *u)
{
	struct rollout *r = u->r;
	int n = r->nnodes, i;
	struct node_info *info = xcalloc((size_t)n + 1, sizeof(*info));

	for (i = 0; i < n; i++)
		u->mask[i] = true;
	fleet_profile_preflight(&u->f, u->mask, r->profile, info, u->ans);
	for (i = 0; i < n; i++) {
		struct rollout_node *nd = &r->nodes[i];
		const struct fleet_profile *cur = &u->ans[i];

		if (!info[i].ok)
			node_set(u, i, RNODE_FAILED, "pre-flight: %s", info[i].err.msg);
		else if (!info[i].profiles)
			node_set(
			        u, i, RNODE_FAILED,
			        "pre-flight: agent %s keeps no profiles (no \"profiles\" feature); "
			        "upgrade it",
			        info[i].version);
		else if (cur->res.failed)
			node_set(u, i, RNODE_FAILED, "pre-flight: GET profile: %s",
			         cur->res.err.msg);
		if (nd->state == RNODE_FAILED || !cur->found)
			continue;
		nd->had_profile = true;
		nd->old_profile = cur->body;
		nd->old_params = cur->params;
		u->ans[i].body = NULL;
	}
	fleet_profiles_release(u->ans, n);
	free(info);
}

static void run_init(struct rollctx *u, struct rollout *r, struct plan *p, const struct plan *jp,
                     const struct rollrun_opts *o)
{
	memset(u, 0, sizeof(*u));
	u->r = r;
	u->p = p;
	u->job_plan = jp ? jp : p;
	u->o = o;
	u->window = o->window > 0 ? o->window : WINDOW_DEFAULT;
	fleet_init(&u->f, p, 10.0, 2);
	fleet_transport_set(&u->f, o->transport);
	u->mask = xcalloc((size_t)p->nnodes + 1, sizeof(bool));
	u->ans = xcalloc((size_t)p->nnodes + 1, sizeof(*u->ans));
}

static void run_release(struct rollctx *u)
{
	fleet_profiles_release(u->ans, u->p->nnodes);
	free(u->ans);
	free(u->mask);
	fleet_release(&u->f);
	ctlstore_close(u->st);
}

enum rollrun_result rollrun_start(struct rollout *r, struct plan *p, const struct plan *job_plan,
                                  const struct rollrun_opts *o, struct err *e)
{
	int cum[ROLLOUT_WAVES_MAX], nwaves, i;
	enum rollrun_result res = ROLLRUN_FAILED;
	struct rollctx u;

	if (rollout_waves_plan(p->nnodes, r->canary, r->waves_spec, cum, &nwaves, e))
		return ROLLRUN_FAILED;
	run_init(&u, r, p, job_plan, o);
	if (ctlstore_open(o->db_path, &u.st, e))
		goto out;
	r->nnodes = p->nnodes;
	r->nodes = xcalloc((size_t)p->nnodes + 1, sizeof(*r->nodes));
	for (i = 0; i < p->nnodes; i++) {
		struct rollout_node *n = &r->nodes[i];

		n->idx = i;
		snprintf(n->name, sizeof(n->name), "%s", p->nodes[i].name);
		snprintf(n->url, sizeof(n->url), "%s", p->nodes[i].url);
		snprintf(n->device, sizeof(n->device), "%s", p->nodes[i].device);
		n->state = RNODE_OLD;
	}
	rollout_waves_assign(r, cum, nwaves);
	r->status = ROLLOUT_RUNNING;
	r->created_at = time_now_s();
	r->owner_pid = o->owner_pid;
	r->owner_start = o->owner_start;
	snprintf(r->owner_host, sizeof(r->owner_host), "%s", o->owner_host ? o->owner_host : "");
	log_debug("phases begin=%.3f", time_now_s());
	preflight(&u);
	log_debug("phases preflight=%.3f", time_now_s());
	if (ctlstore_rollout_create(u.st, r, e))
		goto out;
	rollctx_event(&u, ROLLRUN_BEGIN, 0, 0, 0);
	res = waves_run(&u, e);
out:
	run_release(&u);
	return res;
}

/* The stored rollout's nodes must be p's, in order. */
static int nodes_match(const struct rollout *r, const struct plan *p, struct err *e)
{
	int i;

	if (r->nnodes != p->nnodes)
		return err_set(e, -EINVAL, ERR_PLAN_CHANGED,
		               "rollout r%lld has %d nodes, its plan now %d", (long long)r->id,
		               r->nnodes, p->nnodes);
	for (i = 0; i < r->nnodes; i++)
		if (strcmp(r->nodes[i].name, p->nodes[i].name) ||
		    strcmp(r->nodes[i].url, p->nodes[i].url))
			return err_set(
			        e, -EINVAL, ERR_PLAN_CHANGED,
			        "rollout r%lld: node %d was %s at %s, the plan says %s at %s",
			        (long long)r->id, i, r->nodes[i].name, r->nodes[i].url,
			        p->nodes[i].name, p->nodes[i].url);
	return 0;
}

enum rollrun_result rollrun_resume(struct rollout *r, struct plan *p, const struct plan *job_plan,
                                   const struct rollrun_opts *o, struct err *e)
{
	enum rollrun_result res = ROLLRUN_FAILED;
	struct rollctx u;

	if (r->status != ROLLOUT_RUNNING && r->status != ROLLOUT_INTERRUPTED) {
		err_set(e, -EINVAL, ERR_NOT_RESUMABLE,
		        "rollout r%lld is %s: only a running (its controller gone) or interrupted "
		        "rollout can be resumed%s",
		        (long long)r->id, rollout_status_name(r->status),
		        r->status == ROLLOUT_STOPPED ? "; rollout --revert puts it back" : "");
		return ROLLRUN_FAILED;
	}
	if (nodes_match(r, p, e))
		return ROLLRUN_FAILED;
	run_init(&u, r, p, job_plan, o);
	if (ctlstore_open(o->db_path, &u.st, e))
		goto out;
	r->status = ROLLOUT_RUNNING;
	r->owner_pid = o->owner_pid;
	r->owner_start = o->owner_start;
	snprintf(r->owner_host, sizeof(r->owner_host), "%s", o->owner_host ? o->owner_host : "");
	r->reason[0] = '\0';
	save_status(&u);
	sessions_close_stale(&u);
	resolve_uncertain(&u);
	rollctx_event(&u, ROLLRUN_BEGIN, 0, 0, 0);
	res = waves_run(&u, e);
out:
	run_release(&u);
	return res;
}

enum rollrun_result rollrun_revert(struct rollout *r, struct plan *p, const struct rollrun_opts *o,
                                   struct err *e)
{
	enum rollrun_result res = ROLLRUN_REVERTED;
	struct rollctx u;
	int i, failed;

	if (nodes_match(r, p, e))
		return ROLLRUN_FAILED;
	run_init(&u, r, p, NULL, o);
	if (ctlstore_open(o->db_path, &u.st, e)) {
		res = ROLLRUN_FAILED;
		goto out;
	}
	sessions_close_stale(&u);
	resolve_uncertain(&u);
	for (i = 0; i < r->nnodes; i++)
		u.mask[i] = r->nodes[i].state == RNODE_NEW || r->nodes[i].state == RNODE_APPLYING ||
		            r->nodes[i].state == RNODE_REVERTING;
	failed = revert(&u, u.mask, RNODE_REVERTED);
	rollctx_event(&u, ROLLRUN_REVERT_DONE, -1, 0, 0);
	r->status = failed ? ROLLOUT_FAILED : ROLLOUT_REVERTED;
	r->finished_at = time_now_s();
	if (failed) {
		snprintf(r->reason, sizeof(r->reason),
		         "%d node(s) could not be put back (rollout --revert retries)", failed);
		err_set(e, -EIO, ERR_REVERT_FAILED, "%s", r->reason);
		res = ROLLRUN_FAILED;
	} else {
		snprintf(r->reason, sizeof(r->reason), "reverted by rollout --revert");
	}
	save_status(&u);
out:
	run_release(&u);
	return res;
}
