/* fiosyntax.h -- fio's value syntaxes, below both the fio engine (fio.c) and the job-file
 * parser (fiofile.c), which read them alike. No I/O. */
#ifndef FT_FIOSYNTAX_H
#define FT_FIOSYNTAX_H

#include <stddef.h>
#include <stdint.h>

/* A finite number that is all of s[0..n), starting with a digit or '.': 0, or -EINVAL. */
int fiosyntax_number(const char *s, size_t n, double *out);
/* A block size that is all of s[0..n) (num_parse_size's syntax), 1..1G: 0, or -EINVAL. */
int fiosyntax_size(const char *s, size_t n, uint64_t *out);
/* A bssplit value ("4k/50:64k/50,8k"): 0 and its smallest and largest block (either may be
 * NULL), or -EINVAL with why. */
int fiosyntax_bssplit_parse(const char *v, uint64_t *min_bs, uint64_t *max_bs, char *why,
                            size_t len);

#endif
