/* agent.h -- the agent's configuration and the state every handler shares. */
#ifndef FT_AGENT_H
#define FT_AGENT_H

#include <stdbool.h>

#include "httpd.h"
#include "session.h"
#include "store.h"
#include "sysfs.h"
#include "tune.h"

#define AGENT_MAX_ALLOW 64

struct jobq;

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
	const char *sysfs_root;
	const char *fio_path;
	const char *web_root;
	bool public_read;
	bool public_metrics;
	const char *tls_cert;
	const char *tls_key;
};

struct agent {
	struct agent_config cfg;
	struct sysfs fs;
	struct tune tune;
	struct store *store;
	struct session_mgr sessions;
	struct jobq *jobs;
	struct httpd *httpd;
	double started_mono_s;
	char node[64];
	char token[128];
};

#endif
