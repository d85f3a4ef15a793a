/* fakefio_fixed.c -- a stand-in for fio (agent --fio) for bench/fleet.sh: each run takes its
 * job's --runtime exactly and prints fio-shaped JSON whose bandwidth carries seeded noise. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "banned.h"

/*
 * Environment (all optional):
 *   FAKEFIO_SEED       seed of the noise (default 1); give each agent its own
 *   FAKEFIO_COUNT      a file: one byte is appended per run, so that run k of an agent draws
 *                      its own noise, the same in every repetition of the benchmark
 *   FAKEFIO_BW_MIB     mean bandwidth (default 1000)
 *   FAKEFIO_NOISE_PCT  standard deviation of the bandwidth, in % of the mean (default 2)
 * "--version" prints "fio-3.33". The runtime is --runtime=N (seconds; default 1).
 */

/* splitmix64: a small, well-mixed generator; the noise needs nothing more. */
static uint64_t mix(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

/* A standard normal draw (sum of 12 uniforms less 6: enough for benchmark noise). */
static double normal(uint64_t *s)
{
	double sum = 0;
	int i;

	for (i = 0; i < 12; i++)
		sum += (double)(mix(s) >> 11) / (double)(1ull << 53);
	return sum - 6.0;
}

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

/* The runs so far, counted in FAKEFIO_COUNT's bytes; this run's byte is appended. */
static long run_index(void)
{
	const char *path = getenv("FAKEFIO_COUNT");
	FILE *f;
	long n;

	if (!path || !*path)
		return 0;
	f = fopen(path, "a");
	if (!f)
		return 0;
	n = ftell(f);
	fputc('.', f);
	fclose(f);
	return n < 0 ? 0 : n;
}

int main(int argc, char **argv)
{
	double runtime_s = 1, bw_mib, iops;
	struct timespec ts;
	uint64_t seed;
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--version")) {
			puts("fio-3.33");
			return 0;
		}
		if (!strncmp(argv[i], "--runtime=", 10))
			runtime_s = strtod(argv[i] + 10, NULL);
	}
	seed = (uint64_t)env_num("FAKEFIO_SEED", 1) * 1000003u + (uint64_t)run_index();
	bw_mib = env_num("FAKEFIO_BW_MIB", 1000) *
	         (1 + env_num("FAKEFIO_NOISE_PCT", 2) / 100 * normal(&seed));
	if (bw_mib < 1)
		bw_mib = 1;
	iops = bw_mib * 16; /* 64 KiB blocks */
	ts.tv_sec = (time_t)runtime_s;
	ts.tv_nsec = (long)((runtime_s - (double)ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
	printf("{\"fio version\":\"fio-3.33\",\"jobs\":[{\"jobname\":\"fakefio\",\"error\":0,"
	       "\"read\":{\"io_bytes\":0,\"total_ios\":0},"
	       "\"write\":{\"io_bytes\":%.0f,\"bw_bytes\":%.0f,\"bw\":%.0f,\"iops\":%.3f,"
	       "\"total_ios\":%.0f,\"clat_ns\":{\"mean\":%.1f,\"percentile\":{\"50.000000\":%.0f,"
	       "\"99.000000\":%.0f,\"99.900000\":%.0f}}},"
	       "\"usr_cpu\":1.0,\"sys_cpu\":2.0}]}\n",
	       bw_mib * 1048576 * runtime_s, bw_mib * 1048576, bw_mib * 1024, iops,
	       iops * runtime_s, 1e9 / iops, 1e9 / iops, 3e9 / iops, 5e9 / iops);
	return 0;
}
