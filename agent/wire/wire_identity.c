/* wire_identity.c -- a device's and its host's identity as JSON: for GET /devices, a job's
 * "identity" member and its database column. Only present fields are written, under the
 * names of common/protocol.h. */
#include <string.h>

#include "protocol.h"
#include "wire/wire.h"
#include "banned.h"

static void text_set(json_t *o, const char *name, const char *v)
{
	if (v && v[0])
		json_object_set_new(o, name, json_string(v));
}

json_t *wire_device_identity_to_json(const struct device_identity *d)
{
	json_t *o = json_object();

	text_set(o, identity_field_names[IDF_VENDOR], d->vendor);
	text_set(o, identity_field_names[IDF_MODEL], d->model);
	text_set(o, identity_field_names[IDF_FIRMWARE], d->firmware);
	text_set(o, identity_field_names[IDF_SERIAL], d->serial);
	text_set(o, identity_field_names[IDF_WWID], d->wwid);
	text_set(o, identity_field_names[IDF_TRANSPORT], d->transport);
	if (d->has_rotational)
		json_object_set_new(o, identity_field_names[IDF_ROTATIONAL],
		                    json_boolean(d->rotational));
	if (d->logical_block_bytes)
		json_object_set_new(o, identity_field_names[IDF_LOGICAL_BLOCK_BYTES],
		                    json_integer((json_int_t)d->logical_block_bytes));
	if (d->physical_block_bytes)
		json_object_set_new(o, identity_field_names[IDF_PHYSICAL_BLOCK_BYTES],
		                    json_integer((json_int_t)d->physical_block_bytes));
	if (d->has_size)
		json_object_set_new(o, identity_field_names[IDF_SIZE_BYTES],
		                    json_integer((json_int_t)d->size_bytes));
	return o;
}

json_t *wire_host_identity_to_json(const struct host_identity *h)
{
	json_t *o = json_object();

	text_set(o, identity_field_names[IDF_KERNEL], h->kernel);
	text_set(o, identity_field_names[IDF_MACHINE], h->machine);
	text_set(o, identity_field_names[IDF_HOSTNAME], h->hostname);
	return o;
}

char *wire_identity_encode(const struct device_identity *d, const struct host_identity *h)
{
	return wire_dump(json_pack("{s:o,s:o}", "device", wire_device_identity_to_json(d), "host",
	                           wire_host_identity_to_json(h)),
	                 JSON_PRESERVE_ORDER);
}

json_t *wire_identity_decode(const char *text)
{
	json_t *o = text ? json_loads(text, 0, NULL) : NULL;

	if (o && json_is_object(o))
		return o;
	json_decref(o);
	return json_null();
}
