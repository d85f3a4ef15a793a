/* fuzz_fiofile.c -- libFuzzer harness for the fio job-file parser, its target checks and its
 * rewrite (agent/engines/fiofile.c): what it accepts for a raw-device job renders to a file
 * that names no target but the device and runs no command. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "engines/fiofile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Whether the rendered text has a line "KEY=..." (or "KEY") with a value other than want. */
static int has_other(const char *text, const char *key, const char *want)
{
	size_t n = strlen(key);
	const char *p;

	for (p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (strncmp(p, key, n) || (p[n] != '=' && p[n] != '\n' && p[n] != '\0'))
			continue;
		if (!want || p[n] != '=' || strncmp(p + n + 1, want, strlen(want)) ||
		    (p[n + 1 + strlen(want)] != '\n' && p[n + 1 + strlen(want)] != '\0'))
			return 1;
	}
	return 0;
}

/* Whether a line of text starts "include" in any case: fio includes what follows. */
static int has_include(const char *text)
{
	const char *p;

	for (p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!strncasecmp(p, "include", 7))
			return 1;
	}
	return 0;
}

/* The input is a job file. A refused one names why; an accepted raw-device one renders with
 * filename= only the device, no exec_*, no directory, and a finite deadline. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct engine_target t = { "fio", "/dev/loop7", NULL, "w", NULL, NULL };
	struct fiofile *f = NULL;
	struct metric_names names = { 0 };
	struct err e;
	char *text;
	double b;

	err_clear(&e);
	if (fiofile_parse((const char *)data, size, &f, &e)) {
		if (!e.msg[0] || f)
			abort();
		return 0;
	}
	b = fio_file_pass_bound_s(f, false, 1ULL << 30);
	if (!(b >= 0) || b != b)
		abort();
	fio_file_metrics_list(f, &names);
	err_clear(&e);
	if (fiofile_target_check(f, "/dev/loop7", false, NULL, &e) == 0) {
		text = fiofile_render(f, &t);
		if (has_other(text, "filename", "/dev/loop7") ||
		    has_other(text, "exec_prerun", NULL) || has_other(text, "exec_postrun", NULL) ||
		    has_other(text, "directory", NULL) || has_include(text))
			abort();
		free(text);
	} else if (!e.msg[0]) {
		abort();
	}
	fiofile_free(f);
	return 0;
}
