/* log.h -- timestamped logging to stderr, shared by the agent and the controller. */
#ifndef FT_LOG_H
#define FT_LOG_H

#include <stdbool.h>

enum log_level { LOG_DEBUG, LOG_INFO, LOG_WARN, LOG_ERROR };

/* Set the program name shown in each line and the lowest level printed. */
void log_init(const char *prog, enum log_level min);
void log_msg(enum log_level lvl, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Whether a message of level lvl would be printed (to skip building one that would not). */
bool log_enabled(enum log_level lvl);

#define log_debug(...) log_msg(LOG_DEBUG, __VA_ARGS__)
#define log_info(...) log_msg(LOG_INFO, __VA_ARGS__)
#define log_warn(...) log_msg(LOG_WARN, __VA_ARGS__)
#define log_error(...) log_msg(LOG_ERROR, __VA_ARGS__)

#endif
