/* protocol.h -- the words of the agent API that both binaries speak: a job's states, and which
 * of them are final. The agent writes them (job.c, its store and /metrics) and the controller
 * reads them (fleet.c); schema/openapi.yaml lists the same words (tests/unit/test_protocol.c
 * holds the two together). The controller's decision codes (gain, loss, ...) do not cross the
 * agent's wire: they belong to its sweep document (controller/effect.h). */
#ifndef FT_PROTOCOL_H
#define FT_PROTOCOL_H

#include <stdbool.h>

/* A job's life: queued, then running, then one final state. */
enum job_state {
	JOB_QUEUED,
	JOB_RUNNING,
	JOB_SUCCEEDED,
	JOB_FAILED,
	JOB_CANCELLED,
	JOB_INTERRUPTED, /* the agent stopped (shutdown, or a crash found at the next start) */
	JOB_N_STATES
};

/* Every state's word, in enum order, NULL-terminated (a query table's choices). */
extern const char *const job_state_names[JOB_N_STATES + 1];

/* The word of s ("?" for a value outside the enum). */
const char *job_state_name(enum job_state s);
/* The state a word names, or -1 for any other text (NULL included). */
int job_state_parse(const char *name);
/* True for the states a job never leaves: succeeded, failed, cancelled, interrupted. */
bool job_state_final(enum job_state s);

#endif
