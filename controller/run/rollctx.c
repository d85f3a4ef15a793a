/* rollctx.c -- a rollout run's state and the steps every phase takes with it: the stop flag,
 * events, saving nodes, and which nodes are where. */
#include "run/rollctx.h"
#include "store/ctlstore.h"
#include "banned.h"

bool rollctx_stopped(const struct rollctx *u)
{
	return u->o->stop && *u->o->stop;
}

void rollctx_event(struct rollctx *u, enum rollrun_event ev, int wave, int round, int rounds)
{
	if (u->o->event)
		u->o->event(u->o->cls, u->r, ev, wave, round, rounds);
}

/* Save the nodes of mask (NULL: all). A database that fails stops the rollout after the
 * requests under way: nothing more is sent that could not be recorded. */
void rollctx_save_nodes(struct rollctx *u, const bool *mask)
{
	struct err e = { 0 };

	if (u->db_failed || ctlstore_rollout_nodes_save(u->st, u->r, mask, &e) == 0)
		return;
	u->db_failed = true;
	u->db_err = e;
}

/* mask[i] = node i is in wave w (w < 0: any) and in state s. Returns how many. */
int rollctx_mask_of(struct rollctx *u, int w, enum rollout_node_state s)
{
	int i, n = 0;

	for (i = 0; i < u->r->nnodes; i++) {
		u->mask[i] = (w < 0 || u->r->nodes[i].wave == w) && u->r->nodes[i].state == s;
		n += u->mask[i];
	}
	return n;
}
