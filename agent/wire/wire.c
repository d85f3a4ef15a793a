/* wire.c -- the agent's JSON wire format: request bodies into structs, parameter values and job
 * specs into JSON for answers and for the database's JSON columns. With wire_job.c (a job's
 * record, passes and summary) the only agent code, but for api*.c's envelopes and fio.c's
 * parser of fio's own output, that builds or reads JSON. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jread.h"
#include "num.h"
#include "timeutil.h"
#include "utf8.h"
#include "wire/wire.h"
#include "xmalloc.h"
#include "banned.h"

const char *const wire_job_keys[] = { "device",   "directory",      "engine",   "fio",
	                              "dd",       "bonnie",         "iozone",   "loops",
	                              "params",   "params_restore", "labels",   "filesystem",
	                              "start_at", "workloads",      "fio_file", NULL };

int wire_keys_check(const json_t *obj, const char *const *allowed, const char *path, struct err *e)
{
	const char *key;
	json_t *v;
	int i;

	json_object_foreach((json_t *)obj, key, v)
	{
		bool ok = false;

		for (i = 0; allowed && allowed[i]; i++)
			if (!strcmp(allowed[i], key))
				ok = true;
		if (!ok)
			return err_set(e, -EINVAL, ERR_BAD_REQUEST, "%s%s%.*s: unknown field",
			               path ? path : "", path ? "." : "", utf8_cut(key, 64), key);
	}
	return 0;
}

char *wire_dump(json_t *o, size_t flags)
{
	char *s = json_dumps(o, JSON_COMPACT | flags);

	json_decref(o);
	return s ? s : xstrdup("{}");
}

/* ---- parameter values ---- */

int wire_value_from_json(const json_t *v, const char *field, char *out, size_t len, struct err *e)
{
	if (json_is_integer(v)) {
		snprintf(out, len, "%lld", (long long)json_integer_value(v));
		return 0;
	}
	if (json_is_string(v)) {
		if (json_string_length(v) >= len ||
		    strlen(json_string_value(v)) != json_string_length(v))
			return err_set(e, -EINVAL, ERR_BAD_REQUEST,
			               "%s: string too long or contains NUL", field);
		snprintf(out, len, "%s", json_string_value(v));
		return 0;
	}
	return err_set(e, -EINVAL, ERR_BAD_REQUEST, "%s: expected an integer or a string", field);
}

json_t *wire_int_or_string(const char *v, bool kernel)
{
	int64_t n;

	if (kernel ? !num_parse_kernel_i64(v, &n) : !num_parse_i64(v, &n))
		return json_integer((json_int_t)n);
	return json_string(v);
}

json_t *wire_value_to_json(enum param_kind kind, const char *v)
{
	if (kind == PARAM_INT || kind == PARAM_ENUM)
		return wire_int_or_string(v, kind == PARAM_INT);
	return json_string(v);
}

int wire_params_from_json(const json_t *v, int min_n, struct tune_set *out, struct err *e)
{
	char field[96];
	const char *key;
	json_t *val;
	int rc = 0;

	out->n = 0;
	out->items = NULL;
	if (!json_is_object(v) || (int)json_object_size(v) < min_n ||
	    json_object_size(v) > TUNE_SET_MAX) {
		if (min_n > 0)
			return err_set(e, -EINVAL, ERR_BAD_REQUEST,
			               "params: expected an object of %d..%d parameters", min_n,
			               TUNE_SET_MAX);
		return err_set(e, -EINVAL, ERR_BAD_REQUEST,
		               "params: expected an object of at most %d parameters", TUNE_SET_MAX);
	}
	out->items = xcalloc(json_object_size(v) + 1, sizeof(*out->items));
	json_object_foreach((json_t *)v, key, val)
	{
		struct tune_item *it = &out->items[out->n];

		snprintf(field, sizeof(field), "params.%.*s", utf8_cut(key, 64), key);
		if (strlen(key) >= sizeof(it->name)) {
			rc = err_set(e, -ENOENT, ERR_UNKNOWN_PARAM, "no parameter '%.*s'",
			             utf8_cut(key, 64), key);
			break;
		}
		snprintf(it->name, sizeof(it->name), "%s", key);
		rc = wire_value_from_json(val, field, it->requested, sizeof(it->requested), e);
		if (rc)
			break;
		out->n++;
	}
	if (rc)
		tune_set_release(out);
	return rc;
}

json_t *wire_params_to_json(const struct tune_set *s)
{
	json_t *o = json_object();
	int i;

	for (i = 0; i < s->n; i++)
		json_object_set_new(o, s->items[i].name,
		                    wire_int_or_string(s->items[i].requested, false));
	return o;
}

json_t *wire_tune_item_to_json(const struct tune_item *it, const json_t *requested)
{
	json_t *o = json_object();

	json_object_set(o, "requested", (json_t *)requested);
	json_object_set_new(o, "previous", wire_value_to_json(it->kind, it->previous));
	json_object_set_new(o, "value", wire_value_to_json(it->kind, it->applied));
	if (it->aliased)
		json_object_set_new(o, "mapped_to", json_string(it->canon));
	if (it->adjusted)
		json_object_set_new(o, "adjusted", json_true());
	return o;
}

char *wire_tune_applied_encode(const struct tune_set *s)
{
	json_t *o = json_object();
	int i;

	for (i = 0; i < s->n; i++) {
		json_t *req = wire_int_or_string(s->items[i].requested, false);

		json_object_set_new(o, s->items[i].name, wire_tune_item_to_json(&s->items[i], req));
		json_decref(req);
	}
	return wire_dump(o, JSON_SORT_KEYS);
}

/* ---- engine options, by walking the engine's table ---- */

/* "a|b|c" */
static void choices_list(const char *const *choices, const char *sep, const char *quote, char *out,
                         size_t len)
{
	size_t used = 0, i;

	out[0] = '\0';
	for (i = 0; choices[i] && used < len; i++) {
		int n = snprintf(out + used, len - used, "%s%s%s%s", i ? sep : "", quote,
		                 choices[i], quote);

		if (n < 0)
			break;
		used += (size_t)n;
	}
}

/* Index of s in choices, or -1. */
static int choice_index(const char *const *choices, const char *s)
{
	int i;

	for (i = 0; choices[i]; i++)
		if (!strcmp(choices[i], s))
			return i;
	return -1;
}

static int opt_int(const char *eng, const struct engine_opt *d, const json_t *v, char *field,
                   struct err *e)
{
	int64_t x;

	if (!json_is_integer(v))
		return err_set(e, -EINVAL, ERR_BAD_REQUEST,
		               "%s.%s: must be an integer %" PRId64 "..%" PRId64, eng, d->key,
		               d->min, d->max);
	x = (int64_t)json_integer_value(v);
	if (x < d->min || x > d->max)
		return err_set(e, -EINVAL, ERR_BAD_REQUEST, "%s.%s: must be %" PRId64 "..%" PRId64,
		               eng, d->key, d->min, d->max);
	*(int64_t *)field = x;
	return 0;
}

/* An integer in the option's unit, or a string with fio's time units, to a whole number of the
 * unit in min..max. */
static int opt_duration(const char *eng, const struct engine_opt *d, const json_t *v, char *field,
                        struct err *e)
{
	const char *unit = d->unit_us == 1000000 ? "s" : d->unit_us == 1000 ? "ms" : "us";
	int64_t us, x;

	if (json_is_integer(v)) {
		x = (int64_t)json_integer_value(v);
	} else if (json_is_string(v) &&
	           engine_duration_parse(json_string_value(v), d->unit_us, &us) == 0) {
		if (us % d->unit_us)
			return err_set(e, -EINVAL, ERR_BAD_REQUEST,
			               "%s.%s: must be a whole number of %s (\"%.*s\" is not)", eng,
			               d->key, unit, utf8_cut(json_string_value(v), 32),
			               json_string_value(v));
		x = us / d->unit_us;
	} else {
		return err_set(e, -EINVAL, ERR_BAD_REQUEST,
		               "%s.%s: must be an integer (%s) or a time like \"30s\", \"2m\", "
		               "\"500ms\"",
		               eng, d->key, unit);
	}
	if (x < d->min || x > d->max)
		return err_set(e, -EINVAL, ERR_BAD_REQUEST,
		               "%s.%s: must be %" PRId64 "..%" PRId64 " %s", eng, d->key, d->min,
		               d->max, unit);
	*(int64_t *)field = x;
	return 0;
}

static int opt_size(const char *eng, const struct engine_opt *d, const json_t *v, char *field,
                    struct err *e)
{
	char lo[32], hi[32], al[32];
	uint64_t x;

	if (!json_is_string(v) || num_parse_size(json_string_value(v), &x) < 0)
		return err_set(e, -EINVAL, ERR_BAD_REQUEST,
		               "%s.%s: must be a size like \"4k\", \"1M\" or \"2g\"", eng, d->key);
	if (x < (uint64_t)d->min || x > (uint64_t)d->max) {
		engine_size_str((uint64_t)d->min, 0, lo, sizeof(lo));
		engine_size_str((uint64_t)d->max, 0, hi, sizeof(hi));
		return err_set(e, -EINVAL, ERR_BAD_REQUEST, "%s.%s: must be %s..%s", eng, d->key,
		               lo, hi);
	}
	if (d->align > 1 && x % d->align) {
		engine_size_str(d->align, 0, al, sizeof(al));
		return err_set(e, -EINVAL, ERR_BAD_REQUEST, "%s.%s: must be a multiple of %s", eng,
		               d->key, al);
	}
	*(uint64_t *)field = x;
	return 0;
}

static int opt_set(const char *eng, const struct engine_opt *d, const json_t *v, char *field,
                   struct err *e)
{
	unsigned set = 0;
	char list[256];
	json_t *item;
	size_t i;
	int k;

	if (!json_is_array(v) || json_array_size(v) == 0)
		goto bad;
	json_array_foreach(v, i, item)
	{
		k = json_is_string(item) ? choice_index(d->choices, json_string_value(item)) : -1;
		if (k < 0 || (set & (1u << k)))
			goto bad;
		set |= 1u << k;
	}
	*(unsigned *)field = set;
	return 0;
bad:
	choices_list(d->choices, ", ", "\"", list, sizeof(list));
	return err_set(e, -EINVAL, ERR_BAD_REQUEST, "%s.%s: must be an array of distinct %s", eng,
	               d->key, list);
}

/* Decode v into d's field of the option struct at base and set its has_ flag. */
static int opt_decode(const char *eng, const struct engine_opt *d, const json_t *v, char *base,
                      struct err *e)
{
	char *field = base + d->off, list[256];
	int rc = 0, k;

	switch (d->type) {
	case EOPT_INT:
		rc = opt_int(eng, d, v, field, e);
		break;
	case EOPT_BOOL:
		if (!json_is_boolean(v))
			rc = err_set(e, -EINVAL, ERR_BAD_REQUEST, "%s.%s: must be true or false",
			             eng, d->key);
		else
			*(bool *)field = json_is_true(v);
		break;
	case EOPT_SIZE:
		rc = opt_size(eng, d, v, field, e);
		break;
	case EOPT_ENUM:
		k = json_is_string(v) ? choice_index(d->choices, json_string_value(v)) : -1;
		if (k < 0) {
			choices_list(d->choices, "|", "", list, sizeof(list));
			rc = err_set(e, -EINVAL, ERR_BAD_REQUEST, "%s.%s: must be one of %s", eng,
			             d->key, list);
		} else {
			*(const char **)field = d->choices[k];
		}
		break;
	case EOPT_TEXT:
		if (!json_is_string(v) || json_string_length(v) > (size_t)d->max ||
		    strlen(json_string_value(v)) != json_string_length(v)) {
			rc = err_set(e, -EINVAL, ERR_BAD_REQUEST, "%s.%s: must be %s", eng, d->key,
			             d->hint);
		} else if (d->text_check) {
			char path[96];

			snprintf(path, sizeof(path), "%s.%s", eng, d->key);
			rc = d->text_check(path, json_string_value(v), e);
		}
		if (rc == 0)
			snprintf(field, (size_t)d->max + 1, "%s", json_string_value(v));
		break;
	case EOPT_DURATION:
		rc = opt_duration(eng, d, v, field, e);
		break;
	case EOPT_SET:
		rc = opt_set(eng, d, v, field, e);
		break;
	}
	if (rc == 0)
		*(bool *)(base + d->has_off) = true;
	return rc;
}

int wire_engine_opts_from_json(const struct engine *eng, const json_t *v, struct engine_opts *o,
                               struct err *e)
{
	char *base = (char *)o + eng->opts_off;
	const char *key;
	json_t *val;
	int i, k, rc;

	engine_opts_reset(eng, o);
	if (!v)
		return 0;
	if (!json_is_object(v))
		return err_set(e, -EINVAL, ERR_BAD_REQUEST, "%s: must be an object", eng->name);
	json_object_foreach((json_t *)v, key, val)
	{
		for (k = 0; k < eng->n_opts && strcmp(eng->opts[k].key, key); k++)
			;
		if (k == eng->n_opts)
			return err_set(e, -EINVAL, ERR_BAD_REQUEST, "%s.%.*s: unknown option",
			               eng->name, utf8_cut(key, 64), key);
	}
	for (i = 0; i < eng->n_opts; i++) {
		val = json_object_get(v, eng->opts[i].key);
		if (!val)
			continue;
		rc = opt_decode(eng->name, &eng->opts[i], val, base, e);
		if (rc)
			return rc;
	}
	o->given[eng->id] = true;
	return 0;
}

/* d's value in the option struct at base as JSON. */
static json_t *opt_encode(const struct engine_opt *d, const char *base)
{
	const char *field = base + d->off;
	char sz[32];
	json_t *a;
	int k;

	switch (d->type) {
	case EOPT_INT:
	case EOPT_DURATION:
		return json_integer((json_int_t) * (const int64_t *)field);
	case EOPT_BOOL:
		return json_boolean(*(const bool *)field);
	case EOPT_SIZE:
		engine_size_str(*(const uint64_t *)field, 0, sz, sizeof(sz));
		return json_string(sz);
	case EOPT_ENUM:
		return json_string(*(const char *const *)field);
	case EOPT_TEXT:
		return json_string(field);
	case EOPT_SET:
		a = json_array();
		for (k = 0; d->choices[k]; k++)
			if (*(const unsigned *)field & (1u << k))
				json_array_append_new(a, json_string(d->choices[k]));
		return a;
	}
	return json_null();
}

json_t *wire_engine_opts_to_json(const struct engine *eng, const struct engine_opts *o)
{
	const char *base = (const char *)o + eng->opts_off;
	json_t *obj = json_object();
	int i;

	for (i = 0; i < eng->n_opts; i++)
		if (*(const bool *)(base + eng->opts[i].has_off))
			json_object_set_new(obj, eng->opts[i].key, opt_encode(&eng->opts[i], base));
	return obj;
}

/* ---- job specs ---- */

static bool label_key_ok(const char *k)
{
	const char *p;

	if (!*k || strlen(k) > JOB_LABEL_KEY_MAX)
		return false;
	for (p = k; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '_' || *p == '-' || *p == '.' || *p == ':'))
			return false;
	return true;
}

static int labels_from_json(const json_t *labels, struct job_spec *out, struct err *e)
{
	const char *key;
	json_t *v;

	if (!json_is_object(labels) || json_object_size(labels) > JOB_LABELS_MAX)
		return err_set(e, -EINVAL, ERR_BAD_REQUEST,
		               "labels: expected an object of at most %d strings", JOB_LABELS_MAX);
	json_object_foreach((json_t *)labels, key, v)
	{
		if (!label_key_ok(key))
			return err_set(e, -EINVAL, ERR_BAD_REQUEST,
			               "labels: key '%.*s' must be 1..%d of [A-Za-z0-9_.:-]",
			               utf8_cut(key, 64), key, JOB_LABEL_KEY_MAX);
		if (!json_is_string(v) || json_string_length(v) > JOB_LABEL_VALUE_MAX ||
		    strlen(json_string_value(v)) != json_string_length(v))
			return err_set(e, -EINVAL, ERR_BAD_REQUEST,
			               "labels.%s: expected a string of at most %d bytes", key,
			               JOB_LABEL_VALUE_MAX);
		/* Labels are shown on terminals and pages (the controller's tables, the web
		 * page): no control character reaches them from here (issue 31 item 24). */
		if (utf8_control_at(json_string_value(v)) >= 0)
			return err_set(
			        e, -EINVAL, ERR_BAD_REQUEST,
			        "labels.%s: has a control character at byte %ld (a line break, "
			        "a tab, an escape, a C1 control or a bidirectional override); "
			        "label values are plain text",
			        key, utf8_control_at(json_string_value(v)) + 1);
		job_spec_label_add(out, key, json_string_value(v));
	}
	return 0;
}

/* The job body's top-level fields other than the engine objects. */
static int spec_fields(const json_t *body, struct job_spec *out, struct err *e)
{
	const struct jread jr = { e, ERR_BAD_REQUEST };
	const char *s;
	json_int_t loops = 1;
	json_t *v;
	int rc;

	rc = jread_str(&jr, body, "", "device", JREAD_REQUIRED, &s);
	if (rc < 0)
		return rc;
	v = json_object_get(body, "device");
	if (json_string_length(v) >= sizeof(out->device) || strlen(s) != json_string_length(v))
		return err_set(e, -EINVAL, ERR_BAD_REQUEST, "device: no block device '%.*s'",
		               utf8_cut(s, 64), s);
	snprintf(out->device, sizeof(out->device), "%s", s);
	v = json_object_get(body, "engine");
	if (!v)
		return err_set(e, -EINVAL, ERR_BAD_REQUEST,
		               "engine: required (fio, dd, bonnie or iozone)");
	if (!json_is_string(v) || !(out->engine = engine_find(json_string_value(v))))
		return err_set(e, -EINVAL, ERR_BAD_REQUEST,
		               "engine: expected one of fio, dd, bonnie, iozone");
	rc = jread_int(&jr, body, "", "loops", 0, 1, JOB_LOOPS_MAX, &loops);
	if (rc < 0)
		return rc;
	out->loops = (int)loops;
	rc = jread_str(&jr, body, "", "directory", 0, &s);
	if (rc < 0)
		return rc;
	if (rc) {
		v = json_object_get(body, "directory");
		if (json_string_length(v) >= PATH_MAX || strlen(s) != json_string_length(v))
			return err_set(e, -EINVAL, ERR_BAD_REQUEST, "directory: expected a string");
		out->directory = xstrdup(s);
	}
	return 0;
}

/* The "filesystem" object: {"type": "xfs"|"ext4", "mkfs": [argv tokens], "mount": "opts"}.
 * Its shape is checked here (400); the type and the options against their tables by
 * job_check (422). */
static int filesystem_from_json(const json_t *v, struct job_spec *out, struct err *e)
{
	static const char *const keys[] = { "type", "mkfs", "mount", NULL };
	const json_t *type, *mkfs, *mount, *t;
	struct fs_spec *fs;
	size_t i;
	int rc;

	if (!json_is_object(v))
		return err_set(e, -EINVAL, ERR_BAD_REQUEST,
		               "filesystem: expected an object {\"type\", \"mkfs\", \"mount\"}");
	rc = wire_keys_check(v, keys, "filesystem", e);
	if (rc)
		return rc;
	type = json_object_get(v, "type");
	mkfs = json_object_get(v, "mkfs");
	mount = json_object_get(v, "mount");
	if (!json_is_string(type))
		return err_set(e, -EINVAL, ERR_BAD_REQUEST,
		               "filesystem.type: required string (xfs or ext4)");
	if (mkfs && (!json_is_array(mkfs) || json_array_size(mkfs) > FS_MKFS_TOKENS_MAX))
		return err_set(e, -EINVAL, ERR_BAD_REQUEST,
		               "filesystem.mkfs: expected an array of at most %d argv tokens",
		               FS_MKFS_TOKENS_MAX);
	if (mount && (!json_is_string(mount) || json_string_length(mount) >= FS_MOUNT_MAX ||
	              strlen(json_string_value(mount)) != json_string_length(mount)))
		return err_set(e, -EINVAL, ERR_BAD_REQUEST,
		               "filesystem.mount: expected a string of at most %d bytes "
		               "(\"noatime,logbufs=8\")",
		               FS_MOUNT_MAX - 1);
	fs = xcalloc(1, sizeof(*fs));
	rc = fs_type_parse(json_string_value(type), &fs->type, e);
	json_array_foreach(mkfs, i, t)
	{
		if (rc)
			break;
		if (!json_is_string(t) || json_string_length(t) >= FS_TOKEN_MAX ||
		    strlen(json_string_value(t)) != json_string_length(t))
			rc = err_set(e, -EINVAL, ERR_BAD_REQUEST,
			             "filesystem.mkfs[%zu]: expected a string of at most %d bytes",
			             i, FS_TOKEN_MAX - 1);
		else
			snprintf(fs->mkfs[fs->n_mkfs++], FS_TOKEN_MAX, "%s", json_string_value(t));
	}
	if (mount)
		snprintf(fs->mount, sizeof(fs->mount), "%s", json_string_value(mount));
	if (rc) {
		free(fs);
		return rc;
	}
	out->fs = fs;
	return 0;
}

json_t *wire_fs_spec_to_json(const struct fs_spec *fs)
{
	json_t *mkfs = json_array();
	int i;

	for (i = 0; i < fs->n_mkfs; i++)
		json_array_append_new(mkfs, json_string(fs->mkfs[i]));
	return json_pack("{s:s,s:o,s:s}", "type", fs_type_name(fs->type), "mkfs", mkfs, "mount",
	                 fs->mount);
}

/* "fio_file": the text of an fio job file, for engine fio instead of a "fio" object. Parsed
 * and checked here (fiofile_parse, 400); where it runs, and fio's own parse, by job_check. */
static int fio_file_from_json(const json_t *v, const json_t *body, struct job_spec *out,
                              struct err *e)
{
	int rc;

	if (!json_is_string(v))
		return err_set(e, -EINVAL, ERR_BAD_REQUEST,
		               "fio_file: expected the text of an fio job file (a string)");
	if (out->engine != &fio_engine)
		return err_set(e, -EINVAL, ERR_BAD_REQUEST, "fio_file: only with engine fio");
	if (json_object_get(body, "fio"))
		return err_set(e, -EINVAL, ERR_BAD_REQUEST,
		               "fio_file: give fio options (\"fio\") or a job file (\"fio_file\"), "
		               "not both");
	if (json_object_get(body, "workloads"))
		return err_set(e, -EINVAL, ERR_BAD_REQUEST,
		               "fio_file: give workloads or a job file (its sections), not both");
	rc = fiofile_parse(json_string_value(v), json_string_length(v), &out->fio_file, e);
	if (rc)
		return rc;
	out->opts.fio.file = out->fio_file;
	out->opts.given[ENGINE_FIO] = true;
	return 0;
}

/* ---- a job's workloads (fio sections) ---- */

/* 1..FIO_WORKLOAD_NAME_MAX bytes of [A-Za-z0-9 _.,:+-], not starting with a space. */
static bool workload_name_ok(const json_t *v)
{
	const char *s = json_string_value(v), *p;
	size_t len = json_string_length(v);

	if (!s || len < 1 || len > FIO_WORKLOAD_NAME_MAX || strlen(s) != len || s[0] == ' ')
		return false;
	for (p = s; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || strchr(" _.,:+-", *p)))
			return false;
	return true;
}

/* "workloads[i] \"NAME\": " before e's message (a decoder's "fio.iodepth: ..."). */
static int workload_err(struct err *e, int rc, size_t i, const char *name)
{
	enum err_code code = e->code;
	char msg[sizeof(e->msg)];

	snprintf(msg, sizeof(msg), "%s", e->msg);
	return err_set(e, rc, code, "workloads[%zu] \"%s\": %s", i, name, msg);
}

/*
 * "workloads": 1..FIO_WORKLOADS_MAX objects {"name", "fio"}, engine fio only. Each "fio" object
 * is decoded by the job's "fio" rules on its own (own) and over the job's "fio" object, its
 * keys winning (fio, what the section runs). The per-section rules (fio.check) are the job
 * layer's, as for a plain job.
 */
static int workloads_from_json(const json_t *body, const json_t *v, struct job_spec *out,
                               struct err *e)
{
	static const char *const keys[] = { "name", "fio", NULL };
	const json_t *base = json_object_get(body, "fio"), *w, *name, *fio;
	struct engine_opts tmp;
	char path[32];
	json_t *merged;
	size_t i, k;
	int rc;

	if (out->engine != &fio_engine)
		return err_set(e, -EINVAL, ERR_BAD_REQUEST,
		               "workloads: only with engine fio (the sections of one fio run)");
	if (!json_is_array(v) || json_array_size(v) < 1 || json_array_size(v) > FIO_WORKLOADS_MAX)
		return err_set(e, -EINVAL, ERR_BAD_REQUEST,
		               "workloads: expected an array of 1..%d objects {\"name\", \"fio\"}",
		               FIO_WORKLOADS_MAX);
	out->opts.workloads = xcalloc(json_array_size(v), sizeof(*out->opts.workloads));
	json_array_foreach(v, i, w)
	{
		struct fio_workload *wl = &out->opts.workloads[i];

		snprintf(path, sizeof(path), "workloads[%zu]", i);
		if (!json_is_object(w))
			return err_set(e, -EINVAL, ERR_BAD_REQUEST,
			               "%s: expected an object {\"name\", \"fio\"}", path);
		rc = wire_keys_check(w, keys, path, e);
		if (rc)
			return rc;
		name = json_object_get(w, "name");
		if (!workload_name_ok(name))
			return err_set(e, -EINVAL, ERR_BAD_REQUEST,
			               "%s.name: required, 1..%d characters of A-Za-z0-9 and "
			               "\" _.,:+-\", not starting with a space",
			               path, FIO_WORKLOAD_NAME_MAX);
		snprintf(wl->name, sizeof(wl->name), "%s", json_string_value(name));
		for (k = 0; k < i; k++)
			if (!strcmp(out->opts.workloads[k].name, wl->name))
				return err_set(e, -EINVAL, ERR_BAD_REQUEST,
				               "%s.name: \"%s\" is workloads[%zu]'s name too; a "
				               "job's workload names are unique",
				               path, wl->name, k);
		fio = json_object_get(w, "fio");
		engine_opts_init(&tmp);
		rc = wire_engine_opts_from_json(&fio_engine, fio, &tmp, e);
		if (rc)
			return workload_err(e, rc, i, wl->name);
		wl->own = tmp.fio;
		merged = json_is_object(base) ? json_deep_copy(base) : json_object();
		if (fio)
			json_object_update(merged, (json_t *)fio);
		rc = wire_engine_opts_from_json(&fio_engine, merged, &tmp, e);
		json_decref(merged);
		if (rc)
			return workload_err(e, rc, i, wl->name);
		wl->fio = tmp.fio;
		out->opts.n_workloads++;
	}
	return 0;
}

/* [{"name", "fio": its own keys}] in the job's order. */
static json_t *workloads_to_json(const struct engine_opts *o)
{
	json_t *arr = json_array();
	struct engine_opts tmp;
	int i;

	for (i = 0; i < o->n_workloads; i++) {
		engine_opts_init(&tmp);
		tmp.fio = o->workloads[i].own;
		json_array_append_new(arr,
		                      json_pack("{s:s,s:o}", "name", o->workloads[i].name, "fio",
		                                wire_engine_opts_to_json(&fio_engine, &tmp)));
	}
	return arr;
}

int wire_job_spec_from_json(const json_t *body, struct job_spec *out, struct err *e)
{
	const struct jread jr = { e, ERR_BAD_REQUEST };
	bool restore = true;
	json_t *v;
	int rc, id;

	job_spec_init(out);
	if (!json_is_object(body))
		return err_set(e, -EINVAL, ERR_BAD_JSON, "request body must be a JSON object");
	rc = wire_keys_check(body, wire_job_keys, NULL, e);
	if (!rc)
		rc = spec_fields(body, out, e);
	/* Every engine object given must be valid, even those not selected. */
	for (id = 0; !rc && id < ENGINE_COUNT; id++) {
		const struct engine *eng = engine_by_id(id);

		rc = wire_engine_opts_from_json(eng, json_object_get(body, eng->name), &out->opts,
		                                e);
	}
	if (!rc && (v = json_object_get(body, "workloads")))
		rc = workloads_from_json(body, v, out, e);
	if (!rc && (v = json_object_get(body, "labels")))
		rc = labels_from_json(v, out, e);
	if (!rc && (v = json_object_get(body, "params")))
		rc = wire_params_from_json(v, 0, &out->params, e);
	if (!rc && (rc = jread_bool(&jr, body, "", "params_restore", 0, &restore)) == 1) {
		if (!restore && !out->params.n)
			rc = err_set(e, -EINVAL, ERR_BAD_REQUEST,
			             "params_restore: false needs params (there is nothing to "
			             "leave set)");
		else
			rc = 0;
		out->params_keep = !rc && !restore;
	}
	if (!rc && (v = json_object_get(body, "filesystem")))
		rc = filesystem_from_json(v, out, e);
	if (!rc && (v = json_object_get(body, "fio_file")))
		rc = fio_file_from_json(v, body, out, e);
	if (!rc && (v = json_object_get(body, "start_at"))) {
		/* How far ahead it may be is the job layer's check (it has the clock). */
		if (!json_is_string(v) || time_parse_iso(json_string_value(v), &out->start_at) ||
		    !(out->start_at > 0))
			rc = err_set(e, -EINVAL, ERR_BAD_REQUEST,
			             "start_at: expected an ISO-8601 UTC time "
			             "\"2026-12-01T09:06:40.250Z\" (the agent's clock)");
	}
	if (rc)
		job_spec_release(out);
	return rc;
}

json_t *wire_labels_to_json(const struct job_spec *s)
{
	json_t *o = json_object();
	int i;

	for (i = 0; i < s->n_labels; i++)
		json_object_set_new(o, s->labels[i].key, json_string(s->labels[i].value));
	return o;
}

json_t *wire_job_spec_to_json(const struct job_spec *s)
{
	json_t *o = json_object();
	int id;

	json_object_set_new(o, "device", json_string(s->device));
	json_object_set_new(o, "engine", json_string(s->engine ? s->engine->name : ""));
	json_object_set_new(o, "loops", json_integer(s->loops));
	for (id = 0; id < ENGINE_COUNT; id++) {
		const struct engine *eng = engine_by_id(id);

		if (eng == &fio_engine && s->fio_file)
			json_object_set_new(o, "fio_file", json_string(s->fio_file->text));
		else if (s->opts.given[id] || eng == s->engine)
			json_object_set_new(o, eng->name, wire_engine_opts_to_json(eng, &s->opts));
	}
	if (s->opts.n_workloads)
		json_object_set_new(o, "workloads", workloads_to_json(&s->opts));
	json_object_set_new(o, "labels", wire_labels_to_json(s));
	if (s->params.n)
		json_object_set_new(o, "params", wire_params_to_json(&s->params));
	if (s->params_keep)
		json_object_set_new(o, "params_restore", json_false());
	if (s->directory)
		json_object_set_new(o, "directory", json_string(s->directory));
	if (s->fs)
		json_object_set_new(o, "filesystem", wire_fs_spec_to_json(s->fs));
	if (s->start_at > 0) {
		char at[40];

		time_fmt_iso_ms(s->start_at, at, sizeof(at));
		json_object_set_new(o, "start_at", json_string(at));
	}
	return o;
}

/* ---- database columns ---- */

char *wire_job_spec_encode(const struct job_spec *s)
{
	return wire_dump(wire_job_spec_to_json(s), JSON_SORT_KEYS);
}

int wire_job_spec_decode(const char *text, struct job_spec *out, struct err *e)
{
	json_error_t jerr;
	json_t *o = json_loads(text ? text : "", JSON_REJECT_DUPLICATES, &jerr);
	int rc;

	if (!o) {
		job_spec_init(out);
		return err_set(e, -EINVAL, ERR_INTERNAL, "unreadable job spec: %s", jerr.text);
	}
	rc = wire_job_spec_from_json(o, out, e);
	json_decref(o);
	return rc;
}

char *wire_labels_encode(const struct job_spec *s)
{
	return wire_dump(wire_labels_to_json(s), JSON_SORT_KEYS);
}

char *wire_snapshot_encode(const struct tune_snapshot *s)
{
	json_t *o = json_object();
	int i;

	for (i = 0; i < s->n; i++)
		json_object_set_new(o, s->items[i].name, json_string(s->items[i].previous));
	return wire_dump(o, JSON_SORT_KEYS);
}

int wire_snapshot_decode(const char *dev, const char *text, struct tune_snapshot *out,
                         struct err *e)
{
	json_error_t jerr;
	const char *key;
	json_t *o, *v;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	snprintf(out->device, sizeof(out->device), "%s", dev);
	o = json_loads(text ? text : "", 0, &jerr);
	if (!json_is_object(o)) {
		rc = err_set(e, -EINVAL, ERR_INTERNAL, "corrupt snapshot for '%s': %s", dev,
		             o ? "not an object" : jerr.text);
		goto out;
	}
	out->items = xcalloc(json_object_size(o) + 1, sizeof(*out->items));
	json_object_foreach(o, key, v)
	{
		struct tune_item *it;

		if (!json_is_string(v))
			continue;
		it = &out->items[out->n++];
		snprintf(it->name, sizeof(it->name), "%s", key);
		snprintf(it->previous, sizeof(it->previous), "%s", json_string_value(v));
	}
out:
	json_decref(o);
	return rc;
}
