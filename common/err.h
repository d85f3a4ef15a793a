/* err.h -- caller-owned error reports: a code from errcode.h plus a human message. */
#ifndef FT_ERR_H
#define FT_ERR_H

#include "errcode.h"

/*
 * A fallible function returns 0 or a negative errno and, on failure, fills
 * a caller-owned struct err. `code` is one of errcode.h's table (its word and
 * HTTP status come from there: err_code_name, err_code_status); `msg` names
 * the thing that was wrong ("cannot write 'nr_requests' on 'loop0': Invalid
 * argument"). `word` is set only with ERR_UNLISTED: the word an agent of
 * another version answered with, which this table does not have (the
 * controller shows it; err_word). A cleared struct err (err_clear, { 0 }) has
 * ERR_NONE.
 */
struct err {
	enum err_code code;
	char word[40];
	char msg[256];
};

/* Fill `e` (may be NULL) and return `rc`, so callers can write
 * `return err_set(e, -EINVAL, ERR_INVALID_VALUE, "...", ...);`. ERR_NONE is taken as
 * ERR_INTERNAL; e->word is kept with ERR_UNLISTED (re-wrapping e's own code), else cleared. The
 * message is made valid UTF-8 (utf8_clean: bytes that are not, and control characters, as
 * "\xHH") and cut on a character boundary; quote client input with "%.*s" and utf8_cut() rather
 * than "%.64s". */
int err_set(struct err *e, int rc, enum err_code code, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));

/* err_set() with "PATH: " before the message: where in a document (a plan, a sweep) the
 * thing that was wrong stands ("job.loops.max: must be at least job.loops.min"). */
int err_set_at(struct err *e, int rc, enum err_code code, const char *path, const char *fmt, ...)
        __attribute__((format(printf, 5, 6)));

/* err_set() with the code an outside word names (an agent's answer): err_code_parse(word),
 * ERR_INTERNAL for NULL or "", and the word itself kept in e->word when the table lacks it. */
int err_set_word(struct err *e, int rc, const char *word, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));

/* The word to show for e's code: e->word for ERR_UNLISTED, else err_code_name(e->code). */
const char *err_word(const struct err *e);

/* Reset to the empty state. */
void err_clear(struct err *e);

#endif
