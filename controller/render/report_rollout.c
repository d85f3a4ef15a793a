/* report_rollout.c -- rollouts and verify for people: progress lines, show, history, verify. */
#include <stdio.h>
#include <string.h>

#include "render/report_rollout.h"
#include "timeutil.h"
#include "banned.h"

static void params_text(const struct rollout *r, struct buf *out)
{
	config_format(&r->params, out);
}

/* "3 new, 1 failed" of wave w (w < 0: all). */
static void counts_text(const struct rollout *r, int w, struct buf *out)
{
	static const enum rollout_node_state order[] = { RNODE_NEW,       RNODE_FAILED,
		                                         RNODE_REVERTED,  RNODE_APPLYING,
		                                         RNODE_REVERTING, RNODE_OLD };
	bool first = true;
	size_t i;

	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		int n = rollout_count(r, w, order[i]);

		if (!n && order[i] != RNODE_NEW)
			continue;
		buf_printf(out, "%s%d %s", first ? "" : ", ", n, rollout_node_state_name(order[i]));
		first = false;
	}
}

static double wave_wall_s(const struct rollout_wave *w)
{
	return w->finished_at > 0 && w->started_at > 0 ? w->finished_at - w->started_at : 0;
}

void report_rollout_event(const struct rollout *r, enum rollrun_event ev, int wave, int round,
                          int rounds, struct buf *out)
{
	const struct rollout_wave *w = wave >= 0 && wave < r->nwaves ? &r->waves[wave] : NULL;
	int i, done = 0;

	switch (ev) {
	case ROLLRUN_BEGIN:
		buf_printf(out, "rollout r%lld: profile '%s' = ", (long long)r->id, r->profile);
		params_text(r, out);
		buf_printf(out, " on %d node(s) in %d wave(s) (", r->nnodes, r->nwaves);
		for (i = 0; i < r->nwaves; i++) {
			done += r->waves[i].nodes;
			buf_printf(out, "%s%d", i ? ", " : "", done);
		}
		buf_printf(out, "), check %s, at most %d failure(s) a wave\n",
		           rollout_check_name(r->check), r->max_failures);
		for (i = 0; i < r->nnodes; i++)
			if (r->nodes[i].state == RNODE_FAILED && r->nodes[i].error[0])
				buf_printf(out, "  %s (wave %d): %s\n", r->nodes[i].name,
				           r->nodes[i].wave, r->nodes[i].error);
		break;
	case ROLLRUN_WAVE_DONE:
		buf_printf(out, "wave %d (%s%d node(s)): ", wave, wave == 0 ? "canary, " : "",
		           w ? w->nodes : 0);
		counts_text(r, wave, out);
		buf_printf(out, "; check %s%s%s [%.2f s]\n", w ? w->check : "?",
		           w && w->detail[0] ? ": " : "", w ? w->detail : "",
		           w ? wave_wall_s(w) : 0);
		break;
	case ROLLRUN_MEASURE:
		buf_printf(out, "wave %d: measure round %d/%d done\n", wave, round, rounds);
		break;
	case ROLLRUN_REVERT_DONE:
		if (wave >= 0)
			buf_printf(out, "wave %d put back: ", wave);
		else
			buf_printf(out, "rollout r%lld put back: ", (long long)r->id);
		counts_text(r, wave, out);
		buf_printf(out, "\n");
		break;
	}
}

void report_rollout_show(const struct rollout *r, bool all_nodes, struct buf *out)
{
	char t0[40], t1[40];
	int i, shown = 0;

	time_fmt_iso(r->created_at, t0, sizeof(t0));
	buf_printf(out, "rollout r%lld of plan '%s', %s: %s\n", (long long)r->id, r->plan_name, t0,
	           rollout_status_name(r->status));
	buf_printf(out, "profile '%s' (enforce %s): ", r->profile, r->enforce ? "true" : "false");
	params_text(r, out);
	if (r->sweep_id)
		buf_printf(out, "  (sweep %lld's best%s)", (long long)r->sweep_id,
		           r->promised_gain ? ", a significant gain" : "");
	buf_printf(out, "\nwaves: canary %d, then %s; check %s; at most %d failure(s) a wave\n",
	           r->canary, r->waves_spec, rollout_check_name(r->check), r->max_failures);
	buf_printf(out, "%-5s %6s %-28s %-8s %8s  %s\n", "wave", "nodes", "outcome", "check",
	           "wall_s", "detail");
	for (i = 0; i < r->nwaves; i++) {
		const struct rollout_wave *w = &r->waves[i];
		struct buf c = BUF_INIT;

		counts_text(r, i, &c);
		buf_printf(out, "%-5d %6d %-28s %-8s %8.2f  %s\n", i, w->nodes, c.data,
		           w->check[0]         ? w->check
		           : w->started_at > 0 ? "-"
		                               : "not run",
		           wave_wall_s(w), w->detail);
		buf_release(&c);
	}
	for (i = 0; i < r->nnodes; i++) {
		const struct rollout_node *n = &r->nodes[i];

		if (!all_nodes && n->state == RNODE_NEW && !n->error[0])
			continue;
		if (!shown++)
			buf_printf(out, "%s:\n", all_nodes ? "nodes" : "nodes that do not hold it");
		buf_printf(out, "  %-16s wave %-2d %-10s %s\n", n->name, n->wave,
		           rollout_node_state_name(n->state), n->error);
	}
	buf_printf(out, "outcome: ");
	counts_text(r, -1, out);
	buf_printf(out, " of %d node(s)", r->nnodes);
	if (r->finished_at > 0) {
		time_fmt_iso(r->finished_at, t1, sizeof(t1));
		buf_printf(out, "; ended %s (%.1f s)", t1, r->finished_at - r->created_at);
	}
	buf_printf(out, "\n");
	if (r->reason[0])
		buf_printf(out, "why: %s\n", r->reason);
	if (r->status == ROLLOUT_INTERRUPTED || r->status == ROLLOUT_RUNNING)
		buf_printf(out,
		           "next: fleettune-ctl rollout --resume r%lld goes on; rollout --revert "
		           "r%lld puts every changed node back\n",
		           (long long)r->id, (long long)r->id);
	else if (r->status == ROLLOUT_STOPPED || r->status == ROLLOUT_COMPLETED)
		buf_printf(
		        out,
		        "next: fleettune-ctl rollout --revert r%lld puts every changed node back\n",
		        (long long)r->id);
	else if (r->status == ROLLOUT_FAILED)
		buf_printf(out,
		           "next: fleettune-ctl rollout --revert r%lld tries the put-back again\n",
		           (long long)r->id);
}

void report_rollouts_history(const struct ctlstore_rollout_summary *h, int n, struct buf *out)
{
	int i;

	if (!n)
		return;
	buf_printf(out, "\n%-5s %-20s %-11s %-9s %-12s %s\n", "id", "started", "status", "check",
	           "new/nodes", "plan / profile = values");
	for (i = 0; i < n; i++) {
		char iso[40], id[24], nodes[24];

		time_fmt_iso(h[i].created_at, iso, sizeof(iso));
		snprintf(id, sizeof(id), "r%lld", (long long)h[i].id);
		snprintf(nodes, sizeof(nodes), "%d/%d", h[i].nnew, h[i].nnodes);
		buf_printf(out, "%-5s %-20s %-11s %-9s %-12s %s / %s = %s\n", id, iso, h[i].status,
		           h[i].check, nodes, h[i].plan_name, h[i].profile, h[i].params);
		if (!strcmp(h[i].status, "abandoned")) {
			time_fmt_iso(h[i].saved_at > 0 ? h[i].saved_at : h[i].created_at, iso,
			             sizeof(iso));
			buf_printf(out,
			           "%60sits controller is gone (%s, pid %d); last move saved %s: "
			           "rollout --resume %s or --revert %s\n",
			           "", h[i].owner_host[0] ? h[i].owner_host : "host unknown",
			           h[i].owner_pid, iso, id, id);
		} else if (h[i].reason[0] && strcmp(h[i].status, "completed")) {
			buf_printf(out, "%60s%s\n", "", h[i].reason);
		}
	}
}

void report_verify(const struct plan *p, const char *profile, const struct verify_node *res,
                   int bad, struct buf *out)
{
	static const char *const words[] = { "ok", "DIFFERS", "UNREACHABLE" };
	int i;

	for (i = 0; i < p->nnodes; i++)
		buf_printf(out, "%-16s %-11s %s\n", p->nodes[i].name, words[res[i].state],
		           res[i].detail);
	if (bad)
		buf_printf(out,
		           "verify: %d of %d node(s) do not hold profile '%s' as they should\n",
		           bad, p->nnodes, profile);
	else
		buf_printf(out, "verify: every node (%d) holds profile '%s' as it should\n",
		           p->nnodes, profile);
}
