/* fuzz_engine.c -- libFuzzer harness for one engine's output parser (FUZZ_ENGINE picks it). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "engines/engine.h"
#include "xmalloc.h"

#ifndef FUZZ_ENGINE
#error "build with -DFUZZ_ENGINE=fio_engine (or dd_engine, bonnie_engine, iozone_engine)"
#endif

/* The exit statuses a pass can end with: success, failure, fio's 128, killed by SIGTERM. */
static const struct {
	int exit_code, term_signal;
} endings[] = { { 0, 0 }, { 1, 0 }, { 128, 0 }, { -1, 15 } };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The input is what the tool printed; it is given as both streams, NUL-terminated after
 * size bytes as proc.c's buffers are, and parsed with one kind of ending picked by its size
 * (so every ending is reached, at a quarter of the cost of trying all four each time). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = xmalloc(size + 1);
	struct metrics m;
	struct err e;
	size_t i = size % (sizeof(endings) / sizeof(endings[0]));
	int k, rc;

	memcpy(text, data, size);
	text[size] = '\0';
	err_clear(&e);
	memset(&m, 0, sizeof(m));
	rc = FUZZ_ENGINE.parse(text, size, text, size, endings[i].exit_code, endings[i].term_signal,
	                       &m, &e);
	if (rc > 0 || m.n < 0 || m.n > METRICS_MAX)
		abort();
	if (rc < 0 && (e.code == ERR_NONE || !e.msg[0]))
		abort(); /* every failure names its reason */
	for (k = 0; k < m.n; k++)
		if (!memchr(m.m[k].name, '\0', sizeof(m.m[k].name)) || !m.m[k].name[0])
			abort();
	if (FUZZ_ENGINE.id == ENGINE_FIO) {
		/* A job with workloads: the same output read as 1..4 sections. */
		struct metrics per[4];
		int n = 1 + (int)(size % 4), s;

		err_clear(&e);
		rc = fio_parse_sections(text, size, text, size, endings[i].exit_code,
		                        endings[i].term_signal, n, per, &e);
		if (rc > 0 || (rc < 0 && (e.code == ERR_NONE || !e.msg[0])))
			abort();
		for (s = 0; s < n; s++)
			if (per[s].n < 0 || per[s].n > METRICS_MAX)
				abort();
	}
	free(text);
	return 0;
}
