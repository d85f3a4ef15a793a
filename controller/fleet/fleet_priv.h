/* fleet_priv.h -- the helpers of the controller's wire layer that its files (fleet.c,
 * fleet_profile.c, fleet_probe.c) share: fleet.c's own request helpers, under the names fleet.c has
 * always called them by. Nothing outside the fleet module includes this. */
#ifndef FT_FLEET_PRIV_H
#define FT_FLEET_PRIV_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "fleet/client.h"
#include "fleet/fleet.h"

/* Prepare r for node i: METHOD url+path with body (taken over; may be NULL); r->skip is kept. */
void req_node(struct fleet *f, struct client_req *r, int i, const char *method, const char *path,
              char *body);
/* The outcome of one ended request: failed unless 2xx, with the agent's code and "HTTP 422: the
 * agent's message". */
void fanout_result(const struct client_req *r, struct fleet_result *res);
/* The agent's {"error":{"code","message"}} (escaped) into e: its code parsed (err_set_word),
 * its message; false (e untouched) when the body has none. */
bool agent_error(const struct client_req *r, struct err *e);
/* Why r failed, into e: the agent's code and "HTTP 422: the agent's message", else the HTTP
 * status (ERR_HTTP_STATUS) or the transport's error (ERR_UNREACHABLE, ERR_ANSWER_TOO_LARGE). */
void req_error(const struct client_req *r, struct err *e);
/* The parsed body of a 2xx answer (a new reference), else NULL. */
json_t *resp_json(const struct client_req *r);
/* A GET /api/v1/health answer's version, node, uptime and features into ni. */
void health_parse(json_t *h, struct node_info *ni);
/* Release reqs[0..n) and the array. */
void reqs_release(struct client_req *reqs, int n);

#endif
