/* catalogue.c -- what fleettune knows of each parameter beyond what the kernel file says:
 * the queue/ catalogue (kinds, units, bounds, choices), each scheduler's iosched attributes and
 * their units, and the sysctl catalogue. It opens nothing: reading and writing are sysfs.c's. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "device/catalogue.h"
#include "banned.h"

const struct param_meta catalogue_queue[] = {
	{ "scheduler", PARAM_SCHED, NULL, false, false, 0, 0, NULL, NULL },
	{ "nr_requests", PARAM_INT, "requests", true, false, 4, 0, NULL, NULL },
	{ "read_ahead_kb", PARAM_INT, "KiB", true, false, 0, 0, NULL, NULL },
	{ "max_sectors_kb", PARAM_INT, "KiB", true, false, 4, 0, NULL, "max_hw_sectors_kb" },
	{ "max_hw_sectors_kb", PARAM_INT, "KiB", false, false, 0, 0, NULL, NULL },
	{ "rq_affinity", PARAM_ENUM, NULL, false, false, 0, 0, "0|1|2", NULL },
	{ "nomerges", PARAM_ENUM, NULL, false, false, 0, 0, "0|1|2", NULL },
	{ "rotational", PARAM_ENUM, NULL, false, false, 0, 0, "0|1", NULL },
	{ "add_random", PARAM_ENUM, NULL, false, false, 0, 0, "0|1", NULL },
	{ "iostats", PARAM_ENUM, NULL, false, false, 0, 0, "0|1", NULL },
	{ "iostats_passthrough", PARAM_ENUM, NULL, false, false, 0, 0, "0|1", NULL },
	{ "stable_writes", PARAM_ENUM, NULL, false, false, 0, 0, "0|1", NULL },
	{ "io_poll", PARAM_ENUM, NULL, false, false, 0, 0, "0|1", NULL },
	{ "io_poll_delay", PARAM_INT, "us", true, false, -1, 0, NULL, NULL },
	{ "io_timeout", PARAM_INT, "ms", true, false, 1, 0, NULL, NULL },
	{ "wbt_lat_usec", PARAM_INT, "us", true, false, -1, 0, NULL, NULL },
	{ "write_cache", PARAM_ENUM, NULL, false, false, 0, 0, "write back|write through", NULL },
	{ "discard_max_bytes", PARAM_INT, "bytes", true, false, 0, 0, NULL,
	  "discard_max_hw_bytes" },
	{ "logical_block_size", PARAM_INT, "bytes", false, false, 0, 0, NULL, NULL },
	{ "physical_block_size", PARAM_INT, "bytes", false, false, 0, 0, NULL, NULL },
	{ "hw_sector_size", PARAM_INT, "bytes", false, false, 0, 0, NULL, NULL },
	{ "minimum_io_size", PARAM_INT, "bytes", false, false, 0, 0, NULL, NULL },
	{ "optimal_io_size", PARAM_INT, "bytes", false, false, 0, 0, NULL, NULL },
	{ "max_segment_size", PARAM_INT, "bytes", false, false, 0, 0, NULL, NULL },
	{ "queue_depth", PARAM_INT, "requests", true, false, 1, 0, NULL, NULL },
	{ "setra", PARAM_INT, "sectors", true, false, 0, 0, NULL, NULL },
};
const size_t catalogue_queue_n = N_ELEM(catalogue_queue);

/* The attributes each scheduler has under queue/iosched (Linux 5.15 to 6.18; the union where
 * they differ), so that a PATCH switching schedulers can refuse a name the new one lacks
 * before anything is written. A name the kernel turns out not to have is still caught after
 * the switch (and rolled back). */
static const struct {
	const char *sched;
	const char *attrs; /* '|'-separated */
} iosched_catalogue[] = {
	{ "none", "" },
	{ "mq-deadline", "async_depth|fifo_batch|front_merges|prio_aging_expire|read_expire|"
	                 "write_expire|writes_starved" },
	{ "kyber", "read_lat_nsec|write_lat_nsec" },
	{ "bfq", "back_seek_max|back_seek_penalty|fifo_expire_async|fifo_expire_sync|"
	         "low_latency|max_budget|slice_idle|slice_idle_us|strict_guarantees|"
	         "timeout_sync" },
};

int catalogue_iosched_attr_known(const char *sched, const char *attr, char *list, size_t list_len)
{
	size_t i, n = strlen(attr);
	const char *p, *bar;

	if (list_len)
		list[0] = '\0';
	for (i = 0; i < N_ELEM(iosched_catalogue); i++) {
		if (strcmp(iosched_catalogue[i].sched, sched))
			continue;
		for (p = iosched_catalogue[i].attrs; *p; p = *bar ? bar + 1 : bar) {
			bar = strchr(p, '|');
			if (!bar)
				bar = p + strlen(p);
			if ((size_t)(bar - p) == n && !strncmp(p, attr, n))
				return 1;
		}
		if (list_len) {
			const char *a = iosched_catalogue[i].attrs;
			size_t k;

			snprintf(list, list_len, "%s", *a ? a : "none");
			for (k = 0; list[k]; k++)
				if (list[k] == '|')
					list[k] = ' ';
		}
		return 0;
	}
	return -ENOENT;
}

/* iosched attributes: all integers; units by name. */
static const struct {
	const char *suffix;
	const char *unit;
} iosched_units[] = {
	{ "_expire", "ms" },
	{ "_usec", "us" },
	{ "_us", "us" },
	{ "_nsec", "ns" },
	{ "slice_idle", "ms" },
	{ "timeout_sync", "ms" },
	{ "back_seek_max", "KiB" },
	{ "fifo_batch", "requests" },
	{ "async_depth", "requests" },
	{ "_async", "ms" },
	{ "_sync", "ms" },
};

/* Seed 000's knobs. */
const struct sysctl_meta catalogue_sysctl[] = {
	{ "vm.dirty_ratio", "proc/sys/vm/dirty_ratio", 0, 100, "%" },
	{ "vm.dirty_background_ratio", "proc/sys/vm/dirty_background_ratio", 0, 100, "%" },
	{ "vm.dirty_bytes", "proc/sys/vm/dirty_bytes", 0, -1, "bytes" },
	{ "vm.dirty_background_bytes", "proc/sys/vm/dirty_background_bytes", 0, -1, "bytes" },
	{ "vm.dirty_expire_centisecs", "proc/sys/vm/dirty_expire_centisecs", 0, -1, "cs" },
	{ "vm.dirty_writeback_centisecs", "proc/sys/vm/dirty_writeback_centisecs", 0, -1, "cs" },
	{ "vm.swappiness", "proc/sys/vm/swappiness", 0, 200, NULL },
	{ "vm.vfs_cache_pressure", "proc/sys/vm/vfs_cache_pressure", 0, -1, NULL },
	{ "vm.overcommit_ratio", "proc/sys/vm/overcommit_ratio", 0, -1, "%" },
	{ "fs.file-max", "proc/sys/fs/file-max", 0, -1, "files" },
};
const size_t catalogue_sysctl_n = N_ELEM(catalogue_sysctl);

const struct param_meta *catalogue_queue_find(const char *name)
{
	size_t i;

	for (i = 0; i < N_ELEM(catalogue_queue); i++)
		if (!strcmp(catalogue_queue[i].name, name))
			return &catalogue_queue[i];
	return NULL;
}

const struct sysctl_meta *catalogue_sysctl_find(const char *name)
{
	size_t i;

	for (i = 0; i < N_ELEM(catalogue_sysctl); i++)
		if (!strcmp(catalogue_sysctl[i].name, name))
			return &catalogue_sysctl[i];
	return NULL;
}

const char *catalogue_iosched_unit(const char *attr)
{
	size_t i, al = strlen(attr);

	for (i = 0; i < N_ELEM(iosched_units); i++) {
		const char *suf = iosched_units[i].suffix;
		size_t sl = strlen(suf);

		if (suf[0] == '_' ? (al >= sl && !strcmp(attr + al - sl, suf)) : !strcmp(attr, suf))
			return iosched_units[i].unit;
	}
	return NULL;
}
