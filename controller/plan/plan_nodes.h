/* plan_nodes.h -- a plan's nodes (plan_nodes.c): parsed (names, urls, devices, tokens, labels)
 * or read from a node list, indexed by name, node sets, their tokens, and cohort_by. */
#ifndef FT_PLAN_NODES_H
#define FT_PLAN_NODES_H

#include <stdbool.h>

#include "err.h"
#include "plan/plan.h"
struct parser; /* planjson.h */

/* For the parser: nodes[] (names, urls, devices, tokens, labels) into ps->p; the nodes of a node
 * list ("nodes_from", or ps->nodes_from) appended; all of them indexed by name (refusing a
 * name given twice); the nodes written back into the stored plan's JSON (a plan whose nodes
 * came from a list reads back without the file); an object of strings (labels,
 * nodes[i].labels) at where; cohort_by (after the nodes: it may name their labels). */
int plan_parse_nodes(struct parser *ps, struct json_t *arr, const char *dir);
int plan_parse_node_list(struct parser *ps, struct json_t *v, const char *dir);
int plan_nodes_index(struct parser *ps);
/* Refuse a name given to two nodes of which one gives "devices" (its members are "name/dev"),
 * naming both: a host is one node, its devices listed once. */
int plan_nodes_hosts_check(struct parser *ps);
void plan_nodes_json_set(struct json_t *root, const struct plan *p);
int plan_labels_take(struct parser *ps, struct json_t *v, const char *where,
                     struct plan_label **out, int *n);
int plan_parse_cohort_by(struct parser *ps, struct json_t *v);

/* For everyone. */
/* Fill every node's token: "token" in the plan, else token_file, else $FLEETTUNE_TOKEN. */
int plan_tokens_load(struct plan *p, struct err *e);
/* Replace p's cohort_by with the comma-separated names of list ("model,firmware"; "" for
 * one cohort), checked as the plan's are. -EINVAL "bad_option" naming the name; p is left
 * as it was then. */
int plan_cohort_by_set(struct plan *p, const char *list, struct err *e);
/* The names of the nodes with set[i] as a JSON array. Caller has ownership. */
char *plan_node_set_to_json(const struct plan *p, const bool *set);
/* Set set[i] for every node named in the JSON array text (unknown names are ignored). */
int plan_node_set_parse(const struct plan *p, const char *text, bool *set, struct err *e);

#endif
