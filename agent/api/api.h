/* api.h -- the agent's JSON API: the route table (with each route's query parameters). */
#ifndef FT_API_H
#define FT_API_H

#include "http/httpd.h"

extern const struct route api_routes[];
extern const int api_n_routes;

/* HTTP status for an err code ("invalid_value" -> 422, ...). */
int api_status_for(const char *code);

/* What GET /api/v1/health lists under "features": "dry_run" (PATCH params and POST jobs take
 * ?dry_run=true), "strict_query" (unknown query parameters are refused), "long_poll" (GET
 * /api/v1/jobs/{id} takes wait_s, after and fields; hidden by switches_no_long_poll()) and
 * "profiles" (the agent keeps profiles: /api/v1/profiles). NULL-terminated. */
extern const char *const api_features[];

#endif
