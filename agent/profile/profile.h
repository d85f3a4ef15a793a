/* profile.h -- a profile the agent keeps: its name, which devices it matches (names or
 * patterns, and identity fields such as model and firmware once the agent reads them), the
 * values it holds, and whether drift is put back. Definitions and matching only: no I/O. */
#ifndef FT_PROFILE_H
#define FT_PROFILE_H

#include <stdbool.h>
#include <stddef.h>

#include "device/sysfs.h"
#include "device/tune.h"
#include "err.h"
#include "protocol.h" /* PROFILE_NAME_MAX, profile_name_ok */

#define PROFILE_DEVICES_MAX 32 /* names or patterns in match.devices */
#define PROFILE_VALUES_MAX 16  /* accepted values of one identity field */
#define PROFILE_VALUE_MAX 128  /* bytes of one identity value */

/*
 * The identity fields a match may name, in the order the API lists them. The agent matches
 * them through a profile_ident_source (the agent's: agent_ident_read); where none is wired
 * (read NULL), a match naming one is refused with "unsupported_match".
 */
enum profile_ident {
	IDENT_VENDOR,
	IDENT_MODEL,
	IDENT_FIRMWARE,
	IDENT_SERIAL,
	IDENT_WWID,
	IDENT_TRANSPORT,
	IDENT_COUNT,
};
extern const char *const profile_ident_names[IDENT_COUNT];

/* Where a device's identity comes from: read() gives 0 with out filled, or -ENOENT when dev
 * does not report field. read NULL: the agent reads no identity. */
struct profile_ident_source {
	int (*read)(void *cls, const char *dev, enum profile_ident field, char *out, size_t len);
	void *cls;
};

/* A device matches when it passes every part given: one of devices (exact names or fnmatch
 * patterns), and for each identity field given, one of its values (exact). */
struct profile_match {
	int n_devices;
	char devices[PROFILE_DEVICES_MAX][SYSFS_NAME_MAX];
	int n_values[IDENT_COUNT]; /* 0: the field is not part of the match */
	char values[IDENT_COUNT][PROFILE_VALUES_MAX][PROFILE_VALUE_MAX];
};

struct profile {
	char name[PROFILE_NAME_MAX];
	struct profile_match match;
	struct tune_set params;        /* owned: name and requested value of each held parameter */
	bool enforce;                  /* drift is put back (true) or only reported */
	double created_at, updated_at; /* epoch s */
};

void profile_init(struct profile *p);
void profile_release(struct profile *p);
/* dst (released first) becomes a deep copy of src. */
void profile_copy(struct profile *dst, const struct profile *src);

/* A match.devices entry with a glob character (* ? [) is a pattern. */
bool profile_is_pattern(const char *s);

/*
 * What a definition must be before any device is looked at: a safe name, a match with at
 * least one part, device entries that are safe names or patterns, identity fields only when
 * src reads identity ("unsupported_match"), at least one parameter, every name one the agent
 * could write (not setra and read_ahead_kb together), and iosched.* only with the scheduler
 * they belong to. Values are judged by the devices (tune_validate). -EINVAL "bad_request" or
 * "unsupported_match", naming the field.
 */
int profile_check(const struct profile *p, const struct profile_ident_source *src, struct err *e);

/* Whether dev matches p (identity read through src when the match names a field). */
bool profile_matches(const struct profile *p, const char *dev,
                     const struct profile_ident_source *src);
/* Whether dev is named in p's match.devices as an exact name (not through a pattern). */
bool profile_names(const struct profile *p, const char *dev);
/* The held parameter name of p, or NULL. setra and read_ahead_kb count as one. */
const struct tune_item *profile_param(const struct profile *p, const char *name);
/* The first parameter both a and b hold (setra and read_ahead_kb count as one) into name;
 * false when they hold none in common. */
bool profile_params_overlap(const struct profile *a, const struct profile *b, char *name,
                            size_t len);

#endif
