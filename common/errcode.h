/* errcode.h -- the error codes of both binaries: one table row each, its wire word and HTTP status.
 */
#ifndef FT_ERRCODE_H
#define FT_ERRCODE_H

/*
 * Every code a struct err can carry, as X(NAME, "word", status): NAME is the enum the
 * compiler checks (err_set(e, rc, ERR_NOT_FOUND, ...): a code outside this table does not
 * compile), "word" is what the API's {"error":{"code":...}} and the CLI show, status the HTTP
 * status of an agent answer that fails with it (agent/api: api_fail). A code only the
 * controller makes has 500, the status it would have if it ever reached the API.
 * To add a code: add its row here (and to docs/api.md when the agent answers with it).
 * The words are stable: agents and controllers of other versions read them.
 */
/* clang-format off */
#define ERR_CODES(X) \
	/* The request: what a client sent. */ \
	X(ERR_BAD_REQUEST,           "bad_request",           400) /* malformed or missing field */ \
	X(ERR_BAD_JSON,              "bad_json",              400) /* body is not a JSON object */ \
	X(ERR_UNKNOWN_QUERY_PARAM,   "unknown_query_param",   400) /* a query key the route does not take */ \
	X(ERR_UNAUTHORIZED,          "unauthorized",          401) /* no or wrong bearer token */ \
	X(ERR_FORBIDDEN,             "forbidden",             403) /* the agent's policy refuses it */ \
	X(ERR_READ_ONLY,             "read_only",             403) /* a parameter that cannot be written */ \
	X(ERR_DEVICE_NOT_ALLOWED,    "device_not_allowed",    403) /* outside --allow-device */ \
	X(ERR_DIR_NOT_ALLOWED,       "dir_not_allowed",       403) /* outside --allow-dir */ \
	X(ERR_FORMAT_NOT_ALLOWED,    "format_not_allowed",    403) /* a filesystem the agent does not make */ \
	X(ERR_NOT_FOUND,             "not_found",             404) /* no such device, job, session, page */ \
	X(ERR_UNKNOWN_PARAM,         "unknown_param",         404) /* not in the parameter catalogue */ \
	X(ERR_UNKNOWN_SYSCTL,        "unknown_sysctl",        404) /* not in the sysctl catalogue */ \
	X(ERR_METHOD_NOT_ALLOWED,    "method_not_allowed",    405) /* the route exists, not with this method */ \
	X(ERR_TOO_LARGE,             "too_large",             413) /* request body over the limit */ \
	X(ERR_INVALID_VALUE,         "invalid_value",         422) /* a value the parameter does not take */ \
	X(ERR_INVALID_FS_OPTION,     "invalid_fs_option",     422) /* a mount or mkfs option refused */ \
	X(ERR_UNSUPPORTED_MATCH,     "unsupported_match",     422) /* a profile match the agent cannot judge */ \
	X(ERR_FIO_REJECTED,          "fio_rejected",          422) /* fio refused the job file */ \
	X(ERR_ENGINE_UNAVAILABLE,    "engine_unavailable",    422) /* the engine's program is not installed */ \
	X(ERR_KERNEL_REJECTED,       "kernel_rejected",       422) /* the kernel refused a sysfs write */ \
	/* The agent's state: the request is fine, the moment is not. */ \
	X(ERR_CONFLICT,              "conflict",              409) /* another session or job holds it */ \
	X(ERR_YIELDED,               "yielded",               409) /* a profile gave the device to its owner */ \
	X(ERR_DEVICE_BUSY,           "device_busy",           409) /* the device is in use */ \
	X(ERR_DEVICE_REFUSED,        "device_refused",        409) /* the device is mounted, or not a disk */ \
	X(ERR_CANCELLED,             "cancelled",             409) /* the job was cancelled */ \
	X(ERR_INTERRUPTED,           "interrupted",           409) /* the agent (or controller) stopped */ \
	X(ERR_STATE_DIR_IN_USE,      "state_dir_in_use",      409) /* another agent holds --state-dir */ \
	X(ERR_SESSION_REQUIRED,      "session_required",      409) /* params on a job need a session */ \
	X(ERR_QUEUE_FULL,            "queue_full",            429) /* too many jobs queued */ \
	X(ERR_BUSY,                  "busy",                  503) /* too many requests in flight */ \
	X(ERR_SHUTTING_DOWN,         "shutting_down",         503) /* the agent is stopping */ \
	X(ERR_TOO_MANY_WAITS,        "too_many_waits",        503) /* too many long-polls held */ \
	X(ERR_AUDIT_UNAVAILABLE,     "audit_unavailable",     503) /* the audit log cannot be written */ \
	/* The agent failed doing it. */ \
	X(ERR_INTERNAL,              "internal",              500) /* a bug, or no better code */ \
	X(ERR_STORE_ERROR,           "store_error",           500) /* the agent's database */ \
	X(ERR_RESTORE_FAILED,        "restore_failed",        500) /* a snapshot could not be put back */ \
	X(ERR_ENGINE_FAILED,         "engine_failed",         500) /* fio (or another engine) failed */ \
	X(ERR_ENGINE_TIMEOUT,        "engine_timeout",        500) /* an engine ran past its deadline */ \
	X(ERR_FS_FAILED,             "fs_failed",             500) /* mkfs or mount failed */ \
	X(ERR_DIR_CHANGED,           "dir_changed",           500) /* a job directory changed under it */ \
	X(ERR_DIR_CONFLICT,          "dir_conflict",          500) /* a job directory already exists */ \
	X(ERR_PARAMS_CHANGED,        "params_changed",        500) /* a pass ran under params it did not set */ \
	/* Command lines (both binaries). */ \
	X(ERR_USAGE,                 "usage",                 500) /* a bad option or argument */ \
	/* The controller: its files. */ \
	X(ERR_DB_ERROR,              "db_error",              500) /* the controller's database */ \
	X(ERR_INVALID_PLAN,          "invalid_plan",          500) /* the plan file */ \
	X(ERR_INVALID_NODES,         "invalid_nodes",         500) /* a node list */ \
	X(ERR_INVALID_PARAMS,        "invalid_params",        500) /* a params file */ \
	X(ERR_INVALID_SWEEP,         "invalid_sweep",         500) /* a sweep document */ \
	X(ERR_INVALID_JSON,          "invalid_json",          500) /* JSON text that does not parse (common/jsonstream) */ \
	X(ERR_PLAN_UNREADABLE,       "plan_unreadable",       500) /* the plan file cannot be read */ \
	X(ERR_PLAN_CHANGED,          "plan_changed",          500) /* a resumed sweep's plan differs */ \
	X(ERR_NOT_RESUMABLE,         "not_resumable",         500) /* the sweep cannot be resumed */ \
	X(ERR_TOKEN_MISSING,         "token_missing",         500) /* a node has no token */ \
	X(ERR_TOKEN_UNREADABLE,      "token_unreadable",      500) /* its token_file cannot be read */ \
	X(ERR_TOKEN_INVALID,         "token_invalid",         500) /* its token is not a token */ \
	X(ERR_WEB_UNREADABLE,        "web_unreadable",        500) /* the report's web assets */ \
	X(ERR_WRITE_FAILED,          "write_failed",          500) /* an output file */ \
	X(ERR_BAD_OPTION,            "bad_option",            500) /* an option's value */ \
	X(ERR_BAD_FORMAT,            "bad_format",            500) /* an unknown export format */ \
	X(ERR_BAD_TEMPLATE,          "bad_template",          500) /* an export's template */ \
	X(ERR_BAD_WAVES,             "bad_waves",             500) /* a rollout's waves */ \
	X(ERR_BAD_ALLOW_DIFFERENCES, "bad_allow_differences", 500) /* verify's --allow-differences */ \
	X(ERR_NO_BEST,               "no_best",               500) /* the sweep has no best configuration */ \
	X(ERR_NO_MATCH,              "no_match",              500) /* nothing matches the selection */ \
	X(ERR_EXPORT_REFUSED,        "export_refused",        500) /* an export that would mislead */ \
	/* The controller: its runs against the fleet. */ \
	X(ERR_NODE_FAILED,           "node_failed",           500) /* a node failed a step */ \
	X(ERR_PREFLIGHT_FAILED,      "preflight_failed",      500) /* a pre-flight check failed */ \
	X(ERR_BASELINE_FAILED,       "baseline_failed",       500) /* the baseline could not be measured */ \
	X(ERR_SESSION_FAILED,        "session_failed",        500) /* a tuning session failed */ \
	X(ERR_REVERT_FAILED,         "revert_failed",         500) /* a rollout could not be reverted */ \
	/* The controller: an agent's answer (fleet/). */ \
	X(ERR_UNREACHABLE,           "unreachable",           500) /* no HTTP answer at all */ \
	X(ERR_HTTP_STATUS,           "http_status",           500) /* an error status without an agent error */ \
	X(ERR_BAD_ANSWER,            "bad_answer",            500) /* a 2xx answer that lacks what it must say */ \
	X(ERR_ANSWER_EMPTY,          "answer_empty",          500) /* no body where one is due */ \
	X(ERR_ANSWER_NOT_JSON,       "answer_not_json",       500) /* the body is not JSON */ \
	X(ERR_ANSWER_TOO_LARGE,      "answer_too_large",      500) /* over the route's byte bound */ \
	X(ERR_ANSWER_TOO_MANY,       "answer_too_many",       500) /* over the route's element bound */ \
	X(ERR_ANSWER_TOO_DEEP,       "answer_too_deep",       500) /* over the route's nesting bound */ \
	X(ERR_UNLISTED,              "unlisted",              500) /* an agent's word not in this table (struct err.word) */
/* clang-format on */

/* clang-format off */
enum err_code {
	ERR_NONE = 0, /* no error: what err_clear() and { 0 } leave */
#define ERR_CODE_ENUM(name, word, status) name,
	ERR_CODES(ERR_CODE_ENUM)
#undef ERR_CODE_ENUM
	ERR_CODE_N /* how many, ERR_NONE included */
};
/* clang-format on */

/* The wire word of c ("invalid_value"); "" for ERR_NONE, "internal" for a value outside the
 * enum. Static storage. */
const char *err_code_name(enum err_code c);
/* The code whose word is word; ERR_NONE for NULL or "", ERR_UNLISTED for a word not in the
 * table (the caller keeps the word: struct err.word). */
enum err_code err_code_parse(const char *word);
/* The HTTP status of an agent answer failing with c; 500 for ERR_NONE and outside the enum. */
int err_code_status(enum err_code c);

#endif
