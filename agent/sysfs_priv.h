/* sysfs_priv.h -- what sysfs.c (reading and writing) takes from sysfs_catalogue.c (what is known
 * of each parameter): the catalogues and their look-ups. */
#ifndef FT_SYSFS_PRIV_H
#define FT_SYSFS_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sysfs.h"

#define N_ELEM(a) (sizeof(a) / sizeof((a)[0]))

/* What we know about a parameter beyond what the kernel file says. */
struct param_meta {
	const char *name;
	enum param_kind kind;
	const char *unit;
	bool has_min, has_max;
	int64_t min, max;
	const char *choices;  /* '|'-separated, for PARAM_ENUM */
	const char *max_from; /* queue/ file holding the upper bound */
};

/* A sysctl fleettune tunes: its name, its file under the root, bounds and unit. */
struct sysctl_meta {
	const char *name;
	const char *relpath;
	int64_t min, max; /* max < 0: unbounded */
	const char *unit;
};

/* The queue/ parameters with more known than their file says, and the sysctls (seed 000's
 * knobs); _n: how many. */
extern const struct param_meta sysfs_queue_catalogue[];
extern const size_t sysfs_queue_catalogue_n;
extern const struct sysctl_meta sysfs_sysctl_catalogue[];
extern const size_t sysfs_sysctl_catalogue_n;

/* The catalogue entry of queue parameter name, or NULL. */
const struct param_meta *sysfs_meta_find(const char *name);
/* The catalogue entry of sysctl name, or NULL. */
const struct sysctl_meta *sysfs_sysctl_find(const char *name);
/* The unit of iosched attribute attr, by its name, or NULL. */
const char *sysfs_iosched_unit(const char *attr);

#endif
