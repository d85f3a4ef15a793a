/* protocol.h -- the words of the agent API that both binaries speak: a job's states, and which
 * of them are final; the names of the identity fields a device and its host report; the
 * profile-name rule and what a profile is to a device; how long a request may be held; the
 * features /health lists. The agent writes them (job.c, its store, the keeper and /metrics) and
 * the controller reads them (fleet/, run/); schema/openapi.yaml lists the same words
 * (tests/unit/test_protocol.c holds the two together). The
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
 * (agent/wire/wire_identity.c) and a plan's cohort_by may name any of them
 * (controller/judge/cohort.c). schema/openapi.yaml's DeviceIdentity and HostIdentity list the same
 * names. */
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

/* Profile names: 1..PROFILE_NAME_MAX - 1 bytes of [A-Za-z0-9_.-], not starting with '.'
 * (PROFILE_NAME_RULE says so in an error message). The agent refuses a definition, and the
 * controller a --profile, by this one rule. */
#define PROFILE_NAME_MAX 64
#define PROFILE_NAME_RULE "1..63 of A-Z a-z 0-9 _ . -"
bool profile_name_ok(const char *name);

/* What a profile is to one device it matches (a profile answer's devices[].state). */
enum keep_state {
	KEEP_HELD,        /* every value is the profile's */
	KEEP_DRIFTED,     /* a value differs: enforce is false, or putting it back failed (error) */
	KEEP_REAPPLIED,   /* a value had drifted and the agent put it back; held since */
	KEEP_PENDING,     /* not applied yet (a dry run's answer, or before the first scan) */
	KEEP_YIELDED,     /* a tuning session or a running job owns the device (owner): the
	                     agent writes nothing there until it lets go, then applies */
	KEEP_FAILED,      /* applying failed (error); tried again when the device reappears,
	                     the profile is set again or the agent restarts */
	KEEP_ABSENT,      /* named by the match, but not present (or without a medium) */
	KEEP_NOT_ALLOWED, /* matches, but is not an --allow-device: never written */
	KEEP_CONFLICT,    /* an older profile (owner) holds one of these parameters on it */
	KEEP_N_STATES,
};
/* The states' words in enum order, NULL-terminated (schema/openapi.yaml's ProfileDeviceState). */
extern const char *const keep_state_names[KEEP_N_STATES + 1];
/* The state a word names, or -1 for any other text (NULL included: a newer agent's word). */
int keep_state_parse(const char *name);
/* True for the states in which the device holds every value of the profile: held, reapplied. */
bool keep_state_holds(int s);

/* A long-poll (GET /api/v1/jobs/{id}?wait_s=N): the agent holds a request at most
 * JOB_WAIT_MAX_S seconds (schema/openapi.yaml's wait_s maximum) and refuses a longer wait_s;
 * the controller asks for JOB_WAIT_ASK_S, inside it, and allows its request that much more than
 * its timeout. */
#define JOB_WAIT_MAX_S 60
#define JOB_WAIT_ASK_S 30
_Static_assert(JOB_WAIT_ASK_S <= JOB_WAIT_MAX_S,
               "the controller asks for a wait the agent refuses");

/* What an agent supports beyond the base API (GET /health's "features"; schema/openapi.yaml's
 * Health.features describes each). */
enum feature {
	FEATURE_DRY_RUN,
	FEATURE_STRICT_QUERY,
	FEATURE_LONG_POLL,
	FEATURE_PROFILES,
	FEATURE_JOB_APPLIED,
	FEATURE_START_AT,
	FEATURE_UNTIL_END,
	FEATURE_PASS_DEADLINE,
	FEATURE_WORKLOADS,
	FEATURE_DEVICE_LANES,
	FEATURE_FIO_FILE,
	FEATURE_N
};
/* Every feature's word in enum order, NULL-terminated. */
extern const char *const feature_names[FEATURE_N + 1];
/* The feature a word names, or -1 (a newer agent's word, or NULL). */
int feature_parse(const char *name);

#endif
