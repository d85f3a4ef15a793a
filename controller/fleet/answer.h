/* answer.h -- an agent's answer as the controller takes it in: bounded by its route (bytes,
 * elements, nesting) before anything is decoded, and every text in it cleaned once. */
#ifndef FT_ANSWER_H
#define FT_ANSWER_H

#include <jansson.h>
#include <stddef.h>

#include "err.h"

/* The bounds of the answers to one route: what a real agent sends fits them many times over
 * (answer.c's table says which). */
struct answer_bounds {
	size_t max_bytes; /* the body; a longer one is refused while it arrives */
	long max_elems;   /* values, members and containers ('{', '[' and ',' outside strings) */
	int max_depth;    /* nested objects and arrays */
};

/* Nesting deeper than this is refused on every route. */
#define ANSWER_DEPTH_MAX 32

/* The bounds of the answers to METHOD url (the agent's URL and the route, with a query or
 * not): per route of the agent API, a default for anything else. */
void answer_bounds_of(const char *method, const char *url, struct answer_bounds *b);

/*
 * Decode an agent's answer body (len bytes) under b: a body over b->max_bytes, with more than
 * b->max_elems elements or nested deeper than b->max_depth is refused before jansson sees it
 * (jansson would build all of it: a ~60 MB [{},{},...] took the controller to 9.6 GB), as is
 * what is not JSON or repeats a member. Then every string and member name in it is cleaned by
 * utf8_clean (escape sequences, C1 controls, bidi overrides: utf8.h's rule), so no agent's
 * text reaches a terminal, a file or the history as it was sent. Returns a new reference, or
 * NULL with what was wrong in e ("the answer has more than 50000 elements").
 */
json_t *answer_decode(const char *body, size_t len, const struct answer_bounds *b, struct err *e);

#endif
