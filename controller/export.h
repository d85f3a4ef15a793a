/* export.h -- a sweep's chosen configuration as a udev rule or a tuned profile
 * (`fleettune-ctl export`). */
#ifndef FT_EXPORT_H
#define FT_EXPORT_H

#include "buf.h"
#include "err.h"
#include "sweep.h"

/*
 * Append the best configuration of s (analysed; else its baseline) to out as a udev rule
 * ("udev": one rule per distinct device name) or a tuned profile ("tuned"): the scheduler
 * first (switching it resets nr_requests and iosched/), iosched attributes last, setra as
 * read_ahead_kb; vm.* / fs.* / kernel.* sysctls apart (commented for udev, [sysctl] for
 * tuned). Returns 0, or -EINVAL (e filled) for an unknown format.
 */
int export_render(const struct sweep *s, const char *format, struct buf *out, struct err *e);

#endif
