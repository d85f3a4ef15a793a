/* cmd.c -- the helpers fleettune-ctl's commands share: the database path, --out, the plan,
 * a stored sweep, the signals. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "model/words.h"
#include "judge/analysis.h"
#include "judge/race.h"
#include "log.h"
#include "num.h"
#include "plan/plan_nodes.h"
#include "plan/plan_parse.h"
#include "store/ctlstore.h"
#include "timeutil.h"
#include "utf8.h"
#include "xmalloc.h"
#include "banned.h"

void usage_print(FILE *f, const struct cmd *c)
{
	fprintf(f, "usage: fleettune-ctl %s\n\n%s\n", c->usage, c->help);
}

char *db_path(const struct opts *o)
{
	return o->db ? xstrdup(o->db) : ctlstore_default_path();
}

/* Write text to --out FILE, or stdout: by the terminal's rule (render/text.h), whatever
 * the format, so no agent's escape sequence or bidi override is printed as it was sent. */
int output_write(const struct opts *o, const char *text, size_t len)
{
	FILE *f = stdout;
	char *clean = NULL;
	int rc = 0;

	if (text && len == strlen(text) && !utf8_text_is_clean(text)) {
		clean = utf8_clean_text_dup(text);
		text = clean;
		len = strlen(clean);
	}

	if (o->out) {
		f = fopen(o->out, "w");
		if (!f) {
			log_error("cannot write '%s': %s", o->out, strerror(errno));
			free(clean);
			return 1;
		}
	}
	if (fwrite(text, 1, len, f) != len)
		rc = 1;
	if (o->out && fclose(f))
		rc = 1;
	else if (!o->out)
		fflush(stdout);
	free(clean);
	return rc;
}

/* A sweep from another host that saved no point for this long is taken as abandoned. */
#define CTL_ABANDONED_S 3600.0

/* This host's name, as sweeps record their controller's; "" when it cannot be read. */
void host_name(char *out, size_t len)
{
	memset(out, 0, len);
	if (gethostname(out, len - 1) < 0)
		out[0] = '\0';
}

int64_t pid_start_ticks(int pid)
{
	char path[64], line[1024], *p;
	long long ticks = 0;
	int field;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	buf_read_line(path, line, sizeof(line));
	/* "PID (COMM) STATE ...": COMM may hold blanks and ')', so count after the last ')'. */
	p = strrchr(line, ')');
	if (!p)
		return 0;
	for (field = 2; field < 22 && p; field++)
		p = strchr(p + 1, ' ');
	if (!p || sscanf(p + 1, "%lld", &ticks) != 1)
		return 0;
	return ticks;
}

bool owner_alive(int pid, int64_t start)
{
	int64_t now;

	if (kill(pid, 0) < 0 && errno == ESRCH)
		return false;
	if (start <= 0)
		return true; /* not recorded (an older row): the pid is all there is */
	now = pid_start_ticks(pid);
	return now == 0 || now == start;
}

/*
 * A `running` sweep whose controller is gone is abandoned: run on this host (me), its pid is
 * no longer alive, or is another process's (start: the owner's start time, 0 when not
 * recorded); run on another host (or by a controller too old to record it), it saved no
 * point for CTL_ABANDONED_S.
 */
bool sweep_abandoned(const char *me, const char *status, int pid, int64_t start, const char *host,
                     double saved_at, double created_at)
{
	double last = saved_at > 0 ? saved_at : created_at;

	if (strcmp(status, "running"))
		return false;
	if (pid > 0 && me[0] && !strcmp(host, me))
		return !owner_alive(pid, start);
	return time_now_s() - last > CTL_ABANDONED_S;
}

/* Load sweep id from the database and analyse it. */
int sweep_load(const struct opts *o, int64_t id, struct sweep *s)
{
	struct ctlstore *st = NULL;
	char *path = db_path(o);
	struct err e = { 0 };
	char me[64];
	int rc;

	rc = ctlstore_open(path, &st, &e);
	if (rc == 0)
		rc = ctlstore_sweep_load(st, id, s, &e);
	host_name(me, sizeof(me));
	if (rc < 0)
		log_error("%s", e.msg);
	else
		analysis_sweep_loaded(s);
	if (rc == 0 && sweep_abandoned(me, s->status, s->owner_pid, 0, s->owner_host, s->saved_at,
	                               s->created_at))
		snprintf(s->status, sizeof(s->status), "abandoned");
	ctlstore_close(st);
	free(path);
	return rc;
}

const struct config *decision_action_cfg(const struct opts *o, const struct sweep *s,
                                         const struct decision *d, const char *verb)
{
	struct buf why = BUF_INIT;
	const struct config *cfg = NULL;

	if (d->state == DECISION_CONFIRMED)
		return &d->cfg;
	words_decision_refusal(s, d, &why);
	if (d->state == DECISION_UNCONFIRMED && o->unconfirmed) {
		log_warn("sweep %lld: taking its UNCONFIRMED configuration on purpose "
		         "(--unconfirmed): %s",
		         (long long)s->id, why.data ? why.data : "");
		cfg = &d->cfg;
	} else if (d->state == DECISION_UNCONFIRMED) {
		log_error("sweep %lld has no confirmed best to %s: %s. Nothing was changed; "
		          "--unconfirmed takes the suggested configuration on purpose",
		          (long long)s->id, verb, why.data ? why.data : "");
	} else {
		log_error("sweep %lld has no best configuration to %s: %s. Nothing was changed",
		          (long long)s->id, verb, why.data ? why.data : "");
	}
	buf_release(&why);
	return cfg;
}

int plan_open(const struct opts *o, const char *path, struct plan *p, bool tokens)
{
	struct err e = { 0 };

	if (plan_load_nodes_from(path, o->nodes_from, p, &e) < 0 || race_budget_check(p, &e) < 0 ||
	    (o->allow_differences && plan_allow_differences_add(p, o->allow_differences, &e) < 0) ||
	    (tokens && plan_tokens_load(p, &e) < 0)) {
		log_error("%s: %s", path, e.msg);
		plan_release(p);
		return -1;
	}
	return 0;
}

volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

void signals_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

int num_opt(const char *name, const char *v, int64_t *out)
{
	if (num_parse_i64(v, out) < 0 || *out <= 0) {
		log_error("%s: '%s' is not a positive integer", name, v);
		return -1;
	}
	return 0;
}
