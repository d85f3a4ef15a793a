/* wire.h -- the agent's JSON wire format: request bodies decoded into structs once, at the
 * API edge, and structs encoded for answers and for the database's JSON columns (wire.c:
 * requests, parameter values, job specs; wire_job.c: a job's record, passes, summary;
 * wire_profile.c: profiles and what they are to each device; wire_identity.c: what a device
 * and its host are). With
 * api.h and api_priv.h, the only agent header that speaks jansson. */
#ifndef FT_WIRE_H
#define FT_WIRE_H

#include <jansson.h>
#include <stdbool.h>

#include "device/identity.h"
#include "device/sysfs.h"
#include "device/tune.h"
#include "engines/engine.h"
#include "err.h"
#include "job/jobfs.h"
#include "job/jobrec.h"
#include "job/jobspec.h"
#include "profile/keeprec.h"
#include "profile/profile.h"

/* The top-level keys a job body may have (NULL-terminated). */
extern const char *const wire_job_keys[];

/* obj (an object) has only keys of allowed (NULL-terminated; NULL: none); else -EINVAL
 * "bad_request" "PATH.KEY: unknown field" (path may be NULL). */
int wire_keys_check(const json_t *obj, const char *const *allowed, const char *path, struct err *e);

/* Dump o (reference stolen) compactly with flags; never NULL (OOM is fatal). Caller frees. */
char *wire_dump(json_t *o, size_t flags);

/* ---- parameter values ---- */

/*
 * The one rule for a value held as text: an integer as a JSON number, anything else as the
 * string. kernel: integers as the kernel prints them (leading zeros, a trailing newline:
 * num_parse_kernel_i64); else plain decimal only (num_parse_i64: "010" stays a string).
 */
json_t *wire_int_or_string(const char *v, bool kernel);
/* A request value (an integer or a string) as the text written to the kernel; field names it
 * in the error ("params.nr_requests: expected an integer or a string"). */
int wire_value_from_json(const json_t *v, const char *field, char *out, size_t len, struct err *e);
/* A parameter value for an answer: an integer kind's (PARAM_INT as the kernel prints it, a
 * PARAM_ENUM choice in plain decimal) as a number, everything else as a string. */
json_t *wire_value_to_json(enum param_kind kind, const char *v);
/*
 * The "params" object of a PATCH body or a job: between min_n and TUNE_SET_MAX names, each
 * an integer or a string, into out (caller releases with tune_set_release). Errors:
 * "bad_request" for the shape and the types, "unknown_param" for a name too long to exist.
 */
int wire_params_from_json(const json_t *v, int min_n, struct tune_set *out, struct err *e);
/* {name: requested} of a set, plain decimal integers written as numbers. */
json_t *wire_params_to_json(const struct tune_set *s);

/* The per-item result of a write, as a PATCH or PUT answers it and a job with params records
 * it: {requested, previous, value, mapped_to (a legacy scheduler name), adjusted (the kernel
 * kept another value)}; requested is the client's JSON value (a new reference is taken). */
json_t *wire_tune_item_to_json(const struct tune_item *it, const json_t *requested);
/* {name: item} of an applied set, as database text (the jobs.applied column). Caller frees. */
char *wire_tune_applied_encode(const struct tune_set *s);

/* ---- engine options and job specs ---- */

/*
 * Decode v, eng's option object (NULL: absent), into eng's struct of o: every key is checked
 * against eng->opts (unknown keys, types, ranges, choices), absent keys get their defaults,
 * and o->given[eng->id] says whether v was there. -EINVAL "bad_request" naming the key
 * ("fio.iodepth: must be 1..4096"). eng->check() is the job layer's next step.
 */
int wire_engine_opts_from_json(const struct engine *eng, const json_t *v, struct engine_opts *o,
                               struct err *e);
/* eng's given keys as an object, sizes in canonical binary units ("64M"). */
json_t *wire_engine_opts_to_json(const struct engine *eng, const struct engine_opts *o);
/*
 * A job body (an object) into out: the keys of wire_job_keys, types and ranges, every
 * engine object given, params and labels. What needs the machine (the device exists and is
 * allowlisted, the directory, the engine's rules and binary) is job_check()'s. On failure out
 * is released. -EINVAL "bad_request" (or "unknown_param") naming the field.
 */
int wire_job_spec_from_json(const json_t *body, struct job_spec *out, struct err *e);
/* The normalised spec: device, engine, loops, labels, each given engine object and the
 * selected one, params and directory when present. */
json_t *wire_job_spec_to_json(const struct job_spec *s);
/* A spec's "filesystem" object as the job body gives it ({"type", "mkfs": [...], "mount"}). */
json_t *wire_fs_spec_to_json(const struct fs_spec *fs);
/* {key: value} of the spec's labels. */
json_t *wire_labels_to_json(const struct job_spec *s);

/* ---- the JSON columns of the database (text in, text out; caller frees) ---- */

char *wire_job_spec_encode(const struct job_spec *s);
int wire_job_spec_decode(const char *text, struct job_spec *out, struct err *e);
/* {key: value} of the spec's labels. */
char *wire_labels_encode(const struct job_spec *s);
/* {name: "value"} of the values to put back. */
char *wire_snapshot_encode(const struct tune_snapshot *s);
int wire_snapshot_decode(const char *dev, const char *text, struct tune_snapshot *out,
                         struct err *e);
/* {name: number} of a pass (wire_metrics_to_json, 10 significant digits). */
char *wire_metrics_encode(const struct metrics *m);
int wire_metrics_decode(const char *text, struct metrics *out);
/* {name: integer or "text"} of every parameter of a device, as the kernel printed them, by the
 * rule of GET params (wire_value_to_json): a PARAM_INT, and a PARAM_ENUM choice in plain
 * decimal (rq_affinity 1), as a number, every other kind as its text. */
char *wire_param_values_encode(const struct params *ps);
/* Back into a list; number is set for the integers (caller frees with store_values_free). */
int wire_param_values_decode(const char *text, struct store_value **out, int *n);

/* ---- identity (wire_identity.c) ---- */

/* A device's identity as an object of its present fields (common/protocol.h's names). */
json_t *wire_device_identity_to_json(const struct device_identity *d);
/* The host's identity as an object of its present fields. */
json_t *wire_host_identity_to_json(const struct host_identity *h);
/* {"device": {...}, "host": {...}}, the jobs.identity column. Caller frees. */
char *wire_identity_encode(const struct device_identity *d, const struct host_identity *h);
/* The column back as an object (a new reference), or JSON null for NULL or unreadable text. */
json_t *wire_identity_decode(const char *text);

/* ---- a job for answers (wire_job.c) ---- */

/* ISO-8601 UTC with milliseconds ("2026-11-29T23:03:36.123Z") for epoch seconds; 0: null. */
json_t *wire_time_to_json(double epoch_s);
/* {name: number} of a pass's metrics. */
json_t *wire_metrics_to_json(const struct metrics *m);
/* {METRIC: {mean, stdev, min, max, n}} over the passes' metrics (a job with workloads: its first
 * workload's), metrics in first-seen order. */
json_t *wire_summary_to_json(const struct pass_rec *passes, int n);
/* [{"name", "summary": {METRIC: {mean, stdev, min, max, n}}}] of a job with workloads, in
 * spec's order, each over the passes that have that workload's metrics. */
json_t *wire_summary_workloads_to_json(const struct job_spec *spec, const struct pass_rec *passes,
                                       int n);
/* {name: value} of recorded parameter values: the integers (number) as numbers. */
json_t *wire_param_values_to_json(const struct store_value *v, int n);

/* What mkfs and mount made for a job ({"type", "device", "mount_point", "mkfs": the command,
 * "mount_options", "super_options": as mountinfo shows them, "mkfs_s", "figures": {name:
 * value}}), or with dry_run what mkfs's no-op run says it would make ({"mkfs", "figures"}). */
json_t *wire_fs_made_to_json(const struct jobfs_made *m, bool dry_run);
/* The same as database text (the jobs.filesystem column). Caller has ownership. */
char *wire_fs_made_encode(const struct jobfs_made *m);

/* Every member of a job object, as a mask of ?fields= (wire_job_fields_parse). */
#define WIRE_JOB_ALL ((1u << 25) - 1)
/* A job in the list (GET /jobs without fields=): its summary form, without what is large or
 * costs a query per job (spec, summary, passes, params, the filesystem record, the identity,
 * what its params' writes did);
 * fields= asks for any of them. */
unsigned wire_job_list_fields(void);

/* ?fields= ("state,progress,passes") into a mask of the members named ("id" and "version" are
 * always there); -EINVAL "bad_request" naming a name that is not a member. */
int wire_job_fields_parse(const char *list, unsigned *mask, struct err *e);
/* Whether the members in fields are made from the job's passes (summary, passes). */
bool wire_job_fields_need_passes(unsigned fields);
/* Whether fields needs the device's parameter snapshot read (params). */
bool wire_job_fields_need_params(unsigned fields);
/* A job object with the members in fields (WIRE_JOB_ALL: the whole object, as GET
 * /api/v1/jobs/{id} and the results history show it); passes[0..n) are the job's, read by
 * the caller when wire_job_fields_need_passes(fields) (else NULL, 0). */
json_t *wire_job_to_json(const struct job_rec *j, const struct pass_rec *passes, int n,
                         unsigned fields);
/* {"dry_run":true,"job":SPEC,"metrics":[...],"expected_runtime_s":N,"pass_deadline_s":N,
 * "run_deadline_s":N} for a checked spec; with fs (a job with a filesystem), "filesystem":
 * what mkfs's dry run would make; with workloads, "workloads": [{"name", "metrics": [...]}]. */
json_t *wire_job_dry_run_to_json(const struct job_spec *spec, const struct metric_names *names,
                                 double runtime_s, double pass_deadline_s, double run_deadline_s,
                                 const struct jobfs_made *fs);

/* ---- profiles (wire_profile.c) ---- */

/* The keys of a profile body (NULL-terminated). */
extern const char *const wire_profile_keys[];
/*
 * A PUT body (an object of wire_profile_keys) into out, named name: match (devices: an array
 * of names or patterns; each identity field: a string or an array of strings), params (as a
 * PATCH's), enforce (a boolean, default true). -EINVAL "bad_request" naming the field; out is
 * released on failure. What the values must be is profile_check's and the devices'.
 */
int wire_profile_from_json(const json_t *body, const char *name, struct profile *out,
                           struct err *e);
/* {name, match, params, enforce, created_at, updated_at} (times null when 0). */
json_t *wire_profile_to_json(const struct profile *p);
/* The profile with "devices": what it is to each device it matches. */
json_t *wire_keeper_view_to_json(const struct keeper_view *v);
/* The JSON columns: match as the API writes it, params as {name: requested}. */
char *wire_profile_match_encode(const struct profile_match *m);
int wire_profile_match_decode(const char *text, struct profile_match *out, struct err *e);
char *wire_profile_params_encode(const struct tune_set *s);
int wire_profile_params_decode(const char *text, struct tune_set *out, struct err *e);

#endif
