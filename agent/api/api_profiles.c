/* api_profiles.c -- the profile routes: list, get (live values read now), put (with dry run),
 * delete (with restore). */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api_priv.h"
#include "state/keeper.h"
#include "utf8.h"
#include "xmalloc.h"
#include "banned.h"

/* The {name} of a profile route: a safe name, else 404 as for any name there is none of. */
static int name_arg(const struct http_req *req, struct err *e)
{
	if (profile_name_ok(req->args[0]))
		return 0;
	return err_set(e, -ENOENT, ERR_NOT_FOUND,
	               "no profile '%.*s' (names are 1..63 of A-Z a-z 0-9 _ . -)",
	               utf8_cut(req->args[0], 64), req->args[0]);
}

void api_profiles_list(void *app, const struct http_req *req, struct http_resp *resp)
{
	struct agent *a = app;
	struct keeper_view *list = NULL;
	json_t *arr;
	struct err e;
	int n = 0, i;

	(void)req;
	err_clear(&e);
	if (keeper_list(a->keeper, true, &list, &n, &e)) {
		api_fail(resp, &e);
		return;
	}
	arr = json_array();
	for (i = 0; i < n; i++)
		json_array_append_new(arr, wire_keeper_view_to_json(&list[i]));
	keeper_views_free(list, n);
	api_json(resp, 200, json_pack("{s:o}", "profiles", arr));
}

void api_profile_get(void *app, const struct http_req *req, struct http_resp *resp)
{
	struct agent *a = app;
	struct keeper_view v;
	struct err e;

	err_clear(&e);
	if (name_arg(req, &e) || keeper_get(a->keeper, req->args[0], &v, &e)) {
		api_fail(resp, &e);
		return;
	}
	api_json(resp, 200, wire_keeper_view_to_json(&v));
	keeper_view_release(&v);
}

void api_profile_put(void *app, const struct http_req *req, struct http_resp *resp)
{
	struct agent *a = app;
	bool dry_run = http_query_bool(req, "dry_run", false), created = false, rolled_back = false;
	struct keeper_view v;
	struct profile p;
	char origin[320];
	json_t *body, *o;
	struct err e;

	err_clear(&e);
	if (!profile_name_ok(req->args[0])) {
		err_set(&e, -EINVAL, ERR_BAD_REQUEST,
		        "name: '%.*s' is not a profile name (1..63 of A-Z a-z 0-9 _ . -, not "
		        "starting "
		        "with '.')",
		        utf8_cut(req->args[0], 64), req->args[0]);
		api_fail(resp, &e);
		return;
	}
	body = api_body_object(req, resp, wire_profile_keys, false);
	if (!body)
		return;
	if (wire_profile_from_json(body, req->args[0], &p, &e)) {
		json_decref(body);
		api_fail(resp, &e);
		return;
	}
	json_decref(body);
	api_origin(req, origin, sizeof(origin));
	if (keeper_put(a->keeper, &p, dry_run, origin, &v, &created, &rolled_back, &e)) {
		enum err_code code = e.code != ERR_NONE ? e.code : ERR_INTERNAL;

		o = json_pack("{s:{s:s,s:s}}", "error", "code", err_code_name(code), "message",
		              e.msg);
		if (rolled_back)
			json_object_set_new(o, "rolled_back", json_true());
		api_json(resp, err_code_status(code), o);
		return;
	}
	o = wire_keeper_view_to_json(&v);
	keeper_view_release(&v);
	if (dry_run) {
		api_json(
		        resp, 200,
		        json_pack("{s:b,s:b,s:o}", "dry_run", 1, "created", created, "profile", o));
		return;
	}
	if (created) {
		char loc[128];

		snprintf(loc, sizeof(loc), "/api/v1/profiles/%s", req->args[0]);
		resp->location = xstrdup(loc);
	}
	api_json(resp, created ? 201 : 200, o);
}

void api_profile_delete(void *app, const struct http_req *req, struct http_resp *resp)
{
	struct agent *a = app;
	bool restore = http_query_bool(req, "restore", false);
	struct keeper_restore *r = NULL;
	struct keeper_view v;
	char origin[320];
	json_t *o, *arr;
	struct err e;
	int n = 0, i;

	err_clear(&e);
	api_origin(req, origin, sizeof(origin));
	if (name_arg(req, &e) ||
	    keeper_delete(a->keeper, req->args[0], restore, origin, &v, &r, &n, &e)) {
		api_fail(resp, &e);
		return;
	}
	o = wire_keeper_view_to_json(&v);
	keeper_view_release(&v);
	json_object_set_new(o, "deleted", json_true());
	if (restore) {
		arr = json_array();
		for (i = 0; i < n; i++)
			json_array_append_new(arr, json_pack("{s:s,s:s}", "device", r[i].device,
			                                     "outcome", r[i].outcome));
		json_object_set_new(o, "restored", arr);
	}
	free(r);
	api_json(resp, 200, o);
}
