/* jread.h -- one strict reader of JSON members, for both binaries (the controller's plan and
 * agents' answers, the agent's request bodies): a member of an object by type, required or
 * optional, each error naming the member by its path in the document. */
#ifndef FT_JREAD_H
#define FT_JREAD_H

#include <jansson.h>
#include <stdbool.h>

#include "err.h"

/* Where errors go: e (may be NULL) with code (ERR_INVALID_PLAN, ERR_BAD_REQUEST, ...). */
struct jread {
	struct err *e;
	enum err_code code;
};

enum {
	JREAD_REQUIRED = 1 << 0, /* absent: "PATH.key: required field is missing" */
	JREAD_NONEMPTY = 1 << 1, /* a string: "" is "PATH.key: must not be empty" */
};

/*
 * obj[key] (obj NULL: absent) of one type, with flags. path names obj ("" for the top, else
 * "nodes[2]"), so that an error reads "nodes[2].port: expected an integer 1..65535". Each
 * returns 1 with *out set when the member is there, 0 when it is absent and not required
 * (*out untouched), or -EINVAL with the error filled. A wrong type is "expected a string",
 * "expected an integer" (with its range when min..max is narrower than json_int_t's),
 * "expected a number", "expected true or false", "expected an object", "expected an array".
 * Strings are borrowed from obj; an integer is not a number's whole value (3.0 is refused).
 */
int jread_str(const struct jread *r, const json_t *obj, const char *path, const char *key,
              int flags, const char **out);
int jread_int(const struct jread *r, const json_t *obj, const char *path, const char *key,
              int flags, json_int_t min, json_int_t max, json_int_t *out);
int jread_num(const struct jread *r, const json_t *obj, const char *path, const char *key,
              int flags, double *out);
int jread_bool(const struct jread *r, const json_t *obj, const char *path, const char *key,
               int flags, bool *out);
int jread_obj(const struct jread *r, const json_t *obj, const char *path, const char *key,
              int flags, json_t **out);
int jread_arr(const struct jread *r, const json_t *obj, const char *path, const char *key,
              int flags, json_t **out);

/* "path.key" (or "key" when path is ""), the name the errors above give, into out[len]. */
void jread_path(const char *path, const char *key, char *out, size_t len);

/* The lenient reads of an answer a peer gave, where a missing member is no error: obj[key]
 * when it is a string, else "" (obj may be NULL). */
const char *jread_text(const json_t *obj, const char *key);
/* The member a dotted path names ("metadata.name"; at most 63 bytes a step), or NULL. */
json_t *jread_at(const json_t *obj, const char *dotted);

#endif
