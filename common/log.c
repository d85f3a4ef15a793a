/* log.c -- one line per event on stderr: time, program, level, message. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>

#include "log.h"
#include "utf8.h"
#include "banned.h"

static const char *log_prog = "fleettune";
static enum log_level log_min = LOG_INFO;

void log_init(const char *prog, enum log_level min)
{
	log_prog = prog;
	log_min = min;
}

bool log_enabled(enum log_level lvl)
{
	return lvl >= log_min;
}

void log_msg(enum log_level lvl, const char *fmt, ...)
{
	static const char *names[] = { "debug", "info", "warn", "error" };
	char line[1024], ts[32], *clean = NULL;
	struct timeval tv;
	struct tm tm;
	va_list ap;

	if (!log_enabled(lvl))
		return;
	gettimeofday(&tv, NULL);
	gmtime_r(&tv.tv_sec, &tm);
	strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%S", &tm);
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	/* Text from outside (an agent's, a client's) reaches a terminal: never an escape
	 * sequence, a C1 control or a bidi override (utf8.h's rule). */
	if (!utf8_text_is_clean(line))
		clean = utf8_clean_text_dup(line);
	/* One fprintf per line keeps lines whole across threads. */
	fprintf(stderr, "%s.%03ldZ %s %s: %s\n", ts, (long)(tv.tv_usec / 1000), log_prog,
	        names[lvl], clean ? clean : line);
	free(clean);
}
