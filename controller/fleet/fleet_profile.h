/* fleet_profile.h -- the agents' profile routes (/api/v1/profiles/{name}) on many nodes at once:
 * part of the controller's wire layer (with fleet.c), so every body and answer is built and read
 * here. Nothing here decides: callers judge the parsed answers. */
#ifndef FT_FLEET_PROFILE_H
#define FT_FLEET_PROFILE_H

#include <signal.h>
#include <stdbool.h>

#include "fleet/fleet.h"
#include "plan/plan.h"
#include "protocol.h"

#define FLEET_PROFILE_DEVICES_MAX 8

/* A held value of one device, as the agent reports it. */
struct fleet_profile_value {
	char name[PARAM_NAME_MAX];
	char wanted[PARAM_VALUE_MAX];   /* what the kernel took at the last application */
	char live[PARAM_VALUE_MAX];     /* now; "" when the agent could not read it */
	char previous[PARAM_VALUE_MAX]; /* before the agent's last application; "" unknown */
	bool drifted;
	bool adjusted; /* the kernel took another value than the one requested */
	char since[40];
};

/* What a profile is to one device of a node. */
struct fleet_profile_device {
	char device[64];
	char state[16]; /* the agent's word: held, drifted, reapplied, pending, yielded, ... */
	int kstate;     /* enum keep_state (protocol.h) of that word; -1 for one this controller
	                   does not know */
	char owner[64];
	char error[256];
	int nvalues;
	struct fleet_profile_value values[CONFIG_MAX];
};

/* One node's profile of one name, and the request's outcome. */
struct fleet_profile {
	struct fleet_result
	        res;      /* failed: transport, or a status other than 2xx (and 404 on GET) */
	long status;      /* HTTP status, 0 without an answer (the agent's code: res.err) */
	bool not_started; /* *stop was set before its request was sent */
	bool found;       /* the agent holds a profile of that name (after a PUT: the new) */
	struct config params;
	bool enforce;
	char *body; /* its PUT body {"match":..,"params":..,"enforce":..} as JSON; owned, or NULL */
	int ndevices;
	struct fleet_profile_device devices[FLEET_PROFILE_DEVICES_MAX];
	char restored[256]; /* DELETE ?restore=true: what the agent said of the node's device */
};
void fleet_profiles_release(struct fleet_profile *p, int n);

/* GET /api/v1/profiles/NAME on every node where ask[i] (404: found false, not failed). */
void fleet_profile_get(struct fleet *f, const bool *ask, const char *name,
                       struct fleet_profile *out);

/*
 * PUT /api/v1/profiles/NAME on every node where ask[i]: bodies[i] when bodies is given (a body
 * an agent showed before, to put back), else {"match":{"devices":[the node's device]},
 * "params":cfg,"enforce":enforce}; dry_run adds ?dry_run=true. At most window requests are in
 * flight at once; once *stop (may be NULL) is set no further one is sent (out[i].not_started).
 * out[i] receives the profile as the agent now holds it.
 */
void fleet_profile_put(struct fleet *f, const bool *ask, const char *name, const struct config *cfg,
                       bool enforce, char *const *bodies, bool dry_run, int window,
                       const volatile sig_atomic_t *stop, struct fleet_profile *out);

/* A rollout's pre-flight on every node where ask[i], in one round: GET /api/v1/health into
 * health[i] and the profile NAME into cur[i] (what the node holds now). */
void fleet_profile_preflight(struct fleet *f, const bool *ask, const char *name,
                             struct node_info *health, struct fleet_profile *cur);

/* DELETE /api/v1/profiles/NAME?restore=true|false on every node where ask[i], as put above
 * (404 is not a failure: found false); out[i].restored says what the restore did on the node's
 * device. */
void fleet_profile_delete(struct fleet *f, const bool *ask, const char *name, bool restore,
                          int window, const volatile sig_atomic_t *stop, struct fleet_profile *out);

#endif
