/* rollout.c -- a rollout's data: waves from --canary and --waves, states and their codes. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/rollout.h"
#include "num.h"
#include "xmalloc.h"
#include "banned.h"

static const char *const check_names[] = { "none", "readback", "measure", NULL };
static const char *const status_names[] = { "running",  "completed", "stopped", "interrupted",
	                                    "reverted", "failed",    NULL };
static const char *const node_state_names[] = { "old",       "applying", "new", "failed",
	                                        "reverting", "reverted", NULL };

static int name_index(const char *const *names, const char *s)
{
	int i;

	for (i = 0; s && names[i]; i++)
		if (!strcmp(names[i], s))
			return i;
	return -1;
}

const char *rollout_check_name(enum rollout_check c)
{
	return check_names[c];
}

int rollout_check_parse(const char *s)
{
	return name_index(check_names, s);
}

const char *rollout_status_name(enum rollout_status s)
{
	return status_names[s];
}

int rollout_status_parse(const char *s)
{
	return name_index(status_names, s);
}

const char *rollout_node_state_name(enum rollout_node_state s)
{
	return node_state_names[s];
}

int rollout_node_state_parse(const char *s)
{
	return name_index(node_state_names, s);
}

void rollout_init(struct rollout *r)
{
	memset(r, 0, sizeof(*r));
	snprintf(r->profile, sizeof(r->profile), "%s", ROLLOUT_PROFILE_DEFAULT);
	r->enforce = true;
	r->canary = 1;
	snprintf(r->waves_spec, sizeof(r->waves_spec), "10%%,50%%,100%%");
	r->check = CHECK_READBACK;
}

void rollout_release(struct rollout *r)
{
	int i;

	if (!r)
		return;
	for (i = 0; i < r->nnodes; i++)
		free(r->nodes[i].old_profile);
	free(r->nodes);
	free(r->plan_json);
	free(r->plan_dir);
	memset(r, 0, sizeof(*r));
}

/* One --waves entry: "N%" of nnodes rounded up, or a count N. */
static int wave_entry(const char *tok, int nnodes, int *out)
{
	size_t len = strlen(tok);
	int64_t v;

	if (len > 1 && tok[len - 1] == '%') {
		char num[32];
		double pct;
		char *end;

		if (len - 1 >= sizeof(num))
			return -EINVAL;
		memcpy(num, tok, len - 1);
		num[len - 1] = '\0';
		/* Digits and a point only: strtod would take blanks, a line break, hex, "inf". */
		if (strspn(num, "0123456789.") != len - 1 || num[0] == '.')
			return -EINVAL;
		pct = strtod(num, &end);
		if (!num[0] || *end || !(pct > 0) || pct > 100)
			return -EINVAL;
		*out = (int)ceil(pct / 100.0 * nnodes - 1e-9);
		return 0;
	}
	if (num_parse_i64(tok, &v) || v < 1 || v > 1000000)
		return -EINVAL;
	*out = (int)v;
	return 0;
}

int rollout_waves_plan(int nnodes, int canary, const char *spec, int *cum, int *nwaves,
                       struct err *e)
{
	char buf[128], *tok, *save;
	int n = 0, at;

	*nwaves = 0;
	if (nnodes < 1)
		return err_set(e, -EINVAL, ERR_BAD_WAVES, "the plan has no nodes");
	if (canary < 1 || canary > nnodes)
		return err_set(e, -EINVAL, ERR_BAD_WAVES,
		               "--canary: %d is not 1..%d (the plan's nodes)", canary, nnodes);
	if (strlen(spec) >= sizeof(buf))
		return err_set(e, -EINVAL, ERR_BAD_WAVES, "--waves: too long");
	snprintf(buf, sizeof(buf), "%s", spec);
	cum[n++] = canary;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (wave_entry(tok, nnodes, &at))
			return err_set(
			        e, -EINVAL, ERR_BAD_WAVES,
			        "--waves: '%s' is not a percentage (1%%..100%%) or a node count",
			        tok);
		if (at > nnodes)
			return err_set(e, -EINVAL, ERR_BAD_WAVES,
			               "--waves: '%s' is more than the plan's %d nodes", tok,
			               nnodes);
		if (at <= cum[n - 1])
			continue; /* already reached (by the canary or a wave before): no empty wave
			           */
		if (n == ROLLOUT_WAVES_MAX)
			return err_set(e, -EINVAL, ERR_BAD_WAVES, "--waves: at most %d waves",
			               ROLLOUT_WAVES_MAX - 1);
		cum[n++] = at;
	}
	if (cum[n - 1] != nnodes)
		return err_set(
		        e, -EINVAL, ERR_BAD_WAVES,
		        "--waves: the last wave must reach every node (100%%); '%s' stops at "
		        "%d of %d",
		        spec, cum[n - 1], nnodes);
	*nwaves = n;
	return 0;
}

void rollout_waves_assign(struct rollout *r, const int *cum, int nwaves)
{
	int w, i, from = 0;

	r->nwaves = nwaves;
	for (w = 0; w < nwaves; w++) {
		memset(&r->waves[w], 0, sizeof(r->waves[w]));
		r->waves[w].wave = w;
		r->waves[w].nodes = cum[w] - from;
		for (i = from; i < cum[w] && i < r->nnodes; i++)
			r->nodes[i].wave = w;
		from = cum[w];
	}
}

int rollout_count(const struct rollout *r, int w, enum rollout_node_state s)
{
	int i, n = 0;

	for (i = 0; i < r->nnodes; i++)
		if ((w < 0 || r->nodes[i].wave == w) && r->nodes[i].state == s)
			n++;
	return n;
}
