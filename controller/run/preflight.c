/* preflight.c -- health, device, dry-run PATCH of every configuration and dry-run job POST on
 * every node; every problem one line. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/fsparam.h"
#include "run/preflight.h"
#include "run/strategy.h"
#include "xmalloc.h"
#include "banned.h"

/* The configurations of one node refused with one message. */
struct refusal {
	char message[256];
	int first; /* index of the first configuration refused so */
	int count;
};

struct node_refusals {
	int n, cap;
	struct refusal *r;
};

static void refusal_add(struct node_refusals *nr, const char *message, int cfg)
{
	int i;

	for (i = 0; i < nr->n; i++) {
		if (!strcmp(nr->r[i].message, message)) {
			nr->r[i].count++;
			return;
		}
	}
	if (nr->n == nr->cap) {
		nr->cap = nr->cap ? nr->cap * 2 : 4;
		nr->r = xrealloc(nr->r, (size_t)nr->cap * sizeof(*nr->r));
	}
	snprintf(nr->r[nr->n].message, sizeof(nr->r[0].message), "%s", message);
	nr->r[nr->n].first = cfg;
	nr->r[nr->n++].count = 1;
}

static void problem(struct preflight *pf, const char *node, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));

/* Append "node: message\n". */
static void problem(struct preflight *pf, const char *node, const char *fmt, ...)
{
	char m[600];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(m, sizeof(m), fmt, ap);
	va_end(ap);
	buf_printf(&pf->problems, "%s: %s\n", node, m);
	pf->nproblems++;
}

/* Whether node i is one of several devices of one node ("devices"): its agent runs the others'
 * jobs at the same moment. */
static bool node_shares_agent(const struct plan *p, int i)
{
	const char *h = p->nodes[i].host;

	return h &&
	       ((i > 0 && p->nodes[i - 1].host && !strcmp(p->nodes[i - 1].host, h)) ||
	        (i + 1 < p->nnodes && p->nodes[i + 1].host && !strcmp(p->nodes[i + 1].host, h)));
}

/* Why node i may not be asked dry runs (health, features, device) into why; false when it
 * may. */
static bool node_unfit(const struct plan *p, int i, const struct node_info *ni, char *why,
                       size_t len)
{
	const char *dev = p->nodes[i].device;

	if (!ni->ok)
		snprintf(why, len, "not healthy: %s", ni->err.msg);
	else if (!ni->dry_run)
		snprintf(
		        why, len,
		        "agent %s cannot validate without writing (no dry_run feature); upgrade it",
		        ni->version[0] ? ni->version : "(unknown version)");
	else if (!ni->device_lanes && node_shares_agent(p, i))
		snprintf(
		        why, len,
		        "agent %s runs one job at a time (no device_lanes feature), so the devices "
		        "of node %s cannot run at the same moment; upgrade it",
		        ni->version[0] ? ni->version : "(unknown version)", p->nodes[i].host);
	else if (p->nworkloads && !ni->workloads)
		snprintf(why, len,
		         "agent %s cannot run a suite's workloads in one job (no workloads "
		         "feature); "
		         "upgrade it",
		         ni->version[0] ? ni->version : "(unknown version)");
	else if (p->fio_file && !ni->fio_file)
		snprintf(why, len,
		         "agent %s cannot run an fio job file (no fio_file feature; job.fio_file "
		         "'%s'); upgrade it",
		         ni->version[0] ? ni->version : "(unknown version)",
		         p->fio_file_path ? p->fio_file_path : "(text)");
	else if (!ni->devices_read)
		snprintf(why, len, "cannot read the device list to find '%s': %s", dev,
		         ni->err.msg);
	else if (!ni->dev_found)
		snprintf(why, len, "device '%s' not found%s%s", dev, ni->err.msg[0] ? ": " : "",
		         ni->err.msg);
	else if (!ni->dev_writable)
		snprintf(why, len,
		         "device '%s' is not writable (start the agent with --allow-device %s)",
		         dev, dev);
	else
		return false;
	return true;
}

/* A 2xx dry-run answer must say it was one: anything else may have been a real write. */
static const char *dry_run_refusal(const struct fleet_dry_run *d)
{
	if (d->failed)
		return d->err.msg;
	if (!d->confirmed)
		return "the agent did not confirm a dry run (\"dry_run\":true); it may have "
		       "changed the device";
	return NULL;
}

/* The job dry run of one node: what is wrong with it ("job: ...", or the metric it lacks) into
 * msg; false when nothing is. */
static bool job_problem(struct preflight *pf, const struct plan *p, const struct fleet_dry_run *d,
                        char *msg, size_t len)
{
	const char *why = dry_run_refusal(d);
	struct buf list = BUF_INIT;
	int k;

	if (why) {
		snprintf(msg, len, "job: %s", why);
		return true;
	}
	if (d->expected_runtime_s > pf->expected_runtime_s)
		pf->expected_runtime_s = d->expected_runtime_s;
	for (k = 0; k < d->nmetrics; k++)
		if (!strcmp(d->metrics[k], p->metric))
			return false;
	for (k = 0; k < d->nmetrics; k++)
		buf_printf(&list, "%s%s", k ? ", " : "", d->metrics[k]);
	snprintf(msg, len, "metric '%s' is not reported by this job (it reports %s)", p->metric,
	         d->nmetrics ? list.data : "no metric");
	buf_release(&list);
	return true;
}

/* The configurations whose filesystems differ: the first of each distinct one among
 * cfgs[0..ncfg), into idx; returns how many (1 with idx[0] -1 when no job makes a filesystem:
 * then the baseline's job is judged). */
static int fs_distinct(const struct plan *p, const struct config *cfgs, int ncfg, int *idx)
{
	struct fsparam_fs *seen = xcalloc((size_t)ncfg + 1, sizeof(*seen));
	int n = 0, c, k;

	for (c = 0; c < ncfg; c++) {
		fsparam_fs_of(p, &cfgs[c], &seen[n]);
		if (!seen[n].present)
			continue;
		for (k = 0; k < n && !fsparam_fs_equal(&seen[k], &seen[n]); k++)
			;
		if (k == n)
			idx[n++] = c;
	}
	free(seen);
	if (!n)
		idx[n++] = -1;
	return n;
}

/* "[fs.type=xfs fs.mkfs=-i size=512 fs.mount=noatime] " for a job's problem line. */
static void fs_label(const struct plan *p, const struct config *cfg, char *out, size_t len)
{
	struct fsparam_fs fs;

	out[0] = '\0';
	if (!cfg)
		return;
	fsparam_fs_of(p, cfg, &fs);
	if (fs.present)
		snprintf(out, len, "[fs.type=%s fs.mkfs=%s fs.mount=%s] ", fs.type, fs.mkfs,
		         fs.mount);
}

/* "1.0 GiB", "20.0 GiB", "512 MiB". */
static void bytes_text(uint64_t b, char *out, size_t len)
{
	if (b >= (1ull << 30))
		snprintf(out, len, "%.1f GiB", (double)b / (double)(1ull << 30));
	else
		snprintf(out, len, "%.0f MiB", (double)b / (double)(1ull << 20));
}

/* The job's data (plan_job_bytes) does not fit on the node's device: it cannot succeed, and
 * would fail on every node after every point ran. Why into why. */
static bool job_too_big(const struct plan *p, int i, const struct node_info *ni, char *why,
                        size_t len)
{
	char what[160], need[32], have[32];
	uint64_t bytes;

	if (ni->dev_size_bytes <= 0 || plan_job_bytes(p, &bytes, what, sizeof(what)) != 1 ||
	    bytes <= (uint64_t)ni->dev_size_bytes)
		return false;
	bytes_text(bytes, need, sizeof(need));
	bytes_text((uint64_t)ni->dev_size_bytes, have, sizeof(have));
	snprintf(why, len,
	         "the job needs %s (%s) but device '%s' holds %s%s: it cannot succeed; make the "
	         "job smaller or use a larger device",
	         need, what, p->nodes[i].device, have,
	         p->has_fs ? " (less once its filesystem is made)" : "");
	return true;
}

/* The most node i's clock may be off the controller's: its offset plus the uncertainty. */
static double clock_bound(const struct node_info *ni)
{
	return fabs(ni->clock_offset_s) + ni->clock_uncertain_s;
}

/* Whether node i's clock is to be checked: its jobs start by the clock. */
static bool clock_checked(const struct node_info *ni)
{
	return ni->ok && ni->start_at;
}

/* Bound the clock of every node whose jobs start by the clock; the ones the fan-out left
 * uncertain are asked again, alone. The largest offset and uncertainty into out. */
static void clocks_check(struct fleet *f, struct preflight *out)
{
	int n = out->nnodes, i, t, again;
	bool *ask = xcalloc((size_t)n + 1, sizeof(bool));

	for (t = 0; t < PREFLIGHT_CLOCK_TRIES; t++) {
		for (i = again = 0; i < n; i++) {
			const struct node_info *ni = &out->info[i];

			ask[i] = clock_checked(ni) &&
			         (!ni->clock_known || clock_bound(ni) > PREFLIGHT_CLOCK_MAX_S);
			again += ask[i];
		}
		if (!again)
			break;
		fleet_clock_probe(f, ask, out->info);
	}
	for (i = 0; i < n; i++) {
		const struct node_info *ni = &out->info[i];

		if (!clock_checked(ni) || !ni->clock_known)
			continue;
		out->nclocks++;
		out->clock_offset_max_s = fmax(out->clock_offset_max_s, fabs(ni->clock_offset_s));
		out->clock_uncertain_max_s =
		        fmax(out->clock_uncertain_max_s, ni->clock_uncertain_s);
	}
	free(ask);
}

/* What is wrong with node i's clock for jobs that start by it, into why; false when nothing. */
static bool clock_problem(const struct node_info *ni, char *why, size_t len)
{
	if (!clock_checked(ni))
		return false;
	if (!ni->clock_known)
		snprintf(why, len,
		         "clock: health gave no time_s (or no timed answer) in %d tries, so the "
		         "offset of the agent's clock cannot be bounded; its jobs start by the "
		         "clock",
		         PREFLIGHT_CLOCK_TRIES);
	else if (clock_bound(ni) > PREFLIGHT_CLOCK_MAX_S)
		snprintf(why, len,
		         "clock: the agent's clock is %.3f s %s the controller's (+- %.3f s, from "
		         "health's time_s and the round trip); jobs start by the clock, so an "
		         "offset "
		         "beyond %.0f ms is refused: synchronise the node's clock (NTP)",
		         fabs(ni->clock_offset_s), ni->clock_offset_s > 0 ? "ahead of" : "behind",
		         ni->clock_uncertain_s, PREFLIGHT_CLOCK_MAX_S * 1000);
	else
		return false;
	return true;
}

int preflight_run(struct fleet *f, const struct config *cfgs, int ncfg, bool with_params,
                  struct preflight *out)
{
	const struct plan *p = f->plan;
	int n = p->nnodes, i, c, k, asked = 0, nfs, *fs_idx;
	struct fleet_dry_run **jd;
	bool *ask = xcalloc((size_t)n + 1, sizeof(bool));
	char why[600];
	struct fleet_dry_run *d = xcalloc((size_t)n + 1, sizeof(*d));
	struct node_refusals *refused = xcalloc((size_t)n + 1, sizeof(*refused));

	memset(out, 0, sizeof(*out));
	buf_init(&out->problems);
	out->nnodes = n;
	out->nconfigs = ncfg;
	out->info = xcalloc((size_t)n + 1, sizeof(*out->info));
	fleet_probe(f, with_params, out->info);
	clocks_check(f, out);
	for (i = 0; i < n; i++)
		asked += ask[i] = !node_unfit(p, i, &out->info[i], why, sizeof(why));
	/* One configuration per round on every node at once: no agent gets a burst. */
	for (c = 0; c < ncfg && asked; c++) {
		fleet_params_dry_run(f, ask, &cfgs[c], d);
		for (i = 0; i < n; i++) {
			const char *refusal = ask[i] ? dry_run_refusal(&d[i]) : NULL;

			if (refusal)
				refusal_add(&refused[i], refusal, c);
		}
		fleet_dry_run_release(d, n);
	}
	/* The job of every distinct filesystem (each makes its own mkfs dry run on the agent). */
	nfs = fs_distinct(p, cfgs, ncfg, fs_idx = xcalloc((size_t)ncfg + 1, sizeof(int)));
	jd = xcalloc((size_t)nfs, sizeof(*jd));
	for (k = 0; k < nfs; k++) {
		jd[k] = xcalloc((size_t)n + 1, sizeof(**jd));
		fleet_job_dry_run(f, ask, fs_idx[k] >= 0 ? &cfgs[fs_idx[k]] : NULL, jd[k]);
	}
	/* Every problem of a node together, nodes in plan order. */
	for (i = 0; i < n; i++) {
		if (node_unfit(p, i, &out->info[i], why, sizeof(why)))
			problem(out, p->nodes[i].name, "%s", why);
		else if (job_too_big(p, i, &out->info[i], why, sizeof(why)))
			problem(out, p->nodes[i].name, "%s", why);
		else if (clock_problem(&out->info[i], why, sizeof(why)))
			problem(out, p->nodes[i].name, "%s", why);
		for (k = 0; k < refused[i].n; k++) {
			const struct refusal *r = &refused[i].r[k];
			struct buf cfg = BUF_INIT;

			config_format(&cfgs[r->first], &cfg);
			if (r->count > 1)
				problem(out, p->nodes[i].name,
				        "[%s] %s (and %d more configuration%s)",
				        cfg.data ? cfg.data : "", r->message, r->count - 1,
				        r->count > 2 ? "s" : "");
			else
				problem(out, p->nodes[i].name, "[%s] %s", cfg.data ? cfg.data : "",
				        r->message);
			buf_release(&cfg);
		}
		/* The jobs of every filesystem: one line per message, with a count. */
		free(refused[i].r);
		memset(&refused[i], 0, sizeof(refused[i]));
		for (k = 0; ask[i] && k < nfs; k++) {
			char msg[600];

			if (job_problem(out, p, &jd[k][i], msg, sizeof(msg)))
				refusal_add(&refused[i], msg, k);
		}
		for (k = 0; k < refused[i].n; k++) {
			const struct refusal *r = &refused[i].r[k];
			char fs[3 * PARAM_VALUE_MAX + 64];

			fs_label(p,
			         nfs > 1 && fs_idx[r->first] >= 0 ? &cfgs[fs_idx[r->first]] : NULL,
			         fs, sizeof(fs));
			if (r->count > 1)
				problem(out, p->nodes[i].name, "%s%s (and %d more filesystem%s)",
				        fs, r->message, r->count - 1, r->count > 2 ? "s" : "");
			else
				problem(out, p->nodes[i].name, "%s%s", fs, r->message);
		}
		free(refused[i].r);
	}
	for (k = 0; k < nfs; k++) {
		fleet_dry_run_release(jd[k], n);
		free(jd[k]);
	}
	free(jd);
	free(fs_idx);
	fleet_dry_run_release(d, n);
	free(refused);
	free(d);
	free(ask);
	return out->nproblems ? -EINVAL : 0;
}

void preflight_release(struct preflight *pf)
{
	if (!pf)
		return;
	node_info_release(pf->info, pf->nnodes);
	free(pf->info);
	buf_release(&pf->problems);
	memset(pf, 0, sizeof(*pf));
}

int preflight_plan(struct fleet *f, const struct plan *p, bool with_params, struct preflight *out)
{
	struct config *cfgs;
	bool complete;
	int n = strategy_configs(p, STRATEGY_CONFIGS_CAP, &cfgs, &complete), rc;

	rc = preflight_run(f, cfgs, n, with_params, out);
	free(cfgs);
	return rc;
}

void preflight_identity_copy(const struct preflight *pf, struct sweep *s)
{
	int k, f;

	for (k = 0; k < pf->nnodes && k < s->plan.nnodes; k++)
		for (f = 0; f < IDF_N; f++)
			sweep_identity_set(s, k, f, pf->info[k].identity[f]);
}
