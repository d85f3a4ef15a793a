/* fakefio.c -- a stand-in for fio (agent --fio) for the benchmarks: answers from a response
 * surface read against the agent's sysfs tree (bench/search.sh), takes each job's --runtime
 * exactly (FAKEFIO_MODE=fixed, bench/fleet.sh), or drifts run by run whatever the settings
 * (FAKEFIO_MODE=drift, bench/drift.sh); seeded Gaussian noise, fio-shaped JSON. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "banned.h"

/*
 * Environment (set per agent by the bench scripts; the agent passes its environment on).
 * FAKEFIO_MODE selects the mode: "surface" (the default), "fixed" or "drift".
 *
 * Surface mode (bench/search.sh):
 *   FAKEFIO_SYSFS  the agent's --sysfs-root (read DIR/sys/block/DEV/queue/PARAM)
 *   FAKEFIO_NODE   this node's index (0, 1, ...)
 *   FAKEFIO_CTL    a file the bench rewrites before each sweep:
 *                    spec PATH      the surface (below)
 *                    seed N         the scenario seed
 *                    counter PATH   pass counters live in PATH.NODE (one per node)
 *                    sleep_ms N     how long each "run" sleeps
 * Spec file, one entry a line ('#' comments):
 *   base MEAN                   the metric at the baseline (write.bw_mib)
 *   cv FRACTION                 per-pass noise: SD / mean
 *   node_sd FRACTION            each node's fixed offset: SD of a seeded Gaussian factor
 *   param NAME VALUE FACTOR     the metric times FACTOR when NAME reads VALUE
 *   param NAME VALUE FACTOR until N
 *                               the same, only for this node's passes 0..N-1 (pass counter):
 *                               an effect that is gone later in the sweep (a final
 *                               confirmation that does not confirm an axis row)
 *   inter N1 V1 N2 V2 FACTOR    times FACTOR when both hold (an interaction)
 *   if FILE VALUE param NAME V FACTOR
 *                               the param line only for a device whose DIR/sys/block/DEV/FILE
 *                               reads VALUE (trailing blanks trimmed: device/model,
 *                               device/rev): a per-cohort effect (bench/cohorts.sh)
 *   wparam I NAME VALUE FACTOR  a suite job's section I (0-based: the agent's --name=W-wI
 *                               sections, one per workload) only: its bandwidth times FACTOR
 *   wlat I NAME VALUE FACTOR    section I's latencies (clat mean, p50, p99, p99.9) times
 *                               FACTOR (its bandwidth unchanged)
 * The pass value is base x factors x node factor x (1 + cv x z), z ~ N(0, 1) from a hash
 * of (seed, node, pass counter): deterministic for a scenario, seed and node. A job with
 * sections (workloads) is answered with one "jobs" entry per section, named as the agent named
 * it, each its own draw, reading or writing as its --rw says (a mixed one both, half each).
 *
 * Fixed mode (bench/fleet.sh): each run sleeps the job's --runtime=N (seconds; default 1).
 *   FAKEFIO_SEED       seed of the noise (default 1); give each agent its own
 *   FAKEFIO_COUNT      a counter file: run k of an agent draws its own noise, the same in every
 *                      repetition of the benchmark (without it every run draws run 0's)
 *   FAKEFIO_BW_MIB     mean bandwidth (default 1000)
 *   FAKEFIO_NOISE_PCT  standard deviation of the bandwidth, in % of the mean (default 2)
 *   FAKEFIO_STARTS     a file each run appends "RUN EPOCH_S" to, RUN as FAKEFIO_COUNT counts it
 *                      and EPOCH_S the wall clock read as main() begins, after the
 *                      --exec_prerun it was given returned (to the microsecond): when the engine
 * really started, whatever the agent's records say (bench/fleet.sh's pass-start spread)
 *
 * Drift mode (bench/drift.sh, tests/integration/it_ctl_drift.sh): no setting matters; run k
 * of an agent (FAKEFIO_COUNT as above, k from 0; or, when FAKEFIO_CTL is set, its "counter
 * PATH" as PATH.FAKEFIO_NODE, its "seed N" mixed with the node, and optional "warmup_runs N"
 * and "warmup_pct P" in place of the environment's) gives
 *   FAKEFIO_BW_MIB x (1 + FAKEFIO_DRIFT_PCT/100)^k x (1 + FAKEFIO_NOISE_PCT/100 x z)
 * further lowered by FAKEFIO_WARMUP_PCT % for the first FAKEFIO_WARMUP_RUNS runs (default 0:
 * a warm-up the device gets over). z ~ N(0, 1) from a hash of (FAKEFIO_SEED, k). Defaults:
 * 1000 MiB/s, drift 0.5 % per run, noise 1 %; each run sleeps FAKEFIO_SLEEP_MS (default: the
 * job's --runtime in ms).
 *
 * All modes: "--exec_prerun=CMD" is run as fio 3.33 runs it, after the setup and before the
 * job starts (so FAKEFIO_STARTS reads the clock after it returns): "<jobname> : Saving output of
 * prerun in <jobname>.prerun.txt" on stdout, then system("CMD > <jobname>.prerun.txt 2>&1") in
 * the cwd, the jobname being the --name before it; a prerun that fails fails the run (exit 1).
 * "--version" prints "fio-3.33"; the JSON has the write side of a 64 KiB job (bw, iops,
 * io_bytes, clat percentiles) with the value as write bandwidth in MiB/s.
 */

#define LINE_MAX_LEN 512

static uint64_t mix(uint64_t x)
{
	x += 0x9E3779B97F4A7C15ull;
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
	return x ^ (x >> 31);
}

/* A standard normal from two hashed uniforms (Box-Muller). */
static double gauss(uint64_t key)
{
	double u1 = ((double)(mix(key) >> 11) + 0.5) / 9007199254740992.0;
	double u2 = ((double)(mix(key ^ 0xD1B54A32D192ED03ull) >> 11) + 0.5) / 9007199254740992.0;

	return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

/* The value a parameter file holds: the bracketed choice for a scheduler-style list. */
static int param_read(const char *root, const char *dev, const char *name, char *out, size_t len)
{
	char path[1024], buf[256], *a, *b;
	FILE *f;

	snprintf(path, sizeof(path), "%s/sys/block/%s/queue/%s", root, dev, name);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	a = strchr(buf, '[');
	b = a ? strchr(a, ']') : NULL;
	if (a && b) {
		*b = '\0';
		snprintf(out, len, "%s", a + 1);
	} else {
		snprintf(out, len, "%s", buf);
	}
	return 0;
}

/* Does parameter name of dev read value? */
static int param_is(const char *root, const char *dev, const char *name, const char *value)
{
	char v[256];

	return param_read(root, dev, name, v, sizeof(v)) == 0 && !strcmp(v, value);
}

/* Does the file below dev's directory read value (trailing blanks and newline trimmed)? */
static int attr_is(const char *root, const char *dev, const char *rel, const char *value)
{
	char path[1024], buf[256];
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/sys/block/%s/%s", root, dev, rel);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	n = strlen(buf);
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return !strcmp(buf, value);
}

/* The surface's mean for dev, and its cv and node_sd. */
static int surface_eval(const char *spec, const char *root, const char *dev, long pass,
                        double *mean, double *cv, double *node_sd)
{
	char line[LINE_MAX_LEN], n1[128], v1[128], n2[128], v2[128], af[128], av[128];
	double x;
	long until;
	FILE *f = fopen(spec, "r");

	if (!f)
		return -errno;
	*mean = 100;
	*cv = 0.02;
	*node_sd = 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "base %lf", &x) == 1)
			*mean *= x / 100;
		else if (sscanf(line, "cv %lf", &x) == 1)
			*cv = x;
		else if (sscanf(line, "node_sd %lf", &x) == 1)
			*node_sd = x;
		else if (sscanf(line, "param %127s %127s %lf until %ld", n1, v1, &x, &until) == 4) {
			if (pass < until && param_is(root, dev, n1, v1))
				*mean *= x;
		} else if (sscanf(line, "param %127s %127s %lf", n1, v1, &x) == 3 &&
		           param_is(root, dev, n1, v1))
			*mean *= x;
		else if (sscanf(line, "if %127s %127s param %127s %127s %lf", af, av, n1, v1, &x) ==
		                 5 &&
		         attr_is(root, dev, af, av) && param_is(root, dev, n1, v1))
			*mean *= x;
		else if (sscanf(line, "inter %127s %127s %127s %127s %lf", n1, v1, n2, v2, &x) ==
		                 5 &&
		         param_is(root, dev, n1, v1) && param_is(root, dev, n2, v2))
			*mean *= x;
	}
	fclose(f);
	return 0;
}

/* Section sec's bandwidth and latency factors from the spec's wparam and wlat lines. */
static void section_eval(const char *spec, const char *root, const char *dev, int sec, double *bw,
                         double *lat)
{
	char line[LINE_MAX_LEN], n1[128], v1[128];
	double x;
	int i;
	FILE *f = fopen(spec, "r");

	*bw = *lat = 1;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "wparam %d %127s %127s %lf", &i, n1, v1, &x) == 4 && i == sec &&
		    param_is(root, dev, n1, v1))
			*bw *= x;
		else if (sscanf(line, "wlat %d %127s %127s %lf", &i, n1, v1, &x) == 4 && i == sec &&
		         param_is(root, dev, n1, v1))
			*lat *= x;
	}
	fclose(f);
}

/* The next pass number of this node (a counter file, locked). */
static long counter_next(const char *path)
{
	char buf[32] = "";
	long n = 0;
	ssize_t r;
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);

	if (fd < 0)
		return -1;
	flock(fd, LOCK_EX);
	r = pread(fd, buf, sizeof(buf) - 1, 0);
	if (r > 0) {
		buf[r] = '\0';
		n = strtol(buf, NULL, 10);
	}
	snprintf(buf, sizeof(buf), "%ld\n", n + 1);
	if (ftruncate(fd, 0) < 0 || pwrite(fd, buf, strlen(buf), 0) < 0)
		n = -1;
	close(fd);
	return n;
}

/* The control file's settings. */
struct ctl {
	char spec[1024], counter[1024];
	uint64_t seed;
	long sleep_ms;
	double warmup_runs, warmup_pct; /* drift mode; -1: not given (the environment's) */
};

static int ctl_read(const char *path, struct ctl *c)
{
	char line[LINE_MAX_LEN];
	unsigned long long seed;
	FILE *f = fopen(path, "r");

	if (!f)
		return -errno;
	memset(c, 0, sizeof(*c));
	c->warmup_runs = c->warmup_pct = -1;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(line, "spec ", 5))
			snprintf(c->spec, sizeof(c->spec), "%s", line + 5);
		else if (!strncmp(line, "counter ", 8))
			snprintf(c->counter, sizeof(c->counter), "%s", line + 8);
		else if (sscanf(line, "seed %llu", &seed) == 1)
			c->seed = seed;
		else if (sscanf(line, "warmup_runs %lf", &c->warmup_runs) == 1 ||
		         sscanf(line, "warmup_pct %lf", &c->warmup_pct) == 1)
			continue;
		else
			sscanf(line, "sleep_ms %ld", &c->sleep_ms);
	}
	fclose(f);
	return c->counter[0] ? 0 : -EINVAL;
}

/* A number from the environment; dflt when unset or not a number. */
static double env_num(const char *name, double dflt)
{
	const char *v = getenv(name);
	char *end;
	double d;

	if (!v || !*v)
		return dflt;
	d = strtod(v, &end);
	return *end ? dflt : d;
}

/* fio's JSON for one run of runtime_s at bw_mib MiB/s of 64 KiB writes. */
static void json_print(double bw_mib, double runtime_s)
{
	double bw_bytes = bw_mib * 1048576, iops = bw_bytes / 65536;

	printf("{\"fio version\":\"fio-3.33\",\"jobs\":[{\"jobname\":\"fakefio\",\"error\":0,"
	       "\"read\":{\"io_bytes\":0,\"total_ios\":0},"
	       "\"write\":{\"io_bytes\":%.0f,\"bw_bytes\":%.0f,\"bw\":%.0f,\"iops\":%.3f,"
	       "\"total_ios\":%.0f,\"clat_ns\":{\"mean\":%.1f,\"percentile\":{\"50.000000\":%.0f,"
	       "\"99.000000\":%.0f,\"99.900000\":%.0f}}},"
	       "\"usr_cpu\":1.0,\"sys_cpu\":2.0}]}\n",
	       bw_bytes * runtime_s, bw_bytes, bw_bytes / 1024, iops, iops * runtime_s, 1e9 / iops,
	       1e9 / iops, 3e9 / iops, 5e9 / iops);
}

/* A suite job's sections (the agent's argv: --name=W-wI, then its options): name and rw. */
#define SECTIONS_MAX 16
struct section {
	char name[256];
	char rw[32];
};

/* One section's "jobs" entry: bw_mib MiB/s, its latencies times lat, its direction(s). */
static void section_json(const struct section *sc, double bw_mib, double lat, bool last)
{
	bool mixed = strstr(sc->rw, "rw") || !strcmp(sc->rw, "readwrite");
	bool wr = mixed || strstr(sc->rw, "write"), rd = mixed || !wr;
	double share = mixed ? 0.5 : 1, bw = bw_mib * 1048576 * share, iops = bw / 65536;
	int d;

	printf("{\"jobname\":\"%s\",\"error\":0", sc->name);
	for (d = 0; d < 2; d++) {
		bool on = d ? wr : rd;

		printf(",\"%s\":", d ? "write" : "read");
		if (!on) {
			printf("{\"io_bytes\":0,\"total_ios\":0}");
			continue;
		}
		printf("{\"io_bytes\":%.0f,\"bw_bytes\":%.0f,\"bw\":%.0f,\"iops\":%.3f,"
		       "\"total_ios\":%.0f,\"clat_ns\":{\"mean\":%.1f,\"percentile\":{"
		       "\"50.000000\":%.0f,\"99.000000\":%.0f,\"99.900000\":%.0f}}}",
		       bw, bw, bw / 1024, iops, iops, lat * 1e9 / iops, lat * 1e9 / iops,
		       lat * 3e9 / iops, lat * 5e9 / iops);
	}
	printf(",\"usr_cpu\":1.0,\"sys_cpu\":2.0}%s", last ? "" : ",");
}

/* Surface mode: the surface's value for the device at its current parameters. */
static int surface_run(const char *dev, const struct section *secs, int nsec)
{
	const char *root = getenv("FAKEFIO_SYSFS"), *ctlp = getenv("FAKEFIO_CTL");
	const char *nodes = getenv("FAKEFIO_NODE");
	char cpath[1100];
	double mean = 0, cv = 0, node_sd = 0, v;
	long pass, node = nodes ? strtol(nodes, NULL, 10) : 0;
	struct ctl c;

	if (!root || !ctlp || !dev) {
		fprintf(stderr,
		        "fio: fakefio needs FAKEFIO_SYSFS, FAKEFIO_CTL and --filename=/dev/X\n");
		return 1;
	}
	if (ctl_read(ctlp, &c) < 0 || !c.spec[0]) {
		fprintf(stderr, "fio: fakefio cannot read %s\n", ctlp);
		return 1;
	}
	snprintf(cpath, sizeof(cpath), "%s.%ld", c.counter, node);
	pass = counter_next(cpath);
	if (pass < 0) {
		fprintf(stderr, "fio: fakefio cannot count passes in %s\n", cpath);
		return 1;
	}
	if (surface_eval(c.spec, root, dev, pass, &mean, &cv, &node_sd) < 0) {
		fprintf(stderr, "fio: fakefio cannot read its spec %s\n", c.spec);
		return 1;
	}
	if (c.sleep_ms > 0) {
		struct timespec ts = { c.sleep_ms / 1000, (c.sleep_ms % 1000) * 1000000L };

		nanosleep(&ts, NULL);
	}
	if (nsec > 0) { /* a suite job: each section its own figures and its own draw */
		int i;

		printf("{\"fio version\":\"fio-3.33\",\"jobs\":[");
		for (i = 0; i < nsec; i++) {
			double bw, lat, nf, z;

			section_eval(c.spec, root, dev, i, &bw, &lat);
			nf = 1 + node_sd * gauss(mix(c.seed) ^ mix((uint64_t)node + 1000003 +
			                                           7919 * (uint64_t)i));
			z = gauss(mix(c.seed) ^ mix(((uint64_t)node << 32) + (uint64_t)pass) ^
			          mix(0xA5A5u + (uint64_t)i));
			v = mean * bw * nf * (1 + cv * z);
			if (v < mean * 0.01)
				v = mean * 0.01;
			/* the latency moves with its own noise, opposite to the bandwidth's */
			section_json(
			        &secs[i], v,
			        lat * (1 + cv * gauss(mix(c.seed + 17) ^
			                              mix(((uint64_t)node << 32) + (uint64_t)pass) ^
			                              mix(0x5A5Au + (uint64_t)i))),
			        i == nsec - 1);
		}
		printf("]}\n");
		return 0;
	}
	v = mean * (1 + node_sd * gauss(mix(c.seed) ^ mix((uint64_t)node + 1000003)));
	v *= 1 + cv * gauss(mix(c.seed) ^ mix(((uint64_t)node << 32) + (uint64_t)pass));
	if (v < mean * 0.01)
		v = mean * 0.01;
	json_print(v, 1);
	return 0;
}

/* Append "RUN EPOCH_S" to FAKEFIO_STARTS when it is set; an unwritable file is an error. */
static int start_record(long run, const struct timespec *t0)
{
	const char *path = getenv("FAKEFIO_STARTS");
	char line[64];
	int fd, n, rc = 0;

	if (!path || !*path)
		return 0;
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	n = snprintf(line, sizeof(line), "%ld %lld.%06ld\n", run, (long long)t0->tv_sec,
	             t0->tv_nsec / 1000);
	if (write(fd, line, (size_t)n) != n)
		rc = -1;
	if (close(fd) < 0)
		rc = -1;
	return rc;
}

/* Fixed mode: sleep runtime_s exactly, then a noisy bandwidth around FAKEFIO_BW_MIB. */
static int fixed_run(double runtime_s, const struct timespec *t0)
{
	const char *count = getenv("FAKEFIO_COUNT");
	uint64_t seed = (uint64_t)env_num("FAKEFIO_SEED", 1);
	long run = count && *count ? counter_next(count) : 0;
	double bw_mib;
	struct timespec ts;

	if (run < 0) {
		fprintf(stderr, "fio: fakefio cannot count runs in %s\n", count);
		return 1;
	}
	if (start_record(run, t0) < 0) {
		fprintf(stderr, "fio: fakefio cannot write %s\n", getenv("FAKEFIO_STARTS"));
		return 1;
	}
	bw_mib = env_num("FAKEFIO_BW_MIB", 1000) *
	         (1 + env_num("FAKEFIO_NOISE_PCT", 2) / 100 *
	                      gauss(mix(seed) ^ mix(((uint64_t)1 << 62) + (uint64_t)run)));
	if (bw_mib < 1)
		bw_mib = 1;
	ts.tv_sec = (time_t)runtime_s;
	ts.tv_nsec = (long)((runtime_s - (double)ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
	json_print(bw_mib, runtime_s);
	return 0;
}

/* Drift mode: a figure that moves run by run and never depends on a setting. */
static int drift_run(double runtime_s)
{
	const char *count = getenv("FAKEFIO_COUNT"), *ctlp = getenv("FAKEFIO_CTL");
	uint64_t seed = (uint64_t)env_num("FAKEFIO_SEED", 1);
	double sleep_ms = env_num("FAKEFIO_SLEEP_MS", runtime_s * 1000), bw_mib;
	double warm_runs = env_num("FAKEFIO_WARMUP_RUNS", 0),
	       warm_pct = env_num("FAKEFIO_WARMUP_PCT", 0);
	char cpath[1100];
	struct timespec ts;
	struct ctl c;
	long run;

	if (ctlp && *ctlp) {
		if (ctl_read(ctlp, &c) < 0) {
			fprintf(stderr, "fio: fakefio cannot read %s\n", ctlp);
			return 1;
		}
		snprintf(cpath, sizeof(cpath), "%s.%ld", c.counter,
		         (long)env_num("FAKEFIO_NODE", 0));
		count = cpath;
		seed = mix(c.seed) ^ mix((uint64_t)env_num("FAKEFIO_NODE", 0) + 7777);
		if (c.warmup_runs >= 0)
			warm_runs = c.warmup_runs;
		if (c.warmup_pct >= 0)
			warm_pct = c.warmup_pct;
	}
	run = count && *count ? counter_next(count) : 0;

	if (run < 0) {
		fprintf(stderr, "fio: fakefio cannot count runs in %s\n", count);
		return 1;
	}
	bw_mib = env_num("FAKEFIO_BW_MIB", 1000) *
	         pow(1 + env_num("FAKEFIO_DRIFT_PCT", 0.5) / 100, (double)run) *
	         (1 + env_num("FAKEFIO_NOISE_PCT", 1) / 100 *
	                      gauss(mix(seed) ^ mix(((uint64_t)1 << 61) + (uint64_t)run)));
	if (run < (long)warm_runs)
		bw_mib *= 1 - warm_pct / 100;
	if (bw_mib < 1)
		bw_mib = 1;
	ts.tv_sec = (time_t)(sleep_ms / 1000);
	ts.tv_nsec = (long)((sleep_ms / 1000 - (double)ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
	json_print(bw_mib, runtime_s);
	return 0;
}

/* fio's exec_prerun: cmd run by sh, its output in "<jobname>.prerun.txt"; 0 or -1. */
static int prerun_run(const char *jobname, const char *cmd)
{
	char line[8600];
	int n;

	n = snprintf(line, sizeof(line), "%s > %s.prerun.txt 2>&1", cmd, jobname);
	if (n < 0 || (size_t)n >= sizeof(line))
		return -1;
	printf("%s : Saving output of prerun in %s.prerun.txt\n", jobname, jobname);
	fflush(stdout);
	return system(line) == 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
	const char *mode = getenv("FAKEFIO_MODE"), *dev = NULL, *jobname = "", *prerun = NULL;
	struct section secs[SECTIONS_MAX];
	double runtime_s = 1;
	int i, nsec = 0;
	struct timespec t0;

	for (i = 1; i < argc; i++) {
		const char *w = strncmp(argv[i], "--name=", 7) ? NULL : strrchr(argv[i], '-');

		/* A section of a suite job: --name=W-wI */
		if (w && w[1] == 'w' && w[2] >= '0' && w[2] <= '9' && nsec < SECTIONS_MAX) {
			snprintf(secs[nsec].name, sizeof(secs[nsec].name), "%s", argv[i] + 7);
			snprintf(secs[nsec].rw, sizeof(secs[nsec].rw), "read");
			nsec++;
		}
		if (nsec && !strncmp(argv[i], "--rw=", 5))
			snprintf(secs[nsec - 1].rw, sizeof(secs[nsec - 1].rw), "%s", argv[i] + 5);
		if (!strcmp(argv[i], "--version")) {
			puts("fio-3.33");
			return 0;
		}
		if (!strncmp(argv[i], "--filename=/dev/", 16))
			dev = argv[i] + 16;
		if (!strncmp(argv[i], "--runtime=", 10))
			runtime_s = strtod(argv[i] + 10, NULL);
		if (!prerun && !strncmp(argv[i], "--name=", 7))
			jobname = argv[i] + 7;
		if (!prerun && !strncmp(argv[i], "--exec_prerun=", 14))
			prerun = argv[i] + 14;
	}
	if (prerun && prerun_run(jobname, prerun) < 0) {
		fprintf(stderr,
		        "fio: pid=%d, err=1/file:backend.c, func=exec_prerun, error=prerun "
		        "failed\n",
		        (int)getpid());
		return 1;
	}
	clock_gettime(CLOCK_REALTIME, &t0);
	if (mode && !strcmp(mode, "fixed"))
		return fixed_run(runtime_s, &t0);
	if (mode && !strcmp(mode, "drift"))
		return drift_run(runtime_s);
	if (mode && *mode && strcmp(mode, "surface")) {
		fprintf(stderr, "fio: FAKEFIO_MODE '%s' is not surface, fixed or drift\n", mode);
		return 1;
	}
	return surface_run(dev, secs, nsec);
}
