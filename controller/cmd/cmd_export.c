/* cmd_export.c -- the commands that write a stored sweep out for other tools and readers:
 * export (a udev rule or tuned profile), report (one HTML page) and site (every sweep). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd/cmd.h"
#include "log.h"
#include "model/sweep.h"
#include "model/words.h"
#include "plan/config.h"
#include "render/export.h"
#include "render/report_html.h"
#include "render/site.h"
#include "store/ctlstore.h"
#include "timeutil.h"
#include "version.h"
#include "banned.h"

/* Sweep id (s) has nothing export may write: no confirmed decision of the fleet or any cohort, and
 * neither --baseline nor --unconfirmed (for an unconfirmed one) asks for it; logged. */
static bool export_refused(const struct opts *o, const struct sweep *s, int64_t id)
{
	struct buf why = BUF_INIT, cfg = BUF_INIT;

	if (s->outcome == OUTCOME_BEST || o->baseline ||
	    (o->unconfirmed && s->decision.state == DECISION_UNCONFIRMED))
		return false;
	words_decision_refusal(s, &s->decision, &why);
	config_format(&s->plan.baseline, &cfg);
	log_error("sweep %lld has no %s to export: %s. Nothing was written; %s"
	          "--baseline exports its baseline (%s) on purpose",
	          (long long)id,
	          s->decision.state == DECISION_UNCONFIRMED ? "confirmed best"
	                                                    : "best configuration",
	          why.data ? why.data : "",
	          s->decision.state == DECISION_UNCONFIRMED
	                  ? "--unconfirmed exports the suggested configuration on purpose, "
	                  : "",
	          cfg.data ? cfg.data : "");
	buf_release(&why);
	buf_release(&cfg);
	return true;
}

static int cmd_export(const struct cmd *c, struct opts *o)
{
	struct sweep s;
	struct buf out = BUF_INIT;
	struct err e = { 0 };
	bool have_s = false;
	int64_t id;
	int rc = EXIT_USAGE;

	(void)c;
	if (!o->format || (strcmp(o->format, "udev") && strcmp(o->format, "tuned"))) {
		log_error("export needs --format udev or --format tuned");
		goto out;
	}
	if (sweep_id_parse(o->args[0], &id))
		goto out;
	rc = 1;
	if (sweep_load(o, id, &s) < 0)
		goto out;
	have_s = true;
	if (o->baseline && o->unconfirmed) {
		log_error("export takes one of --baseline and --unconfirmed");
		rc = EXIT_USAGE;
		goto out;
	}
	if (export_refused(o, &s, id))
		goto out;
	if (export_render(&s, o->format,
	                  o->baseline      ? EXPORT_BASELINE
	                  : o->unconfirmed ? EXPORT_UNCONFIRMED
	                                   : EXPORT_BEST,
	                  &out, &e) < 0) {
		log_error("%s", e.msg);
		goto out;
	}
	rc = output_write(o, out.data, out.len);
out:
	buf_release(&out);
	if (have_s)
		sweep_release(&s);
	return rc;
}

const struct cmd cmd_export_entry = {
	.name = "export",
	.args = "ID --format udev|tuned",
	.opts = CMD_OPTS(FORMAT) | CMD_OPTS(BASELINE) | CMD_OPTS(UNCONFIRMED) | CMD_OPTS(OUT) |
	        CMD_OPTS(DB),
	.help = "Print a udev rule or a tuned profile for the sweep's confirmed best "
	        "configuration. "
	        "A\nsweep with no confirmed best is refused (exit 1, saying what its final "
	        "confirmation\nshowed); --baseline exports its baseline instead, on purpose; "
	        "--unconfirmed exports\nthe configuration its axis rows suggested, on purpose, "
	        "with a comment saying so.",
	.nargs = 1,
	.exec = cmd_export,
};

/* --web-root, else the source tree's web/ (when built there), else the installed one. */
static const char *web_dir(const struct opts *o)
{
	struct stat sb;

	if (o->web_root)
		return o->web_root;
	if (stat(FLEETTUNE_SOURCE_DIR "/web/report.html", &sb) == 0)
		return FLEETTUNE_SOURCE_DIR "/web";
	return FLEETTUNE_WEB_DIR;
}

static int cmd_report(const struct cmd *c, struct opts *o)
{
	struct sweep s;
	struct err e = { 0 };
	int64_t id;
	int rc = 0;

	(void)c;
	if (!o->html) {
		log_error("report needs --html FILE");
		return EXIT_USAGE;
	}
	if (sweep_id_parse(o->args[0], &id))
		return EXIT_USAGE;
	if (sweep_load(o, id, &s) < 0)
		return 1;
	if (report_html_write(&s, web_dir(o), o->html, &e) < 0) {
		log_error("%s", e.msg);
		rc = 1;
	} else {
		log_info("wrote %s", o->html);
	}
	sweep_release(&s);
	return rc;
}

const struct cmd cmd_report_entry = {
	.name = "report",
	.args = "ID --html FILE",
	.opts = CMD_OPTS(HTML) | CMD_OPTS(WEB_ROOT) | CMD_OPTS(DB),
	.help = "Write a self-contained HTML report (data, JS and CSS inline) of a stored sweep.",
	.nargs = 1,
	.exec = cmd_report,
};

/* site_write's status hook: a running sweep whose controller is gone shows as abandoned. */
static void site_status(struct sweep *s, void *ctx)
{
	const char *me = ctx;

	if (sweep_abandoned(me, s->status, s->owner_pid, 0, s->owner_host, s->saved_at,
	                    s->created_at))
		snprintf(s->status, sizeof(s->status), "abandoned");
}

/* site DIR: every stored sweep as a static site (site.h). */
static int cmd_site(const struct cmd *c, struct opts *o)
{
	struct ctlstore *st = NULL;
	struct site_stats stats;
	struct err e = { 0 };
	char *path = db_path(o), me[64];
	struct site_opts so = { .web_dir = web_dir(o),
		                .db_label = path,
		                .now_s = time_now_s(),
		                .status_adjust = site_status,
		                .ctx = me };
	double t0 = time_mono_s();
	int rc;

	(void)c;
	host_name(me, sizeof(me));
	rc = ctlstore_open(path, &st, &e);
	if (rc == 0)
		rc = site_write(st, o->args[0], &so, &stats, &e);
	if (rc < 0)
		log_error("%s", e.msg);
	else
		log_info("wrote %s/index.html and %d sweep page%s (%d plan%s, %d run more than "
		         "once) "
		         "in %.2f s",
		         o->args[0], stats.nsweeps, stats.nsweeps == 1 ? "" : "s", stats.nplans,
		         stats.nplans == 1 ? "" : "s", stats.nplans_repeat, time_mono_s() - t0);
	ctlstore_close(st);
	free(path);
	return rc < 0 ? 1 : 0;
}

const struct cmd cmd_site_entry = {
	.name = "site",
	.args = "DIR",
	.opts = CMD_OPTS(WEB_ROOT) | CMD_OPTS(DB),
	.help = "Write every stored sweep as a static site: DIR/index.html (each sweep's name, "
	        "date, "
	        "nodes,\nstrategy, best and outcome, and for plans run more than once the best "
	        "configuration's effect\nand the baseline's figure over time) and "
	        "DIR/sweep-ID.html, "
	        "each sweep's report. It opens\nfrom file:// with no network.",
	.nargs = 1,
	.exec = cmd_site,
};
