/* api_priv.h -- helpers shared by the API handler files (api.c, api_jobs.c, api_profiles.c,
 * api_metrics.c). */
#ifndef FT_API_PRIV_H
#define FT_API_PRIV_H

#include <jansson.h>

#include "api/api.h"
#include "err.h"
#include "http/httpd.h"
#include "state/agent.h"
#include "wire/wire.h"

/* Send json (reference stolen) with status. */
void api_json(struct http_resp *resp, int status, json_t *json);
/* Send an err as {"error":{code,message}} with its mapped status. */
void api_fail(struct http_resp *resp, const struct err *e);
/*
 * Parse the request body as a JSON object, rejecting duplicate keys and any
 * key not in allowed (NULL-terminated; NULL: none). An empty body is {} when
 * empty_ok. On failure the 400 is already in resp and NULL is returned.
 */
json_t *api_body_object(const struct http_req *req, struct http_resp *resp,
                        const char *const *allowed, bool empty_ok);
/* "request 12 PUT /api/v1/..." */
void api_origin(const struct http_req *req, char *out, size_t len);

/* Job and result routes (api_jobs.c). */
void api_jobs_post(void *app, const struct http_req *req, struct http_resp *resp);
void api_jobs_list(void *app, const struct http_req *req, struct http_resp *resp);
void api_job_get(void *app, const struct http_req *req, struct http_resp *resp);
void api_job_delete(void *app, const struct http_req *req, struct http_resp *resp);
void api_job_raw(void *app, const struct http_req *req, struct http_resp *resp);
void api_results_list(void *app, const struct http_req *req, struct http_resp *resp);
/* Profile routes (api_profiles.c). */
void api_profiles_list(void *app, const struct http_req *req, struct http_resp *resp);
void api_profile_get(void *app, const struct http_req *req, struct http_resp *resp);
void api_profile_put(void *app, const struct http_req *req, struct http_resp *resp);
void api_profile_delete(void *app, const struct http_req *req, struct http_resp *resp);
/* GET /metrics (api_metrics.c). */
void api_metrics(void *app, const struct http_req *req, struct http_resp *resp);

/* The most results or jobs one list answer holds. */
#define API_LIST_LIMIT_MAX 500

#endif
