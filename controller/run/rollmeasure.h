/* rollmeasure.h -- a rollout's measure check (rollmeasure.c). */
#ifndef FT_ROLLMEASURE_H
#define FT_ROLLMEASURE_H

#include <stddef.h>

#include "run/rollctx.h"

/* The measure check of wave w: 1 passed, 0 failed (detail says why), -EINTR stopped by a
 * signal. */
int rollmeasure_check(struct rollctx *u, int w, char *detail, size_t len);

#endif
