/* bootid.h -- the kernel's boot id, read under the agent's root (--sysfs-root): what tells a
 * record of this boot (its pids, its mounts) from one a reboot left. */
#ifndef FT_BOOTID_H
#define FT_BOOTID_H

#include <stddef.h>

/* ROOT/proc/sys/kernel/random/boot_id's first line into out[len] (root NULL or "/": the
 * machine's). Absent or unreadable (a test root without that file): "", so that records
 * made then carry an empty boot and an agent under the same root takes them for its own
 * boot's, as it takes its records under a real root. */
void bootid_read(const char *root, char *out, size_t len);

#endif
