/* agent.h -- the agent's configuration and the state every handler shares. */
#ifndef FT_AGENT_H
#define FT_AGENT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "contain.h"
#include "httpd.h"
#include "session.h"
#include "store.h"
#include "sysfs.h"
#include "tune.h"

#define AGENT_MAX_ALLOW 64

struct jobq;

#define PARAMS_CACHE_SLOTS 16

/* The rendered GET params body per device, reused while no write happened
 * (tune generation unchanged) and it is younger than params_cache_ms. */
struct params_cache {
	pthread_mutex_t lock;
	struct {
		char dev[64];
		char *body;
		unsigned long generation;
		double at_mono_s;
	} slot[PARAMS_CACHE_SLOTS];
	int next; /* round-robin victim */
};

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
	int params_cache_ms;       /* 0 disables the GET params cache */
	enum contain_mode contain; /* --contain: how job processes are kept */
	unsigned max_conns;        /* --max-connections (0: default) */
	unsigned max_conns_per_ip; /* --max-connections-per-ip (0: default) */
	unsigned conn_timeout_s;   /* --connection-timeout-s (0: default) */
};

struct agent {
	struct agent_config cfg;
	struct sysfs fs;
	struct tune tune;
	struct store *store;
	struct session_mgr sessions;
	struct jobq *jobs;
	struct httpd *httpd;
	struct params_cache pcache;
	double started_mono_s;
	char node[64];
	char token[128];
};

#endif
