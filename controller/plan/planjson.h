/* planjson.h -- the plan parser's state (which plan_parse.c and plan_nodes.c share), its error
 * macro, and the plan's own checks of keys and names; members are read with common/jread
 * (ps->jr), whose errors name the path. Not for other modules. */
#ifndef FT_PLANJSON_H
#define FT_PLANJSON_H

#include <jansson.h>
#include <stdbool.h>

#include "jread.h"
#include "plan/plan.h"

/* Type of a parameter as first seen: 1 integer, 2 string. */
struct ptype {
	char name[PARAM_NAME_MAX];
	int type;
};

struct parser {
	struct plan *p;
	struct err *e;
	struct jread jr;        /* e with "invalid_plan": the JSON reader's errors (common/jread) */
	const char *nodes_from; /* a node list that replaces the plan's nodes (NULL: none) */
	const char *dir;        /* the plan file's directory (NULL: a plan given as text) */
	struct ptype types[64];
	int ntypes;
};

/* Report "PATH: message" as an invalid_plan error. */
#define fail(ps, path, ...) err_set_at((ps)->e, -EINVAL, ERR_INVALID_PLAN, (path), __VA_ARGS__)

/* Whether key is one of allowed (NULL-terminated). */
bool planjson_key_allowed(const char *key, const char *const *allowed);
/* Refuse keys of obj not in allowed (NULL-terminated); path names obj. */
int planjson_check_keys(struct parser *ps, json_t *obj, const char *path,
                        const char *const *allowed);
/* Letters, digits, '_' and the characters of extra, 1..PARAM_NAME_MAX - 1 bytes. */
bool planjson_name_ok(const char *s, const char *extra);
/* Whether s has a byte below 0x20 or 0x7f (names and labels go into reports and exported
 * rules, where a line break would start a rule of its own). */
bool planjson_has_control(const char *s);

#endif
