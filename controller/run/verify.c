/* verify.c -- every node's profile against what it should hold: values, device states, drift. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleet/fleet.h"
#include "fleet/fleet_profile.h"
#include "run/verify.h"
#include "utf8.h"
#include "xmalloc.h"
#include "banned.h"

void verify_expect_from(const struct plan *p, const struct rollout *r, const struct config *cfg,
                        const char *source, struct verify_expect *out)
{
	int i, k;

	for (i = 0; i < p->nnodes; i++) {
		struct verify_expect *x = &out[i];
		const struct rollout_node *n = NULL;

		memset(x, 0, sizeof(*x));
		snprintf(x->source, sizeof(x->source), "%s", source);
		for (k = 0; r && k < r->nnodes && !n; k++)
			if (!strcmp(r->nodes[k].name, p->nodes[i].name))
				n = &r->nodes[k];
		if (!n || n->state == RNODE_NEW || n->state == RNODE_APPLYING) {
			/* A node the rollout left unsure is asked for the new values: if it holds
			 * the old ones, that is a difference worth seeing. */
			x->params = r ? r->params : *cfg;
			continue;
		}
		x->none = !n->had_profile;
		x->params = n->old_params;
		if (n->state == RNODE_REVERTED)
			x->device = n->reset_values;
		snprintf(x->source, sizeof(x->source), "%s (left as it was)", source);
	}
}

/* "name=value ..." of cfg. */
static void cfg_text(const struct config *cfg, char *out, size_t len)
{
	struct buf b = BUF_INIT;

	config_format(cfg, &b);
	snprintf(out, len, "%s", b.data ? b.data : "");
	buf_release(&b);
}

/* Append to out what of one device's state is not held. */
static void device_judge(const struct fleet_profile_device *d, char *out, size_t len, bool *differs)
{
	size_t off = strlen(out);
	int j;

	if (!keep_state_holds(d->kstate)) {
		*differs = true;
		off += (size_t)snprintf(out + off, len - off, "%s%s is %s%s%s%s%s", off ? "; " : "",
		                        d->device, d->state, d->owner[0] ? " " : "", d->owner,
		                        d->error[0] ? ": " : "", d->error);
	}
	for (j = 0; j < d->nvalues && off < len; j++) {
		const struct fleet_profile_value *v = &d->values[j];

		if (!v->drifted && !strcmp(v->live, v->wanted))
			continue;
		*differs = true;
		off += (size_t)snprintf(out + off, len - off, "%s%s on %s: live %s, profile %s%s%s",
		                        off ? "; " : "", v->name, d->device,
		                        v->live[0] ? v->live : "unreadable", v->wanted,
		                        v->since[0] ? ", drifted since " : "", v->since);
	}
}

/* Judge node i's answer a against what it should hold. */
static void node_judge(const struct plan *p, int i, const struct verify_expect *x,
                       const struct fleet_profile *a, const char *name, struct verify_node *out)
{
	char want[256];
	bool differs = false;
	int k;

	memset(out, 0, sizeof(*out));
	cfg_text(&x->params, want, sizeof(want));
	if (a->res.failed) {
		out->state = VERIFY_UNREACHABLE;
		snprintf(out->detail, sizeof(out->detail), "cannot ask: %s", a->res.err.msg);
		return;
	}
	if (!a->found) {
		out->state = x->none ? VERIFY_OK : VERIFY_DIFFERS;
		if (x->none)
			snprintf(out->detail, sizeof(out->detail),
			         "no profile '%s', as before (%s)", name, x->source);
		else
			snprintf(out->detail, sizeof(out->detail),
			         "no profile '%s'; should hold %s (%s)", name, want, x->source);
		return;
	}
	cfg_text(&a->params, out->held, sizeof(out->held));
	if (x->none) {
		out->state = VERIFY_DIFFERS;
		snprintf(out->detail, sizeof(out->detail),
		         "holds profile '%s' (%s) but should hold none (%s)", name, out->held,
		         x->source);
		return;
	}
	if (!config_equal(&a->params, &x->params)) {
		out->state = VERIFY_DIFFERS;
		snprintf(out->detail, sizeof(out->detail), "holds %s; should hold %s (%s)",
		         out->held, want, x->source);
		return;
	}
	out->detail[0] = '\0';
	for (k = 0; k < a->ndevices; k++)
		if (!strcmp(a->devices[k].device, p->nodes[i].device))
			device_judge(&a->devices[k], out->detail, sizeof(out->detail), &differs);
	if (!differs) {
		bool on_dev = false;

		for (k = 0; k < a->ndevices; k++)
			on_dev |= !strcmp(a->devices[k].device, p->nodes[i].device);
		if (!on_dev) {
			differs = true;
			snprintf(out->detail, sizeof(out->detail),
			         "profile '%s' does not apply to %s", name, p->nodes[i].device);
		}
	}
	out->state = differs ? VERIFY_DIFFERS : VERIFY_OK;
	if (!differs)
		snprintf(out->detail, sizeof(out->detail), "%s holds %s", p->nodes[i].device,
		         out->held);
}

/* Node i's device values against what it should have (x->device): a difference appended to
 * out's detail. */
static void device_values_judge(const struct plan *p, int i, const struct verify_expect *x,
                                const struct node_info *ni, struct verify_node *out)
{
	size_t len = strlen(out->detail);
	int k, j;

	if (!x->device.n || out->state == VERIFY_UNREACHABLE)
		return;
	if (!ni->ok || !ni->nparams) {
		out->state = VERIFY_UNREACHABLE;
		snprintf(out->detail, sizeof(out->detail), "cannot read %s's parameters: %s",
		         p->nodes[i].device, ni->err.msg[0] ? ni->err.msg : "no answer");
		return;
	}
	for (k = 0; k < x->device.n; k++) {
		const struct setting *want = &x->device.s[k];
		const char *live = NULL;

		for (j = 0; j < ni->nparams && !live; j++)
			if (!strcmp(ni->params[j].name, want->name))
				live = ni->params[j].value;
		if (live && !strcmp(live, want->value))
			continue;
		if (out->state == VERIFY_OK)
			len = 0; /* "holds ..." gives way to what differs */
		out->state = VERIFY_DIFFERS;
		len += (size_t)snprintf(
		        out->detail + len,
		        len < sizeof(out->detail) ? sizeof(out->detail) - len : 0,
		        "%s%s: live %s, %s before the rollout (the scheduler switch "
		        "reset it; the revert writes it back)",
		        len ? "; " : "", want->name, live ? live : "(none)", want->value);
		if (len >= sizeof(out->detail))
			break;
	}
}

/* s (len bytes) with control characters and bytes that are not UTF-8 escaped: what an agent
 * answered (states, owners, errors, values) is shown on the operator's terminal. */
static void text_clean(char *s, size_t len)
{
	char *tmp = xmalloc(len);

	utf8_clean(tmp, len, s);
	snprintf(s, len, "%s", tmp);
	free(tmp);
}

int verify_run(const struct plan *p, const char *name, const struct verify_expect *ex,
               const struct client_transport *t, struct verify_node *out)
{
	int n = p->nnodes, i, bad = 0;
	bool *ask = xcalloc((size_t)n + 1, sizeof(bool));
	struct fleet_profile *a = xcalloc((size_t)n + 1, sizeof(*a));
	struct fleet f;
	struct node_info *info = xcalloc((size_t)n + 1, sizeof(*info));
	bool probe = false;

	fleet_init(&f, p, 10.0, 2);
	fleet_transport_set(&f, t);
	for (i = 0; i < n; i++) {
		ask[i] = true;
		f.active[i] = ex[i].device.n > 0;
		probe |= f.active[i];
	}
	if (probe)
		fleet_probe(&f, true, info);
	fleet_profile_get(&f, ask, name, a);
	for (i = 0; i < n; i++) {
		node_judge(p, i, &ex[i], &a[i], name, &out[i]);
		device_values_judge(p, i, &ex[i], &info[i], &out[i]);
		text_clean(out[i].detail, sizeof(out[i].detail));
		text_clean(out[i].held, sizeof(out[i].held));
		bad += out[i].state != VERIFY_OK;
	}
	fleet_profiles_release(a, n);
	node_info_release(info, n);
	free(info);
	fleet_release(&f);
	free(a);
	free(ask);
	return bad;
}
