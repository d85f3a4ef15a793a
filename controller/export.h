/* export.h -- a sweep's chosen configuration as a udev rule or a tuned profile
 * (`fleettune-ctl export`). */
#ifndef FT_EXPORT_H
#define FT_EXPORT_H

#include "buf.h"
#include "err.h"
#include "sweep.h"

/* Which configuration of a sweep to export. */
enum export_what {
	EXPORT_BEST,     /* its best configuration; refused when it has none */
	EXPORT_BASELINE, /* its original baseline, asked for on purpose (export --baseline) */
};

/*
 * Append the configuration what names of s (analysed) to out as a udev rule ("udev": one
 * rule per distinct device name) or a tuned profile ("tuned"): the scheduler first
 * (switching it resets nr_requests and iosched/), iosched attributes last, setra as
 * read_ahead_kb; vm.* / fs.* / kernel.* sysctls apart (commented for udev, [sysctl] for
 * tuned). Returns 0; -EINVAL (e filled) for an unknown format; -ENOENT (e filled, out left
 * as it was) for EXPORT_BEST of a sweep with no best: a permanent rule is never written
 * for a baseline nobody chose.
 */
int export_render(const struct sweep *s, const char *format, enum export_what what, struct buf *out,
                  struct err *e);

#endif
