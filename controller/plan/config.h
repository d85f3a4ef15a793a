/* config.h -- a configuration: parameter names and their values (integers or strings), set
 * together on a device; and its JSON codec. */
#ifndef FT_CONFIG_H
#define FT_CONFIG_H

#include <stdbool.h>

#include "buf.h"
#include "err.h"

#define CONFIG_MAX 16       /* parameters in one configuration */
#define PARAM_NAME_MAX 64   /* bytes, including NUL */
#define PARAM_VALUE_MAX 160 /* bytes, including NUL: an fs.mkfs line fits */

/* One parameter value. Integers are kept as their decimal text with is_int set. */
struct setting {
	char name[PARAM_NAME_MAX];
	char value[PARAM_VALUE_MAX];
	bool is_int;
};

/* A set of parameter values, in insertion order, names unique. */
struct config {
	int n;
	struct setting s[CONFIG_MAX];
};

/* Set name=value (replacing an existing entry). Returns 0 or -ENOSPC/-ENAMETOOLONG. */
int config_set(struct config *c, const char *name, const char *value, bool is_int);
/* The entry for name, or NULL. */
const struct setting *config_get(const struct config *c, const char *name);
/* Set every entry of src into dst. */
void config_merge(struct config *dst, const struct config *src);
/* True when both hold the same names with the same values (order ignored). */
bool config_equal(const struct config *a, const struct config *b);
/* Append "name=value name=value" to out. */
void config_format(const struct config *c, struct buf *out);
/* cfg as a JSON object, integers as numbers ({"nr_requests":128,"scheduler":"none"}).
 * Caller has ownership. */
char *config_to_json(const struct config *cfg);
/* The same as a jansson value (a new reference), for the JSON layers that build documents;
 * and one setting's value (an integer as a number). */
struct json_t *config_json_new(const struct config *cfg);
struct json_t *setting_json_new(const struct setting *st);
/* Parse a JSON object of integer or string values into cfg. Errors name the key. */
int config_parse_json(const char *text, struct config *cfg, struct err *e);
/* Refuse what no device takes and no output can show as it is: a name other than letters,
 * digits, '_' and '.', an empty string value, a control character in a value. For values
 * given on the command line (--params); what was stored is read back without it. */
int config_check(const struct config *cfg, struct err *e);
/* A JSON scalar (an agent's answer) as parameter text into out; false when it is neither a
 * number nor a string. */
bool config_value_text(struct json_t *v, char *out, size_t len, bool *is_int);

#endif
