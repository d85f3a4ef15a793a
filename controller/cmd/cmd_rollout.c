/* cmd_rollout.c -- fleettune-ctl's rollout and verify commands (their entries: options, usage
 * and help), and what history and show say of rollouts. */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/cmd_rollout.h"
#include "log.h"
#include "model/rollout.h"
#include "num.h"
#include "plan/config.h"
#include "plan/plan_nodes.h"
#include "plan/plan_parse.h"
#include "protocol.h"
#include "render/text.h"
#include "render/report_rollout.h"
#include "run/rollrun.h"
#include "run/verify.h"
#include "store/ctlstore.h"
#include "xmalloc.h"
#include "banned.h"

/* The configuration of --params or --best (with its sweep, for the promise and the job). */
static int rollout_config(const struct opts *o, struct config *cfg, struct sweep *s, bool *have_s,
                          const char *verb)
{
	struct err e = { 0 };

	*have_s = false;
	if (!!o->params == !!o->best_id) {
		log_error("give exactly one of --params JSON or --best ID");
		return EXIT_USAGE;
	}
	if (o->params && (config_parse_json(o->params, cfg, &e) < 0 || config_check(cfg, &e) < 0)) {
		log_error("--params: %s", e.msg);
		return EXIT_USAGE;
	}
	if (o->best_id) {
		if (sweep_load(o, o->best_id, s) < 0)
			return 1;
		const struct config *best;

		*have_s = true;
		best = decision_action_cfg(o, s, &s->decision, verb);
		if (!best)
			return 1;
		*cfg = *best;
	}
	if (cfg->n == 0) {
		log_error("no parameters to roll out");
		return EXIT_USAGE;
	}
	return 0;
}

static void rollout_event(void *cls, const struct rollout *r, enum rollrun_event ev, int wave,
                          int round, int rounds)
{
	struct buf b = BUF_INIT;

	(void)cls;
	report_rollout_event(r, ev, wave, round, rounds, &b);
	text_fputs(b.data, stderr);
	buf_release(&b);
}

/* rollout's exit status: 0 completed (or reverted), 1 error, 2 stopped, 3 completed with
 * tolerated failures, 130 a signal. */
static int rollout_exit_code(enum rollrun_result r)
{
	static const int codes[] = {
		[ROLLRUN_COMPLETED] = 0,     [ROLLRUN_PARTIAL] = 3,  [ROLLRUN_STOPPED] = 2,
		[ROLLRUN_INTERRUPTED] = 130, [ROLLRUN_REVERTED] = 0, [ROLLRUN_FAILED] = 1,
	};

	return codes[r];
}

/* Load stored rollout id and its plan (tokens loaded); refuse one whose controller runs. */
static int rollout_stored(const struct opts *o, int64_t id, struct rollout *r, struct plan *p)
{
	struct ctlstore *st = NULL;
	char *path = db_path(o), me[64];
	struct err e = { 0 };
	int rc;

	rc = ctlstore_open(path, &st, &e);
	if (rc == 0)
		rc = ctlstore_rollout_load(st, id, r, &e);
	ctlstore_close(st);
	free(path);
	if (rc < 0) {
		log_error("%s", e.msg);
		return -1;
	}
	rc = -1;
	host_name(me, sizeof(me));
	if (r->status == ROLLOUT_RUNNING && r->owner_pid > 0 && !strcmp(r->owner_host, me) &&
	    owner_alive(r->owner_pid, r->owner_start) && r->owner_pid != (int)getpid()) {
		log_error("rollout r%lld is running (pid %d on this host); stop it first",
		          (long long)id, r->owner_pid);
		goto out;
	}
	if (plan_parse(r->plan_json, r->plan_dir, p, &e) < 0) {
		log_error("rollout r%lld's plan: %s", (long long)id, e.msg);
		goto out;
	}
	if (plan_tokens_load(p, &e) < 0) {
		log_error("rollout r%lld's plan: %s", (long long)id, e.msg);
		plan_release(p); /* parsed: its nodes were leaked here (issue 31 #17) */
		goto out;
	}
	rc = 0;
out:
	if (rc < 0)
		rollout_release(r);
	return rc;
}

/* A rollout is stored to be resumed or reverted later, without its plan's tokens: refuse a
 * plan whose node has an inline "token" (tokens loaded: none yet), saying what to use. */
static int tokens_storable(const struct plan *p)
{
	int i;

	for (i = 0; i < p->nnodes; i++) {
		if (!p->nodes[i].token)
			continue;
		log_error("node '%s' has an inline \"token\": a rollout is stored so that "
		          "--resume and --revert can go on with it later, and tokens are never "
		          "stored; give the node a \"token_file\" (or set FLEETTUNE_TOKEN) instead",
		          p->nodes[i].name);
		return -1;
	}
	return 0;
}

/* --resume ID or --revert ID: the stored rollout r and its plan p, with its sweep s when it
 * came from one (*have_s). Returns 0 or the exit status. */
static int rollout_load(const struct opts *o, struct rollout *r, struct plan *p, struct sweep *s,
                        bool *have_s)
{
	if (rollout_stored(o, o->resume_id ? o->resume_id : o->revert_id, r, p) < 0)
		return 1;
	if (r->sweep_id && sweep_load(&(struct opts){ .db = o->db }, r->sweep_id, s) == 0)
		*have_s = true;
	return 0;
}

/* A new rollout r of the configuration of --params or --best (with its sweep s, *have_s) on
 * the nodes of plan PLAN.json p (its tokens loaded). Returns 0 or the exit status; p is
 * parsed only on 0. */
static int rollout_new(const struct opts *o, struct rollout *r, struct plan *p, struct sweep *s,
                       bool *have_s)
{
	struct config cfg = { 0 };
	char dir[PATH_MAX], *copy;
	struct err e = { 0 };
	int rc, check;

	rc = rollout_config(o, &cfg, s, have_s, "roll out");
	if (rc)
		return rc;
	check = o->check ? rollout_check_parse(o->check) : CHECK_READBACK;
	if (check < 0 || (o->profile && !profile_name_ok(o->profile))) {
		log_error(check < 0 ? "--check: '%s' is not none, readback or measure"
		                    : "--profile: '%s' is not a profile name "
		                      "(" PROFILE_NAME_RULE ")",
		          check < 0 ? o->check : o->profile);
		return EXIT_USAGE;
	}
	if (plan_open(o, o->args[0], p, false) < 0)
		return 1;
	if (tokens_storable(p) < 0 || plan_tokens_load(p, &e) < 0) {
		if (e.msg[0])
			log_error("%s: %s", o->args[0], e.msg);
		plan_release(p);
		return 1;
	}
	r->params = cfg;
	r->check = (enum rollout_check)check;
	r->enforce = !o->no_enforce;
	r->canary = o->canary > 0 ? (int)o->canary : 1;
	r->max_failures = o->max_failures > 0 ? (int)o->max_failures : 0;
	if (o->profile)
		snprintf(r->profile, sizeof(r->profile), "%s", o->profile);
	if (o->waves)
		snprintf(r->waves_spec, sizeof(r->waves_spec), "%s", o->waves);
	snprintf(r->plan_name, sizeof(r->plan_name), "%s", p->name ? p->name : "");
	r->plan_json = xstrdup(p->json);
	copy = xstrdup(o->args[0]);
	r->plan_dir = xstrdup(realpath(dirname(copy), dir) ? dir : ".");
	free(copy);
	if (*have_s) {
		r->sweep_id = o->best_id;
		r->promised_gain = s->decision.state == DECISION_CONFIRMED;
		r->promised_pct = s->decision.delta_pct;
	}
	return 0;
}

/* Run rollout r (started, resumed or reverted as o says) on plan p, with the sweep's plan job
 * (or NULL) for a measure check, and show it. Returns the exit status. */
static int rollout_run(struct opts *o, struct rollout *r, struct plan *p, struct plan *job)
{
	struct rollrun_opts ro = { 0 };
	struct buf out = BUF_INIT;
	struct err e = { 0 };
	char *path = db_path(o), me[64];
	enum rollrun_result res;
	int rc;

	signals_install();
	host_name(me, sizeof(me));
	ro.db_path = path;
	ro.stop = &stop_signal;
	ro.window = o->parallel > 0 ? (int)o->parallel : 0;
	ro.session_ttl_s = o->session_ttl_s > 0 ? (double)o->session_ttl_s : 60;
	ro.poll_interval_s = (double)(o->poll_ms > 0 ? o->poll_ms : 50) / 1000.0;
	ro.owner_pid = (int)getpid();
	ro.owner_start = pid_start_ticks(ro.owner_pid);
	ro.owner_host = me;
	ro.event = rollout_event;
	if (o->revert_id)
		res = rollrun_revert(r, p, &ro, &e);
	else if (o->resume_id)
		res = rollrun_resume(r, p, job, &ro, &e);
	else
		res = rollrun_start(r, p, job, &ro, &e);
	rc = rollout_exit_code(res);
	if (r->id > 0) {
		report_rollout_show(r, o->all_nodes, &out);
		if (output_write(o, out.data, out.len) && rc == 0)
			rc = 1;
	}
	if (res == ROLLRUN_FAILED && e.msg[0])
		log_error("%s", e.msg);
	buf_release(&out);
	free(path);
	return rc;
}

static int cmd_rollout(const struct cmd *c, struct opts *o)
{
	bool have_s = false, have_p = false, stored = o->resume_id || o->revert_id;
	struct rollout r;
	struct plan p;
	struct sweep s;
	int rc;

	rollout_init(&r);
	if (stored ? o->nargs != 0 || (o->resume_id && o->revert_id) : o->nargs != 1) {
		usage_print(stderr, c);
		rc = EXIT_USAGE;
		goto out;
	}
	if (stored && o->nodes_from) {
		log_error("--nodes-from: a stored rollout goes on with (or puts back) the nodes it "
		          "was started with");
		rc = EXIT_USAGE;
		goto out;
	}
	rc = stored ? rollout_load(o, &r, &p, &s, &have_s) : rollout_new(o, &r, &p, &s, &have_s);
	if (rc)
		goto out;
	have_p = true;
	rc = rollout_run(o, &r, &p, have_s ? &s.plan : NULL);
out:
	if (have_p)
		plan_release(&p);
	if (have_s)
		sweep_release(&s);
	rollout_release(&r);
	return rc;
}

const struct cmd cmd_rollout_entry = {
	.name = "rollout",
	.args = "PLAN.json (--best ID [--unconfirmed] | --params JSON) [--waves 10%,50%,100%]\n"
	        "                     [--check none|readback|measure]",
	.opts = CMD_OPTS(BEST) | CMD_OPTS(UNCONFIRMED) | CMD_OPTS(PARAMS) | CMD_OPTS(CANARY) |
	        CMD_OPTS(WAVES) | CMD_OPTS(MAX_FAILURES) | CMD_OPTS(CHECK) | CMD_OPTS(PROFILE) |
	        CMD_OPTS(NO_ENFORCE) | CMD_OPTS(PARALLEL) | CMD_OPTS(SESSION_TTL) |
	        CMD_OPTS(POLL_MS) | CMD_OPTS(NODES) | CMD_OPTS(OUT) | CMD_OPTS(NODES_FROM) |
	        CMD_OPTS(DB) | CMD_OPTS(RESUME) | CMD_OPTS(REVERT),
	.usage_more = "rollout (--resume ID | --revert ID) [--db PATH]",
	.help = "Put the values on the plan's nodes as a profile their agents keep (profile NAME,\n"
	        "default fleettune: applied at every start, when the device appears, and put back "
	        "when\n"
	        "it drifts), wave by wave: --canary N nodes first (1), then --waves, each the "
	        "share of\n"
	        "all nodes (or a count) that holds it afterwards. Pre-flight asks every node (its\n"
	        "agent keeps profiles, what it holds now); each agent judges the values at the "
	        "write,\n"
	        "all or nothing, the canary first. After each wave the\n"
	        "check: readback (every node of the wave holds the values, live), measure "
	        "(readback,\n"
	        "then the sweep's job run old vs new on the wave's nodes, interleaved, judged by "
	        "the\n"
	        "sweep's verdict rules: no significant loss, and for a sweep that found a gain, "
	        "not\n"
	        "equivalent to nothing), or none. More than --max-failures K failing nodes in a "
	        "wave\n"
	        "(0), or a failed check, stops: that wave is put back and the exit status is 2. A\n"
	        "signal stops between nodes (130): every node holds the new profile or what it "
	        "had.\n"
	        "Every rollout is stored (history, show rID); --resume ID goes on with one whose\n"
	        "controller died, --revert ID puts every node it changed back. Exit 0 completed, "
	        "3\n"
	        "completed with up to K failures a wave left as they were, 1 on errors.",
	.nargs = -1,
	.exec = cmd_rollout,
};

static int cmd_verify(const struct cmd *c, struct opts *o)
{
	const char *name = o->profile ? o->profile : ROLLOUT_PROFILE_DEFAULT;
	struct verify_expect *ex = NULL;
	struct verify_node *res = NULL;
	struct rollout r;
	struct plan p;
	struct sweep s;
	struct config cfg = { 0 };
	struct buf out = BUF_INIT;
	char source[64];
	bool have_s = false, have_r = false;
	int rc, bad;

	(void)c;
	rollout_init(&r);
	if ((o->params || o->best_id) && o->rollout_id) {
		log_error("give one of --params, --best or --rollout");
		return EXIT_USAGE;
	}
	if (!profile_name_ok(name)) {
		log_error("--profile: '%s' is not a profile name", name);
		return EXIT_USAGE;
	}
	if (o->params || o->best_id) {
		rc = rollout_config(o, &cfg, &s, &have_s, "verify");
		if (rc)
			goto out;
		snprintf(source, sizeof(source), "%s",
		         o->params ? "--params" : "the best of sweep --best");
	} else {
		struct ctlstore *st = NULL;
		struct ctlstore_rollout_summary *h = NULL;
		char *path = db_path(o);
		struct err e = { 0 };
		int64_t id = o->rollout_id;
		int n = 0, i;

		/* The newest rollout of this profile name holds what each node should have. */
		rc = ctlstore_open(path, &st, &e);
		if (rc == 0 && !id)
			rc = ctlstore_rollouts_list(st, 1000, &h, &n, &e);
		for (i = 0; rc == 0 && !id && i < n; i++)
			if (!strcmp(h[i].profile, name))
				id = h[i].id;
		if (rc == 0 && id)
			rc = ctlstore_rollout_load(st, id, &r, &e);
		free(h);
		ctlstore_close(st);
		free(path);
		if (rc < 0 || !id) {
			log_error("%s",
			          rc < 0 ? e.msg
			                 : "no rollout of this profile to verify against: give "
			                   "--rollout ID, --params JSON or --best ID");
			rc = 1;
			goto out;
		}
		have_r = true;
		snprintf(source, sizeof(source), "rollout r%lld", (long long)id);
		name = r.profile;
	}
	if (plan_open(o, o->args[0], &p, true) < 0) {
		rc = 1;
		goto out;
	}
	ex = xcalloc((size_t)p.nnodes + 1, sizeof(*ex));
	res = xcalloc((size_t)p.nnodes + 1, sizeof(*res));
	verify_expect_from(&p, have_r ? &r : NULL, &cfg, source, ex);
	bad = verify_run(&p, name, ex, NULL, res);
	report_verify(&p, name, res, bad, &out);
	rc = output_write(o, out.data, out.len) || bad ? 1 : 0;
	buf_release(&out);
	plan_release(&p);
out:
	free(ex);
	free(res);
	if (have_s)
		sweep_release(&s);
	rollout_release(&r);
	return rc;
}

const struct cmd cmd_verify_entry = {
	.name = "verify",
	.args = "PLAN.json [--rollout ID | --params JSON | --best ID [--unconfirmed]]",
	.opts = CMD_OPTS(PROFILE) | CMD_OPTS(ROLLOUT) | CMD_OPTS(PARAMS) | CMD_OPTS(BEST) |
	        CMD_OPTS(UNCONFIRMED) | CMD_OPTS(OUT) | CMD_OPTS(NODES_FROM) | CMD_OPTS(DB),
	.help = "Ask every node of the plan for its profile (default: the newest rollout's name) "
	        "and\n"
	        "say per node what differs from what it should hold: the newest rollout of that\n"
	        "profile (the values on the nodes it left new, what the others had), or --params "
	        "/\n"
	        "--best on every node; values drifted, devices not held. Exit 1 when any node\n"
	        "differs or cannot be asked.",
	.nargs = 1,
	.exec = cmd_verify,
};

int cmd_rollouts_history(struct ctlstore *st, int limit, struct buf *out)
{
	struct ctlstore_rollout_summary *rh = NULL;
	struct err e = { 0 };
	char me[64];
	int n = 0, i;

	if (ctlstore_rollouts_list(st, limit, &rh, &n, &e) < 0) {
		log_error("%s", e.msg);
		return -1;
	}
	host_name(me, sizeof(me));
	for (i = 0; i < n; i++)
		if (sweep_abandoned(me, rh[i].status, rh[i].owner_pid, rh[i].owner_start,
		                    rh[i].owner_host, rh[i].saved_at, rh[i].created_at))
			snprintf(rh[i].status, sizeof(rh[i].status), "abandoned");
	report_rollouts_history(rh, n, out);
	free(rh);
	return 0;
}

int cmd_rollout_show(const struct opts *o)
{
	struct rollout r;
	struct ctlstore *st = NULL;
	struct buf out = BUF_INIT;
	char *path;
	struct err e = { 0 };
	int64_t id;
	int rc;

	if (rollout_id_parse(o->args[0], &id) < 0)
		return EXIT_USAGE;
	path = db_path(o);
	rc = ctlstore_open(path, &st, &e);
	if (rc == 0)
		rc = ctlstore_rollout_load(st, id, &r, &e);
	ctlstore_close(st);
	free(path);
	if (rc < 0) {
		log_error("%s", e.msg);
		return 1;
	}
	report_rollout_show(&r, o->all_nodes, &out);
	rc = output_write(o, out.data, out.len);
	buf_release(&out);
	rollout_release(&r);
	return rc;
}
