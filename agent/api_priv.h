/* api_priv.h -- helpers shared by the API handler files (api.c, api_jobs.c). */
#ifndef FT_API_PRIV_H
#define FT_API_PRIV_H

#include <jansson.h>

#include "agent.h"
#include "api.h"
#include "err.h"
#include "httpd.h"

/* Send json (reference stolen) with status. */
void api_json(struct http_resp *resp, int status, json_t *json);
/* Send an err as {"error":{code,message}} with its mapped status. */
void api_fail(struct http_resp *resp, const struct err *e);
/*
 * Parse the request body as a JSON object, rejecting duplicate keys and any
 * key not in allowed (NULL-terminated). An empty body is {} when
 * empty_ok. On failure the 400 is already in resp and NULL is returned.
 */
json_t *api_body_object(const struct http_req *req, struct http_resp *resp,
                        const char *const *allowed, bool empty_ok);
/* Check obj has only allowed keys; fills err ("bad_request") naming path.key. */
int api_keys_check(const json_t *obj, const char *const *allowed, const char *path, struct err *e);
/* ISO-8601 UTC string for epoch seconds (0 -> JSON null). */
json_t *api_time(double epoch_s);
/* Parse an optional integer query argument within [min,max]; def if absent. */
int api_query_int(const struct http_req *req, const char *key, long long def, long long min,
                  long long max, long long *out, struct err *e);
/* "request 12 PUT /api/v1/..." */
void api_origin(const struct http_req *req, char *out, size_t len);

/* Job and result routes (api_jobs.c). */
void api_jobs_post(void *app, const struct http_req *req, struct http_resp *resp);
void api_jobs_list(void *app, const struct http_req *req, struct http_resp *resp);
void api_job_get(void *app, const struct http_req *req, struct http_resp *resp);
void api_job_delete(void *app, const struct http_req *req, struct http_resp *resp);
void api_job_raw(void *app, const struct http_req *req, struct http_resp *resp);
void api_results_list(void *app, const struct http_req *req, struct http_resp *resp);
void api_metrics(void *app, const struct http_req *req, struct http_resp *resp);

#endif
