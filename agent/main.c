/* main.c -- fleettune-agent: command line, token, TLS files, agent_init, HTTP, signal loop. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "api/api.h"
#include "buf.h"
#include "job/waiter.h"
#include "log.h"
#include "num.h"
#include "options.h"
#include "queue/job.h"
#include "state/agent.h"
#include "timeutil.h"
#include "version.h"
#include "xmalloc.h"
#include "banned.h"

/* What the command line says: the agent's configuration, and what main does itself. */
struct agent_args {
	struct agent_config cfg;
	bool verbose, version, help;
};

static char allow_dir_buf[AGENT_MAX_ALLOW][PATH_MAX];

/* --allow-device NAME (repeatable). */
static int take_allow_device(const struct opt *o, const char *arg, void *ctx, struct err *e)
{
	struct agent_config *c = &((struct agent_args *)ctx)->cfg;

	if (c->n_allow_devices >= AGENT_MAX_ALLOW || !sysfs_device_name_ok(arg))
		return err_set(e, -1, ERR_USAGE, "bad or too many --%s '%s'", o->name, arg);
	c->allow_devices[c->n_allow_devices++] = arg;
	return 0;
}

/* --allow-dir DIR (repeatable), kept as its real path. */
static int take_allow_dir(const struct opt *o, const char *arg, void *ctx, struct err *e)
{
	struct agent_config *c = &((struct agent_args *)ctx)->cfg;
	char *dir = allow_dir_buf[c->n_allow_dirs < AGENT_MAX_ALLOW ? c->n_allow_dirs : 0];

	errno = 0;
	if (c->n_allow_dirs >= AGENT_MAX_ALLOW || !realpath(arg, dir))
		return err_set(e, -1, ERR_USAGE, "--%s '%s': %s", o->name, arg,
		               strerror(errno ? errno : E2BIG));
	c->allow_dirs[c->n_allow_dirs++] = dir;
	return 0;
}

/* --allow-format (every --allow-device) or --allow-format=NAME (repeatable). */
static int take_allow_format(const struct opt *o, const char *arg, void *ctx, struct err *e)
{
	struct agent_config *c = &((struct agent_args *)ctx)->cfg;

	if (!arg) {
		c->allow_format_all = true;
		return 0;
	}
	if (c->n_allow_format >= AGENT_MAX_ALLOW || !sysfs_device_name_ok(arg))
		return err_set(e, -1, ERR_USAGE, "bad or too many --%s '%s'", o->name, arg);
	c->allow_format[c->n_allow_format++] = arg;
	return 0;
}

static int take_contain(const struct opt *o, const char *arg, void *ctx, struct err *e)
{
	struct agent_config *c = &((struct agent_args *)ctx)->cfg;

	if (contain_mode_parse(arg, &c->contain))
		return err_set(e, -1, ERR_USAGE, "--%s: expected auto, cgroup or proc", o->name);
	return 0;
}

#define CFG(f) offsetof(struct agent_args, cfg.f)
#define STR(n, a, f, h)                                                                            \
	{                                                                                          \
		.name = n, .has_arg = OPT_REQUIRED, .arg = a, .help = h, .take = opt_take_str,     \
		.off = CFG(f)                                                                      \
	}
#define FLAG(n, o, h)                                                                              \
	{                                                                                          \
		.name = n, .has_arg = OPT_FLAG, .help = h, .take = opt_take_flag, .off = o         \
	}
#define UINT(n, f, lo, hi, h)                                                                      \
	{                                                                                          \
		.name = n, .has_arg = OPT_REQUIRED, .arg = "N", .help = h, .take = opt_take_uint,  \
		.off = CFG(f), .min = lo, .max = hi                                                \
	}
#define TAKE(n, has, a, fn, h)                                                                     \
	{                                                                                          \
		.name = n, .has_arg = has, .arg = a, .help = h, .take = fn                         \
	}

/* The agent's options: they parse, --help prints them, tests/lint/options.sh checks
 * docs/fleettune-agent.8 against them. A new option is one entry here and its man page item. */
static const struct opt agent_options[] = {
	STR("listen", "ADDR:PORT", listen,
	    "address to listen on (default 127.0.0.1:7070; port 0 = any)"),
	STR("node-name", "NAME", node_name,
	    "node name reported by /api/v1/health (default: hostname)"),
	STR("state-dir", "DIR", state_dir,
	    "database and token directory (default /var/lib/fleettune)"),
	STR("token-file", "FILE", token_file,
	    "bearer token file (default STATE_DIR/token; created 0600\n"
	    "if absent; refused if group or others may read or write it)"),
	TAKE("allow-device", OPT_REQUIRED, "NAME", take_allow_device,
	     "device that may be written and benchmarked (repeatable)"),
	TAKE("allow-dir", OPT_REQUIRED, "DIR", take_allow_dir,
	     "directory under which jobs may create files (repeatable)"),
	TAKE("allow-format", OPT_OPTIONAL, "NAME", take_allow_format,
	     "jobs may make a filesystem (mkfs, mount) on NAME, or\n"
	     "without =NAME on every --allow-device (repeatable)"),
	FLAG("allow-sysctl", CFG(allow_sysctl), "permit writes to the vm.* / fs.* sysctls"),
	STR("sysfs-root", "DIR", sysfs_root, "read DIR/sys/block and DIR/proc/sys (default /)"),
	FLAG("hide-serial", CFG(hide_serial),
	     "report device serials as a stable hash (sha256:...)"),
	STR("fio", "PATH", fio_path, "fio binary (default: fio on PATH)"),
	STR("web-root", "DIR", web_root,
	    "static web page directory (default: installed share dir)"),
	FLAG("public-read", CFG(public_read),
	     "GET endpoints need no token, except the audit log and raw\n"
	     "engine output (see README, \"What --public-read shows\")"),
	FLAG("public-read-private", CFG(public_read_private),
	     "with --public-read, open those two as well"),
	FLAG("public-metrics", CFG(public_metrics), "GET /metrics needs no token"),
	{ .name = "params-cache-ms",
	  .has_arg = OPT_REQUIRED,
	  .arg = "N",
	  .help = "reuse a rendered GET params body for N ms unless the agent\n"
	          "wrote something meanwhile (default 100, 0 = always read)",
	  .take = opt_take_int,
	  .off = CFG(params_cache_ms),
	  .min = 0,
	  .max = 60000 },
	UINT("max-connections", max_conns, 16, 1 << 20,
	     "HTTP connections served at once (default 1024); the\n"
	     "descriptor limit is raised to fit where allowed"),
	UINT("max-connections-per-ip", max_conns_per_ip, 1, 1 << 20,
	     "of those, what one client address may hold (default\n"
	     "128): more are closed at once, so one host cannot lock\n"
	     "out the others"),
	UINT("max-held", max_held, 1, 1 << 20,
	     "long-polls held at once (default max-connections / 2);\n"
	     "more are answered 503 too_many_waits at once"),
	UINT("max-held-per-ip", max_held_per_ip, 1, 1 << 20,
	     "of those, from one client address (default\n"
	     "max-connections-per-ip / 2)"),
	UINT("max-queued", max_queued, 1, 100000,
	     "jobs that may wait in the queue (default 256); more are\n"
	     "answered 429 queue_full"),
	UINT("connection-timeout-s", conn_timeout_s, 1, 3600,
	     "close a connection idle for N s: a keep-alive one, or a\n"
	     "request whose headers or body stop coming (default 15)"),
	TAKE("contain", OPT_REQUIRED, "MODE", take_contain,
	     "how job processes are kept so that all can be killed, also\n"
	     "after a crash: auto (a cgroup v2 per job where one can be\n"
	     "made, else /proc trees with start times), cgroup, proc\n"
	     "(default auto)"),
	UINT("drift-check-s", drift_check_s, 1, 86400,
	     "compare the devices' live values with the profiles the\n"
	     "agent keeps every N s (default 5); devices that appear\n"
	     "are looked for every second"),
	STR("tls-cert", "FILE", tls_cert, "PEM certificate: serve HTTPS (with --tls-key)"),
	STR("tls-key", "FILE", tls_key, "PEM private key"),
	FLAG("verbose", offsetof(struct agent_args, verbose),
	     "debug logging (each pass's engine command line too)"),
	FLAG("version", offsetof(struct agent_args, version), "print the version and exit"),
	FLAG("help", offsetof(struct agent_args, help), "this text"),
};

#define N_AGENT_OPTIONS (sizeof(agent_options) / sizeof(agent_options[0]))

static void usage_print(FILE *f)
{
	fputs("usage: fleettune-agent [options]\n\n"
	      "Serve the fleettune HTTP JSON API for this node's block devices.\n\n",
	      f);
	opt_help_print(f, agent_options, N_AGENT_OPTIONS, OPT_ALL, 28);
	fputs("\nEvery /api/v1 route except /api/v1/health needs 'Authorization: Bearer TOKEN'.\n"
	      "The API is described in schema/openapi.yaml.\n",
	      f);
}

/* What the options say together: no argument left, each --allow-format=NAME allowed too. */
static int args_check(int argc, char **argv, int first, const struct agent_config *c, struct err *e)
{
	int i, k;

	if (first < argc)
		return err_set(e, -1, ERR_USAGE, "unexpected argument '%s'%s", argv[first],
		               first > 0 && !strcmp(argv[first - 1], "--allow-format")
		                       ? " (a device for --allow-format goes after '=': "
		                         "--allow-format=NAME)"
		                       : "");
	for (i = 0; i < c->n_allow_format; i++) {
		for (k = 0; k < c->n_allow_devices; k++)
			if (!strcmp(c->allow_devices[k], c->allow_format[i]))
				break;
		if (k == c->n_allow_devices)
			return err_set(e, -1, ERR_USAGE,
			               "--allow-format=%s: the device must also be given with "
			               "--allow-device %s",
			               c->allow_format[i], c->allow_format[i]);
	}
	return 0;
}

/* The command line into a (defaults first); -1 (said on stderr) when it is wrong. --help and
 * --version print and exit. */
static int parse_args(int argc, char **argv, struct agent_args *a)
{
	struct err e = { 0 };
	int first;

	memset(a, 0, sizeof(*a));
	a->cfg.listen = "127.0.0.1:7070";
	a->cfg.state_dir = "/var/lib/fleettune";
	a->cfg.sysfs_root = "/";
	a->cfg.fio_path = "fio";
	a->cfg.params_cache_ms = 100;
	if (opt_parse(agent_options, N_AGENT_OPTIONS, OPT_ALL, "fleettune-agent", argc, argv, a,
	              &first, &e) < 0 ||
	    (!a->help && !a->version && args_check(argc, argv, first, &a->cfg, &e) < 0)) {
		fprintf(stderr, "fleettune-agent: %s (fleettune-agent --help lists the options)\n",
		        e.msg);
		return -1;
	}
	if (a->help || a->version) {
		if (a->help)
			usage_print(stdout);
		else
			printf("fleettune-agent %s\n", FLEETTUNE_VERSION);
		exit(0);
	}
	return 0;
}

static int mkdir_p(const char *path, mode_t mode)
{
	char tmp[PATH_MAX];
	char *p;

	snprintf(tmp, sizeof(tmp), "%s", path);
	for (p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(tmp, mode) < 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(tmp, mode) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

/* The state directory holds the token, the audit log and the results: warn when group or
 * others may enter it (a directory made here is 0700; an existing one is left as it is). */
static void state_dir_check(const char *dir)
{
	struct stat st;

	if (stat(dir, &st) == 0 && (st.st_mode & 077))
		log_warn(
		        "state directory '%s' is mode %04o: group or others may read the audit log "
		        "and results in it; 'chmod 700 %s' keeps it private",
		        dir, (unsigned int)(st.st_mode & 0777), dir);
}

static char *read_pem(const char *path, struct err *e)
{
	struct buf b = BUF_INIT;
	int rc = buf_read_file(&b, path, 1024 * 1024);

	if (rc) {
		buf_release(&b);
		err_set(e, rc, ERR_INTERNAL, "cannot read '%s': %s", path, strerror(-rc));
		return NULL;
	}
	return buf_detach(&b, NULL);
}

static const char *default_web_root(void)
{
	static char path[PATH_MAX];
	struct stat st;

	snprintf(path, sizeof(path), "%s/index.html", FLEETTUNE_WEB_DIR);
	if (stat(path, &st) == 0)
		return FLEETTUNE_WEB_DIR;
	snprintf(path, sizeof(path), "%s/web/index.html", FLEETTUNE_SOURCE_DIR);
	if (stat(path, &st) == 0) {
		snprintf(path, sizeof(path), "%s/web", FLEETTUNE_SOURCE_DIR);
		return path;
	}
	return NULL;
}

/* The HTTP server's configuration for agent a (TLS with cert and key, when given). */
static void httpd_config_fill(struct httpd_config *hc, struct agent *a, const char *cert,
                              const char *key)
{
	memset(hc, 0, sizeof(*hc));
	hc->listen = a->cfg.listen;
	hc->tls_cert_pem = cert;
	hc->tls_key_pem = key;
	hc->routes = api_routes;
	hc->n_routes = api_n_routes;
	hc->app = a;
	hc->token = a->token;
	hc->public_read = a->cfg.public_read;
	hc->public_read_private = a->cfg.public_read_private;
	hc->public_metrics = a->cfg.public_metrics;
	hc->max_held = a->cfg.max_held;
	hc->max_held_per_ip = a->cfg.max_held_per_ip;
	hc->web_root = a->cfg.web_root;
	hc->max_conns = a->cfg.max_conns;
	hc->max_conns_per_ip = a->cfg.max_conns_per_ip;
	hc->conn_timeout_s = a->cfg.conn_timeout_s;
}

/* The waiter a pre-started fio runs (waiter.h): fleettune-wait beside the agent's binary, else
 * the agent's binary itself (its --wait-until mode); NULL, and said, when /proc/self/exe cannot
 * be read or put in a command (a path with a blank, a binary replaced since: "... (deleted)"). */
static const char *waiter_exe(void)
{
	static char path[PATH_MAX], wait[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
	char *slash;

	if (n <= 0) {
		log_warn(
		        "cannot read /proc/self/exe: fio is spawned at a job's moment, not before");
		return NULL;
	}
	path[n] = '\0';
	slash = strrchr(path, '/');
	if (slash && (size_t)(slash - path) + sizeof("/fleettune-wait") <= sizeof(wait)) {
		snprintf(wait, sizeof(wait), "%.*s/fleettune-wait", (int)(slash - path), path);
		if (waiter_exe_ok(wait) && access(wait, X_OK) == 0)
			return wait;
	}
	if (!waiter_exe_ok(path)) {
		log_warn("the agent's path '%s' cannot be put in fio's prerun command: fio is "
		         "spawned at a job's moment, not before",
		         path);
		return NULL;
	}
	return path;
}

/* A job's version changed: run the long-polls held on it again; those that wait for its end
 * (until=end) only when it has ended. */
static void job_changed(void *cls, int64_t id, bool ended)
{
	httpd_wake(cls, job_wait_key(id, false));
	if (ended)
		httpd_wake(cls, job_wait_key(id, true));
}

int main(int argc, char **argv)
{
	static struct agent a;
	struct agent_args args;
	struct agent_config cfg;
	struct httpd_config hc;
	char *cert = NULL, *key = NULL;
	struct timespec tick = { 1, 0 };
	sigset_t sigs;
	struct err e;
	int rc = 1, sig;

	/* The waiter of a fio spawned before its moment (waiter.h): nothing else of the agent. */
	rc = waiter_main(argc, argv);
	if (rc >= 0)
		return rc;
	rc = 1;
	log_init("fleettune-agent", LOG_INFO);
	if (parse_args(argc, argv, &args))
		return 2;
	cfg = args.cfg;
	cfg.waiter_exe = waiter_exe();
	if (args.verbose)
		log_init("fleettune-agent", LOG_DEBUG);
	err_clear(&e);
	if (!cfg.web_root)
		cfg.web_root = default_web_root();

	/* Signals go to this thread only: block them before any thread starts. */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	signal(SIGPIPE, SIG_IGN);

	if (mkdir_p(cfg.state_dir, 0700) < 0) {
		log_error("cannot create state directory '%s': %s", cfg.state_dir, strerror(errno));
		goto out;
	}
	state_dir_check(cfg.state_dir);
	if (cfg.tls_cert || cfg.tls_key) {
		if (!cfg.tls_cert || !cfg.tls_key) {
			log_error("--tls-cert and --tls-key go together");
			goto out;
		}
		cert = read_pem(cfg.tls_cert, &e);
		key = cert ? read_pem(cfg.tls_key, &e) : NULL;
		if (!cert || !key) {
			log_error("%s", e.msg);
			goto out;
		}
	}
	/* The state directory's lock, then the token, then recovery (agent.h). */
	if (agent_init(&a, &cfg, &e)) {
		log_error("%s", e.msg);
		goto out;
	}

	httpd_config_fill(&hc, &a, cert, key);
	if (httpd_start(&a.httpd, &hc, &e)) {
		log_error("%s", e.msg);
		goto out;
	}
	jobq_watch(a.jobs, job_changed, a.httpd);
	{
		const char *colon = strrchr(a.cfg.listen, ':');

		log_info("fleettune-agent %s node %s listening on %s://%.*s:%u (%d allowed "
		         "device(s), sysfs root %s, web root %s)",
		         FLEETTUNE_VERSION, a.node, cert ? "https" : "http",
		         (int)(colon - a.cfg.listen), a.cfg.listen, httpd_port(a.httpd),
		         a.cfg.n_allow_devices, a.cfg.sysfs_root,
		         a.cfg.web_root ? a.cfg.web_root : "(none)");
	}
	for (;;) {
		sig = sigtimedwait(&sigs, NULL, &tick);
		if (sig == SIGTERM || sig == SIGINT) {
			log_info("received %s, shutting down",
			         sig == SIGTERM ? "SIGTERM" : "SIGINT");
			break;
		}
		session_expire_due(&a.sessions, time_now_s());
	}
	rc = 0;
out:
	if (a.jobs)
		jobq_watch(a.jobs, NULL, NULL);
	httpd_stop(a.httpd);
	a.httpd = NULL;
	agent_release(&a);
	free(cert);
	free(key);
	return rc;
}
