/* cmd_sweep.c -- the commands that ask the agents before and while measuring: nodes (each
 * node's state and the plan's pre-flight) and sweep (the plan run on every node). */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/sweeprun.h"
#include "fleet/fleet.h"
#include "judge/cohort.h"
#include "log.h"
#include "model/sweep.h"
#include "model/words.h"
#include "plan/plan.h"
#include "render/report.h"
#include "render/text.h"
#include "run/preflight.h"
#include "run/strategy.h"
#include "run/twins.h"
#include "banned.h"

static int cmd_nodes(const struct cmd *c, struct opts *o)
{
	struct plan p;
	struct sweep s;
	struct fleet f;
	struct preflight pf;
	struct buf out = BUF_INIT;
	int rc, n;

	(void)c;
	if (plan_open(o, o->args[0], &p, true) < 0)
		return 1;
	fleet_init(&f, &p, 10.0, 2);
	/* A node that is down or lacks its device is a pre-flight problem too. */
	rc = preflight_plan(&f, &p, true, &pf) < 0 ? 1 : 0;
	fleet_release(&f);
	/* The cohorts the nodes fall into, as a sweep of this plan groups them; the nodes of each
	 * must be twins in what the plan does not set, a pre-flight problem otherwise. */
	sweep_init(&s, &p);
	preflight_identity_copy(&pf, &s);
	cohort_assign(&s);
	n = twins_check(&s.plan, pf.info, s.cohort_of, &pf.problems);
	pf.nproblems += n;
	rc = rc || n > 0;
	report_nodes(&s.plan, &pf, &out);
	words_cohorts(&s, &out);
	text_fputs(out.data, stdout);
	buf_release(&out);
	preflight_release(&pf);
	sweep_release(&s);
	return rc;
}

const struct cmd cmd_nodes_entry = {
	.name = "nodes",
	.args = "PLAN.json",
	.opts = CMD_OPTS(NODES_FROM) | CMD_OPTS(ALLOW_DIFFERENCES),
	.help = "Show each node's health, version, device and current parameters, and run the\n"
	        "plan's pre-flight: every agent judges every configuration and the job with dry\n"
	        "runs, and the nodes of each cohort must be twins in every writable parameter the\n"
	        "plan does not set (a difference is named with its fix; the plan's\n"
	        "\"allow_differences\" or --allow-differences lets it be); nothing is changed. "
	        "--nodes-from FILE (here and for sweep, apply, rollout\n"
	        "and verify) takes the nodes from a node list instead of the plan's: a hosts file\n"
	        "('name url device' or 'host[:port] [device]' per line), an Ansible inventory "
	        "(INI\n"
	        "or YAML) or the JSON of kubectl get pods -o json; the plan's \"nodes_from\" "
	        "options\n"
	        "still apply.",
	.nargs = 1,
	.exec = cmd_nodes,
};

static void dry_run_print(struct plan *p)
{
	struct sweep s;
	struct strategy_batch b = { 0 };
	struct buf out = BUF_INIT;
	struct config *cfgs;
	bool complete;
	int n = strategy_estimate(p),
	    ncfg = strategy_configs(p, STRATEGY_CONFIGS_CAP, &cfgs, &complete);

	/* Sequential points after the first axis depend on results: show the first batch. */
	sweep_init(&s, p);
	strategy_next(&s, &b);
	report_dry_run(&s, n, ncfg, complete, &out);
	text_fputs(out.data, stdout);
	buf_release(&out);
	strategy_batch_release(&b);
	free(cfgs);
	sweep_release(&s);
}

/* sweep's exit status: 0 completed, 1 failed (or no best), 2 a node failed, 130 a signal. */
static int sweep_exit_code(enum sweeprun_result r)
{
	static const int codes[] = {
		[SWEEPRUN_COMPLETED] = 0,
		[SWEEPRUN_FAILED] = 1,
		[SWEEPRUN_NODE_FAILED] = 2,
		[SWEEPRUN_INTERRUPTED] = 130,
	};

	return codes[r];
}

static int cmd_sweep(const struct cmd *c, struct opts *o)
{
	struct sweeprun_opts ro = { 0 };
	struct sweep s;
	struct plan p;
	struct err e = { 0 };
	struct buf out = BUF_INIT;
	enum report_format f;
	char *path, me[64];
	int code;

	(void)c;
	if (cmd_format_get(o, &f))
		return EXIT_USAGE;
	if (plan_open(o, o->args[0], &p, !o->dry_run) < 0)
		return 1;
	if (o->dry_run) {
		dry_run_print(&p);
		return 0;
	}
	path = db_path(o);
	sweep_init(&s, &p);
	signals_install();
	host_name(me, sizeof(me));
	ro.db_path = path;
	ro.continue_on_node_failure = o->continue_on_node_failure;
	ro.session_ttl_s = o->session_ttl_s > 0 ? (double)o->session_ttl_s : 60;
	ro.poll_interval_s = (double)(o->poll_ms > 0 ? o->poll_ms : 50) / 1000.0;
	ro.stop = &stop_signal;
	ro.tty = isatty(STDERR_FILENO);
	ro.owner_pid = (int)getpid();
	ro.owner_host = me;
	code = sweep_exit_code(sweeprun_execute(&s, &ro, &e));
	if (s.id > 0) {
		report_render_nodes(&s, f, o->all_nodes, &out);
		if (output_write(o, out.data, out.len) && code == 0)
			code = 1;
	}
	if (code != 0 && e.msg[0])
		log_error("%s", e.msg);
	buf_release(&out);
	sweep_release(&s);
	free(path);
	return code;
}

const struct cmd cmd_sweep_entry = {
	.name = "sweep",
	.args = "PLAN.json [--format table|markdown|csv|json]",
	.opts = CMD_OPTS(FORMAT) | CMD_OPTS(OUT) | CMD_OPTS(DRY_RUN) | CMD_OPTS(CONTINUE) |
	        CMD_OPTS(DB) | CMD_OPTS(SESSION_TTL) | CMD_OPTS(POLL_MS) | CMD_OPTS(NODES) |
	        CMD_OPTS(NODES_FROM) | CMD_OPTS(ALLOW_DIFFERENCES) | CMD_OPTS(VERBOSE),
	.help = "Run the plan on every node at once: pre-flight (every agent judges every\n"
	        "configuration and the job with dry runs before anything changes; the nodes must\n"
	        "be twins in what the plan does not set, as for nodes), a tuning session per "
	        "node,\n"
	        "each run one job per node carrying the point's values, started by the clock on\n"
	        "every node at once, then every node restored. Exit 0 when complete, 2 when a node "
	        "failed (partial results "
	        "kept),\n"
	        "130 on SIGINT/SIGTERM (jobs cancelled, nodes restored), 1 on other errors: a "
	        "failed\n"
	        "pre-flight, or no best (the baseline failed on every node, or no configuration\n"
	        "produced a figure). --verbose logs each point's phases (\"phases\" lines: PATCH "
	        "and\n"
	        "job POSTs, the agents' job starts and ends, the point saved) and the connections\n"
	        "the controller opened. Above 8 nodes the table shows the nodes' distribution "
	        "(with a\n"
	        "figure, means, own \u0394 min / median / max, own gains / losses) instead of a "
	        "column\n"
	        "per node; --nodes all keeps a column per node (CSV and JSON always have every "
	        "node).",
	.nargs = 1,
	.exec = cmd_sweep,
};
