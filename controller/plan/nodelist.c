/* nodelist.c -- a node list as the readers make it: its formats by name, node entries added,
 * devices and urls as written, and its release. The readers are nodelist_read.c's. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/nodelist.h"
#include "plan/nodelist_priv.h"
#include "xmalloc.h"
#include "banned.h"

static const char *const format_names[] = {
	[NODELIST_AUTO] = "auto",
	[NODELIST_HOSTS] = "hosts",
	[NODELIST_ANSIBLE_INI] = "ansible-ini",
	[NODELIST_ANSIBLE_YAML] = "ansible-yaml",
	[NODELIST_KUBECTL] = "kubectl",
};

const char *nodelist_format_name(enum nodelist_format f)
{
	return (unsigned)f < sizeof(format_names) / sizeof(format_names[0]) ? format_names[f] : "?";
}

int nodelist_format_parse(const char *s, enum nodelist_format *f)
{
	size_t i;

	for (i = 0; i < sizeof(format_names) / sizeof(format_names[0]); i++)
		if (!strcmp(s, format_names[i])) {
			*f = (enum nodelist_format)i;
			return 0;
		}
	return -EINVAL;
}

char *nodelist_url_make(const char *scheme, const char *host, const char *port)
{
	bool v6 = strchr(host, ':') && host[0] != '[';

	return xasprintf("%s://%s%s%s:%s", scheme, v6 ? "[" : "", host, v6 ? "]" : "", port);
}

void nodelist_node_add(struct nodelist *l, int *cap, char *name, char *url, char *device,
                       char *token_file, int line)
{
	struct nodelist_node *n;

	l->nodes = xgrow(l->nodes, cap, l->n + 1, sizeof(*l->nodes));
	n = &l->nodes[l->n++];
	n->name = name;
	n->url = url;
	n->device = device;
	n->token_file = token_file;
	n->line = line;
	n->labels = NULL;
	n->nlabels = 0;
}

/* A device as written ("sdb", "/dev/sdb"), without /dev/. */
char *nodelist_device_take(const char *s)
{
	return xstrdup(strncmp(s, "/dev/", 5) ? s : s + 5);
}

void nodelist_release(struct nodelist *l)
{
	int i;

	for (i = 0; i < l->n; i++) {
		free(l->nodes[i].name);
		free(l->nodes[i].url);
		free(l->nodes[i].device);
		free(l->nodes[i].token_file);
		for (int k = 0; k < l->nodes[i].nlabels; k++) {
			free(l->nodes[i].labels[k].key);
			free(l->nodes[i].labels[k].value);
		}
		free(l->nodes[i].labels);
	}
	free(l->nodes);
	l->nodes = NULL;
	l->n = 0;
}
