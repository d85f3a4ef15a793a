/* protocol.h -- the words of the agent API that both binaries speak: a job's states, and which
 * of them are final; the names of the identity fields a device and its host report. The agent
 * writes them (job.c, its store and /metrics) and the controller reads them (fleet.c);
 * schema/openapi.yaml lists the same words (tests/unit/test_protocol.c holds the two together). The
 * controller's decision codes (gain, loss, ...) do not cross the agent's wire: they belong to its
 * sweep document (controller/stats/effect.h). */
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

/* The fields of a device's identity (GET /devices' "identity", a job's "identity.device") and
 * of its host's ("host", "identity.host"): the agent writes exactly these names
 * (agent/wire/wire_identity.c) and a plan's cohort_by may name any of them (controller/judge/cohort.c).
 * schema/openapi.yaml's DeviceIdentity and HostIdentity list the same names. */
enum identity_field {
	IDF_VENDOR,
	IDF_MODEL,
	IDF_FIRMWARE,
	IDF_SERIAL,
	IDF_WWID,
	IDF_TRANSPORT,
	IDF_ROTATIONAL,
	IDF_LOGICAL_BLOCK_BYTES,
	IDF_PHYSICAL_BLOCK_BYTES,
	IDF_SIZE_BYTES,
	IDF_N_DEVICE,
	IDF_KERNEL = IDF_N_DEVICE, /* the host's, from here on */
	IDF_MACHINE,
	IDF_HOSTNAME,
	IDF_N
};

/* Every field's name in enum order, NULL-terminated; the device's are the first
 * IDF_N_DEVICE. */
extern const char *const identity_field_names[IDF_N + 1];
/* The field a name names, or -1. */
int identity_field_parse(const char *name);

/* Identity text on the wire: printable ASCII with no blank at either end, shorter than
 * IDENTITY_VALUE_MAX bytes. */
#define IDENTITY_VALUE_MAX 256
/* Clean s in place to that rule: a tab or line break becomes a blank, every other byte outside
 * printable ASCII '?', blanks at the ends go, and it is cut at IDENTITY_VALUE_MAX - 1 bytes.
 * The agent cleans what the kernel gives; the controller cleans what an agent or a document
 * says, so that no identity can put a terminal escape or a line of its own into its output. */
void identity_text_clean(char *s);
/* A cleaned copy of s (caller frees), or NULL when nothing is left of it. */
char *identity_text_dup(const char *s);

#endif
