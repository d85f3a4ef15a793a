/* err.h -- caller-owned error reports: a snake_case code plus a human message. */
#ifndef FT_ERR_H
#define FT_ERR_H

/*
 * A fallible function returns 0 or a negative errno and, on failure, fills
 * a caller-owned struct err. `code` is a stable snake_case identifier that
 * the API layer maps to an HTTP status (see api_status_for_code); `msg`
 * names the thing that was wrong ("cannot write 'nr_requests' on 'loop0':
 * Invalid argument").
 */
struct err {
	char code[40];
	char msg[256];
};

/* Fill `e` (may be NULL) and return `rc`, so callers can write
 * `return err_set(e, -EINVAL, "invalid_value", "...", ...);`. The message is made valid UTF-8
 * (utf8_clean: bytes that are not, and control characters, as "\xHH") and cut on a character
 * boundary; quote client input with "%.*s" and utf8_cut() rather than "%.64s". */
int err_set(struct err *e, int rc, const char *code, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));

/* err_set() with "PATH: " before the message: where in a document (a plan, a sweep) the
 * thing that was wrong stands ("job.loops.max: must be at least job.loops.min"). */
int err_set_at(struct err *e, int rc, const char *code, const char *path, const char *fmt, ...)
        __attribute__((format(printf, 5, 6)));

/* Reset to the empty state. */
void err_clear(struct err *e);

#endif
