/* token.h -- the agent's bearer token file: read, or made once (durably) when absent. */
#ifndef FT_TOKEN_H
#define FT_TOKEN_H

#include <stddef.h>

#include "err.h"

#define TOKEN_MIN_CHARS 16

/*
 * The token in the file at path into out (len bytes, NUL-terminated; trailing blanks and line
 * ends dropped). A file group or others may read or write is refused (-EPERM): anyone who can
 * read it can write /sys. A file that is empty (what a crash between its creation and its
 * write could leave, before this was durable), too short or too long, or holds anything but
 * printable ASCII without blanks is refused with -EINVAL naming it and what to do. An absent
 * file is made: 32 random bytes in hex written to a temporary file in its directory (0600),
 * fsynced, linked to path (never over a file that appeared meanwhile: then that one is read)
 * and the directory fsynced, so that a crash leaves either no token file or a whole one.
 * *made (may be NULL) says it was made. Errors have code "internal".
 */
int token_load(const char *path, char *out, size_t len, int *made, struct err *e);

#endif
