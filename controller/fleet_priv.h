/* fleet_priv.h -- the helpers of the controller's wire layer that its files (fleet.c,
 * fleet_profile.c) share. */
#ifndef FT_FLEET_PRIV_H
#define FT_FLEET_PRIV_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "client.h"
#include "fleet.h"

/* Prepare r for node i: METHOD url+path with body (taken over; may be NULL); r->skip is kept. */
void fleet_req_node(struct fleet *f, struct client_req *r, int i, const char *method,
                    const char *path, char *body);
/* The outcome of one ended request: failed unless 2xx, with "HTTP 422: the agent's message". */
void fleet_req_result(const struct client_req *r, struct fleet_result *res);
/* The agent's {"error":{"code","message"}}; false when the body has none. */
bool fleet_agent_error(const struct client_req *r, char *code, size_t clen, char *msg, size_t mlen);
/* The parsed body of a 2xx answer (a new reference), else NULL. */
json_t *fleet_resp_json(const struct client_req *r);
/* A JSON scalar as parameter text; false when it is neither a number nor a string. */
bool fleet_scalar_text(json_t *v, char *out, size_t len, bool *is_int);
/* A GET /api/v1/health answer into ni: ok, version, node, features (or the error). */
void fleet_health_read(const struct client_req *r, struct node_info *ni);
/* Release reqs[0..n) and the array. */
void fleet_reqs_release(struct client_req *reqs, int n);

#endif
