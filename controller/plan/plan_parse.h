/* plan_parse.h -- a sweep plan read from its JSON (plan_parse.c): structure and values checked,
 * errors naming the JSON path. */
#ifndef FT_PLAN_PARSE_H
#define FT_PLAN_PARSE_H

#include "err.h"
#include "plan/plan.h"

/*
 * Parse and validate plan text. dir is the directory token_file and nodes_from paths are
 * resolved against (NULL: as given). The nodes are "nodes", then those of "nodes_from". Errors name
 * the JSON path, e.g. "axes[1].values[2]: expected an integer". Tokens are not read here. On
 * failure p is released.
 */
int plan_parse(const char *text, const char *dir, struct plan *p, struct err *e);
/* plan_parse, with the nodes of the node list file nodes_from (a hosts file, an Ansible
 * inventory, kubectl's pod JSON: nodelist.h) instead of the plan's "nodes" and "nodes_from"
 * file; the plan's "nodes_from" options (format, group, device, ...) still apply. NULL: the
 * plan's own. Errors in the list name its line ("hosts.txt:3: ..."). A plan whose nodes
 * come from a list keeps them written out in p->json. */
int plan_parse_nodes_from(const char *text, const char *dir, const char *nodes_from, struct plan *p,
                          struct err *e);
/* Read and parse a plan file; token_file is relative to the file's directory. */
int plan_load(const char *path, struct plan *p, struct err *e);
/* plan_load with plan_parse_nodes_from's nodes_from (relative to the current directory). */
int plan_load_nodes_from(const char *path, const char *nodes_from, struct plan *p, struct err *e);

#endif
