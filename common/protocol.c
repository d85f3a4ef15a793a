/* protocol.c -- the agent API's job states: their words, and which are final. */
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
