/* export.h -- a sweep's chosen configuration as a udev rule or a tuned profile
 * (`fleettune-ctl export`). */
#ifndef FT_EXPORT_H
#define FT_EXPORT_H

#include "buf.h"
#include "err.h"
#include "model/sweep.h"

/* Which configuration of a sweep to export. */
enum export_what {
	EXPORT_BEST,        /* its confirmed decision's configuration; refused when it has none */
	EXPORT_UNCONFIRMED, /* its decision's configuration also when unconfirmed, asked for on
	                       purpose (export --unconfirmed): the rule's comment says so */
	EXPORT_BASELINE,    /* its original baseline, asked for on purpose (export --baseline) */
};

/*
 * Append the configuration what names of s (analysed) to out as udev rules ("udev") or tuned
 * profiles ("tuned"), one per cohort matching the cohort's identity (its own best; a cohort
 * with none gets a comment and no rule; an unconfirmed one, exported with EXPORT_UNCONFIRMED,
 * a comment saying what the final confirmation showed), never a device name; a sweep whose nodes
 * reported no identity as one rule per distinct device name, as before identity. In each: the
 * scheduler first (switching it resets nr_requests and iosched/), iosched attributes last,
 * setra as read_ahead_kb; vm.* / fs.* / kernel.* sysctls apart (commented for udev,
 * [sysctl] for tuned); fs.* noted. Returns 0; -EINVAL (e filled, out as it was) for an
 * unknown format, a name or value no rule may hold, or an identity string no rule can match
 * exactly ("export_refused"), or a cohort with nothing to match ("no_match"); -ENOENT for
 * EXPORT_BEST of a sweep with no confirmed decision (of the fleet or of any cohort), or
 * EXPORT_UNCONFIRMED of one with nothing suggested: a permanent rule is never written for a
 * configuration nobody confirmed unless asked, nor for a baseline nobody chose.
 */
int export_render(const struct sweep *s, const char *format, enum export_what what, struct buf *out,
                  struct err *e);

#endif
