/* config.c -- a configuration (parameter names and values): set, get, merge, compare, format,
 * and its JSON codec. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "num.h"
#include "plan/config.h"
#include "banned.h"

int config_set(struct config *c, const char *name, const char *value, bool is_int)
{
	struct setting *s = NULL;
	int i;

	if (strlen(name) >= PARAM_NAME_MAX || strlen(value) >= PARAM_VALUE_MAX)
		return -ENAMETOOLONG;
	for (i = 0; i < c->n; i++)
		if (!strcmp(c->s[i].name, name))
			s = &c->s[i];
	if (!s) {
		if (c->n >= CONFIG_MAX)
			return -ENOSPC;
		s = &c->s[c->n++];
		snprintf(s->name, sizeof(s->name), "%s", name);
	}
	snprintf(s->value, sizeof(s->value), "%s", value);
	s->is_int = is_int;
	return 0;
}

const struct setting *config_get(const struct config *c, const char *name)
{
	int i;

	for (i = 0; i < c->n; i++)
		if (!strcmp(c->s[i].name, name))
			return &c->s[i];
	return NULL;
}

void config_merge(struct config *dst, const struct config *src)
{
	int i;

	for (i = 0; i < src->n; i++)
		config_set(dst, src->s[i].name, src->s[i].value, src->s[i].is_int);
}

bool config_equal(const struct config *a, const struct config *b)
{
	int i;

	if (a->n != b->n)
		return false;
	for (i = 0; i < a->n; i++) {
		const struct setting *o = config_get(b, a->s[i].name);

		if (!o || strcmp(o->value, a->s[i].value))
			return false;
	}
	return true;
}

void config_format(const struct config *c, struct buf *out)
{
	int i;

	for (i = 0; i < c->n; i++)
		buf_printf(out, "%s%s=%s", i ? " " : "", c->s[i].name, c->s[i].value);
}

json_t *setting_json_new(const struct setting *st)
{
	int64_t v;

	if (st->is_int && num_parse_i64(st->value, &v) == 0)
		return json_integer(v);
	return json_string(st->value);
}

json_t *config_json_new(const struct config *cfg)
{
	json_t *o = json_object();
	int i;

	for (i = 0; i < cfg->n; i++)
		json_object_set_new(o, cfg->s[i].name, setting_json_new(&cfg->s[i]));
	return o;
}

char *config_to_json(const struct config *cfg)
{
	json_t *o = config_json_new(cfg);
	char *s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);

	json_decref(o);
	return s;
}

int config_parse_json(const char *text, struct config *cfg, struct err *e)
{
	json_error_t je;
	json_t *o = json_loads(text, JSON_REJECT_DUPLICATES, &je), *v;
	const char *k;
	char val[PARAM_VALUE_MAX];
	int rc = 0;

	memset(cfg, 0, sizeof(*cfg));
	if (!o)
		return err_set(e, -EINVAL, ERR_INVALID_PARAMS, "params: %s", je.text);
	if (!json_is_object(o)) {
		rc = err_set(e, -EINVAL, ERR_INVALID_PARAMS, "params: expected a JSON object");
		goto out;
	}
	json_object_foreach(o, k, v)
	{
		if (json_is_integer(v))
			snprintf(val, sizeof(val), "%lld", (long long)json_integer_value(v));
		else if (json_is_string(v) && strlen(json_string_value(v)) < sizeof(val))
			snprintf(val, sizeof(val), "%s", json_string_value(v));
		else if (json_is_string(v)) {
			rc = err_set(e, -EINVAL, ERR_INVALID_PARAMS,
			             "params.%s: longer than %d bytes", k, PARAM_VALUE_MAX - 1);
			goto out;
		} else {
			rc = err_set(e, -EINVAL, ERR_INVALID_PARAMS,
			             "params.%s: expected an integer or a string", k);
			goto out;
		}
		if (config_set(cfg, k, val, json_is_integer(v)) < 0) {
			rc = err_set(e, -EINVAL, ERR_INVALID_PARAMS,
			             "params.%s: too long or too many", k);
			goto out;
		}
	}
out:
	json_decref(o);
	return rc;
}

/* Whether s has a byte below 0x20 or 0x7f. */
static bool has_control(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s == 0x7f)
			return true;
	return false;
}

int config_check(const struct config *cfg, struct err *e)
{
	const char *name;
	int i;

	for (i = 0; i < cfg->n; i++) {
		name = cfg->s[i].name;
		if (!*name || strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		                           "0123456789_.") != strlen(name))
			return err_set(e, -EINVAL, ERR_INVALID_PARAMS,
			               "params: '%s' is not a parameter name (letters, digits, '_' "
			               "and '.')",
			               name);
		if (!cfg->s[i].is_int && (!cfg->s[i].value[0] || has_control(cfg->s[i].value)))
			return err_set(e, -EINVAL, ERR_INVALID_PARAMS, "params.%s: %s", name,
			               cfg->s[i].value[0]
			                       ? "has a control character (a line break, a "
			                         "tab, ...)"
			                       : "empty value");
	}
	return 0;
}

bool config_value_text(json_t *v, char *out, size_t len, bool *is_int)
{
	if (json_is_integer(v)) {
		snprintf(out, len, "%lld", (long long)json_integer_value(v));
		*is_int = true;
		return true;
	}
	if (json_is_string(v)) {
		snprintf(out, len, "%s", json_string_value(v));
		*is_int = false;
		return true;
	}
	if (json_is_real(v)) {
		snprintf(out, len, "%g", json_real_value(v));
		*is_int = false;
		return true;
	}
	return false;
}
