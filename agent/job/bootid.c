/* bootid.c -- the kernel's boot id under the agent's root (bootid.h). */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "buf.h"
#include "job/bootid.h"
#include "banned.h"

void bootid_read(const char *root, char *out, size_t len)
{
	char path[PATH_MAX];

	if (!root || !*root)
		root = "/";
	snprintf(path, sizeof(path), "%s%sproc/sys/kernel/random/boot_id", root,
	         root[strlen(root) - 1] == '/' ? "" : "/");
	buf_read_line(path, out, len);
}
