/* fuzz_plan.c -- libFuzzer harness for the controller's sweep plan parser (plan.c). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "plan/plan.h"
#include "plan/plan_parse.h"
#include "xmalloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The input is a plan file. A refused plan names why; an accepted one can be released. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = xmalloc(size + 1);
	struct plan p;
	struct err e;

	memcpy(text, data, size);
	text[size] = '\0';
	err_clear(&e);
	if (plan_parse(text, "/nonexistent-plan-dir", &p, &e) == 0)
		plan_release(&p);
	else if (!e.msg[0])
		abort();
	free(text);
	return 0;
}
