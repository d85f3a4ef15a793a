/* protocol.c -- the agent API's job states (their words, which are final) and identity fields. */
#include <stddef.h>
#include <string.h>

#include "protocol.h"
#include "banned.h"

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
	int i;

	for (i = 0; name && i < JOB_N_STATES; i++)
		if (!strcmp(job_state_names[i], name))
			return i;
	return -1;
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

int identity_field_parse(const char *name)
{
	int i;

	for (i = 0; name && i < IDF_N; i++)
		if (!strcmp(identity_field_names[i], name))
			return i;
	return -1;
}
