/* verify.h -- does every node hold the profile it should? One GET of the profile per node,
 * compared with what it should hold, and each device's state and drift as its agent reports. */
#ifndef FT_VERIFY_H
#define FT_VERIFY_H

#include <stdbool.h>

#include "model/rollout.h"
#include "plan/plan.h"

/* What one node should hold: the profile's values, or (none) no profile of that name. */
struct verify_expect {
	bool none;
	struct config params;
	struct config device; /* besides the profile, the device's own values it should have:
	                         what a rollout's revert put back that a scheduler switch had
	                         reset (rollout_node.reset_values); n 0: none */
	char source[64];      /* "--params", "sweep 12's best", "rollout r3" */
};

enum verify_state {
	VERIFY_OK,          /* holds it, every value live as the profile's */
	VERIFY_DIFFERS,     /* holds something else, drifted, or not at all: detail */
	VERIFY_UNREACHABLE, /* could not ask: detail */
};

struct verify_node {
	enum verify_state state;
	char detail[512]; /* what differs ("nr_requests: live 128, profile 64 (drifted since
	                     ...)"), or for ok the device's state */
	char held[256];   /* the values it holds, "name=value ..." */
};

/* The expectation of every node of p from stored rollout r (NULL: every node expects cfg):
 * a node r left new should hold r's params, the others what they had before it. */
void verify_expect_from(const struct plan *p, const struct rollout *r, const struct config *cfg,
                        const char *source, struct verify_expect *out);
struct client_transport;
/* Ask every node of p for its profile name (through t; NULL: HTTP) and judge it against ex[i].
 * Returns how many do not verify (differ or could not be asked): the exit status is 1 when
 * that is not 0. */
int verify_run(const struct plan *p, const char *name, const struct verify_expect *ex,
               const struct client_transport *t, struct verify_node *out);

#endif
