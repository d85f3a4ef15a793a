/* wire_profile.c -- profiles on the wire: PUT bodies, answers, what a profile is to each device,
 * and the profiles table's JSON columns. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jread.h"
#include "utf8.h"
#include "wire/wire.h"
#include "xmalloc.h"
#include "banned.h"

const char *const wire_profile_keys[] = { "match", "params", "enforce", NULL };

/* A string into out (at most len - 1 bytes), naming field in the error. */
static int string_get(const json_t *v, const char *field, char *out, size_t len, struct err *e)
{
	const char *s;

	if (!json_is_string(v))
		return err_set(e, -EINVAL, ERR_BAD_REQUEST, "%s: expected a string", field);
	s = json_string_value(v);
	if (!*s || strlen(s) >= len)
		return err_set(e, -EINVAL, ERR_BAD_REQUEST, "%s: expected 1..%zu bytes", field,
		               len - 1);
	snprintf(out, len, "%s", s);
	return 0;
}

static int devices_get(const json_t *v, struct profile_match *m, struct err *e)
{
	char field[48];
	size_t i;
	int rc;

	if (!json_is_array(v) || json_array_size(v) < 1 || json_array_size(v) > PROFILE_DEVICES_MAX)
		return err_set(e, -EINVAL, ERR_BAD_REQUEST,
		               "match.devices: expected an array of 1..%d device names or patterns",
		               PROFILE_DEVICES_MAX);
	for (i = 0; i < json_array_size(v); i++) {
		snprintf(field, sizeof(field), "match.devices[%zu]", i);
		rc = string_get(json_array_get(v, i), field, m->devices[i], sizeof(m->devices[i]),
		                e);
		if (rc)
			return rc;
		m->n_devices++;
	}
	return 0;
}

/* An identity value as the agent reports identity: printable ASCII (other bytes read as '?'),
 * no blank at either end (trimmed). Anything else could never match. */
static int ident_value_check(const char *s, const char *field, struct err *e)
{
	size_t n = strlen(s), i;

	for (i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] > 0x7e)
			return err_set(
			        e, -EINVAL, ERR_BAD_REQUEST,
			        "%s: printable ASCII only (the agent reports identity so: any "
			        "other byte reads as '?')",
			        field);
	if (s[0] == ' ' || s[n - 1] == ' ')
		return err_set(e, -EINVAL, ERR_BAD_REQUEST,
		               "%s: no blank at either end (identity is reported trimmed)", field);
	return 0;
}

/* An identity field: a string, or an array of 1..PROFILE_VALUES_MAX strings. */
static int ident_get(const json_t *v, int f, struct profile_match *m, struct err *e)
{
	const char *name = profile_ident_names[f];
	char field[48];
	size_t i;
	int rc;

	if (json_is_string(v)) {
		snprintf(field, sizeof(field), "match.%s", name);
		rc = string_get(v, field, m->values[f][0], sizeof(m->values[f][0]), e);
		if (rc == 0)
			rc = ident_value_check(m->values[f][0], field, e);
		if (rc == 0)
			m->n_values[f] = 1;
		return rc;
	}
	if (!json_is_array(v) || json_array_size(v) < 1 || json_array_size(v) > PROFILE_VALUES_MAX)
		return err_set(e, -EINVAL, ERR_BAD_REQUEST,
		               "match.%s: expected a string or an array of 1..%d strings", name,
		               PROFILE_VALUES_MAX);
	for (i = 0; i < json_array_size(v); i++) {
		snprintf(field, sizeof(field), "match.%s[%zu]", name, i);
		rc = string_get(json_array_get(v, i), field, m->values[f][i],
		                sizeof(m->values[f][i]), e);
		if (rc == 0)
			rc = ident_value_check(m->values[f][i], field, e);
		if (rc)
			return rc;
		m->n_values[f]++;
	}
	return 0;
}

static int match_from_json(const json_t *v, struct profile_match *m, struct err *e)
{
	const char *key;
	json_t *val;
	int f, rc;

	memset(m, 0, sizeof(*m));
	if (!json_is_object(v))
		return err_set(e, -EINVAL, ERR_BAD_REQUEST,
		               "match: expected an object (devices, or identity fields such as "
		               "model)");
	json_object_foreach((json_t *)v, key, val)
	{
		if (!strcmp(key, "devices")) {
			rc = devices_get(val, m, e);
			if (rc)
				return rc;
			continue;
		}
		for (f = 0; f < IDENT_COUNT; f++)
			if (!strcmp(key, profile_ident_names[f]))
				break;
		if (f == IDENT_COUNT)
			return err_set(
			        e, -EINVAL, ERR_BAD_REQUEST,
			        "match.%.*s: unknown field (devices, vendor, model, firmware, "
			        "serial, wwid, transport)",
			        utf8_cut(key, 64), key);
		rc = ident_get(val, f, m, e);
		if (rc)
			return rc;
	}
	return 0;
}

int wire_profile_from_json(const json_t *body, const char *name, struct profile *out, struct err *e)
{
	const json_t *v;
	int rc;

	profile_init(out);
	snprintf(out->name, sizeof(out->name), "%s", name);
	rc = wire_keys_check(body, wire_profile_keys, NULL, e);
	if (rc)
		goto out;
	v = json_object_get(body, "match");
	if (!v) {
		rc = err_set(e, -EINVAL, ERR_BAD_REQUEST, "match: required");
		goto out;
	}
	rc = match_from_json(v, &out->match, e);
	if (rc)
		goto out;
	v = json_object_get(body, "params");
	if (!v) {
		rc = err_set(e, -EINVAL, ERR_BAD_REQUEST, "params: required");
		goto out;
	}
	rc = wire_params_from_json(v, 1, &out->params, e);
	if (rc)
		goto out;
	rc = jread_bool(&(const struct jread){ e, ERR_BAD_REQUEST }, body, "", "enforce", 0,
	                &out->enforce);
	if (rc < 0)
		goto out;
	rc = 0;
out:
	if (rc)
		profile_release(out);
	return rc;
}

static json_t *match_to_json(const struct profile_match *m)
{
	json_t *o = json_object(), *a;
	int i, f;

	if (m->n_devices) {
		a = json_array();
		for (i = 0; i < m->n_devices; i++)
			json_array_append_new(a, json_string(m->devices[i]));
		json_object_set_new(o, "devices", a);
	}
	for (f = 0; f < IDENT_COUNT; f++) {
		if (!m->n_values[f])
			continue;
		a = json_array();
		for (i = 0; i < m->n_values[f]; i++)
			json_array_append_new(a, json_string(m->values[f][i]));
		json_object_set_new(o, profile_ident_names[f], a);
	}
	return o;
}

json_t *wire_profile_to_json(const struct profile *p)
{
	return json_pack("{s:s,s:o,s:o,s:b,s:o,s:o}", "name", p->name, "match",
	                 match_to_json(&p->match), "params", wire_params_to_json(&p->params),
	                 "enforce", p->enforce, "created_at", wire_time_to_json(p->created_at),
	                 "updated_at", wire_time_to_json(p->updated_at));
}

static json_t *value_or_null(const struct keep_param *kp, const char *v, bool present)
{
	return present && v[0] ? wire_value_to_json(kp->kind, v) : json_null();
}

static json_t *device_to_json(const struct keep_device *d)
{
	json_t *o, *params = json_object();
	int i;

	for (i = 0; i < d->n_params; i++) {
		const struct keep_param *kp = &d->params[i];
		json_t *po = json_pack(
		        "{s:o,s:o,s:b}", "wanted", value_or_null(kp, kp->wanted, true), "live",
		        value_or_null(kp, kp->live, kp->readable), "drifted", kp->drifted);

		if (kp->previous[0])
			json_object_set_new(po, "previous",
			                    wire_value_to_json(kp->kind, kp->previous));
		if (kp->drifted && kp->drift_since > 0)
			json_object_set_new(po, "since", wire_time_to_json(kp->drift_since));
		if (kp->adjusted)
			json_object_set_new(po, "adjusted", json_true());
		json_object_set_new(params, kp->name, po);
	}
	o = json_pack("{s:s,s:s,s:o,s:o,s:o}", "device", d->device, "state",
	              keep_state_names[d->state], "since", wire_time_to_json(d->since),
	              "checked_at", wire_time_to_json(d->checked_at), "params", params);
	if (d->applied_at > 0) {
		json_object_set_new(o, "applied_at", wire_time_to_json(d->applied_at));
		json_object_set_new(o, "applied_by", json_string(d->applied_by));
	}
	if (d->reapplied_count)
		json_object_set_new(o, "reapplied",
		                    json_pack("{s:o,s:i,s:s}", "at",
		                              wire_time_to_json(d->reapplied_at), "count",
		                              d->reapplied_count, "what", d->reapplied_what));
	if (d->owner[0])
		json_object_set_new(o, "owner", json_string(d->owner));
	if (d->error[0])
		json_object_set_new(o, "error", json_string(d->error));
	return o;
}

json_t *wire_keeper_view_to_json(const struct keeper_view *v)
{
	json_t *o = wire_profile_to_json(&v->profile), *a = json_array();
	int i;

	for (i = 0; i < v->n_devices; i++)
		json_array_append_new(a, device_to_json(&v->devices[i]));
	json_object_set_new(o, "devices", a);
	return o;
}

char *wire_profile_match_encode(const struct profile_match *m)
{
	return wire_dump(match_to_json(m), 0);
}

int wire_profile_match_decode(const char *text, struct profile_match *out, struct err *e)
{
	json_error_t jerr;
	json_t *o = json_loads(text ? text : "", 0, &jerr);
	int rc;

	if (!o)
		return err_set(e, -EINVAL, ERR_INTERNAL, "match: %s", jerr.text);
	rc = match_from_json(o, out, e);
	json_decref(o);
	return rc;
}

char *wire_profile_params_encode(const struct tune_set *s)
{
	return wire_dump(wire_params_to_json(s), 0);
}

int wire_profile_params_decode(const char *text, struct tune_set *out, struct err *e)
{
	json_error_t jerr;
	json_t *o = json_loads(text ? text : "", 0, &jerr);
	int rc;

	out->n = 0;
	out->items = NULL;
	if (!o)
		return err_set(e, -EINVAL, ERR_INTERNAL, "params: %s", jerr.text);
	rc = wire_params_from_json(o, 1, out, e);
	json_decref(o);
	return rc;
}
