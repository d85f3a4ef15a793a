/* protocol.c -- the agent API's words: job states (which are final), identity fields, the
 * profile-name rule, profile device states and features. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "protocol.h"
#include "xmalloc.h"
#include "banned.h"

/* The index of name in a table of n words, or -1. */
static int word_find(const char *const *words, int n, const char *name)
{
	int i;

	for (i = 0; name && i < n; i++)
		if (!strcmp(words[i], name))
			return i;
	return -1;
}

const char *const job_state_names[JOB_N_STATES + 1] = {
	[JOB_QUEUED] = "queued", [JOB_RUNNING] = "running",     [JOB_SUCCEEDED] = "succeeded",
	[JOB_FAILED] = "failed", [JOB_CANCELLED] = "cancelled", [JOB_INTERRUPTED] = "interrupted",
	[JOB_N_STATES] = NULL,
};

const char *job_state_name(enum job_state s)
{
	return (unsigned)s < JOB_N_STATES ? job_state_names[s] : "?";
}

int job_state_parse(const char *name)
{
	return word_find(job_state_names, JOB_N_STATES, name);
}

bool job_state_final(enum job_state s)
{
	return s == JOB_SUCCEEDED || s == JOB_FAILED || s == JOB_CANCELLED || s == JOB_INTERRUPTED;
}

const char *const identity_field_names[IDF_N + 1] = {
	[IDF_VENDOR] = "vendor",
	[IDF_MODEL] = "model",
	[IDF_FIRMWARE] = "firmware",
	[IDF_SERIAL] = "serial",
	[IDF_WWID] = "wwid",
	[IDF_TRANSPORT] = "transport",
	[IDF_ROTATIONAL] = "rotational",
	[IDF_LOGICAL_BLOCK_BYTES] = "logical_block_bytes",
	[IDF_PHYSICAL_BLOCK_BYTES] = "physical_block_bytes",
	[IDF_SIZE_BYTES] = "size_bytes",
	[IDF_KERNEL] = "kernel",
	[IDF_MACHINE] = "machine",
	[IDF_HOSTNAME] = "hostname",
	[IDF_N] = NULL,
};

void identity_text_clean(char *s)
{
	size_t i, n, start = 0;

	for (i = 0; s[i] && i < IDENTITY_VALUE_MAX - 1; i++)
		if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] > 0x7e)
			s[i] = s[i] == '\t' || s[i] == '\n' || s[i] == '\r' ? ' ' : '?';
	s[i] = '\0';
	n = i;
	while (n > 0 && s[n - 1] == ' ')
		n--;
	while (start < n && s[start] == ' ')
		start++;
	memmove(s, s + start, n - start);
	s[n - start] = '\0';
}

char *identity_text_dup(const char *s)
{
	char *c = xstrdup(s);

	identity_text_clean(c);
	if (*c)
		return c;
	free(c);
	return NULL;
}

int identity_field_parse(const char *name)
{
	return word_find(identity_field_names, IDF_N, name);
}

bool profile_name_ok(const char *name)
{
	size_t n;

	if (!name)
		return false;
	n = strlen(name);
	if (!n || n >= PROFILE_NAME_MAX || name[0] == '.')
		return false;
	return strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-") ==
	       n;
}

const char *const keep_state_names[KEEP_N_STATES + 1] = {
	[KEEP_HELD] = "held",           [KEEP_DRIFTED] = "drifted",
	[KEEP_REAPPLIED] = "reapplied", [KEEP_PENDING] = "pending",
	[KEEP_YIELDED] = "yielded",     [KEEP_FAILED] = "failed",
	[KEEP_ABSENT] = "absent",       [KEEP_NOT_ALLOWED] = "not_allowed",
	[KEEP_CONFLICT] = "conflict",   [KEEP_N_STATES] = NULL,
};

int keep_state_parse(const char *name)
{
	return word_find(keep_state_names, KEEP_N_STATES, name);
}

bool keep_state_holds(int s)
{
	return s == KEEP_HELD || s == KEEP_REAPPLIED;
}

const char *const feature_names[FEATURE_N + 1] = {
	[FEATURE_DRY_RUN] = "dry_run",         [FEATURE_STRICT_QUERY] = "strict_query",
	[FEATURE_LONG_POLL] = "long_poll",     [FEATURE_PROFILES] = "profiles",
	[FEATURE_JOB_APPLIED] = "job_applied", [FEATURE_START_AT] = "start_at",
	[FEATURE_UNTIL_END] = "until_end",     [FEATURE_PASS_DEADLINE] = "pass_deadline",
	[FEATURE_WORKLOADS] = "workloads",     [FEATURE_DEVICE_LANES] = "device_lanes",
	[FEATURE_FIO_FILE] = "fio_file",       [FEATURE_N] = NULL,
};

int feature_parse(const char *name)
{
	return word_find(feature_names, FEATURE_N, name);
}
