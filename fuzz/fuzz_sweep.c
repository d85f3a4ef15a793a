/* fuzz_sweep.c -- libFuzzer harness for the sweep-document reader of `analyze` (sweepdoc.c). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "doc/sweepdoc.h"
#include "judge/verdict.h"
#include "model/sweep.h"
#include "render/report.h"
#include "xmalloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The input is a sweep document. A refused one names why; an accepted one is judged and
 * rendered in every format, as analyze does, and released. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum report_format formats[] = { REPORT_TABLE, REPORT_MARKDOWN, REPORT_CSV,
		                                      REPORT_JSON };
	char *text = xmalloc(size + 1);
	struct sweep s;
	struct err e;
	size_t i;

	memcpy(text, data, size);
	text[size] = '\0';
	err_clear(&e);
	if (sweepdoc_parse(text, &s, &e) == 0) {
		verdict_sweep(&s);
		for (i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
			struct buf out = BUF_INIT;

			report_render(&s, formats[i], &out);
			if (!out.len)
				abort();
			buf_release(&out);
		}
		sweep_release(&s);
	} else if (!e.msg[0]) {
		abort();
	}
	free(text);
	return 0;
}
