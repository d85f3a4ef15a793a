/* options.h -- command-line options as a table: each entry names its option, its argument, its
 * one-line help and how its value is taken, and that one table parses (getopt_long), prints
 * --help and is what tests/lint/options.sh checks the man pages against. */
#ifndef FT_OPTIONS_H
#define FT_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "buf.h"
#include "err.h"

enum opt_has_arg { OPT_FLAG, OPT_REQUIRED, OPT_OPTIONAL };

struct opt;
/* Take option o with its argument (NULL for a flag, or an optional argument not given) into
 * ctx; 0, or -1 with e saying what was wrong, naming the option. */
typedef int (*opt_take_fn)(const struct opt *o, const char *arg, void *ctx, struct err *e);

struct opt {
	const char *name; /* the long name, without "--" */
	int letter;       /* its short form ('f' for -f), or 0 */
	enum opt_has_arg has_arg;
	const char *arg;  /* the argument's name in --help ("FILE"); NULL for a flag */
	const char *help; /* --help's text; each '\n' starts a continuation line */
	opt_take_fn take; /* how the value is taken: one of opt_take_* or the program's own */
	size_t off;       /* where opt_take_* store it in ctx (offsetof) */
	int64_t min, max; /* the range opt_take_i64 / _int / _uint accept */
};

/* An option table of at most OPT_MAX entries; mask selects entries by index (bit i: t[i]). */
#define OPT_MAX 64
#define OPT_ALL UINT64_MAX
#define OPT_BIT(i) (UINT64_C(1) << (i))

/* The takers of plain values, at o->off in ctx: a const char * (the argument itself, owned by
 * argv), a bool set to true, an int64_t / int / unsigned in [o->min, o->max]. */
int opt_take_str(const struct opt *o, const char *arg, void *ctx, struct err *e);
int opt_take_flag(const struct opt *o, const char *arg, void *ctx, struct err *e);
int opt_take_i64(const struct opt *o, const char *arg, void *ctx, struct err *e);
int opt_take_int(const struct opt *o, const char *arg, void *ctx, struct err *e);
int opt_take_uint(const struct opt *o, const char *arg, void *ctx, struct err *e);

/*
 * Parse the options of argv[1..argc) against table t (n entries, n <= OPT_MAX) with GNU
 * getopt_long (options and arguments in any order; "--" ends the options), taking each into
 * ctx in the order given. who names the command in messages ("history"). An option of the
 * table whose bit is not in mask is refused ("history does not take --dry-run"), as is an
 * unknown one, a missing or unexpected argument, or a value its taker refuses. On success
 * *first_arg is the index in argv (permuted) of the first non-option argument. Returns 0, or
 * -1 with e set (code "usage").
 */
int opt_parse(const struct opt *t, size_t n, uint64_t mask, const char *who, int argc, char **argv,
              void *ctx, int *first_arg, struct err *e);

/* Print the options of t selected by mask as --help lists them, one per line in table order:
 * "  -f, --name ARG" (or "  --name[=ARG]") padded to column width, then the help, its
 * continuation lines indented to width. */
void opt_help_print(FILE *f, const struct opt *t, size_t n, uint64_t mask, int width);

/* Whether text names option name: "--name" not followed by more of a name. */
bool opt_named(const char *text, const char *name);

/* Append to out " [--name ARG]" for each option of t selected by mask that out does not name
 * already (a synopsis "apply PLAN.json (--params JSON | --best ID)" keeps its own spelling of
 * those), wrapping before column col with continuation lines indented by indent. */
void opt_synopsis(struct buf *out, const struct opt *t, size_t n, uint64_t mask, int col,
                  int indent);

#endif
