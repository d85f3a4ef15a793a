/* ctlstore_rollout.c -- rollouts in the controller's database: the rollout, its nodes (each
 * move saved before the request that makes it) and its waves. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/ctlstore_priv.h"
#include "timeutil.h"
#include "xmalloc.h"
#include "banned.h"

/* NULL for "" (SQL NULL), else s. */
static const char *opt(const char *s)
{
	return s && *s ? s : NULL;
}

static int node_write(struct ctlstore *st, const struct rollout *r, int i, struct err *e)
{
	const struct rollout_node *n = &r->nodes[i];
	char *values = config_to_json(&n->old_values);
	char *params = n->had_profile ? config_to_json(&n->old_params) : NULL;
	char *reset = n->reset_values.n ? config_to_json(&n->reset_values) : NULL;
	int rc;

	rc = db_run(
	        st->db, e, "rollout node",
	        "INSERT INTO rollout_nodes(rollout_id, idx, name, url, device, wave, state, "
	        "old_profile, old_params, old_values, error, session_id, job_id, updated_at, "
	        "reset_values) "
	        "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?) ON CONFLICT(rollout_id, idx) DO UPDATE SET "
	        "state = excluded.state, old_profile = excluded.old_profile, old_params = "
	        "excluded.old_params, old_values = excluded.old_values, error = excluded.error, "
	        "session_id = excluded.session_id, job_id = excluded.job_id, updated_at = "
	        "excluded.updated_at, reset_values = excluded.reset_values",
	        "Iitttitttttnndt", r->id, n->idx, n->name, n->url, n->device, n->wave,
	        rollout_node_state_name(n->state), n->had_profile ? n->old_profile : NULL, params,
	        values, opt(n->error), n->session_id, n->job_id, n->updated_at, reset);
	free(reset);
	free(values);
	free(params);
	return rc;
}

static int wave_write(struct ctlstore *st, const struct rollout *r, int w, struct err *e)
{
	const struct rollout_wave *v = &r->waves[w];

	return db_run(st->db, e, "rollout wave",
	              "INSERT INTO rollout_waves(rollout_id, wave, nodes, started_at, "
	              "finished_at, failures, check_outcome, check_detail) VALUES "
	              "(?,?,?,?,?,?,?,?) ON CONFLICT(rollout_id, wave) DO UPDATE SET "
	              "started_at = excluded.started_at, finished_at = excluded.finished_at, "
	              "failures = excluded.failures, check_outcome = excluded.check_outcome, "
	              "check_detail = excluded.check_detail",
	              "Iiiffitt", r->id, v->wave, v->nodes, v->started_at > 0 ? v->started_at : NAN,
	              v->finished_at > 0 ? v->finished_at : NAN, v->failures, opt(v->check),
	              opt(v->detail));
}

int ctlstore_rollout_create(struct ctlstore *st, struct rollout *r, struct err *e)
{
	char *params = config_to_json(&r->params);
	int rc, i;

	rc = db_tx_begin(st->db, e);
	if (rc == 0)
		rc = db_run(
		        st->db, e, "insert rollout",
		        "INSERT INTO rollouts(created_at, plan_name, plan_json, plan_dir, profile, "
		        "params_json, enforce, sweep_id, promised_gain, promised_pct, canary, "
		        "waves, max_failures, check_mode, status, reason, owner_pid, owner_host, "
		        "saved_at, owner_start) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
		        "dtttttinifititttitdI", r->created_at, r->plan_name, r->plan_json,
		        r->plan_dir ? r->plan_dir : ".", r->profile, params, r->enforce ? 1 : 0,
		        r->sweep_id, r->promised_gain ? 1 : 0, r->promised_pct, r->canary,
		        r->waves_spec, r->max_failures, rollout_check_name(r->check),
		        rollout_status_name(r->status), opt(r->reason), r->owner_pid,
		        opt(r->owner_host), r->created_at, r->owner_start);
	if (rc >= 0)
		r->id = db_last_insert_id(st->db);
	for (i = 0; rc >= 0 && i < r->nnodes; i++)
		rc = node_write(st, r, i, e);
	for (i = 0; rc >= 0 && i < r->nwaves; i++)
		rc = wave_write(st, r, i, e);
	rc = db_tx_end(st->db, rc, e);
	free(params);
	return rc < 0 ? rc : 0;
}

int ctlstore_rollout_nodes_save(struct ctlstore *st, const struct rollout *r, const bool *which,
                                struct err *e)
{
	int rc = db_tx_begin(st->db, e), i;

	for (i = 0; rc >= 0 && i < r->nnodes; i++)
		if (!which || which[i])
			rc = node_write(st, r, i, e);
	if (rc >= 0)
		rc = db_run(st->db, e, "rollout saved_at",
		            "UPDATE rollouts SET saved_at = ? WHERE id = ?", "dI", time_now_s(),
		            r->id);
	rc = db_tx_end(st->db, rc, e);
	return rc < 0 ? rc : 0;
}

int ctlstore_rollout_wave_save(struct ctlstore *st, const struct rollout *r, int w, struct err *e)
{
	int rc = wave_write(st, r, w, e);

	return rc < 0 ? rc : 0;
}

int ctlstore_rollout_status_save(struct ctlstore *st, const struct rollout *r, struct err *e)
{
	int rc = db_run(st->db, e, "rollout status",
	                "UPDATE rollouts SET status = ?, reason = ?, finished_at = ?, owner_pid = "
	                "?, owner_host = ?, saved_at = ?, owner_start = ? WHERE id = ?",
	                "ttfitdII", rollout_status_name(r->status), opt(r->reason),
	                r->finished_at > 0 ? r->finished_at : NAN, r->owner_pid, opt(r->owner_host),
	                time_now_s(), r->owner_start, r->id);

	return rc < 0 ? rc : 0;
}

static int rollout_row(struct sqlite3_stmt *q, void *ctx, struct err *e)
{
	struct rollout *r = ctx;
	int v;

	r->id = db_col_int64(q, 0);
	r->created_at = db_col_double(q, 1);
	r->finished_at = db_col_double(q, 2);
	snprintf(r->plan_name, sizeof(r->plan_name), "%s", db_col_str(q, 3));
	r->plan_json = xstrdup(db_col_str(q, 4));
	r->plan_dir = xstrdup(db_col_str(q, 5));
	snprintf(r->profile, sizeof(r->profile), "%s", db_col_str(q, 6));
	if (config_parse_json(db_col_str(q, 7), &r->params, e) < 0)
		return -EINVAL;
	r->enforce = db_col_int(q, 8) != 0;
	r->sweep_id = db_col_int64(q, 9);
	r->promised_gain = db_col_int(q, 10) != 0;
	r->promised_pct = db_col_num(q, 11);
	r->canary = db_col_int(q, 12);
	snprintf(r->waves_spec, sizeof(r->waves_spec), "%s", db_col_str(q, 13));
	r->max_failures = db_col_int(q, 14);
	v = rollout_check_parse(db_col_str(q, 15));
	r->check = v < 0 ? CHECK_READBACK : (enum rollout_check)v;
	v = rollout_status_parse(db_col_str(q, 16));
	r->status = v < 0 ? ROLLOUT_FAILED : (enum rollout_status)v;
	snprintf(r->reason, sizeof(r->reason), "%s", db_col_str(q, 17));
	r->owner_pid = db_col_int(q, 18);
	snprintf(r->owner_host, sizeof(r->owner_host), "%s", db_col_str(q, 19));
	r->owner_start = db_col_int64(q, 20);
	return 0;
}

static int node_row(struct sqlite3_stmt *q, void *ctx, struct err *e)
{
	struct rollout *r = ctx;
	struct rollout_node *n;
	int v;

	r->nodes = xrealloc(r->nodes, (size_t)(r->nnodes + 1) * sizeof(*r->nodes));
	n = &r->nodes[r->nnodes++];
	memset(n, 0, sizeof(*n));
	n->idx = db_col_int(q, 0);
	snprintf(n->name, sizeof(n->name), "%s", db_col_str(q, 1));
	snprintf(n->url, sizeof(n->url), "%s", db_col_str(q, 2));
	snprintf(n->device, sizeof(n->device), "%s", db_col_str(q, 3));
	n->wave = db_col_int(q, 4);
	v = rollout_node_state_parse(db_col_str(q, 5));
	n->state = v < 0 ? RNODE_APPLYING : (enum rollout_node_state)v; /* unknown: ask the node */
	n->had_profile = !db_col_null(q, 6);
	n->old_profile = n->had_profile ? xstrdup(db_col_str(q, 6)) : NULL;
	if (!db_col_null(q, 7) && config_parse_json(db_col_str(q, 7), &n->old_params, e) < 0)
		return -EINVAL;
	if (!db_col_null(q, 8) && config_parse_json(db_col_str(q, 8), &n->old_values, e) < 0)
		return -EINVAL;
	snprintf(n->error, sizeof(n->error), "%s", db_col_str(q, 9));
	n->session_id = db_col_int64(q, 10);
	n->job_id = db_col_int64(q, 11);
	n->updated_at = db_col_double(q, 12);
	if (!db_col_null(q, 13) && config_parse_json(db_col_str(q, 13), &n->reset_values, e) < 0)
		return -EINVAL;
	return 0;
}

static int wave_row(struct sqlite3_stmt *q, void *ctx, struct err *e)
{
	struct rollout *r = ctx;
	struct rollout_wave *w;

	(void)e;
	if (r->nwaves == ROLLOUT_WAVES_MAX)
		return 0;
	w = &r->waves[r->nwaves++];
	memset(w, 0, sizeof(*w));
	w->wave = db_col_int(q, 0);
	w->nodes = db_col_int(q, 1);
	w->started_at = db_col_double(q, 2);
	w->finished_at = db_col_double(q, 3);
	w->failures = db_col_int(q, 4);
	snprintf(w->check, sizeof(w->check), "%s", db_col_str(q, 5));
	snprintf(w->detail, sizeof(w->detail), "%s", db_col_str(q, 6));
	return 0;
}

int ctlstore_rollout_load(struct ctlstore *st, int64_t id, struct rollout *r, struct err *e)
{
	int rc;

	rollout_init(r);
	rc = db_each(
	        st->db,
	        db_prepare(st->db,
	                   "SELECT id, created_at, finished_at, plan_name, plan_json, plan_dir, "
	                   "profile, params_json, enforce, sweep_id, promised_gain, "
	                   "promised_pct, canary, waves, max_failures, check_mode, status, "
	                   "reason, owner_pid, owner_host, owner_start FROM rollouts WHERE id = ?",
	                   "I", id),
	        rollout_row, r, e, "select rollout");
	if (rc == 0)
		rc = err_set(e, -ENOENT, ERR_NOT_FOUND, "no rollout r%lld", (long long)id);
	if (rc > 0)
		rc = db_each(
		        st->db,
		        db_prepare(st->db,
		                   "SELECT idx, name, url, device, wave, state, old_profile, "
		                   "old_params, old_values, error, session_id, job_id, updated_at, "
		                   "reset_values FROM "
		                   "rollout_nodes "
		                   "WHERE "
		                   "rollout_id = ? ORDER BY idx",
		                   "I", id),
		        node_row, r, e, "select rollout nodes");
	if (rc >= 0)
		rc = db_each(st->db,
		             db_prepare(st->db,
		                        "SELECT wave, nodes, started_at, finished_at, failures, "
		                        "check_outcome, check_detail FROM rollout_waves WHERE "
		                        "rollout_id = ? ORDER BY wave",
		                        "I", id),
		             wave_row, r, e, "select rollout waves");
	if (rc < 0) {
		rollout_release(r);
		return rc;
	}
	return 0;
}

static void summary_row(struct sqlite3_stmt *q, void *elem)
{
	struct ctlstore_rollout_summary *h = elem;
	struct config cfg;
	struct buf b = BUF_INIT;

	h->id = db_col_int64(q, 0);
	snprintf(h->plan_name, sizeof(h->plan_name), "%s", db_col_str(q, 1));
	snprintf(h->profile, sizeof(h->profile), "%s", db_col_str(q, 2));
	if (config_parse_json(db_col_str(q, 3), &cfg, NULL) == 0) {
		config_format(&cfg, &b);
		snprintf(h->params, sizeof(h->params), "%s", b.data ? b.data : "");
		buf_release(&b);
	}
	snprintf(h->status, sizeof(h->status), "%s", db_col_str(q, 4));
	snprintf(h->reason, sizeof(h->reason), "%s", db_col_str(q, 5));
	snprintf(h->check, sizeof(h->check), "%s", db_col_str(q, 6));
	h->created_at = db_col_double(q, 7);
	h->finished_at = db_col_double(q, 8);
	h->saved_at = db_col_double(q, 9);
	h->owner_pid = db_col_int(q, 10);
	snprintf(h->owner_host, sizeof(h->owner_host), "%s", db_col_str(q, 11));
	h->nnodes = db_col_int(q, 12);
	h->nnew = db_col_int(q, 13);
	h->nfailed = db_col_int(q, 14);
	h->nwaves = db_col_int(q, 15);
	h->owner_start = db_col_int64(q, 16);
}

int ctlstore_rollouts_list(struct ctlstore *st, int limit, struct ctlstore_rollout_summary **out,
                           int *n, struct err *e)
{
	void *list = NULL;
	int rc;

	rc = db_collect(
	        st->db,
	        db_prepare(st->db,
	                   "SELECT r.id, r.plan_name, r.profile, r.params_json, r.status, "
	                   "r.reason, r.check_mode, r.created_at, r.finished_at, "
	                   "r.saved_at, r.owner_pid, r.owner_host, "
	                   "(SELECT count(*) FROM rollout_nodes n WHERE n.rollout_id = r.id), "
	                   "(SELECT count(*) FROM rollout_nodes n WHERE n.rollout_id = r.id "
	                   "AND n.state = 'new'), "
	                   "(SELECT count(*) FROM rollout_nodes n WHERE n.rollout_id = r.id "
	                   "AND n.state = 'failed'), "
	                   "(SELECT count(*) FROM rollout_waves w WHERE w.rollout_id = r.id), "
	                   "r.owner_start FROM rollouts r ORDER BY r.id DESC LIMIT ?",
	                   "i", limit),
	        sizeof(**out), summary_row, NULL, &list, n, e, "select rollouts");
	*out = list;
	return rc < 0 ? rc : 0;
}
