/* nodelist_priv.h -- what the node-list files share: the Ansible inventory model
 * (nodelist_inv.c) that nodelist.c (INI) and nodelist_yaml.c (YAML) fill, with groups, hosts,
 * variables and line numbers, and the node entries every reader adds (nodelist.c). */
#ifndef FT_NODELIST_PRIV_H
#define FT_NODELIST_PRIV_H

#include "err.h"
#include "plan/nodelist.h"

#define NODELIST_GROUPS_MAX 2000 /* groups in one inventory */
#define NODELIST_HOSTS_MAX 10000 /* hosts in one list (more is no sweep) */

struct inv_var {
	char *key;
	char *value; /* NULL: a value the reader does not understand (a list, a block) */
	int line;
};

struct inv_vars {
	int n, cap;
	struct inv_var *v;
};

struct inv_host {
	char *name;
	int line; /* first mention */
	struct inv_vars vars;
};

struct inv_group {
	char *name;
	int line;
	struct inv_vars vars;
	int nhosts, hcap;
	int *hosts; /* indexes into inventory.hosts */
	int nchildren, ccap;
	int *children; /* indexes into inventory.groups */
};

struct inventory {
	const char *file; /* for messages */
	int nhosts, hcap;
	struct inv_host *hosts;
	int *hslots, nslots; /* hash of host names: index + 1, 0 empty (open addressing) */
	int ngroups, gcap;
	struct inv_group *groups;
};

/* The group called name, made (at line) if new. Returns its index, or -1 when an inventory
 * has too many groups. */
int inv_group(struct inventory *inv, const char *name, int line);
/* The host called name, made if new, and a member of group g (-1: none). Returns its index. */
int inv_host(struct inventory *inv, const char *name, int line, int g);
/* Make child a child group of parent (once). */
void inv_child(struct inventory *inv, int parent, int child);
/* Set key to value (NULL: not understood) in vars, replacing an earlier value. */
void inv_var_set(struct inv_vars *vars, const char *key, const char *value, int line);
void inv_vars_release(struct inv_vars *vars);
/* The variable key in vars, or NULL. */
const struct inv_var *inv_vars_get(const struct inv_vars *vars, const char *key);
/* Expand a host pattern's ranges (web[01:03], db-[a:c], [0:10:2]) and add each host to group g
 * (with vars set from kv[0..nkv)). Returns 0 or -EINVAL (e: "FILE:LINE: ..."). */
int inv_hosts_add(struct inventory *inv, const char *pattern, int line, int g,
                  const struct inv_var *kv, int nkv, struct err *e);
void inv_release(struct inventory *inv);

/* "FILE:LINE: message" as an invalid_nodes error. */
int inv_fail(struct err *e, const char *file, int line, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));

/* Read a YAML Ansible inventory (nodelist_yaml.c). */
int inv_yaml_read(struct inventory *inv, const char *text, struct err *e);

/* "scheme://host:port", with an IPv6 host in brackets. Caller frees. */
char *nodelist_url_make(const char *scheme, const char *host, const char *port);
/* Append a node to l (cap: its capacity), taking ownership of the strings. */
void nodelist_node_add(struct nodelist *l, int *cap, char *name, char *url, char *device,
                       char *token_file, int line);
/* A device as written ("sdb", "/dev/sdb"), without /dev/. Caller frees. */
char *nodelist_device_take(const char *s);
/* Read kubectl get pods -o json into l (nodelist_kube.c). */
int nodelist_kubectl_read(const char *text, const char *file, const struct nodelist_opts *o,
                          struct nodelist *l, struct err *e);

#endif
