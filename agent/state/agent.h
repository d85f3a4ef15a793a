/* agent.h -- the agent's configuration and the state every handler shares, wired together by
 * agent_init() for main.c and the tests alike. */
#ifndef FT_AGENT_H
#define FT_AGENT_H

#include <stdbool.h>
#include <stddef.h>

#include "device/params_cache.h"
#include "device/sysfs.h"
#include "device/tune.h"
#include "err.h"
#include "http/httpd.h"
#include "job/contain.h"
#include "state/keeper.h"
#include "state/session.h"
#include "state/statelock.h"
#include "store/store.h"

#define AGENT_MAX_ALLOW 64

struct jobq;
struct jobq_env;

/* Everything from the command line; strings point into argv or are static. */
struct agent_config {
	const char *listen;
	const char *node_name;
	const char *state_dir;
	const char *token_file;
	const char *allow_devices[AGENT_MAX_ALLOW];
	int n_allow_devices;
	const char *allow_dirs[AGENT_MAX_ALLOW];
	int n_allow_dirs;
	bool allow_sysctl;
	bool allow_format_all;                     /* --allow-format: every --allow-device */
	const char *allow_format[AGENT_MAX_ALLOW]; /* --allow-format=NAME */
	int n_allow_format;
	bool hide_serial; /* --hide-serial: serials are reported as their stable hash */
	const char *sysfs_root;
	const char *fio_path;
	const char *web_root;
	bool public_read;
	bool public_read_private; /* --public-read-private: the audit log and raw output too */
	bool public_metrics;
	const char *tls_cert;
	const char *tls_key;
	int params_cache_ms;       /* 0 disables the GET params cache */
	enum contain_mode contain; /* --contain: how job processes are kept */
	unsigned max_conns;        /* --max-connections (0: default) */
	unsigned max_conns_per_ip; /* --max-connections-per-ip (0: default) */
	unsigned conn_timeout_s;   /* --connection-timeout-s (0: default) */
	unsigned drift_check_s;    /* --drift-check-s: profiles compared this often (0: default) */
	unsigned max_held;         /* --max-held (0: default) */
	unsigned max_held_per_ip;  /* --max-held-per-ip (0: default) */
	unsigned max_queued;       /* --max-queued (0: default) */
	/* What a fio spawned before its job's moment runs to wait for it (jobq_env.waiter_exe):
	 * fleettune-wait beside the agent's binary, else that binary (/proc/self/exe as main
	 * resolved it at the start); NULL when it cannot be put in a command (waiter_exe_ok). */
	const char *waiter_exe;
	/* (Test switches are not configuration: switches.h.) */
};

struct agent {
	struct agent_config cfg;
	struct statelock lock; /* STATE_DIR/lock: held from the start of agent_init to the end of
	                          agent_release */
	struct sysfs fs;
	struct tune tune;
	struct store *store;
	struct session_mgr sessions;
	struct jobq *jobs;
	struct keeper *keeper; /* the profiles it keeps */
	struct httpd *httpd;   /* started by the caller after agent_init, stopped before release */
	struct params_cache pcache;
	double started_mono_s;
	/* Audit rows that could not be written since the start (a write refused with
	 * audit_unavailable, an outcome left pending, a restore made unaudited); __atomic. */
	unsigned long audit_failures;
	char node[64];
	char token[128];
};

/*
 * Wire an agent from cfg (copied; its strings must outlive a): first the state directory's lock
 * (statelock.h: -EBUSY "state_dir_in_use" when another agent has the directory, and then
 * nothing in it is touched), then the token (token.h: cfg's token_file, else STATE_DIR/token,
 * made if absent) into a->token, node name (cfg's, else the host name), the database
 * STATE_DIR/agent.db (the directory must exist), sysfs and tune with
 * every write audited into the database, the params cache, sessions, the job queue and the
 * profile keeper. A previous run's open sessions are restored and its running jobs recovered,
 * then every stored profile is applied to the devices it matches. On failure everything done
 * so far is undone.
 */
int agent_init(struct agent *a, const struct agent_config *cfg, struct err *e);
/* The tune audit hooks that record every write in a's database before it is made (and log
 * it); for agent_init and harnesses that wire an agent by hand. */
struct tune_audit agent_tune_audit(struct agent *a);
/* What a's job queue works with (a's store, tune, sysfs and settings, the wall clock); for
 * agent_init and harnesses that wire an agent by hand. */
struct jobq_env agent_jobq_env(struct agent *a);
/* The profiles' identity source (struct profile_ident_source's read; cls: the agent): field of
 * dev as GET /devices reports it (identity.c; the serial hashed with --hide-serial); -ENOENT
 * when dev does not report it. */
int agent_ident_read(void *cls, const char *dev, enum profile_ident field, char *out, size_t len);
/* What a's profile keeper works with (a's store, tune and sysfs, --drift-check-s, the wall
 * clock, agent_ident_read for identity matches); for agent_init and harnesses that wire an
 * agent by hand. */
struct keeper_env agent_keeper_env(struct agent *a);
/* Stop the keeper and the job queue, restore the open sessions ("agent_shutdown"), close the
 * database, drop the state directory's lock.
 * Safe after a failed agent_init. */
void agent_release(struct agent *a);

#endif
