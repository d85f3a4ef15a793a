/* nodelist.h -- a plan's nodes from the lists fleets already keep: a hosts file (fio's and
 * elbencho's host lists), an Ansible inventory (INI or YAML) and `kubectl get pods -o json`. */
#ifndef FT_NODELIST_H
#define FT_NODELIST_H

#include "err.h"

enum nodelist_format {
	NODELIST_AUTO, /* told apart by the text: JSON, YAML, INI, else a hosts file */
	NODELIST_HOSTS,
	NODELIST_ANSIBLE_INI,
	NODELIST_ANSIBLE_YAML,
	NODELIST_KUBECTL,
};

#define NODELIST_DEFAULT_PORT 7070

/* What a file may leave out, and which of its hosts to take. Every field may be 0/NULL. */
struct nodelist_opts {
	enum nodelist_format format;
	const char *group;      /* Ansible: the hosts of this group and its children (NULL: all) */
	const char *device;     /* for a host the file gives no device (NULL: that is an error) */
	const char *token_file; /* for a host the file gives no token file (used as given) */
	const char *scheme;     /* "http" (NULL) or "https", for hosts given without a URL */
	int port;               /* for hosts given without a port (0: NODELIST_DEFAULT_PORT) */
};

/* A node's label (Ansible's fleettune_label_KEY variables): what cohort_by may group by. */
struct nodelist_label {
	char *key, *value;
};

/* One node. Strings are owned by the list. */
struct nodelist_node {
	char *name;       /* the host's name (Ansible's inventory name, the pod's node) */
	char *url;        /* http(s)://HOST:PORT */
	char *device;     /* a block device name, without /dev/ */
	char *token_file; /* NULL: none given; a relative one from the file is resolved
	                     against its directory */
	int line;         /* where the file names the node (0: unknown) */
	struct nodelist_label *labels; /* Ansible only: in the order first set */
	int nlabels;
};

struct nodelist {
	enum nodelist_format format; /* the one the text was read as */
	int n;
	struct nodelist_node *nodes;
};

void nodelist_release(struct nodelist *l);
/* "hosts", "ansible-ini", "ansible-yaml", "kubectl" (and "auto"), as written in a plan. */
const char *nodelist_format_name(enum nodelist_format f);
/* The format called s; -EINVAL for none. */
int nodelist_format_parse(const char *s, enum nodelist_format *f);

#endif
