/* fuzz_nodelist.c -- libFuzzer harness for the node-list readers (nodelist.c, nodelist_inv.c,
 * nodelist_kube.c, nodelist_yaml.c): hosts files, Ansible INI and YAML inventories, kubectl's
 * pod JSON. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "plan/nodelist.h"
#include "plan/nodelist_read.h"
#include "xmalloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The first byte picks the options (a default device or none, a group or none); the rest is
 * the file. A refused list names why; every node of an accepted one has a name, URL, device. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nodelist_opts o = { 0 };
	struct nodelist l;
	struct err e;
	char *text;
	int i;

	if (size < 1)
		return 0;
	o.device = data[0] & 1 ? "sdb" : NULL;
	o.group = data[0] & 2 ? "storage" : NULL;
	o.port = data[0] & 4 ? 7443 : 0;
	text = xmalloc(size);
	memcpy(text, data + 1, size - 1);
	text[size - 1] = '\0';
	err_clear(&e);
	if (nodelist_parse(text, "fuzz", "/nonexistent", &o, &l, &e) == 0) {
		for (i = 0; i < l.n; i++)
			if (!l.nodes[i].name || !l.nodes[i].url || !l.nodes[i].device)
				abort();
		nodelist_release(&l);
	} else if (!e.msg[0] || l.n) {
		abort();
	}
	free(text);
	return 0;
}
