/* xmalloc.h -- allocation that dies on out-of-memory, so callers never check. */
#ifndef FT_XMALLOC_H
#define FT_XMALLOC_H

#include <stddef.h>

void *xmalloc(size_t n);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* Make room for `need` elements of `size` bytes in array p of capacity *cap
 * (doubling, 16 at least); returns the possibly moved array. */
void *xgrow(void *p, int *cap, int need, size_t size);
/* printf into a fresh heap string. Caller has ownership. */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
