/* main.c -- fleettune-agent: command line, token, TLS files, agent_init, HTTP, signal loop. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
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
#include "log.h"
#include "num.h"
#include "queue/job.h"
#include "state/agent.h"
#include "timeutil.h"
#include "version.h"
#include "xmalloc.h"
#include "banned.h"

static const char usage_text[] =
        "usage: fleettune-agent [options]\n"
        "\n"
        "Serve the fleettune HTTP JSON API for this node's block devices.\n"
        "\n"
        "  --listen ADDR:PORT        address to listen on (default 127.0.0.1:7070; port 0 = any)\n"
        "  --node-name NAME          node name reported by /api/v1/health (default: hostname)\n"
        "  --state-dir DIR           database and token directory (default /var/lib/fleettune)\n"
        "  --token-file FILE         bearer token file (default STATE_DIR/token; created 0600 "
        "if absent; refused if group or others may read or write it)\n"
        "  --allow-device NAME       device that may be written and benchmarked (repeatable)\n"
        "  --allow-dir DIR           directory under which jobs may create files (repeatable)\n"
        "  --allow-format[=NAME]     jobs may make a filesystem (mkfs, mount) on NAME, or\n"
        "                            without =NAME on every --allow-device (repeatable)\n"
        "  --allow-sysctl            permit writes to the vm.* / fs.* sysctls\n"
        "  --sysfs-root DIR          read DIR/sys/block and DIR/proc/sys (default /)\n"
        "  --hide-serial             report device serials as a stable hash (sha256:...)\n"
        "  --fio PATH                fio binary (default: fio on PATH)\n"
        "  --web-root DIR            static web page directory (default: installed share dir)\n"
        "  --public-read             GET endpoints need no token, except the audit log and raw\n"
        "                            engine output (see README, \"What --public-read shows\")\n"
        "  --public-read-private     with --public-read, open those two as well\n"
        "  --public-metrics          GET /metrics needs no token\n"
        "  --params-cache-ms N       reuse a rendered GET params body for N ms unless the agent\n"
        "                            wrote something meanwhile (default 100, 0 = always read)\n"
        "  --max-connections N       HTTP connections served at once (default 1024); the\n"
        "                            descriptor limit is raised to fit where allowed\n"
        "  --max-connections-per-ip N  of those, what one client address may hold (default\n"
        "                            128): more are closed at once, so one host cannot lock\n"
        "                            out the others\n"
        "  --max-held N              long-polls held at once (default max-connections / 2);\n"
        "                            more are answered 503 too_many_waits at once\n"
        "  --max-held-per-ip N       of those, from one client address (default\n"
        "                            max-connections-per-ip / 2)\n"
        "  --max-queued N            jobs that may wait in the queue (default 256); more are\n"
        "                            answered 429 queue_full\n"
        "  --connection-timeout-s N  close a connection idle for N s: a keep-alive one, or a\n"
        "                            request whose headers or body stop coming (default 15)\n"
        "  --contain MODE            how job processes are kept so that all can be killed, also\n"
        "                            after a crash: auto (a cgroup v2 per job where one can be\n"
        "                            made, else /proc trees with start times), cgroup, proc\n"
        "                            (default auto)\n"
        "  --drift-check-s N         compare the devices' live values with the profiles the\n"
        "                            agent keeps every N s (default 5); devices that appear\n"
        "                            are looked for every second\n"
        "  --tls-cert FILE           PEM certificate: serve HTTPS (with --tls-key)\n"
        "  --tls-key FILE            PEM private key\n"
        "  --verbose                 debug logging (each pass's engine command line too)\n"
        "  --version                 print the version and exit\n"
        "  --help                    this text\n"
        "\n"
        "Every /api/v1 route except /api/v1/health needs 'Authorization: Bearer TOKEN'.\n"
        "The API is described in schema/openapi.yaml.\n";

enum {
	OPT_LISTEN = 256,
	OPT_NODE,
	OPT_STATE,
	OPT_TOKEN,
	OPT_ALLOW_DEV,
	OPT_ALLOW_DIR,
	OPT_ALLOW_FORMAT,
	OPT_ALLOW_SYSCTL,
	OPT_HIDE_SERIAL,
	OPT_SYSFS,
	OPT_FIO,
	OPT_WEB,
	OPT_PUBLIC_READ,
	OPT_PUBLIC_METRICS,
	OPT_PUBLIC_READ_PRIVATE,
	OPT_MAX_HELD,
	OPT_MAX_HELD_IP,
	OPT_MAX_QUEUED,
	OPT_CACHE,
	OPT_CONTAIN,
	OPT_MAX_CONNS,
	OPT_MAX_CONNS_IP,
	OPT_CONN_TIMEOUT,
	OPT_DRIFT_CHECK,
	OPT_CERT,
	OPT_KEY,
	OPT_VERBOSE,
	OPT_VERSION,
	OPT_HELP,
};

static const struct option long_opts[] = {
	{ "listen", required_argument, NULL, OPT_LISTEN },
	{ "node-name", required_argument, NULL, OPT_NODE },
	{ "state-dir", required_argument, NULL, OPT_STATE },
	{ "token-file", required_argument, NULL, OPT_TOKEN },
	{ "allow-device", required_argument, NULL, OPT_ALLOW_DEV },
	{ "allow-dir", required_argument, NULL, OPT_ALLOW_DIR },
	{ "allow-format", optional_argument, NULL, OPT_ALLOW_FORMAT },
	{ "allow-sysctl", no_argument, NULL, OPT_ALLOW_SYSCTL },
	{ "hide-serial", no_argument, NULL, OPT_HIDE_SERIAL },
	{ "sysfs-root", required_argument, NULL, OPT_SYSFS },
	{ "fio", required_argument, NULL, OPT_FIO },
	{ "web-root", required_argument, NULL, OPT_WEB },
	{ "public-read", no_argument, NULL, OPT_PUBLIC_READ },
	{ "public-metrics", no_argument, NULL, OPT_PUBLIC_METRICS },
	{ "public-read-private", no_argument, NULL, OPT_PUBLIC_READ_PRIVATE },
	{ "max-held", required_argument, NULL, OPT_MAX_HELD },
	{ "max-held-per-ip", required_argument, NULL, OPT_MAX_HELD_IP },
	{ "max-queued", required_argument, NULL, OPT_MAX_QUEUED },
	{ "params-cache-ms", required_argument, NULL, OPT_CACHE },
	{ "contain", required_argument, NULL, OPT_CONTAIN },
	{ "max-connections", required_argument, NULL, OPT_MAX_CONNS },
	{ "max-connections-per-ip", required_argument, NULL, OPT_MAX_CONNS_IP },
	{ "connection-timeout-s", required_argument, NULL, OPT_CONN_TIMEOUT },
	{ "drift-check-s", required_argument, NULL, OPT_DRIFT_CHECK },
	{ "tls-cert", required_argument, NULL, OPT_CERT },
	{ "tls-key", required_argument, NULL, OPT_KEY },
	{ "verbose", no_argument, NULL, OPT_VERBOSE },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ "help", no_argument, NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

/* A numeric flag in min..max. */
static int opt_uint(const char *flag, const char *arg, int64_t min, int64_t max, unsigned *out)
{
	int64_t v;

	if (num_parse_i64(arg, &v) || v < min || v > max) {
		fprintf(stderr, "fleettune-agent: --%s: expected %lld..%lld\n", flag,
		        (long long)min, (long long)max);
		return -1;
	}
	*out = (unsigned)v;
	return 0;
}

static int parse_args(int argc, char **argv, struct agent_config *c, bool *verbose)
{
	static char dir_buf[AGENT_MAX_ALLOW][PATH_MAX];
	int opt;

	memset(c, 0, sizeof(*c));
	c->listen = "127.0.0.1:7070";
	c->state_dir = "/var/lib/fleettune";
	c->sysfs_root = "/";
	c->fio_path = "fio";
	c->params_cache_ms = 100;
	while ((opt = getopt_long(argc, argv, "", long_opts, NULL)) != -1) {
		switch (opt) {
		case OPT_LISTEN:
			c->listen = optarg;
			break;
		case OPT_NODE:
			c->node_name = optarg;
			break;
		case OPT_STATE:
			c->state_dir = optarg;
			break;
		case OPT_TOKEN:
			c->token_file = optarg;
			break;
		case OPT_ALLOW_DEV:
			if (c->n_allow_devices >= AGENT_MAX_ALLOW ||
			    !sysfs_device_name_ok(optarg)) {
				fprintf(stderr,
				        "fleettune-agent: bad or too many --allow-device '%s'\n",
				        optarg);
				return -1;
			}
			c->allow_devices[c->n_allow_devices++] = optarg;
			break;
		case OPT_ALLOW_DIR:
			if (c->n_allow_dirs >= AGENT_MAX_ALLOW ||
			    !realpath(optarg, dir_buf[c->n_allow_dirs])) {
				fprintf(stderr, "fleettune-agent: --allow-dir '%s': %s\n", optarg,
				        strerror(errno ? errno : E2BIG));
				return -1;
			}
			c->allow_dirs[c->n_allow_dirs] = dir_buf[c->n_allow_dirs];
			c->n_allow_dirs++;
			break;
		case OPT_ALLOW_FORMAT:
			if (!optarg) {
				c->allow_format_all = true;
				break;
			}
			if (c->n_allow_format >= AGENT_MAX_ALLOW || !sysfs_device_name_ok(optarg)) {
				fprintf(stderr,
				        "fleettune-agent: bad or too many --allow-format '%s'\n",
				        optarg);
				return -1;
			}
			c->allow_format[c->n_allow_format++] = optarg;
			break;
		case OPT_ALLOW_SYSCTL:
			c->allow_sysctl = true;
			break;
		case OPT_HIDE_SERIAL:
			c->hide_serial = true;
			break;
		case OPT_SYSFS:
			c->sysfs_root = optarg;
			break;
		case OPT_FIO:
			c->fio_path = optarg;
			break;
		case OPT_WEB:
			c->web_root = optarg;
			break;
		case OPT_PUBLIC_READ:
			c->public_read = true;
			break;
		case OPT_PUBLIC_METRICS:
			c->public_metrics = true;
			break;
		case OPT_PUBLIC_READ_PRIVATE:
			c->public_read_private = true;
			break;
		case OPT_MAX_HELD:
			if (opt_uint("max-held", optarg, 1, 1 << 20, &c->max_held))
				return -1;
			break;
		case OPT_MAX_HELD_IP:
			if (opt_uint("max-held-per-ip", optarg, 1, 1 << 20, &c->max_held_per_ip))
				return -1;
			break;
		case OPT_MAX_QUEUED:
			if (opt_uint("max-queued", optarg, 1, 100000, &c->max_queued))
				return -1;
			break;
		case OPT_CACHE: {
			int64_t ms;

			if (num_parse_i64(optarg, &ms) || ms < 0 || ms > 60000) {
				fprintf(stderr,
				        "fleettune-agent: --params-cache-ms: expected 0..60000\n");
				return -1;
			}
			c->params_cache_ms = (int)ms;
			break;
		}
		case OPT_CONTAIN:
			if (contain_mode_parse(optarg, &c->contain)) {
				fprintf(stderr,
				        "fleettune-agent: --contain: expected auto, cgroup or "
				        "proc\n");
				return -1;
			}
			break;
		case OPT_MAX_CONNS:
			if (opt_uint("max-connections", optarg, 16, 1 << 20, &c->max_conns))
				return -1;
			break;
		case OPT_MAX_CONNS_IP:
			if (opt_uint("max-connections-per-ip", optarg, 1, 1 << 20,
			             &c->max_conns_per_ip))
				return -1;
			break;
		case OPT_CONN_TIMEOUT:
			if (opt_uint("connection-timeout-s", optarg, 1, 3600, &c->conn_timeout_s))
				return -1;
			break;
		case OPT_DRIFT_CHECK:
			if (opt_uint("drift-check-s", optarg, 1, 86400, &c->drift_check_s))
				return -1;
			break;
		case OPT_CERT:
			c->tls_cert = optarg;
			break;
		case OPT_KEY:
			c->tls_key = optarg;
			break;
		case OPT_VERBOSE:
			*verbose = true;
			break;
		case OPT_VERSION:
			printf("fleettune-agent %s\n", FLEETTUNE_VERSION);
			exit(0);
		case OPT_HELP:
			fputs(usage_text, stdout);
			exit(0);
		default:
			fputs(usage_text, stderr);
			return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "fleettune-agent: unexpected argument '%s'%s\n", argv[optind],
		        !strcmp(argv[optind - 1], "--allow-format")
		                ? " (a device for --allow-format goes after '=': "
		                  "--allow-format=NAME)"
		                : "");
		return -1;
	}
	for (opt = 0; opt < c->n_allow_format; opt++) {
		int k;

		for (k = 0; k < c->n_allow_devices; k++)
			if (!strcmp(c->allow_devices[k], c->allow_format[opt]))
				break;
		if (k == c->n_allow_devices) {
			fprintf(stderr,
			        "fleettune-agent: --allow-format=%s: the device must also be given "
			        "with --allow-device %s\n",
			        c->allow_format[opt], c->allow_format[opt]);
			return -1;
		}
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
		err_set(e, rc, "internal", "cannot read '%s': %s", path, strerror(-rc));
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

/* A job's version changed: run the long-polls held on it again. */
static void job_changed(void *cls, int64_t id)
{
	httpd_wake(cls, (uint64_t)id);
}

int main(int argc, char **argv)
{
	static struct agent a;
	struct agent_config cfg;
	struct httpd_config hc;
	char *cert = NULL, *key = NULL;
	bool verbose = false;
	struct timespec tick = { 1, 0 };
	sigset_t sigs;
	struct err e;
	int rc = 1, sig;

	log_init("fleettune-agent", LOG_INFO);
	if (parse_args(argc, argv, &cfg, &verbose))
		return 2;
	if (verbose)
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

	memset(&hc, 0, sizeof(hc));
	hc.listen = a.cfg.listen;
	hc.tls_cert_pem = cert;
	hc.tls_key_pem = key;
	hc.routes = api_routes;
	hc.n_routes = api_n_routes;
	hc.app = &a;
	hc.token = a.token;
	hc.public_read = a.cfg.public_read;
	hc.public_read_private = a.cfg.public_read_private;
	hc.public_metrics = a.cfg.public_metrics;
	hc.max_held = a.cfg.max_held;
	hc.max_held_per_ip = a.cfg.max_held_per_ip;
	hc.web_root = a.cfg.web_root;
	hc.max_conns = a.cfg.max_conns;
	hc.max_conns_per_ip = a.cfg.max_conns_per_ip;
	hc.conn_timeout_s = a.cfg.conn_timeout_s;
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
