/* plan_priv.h -- what the plan's parser files share (plan.c, plan_nodes.c): the parser's state,
 * its error macro and helpers. Not for other modules. */
#ifndef FT_PLAN_PRIV_H
#define FT_PLAN_PRIV_H

#include <jansson.h>
#include <stdbool.h>

#include "plan/plan.h"

/* Type of a parameter as first seen: 1 integer, 2 string. */
struct ptype {
	char name[PARAM_NAME_MAX];
	int type;
};

struct parser {
	struct plan *p;
	struct err *e;
	const char *nodes_from; /* a node list that replaces the plan's nodes (NULL: none) */
	struct ptype types[64];
	int ntypes;
};

/* Report "PATH: message" as an invalid_plan error. */
#define fail(ps, path, ...) err_set_at((ps)->e, -EINVAL, "invalid_plan", (path), __VA_ARGS__)

/* Refuse keys of obj not in allowed (NULL-terminated); path names obj. */
int plan_check_keys(struct parser *ps, json_t *obj, const char *path, const char *const *allowed);
/* Letters, digits, '_' and the characters of extra, 1..PARAM_NAME_MAX - 1 bytes. */
bool plan_name_ok(const char *s, const char *extra);
/* A string member; required: error when missing. Returns 0/1 found, <0 error. */
int plan_get_str(struct parser *ps, json_t *obj, const char *key, const char *path, bool required,
                 const char **out);
/* Whether s has a byte below 0x20 or 0x7f (names and labels go into reports and exported
 * rules, where a line break would start a rule of its own). */
bool plan_has_control(const char *s);

/* plan_nodes.c: nodes[] (names, urls, devices, tokens, labels) into ps->p; the nodes of a node
 * list ("nodes_from", or ps->nodes_from) appended; all of them indexed by name (refusing a
 * name given twice); the nodes written back into the stored plan's JSON (a plan whose nodes
 * came from a list reads back without the file); an object of strings (labels,
 * nodes[i].labels) at where; cohort_by (after the nodes: it may name their labels); and the
 * labels' memory. */
int plan_parse_nodes(struct parser *ps, json_t *arr, const char *dir);
int plan_parse_node_list(struct parser *ps, json_t *v, const char *dir);
int plan_nodes_index(struct parser *ps);
void plan_nodes_json_set(json_t *root, const struct plan *p);
int plan_labels_take(struct parser *ps, json_t *v, const char *where, struct plan_label **out,
                     int *n);
int plan_parse_cohort_by(struct parser *ps, json_t *v);
void plan_labels_free(struct plan_label *l, int n);

#endif
