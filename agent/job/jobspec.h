/* jobspec.h -- a benchmark job as the agent accepts it: the device, the engine and the typed
 * options of every engine object given, loops, the parameters to apply, labels, directory, the
 * filesystem to make. */
#ifndef FT_JOBSPEC_H
#define FT_JOBSPEC_H

#include "device/sysfs.h"
#include "device/tune.h"
#include "engines/engine.h"
#include "engines/fsopt.h"

#define JOB_LOOPS_MAX 100
#define JOB_START_AHEAD_MAX_S 3600 /* how far ahead of the agent's clock start_at may be */
#define JOB_LABELS_MAX 32
#define JOB_LABEL_KEY_MAX 64    /* bytes of [A-Za-z0-9_.:-] */
#define JOB_LABEL_VALUE_MAX 256 /* bytes */

struct job_label {
	char *key; /* owned */
	char *value;
};

/*
 * Decoded once, at the API edge (wire_job_spec_from_json) or from the database
 * (wire_job_spec_decode); the job layer checks it (job_check) and runs it as it is.
 */
struct job_spec {
	char device[SYSFS_NAME_MAX];
	const struct engine *engine;
	struct engine_opts opts; /* every engine object given; engine's own is used; fio's
	                            workloads (opts.workloads) are owned here */
	int loops;               /* 1..JOB_LOOPS_MAX */
	struct tune_set params;  /* applied with PATCH semantics before loop 1; n 0: none */
	bool params_keep;        /* "params_restore": false: params stay as set at the job's end for
	                            the device's session to put back; refused unless a session is
	                            open on the device at submit and at start (session_required),
	                            and put back by the job itself if the session has ended by its
	                            end */
	int n_labels;
	struct job_label labels[JOB_LABELS_MAX];
	char *directory;    /* owned; NULL: the raw device. After job_check: the resolved path */
	struct fs_spec *fs; /* owned; NULL: none. Else mkfs makes it on the device and the job
	                       runs in its mount directory (directory stays NULL) */
	double start_at;    /* "start_at", epoch s (the agent's clock): the job makes ready (its
	                       filesystem, params, snapshot) and holds its first pass until then;
	                       at once when the moment has passed. 0: at once */
};

/* An empty spec: no device, no engine, one loop, every engine's defaults. */
void job_spec_init(struct job_spec *s);
/* Free what s owns and make it empty again; NULL is fine. */
void job_spec_release(struct job_spec *s);
/* Add a label (copies key and value); the caller checks the count and the syntax. */
void job_spec_label_add(struct job_spec *s, const char *key, const char *value);

#endif
