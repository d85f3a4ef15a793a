/* catalogue.h -- what fleettune knows of each parameter beyond what the kernel file says: the
 * kinds of parameter, the queue/, iosched and sysctl catalogues and their look-ups. It opens
 * nothing: reading and writing are sysfs.h's, which builds on it. */
#ifndef FT_CATALOGUE_H
#define FT_CATALOGUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define N_ELEM(a) (sizeof(a) / sizeof((a)[0]))

/* The kind of a parameter's value, which says how it is parsed and checked. */
enum param_kind {
	PARAM_INT,   /* plain decimal integer */
	PARAM_ENUM,  /* one of choices[] */
	PARAM_SCHED, /* the I/O scheduler: choices from the bracketed list */
	PARAM_TEXT,  /* anything else the kernel prints (read-only in practice) */
};

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
extern const struct param_meta catalogue_queue[];
extern const size_t catalogue_queue_n;
extern const struct sysctl_meta catalogue_sysctl[];
extern const size_t catalogue_sysctl_n;

/* The catalogue entry of queue parameter name, or NULL. */
const struct param_meta *catalogue_queue_find(const char *name);
/* The catalogue entry of sysctl name, or NULL. */
const struct sysctl_meta *catalogue_sysctl_find(const char *name);
/* The unit of iosched attribute attr, by its name, or NULL. */
const char *catalogue_iosched_unit(const char *attr);

/* Whether scheduler sched has the attribute attr (queue/iosched/ATTR, without "iosched."):
 * 1 yes, 0 no (list gets its attributes, space-separated, or "none"), -ENOENT when the
 * scheduler is not catalogued (nothing can be said before switching to it). */
int catalogue_iosched_attr_known(const char *sched, const char *attr, char *list, size_t list_len);

#endif
