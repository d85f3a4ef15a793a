/* nodelist_read.h -- a node list read from its text (nodelist_read.c): hosts files, Ansible
 * inventories, kubectl's pod JSON. */
#ifndef FT_NODELIST_READ_H
#define FT_NODELIST_READ_H

#include "err.h"
#include "plan/nodelist.h"

/*
 * Read the nodes of text, the contents of file (named in errors: "hosts.txt:3: ..."; dir,
 * its directory, resolves relative token files, NULL: as given). Errors are -EINVAL
 * "invalid_nodes" and name the line: a line in none of the formats, a host without a device
 * and no default, a group that does not exist, a pod that is not Ready, an empty list.
 * On failure out is empty.
 */
int nodelist_parse(const char *text, const char *file, const char *dir,
                   const struct nodelist_opts *o, struct nodelist *out, struct err *e);

#endif
